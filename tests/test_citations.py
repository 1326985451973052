"""Citations of Thunder's source by name (`[[thunder/file.py:object]]`), resolved at build time.

The unit tests resolve citations against the installed Thunder; a throwaway build shows
that a citation of an object that does not exist fails the build, naming the page and the
citation; the last tests read the site's pages: every citation resolves, and no page
types a line number of Thunder's source by hand.
"""

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest

from thunder_docs.plugins.cite.plugin import render, resolve, span
from thunder_docs.shared.thunder_source import SourceError, _thunder_dir, thunder_version

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MARKDOWN_PAGES = sorted(p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md"))
GITHUB = f"https://github.com/Lightning-AI/lightning-thunder/blob/{thunder_version()}/"


def ast_lines(path: str, *names: str) -> tuple[int, int]:
    """The lines of an object found by walking the file's syntax tree here, independently."""
    body = ast.parse((_thunder_dir().parent / path).read_text(encoding="utf-8")).body
    node = None
    for name in names:
        node = next(n for n in body if getattr(n, "name", None) == name)
        body = node.body
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return start, node.end_lineno


@pytest.mark.parametrize("path, dotted", [
    ("thunder/core/transform_common.py", "dce"),
    ("thunder/core/transform_common.py", "Transform"),
    ("thunder/core/transform_common.py", "Transform.reverse_transform_state_dict_for_submodule"),
    ("thunder/core/symbol.py", "BoundSymbol.rhs"),  # a decorated method: the decorator's line
    ("thunder/core/trace.py", "from_trace"),
])
def test_a_citation_resolves_to_the_lines_ast_finds(path, dotted):
    citation = resolve(path, dotted)
    assert (citation.start, citation.end) == ast_lines(path, *dotted.split("."))
    assert citation.url == f"{GITHUB}{path}#L{citation.start}-L{citation.end}"


@pytest.mark.parametrize("module, dotted", [
    ("thunder.core.transform_common", "dce"),
    ("thunder.core.trace", "TraceCtx.python"),
    ("thunder.core.jit_ext", "JitCtx.proxify"),
])
def test_the_first_line_is_the_one_inspect_reports(module, dotted):
    obj = importlib.import_module(module)
    for part in dotted.split("."):
        obj = getattr(obj, part)
    lines, first = inspect.getsourcelines(obj)
    path = module.replace(".", "/") + ".py"
    assert span(path, dotted) == (first, first + len(lines) - 1)


def test_an_assignment_and_a_nested_function_resolve():
    executor = resolve("thunder/__init__.py", "pytorch_executor")
    line = (_thunder_dir() / "__init__.py").read_text(encoding="utf-8").splitlines()[executor.start - 1]
    assert line.startswith("pytorch_executor")
    nested = resolve("thunder/__init__.py", "jit.apply_transforms_and_build_cache_entry")
    assert (nested.start, nested.end) == ast_lines("thunder/__init__.py", "jit", "apply_transforms_and_build_cache_entry")


def test_rendering_links_the_object_and_shows_its_lines():
    citation = resolve("thunder/core/transform_common.py", "dce")
    rendered = render("Then [[thunder/core/transform_common.py:dce]] runs.\n", "page.md")
    assert rendered == (
        f"Then [`dce` (`thunder/core/transform_common.py:{citation.start}-{citation.end}`)]({citation.url} "
        f'"dce: lines {citation.start}-{citation.end} of thunder/core/transform_common.py in Thunder '
        f'{thunder_version()}") runs.\n'
    )
    whole_file = render("[[thunder/__init__.py]]", "page.md")
    assert whole_file.startswith(f"[`thunder/__init__.py`]({GITHUB}thunder/__init__.py ")


def test_code_spans_and_fences_are_left_alone():
    text = "`[[thunder/core/trace.py:nothing]]`\n\n```text\n[[thunder/core/trace.py:nothing]]\n```\n"
    assert render(text, "page.md") == text


def test_fences_are_the_shared_scanners():
    """A citation in an indented, unclosed or long-fenced block stays as written; one after a block resolves."""
    cited = "[[thunder/core/transform_common.py:dce]]"
    inside = (f"=== \"Tab\"\n\n    ````text\n    ```\n    {cited}\n    ````\n\n{cited}\n\n"
              f"~~~text\n{cited}\n")
    rendered = render(inside, "page.md").split("\n")
    assert rendered[4] == f"    {cited}" and rendered[-2] == cited  # in the tab's block; in the unclosed one
    assert rendered[7] == resolve("thunder/core/transform_common.py", "dce").markdown()
    assert len(rendered) == len(inside.split("\n"))


@pytest.mark.parametrize("path, dotted", [
    ("thunder/core/transform_common.py", "no_such_function"),
    ("thunder/core/transform_common.py", "Transform.no_such_hook"),
    ("thunder/core/no_such_file.py", "dce"),
    ("torch/functional.py", "norm"),
])
def test_a_missing_object_raises(path, dotted):
    with pytest.raises(SourceError):
        resolve(path, dotted)


def test_a_missing_object_fails_the_build_naming_page_and_citation(throwaway):
    log = throwaway.write({
        "docs/index.md": "# Home\n\nSee [[thunder/core/transform_common.py:dce]].\n",
        "docs/gone.md": "# Gone\n\nSee [[thunder/core/trace.py:TraceCtx.no_such_method]].\n",
    }, plugins=("thunder-cite",)).failed_build()
    assert "gone.md" in log and "[[thunder/core/trace.py:TraceCtx.no_such_method]]" in log


def test_a_resolved_citation_builds_into_a_link(throwaway):
    throwaway.write({"docs/index.md": "# Home\n\nSee [[thunder/core/transform_common.py:dce]].\n"},
                    plugins=("thunder-cite",))
    proc = throwaway.build()
    assert proc.returncode == 0, proc.stdout
    html = (throwaway.folder / "site" / "index.html").read_text(encoding="utf-8")
    citation = resolve("thunder/core/transform_common.py", "dce")
    assert f'<a href="{citation.url}"' in html
    assert f"<code>thunder/core/transform_common.py:{citation.lines}</code>" in html


# -- the site's pages ----------------------------------------------------------------------------
@pytest.mark.parametrize("page", MARKDOWN_PAGES)
def test_every_citation_on_a_page_resolves(page):
    render((ROOT / page).read_text(encoding="utf-8"), page)  # raises PluginError naming the citation


# A Thunder line number typed by hand: `trace.py:508`, `__init__.py:558-560`, "line 508 of ...",
# "lines 460-630 in ...". Paths under snippets/ are this site's own files, not Thunder's.
HAND_TYPED = re.compile(
    r"(?<![\w/])(?!snippets/)(?:[\w.-]+/)*[\w.-]+\.py:\d+"
    r"|\blines? \d+(?:\s*(?:-|–|to|and)\s*\d+)?\b(?! (?:characters?|chars?)\b)"
)


def hand_typed_line_numbers(text: str) -> list[tuple[int, str]]:
    """(line number in the page, the hand-typed reference) outside citations."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = re.sub(r"\[\[[^\]]*\]\]", "", line)  # a citation resolves its own lines
        found += [(number, m.group(0)) for m in HAND_TYPED.finditer(line)]
    return found


def test_the_hand_typed_check_catches_line_numbers():
    caught = hand_typed_line_numbers(
        "printed by trace.py:508, see thunder/__init__.py:558-560 and line 508 of trace.py,\n"
        "(lines 460-630 in Thunder 0.2.6)\n"
    )
    assert [found for _, found in caught] == ["trace.py:508", "thunder/__init__.py:558", "line 508", "lines 460-630"]
    assert hand_typed_line_numbers("`snippets/first_trace.py:10`, [[thunder/core/trace.py:from_trace]]") == []


@pytest.mark.parametrize("page", MARKDOWN_PAGES)
def test_no_page_types_a_thunder_line_number(page):
    found = hand_typed_line_numbers((ROOT / page).read_text(encoding="utf-8"))
    assert not found, (
        f"{page}: Thunder line numbers typed by hand at {found}; cite the object instead, "
        "as [[thunder/path/file.py:object]], and the build shows its lines"
    )


# A mention of one of Thunder's source files in prose (`thunder/core/trace.py`, `jit_ext.py`,
# "core/trace.py") must be a citation, so that the build checks it still exists.
THUNDER_FILE = re.compile(r"(?<![\w/.\[])(?!snippets/)(?:[\w-]+/)*[\w-]+\.py\b(?!:\d)")


@pytest.mark.parametrize("page", MARKDOWN_PAGES)
def test_thunder_files_are_cited_not_named(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    text = re.sub(r"\[\[[^\]]*\]\]", "", text)
    files = {m.group(0) for m in THUNDER_FILE.finditer(text)}
    thunder_files = {f for f in files
                     if (_thunder_dir().parent / f).is_file() or any(_thunder_dir().rglob(Path(f).name))}
    assert not thunder_files, f"{page}: cite these with [[thunder/...py:object]]: {sorted(thunder_files)}"
