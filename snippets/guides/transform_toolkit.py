"""The transform writer's toolkit: visitor_transform, producers and consumers, check_traces,
new inputs and outputs, interpret_trace and TraceSubstitutionProcessor, scopes."""

# --8<-- [start:setup]
import copy
import difflib

import torch

import thunder
import thunder.core.prims as prims
import thunder.torch as ltorch
from thunder.core.proxies import TensorProxy, variableify
from thunder.core.trace import TraceProvenance, from_trace, get_tracectx, tracectx
from thunder.core.trace_interpreter import TraceSubstitutionProcessor, interpret_trace, trace_interpreter_skip_list
from thunder.core.transforms import VISIT_TYPE, visitor_transform
from thunder.core.utils import consumers, producers


def fn(x, w):
    y = x * 1  # a multiplication by one, which a transform can remove
    z = torch.sin(y) @ w
    return z + y


x = torch.randn(3, 3)
w = torch.randn(3, 3)
jfn = thunder.jit(fn)
jfn(x, w)
trc = thunder.last_traces(jfn)[2]  # what transform_traces_pre_prologue receives


def show_diff(before, after):
    """Print a unified diff of two traces, top-level lines only."""
    a = before.python(print_depth=1).splitlines()
    b = after.python(print_depth=1).splitlines()
    print("\n".join(difflib.unified_diff(a, b, "before", "after", lineterm="", n=1)).rstrip())


print(trc.python(print_depth=1))
assert trc.get_provenance().pss == "Remove context manager prims"
# --8<-- [end:setup]

# --8<-- [start:visitor]
def comment_shapes(bsym):
    """After each tensor operation, a comment with the shape of its output."""
    if bsym.sym.id in ("torch.mul", "torch.sin", "torch.matmul", "torch.add"):
        prims.comment(f"{bsym.output.name} has shape {tuple(bsym.output.shape)}")
        return VISIT_TYPE.INSERT_AFTER  # the original line, then what visit recorded
    return VISIT_TYPE.NO_OP  # the original line only


commented = visitor_transform(trc, comment_shapes, provenance="Comment shapes")
show_diff(trc, commented)

comments = [b.args[0] for b in commented.bound_symbols if b.sym.id == prims.PrimIDs.COMMENT]
assert comments == ["y has shape (3, 3)", "t1 has shape (3, 3)", "z has shape (3, 3)", "t3 has shape (3, 3)"]
assert commented.bound_symbols[2].sym.id == "torch.mul" and commented.bound_symbols[3].sym.id == prims.PrimIDs.COMMENT
assert len(commented.bound_symbols) == len(trc.bound_symbols) + 4
assert commented.names is trc.names  # made with from_trace
# A comment line has no source position, so the next line with one prints its source line again.
assert all(b.source_positions is None for b in commented.bound_symbols if b.sym.id == prims.PrimIDs.COMMENT)
sin_bsym = next(b for b in trc.bound_symbols if b.sym.id == "torch.sin")
line_22 = f"# {sin_bsym.source_filename}:{sin_bsym.source_positions.lineno}:"  # the source comment of z's line
assert trc.python().count(line_22) == 1 and commented.python().count(line_22) == 2

import inspect  # noqa: E402

import thunder.distributed.transforms.ddp as ddp  # noqa: E402
import thunder.distributed.transforms.fsdp as fsdp  # noqa: E402

assert all("VISIT_TYPE.REPLACE" in inspect.getsource(m) for m in (ddp, fsdp))  # Thunder's own users
# --8<-- [end:visitor]

# --8<-- [start:visitor-replace]
def inline_sin(bsym):
    """Replace ltorch.sin by the prims.sin it is made of: the same output proxy."""
    if bsym.sym.id == "torch.sin":
        get_tracectx().peek_scope().extend(bsym.subsymbols)  # the scope visit records into
        return VISIT_TYPE.REPLACE  # what visit recorded, without the original line
    return VISIT_TYPE.NO_OP


inlined = visitor_transform(trc, inline_sin, provenance="Inline sin")
show_diff(trc, inlined)


def before_each(bsym):
    prims.comment(f"next: {bsym.sym.name}")
    return VISIT_TYPE.INSERT_BEFORE  # what visit recorded, then the original line


def record_and_drop(bsym):
    prims.comment("never kept")
    return VISIT_TYPE.NO_OP  # NO_OP throws away what visit recorded


before = visitor_transform(trc, before_each)
dropped = visitor_transform(trc, record_and_drop)

old_sin = next(b for b in trc.bound_symbols if b.sym.id == "torch.sin")
new_sin = next(b for b in inlined.bound_symbols if b.sym.id == prims.PrimIDs.SIN)
assert new_sin.output is old_sin.output and old_sin.output.name == "t1"  # nothing to rename
assert not any(b.sym.id == "torch.sin" for b in inlined.bound_symbols)
assert [b.sym.name for b in before.bound_symbols[4:6]] == ["comment", "mul"]
assert before.bound_symbols[4].args[0] == "next: mul"
assert all(b is c for b, c in zip(dropped.bound_symbols, trc.bound_symbols, strict=True))

from thunder.dev_utils.check_trace import check_trace  # noqa: E402


def cos_of_result(bsym):
    """Replace the return: nothing reads its output, so the new lines may make new proxies."""
    if bsym.sym.id != prims.PrimIDs.RETURN:
        return VISIT_TYPE.NO_OP
    result = bsym.args[0]
    (out,) = result["output"]
    prims.python_return({"output": (ltorch.cos(out),), "flat_args": result["flat_args"]})
    return VISIT_TYPE.REPLACE


class CosOfResult(thunder.Transform):
    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        return prologue_trc, visitor_transform(computation_trc, cos_of_result, provenance="Cos of result"), epilogue_trc


recosed = visitor_transform(trc, cos_of_result, provenance="Cos of result")
print("Cos of result, its last two lines:")
print("\n".join(recosed.python(print_depth=1).splitlines()[-2:]))
check_trace(recosed)  # passes: no kept line reads an output of the old return
jcos = thunder.jit(fn, transforms=[CosOfResult()], debug_options=thunder.DebugOptions(check_traces=True))
torch.testing.assert_close(jcos(x, w), torch.cos(fn(x, w)))
new_cos = next(b for b in recosed.bound_symbols if b.sym.id == "torch.cos")
old_outputs = {p.name for b in trc.bound_symbols for p in b.flat_proxy_outs}
assert new_cos.output.name not in old_outputs  # a new output proxy...
assert recosed.bound_symbols[-1].args[0]["output"][0] is new_cos.output  # ...that the new return reads
assert [b.sym.id for b in recosed.bound_symbols].count(prims.PrimIDs.RETURN) == 1  # the old return is gone
# --8<-- [end:visitor-replace]

# --8<-- [start:producers-consumers]
made_by = producers(trc)  # proxy -> the bound symbol that makes it
read_by = consumers(trc)  # proxy -> the bound symbols that read it
for bsym in trc.bound_symbols:
    for out in bsym.flat_proxy_outs:
        readers = [b.sym.name for b in read_by.get(out, [])]
        print(f"{out.name:>2} made by {made_by[out].sym.name:<14} read by {readers}")

y = next(b.output for b in trc.bound_symbols if b.sym.id == "torch.mul")
assert y.name == "y" and made_by[y].sym.id == "torch.mul"
assert [b.sym.name for b in read_by[y]] == ["sin", "add"]
assert made_by[trc.args[0]].sym.id == prims.PrimIDs.UNPACK_TRIVIAL
assert [b.sym.name for b in read_by[trc.args[0]]] == ["mul", "python_return"]
assert "y" in made_by._dict and not any(isinstance(k, TensorProxy) for k in made_by._dict)  # stored by name
skipped_ids = (prims.PrimIDs.RETURN, prims.PrimIDs.COMMENT, prims.PrimIDs.PRINT)
assert set(made_by._dict) == {p.name for b in trc.bound_symbols if b.sym.id not in skipped_ids
                              for p in b.flat_proxy_outs}  # only what top-level lines output
assert set(read_by._dict) == {p.name for b in trc.bound_symbols if b.sym.id != prims.PrimIDs.UNPACK_TRIVIAL
                              for p in b.flat_proxy_args}  # only what top-level lines read
result_proxy = trc.bound_symbols[-1].args[0]["output"][0]
assert result_proxy not in consumers(trc.bound_symbols[:-1])  # without the return, nothing reads it: no key
# --8<-- [end:producers-consumers]

# --8<-- [start:remove-mul-by-one]
def is_mul_by_one(bsym):
    return (
        bsym.sym.id == "torch.mul"
        and isinstance(bsym.args[0], TensorProxy)
        and type(bsym.args[1]) in (int, float)
        and bsym.args[1] == 1
        and bsym.output.dtype == bsym.args[0].dtype  # type promotion changed nothing
    )


def written_in_place(proxy, read_by):
    # the hook's trace passes a tensor that is written in place through prims.update_aliases
    return any(
        r.sym.id == prims.PrimIDs.UPDATE_ALIASES or prims.OpTags.IN_PLACE in (r.sym.tags or ())
        for r in read_by.get(proxy, [])
    )


def returned(proxy, read_by):
    return any(r.sym.id == prims.PrimIDs.RETURN for r in read_by.get(proxy, []))


# operations that return a new tensor, never their input or a view of it
MAKES_A_NEW_TENSOR = {"torch.sin", "torch.cos", "torch.add", "torch.sub", "torch.mul", "torch.matmul"}


def aliasing_risk(bsym, read_by):
    """Reading x instead of x * 1 could be seen, unless each reader makes a new tensor and x stays as it is."""
    product, x = bsym.output, bsym.args[0]
    unknown_reader = any(r.sym.id not in MAKES_A_NEW_TENSOR for r in read_by.get(product, []))
    return unknown_reader or written_in_place(x, read_by)


def remove_mul_by_one(trc, check_in_place=True):
    read_by = consumers(trc)
    swap_map = {}  # variableified output of x * 1 -> x
    rewire = set()  # ids of the bound symbols that read such an output
    for bsym in trc.bound_symbols:
        if is_mul_by_one(bsym) and not (check_in_place and aliasing_risk(bsym, read_by)):
            swap_map[variableify(bsym.output)] = bsym.args[0]
            rewire.update(id(reader) for reader in read_by.get(bsym.output, []))

    new = from_trace(trc)
    for bsym in trc.bound_symbols:
        if is_mul_by_one(bsym) and variableify(bsym.output) in swap_map:
            continue  # drop the line
        if id(bsym) in rewire:
            bsym = bsym.from_bsym_swap_proxies(swap_map)  # read x instead
        new.bound_symbols.append(bsym)
    new.set_provenance(TraceProvenance("Remove multiplications by one"))
    return new


class RemoveMulByOne(thunder.Transform):
    def __init__(self, check_in_place=True):
        self.check_in_place = check_in_place

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        return prologue_trc, remove_mul_by_one(computation_trc, self.check_in_place), epilogue_trc


jfn = thunder.jit(fn, transforms=[RemoveMulByOne()])
torch.testing.assert_close(jfn(x, w), fn(x, w))
traces = thunder.last_traces(jfn)
show_diff(traces[2], traces[3])

assert traces[3].get_provenance().pss == "Remove multiplications by one"
assert not any(b.sym.name == "mul" for b in traces[-1].bound_symbols)
assert all(p.name != "y" for b in traces[3].bound_symbols for p in b.flat_proxy_args)
copied = [b for b in traces[3].bound_symbols if not any(b is a for a in traces[2].bound_symbols)]
assert [b.sym.name for b in copied] == [b.sym.name for b in consumers(traces[2])[y]] == ["sin", "add"]  # other lines: kept
assert variableify(y).proxy is y and hash(variableify(y)) == hash("y")  # a Variable: hashed by name
assert variableify(y) == variableify(y) and variableify(y) != variableify(trc.args[0])


def times_one_point_oh(x):
    return x * 1.0 + 0  # for an integer tensor, x * 1.0 is a float tensor


ints = torch.arange(4)
jints = thunder.jit(times_one_point_oh, transforms=[RemoveMulByOne()])
assert times_one_point_oh(ints).dtype == torch.float32 != ints.dtype
assert jints(ints).dtype == torch.float32  # the dtype check kept that mul
assert any(b.sym.name == "mul" for b in thunder.last_traces(jints)[-1].bound_symbols)


def add_one_in_place(x):
    y = x * 1  # a new tensor...
    y.add_(1)  # ...so this write leaves x alone
    return y


def add_one_through_a_view(x):
    y = x * 1
    y.view(-1).add_(1)
    return y


for f in (add_one_in_place, add_one_through_a_view):
    x0 = torch.zeros(3)
    out = thunder.jit(f, transforms=[RemoveMulByOne()])(x0)
    assert out.tolist() == [1.0, 1.0, 1.0] and x0.tolist() == [0.0, 0.0, 0.0]  # x0 unchanged, as in eager
    assert f(x0).tolist() == [1.0, 1.0, 1.0] and x0.tolist() == [0.0, 0.0, 0.0]
    jf = thunder.jit(f)
    jf(x0)
    received = thunder.last_traces(jf)[3]  # for these functions, what the hook receives
    assert received.get_provenance().pss == "Update aliases for in-place ops"
    y_f = next(b.output for b in received.bound_symbols if b.sym.id == "torch.mul")
    assert [b.sym.id for b in consumers(received)[y_f]] == [prims.PrimIDs.UPDATE_ALIASES]
    assert written_in_place(y_f, consumers(received)) and len(remove_mul_by_one(received).bound_symbols) == len(
        received.bound_symbols
    )

x0 = torch.zeros(3)  # without the in-place check, the write lands in the caller's tensor
thunder.jit(add_one_in_place, transforms=[RemoveMulByOne(check_in_place=False)])(x0)
assert x0.tolist() == [1.0, 1.0, 1.0]  # eager PyTorch leaves it [0, 0, 0]


def write_to_x_later(x):
    y = x * 1
    x.add_(1)  # y must keep the old values
    return y + 0


def return_the_product(x):
    return x * 1  # the caller must get a new tensor


def return_a_view(x):
    return (x * 1)[0:2]  # ...and so must this one


narrow_symbol = thunder.torch._torch_to_thunder_function_map[torch.narrow]
assert narrow_symbol.tags == (prims.OpTags.AUTO_REGISTERED,) and narrow_symbol in thunder.torch._syms_returning_views


def return_a_narrow_view(x):
    return torch.narrow(x * 1, 0, 0, 2)  # an automatic fallback of Thunder's: no tag says it makes a view


for f in (write_to_x_later, return_the_product, return_a_view, return_a_narrow_view):
    for check in (True, False):
        x0 = torch.zeros(3)
        out = thunder.jit(f, transforms=[RemoveMulByOne(check_in_place=check)])(x0)
        eager_x = torch.zeros(3)
        shares = out.untyped_storage().data_ptr() == x0.untyped_storage().data_ptr()
        same_as_eager = torch.equal(out, f(eager_x)) and not shares
        assert same_as_eager == check  # the checks keep the mul; without them the result differs from eager
# --8<-- [end:remove-mul-by-one]

# --8<-- [start:check-traces]
class ForgetTheReaders(thunder.Transform):
    """Wrong: drops x * 1 but leaves its readers reading y."""

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        new = from_trace(computation_trc)
        new.bound_symbols = [b for b in computation_trc.bound_symbols if not is_mul_by_one(b)]
        new.set_provenance(TraceProvenance("Forget the readers"))
        return prologue_trc, new, epilogue_trc


try:  # without the check, the broken trace compiles, and fails when it runs
    thunder.jit(fn, transforms=[ForgetTheReaders()])(x, w)
except Exception as e:
    unchecked = e
print(f"{type(unchecked).__name__}: {unchecked}")

checked_jfn = thunder.jit(
    fn, transforms=[ForgetTheReaders()], debug_options=thunder.DebugOptions(check_traces=True)
)
try:  # with the check, the broken trace is rejected as soon as the transform returns it
    checked_jfn(x, w)
except AssertionError as e:
    checked = e
print(f"{type(checked).__name__}: {str(checked).splitlines()[0]}")

assert isinstance(unchecked, UnboundLocalError) and "'y'" in str(unchecked)
assert str(checked).startswith("unknown proxy y is used in t1 = ltorch.sin(y)")
# the broken trace never made it into last_traces: the last entry is the trace before the transform
assert thunder.last_traces(checked_jfn)[-1].get_provenance().pss == "Remove context manager prims"

# Which traces are checked? Note each trace check_trace is given while the good transform compiles.
import thunder.dev_utils.check_trace as check_trace_module  # noqa: E402

given = []
original_check_trace = check_trace_module.check_trace


def noting_check_trace(trace, **kwargs):
    given.append(trace)
    return original_check_trace(trace, **kwargs)


check_trace_module.check_trace = noting_check_trace
try:  # the good transform passes the same check
    checked_good = thunder.jit(fn, transforms=[RemoveMulByOne()], debug_options=thunder.DebugOptions(check_traces=True))
    torch.testing.assert_close(checked_good(x, w), fn(x, w))
finally:
    check_trace_module.check_trace = original_check_trace


def was_checked(t):
    return any(t is g for g in given)


for kind, listed in (("last_traces", thunder.last_traces(checked_good)),
                     ("last_prologue_traces", thunder.last_prologue_traces(checked_good))):
    print(f"{kind}, checked:", [was_checked(t) for t in listed])
print("not checked:", [t.get_provenance().pss.split(" (took")[0]
                       for t in thunder.last_prologue_traces(checked_good) if not was_checked(t)])

assert all(was_checked(t) for t in thunder.last_traces(checked_good))
assert was_checked(thunder.last_prologue_traces(checked_good)[0])
assert not was_checked(thunder.last_prologue_traces(checked_good)[-1])  # added with +=, not extend
assert thunder.last_prologue_traces(checked_good)[-1].get_provenance().pss.startswith("Transform for execution")

# check_trace looks into the subsymbols of a line whose symbol is not a prim, and not into a prim's.
with tracectx(thunder.core.trace.TraceCtx()):
    stray = TensorProxy(like=trc.args[0], name="stray")  # made by no line of trc
sin_line = next(b for b in trc.bound_symbols if b.sym.id == "torch.sin")
bad_sub = sin_line.subsymbols[0].from_bsym(args=(stray,))  # prims.sin(stray)


def with_sin_subsymbols(t, subsymbols):
    new = from_trace(t)
    new.bound_symbols = [b.from_bsym(subsymbols=subsymbols) if b.sym.name == "sin" else b for b in t.bound_symbols]
    return new


try:
    check_trace_module.check_trace(with_sin_subsymbols(trc, [bad_sub]))  # ltorch.sin: not a prim
except AssertionError as e:
    sub_error = e
assert str(sub_error).startswith("unknown proxy stray is used in")

w_proxy = trc.args[1]  # made by an earlier line (its unpack_trivial), but not read by the sin line
try:
    check_trace_module.check_trace(with_sin_subsymbols(trc, [sin_line.subsymbols[0].from_bsym(args=(w_proxy,))]))
except AssertionError as e:
    not_its_argument = e
print("AssertionError:", str(not_its_argument).split("  #")[0])
assert str(not_its_argument).startswith("unknown proxy w is used in t1 = prims.sin(w)")
assert w_proxy in producers(trc) and all(p is not w_proxy for p in sin_line.flat_proxy_args)
inlined_sin = next(b for b in inlined.bound_symbols if b.sym.name == "sin")
assert inlined_sin.sym.is_prim
check_trace_module.check_trace(with_sin_subsymbols(inlined, [bad_sub]))  # prims.sin: not looked into
# --8<-- [end:check-traces]

# --8<-- [start:new-input]
def g(x, bias):
    return torch.sin(x) * 2  # bias is not used


bias = torch.randn(3, 3)


def with_parameter(trc, p):
    """A copy of trc whose signature has one more parameter, p, at the end."""
    new = from_trace(trc)
    new.args = (*trc.args, p)
    new._siginfo = copy.copy(trc.siginfo())  # from_trace shares the SigInfo: copy it before changing it
    new._siginfo.args = [*trc.siginfo().args, (p.name, None)]
    with tracectx(new):
        unpack = prims.unpack_trivial.bind(p, output=p, name=p.name)
    n = sum(b.sym.id == prims.PrimIDs.UNPACK_TRIVIAL for b in trc.bound_symbols)
    new.bound_symbols = [*trc.bound_symbols[:n], unpack, *trc.bound_symbols[n:]]
    return new


class AddBias(thunder.Transform):
    """Make the computation take bias as an input and add it to the result."""

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        # The prologue unpacks and checks every tensor argument, but returns only the used ones.
        ret = prologue_trc.bound_symbols[-1]
        ((to_computation, to_epilogue),) = ret.args
        checked = [b.args[0] for b in prologue_trc.bound_symbols
                   if b.sym.id == prims.PrimIDs.CHECK_TENSOR_SHAPE_AND_METADATA]
        (unused,) = [p for p in checked if all(p is not q for q in to_computation)]
        new_prologue = from_trace(prologue_trc)
        new_prologue.bound_symbols = [
            *prologue_trc.bound_symbols[:-1],
            ret.from_bsym(args=(((*to_computation, unused), to_epilogue),)),  # one more value to pass on
        ]
        new_prologue.set_provenance(TraceProvenance("Pass bias on"))

        with tracectx(computation_trc):
            b = TensorProxy(like=unused, name="b")  # the new input, in the computation's names
        new = with_parameter(computation_trc, b)
        ret = new.bound_symbols[-1]
        ((out,),) = (ret.args[0]["output"],)
        with tracectx(new):
            new.push_scope([])
            biased = ltorch.add(out, b)
            added = new.pop_scope()
        result = {"output": (biased,), "flat_args": [*ret.args[0]["flat_args"], b]}
        new.bound_symbols = [*new.bound_symbols[:-1], *added, ret.from_bsym(args=(result,))]
        new.set_provenance(TraceProvenance("Add bias"))
        return new_prologue, new, epilogue_trc


jg = thunder.jit(g, transforms=[AddBias()], debug_options=thunder.DebugOptions(check_traces=True))
torch.testing.assert_close(jg(x, bias), g(x, bias) + bias)
prologue = thunder.last_prologue_traces(jg)[1]
print(prologue.python(print_depth=1).split("cache_info:")[0] + "...")
print(prologue.bound_symbols[-1])
print(thunder.last_traces(jg)[-1])

assert prologue.get_provenance().pss == "Pass bias on"
assert [p.name for p in prologue.bound_symbols[-1].args[0][0]] == ["x", "t_1"]
assert [p.name for p in thunder.last_traces(jg)[-1].args] == ["x", "b"]
assert thunder.last_traces(jg)[0].siginfo().args == [("x", None)]  # the original is unchanged
# --8<-- [end:new-input]

# --8<-- [start:new-output]
class AlsoReturnSine(thunder.Transform):
    """Return sin(x) as a second output: the computation returns it, the epilogue passes it on."""

    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        sine = next(b.output for b in computation_trc.bound_symbols if b.sym.id == "torch.sin")
        ret = computation_trc.bound_symbols[-1]
        result = {**ret.args[0], "output": (*ret.args[0]["output"], sine)}
        new = from_trace(computation_trc)
        new.bound_symbols = [*computation_trc.bound_symbols[:-1], ret.from_bsym(args=(result,))]
        new.set_provenance(TraceProvenance("Also return the sine"))

        with tracectx(epilogue_trc):
            e = TensorProxy(like=sine, name="sine")
        new_epilogue = with_parameter(epilogue_trc, e)
        eret = new_epilogue.bound_symbols[-1]
        new_epilogue.bound_symbols[-1] = eret.from_bsym(args=((eret.args[0], e),))
        new_epilogue.set_provenance(TraceProvenance("Also return the sine"))
        return prologue_trc, new, new_epilogue


jg = thunder.jit(g, transforms=[AlsoReturnSine()], debug_options=thunder.DebugOptions(check_traces=True))
out, sine = jg(x, bias)
torch.testing.assert_close(out, g(x, bias))
torch.testing.assert_close(sine, torch.sin(x))
epilogues = thunder.compile_stats(jg).last_epilogue_traces
print(epilogues[0])
print(epilogues[-1])
print(thunder.last_traces(jg)[-1].bound_symbols[-1])

assert [p.name for p in epilogues[-1].args] == ["t1", "sine"]
assert len(thunder.last_traces(jg)[-1].bound_symbols[-1].args[0]) == 2
# The epilogue's arguments: first what the prologue returns for it (nothing here), then the outputs.
assert thunder.last_prologue_traces(jg)[0].bound_symbols[-1].args[0][1] == ()
# --8<-- [end:new-output]

# --8<-- [start:interpret-trace]
ran = []


def run_eagerly(bsym):
    """symbol_mapper: what to call for each bound symbol (here, PyTorch's own function)."""
    ran.append(bsym.sym.name)
    return {"torch.mul": torch.mul, "torch.sin": torch.sin, "torch.matmul": torch.matmul,
            "torch.add": torch.add}[bsym.sym.id]


result = interpret_trace(trc, x, w, symbol_mapper=run_eagerly)
print(ran, "->", type(result["output"][0]).__name__)
torch.testing.assert_close(result["output"][0], fn(x, w))

retraced = from_trace(trc)
with tracectx(retraced):  # the same walk, on proxies, records a new trace
    interpret_trace(trc, *trc.args,
                    symbol_mapper=lambda bsym: ltorch.cos if bsym.sym.id == "torch.sin" else bsym.sym)
print(retraced.python(print_depth=1))

assert ran == ["mul", "sin", "matmul", "add"]  # unpack_trivial and the return are skipped
assert set(trace_interpreter_skip_list) == {prims.PrimIDs.UNPACK_TRIVIAL, prims.PrimIDs.UNPACK_SEQUENCE,
                                            prims.PrimIDs.UNPACK_KEY, prims.PrimIDs.UNPACK_EMPTY_DICT,
                                            prims.PrimIDs.RETURN}
asked = []


def skip_everything(bsym):  # a mapper that returns None: the line is skipped
    asked.append(bsym.sym.name)


try:
    interpret_trace(trc, x, w, symbol_mapper=skip_everything)
except KeyError as e:
    never_computed = e
assert asked == ["mul"] and never_computed.args == ("y",)  # mul was skipped: sin finds no value for y
# from_trace kept the function, the inputs, the signature and the names set
assert retraced.fn is trc.fn and all(a is b for a, b in zip(retraced.args, trc.args, strict=True))
assert retraced.siginfo().args == [("x", None), ("w", None)] and retraced.names is trc.names
assert [b.sym.name for b in retraced.bound_symbols] == ["mul", "cos", "matmul", "add"]
assert {"y", "t1", "z", "t3"}.isdisjoint(p.name for b in retraced.bound_symbols for p in b.flat_proxy_outs)
# --8<-- [end:interpret-trace]

# --8<-- [start:substitution-processor]
class SinToCos(TraceSubstitutionProcessor):
    def process_bsym(self, bsym):
        if bsym.sym.id == "torch.sin":
            self.add_bsyms_from_function(ltorch.cos, *bsym.args)  # records the call and sets the result
        else:
            self.add_processed_bsyms([bsym.from_bsym()])  # keep the line
            self.set_result(bsym.output)


class OnlyWatch(TraceSubstitutionProcessor):
    """Notes each line it is given and keeps none of them."""

    def process_bsym(self, bsym):
        watched.append(bsym.sym.name)


watched = []
watcher = OnlyWatch(trc)
try:
    watcher()
except KeyError as e:  # reading the return value: nothing was kept, so nothing has a value
    watch_error = e
print("process_bsym was given:", watched)
print("lines kept:", len(watcher.new_trace.bound_symbols), "| then", type(watch_error).__name__, watch_error)

assert watched == ["unpack_trivial", "unpack_trivial", "mul", "sin", "matmul", "add", "python_return"]
assert watcher.new_trace.bound_symbols == [] and watch_error.args == ("x",)

substituted, _ = SinToCos(trc)()
substituted.set_provenance(TraceProvenance("sin to cos"))
show_diff(trc, substituted)

cos = next(b for b in substituted.bound_symbols if b.sym.id == "torch.cos")
matmul = next(b for b in substituted.bound_symbols if b.sym.id == "torch.matmul")
assert matmul.args[0] is cos.output and cos.output.name != "t1"  # the reader was rewired
assert matmul.output.name == "z" and substituted.bound_symbols[-1].sym.id == prims.PrimIDs.RETURN


def fn_cos(x, w):
    y = x * 1
    return torch.cos(y) @ w + y


class SinToCosTransform(thunder.Transform):
    def transform_traces_pre_prologue(self, prologue_trc, computation_trc, epilogue_trc, **kwargs):
        new, _ = SinToCos(computation_trc)()
        new.set_provenance(TraceProvenance("sin to cos"))
        return prologue_trc, new, epilogue_trc


jfn = thunder.jit(fn, transforms=[SinToCosTransform()], debug_options=thunder.DebugOptions(check_traces=True))
torch.testing.assert_close(jfn(x, w), fn_cos(x, w))
# --8<-- [end:substitution-processor]

# --8<-- [start:scopes]
from thunder.extend import OperatorExecutor  # noqa: E402

seen = []


def look(where):
    """Note the scope stack of the trace being recorded."""
    t = get_tracectx()
    stack = [None if s is None else [b.sym.name for b in s] for s in t.scopes]
    seen.append((where, stack, t.scopes[0] is t.bound_symbols))


spy = OperatorExecutor("spy")


def scaled_sin_like(a):  # a traceable body: its calls are recorded as subsymbols
    look("start of scaled_sin's body")
    s = ltorch.sin(a)
    look("after its sin")
    return s * 2


refused = []


def peek_meta(a):  # a meta function: the operator is a prim, nothing inside is recorded
    look("inside peek's meta")
    prims.sin(a)  # a prim: only its meta runs, nothing is recorded
    try:
        ltorch.cos(a)  # not a prim: refused
    except AssertionError as e:
        refused.append(str(e))
    return TensorProxy(like=a)


scaled_sin = spy.register_operator("scaled_sin", like=scaled_sin_like, fn=lambda a: torch.sin(a) * 2)
peek = spy.register_operator("peek", meta=peek_meta, fn=lambda a: a.clone())


def h(x):
    y = torch.cos(x)
    look("in h, after cos")
    return peek(scaled_sin(y))


jh = thunder.jit(h, executors=[spy])
v = torch.randn(3)
torch.testing.assert_close(jh(v), torch.sin(torch.cos(v)) * 2)
for where, stack, bottom_is_the_trace in seen:
    print(f"{where:<28} scopes = {stack}")
print(thunder.last_traces(jh)[0].python(print_depth=2).split("\n\n", 1)[1])

assert [s for _, s, _ in seen] == [
    [["cos"]],
    [["cos"], []],
    [["cos"], ["sin"]],
    [["cos", "scaled_sin"], None],
]
assert all(bottom for _, _, bottom in seen)  # scopes[0] is always the trace's own list
first = thunder.last_traces(jh)[0]
sub = next(b for b in first.bound_symbols if b.sym.name == "scaled_sin").subsymbols
assert [b.sym.name for b in sub] == ["sin", "mul"]
assert not next(b for b in first.bound_symbols if b.sym.name == "peek").subsymbols
assert [b.sym.name for b in first.bound_symbols] == ["unpack_trivial", "cos", "scaled_sin", "peek", "python_return"]
assert refused == ["A symbol [Symbol name=cos] was called while processing a primitive"]
# --8<-- [end:scopes]

# --8<-- [start:scopes-names]
# Why a scope of the same trace, and not a temporary trace: a temporary trace has its own counter.
scratch = thunder.core.trace.TraceCtx()
with tracectx(scratch):
    made_elsewhere = TensorProxy(like=trc.args[0])
print("a temporary trace names its first proxy", made_elsewhere.name, "| taken in trc:", made_elsewhere.name in trc.names)

# A scope shares the trace's names: what is recorded there, and then thrown away, keeps its name.
before = set(trc.names)


def record_cos_and_drop(bsym):
    if bsym.sym.id == "torch.sin":
        ltorch.cos(bsym.args[0])
    return VISIT_TYPE.NO_OP


kept = visitor_transform(trc, record_cos_and_drop)
new_names = sorted(kept.names - before)
printed = {p.name for b in kept.bound_symbols for p in (*b.flat_proxy_args, *b.flat_proxy_outs)}
print("names taken by the dropped cos:", new_names, "| printed anywhere:", bool(printed & set(new_names)))

assert made_elsewhere.name == "t0" and "t0" in trc.names
assert len(new_names) == 1 and not printed & set(new_names)
# --8<-- [end:scopes-names]
