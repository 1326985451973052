"""The fenced code blocks of a page's Markdown: the one scanner every plugin uses.

The rules (CommonMark's, read line by line as pymdownx.superfences reads nested blocks):

- A fence opens on a line of three or more backticks or tildes after any indentation (fences
  inside list items and content tabs are indented); the rest of the line is its info string,
  which after backticks may not hold a backtick (``` ```x``` ``` is inline code, not a fence).
- It closes on the first later line that has the same indentation, then the same character at
  least as many times as the opening, then nothing but white space: a longer closing fence closes,
  a shorter one or one of the other character is text, and so is one with an info string.
- A fence that never closes runs to the end of the page.
- Fences do not nest: inside a fence, a line that would open one is text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?:(?P<ticks>`{3,})(?P<tick_info>[^`]*)|(?P<tildes>~{3,})(?P<tilde_info>.*))$")


@dataclass(frozen=True)
class Fence:
    """A fenced code block of a page."""

    indent: str
    marker: str  # the opening fence's characters: ``` or ~~~~ ...
    info: str  # what follows them, as written
    start: int  # 0-based index of the opening line
    end: int  # 0-based index of the closing line (the number of lines when the fence never closes)
    body: list[str]

    @property
    def lang(self) -> str:
        info = self.info.strip().lstrip("{").strip()
        return info.split()[0].lstrip(".").rstrip("}") if info else ""

    @property
    def is_python(self) -> bool:
        return self.lang in ("python", "py", "python3", "pycon")


def iter_fences(markdown: str) -> list[Fence]:
    """Every fenced code block of a page, in order (see the module's docstring for the rules)."""
    lines = markdown.split("\n")
    fences = []
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        indent = match["indent"]
        marker, info = (match["ticks"], match["tick_info"]) if match["ticks"] else (match["tildes"], match["tilde_info"])
        closing = re.compile(rf"{re.escape(indent)}{re.escape(marker[0])}{{{len(marker)},}}\s*")
        j = i + 1
        while j < len(lines) and not closing.fullmatch(lines[j]):
            j += 1
        fences.append(Fence(indent, marker, info, i, j, lines[i + 1 : j]))
        i = j + 1
    return fences
