"""Offer each page's code for download: as a Jupyter notebook and as the snippet file.

A small MkDocs plugin (``thunder-downloads`` in ``mkdocs.yml``):

- ``on_files``: for every page that shows snippet sections, generate
  ``downloads/<page>.ipynb`` (the page's headings as markdown cells, each of its code
  blocks as a code cell, in page order) and add a copy of its snippet file as
  ``downloads/<page>.py``. The includes come from the site model (model.py), the
  same parse the build executes, so the notebook runs exactly the code the page shows,
  in the same order, in one kernel: it prints what the page shows.
- ``on_page_content``: put "Download as notebook" and "Download .py" links under the
  page's title.

A notebook under ``docs/`` (the guided tour, rendered by mkdocs-jupyter) is offered as
``downloads/<name>.ipynb``, as stored: without outputs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import nbformat
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page as MkDocsPage

from thunder_docs.plugins.downloads.config import DownloadsConfig
from thunder_docs.shared.fences import iter_fences
from thunder_docs.shared.model import Page, site_of

_HEADING = re.compile(r"^(?P<level>#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*$")
_ATTR_LIST = re.compile(r"\s*\{[^{}]*\}\s*$")
_H1_END = re.compile(r"</h1>", re.I)

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


@dataclass(frozen=True)
class Download:
    notebook: str  # site URI of the notebook
    script: str | None = None  # site URI of the snippet file's copy
    snippet: str | None = None  # the snippet file, repo-relative


def headings(markdown: str) -> list[tuple[int, int, str]]:
    """(0-based line, level, text) of each ATX heading outside code fences and front matter."""
    lines = markdown.split("\n")
    skip: set[int] = set()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
        skip.update(range(0, end + 1))
    for fence in iter_fences(markdown):
        skip.update(range(fence.start, fence.end + 1))
    found = []
    for number, line in enumerate(lines):
        match = _HEADING.match(line)
        if match and number not in skip:
            found.append((number, len(match["level"]), _ATTR_LIST.sub("", match["text"])))
    return found


def make_notebook(page: Page) -> nbformat.NotebookNode:
    """The notebook of a page that shows code: its headings and code blocks, in page order."""
    markdown, includes, snippet = page.body, page.includes, page.snippet
    items: list[tuple[int, str, str]] = [(n, "markdown", "#" * level + " " + text)
                                         for n, level, text in headings(markdown)]
    items += [(inc.fence.start, "code", inc.code) for inc in includes]
    items.sort(key=lambda item: item[0])
    note = (f"The code of this page, from `{snippet}`. Run the cells in order: "
            "each prints what the page shows under its code block.")
    cells = [(kind, text) for _, kind, text in items]
    title_first = bool(cells) and cells[0][0] == "markdown" and cells[0][1].startswith("# ")
    cells.insert(1 if title_first else 0, ("markdown", note))
    # Plain dicts, validated once below (nbformat's new_*_cell validate each cell: slow).
    notebook = nbformat.from_dict({
        "nbformat": 4, "nbformat_minor": nbformat.v4.nbformat_minor,
        "metadata": {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}},
        "cells": [_cell(kind, text, f"cell-{number}") for number, (kind, text) in enumerate(cells)],
    })
    nbformat.validate(notebook)
    return notebook


def _cell(kind: str, source: str, ident: str) -> dict:
    """A cell as nbformat 4 writes it; the stable id keeps the notebook the same from build to build."""
    if kind == "code":
        return {"cell_type": "code", "id": ident, "metadata": {}, "execution_count": None, "outputs": [],
                "source": source}
    return {"cell_type": "markdown", "id": ident, "metadata": {}, "source": source}


class DownloadsPlugin(BasePlugin[DownloadsConfig]):
    def __init__(self) -> None:
        self.downloads: dict[str, Download] = {}  # page src_uri -> its downloads

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        site = site_of(config)
        self.downloads = {}
        for notebook in site.notebooks.values():
            uri = f"{self.config.folder}/{notebook.src_uri}"
            # As content, not as a source path: that would make it a notebook page again.
            files.append(File.generated(config, uri, content=notebook.abs_path.read_bytes()))
            self.downloads[notebook.src_uri] = Download(uri)
        for page in site.with_code:
            stem = f"{self.config.folder}/{page.id}"
            download = Download(f"{stem}.ipynb", f"{stem}.py", page.snippet)
            files.append(File.generated(config, download.notebook,
                                        content=nbformat.writes(make_notebook(page)) + "\n"))
            files.append(File.generated(config, download.script, abs_src_path=str(site.root / page.snippet)))
            self.downloads[page.src_uri] = download
        return files

    def on_page_content(self, html: str, page: MkDocsPage, config: MkDocsConfig, files: Files) -> str:
        download = self.downloads.get(page.file.src_uri)
        if download is None:
            return html
        links = []
        for uri, label in ((download.notebook, "Download as notebook"), (download.script, "Download .py")):
            if uri is None:
                continue
            target = files.get_file_from_path(uri)
            name = uri.rpartition("/")[2]
            links.append(f'<a class="md-button page-download" href="{target.url_relative_to(page.file)}" '
                         f'download="{name}">{label}</a>')
        block = f'<p class="page-downloads">{" ".join(links)}</p>'
        match = _H1_END.search(html)
        if match is None:
            return block + "\n" + html
        return html[:match.end()] + "\n" + block + html[match.end():]
