"""Link the names that pages mention to the API reference and to Thunder's source.

A small MkDocs plugin (``thunder-links`` in ``mkdocs.yml``) that works on each page's
rendered HTML (``on_page_content``):

- **Inline code in prose.** A code span that is exactly an API name of the reference
  (``TraceCtx``, ``thunder.last_traces``, ``from_trace(trc)``...) becomes a cross-reference
  to its entry. The reference is an autorefs ``<autoref>`` element, resolved when every
  page has been rendered; one without a target fails ``mkdocs build --strict``. A span
  that is a Thunder operator (``ltorch.add``, ``prims.broadcast_in_dim``) links to its
  definition on GitHub.
- **Code blocks and printed output.** In every ``<pre>`` (the page's code, the outputs
  the build inserts, a notebook's cells), API names link to their reference entry and
  ``ltorch.X``/``prims.X`` to their source; in printed output, where a trace's
  ``torch.X`` is the torch executor's symbol, ``torch.X`` links to where that executor
  registers it. A link only wraps existing text, so the block's text, which Material's
  copy button copies, is unchanged.
- **Reference entries.** Each heading of a mkdocstrings entry gets a link to the
  object's source, and Sphinx roles left in Thunder's docstrings
  (``:class:`~thunder.core.proxies.TensorProxy```) become cross-references.
- **Glossary terms.** The ``abbr`` extension marks glossary terms everywhere; in headings
  and on the glossary page itself the marks are removed (``on_page_content``), and the
  link titles that autorefs copies from reference headings lose their leading
  whitespace (``on_post_page``).

Source lines come from parsing Thunder's installed files (the line of the ``def``,
``class`` or assignment, decorators included, as ``inspect.getsourcelines`` reports), so
the build never imports Thunder.
"""

from __future__ import annotations

import ast
import html
import importlib.metadata
import importlib.util
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File

REPOSITORY = "https://github.com/Lightning-AI/lightning-thunder"
STYLESHEET = "assets/stylesheets/thunder-links.css"

# The API reference: canonical identifier (its mkdocstrings anchor) -> other names pages use.
API: dict[str, tuple[str, ...]] = {
    "thunder.core.trace.TraceCtx": ("TraceCtx",),
    "thunder.core.trace.tracectx": ("tracectx",),
    "thunder.core.trace.from_trace": ("from_trace",),
    "thunder.core.trace.TraceProvenance": ("TraceProvenance",),
    "thunder.core.trace.TraceTag": ("TraceTag",),
    "thunder.core.symbol.Symbol": ("Symbol",),
    "thunder.core.symbol.BoundSymbol": ("BoundSymbol",),
    "thunder.core.symbol.BoundSymbolTag": ("BoundSymbolTag",),
    "thunder.core.proxies.Proxy": ("Proxy",),
    "thunder.core.proxies.TensorProxy": ("TensorProxy",),
    "thunder.core.proxies.NumberProxy": ("NumberProxy",),
    "thunder.core.proxies.IntegerProxy": ("IntegerProxy",),
    "thunder.core.proxies.FloatProxy": ("FloatProxy",),
    "thunder.core.proxies.CollectionProxy": ("CollectionProxy",),
    "thunder.core.prims.PrimIDs": ("PrimIDs",),
    "thunder.core.codeutils.SigInfo": ("SigInfo",),
    "thunder.core.transform_common.Transform": ("Transform", "thunder.Transform"),
    "thunder.core.transforms.visitor_transform": ("visitor_transform",),
    "thunder.core.transforms.insert_inplace": ("insert_inplace",),
    "thunder.core.transforms.replace_inplace": ("replace_inplace",),
    "thunder.executors.passes.transform_for_execution": ("transform_for_execution",),
    "thunder.jit": (),
    "thunder.last_traces": ("last_traces",),
    "thunder.last_backward_traces": ("last_backward_traces",),
    "thunder.last_prologue_traces": ("last_prologue_traces",),
    "thunder.compile_data": ("compile_data",),
    "thunder.compile_stats": ("compile_stats",),
    "thunder.pytorch_executor": (),
    "thunder.common.CompileStats": ("CompileStats",),
    "thunder.extend.Executor": ("Executor",),
    "thunder.extend.OperatorExecutor": ("OperatorExecutor",),
    "thunder.extend.FusionExecutor": ("FusionExecutor",),
    "thunder.extend.get_default_executors": ("get_default_executors", "thunder.get_default_executors"),
    "thunder.extend.get_always_executors": ("get_always_executors", "thunder.get_always_executors"),
    "thunder.examine": (),
    "thunder.examine.examine": (),
    "thunder.examine.get_fusions": ("get_fusions",),
    "thunder.examine.get_fusion_symbols": ("get_fusion_symbols",),
}

NAMES: dict[str, str] = {name: ident for ident, names in API.items() for name in (ident, *names)}

# Printed prefixes of Thunder's operators -> the module that defines them.
OPERATOR_MODULES = {
    "ltorch": "thunder.torch",
    "thunder.torch": "thunder.torch",
    "prims": "thunder.core.prims",
    "thunder.core.prims": "thunder.core.prims",
}
# In a printed trace, torch.X is the torch executor's symbol for torch.X.
OUTPUT_MODULES = {**OPERATOR_MODULES, "torch": "thunder.executors.torchex"}

_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_INLINE = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\([^()]*\))?(?:\[[^\[\]]*\])?")
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|mod|obj|data|exc):<code>(?P<tilde>~?)(?P<name>[\w.]+)</code>")
_TAG = re.compile(r"<!--.*?-->|<(?P<close>/?)(?P<name>[A-Za-z][A-Za-z0-9-]*)(?P<attrs>(?:\"[^\"]*\"|'[^']*'|[^'\">])*)>", re.S)
_CLASS = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|\w+);")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


# -- Thunder's source ------------------------------------------------------------------------
def thunder_version() -> str:
    return importlib.metadata.version("lightning-thunder")


@cache
def _thunder_dir() -> Path:
    spec = importlib.util.find_spec("thunder")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("thunder_docs.links: Thunder is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _module_file(module: str) -> Path | None:
    parts = module.split(".")
    if parts[0] != "thunder":
        return None
    base = _thunder_dir().joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _definitions(path: Path) -> dict[str, int]:
    """Line of each top-level and class-level definition of a file, by dotted name."""
    lines: dict[str, int] = {}

    def visit(body, prefix):
        for node in body:
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
                line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                line = node.lineno
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
                line = node.lineno
            for name in names:
                lines.setdefault(prefix + name, line)  # the first definition wins
            if isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".")

    visit(ast.parse(path.read_text(encoding="utf-8")).body, "")
    return lines


@dataclass(frozen=True)
class Source:
    path: str  # relative to the repository, e.g. thunder/torch/__init__.py
    line: int

    @property
    def url(self) -> str:
        return f"{REPOSITORY}/blob/{thunder_version()}/{self.path}#L{self.line}"


def source_of(dotted: str) -> Source | None:
    """Where Thunder defines ``dotted`` (a module, or an object of a module), if it does."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        file = _module_file(".".join(parts[:cut]))
        if file is None:
            continue
        rest = ".".join(parts[cut:])
        line = _definitions(file).get(rest) if rest else 1
        if line is None:
            return None
        return Source(file.relative_to(_thunder_dir().parent).as_posix(), line)
    return None


def operator_source(name: str, modules: dict[str, str]) -> Source | None:
    """The source of a printed operator name such as ``ltorch.add`` or ``prims.add``."""
    prefix, _, op = name.rpartition(".")
    module = modules.get(prefix)
    if not module or not op or op.startswith("_"):
        return None
    return source_of(f"{module}.{op}")


# -- what a name links to ---------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    identifier: str | None = None  # an autorefs identifier
    source: Source | None = None
    optional: bool = False

    def wrap(self, inner: str) -> str:
        if self.identifier:
            optional = " optional" if self.optional else ""
            return f'<autoref identifier="{self.identifier}"{optional}>{inner}</autoref>'
        title = html.escape(f"{self.source.path}:{self.source.line} (Thunder {thunder_version()})")
        return f'<a class="thunder-source" href="{self.source.url}" title="{title}">{inner}</a>'


@cache
def resolve(name: str, *, output: bool = False) -> tuple[int, Target] | None:
    """What the dotted ``name`` links to, and how many characters of it the link covers.

    An API name links to its entry (its members to theirs, if the reference shows them);
    an operator to its source. ``output``: the name is in printed output, where a trace's
    ``torch.X`` is the torch executor's symbol.
    """
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        head = ".".join(parts[:cut])
        if head in NAMES:
            ident = NAMES[head]
            if cut == len(parts):
                return len(name), Target(ident)
            if any(part.startswith("_") for part in parts[cut:]):
                return None  # a private member has no entry
            member = ".".join([ident, *parts[cut:]])
            return len(name), Target(member, optional=True)
    modules = OUTPUT_MODULES if output else OPERATOR_MODULES
    for cut in range(len(parts), 1, -1):
        head = ".".join(parts[:cut])
        source = operator_source(head, modules)
        if source:
            return len(head), Target(source=source)
    return None


# -- HTML ------------------------------------------------------------------------------------
@dataclass
class _Element:
    name: str
    classes: tuple[str, ...]
    start: int  # offset of the opening tag
    body: int  # offset right after the opening tag


def _classes(attrs: str) -> tuple[str, ...]:
    match = _CLASS.search(attrs)
    return tuple(next(g for g in match.groups() if g is not None).split()) if match else ()


def _is_doc(element: _Element) -> bool:
    return any(cls == "doc" or cls.startswith("doc-") for cls in element.classes)


def link_html(text: str) -> str:
    """The page's HTML with names linked (see the module docstring); its text is unchanged."""
    out: list[str] = []
    stack: list[_Element] = []
    pos = 0  # copied up to here
    in_pre = False
    skip_to = 0  # the end of a <script> or <style> element: raw text, not HTML
    for match in _TAG.finditer(text):
        name = (match["name"] or "").lower()
        if not name or match.start() < skip_to:
            continue  # a comment, or inside raw text
        if name in ("script", "style") and not match["close"]:
            end = text.find(f"</{name}>", match.end())
            skip_to = len(text) if end < 0 else end + len(name) + 3
            continue
        if in_pre:
            if match["close"] and name == "pre":
                out.append(_link_block(text[pos:match.start()], output=_is_output(stack)))
                pos = match.start()
                in_pre = False
                stack.pop()
            continue
        if match["close"]:
            while stack and stack[-1].name != name:
                stack.pop()
            if stack:
                stack.pop()
            continue
        if name in _VOID or match.group(0).endswith("/>"):
            continue
        element = _Element(name, _classes(match["attrs"]), match.start(), match.end())
        stack.append(element)
        if name == "pre" and "mermaid" not in element.classes and not any(_is_doc(e) for e in stack):
            out.append(text[pos:match.end()])
            pos = match.end()
            in_pre = True
        elif name == "code" and not element.classes and match.start() >= pos:
            replaced = _link_inline(text, stack)
            if replaced:
                start, end, new = replaced
                out.append(text[pos:start])
                out.append(new)
                pos = end
    out.append(text[pos:])
    return "".join(out)


def _is_output(stack: list[_Element]) -> bool:
    """A block of printed output: the build's exec output, or a notebook cell's output."""
    return any(cls == "exec-output" or cls.startswith(("jp-OutputArea", "jp-RenderedText"))
               for e in stack for cls in e.classes)


def _link_inline(text: str, stack: list[_Element]) -> tuple[int, int, str] | None:
    """A ``<code>`` span of prose that is exactly an API or operator name, as a link.

    Returns the HTML range to replace and its replacement.
    """
    code = stack[-1]
    close = text.find("</code>", code.body)
    if close < 0 or "<" in text[code.body:close]:
        return None
    end = close + len("</code>")
    enclosing = stack[:-1]
    if any(_is_doc(e) for e in enclosing):
        return _link_role(text, code.start, end)
    if any(e.name in _HEADINGS or e.name in ("a", "autoref", "pre") for e in enclosing):
        return None
    match = _INLINE.fullmatch(html.unescape(text[code.body:close]))
    if not match:
        return None
    resolved = resolve(match["name"])
    if not resolved or resolved[0] != len(match["name"]):
        return None
    return code.start, end, resolved[1].wrap(text[code.start:end])


def _link_role(text: str, start: int, end: int) -> tuple[int, int, str] | None:
    """Inside a docstring: a Sphinx role such as :class:`~thunder.core.proxies.TensorProxy`."""
    role = _ROLE.search(text, max(0, start - 20), end)
    if role is None or role.end() != end or role.start() > start:
        return None
    name = role["name"]
    shown = name.rpartition(".")[2] if role["tilde"] else name
    return role.start(), end, f'<autoref identifier="{name}" optional><code>{html.escape(shown)}</code></autoref>'


def _link_block(block: str, *, output: bool) -> str:
    """Link names in the content of a ``<pre>`` element, wrapping only existing text.

    Names are matched in the block's text (tags removed, an entity counting as one
    character). A link starts and ends inside the same element, moving out of the
    ``<span>`` elements that a name fills exactly (Pygments gives ``ltorch``, ``.`` and
    ``add`` a span each), so the HTML stays well nested; a name that cannot be wrapped so
    is left alone.
    """
    chars: list[tuple[int, int, int]] = []  # per character: HTML start, HTML end, element id
    plain: list[str] = []
    # Opening tags right before a character / closing tags right after it, innermost
    # last / first: (HTML offset outside the tag, id of the element around the tag).
    opened_before: dict[int, list[tuple[int, int]]] = {}
    closed_after: dict[int, list[tuple[int, int]]] = {}
    stack, next_id = [0], 1
    pending: list[tuple[int, int]] = []  # opening tags since the last character
    closing = False  # only closing tags since the last character

    def add_text(segment: str, offset: int) -> None:
        nonlocal pending, closing
        if not segment:
            return
        opened_before[len(chars)] = pending
        pending, closing = [], True
        i = 0
        for entity in [*_ENTITY.finditer(segment), None]:
            stop = entity.start() if entity else len(segment)
            for j in range(i, stop):
                chars.append((offset + j, offset + j + 1, stack[-1]))
                plain.append(segment[j])
            if entity:
                chars.append((offset + entity.start(), offset + entity.end(), stack[-1]))
                plain.append("\ufffc")
                i = entity.end()

    pos = 0
    for token in _TAG.finditer(block):
        add_text(block[pos:token.start()], pos)
        pos = token.end()
        name = (token["name"] or "").lower()
        if not name or name in _VOID or (not token["close"] and token.group(0).endswith("/>")):
            continue
        if token["close"]:
            if len(stack) > 1:
                stack.pop()
            if closing and chars:
                closed_after.setdefault(len(chars) - 1, []).append((token.end(), stack[-1]))
            pending = []
        else:
            pending = [*pending, (token.start(), stack[-1])]
            closing = False
            stack.append(next_id)
            next_id += 1
    add_text(block[pos:], pos)

    text = "".join(plain)
    inserts: list[tuple[int, int, str]] = []  # (HTML offset, closing before opening, HTML)
    for match in _DOTTED.finditer(text):
        resolved = resolve(match.group(0), output=output)
        if not resolved:
            continue
        first, last = match.start(), match.start() + resolved[0] - 1
        starts = [(chars[first][0], chars[first][2]), *reversed(opened_before.get(first, []))]
        ends = [(chars[last][1], chars[last][2]), *closed_after.get(last, [])]
        pair = next(((s, e) for s, sid in starts for e, eid in ends if sid == eid), None)
        if pair is None:
            continue
        opening, closing_tag = resolved[1].wrap("\0").split("\0")
        inserts += [(pair[0], 1, opening), (pair[1], 0, closing_tag)]
    if not inserts:
        return block
    pieces, pos = [], 0
    for offset, _, piece in sorted(inserts):
        pieces += [block[pos:offset], piece]
        pos = offset
    pieces.append(block[pos:])
    return "".join(pieces)


def link_headings(text: str) -> str:
    """Add a link to the source after the name in each heading of a mkdocstrings entry."""

    def add(match: re.Match) -> str:
        source = source_of(html.unescape(match["id"]))
        if source is None:
            return match.group(0)
        link = (f'<a class="thunder-source doc-source-link" href="{source.url}" '
                f'title="{source.path}:{source.line} (Thunder {thunder_version()})">source</a>')
        return f"{match['open']}{match['body']}{link}{match['close']}"

    return re.sub(
        r'(?P<open><h(?P<level>[1-6]) id="(?P<id>thunder[\w.]*)" class="doc doc-heading"[^>]*>)'
        r"(?P<body>.*?)(?P<close></h(?P=level)>)",
        add, text, flags=re.S,
    )


# -- the plugin ------------------------------------------------------------------------------
class LinksConfig(base.Config):
    stylesheet = c.Type(bool, default=True)
    glossary = c.Type(str, default="glossary.md")  # the page whose terms are not marked


CSS = """\
/* thunder-links: names in code blocks that link to the reference or to Thunder's source. */
.md-typeset pre a.autorefs, .md-typeset pre a.thunder-source,
.jupyter-wrapper pre a.autorefs, .jupyter-wrapper pre a.thunder-source {
  color: inherit;
  text-decoration: underline dotted;
  text-underline-offset: 0.2em;
}
.md-typeset pre a.autorefs:hover, .md-typeset pre a.thunder-source:hover,
.jupyter-wrapper pre a.autorefs:hover, .jupyter-wrapper pre a.thunder-source:hover {
  color: var(--md-accent-fg-color);
}
.md-typeset .doc-source-link {
  font-size: 0.6em;
  font-weight: normal;
  margin-left: 0.6em;
  vertical-align: middle;
}
"""


class LinksPlugin(BasePlugin[LinksConfig]):
    def on_config(self, config):
        if self.config.stylesheet and STYLESHEET not in config.extra_css:
            config.extra_css.append(STYLESHEET)
        return config

    def on_files(self, files, config):
        if self.config.stylesheet:
            files.append(File.generated(config, STYLESHEET, content=CSS))
        return files

    def on_page_content(self, html_text: str, page, config, files) -> str:
        html_text = link_headings(link_html(html_text))
        return unmark_terms(html_text, everywhere=page.file.src_uri == self.config.glossary)

    def on_post_page(self, output: str, page, config) -> str:
        return _LINK_TITLE.sub(r"\1", output)


_ABBR = re.compile(r"<abbr title=\"[^\"]*\">(.*?)</abbr>", re.S)
_HEADING_HTML = re.compile(r"(<h[1-6][\s>].*?</h[1-6]>)", re.S)
_LINK_TITLE = re.compile(r'(<a class="autorefs[^"]*" title=")\s+')


def unmark_terms(text: str, *, everywhere: bool = False) -> str:
    """Remove the glossary marks (``<abbr>``) from headings, or from the whole page."""
    if everywhere:
        return _ABBR.sub(r"\1", text)
    return _HEADING_HTML.sub(lambda m: _ABBR.sub(r"\1", m.group(1)), text)
