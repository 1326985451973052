"""What a page's blocks should hold: its output blocks with their trace maps, and the snippet
line each line of a code block shows."""

from __future__ import annotations

from pathlib import Path

from thunder_docs.shared.model import Page
from thunder_docs.shared.results import CPU, CUDA
from thunder_docs.shared.sections import MARKER, Include
from thunder_docs.shared.trace_map import TraceMap


class Block:
    """An output block the build wrote (render.py), with the map of its trace lines."""

    def __init__(self, include: Include | None, output: str, trace_map: TraceMap):
        self.include, self.output, self.trace_map = include, output, trace_map


def blocks_of(site, page: Page) -> dict[str, list[Block]]:
    """The output blocks of live output, per device, in page order: CPU, and CUDA when this build ran it."""
    blocks: dict[str, list[Block]] = {CPU: [], CUDA: []}
    for inc in page.includes:
        for device in (CPU, CUDA) if inc.cuda else (CPU,):
            if site.results.has(device, page.path):
                output = site.results.output(device, page.path, inc.sections)
                if output:
                    blocks[device].append(Block(inc, output, site.results.trace_map(device, page.path, inc.sections)))
    return blocks


def code_lines(root: Path, inc: Include) -> list[tuple[str, int]]:
    """(file, line) of each line of an include's code block, as the page shows it."""
    where = []
    files: dict[str, list[str]] = {}
    for section in inc.sections:
        lines = files.setdefault(section.path, (root / section.path).read_text(encoding="utf-8").splitlines())
        wanted = section.code.count("\n") + 1
        number = section.start_line
        while wanted and number <= len(lines):
            if not MARKER.match(lines[number - 1]):
                where.append((section.path, number))
                wanted -= 1
            number += 1
    return where
