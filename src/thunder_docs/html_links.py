"""Link names inside a page's rendered HTML, wrapping only existing text.

- **Inline code in prose**: a ``<code>`` span that is exactly an API or operator name
  becomes a link (names.py says to what); inside a mkdocstrings entry, a Sphinx role left
  in a docstring (``:class:`~thunder.core.proxies.TensorProxy```) becomes a cross-reference.
- **Code blocks and printed output**: in every ``<pre>``, each name is linked where the
  link can start and end inside one element, moving out of the ``<span>`` elements that a
  name fills exactly (Pygments gives ``ltorch``, ``.`` and ``add`` a span each).
- **Reference headings**: each heading of a mkdocstrings entry gets a link to its source.

The HTML is read with the standard library's ``html.parser``; every token keeps its exact
text, so everything that is not linked comes out byte for byte as it went in, and the text
that Material's copy button copies is unchanged.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from html.parser import HTMLParser

from .names import resolve
from .thunder_source import source_of, thunder_version

_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_INLINE = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\([^()]*\))?(?:\[[^\[\]]*\])?")
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|obj|data|exc):<code>(?P<tilde>~?)(?P<name>[\w.]+)</code>")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_OBJECT = "\ufffc"  # an entity or character reference: one character of text


# -- tokens --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Token:
    kind: str  # "start", "end", "startend" (<x/>), "text", "ref" (an entity), "other" (comment, doctype)
    name: str  # the tag's name, lower case ("" for text)
    classes: tuple[str, ...]
    id: str  # the element's id attribute
    start: int  # offsets of the token's exact text in the HTML
    end: int


class _Tokenizer(HTMLParser):
    """Records where each token starts; a token ends where the next one starts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[tuple[str, str, tuple[str, ...], str, tuple[int, int]]] = []

    def _add(self, kind: str, name: str = "", attrs=()) -> None:
        values = dict(attrs)
        self.found.append((kind, name, tuple((values.get("class") or "").split()), values.get("id") or "",
                           self.getpos()))

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
    found = [Token(kind, name, classes, ident, start, end)
             for (kind, name, classes, ident, _), start, end in zip(parser.found, starts, ends, strict=True)]
    return [t for t in found if t.end > t.start]


# -- the page --------------------------------------------------------------------------------------
def link_html(text: str) -> str:
    """The page's HTML with names linked (see the module docstring); its text is unchanged."""
    toks = tokens(text)
    out: list[str] = []
    pos = 0  # copied up to here
    stack: list[Token] = []  # open elements
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind == "end":
            while stack and stack[-1].name != tok.name:
                stack.pop()
            if stack:
                stack.pop()
        elif tok.kind == "start" and tok.name not in _VOID:
            if tok.name == "pre" and "mermaid" not in tok.classes and not any(_is_doc(e) for e in [*stack, tok]):
                close = next((j for j in range(i + 1, len(toks)) if toks[j].kind == "end" and toks[j].name == "pre"),
                             len(toks))
                body_end = toks[close].start if close < len(toks) else len(text)
                out += [text[pos:tok.end], link_block(text[tok.end:body_end], output=_is_output([*stack, tok]))]
                pos, i = body_end, close
                continue
            if tok.name == "code" and not tok.classes and tok.start >= pos:
                replaced = _link_inline(text, toks, i, stack)
                if replaced:
                    start, end, new = replaced
                    out += [text[pos:start], new]
                    pos = end
            stack.append(tok)
        i += 1
    out.append(text[pos:])
    return "".join(out)


def _is_doc(element: Token) -> bool:
    return any(cls == "doc" or cls.startswith("doc-") for cls in element.classes)


def _is_output(stack: list[Token]) -> bool:
    """A block of printed output: the build's exec output, or a notebook cell's output."""
    return any(cls == "exec-output" or cls.startswith(("jp-OutputArea", "jp-RenderedText"))
               for e in stack for cls in e.classes)


def _link_inline(text: str, toks: list[Token], i: int, stack: list[Token]) -> tuple[int, int, str] | None:
    """A ``<code>`` span of prose that is exactly an API or operator name, as a link.

    Returns the HTML range to replace and its replacement.
    """
    code = toks[i]
    close = next((j for j in range(i + 1, len(toks)) if toks[j].kind not in ("text", "ref")), None)
    if close is None or toks[close].kind != "end" or toks[close].name != "code":
        return None
    end = toks[close].end
    if any(_is_doc(e) for e in stack):
        return _link_role(text, code.start, end)
    if any(e.name in _HEADINGS or e.name in ("a", "autoref", "pre") for e in stack):
        return None
    match = _INLINE.fullmatch(html.unescape(text[code.end:toks[close].start]))
    if not match:
        return None
    resolved = resolve(match["name"])
    if not resolved or resolved[0] != len(match["name"]):
        return None
    return code.start, end, resolved[1].wrap(text[code.start:end])


def _link_role(text: str, start: int, end: int) -> tuple[int, int, str] | None:
    """Inside a docstring: a Sphinx role such as :class:`~thunder.core.proxies.TensorProxy`."""
    role = _ROLE.search(text, max(0, start - 20), end)
    if role is None or role.end() != end or role.start() > start:
        return None
    name = role["name"]
    shown = name.rpartition(".")[2] if role["tilde"] else name
    return role.start(), end, f'<autoref identifier="{name}" optional><code>{html.escape(shown)}</code></autoref>'


# -- a code block ------------------------------------------------------------------------------------
@dataclass
class _Node:
    """An element of a code block (``tag`` empty for the block itself), or a piece of text."""

    open: str = ""  # the exact opening tag, or the text of a leaf
    close: str = ""  # the exact closing tag
    children: list[_Node] = field(default_factory=list)
    text: str | None = None  # a leaf's text as the reader sees it (an entity is one character)

    @cached_property
    def length(self) -> int:
        """Characters of text inside; wrapping moves text between nodes but never changes a node's."""
        return len(self.text) if self.text is not None else sum(c.length for c in self.children)

    def html(self) -> str:
        if self.text is not None:
            return self.open
        return self.open + "".join(c.html() for c in self.children) + self.close


def _tree(block: str) -> _Node:
    root = _Node()
    stack = [root]
    for tok in tokens(block):
        raw = block[tok.start:tok.end]
        if tok.kind == "start" and tok.name not in _VOID:
            node = _Node(raw)
            stack[-1].children.append(node)
            stack.append(node)
        elif tok.kind == "end" and len(stack) > 1:
            stack.pop().close = raw
        elif tok.kind == "text":
            stack[-1].children.append(_Node(raw, text=raw))
        else:  # an entity counts as one character; tags and comments as none
            stack[-1].children.append(_Node(raw, text=_OBJECT if tok.kind == "ref" else ""))
    return root


def _wrap(node: _Node, first: int, last: int, opening: str, closing: str) -> bool:
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
        if _wrap(node.children[i], first - a, last - a, opening, closing):
            return True
    start_ok = node.children[i].text is not None or first == spans[i][0]
    end_ok = node.children[j].text is not None or last == spans[j][1] - 1
    if not (start_ok and end_ok):
        return False
    head, tail = node.children[i], node.children[j]
    before, after = [], []
    if head.text is not None and first > spans[i][0]:  # split the text where the name starts
        cut = first - spans[i][0]
        before = [_Node(head.open[:cut], text=head.text[:cut])]
        head = _Node(head.open[cut:], text=head.text[cut:])
    if i == j:
        tail = head
    if tail.text is not None and last < spans[j][1] - 1:  # split the text where the name ends
        a = spans[j][0] if i != j else first
        cut = last - a + 1
        after = [_Node(tail.open[cut:], text=tail.text[cut:])]
        tail = _Node(tail.open[:cut], text=tail.text[:cut])
    inside = [tail] if i == j else [head, *node.children[i + 1:j], tail]
    node.children[i:j + 1] = [*before, _Node(opening, closing, inside), *after]
    return True


@lru_cache(maxsize=4096)  # under `mkdocs serve`, an edited page's unchanged blocks are linked once
def link_block(block: str, *, output: bool) -> str:
    """Link names in the content of a ``<pre>`` element (see the module docstring)."""
    root = _tree(block)
    text = "".join(_leaves(root))
    linked = False
    for match in _DOTTED.finditer(text):
        resolved = resolve(match.group(0), output=output)
        if not resolved:
            continue
        opening, closing = resolved[1].wrap("\0").split("\0")
        linked |= _wrap(root, match.start(), match.start() + resolved[0] - 1, opening, closing)
    return root.html() if linked else block


def _leaves(node: _Node):
    if node.text is not None:
        yield node.text
    for child in node.children:
        yield from _leaves(child)


# -- reference headings --------------------------------------------------------------------------------
def link_headings(text: str) -> str:
    """Add a link to the source after the name in each heading of a mkdocstrings entry."""
    if "doc-heading" not in text:
        return text
    out, pos = [], 0
    toks = tokens(text)
    for i, tok in enumerate(toks):
        if not (tok.kind == "start" and tok.name in _HEADINGS and tok.classes == ("doc", "doc-heading")
                and tok.id.startswith("thunder")):
            continue
        source = source_of(tok.id)
        close = next((c for c in toks[i + 1:] if c.kind == "end" and c.name == tok.name), None)
        if source is None or close is None:
            continue
        title = html.escape(f"{source.path}:{source.line} (Thunder {thunder_version()})")
        out += [text[pos:close.start],
                f'<a class="thunder-source doc-source-link" href="{source.url}" title="{title}">source</a>']
        pos = close.start
    out.append(text[pos:])
    return "".join(out)
