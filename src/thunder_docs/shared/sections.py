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

from thunder_docs.shared.exec_options import ExecOptionError, ExecOptions, parse_exec_options
from thunder_docs.shared.fences import Fence, iter_fences

MARKER = re.compile(r"^\s*#\s*-{1,}8<-{1,}\s*\[(start|end):([A-Za-z0-9_.\-]+)\]\s*$")
_INCLUDE = re.compile(r'^(?P<indent>\s*)-{1,}8<-{1,}\s+"(?P<spec>[^"]+)"\s*$')
_DIRECTIVE = re.compile(r"^\s*<!--\s*exec:(?P<options>.*?)-->\s*$")


class SnippetError(Exception):
    """A page or snippet file that cannot be turned into runnable sections."""


@dataclass(frozen=True)
class Section:
    path: str  # repo-relative, as written on the page
    name: str
    start_line: int  # 1-based line of the first code line
    code: str


@dataclass(frozen=True)
class Include:
    """A python fence of a page that shows one or more snippet sections.

    An HTML comment on the line right before the fence sets its options, such as
    ``<!-- exec: output=diff -->``: ``exec_options``, parsed and checked once (exec_options.py,
    which declares every option). The properties below are views of it.
    """

    fence: Fence
    sections: list[Section]
    exec_options: ExecOptions = field(default_factory=ExecOptions)

    @property
    def options(self) -> dict[str, str]:
        """The options the directive sets, as written (a flag maps to "")."""
        return self.exec_options.written()

    @property
    def output_lang(self) -> str:
        return self.exec_options.output

    @property
    def cuda(self) -> bool:
        return self.exec_options.cuda

    @property
    def stepper(self) -> bool:
        return self.exec_options.stepper

    @property
    def graphs(self) -> list[str]:
        """Expressions naming the traces to draw once the block's last section has run."""
        return list(self.exec_options.graph)

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


def find_includes(markdown: str, page: str, root: Path, first_line: int = 1) -> list[Include]:
    """The python fences of a page, each resolved to its snippet sections.

    ``first_line`` is the line of the page file that ``markdown`` starts at (after front
    matter), so messages name the file's own line numbers. Raises SnippetError, naming
    the page line, for a python fence that holds code instead of includes, a missing
    file, a missing section, a line-range include, a bad exec option or exec options
    that are not on the line right before a python fence.
    """
    includes = []
    cache: dict[str, dict[str, Section]] = {}
    lines = markdown.split("\n")
    fences = iter_fences(markdown)
    _check_directives_are_placed(lines, fences, page, first_line)
    for fence in fences:
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
        options = _options(lines[fence.start - 1] if fence.start else "", f"{page}:{fence.start - 1 + first_line}")
        includes.append(Include(fence, sections, options))
    return includes


def _check_directives_are_placed(lines: list[str], fences: list[Fence], page: str, first_line: int) -> None:
    """An exec directive anywhere but right before a python fence would be ignored: fail instead."""
    text = {i for f in fences for i in range(f.start, f.end + 1)}  # a fence's lines are its text
    placed = {f.start - 1 for f in fences if f.is_python}
    for number, line in enumerate(lines):
        if number not in text and number not in placed and _DIRECTIVE.match(line):
            raise SnippetError(f"{page}:{number + first_line}: exec options apply to the python fence on the next "
                               "line, and the next line is not one")


def _options(line: str, where: str) -> ExecOptions:
    """The options of the directive on ``line`` (the line before a fence; ``where`` names it)."""
    match = _DIRECTIVE.match(line)
    if not match:
        return ExecOptions()
    try:
        return parse_exec_options(match.group("options"))
    except ExecOptionError as error:
        raise SnippetError(f"{where}: {error}") from None


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
