"""The MkDocs plugin that executes each page's snippet sections and embeds what they printed.

Hooks, in the order MkDocs calls them:

- ``on_config``: point pymdownx.snippets at the repository and make a missing include fatal.
- ``on_files``: read every page, resolve its includes and execute them (or take them from
  the cache), all pages before any is rendered, then compare the output with the approved
  output; execute notebooks (notebooks.py). Any failure aborts the build before anything is
  written.
- ``on_pre_page``: hand mkdocs-jupyter the executed copy of a notebook.
- ``on_page_markdown``: put each section's output under the block that shows its code;
  sections marked ``<!-- exec: cuda -->`` get a CPU tab and a CUDA tab.
"""

from __future__ import annotations

import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.utils.meta import get_data

from . import approved
from .cache import CachedOutput, OutputCache, device_name, fingerprint, section_keys
from .notebooks import NotebookError, executed_copy
from .runner import ExecutionError, PageJob, Runner, SectionResult
from .sections import Include, SnippetError, find_includes

log = logging.getLogger("mkdocs.plugins.thunder_docs")

CPU, CUDA = "cpu", "cuda"


class ExecConfig(base.Config):
    execute = c.Type(bool, default=True)
    timeout = c.Type((int, float), default=120)
    max_output_chars = c.Type(int, default=100_000)
    preload = c.ListOfItems(c.Type(str), default=["torch", "thunder"])
    jobs = c.Type(int, default=1)
    cache = c.Type(bool, default=True)
    cache_dir = c.Type(str, default=".cache/thunder-docs")
    approve = c.Type(bool, default=True)


@dataclass
class PagePlan:
    page: str
    includes: list[Include]
    job: PageJob

    @property
    def cuda_sections(self) -> list[str]:
        return [s.name for inc in self.includes if inc.cuda for s in inc.sections]


class ThunderDocsPlugin(BasePlugin[ExecConfig]):
    def __init__(self):
        self.runner: Runner | None = None
        self.results: dict[str, dict[str, dict[str, SectionResult]]] = {CPU: {}, CUDA: {}}

    # -- configuration -------------------------------------------------------------------
    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
        snippets["base_path"] = [str(self.root)]
        snippets["check_paths"] = True
        if self.runner is None:
            self.runner = Runner(self.root, self.config.preload)
        cache_dir = Path(os.environ.get("THUNDER_DOCS_CACHE_DIR", self.config.cache_dir))
        self.cache = OutputCache(self.root / cache_dir) if self.config.cache else None
        self.update = os.environ.get("THUNDER_DOCS_UPDATE", "") == "1"
        self.gpu = device_name()
        return config

    def on_serve(self, server, config, builder):
        """`mkdocs serve` watches docs/ only; snippet edits must rebuild too."""
        server.watch(str(self.root / "snippets"))
        return server

    # -- execution -----------------------------------------------------------------------
    def on_files(self, files: Files, config) -> Files:
        plans = [plan for file in files.documentation_pages() if (plan := self._plan(config, file))]
        self.results = {CPU: {}, CUDA: {}}
        self.stats: list[dict] = []
        if not self.config.execute:
            log.warning("thunder_docs: execution is off; pages show no output")
            return files
        # Notebooks run in their own kernel, alongside the pages' workers.
        with ThreadPoolExecutor(max_workers=1) as pool:
            notebooks = pool.submit(self._execute_notebooks, files)
            self.results[CPU] = self._execute([p.job for p in plans], CPU)
            notebooks.result()
        if self.gpu != CPU:
            cuda_jobs = [PageJob(p.page, p.job.sections, p.job.timeout, p.job.max_output_chars,
                                 {"THUNDER_DOCS_DEVICE": CUDA}) for p in plans if p.cuda_sections]
            self.results[CUDA] = self._execute(cuda_jobs, CUDA)
        if self.config.approve:
            self._check_approved(plans)
        if stats_file := os.environ.get("THUNDER_DOCS_STATS"):
            Path(stats_file).write_text(json.dumps(self.stats, indent=2))
        return files

    def _plan(self, config, file: File) -> PagePlan | None:
        page = _page_name(config, file)
        source = Path(file.abs_src_path).read_text(encoding="utf-8")
        try:
            includes = find_includes(source, page, self.root)
        except SnippetError as error:
            raise PluginError(str(error)) from None
        if not includes:
            return None
        _, meta = get_data(source)
        sections = [s for inc in includes for s in inc.sections]
        timeout = float(meta.get("exec_timeout", self.config.timeout))
        return PagePlan(page, includes, PageJob(page, sections, timeout, self.config.max_output_chars))

    def _execute(self, jobs: list[PageJob], device: str) -> dict[str, dict[str, SectionResult]]:
        """Each page's results by section name, from the cache or by executing the page."""
        context = {**fingerprint(device if device == CPU else self.gpu), "machine": self.gpu}
        keys = {job.page: section_keys(job.sections, context) for job in jobs}
        results, to_run = {}, []
        for job in jobs:
            cached = [self.cache.get(k) for k in keys[job.page]] if self.cache else [None]
            if all(cached):
                results[job.page] = [SectionResult(s, c.output, c.stderr, c.seconds)
                                     for s, c in zip(job.sections, cached)]
            else:
                to_run.append(job)
        started = time.perf_counter()
        outcomes = self.runner.run_pages(to_run, self.config.jobs) if to_run else {}
        errors = [o for o in outcomes.values() if isinstance(o, ExecutionError)]
        if errors:
            for error in errors:
                log.debug("thunder_docs: %s\n%s", error, error.details)
            raise PluginError("\n".join(_describe(e) for e in errors))
        for page, outcome in outcomes.items():
            results[page] = outcome
            for key, result in zip(keys[page], outcome):
                if self.cache:
                    self.cache.put(key, CachedOutput(result.output, result.stderr, result.seconds))
                if result.stderr.strip():
                    log.info("thunder_docs: %s, section '%s' wrote to stderr:\n%s",
                             page, result.section.name, result.stderr.strip())
        executed = sum(len(j.sections) for j in to_run)
        reused = sum(len(j.sections) for j in jobs) - executed
        wall = time.perf_counter() - started
        self.stats.append({"device": device, "executed": executed, "reused": reused, "wall_seconds": wall,
                           "section_seconds": sum(r.seconds for p in outcomes for r in results[p]),
                           "page_seconds": {p: sum(r.seconds for r in results[p]) for p in outcomes}})
        log.info("thunder_docs: %s: executed %d sections of %d pages in %.1f s; reused %d from the cache",
                 device, executed, len(to_run), wall, reused)
        return {page: {r.section.name: r for r in rs} for page, rs in results.items()}

    def _execute_notebooks(self, files: Files) -> None:
        """Execute each notebook (or take it from the cache); mkdocs-jupyter renders the copy."""
        self.notebooks: dict[str, str] = {}
        context = {**fingerprint(CPU), "machine": self.gpu}
        cache_dir = self.cache.directory if self.cache else self.root / ".cache" / "thunder-docs"
        for file in files:
            if not file.src_uri.endswith(".ipynb") or file.abs_src_path is None:
                continue
            shown = f"{Path(file.abs_src_path).relative_to(self.root).as_posix()}"
            started = time.perf_counter()
            try:
                copy, ran = executed_copy(Path(file.abs_src_path), shown, self.root, cache_dir, context,
                                          float(self.config.timeout))
            except NotebookError as error:
                raise PluginError(str(error)) from None
            self.notebooks[file.src_uri] = str(copy)
            seconds = time.perf_counter() - started
            if ran:
                self.stats.append({"device": CPU, "notebook": shown, "executed": 0, "reused": 0,
                                   "wall_seconds": seconds, "section_seconds": seconds,
                                   "page_seconds": {shown: seconds}})
            log.info("thunder_docs: %s: %s", shown, f"executed in {seconds:.1f} s" if ran else "reused from the cache")

    def on_pre_page(self, page, config, files):
        """Hand mkdocs-jupyter the executed copy of a notebook (downloads keep the stored one)."""
        if page.file.src_uri in getattr(self, "notebooks", {}):
            page.file.abs_src_path = self.notebooks[page.file.src_uri]
        return page

    def _check_approved(self, plans: list[PagePlan]) -> None:
        """Compare live output with the approved output of each device that ran."""
        problems = []
        for device, results in self.results.items():
            label = CPU if device == CPU else self.gpu
            for plan in plans:
                if plan.page not in results:
                    continue
                names = [s.name for s in plan.job.sections] if device == CPU else plan.cuda_sections
                sections = [(n, results[plan.page][n].output) for n in names]
                path = approved.path_for(self.root, plan.page, device)
                if self.update:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(approved.render(plan.page, device, approved.provenance(label), sections))
                elif diff := approved.drift(path, self.root, sections):
                    problems.append(f"{plan.page}: the output on {device} differs from the approved output:\n{diff}")
        if problems:
            raise PluginError("\n".join(problems) + "\nIf the new output is right, accept it with: "
                              + approved.UPDATE_COMMAND)

    # -- rendering -----------------------------------------------------------------------
    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        name = _page_name(config, page.file)
        includes = find_includes(markdown, name, self.root)
        if not self.config.execute or not includes:
            return markdown
        lines = markdown.split("\n")
        for inc in reversed(includes):
            lines[inc.fence.end + 1 : inc.fence.end + 1] = self._render(name, inc)
        return "\n".join(lines)

    def _render(self, page: str, inc: Include) -> list[str]:
        cpu = _join(self.results[CPU][page], inc)
        if not inc.cuda:
            return _output_block(inc, cpu, inc.fence.indent) if cpu else []
        inner = inc.fence.indent + "    "
        if page in self.results[CUDA]:
            cuda_title, cuda_body = f"CUDA ({self.gpu}, this build)", _output_block(
                inc, _join(self.results[CUDA][page], inc), inner, "exec-cuda")
        else:
            cuda_title, cuda_body = "CUDA", self._recorded_cuda(page, inc, inner)
        cpu_title = "CPU (this build)"
        return ["", f'{inc.fence.indent}=== "{cpu_title}"', *(_output_block(inc, cpu, inner) or ["", f"{inner}(no output)"]),
                "", f'{inc.fence.indent}=== "{cuda_title}"', *cuda_body]

    def _recorded_cuda(self, page: str, inc: Include, indent: str) -> list[str]:
        recorded = approved.load(approved.path_for(self.root, page, CUDA))
        names = [s.name for s in inc.sections]
        if recorded is None or not all(n in recorded.sections for n in names):
            return ["", f"{indent}!!! info \"No CUDA output recorded yet\"",
                    f"{indent}    This build ran on a machine without CUDA, and no output of this code on "
                    f"CUDA has been recorded yet. The CPU tab shows what it printed here."]
        output = "\n".join(recorded.sections[n] for n in names if recorded.sections[n])
        return ["", f"{indent}!!! note \"Recorded output\"", f"{indent}    {recorded.label()}. This build ran "
                f"on a machine without CUDA, so it shows the approved output from "
                f"`{approved.path_for(self.root, page, CUDA).relative_to(self.root).as_posix()}`.",
                *_output_block(inc, output, indent, "exec-cuda")]


def _join(results: dict[str, SectionResult], inc: Include) -> str:
    return "\n".join(o for s in inc.sections if (o := results[s.name].output))


def _page_name(config, file: File) -> str:
    docs = Path(config.docs_dir).resolve()
    root = Path(config.config_file_path).resolve().parent
    return str((docs / file.src_uri).relative_to(root))


def _output_block(inc: Include, output: str, indent: str, css: str = "") -> list[str]:
    if not output:
        return []
    longest = max((len(line) - len(line.lstrip("`")) for line in output.split("\n")), default=0)
    fence = "`" * max(3, longest + 1)
    body = [indent + line if line else line for line in output.split("\n")]
    classes = f".{inc.output_lang} .exec-output" + (f" .{css}" if css else "")
    return ["", f'{indent}{fence} {{ {classes} title="Output" }}', *body, f"{indent}{fence}"]


def _describe(error: ExecutionError) -> str:
    last = error.details.strip().splitlines()[-6:] if error.details else []
    trace = ("\n    " + "\n    ".join(last)) if last else ""
    return f"{error}{trace}"
