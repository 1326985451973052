"""(f) Every page as a reader sees it, in headless Chromium, in the light and in the dark scheme."""

from __future__ import annotations

import time
import urllib.parse

import pytest

from .harness import DIAGRAM_TEXT, DOCS, SCHEMES, VIEWPORT, audit, doc_pages, requested_search_index, visit, weight

# One worker runs every browser test: one Chromium, one server, one built site.
pytestmark = pytest.mark.xdist_group("browser")

PAGES = doc_pages()
PHONE = {"width": 390, "height": 844}
# Bytes, gzip: what a first visit of any page may download, as the site's first 15 pages did. A page
# loads Material's search index (87 KB gzip with 20 pages) only once the reader uses search
# (overrides/partials/search.html); with it every first load weighed up to 239 KB (MAINTAINING.md, "Weight").
WEIGHT_LIMIT = 200_000
BLOCKING = ("serious", "critical")  # axe-core impacts that fail a page
REPR_START = '<TensorProxy(name="'

# Printed outputs as the page shows them, with any element inside them that is not
# Pygments' or the trace markup (a `<TensorProxy(...)>` parsed as HTML would become an element);
# the fold buttons that thunder-traces.js adds to trace lines hold no text.
OUTPUTS_JS = """() => [...document.querySelectorAll("div.exec-output code")].map((code) => ({
  text: code.innerText,
  foreign: [...code.querySelectorAll("*:not(button.tfold)")].map((e) => e.localName)
    .filter((n) => n !== "span" && n !== "a"),
}))"""
OVERFLOWING_CODE_JS = """() => [...document.querySelectorAll(".md-content pre > code")]
  .filter((code) => code.scrollWidth > code.clientWidth + 1)
  .map((code) => ({ overflow: getComputedStyle(code).overflowX, start: code.innerText.slice(0, 60) }))"""
PAGE_OVERFLOW_JS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _outputs_of(tab, page, site_url, shown_outputs) -> list[str]:
    """A page's printed outputs as shown, from the per-page pass when it ran, else by loading the page."""
    if page.source not in shown_outputs:
        tab.goto(site_url + page.url)
        shown_outputs[page.source] = [o["text"] for o in tab.evaluate(OUTPUTS_JS)]
    return shown_outputs[page.source]


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("page", PAGES, ids=str)
def test_page_loads_cleanly_and_renders_its_diagrams(request, page, scheme, site_url, built_site, weights, shown_outputs):
    tab = request.getfixturevalue(scheme)
    url = site_url + page.url
    fences = page.mermaid_fences()
    seen = visit(tab, url, site_url)
    problems = []
    if seen.status != 200:
        problems.append(f"HTTP {seen.status}")
    problems += [f"console: {e}" for e in seen.console_errors]
    problems += [f"failed request: {f}" for f in seen.failed]
    problems += [f"request to another host: {u}" for u in seen.external]

    shown = tab.locator("body").get_attribute("data-md-color-scheme")
    if shown != SCHEMES[scheme]:
        problems.append(f"scheme is {shown!r}, not {SCHEMES[scheme]!r}")

    problems += [f"loads Mermaid, which the build replaced with SVG: {r.url}" for r in seen.responses if "mermaid" in r.url]
    if len(seen.diagrams) != fences:
        problems.append(f"{len(seen.diagrams)} drawn diagrams for {fences} ```mermaid fences")
    for i, diagram in enumerate(seen.diagrams, 1):
        if diagram["shown"] != 1 or diagram["text"] != DIAGRAM_TEXT[scheme]:
            problems.append(f"diagram {i} shows {diagram['shown']} SVG(s), text in {diagram['text']}, not one SVG "
                            f"in the {scheme} scheme's colours ({DIAGRAM_TEXT[scheme]})")
        if not (diagram["width"] > 0 and diagram["height"] > 0):
            problems.append(f"diagram {i} has no size: {diagram}")
        if not (diagram["name"] and diagram["description"]):
            problems.append(f"diagram {i} has no accessible name or description (accTitle, accDescr): {diagram}")

    for code in tab.evaluate(OVERFLOWING_CODE_JS):
        if code["overflow"] not in ("auto", "scroll"):
            problems.append(f"a code block is cut off instead of scrolling: {code['start']!r}")
    if (extra := tab.evaluate(PAGE_OVERFLOW_JS)) > 0:
        problems.append(f"the page scrolls sideways by {extra}px at {VIEWPORT['width']}px")

    if scheme == "light":  # files are not cached in this context: the responses are a first load
        weights[page.source] = weight(seen, built_site, site_url)
        if (gzip := weights[page.source]["gzip"]) > WEIGHT_LIMIT:
            problems.append(f"the first load weighs {gzip} bytes gzip, over the limit of {WEIGHT_LIMIT}")
        # A Material that fetched its index another way than overrides/partials/search.html holds shows here.
        problems += [f"loads the search index before search is used: {u}" for u in requested_search_index(seen)]
        outputs = tab.evaluate(OUTPUTS_JS)
        shown_outputs[page.source] = [o["text"] for o in outputs]
        for output in outputs:
            if output["foreign"]:
                problems.append(f"printed output parsed as HTML elements {output['foreign']}: {output['text'][:80]!r}")
    else:  # the dark pass also looks at a phone-sized window
        tab.set_viewport_size(PHONE)
        try:
            if (extra := tab.evaluate(PAGE_OVERFLOW_JS)) > 0:
                problems.append(f"the page scrolls sideways by {extra}px at {PHONE['width']}px")
        finally:
            tab.set_viewport_size(VIEWPORT)
    assert not problems, f"{page.source} ({scheme}):\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("page", PAGES, ids=str)
def test_page_has_no_serious_accessibility_violation(request, page, scheme, site_url, accessibility):
    """axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules (and two best practices the site follows:
    a named dialog, unique landmarks): no serious or critical violation."""
    tab = request.getfixturevalue(scheme)
    tab.goto(site_url + page.url, wait_until="load")
    assert tab.locator("body").get_attribute("data-md-color-scheme") == SCHEMES[scheme]
    violations = audit(tab)
    accessibility[(page.source, scheme)] = violations
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{page.source} ({scheme}): " + "\n".join(
        f"{v['impact']} {v['id']} ({v['help']}):\n    " + "\n    ".join(
            f"{n['target']}: {' '.join(n['summary'].split())[:300]}" for n in v["nodes"][:10])
        for v in blocking)


def test_dark_scheme_is_remembered(dark, site_url):
    """The toggle's choice persists: a fresh load of another page comes up dark."""
    dark.goto(site_url + PAGES[-1].url)
    assert dark.locator("body").get_attribute("data-md-color-scheme") == SCHEMES["dark"]


def _pages_with_outputs(built_site):
    return [p for p in PAGES if "exec-output" in (built_site / p.html).read_text(encoding="utf-8")]


def test_printed_reprs_show_as_text(light, site_url, built_site, shown_outputs):
    """`<TensorProxy(name="x", ...)>` in a printed output is visible text, not a swallowed HTML tag.

    (The per-page test fails a page whose output holds an element other than Pygments' spans.)"""
    shown = {}
    for page in _pages_with_outputs(built_site):
        if count := sum(t.count(REPR_START) for t in _outputs_of(light, page, site_url, shown_outputs)):
            shown[page.source] = count
    assert shown, f"no printed output shows {REPR_START}...)> as text (first_trace.md prints some)"


def test_long_output_lines_scroll_inside_their_block(light, site_url, built_site, shown_outputs):
    """The longest printed line scrolls inside its block; the page itself does not scroll sideways."""
    best = None
    for page in _pages_with_outputs(built_site):
        for index, text in enumerate(_outputs_of(light, page, site_url, shown_outputs)):
            longest = max(map(len, text.split("\n")))
            if best is None or longest > best[0]:
                best = (longest, page, index)
    assert best, "no page has printed output"
    longest, page, index = best
    light.goto(site_url + page.url)
    code = light.locator("div.exec-output code").nth(index)
    box = code.evaluate("(c) => { c.scrollLeft = 80; return { sw: c.scrollWidth, cw: c.clientWidth, "
                        "left: c.scrollLeft, overflow: getComputedStyle(c).overflowX } }")
    assert box["sw"] > box["cw"], f"{page.source}: a {longest}-character line fits in {box['cw']}px; no long line to test"
    assert box["overflow"] in ("auto", "scroll") and box["left"] > 0, f"{page.source}: the long line does not scroll: {box}"
    assert light.evaluate(PAGE_OVERFLOW_JS) <= 0, f"{page.source}: the page scrolls sideways"


def test_copy_button_copies_the_code_not_its_output(clipboard_page, site_url, built_site):
    page = _pages_with_outputs(built_site)[0]
    tab = clipboard_page
    tab.goto(site_url + page.url)
    block = tab.locator("div.language-python.highlight:not(.exec-output)").first
    code = block.locator("code").inner_text()
    output = tab.locator("div.exec-output code").first.inner_text()
    block.locator("button.md-code__button[data-md-type=copy]").click()
    tab.wait_for_function("() => navigator.clipboard.readText().then((t) => t.length > 0)")
    copied = tab.evaluate("navigator.clipboard.readText()")
    assert copied.strip() == code.strip(), f"{page.source}: the copy button copied {copied!r}"
    for line in output.splitlines():
        if line.strip() and line.strip() not in code:
            assert line.strip() not in copied, f"{page.source}: the copied code holds output: {line!r}"


# -- search ---------------------------------------------------------------------------------
SEARCH_DONE_JS = """() => {
  const meta = document.querySelector(".md-search-result__meta").textContent;
  return /matching document|No matching/.test(meta);
}"""
RESULT_PAGES_JS = """() => [...document.querySelectorAll(".md-search-result__list > li > a")]
  .map((link) => new URL(link.href).pathname)"""


def _search(tab, site_url, query):
    tab.goto(site_url)
    # Material searches on key events: type, as a reader does (fill() sets the value silently). The
    # box gets the focus first, which fetches the index; the query typed meanwhile is searched once
    # it is ready (tests/browser/test_search_in_browser.py).
    tab.locator("[data-md-component=search-query]").press_sequentially(query)
    tab.wait_for_function(SEARCH_DONE_JS)
    # Each key starts a search; the results shown may still be a shorter query's ("push_s").
    # Read them until they have stayed the same for half a second.
    found, stable_since = None, time.monotonic()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        now = list(dict.fromkeys(tab.evaluate(RESULT_PAGES_JS)))  # the pages found, best first
        if now != found:
            found, stable_since = now, time.monotonic()
        elif time.monotonic() - stable_since >= 0.5:
            break
        tab.wait_for_timeout(100)
    return found


def test_search_works_offline(light, site_url):
    """The search worker and its index load from the site; a word of the first page is found."""
    found = _search(light, site_url, "unpack_trivial")
    assert found, "search for 'unpack_trivial' found nothing"
    assert found[0].startswith(urllib.parse.urlsplit(site_url).path)


SEARCHES = [
    ("BoundSymbol", "concepts/bound_symbol.md"),
    ("push_scope", "guides/building_by_hand.md"),
    ("SigInfo", "guides/building_by_hand.md"),
]


@pytest.mark.parametrize("query,expected", SEARCHES, ids=[q for q, _ in SEARCHES])
def test_search_ranks_the_right_page_first(dark, site_url, query, expected):
    if not (DOCS / expected).exists():
        pytest.skip(f"docs/{expected} does not exist yet; once it does, '{query}' must rank it first")
    target = next(p for p in PAGES if p.source == expected)
    found = _search(dark, site_url, query)
    want = urllib.parse.urlsplit(site_url).path + target.url
    assert found and found[0] == want, (
        f"search '{query}' ranks {found[:3]} first, not {want} (docs/{expected}); a section title "
        "holding the word weighs 1000 times its text (Material's default), so give that page a heading "
        "that names it, or `search: boost:` in its front matter")


def test_missing_page_gets_the_404_page(light, site_url):
    url = site_url + "no-such-page/"
    seen = visit(light, url, site_url)
    assert seen.status == 404
    assert "Page not found" in light.locator("h1").inner_text()
    # Chromium logs the 404 of the document itself as a console error; nothing else may fail.
    errors = [e for e in seen.console_errors if not (e.startswith("Failed to load resource") and e.endswith(f"({url})"))]
    assert not errors and not seen.failed and not seen.external, seen
    home = light.get_by_role("link", name="the home page")
    assert urllib.parse.urlsplit(home.evaluate("(a) => a.href")).path == urllib.parse.urlsplit(site_url).path
