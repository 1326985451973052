"""Reuse a page's Markdown conversion while nothing it was made from has changed.

MkDocs converts every page's Markdown to HTML on every build (``Page.render``), also under
``mkdocs serve`` after a one-word edit of another page. ``PageCache.wrap`` replaces a page's
``render`` (in ``on_pre_page``, as mkdocs-jupyter does for notebooks) with one that looks the
result up first. The rest of the build (every ``on_page_content`` hook, autorefs, the search
index, the theme) runs on the page as usual.

What a conversion reads, and so what decides whether it is reused:

- the key: the page's final Markdown (after every ``on_page_markdown`` hook, so with its
  outputs), its path and URL, every file's path, URL and inclusion (relative links are
  resolved against them), the Markdown extensions and their options, the validation settings, the
  autorefs options, the code of the diagram fence, and the versions of the packages that
  convert (among them MkDocs, or ProperDocs when the build runs on it);
- the files pymdownx.snippets included (sections ``--8<--``, the appended glossary): the
  entry records each file's hash, and an entry whose files changed is made again.

What a conversion leaves besides its HTML is kept and given back: the table of contents,
the title found in the HTML, the anchors MkDocs validates links against, and the anchors
the page registered with autorefs. Never kept: pages with ``:::`` API entries, in their
Markdown or from an included file (mkdocstrings also fills its inventory while converting;
thunder-refcache reuses those entries); a conversion that said anything (a log message or a
Python warning, see messages.py), so a warning is printed on every build; and a conversion
made with ``--verbose`` on MkDocs, which then does not collect the links it validates anchors
with (ProperDocs always collects them, so there they are kept and given back).
"""

from __future__ import annotations

import base64
import json
import logging
import pickle
import platform
import re
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.structure.pages import log as pages_log

from thunder_docs.plugins.buildcache.messages import Messages
from thunder_docs.plugins.buildcache.wrapping import replace_attribute, wrapped
from thunder_docs.shared.code_digest import loaded_digest
from thunder_docs.shared.contracts import Contract
from thunder_docs.shared.files import JsonStore, digest, portable, stable
from thunder_docs.shared.model import folder_of
from thunder_docs.shared.versions import distribution_version, engine_distribution

CONTRACT = Contract("the page cache (thunder-buildcache pages)", {
    "mkdocs": ("1.6.1", "properdocs 1.6.7"),  # Page.render and the fields it sets; links_to_anchors skipped at DEBUG
    "pymdown-extensions": ("13.1.2",),  # SnippetPreprocessor.get_snippet_path reads every included file
    "mkdocs-autorefs": ("1.4.5",),  # a conversion's only effect on autorefs is register_anchor
})
# With the engine (engine_distribution: MkDocs or ProperDocs, whichever runs as ``mkdocs``).
PACKAGES = ("markdown", "pymdown-extensions", "pygments", "mkdocs-autorefs", "mkdocs-material",
            "mkdocstrings")  # mkdocstrings' extension runs on every page (headings, TOC labels, backlinks)
API_ENTRY = re.compile(r"^\s*(#{1,6} *)?:::", re.M)  # wider than mkdocstrings' own pattern
REPLAYED = ("content", "toc", "_title_from_render", "present_anchor_ids", "links_to_anchors")  # what Page.render sets
# Whether Page.render leaves links_to_anchors unset at DEBUG (--verbose), by the package that runs.
LINKS_SKIPPED_AT_DEBUG = {"mkdocs": True, "properdocs": False}
API_HTML = 'class="doc doc-'  # an entry mkdocstrings' Python handler rendered


@dataclass
class _Recording:
    """What one conversion did besides returning HTML."""

    snippets: set[str] = field(default_factory=set)  # files pymdownx.snippets read
    anchors: list[tuple[tuple, dict]] = field(default_factory=list)  # autorefs.register_anchor calls
    keep: bool = False  # nothing was said while converting (messages.py), so the result may be reused


class PageCache:
    def __init__(self, directory: Path, config: MkDocsConfig, files: Files, autorefs: Any = None,
                 root: Path | None = None):
        self.store = JsonStore(directory)
        self.autorefs = autorefs
        self.root = root or folder_of(config)
        self.engine = engine_distribution()
        packages = (self.engine, *PACKAGES)
        self.context = digest(
            json.dumps({"python": platform.python_version(), **{p: distribution_version(p) for p in packages}},
                       sort_keys=True),
            portable(json.dumps(stable([config.markdown_extensions, config.mdx_configs, config.validation,
                                         config.use_directory_urls, autorefs.config if autorefs is not None else None]),
                                sort_keys=True, default=str), self.root),
            json.dumps(sorted((f.src_uri, f.url, f.dest_uri, f.inclusion.name) for f in files)),
            loaded_digest("thunder_docs.plugins.buildcache.page_cache", "thunder_docs.plugins.diagrams.fences"))
        self.recording: _Recording | None = None  # the conversion under way, while one is
        self.hits = self.misses = self.skipped = 0

    def wrap(self, page: Page) -> None:
        """Make ``page.render`` reuse a stored conversion (Markdown pages without API entries)."""
        if not page.file.src_uri.endswith(".md"):
            return
        render = page.render

        def cached_render(config: MkDocsConfig, files: Files) -> None:
            if page.markdown is None or API_ENTRY.search(page.markdown):
                self.skipped += 1
                return render(config, files)
            key = digest(self.context, page.file.src_uri, page.url, page.markdown)
            entry = self.store.get(key)
            result = _loads(entry["page"]) if entry is not None and self._fresh(entry) else None
            if result is not None:
                self.hits += 1
                return self._replay(page, files, result)
            self.misses += 1
            recording = self._record(render, config, files)
            # Kept only when nothing was said, anchors are validated (MkDocs skips them with
            # --verbose) and no API entry came in through an included file.
            if recording.keep and page.links_to_anchors is not None and API_HTML not in page.content:
                self.store.put(key, {"snippets": {self._relative(p): _file_digest(p) for p in sorted(recording.snippets)},
                                     "page": base64.b64encode(pickle.dumps(self._result(page, recording))).decode()})

        page.render = cached_render

    def _record(self, render: Callable, config: MkDocsConfig, files: Files) -> _Recording:
        self.recording = recording = _Recording()

        def recording_anchors(register):
            def recorded_register(*args, **kwargs):
                # Kept without the page (replayed on the new page object), given by position or by name.
                rest = {k: v for k, v in kwargs.items() if k != "page"}
                recording.anchors.append((args if "page" in kwargs else args[1:], rest))
                return register(*args, **kwargs)
            return recorded_register

        anchors = wrapped(self.autorefs, "register_anchor", recording_anchors) if self.autorefs is not None \
            else nullcontext()
        try:
            with anchors, Messages() as said:
                render(config, files)
            recording.keep = said.keep
        finally:
            self.recording = None
        return recording

    @staticmethod
    def _result(page: Page, recording: _Recording) -> dict:
        links = page.links_to_anchors
        return {"content": page.content, "toc": page.toc, "title": page._title_from_render,
                "anchors": page.present_anchor_ids,
                "links": None if links is None else {f.src_uri: v for f, v in links.items()},
                "registered": recording.anchors}

    def _replay(self, page: Page, files: Files, result: dict) -> None:
        """Set what ``Page.render`` sets, and register the page's anchors with autorefs again."""
        page.content, page.toc, page._title_from_render = result["content"], result["toc"], result["title"]
        page.present_anchor_ids = result["anchors"]
        skipped = LINKS_SKIPPED_AT_DEBUG[self.engine] and pages_log.getEffectiveLevel() <= logging.DEBUG
        if not skipped and result["links"] is not None:
            page.links_to_anchors = {files.get_file_from_path(src): v for src, v in result["links"].items()}
        if self.autorefs is not None:
            for args, kwargs in result["registered"]:
                self.autorefs.register_anchor(page, *args, **kwargs)

    def _fresh(self, entry: dict) -> bool:
        return all(_file_digest(str(self.root / path)) == hashed for path, hashed in entry["snippets"].items())

    def _relative(self, path: str) -> str:
        """An included file's path from the repository's folder (a file outside it stays absolute)."""
        resolved = Path(path).resolve()
        return resolved.relative_to(self.root).as_posix() if resolved.is_relative_to(self.root) else str(resolved)

    def snippet_read(self, path: str | None) -> None:
        """pymdownx.snippets resolved an included file (see ``install``)."""
        if self.recording is not None and path is not None:
            self.recording.snippets.add(path)


def _loads(text: str) -> dict | None:
    """A stored conversion, or None when it cannot be read (a damaged entry, a moved class): a miss."""
    try:
        return pickle.loads(base64.b64decode(text))
    except Exception:
        return None


def _file_digest(path: str) -> str | None:
    try:
        return digest(Path(path).read_bytes())
    except OSError:
        return None


def install(cache: PageCache | None) -> None:
    """Let ``cache`` see the files pymdownx.snippets includes (None: as before)."""
    from pymdownx.snippets import SnippetPreprocessor

    def make(original):
        def get_snippet_path(self, path):
            found = original(self, path)
            cache.snippet_read(found)
            return found
        return get_snippet_path

    replace_attribute(SnippetPreprocessor, "get_snippet_path", make if cache is not None else None)
