"""Shared fixtures: the repository's pages, their snippets, one strict build of the site."""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SNIPPETS = ROOT / "snippets"
sys.path.insert(0, str(ROOT / "src"))

from thunder_docs.normalize import normalize  # noqa: E402
from thunder_docs.sections import find_includes  # noqa: E402

PAGES = sorted(p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md"))
SNIPPET_FILES = sorted(p.relative_to(ROOT).as_posix() for p in SNIPPETS.rglob("*.py"))


def includes_of(page: str):
    return find_includes((ROOT / page).read_text(encoding="utf-8"), page, ROOT)


def mkdocs_env() -> dict[str, str]:
    return {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONHASHSEED": "0"}


def write_site(folder: Path, mkdocs_yml: str, files: dict[str, str]) -> Path:
    """A throwaway site: mkdocs.yml plus files given by path relative to the folder."""
    (folder / "mkdocs.yml").write_text(mkdocs_yml)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def mkdocs_build(folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """`mkdocs build --strict` in a folder; stdout and stderr together in .stdout."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", *args], cwd=folder, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, timeout=600, env={**mkdocs_env(), **env},
    )


@cache
def run_snippet(path: str) -> subprocess.CompletedProcess:
    """Run a snippet file on its own, as `python snippets/<page>.py` from the repository."""
    return subprocess.run(
        [sys.executable, path], cwd=ROOT, capture_output=True, text=True, timeout=600, env=mkdocs_env()
    )


def standalone_output(path: str) -> str:
    return normalize(run_snippet(path).stdout, ROOT)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site, built once with `mkdocs build --strict` (fails the test on any warning)."""
    site = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800, env=mkdocs_env(),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return site
