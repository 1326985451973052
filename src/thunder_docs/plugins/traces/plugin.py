"""The ``thunder-traces`` plugin: make printed traces interactive, from the trace maps the build recorded.

- ``on_files``: add the script and the stylesheet (``shared/assets/``, shared with the explorer), which the
  site serves itself.
- ``on_page_content``: in each output block, link each source comment (``# snippets/x.py:13: ...``)
  to that line of the snippet's code block, which gets an id, and give the block's ``<code>`` the
  map of its trace lines (``data-lines``, shared/trace_markup.py: line_map; from shared/trace_map.py, made by
  page/capture.py from the trace objects): for each line what it came from, and where each proxy
  name in it is (the definition marked). thunder-traces.js wraps the lines (``.tl``) and names
  (``.tp[data-proxy]``, the definition also ``data-def``) from that map when the block first
  comes into view or gets the focus, so a page loads only the spans a reader looks at. The
  ``<code>`` also carries its traces' annotations (a notebook's output, rendered by
  mkdocs-jupyter, is a ``<pre>``: it carries them); an include marked ``<!-- exec: stepper -->``
  also carries the traces of the ``last_traces`` list its code walked through, for the pass stepper.
  Marked-up HTML is kept by a key of the HTML, the trace maps, the snippets and this code
  (``cache_dir`` option).
- ``on_post_page``: load the script and the stylesheet on pages that have trace blocks or code
  blocks with links; move each pass stepper's traces to a file beside the page (walk_files.py).

The blocks are those of the page's one parse (shared/page_html.py: the one thunder-links
wrote, when it linked the page in this build), and only existing text is wrapped (their trees,
shared/html_tree.py; in the browser, the script's), so the page reads the same without
JavaScript, and Material's copy button copies exactly the printed text.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkDocsPage

from thunder_docs.plugins.exec.notebooks import trace_maps
from thunder_docs.plugins.traces.blocks import Block, blocks_of, code_lines
from thunder_docs.plugins.traces.config import TracesConfig
from thunder_docs.plugins.traces.walk_files import move_walks
from thunder_docs.shared import block_ids, page_html
from thunder_docs.shared.code_digest import loaded_digest
from thunder_docs.shared.files import JsonStore, digest
from thunder_docs.shared.html_tree import Node, pre_holds_link, tree, wrap
from thunder_docs.shared.model import Page, folder_of, site_of
from thunder_docs.shared.page_assets import with_script, with_stylesheet
from thunder_docs.shared.page_html import Block as ParsedBlock
from thunder_docs.shared.page_html import PageHTML
from thunder_docs.shared.results import CPU, CUDA
from thunder_docs.shared.sections import Include
from thunder_docs.shared.trace_map import TraceMap
from thunder_docs.shared.trace_markup import (
    MARK,
    SCRIPT_FILE,
    STYLESHEET_FILE,
    block_attributes,
    source_id,
    source_link_at,
    walk_json,
)

SCRIPT = "assets/javascripts/thunder-traces.js"
STYLESHEET = "assets/stylesheets/thunder-traces.css"


class TracesPlugin(BasePlugin[TracesConfig]):
    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        if self.config.enabled:
            files.append(File.generated(config, SCRIPT, abs_src_path=str(SCRIPT_FILE)))
            files.append(File.generated(config, STYLESHEET, abs_src_path=str(STYLESHEET_FILE)))
        return files

    def __init__(self) -> None:
        self.store: JsonStore | None = None  # marked-up HTML by key, when the cache_dir option is set

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        root = folder_of(config)
        self.store = JsonStore(root / self.config.cache_dir) if self.config.cache_dir else None
        return config

    # After thunder-links (10): it wraps trace lines and names around the links already made, on
    # the parse thunder-links wrote (shared/page_html.py).
    @event_priority(5)
    def on_page_content(self, html_text: str, page: MkDocsPage, config: MkDocsConfig, files: Files) -> str:
        site = site_of(config)
        key = page.file.src_uri
        if self.config.enabled and (executed := site.executed_notebooks.get(key)):
            notebook = executed.read_text(encoding="utf-8")  # its cells' trace maps

            def mark_notebook() -> str:
                parse = page_html.parsed(key, html_text)
                mark_notebook_page(parse, trace_maps(executed))
                return page_html.written(key, parse)

            return self._cached(mark_notebook, html_text, notebook)
        model = site.pages.get(key)
        if not self.config.enabled or model is None or not model.includes or not site.results.has(CPU, model.path):
            return html_text
        blocks = blocks_of(site, model)

        def mark() -> str:
            parse = page_html.parsed(key, html_text)
            mark_blocks(parse, model, blocks, site.root)
            return page_html.written(key, parse)

        return self._cached(mark, html_text, _inputs(model, blocks, site.root))

    def _cached(self, mark, *inputs: str) -> str:
        if self.store is None:
            return mark()
        return self.store.remember(digest(_code_digest(), *inputs), mark)

    def on_post_page(self, output: str, page: MkDocsPage, config: MkDocsConfig) -> str:
        if not self.config.enabled or (f" {MARK}=" not in output and not pre_holds_link(output)):
            return output  # a code block with links is one Tab stop too (thunder-traces.js)
        if " data-walk=" in output:
            output = move_walks(output, (Path(config.site_dir) / page.file.dest_uri).parent)
        return with_script(with_stylesheet(output, STYLESHEET, page.url), SCRIPT, page.url)


@cache
def _code_digest() -> str:
    """The marking code: what marked-up HTML depends on besides the page and its traces."""
    return loaded_digest("thunder_docs.plugins.traces.plugin")


def _inputs(page: Page, blocks: dict[str, Block], root: Path) -> str:
    """What ``mark_blocks`` reads besides the HTML: the includes (options, sections), the text of
    their snippet files (code_lines counts lines in them), and each block's output and trace map."""
    paths = sorted({s.path for inc in page.includes for s in inc.sections})
    return json.dumps({
        "includes": [[inc.options, [[s.path, s.start_line, s.code] for s in inc.sections]] for inc in page.includes],
        "files": {path: (root / path).read_text(encoding="utf-8") for path in paths},
        "blocks": {ident: [b.output, b.trace_map.to_json()] for ident, b in blocks.items()},
    }, sort_keys=True)


# -- the page ---------------------------------------------------------------------------------------
def mark_page(text: str, page: Page, blocks: dict[str, Block], root: Path) -> str:
    """The page's HTML with its trace blocks and code blocks marked up (``mark_blocks``)."""
    parse = PageHTML(text)
    mark_blocks(parse, page, blocks, root)
    return parse.html()


def mark_blocks(parse: PageHTML, page: Page, blocks: dict[str, Block], root: Path) -> None:
    """Mark up the trace blocks and code blocks of a parsed page (see the module docstring).

    Each block is found by its identifier (shared/block_ids.py). An output block the build did
    not write, one whose text is not what its code printed, or one that is missing, fails the
    build: a page never goes out with its traces silently left plain."""
    sources = {line.source for b in blocks.values() for line in b.trace_map.lines if line.source}
    code = {block_ids.code_block(k): inc for k, inc in enumerate(page.includes)}
    written = {block_ids.output_block(k, device) for k, inc in enumerate(page.includes) for device in (CPU, CUDA)}
    seen: set[str] = set()
    anchors: set[str] = set()

    for pre in parse.blocks:
        ident = pre.wrapper_attr(block_ids.ATTRIBUTE)
        if "exec-output" in pre.classes:
            if ident not in written:
                raise PluginError(f"{page.path}: an output block that the build did not write (a fence with the "
                                  f"class exec-output, {_shown(pre)}): printed output comes only from running the code")
            seen.add(ident)
            block = blocks.get(ident)  # None: recorded CUDA output, which has no trace map
            if block is not None:
                _set_tag(pre, mark_output_tree(pre.tag, pre, block, anchors, lambda block=block: _where(page, block.include)))
        elif ident in code:
            seen.add(ident)
            inc = code[ident]
            mark_code_tree(pre, inc, sources, anchors, root, lambda inc=inc: _where(page, inc))
    for ident in [*blocks, *code]:
        if ident not in seen:
            inc = blocks[ident].include if ident in blocks else code[ident]
            kind = "output" if ident in blocks else "code"
            raise PluginError(f"{_where(page, inc)}: its {kind} block ({block_ids.attribute(ident)}) is not in the "
                              f"page's HTML; something between the Markdown and the HTML dropped it or its identifier")


def _set_tag(pre: ParsedBlock, tag: str | None) -> None:
    if tag is not None:
        pre.tag = tag


def _where(page: Page, inc: Include) -> str:
    """The page, the include's sections and where the first starts, for messages."""
    names = ", ".join(s.name for s in inc.sections)
    first = inc.sections[0]
    return f"{page.path}: section '{names}' ({first.path}:{first.start_line})"


def _shown(pre: ParsedBlock) -> str:
    """The first line of a block's text, for a message."""
    first = _text(pre.read_tree()).strip("\n").split("\n")[0]
    return f"first line {first[:60]!r}"


def mark_notebook_page(parse: PageHTML, cells: list[tuple[str, TraceMap]]) -> None:
    """Mark up the standard output of a parsed notebook's cells (cells: stdout, map)."""
    pending = [Block(None, stdout.rstrip("\n"), trace_map) for stdout, trace_map in cells]
    for pre in parse.blocks:
        if "jp-OutputArea-output" not in pre.classes or not pending:
            continue
        shown = _text(pre.read_tree()).rstrip("\n")
        for k, block in enumerate(pending):
            if block.output == shown:
                del pending[:k + 1]
                _set_tag(pre, mark_output_tree(pre.tag, pre, block, set()))
                break


def _text(node: Node) -> str:
    """A node's text as the reader sees it (entities decoded, one character each)."""
    if node.text is not None:
        return html.unescape(node.open) if node.open.startswith("&") else node.text
    return "".join(_text(c) for c in node.children)


def _code_node(root: Node) -> Node | None:
    return next((c for c in root.children if c.open.startswith("<code")), None)


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


# -- code blocks: an id on each line a trace points to ---------------------------------------------------
def mark_code_tree(pre: ParsedBlock, inc: Include, sources: set[str], anchors: set[str], repo: Path,
                   where_for_errors=None) -> bool:
    """Wrap each line of an include's code block that a trace line points to, with an id; whether any was.

    A block whose text is not the include's code fails the build (``where_for_errors()`` names
    the page and the section); without it, such a block is left as it is."""
    where = code_lines(repo, inc)
    if not sources.intersection(f"{path}:{number}" for path, number in where):
        return False
    text = _text(pre.read_tree())
    shown = inc.code.strip("\n")
    if text.rstrip("\n") != shown:
        if where_for_errors is not None:
            raise PluginError(f"{where_for_errors()}: its code block in the page's HTML does not show the section's "
                              f"code, so its lines cannot be linked from the traces")
        return False
    if not where:
        return False
    root = pre.tree()
    lead = len(inc.code) - len(inc.code.lstrip("\n"))  # blank lines Pygments drops at the start
    where = where[lead:]
    starts = _line_starts(text)
    changed = False
    for k, (path, number) in enumerate(where[:len(starts)]):
        source = f"{path}:{number}"
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(text.rstrip("\n"))
        if source not in sources or end <= starts[k]:
            continue
        ident = source_id(path, number)
        # Material takes a <code> whose children are <span id> for pymdownx line spans (and lays
        # each out as a block): the id goes on a span inside a plain one.
        opening = f'<span class="sl" id="{ident}" data-src="{html.escape(source)}">'
        if wrap(root, starts[k], end - 1, '<span class="sl-line">', "</span>"):
            wrap(root, starts[k], end - 1, opening, "</span>")
            anchors.add(ident)
            changed = True
    return changed


# -- output blocks ------------------------------------------------------------------------------------------
def mark_output(tag: str, body: str, block: Block, anchors: set[str], where_for_errors=None) -> tuple[str, str] | None:
    """A ``<pre>`` of printed output with its trace lines mapped: its start tag and content (``mark_output_tree``)."""
    pre = _Loose(body)
    new = mark_output_tree(tag, pre, block, anchors, where_for_errors)
    return None if new is None else (new, pre.content())


def mark_output_tree(tag: str, pre: ParsedBlock | _Loose, block: Block, anchors: set[str],
                     where_for_errors=None) -> str | None:
    """Map the trace lines of a ``<pre>`` of printed output (``tag``, its start tag): its new start
    tag, or None when it is left as it is.

    The text stays as printed (with its source comments linked); the block's element gets the
    line map (``data-lines``) that thunder-traces.js marks the lines and names up from, when
    the block first comes into view or gets the focus. A block whose text is not what was
    printed fails the build (``where_for_errors()`` names the page and the section); without
    it, such a block is left as it is."""
    trace_map = block.trace_map
    stepper = block.include is not None and "stepper" in block.include.options and trace_map.walks
    if not trace_map.lines and not stepper:
        return None
    text = _text(pre.read_tree())
    if text.rstrip("\n") != block.output:
        if where_for_errors is not None:
            raise PluginError(f"{where_for_errors()}: its output block in the page's HTML does not hold what the "
                              f"code printed, so its trace lines cannot be mapped")
        return None
    root = pre.tree()
    starts = _line_starts(text)
    lines = [x for x in trace_map.lines if x.line < len(starts)]
    for line in (x for x in lines if x.kind == "source"):
        first = starts[line.line]
        printed = text[first:starts[line.line + 1] if line.line + 1 < len(starts) else len(text)]
        if (link := source_link_at(printed, line, anchors)) is not None:
            at, end, opening = link
            wrap(root, first + at, first + end - 1, opening, "</a>")
    attrs = block_attributes(trace_map, lines, walk_json(trace_map.walks[0]) if stepper else None)
    code = _code_node(root)
    if code is None:  # a notebook's output: a <pre> without <code>
        return _with(tag, attrs)
    code.open = _with(code.open, attrs)
    return tag


class _Loose:
    """The content of a ``<pre>`` outside a parsed page, as ``mark_output_tree`` reads it."""

    def __init__(self, body: str):
        self.root = tree(body)

    def read_tree(self) -> Node:
        return self.root

    tree = read_tree

    def content(self) -> str:
        return self.root.html()


def _with(tag: str, attrs: str) -> str:
    """A start tag with more attributes; a class among them joins the tag's own."""
    if ' class="has-folds"' in attrs and ' class="' in tag:
        attrs = attrs.replace(' class="has-folds"', "")
        tag = tag.replace(' class="', ' class="has-folds ', 1)
    return tag[:-1] + attrs + ">"
