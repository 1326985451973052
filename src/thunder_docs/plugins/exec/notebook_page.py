"""A notebook's page after mkdocs-jupyter has converted it: the `<style>` it appends, as CSS or gone,
and the glossary's tooltips on the terms of its Markdown cells (see mark_terms).

mkdocs-jupyter appends nbconvert's Pygments stylesheets to the converted notebook as
`<style>{resources["inlining"]["css"]}</style>`, which formats the list itself: a Python
list's repr, which no browser reads as CSS. The site's template (notebook_template/offline.html.j2)
puts those rules in the notebook's own stylesheet, first in the page's content (after the
notebook, the HTML checker allows no `<style>`), and empties the list: what is left,
`<style>[]</style>`, is removed here. A list that was not emptied (a notebook rendered with
another template) becomes the stylesheets it holds, joined.
"""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

from thunder_docs.shared.html_tree import VOID, tokens

APPENDED = re.compile(r"\s*<style>\s*(\[.*?\])\s*</style>\s*$", re.S)


def fix_appended_style(html: str) -> str:
    """The page's HTML with mkdocs-jupyter's appended `<style>` as CSS, or without it when it is empty."""
    found = APPENDED.search(html)
    if found is None:
        return html
    try:
        sheets = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError):
        return html
    if not (isinstance(sheets, list) and all(isinstance(sheet, str) for sheet in sheets)):
        return html
    css = "\n".join(sheets)
    return html[:found.start()] + (f"\n<style>\n{css}\n</style>\n" if css.strip() else "\n")


# -- glossary terms in a notebook's Markdown cells ---------------------------------------------------
# On the Markdown pages, Python-Markdown's abbr extension marks each glossary term with an <abbr title>
# (the definitions, includes/abbreviations.md, are appended to every page by pymdownx.snippets).
# nbconvert renders a notebook's Markdown cells with mistune, which has no abbreviations; here each
# cell's HTML gets the same marks: the same definitions, matched as the abbr extension matches them
# (whole words, the longest first), in text only, never in code, output or a heading.
MARKDOWN_CELL = "jp-RenderedMarkdown"  # the class of the <div> nbconvert renders a Markdown cell's HTML in
UNMARKED = {"code", "pre", "kbd", "samp", "abbr", "script", "style", "svg", "math", "h1", "h2", "h3", "h4", "h5", "h6"}


def abbreviations_of(config) -> dict[str, str]:
    """The abbreviations (term -> title) of the files pymdownx.snippets appends to every page."""
    from markdown.extensions.abbr import AbbrBlockprocessor

    snippets = config.mdx_configs.get("pymdownx.snippets", {})
    bases = [Path(base) for base in snippets.get("base_path", ["."])]
    found: dict[str, str] = {}
    for name in snippets.get("auto_append", []):
        path = next((base / name for base in bases if (base / name).is_file()), None)
        if path is None:
            continue
        for m in AbbrBlockprocessor.RE.finditer(path.read_text(encoding="utf-8")):
            if m["abbr"].strip() and m["title"].strip():
                found[m["abbr"].strip()] = m["title"].strip()
    return found


def mark_terms(html_text: str, abbreviations: dict[str, str]) -> str:
    """The HTML with each glossary term in the text of a Markdown cell wrapped in ``<abbr title>``."""
    if not abbreviations or MARKDOWN_CELL not in html_text:
        return html_text
    terms = sorted(abbreviations, key=len, reverse=True)
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(term) for term in terms) + r")\b")

    def marked(text: str) -> str:
        return pattern.sub(lambda m: f'<abbr title="{html.escape(abbreviations[m[0]])}">{m[0]}</abbr>', text)

    out, at = [], 0
    open_: list[str] | None = None  # the elements open inside the current Markdown cell, its <div> first
    for token in tokens(html_text):
        if open_ is None:
            if token.kind == "start" and token.name == "div" and MARKDOWN_CELL in token.classes:
                open_ = ["div"]
            continue
        if token.kind == "start" and token.name not in VOID:
            open_.append(token.name)
        elif token.kind == "end" and token.name in open_:
            while open_.pop() != token.name:
                pass
            if not open_:
                open_ = None
        elif token.kind == "text" and not UNMARKED & set(open_):
            out += [html_text[at:token.start], marked(html_text[token.start:token.end])]
            at = token.end
    return "".join(out) + html_text[at:]
