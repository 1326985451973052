"""One parse of a page's HTML for the links, traces and deferred-highlighting passes (shared/page_html.py).

Plain HTML strings, most made by Python-Markdown with the site's code-block extensions: the tokens
are html.parser's, the structure writes the page back byte for byte, and the three passes on one
parse make what each made on its own, reading the HTML once.
"""

from __future__ import annotations

import re
import textwrap
from html.parser import HTMLParser

import markdown
import pytest
import yaml

from thunder_docs.plugins.exec.render import insert_outputs
from thunder_docs.plugins.lazyhighlight import defer as lazy
from thunder_docs.plugins.links.html_links import link_html, link_page
from thunder_docs.plugins.traces.blocks import blocks_of
from thunder_docs.plugins.traces.plugin import mark_blocks, mark_page
from thunder_docs.shared import html_tree, page_html
from thunder_docs.shared.html_tree import each_pre, tokens, tree
from thunder_docs.shared.model import load_site
from thunder_docs.shared.page_html import PageHTML
from thunder_docs.shared.results import CPU, SectionResult
from thunder_docs.shared.trace_map import Line, Name, Trace, TraceMap

EXTENSIONS = ["admonition", "attr_list", "md_in_html", "pymdownx.details", "pymdownx.highlight",
              "pymdownx.superfences", "pymdownx.tabbed", "toc"]
CODE = """\
import thunder
from thunder.core.trace import TraceCtx

jfn = thunder.jit(fn)
traces = thunder.last_traces(jfn)
trc: TraceCtx = traces[-1]
print(trc.bound_symbols, "a < b & c")  # TraceCtx again
"""
MARKDOWN = f"""\
# A page

Prose with `thunder.jit` and `TraceCtx`, then `thunder.jit` again.

```python
{CODE}```

??? note "Folded"

    Inside: `TraceCtx` and `BoundSymbol`.

    ```python
    x = thunder.jit(f)
    ```

=== "One"

    `BoundSymbol` in a tab.

=== "Two"

    `Symbol` in the other.

```text
t0 = ltorch.sin(x)  # t0: "cpu f32[3]"
```
"""


def md_html(text: str = MARKDOWN) -> str:
    return markdown.Markdown(extensions=EXTENSIONS).convert(text)


class _Reference(HTMLParser):
    """html.parser on the whole text, places from getpos(): what shared/html_tree.tokens must equal."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.found = []

    def _add(self, kind, name="", attrs=()):
        self.found.append((kind, name, list(attrs), self.getpos()))

    def handle_starttag(self, tag, attrs):
        self._add("start", tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._add("startend", tag, attrs)

    def handle_endtag(self, tag):
        self._add("end", tag)

    def handle_data(self, data):
        self._add("text")

    def handle_entityref(self, name):
        self._add("ref")

    handle_charref = handle_entityref

    def handle_comment(self, data):
        self._add("other")

    handle_decl = handle_pi = unknown_decl = handle_comment


def reference_tokens(text: str) -> list[tuple]:
    parser = _Reference()
    parser.feed(text)
    parser.close()
    lines = [0] + [m.end() for m in re.finditer("\n", text)]
    starts = [lines[line - 1] + column for *_, (line, column) in parser.found]
    ends = [*starts[1:], len(text)]
    return [(kind, name, tuple(attrs), start, end)
            for (kind, name, attrs, _), start, end in zip(parser.found, starts, ends, strict=True) if end > start]


def as_tuples(toks) -> list[tuple]:
    return [(t.kind, t.name, t.attrs, t.start, t.end) for t in toks]


TRICKY = [
    md_html(),
    "<p>a</p><!-- <pre>not a block</pre> --><pre><code>x &amp; y</code></pre>",  # a <pre> in a comment
    '<div title="<pre>"><pre><code>in an attribute</code></pre></div>',
    "<script>var s = '<pre>';</script><pre><code>after a script</code></pre>",
    "<pre><code><span class='n'>single quotes</span></code></pre>",  # html.parser reads it
    '<pre><code><span title="a &amp; b">an entity in a value</span><br/></code></pre>',
    "<pre><CODE>Upper</CODE></pre><pre><code><!-- a comment --></code></pre>",
    "<pre><code>&#10;&#x41;&lt;&unknown;&notanentity x & y</code></pre>",
    "<pre><code>unclosed",
    "<pre><code>one</code></pre><pre class='x'><pre>nested</pre></pre>",
    '<pre><code><span class="n">ok</span>\n<span\n  class="o">=</span></code></pre><p>&#;</p><pre><code>x</code></pre>',
    "<pre><code><style>p{}</style><textarea><b></textarea></code></pre>",
]


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_tokens_are_html_parser_s(text):
    assert as_tuples(tokens(text)) == reference_tokens(text)


def test_a_page_with_nothing_changed_is_written_back_as_it_was():
    for text in TRICKY:
        page = PageHTML(text)
        for block in page.blocks:
            block.tree()
        assert page.html() == text


FOOLED = {1, 2, 3}  # a <pre> in a comment, an attribute, a script: a string search takes it for a block


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_the_blocks_are_the_pre_elements_each_pass_read(text):
    """each_pre (the string search traces and lazyhighlight used) and the parse find the same blocks,
    <div>s and contents; where a "<pre" is no element, only the elements."""
    found = []
    each_pre(text, lambda pre: found.append((pre.tag, pre.content, pre.classes)))
    parsed = [(b.tag, b.content(), b.classes) for b in PageHTML(text).blocks]
    if TRICKY.index(text) in FOOLED:
        assert parsed == [("<pre>", found[-1][1].rpartition("<pre>")[2], set())]
    elif text.endswith("unclosed"):
        assert not found and parsed == [("<pre>", "<code>unclosed", set())]  # a block to the end, as links read it
    else:
        assert parsed == found


def test_edits_in_prose_and_in_a_block_walked_as_prose_are_written_once():
    page = PageHTML('<p><code>a</code></p><pre><code>b</code></pre><p>c</p>')
    page.replace(3, 17, "<b>A</b>")
    code = page.tokens[page.blocks[0].first]
    page.replace(code.end, code.end + 1, "B")  # inside the block: taken into it when a pass asks for its tree
    assert page.blocks[0].read_tree().html() == "<code>B</code>"
    page.map_prose(lambda html: html.replace(">c<", ">C<"))
    assert page.html() == "<p><b>A</b></p><pre><code>B</code></pre><p>C</p>"


def test_the_next_pass_gets_the_parse_the_last_one_wrote():
    first = page_html.parsed("p.md", md_html())
    link_page(first)
    html = page_html.written("p.md", first)
    assert page_html.last("q.md", html) is None, "another page's HTML"
    assert page_html.last("p.md", html + " ") is None, "HTML a plugin changed in between"
    assert page_html.last("p.md", html) is first
    assert page_html.parsed("p.md", html) is first
    assert page_html.parsed("p.md", html) is not first, "a pass that took it and failed gave nothing back"
    page_html.written("p.md", first)
    page_html.forget()
    assert page_html.last("p.md", html) is None


def test_links_on_the_parse_are_links_on_the_string():
    html = md_html()
    linked = link_html(html)
    assert linked != html and "<autoref" in linked
    page = PageHTML(html)
    link_page(page)
    assert page.html() == linked


# -- the three passes on one parse --------------------------------------------------------------------
SNIPPET = textwrap.dedent("""\
    # --8<-- [start:one]
    import thunder
    jfn = thunder.jit(fn)
    print(thunder.last_traces(jfn)[-1])
    # --8<-- [end:one]
    """)
PRINTED = "\n".join(f"t{k} = ltorch.sin(t{k - 1})  # t{k}: \"cpu f32[3]\"" for k in range(1, 12))


def _page(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "page.py").write_text(SNIPPET)
    (tmp_path / "docs" / "page.md").write_text('# Page\n\n```python\n--8<-- "snippets/page.py:one"\n```\n')
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "markdown_extensions": EXTENSIONS}))
    site = load_site(tmp_path / "mkdocs.yml")
    model = site.pages["page.md"]
    lines = tuple(Line(k, 0, "op", "ltorch.sin", source="snippets/page.py:3",
                       names=(Name(0, len(f"t{k + 1}"), f"t{k + 1}", defines=True),)) for k in range(11))
    result = SectionResult(model.sections[0], PRINTED, "", 0.0, traces=TraceMap((Trace(0, "computation"),), lines))
    site.results.add(CPU, model.path, [result])
    md = markdown.Markdown(extensions=[*EXTENSIONS, "pymdownx.snippets"],
                           extension_configs={"pymdownx.snippets": {"base_path": [str(tmp_path)]}})
    return site, model, md.convert(insert_outputs(site, model, model.body, "cpu"))


def _resolve_autorefs(html: str) -> str:
    """What autorefs does to the page (on_env) between the passes and thunder-lazyhighlight."""
    return re.sub(r'<autoref identifier="([^"]*)"(?: optional)?>(.*?)</autoref>',
                  r'<a class="autorefs autorefs-internal" title="\1" href="../ref/#\1">\2</a>', html, flags=re.S)


def test_the_passes_on_one_parse_make_the_page_each_made_on_its_own(tmp_path, monkeypatch):
    site, model, html = _page(tmp_path)
    blocks = blocks_of(site, model)
    alone = lazy.defer(_resolve_autorefs(mark_page(link_html(html), model, blocks, tmp_path)), 10)

    parses = []
    counted = html_tree.tokens

    def counting(text):
        if len(text) > 200:  # not the <div> start tags each_pre reads
            parses.append(text)
        return counted(text)

    for module in (html_tree, page_html, lazy):
        monkeypatch.setattr(module, "tokens", counting)
    page = page_html.parsed("page.md", html)
    link_page(page, headings=True)
    page = page_html.parsed("page.md", page_html.written("page.md", page))
    mark_blocks(page, model, blocks, tmp_path)
    written = page_html.written("page.md", page)
    layouts = lazy.content_layouts(page_html.parsed("page.md", written))
    together = lazy.defer(_resolve_autorefs(written), 10, layouts)
    assert together == alone
    assert "data-lines=" in together and "data-lazy" in together and 'class="autorefs' in together
    assert parses == [html], "the page's HTML was read more than once"


def test_a_block_changed_other_than_by_autorefs_is_read_again():
    html = md_html()
    page = PageHTML(html)
    link_page(page)
    written = page.html()
    layouts = lazy.content_layouts(PageHTML(written))
    resolved = _resolve_autorefs(written)
    assert lazy.defer(resolved, 5, layouts) == lazy.defer(resolved, 5)
    unresolved = re.sub(r'<autoref identifier="([^"]*)"[^>]*>(.*?)</autoref>', r"[\2][\1]", written, flags=re.S)
    assert lazy.defer(unresolved, 5, layouts) == lazy.defer(unresolved, 5), "an unresolved reference is text"
    changed = resolved.replace('<span class="kn">', '<span class="kn"><b>x</b>', 1)
    assert lazy.defer(changed, 5, layouts) == lazy.defer(changed, 5)
    templated = "<pre>a template's block</pre>" + resolved
    assert lazy.defer(templated, 5, layouts) == lazy.defer(templated, 5), "blocks that are not the parse's"


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_a_block_s_layout_from_its_tree_is_the_layout_from_its_tokens(text):
    page = PageHTML(link_html(text))
    for block in page.blocks:
        content = block.content()
        from_tree = lazy.layout_of_tree(tree(content), len(content))
        assert from_tree is None or from_tree == lazy.layout_of(content), content


COUNTED = [  # plain HTML with at most one <code> element: its layout is counted
    '<span></span><code><span class="kn">import</span> <span class="nn">thunder</span>\n&lt;x&gt; &amp; y</code>',
    '<code class="md-code__content"><a class="autorefs autorefs-internal" title="thunder.jit" href="../#x">'
    '<span class="n">jit</span></a><br></code>',
    "<span>no code element</span> text",
    "<code><span>unbalanced</code>",  # the </code> does not close the <code>: no layout of a <code>
    "<code>unclosed",
]
BY_TOKENS = [  # anything else: read from its tokens
    "</code><code>an end before the start</code>",  # two </code>
    "<code><span class='n'>single quotes</span></code>",
    "<code>a & b</code>",
    "<code><CODE>upper</CODE></code>",
    '<code><span title="a &amp; b">x</span></code>',
    "<code><!-- a comment --></code>",
    "<code><style>p{}</style></code>",
    "<code>one</code><code>two</code>",
    "<code><br/></code>",
]


@pytest.mark.parametrize("content", COUNTED + BY_TOKENS + TRICKY)
def test_a_block_s_counted_layout_is_the_layout_its_tokens_give(content):
    counted = lazy._layout_of_plain(content)
    if content not in TRICKY:
        assert (counted is not None) == (content in COUNTED)
    assert lazy.layout_of(content) == lazy.layout_of_tokens(content, tokens(content), 0, len(content))
    if counted is not None:
        assert counted == lazy.layout_of_tokens(content, tokens(content), 0, len(content))


def test_a_long_block_that_is_not_plain_html_is_found_so_at_once():
    import time
    started = time.perf_counter()
    assert lazy._layout_of_plain("x" * 200_000 + "&") is None  # no backtracking over the text
    assert time.perf_counter() - started < 0.5
