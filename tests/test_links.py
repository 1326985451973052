"""Names in prose, code and printed traces link to the reference or to Thunder's source.

The unit tests feed `thunder_docs.plugins.links.plugin` small pieces of HTML shaped like what Markdown,
Pygments and the exec plugin produce; the last tests read the built site.
"""

import inspect
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from conftest import PAGES, ROOT, SITE, built_html
from thunder_docs.plugins.links.html_links import link_html
from thunder_docs.plugins.links.names import API, resolve
from thunder_docs.plugins.links.plugin import unmark_terms
from thunder_docs.shared.thunder_source import source_of, thunder_version

GITHUB = f"https://github.com/Lightning-AI/lightning-thunder/blob/{thunder_version()}/"


def text_of(html: str) -> str:
    return BeautifulSoup(html, "html.parser").get_text()


def python_block(*tokens: tuple[str, str]) -> str:
    spans = "".join(f'<span class="{cls}">{text}</span>' if cls else text for cls, text in tokens)
    return f'<div class="language-python highlight"><pre><span></span><code>{spans}\n</code></pre></div>'


def output_block(text: str) -> str:
    return f'<div class="language-text exec-output highlight"><pre><span></span><code>{text}\n</code></pre></div>'


TRACE_OUTPUT = output_block(
    't7 = torch.add(x, y, alpha=1)  # t7: &quot;cpu f32[3, 3, 3]&quot;\n'
    '    # t7 = ltorch.add(x, y, alpha=1)  # t7: &quot;cpu f32[3, 3, 3]&quot;\n'
    '      # t6 = prims.broadcast_in_dim(x, (3, 3, 3), (1, 2))'
)
PYTHON = python_block(("n", "t"), ("", " "), ("o", "="), ("", " "), ("n", "ltorch"), ("o", "."), ("n", "add"),
                      ("p", "("), ("n", "x"), ("p", ","), ("", " "), ("n", "y"), ("p", ")"), ("", "\n"),
                      ("n", "traces"), ("", " "), ("o", "="), ("", " "), ("n", "thunder"), ("o", "."),
                      ("n", "last_traces"), ("p", "("), ("n", "jfn"), ("p", ")"), ("", "\n"),
                      ("n", "torch"), ("o", "."), ("n", "add"), ("p", "("), ("n", "x"), ("p", ")"))


@pytest.mark.parametrize("html", [TRACE_OUTPUT, PYTHON], ids=["output", "python"])
def test_links_leave_the_text_unchanged(html):
    """Material's copy button copies the code's text: a link may only wrap existing text."""
    linked = link_html(html)
    assert linked != html
    assert text_of(linked) == text_of(html)


def test_printed_trace_links_each_symbol_to_its_source():
    soup = BeautifulSoup(link_html(TRACE_OUTPUT), "html.parser")
    links = {a.get_text(): a["href"] for a in soup.select("a")}
    assert links == {
        "torch.add": GITHUB + f"thunder/executors/torchex.py#L{source_of('thunder.executors.torchex.add').line}",
        "ltorch.add": GITHUB + f"thunder/torch/__init__.py#L{source_of('thunder.torch.add').line}",
        "prims.broadcast_in_dim": GITHUB + f"thunder/core/prims.py#L{source_of('thunder.core.prims.broadcast_in_dim').line}",
    }


def test_a_link_wraps_whole_pygments_tokens():
    linked = link_html(PYTHON)
    # ltorch . add are three spans: the link wraps all three, so the HTML stays nested.
    assert re.search(r'<a class="thunder-source" href="[^"]+" title="[^"]+"><span class="n">ltorch</span>'
                     r'<span class="o">\.</span><span class="n">add</span></a>', linked)
    assert ('<autoref identifier="thunder.last_traces"><span class="n">thunder</span><span class="o">.</span>'
            '<span class="n">last_traces</span></autoref>') in linked
    # In code you write, torch.add is PyTorch's: no link. In printed traces it is the torch executor's.
    assert "torch</span><span class=\"o\">.</span><span class=\"n\">add</span></a>" not in linked.split("last_traces")[1]


def test_inline_code_in_prose_becomes_a_cross_reference():
    html = ("<p>A <code>TraceCtx</code>, <code>thunder.last_traces(jfn)[-1]</code>, <code>ltorch.add</code>, "
            "<code>trc.names</code> and <code>torch.add</code>.</p>")
    linked = link_html(html)
    assert '<autoref identifier="thunder.core.trace.TraceCtx"><code>TraceCtx</code></autoref>' in linked
    assert '<autoref identifier="thunder.last_traces"><code>thunder.last_traces(jfn)[-1]</code></autoref>' in linked
    assert f'href="{GITHUB}thunder/torch/__init__.py#L' in linked
    assert "<code>trc.names</code>" in linked and linked.endswith("<code>torch.add</code>.</p>")
    assert text_of(linked) == text_of(html)


@pytest.mark.parametrize("html", [
    "<h2 id='x'>The <code>TraceCtx</code></h2>",
    "<p><a href='x'><code>TraceCtx</code></a></p>",
    '<pre class="mermaid"><code>A[TraceCtx] --&gt; B[ltorch.add]</code></pre>',
    '<div class="doc doc-object"><pre><code>TraceCtx</code></pre><p><code>TraceCtx</code></p></div>',
])
def test_no_link_in_headings_links_diagrams_or_reference_entries(html):
    assert link_html(html) == html


def test_sphinx_roles_in_docstrings_become_cross_references():
    html = '<div class="doc doc-contents"><p>is converted to :class:<code>~thunder.core.proxies.TensorProxy</code>.</p></div>'
    assert link_html(html) == ('<div class="doc doc-contents"><p>is converted to <autoref identifier='
                               '"thunder.core.proxies.TensorProxy" optional><code>TensorProxy</code></autoref>.</p></div>')


def test_glossary_marks_are_removed_from_headings():
    html = '<h1 id="t">Your first <abbr title="x">trace</abbr></h1><p>A <abbr title="x">trace</abbr></p>'
    assert unmark_terms(html) == '<h1 id="t">Your first trace</h1><p>A <abbr title="x">trace</abbr></p>'
    assert "<abbr" not in unmark_terms(html, everywhere=True)


@pytest.mark.parametrize("dotted", ["thunder.torch.add", "thunder.torch.mul", "thunder.core.trace.from_trace",
                                    "thunder.last_traces", "thunder.core.symbol.BoundSymbol.from_bsym"])
def test_source_lines_match_inspect(dotted):
    """Lines come from parsing the installed files; they agree with inspect.getsourcelines."""
    import importlib

    module, _, name = dotted.rpartition(".")
    if module.endswith(".BoundSymbol"):
        module, _, cls = module.rpartition(".")
        obj = getattr(getattr(importlib.import_module(module), cls), name)
    else:
        obj = getattr(importlib.import_module(module), name)
    function = getattr(obj, "meta", obj)  # an ltorch Symbol: its meta is the decorated def
    _, line = inspect.getsourcelines(function)
    assert source_of(dotted).line == line


@pytest.mark.parametrize("name", ["add", "broadcast_in_dim", "python_return", "unpack_trivial"])
def test_a_prim_links_to_the_line_that_makes_it(name):
    """A prim is made by an assignment (``add = _make_elementwise_binary_prim(...)``)."""
    import thunder.core.prims as prims

    source = source_of(f"thunder.core.prims.{name}")
    line = Path(prims.__file__).read_text(encoding="utf-8").splitlines()[source.line - 1]
    assert line.startswith(f"{name} = ")


def test_every_api_name_resolves_to_its_entry():
    for identifier, names in API.items():
        for name in (identifier, *names):
            assert resolve(name) == (len(name), resolve(identifier)[1]), name
    assert resolve("torch.add") is None and resolve("torch.add", output=True) is not None
    assert resolve("torch.Size", output=True) is None and resolve("trc.names") is None
    assert resolve("TraceCtx.python")[1].identifier == "thunder.core.trace.TraceCtx.python"
    assert resolve("Symbol.__call__") is None


def test_scripts_and_styles_are_left_alone():
    html = "<script>const s = '<code>TraceCtx</code>';</script><style>pre > code {}</style><p><code>TraceCtx</code></p>"
    linked = link_html(html)
    assert linked.startswith("<script>const s = '<code>TraceCtx</code>';</script><style>pre > code {}</style>")
    assert linked.endswith('<p><autoref identifier="thunder.core.trace.TraceCtx"><code>TraceCtx</code></autoref></p>')


# -- the built site ----------------------------------------------------------------------------
def test_first_trace_page_links_prose_code_and_output(built_site):
    html = built_html(built_site, "docs/first_trace.md")
    prose = {a.get_text(): a["href"] for a in html.select("article p a.autorefs")}
    assert prose["TraceCtx"] == "../reference/trace/#thunder.core.trace.TraceCtx"
    output = html.select("div.exec-output")
    linked = {a.get_text(): a["href"] for block in output for a in block.select("a")}
    assert linked["ltorch.add"].startswith(GITHUB + "thunder/torch/__init__.py#L")
    assert linked["prims.broadcast_in_dim"].startswith(GITHUB + "thunder/core/prims.py#L")
    assert linked["torch.add"].startswith(GITHUB + "thunder/executors/torchex.py#L")
    code = {a.get_text(): a["href"] for block in html.select("div.language-python") for a in block.select("a")}
    assert code["thunder.last_traces"] == "../reference/thunder/#thunder.last_traces"


@pytest.mark.parametrize("page", [*PAGES, "docs/tour.ipynb"])
def test_every_cross_reference_resolved(built_site, page):
    """A reference autorefs could not resolve would have failed the strict build; none is left raw."""
    html = SITE.built(built_site, page).read_text(encoding="utf-8")
    assert "<autoref" not in html
    assert not re.search(r"\[<code>[^<]*</code>\]\[", html), "an unresolved cross-reference"
    assert str(ROOT) not in html
