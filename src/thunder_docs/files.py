"""Writing files so that a reader never sees half of one, and a store of JSON values by key."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


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
