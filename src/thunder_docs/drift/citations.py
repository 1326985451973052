"""The pages' citations of Thunder's source, in the pinned Thunder and in another one.

A citation (``[[thunder/core/trace.py:TraceCtx]]``, ``plugins/cite/``) names a definition. Under
another Thunder it may no longer resolve (the file or the name is gone), or resolve to code that
changed (its ``ast`` without docstrings and layout differs: the hooks' own digest,
``hooks.fingerprint``), so the sentence that cites it may no longer hold. Both Thunders are read
from their files; neither is imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from thunder_docs.shared.files import digest
from thunder_docs.shared.hooks import fingerprint

CITATION = re.compile(r"\[\[(?P<path>thunder/[\w./-]*\.py)(?::(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*))?\]\]")
GONE, CHANGED = "no longer resolves", "code changed"


@dataclass(frozen=True)
class CitationDrift:
    page: str
    citation: str  # thunder/core/trace.py:TraceCtx
    status: str  # GONE or CHANGED
    detail: str = ""


def cited(pages: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(page, "path:name" or "path") for each citation in each (page, text), once per page, in order."""
    found = []
    for page, text in pages:
        seen = set()
        for match in CITATION.finditer(text):
            point = match["path"] + (f":{match['name']}" if match["name"] else "")
            if point not in seen:
                seen.add(point)
                found.append((page, point))
    return found


def code_of(point: str, root: Path) -> str:
    """The digest of what a citation names under the Thunder whose package's parent is ``root``;
    "missing: ..." when it does not resolve."""
    path, _, name = point.partition(":")
    if not name:
        file = root / path
        return digest(file.read_text(encoding="utf-8"))[:16] if file.is_file() else f"missing: no file {path}"
    return fingerprint(point, {"thunder": root})


def compare(citations: list[tuple[str, str]], pinned: Path, other: Path) -> list[CitationDrift]:
    """Each citation that no longer resolves, or whose code differs, under ``other``."""
    drifts = []
    for page, point in citations:
        before, after = code_of(point, pinned), code_of(point, other)
        if after.startswith("missing"):
            drifts.append(CitationDrift(page, point, GONE, after.removeprefix("missing: ")))
        elif before != after:
            drifts.append(CitationDrift(page, point, CHANGED))
    return drifts
