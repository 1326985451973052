"""Adding an operator and an executor: register_operator, register_implementation with a checker,
an execution transform and a grad transform, and the order in which executors are asked."""

# --8<-- [start:setup]
import torch

import thunder
import thunder.torch as ltorch
from thunder.core.proxies import TensorProxy
from thunder.core.transforms import get_grad, put_grads
from thunder.extend import (
    OperatorExecutor,
    add_default_executor,
    get_executor,
    register_executor,
    remove_default_executor,
)

myex = OperatorExecutor("myex", version="0.1")
register_executor(myex)  # known to Thunder by name from now on

calls = []  # what our implementations ran, in order

print(myex, "| found by name:", get_executor("myex") is myex)
assert get_executor("myex") is myex and myex.name == "myex" and myex.version == "0.1"
# --8<-- [end:setup]

# --8<-- [start:register-operator]
def mul_add_like(a, b, c):  # traceable: Thunder records it to learn the output's metadata
    return a * b + c


def mul_add_impl(a, b, c):  # what runs, on real tensors
    calls.append("mul_add")
    return torch.addcmul(c, a, b)


mul_add = myex.register_operator("mul_add", like=mul_add_like, fn=mul_add_impl)


def f(a, b, c):
    return mul_add(a, b, c) * 2


a, b, c = torch.randn(3), torch.randn(3), torch.randn(3)
jf = thunder.jit(f, executors=[myex])
torch.testing.assert_close(jf(a, b, c), (a * b + c) * 2)
print(thunder.last_traces(jf)[-1].python(print_depth=2).split("\n\n", 1)[1])

line = next(b for b in thunder.last_traces(jf)[-1].bound_symbols if b.sym.name == "mul_add")
print("mul_add runs on:", line.sym.executor.name, "| is a prim:", line.sym.is_prim)
print("executors asked, in order:", [ex.name for ex in thunder.compile_data(jf).executors_list][1:])

assert calls == ["mul_add"] and line.sym.executor is myex and not line.sym.is_prim
assert [s.sym.name for s in line.subsymbols] == ["mul", "add"]  # recorded from the like function
assert [ex.name for ex in thunder.compile_data(jf).executors_list][1:] == ["myex", "torch", "python"]
assert thunder.compile_data(jf).executors_list[0].name.startswith("__ad_hoc_executor_")
assert [ex.name for ex in thunder.extend.get_always_executors()] == ["torch", "python"]
torch_first = thunder.jit(f, executors=[get_executor("torch"), myex])  # an always executor in the list
print("executors=[torch, myex] gives:", [ex.name for ex in thunder.compile_data(torch_first).executors_list][1:])
assert [ex.name for ex in thunder.compile_data(torch_first).executors_list][1:] == ["torch", "myex", "python"]
with_meta = myex.register_operator("mul_add_prim", meta=lambda a, b, c: TensorProxy(like=a), fn=mul_add_impl)
assert with_meta.is_prim  # meta= instead of like=: a prim, recorded without subsymbols
assert with_meta.id == "mul_add_prim"  # a prim whose id is its name, not a PrimIDs member
jmeta = thunder.jit(lambda a, b, c: with_meta(a, b, c), executors=[myex])
torch.testing.assert_close(jmeta(a, b, c), a * b + c)
recorded_prim = next(b for b in thunder.last_traces(jmeta)[0].bound_symbols if b.sym is with_meta)
assert recorded_prim.subsymbols == []  # recorded with no subsymbols
# --8<-- [end:register-operator]

# --8<-- [start:not-listed]
calls.clear()
jf_default = thunder.jit(f)  # myex is not in executors=
torch.testing.assert_close(jf_default(a, b, c), (a * b + c) * 2)
print(calls, [ex.name for ex in thunder.compile_data(jf_default).executors_list][1:])

assert calls == ["mul_add"]  # the operator's symbol carries its executor: it runs anyway
assert "myex" not in [ex.name for ex in thunder.compile_data(jf_default).executors_list]
ad_hoc = [thunder.compile_data(j).executors_list[0].name for j in (jf, jf_default)]
assert ad_hoc[0] != ad_hoc[1]  # one ad hoc executor per thunder.jit
# --8<-- [end:not-listed]

# --8<-- [start:register-implementation]
def my_mul_impl(a, b):
    calls.append("my_mul")
    return torch.mul(a, b)


my_mul = myex.register_operator("my_mul", like=ltorch.mul, fn=my_mul_impl)


checked = set()  # the types of the arguments the checker received


def float32_only(a, b):  # the checker: same parameters as ltorch.mul, tensors as proxies
    checked.add((type(a).__name__, type(b).__name__))
    return all(isinstance(t, TensorProxy) and t.dtype == thunder.dtypes.float32 for t in (a, b))


def mul_to_my_mul(a, b):  # the execution transform: what to record instead of ltorch.mul
    return my_mul(a, b)


myex.register_implementation(ltorch.mul, checker=float32_only, execution_transform=mul_to_my_mul)


def g(x, y):
    return torch.sin(x * y)


x, y = torch.randn(3), torch.randn(3)
calls.clear()
plain = thunder.jit(g)  # without myex
torch.testing.assert_close(plain(x, y), g(x, y))
jg = thunder.jit(g, executors=[myex])
torch.testing.assert_close(jg(x, y), g(x, y))
print(thunder.last_traces(plain)[-1].python(print_depth=1).split("\n\n", 1)[1])
print(thunder.last_traces(jg)[-1].python(print_depth=1).split("\n\n", 1)[1])

assert calls == ["my_mul"]
assert "my_mul" not in str(thunder.last_traces(plain)[-1]) and "torch.mul(x, y)" in str(thunder.last_traces(plain)[-1])
assert "my_mul(x, y)" in str(thunder.last_traces(jg)[-1])
assert checked == {("TensorProxy", "TensorProxy")}

add_default_executor(myex)  # now a default executor: in the list of a thunder.jit without executors=
try:
    by_default = thunder.jit(g)
    torch.testing.assert_close(by_default(x, y), g(x, y))
    default_list = [ex.name for ex in thunder.compile_data(by_default).executors_list][1:]
finally:
    remove_default_executor(myex)
print("myex as a default executor:", default_list, "| ran:", calls)
assert default_list[0] == "myex" and calls == ["my_mul", "my_mul"]  # used without executors=
assert "myex" not in [ex.name for ex in thunder.get_default_executors()]  # removed again
# --8<-- [end:register-implementation]

# --8<-- [start:checker-declines]
calls.clear()
x64, y64 = x.double(), y.double()
torch.testing.assert_close(jg(x64, y64), g(x64, y64))  # new dtypes: a new compilation
print(thunder.last_traces(jg)[-1].python(print_depth=1).split("\n\n", 1)[1])

assert thunder.cache_misses(jg) == 2  # float64 inputs: a second compilation
assert calls == []  # the checker said no: the torch executor ran the multiplication
assert "torch.mul(x, y)" in str(thunder.last_traces(jg)[-1]) and "my_mul" not in str(thunder.last_traces(jg)[-1])

checked.clear()
twice = thunder.jit(lambda t: t * 2, executors=[myex])
torch.testing.assert_close(twice(x), x * 2)
print("for t * 2, the checker got:", sorted(checked))
assert checked == {("TensorProxy", "int")} and calls == []  # the 2 as a plain int, not a proxy: declined
# --8<-- [end:checker-declines]

# --8<-- [start:keyword-arguments]
import inspect  # noqa: E402

import torch.nn.functional as F  # noqa: E402

gex = OperatorExecutor("gex")
register_executor(gex)
received = []  # (who, the types of its positional arguments, its keyword arguments), once each
asked = []  # every call of the checker


def note(who, *args, **kwargs):
    entry = (who, tuple(type(a).__name__ for a in args), kwargs)
    if entry not in received:
        received.append(entry)


def gelu_impl(a, *, approximate="none"):  # fn=: real tensors
    note("fn=", a, approximate=approximate)
    return F.gelu(a, approximate=approximate)


my_gelu = gex.register_operator("my_gelu", like=ltorch.gelu, fn=gelu_impl)


def tanh_only(a, *, approximate="none"):  # the checker: ltorch.gelu's parameters
    note("checker", a, approximate=approximate)
    asked.append(approximate)
    return approximate == "tanh"


def gelu_to_my_gelu(a, *, approximate="none"):  # the execution transform: the same parameters
    note("execution transform", a, approximate=approximate)
    return my_gelu(a, approximate=approximate)


gex.register_implementation(ltorch.gelu, checker=tanh_only, execution_transform=gelu_to_my_gelu)


def k(t):
    return F.gelu(t, approximate="tanh") + F.gelu(t)  # the second one: the default, "none"


jk = thunder.jit(k, executors=[gex])
torch.testing.assert_close(jk(x), k(x))
print("ltorch.gelu's signature:", inspect.signature(ltorch.gelu.meta))
for bsym in thunder.last_traces(jk)[0].bound_symbols:
    if bsym.sym.name == "gelu":
        print("recorded: args", bsym.args, "kwargs", bsym.kwargs)
for who, arg_types, kwargs in received:
    print(f"{who:20} got {arg_types} and {kwargs}")
print(thunder.last_traces(jk)[-1].python(print_depth=1).split("\n\n", 1)[1])

recorded = [b for b in thunder.last_traces(jk)[0].bound_symbols if b.sym.name == "gelu"]
assert [b.kwargs for b in recorded] == [{"approximate": "tanh"}, {"approximate": "none"}]  # the default filled in
assert received == [
    ("checker", ("TensorProxy",), {"approximate": "tanh"}),
    ("execution transform", ("TensorProxy",), {"approximate": "tanh"}),
    ("checker", ("TensorProxy",), {"approximate": "none"}),
    ("fn=", ("Tensor",), {"approximate": "tanh"}),
]
assert asked.count("tanh") > 1  # asked more than once for the same line: keep a checker free of side effects
assert "my_gelu(t, approximate='tanh')" in str(thunder.last_traces(jk)[-1])
assert "torch.nn.functional.gelu(t, approximate='none')" in str(thunder.last_traces(jk)[-1])

# like=ltorch.gelu makes the Symbol ltorch.gelu my_gelu's meta: its signature is (*args, **kwargs),
# so my_gelu's bound symbols keep their arguments as passed, with no defaults filled in.
print("my_gelu's meta:", my_gelu.meta is ltorch.gelu, "| its signature:", inspect.signature(my_gelu.meta))
assert my_gelu.meta is ltorch.gelu and str(inspect.signature(my_gelu.meta)) == "(*args, **kwargs)"
line = next(b for b in thunder.last_traces(jk)[-1].bound_symbols if b.sym is my_gelu)
assert line.kwargs == {"approximate": "tanh"}  # as gelu_to_my_gelu passed it: by keyword
gelu_meta = gex.register_operator("my_gelu_meta", like=ltorch.gelu.meta, fn=gelu_impl)  # a plain function


def recorded_alone(op):  # op(t) in a jitted function: its bound symbol as recorded
    jop = thunder.jit(lambda t: op(t), executors=[gex])
    torch.testing.assert_close(jop(x), F.gelu(x))
    direct = next(b for b in thunder.last_traces(jop)[0].bound_symbols if b.sym is op)
    print(f"{op.name}(t) recorded: args", len(direct.args), "tensor, kwargs", direct.kwargs)
    return direct


assert recorded_alone(my_gelu).kwargs == {}  # no approximate='none' filled in
assert recorded_alone(gelu_meta).kwargs == {"approximate": "none"}  # like=ltorch.gelu.meta: normalized

# A parameter that can be positional arrives positionally, even when the call names it:
jl = thunder.jit(lambda t: F.leaky_relu(t, negative_slope=0.2))
torch.testing.assert_close(jl(x), F.leaky_relu(x, negative_slope=0.2))
leaky = next(b for b in thunder.last_traces(jl)[0].bound_symbols if b.sym.name == "leaky_relu")
print("ltorch.leaky_relu's signature:", inspect.signature(ltorch.leaky_relu.meta))
print("F.leaky_relu(t, negative_slope=0.2) recorded: args", leaky.args, "kwargs", leaky.kwargs)
assert leaky.args[1:] == (0.2, False) and leaky.kwargs == {}
# An operator made with like=ltorch.leaky_relu (a Symbol) does not normalize: it keeps the keyword.
my_leaky = gex.register_operator("my_leaky", like=ltorch.leaky_relu, fn=lambda a, negative_slope=0.01, inplace=False:
                                 F.leaky_relu(a, negative_slope))
jml = thunder.jit(lambda t: my_leaky(t, negative_slope=0.2), executors=[gex])
torch.testing.assert_close(jml(x), F.leaky_relu(x, negative_slope=0.2))
kept = next(b for b in thunder.last_traces(jml)[0].bound_symbols if b.sym is my_leaky)
print("my_leaky(t, negative_slope=0.2) recorded: args", len(kept.args), "tensor, kwargs", kept.kwargs)
assert len(kept.args) == 1 and kept.kwargs == {"negative_slope": 0.2}
# --8<-- [end:keyword-arguments]

# --8<-- [start:grad-transform]
xr, yr = x.clone().requires_grad_(), y.clone().requires_grad_()
with_rule = thunder.jit(g, executors=[myex])  # no grad transform yet: Thunder's rule for mul
out_rule = with_rule(xr, yr)
out_rule.sum().backward()
rule_backward = thunder.last_backward_traces(with_rule)[-1]
xe, ye = x.clone().requires_grad_(), y.clone().requires_grad_()
out_eager = g(xe, ye)
out_eager.sum().backward()
torch.testing.assert_close(out_rule, out_eager)  # the result and both gradients are PyTorch's
torch.testing.assert_close((xr.grad, yr.grad), (xe.grad, ye.grad))
assert sum(b.sym.name == "my_mul" for b in rule_backward.bound_symbols) == 3

from thunder.core.prims import PrimIDs  # noqa: E402
from thunder.core.transforms import _grad_fn_map  # noqa: E402

assert ltorch.mul.id not in _grad_fn_map and PrimIDs.MUL in _grad_fn_map  # no rule for ltorch.mul; one for prims.mul


def mul_grads_impl(g, a, b):  # both gradients of a * b in one call
    calls.append("mul_grads")
    return g * b, g * a


mul_grads = myex.register_operator("mul_grads", like=lambda g, a, b: (g * b, g * a), fn=mul_grads_impl)


def mul_grad_transform(a, b):
    out = my_mul(a, b)  # the forward
    g = get_grad(out)  # the gradient that flows into out
    grad_a, grad_b = mul_grads(g, a, b)  # the backward
    put_grads((a, b), (grad_a, grad_b))  # attach the gradients to the inputs
    return out


myex.register_implementation(
    ltorch.mul, checker=float32_only, execution_transform=mul_to_my_mul, grad_transform=mul_grad_transform
)

calls.clear()
jg = thunder.jit(g, executors=[myex])
xg, yg = x.clone().requires_grad_(), y.clone().requires_grad_()
jg(xg, yg).sum().backward()
xe, ye = x.clone().requires_grad_(), y.clone().requires_grad_()
g(xe, ye).sum().backward()
torch.testing.assert_close(xg.grad, xe.grad)
torch.testing.assert_close(yg.grad, ye.grad)

forward, backward = thunder.last_traces(jg)[-1], thunder.last_backward_traces(jg)[-1]
print(forward.python(print_depth=1).split("\n\n", 1)[1])
print(backward.python(print_depth=1).split("\n\n", 1)[1])
print(calls)

assert "my_mul(x, y)" in str(forward) and "mul_grads" not in str(forward)
assert sum(b.sym.name == "mul_grads" for b in backward.bound_symbols) == 1
assert calls == ["my_mul", "my_mul", "mul_grads"]  # forward; sin's backward (a mul); ours

calls.clear()  # float64: float32_only declines, torch runs the mul, and Thunder's own rule is used
x64g, y64g = x.double().requires_grad_(), y.double().requires_grad_()
out64 = jg(x64g, y64g)
out64.sum().backward()
backward64 = thunder.last_backward_traces(jg)[-1]
assert calls == [] and not any(b.sym.name == "mul_grads" for b in backward64.bound_symbols)
x64e, y64e = x.double().requires_grad_(), y.double().requires_grad_()
out64_eager = g(x64e, y64e)
out64_eager.sum().backward()
torch.testing.assert_close(out64, out64_eager)
torch.testing.assert_close((x64g.grad, y64g.grad), (x64e.grad, y64e.grad))
torch.testing.assert_close(x64g.grad, torch.cos(x.double() * y.double()) * y.double())  # d/dx sin(x*y), in float64
# --8<-- [end:grad-transform]

# --8<-- [start:order]
otherex = OperatorExecutor("otherex")
register_executor(otherex)
other_mul = otherex.register_operator("other_mul", like=ltorch.mul, fn=lambda a, b: torch.mul(a, b))
otherex.register_implementation(ltorch.mul, other_mul)  # no checker: it takes every mul


def claimed(executors, *args):
    jfn = thunder.jit(g, executors=executors)
    torch.testing.assert_close(jfn(*args), g(*args))
    line = next(b for b in thunder.last_traces(jfn)[-1].bound_symbols if b.sym.name in ("my_mul", "other_mul", "mul"))
    return f"{line.sym.name} ({line.sym.executor.name})"


table = {
    "[myex, otherex], float32": claimed([myex, otherex], x, y),
    "[myex, otherex], float64": claimed([myex, otherex], x64, y64),
    "[otherex, myex], float32": claimed([otherex, myex], x, y),
    "[myex], float64": claimed([myex], x64, y64),
}
for case, result in table.items():
    print(f"{case:<26} -> {result}")

assert list(table.values()) == ["my_mul (myex)", "other_mul (otherex)", "other_mul (otherex)", "mul (torch)"]

# A prim that no executor claims, and that carries no executor of its own: an error at compile time.
from thunder.core.symbol import Symbol  # noqa: E402

lonely = Symbol(name="lonely", id="lonely", meta=lambda a: TensorProxy(like=a), is_prim=True)
try:
    thunder.jit(lambda t: lonely(t))(x)
except RuntimeError as e:
    unclaimed = e
print("RuntimeError:", str(unclaimed).split(" bsym=")[0])
assert str(unclaimed).startswith("Failed to find an executor for bound symbol")

# A non-prim that no executor claims, with no subsymbols and no executor: replaced by nothing.
hollow = Symbol(name="hollow", id="hollow", meta=lambda a: TensorProxy(like=a), is_prim=False)
jhollow = thunder.jit(lambda t: hollow(t) * 2)
try:
    jhollow(x)
except Exception as e:  # not the error above: the line vanished, and its output is read later
    vanished = e
print(f"{type(vanished).__name__}:", vanished)
print("lines recorded, and lines run:", [
    [b.sym.name for b in thunder.last_traces(jhollow)[i].bound_symbols] for i in (0, -1)
])
assert isinstance(vanished, UnboundLocalError) and "Failed to find an executor" not in str(vanished)
assert "hollow" in [b.sym.name for b in thunder.last_traces(jhollow)[0].bound_symbols]
assert "hollow" not in [b.sym.name for b in thunder.last_traces(jhollow)[-1].bound_symbols]
# --8<-- [end:order]

# --8<-- [start:no-runtime-fallback]
failing = OperatorExecutor("failing")
register_executor(failing)


def broken_mul(a, b):
    raise RuntimeError("this kernel is broken")


failing.register_implementation(
    ltorch.mul, failing.register_operator("broken_mul", like=ltorch.mul, fn=broken_mul)
)
try:
    thunder.jit(g, executors=[failing, myex])(x, y)
except RuntimeError as e:
    error = e
print("RuntimeError:", error)

assert str(error) == "this kernel is broken"  # no other executor is tried when it runs
# --8<-- [end:no-runtime-fallback]
