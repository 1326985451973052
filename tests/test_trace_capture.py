"""The trace capture (trace_capture.py): each printed trace line maps to the bound symbol that printed it.

The capture runs here in the test's process, as it runs in a page's process: a section's code
is executed with standard output sent to a file, then its output is matched to what was recorded.
"""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

from conftest import ROOT
from thunder_docs.page.capture import Recorder
from thunder_docs.page.normalize import normalize
from thunder_docs.shared.trace_map import TraceMap

CODE = '''
import difflib
import torch
import thunder

def fn(x, y):
    return torch.add(x, y) * 2

jfn = thunder.jit(fn)
jfn(torch.ones(3, 3), torch.ones(3, 3, 3))
traces = thunder.last_traces(jfn)
print(traces[0])
print(traces[-1].python(print_depth=1))
print("not a trace")
print("label:", traces[-1].bound_symbols[2])
print("\\n".join(difflib.unified_diff(str(traces[0]).splitlines(), str(traces[-1]).splitlines(), lineterm="")))
'''


@pytest.fixture(scope="module")
def captured():
    """(namespace, printed output, trace map) of CODE run under the capture."""
    pytest.importorskip("thunder")
    recorder = Recorder(ROOT)
    recorder.start()
    namespace: dict = {}
    with tempfile.TemporaryFile() as out:
        sys.stdout.flush()
        saved, saved_stdout = os.dup(1), sys.stdout
        os.dup2(out.fileno(), 1)
        try:
            with open(1, "w", closefd=False) as sys.stdout:  # as in a page's process: print() writes to fd 1
                exec(compile(CODE, "snippets/capture_test.py", "exec"), namespace)
        finally:
            sys.stdout = saved_stdout
            os.dup2(saved, 1)
            os.close(saved)
        out.seek(0)
        raw = out.read()
    return namespace, normalize(raw.decode(), ROOT).split("\n"), recorder.finish(raw)


def _preorder(bsyms, depth=0, print_depth=-1):
    """(bound symbol, subsymbol depth) of every bound symbol a trace prints, in print order."""
    for bsym in bsyms:
        if print_depth == 0:
            return
        yield bsym, depth
        yield from _preorder(bsym.subsymbols, depth + 1, print_depth - 1)


def _names(proxies) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.name for p in proxies))


def _block(output: list[str], trace_map: TraceMap, first: int, last: int):
    """The op lines of output lines first..last, merged per bound symbol (a symbol may print several lines)."""
    merged = []
    for line in trace_map.lines:
        if first <= line.line <= last and line.kind == "op":
            key = (line.symbol, line.depth, line.defines, line.reads)
            if not merged or merged[-1][1] != key or merged[-1][0] != line.line - 1:
                merged.append([line.line, key])
            else:
                merged[-1][0] = line.line
    return [key for _, key in merged]


def _expected(trc, print_depth=-1):
    return [(str(b.sym.id), depth, _names(b.flat_proxy_outs), _names(b.flat_proxy_args))
            for b, depth in _preorder(trc.bound_symbols, print_depth=print_depth) if b.python(indent=0, print_depth=1)]


def _span(output: list[str], text: str, start: int = 0) -> tuple[int, int]:
    """Where ``text`` (several lines) stands in the output."""
    lines = text.split("\n")
    for i in range(start, len(output)):
        if output[i:i + len(lines)] == lines:
            return i, i + len(lines) - 1
    raise AssertionError(f"not printed: {lines[:2]}")


def test_each_line_maps_to_the_bound_symbol_that_printed_it(captured):
    namespace, output, trace_map = captured
    first, last = namespace["traces"][0], namespace["traces"][-1]
    a, b = _span(output, normalize(str(first), ROOT))
    assert _block(output, trace_map, a, b) == _expected(first)
    c, d = _span(output, normalize(last.python(print_depth=1), ROOT), b + 1)
    assert _block(output, trace_map, c, d) == _expected(last, print_depth=1)


def test_subsymbol_lines_map_to_the_subsymbols(captured):
    namespace, output, trace_map = captured
    first = namespace["traces"][0]
    a, b = _span(output, normalize(str(first), ROOT))
    add = next(bsym for bsym in first.bound_symbols if bsym.sym.name == "add")
    lines = [x for x in trace_map.lines if a <= x.line <= b and x.depth == 1]
    assert [(x.symbol, x.defines, x.reads) for x in lines[:len(add.subsymbols)]] == [
        (str(s.sym.id), _names(s.flat_proxy_outs), _names(s.flat_proxy_args)) for s in add.subsymbols]
    assert all(output[x.line].lstrip().startswith("#") for x in lines)  # printed commented, as subsymbols are


def test_names_are_marked_where_they_stand(captured):
    _, output, trace_map = captured
    for line in trace_map.lines:
        for name in line.names:
            assert output[line.line][name.start:name.end] == name.name
            assert name.name in (*line.defines, *line.reads) or line.kind == "signature"


def test_each_name_has_one_definition_per_trace(captured):
    _, _, trace_map = captured
    defs = [(x.trace, n.name) for x in trace_map.lines for n in x.names if n.defines]
    assert defs and len(defs) == len(set(defs))


def test_source_comments_name_their_line(captured):
    _, output, trace_map = captured
    sources = [x for x in trace_map.lines if x.kind == "source"]
    assert sources and all(output[x.line].lstrip().startswith(f"# {x.source}:") for x in sources)
    assert {x.source for x in sources} == {"snippets/capture_test.py:7"}


def test_output_that_is_not_a_trace_stays_plain(captured):
    _, output, trace_map = captured
    plain = output.index("not a trace")
    assert plain not in {x.line for x in trace_map.lines}


def test_a_labelled_bound_symbol_and_a_diff_map_after_their_prefix(captured):
    namespace, output, trace_map = captured
    by_line = {x.line: x for x in trace_map.lines}
    label = next(i for i, text in enumerate(output) if text.startswith("label: "))
    assert by_line[label].col == len("label: ") and by_line[label].symbol == "add"
    removed = [x for x in trace_map.lines if output[x.line].startswith("-") and x.kind == "op"]
    added = [x for x in trace_map.lines if output[x.line].startswith("+") and x.kind == "op"]
    assert removed and added and all(x.col == 1 for x in removed + added)
    assert {x.symbol for x in removed} >= {"torch.add"} and {x.symbol for x in added} >= {"add"}


def test_the_printed_text_is_what_thunder_prints(captured):
    namespace, _, _ = captured
    from thunder.core.trace import TraceCtx

    trc = namespace["traces"][-1]
    assert TraceCtx.python.__wrapped__ is not TraceCtx.python
    assert str(trc) == TraceCtx.python.__wrapped__(trc, print_depth=-1)


def test_the_walk_holds_every_trace_of_last_traces(captured):
    namespace, _, trace_map = captured
    (walk,) = trace_map.walks
    traces = namespace["traces"]
    assert [s.text for s in walk.steps] == [normalize(str(t), ROOT) for t in traces]
    assert walk.steps[0].title == "" and walk.steps[-1].title == normalize(traces[-1].get_provenance().pss, ROOT)


def test_the_map_survives_the_cache(captured):
    _, _, trace_map = captured
    assert TraceMap.from_json(trace_map.to_json()) == trace_map


def test_a_pass_that_sets_a_plain_string_as_provenance_still_gets_its_step(captured):
    """ConstantFolding sets a str, not a TraceProvenance: the stepper's title is that text."""
    from thunder.core.trace import from_trace

    namespace, _, _ = captured
    trc = from_trace(namespace["traces"][-1])
    trc.bound_symbols = list(namespace["traces"][-1].bound_symbols)
    trc.set_provenance("Constant Folding (took 2 milliseconds)")
    recorder = Recorder(ROOT)
    recorder.start()
    step = recorder._step(trc)
    assert step.title == "Constant Folding (took N milliseconds)"
    assert step.lines
