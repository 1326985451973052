"""page/processes.py on this machine's /proc: a process tree is seen and ended, parents first."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from thunder_docs.page import processes

pytestmark = pytest.mark.skipif(not processes.trees_visible(), reason="no /proc: process trees are not visible here")


def test_descendants_lists_parents_before_their_children_and_kill_tree_ends_them():
    # A child that starts a grandchild, both sleeping; the grandchild's pid is printed.
    script = "import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); " \
             "print(p.pid, flush=True); time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        grandchild = int(child.stdout.readline())
        assert processes.parent(grandchild) == child.pid
        assert processes.descendants(os.getpid())[:1] != []
        below = processes.descendants(child.pid)
        assert below == [grandchild]
        assert processes.children(child.pid) == [grandchild]
        processes.kill_tree(child.pid)
        child.wait(timeout=10)
        deadline = time.monotonic() + 10
        while processes.parent(grandchild) is not None and time.monotonic() < deadline:
            time.sleep(0.05)  # its new parent (init, or a subreaper) reaps it
        stat = processes._stat(grandchild)
        assert stat is None or stat[0] in "ZX"
    finally:
        if child.poll() is None:
            child.kill()
