"""(f) Every page as it prints: Chromium's print media on a page as wide as A4's printable width.

A line of code or output wider than its box is cut at the edge of the paper (print has no
scroll bar); a control (a button, a fold arrow, the pass stepper's buttons) is no use on
paper. Each page fails on either, naming the line or the control; the figures are printed
at the end of the run.
"""

from __future__ import annotations

import pytest

from .harness import doc_pages, new_context

pytestmark = pytest.mark.xdist_group("browser")

PAGES = doc_pages()
# A4 is 210 mm wide; Chromium prints with margins of about 10 mm on each side: 190 mm at 96 px per inch.
A4_PRINTABLE = {"width": round(190 / 25.4 * 96), "height": round(277 / 25.4 * 96)}

# Per visible <pre> of the page: the lines wider than the box they are printed in (measured in
# the block's own font, as one unwrapped line), whatever the block's white-space says.
CUT_LINES_JS = """() => {
  const probe = document.body.appendChild(document.createElement("span"));
  probe.style.cssText = "position: absolute; left: 0; top: 0; visibility: hidden; white-space: pre";
  const found = { blocks: 0, lines: 0, cut: [] };
  document.querySelectorAll(".md-content pre").forEach((pre) => {
    if (!pre.checkVisibility()) return;
    const code = pre.querySelector(":scope > code") || pre;
    found.blocks += 1;
    const style = getComputedStyle(code);
    const box = code.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    probe.style.font = style.font;
    probe.style.letterSpacing = style.letterSpacing;
    const wraps = !["pre", "nowrap"].includes(style.whiteSpace) && style.textWrapMode !== "nowrap";
    const lines = code.innerText.replace(/\\n$/, "").split("\\n");
    found.lines += lines.length;
    lines.forEach((line, index) => {
      probe.textContent = line;
      const width = probe.getBoundingClientRect().width;
      if (width > box + 1 && (!wraps || code.scrollWidth > code.clientWidth + 1)) {
        found.cut.push({ line: index + 1, text: line.slice(0, 90), width: Math.round(width), box: Math.round(box),
                         block: (pre.closest(".exec-output") ? "output" : "code") + " starting " +
                                JSON.stringify(lines[0].slice(0, 50)) });
      }
    });
  });
  probe.remove();
  return found;
}"""

# Controls that show on paper: anything a reader would press, and Material's chrome.
CONTROLS = ("button, input:not([type=hidden]), select, textarea, [role=button], clipboard-copy, .md-code__nav, "
            ".md-top, .md-header, .md-footer, .md-sidebar, .md-search, .md-dialog, .headerlink, .tfold, .ts-hide")
CONTROLS_JS = """(selector) => [...document.querySelectorAll(selector)].filter((element) => {
  const box = element.getBoundingClientRect();
  return box.width > 0 && box.height > 0 && element.checkVisibility({ opacityProperty: true, visibilityProperty: true });
}).map((element) => element.localName + (element.className && typeof element.className === "string" ?
  "." + element.className.trim().split(/\\s+/).join(".") : "") +
  (element.textContent.trim() ? ` "${element.textContent.trim().slice(0, 30)}"` : ""))"""
PAGE_WIDER_JS = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.fixture(scope="module")
def printed(browser, site_url):
    """A page in a context that shows pages as Chromium prints them, at A4's printable width."""
    context = new_context(browser, site_url, cache=True)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.set_viewport_size(A4_PRINTABLE)
    page.emulate_media(media="print")
    yield page
    context.close()


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_page_prints_every_line_and_no_control(page, printed, site_url, print_report):
    printed.goto(site_url + page.url, wait_until="load")
    assert printed.evaluate("matchMedia('print').matches"), "print media is not emulated"
    # The pass stepper and the fold buttons are added by thunder-traces.js once the page has loaded.
    printed.wait_for_load_state("networkidle")
    found = printed.evaluate(CUT_LINES_JS)
    controls = printed.evaluate(CONTROLS_JS, CONTROLS)
    wider = printed.evaluate(PAGE_WIDER_JS)
    print_report[page.source] = {"blocks": found["blocks"], "lines": found["lines"], "cut": len(found["cut"]),
                                 "controls": len(controls)}
    problems = [f"line {c['line']} of the {c['block']} is {c['width']}px in a {c['box']}px box: {c['text']!r}"
                for c in found["cut"]]
    problems += [f"a control prints: {c}" for c in controls]
    if wider > 0:
        problems.append(f"the page is {wider}px wider than A4's printable width ({A4_PRINTABLE['width']}px)")
    assert not problems, f"{page.source} (print, {A4_PRINTABLE['width']}px):\n  " + "\n  ".join(problems[:40])


def test_an_output_is_kept_with_its_code(printed, site_url):
    """Print rules keep an output on the page of the code that printed it, where the two fit:
    no break inside either, none between the code and its output or after the output's label."""
    printed.goto(site_url + "first_trace/", wait_until="load")
    rules = printed.evaluate("""() => {
      const output = document.querySelector(".exec-output");
      const code = output.previousElementSibling;
      const label = output.querySelector(":scope > .filename");
      return { code: getComputedStyle(code).breakAfter, codeInside: getComputedStyle(code).breakInside,
               label: getComputedStyle(label).breakAfter, output: getComputedStyle(output).breakInside };
    }""")
    assert rules == {"code": "avoid", "codeInside": "avoid", "label": "avoid", "output": "avoid"}, rules
