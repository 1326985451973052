"""Run every page's sections under the Thunder of this interpreter, going on past failures.

Run by ``scripts/dev drift`` in the other Thunder's environment (``env.py``), as
``python -m thunder_docs.drift.execute OUT.json``. Each page runs as in a build (the engine's
``Runner``: a process per page, the same normalized output, the hooks that are off for this
Thunder switched off), but a failed section does not stop the run: the page's earlier sections
keep their output, the failure is noted, and the next page runs. Nothing is cached and no
approved file is written: the result is one JSON file, read by ``cli.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from thunder_docs.shared.results import CPU


def run(root: Path, only: set[str] | None = None) -> dict:
    """Each page's outputs per section (in file order) and its failure, if any; the hooks that are off."""
    from thunder_docs.plugins.exec.runner import ExecutionError, PageJob, Runner
    from thunder_docs.shared import hooks
    from thunder_docs.shared.model import load_site
    from thunder_docs.shared.versions import package_versions

    site = load_site(root / "mkdocs.yml")
    broken = hooks.installed_check()
    env = hooks.off_env(broken)
    runner = Runner(root, ["torch", "thunder"])
    pages = {}
    for page in site.with_code:
        if only and page.id not in only:
            continue
        graphs = {inc.sections[-1].name: inc.graphs for inc in page.includes if inc.graphs}
        timeout = float(page.meta.get("exec_timeout", 120))
        job = PageJob(page.path, page.sections, timeout, 100_000, dict(env), graphs)
        print(f"drift: running {page.path}", file=sys.stderr, flush=True)
        try:
            results, failure = runner.run_page(job), None
        except ExecutionError as error:
            results = error.done
            failure = {"section": error.section.name, "path": error.section.path, "line": error.line,
                       "summary": error.cause, "details": error.details}
        pages[page.id] = {
            "path": page.path,
            "snippet": page.snippet,
            "approved": site.shown(site.approved_path(page, CPU)),
            "sections": [s.name for s in page.sections],
            "outputs": {r.section.name: r.output for r in results},
            "failure": failure,
        }
    return {"versions": package_versions(), "hooks_off": [b.message() for b in broken], "pages": pages}


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m thunder_docs.drift.execute OUT.json [PAGE_ID ...]", file=sys.stderr)
        return 2
    out = Path(argv[0])
    result = run(Path.cwd(), set(argv[1:]) or None)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
