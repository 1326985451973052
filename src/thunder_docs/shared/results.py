"""What executing the pages produced: section results, per page and device, and build stats."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from thunder_docs.shared.sections import Section
from thunder_docs.shared.trace_map import TraceMap, join

CPU, CUDA = "cpu", "cuda"


@dataclass(frozen=True)
class SectionResult:
    section: Section
    output: str  # normalized standard output, as the page shows it
    stderr: str
    seconds: float
    graphs: tuple[tuple[str, str], ...] = ()  # (expression, Mermaid dataflow graph), for graph=
    traces: TraceMap = field(default_factory=TraceMap)  # which bound symbol printed each trace line


@dataclass
class Results:
    """Each device's results: page path -> section name -> result."""

    by_device: dict[str, dict[str, dict[str, SectionResult]]] = field(
        default_factory=lambda: {CPU: {}, CUDA: {}})

    def add(self, device: str, page: str, results: list[SectionResult]) -> None:
        self.by_device.setdefault(device, {})[page] = {r.section.name: r for r in results}

    def has(self, device: str, page: str) -> bool:
        return page in self.by_device.get(device, {})

    def output(self, device: str, page: str, sections: list[Section]) -> str:
        """The outputs of ``sections`` on ``device``, joined as one block (empty ones left out)."""
        results = self.by_device[device][page]
        return "\n".join(o for s in sections if (o := results[s.name].output))

    def graphs(self, device: str, page: str, section: Section) -> tuple[tuple[str, str], ...]:
        return self.by_device[device][page][section.name].graphs

    def trace_map(self, device: str, page: str, sections: list[Section]) -> TraceMap:
        """The trace map of :meth:`output`'s block: each section's map, moved to where its output starts."""
        results = self.by_device[device][page]
        maps, line = [], 0
        for s in sections:
            if results[s.name].output:
                maps.append((results[s.name].traces, line))
                line += results[s.name].output.count("\n") + 1
        return join(maps)

    def outputs(self, device: str, page: str, names: list[str]) -> list[tuple[str, str]]:
        """(section name, output) of each named section, in the order given."""
        results = self.by_device[device][page]
        return [(name, results[name].output) for name in names]


@dataclass(frozen=True)
class ExecutionStats:
    """One execution round: the pages of one device, or one notebook."""

    device: str
    executed: int  # sections executed
    reused: int  # sections taken from the cache
    wall_seconds: float
    section_seconds: float  # the sum of each executed section's time
    page_seconds: dict[str, float]  # executed page (or notebook) -> its sections' time
    notebook: str | None = None


@dataclass
class BuildStats:
    """Every execution round of one build; written where the ``stats_file`` option says."""

    runs: list[ExecutionStats] = field(default_factory=list)

    @property
    def executed(self) -> int:
        return sum(r.executed for r in self.runs)

    @property
    def section_seconds(self) -> float:
        return sum(r.section_seconds for r in self.runs)

    def page_seconds(self) -> dict[str, float]:
        return {page: s for run in self.runs for page, s in run.page_seconds.items()}

    def write(self, path: Path) -> None:
        path.write_text(json.dumps([asdict(r) for r in self.runs], indent=2))

    @classmethod
    def read(cls, path: Path) -> BuildStats:
        if not path.exists():
            return cls()
        return cls([ExecutionStats(**run) for run in json.loads(path.read_text())])
