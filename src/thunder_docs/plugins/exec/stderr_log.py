"""Keep what executed code wrote to standard error out of the build log, in a file of its own.

The build log gets one line per page that wrote anything (how many lines, and the first);
``mkdocs build --verbose`` shows it all; the file holds every line, by page and section.
"""

from __future__ import annotations

import threading
from pathlib import Path

from mkdocs.plugins import get_plugin_logger

from thunder_docs.shared.files import write_atomic

log = get_plugin_logger("thunder-exec")


class StderrLog:
    def __init__(self, path: Path, root: Path):
        self.path, self.root = path, root
        self.blocks: list[str] = []
        self._lock = threading.Lock()  # pages and notebooks finish on different threads

    def add(self, page: str, parts: list[tuple[str, str]]) -> None:
        """What each part (a section, or a notebook's kernel) of one page wrote to stderr."""
        written = [(name, text.strip()) for name, text in parts if text.strip()]
        if not written:
            return
        lines = [line for _, text in written for line in text.splitlines()]
        with self._lock:
            self.blocks += [f"=== {page}, {name} ===\n{text}\n" for name, text in written]
        log.info("%s wrote %d line%s to stderr, the first: %s", page, len(lines), "" if len(lines) == 1 else "s",
                 lines[0].strip())
        for name, text in written:
            log.debug("%s, %s wrote to stderr:\n%s", page, name, text)

    def write(self) -> None:
        """Write the file (replacing the last build's) and say where it is, if anything was written."""
        if not self.blocks:
            return
        write_atomic(self.path, "".join(self.blocks))
        log.info("all of it: %s", self.path.relative_to(self.root) if self.path.is_relative_to(self.root)
                 else self.path)
