"""Measure every page as a phone loads it, with Lighthouse, and print the table.

    python scripts/bench_phone.py [--site SITE] [--only PAGE ...] [--runs N] [--reports DIR]
                                  [--without-theme-script]

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

With --runs N, Lighthouse runs N times on each page and the table shows the median run, chosen
as Lighthouse's own tools choose it (its docs/variability.md: the run nearest the median first
contentful paint and time to interactive), with the spread of the performance score and the
blocking time over the N runs. --without-theme-script serves a copy of the site without
Material's bundle.js, to see how much of the blocking time is the theme's start-up (the pages
then lack what that script does: search, the colour toggle, copy buttons).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
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


def median_run(reports: list[dict]) -> dict:
    """The run Lighthouse's tools report for repeated runs (lighthouse/core/lib/median-run.js):
    the one nearest the median first contentful paint and time to interactive, the earlier
    time to interactive breaking a tie."""
    def value(report: dict, audit: str) -> float:
        return report["audits"][audit]["numericValue"]

    def median(numbers: list[float]) -> float:
        ordered, middle = sorted(numbers), len(numbers) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2

    fcp = median([value(r, "first-contentful-paint") for r in reports])
    tti = median([value(r, "interactive") for r in reports])
    return min(reports, key=lambda r: ((fcp - value(r, "first-contentful-paint")) ** 2
                                       + (tti - value(r, "interactive")) ** 2, value(r, "interactive")))


def spread(rows: list[dict], key: str) -> str:
    low, high = min(r[key] for r in rows), max(r[key] for r in rows)
    return f"{low}" if low == high else f"{low}-{high}"


THEME_SCRIPT = re.compile(r'<script (?:defer )?src="[^"]*/javascripts/bundle\.[0-9a-f]+\.min\.js"></script>')


def without_theme_script(site: Path, into: Path) -> Path:
    """A copy of the built site whose pages do not load Material's bundle.js."""
    copy = into / "site-without-theme-script"
    shutil.copytree(site, copy)
    stripped = 0
    for page in copy.rglob("*.html"):
        text, found = THEME_SCRIPT.subn("", page.read_text(encoding="utf-8"))
        if found:
            page.write_text(text, encoding="utf-8")
            stripped += 1
    if not stripped:
        raise RuntimeError(f"no page of {site} loads Material's bundle.js: the pattern no longer matches")
    return copy


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
    ranges = any("perf_range" in row for row in rows.values())
    extra = f"{'perf runs':>11}{'TBT runs':>11}" if ranges else ""
    head = (f"{'page':<34}{'perf':>6}{'a11y':>6}{'TBT ms':>8}{'DOM':>7}{'LCP s':>7}{'FCP s':>7}{'CLS':>6}"
            f"{'bench':>7}{extra}  meets targets")
    lines = [head, "-" * len(head)]
    for name, row in rows.items():
        missed = misses(row)
        verdict = "yes" if not missed else "no: " + ", ".join(missed)
        runs = f"{row['perf_range']:>11}{row['tbt_range']:>11}" if ranges else ""
        lines.append(f"{name:<34}{row['performance']:>6}{row['accessibility']:>6}{row['tbt']:>8}{row['dom']:>7}"
                     f"{row['lcp']:>7.1f}{row['fcp']:>7.1f}{row['cls']:>6.2f}{row['benchmark']:>7}{runs}  {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site/)")
    parser.add_argument("--only", nargs="*", default=[], help="page sources to measure (default: every page)")
    parser.add_argument("--runs", type=int, default=1, help="Lighthouse runs per page; the median run is shown")
    parser.add_argument("--reports", type=Path, help="keep each page's Lighthouse report (JSON) in this folder")
    parser.add_argument("--without-theme-script", action="store_true",
                        help="measure a copy of the site without Material's bundle.js")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be 1 or more")
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
    with tempfile.TemporaryDirectory() as tmp:
        site = without_theme_script(args.site, Path(tmp)) if args.without_theme_script else args.site
        with harness.serve(site, compress=True) as url:
            folder = args.reports or Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            for index, page in enumerate(pages, 1):
                name = page.source.replace("/", "__")
                reports = [lighthouse(url + page.url, folder / (f"{name}.{run}.json" if args.runs > 1 else f"{name}.json"))
                           for run in range(1, args.runs + 1)]
                report = median_run(reports)
                rows[page.source] = row = figures(report)
                if args.runs > 1:
                    each = [figures(r) for r in reports]
                    row["perf_range"], row["tbt_range"] = spread(each, "performance"), spread(each, "tbt")
                print(f"[{index}/{len(pages)}] {page.source}: performance {row['performance']}, accessibility "
                      f"{row['accessibility']}, TBT {row['tbt']} ms, {row['dom']} DOM elements", file=sys.stderr,
                      flush=True)
                for category in ("performance", "accessibility"):
                    if category in misses(row) or (category == "performance" and "tbt" in misses(row)):
                        details.setdefault(page.source, []).extend(
                            f"{category}: {a}" for a in failed_audits(report, category))
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
