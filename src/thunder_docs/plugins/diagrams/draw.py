"""Draw Mermaid diagrams with Mermaid itself, in headless Chromium driven by Playwright.

One browser and one blank page serve a whole build: Mermaid's bundle is loaded once, then
each diagram is drawn once with ``mermaid.render``, in the light theme, with SVG text labels
(``htmlLabels: false``). Each type of diagram is also drawn small in both themes (``PROBES``), for
the rules its diagrams share (svg.py). Only diagrams without a drawn SVG are drawn, so a build
whose diagrams are all drawn starts no browser.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import svg as svgs
from .fences import MERMAID_CONFIG, THEMES, Diagram

# Per type of diagram (as Mermaid names it on the SVG): a small diagram of that type. Drawn in
# both themes, its stylesheet gives the rules every diagram of the type shares.
PROBES = {
    "flowchart-v2": "flowchart LR\n    accTitle: a\n    accDescr: b\n    A -- label --> B",
    "class": "classDiagram\n    accTitle: a\n    accDescr: b\n    class A {\n        field\n    }",
    "sequence": "sequenceDiagram\n    accTitle: a\n    accDescr: b\n    A->>B: m",
}

HOW_TO_GET_A_BROWSER = (
    "Drawing a new or changed diagram needs Chromium: install it (Debian or Ubuntu: "
    "`sudo apt-get install chromium`; `scripts/dev setup` does it) or point $CHROMIUM at a "
    "Chromium or Chrome binary, run `scripts/dev setup` (Playwright and Mermaid), build again "
    "and commit the new files in {directory}/. Diagrams already drawn need no browser.")

# Draws one diagram; also measures its smallest label (the size a reader must be able to read).
RENDER_JS = """async ({ id, text, theme, themeVariables, font, config }) => {
  mermaid.initialize({ startOnLoad: false, theme, themeVariables, securityLevel: "strict", fontFamily: font,
                       deterministicIds: true, deterministicIDSeed: id, ...config });
  try {
    const { svg } = await mermaid.render(id, text);
    const holder = document.createElement("div");
    holder.innerHTML = svg;
    document.body.append(holder);
    const sizes = [...holder.querySelectorAll("text")].filter((t) => t.textContent.trim())
      .map((t) => parseFloat(getComputedStyle(t).fontSize));
    return { svg, font: sizes.length ? Math.min(...sizes) : 16 };
  } catch (error) {
    return { error: String(error && error.message || error) };
  } finally {
    document.querySelectorAll("body > :not(script)").forEach((node) => node.remove());
  }
}"""


class DrawError(Exception):
    """A diagram could not be drawn; the message names the page and line."""


@dataclass(frozen=True)
class Job:
    diagram: Diagram
    key: str  # the SVG's file name (without .svg) and element id


def find_chromium(configured: str) -> str | None:
    """The browser to draw with: the option, else $CHROMIUM, else one on PATH."""
    explicit = configured or os.environ.get("CHROMIUM", "")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    return None


def draw(jobs: list[Job], kinds: list[str], *, mermaid_js: Path, chromium: str, font: str,
         timeout: float, directory: str) -> tuple[dict[str, str], dict[str, str]]:
    """Each job's SVG by key, and by type the rules its diagrams share (``svg.type_stylesheet``), for
    the types in ``kinds`` and those of the jobs. Raises DrawError naming every diagram that failed."""
    need = (f"{len(jobs)} drawing(s) are missing from {directory}/, first {jobs[0].diagram.where}" if jobs
            else f"the shared styles of {', '.join(kinds)} diagrams are missing from {directory}/")
    browser_path = find_chromium(chromium)
    if browser_path is None:
        looked = chromium or os.environ.get("CHROMIUM") or "chromium, chromium-browser, google-chrome on PATH"
        raise DrawError(f"{need}; no browser found ({looked}). "
                        + HOW_TO_GET_A_BROWSER.format(directory=directory))
    if not mermaid_js.is_file():
        raise DrawError(f"{need}; Mermaid is not installed ({mermaid_js} is missing): run `scripts/dev setup`")
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise DrawError(f"{need}; Playwright is not installed: run `scripts/dev setup`. "
                        + HOW_TO_GET_A_BROWSER.format(directory=directory)) from None

    drawn, errors, sheets = {}, [], {}
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=browser_path, args=["--no-sandbox", "--disable-gpu"])
        except PlaywrightError as error:
            raise DrawError(f"{need}; {browser_path} did not start: {str(error).splitlines()[0]}. "
                            + HOW_TO_GET_A_BROWSER.format(directory=directory)) from None
        try:
            page = browser.new_page()
            page.set_default_timeout(timeout * 1000)
            page.set_content(f'<!doctype html><html><head></head><body style="font-family: {font}"></body></html>')
            page.add_script_tag(content=mermaid_js.read_text(encoding="utf-8"))
            shared: dict[str, list[str]] = {}  # type -> the light theme's rules of its probe

            def render(ident: str, text: str, scheme: str) -> dict:
                return page.evaluate(RENDER_JS, {"id": ident, "text": text, **THEMES[scheme], "font": font,
                                                 "config": MERMAID_CONFIG})

            def probe(kind: str) -> None:
                if kind not in PROBES:
                    raise DrawError(f"Mermaid drew a {kind!r} diagram, a type with no probe: add a small one to "
                                    "PROBES in src/thunder_docs/plugins/diagrams/draw.py")
                found = {s: svgs.rules(render("mmd-probe", PROBES[kind], s)["svg"], "mmd-probe") for s in THEMES}
                shared[kind] = found["light"]
                sheets[kind] = svgs.type_stylesheet(kind, found["light"], found["dark"])

            for kind in kinds:
                probe(kind)
            for job in jobs:
                result = render(job.key, job.diagram.text, "light")
                if "error" in result:
                    errors.append(_describe(job.diagram, result["error"]))
                    continue
                svg = _scope_ids(result["svg"], job.key)
                if "<title" not in svg or "<desc" not in svg:
                    errors.append(f"{job.diagram.where}: Mermaid drew no <title> or <desc> for this diagram; "
                                  "give it `accTitle:` and `accDescr:`")
                    continue
                if (kind := svgs.role(svg)) not in shared:
                    probe(kind)
                svg = svgs.compact(svgs.own_rules(svg, job.key, shared[kind]))
                # The smallest label's font size: the page's CSS keeps the drawing from shrinking under a
                # size a reader can read (plugin.py).
                smallest = f'{result["font"]:g}'
                drawn[job.key] = _MAX_WIDTH.sub(lambda m, f=smallest: f'style="max-width: {m.group(1)}px; '
                                                f'--mmd-w: {m.group(1)}; --mmd-f: {f}"', svg, count=1)
        finally:
            browser.close()
    if errors:
        raise DrawError("\n".join(dict.fromkeys(errors)))
    return drawn, sheets


_MAX_WIDTH = re.compile(r'style="max-width: ([\d.]+)px;"')
_ERROR_LINE = re.compile(r"(?:Parse error|Lexical error) on line (\d+)")


def _describe(diagram: Diagram, message: str) -> str:
    """Mermaid's error, with the line it names translated to a line of the page."""
    where = diagram.where
    if match := _ERROR_LINE.search(message):
        where = f"{diagram.page}:{diagram.line + int(match.group(1))}"
    detail = "\n    ".join(message.strip().splitlines())
    return f"{where}: Mermaid cannot draw the diagram that starts at line {diagram.line}:\n    {detail}"


_ID = re.compile(r'(?<![\w-])id="([^"]+)"')


def _scope_ids(svg: str, prefix: str) -> str:
    """Prefix every element id Mermaid left unprefixed (node and edge ids), and references to it.

    Two drawings on one page (the light and the dark variant, or two diagrams) would
    otherwise share ids such as ``flowchart-T-0``.
    """
    bare = sorted({i for i in _ID.findall(svg) if prefix not in i}, key=len, reverse=True)
    for old in bare:
        new = f"{prefix}-{old}"
        svg = re.sub(rf'((?<![\w-])id="|href="#|url\(#|aria-(?:labelledby|describedby)="){re.escape(old)}(?=["\)])',
                     lambda m, new=new: m.group(1) + new, svg)
    return svg
