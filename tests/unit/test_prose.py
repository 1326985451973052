"""Values in prose come from the run: every proxy name a page's prose mentions is checked.

A proxy name such as `t7`, `t_0` or `i3` in a page's prose (outside fenced blocks, inline
code included) is a value that a run of Thunder produced. It can change with Thunder's
version or with the example, so the page's snippet must check it: the name must appear in
a string literal inside an `assert` statement of the page's snippet file
(`snippets/<page>.py`), such as `assert "t_0" in trc.names`. When Thunder changes the name,
the assert fails the build and the sentence is corrected with it.

The tour notebook follows the same rule: its markdown cells against the asserts of its
code cells.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from conftest import PAGES, ROOT

# Thunder's proxy names: a prefix (t: tensor, i: int or bool, f: float, C: collection) and a
# number (t7) or a provenance postfix (t_0, t_0_1). Words such as "t", "if", "C++" or "f(x)"
# never match: the prefix must be followed by digits or by _digits.
PROXY = re.compile(r"(?<![\w.\-])(?:t|i|f|C)(?:\d+|_\d+(?:_\d+)*)(?![\w\-])")

# Allowed exceptions, each a word that matches PROXY but is not a proxy name:
# - Thunder's short dtype names in annotations and prose: `f32` in `"cpu f32[3, 3]"`, `i64`.
#   They are always followed by `[` in a printed annotation, or written as a dtype; a proxy
#   would need 16 or more names in one trace to be called f16, and pages never name one so.
DTYPES = {"f16", "f32", "f64", "i8", "i16", "i32", "i64"}

FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def prose_lines(markdown: str):
    """(line number, text) of every line outside fenced blocks and HTML comments."""
    fence = None
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), markdown, flags=re.S)
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
            fence = None


def proxy_names(markdown: str) -> list[tuple[int, str]]:
    return [(number, m.group(0)) for number, line in prose_lines(markdown)
            for m in PROXY.finditer(line) if m.group(0) not in DTYPES]


def assert_strings(source: str) -> list[str]:
    """Every string constant inside an assert statement of a Python source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            found += [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return found


def unbacked(names: list[tuple[int, str]], strings: list[str]) -> list[tuple[int, str]]:
    def backed(name: str) -> bool:
        return any(re.search(rf"(?<![\w]){re.escape(name)}(?!\w)", s) for s in strings)

    return [(number, name) for number, name in names if not backed(name)]


def snippet_of(page: str):
    path = ROOT / ("snippets/" + page.removeprefix("docs/").removesuffix(".md") + ".py")
    return path if path.is_file() else None


def test_the_pattern_finds_proxy_names_and_nothing_else():
    text = ('The sum `t7` frees `t_0`, `t_0_1` and `i3`; `f0` and `C1` too, in "t12".\n'
            "Not: t, it, if, f(x), C++, `f32[3, 3]`, `i64`, t7a, x_t0, the 2.t1, T4, `t-1`.\n"
            "```python\nt9 = ltorch.add(x, y)\n```\n<!-- t8 -->\n")
    assert [name for _, name in proxy_names(text)] == ["t7", "t_0", "t_0_1", "i3", "f0", "C1", "t12"]


def test_an_assert_backs_a_name_only_inside_an_assert():
    source = 'print("t5")\nassert "t_0" in names\nassert trc.output.name == "t7", "the t9 message"\nx = "t8"\n'
    strings = assert_strings(source)
    names = [(1, "t5"), (2, "t_0"), (3, "t7"), (4, "t8"), (5, "t9"), (6, "t_0_1")]
    assert unbacked(names, strings) == [(1, "t5"), (4, "t8"), (6, "t_0_1")]


@pytest.mark.parametrize("page", PAGES)
def test_every_proxy_name_in_prose_is_checked_by_an_assert(page):
    names = proxy_names((ROOT / page).read_text(encoding="utf-8"))
    if not names:
        return
    snippet = snippet_of(page)
    strings = assert_strings(snippet.read_text(encoding="utf-8")) if snippet else []
    missing = unbacked(names, strings)
    where = snippet.relative_to(ROOT).as_posix() if snippet else "a snippet (the page has none)"
    assert not missing, (
        f"{page}: proxy names in prose that no assert of {where} checks: "
        + ", ".join(f"line {number}: {name}" for number, name in missing)
        + ". Add an assert whose string holds the name (assert \"t_0\" in trc.names), or drop the name."
    )


def test_every_proxy_name_in_the_tour_is_checked_by_an_assert():
    cells = json.loads((ROOT / "docs/tour.ipynb").read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    names = [(i, name) for i, c in enumerate(cells) if c["cell_type"] == "markdown"
             for _, name in proxy_names("".join(c["source"]))]
    missing = unbacked(names, assert_strings(code))
    assert not missing, f"docs/tour.ipynb: proxy names in markdown cells that no assert checks: {missing}"


def test_dunder_names_are_in_code_spans():
    """Outside backticks, Markdown renders `__init__.py` as bold "init.py"."""
    for page in PAGES:
        for number, line in prose_lines((ROOT / page).read_text(encoding="utf-8")):
            bare = re.sub(r"`[^`]*`|\[\[[^\]]*\]\]", "", line)
            assert not re.search(r"__\w+__", bare), f"{page}:{number}: a dunder name outside backticks: {line}"
