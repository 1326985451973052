"""The options of ``thunder-cite``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class CitationsConfig(base.Config):
    """Options of ``thunder-cite``, which resolves ``[[thunder/file.py:object]]`` citations."""

    cache_dir = c.Optional(c.Type(str))
    """Keep each page's Markdown with its citations resolved here, keyed by the Markdown, Thunder's
    version and the resolving code, and reuse it; relative to ``mkdocs.yml``. Default: unset
    (parse Thunder's cited files every build)."""
    keep_going = c.Type(bool, default=False)
    """A citation that does not resolve is a warning, shown as plain code, not a failed build. For
    builds with another Thunder (``scripts/dev build --thunder``; ``scripts/dev drift`` lists
    them). Default: off."""
