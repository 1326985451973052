"""Run the explorer on one script, in a process of its own, and keep its page by a digest.

The key covers what the page is made from: the script's text, the explorer's code (with every
module of this package it imports), the stylesheets and script the page inlines, the installed
Thunder, torch and Python, and which hooks into Thunder are switched off. The explorer runs
from the folder of ``mkdocs.yml``, so the page names the script by its path in the repository.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from thunder_docs.explain.page import STYLE
from thunder_docs.shared.code_digest import loaded_digest
from thunder_docs.shared.files import digest, stable, write_atomic
from thunder_docs.shared.hooks import installed_check, off_env
from thunder_docs.shared.trace_markup import SCRIPT_FILE, STYLESHEET_FILE
from thunder_docs.shared.versions import package_versions

EXPLORER = "thunder_docs.explain.cli"
INLINED = (STYLE, STYLESHEET_FILE, SCRIPT_FILE)  # not Python, so not in the code digest: read by explain/page.py
_TAIL_LINES = 25  # of the explorer's messages, in the error of a run that failed


class ExploreError(Exception):
    """A script the explorer could not turn into a page: the message names it and says why."""


@dataclass(frozen=True)
class Explored:
    script: str  # relative to the folder of mkdocs.yml
    page: Path  # the cached page
    reused: bool


def key(root: Path, script: str) -> str:
    """The digest of everything the page of ``script`` is made from."""
    text = (root / script).read_bytes()
    inlined = (f.read_bytes() for f in INLINED)
    return digest(script, text, loaded_digest(EXPLORER), *inlined, repr(stable(package_versions())),
                  repr(sorted(off_env(installed_check()).items())))


def explore(root: Path, script: str, cache: Path, timeout: int,
            started: Callable[[subprocess.Popen], None] = lambda proc: None) -> Explored:
    """The page of ``script``: from the cache when nothing it depends on changed, else made now."""
    source = root / script
    if not source.is_file():
        raise ExploreError(f"thunder-explore: {script}: no such script (listed under thunder-explore's scripts)")
    page = cache / f"{Path(script).stem}-{key(root, script)[:16]}.html"
    if page.is_file():
        return Explored(script, page, reused=True)
    partial = page.with_suffix(".partial.html")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(Path(__file__).parents[3]),
                                                                    os.environ.get("PYTHONPATH"))))}
    # A session of its own: a build that stops ends the explorer and whatever it started (stop()).
    proc = subprocess.Popen([sys.executable, "-m", "thunder_docs.explain", "--out", str(partial), script],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    started(proc)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        raise ExploreError(f"thunder-explore: {script}: the explorer did not finish in {timeout} s "
                           "(thunder-explore's timeout)") from expired
    finally:
        stop(proc)  # also what the script started and left running (its session's other processes)
    if proc.returncode != 0 or not partial.is_file():
        tail = "\n".join(stderr.strip().splitlines()[-_TAIL_LINES:])
        partial.unlink(missing_ok=True)
        raise ExploreError(f"thunder-explore: {script}: thunder-explain exited with {proc.returncode}; "
                           f"its last messages:\n{tail}")
    write_atomic(page, partial.read_text(encoding="utf-8"))
    partial.unlink()
    return Explored(script, page, reused=False)


def stop(proc: subprocess.Popen) -> None:
    """End an explorer run and every process it started (its session), and wait for it."""
    with contextlib.suppress(ProcessLookupError):  # none left
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
