"""Every printed trace on the built site is interactive (thunder-traces), and the markup only wraps text.

A block's lines and names are marked up in the browser from the block's line map
(``data-lines``, made at build time); these tests read the map against the printed text.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest
from bs4 import BeautifulSoup

from conftest import PAGES_WITH_CODE, SITE, built_html
from thunder_docs.plugins.traces.plugin import SCRIPT, STYLESHEET

# A line that only a printed trace (or bound symbol) prints, after an optional diff prefix: an
# operation with its output's annotation, an annotation of a name, a del, a trace's signature.
# This is how the test recognizes a trace block on its own, without the build's trace maps.
TRACE_LINE = re.compile(r'^[-+ ]?\s*(?:# )?(?:\w+(?:, \w+)*,? = [\w.]+\(.*\)  # \w+: "[^"]*"'
                        r'|\w+: "[^"]*"|del \w+(?:, \w+)*|def \w+\(.*\):)$')
GZIP_BUDGET = 15 * 1024  # the script and the stylesheet together, gzip-compressed


PAGES_AND_NOTEBOOKS = [*PAGES_WITH_CODE, *(nb.path for nb in SITE.notebooks.values())]


def _trace_blocks(html):
    """(block's <code>, its trace-looking lines) of each output block that prints a trace: the
    build's output blocks, and a notebook's outputs (a <pre> without <code>)."""
    for div in html.select("div.exec-output, div.jp-OutputArea-output"):
        code = div.find("code") or div.find("pre")
        if code is None:
            continue
        lines = [ln for ln in code.get_text().split("\n") if TRACE_LINE.match(ln)]
        if any(not ln.lstrip(" +-").startswith("def ") for ln in lines):  # more than a def line (a log's)
            yield code, lines


def _mapped(code):
    """(printed line, its row of the line map) for each line the block's map covers."""
    printed = code.get_text().split("\n")
    return [(printed[row["l"]], row) for row in json.loads(code.get("data-lines", "[]")) if row["l"] < len(printed)]


def _line_of(code, element) -> int:
    """The printed line of the block an element starts on."""
    before = 0
    for piece in code.descendants:
        if piece is element:
            break
        if isinstance(piece, str):
            before += piece.count("\n")
    return before


def test_every_printed_trace_is_interactive(built_site, capsys):
    total = interactive = 0
    problems = []
    for page in PAGES_AND_NOTEBOOKS:
        for code, lines in _trace_blocks(built_html(built_site, page)):
            total += 1
            marked = {text for text, _ in _mapped(code)}
            missing = [ln for ln in lines if ln not in marked]
            if code.has_attr("data-traces") and not missing:
                interactive += 1
            else:
                problems.append(f"{page}: {len(missing)} trace lines not marked, first {missing[:1]}")
    with capsys.disabled():
        print(f"\ntrace blocks: {total}, interactive: {interactive}")
    assert total >= 30, f"only {total} trace blocks found: the pattern no longer recognizes printed traces"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES_AND_NOTEBOOKS)
def test_names_carry_their_proxy_and_the_definition_is_marked(built_site, page):
    for code, _ in _trace_blocks(built_html(built_site, page)):
        mapped = _mapped(code)
        assert mapped and not code.select(".tp, .tl"), f"{page}: the block is not left for the script to mark up"
        defined = set()
        for text, row in mapped:
            for start, name, *definition in row.get("n", []):
                assert text[start:start + len(name)] == name, f"{page}: {name} is not at column {start} of {text!r}"
                if definition:
                    defined.add(name)
        for _, row in mapped:
            for proxy in row.get("o", "").split():
                assert proxy in defined, f"{page}: {proxy} has no definition"


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_source_comments_link_to_the_line_of_the_code_on_the_page(built_site, page):
    html = built_html(built_site, page)
    sources = {}  # a link -> the source its line's row of the map names
    for code, _ in _trace_blocks(html):
        rows = {row["l"]: row for _, row in _mapped(code)}
        sources.update({id(link): rows.get(_line_of(code, link), {}).get("s") for link in code.select("a.tsrc")})
    for link in html.select("a.tsrc"):
        target = html.find(id=link["href"].removeprefix("#"))
        assert target is not None and "sl" in target["class"], f"{page}: {link['href']} has no target"
        assert target["data-src"] == sources.get(id(link)), f"{page}: {link.get_text()} links elsewhere than its line"
        if not link.get_text().startswith("<eval_with_key>"):  # ThunderFX's comments name FX's code
            path, _, number = link.get_text().rpartition(":")
            assert target["data-src"] == f"{path}:{number}"
        lines = SITE.page(page).includes  # the target is a line of the code the page shows
        assert any(target.get_text() in inc.code.split("\n") for inc in lines)


def test_every_source_comment_is_a_link(built_site):
    for page in PAGES_WITH_CODE:
        for code, _ in _trace_blocks(built_html(built_site, page)):
            linked = {_line_of(code, link) for link in code.select("a.tsrc")}
            for text, row in _mapped(code):
                if row.get("k") == "source" and row["s"].startswith("snippets/"):  # a line of the code this page shows
                    assert row["l"] in linked, f"{page}: {text!r} is not linked"


def test_thunderfx_trace_lines_link_to_the_users_line_that_fx_recorded(built_site):
    """A ThunderFX trace's source comments name FX's code (<eval_with_key>.N:L); each links to
    the line of the snippet that FX recorded in the node's stack trace."""
    html = built_html(built_site, "docs/guides/thunderfx.md")
    comments = []  # (printed comment, the source its row names, its link)
    for code, _ in _trace_blocks(html):
        links = {_line_of(code, link): link for link in code.select("a.tsrc")}
        comments += [(text, row["s"], links.get(row["l"])) for text, row in _mapped(code)
                     if row.get("k") == "source" and "<eval_with_key>" in text]
    assert len(comments) >= 5
    for text, source, link in comments:
        assert link is not None and link.get_text().startswith("<eval_with_key>"), text
        target = html.find(id=link["href"].removeprefix("#"))
        assert source.startswith("snippets/guides/thunderfx.py:") and target["data-src"] == source
    by_text = {text.split(":", 2)[-1].strip(): source for text, source, _ in comments}
    for code, src in by_text.items():  # FX's line of code, and the user's line it came from
        user_line = html.find(class_="sl", attrs={"data-src": src}).get_text()
        called = re.match(r"\w+ = (?:torch\.)?(\w+)\(|\w+ = \w+\.(\w+)\(", code)
        if called:  # "add = sum_1 + sum_2" calls nothing by name
            assert (called.group(1) or called.group(2)) in user_line, (code, user_line)


def test_the_script_loads_only_on_pages_with_trace_blocks_or_code_with_links(built_site):
    for page in [*SITE.pages.values(), *SITE.notebooks.values()]:
        html = SITE.built(built_site, page.path).read_text(encoding="utf-8")
        soup = BeautifulSoup(html, "html.parser")
        has_blocks = " data-traces=" in html or any(pre.find("a", href=True) for pre in soup.find_all("pre"))
        assert (SCRIPT.rpartition("/")[2] in html) == has_blocks, page.path
        assert (STYLESHEET.rpartition("/")[2] in html) == has_blocks, page.path


def test_the_script_and_stylesheet_are_small(built_site):
    size = sum(len(gzip.compress((built_site / uri).read_bytes(), 9)) for uri in (SCRIPT, STYLESHEET))
    assert size <= GZIP_BUDGET, f"thunder-traces.js and .css weigh {size} bytes gzip-compressed"


def test_the_pipeline_page_has_a_stepper_over_every_trace(built_site):
    import json

    html = built_html(built_site, "docs/guides/pipeline.md")
    (code,) = html.select("code[data-walk-src]")  # the traces are in a file beside the page
    assert not html.select("[data-walk]")
    steps = json.loads((SITE.built(built_site, "docs/guides/pipeline.md").parent / code["data-walk-src"]).read_text())
    assert len(steps) == 7 and steps[0]["title"] == ""
    assert [s["same"] for s in steps] == [False, False, True, True, False, True, False]
