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

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from .thunder_source import REPOSITORY, _thunder_dir, thunder_version

# [[thunder/path/file.py]] or [[thunder/path/file.py:Dotted.name]]
CITATION = re.compile(r"\[\[(?P<path>thunder/[\w./-]*\.py)(?::(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*))?\]\]")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)", re.S)


class CitationError(Exception):
    """A citation names a file or an object that the installed Thunder does not have."""


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


def _statements(body: list[ast.stmt]):
    """The statements of a body, looking into if/try/with blocks (not into defs)."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in (getattr(node, "body", []), getattr(node, "orelse", []),
                          getattr(node, "finalbody", [])):
                yield from _statements(block)
            for handler in getattr(node, "handlers", []):
                yield from _statements(handler.body)


def _assigned_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        names = []
        for target in node.targets:
            elts = target.elts if isinstance(target, ast.Tuple) else [target]
            names += [t.id for t in elts if isinstance(t, ast.Name)]
        return names
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def _find(body: list[ast.stmt], name: str) -> ast.stmt | None:
    """The first definition of ``name`` in a body: a def, a class or an assignment."""
    for node in _statements(body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return node
        if name in _assigned_names(node):
            return node
    return None


@cache
def _tree(file: Path) -> ast.Module:
    return ast.parse(file.read_text(encoding="utf-8"), filename=str(file))


def span(path: str, name: str) -> tuple[int, int]:
    """First and last line of the object ``name`` in Thunder's file ``path``, by ``ast``."""
    file = source_file(path)
    body: list[ast.stmt] = _tree(file).body
    node: ast.stmt | None = None
    for part in name.split("."):
        node = _find(body, part)
        if node is None:
            raise CitationError(f"{path} has no object '{name}' in Thunder {thunder_version()}")
        body = getattr(node, "body", [])
    assert node is not None
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return start, node.end_lineno or node.lineno


def source_file(path: str) -> Path:
    """The installed file of a path inside Thunder's package (``thunder/...``)."""
    if not path.startswith("thunder/") or ".." in Path(path).parts:
        raise CitationError(f"'{path}' is not a path inside Thunder's package (thunder/...)")
    file = _thunder_dir().parent / path
    if not file.is_file():
        raise CitationError(f"Thunder {thunder_version()} has no file {path}")
    return file


def resolve(path: str, name: str | None) -> Citation:
    if name is None:
        source_file(path)
        return Citation(path, None)
    start, end = span(path, name)
    return Citation(path, name, start, end)


def _replace(text: str, page: str) -> str:
    def one(match: re.Match) -> str:
        try:
            return resolve(match["path"], match["name"]).markdown()
        except CitationError as error:
            raise PluginError(f"thunder-cite: {page}: citation {match.group(0)}: {error}") from None

    return CITATION.sub(one, text)


def _outside_code_spans(text: str, page: str) -> str:
    out, pos = [], 0
    for span_match in _CODE_SPAN.finditer(text):
        out += [_replace(text[pos:span_match.start()], page), span_match.group(0)]
        pos = span_match.end()
    out.append(_replace(text[pos:], page))
    return "".join(out)


def render(markdown: str, page: str) -> str:
    """The page's Markdown with every citation outside code spans and fences resolved."""
    if "[[" not in markdown:
        return markdown
    out: list[str] = []
    prose: list[str] = []  # lines since the last fence, rendered together (code spans may wrap)
    fence: tuple[str, int] | None = None  # the open fence's character and length
    for line in markdown.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                out.append(_outside_code_spans("".join(prose), page))
                prose = []
                fence = (match["fence"][0], len(match["fence"]))
                out.append(line)
            else:
                prose.append(line)
        else:
            out.append(line)
            if match and match["fence"][0] == fence[0] and len(match["fence"]) >= fence[1] \
                    and not line.strip()[len(match["fence"]):].strip():
                fence = None
    out.append(_outside_code_spans("".join(prose), page))
    return "".join(out)


class CitationsPlugin(BasePlugin):
    """``thunder-cite``: resolve ``[[thunder/file.py:object]]`` citations in every page."""

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        return render(markdown, page.file.src_uri)
