"""The MkDocs plugin that executes each page's snippet sections and embeds what they printed.

Hooks, in the order MkDocs calls them:

- ``on_config``: reset the state of the last build (``mkdocs serve`` keeps the plugin);
  point pymdownx.snippets at the repository and make a missing include fatal.
- ``on_serve``: watch ``snippets/`` too; start the worker ahead of the first snippet edit.
- ``on_files``: build the site model (model.py): every page with its includes resolved.
  Execute them (or take them from the cache), all pages before any is rendered, then
  compare the output with the approved output; execute notebooks. Any failure aborts the
  build before anything is written.
- ``on_pre_page``: hand mkdocs-jupyter the executed copy of a notebook.
- ``on_page_markdown``: put each section's output under the block that shows its code
  (render.py); sections marked ``<!-- exec: cuda -->`` get a CPU tab and a CUDA tab.
- ``on_page_content``: the ``<style>`` mkdocs-jupyter appends to a notebook's page, a Python
  list's repr, becomes CSS, or goes when it is empty; the glossary terms in its Markdown cells
  get their tooltips, as on the Markdown pages (notebook_page.py).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page as MkDocsPage
from mkdocs.utils.meta import get_data

from thunder_docs.plugins.exec import approved
from thunder_docs.plugins.exec.cache import OutputCache, device_name
from thunder_docs.plugins.exec.config import ExecConfig
from thunder_docs.plugins.exec.execution import Execution, failure_note
from thunder_docs.plugins.exec.notebook_page import abbreviations_of, fix_appended_style, mark_terms
from thunder_docs.plugins.exec.render import insert_outputs
from thunder_docs.plugins.exec.runner import Runner
from thunder_docs.plugins.exec.stderr_log import StderrLog
from thunder_docs.shared import hooks
from thunder_docs.shared.files import UnusableFolder, usable_folder
from thunder_docs.shared.model import Site, build_site, folder_of
from thunder_docs.shared.results import CPU, CUDA, BuildStats
from thunder_docs.shared.sections import SnippetError

log = get_plugin_logger("thunder-exec")


def _check_cache_folders(config: MkDocsConfig, root: Path) -> None:
    """Every thunder-* plugin's cache folder can be used, checked before anything runs: a build
    must not run every page and then fail on where it keeps them."""
    for name, plugin in config.plugins.items():
        folder = name.startswith("thunder-") and getattr(plugin, "config", {}).get("cache_dir")
        if folder:
            try:
                usable_folder(root / folder, root)
            except UnusableFolder as error:
                raise PluginError(f"{name}: {error} (its cache_dir option in mkdocs.yml)") from None


class ExecPlugin(BasePlugin[ExecConfig]):
    def __init__(self) -> None:
        self.root: Path | None = None  # the folder of mkdocs.yml
        self.runner: Runner | None = None  # kept across `mkdocs serve` rebuilds: one forkserver
        self.machine = CPU  # the GPU's name, or "cpu"
        self.site: Site | None = None  # this build's model, read by the other plugins
        self.stats = BuildStats()
        self.failed: dict = {}  # with keep_going: page path -> the ExecutionError its note tells of

    # -- configuration -------------------------------------------------------------------
    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.root = folder_of(config)
        self.site, self.stats, self.failed = None, BuildStats(), {}
        _check_cache_folders(config, self.root)
        if "attr_list" not in config.markdown_extensions:
            raise PluginError("thunder-exec: needs the attr_list Markdown extension (markdown_extensions in mkdocs.yml): "
                              "each output block carries its identifier as an attribute (shared/block_ids.py)")
        snippets = config.mdx_configs.setdefault("pymdownx.snippets", {})
        snippets["base_path"] = [str(self.root)]
        snippets["check_paths"] = True
        if self.runner is None:
            self.runner = Runner(self.root, self.config.preload)
        self.machine = device_name()
        return config

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
        """`mkdocs serve` watches docs/ only; snippet edits must rebuild too. The worker starts now,
        in the background, so the first snippet edit does not wait for torch and thunder to import."""
        if (self.root / "snippets").is_dir():
            server.watch(str(self.root / "snippets"))
        if self.config.execute:
            threading.Thread(target=self.runner.warm_up, name="thunder-docs-warm-up", daemon=True).start()
        return server

    # -- execution -----------------------------------------------------------------------
    # Before every other plugin's on_files: they read the site model this builds (site_of).
    @event_priority(100)
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        try:
            self.site = build_site(config, files, self.config.approved_dir)
        except SnippetError as error:
            raise PluginError(f"thunder-exec: {error}") from None
        if not self.config.execute:
            log.warning("execution is off; pages show no output")
            return files
        broken = hooks.installed_check()
        for problem in broken:  # --strict fails on it: the site would go out without what the hook gives
            log.warning(problem.message())
        execution = Execution(self.site, self.runner, OutputCache(self.root / self.config.cache_dir),
                              self.machine, self.config.cache, self.config.jobs, float(self.config.timeout),
                              self.config.max_output_chars, self.stats.runs,
                              StderrLog(self.root / (self.config.stderr_log or f"{self.config.cache_dir}/stderr.log"), self.root),
                              hooks.off_env(broken), self.config.keep_going)
        # Notebooks run in their own kernel, alongside the pages' workers.
        with ThreadPoolExecutor(max_workers=1) as pool:
            notebooks = pool.submit(execution.notebooks)
            execution.pages(self.site.with_code, CPU)
            notebooks.result()
        if self.machine != CPU:
            execution.pages([p for p in self.site.with_code if p.cuda_sections], CUDA)
        execution.stderr.write()
        self.failed = execution.failed
        if self.config.approve and (problems := approved.check(self.site, self.machine, self.config.update_approved)):
            raise PluginError("thunder-exec: " + "\n".join(problems) + "\nIf the new output is right, accept it with: "
                              + approved.UPDATE_COMMAND)
        if self.config.stats_file:
            self.stats.write(self.root / self.config.stats_file)
        return files

    # -- rendering -----------------------------------------------------------------------
    # Before mkdocs-jupyter's on_pre_page, which reads the path it converts from (and matches its
    # include patterns against that path's name, which the executed copy keeps).
    @event_priority(100)
    def on_pre_page(self, page: MkDocsPage, config: MkDocsConfig, files: Files) -> MkDocsPage:
        """Hand mkdocs-jupyter the executed copy of a notebook (downloads keep the stored one)."""
        if copy := self.site.executed_notebooks.get(page.file.src_uri):
            page.file.abs_src_path = str(copy)
        return page

    def on_page_markdown(self, markdown: str, page: MkDocsPage, config: MkDocsConfig, files: Files) -> str:
        model = self.site.pages.get(page.file.src_uri)
        if not self.config.execute or model is None or not model.includes:
            return markdown
        if markdown != model.body:
            raise PluginError(why_changed(model.path, model.body, Path(page.file.abs_src_path)))
        markdown = insert_outputs(self.site, model, markdown, self.machine)
        if model.path in self.failed:
            markdown = failure_note(markdown, self.failed[model.path])
        return markdown

    # Before thunder-links (10): a notebook's page reaches it with its glossary terms marked, as a
    # Markdown page does.
    @event_priority(20)
    def on_page_content(self, html: str, page: MkDocsPage, config: MkDocsConfig, files: Files) -> str:
        if page.file.src_uri in self.site.notebooks:
            return mark_terms(fix_appended_style(html), abbreviations_of(config))
        return html


def why_changed(path: str, read: str, source: Path) -> str:
    """The error for a page whose Markdown is not the text this build executed: the file was
    edited on disk after the build read it (build again), or a plugin before thunder-exec changed it."""
    on_disk = get_data(source.read_text(encoding="utf-8-sig"))[0] if source.is_file() else None
    if on_disk != read:
        return (f"thunder-exec: {path} changed on disk while the build ran, after its code was executed: "
                "build again")
    return (f"thunder-exec: {path} was changed by a plugin listed before thunder-exec; "
            "list thunder-exec earlier in mkdocs.yml")
