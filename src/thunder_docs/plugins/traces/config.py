"""The options of ``thunder-traces``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class TracesConfig(base.Config):
    """Options of ``thunder-traces``, which makes printed traces interactive (names, source lines, passes)."""

    enabled = c.Type(bool, default=True)
    """Mark up trace blocks and load the script and stylesheet on pages that have them. Default: on."""
    cache_dir = c.Optional(c.Type(str))
    """Keep each page's marked-up HTML here, keyed by its HTML, its trace maps and snippets and the
    marking code, and reuse it; relative to ``mkdocs.yml``. Default: unset (mark up every build)."""
