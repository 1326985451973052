"""A notebook's page after mkdocs-jupyter has converted it: the empty `<style>` it appends goes.

mkdocs-jupyter appends nbconvert's Pygments stylesheets to the converted notebook as
`<style>{resources["inlining"]["css"]}</style>`, which formats the list itself (a Python
list's repr, which no browser reads as CSS), after the notebook, where the HTML checker
allows no `<style>`. The site's template (notebook_template/offline.html.j2) puts those rules
in the notebook's own stylesheet, first in the page's content, and empties the list; what is
left, `<style>[]</style>`, is removed here. A list that was not emptied fails the build.
"""

from __future__ import annotations

import re

from mkdocs.exceptions import PluginError

APPENDED = re.compile(r"\s*<style>\s*(\[.*?\])\s*</style>\s*$", re.S)


def drop_appended_style(html: str, shown: str) -> str:
    """The page's HTML without mkdocs-jupyter's appended `<style>` (it must hold an empty list)."""
    found = APPENDED.search(html)
    if found is None:
        return html
    if found.group(1) != "[]":
        raise PluginError(f"thunder-exec: {shown}: mkdocs-jupyter appended stylesheets as a Python list "
                          f"({found.group(1)[:60]}...): its template must move them into the notebook's "
                          "<style> and empty resources.inlining.css (notebook_template/offline.html.j2)")
    return html[:found.start()] + "\n"
