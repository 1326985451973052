"""thunder-buildcache, thunder-cite's and thunder-traces' caches: a build that reuses their work
makes exactly the site a build without them makes, and a change reaches the page it affects."""

import re
import subprocess
import sys
from types import SimpleNamespace

import pygments
import pymdownx.highlight
import pytest
from mkdocs.commands.build import build as build_in_process
from mkdocs.config import load_config

from conftest import ROOT, mkdocs_env
from thunder_docs.plugins.buildcache import search_cache
from thunder_docs.plugins.buildcache.notebook_cache import NotebookCache

CACHES = ("BUILD", "CITATIONS", "TRACES", "LINKS", "LAZYHIGHLIGHT")


def counts(log: str, name: str) -> tuple[int, int]:
    match = re.search(rf"{name}: (\d+) reused, (\d+) made", log)
    assert match, f"no '{name}' counts in the log:\n{log}"
    return int(match[1]), int(match[2])


def files_of(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_site_built_from_the_caches_is_byte_identical_to_the_site_built_without(built_site, tmp_path):
    """Two builds of the real site, with these caches empty and then full (section outputs come
    from the output cache the built_site fixture filled): every file of the two sites is equal."""
    env = mkdocs_env(SOURCE_DATE_EPOCH="1700000000",
                     **{f"THUNDER_DOCS_{name}_CACHE_DIR": str(tmp_path / name.lower()) for name in CACHES})
    logs = []
    for run in ("cold", "warm"):
        proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / run)],
                              cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        logs.append(proc.stdout + proc.stderr)
    cold, warm = logs
    for name in ("search entries", "highlighted blocks", "notebooks", "templates", "pages", "Markdown copies"):
        assert counts(cold, name)[1] > 0, f"{name}: the cold build made nothing"
        if name in ("search entries", "notebooks", "pages", "Markdown copies"):  # one per page: nothing to reuse yet
            assert counts(cold, name)[0] == 0, name
        reused, made = counts(warm, name)
        assert made == 0, f"{name}: the warm build made {made}"
        # Blocks are highlighted while a page converts: a warm build reuses the conversions instead.
        assert reused > 0 or name == "highlighted blocks", f"{name}: the warm build reused nothing"
    assert files_of(tmp_path / "cold") == files_of(tmp_path / "warm")


# -- throwaway sites -----------------------------------------------------------------------------------
def cached_site(throwaway, files: dict[str, str], **config):
    plugins = ({"thunder-buildcache": {"cache_dir": ".cache/build"}}, "autorefs")
    return throwaway.write(files, exec_options=None, plugins=plugins, **config)


def built(throwaway) -> str:
    proc = throwaway.build()
    assert proc.returncode == 0, proc.stdout
    return proc.stdout


def test_an_edited_included_file_converts_the_page_again(throwaway):
    cached_site(throwaway, {"docs/index.md": '# Home\n\n--8<-- "part.md"\n', "part.md": "First text.\n"})
    assert counts(built(throwaway), "pages") == (0, 1)
    assert counts(built(throwaway), "pages") == (1, 0)
    (throwaway.folder / "part.md").write_text("Second text.\n")
    assert counts(built(throwaway), "pages") == (0, 1)
    assert "Second text." in (throwaway.folder / "site" / "index.html").read_text()


def test_a_page_keeps_its_autorefs_anchors_when_its_conversion_is_reused(throwaway):
    files = {"docs/index.md": "# Home\n\n## A special heading\n",
             "docs/other.md": "# Other\n\nSee [the heading][a-special-heading].\n"}
    cached_site(throwaway, files)
    built(throwaway)
    assert counts(built(throwaway), "pages") == (2, 0)  # strict: the reference resolved
    assert 'href="../#a-special-heading"' in (throwaway.folder / "site" / "other" / "index.html").read_text()
    (throwaway.folder / "docs" / "index.md").write_text("# Home\n\n## Another heading\n")
    assert "Could not find cross-reference target 'a-special-heading'" in throwaway.failed_build()


def test_a_conversion_that_logs_is_never_reused(throwaway):
    cached_site(throwaway, {"docs/index.md": "# Home\n\nSee [a page](missing.md).\n"},
                validation={"links": {"not_found": "info"}})
    for _ in range(2):
        log = built(throwaway)
        assert counts(log, "pages") == (0, 1)
        assert "missing.md" in log  # said on every build


def test_a_new_file_converts_every_page_again(throwaway):
    """Relative links are resolved against the site's files: any change to them changes every key."""
    cached_site(throwaway, {"docs/index.md": "# Home\n\nSee [the other page](other.md).\n",
                            "docs/other.md": "# Other\n"})
    built(throwaway)
    (throwaway.folder / "docs" / "third.md").write_text("# Third\n")
    assert counts(built(throwaway), "pages") == (0, 3)


def test_pygments_and_snippets_are_put_back_after_a_build(throwaway):
    from pymdownx.snippets import SnippetPreprocessor

    original_path = SnippetPreprocessor.get_snippet_path
    cached_site(throwaway, {"docs/index.md": "# Home\n\n```python\nx = 1\n```\n"})
    build_in_process(load_config(str(throwaway.folder / "mkdocs.yml"), site_dir=str(throwaway.folder / "site")))
    assert pymdownx.highlight.highlight is pygments.highlight
    assert SnippetPreprocessor.get_snippet_path is original_path
    assert "x" in (throwaway.folder / "site" / "index.html").read_text()


# -- keys ----------------------------------------------------------------------------------------------------
def test_a_notebook_key_covers_the_notebook_the_options_and_the_template_folder(tmp_path):
    notebook, template = tmp_path / "nb.ipynb", tmp_path / "template" / "page.html.j2"
    template.parent.mkdir()
    notebook.write_text("{}")
    template.write_text("a")
    cache = NotebookCache(tmp_path / "cache", tmp_path)
    key = cache.key(str(notebook), {"custom_template": str(template), "theme": "light"})
    assert cache.key(str(notebook), {"custom_template": str(template), "theme": "dark"}) != key
    (template.parent / "notebook.css").write_text("p {}")
    assert cache.key(str(notebook), {"custom_template": str(template), "theme": "light"}) != key
    notebook.write_text('{"cells": []}')
    assert cache.key(str(notebook), {"custom_template": str(template), "theme": "light"}) not in (key,)


@pytest.mark.parametrize("change", ["content", "url", "title", "meta", "toc"])
def test_a_search_key_covers_what_material_indexes(change):
    def page(**changed):
        toc = SimpleNamespace(items=[SimpleNamespace(id="a", url="#a", title="A", children=[])])
        fields = {"content": "<h1>A</h1>", "url": "a/", "title": "A", "meta": {}, "toc": toc, **changed}
        return SimpleNamespace(**fields)

    other = {"content": "<h1>B</h1>", "url": "b/", "title": "B", "meta": {"search": {"boost": 2}},
             "toc": SimpleNamespace(items=[])}
    assert search_cache.page_key(page(), "ctx") != search_cache.page_key(page(**{change: other[change]}), "ctx")


def test_a_new_package_version_changes_every_cache_key(monkeypatch, throwaway, tmp_path):
    from mkdocs.structure.files import Files

    from thunder_docs.plugins.buildcache import highlight_cache, notebook_cache, page_cache

    cached_site(throwaway, {"docs/index.md": "# Home\n"})
    config = load_config(str(throwaway.folder / "mkdocs.yml"))
    makers = {
        page_cache: (lambda: page_cache.PageCache(tmp_path, config, Files([])).context, page_cache.PACKAGES),
        search_cache: (lambda: search_cache.SearchCache(tmp_path, {}).context, ("mkdocs-material", "jieba")),
        highlight_cache: (lambda: highlight_cache.HighlightCache(tmp_path).context, ("pygments", "pymdown-extensions")),
        notebook_cache: (lambda: notebook_cache.NotebookCache(tmp_path, tmp_path).context, notebook_cache.PACKAGES),
    }
    for module, (context, packages) in makers.items():
        before = context()
        for package in packages:
            real = module.distribution_version
            monkeypatch.setattr(module, "distribution_version",
                                lambda dist, package=package, real=real: "9.9.9" if dist == package else real(dist))
            assert context() != before, f"{module.__name__}: {package}"
            monkeypatch.undo()
        assert context() == before


# -- what a conversion says, and conversions that are not kept ------------------------------------------------
def test_a_verbose_build_keeps_no_conversion_so_anchors_are_checked_later(throwaway):
    """With --verbose MkDocs does not collect the links it checks anchors with."""
    cached_site(throwaway, {"docs/index.md": "# Home\n\nSee [a heading](other.md#nope).\n", "docs/other.md": "# Other\n"},
                validation={"anchors": "warn"})
    throwaway.build("--verbose")
    proc = throwaway.build()
    assert proc.returncode != 0 and "nope" in proc.stdout, proc.stdout


def test_a_quiet_build_keeps_no_conversion_so_warnings_are_said_later(throwaway):
    """With -q MkDocs makes no warning records at all: a conversion cannot be seen to be silent."""
    cached_site(throwaway, {"docs/index.md": "# Home\n\nSee [a page](missing.md).\n"})
    throwaway.build("-q")
    proc = throwaway.build()
    assert proc.returncode != 0 and "missing.md" in proc.stdout, proc.stdout


def test_an_excluded_page_converts_the_pages_that_link_to_it_again(throwaway):
    files = {"docs/index.md": "# Home\n\nSee [the other page](other.md).\n", "docs/other.md": "# Other\n"}
    cached_site(throwaway, files)
    built(throwaway)
    cached_site(throwaway, files, exclude_docs="other.md")
    log = built(throwaway)
    assert counts(log, "pages") == (0, 1) and "excluded" in log


API_PLUGINS = ({"thunder-buildcache": {"cache_dir": ".cache/build"}}, "autorefs",
               {"mkdocstrings": {"handlers": {"python": {"paths": ["."]}}}})
MODULE = 'def f():\n    """A function."""\n'


@pytest.mark.parametrize("page, extra", [
    ("# Home\n\n## ::: mod.f\n", {}),  # mkdocstrings' heading form
    ('# Home\n\n--8<-- "api.md"\n', {"api.md": "::: mod.f\n"}),  # an entry from an included file
])
def test_a_page_with_api_entries_is_never_reused(throwaway, page, extra):
    """mkdocstrings fills its inventory (objects.inv) while converting: such a page converts every build."""
    throwaway.write({"docs/index.md": page, "mod.py": MODULE, **extra}, plugins=API_PLUGINS)
    inventories = []
    for _ in range(2):
        reused, _made = counts(built(throwaway), "pages")
        assert reused == 0
        inventories.append((throwaway.folder / "site" / "objects.inv").read_bytes())
    assert inventories[0] == inventories[1]


def test_messages_keep_a_result_only_if_nothing_was_said():
    import logging

    from thunder_docs.plugins.buildcache.messages import Messages

    level = logging.getLogger("mkdocs").level
    logging.getLogger("mkdocs").setLevel(logging.INFO)
    try:
        _check_messages(Messages)
    finally:
        logging.getLogger("mkdocs").setLevel(level)


def _check_messages(Messages):
    import logging
    import warnings

    with Messages() as said:
        pass
    assert said.keep
    with Messages() as said:
        logging.getLogger("mkdocs.plugins.x").info("a link to missing.md")
    assert not said.keep
    with Messages(progress=("mkdocs.x", "Converting")) as said:
        logging.getLogger("mkdocs.x").info("Converting a notebook")
    assert said.keep
    with pytest.warns(DeprecationWarning, match="old"), Messages() as said:  # shown after, as usual
        warnings.warn("old", DeprecationWarning, stacklevel=1)
    assert not said.keep
    logging.getLogger("mkdocs").setLevel(logging.ERROR)  # mkdocs build -q
    with Messages() as said:
        pass
    assert not said.keep


def test_a_highlight_key_covers_what_a_formatter_keeps_outside_its_options(tmp_path):
    from pygments.lexers import PythonLexer
    from pymdownx.highlight import BlockHtmlFormatter

    from thunder_docs.plugins.buildcache.highlight_cache import HighlightCache

    cache = HighlightCache(tmp_path)
    assert cache.key("x = 1", PythonLexer(), BlockHtmlFormatter(linenos="pymdownx-inline")) != \
        cache.key("x = 1", PythonLexer(), BlockHtmlFormatter(linenos="inline"))


def test_a_notebook_key_covers_which_template_of_the_folder(tmp_path):
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text("{}")
    (tmp_path / "one.html.j2").write_text("a")
    (tmp_path / "two.html.j2").write_text("b")
    cache = NotebookCache(tmp_path / "cache", tmp_path)
    assert cache.key(str(notebook), {"custom_template": str(tmp_path / "one.html.j2")}) != \
        cache.key(str(notebook), {"custom_template": str(tmp_path / "two.html.j2")})


def test_wrapped_puts_an_objects_attribute_back_exactly():
    from thunder_docs.plugins.buildcache.wrapping import wrapped

    class Plugin:
        def register(self, x):
            return x

    plugin, calls = Plugin(), []

    def make(original):
        return lambda x: calls.append(x) or original(x)

    with wrapped(plugin, "register", make):
        assert plugin.register(1) == 1
    assert calls == [1] and "register" not in vars(plugin)  # the class's method again, no copy left
    plugin.register = own = lambda x: -x
    with wrapped(plugin, "register", make):
        assert plugin.register(2) == -2
    assert plugin.register is own
