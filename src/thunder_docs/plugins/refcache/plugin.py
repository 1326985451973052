"""Reuse the API reference's rendered entries while nothing they depend on has changed.

mkdocstrings renders each ``::: identifier`` block in two steps: ``collect`` (griffe loads
Thunder's source, about 4 s the first time) and ``render`` (templates, docstrings, signatures
formatted by Ruff). This wraps the Python handler's ``collect``, ``render`` and ``get_aliases``
so that an entry whose key is cached is neither collected nor rendered: the cached HTML, the
headings mkdocstrings registers for the table of contents and autorefs, and each heading's
aliases are replayed as the handler would have produced them. Everything else (autorefs, the
inventory, the table of contents) runs as usual on what is replayed.

An entry's key hashes the identifier, the handler's options for it, the locale, the Markdown
extensions docstrings are converted with (and the text of the files pymdownx.snippets appends
to every conversion, such as the glossary's abbreviations), and the versions of every package that shapes the
result (Thunder, mkdocstrings, its Python handler, griffe, Ruff, Markdown, pymdown-extensions,
Material). A new Thunder or a changed option renders the entry again.
"""

from __future__ import annotations

import base64
import json
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import Files

from thunder_docs.plugins.refcache.config import ReferenceCacheConfig
from thunder_docs.shared.files import JsonStore, digest, stable
from thunder_docs.shared.versions import distribution_version

log = get_plugin_logger("thunder-refcache")

PACKAGES = ("lightning-thunder", "mkdocstrings", "mkdocstrings-python", "griffe", "ruff", "markdown",
            "pymdown-extensions", "mkdocs-material", "mkdocs-autorefs")


@dataclass(frozen=True)
class _Collected:
    """What the wrapped ``collect`` hands to the wrapped ``render``."""

    key: str
    entry: dict | None  # the cached entry, or None: collect and render for real
    item: Any = None  # griffe's object, when collected for real


class ReferenceCache:
    def __init__(self, directory: Path, markdown_config: Any):
        self.store = JsonStore(directory)
        self.context = json.dumps({"packages": {p: distribution_version(p) for p in PACKAGES},
                                   "markdown": stable(markdown_config)}, sort_keys=True)
        self.aliases: dict[str, tuple[str, ...]] = {}  # heading id -> aliases, from replayed entries
        self.hits = self.misses = 0

    def key(self, identifier: str, options: Any, locale: str | None) -> str:
        payload = json.dumps([identifier, stable(options), locale], sort_keys=True)
        return digest(self.context, payload)

    def install(self, handler: Any, locale: str | None) -> None:
        """Wrap the handler's collect, render and get_aliases (the instance's, not the class's)."""
        collect, render, get_aliases = handler.collect, handler.render, handler.get_aliases

        def cached_collect(identifier: str, options: Any) -> _Collected:
            key = self.key(identifier, options, locale)
            entry = self.store.get(key)
            if entry is not None:
                self.hits += 1
                return _Collected(key, entry)
            self.misses += 1
            return _Collected(key, None, collect(identifier, options))

        def cached_render(data: _Collected, options: Any, locale: str | None = None) -> str:
            if data.entry is not None:
                # The headings the templates would have registered (see BaseHandler.do_heading).
                handler._headings.extend(pickle.loads(base64.b64decode(data.entry["headings"])))
                self.aliases.update({k: tuple(v) for k, v in data.entry["aliases"].items()})
                return data.entry["html"]
            html = render(data.item, options, locale=locale)
            headings = list(handler._headings)
            # Pickled: the headings' text keeps its exact type (Markdown treats AtomicString apart).
            entry = {"html": html, "headings": base64.b64encode(pickle.dumps(headings)).decode(),
                     "aliases": {h.get("id"): list(get_aliases(h.get("id"))) for h in headings if h.get("id")}}
            self.store.put(data.key, entry)
            return html

        def cached_get_aliases(identifier: str) -> tuple[str, ...]:
            if identifier in self.aliases:
                return self.aliases[identifier]
            return get_aliases(identifier)

        handler.collect, handler.render, handler.get_aliases = cached_collect, cached_render, cached_get_aliases


class ReferenceCachePlugin(BasePlugin[ReferenceCacheConfig]):
    """``thunder-refcache``: list it after ``mkdocstrings`` in ``mkdocs.yml``."""

    def __init__(self) -> None:
        self.cache: ReferenceCache | None = None  # this build's; a new one each build

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        """Every plugin has read its config: wrap the handler before any page is rendered."""
        self.cache = None
        if not self.config.enabled:
            return files
        mkdocstrings = config.plugins.get("mkdocstrings")
        if mkdocstrings is None:
            raise RuntimeError("thunder-refcache needs the mkdocstrings plugin")
        root = Path(config.config_file_path).resolve().parent
        self.cache = ReferenceCache(root / self.config.cache_dir,
                                    [config.markdown_extensions, config.mdx_configs, _appended_files(config, root)])
        self.cache.install(mkdocstrings.get_handler(self.config.handler), config.theme.get("locale") and
                           str(config.theme["locale"]))
        return files

    def on_post_build(self, config: MkDocsConfig) -> None:
        if self.cache is not None:
            log.info("API reference: %d entries reused, %d rendered", self.cache.hits, self.cache.misses)


def _appended_files(config: MkDocsConfig, root: Path) -> dict[str, str]:
    """The files pymdownx.snippets appends to every conversion (docstrings too), with their text:
    the glossary's abbreviations, for one, mark terms inside docstrings."""
    snippets = config.mdx_configs.get("pymdownx.snippets", {})
    bases = [Path(b) for b in snippets.get("base_path", ["."])]
    found = {}
    for name in snippets.get("auto_append", []):
        for base in bases:
            path = (base if base.is_absolute() else root / base) / name
            if path.is_file():
                found[name] = path.read_text(encoding="utf-8")
                break
    return found
