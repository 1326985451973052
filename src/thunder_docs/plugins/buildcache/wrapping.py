"""Put a wrapper in place of another package's function, and take it off again.

The build caches wrap functions that other packages call by attribute lookup (Pygments'
``highlight`` inside pymdownx, mkdocs-jupyter's ``nb2html``, pymdownx.snippets'
``get_snippet_path``). A wrapper of ours keeps the function it replaced under a private
attribute of its own (``ORIGINAL``), never ``__wrapped__``: a third-party wrapper there
(``functools.wraps``, ``lru_cache``) is left as it is. So wrapping twice (each build under
``mkdocs serve``) never wraps our own wrapper, and ``make=None`` restores exactly what was there.
``wrapped`` does the same for the length of a ``with`` block, on an object's own attribute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

ORIGINAL = "_thunder_docs_original"  # on our wrappers only: the function they replaced
_ABSENT = object()


def replace_attribute(owner: Any, name: str, make: Callable[[Callable], Callable] | None) -> None:
    """Set ``owner.name`` to ``make(original)``, or back to the original when ``make`` is None."""
    current = getattr(owner, name)
    original = getattr(current, ORIGINAL, current)
    if make is None:
        setattr(owner, name, original)
        return
    wrapper = make(original)
    setattr(wrapper, ORIGINAL, original)
    setattr(owner, name, wrapper)


@contextmanager
def wrapped(owner: Any, name: str, make: Callable[[Callable], Callable]) -> Iterator[None]:
    """``owner.name`` is ``make(original)`` inside the block, and exactly as before after it
    (an instance that only had the class's method gets no attribute of its own)."""
    own = vars(owner).get(name, _ABSENT)
    setattr(owner, name, make(getattr(owner, name)))
    try:
        yield
    finally:
        if own is _ABSENT:
            delattr(owner, name)
        else:
            setattr(owner, name, own)
