"""Where each Thunder API the site names is defined, in the pinned Thunder and in another one.

The site names APIs by their dotted path: the API reference (``plugins/links/names.API``) and
code spans such as `` `thunder.core.trace.TraceCtx` ``. Each is resolved from Thunder's files
with ``ast`` (following ``from ... import`` re-exports) to the file and name that define it.
An API moved when it resolves to another place under the other Thunder, or no longer resolves
(then the other Thunder's files are searched for a definition of its last name).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from thunder_docs.shared.thunder_source import definition

DOTTED = re.compile(r"`(?P<name>thunder(?:\.[A-Za-z_]\w*)+)(?:\(\))?`")
_HOPS = 8


@dataclass(frozen=True)
class ApiDrift:
    api: str  # thunder.core.trace.TraceCtx
    before: str  # where the pinned Thunder defines it: thunder/core/trace.py:TraceCtx
    after: str  # where the other Thunder does, "" when nowhere
    candidates: tuple[str, ...] = ()  # when it is gone: the other Thunder's definitions of its last name
    pages: tuple[str, ...] = ()

    @property
    def gone(self) -> bool:
        return not self.after


def named(pages: Iterable[tuple[str, str]], api: Iterable[str] = ()) -> dict[str, list[str]]:
    """Each dotted Thunder name in code spans, with the pages that name it (the API reference's
    names under "API reference")."""
    found: dict[str, list[str]] = {name: ["API reference"] for name in api}
    for page, text in pages:
        for match in DOTTED.finditer(text):
            found.setdefault(match["name"], [])
            if page not in found[match["name"]]:
                found[match["name"]].append(page)
    return found


def _module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _imports(file: Path) -> dict[str, str]:
    """The names a module binds by import at its top level (in if/try blocks too): name -> dotted target."""
    tree = ast.parse(file.read_text(encoding="utf-8"))
    package = file.parent
    bound: dict[str, str] = {}
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", [])
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = list(package.parts)
                anchor = parts.index("thunder") if "thunder" in parts else len(parts)
                here = parts[anchor:len(parts) - (node.level - 1)]
                base = ".".join([*here, *([base] if base else [])])
            for alias in node.names:
                if alias.name != "*":
                    bound.setdefault(alias.asname or alias.name, f"{base}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound.setdefault(alias.asname or alias.name.split(".")[0],
                                 alias.name if alias.asname else alias.name.split(".")[0])
    return bound


def resolve(root: Path, dotted: str) -> str:
    """Where ``dotted`` is defined under the Thunder whose package's parent is ``root``, as
    "thunder/file.py:Name" (or the module's file for a module); "" when it does not resolve."""
    for _ in range(_HOPS):
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            file = _module_file(root, ".".join(parts[:cut]))
            if file is not None:
                break
        else:
            return ""
        rest = parts[cut:]
        shown = file.relative_to(root).as_posix()
        if not rest:
            return shown
        if definition(file, ".".join(rest)) is not None:
            return f"{shown}:{'.'.join(rest)}"
        target = _imports(file).get(rest[0])
        if target is None or not target.startswith("thunder"):
            return ""
        dotted = ".".join([target, *rest[1:]])
    return ""


def defined_anywhere(root: Path, name: str) -> tuple[str, ...]:
    """Every top-level definition (def, class, assignment) or class member called ``name`` under ``root/thunder``."""
    found = []
    for file in sorted((root / "thunder").rglob("*.py")):
        if "tests" in file.relative_to(root).parts:
            continue
        try:
            node = definition(file, name)
        except (SyntaxError, UnicodeDecodeError):
            continue
        if node is not None:
            found.append(f"{file.relative_to(root).as_posix()}:{name}")
    return tuple(found)


def compare(apis: dict[str, list[str]], pinned: Path, other: Path) -> list[ApiDrift]:
    """Each API that the pinned Thunder defines and the other defines elsewhere, or not at all."""
    drifts = []
    for api, pages in sorted(apis.items()):
        before = resolve(pinned, api)
        if not before:
            continue  # not an API of the pinned Thunder either: the build's own checks say so
        after = resolve(other, api)
        if after == before:
            continue
        candidates = () if after else defined_anywhere(other, api.rsplit(".", 1)[-1])
        drifts.append(ApiDrift(api, before, after, candidates, tuple(pages)))
    return drifts
