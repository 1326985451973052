"""Writing files so that a reader never sees half of one, and a store of JSON values by key."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any


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


class UnusableFolder(OSError):
    """A cache folder that cannot be made or written; its message is one line naming why."""


def usable_folder(path: Path, shown_from: Path | None = None) -> Path:
    """``path`` as a folder this process can write in, made if missing; else UnusableFolder,
    naming what is in the way (a file where a folder must be, a folder it may not write), its
    paths relative to ``shown_from`` when they are inside it."""

    def shown(p: Path) -> str:
        return p.relative_to(shown_from).as_posix() if shown_from and p.is_relative_to(shown_from) else str(p)

    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in [path, *path.parents] if p.exists() and not p.is_dir()), path)
        raise UnusableFolder(f"the cache folder {shown(path)} cannot be used: {shown(blocker)} is a file, "
                             "not a folder") from None
    except OSError as error:
        raise UnusableFolder(f"the cache folder {shown(path)} cannot be made: {error.strerror or error}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise UnusableFolder(f"the cache folder {shown(path)} cannot be used: this user may not write in it")
    return path


KEEP_DAYS = 30  # an entry that no build used for this long is removed (see prune)
PRUNE_EVERY = 24 * 3600  # seconds between two prunings of one folder


class JsonStore:
    """JSON values on disk by key (a hex digest): ``<directory>/<2 chars>/<key>.json``.

    A missing or damaged entry reads as None; entries are written atomically, so builds
    that share a store never read half an entry. Reading an entry marks it used (its file's
    time); opening a store prunes it at most once a day (``prune``).
    """

    def __init__(self, directory: Path):
        self.directory = usable_folder(directory)
        prune(directory, "*/*.json")

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str):
        path = self.path(key)
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        with contextlib.suppress(OSError):  # used now: kept by the next pruning
            os.utime(path)
        return value

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


def prune(directory: Path, pattern: str, keep_days: float = KEEP_DAYS) -> int:
    """Remove the files matching ``pattern`` under ``directory`` that no build used for ``keep_days``
    (their time is older), at most once every ``PRUNE_EVERY`` seconds per folder (a ``.pruned``
    file keeps the time). Another build sharing the folder loses nothing it used this month.
    Returns how many files were removed."""
    marker = directory / ".pruned"
    now = time.time()
    try:
        if now - marker.stat().st_mtime < PRUNE_EVERY:
            return 0
    except OSError:
        pass
    if not directory.is_dir():
        return 0
    removed = 0
    for path in directory.glob(pattern):
        with contextlib.suppress(OSError):
            if now - path.stat().st_mtime > keep_days * 86400:
                path.unlink()
                removed += 1
    with contextlib.suppress(OSError):
        marker.touch()
    return removed


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


def portable(text: str, root: Path) -> str:
    """``text`` with the repository's folder written as ``.``: a key that names files by path stays
    the same in a copy of the checkout in another folder."""
    return re.sub(re.escape(str(root)) + r"(?=[/\\\"']|$)", ".", text)


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
