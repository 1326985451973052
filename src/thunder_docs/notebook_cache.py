"""Reuse mkdocs-jupyter's conversion of a notebook that was converted before.

mkdocs-jupyter converts each notebook to HTML with nbconvert on every build (its own cache is
off with a custom template, which this site uses): about half a second for the tour.
``install`` replaces ``mkdocs_jupyter.convert.nb2html``, which its plugin calls, with a
function that looks the result up first.

A conversion's key hashes the notebook's bytes (thunder-exec hands over the executed copy),
every option the plugin passes, the text of every file in the custom template's folder, and
the versions of mkdocs-jupyter, nbconvert, nbformat, mistune, Pygments and jupyterlab_pygments.
The images a notebook embeds are checked as mkdocs-jupyter checks its own cache: an entry
whose images changed is converted again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .files import JsonStore, digest
from .versions import distribution_version

PACKAGES = ("mkdocs-jupyter", "nbconvert", "nbformat", "mistune", "pygments", "jupyterlab_pygments")


def _folder_text(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): digest(p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


class NotebookCache:
    def __init__(self, directory: Path):
        self.store = JsonStore(directory)
        self.context = json.dumps({p: distribution_version(p) for p in PACKAGES}, sort_keys=True)
        self.hits = self.misses = 0

    def key(self, path: str, options: dict) -> str:
        template = options.get("custom_template")
        folder = _folder_text(Path(template).parent) if template else {}
        rest = {k: v for k, v in options.items() if k not in ("custom_template", "image_dependencies")}
        return digest(self.context, json.dumps([rest, folder], sort_keys=True, default=repr), Path(path).read_bytes())

    def wrap(self, nb2html: Callable[..., str]) -> Callable[..., str]:
        from mkdocs_jupyter.exporter_options import image_dependencies_valid

        def cached_nb2html(nb_path, **options) -> str:
            key = self.key(str(nb_path), options)
            entry = self.store.get(key)
            dependencies = options.get("image_dependencies")
            if entry is not None and image_dependencies_valid(entry["images"]):
                self.hits += 1
                if dependencies is not None:
                    dependencies.update(entry["images"])
                return entry["html"]
            self.misses += 1
            found: dict[str, str] = {} if dependencies is None else dependencies
            html = nb2html(nb_path, **{**options, "image_dependencies": found})
            self.store.put(key, {"html": html, "images": found})
            return html

        cached_nb2html.__wrapped__ = nb2html
        return cached_nb2html


def install(cache: NotebookCache | None) -> None:
    """Make mkdocs-jupyter use ``cache`` (None: nbconvert every build, as before)."""
    import mkdocs_jupyter.convert as module

    original = getattr(module.nb2html, "__wrapped__", module.nb2html)
    module.nb2html = cache.wrap(original) if cache is not None else original
