"""Link names inside a page's rendered HTML, wrapping only existing text.

- **Inline code in prose**: a ``<code>`` span that is exactly an API or operator name
  becomes a link (names.py says to what) at the first mention of its target; later mentions
  stay as they were (mentions.py says which mention is the first, in ``<details>`` and tabs
  too). Inside a mkdocstrings entry, every Sphinx role left in a docstring
  (``:class:`~thunder.core.proxies.TensorProxy```) becomes a cross-reference.
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

from thunder_docs.plugins.links.mentions import FirstMentions, written_target
from thunder_docs.plugins.links.names import resolve
from thunder_docs.shared.html_tree import VOID, Node, Token, leaves, tree, wrap
from thunder_docs.shared.page_html import PageHTML
from thunder_docs.shared.thunder_source import source_of, thunder_version

DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_INLINE = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\([^()]*\))?(?:\[[^\[\]]*\])?")
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|obj|data|exc):<code>(?P<tilde>~?)(?P<name>[\w.]+)</code>")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


# -- the page --------------------------------------------------------------------------------------
def link_html(text: str) -> str:
    """The page's HTML with names linked (see the module docstring); its text is unchanged."""
    page = PageHTML(text)
    link_page(page)
    return page.html()


def link_page(page: PageHTML, *, headings: bool = False) -> None:
    """Link the names of a parsed page (see the module docstring), and with ``headings``, add the
    source links of reference headings, in one walk over its tokens."""
    text, toks = page.text, page.tokens
    pos = 0  # edited up to here
    stack: list[Token] = []  # open elements
    mentions = FirstMentions()  # the targets prose has linked so far
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind == "end":
            _end(stack, tok.name)
            mentions.close(len(stack))
        elif tok.kind == "start" and tok.name not in VOID:
            if _is_code_block(tok, stack):
                close = next((j for j in range(i + 1, len(toks)) if toks[j].kind == "end" and toks[j].name == "pre"),
                             len(toks))
                output = _is_output([*stack, tok])
                block = page.block_at(i)
                if block is not None:
                    link_tree(block.tree(), output=output)
                else:  # a <pre> inside a block left as prose (a reference entry's): linked as a string
                    body_end = toks[close].start if close < len(toks) else len(text)
                    linked = link_block(text[tok.end:body_end], output=output)
                    if linked != text[tok.end:body_end]:
                        page.replace(tok.end, body_end, linked)
                pos = toks[close].start if close < len(toks) else len(text)
                i = close + 1
                continue
            mentions.open(tok, len(stack))
            if tok.name == "code" and not tok.classes and tok.start >= pos:
                replaced = _link_inline(text, toks, i, stack, mentions)
                if replaced:
                    start, end, new = replaced
                    page.replace(start, end, new)
                    pos = end
            elif not any(_is_doc(e) for e in stack):
                _count_written_link(mentions, tok)
            if headings and tok.name in _HEADINGS:
                _link_heading(page, i)
            stack.append(tok)
        elif tok.kind in ("start", "startend"):  # an element without content, such as a tab's radio button
            mentions.open(tok, len(stack))
        i += 1


def _end(stack: list[Token], name: str) -> None:
    """An end tag closes the innermost open element of its name, and those inside it left open."""
    if any(e.name == name for e in stack):
        while stack.pop().name != name:
            pass


def _is_code_block(tok: Token, stack: list[Token]) -> bool:
    """A ``<pre>`` whose names ``link_block`` links: not a diagram's, not a reference entry's."""
    return tok.name == "pre" and "mermaid" not in tok.classes and not any(_is_doc(e) for e in [*stack, tok])


def _count_written_link(mentions: FirstMentions, tok: Token) -> None:
    """A link the author wrote is a mention: the prose after it does not link its target again."""
    target = written_target(tok)
    if target:
        mentions.first(target)


def _is_doc(element: Token) -> bool:
    return any(cls == "doc" or cls.startswith("doc-") for cls in element.classes)


def _is_output(stack: list[Token]) -> bool:
    """A block of printed output: the build's exec output, or a notebook cell's output."""
    return any(cls == "exec-output" or cls.startswith(("jp-OutputArea", "jp-RenderedText"))
               for e in stack for cls in e.classes)


def _link_inline(text: str, toks: list[Token], i: int, stack: list[Token],
                 mentions: FirstMentions) -> tuple[int, int, str] | None:
    """A ``<code>`` span of prose that is exactly an API or operator name, as a link, if it is the
    first mention of its target (mentions.py says where); a Sphinx role in a docstring, always.

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
    if not resolved or resolved[0] != len(match["name"]) or not mentions.first(resolved[1].key):
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


def link_block(block: str, *, output: bool) -> str:
    """Link names in the content of a ``<pre>`` element (see the module docstring)."""
    root = tree(block)
    return root.html() if link_tree(root, output=output) else block


def link_tree(root: Node, *, output: bool) -> bool:
    """Link names in the tree of a ``<pre>``'s content; whether it linked any."""
    text = "".join(leaves(root))
    linked = False
    for match in DOTTED.finditer(text):
        resolved = resolve(match.group(0), output=output)
        if not resolved:
            continue
        opening, closing = resolved[1].wrap("\0").split("\0")
        linked |= wrap(root, match.start(), match.start() + resolved[0] - 1, opening, closing)
    return linked


# -- reference headings --------------------------------------------------------------------------------
def _link_heading(page: PageHTML, i: int) -> None:
    """Token ``i`` starts a heading: if it is a mkdocstrings entry's, a link to the source before its end."""
    tok, toks = page.tokens[i], page.tokens
    if not (tok.classes == ("doc", "doc-heading") and tok.id.startswith("thunder")):
        return
    source = source_of(tok.id)
    close = next((c for c in toks[i + 1:] if c.kind == "end" and c.name == tok.name), None)
    if source is None or close is None:
        return
    title = html.escape(f"{source.path}:{source.line} (Thunder {thunder_version()})")
    page.replace(close.start, close.start,
                 f'<a class="thunder-source doc-source-link" href="{source.url}" title="{title}">source</a>')
