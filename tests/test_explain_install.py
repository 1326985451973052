"""The explorer installs and runs in an environment that holds only Thunder, torch and what they
depend on (README, "The explorer alone"): no MkDocs, no notebook tools, no browser.

The environment is made without a download: a fresh venv whose site-packages links to exactly
the distributions Thunder and torch require, at any depth, from this one (the versions the site
pins). The project goes in as a wheel, built once, with no package index: pip must find its core
dependencies (ranges) met by what is there; ``pip check`` agrees, and ``thunder-explain`` from
that venv writes its page.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import venv
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT

ROOTS = ("lightning-thunder", "torch")  # what the explorer imports (tests/unit/test_explain_imports.py)
SCRIPT = """
    import torch
    import thunder

    def f(a, b):
        return torch.sin(a * b) + a

    jf = thunder.jit(f)
    print(jf(torch.ones(3), torch.ones(3)))
"""


def closure(*names: str) -> dict[str, metadata.Distribution]:
    """The installed distributions ``names`` require, at any depth, by canonical name (markers
    evaluated here, with the extras each requirement asks for)."""
    found: dict[str, metadata.Distribution] = {}
    pending: list[tuple[str, frozenset[str]]] = [(name, frozenset()) for name in names]
    seen: set[tuple[str, frozenset[str]]] = set()
    while pending:
        name, extras = pending.pop()
        if (canonicalize_name(name), extras) in seen:
            continue
        seen.add((canonicalize_name(name), extras))
        dist = metadata.distribution(name)  # PackageNotFoundError: a requirement this venv lacks
        found[canonicalize_name(name)] = dist
        for text in dist.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or any(requirement.marker.evaluate({"extra": e}) for e in ("", *extras)):
                pending.append((requirement.name, frozenset(requirement.extras)))
    return found


def top_level_entries(dist: metadata.Distribution) -> set[str]:
    """The entries of site-packages a distribution installed (its packages, modules, .pth files
    and its .dist-info), from its RECORD; files outside site-packages (scripts) are left out."""
    entries = set()
    for file in dist.files or ():
        first = file.parts[0]
        if first not in ("..", "__pycache__"):
            entries.add(first)
    return entries


def linked_venv(where: Path, dists: dict[str, metadata.Distribution]) -> Path:
    """A venv at ``where`` whose site-packages links to ``dists`` (and nothing else); its python."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(where)
    python = where / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for dist in dists.values():
        home = Path(dist.locate_file(""))
        for entry in top_level_entries(dist):
            if not (site / entry).exists() and (home / entry).exists():
                (site / entry).symlink_to(home / entry)
    return python


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The project's wheel, built once from a copy of what it packages (no build files in the checkout)."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(source)], check=True, capture_output=True, text=True, timeout=300)
    return next(out.glob("thunder_internals-*.whl"))


def _env() -> dict[str, str]:
    """This environment without what would let the venv see this checkout or this venv."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


def _pip(python: Path, *args: str) -> subprocess.CompletedProcess:
    """This venv's pip, acting on the venv of ``python`` (which has no pip of its own)."""
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=300, env=_env())


def test_the_closure_holds_thunder_and_torch_but_nothing_of_the_site():
    names = set(closure(*ROOTS))
    assert {"lightning-thunder", "torch", "numpy"} <= names
    assert not names & {"mkdocs", "mkdocs-material", "properdocs", "playwright", "nbclient", "markdown", "pygments"}


def test_the_explorer_installs_and_runs_with_only_thunder_and_torch(tmp_path, wheel):
    python = linked_venv(tmp_path / "venv", closure(*ROOTS))
    installed = _pip(python, "install", "--quiet", "--no-index", str(wheel))  # its requirements: met by what is there
    assert installed.returncode == 0, installed.stderr
    check = _pip(python, "check")
    assert check.returncode == 0, check.stdout + check.stderr  # and the linked distributions' own requirements

    probe = ("import importlib.util, thunder_docs; "
             "print(thunder_docs.__file__); print(importlib.util.find_spec('mkdocs'))")
    where, mkdocs = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True, env=_env(),
                                   cwd=tmp_path).stdout.split()
    assert Path(where).is_relative_to(tmp_path / "venv"), where  # the installed copy, not this checkout
    assert mkdocs == "None"

    (tmp_path / "tiny.py").write_text(textwrap.dedent(SCRIPT))
    run = subprocess.run([tmp_path / "venv" / "bin" / "thunder-explain", "--out", "tiny.html", "tiny.py"],
                         capture_output=True, text=True, timeout=300, env=_env(), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    page = (tmp_path / "tiny.html").read_text(encoding="utf-8")
    assert "<title>thunder-explain: tiny.py</title>" in page
    assert " data-traces=" in page and " data-lines=" in page  # trace blocks marked up as on the site
    assert "thunder-traces" in page  # the site's stylesheet and script, inlined from the installed package
