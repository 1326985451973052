"""Measure build performance in one run and print every figure with its ratio.

    scripts/dev bench

Works on a copy of the site in a temporary folder, with a cache of its own, so the
repository and its cache are left as they were. Figures:

- bare: a bare Material build of the same pages (the same mkdocs.yml with `plugins: [search]`
  only), the yardstick of the writer's loop;
- import: time to import torch + thunder in a fresh interpreter;
- sections: the sum of every section's and notebook's execution time (from the cold build);
- plain: a build with execution off;
- cold: a build with empty caches (1 and 2 workers);
- warm: a build with nothing changed; target warm <= 1.5 x bare;
- prose edit: under `mkdocs serve`, from the edit until the rebuilt page is served (the median of
  several edits: MkDocs' file watcher polls every 0.5 s); target <= 1.0 x bare;
- snippet edit: under `mkdocs serve`, the same for a snippet edit, which re-runs its page; target
  <= 1.0 x bare + that page's execution time.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from thunder_docs.shared.results import BuildStats

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".git", ".venv", ".cache", "site", "site.partial", "node_modules", "screenshots", ".pytest_cache"}
EDITS = 7  # edits of each kind under serve; the row is their median (the file watcher polls every 0.5 s)
TARGETS = {"warm": 1.5, "prose edit": 1.0, "snippet edit": 1.0}
BARE_PLUGINS = "plugins:\n  - search\n"


def copy_site(dest: Path) -> None:
    for entry in ROOT.iterdir():
        if entry.name in SKIP or entry.name.endswith(".egg-info"):
            continue
        (shutil.copytree if entry.is_dir() else shutil.copy2)(entry, dest / entry.name)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")


def env(cache: Path, **extra: str) -> dict[str, str]:
    """Every cache of the build under ``cache``, so a fresh folder means a cold build."""
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1", "THUNDER_DOCS_CACHE_DIR": str(cache),
            "THUNDER_DOCS_LINKS_CACHE_DIR": str(cache / "links"),
            "THUNDER_DOCS_REFERENCE_CACHE_DIR": str(cache / "reference"),
            "THUNDER_DOCS_CITATIONS_CACHE_DIR": str(cache / "citations"),
            "THUNDER_DOCS_TRACES_CACHE_DIR": str(cache / "traces"),
            "THUNDER_DOCS_BUILD_CACHE_DIR": str(cache / "build"), **extra}


def write_bare_config(site: Path) -> str:
    """mkdocs.yml with its plugins replaced by Material's search alone."""
    text = (site / "mkdocs.yml").read_text()
    bare, count = re.subn(r"^plugins:\n(?:(?:[ #].*)?\n)*", BARE_PLUGINS, text, flags=re.M)
    assert count == 1, "bench: no plugins section in mkdocs.yml"
    (site / "mkdocs-bare.yml").write_text(bare)
    return "mkdocs-bare.yml"


def timed_build(site: Path, cache: Path, strict: bool = True, config: str = "mkdocs.yml",
                **extra: str) -> tuple[float, BuildStats]:
    stats = site / "stats.json"
    stats.unlink(missing_ok=True)
    command = [sys.executable, "-m", "mkdocs", "build", "-f", config, "--site-dir", str(site / "out")]
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


def serve_edit_seconds(site: Path, cache: Path, edits: list[tuple[Path, str, str]]) -> list[float]:
    """Start `mkdocs serve`; for each edit (file, text to add, text the page must then show), the
    time from writing the file until the server serves the page with that text."""
    port = free_port()
    command = [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(command, cwd=site, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env(cache))
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    log: list[str] = []
    seconds = []
    try:
        url = wait_for(lines, log, re.compile(r"Serving on (\S+)")).group(1)
        time.sleep(5.0)  # let the file watcher settle (and the worker warm up)
        for path, addition, expected in edits:
            page = url + "guides/pipeline/" if "pipeline" in path.name else url + "first_trace/"
            started = time.perf_counter()
            path.write_text(path.read_text().replace(*addition) if isinstance(addition, tuple)
                            else path.read_text() + addition)
            while expected not in urllib.request.urlopen(page, timeout=30).read().decode():
                if time.perf_counter() - started > 120:
                    _drain(lines, log)
                    raise SystemExit(f"bench: {page} never showed {expected!r}; the server said:\n" + "".join(log[-30:]))
                time.sleep(0.02)
            seconds.append(time.perf_counter() - started)
            time.sleep(1.0)  # the next edit starts from an idle server
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return seconds


def _drain(lines: queue.Queue, log: list[str]) -> None:
    while not lines.empty():
        log.append(lines.get())


def wait_for(lines: queue.Queue, log: list[str], pattern: re.Pattern, timeout: float = 600) -> re.Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            log.append(lines.get(timeout=1))
        except queue.Empty:
            continue
        if match := pattern.search(log[-1]):
            return match
    raise SystemExit(f"bench: `mkdocs serve` never printed {pattern.pattern!r}:\n" + "".join(log[-30:]))


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="thunder-docs-bench-") as tmp:
        site, cache, cache2 = Path(tmp) / "site", Path(tmp) / "cache", Path(tmp) / "cache2"
        site.mkdir()
        copy_site(site)
        bare_config = write_bare_config(site)
        bare, _ = timed_build(site, Path(tmp) / "bare-cache", strict=False, config=bare_config)
        imp = import_seconds()
        plain, _ = timed_build(site, Path(tmp) / "plain-cache", strict=False, THUNDER_DOCS_EXECUTE="false")
        cold, stats = timed_build(site, cache, THUNDER_DOCS_JOBS="1")
        sections, executed = stats.section_seconds, stats.executed
        warm, warm_stats = timed_build(site, cache)
        assert warm_stats.executed == 0, "the warm build executed sections"
        cold2, _ = timed_build(site, cache2, THUNDER_DOCS_JOBS="2")
        snippet = site / "snippets" / "first_trace.py"
        last_end = snippet.read_text().rstrip("\n").rsplit("\n", 1)[1]  # the last section's end marker
        edits = []
        for n in range(EDITS):  # a prose edit, then a snippet edit, each with new text
            edits.append((site / "docs" / "first_trace.md", f"\nProse sentence number {n}.\n", f"Prose sentence number {n}."))
            edits.append((snippet, (last_end, f"# comment number {n}\n" + last_end), f"# comment number {n}"))
        seconds = serve_edit_seconds(site, cache, edits)
        prose_runs, code_runs = seconds[0::2], seconds[1::2]
        prose, code = statistics.median(prose_runs), statistics.median(code_runs)
        page_run = stats.page_seconds()["docs/first_trace.md"]

    rows = [
        ("bare Material build (search only)", bare, None, None),
        ("import torch + thunder", imp, None, None),
        (f"sections ({executed}) and notebooks executed", sections, None, None),
        ("plain build (execution off)", plain, plain / bare, None),
        ("cold build, 1 worker", cold, cold / bare, None),
        ("cold build, 2 workers", cold2, cold2 / bare, None),
        ("warm build (nothing changed)", warm, warm / bare, "warm"),
        ("prose edit until served (serve)", prose, prose / bare, "prose edit"),
        ("snippet edit until served (serve)", code, code / (bare + page_run), "snippet edit"),
    ]
    print(f"{'figure':38} {'seconds':>8} {'ratio':>7} {'target':>7}")
    for name, seconds, ratio, target in rows:
        r = f"{ratio:7.2f}" if ratio is not None else " " * 7
        t = f"<= {TARGETS[target]:.2f}" if target else ""
        verdict = "" if not target else ("  met" if ratio <= TARGETS[target] else "  MISSED")
        print(f"{name:38} {seconds:8.2f} {r} {t:>7}{verdict}")
    print(f"ratios: / the bare build; the snippet edit's: / (bare + the page's execution, {page_run:.2f} s)")
    print(f"serve rows: the median of {EDITS} edits each; prose: {' '.join(f'{x:.2f}' for x in prose_runs)} s; "
          f"snippet: {' '.join(f'{x:.2f}' for x in code_runs)} s")
    print("\nexecution time each page adds to a cold build:")
    for page, seconds in sorted(stats.page_seconds().items(), key=lambda item: -item[1]):
        print(f"  {page:38} {seconds:8.2f} s")


if __name__ == "__main__":
    main()
