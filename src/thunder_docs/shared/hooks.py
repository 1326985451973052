"""The hooks into Thunder and torch, each under a contract checked against the installed code.

Some of the engine's code does more than call Thunder's and torch's public API: it replaces a
function for the life of a process or reads how a function works inside (which printer prints
a bound symbol, which frame asks an executor). Each such hook is listed in ``HOOKS`` with the
definitions it relies on. When a build (or the explorer) starts, each definition is read from
the installed source with ``ast`` (nothing is imported) and compared with the one the hook was
verified against (``hooks_verified.json``: a digest of each definition's code, its docstring
and its layout left out). So a hook holds on any Thunder, a nightly included, whose code it
relies on is unchanged, and switches itself off where that code changed: one warning naming
the hook and the definitions (``mkdocs build --strict`` fails on it), and the build goes on as
without the hook (plain-text traces, say) until someone checks the hook against the new code
and records it: ``scripts/dev verify-hooks``.

The page's process learns which hooks are off from ``THUNDER_DOCS_HOOKS_OFF`` (set by the
build for that process only; ``is_off``).
"""

from __future__ import annotations

import ast
import copy
import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from thunder_docs.shared.files import digest
from thunder_docs.shared.thunder_source import definition

VERIFIED = Path(__file__).with_name("hooks_verified.json")
OFF_VARIABLE = "THUNDER_DOCS_HOOKS_OFF"


@dataclass(frozen=True)
class Hook:
    name: str  # as THUNDER_DOCS_HOOKS_OFF names it
    what: str  # what a reader loses while it is off
    where: str  # the engine's code that holds it
    # What it relies on, each "package/file.py:Qualified.name": that definition's code; "...:name()":
    # only its signature; "...:name[local]": only that its body assigns the local variable ``local``.
    relies_on: tuple[str, ...]


HOOKS = (
    Hook("capture", "printed traces are marked up (which bound symbol printed each line)",
         "page/capture.py, page/lines.py", (
             "thunder/core/trace.py:TraceCtx.python",  # replaced: records each trace's text
             "thunder/core/symbol.py:BoundSymbol.python",  # replaced: records each bound symbol's lines
             "thunder/__init__.py:last_traces()",  # replaced: the pass stepper's lists
             "thunder/core/symbol.py:BoundSymbol.flat_proxy_outs",  # the names a line defines
             "thunder/core/symbol.py:BoundSymbol.flat_proxy_args",  # the names a line reads
             "thunder/core/trace.py:TraceCtx.siginfo",  # a trace's parameters
             "thunder/core/trace.py:TraceCtx.get_provenance",  # a pass's name in the stepper
             # a forward trace returns (result, (saved tensors, saved others)): the saved tensors
             "thunder/transforms/autodiff.py:split_into_forward_and_backward",
         )),
    Hook("fx-sources", "ThunderFX trace lines link to the user's lines, not to FX's generated code",
         "page/fx_sources.py", (
             "torch/fx/graph_module.py:GraphModule.recompile",  # replaced: notes each module's code name
         )),
    Hook("explain-compiled", "thunder-explain finds what the script compiled",
         "explain/collect.py", (
             "thunder/__init__.py:jit()",  # replaced while the script runs (its signature)
             "thunder/dynamo/compiler.py:ThunderCompiler.__init__()",  # replaced while the script runs
         )),
    Hook("explain-declined", "thunder-explain says which executor declined each operation, and why",
         "explain/collect.py", (
             "thunder/extend/__init__.py:Executor.can_execute",  # replaced on OperatorExecutor, which inherits it
             "thunder/extend/__init__.py:Executor.can_fuse",  # replaced on FusionExecutor, which inherits it
             # the caller whose frame is read: the pass's processor, and the compilation being made
             "thunder/executors/passes.py:_transform_for_operator_executor_execution.OpExProcessor.process_bsym",
             "thunder/__init__.py:jit.apply_transforms_and_build_cache_entry[computation_traces]",
         )),
    Hook("explain-recompiled", "thunder-explain says why a function compiled again",
         "explain/collect.py, explain/recompile.py", (
             # the cache check: each entry's prologue on the call's inputs, newest first; a miss traces again
             "thunder/__init__.py:jit.get_computation_and_inputs",
             # calls thunder_general_jit(fn, args, kwargs, ...) inside compile_data_and_stats(cd, cs)
             "thunder/__init__.py:jit.acquire_initial_trace",
             "thunder/core/jit_ext.py:thunder_general_jit()",  # replaced while the script runs
             "thunder/core/baseutils.py:build_callable",  # a prologue's code is named thunder.prologue_N
             "thunder/dynamo/compiler.py:ThunderCompiler.__call__()",  # replaced while the script runs
             "torch/_dynamo/guards.py:get_guard_fail_reason",  # appends each failed guard to guard_failures
             "torch/_dynamo/output_graph.py:GraphCompileReason",  # appends each graph break's reason
         )),
    Hook("explain-frames", "thunder-explain shows the chain from your line to each line recorded in a library",
         "explain/frames.py", (
             "thunder/core/trace.py:TraceCtx.set_current_source_location",  # replaced while the script runs
             # its caller: the position it sets is the current one of the frame the interpreter picks
             "thunder/core/jit_ext.py:record_source_loc_in_symbol_header",
             # which frames are Thunder's own; a frame's code, globals and current position
             "thunder/core/interpreter.py:InterpreterRuntimeCtx.get_current_user_source_location",
             "thunder/core/interpreter.py:InterpreterFrame.nexti",  # a frame's position: its instruction's
             "thunder/core/interpreter.py:get_interpreterruntimectx",
             "thunder/core/interpreter.py:_run_frame",  # each run of a frame reads its instructions afresh
             "thunder/core/symbol.py:Symbol.bind",  # a bound symbol takes the trace's current position object
             "thunder/core/symbol.py:BoundSymbol.from_bsym",  # passes copy it by reference
             "thunder/core/trace_interpreter.py:interpret_trace_to_trace",  # and so do the substitutions
             "thunder/core/trace_interpreter.py:TraceSubstitutionProcessor.__call__",
         )),
)


def by_name(name: str) -> Hook:
    return next(h for h in HOOKS if h.name == name)


# -- reading the installed code ---------------------------------------------------------------------
def package_roots() -> dict[str, Path]:
    """The folder that holds each package a hook relies on, found without importing it."""
    roots = {}
    for package in sorted({point.split("/", 1)[0] for hook in HOOKS for point in hook.relies_on}):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            roots[package] = Path(next(iter(spec.submodule_search_locations))).parent
    return roots


def _without_docstrings(node: ast.AST) -> ast.AST:
    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if (isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            inner.body = body[1:] or [ast.Pass()]
    return node


def fingerprint(point: str, roots: Mapping[str, Path]) -> str:
    """A digest of what a hook relies on in one definition (see ``Hook.relies_on``): its code
    without docstrings, line numbers or layout, its signature, or whether it assigns a local;
    "missing: ..." when the file, the name or the local is gone."""
    path, _, name = point.partition(":")
    name, local = (name[:-1].split("[", 1) + [""])[:2] if name.endswith("]") else (name, "")
    signature_only = name.endswith("()")
    name = name.removesuffix("()")
    root = roots.get(path.split("/", 1)[0])
    file = root / path if root else None
    if file is None or not file.is_file():
        return f"missing: no file {path}"
    node = definition(file, name)
    if node is None:
        return f"missing: {path} defines no {name}"
    if local:
        assigned = {t.id for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        return f"assigns {local}" if local in assigned else f"missing: {name} assigns no {local}"
    if signature_only:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return f"missing: {name} in {path} is not a function"
        node = node.args
    dumped = ast.dump(_without_docstrings(node), include_attributes=False)
    return digest(dumped)[:16]


# -- the contract -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Broken:
    """A hook whose code it relies on is not the code it was verified against."""

    hook: Hook
    changed: tuple[str, ...]  # the definitions that changed, or are gone

    def message(self) -> str:
        return (f"the hook {self.hook.name!r} ({self.hook.where}) is off: {', '.join(self.changed)} changed since it "
                f"was verified ({verified_with()}), so {self.hook.what} no longer. Check the hook against the new "
                f"code, then record it: scripts/dev verify-hooks")


def _verified() -> dict:
    return json.loads(VERIFIED.read_text(encoding="utf-8"))


def verified_with() -> str:
    return ", ".join(f"{k} {v}" for k, v in _verified()["verified_with"].items())


def check(roots: Mapping[str, Path] | None = None) -> list[Broken]:
    """Each hook whose relied-on code differs from what it was verified against."""
    roots = package_roots() if roots is None else roots
    points = _verified()["points"]
    broken = []
    for hook in HOOKS:
        changed = tuple(p for p in hook.relies_on if points.get(p) != fingerprint(p, roots))
        if changed:
            broken.append(Broken(hook, changed))
    return broken


@cache
def installed_check() -> tuple[Broken, ...]:
    """``check`` of the installed packages, once per process."""
    return tuple(check())


def off_env(broken) -> dict[str, str]:
    """The page process's environment entry that names the hooks that are off."""
    return {OFF_VARIABLE: ",".join(b.hook.name for b in broken)} if broken else {}


def is_off(name: str) -> bool:
    """In a page's process (or the explorer's): whether the build switched hook ``name`` off."""
    return name in os.environ.get(OFF_VARIABLE, "").split(",")


def record(roots: Mapping[str, Path] | None = None) -> dict:
    """The contract of the installed code, as ``hooks_verified.json`` holds it."""
    from importlib.metadata import version

    roots = package_roots() if roots is None else roots
    points = {p: fingerprint(p, roots) for hook in HOOKS for p in hook.relies_on}
    missing = [p for p, f in points.items() if f.startswith("missing")]
    if missing:
        raise SystemExit("cannot record: " + "; ".join(points[p] for p in missing))
    return {"verified_with": {"lightning-thunder": version("lightning-thunder"), "torch": version("torch")},
            "points": dict(sorted(points.items()))}


if __name__ == "__main__":  # scripts/dev verify-hooks
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python -m thunder_docs.shared.hooks --record")
    VERIFIED.write_text(json.dumps(record(), indent=2) + "\n", encoding="utf-8")
    print(f"recorded the code of {len(_verified()['points'])} definitions that the hooks rely on, in {VERIFIED.name}")
