"""Why a function compiled again: the cache check of each earlier compilation that failed.

Thunder's cache (``thunder.__init__``'s ``jit.get_computation_and_inputs``) runs the prologue of
each cache entry, newest first, on the call's inputs; the first that does not raise is a hit. When
none passes, Thunder traces the function again (``acquire_initial_trace`` calls
``thunder_general_jit``). The explorer replaces ``thunder_general_jit`` while the script runs: when
a function that has cache entries is traced again, it runs each entry's prologue on the same
inputs, as the cache check did, and notes what it raised. The failed check is read from the
objects: the prologue's frame in the traceback gives the line that raised and the values of its
names; the prologue trace's bound symbol on that line gives the check and what it expected.

For ThunderFX, TorchDynamo decides when a new FX graph is made: a guard of an earlier graph
failed (a recompile), or the graph before it ended at a graph break. TorchDynamo keeps both
(``torch._dynamo.utils.guard_failures``, ``graph_break_reasons``); the explorer reads what is new
in them each time the ThunderFX backend is called with a graph.
"""

from __future__ import annotations

import linecache
import traceback
from dataclasses import dataclass, field
from typing import Any

PROLOGUE_FILE = "thunder.prologue"  # baseutils.build_callable names a prologue's code thunder.prologue_N


@dataclass(frozen=True)
class Failed:
    """One failed part of a cache check: the input, the check, what it expected, what it got."""

    input: str  # the prologue's name of the value checked
    check: str  # shape, device, dtype, requires_grad, value, type, length, ...
    expected: str
    given: str
    made_by: str = ""  # the prologue's line that defines the input, when it is not an argument

    def text(self) -> str:
        return f"{self.input}: {self.check} {self.expected} expected, {self.given} given"


@dataclass
class Rejected:
    """An earlier compilation whose prologue rejected the call: its number and what failed."""

    compilation: int  # 1-based, in the cache's order
    line: str  # the prologue's line that raised
    failed: list[Failed]


@dataclass
class Miss:
    """A compilation after a function's first: why each earlier one did not serve the call."""

    stats: Any  # the function's CompileStats (compile_stats(jfn)), which owns the cache
    compilation: int  # the compilation it made, 1-based
    rejected: list[Rejected] = field(default_factory=list)


@dataclass
class Cause:
    """Why TorchDynamo made one FX graph for a ThunderFX backend."""

    guard_failures: list[str]  # the guards of earlier graphs that failed (TorchDynamo's own words)
    graph_breaks: list[tuple[str, str]]  # (reason, where in the user's code): breaks that ended a graph


def _prologue_frame(exc: BaseException) -> tuple[Any, int] | None:
    """The prologue's frame in the traceback, and its line that raised."""
    found = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename.startswith(PROLOGUE_FILE):
            found = (frame, lineno)
    return found


def _bsym_on(trc: Any, text: str) -> Any:
    """The prologue trace's bound symbol that printed the line ``text`` (its first printed line)."""
    for bsym in trc.bound_symbols:
        printed = bsym.python(indent=0)
        if printed and printed[0].strip() == text:
            return bsym
    return None


def _check_prim(bsym: Any) -> Any:
    """The check primitive a prologue line runs: its own symbol, or the one its executor's op stands for."""
    from thunder.core.prims import PrimIDs

    for candidate in (bsym, *bsym.subsymbols):
        if isinstance(candidate.sym.id, PrimIDs):
            return candidate.sym.id
    return None


def _shown(value: Any) -> str:
    from thunder.core.proxies import NumberProxy

    if isinstance(value, tuple):
        return "(" + ", ".join("any" if isinstance(v, NumberProxy) else str(v) for v in value) + \
            ("," if len(value) == 1 else "") + ")"
    if isinstance(value, type):
        return value.__name__
    return repr(value)


def _tensor_failures(name: str, given: Any, shape, device, dtype, requires_grad) -> list[Failed]:
    import torch
    from thunder.core.proxies import NumberProxy

    if not isinstance(given, torch.Tensor):
        return [Failed(name, "type", "Tensor", type(given).__name__)]
    found = []
    if len(given.shape) != len(shape) or any(not isinstance(r, NumberProxy) and g != r
                                             for g, r in zip(given.shape, shape, strict=False)):
        found.append(Failed(name, "shape", _shown(tuple(shape)), _shown(tuple(given.shape))))
    if str(given.device) != str(device):
        found.append(Failed(name, "device", str(device), str(given.device)))
    if str(given.dtype) != str(dtype):
        found.append(Failed(name, "dtype", str(dtype), str(given.dtype)))
    if given.requires_grad != requires_grad:
        found.append(Failed(name, "requires_grad", str(requires_grad), str(given.requires_grad)))
    return found


def decode(bsym: Any, values: dict[str, Any]) -> list[Failed]:
    """What a failed check line expected and got: ``bsym`` is the line's bound symbol, ``values``
    the prologue's names and their values when it raised."""
    from thunder.core.prims import PrimIDs

    prim, args = _check_prim(bsym), bsym.args
    name = getattr(args[0], "name", repr(args[0])) if args else "-"
    given = values.get(name)
    if prim is PrimIDs.CHECK_TENSOR_SHAPE_AND_METADATA:
        return _tensor_failures(name, given, *args[1:5])
    if prim in (PrimIDs.CHECK_NUMBER_TYPE_AND_VALUE, PrimIDs.CHECK_LITERAL_LIKE, PrimIDs.CHECK_STRING_VALUE,
                PrimIDs.CHECK_SLICE_VALUE):
        expected = args[1]
        if prim is PrimIDs.CHECK_NUMBER_TYPE_AND_VALUE and type(given) is not type(expected):
            return [Failed(name, "type", type(expected).__name__, type(given).__name__)]
        return [Failed(name, "value", _shown(expected), _shown(given))]
    if prim is PrimIDs.CHECK_NONE:
        return [Failed(name, "value", "None", _shown(given))]
    if prim is PrimIDs.CHECK_TYPE:
        return [Failed(name, "type", _shown(args[1]), type(given).__name__)]
    if prim is PrimIDs.CHECK_INSTANCE:
        return [Failed(name, "type", " or ".join(t.__name__ for t in args[1]), type(given).__name__)]
    if prim is PrimIDs.CHECK_LEN:
        return [Failed(name, "length", str(args[1]), str(len(given)) if given is not None else "?")]
    if prim is PrimIDs.CHECK_EMPTY:
        return [Failed(name, "length", "0", str(len(given)) if given is not None else "?")]
    if prim is PrimIDs.CHECK_BOOL_CONVERSION:
        return [Failed(name, "truth value", str(args[1]), str(bool(given)))]
    return []


def _made_by(trc: Any) -> dict[str, str]:
    """Each name the prologue defines and the line (as printed) that defines it."""
    found = {}
    for bsym in trc.bound_symbols:
        printed = bsym.python(indent=0)
        for p in bsym.flat_proxy_outs:
            if printed:
                found.setdefault(p.name, printed[0].strip())
    return found


def rejected(number: int, trc: Any, exc: BaseException) -> Rejected:
    """Why compilation ``number``'s prologue (its last trace ``trc``) raised ``exc`` on a call."""
    where = _prologue_frame(exc)
    if where is None:  # raised before the prologue's own code ran
        return Rejected(number, "", [Failed("-", "the prologue raised", "", f"{type(exc).__name__}: {exc}")])
    frame, lineno = where
    line = linecache.getline(frame.f_code.co_filename, lineno).strip()
    bsym = _bsym_on(trc, line)
    failed = decode(bsym, dict(frame.f_locals)) if bsym is not None else []
    if not failed:  # not a check line, or a check that passes here: what it raised, as it said it
        failed = [Failed("-", "the line raised", "", f"{type(exc).__name__}: {exc}")]
    made = _made_by(trc)
    args = {a[0] for a in trc.siginfo().args}
    failed = [Failed(f.input, f.check, f.expected, f.given, made.get(f.input, "") if f.input not in args else "")
              for f in failed]
    return Rejected(number, line, failed)


def why_missed(cs: Any, args: tuple, kwargs: dict) -> list[Rejected]:
    """Run each cache entry's prologue on the call's inputs, newest first as the cache check does,
    and note why each rejected them (inside Thunder's compile context, as the check runs)."""
    found = []
    for number in range(len(cs.interpreter_cache), 0, -1):
        entry = cs.interpreter_cache[number - 1]
        try:
            entry.prologue_fn(*args, **kwargs)
        except Exception as exc:
            found.append(rejected(number, entry.prologue_traces[-1], exc))
        else:
            found.append(Rejected(number, "", [Failed("-", "its checks", "to fail", "all passed now")]))
    return found


# -- ThunderFX: TorchDynamo's own reasons -----------------------------------------------------------------
class DynamoReasons:
    """What is new in TorchDynamo's guard failures and graph-break reasons since the last look."""

    def __init__(self):
        self.seen_failures: dict[Any, int] = {}
        self.seen_breaks = 0
        self.look()

    def look(self) -> Cause:
        from torch._dynamo import utils

        failures = []
        for code, reasons in list(utils.guard_failures.items()):
            failures += [str(r) for r in reasons[self.seen_failures.get(code, 0):]]
            self.seen_failures[code] = len(reasons)
        breaks = [(_first_lines(str(r.reason)), _where(r.user_stack))
                  for r in utils.graph_break_reasons[self.seen_breaks:]]
        self.seen_breaks = len(utils.graph_break_reasons)
        return Cause(failures, breaks)


def _first_lines(reason: str) -> str:
    """A graph break's reason up to its hints (what broke, and Dynamo's explanation)."""
    lines = [line.strip() for line in reason.splitlines() if line.strip()]
    kept = []
    for line in lines:
        if line.startswith(("Hint:", "Developer debug context:")):
            break
        kept.append(line)
    return " ".join(kept) or reason


def _where(stack: list) -> str:
    if not stack:
        return ""
    frame = stack[-1]
    return f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno} in {frame.name}"


def graph_reasons(causes: list[Cause]) -> list[str]:
    """Why each FX graph of one backend was made, in order: a failed guard (a recompile), the graph
    break that ended the graph before it, or neither (the first graph of its frame)."""
    found = []
    for k, cause in enumerate(causes):
        before = causes[k - 1].graph_breaks if k else []
        if cause.guard_failures:
            found.append("recompiled: a guard failed: " + "; ".join(cause.guard_failures))
        elif before:
            found.append("resumes after the graph break: " + "; ".join(f"{r} ({w})" if w else r for r, w in before))
        else:
            found.append("the first graph of its frame")
    return found


# -- the page -------------------------------------------------------------------------------------------
def reason(rejections: list[Rejected]) -> str:
    """One line for the summary: each earlier compilation's failed check."""
    return "; ".join(f"compilation {r.compilation}: " + ", ".join(f.text() for f in r.failed) for r in rejections)


def section(rejections: list[Rejected]) -> str:
    """The compilation's "Why it compiled again" table: a row per failed check of each earlier one."""
    from thunder_docs.explain.page import _table

    rows = [[r.compilation, f.input, f.check, f.expected, f.given, f.made_by, r.line]
            for r in rejections for f in r.failed]
    return ("<h4>Why it compiled again</h4><p>The cache ran the prologue of each earlier compilation on this "
            "call's inputs, newest first; each raised. The check that failed in each:</p>"
            + _table(["earlier compilation", "input", "check", "expected", "given", "the prologue's line that "
                      "made the input", "the check that raised"], rows))


def summary(report: Any) -> str:
    """The summary's table of every compilation after a function's first, with its reason."""
    from thunder_docs.explain.page import _table

    rows = [[f.title, k + 1, reason(c.why)] for f in report.functions for k, c in enumerate(f.compilations) if c.why]
    return _table(["function", "compilation", "why it compiled again"], rows) if rows else ""
