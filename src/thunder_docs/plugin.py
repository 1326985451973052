"""The MkDocs plugin that executes each page's snippet sections and embeds what they printed.

Hooks, in the order MkDocs calls them:

- ``on_config``: point pymdownx.snippets at the repository and make a missing include fatal;
  add the Mermaid script, which the site serves itself.
- ``on_files``: read every page, resolve its includes and execute them, all pages before
  any is rendered (so a failure aborts the build before anything is written); add the
  Mermaid script to the site's files.
- ``on_page_markdown``: put each section's output under the block that shows its code.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.utils.meta import get_data

from .cache import CachedOutput, OutputCache, device_name, fingerprint, section_keys
from .runner import ExecutionError, PageJob, Runner, SectionResult
from .sections import Include, SnippetError, find_includes

log = logging.getLogger("mkdocs.plugins.thunder_docs")

MERMAID_URI = "assets/javascripts/mermaid.min.js"


class ExecConfig(base.Config):
    execute = c.Type(bool, default=True)
    timeout = c.Type((int, float), default=120)
    max_output_chars = c.Type(int, default=100_000)
    preload = c.ListOfItems(c.Type(str), default=["torch", "thunder"])
    jobs = c.Type(int, default=1)
    mermaid_js = c.Optional(c.Type(str))
    cache = c.Type(bool, default=True)
    cache_dir = c.Type(str, default=".cache/thunder-docs")


class ThunderDocsPlugin(BasePlugin[ExecConfig]):
    def __init__(self):
        self.runner: Runner | None = None
        self.results: dict[str, list[SectionResult]] = {}

    # -- configuration -------------------------------------------------------------------
    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
        snippets["base_path"] = [str(self.root)]
        snippets["check_paths"] = True
        if self.config.mermaid_js and MERMAID_URI not in config.extra_javascript:
            config.extra_javascript.append(MERMAID_URI)
        if self.runner is None:
            self.runner = Runner(self.root, self.config.preload)
        cache_dir = Path(os.environ.get("THUNDER_DOCS_CACHE_DIR", self.config.cache_dir))
        self.cache = OutputCache(self.root / cache_dir) if self.config.cache else None
        return config

    # -- execution -----------------------------------------------------------------------
    def on_files(self, files: Files, config) -> Files:
        self._add_mermaid(files, config)
        jobs = []
        for file in files.documentation_pages():
            page = _page_name(config, file)
            source = Path(file.abs_src_path).read_text(encoding="utf-8")
            try:
                includes = find_includes(source, page, self.root)
            except SnippetError as error:
                raise PluginError(str(error)) from None
            _, meta = get_data(source)
            sections = [s for inc in includes for s in inc.sections]
            timeout = float(meta.get("exec_timeout", self.config.timeout))
            jobs.append(PageJob(page, sections, timeout, self.config.max_output_chars))
        self.results = {}
        if not self.config.execute:
            log.warning("thunder_docs: execution is off; pages show no output")
            return files
        self._execute([j for j in jobs if j.sections])
        return files

    def _execute(self, jobs: list[PageJob]) -> None:
        """Fill self.results from the cache, executing the pages it cannot serve."""
        context = {**fingerprint("cpu"), "machine": device_name()}
        keys = {job.page: section_keys(job.sections, context) for job in jobs}
        to_run = []
        for job in jobs:
            cached = [self.cache.get(k) for k in keys[job.page]] if self.cache else [None]
            if all(cached):
                self.results[job.page] = [SectionResult(s, c.output, c.stderr, c.seconds)
                                          for s, c in zip(job.sections, cached)]
            else:
                to_run.append(job)
        started = time.perf_counter()
        outcomes = self.runner.run_pages(to_run, self.config.jobs) if to_run else {}
        errors = []
        for page, outcome in outcomes.items():
            if isinstance(outcome, ExecutionError):
                errors.append(outcome)
                continue
            self.results[page] = outcome
            for key, result in zip(keys[page], outcome):
                if self.cache:
                    self.cache.put(key, CachedOutput(result.output, result.stderr, result.seconds))
                if result.stderr.strip():
                    log.info("thunder_docs: %s, section '%s' wrote to stderr:\n%s",
                             page, result.section.name, result.stderr.strip())
        if errors:
            for error in errors:
                log.debug("thunder_docs: %s\n%s", error, error.details)
            raise PluginError("\n".join(_describe(e) for e in errors))
        executed = sum(len(j.sections) for j in to_run)
        reused = sum(len(j.sections) for j in jobs) - executed
        log.info("thunder_docs: executed %d sections of %d pages in %.1f s; reused %d from the cache",
                 executed, len(to_run), time.perf_counter() - started, reused)

    def _add_mermaid(self, files: Files, config) -> None:
        if not self.config.mermaid_js:
            return
        script = self.root / self.config.mermaid_js
        if not script.is_file():
            raise PluginError(f"thunder_docs: the Mermaid script {self.config.mermaid_js} is missing; "
                              "run `scripts/dev setup` to install it")
        files.append(File.generated(config, MERMAID_URI, abs_src_path=str(script)))

    # -- rendering -----------------------------------------------------------------------
    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        name = _page_name(config, page.file)
        includes = find_includes(markdown, name, self.root)
        if not self.config.execute or not includes:
            return markdown
        results = iter(self.results[name])
        lines = markdown.split("\n")
        blocks = []
        for inc in includes:
            outputs = [next(results).output for _ in inc.sections]
            blocks.append((inc, "\n".join(o for o in outputs if o)))
        for inc, output in reversed(blocks):
            if output:
                lines[inc.fence.end + 1 : inc.fence.end + 1] = _output_block(inc, output)
        return "\n".join(lines)


def _page_name(config, file: File) -> str:
    docs = Path(config.docs_dir).resolve()
    root = Path(config.config_file_path).resolve().parent
    return str((docs / file.src_uri).relative_to(root))


def _output_block(inc: Include, output: str) -> list[str]:
    longest = max((len(line) - len(line.lstrip("`")) for line in output.split("\n")), default=0)
    fence = "`" * max(3, longest + 1)
    indent = inc.fence.indent
    body = [indent + line if line else line for line in output.split("\n")]
    return ["", f'{indent}{fence} {{ .{inc.output_lang} .exec-output title="Output" }}', *body, f"{indent}{fence}"]


def _describe(error: ExecutionError) -> str:
    last = error.details.strip().splitlines()[-6:] if error.details else []
    trace = ("\n    " + "\n    ".join(last)) if last else ""
    return f"{error}{trace}"
