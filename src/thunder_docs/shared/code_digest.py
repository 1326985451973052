"""The digest of the code a cached result depends on, derived from what that code imports.

A cache key names its code by module (``"thunder_docs.plugins.traces.plugin"``); the digest
covers that module and every module of this package it imports, at any depth, found by reading
each file's ``import`` statements with ``ast`` (also those inside functions: a lazy import is a
dependency too). So a module that starts importing another is in the key without anyone
listing it, and an edit anywhere in that closure changes the key.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from thunder_docs.shared.files import digest

PACKAGE = Path(__file__).parent.parent  # src/thunder_docs
NAME = PACKAGE.name


def _file_of(module: str, package_dir: Path, name: str) -> Path | None:
    """The file of a module of the package (``name.a.b``), or None for a module outside it."""
    parts = module.split(".")
    if parts[0] != name:
        return None
    base = package_dir.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_of(file: Path, package_dir: Path, name: str) -> str:
    parts = file.relative_to(package_dir).with_suffix("").parts
    return ".".join([name, *(parts[:-1] if parts[-1] == "__init__" else parts)])


def _imported(file: Path, package_dir: Path, name: str) -> set[str]:
    """The modules a file imports (absolute names), ``from x import y`` giving both x and x.y."""
    module = _module_of(file, package_dir, name)
    package = module if file.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"), filename=str(file))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")  # `import a.b.c` imports a, a.b and a.b.c
                found |= {".".join(parts[:k]) for k in range(1, len(parts) + 1)}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            found.add(source)
            found |= {f"{source}.{alias.name}" for alias in node.names}
    return found


def module_files(*modules: str, package_dir: Path | None = None) -> list[Path]:
    """The files of ``modules`` and of every module of the package they import, at any depth,
    the parent packages' ``__init__.py`` included (importing a module runs them). ``package_dir``:
    where the package is (by default, this one's folder)."""
    package_dir = package_dir or PACKAGE
    name = package_dir.name
    seen: dict[Path, None] = {}
    pending = list(modules)
    while pending:
        module = pending.pop()
        parts = module.split(".")
        for k in range(1, len(parts) + 1):
            file = _file_of(".".join(parts[:k]), package_dir, name)
            if file is None:
                if k == len(parts) and module in modules:
                    raise FileNotFoundError(f"code digest: no module {module} in {package_dir}")
                continue
            if file not in seen:
                seen[file] = None
                pending += sorted(_imported(file, package_dir, name))
    return sorted(seen)


def digest_of(*modules: str, package_dir: Path | None = None) -> str:
    """A digest of the code of ``modules`` and of what they import (see ``module_files``)."""
    package_dir = package_dir or PACKAGE
    files = module_files(*modules, package_dir=package_dir)
    return digest(*(part for f in files for part in (f.relative_to(package_dir).as_posix(), f.read_bytes())))


@cache
def loaded_digest(*modules: str) -> str:
    """``digest_of``, taken once per process: the code this process imported (MkDocs' serve keeps
    the plugins it loaded at start, whatever is edited on disk since)."""
    return digest_of(*modules)
