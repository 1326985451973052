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

from thunder.core.transform_common import Trace  # TraceCtx, imported under the name Trace

import thunder.core.transforms
import thunder.core.update_aliases

assert Trace is TraceCtx
assert thunder.core.transforms.Trace is TraceCtx and thunder.core.update_aliases.Trace is TraceCtx
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
first = thunder.last_traces(jitted)[0]  # the interpreter's trace
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
assert not any(bsym.sym.name == "unpack_trivial" for bsym in extrace.bound_symbols)  # running needs none
assert extrace.bound_symbols[-1].sym.name == "python_return" and extrace.bound_symbols[-1].sym.executor is None
jitted_last = thunder.last_traces(jitted)[-1]  # the jitted my_add of the diff above
not_claimed = [bsym.sym.name for bsym in jitted_last.bound_symbols if bsym.sym.executor is None]
assert not_claimed == ["unpack_trivial", "unpack_trivial", "python_return"]  # the add is claimed
assert prims.python_return.python_impl is not None and prims.unpack_trivial.python_impl is not None

trc_sq, x, y = start_trace()  # ltorch.square: a symbol the torch executor does not claim
with tracectx(trc_sq):
    prims.python_return(ltorch.square(x))
square = trc_sq.bound_symbols[0]
assert not thunder.pytorch_executor.can_execute(square) and not square.sym.is_prim
extrace_sq = transform_for_execution(trc_sq, executors_list=[thunder.pytorch_executor])
assert [bsym.sym.id for bsym in square.subsymbols] == ["torch.mul"]
assert [bsym.sym.name for bsym in extrace_sq.bound_symbols] == ["mul", "python_return"]  # its subsymbol, claimed
assert extrace_sq.bound_symbols[0].sym.executor is thunder.pytorch_executor
assert torch.equal(extrace_sq.python_callable()(a, b), a * a)
# --8<-- [end:run]

# --8<-- [start:check]
import thunder.dev_utils.check_trace as check_trace_module
from thunder.core.utils import producers
from thunder.dev_utils.check_trace import check_trace

checked = []  # the traces that check_traces=True hands to check_trace


def noting_check_trace(trace, **kwargs):
    checked.append(trace)
    return check_trace(trace, **kwargs)


check_trace_module.check_trace = noting_check_trace
try:
    checked_add = thunder.jit(my_add, debug_options=thunder.DebugOptions(check_traces=True))
    checked_add(a, b)
finally:
    check_trace_module.check_trace = check_trace
lists = {
    "prologue": thunder.last_prologue_traces(checked_add),
    "computation": thunder.last_traces(checked_add),
    "epilogue": thunder.compile_stats(checked_add).last_epilogue_traces,
}
for kind, listed in lists.items():
    print(f"{kind} traces checked:", [any(t is c for c in checked) for t in listed])

assert all(any(t is c for c in checked) for kind in ("computation", "epilogue") for t in lists[kind])
assert any(t is c for c in checked for t in lists["prologue"][:1])
assert not any(t is c for c in checked for t in lists["prologue"][1:])  # added with +=
assert lists["prologue"][1].get_provenance().pss.startswith("Transform for execution")

x, y = trc_a.args
print("inputs of trc_a that a line makes:", [p.name for p in (x, y) if p in producers(trc_a)])
try:
    check_trace(trc_a)  # no line makes x or y
except AssertionError as error:
    rejected = str(error)
    print("AssertionError:", rejected.splitlines()[0])

assert x not in producers(trc_a) and rejected.startswith("unknown proxy x is used in")
# --8<-- [end:check]

# --8<-- [start:unpack]
def start_checked_trace():
    """start_trace, plus one unpack_trivial line per input: the line that makes it."""
    trc, x, y = start_trace()
    with tracectx(trc):
        for p in (x, y):
            prims.unpack_trivial(p, name=p.name)  # returns p itself: no new proxy
    return trc, x, y


trc_u, x, y = start_checked_trace()
with tracectx(trc_u):
    out = ltorch.add(x, y)
    prims.python_return(out)
print(trc_u)
names_before = set(trc_u.names)
check_trace(trc_u)  # passes
print("names the check took:", sorted(trc_u.names - names_before))

print("inputs of trc_u that a line makes:", [p.name for p in (x, y) if p in producers(trc_u)])
assert producers(trc_u)[x].sym is prims.unpack_trivial and producers(trc_u)[x].output is x
assert sorted(names_before) == ["t0", "t1", "x", "y"]  # the unpack lines took no name
assert sorted(trc_u.names - names_before) == ["t2", "t3"]  # re-running the add in a copy that shares names

trc_w, x, y = start_checked_trace()
with tracectx(trc_w):
    wrong = TensorProxy(like=x)  # shape (3, 3), but x + y has shape (3, 3, 3)
    trc_w.bound_symbols.append(ltorch.add.bind(x, y, output=wrong))  # bind does not check it
    prims.python_return(wrong)
try:
    check_trace(trc_w)
except AssertionError as error:
    shape_error = str(error)
    print("AssertionError:", shape_error.splitlines()[0])
assert "recomputes to (3, 3, 3) incorrectly" in shape_error

from thunder.core.symbol import Symbol  # noqa: E402


def note_and_return(p):
    rerun.append(p.name)
    return p


for name, skipped in (("noted", False), ("unpack_noted", True), ("pack_buffer", True)):
    rerun = []  # what the check runs of a symbol that notes each call
    trc_n, x, y = start_checked_trace()
    with tracectx(trc_n):
        x_copy = TensorProxy(like=x)
        trc_n.bound_symbols.append(Symbol(name=name, meta=note_and_return, id=name).bind(x, output=x_copy))
        prims.python_return(ltorch.add(x_copy, y))
    check_trace(trc_n)
    assert rerun == ([] if skipped else ["x"])  # skipped: a name starting with unpack, or pack_buffer
# --8<-- [end:unpack]

# --8<-- [start:del]
trc_d, x, y = start_checked_trace()
with tracectx(trc_d):
    total = ltorch.add(x, y)
    prims.python_del(x)  # DON'T: x is read below; a del line is the prim python_del
    doubled = ltorch.mul(x, 2)
    prims.python_return((total, doubled))
print(trc_d.python())
check_trace(trc_d)  # passes: the read after the del goes unnoticed

executed = transform_for_execution(trc_d, executors_list=[thunder.pytorch_executor])
print([bsym.sym.name for bsym in executed.bound_symbols])
total_out, doubled_out = executed.python_callable()(a, b)

deleted = next(bsym for bsym in trc_d.bound_symbols if bsym.sym.name == "python_del")
assert deleted.python(indent=0, print_depth=1) == ["del x"] and deleted.output is None
assert "python_del" not in [bsym.sym.name for bsym in executed.bound_symbols]  # dead-code elimination dropped it
assert torch.equal(doubled_out, a * 2)  # so the trace even runs

from thunder.executors.passes import del_last_used

freed = del_last_used(executed)  # Thunder's own del lines: after each value's last use
print(freed.python())
assert [bsym.sym.name for bsym in freed.bound_symbols].count("python_del") == 2
# --8<-- [end:del]

# --8<-- [start:meta-gotcha]
trc_m, x, y = start_trace()
with tracectx(trc_m):
    out = ltorch.add.meta(x, y)  # the meta function alone, not the symbol
print(trc_m)

import inspect

assert inspect.isfunction(ltorch.add.meta)  # a plain Python function
assert [bsym.sym.name for bsym in trc_m.bound_symbols] == ["broadcast_in_dim", "add"]
assert all(bsym.sym.is_prim for bsym in trc_m.bound_symbols)
# --8<-- [end:meta-gotcha]
