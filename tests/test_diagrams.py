"""Diagrams drawn at build time (thunder-diagrams): drawn once, reused without a browser,
clear failures for a missing browser, a syntax error and a missing accessible name.

Each case builds a throwaway site in a temporary folder, with the repository's Mermaid.
A build that must not draw gets CHROMIUM pointing at no file: it can only succeed by
reusing the SVGs already drawn.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from conftest import DOCS, ROOT
from thunder_docs.plugins.diagrams.config import DiagramsConfig
from thunder_docs.plugins.diagrams.draw import PROBES
from thunder_docs.plugins.diagrams.fences import find_diagrams, key, style_key
from thunder_docs.plugins.diagrams.plugin import _pinned_mermaid
from thunder_docs.plugins.diagrams.svg import role

NO_BROWSER = {"CHROMIUM": "/nonexistent/chromium"}

MKDOCS_YML = f"""\
site_name: throwaway
strict: true
plugins:
  - thunder-exec:  # builds the site model that thunder-diagrams reads
      preload: []
      approve: false
  - thunder-diagrams:
      mermaid_js: {ROOT / "node_modules/mermaid/dist/mermaid.min.js"}
      package_json: {ROOT / "package.json"}
markdown_extensions:
  - attr_list
  - pymdownx.superfences:
      custom_fences:
        - name: mermaid
          class: diagram
          format: !!python/name:thunder_docs.plugins.diagrams.fence_format
"""

PAGE = """\
# A page

Some text.

```mermaid
flowchart LR
    accTitle: Two boxes
    accDescr: A points to B.
    A["first box"] --> B["second box"]
```
"""


def build(throwaway, page: str, **env: str):
    return throwaway.write_yml(MKDOCS_YML, {"docs/index.md": textwrap.dedent(page)}).build(**env)


def drew(log: str) -> int:
    match = re.search(r"thunder-diagrams: \d+ diagrams, \d+ drawings: drew (\d+)", log)
    assert match, f"the build did not report its diagrams:\n{log}"
    return int(match.group(1))


def test_a_diagram_is_drawn_once_then_reused_without_a_browser(throwaway, tmp_path):
    cold = build(throwaway, PAGE)
    assert cold.returncode == 0, cold.stdout
    assert drew(cold.stdout) == 1, cold.stdout  # one drawing for both schemes
    svgs = sorted((tmp_path / "diagrams").glob("*.svg"))
    assert len(svgs) == 1
    # The rules every flowchart shares, for each scheme, are kept beside it and served in the stylesheet.
    styles = sorted((tmp_path / "diagrams").glob("*.css"))
    assert len(styles) == 1
    shared = styles[0].read_text()
    assert '[data-md-color-scheme="default"] .diagram svg[aria-roledescription="flowchart-v2"]' in shared
    assert '[data-md-color-scheme="slate"] .diagram svg[aria-roledescription="flowchart-v2"]' in shared
    assert shared in (tmp_path / "site" / "assets" / "stylesheets" / "thunder-diagrams.css").read_text()

    html = (tmp_path / "site" / "index.html").read_text()
    assert "mermaid.min.js" not in html and "data-diagram=" not in html
    drawings = re.findall(r'<div class="diagram__scroll"><svg id="(mmd-[0-9a-f]+)"', html)
    assert len(drawings) == 1, drawings
    for svg_id in drawings:
        assert f'aria-labelledby="chart-title-{svg_id}"' in html
        assert f'<title id="chart-title-{svg_id}">Two boxes</title>' in html
        assert f'<desc id="chart-desc-{svg_id}">A points to B.</desc>' in html
    # SVG text labels, no HTML inside the SVG (Mermaid's HTML labels put a <p> in a <span>).
    assert "<foreignObject" not in html and ">first box</tspan>" in html
    assert "thunder-diagrams.js" in html and "thunder-diagrams.css" in html
    ids = re.findall(r'(?<![\w-])id="([^"]+)"', html)
    assert len(ids) == len(set(ids)), f"duplicate ids: {sorted(i for i in set(ids) if ids.count(i) > 1)}"

    warm = build(throwaway, PAGE, **NO_BROWSER)
    assert warm.returncode == 0, warm.stdout
    assert drew(warm.stdout) == 0, warm.stdout
    assert sorted((tmp_path / "diagrams").glob("*.svg")) == svgs
    shown = re.compile(r'<div class="diagram">.*?</svg></div></div>', re.S)
    assert sorted((tmp_path / "diagrams").glob("*.css")) == styles
    assert shown.findall((tmp_path / "site" / "index.html").read_text()) == shown.findall(html) != []


def test_a_changed_diagram_without_a_browser_says_a_browser_is_needed(throwaway, tmp_path):
    assert build(throwaway, PAGE).returncode == 0
    changed = build(throwaway, PAGE.replace("second box", "third box"), **NO_BROWSER)
    assert changed.returncode != 0
    assert "drawing(s) are missing from diagrams/, first docs/index.md:5" in changed.stdout, changed.stdout
    assert "no browser found (/nonexistent/chromium)" in changed.stdout
    assert "Drawing a new or changed diagram needs Chromium" in changed.stdout
    assert "sudo apt-get install chromium" in changed.stdout


def test_a_syntax_error_names_the_page_and_line(throwaway, tmp_path):
    broken = PAGE.replace('A["first box"] --> B["second box"]', 'A["first box"] --> --> B[')
    proc = build(throwaway, broken)
    assert proc.returncode != 0
    # The fence opens on line 5; the bad line is the diagram's 4th, line 9 of the page.
    assert "docs/index.md:9: Mermaid cannot draw the diagram that starts at line 5" in proc.stdout, proc.stdout
    assert "Parse error on line 4" in proc.stdout
    assert not list((tmp_path / "diagrams").glob("*.svg"))


@pytest.mark.parametrize("drop,missing", [("accTitle", "accTitle: <its name>"), ("accDescr", "accDescr: <what it shows>")])
def test_a_diagram_without_a_name_or_description_fails(throwaway, drop, missing):
    page = "\n".join(line for line in PAGE.split("\n") if not line.strip().startswith(drop))
    proc = build(throwaway, page, **NO_BROWSER)
    assert proc.returncode != 0
    assert f"docs/index.md:5: a diagram needs an accessible name and description; add {missing}" in proc.stdout, proc.stdout


def test_a_diagram_inside_another_fence_is_text():
    page = "````markdown\n```mermaid\nflowchart LR\n```\n````\n\n~~~mermaid\nflowchart LR\n~~~\n"
    assert [d.line for d in find_diagrams(page, "p.md")] == [7]


def test_every_diagram_of_the_site_is_drawn_and_committed():
    """A writer without Chromium can build the site: each diagram's SVGs are in diagrams/."""
    defaults = DiagramsConfig()
    defaults.load_dict({})
    assert not defaults.validate()[0]
    version = _pinned_mermaid(ROOT / defaults.package_json)
    options = {"font": defaults.font_family}
    diagrams = [d for page in sorted(DOCS.rglob("*.md"))
                for d in find_diagrams(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())]
    assert diagrams, "no Mermaid fence in docs/"
    drawings = {d.where: ROOT / defaults.directory / f"{key(d.text, version, options)}.svg" for d in diagrams}
    missing = [where for where, svg in drawings.items() if not svg.is_file()]
    assert not missing, "not drawn yet (run `scripts/dev build` and commit diagrams/): " + ", ".join(missing)
    kinds = {role(svg.read_text(encoding="utf-8")) for svg in drawings.values()}
    unstyled = [kind for kind in kinds
                if not (ROOT / defaults.directory / f"{style_key(kind, PROBES[kind], version, options)}.css").is_file()]
    assert not unstyled, f"the shared styles of {unstyled} diagrams are not drawn yet (run `scripts/dev build`)"
    # Mermaid reads Markdown in labels: `__call__` would show as a bold "call" (write #95; for "_"),
    # and SVG labels show an entity as typed (the build decodes it).
    typed = [f"{d.where}: {m}" for d in diagrams
             for m in re.findall(r"&amp;(?:#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);", drawings[d.where].read_text(encoding="utf-8"))]
    assert not typed, f"an entity shown as typed in a drawing: {typed}"
    bold = [f"{d.where}: {name}" for d in diagrams for name in re.findall(r"__(\w+?)__", d.text.replace("#95;", "_"))
            if re.search(rf'font-weight="bold"[^>]*>\s*{name}<', drawings[d.where].read_text(encoding="utf-8"))]
    assert not bold, f"a dunder name drawn in bold: {bold}"
