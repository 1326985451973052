"""The HTML of a page as tokens and as a tree of nodes, and wrapping a stretch of its text.

Read as the standard library's ``html.parser`` reads it (the content of a code block, where
most tokens are, by a stricter and faster reader that gives the same tokens, see ``tokens``);
every token keeps its exact text, so what is not wrapped comes out byte for byte as it went in.
Used through shared/page_html.py (one parse of a page) by ``thunder-links`` (names linked in
code), ``thunder-traces`` (trace lines and names marked up) and ``thunder-lazyhighlight`` (each
block's layout).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import NamedTuple

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
LINK = re.compile(r"<a\s[^>]*href=", re.I)  # an element that links
OBJECT = "\ufffc"  # an entity or character reference: one character of text


# -- tokens --------------------------------------------------------------------------------------
class Token(NamedTuple):
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
    """Records where each token starts (a token ends where the next one starts): ``at``, the
    parser's position in what it was fed, is where the token it reports starts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[tuple[str, str, list, int]] = []  # kind, name, attributes, start
        self.base = 0  # the offset in the text of what the parser holds
        self.at = 0

    def updatepos(self, i: int, j: int) -> int:  # instead of counting lines, as getpos() would
        if i < j:
            self.at = j
        return j

    def handle_starttag(self, tag, attrs):
        self.found.append(("start", tag, attrs, self.base + self.at))

    def handle_startendtag(self, tag, attrs):
        self.found.append(("startend", tag, attrs, self.base + self.at))

    def handle_endtag(self, tag):
        self.found.append(("end", tag, (), self.base + self.at))

    def handle_data(self, data):
        self.found.append(("text", "", (), self.base + self.at))

    def handle_entityref(self, name):
        self.found.append(("ref", "", (), self.base + self.at))

    handle_charref = handle_entityref

    def handle_comment(self, data):
        self.found.append(("other", "", (), self.base + self.at))

    handle_decl = handle_pi = unknown_decl = handle_comment

    def feed_at(self, text: str, start: int, end: int) -> None:
        """Feed ``text[start:end]``, the text after what the parser was fed (or skipped) so far."""
        self.base, self.at = start - len(self.rawdata), 0  # it reads what it held back first
        self.feed(text[start:end])

    def finish(self, length: int) -> None:
        """The end of the text, ``length`` characters long."""
        self.base, self.at = length - len(self.rawdata), 0
        self.close()

    def clean(self) -> bool:
        """Whether the parser holds nothing back and reads normal content (not a script's)."""
        return not self.rawdata and self.cdata_elem is None


def tokens(text: str) -> list[Token]:
    """The tokens of ``text`` as ``html.parser`` reads it, each with its exact place in the text.

    The content of a ``<pre>`` (most of a page's tokens: Pygments gives each of its tokens a
    span) is read by ``_strict_tokens`` when it is made of nothing but plain tags, text and
    character references, on which ``html.parser`` gives the same tokens; anything else, and
    everything outside blocks, ``html.parser`` reads."""
    parser = _Tokenizer()
    out: list[Token] = []
    pos = 0  # fed (or read) up to here
    while (pre := text.find("<pre", pos)) >= 0:
        opened = text.find(">", pre) + 1
        close = text.find("</pre>", opened)
        if opened <= 0 or close < 0:
            break
        parser.feed_at(text, pos, opened)
        pos = opened
        last = parser.found[-1] if parser.found else None
        if not (parser.clean() and last is not None and last[0] == "start" and last[1] == "pre" and last[3] == pre):
            continue
        inside = _strict_tokens(text, opened, close)
        if inside is None:
            continue
        _add_parsed(out, parser.found, opened)
        parser.found = []
        out += inside
        pos = close
    parser.feed_at(text, pos, len(text))
    parser.finish(len(text))
    _add_parsed(out, parser.found, len(text))
    return out


_new = tuple.__new__  # a Token without NamedTuple's __new__, a Python function


def _add_parsed(out: list[Token], found: list[tuple[str, str, list, int]], stop: int) -> None:
    """Add the tokens the parser found, the last ending at ``stop``; those without text are left out."""
    for k, (kind, name, attrs, start) in enumerate(found):
        end = found[k + 1][3] if k + 1 < len(found) else stop
        if end > start:
            out.append(_token(kind, name, attrs, start, end))


def _token(kind: str, name: str, attrs, start: int, end: int) -> Token:
    if not attrs:
        return _new(Token, (kind, name, (), "", start, end, ()))
    values = dict(attrs)
    return _new(Token, (kind, name, tuple((values.get("class") or "").split()), values.get("id") or "", start, end,
                        tuple(attrs)))


# What _strict_tokens reads: tags with lower-case names and attributes whose values are double-quoted
# and hold no character reference (so html.parser keeps them as they are), text without < or &, and
# character references ended by ";". Elements whose content html.parser reads as text are left out.
_STRICT = re.compile(r"""
    (?P<text>[^<&]+)
  | (?P<ref>&(?:[a-zA-Z][a-zA-Z0-9]*|\#[0-9]+|\#[xX][0-9a-fA-F]+);)
  | </(?P<end>[a-z][a-z0-9-]*)>
  | <(?P<start>[a-z][a-z0-9-]*)(?P<attrs>(?:\s+[a-z_:][-a-z0-9_:.]*(?:="[^"<>&]*")?)*)\s*>
""", re.X)
_ATTR = re.compile(r'\s+([a-z_:][-a-z0-9_:.]*)(?:="([^"]*)")?')
_RAW_TEXT = {"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext"}


def _strict_tokens(text: str, start: int, end: int) -> list[Token] | None:
    """The tokens of ``text[start:end]`` read by ``_STRICT``, or None when it holds anything else."""
    found = []
    add = found.append
    pos = start
    for m in _STRICT.finditer(text, start, end):
        at, pos_end = m.span()
        if at != pos:
            return None
        kind = m.lastgroup
        if kind == "text" or kind == "ref":
            add(_new(Token, (kind, "", (), "", at, pos_end, ())))
        elif kind == "end":
            add(_new(Token, ("end", m.group("end"), (), "", at, pos_end, ())))
        else:
            name = m.group("start")
            if name in _RAW_TEXT:
                return None
            attrs = m.group("attrs")
            add(_token("start", name, [a.group(1, 2) for a in _ATTR.finditer(attrs)] if attrs else (), at, pos_end))
        pos = pos_end
    return found if pos == end else None


# -- a code block ------------------------------------------------------------------------------------
class Node:
    """An element of a code block (``open`` empty for the block itself), or a piece of text (a leaf)."""

    __slots__ = ("open", "close", "children", "text", "name", "_length", "_starts")

    def __init__(self, open: str = "", close: str = "", children: list[Node] | None = None,  # noqa: A002
                 text: str | None = None, name: str = ""):
        self.open = open  # the exact opening tag, or the text of a leaf
        self.close = close  # the exact closing tag
        self.children = [] if children is None else children
        self.text = text  # a leaf's text as the reader sees it (an entity is one character)
        self.name = name  # an element's tag name, lower case, when it was parsed ("" for one a pass made)
        self._length: int | None = None
        self._starts: list[int] | None = None  # where each child's text starts, then the length (wrap)

    def __repr__(self) -> str:
        return f"Node({self.open!r}, {self.close!r}, {self.children!r}, text={self.text!r})"

    @property
    def length(self) -> int:
        """Characters of text inside; wrapping moves text between nodes but never changes a node's."""
        if self._length is None:
            self._length = len(self.text) if self.text is not None else sum(c.length for c in self.children)
        return self._length

    def html(self) -> str:
        if self.text is not None:
            return self.open
        return self.open + "".join(c.html() for c in self.children) + self.close


def tree(block: str) -> Node:
    return tree_of(block, tokens(block))


def tree_of(text: str, toks: list[Token]) -> Node:
    """The tree of ``toks``, tokens of ``text`` (a whole page's, for a stretch of it), each node's
    length counted as it is built."""
    root = Node()
    stack = [root]
    lengths = [0]  # the text in each open element so far
    children = root.children
    for kind, name, _, _, start, end, _ in toks:
        raw = text[start:end]
        if kind == "text":
            leaf = Node(raw, "", None, raw)
            leaf._length = end - start
            lengths[-1] += end - start
            children.append(leaf)
        elif kind == "start" and name not in VOID:
            node = Node(raw, "", None, None, name)
            children.append(node)
            stack.append(node)
            lengths.append(0)
            children = node.children
        elif kind == "end" and len(stack) > 1:
            node = stack.pop()
            node.close = raw
            node._length = inside = lengths.pop()
            lengths[-1] += inside
            children = stack[-1].children
        else:  # an entity counts as one character; tags and comments as none
            ref = kind == "ref"
            leaf = Node(raw, "", None, OBJECT if ref else "")
            leaf._length = int(ref)
            lengths[-1] += ref
            children.append(leaf)
    while len(stack) > 1:  # elements never closed
        stack.pop()._length = inside = lengths.pop()
        lengths[-1] += inside
    root._length = lengths[0]
    return root


def _starts(node: Node) -> list[int]:
    if node._starts is None:
        starts, offset = [], 0
        for child in node.children:
            starts.append(offset)
            offset += child.length
        starts.append(offset)
        node._starts = starts
    return node._starts


def wrap(node: Node, first: int, last: int, opening: str, closing: str) -> bool:
    """Wrap characters ``first..last`` of ``node``'s text in a link, as deep inside as possible.

    A link can start inside a piece of text or right before an element, and end inside a
    piece of text or right after an element, within one element.
    """
    starts = _starts(node)
    i = bisect_right(starts, first) - 1  # the child whose text holds character first
    j = bisect_right(starts, last) - 1
    children = node.children
    if i == j and children[i].text is None and wrap(children[i], first - starts[i], last - starts[i], opening,
                                                    closing):
        return True
    start_ok = children[i].text is not None or first == starts[i]
    end_ok = children[j].text is not None or last == starts[j + 1] - 1
    if not (start_ok and end_ok):
        return False
    head, tail = children[i], children[j]
    before, after = [], []
    if head.text is not None and first > starts[i]:  # split the text where the name starts
        cut = first - starts[i]
        before = [Node(head.open[:cut], text=head.text[:cut])]
        head = Node(head.open[cut:], text=head.text[cut:])
    if i == j:
        tail = head
    if tail.text is not None and last < starts[j + 1] - 1:  # split the text where the name ends
        a = starts[j] if i != j else first
        cut = last - a + 1
        after = [Node(tail.open[cut:], text=tail.text[cut:])]
        tail = Node(tail.open[:cut], text=tail.text[:cut])
    inside = [tail] if i == j else [head, *children[i + 1:j], tail]
    children[i:j + 1] = [*before, Node(opening, closing, inside), *after]
    starts[i:j + 1] = [*([starts[i]] if before else []), first, *([last + 1] if after else [])]
    return True


def leaves(node: Node):
    """The text of each leaf under ``node``, in order."""
    stack = [node]
    while stack:
        node = stack.pop()
        if node.text is not None:
            yield node.text
        else:
            stack.extend(reversed(node.children))


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
