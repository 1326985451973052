"""Output and code blocks are found by their identifier from render to markup (shared/block_ids.py).

The real path minus execution: the page's Markdown gets its output blocks from
``render.insert_outputs`` (results made here, as a page's process would send them), Python-Markdown
makes the HTML with the site's extensions, and ``mark_page`` marks it up.
"""

from __future__ import annotations

import re
import textwrap

import markdown
import pytest
import yaml
from mkdocs.exceptions import PluginError

from thunder_docs.plugins.exec.render import insert_outputs
from thunder_docs.plugins.traces.blocks import blocks_of
from thunder_docs.plugins.traces.plugin import mark_page
from thunder_docs.shared.model import load_site
from thunder_docs.shared.results import CPU, SectionResult
from thunder_docs.shared.trace_map import Line, Trace, TraceMap

SNIPPET = textwrap.dedent("""\
    # --8<-- [start:one]
    print("t0 = ltorch.sin(x)")
    # --8<-- [end:one]
    # --8<-- [start:two]
    print("t1 = ltorch.cos(t0)")
    # --8<-- [end:two]
    """)
PRINTED = {"one": "t0 = ltorch.sin(x)", "two": "t1 = ltorch.cos(t0)"}
CODE_LINE = {"one": 2, "two": 5}
INCLUDE = '```python\n--8<-- "snippets/page.py:{}"\n```\n'
EXTENSIONS = ["admonition", "attr_list", "pymdownx.highlight", "pymdownx.superfences"]


def _site(tmp_path, page: str):
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets" / "page.py").write_text(SNIPPET)
    (tmp_path / "docs" / "page.md").write_text(page)
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "markdown_extensions": EXTENSIONS}))
    site = load_site(tmp_path / "mkdocs.yml")
    model = site.pages["page.md"]
    results = []
    for section in model.sections:
        line = Line(0, 0, "op", "ltorch.sin", source=f"snippets/page.py:{CODE_LINE[section.name]}")
        results.append(SectionResult(section, PRINTED[section.name], "", 0.0,
                                     traces=TraceMap((Trace(0, "computation"),), (line,))))
    site.results.add(CPU, model.path, results)
    return site, model


def _html(tmp_path, site, model, text: str | None = None) -> str:
    md = markdown.Markdown(extensions=[*EXTENSIONS, "pymdownx.snippets"],
                           extension_configs={"pymdownx.snippets": {"base_path": [str(tmp_path)]}})
    return md.convert(text if text is not None else insert_outputs(site, model, model.body, "cpu"))


def _mark(tmp_path, page: str, edit=None) -> str:
    site, model = _site(tmp_path, page)
    html = _html(tmp_path, site, model)
    return mark_page(edit(html) if edit else html, model, blocks_of(site, model), tmp_path)


def test_every_block_is_marked_up_when_another_output_like_block_sits_before_it(tmp_path):
    """An admonition around an include and a block between includes shift nothing: both outputs get
    their line maps and both code lines their ids."""
    page = ("# Page\n\n!!! note\n\n    " + INCLUDE.format("one").replace("\n", "\n    ") + "\n"
            "```text\nnot an output\n```\n\n" + INCLUDE.format("two"))
    marked = _mark(tmp_path, page)
    assert marked.count("data-lines=") == 2
    assert 'id="src-page-2"' in marked and 'id="src-page-5"' in marked


def test_a_hand_written_output_block_fails_the_build(tmp_path):
    """A fence of printed output that the build did not write (with the class exec-output) fails,
    naming the page; by position it would have taken the first include's trace map."""
    page = "# Page\n\n``` { .text .exec-output }\nt0 = ltorch.sin(x)\n```\n\n" + INCLUDE.format("one")
    with pytest.raises(PluginError, match=r"docs/page\.md: an output block that the build did not write .*t0 = ltorch"):
        _mark(tmp_path, page)


def test_an_output_block_whose_text_changed_fails_naming_page_and_section(tmp_path):
    page = "# Page\n\n" + INCLUDE.format("one") + "\n" + INCLUDE.format("two")
    with pytest.raises(PluginError, match=r"docs/page\.md: section 'two' \(snippets/page\.py:5\): its output block "
                                          r"in the page's HTML does not hold what the code printed"):
        _mark(tmp_path, page, lambda html: html.replace("<code>t1 = ltorch.cos", "<code>t1 = ltorch.tan"))


def test_a_block_dropped_on_the_way_fails_naming_it(tmp_path):
    page = "# Page\n\n" + INCLUDE.format("one") + "\n" + INCLUDE.format("two")
    with pytest.raises(PluginError, match=r"section 'two' .*its output block \(data-exec-block=\"out-1\"\) is not in"):
        _mark(tmp_path, page, lambda html: re.sub(r'<div [^>]*data-exec-block="out-1".*?</div>', "", html, flags=re.S))


def test_a_code_block_whose_text_changed_fails(tmp_path):
    page = "# Page\n\n" + INCLUDE.format("one")
    with pytest.raises(PluginError, match=r"section 'one' .*its code block in the page's HTML does not show"):
        _mark(tmp_path, page, lambda html: html.replace("print", "input", 1))
