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
trc = traces[-1]  # the trace that actually ran
print(trc)
# --8<-- [end:last-trace]

# --8<-- [start:header]
print(type(trc).__name__)
print(trc.get_provenance())
print(trc.siginfo())
# --8<-- [end:header]

# --8<-- [start:lines]
for bsym in trc.bound_symbols:
    first_line = str(bsym).splitlines()[0]
    print(f"{bsym.sym.name:15} prints as: {first_line}")

assert len(trc.bound_symbols) == 6
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
assert ltorch_add.sym.id == "torch.add" and not ltorch_add.sym.is_prim
assert all(sub.sym.is_prim for sub in ltorch_add.subsymbols)
# --8<-- [end:add-line]

# --8<-- [start:depth]
print(trc.python(print_depth=1))
# --8<-- [end:depth]

# --8<-- [start:first-vs-last]
print(len(traces), "traces; the first one, straight from the interpreter:")
print(traces[0])
# --8<-- [end:first-vs-last]
