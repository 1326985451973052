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
to every conversion, such as the glossary's abbreviations), mkdocstrings' own options (custom
templates, the handlers' paths and options, inventories), and the versions of every package that shapes the
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
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import Files

from thunder_docs.plugins.refcache.config import ReferenceCacheConfig
from thunder_docs.shared.contracts import Contract
from thunder_docs.shared.files import JsonStore, digest, portable, stable
from thunder_docs.shared.model import folder_of
from thunder_docs.shared.versions import distribution_version

log = get_plugin_logger("thunder-refcache")

CONTRACT = Contract("the API reference cache (thunder-refcache)", {
    # the handler's collect, render and get_aliases, looked up on the instance; get_headings()
    "mkdocstrings": ("1.0.8",),
    "mkdocstrings-python": ("2.0.11",),
    "mkdocs-autorefs": ("1.4.5",),
})
PACKAGES = ("lightning-thunder", "mkdocstrings", "mkdocstrings-python", "griffe", "ruff", "markdown",
            "pymdown-extensions", "mkdocs-material", "mkdocs-autorefs")


@dataclass(frozen=True)
class _Collected:
    """What the wrapped ``collect`` hands to the wrapped ``render``."""

    key: str
    entry: dict | None  # the cached entry, or None: collect and render for real
    item: Any = None  # griffe's object, when collected for real


class ReferenceCache:
    def __init__(self, directory: Path, markdown_config: Any, root: Path):
        self.store = JsonStore(directory)
        self.root = root  # written "." in keys: a copy of the checkout elsewhere reuses the entries
        self.context = portable(json.dumps({"packages": {p: distribution_version(p) for p in PACKAGES},
                                            "markdown": stable(markdown_config)}, sort_keys=True), root)
        self.aliases: dict[str, tuple[str, ...]] = {}  # heading id -> aliases, from replayed entries
        self.hits = self.misses = 0

    def key(self, identifier: str, options: Any, locale: str | None) -> str:
        return digest(self.context, portable(json.dumps([identifier, stable(options), locale], sort_keys=True),
                                             self.root))

    def install(self, handler: Any, locale: str | None) -> None:
        """Wrap the handler's collect, render, get_headings and get_aliases (the instance's, not the
        class's). mkdocstrings calls ``get_headings()`` right after ``render`` for each ``:::`` block:
        a replayed entry's headings are handed out there, and a rendered entry is stored there, with
        the headings its templates registered."""
        collect, render = handler.collect, handler.render
        get_headings, get_aliases = handler.get_headings, handler.get_aliases
        rendered: list[tuple[_Collected, str]] = []  # the block rendered last, until its headings are read

        def cached_collect(identifier: str, options: Any) -> _Collected:
            key = self.key(identifier, options, locale)
            entry = self.store.get(key)
            if entry is not None and (headings := _loads(entry.get("headings"))) is not None:
                self.hits += 1
                return _Collected(key, {**entry, "headings": headings})
            self.misses += 1
            return _Collected(key, None, collect(identifier, options))

        def cached_render(data: _Collected, options: Any, locale: str | None = None) -> str:
            html = data.entry["html"] if data.entry is not None else render(data.item, options, locale=locale)
            rendered[:] = [(data, html)]
            return html

        def cached_get_headings():
            headings = list(get_headings())
            if not rendered:
                return headings
            (data, html), = rendered
            rendered.clear()
            if data.entry is not None:
                self.aliases.update({k: tuple(v) for k, v in data.entry["aliases"].items()})
                return headings + list(data.entry["headings"])
            # Pickled: the headings' text keeps its exact type (Markdown treats AtomicString apart).
            self.store.put(data.key, {"html": html, "headings": base64.b64encode(pickle.dumps(headings)).decode(),
                                      "aliases": {h.get("id"): list(get_aliases(h.get("id")))
                                                  for h in headings if h.get("id")}})
            return headings

        def cached_get_aliases(identifier: str) -> tuple[str, ...]:
            if identifier in self.aliases:
                return self.aliases[identifier]
            return get_aliases(identifier)

        handler.collect, handler.render = cached_collect, cached_render
        handler.get_headings, handler.get_aliases = cached_get_headings, cached_get_aliases


def _loads(text: str | None) -> list | None:
    """Pickled headings, or None when they cannot be read (a damaged entry, a moved class): a miss."""
    try:
        return pickle.loads(base64.b64decode(text))
    except Exception:
        return None


class ReferenceCachePlugin(BasePlugin[ReferenceCacheConfig]):
    """``thunder-refcache``: list it after ``mkdocstrings`` in ``mkdocs.yml``."""

    def __init__(self) -> None:
        self.cache: ReferenceCache | None = None  # this build's; a new one each build
        self.warned = False  # the off-warning of an unverified version, once per process

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        """Every plugin has read its config: wrap the handler before any page is rendered."""
        self.cache = None
        if not self.config.enabled:
            return files
        mkdocstrings = config.plugins.get("mkdocstrings")
        if mkdocstrings is None:
            raise PluginError("thunder-refcache: needs the mkdocstrings plugin in mkdocs.yml")
        if (problem := CONTRACT.unverified_message()) is not None:
            if not self.warned:
                log.warning(problem)
                self.warned = True
            return files
        root = folder_of(config)
        self.cache = ReferenceCache(root / self.config.cache_dir,
                                    [config.markdown_extensions, config.mdx_configs, _appended_files(config, root),
                                     # custom_templates, the handlers' paths and inventories, ...
                                     dict(mkdocstrings.config)], root)
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
