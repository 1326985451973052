"""Autograd traces: the forward and backward traces Thunder makes when an input requires grad."""

# --8<-- [start:setup]
import torch

import thunder
from thunder.core.proxies import TensorProxy
from thunder.core.symbol import BoundSymbolTag
from thunder.core.transforms import TraceTag


def fn(x, w1, w2):
    h = torch.relu(x @ w1)
    return h @ w2


x = torch.randn(2, 3)  # data: no grad
w1 = torch.randn(3, 4, requires_grad=True)  # weights
w2 = torch.randn(4, 2, requires_grad=True)

jfn = thunder.jit(fn)
out = jfn(x, w1, w2)
print(out.requires_grad, out.grad_fn.name())
print("its next function:", out.grad_fn.next_functions[0][0].name())
assert out.requires_grad and out.grad_fn.name() == "ThunderOutputFunctionBackward"
assert out.grad_fn.next_functions[0][0].name() == "ThunderFunctionBackward"  # the node that runs the backward
# --8<-- [end:setup]

# --8<-- [start:provenance]
for i, trc in enumerate(thunder.last_traces(jfn)):
    print(i, trc.get_provenance(), sorted(str(tag) for tag in trc.tags))

grad_pass = next(t for t in thunder.last_traces(jfn) if "Grad transform pass" in str(t.get_provenance()))
assert grad_pass.tags == set()  # the grad pass's own trace: no tag
assert TraceTag.AUGMENTED_FORWARD in thunder.last_traces(jfn)[-1].tags  # the split's forward: tagged


def grad_pass_ran(jitted):
    return any("Grad transform pass" in str(t.get_provenance()) for t in thunder.last_traces(jitted))


def ignores_w1(x, w1):
    return x * 2  # w1 requires grad, but nothing reads it


jignore = thunder.jit(ignores_w1)
ignored = jignore(x, w1)
print("w1 unused: grad pass:", grad_pass_ran(jignore), "| backward traces:", len(thunder.last_backward_traces(jignore)))
assert [p.name for p in thunder.last_traces(jignore)[0].args] == ["x"]  # only the inputs used
assert not grad_pass_ran(jignore) and thunder.last_backward_traces(jignore) == [] and not ignored.requires_grad

jshape = thunder.jit(lambda x, w1: x * w1.shape[0])  # reads only w1's shape
assert not jshape(x, w1).requires_grad and thunder.last_backward_traces(jshape) == []
assert [p.name for p in thunder.last_traces(jshape)[0].args] == ["x"] and not grad_pass_ran(jshape)  # no pass at all

jcompare = thunder.jit(lambda x, w1: x * (w1 > 0).sum())  # only compares w1
assert not jcompare(x, w1).requires_grad
assert [p.name for p in thunder.last_traces(jcompare)[0].args] == ["x", "w1"] and grad_pass_ran(jcompare)
assert thunder.last_backward_traces(jcompare) == []  # the pass ran, and found nothing differentiable reading w1

jsize = thunder.jit(lambda x, w1: x * w1.size(0))  # size(), unlike .shape, is read in the computation
assert not jsize(x, w1).requires_grad and thunder.last_backward_traces(jsize) == []
assert [p.name for p in thunder.last_traces(jsize)[0].args] == ["x", "w1"] and grad_pass_ran(jsize)

jargmax = thunder.jit(lambda x, w1: x * w1.argmax())  # another non-differentiable use of w1
assert not jargmax(x, w1).requires_grad and grad_pass_ran(jargmax) and thunder.last_backward_traces(jargmax) == []

for no_rule in (torch.round, torch.trunc, torch.argmin):  # Thunder has no rule for their prims
    for reads_x in (False, True):  # on w1, which requires grad, and on x, which does not
        try:
            thunder.jit(lambda x, w1: (x @ w1) * no_rule(x if reads_x else w1).sum())(x, w1)
        except RuntimeError as error:
            assert "Failed to find a gradient transform" in str(error), error
        else:
            raise AssertionError(f"{no_rule.__name__} compiled")

w1_copy = w1.detach().clone().requires_grad_()
jdetached = thunder.jit(lambda x, w: x @ w.detach())  # w only through detach: a backward all the same
jdetached(x, w1_copy).sum().backward()
assert len(thunder.last_backward_traces(jdetached)) == 1 and torch.count_nonzero(w1_copy.grad) == 0

jnograd = thunder.jit(fn)
with torch.no_grad():
    under_no_grad = jnograd(x, w1, w2)
print("under no_grad: grad pass:", grad_pass_ran(jnograd), "| backward traces:", len(thunder.last_backward_traces(jnograd)))
assert grad_pass_ran(jnograd)  # the pass runs: its inputs require grad
assert thunder.last_backward_traces(jnograd) == [] and not under_no_grad.requires_grad  # but no backward

jdisabled = thunder.jit(fn, disable_torch_autograd=True)  # the option that turns it off
jdisabled(x, w1, w2)
assert not grad_pass_ran(jdisabled) and thunder.last_backward_traces(jdisabled) == []
# --8<-- [end:provenance]

# --8<-- [start:forward]
fw = thunder.last_traces(jfn)[-1]
print(fw.python(print_depth=1))
assert TraceTag.AUGMENTED_FORWARD in fw.tags
# --8<-- [end:forward]

# --8<-- [start:saved]
result, (saved_tensors, saved_other) = fw.bound_symbols[-1].args  # the return line
print("result keys:      ", sorted(result))
print("output:           ", result["output"])
assert isinstance(result["output"], tuple) and len(result["output"]) == 1  # fn returns one tensor: a 1-tuple
print("saved non-tensors:", list(saved_other))
made_by = {  # output name -> the operation that made it
    b.output.name: b.sym.name
    for b in fw.bound_symbols
    if isinstance(b.output, TensorProxy) and b.sym.name != "unpack_trivial"
}
for t in saved_tensors:
    dtype = str(t.dtype).removeprefix("thunder.dtypes.")
    print(f"saved {t.name:4} {dtype:8} made by: {made_by.get(t.name, 'an input')}")

saved_names = {t.name for t in saved_tensors}
assert {"x", "w2"} <= saved_names and "w1" not in saved_names
assert sorted(made_by[t.name] for t in saved_tensors if t.name in made_by) == ["gt", "where"]
# --8<-- [end:saved]

# --8<-- [start:backward]
bw = thunder.last_backward_traces(jfn)[-1]
print(bw.python(print_depth=1))
print("parameters:", [name for name, _ in bw.siginfo().args])

assert TraceTag.BACKWARD in bw.tags
assert [name for name, _ in bw.siginfo().args] == ["saved_for_backward", "cotangents"]
assert "C0, C1, = saved_for_backward" in bw.python()  # saved tensors, saved non-tensors

plumbing = {"unpack_trivial", "unpack_sequence", "clear_mutable_collection", "python_del", "python_return"}
unpacked = next(b for b in bw.bound_symbols if b.sym.name == "unpack_sequence" and b.args[0].name == "C0")
assert [p.name for p in unpacked.flat_proxy_outs] == [t.name for t in saved_tensors]  # the forward's names
forward_names = {p.name for b in fw.bound_symbols for p in (*b.flat_proxy_args, *b.flat_proxy_outs)}
read_by_backward = {p.name for b in bw.bound_symbols if b.sym.name not in plumbing for p in b.flat_proxy_args}
assert saved_names == read_by_backward & forward_names  # saved: exactly the forward values the backward reads
(grads,) = bw.bound_symbols[-1].args  # the return line
assert len(grads) == 3 and grads[0] is None  # one per input of the forward: None for x


def two_outputs(x, w1):
    return x @ w1, x * 2  # the second output does not depend on w1


j2 = thunder.jit(two_outputs)
j2(x, w1)
cotangents = thunder.last_backward_traces(j2)[-1].args[1]
print("cotangents of two_outputs:", cotangents)
assert len(cotangents) == 2 and isinstance(cotangents[0], TensorProxy) and cotangents[1] is None


def returns_twice(x, w1):
    y = x @ w1
    return y, y  # one tensor, returned twice


jtwice = thunder.jit(returns_twice)
jtwice(x, w1)
twice_output = thunder.last_traces(jtwice)[-1].bound_symbols[-1].args[0]["output"]
assert len(twice_output) == 1 and len(thunder.last_backward_traces(jtwice)[-1].args[1]) == 1  # once each
# --8<-- [end:backward]

# --8<-- [start:tags]
def tagged(trc):
    return sorted({b.sym.name for b in trc.bound_symbols if BoundSymbolTag.BACKWARD in b.tags})


print("forward, tagged BACKWARD: ", tagged(fw))
print("backward, tagged BACKWARD:", tagged(bw))
print("backward, untagged:       ", sorted({b.sym.name for b in bw.bound_symbols} - set(tagged(bw))))

assert tagged(fw) == [] and "matmul" in tagged(bw)
assert {b.sym.name for b in bw.bound_symbols} - set(tagged(bw)) == plumbing  # only these lines are untagged

from thunder.core.trace import TraceTag  # noqa: E402
from thunder.executors.torch_compile import torch_compile_ex  # noqa: E402

jfused = thunder.jit(fn, executors=[torch_compile_ex])  # a fusion executor: the backward's work is one region
jfused(x, w1.detach().clone().requires_grad_(), w2.detach().clone().requires_grad_()).sum().backward()  # copies: w1.grad stays
bw_fused = thunder.last_backward_traces(jfused)[-1]
regions = [b for b in bw_fused.bound_symbols if b.sym.is_fusion]
assert regions and not any(BoundSymbolTag.BACKWARD in b.tags for b in regions)  # a region carries no tag
assert TraceTag.BACKWARD in bw_fused.tags  # the trace's own tag holds
# --8<-- [end:tags]

# --8<-- [start:gradients]
out.sum().backward()

w1_ref = w1.detach().clone().requires_grad_()
w2_ref = w2.detach().clone().requires_grad_()
fn(x, w1_ref, w2_ref).sum().backward()

print("w1.grad matches:", torch.allclose(w1.grad, w1_ref.grad))
print("w2.grad matches:", torch.allclose(w2.grad, w2_ref.grad))
print("x.grad:", x.grad)
assert torch.allclose(w1.grad, w1_ref.grad) and torch.allclose(w2.grad, w2_ref.grad) and x.grad is None


class GradForX(torch.autograd.Function):  # returns a gradient even for x
    @staticmethod
    def forward(ctx, x, w):
        return x * w

    @staticmethod
    def backward(ctx, g):
        return torch.ones_like(g), torch.ones_like(g)


x_plain, w_plain = torch.randn(2), torch.randn(2, requires_grad=True)
GradForX.apply(x_plain, w_plain).sum().backward()
print("a gradient returned for an input without requires_grad: its .grad is", x_plain.grad)
assert not x.requires_grad and x_plain.grad is None and w_plain.grad is not None  # PyTorch drops it

x_grad = x.clone().requires_grad_()
jx = thunder.jit(fn)
jx(x_grad, w1, w2)
(grads_x,) = thunder.last_backward_traces(jx)[-1].bound_symbols[-1].args
print("with x requiring grad, the backward returns for x:", type(grads_x[0]).__name__)
assert isinstance(grads_x[0], TensorProxy)  # the None above came from x not requiring grad
# --8<-- [end:gradients]

# --8<-- [start:stale]
jfn = thunder.jit(fn)
jfn(x, w1, w2)  # compiles variant 1, with a backward
print("1. grad call:    ", len(thunder.last_backward_traces(jfn)), "backward trace(s)")

with torch.no_grad():
    jfn(x, w1, w2)  # compiles variant 2, without one
print("2. no_grad call: ", len(thunder.last_backward_traces(jfn)), "backward trace(s)")

jfn(x, w1, w2)  # a cache hit on variant 1
print("3. grad call:    ", len(thunder.last_backward_traces(jfn)), "backward trace(s)",
      "| forward tags:", sorted(str(tag) for tag in thunder.last_traces(jfn)[-1].tags))

stats = thunder.compile_stats(jfn)
assert (stats.cache_misses, stats.cache_hits) == (2, 1)
assert thunder.last_backward_traces(jfn) == []  # stale: left over from variant 2
assert TraceTag.AUGMENTED_FORWARD in thunder.last_traces(jfn)[-1].tags

jfn2 = thunder.jit(fn)
jfn2(x, w1, w2)  # variant A, with grad
jfn2(torch.randn(5, 3), w1, w2)  # variant B, with grad, another batch size
jfn2(x, w1, w2)  # a cache hit on A
(cotangent,) = thunder.last_backward_traces(jfn2)[-1].args[1]
print("after a hit on A: backward for a cotangent of shape", tuple(cotangent.shape))
assert tuple(cotangent.shape) == (5, 2)  # B's backward, not A's
# --8<-- [end:stale]

# --8<-- [start:workaround]
entry = next(e for e in stats.interpreter_cache if e.computation_traces is thunder.last_traces(jfn))
print(len(entry.backward_traces), "backward trace(s) in the cache entry that ran")
print("its parameters:", [name for name, _ in entry.backward_traces[-1].siginfo().args])
assert TraceTag.BACKWARD in entry.backward_traces[-1].tags
# --8<-- [end:workaround]
