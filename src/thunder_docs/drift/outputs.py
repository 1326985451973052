"""What each section printed under another Thunder, against the pinned Thunder's approved output.

Pure functions over text: the approved sections (``approved.load``) and the live ones (a dict
from section name to output), so the tests feed them hand-made inputs.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

SAME, CHANGED, NOT_RUN, FAILED, UNAPPROVED = "same", "changed", "not run", "failed", "not approved"


@dataclass(frozen=True)
class SectionDrift:
    """One section: its status, and the unified diff of its lines when they changed."""

    name: str
    status: str  # SAME, CHANGED, NOT_RUN (an earlier section failed), FAILED (this one) or UNAPPROVED
    diff: tuple[str, ...] = ()  # unified diff lines, "-" approved, "+" this Thunder
    lines: int = 0  # approved lines
    same_lines: int = 0  # of those, printed unchanged

    @property
    def removed_added(self) -> tuple[int, int]:
        """Lines of the approved output gone, and lines printed that it lacks (the diff's - and +)."""
        return (sum(1 for line in self.diff if line.startswith("-")), sum(1 for line in self.diff if line.startswith("+")))


@dataclass(frozen=True)
class PageOutputs:
    page: str  # docs/first_trace.md
    sections: tuple[SectionDrift, ...] = field(default_factory=tuple)

    @property
    def drifted(self) -> list[SectionDrift]:
        return [s for s in self.sections if s.status != SAME]

    @property
    def lines(self) -> int:
        return sum(s.lines for s in self.sections)

    @property
    def same_lines(self) -> int:
        return sum(s.same_lines for s in self.sections)

    @property
    def ran_lines(self) -> int:
        """Approved lines of the sections that ran (same or changed)."""
        return sum(s.lines for s in self.sections if s.status in (SAME, CHANGED))


def same_line_count(old: list[str], new: list[str]) -> int:
    """How many of the old lines the new text prints unchanged, in order (difflib's matching blocks)."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks())


def section_drift(name: str, approved: str | None, live: str | None, failed: bool = False) -> SectionDrift:
    """Compare one section's approved output with its live output (None: it did not run)."""
    old = approved.split("\n") if approved else []
    if approved is None:
        return SectionDrift(name, UNAPPROVED if live is not None else NOT_RUN)
    if live is None:
        return SectionDrift(name, FAILED if failed else NOT_RUN, lines=len(old))
    new = live.split("\n") if live else []
    if old == new:
        return SectionDrift(name, SAME, lines=len(old), same_lines=len(old))
    diff = tuple(line for line in difflib.unified_diff(old, new, "approved", "this Thunder", lineterm="", n=1)
                 if not line.startswith(("---", "+++")))
    return SectionDrift(name, CHANGED, diff, len(old), same_line_count(old, new))


def page_outputs(page: str, names: list[str], approved: dict[str, str], live: dict[str, str],
                 failed_section: str | None) -> PageOutputs:
    """Every section of a page, in file order."""
    return PageOutputs(page, tuple(section_drift(n, approved.get(n), live.get(n), n == failed_section)
                                   for n in names))
