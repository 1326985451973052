"""Proxy: the stand-ins a trace computes with, and where every name in trace.names comes from."""

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
last = traces[-1]  # the last trace of the list
# --8<-- [end:setup]

# --8<-- [start:metadata]
from thunder.core.proxies import TensorProxy

x_proxy = first.args[0]
print(type(x_proxy).__name__, "named", x_proxy.name)
print("shape:        ", x_proxy.shape)
print("dtype:        ", x_proxy.dtype)
print("device:       ", x_proxy.device)
print("requires_grad:", x_proxy.requires_grad)
print("a torch.Tensor?", isinstance(x_proxy, torch.Tensor))

assert isinstance(x_proxy, TensorProxy) and not isinstance(x_proxy, torch.Tensor)
assert x_proxy.shape == x.shape and x_proxy.requires_grad is False
# --8<-- [end:metadata]

# --8<-- [start:kinds]
from thunder.core.proxies import CollectionProxy, proxy
from thunder.core.trace import TraceCtx, tracectx

trc = TraceCtx()  # a fresh trace: its counter starts at 0
with tracectx(trc):
    made = [proxy(torch.ones(2)), proxy(3), proxy(True), proxy(2.5)]
    made.append(CollectionProxy([made[0], made[1]]))

for p in made:
    print(f"{type(p).__name__:16} {p.name:4} prefix={p.prefix}")

numbers = [int(p.name[1:]) for p in made]
assert numbers == list(range(len(made)))  # one counter for every prefix
assert [p.name[0] for p in made] == ["t", "i", "i", "f", "C"]
assert made[2].prefix == "b"  # the property says b, but the name was made with i
assert made[2].type_string() == "bool True"  # what a printed annotation shows

from thunder.core.proxies import DictProxy, ListProxy, TupleProxy
from thunder.core.trace import from_trace

with tracectx(TraceCtx()):  # proxy() of a container is not a CollectionProxy
    containers = [proxy([1, 2]), proxy((1, 2)), proxy({"a": 1})]
for p in containers:
    print(f"{type(p).__name__:16} {p.name}")
assert [type(p) for p in containers] == [ListProxy, TupleProxy, DictProxy]
assert not any(isinstance(p, CollectionProxy) for p in containers)

taken = TraceCtx()
taken.names.add("t1")  # a name already taken: the counter goes past it
with tracectx(taken):
    skipped = [proxy(torch.ones(1)).name for _ in range(2)]
copy = from_trace(taken)  # what a pass does: the counter is copied, the set is shared
with tracectx(copy):
    skipped.append(proxy(torch.ones(1)).name)
assert skipped == ["t0", "t2", "t3"] and copy.names is taken.names
# --8<-- [end:kinds]

# --8<-- [start:names]
import re

SOURCE_COMMENT = re.compile(r"\s*# .*:\d+: \t")  # "# file.py:13: \t<code>": a path and a line of code


def printed_words(text):
    """The words a printed trace shows, its source comments left out (their paths are not names)."""
    return {w for line in text.splitlines() if not SOURCE_COMMENT.match(line) for w in re.findall(r"\w+", line)}


printed = set()
for trc in traces:
    printed |= printed_words(str(trc))  # every level of every trace

print("names:        ", sorted(first.names))
print("never printed:", sorted(first.names - printed))

assert all(trc.names is first.names for trc in traces)  # one set for the whole pipeline
assert {"t_0", "t_1"} <= first.names - printed
# --8<-- [end:names]

# --8<-- [start:unpack]
for bsym in first.bound_symbols[:2]:
    print(bsym.sym.name, "kwargs:", bsym.kwargs, "output:", bsym.output.name)

assert [bsym.kwargs["name"] for bsym in first.bound_symbols[:2]] == ["t_0", "t_1"]

from thunder.core import prims

fresh = TraceCtx()
with tracectx(fresh):
    a = proxy(torch.ones(2), name="t_7")  # what the jit does: the proxy takes the name
    after_proxy = set(fresh.names)
    prims.unpack_trivial(a, name="some_other_name")  # binding unpack_trivial takes none
print("names after proxy(..., name='t_7'):", sorted(after_proxy))
print("names after unpack_trivial:       ", sorted(fresh.names))

assert after_proxy == {"t_7"} and fresh.names == {"t_7"}
# --8<-- [end:unpack]

# --8<-- [start:spy]
import thunder.core.jit_ext as jit_ext
import thunder.executors.passes as passes
from thunder.core.proxies import unvariableify

renamed = {}  # old name -> new name, from the jit's swap map
minted = []  # the names each executor pass added, and whether its result was kept


def spy_rename(trace, swap_map=None, name=None):
    if name == "computation":
        renamed.update({unvariableify(old).name: new.name for old, new in swap_map.items()})
    return real_rename(trace, swap_map, name)


def spy_executor_pass(trace, executors_list):
    before = set(trace.names)
    new = real_executor_pass(trace, executors_list)
    if trace.siginfo().name == "computation":  # skip the prologue and epilogue traces
        minted.append(sorted(trace.names - before))
    return new


real_rename = jit_ext._apply_trace_proxy_rename
real_executor_pass = passes._transform_for_operator_executor_execution
jit_ext._apply_trace_proxy_rename = spy_rename
passes._transform_for_operator_executor_execution = spy_executor_pass
try:
    jspy = thunder.jit(fn)  # the same function, compiled again while we watch
    jspy(x, y)
finally:
    jit_ext._apply_trace_proxy_rename = real_rename
    passes._transform_for_operator_executor_execution = real_executor_pass

spy_traces = thunder.last_traces(jspy)
spy_printed = printed_words("\n".join(str(trc) for trc in spy_traces))
print("renamed:", renamed)
for i, names in enumerate(minted):
    print(f"executor pass, run {i}: made {names}, printed in a trace: {sorted(set(names) & spy_printed)}")

assert spy_traces[0].names == first.names  # the same names as the first compilation
never_printed = first.names - printed
assert never_printed == set(renamed) | set(minted[0])  # every hidden name accounted for
assert not set(minted[0]) & spy_printed and set(minted[1]) <= spy_printed
assert len(minted) == 3 and minted[2] == []


def twice(x, y):
    z = x + y
    z = z * 2  # z's name is taken by now: this proxy keeps its generated name
    return z - 1


jtwice = thunder.jit(twice)
jtwice(x, y)
twice_computation = str(thunder.last_traces(jtwice)[0])
assert "z = ltorch.add(x, y" in twice_computation and re.search(r"t\d+ = ltorch.mul\(z, 2", twice_computation)


def twice_then_free(x, y):
    z = x + y
    z = z * 2
    w = z  # a free name met later still renames the second proxy
    return w - 1


jlater = thunder.jit(twice_then_free)
jlater(x, y)
assert "w = ltorch.mul(z, 2" in str(thunder.last_traces(jlater)[0])
# --8<-- [end:spy]

# --8<-- [start:mistake-outside]
try:
    TensorProxy(like=x_proxy)  # no tracectx: there is no trace to name it in
except AttributeError as e:
    error = e
    print(f"{type(e).__name__}: {e}")

assert str(error) == "'NoneType' object has no attribute 'make_name'"
# --8<-- [end:mistake-outside]

# --8<-- [start:mistake-name]
try:
    with tracectx(first):
        TensorProxy("z", like=x_proxy)  # z is already a name of this trace
except RuntimeError as e:
    error = e
    print(f"{type(e).__name__}: {e}")

assert "already used" in str(error)

with tracectx(first):
    free = x_proxy.replace_name("z", disambiguate=True)
print("disambiguated:", free.name)
assert free.name == "z_0"
# --8<-- [end:mistake-name]

# --8<-- [start:shared-name]
class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2, bias=False)

    def forward(self, x, t_fc_weight):  # an argument named like the parameter fc.weight's proxy
        return self.fc(x) + t_fc_weight


import contextlib
import io

shown = io.StringIO()  # Thunder prints the program it could not compile
try:
    with contextlib.redirect_stdout(shown):
        thunder.jit(Scaled())(torch.ones(1, 2), torch.ones(2, 2))
except SyntaxError as e:
    error = e
signature = next(line for line in shown.getvalue().splitlines() if line.startswith("def computation"))
print(signature)
print(f"{type(error).__name__}: {error.msg}")

assert error.msg == "duplicate argument 't_fc_weight' in function definition"  # two proxies, one name


class Keyword(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2, bias=False)

    def forward(self, x, *, fc_weight):  # passed as a keyword, it is named t_fc_weight too
        return self.fc(x) + fc_weight


keyword = Keyword()
jkeyword = thunder.jit(keyword)
x_in, w_in = torch.ones(1, 2), torch.full((2, 2), 10.0)
wrong = jkeyword(x_in, fc_weight=w_in)
parameters = [name for name, _ in thunder.last_traces(jkeyword)[-1].siginfo().args]
print("x and fc.weight and fc_weight=, as the computation's parameters:", parameters)
print("the same result as eager PyTorch:", torch.allclose(wrong, keyword(x_in, fc_weight=w_in)))
assert len(parameters) == 2  # three tensors in, two parameters: one of the two t_fc_weight is lost
assert not torch.allclose(wrong, keyword(x_in, fc_weight=w_in))  # silently wrong
# --8<-- [end:shared-name]
