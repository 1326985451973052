"""plugins/diagrams/svg.compact: what it drops and what it keeps of a drawn SVG."""

from __future__ import annotations

from thunder_docs.plugins.diagrams.svg import compact, role


def test_compact_drops_what_no_browser_reads_and_keeps_the_drawing():
    svg = ('<svg aria-roledescription="flowchart-v2" viewBox="0 0 100.123456 50.5" data-id="x">'
           '<defs><marker id="used"><path d="M0 0"/></marker><marker id="unused"><path d="M1 1"/></marker></defs>'
           '<path d="M 1.23456 2.5 L 3.999 4" marker-end="url(#used)" style=""/>'
           '<text font-weight=""><tspan font-style="normal" class="text-inner-tspan">two</tspan>'
           '<tspan font-style="normal" class="text-inner-tspan"> words</tspan></text>'
           '<text>&amp;#95;&amp;#95;init&amp;#95;&amp;#95; -&amp;gt;</text></svg>')
    out = compact(svg)
    assert 'data-id' not in out and 'font-weight=""' not in out and 'style=""' not in out
    assert 'id="used"' in out and 'id="unused"' not in out  # a marker nothing points to goes
    assert 'viewBox="0 0 100.12 50.5"' in out and 'd="M 1.23 2.5 L 4 4"' in out
    assert "<text>two words</text>" in out  # one text node per line of a label
    assert "<text>__init__ -&gt;</text>" in out  # entities shown as typed become their characters
    assert role(out) == "flowchart-v2"
