"""The drift report: what another Thunder changes on the site, for the terminal and as an HTML page.

``Report`` holds the findings (``outputs.py``, ``proofs.py``, ``citations.py``, ``apis.py``) and
nothing else, so the two renderings are plain functions of it, tested on hand-made reports.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field

from thunder_docs.drift.apis import ApiDrift
from thunder_docs.drift.citations import CitationDrift
from thunder_docs.drift.outputs import CHANGED, FAILED, NOT_RUN, SAME, PageOutputs
from thunder_docs.drift.proofs import FailedProof


@dataclass
class Report:
    thunder: str  # what was compared: "lightning-thunder 0.2.7.dev20260201", or a checkout's path
    pinned: str  # "lightning-thunder 0.2.6"
    pages: list[PageOutputs] = field(default_factory=list)
    proofs: list[FailedProof] = field(default_factory=list)
    citations: list[CitationDrift] = field(default_factory=list)
    apis: list[ApiDrift] = field(default_factory=list)
    hooks_off: list[str] = field(default_factory=list)

    @property
    def drifted(self) -> bool:
        """Whether anything differs from the pinned Thunder (the command's exit status)."""
        return bool(self.proofs or self.citations or self.apis or self.hooks_off
                    or any(p.drifted for p in self.pages))

    def same_share(self) -> float:
        """The share of the approved output lines printed unchanged (1.0 when there are none)."""
        lines = sum(p.lines for p in self.pages)
        return sum(p.same_lines for p in self.pages) / lines if lines else 1.0

    def same_share_of_run(self) -> float:
        """The same share over the sections that ran: how much of what still prints is unchanged."""
        lines = sum(p.ran_lines for p in self.pages)
        return sum(p.same_lines for p in self.pages) / lines if lines else 1.0

    def stopped_pages(self) -> list[str]:
        return [p.page for p in self.pages if any(s.status == FAILED for s in p.sections)]

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary(report: Report) -> str:
    """The terminal summary: the counts, then one line per finding."""
    changed = [(p.page, s) for p in report.pages for s in p.sections if s.status == CHANGED]
    not_run = sum(1 for p in report.pages for s in p.sections if s.status == NOT_RUN)
    lines = [f"drift of {report.thunder} against {report.pinned}:",
             f"  pages: {len(report.pages)}, of which {len(report.stopped_pages())} stopped at a failed section; "
             f"of the approved output lines, {report.same_share_of_run():.1%} of those of the sections that ran "
             f"printed unchanged ({report.same_share():.1%} of all)",
             f"  sections: {_count(len(changed), 'changed output')}, {_count(len(report.proofs), 'failed proof')}, "
             f"{not_run} not run after a failure",
             f"  citations: {_count(len(report.citations), 'drifted citation')}; APIs: {_count(len(report.apis), 'moved API')}; "
             f"hooks off: {len(report.hooks_off)}"]
    for page, section in changed:
        gone, added = section.removed_added
        lines.append(f"  changed  {page} [{section.name}]: {section.lines - section.same_lines} of "
                     f"{section.lines} approved lines differ (-{gone} +{added})")
    for proof in report.proofs:
        lines.append(f"  failed   {proof.page} [{proof.section}] {proof.where}: {proof.error}")
        if proof.sentence:
            lines.append(f"           proves: {proof.sentence}")
    for c in report.citations:
        lines.append(f"  cited    {c.page}: [[{c.citation}]] {c.status}" + (f" ({c.detail})" if c.detail else ""))
    for a in report.apis:
        where = a.after or ("gone; defined in " + ", ".join(a.candidates) if a.candidates else "gone")
        lines.append(f"  moved    {a.api}: {a.before} -> {where}")
    for hook in report.hooks_off:
        lines.append(f"  hook     {hook}")
    lines.append("  no drift" if not report.drifted else "  drifted")
    return "\n".join(lines) + "\n"


_CSS = """
body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}h3{font-size:1rem}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto}.del{color:#a40e26;background:#ffebe9}.add{color:#116329;background:#dafbe1}
.counts{white-space:pre-wrap}.same{color:#57606a}.bad{color:#a40e26;font-weight:600}
blockquote{border-left:3px solid #d0d7de;margin:0;padding-left:.8rem}
"""


_COUNT_LINES = 4  # the summary's title and its three lines of counts; the page lists the findings itself


def _diff_html(lines: tuple[str, ...]) -> str:
    out = []
    for line in lines:
        cls = "del" if line.startswith("-") else "add" if line.startswith("+") else ""
        out.append(f'<span class="{cls}">{html.escape(line)}</span>' if cls else html.escape(line))
    return "<pre>" + "\n".join(out) + "</pre>"


def page_html(report: Report) -> str:
    """The report as one self-contained HTML page (no script, no request to any host)."""
    e = html.escape
    body = [f"<h1>Drift of {e(report.thunder)} against {e(report.pinned)}</h1>",
            f"<pre class=counts>{e(chr(10).join(summary(report).splitlines()[1:_COUNT_LINES]))}</pre>"]
    if report.proofs:
        body.append("<h2>Failed proofs</h2><p>Each assert that failed, and the sentence of its page it proves.</p>")
        for p in report.proofs:
            body.append(f"<h3>{e(p.page)}, section {e(p.section)}</h3><p><code>{e(p.where)}</code>: "
                        f"<code>{e(p.assertion)}</code></p><p class=bad>{e(p.error)}</p>"
                        + (f"<blockquote>{e(p.sentence)}</blockquote>" if p.sentence else ""))
    body.append("<h2>Output per page and section</h2>")
    for page in report.pages:
        share = page.same_lines / page.lines if page.lines else 1.0
        body.append(f"<h3>{e(page.page)} ({share:.1%} of its lines unchanged)</h3><table>"
                    "<tr><th>section</th><th>status</th><th>changed lines</th></tr>")
        for s in page.sections:
            status = f'<span class="{"same" if s.status == SAME else "bad"}">{e(s.status)}</span>'
            changed = _diff_html(s.diff) if s.diff else ""
            body.append(f"<tr><td>{e(s.name)}</td><td>{status}</td><td>{changed}</td></tr>")
        body.append("</table>")
    if report.citations:
        body.append("<h2>Citations of Thunder's source</h2><table><tr><th>page</th><th>citation</th><th>status</th></tr>")
        body += [f"<tr><td>{e(c.page)}</td><td><code>{e(c.citation)}</code></td><td>{e(c.status)} {e(c.detail)}</td></tr>"
                 for c in report.citations]
        body.append("</table>")
    if report.apis:
        body.append("<h2>APIs that moved</h2><table><tr><th>API</th><th>pinned</th><th>now</th><th>named on</th></tr>")
        body += [f"<tr><td><code>{e(a.api)}</code></td><td>{e(a.before)}</td>"
                 f"<td>{e(a.after or 'gone; ' + (', '.join(a.candidates) or 'defined nowhere'))}</td>"
                 f"<td>{e(', '.join(a.pages))}</td></tr>" for a in report.apis]
        body.append("</table>")
    if report.hooks_off:
        body.append("<h2>Hooks switched off</h2>" + "".join(f"<p>{e(h)}</p>" for h in report.hooks_off))
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Drift: {e(report.thunder)}</title>'
            f'<meta name="viewport" content="width=device-width,initial-scale=1"><style>{_CSS}</style></head>'
            f"<body>{''.join(body)}</body></html>\n")
