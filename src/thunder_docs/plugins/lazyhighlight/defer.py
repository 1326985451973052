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
"""

from __future__ import annotations

import re

from thunder_docs.shared.html_tree import LINK, VOID, Pre, each_pre, tokens

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


def _code(content: str) -> tuple[str, str, str, str] | None:
    """A ``<pre>``'s content as (before its ``<code>``, the opening tag, its content, from ``</code>`` on)."""
    toks = tokens(content)
    start = next((i for i, t in enumerate(toks) if t.kind == "start" and t.name == "code"), None)
    if start is None:
        return None
    depth = 0
    for t in toks[start + 1:]:
        if t.kind == "end" and t.name == "code" and depth == 0:
            code = toks[start]
            return content[:code.start], content[code.start:code.end], content[code.end:t.start], content[t.start:]
        if t.kind == "start" and t.name not in VOID:
            depth += 1
        elif t.kind == "end":
            depth -= 1
    return None


def _elements(inner: str) -> int:
    return sum(t.kind in ("start", "startend") for t in tokens(inner))


def defer(page: str, min_elements: int) -> str:
    """The page with each code block of at least ``min_elements`` elements deferred."""
    def change(pre: Pre):
        classes, pre_open, content = pre.classes, pre.tag, pre.content
        if KEPT in pre_open or "</noscript" in content.lower():
            return None
        parts = _code(content)
        if parts is None:
            return _notebook_cell(pre_open, content, min_elements) if NOTEBOOK_CELL in classes else None
        before, code_open, inner, rest = parts
        if _elements(inner) < min_elements or _SKIP.search(code_open):
            return None
        kept = _kept(pre_open, _PLAIN_SPAN.sub(r"\1", content))
        return (_with_class(pre_open, PLAIN_CLASS), before + _marked(code_open, inner) + plain_text(inner) + rest,
                kept)

    return each_pre(page, change)


def _notebook_cell(pre_open: str, content: str, min_elements: int):
    """A notebook's code cell: the ``<pre>`` holds the spans itself, and takes the marks."""
    if _elements(content) < min_elements or _SKIP.search(pre_open):
        return None
    return _marked(_with_class(pre_open, PLAIN_CLASS), content), plain_text(content), _kept(pre_open, content)


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
