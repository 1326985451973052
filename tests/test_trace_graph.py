"""Dataflow graphs drawn from trace objects (``<!-- exec: graph=... -->``, trace_graph.py)."""

import re

import pytest

from thunder_docs.page.graph import mermaid

torch = pytest.importorskip("torch")
thunder = pytest.importorskip("thunder")


def fn(x, y):
    return torch.add(x, y).sin()


@pytest.fixture(scope="module")
def traces():
    jfn = thunder.jit(fn)
    jfn(torch.ones(2, 3), torch.ones(2, 3))
    return thunder.last_traces(jfn)


def parse(text: str):
    nodes = dict(re.findall(r'^    (n\d+|in\d+)\["([^"]*)"\]', text, re.M))
    edges = re.findall(r'^    (\w+) -->(?:\|"([^"]*)"\|)? (\w+)$', text, re.M)
    return nodes, edges


def test_each_line_is_a_node_and_each_read_an_edge_from_its_maker(traces):
    trc = traces[-1]
    nodes, edges = parse(mermaid(trc, "traces[-1]"))
    shown = [b for b in trc.bound_symbols if b.sym.name != "python_del"]
    assert len(nodes) == len(shown)
    made_by = {p.name: f"n{i}" for i, b in enumerate(trc.bound_symbols) for p in b.flat_proxy_outs}
    expected = {(made_by[p.name], f"n{i}") for i, b in enumerate(trc.bound_symbols)
                if b.sym.name != "python_del" for p in b.flat_proxy_args}
    assert {(a, b) for a, _, b in edges} == expected
    labels = [label for _, label, _ in edges if label]
    assert sorted(label.split(":")[0] for label in labels) == sorted(
        {p.name for b in shown for p in b.flat_proxy_args}), "each value is labelled once"
    for a, label, _ in edges:
        if label:
            assert made_by[label.split(":")[0]] == a and re.fullmatch(r"\w+: f32\[2, 3\]", label), label


def test_labels_are_the_printed_lines(traces):
    trc = traces[0]
    nodes, _ = parse(mermaid(trc, "traces[0]"))
    printed = str(trc)
    for label in nodes.values():
        if label not in ("return", "x", "y"):
            assert re.search(rf"^\s*{re.escape(label)}\(", printed, re.M), label


def test_a_region_shows_its_subsymbols_with_its_inputs(traces):
    add = next(b for b in traces[0].bound_symbols if b.sym.name == "add")
    nodes, edges = parse(mermaid(add, "add"))
    assert [v for k, v in nodes.items() if k.startswith("in")] == [p.name for p in add.flat_proxy_args]
    assert len([k for k in nodes if k.startswith("n")]) == len(add.subsymbols)


def test_something_else_is_refused():
    with pytest.raises(TypeError, match="not a trace, a bound symbol or a ThunderFX SubgraphInfo"):
        mermaid(42, "x")


def test_a_bad_graph_expression_fails_the_build_naming_page_and_section(throwaway):
    snippet = '# --8<-- [start:a]\nx = 1\nprint("x is", x)\n# --8<-- [end:a]\n'
    page = '# Page\n\n<!-- exec: graph=no_such_trace -->\n```python\n--8<-- "snippets/page.py:a"\n```\n'
    log = throwaway.write({"snippets/page.py": snippet, "docs/page.md": page}).failed_build()
    assert "docs/page.md: section 'a'" in log and "graph=no_such_trace: NameError" in log
