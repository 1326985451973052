"""The options of ``thunder-lazyhighlight``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class LazyHighlightConfig(base.Config):
    """Options of ``thunder-lazyhighlight``, which sends large code blocks as plain text and puts
    their highlighting back in the browser when they come near the view."""

    enabled = c.Type(bool, default=True)
    """Defer large code blocks, and load the script on pages that have one. Default: on."""
    min_elements = c.Type(int, default=10)
    """Defer a block whose ``<code>`` holds at least this many elements (Pygments' spans, links). Default: 10."""
