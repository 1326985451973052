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

import io
import os
import sys
import tokenize
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .normalize import normalize
from .trace_map import Line, Name, Step, Trace, TraceMap, Walk

_SUFFIX = 16  # a labelled line must end with at least this much of a trace line


@dataclass
class _Info:
    """What made one recorded line."""

    kind: str  # "op", "source" or "signature"
    bsym: Any = None
    depth: int = 0


@dataclass
class _Recording:
    raw: list[str]  # the lines as Thunder made them
    infos: list[_Info | None]
    trace: Any  # the TraceCtx, or None for a bound symbol printed on its own
    printed: int  # bytes of standard output printed before it was made
    norm: list[str] = field(default_factory=list)  # each line normalized as the output is


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
        self.recordings: list[_Recording] = []
        self.lists: list[list] = []  # lists returned by thunder.last_traces in this section
        self.walked: set[tuple[int, ...]] = set()
        self.scopes: list[Any] = []  # names sets seen on this page, in order: a scope is an index
        self._stack: list[_Frame] = []
        self._target: list[_Recording] | None = None

    # -- wrapping ----------------------------------------------------------------------------
    def install(self) -> bool:
        """Wrap the printers once Thunder is imported (a page without Thunder has no traces)."""
        if self.installed or "thunder" not in sys.modules:
            return self.installed
        import thunder
        from thunder.core.symbol import BoundSymbol
        from thunder.core.trace import TraceCtx

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
        infos: list[_Info | None]
        if own < 0:
            infos = [None] * len(lines)
        else:
            infos = [_Info("op", bsym, 0)] * own
            for _, c_infos in frame.items:
                infos += [_Info(i.kind, i.bsym, i.depth + 1) if i else None for i in c_infos]
        if parent is None:
            self._record(_Recording(list(lines), infos, None, self.printed()))
        elif parent.trace is not None:
            parent.items.append((bsym, list(lines), infos))
        else:
            parent.items.append((list(lines), infos))

    def _trace_done(self, trc, text: str, frame: _Frame) -> None:
        raw = text.split("\n")
        self._record(_Recording(raw, _align(trc, raw, frame.items), trc, self.printed()))

    def _record(self, recording: _Recording) -> None:
        (self._target if self._target is not None else self.recordings).append(recording)

    def _norm(self, text: str) -> str:
        return normalize(text, self.root) if self.normalized else text

    # -- one section ---------------------------------------------------------------------------
    def start(self) -> None:
        self.install()
        self.recordings, self.lists = [], []

    def finish_file(self, out: Path) -> tuple[TraceMap, str]:
        """The map of the section's output file, and a problem to report (the page builds without a map)."""
        try:
            return self.finish(out.read_bytes()), ""
        except Exception:  # a map that cannot be made must not fail the page; the log says why
            return TraceMap(), "thunder_docs: could not map the printed traces:\n" + traceback.format_exc()

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
        matches = _match(out, recordings, self._norm)
        trace_map = self._map(out, recordings, matches)
        walk = self._walk(lists)
        return TraceMap(trace_map.traces, trace_map.lines, (walk,) if walk else ())

    def _map(self, out: list[str], recordings: list[_Recording], matches: dict[int, tuple[int, int, int]]) -> TraceMap:
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
            lines += _definitions([_line(i, traces[r], rec, j, col, self._norm) for i, j, col in shown])
        lines.sort(key=lambda x: x.line)
        return TraceMap(tuple(trace_list), tuple(lines))

    def _trace(self, rec: _Recording, infos: list[_Info | None]) -> Trace:
        proxies: dict[str, str] = {}
        for info in infos:
            if info is not None and info.bsym is not None:
                for proxy in (*_proxies(info.bsym, "flat_proxy_outs"), *_proxies(info.bsym, "flat_proxy_args")):
                    proxies.setdefault(proxy.name, _annotation(proxy))
        trc = rec.trace
        if trc is None:
            return Trace(-1, "", (), dict(sorted(proxies.items())))
        for name, _ in _signature(trc):
            proxy = _param(trc, name)
            if proxy is not None:
                proxies.setdefault(name, _annotation(proxy))
        tags = tuple(sorted(str(tag).rpartition(".")[2] for tag in getattr(trc, "tags", ())))
        return Trace(self._scope(trc), _function(trc), tags, dict(sorted(proxies.items())),
                     _saved(trc) if "AUGMENTED_FORWARD" in tags else ())

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
        title = self._norm(provenance.pss) if provenance is not None else ""
        return Step(title, "\n".join(rec.norm), tuple(_definitions([_line(j, 0, rec, j, 0, self._norm) for j, _ in shown])),
                    self._trace(rec, [info for _, info in shown]))


def _printed() -> int:
    """Bytes written to standard output so far (the section's output goes to a file)."""
    try:
        sys.stdout.flush()
        return os.fstat(1).st_size
    except (OSError, ValueError):
        return 0


# -- aligning a trace's text with the bound symbols that printed it ---------------------------------
def _align(trc, raw: list[str], groups: list) -> list[_Info | None]:
    """Per line of a printed trace: the bound symbol that printed it, its source comment, its signature.

    ``groups`` are the top-level bound symbols in order, each with the lines it printed
    (TraceCtx.python prints a header, then each one's lines, with a source comment before
    a bound symbol whose source line differs from the one before it).
    """
    infos: list[_Info | None] = [None] * len(raw)
    cursor, first = 0, None
    filename = lineno = None
    for bsym, lines, b_infos in groups:
        position = _find(raw, lines, cursor) if lines else cursor
        if position is None:
            break
        where = _source(bsym)
        if where and where != (filename, lineno) and position - 1 >= cursor and raw[position - 1].lstrip().startswith("#"):
            infos[position - 1] = _Info("source", bsym, 0)
        filename, lineno = (bsym.source_filename, bsym.source_positions and bsym.source_positions.lineno)
        if lines:
            first = position if first is None else first
            infos[position:position + len(lines)] = b_infos
            cursor = position + len(lines)
    end = first if first is not None else len(raw)
    signature = next((k for k in range(end - 1, -1, -1) if raw[k].startswith("def ")), None)
    if signature is not None:
        infos[signature] = _Info("signature", None, 0)
    return infos


def _find(raw: list[str], lines: list[str], start: int) -> int | None:
    n = len(lines)
    for k in range(start, len(raw) - n + 1):
        if raw[k] == lines[0] and raw[k:k + n] == lines:
            return k
    return None


def _source(bsym) -> tuple[str, int] | None:
    positions = bsym.source_positions
    if bsym.source_filename is None or positions is None or positions.lineno is None:
        return None
    return bsym.source_filename, positions.lineno


def _shown_source(where: tuple[str, int] | None, norm) -> str:
    """``file:line`` as the page shows it (normalized), or "" for a file of no fixed place (a
    notebook kernel's temporary cell file): a machine's path never reaches the page."""
    if where is None:
        return ""
    shown = norm(f"{where[0]}:{where[1]}")
    return "" if shown.startswith("/") else shown


# -- matching the output's lines to recorded lines -------------------------------------------------
def _key(line: str) -> str:
    return " ".join(line.split())


def _match(out: list[str], recordings: list[_Recording], norm) -> dict[int, tuple[int, int, int]]:
    """Output line -> (recording, its line, column where the trace's text starts)."""
    exact: dict[str, list[tuple[int, int]]] = {}
    ends: dict[str, list[tuple[int, int]]] = {}
    for r, rec in enumerate(recordings):
        for j, line in enumerate(rec.norm):
            if line.strip():
                exact.setdefault(_key(line), []).append((r, j))
                if len(line) >= _SUFFIX and "\t" not in rec.raw[j]:
                    ends.setdefault(line[-_SUFFIX:], []).append((r, j))

    def fits(i: int, r: int, j: int, diff: bool) -> bool:
        """Output line i shows recorded line j of r (after a diff's prefix, when diff)."""
        rec = recordings[r]
        if j >= len(rec.raw) or rec.printed > i:
            return False
        line = out[i]
        if not diff:
            return line == rec.norm[j]
        if not rec.raw[j].strip():
            return line == ""  # a blank line of a diff: " ", then stripped
        return line[:1] in ("+", "-", " ") and norm(line[0] + rec.raw[j]) == line

    matches: dict[int, tuple[int, int, int]] = {}
    i = 0
    while i < len(out):
        best = None  # (run, printed, recording, line, prefix)
        candidates = [(r, j, False) for r, j in exact.get(_key(out[i]), [])]
        if out[i][:1] in "+- " and len(out[i]) > 1:
            candidates += [(r, j, True) for r, j in exact.get(_key(out[i][1:]), [])]
        for r, j, prefix in candidates:
            run = 0
            while i + run < len(out) and fits(i + run, r, j + run, prefix):
                run += 1
            if run and any(recordings[r].infos[j + k] for k in range(run)):
                score = (run, recordings[r].printed, r)
                if best is None or score > best[0]:
                    best = (score, r, j, prefix)
        if best is not None:
            (run, _, _), r, j, prefix = best
            for k in range(run):
                if recordings[r].infos[j + k] is not None:
                    matches[i + k] = (r, j + k, 1 if prefix else 0)
            i += run
            continue
        tail = out[i][-_SUFFIX:]
        labelled = [(recordings[r].printed, r, j) for r, j in ends.get(tail, [])
                    if recordings[r].printed <= i and recordings[r].infos[j] is not None
                    and len(out[i]) > len(recordings[r].norm[j]) and out[i].endswith(recordings[r].norm[j])]
        if labelled:
            _, r, j = max(labelled)
            matches[i] = (r, j, len(out[i]) - len(recordings[r].norm[j]))
        i += 1
    return matches


# -- what a line means ---------------------------------------------------------------------------------
def _proxies(bsym, attribute: str) -> list:
    try:
        return [p for p in getattr(bsym, attribute) if hasattr(p, "name")]
    except Exception:  # a bound symbol whose arguments cannot be flattened: no names
        return []


def _names_of(bsym, attribute: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.name for p in _proxies(bsym, attribute)))


def _annotation(proxy) -> str:
    try:
        return proxy.type_string()
    except Exception:
        return type(proxy).__name__


def _signature(trc) -> list[tuple[str, Any]]:
    try:
        si = trc.siginfo()
    except Exception:
        return []
    params = list(si.args)
    if si.varargs:
        params.append(si.varargs)
    if si.varkwargs:
        params.append(si.varkwargs)
    params += list(si.kwargs.items())
    return [(name, value) for name, value in params]


def _param(trc, name: str):
    for bsym in trc.bound_symbols:
        for proxy in _proxies(bsym, "flat_proxy_outs"):
            if proxy.name == name:
                return proxy
    return None


def _function(trc) -> str:
    try:
        return trc.siginfo().name
    except Exception:
        return ""


def _saved(trc) -> tuple[str, ...]:
    """A forward trace returns (result, (saved tensors, saved non-tensors)): the saved tensors' names."""
    try:
        from thunder.core.pytree import tree_flatten

        saved = trc.bound_symbols[-1].args[1][0]
        return tuple(dict.fromkeys(p.name for p in tree_flatten(saved)[0] if hasattr(p, "name")))
    except Exception:
        return ()


def _definitions(lines: list[Line]) -> list[Line]:
    """The lines of one trace, each name's definition marked: its first occurrence in the lines
    of the shallowest bound symbol whose outputs hold it."""
    best: dict[str, tuple[int, int, int]] = {}  # name -> (depth, position in lines, position in names)
    for k, line in enumerate(lines):
        for n, name in enumerate(line.names):
            if line.kind == "op" and name.name in line.defines:
                best[name.name] = min(best.get(name.name, (line.depth, k, n)), (line.depth, k, n))
    marked = {(k, n) for _, k, n in best.values()}
    return [replace(line, names=tuple(replace(name, defines=(k, n) in marked) for n, name in enumerate(line.names)))
            if any(k == m for m, _ in marked) else line for k, line in enumerate(lines)]


def _line(i: int, trace: int, rec: _Recording, j: int, col: int, norm) -> Line:
    info = rec.infos[j]
    text = rec.norm[j]
    if info.kind == "signature":
        params = {name for name, _ in _signature(rec.trace)}
        names = tuple(Name(a + col, b + col, n) for a, b, n in _name_tokens(text, params))
        return Line(i, trace, "signature", names=names, col=col)
    bsym = info.bsym
    source = _shown_source(_source(bsym), norm)
    if info.kind == "source":
        return Line(i, trace, "source", source=source, col=col)
    defines, reads = _names_of(bsym, "flat_proxy_outs"), _names_of(bsym, "flat_proxy_args")
    names = [Name(a + col, b + col, name) for a, b, name in _name_tokens(text, {*defines, *reads})]
    executor = getattr(bsym.sym, "executor", None)
    return Line(i, trace, "op", str(bsym.sym.id), getattr(executor, "name", "") or "", source, info.depth,
                defines, reads, tuple(names), col)


def _name_tokens(text: str, wanted: set[str], nested: bool = True) -> list[tuple[int, int, str]]:
    """Where the ``wanted`` names stand in a printed line, found with Python's tokenizer.

    A commented line (a subsymbol, an annotation) is read after its ``#``; names after a dot
    (attributes, ``ltorch.add``) and inside strings are not names of proxies.
    """
    body = text.lstrip(" ")
    offset = len(text) - len(body)
    while body.startswith("#"):
        stripped = body[1:].lstrip(" ")
        offset += len(body) - len(stripped)
        body = stripped
    found: list[tuple[int, int, str]] = []
    previous = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(body).readline):
            if tok.start[0] != 1:
                break
            if tok.type == tokenize.NAME and tok.string in wanted and previous != ".":
                found.append((offset + tok.start[1], offset + tok.end[1], tok.string))
            elif tok.type == tokenize.COMMENT and nested:
                found += [(offset + tok.start[1] + a, offset + tok.start[1] + b, n)
                          for a, b, n in _name_tokens(tok.string, wanted, nested=False)]
            previous = tok.string
    except (tokenize.TokenError, SyntaxError):
        pass  # an unfinished line (a printer that spreads a call over lines): the names before the end
    return found


# -- in a notebook's kernel ------------------------------------------------------------------------------
def kernel_setup_code(root: Path, out: Path) -> str:
    """Code the build runs silently in a notebook's kernel before its cells: each cell's trace map
    is appended to ``out`` (one JSON line per cell that printed trace lines)."""
    return f"from thunder_docs.trace_capture import _kernel_setup; _kernel_setup({str(root)!r}, {str(out)!r})"


def _kernel_setup(root: str, out: str) -> None:
    import json

    from IPython import get_ipython

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
