"""Writing files so that a reader never sees half of one, and a store of JSON values by key."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).parent.parent  # src/thunder_docs


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place.

    Two builds sharing a cache may write the same entry at once; each rename is atomic, so
    a reader sees the old file or a whole new one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # as a file written in place would be (mkstemp makes it 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class JsonStore:
    """JSON values on disk by key (a hex digest): ``<directory>/<2 chars>/<key>.json``.

    A missing or damaged entry reads as None; entries are written atomically, so builds
    that share a store never read half an entry.
    """

    def __init__(self, directory: Path):
        self.directory = directory

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str):
        try:
            return json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, value) -> None:
        write_atomic(self.path(key), json.dumps(value))

    def remember(self, key: str, compute: Callable[[], Any]) -> Any:
        """The value stored under ``key``; if there is none, ``compute()``, stored. A value that
        raises is not stored, so a failing page fails again on the next build."""
        value = self.get(key)
        if value is None:
            value = compute()
            self.put(key, value)
        return value


def digest(*parts: str | bytes) -> str:
    """A key from several texts: each hashed with its length, so no two lists of parts collide."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def unframed_digest(text: str) -> str:
    """The SHA-256 of one text, without ``digest``'s length framing: only for names that committed
    files already carry (the drawings in diagrams/), which hashing them anew would rename."""
    return hashlib.sha256(text.encode()).hexdigest()


def code_digest(*paths: str) -> str:
    """The code a cached result depends on: modules and folders of this package, by path inside it
    (``"shared/trace_map.py"``, ``"page"``: every module of a folder, its subfolders too)."""
    files = []
    for path in paths:
        where = PACKAGE / path
        found = sorted(where.rglob("*.py")) if where.is_dir() else [where]
        if not found or not all(f.is_file() for f in found):
            raise FileNotFoundError(f"code_digest: no module at {path}")
        files += found
    return digest(*(part for f in files for part in (f.relative_to(PACKAGE).as_posix(), f.read_bytes())))


def stable(value: Any) -> Any:
    """A JSON-able form of options and configs: functions by name, never by address."""
    if is_dataclass(value) and not isinstance(value, type):
        return stable(asdict(value))
    if isinstance(value, Mapping):  # dicts, and MkDocs' Config objects
        return {str(k): stable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((stable(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [stable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return getattr(value, "__qualname__", type(value).__qualname__)
