"""Building a trace by hand: three ways to add bound symbols, a signature, a return, and running it."""

# --8<-- [start:setup]
import difflib

import torch

import thunder
import thunder.core.devices as devices
import thunder.core.dtypes as dtypes
import thunder.torch as ltorch
from thunder.core import prims
from thunder.core.codeutils import SigInfo
from thunder.core.proxies import TensorProxy
from thunder.core.trace import TraceCtx, tracectx
# --8<-- [end:setup]

# --8<-- [start:empty]
trc = TraceCtx()
print(trc)

assert trc.bound_symbols == [] and trc.names == set()
assert "# No signature available" in str(trc)

from thunder.core.transform_common import Trace  # the old name, still imported in places

assert Trace is TraceCtx
# --8<-- [end:empty]

# --8<-- [start:signature]
def start_trace():
    """A new trace with two input proxies, x and y, and the signature my_trace(x, y)."""
    trc = TraceCtx()
    with tracectx(trc):  # proxies take their names from the current trace
        x = TensorProxy("x", shape=(3, 3), dtype=dtypes.float32, device=devices.cpu)
        y = TensorProxy("y", shape=(3, 3, 3), dtype=dtypes.float32, device=devices.cpu)
    trc.args = [x, y]
    trc._siginfo = SigInfo.from_name_and_args("my_trace", [x, y])
    return trc, x, y


trc, x, y = start_trace()
print(trc.siginfo())
print(trc)

assert sorted(trc.names) == ["x", "y"] and trc.bound_symbols == []
with tracectx(trc):
    try:
        TensorProxy("x", like=x)  # a name the trace already holds
    except RuntimeError as error:
        print("RuntimeError:", error)
        raised = True
assert raised
# --8<-- [end:signature]

# --8<-- [start:signature-from-fn]
def my_add(x, y):
    return torch.add(x, y)


trc_fn = TraceCtx(my_add)
trc_fn.args = [x, y]
print(trc_fn.python().splitlines()[-1])

assert trc_fn.siginfo().name == "my_add"
# --8<-- [end:signature-from-fn]

# --8<-- [start:way-a]
trc_a, x, y = start_trace()
with tracectx(trc_a):
    out = ltorch.add(x, y)  # appends a bound symbol, returns its output proxy
    prims.python_return(out)  # appends the return
print(trc_a)

add = trc_a.bound_symbols[0]
assert [bsym.sym.name for bsym in trc_a.bound_symbols] == ["add", "python_return"]
assert add.output is out and trc_a.output is out
assert [sub.sym.name for sub in add.subsymbols] == ["broadcast_in_dim", "add"]
# --8<-- [end:way-a]

# --8<-- [start:no-return]
from thunder.executors.passes import transform_for_execution

trc_n, x, y = start_trace()
with tracectx(trc_n):
    ltorch.add(x, y)
print(trc_n.python())

try:
    transform_for_execution(trc_n, executors_list=[thunder.pytorch_executor])
except AssertionError as error:  # raised by trc_n.output, which dead-code elimination reads
    print("AssertionError:", error)
    raised = True
assert raised
# --8<-- [end:no-return]

# --8<-- [start:way-b]
trc_b, x, y = start_trace()
with tracectx(trc_b):
    out = TensorProxy(like=y)  # the output, made first: same metadata as y, a new name
    add = ltorch.add.bind(x, y, output=out)  # builds the bound symbol; appends nothing
    assert trc_b.bound_symbols == []
    trc_b.bound_symbols.append(add)
    trc_b.bound_symbols.append(prims.python_return.bind(out, output=None))
print(trc_b)

assert add.subsymbols == () and trc_b.output is out and out.name == "t0"  # the first free name
assert [bsym.sym for bsym in trc_b.bound_symbols] == [bsym.sym for bsym in trc_a.bound_symbols]
# --8<-- [end:way-b]

# --8<-- [start:way-c]
trc_c, x, y = start_trace()
with tracectx(trc_c):
    trc_c.push_scope([])  # from here on, calls append to this new list
    out = ltorch.add(x, y)
    new_bsyms = trc_c.pop_scope()  # the list, holding the add

    prims.python_return(out)  # appended to the trace, which now holds only the return
    trc_c.bound_symbols[0:0] = new_bsyms  # insert the add at index 0, before the return
print(trc_c)

assert [bsym.sym.name for bsym in new_bsyms] == ["add"]
assert trc_c.scopes == [trc_c.bound_symbols]  # one scope again: the trace itself
assert trc_c.python() == trc_a.python()  # the same program as way (a)
# --8<-- [end:way-c]

# --8<-- [start:jitted]
jitted = thunder.jit(my_add)
jitted(torch.ones(3, 3), torch.ones(3, 3, 3))
first = thunder.last_traces(jitted)[0]  # the interpreter's trace, before any pass
diff = difflib.unified_diff(
    str(trc_a).splitlines(), str(first).splitlines(), "by hand", "jitted", lineterm=""
)
print("\n".join(diff))

assert first.bound_symbols[0].sym.name == "unpack_trivial"
assert trc_a.bound_symbols[0].source_filename is None
# --8<-- [end:jitted]

# --8<-- [start:run-fails]
a = torch.randn(3, 3)
b = torch.randn(3, 3, 3)
callable_a = trc_a.python_callable()  # compiling the printed program works
try:
    callable_a(a, b)  # running it does not
except NotImplementedError as error:
    print("NotImplementedError:", error)
    raised = True
assert raised
# --8<-- [end:run-fails]

# --8<-- [start:run]
extrace = transform_for_execution(trc_a, executors_list=[thunder.pytorch_executor])
print(extrace)
result = extrace.python_callable()(a, b)

assert torch.equal(result, torch.add(a, b))
assert extrace.bound_symbols[0].sym.executor is thunder.pytorch_executor
assert not any(bsym.sym.name == "unpack_trivial" for bsym in extrace.bound_symbols)  # optional by hand
# --8<-- [end:run]

# --8<-- [start:meta-gotcha]
trc_m, x, y = start_trace()
with tracectx(trc_m):
    out = ltorch.add.meta(x, y)  # the meta function alone, not the symbol
print(trc_m)

assert [bsym.sym.name for bsym in trc_m.bound_symbols] == ["broadcast_in_dim", "add"]
assert all(bsym.sym.is_prim for bsym in trc_m.bound_symbols)
# --8<-- [end:meta-gotcha]
