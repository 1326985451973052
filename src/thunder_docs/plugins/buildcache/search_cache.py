"""Reuse Material's search entries of a page that has not changed.

Material's search plugin indexes each page in ``on_page_context`` by parsing its HTML with
``html.parser`` (about a second for this site's pages on every build). This wraps the
instance's ``SearchIndex.add_entry_from_context``: a page whose entries are cached gets them
appended as they were made, and a page that is new or changed is indexed by Material, then
its entries are kept. Everything else (the index file, its options) is Material's.

A page's key hashes everything Material's indexing reads: the page's HTML, URL, title, meta,
and its table of contents (ids and URLs), with the search plugin's options, and the versions
of Python (its ``html.parser``), Material and jieba (which Material uses when it is installed).
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

from mkdocs.structure.pages import Page

from thunder_docs.shared.contracts import Contract
from thunder_docs.shared.files import JsonStore, digest
from thunder_docs.shared.versions import distribution_version

CONTRACT = Contract("the search cache (thunder-buildcache search)", {
    # SearchIndex.add_entry_from_context indexes a page; entries is only ever appended to
    "mkdocs-material": ("9.8.2",),
})


def _toc(items) -> list:
    return [[item.id, item.url, item.title, _toc(item.children)] for item in items]


def page_key(page: Page, context: str) -> str:
    """What Material's ``add_entry_from_context`` reads from a page, hashed."""
    rest = json.dumps([page.url, str(page.title), page.meta, _toc(page.toc.items)], sort_keys=True, default=str)
    return digest(context, rest, page.content)


class SearchCache:
    """Search entries by page key, installed on one build's ``SearchIndex``."""

    def __init__(self, directory: Path, search_options: dict[str, Any]):
        self.store = JsonStore(directory)
        self.context = json.dumps([platform.python_version(), distribution_version("mkdocs-material"),
                                   distribution_version("jieba"), search_options], sort_keys=True, default=str)
        self.hits = self.misses = 0

    def install(self, index: Any) -> None:
        add = index.add_entry_from_context

        def cached_add(page: Page) -> None:
            key = page_key(page, self.context)
            entries = self.store.get(key)
            if entries is not None:
                self.hits += 1
                index.entries.extend(entries)
                return
            self.misses += 1
            before = len(index.entries)
            add(page)
            self.store.put(key, index.entries[before:])

        index.add_entry_from_context = cached_add
