"""What the explorer page shows, read from the objects a run left: functions, compilations, traces.

Each trace is printed as ``print(trc)`` prints it, under the site's capture (``page/capture.py``),
so every printed line keeps the bound symbol it came from: the names it defines and reads, its
symbol, executor and source line. One capture serves a whole run, so the traces of one
compilation share a scope, as on the site. Timings come from each trace's provenance
("Dead Code Elimination (took 3 milliseconds)"); executors from each bound symbol of the
traces that run.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thunder_docs.explain.collect import Asked, Collected
from thunder_docs.explain.frames import Chain, Noted, chains_of
from thunder_docs.explain.memory import Memory, memory
from thunder_docs.explain.recompile import Rejected, graph_reasons
from thunder_docs.page.capture import Recorder, UnmappedTraces
from thunder_docs.page.normalize import normalize
from thunder_docs.shared.trace_map import TraceMap

STEPPER_LIMIT = 3000  # bound symbols over a list's traces: above it, no pass stepper (its diffs grow too slow)
TOOK = re.compile(r"\s*\(took (\d+) milliseconds\)\s*$")


@dataclass
class Block:
    """One printed trace: its title, the text as shown, and the map of its lines."""

    title: str
    text: str
    trace_map: TraceMap
    stepper: bool = False  # the block carries the pass stepper of its list of traces
    chains: dict[int, Chain] = field(default_factory=dict)  # line -> frames from the user's line (frames.py)


@dataclass
class Executed:
    """A line of a trace that runs: what it calls, the executor that runs it, a fusion's members."""

    outputs: str
    symbol: str
    executor: str
    members: tuple[str, ...] = ()
    declined: tuple[str, ...] = ()  # "executor: why", for each executor that was asked and declined


@dataclass
class Compilation:
    blocks: list[Block]
    passes: list[tuple[str, str, int | None]]  # (which list, pass, milliseconds)
    executed: dict[str, list[Executed]]  # "computation", "backward": their lines
    why: list[Rejected] = field(default_factory=list)  # after a function's first: each earlier one's failed check
    memory: dict[str, Memory] = field(default_factory=dict)  # "computation", "backward": bytes alive per line


@dataclass
class Function:
    title: str
    calls: int
    hits: int
    misses: int
    compilations: list[Compilation]
    # cache="no caching": Thunder keeps no cache entry, only the traces of the last call's compilation
    last_call_only: bool = False


@dataclass
class Part:
    name: str  # thunder_0, inductor_1
    runs_on: str  # "Thunder" or "fallback (torch.compile's Inductor)"


@dataclass
class Graph:
    """One FX graph ThunderFX got from TorchDynamo: how it was split, and why."""

    index: int
    nodes: int
    parts: list[Part]
    reasons: list[tuple[str, str, str]]  # (type, info, exception)
    made: str = ""  # why TorchDynamo made this graph (recompile.graph_reasons)


@dataclass
class Report:
    script: str
    functions: list[Function] = field(default_factory=list)
    graphs: list[Graph] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # the user's files the traces point to

    @property
    def compilations(self) -> int:
        return sum(len(f.compilations) for f in self.functions)


class _Printer:
    """Prints traces into a buffer under one Recorder (so scopes hold across the whole run)."""

    def __init__(self, root: Path, frames: Noted | None = None):
        self.root = root
        self.frames = frames
        self.buffer = bytearray()
        self.recorder = Recorder(root, printed=lambda: len(self.buffer))
        self.recorder.install()

    def block(self, title: str, trc: Any, walk: list | None = None) -> Block:
        self.recorder.start()
        self.buffer = bytearray()
        text = str(trc)
        self.buffer += text.encode()
        if walk is not None and len(walk) > 1 and sum(len(t.bound_symbols) for t in walk) <= STEPPER_LIMIT:
            self.recorder.lists = [walk]
        try:
            trace_map = self.recorder.finish(bytes(self.buffer))
        except UnmappedTraces as unmapped:  # the page shows this trace plain, and the terminal says why
            print(f"thunder-explain: warning: {title}: {str(unmapped).splitlines()[0]}", file=sys.stderr)
            trace_map = TraceMap()
        return Block(title, normalize(text, self.root).rstrip("\n"), trace_map, stepper=bool(trace_map.walks),
                     chains=chains_of(trc, trace_map.lines, self.frames))


def _passes(which: str, traces: list) -> list[tuple[str, str, int | None]]:
    found = []
    for trc in traces:
        provenance = trc.get_provenance()
        if provenance is None:
            continue
        text = getattr(provenance, "pss", provenance)  # ThunderFX's prologue pass sets a plain string
        text = str(text).removeprefix("# Constructed by ")
        match = TOOK.search(text)
        found.append((which, TOOK.sub("", text), int(match.group(1)) if match else None))
    return found


def _executed(trc: Any, declined: dict[tuple[str, ...], list[tuple[str, str]]]) -> list[Executed]:
    """Each line of a trace that runs, with the answers of the executors that declined what it
    computes (for a fusion region, what its members compute)."""
    rows = []
    for bsym in trc.bound_symbols:
        sym = bsym.sym
        outputs = ", ".join(p.name for p in bsym.flat_proxy_outs) or "-"
        executor = getattr(sym.executor, "name", "") if sym.executor is not None else ""
        fusion = getattr(sym, "is_fusion", False)
        members = tuple(sub.sym.name for sub in bsym.subsymbols) if fusion else ()
        asked = [bsym] + (list(bsym.subsymbols) if fusion else [])
        answers = dict.fromkeys(f"{name}: {why}" for b in asked
                                for name, why in declined.get(tuple(p.name for p in b.flat_proxy_outs), ()))
        rows.append(Executed(outputs, str(sym.id) if not isinstance(sym.id, str) else sym.id, executor, members,
                             tuple(answers)))
    return rows


def _declined(asked: list[Asked], computation_traces: list) -> dict[tuple[str, ...], list[tuple[str, str]]]:
    """The executors' answers noted while Thunder made one compilation (by its computation traces)."""
    found: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for entry in asked:
        if entry.compilation is computation_traces:
            for outputs, reasons in entry.renamed().items():
                known = found.setdefault(outputs, [])
                known += [r for r in reasons if r not in known]
    return found


def _compilation(printer: _Printer, entry: Any, number: int, asked: list[Asked]) -> Compilation:
    blocks = []
    # The traces that compute first (what a reader looks for), then the checks around them.
    lists = (("computation", entry.computation_traces), ("backward", entry.backward_traces),
             ("prologue", entry.prologue_traces), ("epilogue", entry.epilogue_traces))
    for which, traces in lists:
        if traces:
            title = f"the {which} trace that runs (the last of {len(traces)})"
            walk = traces if which in ("computation", "backward") else None
            blocks.append(printer.block(title, traces[-1], walk=walk))
    passes = [p for which, traces in lists if traces for p in _passes(which, traces)]
    declined = _declined(asked, entry.computation_traces)
    executed = {which: _executed(traces[-1], declined)
                for which, traces in lists if traces and which in ("computation", "backward")}
    memories = {which: memory(traces[-1], forward=which == "computation" and bool(entry.backward_traces))
                for which, traces in lists if traces and which in ("computation", "backward")}
    return Compilation(blocks, passes, executed, memory=memories)


def _function(printer: _Printer, title: str, jfn: Any, collected: Collected) -> Function:
    import thunder

    stats = thunder.compile_stats(jfn)
    entries = list(stats.interpreter_cache)
    last_call_only = not entries and bool(stats.last_traces)
    if last_call_only:  # cache="no caching" compiles each call and keeps only the last call's traces
        entries = [_LastCall(stats)]
    compilations = [_compilation(printer, entry, k + 1, collected.asked) for k, entry in enumerate(entries)]
    for miss in collected.misses if not last_call_only else ():
        if miss.stats is stats and miss.compilation <= len(compilations):
            compilations[miss.compilation - 1].why = miss.rejected
    return Function(title, stats.calls, stats.cache_hits, stats.cache_misses, compilations, last_call_only)


class _LastCall:
    """The traces Thunder keeps of the last call when it caches nothing, read as a cache entry's
    (``thunder.compile_stats``: ``last_traces``, ``last_backward_traces``, ``last_prologue_traces``;
    it keeps no epilogue trace then)."""

    def __init__(self, stats: Any):
        self.computation_traces = list(stats.last_traces or [])
        self.backward_traces = list(stats.last_backward_traces or [])
        self.prologue_traces = list(stats.last_prologue_traces or [])
        self.epilogue_traces = []


def _graphs(collected: Collected) -> tuple[list[Graph], list[tuple[str, Any]]]:
    """Each FX graph of each ThunderFX backend, and its Thunder parts' functions with their titles."""
    graphs, parts = [], []
    for backend in collected.backends:
        made = graph_reasons(collected.fx_causes.get(id(backend), []))
        for at, info in enumerate(backend.subgraph_infos):
            index = len(graphs) + 1
            split = info.split_graph_module
            children = [name for name, _ in split.named_children()] if split is not None else []
            graph_parts = [Part(name, "Thunder" if name.startswith("thunder") else "fallback (torch.compile's Inductor)")
                           for name in children]
            reasons = [(r.reason_type.name, r.info or "", r.exception or "") for r in info.split_reasons or ()]
            nodes = sum(1 for n in info.original_graph_module.graph.nodes if n.op == "call_function")
            graphs.append(Graph(index, nodes, graph_parts, reasons, made[at] if at < len(made) else ""))
            thunder_names = [p.name for p in graph_parts if p.runs_on == "Thunder"]
            for k, fn in enumerate(info.thunder_compiled_fns or ()):
                name = thunder_names[k] if k < len(thunder_names) else f"thunder part {k}"
                parts.append((f"ThunderFX graph {index}, part {name}", fn))
    return graphs, parts


def build(collected: Collected, root: Path, script: str, progress=lambda message: None) -> Report:
    """The report of a run, from what ``collect.collecting`` noted."""
    printer = _Printer(root, collected.frames)
    report = Report(script)
    fx_parts = collected.fx_parts()
    report.graphs, parts = _graphs(collected)
    work = [(f"{c.name} (thunder.jit)", c.jfn, collected.frames) for c in collected.functions
            if id(c.jfn) not in fx_parts]
    # A ThunderFX part gets no chains: its frames run through the code FX generates for the graph,
    # which has no source, so the user's frames around it do not tell which line made an operation.
    work += [(title, jfn, None) for title, jfn in parts]
    for title, jfn, frames in work:
        progress(f"reading the traces of {title}")
        printer.frames = frames
        report.functions.append(_function(printer, title, jfn, collected))
    report.sources = _sources(report, root)
    return report


def _sources(report: Report, root: Path) -> dict[str, str]:
    """The user's files that trace lines point to (inside the current folder, not in a package)."""
    paths = sorted({line.source.rpartition(":")[0] for f in report.functions for c in f.compilations
                    for b in c.blocks for line in b.trace_map.lines if line.source}
                   | {frame.path for f in report.functions for c in f.compilations for b in c.blocks
                      for chain in b.chains.values() for frame in chain if frame.yours})
    found = {}
    for path in paths:
        full = (root / path).resolve()
        if full.is_file() and full.is_relative_to(root) and "site-packages" not in full.parts:
            found[path] = full.read_text(encoding="utf-8", errors="replace")
    return found
