"""The two ways the project installs agree: the explorer alone, from the core dependencies
(ranges), and the site, from the ``site`` extra and requirements.lock (exact pins).

The site's pins are written twice, in pyproject.toml's extras (what ``pip install .[site]``
asks for) and in requirements.lock (what ``scripts/dev setup`` installs); the core ranges are
what an environment of one's own must satisfy. These tests hold the three together.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).parents[2]
PINNED_EXTRAS = ("site", "test")  # gpu: nvFuser, a pre-release installed on a GPU runner only, not locked


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _lock() -> dict[str, str]:
    """requirements.lock as {canonical name: version}."""
    pins = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


def _exact(requirement: Requirement) -> str | None:
    """The version a requirement pins exactly (``name==1.2.3``), or None."""
    specs = list(requirement.specifier)
    return specs[0].version if len(specs) == 1 and specs[0].operator == "==" else None


@pytest.mark.parametrize("extra", PINNED_EXTRAS)
def test_each_entry_of_the_pinned_extras_is_the_locked_version(extra):
    lock = _lock()
    wrong = []
    for text in _project()["optional-dependencies"][extra]:
        requirement = Requirement(text)
        version = _exact(requirement)
        locked = lock.get(canonicalize_name(requirement.name))
        if version is None or version != locked:
            wrong.append(f"{text} (requirements.lock: {locked or 'missing'})")
    assert not wrong, f"the {extra} extra: not an exact pin of the locked version: {wrong}"


def test_the_core_dependencies_are_ranges_that_admit_the_locked_versions():
    """Ranges, so the explorer installs beside the Thunder and torch a project already has; ones
    the site's own pins satisfy, so the site's environment is one the explorer runs in."""
    lock = _lock()
    core = [Requirement(text) for text in _project()["dependencies"]]
    assert {canonicalize_name(r.name) for r in core} == {"lightning-thunder", "torch"}
    for requirement in core:
        assert _exact(requirement) is None, f"{requirement}: a range, not a pin"
        assert any(s.operator in ("<", "<=") for s in requirement.specifier), f"{requirement}: no upper bound"
        locked = lock[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(locked), f"{requirement} does not admit the locked {locked}"


def test_the_site_extra_pins_what_the_core_ranges_name():
    """Thunder and torch are in the site extra too, pinned: the printed traces depend on their versions."""
    site = {canonicalize_name(Requirement(text).name) for text in _project()["optional-dependencies"]["site"]}
    assert {"lightning-thunder", "torch", "mkdocs", "mkdocs-material", "properdocs", "playwright", "nbclient"} <= site
