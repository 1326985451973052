"""Sharp edges: Python side effects run at trace time, the interpreter log, and what
thunder.examine says about operations Thunder does not support."""

# --8<-- [start:print]
import contextlib
import io

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
# --8<-- [end:auto-registered]
