"""Sharp edges: Python side effects run at trace time, the interpreter log, and what
thunder.examine says about operations Thunder does not support."""

# --8<-- [start:print]
import contextlib
import io
import random
import warnings

import torch

import thunder
from thunder.examine import examine


def f(x):
    print("f runs, x is a", type(x).__name__)
    return x * 2


jf = thunder.jit(f)
x = torch.randn(3)
for call in (1, 2, 3):
    print(f"-- call {call}")
    torch.testing.assert_close(jf(x), x * 2)
print(thunder.last_traces(jf)[-1].python(print_depth=1).split("\n\n", 1)[1])

printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    jf(x)
assert printed.getvalue() == ""  # a cache hit runs the trace: no print
assert thunder.cache_misses(jf) == 1 and thunder.cache_hits(jf) == 3
assert "print" not in str(thunder.last_traces(jf)[-1])

print("-- a call with a new shape")
recompiled = io.StringIO()
with contextlib.redirect_stdout(recompiled):
    jf(torch.randn(4))
print(recompiled.getvalue().rstrip())
assert recompiled.getvalue() == "f runs, x is a TensorProxy\n"  # a new compilation: the print runs again
assert thunder.cache_misses(jf) == 2

events = []


def g(x):
    events.append("traced")  # a side effect
    return x * random.random()  # drawn once, while tracing: a constant of the trace


jg = thunder.jit(g)
first, second = jg(x), jg(x)
assert events == ["traced"] and torch.equal(first, second)  # one append, one random number
# --8<-- [end:print]

# --8<-- [start:interpreter-log]
logged = thunder.jit(f, debug_options=thunder.DebugOptions(record_interpreter_history=True))
logged(x)
log = thunder.last_interpreter_log(logged)
chunks = []
thunder.print_last_interpreter_log(logged, print_fn=chunks.append, use_colors=False)
lines = "\n".join(chunks).splitlines()
start = next(i for i, line in enumerate(lines) if "# Line" in line and line.endswith(" in f()"))  # where f begins
depth = len(lines[start]) - len(lines[start].lstrip())  # f's own lines are indented this much
own = [line for line in lines[start:] if line.strip() and len(line) - len(line.lstrip()) == depth]
print("\n".join(own[:16]))

unlogged = thunder.jit(f)
with contextlib.redirect_stdout(io.StringIO()):  # keep its print off this output
    unlogged(x)
assert thunder.last_interpreter_log(unlogged) == []  # recorded only with record_interpreter_history
assert len(log) > 0 and start > 0 and any("NULL + print" in line for line in own)
return_line = f":{f.__code__.co_firstlineno + 2} in f()"  # the line `return x * 2`
assert any(line.endswith(return_line) for line in own)  # it is logged too
import linecache  # noqa: E402

source = linecache.getline(f.__code__.co_filename, f.__code__.co_firstlineno).strip()
assert not source or own[1].strip() == source == "def f(x):"  # the line's text, when the file can be read
f_items = [i for i, line in enumerate(lines) if line.lstrip().startswith("# Line ") and line.endswith(" in f()")]
for i in f_items:  # each of f's line items, not only the first of each line, is followed by the line's text
    text = linecache.getline(f.__code__.co_filename, int(lines[i].rsplit(":", 1)[1].split()[0]))
    assert not text.strip() or lines[i + 1].strip() == text.strip()
print_text = linecache.getline(f.__code__.co_filename, f.__code__.co_firstlineno + 1).strip()
assert not print_text or (any(line.strip() == print_text for line in lines)
                          and not any(line.strip() == print_text for line in own))  # indented: filtered out
print("line items of f:", len(f_items), "| distinct lines:", len({lines[i] for i in f_items}))
assert len(f_items) > len({lines[i] for i in f_items})  # a line is logged more than once
# --8<-- [end:interpreter-log]

# --8<-- [start:log-after-hit]
logged(x)  # a cache hit
try:
    thunder.last_interpreter_log(logged)
except TypeError as e:
    print(f"TypeError: {e}")
    error = e

assert "doesn't seem to have been called yet" in str(error)
# --8<-- [end:log-after-hit]

# --8<-- [start:examine]
def uses_unique(x):
    return torch.unique(x)


def uses_histc(x):
    return torch.histc(x, bins=4)


def uses_nonzero(x):
    return torch.nonzero(x > 0)


for fn in (uses_unique, uses_histc, uses_nonzero):
    print(f"== examine({fn.__name__}, x)")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            examine(fn, x)
    except NotImplementedError as e:
        out.write(f"raised NotImplementedError: {str(e).split(':')[0]}\n")
    print(out.getvalue().rstrip())
    if fn is uses_unique:
        unique_report = out.getvalue()
    elif fn is uses_histc:
        histc_report = out.getvalue()
    else:
        nonzero_report = out.getvalue()

assert "of which 0 (0.0%) are supported" in unique_report and "torch.functional" in unique_report
assert "automatically registered" in histc_report and "working as expected" in histc_report
assert "(100.0%) are supported" in nonzero_report and "raised NotImplementedError" in nonzero_report
# --8<-- [end:examine]

# --8<-- [start:auto-registered]
jhistc = thunder.jit(uses_histc)
torch.testing.assert_close(jhistc(x), torch.histc(x, bins=4))
recorded = next(b for b in thunder.last_traces(jhistc)[0].bound_symbols if "histc" in b.sym.name)
line = next(b for b in thunder.last_traces(jhistc)[-1].bound_symbols if "histc" in b.sym.name)
print("recorded as:", recorded)
print("runs as:    ", str(line).splitlines()[0])
print("run by:", line.sym.executor.name, "| defined in:", line.sym.module.__name__)

assert recorded.sym.id == "torch.histc" and recorded.sym.module.__name__ == "thunder.torch"
assert line.sym.executor.name == "torch"
from thunder.core.prims import OpTags  # noqa: E402

print("is a prim:", recorded.sym.is_prim, "| tags:", recorded.sym.tags, "| subsymbols:", recorded.subsymbols)
assert recorded.sym.is_prim and OpTags.AUTO_REGISTERED in recorded.sym.tags and recorded.subsymbols == []

from thunder.core import prims  # noqa: E402
from thunder.core.symbol import Symbol  # noqa: E402

core_prims = [s for s in vars(prims).values() if isinstance(s, Symbol) and s.is_prim]
with_enum_id = [s for s in core_prims if isinstance(s.id, prims.PrimIDs)]
print(f"prims of thunder.core.prims: {len(core_prims)}, with a PrimIDs id: {len(with_enum_id)}"
      f" | histc's id: {recorded.sym.id!r}")
assert core_prims and with_enum_id == core_prims  # each prim of thunder.core.prims has an enum id
assert isinstance(recorded.sym.id, str)  # this prim has a string id
# --8<-- [end:auto-registered]

# --8<-- [start:name-clash]
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2, bias=False)  # its parameter: fc.weight

    def forward(self, x, fc_weight):
        return self.fc(x) + fc_weight


torch.manual_seed(0)
net = Net()
inp, extra = torch.randn(2, 2), torch.randn(2, 2)
with torch.no_grad():
    expected = net(inp, extra)
    jnet = thunder.jit(net)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = jnet(inp, fc_weight=extra)  # by keyword
    used_the_parameter = net.fc(inp) + net.fc.weight

print("right result:", torch.allclose(got, expected), "| fc(x) + fc.weight instead:", torch.equal(got, used_the_parameter))
prologue = thunder.last_prologue_traces(jnet)[-1]
print(thunder.last_traces(jnet)[-1].siginfo())
print("\n".join(line for line in str(prologue).splitlines() if "kwargs" in line or "fc_weight" in line))

# A Thunder bug (0.2.6): when a release fixes it, these asserts fail and the build says so.
assert not torch.allclose(got, expected) and torch.equal(got, used_the_parameter)
assert all("is_autocast_cpu_enabled() is deprecated" in str(w.message) for w in caught)  # none about the clash
assert "kwargs['fc_weight']" not in str(prologue)  # the keyword argument is never read
assert "t_fc_weight" in thunder.last_prologue_traces(jnet)[0].names  # the name both proxies were given

jpos = thunder.jit(net)
with torch.no_grad():
    positional = jpos(inp, extra)  # workaround 1: pass it by position
print("by position, right result:", torch.allclose(positional, expected))
assert torch.allclose(positional, expected)
assert "fc_weight: \"cpu f32[2, 2]\" = args[1]" in str(thunder.last_prologue_traces(jpos)[-1])


class Renamed(Net):
    def forward(self, x, extra):  # workaround 2: a name that no parameter's path gives
        return self.fc(x) + extra


renamed = Renamed()
renamed.load_state_dict(net.state_dict())
with torch.no_grad():
    by_keyword = thunder.jit(renamed)(inp, extra=extra)
print("renamed, by keyword, right result:", torch.allclose(by_keyword, expected))
assert torch.allclose(by_keyword, expected)


class Scaled(torch.nn.Module):  # the same clash with a buffer
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(2, 2))

    def forward(self, x, scale):
        return x * self.scale + scale


scaled = Scaled()
jscaled = thunder.jit(scaled)
got_scaled = jscaled(inp, scale=extra)  # by keyword, named like the buffer
print("buffer, by keyword, right result:", torch.allclose(got_scaled, scaled(inp, extra)))
print("\n".join(line for line in str(thunder.last_prologue_traces(jscaled)[-1]).splitlines() if "scale" in line))
assert not torch.allclose(got_scaled, scaled(inp, extra)) and torch.equal(got_scaled, inp * scaled.scale + scaled.scale)
assert "kwargs['scale']" not in str(thunder.last_prologue_traces(jscaled)[-1])  # never read
assert "module.get_buffer('scale')" in str(thunder.last_prologue_traces(jscaled)[-1])
assert "t_scale" in thunder.last_prologue_traces(jscaled)[0].names  # named after its path, like a parameter
# --8<-- [end:name-clash]

# --8<-- [start:other-clashes]
class Masked(torch.nn.Module):  # a plain tensor attribute: neither a parameter nor a buffer
    def __init__(self):
        super().__init__()
        self.mask = torch.full((2, 2), 3.0)

    def forward(self, x, mask):
        return x * self.mask + mask


class Keyed(Net):  # a container argument: the path kwargs['fc']['weight'] gives t_fc_weight
    def forward(self, x, fc):
        return self.fc(x) + fc["weight"]


class Stacked(torch.nn.Sequential):  # a submodule named 0: its parameter 0.weight gives t_0_weight
    def forward(self, d, x):  # a container first, by position: args[0]['weight'] gives t_0_weight too
        return self[0](x) + d["weight"]


keyed, stacked = Keyed(), Stacked(torch.nn.Linear(2, 2, bias=False))
cases = {  # name: (module, the call by keyword, the call by position)
    "parameter fc.weight, fc_weight=": (net, lambda m: m(inp, fc_weight=extra), lambda m: m(inp, extra)),
    "buffer scale, scale=": (scaled, lambda m: m(inp, scale=extra), lambda m: m(inp, extra)),
    "attribute mask, mask=": (Masked(), lambda m: m(inp, mask=extra), lambda m: m(inp, extra)),
    "parameter fc.weight, fc={'weight': t}": (
        keyed, lambda m: m(inp, fc={"weight": extra}), lambda m: m(inp, {"weight": extra})),
    "parameter 0.weight, {'weight': t} first": (
        stacked, lambda m: m(d={"weight": extra}, x=inp), lambda m: m({"weight": extra}, inp)),
}
results = {}
for name, (module, by_keyword, by_position) in cases.items():
    with torch.no_grad():
        expected = by_position(module)  # eager PyTorch
        results[name] = tuple(torch.allclose(call(thunder.jit(module)), expected) for call in (by_keyword, by_position))
    print(f"{name:40} right by keyword: {results[name][0]!s:5} by position: {results[name][1]}")

assert [by_keyword for by_keyword, _ in results.values()] == [False, False, False, False, True]
assert [by_position for _, by_position in results.values()] == [True, True, True, True, False]

inputs = {}  # the computation's inputs for Keyed: one proxy short by keyword
for how, call in (("keyword", cases["parameter fc.weight, fc={'weight': t}"][1]),
                  ("position", cases["parameter fc.weight, fc={'weight': t}"][2])):
    jkeyed = thunder.jit(keyed)
    with torch.no_grad():
        call(jkeyed)
    inputs[how] = [p.name for p in thunder.last_traces(jkeyed)[0].args]
print("Keyed, computation inputs:", inputs)
assert inputs == {"keyword": ["x", "t_fc_weight"], "position": ["x", "t_1_weight", "t_fc_weight"]}


def two_arguments(a_b, a):  # a_b and a["b"] both give t_a_b
    return a_b + 2 * a["b"]


class TwoTensorsHeld(torch.nn.Module):  # the parameter a.b and the buffer a_b both give t_a_b
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Module()
        self.a.b = torch.nn.Parameter(torch.ones(2))
        self.register_buffer("a_b", torch.full((2,), 5.0))

    def forward(self, x):
        return x + self.a.b + 2 * self.a_b


ones, fives = torch.ones(2), torch.full((2,), 5.0)
assert not torch.equal(thunder.jit(two_arguments)(a_b=ones, a={"b": fives}), two_arguments(a_b=ones, a={"b": fives}))
held = TwoTensorsHeld()
with torch.no_grad():
    assert not torch.equal(thunder.jit(held)(ones), held(ones))  # no argument involved, and still wrong
# --8<-- [end:other-clashes]

# --8<-- [start:tril-watch]
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

# Run in a process of its own: the ThunderFX call, and a thread that looks, every half second, at what
# Thunder's interpreter is running. When it is reading source lines for FX's error message, the thread
# reports and ends the process; it gives up after 90 seconds. Nothing here can hang the build.
CHILD = r'''
import json, linecache, os, sys, threading, time, traceback
import torch
from thunder.dynamo import thunderfx


def interpreted_frames():
    """The frames Thunder's interpreter is running in the main thread, outermost first."""
    frame, found = sys._current_frames()[threading.main_thread().ident], []
    while frame is not None:
        if frame.f_code.co_name == "_run_frame" and "frame" in frame.f_locals:
            found.append(frame.f_locals["frame"])
        frame = frame.f_back
    return found[::-1]


def watch(started=time.monotonic()):
    while time.monotonic() - started < 90:
        time.sleep(0.5)
        frames = interpreted_frames()
        names = [f"{os.path.basename(f.code.co_filename)}:{f.code.co_name}" for f in frames]
        if "graph_module.py:__call__" in names and "linecache.py:getline" in names:
            caught = frames[names.index("graph_module.py:__call__")]  # FX's except block, holding the error
            e = caught.localsplus[caught.code.co_varnames.index("e")]
            e = getattr(e, "value", e)  # the interpreter keeps it wrapped
            files = [s.f_code.co_filename for s, _ in traceback.walk_tb(e.__traceback__)]
            print(json.dumps({"frames": names, "error": f"{type(e).__name__}: {str(e).splitlines()[0]}",
                              "files": {f: [files.count(f), len(linecache.getlines(f))] for f in dict.fromkeys(files)}}))
            sys.stdout.flush()
            os._exit(0)
    os._exit(1)


def uses_tril_indices(x):
    rows, cols = torch.tril_indices(3, 3)
    return x[rows] * x[cols]


threading.Thread(target=watch, daemon=True).start()
thunderfx(uses_tril_indices)(torch.randn(3))
print(json.dumps({"finished": True}))
'''
child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=150)
report = json.loads(child.stdout.splitlines()[-1])
print("Thunder's interpreter, outermost frame first:")
for name in report["frames"][:report["frames"].index("linecache.py:getline") + 1]:  # the frames below it vary
    print("  ", name)
print("the error FX is formatting:", report["error"][:100], "...")
print("the files of its traceback (frames, lines):")
site = torch.__file__.rsplit("torch/", 1)[0]
for path, (frames, lines) in report["files"].items():
    print(f"  {path.removeprefix(site):40} {frames} frames, {lines} lines")

names = report["frames"]
assert child.returncode == 0  # the watcher found it there, within 90 seconds
assert names.index("graph_module.py:__call__") < names.index("traceback.py:extract") < names.index("linecache.py:getline")
assert report["error"].startswith("NotImplementedError: Trying to call function torch.tril_indices")
total_lines = sum(lines for _, lines in report["files"].values())
print("lines in those files:", total_lines)
assert total_lines > 10_000
# --8<-- [end:tril-watch]

# --8<-- [start:tril-mechanism]
from unittest import mock  # noqa: E402

from thunder.core.jit_ext import JitCtx  # noqa: E402

scans = []  # per compilation: how many constraints add_constraint compared a new one with
real_add_constraint = JitCtx.add_constraint


def counting_add_constraint(self, constraint):
    scans[-1] += len(self._constraints)  # it compares the new constraint with each one already there
    return real_add_constraint(self, constraint)


def reads_a_line(name):
    def f(x):
        linecache.getline(name, 1)  # what traceback does for each frame
        return x.cos()
    return f


for n in (500, 1000, 2000):
    name = f"<{n} lines>"  # a source file of n lines, in linecache like the files of a traceback
    lines = [f"# line {i}\n" for i in range(n)]
    linecache.cache[name] = (sum(map(len, lines)), None, lines, name)
    jread = thunder.jit(reads_a_line(name))
    scans.append(0)
    with mock.patch.object(JitCtx, "add_constraint", counting_add_constraint):
        jread(x)
    checked = [b.args[1] for b in thunder.last_prologue_traces(jread)[0].bound_symbols
               if b.sym.name == "check_string_value"]
    print(f"{n} lines: {len(checked)} string checks in the prologue, {scans[-1]:,} comparisons")
    if n == 500:  # where the prologue reads the lines from
        prologue_lines = str(thunder.last_prologue_traces(jread)[0]).splitlines()
        start = next(i for i, line in enumerate(prologue_lines) if "['linecache']" in line)
        print("\n".join(prologue_lines[start:start + 11]))
        print("  ...")
    assert set(lines) <= set(checked)  # every line of the file is a check of the prologue
    assert len(checked) == n + 3 and sorted(set(checked) - set(lines)) == ["", name]  # the name twice, cache_info's ''
    del linecache.cache[name]

print("comparisons, 2,000 lines / 1,000 lines:", round(scans[2] / scans[1], 2),
      "| for 2,000 lines / (2,000 squared / 2):", round(scans[2] / (2000**2 / 2), 3))
print(f"for the {total_lines:,} lines of the traceback's files: about {round(total_lines**2 / 2 / 1e6, 1)} million comparisons")
assert 3.9 < scans[2] / scans[1] < 4.1 and 3.9 < scans[1] / scans[0] < 4.1  # twice the lines, four times the work
assert all(abs(scans[i] / (n**2 / 2) - 1) < 0.02 for i, n in enumerate((500, 1000, 2000)))  # about n squared / 2
# --8<-- [end:tril-mechanism]
