"""The exec options of an include: ``<!-- exec: ... -->`` on the line right before its python fence.

Each option is declared once, in :class:`ExecOptions`: its type, its default, an example and
what it does (MAINTAINING.md's list of options is this list: tests/unit/test_exec_options.py checks it).
One function, :func:`parse_exec_options`, reads a directive into a frozen ``ExecOptions`` and
rejects an unknown option, one given twice or a bad value, so no consumer reads a string it
would have to check. The whole object goes into the section's cache key
(plugins/exec/cache.py ``section_keys``): no option is added to the key by hand.

Written forms: a flag is its bare name (``cuda``); any other option is ``name=value``, without
spaces; options are separated by spaces (``<!-- exec: cuda graph=region -->``).
"""

from __future__ import annotations

import ast
import json
import textwrap
from collections.abc import Callable
from dataclasses import Field, asdict, dataclass, field, fields

from pygments.lexers import find_lexer_class_by_name
from pygments.util import ClassNotFound


class ExecOptionError(ValueError):
    """An unknown exec option, one given twice, or a value the option does not take."""


def _lexer(value: str) -> str:
    try:
        find_lexer_class_by_name(value)
    except ClassNotFound:
        raise ExecOptionError(f"no Pygments lexer is named '{value}' (use a lexer's short name, such as "
                              "text, diff or python)") from None
    return value


def _expression(value: str) -> str:
    try:
        ast.parse(value, mode="eval")
    except SyntaxError:
        raise ExecOptionError(f"'{value}' is not a Python expression (name each trace with an expression "
                              "without spaces or commas, such as traces[-1])") from None
    return value


def _repository_path(value: str) -> str:
    if value.startswith("/") or ".." in value.split("/"):
        raise ExecOptionError(f"'{value}' is not a path inside the repository (write it from the folder of "
                              "mkdocs.yml, such as examples/train.py)")
    return value


def _package_module(value: str) -> str:
    from thunder_docs.shared.code_digest import module_files

    try:
        module_files(value)
    except FileNotFoundError:
        raise ExecOptionError(f"'{value}' is not a module of this site's package (name one by its import "
                              "name, such as thunder_docs.explain.cli)") from None
    return value


def _option(default, example: str, doc: str, check: Callable[[str], str] | None = None):
    return field(default=default, metadata={"example": example, "doc": doc, "check": check})


@dataclass(frozen=True)
class ExecOptions:
    """The options of one include; the defaults are what an include without a directive gets."""

    output: str = _option(
        "text", "output=diff", "highlights the output with the `diff` lexer (any Pygments lexer's short name; "
        "the default is `text`).", _lexer)
    graph: tuple[str, ...] = _option(
        (), "graph=traces[0],traces[-1]",
        "draws, under the block's output, the dataflow graph of each named trace (or of a bound symbol's "
        "subsymbols, such as a fusion region), made from the objects when the block's code has run "
        "(`src/thunder_docs/page/graph.py`): one node per line, labelled as the trace prints it, one arrow "
        "per value read. Name plain expressions over the snippet's variables, without spaces or commas.",
        _expression)
    stepper: bool = _option(
        False, "stepper", "adds, under the output, a pass stepper over the traces of the first "
        "`thunder.last_traces(...)` list the code asks for (shown with JavaScript only).")
    reads: tuple[str, ...] = _option(
        (), "reads=examples/two_shapes.py",
        "names the files, other than the snippet, whose content the section's output depends on (a script "
        "it runs or prints), from the folder of `mkdocs.yml`: their content goes into the section's cache "
        "key, so an edit of one runs the section again. A file that does not exist fails the build.",
        _repository_path)
    runs: tuple[str, ...] = _option(
        (), "runs=thunder_docs.explain.cli",
        "names modules of this site's package that the section runs in a process of its own (as `python -m` "
        "does): the code of each, and of every module of the package it imports, goes into the section's "
        "cache key, so an edit of that code runs the section again. A module that does not exist fails "
        "the build.", _package_module)
    cuda: bool = _option(
        False, "cuda", "marks a section whose output differs on CUDA. The snippet reads the device from "
        '`os.environ.get("THUNDER_DOCS_DEVICE", "cpu")`. The page shows a CPU tab and a CUDA tab '
        '(see "Devices" below).')

    def key(self) -> str:
        """Every option's value, as the section's cache key takes it."""
        return json.dumps(asdict(self), sort_keys=True)

    def written(self) -> dict[str, str]:
        """The options that differ from their defaults, as a directive writes them: flags map to ""."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value == f.default:
                continue
            if isinstance(value, bool):
                out[f.name] = ""
            else:
                out[f.name] = ",".join(value) if isinstance(value, tuple) else value
        return out


_DECLARED = {f.name: f for f in fields(ExecOptions)}
# The types an option may have, as annotated (this module's annotations are strings): a flag,
# a text, a comma-separated list of texts.
_KINDS = {"bool": "flag", "str": "text", "tuple[str, ...]": "list"}
if unsupported := [f"{f.name}: {f.type}" for f in _DECLARED.values() if f.type not in _KINDS]:
    raise TypeError(f"exec options of a type parse_exec_options cannot read: {', '.join(unsupported)}")


def parse_exec_options(text: str) -> ExecOptions:
    """The options a directive's text sets (``cuda graph=region``); raises ExecOptionError."""
    values: dict[str, object] = {}
    for word in text.split():
        name, eq, value = word.partition("=")
        declared = _DECLARED.get(name)
        if declared is None:
            raise ExecOptionError(f"unknown exec option '{name}' (known: {', '.join(sorted(_DECLARED))})")
        if name in values:
            raise ExecOptionError(f"exec option '{name}' is given twice")
        values[name] = _value(declared, value if eq else None)
    return ExecOptions(**values)


def _value(declared: Field, value: str | None) -> bool | str | tuple[str, ...]:
    name, kind = declared.name, _KINDS[declared.type]
    check = declared.metadata["check"] or (lambda v: v)
    if kind == "flag":
        if value is not None:
            raise ExecOptionError(f"exec option '{name}' is a flag and takes no value: write {name}, not {name}={value}")
        return True
    if not value:
        raise ExecOptionError(f"exec option '{name}' needs a value: {declared.metadata['example']}")
    try:
        if kind == "list":
            parts = value.split(",")
            if not all(parts):
                raise ExecOptionError("an item is empty (items are separated by single commas)")
            return tuple(check(part) for part in parts)
        return check(value)
    except ExecOptionError as error:
        raise ExecOptionError(f"exec option '{name}={value}': {error}") from None


def readme_list(width: int = 95) -> list[str]:
    """MAINTAINING.md's list of the options ("Add a page"), made from the declarations."""
    lines = []
    for f in fields(ExecOptions):
        item = f"`<!-- exec: {f.metadata['example']} -->` {f.metadata['doc']}"
        lines += textwrap.wrap(item, width, initial_indent="- ", subsequent_indent="  ",
                               break_long_words=False, break_on_hyphens=False)
    return lines
