"""The HTML of a page as tokens and as a tree of nodes, and wrapping a stretch of its text.

Read with the standard library's ``html.parser``; every token keeps its exact text, so what is
not wrapped comes out byte for byte as it went in. Used by ``thunder-links`` (names linked in
code) and ``thunder-traces`` (trace lines and names marked up).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
LINK = re.compile(r"<a\s[^>]*href=", re.I)  # an element that links
OBJECT = "\ufffc"  # an entity or character reference: one character of text


# -- tokens --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Token:
    kind: str  # "start", "end", "startend" (<x/>), "text", "ref" (an entity), "other" (comment, doctype)
    name: str  # the tag's name, lower case ("" for text)
    classes: tuple[str, ...]
    id: str  # the element's id attribute
    start: int  # offsets of the token's exact text in the HTML
    end: int
    attrs: tuple[tuple[str, str | None], ...] = ()  # a start tag's attributes, as parsed (entities decoded)

    def attr(self, name: str) -> str | None:
        """The value of attribute ``name`` ("" for one without a value), or None when absent."""
        return next(("" if value is None else value for key, value in self.attrs if key == name), None)


class _Tokenizer(HTMLParser):
    """Records where each token starts; a token ends where the next one starts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[tuple[str, str, tuple[str, ...], str, tuple, tuple[int, int]]] = []

    def _add(self, kind: str, name: str = "", attrs=()) -> None:
        values = dict(attrs)
        self.found.append((kind, name, tuple((values.get("class") or "").split()), values.get("id") or "",
                           tuple(attrs), self.getpos()))

    def handle_starttag(self, tag, attrs):
        self._add("start", tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._add("startend", tag, attrs)

    def handle_endtag(self, tag):
        self._add("end", tag)

    def handle_data(self, data):
        self._add("text")

    def handle_entityref(self, name):
        self._add("ref")

    def handle_charref(self, name):
        self._add("ref")

    def handle_comment(self, data):
        self._add("other")

    handle_decl = handle_pi = unknown_decl = handle_comment


def tokens(text: str) -> list[Token]:
    parser = _Tokenizer()
    parser.feed(text)
    parser.close()
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    starts = [line_starts[line - 1] + column for *_, (line, column) in parser.found]
    ends = [*starts[1:], len(text)]
    found = [Token(kind, name, classes, ident, start, end, attrs)
             for (kind, name, classes, ident, attrs, _), start, end in zip(parser.found, starts, ends, strict=True)]
    return [t for t in found if t.end > t.start]


# -- a code block ------------------------------------------------------------------------------------
@dataclass
class Node:
    """An element of a code block (``tag`` empty for the block itself), or a piece of text."""

    open: str = ""  # the exact opening tag, or the text of a leaf
    close: str = ""  # the exact closing tag
    children: list[Node] = field(default_factory=list)
    text: str | None = None  # a leaf's text as the reader sees it (an entity is one character)

    @cached_property
    def length(self) -> int:
        """Characters of text inside; wrapping moves text between nodes but never changes a node's."""
        return len(self.text) if self.text is not None else sum(c.length for c in self.children)

    def html(self) -> str:
        if self.text is not None:
            return self.open
        return self.open + "".join(c.html() for c in self.children) + self.close


def tree(block: str) -> Node:
    root = Node()
    stack = [root]
    for tok in tokens(block):
        raw = block[tok.start:tok.end]
        if tok.kind == "start" and tok.name not in VOID:
            node = Node(raw)
            stack[-1].children.append(node)
            stack.append(node)
        elif tok.kind == "end" and len(stack) > 1:
            stack.pop().close = raw
        elif tok.kind == "text":
            stack[-1].children.append(Node(raw, text=raw))
        else:  # an entity counts as one character; tags and comments as none
            stack[-1].children.append(Node(raw, text=OBJECT if tok.kind == "ref" else ""))
    return root


def wrap(node: Node, first: int, last: int, opening: str, closing: str) -> bool:
    """Wrap characters ``first..last`` of ``node``'s text in a link, as deep inside as possible.

    A link can start inside a piece of text or right before an element, and end inside a
    piece of text or right after an element, within one element.
    """
    spans, offset = [], 0
    for child in node.children:
        spans.append((offset, offset + child.length))
        offset += child.length
    i = next(k for k, (a, b) in enumerate(spans) if a <= first < b)
    j = next(k for k, (a, b) in enumerate(spans) if a <= last < b)
    if i == j and node.children[i].text is None:
        a = spans[i][0]
        if wrap(node.children[i], first - a, last - a, opening, closing):
            return True
    start_ok = node.children[i].text is not None or first == spans[i][0]
    end_ok = node.children[j].text is not None or last == spans[j][1] - 1
    if not (start_ok and end_ok):
        return False
    head, tail = node.children[i], node.children[j]
    before, after = [], []
    if head.text is not None and first > spans[i][0]:  # split the text where the name starts
        cut = first - spans[i][0]
        before = [Node(head.open[:cut], text=head.text[:cut])]
        head = Node(head.open[cut:], text=head.text[cut:])
    if i == j:
        tail = head
    if tail.text is not None and last < spans[j][1] - 1:  # split the text where the name ends
        a = spans[j][0] if i != j else first
        cut = last - a + 1
        after = [Node(tail.open[cut:], text=tail.text[cut:])]
        tail = Node(tail.open[:cut], text=tail.text[:cut])
    inside = [tail] if i == j else [head, *node.children[i + 1:j], tail]
    node.children[i:j + 1] = [*before, Node(opening, closing, inside), *after]
    return True


def leaves(node: Node):
    if node.text is not None:
        yield node.text
    for child in node.children:
        yield from leaves(child)


@dataclass(frozen=True)
class Pre:
    """A ``<pre>`` of the page, as ``each_pre`` hands it to its ``change``."""

    wrapper: Token | None  # the start tag of the <div> the block sits in (Pygments' and mkdocs-jupyter's), if any
    tag: str  # the <pre>'s exact start tag
    content: str  # the HTML between <pre ...> and </pre>

    @property
    def classes(self) -> set[str]:
        return set(self.wrapper.classes) if self.wrapper else set()

    def wrapper_attr(self, name: str) -> str | None:
        return self.wrapper.attr(name) if self.wrapper else None


def each_pre(text: str, change) -> str:
    """The HTML with the content of each ``<pre>`` replaced by ``change(Pre)``.

    ``change`` returns ``None`` (keep the block), or the new start tag and content, and
    optionally what to put after the block's ``</pre>``. Only the tags around a block are
    read, so a page costs a few string searches.
    """
    out, pos = [], 0
    while (start := text.find("<pre", pos)) >= 0:
        tag_end = text.find(">", start) + 1
        close = text.find("</pre>", tag_end)
        if tag_end <= 0 or close < 0:
            break
        div = text.rfind("<div", 0, start)
        div_end = text.find(">", div) + 1
        wrapper = tokens(text[div:div_end]) if div >= 0 and "</div>" not in text[div_end:start] else []
        new = change(Pre(wrapper[0] if wrapper else None, text[start:tag_end], text[tag_end:close]))
        if new is None:
            out.append(text[pos:close])
            pos = close
        else:
            tag, content, *after = new
            out.append(text[pos:start] + tag + content + ("</pre>" + after[0] if after else ""))
            pos = close + (len("</pre>") if after else 0)
    out.append(text[pos:])
    return "".join(out)


def pre_holds_link(html: str) -> bool:
    """Whether a ``<pre>`` of the page holds a link."""
    found = []
    each_pre(html, lambda pre: found.append(bool(LINK.search(pre.content))))
    return any(found)
