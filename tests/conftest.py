"""Shared fixtures: the site model, one strict build of the site, throwaway sites and builds.

Page facts (names, includes, snippet files, built HTML paths) come from the site model
(`thunder_docs.shared.model`), the same one the build uses; nothing here derives them again.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from filelock import FileLock
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, BuildError, ConfigurationError

from thunder_docs.page.normalize import normalize
from thunder_docs.shared.model import load_site
from thunder_docs.shared.sections import Include

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SNIPPETS = ROOT / "snippets"

SITE = load_site(ROOT / "mkdocs.yml")
PAGES = sorted(page.path for page in SITE.pages.values())
PAGES_WITH_CODE = sorted(page.path for page in SITE.with_code)
SNIPPET_FILES = sorted(p.relative_to(ROOT).as_posix() for p in SNIPPETS.rglob("*.py"))


def includes_of(page: str) -> tuple[Include, ...]:
    return SITE.page(page).includes


def snippet_of(page: str) -> str:
    return SITE.page(page).snippet


def built_html(site_dir: Path, page: str) -> BeautifulSoup:
    """A page's (or notebook's) built HTML, parsed."""
    return BeautifulSoup(SITE.built(site_dir, page).read_text(encoding="utf-8"), "html.parser")


def mkdocs_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONHASHSEED": "0", **extra}


# What a page prints must not depend on where the checkout is: the snippets run standalone from a
# copy whose path holds folders named as Thunder names proxies (a snippet that read names out of
# printed text once took "t4" from a source comment's path).
PROXY_LIKE_FOLDERS = ("t4", "t_0", "i3", "C0")


@cache
def standalone_root() -> Path:
    """A copy of the snippets, in a temporary folder whose path holds PROXY_LIKE_FOLDERS (removed
    when the test process ends)."""
    import atexit
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="thunder-docs-"))
    atexit.register(shutil.rmtree, base, ignore_errors=True)
    root = base.joinpath(*PROXY_LIKE_FOLDERS, "checkout")
    shutil.copytree(SNIPPETS, root / "snippets", ignore=shutil.ignore_patterns("approved", "__pycache__"))
    shutil.copytree(ROOT / "examples", root / "examples")  # the scripts the explorer's guide runs
    return root


@cache
def run_snippet(path: str) -> subprocess.CompletedProcess:
    """Run a snippet file on its own, as `python snippets/<page>.py` from a checkout (standalone_root)."""
    return subprocess.run(
        [sys.executable, path], cwd=standalone_root(), capture_output=True, text=True, timeout=600, env=mkdocs_env()
    )


def standalone_output(path: str) -> str:
    return normalize(run_snippet(path).stdout, standalone_root())


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site, built once per test run with `mkdocs build --strict` (fails on any warning).

    Under pytest-xdist every worker asks for it: the first builds it into the run's shared
    folder, holding a lock; the others wait and reuse it.
    """
    shared = tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") \
        else tmp_path_factory.getbasetemp()
    site, done = shared / "built-site", shared / "built-site.ok"
    with FileLock(str(shared / "built-site.lock")):
        if not done.exists():
            proc = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                cwd=ROOT, capture_output=True, text=True, timeout=1800, env=mkdocs_env(),
            )
            assert proc.returncode == 0, proc.stdout + proc.stderr
            done.touch()
    return site


# The explorer's pages that thunder-explore writes beside the site: thunder-explain's own
# self-contained HTML, not Material pages (tests/test_explore.py checks them).
EXPLORE_FOLDER = "explore"


def material_pages(site: Path, name: str = "*.html") -> list[Path]:
    """The site's HTML files that Material made (every one but the explorer's pages), sorted."""
    return sorted(p for p in site.rglob(name) if p.relative_to(site).parts[0] != EXPLORE_FOLDER)


# -- reports the browser tests collect (page weights, the axe audit), printed once at the end -------
REPORTS: dict[str, dict] = {"weights": {}, "accessibility": {}, "print": {}, "html": {}, "keyboard": {},
                           "diagram_labels": {}}


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist: a worker is done; keep the rows its browser tests collected."""
    for name, rows in getattr(node, "workeroutput", {}).get("reports", {}).items():
        REPORTS[name].update(rows)


def pytest_terminal_summary(terminalreporter):
    from browser import harness

    split = {"accessibility", "diagram_labels"}  # rows keyed by "\0"-joined tuples
    # (report, its section's title, the table, the line under it)
    summaries = [
        ("accessibility", "accessibility (axe-core, WCAG 2.0/2.1/2.2 A and AA): elements in violation",
         harness.accessibility_table, "serious or critical fails the page's test"),
        ("html", "HTML (the Nu checker, errors): ours, inside diagrams, Material's", harness.html_table,
         "an error of ours or inside a diagram fails its test; Material's are listed in tests/browser/test_html.py"),
        ("print", "print (A4 printable width, print media): code lines cut, controls shown", harness.print_table,
         "a cut line or a control that prints fails the page's test"),
        ("diagram_labels", "diagram labels (rendered font size, CSS px)", harness.diagram_label_table, ""),
        ("weights", "page weight (first load, light scheme)", harness.weight_table,
         "gzip: what the same files weigh gzip-compressed, as most hosts send them; "
         "a page above 200,000 bytes gzip, or one that loads the search index before search is used, "
         "fails its test (WEIGHT_LIMIT)"),
        ("keyboard", "keyboard and DOM (tests/browser/test_keyboard_in_browser.py)", harness.keyboard_table, ""),
    ]
    for name, title, table, footer in summaries:
        rows = {tuple(k.split("\0")) if name in split else k: v for k, v in REPORTS[name].items()}
        if not rows:
            continue
        terminalreporter.section(title)
        for line in table(dict(sorted(rows.items()))):
            terminalreporter.write_line(line)
        if footer:
            terminalreporter.write_line(footer)


# -- throwaway sites ------------------------------------------------------------------------------
EXTENSIONS = ["admonition", "attr_list", "pymdownx.snippets", "pymdownx.superfences",
              {"pymdownx.tabbed": {"alternate_style": True}}]


@dataclass
class Throwaway:
    """A small site in a temporary folder: its mkdocs.yml made from options, its files given as text."""

    folder: Path

    def write(self, files: dict[str, str], *, exec_options: dict | None = None, plugins: tuple = (),
              **config) -> Throwaway:
        """Write the files and an mkdocs.yml. The exec plugin preloads nothing (fast builds) and
        approves nothing unless ``exec_options`` says; ``exec_options=None`` leaves it out when
        ``plugins`` is given."""
        exec_plugin = [] if exec_options is None and plugins else [
            {"thunder-exec": {"preload": [], "approve": False, **(exec_options or {})}}]
        yml = {"site_name": "throwaway", "strict": True, **config, "plugins": [*exec_plugin, *plugins],
               "markdown_extensions": EXTENSIONS}
        return self.write_yml(yaml.safe_dump(yml, sort_keys=False), files)

    def write_yml(self, mkdocs_yml: str, files: dict[str, str]) -> Throwaway:
        """Write the files and an mkdocs.yml given as text (for YAML tags such as !!python/name)."""
        (self.folder / "mkdocs.yml").write_text(mkdocs_yml)
        for name, text in files.items():
            (self.folder / name).parent.mkdir(parents=True, exist_ok=True)
            (self.folder / name).write_text(text)
        return self

    def build(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        """`mkdocs build --strict` in its own process; stdout and stderr together in .stdout."""
        return subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", *args], cwd=self.folder, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, timeout=600, env=mkdocs_env(**env),
        )

    def failed_build(self) -> str:
        """Build in this process (faster) a site that must fail; its log and error message.

        For builds whose pages need no environment of their own: the page processes come
        from this test process's forkserver.
        """
        records: list[str] = []
        handler = logging.Handler()
        handler.emit = lambda record: records.append(f"{record.levelname}: {record.getMessage()}")
        logger = logging.getLogger("mkdocs")
        logger.addHandler(handler)
        try:
            build(load_config(str(self.folder / "mkdocs.yml"), site_dir=str(self.folder / "site")))
        except (Abort, BuildError, ConfigurationError) as error:
            return "\n".join([*records, f"ERROR: {error}"])
        finally:
            logger.removeHandler(handler)
        raise AssertionError("the build succeeded:\n" + "\n".join(records))

    def html(self, page: str = "page") -> str:
        return (self.folder / "site" / page / "index.html").read_text()


@pytest.fixture
def throwaway(tmp_path) -> Throwaway:
    return Throwaway(tmp_path)
