"""Note what a script compiles while it runs: each ``thunder.jit`` function and each ThunderFX backend.

``thunder.jit`` is replaced, for the length of the run, by a function that calls it and notes
what it returned; ``ThunderCompiler.__init__`` (the backend of ``thunderfx`` and of
``torch.compile(backend=ThunderCompiler())``) notes each backend. While Thunder picks an executor
for each bound symbol (the operator-executor pass, ``thunder.executors.passes._transform_for_operator_executor_execution``),
each executor's answer is noted too: which executors were asked and declined, and why; and,
for each line Thunder records, the frame stack it was recorded in (``frames.py``). Nothing
else changes: the script gets what Thunder returns, and each answer is the executor's own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thunder_docs.explain.frames import noting_frames
from thunder_docs.shared import hooks


@dataclass
class Compiled:
    """A function the script compiled with ``thunder.jit``, in the order compiled."""

    name: str
    jfn: Callable


@dataclass
class Asked:
    """What one run of the operator-executor pass asked executors: for each bound symbol (by the
    names it defines), the executors that declined it, in the order asked, with why."""

    processor: Any  # the pass's processor: its trace (what it read) and env (old name -> new value)
    declined: dict[tuple[str, ...], list[tuple[str, str]]] = field(default_factory=dict)

    compilation: Any = None  # the compilation's list of computation traces, being made when asked

    def renamed(self) -> dict[tuple[str, ...], list[tuple[str, str]]]:
        """The answers keyed by the names the pass's output trace gives those outputs."""
        env = getattr(self.processor, "env", {})
        return {tuple(getattr(env.get(n), "name", n) for n in names): why for names, why in self.declined.items()}


@dataclass
class Collected:
    functions: list[Compiled] = field(default_factory=list)
    backends: list[Any] = field(default_factory=list)  # ThunderCompiler instances, in order
    asked: list[Asked] = field(default_factory=list)
    misses: list[Any] = field(default_factory=list)  # recompile.Miss: why each later compilation was made
    fx_causes: dict[int, list[Any]] = field(default_factory=dict)  # id(backend) -> recompile.Cause per graph
    frames: Any = None  # frames.Noted: the frame stack at each line Thunder recorded
    progress: Callable[[str], None] = lambda message: None

    def fx_parts(self) -> set[int]:
        """ids of the thunder.jit functions that ThunderFX made for its graphs."""
        return {id(fn) for backend in self.backends for info in backend.subgraph_infos
                for fn in info.thunder_compiled_fns or ()}


def _name_of(fn: Any) -> str:
    target = getattr(fn, "__name__", None) or type(fn).__name__
    module = getattr(fn, "__module__", None) or type(fn).__module__
    return f"{target}" if module in (None, "__main__") else f"{module}.{target}"


@contextmanager
def collecting(progress: Callable[[str], None]):
    """Note, inside the block, every function compiled with thunder.jit and every ThunderFX backend."""
    import thunder
    from thunder.dynamo.compiler import ThunderCompiler

    from thunder_docs.page import fx_sources

    fx_sources.install()  # before the run: FX compiles the graphs' code while it runs
    found = Collected(progress=progress)
    jit, init = thunder.jit, ThunderCompiler.__init__

    def noting_jit(fn, *args, **kwargs):
        jfn = jit(fn, *args, **kwargs)
        if not _inside_thunder():
            found.functions.append(Compiled(_name_of(fn), jfn))
            progress(f"compiled {_name_of(fn)} with thunder.jit")
        return jfn

    def noting_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        found.backends.append(self)
        progress("a ThunderFX backend (ThunderCompiler) was made")

    noting_jit.__doc__, noting_jit.__name__ = jit.__doc__, jit.__name__
    if not hooks.is_off("explain-compiled"):  # off: nothing is noted, and the explorer says so
        thunder.jit, ThunderCompiler.__init__ = noting_jit, noting_init
    try:
        with _noting_answers(found) if not hooks.is_off("explain-declined") else nullcontext(), \
                _noting_misses(found) if not hooks.is_off("explain-recompiled") else nullcontext(), \
                noting_frames(Path.cwd()) as found.frames:
            yield found
    finally:
        thunder.jit, ThunderCompiler.__init__ = jit, init


@contextmanager
def _noting_answers(found: Collected):
    """Note each executor's answer that the operator-executor pass asks for (and only those: the
    executors ask themselves too, e.g. ``can_fuse`` calls ``can_execute``)."""
    from thunder.extend import FusionExecutor, OperatorExecutor

    can_execute, can_fuse = OperatorExecutor.can_execute, FusionExecutor.can_fuse

    def note(ex, bsym, answer: bool, why) -> bool:
        caller = sys._getframe(2)
        if answer or bsym.sym.executor is not None or caller.f_code.co_name != "process_bsym" or \
                caller.f_globals.get("__name__") != "thunder.executors.passes":
            return answer  # accepted; or a symbol an executor owns already (kept as it is); or not the pass
        processor = caller.f_locals.get("self")
        asked = next((a for a in reversed(found.asked) if a.processor is processor), None)
        if asked is None:
            found.asked.append(asked := Asked(processor, compilation=_compilation_being_made(caller)))
        outputs = tuple(p.name for p in bsym.flat_proxy_outs)
        if outputs:
            reasons = asked.declined.setdefault(outputs, [])
            if (entry := (ex.name, why())) not in reasons:
                reasons.append(entry)
        return answer

    def noting_can_execute(self, bsym):
        return note(self, bsym, can_execute(self, bsym), lambda: declined_by_operator(self, bsym))

    def noting_can_fuse(self, bsym):
        return note(self, bsym, can_fuse(self, bsym), lambda: declined_by_fusion(self, bsym, can_fuse))

    OperatorExecutor.can_execute, FusionExecutor.can_fuse = noting_can_execute, noting_can_fuse
    try:
        yield
    finally:
        OperatorExecutor.can_execute, FusionExecutor.can_fuse = can_execute, can_fuse


@contextmanager
def _noting_misses(found: Collected):
    """Note why each compilation after a function's first was made (``recompile.py``): Thunder traces
    a function again through ``thunder_general_jit`` only when no cache entry's prologue passed; and,
    for ThunderFX, TorchDynamo's reasons for each graph it hands the backend."""
    import thunder
    from thunder.dynamo.compiler import ThunderCompiler

    from thunder_docs.explain import recompile

    general_jit, call = thunder.thunder_general_jit, ThunderCompiler.__call__
    dynamo = recompile.DynamoReasons()

    def noting_general_jit(fn, args, kwargs, *rest, **options):
        caller = sys._getframe(1)  # acquire_initial_trace(fn, args, kwargs, cd, cs, ...), inside compile_data_and_stats
        cs = caller.f_locals.get("cs") if caller.f_code.co_name == "acquire_initial_trace" else None
        if cs is not None and cs.interpreter_cache:
            found.misses.append(recompile.Miss(cs, len(cs.interpreter_cache) + 1,
                                               recompile.why_missed(cs, args, kwargs)))
        return general_jit(fn, args, kwargs, *rest, **options)

    def noting_call(self, gm, sample_args):
        found.fx_causes.setdefault(id(self), []).append(dynamo.look())
        return call(self, gm, sample_args)

    thunder.thunder_general_jit, ThunderCompiler.__call__ = noting_general_jit, noting_call
    try:
        yield
    finally:
        thunder.thunder_general_jit, ThunderCompiler.__call__ = general_jit, call


def _compilation_being_made(frame) -> Any:
    """The list of computation traces that ``thunder.jit`` is filling while this frame runs (a
    local of ``thunder.__init__``'s ``apply_transforms_and_build_cache_entry``; the cache entry keeps that
    list). The forward and the backward are executed as one joint trace, so one list serves both."""
    while frame is not None:
        if frame.f_globals.get("__name__") == "thunder" and "computation_traces" in frame.f_locals:
            return frame.f_locals["computation_traces"]
        frame = frame.f_back
    return None


def declined_by_operator(ex, bsym) -> str:
    """Why an executor's ``can_execute`` answered False (``thunder.extend.Executor.can_execute``)."""
    impl = ex.implmap.get(bsym.sym.id)
    if impl is None:
        return f"no implementation of {bsym.sym.id} is registered"
    checker = getattr(impl.checker, "__qualname__", None) or repr(impl.checker)
    return f"its checker {checker} returned False"


def declined_by_fusion(ex, bsym, can_fuse) -> str:
    """Why a fusion executor's ``can_fuse`` answered False (``thunder.extend.Executor.can_fuse``)."""
    if bsym.sym.is_fusion:
        return "it is a fusion already"
    if not bsym.subsymbols:
        return f"{declined_by_operator(ex, bsym)}, and it has no subsymbols"
    first = next((sub for sub in bsym.subsymbols if not can_fuse(ex, sub)), None)
    return f"it cannot fuse the subsymbol {first.sym.name}" if first is not None else "it cannot fuse a subsymbol"


def _inside_thunder() -> bool:
    """Whether thunder.jit was called from Thunder's own code (ThunderFX jits its graphs)."""
    frame = sys._getframe(2)
    return frame is not None and frame.f_globals.get("__name__", "").startswith("thunder.")
