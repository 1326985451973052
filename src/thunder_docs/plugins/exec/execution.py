"""Give each page its results: from the cache when nothing changed, else by executing it.

Pages run through the :class:`~.runner.Runner` (a process per page); notebooks through
nbclient (notebooks.py). Each round is measured as an :class:`~.results.ExecutionStats`.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger

from thunder_docs.plugins.exec.cache import CachedOutput, OutputCache, ReadFileMissing, fingerprint, section_keys
from thunder_docs.plugins.exec.notebooks import NotebookError, executed_copy
from thunder_docs.plugins.exec.runner import ExecutionError, PageJob, Runner
from thunder_docs.plugins.exec.stderr_log import StderrLog
from thunder_docs.shared.model import Page, Site
from thunder_docs.shared.results import CPU, ExecutionStats, SectionResult
from thunder_docs.shared.sections import Section
from thunder_docs.shared.versions import package_versions

log = get_plugin_logger("thunder-exec")


@dataclass
class Execution:
    """What one build executes, with its settings."""

    site: Site
    runner: Runner
    cache: OutputCache
    machine: str  # the GPU's name, or "cpu"
    use_cache: bool = True
    jobs: int = 1
    timeout: float = 120
    max_output_chars: int = 100_000
    stats: list[ExecutionStats] = field(default_factory=list)
    stderr: StderrLog | None = None  # where sections' and kernels' stderr go
    hooks_env: dict[str, str] = field(default_factory=dict)  # which hooks are off (shared/hooks.py), for the pages
    keep_going: bool = False  # a failed section leaves a note on its page instead of failing the build
    failed: dict[str, ExecutionError] = field(default_factory=dict)  # with keep_going: page path -> its failure

    def pages(self, pages: list[Page], device: str) -> None:
        """Results of ``pages`` on ``device`` into the site model; a failure raises PluginError."""
        jobs = [self._job(page, device) for page in pages]
        context = {**fingerprint(device if device == CPU else self.machine, page_code=self.runner.page_code()),
                   "machine": self.machine, **self.hooks_env}
        try:
            keys = {page.path: section_keys(page.sections, context, page.section_options, self.site.root)
                    for page in pages}
        except ReadFileMissing as missing:
            raise PluginError(f"thunder-exec: {missing}") from None
        to_run = []
        for job in jobs:
            cached = [self.cache.get(k) for k in keys[job.page]] if self.use_cache else [None]
            if all(cached):
                self.site.results.add(device, job.page, [c.result(s) for s, c in zip(job.sections, cached, strict=True)])
            else:
                to_run.append(job)
        total = sum(len(j.sections) for j in jobs)
        log.info("%s: %d pages, %d sections: %d from the cache, %d to run (%d pages)", device, len(jobs), total,
                 total - sum(len(j.sections) for j in to_run), sum(len(j.sections) for j in to_run), len(to_run))
        finished = itertools.count(1)

        def progress(job: PageJob, seconds: float) -> None:
            log.info("executed %d/%d %s in %.1f s", next(finished), len(to_run), job.page, seconds)

        started = time.perf_counter()
        outcomes = self.runner.run_pages(to_run, self.jobs, progress) if to_run else {}
        errors = [o for o in outcomes.values() if isinstance(o, ExecutionError)]
        if errors and self.keep_going:
            for error in errors:  # the page shows what ran before, and a note in place of the rest
                log.warning("%s (the page shows a note in its place)", _describe(error))
                self.failed[error.page] = error
                job = next(j for j in jobs if j.page == error.page)
                self.site.results.add(device, error.page, [*error.done, *failed_notes(job.sections[len(error.done):],
                                                                                       error)])
            outcomes = {p: r for p, r in outcomes.items() if not isinstance(r, ExecutionError)}
        elif errors:
            for error in errors:
                log.debug("%s\n%s", error, error.details)
            raise PluginError("thunder-exec: " + "\n".join(_describe(e) for e in errors))
        for page, results in outcomes.items():
            self.site.results.add(device, page, results)
            self.stderr.add(page, [(r.section.name, r.stderr) for r in results])
            if self.use_cache:
                for key, result in zip(keys[page], results, strict=True):
                    self.cache.put(key, CachedOutput.of(result))
        executed = sum(len(j.sections) for j in to_run)
        wall = time.perf_counter() - started
        page_seconds = {p: sum(r.seconds for r in rs) for p, rs in outcomes.items()}
        self.stats.append(ExecutionStats(device, executed, sum(len(j.sections) for j in jobs) - executed, wall,
                                         sum(page_seconds.values()), page_seconds))
        log.info("%s: executed %d sections of %d pages in %.1f s; reused %d from the cache",
                 device, executed, len(to_run), wall, self.stats[-1].reused)

    def _job(self, page: Page, device: str) -> PageJob:
        timeout = float(page.meta.get("exec_timeout", self.timeout))
        env = {**self.hooks_env, **({} if device == CPU else {"THUNDER_DOCS_DEVICE": device})}
        graphs = {inc.sections[-1].name: inc.graphs for inc in page.includes if inc.graphs}
        return PageJob(page.path, page.sections, timeout, self.max_output_chars, env, graphs)

    def notebooks(self) -> None:
        """Execute each notebook (or take it from the cache); mkdocs-jupyter renders the copy."""
        context = {**fingerprint(CPU), "machine": self.machine}
        for notebook in self.site.notebooks.values():
            started = time.perf_counter()
            try:
                copy, ran, kernel_stderr = executed_copy(notebook.abs_path, notebook.path, self.site.root,
                                                         self.cache.directory, context, self.timeout, self.hooks_env)
            except NotebookError as error:
                if not self.keep_going:
                    raise PluginError(f"thunder-exec: {error}") from None
                log.warning("thunder-exec: %s (the page shows the notebook without its outputs)", error)
                continue
            self.stderr.add(notebook.path, [("kernel", kernel_stderr)])
            self.site.executed_notebooks[notebook.src_uri] = copy
            seconds = time.perf_counter() - started
            if ran:
                self.stats.append(ExecutionStats(CPU, 0, 0, seconds, seconds, {notebook.path: seconds},
                                                 notebook=notebook.path))
            log.info("%s: %s", notebook.path, f"executed in {seconds:.1f} s" if ran else "reused from the cache")


def failed_notes(sections: list[Section], error: ExecutionError) -> list[SectionResult]:
    """What a page shows, in a build that goes on past failures, for the section that failed and
    those after it: a note saying which failed, where and why, in place of their output."""
    versions = package_versions()
    note = (f"[not run] On lightning-thunder {versions['thunder']}, section '{error.section.name}' failed at "
            f"{error.section.path}:{error.line}: {error.cause.splitlines()[0] if error.cause else ''}")
    return [SectionResult(s, note if i == 0 else f"[not run] an earlier section of this page failed ('{error.section.name}')",
                          "", 0.0) for i, s in enumerate(sections)]


def failure_note(markdown: str, error: ExecutionError) -> str:
    """A page's Markdown with a warning under its title: a section of its proof failed on this
    Thunder, so what it says from there on may no longer hold (a build with keep_going)."""
    thunder = package_versions()["thunder"]
    summary = error.cause.splitlines()[0] if error.cause else "it failed"
    note = (f'!!! warning "This page\'s proof failed on lightning-thunder {thunder}"\n\n'
            f"    Its section `{error.section.name}` failed at `{error.section.path}:{error.line}`: {summary}. "
            "That section and the ones after it did not run, and what the page says from there on may not "
            "hold for this Thunder.\n\n")
    lines = markdown.split("\n")
    title = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
    if title is None:
        return note + markdown
    return "\n".join([*lines[:title + 1], "", note.rstrip("\n"), *lines[title + 1:]])


def _describe(error: ExecutionError) -> str:
    last = error.details.strip().splitlines()[-6:] if error.details else []
    trace = ("\n    " + "\n    ".join(last)) if last else ""
    return f"{error}{trace}"
