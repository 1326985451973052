"""(f) The built pages as HTML: the Nu HTML checker on every page, and the tour's styles in Chromium.

The Nu checker (npm `vnu-jar`, run with Debian's Java) checks every built page in one run.
Its errors are sorted by whose markup they are in: Material's own templates (each listed
below with why it is Material's, and left), our diagrams' SVGs (drawn by Mermaid,
plugins/diagrams), and the rest, ours. Ours fail `test_our_markup_is_valid_html`; the
diagrams' fail `test_diagrams_are_valid_html`. The figures are printed at the end of the run.
"""

from __future__ import annotations

import html.parser
import json
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import material_pages

from .harness import ROOT, doc_pages

pytestmark = pytest.mark.xdist_group("browser")

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"  # from the npm registry (package.json)
JAVA = "/usr/bin/java"  # Debian's

# Errors in Material's own templates: (message, what the markup it is found in starts with, why it is Material's).
MATERIAL = [
    ("Attribute “autocomplete” is only allowed when the input type is", '<input class="md-toggle"',
     "Material's base.html: the drawer and search toggles are <input type=checkbox autocomplete=off> "
     "(autocomplete keeps Firefox from restoring their state)"),
    ("Bad value “” for attribute “tabindex” on element “label”", '<label class="md-nav__link"',
     "Material's partials/nav-item.html: with navigation.sections, a section's label gets tabindex=\"\" "
     "(the value is left empty for labels that are not focusable)"),
]


class _Diagrams(html.parser.HTMLParser):
    """Where each diagram (a `div` with class `diagram`) starts and ends: (line, column) pairs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.spans: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self._start = None
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        if tag != "div":
            return
        if self._start is not None:
            self._depth += 1
        elif "diagram" in (dict(attrs).get("class") or "").split():
            self._start, self._depth = self.getpos(), 1

    def handle_endtag(self, tag):
        if tag == "div" and self._start is not None:
            self._depth -= 1
            if self._depth == 0:
                self.spans.append((self._start, self.getpos()))
                self._start = None


def _diagram_spans(path: Path) -> list:
    parser = _Diagrams()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.spans


def _material(message: dict) -> str | None:
    for text, markup, why in MATERIAL:
        if message["message"].startswith(text) and markup in message.get("extract", ""):
            return why
    return None


@pytest.fixture(scope="module")
def checked(built_site, html_report):
    """The Nu checker's errors on every built page, sorted: {"ours": [...], "diagrams": [...], "material": [...]}."""
    if not VNU.is_file():
        pytest.fail(f"{VNU} is missing: run `scripts/dev setup` (npm ci installs vnu-jar)")
    pages = material_pages(built_site)
    proc = subprocess.run([JAVA, "-Xss4m", "-jar", str(VNU), "--format", "json", "--errors-only", *map(str, pages)],
                          capture_output=True, text=True, timeout=600)
    messages = json.loads(proc.stderr)["messages"]  # the checker writes its report to stderr
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    sorted_ = {"ours": [], "diagrams": [], "material": []}
    spans = {}
    for message in messages:
        path = Path(message["url"].removeprefix("file:"))
        message["page"] = path.relative_to(built_site).as_posix()
        if path not in spans:
            spans[path] = _diagram_spans(path)
        where = (message.get("lastLine", 0), message.get("lastColumn", 0) - 1)
        if _material(message):
            sorted_["material"].append(message)
        elif any(start <= where <= end for start, end in spans[path]):
            sorted_["diagrams"].append(message)
        else:
            sorted_["ours"].append(message)
    for page in pages:
        name = page.relative_to(built_site).as_posix()
        html_report[name] = {kind: sum(m["page"] == name for m in found) for kind, found in sorted_.items()}
    return sorted_


def _listing(messages: list[dict], limit: int = 30) -> str:
    counts = Counter(m["message"] for m in messages)
    lines = [f"{n} x {text}" for text, n in counts.most_common()]
    lines += [f"{m['page']}:{m.get('lastLine')}: {m['message'][:120]} in {m.get('extract', '').strip()[:100]!r}"
              for m in messages[:limit]]
    return "\n  ".join(lines)


def test_our_markup_is_valid_html(checked):
    """No error from the Nu checker outside Material's templates and our diagrams' SVGs."""
    assert not checked["ours"], f"{len(checked['ours'])} HTML errors in our markup:\n  " + _listing(checked["ours"])


def test_diagrams_are_valid_html(checked):
    """No error inside a diagram's SVG (Mermaid's drawing, plugins/diagrams)."""
    assert not checked["diagrams"], (f"{len(checked['diagrams'])} HTML errors inside diagrams:\n  "
                                     + _listing(checked["diagrams"], 10))


def test_material_errors_are_the_listed_ones(checked):
    """The errors left to Material are each of a listed kind (the list says why each is Material's)."""
    kinds = {text for text, _, _ in MATERIAL}
    assert all(any(m["message"].startswith(k) for k in kinds) for m in checked["material"])


# -- the tour's styles ------------------------------------------------------------------------
TOUR = next(p for p in doc_pages() if p.source.endswith(".ipynb"))
STYLES_JS = """() => [...document.querySelectorAll("style")].map((style) => ({
  text: style.textContent,
  kept: style.sheet ? [...style.sheet.cssRules].map((rule) => rule.selectorText || rule.cssText.split("{")[0].trim()) : null,
}))"""
# A keyword of a code cell: Pygments' rule makes it bold, and notebook.css gives it the site's keyword colour.
KEYWORD_JS = """() => {
  const keyword = document.querySelector(".jupyter-wrapper .highlight-ipynb .k");
  const probe = document.body.appendChild(document.createElement("span"));
  probe.style.color = "var(--md-code-hl-keyword-color)";
  const want = getComputedStyle(probe).color;
  probe.remove();
  return keyword && { weight: getComputedStyle(keyword).fontWeight, color: getComputedStyle(keyword).color, want };
}"""


def _top_level_rules(css: str) -> int:
    """How many rules a stylesheet's text holds at its top level (an @media block is one)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    depth = rules = 0
    for char in css:
        if char == "{":
            rules += depth == 0
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
    return rules


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_tours_styles_are_css_the_browser_keeps(request, scheme, site_url):
    """Every `<style>` on the tour's page is CSS: the browser keeps each of its rules, none is a
    Python list's repr, and Pygments' token rules apply to the code cells."""
    tab = request.getfixturevalue(scheme)
    tab.goto(site_url + TOUR.url, wait_until="load")
    styles = tab.evaluate(STYLES_JS)
    assert styles, f"{TOUR.source} has no <style>"
    for index, style in enumerate(styles, 1):
        head = style["text"].strip()[:80]
        assert not head.startswith("["), f"{TOUR.source}: <style> {index} holds a Python list: {head!r}"
        written = _top_level_rules(style["text"])
        assert style["kept"] is not None and len(style["kept"]) == written, (
            f"{TOUR.source}: <style> {index} ({head!r}) has {written} rules; the browser kept "
            f"{len(style['kept'] or [])}")
    kept = [rule for style in styles for rule in style["kept"]]
    assert ".highlight-ipynb .k" in kept, f"{TOUR.source}: Pygments' rules are not among the kept ones"
    # The first cells get their highlighting back once the page has started (thunder-lazyhighlight).
    tab.wait_for_selector(".jupyter-wrapper .highlight-ipynb .k", state="attached", timeout=5000)
    keyword = tab.evaluate(KEYWORD_JS)
    assert keyword and keyword["weight"] == "700" and keyword["color"] == keyword["want"], keyword
