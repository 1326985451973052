"""The Mermaid fences of a page, and the name (cache key) of each drawing.

A diagram is drawn once, for both colour schemes (svg.py). Its key hashes the diagram's text,
the Mermaid themes and configuration, Mermaid's version and the drawing options, so a drawn SVG
is reused only when nothing that could change it has changed.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass

from thunder_docs.shared.fences import iter_fences
from thunder_docs.shared.files import digest, unframed_digest

# Our scheme -> Mermaid's theme and the variables changed in it. Material names the
# dark scheme "slate". The dark theme's edge labels sit on #585858, where its #ccc text reads
# at 3.9:1; on #383a45 it reads at 7:1 (WCAG AA asks 4.5:1).
THEMES = {
    "light": {"theme": "default", "themeVariables": {}},
    "dark": {"theme": "dark", "themeVariables": {"edgeLabelBackground": "#383a45"}},
}
# Mermaid's configuration for every drawing: labels are SVG text, which scales with the drawing
# and is valid HTML (HTML labels put a <p> in a <span> in a <foreignObject>). SVG labels read
# Markdown (`*italic*`; a line that starts with `# ` or `+ ` needs `#8203;` before it, or Mermaid
# fails) and wrap at `wrappingWidth`, inside a word too: 400 px holds our longest names.
MERMAID_CONFIG = {"htmlLabels": False, "flowchart": {"htmlLabels": False, "wrappingWidth": 400}}
# Bump when the way an SVG is drawn or post-processed changes: every diagram is redrawn.
FORMAT = 6

_ACC_TITLE = re.compile(r"^\s*accTitle\s*:\s*\S", re.M)
_ACC_DESCR = re.compile(r"^\s*accDescr\s*(:\s*\S|\{)", re.M)


@dataclass(frozen=True)
class Diagram:
    page: str  # the page's path, as shown in messages (docs/concepts/trace.md)
    line: int  # the line of the opening fence, counted from 1
    text: str  # the diagram, normalized (see `normalize`)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def text_id(self) -> str:
        return text_id(self.text)


def normalize(source: str) -> str:
    """A diagram's text without its fence's indentation, trailing spaces or blank edges."""
    lines = [line.rstrip() for line in textwrap.dedent(source.expandtabs(4)).split("\n")]
    return "\n".join(lines).strip("\n")


def text_id(text: str) -> str:
    """The id of a diagram's placeholder in the page's HTML (filled with its drawings after rendering)."""
    return digest(normalize(text))[:20]


def key(text: str, mermaid_version: str, options: dict) -> str:
    """The cache key of a diagram's drawing: also the SVG's file name and its element id.

    Hashed unframed (files.unframed_digest), as the drawings in diagrams/ always were."""
    payload = json.dumps({"text": normalize(text), "themes": THEMES, "config": MERMAID_CONFIG,
                          "mermaid": mermaid_version, "options": options, "format": FORMAT}, sort_keys=True)
    return "mmd-" + unframed_digest(payload)[:20]


def style_key(kind: str, probe: str, mermaid_version: str, options: dict) -> str:
    """The cache key of the rules that every diagram of a type shares (``<key>.css`` in diagrams/)."""
    payload = json.dumps({"kind": kind, "probe": probe, "themes": THEMES, "config": MERMAID_CONFIG,
                          "mermaid": mermaid_version, "options": options, "format": FORMAT}, sort_keys=True)
    return "mmd-style-" + unframed_digest(payload)[:20]


def find_diagrams(markdown: str, page: str, first_line: int = 1) -> list[Diagram]:
    """Every ```mermaid (or ~~~mermaid) fence of a page; fences inside other fences are text.

    ``first_line``: the line of the page's file that ``markdown`` starts at (after front matter).
    """
    found = []
    for fence in iter_fences(markdown):
        if fence.lang == "mermaid":
            body = [line[len(fence.indent):] if line.startswith(fence.indent) else line for line in fence.body]
            found.append(Diagram(page, fence.start + first_line, normalize("\n".join(body))))
    return found


def missing_descriptions(diagram: Diagram) -> list[str]:
    """What the diagram lacks of an accessible name (accTitle) and description (accDescr)."""
    missing = []
    if not _ACC_TITLE.search(diagram.text):
        missing.append("accTitle: <its name>")
    if not _ACC_DESCR.search(diagram.text):
        missing.append("accDescr: <what it shows>")
    return missing


def fence_format(source, language, class_name, options, md, **kwargs) -> str:
    """pymdownx.superfences' formatter for ```mermaid: a placeholder the plugin fills with SVG.

    The SVG goes in after the page is rendered (``on_post_page``), so the search index and
    the other plugins never see it.
    """
    return f'<div class="{class_name}" data-diagram="{text_id(source)}"></div>'
