"""The messages a page's process sends to the build, one per event (read by ``plugins/exec/runner.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from thunder_docs.shared.trace_map import TraceMap


@dataclass(frozen=True)
class Ready:
    """The process started; warnings raised while importing the preloaded modules."""

    preload_warnings: list[str]
    forkserver: int = 0  # the process it was forked from, which is handed what a page leaves when it dies


@dataclass(frozen=True)
class SectionDone:
    seconds: float
    stderr: str
    graphs: tuple[tuple[str, str], ...] = ()  # (expression, Mermaid dataflow graph) drawn after it
    traces: TraceMap = field(default_factory=TraceMap)  # which bound symbol printed each trace line


@dataclass(frozen=True)
class SectionFailed:
    seconds: float
    stderr: str
    line: int  # the innermost line of the snippet file in the traceback
    summary: str  # the exception, one line
    details: str  # the traceback, paths relative to the repository
