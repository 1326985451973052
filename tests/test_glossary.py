"""The glossary: one line per term on docs/glossary.md, and the same line on hover wherever a
term appears (abbreviations in includes/abbreviations.md, appended to every page; in the tour
notebook's Markdown cells, marked by thunder-exec), never inside code or printed output."""

import re

import pytest

from conftest import DOCS, PAGES, ROOT, built_html

GLOSSARY = (DOCS / "glossary.md").read_text(encoding="utf-8")
ABBREVIATIONS = (ROOT / "includes" / "abbreviations.md").read_text(encoding="utf-8")
ENTRY = re.compile(r"^- \*\*(?P<term>[^*]+)\*\*(?: \((?P<aka>[^)]*)\))?: (?P<definition>.*?) See (?P<links>\[.*)$", re.M)
ABBR = re.compile(r"^\*\[(?P<form>[^\]]+)\]: (?P<title>.+)$")


def plain(markdown: str) -> str:
    return re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", markdown).replace("`", "")


ENTRIES = {m["term"]: m for m in ENTRY.finditer(GLOSSARY)}
FORMS = {m["form"]: m["title"] for m in map(ABBR.match, ABBREVIATIONS.splitlines()) if m}


def test_the_abbreviations_file_holds_only_abbreviations():
    """It is appended to every page: any other line would show on every page."""
    lines = [line for line in ABBREVIATIONS.splitlines() if line.strip()]
    assert lines and all(ABBR.match(line) for line in lines)


def test_each_abbreviation_is_a_block_of_its_own():
    """Markdown's abbr extension takes one definition off a block, then every block processor
    tests what is left again: 64 definitions in one block cost each page about 0.3 s. With a
    blank line between them, each is a block of its own and read once."""
    blocks = [b for b in ABBREVIATIONS.split("\n\n") if b.strip()]
    assert all(len(b.strip().splitlines()) == 1 for b in blocks), "put a blank line between abbreviations"


def test_glossary_has_the_terms_the_site_uses():
    wanted = {"trace", "bound symbol", "symbol", "proxy", "prim", "ltorch", "executor", "fusion", "provenance",
              "pass", "prologue", "epilogue", "SigInfo", "subsymbol", "scope"}
    assert wanted <= set(ENTRIES), sorted(wanted - set(ENTRIES))
    assert list(ENTRIES) == sorted(ENTRIES, key=str.lower), "keep the glossary in alphabetical order"


@pytest.mark.parametrize("term", sorted(ENTRIES))
def test_each_term_shows_its_glossary_line_on_hover(term):
    entry = ENTRIES[term]
    assert FORMS.get(term) == plain(entry["definition"]), f"*[{term}] must hold the glossary's line"
    assert re.search(r"\]\((concepts|guides)/[\w/]+\.md(#[\w-]+)?\)", entry["links"]), f"{term}: link a page"


def test_every_abbreviation_is_a_glossary_line():
    definitions = {plain(e["definition"]) for e in ENTRIES.values()}
    for form, title in FORMS.items():
        assert title in definitions, f"*[{form}] is in no glossary entry"


@pytest.mark.parametrize("page", [*(p for p in PAGES if p != "docs/glossary.md"), "docs/tour.ipynb"])
def test_terms_are_marked_in_prose_only(built_site, page):
    """Every page but the glossary's, the tour notebook's too ("On every page, hovering ...")."""
    html = built_html(built_site, page)
    article = html.select_one("article")
    marked = article.select("abbr")
    assert marked, f"{page}: no glossary term marked"
    assert all(a["title"] in FORMS.values() for a in marked)
    assert not article.select("pre abbr, code abbr"), f"{page}: a term marked inside code or output"
    assert not article.select("h1 abbr, h2 abbr, h3 abbr, h4 abbr"), f"{page}: a term marked in a heading"


def test_glossary_page_marks_nothing(built_site):
    assert not built_html(built_site, "docs/glossary.md").select("article abbr")
