"""Make printed output the same from one build to the next and from one machine to another.

Also make it plain text that shows what was printed: ANSI escape sequences (colours, cursor
moves, terminal titles and links) are stripped, and every other control character but the
newline and the tab (which is expanded) shows as its Unicode control picture (NUL as U+2400,
ESC as U+241B, DEL as U+2421), so nothing printed is lost and nothing invisible is published.
A carriage return ends a line, alone or before a newline, as it always has here: the output
file is read with universal newlines (``plugins/exec/runner.py``); this does the same for the
text the trace recorder reads as bytes (``capture.py``), so both count the same lines.
"""

from __future__ import annotations

import re
from pathlib import Path

_RULES = [
    # Thunder's provenance lines carry per-run timings.
    (re.compile(r"\(took \d+ milliseconds\)"), "(took N milliseconds)"),
    # Memory addresses in default reprs.
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x…"),
    # Installed packages and the standard library, wherever the interpreter lives.
    (re.compile(r"(?:/[^\s\"':]+)?/site-packages/"), "site-packages/"),
    (re.compile(r"(?:/[^\s\"':]+)?/lib/python3\.\d+/"), "<stdlib>/"),
]


# CSI (ESC [ ... final byte: colours, cursor moves) and OSC (ESC ] ... BEL or ESC \: titles, links).
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
# Every C0 control character but the tab and the newline (and the carriage return, gone by then),
# and DEL, to its control picture.
_PICTURES = {code: 0x2400 + code for code in range(0x20) if chr(code) not in "\t\n"} | {0x7F: 0x2421}


def normalize(text: str, root: Path) -> str:
    """Strip ANSI codes; apply every rule; show paths relative to the repository; expand tabs as
    Markdown does; show control characters as control pictures."""
    text = _ANSI.sub("", text)
    # The rules first: an interpreter inside the repository (.venv) still shows as site-packages/.
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    text = text.replace(str(root.resolve()) + "/", "").replace(str(root) + "/", "")
    lines = [line.translate(_PICTURES).expandtabs(4).rstrip()
             for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return "\n".join(lines).strip("\n")
