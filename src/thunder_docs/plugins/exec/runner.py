"""Execute the sections of a page, in order, in one Python session, and capture what they print.

Which process runs the code: a forkserver started from the build process the first
time a page needs executing. It imports torch and thunder once (``preload``); each page
then runs in a fresh process forked from it. So a build pays the import once, pages
cannot leak state into each other, and a section that hangs or prints without end
can be stopped by killing its process, which a thread inside the build could not be.
Nothing a page starts outlives it (``page/processes.py``): the page's process ends its
descendants when its sections are done, and a page the build gives up on is ended with
every process below it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.plugins import get_plugin_logger

from thunder_docs.page import processes, worker
from thunder_docs.page.normalize import normalize
from thunder_docs.page.protocol import Ready, SectionDone, SectionFailed
from thunder_docs.plugins.exec.cache import page_code_digest
from thunder_docs.shared.results import SectionResult
from thunder_docs.shared.sections import Section

_POLL_SECONDS = 0.05
# The pids of the pages' processes running now, in this process: they share one forkserver.
_PAGES: set[int] = set()
_PAGES_LOCK = threading.Lock()
_forkserver_page_code: str | None = None  # the digest of the page code when the forkserver was last (re)started
log = get_plugin_logger("thunder-exec")


@dataclass
class PageJob:
    page: str  # docs-relative path shown in messages, e.g. docs/first_trace.md
    sections: list[Section]
    timeout: float
    max_output_chars: int
    env: dict[str, str] = field(default_factory=dict)  # set in the page's process only
    graphs: dict[str, list[str]] = field(default_factory=dict)  # section name -> traces to draw after it


def exit_status(exitcode: int | None) -> str:
    """How a process ended, as a reader wants it: "killed by SIGSEGV (signal 11)", "exit code 3".

    multiprocessing gives a process killed by a signal the negative signal number as its exit code."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "an unknown signal"
        return f"killed by {name} (signal {-exitcode})"
    return f"exit code {exitcode}"


def _restart_forkserver() -> None:
    """Stop the forkserver; the next page's process starts a new one, which imports the code anew.

    multiprocessing has no public way to stop it: this calls ``ForkServer._stop``, which CPython's
    own tests use (3.8 to 3.14), and fails loudly where a Python has none."""
    stop = getattr(getattr(multiprocessing.forkserver, "_forkserver", None), "_stop", None)
    if stop is None:
        raise RuntimeError("thunder-exec: this Python's multiprocessing.forkserver cannot be stopped "
                           "(no ForkServer._stop): restart mkdocs serve to run the edited page code")
    stop()


class ExecutionError(Exception):
    """A section that raised, ran past its timeout or printed too much."""

    def __init__(self, page: str, section: Section, cause: str, line: int | None = None, details: str = ""):
        self.page, self.section, self.cause, self.details = page, section, cause, details
        self.line = line or section.start_line
        self.done: list[SectionResult] = []  # the page's sections that ran before this one, once known
        super().__init__(
            f"{page}: section '{section.name}' failed at {section.path}:{self.line}: {cause}"
        )


@dataclass
class Runner:
    root: Path
    preload: list[str] = field(default_factory=list)
    _context: multiprocessing.context.BaseContext | None = None

    def page_code(self) -> str:
        """The digest of the code the pages run: the forkserver's. Where the files changed since it
        was noted (an edit under ``mkdocs serve``: the forkserver, one per process, outlives each
        build), it is restarted first, so the pages run the code that the cache keys name."""
        global _forkserver_page_code
        current = page_code_digest()
        with _PAGES_LOCK:
            if _forkserver_page_code is not None and current != _forkserver_page_code:
                log.info("the page code changed: the page processes start again with it")
                _restart_forkserver()
            _forkserver_page_code = current
        return current

    def context(self):
        if self._context is None:
            # Same hash seed in every worker, so sets of strings print in one order.
            os.environ["PYTHONHASHSEED"] = "0"
            os.environ["THUNDER_DOCS_PRELOAD"] = ",".join(self.preload)
            self._context = multiprocessing.get_context("forkserver")
            # The page's own code too: each page's process would import it again, 0.14 s a page.
            self._context.set_forkserver_preload(["thunder_docs.page.preload", worker.__name__])
        return self._context

    def warm_up(self) -> None:
        """Start the forkserver now (it imports the preloaded modules), ahead of the first page."""
        self.context()
        multiprocessing.forkserver.ensure_running()

    def run_pages(self, jobs: list[PageJob], workers: int = 1,
                  on_done: Callable[[PageJob, float], None] | None = None) -> dict[str, list[SectionResult] | ExecutionError]:
        """Run several pages, up to ``workers`` at once; each page's result or error, in the order given.

        ``on_done(job, seconds)`` is called as each page finishes, in the order they finish.
        """

        def one(job: PageJob):
            started = time.perf_counter()
            try:
                return self.run_page(job)
            except ExecutionError as error:
                return error
            finally:
                if on_done is not None:
                    on_done(job, time.perf_counter() - started)

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            return dict(zip((j.page for j in jobs), pool.map(one, jobs), strict=True))

    def run_page(self, job: PageJob) -> list[SectionResult]:
        ctx = self.context()
        with tempfile.TemporaryDirectory(prefix="thunder-docs-") as tmp:
            receive, send = ctx.Pipe(duplex=False)
            process = ctx.Process(target=worker.run_page, args=(send, str(self.root), job.sections, tmp, job.env, job.graphs),
                                  daemon=True)
            with _PAGES_LOCK:  # no page's process unknown while strays are looked for
                process.start()
                _PAGES.add(process.pid)
            send.close()
            forkserver = 0  # the pid of the process it was forked from, once it says
            try:
                forkserver = self._ready(job, receive, process).forkserver
                done: list[SectionResult] = []
                try:
                    for i in range(len(job.sections)):
                        done.append(self._wait(job, i, receive, process, Path(tmp)))
                except ExecutionError as error:
                    error.done = done  # the sections before it, for a report that goes on (drift/execute.py)
                    raise
                return done
            finally:
                # A page's process ends what its sections started before it sends its last
                # message; its tree is ended all the same, with anything started since.
                ended = not process.is_alive()  # it died (or was killed above)
                if not ended:
                    _end(process)
                process.join()
                _end_group(process.pid)
                receive.close()
                with _PAGES_LOCK:
                    _PAGES.discard(process.pid)
                    if ended and forkserver:  # it may have died leaving processes to the forkserver
                        _end_strays(forkserver)

    def _ready(self, job, receive, process) -> Ready:
        if not receive.poll(job.timeout):
            _end(process)
            raise ExecutionError(job.page, job.sections[0], "the worker process did not start")
        try:
            ready: Ready = receive.recv()
        except EOFError:  # it died while importing what every page preloads
            process.join()
            raise ExecutionError(job.page, job.sections[0],
                                 f"the worker process died before it was ready ({exit_status(process.exitcode)})") from None
        for warning in ready.preload_warnings:
            log.debug("while importing %s: %s", ", ".join(self.preload), warning)
        return ready

    def _wait(self, job, index, receive, process, tmp: Path) -> SectionResult:
        section = job.sections[index]
        out_file = tmp / f"{index}.out"
        started = time.monotonic()
        while not receive.poll(_POLL_SECONDS):
            elapsed = time.monotonic() - started
            size = out_file.stat().st_size if out_file.exists() else 0
            if size > job.max_output_chars:
                _end(process)
                raise ExecutionError(
                    job.page, section, f"printed more than the limit of {job.max_output_chars:,} characters"
                )
            if elapsed > job.timeout:
                _end(process)
                raise ExecutionError(job.page, section, f"ran past the timeout of {job.timeout:g} s")
            if not process.is_alive() and not receive.poll(0):
                raise ExecutionError(
                    job.page, section, f"the worker process died ({exit_status(process.exitcode)})"
                )
        try:
            message: SectionDone | SectionFailed = receive.recv()
        except EOFError:
            process.join()
            raise ExecutionError(job.page, section, f"the worker process died ({exit_status(process.exitcode)})") from None
        stdout = out_file.read_text(encoding="utf-8", errors="replace")
        if isinstance(message, SectionFailed):
            raise ExecutionError(job.page, section, message.summary, line=message.line, details=message.details)
        if len(stdout) > job.max_output_chars:
            raise ExecutionError(
                job.page, section,
                f"printed {len(stdout):,} characters, more than the limit of {job.max_output_chars:,} characters",
            )
        return SectionResult(section, normalize(stdout, self.root), message.stderr, message.seconds,
                             graphs=message.graphs, traces=message.traces)


def _end(process) -> None:
    """Kill a page's process and, first, every process below it (on Linux; elsewhere its group, below)."""
    if processes.trees_visible():
        processes.kill_tree(process.pid)
    else:
        process.kill()


def _end_strays(forkserver: int) -> None:
    """End what a page's process that died left running: it was handed to the forkserver, a
    subreaper, whose other children are the pages' processes running now (hold _PAGES_LOCK)."""
    if processes.trees_visible() and processes.parent(forkserver) == os.getpid():  # still ours
        for pid in processes.children(forkserver):
            if pid not in _PAGES:
                processes.kill_tree(pid)


def _end_group(pid: int) -> None:
    """End whatever a page's process started and left running (its process group, see page/worker.py)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):  # nothing left in the group
        os.killpg(pid, signal.SIGKILL)


