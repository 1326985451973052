"""Names in real programs: a jitted nn.Module, nested inputs, and the metadata a TensorProxy carries."""

# --8<-- [start:setup]
import torch

import thunder
from thunder.core.devices import DeviceType
from thunder.core.module import ThunderModule
from thunder.core.trace import TraceCtx, tracectx
from thunder.core.proxies import DistParallelType, FloatProxy, IntegerProxy, ProxyTag, TensorProxy


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.fc(x))


model = Model()
tmodel = thunder.jit(model)
x = torch.randn(2, 4)
torch.testing.assert_close(tmodel(x), model(x))
first = thunder.last_traces(tmodel)[0]
print(first.python(print_depth=1).split("\n\n", 1)[1])
# --8<-- [end:setup]

# --8<-- [start:parameters]
prologue = thunder.last_prologue_traces(tmodel)[0]
for bsym in prologue.bound_symbols:
    line = str(bsym).splitlines()[0]
    if "get_parameter" in line or "return" in line:
        print(line)

assert [p.name for p in first.args] == ["x", "t_fc_bias", "t_fc_weight"]
assert first.siginfo().args == [("x", None), ("t_fc_bias", None), ("t_fc_weight", None)]
assert {"t_fc_weight", "t_fc_bias"} <= first.names and "t_0" in first.names
linear = next(b for b in first.bound_symbols if b.sym.name == "linear")
assert [a.name for a in linear.args] == ["x", "t_fc_weight", "t_fc_bias"]

# Where the name comes from: the path the interpreter read the weight through.
from thunder.core.jit_ext import _infer_name_postfix_from_provenance  # noqa: E402

print(first.args[2].history)
assert _infer_name_postfix_from_provenance(first.args[2].history) == "_fc_weight"  # _modules, _parameters dropped
assert "'_modules'" in str(first.args[2].history) and "'_parameters'" in str(first.args[2].history)
assert all(ProxyTag.STATIC_MEMORY_LOCATION in p.tags for p in first.args[1:])  # the parameters are tagged
assert ProxyTag.STATIC_MEMORY_LOCATION not in first.args[0].tags and first.args[0].history is not None
# --8<-- [end:parameters]

# --8<-- [start:whole-prologue]
prologues = thunder.last_prologue_traces(tmodel)
print(prologues[0])

checks_first = [b for b in prologues[0].bound_symbols if b.sym.name == "check_tensor_shape_and_metadata"]
assert [b.args[0].name for b in checks_first] == ["x", "t_fc_weight", "t_fc_bias"]
assert [b.args[-1] for b in checks_first] == [False, True, True]  # requires_grad: the parameters do
# --8<-- [end:whole-prologue]

# --8<-- [start:last-prologue]
print(prologues[-1].get_provenance())
for bsym in prologues[-1].bound_symbols:
    if bsym.sym.name.startswith("check_tensor"):
        print(f"{bsym.python(indent=0, print_depth=1)[0]:70} executor: {bsym.sym.executor.name}")

checks_last = [b for b in prologues[-1].bound_symbols if b.sym.name.startswith("check_tensor")]
assert [b.sym.name for b in checks_last] == ["check_tensor_metadata"] * 3
assert [b.args[0].name for b in checks_last] == ["x", "t_fc_weight", "t_fc_bias"]
assert all(b.sym.executor.name == "python" for b in checks_last)
assert prologues[-1].get_provenance().pss.startswith("Transform for execution")
from thunder.extend import get_always_executors  # noqa: E402

assert [ex.name for ex in get_always_executors()] == ["torch", "python"]  # they get what is left unclaimed
assert all(b.sym.executor is None or b.sym.executor.name == "python" for b in prologues[-1].bound_symbols)
# --8<-- [end:last-prologue]

# --8<-- [start:order]
def computation_parameters(module, *args, **kwargs):
    """The parameter names of the computation trace that a call of the jitted module runs."""
    jitted = thunder.jit(module)
    jitted(*args, **kwargs)
    return [name for name, _ in thunder.last_traces(jitted)[-1].siginfo().args]


class Mixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.zeta = torch.nn.Parameter(torch.ones(2))  # registered first, named last
        self.register_buffer("mid", torch.ones(2))
        self.layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(11)])
        self.alpha = torch.nn.Parameter(torch.ones(2))

    def forward(self, b, a, *, zz, aa):
        h = a * self.zeta
        for i in reversed(range(11)):  # used from the last layer to the first
            h = self.layers[i](h)
        return h * self.alpha + self.mid + b + zz + aa


def state_key(name):
    """Compare a dotted name component by component: numbers as numbers, names as text."""
    return [(0, int(part), "") if part.isnumeric() else (1, 0, part) for part in name.split(".")]


ones = torch.ones(1, 2)
modules = {
    "Model": (model, (x,), {}),
    "Sequential of 11 Linear": (torch.nn.Sequential(*[torch.nn.Linear(2, 2) for _ in range(11)]), (ones,), {}),
    "Mixed": (Mixed(), (ones, ones), {"zz": ones, "aa": ones}),
}
for label, (module, args, kwargs) in modules.items():
    names_in_order = computation_parameters(module, *args, **kwargs)
    print(f"{label}:", names_in_order)
    state = [n for n, _ in [*module.named_parameters(), *module.named_buffers()]]
    n_args = len(args) + len(kwargs)
    expected = ["t_" + n.replace(".", "_") for n in sorted(state, key=state_key)]
    assert names_in_order[n_args:] == expected, label  # the module's tensors: sorted by dotted name
assert names_in_order[:4] == ["b", "a", "aa", "zz"]  # positional by position, then keywords by name
assert computation_parameters(Mixed(), ones, ones, aa=ones, zz=ones)[:4] == ["b", "a", "aa", "zz"]
# --8<-- [end:order]

# --8<-- [start:thunder-module]
print(type(tmodel).__name__, "| an nn.Module:", isinstance(tmodel, torch.nn.Module))
print("parameters:", [name for name, _ in tmodel.named_parameters()])
print("the same tensors as the model's:", tmodel.get_parameter("fc.weight") is model.fc.weight)

assert isinstance(tmodel, ThunderModule) and tmodel._model is model
assert [n for n, _ in tmodel.named_parameters()] == ["fc.weight", "fc.bias"]
assert all(p is q for p, q in zip(tmodel.parameters(), model.parameters(), strict=True))
snapshot_model = torch.nn.Linear(4, 3)
jsnapshot = thunder.jit(snapshot_model)
first_out, first_weight = jsnapshot(x), snapshot_model.weight
snapshot_model.weight = torch.nn.Parameter(torch.zeros(3, 4))  # a new Parameter on the original, after jit
assert jsnapshot.get_parameter("weight") is first_weight and torch.equal(jsnapshot(x), first_out)  # not seen
with torch.no_grad():
    model.fc.bias.add_(1.0)  # a change to the model's parameters is seen by the ThunderModule
torch.testing.assert_close(tmodel(x), model(x))
assert thunder.cache_hits(tmodel) == 1  # same metadata: no recompilation
# --8<-- [end:thunder-module]

# --8<-- [start:nested]
def f(xs, d, scale):
    return xs[0] * xs[1] + d["b"] * scale


a, b, c = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)
jf = thunder.jit(f)
torch.testing.assert_close(jf([a, b], {"b": c}, 2.0), f([a, b], {"b": c}, 2.0))

nested_prologue = thunder.last_prologue_traces(jf)[0]
text = nested_prologue.python(print_depth=1)
print(text[text.index("  subscr0"):text.index("  cache_info:")].rstrip())
print("...")
print(str(nested_prologue.bound_symbols[-1]))
print(thunder.last_traces(jf)[0].python(print_depth=1).split("\n\n", 1)[1])

computation = thunder.last_traces(jf)[0]
assert [p.name for p in computation.args] == ["t_0_0", "t_0_1", "t_1_b"]
assert computation.siginfo().args == [("t_0_0", None), ("t_0_1", None), ("t_1_b", None)]
assert "scale" not in {p.name for p in computation.args}  # a Python number is checked, not passed
mul = [bb for bb in computation.bound_symbols if bb.sym.name == "mul"][1]
assert mul.args[1] == 2.0 and type(mul.args[1]) is float  # it is a constant in the computation
assert all(p.name == "t" + _infer_name_postfix_from_provenance(p.history) for p in computation.args)  # the path
unpacked = {p.name for bb in nested_prologue.bound_symbols for p in bb.flat_proxy_outs}
assert {"t_0_0", "t_0_1", "t_1_b"} <= unpacked  # the prologue unpacks them under the same names


def g(x, *, ys):  # a container passed by keyword: its keyword, not a position, is in the name
    return x + ys[0]


jg = thunder.jit(g)
torch.testing.assert_close(jg(a, ys=[b]), g(a, ys=[b]))
print("g(x, *, ys):", [p.name for p in thunder.last_traces(jg)[0].args])
assert [p.name for p in thunder.last_traces(jg)[0].args] == ["x", "t_ys_0"]
# --8<-- [end:nested]

# --8<-- [start:renamed]
def total(xs):
    out = xs[0]
    for t in xs[1:]:
        out = out + t
    return out


jtotal = thunder.jit(total)
torch.testing.assert_close(jtotal([a, b, c]), a + b + c)
print(thunder.last_traces(jtotal)[0].python(print_depth=1).split("\n\n", 1)[1])

assert [p.name for p in thunder.last_traces(jtotal)[0].args] == ["out", "t", "t_0_2"]
first_sum = next(bb for bb in thunder.last_traces(jtotal)[0].bound_symbols if bb.sym.name == "add")
assert first_sum.output.name == "t0" and [p.name for p in first_sum.args] == ["out", "t"]
assert {"t_0_0", "t_0_1"} <= thunder.last_traces(jtotal)[0].names  # the names they had first


def total_then_res(xs):
    out = xs[0]
    for t in xs[1:]:
        out = out + t
    res = out  # the last sum met `out` first, which was taken; `res` is free
    return res


jres = thunder.jit(total_then_res)
torch.testing.assert_close(jres([a, b, c]), a + b + c)
sums = [bb.output.name for bb in thunder.last_traces(jres)[0].bound_symbols if bb.sym.name == "add"]
print("with `res = out; return res`, the sums are named", sums)
assert sums == ["t0", "res"]  # a later free local still renames it


def reserved(x):
    obj = x * 2  # fn and obj are names Thunder reserves: they rename no proxy
    fn = obj + 1
    return fn


jreserved = thunder.jit(reserved)
torch.testing.assert_close(jreserved(a), reserved(a))
outs = [bb.output.name for bb in thunder.last_traces(jreserved)[0].bound_symbols if bb.sym.name in ("mul", "add")]
print("stored in `obj` and `fn`, the products are named", outs)
assert outs == ["t0", "t1"] and not {"obj", "fn"} & thunder.last_traces(jreserved)[0].names

W = torch.ones(3)  # a global: no local ever holds it


def reads_a_global(x):
    return x + W


def make_closure():
    V = torch.ones(3)

    def reads_a_closure_variable(x):
        return x * V  # V is a closure variable here

    return reads_a_closure_variable


reads_a_closure_variable = make_closure()
jglobal, jclosure = thunder.jit(reads_a_global), thunder.jit(reads_a_closure_variable)
for jitted, reads in ((jglobal, reads_a_global), (jclosure, reads_a_closure_variable)):
    torch.testing.assert_close(jitted(a), reads(a))
    print(f"{reads.__name__}: the computation's parameters are", [p.name for p in thunder.last_traces(jitted)[0].args])
assert [p.name for p in thunder.last_traces(jglobal)[0].args] == ["x", "W"]  # renamed after the global
assert "t___globals___W" in thunder.last_traces(jglobal)[0].names  # the name it had first
assert [p.name for p in thunder.last_traces(jclosure)[0].args] == ["x", "V"]  # after the closure variable
assert "t___closure___0_cell_contents" in thunder.last_traces(jclosure)[0].names
import inspect

from thunder.core.interpreter import INTERPRETER_CALLBACKS
from thunder.core.jit_ext import general_jit_callbacks

assert INTERPRETER_CALLBACKS.GLOBAL_CALLBACK in general_jit_callbacks  # reading a global renames
assert INTERPRETER_CALLBACKS.STORE_GLOBAL_CALLBACK not in general_jit_callbacks  # storing to one does not
assert list(inspect.signature(torch.nn.Sequential.forward).parameters)[1] == "input"  # PyTorch's local...
assert computation_parameters(torch.nn.Sequential(torch.nn.Linear(2, 2)), ones)[0] == "input"  # ...renames
# --8<-- [end:renamed]

# --8<-- [start:tensor-metadata]
weight = first.args[2]
print("name                      ", weight.name)
print("shape, len(shape), ndim   ", weight.shape, len(weight.shape), weight.ndim)
print("numel, numel()            ", weight.numel, weight.numel())
print("dtype                     ", weight.dtype, "->", thunder.torch.to_torch_dtype(weight.dtype))
print("device                    ", weight.device, weight.device.devicetype, weight.device.index)
print("requires_grad             ", weight.requires_grad, "| x:", first.args[0].requires_grad)
print("true_dtype                ", weight.true_dtype)
print("grad                      ", weight.grad)
print("distparallel_type         ", weight.distparallel_type)
print("thunder_fsdp_padding_size ", weight.thunder_fsdp_padding_size)
print("tags                      ", weight.tags, "| x:", first.args[0].tags)
print("type_string()             ", weight.type_string())
print("prefix                    ", weight.prefix)
print("history                   ", type(weight.history).__name__, "(printed above)")

assert isinstance(weight, TensorProxy) and not isinstance(weight, torch.Tensor)
assert weight.name == "t_fc_weight"
assert weight.shape == (3, 4) and len(weight.shape) == weight.ndim == 2
assert weight.numel == 12 and weight.numel() == 12  # an int that can also be called
assert weight.prefix == "t" and weight.history is not None
assert all(o.history is None for b in first.bound_symbols if b.sym.name in ("linear", "relu") for o in b.flat_proxy_outs)
assert weight.dtype == thunder.dtypes.float32 and thunder.torch.to_torch_dtype(weight.dtype) is torch.float32
assert weight.device.devicetype is DeviceType.CPU and weight.device.type == "cpu"
assert weight.requires_grad and not first.args[0].requires_grad
assert weight.true_dtype == weight.dtype and weight.grad is None
with tracectx(TraceCtx()):  # a tensor with no dimensions: its true_dtype is weak
    scalar = TensorProxy(like=weight, shape=())
print("a 0-d tensor's dtype, true_dtype:", scalar.dtype, scalar.true_dtype)
with tracectx(TraceCtx()):  # weak: a 0-d float64 tensor does not make the product float64
    product = thunder.torch.mul(weight, TensorProxy(like=weight, shape=(), dtype=thunder.dtypes.float64))
print("f32[3, 4] times a 0-d f64 tensor:", product.dtype)
assert product.dtype == thunder.dtypes.float32
with tracectx(TraceCtx()):  # of a higher kind, it does decide: int32 times a 0-d float64 tensor
    ints = TensorProxy(like=weight, dtype=thunder.dtypes.int32)
    by_tensor = thunder.torch.mul(ints, TensorProxy(like=weight, shape=(), dtype=thunder.dtypes.float64))
    by_float = thunder.torch.mul(ints, 2.5)
print("i32[3, 4] times a 0-d f64 tensor:", by_tensor.dtype, "| times 2.5:", by_float.dtype)
assert by_tensor.dtype == thunder.dtypes.float64 and by_float.dtype == thunder.dtypes.float32
with tracectx(TraceCtx()):  # its kind, at the float's precision: float32 times a 0-d complex128 is complex64
    by_complex = thunder.torch.mul(weight, TensorProxy(like=weight, shape=(), dtype=thunder.dtypes.complex128))
assert weight.dtype == thunder.dtypes.float32 and by_complex.dtype == thunder.dtypes.complex64
try:
    weight == weight  # noqa: B015 - == on proxies calls Thunder's eq symbol
except NotImplementedError as e:
    compare_error = e
print("weight == weight outside a trace:", compare_error)
assert "outside of a tracing context" in str(compare_error)
print("weight in [weight] outside a trace:", weight in [weight])  # identity first: eq is not called
with tracectx(TraceCtx()):
    inside = weight == weight  # inside a trace: an eq line and a bool tensor proxy
    try:
        weight in [TensorProxy(like=weight)]  # noqa: B015 - another proxy: eq, then bool() of its result
    except NotImplementedError as e:
        in_error = e
print("weight == weight inside a trace:", inside)
print("weight in [another proxy] inside a trace:", in_error)
assert weight in [weight] and isinstance(inside, TensorProxy) and inside.dtype == thunder.dtypes.bool8
assert str(in_error).startswith("casting a TensorProxy to a Python boolean is not supported")
assert scalar.dtype == thunder.dtypes.float32 and scalar.true_dtype == thunder.dtypes.float32_
assert scalar.true_dtype.is_weak
assert scalar.history is None and scalar.name.startswith(scalar.prefix)  # a name Thunder picked: t0
assert weight.distparallel_type is DistParallelType.NONE and weight.thunder_fsdp_padding_size is None
assert weight.tags == {ProxyTag.STATIC_MEMORY_LOCATION} and not first.args[0].tags  # parameters are tagged
assert weight.type_string() == "cpu f32[3, 4]"
# --8<-- [end:tensor-metadata]

# --8<-- [start:number-proxies]
numbers = [o for bsym in (*prologue.bound_symbols, *nested_prologue.bound_symbols)
           for o in bsym.flat_proxy_outs if isinstance(o, (IntegerProxy, FloatProxy))
           and not o.name.startswith("cache_info")]
for p in numbers:
    print(f"{p.name:<3} {type(p).__name__:<13} python_type={p.python_type.__name__:<6} "
          f"value={p.value!r:<5} prefix={p.prefix!r} annotation={p.type_string()!r}")

by_name = {p.name: p for p in numbers}
assert isinstance(by_name["i0"], IntegerProxy) and by_name["i0"].python_type is bool
assert by_name["i0"].prefix == "b" and by_name["i0"].type_string() == "bool True"
assert by_name["i2"].python_type is int and by_name["i2"].value == 4 and by_name["i2"].prefix == "i"
assert isinstance(by_name["f0"], FloatProxy) and by_name["f0"].value == 2.0 and by_name["f0"].prefix == "f"
# --8<-- [end:number-proxies]

# --8<-- [start:howto-your-line]
import inspect  # noqa: E402
from unittest import mock  # noqa: E402

from thunder.core.interpreter import InterpreterRuntimeCtx, unwrap  # noqa: E402


def where(trc, name):
    """The source position of the first line of trc that calls `name`."""
    line = next(b for b in trc.bound_symbols if b.sym.name == name)
    return f"{line.source_filename.split('site-packages/')[-1]}:{line.source_positions.lineno}", line


linear_at, linear_line = where(first, "linear")
print("recorded by Thunder: linear at", linear_at, "| relu at", where(first, "relu")[0])
assert linear_line.source_filename.endswith("torch/nn/modules/linear.py")  # torch's frame, not yours
assert not linear_line.header  # nothing else on the bound symbol says where it came from
assert {"source_filename", "source_positions"} == {f for f in vars(linear_line) if f.startswith("source")}
source = inspect.getsource(InterpreterRuntimeCtx.get_current_user_source_location)
assert all(m in source for m in ('"thunder.core.interpreter"', '"thunder.core.jit_ext"', '"thunder.torch"'))


def exp_by_method(t):
    return t.exp()  # a Tensor method


jexp = thunder.jit(exp_by_method)
jexp(x)
method_at, method_line = where(thunder.last_traces(jexp)[0], "exp")
print("a Tensor method:     exp at", method_at)
assert method_line.source_filename.endswith("thunder/torch/experimental/dtensor_torch_and_prims.py")  # Thunder's


def your_source_location(self):
    """Like Thunder's, but no frame of Thunder's modules or of torch's counts as the user's; the
    models that Thunder ships in thunder.tests (plain PyTorch) do count."""
    for frame in reversed(self.frame_stack):
        module = unwrap(frame.globals).get("__name__", "")
        thunders = module == "thunder" or (module.startswith("thunder.") and not module.startswith("thunder.tests."))
        if not (thunders or module.startswith("torch.") or module == "torch"):
            return frame.code.co_filename, frame.positions
    return None, None


with mock.patch.object(InterpreterRuntimeCtx, "get_current_user_source_location", your_source_location):
    tmodel_lines = thunder.jit(model)
    tmodel_lines(x)  # the call that compiles: the patch must be on while Thunder traces
yours_at, yours = where(thunder.last_traces(tmodel_lines)[0], "linear")
print("with the patch:       linear at", yours_at)
print("\n".join(line for line in thunder.last_traces(tmodel_lines)[-1].python(print_depth=1).splitlines()
                if line.startswith("  # /") or line.startswith("  # snippets") or "linear(" in line))

with mock.patch.object(InterpreterRuntimeCtx, "get_current_user_source_location", your_source_location):
    jit_only = thunder.jit(model)  # the patch around thunder.jit alone: nothing is traced yet
jit_only(x)  # Thunder traces here, at the first call, with its own lookup
assert where(thunder.last_traces(jit_only)[0], "linear")[1].source_filename.endswith("torch/nn/modules/linear.py")

forward_line = Model.forward.__code__.co_firstlineno + 1  # return torch.relu(self.fc(x))
assert yours.source_positions.lineno == forward_line and yours.source_filename == Model.forward.__code__.co_filename

with mock.patch.object(InterpreterRuntimeCtx, "get_current_user_source_location", your_source_location):
    jexp_lines = thunder.jit(exp_by_method)
    jexp_lines(x)
    jseq = thunder.jit(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()))  # torch's own module
    jseq(x)
yours_exp_at, yours_exp = where(thunder.last_traces(jexp_lines)[0], "exp")
print("with the patch:       exp at", yours_exp_at)
assert yours_exp.source_positions.lineno == exp_by_method.__code__.co_firstlineno + 1
seq_lines = [b for b in thunder.last_traces(jseq)[0].bound_symbols if b.sym.name in ("linear", "relu")]
print("with the patch, nn.Sequential jitted:", [(b.sym.name, b.source_filename) for b in seq_lines])
assert len(seq_lines) == 2 and all(b.source_filename is None and b.source_positions is None for b in seq_lines)

from thunder.tests import nanogpt_model  # noqa: E402  (a model Thunder ships, in plain PyTorch)

mlp = nanogpt_model.MLP(nanogpt_model.GPTConfig(n_embd=8, dropout=0.0, bias=True))
with mock.patch.object(InterpreterRuntimeCtx, "get_current_user_source_location", your_source_location):
    jmlp = thunder.jit(mlp)
    jmlp(torch.randn(2, 8))
mlp_at = [where(thunder.last_traces(jmlp)[0], name)[0] for name in ("linear", "gelu")]
print("with the patch, nanogpt_model.MLP:", mlp_at)
assert all(at.startswith("thunder/tests/nanogpt_model.py:") for at in mlp_at)
# --8<-- [end:howto-your-line]

# --8<-- [start:howto-stale-line]
import thunder.torch as ltorch  # noqa: E402
from thunder.extend import OperatorExecutor, register_executor  # noqa: E402

replacing_ex = OperatorExecutor("names_replacing")  # an executor whose operator replaces torch.sin
register_executor(replacing_ex)
replacing_ex.register_operator("my_sin", like=ltorch.sin, fn=torch.sin, replaces=torch.sin)


def sin_of_double(a):
    b = a * 2
    return torch.sin(b)


jstale = thunder.jit(sin_of_double, executors=[replacing_ex])
jstale(x)
mul_at, _ = where(thunder.last_traces(jstale)[0], "mul")
my_sin_at, my_sin_line = where(thunder.last_traces(jstale)[0], "my_sin")
print("mul at", mul_at, "| my_sin at", my_sin_at)
assert my_sin_line.source_positions.lineno == sin_of_double.__code__.co_firstlineno + 1  # the mul's line, b = a * 2
assert mul_at == my_sin_at

from thunder.dynamo import thunderfx  # noqa: E402

cmodel = thunderfx(model)
cmodel(x)
(fx_linear,) = [n for info in cmodel._backend.subgraph_infos for n in info.original_graph_module.graph.nodes
                if n.op == "call_function" and n.target is torch._C._nn.linear]
print("the FX node's stack_trace:")
print(fx_linear.meta["stack_trace"].rstrip())
stack_files = [line.split('"')[1] for line in fx_linear.meta["stack_trace"].splitlines() if line.lstrip().startswith("File ")]
assert stack_files == [Model.forward.__code__.co_filename]  # your frame only: no frame of torch's Linear.forward


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return torch.exp(t)  # the operation inside forward: the apply line takes this position

    @staticmethod
    def backward(ctx, g):
        return g


def exp_of_double(a):
    b = a * 2
    return Exp.apply(b)


jexp_fn = thunder.jit(exp_of_double)
jexp_fn(x)
apply_line = next(b for b in thunder.last_traces(jexp_fn)[0].bound_symbols if b.sym.name.startswith("Exp"))
assert apply_line.source_positions.lineno == Exp.forward.__code__.co_firstlineno + 2  # inside forward
# --8<-- [end:howto-stale-line]
