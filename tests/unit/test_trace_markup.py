"""Where a printed source comment's link goes (shared/trace_markup.py: source_link_at), one
decision for the site's output blocks and the explorer's."""

from __future__ import annotations

from thunder_docs.shared.trace_map import Line
from thunder_docs.shared.trace_markup import source_link_at

ANCHORS = {"src-guides-pipeline-13"}


def test_a_source_comment_links_the_path_it_names_to_that_lines_anchor():
    printed = "  # snippets/guides/pipeline.py:13: \tc = a * b\n"
    line = Line(4, 0, "source", source="snippets/guides/pipeline.py:13", col=0)
    at, end, opening = source_link_at(printed, line, ANCHORS)
    assert printed[at:end] == "snippets/guides/pipeline.py:13"
    assert opening == '<a class="tsrc" href="#src-guides-pipeline-13" title="The line of the code above">'


def test_no_link_without_an_anchor_a_named_line_or_a_source_comment():
    printed = "  # snippets/guides/pipeline.py:13: \tc = a * b\n"
    assert source_link_at(printed, Line(4, 0, "source", source="snippets/guides/pipeline.py:13"), set()) is None
    assert source_link_at("  # elsewhere\n", Line(4, 0, "source", source="snippets/guides/pipeline.py:13"), ANCHORS) is None
    assert source_link_at(printed, Line(4, 0, "op", source="snippets/guides/pipeline.py:13"), ANCHORS) is None


def test_a_thunderfx_comment_links_to_the_line_fx_recorded():
    printed = "  # <eval_with_key>.3:7: \ty = torch.sin(x)\n"
    line = Line(2, 0, "source", source="snippets/guides/pipeline.py:13")
    at, end, opening = source_link_at(printed, line, ANCHORS)
    assert printed[at:end] == "<eval_with_key>.3:7" and "FX recorded" in opening
