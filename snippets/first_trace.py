"""Your first trace: jit a function, print the trace Thunder runs, and take it apart."""

# --8<-- [start:setup]
import torch

import thunder


def fn(x, y):
    z = x + y  # x is broadcast from (3, 3) to (3, 3, 3)
    return z * 2


x = torch.ones(3, 3)
y = torch.ones(3, 3, 3)
# --8<-- [end:setup]

# --8<-- [start:jit]
jfn = thunder.jit(fn)
result = jfn(x, y)

assert torch.equal(result, fn(x, y))  # the same numbers as eager PyTorch
print(result.shape)
# --8<-- [end:jit]

# --8<-- [start:last-trace]
traces = thunder.last_traces(jfn)
trc = traces[-1]  # the program that runs, in the copy Thunder compiles
print(trc)

assert traces[4] is traces[5]  # one trace object, listed twice
assert not any("Transform for execution" in str(t.get_provenance()) for t in traces)  # never listed
assert jfn(x, y) is not None and thunder.cache_hits(jfn) == 1
assert thunder.last_traces(jfn) is traces  # a cache hit: the list of the compilation it reused
# --8<-- [end:last-trace]

# --8<-- [start:header]
print(type(trc).__name__)
print(trc.get_provenance())


def pass_name(trace):
    """The name of the pass that made a trace, without its timing; None for the interpreter's trace."""
    provenance = trace.get_provenance()
    return provenance.pss.split(" (took")[0] if provenance else None


print(pass_name(trc))
print(trc.siginfo())

timed = [pass_name(t) for t in traces if t.get_provenance() and "(took" in t.get_provenance().pss]
print("timed:", timed)

assert "(took" not in pass_name(traces[3]) and "(took" in traces[3].get_provenance().pss
assert timed == ["Dead Code Elimination", "Delete Last Used", "Delete Last Used"]
assert "(took" not in trc.get_provenance().pss  # the last trace has no timing
assert pass_name(traces[0]) is None
# --8<-- [end:header]

# --8<-- [start:signature]
def f(xs, scale):  # xs: a list of two tensors, scale: a Python number
    return xs[0] * scale + xs[1]


jf = thunder.jit(f)
jf([torch.ones(2), torch.ones(2)], 3.0)
computation = thunder.last_traces(jf)[-1]
print("computation:", computation.siginfo())
print("prologue:   ", thunder.last_prologue_traces(jf)[-1].siginfo().name)
print("epilogue:   ", thunder.compile_stats(jf).last_epilogue_traces[-1].siginfo().name)

jgrad = thunder.jit(fn)
jgrad(x.clone().requires_grad_(), y)
print("backward:   ", thunder.last_backward_traces(jgrad)[-1].siginfo().name)

assert computation.siginfo().name == "computation"
assert [name for name, _ in computation.siginfo().args] == ["t_0_0", "t_0_1"]  # not ["xs", "scale"]
assert "torch.mul(t_0_0, 3.0)" in computation.python()  # scale: a constant in the call
assert thunder.last_prologue_traces(jf)[-1].siginfo().name == "prologue"
assert thunder.compile_stats(jf).last_epilogue_traces[-1].siginfo().name == "epilogue"
assert thunder.last_backward_traces(jgrad)[-1].siginfo().name == "backward_fn"
# --8<-- [end:signature]

# --8<-- [start:imports]
from thunder.core.trace import TraceCtx

print(TraceCtx())  # a trace with no bound symbols at all

assert "import torch\n" in str(TraceCtx())  # torch is imported whatever the trace calls
# ltorch.add's module is thunder.torch: the trace imports it, and its root package thunder too
assert "import thunder\nimport thunder.torch as ltorch\n" in str(traces[0])
# --8<-- [end:imports]

# --8<-- [start:lines]
for bsym in trc.bound_symbols:
    first_line = str(bsym).splitlines()[0]
    print(f"{bsym.sym.name:15} prints as: {first_line}")

assert len(trc.bound_symbols) == 6
deleted = trc.bound_symbols[4]
assert deleted.sym.name == "python_del" and [p.name for p in deleted.flat_proxy_args] == ["t7"]

# A header is printed as comment lines above the line: one bound symbol, two lines.
noted = trc.bound_symbols[3].from_bsym(header="a header line")
print(noted.python(indent=0, print_depth=1))
assert len(noted.python(indent=0, print_depth=1)) == 2

# A loop over bound_symbols sees the top-level operations only, not their subsymbols.
top_level = [bsym.sym.name for bsym in trc.bound_symbols]
inside_add = [sub.sym.name for sub in trc.bound_symbols[2].subsymbols[0].subsymbols]
print("inside add:", inside_add)
assert "broadcast_in_dim" in inside_add and "broadcast_in_dim" not in top_level
# --8<-- [end:lines]

# --8<-- [start:add-line]
add = trc.bound_symbols[2]
print("symbol:     ", add.sym.name, "run by the", add.sym.executor.name, "executor")
print("args:       ", add.args)
print("kwargs:     ", add.kwargs)
print("output:     ", add.output)
print("source line:", add.source_filename, add.source_positions.lineno)
ltorch_add = add.subsymbols[0]
print("subsymbol:  ", ltorch_add.sym.id, "->", [str(sub.sym.id) for sub in ltorch_add.subsymbols])

assert add.sym.executor.name == "torch" and add.output.shape == (3, 3, 3)
assert add.sym.module is torch and str(add).startswith("t7 = torch.add(")  # printed with the symbol's module
assert ltorch_add.sym.module is thunder.torch and str(ltorch_add).startswith("t7 = ltorch.add(")
assert add.output.name == "t7" and add.kwargs == {"alpha": 1}
assert ltorch_add.sym.id == "torch.add" and not ltorch_add.sym.is_prim
assert all(sub.sym.is_prim for sub in ltorch_add.subsymbols)
assert all(t.names is traces[0].names for t in traces)  # one set of names for the pipeline
assert all(a.name_ctr <= b.name_ctr for a, b in zip(traces, traces[1:]))  # each copies the counter
assert {f"t{i}" for i in range(7)} <= trc.names  # the numbers skipped were taken, not unused
# --8<-- [end:add-line]

# --8<-- [start:depth]
print(trc.python(print_depth=1))


def every_level(bsyms):  # the bound symbols, and their subsymbols at every depth
    for bsym in bsyms:
        yield bsym
        yield from every_level(bsym.subsymbols)


def line_of(bsym):
    return str(bsym).splitlines()[0].strip()


# print(trc) shows every level; print_depth=1 shows the top level only
assert all(line_of(b) in str(trc) for b in every_level(trc.bound_symbols))
assert not any(line_of(b) in trc.python(print_depth=1)
               for top in trc.bound_symbols for b in every_level(top.subsymbols))
# --8<-- [end:depth]

# --8<-- [start:first-vs-last]
print(len(traces), "traces; the first one, the interpreter's trace:")
print(traces[0])
# --8<-- [end:first-vs-last]

# --8<-- [start:recorded]
seen = {}  # what a transform saw while Thunder compiled


class Snapshot(thunder.Transform):
    """Changes nothing: keeps the text and the objects of the trace it is given."""

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        mul = computation_trc.bound_symbols[3]
        seen.update(trace=computation_trc, mul=mul, text=str(mul), subsymbols=list(mul.subsymbols))
        return prologue_trc, computation_trc, epilogue_trc


jsnap = thunder.jit(fn, transforms=[Snapshot()])
jsnap(x, y)
snap_traces = thunder.last_traces(jsnap)

print("while compiling, the hook saw:")
print(seen["text"])
print("after compiling, last_traces(jsnap)[0] shows:")
print(snap_traces[0].bound_symbols[3])

convert = seen["subsymbols"][0]
assert [sub.sym.name for sub in seen["subsymbols"]] == ["convert_element_type", "mul"]
assert convert.args == (2, float) and convert.output == 2.0  # a constant: no proxy, printed as _
assert [sub.sym.name for sub in snap_traces[0].bound_symbols[3].subsymbols] == ["mul"]
assert seen["trace"] is snap_traces[2]  # the hook got traces[2], which dead-code elimination read next
assert snap_traces[0].bound_symbols[3] is seen["mul"] is snap_traces[2].bound_symbols[3]  # one object
assert snap_traces[1].bound_symbols[3] is seen["mul"]

# Which passes reuse the bound symbol objects of the trace before, and which make new ones?
shared = []
for i in range(1, len(snap_traces)):
    before, after = snap_traces[i - 1].bound_symbols, snap_traces[i].bound_symbols
    shared.append(sum(any(b is a for a in before) for b in after))
    print(f"traces[{i}] {pass_name(snap_traces[i])!r:34} reuses {shared[-1]} of its {len(after)} bound symbols")
assert shared[:3] == [4, 5, 0]  # traces[1] and traces[2] reuse; DCE, traces[3], makes new ones
assert snap_traces[3].bound_symbols[3] is not seen["mul"] and snap_traces[3].bound_symbols[3].subsymbols == seen["mul"].subsymbols

# What did Delete Last Used, traces[4], get? Its input is not listed: record it while compiling.
import thunder.executors.passes as passes

inputs_of_del = []
original_del_last_used = passes.del_last_used


def recording_del_last_used(trace, *args, **kwargs):
    inputs_of_del.append(trace)
    return original_del_last_used(trace, *args, **kwargs)


passes.del_last_used = recording_del_last_used
try:
    jrec = thunder.jit(fn)
    jrec(x, y)
finally:
    passes.del_last_used = original_del_last_used
given, made = inputs_of_del[0], thunder.last_traces(jrec)[4]
new_lines = [b for b in made.bound_symbols if not any(b is a for a in given.bound_symbols)]
print("Delete Last Used was given the trace of:", pass_name(given))
print("its new bound symbols:", [b.sym.name for b in new_lines])
assert pass_name(given) == "Transform for execution" and given not in thunder.last_traces(jrec)
assert all(any(a is b for b in made.bound_symbols) for a in given.bound_symbols)  # it reuses every one
assert [b.sym.name for b in new_lines] == ["python_del"]  # only the del line is new

from thunder.core import prims
from thunder.core.trace import from_trace, tracectx

z = snap_traces[0].bound_symbols[2].output
with tracectx(from_trace(snap_traces[0])):
    try:
        prims.mul(z, 2)  # the prim itself: no type promotion
    except RuntimeError as error:
        message = str(error)
print("prims.mul(z, 2) raises:", message)
assert "found the numbertype <class 'int'>" in message
# --8<-- [end:recorded]
