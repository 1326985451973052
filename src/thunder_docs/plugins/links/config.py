"""The options of ``thunder-links``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class LinksConfig(base.Config):
    """Options of ``thunder-links``, which links names to the API reference and to Thunder's source."""

    stylesheet = c.Type(bool, default=True)
    """Add the stylesheet for links inside code blocks. Default: on."""
    glossary = c.Type(str, default="glossary.md")
    """The page whose glossary terms are not marked (it defines them). Default: ``glossary.md``."""
    cache_dir = c.Optional(c.Type(str))
    """Keep each page's linked HTML here, keyed by its HTML, the linking code and Thunder's version, and
    reuse it; relative to ``mkdocs.yml``. Default: unset (link every page every build)."""
