"""Reuse Pygments' highlighting of a code block that was highlighted before.

pymdownx.highlight (through SuperFences, and mkdocstrings for signatures) calls Pygments'
``highlight(src, lexer, formatter)`` for every code block of every page on every build:
about half a second for this site. ``install`` replaces the name ``highlight`` inside
``pymdownx.highlight`` with a function that looks the result up first.

A block's key hashes what Pygments' result depends on: the code, the lexer's and the
formatter's class, options and plain attributes (CSS class, line numbers, highlighted
lines, style, title...), and the versions of Pygments and pymdown-extensions.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from thunder_docs.plugins.buildcache.wrapping import replace_attribute
from thunder_docs.shared.contracts import Contract
from thunder_docs.shared.files import JsonStore, digest
from thunder_docs.shared.versions import distribution_version

CONTRACT = Contract("the highlight cache (thunder-buildcache highlight)", {
    "pymdown-extensions": ("13.1.2",),  # pymdownx.highlight calls the module-global name highlight
    "pygments": ("2.21.0",),  # highlight(code, lexer, formatter, outfile=None)
})


def _kind(obj) -> str:
    return f"{type(obj).__module__}.{type(obj).__qualname__}"


def _state(obj) -> dict:
    """An object's plain attributes: a formatter may keep an option only there (pymdownx turns
    ``linenos="pymdownx-inline"`` into ``"inline"`` plus ``self.pymdownx_inline``)."""
    return {k: v for k, v in vars(obj).items() if isinstance(v, (str, int, float, bool, type(None), list, tuple))}


class HighlightCache:
    def __init__(self, directory: Path):
        self.store = JsonStore(directory)
        self.context = json.dumps([distribution_version("pygments"), distribution_version("pymdown-extensions")])
        self.hits = self.misses = 0

    def key(self, src: str, lexer, formatter) -> str:
        options = json.dumps([_kind(lexer), lexer.options, _state(lexer), _kind(formatter), formatter.options,
                              _state(formatter)], sort_keys=True, default=repr)
        return digest(self.context, options, src)

    def wrap(self, highlight: Callable[..., str]) -> Callable[..., str]:
        def cached_highlight(src: str, lexer, formatter, outfile=None):
            if outfile is not None:  # writes to a file: not what pymdownx does, so not cached
                return highlight(src, lexer, formatter, outfile)
            key = self.key(src, lexer, formatter)
            html = self.store.get(key)
            if html is not None:
                self.hits += 1
                return html
            self.misses += 1
            html = highlight(src, lexer, formatter)
            self.store.put(key, html)
            return html

        return cached_highlight


def install(cache: HighlightCache | None) -> None:
    """Make pymdownx.highlight use ``cache`` (None: Pygments itself, as before)."""
    import pymdownx.highlight as module

    replace_attribute(module, "highlight", cache.wrap if cache is not None else None)
