"""The ``thunder-taborder`` plugin: a page's Tab order without controls that repeat another, and
with one stop per list of links around the page.

- ``on_page_content``: heading permalinks get ``tabindex="-1"`` (the table of contents has the
  same links); API signature blocks get Material's ``no-copy`` class, which keeps its copy button
  off them. The HTML is changed at these tags only.
- ``on_files``, ``on_post_page``: the script that makes the section tabs, the sidebar's
  navigation and the table of contents one Tab stop each (assets/thunder-taborder.js).

Each only with its option (config.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from thunder_docs.plugins.taborder.config import TabOrderConfig
from thunder_docs.shared.page_assets import with_script

ASSETS = Path(__file__).parent / "assets"
SCRIPT = "assets/javascripts/thunder-taborder.js"
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

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        if self.config.link_lists:
            files.append(File.generated(config, SCRIPT, abs_src_path=str(ASSETS / "thunder-taborder.js")))
        return files

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        if not self.config.link_lists:
            return output
        return with_script(output, SCRIPT, page.url)
