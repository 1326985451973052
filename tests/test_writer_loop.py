"""The writer's loop: caches that make rebuilds fast never hide a change.

Each case builds a throwaway site with the reference cache (thunder-refcache), the
links cache (thunder-links' cache_dir) and the build cache (thunder-buildcache: page
conversions, highlighting, templates) on, changes one thing, and checks that the next
build shows it: a docstring option, a package version, the navigation, a page that others
link to. Under `mkdocs serve`, an edited page is served with its new text.
"""

import re
import subprocess
import sys
import time
import urllib.request

from conftest import mkdocs_env
from thunder_docs.plugins.refcache import plugin as reference_cache
from thunder_docs.plugins.refcache.plugin import ReferenceCache

API_PAGE = "# API\n\n::: thunder.core.trace.from_trace\n"
INDEX = "# Home\n\nCopy a trace with [`from_trace`][thunder.core.trace.from_trace].\n"


def site(throwaway, options=None, nav=None, api=API_PAGE, index=INDEX):
    plugins = (
        {"thunder-links": {"cache_dir": ".cache/links"}},
        "autorefs",
        {"mkdocstrings": {"handlers": {"python": {"options": {"show_if_no_docstring": True, **(options or {})}}}}},
        {"thunder-refcache": {"cache_dir": ".cache/reference"}},
        {"thunder-buildcache": {"cache_dir": ".cache/build"}},
    )
    extra = {"nav": nav} if nav else {}
    return throwaway.write({"docs/index.md": index, "docs/api.md": api}, exec_options={}, plugins=plugins, **extra)


def build(throwaway) -> str:
    proc = throwaway.build()
    assert proc.returncode == 0, proc.stdout
    return proc.stdout


def reused(log: str) -> tuple[int, int]:
    match = re.search(r"API reference: (\d+) entries reused, (\d+) rendered", log)
    assert match, log
    return int(match[1]), int(match[2])


def api_html(throwaway) -> str:
    return (throwaway.folder / "site" / "api" / "index.html").read_text()


def test_a_warm_build_reuses_the_reference_and_shows_the_same_page(throwaway):
    assert reused(build(site(throwaway))) == (0, 1)
    first = api_html(throwaway)
    assert reused(build(throwaway)) == (1, 0)
    assert api_html(throwaway) == first


def test_a_changed_docstring_option_renders_the_entry_again(throwaway):
    build(site(throwaway))
    heading = 'id="thunder.core.trace.from_trace" class="doc doc-heading"'
    assert heading not in api_html(throwaway)
    log = build(site(throwaway, options={"show_root_heading": True}))
    assert reused(log) == (0, 1)
    assert heading in api_html(throwaway)


def test_a_new_package_version_changes_every_key(monkeypatch, tmp_path):
    before = ReferenceCache(tmp_path, []).key("thunder.jit", {"a": 1}, None)
    for package in ("lightning-thunder", "mkdocstrings-python", "griffe", "ruff"):
        real = reference_cache.distribution_version
        monkeypatch.setattr(reference_cache, "distribution_version",
                            lambda dist, package=package, real=real: "9.9.9" if dist == package else real(dist))
        assert ReferenceCache(tmp_path, []).key("thunder.jit", {"a": 1}, None) != before, package
        monkeypatch.undo()
    assert ReferenceCache(tmp_path, []).key("thunder.jit", {"a": 1}, None) == before
    assert ReferenceCache(tmp_path, []).key("thunder.jit", {"a": 2}, None) != before


def test_a_navigation_change_shows_on_a_warm_build(throwaway):
    build(site(throwaway, nav=[{"Overview": "index.md"}, {"API": "api.md"}]))
    build(site(throwaway, nav=[{"Start here": "index.md"}, {"API": "api.md"}]))
    html = (throwaway.folder / "site" / "index.html").read_text()
    assert "Start here" in html and "Overview" not in html


def test_a_page_that_others_link_to_still_breaks_their_links_when_it_changes(throwaway):
    build(site(throwaway))
    site(throwaway, api="# API\n\n::: thunder.core.trace.TraceCtx\n")  # from_trace is gone
    log = throwaway.failed_build()
    assert "Could not find cross-reference target 'thunder.core.trace.from_trace'" in log


def test_an_edited_page_is_served_with_its_new_text(throwaway, tmp_path):
    site(throwaway)
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
                            cwd=throwaway.folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=mkdocs_env())
    try:
        url = _served_at(proc)
        assert "Copy a trace" in _get(url)
        (throwaway.folder / "docs" / "index.md").write_text(INDEX + "\nA sentence added while serving.\n")
        deadline = time.monotonic() + 120
        while "A sentence added while serving." not in _get(url):
            assert time.monotonic() < deadline, "the edited page was never served"
            time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _served_at(proc) -> str:
    for line in proc.stdout:
        if match := re.search(r"Serving on (\S+)", line):
            return match[1]
    raise AssertionError("mkdocs serve never said where it serves")


def _get(url: str) -> str:
    return urllib.request.urlopen(url, timeout=30).read().decode()


def test_a_changed_appended_file_renders_the_entries_again(throwaway):
    """pymdownx.snippets appends the glossary's abbreviations to docstrings too."""
    site(throwaway, api="# API\n\n::: thunder.core.trace.from_trace\n")
    (throwaway.folder / "abbreviations.md").write_text("*[trace]: A first definition.\n")
    yml = (throwaway.folder / "mkdocs.yml").read_text().replace(
        "- pymdownx.snippets\n", "- abbr\n- pymdownx.snippets:\n    auto_append: [abbreviations.md]\n")
    (throwaway.folder / "mkdocs.yml").write_text(yml)
    build(throwaway)
    assert reused(build(throwaway))[1] == 0
    (throwaway.folder / "abbreviations.md").write_text("*[trace]: A second definition.\n")
    assert reused(build(throwaway)) == (0, 1)
