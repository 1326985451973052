"""A cache key's code digest comes from what its code imports (shared/code_digest.py)."""

from __future__ import annotations

import textwrap

import pytest

from thunder_docs.shared import code_digest


def _package(tmp_path, files: dict[str, str]):
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    return root


def _names(root, *modules):
    return [p.relative_to(root).as_posix() for p in code_digest.module_files(*modules, package_dir=root)]


def test_the_closure_follows_every_kind_of_import(tmp_path):
    root = _package(tmp_path, {
        "a.py": "import os\nfrom pkg import b\nfrom pkg.sub.c import thing\n\ndef f():\n    from . import lazy\n",
        "b.py": "import pkg.d\n", "d.py": "", "lazy.py": "", "sub/__init__.py": "", "sub/c.py": "from ..b import x\n",
        "unused.py": "",
    })
    assert _names(root, "pkg.a") == ["__init__.py", "a.py", "b.py", "d.py", "lazy.py", "sub/__init__.py", "sub/c.py"]


def test_editing_an_imported_module_changes_the_digest(tmp_path):
    root = _package(tmp_path, {"a.py": "def f():\n    from pkg import b\n", "b.py": "X = 1\n"})
    before = code_digest.digest_of("pkg.a", package_dir=root)
    (root / "b.py").write_text("X = 2\n")
    assert code_digest.digest_of("pkg.a", package_dir=root) != before


def test_a_module_that_starts_importing_another_brings_it_into_the_digest(tmp_path):
    root = _package(tmp_path, {"a.py": "", "c.py": "Y = 1\n"})
    before = code_digest.digest_of("pkg.a", package_dir=root)
    (root / "c.py").write_text("Y = 2\n")
    assert code_digest.digest_of("pkg.a", package_dir=root) == before  # not imported: not in the key
    (root / "a.py").write_text("from pkg.c import Y\n")
    assert "c.py" in _names(root, "pkg.a")
    assert code_digest.digest_of("pkg.a", package_dir=root) != before


def test_a_module_that_does_not_exist_is_an_error(tmp_path):
    root = _package(tmp_path, {})
    with pytest.raises(FileNotFoundError, match="no module pkg.gone"):
        code_digest.module_files("pkg.gone", package_dir=root)


def test_each_cache_of_the_site_names_modules_that_exist():
    """The modules the caches name (every key's root) are this package's, and their closures hold
    the shared code they use (the lists written by hand left some out)."""
    traces = _names(code_digest.PACKAGE, "thunder_docs.plugins.traces.plugin")
    assert {"shared/trace_markup.py", "shared/html_tree.py", "shared/trace_map.py", "shared/block_ids.py",
            "plugins/exec/notebooks.py", "page/capture.py"} <= set(traces)
    links = _names(code_digest.PACKAGE, "thunder_docs.plugins.links.plugin")
    assert {"plugins/links/mentions.py", "shared/html_tree.py", "shared/thunder_source.py"} <= set(links)
