"""(f) Diagrams as a reader sees them: every label big enough to read, on a desktop and on a phone,
in both schemes; a diagram too wide for its column scrolls from the keyboard; the full-size view
opens and closes from the keyboard.

A label's size is its computed font size times the scale the SVG is drawn at where it stands
(`getScreenCTM`), in CSS px. The run ends with the figures: per viewport and scheme, the smallest
label and how many diagrams and labels are under the limit.
"""

from __future__ import annotations

import pytest

from .harness import AXE_JS, DIAGRAM_LIMITS, SCHEMES, VIEWPORT, doc_pages

# One worker runs every browser test: one Chromium, one server, one built site.
pytestmark = pytest.mark.xdist_group("browser")

PAGES = [page for page in doc_pages() if page.mermaid_fences()]
# Viewport -> (window size, smallest label allowed, in CSS px).
HEIGHTS = {"desktop": 800, "phone": 844}
VIEWPORTS = {name: ({"width": width, "height": HEIGHTS[name]}, limit) for name, (width, limit) in DIAGRAM_LIMITS.items()}
TEXT_CONTRAST, LINE_CONTRAST = 4.5, 3  # WCAG AA: text (1.4.3), lines a reader must see (1.4.11)
WIDEST = "guides/autograd/"  # its first diagram is the widest of the site's hand-written ones

# Every diagram of the page's main column: the drawing shown (the one of the scheme, outside the
# full-size view), its name (accTitle), whether its box scrolls, each label's rendered size and
# its contrast, and the lowest contrast of a line with the page. A label's background is what is
# painted under its centre before it (SVG paints in document order): each filled shape there,
# with its opacity, over the page's background. A line is measured against the page.
LABELS_JS = """() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || "");
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, bottom) => ({ r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
                                   b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
  const luminance = (c) => [c.r, c.g, c.b].map((v) => v / 255)
    .map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const page = parse(getComputedStyle(document.body).backgroundColor) || { r: 255, g: 255, b: 255, a: 1 };
  const round = (v) => Math.round(v * 100) / 100;
  return [...document.querySelectorAll(".md-typeset div.diagram")].map((div, index) => {
    const svg = [...div.querySelectorAll("svg")].find((s) => s.getBoundingClientRect().width > 0);
    if (!svg) return { index, name: "", labels: [] };
    const name = (svg.querySelector(":scope > title") || {}).textContent || "";
    const shapes = [...svg.querySelectorAll("rect, polygon, path, circle, ellipse")]
      .filter((shape) => !shape.closest("marker, defs, symbol"));
    const under = (element) => {
      const box = element.getBoundingClientRect();
      const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
      let colour = page;
      for (const shape of shapes) {
        if (!(shape.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING)) continue;
        const r = shape.getBoundingClientRect();
        if (!r.width || !r.height || x < r.left || x > r.right || y < r.top || y > r.bottom) continue;
        const style = getComputedStyle(shape);
        const fill = parse(style.fill);
        if (!fill || style.display === "none" || style.visibility === "hidden") continue;
        fill.a *= parseFloat(style.opacity) * parseFloat(style.fillOpacity);
        colour = over(fill, colour);
      }
      return colour;
    };
    const labels = [];
    const walker = document.createTreeWalker(svg, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent.trim();
      const element = node.parentElement;
      if (!text || element.closest("title, desc, style")) continue;
      const box = element.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      const holder = element instanceof SVGGraphicsElement ? element : element.closest("foreignObject");
      const ctm = holder.getScreenCTM();
      const style = getComputedStyle(element);
      const size = parseFloat(style.fontSize) * Math.hypot(ctm.a, ctm.b);
      const ink = parse(element instanceof SVGElement ? style.fill : style.color);
      labels.push({ text: text.slice(0, 50), size: round(size),
                    contrast: ink ? round(ratio(over(ink, under(element)), under(element))) : null });
    }
    const lines = shapes.concat([...svg.querySelectorAll("line")]).filter((shape) => {
      const style = getComputedStyle(shape);
      const box = shape.getBoundingClientRect();
      return style.fill === "none" && parse(style.stroke) && box.width + box.height > 0;
    }).map((shape) => round(ratio(over(parse(getComputedStyle(shape).stroke), page), page)));
    const scroller = svg.parentElement;
    return { index, name, labels, lines: lines.length ? Math.min(...lines) : null,
             overflows: scroller.scrollWidth > scroller.clientWidth + 1, focusable: scroller.tabIndex >= 0 };
  });
}"""
SCROLLABLE_JS = """async () => {
  const result = await axe.run(document, { runOnly: { type: "rule", values: ["scrollable-region-focusable"] } });
  return result.violations.flatMap((v) => v.nodes.map((n) => n.target.join(" ")));
}"""


def _measure(tab, size: dict) -> list[dict]:
    tab.set_viewport_size(size)
    tab.wait_for_timeout(50)  # a resize lays the page out again
    return tab.evaluate(LABELS_JS)


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("page", PAGES, ids=str)
def test_every_diagram_label_is_big_enough(request, page, scheme, site_url, diagram_labels):
    tab = request.getfixturevalue(scheme)
    tab.goto(site_url + page.url, wait_until="load")
    problems = []
    try:
        for viewport, (size, limit) in VIEWPORTS.items():
            diagrams = _measure(tab, size)
            if len(diagrams) != page.mermaid_fences():
                problems.append(f"{viewport}: {len(diagrams)} diagrams shown for {page.mermaid_fences()} fences")
            rows = []
            for diagram in diagrams:
                where = f"diagram {diagram['index'] + 1} ({diagram['name'] or 'no name'})"
                if not diagram["labels"]:
                    problems.append(f"{viewport}: {where} shows no label")
                    continue
                small = [label for label in diagram["labels"] if label["size"] < limit]
                smallest = min(diagram["labels"], key=lambda label: label["size"])
                faint = [label for label in diagram["labels"] if label["contrast"] is None or label["contrast"] < TEXT_CONTRAST]
                lowest = min((label["contrast"] or 0 for label in diagram["labels"]), default=0)
                rows.append({"diagram": where, "labels": len(diagram["labels"]), "under": len(small),
                             "smallest": smallest["size"], "contrast": lowest, "lines": diagram["lines"]})
                if faint:
                    shown = ", ".join(f"{label['text']!r} {label['contrast']}:1" for label in faint[:5])
                    problems.append(f"{viewport}: {where}: {len(faint)} labels under {TEXT_CONTRAST}:1 contrast: {shown}")
                if diagram["lines"] is not None and diagram["lines"] < LINE_CONTRAST:
                    problems.append(f"{viewport}: {where}: a line at {diagram['lines']}:1 contrast with the page, "
                                    f"under {LINE_CONTRAST}:1")
                if small:
                    shown = ", ".join(f"{label['text']!r} {label['size']:.1f}px" for label in small[:5])
                    problems.append(f"{viewport} {size['width']}px: {where}: {len(small)} of {len(diagram['labels'])} "
                                    f"labels under {limit}px: {shown}{' ...' if len(small) > 5 else ''}")
                if diagram.get("overflows") and not diagram.get("focusable"):
                    problems.append(f"{viewport}: {where} scrolls sideways but cannot take keyboard focus")
            diagram_labels[(viewport, scheme, page.source)] = rows
            if diagrams and any(d.get("overflows") for d in diagrams):
                if not tab.evaluate("typeof axe !== 'undefined'"):
                    tab.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))
                problems += [f"{viewport}: axe scrollable-region-focusable: {t}" for t in tab.evaluate(SCROLLABLE_JS)]
    finally:
        tab.set_viewport_size(VIEWPORT)
    assert not problems, f"{page.source} ({scheme}):\n  " + "\n  ".join(problems)


OPEN_STATE_JS = """() => {
  const dialog = document.querySelector("dialog.diagram__full[open]");
  const svg = dialog && dialog.querySelector("svg");
  const sizes = svg ? [...svg.querySelectorAll("text, tspan")].filter((t) => t.getBoundingClientRect().width > 0)
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b)) : [];
  return { open: !!dialog, svg: !!svg, focusInside: !!dialog && dialog.contains(document.activeElement),
           smallest: sizes.length ? Math.min(...sizes) : null };
}"""


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_the_full_size_view_opens_and_closes_from_the_keyboard(request, scheme, viewport, site_url):
    tab = request.getfixturevalue(scheme)
    size, limit = VIEWPORTS[viewport]
    tab.set_viewport_size(size)
    try:
        tab.goto(site_url + WIDEST, wait_until="load")
        diagram = tab.locator(".md-typeset div.diagram").first
        button = diagram.locator("button.diagram__open")
        assert button.count() == 1, "the diagram has no button that opens it full size"
        box = button.bounding_box()
        assert box and box["width"] >= 24 and box["height"] >= 24, f"the button is smaller than 24x24 px: {box}"
        # Tab reaches the button: from the element before it in the tab order.
        button.focus()
        tab.keyboard.press("Shift+Tab")
        tab.keyboard.press("Tab")
        assert button.evaluate("(b) => b === document.activeElement"), "Tab does not reach the full-size button"
        tab.keyboard.press("Enter")
        state = tab.evaluate(OPEN_STATE_JS)
        assert state["open"] and state["svg"], f"Enter did not open the diagram full size: {state}"
        assert state["focusInside"], "focus did not move into the full-size view"
        assert state["smallest"] is not None and state["smallest"] >= limit, \
            f"the full-size view shows labels of {state['smallest']}px, under {limit}px"
        tab.keyboard.press("Escape")
        state = tab.evaluate(OPEN_STATE_JS)
        assert not state["open"], "Escape did not close the full-size view"
        # A dialog's "close" event, which puts the diagram back, comes in a task after it closes.
        back = diagram.locator(".diagram__scroll > svg")
        tab.wait_for_function("(box) => !!box.querySelector(':scope > svg')",
                              arg=diagram.locator(".diagram__scroll").element_handle(), timeout=5000)
        assert back.is_visible(), "the diagram is not back in the page"
        assert button.evaluate("(b) => b === document.activeElement"), "focus did not return to the button"
    finally:
        tab.set_viewport_size(VIEWPORT)


def test_the_back_button_closes_the_full_size_view_and_stays_on_the_page(light, site_url):
    """Back closes an open full-size view, not the page; closing it otherwise drops the entry it added."""
    light.goto(site_url, wait_until="load")  # the page Back leaves for, once the view is closed
    light.goto(site_url + WIDEST, wait_until="load")
    url = light.url
    button = light.locator(".md-typeset div.diagram button.diagram__open").first
    button.click()
    assert light.evaluate(OPEN_STATE_JS)["open"]
    light.go_back()
    light.wait_for_function("() => !document.querySelector('dialog.diagram__full[open]')")
    assert light.url == url, f"Back left the page for {light.url}"
    assert button.evaluate("(b) => b === document.activeElement"), "focus did not return to the button"
    button.click()
    light.keyboard.press("Escape")
    light.wait_for_function("() => !(history.state && history.state.thunderDiagram)")
    assert light.url == url and not light.evaluate(OPEN_STATE_JS)["open"]
    light.go_back()  # the entry the view added is gone: Back leaves the page, as before it opened
    assert light.url == site_url, f"Escape left the full-size view's history entry behind: {light.url}"


PRINTED_JS = """() => [...document.querySelectorAll(".md-typeset div.diagram")].map((div) => {
  const svg = div.querySelector("svg");
  const box = svg.parentElement;
  const bar = div.querySelector(".diagram__bar");
  return { name: (svg.querySelector(":scope > title") || {}).textContent, svg: svg.getBoundingClientRect().width,
           box: box.clientWidth, cut: box.scrollWidth > box.clientWidth + 1,
           button: !!bar && bar.getBoundingClientRect().height > 0 };
})"""


@pytest.mark.parametrize("url", [WIDEST, "guides/executors/"])
def test_a_printed_diagram_is_whole(light, site_url, url):
    """In print a diagram fits the page's width (it may shrink there), and its button is not printed."""
    light.goto(site_url + url, wait_until="load")
    light.emulate_media(media="print")
    try:
        diagrams = light.evaluate(PRINTED_JS)
    finally:
        light.emulate_media(media="screen")
    assert diagrams, f"{url} shows no diagram"
    problems = [d for d in diagrams if d["cut"] or d["svg"] > d["box"] + 1 or d["button"]]
    assert not problems, f"{url}: printed diagrams cut off or with their button: {problems}"


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_a_diagram_that_scrolls_scrolls_from_the_keyboard(light, site_url, viewport):
    """The executors' decision diagram is wider than the column at its smallest size, on both viewports."""
    light.set_viewport_size(VIEWPORTS[viewport][0])
    try:
        light.goto(site_url + "guides/executors/", wait_until="load")
        box = light.locator(".md-typeset div.diagram .diagram__scroll").first
        state = box.evaluate("(b) => ({ tab: b.tabIndex, role: b.getAttribute('role'), name: b.getAttribute('aria-label'),"
                             " scrolls: b.scrollWidth > b.clientWidth + 1 })")
        assert state["scrolls"], f"the diagram fits at {viewport}: pick a wider one for this test"
        assert state["tab"] == 0 and state["role"] == "group" and state["name"], \
            f"the scroll box is not a named Tab stop: {state}"
        box.focus()
        light.keyboard.press("ArrowRight")
        light.wait_for_function("(b) => b.scrollLeft > 0", arg=box.element_handle(), timeout=2000)
    finally:
        light.set_viewport_size(VIEWPORT)
