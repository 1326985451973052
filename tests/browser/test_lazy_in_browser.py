"""Code blocks that load as plain text (thunder-lazyhighlight), in headless Chromium: each gets its
highlighting back as it comes near the view, with the same text; without scripting the page
shows the highlighted blocks; printing, and a link to a line inside a block, put them back."""

from __future__ import annotations

import pytest

from .harness import new_context

pytestmark = pytest.mark.xdist_group("browser")

DENSE = "guides/transform_toolkit/"
LAZY = "code[data-lazy]"


@pytest.fixture
def tab(browser, site_url):
    """A page of its own (these tests scroll, print and follow links: nothing reaches the shared pages)."""
    context = new_context(browser, site_url)
    yield context.new_page()
    context.close()


def bring_back(tab, waiting) -> str:
    """Scroll a block that waits as plain text into view, until its highlighting is back; its text before."""
    text, elements = waiting.evaluate("(e) => [e.textContent, e.querySelectorAll('*').length]")
    assert elements == 0, f"a block waiting as plain text holds {elements} elements"
    waiting.scroll_into_view_if_needed()
    tab.wait_for_function("(e) => !e.hasAttribute('data-lazy')", arg=waiting)
    return text


def test_a_block_gets_its_highlighting_back_near_the_view_and_keeps_its_text(tab, site_url):
    tab.goto(site_url + DENSE)
    assert tab.locator(LAZY).count() > 3, "the page's blocks out of view should wait as plain text"
    last = tab.locator(LAZY).last.element_handle()
    before = bring_back(tab, last)
    after = last.evaluate("(c) => [c.textContent, c.querySelectorAll('span').length, "
                          "c.closest('pre').nextElementSibling?.localName ?? null]")
    assert after[0] == before, "the text changed when the highlighting came back"
    assert after[1] > 10 and after[2] != "noscript", f"highlighting not back: {after[1]} spans"


def test_without_scripting_the_highlighted_blocks_show_and_the_plain_ones_do_not(browser, site_url):
    context = new_context(browser, site_url, java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + DENSE)
    plain, kept = page.locator("pre.hl-plain").first, page.locator("noscript > pre").first
    kept.scroll_into_view_if_needed()
    assert not plain.is_visible() and kept.is_visible()
    assert kept.locator("span.kn, span.k").count() > 0, "the block shown without scripting is not highlighted"
    context.close()


def test_printing_puts_every_block_back(tab, site_url):
    tab.goto(site_url + DENSE)
    assert tab.locator(LAZY).count() > 0
    tab.emulate_media(media="print")
    tab.wait_for_function(f"() => !document.querySelector('{LAZY}')")


def test_a_link_to_a_source_line_inside_a_waiting_block_lands_on_it(tab, site_url):
    tab.goto(site_url + DENSE)
    targets = tab.evaluate("""() => [...document.querySelectorAll('a[href^="#src-"]')].map((a) => a.getAttribute('href'))
                                  .filter((h) => !document.getElementById(h.slice(1)))""")
    assert targets, "no link on the page points into a block still waiting"
    tab.goto(site_url + DENSE + targets[-1])
    tab.wait_for_function("(id) => { const e = document.getElementById(id); if (!e) return false; "
                            "const top = e.getBoundingClientRect().top; return top >= 0 && top < innerHeight; }",
                            arg=targets[-1][1:])


CELL = "div.highlight-ipynb > pre[data-lazy]"  # a notebook's code cell, sent as plain text


def test_a_notebook_cell_gets_its_highlighting_back_and_stays_one_tab_stop(tab, site_url):
    """The tour's code cells wait as plain text too; one with links gets them back and is one Tab stop."""
    tab.goto(site_url + "tour/")
    assert tab.locator(CELL).count() > 3, "the tour's cells out of view should wait as plain text"
    cell = tab.locator(CELL + "[data-links]").last.element_handle()
    stops = "(p) => [p, ...p.querySelectorAll('*')].filter((e) => e.tabIndex >= 0).length"
    before = bring_back(tab, cell)
    after = cell.evaluate("(p) => [p.textContent, p.querySelectorAll('span').length, p.querySelectorAll('a[href]').length, "
                          "p.nextElementSibling?.localName ?? null, p.hasAttribute('data-roving')]")
    assert after[0] == before, "the cell's text changed when its highlighting came back"
    assert after[1] > 10 and after[2] > 0 and after[3] != "noscript", f"highlighting not back: {after}"
    assert after[4], "a cell with links is not a roving block"
    tab.wait_for_function(f"(p) => ({stops})(p) === 1", arg=cell)
