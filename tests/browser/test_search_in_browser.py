"""(f) Search in headless Chromium: a page fetches Material's search index only when the reader
first uses search (overrides/partials/search.html), and search then works as before, the first
query after the page loaded included, whichever way the reader starts it."""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .harness import SEARCH_INDEX, VIEWPORT, doc_pages, new_context, requested_search_index, visit

# One worker runs every browser test: one Chromium, one server, one built site.
pytestmark = pytest.mark.xdist_group("browser")

PAGES = {page.source: page for page in doc_pages()}
PHONE = {"width": 390, "height": 844}
START = "guides/pipeline.md"  # the page the reader searches from
QUERY, FOUND = "push_scope", "guides/building_by_hand.md"  # the query, and the page it ranks first
BOX = ".md-search [data-md-component=search-query]"
META_JS = "() => document.querySelector('.md-search-result__meta').textContent.trim()"
DONE_JS = "() => /matching document|No matching/.test(document.querySelector('.md-search-result__meta').textContent)"
FIRST_RESULT_JS = """() => { const a = document.querySelector('.md-search-result__list > li > a');
  return a && new URL(a.href).pathname; }"""
OPEN_JS = "(box) => document.getElementById('__search').checked && document.activeElement === document.querySelector(box)"
NATIVE_XHR_JS = """() => [XMLHttpRequest.prototype.open, XMLHttpRequest.prototype.send]
  .every((f) => Function.prototype.toString.call(f).includes("[native code]"))"""


def _click_box(tab):
    tab.locator(BOX).click()


def _focus_box(tab):  # Tab, or anything else that gives the box the focus
    tab.locator(BOX).focus()


def _tap_icon(tab):  # on a phone the header shows the search icon, not the box
    tab.locator("header label.md-header__button[for=__search]").click()


# How a reader starts searching: the viewport, and what they do. Material's shortcut keys focus the box.
STARTS = {
    "click the box": (VIEWPORT, _click_box),
    "focus the box": (VIEWPORT, _focus_box),
    "key /": (VIEWPORT, lambda tab: tab.keyboard.press("/")),
    "key s": (VIEWPORT, lambda tab: tab.keyboard.press("s")),
    "key f": (VIEWPORT, lambda tab: tab.keyboard.press("f")),
    "phone: the search icon": (PHONE, _tap_icon),
}


def _want(site_url: str) -> str:
    return urllib.parse.urlsplit(site_url).path + PAGES[FOUND].url


def _wait_for_results(tab, site_url: str) -> None:
    """Until the results rank the query's page first (Material searches on each key: a shorter
    query's results may show for a moment)."""
    want = _want(site_url)
    try:
        tab.wait_for_function(f"(want) => ({DONE_JS})() && ({FIRST_RESULT_JS})() === want", arg=want, timeout=15_000)
    except PlaywrightTimeout:
        pytest.fail(f"'{QUERY}' shows {tab.evaluate(META_JS)!r} and ranks {tab.evaluate(FIRST_RESULT_JS)} first, not {want}")


@pytest.mark.parametrize("start", list(STARTS))
def test_the_index_loads_when_search_is_first_used(browser, site_url, start):
    """No request for the index while the page loads and sits; the first use fetches it once,
    opens search with the box focused, and the query typed right away finds its page first."""
    viewport, begin = STARTS[start]
    context = new_context(browser, site_url)
    try:
        tab = context.new_page()
        tab.set_viewport_size(viewport)
        seen = visit(tab, site_url + PAGES[START].url, site_url)
        assert seen.status == 200 and not seen.console_errors and not seen.failed, seen
        assert not requested_search_index(seen), f"the page loaded the search index before search was used: {seen.url}"
        tab.wait_for_timeout(500)  # a page left alone does not fetch it either
        requests = []
        tab.on("request", lambda request: requests.append(request.url))
        assert not [u for u in requests if u.endswith("/" + SEARCH_INDEX)]
        assert tab.evaluate(META_JS) == "Initializing search"

        begin(tab)
        tab.wait_for_function(OPEN_JS, arg=BOX, timeout=5_000)
        tab.keyboard.type(QUERY)  # at once: the index may not have arrived yet
        _wait_for_results(tab, site_url)
        asked = [u for u in requests if urllib.parse.urlsplit(u).path.endswith("/" + SEARCH_INDEX)]
        assert len(asked) == 1, f"{start}: the index was requested {len(asked)} times: {asked}"
        assert tab.evaluate(NATIVE_XHR_JS), "XMLHttpRequest is still wrapped after the index was requested"
        assert tab.input_value(BOX) == QUERY
    finally:
        context.close()


def test_a_query_typed_before_the_index_arrives_is_searched_when_it_does(browser, site_url):
    """The index held back in the network: the dialog says it is initializing; once the index
    arrives, what the reader typed meanwhile is searched, with no key pressed after."""
    context = new_context(browser, site_url)
    held = []
    context.route(f"**/{SEARCH_INDEX}", lambda route: held.append(route))
    try:
        tab = context.new_page()
        tab.goto(site_url + PAGES[START].url, wait_until="load")
        _click_box(tab)
        tab.keyboard.type(QUERY)
        for _ in range(100):
            if held:
                break
            tab.wait_for_timeout(50)
        assert held, "focusing the search box did not request the index"
        tab.wait_for_timeout(300)
        assert tab.evaluate(META_JS) == "Initializing search"
        assert tab.evaluate(FIRST_RESULT_JS) is None
        held[0].continue_()
        _wait_for_results(tab, site_url)
    finally:
        context.close()


def test_a_search_link_opens_with_its_results(browser, site_url):
    """?q= (Material's search deep link) opens search with the query's results, as before."""
    context = new_context(browser, site_url)
    try:
        tab = context.new_page()
        tab.goto(f"{site_url}{PAGES[START].url}?q={QUERY}", wait_until="load")
        _wait_for_results(tab, site_url)
        assert tab.evaluate("() => document.getElementById('__search').checked")
    finally:
        context.close()


def test_a_search_result_s_page_marks_the_query(browser, site_url):
    """A result's link carries the query (?h=); its page marks the matches (search.highlight),
    which needs the index at once: that page fetches it as it loads."""
    context = new_context(browser, site_url)
    try:
        tab = context.new_page()
        seen = visit(tab, f"{site_url}{PAGES[FOUND].url}?h={QUERY}", site_url)
        assert requested_search_index(seen), "a page opened with ?h= did not fetch the index"
        tab.wait_for_function("() => document.querySelector('.md-content mark[data-md-highlight]')", timeout=15_000)
        marked = tab.evaluate("() => [...document.querySelectorAll('.md-content mark[data-md-highlight]')]"
                              ".map((m) => m.textContent.toLowerCase())")
        assert marked and set(marked) <= {QUERY}, marked
    finally:
        context.close()
