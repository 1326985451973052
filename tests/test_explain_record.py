"""The explorer's record (explain/record_format.py) on a real run: the report of a script with a
backward and a ThunderFX split reads back equal, and the page made from the record is the page
made from the run. In a process of its own: the run installs the explorer's hooks into Thunder."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from conftest import mkdocs_env

SCRIPT = """
    import torch
    import thunder
    from thunder.dynamo import thunderfx

    def f(a, b):
        return torch.sin(a * b) + a

    jf = thunder.jit(f)
    jf(torch.ones(3, requires_grad=True), torch.ones(3)).sum().backward()

    def fn(x):
        y = torch.sin(x)
        h = torch.histc(y, bins=4)
        return torch.cos(h).sum() + y.sum()

    thunderfx(fn)(torch.randn(8))
"""

DRIVER = """
    import runpy
    from pathlib import Path

    from thunder_docs.explain.collect import collecting
    from thunder_docs.explain.page import page
    from thunder_docs.explain.record_format import read_record, write_record
    from thunder_docs.explain.report import build

    with collecting(lambda message: None) as found:
        runpy.run_path("script.py", run_name="__main__")
    report = build(found, Path.cwd(), "script.py")
    write_record(report, Path("script.record.json.gz"))
    back = read_record(Path("script.record.json.gz"))
    assert back == report
    assert page(back, None) == page(report, None)
    print(report.compilations, len(report.graphs), sum(len(g.parts) for g in report.graphs), len(report.sources))
"""


def test_a_real_runs_report_reads_back_and_makes_the_same_page(tmp_path):
    (tmp_path / "script.py").write_text(textwrap.dedent(SCRIPT))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(DRIVER)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env=mkdocs_env())
    assert done.returncode == 0, done.stdout + done.stderr
    compilations, graphs, parts, sources = map(int, done.stdout.split()[-4:])
    assert compilations >= 2 and graphs >= 1 and parts >= 2 and sources == 1  # jit, a ThunderFX split, script.py
