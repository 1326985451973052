"""Gradients and memory: rematerialization between fusion regions, activation checkpointing, the
saved-tensor layout, and a transform that edits the forward and the backward together."""

# --8<-- [start:remat-setup]
from collections import Counter
from unittest import mock

import torch

import thunder
import thunder.executors.torch_compile as torch_compile_module
from thunder.core.vjp_utils import get_saved_for_backward_tensors
from thunder.executors.torch_compile import torch_compile_ex


def f(x, w):
    a = torch.tanh(x @ w)
    b = torch.sin(a) * 2
    return (b.exp() + a).sum()


torch.manual_seed(0)  # the same numbers in every run: on the page, as a script, in the notebook
x = torch.randn(4, 8)
w = torch.randn(8, 8, requires_grad=True)


def saved(jfn):  # the names of the tensors the forward trace saves for the backward
    return [t.name for t in get_saved_for_backward_tensors(thunder.last_traces(jfn)[-1])]


# the same compilation with the pass replaced by one that returns its input unchanged
j_without = thunder.jit(f, executors=[torch_compile_ex])
with mock.patch.object(torch_compile_module, "rematerialize", lambda trace: trace):
    j_without(x, w)
print("saved without rematerialization:", saved(j_without))
# --8<-- [end:remat-setup]

# --8<-- [start:remat-without]
print(thunder.last_traces(j_without)[-1].python(print_depth=2))
print(thunder.last_backward_traces(j_without)[-1].python(print_depth=2))
# --8<-- [end:remat-without]

# --8<-- [start:remat-with]
j_with = thunder.jit(f, executors=[torch_compile_ex])
out = j_with(x, w)
print("saved with rematerialization:", saved(j_with))
print(thunder.last_traces(j_with)[-1].python(print_depth=2))
print(thunder.last_backward_traces(j_with)[-1].python(print_depth=2))
# --8<-- [end:remat-with]


# --8<-- [start:remat-check]
def backward_region_ops(jfn):  # the operations inside the backward's fusion region, counted
    (region,) = [b for b in thunder.last_backward_traces(jfn)[-1].bound_symbols if b.sym.is_fusion]
    return Counter(b.sym.name for b in region.subsymbols)


moved = backward_region_ops(j_with) - backward_region_ops(j_without)
print("recomputed in the backward:", sorted(moved.elements()))
print("saved tensors:", len(saved(j_without)), "->", len(saved(j_with)))

out.backward()
w_ref = w.detach().clone().requires_grad_()
f(x, w_ref).backward()
torch.testing.assert_close(w.grad, w_ref.grad)  # raises if not close
print("w.grad is close to eager PyTorch's (torch.testing.assert_close passed)")

assert len(saved(j_with)) < len(saved(j_without))
assert set(saved(j_with)) < set(saved(j_without))
assert sorted(moved.elements()) == ["exp", "mul", "sin"]  # and not the matmul
assert (thunder.core.dtypes.float32.bytes, thunder.core.dtypes.bool8.bytes) == (4, 1)  # find_cut's weights


def forward_region(jfn):
    (region,) = [b for b in thunder.last_traces(jfn)[-1].bound_symbols if b.sym.is_fusion]
    return region


made_by = {o.name: b.sym.name for b in forward_region(j_without).subsymbols for o in b.flat_proxy_outs}
assert [made_by.get(name, "an input") for name in saved(j_without)] == ["exp", "tanh", "an input"]
assert [b.sym.name for b in forward_region(j_with).subsymbols] == [b.sym.name for b in forward_region(j_without).subsymbols]
for jfn in (j_without, j_with):
    region, fw_trace = forward_region(jfn), thunder.last_traces(jfn)[-1]
    (result,) = fw_trace.output[0]["output"]
    region_outs = sorted(p.name for p in region.flat_proxy_outs)
    # the region returns the saved tensors it makes, plus the result; x is saved, but is an input of the region
    assert region_outs == sorted([n for n in saved(jfn) if n != "x"] + [result.name])
    assert "x" in saved(jfn) and "x" in {p.name for p in region.flat_proxy_args} and "x" not in region_outs
    # what the backward region reads, apart from the cotangent, is what the forward saves
    (bw_region,) = [b for b in thunder.last_backward_traces(jfn)[-1].bound_symbols if b.sym.is_fusion]
    (cotangent,) = [p.name for p in bw_region.flat_proxy_args if p.name not in saved(jfn)]
    assert sorted(p.name for p in bw_region.flat_proxy_args if p.name != cotangent) == sorted(saved(jfn))
    # the matmul's output is neither saved nor recomputed: the tanh result, computed from it, is saved
    (matmul_line,) = [b for b in region.subsymbols if b.sym.name == "matmul"]
    (tanh_line,) = [b for b in region.subsymbols if b.sym.name == "tanh"]
    assert matmul_line.output.name not in saved(jfn) and tanh_line.args[0].name == matmul_line.output.name
    assert tanh_line.output.name in saved(jfn)
# --8<-- [end:remat-check]


# --8<-- [start:remat-forward]
from thunder.core.proxies import TensorProxy  # noqa: E402
from thunder.extend import OperatorExecutor, register_executor  # noqa: E402

opaqueex = OperatorExecutor("opaqueex")
register_executor(opaqueex)
# an operation torch.compile cannot fuse: it splits the fusion regions around it
opaque = opaqueex.register_operator("opaque", meta=lambda t: TensorProxy(like=t), fn=lambda t: t.clone())


def g(x):
    a = torch.sin(x)
    b = opaque(a * 2)
    return b + a


def regions(jfn):  # each fusion region: (inputs, outputs, operations)
    return [
        ([p.name for p in b.flat_proxy_args], [p.name for p in b.flat_proxy_outs], [s.sym.name for s in b.subsymbols])
        for b in thunder.last_traces(jfn)[-1].bound_symbols
        if b.sym.is_fusion
    ]


xg = torch.randn(8)
g_without = thunder.jit(g, executors=[opaqueex, torch_compile_ex])
with mock.patch.object(torch_compile_module, "rematerialize", lambda trace: trace):
    g_without(xg)
g_with = thunder.jit(g, executors=[opaqueex, torch_compile_ex])
torch.testing.assert_close(g_with(xg), torch.sin(xg) * 2 + torch.sin(xg))
for name, jfn in (("without", g_without), ("with", g_with)):
    print(f"{name} rematerialization:")
    for inputs, outputs, operations in regions(jfn):
        print(f"  region({', '.join(inputs)}) -> {', '.join(outputs)}: {operations}")
print(thunder.last_traces(g_with)[-1].python(print_depth=2))

(_, out0_without, _), (in1_without, _, ops1_without) = regions(g_without)
(_, out0_with, _), (in1_with, _, ops1_with) = regions(g_with)
assert "a" in out0_without and "a" in in1_without and "sin" not in ops1_without  # a is kept across opaque
assert "a" not in out0_with and "x" in in1_with and ops1_with.count("sin") == 1  # region 2 recomputes a
# --8<-- [end:remat-forward]

# --8<-- [start:checkpoint]
def block(x, w):
    return torch.tanh(x @ w) @ w


def plain(x, w):
    return block(x, w).sum()


def checkpointed(x, w):
    return torch.utils.checkpoint.checkpoint(block, x, w, use_reentrant=False).sum()


w.grad = None
j_plain, j_ckpt = thunder.jit(plain), thunder.jit(checkpointed)
j_plain(x, w).backward()
grad_plain, w.grad = w.grad, None
j_ckpt(x, w).backward()
print("saved, plain:       ", saved(j_plain))
print("saved, checkpointed:", saved(j_ckpt))
print(thunder.last_backward_traces(j_ckpt)[-1].python(print_depth=1))

torch.testing.assert_close(w.grad, grad_plain)
print("same gradient:", torch.allclose(w.grad, grad_plain))


def ops(trc):
    return sorted(b.sym.name for b in trc.bound_symbols)


bw_plain, bw_ckpt = thunder.last_backward_traces(j_plain)[-1], thunder.last_backward_traces(j_ckpt)[-1]
assert saved(j_ckpt) == ["w", "x"] and len(saved(j_plain)) == 3
made_by_plain = {b.output.name: b.sym.name for b in thunder.last_traces(j_plain)[-1].bound_symbols if b.sym.name == "tanh"}
assert [made_by_plain.get(name, name) for name in saved(j_plain)] == ["w", "tanh", "x"]
assert "tanh" in ops(bw_ckpt) and "tanh" not in ops(bw_plain)
assert ops(bw_ckpt).count("matmul") == ops(bw_plain).count("matmul") + 1
final_traces = [trc for j in (j_plain, j_ckpt) for trc in (thunder.last_traces(j)[-1], thunder.last_backward_traces(j)[-1])]
assert not any(b.sym.is_fusion for trc in final_traces for b in trc.bound_symbols)  # no fusion regions here
# --8<-- [end:checkpoint]

# --8<-- [start:checkpoint-joint]
from thunder.core.symbol import BoundSymbolTag  # noqa: E402

joint = next(t for t in thunder.last_traces(j_ckpt) if str(t.get_provenance()).startswith("# Constructed by Grad transform pass"))
print(joint.python(print_depth=1))
recomputed = [b for b in joint.bound_symbols if any(o.name.startswith("bw_") for o in b.flat_proxy_outs)]
print("recomputed under new names:", [(b.sym.name, b.output.name) for b in recomputed])
assert [b.sym.name for b in recomputed] == ["matmul", "tanh"]
assert all(BoundSymbolTag.BACKWARD in b.tags for b in recomputed)
assert not any(o.name.startswith("bw_") for b in bw_ckpt.bound_symbols for o in b.flat_proxy_outs)  # renamed there

w_fused = w.detach().clone().requires_grad_()
j_fused = thunder.jit(checkpointed, executors=[torch_compile_ex])  # the same block, torch.compile's regions
j_fused(x, w_fused).backward()
bw_fused = thunder.last_backward_traces(j_fused)[-1]
in_regions = [o.name for b in bw_fused.bound_symbols if b.sym.is_fusion for sub in b.subsymbols for o in sub.flat_proxy_outs]
assert sum(name.startswith("bw_") for name in in_regions) == 2  # the matmul and tanh copies keep their names there
torch.testing.assert_close(w_fused.grad, grad_plain)
# --8<-- [end:checkpoint-joint]

# --8<-- [start:checkpoint-output]
def checkpointed_then_sin(x, w):
    return torch.utils.checkpoint.checkpoint(block, x, w, use_reentrant=False).sin().sum()


w.grad = None
j_sin = thunder.jit(checkpointed_then_sin)
j_sin(x, w).backward()
fw_sin = thunder.last_traces(j_sin)[-1]
print(fw_sin.python(print_depth=1))
(sin_line,) = [b for b in fw_sin.bound_symbols if b.sym.name == "sin"]
block_output = sin_line.args[0]
made_by_sin = {b.output.name: b.sym.name for b in fw_sin.bound_symbols if b.sym.name in ("matmul", "tanh")}
print("saved, checkpointed, then sin:", saved(j_sin), "| the block's output, read by sin:", block_output.name)

# the block's output is saved (sin's gradient reads it); the tanh inside the block is not
assert sorted(saved(j_sin)) == sorted([block_output.name, "w", "x"])
assert made_by_sin[block_output.name] == "matmul" and "tanh" not in [made_by_sin.get(n) for n in saved(j_sin)]
assert not any(b.sym.is_fusion for trc in (fw_sin, thunder.last_backward_traces(j_sin)[-1]) for b in trc.bound_symbols)
w_ref = w.detach().clone().requires_grad_()
checkpointed_then_sin(x, w_ref).backward()
torch.testing.assert_close(w.grad, w_ref.grad)


def sigmoid_block(x, w):
    return torch.sigmoid(x @ w)


def checkpointed_sigmoid(x, w):
    return torch.utils.checkpoint.checkpoint(sigmoid_block, x, w, use_reentrant=False).sum()


w_sig = w.detach().clone().requires_grad_()
j_sig = thunder.jit(checkpointed_sigmoid)
j_sig(x, w_sig).backward()
made_by_sig = {o.name: b.sym.name for b in thunder.last_traces(j_sig)[-1].bound_symbols for o in b.flat_proxy_outs
               if b.sym.name != "unpack_trivial"}  # an input keeps its own name
print("saved, checkpointed sigmoid block:", [made_by_sig.get(n, n) for n in saved(j_sig)])

from thunder.core.proxies import ProxyTag  # noqa: E402

first_sig = thunder.last_traces(j_sig)[0]  # the interpreter's trace: where the lookaside tagged
sigmoid_line = next(b for b in first_sig.bound_symbols if b.sym.name == "sigmoid")
tagged = {b.sym.name: ProxyTag.RECOMPUTE_IN_BACKWARD in b.output.tags for b in first_sig.bound_symbols
          if b.sym.name in ("matmul", "sigmoid")}
assert tagged == {"matmul": True, "sigmoid": False}  # the top-level matmul; sigmoid makes the block's output
assert [sub.sym.name for sub in sigmoid_line.subsymbols] == ["neg", "exp", "add", "reciprocal"]
assert not any(ProxyTag.RECOMPUTE_IN_BACKWARD in sub.output.tags for sub in sigmoid_line.subsymbols)  # none inside
joint_sig = next(t for t in thunder.last_traces(j_sig) if str(t.get_provenance()).startswith("# Constructed by Grad transform pass"))
assert "sigmoid" not in ops(joint_sig) and {"exp", "reciprocal"} <= set(ops(joint_sig))  # no rule: its decomposition
assert not any(o.name.startswith("bw_") for b in joint_sig.bound_symbols for o in b.flat_proxy_outs)  # none copied
# the exp inside sigmoid and the block's output (the reciprocal) are saved; the tagged matmul is not
assert [made_by_sig.get(n, n) for n in saved(j_sig)] == ["reciprocal", "exp", "x"]
j_plain_sig = thunder.jit(lambda x, w: sigmoid_block(x, w).sum())  # no checkpoint: the same saved list
j_plain_sig(x, w.detach().clone().requires_grad_()).backward()
made_by_plain = {o.name: b.sym.name for b in thunder.last_traces(j_plain_sig)[-1].bound_symbols
                 for o in b.flat_proxy_outs if b.sym.name != "unpack_trivial"}
assert [made_by_plain.get(n, n) for n in saved(j_plain_sig)] == ["reciprocal", "exp", "x"]
try:  # use_reentrant=True: Thunder raises, with an error that does not name the cause
    thunder.jit(lambda x, w: torch.utils.checkpoint.checkpoint(sigmoid_block, x, w, use_reentrant=True).sum())(x, w)
except TypeError as error:
    assert str(error) == "exceptions must derive from BaseException", error
else:
    raise AssertionError("use_reentrant=True compiled")
w_ref = w.detach().clone().requires_grad_()
checkpointed_sigmoid(x, w_ref).backward()
torch.testing.assert_close(w_sig.grad, w_ref.grad)


def checkpointed_sigmoid_mid(x, w):  # sigmoid is not the block's last operation: it is tagged
    return torch.utils.checkpoint.checkpoint(lambda x, w: torch.sigmoid(x @ w) @ w, x, w, use_reentrant=False).sum()


w_mid = w.detach().clone().requires_grad_()
j_mid = thunder.jit(checkpointed_sigmoid_mid)
j_mid(x, w_mid).backward()
joint_mid = next(t for t in thunder.last_traces(j_mid) if str(t.get_provenance()).startswith("# Constructed by Grad transform pass"))
copied_mid = [b.sym.name for b in joint_mid.bound_symbols if any(o.name.startswith("bw_") for o in b.flat_proxy_outs)]
print("saved, sigmoid mid-block:", saved(j_mid), "| copied into the backward:", copied_mid)
# the decomposition of the tagged sigmoid inherits the tag: its lines are recomputed, nothing of it is saved
assert copied_mid == ["matmul", "neg", "exp", "add", "reciprocal"] and saved(j_mid) == ["w", "x"]
w_ref = w.detach().clone().requires_grad_()
checkpointed_sigmoid_mid(x, w_ref).backward()
torch.testing.assert_close(w_mid.grad, w_ref.grad)
# --8<-- [end:checkpoint-output]

# --8<-- [start:joint-map]
joint = next(
    t for t in thunder.last_traces(j_plain) if str(t.get_provenance()).startswith("# Constructed by Grad transform pass")
)
for b in joint.bound_symbols:
    if b.sym.name not in ("unpack_trivial", "python_return"):
        side = "backward" if BoundSymbolTag.BACKWARD in b.tags else "forward "
        # Whether a line has a source position (its number depends on where the code runs: file or notebook cell)
        print(side, f"{b.sym.name:10}", "source line:", "yes" if b.source_positions else None)

backward_lines = [b for b in joint.bound_symbols if BoundSymbolTag.BACKWARD in b.tags]
assert backward_lines and all(b.source_positions is None for b in backward_lines)
assert all(b.source_positions is None for b in thunder.last_backward_traces(j_plain)[-1].bound_symbols)
# --8<-- [end:joint-map]

# --8<-- [start:layout]
fw = thunder.last_traces(j_plain)[-1]
result, (saved_tensors, saved_other) = fw.output  # what the forward's return line returns
print("get_saved_for_backward_tensors:", [t.name for t in get_saved_for_backward_tensors(fw)])
print("fw.output[1][0]:               ", [t.name for t in saved_tensors])
(unpack_c0,) = [
    b
    for b in thunder.last_backward_traces(j_plain)[-1].bound_symbols
    if b.sym.name == "unpack_sequence" and b.args[0].name == "C0"
]
print("the backward unpacks C0 into:  ", [t.name for t in unpack_c0.output])
assert get_saved_for_backward_tensors(fw) == tuple(saved_tensors)
assert "C0, C1, = saved_for_backward" in thunder.last_backward_traces(j_plain)[-1].python()  # tensors, non-tensors
assert [t.name for t in unpack_c0.output] == [t.name for t in saved_tensors]
try:
    get_saved_for_backward_tensors(thunder.last_traces(j_plain)[0])
except RuntimeError as e:
    print(f"on the interpreter's trace: RuntimeError: {e}")
# --8<-- [end:layout]

# --8<-- [start:case-transform]
from thunder.core import dtypes, prims  # noqa: E402
from thunder.core.proxies import TensorProxy  # noqa: E402
from thunder.core.trace import TraceProvenance, TraceTag, from_trace, tracectx  # noqa: E402
from thunder.core.transforms import TOPOSORT_ORDER, bsym_list_to_dag, toposort_bsym_dag  # noqa: E402
from thunder.executors.passes import del_last_used  # noqa: E402
from thunder.extend import OperatorExecutor, register_executor  # noqa: E402

castex = OperatorExecutor("castex")
register_executor(castex)
store_bf16 = castex.register_operator(
    "store_bf16", meta=lambda t: TensorProxy(like=t, dtype=dtypes.bfloat16), fn=lambda t: t.to(torch.bfloat16)
)
restore_f32 = castex.register_operator(
    "restore_f32", meta=lambda t: TensorProxy(like=t, dtype=dtypes.float32), fn=lambda t: t.to(torch.float32)
)

CLEANUP = {prims.PrimIDs.DEL, "clear_mutable_collection"}


def without_cleanup(bsyms):
    return [b for b in bsyms if b.sym.id not in CLEANUP]


class SaveInBF16(thunder.Transform):
    def __init__(self):
        self.stored = {}  # forward hook -> backward hook: original name -> bf16 proxy

    def transform_trace_post_optimization(self, trc, **kwargs):
        if TraceTag.AUGMENTED_FORWARD in trc.tags:
            return self.forward(trc)
        if TraceTag.BACKWARD in trc.tags:
            return self.backward(trc)
        return trc

    def forward(self, trc):
        inputs = {p.name for p in trc.args}
        saved = get_saved_for_backward_tensors(trc)
        new = from_trace(trc)
        bsyms = without_cleanup(trc.bound_symbols)
        *body, ret = bsyms
        self.stored = {}
        casts = []
        with tracectx(new):
            for t in saved:
                if t.dtype == dtypes.float32 and t.name not in inputs:
                    new.push_scope([])
                    self.stored[t.name] = store_bf16(t)
                    casts += new.pop_scope()
            new_saved = tuple(self.stored.get(t.name, t) for t in saved)
            (result, (_, saved_other)) = ret.args
            new.push_scope([])
            prims.python_return(result, (new_saved, saved_other))
            (new_ret,) = new.pop_scope()
        is_cast = {id(b) for b in casts}
        roots, leaves = bsym_list_to_dag([*body, *casts, new_ret])
        # a cast as soon as its input exists, so that the float32 tensor can be freed early
        new.bound_symbols = toposort_bsym_dag(
            roots, TOPOSORT_ORDER.TOP_DOWN, lambda nodes: next((i for i, n in enumerate(nodes) if id(n.bsym) in is_cast), 0)
        )
        new.set_provenance(TraceProvenance("Save in bfloat16 (forward)"))
        return del_last_used(new)

    def backward(self, trc):
        new = from_trace(trc)
        out = []
        for b in without_cleanup(trc.bound_symbols):
            if b.sym.id == prims.PrimIDs.UNPACK_SEQUENCE and b.args[0].name == "C0":
                originals = b.output
                b = b.from_bsym(output=[self.stored.get(t.name, t) for t in originals])
                out.append(b)
                for t in originals:
                    if t.name in self.stored:  # restore under the old name: later lines read it unchanged
                        out.append(restore_f32.bind(self.stored[t.name], output=t))
                continue
            out.append(b)
        new.bound_symbols = out
        new.set_provenance(TraceProvenance("Save in bfloat16 (backward)"))
        return del_last_used(new, clear_mutable_collections=True)


# --8<-- [end:case-transform]


# --8<-- [start:case-run]
def fn(x, w1, w2):
    h = torch.tanh(x @ w1)
    return torch.sin(h @ w2)


torch.manual_seed(0)
x = torch.randn(4, 8)
w1 = torch.randn(8, 16, requires_grad=True)
w2 = torch.randn(16, 8, requires_grad=True)


def saved_dtypes(jfn):  # the dtypes PyTorch's autograd is handed to keep, recorded by a pack hook
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(str(t.dtype)) or t, lambda t: t):
        result = jfn(x, w1, w2)
    return result, packed


j_plain = thunder.jit(fn)
_, plain_dtypes = saved_dtypes(j_plain)
j_bf16 = thunder.jit(fn, transforms=[SaveInBF16()])
out, bf16_dtypes = saved_dtypes(j_bf16)
print("saved, plain:       ", saved(j_plain), plain_dtypes)
print("saved, SaveInBF16:  ", saved(j_bf16), bf16_dtypes)
print(thunder.last_traces(j_bf16)[-1].python(print_depth=1))

assert plain_dtypes == ["torch.float32"] * 4
assert len(plain_dtypes) == len(saved(j_plain)) and len(bf16_dtypes) == len(saved(j_bf16))  # one per saved tensor
assert bf16_dtypes == ["torch.bfloat16", "torch.float32", "torch.bfloat16", "torch.float32"]
assert saved(j_bf16)[1::2] == ["w2", "x"]  # the inputs stay float32
# each store_bf16 comes right after the line that makes its input (del lines aside)
lines = [b for b in thunder.last_traces(j_bf16)[-1].bound_symbols if b.sym.id != prims.PrimIDs.DEL]
for before, line in zip(lines, lines[1:], strict=False):
    if line.sym.name == "store_bf16":
        assert line.args[0].name in {o.name for o in before.flat_proxy_outs}
assert sum(b.sym.name == "store_bf16" for b in lines) == 2
# --8<-- [end:case-run]

# --8<-- [start:case-backward]
out.sum().backward()
print(thunder.last_backward_traces(j_bf16)[-1].python(print_depth=1))

w1_ref, w2_ref = w1.detach().clone().requires_grad_(), w2.detach().clone().requires_grad_()
fn(x, w1_ref, w2_ref).sum().backward()
for name, got, want in (("w1", w1.grad, w1_ref.grad), ("w2", w2.grad, w2_ref.grad)):
    relative_error = ((got - want).norm() / want.norm()).item()
    print(f"{name}.grad: relative error against eager float32 {relative_error:.4f}")
    assert 0 < relative_error < 0.05  # close (bfloat16 keeps 7 mantissa bits, 8 bits of precision), and not equal

backward_ops = ops(thunder.last_backward_traces(j_bf16)[-1])
assert backward_ops.count("restore_f32") == 2
# --8<-- [end:case-backward]

# --8<-- [start:howto-saved]
from thunder.core.utils import producers  # noqa: E402


def saved_with_bytes(jfn):
    """Each tensor the last forward trace saves: name, bytes, the symbol and your source line that made it."""
    fw = thunder.last_traces(jfn)[-1]
    made_by = producers(fw)
    rows = []
    for t in get_saved_for_backward_tensors(fw):
        line = made_by.get(t, None)
        if line is None or line.sym.name == "unpack_trivial":  # an input of the function
            rows.append((t.name, t.numel * t.dtype.bytes, "input", ""))
        else:
            where = f"{line.source_filename}:{line.source_positions.lineno}" if line.source_positions else "no source line"
            rows.append((t.name, t.numel * t.dtype.bytes, line.sym.name, where))
    return rows


def show(rows):
    for name, size, symbol, where in rows:
        print(f"  {name:5} {size:5} bytes  {symbol:8} {where}")
    print(f"  total {sum(size for _, size, _, _ in rows)} bytes")


def mlp(x, w1, w2):
    h = torch.tanh(x @ w1)
    return (h @ w2).sum()


torch.manual_seed(0)
x = torch.randn(4, 8)
w1 = torch.randn(8, 16, requires_grad=True)
w2 = torch.randn(16, 2, requires_grad=True)
j_mlp = thunder.jit(mlp)
j_mlp(x, w1, w2).sum().backward()
print("mlp saves:")
show(saved_with_bytes(j_mlp))

rows = saved_with_bytes(j_mlp)
assert [(symbol, size) for _, size, symbol, _ in rows] == [("input", 128), ("tanh", 256), ("input", 128)]
assert [name for name, *_ in rows] == saved(j_mlp)
tanh_line = mlp.__code__.co_firstlineno + 1  # h = torch.tanh(x @ w1)
assert rows[1][3] == f"{mlp.__code__.co_filename}:{tanh_line}"  # the tanh line of mlp, wherever the code runs
# --8<-- [end:howto-saved]

# --8<-- [start:howto-recompute-one]
import traceback  # noqa: E402

from thunder.core.trace import TraceProvenance, from_trace  # noqa: E402,F811


def with_subsymbols_copied(b, **changes):
    """A copy of the bound symbol whose subsymbols, to every depth, are copies too."""
    return b.from_bsym(subsymbols=[with_subsymbols_copied(s) for s in b.subsymbols], **changes)


class RecomputeInBackward(thunder.Transform):
    """Tags the one line that `select` picks, so that the backward computes its output again."""

    def __init__(self, select):
        self.select = select

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        chosen = [b for b in computation_trc.bound_symbols if self.select(b)]
        assert len(chosen) == 1, f"select picked {len(chosen)} lines"  # exactly one
        new = from_trace(computation_trc)
        new.bound_symbols = [
            with_subsymbols_copied(b, tags=b.tags | {BoundSymbolTag.RECOMPUTE_IN_BACKWARD}) if b is chosen[0] else b
            for b in computation_trc.bound_symbols
        ]
        new.set_provenance(TraceProvenance("Recompute one line in backward"))
        return prologue_trc, new, epilogue_trc


def run(f, transforms=()):
    w1.grad = w2.grad = None
    jfn = thunder.jit(f, transforms=list(transforms))
    jfn(x, w1, w2).backward()
    return jfn, (w1.grad.clone(), w2.grad.clone())


tanh_only = RecomputeInBackward(lambda b: b.sym.name == "tanh")
j_plain_mlp, grads_plain = run(mlp)
j_recomputed, grads_recomputed = run(mlp, [tanh_only])
print("mlp, tanh recomputed, saves:")
show(saved_with_bytes(j_recomputed))
print(thunder.last_backward_traces(j_recomputed)[-1].python(print_depth=1).split("del C0\n", 1)[1])

rows_plain, rows_recomputed = saved_with_bytes(j_plain_mlp), saved_with_bytes(j_recomputed)
assert [symbol for _, _, symbol, _ in rows_recomputed] == ["input", "matmul", "input"]  # tanh's input instead
assert sum(r[1] for r in rows_plain) == sum(r[1] for r in rows_recomputed) == 512  # net: 0 bytes
assert "tanh" in ops(thunder.last_backward_traces(j_recomputed)[-1])
assert "tanh" not in ops(thunder.last_backward_traces(j_plain_mlp)[-1])
torch.testing.assert_close(grads_recomputed, grads_plain)
given = next(t for t in thunder.last_traces(j_recomputed) if "Recompute one line" in str(t.get_provenance()))
before_transform = thunder.last_traces(j_recomputed)[thunder.last_traces(j_recomputed).index(given) - 1]


def all_tags(b):  # the tags of a bound symbol and of its subsymbols, to every depth
    return b.tags.union(*(all_tags(s) for s in b.subsymbols))


assert not any(BoundSymbolTag.RECOMPUTE_IN_BACKWARD in all_tags(b) for b in before_transform.bound_symbols)  # unchanged
given_tanh, before_tanh = (next(b for b in t.bound_symbols if b.sym.name == "tanh") for t in (given, before_transform))
assert given_tanh.subsymbols and all(BoundSymbolTag.RECOMPUTE_IN_BACKWARD in s.tags for s in given_tanh.subsymbols)
assert before_tanh.from_bsym().subsymbols[0] is before_tanh.subsymbols[0]  # from_bsym alone shares the subsymbols
bw_mlp = thunder.last_backward_traces(j_recomputed)[-1]
(bw_tanh,) = [b for b in bw_mlp.bound_symbols if b.sym.name == "tanh"]
readers = [b.sym.name for b in bw_mlp.bound_symbols
           if b.sym.name != "python_del" and bw_tanh.output.name in {p.name for p in b.flat_proxy_args}]
assert sorted(readers) == ["mul", "permute"]  # tanh's gradient (t * t) and the second matmul's (its transpose)


def mlp_and_h(x, w1, w2):  # the same, and it returns the tanh result too
    h = torch.tanh(x @ w1)
    return (h @ w2).sum(), h


try:
    thunder.jit(mlp_and_h, transforms=[tanh_only])(x, w1, w2)
except KeyError as e:
    returned_error = e
print("recomputing a tensor that the function also returns: KeyError:", returned_error)
assert str(returned_error).startswith("'bw_")
assert "split_into_forward_and_backward" in [f.name for f in traceback.extract_tb(returned_error.__traceback__)]
# --8<-- [end:howto-recompute-one]

# --8<-- [start:howto-net-zero]
def tanh_of_input(x, w1, w2):  # tanh reads the input x
    return (torch.tanh(x) @ w1 @ w2).sum()


def input_saved_anyway(x, w1, w2):  # tanh's input a is saved for a gradient of its own
    a = x @ w1
    h = torch.tanh(a)
    return (h * a).sum() + (h @ w2).sum()


for f in (tanh_of_input, input_saved_anyway):
    j_before, _ = run(f)
    j_after, _ = run(f, [tanh_only])
    before, after = saved_with_bytes(j_before), saved_with_bytes(j_after)
    print(f"{f.__name__}: saved {[r[2] for r in before]} {sum(r[1] for r in before)} bytes -> "
          f"{[r[2] for r in after]} {sum(r[1] for r in after)} bytes")
    if f is tanh_of_input:
        assert [r[2] for r in before] == ["input", "matmul", "tanh"] and [r[2] for r in after] == ["input", "matmul", "input"]
        assert sum(r[1] for r in before) == sum(r[1] for r in after)  # x replaces the tanh result: 0 bytes
        assert "x" in [r[0] for r in after] and "x" not in [r[0] for r in before]
        assert [r[1] for r in before if r[2] == "tanh"] == [128]
    else:
        assert sum(r[1] for r in before) - sum(r[1] for r in after) == 256  # a was saved anyway: 256 bytes fewer
        assert "tanh" not in [r[2] for r in after]
# --8<-- [end:howto-net-zero]

# --8<-- [start:howto-checkpoint-composite]
from thunder.core.proxies import ProxyTag  # noqa: E402

def block_ending_in_mul(x, w):
    return torch.var_mean(x @ w, -1)[0][:, None] * w[0]  # ends in ltorch.mul, a composite operation


def checkpointed_var(x, w):
    return torch.utils.checkpoint.checkpoint(block_ending_in_mul, x, w, use_reentrant=False).sum()


def saved_storages(jfn, *args):
    """Call jfn with a pack hook: the tensors it hands autograd to save, as they are (views included)."""
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        out = jfn(*args)
    return out, packed


w.grad = None
j_var = thunder.jit(checkpointed_var)
out_var, packed_var = saved_storages(j_var, x, w)
out_var.backward()
fw_var = thunder.last_traces(j_var)[-1]
print("checkpointed block ending in a mul saves, by shape:")
show(saved_with_bytes(j_var))
print("and by storage (what autograd got):")
storage_of = {x.untyped_storage().data_ptr(): "x's", w.untyped_storage().data_ptr(): "w's"}
for t in packed_var:
    shares = storage_of.get(t.untyped_storage().data_ptr(), "another")
    print(f"  shape {tuple(t.shape)} stride {t.stride()}: {t.numel() * t.element_size():3} bytes by shape, "
          f"{shares} storage of {t.untyped_storage().nbytes()} bytes")
new_storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in packed_var
                if t.untyped_storage().data_ptr() not in storage_of}
print("  bytes kept alive besides x and w:", sum(new_storages.values()))
last_op = next(b for b in thunder.last_traces(j_var)[0].bound_symbols if b.sym.name == "mul")
print("the block's last operation:", str(last_op).splitlines()[0].strip())
print("  its subsymbols:", [(b.sym.name, b.output.name) for b in last_op.subsymbols])

var_rows = saved_with_bytes(j_var)
assert sorted(r[2] for r in var_rows) == ["expand", "expand", "input", "input"]  # the torch executor's broadcasts
broadcasts = [t for t in get_saved_for_backward_tensors(fw_var) if producers(fw_var)[t].sym.name == "expand"]
assert [tuple(t.shape) for t in broadcasts] == [tuple(b.output.shape) for b in last_op.subsymbols[:2]] == [(4, 8)] * 2
assert sum(r[1] for r in var_rows if r[2] == "expand") == 256 > sum(r[1] for r in var_rows if r[0] == "x")  # by shape
views = [t for t in packed_var if 0 in t.stride()]  # the expands: stride 0 along the broadcast dimension
assert len(views) == 2 and len(packed_var) == 4
assert sorted(storage_of.get(t.untyped_storage().data_ptr(), "another") for t in views) == ["another", "w's"]
(var_view,) = [t for t in views if t.untyped_storage().data_ptr() not in storage_of]
torch.testing.assert_close(var_view[:, 0], torch.var_mean(x @ w, -1)[0])  # a view of the var result
assert list(new_storages.values()) == [16] == [4 * 4]  # the var result: 4 float32 values
assert [b.sym.name for b in last_op.subsymbols] == ["broadcast_in_dim", "broadcast_in_dim", "mul"]
assert not last_op.sym.is_prim  # a composite: its subsymbols' outputs were not tagged by the checkpoint
assert all(ProxyTag.RECOMPUTE_IN_BACKWARD not in b.output.tags for b in last_op.subsymbols)
var_line = next(b for b in thunder.last_traces(j_var)[0].bound_symbols if b.sym.name == "var_mean")
assert all(ProxyTag.RECOMPUTE_IN_BACKWARD in o.tags for o in var_line.flat_proxy_outs)  # an intermediate: tagged
assert "var_mean" in ops(thunder.last_backward_traces(j_var)[-1])  # recomputed in the backward
w_ref = w.detach().clone().requires_grad_()
checkpointed_var(x, w_ref).backward()
torch.testing.assert_close(w.grad, w_ref.grad)


def mul_out_of_the_block(x, w):  # the same computation, the mul moved out of the checkpointed block
    var = torch.utils.checkpoint.checkpoint(lambda x, w: torch.var_mean(x @ w, -1)[0][:, None], x, w, use_reentrant=False)
    return (var * w[0]).sum()


w.grad = None
j_moved = thunder.jit(mul_out_of_the_block)
j_moved(x, w).backward()
print("the mul moved out of the block saves:")
show(saved_with_bytes(j_moved))
moved_rows = saved_with_bytes(j_moved)
assert sorted(r[1:3] for r in moved_rows) == sorted(r[1:3] for r in var_rows)  # the same: the mul's own broadcasts
torch.testing.assert_close(w.grad, w_ref.grad)
# --8<-- [end:howto-checkpoint-composite]
