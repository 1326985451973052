"""Put a wrapper in place of another package's function, and take it off again.

The build caches wrap functions that other packages call by attribute lookup (Pygments'
``highlight`` inside pymdownx, mkdocs-jupyter's ``nb2html``, pymdownx.snippets'
``get_snippet_path``). A wrapper keeps the original as ``__wrapped__``, so wrapping twice
(each build under ``mkdocs serve``) never wraps a wrapper, and ``make=None`` restores it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def replace_attribute(owner: Any, name: str, make: Callable[[Callable], Callable] | None) -> None:
    """Set ``owner.name`` to ``make(original)``, or back to the original when ``make`` is None."""
    current = getattr(owner, name)
    original = getattr(current, "__wrapped__", current)
    if make is None:
        setattr(owner, name, original)
        return
    wrapper = make(original)
    wrapper.__wrapped__ = original
    setattr(owner, name, wrapper)
