"""Measure every page as a phone loads it, with Lighthouse, and print the table.

    python scripts/bench_phone.py [--site SITE] [--only PAGE ...] [--reports DIR]

`scripts/dev bench-phone` runs this (installing the dev dependencies first when Lighthouse
is missing). It builds nothing: it serves the built site (site/, from `scripts/dev build`)
on 127.0.0.1, gzip-compressed as most hosts send it, under the path of `site_url`, and runs
Lighthouse (the version package.json pins) on each page in Debian's Chromium with its mobile
defaults: a phone's screen, simulated throttling (slow 4G, the CPU four times slower). Per
page it prints the performance and accessibility scores, the total blocking time, the number
of DOM elements when the page has loaded (Lighthouse's dom-size) and whether each meets the
site's targets; then, for each page that misses one, the audits that failed. Lighthouse's
benchmark index says how fast this machine ran (its CPU is slowed four times on top): a
busy machine gives longer blocking times. Not a test: the figures vary from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import harness  # noqa: E402 - the browser tests' harness, importable once its folder is on the path

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
TARGETS = {"performance": 95, "accessibility": 100, "tbt": 200, "dom": 3000}  # issue 25, target 5
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking"


def lighthouse(url: str, out: Path) -> dict:
    """Lighthouse's report of one page (performance and accessibility), as JSON."""
    env = {**os.environ, "CHROME_PATH": harness.CHROMIUM}
    proc = subprocess.run(
        ["node", str(LIGHTHOUSE), url, "--only-categories=performance,accessibility", "--output=json",
         f"--output-path={out}", "--quiet", f"--chrome-flags={CHROME_FLAGS}"],
        capture_output=True, text=True, env=env, timeout=600,
    )
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"lighthouse failed on {url}:\n{proc.stderr[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def figures(report: dict) -> dict:
    audits, categories = report["audits"], report["categories"]
    return {
        "performance": round(100 * (categories["performance"]["score"] or 0)),
        "accessibility": round(100 * (categories["accessibility"]["score"] or 0)),
        "tbt": round(audits["total-blocking-time"]["numericValue"]),
        "dom": round(audits["dom-size"]["numericValue"]),
        "lcp": audits["largest-contentful-paint"]["numericValue"] / 1000,
        "fcp": audits["first-contentful-paint"]["numericValue"] / 1000,
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "benchmark": round(report.get("environment", {}).get("benchmarkIndex", 0)),
    }


def misses(row: dict) -> list[str]:
    found = []
    if row["performance"] < TARGETS["performance"]:
        found.append("performance")
    if row["accessibility"] < TARGETS["accessibility"]:
        found.append("accessibility")
    if row["tbt"] > TARGETS["tbt"]:
        found.append("tbt")
    if row["dom"] > TARGETS["dom"]:
        found.append("dom")
    return found


def failed_audits(report: dict, category: str) -> list[str]:
    """The audits of a category that did not pass, worst first, with Lighthouse's figure."""
    rows = []
    for ref in report["categories"][category]["auditRefs"]:
        audit = report["audits"][ref["id"]]
        score = audit.get("score")
        if score is None or score >= 0.9 or audit.get("scoreDisplayMode") in ("notApplicable", "manual", "informative"):
            continue
        if category == "performance" and not ref.get("weight") and audit.get("details", {}).get("type") != "opportunity":
            continue
        shown = audit.get("displayValue", "")
        items = audit.get("details", {}).get("items") or []
        where = ""
        if category == "accessibility" and items:
            where = "; ".join(str((i.get("node") or {}).get("selector", ""))[:80] for i in items[:3])
        rows.append((score, f"{ref['id']} ({score:.2f}{', ' + shown if shown else ''}){': ' + where if where else ''}"))
    return [text for _, text in sorted(rows)]


def table(rows: dict[str, dict]) -> list[str]:
    head = (f"{'page':<34}{'perf':>6}{'a11y':>6}{'TBT ms':>8}{'DOM':>7}{'LCP s':>7}{'FCP s':>7}{'CLS':>6}"
            f"{'bench':>7}  meets targets")
    lines = [head, "-" * len(head)]
    for name, row in rows.items():
        missed = misses(row)
        verdict = "yes" if not missed else "no: " + ", ".join(missed)
        lines.append(f"{name:<34}{row['performance']:>6}{row['accessibility']:>6}{row['tbt']:>8}{row['dom']:>7}"
                     f"{row['lcp']:>7.1f}{row['fcp']:>7.1f}{row['cls']:>6.2f}{row['benchmark']:>7}  {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site/)")
    parser.add_argument("--only", nargs="*", default=[], help="page sources to measure (default: every page)")
    parser.add_argument("--reports", type=Path, help="keep each page's Lighthouse report (JSON) in this folder")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"no built site in {args.site}: run `scripts/dev build` first", file=sys.stderr)
        return 1
    if not LIGHTHOUSE.is_file():
        print(f"{LIGHTHOUSE.relative_to(ROOT)} is missing: `scripts/dev bench-phone` installs the dev dependencies",
              file=sys.stderr)
        return 1
    pages = [p for p in harness.doc_pages() if not args.only or p.source in args.only]
    rows: dict[str, dict] = {}
    details: dict[str, list[str]] = {}
    with harness.serve(args.site, compress=True) as url, tempfile.TemporaryDirectory() as tmp:
        folder = args.reports or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for index, page in enumerate(pages, 1):
            report = lighthouse(url + page.url, folder / (page.source.replace("/", "__") + ".json"))
            rows[page.source] = row = figures(report)
            print(f"[{index}/{len(pages)}] {page.source}: performance {row['performance']}, accessibility "
                  f"{row['accessibility']}, TBT {row['tbt']} ms, {row['dom']} DOM elements", file=sys.stderr, flush=True)
            for category in ("performance", "accessibility"):
                if category in misses(row) or (category == "performance" and "tbt" in misses(row)):
                    details.setdefault(page.source, []).extend(f"{category}: {a}" for a in failed_audits(report, category))
    print("\n".join(table(rows)))
    print(f"targets: performance >= {TARGETS['performance']}, accessibility {TARGETS['accessibility']}, "
          f"TBT <= {TARGETS['tbt']} ms, DOM <= {TARGETS['dom']:,} elements (Lighthouse mobile, simulated throttling, gzip)")
    met = sum(not misses(row) for row in rows.values())
    print(f"{met} of {len(rows)} pages meet every target")
    for name, lines in details.items():
        print(f"\n{name}:")
        for line in lines:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
