"""The pipeline: every trace in thunder.last_traces(jfn), the pass that made it, and what it changed."""

# --8<-- [start:setup]
import difflib
import re

import torch

import thunder


def fn(x, y):
    return torch.add(x, y)


x = torch.ones(3, 3)
y = torch.ones(3, 3, 3)
jfn = thunder.jit(fn)
assert torch.equal(jfn(x, y), fn(x, y))
# --8<-- [end:setup]

# --8<-- [start:list]
traces = thunder.last_traces(jfn)
for i, trc in enumerate(traces):
    provenance = trc.get_provenance()
    print(f"traces[{i}]:", provenance.pss if provenance else "no provenance (the interpreter's trace)")

assert len(traces) == 7 and traces[0].get_provenance() is None
assert all(traces[0].bound_symbols[i] is traces[2].bound_symbols[i] for i in range(3))  # shared objects


def reused(before, after):
    """How many bound symbols of `after` are the very objects of `before`."""
    return sum(any(b is a for a in before.bound_symbols) for b in after.bound_symbols)


print("bound symbols reused from the trace before:", [reused(traces[i - 1], traces[i]) for i in range(1, 7)])
assert reused(traces[2], traces[3]) == 0  # Dead Code Elimination: new objects
# traces[4] comes after two passes, and only the second is named; traces[5] comes after none
assert traces[4].get_provenance().pss.startswith("Delete Last Used") and traces[5] is traces[4]
assert not any("Transform for execution" in trc.get_provenance().pss for trc in traces[1:])
# --8<-- [end:list]

# --8<-- [start:first]
print(traces[0])
# --8<-- [end:first]

# --8<-- [start:diff-helper]
def body(trc):
    """The printed trace as a list of lines, without its '# Constructed by' line."""
    lines = str(trc).splitlines()
    return lines[1:] if trc.get_provenance() is not None else lines


def show_diff(before, after, before_name, after_name):
    """Print what changed from one trace to the next, as a unified diff."""
    diff = list(difflib.unified_diff(body(before), body(after), before_name, after_name, lineterm=""))
    print("\n".join(diff) if diff else f"{before_name} and {after_name} print the same")
    return diff
# --8<-- [end:diff-helper]

# --8<-- [start:pass-1]
diff = show_diff(traces[0], traces[1], "traces[0]", "traces[1]")

assert any(line.startswith("+  return {'output': (") for line in diff)
# --8<-- [end:pass-1]

# --8<-- [start:pass-2]
diff = show_diff(traces[1], traces[2], "traces[1]", "traces[2]")

assert diff == [] and traces[2] is not traces[1]  # a new trace object, same program
# --8<-- [end:pass-2]

# --8<-- [start:pass-3]
diff = show_diff(traces[2], traces[3], "traces[2]", "traces[3]")
assert diff == []  # fn has no dead code


def fn_dead(x, y):
    unused = x * 2  # computed, never used
    return torch.add(x, y)


jfn_dead = thunder.jit(fn_dead)
jfn_dead(x, y)
dead_traces = thunder.last_traces(jfn_dead)
diff = show_diff(dead_traces[2], dead_traces[3], "fn_dead traces[2]", "fn_dead traces[3]")

assert "Dead Code Elimination" in dead_traces[3].get_provenance().pss
assert any(line.startswith("-  unused = ltorch.mul(") for line in diff)

from thunder.core import prims
from thunder.core.trace import from_trace, tracectx
from thunder.core.transform_common import dce

kept = from_trace(dead_traces[2])  # fn_dead's trace, plus a sink of the unused value
kept.bound_symbols = list(dead_traces[2].bound_symbols)
unused = next(bsym for bsym in kept.bound_symbols if bsym.sym.name == "mul").output
with tracectx(kept):
    kept.push_scope([])
    prims.sink(unused)  # no output, but tagged DONT_DCE
    kept.bound_symbols[-1:-1] = kept.pop_scope()
print("after dce, with a sink:", [bsym.sym.name for bsym in dce(kept).bound_symbols])

assert prims.OpTags.DONT_DCE in prims.sink.tags
assert [bsym.sym.name for bsym in dce(kept).bound_symbols].count("mul") == 1  # kept: the sink reads it
# --8<-- [end:pass-3]

# --8<-- [start:pass-4]
diff = show_diff(traces[3], traces[4], "traces[3]", "traces[4]")

add = next(bsym for bsym in traces[4].bound_symbols if bsym.sym.name == "add")
assert add.sym.executor.name == "torch" and add.subsymbols[0].sym.id == "torch.add"
assert "-import thunder.torch as ltorch" in diff
assert not any(bsym.sym.name == "python_del" for bsym in traces[4].bound_symbols)
no_executor = [bsym.sym.name for bsym in traces[4].bound_symbols if bsym.sym.executor is None]
print("lines with no executor:", no_executor)
assert no_executor == ["unpack_trivial", "unpack_trivial", "python_return"]


def square(x):
    return torch.square(x)


jsquare = thunder.jit(square, executors=[thunder.pytorch_executor])
assert torch.equal(jsquare(x), square(x))
sq = next(bsym for bsym in thunder.last_traces(jsquare)[3].bound_symbols if bsym.sym.name == "square")
assert not thunder.pytorch_executor.can_execute(sq) and [b.sym.id for b in sq.subsymbols] == ["torch.mul"]
ran = [bsym.sym.name for bsym in thunder.last_traces(jsquare)[-1].bound_symbols]
assert "square" not in ran and "mul" in ran  # the unclaimed square was replaced by its mul subsymbol
# --8<-- [end:pass-4]

# --8<-- [start:pass-5]
print(traces[5] is traces[4])

jfn_no_check = thunder.jit(fn, disable_inplace_copy_check=True)
jfn_no_check(x, y)
print(len(thunder.last_traces(jfn_no_check)), "traces without the check")

assert traces[5] is traces[4]
assert len(thunder.last_traces(jfn_no_check)) == 6
# --8<-- [end:pass-5]

# --8<-- [start:pass-6]
diff = show_diff(traces[5], traces[6], "traces[5]", "traces[6]")

assert any(line.startswith("+  return (") for line in diff)
# --8<-- [end:pass-6]

# --8<-- [start:other-entries]
def fn_inplace(x, y):
    x.add_(1)  # writes into an input
    return x + y


def pass_names(jitted):
    """The pass names of traces[1:], without timings."""
    return [trc.get_provenance().pss.split(" (took")[0] for trc in thunder.last_traces(jitted)[1:]]


jfn_inplace = thunder.jit(fn_inplace)
jfn_inplace(torch.ones(3, 3), y)
jfn_grad = thunder.jit(fn)
jfn_grad(torch.ones(3, 3, requires_grad=True), y)

for title, jitted in [("fn_inplace:", jfn_inplace), ("fn with requires_grad=True:", jfn_grad)]:
    print(title)
    for i, name in enumerate(pass_names(jitted), start=1):
        print(f"  traces[{i}]: {name}")

alias_return = thunder.last_traces(jfn_inplace)[3].bound_symbols[-1]
print("fn_inplace traces[3] returns:", alias_return.python(indent=0)[0])
assert alias_return.args[0]["flat_args"][0].name != "x"  # the updated value, not x

assert pass_names(jfn_inplace)[2] == "Update aliases for in-place ops"
assert pass_names(jfn_grad)[3] == "Grad transform pass"
assert "Unwrap the actual return value" not in pass_names(jfn_grad)
forward_return = thunder.last_traces(jfn_grad)[-1].bound_symbols[-1]
print("fn with requires_grad=True returns:", forward_return.python(indent=0)[0])
assert list(forward_return.args[0]) == ["output", "flat_args", "flat_output"]  # a new key
assert len(thunder.last_backward_traces(jfn_grad)) == 1 and thunder.last_backward_traces(jfn) == []  # a 4th list

jfn_no_grad = thunder.jit(fn)  # the same input, under torch.no_grad(): the grad pass, but no backward
with torch.no_grad():
    jfn_no_grad(torch.ones(3, 3, requires_grad=True), y)
assert "Grad transform pass" in pass_names(jfn_no_grad) and "Unwrap the actual return value" in pass_names(jfn_no_grad)
assert thunder.last_backward_traces(jfn_no_grad) == []
# --8<-- [end:other-entries]

# --8<-- [start:names]
names = traces[-1].names
# The words of the printed traces, their source comments ("# file.py:13: \t<code>") left out.
source_comment = re.compile(r"\s*# .*:\d+: \t")
printed = {word for trc in traces for line in str(trc).splitlines() if not source_comment.match(line)
           for word in re.findall(r"\w+", line)}
print("names:        ", sorted(names))
print("never printed:", sorted(names - printed))

assert all(trc.names is names for trc in traces)  # one set, shared by every trace
assert sorted(names) == ["t0", "t1", "t2", "t3", "t4", "t5", "t_0", "t_1", "x", "y"]
assert sorted(names - printed) == ["t2", "t3", "t_0", "t_1"]

# With an input that requires grad, the split into forward and backward copies the set.
grad_traces = thunder.last_traces(jfn_grad)
first_with = [next(i for i, t in enumerate(grad_traces) if t.names is trc.names) for trc in grad_traces]
print("fn with requires_grad=True, first trace with each trace's set:", first_with)
assert first_with == [0, 0, 0, 0, 0, 5, 5]  # traces[5] on: a set of their own
assert grad_traces[-1].names is not grad_traces[0].names
assert thunder.last_backward_traces(jfn_grad)[-1].names is grad_traces[-1].names  # the backward shares the copy

# Making the proxy named x adds x to the set: it is there before the rename rewrites the trace.
import thunder.core.jit_ext as jit_ext

seen_by_rename = {}
original_rename = jit_ext._apply_trace_proxy_rename


def noting_rename(trace, rename_proxy_swapmap=None, name=None):
    if name == "computation":
        seen_by_rename["names"] = set(trace.names)
        seen_by_rename["args"] = [p.name for p in trace.args]
    return original_rename(trace, rename_proxy_swapmap, name)


jit_ext._apply_trace_proxy_rename = noting_rename
try:
    thunder.jit(fn)(x, y)
finally:
    jit_ext._apply_trace_proxy_rename = original_rename
print("before the rename: args", seen_by_rename["args"], "| x and t_0 in names:",
      {"x", "t_0"} <= seen_by_rename["names"])
assert seen_by_rename["args"] == ["t_0", "t_1"] and {"x", "t_0"} <= seen_by_rename["names"]
# --8<-- [end:names]

# --8<-- [start:hidden]
from thunder.executors.passes import transform_for_execution

assert not any("Transform for execution" in str(trc.get_provenance()) for trc in traces)

names_before = set(names)
executors = thunder.compile_data(jfn).executors_list  # the executors jfn compiled with
extrace = transform_for_execution(traces[3], executors_list=executors)
print(extrace.python(print_depth=1))
print("names it added:", sorted(names - names_before))

assert extrace.names is names and len(names - names_before) == 2

import inspect

from thunder.common import transform_to_torch_types

copy = transform_to_torch_types(traces[-1])  # a new trace, with no provenance
ran = thunder.compile_stats(jfn).interpreter_cache[-1].computation_fn  # the function jfn runs
assert body(copy) == body(traces[-1]) and copy.get_provenance() is None and copy is not traces[-1]
assert inspect.getsource(ran) in copy.python()  # the copy's program is what runs
# --8<-- [end:hidden]

# --8<-- [start:prologue]
prologue_traces = thunder.last_prologue_traces(jfn)
for i, trc in enumerate(prologue_traces):
    provenance = trc.get_provenance()
    print(f"prologue_traces[{i}]:", provenance.pss if provenance else "no provenance (the interpreter's trace)")
print()
print(prologue_traces[0])

assert isinstance(prologue_traces, list) and len(prologue_traces) == 2  # a list, not one TraceCtx
assert "TraceCtx" in str(thunder.last_prologue_traces.__annotations__["return"])  # what the annotation says
assert prologue_traces[1].get_provenance().pss.startswith("Transform for execution")
assert prologue_traces[0].names is not names  # the prologue has names of its own
assert thunder.compile_stats(jfn).last_epilogue_traces[0].names is not names  # so has the epilogue
run_by = {bsym.sym.name: bsym.sym.executor.name if bsym.sym.executor else None for bsym in prologue_traces[1].bound_symbols}
assert run_by["check_tensor_metadata"] == "python"  # the checks: the python executor
assert run_by["unpack_trivial"] is None and run_by["python_return"] is None  # no executor at all


def x_check(prologue):
    """The prologue's check of x."""
    return next(bsym for bsym in prologue.bound_symbols
                if bsym.sym.name == "check_tensor_shape_and_metadata" and bsym.args[0].name == "x")


jfn_rg = thunder.jit(fn)
jfn_rg(x, y)
jfn_rg(x.clone().requires_grad_(), y)  # the same shapes, but x requires grad
print("x, then x requiring grad:", "hits:", thunder.cache_hits(jfn_rg), "misses:", thunder.cache_misses(jfn_rg))
print("the new entry checks:", x_check(thunder.last_prologue_traces(jfn_rg)[0]).python(indent=0, print_depth=1)[0])
assert (thunder.cache_hits(jfn_rg), thunder.cache_misses(jfn_rg)) == (0, 2)  # requires_grad=True: a miss
assert x_check(prologue_traces[0]).args[-1] is False  # the last value checked: x.requires_grad
assert x_check(thunder.last_prologue_traces(jfn_rg)[0]).args[-1] is True
# --8<-- [end:prologue]

# --8<-- [start:epilogue]
epilogue_traces = thunder.compile_stats(jfn).last_epilogue_traces
print(len(epilogue_traces), "epilogue trace:")
print(epilogue_traces[0])

assert len(epilogue_traces) == 1 and epilogue_traces[0].siginfo().name == "epilogue"
# --8<-- [end:epilogue]

# --8<-- [start:cache-options]
from thunder.core.options import CACHE_OPTIONS


def scale(v, n):
    return v * n


v = torch.ones(3)
print([option.name for option in CACHE_OPTIONS])

jscale_none = thunder.jit(scale, cache="no caching")
jscale_none(v, 2.0)
jscale_none(v, 2.0)
stats = thunder.compile_stats(jscale_none)
print("no caching, the same call twice:", "hits:", stats.cache_hits, "misses:", stats.cache_misses)

try:
    thunder.jit(scale, cache="same input")(v, 2.0)
except NotImplementedError as error:
    message = str(error)
print("same input:", message)

assert len(CACHE_OPTIONS) == 4 and (stats.cache_hits, stats.cache_misses) == (0, 2)
assert message == "cache option SAME_INPUT is not supported"
assert '"symbolic values"' not in thunder.jit.__doc__  # the docstring lists the other three only
# --8<-- [end:cache-options]

# --8<-- [start:cache-constant]
jscale = thunder.jit(scale)  # the default: cache="constant values"
jscale(v, 2.0)
traces_for_2 = thunder.last_traces(jscale)
jscale(v, 3.0)
epilogues_for_3 = thunder.compile_stats(jscale).last_epilogue_traces
stats = thunder.compile_stats(jscale)
print(thunder.cache_option(jscale), "hits:", stats.cache_hits, "misses:", stats.cache_misses)
print(thunder.last_traces(jscale)[-1].python(print_depth=1))
print("prologue checks, cache_info lines left out:")
for line in thunder.last_prologue_traces(jscale)[-1].python(print_depth=1).splitlines():
    if "args[1]" in line or "check_number_type_and_value(f" in line:
        print(line)

assert (stats.cache_hits, stats.cache_misses) == (0, 2)  # a new number, a new compilation
assert "check_number_type_and_value(f0, 3.0)" in thunder.last_prologue_traces(jscale)[-1].python()
assert thunder.last_traces(jscale)[-1].siginfo().args == [("v", None)]  # n is not an input

jscale(v, 2.0)  # 2.0 again: a cache hit on the first compilation
print("after 2.0 again, last_traces is the list made for 2.0:", thunder.last_traces(jscale) is traces_for_2)
assert thunder.last_traces(jscale) is traces_for_2  # the entry the last call used
assert thunder.compile_stats(jscale).last_epilogue_traces is epilogues_for_3  # still the newest compilation's
# --8<-- [end:cache-constant]

# --8<-- [start:cache-symbolic]
jscale_sym = thunder.jit(scale, cache="symbolic values")
jscale_sym(v, 2.0)
result = jscale_sym(v, 3.0)
stats = thunder.compile_stats(jscale_sym)
print(thunder.cache_option(jscale_sym), "hits:", stats.cache_hits, "misses:", stats.cache_misses)
print(thunder.last_traces(jscale_sym)[-1].python(print_depth=1))

assert (stats.cache_hits, stats.cache_misses) == (1, 1)  # 3.0 reused the trace made for 2.0
assert torch.equal(result, scale(v, 3.0))
assert [name for name, _ in thunder.last_traces(jscale_sym)[-1].siginfo().args] == ["v", "n"]
# --8<-- [end:cache-symbolic]

# --8<-- [start:howto-why-recompiled]
import traceback


def rejections(jfn, *args, **kwargs):
    """Call jfn and return, for each cache entry Thunder tried and rejected, the prologue line that raised."""
    cache = thunder.compile_stats(jfn).interpreter_cache
    found = []

    def noting(i, prologue):
        def run_prologue(*a, **k):
            try:
                return prologue(*a, **k)
            except Exception as e:  # the check that failed: the last frame in the prologue's own code
                frame = [f for f in traceback.extract_tb(e.__traceback__) if f.filename.startswith("thunder.prologue")][-1]
                found.append((i, frame.line, f"{type(e).__name__}: {e}"))
                raise
        return run_prologue

    originals = list(cache)
    cache[:] = [entry._replace(prologue_fn=noting(i, entry.prologue_fn)) for i, entry in enumerate(originals)]
    try:
        jfn(*args, **kwargs)
    finally:
        cache[:len(originals)] = originals  # put the entries back; a new one, if any, stays after them
    return found


jwhy = thunder.jit(scale)
jwhy(torch.ones(3), 2.0)  # the first compilation: entry 0
calls = {
    "(3,) float32, 2.0": lambda: rejections(jwhy, torch.ones(3), 2.0),
    "(4,) float32, 2.0": lambda: rejections(jwhy, torch.ones(4), 2.0),
    "(4,) float32, 3.0": lambda: rejections(jwhy, torch.ones(4), 3.0),
    "(3,) float32, 2.0, no_grad": lambda: torch.no_grad()(rejections)(jwhy, torch.ones(3), 2.0),
}
seen_rejections = {}
for label, call in calls.items():
    misses = thunder.cache_misses(jwhy)
    seen_rejections[label] = call()
    print(f"{label}: {'compiled again' if thunder.cache_misses(jwhy) > misses else 'a cache hit'}")
    for i, line, error in seen_rejections[label]:
        print(f"  entry {i} rejected it at: {line}")
        print(f"    {error.splitlines()[0]}")

assert seen_rejections["(3,) float32, 2.0"] == []  # a hit on entry 0: nothing rejected
assert [(i, line.split("(")[0]) for i, line, _ in seen_rejections["(4,) float32, 2.0"]] == [(0, "check_tensor_metadata")]
assert [i for i, _, _ in seen_rejections["(4,) float32, 3.0"]] == [1, 0]  # newest entry first
assert "check_number_type_and_value(f0, 2.0)" in seen_rejections["(4,) float32, 3.0"][0][1]
assert [(i, line.split(",")[0]) for i, line, _ in seen_rejections["(3,) float32, 2.0, no_grad"]] == [
    (2, "check_tensor_metadata(v"), (1, "check_tensor_metadata(v"),  # entries 2 and 1: the shape
    (0, "check_number_type_and_value(cache_info_is_grad_enabled")]  # only entry 0: the grad mode
assert "(4,)" in seen_rejections["(3,) float32, 2.0, no_grad"][1][1]
assert thunder.cache_misses(jwhy) == 4 and len(thunder.compile_stats(jwhy).interpreter_cache) == 4
# the entries' prologue traces say the same: the checks the new entry does not share with the old one
old_checks, new_checks = ({b.python(indent=0, print_depth=1)[0] for b in entry.prologue_traces[-1].bound_symbols
                           if b.sym.name.startswith("check_")} for entry in thunder.compile_stats(jwhy).interpreter_cache[:2])
print("checks of entry 0 that entry 1 does not have:", sorted(old_checks - new_checks))
assert sorted(old_checks - new_checks) == ["check_tensor_metadata(v, (3,), 'cpu', torch.float32, False)"]
# --8<-- [end:howto-why-recompiled]
