"""Make printed output the same from one build to the next and from one machine to another."""

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


def normalize(text: str, root: Path) -> str:
    """Apply every rule; show paths relative to the repository; expand tabs as Markdown does."""
    # The rules first: an interpreter inside the repository (.venv) still shows as site-packages/.
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    text = text.replace(str(root.resolve()) + "/", "").replace(str(root) + "/", "")
    lines = [line.expandtabs(4).rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    return "\n".join(lines).strip("\n")
