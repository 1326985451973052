"""The ``thunder-explore`` plugin: the explorer's page of each script the site names, beside the site.

- ``on_config``: start running the explorer (``thunder-explain``) on each script named in the
  options, one after the other, in a thread, so that it runs while thunder-exec executes the
  pages. Each run is a process of its own; its page is kept in the cache folder by a digest of
  what it is made from (run.py), so a warm build runs nothing.
- ``on_files``: wait for the runs and add each page to the site as ``<folder>/<name>.html``.
  A script that fails, or that compiles nothing, fails the build with the explorer's last
  messages; no site is written without its pages.

The pages are the explorer's own (self-contained HTML, no Material); the site's pages link to them.
"""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files

from thunder_docs.plugins.explore.config import ExploreConfig
from thunder_docs.plugins.explore.run import Explored, ExploreError, explore, stop
from thunder_docs.shared.files import UnusableFolder, usable_folder
from thunder_docs.shared.model import folder_of

log = get_plugin_logger("thunder-explore")


class ExplorePlugin(BasePlugin[ExploreConfig]):
    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._explored: list[Explored] = []
        self._error: BaseException | None = None
        self._running: subprocess.Popen | None = None
        self._stopping = threading.Event()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        root = folder_of(config)
        try:
            cache = usable_folder(root / self.config.cache_dir, root)
        except UnusableFolder as error:
            raise PluginError(f"thunder-explore: {error}") from error
        self._explored, self._error, self._running = [], None, None
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, args=(root, cache), name="thunder-explore", daemon=True)
        self._thread.start()
        return config

    def _run(self, root: Path, cache: Path) -> None:
        try:
            for script in self.config.scripts:
                if self._stopping.is_set():
                    return
                self._explored.append(explore(root, script, cache, self.config.timeout, self._started))
        except BaseException as error:  # handed to on_files, which fails the build with it
            self._error = error

    def _started(self, proc: subprocess.Popen) -> None:
        self._running = proc
        if self._stopping.is_set():  # the build stopped while this run was starting
            stop(proc)

    def on_build_error(self, error: Exception) -> None:
        """A build that fails (in another plugin too) ends the explorer runs it started."""
        self._stopping.set()
        if self._running is not None:
            stop(self._running)
        if self._thread is not None:
            self._thread.join()

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        if self._thread is not None:
            self._thread.join()
        if isinstance(self._error, ExploreError):
            raise PluginError(str(self._error))
        if self._error is not None:
            raise PluginError(f"thunder-explore: {type(self._error).__name__}: {self._error}") from self._error
        for done in self._explored:
            uri = f"{self.config.folder}/{Path(done.script).stem}.html"
            files.append(File.generated(config, uri, abs_src_path=str(done.page)))
            log.info(f"{done.script}: {'reused' if done.reused else 'explored'} -> {uri}")
        return files
