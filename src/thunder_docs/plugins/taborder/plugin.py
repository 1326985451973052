"""The ``thunder-taborder`` plugin: a page's Tab order without controls that repeat another.

- ``on_page_content``: heading permalinks get ``tabindex="-1"`` (the table of contents has the
  same links); API signature blocks get Material's ``no-copy`` class, which keeps its copy button
  off them. Both only with their option (config.py). The HTML is changed at these tags only.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from thunder_docs.plugins.taborder.config import TabOrderConfig

PERMALINK = re.compile(r'<a(?=\s[^>]*\bclass="headerlink")(?![^>]*\stabindex=)')
SIGNATURE = re.compile(r'<div class="((?:[^"]*\s)?doc-signature(?:\s[^"]*)?)"')


def untab_permalinks(html: str) -> str:
    return PERMALINK.sub('<a tabindex="-1"', html)


def no_copy_signatures(html: str) -> str:
    return SIGNATURE.sub(lambda m: m.group(0) if "no-copy" in m.group(1).split()
                         else f'<div class="{m.group(1)} no-copy"', html)


class TabOrderPlugin(BasePlugin[TabOrderConfig]):
    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if self.config.permalinks:
            html = untab_permalinks(html)
        if not self.config.signature_copy:
            html = no_copy_signatures(html)
        return html
