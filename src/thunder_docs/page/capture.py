"""Record, while a section runs, which bound symbol printed each line of each trace it prints.

Runs in the page's process (runner.py). ``TraceCtx.python`` and ``BoundSymbol.python``, which
``print(trc)``, ``str(trc)``, ``trc.python()``, ``print(bsym)`` and ``bsym.python()`` all go
through, are wrapped: each call's text is recorded with, per line, the bound symbol that
printed it (and its subsymbol depth), and with how much standard output had been printed
when it was made. The wrappers return what they wrap, unchanged, so the printed text is
byte for byte what Thunder prints.

After the section, each printed line is matched to a recorded line that was made before it
was printed: the same line, the line after a diff's one-character prefix (``+``, ``-``,
`` ``), or the line at the end of a labelled line. Runs of consecutive lines decide between
recordings that print alike, the newest winning a tie. The text only says *which* recorded
line the output shows; what the line means (the names it defines and reads, its symbol,
executor, source line and depth) comes from the bound symbol recorded with it. A line no
recording made stays plain.

``thunder.last_traces`` is wrapped too: the first list of traces a section asks for is
printed trace by trace, as ``print(trc)`` prints it, for the pass stepper.
"""

from __future__ import annotations

import itertools
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from thunder_docs.page import fx_sources
from thunder_docs.page.lines import (
    Info,
    Recording,
    align,
    annotation,
    definitions,
    function_name,
    line_of,
    match_lines,
    param,
    proxies_of,
    saved,
    signature,
)
from thunder_docs.page.normalize import normalize
from thunder_docs.shared import hooks
from thunder_docs.shared.trace_map import Line, Step, Trace, TraceMap, Walk


class _Frame:
    def __init__(self, trace: Any = None):
        self.trace = trace
        self.items: list = []


class Recorder:
    """One per page process: wraps Thunder's printers once, records one section at a time."""

    def __init__(self, root: Path, printed=None, normalized: bool = True):
        self.root = root
        self.printed = printed or _printed  # bytes of standard output printed so far
        self.normalized = normalized  # a page's output is normalized; a notebook's is shown as printed
        self.installed = False
        self.recordings: list[Recording] = []
        self.lists: list[list] = []  # lists returned by thunder.last_traces in this section
        self.walked: set[tuple[int, ...]] = set()
        self.scopes: list[Any] = []  # names sets seen on this page, in order: a scope is an index
        self._stack: list[_Frame] = []
        self._target: list[Recording] | None = None

    # -- wrapping ----------------------------------------------------------------------------
    def install(self) -> bool:
        """Wrap the printers once Thunder is imported (a page without Thunder has no traces), unless
        the hook is off (shared/hooks.py: Thunder's printers changed since it was verified)."""
        if self.installed or "thunder" not in sys.modules or hooks.is_off("capture"):
            return self.installed
        import thunder
        from thunder.core.symbol import BoundSymbol
        from thunder.core.trace import TraceCtx

        fx_sources.install()  # ThunderFX traces' lines link to the user's lines

        trace_python, bsym_python, last_traces = TraceCtx.python, BoundSymbol.python, thunder.last_traces
        recorder = self

        def python(trc, *args, **kwargs):
            frame = _Frame(trc)
            recorder._stack.append(frame)
            try:
                text = trace_python(trc, *args, **kwargs)
            finally:
                recorder._stack.pop()
            recorder._trace_done(trc, text, frame)
            return text

        def bound_python(bsym, *args, **kwargs):
            frame = _Frame()
            parent = recorder._stack[-1] if recorder._stack else None
            recorder._stack.append(frame)
            try:
                lines = bsym_python(bsym, *args, **kwargs)
            finally:
                recorder._stack.pop()
            recorder._bsym_done(bsym, lines, frame, parent)
            return lines

        def last_traces_recorded(fn):
            traces = last_traces(fn)
            recorder.lists.append(traces)
            return traces

        for wrapper, wrapped in ((python, trace_python), (bound_python, bsym_python),
                                 (last_traces_recorded, last_traces)):
            wrapper.__wrapped__, wrapper.__name__, wrapper.__doc__ = wrapped, wrapped.__name__, wrapped.__doc__
        TraceCtx.python, BoundSymbol.python, thunder.last_traces = python, bound_python, last_traces_recorded
        self.installed = True
        return True

    def _bsym_done(self, bsym, lines: list[str], frame: _Frame, parent: _Frame | None) -> None:
        children = sum(len(c_lines) for c_lines, _ in frame.items)
        own = len(lines) - children
        infos: list[Info | None]
        if own < 0:
            infos = [None] * len(lines)
        else:
            infos = [Info("op", bsym, 0)] * own
            for _, c_infos in frame.items:
                infos += [Info(i.kind, i.bsym, i.depth + 1) if i else None for i in c_infos]
        if parent is None:
            self._record(Recording(list(lines), infos, None, self.printed()))
        elif parent.trace is not None:
            parent.items.append((bsym, list(lines), infos))
        else:
            parent.items.append((list(lines), infos))

    def _trace_done(self, trc, text: str, frame: _Frame) -> None:
        raw = text.split("\n")
        self._record(Recording(raw, align(trc, raw, frame.items), trc, self.printed()))

    def _record(self, recording: Recording) -> None:
        (self._target if self._target is not None else self.recordings).append(recording)

    def _norm(self, text: str) -> str:
        return normalize(text, self.root) if self.normalized else text

    # -- one section ---------------------------------------------------------------------------
    def start(self) -> None:
        self.install()
        self.recordings, self.lists = [], []

    def finish_file(self, out: Path) -> TraceMap:
        """The map of the section's output file. A map that cannot be made raises UnmappedTraces:
        the page must not go out with its traces plain while the build says nothing."""
        try:
            return self.finish(out.read_bytes())
        except UnmappedTraces:
            raise
        except Exception as error:
            raise UnmappedTraces("could not map the printed traces to their bound symbols: "
                                 f"{type(error).__name__}: {error}\n{traceback.format_exc()}") from None

    def finish(self, stdout: bytes) -> TraceMap:
        """The map of the output of the section that just ran, from what it printed (raw bytes)."""
        recordings, lists = self.recordings, self.lists
        self.recordings, self.lists = [], []
        if not self.installed:
            return TraceMap()
        text = stdout.decode("utf-8", errors="replace")
        out = self._norm(text).split("\n")
        raw_lines = text.replace("\r\n", "\n").split("\n")
        lead = next((i for i, ln in enumerate(raw_lines) if ln.strip()), 0) if self.normalized else 0
        for rec in recordings:
            rec.norm = [self._norm(ln) for ln in rec.raw]
            rec.printed = max(0, stdout[:rec.printed].count(b"\n") - lead)
        matches = match_lines(out, recordings, self._norm)
        trace_map = self._map(out, recordings, matches)
        _check_mapped(out, recordings, trace_map)
        walk = self._walk(lists)
        return TraceMap(trace_map.traces, trace_map.lines, (walk,) if walk else ())

    def _map(self, out: list[str], recordings: list[Recording], matches: dict[int, tuple[int, int, int]]) -> TraceMap:
        traces: dict[int, int] = {}  # recording -> index of its Trace
        trace_list: list[Trace] = []
        lines: list[Line] = []
        by_recording: dict[int, list[tuple[int, int, int]]] = {}
        for i, (r, j, col) in sorted(matches.items()):
            by_recording.setdefault(r, []).append((i, j, col))
        for r, shown in sorted(by_recording.items(), key=lambda item: item[1][0][0]):
            rec = recordings[r]
            traces[r] = len(trace_list)
            trace_list.append(self._trace(rec, [rec.infos[j] for _, j, _ in shown]))
            lines += definitions([line_of(i, traces[r], rec, j, col, self._norm) for i, j, col in shown])
        lines.sort(key=lambda x: x.line)
        return TraceMap(tuple(trace_list), tuple(lines))

    def _trace(self, rec: Recording, infos: list[Info | None]) -> Trace:
        proxies: dict[str, str] = {}
        for info in infos:
            if info is not None and info.bsym is not None:
                for proxy in (*proxies_of(info.bsym, "flat_proxy_outs"), *proxies_of(info.bsym, "flat_proxy_args")):
                    proxies.setdefault(proxy.name, annotation(proxy))
        trc = rec.trace
        if trc is None:
            return Trace(-1, "", (), dict(sorted(proxies.items())))
        for name, _ in signature(trc):
            proxy = param(trc, name)
            if proxy is not None:
                proxies.setdefault(name, annotation(proxy))
        tags = tuple(sorted(str(tag).rpartition(".")[2] for tag in getattr(trc, "tags", ())))
        return Trace(self._scope(trc), function_name(trc), tags, dict(sorted(proxies.items())),
                     saved(trc) if "AUGMENTED_FORWARD" in tags else ())

    def _scope(self, trc) -> int:
        names = getattr(trc, "names", None)
        for i, seen in enumerate(self.scopes):
            if seen is names:
                return i
        self.scopes.append(names)
        return len(self.scopes) - 1

    def _walk(self, lists: list[list]) -> Walk | None:
        """The first list of traces asked for that no earlier section walked, printed trace by trace."""
        for traces in lists:
            key = tuple(id(t) for t in traces)
            if len(traces) < 2 or key in self.walked:
                continue
            self.walked.add(key)
            return Walk(tuple(self._step(trc) for trc in traces))
        return None

    def _step(self, trc) -> Step:
        self._target = []
        try:
            str(trc)
            rec = self._target[-1]
        finally:
            self._target = None
        rec.norm = [self._norm(ln) for ln in rec.raw]
        shown = [(j, info) for j, info in enumerate(rec.infos) if info is not None]
        provenance = trc.get_provenance()
        # A pass may set a plain string as provenance (ConstantFolding does), not a TraceProvenance.
        text = getattr(provenance, "pss", provenance)
        title = self._norm(str(text).removeprefix("# Constructed by ")) if provenance is not None else ""
        return Step(title, "\n".join(rec.norm), tuple(definitions([line_of(j, 0, rec, j, 0, self._norm) for j, _ in shown])),
                    self._trace(rec, [info for _, info in shown]))


class UnmappedTraces(Exception):
    """The section printed a trace, and none of its lines could be mapped to a bound symbol."""


def _check_mapped(out: list[str], recordings: list[Recording], trace_map: TraceMap) -> None:
    """Fail when the output shows a trace (its signature line and the line after it, as a
    recording of it has them) and no printed line maps to a bound symbol: the capture no longer
    understands Thunder's printer, and the page would show plain text."""
    if any(line.kind == "op" for line in trace_map.lines):
        return
    pairs = set(itertools.pairwise(out))
    for rec in recordings:
        if rec.trace is None:
            continue
        for k, line in enumerate(rec.norm[:-1]):
            if line.startswith("def ") and (line, rec.norm[k + 1]) in pairs:
                raise UnmappedTraces(f"printed a trace ({line.strip()!r} and the line after it are in the output), "
                                     "and no line of it maps to a bound symbol: page/capture.py no longer follows "
                                     "how Thunder prints a trace")


def _printed() -> int:
    """Bytes written to standard output so far (the section's output goes to a file)."""
    try:
        sys.stdout.flush()
        return os.fstat(1).st_size
    except (OSError, ValueError):
        return 0


# -- in a notebook's kernel ------------------------------------------------------------------------------
def kernel_setup_code(root: Path, out: Path, hooks_env: dict[str, str]) -> str:
    """Code the build runs silently in a notebook's kernel before its cells: each cell's trace map
    is appended to ``out`` (one JSON line per cell that printed trace lines); ``hooks_env`` says
    which hooks are off (shared/hooks.py)."""
    return (f"from thunder_docs.page.capture import _kernel_setup; "
            f"_kernel_setup({str(root)!r}, {str(out)!r}, {hooks_env!r})")


def _kernel_setup(root: str, out: str, hooks_env: dict[str, str]) -> None:
    import json

    from IPython import get_ipython

    os.environ.update(hooks_env)
    printed: list[bytes] = []
    recorder = Recorder(Path(root), printed=lambda: sum(map(len, printed)), normalized=False)

    def record_writes(stream) -> None:
        """Keep what the cell prints (the kernel may set up its standard output after this code runs)."""
        if getattr(stream.write, "thunder_docs", False):
            return
        write = stream.write

        def recorded_write(text):
            printed.append(text.encode("utf-8", errors="replace"))
            return write(text)

        recorded_write.thunder_docs = True
        stream.write = recorded_write

    def before(*_):
        record_writes(sys.stdout)
        printed.clear()
        recorder.start()

    def after(result):
        sys.stdout.flush()
        trace_map = recorder.finish(b"".join(printed))
        if trace_map:
            with open(out, "a", encoding="utf-8") as f:
                f.write(json.dumps({"count": result.execution_count, "traces": trace_map.to_json()}) + "\n")

    events = get_ipython().events
    events.register("pre_run_cell", before)
    events.register("post_run_cell", after)
