"""llms.txt and the Markdown copy of each page (mkdocs-llmstxt), on the built site: llms.txt lists
the nav, every copy holds its page's code and printed output verbatim, its diagrams as Mermaid
text, and none of the page's markup."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from mkdocs.config import load_config

from conftest import PAGES, ROOT, SITE, built_html

FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<lang>[^\n`]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.M | re.S)
LINK = re.compile(r"^- \[(?P<title>[^\]]+)\]\((?P<url>[^)\s]+)\)(?:: (?P<description>.+))?$")
# What the HTML has for the browser only and a copy must not hold: markup, the permalink sign,
# mkdocs-jupyter's prompts and copy button.
MARKUP = ("<svg", "<span", "<div", "<abbr", "<autoref", "data-lines='", 'data-lines="', "¶", "In [", "Copied!",
          "Copy to Clipboard")
ALL = [*PAGES, *(n.path for n in SITE.notebooks.values())]


@cache
def config():
    return load_config(str(ROOT / "mkdocs.yml"))


def copy_of(site: Path, page: str) -> str:
    return SITE.built(site, page).with_suffix(".md").read_text(encoding="utf-8")


def fences(markdown: str) -> list[tuple[str, str]]:
    return [(m["lang"], m["body"]) for m in FENCE.finditer(markdown)]


def nav_sections() -> list[tuple[str, list[tuple[str | None, str]]]]:
    """The nav as llms.txt should list it: (section, [(title or None, src_uri)]); the pages at the
    nav's top level go in llms.txt's first section, under the name mkdocs.yml gives it."""
    def flat(items):
        for item in items:
            if isinstance(item, str):
                yield None, item
            else:
                ((title, value),) = item.items()
                yield from flat(value) if isinstance(value, list) else [(title, value)]

    first = next(iter(config().plugins["llmstxt"].config.sections))
    loose = [entry for item in config()["nav"] if not isinstance(next(iter(item.values())), list)
             for entry in flat([item])]
    groups = [(name, list(flat(value))) for item in config()["nav"] for name, value in item.items()
              if isinstance(value, list)]
    return [(first, loose), *groups]


def listed(site: Path) -> tuple[list[str], list[tuple[str, list[dict]]]]:
    """llms.txt read as the format says: the H1, the blockquote, then H2 sections of links."""
    lines = (site / "llms.txt").read_text(encoding="utf-8").splitlines()
    head, sections = [], []
    for line in lines:
        if line.startswith("## "):
            sections.append((line[3:], []))
        elif sections and line:
            match = LINK.match(line)
            assert match, f"llms.txt: a line of section {sections[-1][0]!r} that is not a link: {line!r}"
            sections[-1][1].append(match.groupdict())
        elif line:
            head.append(line)
    return head, sections


def test_llms_txt_has_the_site_s_title_and_description_then_sections_of_links(built_site):
    head, sections = listed(built_site)
    assert head[0] == f"# {config()['site_name']}"
    assert head[1] == f"> {config()['site_description']}"
    assert sections and all(links for _, links in sections)
    assert all(link["description"] for _, links in sections for link in links), "a page listed with no description"


def test_llms_txt_lists_every_page_of_the_nav_in_its_section_and_order(built_site):
    _, sections = listed(built_site)
    site_url = config()["site_url"]
    got = [(name, [link["url"] for link in links]) for name, links in sections]
    want = [(name, [site_url + SITE.built(Path(), src).with_suffix(".md").as_posix() for _, src in pages])
            for name, pages in nav_sections()]
    assert got == want
    titles = [(link["title"], title) for (_, links), (_, pages) in zip(sections, nav_sections(), strict=True)
              for link, (title, src) in zip(links, pages, strict=True)
              if title is not None and src not in SITE.notebooks]  # mkdocs-jupyter titles a notebook by its H1
    assert all(a == b for a, b in titles), [t for t in titles if t[0] != t[1]]


def test_every_link_of_llms_txt_is_a_file_of_the_built_site(built_site):
    _, sections = listed(built_site)
    site_url = config()["site_url"]
    for _, links in sections:
        for link in links:
            assert link["url"].startswith(site_url), link
            assert (built_site / link["url"].removeprefix(site_url)).is_file(), link


def test_llms_full_txt_holds_every_copy(built_site):
    full = (built_site / "llms-full.txt").read_text(encoding="utf-8")
    missing = [page for page in ALL if copy_of(built_site, page) not in full]
    assert missing == []


@pytest.mark.parametrize("page", ALL)
def test_the_copy_holds_each_code_and_output_block_of_the_page_verbatim(built_site, page):
    """Each block thunder-exec embedded (``data-exec-block``: code-N, out-N), and each cell and
    output of the notebook, is a fenced block of the copy with the text the page shows."""
    html = built_html(built_site, page)
    shown = [(block["data-exec-block"], block.find("pre").get_text()) for block in html.select("[data-exec-block]")]
    shown += [("cell", cell.get_text()) for cell in html.select(".clipboard-copy-txt")]
    shown += [("output", out.find("pre").get_text()) for out in html.select(".jp-OutputArea-output")]
    if page in [p.path for p in SITE.with_code] or page.endswith(".ipynb"):
        assert any(kind.startswith("out") or kind == "output" for kind, _ in shown), f"{page}: no output found"
    bodies = {body.rstrip("\n") for _, body in fences(copy_of(built_site, page))}
    missing = [(kind, text[:80]) for kind, text in shown if text.rstrip("\n") not in bodies]
    assert missing == [], page


@pytest.mark.parametrize("page", ALL)
def test_every_code_block_of_the_copy_says_its_language(built_site, page):
    assert [body[:60] for lang, body in fences(copy_of(built_site, page)) if not lang.strip()] == []


@pytest.mark.parametrize("page", ALL)
def test_each_diagram_of_the_page_is_a_mermaid_block_of_the_copy(built_site, page):
    html = built_html(built_site, page)
    titles = [svg.find("title").get_text() for svg in html.select("div.diagram svg")]
    mermaid = [body for lang, body in fences(copy_of(built_site, page)) if lang == "mermaid"]
    assert len(mermaid) == len(titles)
    assert [t for t in titles if not any(f"accTitle: {t}\n" in body for body in mermaid)] == []


@pytest.mark.parametrize("page", ALL)
def test_the_copy_holds_no_markup_tooltip_or_hidden_text(built_site, page):
    copy = copy_of(built_site, page)
    assert [marker for marker in MARKUP if marker in copy] == []
    html = built_html(built_site, page)
    article = html.select_one("article") or html
    text = article.get_text()
    for tip in {abbr["title"] for abbr in article.select("abbr[title]")}:  # the glossary's tooltips
        assert copy.count(tip) <= text.count(tip), f"{page}: a tooltip's text is in the copy: {tip[:60]!r}"
    hidden = [e.get_text(strip=True) for e in article.select("[hidden], .clipboard-copy-txt")]
    assert [h for h in hidden if h and h in copy and copy.count(h) > text.count(h) - 1] == []
