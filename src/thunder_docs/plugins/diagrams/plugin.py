"""The ``thunder-diagrams`` MkDocs plugin: Mermaid fences become inline SVG, drawn at build time.

Hooks, in the order MkDocs calls them:

- ``on_config``: read Mermaid's pinned version.
- ``on_files``: find every page's Mermaid fences in the site model (model.py), and the
  dataflow graphs that ``thunder-exec`` drew from trace objects (``<!-- exec: graph=... -->``),
  each with an accessible name and description (``accTitle``, ``accDescr``; a fence without
  them fails the build). So ``thunder-exec`` comes first in ``mkdocs.yml``. Draw the
  ones whose SVG is not in ``diagrams/`` yet, in one headless Chromium, and keep them there,
  with the rules each type of diagram shares in both schemes (``<key>.css``, svg.py). A syntax
  error fails the build naming the page and line. Then remove drawings no page uses. Add the
  stylesheet (``assets/`` and the shared rules) and the script. Keep each diagram's text by its
  id (``TEXTS``), for the Markdown copies of the pages (plugins/llms/preprocess.py).
- ``on_post_page``: replace each fence's placeholder (``fences.fence_format``) with its SVG, in a
  box that scrolls when the diagram is too wide to shrink into the column; load the stylesheet
  and the script (the full-size view, keyboard scrolling) on pages that have diagrams.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkDocsPage

from thunder_docs.shared.files import write_atomic
from thunder_docs.shared.model import Site, folder_of, site_of
from thunder_docs.shared.page_assets import with_script, with_stylesheet
from thunder_docs.shared.results import CPU

from .config import DiagramsConfig
from .draw import PROBES, DrawError, Job, draw
from .fences import Diagram, find_diagrams, key, missing_descriptions, style_key
from .svg import role

log = get_plugin_logger("thunder-diagrams")

ASSETS = Path(__file__).parent / "assets"
STYLESHEET = "assets/stylesheets/thunder-diagrams.css"
SCRIPT = "assets/javascripts/thunder-diagrams.js"
# This build's diagrams, text id -> Mermaid text (filled in on_files): the Markdown copies of the
# pages show a diagram as its Mermaid text (plugins/llms/preprocess.py), where the HTML has its SVG.
TEXTS: dict[str, str] = {}
_PLACEHOLDER = re.compile(r'<div class="(?P<cls>[^"]*)" data-diagram="(?P<id>[0-9a-f]{20})"></div>')


class DiagramsPlugin(BasePlugin[DiagramsConfig]):
    def __init__(self) -> None:
        self.root: Path | None = None
        self.directory: Path | None = None  # where drawn SVGs are kept
        self.mermaid_version = ""
        self.options: dict[str, str] = {}
        self.keys: dict[str, str] = {}  # diagram text id -> key
        self.svgs: dict[str, str] = {}  # key -> SVG, read once per build

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.root = folder_of(config)
        self.directory = self.root / self.config.directory
        self.mermaid_version = _pinned_mermaid(self.root / self.config.package_json)
        self.options = {"font": self.config.font_family}
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        problems = []
        for diagram in (diagrams := _diagrams(site_of(config))):
            if missing := missing_descriptions(diagram):
                problems.append(f"{diagram.where}: a diagram needs an accessible name and description; "
                                f"add {' and '.join(missing)} (a line each, after the diagram's type)")
        if problems:
            raise PluginError("thunder-diagrams: " + "\n".join(problems))

        self.keys = {}
        self.svgs = {}
        TEXTS.clear()
        jobs: dict[str, Job] = {}
        for diagram in diagrams:
            TEXTS[diagram.text_id] = diagram.text
            k = self.keys[diagram.text_id] = key(diagram.text, self.mermaid_version, self.options)
            if k not in jobs and not (self.directory / f"{k}.svg").is_file():
                jobs[k] = Job(diagram, k)
        used = set(self.keys.values())
        kinds = {role(self._svg(k)) for k in used - set(jobs)}
        missing = sorted(kind for kind in kinds if not (self.directory / f"{self._style_key(kind)}.css").is_file())
        if jobs or missing:
            self._check_installed_mermaid()
            try:
                drawn, sheets = draw(list(jobs.values()), missing, mermaid_js=self.root / self.config.mermaid_js,
                                     chromium=self.config.chromium, font=self.config.font_family,
                                     timeout=self.config.timeout, directory=self.config.directory)
            except DrawError as error:
                raise PluginError(f"thunder-diagrams: {error}") from None
            for k, svg in drawn.items():
                write_atomic(self.directory / f"{k}.svg", svg + "\n")
            for kind, sheet in sheets.items():
                write_atomic(self.directory / f"{self._style_key(kind)}.css", sheet)
        kinds = sorted({role(self._svg(k)) for k in used})
        styles = {f"{self._style_key(kind)}.css" for kind in kinds}
        log.info("%d diagrams, %d drawings: drew %d, reused %d from %s/",
                 len(self.keys), len(used), len(jobs), len(used) - len(jobs), self.config.directory)
        if self.config.prune and self.directory.is_dir():
            for stale in sorted(p for p in self.directory.glob("*.*") if p.suffix in (".svg", ".css")
                                and p.stem not in used and p.name not in styles):
                log.info("removing %s (no page uses it)", stale.relative_to(self.root))
                stale.unlink()
        css = (ASSETS / "thunder-diagrams.css").read_text(encoding="utf-8")
        css += "".join(f"/* {kind} */\n" + (self.directory / f"{self._style_key(kind)}.css").read_text(encoding="utf-8")
                       for kind in kinds)
        files.append(File.generated(config, STYLESHEET, content=css))
        files.append(File.generated(config, SCRIPT, abs_src_path=str(ASSETS / "thunder-diagrams.js")))
        return files

    def on_post_page(self, output: str, page: MkDocsPage, config: MkDocsConfig) -> str:
        if "data-diagram=" not in output:
            return output
        seen: Counter[str] = Counter()

        def fill(match: re.Match) -> str:
            k = self.keys.get(match.group("id"))
            if k is None:
                raise PluginError(f"thunder-diagrams: {page.file.src_uri}: a Mermaid diagram the plugin did not "
                                  "find in the page's file (is it in an included file?)")
            svg = self._svg(k)
            seen[k] += 1
            if seen[k] > 1:  # the same diagram twice on a page: keep ids unique
                svg = svg.replace(k, f"{k}-{seen[k]}")
            return f'<div class="{match.group("cls")}"><div class="diagram__scroll">{svg}</div></div>'

        output = _PLACEHOLDER.sub(fill, output)
        return with_script(with_stylesheet(output, STYLESHEET, page.url), SCRIPT, page.url)

    def _style_key(self, kind: str) -> str:
        if kind not in PROBES:
            raise PluginError(f"thunder-diagrams: a drawing in {self.config.directory}/ is a {kind!r} diagram, a type "
                              "with no probe: add a small one to PROBES in src/thunder_docs/plugins/diagrams/draw.py")
        return style_key(kind, PROBES[kind], self.mermaid_version, self.options)

    def _check_installed_mermaid(self) -> None:
        installed = self.root / self.config.mermaid_js
        manifest = installed.parent.parent / "package.json"
        if manifest.is_file():
            version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
            if version != self.mermaid_version:
                raise PluginError(f"thunder-diagrams: Mermaid {version} is installed, {self.config.package_json} "
                                  f"pins {self.mermaid_version}: run `scripts/dev setup` (npm ci)")

    def _svg(self, k: str) -> str:
        if k not in self.svgs:
            self.svgs[k] = (self.directory / f"{k}.svg").read_text(encoding="utf-8").strip()
        return self.svgs[k]


def _pinned_mermaid(package_json: Path) -> str:
    """Mermaid's version as package.json pins it (part of every key: an upgrade redraws)."""
    try:
        return json.loads(package_json.read_text(encoding="utf-8"))["dependencies"]["mermaid"]
    except (OSError, KeyError, ValueError) as error:
        raise PluginError(f"thunder-diagrams: cannot read Mermaid's version from {package_json}: {error}") from None


def _diagrams(site: Site) -> list[Diagram]:
    """The Mermaid fences of every page, and the graphs its code drew (when it ran)."""
    found = []
    for page in site.pages.values():
        found += find_diagrams(page.body, page.path, page.first_line)
        for inc in page.includes:
            if inc.graphs and site.results.has(CPU, page.path):
                where = inc.fence.start + page.first_line
                found += [Diagram(page.path, where, text)
                          for _, text in site.results.graphs(CPU, page.path, inc.sections[-1])]
    return found
