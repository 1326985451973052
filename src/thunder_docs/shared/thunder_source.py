"""Where Thunder defines a name: its file and line in the installed package, and its URL on GitHub.

Lines come from parsing Thunder's installed files with ``ast`` (from the first decorator of a
``def`` or ``class``, or from an assignment, to its last line, as ``inspect.getsourcelines``
reports; nested names such as ``Class.method`` or ``jit.inner`` too), so the build never
imports Thunder. Links in traces (plugins/links/html_links.py) and citations (plugins/cite/plugin.py) share it.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPOSITORY = "https://github.com/Lightning-AI/lightning-thunder"


@cache
def thunder_version() -> str:
    return importlib.metadata.version("lightning-thunder")


@cache
def _thunder_dir() -> Path:
    spec = importlib.util.find_spec("thunder")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("Thunder (lightning-thunder) is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _module_file(module: str) -> Path | None:
    parts = module.split(".")
    if parts[0] != "thunder":
        return None
    base = _thunder_dir().joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


class SourceError(Exception):
    """A file or an object that the installed Thunder does not have."""


def _statements(body: list[ast.stmt]):
    """The statements of a body, looking into if/try/with blocks (not into defs)."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (getattr(node, "body", []), getattr(node, "orelse", []),
                          getattr(node, "finalbody", [])):
                yield from _statements(block)
            for handler in getattr(node, "handlers", []):
                yield from _statements(handler.body)


def _assigned_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        names = []
        for target in node.targets:
            elts = target.elts if isinstance(target, ast.Tuple) else [target]
            names += [t.id for t in elts if isinstance(t, ast.Name)]
        return names
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _find(body: list[ast.stmt], name: str) -> ast.stmt | None:
    """The first definition of ``name`` in a body: a def, a class or an assignment."""
    for node in _statements(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return node
        if name in _assigned_names(node):
            return node
    return None


@cache
def _tree(file: Path) -> ast.Module:
    return ast.parse(file.read_text(encoding="utf-8"), filename=str(file))


def definition(file: Path, name: str) -> ast.stmt | None:
    """The statement that defines ``name`` (``f``, ``Class.method``, ``outer.inner``) in a Python
    file, by ``ast``; None when it defines no such name."""
    body: list[ast.stmt] = _tree(file).body
    node: ast.stmt | None = None
    for part in name.split("."):
        node = _find(body, part)
        if node is None:
            return None
        body = getattr(node, "body", [])
    return node


def span(path: str, name: str) -> tuple[int, int]:
    """First and last line of the object ``name`` in Thunder's file ``path``, by ``ast``."""
    node = definition(source_file(path), name)
    if node is None:
        raise SourceError(f"{path} has no object '{name}' in Thunder {thunder_version()}")
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return start, node.end_lineno or node.lineno


def source_file(path: str) -> Path:
    """The installed file of a path inside Thunder's package (``thunder/...``)."""
    if not path.startswith("thunder/") or ".." in Path(path).parts:
        raise SourceError(f"'{path}' is not a path inside Thunder's package (thunder/...)")
    file = _thunder_dir().parent / path
    if not file.is_file():
        raise SourceError(f"Thunder {thunder_version()} has no file {path}")
    return file


@dataclass(frozen=True)
class Source:
    path: str  # relative to the repository, e.g. thunder/torch/__init__.py
    line: int

    @property
    def url(self) -> str:
        return f"{REPOSITORY}/blob/{thunder_version()}/{self.path}#L{self.line}"


def source_of(dotted: str) -> Source | None:
    """Where Thunder defines ``dotted`` (a module, or an object of a module), if it does."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        file = _module_file(".".join(parts[:cut]))
        if file is None:
            continue
        path, rest = file.relative_to(_thunder_dir().parent).as_posix(), ".".join(parts[cut:])
        try:
            line = span(path, rest)[0] if rest else 1
        except SourceError:
            return None
        return Source(path, line)
    return None


def operator_source(name: str, modules: dict[str, str]) -> Source | None:
    """The source of a printed operator name such as ``ltorch.add`` or ``prims.add``."""
    prefix, _, op = name.rpartition(".")
    module = modules.get(prefix)
    if not module or not op or op.startswith("_"):
        return None
    return source_of(f"{module}.{op}")
