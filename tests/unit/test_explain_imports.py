"""The explorer imports no module of the site's stack (MkDocs, its plugins, the notebook tools,
the browser), so it installs and runs with Thunder and torch alone (README, "The explorer alone";
tests/test_explain_install.py installs it so)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from thunder_docs.shared import code_digest

# The top-level modules of the packages only the site needs (pyproject.toml's `site` extra).
SITE_ONLY = ("mkdocs", "material", "properdocs", "pymdownx", "markdown", "playwright", "mkdocs_jupyter", "nbclient",
             "nbformat", "jupyter_client", "pygments", "yaml")


def test_importing_the_explorer_imports_nothing_of_the_site():
    code = ("import json, sys; import thunder_docs.explain.cli, thunder_docs.explain.page; "
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = {name.partition(".")[0] for name in json.loads(done.stdout)}
    assert not loaded & set(SITE_ONLY), f"the explorer imports the site's {sorted(loaded & set(SITE_ONLY))}"


def _third_party_imports(file: Path) -> set[str]:
    """The top-level modules outside this package and the standard library that a file imports,
    anywhere in it (a lazy import inside a function counts)."""
    found = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return {name for name in found if name != code_digest.NAME and name not in sys.stdlib_module_names}


def test_the_explorers_code_imports_only_thunder_and_torch():
    """Every module the explorer's code imports, at any depth and lazily too (the closure the
    explore cache keys on), needs only Thunder and torch; the one exception is the notebook
    kernel's setup in page/capture.py, which the site's notebook runs and the explorer never calls."""
    files = code_digest.module_files("thunder_docs.explain.cli", "thunder_docs.explain.page")
    needs = {file.relative_to(code_digest.PACKAGE).as_posix(): _third_party_imports(file) for file in files}
    allowed = {"page/capture.py": {"IPython"}}
    extra = {path: sorted(names - {"thunder", "torch"} - allowed.get(path, set())) for path, names in needs.items()}
    assert not {path: names for path, names in extra.items() if names}
