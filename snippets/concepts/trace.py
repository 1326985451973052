"""Trace: the fields of a TraceCtx, how it prints, how it runs, and how passes copy it."""

# --8<-- [start:setup]
import torch

import thunder


def fn(x, y):
    z = x + y  # x is broadcast from (3, 3) to (3, 3, 3)
    return z * 2


x = torch.ones(3, 3)
y = torch.ones(3, 3, 3)

jfn = thunder.jit(fn)
result = jfn(x, y)

traces = thunder.last_traces(jfn)
first = traces[0]  # the interpreter's trace (as the passes left it: see "Passes share bound symbols")
last = traces[-1]  # the last trace in the list (Thunder runs a copy of it: see "Running a trace")
# --8<-- [end:setup]

# --8<-- [start:fields]
from thunder.core.trace import TraceCtx

print("type:         ", type(first).__name__)
print("fn:           ", first.fn)
print("args:         ", first.args)
print("kwargs:       ", first.kwargs)
print("siginfo():    ", first.siginfo())
print("bound_symbols:", [bsym.sym.name for bsym in first.bound_symbols])
print("names:        ", sorted(first.names))
print("provenance:   ", first.get_provenance())
print("tags:         ", first.tags)

assert isinstance(first, TraceCtx) and all(trc.fn is None for trc in traces)
prologue = thunder.last_prologue_traces(jfn)[0]
print("prologue fn:  ", prologue.fn.__name__)
assert prologue.fn is fn  # the prologue's trace does hold the function
assert [p.name for p in first.args] == ["x", "y"] and first.kwargs == {}
assert first.get_provenance() is None and first.tags == set()
assert all(p.name in trc.names for trc in traces for bsym in trc.bound_symbols
           for p in (*bsym.flat_proxy_args, *bsym.flat_proxy_outs))  # each proxy's name is in names
prologue_proxies = {p.name for bsym in prologue.bound_symbols for p in (*bsym.flat_proxy_args, *bsym.flat_proxy_outs)}
assert {"x", "y"} <= prologue_proxies and not {"x", "y"} & prologue.names  # the prologue: renamed, not in its names


class Holder:
    pass


def sets_attribute(x, holder):  # setting an attribute makes an epilogue with lines
    out = x * 2
    holder.value = out
    return x


jset = thunder.jit(sets_attribute)
jset(x, Holder())
epilogue = thunder.compile_stats(jset).last_epilogue_traces[-1]
epilogue_proxies = {p.name for bsym in epilogue.bound_symbols for p in (*bsym.flat_proxy_args, *bsym.flat_proxy_outs)}
assert {"out", "x"} <= epilogue_proxies and not {"out", "x"} & epilogue.names  # the epilogue: renamed too
# --8<-- [end:fields]

# --8<-- [start:last-fields]
print("bound_symbols:", [bsym.sym.name for bsym in last.bound_symbols])
print("provenance:   ", last.get_provenance())
print("same names set as the first trace:", last.names is first.names)

assert last.names is first.names and all(trc.names is first.names for trc in traces)
assert [p.name for p in last.args] == ["x", "y"]
# --8<-- [end:last-fields]

# --8<-- [start:print-depth]
import difflib

everything = str(first)  # every level of subsymbols
runnable = first.python()  # print_depth=1: only the lines that run

assert everything == first.python(print_depth=-1)
assert runnable == first.python(print_depth=1)
assert "ltorch.add" in last.python(print_depth=2) and "prims.add" not in last.python(print_depth=2)
print("".join(difflib.unified_diff(
    everything.splitlines(keepends=True), runnable.splitlines(keepends=True),
    fromfile="print(first)", tofile="first.python()", n=1,
)))
# --8<-- [end:print-depth]

# --8<-- [start:callable]
computation = last.python_callable()
outputs = computation(x, y)

print(computation.__name__, "returned a", type(outputs).__name__, "of", len(outputs), "tensor")
assert isinstance(outputs, tuple) and len(outputs) == 1
assert torch.equal(outputs[0], result)  # the same numbers the jitted function returned
assert isinstance(result, torch.Tensor)  # jfn unwrapped the tuple

# What Thunder compiled: not `last` itself, but the copy that transform_to_torch_types makes of it.
import inspect
import linecache

from thunder.common import transform_to_torch_types

ran = transform_to_torch_types(last)
cached = inspect.unwrap(thunder.compile_stats(jfn).interpreter_cache[0].computation_fn)  # under its decorators
source = "".join(linecache.getlines(cached.__code__.co_filename))
provenance_line, rest = last.python().split("\n", 1)
print("a copy:", ran is not last, "| in the list:", any(ran is trc for trc in traces),
      "| provenance:", ran.get_provenance())
print("the cached function's source is last.python() without", repr(provenance_line))

assert ran is not last and all(ran is not trc for trc in traces) and ran.get_provenance() is None
assert provenance_line == str(last.get_provenance()) and source == ran.python() == rest
assert [b.sym for b in ran.bound_symbols] == [b.sym for b in last.bound_symbols]  # the same lines
assert all(a is b for a, b in zip(ran.bound_symbols[:-1], last.bound_symbols[:-1], strict=True))  # the same objects
assert ran.bound_symbols[-1] is not last.bound_symbols[-1]  # but a new return line
# --8<-- [end:callable]

# --8<-- [start:provenance]
def pass_name(trace):
    """The name of the pass that made a trace, without its timing; None for the interpreter's trace."""
    provenance = trace.get_provenance()
    return provenance.pss.split(" (took")[0] if provenance else None


for i, trc in enumerate(traces):
    print(f"[{i}]", pass_name(trc), "|", trc.get_provenance())

assert traces[0].get_provenance() is None
assert all(trc.get_provenance() is not None for trc in traces[1:])
assert pass_name(traces[3]) == "Dead Code Elimination" != traces[3].get_provenance().pss
assert "Transform for execution" not in [pass_name(trc) for trc in traces]  # that pass appends no trace

jfn(x, y)  # the same inputs again: a cache hit, no compilation
print("after a cache hit, the same list:", thunder.last_traces(jfn) is traces)
assert thunder.last_traces(jfn) is traces and thunder.cache_hits(jfn) == 1
# --8<-- [end:provenance]

# --8<-- [start:from-trace]
from thunder.core.trace import TraceProvenance, from_trace

copy = from_trace(last)
print("args, siginfo shared:    ", copy.args is last.args, copy.siginfo() is last.siginfo())
print("names shared:            ", copy.names is last.names)
print("name counter copied:     ", copy.name_ctr == last.name_ctr)
print("bound_symbols:           ", copy.bound_symbols)
print("provenance:              ", copy.get_provenance())

assert copy.names is last.names and copy.name_ctr == last.name_ctr
assert len({id(trc) for trc in traces}) == len(traces) - 1 and traces[5] is traces[4]  # new objects but one
assert copy.bound_symbols == [] and copy.get_provenance() is None

# The idiom of every pass: fill the copy, then say who made it.
copy.bound_symbols = list(last.bound_symbols)
copy.set_provenance(TraceProvenance("My pass"))
print(copy.python().splitlines()[0])
assert copy.bound_symbols is not last.bound_symbols
# --8<-- [end:from-trace]

# --8<-- [start:copied-from]
import sys

copies = []  # (old, new) for each call of from_trace


def recording_from_trace(trace, *args, **kwargs):
    new = from_trace(trace, *args, **kwargs)
    copies.append((trace, new))  # keeps both alive, so no id is reused
    return new


# Thunder's modules import from_trace by name: replace it in each of them while we compile fn again.
modules = [m for name, m in list(sys.modules.items()) if name.startswith("thunder") and getattr(m, "from_trace", None) is from_trace]
assert len(modules) > 1  # several of Thunder's modules hold their own reference to it
for m in modules:
    m.from_trace = recording_from_trace
try:
    jfn_again = thunder.jit(fn)
    jfn_again(x, y)
finally:
    for m in modules:
        m.from_trace = from_trace

listed = thunder.last_traces(jfn_again)
made_from = {id(new): old for old, new in copies}


def copied_from(trc):
    """The index of the listed trace that trc was copied from, and how many unlisted copies lie between."""
    hops, old = 0, made_from[id(trc)]
    while not any(old is t for t in listed):
        hops, old = hops + 1, made_from[id(old)]
    return next(i for i, t in enumerate(listed) if t is old), hops


for i, trc in enumerate(listed[1:], start=1):
    if trc is listed[i - 1]:
        print(f"traces[{i}] is traces[{i - 1}]")
        continue
    origin, hops = copied_from(trc)
    print(f"traces[{i}] copied from traces[{origin}]" + (f" through {hops} copies not in the list" if hops else ""))

assert [pass_name(t) for t in listed] == [pass_name(t) for t in traces]  # the same passes as for jfn
assert listed[5] is listed[4] and all(copied_from(listed[i]) == (i - 1, 0) for i in (1, 2, 3))
assert copied_from(listed[6]) == (4, 0)  # from traces[4], which is traces[5]
origin, hops = copied_from(listed[4])
assert origin == 3 and hops > 0  # traces[4] comes from traces[3], but through unlisted copies

between = []  # the unlisted copies from traces[3] to traces[4], newest first
old = made_from[id(listed[4])]
while old is not listed[3]:
    between.append(old)
    old = made_from[id(old)]
print("from traces[3] to traces[4]:", [pass_name(t) for t in reversed(between)])
assert len(between) == hops and "Transform for execution" in [pass_name(t) for t in between]
assert all(t.names is listed[0].names for t in listed)
assert all(trc is listed[i - 1] or copied_from(trc)[0] < i for i, trc in enumerate(listed[1:], start=1))
assert [i for i in range(1, len(listed)) if listed[i] is listed[i - 1]] == [5]  # only traces[5] is no copy
# --8<-- [end:copied-from]

# --8<-- [start:shared]
import thunder.torch as ltorch
from thunder.core import prims
from thunder.core.trace import tracectx
from thunder.core.transform_common import dce

mine = from_trace(first)  # a trace of our own, in which we double y
with tracectx(mine):
    doubled = ltorch.mul(first.args[1], 2)
    prims.python_return(doubled)
mul = mine.bound_symbols[0]
print("before dce:", mul)

dced = dce(mine)  # a pass: returns a new trace...
print("after dce: ", mul)  # ...and has edited the bound symbol of its input

assert dced is not mine and mine.bound_symbols[0] is mul
assert [sub.sym.name for sub in mul.subsymbols] == ["mul"]  # convert_element_type is gone from `mine`
assert first.bound_symbols[3].sym.name == "mul" and first.bound_symbols[3] is traces[1].bound_symbols[3] is traces[2].bound_symbols[3]
# --8<-- [end:shared]

# --8<-- [start:alias]
import ast
from pathlib import Path

package = Path(thunder.__file__).parent
found = {}  # file -> True if the import is only for type checkers
for path in sorted(package.rglob("*.py")):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
               for n in ast.walk(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "thunder.core.trace" and any(
            alias.name == "TraceCtx" and alias.asname == "Trace" for alias in node.names
        ):
            found[path.relative_to(package.parent).as_posix()] = id(node) in guarded

for file, type_checking_only in found.items():
    print(file + (" (under TYPE_CHECKING)" if type_checking_only else ""))

import thunder.core.trace
from thunder.core import transform_common, transforms, update_aliases

assert not hasattr(thunder.core.trace, "Trace")  # the module that defines the class has no Trace
assert len(found) == 5 and sum(found.values()) == 1  # five modules; one imports it for type checkers only
assert transforms.Trace is transform_common.Trace is update_aliases.Trace is TraceCtx
# --8<-- [end:alias]

# --8<-- [start:mistake-run-first]
try:
    first.python_callable()(x, y)
except NotImplementedError as e:
    error = e
    print(f"{type(e).__name__}: {e}")

assert "outside of a tracing context" in str(error)
# --8<-- [end:mistake-run-first]

# --8<-- [start:mistake-mutate]
before = str(last)
last.bound_symbols.insert(-1, last.bound_symbols[3])  # DON'T: this edits Thunder's own record

again = jfn(x, y)
after = str(thunder.last_traces(jfn)[-1])

print("still the right result:", torch.equal(again, fn(x, y)))
print("last_traces shows the edited object:", thunder.last_traces(jfn)[-1] is last)
print("".join(difflib.unified_diff(
    before.splitlines(keepends=True), after.splitlines(keepends=True),
    fromfile="before the edit", tofile="after the edit", n=1,
)))

assert torch.equal(again, fn(x, y))
assert thunder.last_traces(jfn)[-1] is last and after != before
assert source == rest != last.python().split("\n", 1)[1]  # what runs no longer matches what you see
names_in_order = [bsym.sym.name for bsym in last.bound_symbols]
deleted = last.bound_symbols[names_in_order.index("python_del")].flat_proxy_args[0].name
after_del = last.bound_symbols[names_in_order.index("python_del") + 1 :]
assert any(deleted in [p.name for p in bsym.flat_proxy_args] for bsym in after_del)  # used after its del
# --8<-- [end:mistake-mutate]
