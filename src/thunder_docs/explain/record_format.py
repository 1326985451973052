"""The explorer's record: a ``Report`` (``report.py``) written to a file and read back, so a run
can be recorded once and its page made later, elsewhere, or again with newer page code.

A record is gzip-compressed JSON, ``{"format": "thunder-explain-record", "version": N, "report": ...}``.
The report is written field by field from its dataclasses and read back from their type hints,
with no list of fields kept here: a field added to ``Report`` or to any dataclass under it is
carried as it is, and a field left at its default is left out of the record, so a record written
before a field with a default was added still reads. What the reader cannot know is refused,
loud: a record of a newer format version (the message names both versions), a field it has no
place for, a value of a type the record cannot hold.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import tempfile
import types
import typing
from functools import cache
from pathlib import Path
from typing import Any

from thunder_docs.explain.report import Report

FORMAT = "thunder-explain-record"
# Raise it when a record of this code means something else to the code before: a field renamed,
# removed or given another type or meaning. Adding a field with a default needs no new version.
VERSION = 1


class RecordError(ValueError):
    """A file that is not a record this explorer can read: the message says which and why."""


# -- writing ------------------------------------------------------------------------------------------------
def to_data(value: Any, where: str = "report") -> Any:
    """``value`` as JSON data: a dataclass as an object of its fields (those at their default left
    out), a list or tuple as an array, a dict with string keys as an object. ``where`` names the
    value in an error (``report.functions[0].title``)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name), f"{where}.{f.name}")
                for f in dataclasses.fields(value) if not _at_default(value, f)}
    if isinstance(value, list | tuple):
        return [to_data(item, f"{where}[{k}]") for k, item in enumerate(value)]
    if isinstance(value, dict):  # JSON's keys are strings: an int key is written as its digits
        if not all(isinstance(key, str) or (isinstance(key, int) and not isinstance(key, bool)) for key in value):
            raise TypeError(f"{where}: a record holds dicts with string or int keys only")
        return {str(key): to_data(item, f"{where}[{key!r}]") for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"{where}: a record cannot hold a {type(value).__name__}")


def _at_default(obj: Any, f: dataclasses.Field) -> bool:
    value = getattr(obj, f.name)
    if f.default is not dataclasses.MISSING:
        return value == f.default
    if f.default_factory is not dataclasses.MISSING:
        return value == f.default_factory()
    return False


def dumps(report: Report) -> bytes:
    """The record of ``report``, compressed; the same report gives the same bytes (no time in the gzip header)."""
    record = {"format": FORMAT, "version": VERSION, "report": to_data(report)}
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return gzip.compress(text.encode("utf-8"), mtime=0)


def write_record(report: Report, path: Path) -> None:
    """Write the record of ``report`` to ``path``, whole or not at all (a temporary file renamed into place)."""
    data = dumps(report)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# -- reading ------------------------------------------------------------------------------------------------
def loads(data: bytes, name: str = "the record") -> Report:
    """The report a record holds. ``name`` names the record in an error."""
    try:
        record = json.loads(gzip.decompress(data).decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"{name}: not a thunder-explain record (not gzip-compressed JSON: {error})") from error
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"{name}: not a thunder-explain record (no \"format\": \"{FORMAT}\")")
    version = record.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError(f"{name}: its format version is {version!r}, not a version number")
    if version > VERSION:
        raise RecordError(f"{name}: written in record format version {version}, newer than this explorer reads "
                          f"(version {VERSION}); read it with the thunder-internals that wrote it, or a newer one")
    return from_data(Report, record.get("report"), "report")


def read_record(path: Path) -> Report:
    return loads(Path(path).read_bytes(), str(path))


def from_data(hint: Any, data: Any, where: str) -> Any:
    """The value of type ``hint`` that ``to_data`` wrote as ``data``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return data
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return from_data(options[0], data, where)
        for option in options:  # a union of plain types: the first the value is
            if isinstance(option, type) and _is_plain(option, data):
                return data
        raise RecordError(f"{where}: {data!r} is none of {hint}")
    if dataclasses.is_dataclass(hint):
        return _dataclass(hint, data, where)
    if origin in (list, tuple) or hint in (list, tuple):
        if not isinstance(data, list):
            raise RecordError(f"{where}: an array was expected, not {type(data).__name__}")
        if origin is tuple and args and args[-1] is not Ellipsis:  # tuple[A, B, C]
            if len(args) != len(data):
                raise RecordError(f"{where}: {len(args)} items were expected, not {len(data)}")
            return tuple(from_data(a, item, f"{where}[{k}]") for k, (a, item) in enumerate(zip(args, data, strict=True)))
        item_hint = args[0] if args else Any
        items = [from_data(item_hint, item, f"{where}[{k}]") for k, item in enumerate(data)]
        return tuple(items) if (origin or hint) is tuple else items
    if origin is dict or hint is dict:
        if not isinstance(data, dict):
            raise RecordError(f"{where}: an object was expected, not {type(data).__name__}")
        key_hint, value_hint = args if args else (Any, Any)
        return {_key(key_hint, key, where): from_data(value_hint, item, f"{where}[{key!r}]")
                for key, item in data.items()}
    if isinstance(hint, type) and _is_plain(hint, data):
        return float(data) if hint is float else data
    raise RecordError(f"{where}: {data!r} is not a {getattr(hint, '__name__', hint)}")


def _key(hint: Any, key: str, where: str) -> str | int:
    """A dict key as its type says: an int key was written as its digits."""
    if hint is int:
        if not key.lstrip("-").isdigit():
            raise RecordError(f"{where}: the key {key!r} is not an int")
        return int(key)
    return key


def _is_plain(hint: type, data: Any) -> bool:
    """Whether JSON ``data`` is a value of the plain type ``hint`` (a bool is no int here)."""
    if hint is bool:
        return isinstance(data, bool)
    if hint is int:
        return isinstance(data, int) and not isinstance(data, bool)
    if hint is float:
        return isinstance(data, int | float) and not isinstance(data, bool)
    if hint is str:
        return isinstance(data, str)
    return hint is type(None) and data is None


def _dataclass(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise RecordError(f"{where}: an object of {cls.__name__}'s fields was expected, not {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise RecordError(f"{where}: {cls.__name__} has no field {', '.join(unknown)} (a record of a newer "
                          f"explorer in the same format version {VERSION}?)")
    hints = _hints(cls)
    values = {}
    for name, f in fields.items():
        if name in data:
            values[name] = from_data(hints[name], data[name], f"{where}.{name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise RecordError(f"{where}: {cls.__name__}'s field {name} is missing")
    return cls(**values)


@cache
def _hints(cls: type) -> dict[str, Any]:
    """A dataclass's field types, resolved (its module writes them as strings: ``from __future__ import annotations``)."""
    return typing.get_type_hints(cls)
