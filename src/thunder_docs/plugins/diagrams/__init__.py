"""Mermaid diagrams drawn when the site builds (the ``thunder-diagrams`` MkDocs plugin).

Each ```mermaid fence becomes inline SVG in the page, drawn by Mermaid itself in headless
Chromium, in a light and a dark variant that Material's colour scheme switches with CSS.
The drawn SVGs are kept in the repository (``diagrams/``), so a build without a browser
works as long as no diagram changed.

- ``config.py``: the plugin's options, documented.
- ``fences.py``: finds the fences of a page and names each drawing (its cache key).
- ``draw.py``: draws diagrams with Mermaid in Chromium (Playwright), one browser per build.
- ``plugin.py``: the MkDocs hooks.
"""

from .fences import fence_format

__all__ = ["fence_format"]
