"""The options of ``thunder-explore``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class ExploreConfig(base.Config):
    """Options of ``thunder-explore``, which runs ``thunder-explain`` on scripts at build time."""

    scripts = c.ListOfItems(c.Type(str), default=[])
    """The scripts to explore, relative to ``mkdocs.yml``; each page is written as
    ``<folder>/<script's name>.html``. Default: none."""
    folder = c.Type(str, default="explore")
    """The site folder the pages go to. Default: ``explore``."""
    cache_dir = c.Type(str, default=".cache/thunder-docs/explore")
    """Where each script's page is kept until the script, the explorer's code or the installed
    Thunder and torch change, relative to ``mkdocs.yml``. Default: ``.cache/thunder-docs/explore``."""
    timeout = c.Type(int, default=900)
    """Seconds a script may run under the explorer before the build fails. Default: 900."""
