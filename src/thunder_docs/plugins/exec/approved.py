"""Approved outputs: what each page printed, kept in the repository, one file per page and device.

A build compares what the sections print now with the approved output for the same device.
A difference fails the build with a unified diff and the command that accepts the new output.
A CPU build also reads the approved CUDA output, to show it, labelled, in a CUDA tab.

File layout: ``<approved_dir>/<device>/<page id>.txt`` (the path comes from the site model), for
example ``snippets/approved/cpu/first_trace.txt``. A header of ``# key: value`` lines records where
the output was made (device, Python, thunder, torch, nvFuser); then one block per section.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from thunder_docs.shared.files import write_atomic
from thunder_docs.shared.results import CPU, CUDA
from thunder_docs.shared.versions import package_versions

if TYPE_CHECKING:
    from thunder_docs.shared.model import Site

UPDATE_COMMAND = "scripts/dev build --update"
_SECTION = re.compile(r"^=== section: (?P<name>\S+) ===$")


@dataclass
class Approved:
    provenance: dict[str, str]
    sections: dict[str, str]

    def label(self) -> str:
        p = self.provenance
        return (f"Recorded on {p.get('device', '?')} with thunder {p.get('thunder', '?')}, "
                f"torch {p.get('torch', '?')}, nvFuser {p.get('nvfuser', '?')}, Python {p.get('python', '?')}")


def provenance(device: str) -> dict[str, str]:
    """Where output is being made: the device and the versions the cache key uses too."""
    versions = package_versions()
    return {"device": device, **{k: versions[k] for k in ("python", "thunder", "torch", "nvfuser")}}


def render_sections(sections: list[tuple[str, str]]) -> str:
    return "".join(f"=== section: {name} ===\n{output}\n" if output else f"=== section: {name} ===\n"
                   for name, output in sections)


def render(page: str, device: str, prov: dict[str, str], sections: list[tuple[str, str]]) -> str:
    header = [f"# Approved output of {page} on {device}. Refresh with: {UPDATE_COMMAND}"]
    header += [f"# {key}: {value}" for key, value in prov.items()]
    return "\n".join(header) + "\n" + render_sections(sections)


def load(path: Path) -> Approved | None:
    if not path.is_file():
        return None
    provenance, sections, current = {}, {}, None
    for line in path.read_text(encoding="utf-8").split("\n"):
        match = _SECTION.match(line)
        if match:
            current = match.group("name")
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
        elif line.startswith("# ") and ": " in line and not line.startswith("# Approved"):
            key, value = line[2:].split(": ", 1)
            provenance[key] = value
    return Approved(provenance, {k: "\n".join(v).rstrip("\n") for k, v in sections.items()})


def drift(path: Path, root: Path, sections: list[tuple[str, str]]) -> str | None:
    """A unified diff from the approved output to the live one, or None when they agree."""
    approved = load(path)
    live = render_sections(sections)
    old = render_sections(list(approved.sections.items())) if approved else ""
    if old == live:
        return None
    shown = path.relative_to(root).as_posix()
    lines = difflib.unified_diff(old.splitlines(keepends=True), live.splitlines(keepends=True),
                                 fromfile=f"{shown} (approved)" if approved else f"{shown} (missing)",
                                 tofile="this build")
    return "".join(lines)


def write_if_changed(path: Path, text: str) -> bool:
    """Write an approved file only when its text changes: ``mkdocs serve`` watches ``snippets/``,
    so rewriting the same text would start another build, without end. Whether it wrote."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    write_atomic(path, text)
    return True


def check(site: Site, machine: str, update: bool) -> list[str]:
    """Compare each device's live output with its approved output (or, with ``update``, store it).

    Returns one problem per page whose output drifted, each with its unified diff.
    """
    problems = []
    for device in (CPU, CUDA):
        for page in site.with_code:
            if not site.results.has(device, page.path):
                continue
            names = [s.name for s in page.sections] if device == CPU else page.cuda_sections
            sections = site.results.outputs(device, page.path, names)
            path = site.approved_path(page, device)
            if update:
                label = CPU if device == CPU else machine
                write_if_changed(path, render(page.path, device, provenance(label), sections))
            elif diff := drift(path, site.root, sections):
                problems.append(f"{page.path}: the output on {device} differs from the approved output:\n{diff}")
    return problems
