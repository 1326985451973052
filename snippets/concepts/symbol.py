"""Symbol: what an operation is to Thunder, its three kinds, and what calling one does."""

# --8<-- [start:setup]
import torch

import thunder


def fn(x, y):
    z = x + y  # x is broadcast from (3, 3) to (3, 3, 3)
    return z * 2


x = torch.ones(3, 3)
y = torch.ones(3, 3, 3)

jfn = thunder.jit(fn)
result = jfn(x, y)

traces = thunder.last_traces(jfn)
first = traces[0]  # the interpreter's trace, as the passes left it
last = traces[-1]  # the last trace in the list (Thunder runs a copy of it)
assert all(p.name in trc.names for trc in traces for bsym in trc.bound_symbols
           for p in (*bsym.flat_proxy_args, *bsym.flat_proxy_outs))  # names holds every proxy's name
# --8<-- [end:setup]

# --8<-- [start:in-the-trace]
first_add = first.bound_symbols[2]  # z = ltorch.add(x, y, alpha=1)
last_add = last.bound_symbols[2]  # ... = torch.add(x, y, alpha=1)

print("first trace:", first_add.sym.name, "from", first_add.sym.module.__name__)
print("  made of:  ", [f"{sub.sym.module.__name__}.{sub.sym.name}" for sub in first_add.subsymbols])
print("last trace: ", last_add.sym.name, "from", last_add.sym.module.__name__,
      "run by the", last_add.sym.executor.name, "executor")
print("  made of:  ", [f"{sub.sym.module.__name__}.{sub.sym.name}" for sub in last_add.subsymbols])
# --8<-- [end:in-the-trace]

# --8<-- [start:three-kinds]
import thunder.torch as ltorch
from thunder.core import prims
from thunder.core.symbol import Symbol
from thunder.executors.torchex import ex as torch_executor

kinds = {"ltorch.add": ltorch.add, "prims.add": prims.add, "torch executor's add": torch_executor.opmap["add"]}
print(f"{'':21} {'id':14} {'is_prim':8} {'module':19} executor")
for label, sym in kinds.items():
    executor = sym.executor.name if sym.executor else None
    print(f"{label:21} {sym.id!s:14} {sym.is_prim!s:8} {sym.module.__name__:19} {executor}")

assert all(isinstance(sym, Symbol) for sym in kinds.values()) and not isinstance(torch.add, Symbol)
assert ltorch.add.id == "torch.add" and not ltorch.add.is_prim and ltorch.add.executor is None
assert prims.add.id is prims.PrimIDs.ADD and prims.add.is_prim
assert torch_executor.opmap["add"].id == "add" and torch_executor.opmap["add"].executor is torch_executor
assert first_add.sym is ltorch.add and first_add.subsymbols[1].sym is prims.add
assert last_add.sym is torch_executor.opmap["add"] and last_add.subsymbols[0].sym is ltorch.add


def every_bsym(bsyms):
    for bsym in bsyms:
        yield bsym
        yield from every_bsym(bsym.subsymbols)


ltorch_adds = [b for trc in traces for b in every_bsym(trc.bound_symbols) if b.sym.id == "torch.add"]
assert len(ltorch_adds) > 1 and all(b.sym is ltorch.add for b in ltorch_adds)  # one Symbol object
# --8<-- [end:three-kinds]

# --8<-- [start:spellings]
def recorded(f, *inputs):
    """The symbols of the operations the interpreter records for f(*inputs)."""
    jf = thunder.jit(f)
    jf(*inputs)
    return [bsym.sym for bsym in thunder.last_traces(jf)[0].bound_symbols[len(inputs):-1]]


a, b = torch.ones(2), torch.full((2,), 2.0)
spellings = {
    "x.sin()": recorded(lambda x: x.sin(), a),
    "torch.sin(x)": recorded(lambda x: torch.sin(x), a),
    "torch.Tensor.sin(x)": recorded(lambda x: torch.Tensor.sin(x), a),
    "x * y": recorded(lambda x, y: x * y, a, b),
    "torch.mul(x, y)": recorded(lambda x, y: torch.mul(x, y), a, b),
    "torch.multiply(x, y)": recorded(lambda x, y: torch.multiply(x, y), a, b),
    "x / y": recorded(lambda x, y: x / y, a, b),
    "torch.div(x, y)": recorded(lambda x, y: torch.div(x, y), a, b),
    "x - y": recorded(lambda x, y: x - y, a, b),
    "torch.subtract(x, y)": recorded(lambda x, y: torch.subtract(x, y), a, b),
}
for spelling, syms in spellings.items():
    print(f"{spelling:21}", [(sym.name, sym.id) for sym in syms])

sin_spellings = ["x.sin()", "torch.sin(x)", "torch.Tensor.sin(x)"]
assert all(spellings[s] == [ltorch.sin] for s in sin_spellings)  # one symbol, id "torch.sin"
assert ltorch.sin.id == "torch.sin"
assert spellings["x * y"] == spellings["torch.mul(x, y)"] == [ltorch.mul]
(multiply,) = spellings["torch.multiply(x, y)"]
assert multiply is not ltorch.mul and multiply.id == "torch.multiply" != ltorch.mul.id  # an alias, its own id
assert spellings["x / y"][0].id == "torch.true_divide" != spellings["torch.div(x, y)"][0].id == "torch.div"
assert spellings["x - y"][0].id == "torch.sub" != spellings["torch.subtract(x, y)"][0].id
# --8<-- [end:spellings]

# --8<-- [start:find]
import inspect

# 1. Record a call and read the symbol off its line.
jgelu = thunder.jit(lambda x: torch.nn.functional.gelu(x, approximate="tanh"))
jgelu(a)
gelu_line = thunder.last_traces(jgelu)[0].bound_symbols[1]
gelu = gelu_line.sym
print("line:     ", gelu_line.python(indent=0, print_depth=1)[0])
print("symbol:   ", gelu.name, "| id:", gelu.id, "| module:", gelu.module.__name__)
# 2. Its signature is its meta function's, which bind checks arguments against.
print("signature:", inspect.signature(gelu.meta))
# 3. Thunder's definitions of PyTorch operations are Symbol attributes of thunder.torch.
ltorch_symbols = {name for name, value in vars(ltorch).items() if isinstance(value, Symbol)}  # names
distinct = {id(getattr(ltorch, n)) for n in ltorch_symbols}  # the symbols they hold, each once
print(len(ltorch_symbols), "names in thunder.torch hold", len(distinct), "symbols; among them",
      sorted(ltorch_symbols & {"clamp", "gelu", "matmul", "relu", "where"}))
softmax_syms = recorded(lambda x: torch.softmax(x, 0), a)
print("ltorch.softmax is a", type(ltorch.softmax).__name__, "| torch.softmax records", [(s.name, s.id) for s in softmax_syms])

assert gelu is ltorch.gelu and gelu.id == "torch.nn.functional.gelu"
assert gelu_line.args == (gelu_line.args[0],) and gelu_line.kwargs == {"approximate": "tanh"}
assert "approximate" in inspect.signature(gelu.meta).parameters

# An executor's symbol registered with like= has that symbol as its meta, and a signature that takes anything.
executor_add = torch_executor.opmap["add"]
print("the torch executor's add:", inspect.signature(executor_add.meta))
assert str(inspect.signature(executor_add.meta)) == "(*args, **kwargs)"
assert {"clamp", "gelu", "matmul", "relu", "where"} <= ltorch_symbols
assert not isinstance(ltorch.softmax, Symbol) and softmax_syms == [ltorch._softmax]

# 4. Most symbols of thunder.torch are fallbacks that Thunder registered automatically: prims whose meta takes anything.
from thunder.core.prims import OpTags

takes_anything = {n for n in ltorch_symbols if str(inspect.signature(getattr(ltorch, n).meta)) == "(*args, **kwargs)"}
ltorch_prims = {n for n in ltorch_symbols if getattr(ltorch, n).is_prim}
auto_registered = {n for n in ltorch_symbols if OpTags.AUTO_REGISTERED in (getattr(ltorch, n).tags or ())}
print(len(takes_anything), "of the", len(ltorch_symbols), "names hold a symbol whose meta takes (*args, **kwargs),",
      len({id(getattr(ltorch, n)) for n in takes_anything}), "symbols; among them",
      sorted(takes_anything & {"multiply", "subtract", "mul", "sub"}))
print(len(ltorch_prims), "hold a prim; the prims that are not fallbacks:", sorted(ltorch_prims - takes_anything))
hand_prims_taking_anything = {s.name for s in vars(prims).values()
                              if isinstance(s, Symbol) and str(inspect.signature(s.meta)) == "(*args, **kwargs)"}
assert hand_prims_taking_anything == {"sink"}  # the one prim of thunder.core.prims whose meta takes anything
jsub = thunder.jit(lambda x, y: (torch.subtract(x, y), torch.sub(x, y)))
jsub(a, b)
subtract_line, sub_line = thunder.last_traces(jsub)[0].bound_symbols[2:4]
print(subtract_line, sub_line, sep="\n")

assert takes_anything == auto_registered and takes_anything < ltorch_prims  # every fallback is a prim
assert {"multiply", "subtract"} <= takes_anything and not {"add", "mul", "sub", "gelu"} & ltorch_prims
assert 2 * len(takes_anything) > len(ltorch_symbols)  # most of the names...
assert 2 * len({id(getattr(ltorch, n)) for n in takes_anything}) > len(distinct)  # ...and most of the symbols
assert len(distinct) < len(ltorch_symbols) and ltorch.threshold is ltorch._threshold  # names that share a symbol
assert subtract_line.sym is ltorch.subtract and subtract_line.kwargs == {} and subtract_line.subsymbols == []
assert sub_line.sym is ltorch.sub and sub_line.kwargs == {"alpha": 1} and sub_line.subsymbols
hand_made = ltorch_symbols - takes_anything
assert 2 * len(ltorch_prims & hand_made) < len(hand_made)  # few of those defined by hand are prims
executor_multiply = torch_executor.implmap[ltorch.multiply.id].symbol  # how the torch executor runs the fallback
assert executor_multiply.module is torch and executor_multiply.name == "multiply"  # it calls torch.multiply
for n in takes_anything:  # each fallback: the torch executor's symbol calls the PyTorch function of that name
    op = torch_executor.implmap[getattr(ltorch, n).id].symbol
    assert (op.module is torch.Tensor or op.module.__name__.startswith("torch")) and op.name == n
    assert callable(getattr(op.module, n))

# The definitions of PyTorch operations that are not attributes of thunder.torch.
import builtins

definitions = {id(s): s for s in ltorch._torch_to_thunder_function_map.values() if isinstance(s, Symbol)}
not_attributes = [s for i, s in definitions.items() if i not in {id(v) for v in vars(ltorch).values()}]
assert 2 * len(not_attributes) < len(definitions)  # most are attributes of thunder.torch
not_fallbacks = {s.name for s in not_attributes if OpTags.AUTO_REGISTERED not in (s.tags or ())}
assert not_fallbacks == {"dtensor_from_local", "dtensor_redistribute", "dtensor_to_local"}
assert all(s.name in vars(ltorch) or hasattr(builtins, s.name) for s in not_attributes if s.name not in not_fallbacks)
# --8<-- [end:find]

# --8<-- [start:fields]
import inspect

sym = ltorch.add
print("name:          ", sym.name)
print("meta:          ", f"{sym.meta.__module__}.{sym.meta.__qualname__}")
print("id:            ", sym.id)
print("is_prim:       ", sym.is_prim)
print("tags:          ", sym.tags)
print("is_fusion:     ", sym.is_fusion)
print("python_printer:", sym.python_printer.__name__)
print("module:        ", sym.module.__name__)
print("executor:      ", sym.executor)
print("python_impl:   ", sym.python_impl)
print()
print(inspect.getsource(sym.meta).rstrip())

assert "clang.add(a, b)" in inspect.getsource(sym.meta)

import types

# each Symbol once (thunder.torch imports get_grad and put_grad from prims, and has names that share a symbol)
ltorch_and_prims = list({id(s): s for module in (ltorch, prims) for s in vars(module).values() if isinstance(s, Symbol)}.values())
executor_syms = list(torch_executor.opmap.values())
with_symbol_meta = [s for s in executor_syms if isinstance(s.meta, Symbol)]
print()
print("plain functions as meta:", sum(isinstance(s.meta, types.FunctionType) for s in ltorch_and_prims),
      "of the", len(ltorch_and_prims), "symbols of ltorch and prims")
print("a Symbol as meta:", len(with_symbol_meta), "of the", len(executor_syms), "entries of torch_executor.opmap",
      "| the add's meta is ltorch.add:", executor_add.meta is ltorch.add)

assert all(isinstance(s.meta, types.FunctionType) for s in ltorch_and_prims)  # every one of them

# like= a plain function: the meta is that function, with its own signature and defaults
neither = [k for k, s in torch_executor.opmap.items() if not s.is_prim and not isinstance(s.meta, Symbol)]
philox = torch_executor.opmap["ops.rngprims.philox_rand"]
print("neither a prim nor a Symbol as meta:", neither, "| its meta:", philox.meta.__name__)
assert neither == ["ops.rngprims.philox_rand"] and isinstance(philox.meta, types.FunctionType)
philox_line = philox.bind((2,), device="cpu", dtype=None, seed=None, offset=None, output=None)  # no stride given
assert inspect.signature(philox.meta).parameters["stride"].default is None and philox_line.kwargs["stride"] is None

fallback_meta = ltorch.multiply.meta  # the meta of an automatically registered fallback
print("the meta of ltorch.multiply:", fallback_meta.__qualname__, "| runs PyTorch on fake tensors:",
      "FakeTensorMode()" in inspect.getsource(fallback_meta))
assert all(getattr(ltorch, n).meta.__qualname__ == "meta_adaptor.<locals>.meta_func" for n in takes_anything)
assert "with FakeTensorMode():" in inspect.getsource(fallback_meta)
# both metas are wrappers made with functools.wraps, which copies the name they print with
assert ltorch.add.meta.__code__.co_name == "wrapper" and fallback_meta.__code__.co_name == "_fn"
fallback_op = torch_executor.implmap[ltorch.multiply.id].symbol  # the torch executor's operator
assert fallback_meta.__wrapped__ is fallback_op.meta and fallback_op.meta.__code__.co_name == "meta_func"
assert not all(s.sym.is_prim for s in gelu_line.subsymbols)  # gelu's meta calls ltorch symbols
assert executor_add.meta is ltorch.add and with_symbol_meta and not isinstance(executor_add.meta, types.FunctionType)
assert all(str(inspect.signature(s.meta)) == "(*args, **kwargs)" for s in with_symbol_meta)  # each of them
# --8<-- [end:fields]

# --8<-- [start:call]
from thunder.core.trace import from_trace, tracectx

x_proxy, y_proxy = first.args
trc = from_trace(first)  # an empty trace with the same inputs
with tracectx(trc):
    out = ltorch.add(x_proxy, y_proxy)  # a call, not an assignment trick
    doubled = prims.add(out, out)

print("out is a", type(out).__name__, "named", out.name)
print(len(trc.bound_symbols), "bound symbols:")
for bsym in trc.bound_symbols:
    print(bsym)

assert [bsym.sym for bsym in trc.bound_symbols] == [ltorch.add, prims.add]
assert trc.bound_symbols[0].output is out and trc.bound_symbols[1].output is doubled
assert len(trc.bound_symbols[0].subsymbols) == 2 and not trc.bound_symbols[1].subsymbols

with tracectx(trc):
    executor_add(x_proxy, y_proxy)  # the torch executor's add: its meta, ltorch.add, is called as a symbol
print(trc.bound_symbols[-1])
assert trc.bound_symbols[-1].sym is executor_add and trc.bound_symbols[-1].subsymbols[0].sym is ltorch.add
assert trc.bound_symbols[-1].kwargs == {}  # bind checked (*args, **kwargs): no default alpha=1 filled in
# --8<-- [end:call]

# --8<-- [start:clang]
import thunder.clang as clang

print("clang.add is a", type(clang.add).__name__, "- a Symbol?", isinstance(clang.add, Symbol))
trc = from_trace(first)
with tracectx(trc):
    clang.add(x_proxy, y_proxy)
print([f"{bsym.sym.module.__name__}.{bsym.sym.name}" for bsym in trc.bound_symbols])

assert not isinstance(clang.add, Symbol)
assert not any(isinstance(value, Symbol) for value in vars(clang).values())  # clang defines no symbol
assert all(bsym.sym.module is prims for bsym in trc.bound_symbols)
# --8<-- [end:clang]

# --8<-- [start:mistake-meta]
trc = from_trace(first)
with tracectx(trc):
    ltorch.add.meta(x_proxy, y_proxy)  # DON'T: the meta runs without a scope of its own

print([f"{bsym.sym.module.__name__}.{bsym.sym.name}" for bsym in trc.bound_symbols])
assert [bsym.sym.name for bsym in trc.bound_symbols] == ["broadcast_in_dim", "add"]
assert all(bsym.sym.is_prim for bsym in trc.bound_symbols)
# --8<-- [end:mistake-meta]

# --8<-- [start:mistake-outside]
try:
    ltorch.add(x_proxy, y_proxy)  # no tracectx
except NotImplementedError as e:
    error = e
    print(f"{type(e).__name__}: {e}")

assert "outside of a tracing context" in str(error)
# --8<-- [end:mistake-outside]
