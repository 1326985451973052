"""(d) The strict build succeeds, and each page embeds what its code really printed."""

import pytest

from conftest import PAGES_WITH_CODE, ROOT, built_html, includes_of, snippet_of, standalone_output


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_page_embeds_the_output_its_snippet_prints(built_site, page):
    html = built_html(built_site, page)
    # CUDA tabs show output made elsewhere; the CPU output is what the snippet prints here.
    outputs = [block.find("code").get_text() for block in html.select("div.exec-output:not(.exec-cuda)")]
    assert outputs, f"{page}: no executed output in the built page"
    snippet = snippet_of(page)
    embedded = "\n".join(o.rstrip("\n") for o in outputs)
    assert embedded == standalone_output(snippet), (
        f"{page}: the outputs on the page differ from `python {snippet}` "
        "(sections must appear on the page in file order)"
    )


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_page_shows_the_code_of_its_sections(built_site, page):
    html = built_html(built_site, page)
    shown = [b.find("code").get_text().rstrip("\n")
             for b in html.select("div.highlight") if "exec-output" not in b.get("class", [])
             and b.find_parent(class_="mermaid") is None and b.find("code") is not None]
    expected = [inc.code for inc in includes_of(page)]
    assert [s for s in shown if s in expected] == expected, f"{page}: shown code differs from its sections"


def test_first_trace_page_holds_a_real_trace(built_site):
    text = built_html(built_site, "docs/first_trace.md").get_text()
    assert "# Constructed by Unwrap the actual return value" in text
    assert "snippets/first_trace.py:10:" in text  # repo-relative source-line comments
    assert str(ROOT) not in text  # never an absolute path of this machine
