"""The ``thunder-buildcache`` plugin: reuse the work other plugins repeat on every build.

Six caches, each with its own key (its module says what the key covers), share one folder:

- ``search``: Material's search entries of each page (search_cache.py), when the site uses
  Material's search plugin;
- ``highlight``: Pygments' highlighting of each code block (highlight_cache.py);
- ``notebooks``: mkdocs-jupyter's conversion of each notebook (notebook_cache.py);
- ``pages``: each Markdown page's conversion to HTML (page_cache.py);
- ``llms``: mkdocs-llmstxt's Markdown copy of each page (llms_cache.py), when the site uses it;
- ``templates``: the theme's Jinja templates, compiled (Jinja's own ``FileSystemBytecodeCache``,
  which checks each template's source and the Python version). MkDocs makes a new Jinja
  environment each build, so without it every build compiles Material's templates again.

The wrappers are installed in ``on_files`` (every plugin has read its config by then), taken off
in ``on_post_build`` or ``on_build_error`` (so a later build in the same process that does
not list this plugin highlights as usual), and reported in one line at the end of the build.
A wrapper that is off leaves that plugin as it was.
"""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemBytecodeCache
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from thunder_docs.plugins.buildcache import highlight_cache, llms_cache, notebook_cache, page_cache, search_cache
from thunder_docs.plugins.buildcache.config import BuildCacheConfig
from thunder_docs.shared.contracts import Contract
from thunder_docs.shared.files import portable, prune
from thunder_docs.shared.model import folder_of

log = get_plugin_logger("thunder-buildcache")

SEARCH = "material/search"
LLMSTXT = "llmstxt"
TEMPLATES = Contract("the template cache (thunder-buildcache templates)", {
    "jinja2": ("3.1.6",),  # Environment.bytecode_cache and FileSystemBytecodeCache, public API
})


class BuildCachePlugin(BasePlugin[BuildCacheConfig]):
    def __init__(self) -> None:
        self.root: Path | None = None  # the folder of mkdocs.yml
        self.folder: Path | None = None  # the cache_dir option, from mkdocs.yml's folder
        # This build's caches (None: that wrapper is off); new ones each build.
        self.search: search_cache.SearchCache | None = None
        self.highlight: highlight_cache.HighlightCache | None = None
        self.notebooks: notebook_cache.NotebookCache | None = None
        self.templates: TemplateCache | None = None
        self.pages: page_cache.PageCache | None = None
        self.llms: llms_cache.LlmsCache | None = None
        self.warned: set[str] = set()  # wrappers whose off-warning was given (once per process)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.root = folder_of(config)
        self.folder = self.root / self.config.cache_dir
        return config

    def _verified(self, contract: Contract) -> bool:
        """Whether the packages this wrapper relies on run at versions it was verified with; if
        not, it stays off and says so once."""
        problem = contract.unverified_message()
        if problem is not None and contract.what not in self.warned:
            self.warned.add(contract.what)
            log.warning(problem)
        return problem is None

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        self.search = self.highlight = self.notebooks = self.templates = self.pages = self.llms = None
        if self.config.search and self._verified(search_cache.CONTRACT):
            search = config.plugins.get(SEARCH)  # Material's (MkDocs' own search is left alone)
            if search is not None and search.config.enabled:
                self.search = search_cache.SearchCache(self.folder / "search", dict(search.config))
                self.search.install(search.search_index)
        if self.config.highlight and self._verified(highlight_cache.CONTRACT):
            self.highlight = highlight_cache.HighlightCache(self.folder / "highlight")
        highlight_cache.install(self.highlight)
        if "mkdocs-jupyter" in config.plugins:
            on = self.config.notebooks and self._verified(notebook_cache.CONTRACT)
            self.notebooks = notebook_cache.NotebookCache(self.folder / "notebooks", self.root) if on else None
            notebook_cache.install(self.notebooks)
        if LLMSTXT in config.plugins:
            on = self.config.llms and self._verified(llms_cache.CONTRACT)
            self.llms = llms_cache.LlmsCache(self.folder / "llms") if on else None
            llms_cache.install(self.llms)
        return files

    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        """Every plugin has added its files: a page's key covers them all."""
        if self.config.pages and self._verified(page_cache.CONTRACT):
            self.pages = page_cache.PageCache(self.folder / "pages", config, files, config.plugins.get("autorefs"),
                                              self.root)
        page_cache.install(self.pages)
        return nav

    def on_pre_page(self, page: Page, config: MkDocsConfig, files: Files) -> Page:
        if self.pages is not None:
            self.pages.wrap(page)
        return page

    def on_env(self, env: Environment, config: MkDocsConfig, files: Files) -> Environment:
        if self.config.templates and self._verified(TEMPLATES):
            self.templates = env.bytecode_cache = TemplateCache(self.folder / "templates", self.root)
        return env

    def _uninstall(self) -> None:
        """Put Pygments and nbconvert back: another build in this process may not use this plugin."""
        highlight_cache.install(None)
        page_cache.install(None)
        if self.notebooks is not None:
            notebook_cache.install(None)
        if self.llms is not None:
            llms_cache.install(None)

    def on_build_error(self, error: Exception) -> None:
        self._uninstall()

    def on_post_build(self, config: MkDocsConfig) -> None:
        self._uninstall()
        counts = [f"{name} {cache.hits} reused, {cache.misses} made"
                  + (f", {cache.skipped} never reused" if getattr(cache, "skipped", 0) else "")
                  for name, cache in (("search entries:", self.search), ("highlighted blocks:", self.highlight),
                                      ("notebooks:", self.notebooks), ("templates:", self.templates),
                                      ("pages:", self.pages), ("Markdown copies:", self.llms))
                  if cache is not None]
        if counts:
            log.info("build cache: %s", "; ".join(counts))


class TemplateCache(FileSystemBytecodeCache):
    """Jinja's bytecode cache in a folder, counting the templates it had."""

    def __init__(self, directory: Path, root: Path):
        directory.mkdir(parents=True, exist_ok=True)
        prune(directory, "__jinja2_*.cache")  # templates no build used for a month
        super().__init__(str(directory))
        self.root = root
        self.hits = self.misses = 0

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        """Jinja's key of a template, with the repository's folder written "." (overrides/)."""
        return super().get_cache_key(name, filename and portable(filename, self.root))

    def load_bytecode(self, bucket) -> None:
        super().load_bytecode(bucket)
        if bucket.code is None:
            self.misses += 1
        else:
            self.hits += 1
