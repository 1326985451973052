"""A real model, end to end: a training step of a two-layer nanoGPT on the CPU, and its traces."""

# --8<-- [start:setup]
import collections
import copy
import inspect
import linecache
import math
import os
import traceback

import torch

import thunder
from thunder.tests import nanogpt_model
from thunder.tests.nanogpt_model import GPT, GPTConfig

torch.manual_seed(0)
config = GPTConfig(n_layer=2, n_head=2, n_embd=32, block_size=16, vocab_size=64, dropout=0.0)
model = GPT(config)
eager = copy.deepcopy(model)  # the same weights, run by PyTorch, to compare with
idx = torch.randint(0, config.vocab_size, (2, 8))  # a batch of 2 sequences of 8 tokens
targets = torch.randint(0, config.vocab_size, (2, 8))

jmodel = thunder.jit(model)
logits, loss = jmodel(idx, targets)  # the first call compiles the forward and the backward
loss.backward()
fw = thunder.last_traces(jmodel)[-1]  # the forward trace that ran
bw = thunder.last_backward_traces(jmodel)[-1]  # the backward trace that ran

_, eager_loss = eager(idx, targets)
eager_loss.backward()
assert torch.allclose(loss, eager_loss)
assert all(torch.allclose(p.grad, q.grad, atol=1e-6) for p, q in zip(model.parameters(), eager.parameters()))

# The lines that unpack inputs, free values (del) and return; the others compute.
PLUMBING = {"unpack_trivial", "unpack_sequence", "clear_mutable_collection", "python_del", "python_return"}


def computing(trc):
    return [b for b in trc.bound_symbols if b.sym.name not in PLUMBING]


print("parameters:", sum(p.numel() for p in model.parameters()))
for name, trc in (("forward", fw), ("backward", bw)):
    run_by = collections.Counter(b.sym.executor.name for b in computing(trc))
    rest = collections.Counter(b.sym.name for b in trc.bound_symbols if b.sym.name in PLUMBING)
    print(f"{name}: {len(trc.bound_symbols)} bound symbols, {len(computing(trc))} computing,",
          f"run by {dict(run_by)}; the others: {dict(sorted(rest.items()))}")
assert (len(computing(fw)), len(computing(bw))) == (228, 334)
assert all(b.sym.executor.name == "torch" for b in computing(fw) + computing(bw))
assert not any(b.sym.is_fusion for b in fw.bound_symbols + bw.bound_symbols)  # no fusion region

tied = model.lm_head.weight is model.transformer.wte.weight  # nanoGPT ties them: one tensor
(grads,) = bw.bound_symbols[-1].args  # the backward returns one gradient per input
grad_of = {p.name: g for p, g in zip(fw.bound_symbols[-1].args[0]["flat_args"], grads)}
both = ["t_lm_head_weight", "t_transformer_wte_weight"]
print("one tensor:", tied, "| two inputs, two gradients:", {n: grad_of[n].name for n in both})
assert tied and all(grad_of[n] is not None for n in both)
# --8<-- [end:setup]

# --8<-- [start:layers]
MODEL_FILE = inspect.getsourcefile(nanogpt_model)
block, block_start = inspect.getsourcelines(nanogpt_model.Block.forward)
MLP_LINE = block_start + next(i for i, s in enumerate(block) if "self.mlp(" in s)


def line_of(bsym):
    """The file (its name) and the line the interpreter recorded for a bound symbol."""
    if bsym.source_filename is None:
        return None
    return os.path.basename(bsym.source_filename), bsym.source_positions.lineno


def reads_layer(bsym, k):
    return any(p.name.startswith(f"t_transformer_h_{k}_") for p in bsym.flat_proxy_args)


def names(lines):
    return [b.sym.name for b in lines]


# The forward: a layer ends with its second residual add, x = x + self.mlp(...).
fwd = computing(fw)
mlp_add = (os.path.basename(MODEL_FILE), MLP_LINE)
ends = [i for i, b in enumerate(fwd) if b.sym.name == "add" and line_of(b) == mlp_add]
size = ends[1] - ends[0]
fw_parts = {"embeddings": fwd[:ends[0] + 1 - size]}
for k, end in enumerate(ends):
    fw_parts[f"layer {k}"] = fwd[end + 1 - size:end + 1]
fw_parts["final norm, head, loss"] = fwd[ends[-1] + 1:]

# The backward: a layer starts with the reshape before the matmul by its MLP's c_proj weight.
bwd = computing(bw)
starts = [next(i for i, b in enumerate(bwd) if b.sym.name == "matmul" and reads_layer(b, k)) - 1
          for k in reversed(range(config.n_layer))]
bw_size = starts[1] - starts[0]
bw_parts = {"loss, head, final norm": bwd[:starts[0]]}
for k, start in zip(reversed(range(config.n_layer)), starts):
    bw_parts[f"layer {k}"] = bwd[start:start + bw_size]
bw_parts["embeddings"] = bwd[starts[-1] + bw_size:]

for title, parts in (("forward", fw_parts), ("backward", bw_parts)):
    print(title)
    for part, lines in parts.items():
        print(f"  {part:24} {len(lines):3} lines")

assert len(ends) == config.n_layer and names(fw_parts["layer 0"]) == names(fw_parts["layer 1"])
assert names(bw_parts["layer 1"]) == names(bw_parts["layer 0"])
assert [len(v) for v in fw_parts.values()] == [7, 92, 92, 37] and sum(map(len, fw_parts.values())) == 228
assert [len(v) for v in bw_parts.values()] == [45, 143, 143, 3] and sum(map(len, bw_parts.values())) == 334
for s in starts:  # a reshape, then the matmul it feeds, by the weight of the MLP's c_proj
    assert bwd[s].sym.name == "reshape" and bwd[s].output is bwd[s + 1].args[0]
assert [bwd[s + 1].args[1].name for s in starts] == [f"t_transformer_h_{k}_mlp_c_proj_weight" for k in (1, 0)]
assert names(bw_parts["embeddings"]) == ["sum"] + ["torch.ops.aten.embedding_backward"] * 2
for k in range(config.n_layer):  # each layer's lines read the parameters of that layer only
    for parts in (fw_parts, bw_parts):
        assert not any(reads_layer(b, j) for j in range(config.n_layer) if j != k for b in parts[f"layer {k}"])
# --8<-- [end:layers]

# --8<-- [start:by-line]
made_by = collections.Counter((b.source_filename, b.source_positions.lineno) for b in fw_parts["layer 0"])
print("lines  made by")
for (path, lineno), count in made_by.items():  # in the order the layer first uses them
    code = linecache.getline(path, lineno).strip()
    print(f"{count:5}  {os.path.basename(path)}:{lineno:<4} {code[:52]}")
assert sum(made_by.values()) == size and all(b.source_filename is not None for b in fwd)
c_attn_line = next(b for b in fw_parts["layer 0"] if ".c_attn(" in linecache.getline(b.source_filename,
                                                                                     b.source_positions.lineno))
assert names(b for b in fw_parts["layer 0"] if line_of(b) == line_of(c_attn_line)) == ["split"]  # its linear is torch's

matmuls = [b for b in fwd if b.sym.name == "matmul"]
for n, b in enumerate(matmuls, 1):
    part = next(part for part, lines in fw_parts.items() if b in lines)
    print(f"matmul {n}: {b.output.name} in {part}, made by {':'.join(map(str, line_of(b)))}")
assert len(matmuls) == 4 and len({line_of(b) for b in matmuls}) == 1  # one line made all four
products = [b for b in fwd if b.sym.name in ("matmul", "linear")]  # every matrix product, in order
assert [b.sym.name for b in products[:3]] == ["linear", "matmul", "matmul"] and products[2] is matmuls[1]
assert all(b in fw_parts["layer 0"] for b in products[:3])
assert all(b.source_filename is None for b in bw.bound_symbols)  # no backward line has a source
in_thunder = [b for b in fw_parts["layer 0"] if line_of(b)[0] == "dtensor_torch_and_prims.py"]
assert names(in_thunder) == ["permute"] * 4  # the layer's four .transpose(1, 2)
from thunder.torch.experimental.dtensor_torch_and_prims import dispatch_to_impl

wrapper, wrapper_start = inspect.getsourcelines(dispatch_to_impl)
assert all(wrapper_start <= line_of(b)[1] < wrapper_start + len(wrapper) for b in in_thunder)
assert names(fwd).count("linear") == 9  # each linear layer is one line: 4 per layer and lm_head
# --8<-- [end:by-line]

# --8<-- [start:attention]
import thunder.torch as ltorch
from thunder.core.transforms import _grad_fn_map, augmented_forward_impls
from thunder.executors.sdpaex import sdpa_ex
from thunder.executors.torchex import ex as torch_ex

first = thunder.last_traces(jmodel)[0]  # the interpreter's trace, before any pass
sdpa = [b for b in first.bound_symbols if b.sym.id == ltorch.scaled_dot_product_attention.id]
print("\n".join(sdpa[0].python(indent=0, print_depth=2)))

executors = thunder.compile_data(jmodel).executors_list
print("executors, in order:", [ex.name for ex in executors[1:]])  # after the ad hoc one
print("can run it:", [ex.name for ex in executors if ex.can_execute_or_fuse(sdpa[0])])
own_rule = sdpa[0].sym.id in _grad_fn_map or sdpa[0].sym.id in augmented_forward_impls
print("gradient rule: the torch executor's:", torch_ex.get_grad_transform(sdpa[0].sym),
      "| Thunder's own:", own_rule)
assert len(sdpa) == config.n_layer and not sdpa_ex.can_execute(sdpa[0])  # sdpa declines it
assert [ex.name for ex in executors if ex.can_execute_or_fuse(sdpa[0])] == ["torch"]
assert torch_ex.get_grad_transform(sdpa[0].sym) is None and not own_rule
assert not any(b.sym.name == sdpa[0].sym.name for b in fw.bound_symbols)  # gone from the forward
assert names(sdpa[0].subsymbols).count("matmul") == 2 and "matmul" not in names(first.bound_symbols)
# --8<-- [end:attention]

# --8<-- [start:attention-lines]
SDPA_LINE = sdpa[0].source_positions.lineno
attention = [b for b in fw_parts["layer 0"] if line_of(b)[1] == SDPA_LINE]
for b in attention:
    print("\n".join(b.python(indent=0, print_depth=1)))
assert len(attention) == 17 and names(attention).count("matmul") == 2 and "softmax" in names(attention)
buffers = {"t_" + name.replace(".", "_") for name, _ in model.named_buffers()}  # the causal masks
assert len(buffers) == config.n_layer and not buffers & {p.name for p in fw.args}  # not inputs

jattn = thunder.jit(model.transformer.h[0].attn)  # layer 0's attention module alone
with torch.no_grad():  # no gradient, so no grad transform
    jattn(torch.randn(2, 8, config.n_embd))
whole = [b for b in thunder.last_traces(jattn)[-1].bound_symbols if b.sym.name == sdpa[0].sym.name]
print("without grad:", whole[0].python(indent=0, print_depth=1)[0])
print("run by:", whole[0].sym.executor.name)
assert len(whole) == 1 and whole[0].sym.executor is torch_ex
grad_pass = next(t for t in thunder.last_traces(jattn) if "Grad transform" in str(t.get_provenance()))
from thunder.core.proxies import ProxyTag

kept = next(b for b in grad_pass.bound_symbols if b.sym.id == sdpa[0].sym.id)  # the grad pass kept it whole
assert ProxyTag.DETACHED_AUTOGRAD_GRAPH in kept.output.tags  # its output: outside autograd's graph
# --8<-- [end:attention-lines]

# --8<-- [start:saved]
_, (saved, saved_other) = fw.bound_symbols[-1].args  # (outputs, (saved tensors, non-tensors))


def nbytes(t):
    return math.prod(t.shape) * t.dtype.bytes  # from the proxy's shape and dtype


part_of = {p.name: part for part, lines in fw_parts.items() for b in lines for p in b.flat_proxy_outs}
inputs = {p.name for p in fw.args}
groups = collections.defaultdict(list)
for t in saved:
    groups["inputs and parameters" if t.name in inputs else f"made in {part_of[t.name]}"].append(t)
print(f"{'saved':30} {'tensors':>7} {'bytes':>8}")
for group in ["inputs and parameters", *(f"made in {part}" for part in fw_parts)]:
    print(f"{group:30} {len(groups[group]):7} {sum(map(nbytes, groups[group])):8,}")
print(f"{'total':30} {len(saved):7} {sum(map(nbytes, saved)):8,}")
print("inputs and parameters:", sorted(t.name for t in groups["inputs and parameters"]))

assert saved_other == () and len(saved) == 80 and sum(map(nbytes, saved)) == 292_296
weights = {f"t_{n.replace('.', '_')}_weight" for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
assert {t.name for t in groups["inputs and parameters"]} == {"idx"} | weights and len(weights) == 9
layer0, layer1 = groups["made in layer 0"], groups["made in layer 1"]
assert (len(layer0), sum(map(nbytes, layer0))) == (len(layer1), sum(map(nbytes, layer1))) == (29, 84_480)
assert [len(groups[f"made in {part}"]) for part in fw_parts] == [1, 29, 29, 11]
read_in = collections.defaultdict(set)  # name -> the parts of the backward whose lines read it
for part, lines in bw_parts.items():
    for b in lines:
        for p in b.flat_proxy_args:
            read_in[p.name].add(part)
mirror = dict(zip(fw_parts, reversed(bw_parts)))  # a part of the forward -> its backward
assert all(read_in[t.name] == {mirror[part_of[t.name]]} for t in saved if t.name not in inputs)
# --8<-- [end:saved]

# --8<-- [start:saved-storage]
_, loss_again = jmodel(idx, targets)  # a cache hit: the same forward runs again
assert thunder.compile_stats(jmodel).cache_hits == 1
held = loss_again.grad_fn.saved_tensors  # what PyTorch's autograd node keeps for the backward
assert [tuple(t.shape) for t in held] == [tuple(p.shape) for p in saved]

storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in held}
of_parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
parameter_bytes = sum(n for ptr, n in storages.items() if ptr in of_parameters)
idx_bytes = idx.untyped_storage().nbytes()
print(len(held), "tensors in", len(storages), "storages:", f"{sum(storages.values()):,} bytes;",
      f"the parameters' own: {parameter_bytes:,}; idx's: {idx_bytes}")
by_storage = collections.defaultdict(list)
for proxy, tensor in zip(saved, held):
    by_storage[tensor.untyped_storage().data_ptr()].append(proxy)
made = {p.name: b.sym.name for b in fwd for p in b.flat_proxy_outs}  # name -> what made it
pairs = collections.Counter(tuple(sorted(made[p.name] for p in ps)) for ps in by_storage.values() if len(ps) > 1)
print("storages that hold two saved tensors, by what made them:", dict(pairs))
views = [p for p, t in zip(saved, held) if t.untyped_storage().data_ptr() in of_parameters and p.name not in inputs]
print("saved views of a parameter:", len(views), "made by", sorted({made[p.name] for p in views}))
bigger = [(p, t.untyped_storage().nbytes()) for p, t in zip(saved, held) if t.untyped_storage().nbytes() > nbytes(p)]
print("saved views of a larger storage:", [f"{p.name} ({made[p.name]}, {nbytes(p)} bytes) in {n}" for p, n in bigger])
del loss_again
assert (len(storages), sum(storages.values()), parameter_bytes) == (73, 278_216, 107_136)
assert pairs == {("expand", "rsqrt"): 5, ("shallow_copy", "softmax"): 2}
assert len(views) == 5 and sum(storages.values()) - parameter_bytes - idx_bytes == 170_952
assert len(bigger) == config.n_layer and all(n == 3 * nbytes(p) for p, n in bigger)  # v: a third of c_attn's
line_making = {p.name: b for b in fwd for p in b.flat_proxy_outs}
for p, _ in bigger:  # a permute of a reshape of the third output of the split of c_attn's output
    reshaped = line_making[line_making[p.name].args[0].name]
    split = line_making[reshaped.args[0].name]
    assert split.sym.name == "split" and split.output[2] is reshaped.args[0]
    assert line_making[split.args[0].name].sym.name == "linear"
# --8<-- [end:saved-storage]

# --8<-- [start:backward]
KINDS = {
    "matmul": ["matmul"],
    "elementwise": ["mul", "add", "sub", "neg", "pow", "true_divide", "where"],
    "reduction": ["sum"],
    "shape": ["reshape", "torch_prims_reshape_impl", "expand", "unsqueeze", "permute", "cat"],
    "a PyTorch backward kernel": ["torch_nll_loss_backward_impl", "torch.ops.aten.embedding_backward",
                                  "torch.ops.aten._log_softmax_backward_data"],
}
count = collections.Counter(names(bwd))
for kind, members in KINDS.items():
    print(f"{kind:26} {sum(count[m] for m in members):3}  " + ", ".join(f"{m} {count[m]}" for m in members))
assert sorted(count) == sorted(m for members in KINDS.values() for m in members)  # each line has a kind
print("matmuls per part:", {part: names(lines).count("matmul") for part, lines in bw_parts.items()})
assert [names(lines).count("matmul") for lines in bw_parts.values()] == [2, 12, 12, 0]
by_weight = [sum(b.sym.name == "matmul" and any(p.name in inputs for p in b.flat_proxy_args) for b in lines)
             for lines in bw_parts.values()]
assert by_weight == [1, 4, 4, 0]  # one matmul by a weight per linear layer
weight_shapes = {tuple(p.shape) for p in fw.args if p.name in weights}
for part in ("layer 0", "layer 1"):
    mm = [b for b in bw_parts[part] if b.sym.name == "matmul"]
    assert sum(len(b.output.shape) == 4 for b in mm) == 4  # attention's four, on [2, 2, 8, ...] tensors
    assert sum(tuple(b.output.shape) in weight_shapes and not any(p.name in inputs for p in b.flat_proxy_args)
               for b in mm) == 4  # a weight's gradient, from the saved input
assert not {"linear", "layer_norm", "softmax", "var_mean"} & set(count)  # none of these runs whole
from thunder.core.prims import PrimIDs
from thunder.core.transforms import _grad_fn_map, augmented_forward_impls

rules = set(_grad_fn_map) | set(augmented_forward_impls)  # the gradient rules Thunder has
assert "torch.softmax" in augmented_forward_impls and PrimIDs.LINEAR in _grad_fn_map
assert not {"torch.layer_norm", "torch.nn.functional.linear"} & rules  # no rule of their own
assert "layer_norm" not in {b.sym.name for b in fw.bound_symbols}  # decomposed in the forward too
# --8<-- [end:backward]

# --8<-- [start:backward-attention]
layer0 = bw_parts["layer 0"]  # the layer whose forward attention is printed above
c_proj = next(i for i, b in enumerate(layer0) if b.sym.name == "matmul"
              and any(p.name == "t_transformer_h_0_attn_c_proj_weight" for p in b.flat_proxy_args))
cat = next(i for i, b in enumerate(layer0) if b.sym.name == "cat")
for b in layer0[c_proj - 1:cat + 1]:
    print("\n".join(b.python(indent=0, print_depth=1)))
shown = names(layer0[c_proj - 1:cat + 1])
assert shown[:8].count("matmul") == 2 and shown[7] == "sum" and shown[8:].count("matmul") == 4
# --8<-- [end:backward-attention]

# --8<-- [start:torch-compile]
from thunder.executors.torch_compile import torch_compile_ex

print("default executors:", [ex.name for ex in thunder.get_default_executors()])
assert thunder.get_executor("torchcompile") is torch_compile_ex  # installed and registered
assert torch_compile_ex not in thunder.get_default_executors()
from thunder.executors.torch_compile import cuda_device_checker

from thunder.executors.torch_compile import TorchCompileExecutor

all_tc = [ex.name for ex in thunder.get_all_executors() if isinstance(ex, TorchCompileExecutor)]
assert sorted(all_tc) == ["torchcompile", "torchcompile_cat", "torchcompile_xentropy"]
others = [thunder.get_executor(n) for n in ("torchcompile_cat", "torchcompile_xentropy")]
assert all(i.checker is cuda_device_checker for ex in others for i in ex.implmap.values())  # CUDA only
assert torch_compile_ex.required_ops is None and all(i.checker is None for i in torch_compile_ex.implmap.values())
assert set(torch_compile_ex.implmap) == set(torch_ex.implmap)  # every operation of the torch executor

jcompiled = thunder.jit(model, executors=[torch_compile_ex])
# What a call runs first: it traces, transforms and caches, and returns the cache entry.
entry, _, _ = thunder.compile_data(jcompiled).get_computation_and_inputs(idx, targets)
tc_fw, tc_bw = entry.computation_traces[-1], entry.backward_traces[-1]
(fw_region,), (bw_region,) = ([b for b in t.bound_symbols if b.sym.is_fusion] for t in (tc_fw, tc_bw))
print("\n".join(fw_region.python(indent=0, print_depth=1)))
# --8<-- [end:torch-compile]

# --8<-- [start:torch-compile-regions]
for name, trc in (("forward", tc_fw), ("backward", tc_bw)):
    regions = [b for b in trc.bound_symbols if b.sym.is_fusion]
    print(f"{name}: regions {[(r.sym.name, len(r.subsymbols)) for r in regions]},",
          "other computing lines:", [b.sym.name for b in computing(trc) if not b.sym.is_fusion])
    assert len(regions) == 1 and computing(trc) == regions  # one region holds every computing line

_, (tc_saved, _) = tc_fw.bound_symbols[-1].args
print("saved:", len(tc_saved), "tensors,", f"{sum(map(nbytes, tc_saved)):,} bytes",
      f"(without torch.compile: {len(saved)}, {sum(map(nbytes, saved)):,})")
made_in_region = {p.name: b.sym.name for b in fw_region.subsymbols for p in b.flat_proxy_outs}
tc_made_by = collections.Counter(made_in_region.get(t.name, "an input or parameter") for t in tc_saved)
print("saved, made by:", dict(tc_made_by))
again = collections.Counter(b.sym.name for b in bw_region.subsymbols)
print("the backward region computes:", {op: again[op] for op in ("tanh", "arange")})
assert (len(tc_saved), sum(map(nbytes, tc_saved))) == (46, 157_832)
region_matmuls = [b for b in fw_region.subsymbols if b.sym.name == "matmul"]
print("the region's matmuls, made by:", [":".join(map(str, line_of(b))) for b in region_matmuls])
assert [line_of(b) for b in region_matmuls] == [line_of(b) for b in matmuls]  # the same four lines
assert all(b.source_filename is not None for b in fw_region.subsymbols)  # each keeps its source line
region_outs = {p.name for p in fw_region.flat_proxy_outs}
assert tc_made_by["an input or parameter"] == 21 and sum(t.name in region_outs for t in tc_saved) == 25
assert len(region_outs) == 27 and len(fw_region.flat_proxy_args) == len(tc_fw.args)  # all inputs in
assert again["tanh"] == config.n_layer and "tanh" not in names(bwd)  # GELU's tanh, computed again
assert sum(made.get(t.name) == "tanh" for t in saved) == config.n_layer  # the default saves it

from unittest import mock

jnoremat = thunder.jit(model, executors=[torch_compile_ex])
with mock.patch("thunder.executors.torch_compile.rematerialize", lambda trc: trc):  # no rematerialization
    noremat, _, _ = thunder.compile_data(jnoremat).get_computation_and_inputs(idx, targets)
_, (noremat_saved, _) = noremat.computation_traces[-1].bound_symbols[-1].args
print("saved without rematerialization:", len(noremat_saved), f"tensors, {sum(map(nbytes, noremat_saved)):,} bytes")
assert (len(noremat_saved), sum(map(nbytes, noremat_saved))) == (len(saved), sum(map(nbytes, saved)))
# --8<-- [end:torch-compile-regions]

# --8<-- [start:second-shape]
from thunder.core.compile_data import compile_data_and_stats

idx4 = torch.randint(0, config.vocab_size, (4, 8))  # 4 sequences instead of 2
targets4 = torch.randint(0, config.vocab_size, (4, 8))
stats = thunder.compile_stats(jmodel)
old = stats.interpreter_cache[0]  # the entry of the first compilation
with compile_data_and_stats(thunder.compile_data(jmodel), stats):  # as a call sets them
    try:
        old.prologue_fn(idx4, targets4)
    except AssertionError as e:
        rejected = e
tb = traceback.extract_tb(rejected.__traceback__)
frame = next(f for f in tb if f.filename.startswith("thunder.prologue"))  # the prologue's own line
pro = old.prologue_traces[-1]
check = next(b for b in pro.bound_symbols if b.python(indent=0)[0] == frame.line)
print("the first entry's prologue raises:", rejected)
print(f"at its line {frame.lineno} of {len(pro.python().splitlines())}:")
print(check)
checks = collections.Counter(b.sym.name for b in pro.bound_symbols if b.sym.name.startswith("check"))
print("its checks:", dict(checks))

misses = stats.cache_misses
jmodel(idx4, targets4)
fw4, bw4 = thunder.last_traces(jmodel)[-1], thunder.last_backward_traces(jmodel)[-1]
print("cache misses:", misses, "->", stats.cache_misses, "| entries:", len(stats.interpreter_cache))
print("the same symbols in the same order:", names(computing(fw4)) == names(fwd),
      names(computing(bw4)) == names(bwd))
print("\n".join(computing(fw4)[1].python(indent=0, print_depth=1)))
assert stats.cache_misses == misses + 1 and len(stats.interpreter_cache) == 2
tensor_checks = [b.args[0].name for b in pro.bound_symbols if b.sym.name == "check_tensor_metadata"]
assert check.sym.name == "check_tensor_metadata" and tensor_checks[0] == "idx"  # idx is checked first
assert sorted(tensor_checks) == sorted(["idx", "targets", *(p.name for p in fw.args[2:]), *buffers])
assert names(computing(fw4)) == names(fwd) and names(computing(bw4)) == names(bwd)
maker = {p.name: b for b in pro.bound_symbols for p in b.flat_proxy_outs}
read_from = collections.Counter(maker[b.args[0].name].sym.name for b in pro.bound_symbols
                                if b.sym.name == "check_number_type_and_value")
cache_info = [maker[b.args[0].name].args[0].name for b in pro.bound_symbols
              if b.sym.name == "check_number_type_and_value" and maker[b.args[0].name].sym.name == "unpack_getitem"]
assert read_from == {"unpack_attr": 92, "unpack_getitem": 3} and set(cache_info) == {"cache_info"}

jmodel(idx, targets)  # the first shape again: a hit on the first entry
stale = thunder.last_backward_traces(jmodel)[-1] is bw4
print("hits:", stats.cache_hits, "| last_backward_traces is the second entry's:", stale)
assert thunder.last_traces(jmodel) is stats.interpreter_cache[0].computation_traces and stale
# --8<-- [end:second-shape]
