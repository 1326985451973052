"""``scripts/dev drift [--thunder THUNDER]``: which documented behaviours another Thunder changes.

THUNDER is ``nightly`` (the newest pre-release on the registry; the default), a version
(``0.2.7.dev20260201``) or the path of a local Thunder checkout. The command sets up that
Thunder's environment (``env.py``), runs every page's sections in it (``execute.py``: past
failures, no cache, no approved file written), compares with the pinned Thunder
(``outputs.py``, ``proofs.py``, ``citations.py``, ``apis.py``) and writes the report
(``report.py``) to ``drift-report/<thunder>/``: ``index.html``, ``summary.txt``, ``drift.json``.

Exit codes: 0 when nothing drifted, 1 when something did, 2 for bad usage or a Thunder that
cannot be set up.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from thunder_docs.drift import apis, citations, env, outputs, proofs
from thunder_docs.drift.report import Report, page_html, summary
from thunder_docs.plugins.exec import approved
from thunder_docs.shared.versions import distribution_version

REPORTS = "drift-report"


def thunder_root(python: Path | str) -> Path:
    """The folder that holds the ``thunder`` package ``python`` imports (found, not imported)."""
    code = ("import importlib.util; s = importlib.util.find_spec('thunder');"
            "print(next(iter(s.submodule_search_locations)))")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    return Path(out).parent


def _pinned_root() -> Path:
    spec = importlib.util.find_spec("thunder")
    return Path(next(iter(spec.submodule_search_locations))).parent


def docs_texts(root: Path) -> list[tuple[str, str]]:
    """(repository path, text) of every page: Markdown and notebooks."""
    files = sorted([*root.glob("docs/**/*.md"), *root.glob("docs/**/*.ipynb")])
    return [(f.relative_to(root).as_posix(), f.read_text(encoding="utf-8")) for f in files]


def compare(root: Path, executed: dict, thunder_label: str, other_root: Path, pinned_root: Path,
            only_run: bool = False) -> Report:
    """The report from what ``execute.py`` wrote and from both Thunders' files (with ``only_run``,
    the citations and APIs of the pages that ran only)."""
    report = Report(thunder_label, f"lightning-thunder {distribution_version('lightning-thunder')}",
                    hooks_off=list(executed["hooks_off"]))
    for page in executed["pages"].values():
        failure = page["failure"]
        stored = approved.load(root / page["approved"])
        report.pages.append(outputs.page_outputs(page["path"], page["sections"], stored.sections if stored else {},
                                                 page["outputs"], failure["section"] if failure else None))
        if failure:
            report.proofs.append(_proof(root, page, failure))
    texts = docs_texts(root)
    if only_run:
        ran = {page["path"] for page in executed["pages"].values()}
        texts = [(path, text) for path, text in texts if path in ran]
    report.citations = citations.compare(citations.cited(texts), pinned_root, other_root)
    from thunder_docs.plugins.links.names import API

    report.apis = apis.compare(apis.named(texts, () if only_run else API), pinned_root, other_root)
    return report


def _proof(root: Path, page: dict, failure: dict) -> proofs.FailedProof:
    snippet = root / failure["path"]
    lines = snippet.read_text(encoding="utf-8").split("\n") if snippet.is_file() else []
    line = lines[failure["line"] - 1].strip() if 0 < failure["line"] <= len(lines) else ""
    markdown = (root / page["path"]).read_text(encoding="utf-8")
    sentence = proofs.claim(markdown, f'{failure["path"]}:{failure["section"]}', line)
    return proofs.FailedProof(page["path"], failure["section"], f'{failure["path"]}:{failure["line"]}', line,
                              failure["summary"].split("\n")[0], sentence)


def _shown(path: Path, root: Path) -> Path:
    return path.relative_to(root) if path.is_relative_to(root) else path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/dev drift", description=__doc__.split("\n\n")[0])
    parser.add_argument("--thunder", default="nightly",
                        help="nightly (the default), a version such as 0.2.7.dev20260201, or a Thunder checkout's path")
    parser.add_argument("--out", type=Path, help=f"the report's folder (default: {REPORTS}/<thunder>/)")
    parser.add_argument("--page", action="append", default=[], help="only this page (its id: first_trace, guides/autograd)")
    args = parser.parse_args(argv)
    root = Path.cwd()
    try:
        thunder = env.parse(args.thunder, root)
        venv = env.ensure(thunder, root, Path(sys.prefix))
    except env.EnvError as error:
        print(f"scripts/dev drift: {error}", file=sys.stderr)
        return 2
    python = venv / "bin" / "python"
    out = args.out or root / REPORTS / thunder.key
    out.mkdir(parents=True, exist_ok=True)
    executed_file = out / "executed.json"
    print(f"scripts/dev drift: running the pages with {thunder.label} ({_shown(venv, root)})", file=sys.stderr)
    ran = subprocess.run([str(python), "-m", "thunder_docs.drift.execute", str(executed_file), *args.page], cwd=root)
    if ran.returncode != 0:
        print(f"scripts/dev drift: running the pages failed (exit {ran.returncode})", file=sys.stderr)
        return 2
    executed = json.loads(executed_file.read_text(encoding="utf-8"))
    label = f"lightning-thunder {executed['versions']['thunder']}" + (f" ({thunder.checkout})" if thunder.checkout else "")
    report = compare(root, executed, label, thunder_root(python), _pinned_root(), only_run=bool(args.page))
    text = summary(report)
    (out / "summary.txt").write_text(text, encoding="utf-8")
    (out / "index.html").write_text(page_html(report), encoding="utf-8")
    (out / "drift.json").write_text(report.to_json(), encoding="utf-8")
    print(text, end="")
    print(f"the report: {_shown(out / 'index.html', root)}")
    return 1 if report.drifted else 0


if __name__ == "__main__":
    sys.exit(main())
