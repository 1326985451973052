"""Writing a trace transform: three complete transforms, each checked against eager PyTorch."""

# --8<-- [start:setup]
import collections
import difflib

import torch

import thunder
import thunder.torch as ltorch
from thunder.core.module import ThunderModule
from thunder.core.proxies import TensorProxy, variableify
from thunder.core.trace import TraceProvenance, from_trace, tracectx
from thunder.core.transforms import TraceTag, insert_inplace, replace_inplace
from thunder.extend import OperatorExecutor


def fn(x, w):
    y = torch.sin(x @ w)
    return y * 2


x = torch.randn(4, 3)
w = torch.randn(3, 5)


def show_diff(before, after):
    """Print a unified diff of two traces, top-level lines only."""
    a = before.python(print_depth=1).splitlines()
    b = after.python(print_depth=1).splitlines()
    print("\n".join(difflib.unified_diff(a, b, "before", "after", lineterm="", n=1)).rstrip())


def made_by(traces, pss):
    """The index of the trace whose provenance is `pss`."""
    return next(i for i, t in enumerate(traces) if t.get_provenance() and t.get_provenance().pss == pss)
# --8<-- [end:setup]

# --8<-- [start:hooks]
class Recorder(thunder.Transform):
    """Implements every hook; each one only logs that it ran."""

    def __init__(self, name, log):
        self.name, self.log = name, log

    def transform_module(self, model):
        assert isinstance(model, ThunderModule)  # the module thunder.jit returns, not a trace
        self.log.append(f"{self.name}.transform_module")

    def transform_state_dict_for_submodule(self, model, submodule_name, state_dict):
        assert isinstance(model, ThunderModule) and isinstance(state_dict, dict)
        self.log.append(f"{self.name}.transform_state_dict_for_submodule({submodule_name!r})")
        return state_dict

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        self.log.append(f"{self.name}.transform_traces_pre_prologue")
        return prologue_trc, computation_trc, epilogue_trc

    def transform_trace_post_optimization(self, computation_trace, **kwargs):
        tags = sorted(str(tag) for tag in computation_trace.tags)
        self.log.append(f"{self.name}.transform_trace_post_optimization {tags}")
        return computation_trace

    def reverse_transform_state_dict_for_submodule(self, model, submodule_name, state_dict):
        self.log.append(f"{self.name}.reverse_transform_state_dict_for_submodule({submodule_name!r})")
        return state_dict


log = []
model = torch.nn.Sequential(torch.nn.Linear(3, 2))  # its parameters require grad
tmodel = thunder.jit(model, transforms=[Recorder("A", log), Recorder("B", log)])
log.append("--- thunder.jit returned")
first = torch.randn(4, 3)
first_out = tmodel(first)
log.append("--- first call returned")
second = torch.randn(4, 3)
second_out = tmodel(second)
log.append("--- second call returned")
assert torch.allclose(first_out, model(first)) and torch.allclose(second_out, model(second))  # as eager
grads_thunder = torch.autograd.grad(second_out.sum(), list(tmodel.parameters()))
grads_eager = torch.autograd.grad(model(second).sum(), list(model.parameters()))
assert all(torch.allclose(a, b) for a, b in zip(grads_thunder, grads_eager, strict=True))  # the gradient, as eager
tmodel.load_original_state_dict(model.state_dict())
log.append("--- load_original_state_dict returned")
tmodel.original_state_dict()
print("\n".join(log))

hooks = sorted(name for name in vars(thunder.Transform) if "transform" in name)
print("hooks:", hooks)

assert log[:3] == ["A.transform_module", "B.transform_module", "--- thunder.jit returned"]
assert log[3:9] == [
    "A.transform_traces_pre_prologue",
    "B.transform_traces_pre_prologue",
    "A.transform_trace_post_optimization ['TraceTag.AUGMENTED_FORWARD']",
    "A.transform_trace_post_optimization ['TraceTag.BACKWARD']",
    "B.transform_trace_post_optimization ['TraceTag.AUGMENTED_FORWARD']",
    "B.transform_trace_post_optimization ['TraceTag.BACKWARD']",
]
assert log[9:11] == ["--- first call returned", "--- second call returned"]
assert log[11:] == [
    "A.transform_state_dict_for_submodule('0')",
    "B.transform_state_dict_for_submodule('0')",
    "--- load_original_state_dict returned",
    "B.reverse_transform_state_dict_for_submodule('0')",  # in reverse order
    "A.reverse_transform_state_dict_for_submodule('0')",
]
assert len(hooks) == 5 and "reverse_transform_state_dict_for_submodule" in hooks

# A submodule without parameters or buffers gets no state-dict call, either way.
log_relu = []
relu_model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
trelu = thunder.jit(relu_model, transforms=[Recorder("A", log_relu)])
trelu.load_original_state_dict(relu_model.state_dict())
restored = trelu.original_state_dict()
print("Linear, ReLU, Linear:", [entry.removeprefix("A.") for entry in log_relu[1:]])
eager_state = relu_model.state_dict()
assert list(restored) == list(eager_state) and all(torch.equal(restored[k], eager_state[k]) for k in eager_state)

assert log_relu[1:] == [
    "A.transform_state_dict_for_submodule('0')",
    "A.transform_state_dict_for_submodule('2')",
    "A.reverse_transform_state_dict_for_submodule('0')",
    "A.reverse_transform_state_dict_for_submodule('2')",  # none for '1', the ReLU, nor for '', the Sequential
]


class NonPersistent(torch.nn.Module):
    """Holds only a buffer that is in no state dict."""

    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(3), persistent=False)

    def forward(self, x):
        return x * self.scale


log_buffer = []
buffer_model = torch.nn.Sequential(torch.nn.Linear(3, 3), NonPersistent())
tbuffer = thunder.jit(buffer_model, transforms=[Recorder("A", log_buffer)])
tbuffer.load_original_state_dict(buffer_model.state_dict())
restored_buffer = tbuffer.original_state_dict()
eager_buffer = buffer_model.state_dict()
assert list(restored_buffer) == list(eager_buffer) and all(torch.equal(restored_buffer[k], eager_buffer[k]) for k in eager_buffer)
assert [name for name, _ in buffer_model.named_buffers()] == ["1.scale"]  # submodule '1' holds a buffer...
assert log_buffer[1:] == [  # ...but has no entry in the state dict, so neither hook runs for it
    "A.transform_state_dict_for_submodule('0')",
    "A.reverse_transform_state_dict_for_submodule('0')",
]


# A MaterializationTransform later in the list calls transform_state_dict_for_submodule itself.
from thunder.transforms import MaterializationTransform  # noqa: E402


class Keys(thunder.Transform):
    """Notes each submodule the hook is called for, and the keys of the state dict it gets."""

    def __init__(self):
        self.calls = []

    def transform_state_dict_for_submodule(self, model, submodule_name, state_dict):
        self.calls.append((submodule_name, sorted(state_dict)))
        return state_dict


class LinearWithScale(torch.nn.Linear):
    """Its own weights, and a buffer that is in no state dict."""

    def __init__(self):
        super().__init__(3, 3)
        self.register_buffer("scale", torch.ones(3), persistent=False)


def materialized_calls(init):
    with torch.device("meta"):
        meta_model = torch.nn.Sequential(torch.nn.Linear(3, 3), LinearWithScale())
    keys = Keys()
    thunder.jit(meta_model, transforms=[keys, MaterializationTransform("cpu", init=init)])
    return keys.calls


weights = torch.nn.Sequential(torch.nn.Linear(3, 3), LinearWithScale()).state_dict()
with_scale, without_scale = ("1", ["bias", "scale", "weight"]), ("1", ["bias", "weight"])
assert materialized_calls(MaterializationTransform.init_from_original_module_init()) == [
    ("0", ["bias", "weight"]), with_scale]  # every materialized submodule
assert materialized_calls(MaterializationTransform.init_from_original_state_dict(weights)) == [
    with_scale, ("0", ["bias", "weight"]), without_scale]  # '1' for its buffer, then each through load_original_state_dict
assert materialized_calls(MaterializationTransform.init_from_transformed_state_dict(weights)) == [
    with_scale]  # only '1', for its buffer; load_state_dict runs no hook


class Tied(torch.nn.Module):
    """b's only parameter is a's: tied."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(3, 3, bias=False)
        self.b = torch.nn.Linear(3, 3, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


log_tied = []
tied_model = Tied()
ttied = thunder.jit(tied_model, transforms=[Recorder("A", log_tied)])
restored_tied = ttied.original_state_dict()
assert list(tied_model.state_dict()) == ["a.weight", "b.weight"]  # eager lists the tied weight twice...
assert list(restored_tied) == ["a.weight"] and torch.equal(restored_tied["a.weight"], tied_model.a.weight)  # Thunder once
assert log_tied[1:] == ["A.reverse_transform_state_dict_for_submodule('a')"]  # ...the hook runs for 'a' only

root_held = torch.nn.Linear(3, 2)  # the root module holds its parameters itself
restored_root = thunder.jit(root_held, transforms=[Recorder("A", [])]).original_state_dict()
assert list(root_held.state_dict()) == ["weight", "bias"] and list(restored_root) == [".weight", ".bias"]  # 0.2.6
assert torch.equal(restored_root[".weight"], root_held.weight) and torch.equal(restored_root[".bias"], root_held.bias)
try:  # so neither result loads back strictly
    Tied().load_state_dict(restored_tied)
except RuntimeError as error:
    assert 'Missing key(s) in state_dict: "b.weight"' in str(error), error
else:
    raise AssertionError("the tied state dict loaded")

import thunder.core.transforms

# thunder.jit's docstring names thunder.core.transforms.Transform: an import of the class there.
assert "thunder.core.transforms.Transform" in thunder.jit.__doc__
assert thunder.Transform.__module__ == "thunder.core.transform_common"  # where it is defined
assert thunder.core.transforms.Transform is thunder.Transform
# --8<-- [end:hooks]

# --8<-- [start:building-blocks]
jfn = thunder.jit(fn)
jfn(x, w)
trc = thunder.last_traces(jfn)[0]  # the interpreter's trace

new = from_trace(trc)
print("from_trace shares fn, args, siginfo:", new.fn is trc.fn, new.args is trc.args, new.siginfo() is trc.siginfo())
print("from_trace shares the names set:    ", new.names is trc.names)
print("bound symbols and provenance:       ", new.bound_symbols, new.get_provenance())

sin = next(b for b in trc.bound_symbols if b.sym.id == "torch.sin")
labelled = sin.from_bsym(header="a copy of the sin line, with a header")
print(labelled)

x_proxy = trc.args[0]
swapped = sin.from_bsym_swap_proxies({variableify(sin.args[0]): x_proxy})
print(swapped)

assert new.fn is trc.fn and new.args is trc.args and new.kwargs is trc.kwargs
assert new.siginfo() is trc.siginfo() and new.names is trc.names
assert new.tags == trc.tags and new.tags is not trc.tags  # the tags are copied
assert new.bound_symbols == [] and new.get_provenance() is None
assert labelled is not sin and labelled.output is sin.output and sin.header == ""
assert swapped.args[0] is x_proxy and sin.args[0] is not x_proxy
assert swapped.subsymbols[0].args[0] is x_proxy  # subsymbols are swapped too
assert sin.from_bsym_swap_proxies({}) is sin  # an empty map: no copy, the bound symbol itself
# --8<-- [end:building-blocks]

# --8<-- [start:replace]
def is_mul_by_two(bsym):
    return (
        bsym.sym.id == "torch.mul"
        and isinstance(bsym.args[0], TensorProxy)
        and type(bsym.args[1]) in (int, float)
        and bsym.args[1] == 2
    )


def mul_by_two_to_add(trc):
    new = from_trace(trc)
    swap_map = {}  # variableified old output -> the proxy that replaces it
    with tracectx(new):
        for bsym in trc.bound_symbols:
            bsym = bsym.from_bsym_swap_proxies(swap_map)  # later lines read the new output
            if is_mul_by_two(bsym):
                x = bsym.args[0]
                new.set_current_source_location(bsym.source_filename, bsym.source_positions)
                out = ltorch.add(x, x)  # appends a bound symbol (with subsymbols) to new
                swap_map[variableify(bsym.output)] = out
            else:
                new.bound_symbols.append(bsym)
    new.set_provenance(TraceProvenance("Replace x * 2 by x + x"))
    return new


class MulByTwoToAdd(thunder.Transform):
    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        return prologue_trc, mul_by_two_to_add(computation_trc), epilogue_trc


jfn = thunder.jit(fn, transforms=[MulByTwoToAdd()])
assert torch.equal(jfn(x, w), fn(x, w))

traces = thunder.last_traces(jfn)
i = made_by(traces, "Replace x * 2 by x + x")
show_diff(traces[i - 1], traces[i])

mul = next(b for b in traces[i - 1].bound_symbols if is_mul_by_two(b))
add = next(b for b in traces[i].bound_symbols if b.sym.id == "torch.add")
assert add.source_positions == mul.source_positions and str(add.subsymbols[0].sym.id) == "PrimIDs.ADD"
ops = [b.sym.name for b in traces[-1].bound_symbols]
assert "add" in ops and "mul" not in ops
k = traces[i].bound_symbols.index(add)  # the lines before it met an empty swap map...
assert all(b is a for b, a in zip(traces[i].bound_symbols[:k], traces[i - 1].bound_symbols))  # ...so: the same objects
assert not any(b is a for b in traces[i].bound_symbols[k + 1:] for a in traces[i - 1].bound_symbols)  # later: copies
# --8<-- [end:replace]

# --8<-- [start:insert]
class RoundMatmulToBF16(thunder.Transform):
    """After each matmul, round the result to bfloat16 and back to float32."""

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        new = from_trace(computation_trc)
        bsyms = []  # the new trace's lines, built here
        swap_map = {}
        with tracectx(new):
            for bsym in computation_trc.bound_symbols:
                bsym = bsym.from_bsym_swap_proxies(swap_map)
                bsyms.append(bsym)
                if bsym.sym.id == "torch.matmul":
                    new.set_current_source_location(bsym.source_filename, bsym.source_positions)
                    new.push_scope([])  # calls are now recorded in this list...
                    low = ltorch.to(bsym.output, torch.bfloat16)
                    back = ltorch.to(low, torch.float32)
                    bsyms += new.pop_scope()  # ...which goes right after the matmul
                    swap_map[variableify(bsym.output)] = back
        new.bound_symbols = bsyms
        new.set_provenance(TraceProvenance("Round matmul outputs to bfloat16"))
        return prologue_trc, new, epilogue_trc


def fn_rounded(x, w):  # what the transformed function must compute, in eager PyTorch
    y = torch.sin((x @ w).to(torch.bfloat16).to(torch.float32))
    return y * 2


jfn = thunder.jit(fn, transforms=[RoundMatmulToBF16()])
assert torch.equal(jfn(x, w), fn_rounded(x, w))
assert not torch.equal(jfn(x, w), fn(x, w))  # the rounding is really there

traces = thunder.last_traces(jfn)
i = made_by(traces, "Round matmul outputs to bfloat16")
show_diff(traces[i - 1], traces[i])
# --8<-- [end:insert]

# --8<-- [start:visitor]
from thunder.core.trace import get_tracectx
from thunder.core.transforms import VISIT_TYPE, visitor_transform


def visit(bsym):
    """Called once per bound symbol; what it calls is recorded in a fresh scope."""
    if not is_mul_by_two(bsym):
        return VISIT_TYPE.NO_OP  # keep the bound symbol as it is
    x, trc = bsym.args[0], get_tracectx()  # trc: the new trace that visitor_transform builds
    trc.set_current_source_location(bsym.source_filename, bsym.source_positions)
    trc.peek_scope().append(ltorch.add.bind(x, x, output=bsym.output))  # the same output
    return VISIT_TYPE.REPLACE  # the scope replaces the bound symbol


class VisitMulByTwo(thunder.Transform):
    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        new = visitor_transform(computation_trc, visit, provenance="Visit: x * 2 to x + x")
        return prologue_trc, new, epilogue_trc


jfn = thunder.jit(fn, transforms=[VisitMulByTwo()])
assert torch.equal(jfn(x, w), fn(x, w))

traces = thunder.last_traces(jfn)
i = made_by(traces, "Visit: x * 2 to x + x")
show_diff(traces[i - 1], traces[i])

assert traces[i] is not traces[i - 1] and len(traces[i].bound_symbols) == len(traces[i - 1].bound_symbols)
assert [b.sym.id for b in traces[i].bound_symbols if b.sym.id in ("torch.mul", "torch.add")] == ["torch.add"]
assert [b.sym.id for b in traces[i - 1].bound_symbols if b.sym.id in ("torch.mul", "torch.add")] == ["torch.mul"]
ran = [b for b in traces[-1].bound_symbols if b.sym.name == "add"]
bound = next(b for b in traces[i].bound_symbols if b.sym.id == "torch.add")
assert len(bound.subsymbols) == 0  # bind records no subsymbols...
assert len(ran) == 1 and ran[0].sym.executor.name == "torch"  # ...and the torch executor claims ltorch.add itself
# --8<-- [end:visitor]

# --8<-- [start:post-optimization]
calls = collections.Counter()  # how many times each trace ran
counter_ex = OperatorExecutor("counter")
count_call = counter_ex.register_operator(
    "count_call", meta=lambda kind: None, fn=lambda kind: calls.update([kind])
)


class CountCalls(thunder.Transform):
    """Before the return of each final trace, insert a call that counts its runs."""

    def __init__(self):
        self.seen = []  # the traces this pass was given

    def transform_trace_post_optimization(self, computation_trace, **kwargs):
        kind = "backward" if TraceTag.BACKWARD in computation_trace.tags else "forward"
        self.seen.append(kind)
        new = from_trace(computation_trace)
        new.bound_symbols = list(computation_trace.bound_symbols)  # a new list
        with tracectx(new):
            new.push_scope([])
            count_call(kind)
            new.bound_symbols[-1:-1] = new.pop_scope()  # before the return
        new.set_provenance(TraceProvenance("Count calls"))
        return new


count_calls = CountCalls()
jfn = thunder.jit(fn, transforms=[count_calls])
w_thunder = w.clone().requires_grad_()
to_torch_types = thunder.transform_to_torch_types
given_to_torch_types = []  # the traces that this pass after the hook is given


def noting_to_torch_types(trc, **kwargs):
    given_to_torch_types.append(trc)
    return to_torch_types(trc, **kwargs)


thunder.transform_to_torch_types = noting_to_torch_types
try:
    out_thunder = jfn(x, w_thunder)
    out_thunder.sum().backward()
finally:
    thunder.transform_to_torch_types = to_torch_types

w_eager = w.clone().requires_grad_()
out_eager = fn(x, w_eager)
out_eager.sum().backward()
assert torch.equal(out_thunder, out_eager) and torch.allclose(w_thunder.grad, w_eager.grad)

print("pass ran on:", count_calls.seen, "| traces ran:", dict(calls))
forward, backward = thunder.last_traces(jfn), thunder.last_backward_traces(jfn)
show_diff(forward[-2], forward[-1])
show_diff(backward[-2], backward[-1])

assert count_calls.seen == ["forward", "backward"] and calls == {"forward": 1, "backward": 1}
assert forward[-1].get_provenance().pss == backward[-1].get_provenance().pss == "Count calls"
assert any(t is forward[-1] for t in given_to_torch_types)  # a pass after the hook, on the forward
assert not any(TraceTag.BACKWARD in t.tags for t in given_to_torch_types)  # none on the backward
# --8<-- [end:post-optimization]

# --8<-- [start:cache-hit]
w_thunder.grad = None
hit_out = jfn(x, w_thunder)  # the same kind of inputs: a cache hit
hit_out.sum().backward()
assert torch.equal(hit_out, fn(x, w)) and torch.allclose(w_thunder.grad, w_eager.grad)
print("pass ran on:", count_calls.seen, "| traces ran:", dict(calls))
print("cache hits:", thunder.cache_hits(jfn))

assert count_calls.seen == ["forward", "backward"] and calls == {"forward": 2, "backward": 2}
# --8<-- [end:cache-hit]

# --8<-- [start:no-backward]
no_grad_calls = CountCalls()
jplain = thunder.jit(fn, transforms=[no_grad_calls])
assert torch.equal(jplain(x, w), fn(x, w))  # no input requires grad: no backward trace
plain = thunder.last_traces(jplain)
print("pass ran on:", no_grad_calls.seen)
show_diff(plain[-2], plain[-1])

assert no_grad_calls.seen == ["forward"] and plain[-2].get_provenance().pss == "Count calls"
assert plain[-1].get_provenance().pss == "Unwrap the actual return value"  # a pass after the hook
# --8<-- [end:no-backward]

# --8<-- [start:mutate]
class MutatingMulByTwoToAdd(thunder.Transform):
    """Wrong: overwrites the trace it was given and returns that same object."""

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        rewritten = mul_by_two_to_add(computation_trc)
        computation_trc.bound_symbols[:] = rewritten.bound_symbols  # in place
        return prologue_trc, computation_trc, epilogue_trc


jfn = thunder.jit(fn, transforms=[MutatingMulByTwoToAdd()])
assert torch.equal(jfn(x, w), fn(x, w))  # the result is still right

traces = thunder.last_traces(jfn)
for i, t in enumerate(traces[:4]):
    ops = [b.sym.name for b in t.bound_symbols if b.sym.name in ("mul", "add")]
    print(i, t.get_provenance(), ops)

assert not any(t.get_provenance() and "x + x" in t.get_provenance().pss for t in traces)
assert traces[2].get_provenance().pss == "Remove context manager prims"
assert [b.sym.name for b in traces[2].bound_symbols if b.sym.name in ("mul", "add")] == ["add"]
# --8<-- [end:mutate]

# --8<-- [start:shared-bsyms]
# Passes copy references: traces 0 and 1 hold some of the same bound symbol objects.
assert any(b is c for b in traces[0].bound_symbols for c in traces[1].bound_symbols)

# flat_args is computed on first use and cached: editing args afterwards leaves it stale.
edited = sin.from_bsym()
assert edited.flat_args[0] is sin.args[0]
edited.args = (x_proxy,)
assert edited.flat_args[0] is not x_proxy
# --8<-- [end:shared-bsyms]

# --8<-- [start:dce-edits]
seen = {}


class Look(thunder.Transform):
    """Changes nothing; notes the subsymbols of `y * 2` as this hook sees them."""

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        mul = next(b for b in computation_trc.bound_symbols if b.sym.id == "torch.mul")
        seen.update(mul=mul, subsymbols=[sub.sym.name for sub in mul.subsymbols])
        return prologue_trc, computation_trc, epilogue_trc


jlook = thunder.jit(fn, transforms=[Look()])
assert torch.equal(jlook(x, w), fn(x, w))
mul_after = next(b for b in thunder.last_traces(jlook)[0].bound_symbols if b.sym.id == "torch.mul")
print("in the hook:           ", seen["subsymbols"])
print("in last_traces(jlook)[0]:", [sub.sym.name for sub in mul_after.subsymbols])

assert mul_after is seen["mul"]  # the same bound symbol object...
assert seen["subsymbols"] == ["convert_element_type", "mul"]  # ...had two subsymbols in the hook
assert [sub.sym.name for sub in mul_after.subsymbols] == ["mul"]  # ...and DCE removed one in place
# --8<-- [end:dce-edits]

# --8<-- [start:inplace-helpers]
own = from_trace(traces[0])  # a trace of our own...
own.bound_symbols = list(traces[0].bound_symbols)  # ...with a list of our own
n = len(own.bound_symbols)

insert_inplace(own, 2, lambda: ltorch.cos(own.args[0]))  # changes `own`
assert len(own.bound_symbols) == n + 1 and own.bound_symbols[2].sym.id == "torch.cos"

assert own._complete  # insert_inplace left it marked complete...
replace_inplace(own, 2, lambda bsym: ltorch.sin(bsym.args[0]))  # ...and replace_inplace still changes it
assert len(own.bound_symbols) == n + 1 and own.bound_symbols[2].sym.id == "torch.sin"
assert len(traces[0].bound_symbols) == n  # the original is untouched
assert own._complete  # both helpers leave the trace marked complete: a symbol call raises
try:
    with tracectx(own):
        ltorch.cos(own.args[0])
except RuntimeError as error:
    assert "to a trace that is complete" in str(error), error
else:
    raise AssertionError("a symbol was recorded into a complete trace")
# --8<-- [end:inplace-helpers]
