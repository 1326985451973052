"""(f) Interactive traces in headless Chromium: names, source lines, folding, the pass stepper, backward to forward.

The DOM contract (thunder-traces.js): each name in a printed trace is `.tp[data-proxy]`, the
definition also `[data-def]`; highlighted names get `.is-linked`; trace lines are `.tl`; source
comments link (`a.tsrc`) to a `.sl` line of the code on the same page. The script marks a block's
lines and names up when the block first comes into view (`.is-marked`): `_open` brings every
block into view once, so the tests find every name.
"""

from __future__ import annotations

import json

import pytest

from .harness import SCHEMES

# One worker runs every browser test: one Chromium, one server, one built site.
pytestmark = pytest.mark.xdist_group("browser")

AUTOGRAD = "guides/autograd/"
PIPELINE = "guides/pipeline/"
FIRST = "first_trace/"

LINKED_JS = """(name) => [...document.querySelectorAll(`.tp[data-proxy="${name}"]`)].map((e) => ({
  linked: e.classList.contains("is-linked"), def: e.hasAttribute("data-def"),
  block: [...document.querySelectorAll("[data-traces]")].indexOf(e.closest("[data-traces]")),
}))"""


MARK_ALL_JS = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const code of document.querySelectorAll("[data-traces]")) { code.scrollIntoView(); await frame(); }
  scrollTo(0, 0);
  await frame();
}"""


def _open(tab, site_url, url):
    tab.goto(site_url + url)
    tab.wait_for_function("() => document.querySelectorAll('[data-traces]').length > 0")
    tab.evaluate(MARK_ALL_JS)
    tab.wait_for_function("() => [...document.querySelectorAll('[data-traces]')].every((c) => c.classList.contains('is-marked'))")
    tab.keyboard.press("Escape")
    tab.mouse.move(1, 1)


def _linked(tab, name):
    return tab.evaluate(LINKED_JS, name)


def _block_with(tab, function: str):
    """The index of the trace block whose trace prints `def <function>(`."""
    index = tab.evaluate("""(fn) => [...document.querySelectorAll("[data-traces]")]
      .findIndex((c) => JSON.parse(c.dataset.traces).some((t) => t.fn === fn))""", function)
    assert index >= 0, f"no trace block prints {function}"
    return tab.locator("[data-traces]").nth(index)


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_hovering_a_saved_tensor_in_the_backward_highlights_it_in_the_forward(request, scheme, site_url):
    tab = request.getfixturevalue(scheme)
    _open(tab, site_url, AUTOGRAD)
    saved = json.loads(_block_with(tab, "computation").get_attribute("data-traces"))[0]["saved"]
    name = next(n for n in saved if n.startswith("t"))  # a tensor the forward made, not an input
    backward = _block_with(tab, "backward_fn")
    backward.locator(f'.tp[data-proxy="{name}"]').last.hover()
    found = _linked(tab, name)
    assert found and all(f["linked"] for f in found), f"not every {name} is highlighted: {found}"
    assert len({f["block"] for f in found}) >= 2, "the highlight stayed in one block"
    assert any(f["def"] for f in found if f["block"] != found[-1]["block"]), "the forward's definition is not marked"
    colour = tab.locator(f'.tp.is-linked[data-proxy="{name}"]').first.evaluate(
        "(e) => getComputedStyle(e).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), f"{scheme}: the highlight has no colour"
    tip = tab.locator("#trace-tip")
    assert tip.is_visible() and name in tip.inner_text() and "defined by:" in tip.inner_text()
    assert "cpu f32[" in tip.inner_text() or "cpu b8[" in tip.inner_text(), "the tooltip shows no annotation"
    tab.mouse.move(1, 1)
    assert not any(f["linked"] for f in _linked(tab, name)), "the highlight stays after the pointer leaves"


def test_a_name_can_be_followed_across_passes_on_the_pipeline(light, site_url):
    _open(light, site_url, PIPELINE)
    light.locator('.tp[data-proxy="t1"]').first.hover()
    blocks = {f["block"] for f in _linked(light, "t1") if f["linked"]}
    assert len(blocks) >= 2, f"t1 is highlighted in {len(blocks)} block(s) only"


def test_a_click_pins_and_escape_clears(light, site_url):
    _open(light, site_url, FIRST)
    name = light.locator('.tp[data-proxy="t7"]').first
    name.click()
    light.mouse.move(1, 1)
    assert all(f["linked"] for f in _linked(light, "t7")), "the click did not pin the highlight"
    light.locator('.tp[data-proxy="x"]').first.hover()
    assert not any(f["linked"] for f in _linked(light, "x")), "another name took over a pinned highlight"
    light.keyboard.press("Escape")
    assert not any(f["linked"] for f in _linked(light, "t7")), "Escape did not clear the pin"


def test_names_work_from_the_keyboard(light, site_url):
    _open(light, site_url, FIRST)
    light.locator("div.exec-output").first.locator("xpath=preceding::a[1]").focus()
    for _ in range(200):  # Tab until a name has the focus, as a reader would
        light.keyboard.press("Tab")
        if light.evaluate("() => document.activeElement.classList.contains('tp')"):
            break
    focused = light.evaluate("""() => {
      const e = document.activeElement, s = getComputedStyle(e);
      const ring = e.matches(":focus-visible") && s.outlineStyle !== "none" && s.outlineWidth !== "0px";
      return { name: e.dataset.proxy, ring } }""")
    assert focused["name"], "Tab never reached a name in a trace"
    assert focused["ring"], "the focused name shows no focus ring"
    assert all(f["linked"] for f in _linked(light, focused["name"])), "focus did not highlight the name"
    light.keyboard.press("Enter")
    light.keyboard.press("Tab")
    assert all(f["linked"] for f in _linked(light, focused["name"])), "Enter did not pin the highlight"
    light.keyboard.press("Escape")
    assert not any(f["linked"] for f in _linked(light, focused["name"]))


def test_source_comments_link_to_the_code_line_and_code_lines_light_up_their_trace_lines(light, site_url):
    _open(light, site_url, FIRST)
    link = light.locator("a.tsrc").first
    target = link.get_attribute("href")
    source = link.inner_text()
    line = light.locator(target)
    assert line.count() == 1 and line.get_attribute("data-src") == source
    line.hover()
    lit = light.evaluate("() => [...document.querySelectorAll('.tl.is-src')].map((e) => e.dataset.src)")
    assert lit and set(lit) == {source}, f"hovering {source} lit {lit}"
    link.click()
    assert light.evaluate("() => location.hash") == target
    assert light.locator(f"{target}:target").count() == 1


def test_lines_with_subsymbols_fold_and_the_copy_button_still_copies_the_printed_text(clipboard_page, site_url):
    tab = clipboard_page
    _open(tab, site_url, FIRST)
    block = tab.locator("div.exec-output").filter(has=tab.locator("button.tfold")).first
    code = block.locator("code")
    printed = code.inner_text()
    button = block.locator("button.tfold").first
    assert button.get_attribute("aria-expanded") == "true"  # as printed, by default
    button.click()
    assert button.get_attribute("aria-expanded") == "false"
    assert block.locator(".tl.is-folded").count() > 0
    assert not block.locator(".tl.is-folded").first.is_visible()
    assert code.inner_text() != printed, "folding hid nothing"
    block.locator("button.md-code__button[data-md-type=copy]").click()
    tab.wait_for_function("() => navigator.clipboard.readText().then((t) => t.length > 0)")
    assert tab.evaluate("navigator.clipboard.readText()") == printed.rstrip(), "the copy is not the printed text"
    button.focus()
    tab.keyboard.press("Enter")
    assert button.get_attribute("aria-expanded") == "true" and block.locator(".tl.is-folded").count() == 0


def test_the_copy_button_copies_exactly_the_printed_trace(clipboard_page, site_url):
    """The markup wraps text only: the copy is the block's text (test_build compares that with the run)."""
    tab = clipboard_page
    _open(tab, site_url, AUTOGRAD)
    block = _block_with(tab, "backward_fn").locator("xpath=ancestor::div[contains(@class,'exec-output')]")
    printed = block.locator("code").evaluate("(c) => c.textContent")
    block.locator("button.md-code__button[data-md-type=copy]").click()
    tab.wait_for_function("() => navigator.clipboard.readText().then((t) => t.length > 0)")
    assert tab.evaluate("navigator.clipboard.readText()") == printed.rstrip()


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_the_pass_stepper_steps_through_last_traces(request, scheme, site_url):
    """The stepper's traces load when it comes near the view; its buttons then step through them."""
    tab = request.getfixturevalue(scheme)
    _open(tab, site_url, PIPELINE)
    stepper = tab.locator(".trace-stepper")
    assert stepper.count() == 1
    title = stepper.locator(".ts-title")
    stepper.scroll_into_view_if_needed()  # as a reader reaches it: its traces are fetched then
    tab.wait_for_function("(t) => !t.textContent.startsWith('Loading')", arg=title.element_handle())
    assert title.inner_text().startswith("traces[0] (1 of 7)")  # the index, then its place in the list
    assert stepper.locator(".ts-prev").is_disabled()
    seen = [title.inner_text()]
    marks = []
    while not stepper.locator(".ts-next").is_disabled():
        stepper.locator(".ts-next").click()
        seen.append(title.inner_text())
        marks.append((stepper.locator("code .is-add").count(), stepper.locator("code .is-del").count()))
    assert [s.split(":")[0] for s in seen] == [f"traces[{i}] ({i + 1} of 7)" for i in range(7)]
    assert marks[0][0] > 0 and marks[0][1] > 0, "pass 1 changed the return line: marked added and removed"
    assert marks[1] == (0, 0), "pass 2 changed nothing: no line is marked"
    assert "no change" in seen[2]
    stepper.locator(".ts-hide input").check()
    while not stepper.locator(".ts-prev").is_disabled():
        stepper.locator(".ts-prev").click()
    shown = [title.inner_text().split(":")[0]]
    while not stepper.locator(".ts-next").is_disabled():
        stepper.locator(".ts-next").click()
        shown.append(title.inner_text().split(":")[0])
    assert shown == ["traces[0] (1 of 7)", "traces[1] (2 of 7)", "traces[4] (5 of 7)", "traces[6] (7 of 7)"]
    # keyboard: arrows move through the traces
    stepper.locator(".ts-prev").focus()
    tab.keyboard.press("ArrowLeft")
    assert title.inner_text().startswith("traces[4] (5 of 7)")
    # a name in the stepper links to the same name in the static trace blocks
    stepper.locator('.tp[data-proxy="x"]').first.hover()
    assert len({f["block"] for f in _linked(tab, "x") if f["linked"]}) >= 2
    stepper.locator(".ts-hide input").uncheck()


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_a_backward_line_highlights_the_forward_lines_that_made_what_it_reads(request, scheme, site_url):
    tab = request.getfixturevalue(scheme)
    _open(tab, site_url, AUTOGRAD)
    forward = _block_with(tab, "computation")
    saved = json.loads(forward.get_attribute("data-traces"))[0]["saved"]
    backward = _block_with(tab, "backward_fn")
    line = backward.locator(f'.tl[data-defs][data-reads~="{saved[1]}"]').first  # an operation reading a saved tensor
    reads = line.get_attribute("data-reads").split()
    line.click(position={"x": 2, "y": 2})
    made = forward.locator(".tl.is-made")
    expected = sorted(n for n in reads if n in saved)
    assert made.count() == len(expected) >= 1
    defined = sorted(made.nth(i).locator(".tp[data-def]").first.get_attribute("data-proxy") for i in range(made.count()))
    assert defined == expected, f"the backward line reads {reads}; the forward lines made {defined}"
    colour = made.first.evaluate("(e) => getComputedStyle(e).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), f"{scheme}: the forward line is not marked"
    tab.keyboard.press("Escape")
    assert forward.locator(".tl.is-made").count() == 0


def test_traces_printed_in_the_notebook_are_interactive(light, site_url):
    from .harness import doc_pages

    (tour,) = [p for p in doc_pages() if p.source.endswith(".ipynb")]
    _open(light, site_url, tour.url)
    block = light.locator("pre[data-traces]").first
    name = block.locator(".tp[data-def]").first
    proxy = name.get_attribute("data-proxy")
    name.hover()
    found = [f for f in _linked(light, proxy) if f["block"] == 0]  # the traces of other compilations have their own
    assert len(found) >= 2 and all(f["linked"] for f in found), f"{proxy} in the notebook: {found}"
    assert light.locator("#trace-tip").is_visible()
