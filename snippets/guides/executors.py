"""Executors and fusion: who runs each bound symbol, and how regions are fused."""

# --8<-- [start:setup]
import os
import warnings

import torch
import torch.nn.functional as F

import thunder
import thunder.torch as ltorch
from thunder.core import prims
from thunder.core.prims import PrimIDs
from thunder.executors.pythonex import ex as python_ex
from thunder.executors.torch_compile import cuda_device_checker, torch_compile_ex
from thunder.executors.torchex import ex as torch_ex

print("default:", thunder.get_default_executors())
print("always: ", thunder.get_always_executors())
assert [ex.name for ex in thunder.get_always_executors()] == ["torch", "python"]
assert thunder.pytorch_executor is torch_ex  # the torch executor itself
assert prims.mul.is_prim and not ltorch.square.is_prim  # a prim; a symbol defined by a decomposition


def listed(executors):
    """The executors thunder.jit uses for this executors=, without the ad hoc one at the head."""
    return [ex.name for ex in thunder.compile_data(thunder.jit(lambda t: t, executors=executors)).executors_list][1:]


for executors in ([torch_compile_ex], [torch_ex, torch_compile_ex], [torch_compile_ex, torch_ex, python_ex]):
    print(f"executors={[ex.name for ex in executors]!s:36} ->", listed(executors))
assert listed([torch_compile_ex]) == ["torchcompile", "torch", "python"]  # the always executors appended
assert listed([torch_ex, torch_compile_ex]) == ["torch", "torchcompile", "python"]  # torch keeps its place
assert listed([torch_compile_ex, python_ex]) == ["torchcompile", "python", "torch"]  # only the missing one appended
assert listed([torch_compile_ex, torch_ex, python_ex]) == ["torchcompile", "torch", "python"]  # none added
never_called = thunder.jit(lambda t: t)  # no executors=; compile_data is there before any call
full = [ex.name for ex in thunder.compile_data(never_called).executors_list]
defaults_then_always = [ex.name for ex in (*thunder.get_default_executors(), *thunder.get_always_executors())]
assert full[0].startswith("__ad_hoc_executor_") and full[1:] == defaults_then_always

xentropy = thunder.get_executor("torchcompile_xentropy")
print("torchcompile_xentropy only fuses regions with:", sorted(xentropy.required_ops))
print("torch_compile_ex requires:", torch_compile_ex.required_ops)
print("torchcompile_xentropy's checkers:", sorted({info.checker.__name__ for info in xentropy.implmap.values()}))
assert torch_compile_ex.required_ops is None and "torch.nn.functional.cross_entropy" in xentropy.required_ops
assert all(info.checker is cuda_device_checker for info in xentropy.implmap.values())  # CUDA tensors only

for requires_grad in (False, True):  # cross-entropy on the CPU, with the default executors
    jce = thunder.jit(F.cross_entropy)
    jce(torch.randn(4, 5, requires_grad=requires_grad), torch.tensor([0, 1, 2, 3]))
    ce_trace = thunder.last_traces(jce)[-1]
    print(f"cross_entropy, requires_grad={requires_grad}: fusion regions:",
          [b.sym.name for b in ce_trace.bound_symbols if b.sym.is_fusion])
    assert not any(b.sym.is_fusion for b in ce_trace.bound_symbols)  # no region on the CPU
# --8<-- [end:setup]

# --8<-- [start:claim]
def fn(x):
    return torch.square(x)


jfn = thunder.jit(fn)
jfn(torch.randn(3))
first, last = thunder.last_traces(jfn)[0], thunder.last_traces(jfn)[-1]
print(first.python(print_depth=2))
print(last.python(print_depth=1))
# --8<-- [end:claim]

# --8<-- [start:can-execute]
square = next(b for b in first.bound_symbols if b.sym.id == "torch.square")
mul = square.subsymbols[0]
for bsym in (square, mul):
    print(f"{bsym.sym.id:13} in torch's implmap: {bsym.sym.id in torch_ex.implmap!s:5}"
          f"  can_execute: {torch_ex.can_execute(bsym)}")

ran = next(b for b in last.bound_symbols if b.sym.name == "mul")
print("the last trace runs:", ran.sym.name, "from the", ran.sym.executor.name, "executor, id", repr(ran.sym.id))

assert not torch_ex.can_execute(square) and torch_ex.can_execute(mul)
assert ran.sym.executor is torch_ex
assert [s.sym.name for s in square.subsymbols] == ["mul"]  # square's only subsymbol
prim = mul.subsymbols[0]  # ltorch.mul's own decomposition: prims.mul
print("under ltorch.mul:", prim.sym.name, "| is a prim:", prim.sym.is_prim, "| subsymbols:", prim.subsymbols)
assert not square.sym.is_prim and not mul.sym.is_prim
assert [s.sym.id for s in mul.subsymbols] == [PrimIDs.MUL] and prim.subsymbols == []  # a prim: no decomposition

unpack = first.bound_symbols[0]  # a prim without subsymbols that torch does not execute
print("can_fuse:", {b.sym.name: torch_ex.can_fuse(b) for b in (square, mul, unpack)})
assert torch_ex.can_fuse(square) and torch_ex.can_fuse(mul)  # through its subsymbol; through can_execute
assert unpack.subsymbols == [] and not torch_ex.can_fuse(unpack)  # no subsymbols: False
# --8<-- [end:can-execute]

# --8<-- [start:names]
def div(a, b):
    return a / b


a = torch.randn(3, requires_grad=True)
b = torch.randn(3)
jdiv = thunder.jit(div)
jdiv(a, b)
trc = thunder.last_traces(jdiv)[-1]
print(trc.python(print_depth=1))

impl = trc.python_ctx()["torch_div_prim_impl"]
print("torch_div_prim_impl is", impl.__module__ + "." + impl.__qualname__)

grad_trc = next(t for t in thunder.last_traces(jdiv) if "Grad transform" in str(t.get_provenance()))
assert any(bsym.sym.id is PrimIDs.DIV for bsym in grad_trc.bound_symbols)  # the grad pass left the prim
assert any(bsym.sym.name == "torch_div_prim_impl" for bsym in trc.bound_symbols)
assert impl.__qualname__ == "_div_prim_impl"

with_ctx = [bsym.sym.name for bsym in trc.bound_symbols if bsym._call_ctx]
print("bound symbols with a call context:", with_ctx)
assert with_ctx == ["torch_div_prim_impl"]  # in this trace, only the symbol registered with fn=
assert sorted(trc.python_ctx()) == ["torch_div_prim_impl"]

with torch.no_grad():
    jdiv(a, b)
no_grad_trc = thunder.last_traces(jdiv)[-1]
no_grad = [bsym.sym.name for bsym in no_grad_trc.bound_symbols if "div" in bsym.sym.name]
print("without grad:", no_grad, "| call contexts:", [b.sym.name for b in no_grad_trc.bound_symbols if b._call_ctx])
assert no_grad == ["true_divide"] and not any(b._call_ctx for b in no_grad_trc.bound_symbols)
# --8<-- [end:names]

# --8<-- [start:no-executor]
def scaled_sum(a, b):
    return (a + b) * 2  # the sum is freed after the multiplication: a del line


jsum = thunder.jit(scaled_sum)
jsum(a.detach(), b)
last_div = thunder.last_traces(jsum)[-1]
for bsym in last_div.bound_symbols:
    executor = bsym.sym.executor.name if bsym.sym.executor else None
    print(f"{bsym.sym.name:15} executor: {executor!s:6} python_impl: {bsym.sym.python_impl is not None}")

plain_python = {"unpack_trivial", "python_del", "python_return"}
assert all(b.sym.executor is None and b.sym.python_impl is not None and b.sym.is_prim
           for b in last_div.bound_symbols if b.sym.name in plain_python)
assert plain_python <= {b.sym.name for b in last_div.bound_symbols}
from thunder.executors.passes import del_last_used, transform_for_execution  # noqa: E402

sum_traces = thunder.last_traces(jsum)
before_pass = [t for t in sum_traces if "Dead Code Elimination" in str(t.get_provenance())][-1]  # the pass's input
after_pass = transform_for_execution(before_pass, thunder.compile_data(jsum).executors_list)  # the pass, by hand
print("after the executor pass:", [b.sym.name for b in after_pass.bound_symbols])
print("after Delete Last Used: ", [b.sym.name for b in del_last_used(after_pass).bound_symbols])
assert "python_del" not in [b.sym.name for b in after_pass.bound_symbols]  # not there yet
assert "python_del" in [b.sym.name for b in del_last_used(after_pass).bound_symbols]  # added by the later pass
assert [b.sym.name for b in del_last_used(after_pass).bound_symbols] == [b.sym.name for b in last_div.bound_symbols]

jones = thunder.jit(lambda: torch.ones(3))  # no input, nothing to free
jones()
no_inputs = [b.sym.name for b in thunder.last_traces(jones)[-1].bound_symbols]
print("a function without inputs:", no_inputs)
assert no_inputs == ["ones", "python_return"]  # no unpack_trivial, no python_del
# --8<-- [end:no-executor]

# --8<-- [start:fusion]
device = os.environ.get("THUNDER_DOCS_DEVICE", "cpu")
executors = None if device == "cuda" else [torch_compile_ex]  # None: thunder's defaults


def fn(a, b):
    c = a + b
    d = a + b  # the same expression again
    return torch.sin(c) * d


a = torch.randn(4, device=device)
b = torch.randn(4, device=device)
jfn = thunder.jit(fn, executors=executors)
assert torch.allclose(jfn(a, b), fn(a, b))

executors_list = thunder.compile_data(jfn).executors_list
print("first in the list:", type(executors_list[0]).__name__, "named __ad_hoc_executor_<id>")
used = [ex.name for ex in executors_list if not ex.name.startswith("__ad_hoc_executor_")]
print("executors, in priority order:", used)
assert isinstance(executors_list[0], thunder.extend.TemporaryExecutor)
assert executors_list[0].name == f"__ad_hoc_executor_{id(executors_list[0])}"
assert executors_list[0].implmap == {}  # nothing registered on the fly for this function
trc = thunder.last_traces(jfn)[-1]
print(trc)

region = next(b for b in trc.bound_symbols if b.sym.is_fusion)
adds = [s for s in region.subsymbols if s.sym.name == "add"]
print("region:", region.sym.name, "| adds inside:", len(adds))

assert region.sym.name == ("nvFusion0" if device == "cuda" else "TorchCompile0")
if device == "cpu":
    assert used == ["torchcompile", "torch", "python"]
    assert len(adds) == 2  # no common-subexpression elimination here
# --8<-- [end:fusion]

# --8<-- [start:python-ctx]
ctx = trc.python_ctx()
print(sorted(ctx))
print(type(ctx[region.sym.name]).__name__)
assert region.sym.name in ctx
print("the region's own call context:", sorted(region._call_ctx))
assert sorted(region._call_ctx) == [region.sym.name]  # a region is not registered with fn=, yet has one
fusion_ex = region.sym.executor
assert not fusion_ex.can_fuse(region)  # False for a region
if device == "cpu":
    assert all(fusion_ex.can_fuse(s) for s in region.subsymbols)  # though each of its subsymbols can be fused
# --8<-- [end:python-ctx]

# --8<-- [start:examine]
import contextlib
import io

from thunder.examine import examine, get_fusion_symbols, get_fusions


def examined(fn, *args):
    """What examine prints, as a string (it prints and returns None)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        returned = examine(fn, *args)
    assert returned is None
    return out.getvalue()


report = examined(fn, a, b)
report_abs = examined(lambda t: torch.absolute(t).sin(), a)  # torch.absolute: registered automatically
for text in (report, "---", report_abs):
    print("\n".join(line.rstrip() for line in text.splitlines()))

assert report.startswith("Found 3 distinct operations, of which 3 (100.0%) are supported")
assert "sin" not in report and "add" not in report  # supported operations are counted, not listed
assert "automatically registered" in report_abs and "absolute" in report_abs and "sin" not in report_abs
assert "working as expected" in report  # all supported: it compiled and ran fn

report_unique = examined(lambda t: torch.unique(t), a)  # torch.unique: not supported
print("---")
print("\n".join(line.rstrip() for line in report_unique.splitlines()))
assert "of which 0 (0.0%) are supported" in report_unique
assert "working as expected" not in report_unique and "compiling" not in report_unique  # it stopped there


def branches_on_a_value(t):  # every operation supported, but thunder.jit cannot compile it
    return t.sin() if t.sum() > 0 else t.cos()


printed = io.StringIO()
try:
    with contextlib.redirect_stdout(printed):
        examine(branches_on_a_value, a)
except NotImplementedError:  # examine prints that running it failed, then raises the error
    assert "100.0%" in printed.getvalue() and "Encountered an error while running the compiled function" in printed.getvalue()
else:
    raise AssertionError("examine returned")

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("get_fusions:", get_fusions(trc))
print("warning:", [str(w.message) for w in caught])
print("with the check off:", [name for name, _ in get_fusions(trc, warn_if_fusions_unavailable=False)])
print("get_fusion_symbols, check off:",
      [bsym.sym.name for bsym in get_fusion_symbols(trc, warn_if_fusions_unavailable=False)])

if device == "cpu":
    assert get_fusions(trc, warn_if_fusions_unavailable=False) != []
    assert [str(w.message) for w in caught] == ["CUDA is not available, so no fusions will be created."]
# --8<-- [end:examine]
