"""Reuse mkdocs-jupyter's conversion of a notebook that was converted before.

mkdocs-jupyter converts each notebook to HTML with nbconvert on every build (its own cache is
off with a custom template, which this site uses): about half a second for the tour, and
converts it to Markdown once more for its table of contents. ``install`` replaces
``mkdocs_jupyter.convert.nb2html`` and ``nb2md``, which its plugin calls, with functions that
look the result up first.

A conversion's key hashes the notebook's bytes and path (thunder-exec hands over the
executed copy), every option the plugin passes, the custom template's name and the text of
every file in its folder, the users' nbconvert config files and Jupyter's template folders,
and the versions of mkdocs-jupyter, nbconvert, nbformat, mistune, Pygments and
jupyterlab_pygments. The images a notebook embeds are checked as mkdocs-jupyter checks its
own cache: an entry whose images changed is converted again. A conversion that said
anything (messages.py) is not kept, so it says it again on the next build.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from thunder_docs.plugins.buildcache.messages import Messages
from thunder_docs.plugins.buildcache.wrapping import replace_attribute
from thunder_docs.shared.contracts import Contract
from thunder_docs.shared.files import JsonStore, digest, portable
from thunder_docs.shared.versions import distribution_version

CONTRACT = Contract("the notebook cache (thunder-buildcache notebooks)", {
    # convert.nb2html / nb2md looked up at call time; image_dependencies; "Converting notebook" logged
    "mkdocs-jupyter": ("0.27.0",),
    "nbconvert": ("7.17.2",),  # where it reads config files and templates (_jupyter_setup)
})
PROGRESS = ("mkdocs.mkdocs-jupyter", "Converting notebook")  # its INFO line for each conversion
PACKAGES = ("mkdocs-jupyter", "nbconvert", "nbformat", "mistune", "pygments", "jupyterlab_pygments")


def _jupyter_setup() -> list:
    """What nbconvert reads besides its arguments: the users' nbconvert config files (their
    text) and the files of Jupyter's template folders (name, size, time)."""
    from jupyter_core.paths import jupyter_config_path, jupyter_path

    configs = [[str(p), digest(p.read_bytes())] for folder in jupyter_config_path()
               for p in (Path(folder) / "jupyter_nbconvert_config.json", Path(folder) / "jupyter_nbconvert_config.py")
               if p.is_file()]
    templates = [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for folder in jupyter_path("nbconvert", "templates")
                 if Path(folder).is_dir() for p in sorted(Path(folder).rglob("*")) if p.is_file()]
    return [configs, templates]


def _folder_text(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): digest(p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file()}


class NotebookCache:
    def __init__(self, directory: Path, root: Path):
        self.store = JsonStore(directory)
        self.root = root
        self.context = json.dumps({p: distribution_version(p) for p in PACKAGES}, sort_keys=True)
        self.hits = self.misses = 0

    def key(self, path: str, options: dict, function: str = "nb2html") -> str:
        template = options.get("custom_template")
        folder = _folder_text(Path(template).parent) if template else {}
        rest = {k: v for k, v in options.items() if k not in ("custom_template", "image_dependencies")}
        # Images resolve from the notebook's folder and the template's name.
        where = [portable(str(Path(path).resolve()), self.root), Path(template).name if template else None]
        return digest(self.context, function, json.dumps([rest, where, folder, _jupyter_setup()], sort_keys=True,
                                                         default=repr), Path(path).read_bytes())

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
            with Messages(progress=PROGRESS) as said:  # what nbconvert says ("alternative text...") is said again
                html = nb2html(nb_path, **{**options, "image_dependencies": found})
            if said.keep:
                self.store.put(key, {"html": html, "images": found})
            return html

        return cached_nb2html

    def wrap_markdown(self, nb2md: Callable[..., str]) -> Callable[..., str]:
        def cached_nb2md(nb_path, *args, **options) -> str:
            key = self.key(str(nb_path), {"args": args, **options}, "nb2md")
            markdown = self.store.get(key)
            if markdown is None:
                with Messages(progress=PROGRESS) as said:
                    markdown = nb2md(nb_path, *args, **options)
                if said.keep:
                    self.store.put(key, markdown)
            return markdown

        return cached_nb2md


def install(cache: NotebookCache | None) -> None:
    """Make mkdocs-jupyter use ``cache`` (None: nbconvert every build, as before)."""
    import mkdocs_jupyter.convert as module

    replace_attribute(module, "nb2html", cache.wrap if cache is not None else None)
    replace_attribute(module, "nb2md", cache.wrap_markdown if cache is not None else None)
