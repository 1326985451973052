"""The one fence scanner (shared/fences.py) that sections, citations, diagrams and downloads share."""

from pathlib import Path

from thunder_docs.plugins.diagrams.fences import find_diagrams
from thunder_docs.shared.fences import iter_fences


def spans(markdown: str) -> list[tuple[int, int]]:
    return [(f.start, f.end) for f in iter_fences(markdown)]


def test_a_fence_closes_only_with_its_own_character():
    assert spans("```\n~~~\n```\nafter") == [(0, 2)]
    assert spans("~~~\n```\n~~~\n") == [(0, 2)]


def test_a_longer_closing_fence_closes_and_a_shorter_one_is_text():
    assert spans("```\ncode\n`````\nafter") == [(0, 2)]
    [fence] = iter_fences("````\n```\n````\n")
    assert (fence.start, fence.end, fence.body, fence.marker) == (0, 2, ["```"], "````")


def test_a_closing_fence_has_no_info_string():
    [fence] = iter_fences("```\n```python\n```\n")
    assert (fence.end, fence.body) == (2, ["```python"])
    assert spans("```\n```   \n") == [(0, 1)]  # trailing spaces are fine


def test_an_unclosed_fence_runs_to_the_end():
    [fence] = iter_fences("text\n```python\na\nb")
    assert (fence.start, fence.end, fence.body) == (1, 4, ["a", "b"])


def test_indented_fences_in_lists_and_tabs_close_at_their_own_indentation():
    page = '=== "CPU"\n\n    ```python\n    x = 1\n```\n    ```\n\n1. Item\n\n   ~~~text\n   y\n   ~~~\n'
    tab, item = iter_fences(page)
    assert (tab.indent, tab.lang, tab.start, tab.end, tab.body) == ("    ", "python", 2, 5, ["    x = 1", "```"])
    assert (item.indent, item.lang, item.start, item.end) == ("   ", "text", 9, 11)


def test_fences_do_not_nest():
    [outer] = iter_fences("````markdown\n```python\nx\n```\n````\n")
    assert (outer.lang, outer.start, outer.end) == ("markdown", 0, 4)


def test_after_backticks_the_info_string_holds_no_backtick():
    assert spans("```x``` is inline code\ntext\n") == []
    assert spans("~~~ `x`\n~~~\n") == [(0, 1)]  # after tildes it may


def test_the_language_is_the_info_strings_first_word():
    langs = [f.lang for f in iter_fences("```python title=\"a\"\n```\n``` { .pycon }\n```\n~~~\n~~~\n")]
    assert langs == ["python", "pycon", ""]


def test_diagrams_use_the_same_fences():
    page = '=== "Tab"\n\n    ```mermaid\n    flowchart LR\n    ```\n\n````text\n```mermaid\n```\n````\n'
    [diagram] = find_diagrams(page, "p.md")
    assert (diagram.line, diagram.text) == (3, "flowchart LR")


def test_no_other_module_scans_fences_or_hashes():
    """One fence scanner (shared/fences.py) and one way to hash (shared/files.py) in the engine."""
    package = Path(__file__).resolve().parents[2] / "src" / "thunder_docs"
    modules = {p.relative_to(package).as_posix(): p.read_text(encoding="utf-8") for p in package.rglob("*.py")}
    assert [m for m, text in modules.items() if "`{3,}" in text] == ["shared/fences.py"]
    assert [m for m, text in modules.items() if "import hashlib" in text] == ["shared/files.py"]
