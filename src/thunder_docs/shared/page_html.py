"""A page's HTML parsed once, for every pass that changes it.

``thunder-links``, ``thunder-traces`` and ``thunder-lazyhighlight`` each read and change the HTML of
a page's content. ``PageHTML`` tokenises it once (``shared/html_tree.py``): its tokens, and each
``<pre>`` as a ``Block`` whose content becomes a tree of nodes when a pass first asks for it, built
from the page's tokens (never tokenised again). The passes change that structure: thunder-links
replaces stretches of prose (``replace``, ``map_prose``) and wraps names in the blocks' trees,
thunder-traces wraps trace lines and sets a block's start tag, thunder-lazyhighlight reads each
block's layout (plugins/lazyhighlight/defer.py). ``html`` writes it out, each block from its tree.

MkDocs hands each ``on_page_content`` hook the HTML as a string. ``parsed(page, html)`` gives a pass
the structure the previous pass wrote out with ``written`` when ``html`` is exactly what it wrote,
and parses ``html`` otherwise: a plugin in between that changed the HTML, or a pass that is off,
costs a parse, never a wrong page.

A block is what each pass took for one before: a ``<pre>`` start tag and what follows it up to the
first ``</pre>``; the ``<div>`` it sits in (Pygments' and mkdocs-jupyter's wrapper) is the last
``<div>`` before it, when no ``</div>`` came between.
"""

from __future__ import annotations

from collections.abc import Callable

from thunder_docs.shared.html_tree import Node, Token, tokens, tree, tree_of


class Block:
    """A ``<pre>`` of the page: its start tag, the ``<div>`` it sits in, and its content."""

    def __init__(self, page: PageHTML, index: int, open_tag: Token, first: int, stop: int, wrapper: Token | None):
        self.page = page
        self.index = index  # the page's k-th block
        self.open = open_tag  # the <pre>'s start tag as parsed (offsets in page.text)
        self.first, self.stop = first, stop  # its content is page.tokens[first:stop]; stop: its </pre>
        self.wrapper = wrapper  # the start tag of the <div> it sits in, if any
        self.tag = page.text[open_tag.start:open_tag.end]  # the <pre>'s start tag as written out
        self.start = open_tag.end  # where its content starts and ends in page.text
        self.end = page.tokens[stop].start if stop < len(page.tokens) else len(page.text)
        self._tree: Node | None = None
        self._text: str | None = None  # its content, once it is no longer page.text[start:end]
        self._html: str | None = None  # its content as written out, while nothing changed it

    @property
    def classes(self) -> set[str]:
        return set(self.wrapper.classes) if self.wrapper else set()

    def wrapper_attr(self, name: str) -> str | None:
        return self.wrapper.attr(name) if self.wrapper else None

    @property
    def changed(self) -> bool:
        """Whether a pass may have changed its content (it is then written out from the tree)."""
        return self._tree is not None or self._text is not None

    def tree(self) -> Node:
        """The content as a tree, for a pass to change (built on first use)."""
        root = self.read_tree()
        self._html = None
        return root

    def read_tree(self) -> Node:
        """The content as a tree, to read only."""
        if self._tree is None:
            self._absorb()
            if self._text is not None:
                self._tree = tree(self._text)
            else:
                self._tree = tree_of(self.page.text, self.page.tokens[self.first:self.stop])
        return self._tree

    def has_tree(self) -> bool:
        return self._tree is not None

    def source(self) -> tuple[str, list[Token]]:
        """The content's tokens and the text their offsets point into (while it has no tree)."""
        self._absorb()
        if self._text is not None:
            return self._text, tokens(self._text)
        return self.page.text, self.page.tokens[self.first:self.stop]

    def content(self) -> str:
        """The content as HTML, as it is now."""
        if self._html is None:
            self._absorb()
            if self._tree is not None:
                self._html = self._tree.html()
            else:
                self._html = self._text if self._text is not None else self.page.text[self.start:self.end]
        return self._html

    def set_content(self, html: str) -> None:
        self._text = self._html = html
        self._tree = None

    def _absorb(self) -> None:
        """Take the prose edits made inside the content (a pass that walks a block as prose)."""
        inside = self.page._take_edits(self.start, self.end)
        if inside:
            if self._tree is not None:
                raise ValueError("an edit inside a block whose tree a pass has taken")
            base = self._text if self._text is not None else self.page.text[self.start:self.end]
            self._text = self._html = _apply(base, [(s - self.start, e - self.start, new) for s, e, new in inside])


class PageHTML:
    """The HTML of a page's content: its tokens, its blocks, and the edits passes made to it."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = tokens(text)
        self.blocks: list[Block] = []
        self._at: dict[int, Block] = {}  # blocks by the index of their <pre>'s token
        self._edits: list[tuple[int, int, str]] = []  # (start, end, new HTML) in text, outside the trees
        toks = self.tokens
        wrapper: Token | None = None  # the last <div> start tag, until a </div>
        after = 0  # the first token past the last block
        for i, tok in enumerate(toks):
            if tok.name == "div":
                wrapper = tok if tok.kind in ("start", "startend") else None if tok.kind == "end" else wrapper
            elif tok.kind == "start" and tok.name == "pre" and i >= after:
                stop = next((j for j in range(i + 1, len(toks)) if toks[j].kind == "end" and toks[j].name == "pre"),
                            len(toks))
                block = Block(self, len(self.blocks), tok, i + 1, stop, wrapper)
                self.blocks.append(block)
                self._at[i] = block
                after = stop + 1

    def block_at(self, index: int) -> Block | None:
        """The block whose ``<pre>`` start tag is token ``index``."""
        return self._at.get(index)

    def replace(self, start: int, end: int, new: str) -> None:
        """Replace ``text[start:end]`` (no edit overlaps another; an insertion has start == end)."""
        self._edits.append((start, end, new))

    def map_prose(self, change: Callable[[str], str]) -> None:
        """Apply ``change`` (a substitution that never spans a ``<pre>``) to the HTML between
        blocks, and to each block's content."""
        for block in self.blocks:
            content = block.content()
            new = change(content)
            if new != content:
                block.set_content(new)
        bounds = [0]
        for block in self.blocks:
            bounds += [block.open.start, self.tokens[block.stop].end if block.stop < len(self.tokens) else len(self.text)]
        bounds.append(len(self.text))
        for start, end in zip(bounds[0::2], bounds[1::2], strict=True):
            inside = self._take_edits(start, end)
            written = _apply(self.text[start:end], [(s - start, e - start, new) for s, e, new in inside])
            new = change(written)
            if new != written or inside:
                self._edits.append((start, end, new))

    def html(self) -> str:
        """The HTML written out: the text with every edit, each changed block from its content."""
        pieces = []
        for block in self.blocks:
            if block.tag != self.text[block.open.start:block.open.end]:
                pieces.append((block.open.start, block.open.end, block.tag))
            if block.changed or self._has_edit(block.start, block.end):
                pieces.append((block.start, block.end, block.content()))
        return _apply(self.text, pieces + self._edits)

    def _take_edits(self, start: int, end: int) -> list[tuple[int, int, str]]:
        """Remove and return the edits inside ``text[start:end]`` (an insertion at either end too)."""
        if not self._edits:
            return []
        inside = [e for e in self._edits if start <= e[0] and e[1] <= end]
        if inside:
            self._edits = [e for e in self._edits if e not in inside]
        return inside

    def _has_edit(self, start: int, end: int) -> bool:
        return any(start <= s and e <= end for s, e, _ in self._edits)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with each (start, end, new) edit made; the edits do not overlap."""
    out, pos = [], 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)


# -- from pass to pass ---------------------------------------------------------------------------------
_last: tuple[str, str, PageHTML] | None = None  # the page, the HTML the last pass wrote, its structure


def parsed(page: str, html: str) -> PageHTML:
    """The structure of ``html``, the content of ``page`` (its source path), for a pass to change:
    the one the last pass wrote out when ``html`` is what it wrote, else ``html`` parsed. The pass
    gives it back with ``written``; one that fails leaves nothing half-changed for the next."""
    global _last
    found = last(page, html)
    _last = None
    return found or PageHTML(html)


def last(page: str, html: str) -> PageHTML | None:
    """The structure the last pass wrote out, to read, when ``html`` (of ``page``) is what it wrote."""
    if _last is not None and _last[0] == page and _last[1] == html:
        return _last[2]
    return None


def written(page: str, structure: PageHTML) -> str:
    """The HTML of ``structure``, which the next pass over ``page`` gets back from ``parsed``."""
    global _last
    html = structure.html()
    _last = (page, html, structure)
    return html


def forget() -> None:
    """Let the last structure go (the build is done with the page's content)."""
    global _last
    _last = None
