"""The ``thunder-links`` plugin: link the names that pages mention to the API reference and to
Thunder's source, and keep glossary marks out of headings.

- ``on_config``/``on_files``: add the stylesheet for links inside code blocks.
- ``on_page_content``: link names in the page's HTML (plugins/links/html_links.py; names.py says what a
  name links to, shared/thunder_source.py where Thunder defines it, mentions.py which mention in prose
  is a name's first, the one that links). API references are autorefs
  ``<autoref>`` elements, resolved when every page has been rendered; one without a target
  fails ``mkdocs build --strict``. The ``abbr`` extension marks glossary terms everywhere;
  here the marks are removed from headings, and from the whole glossary page. The page's HTML
  is parsed here, once, for thunder-traces and thunder-lazyhighlight too (shared/page_html.py).
  Linked HTML is kept by a key of the HTML, the glossary rule and this code (``cache_dir``
  option): a page whose HTML did not change is not parsed at all.
- ``on_post_page``: the link titles that autorefs copies from reference headings lose their
  leading whitespace.
"""

from __future__ import annotations

import re
from functools import cache

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from thunder_docs.plugins.links.config import LinksConfig
from thunder_docs.plugins.links.html_links import link_page
from thunder_docs.shared import page_html
from thunder_docs.shared.code_digest import loaded_digest
from thunder_docs.shared.files import JsonStore, digest
from thunder_docs.shared.model import folder_of
from thunder_docs.shared.thunder_source import thunder_version

STYLESHEET = "assets/stylesheets/thunder-links.css"

CSS = """\
/* thunder-links: names in code blocks that link to the reference or to Thunder's source. */
.md-typeset pre a.autorefs, .md-typeset pre a.thunder-source,
.jupyter-wrapper pre a.autorefs, .jupyter-wrapper pre a.thunder-source {
  color: inherit;
  text-decoration: underline dotted;
  text-underline-offset: 0.2em;
}
.md-typeset pre a.autorefs:hover, .md-typeset pre a.thunder-source:hover,
.jupyter-wrapper pre a.autorefs:hover, .jupyter-wrapper pre a.thunder-source:hover {
  color: var(--md-accent-fg-color);
}
.md-typeset .doc-source-link {
  font-size: 0.6em;
  font-weight: normal;
  margin-left: 0.6em;
  vertical-align: middle;
}
"""


@cache
def _code_digest() -> str:
    """The linking code and Thunder's version: what a page's linked HTML depends on besides its HTML."""
    return digest(thunder_version(), loaded_digest("thunder_docs.plugins.links.plugin"))


class LinksPlugin(BasePlugin[LinksConfig]):
    def __init__(self) -> None:
        self.store: JsonStore | None = None  # linked HTML by key, when the cache_dir option is set

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self.config.stylesheet and STYLESHEET not in config.extra_css:
            config.extra_css.append(STYLESHEET)
        root = folder_of(config)
        self.store = JsonStore(root / self.config.cache_dir) if self.config.cache_dir else None
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        if self.config.stylesheet:
            files.append(File.generated(config, STYLESHEET, content=CSS))
        return files

    # Before thunder-traces, which marks up printed traces around the links made here (on this parse).
    @event_priority(10)
    def on_page_content(self, html_text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        key = page.file.src_uri
        everywhere = key == self.config.glossary

        def linked() -> str:
            parse = page_html.parsed(key, html_text)
            link_page(parse, headings=True)
            parse.map_prose(lambda text: unmark_terms(text, everywhere=everywhere))
            return page_html.written(key, parse)

        if self.store is None:
            return linked()
        return self.store.remember(digest(_code_digest(), str(everywhere), html_text), linked)

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        return _LINK_TITLE.sub(r"\1", output)


_ABBR = re.compile(r"<abbr title=\"[^\"]*\">(.*?)</abbr>", re.S)
_HEADING_HTML = re.compile(r"(<h[1-6][\s>].*?</h[1-6]>)", re.S)
_LINK_TITLE = re.compile(r'(<a class="autorefs[^"]*" title=")\s+')


def unmark_terms(text: str, *, everywhere: bool = False) -> str:
    """Remove the glossary marks (``<abbr>``) from headings, or from the whole page."""
    if everywhere:
        return _ABBR.sub(r"\1", text)
    return _HEADING_HTML.sub(lambda m: _ABBR.sub(r"\1", m.group(1)), text)
