"""Reuse a section's output only when nothing that could change it has changed.

A section's key hashes:

- the code it runs in: every section of the page up to and including this one, each with
  its file, name and first line (line numbers show up in Thunder's source-line comments) and
  every exec option of the include that shows it (shared/exec_options.py: the whole object,
  so a new option is in the key without adding it here);
- the environment: the versions of Python, thunder, torch, nvFuser and triton (versions.py), the device, and the
  environment variables that can change what Thunder prints;
- the build code that shapes output (normalize.py) or maps its traces (page/capture.py,
  shared/trace_map.py), so a new normalization or trace map re-executes.

Nothing here imports torch or thunder: versions come from package metadata, the device
from the GPU driver's files, so a build whose outputs are all cached starts no worker.
Entries are written to a temporary file and renamed into place, so two builds sharing
a cache never read a half-written entry.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from thunder_docs.shared.code_digest import digest_of, loaded_digest
from thunder_docs.shared.exec_options import ExecOptions
from thunder_docs.shared.files import JsonStore, digest
from thunder_docs.shared.results import SectionResult
from thunder_docs.shared.sections import Section
from thunder_docs.shared.trace_map import TraceMap
from thunder_docs.shared.versions import package_versions

# Environment variables whose value can change what a section prints (the build's own
# THUNDER_DOCS_* settings excepted: the device a page runs on is part of the key anyway).
# PYTHONHASHSEED is not among them: every worker runs with PYTHONHASHSEED=0.
ENV_PREFIXES = ("THUNDER_", "TORCH_", "NVFUSER_", "PYTORCH_", "CUDA_", "OMP_", "MKL_")


@dataclass(frozen=True)
class CachedOutput:
    output: str
    stderr: str
    seconds: float
    traces: dict  # TraceMap.to_json(); an entry made before trace maps has none and is a miss
    graphs: list[list[str]] = field(default_factory=list)  # [expression, Mermaid text], for graph=

    @classmethod
    def of(cls, result: SectionResult) -> CachedOutput:
        return cls(result.output, result.stderr, result.seconds, result.traces.to_json(),
                   [list(g) for g in result.graphs])

    def result(self, section: Section) -> SectionResult:
        return SectionResult(section, self.output, self.stderr, self.seconds,
                             graphs=tuple(tuple(g) for g in self.graphs), traces=TraceMap.from_json(self.traces))


@cache
def device_name() -> str:
    """The GPU's name when an NVIDIA driver is present, else "cpu"; no torch import."""
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) == "" or not shutil.which("nvidia-smi"):
        return "cpu"
    try:
        names = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return "cpu"
    return names[0].strip() or "cpu"


def relevant_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    environ = os.environ if environ is None else environ
    return {k: v for k, v in sorted(environ.items())
            if k.startswith(ENV_PREFIXES) and not k.startswith("THUNDER_DOCS_")}


# The code that runs in a page's process (imported by the forkserver it is forked from).
PAGE_CODE = ("thunder_docs.page.worker", "thunder_docs.page.preload")


def page_code_digest() -> str:
    """The code a page's process would run if it started now, as the files are."""
    return digest_of(*PAGE_CODE)


def _build_code_digest(page_code: str | None = None) -> str:
    """The code that runs a page and shapes what it printed: the page process's code (``page_code``,
    the digest of what the running forkserver imported; by default, the files as they are), and the
    runner that starts it and reads its output, as this process imported it."""
    return digest(page_code or page_code_digest(), loaded_digest("thunder_docs.plugins.exec.runner"))


def fingerprint(device: str, environ: dict[str, str] | None = None, versions: dict[str, str] | None = None,
                page_code: str | None = None) -> dict:
    """Everything outside the page's code that a section's output depends on (``page_code``: the
    digest of the code the page processes run, Runner.page_code)."""
    return {
        "versions": package_versions() if versions is None else versions,
        "device": device,
        "env": relevant_env(environ),
        "build": _build_code_digest(page_code),
    }


def section_keys(sections: list[Section], context: dict, options: list[ExecOptions] | None = None,
                 root: Path | None = None) -> list[str]:
    """One key per section, each covering the code of every section up to it, the exec options of
    the include that shows each (``options``: one per section; by default, none set) and the content
    of the files its ``reads`` option names (relative to ``root``, the folder of mkdocs.yml)."""
    options = [ExecOptions()] * len(sections) if options is None else options
    key = digest("sections", json.dumps(context, sort_keys=True))
    keys = []
    for section, opts in zip(sections, options, strict=True):
        key = digest(key, section.path, section.name, str(section.start_line), section.code, opts.key(),
                     *(read_file(root or Path.cwd(), path, section) for path in opts.reads),
                     *(digest_of(module) for module in opts.runs))
        keys.append(key)
    return keys


class ReadFileMissing(FileNotFoundError):
    """A file that an include's ``reads`` option names is not there."""


def read_file(root: Path, path: str, section: Section) -> bytes:
    """The content of a file a section reads (its include's ``reads`` option)."""
    try:
        return (root / path).read_bytes()
    except FileNotFoundError:
        raise ReadFileMissing(f"{section.path}: section '{section.name}' reads {path} (its include's reads "
                              "option), which does not exist") from None


class OutputCache(JsonStore):
    """Section outputs by key (see :func:`section_keys`)."""

    def get(self, key: str) -> CachedOutput | None:
        data = super().get(key)
        try:
            return CachedOutput(**data) if data is not None else None
        except (TypeError, KeyError):  # an entry of another shape: a miss, not a crash
            return None

    def put(self, key: str, value: CachedOutput) -> None:
        super().put(key, asdict(value))
