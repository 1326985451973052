"""The explorer's memory count (explain/memory.py) and cache-check decoding (explain/recompile.py),
on small traces made by hand: no script run, no site build."""

from __future__ import annotations

import pytest

thunder = pytest.importorskip("thunder")

import torch  # noqa: E402
from thunder.core import devices, dtypes, prims  # noqa: E402
from thunder.core.proxies import TensorProxy  # noqa: E402
from thunder.core.trace import TraceCtx, tracectx  # noqa: E402
from thunder.executors import torchex  # noqa: E402

from thunder_docs.explain import memory, recompile  # noqa: E402


def _signature(a):  # the hand-made traces' signature: memory_calculation reads it
    pass


def _trace(views: bool = False) -> tuple[TraceCtx, dict[str, TensorProxy]]:
    """a (2x3 f32, an argument) -> b = a * a -> del a -> c = sin(b) (or a reshape of b) -> del b -> return c."""
    trc = TraceCtx(_signature)
    with tracectx(trc):
        a = TensorProxy("a", shape=(2, 3), dtype=dtypes.float32, device=devices.cpu)
        trc.args = (a,)
        b = prims.mul(a, a)
        prims.python_del(a)
        # torch's reshape, as an executed trace holds it (memory_calculation lists its id as an alias)
        c = torchex.ex.opmap["reshape"](b, (3, 2)) if views else prims.sin(b)
        prims.python_del(b)
        prims.python_return(c)
    return trc, {"a": a, "b": b, "c": c}


def test_the_bytes_alive_after_each_line_follow_the_definitions_and_the_dels():
    trc, _ = _trace()
    start, rows = memory.rows(trc)
    assert start == 24  # a: 6 floats of 4 bytes
    assert [r.alive for r in rows] == [48, 24, 48, 24, 24]  # b; del a; c; del b; return
    assert [r.peak for r in rows] == [True, False, False, False, False]  # the first line with the most


def test_the_comparison_names_freed_arguments_and_views():
    trc, _ = _trace()
    c = memory.memory(trc).compared
    assert c.peak == 48 and c.arguments_freed == ("a",) and c.aliases == ()
    assert c.theirs == 72  # memory_calculation keeps the argument a: a + b + c
    assert "frees these arguments at their del (a)" in memory.note(c)
    viewed, proxies = _trace(views=True)
    seen = memory.memory(viewed).compared
    assert seen.aliases == (proxies["c"].name,)  # a reshape is an alias operator to memory_calculation
    assert seen.theirs == 48 and seen.peak == 48  # it counts c as nothing, and keeps a; this count frees a
    assert "The peaks agree, though the counts differ" in memory.note(seen)
    assert f"gives their own bytes to {proxies['c'].name}, outputs of the operators" in memory.note(seen)


def test_an_argument_memory_calculation_frees_too_is_no_difference():
    """A backward's cotangents are a collection it clears: memory_calculation frees them at their del too."""
    jf = thunder.jit(lambda x, n: x * n)
    jf(torch.ones(6, requires_grad=True), 2.0)
    backward = thunder.last_backward_traces(jf)[-1]
    assert "clear_mutable_collection(cotangents)" in str(backward)
    c = memory.memory(backward).compared
    assert (c.peak, c.theirs, c.arguments_freed, c.aliases) == (48, 48, (), ())
    assert memory.note(c).endswith("They agree.")


def test_an_argument_freed_there_at_an_aliass_del_is_no_difference():
    """A cotangent read by an alias operator (expand): memory_calculation frees it at the alias's del."""
    jf = thunder.jit(lambda x: (x * 2).sum())
    jf(torch.ones(6, requires_grad=True))
    backward = thunder.last_backward_traces(jf)[-1]
    [expand] = [b for b in backward.bound_symbols if b.sym.name == "expand"]
    cotangent = expand.flat_proxy_args[0].name
    assert f"del {cotangent}" in str(backward)  # deleted here, as an argument
    c = memory.memory(backward).compared
    assert cotangent not in c.arguments_freed and c.aliases == (expand.output.name,)


def test_a_symbolic_shape_has_no_count_and_says_why():
    js = thunder.jit(lambda x: x * 2, cache="symbolic values")
    js(torch.ones(6))
    m = memory.memory(thunder.last_traces(js)[-1])
    assert m.rows == [] and m.compared is None
    assert m.unknown.startswith("No count: x has the shape (i0), whose dimensions are not all numbers")
    assert "No count" in memory.section("computation", m)


def test_a_forward_lists_what_it_saves_and_the_line_that_made_it():
    trc = TraceCtx(_signature)
    with tracectx(trc):
        a = TensorProxy("a", shape=(4,), dtype=dtypes.float64, device=devices.cpu)
        trc.args = (a,)
        b = prims.sin(a)
        prims.python_return(b, ((a, b), ()))
    assert memory.saved(trc) == [memory.Saved("a", 32, "an argument"), memory.Saved(b.name, 32, "sin")]


def test_a_failed_tensor_check_is_decoded_from_its_bound_symbol():
    trc = TraceCtx()
    with tracectx(trc):
        x = TensorProxy("x", shape=(8, 16), dtype=dtypes.float32, device=devices.cpu)
        prims.check_tensor_shape_and_metadata(x, (8, 16), "cpu", torch.float32, False)
    [bsym] = trc.bound_symbols
    [failed] = recompile.decode(bsym, {"x": torch.zeros(16, 16)})
    assert failed.text() == "x: shape (8, 16) expected, (16, 16) given"
    both = recompile.decode(bsym, {"x": torch.zeros(8, 16, dtype=torch.float64, requires_grad=True)})
    assert [f.check for f in both] == ["dtype", "requires_grad"]


def test_a_failed_value_and_length_check_is_decoded():
    trc = TraceCtx()
    with tracectx(trc):
        from thunder.core.proxies import IntegerProxy

        n = IntegerProxy("i0", 16)
        prims.check_number_type_and_value(n, 16)
        prims.check_len((), 1)
    value, length = trc.bound_symbols
    assert recompile.decode(value, {"i0": 32})[0].text() == "i0: value 16 expected, 32 given"
    assert recompile.decode(value, {"i0": 16.0})[0].text() == "i0: type int expected, float given"
    assert recompile.decode(length, {})[0].check == "length"
