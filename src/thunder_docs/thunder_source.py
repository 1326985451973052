"""Where Thunder defines a name: its file and line in the installed package, and its URL on GitHub.

Lines come from parsing Thunder's installed files with ``ast`` (the line of the ``def``,
``class`` or assignment, decorators included, as ``inspect.getsourcelines`` reports), so
the build never imports Thunder.
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path

REPOSITORY = "https://github.com/Lightning-AI/lightning-thunder"


def thunder_version() -> str:
    return importlib.metadata.version("lightning-thunder")


@cache
def _thunder_dir() -> Path:
    spec = importlib.util.find_spec("thunder")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("thunder_docs.links: Thunder is not installed")
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


@cache
def _definitions(path: Path) -> dict[str, int]:
    """Line of each top-level and class-level definition of a file, by dotted name."""
    lines: dict[str, int] = {}

    def visit(body, prefix):
        for node in body:
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
                line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                line = node.lineno
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
                line = node.lineno
            for name in names:
                lines.setdefault(prefix + name, line)  # the first definition wins
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")

    visit(ast.parse(path.read_text(encoding="utf-8")).body, "")
    return lines


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
        rest = ".".join(parts[cut:])
        line = _definitions(file).get(rest) if rest else 1
        if line is None:
            return None
        return Source(file.relative_to(_thunder_dir().parent).as_posix(), line)
    return None


def operator_source(name: str, modules: dict[str, str]) -> Source | None:
    """The source of a printed operator name such as ``ltorch.add`` or ``prims.add``."""
    prefix, _, op = name.rpartition(".")
    module = modules.get(prefix)
    if not module or not op or op.startswith("_"):
        return None
    return source_of(f"{module}.{op}")
