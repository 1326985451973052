"""The markup of an interactive trace block, and the script and stylesheet that bring it to life
(``assets/``): one implementation for the site (``plugins/traces/plugin.py``) and the explorer
(``explain/page.py``), which imports no MkDocs module, so it lives here rather than in the plugin.

- The block's attributes: its traces, the map of its lines and names (``line_map``), whether it folds.
- The pass stepper's data: each trace of a walk through ``last_traces``, with the lines a pass
  added and removed marked (``<!-- exec: stepper -->``; thunder-traces.js shows it).
- The source links: where a source comment's link goes, and the id of the line it goes to.
"""

from __future__ import annotations

import difflib
import html
import json
import re
from pathlib import Path

from thunder_docs.shared.trace_map import Line, Step, Trace, TraceMap, Walk

ASSETS = Path(__file__).parent / "assets"
SCRIPT_FILE = ASSETS / "thunder-traces.js"  # makes the blocks interactive: on the site, and inlined by the explorer
STYLESHEET_FILE = ASSETS / "thunder-traces.css"

MARK = "data-traces"  # on the <code> (or <pre>) of every interactive block: the page needs the script
LINES = "data-lines"  # beside it: the map of its trace lines and names (line_map)


def walk_json(walk: Walk) -> list[dict]:
    """Each trace of the walk as the stepper shows it: its lines, those the pass added or removed marked."""
    steps = []
    previous: Step | None = None
    for step in walk.steps:
        body = _body(step)
        lines = _step_lines(step)
        if previous is None:
            shown = [("", x) for x in lines]
        else:
            before, old = _body(previous), _step_lines(previous)
            skip_old, skip_new = len(old) - len(before), len(lines) - len(body)
            shown = [("", x) for x in lines[:skip_new]]
            matcher = difflib.SequenceMatcher(None, before, body, autojunk=False)
            for op, a1, a2, b1, b2 in matcher.get_opcodes():
                if op == "equal":
                    shown += [("", x) for x in lines[skip_new + b1:skip_new + b2]]
                    continue
                shown += [("del", x) for x in old[skip_old + a1:skip_old + a2]]
                shown += [("add", x) for x in lines[skip_new + b1:skip_new + b2]]
        same = previous is not None and _body(previous) == body
        steps.append({"title": step.title, "same": same, "traces": [trace_json(step.trace)],
                      "html": "".join(_step_line_html(mark, text, line) for mark, (text, line) in shown)})
        previous = step
    return steps


def _body(step: Step) -> list[str]:
    """The lines of a step's trace without its provenance line (it differs for every pass)."""
    lines = step.text.split("\n")
    return lines[1:] if step.title else lines


def _step_lines(step: Step) -> list[tuple[str, Line | None]]:
    by_line = {x.line: x for x in step.lines}
    return [(text, by_line.get(k)) for k, text in enumerate(step.text.split("\n"))]


def _step_line_html(mark: str, text: str, line: Line | None) -> str:
    pieces, at = [], 0
    for name in sorted(line.names, key=lambda n: n.start) if line else ():
        if name.start < at:
            continue
        pieces += [html.escape(text[at:name.start]), name_open(name.name, name.defines and mark != "del"),
                   html.escape(text[name.start:name.end]), "</span>"]
        at = name.end
    pieces.append(html.escape(text[at:]) + "\n")
    opening = line_open(line) if line else '<span class="tl tl-plain">'
    if mark:
        opening = opening.replace('class="tl', f'class="is-{mark} tl', 1)
    return opening + "".join(pieces) + "</span>"


# -- the markup of a block's lines, names and attributes --------------------------------------------------
def line_open(line: Line) -> str:
    attrs = [f'class="tl{"" if line.kind == "op" else " tl-" + line.kind}"', f'data-t="{line.trace}"']
    if line.kind == "op":
        attrs += [f'data-sym="{html.escape(line.symbol)}"', f'data-depth="{line.depth}"']
        if line.executor:
            attrs.append(f'data-exec="{html.escape(line.executor)}"')
        if line.defines:
            attrs.append(f'data-defs="{html.escape(" ".join(line.defines))}"')
        if line.reads:
            attrs.append(f'data-reads="{html.escape(" ".join(line.reads))}"')
    if line.source:
        attrs.append(f'data-src="{html.escape(line.source)}"')
    return f"<span {' '.join(attrs)}>"


def name_open(name: str, defines: bool) -> str:
    """A name's span; ``tabindex="-1"``: thunder-traces.js gives one item per block the Tab stop (roving)."""
    return f'<span class="tp" data-proxy="{html.escape(name)}"{" data-def" if defines else ""} tabindex="-1">'


def line_map(lines: list[Line], extra: dict[int, dict] | None = None) -> list[dict]:
    """The map thunder-traces.js marks a block's lines and names up from (as ``line_open`` and
    ``name_open`` would): per trace line, its line of the block (``l``), trace (``t``), kind (``k``,
    left out for "op"), symbol (``y``), depth (``d``), executor (``x``), defined (``o``) and read
    (``r``) names, source (``s``) and names (``n``: column, name, and 1 for the definition); a
    field at its default is left out. ``extra``: more fields for some lines, by line (thunder-explain's
    ``u`` and ``c``: the user's lines and the chain of frames that made it, explain/yours.py)."""
    rows = []
    for line in lines:
        row: dict = {"l": line.line, "t": line.trace}
        if line.kind != "op":
            row["k"] = line.kind
        else:
            row |= {"y": line.symbol, "d": line.depth}
            if line.executor:
                row["x"] = line.executor
            if line.defines:
                row["o"] = " ".join(line.defines)
            if line.reads:
                row["r"] = " ".join(line.reads)
        if line.source:
            row["s"] = line.source
        if line.names:
            row["n"] = [[n.start, n.name, 1] if n.defines else [n.start, n.name] for n in line.names]
        rows.append(row | (extra or {}).get(line.line, {}))
    return rows


def has_folds(lines: list[Line]) -> bool:
    """Whether thunder-traces.js adds a fold button to one of these lines: an operation followed by
    a deeper operation of the same trace (its subsymbols). The build says so (``class="has-folds"``),
    so the block is laid out for the buttons before the script runs and nothing moves."""
    ordered = sorted(lines, key=lambda x: x.line)
    return any(a.kind == "op" and b.kind == "op" and a.trace == b.trace and b.depth > a.depth
               for a, b in zip(ordered, ordered[1:], strict=False))


def attribute(value: object) -> str:
    """JSON for an attribute in single quotes (``data-lines='...'``): its double quotes stay as
    they are, which keeps a large map compact."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("&", "&amp;").replace("'", "&#39;").replace("<", "&lt;").replace(">", "&gt;")


def trace_json(trace: Trace) -> dict:
    data = {"scope": trace.scope, "fn": trace.function, "tags": list(trace.tags), "proxies": trace.proxies}
    if trace.saved:
        data["saved"] = list(trace.saved)
    return data


_FX_SOURCE = re.compile(r"# (<eval_with_key>\.\d+:\d+):")  # a ThunderFX trace's source comment


def source_span(printed: str, source: str, col: int) -> tuple[int, str, str]:
    """Where in a source comment its link goes (-1: nowhere), the text it covers, and its title.

    A comment names the line it links to; a ThunderFX trace's names FX's generated code, and
    its link goes to the line of yours that FX recorded for that line (page/fx_sources.py)."""
    if (at := printed.find(source, col)) >= 0:
        return at, source, "The line of the code above"
    if fx := _FX_SOURCE.search(printed, col):
        return fx.start(1), fx.group(1), "Your line, which FX recorded for this line of its code"
    return -1, source, ""


def source_link(ident: str, title: str = "The line of the code above") -> str:
    return f'<a class="tsrc" href="#{ident}" title="{title}">'


def source_link_at(printed: str, line: Line, anchors: set[str]) -> tuple[int, int, str] | None:
    """Where the link of a printed source comment goes: its columns in ``printed`` (start, end),
    and the link's opening tag. None when the line has no link: it is no source comment, the
    comment does not name its line, or that line has no anchor (``anchors``: the ids on the page)."""
    if line.kind != "source" or not line.source:
        return None
    at, shown, title = source_span(printed, line.source, line.col)
    ident = source_id(*split_source(line.source))
    if at < 0 or ident not in anchors:
        return None
    return at, at + len(shown), source_link(ident, title)


def block_attributes(trace_map: TraceMap, lines: list, walk: list | None, extra: dict[int, dict] | None = None) -> str:
    """The attributes of a trace block's element: its traces, its line map, its stepper's traces."""
    attrs = f' {MARK}="{html.escape(json.dumps([trace_json(t) for t in trace_map.traces], separators=(",", ":")))}"'
    attrs += f" {LINES}='{attribute(line_map(lines, extra))}'"
    if has_folds(lines):
        attrs += ' class="has-folds"'
    if walk is not None:
        attrs += f' data-walk="{html.escape(json.dumps(walk, separators=(",", ":")))}"'
    return attrs


def source_id(path: str, line: int) -> str:
    """The id of a line of a snippet's code block: ``snippets/guides/pipeline.py:13`` -> src-guides-pipeline-13."""
    stem = path.removeprefix("snippets/").removesuffix(".py")
    return "src-" + re.sub(r"[^A-Za-z0-9]+", "-", stem).strip("-") + f"-{line}"


def split_source(source: str) -> tuple[str, int]:
    """``path:line`` as (path, line); a line that is not a number is 0."""
    path, _, line = source.rpartition(":")
    return path, int(line) if line.isdigit() else 0
