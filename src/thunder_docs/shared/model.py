"""One model of the site's pages, built once per build and read by every plugin and by the tests.

For each documentation page: its id, source path, the includes it shows (with their
options) and the sections they resolve to, its snippet file, where its approved outputs
live, and, once executed, its results. Nothing else derives a page name or parses includes.

The ``thunder-exec`` plugin builds the model in ``on_files`` (:func:`build_site`); the other
plugins read it with :func:`site_of`; tests and scripts load it with :func:`load_site`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.structure.files import File, Files
from mkdocs.utils.meta import get_data

from thunder_docs.shared.exec_options import ExecOptions
from thunder_docs.shared.results import CPU, Results
from thunder_docs.shared.sections import Include, Section, find_includes

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig

EXEC_PLUGIN = "thunder-exec"


@dataclass(frozen=True)
class Page:
    id: str  # docs-relative, without the suffix: "guides/pipeline"
    src_uri: str  # docs-relative: "guides/pipeline.md"
    path: str  # relative to the repository, as messages name it: "docs/guides/pipeline.md"
    dest_uri: str  # the built HTML file, relative to the site: "guides/pipeline/index.html"
    url: str  # relative to the site: "guides/pipeline/"
    body: str  # the Markdown without its front matter, as MkDocs hands it to plugins
    first_line: int  # the line of the file that body starts at (after the front matter)
    meta: dict[str, Any]  # the front matter
    includes: tuple[Include, ...]

    @property
    def sections(self) -> list[Section]:
        return [s for inc in self.includes for s in inc.sections]

    @property
    def section_options(self) -> list[ExecOptions]:
        """The exec options of the include that shows each section, in the order of ``sections``."""
        return [inc.exec_options for inc in self.includes for _ in inc.sections]

    @property
    def cuda_sections(self) -> list[str]:
        """Names of the sections whose output differs on CUDA (``<!-- exec: cuda -->``)."""
        return [s.name for inc in self.includes if inc.cuda for s in inc.sections]

    @property
    def snippet(self) -> str | None:
        """The snippet file the page shows, relative to the repository."""
        return self.includes[0].sections[0].path if self.includes else None


@dataclass(frozen=True)
class Notebook:
    src_uri: str  # "tour.ipynb"
    path: str  # relative to the repository: "docs/tour.ipynb"
    abs_path: Path
    dest_uri: str
    url: str


@dataclass
class Site:
    root: Path  # the folder of mkdocs.yml
    approved_dir: Path
    pages: dict[str, Page]  # by src_uri, in the order MkDocs lists them
    notebooks: dict[str, Notebook]  # by src_uri
    results: Results = field(default_factory=Results)
    executed_notebooks: dict[str, Path] = field(default_factory=dict)  # src_uri -> executed copy

    @property
    def with_code(self) -> list[Page]:
        return [p for p in self.pages.values() if p.includes]

    def page(self, path: str) -> Page:
        """A page by its repository path ("docs/first_trace.md") or its src_uri."""
        for page in self.pages.values():
            if path in (page.path, page.src_uri):
                return page
        raise KeyError(path)

    def built(self, site_dir: Path, path: str) -> Path:
        """The built HTML file of a page or notebook, by its repository path or src_uri."""
        for item in (*self.pages.values(), *self.notebooks.values()):
            if path in (item.path, item.src_uri):
                return site_dir / item.dest_uri
        raise KeyError(path)

    def approved_path(self, page: Page, device: str) -> Path:
        return self.approved_dir / (CPU if device == CPU else device) / f"{page.id}.txt"

    def shown(self, path: Path) -> str:
        """A path as messages show it: relative to the repository."""
        return path.relative_to(self.root).as_posix()


def build_site(config: MkDocsConfig, files: Files, approved_dir: str = "snippets/approved") -> Site:
    """The model of the pages in ``files``; raises SnippetError for an include that cannot resolve."""
    root = folder_of(config)
    docs = Path(config.docs_dir).resolve()
    pages, notebooks = {}, {}
    for file in files:
        if file.abs_src_path is None or file.generated_by is not None:
            continue
        path = (docs / file.src_uri).relative_to(root).as_posix()
        if file.is_documentation_page():
            pages[file.src_uri] = _page(file, path, root)
        elif file.src_uri.endswith(".ipynb"):
            # mkdocs-jupyter renders a notebook as a page: built where a page of its name would be.
            as_page = File(file.src_uri.removesuffix(".ipynb") + ".md", config.docs_dir, config.site_dir,
                           config.use_directory_urls)
            notebooks[file.src_uri] = Notebook(file.src_uri, path, Path(file.abs_src_path), as_page.dest_uri,
                                               as_page.url)
    return Site(root, root / approved_dir, pages, notebooks)


def _page(file: File, path: str, root: Path) -> Page:
    source = file.content_string
    body, meta = get_data(source)
    first_line = source[: len(source) - len(body)].count("\n") + 1
    includes = find_includes(body, path, root, first_line=first_line)
    return Page(file.src_uri.removesuffix(".md"), file.src_uri, path, file.dest_uri, file.url, body, first_line,
                meta, tuple(includes))


def folder_of(config: MkDocsConfig) -> Path:
    """The folder of the site's ``mkdocs.yml``: paths in the config and in keys start there."""
    return Path(config.config_file_path).resolve().parent


def site_of(config: MkDocsConfig) -> Site:
    """The model that ``thunder-exec`` built for this build (for the other plugins)."""
    plugin = config.plugins.get(EXEC_PLUGIN)
    site = getattr(plugin, "site", None)
    if site is None:
        raise RuntimeError(f"the {EXEC_PLUGIN} plugin is not in mkdocs.yml's plugins, or has not built the site model yet")
    return site


def load_site(config_file: Path) -> Site:
    """The model of a site from its ``mkdocs.yml``, without building it (for tests and scripts)."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    config = load_config(str(config_file))
    exec_config = config.plugins.get(EXEC_PLUGIN)
    approved_dir = exec_config.config.approved_dir if exec_config else "snippets/approved"
    return build_site(config, get_files(config), approved_dir)
