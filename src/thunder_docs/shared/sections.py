"""Find snippet sections in Python files and the fences of a page that include them.

A snippet file is split into named sections with pymdownx.snippets markers::

    # --8<-- [start:name]
    ...
    # --8<-- [end:name]

A page includes a section from a fenced ``python`` block whose only content is
``--8<-- "snippets/page.py:name"`` lines. Everything here is plain text work: no
code is executed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MARKER = re.compile(r"^\s*#\s*-{1,}8<-{1,}\s*\[(start|end):([A-Za-z0-9_.\-]+)\]\s*$")
_INCLUDE = re.compile(r'^(?P<indent>\s*)-{1,}8<-{1,}\s+"(?P<spec>[^"]+)"\s*$')
_DIRECTIVE = re.compile(r"^\s*<!--\s*exec:(?P<options>.*?)-->\s*$")
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")


class SnippetError(Exception):
    """A page or snippet file that cannot be turned into runnable sections."""


@dataclass(frozen=True)
class Section:
    path: str  # repo-relative, as written on the page
    name: str
    start_line: int  # 1-based line of the first code line
    code: str

    @property
    def location(self) -> str:
        return f"{self.path}:{self.start_line}"


@dataclass(frozen=True)
class Fence:
    """A fenced code block of a page."""

    indent: str
    info: str
    start: int  # 0-based index of the opening line
    end: int  # 0-based index of the closing line
    body: list[str]

    @property
    def lang(self) -> str:
        info = self.info.strip().lstrip("{").strip()
        return info.split()[0].lstrip(".").rstrip("}") if info else ""

    @property
    def is_python(self) -> bool:
        return self.lang in ("python", "py", "python3", "pycon")


@dataclass(frozen=True)
class Include:
    """A python fence of a page that shows one or more snippet sections.

    An HTML comment on the line right before the fence sets options, such as
    ``<!-- exec: output=diff -->`` (highlight the output as a diff),
    ``<!-- exec: cuda -->`` (the output differs on CUDA: show it in device tabs),
    ``<!-- exec: graph=traces[0],traces[-1] -->`` (after the block's code runs, draw each named
    trace or bound symbol as a dataflow graph, page/graph.py) or
    ``<!-- exec: stepper -->`` (a pass stepper over the ``last_traces`` list its code walks through).
    """

    fence: Fence
    specs: list[str]
    sections: list[Section]
    options: dict[str, str] = field(default_factory=dict)

    @property
    def output_lang(self) -> str:
        return self.options.get("output", "text")

    @property
    def cuda(self) -> bool:
        return "cuda" in self.options

    @property
    def graphs(self) -> list[str]:
        """Expressions naming the traces to draw once the block's last section has run."""
        return [e for e in self.options.get("graph", "").split(",") if e]

    @property
    def code(self) -> str:
        return "\n".join(s.code for s in self.sections)


def parse_sections(path: Path, display: str) -> dict[str, Section]:
    """Return the named sections of a snippet file, in file order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    open_at: dict[str, int] = {}
    sections: dict[str, Section] = {}
    for number, line in enumerate(lines, start=1):
        match = MARKER.match(line)
        if not match:
            continue
        kind, name = match.groups()
        if kind == "start":
            if name in open_at or name in sections:
                raise SnippetError(f"{display}:{number}: section '{name}' is started twice")
            open_at[name] = number
        else:
            if name not in open_at:
                raise SnippetError(f"{display}:{number}: section '{name}' ends but never starts")
            begin = open_at.pop(name)
            body = [ln for ln in lines[begin:number - 1] if not MARKER.match(ln)]
            sections[name] = Section(display, name, begin + 1, _join_code(body))
    if open_at:
        name, number = next(iter(open_at.items()))
        raise SnippetError(f"{display}:{number}: section '{name}' is never ended")
    return sections


def _join_code(lines: list[str]) -> str:
    return "\n".join(lines).rstrip("\n")


def iter_fences(markdown: str) -> list[Fence]:
    """All fenced code blocks of a page (nested fences are not supported)."""
    lines = markdown.split("\n")
    fences = []
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match.group("indent"), match.group("fence"), match.group("info")
        closing = re.compile(rf"^{re.escape(indent)}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        fences.append(Fence(indent, info, i, j, lines[i + 1 : j]))
        i = j + 1
    return fences


def find_includes(markdown: str, page: str, root: Path, first_line: int = 1) -> list[Include]:
    """The python fences of a page, each resolved to its snippet sections.

    ``first_line`` is the line of the page file that ``markdown`` starts at (after front
    matter), so messages name the file's own line numbers. Raises SnippetError, naming
    the page line, for a python fence that holds code instead of includes, a missing
    file, a missing section or a line-range include.
    """
    includes = []
    cache: dict[str, dict[str, Section]] = {}
    lines = markdown.split("\n")
    for fence in iter_fences(markdown):
        if not fence.is_python:
            continue
        where = f"{page}:{fence.start + first_line}"
        specs = []
        for line in fence.body:
            if not line.strip():
                continue
            match = _INCLUDE.match(line)
            if not match:
                raise SnippetError(
                    f"{where}: a python block must only include snippet sections "
                    f'(--8<-- "snippets/<page>.py:<section>"), found: {line.strip()!r}'
                )
            specs.append(match.group("spec"))
        if not specs:
            raise SnippetError(f"{where}: empty python block")
        sections = [_resolve(spec, where, root, cache) for spec in specs]
        options = _options(lines[fence.start - 1] if fence.start else "", where)
        includes.append(Include(fence, specs, sections, options))
    return includes


_KNOWN_OPTIONS = {"output", "cuda", "graph", "stepper"}


def _options(line: str, where: str) -> dict[str, str]:
    match = _DIRECTIVE.match(line)
    if not match:
        return {}
    options = {}
    for word in match.group("options").split():
        key, _, value = word.partition("=")
        if key not in _KNOWN_OPTIONS:
            raise SnippetError(f"{where}: unknown exec option '{key}' (known: {', '.join(sorted(_KNOWN_OPTIONS))})")
        options[key] = value
    return options


def _resolve(spec: str, where: str, root: Path, cache: dict[str, dict[str, Section]]) -> Section:
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name or name.isdigit():
        raise SnippetError(f'{where}: include "{spec}" must name a section: "<file>.py:<section>"')
    if path not in cache:
        file = root / path
        if not file.is_file():
            raise SnippetError(f'{where}: includes "{spec}", but the snippet file {path} does not exist')
        cache[path] = parse_sections(file, path)
    sections = cache[path]
    if name not in sections:
        known = ", ".join(sections) or "none"
        raise SnippetError(
            f'{where}: includes "{spec}", but {path} has no section \'{name}\' (its sections: {known})'
        )
    return sections[name]
