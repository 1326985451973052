"""The page's process: run a page's sections in order, in one namespace, and report each one.

Started by the build (``plugins/exec/runner.py``) in a process forked from the forkserver, with
a pipe to send one message per section (``protocol.py``). Standard output and error go to files
(file descriptors 1 and 2, so prints from C code are caught too); trace lines are recorded as
they print (``capture.py``); graphs a block asks for are drawn from its objects (``graph.py``).
"""

from __future__ import annotations

import os
import random
import sys
import time
import traceback
from pathlib import Path

from thunder_docs.page import processes
from thunder_docs.page.capture import Recorder, UnmappedTraces
from thunder_docs.page.protocol import Ready, SectionDone, SectionFailed
from thunder_docs.shared.sections import Section


def run_page(conn, root: str, sections: list[Section], tmp: str, env: dict[str, str],
           graphs: dict[str, list[str]]) -> None:
    """Worker side: run each section in one namespace, send one message per section."""
    # Whatever a section starts ends with the page (processes.py): on Linux this process is its
    # subreaper and ends it; elsewhere the build ends the process group.
    os.setpgrp()
    processes.become_subreaper()
    os.chdir(root)
    os.environ.update(env)  # the page's own settings (the device), in its process only
    from thunder_docs.page import preload

    conn.send(Ready(preload.WARNINGS, os.getppid()))
    namespace: dict = {"__name__": "__main__", "__builtins__": __builtins__}
    if sections:
        namespace["__file__"] = sections[0].path
        sys.path.insert(0, os.path.join(root, os.path.dirname(sections[0].path)))
    _seed()
    recorder = Recorder(Path(root))
    for index, section in enumerate(sections):
        path = section.path
        recorder.start()
        started = time.perf_counter()
        with _Capture(Path(tmp) / f"{index}.out", Path(tmp) / f"{index}.err") as capture:
            try:
                exec(compile("\n" * (section.start_line - 1) + section.code, path, "exec"), namespace)
                drawn = _draw(graphs.get(section.name, []), namespace)
                error = None
            except BaseException as exc:  # every failure, KeyboardInterrupt too, is reported to the build
                error = exc
        seconds = time.perf_counter() - started
        if error is not None or index == len(sections) - 1:
            processes.end_descendants()  # before the build reads the last output: nothing writes to it now
        if error is None:
            try:
                traces = recorder.finish_file(capture.out)
            except UnmappedTraces as unmapped:
                conn.send(SectionFailed(seconds, capture.stderr, section.start_line, str(unmapped).split("\n")[0],
                                        str(unmapped)))
                break
            conn.send(SectionDone(seconds, capture.stderr, graphs=drawn, traces=traces))
            continue
        conn.send(SectionFailed(seconds, capture.stderr, _innermost_line(error, path) or section.start_line,
                                "".join(traceback.format_exception_only(error)).strip(),
                                "".join(traceback.format_exception(error)).replace(root + "/", "")))
        break
    conn.close()


def _draw(expressions: list[str], namespace: dict) -> tuple[tuple[str, str], ...]:
    """The dataflow graph of each named trace or bound symbol (``<!-- exec: graph=... -->``)."""
    from thunder_docs.page.graph import mermaid

    drawn = []
    for expression in expressions:
        try:
            value = eval(expression, namespace)  # an expression the page names, over the section's own names
        except Exception as exc:
            raise GraphError(f"graph={expression}: {type(exc).__name__}: {exc}") from None
        drawn.append((expression, mermaid(value, expression)))
    return tuple(drawn)


class GraphError(Exception):
    """A graph= expression that does not name a trace the section made."""


def _innermost_line(error: BaseException, path: str) -> int | None:
    line = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _seed() -> None:
    random.seed(0)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(0)


class _Capture:
    """Send file descriptors 1 and 2 to files, so prints from C code are caught as well."""

    def __init__(self, out: Path, err: Path):
        self.out, self.err = out, err
        self.stderr = ""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self._saved = os.dup(1), os.dup(2)
        self._files = open(self.out, "wb"), open(self.err, "wb")
        os.dup2(self._files[0].fileno(), 1)
        os.dup2(self._files[1].fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(self._saved[0], 1)
        os.dup2(self._saved[1], 2)
        for fd in self._saved:
            os.close(fd)
        for f in self._files:
            f.close()
        self.stderr = self.err.read_text(encoding="utf-8", errors="replace")
        return False
