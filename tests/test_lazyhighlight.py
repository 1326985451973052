"""Large code blocks load as plain text, their highlighted HTML kept in a <noscript> (thunder-lazyhighlight).

The unit tests feed `defer` small pages shaped like Pygments' blocks; the last tests read the
built site: every deferred block's text is its highlighted text, character for character.
"""

import re
from pathlib import Path

import material
import pytest
from bs4 import BeautifulSoup

from conftest import PAGES, SITE
from thunder_docs.plugins.lazyhighlight.defer import NOSCRIPT_STYLE, PLAIN_CLASS, PLAIN_SPANS, defer, plain_text

MATERIAL_CSS = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"


def block(spans: int, pre_attrs: str = ' id="__code_0"', code_attrs: str = "", extra: str = "") -> str:
    inner = "".join(f'<span class="n">x{i}</span> &lt;<span class="o">=</span>\n' for i in range(spans))
    return (f'<div class="language-python highlight"><pre{pre_attrs}><span></span>'
            f'<code{code_attrs}>{inner}{extra}</code></pre></div>')


def parts(page: str):
    soup = BeautifulSoup(page, "html.parser")
    return soup.select_one(f"pre.{PLAIN_CLASS} > code"), soup.select_one("noscript > pre")


def test_a_large_block_becomes_its_text_and_keeps_its_highlighting_in_a_noscript():
    original = block(8)
    page = defer("<p>before</p>" + original + "<p>after</p>", min_elements=10)
    plain, kept = parts(page)
    assert plain is not None and plain.has_attr("data-lazy") and not plain.find(True)
    assert plain.get_text() == BeautifulSoup(original, "html.parser").get_text()
    assert "&lt;" in page.split("<noscript>")[0], "the text keeps its character references"
    assert kept is not None and kept.find("span", class_="o") and not kept.has_attr("id")
    assert not kept.find("span", class_="n"), "a name's span, drawn as plain text, is left out"
    assert kept.code.get_text() == BeautifulSoup(original, "html.parser").code.get_text()
    assert page.startswith("<p>before</p>") and page.endswith("</noscript></div><p>after</p>")


def test_small_blocks_trace_blocks_and_unsafe_blocks_are_left_alone():
    small = block(4)  # 8 elements
    assert defer(small, min_elements=10) == small
    trace = block(8, code_attrs=' data-traces="[]"')
    assert defer(trace, min_elements=10) == trace
    unsafe = block(8, extra='<span title="&lt;/noscript&gt;"></span><!-- </noscript> -->')
    assert defer(unsafe, min_elements=10) == unsafe


def test_a_block_with_links_says_so_and_deferring_twice_changes_nothing():
    linked = block(8, extra='<a class="autorefs" href="../x/#y">y</a>')
    once = defer(linked, min_elements=10)
    plain, kept = parts(once)
    assert plain.has_attr("data-links") and kept.find("a", href="../x/#y")
    assert defer(once, min_elements=10) == once


def cell(spans: int, extra: str = "") -> str:
    """A notebook's code cell as mkdocs-jupyter writes it: the spans right inside the <pre>."""
    inner = "".join(f'<span class="n">x{i}</span><span class="w"> </span><span class="o">=</span>\n' for i in range(spans))
    return f'<div class="highlight-ipynb hl-python" tabindex="0"><pre><span></span>{inner}{extra}</pre></div>'


def test_a_notebook_cell_defers_its_pre_and_keeps_every_span():
    """The notebook's stylesheet colours whitespace, so its kept copy keeps every span."""
    original = cell(4)
    page = defer(original, min_elements=10)
    soup = BeautifulSoup(page, "html.parser")
    plain, kept = soup.select_one(f"div.highlight-ipynb > pre.{PLAIN_CLASS}"), soup.select_one("noscript > pre")
    assert plain is not None and plain.has_attr("data-lazy") and not plain.has_attr("data-links")
    assert not plain.find(True) and plain.get_text() == BeautifulSoup(original, "html.parser").pre.get_text()
    assert kept is not None and kept.has_attr("data-kept")
    del kept["data-kept"]
    assert str(kept) == str(BeautifulSoup(original, "html.parser").pre), "the kept cell is the cell as it was"
    assert defer(page, min_elements=10) == page


def test_a_notebook_cell_with_links_says_so_and_a_pre_outside_a_cell_without_code_is_left_alone():
    linked = defer(cell(4, extra='<a class="autorefs" href="../x/#y">y</a>'), min_elements=10)
    assert BeautifulSoup(linked, "html.parser").select_one("pre[data-lazy]").has_attr("data-links")
    bare = '<div class="jp-RenderedText"><pre>' + "<span>a</span>" * 20 + "</pre></div>"
    assert defer(bare, min_elements=10) == bare
    small = cell(2)  # 7 elements
    assert defer(small, min_elements=10) == small


def test_the_spans_left_out_are_drawn_as_the_code_around_them():
    """Material colours Pygments' names with --md-code-hl-name-color, which both schemes set to the
    code's own colour, and gives whitespace tokens no rule: leaving their spans out changes nothing."""
    sheets = {p.name: p.read_text(encoding="utf-8") for p in MATERIAL_CSS.glob("*.min.css")}
    css = "".join(sheets.values())
    assert re.search(r"\.highlight \.kc,\.highlight \.n\{color:var\(--md-code-hl-name-color\)\}", css)
    assert set(re.findall(r"--md-code-hl-name-color:([^;}]+)", css)) == {"var(--md-code-fg-color)"}
    assert not re.search(r"\.highlight \.w[,{ ]", css), "Material styles whitespace tokens now"
    assert PLAIN_SPANS == ("n", "w")


def test_plain_text_is_the_text_and_the_references_of_the_html():
    assert plain_text('<span class="s">&quot;a&quot;</span> <a href="#x">b</a>&#10;') == "&quot;a&quot; b&#10;"


def test_the_plugin_adds_the_style_that_shows_the_kept_block_without_scripting():
    assert NOSCRIPT_STYLE.startswith("<noscript><style>") and f"pre.{PLAIN_CLASS}" in NOSCRIPT_STYLE


# -- the built site ------------------------------------------------------------------------------
@pytest.mark.parametrize("page", PAGES)
def test_every_deferred_block_shows_the_text_of_its_highlighted_html(built_site, page):
    text = SITE.built(built_site, page).read_text(encoding="utf-8")
    soup = BeautifulSoup(text, "html.parser")
    deferred = soup.select("pre > code[data-lazy], pre[data-lazy]")  # a code block, a notebook's cell
    for code in deferred:
        pre = code if code.name == "pre" else code.find_parent("pre")
        kept = pre.find_next_sibling()
        assert kept is not None and kept.name == "noscript", f"{page}: a deferred block without its highlighting"
        original = BeautifulSoup(kept.decode_contents(), "html.parser").find(code.name)
        assert code.get_text() == original.get_text(), f"{page}: a deferred block's text differs from its highlighting"
        assert code.has_attr("data-links") == bool(original.find("a", href=True))
    if deferred:
        assert NOSCRIPT_STYLE in text and "thunder-lazyhighlight.js" in text
    ids = re.findall(r'\sid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), f"{page}: an id twice: {sorted(i for i in set(ids) if ids.count(i) > 1)}"


def test_the_tour_s_stylesheet_colours_whitespace_so_its_kept_cells_keep_those_spans(built_site):
    """Why a notebook cell's kept copy keeps every span: the notebook's Pygments rules colour `w`."""
    tour = SITE.built(built_site, "tour.ipynb").read_text(encoding="utf-8")
    assert re.search(r"\.highlight-ipynb \.w \{ color: [^}]+\}", tour), "the tour no longer colours whitespace tokens"
    soup = BeautifulSoup(tour, "html.parser")
    kept = soup.select("noscript > pre[data-kept]")
    assert kept and any(k.find("span", class_="w") for k in kept), "the kept cells hold no whitespace span"


def test_the_largest_pages_defer_most_of_their_code(built_site):
    """The point of it: the page that shows the most code loads a fraction of its code's elements."""
    counts = {}
    for page in PAGES:
        soup = BeautifulSoup(SITE.built(built_site, page).read_text(encoding="utf-8"), "html.parser")
        live = sum(len(c.find_all(True)) for c in soup.select("pre > code") if not c.find_parent("noscript"))
        kept = sum(len(c.find_all(True)) for c in soup.select("noscript > pre > code"))
        counts[page] = (live, kept)
    page, (live, kept) = max(counts.items(), key=lambda kv: sum(kv[1]))
    assert kept > 4 * live, f"{page}: {live} elements of code load, {kept} wait in <noscript>"
