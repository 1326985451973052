"""Gradient rules: an operator without one, register_augmented_forward with register_backward,
register_grad with get_grad and put_grad, register_operator(replaces=...) and torch.library custom ops."""

# --8<-- [start:setup]
import torch

import thunder
import thunder.torch as ltorch
from thunder.core.proxies import ProxyTag, TensorProxy
from thunder.core.symbol import BoundSymbolTag
from thunder.core.transforms import (
    get_grad,
    is_constant_for_vjp,
    put_grad,
    register_augmented_forward,
    register_backward,
    register_grad,
)
from thunder.extend import OperatorExecutor, get_all_executors, register_executor

gradex = OperatorExecutor("gradex")
register_executor(gradex)

# A prim: meta= makes the output proxy, fn= runs on real tensors. No gradient rule yet.
mysquare = gradex.register_operator("mysquare", meta=lambda x: TensorProxy(like=x), fn=lambda x: x * x)


def f(x):
    return mysquare(x).sum()


torch.manual_seed(0)  # the same numbers in every run: on the page, as a script, in the notebook
x = torch.randn(3, dtype=torch.float64, requires_grad=True)
try:
    thunder.jit(f)(x)
except RuntimeError as e:
    error = e
    print(f"RuntimeError: {e}")

assert str(error).startswith("Failed to find a gradient transform for bound symbol")
assert mysquare.is_prim and mysquare.id == "mysquare"
print("symbol id:", repr(mysquare.id))
# the imports of Thunder's own tutorial (thunder-add-vjp-rule.md) are gone in this version
assert not hasattr(thunder, "make_traced") and not hasattr(thunder.core.prims, "Ops")
# --8<-- [end:setup]

# --8<-- [start:no-grad-needed]
def f_with_c(x, c):  # mysquare is applied to c only; x requires grad
    return mysquare(c).sum() + x.sum()


c_float = torch.linspace(-1, 1, 3, dtype=torch.float64)  # does not require grad
float_error = None
try:
    thunder.jit(f_with_c)(x, c_float)
except RuntimeError as e:
    print(f"on a float c that does not require grad: RuntimeError: {e}")
    float_error = e
assert not c_float.requires_grad and str(float_error).startswith("Failed to find a gradient transform for bound symbol")

c_int = torch.arange(3)  # an integer tensor: the line is constant, no rule needed
jf_int = thunder.jit(f_with_c)
print("on an integer c:", jf_int(x, c_int))
int_line = next(b for b in thunder.last_traces(jf_int)[0].bound_symbols if b.sym.name == "mysquare")
print("  constant for the grad transform:", is_constant_for_vjp(int_line))
assert is_constant_for_vjp(int_line)


def ran_grad_transform(jfn):
    return any(str(t.get_provenance()).startswith("# Constructed by Grad transform pass") for t in thunder.last_traces(jfn))


with torch.no_grad():  # x still requires grad
    jf_no_grad = thunder.jit(f)
    print(jf_no_grad(x))
line = next(b for b in thunder.last_traces(jf_no_grad)[0].bound_symbols if b.sym.name == "mysquare")
print("under no_grad: grad transform ran:", ran_grad_transform(jf_no_grad), "| mysquare's output tags:", sorted(map(str, line.output.tags)))
print("  constant for the grad transform:", is_constant_for_vjp(line))
print("  backward traces:", len(thunder.last_backward_traces(jf_no_grad)))
assert x.requires_grad and ran_grad_transform(jf_no_grad) and not thunder.last_backward_traces(jf_no_grad)
assert ProxyTag.DETACHED_AUTOGRAD_GRAPH in line.output.tags and is_constant_for_vjp(line)

jf_detached = thunder.jit(f)
print(jf_detached(x.detach()))  # no input requires grad: the grad transform does not run at all
print("with x.detach(): grad transform ran:", ran_grad_transform(jf_detached))
assert not ran_grad_transform(jf_detached)

# made with like=: not a prim; Thunder differentiates what it recorded from like
mycube = gradex.register_operator("mycube", like=lambda x: x * x * x, fn=lambda x: x**3)
xc = x.detach().clone().requires_grad_()
thunder.jit(lambda x: mycube(x).sum())(xc).backward()
torch.testing.assert_close(xc.grad, 3 * x.detach() ** 2)
print("mycube, prim:", mycube.is_prim, "| gradient equals 3 x**2:", torch.allclose(xc.grad, 3 * x.detach() ** 2))
assert not mycube.is_prim
# --8<-- [end:no-grad-needed]


# --8<-- [start:augmented-forward]
@register_augmented_forward(mysquare.id)  # keyed by the symbol's id
def mysquare_augmented_forward(x):
    return mysquare(x), (x,)  # the primal result, then the residuals saved for the backward


@register_backward(mysquare.id)
def mysquare_backward(x, g):  # the residuals, then one cotangent per tensor output
    return 2 * x * g  # one value per positional argument of mysquare: here one


jf = thunder.jit(f)
out = jf(x)
forward = thunder.last_traces(jf)[-1]
backward = thunder.last_backward_traces(jf)[-1]
print(forward.python(print_depth=1))
print(backward.python(print_depth=1))

assert [b.sym.name for b in forward.bound_symbols].count("mysquare") == 1
assert "mysquare" not in {b.sym.name for b in backward.bound_symbols}
assert [t.name for t in forward.output[1][0]] == ["x"]  # the residual (x,) is saved
# --8<-- [end:augmented-forward]

# --8<-- [start:backward-returns]
# x * k * y, with a float k between the two tensors
scale = gradex.register_operator("scale", meta=lambda x, k, y: TensorProxy(like=x), fn=lambda x, k, y: x * k * y)


@register_augmented_forward(scale.id)
def scale_augmented_forward(x, k, y):
    return scale(x, k, y), (x, k, y)


@register_backward(scale.id)
def scale_backward_per_tensor(x, k, y, g):  # wrong: one value per tensor input
    return g * k * y, g * k * x


a, b = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
thunder.jit(lambda a, b: scale(a, 2.0, b).sum())(a, b).backward()
print("one value per tensor input:        a.grad", a.grad, "| b.grad", b.grad)
torch.testing.assert_close(a.grad, 2 * b.detach())
assert b.grad is None  # the second value was paired with k, and dropped: no error
b1 = torch.randn(1, requires_grad=True)  # y of another shape: still no error, y's gradient still dropped
a.grad = None
thunder.jit(lambda a, b: scale(a, 2.0, b).sum())(a, b1).backward()
assert b1.grad is None and a.grad.shape == a.shape


@register_backward(scale.id)  # replaces the entry above
def scale_backward(x, k, y, g):  # one value per positional argument, in order: None for k
    return g * k * y, None, g * k * x


a.grad = None
thunder.jit(lambda a, b: scale(a, 2.0, b).sum())(a, b).backward()
print("one value per positional argument: a.grad", a.grad, "| b.grad", b.grad)
torch.testing.assert_close((a.grad, b.grad), (2 * b.detach(), 2 * a.detach()))

# k * x * y.sum(), with x of shape (3,) and y of shape (2,): a shifted value meets a tensor of another shape
scale_sum = gradex.register_operator(
    "scale_sum", meta=lambda k, x, y: TensorProxy(like=x), fn=lambda k, x, y: k * x * y.sum()
)


@register_augmented_forward(scale_sum.id)
def scale_sum_augmented_forward(k, x, y):
    return scale_sum(k, x, y), (k, x, y)


@register_backward(scale_sum.id)
def scale_sum_backward_per_tensor(k, x, y, g):  # wrong: one value per tensor input, no None for k
    return g * k * y.sum(), ltorch.expand((g * k * x).sum(), y.shape)


x3, y2 = torch.ones(3, requires_grad=True), torch.ones(2, requires_grad=True)
shape_error = None
try:
    thunder.jit(lambda x, y: scale_sum(2.0, x, y).sum())(x3, y2)
except RuntimeError as e:
    print(f"shifted onto a tensor of another shape: RuntimeError: {e}")
    shape_error = e
assert "Shapes were expected to be the same" in str(shape_error)  # put_grad's check

# outputs (x * 3, 3): one tensor output, one number
triple = gradex.register_operator("triple", meta=lambda x: (TensorProxy(like=x), 3), fn=lambda x: (x * 3, 3))
cotangent_counts = []


@register_augmented_forward(triple.id)
def triple_augmented_forward(x):
    return triple(x), ()  # no residuals


@register_backward(triple.id)
def triple_backward(*cotangents):
    cotangent_counts.append(len(cotangents))
    (g,) = cotangents  # one cotangent: the number 3 gets none
    return 3 * g


def use_triple(x):
    t, n = triple(x)
    return (t * n).sum()


xt = torch.randn(3, requires_grad=True)
thunder.jit(use_triple)(xt).backward()
print("triple: cotangents passed to the backward:", cotangent_counts, "| xt.grad", xt.grad)
assert cotangent_counts == [1]
torch.testing.assert_close(xt.grad, torch.full((3,), 9.0))
# --8<-- [end:backward-returns]

# --8<-- [start:augmented-forward-check]
out.backward()
x_ref = x.detach().clone().requires_grad_()
(x_ref * x_ref).sum().backward()  # the same function in eager PyTorch
torch.testing.assert_close(x.grad, x_ref.grad)
print("x.grad equals eager PyTorch's:", torch.equal(x.grad, x_ref.grad))

# finite differences: gradcheck perturbs each element of x and compares with the backward
print("gradcheck:", torch.autograd.gradcheck(jf, (x.detach().requires_grad_(),)))
stats = thunder.compile_stats(jf)
print("compilations:", stats.cache_misses, "| cache hits:", stats.cache_hits)
assert stats.cache_misses == 1 and stats.cache_hits > 1
# --8<-- [end:augmented-forward-check]

# --8<-- [start:register-grad]
mysoftplus = gradex.register_operator("mysoftplus", meta=lambda x: TensorProxy(like=x), fn=torch.nn.functional.softplus)


def mysoftplus_grad(x):
    out = mysoftplus(x)  # the forward
    g = get_grad(out)  # the gradient that flows into out
    put_grad(x, g * ltorch.sigmoid(x))  # the gradient of x: thunder.torch ops, not torch ops
    return out


register_grad(mysoftplus, mysoftplus_grad)  # a Symbol, or its id


def h(x):
    return mysoftplus(x * 2).sum()


jh = thunder.jit(h)
xs = torch.randn(3, dtype=torch.float64, requires_grad=True)
jh(xs).backward()
traces = thunder.last_traces(jh)
joint = next(t for t in traces if str(t.get_provenance()).startswith("# Constructed by Grad transform pass"))
print(joint.python(print_depth=1))

tagged = [b.sym.name for b in joint.bound_symbols if BoundSymbolTag.BACKWARD in b.tags]
print("tagged BACKWARD:", tagged)
assert "mysoftplus" not in tagged and "sigmoid" in tagged and "get_grad" in tagged
is_backward = [BoundSymbolTag.BACKWARD in b.tags for b in joint.bound_symbols[:-1]]  # without the return
first = is_backward.index(True)
assert not any(is_backward[:first]) and all(is_backward[first:])  # forward lines first, then backward lines
assert joint.bound_symbols[first].sym.name == "get_grad"
return_line = joint.bound_symbols[-1]  # the return: last, and untagged
assert return_line.sym.name == "python_return" and BoundSymbolTag.BACKWARD not in return_line.tags

# torch functions do not accept proxies: a rule written with torch.sigmoid fails
mybad = gradex.register_operator("mybad", meta=lambda x: TensorProxy(like=x), fn=torch.nn.functional.softplus)


def mybad_grad(x):
    out = mybad(x)
    put_grad(x, get_grad(out) * torch.sigmoid(x))
    return out


register_grad(mybad, mybad_grad)
try:
    thunder.jit(lambda x: mybad(x).sum())(xs)
except TypeError as e:
    print(f"with torch.sigmoid: TypeError: {e}")
    type_error = e
assert "must be Tensor, not TensorProxy" in str(type_error)

# a rule that never calls get_grad: its backward lines are left out, with no error
mynoget = gradex.register_operator("mynoget", meta=lambda x: TensorProxy(like=x), fn=torch.nn.functional.softplus)


def mynoget_grad(x):
    out = mynoget(x)
    put_grad(x, ltorch.full_like(x, 2.0))  # no get_grad
    return out


register_grad(mynoget, mynoget_grad)
noget_out = thunder.jit(lambda x: mynoget(x).sum())(xs)
print("a rule without get_grad: the output requires grad:", noget_out.requires_grad)
assert not noget_out.requires_grad  # the gradient is lost, silently
# --8<-- [end:register-grad]

# --8<-- [start:register-grad-split]
forward = thunder.last_traces(jh)[-1]
backward = thunder.last_backward_traces(jh)[-1]
print(forward.python(print_depth=1))
print(backward.python(print_depth=1))

xs_ref = xs.detach().clone().requires_grad_()
torch.nn.functional.softplus(xs_ref * 2).sum().backward()
torch.testing.assert_close(xs.grad, xs_ref.grad)
print("xs.grad equals eager PyTorch's:", torch.allclose(xs.grad, xs_ref.grad))
print("gradcheck:", torch.autograd.gradcheck(jh, (xs.detach().requires_grad_(),)))

# no executor implements sigmoid as one operation, so the execution transform used its subsymbols
implementing_sigmoid = [ex.name for ex in get_all_executors() if ltorch.sigmoid.id in ex.implmap]
print("executors that implement sigmoid as one operation:", implementing_sigmoid)
assert not ltorch.sigmoid.is_prim and implementing_sigmoid == []
decomposition = [b for b in backward.bound_symbols if b.sym.name in {"neg", "exp", "add", "reciprocal"}]
assert decomposition and all(b.sym.executor is thunder.executors.torchex.ex for b in decomposition)  # run by torch
assert "reciprocal" not in {b.sym.name for b in forward.bound_symbols}
assert {"neg", "exp", "reciprocal"} <= {b.sym.name for b in backward.bound_symbols}

# saved: the forward values that backward lines read, and no others; here the input of mysoftplus
(softplus_line,) = [b for b in forward.bound_symbols if b.sym.name == "mysoftplus"]
forward_names = {p.name for b in forward.bound_symbols for p in (*b.flat_proxy_args, *b.flat_proxy_outs)}
unpacking = {"unpack_trivial", "unpack_sequence", "python_return", "python_del", "clear_mutable_collection"}
read_by_backward = {p.name for b in backward.bound_symbols if b.sym.name not in unpacking for p in b.flat_proxy_args}
saved_names = [t.name for t in forward.output[1][0]]
assert set(saved_names) == read_by_backward & forward_names and saved_names == [softplus_line.args[0].name]
# --8<-- [end:register-grad-split]


# --8<-- [start:replaces]
def rotate(x, c, s):  # plain Python that the interpreter would otherwise trace through
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * c - x2 * s, x1 * s + x2 * c), dim=-1)


rotate_op = gradex.register_operator("rotate", meta=lambda x, c, s: TensorProxy(like=x), fn=rotate, replaces=rotate)


def r(x, c, s):
    return rotate(x, c, s).sum()


xr = torch.randn(2, 4, requires_grad=True)
c, s = torch.randn(2, 2), torch.randn(2, 2)

traced_through = thunder.jit(r)  # gradex not listed: its replacement is not used
traced_through(xr, c, s)
print("without executors=[gradex]:", sorted({b.sym.name for b in thunder.last_traces(traced_through)[0].bound_symbols}))

jr = thunder.jit(r, executors=[gradex])
try:
    jr(xr, c, s)
except RuntimeError as e:
    print(f"RuntimeError: {e}")
    error = e
assert str(error).startswith("Failed to find a gradient transform for bound symbol")
assert "rotate" not in {b.sym.name for b in thunder.last_traces(traced_through)[0].bound_symbols}
# --8<-- [end:replaces]


# --8<-- [start:replaces-grad]
@register_augmented_forward(rotate_op.id)
def rotate_augmented_forward(x, c, s):
    return rotate_op(x, c, s), (c, s)


@register_backward(rotate_op.id)
def rotate_backward(c, s, g):  # the transpose of the rotation
    g1, g2 = ltorch.chunk(g, 2, -1)
    return ltorch.cat((g1 * c + g2 * s, g2 * c - g1 * s), -1), None, None


jr = thunder.jit(r, executors=[gradex])
jr(xr, c, s).backward()
print(thunder.last_traces(jr)[-1].python(print_depth=1))

xr_ref = xr.detach().clone().requires_grad_()
rotate(xr_ref, c, s).sum().backward()
torch.testing.assert_close(xr.grad, xr_ref.grad)
print("xr.grad equals eager PyTorch's:", torch.allclose(xr.grad, xr_ref.grad))
assert [b.sym.name for b in thunder.last_traces(jr)[-1].bound_symbols].count("rotate") == 1
assert [t.name for t in thunder.last_traces(jr)[-1].output[1][0]] == ["c", "s"]  # the residuals of the rule
# --8<-- [end:replaces-grad]

# --8<-- [start:custom-op]
import linecache  # noqa: E402

from thunder.executors.custom_op_ex import custom_op_ex  # noqa: E402
from thunder.torch.custom_op import extract_saved_indices  # noqa: E402


@torch.library.custom_op("thunder_docs::scaled", mutates_args=())
def scaled(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * w.exp()


@scaled.register_fake
def _(x, w):
    return torch.empty_like(x)


# Thunder reads this function's source to learn what it saves (inspect.getsource). A file keeps
# the source; code run with exec() does not, so we keep it in linecache.
SETUP_CONTEXT = """
def scaled_setup_context(ctx, inputs, output):
    x, w = inputs
    ctx.save_for_backward(x, w)
"""
linecache.cache["<scaled_setup_context>"] = (len(SETUP_CONTEXT), None, SETUP_CONTEXT.splitlines(True), "<scaled_setup_context>")
exec(compile(SETUP_CONTEXT, "<scaled_setup_context>", "exec"))


def scaled_backward(ctx, g):
    x, w = ctx.saved_tensors
    return g * w.exp(), g * x * w.exp()


scaled.register_autograd(scaled_backward, setup_context=scaled_setup_context)

print("what Thunder reads from setup_context:", extract_saved_indices(scaled_setup_context))
no_source = {}
exec(compile(SETUP_CONTEXT, "<no source kept>", "exec"), no_source)
try:
    extract_saved_indices(no_source["scaled_setup_context"])
except RuntimeError as e:
    print(f"without its source: RuntimeError: {e}")
    no_source_error = e
assert str(no_source_error).startswith("Could not extract source code from setup_context function")
assert extract_saved_indices(scaled_setup_context).input_indices == [0, 1]

symbol = ltorch._register_custom_op(scaled)  # the torch.library op becomes a Thunder symbol
print(symbol.name, "| id:", symbol.id, "| prim:", symbol.is_prim)


def k(x, w):
    return torch.ops.thunder_docs.scaled(x, w).sin().sum()


xk = torch.randn(4, requires_grad=True)
wk = torch.randn(4, requires_grad=True)
jk = thunder.jit(k, executors=[custom_op_ex])
jk(xk, wk).backward()
print(thunder.last_traces(jk)[-1].python(print_depth=1))
print(thunder.last_backward_traces(jk)[-1].python(print_depth=1))

xk_ref, wk_ref = xk.detach().clone().requires_grad_(), wk.detach().clone().requires_grad_()
k(xk_ref, wk_ref).sum().backward()
torch.testing.assert_close((xk.grad, wk.grad), (xk_ref.grad, wk_ref.grad))
print("gradients equal eager PyTorch's:", torch.allclose(xk.grad, xk_ref.grad) and torch.allclose(wk.grad, wk_ref.grad))
saved_k = [t.name for t in thunder.last_traces(jk)[-1].output[1][0]]
assert len(saved_k) == 3 and saved_k[1:] == ["x", "w"]  # sin's input, then what setup_context saved
assert "thunder_docs_scaled_backward" in {b.sym.name for b in thunder.last_backward_traces(jk)[-1].bound_symbols}
# --8<-- [end:custom-op]

# --8<-- [start:custom-op-limits]
try:
    thunder.jit(lambda x, w: scaled(x, w).sum(), executors=[custom_op_ex])(xk, wk)
except NotImplementedError as e:
    print("calling scaled(x, w) itself:", f"NotImplementedError: {str(e).splitlines()[0]}")
    called_def = e
try:
    thunder.jit(k)(xk, wk)
except RuntimeError as e:
    print("without executors=[custom_op_ex]:", f"RuntimeError: {e}")
    no_executor = e
assert str(no_executor).startswith("Failed to find an executor for bound symbol")
assert isinstance(called_def, NotImplementedError)
# --8<-- [end:custom-op-limits]

# --8<-- [start:howto-override]
steex = OperatorExecutor("steex")  # an executor of our own, listed only where we want its rule
register_executor(steex)
st_relu = steex.register_operator("st_relu", like=ltorch.relu, fn=lambda a, inplace=False: torch.relu(a))


def relu_straight_through(a, inplace):  # the recorded arguments of the relu line
    out = st_relu(a, inplace)  # the forward, run by this executor
    put_grad(a, get_grad(out))  # the gradient passes through unchanged, even where a < 0
    return out


steex.register_implementation(ltorch.relu, st_relu, grad_transform=relu_straight_through)


def uses_relu(t):
    return torch.relu(t).sum()


xr_ = torch.tensor([-1.0, 2.0, -3.0, 4.0])
with_rule, plain = xr_.clone().requires_grad_(), xr_.clone().requires_grad_()
thunder.jit(uses_relu, executors=[steex])(with_rule).backward()  # this compiled function only
thunder.jit(uses_relu)(plain).backward()  # the default executors: Thunder's own rule
print("executors=[steex]:", with_rule.grad, "| default executors:", plain.grad)

assert torch.equal(with_rule.grad, torch.ones(4))  # the straight-through rule
assert torch.equal(plain.grad, (xr_ > 0).float())  # relu's own gradient, unchanged for everyone else
assert "steex" not in [ex.name for ex in thunder.get_default_executors()]

after_torch = xr_.clone().requires_grad_()
thunder.jit(uses_relu, executors=[thunder.executors.torchex.ex, steex])(after_torch).backward()
print("executors=[torch, steex]:", after_torch.grad)
assert torch.equal(after_torch.grad, (xr_ > 0).float())  # torch, listed first, runs relu: relu's own rule
# --8<-- [end:howto-override]

# --8<-- [start:howto-received]
received = []  # what each rule function was called with


def recording(rule):
    def wrapper(*args, **kwargs):
        received.append((rule.__name__, [type(a).__name__ if isinstance(a, TensorProxy) else a for a in args], kwargs))
        return rule(*args, **kwargs)
    wrapper.__name__ = rule.__name__
    return wrapper


steex.register_implementation(ltorch.relu, st_relu, grad_transform=recording(relu_straight_through))
shift = gradex.register_operator("shift", meta=lambda x, by=1.0, *, twice=False: TensorProxy(like=x),
                                 fn=lambda x, by=1.0, *, twice=False: x + by * (2 if twice else 1))


@register_augmented_forward(shift.id)
@recording
def shift_augmented_forward(x, by, *, twice):  # every parameter, the defaults filled in
    return shift(x, by, twice=twice), ()


@register_backward(shift.id)
def shift_backward(g):
    return g, None  # one value per positional argument: x and by


nudge = gradex.register_operator("nudge", meta=lambda x, by=0.5: TensorProxy(like=x), fn=lambda x, by=0.5: x + by)


@recording
def nudge_grad(x, by):  # a register_grad function: called the same way
    out = nudge(x, by)
    put_grad(x, get_grad(out))
    return out


register_grad(nudge, nudge_grad)
calls_ = {
    "torch.relu(t)": lambda t: torch.relu(t).sum(),
    "F.relu(t, inplace=False)": lambda t: torch.nn.functional.relu(t, inplace=False).sum(),
    "shift(t)": lambda t: shift(t).sum(),
    "shift(t, twice=True)": lambda t: shift(t, twice=True).sum(),
    "nudge(t)": lambda t: nudge(t).sum(),
}
for label, call in calls_.items():
    received.clear()
    jcall = thunder.jit(call, executors=[steex])
    jcall(xr_.clone().requires_grad_())
    ((rule_name, args, kwargs),) = received
    print(f"{label:26} -> {rule_name}(*{args}, **{kwargs})")
    recorded = next(b for b in thunder.last_traces(jcall)[0].bound_symbols if b.sym.name in ("relu", "shift", "nudge"))
    assert (len(recorded.args), recorded.kwargs) == (len(args), kwargs)  # the rule gets the line's args and kwargs
    assert [a for a in recorded.args if not isinstance(a, TensorProxy)] == [a for a in args if a != "TensorProxy"]

assert received == [("nudge_grad", ["TensorProxy", 0.5], {})]
try:
    steex.register_implementation(ltorch.relu, st_relu, grad_transform=lambda a: a)  # no room for inplace
    thunder.jit(uses_relu, executors=[steex])(xr_.clone().requires_grad_())
except TypeError as e:
    print(f"a rule without the inplace parameter: TypeError: {e}")
    narrow_error = e
assert "takes 1 positional argument but 2 were given" in str(narrow_error)
steex.register_implementation(ltorch.relu, st_relu, grad_transform=relu_straight_through)
# --8<-- [end:howto-received]
