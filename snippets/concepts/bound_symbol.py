"""BoundSymbol: one call in a trace, its fields, and the right way to make new ones."""

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
# --8<-- [end:setup]

# --8<-- [start:fields]
from thunder.core.symbol import BoundSymbol, BoundSymbolTag

add = first.bound_symbols[2]  # the line for `z = x + y`
print("sym:             ", add.sym, "id:", add.sym.id)
print("args:            ", add.args)
print("kwargs:          ", add.kwargs)
print("output:          ", add.output)
print("subsymbols:      ", [str(sub.sym.id) for sub in add.subsymbols])
print("header:          ", repr(add.header))
print("source_filename: ", add.source_filename)
print("source_positions:", add.source_positions)
print("tags:            ", add.tags)

assert isinstance(add, BoundSymbol) and add.sym.id == "torch.add"
assert add.kwargs == {"alpha": 1} and add.output.name == "z"
assert [sub.sym.name for sub in add.subsymbols] == ["broadcast_in_dim", "add"]
assert add.source_positions.end_col_offset - add.source_positions.col_offset == len("x + y")
# --8<-- [end:fields]

# --8<-- [start:lines]
for line in add.python(indent=0, print_depth=-1):
    print(line)
print()
for bsym in last.bound_symbols:
    print(f"{bsym.sym.name:15}", bsym.python(indent=0, print_depth=1))

assert add.python(indent=0, print_depth=-1) == repr(add).splitlines()
assert len(add.python(indent=0, print_depth=1)) == 1  # no header: one line
assert all(len(bsym.python(indent=0, print_depth=1)) == 1 for bsym in last.bound_symbols)
own = {line for bsym in last.bound_symbols for line in bsym.python(indent=1, print_depth=1)}
added = [line for line in last.python().splitlines() if line.strip() and line not in own]  # what the trace adds
assert added[0] == str(last.get_provenance()) and "import torch" in added  # provenance comment, imports
assert "@torch.no_grad()" in added and "def computation(x, y):" in added  # decorators, signature
assert any(line.startswith(f"  # {add.source_filename}:{add.source_positions.lineno}: ") for line in added)

jgrad = thunder.jit(fn)
jgrad(x.clone().requires_grad_(), y)  # an input that requires grad: Thunder also makes a backward trace
backward = thunder.last_backward_traces(jgrad)[-1]
unpack = next(bsym for bsym in backward.bound_symbols if bsym.sym.name == "unpack_sequence")
print()
print("in the backward trace:", unpack.sym.name, "header:", repr(unpack.header))
for line in unpack.python(indent=0, print_depth=1):
    print(" ", line)
assert not unpack.header and len(unpack.python(indent=0, print_depth=1)) == 2  # its printer's two lines
assert isinstance(unpack.output, list)  # an output can be a list
# --8<-- [end:lines]

# --8<-- [start:flat]
mul = first.bound_symbols[3]  # the line for `return z * 2`
ret = first.bound_symbols[-1]
for bsym in (add, mul, ret):
    print(bsym.sym.name)
    print("  flat_args:      ", bsym.flat_args)
    print("  flat_proxy_args:", [p.name for p in bsym.flat_proxy_args])
    print("  flat_proxy_outs:", [p.name for p in bsym.flat_proxy_outs])

assert mul.flat_args[1] == 2 and [p.name for p in mul.flat_proxy_args] == ["z"]
assert ret.output is None and ret.flat_proxy_outs == ()
# --8<-- [end:flat]

# --8<-- [start:rhs]
twin = add.from_bsym(output=mul.output)  # same call, another output
print(add.rhs)
print("same right-hand side:", twin.rhs == add.rhs)

copy_add, copy_mul = add.from_bsym(), mul.from_bsym()  # exact copies
print("add.from_bsym() == add:", copy_add == add, "| kwargs:", add.kwargs)
print("mul.from_bsym() == mul:", copy_mul == mul, "| kwargs:", mul.kwargs)

tagged_twin = add.from_bsym(tags={BoundSymbolTag.BACKWARD})
tagged_sub = add.subsymbols[1].from_bsym(tags={BoundSymbolTag.BACKWARD})
inner_tag = add.from_bsym(subsymbols=(add.subsymbols[0], tagged_sub))  # only a subsymbol is tagged
print("rhs.backward:", add.rhs.backward, "| tagged BACKWARD:", tagged_twin.rhs.backward,
      "| a subsymbol tagged:", inner_tag.rhs.backward)

assert twin.rhs == add.rhs
assert copy_add != add and copy_mul == mul  # == is False for every bound symbol with kwargs
assert add == add  # ...except the very same object
assert tagged_twin.rhs != add.rhs and tagged_twin.rhs.backward is True
assert BoundSymbolTag.BACKWARD not in inner_tag.tags and inner_tag.rhs.backward is True
# --8<-- [end:rhs]

# --8<-- [start:tags]
print("tags in the forward trace:", [bsym.tags for bsym in last.bound_symbols])

tagged = [bsym.sym.name for bsym in backward.bound_symbols if BoundSymbolTag.BACKWARD in bsym.tags]
print("tagged BACKWARD in the backward trace:", tagged)

assert all(not bsym.tags for bsym in last.bound_symbols) and tagged
# --8<-- [end:tags]

# --8<-- [start:call]
import thunder.torch as ltorch
from thunder.core.trace import from_trace, tracectx

z = add.output
new = from_trace(first)  # an empty copy that shares the names of `first`
new.bound_symbols = list(first.bound_symbols[:-1])  # everything but the return
with tracectx(new):
    w = ltorch.sub(mul.output, 1)  # appends a bound symbol, returns its output proxy

print(new.bound_symbols[-1])
assert new.bound_symbols[-1].output is w and len(first.bound_symbols) == 5
assert w.name in first.names  # the shared names set
assert [sub.sym.name for sub in new.bound_symbols[-1].subsymbols] == ["convert_element_type", "sub"]
assert new.bound_symbols[-1].subsymbols[0].output == 1.0  # an output can be a constant, printed _
# --8<-- [end:call]

# --8<-- [start:bind]
at = new.bound_symbols.index(mul)
with tracectx(new):
    halved = ltorch.true_divide.bind(z, 2, output=mul.output)  # a new call that writes mul's output

print(halved)
print("appended:", halved in new.bound_symbols)
new.bound_symbols[at] = halved  # bind never appends: put it in place of the multiplication yourself
print(new.python(print_depth=1).split("):\n", 1)[1])

assert halved.output is mul.output and halved.subsymbols == ()
assert new.bound_symbols[-1].args[0] is mul.output  # the sub still reads it, unchanged
written = [p.name for bsym in new.bound_symbols for p in bsym.flat_proxy_outs]
assert len(written) == len(set(written))  # every name is assigned once
# --8<-- [end:bind]

# --8<-- [start:scope]
new.push_scope([])  # calls now go to this list, not to the end of the trace
with tracectx(new):
    ltorch.neg(z)
made = new.pop_scope()

new.bound_symbols[3:3] = made  # insert them anywhere
print([bsym.sym.name for bsym in new.bound_symbols])
assert [bsym.sym.name for bsym in made] == ["neg"]
# --8<-- [end:scope]

# --8<-- [start:from-bsym]
noted = mul.from_bsym(header="z doubled")  # everything copied, one field changed
print(noted)

assert noted.sym is mul.sym and noted.args is mul.args and noted.output is mul.output
assert len(noted.python(indent=0, print_depth=1)) == 2  # with print_depth=1: the header line, then the call
assert noted.python(indent=0, print_depth=1)[0] == "# z doubled"  # the bound symbol prints its header itself

# After copying, from_bsym runs the symbol's bind postprocessing, which may override a field you named.
unpack = first.bound_symbols[0]  # the line that unpacks x: its postprocessing empties args
executor_add = last.bound_symbols[2]  # the torch executor's add: its postprocessing resets _call_ctx
print("unpack_trivial with args=(x,):  args", unpack.from_bsym(args=(unpack.output,)).args)
print("torch executor's add with a _call_ctx:", executor_add.from_bsym(_call_ctx={"f": print})._call_ctx)

assert unpack.sym.name == "unpack_trivial" and unpack.from_bsym(args=(unpack.output,)).args == ()
assert executor_add.sym.executor is not None and executor_add.from_bsym(_call_ctx={"f": print})._call_ctx is None
assert mul.sym._bind_postprocess is None and mul.from_bsym(args=(z, 3)).args == (z, 3)  # most symbols: as named

from thunder.core import prims
from thunder.core.symbol import Symbol

with_postprocess = sorted(s.name for s in vars(prims).values() if isinstance(s, Symbol) and s._bind_postprocess)
assert with_postprocess == ["unpack_cache_info", "unpack_function_obj", "unpack_trivial"]  # three prims, all unpacks
numbered = mul.from_bsym()
numbered._line_no = 7
assert numbered.from_bsym()._line_no is None  # the internal line number is not copied
# --8<-- [end:from-bsym]

# --8<-- [start:swap]
from thunder.core.proxies import variableify

y_proxy = add.args[1]
swapped = mul.from_bsym_swap_proxies({variableify(z): y_proxy})
print(swapped)

assert swapped.args[0] is y_proxy and swapped.subsymbols[0].args[0] is y_proxy
assert mul.from_bsym_swap_proxies({}) is mul  # an empty map: no copy, the same object
print("from_bsym_swap_proxies({}) is mul:", mul.from_bsym_swap_proxies({}) is mul)
assert hash(variableify(z)) == hash(z.name)
# --8<-- [end:swap]

# --8<-- [start:mistake-bind]
n = len(new.bound_symbols)
with tracectx(new):
    forgotten = ltorch.add.bind(z, z, output=w)

print("length before and after bind:", n, len(new.bound_symbols))
print("in the trace:", any(bsym is forgotten for bsym in new.bound_symbols))
assert len(new.bound_symbols) == n
# --8<-- [end:mistake-bind]

# --8<-- [start:mistake-constructor]
with tracectx(new):
    new.set_current_source_location(add.source_filename, add.source_positions)
    by_bind = ltorch.add.bind(z, z, output=w)
by_hand = BoundSymbol(ltorch.add, args=(z, z), kwargs={}, output=w)

print("bind:        ", by_bind, "| line", by_bind.source_positions.lineno)
print("constructor: ", by_hand, "| line", by_hand.source_positions)
assert by_bind.kwargs == {"alpha": 1} and by_hand.kwargs == {}
assert by_bind.source_positions is add.source_positions and by_hand.source_positions is None
# --8<-- [end:mistake-constructor]

# --8<-- [start:mistake-from-bsym]
tripled = mul.from_bsym(args=(z, 3))  # DON'T: the subsymbols still multiply by 2
print(tripled)

assert tripled.args[1] == 3 and tripled.subsymbols[0].args[1] == 2.0
# --8<-- [end:mistake-from-bsym]
