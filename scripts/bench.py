"""Measure build performance in one run and print every figure with its ratio.

    scripts/dev bench

Works on a copy of the site in a temporary folder, with a cache of its own, so the
repository and its cache are left as they were. Figures:

- import: time to import torch + thunder in a fresh interpreter;
- sections: the sum of every section's and notebook's execution time (from the cold build);
- plain: a build with execution off;
- cold: a build with an empty cache; target cold / (import + sections + plain) <= 1.25;
- warm: a build with nothing changed; target warm / plain <= 1.3;
- prose edit: under `mkdocs serve`, the rebuild after a prose edit; target <= 1.5 x plain;
- cold with 2 workers: the same cold build executing two pages at a time.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from thunder_docs.results import BuildStats

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".git", ".venv", ".cache", "site", "site.partial", "node_modules", "screenshots", ".pytest_cache"}
TARGETS = {"cold": 1.25, "warm": 1.3, "prose edit": 1.5}


def copy_site(dest: Path) -> None:
    for entry in ROOT.iterdir():
        if entry.name in SKIP or entry.name.endswith(".egg-info"):
            continue
        (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, dest / entry.name)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")


def env(cache: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1", "THUNDER_DOCS_CACHE_DIR": str(cache), **extra}


def timed_build(site: Path, cache: Path, strict: bool = True, **extra: str) -> tuple[float, BuildStats]:
    stats = site / "stats.json"
    stats.unlink(missing_ok=True)
    command = [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(site / "out")]
    started = time.perf_counter()
    proc = subprocess.run(command + (["--strict"] if strict else ["--no-strict"]), cwd=site, capture_output=True,
                          text=True, env=env(cache, THUNDER_DOCS_STATS=str(stats), **extra))
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"bench: build failed:\n{proc.stdout}{proc.stderr}")
    return seconds, BuildStats.read(stats)


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import torch, thunder; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prose_edit_seconds(site: Path, cache: Path, page: Path) -> float:
    """Start `mkdocs serve`, edit a page's prose, time until the rebuild has finished."""
    command = [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{free_port()}"]
    proc = subprocess.Popen(command, cwd=site, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env(cache))
    try:
        wait_for(proc, re.compile(r"Serving on"))
        time.sleep(1.0)  # let the file watcher settle
        started = time.perf_counter()
        page.write_text(page.read_text() + "\nOne more sentence of prose.\n")
        wait_for(proc, re.compile(r"Documentation built in"))
        return time.perf_counter() - started
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def wait_for(proc: subprocess.Popen, pattern: re.Pattern, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    for line in proc.stdout:
        if pattern.search(line):
            return
        if time.monotonic() > deadline:
            break
    raise SystemExit(f"bench: `mkdocs serve` never printed {pattern.pattern!r}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="thunder-docs-bench-") as tmp:
        site, cache, cache2 = Path(tmp) / "site", Path(tmp) / "cache", Path(tmp) / "cache2"
        site.mkdir()
        copy_site(site)
        imp = import_seconds()
        plain, _ = timed_build(site, cache, strict=False, THUNDER_DOCS_EXECUTE="false")
        cold, stats = timed_build(site, cache, THUNDER_DOCS_JOBS="1")
        sections, executed = stats.section_seconds, stats.executed
        warm, warm_stats = timed_build(site, cache)
        assert warm_stats.executed == 0, "the warm build executed sections"
        cold2, _ = timed_build(site, cache2, THUNDER_DOCS_JOBS="2")
        edit = prose_edit_seconds(site, cache, site / "docs" / "first_trace.md")

    rows = [
        ("import torch + thunder", imp, None, None),
        (f"sections ({executed}) and notebooks executed", sections, None, None),
        ("plain build (execution off)", plain, None, None),
        ("cold build, 1 worker", cold, cold / (imp + sections + plain), "cold"),
        ("cold build, 2 workers", cold2, cold2 / (imp + sections + plain), None),
        ("warm build (nothing changed)", warm, warm / plain, "warm"),
        ("rebuild after a prose edit (serve)", edit, edit / plain, "prose edit"),
    ]
    print(f"{'figure':38} {'seconds':>8} {'ratio':>7} {'target':>7}")
    for name, seconds, ratio, target in rows:
        r = f"{ratio:7.2f}" if ratio is not None else " " * 7
        t = f"<= {TARGETS[target]:.2f}" if target else ""
        verdict = "" if not target else ("  met" if ratio <= TARGETS[target] else "  MISSED")
        print(f"{name:38} {seconds:8.2f} {r} {t:>7}{verdict}")
    print("cold ratio: cold / (import + sections + plain); warm and prose-edit ratios: / plain build")
    print("\nexecution time each page adds to a cold build:")
    for page, seconds in sorted(stats.page_seconds().items(), key=lambda item: -item[1]):
        print(f"  {page:38} {seconds:8.2f} s")


if __name__ == "__main__":
    main()
