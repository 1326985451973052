"""Defer a page's code highlighting: each large code block is sent as plain text, with its
highlighted HTML kept beside it in a ``<noscript>``.

A highlighted block is one ``<span>`` per token: most of the elements of a page that shows code.
For each ``<pre>`` whose ``<code>`` holds at least ``min_elements`` elements:

- the ``<code>`` gets its text alone (the same characters, so find-in-page and Material's copy
  button see what they saw) and ``data-lazy``; also ``data-links`` when it held links
  (thunder-traces.js makes such a block one Tab stop, its arrow keys moving between the links);
- a ``<noscript>`` after the ``<pre>`` holds the original ``<pre>``, without its ``id``, and
  without the spans that change nothing a reader sees: Pygments' names (``n``, which Material
  colours as the code around them: ``--md-code-hl-name-color`` is ``--md-code-fg-color``) and
  whitespace (``w``, which Material does not style). A third of a block's elements, and of the
  bytes its second copy costs; ``tests/test_lazyhighlight.py`` holds Material's stylesheets to it.

With scripting on, a browser reads a ``<noscript>`` as one piece of text, so the page loads few
elements; thunder-lazyhighlight.js puts the highlighted children back when a block comes near
the view, gets the focus, or the page is printed. With scripting off, the ``<noscript>`` is
shown and the plain ``<pre>`` hidden (``NOSCRIPT_STYLE``): the page reads as it did.

Left as they are: trace blocks (``data-traces``: thunder-traces marks them up from their line
map), blocks whose HTML holds ``</noscript`` (it would end the ``<noscript>`` early), and blocks
already deferred.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from thunder_docs.shared.html_tree import VOID, Token, tokens

PLAIN_CLASS = "hl-plain"
NOSCRIPT_STYLE = f"<noscript><style>pre.{PLAIN_CLASS}{{display:none}}</style></noscript>"
_ID = re.compile(r"""\s+id=(?:"[^"]*"|'[^']*'|[^\s>]+)""")
PLAIN_SPANS = ("n", "w")  # Pygments classes Material draws as plain code text
_PLAIN_SPAN = re.compile(r'<span class="(?:' + "|".join(PLAIN_SPANS) + r')">([^<]*)</span>')
_LINK = re.compile(r"<a\s[^>]*href=", re.I)
_SKIP = re.compile(r"data-traces|data-lazy", re.I)


@dataclass(frozen=True)
class Block:
    """A ``<pre>`` element's offsets in the page, and those of its ``<code>``'s opening tag and content."""

    pre_start: int
    pre_end: int
    code_open: tuple[int, int]
    inner: tuple[int, int]
    elements: int  # elements inside the <code>


def blocks(page: str) -> list[Block]:
    """Every ``<pre>`` that holds a ``<code>`` element, in page order, outside ``<noscript>``."""
    found, toks = [], tokens(page)
    i = 0
    while i < len(toks):
        if toks[i].kind == "start" and toks[i].name == "noscript":  # a block kept already
            i = next((j for j in range(i + 1, len(toks)) if toks[j].kind == "end" and toks[j].name == "noscript"),
                     len(toks))
        elif toks[i].kind == "start" and toks[i].name == "pre":
            block, i = _read_pre(toks, i)
            if block:
                found.append(block)
        i += 1
    return found


def _read_pre(toks: list[Token], i: int) -> tuple[Block | None, int]:
    """The block whose ``<pre>`` is token ``i``, and the index of the token where reading stopped."""
    j = i + 1
    while j < len(toks) and not (toks[j].kind == "start" and toks[j].name == "code"):
        if toks[j].kind == "end" and toks[j].name == "pre":
            return None, j
        j += 1
    depth = elements = 0
    for k in range(j + 1, len(toks)):
        t = toks[k]
        if t.kind == "end" and t.name == "code" and depth == 0:
            close = next((m for m in range(k + 1, len(toks)) if toks[m].kind == "end" and toks[m].name == "pre"), None)
            if close is None:
                return None, len(toks)
            code = toks[j]
            return Block(toks[i].start, toks[close].end, (code.start, code.end), (code.end, t.start), elements), close
        if t.kind in ("start", "startend"):
            elements += 1
            depth += t.kind == "start" and t.name not in VOID
        elif t.kind == "end":
            depth -= 1
    return None, len(toks)


def plain_text(inner: str) -> str:
    """The text of a ``<code>``'s content, as HTML: its text and character references, in order."""
    return "".join(inner[t.start:t.end] for t in tokens(inner) if t.kind in ("text", "ref"))


def defer(page: str, min_elements: int) -> str:
    """The page with each code block of at least ``min_elements`` elements deferred."""
    out, at = [], 0
    for b in blocks(page):
        code_open = page[b.code_open[0]:b.code_open[1]]
        inner = page[b.inner[0]:b.inner[1]]
        pre = page[b.pre_start:b.pre_end]
        if b.elements < min_elements or _SKIP.search(code_open) or "</noscript" in pre.lower():
            continue
        pre_open_end = page.index(">", b.pre_start) + 1
        pre_open = page[b.pre_start:pre_open_end]
        lazy_pre = _with_class(pre_open, PLAIN_CLASS) + page[pre_open_end:b.code_open[0]]
        marks = " data-lazy data-links>" if _LINK.search(inner) else " data-lazy>"
        lazy_code = code_open[:-1] + marks + plain_text(inner) + page[b.inner[1]:b.pre_end]
        kept = _ID.sub("", pre_open, count=1) + _PLAIN_SPAN.sub(r"\1", pre[len(pre_open):])
        out += [page[at:b.pre_start], lazy_pre, lazy_code, "<noscript>", kept, "</noscript>"]
        at = b.pre_end
    out.append(page[at:])
    return "".join(out)


def _with_class(tag: str, name: str) -> str:
    """An opening tag with one more class."""
    match = re.search(r"""\sclass=(["'])(.*?)\1""", tag)
    if match:
        return tag[:match.start(2)] + f"{match.group(2)} {name}" + tag[match.end(2):]
    return tag[:-1] + f' class="{name}">'
