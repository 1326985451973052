"""What a page's blocks should hold: its output blocks with their trace maps, and the snippet
line each line of a code block shows."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from thunder_docs.shared import block_ids
from thunder_docs.shared.model import Page
from thunder_docs.shared.results import CPU, CUDA
from thunder_docs.shared.sections import MARKER, Include
from thunder_docs.shared.trace_map import TraceMap


@dataclass
class Block:
    """An output block the build wrote (render.py), with the map of its trace lines."""

    include: Include | None
    output: str
    trace_map: TraceMap


def blocks_of(site, page: Page) -> dict[str, Block]:
    """The output blocks of live output by identifier (shared/block_ids.py): CPU, and CUDA when
    this build ran it."""
    blocks: dict[str, Block] = {}
    for index, inc in enumerate(page.includes):
        for device in (CPU, CUDA) if inc.cuda else (CPU,):
            if site.results.has(device, page.path):
                output = site.results.output(device, page.path, inc.sections)
                if output:
                    blocks[block_ids.output_block(index, device)] = Block(
                        inc, output, site.results.trace_map(device, page.path, inc.sections))
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
