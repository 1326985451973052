"""The options of ``thunder-buildcache``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class BuildCacheConfig(base.Config):
    """Options of ``thunder-buildcache``, which reuses the work other plugins repeat each build."""

    cache_dir = c.Type(str, default=".cache/thunder-docs/build")
    """The cache's folder, relative to ``mkdocs.yml``. Default: ``.cache/thunder-docs/build``."""
    search = c.Type(bool, default=True)
    """Reuse Material's search entries of pages whose HTML, title, meta and TOC are unchanged. Default: on."""
    highlight = c.Type(bool, default=True)
    """Reuse Pygments' highlighting of code blocks highlighted before with the same options. Default: on."""
    notebooks = c.Type(bool, default=True)
    """Reuse mkdocs-jupyter's conversion of notebooks converted before with the same options. Default: on."""
    pages = c.Type(bool, default=True)
    """Reuse each Markdown page's conversion to HTML while its Markdown, the files it includes, the
    site's files and the Markdown options are unchanged (page_cache.py says what is never reused).
    Default: on."""
    llms = c.Type(bool, default=True)
    """Reuse mkdocs-llmstxt's Markdown copy of a page whose HTML, options and preprocess code are unchanged.
    Default: on."""
    templates = c.Type(bool, default=True)
    """Keep the theme's Jinja templates compiled (Jinja's bytecode cache). Default: on."""
