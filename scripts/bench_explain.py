"""Measure thunder-explain (scripts/dev bench-explain): what it costs beside the script's own run,
and how a page with a trace of thousands of lines responds. Prints figures and ratios measured in
this one run; asserts nothing.

1. A training step (an nn.Module, forward, backward, a second call that hits the cache): the
   script's own run (``python step.py``) and ``thunder-explain step.py``, each the median of 3 runs
   in fresh processes; the target is a ratio of at most 1.5.
2. A real model: a training step of Thunder's nanoGPT (two layers, ``examples/real_model_step.py``),
   the script and ``thunder-explain`` each the median of 3 runs (target: a ratio of at most 1.5); its
   page loaded in Chromium (target: at most 2 s) and hovered (target: at most 100 ms).
3. A generated function whose final trace has about 5,000 lines: how long explain takes, the page's
   size, how long Chromium takes to load it, and how long a hover takes to highlight a name's uses
   (median of 7 hovers over different names), measured in the page with performance.now().
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

STEP = """
import torch
import thunder


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 64)
        self.fc2 = torch.nn.Linear(64, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(0)
model = thunder.jit(Model())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 64)
for _ in range(2):
    model(x).sum().backward()
    opt.step()
    opt.zero_grad()
"""


def long_script(lines: int) -> str:
    """A function of about ``lines`` // 2 operations: each prints a source comment and a line."""
    body = "\n".join(f"    x = torch.sin(x) if {k} % 2 else x * 1.0001" for k in range(lines // 2))
    return f"import torch\nimport thunder\n\n\ndef f(x):\n{body}\n    return x\n\n\nthunder.jit(f)(torch.ones(4))\n"


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{proc.stderr[-2000:]}")
    return time.perf_counter() - started


def median_of(runs: int, command: list[str], cwd: Path) -> float:
    return statistics.median(timed(command, cwd) for _ in range(runs))


def hover_times(page_file: Path, count: int = 7) -> tuple[float, list[float], int]:
    from browser.harness import launch
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        tab = browser.new_context().new_page()
        started = time.perf_counter()
        tab.goto(page_file.as_uri(), wait_until="load")
        loaded = time.perf_counter() - started
        lines = tab.locator(".tl").count()
        times = []
        names = tab.locator(".tp[data-def]")
        for k in range(count):
            target = names.nth(k * 37)
            target.scroll_into_view_if_needed()
            times.append(tab.evaluate("""(el) => {
                const t0 = performance.now();
                el.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
                if (!document.querySelector(".is-linked")) return -1;
                return performance.now() - t0;
            }""", target.element_handle()))
            tab.mouse.move(0, 0)
        browser.close()
    return loaded, times, lines


def main() -> None:
    explain = [sys.executable, "-m", "thunder_docs.explain"]
    with tempfile.TemporaryDirectory(prefix="bench-explain-") as folder:
        work = Path(folder)
        (work / "step.py").write_text(textwrap.dedent(STEP))
        (work / "long.py").write_text(long_script(5000))
        own = median_of(3, [sys.executable, "step.py"], work)
        explained = median_of(3, [*explain, "step.py"], work)
        print(f"training step: python {own:.2f} s, thunder-explain {explained:.2f} s, "
              f"ratio {explained / own:.2f} (target <= 1.50)")
        (work / "real_model_step.py").write_text((ROOT / "examples" / "real_model_step.py").read_text())
        own = median_of(3, [sys.executable, "real_model_step.py"], work)
        explained = median_of(3, [*explain, "real_model_step.py"], work)
        loaded, hovers, lines = hover_times(work / "explain" / "real_model_step.html")
        print(f"real model (nanoGPT, 2 layers): python {own:.2f} s, thunder-explain {explained:.2f} s, "
              f"ratio {explained / own:.2f} (target <= 1.50); {lines:,} marked trace lines; Chromium load "
              f"{loaded:.2f} s (target <= 2); hover median {statistics.median(hovers):.1f} ms "
              f"(max {max(hovers):.1f} ms; target <= 100)")
        long_seconds = timed([*explain, "long.py"], work)
        page = work / "explain" / "long.html"
        loaded, hovers, lines = hover_times(page)
        print(f"long trace: {lines:,} marked trace lines on the page, {page.stat().st_size / 1e6:.1f} MB; "
              f"explain {long_seconds:.1f} s; Chromium load {loaded:.2f} s; hover to highlight "
              f"median {statistics.median(hovers):.1f} ms (max {max(hovers):.1f} ms, {len(hovers)} hovers)")


if __name__ == "__main__":
    main()
