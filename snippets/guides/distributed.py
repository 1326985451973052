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
assert [type(t).__name__ for t in thunder.compile_data(jmodel).transforms] == ["DDPTransform"]
synced = {b.output.name for b in syncs}
ddp_linears = [b for b in ddp_pass.bound_symbols if b.sym.name == "linear"]
assert len(ddp_linears) == 2 and all({a.name for a in b.args[1:]} <= synced for b in ddp_linears)
# --8<-- [end:ddp]

# --8<-- [start:ddp-forward]
fw = traces[-1]
print(fw.python(print_depth=1))
fw_names = {b.sym.name for b in fw.bound_symbols}
assert not fw_names & {"torch_all_reduce_prim_impl", "torch_all_gather_prim_impl",
                       "torch_reduce_scatter_prim_impl", "torch_wait_prim_impl"}  # no collective in the forward
copies = [b for b in fw.bound_symbols if b.sym.name == "shallow_copy"]
assert sorted(b.args[0].name for b in copies) == sorted(b.args[0].name for b in syncs)  # one per parameter
# --8<-- [end:ddp-forward]

# --8<-- [start:ddp-backward]
bw = thunder.last_backward_traces(jmodel)[-1]
print(bw.python(print_depth=1))
bw_names = [b.sym.name for b in bw.bound_symbols]
print("all_reduce:", bw_names.count("torch_all_reduce_prim_impl"), "| wait:", bw_names.count("torch_wait_prim_impl"))
assert bw_names.count("torch_all_reduce_prim_impl") == bw_names.count("torch_wait_prim_impl") == 4
assert [producers(bw)[g].sym.name for g in bw.output if g is not None] == ["torch_wait_prim_impl"] * 4
# --8<-- [end:ddp-backward]

# --8<-- [start:find]
def collectives_for(jmodule, param_name):
    """The lines of jmodule's last backward that reduce one parameter's gradient: divide, all_reduce, wait."""
    prologue = thunder.last_prologue_traces(jmodule)[0]
    fw = thunder.last_traces(jmodule)[-1]
    bw = thunder.last_backward_traces(jmodule)[-1]
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


print("parameter names:", [name for name, _ in model.named_parameters()])
proxy_name, lines = collectives_for(jmodel, "0.weight")
print("parameter 0.weight is", proxy_name, "in the traces; its gradient is reduced by:")
printed = bw.python(print_depth=1).splitlines()
for b in lines:
    print(next(line for line in printed if line.startswith(f"  {b.output.name} = ")))
assert [name for name, _ in model.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]
waited = set()
for name, p in model.named_parameters():  # every parameter: its own divide, all_reduce and wait
    _, found = collectives_for(jmodel, name)
    assert [b.sym.name for b in found] == ["true_divide", "torch_all_reduce_prim_impl", "torch_wait_prim_impl"]
    assert tuple(found[-1].output.shape) == tuple(p.shape)
    waited.add(found[-1].output.name)
assert len(waited) == 4
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

# --8<-- [start:no-sync-module]
events = []  # what happens, in order, in and after the with block
reduced = []  # the tensors that torch.distributed's all_reduce was called on
real_sync_grads, real_all_reduce = thunder.distributed._sync_grads, dist.distributed_c10d.all_reduce


def recording_sync_grads(module):
    events.append("_sync_grads(jmodel)" if module is jmodel else "_sync_grads(another module)")
    return real_sync_grads(module)


def recording_all_reduce(tensor, *args, **kwargs):
    reduced.append(tensor)
    events.append("all_reduce(.grad)" if any(tensor is p.grad for p in jmodel.parameters()) else "all_reduce")
    return real_all_reduce(tensor, *args, **kwargs)


thunder.distributed._sync_grads, dist.distributed_c10d.all_reduce = recording_sync_grads, recording_all_reduce
try:
    with jmodel.no_sync():
        assert thunder.distributed.get_skip_data_parallel_grad_sync()  # the flag of skip_data_parallel_grad_sync
        jmodel(x).sum().backward()
        inside = thunder.last_backward_traces(jmodel)[-1]
        events.append("backward done")
finally:
    thunder.distributed._sync_grads, dist.distributed_c10d.all_reduce = real_sync_grads, real_all_reduce
inside_names = [b.sym.name for b in inside.bound_symbols]
print("collectives in the backward inside no_sync():",
      [n for n in inside_names if n.startswith("torch_") and n.endswith("_prim_impl")])
print("in order:", events)

assert not any("all_reduce" in n or "wait" in n or n == "true_divide" for n in inside_names)
assert events == ["backward done", "_sync_grads(jmodel)"] + ["all_reduce(.grad)"] * 4
assert sorted(map(id, reduced)) == sorted(id(p.grad) for p in jmodel.parameters() if p.grad is not None)
assert (thunder.compile_stats(jmodel).cache_misses, thunder.compile_stats(jmodel).cache_hits) == (2, 1)  # no new variant
assert not thunder.distributed.get_skip_data_parallel_grad_sync()  # the flag is reset on exit

# A synced call hits entry 0; Thunder updates last_traces on a hit but not last_backward_traces,
# so the lists that collectives_for reads now come from two entries (read them after a compile).
jmodel(x)
entries = thunder.compile_stats(jmodel).interpreter_cache
assert len(entries) == 2 and thunder.last_traces(jmodel) is entries[0].computation_traces
assert thunder.last_backward_traces(jmodel) is entries[1].backward_traces is not entries[0].backward_traces
# --8<-- [end:no-sync-module]

# --8<-- [start:sort-waits]
COLLECTIVES = {"torch_all_reduce_prim_impl", "torch_all_gather_prim_impl", "torch_reduce_scatter_prim_impl"}


def gaps(trc):
    """For each wait: how many lines after the collective that it waits for."""
    index = {id(b): i for i, b in enumerate(trc.bound_symbols)}
    made_by = producers(trc)
    return [
        index[id(b)] - index[id(made_by[b.args[0]])]
        for b in trc.bound_symbols
        if b.sym.id in (dist_prims.PrimIDs.WAIT, "torch_wait_prim_impl")
    ]


def check_sort_waits_order(trc):
    """Assert that each line of trc is the one Sort Waits' rule picks among the lines that can run."""
    lines, made_by = trc.bound_symbols, producers(trc)
    placed = {}  # id of each line placed so far -> its position

    def kind(b):
        if b.sym.name in COLLECTIVES:
            return "collective"
        return {"torch_wait_prim_impl": "wait", "python_return": "return"}.get(b.sym.name, "other")

    for i, line in enumerate(lines):
        ready = [b for b in lines[i:] if all(id(made_by[p]) in placed for p in b.flat_proxy_args if p in made_by)]
        assert any(b is line for b in ready)  # a line comes after the lines that make its inputs
        first = next(k for k in ("collective", "other", "wait", "return") if k in {kind(b) for b in ready})
        assert kind(line) == first, (i, line.sym.name, first)
        same_kind = [b for b in ready if kind(b) == first]
        if first == "collective":  # of the ready collectives, one with the most elements
            assert line.args[0].numel == max(b.args[0].numel for b in same_kind)
        if first == "wait":  # of the ready waits, the one whose collective was placed first
            assert line is min(same_kind, key=lambda b: placed[id(made_by[b.args[0]])])
        placed[id(line)] = i


grad_pass = next(t for t in traces if str(t.get_provenance()).startswith("# Constructed by Grad transform"))
sorted_trace = next(t for t in traces if str(t.get_provenance()) == "# Constructed by Sort Waits")
print("lines from each collective to its wait, Grad transform pass:", gaps(grad_pass))
print("lines from each collective to its wait, Sort Waits:         ", gaps(sorted_trace))
tail = [b.sym.name for b in sorted_trace.bound_symbols[-5:]]
print("the last lines after Sort Waits:", tail)

assert set(gaps(grad_pass)) == {1} and min(gaps(sorted_trace)) > 1
assert tail == ["torch_wait_prim_impl"] * 4 + ["python_return"]
check_sort_waits_order(sorted_trace)
for w in (b for b in sorted_trace.bound_symbols if b.sym.name == "torch_wait_prim_impl"):
    readers = [b.sym.name for b in sorted_trace.bound_symbols if w.output.name in {p.name for p in b.flat_proxy_args}]
    assert readers == ["python_return"]  # nothing but the return reads a reduced gradient
# --8<-- [end:sort-waits]

# --8<-- [start:bucketing]
import thunder.distributed.transforms.ddp as ddp_module

given = {}  # run -> the traces the bucketing pass was given
results = {}  # run -> what it returned for each
real_bucketing = ddp_module.apply_bucketing_to_grad_allreduce


def describe(trc):
    ids = {b.sym.id for b in trc.bound_symbols}
    keys = sorted(trc.output) if isinstance(trc.output, dict) else type(trc.output).__name__
    return (f"dist_prims.wait: {dist_prims.PrimIDs.WAIT in ids!s:5} | torch_wait_prim_impl: "
            f"{'torch_wait_prim_impl' in ids!s:5} | returns: {keys}")


def run(label, recipe):
    given[label], results[label] = [], []

    def recording_bucketing(trc):  # passes.py imports the function from ddp_module when it runs
        given[label].append(trc)
        results[label].append(real_bucketing(trc))
        return results[label][-1]

    ddp_module.apply_bucketing_to_grad_allreduce = recording_bucketing
    try:
        jm = thunder.compile(make_model(), recipe=recipe)
        jm(x).sum().backward()
        return jm
    finally:
        ddp_module.apply_bucketing_to_grad_allreduce = real_bucketing


jm = run("torch executor", Recipe(plugins=[DDP()]))
computation_input = given["torch executor"][-1]  # the last call: the computation trace
computation_output = results["torch executor"][-1]
print(describe(computation_input))
print("the pass returned the trace it was given:", computation_output is computation_input)
passes = [str(t.get_provenance()).removeprefix("# Constructed by ").split(" (took")[0] for t in thunder.last_traces(jm)]
grad_bytes = sum(p.grad.numel() * p.grad.element_size() for p in jm.parameters())
names = [b.sym.name for b in thunder.last_backward_traces(jm)[-1].bound_symbols]
print("passes:", passes)
print("all_reduce calls in the backward:", names.count("torch_all_reduce_prim_impl"),
      "for 4 gradients of", grad_bytes, "bytes in all")

ids = {b.sym.id for b in computation_input.bound_symbols}
assert dist_prims.PrimIDs.WAIT not in ids and "torch_wait_prim_impl" in ids
assert "fw_flat_out" in computation_input.output  # forward and backward in one trace
# A bucketing pass returns a new trace, "Batching all_reduce calls"; this one returned what it was given.
assert computation_output is computation_input and names.count("torch_all_reduce_prim_impl") == 4
assert not any("Batching all_reduce calls" in str(t.get_provenance()) for t in results["torch executor"])
# --8<-- [end:bucketing]

# --8<-- [start:torch-compile]
from thunder.core.proxies import TensorProxy
from thunder.core.pytree import tree_flatten

try:
    run("torch.compile", BaseRecipe(fuser="torch.compile", plugins=[DDP()]))
except IndexError as e:
    where = traceback.extract_tb(e.__traceback__)
    frame = e.__traceback__
    while frame.tb_next is not None:
        frame = frame.tb_next
    failed_at = frame.tb_frame.f_locals["tensor"]  # the tensor get_bsym_of_allreduce_of_grad was walking from
    given_trace = given["torch.compile"][-1]
    returned = [t for t in tree_flatten(given_trace.output)[0] if isinstance(t, TensorProxy)]
    made_by = producers(given_trace)[failed_at]
    print(describe(given_trace))
    print("returned tensors, in the order the walk takes them:", [t.name for t in returned])
    print(f"{type(e).__name__}: {e}")
    print("raised in:", where[-1].name, "| called from:", where[-2].name, "<", where[-3].name)
    print("the walk failed at", failed_at.name, "made by", made_by.sym.name, "which reads", list(made_by.flat_proxy_args))

    ids = {b.sym.id for b in given_trace.bound_symbols}
    assert dist_prims.PrimIDs.WAIT in ids and "fw_flat_out" in given_trace.output
    assert where[-1].name == "get_bsym_of_allreduce_of_grad"
    assert "apply_bucketing_to_grad_allreduce" in [f.name for f in where]
    assert [f.name for f in where].count("get_bsym_of_allreduce_of_grad") == 1  # it failed on its first step
    assert failed_at is returned[0] and failed_at.name == "input"  # the first returned tensor: an input
    assert [p.name for p in given_trace.output["flat_args"]][0] == "input"
    assert made_by.sym.name == "unpack_trivial" and len(made_by.flat_proxy_args) == 0
else:
    raise AssertionError("the torch.compile run did not fail in the bucketing pass")
# --8<-- [end:torch-compile]

# --8<-- [start:fsdp]
fsdp_model = make_model()
assert not any(p.is_meta for p in fsdp_model.parameters())  # nothing for MaterializationTransform to create
jfsdp = thunder.compile(fsdp_model, recipe=Recipe(plugins=[FSDP(device=torch.device("cpu"))]))
print("transforms:", [type(t).__name__ for t in thunder.compile_data(jfsdp).transforms])
jfsdp(x).sum().backward()
fsdp_fw = thunder.last_traces(jfsdp)[-1]
fsdp_passes = [str(t.get_provenance()) for t in thunder.last_traces(jfsdp)]
fsdp_pass = next(t for t in thunder.last_traces(jfsdp) if str(t.get_provenance()).startswith("# Constructed by fsdp pass"))
fsdp_syncs = [b for b in fsdp_pass.bound_symbols if b.sym.id == dist_prims.PrimIDs.SYNCHRONIZE]
assert len(fsdp_syncs) == 4 and all(b.args[2] is thunder.core.proxies.DistParallelType.FULLY_SHARDED for b in fsdp_syncs)
assert fsdp_passes.index(str(fsdp_pass.get_provenance())) < next(
    i for i, p in enumerate(fsdp_passes) if p.startswith("# Constructed by Grad transform"))  # before autograd
print(fsdp_fw.python(print_depth=1))
fw_names = [b.sym.name for b in fsdp_fw.bound_symbols]
assert fw_names.count("torch_all_gather_prim_impl") == fw_names.count("torch_wait_prim_impl") == 4
gathers = [i for i, n in enumerate(fw_names) if n == "torch_all_gather_prim_impl"]
waits = [i for i, n in enumerate(fw_names) if n == "torch_wait_prim_impl"]
linears = [i for i, n in enumerate(fw_names) if n == "linear"]
assert max(gathers) < min(waits)  # every gather starts before the first wait
assert waits[1] < linears[0] < waits[2] < waits[3] < linears[1]  # layer 2's waits after layer 1


def between_wait_and_reader(trc):
    """For each wait: the names of the lines between it and the first line that reads its result."""
    lines = [b for b in trc.bound_symbols if b.sym.name != "python_del"]
    result = {}
    for i, b in enumerate(lines):
        if b.sym.name == "torch_wait_prim_impl":
            reader = next(j for j in range(i + 1, len(lines)) if b.output.name in {p.name for p in lines[j].flat_proxy_args})
            result[b.output.name] = [c.sym.name for c in lines[i + 1:reader]]
    return result


computation_inputs = [p.name for p in fsdp_fw.bound_symbols[-1].args[0]["flat_args"]]
gather_order = [b.args[0].name for b in fsdp_fw.bound_symbols if b.sym.name == "torch_all_gather_prim_impl"]
assert gather_order == computation_inputs[1:] == ["t_0_bias", "t_0_weight", "t_2_bias", "t_2_weight"]
relu = [i for i, n in enumerate(fw_names) if n in ("gt", "where")]
assert linears[0] < min(relu) and max(relu) < waits[2]  # the ReLU runs before layer 2's waits
made_by_fw = producers(fsdp_fw)
wait_order = [made_by_fw[b.args[0]].args[0].name for b in fsdp_fw.bound_symbols if b.sym.name == "torch_wait_prim_impl"]
assert wait_order == gather_order  # the waits in the gathers' order
fsdp_sorted = next(t for t in thunder.last_traces(jfsdp) if str(t.get_provenance()) == "# Constructed by Sort Waits")
check_sort_waits_order(fsdp_sorted)
forward_waits = between_wait_and_reader(fsdp_fw)
assert len(forward_waits) == 4
assert all(set(names) <= {"torch_wait_prim_impl"} for names in forward_waits.values())  # only waits between
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
for b in fsdp_bw.bound_symbols:
    if b.sym.name == "torch_reduce_scatter_prim_impl":
        divide = producers(fsdp_bw)[b.args[0]]
        assert divide.sym.name == "true_divide" and divide.args[1] == dist.get_world_size()
assert shapes == {n: tuple(p.shape) for n, p in make_model().named_parameters()}  # one process: one shard
# --8<-- [end:fsdp-backward]

# --8<-- [start:out-of-order]
class OutOfOrder(torch.nn.Module):
    """Three layers, named a, b, c and used in the order b, c, a."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = (torch.nn.Linear(4, 4) for _ in range(3))

    def forward(self, x):
        return self.a(self.c(self.b(x)))


torch.manual_seed(0)
jooo = thunder.compile(OutOfOrder(), recipe=Recipe(plugins=[FSDP(device=torch.device("cpu"))]))
jooo(torch.randn(2, 4)).sum().backward()
ooo_fw = thunder.last_traces(jooo)[-1]
for line in ooo_fw.python(print_depth=1).splitlines():
    if any(name in line for name in ("all_gather", "wait", "linear(")) and not line.lstrip().startswith("#"):
        print(line.split("  #")[0])
ooo_between = between_wait_and_reader(ooo_fw)
print("linears between each wait and the first line that reads it:",
      {name: between.count("linear") for name, between in ooo_between.items()})

ooo_sorted = next(t for t in thunder.last_traces(jooo) if str(t.get_provenance()) == "# Constructed by Sort Waits")
check_sort_waits_order(ooo_sorted)
gathered = {b.output.name: b.args[0].name for b in ooo_fw.bound_symbols if b.sym.name == "torch_all_gather_prim_impl"}
waited = [gathered[b.args[0].name] for b in ooo_fw.bound_symbols if b.sym.name == "torch_wait_prim_impl"]
print("parameters waited for, in order:", waited)
ooo_inputs = [p.name for p in ooo_fw.bound_symbols[-1].args[0]["flat_args"]]
assert waited == list(gathered.values()) == ooo_inputs[1:]  # gathers and waits in the order of the inputs
assert waited == ["t_a_bias", "t_a_weight", "t_b_bias", "t_b_weight", "t_c_bias", "t_c_weight"]
for b in ooo_fw.bound_symbols:
    if b.sym.name == "torch_wait_prim_impl" and gathered[b.args[0].name].startswith("t_a_"):
        assert ooo_between[b.output.name].count("linear") == 2  # layers b and c run between a's wait and a
    if b.sym.name == "torch_wait_prim_impl" and gathered[b.args[0].name].startswith("t_b_"):
        assert "linear" not in ooo_between[b.output.name]  # b's linear comes right after b's waits


class MadeBackwards(OutOfOrder):
    """The same layers, made in the order c, b, a."""

    def __init__(self):
        torch.nn.Module.__init__(self)
        self.c, self.b, self.a = (torch.nn.Linear(4, 4) for _ in range(3))


jback = thunder.jit(MadeBackwards())  # the jit orders the inputs; FSDP keeps that order
jback(torch.randn(2, 4))
assert [n for n, _ in MadeBackwards().named_parameters()][:2] == ["c.weight", "c.bias"]
# the inputs follow the parameters' names, not the order the layers were made in
assert [p.name for p in thunder.last_traces(jback)[-1].args] == ooo_inputs

# Names are compared part by part, a number as a number: layer 2 before layer 10.
with torch.random.fork_rng():  # the layers' random weights leave the seeded RNG as it was
    deep = torch.nn.Sequential(*(torch.nn.Linear(2, 2) for _ in range(11)))
jdeep = thunder.jit(deep)
jdeep(torch.ones(1, 2))
deep_inputs = [p.name for p in thunder.last_traces(jdeep)[-1].args][1:]  # after the input
assert deep_inputs == [f"t_{i}_{kind}" for i in range(11) for kind in ("bias", "weight")]
by_string = sorted(n for n, _ in deep.named_parameters())
assert by_string[2:4] == ["1.bias", "1.weight"] and by_string[4] == "10.bias"  # what string order would give
# --8<-- [end:out-of-order]

# --8<-- [start:fsdp-find]
def fsdp_collectives_for(jmodule, param_name):
    """Where an FSDP module gathers one parameter (forward) and reduces its gradient (backward).

    Returns the parameter's proxy name (None when the prologue does not fetch it), the gather and its
    wait ([] when no gather reads that proxy) and the divide, reduce_scatter and wait ([] when the
    backward returns no gradient for it)."""
    prologue = thunder.last_prologue_traces(jmodule)[0]
    fw = thunder.last_traces(jmodule)[-1]
    bw = thunder.last_backward_traces(jmodule)[-1]
    proxy_name = next((
        b.output.name for b in prologue.bound_symbols
        if b.sym.name == "unpack_parameter" and b.args[1] == param_name
    ), None)
    if proxy_name is None:  # the forward does not use it: it is not an input of the computation
        return None, [], []
    gather = next((b for b in fw.bound_symbols
                   if b.sym.name == "torch_all_gather_prim_impl" and b.args[0].name == proxy_name), None)
    forward_lines = [] if gather is None else [
        gather, next(b for b in fw.bound_symbols if b.sym.name == "torch_wait_prim_impl" and b.args[0] is gather.output)]
    position = [p.name for p in fw.bound_symbols[-1].args[0]["flat_args"]].index(proxy_name)
    grad = bw.output[position]  # the backward returns one gradient per forward input, in order
    if grad is None:
        return proxy_name, forward_lines, []
    made_by = producers(bw)
    wait = made_by[grad]
    reduce_scatter = made_by[wait.args[0]]
    divide = made_by[reduce_scatter.args[0]]
    return proxy_name, forward_lines, [divide, reduce_scatter, wait]


fw_printed = fsdp_fw.python(print_depth=1).splitlines()
bw_printed = fsdp_bw.python(print_depth=1).splitlines()
proxy_name, forward_lines, backward_lines = fsdp_collectives_for(jfsdp, "2.weight")
print("parameter 2.weight is", proxy_name, "in the traces; the forward gathers it with:")
for b in forward_lines:
    print(next(line for line in fw_printed if line.startswith(f"  {b.output.name} = ")))
print("and the backward reduces and scatters its gradient with:")
for b in backward_lines:
    print(next(line for line in bw_printed if line.startswith(f"  {b.output.name} = ")))

for name, p in fsdp_model.named_parameters():  # every parameter: one gather and wait, one divide, scatter, wait
    found_name, gathered_lines, reduced_lines = fsdp_collectives_for(jfsdp, name)
    assert [b.sym.name for b in gathered_lines] == ["torch_all_gather_prim_impl", "torch_wait_prim_impl"]
    assert [b.sym.name for b in reduced_lines] == ["true_divide", "torch_reduce_scatter_prim_impl",
                                                   "torch_wait_prim_impl"]
    assert reduced_lines[0].args[1] == dist.get_world_size() == 1  # divided by the world size: 1 here
    assert producers(fsdp_bw)[reduced_lines[0].args[0]].sym.name != "torch_pad_prim_impl"  # one process: no padding
    assert tuple(reduced_lines[-1].output.shape) == tuple(dict(jfsdp.named_parameters())[name].shape)  # a shard
    readers = [b for b in fsdp_fw.bound_symbols if gathered_lines[1].output.name in {a.name for a in b.flat_proxy_args}]
    assert any(b.sym.name == "linear" for b in readers)  # the gathered weight or bias is what a linear reads
assert "torch_slice_prim_impl" not in [b.sym.name for b in fsdp_fw.bound_symbols]  # nothing to unpad
assert proxy_name == "t_2_weight"


class TiedFrozenUnused(torch.nn.Module):
    """b shares a's weight, a's bias does not require grad, and the forward does not use spare."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.spare = (torch.nn.Linear(8, 8) for _ in range(3))
        self.b.weight = self.a.weight
        self.a.bias.requires_grad_(False)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


torch.manual_seed(0)
odd_model = TiedFrozenUnused()
jodd = thunder.compile(odd_model, recipe=Recipe(plugins=[FSDP(device=torch.device("cpu"))]))
jodd(x).sum().backward()
odd_found = {}
for name, _ in odd_model.named_parameters(remove_duplicate=False):
    odd_found[name] = fsdp_collectives_for(jodd, name)
    found_name, gathered_lines, reduced_lines = odd_found[name]
    print(f"{name:12} proxy {found_name}, forward {[b.sym.name for b in gathered_lines]}, "
          f"backward {[b.sym.name for b in reduced_lines]}")

gather_and_wait = ["torch_all_gather_prim_impl", "torch_wait_prim_impl"]
divide_scatter_wait = ["true_divide", "torch_reduce_scatter_prim_impl", "torch_wait_prim_impl"]
assert {n: ([b.sym.name for b in f], [b.sym.name for b in r]) for n, (_, f, r) in odd_found.items()} == {
    "a.weight": (gather_and_wait, divide_scatter_wait),
    "a.bias": (gather_and_wait, []),  # frozen: gathered, no gradient
    "b.weight": ([], []),  # tied: a.weight's gather and reduction serve it
    "b.bias": (gather_and_wait, divide_scatter_wait),
    "spare.weight": ([], []), "spare.bias": ([], []),  # unused: not fetched
}
assert odd_found["b.weight"][0] == "t_b_weight" and odd_found["spare.weight"][0] is None
odd_fw = thunder.last_traces(jodd)[-1]
a_weight_gathered = odd_found["a.weight"][1][1].output.name
assert [b.sym.name for b in odd_fw.bound_symbols
        if b.sym.name == "linear" and a_weight_gathered in {p.name for p in b.flat_proxy_args}] == ["linear", "linear"]
assert "t_b_weight" not in {p.name for b in odd_fw.bound_symbols if b.sym.name != "python_return" for p in b.flat_proxy_args}
torch.manual_seed(0)
odd_ref = TiedFrozenUnused()
odd_ref(x).sum().backward()
torch.testing.assert_close(jodd.get_parameter("a.weight").grad, odd_ref.a.weight.grad)  # both uses' gradients, summed
# --8<-- [end:fsdp-find]

# --8<-- [start:teardown]
dist.destroy_process_group()
print("process group destroyed:", not dist.is_initialized())
assert not dist.is_initialized()
# --8<-- [end:teardown]
