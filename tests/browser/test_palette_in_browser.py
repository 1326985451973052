"""The colour toggle in headless Chromium (overrides/partials/javascripts/palette.html).

The site runs the toggle itself, while the header is parsed, in place of Material's palette
component: that component restyled the whole page twice when the page had loaded. These tests
hold the toggle to what Material's did (the palette shown, its label, the stored choice, the
meta tags, the keyboard) and to what the change is for: no switch of the whole page at load.
"""

from __future__ import annotations

import pytest

from .harness import SCHEMES, new_context

pytestmark = pytest.mark.xdist_group("browser")

PAGE = "reference/dynamo/"  # a long page: where the restyles cost the most
TOGGLE = "form[data-thunder-palette]"
# Every time <body> takes or loses data-md-color-switching (Material's "restyle without
# transitions"), from the first byte of the page on.
WATCH_SWITCHING = """
window.__switching = [];
new MutationObserver((records) => {
  for (const r of records) if (r.attributeName === "data-md-color-switching")
    window.__switching.push(r.target.hasAttribute("data-md-color-switching") ? "set" : "removed");
}).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-md-color-switching"] });
"""
STATE_JS = f"""() => {{
  const form = document.querySelector("{TOGGLE}");
  return {{
    scheme: document.body.getAttribute("data-md-color-scheme"),
    shown: [...form.querySelectorAll("label")].filter((l) => !l.hidden).map((l) => l.title),
    checked: [...form.querySelectorAll("input")].filter((i) => i.checked).map((i) => i.id),
    colorScheme: document.querySelector("meta[name=color-scheme]")?.content,
    themeColor: document.querySelector("meta[name=theme-color]")?.content,
    stored: JSON.parse(localStorage.getItem(__md_scope.pathname + ".__palette")),
    switching: window.__switching,
  }};
}}"""
LABELS = {"light": "Switch to dark mode", "dark": "Switch to light mode"}  # mkdocs.yml: the toggle's names
META_SCHEME = {"light": "light", "dark": "dark"}  # the header's color-scheme in each (Material's palette CSS)


@pytest.fixture()
def open_page(browser, site_url):
    """open_page(scheme): a page in a new context (nothing stored) whose system prefers `scheme`."""
    contexts = []

    def new_page(scheme: str):
        context = new_context(browser, site_url)
        contexts.append(context)
        context.add_init_script(WATCH_SWITCHING)
        page = context.new_page()
        page.emulate_media(color_scheme=scheme)
        return page

    yield new_page
    for context in contexts:
        context.close()


def state(page) -> dict:
    return page.evaluate(STATE_JS)


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_a_first_visit_shows_the_systems_scheme_without_restyling_the_page(open_page, site_url, scheme):
    tab = open_page(scheme)
    tab.goto(site_url + PAGE, wait_until="load")
    tab.wait_for_timeout(200)  # a task after load: when Material's component removed its attribute
    got = state(tab)
    assert got["scheme"] == SCHEMES[scheme]
    assert got["shown"] == [LABELS[scheme]], "the toggle shows the one button to the other scheme"
    assert got["checked"] == [f"__palette_{list(SCHEMES).index(scheme)}"], "Tab reaches the button shown"
    assert got["colorScheme"] == META_SCHEME[scheme]
    assert got["themeColor"] and got["themeColor"].startswith("#") and len(got["themeColor"]) == 7
    assert got["stored"] is None, "nothing is stored until the reader chooses"
    assert got["switching"] == [], "the page was switched (restyled whole) at load"
    assert tab.locator("[data-md-component=palette]").count() == 0, "Material's palette component would mount"


def test_a_click_switches_stores_and_is_kept_on_the_next_page(open_page, site_url):
    tab = open_page("light")
    tab.goto(site_url + PAGE, wait_until="load")
    tab.locator(f"{TOGGLE} label:not([hidden])").click()
    tab.wait_for_function("!document.body.hasAttribute('data-md-color-switching')")
    got = state(tab)
    assert got["scheme"] == SCHEMES["dark"] and got["shown"] == [LABELS["dark"]]
    assert got["colorScheme"] == META_SCHEME["dark"]
    assert got["stored"]["index"] == 1 and got["stored"]["color"]["scheme"] == SCHEMES["dark"]
    assert got["switching"] == ["set", "removed"], "a switch turns transitions off for one task only"

    tab.goto(site_url, wait_until="load")
    assert state(tab)["scheme"] == SCHEMES["dark"]
    tab.emulate_media(color_scheme="light")  # a choice outlasts the system's
    tab.wait_for_timeout(100)
    assert state(tab)["scheme"] == SCHEMES["dark"]


def test_the_keyboard_switches_from_the_button_shown(open_page, site_url):
    tab = open_page("light")
    tab.goto(site_url + PAGE, wait_until="load")
    tab.focus(f"{TOGGLE} input:checked")
    tab.keyboard.press("Enter")  # Material's binding: the next palette
    tab.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === {SCHEMES['dark']!r}")
    assert tab.evaluate("document.activeElement.id") == "__palette_1"
    assert state(tab)["shown"] == [LABELS["dark"]]
    tab.keyboard.press("ArrowLeft")  # a radio group's own keys
    tab.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === {SCHEMES['light']!r}")
    assert tab.evaluate("document.activeElement.id") == "__palette_0"
    assert state(tab)["stored"]["index"] == 0


def test_until_the_reader_chooses_the_page_follows_the_system(open_page, site_url):
    tab = open_page("light")
    tab.goto(site_url + PAGE, wait_until="load")
    tab.emulate_media(color_scheme="dark")
    tab.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === {SCHEMES['dark']!r}")
    got = state(tab)
    assert got["shown"] == [LABELS["dark"]] and got["stored"] is None


def test_going_back_shows_the_choice_made_on_the_page_after(open_page, site_url):
    tab = open_page("light")
    tab.goto(site_url + PAGE, wait_until="load")
    tab.locator(f"{TOGGLE} label:not([hidden])").click()  # dark, here
    tab.goto(site_url, wait_until="load")
    tab.locator(f"{TOGGLE} label:not([hidden])").click()  # light again, on the next page
    tab.go_back(wait_until="load")
    tab.wait_for_timeout(100)
    got = state(tab)
    assert (got["scheme"], got["shown"], got["checked"]) == (SCHEMES["light"], [LABELS["light"]], ["__palette_0"])
