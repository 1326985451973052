"""Distributed training as trace transforms: DDP and FSDP with gloo, in a process group of one."""

# --8<-- [start:setup]
import datetime
import os
import socket
import traceback

import torch
import torch.distributed as dist

import thunder
from thunder.core.recipe import Recipe
from thunder.core.utils import producers
from thunder.distributed import prims as dist_prims
from thunder.plugins import DDP, FSDP
from thunder.recipes import BaseRecipe

with socket.socket() as s:  # a free port on the loopback address
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo")
try:
    dist.init_process_group(
        "gloo", init_method="env://", rank=0, world_size=1, timeout=datetime.timedelta(seconds=30)
    )
except Exception as e:
    raise RuntimeError(f"could not start a gloo process group of one on 127.0.0.1:{port}: {e}") from e
if not (dist.is_initialized() and dist.get_world_size() == 1 and dist.get_backend() == "gloo"):
    raise RuntimeError("the gloo process group did not start as asked")
print("backend:", dist.get_backend(), "| world size:", dist.get_world_size(), "| rank:", dist.get_rank())


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))


x = torch.randn(2, 8)
# --8<-- [end:setup]

# --8<-- [start:ddp]
model = make_model()
jmodel = thunder.compile(model, recipe=Recipe(plugins=[DDP()]))
out = jmodel(x)
out.sum().backward()

traces = thunder.last_traces(jmodel)
for i, trc in enumerate(traces):
    print(i, trc.get_provenance())
ddp_pass = next(t for t in traces if str(t.get_provenance()).startswith("# Constructed by ddp pass"))
print(ddp_pass.python(print_depth=1))

syncs = [b for b in ddp_pass.bound_symbols if b.sym.id == dist_prims.PrimIDs.SYNCHRONIZE]
assert len(syncs) == len(list(model.parameters())) == 4
assert all(b.args[2] is thunder.core.proxies.DistParallelType.REPLICATED for b in syncs)
# --8<-- [end:ddp]

# --8<-- [start:ddp-forward]
fw = traces[-1]
print(fw.python(print_depth=1))
fw_names = {b.sym.name for b in fw.bound_symbols}
assert not any("all_reduce" in n or "wait" in n for n in fw_names)  # no collective in the forward
copies = [b for b in fw.bound_symbols if b.sym.name == "shallow_copy"]
assert sorted(b.args[0].name for b in copies) == sorted(b.args[0].name for b in syncs)  # one per parameter
# --8<-- [end:ddp-forward]

# --8<-- [start:ddp-backward]
bw = thunder.last_backward_traces(jmodel)[-1]
print(bw.python(print_depth=1))
bw_names = [b.sym.name for b in bw.bound_symbols]
print("all_reduce:", bw_names.count("torch_all_reduce_prim_impl"), "| wait:", bw_names.count("torch_wait_prim_impl"))
assert bw_names.count("torch_all_reduce_prim_impl") == bw_names.count("torch_wait_prim_impl") == 4
# --8<-- [end:ddp-backward]

# --8<-- [start:find]
def collectives_for(param_name, fw, bw):
    """The backward lines that reduce the gradient of one parameter: divide, all_reduce, wait."""
    prologue = thunder.last_prologue_traces(jmodel)[0]
    proxy_name = next(
        b.output.name for b in prologue.bound_symbols
        if b.sym.name == "unpack_parameter" and b.args[1] == param_name
    )
    position = [p.name for p in fw.bound_symbols[-1].args[0]["flat_args"]].index(proxy_name)
    grad = bw.output[position]  # the backward returns one gradient per forward input, in order
    made_by = producers(bw)
    wait = made_by[grad]
    all_reduce = made_by[wait.args[0]]
    divide = made_by[all_reduce.args[0]]
    return proxy_name, [divide, all_reduce, wait]


proxy_name, lines = collectives_for("0.weight", fw, bw)
print("parameter 0.weight is", proxy_name, "in the traces; its gradient is reduced by:")
printed = bw.python(print_depth=1).splitlines()
for b in lines:
    print(next(line for line in printed if line.startswith(f"  {b.output.name} = ")))
assert [b.sym.name for b in lines] == ["true_divide", "torch_all_reduce_prim_impl", "torch_wait_prim_impl"]
assert lines[0].args[1] == dist.get_world_size()  # pre-averaging: divided by the world size
# --8<-- [end:find]

# --8<-- [start:grads]
ref = make_model()
ref(x).sum().backward()
same = all(
    torch.allclose(p.grad, q.grad) for p, q in zip(jmodel.parameters(), ref.parameters(), strict=True)
)
print("gradients equal to eager:", same)
assert same
# --8<-- [end:grads]

# --8<-- [start:no-sync]
with thunder.distributed.skip_data_parallel_grad_sync():
    jmodel(x).sum().backward()  # a cache miss: the prologue checks no_grad_sync
stats = thunder.compile_stats(jmodel)
local_bw = thunder.last_backward_traces(jmodel)[-1]
local_names = [b.sym.name for b in local_bw.bound_symbols]
print("cache misses:", stats.cache_misses, "| hits:", stats.cache_hits)
print("collectives in this backward:", [n for n in local_names if n.startswith("torch_") and n.endswith("_prim_impl")])
print("it returns:", local_bw.python(print_depth=1).splitlines()[-1].strip())

assert (stats.cache_misses, stats.cache_hits) == (2, 0)
assert "check_number_type_and_value(cache_info_no_grad_sync, True)" in thunder.last_prologue_traces(jmodel)[0].python()
assert not any("all_reduce" in n or "wait" in n or n == "true_divide" for n in local_names)
assert [name for name, _ in bw.siginfo().args] == ["saved_for_backward", "cotangents"]  # .grad is no input
# --8<-- [end:no-sync]

# --8<-- [start:sort-waits]
def gaps(trc):
    """For each wait: how many lines after the collective that it waits for."""
    index = {id(b): i for i, b in enumerate(trc.bound_symbols)}
    made_by = producers(trc)
    return [
        index[id(b)] - index[id(made_by[b.args[0]])]
        for b in trc.bound_symbols
        if b.sym.id in (dist_prims.PrimIDs.WAIT, "torch_wait_prim_impl")
    ]


grad_pass = next(t for t in traces if str(t.get_provenance()).startswith("# Constructed by Grad transform"))
sorted_trace = next(t for t in traces if str(t.get_provenance()) == "# Constructed by Sort Waits")
print("lines from each collective to its wait, Grad transform pass:", gaps(grad_pass))
print("lines from each collective to its wait, Sort Waits:         ", gaps(sorted_trace))
tail = [b.sym.name for b in sorted_trace.bound_symbols[-5:]]
print("the last lines after Sort Waits:", tail)

assert set(gaps(grad_pass)) == {1} and min(gaps(sorted_trace)) > 1
assert tail == ["torch_wait_prim_impl"] * 4 + ["python_return"]
# --8<-- [end:sort-waits]

# --8<-- [start:bucketing]
import thunder.distributed.transforms.ddp as ddp_module

given = {}  # run -> the traces the bucketing pass was given
real_bucketing = ddp_module.apply_bucketing_to_grad_allreduce


def describe(trc):
    ids = {b.sym.id for b in trc.bound_symbols}
    keys = sorted(trc.output) if isinstance(trc.output, dict) else type(trc.output).__name__
    return (f"dist_prims.wait: {dist_prims.PrimIDs.WAIT in ids!s:5} | torch_wait_prim_impl: "
            f"{'torch_wait_prim_impl' in ids!s:5} | returns: {keys}")


def run(label, recipe):
    given[label] = []

    def recording_bucketing(trc):  # passes.py imports the function from ddp_module when it runs
        given[label].append(trc)
        return real_bucketing(trc)

    ddp_module.apply_bucketing_to_grad_allreduce = recording_bucketing
    try:
        jm = thunder.compile(make_model(), recipe=recipe)
        jm(x).sum().backward()
        return jm
    finally:
        ddp_module.apply_bucketing_to_grad_allreduce = real_bucketing


jm = run("torch executor", Recipe(plugins=[DDP()]))
computation_input = given["torch executor"][-1]  # the last call: the computation trace
print(describe(computation_input))
passes = [str(t.get_provenance()).removeprefix("# Constructed by ").split(" (took")[0] for t in thunder.last_traces(jm)]
grad_bytes = sum(p.grad.numel() * p.grad.element_size() for p in jm.parameters())
names = [b.sym.name for b in thunder.last_backward_traces(jm)[-1].bound_symbols]
print("passes:", passes)
print("all_reduce calls in the backward:", names.count("torch_all_reduce_prim_impl"),
      "for 4 gradients of", grad_bytes, "bytes in all")

ids = {b.sym.id for b in computation_input.bound_symbols}
assert dist_prims.PrimIDs.WAIT not in ids and "torch_wait_prim_impl" in ids
assert "fw_flat_out" in computation_input.output  # forward and backward in one trace
assert "Batching all_reduce calls" not in passes and names.count("torch_all_reduce_prim_impl") == 4
# --8<-- [end:bucketing]

# --8<-- [start:torch-compile]
try:
    run("torch.compile", BaseRecipe(fuser="torch.compile", plugins=[DDP()]))
except IndexError as e:
    where = traceback.extract_tb(e.__traceback__)
    print(describe(given["torch.compile"][-1]))
    print(f"{type(e).__name__}: {e}")
    print("raised in:", where[-1].name, "| called from:", where[-2].name, "<", where[-3].name)
    ids = {b.sym.id for b in given["torch.compile"][-1].bound_symbols}
    assert dist_prims.PrimIDs.WAIT in ids and "fw_flat_out" in given["torch.compile"][-1].output
    assert where[-1].name == "get_bsym_of_allreduce_of_grad"
    assert "apply_bucketing_to_grad_allreduce" in [f.name for f in where]
# --8<-- [end:torch-compile]

# --8<-- [start:fsdp]
fsdp_model = make_model()
jfsdp = thunder.compile(fsdp_model, recipe=Recipe(plugins=[FSDP(device=torch.device("cpu"))]))
print("transforms:", [type(t).__name__ for t in thunder.compile_data(jfsdp).transforms])
jfsdp(x).sum().backward()
fsdp_fw = thunder.last_traces(jfsdp)[-1]
print(fsdp_fw.python(print_depth=1))
fw_names = [b.sym.name for b in fsdp_fw.bound_symbols]
assert fw_names.count("torch_all_gather_prim_impl") == fw_names.count("torch_wait_prim_impl") == 4
gathers = [i for i, n in enumerate(fw_names) if n == "torch_all_gather_prim_impl"]
waits = [i for i, n in enumerate(fw_names) if n == "torch_wait_prim_impl"]
linears = [i for i, n in enumerate(fw_names) if n == "linear"]
assert max(gathers) < min(waits)  # every gather starts before the first wait
assert waits[1] < linears[0] < waits[2] < waits[3] < linears[1]  # layer 2's waits after layer 1
# --8<-- [end:fsdp]

# --8<-- [start:fsdp-backward]
fsdp_bw = thunder.last_backward_traces(jfsdp)[-1]
print(fsdp_bw.python(print_depth=1))
bw_names = [b.sym.name for b in fsdp_bw.bound_symbols]
shapes = {n: tuple(p.shape) for n, p in jfsdp.named_parameters()}
print("shard shapes:", shapes)
assert bw_names.count("torch_reduce_scatter_prim_impl") == bw_names.count("torch_wait_prim_impl") == 4
scatters = [i for i, n in enumerate(bw_names) if n == "torch_reduce_scatter_prim_impl"]
waits = [i for i, n in enumerate(bw_names) if n == "torch_wait_prim_impl"]
computing = [i for i, b in enumerate(fsdp_bw.bound_symbols) if b.sym.name in ("matmul", "sum", "where")]
assert max(scatters) < min(waits) and max(computing) < min(waits)  # the waits come last
assert shapes == {n: tuple(p.shape) for n, p in make_model().named_parameters()}  # one process: one shard
# --8<-- [end:fsdp-backward]

# --8<-- [start:teardown]
dist.destroy_process_group()
print("process group destroyed:", not dist.is_initialized())
assert not dist.is_initialized()
# --8<-- [end:teardown]
