"""A notebook's page after mkdocs-jupyter has converted it: the `<style>` it appends, as CSS or gone.

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
import re

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
