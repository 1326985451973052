"""Each pass stepper's traces in a file of their own, beside the page.

A stepper's traces (``data-walk``: the HTML of every trace its code walked through) weigh as much
as the rest of a page, and only a reader who reaches the stepper needs them. The built page keeps
``data-walk-src``, the file's name; thunder-traces.js fetches it when the block comes near the
view. thunder-explain's single-file page keeps them inline.
"""

from __future__ import annotations

import html
import itertools
import re
from pathlib import Path

from thunder_docs.shared.files import write_atomic

WALK = re.compile(r' data-walk="([^"]*)"')


def walk_file(index: int) -> str:
    return f"traces-walk-{index}.json"


def move_walks(output: str, folder: Path) -> str:
    """The page with each ``data-walk`` written to ``folder`` (the page's folder in the built site)
    and replaced by ``data-walk-src``, the file's name (relative to the page)."""
    found = itertools.count()

    def move(match: re.Match) -> str:
        name = walk_file(next(found))
        write_atomic(folder / name, html.unescape(match.group(1)))
        return f' data-walk-src="{name}"'

    return WALK.sub(move, output)
