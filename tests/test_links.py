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


def test_trace_names_that_are_not_linked_are_the_ones_the_reference_index_names():
    """docs/reference/index.md: a trace's `ltorch.X`, `prims.X` and `torch.X` link to where Thunder
    defines X by name; a longer module path, an automatic fallback and a name without a module do not."""
    html = output_block("t0 = torch.nn.functional.gelu(t)\nt1 = ltorch.histc(t0)\nt2 = torch.histc(t0)\n"
                        "t3 = torch_div_prim_impl(t1, t2)\nt4 = torch.add(t3, t3)")
    linked = [a.get_text() for a in BeautifulSoup(link_html(html), "html.parser").select("a")]
    assert linked == ["torch.add"]


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


# -- one link per target: the first mention ----------------------------------------------------------
TRACECTX = '<autoref identifier="thunder.core.trace.TraceCtx"><code>TraceCtx</code></autoref>'


def prose(*names: str) -> str:
    return "<p>" + " and ".join(f"<code>{name}</code>" for name in names) + ".</p>"


def details(inner: str, *, open_: bool = False) -> str:
    return f'<details class="note"{" open" if open_ else ""}><summary>More</summary>{inner}</details>'


def tabs(*blocks: str, checked: int = 0) -> str:
    """A tabbed set as pymdownx.tabbed (alternate style) writes it."""
    buttons = "".join(f'<input {"checked=\"checked\" " if k == checked else ""}id="__tabbed_1_{k + 1}" '
                      f'name="__tabbed_1" type="radio" />' for k in range(len(blocks)))
    labels = "".join(f'<label for="__tabbed_1_{k + 1}">Tab {k + 1}</label>' for k in range(len(blocks)))
    content = "".join(f'<div class="tabbed-block">\n{block}\n</div>\n' for block in blocks)
    return (f'<div class="tabbed-set tabbed-alternate" data-tabs="1:{len(blocks)}">{buttons}'
            f'<div class="tabbed-labels">{labels}</div>\n<div class="tabbed-content">\n{content}</div>\n</div>')


def linked_names(html: str) -> list[str]:
    """The text of each link outside code blocks, in order."""
    soup = BeautifulSoup(html, "html.parser")
    return [a.get_text() for a in soup.select("autoref, a") if not a.find_parent("pre")]


def test_a_name_links_at_its_first_mention_only():
    html = prose("TraceCtx", "ltorch.add") + "<p>Later, <code>TraceCtx</code> and <code>ltorch.add</code> again.</p>"
    linked = link_html(html)
    first, later = linked.split("</p>", 1)
    assert first.startswith("<p>" + TRACECTX) and 'class="thunder-source"' in first
    assert later == "<p>Later, <code>TraceCtx</code> and <code>ltorch.add</code> again.</p>"  # as they were
    assert text_of(linked) == text_of(html)


def test_the_same_target_under_other_names_is_a_later_mention():
    linked = link_html(prose("thunder.dynamo.thunderfx", "thunderfx(fn)", "thunder.dynamo.compiler.thunderfx"))
    assert linked_names(linked) == ["thunder.dynamo.thunderfx"]


def test_different_targets_each_link():
    names = ["TraceCtx", "TraceCtx.python", "BoundSymbol", "ltorch.add", "ltorch.mul", "prims.add"]
    assert linked_names(link_html(prose(*names))) == names


def test_code_blocks_link_every_name_and_leave_prose_its_link():
    """A code block is one Tab stop already: its links are all kept, and are not the prose's mention."""
    html = prose("thunder.last_traces") + PYTHON + PYTHON + prose("thunder.last_traces")
    linked = link_html(html)
    assert linked.count(link_html(PYTHON)) == 2
    assert linked_names(link_html(PYTHON + prose("thunder.last_traces"))) == ["thunder.last_traces"]
    assert linked.endswith(prose("thunder.last_traces"))


def test_links_the_author_wrote_stay_and_count_as_the_mention():
    written = f"<p>A {TRACECTX}, cited: <a href=\"{GITHUB}thunder/core/trace.py#L1-L9\"><code>TraceCtx</code></a>.</p>"
    html = written + written + prose("TraceCtx")
    assert link_html(html) == html
    after = prose("TraceCtx") + written
    assert link_html(after) == TRACECTX.join(prose("TraceCtx").split("<code>TraceCtx</code>")) + written


def test_headings_neither_link_nor_count():
    html = "<h2 id='x'>The <code>TraceCtx</code></h2>" + prose("TraceCtx")
    assert link_html(html) == "<h2 id='x'>The <code>TraceCtx</code></h2><p>" + TRACECTX + ".</p>"


def test_every_sphinx_role_in_a_docstring_stays_a_cross_reference():
    role = ":class:<code>~thunder.core.proxies.TensorProxy</code>"
    html = prose("TensorProxy") + f'<div class="doc doc-contents"><p>{role}, {role}</p></div>'
    assert link_html(html).count('<autoref identifier="thunder.core.proxies.TensorProxy"') == 3


@pytest.mark.parametrize("open_", [False, True], ids=["closed", "open"])
def test_a_mention_in_details_links_again_and_leaves_the_page_its_link(open_):
    """A reader who never opens a ``<details>`` would miss a first link inside it."""
    html = details(prose("BoundSymbol", "BoundSymbol"), open_=open_) + prose("BoundSymbol")
    assert linked_names(link_html(html)) == ["BoundSymbol", "BoundSymbol"]  # one inside, one after
    assert link_html(html).endswith("</details>" + prose("BoundSymbol").replace(
        "<code>BoundSymbol</code>", '<autoref identifier="thunder.core.symbol.BoundSymbol"><code>BoundSymbol</code>'
        "</autoref>"))
    # What the page linked before it is linked for whoever opens it.
    assert linked_names(link_html(prose("BoundSymbol") + details(prose("BoundSymbol")))) == ["BoundSymbol"]


def test_details_stay_a_part_of_their_own_around_code_blocks_and_nesting():
    inner = details(PYTHON + prose("Symbol") + details(prose("Symbol", "Proxy")) + prose("Proxy"))
    # Inside: Symbol, then the nested part's Proxy (Symbol is known), then Proxy again; after: both.
    assert linked_names(link_html(inner + prose("Symbol", "Proxy"))) == ["Symbol", "Proxy", "Proxy", "Symbol", "Proxy"]


def test_tabs_link_their_own_first_mentions_and_the_shown_tab_counts_for_the_page():
    html = tabs(prose("Symbol", "Proxy"), prose("Symbol", "Symbol")) + prose("Symbol", "Proxy", "TraceCtx")
    # tab 1 (shown): Symbol, Proxy; tab 2: Symbol once, not inheriting tab 1's; after: TraceCtx only.
    assert linked_names(link_html(html)) == ["Symbol", "Proxy", "Symbol", "TraceCtx"]
    shown_second = tabs(prose("Symbol"), prose("Proxy"), checked=1) + prose("Symbol", "Proxy")
    assert linked_names(link_html(shown_second)) == ["Symbol", "Proxy", "Symbol"]


def test_output_after_output_in_one_element_is_still_output():
    """An end tag closes its element only: the second output block of a notebook cell is output too."""
    html = '<div class="jp-OutputArea"><pre>a</pre><pre>t = torch.add(x)</pre></div>'
    assert "torchex.py" in link_html(html)


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


def test_the_thunderfx_guide_links_thunder_jit_once_in_prose(built_site):
    article = built_html(built_site, "docs/guides/thunderfx.md").select_one("article")
    links = [a["href"] for a in article.select("a.autorefs") if not a.find_parent("pre")]
    assert [h for h in links if h.endswith("#thunder.jit")] == ["../../reference/thunder/#thunder.jit"]
    plain = [c for c in article.select("code") if c.get_text() == "thunder.jit" and not c.find_parent(["a", "pre"])]
    assert len(plain) > 1


@pytest.mark.parametrize("page", [*PAGES, "docs/tour.ipynb"])
def test_every_cross_reference_resolved(built_site, page):
    """A reference autorefs could not resolve would have failed the strict build; none is left raw."""
    html = SITE.built(built_site, page).read_text(encoding="utf-8")
    assert "<autoref" not in html
    assert not re.search(r"\[<code>[^<]*</code>\]\[", html), "an unresolved cross-reference"
    assert str(ROOT) not in html
