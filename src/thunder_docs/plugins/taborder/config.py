"""The options of ``thunder-taborder``, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class TabOrderConfig(base.Config):
    """Options of ``thunder-taborder``, which takes duplicate controls out of a page's Tab order."""

    permalinks = c.Type(bool, default=True)
    """Take each heading's permalink (the ``toc`` extension's ``¶``) out of the Tab order: the table of
    contents links to the same anchors, so the keyboard reaches each heading once. The link stays,
    for the mouse and for screen readers' lists of links. Default: on."""
    link_lists = c.Type(bool, default=True)
    """Make the section tabs, the sidebar's navigation and the table of contents one Tab stop each,
    whose arrow keys move between its links (assets/thunder-taborder.js, loaded on every page).
    Default: on."""
    signature_copy = c.Type(bool, default=False)
    """Give API signatures (mkdocstrings' ``doc-signature`` blocks) Material's copy button. Default:
    off, since a signature is read rather than copied, and a reference page shows dozens."""
