"""Line maps of printed traces: for each printed line of a trace, the bound symbol it came from.

Made in the page's process by ``page/capture.py``, from the trace objects while they print;
sent with each section's result (``runner.SectionDone``), kept in ``results.SectionResult``
and in the cache; read by ``plugins/traces/plugin.py``, which marks up the output blocks. Plain data
only: nothing here imports torch or thunder.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace


@dataclass(frozen=True)
class Name:
    """A proxy's name inside a printed line: columns ``start..end`` of the line."""

    start: int
    end: int
    name: str
    defines: bool = False  # the definition the page points to (one per name and trace)


@dataclass(frozen=True)
class Line:
    """One printed line of a trace, with what it came from."""

    line: int  # 0-based line of the output
    trace: int  # index into the traces of the same map
    kind: str  # "op" (a bound symbol's line), "source" (a source comment), "signature"
    symbol: str = ""  # the symbol's id: "torch.add", "PrimIDs.ADD"
    executor: str = ""  # the executor that runs it, if any
    source: str = ""  # where the code that made it is: "snippets/first_trace.py:10"
    depth: int = 0  # 0 for a top-level bound symbol, 1 for its subsymbols, ...
    defines: tuple[str, ...] = ()  # names of the bound symbol's flat_proxy_outs
    reads: tuple[str, ...] = ()  # names of its flat_proxy_args
    names: tuple[Name, ...] = ()
    col: int = 0  # where the trace's text starts in the printed line (a diff's "+", a label)


@dataclass(frozen=True)
class Trace:
    """A printed trace, or a bound symbol printed on its own."""

    scope: int  # traces that share their names (one compilation) share a scope; -1: unknown
    function: str = ""  # the printed function: "computation", "backward_fn"; "" for a bound symbol
    tags: tuple[str, ...] = ()  # trace tags: "AUGMENTED_FORWARD", "BACKWARD"
    proxies: dict[str, str] = field(default_factory=dict)  # name -> its annotation ("cpu f32[3, 3]")
    saved: tuple[str, ...] = ()  # a forward trace: the tensors it saves for the backward


@dataclass(frozen=True)
class Step:
    """One trace of a ``thunder.last_traces`` list, printed as ``print(trc)`` prints it."""

    title: str  # the pass that made it (its provenance), or "" for the interpreter's trace
    text: str
    lines: tuple[Line, ...]
    trace: Trace


@dataclass(frozen=True)
class Walk:
    """The traces of one ``thunder.last_traces`` list, in order: what the pass stepper shows."""

    steps: tuple[Step, ...]


@dataclass(frozen=True)
class TraceMap:
    """What a section's output shows of traces: its trace lines, the traces they belong to,
    and the ``last_traces`` lists the section walked through."""

    traces: tuple[Trace, ...] = ()
    lines: tuple[Line, ...] = ()
    walks: tuple[Walk, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.lines or self.walks)

    def to_json(self) -> dict:
        """Plain data for the cache (a line leaves out the fields it has at their default)."""
        return {"traces": [asdict(t) for t in self.traces], "lines": [_line_json(x) for x in self.lines],
                "walks": [{"steps": [{"title": s.title, "text": s.text, "lines": [_line_json(x) for x in s.lines],
                                      "trace": asdict(s.trace)} for s in w.steps]} for w in self.walks]}

    @classmethod
    def from_json(cls, data: dict) -> TraceMap:
        return cls(tuple(_trace(t) for t in data["traces"]), tuple(_line(x) for x in data["lines"]),
                   tuple(Walk(tuple(Step(s["title"], s["text"], tuple(_line(x) for x in s["lines"]), _trace(s["trace"]))
                                    for s in w["steps"])) for w in data["walks"]))

    def shifted(self, lines: int, traces: int) -> TraceMap:
        """The same map for an output that starts ``lines`` lines and ``traces`` traces later."""
        return replace(self, lines=tuple(replace(x, line=x.line + lines, trace=x.trace + traces) for x in self.lines))


def join(maps: list[tuple[TraceMap, int]]) -> TraceMap:
    """One map for outputs joined into one block: each map with the line its output starts at."""
    traces: list[Trace] = []
    lines: list[Line] = []
    walks: list[Walk] = []
    for trace_map, first_line in maps:
        shifted = trace_map.shifted(first_line, len(traces))
        traces += trace_map.traces
        lines += shifted.lines
        walks += trace_map.walks
    return TraceMap(tuple(traces), tuple(lines), tuple(walks))


def _trace(data: dict) -> Trace:
    return Trace(data["scope"], data["function"], tuple(data["tags"]), dict(data["proxies"]), tuple(data["saved"]))


_DEFAULTS = {"kind": "op", "symbol": "", "executor": "", "source": "", "depth": 0, "defines": (), "reads": (),
             "names": (), "col": 0}


def _line_json(line: Line) -> dict:
    data = {"line": line.line, "trace": line.trace}
    for key, default in _DEFAULTS.items():
        value = getattr(line, key)
        if value != default:
            data[key] = [[n.start, n.end, n.name, n.defines] for n in value] if key == "names" else value
    return data


def _line(data: dict) -> Line:
    values = {**_DEFAULTS, **data}
    return Line(**{**values, "defines": tuple(values["defines"]), "reads": tuple(values["reads"]),
                   "names": tuple(Name(*n) for n in values["names"])})
