"""Draw Mermaid diagrams with Mermaid itself, in headless Chromium driven by Playwright.

One browser and one blank page serve a whole build: Mermaid's bundle is loaded once, then
each diagram is drawn with ``mermaid.render`` in the theme of its scheme. Only diagrams
without a drawn SVG are drawn, so a build whose diagrams are all drawn starts no browser.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from .fences import THEMES, Diagram

HOW_TO_GET_A_BROWSER = (
    "Drawing a new or changed diagram needs Chromium: install it (Debian or Ubuntu: "
    "`sudo apt-get install chromium`; `scripts/dev setup` does it) or point $CHROMIUM at a "
    "Chromium or Chrome binary, run `scripts/dev setup` (Playwright and Mermaid), build again "
    "and commit the new files in {directory}/. Diagrams already drawn need no browser.")

RENDER_JS = """async ({ id, text, theme, themeVariables, font }) => {
  mermaid.initialize({ startOnLoad: false, theme, themeVariables, securityLevel: "strict", fontFamily: font,
                       deterministicIds: true, deterministicIDSeed: id });
  try {
    const { svg } = await mermaid.render(id, text);
    return { svg };
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
    scheme: str  # "light" or "dark"
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


def draw(jobs: list[Job], *, mermaid_js: Path, chromium: str, font: str, timeout: float,
         directory: str) -> dict[str, str]:
    """Each job's SVG by key. Raises DrawError naming every diagram that failed."""
    need = f"{len(jobs)} drawing(s) are missing from {directory}/, first {jobs[0].diagram.where}"
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

    drawn, errors = {}, []
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
            for job in jobs:
                result = page.evaluate(RENDER_JS, {"id": job.key, "text": job.diagram.text,
                                                   **THEMES[job.scheme], "font": font})
                if "error" in result:
                    errors.append(_describe(job.diagram, result["error"]))
                    continue
                svg = _scope_ids(result["svg"], job.key)
                if "<title" not in svg or "<desc" not in svg:
                    errors.append(f"{job.diagram.where}: Mermaid drew no <title> or <desc> for this diagram; "
                                  "give it `accTitle:` and `accDescr:`")
                    continue
                drawn[job.key] = svg
        finally:
            browser.close()
    if errors:
        raise DrawError("\n".join(dict.fromkeys(errors)))
    return drawn


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
