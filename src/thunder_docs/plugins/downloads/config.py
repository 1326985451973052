"""The options of ``thunder-downloads``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class DownloadsConfig(base.Config):
    """Options of ``thunder-downloads``, which offers each page's code as a notebook and a ``.py`` file."""

    folder = c.Type(str, default="downloads")
    """The site folder the downloads go to. Default: ``downloads``."""
