"""Recipes and plugins: what thunder.compile hands to thunder.jit, and the transforms that debug a trace."""

# --8<-- [start:setup]
import re

import torch

import thunder
import thunder.plugins
import thunder.recipes
import thunder.torch as ltorch
from thunder.core import prims
from thunder.core.recipe import Lookaside, Plugin, PluginPolicy, Recipe
from thunder.extend import TemporaryExecutor
from thunder.recipes import BaseRecipe
from thunder.transforms.prune_prologue_checks import PrunePrologueChecks


def make_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))


def ex_name(executor):
    """An executor's name, with the object id in a temporary executor's name masked."""
    return re.sub(r"__ad_hoc_executor_\d+", "__ad_hoc_executor_<id>", executor.name)


x = torch.randn(2, 8)
print("recipes:", thunder.recipes.get_recipes())
print("plugins:", thunder.plugins.get_plugin_names())
print("keys of Recipe._registry:", list(Recipe._registry))
print("the recipe for a Sequential:", type(Recipe.get_for_model(make_model())).__name__)
assert type(Recipe.get_for_model(make_model())) is BaseRecipe  # registered under "", the fallback
assert sorted(Recipe._registry) == ["", "hf-transformers"] != sorted(thunder.recipes.get_recipes())
assert Recipe._registry[""] is BaseRecipe and "default" not in Recipe._registry
try:
    thunder.compile(make_model(), recipe="hf-transformers")  # by name
    missing = None
except ModuleNotFoundError as e:  # building HFTransformers() imports transformers (SDPAMaskTransform)
    missing = e
    print('recipe="hf-transformers":', type(e).__name__, e)
assert isinstance(missing, ModuleNotFoundError) and missing.name == "transformers"
# --8<-- [end:setup]

# --8<-- [start:default]
print("BaseRecipe() asks for:", BaseRecipe().executor_names)
print("nvfuser registered here:", thunder.get_executor("nvfuser") is not None)
try:
    thunder.compile(make_model())  # recipe="auto": BaseRecipe(fuser="nvfuser")
except ValueError as e:
    error = e
message = re.sub(r"object \d+>", "object <id>>", str(error))  # mask the object's id
print(f"{type(error).__name__}: {message}")

assert thunder.get_executor("nvfuser") is None and BaseRecipe().executor_names == ["nvfuser"]
assert type(error) is ValueError and "is not a valid Executor" in message and "None]" in message
# --8<-- [end:default]

# --8<-- [start:plugins]
class RecordTraces(thunder.Transform):
    """Records, for each trace it is given after optimization, its signature's name."""

    def __init__(self):
        self.seen = []

    def transform_trace_post_optimization(self, trc, **kwargs):
        self.seen.append(trc.siginfo().name)
        return trc  # unchanged


class RecordPlugin(Plugin):
    policy = PluginPolicy.POST

    def __init__(self):
        self.transform = RecordTraces()

    def setup_transforms(self):
        return [self.transform]


def relu_as_clamp(a, inplace=False):
    return ltorch.clamp(a, min=0)  # called with proxies: a Thunder symbol, not torch.clamp


class ClampPlugin(Plugin):  # policy PRE, the default
    def setup_lookasides(self):
        return [Lookaside(torch.nn.functional.relu, relu_as_clamp)]


record = RecordPlugin()
recipe = BaseRecipe(fuser="torch.compile", plugins=[record, ClampPlugin()])
print("executor names:", recipe.executor_names)
print("policies:", [(type(p).__name__, p.policy.name) for p in recipe.plugins])
assert recipe.executor_names == ["torchcompile"] and ClampPlugin.policy is PluginPolicy.PRE
# --8<-- [end:plugins]

# --8<-- [start:received]
received = {}
real_jit = thunder.jit


def recording_jit(fn, /, **kwargs):
    received.update(fn=fn, **kwargs)
    return real_jit(fn, **kwargs)


thunder.jit = recording_jit  # Recipe.apply imports jit from thunder when it runs
try:
    model = make_model()
    jmodel = thunder.compile(model, recipe=recipe)
finally:
    thunder.jit = real_jit

print("fn:        ", type(received["fn"]).__name__, received["fn"] is model)
print("transforms:", [type(t).__name__ for t in received["transforms"]])
print("executors: ", [ex_name(e) for e in received["executors"]])
print("other keyword arguments:", sorted(set(received) - {"fn", "transforms", "executors"}))
lookaside_ex = received["executors"][0]
print("the first executor's lookasides:", {f.__name__: g.__name__ for f, g in lookaside_ex._lookasides.items()})

assert received["fn"] is model and received["transforms"] == recipe.transforms
assert [type(t) for t in received["transforms"]] == [PrunePrologueChecks, RecordTraces]
assert received["executors"] == recipe.executors and isinstance(lookaside_ex, TemporaryExecutor)
assert set(received) == {"fn", "transforms", "executors"}  # BaseRecipe's config is empty here
# --8<-- [end:received]

# --8<-- [start:compile-data]
cd = thunder.compile_data(jmodel)
print(type(jmodel).__name__)
print("executors_list:", [ex_name(e) for e in cd.executors_list])
assert cd.executors_list[1] is lookaside_ex and cd.executors_list[0] is not lookaside_ex
assert [e.name for e in cd.executors_list[2:]] == ["torchcompile", "torch", "python"]
# --8<-- [end:compile-data]

# --8<-- [start:run]
out = jmodel(x)
print("equal to eager:", torch.allclose(out, model(x)))
print("RecordTraces saw:", record.transform.seen)
comp = thunder.last_traces(jmodel)[0]  # the interpreter's trace
print([b.sym.name for b in comp.bound_symbols if b.sym.name in ("relu", "clamp")])
print(thunder.last_traces(jmodel)[-1].python(print_depth=1))

assert torch.allclose(out, model(x))
assert record.transform.seen == ["computation", "backward_fn"]
assert any(b.sym.name == "clamp" for b in comp.bound_symbols)
assert not any(b.sym.name == "relu" for b in comp.bound_symbols)


class TorchClampPlugin(Plugin):  # the same lookaside, written with torch.clamp
    def setup_lookasides(self):
        return [Lookaside(torch.nn.functional.relu, lambda a, inplace=False: torch.clamp(a, min=0))]


try:
    thunder.compile(make_model(), recipe=Recipe(plugins=[TorchClampPlugin()]))(x)
    raised = None
except TypeError as e:
    raised = e
    print("with torch.clamp in the lookaside:", type(e).__name__, str(e).splitlines()[0])
assert isinstance(raised, TypeError) and "TensorProxy" in str(raised)
# --8<-- [end:run]

# --8<-- [start:prune]
CHECKS = {  # the check prims PrunePrologueChecks knows
    prims.check_tensor_shape_and_metadata,
    prims.check_string_value,
    prims.check_number_type_and_value,
    prims.check_len,
    prims.check_literal_like,
}


def checks(trc):
    return [b for b in trc.bound_symbols if b.sym in CHECKS]


pro = thunder.last_prologue_traces(jmodel)
print([str(t.get_provenance()).strip() if t.get_provenance() else None for t in pro])
before, after = checks(pro[0]), checks(pro[1])
print("checks before:", len(before), " after:", len(after))
kept = {b.args[0].name for b in after}
print("checks removed, on:", [b.args[0].name for b in before if b.args[0].name not in kept])
print("checks kept, on:   ", [b.args[0].name for b in after])

plain = thunder.jit(make_model())
plain(x)
plain_checks = checks(thunder.last_prologue_traces(plain)[0])  # the interpreter's prologue
print("plain thunder.jit:", len(plain_checks), "checks")

assert len(after) < len(before) == len(plain_checks)
params = {b.output.name for b in pro[0].bound_symbols if b.sym is prims.unpack_parameter}
removed = {b.args[0].name for b in before} - kept
assert "input" in kept and params <= removed and not params & kept


def take(a, s):
    return a[s]


jtake = thunder.jit(take, transforms=[PrunePrologueChecks(prune_all_checks=True)])
jtake(torch.arange(4.0), slice(0, 2))
left = [b.sym.name for b in thunder.last_prologue_traces(jtake)[-1].bound_symbols if b.sym.name.startswith("check_")]
print("prune_all_checks=True, a slice argument; check lines left:", left)
assert left == ["check_slice_value"] and prims.check_slice_value not in CHECKS  # not one of the five: it stays
# --8<-- [end:prune]

# --8<-- [start:prune-edge]
def make_dropout_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Dropout(0.5))


results = {}
for label, transforms in [("plain", []), ("pruned", [PrunePrologueChecks()])]:
    m = make_dropout_model()
    jm = thunder.jit(m, transforms=transforms)
    with torch.no_grad():
        jm(x)  # training mode: dropout is in the trace
        m.eval()
        y = jm(x)  # eval mode
    stats = thunder.compile_stats(jm)
    checks_training = ".training" in thunder.last_prologue_traces(jm)[-1].python()
    results[label] = (stats.cache_misses, stats.cache_hits, torch.equal(y, m(x)), checks_training)
    print(f"{label:6}  prologue reads .training: {checks_training!s:5}  misses={stats.cache_misses} "
          f"hits={stats.cache_hits}  equal to eager eval: {results[label][2]}")

assert results["plain"] == (2, 0, True, True)  # the `training` check fails, so Thunder traces again
assert results["pruned"] == (1, 1, False, False)  # no check left: the training-mode trace is reused
# --8<-- [end:prune-edge]

# --8<-- [start:builtin]
print(f"{'name':16}{'class':16}{'policy':8}what it adds, on this CPU")
for name in thunder.plugins.get_plugin_names():
    cls = thunder.plugins.get_plugin(name)
    try:
        plugin = cls()
        adds = [type(t).__name__ for t in plugin.setup_transforms() or []]
        adds += [f"executor {e.name}" for e in plugin.setup_executors() or []]
    except Exception as e:  # what stops the plugin here
        adds = f"{type(e).__name__}: {e}"
    print(f"{name:16}{cls.__name__:16}{cls.policy.name:8}{adds}")

assert thunder.plugins.get_plugin_names() == ["ddp", "fsdp", "quantize-int4", "fp8", "reduce-overhead"]
assert thunder.plugins.get_plugin("reduce-overhead").policy is PluginPolicy.POST
# --8<-- [end:builtin]

# --8<-- [start:fp8]
jm = thunder.compile(make_model(), recipe=Recipe(plugins=[thunder.plugins.FP8()]))
with torch.no_grad():
    jm(x)
ran_by = sorted({b.sym.executor.name for b in thunder.last_traces(jm)[-1].bound_symbols if b.sym.executor})
print("executors_list:", [ex_name(e) for e in thunder.compile_data(jm).executors_list])
print("executors of the last trace's lines:", ran_by)
assert "transformer_engine_v1" in [e.name for e in thunder.compile_data(jm).executors_list]
assert "transformer_engine_v1" not in ran_by and ran_by == ["torch"]
recipe_ex = thunder.compile_data(jm).executors_list[1]  # the recipe's lookaside executor, made with none
assert isinstance(recipe_ex, TemporaryExecutor) and recipe_ex._lookasides == {}
# --8<-- [end:fp8]

# --8<-- [start:reduce-overhead]
jm = thunder.compile(make_model(), recipe=Recipe(plugins=[thunder.plugins.ReduceOverhead()]))
try:
    jm(x)
except RuntimeError as e:  # its wording depends on how the process was started: not printed
    print(f"running it: {type(e).__name__} | CUDA available: {torch.cuda.is_available()}")
    assert "CUDA" in str(e) or "NVIDIA" in str(e)
rewritten = thunder.last_traces(jm)[-1]  # compiled before the run failed
print(rewritten.python(print_depth=2))
assert str(rewritten.get_provenance()).startswith("# Constructed by CUDAGraph fusion")
assert any(b.sym.name == "CUDAGraph1" and b.sym.is_fusion for b in rewritten.bound_symbols)
# --8<-- [end:reduce-overhead]

# --8<-- [start:profile]
profile = thunder.plugins.Profile(input_match="t_0_weight|t_2_weight")  # from entry 0 to entry 1 of the matches
print(type(profile).__name__, profile.policy.name, "| registered by name:", "profile" in thunder.plugins.get_plugin_names())
jm = thunder.compile(make_model(), recipe=Recipe(plugins=[profile]))
entered = []  # (call, line) for each record_function the wrapped lines enter
real_record_function = torch.profiler.record_function


class RecordingRecordFunction(real_record_function):
    def __init__(self, name, *args, **kwargs):
        entered.append((call, name.split(" = ")[0].strip()))
        super().__init__(name, *args, **kwargs)


torch.profiler.record_function = RecordingRecordFunction  # looked up when a wrapped line runs
try:
    with torch.no_grad():
        for call in range(1, 6):  # the transform's defaults: 3 warm-up calls, then 1 profiled call
            jm(x)
finally:
    torch.profiler.record_function = real_record_function
print(thunder.last_traces(jm)[-1].python(print_depth=1))
profiler = profile.profile_transform.get_profile()
recorded = sorted({e.key for e in profiler.key_averages() if e.key.startswith("  t")})
print("record_function ranges in the profile:", *recorded, sep="\n  ")

names = [b.sym.name for b in thunder.last_traces(jm)[-1].bound_symbols]
assert names.index("start_profiling") < names.index("end_profiling") and isinstance(profiler, torch.profiler.profile)
assert len(recorded) == 2 and "linear" in recorded[0] and "relu" in recorded[1]
print("its match list:", profile.profile_transform.match_list)
print("record_function entered, (call, output of the line):", entered)
assert profile.profile_transform.backward is False  # the plugin's transform skips backward traces
wrapped = [b.output.name for b in thunder.last_traces(jm)[-1].bound_symbols if re.fullmatch(r"(linear|relu)_\d+", b.sym.name)]
assert entered == [(4, name) for name in wrapped] and len(wrapped) == 3  # the profiled call only, all three lines

one_line = thunder.plugins.Profile(input_match="t_0")  # t_0_weight and t_0_bias: both read by one line
jm = thunder.compile(make_model(), recipe=Recipe(plugins=[one_line]))
failed_at = None
with torch.no_grad():
    for call in range(1, 6):
        try:
            jm(x)
        except RuntimeError as e:  # end_profiling() runs first, with the switch still on
            failed_at = call
            print(f'input_match="t_0", call {call}:', type(e).__name__, e)
            break
assert failed_at == 5  # the call after the profiled one
print('input_match="t_0":', one_line.profile_transform.match_list)
matches = one_line.profile_transform.match_list
assert len(matches) == 2 and matches[0][0] == matches[1][0] and all(re.match("t_0", n) for _, n in matches)
names = [b.sym.name for b in thunder.last_traces(jm)[-1].bound_symbols]
start = names.index("start_profiling")
assert names[start - 1 : start + 2] == ["end_profiling", "start_profiling", "linear_5"]  # the line of both entries
assert names[-2:] == ["end_profiling", "python_return"]  # closed before the return

from_start = thunder.plugins.Profile(input_match="weight")  # re.match: from the start of the name
try:
    thunder.compile(make_model(), recipe=Recipe(plugins=[from_start]))(x)
except IndexError as e:
    print('input_match="weight":', from_start.profile_transform.match_list, "|", type(e).__name__, e)
assert from_start.profile_transform.match_list == []  # no name starts with "weight"


def concatenated(a, b):
    return torch.cat([a, b]) * a.sum()  # cat receives a and b inside a list


in_a_list = thunder.plugins.Profile(input_match="a|b")
try:
    thunder.compile(concatenated, recipe=Recipe(plugins=[in_a_list]))(torch.ones(2), torch.ones(2))
except IndexError as e:  # one entry only: there is no entry 1
    print('input_match="a|b", cat([a, b]) * a.sum():', in_a_list.profile_transform.match_list, "|", type(e).__name__, e)
assert [n for _, n in in_a_list.profile_transform.match_list] == ["a"]  # from the sum line; cat's list gives none
# --8<-- [end:profile]

# --8<-- [start:debug-transform]
from thunder.dev_utils.debug_transform import DebugTransform


def after_each(bsym, output, *args, **kwargs):  # called after each line runs, with its output
    if isinstance(output, torch.Tensor):
        return f"{bsym.sym.name}: max={output.max().item():.3f}"
    return ""


def fn(a):
    return torch.sin(a) * 2


jfn = thunder.jit(fn, transforms=[DebugTransform(post_callback=after_each)])
jfn(torch.arange(4.0))
debug_trace = thunder.last_traces(jfn)[-1]
print(debug_trace.python(print_depth=1))
debug_lines = [b for b in debug_trace.bound_symbols if b.sym.name.startswith("debug_post_")]
assert [b.sym.name for b in debug_lines] == ["debug_post_sin1", "debug_post_mul2"]
assert debug_lines[0].header.startswith("sin: max=")  # the callback's string, printed as a comment

from thunder.dev_utils.utils import NON_COMPUTATION_PRIMS

jgrad = thunder.jit(fn, transforms=[DebugTransform(post_callback=after_each)])
jgrad(torch.arange(4.0, requires_grad=True)).sum().backward()
backward = thunder.last_backward_traces(jgrad)[-1].bound_symbols
print("debug lines of the backward:", [b.sym.name for b in backward if b.sym.name.startswith("debug_post_")])
for trc_bsyms in (debug_trace.bound_symbols, backward):  # each line not in NON_COMPUTATION_PRIMS, and only those
    for b, after in zip(trc_bsyms, trc_bsyms[1:]):
        if not b.sym.name.startswith("debug_"):
            assert after.sym.name.startswith("debug_post_") == (b.sym.id not in NON_COMPUTATION_PRIMS), b.sym.name
assert any(b.sym.name.startswith("debug_post_clear_mutable_collection") for b in backward)

from thunder.dev_utils.debug_transform import debug_execution_trace

jplain = thunder.jit(fn)
jplain(torch.arange(4.0))
jdebug = debug_execution_trace(jplain, post_callback=after_each)  # a new jitted function
jdebug(torch.arange(4.0))
jplain(torch.arange(4.0))
plain_names = [b.sym.name for b in thunder.last_traces(jplain)[-1].bound_symbols]
debug_names = [b.sym.name for b in thunder.last_traces(jdebug)[-1].bound_symbols]
print("debug_execution_trace returned jplain itself:", jdebug is jplain)
print("jplain's last trace:", plain_names)
print("jdebug's last trace:", debug_names)
assert jdebug is not jplain and not any(n.startswith("debug_") for n in plain_names)
assert [n for n in debug_names if n.startswith("debug_")] == ["debug_post_sin1", "debug_post_mul2"]
assert thunder.compile_data(jdebug).fn is fn and [type(t) for t in jdebug._lc_transforms] == [DebugTransform]
# --8<-- [end:debug-transform]

# --8<-- [start:nvtx]
from thunder.dev_utils.nvtx_profile_transform import NvtxProfileTransform

jfn = thunder.jit(fn, transforms=[NvtxProfileTransform()])
ran = jfn(torch.arange(4.0))
print("ran on the CPU:", torch.equal(ran, fn(torch.arange(4.0))), "| CUDA available:", torch.cuda.is_available())
assert torch.equal(ran, fn(torch.arange(4.0))) and not torch.cuda.is_available()
nvtx_trace = thunder.last_traces(jfn)[-1]
print(nvtx_trace.python(print_depth=1))
names = [b.sym.name for b in nvtx_trace.bound_symbols]
assert names.count("nvtx_range_push") == names.count("nvtx_range_pop") == 2

jgrad = thunder.jit(fn, transforms=[NvtxProfileTransform()])
jgrad(torch.arange(4.0, requires_grad=True)).sum().backward()
backward = thunder.last_backward_traces(jgrad)[-1].bound_symbols
ranged = [b.sym.name for b, prev in zip(backward[1:], backward) if prev.sym.name == "nvtx_range_push"]
print("lines in a range, in the backward:", ranged)
assert "clear_mutable_collection" in ranged
# --8<-- [end:nvtx]

# --8<-- [start:debug-options]
from collections import Counter

print(thunder.DebugOptions.list_options())
jfn = thunder.jit(fn, debug_options=thunder.DebugOptions(record_interpreter_history=True))
jfn(torch.arange(4.0))
log = thunder.last_interpreter_log(jfn)
kinds = Counter(e["kind"] if isinstance(e, dict) else type(e).__name__ for e in log)
print("interpreter log:", len(log), "entries;", dict(sorted(kinds.items())))
print("lookasides taken:", sorted({e["fn"] for e in log if isinstance(e, dict) and e["kind"] == "Lookaside"}))
assert set(thunder.DebugOptions._defaults) == {"check_traces", "record_interpreter_history", "show_interpreter_progress"}
assert kinds["Instruction"] > 0 and kinds["Lookaside"] > 0
# --8<-- [end:debug-options]

# --8<-- [start:materialize]
from thunder.transforms import ConstantFolding, MaterializationTransform

with torch.device("meta"):
    meta_model = torch.nn.Linear(4, 3)  # shapes only, no storage
torch.manual_seed(1)
jmeta = thunder.jit(
    meta_model, transforms=[MaterializationTransform("cpu", init=MaterializationTransform.init_from_original_module_init())]
)
torch.manual_seed(1)
reference = torch.nn.Linear(4, 3)  # made on the CPU from the same random state
print("original module:", meta_model.weight.device, "| ThunderModule:", {n: str(p.device) for n, p in jmeta.named_parameters()})
same = all(torch.equal(jmeta.get_parameter(n), p) for n, p in reference.named_parameters())
print("parameters equal to the reference's:", same)
print("output equal:", torch.equal(jmeta(x[:, :4]), reference(x[:, :4])))
assert meta_model.weight.is_meta and same and torch.equal(jmeta(x[:, :4]), reference(x[:, :4]))
# --8<-- [end:materialize]

# --8<-- [start:constant-folding]
def scaled(a):
    scale = torch.tensor([2.0, 2.0, 2.0])
    scale = (scale * 10) / 5
    return a * scale


jscaled = thunder.jit(scaled, transforms=[ConstantFolding()])
jscaled(torch.ones(3))
folded_traces = thunder.compile_stats(jscaled).last_traces  # the list thunder.last_traces(jscaled) returns
print([str(t.get_provenance()).removeprefix("# Constructed by ").split(" (took")[0] for t in folded_traces])
print(folded_traces[0].python(print_depth=1))
print(folded_traces[-1].python(print_depth=1))
assert folded_traces[3].get_provenance() == "Constant Folding pass"  # a str, not a TraceProvenance
assert not any(b.sym.name in ("true_divide", "div") for b in folded_traces[-1].bound_symbols)
assert torch.equal(jscaled(torch.ones(3)), scaled(torch.ones(3)))


def with_factories(a):  # lines that read no proxy at all
    return a * torch.full((3,), 2.0) + torch.arange(3.0)


jfactories = thunder.jit(with_factories, transforms=[ConstantFolding()])
jfactories(torch.ones(3))
traces = thunder.compile_stats(jfactories).last_traces
before, folded = next((t, u) for t, u in zip(traces, traces[1:]) if u.get_provenance() == "Constant Folding pass")
print("before folding:", [b.sym.name for b in before.bound_symbols])
print("after folding: ", [b.sym.name for b in folded.bound_symbols])
assert {"full", "arange"} <= {b.sym.name for b in before.bound_symbols}
assert not {"full", "arange"} & {b.sym.name for b in folded.bound_symbols}
assert torch.equal(jfactories(torch.ones(3)), with_factories(torch.ones(3)))


def with_random(a):
    return a + torch.randn(3)


try:
    thunder.jit(with_random, transforms=[ConstantFolding()])(torch.ones(3))
    failed = None
except AttributeError as e:  # it tries to evaluate torch.randn too
    failed = e
    print("with torch.randn:", type(e).__name__, e)
assert isinstance(failed, AttributeError)
# --8<-- [end:constant-folding]

# --8<-- [start:autocast]
def product(a, b):
    return a @ b


jproduct = thunder.jit(product)
with torch.autocast("cpu", dtype=torch.bfloat16):
    result = jproduct(torch.randn(2, 2), torch.randn(2, 2))
print("result dtype:", result.dtype)
print(thunder.last_traces(jproduct)[-1].python(print_depth=1))
autocast_checks = [
    line.strip() for line in thunder.last_prologue_traces(jproduct)[0].python().splitlines()
    if line.strip().startswith("prims.check") and "autocast" in line
]
print("\n".join(autocast_checks))
assert result.dtype == torch.bfloat16
assert [b.sym.name for b in thunder.last_traces(jproduct)[-1].bound_symbols].count("to") == 2
# --8<-- [end:autocast]

# --8<-- [start:autocast-after]
u, v = torch.randn(2, 2), torch.randn(2, 2)
outside = jproduct(u, v)  # no autocast now: a cache miss, so a new trace
print("outside autocast, after a call inside:", outside.dtype,
      "| cache misses:", thunder.compile_stats(jproduct).cache_misses, "| eager:", product(u, v).dtype)
print(thunder.last_traces(jproduct)[-1].python(print_depth=1))
print("autocast stack empty:", thunder.compile_data(jproduct).autocast_stack.is_empty())
fresh = thunder.jit(product)
print("a fresh jit, outside autocast:", fresh(u, v).dtype)

assert thunder.compile_stats(jproduct).cache_misses == 2
assert outside.dtype == torch.bfloat16 and product(u, v).dtype == torch.float32 == fresh(u, v).dtype
assert not thunder.compile_data(jproduct).autocast_stack.is_empty()
# --8<-- [end:autocast-after]
