"""Citations of Thunder's source by name, resolved when the site is built.

A page cites Thunder's source as ``[[thunder/core/transform_common.py:dce]]``: a path
inside Thunder's installed package, a colon, and the dotted name of an object defined in
that file (a function, a class, a method as ``Class.method``, a function nested in another
as ``outer.inner``, or a module-level assignment). ``[[thunder/__init__.py]]`` cites a
whole file.

The ``thunder-cite`` plugin (``on_page_markdown``) replaces each citation outside code
spans and fenced blocks with a link to the source on GitHub, at the tag of the installed
Thunder version, whose text shows the object and its ``file:line-range``:

    [`dce` (`thunder/core/transform_common.py:145-194`)](https://github.com/...#L145-L194)

Line ranges come from parsing the installed file with ``ast`` (a ``def`` or ``class``
from its first decorator to its last line; an assignment from its first to its last
line), so the build never imports Thunder. A citation whose file or object does not
exist fails the build with a ``PluginError`` that names the page and the citation: a
Thunder upgrade that removes or renames a cited object cannot slip onto the site.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from thunder_docs.plugins.cite.config import CitationsConfig
from thunder_docs.shared.code_digest import loaded_digest
from thunder_docs.shared.fences import iter_fences
from thunder_docs.shared.files import JsonStore, digest
from thunder_docs.shared.model import folder_of
from thunder_docs.shared.thunder_source import REPOSITORY, SourceError, source_file, span, thunder_version

# [[thunder/path/file.py]] or [[thunder/path/file.py:Dotted.name]]
CITATION = re.compile(r"\[\[(?P<path>thunder/[\w./-]*\.py)(?::(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*))?\]\]")
log = get_plugin_logger("thunder-cite")
_CODE_SPAN = re.compile(r"(?<!`)(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.S)


@dataclass(frozen=True)
class Citation:
    path: str  # inside Thunder's package, starting with thunder/
    name: str | None  # dotted object name, or None for the whole file
    start: int | None = None
    end: int | None = None

    @property
    def lines(self) -> str:
        if self.start is None:
            return ""
        return str(self.start) if self.start == self.end else f"{self.start}-{self.end}"

    @property
    def url(self) -> str:
        url = f"{REPOSITORY}/blob/{thunder_version()}/{self.path}"
        if self.start is None:
            return url
        return url + (f"#L{self.start}" if self.start == self.end else f"#L{self.start}-L{self.end}")

    def markdown(self) -> str:
        """A Markdown link whose text names the object and where it is."""
        version = thunder_version()
        if self.name is None:
            return f'[`{self.path}`]({self.url} "{self.path} in Thunder {version}")'
        where = f"{self.path}:{self.lines}"
        span = "line" if self.start == self.end else "lines"
        title = f"{self.name}: {span} {self.lines} of {self.path} in Thunder {version}"
        return f'[`{self.name}` (`{where}`)]({self.url} "{title}")'


def resolve(path: str, name: str | None) -> Citation:
    if name is None:
        source_file(path)
        return Citation(path, None)
    start, end = span(path, name)
    return Citation(path, name, start, end)


def _replace(text: str, page: str, keep_going: bool = False) -> str:
    def one(match: re.Match) -> str:
        try:
            return resolve(match["path"], match["name"]).markdown()
        except SourceError as error:  # no such file or object in the installed Thunder
            message = f"thunder-cite: {page}: citation {match.group(0)}: {error}"
            if not keep_going:
                raise PluginError(message) from None
            log.warning(message)
            cited = match["path"] + (f":{match['name']}" if match["name"] else "")
            return f"`{cited}` (not in lightning-thunder {thunder_version()})"

    return CITATION.sub(one, text)


def _outside_code_spans(text: str, page: str, keep_going: bool = False) -> str:
    out, pos = [], 0
    for span_match in _CODE_SPAN.finditer(text):
        out += [_replace(text[pos:span_match.start()], page, keep_going), span_match.group(0)]
        pos = span_match.end()
    out.append(_replace(text[pos:], page, keep_going))
    return "".join(out)


def render(markdown: str, page: str, keep_going: bool = False) -> str:
    """The page's Markdown with every citation outside code spans and fences resolved; with
    ``keep_going``, one that does not resolve is a warning and shows as plain code."""
    if "[[" not in markdown:
        return markdown
    lines = markdown.split("\n")
    out: list[str] = []
    prose = 0  # the first line after the last fence: prose between fences is rendered together
    for fence in [*iter_fences(markdown), None]:
        stop = len(lines) if fence is None else fence.start
        if stop > prose:  # a citation is one line: the rendered text has as many lines
            out += _outside_code_spans("\n".join(lines[prose:stop]), page, keep_going).split("\n")
        if fence is not None:
            out += lines[fence.start : fence.end + 1]
            prose = fence.end + 1
    return "\n".join(out)


class CitationsPlugin(BasePlugin[CitationsConfig]):
    """``thunder-cite``: resolve ``[[thunder/file.py:object]]`` citations in every page."""

    def __init__(self) -> None:
        self.store: JsonStore | None = None  # resolved Markdown by key, when the cache_dir option is set

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        root = folder_of(config)
        self.store = JsonStore(root / self.config.cache_dir) if self.config.cache_dir else None
        return config

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        if self.store is None or "[[" not in markdown:
            return render(markdown, page.file.src_uri, self.config.keep_going)
        # Line ranges depend on Thunder's installed source: its version, and the resolving code
        # (with the fence scanner, which says what is left alone).
        key = digest(thunder_version(), loaded_digest("thunder_docs.plugins.cite.plugin"),
                     page.file.src_uri, markdown)
        return self.store.remember(key, lambda: render(markdown, page.file.src_uri, self.config.keep_going))
