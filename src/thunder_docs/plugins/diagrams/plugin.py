"""The ``thunder-diagrams`` MkDocs plugin: Mermaid fences become inline SVG, drawn at build time.

Hooks, in the order MkDocs calls them:

- ``on_config``: read Mermaid's pinned version; add the plugin's stylesheet.
- ``on_files``: find every page's Mermaid fences in the site model (model.py), and the
  dataflow graphs that ``thunder-exec`` drew from trace objects (``<!-- exec: graph=... -->``),
  each with an accessible name and description (``accTitle``, ``accDescr``; a fence without
  them fails the build). So ``thunder-exec`` comes first in ``mkdocs.yml``. Draw the
  ones whose SVG is not in ``diagrams/`` yet, in one headless Chromium, and keep them there.
  A syntax error fails the build naming the page and line. Then remove SVGs no page uses.
- ``on_post_page``: replace each fence's placeholder (``fences.fence_format``) with its light
  and its dark SVG; the stylesheet shows the one of Material's current scheme.
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
from thunder_docs.shared.results import CPU

from .config import DiagramsConfig
from .draw import DrawError, Job, draw
from .fences import THEMES, Diagram, find_diagrams, key, missing_descriptions

log = get_plugin_logger("thunder-diagrams")

STYLESHEET = "assets/stylesheets/thunder-diagrams.css"
# Both variants are in the page; the scheme Material sets on <body> (before the page is
# painted, so nothing flashes) shows one. A hidden variant is also hidden from screen readers.
CSS = """\
.md-typeset .diagram { margin: 1em 0; text-align: center; }
.md-typeset .diagram svg { height: auto; }
.diagram__dark, [data-md-color-scheme="slate"] .diagram__light { display: none; }
[data-md-color-scheme="slate"] .diagram__dark { display: block; }
"""
_PLACEHOLDER = re.compile(r'<div class="(?P<cls>[^"]*)" data-diagram="(?P<id>[0-9a-f]{20})"></div>')


class DiagramsPlugin(BasePlugin[DiagramsConfig]):
    def __init__(self) -> None:
        self.root: Path | None = None
        self.directory: Path | None = None  # where drawn SVGs are kept
        self.mermaid_version = ""
        self.options: dict[str, str] = {}
        self.variants: dict[str, dict[str, str]] = {}  # diagram text id -> scheme -> key
        self.svgs: dict[str, str] = {}  # key -> SVG, read once per build

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.root = folder_of(config)
        self.directory = self.root / self.config.directory
        self.mermaid_version = _pinned_mermaid(self.root / self.config.package_json)
        self.options = {"font": self.config.font_family}
        if STYLESHEET not in config.extra_css:
            config.extra_css.append(STYLESHEET)
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        files.append(File.generated(config, STYLESHEET, content=CSS))
        problems = []
        for diagram in (diagrams := _diagrams(site_of(config))):
            if missing := missing_descriptions(diagram):
                problems.append(f"{diagram.where}: a diagram needs an accessible name and description; "
                                f"add {' and '.join(missing)} (a line each, after the diagram's type)")
        if problems:
            raise PluginError("thunder-diagrams: " + "\n".join(problems))

        self.variants: dict[str, dict[str, str]] = {}  # diagram text id -> scheme -> key
        jobs: dict[str, Job] = {}
        for diagram in diagrams:
            keys = {s: key(diagram.text, s, self.mermaid_version, self.options) for s in THEMES}
            self.variants[diagram.text_id] = keys
            for scheme, k in keys.items():
                if k not in jobs and not (self.directory / f"{k}.svg").is_file():
                    jobs[k] = Job(diagram, scheme, k)
        if jobs:
            self._check_installed_mermaid()
            try:
                drawn = draw(list(jobs.values()), mermaid_js=self.root / self.config.mermaid_js,
                             chromium=self.config.chromium, font=self.config.font_family,
                             timeout=self.config.timeout, directory=self.config.directory)
            except DrawError as error:
                raise PluginError(f"thunder-diagrams: {error}") from None
            for k, svg in drawn.items():
                write_atomic(self.directory / f"{k}.svg", svg + "\n")
        used = {k for keys in self.variants.values() for k in keys.values()}
        log.info("%d diagrams, %d drawings: drew %d, reused %d from %s/",
                 len(self.variants), len(used), len(jobs), len(used) - len(jobs), self.config.directory)
        if self.config.prune and self.directory.is_dir():
            for stale in sorted(p for p in self.directory.glob("*.svg") if p.stem not in used):
                log.info("removing %s (no page uses it)", stale.relative_to(self.root))
                stale.unlink()
        self.svgs: dict[str, str] = {}
        return files

    def on_post_page(self, output: str, page: MkDocsPage, config: MkDocsConfig) -> str:
        if "data-diagram=" not in output:
            return output
        seen: Counter[str] = Counter()

        def fill(match: re.Match) -> str:
            keys = self.variants.get(match.group("id"))
            if keys is None:
                raise PluginError(f"thunder-diagrams: {page.file.src_uri}: a Mermaid diagram the plugin did not "
                                  "find in the page's file (is it in an included file?)")
            parts = []
            for scheme, k in keys.items():
                svg = self._svg(k)
                seen[k] += 1
                if seen[k] > 1:  # the same diagram twice on a page: keep ids unique
                    svg = svg.replace(k, f"{k}-{seen[k]}")
                parts.append(f'<div class="diagram__{scheme}">{svg}</div>')
            return f'<div class="{match.group("cls")}">{"".join(parts)}</div>'

        return _PLACEHOLDER.sub(fill, output)

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
