"""The ``thunder-lazyhighlight`` plugin: a page loads its large code blocks as plain text, and the
browser puts their highlighting back when they come near the view (defer.py says how; the
script is assets/thunder-lazyhighlight.js).

- ``on_files``: add the script.
- ``on_page_content``, right after thunder-traces: when this build parsed the page's content
  (shared/page_html.py: thunder-links or thunder-traces made it again), note each block's
  layout from that parse (defer.content_layouts), so that ``on_post_page`` reads no block again.
- ``on_post_page``, last of every plugin (after thunder-traces and thunder-diagrams have filled the
  page in, and after autorefs resolved its links in ``on_env``): defer the page's blocks, add
  the style that shows the kept blocks when scripting is off, and the script. Nothing is kept
  between builds: deferring a page whose blocks this build did not parse reads each one by counting
  its tags (defer.layout_of), which costs about as much as a cache's key and entry did.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from thunder_docs.plugins.lazyhighlight.config import LazyHighlightConfig
from thunder_docs.plugins.lazyhighlight.defer import NOSCRIPT_STYLE, content_layouts, defer
from thunder_docs.shared import page_html
from thunder_docs.shared.page_assets import in_head, with_script

ASSETS = Path(__file__).parent / "assets"
SCRIPT = "assets/javascripts/thunder-lazyhighlight.js"


class LazyHighlightPlugin(BasePlugin[LazyHighlightConfig]):
    def __init__(self) -> None:
        self.layouts: dict[str, list] = {}  # each page's blocks as its content's parse left them (content_layouts)

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        if self.config.enabled:
            files.append(File.generated(config, SCRIPT, abs_src_path=str(ASSETS / "thunder-lazyhighlight.js")))
        return files

    # After thunder-traces (5), before the plugins that change the HTML as text (0): each block as
    # the one parse holds it (shared/page_html.py), for on_post_page.
    @event_priority(4)
    def on_page_content(self, html_text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        parse = page_html.last(page.file.src_uri, html_text)  # never a parse of its own: on_post_page may not need it
        if self.config.enabled and parse is not None:
            self.layouts[page.file.src_uri] = content_layouts(parse)
        else:  # none from an earlier build (they would be checked against the blocks, but need not be)
            self.layouts.pop(page.file.src_uri, None)
        page_html.forget()
        return html_text

    @event_priority(-100)
    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        layouts = self.layouts.pop(page.file.src_uri, None)
        if not self.config.enabled or "<pre" not in output:
            return output
        deferred = defer(output, self.config.min_elements, layouts)
        if deferred == output:
            return output
        return with_script(in_head(deferred, NOSCRIPT_STYLE), SCRIPT, page.url)

