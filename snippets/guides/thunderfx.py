"""ThunderFX: torch.compile with Thunder as its backend, from the function to the traces of each part."""

# --8<-- [start:setup]
import thunder
import torch
from thunder.dynamo import ThunderCompiler, ThunderFXCompiledObject, thunderfx

torch.manual_seed(0)


def fn(x):
    y = torch.sin(x)
    h = torch.histc(y, bins=4)
    return y.cos().sum() + h.sum()


x = torch.randn(8)
cfn = thunderfx(fn)
out = cfn(x)

print(type(cfn).__name__, "| its backend:", type(cfn._backend).__name__)
print("same result as fn:", torch.allclose(out, fn(x)))
assert isinstance(cfn, ThunderFXCompiledObject)
assert isinstance(cfn._backend, ThunderCompiler)
assert torch.allclose(out, fn(x))
# --8<-- [end:setup]

# --8<-- [start:dynamo_graph]
backend = cfn._backend
print("graphs Dynamo handed over:", len(backend.subgraph_infos))
info = backend.subgraph_infos[0]
print(info.original_graph_module.code.strip())

nodes = info.original_graph_module.graph.nodes
placeholder = next(n for n in nodes if n.op == "placeholder")
print("placeholder:", placeholder.name,
      "| parameter of forward:", placeholder.target)
assert len(backend.subgraph_infos) == 1
assert (placeholder.name, placeholder.target) == ("l_x_", "L_x_")
# --8<-- [end:dynamo_graph]

# --8<-- [start:split]
split = info.split_graph_module
print(split.code.strip())
for reason in info.split_reasons:
    print(f"split: {reason.reason_type.name} | {reason.info}")


def fx_graph_of(part):
    """The FX graph a part of the split module runs: a ThunderModule wraps it, an inductor part keeps it."""
    return part._model.graph if isinstance(part, thunder.ThunderModule) else part.graph


part_of = {}  # FX node name -> the part that runs it
for part_name, part in split.named_children():
    for node in fx_graph_of(part).nodes:
        if node.op not in ("placeholder", "output"):
            part_of[node.name] = part_name

print()
print(f"{'FX node':8} {'op':14} {'target':28} part")
for node in info.original_graph_module.graph.nodes:
    if node.op in ("placeholder", "output"):
        continue
    target = getattr(node.target, "__name__", node.target)
    print(f"{node.name:8} {node.op:14} {target:28} {part_of[node.name]}")

# The diagram on the page draws this assignment; it fails here if the split changes.
assert part_of == {"y": "thunder_0", "h": "inductor_1", "cos": "thunder_2", "sum_1": "thunder_2",
                   "sum_2": "thunder_2", "add": "thunder_2"}
assert [r.reason_type.name for r in info.split_reasons] == ["MISSING_OP_SUPPORT"]
assert "only has an automatic torch fallback" in info.split_reasons[0].info
# --8<-- [end:split]

# --8<-- [start:subgraph_info]
import dataclasses  # noqa: E402

for field in dataclasses.fields(info):
    value = getattr(info, field.name)
    if isinstance(value, list):
        shown = f"list of {len(value)}: " + ", ".join(sorted({type(v).__name__ for v in value}))
    elif isinstance(value, dict):
        shown = "dict: " + ", ".join(f"{type(k).__name__} -> {v.compiler.name}" for k, v in value.items())
    else:
        shown = type(value).__name__
    print(f"{field.name:36} {shown}")

names = [f.name for f in dataclasses.fields(info)]
assert names == ["original_graph_module", "original_split_graph_module", "split_graph_module",
                 "thunder_compiled_fns", "thunder_compiled_fns_example_inputs",
                 "submodule_to_compiled_functions", "split_reasons"]
assert all(isinstance(f, thunder.ThunderModule) for f in info.thunder_compiled_fns)
# a value range for the graph's own input (thunder_0's x), none for what comes from another part (thunder_2's)
ranges = [[(m.min_val is None, m.max_val is None) for m in part] for part in info.thunder_compiled_fns_example_inputs]
assert ranges[0] == [(False, False)] and ranges[-1] and all(r == (True, True) for r in ranges[-1])
assert [v.compiler.name for v in info.submodule_to_compiled_functions.values()] == ["THUNDER", "TORCH_INDUCTOR",
                                                                                      "THUNDER"]
# its values' compiled_fn are the parts that run, the children of split_graph_module, in order
assert [v.compiled_fn for v in info.submodule_to_compiled_functions.values()] == [
    m for _, m in info.split_graph_module.named_children()]
assert all(isinstance(k, torch.fx.GraphModule) for k in info.submodule_to_compiled_functions)
# Its annotation says GraphModule; in 0.2.6 it holds a wrapper with the graph and the thunder part numbers.
assert isinstance(info.split_graph_module, torch.fx.GraphModule)
assert not isinstance(info.original_split_graph_module, torch.fx.GraphModule)
assert info.original_split_graph_module.supported_indexes == {0, 2}
# --8<-- [end:subgraph_info]

# --8<-- [start:traces]
thunder_0, thunder_2 = info.thunder_compiled_fns
trc_thunder_0, trc_thunder_2 = cfn.last_traces
print(trc_thunder_0)
print(trc_thunder_2)

assert len(cfn.last_traces) == 2
assert trc_thunder_0 is thunder.last_traces(thunder_0)[-1]
assert trc_thunder_2 is thunder.last_traces(thunder_2)[-1]
# the FX node names of the values it receives:
assert [name for name, _ in trc_thunder_2.siginfo().args] == ["y", "h"]
assert not any(b.sym.name == "histc"
               for t in cfn.last_traces for b in t.bound_symbols)
# --8<-- [end:traces]

# --8<-- [start:per_part]
for name, part in (("thunder_0", thunder_0), ("thunder_2", thunder_2)):
    print(name, "computation traces:")
    for i, trc in enumerate(thunder.last_traces(part)):
        print(f"  [{i}] {trc.get_provenance()}")
    prologues = thunder.last_prologue_traces(part)
    print(name, "prologue traces:",
          [str(t.get_provenance()) for t in prologues])

assert all(len(thunder.last_traces(p)) > 1 for p in (thunder_0, thunder_2))
# --8<-- [end:per_part]

# --8<-- [start:backward]
cfn_grad = thunderfx(fn)
x_grad = torch.randn(8, requires_grad=True)
cfn_grad(x_grad).backward()

print("forward traces:", len(cfn_grad.last_traces), "| backward traces:", len(cfn_grad.last_backward_traces))
print(cfn_grad.last_backward_traces[0])
x_ref = x_grad.detach().clone().requires_grad_()
fn(x_ref).backward()
print("x.grad matches eager:", torch.allclose(x_grad.grad, x_ref.grad))
assert len(cfn_grad.last_traces) == len(cfn_grad.last_backward_traces) == 2
grad_part = cfn_grad._backend.subgraph_infos[0].thunder_compiled_fns[0]  # thunder_0: the sine
assert cfn_grad.last_backward_traces[0] is thunder.last_backward_traces(grad_part)[-1]
assert {"cos", "mul"} <= {b.sym.name for b in cfn_grad.last_backward_traces[0].bound_symbols}
_, (saved_tensors, _) = cfn_grad.last_traces[0].bound_symbols[-1].args  # the forward's return line
assert [t.name for t in saved_tensors] == ["l_x_"]  # thunder_0 saves its input
assert torch.allclose(x_grad.grad, x_ref.grad)


def two_inputs(t, z):
    h = torch.histc(z.sin(), bins=4)  # the first Thunder part computes z.sin(), and z does not require grad
    return t.cos().sum() + h.sum()


c_two = thunderfx(two_inputs)
c_two(torch.linspace(-1, 1, 8, requires_grad=True), torch.linspace(0, 1, 8)).backward()  # no draw from the seeded RNG
two_parts = c_two._backend.subgraph_infos[0].thunder_compiled_fns
print("two_inputs: forward traces:", len(c_two.last_traces), "| backward traces:", len(c_two.last_backward_traces),
      "| backward traces of each part:", [len(thunder.last_backward_traces(p)) for p in two_parts])
assert len(c_two.last_traces) == 2 and len(c_two.last_backward_traces) == 1
assert thunder.last_backward_traces(two_parts[0]) == []  # no differentiable work: no backward
assert c_two.last_backward_traces[0] is thunder.last_backward_traces(two_parts[1])[-1]

with torch.random.fork_rng():  # the layer's random weights leave the seeded RNG as it was
    c_linear = thunderfx(torch.nn.Linear(4, 3))
c_linear(torch.ones(2, 4))  # the input does not require grad; the layer's parameters do
linear_inputs = [n for n in c_linear._backend.subgraph_infos[0].original_graph_module.graph.nodes if n.op == "placeholder"]
assert any("parameters" in n.name for n in linear_inputs)  # Dynamo made the parameters inputs of the graph
assert len(c_linear.last_backward_traces) == 1  # so the part has a backward trace


class ComparesItsWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(4))

    def forward(self, t):
        return t.cos() + (self.w > 0).float()  # the parameter only compared: nothing differentiable


c_compares = thunderfx(ComparesItsWeight())
c_compares(torch.ones(4))
assert len(c_compares.last_traces) == 1 and c_compares.last_backward_traces == []  # a parameter, but no backward


def makes_a_leaf(t):
    w = torch.ones(4, requires_grad=True)  # made inside: no input requires grad, but w does
    return (t * w).sum()


c_leaf = thunderfx(makes_a_leaf)
c_leaf(torch.ones(4))
assert len(c_leaf.last_traces) == 1 and len(c_leaf.last_backward_traces) == 1
try:
    thunder.last_traces(c_leaf)  # the module's functions take what thunder.jit returns
except TypeError as error:
    assert "doesn't seem to be a thunder compiled function" in str(error), error
else:
    raise AssertionError("thunder.last_traces took a ThunderFX object")
# --8<-- [end:backward]

# --8<-- [start:source_lines]
import linecache  # noqa: E402
import re  # noqa: E402


def user_frame(node):
    """The innermost frame of an FX node's stack trace: your file, line, function and code."""
    lines = node.meta["stack_trace"].rstrip().splitlines()
    at = max(i for i, text in enumerate(lines) if text.lstrip().startswith("File "))
    file, lineno, function = re.match(r'\s*File "(.+)", line (\d+), in (\w+)', lines[at]).groups()
    return file, int(lineno), function, lines[at + 1].strip() if at + 1 < len(lines) else ""


fx_code = info.thunder_compiled_fns[0]._model.code
print(fx_code.strip())
print()

for part, trc in zip(info.thunder_compiled_fns, cfn.last_traces, strict=True):
    nodes = {node.name: node for node in part._model.graph.nodes}
    for bsym in trc.bound_symbols:
        if not (bsym.source_filename or "").startswith("<eval_with_key>"):
            continue
        line = bsym.source_positions.lineno
        fx_line = linecache.getline(bsym.source_filename, line).strip()
        node = nodes[fx_line.split(" = ")[0]]  # the FX node this line of FX code assigns
        file, lineno, function, code = user_frame(node)
        print(f"{bsym.output.name:4} {bsym.source_filename}:{line} -> FX node {node.name:6} -> {file}:{lineno}: {code}")
        assert fx_line in part._model.code and function == "fn" and code == linecache.getline(file, lineno).strip()
# --8<-- [end:source_lines]

# --8<-- [start:graph_break]
def branchy(a):
    a = torch.sin(a)
    if a.sum() > 0:  # needs the data: Dynamo ends the graph here
        return a + 1
    return a - 1


cb = thunderfx(branchy)
a = torch.randn(4, requires_grad=True)
cb(a).sum().backward()
for i, graph_info in enumerate(cb._backend.subgraph_infos):
    print(f"graph {i}: parts {[n for n, _ in graph_info.split_graph_module.named_children()]}, "
          f"split reasons {graph_info.split_reasons}")
    print("  " + graph_info.original_graph_module.code.strip().replace("\n", "\n  "))
print("forward traces:", len(cb.last_traces), "| backward traces:", len(cb.last_backward_traces))

branch_graphs = len(cb._backend.subgraph_infos)
assert branch_graphs == 2
assert all(g.split_reasons == [] for g in cb._backend.subgraph_infos)
c_fallback_only = thunderfx(lambda t: torch.histc(t, bins=4))  # its only node is not Thunder's: not split...
c_fallback_only(torch.linspace(0, 1, 8))
(fallback_info,) = c_fallback_only._backend.subgraph_infos
assert [n for n, _ in fallback_info.split_graph_module.named_children()] == ["inductor_0"]
assert fallback_info.thunder_compiled_fns == [] and len(fallback_info.split_reasons) == 1  # ...but it has a reason
assert len(cb.last_traces) == len(cb.last_backward_traces) == 2
# --8<-- [end:graph_break]

# --8<-- [start:reasons]
import inspect  # noqa: E402
import traceback  # noqa: E402
from functools import partial  # noqa: E402

from thunder.dynamo.report import fx_report  # noqa: E402
from thunder.dynamo.splitter import _splitter  # noqa: E402
from thunder.dynamo.utils import (  # noqa: E402
    UNSUPPORTED_THUNDER_FUNCTION,
    SplitReasonType,
    auto_register_ops,
    is_node_supported_by_thunder,
)
from thunder.torch import _torch_to_thunder_function_map  # noqa: E402
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols  # noqa: E402

print("SplitReasonType:", [t.name for t in SplitReasonType])


def reasons_of(f, *args):
    c = thunderfx(f)
    c(*args)
    return [r for g in c._backend.subgraph_infos for r in g.split_reasons]


found = {}

# A torch function that Thunder has no symbol for at all.
found["no mapping"] = reasons_of(lambda t: torch.ops.aten.sin.default(t).cos(), torch.randn(4))

# A built-in torch function without a symbol is run on proxies instead: as_strided raises there.
found["unmapped"] = reasons_of(lambda t: torch.as_strided(t, (2,), (1,)).cos(), torch.randn(4))

# torch.eye takes no tensor, so running it on proxies works: the splitter leaves the node to Thunder.
recorded = []
torch.compile(lambda t: t.cos() + torch.eye(4)[0], backend=lambda gm, _: recorded.append(gm) or gm.forward)(torch.randn(4))
eye_node = next(n for n in recorded[0].graph.nodes if n.target is torch.eye)
eye_decision = is_node_supported_by_thunder(eye_node, ThunderCompiler().thunder_options)
print("torch.eye: (supported, split reason) =", eye_decision)

# Thunder's symbol exists, but its meta function raises for these arguments.
found["meta raises"] = reasons_of(lambda t: torch.nn.functional.pad(t, (1, 1), mode="reflect").cos(),
                                  torch.randn(1, 2, 4))

# A value Thunder cannot make a proxy for: an int read from a tensor (an unbacked SymInt).
with torch._dynamo.config.patch(capture_scalar_outputs=True):
    c_item = thunderfx(lambda t: t.cos() * t.sum().int().item())
    c_item(torch.randn(4))
found["no proxy"] = c_item._backend.subgraph_infos[0].split_reasons
item_value = next(n.meta["example_value"] for n in c_item._backend.subgraph_infos[0].original_graph_module.graph.nodes
                  if n.name == "item")

# A size that Dynamo made symbolic is a SymInt too, but one with a hint: Thunder makes a proxy of it.
c_size = thunderfx(lambda t: t.cos() * t.shape[0], dynamic=True)
c_size(torch.randn(4))
size_graph = c_size._backend.subgraph_infos[0]
size_node = next(n for n in size_graph.original_graph_module.graph.nodes
                 if n.op == "placeholder" and isinstance(n.meta["example_value"], torch.SymInt))
print(f"item's SymInt {item_value}: has a hint {item_value.node.has_hint()} | size SymInt {size_node.name}: has a hint "
      f"{size_node.meta['example_value'].node.has_hint()}, read by {[u.name for u in size_node.users]}, "
      f"split reasons {size_graph.split_reasons}")


# Nodes inside torch.vmap. Compiling such a graph fails under thunderfx in this stack (below), so the
# graph is taken from fx_report and split here, as ThunderCompiler would, with eager fallback parts.
def vmapped(t):
    return torch.vmap(torch.sin)(t).cos()


vmap_failed = False
try:
    thunderfx(vmapped)(torch.randn(3, 4))
except torch._dynamo.exc.BackendCompilerFailed as e:
    print("thunderfx(vmapped) raised BackendCompilerFailed:", str(e).splitlines()[1][:70], "...")
    vmap_failed = True
    frames = [(frame.name, frame.filename) for frame in traceback.extract_tb(e.__traceback__)]
    called = frames[[name for name, _ in frames].index("_splitter") + 1]  # what _splitter called when it failed
    print("it raised in the call that _splitter made to:", called[0], "of torch._inductor")
vmap_gm = fx_report(vmapped)(torch.randn(3, 4)).fx_graph_reports[0].graph
_, vmap_info = _splitter(vmap_gm, partial(thunder.jit, **ThunderCompiler().thunder_options),
                         lambda gm, args: gm, None, ThunderCompiler().thunder_options)
found["inside vmap"] = vmap_info.split_reasons

print()
for case, reasons in found.items():
    for r in reasons:
        print(f"{case:12} {r.reason_type.name:27} {r.info}" + (f"\n{'':40} exception: {r.exception}" if r.exception else ""))

seen = {r.reason_type for reasons in found.values() for r in reasons} | {info.split_reasons[0].reason_type}
assert seen == set(SplitReasonType) and vmap_failed
assert found["no mapping"][0].reason_type is SplitReasonType.MISSING_OP_SUPPORT
assert "didn't have any mapping" in found["no mapping"][0].info and not inspect.isbuiltin(torch.ops.aten.sin.default)
for unmapped in (torch.as_strided, torch.eye):  # built-in torch functions that Thunder has no symbol for
    assert inspect.isbuiltin(unmapped) and unmapped not in _torch_to_thunder_function_map
    assert unmapped not in auto_register_ops
assert [r.reason_type for r in found["unmapped"]] == [SplitReasonType.EXCEPTION_META_THUNDER_OP]
assert eye_decision == (True, None)  # no split reason: sent to Thunder
assert free_unbacked_symbols(item_value) and not item_value.node.has_hint()  # .item(): an unbacked SymInt
assert size_node.meta["example_value"].node.has_hint() and [u.name for u in size_node.users] == ["mul"]
assert size_graph.split_reasons == []  # the mul that reads the size SymInt went to Thunder
assert called[0] == "compile" and "torch/_inductor/" in called[1]  # an Inductor error, passed on, not run eagerly
assert [r.reason_type for r in found["meta raises"]] == [SplitReasonType.EXCEPTION_META_THUNDER_OP]
assert SplitReasonType.EXCEPTION_PROXY_THUNDER_OP in {r.reason_type for r in found["no proxy"]}
unsupported = [r.info.split()[3] for r in found["inside vmap"] if r.reason_type is SplitReasonType.UNSUPPORTED_NODE]
# In 0.2.6 the region never closes: the cos after torch.vmap counts as inside it too.
assert unsupported == ["_add_batch_dim", "batched_outputs", "_remove_batch_dim", "cos"]
assert UNSUPPORTED_THUNDER_FUNCTION == ()  # the other UNSUPPORTED_NODE branch has nothing to match
# --8<-- [end:reasons]

# --8<-- [start:fx_report]
from thunder.dynamo.report import analyze_thunder_splits  # noqa: E402

graphs_before = len(cb._backend.subgraph_infos)
report = fx_report(fn)(x)
cb(a)  # fx_report reset Dynamo: branchy compiles its two graphs again
print("branchy's graphs before fx_report:", graphs_before, "| after it and one more call:",
      len(cb._backend.subgraph_infos))
print(type(report).__name__, "| graphs:", len(report.fx_graph_reports),
      "| graph breaks:", len(report.dynamo_break_reasons))
graph_report = report.fx_graph_reports[0]
print(graph_report.graph_name, "operators:", sorted(getattr(op, "__name__", op) for op in graph_report.ops))

split_report = analyze_thunder_splits(graph_report)
print(type(split_report).__name__, "| parts run by Thunder:", [r.graph_name for r in split_report.subgraph_reports])
print(split_report.split_reason.strip().splitlines()[-1].strip())

break_report = fx_report(branchy)(a)
print("branchy:", len(break_report.fx_graph_reports), "graphs; break reason:",
      [r.reason for r in break_report.dynamo_break_reasons])

assert [r.graph_name for r in split_report.subgraph_reports] == ["graph0_thunder_0", "graph0_thunder_2"]
assert len(break_report.fx_graph_reports) == 2 and len(break_report.dynamo_break_reasons) == 1
assert len(cb._backend.subgraph_infos) == graphs_before + 2
# --8<-- [end:fx_report]

# --8<-- [start:reproducer]
import runpy  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

with tempfile.TemporaryDirectory() as folder:
    backend.save_reproducer_to_folder(folder)
    written = sorted(p.name for p in Path(folder).iterdir())
    print("written:", written)
    script = (Path(folder) / written[0]).read_text()
    print(script[script.index("class DynamoModule"):script.index("if __name__")].strip())
    assert "Split Reasons:" in script and "Environment information" in script  # in a docstring at the end

    repro = runpy.run_path(str(Path(folder) / written[0]))  # defines the test, does not run it
    repro["test_graph0_thunder_0"]()  # runs thunder.jit on the part and compares with eager: no error
    jitted = thunder.jit(repro["DynamoModule"]())
    jitted(x)

ops = [b.sym.name for b in thunder.last_traces(jitted)[-1].bound_symbols]
print("reproducer's trace:", ops, "| thunder_0's trace:", [b.sym.name for b in trc_thunder_0.bound_symbols])
assert written == ["graph0_thunder_0_repro.py", "graph0_thunder_2_repro.py"]
assert ops == [b.sym.name for b in trc_thunder_0.bound_symbols]
# --8<-- [end:reproducer]

# --8<-- [start:versus_function]
jfn = thunder.jit(fn)
jfn(x)
jit_trc = thunder.last_traces(jfn)[-1]
print(jit_trc)


def checks(prologue):
    return sorted({b.sym.name for b in prologue.bound_symbols if b.sym.name.startswith("check")})


print("thunder.jit prologue checks:", checks(thunder.last_prologue_traces(jfn)[-1]))
print("thunderfx  prologue checks: ", checks(thunder.last_prologue_traces(thunder_0)[-1]))

row = {}  # each cell of the page's table, checked
row["compiled object"] = (type(jfn).__name__, type(cfn).__name__)
fn_ops = {"sin", "histc", "cos", "sum", "add"}
row["traces that run fn"] = (sum(fn_ops <= {b.sym.name for b in t.bound_symbols} for t in [jit_trc]), len(cfn.last_traces))
row["torch.histc"] = ("a line of the trace" if any(b.sym.name == "histc" for b in jit_trc.bound_symbols) else "absent",
                      f"part {part_of['h']}")
row["input name"] = ([n for n, _ in jit_trc.siginfo().args], [n for n, _ in trc_thunder_0.siginfo().args])
row["source comments"] = (sorted({b.source_filename for b in jit_trc.bound_symbols if b.source_filename}),
                          sorted({b.source_filename.split(".")[0] for t in cfn.last_traces
                                  for b in t.bound_symbols if b.source_filename}))
row["tensor checks in prologue"] = ("check_tensor_metadata" in checks(thunder.last_prologue_traces(jfn)[-1]),
                                    "check_tensor_metadata" in checks(thunder.last_prologue_traces(thunder_0)[-1]))
try:
    thunder.jit(branchy)(a)
    jit_branch = "ran"
except NotImplementedError as e:
    jit_branch = "raised NotImplementedError"
    print("thunder.jit(branchy):", type(e).__name__, e)
row["data-dependent branch"] = (jit_branch, f"ran as {branch_graphs} graphs")

for feature, (by_jit, by_fx) in row.items():
    print(f"{feature:26} thunder.jit: {by_jit!s:28} thunderfx: {by_fx}")

assert row["compiled object"] == ("function", "ThunderFXCompiledObject")
assert row["traces that run fn"] == (1, 2)  # jit: one trace holds every operation of fn
assert row["torch.histc"] == ("a line of the trace", "part inductor_1")
assert row["input name"] == (["x"], ["l_x_"])
assert row["source comments"] == ([fn.__code__.co_filename], ["<eval_with_key>"])  # fn's own file, FX's code
assert row["tensor checks in prologue"] == (True, False)
assert row["data-dependent branch"] == ("raised NotImplementedError", "ran as 2 graphs")
# --8<-- [end:versus_function]

# --8<-- [start:versus_recompile]
def sizes_and_misses(f_jit, f_fx, inputs):
    seen = []
    for t in inputs:
        f_jit(t)
        f_fx(t)
        infos = f_fx._backend.subgraph_infos
        part = infos[-1].thunder_compiled_fns[0]
        print(f"{str(tuple(t.shape)):5} {str(t.dtype):14} | thunder.jit cache misses: "
              f"{thunder.compile_stats(f_jit).cache_misses} | thunderfx: {len(infos)} graphs, "
              f"last graph's first part: {thunder.compile_stats(part).cache_misses} cache misses")
        seen.append((thunder.compile_stats(f_jit).cache_misses, len(infos), thunder.compile_stats(part).cache_misses))
    return seen


def g(t):
    return torch.sin(t).cos()


jg, cg = thunder.jit(g), thunderfx(g)
seen = sizes_and_misses(jg, cg, [torch.randn(8), torch.randn(5), torch.randn(6), torch.randn(6, dtype=torch.float64)])

dynamic_graph = cg._backend.subgraph_infos[1].original_graph_module
print("second graph's inputs:", [(n.name, type(n.meta["example_value"]).__name__)
                                 for n in dynamic_graph.graph.nodes if n.op == "placeholder"])
dynamic_part = cg._backend.subgraph_infos[1].thunder_compiled_fns[0]
print("its part's prologue checks:", checks(thunder.last_prologue_traces(dynamic_part)[-1]))

# (thunder.jit cache misses, thunderfx graphs, cache misses of the last graph's part) after each call
assert seen == [(1, 1, 1), (2, 2, 1), (3, 2, 2), (4, 3, 1)]
assert thunder.compile_stats(dynamic_part).cache_misses == 2  # 5, then 6: Thunder recompiled inside the graph
assert "check_tensor_metadata" in checks(thunder.last_prologue_traces(dynamic_part)[-1])
assert "check_number_type_and_value" in checks(thunder.last_prologue_traces(dynamic_part)[-1])  # the size's value too
assert any(isinstance(n.meta["example_value"], torch.SymInt) for n in dynamic_graph.graph.nodes if n.op == "placeholder")


class WithBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.register_buffer("buf", torch.ones(3))

    def forward(self, t):
        return self.lin(t) + self.buf


c_buf = thunderfx(WithBuffer(), dynamic=True)
c_buf(torch.randn(2, 4))
buf_part = c_buf._backend.subgraph_infos[0].thunder_compiled_fns[0]
buf_inputs = [n for n, _ in thunder.last_traces(buf_part)[-1].siginfo().args]
buf_checked = sorted(b.args[0].name for b in thunder.last_prologue_traces(buf_part)[-1].bound_symbols
                     if b.sym.name == "check_tensor_metadata")
print("a Linear and a buffer under dynamic=True: tensor inputs", buf_inputs, "| checked in the prologue", buf_checked)
assert [n for n in buf_inputs if "_parameters_" in n] and not [n for n in buf_checked if "_parameters_" in n]
assert [n for n in buf_checked if "_buffers_" in n] == [n for n in buf_inputs if "_buffers_" in n] != []
# --8<-- [end:versus_recompile]

# --8<-- [start:versus_module]
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
inp = torch.randn(2, 4)
jm, cm = thunder.jit(model), thunderfx(model)
jm(inp)
cm(inp)
jm_trc, (cm_trc,) = thunder.last_traces(jm)[-1], cm.last_traces
print("thunder.jit:", type(jm).__name__, [n for n, _ in jm_trc.siginfo().args])
print("thunderfx:  ", type(cm).__name__, [n for n, _ in cm_trc.siginfo().args])
print("same output:", torch.allclose(jm(inp), cm(inp)))

assert type(jm) is thunder.ThunderModule and type(cm) is ThunderFXCompiledObject
assert "t_0_weight" in [n for n, _ in jm_trc.siginfo().args]
assert "l_fn_modules_0_parameters_weight_" in [n for n, _ in cm_trc.siginfo().args]
assert torch.allclose(jm(inp), cm(inp))
# thunder.jit's source comments name the line that made each call: for the layers, torch.nn's own files
jm_sources = {b.source_filename for b in jm_trc.bound_symbols if b.source_filename}
assert {Path(f).name for f in jm_sources} == {"linear.py", "activation.py"}
assert all(Path(f).resolve().is_relative_to(Path(torch.__file__).resolve().parent) for f in jm_sources)
# a torch.nn container compiled by ThunderFX: its nodes' stack traces hold no frame of this file
nodes_of_cm = [n for n in cm._backend.subgraph_infos[0].original_graph_module.graph.nodes if n.meta.get("stack_trace")]
assert nodes_of_cm and not any("thunderfx.py" in n.meta["stack_trace"] for n in nodes_of_cm)
# --8<-- [end:versus_module]

# --8<-- [start:howto-empty-reasons]
import warnings  # noqa: E402


def h(t):
    return torch.histc(t.sin(), bins=4).sum()


ch = thunderfx(h)
print("before the first call: subgraph_infos =", ch._backend.subgraph_infos)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    before = ch.last_traces
warned = [str(w.message) for w in caught]
print("  last_traces =", before, "| warning:", warned)
ch(torch.randn(8))
infos = ch._backend.subgraph_infos
print("after it:", len(infos), "SubgraphInfo, split reasons",
      [r.reason_type.name for r in infos[0].split_reasons])

assert before == []
assert warned == ["Must invoke the function before using last_traces"]
assert len(infos) == 1 and len(infos[0].split_reasons) == 1
# --8<-- [end:howto-empty-reasons]

# --8<-- [start:howto-before-compile]
import thunder.dynamo.utils as dynamo_utils  # noqa: E402


def unmapped_torch_builtins(f, *args):
    """Nodes that ThunderFX leaves in a Thunder part although Thunder has no symbol for their target."""
    found = []
    for graph_report in fx_report(f)(*args).fx_graph_reports:  # Dynamo's graphs, run by Inductor: no Thunder
        for part in analyze_thunder_splits(graph_report).subgraph_reports:  # the Thunder parts, not compiled
            for node in part.graph.graph.nodes:
                target = node.target
                module = getattr(target, "__module__", None) or ""
                if (node.op == "call_function" and inspect.isbuiltin(target)
                        and target not in _torch_to_thunder_function_map
                        and module.startswith("torch") and not module.startswith("torch._C")):
                    found.append((part.graph_name, node.name, f"torch.{target.__name__}"))
    return found


def uses_tril_indices(t):
    rows, cols = torch.tril_indices(3, 3)
    return t[rows] * t[cols]


x3 = torch.randn(3)
print("uses_tril_indices:", unmapped_torch_builtins(uses_tril_indices, x3))
print("fn:               ", unmapped_torch_builtins(fn, x))
eye_found = unmapped_torch_builtins(lambda t: t.cos() + torch.eye(4)[0], torch.randn(4))
as_strided_found = unmapped_torch_builtins(lambda t: torch.as_strided(t, (2,), (1,)).cos(), torch.randn(4))
print("torch.eye:", eye_found, "| torch.as_strided:", as_strided_found)

assert unmapped_torch_builtins(uses_tril_indices, x3) == [("graph0_thunder_0", "tril_indices", "torch.tril_indices")]
assert unmapped_torch_builtins(fn, x) == []  # histc went to the fallback, with a split reason
assert [name for _, _, name in eye_found] == ["torch.eye"]  # no split reason: left to Thunder
assert as_strided_found == []  # it has a split reason: in the fallback part, not in a Thunder part
tril_node = next(n for n in fx_report(uses_tril_indices)(x3).fx_graph_reports[0].graph.graph.nodes
                 if n.target is torch.tril_indices)
assert is_node_supported_by_thunder(tril_node, ThunderCompiler().thunder_options) == (True, None)  # no split reason
# --8<-- [end:howto-before-compile]

# --8<-- [start:howto-fallback]
from unittest import mock  # noqa: E402

c_tril = thunderfx(uses_tril_indices)
with mock.patch.object(dynamo_utils, "UNSUPPORTED_THUNDER_FUNCTION", (torch.tril_indices,)):
    out_tril = c_tril(x3)  # the first call: Dynamo hands the graph over and the splitter runs
tril_info = c_tril._backend.subgraph_infos[0]
print("parts:", [name for name, _ in tril_info.split_graph_module.named_children()])
for reason in tril_info.split_reasons:
    print(f"split: {reason.reason_type.name} | {reason.info}")
print("same result as eager:", torch.equal(out_tril, uses_tril_indices(x3)))
c_tril(torch.randn(3))  # a later call, outside the patch: the split stays
print("calls after the patch compile nothing again:", thunder.compile_stats(tril_info.thunder_compiled_fns[0]).cache_misses,
      "Thunder compilation,", len(c_tril._backend.subgraph_infos), "graph")

assert [name for name, _ in tril_info.split_graph_module.named_children()] == ["inductor_0", "thunder_1"]
assert [r.reason_type for r in tril_info.split_reasons] == [SplitReasonType.UNSUPPORTED_NODE]
assert "tril_indices" in tril_info.split_reasons[0].info and "manually disabled" in tril_info.split_reasons[0].info
assert torch.equal(out_tril, uses_tril_indices(x3))
assert thunder.compile_stats(tril_info.thunder_compiled_fns[0]).cache_misses == 1 and len(c_tril._backend.subgraph_infos) == 1
assert dynamo_utils.UNSUPPORTED_THUNDER_FUNCTION == ()  # the patch ended with the with block
# --8<-- [end:howto-fallback]

# --8<-- [start:howto-fallback-method]
def sin_both_ways(t):
    return torch.sin(t) * 2 + t.sin()  # a call of torch.sin, then the method


c_both = thunderfx(sin_both_ways)
with mock.patch.object(dynamo_utils, "UNSUPPORTED_THUNDER_FUNCTION",
                       (torch.sin,)):
    c_both(x3)
both_info = c_both._backend.subgraph_infos[0]
before_compiling = both_info.original_split_graph_module.split_graph_module
calls = {name: [(n.name, n.op) for n in part.graph.nodes
                if n.op.startswith("call")]
         for name, part in before_compiling.named_children()}
for name, nodes in calls.items():
    print(f"{name}:", ", ".join(f"{node} ({op})" for node, op in nodes))

compiled_parts = both_info.split_graph_module.named_children()
assert [name for name, _ in compiled_parts] == ["inductor_0", "thunder_1"]
assert calls == {
    "submod_0": [("sin", "call_function")],  # torch.sin(t): to the fallback
    "submod_1": [("mul", "call_function"), ("sin_1", "call_method"),
                 ("add", "call_function")],
}

c_method = thunderfx(sin_both_ways)  # now the method too: torch.Tensor.sin
with mock.patch.object(dynamo_utils, "UNSUPPORTED_THUNDER_FUNCTION",
                       (torch.sin, torch.Tensor.sin)):
    c_method(x3)
method_info = c_method._backend.subgraph_infos[0]
sent = [r.info.split()[3] for r in method_info.split_reasons]  # "node with name: NAME and ..."
print("with torch.Tensor.sin in the tuple too, sent:", sent)
assert sent == ["sin", "sin_1"]
# --8<-- [end:howto-fallback-method]
