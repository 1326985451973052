"""The explorer's page: one self-contained HTML file (styles and script inline, no request to any host).

Trace blocks are marked up by the site's own code (``shared/trace_markup.py``, which the traces plugin uses too),
so they carry the site's DOM (``<code data-traces data-lines>``, from which the script marks up
``.tl``, ``.tp[data-proxy]``, ``data-def`` as a block comes into view) and the site's script
(``thunder-traces.js``) makes them interactive as on the site: a name's definition and uses,
tooltips with the annotation, folding, backward to forward, the pass stepper, and the user's source lines linked both ways.
"""

from __future__ import annotations

import html
from pathlib import Path

from thunder_docs.explain import memory, recompile, yours
from thunder_docs.explain.report import Block, Compilation, Function, Report
from thunder_docs.shared.html_tree import tree, wrap
from thunder_docs.shared.trace_markup import (
    SCRIPT_FILE,
    STYLESHEET_FILE,
    block_attributes,
    source_id,
    source_link,
    source_link_at,
    source_span,
    walk_json,
)

STYLE = Path(__file__).parent / "explain.css"
SCHEME = """(() => {
  const root = document.body, saved = localStorage.getItem("thunder-explain-scheme");
  const dark = saved ? saved === "slate" : matchMedia("(prefers-color-scheme: dark)").matches;
  root.dataset.mdColorScheme = dark ? "slate" : "default";
  document.getElementById("scheme").addEventListener("click", () => {
    root.dataset.mdColorScheme = root.dataset.mdColorScheme === "slate" ? "default" : "slate";
    localStorage.setItem("thunder-explain-scheme", root.dataset.mdColorScheme);
  });
})();"""


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def marked_text(block: Block, anchors: set[str], ids: dict[int, str] | None = None) -> str:
    """The ``<code>`` of a plain-text trace block as ``mark_output`` makes the site's (the same
    source links, line map and attributes), in one pass over the lines: the site's tree walk
    costs a walk per link, too slow for traces of thousands of lines. ``ids``: an anchor before
    each of those lines (the source view's lists link to them; explain/yours.py)."""
    by_line = {line.line: line for line in block.trace_map.lines}
    out = []
    texts = block.text.split("\n")
    for number, text in enumerate(texts):
        newline = "\n" if number + 1 < len(texts) else ""
        line = by_line.get(number)
        if ids and number in ids:
            out.append(f'<span id="{ids[number]}"></span>')
        link = source_link_at(text, line, anchors) if line is not None else None
        if link is None and line is not None:  # a line of a library: the link goes to your line
            link = _link_to_your_line(text, line, block.chains.get(number, ()), anchors)
        if link is not None:
            at, end, opening = link
            out.append(_e(text[:at]) + opening + _e(text[at:end]) + "</a>" + _e(text[end:]) + newline)
            continue
        out.append(_e(text) + newline)
    walk = walk_json(block.trace_map.walks[0]) if block.stepper and block.trace_map.walks else None
    lines = [x for x in block.trace_map.lines if x.line < len(texts)]
    return f"<code{block_attributes(block.trace_map, lines, walk, yours.extras(block))}>" + "".join(out) + "</code>"


def _link_to_your_line(text: str, line, chain, anchors: set[str]) -> tuple[int, int, str] | None:
    """For a source comment that names a library's line: a link over it to the innermost of your
    lines in its chain of frames (explain/yours.py), or None."""
    if line.kind != "source" or not line.source or not (mine := yours.link_of(chain, anchors)):
        return None
    at, shown, _ = source_span(text, line.source, line.col)
    return (at, at + len(shown), source_link(*mine)) if at >= 0 else None


def trace_block(block: Block, anchors: set[str], ids: dict[int, str] | None = None) -> str:
    code = marked_text(block, anchors, ids) if block.trace_map.lines else "<code>" + _e(block.text) + "</code>"
    figure = (f'<figure class="trace"><figcaption>{_e(block.title)}</figcaption>'
              f'<div class="highlight exec-output"><pre>{code}</pre></div></figure>')
    if block.title.startswith(("the prologue", "the epilogue")):  # checks around the computation: folded
        return f"<details><summary>{_e(block.title)}</summary>{figure}</details>"
    return figure


def source_block(path: str, text: str, used: set[str],
                 made: dict[str, list[yours.Made]] | None = None) -> tuple[str, set[str]]:
    """A user's file with an id on each line a trace points to (as the site's code blocks), then
    each of those lines with the operations it produced (``made``)."""
    lines = text.rstrip("\n").split("\n")
    root = tree("<code>" + _e("\n".join(lines)) + "</code>")
    code = root.children[0]
    anchors, start = set(), 0
    for number, line in enumerate(lines, start=1):
        source = f"{path}:{number}"
        if source in used and line:
            ident = source_id(path, number)
            wrap(code, start, start + len(line) - 1, '<span class="sl-line">', "</span>")
            wrap(code, start, start + len(line) - 1, f'<span class="sl" id="{ident}" data-src="{_e(source)}">',
                 "</span>")
            anchors.add(ident)
        start += len(line) + 1
    lists = "".join(yours.listing(f"{path}:{n}", made[f"{path}:{n}"]) for n in range(1, len(lines) + 1)
                    if f"{path}:{n}" in (made or {}))
    return (f'<figure class="source"><figcaption>{_e(path)}</figcaption>'
            f'<div class="highlight"><pre>{root.html()}</pre></div></figure>{lists}'), anchors


def _table(head: list[str], rows: list[list[object]]) -> str:
    cells = "".join(f"<th scope=\"col\">{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="table"><table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div>'


def summary(report: Report) -> str:
    rows = [[f.title, f.calls, f.hits, f.misses,
             f"{len(f.compilations)} of {f.misses} (no caching: the last)" if f.last_call_only else len(f.compilations)]
            for f in report.functions]
    parts = sum(len(g.parts) for g in report.graphs)
    lines = [f"<p>{_count(len(report.functions), 'compiled function')}, "
             f"{_count(report.compilations, 'compilation')} shown"
             + (f", {_count(len(report.graphs), 'ThunderFX graph')} in {_count(parts, 'part')}" if report.graphs else "")
             + ".</p>",
             _table(["function", "calls", "cache hits", "cache misses", "compilations"], rows)]
    for graph in report.graphs:
        lines.append(f"<h3>ThunderFX graph {graph.index}: {graph.nodes} operations, "
                     f"{len(graph.parts)} parts</h3>")
        lines.append(_table(["part", "runs on"], [[p.name, p.runs_on] for p in graph.parts]))
        if graph.made:
            lines.append(f"<p>Why TorchDynamo made it: {_e(graph.made)}</p>")
        if graph.reasons:
            lines.append(_table(["split reason", "what", "exception"], [list(r) for r in graph.reasons]))
    lines.append(recompile.summary(report))
    return "\n".join(lines)


NOTE_EXECUTORS = (
    "<p>Executors are asked in the order of the compilation's executor list; \"asked first, and declined\" "
    "lists them in that order, each with its answer. <code>__ad_hoc_executor_N</code> is the executor "
    "<code>thunder.jit</code> makes for each function it compiles, for what it registers while tracing. "
    "\"(none: runs as Python)\" is a line whose symbol has a Python implementation of its own, such as an "
    "unpack, a <code>del</code> or the return.</p>")
NOTE_PASSES = (
    "<p>A blank time is a pass whose trace does not say how long it took. In the traces above, times in a "
    "trace's first line read <code>(took N milliseconds)</code>: the table has the numbers. The computation's "
    "\"Transform for execution\", where executors claim the lines, makes no trace of its own in the list: "
    "the step after it, Delete Last Used, shows its result, which is why every line changes there. With a "
    "backward, that step also shows the split into forward and backward: the lines from the first "
    "<code>get_grad</code> on, the backward's, leave the computation's list there for the backward's own.</p>")


def compilation(c: Compilation, number: int, anchors: set[str], ids: dict[int, dict[int, str]] | None = None) -> str:
    out = [f"<h3>Compilation {number}</h3>"] + ([recompile.section(c.why)] if c.why else [])
    out += [trace_block(b, anchors, (ids or {}).get(id(b))) for b in c.blocks]
    for which, rows in c.executed.items():
        out.append(f"<h4>Who runs each line of the {which} trace</h4>")
        out.append(_table(["outputs", "symbol", "executor", "fusion members", "asked first, and declined"],
                          [[r.outputs, r.symbol, r.executor or "(none: runs as Python)", ", ".join(r.members),
                            "; ".join(r.declined)] for r in rows]))
        if rows and which == "computation":
            out.append(NOTE_EXECUTORS)
    out += [memory.section(which, m) for which, m in c.memory.items()]
    if c.passes:
        out.append("<h4>Passes and their time</h4>")
        out.append(_table(["trace list", "pass", "milliseconds"],
                          [[w, p, "" if ms is None else ms] for w, p, ms in c.passes]))
        out.append(NOTE_PASSES)
    return "\n".join(out)


def function(f: Function, index: int, anchors: set[str], ids: dict[int, dict[int, str]] | None = None) -> str:
    head = (f'<h2 id="f{index}">{_e(f.title)}</h2><p>{_count(f.calls, "call")}, {_count(f.hits, "cache hit")}, '
            f'{_count(f.misses, "cache miss", "cache misses")}.</p>')
    if f.last_call_only:
        head += (f'<p class="last-call">With <code>cache="no caching"</code>, Thunder compiles every call and keeps '
                 f'no cache entry: it compiled this function {_count(f.misses, "time")}, and what it keeps, shown '
                 'below, is the last call\'s computation, backward and prologue traces (no epilogue trace).</p>')
    return head + "\n".join(compilation(c, k + 1, anchors, ids) for k, c in enumerate(f.compilations))


def page(report: Report, error: str | None) -> str:
    used = {line.source for f in report.functions for c in f.compilations for b in c.blocks
            for line in b.trace_map.lines if line.source}
    titled = [(f"{f.title}, compilation {k + 1}, {b.title.split(' (')[0]}", b)
              for f in report.functions for k, c in enumerate(f.compilations) for b in c.blocks]
    ids = {id(b): yours.op_ids(b, n) for n, (_, b) in enumerate(titled)}
    made = yours.made_by([(title, b, ids[id(b)]) for title, b in titled])
    used |= set(made)
    sources, anchors = [], set()
    for path, text in report.sources.items():
        block, found = source_block(path, text, used, made)
        sources.append(block)
        anchors |= found
    body = [f"<h1>thunder-explain: {_e(report.script)}</h1>"]
    if error:
        body.append(f'<div class="error" role="alert"><p>The script raised; the page shows what was compiled '
                    f'before.</p><pre>{_e(error)}</pre></div>')
    contents = "".join(f'<li><a href="#f{k + 1}">{_e(f.title)}</a></li>' for k, f in enumerate(report.functions))
    body += ["<h2>Summary</h2>", summary(report), f'<nav aria-label="Compiled functions"><ul>{contents}</ul></nav>']
    body += [function(f, k + 1, anchors, ids) for k, f in enumerate(report.functions)]
    if sources:
        body += ["<h2>Your source</h2><p>The lines of your files that traces point to. Hover a line to light up "
                 "the trace lines it made.</p>", *([yours.NOTE] if made else []), *sources]
    css = STYLE.read_text(encoding="utf-8") + STYLESHEET_FILE.read_text(encoding="utf-8")
    script = SCRIPT_FILE.read_text(encoding="utf-8")
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>thunder-explain: {_e(report.script)}</title><style>{css}</style></head>"
            f'<body data-md-color-scheme="default"><header><button id="scheme" type="button">Switch colour scheme'
            f'</button></header><main class="md-typeset">{"".join(body)}</main>'
            f"<script>{SCHEME}</script><script>{script}</script></body></html>\n")
