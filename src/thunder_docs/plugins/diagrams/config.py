"""The options of ``thunder-diagrams`` (``plugins: - thunder-diagrams:`` in ``mkdocs.yml``).

Paths are relative to the folder of ``mkdocs.yml``.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class DiagramsConfig(base.Config):
    # Where the drawn SVGs are kept, one file per diagram and scheme, named by its cache key.
    # Commit this folder: a build finds each diagram here and draws only what is missing.
    directory = c.Type(str, default="diagrams")
    # Mermaid's browser bundle (installed by `npm ci` from package.json).
    mermaid_js = c.Type(str, default="node_modules/mermaid/dist/mermaid.min.js")
    # The file that pins Mermaid's version (`dependencies.mermaid`); the version is part of
    # every cache key, so upgrading Mermaid redraws every diagram.
    package_json = c.Type(str, default="package.json")
    # The Chromium (or Chrome) binary that draws. Empty: $CHROMIUM when set, else
    # `chromium`, `chromium-browser` or `google-chrome` on PATH. Only needed to draw.
    chromium = c.Type(str, default="")
    # Font of the labels. Mermaid sizes each box for its text in this font, so pick fonts
    # with the same widths everywhere: Arial, or Liberation Sans, which has Arial's metrics.
    font_family = c.Type(str, default="Arial, 'Liberation Sans', Helvetica, sans-serif")
    # Seconds Mermaid may take to draw one diagram.
    timeout = c.Type((int, float), default=30)
    # Remove SVGs in `directory` that no page uses any more.
    prune = c.Type(bool, default=True)
