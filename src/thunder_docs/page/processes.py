"""End every process a page started, wherever it went: a new session, a double fork.

On Linux the page's process is a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``): a
process whose parent ends is handed to its nearest subreaper ancestor instead of to init,
so whatever a section starts, in its own session or after a double fork, stays below the
page's process, where ``/proc`` finds it. The forkserver is one too (``preload.py``), so
what a killed page leaves behind is handed to it and reaped, and what a page's process
that died on its own left running is found among its children (``plugins/exec/runner.py``).

A tree is ended by stopping every process in it first (SIGSTOP: a stopped process cannot
fork), looking again until no new one shows, then killing them all, deepest first, its root
last: nothing is handed away before it is killed.

Elsewhere (no ``prctl``, no ``/proc``) the page's process group is all the build can end
(``plugins/exec/runner.py``): a child in a session of its own escapes it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from pathlib import Path

_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
_PROC = Path("/proc")


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants; False where the system has none."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def trees_visible() -> bool:
    """Whether this system shows processes and their parents in ``/proc``."""
    return (_PROC / "self" / "stat").exists()


def _stat(pid: int | str) -> tuple[str, int] | None:
    """A process's state letter and parent, from ``/proc/<pid>/stat``; None once it is gone."""
    try:
        fields = (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()  # the name may hold ")"
        return fields[0], int(fields[1])
    except (OSError, IndexError, ValueError):  # it ended while we looked
        return None


def _parents() -> dict[int, int]:
    """Each process's parent."""
    found = {}
    for entry in _PROC.iterdir():
        if entry.name.isdigit() and (stat := _stat(entry.name)) is not None:
            found[int(entry.name)] = stat[1]
    return found


def parent(pid: int) -> int | None:
    """The parent of ``pid``, or None if it has ended."""
    return _parents().get(pid)


def children(of: int) -> list[int]:
    """The processes whose parent is ``of``."""
    return [pid for pid, ppid in _parents().items() if ppid == of]


def descendants(root: int) -> list[int]:
    """The processes below ``root``, parents before their children (``root`` not included)."""
    below: dict[int, list[int]] = {}
    for pid, ppid in _parents().items():
        below.setdefault(ppid, []).append(pid)
    found, queue = [], [root]
    while queue:
        for child in below.get(queue.pop(0), ()):
            found.append(child)
            queue.append(child)
    return found


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _await_stopped(pids: list[int]) -> None:
    """Wait (a second at most) until each has stopped or ended: a fork it was making is done then."""
    deadline = time.monotonic() + 1
    waiting = list(pids)
    while waiting and time.monotonic() < deadline:
        waiting = [pid for pid in waiting if (stat := _stat(pid)) is not None and stat[0] not in "TtZX"]
        if waiting:
            time.sleep(0.001)


def _freeze(root: int, stop_root: bool) -> list[int]:
    """Stop ``root``'s tree, looking again until no new process shows; the stopped, in order."""
    stopped: list[int] = []
    if stop_root:
        _signal(root, signal.SIGSTOP)
        _await_stopped([root])
    for _ in range(100):  # each round stops what a process forked before it was stopped
        new = [pid for pid in descendants(root) if pid not in stopped]
        if not new:
            break
        for pid in new:
            _signal(pid, signal.SIGSTOP)
        _await_stopped(new)
        stopped += new
    return stopped


def kill_tree(root: int) -> None:
    """Stop and kill ``root`` and every process below it (the build, on a page it gives up on)."""
    for pid in reversed(_freeze(root, stop_root=True)):
        _signal(pid, signal.SIGKILL)
    _signal(root, signal.SIGKILL)


def end_descendants() -> None:
    """Stop, kill and reap every process below this one (the page's process, its sections done)."""
    if not trees_visible():
        return  # the build ends the page's process group instead
    while True:
        for pid in reversed(_freeze(os.getpid(), stop_root=False)):
            _signal(pid, signal.SIGKILL)
        if _reaped():
            return


def _reaped() -> bool:
    """Reap the killed, and any handed to this process as their parents died; False if a child
    still runs after half a second (one that a thread of this process started since)."""
    deadline = time.monotonic() + 0.5
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return True  # no child left
        if pid:
            deadline = time.monotonic() + 0.5
        elif time.monotonic() > deadline:
            return False
        else:
            time.sleep(0.001)
