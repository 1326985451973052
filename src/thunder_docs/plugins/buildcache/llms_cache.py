"""Reuse mkdocs-llmstxt's Markdown copy of a page whose HTML has not changed.

mkdocs-llmstxt converts every page's HTML to Markdown in its ``on_page_content`` hook, on every
build: BeautifulSoup parses the page, markdownify converts it and mdformat formats the result.
For this site that is about 25 seconds a build, eight times the rest of a warm build.
``install`` replaces the name ``_generate_page_markdown`` inside the plugin's module with a
function that looks the result up first.

A copy's key hashes what the conversion reads: the page's HTML as the hook receives it, the
options (autoclean, the site's address, the page's URL), the text of the ``preprocess`` file and
the code it imports from this package (``thunder_docs.plugins.llms.preprocess``; a diagram's
Mermaid text is named in the HTML by its digest), and the versions of the packages that convert.
The copy's path is left out: it only names the copy in messages, and a build into another
folder reuses the same copies.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from thunder_docs.plugins.buildcache.wrapping import replace_attribute
from thunder_docs.shared.code_digest import loaded_digest
from thunder_docs.shared.contracts import Contract
from thunder_docs.shared.files import JsonStore, digest
from thunder_docs.shared.versions import distribution_version

CONTRACT = Contract("the Markdown copy cache (thunder-buildcache llms)", {
    # on_page_content calls the module-global _generate_page_markdown(html, *, should_autoclean,
    # preprocess, path, base_uri, page_uri), which returns the copy's text and has no other effect.
    "mkdocs-llmstxt": ("0.5.1",),
})
PACKAGES = ("mkdocs-llmstxt", "beautifulsoup4", "markdownify", "mdformat", "mdformat-tables")
MODULE = "mkdocs_llmstxt._internal.plugin"
PREPROCESS = "thunder_docs.plugins.llms.preprocess"


class LlmsCache:
    def __init__(self, directory: Path):
        self.store = JsonStore(directory)
        self.context = digest(json.dumps({p: distribution_version(p) for p in PACKAGES}, sort_keys=True),
                              loaded_digest(PREPROCESS))
        self.hits = self.misses = 0

    def key(self, html: str, *, should_autoclean: bool, preprocess: str | None, base_uri: str, page_uri: str) -> str:
        code = Path(preprocess).read_bytes() if preprocess else b""
        return digest(self.context, json.dumps([should_autoclean, base_uri, page_uri]), code, html)

    def wrap(self, generate: Callable[..., str]) -> Callable[..., str]:
        def cached_generate(html: str, *, should_autoclean: bool, preprocess: str | None, path: str,
                            base_uri: str, page_uri: str) -> str:
            options = {"should_autoclean": should_autoclean, "preprocess": preprocess, "base_uri": base_uri,
                       "page_uri": page_uri}
            key = self.key(html, **options)
            markdown = self.store.get(key)
            if isinstance(markdown, str):
                self.hits += 1
                return markdown
            self.misses += 1
            markdown = generate(html, path=path, **options)
            self.store.put(key, markdown)
            return markdown

        return cached_generate


def install(cache: LlmsCache | None) -> None:
    """Make mkdocs-llmstxt use ``cache`` (None: its own conversion, as before)."""
    import importlib

    replace_attribute(importlib.import_module(MODULE), "_generate_page_markdown",
                      cache.wrap if cache is not None else None)
