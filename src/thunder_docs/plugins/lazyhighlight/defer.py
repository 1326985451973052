"""Defer a page's code highlighting: each large code block is sent as plain text, with its
highlighted HTML kept beside it in a ``<noscript>``.

A highlighted block is one ``<span>`` per token: most of the elements of a page that shows code.
For each ``<pre>`` whose ``<code>`` holds at least ``min_elements`` elements:

- the ``<code>`` gets its text alone (the same characters, so find-in-page and Material's copy
  button see what they saw) and ``data-lazy``; also ``data-links`` when it held links
  (thunder-traces.js makes such a block one Tab stop, its arrow keys moving between the links);
- a ``<noscript>`` after the ``<pre>`` holds the original ``<pre>``, without its ``id`` and marked
  ``data-kept`` (so that it is never deferred itself), and
  without the spans that change nothing a reader sees: Pygments' names (``n``, which Material
  colours as the code around them: ``--md-code-hl-name-color`` is ``--md-code-fg-color``) and
  whitespace (``w``, which Material does not style). A third of a block's elements, and of the
  bytes its second copy costs; ``tests/test_lazyhighlight.py`` holds Material's stylesheets to it.

With scripting on, a browser reads a ``<noscript>`` as one piece of text, so the page loads few
elements; thunder-lazyhighlight.js puts the highlighted children back when a block comes near
the view, gets the focus, or the page is printed. With scripting off, the ``<noscript>`` is
shown and the plain ``<pre>`` hidden (``NOSCRIPT_STYLE``): the page reads as it did.

A notebook's code cell (mkdocs-jupyter: a ``<pre>`` in a ``highlight-ipynb`` ``<div>``, with no
``<code>``) is deferred the same way, the ``<pre>`` itself taking ``data-lazy``; its kept copy
keeps every span, since the notebook's own stylesheet colours whitespace (``w``).

Left as they are: trace blocks (``data-traces``: thunder-traces marks them up from their line
map), blocks whose HTML holds ``</noscript`` (it would end the ``<noscript>`` early), and blocks
already deferred.

Deferring reads three things of a block (its ``Layout``): where its ``<code>`` starts and ends,
how many elements it holds, and its text. The page is deferred as it is written (Material's
template around the content, which holds no ``<pre>`` of its own), but those were read from the
content's one parse (shared/page_html.py, ``content_layouts``) when there was one: the k-th
``<pre>`` of the written page is the k-th of the content. Between the two, autorefs replaced each
``<autoref>`` by one ``<a>`` or ``<span>`` (the same elements and text); a block changed in any
other way (a pass stepper's traces moved to a file) is read again, and a page whose blocks are not
the content's (another count, another start tag) is read whole, as without a parse. Read, a block
of plain HTML (what Pygments and the passes write) has its layout counted from its tags
(``_layout_of_plain``, the layout its tokens give); any other is read from its tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from thunder_docs.shared.html_tree import LINK, VOID, Node, Pre, Token, each_pre, tokens
from thunder_docs.shared.page_html import PageHTML

PLAIN_CLASS = "hl-plain"
NOSCRIPT_STYLE = f"<noscript><style>pre.{PLAIN_CLASS}{{display:none}}</style></noscript>"
_ID = re.compile(r"""\s+id=(?:"[^"]*"|'[^']*'|[^\s>]+)""")
PLAIN_SPANS = ("n", "w")  # Pygments classes Material draws as plain code text
_PLAIN_SPAN = re.compile(r'<span class="(?:' + "|".join(PLAIN_SPANS) + r')">([^<]*)</span>')
_SKIP = re.compile(r"data-traces|data-lazy", re.I)
KEPT = "data-kept"  # the <pre> kept in a <noscript>: never deferred again
NOTEBOOK_CELL = "highlight-ipynb"  # the <div> mkdocs-jupyter puts a code cell's <pre> in


def plain_text(inner: str) -> str:
    """The text of a ``<code>``'s content, as HTML: its text and character references, in order."""
    return "".join(inner[t.start:t.end] for t in tokens(inner) if t.kind in ("text", "ref"))


@dataclass(frozen=True)
class Layout:
    """What deferring a ``<pre>`` reads of its content: where its ``<code>`` is, and how many
    elements and what text the ``<code>`` holds (the ``<pre>`` itself when it has no ``<code>``)."""

    code: tuple[int, int, int] | None  # lengths of what precedes <code>, of its start tag, of </code> and after
    elements: int  # start tags
    plain: str  # text and character references, in order


def layout_of(content: str) -> Layout:
    """The layout of a ``<pre>``'s content: by ``_layout_of_plain`` when it is plain HTML, else read
    from its tokens."""
    return _layout_of_plain(content) or layout_of_tokens(content, tokens(content), 0, len(content))


# Plain HTML: text without < or &, character references ended by ";", and tags with lower-case
# names whose attribute values are double-quoted and hold no <, > or & (what Pygments and the
# passes write). On it html.parser's tokens are its tags and the text between (shared/html_tree.py
# reads a <pre> of it the same way), so the layout is read by counting, with no token made.
_PLAIN_HTML = re.compile(r"""(?:[^<&]++
    | &(?:[a-zA-Z][a-zA-Z0-9]*|\#[0-9]+|\#[xX][0-9a-fA-F]+);
    | </[a-z][a-z0-9-]*>
    | <[a-z][a-z0-9-]*(?:\s+[a-z_:][-a-z0-9_:.]*(?:="[^"<>&]*")?)*+\s*>)*+""", re.X)  # possessive: no backtracking
_RAW_TEXT = re.compile(r"<(?:script|style|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)[\s>]")
_VOID_START = re.compile(r"<(?:" + "|".join(sorted(VOID)) + r")[\s>]")
_CODE_START = re.compile(r"<code[\s>]")
_TAG = re.compile(r"<[^>]*>")


def _layout_of_plain(content: str) -> Layout | None:
    """The layout ``layout_of_tokens`` reads, for plain HTML with at most one ``<code>`` element
    (else None): every ``<`` there starts a tag, every ``</`` an end tag, and a tag ends at the
    first ``>``."""
    if not _PLAIN_HTML.fullmatch(content) or _RAW_TEXT.search(content):
        return None
    starts = [m.start() for m in _CODE_START.finditer(content)]
    if len(starts) > 1 or content.count("</code>") > 1:
        return None
    if starts and (close := content.find("</code>", starts[0])) >= 0:
        head = starts[0]
        opening = content.index(">", head) + 1 - head
        inner = content[head + opening:close]
        tags, ends = inner.count("<"), inner.count("</")
        if tags - 2 * ends - len(_VOID_START.findall(inner)) == 0:  # the </code> closes the <code>
            return Layout((head, opening, len(content) - close), tags - ends, _TAG.sub("", inner))
    return Layout(None, content.count("<") - content.count("</"), _TAG.sub("", content))


def layout_of_tokens(text: str, toks: list[Token], start: int, end: int) -> Layout:
    """The layout of ``text[start:end]``, a ``<pre>``'s content, whose tokens are ``toks``."""
    first = next((i for i, t in enumerate(toks) if t.kind == "start" and t.name == "code"), None)
    if first is not None:
        depth = 0
        for k in range(first + 1, len(toks)):
            t = toks[k]
            if t.kind == "end" and t.name == "code" and depth == 0:
                code = toks[first]
                inner = toks[first + 1:k]
                return Layout((code.start - start, code.end - code.start, end - t.start), _count(inner),
                              "".join(text[x.start:x.end] for x in inner if x.kind in ("text", "ref")))
            if t.kind == "start" and t.name not in VOID:
                depth += 1
            elif t.kind == "end":
                depth -= 1
    return Layout(None, _count(toks), "".join(text[x.start:x.end] for x in toks if x.kind in ("text", "ref")))


def _count(toks: list[Token]) -> int:
    return sum(t.kind in ("start", "startend") for t in toks)


def layout_of_tree(root: Node, length: int) -> Layout | None:
    """The layout of a ``<pre>``'s content (``length`` characters of HTML), read from its tree; None when the tree cannot tell
    (a ``<code>`` closed by another end tag, or not at all: ``layout_of`` reads its tokens)."""
    found, before = _first_code(root)
    if found is None:
        elements, plain, _ = _inside(root)
        return Layout(None, elements, plain)
    if not _CODE_END.match(found.close):
        return None
    elements, plain, inner = _inside(found)
    return Layout((before, len(found.open), length - before - len(found.open) - inner), elements, plain)


_CODE_END = re.compile(r"</code[\s>]", re.I)


def _first_code(node: Node) -> tuple[Node | None, int]:
    """The first ``<code>`` element in ``node``'s content, and the length of the HTML before it
    (the whole content's length when it has none)."""
    length = 0
    for child in node.children:
        if child.text is not None:
            length += len(child.open)
            continue
        if child.name == "code":
            return child, length
        length += len(child.open)
        found, inside = _first_code(child)
        length += inside
        if found is not None:
            return found, length
        length += len(child.close)
    return None, length


def _inside(node: Node) -> tuple[int, str, int]:
    """The start tags in ``node``'s content, its text and character references, and its length."""
    elements, plain, length = 0, [], 0
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        if isinstance(child, str):  # an element's end tag
            length += len(child)
            continue
        length += len(child.open)
        if child.text is None:
            elements += 1
            stack.append(child.close)
            stack.extend(reversed(child.children))
        elif child.text:
            plain.append(child.open)
        elif _START.match(child.open):  # an element without content (<br>, <x/>)
            elements += 1
    return elements, "".join(plain), length


_START = re.compile(r"<[a-zA-Z]")


def defer(page: str, min_elements: int, layouts: list[tuple[str, str, Layout]] | None = None) -> str:
    """The page with each code block of at least ``min_elements`` elements deferred.

    ``layouts``: each ``<pre>`` of the page's content as the one parse left it (``content_layouts``),
    so that a block is not read again: its start tag, its content, and its layout. A block whose
    start tag or content is not what the parse wrote (other than in a link autorefs resolved
    since, see ``_same_but_resolved``) is read from its tokens; a page whose blocks are not the
    parse's, all of it."""
    if layouts is None:
        return each_pre(page, lambda pre: _defer(pre, layout_of(pre.content), min_elements))
    known = iter(layouts)

    def change(pre: Pre):
        tag, content, layout, seams = next(known, (None, None, None, None))
        if tag != pre.tag:
            raise _NotTheParse
        if content != pre.content and not _same_but_resolved(pre.content, content, seams, layout):
            layout = layout_of(pre.content)
        return _defer(pre, layout, min_elements)

    try:
        deferred = each_pre(page, change)
    except _NotTheParse:
        return defer(page, min_elements)
    if next(known, None) is not None:
        return defer(page, min_elements)
    return deferred


class _NotTheParse(Exception):
    """The page's blocks are not those of the parse."""


def _defer(pre: Pre, layout: Layout, min_elements: int):
    """What ``each_pre`` puts in place of one block (None: it stays as it is)."""
    classes, pre_open, content = pre.classes, pre.tag, pre.content
    if KEPT in pre_open or "</noscript" in content.lower():
        return None
    if layout.code is None:
        return _notebook_cell(pre_open, content, layout, min_elements) if NOTEBOOK_CELL in classes else None
    head, opening, tail = layout.code
    before, code_open = content[:head], content[head:head + opening]
    inner, rest = content[head + opening:len(content) - tail], content[len(content) - tail:]
    if layout.elements < min_elements or _SKIP.search(code_open):
        return None
    kept = _kept(pre_open, _PLAIN_SPAN.sub(r"\1", content))
    return (_with_class(pre_open, PLAIN_CLASS), before + _marked(code_open, inner) + layout.plain + rest, kept)


def _notebook_cell(pre_open: str, content: str, layout: Layout, min_elements: int):
    """A notebook's code cell: the ``<pre>`` holds the spans itself, and takes the marks."""
    if layout.elements < min_elements or _SKIP.search(pre_open):
        return None
    return _marked(_with_class(pre_open, PLAIN_CLASS), content), layout.plain, _kept(pre_open, content)


# -- blocks from the one parse -------------------------------------------------------------------------
def content_layouts(page: PageHTML) -> list[tuple[str, str, Layout, tuple[tuple[int, int, bool], ...]]]:
    """Each block of a parsed page's content as ``defer`` reads it: its start tag, its content, its
    layout, and where in the content the ``<autoref>`` tags are (autorefs rewrites them)."""
    found = []
    for block in page.blocks:
        content = block.content()
        layout = layout_of_tree(block.read_tree(), len(content)) if block.has_tree() else None
        if layout is None:
            text, toks = block.source() if not block.has_tree() else (content, tokens(content))
            base = block.start if text is page.text else 0
            layout = layout_of_tokens(text, toks, base, base + len(content))
            seams = _seams_of_tokens(toks, base)
        else:
            seams = _seams_of_tree(block.read_tree())
        found.append((block.tag, content, layout, seams))
    return found


def _seams_of_tokens(toks: list[Token], base: int) -> tuple[tuple[int, int, bool], ...]:
    return tuple((t.start - base, t.end - base, t.kind == "start") for t in toks
                 if t.name == "autoref" and t.kind in ("start", "end"))


def _seams_of_tree(root: Node) -> tuple[tuple[int, int, bool], ...]:
    seams, at = [], 0
    stack: list[Node | tuple[str, bool]] = list(reversed(root.children))
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):  # an element's end tag, and whether the element is an <autoref>
            close, autoref = item
            if autoref:
                seams.append((at, at + len(close), False))
            at += len(close)
            continue
        if item.text is None:
            autoref = item.name == "autoref" or item.open.startswith("<autoref")
            if autoref:
                seams.append((at, at + len(item.open), True))
            stack.append((item.close, autoref and bool(item.close)))
            stack.extend(reversed(item.children))
        at += len(item.open)
    return tuple(seams)


_RESOLVED_OPEN = re.compile(r"<(?:a|span)\s[^<>]*>")  # what autorefs writes for <autoref ...>
_RESOLVED_CLOSE = re.compile(r"</(?:a|span)>")


def _same_but_resolved(now: str, parsed: str, seams, layout: Layout) -> bool:
    """Whether ``now`` is ``parsed`` with each ``<autoref>`` tag (at ``seams``) replaced by one tag
    (autorefs' ``<a>`` or ``<span>``, in on_env): the same elements and text, so the same layout.
    The tags must lie inside the ``<code>``, whose start and end then stay where they were."""
    if not seams:
        return False
    if layout.code is not None:
        head, opening, tail = layout.code
        if seams[0][0] < head + opening or seams[-1][1] > len(parsed) - tail:
            return False
    at = done = 0
    for start, end, opening_tag in seams:
        piece = parsed[done:start]
        if not now.startswith(piece, at):
            return False
        at += len(piece)
        match = (_RESOLVED_OPEN if opening_tag else _RESOLVED_CLOSE).match(now, at)
        if match is None:
            return False
        at, done = match.end(), end
    return now[at:] == parsed[done:]


def _marked(tag: str, inner: str) -> str:
    """The opening tag of the element that holds a deferred block's text, marked as such."""
    return tag[:-1] + (" data-lazy data-links>" if LINK.search(inner) else " data-lazy>")


def _kept(pre_open: str, content: str) -> str:
    """What follows a deferred block: its highlighted ``<pre>``, without its id, in a ``<noscript>``."""
    return f"<noscript>{_ID.sub('', pre_open[:-1], count=1)} {KEPT}>{content}</pre></noscript>"


def _with_class(tag: str, name: str) -> str:
    """An opening tag with one more class."""
    match = re.search(r"""\sclass=(["'])(.*?)\1""", tag)
    if match:
        return tag[:match.start(2)] + f"{match.group(2)} {name}" + tag[match.end(2):]
    return tag[:-1] + f' class="{name}">'
