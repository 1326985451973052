"""The Markdown copies' preprocess (plugins/llms/preprocess.py), through mkdocs-llmstxt's own conversion."""

from __future__ import annotations

import pytest
from mkdocs.exceptions import PluginError
from mkdocs_llmstxt._internal.plugin import _generate_page_markdown

from thunder_docs.plugins.diagrams import plugin as diagrams
from thunder_docs.plugins.diagrams.fences import text_id
from thunder_docs.plugins.llms import preprocess

MERMAID = "flowchart LR\n    accTitle: Two boxes\n    accDescr: A box with an arrow to another.\n    a --> b"


def converted(html: str) -> str:
    return _generate_page_markdown(html, should_autoclean=False, preprocess=preprocess.__file__, path="page/index.md",
                                   base_uri="https://example.org/site/", page_uri="page/index.html")


@pytest.fixture
def diagram(monkeypatch):
    monkeypatch.setitem(diagrams.TEXTS, text_id(MERMAID), MERMAID)
    return f'<div class="diagram" data-diagram="{text_id(MERMAID)}"></div>'


def test_a_diagram_placeholder_becomes_its_mermaid_text_in_a_mermaid_fence(diagram):
    assert converted(f"<p>Before.</p>{diagram}<p>After.</p>") == f"Before.\n\n```mermaid\n{MERMAID}\n```\n\nAfter.\n"


def test_a_diagram_the_diagrams_plugin_did_not_find_fails_the_build():
    with pytest.raises(PluginError, match="a diagram thunder-diagrams did not find"):
        converted('<div class="diagram" data-diagram="0123456789abcdef0123"></div>')


def test_a_cross_reference_keeps_its_inline_code():
    assert converted('<p><autoref identifier="thunder.jit"><code>thunder.jit</code></autoref> compiles.</p>') \
        == "`thunder.jit` compiles.\n"


def test_each_tab_keeps_its_label_above_its_block():
    html = ('<div class="tabbed-set tabbed-alternate"><input type="radio"/><input type="radio"/>'
            '<div class="tabbed-labels"><label>CPU (this build)</label><label>CUDA</label></div>'
            '<div class="tabbed-content"><div class="tabbed-block"><p>one</p></div>'
            '<div class="tabbed-block"><p>two</p></div></div></div>')
    assert converted(html) == "**CPU (this build)**\n\none\n\n**CUDA**\n\ntwo\n"


def test_a_bar_in_a_table_cell_stays_in_its_cell():
    html = ("<table><thead><tr><th>Name</th><th>Type</th></tr></thead>"
            "<tbody><tr><td><code>fn</code></td><td><code>None | Callable</code></td></tr></tbody></table>")
    rows = converted(html).splitlines()
    assert rows[2] == "| `fn` | `None \\| Callable` |", rows


def test_a_notebook_cell_loses_its_prompt_copy_button_and_hidden_source_and_keeps_its_languages():
    html = ('<h2 id="a">A<a class="anchor-link" href="#a">¶</a></h2>'
            '<div class="jp-InputPrompt jp-InputArea-prompt">In [1]:</div>'
            '<div class="zeroclipboard-container"><clipboard-copy><span class="notice" hidden="">Copied!</span>'
            '<svg class="clipboard-copy-icon"></svg></clipboard-copy></div>'
            '<div class="highlight-ipynb hl-python"><pre><span class="n">x</span> = 1</pre></div>'
            '<div class="clipboard-copy-txt" id="cell-1">x = 1</div>'
            '<div class="jp-OutputPrompt jp-OutputArea-prompt"></div>'
            '<div class="jp-RenderedText jp-OutputArea-output"><pre>1\n</pre></div>')
    assert converted(html) == "## A\n\n```python\nx = 1\n```\n\n```text\n1\n```\n"


def test_the_plugin_s_own_clean_up_still_runs():
    """mkdocs.yml turns the plugin's autoclean off; the preprocess runs it (permalinks, SVG)."""
    assert converted('<h2 id="b">B<a class="headerlink" href="#b">¶</a></h2><svg><text>x</text></svg>') == "## B\n"


# -- the cache of the copies (thunder-buildcache llms) ------------------------------------------------------
def test_a_copy_is_reused_while_its_html_options_preprocess_and_packages_are_unchanged(tmp_path, monkeypatch):
    from thunder_docs.plugins.buildcache import llms_cache

    made = []

    def generate(html, **options):
        made.append(html)
        return f"copy of {html}"

    code = tmp_path / "pre.py"
    code.write_text("def preprocess(soup, output): pass\n")
    cache = llms_cache.LlmsCache(tmp_path / "store")
    cached = cache.wrap(generate)
    options = {"should_autoclean": False, "preprocess": str(code), "base_uri": "https://a/", "page_uri": "p/index.html"}
    assert cached("<p>x</p>", path="/one/p/index.md", **options) == "copy of <p>x</p>"
    assert cached("<p>x</p>", path="/another/site/p/index.md", **options) == "copy of <p>x</p>"  # path: messages only
    assert (cache.hits, cache.misses) == (1, 1)
    for changed in ({"base_uri": "https://b/"}, {"page_uri": "q/index.html"}, {"should_autoclean": True}):
        cached("<p>x</p>", path="p.md", **(options | changed))
    cached("<p>y</p>", path="p.md", **options)
    code.write_text("def preprocess(soup, output): soup.clear()\n")
    cached("<p>x</p>", path="p.md", **options)
    assert (cache.hits, cache.misses) == (1, 6)
    real = llms_cache.distribution_version
    for package in llms_cache.PACKAGES:
        monkeypatch.setattr(llms_cache, "distribution_version", lambda d, p=package: "9.9.9" if d == p else real(d))
        assert llms_cache.LlmsCache(tmp_path / "store").context != cache.context, package
