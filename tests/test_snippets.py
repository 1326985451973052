"""(a) Every snippet file runs on its own."""

import pytest

from conftest import SNIPPET_FILES, run_snippet


@pytest.mark.parametrize("path", SNIPPET_FILES)
def test_snippet_runs_standalone(path):
    proc = run_snippet(path)
    assert proc.returncode == 0, f"python {path} failed:\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), f"python {path} printed nothing"
