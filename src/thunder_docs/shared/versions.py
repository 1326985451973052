"""The versions of what a page's output depends on, read without importing torch or thunder.

One function, read by the cache key (``cache.fingerprint``) and by the provenance of approved
outputs (``approved.provenance``), so the two never disagree.
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
from functools import cache
from importlib.util import find_spec
from pathlib import Path

NOT_INSTALLED = "not installed"


@cache
def package_versions() -> dict[str, str]:
    """Python, thunder, torch (with its build tag), nvFuser (any build of it) and triton."""
    return {
        "python": platform.python_version(),
        "thunder": distribution_version("lightning-thunder"),
        "torch": _torch_version(),
        "nvfuser": _nvfuser_version(),
        "triton": distribution_version("triton"),
    }


@cache  # per process, like package_versions (the page processes import torch and thunder once too)
def distribution_version(dist: str) -> str:
    """The installed version of a distribution, or "not installed"."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return NOT_INSTALLED


def engine_distribution() -> str:
    """The distribution whose code runs as ``mkdocs``: "mkdocs", or "properdocs" when the build
    runs on ProperDocs, which makes ``import mkdocs`` give its own package (properdocs.replacement)."""
    import mkdocs

    return mkdocs.__name__


def _torch_version() -> str:
    """torch's full version with its build tag (2.8.0+cu128), from torch/version.py."""
    spec = find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return NOT_INSTALLED
    text = (Path(next(iter(spec.submodule_search_locations))) / "version.py").read_text()
    match = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)", text, re.M)
    return match.group(1) if match else distribution_version("torch")


def _nvfuser_version() -> str:
    """The version and distribution name of whichever nvFuser build is installed."""
    found = sorted(f"{dist.version} ({name})" for dist in importlib.metadata.distributions()
                   if (name := (dist.metadata["Name"] or "").lower()).startswith("nvfuser"))
    return found[0] if found else NOT_INSTALLED
