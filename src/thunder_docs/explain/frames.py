"""Your line, for every operation: the chain of frames from your script down to the line Thunder recorded.

A bound symbol's ``source_filename`` and ``source_positions`` name one line: the innermost frame
of the program Thunder was interpreting that is not Thunder's own. Inside a ``torch.nn`` module
that line is torch's (``linear.py:125``), not yours. Thunder's interpreter knows the whole stack
at that moment: ``record_source_loc_in_symbol_header`` (thunder/core/jit_ext.py) asks the
interpreter's runtime context for that frame and hands its position to
``TraceCtx.set_current_source_location``; every bound symbol bound after that carries the same
``Positions`` object. So, while the script runs, ``noting_frames`` wraps that setter and notes,
for each position object, the interpreted frames (each with its code and current position) and
the frames of Python's own stack that called into Thunder (your call of the jitted function).

Each interpreted frame runs its code's freshly read instructions, so each call of a line has a
position object of its own (the two ``Linear`` modules of one model get two), and the passes
carry that object from bound symbol to bound symbol (``BoundSymbol.from_bsym``; the trace
interpreter's substitutions copy it by reference). A printed line's bound symbol leads back to
its chain by that object: nothing is guessed from names.

The backward's lines carry no position (Thunder records none for them): they get no chain.
"""

from __future__ import annotations

import linecache
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thunder_docs.page.normalize import normalize
from thunder_docs.shared import hooks

HOOK = "explain-frames"
# The frames Thunder skips when it picks the line to record (InterpreterRuntimeCtx.get_current_user_source_location).
THUNDERS_OWN = ("thunder.core.interpreter", "thunder.core.jit_ext", "thunder.torch")
# How calling a torch.nn.Module reaches its forward: a step of every module call, no line of the model.
MODULE_CALL = {("torch.nn.modules.module", "Module._call_impl"), ("torch.nn.modules.module", "Module._wrapped_call_impl")}
PACKAGES = ("site-packages", "dist-packages")
OWN = Path(__file__).resolve().parents[1]  # thunder_docs: the explorer's own frames are not the user's

RawFrame = tuple[str, int, str]  # (file, line, function) as Python names them


@dataclass(frozen=True, order=True)
class Frame:
    """One frame of a chain, as the page shows it."""

    path: str  # relative to the folder the explorer ran in, or "site-packages/torch/..."
    line: int
    function: str
    text: str  # the source line, stripped ("" when the file cannot be read)
    yours: bool

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    def shown(self) -> str:
        return f"{self.where}  {self.text}".rstrip()


Chain = tuple[Frame, ...]  # outermost (your script) first, the recorded line last


def is_yours(filename: str, root: Path, own: Path = OWN) -> bool:
    """A file of the user's: inside the folder the explorer ran in, not an installed package, not
    the explorer's own code, not code Python made up (``<string>``, FX's ``<eval_with_key>``)."""
    if not filename or filename.startswith("<"):
        return False
    path = Path(filename).resolve()
    return (path.is_relative_to(root.resolve()) and not any(p in path.parts for p in PACKAGES)
            and not path.is_relative_to(own))


def callers(outer: list[RawFrame], root: Path, own: Path = OWN) -> list[RawFrame]:
    """Of Python's stack (innermost first) when Thunder recorded a line: the user's frames that
    called into Thunder, the innermost run of them, outermost first (a frame of the user's that
    called a library that called Thunder counts; the runner that started the script does not)."""
    found: list[RawFrame] = []
    for frame in outer:
        if is_yours(frame[0], root, own):
            found.append(frame)
        elif found:
            break
    return found[::-1]


def interpreted(frames: list[tuple[str, int, str, str]]) -> list[RawFrame]:
    """The interpreted frames (outermost first, each with its module) that a reader follows:
    without Thunder's own and without torch.nn.Module's call steps."""
    return [(f, line, fn) for f, line, fn, module in frames
            if module not in THUNDERS_OWN and (module, fn) not in MODULE_CALL]


def make_chain(outer: list[RawFrame], inner: list[RawFrame], root: Path, own: Path = OWN) -> Chain:
    """The chain of one recorded line: the user's calling frames, then the interpreted ones."""
    return tuple(_frame(f, root, own) for f in [*outer, *inner])


def _frame(raw: RawFrame, root: Path, own: Path) -> Frame:
    filename, line, function = raw
    text = linecache.getline(filename, line).strip() if not filename.startswith("<") else ""
    return Frame(normalize(filename, root), line, function, normalize(text, root), is_yours(filename, root, own))


def shown(chain: Chain) -> bool:
    """Whether a line's chain says more than its source comment: the recorded line is not the
    user's (it is inside a library), and some frame of the chain is."""
    return bool(chain) and not chain[-1].yours and any(f.yours for f in chain)


def your_lines(chain: Chain) -> tuple[str, ...]:
    """The user's lines of a chain ("path:line"), outermost first, each once."""
    return tuple(dict.fromkeys(f.where for f in chain if f.yours))


# -- noting the frames while the script runs -----------------------------------------------------------
@dataclass
class Noted:
    """The frames noted for each position object Thunder recorded (kept alive, so ids stay theirs)."""

    root: Path
    by_position: dict[int, tuple[Any, set[tuple[tuple[RawFrame, ...], tuple[RawFrame, ...]]]]] = \
        field(default_factory=dict)
    on: bool = True

    def note(self, positions: Any, outer: list[RawFrame], inner: list[RawFrame]) -> None:
        _, seen = self.by_position.setdefault(id(positions), (positions, set()))
        seen.add((tuple(outer), tuple(inner)))

    def chains(self, positions: Any) -> list[Chain]:
        """The chains noted for one position object (one, unless Thunder reused the object)."""
        entry = self.by_position.get(id(positions)) if positions is not None else None
        if entry is None or entry[0] is not positions:
            return []
        return sorted({make_chain(list(o), list(i), self.root) for o, i in entry[1]})


@contextmanager
def noting_frames(root: Path):
    """Wrap ``TraceCtx.set_current_source_location`` for the block: each call made while Thunder's
    interpreter runs notes the interpreted frame stack and the user's frames that called Thunder."""
    found = Noted(root, on=not hooks.is_off(HOOK))
    if not found.on:
        yield found
        return
    from thunder.core.interpreter import get_interpreterruntimectx, unwrap
    from thunder.core.trace import TraceCtx

    setter = TraceCtx.set_current_source_location

    def noting(trc, filename, positions):
        setter(trc, filename, positions)
        if positions is None:
            return
        try:
            stack = get_interpreterruntimectx().frame_stack
        except LookupError:  # not inside the interpreter: a pass setting a location, nothing to note
            return
        inner = interpreted([(f.code.co_filename, f.positions.lineno if f.positions else f.code.co_firstlineno,
                              f.code.co_qualname, unwrap(f.globals).get("__name__", "")) for f in stack])
        outer, frame = [], sys._getframe(1)
        while frame is not None:
            outer.append((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_qualname))
            frame = frame.f_back
        found.note(positions, callers(outer, root), inner)

    noting.__wrapped__, noting.__name__, noting.__doc__ = setter, setter.__name__, setter.__doc__
    TraceCtx.set_current_source_location = noting
    try:
        yield found
    finally:
        TraceCtx.set_current_source_location = setter


# -- the chains of a printed trace ---------------------------------------------------------------------
def chains_of(trc: Any, lines: tuple, noted: Noted | None) -> dict[int, Chain]:
    """Per printed line of a trace (its line in the block): the chain of the bound symbol that made it.

    A top-level line is found by the names it defines (unique in a trace), a subsymbol line and a
    source comment belong to the top-level line they stand under or above."""
    if noted is None or not noted.by_position:
        return {}
    by_outputs = {}
    for bsym in getattr(trc, "bound_symbols", ()):
        names = tuple(p.name for p in _outputs(bsym))
        if names:
            by_outputs[names] = bsym
    found: dict[int, Chain] = {}
    ordered = sorted(lines, key=lambda x: x.line)
    top: Chain = ()
    for line in ordered:
        if line.kind == "op" and line.depth == 0:
            bsym = by_outputs.get(line.defines) if line.defines else None
            chains = noted.chains(bsym.source_positions) if bsym is not None else []
            top = chains[0] if len(chains) == 1 else ()
        elif line.kind != "op":
            top = ()
        if top and line.kind == "op":
            found[line.line] = top
    for k, line in enumerate(ordered):  # a source comment: the chain of the line after it
        if line.kind == "source" and k + 1 < len(ordered) and ordered[k + 1].line in found:
            found[line.line] = found[ordered[k + 1].line]
    return found


def _outputs(bsym) -> list:
    try:
        return [p for p in bsym.flat_proxy_outs if hasattr(p, "name")]
    except Exception:  # noqa: BLE001 - a bound symbol whose outputs cannot be flattened defines nothing
        return []
