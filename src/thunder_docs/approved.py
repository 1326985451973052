"""Approved outputs: what each page printed, kept in the repository, one file per page and device.

A build compares what the sections print now with the approved output for the same device.
A difference fails the build with a unified diff and the command that accepts the new output.
A CPU build also reads the approved CUDA output, to show it, labelled, in a CUDA tab.

File layout: ``snippets/approved/<device>/<page>.txt``, for example
``snippets/approved/cpu/first_trace.txt``. A header of ``# key: value`` lines records where
the output was made (device, Python, thunder, torch, nvFuser); then one block per section.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import platform
import re
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

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


def path_for(root: Path, page: str, device: str) -> Path:
    name = page.removeprefix("docs/").removesuffix(".md")
    return root / "snippets" / "approved" / device / f"{name}.txt"


def provenance(device: str) -> dict[str, str]:
    """Where output is being made, read without importing torch or thunder."""
    return {
        "device": device,
        "python": platform.python_version(),
        "thunder": _version("lightning-thunder"),
        "torch": _torch_version(),
        "nvfuser": _nvfuser_version(),
    }


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _torch_version() -> str:
    """torch's full version with its build tag (2.8.0+cu128), from torch/version.py."""
    spec = find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return "not installed"
    text = (Path(next(iter(spec.submodule_search_locations))) / "version.py").read_text()
    match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", text, re.M)
    return match.group(1) if match else _version("torch")


def _nvfuser_version() -> str:
    for dist in importlib.metadata.distributions():
        name = (dist.metadata["Name"] or "").lower()
        if name.startswith("nvfuser"):
            return f"{dist.version} ({name})"
    return "not installed"


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
