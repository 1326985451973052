"""A virtual environment for another Thunder, without a second copy of torch.

The pinned stack lives in ``.venv``. Another Thunder (a nightly, a named release, or a local
checkout) gets ``.venv-thunder/<name>/``: a venv whose own site-packages holds only that
Thunder and a ``.pth`` file listing the pinned venv's site directories. Python puts a venv's
own site-packages first on ``sys.path``, so its ``thunder`` (and its ``lightning-thunder``
metadata) shadows the pinned 0.2.6, while torch and everything else come from ``.venv``.
A checkout is installed editable (its metadata: its version) and its folder listed first.

The pinned venv may itself be an overlay (its site-packages holding a ``.pth`` onto another
venv), so the directories to list are read from the pinned Python's ``sys.path``, not assumed.

Run as ``python -m thunder_docs.drift.env THUNDER`` (``scripts/dev build --thunder`` does): it
sets the environment up when it is missing and prints its folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DISTRIBUTION = "lightning-thunder"
FOLDER = ".venv-thunder"
FOLDER_VARIABLE = "THUNDER_DOCS_THUNDER_VENVS"  # another folder for them (the tests' temporary one)
PTH = "thunder-docs-pinned.pth"
_VERSION = re.compile(r"^\d+(\.\d+)*([a-z]+\d*)?(\.dev\d+)?$")


class EnvError(Exception):
    """A Thunder that cannot be named or installed."""


@dataclass(frozen=True)
class Thunder:
    """Which Thunder: a version from the registry, or a local checkout (installed editable)."""

    version: str | None = None
    checkout: Path | None = None

    @property
    def key(self) -> str:
        """The folder name of its environment, caches and site."""
        if self.checkout is not None:
            return "checkout-" + re.sub(r"[^\w.-]+", "-", self.checkout.name).strip("-")
        return str(self.version)

    @property
    def label(self) -> str:
        return str(self.checkout) if self.checkout is not None else f"lightning-thunder {self.version}"


def newest_prerelease(listing: str) -> str:
    """The newest version in ``pip index versions --pre`` output (its "Available versions:" line
    lists them newest first)."""
    for line in listing.splitlines():
        if line.startswith("Available versions:"):
            versions = [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
            if versions:
                return versions[0]
    raise EnvError("the registry lists no version of lightning-thunder")


def parse(spec: str, root: Path, pip: list[str] | None = None) -> Thunder:
    """``nightly`` (the newest pre-release on the registry), a version (``0.2.7.dev20260201``), or
    the path of a local Thunder checkout (a folder that holds ``thunder/__init__.py``)."""
    path = (root / spec).resolve() if not Path(spec).is_absolute() else Path(spec)
    if "/" in spec or spec.startswith(".") or path.is_dir():
        if not (path / "thunder" / "__init__.py").is_file():
            raise EnvError(f"{spec}: not a Thunder checkout (it holds no thunder/__init__.py)")
        return Thunder(checkout=path)
    if spec == "nightly":
        pip = pip or [sys.executable, "-m", "pip"]
        found = subprocess.run([*pip, "index", "versions", DISTRIBUTION, "--pre"], capture_output=True, text=True)
        if found.returncode != 0:
            raise EnvError(f"pip index versions {DISTRIBUTION} --pre failed:\n{found.stderr.strip()}")
        return Thunder(version=newest_prerelease(found.stdout))
    if not _VERSION.match(spec):
        raise EnvError(f"--thunder takes nightly, a version such as 0.2.7.dev20260201, or a checkout's path; not {spec!r}")
    return Thunder(version=spec)


def site_directories(python: Path) -> list[str]:
    """The pinned interpreter's site directories, in order: its ``sys.path`` without what the
    same interpreter has with no site at all (``-I -S``: the standard library, which the new venv
    has of its own)."""
    code = "import json, sys; print(json.dumps(sys.path))"
    full = json.loads(subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout)
    bare = json.loads(subprocess.run([str(python), "-I", "-S", "-c", code], capture_output=True, text=True,
                                     check=True).stdout)
    return [p for p in full if p and p not in bare]


def pth_text(directories: list[str], first: list[str] = ()) -> str:
    """The ``.pth`` file that puts the pinned directories after the venv's own site-packages.

    ``first`` are plain path lines. Each pinned directory is added with ``site.addsitedir``, not
    as a plain line: that also runs the ``.pth`` files in it, as Python does for the pinned venv
    (setuptools' ``distutils-precedence.pth``, which lets ``import distutils`` work on Python 3.12;
    an editable install's finder)."""
    return "".join(f"{d}\n" for d in first) + "".join(f"import site; site.addsitedir({d!r})\n" for d in directories)


def jupyter_data(directories: list[str]) -> Path | None:
    """The ``share/jupyter`` folder of the venv that holds the pinned packages (nbconvert's
    templates, which mkdocs-jupyter renders the notebook with): Jupyter looks under
    ``sys.prefix``, and the new venv's prefix has none. The first site directory
    (``<prefix>/lib/pythonX.Y/site-packages``) whose prefix has one."""
    for directory in directories:
        path = Path(directory)
        if len(path.parents) > 2 and (found := path.parents[2] / "share" / "jupyter").is_dir():
            return found
    return None


def installed_version(python: Path) -> str | None:
    """The lightning-thunder version the environment's Python sees, or None."""
    code = f"import importlib.metadata as m; print(m.version({DISTRIBUTION!r}))"
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def ensure(thunder: Thunder, root: Path, pinned: Path) -> Path:
    """The environment of ``thunder`` under ``root/.venv-thunder/``, set up when it is missing.

    ``pinned`` is the pinned venv's folder. Returns the new venv's folder."""
    venv = root / os.environ.get(FOLDER_VARIABLE, FOLDER) / thunder.key
    python = venv / "bin" / "python"
    stamp = venv / ".thunder-docs-stamp"
    want = json.dumps({"thunder": thunder.label, "pinned": str(pinned.resolve())})
    if python.exists() and stamp.is_file() and stamp.read_text() == want and thunder.checkout is None:
        return venv
    pinned_python = pinned / "bin" / "python"
    if not python.exists():
        base = subprocess.run([str(pinned_python), "-c", "import sys; print(sys._base_executable)"],
                              capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True, stdout=sys.stderr)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # A checkout's folder first: an editable install's import hook (setuptools' finder) comes after
    # the path entries, so the pinned thunder in the directories below would win over it.
    first = [str(thunder.checkout)] if thunder.checkout is not None else []
    directories = site_directories(pinned_python)
    Path(site, PTH).write_text(pth_text(directories, first), encoding="utf-8")
    share = venv / "share" / "jupyter"
    if (data := jupyter_data(directories)) is not None and not share.exists():
        share.parent.mkdir(exist_ok=True)
        share.symlink_to(data, target_is_directory=True)
    pip = [str(pinned_python), "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps"]
    target = ["-e", str(thunder.checkout)] if thunder.checkout is not None else [f"{DISTRIBUTION}=={thunder.version}"]
    if thunder.checkout is not None or installed_version(python) != thunder.version:
        try:
            subprocess.run([*pip, "--pre", *target], check=True, stdout=sys.stderr)
        except subprocess.CalledProcessError:
            raise EnvError(f"could not install {thunder.label} into {venv}") from None
    # This checkout, so that the plugins' entry points resolve in the new environment.
    subprocess.run([*pip, "--no-build-isolation", "-e", str(root)], check=True, stdout=sys.stderr)
    stamp.write_text(want)
    return venv


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m thunder_docs.drift.env THUNDER (nightly, a version, or a checkout's path)", file=sys.stderr)
        return 2
    root = Path.cwd()
    try:
        thunder = parse(argv[0], root)
        print(ensure(thunder, root, root / ".venv"))
    except EnvError as error:
        print(f"scripts/dev: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
