"""The options of ``thunder-refcache``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class ReferenceCacheConfig(base.Config):
    """Options of ``thunder-refcache``, which reuses the API reference's rendered entries."""

    enabled = c.Type(bool, default=True)
    """Reuse entries whose key is cached (plugins/refcache/plugin.py says what the key covers). Default: on."""
    cache_dir = c.Type(str, default=".cache/thunder-docs/reference")
    """Where rendered entries live, relative to ``mkdocs.yml``. Default: ``.cache/thunder-docs/reference``."""
    handler = c.Type(str, default="python")
    """The mkdocstrings handler whose entries are cached. Default: ``python``."""
