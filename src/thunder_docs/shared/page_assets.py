"""What a plugin adds to a built page's HTML to load its assets: a tag at the end of ``<head>``
(a stylesheet, a style) or of ``<body>`` (a script), each URL relative to the page."""

from __future__ import annotations

from mkdocs.utils import get_relative_url


def in_head(output: str, tag: str) -> str:
    """The page with ``tag`` last in its ``<head>``."""
    return output.replace("</head>", f"{tag}\n</head>", 1)


def with_stylesheet(output: str, uri: str, page_url: str) -> str:
    """The page loading the stylesheet at ``uri`` (a path in the site)."""
    return in_head(output, f'<link rel="stylesheet" href="{get_relative_url(uri, page_url)}">')


def with_script(output: str, uri: str, page_url: str) -> str:
    """The page running the script at ``uri`` (a path in the site) once its content is parsed.

    The script is deferred: fetched without holding the parser, run after Material's bundle.js
    (deferred too, ``overrides/main.html``) and before ``DOMContentLoaded``. A phone paints
    sooner, and blocks for less, than with scripts at the end of ``<body>`` (MAINTAINING.md, "Fast on a
    phone")."""
    return output.replace("</body>", f'<script defer src="{get_relative_url(uri, page_url)}"></script>\n</body>', 1)
