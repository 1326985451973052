"""(f) Every page from the keyboard and on a phone, in headless Chromium: Tab stops, DOM size,
the focus ring, the arrow keys inside a trace block, target sizes, where the tooltip goes.

A trace block is one Tab stop (roving tabindex: the WAI-ARIA composite widget pattern); its
names are marked up from the build's line map when it comes into view (thunder-traces.js), so
a page loads few elements. The figures of every page are printed at the end of the run.
"""

from __future__ import annotations

import pytest

from .harness import SCHEMES, VIEWPORT, doc_pages, visit

# One worker runs every browser test: one Chromium, one server, one built site.
pytestmark = pytest.mark.xdist_group("browser")

PAGES = doc_pages()
TAB_STOP_LIMIT = 120  # Tab stops on a page, Material's included
DOM_LIMIT = 3000  # elements when a page has loaded
RING_WIDTH = 2  # CSS px, at least
RING_CONTRAST = 3  # against the code background, at least (WCAG 1.4.11)
TARGET = 24  # CSS px: a control's size, or its spacing (WCAG 2.5.8)
PHONE = {"width": 390, "height": 844}
FIRST = "first_trace/"
PIPELINE = "guides/pipeline/"
DENSE = "guides/transform_toolkit/"

# The elements Tab stops at: focusable, in the sequential order (tabIndex >= 0), enabled and
# rendered (not display: none, visibility: hidden, nor inert); a group of radio buttons once.
TAB_STOPS_JS = """() => { const radios = new Set(); return [...document.querySelectorAll(
    "a[href], area[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]")]
  .filter((e) => e.tabIndex >= 0 && !e.disabled && !e.closest("[inert]") && !(e.type === "hidden")
    && e.checkVisibility({ visibilityProperty: true }))
  .filter((e) => e.type !== "radio" || !e.name || (!radios.has(e.name) && radios.add(e.name)))
  .map((e) => ({ tag: e.localName, block: !!e.closest("[data-traces]"),
                 in: [...document.querySelectorAll("[data-traces]")].indexOf(e.closest("[data-traces]")) })) }"""
DOM_JS = "() => document.getElementsByTagName('*').length"
# Bring every trace block and every code block into view once (each is marked up, or has its
# highlighting back, then), then back to the top.
MARK_ALL_JS = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  for (const code of document.querySelectorAll("[data-traces], pre > code")) { code.scrollIntoView(); await frame(); }
  scrollTo(0, 0);
  await frame();
  return [...document.querySelectorAll("[data-traces]")].filter((c) => !c.classList.contains("is-marked")).length;
}"""
SETTLE_JS = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"

# WCAG's relative luminance and contrast ratio, from computed colours; a translucent
# background is laid over what is under it, down to the page.
CONTRAST_JS = """(e) => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (top, under) => top.slice(0, 3).map((v, i) => v * top[3] + under[i] * (1 - top[3])).concat(1);
  const background = (el) => {
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const linear = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map(linear); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const s = getComputedStyle(e);
  const contrast = (bg) => {
    const ring = over(parse(s.outlineColor), bg);
    const [hi, lo] = [lum(ring), lum(bg)].sort((a, b) => b - a);
    return (hi + 0.05) / (lo + 0.05);
  };
  const code = e.closest("pre") ? e.closest("pre").querySelector("code") || e.closest("pre") : e;
  // The block's own background (an output block's is the page's), and a code block's.
  const backgrounds = [background(code)];
  const other = document.querySelector(".md-typeset div.highlight:not(.exec-output) pre > code");
  if (other) backgrounds.push(background(other));
  const worst = backgrounds.reduce((a, b) => (contrast(b) < contrast(a) ? b : a));
  return { width: parseFloat(s.outlineWidth), style: s.outlineStyle, color: s.outlineColor,
           background: backgrounds.map((bg) => `rgb(${bg.slice(0, 3).map(Math.round).join(", ")})`).join(" and "),
           contrast: contrast(worst), visible: e.matches(":focus-visible") };
}"""
ACTIVE_JS = """() => { const e = document.activeElement;
  const code = e.closest("[data-traces]");
  const row = e.closest(".tl");
  return { tag: e.localName, cls: e.classList[0] || "", proxy: e.dataset.proxy || null, text: e.textContent,
           block: [...document.querySelectorAll("[data-traces]")].indexOf(code),
           line: row ? [...code.querySelectorAll(".tl")].indexOf(row) : -1,
           tabindex: e.getAttribute("tabindex"), top: Math.round(e.getBoundingClientRect().top) } }"""

ROWS: dict[str, dict] = {}


@pytest.fixture(scope="module", autouse=True)
def _summary(keyboard):
    yield
    keyboard.update(ROWS)


def _focus_before(tab, block):
    """Put the focus on the last Tab stop before a trace block (a reader Tabbing down the page)."""
    tab.evaluate("""(code) => {
      const stops = [...document.querySelectorAll("a[href], button, input, [tabindex]")]
        .filter((e) => e.tabIndex >= 0 && e.checkVisibility() && !e.closest("[data-traces]"));
      const before = stops.filter((e) => code.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_PRECEDING
                                         && !e.contains(code));
      before[before.length - 1].focus();
    }""", block.element_handle())


def _trace_block(tab, index=0):
    return tab.locator("[data-traces]").nth(index)


def _figures(tab, page, site_url) -> tuple[dict, int, dict]:
    """A page's keyboard figures (printed at the end of the run), the trace blocks left
    unmarked after each was brought into view, and the Tab stops inside each trace block."""
    seen = visit(tab, site_url + page.url, site_url)
    assert seen.status == 200 and not seen.console_errors, seen
    tab.evaluate(SETTLE_JS)
    elements = tab.evaluate(DOM_JS)
    at_load = tab.evaluate(TAB_STOPS_JS)
    unmarked = tab.evaluate(MARK_ALL_JS)
    marked = tab.evaluate(TAB_STOPS_JS)
    per_block = {}
    for stop in marked:
        if stop["block"]:
            per_block[stop["in"]] = per_block.get(stop["in"], 0) + 1
    row = {"elements": elements, "elements_marked": tab.evaluate(DOM_JS), "stops": len(at_load),
           "stops_marked": len(marked), "blocks": tab.locator("[data-traces]").count(),
           "most_in_a_block": max(per_block.values(), default=0)}
    ROWS[page.source] = row
    return row, unmarked, per_block


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_each_trace_block_is_one_tab_stop_and_is_marked_up_in_view(light, page, site_url):
    """A trace block is one Tab stop, when the page loads and once every block is marked up;
    every block brought into view is marked up."""
    row, unmarked, per_block = _figures(light, page, site_url)
    problems = [f"{unmarked} trace blocks brought into view were not marked up"] if unmarked else []
    if crowded := {k: n for k, n in per_block.items() if n > 1}:
        problems.append(f"trace blocks with more than one Tab stop (block: stops): {crowded}")
    assert not problems, f"{page.source}:\n  " + "\n  ".join(problems)


def test_no_page_over_the_element_limit_when_it_loads(light, site_url):
    """At most DOM_LIMIT elements on every page when it has loaded (code blocks out of view wait
    as plain text: thunder-lazyhighlight)."""
    over = []
    for page in PAGES:
        row = ROWS.get(page.source) or _figures(light, page, site_url)[0]
        if row["elements"] > DOM_LIMIT:
            over.append(f"{page.source}: {row['elements']} elements when it loads, over {DOM_LIMIT}")
    assert not over, f"{len(over)} pages over the limit:\n  " + "\n  ".join(over)


def test_no_page_over_the_tab_stop_limit(light, site_url):
    """At most TAB_STOP_LIMIT Tab stops on every page, when it loads and once every block is marked up."""
    over = []
    for page in PAGES:
        row = ROWS.get(page.source) or _figures(light, page, site_url)[0]
        for key, when in (("stops", "when it loads"), ("stops_marked", "with every block marked up")):
            if row[key] > TAB_STOP_LIMIT:
                over.append(f"{page.source}: {row[key]} Tab stops {when}, over {TAB_STOP_LIMIT}")
    assert not over, f"{len(over)} pages over a limit:\n  " + "\n  ".join(over)


LINK_LISTS = ("nav.md-tabs", "nav.md-nav--primary", ".md-sidebar--secondary nav.md-nav--secondary")
LIST_JS = """(nav) => { const shown = [...nav.querySelectorAll("a[href]")].filter((a) => a.checkVisibility());
  return { shown: shown.length, stops: shown.filter((a) => a.tabIndex >= 0).length,
           at: shown.indexOf(document.activeElement), inside: nav.contains(document.activeElement) } }"""


def test_each_link_list_beside_the_page_is_one_tab_stop_and_the_arrow_keys_move_in_it(light, site_url):
    """The section tabs, the sidebar's navigation and the table of contents, on a desktop: one Tab
    stop each; End, Home, Down and Up move between the shown links; Tab leaves."""
    light.goto(site_url + PIPELINE)
    for selector in LINK_LISTS:
        nav = light.locator(selector).first
        state = nav.evaluate(LIST_JS)
        assert state["shown"] >= 3 and state["stops"] == 1, f"{selector}: {state}"
        nav.locator("a[href]").evaluate_all("(links) => links.find((a) => a.tabIndex === 0).focus()")
        walked = []
        for key in ("End", "Home", "ArrowDown", "ArrowUp"):
            light.keyboard.press(key)
            walked.append(nav.evaluate(LIST_JS)["at"])
        assert walked == [state["shown"] - 1, 0, 1, 0], f"{selector}: End, Home, Down, Up reached {walked}"
        assert nav.evaluate(LIST_JS)["stops"] == 1
        light.keyboard.press("Tab")
        assert not nav.evaluate(LIST_JS)["inside"], f"{selector}: Tab did not leave the list"


def test_in_the_phones_drawer_every_link_is_a_tab_stop(light, site_url):
    """The drawer is a menu the reader opened: the script leaves its links as Material made them."""
    light.set_viewport_size(PHONE)
    try:
        light.goto(site_url + PIPELINE)
        light.locator("label.md-header__button[for=__drawer]").click()
        nav = light.locator(LINK_LISTS[1]).first
        light.wait_for_function("(nav) => [...nav.querySelectorAll('a[href]')].some((a) => a.checkVisibility())",
                                arg=nav.element_handle())
        state = nav.evaluate(LIST_JS)
        assert state["shown"] > 3 and state["stops"] == state["shown"], state
    finally:
        light.set_viewport_size(VIEWPORT)


def test_the_tab_stop_count_is_what_tab_visits(light, site_url):
    """The count above is what pressing Tab visits: Tab once round the first trace page."""
    light.goto(site_url + FIRST)
    light.evaluate(MARK_ALL_JS)
    expected = len(light.evaluate(TAB_STOPS_JS))
    light.evaluate("() => { window.__seen = new Set(); document.activeElement?.blur(); }")
    for _ in range(expected + 20):
        light.keyboard.press("Tab")
        if light.evaluate("""() => { const e = document.activeElement;
              if (!e || e === document.body) return false;
              if (window.__seen.has(e)) return true;
              window.__seen.add(e); return false; }"""):
            break
    visited = light.evaluate("() => window.__seen.size")
    assert visited == expected, f"Tab visits {visited} elements; the count says {expected}"


def _walk(tab, steps=80):
    """The items of the focused block, in the order the arrow keys reach them (Right along a
    line, then Down and Home), with the focused element's figures at each."""
    found = [tab.evaluate(ACTIVE_JS)]
    for _ in range(steps):
        tab.keyboard.press("ArrowRight")
        now = tab.evaluate(ACTIVE_JS)
        if now == found[-1]:
            tab.keyboard.press("ArrowDown")
            tab.keyboard.press("Home")
            now = tab.evaluate(ACTIVE_JS)
            if now == found[-1] or now in found:
                break
        found.append(now)
    return found


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_the_focus_ring_is_wide_and_contrasts_with_the_code(request, scheme, site_url):
    """A name, a link and a fold button with the keyboard focus: a ring of RING_WIDTH px or
    more, RING_CONTRAST:1 or more against the code background, in both schemes."""
    tab = request.getfixturevalue(scheme)
    tab.goto(site_url + FIRST)
    # The build marks a block with fold buttons (has-folds); the script adds them.
    block = tab.locator("[data-traces].has-folds, [data-traces]:has(button.tfold)").first
    block.scroll_into_view_if_needed()
    tab.wait_for_function("(c) => c.querySelector('.tp')", arg=block.element_handle())
    _focus_before(tab, block)
    tab.keyboard.press("Tab")
    found = {}
    for _ in range(80):  # through the block with the arrow keys, until each kind of item was seen
        active = tab.evaluate(ACTIVE_JS)
        kind = "name" if active["proxy"] else active["tag"]
        found.setdefault(kind, tab.evaluate(f"() => ({CONTRAST_JS})(document.activeElement)"))
        if {"name", "a", "button"} <= set(found):
            break
        tab.keyboard.press("ArrowRight")
        if tab.evaluate(ACTIVE_JS) == active:
            tab.keyboard.press("ArrowDown")
            tab.keyboard.press("Home")
    assert {"name", "a", "button"} <= set(found), f"the arrow keys reached only {sorted(found)}"
    for kind, ring in found.items():
        assert ring["visible"] and ring["style"] != "none", f"{scheme}: a focused {kind} shows no ring: {ring}"
        assert ring["width"] >= RING_WIDTH, f"{scheme}: the ring of a {kind} is {ring['width']} px wide: {ring}"
        assert ring["contrast"] >= RING_CONTRAST, f"{scheme}: the ring of a {kind} has {ring['contrast']:.2f}:1: {ring}"
    ROWS[f"(focus ring, {scheme})"] = {k: f"{v['width']:g}px {v['contrast']:.1f}:1 on {v['background']}"
                                      for k, v in found.items()}


def test_tab_enters_a_trace_block_the_arrow_keys_move_and_tab_leaves(light, site_url):
    light.goto(site_url + FIRST)
    block = light.locator("[data-traces]").filter(has=light.locator("a.tsrc")).first
    index = light.evaluate("(c) => [...document.querySelectorAll('[data-traces]')].indexOf(c)", block.element_handle())
    assert block.get_attribute("role") == "group" and block.get_attribute("aria-roledescription") == "trace"
    hint = light.locator(f"#{block.get_attribute('aria-describedby')}")
    assert block.get_attribute("aria-label") and "Arrow keys" in hint.text_content()
    _focus_before(light, block)
    light.keyboard.press("Tab")
    first = light.evaluate(ACTIVE_JS)
    assert first["block"] == index and first["proxy"], f"Tab did not enter the block on its first name: {first}"
    assert first["tabindex"] == "0"
    light.keyboard.press("ArrowRight")
    right = light.evaluate(ACTIVE_JS)
    assert right["block"] == index and right["line"] == first["line"] and right != first, f"ArrowRight: {right}"
    light.keyboard.press("ArrowLeft")
    assert light.evaluate(ACTIVE_JS) == first, "ArrowLeft did not come back"
    light.keyboard.press("ArrowDown")
    down = light.evaluate(ACTIVE_JS)
    assert down["block"] == index and down["line"] > first["line"], f"ArrowDown did not go down a line: {down}"
    light.keyboard.press("ArrowUp")
    assert light.evaluate(ACTIVE_JS)["line"] == first["line"], "ArrowUp did not go back up"
    light.keyboard.press("ArrowDown")
    light.keyboard.press("End")
    end = light.evaluate(ACTIVE_JS)
    assert end["line"] == down["line"]
    light.keyboard.press("ArrowRight")
    assert light.evaluate(ACTIVE_JS) == end, "ArrowRight went past the end of the line"
    light.keyboard.press("Home")
    assert light.evaluate(ACTIVE_JS)["line"] == down["line"]
    ends = "(c) => { const items = [...c.querySelectorAll('.tp, a[href], button')]; " \
           "return [items.indexOf(document.activeElement), items.length] }"
    light.keyboard.press("Control+End")
    at, count = light.evaluate(ends, block.element_handle())
    assert at == count - 1, f"Control+End went to item {at} of {count}"
    light.keyboard.press("Control+Home")
    assert light.evaluate(ends, block.element_handle())[0] == 0, "Control+Home did not go to the first item"
    walked = _walk(light)
    kinds = {"name" if w["proxy"] else w["cls"] or w["tag"] for w in walked}
    assert "tsrc" in kinds and any("thunder-source" in k for k in kinds), f"the arrow keys reached {kinds}"
    assert all(w["block"] == index for w in walked), "the arrow keys left the block"
    stops = light.evaluate("(c) => [...c.querySelectorAll('*')].filter((e) => e.tabIndex >= 0).length",
                           block.element_handle())
    assert stops == 1, f"{stops} elements of the block are in the Tab order"
    link = next(w for w in walked if w["cls"] == "tsrc")
    light.locator("[data-traces]").nth(index).locator("a.tsrc").first.focus()
    light.keyboard.press("Tab")
    assert light.evaluate(ACTIVE_JS)["block"] != index, "Tab did not leave the block"
    light.keyboard.press("Shift+Tab")
    back = light.evaluate(ACTIVE_JS)
    assert {**back, "top": 0} == {**link, "top": 0}, f"Shift+Tab did not come back to the item focused last: {back}"
    light.keyboard.press("Escape")


def test_fold_and_stepper_buttons_are_big_enough(light, site_url):
    """Fold buttons and the stepper's buttons: TARGET px square, or axe-core's target-size rule
    (WCAG 2.2 AA, 2.5.8) passes for them."""
    from .harness import AXE_JS

    sizes = {}
    for url in (FIRST, PIPELINE):
        light.goto(site_url + url)
        light.evaluate(MARK_ALL_JS)
        boxes = light.evaluate("""() => [...document.querySelectorAll("button.tfold, .ts-bar button")]
          .filter((b) => b.checkVisibility()).map((b) => { const r = b.getBoundingClientRect();
            return { cls: b.className, width: r.width, height: r.height }; })""")
        assert boxes, f"{url}: no fold or stepper button"
        for box in boxes:
            small = sizes.setdefault(box["cls"], [TARGET, TARGET])
            small[0], small[1] = min(small[0], box["width"]), min(small[1], box["height"])
        if not light.evaluate("typeof axe !== 'undefined'"):
            light.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))
        found = light.evaluate("""async () => (await axe.run(document, { runOnly: { type: "rule", values: ["target-size"] } }))
          .violations.flatMap((v) => v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary))""")
        assert not found, f"{url}: axe target-size:\n" + "\n".join(found[:10])
    ROWS["(target sizes)"] = {cls: f"{w:g}x{h:g}" for cls, (w, h) in sizes.items()}
    small = {cls: wh for cls, wh in sizes.items() if min(wh) < TARGET}
    assert not small, f"buttons smaller than {TARGET}x{TARGET} px (smallest width, height): {small}"


def _densest_block(tab):
    """The trace block with the most names, every block marked up."""
    tab.evaluate(MARK_ALL_JS)
    index = tab.evaluate("""() => { const blocks = [...document.querySelectorAll("[data-traces]")];
      const names = (c) => c.querySelectorAll(".tp").length;
      return blocks.reduce((best, c, i) => (names(c) > names(blocks[best]) ? i : best), 0); }""")
    return tab.locator("[data-traces]").nth(index)


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_the_tooltip_never_covers_a_highlighted_use(light, site_url, width):
    """On the densest trace of the site's densest page, for each name: no highlighted name
    (`.is-linked`, its own uses and definition) is under the tooltip."""
    if width == "phone":
        light.set_viewport_size(PHONE)
    try:
        light.goto(site_url + DENSE)
        block = _densest_block(light)
        names = block.locator(".tp")
        count = min(names.count(), 60)
        covered = []
        for i in range(count):
            name = names.nth(i)
            name.scroll_into_view_if_needed()
            name.hover()
            found = light.evaluate("""() => { const tip = document.getElementById("trace-tip").getBoundingClientRect();
              return [...document.querySelectorAll(".tp.is-linked")].map((e) => e.getBoundingClientRect())
                .filter((r) => r.width && r.left < tip.right && r.right > tip.left && r.top < tip.bottom && r.bottom > tip.top)
                .length }""")
            if found:
                covered.append(f"{name.get_attribute('data-proxy')} (name {i}): {found} highlighted names under the tooltip")
        light.mouse.move(1, 1)
        ROWS[f"(tooltip, {width})"] = {"names tried": count, "covering": len(covered)}
        assert count >= 20, f"{DENSE}: only {count} names to try"
        assert not covered, "\n".join(covered[:10])
    finally:
        light.set_viewport_size({"width": 1280, "height": 900})
