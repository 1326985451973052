"""(b) mktestdocs runs each page's code as the reader sees it; (c) nothing escapes collection."""

import ast

import pytest
from mktestdocs import check_md_file, grab_code_blocks

from conftest import PAGES, PAGES_WITH_CODE, ROOT, SITE, SNIPPET_FILES, includes_of
from thunder_docs.shared.fences import iter_fences
from thunder_docs.shared.model import Page
from thunder_docs.shared.sections import parse_sections


def expanded(page: Page) -> str:
    """The page's Markdown as a reader sees it: each include replaced by the code it shows."""
    lines = page.body.split("\n")
    for inc in reversed(page.includes):
        lines[inc.fence.start + 1 : inc.fence.end] = [inc.fence.indent + ln if ln else ln for ln in inc.code.split("\n")]
    return "\n".join(lines)


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_page_code_runs_with_mktestdocs(page, tmp_path, monkeypatch):
    expanded_file = tmp_path / "page.md"
    expanded_file.write_text(expanded(SITE.page(page)), encoding="utf-8")
    monkeypatch.chdir(ROOT)
    check_md_file(expanded_file, memory=True)  # one shared namespace per page


@pytest.mark.parametrize("page", PAGES)
def test_every_python_block_is_collected(page):
    """mktestdocs skips fences whose info string carries attributes; so must no page have one."""
    text = expanded(SITE.page(page))
    python_fences = [f for f in iter_fences(text) if f.is_python]
    collected = grab_code_blocks(text, lang="python")
    assert len(collected) == len(python_fences), (
        f"{page}: {len(python_fences)} python blocks, mktestdocs collects {len(collected)}: "
        "write a python fence as ```python with nothing after it"
    )


def test_every_snippet_section_is_shown_on_a_page():
    shown = {(s.path, s.name) for page in PAGES for inc in includes_of(page) for s in inc.sections}
    for path in SNIPPET_FILES:
        for name in parse_sections(ROOT / path, path):
            assert (path, name) in shown, f"{path}: section '{name}' is on no page"


@pytest.mark.parametrize("path", SNIPPET_FILES)
def test_snippet_has_no_code_outside_sections(path):
    """Code outside sections would run standalone but never show on a page."""
    source = (ROOT / path).read_text(encoding="utf-8")
    spans = [(s.start_line, s.start_line + s.code.count("\n")) for s in parse_sections(ROOT / path, path).values()]
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the module docstring
    stray = [n.lineno for n in body if not any(a <= n.lineno <= b for a, b in spans)]
    assert not stray, f"{path}: code outside any section at lines {stray}"


def test_each_page_has_its_mirrored_snippet():
    for page in PAGES_WITH_CODE:
        mirror = f"snippets/{SITE.page(page).id}.py"
        used = {s.path for inc in includes_of(page) for s in inc.sections}
        assert used == {mirror}, f"{page} must show sections of {mirror} only, shows {sorted(used)}"
