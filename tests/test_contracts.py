"""What the build caches rely on in other packages, checked against the installed source.

Each wrapper of ``thunder-buildcache`` and ``thunder-refcache`` states the versions it was
verified with (``CONTRACT`` in its module). These tests check, one by one, the points each
wrapper relies on, reading the installed source with ``ast`` where it can: an upgrade that
breaks one fails here, not on a page. Then: a wrapper on a version it was not verified with
switches itself off with one warning; our wrappers leave a third-party ``__wrapped__`` alone;
a damaged entry reads as a miss; stores prune what no build used.
"""

from __future__ import annotations

import ast
import base64
import functools
import importlib
import inspect
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import ROOT, mkdocs_env
from thunder_docs.plugins.buildcache import highlight_cache, llms_cache, notebook_cache, page_cache, search_cache, wrapping
from thunder_docs.plugins.buildcache.plugin import TEMPLATES
from thunder_docs.plugins.refcache import plugin as refcache
from thunder_docs.shared import files
from thunder_docs.shared.contracts import Contract

CONTRACTS = [page_cache.CONTRACT, highlight_cache.CONTRACT, search_cache.CONTRACT, notebook_cache.CONTRACT,
             TEMPLATES, refcache.CONTRACT, llms_cache.CONTRACT]


def tree_of(obj) -> ast.AST:
    return ast.parse(textwrap.dedent(inspect.getsource(obj)))


def self_assignments(function) -> set[str]:
    """The attributes ``self.x = ...`` that a method sets (plain and tuple targets)."""
    found = set()
    for node in ast.walk(tree_of(function)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == "self":
                    found.add(leaf.attr)
    return found


def calls(tree: ast.AST) -> set[str]:
    """Every called name, as written: ``f``, ``self.f``, ``module.f``."""
    return {ast.unparse(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}


# -- the versions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda c: c.what)
def test_every_wrapper_was_verified_with_the_installed_versions(contract):
    """Otherwise the wrapper is off in this build: verify it (this file) and add the version."""
    assert contract.mismatches() == []


def test_a_version_that_was_not_verified_switches_the_wrapper_off_with_its_reason():
    contract = Contract("the x cache", {"pygments": ("0.0.1",)})
    message = contract.unverified_message()
    assert contract.mismatches() == [f"pygments {importlib.metadata.version('pygments')}"]
    assert message.startswith("the x cache is off: it was verified with pygments 0.0.1")
    assert Contract("the y cache", {"pygments": (importlib.metadata.version("pygments"),)}).unverified_message() is None


def test_a_build_on_an_unverified_version_warns_once_and_stays_correct(throwaway):
    """The page cache told it was verified with another MkDocs: off, one warning, the same page."""
    files_ = {"docs/index.md": "# Home\n\nSome *text*.\n"}
    plugins = ({"thunder-buildcache": {"cache_dir": ".cache/build"}},)
    throwaway.write(files_, exec_options=None, plugins=plugins, strict=False)  # strict stops at the warning
    on = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=throwaway.folder, capture_output=True,
                        text=True, timeout=300, env=mkdocs_env(SOURCE_DATE_EPOCH="1700000000"))
    assert on.returncode == 0 and "pages: 0 reused, 1 made" in on.stderr, on.stderr
    expected = (throwaway.folder / "site" / "index.html").read_text()
    shutil.rmtree(throwaway.folder / "site")
    script = ("import sys; from thunder_docs.plugins.buildcache import page_cache as p; "
              "from thunder_docs.shared.contracts import Contract; "
              "p.CONTRACT = Contract(p.CONTRACT.what, {'mkdocs': ('0.1',)}); "
              "from mkdocs.__main__ import cli; sys.exit(cli(['build']))")
    off = subprocess.run([sys.executable, "-c", script], cwd=throwaway.folder, capture_output=True, text=True,
                         timeout=300, env=mkdocs_env(SOURCE_DATE_EPOCH="1700000000"))
    assert off.returncode == 0, off.stderr
    warnings = [line for line in off.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1 and "the page cache (thunder-buildcache pages) is off" in warnings[0], off.stderr
    assert "pages:" not in off.stderr  # the page cache made and reused nothing
    assert (throwaway.folder / "site" / "index.html").read_text() == expected


# -- MkDocs (and ProperDocs): Page.render ---------------------------------------------------------
def page_classes():
    from mkdocs.structure.pages import Page

    found = [Page]
    if importlib.util.find_spec("properdocs") is not None:
        found.append(importlib.import_module("properdocs.structure.pages").Page)
    return found


@pytest.mark.parametrize("page_class", page_classes(), ids=lambda c: c.__module__)
def test_page_render_sets_exactly_the_fields_the_page_cache_replays(page_class):
    assert self_assignments(page_class.render) == set(page_cache.REPLAYED)
    replayed = {ast.unparse(t) for node in ast.walk(tree_of(page_cache.PageCache._replay))
                if isinstance(node, ast.Assign) for t in node.targets for t in ast.walk(t)
                if isinstance(t, ast.Attribute)}
    assert {f"page.{name}" for name in page_cache.REPLAYED} <= replayed


@pytest.mark.parametrize("page_class", page_classes(), ids=lambda c: c.__module__)
def test_page_render_collects_links_to_anchors_above_debug_as_the_page_cache_expects(page_class):
    """MkDocs skips collecting them at DEBUG (``--verbose``), ProperDocs does not: the page cache
    replays them by the rule of the package that runs (LINKS_SKIPPED_AT_DEBUG)."""
    tree = tree_of(page_class.render)
    guarded = [node for node in ast.walk(tree) if isinstance(node, ast.If)
               and "getEffectiveLevel" in ast.unparse(node.test) and "DEBUG" in ast.unparse(node.test)
               and "links_to_anchors" in ast.unparse(node)]
    package = page_class.__module__.split(".")[0]
    assert bool(guarded) == page_cache.LINKS_SKIPPED_AT_DEBUG[package]
    assert "links_to_anchors" in self_assignments(page_class.render)
    assert "log" in vars(inspect.getmodule(page_class))


# -- pymdown-extensions ---------------------------------------------------------------------------------
def test_snippets_reads_every_included_file_through_get_snippet_path():
    from pymdownx.snippets import SnippetPreprocessor

    opened_in = {name for name, member in vars(SnippetPreprocessor).items() if inspect.isfunction(member)
                 and {c for c in calls(tree_of(member)) if c in ("open", "codecs.open", "io.open")}}
    assert opened_in == {"read_lines"}  # the one method that opens a file
    readers = {name for name, member in vars(SnippetPreprocessor).items() if inspect.isfunction(member)
               and "self.read_lines" in calls(tree_of(member))}
    assert readers == {"parse_snippets"}  # ...called from one place, which finds the file first
    assert "self.get_snippet_path" in calls(tree_of(SnippetPreprocessor.parse_snippets))


def test_pymdownx_highlight_calls_the_module_global_highlight_from_pygments():
    import pymdownx.highlight as module

    tree = ast.parse(inspect.getsource(module))
    imports = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "pygments"]
    assert any(alias.name == "highlight" and alias.asname is None for node in imports for alias in node.names)
    assert "highlight" in calls(tree)
    assert list(inspect.signature(importlib.import_module("pygments").highlight).parameters) == \
        ["code", "lexer", "formatter", "outfile"]


# -- Material's search ----------------------------------------------------------------------------------
def test_material_search_only_appends_to_its_entries_while_it_indexes_pages():
    """The search cache takes a page's entries as what ``add_entry_from_context`` appended; only
    ``__init__`` and ``generate_search_index`` (after every page) set ``entries`` anew."""
    from material.plugins.search import plugin as search

    tree = ast.parse(inspect.getsource(search))
    index = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "SearchIndex")
    methods = {n.name: n for n in index.body if isinstance(n, ast.FunctionDef)}
    assert "add_entry_from_context" in methods
    setters = {name for name, method in methods.items() for node in ast.walk(method) if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Attribute) and t.attr == "entries" for t in node.targets)}
    assert setters == {"__init__", "generate_search_index"}
    parents = {id(child): node for node in ast.walk(index) for child in ast.iter_child_nodes(node)}
    for name in set(methods) - setters:
        uses = [n for n in ast.walk(methods[name]) if isinstance(n, ast.Attribute) and n.attr == "entries"]
        assert {parents[id(u)].attr for u in uses if isinstance(parents.get(id(u)), ast.Attribute)} <= {"append"}, name


# -- mkdocs-llmstxt --------------------------------------------------------------------------------------
def test_mkdocs_llmstxt_converts_each_page_through_its_module_global_generate_page_markdown():
    """The Markdown copy cache replaces ``_generate_page_markdown`` in the plugin's module: the hook
    looks the name up there when it runs, passes the options the key covers by name, and the
    function only returns the text (the hook writes the files in on_post_build)."""
    plugin = importlib.import_module(llms_cache.MODULE)

    hook = tree_of(plugin.MkdocsLLMsTxtPlugin.on_page_content)
    (call,) = [n for n in ast.walk(hook) if isinstance(n, ast.Call) and ast.unparse(n.func) == "_generate_page_markdown"]
    assert {k.arg for k in call.keywords} == {"should_autoclean", "preprocess", "path", "base_uri", "page_uri"}
    assert list(inspect.signature(plugin._generate_page_markdown).parameters) == \
        ["html", "should_autoclean", "preprocess", "path", "base_uri", "page_uri"]
    assert not {"open", "write_text", "write"} & {c.rpartition(".")[2] for c in calls(tree_of(plugin._generate_page_markdown))}


# -- mkdocs-jupyter and nbconvert -------------------------------------------------------------------------
def test_mkdocs_jupyter_looks_up_its_converters_at_call_time_and_logs_each_conversion():
    import mkdocs_jupyter.plugin as plugin
    from mkdocs_jupyter import convert, exporter_options

    source = inspect.getsource(plugin)
    assert {"convert.nb2html", "convert.nb2md"} <= calls(ast.parse(source))
    logger, progress = notebook_cache.PROGRESS
    converter = ast.parse(inspect.getsource(importlib.import_module("mkdocs_jupyter.nbconvert2")))
    strings = [ast.unparse(n) for n in ast.walk(converter) if isinstance(n, (ast.Constant, ast.JoinedStr))]
    assert any(s.strip("'\"").startswith(progress) or s.startswith(f"f'{progress}") or s.startswith(f'f"{progress}')
               for s in strings), "mkdocs-jupyter no longer logs its conversions as the notebook cache expects"
    assert f"getLogger('{logger}')" in ast.unparse(converter) or f'getLogger("{logger}")' in ast.unparse(converter)
    assert "image_dependencies" in inspect.signature(convert.nb2html).parameters
    assert callable(exporter_options.image_dependencies_valid)


def test_mkdocs_jupyter_converts_from_the_path_thunder_exec_hands_it_in_on_pre_page():
    """thunder-exec points ``page.file.abs_src_path`` at the executed copy (same file name) in its
    on_pre_page, at a higher priority: mkdocs-jupyter reads that path there, and matches its
    include patterns against it."""
    import mkdocs_jupyter.plugin as plugin

    from thunder_docs.plugins.exec.plugin import ExecPlugin

    source = ast.unparse(tree_of(plugin.Plugin.on_pre_page))
    assert "page.file.abs_src_path" in source and ".match(" in source
    assert getattr(plugin.Plugin.on_pre_page, "mkdocs_priority", 0) < ExecPlugin.on_pre_page.mkdocs_priority


# -- mkdocstrings and autorefs ------------------------------------------------------------------------
def test_mkdocstrings_reads_the_headings_with_get_headings_after_each_block():
    from mkdocstrings._internal import extension
    from mkdocstrings._internal.handlers.base import BaseHandler

    assert "handler.get_headings" in calls(tree_of(extension.AutoDocProcessor._process_headings))
    run = calls(tree_of(extension.AutoDocProcessor.run))
    assert {"self._process_block", "self._process_headings"} <= run
    assert {"collect", "render", "get_aliases", "get_headings"} <= set(dir(BaseHandler))


def test_autorefs_registers_anchors_with_the_page_first():
    from mkdocs_autorefs import AutorefsPlugin

    assert list(inspect.signature(AutorefsPlugin.register_anchor).parameters)[:2] == ["self", "page"]


# -- our own helpers ----------------------------------------------------------------------------------------
def test_our_wrappers_leave_a_third_party_wrapped_attribute_alone():
    class Owner:
        pass

    def original():
        return "original"

    @functools.wraps(original)
    def third_party():
        return "third party"

    Owner.f = third_party
    wrapping.replace_attribute(Owner, "f", lambda f: lambda: "ours " + f())
    assert Owner.f() == "ours third party"
    wrapping.replace_attribute(Owner, "f", lambda f: lambda: "ours again " + f())  # never wraps our wrapper
    assert Owner.f() == "ours again third party"
    wrapping.replace_attribute(Owner, "f", None)
    assert Owner.f is third_party and Owner.f.__wrapped__ is original


def test_a_damaged_entry_reads_as_a_miss():
    assert page_cache._loads("not base64 of a pickle") is None
    assert refcache._loads(base64.b64encode(b"\x80\x05garbage").decode()) is None
    assert page_cache._loads(base64.b64encode(__import__("pickle").dumps({"content": "x"})).decode()) == {"content": "x"}


def test_a_store_prunes_what_no_build_used_for_a_month(tmp_path):
    store = files.JsonStore(tmp_path)
    store.put("aa" + "0" * 62, 1)
    store.put("bb" + "0" * 62, 2)
    old = time.time() - (files.KEEP_DAYS + 1) * 86400
    for key in ("aa", "bb"):
        os.utime(store.path(key + "0" * 62), (old, old))
    assert store.get("bb" + "0" * 62) == 2  # used now: kept
    (tmp_path / ".pruned").unlink(missing_ok=True)
    files.JsonStore(tmp_path)
    assert not store.path("aa" + "0" * 62).exists()
    assert store.get("bb" + "0" * 62) == 2
    store.put("cc" + "0" * 62, 3)
    os.utime(store.path("cc" + "0" * 62), (old, old))
    files.JsonStore(tmp_path)  # pruned less than a day ago: nothing happens
    assert store.path("cc" + "0" * 62).exists()


# -- keys that travel ------------------------------------------------------------------------------------
def test_a_copy_of_the_checkout_in_another_folder_reuses_the_caches(built_site, tmp_path):
    """The session's build filled .cache/; a copy of the checkout elsewhere, with that cache,
    reuses every page, API entry and section output."""
    copy = tmp_path / "elsewhere"
    ignore = shutil.ignore_patterns(".git", "site", "site.partial*", "screenshots", "__pycache__")
    shutil.copytree(ROOT, copy, ignore=ignore, symlinks=True)
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
                          cwd=copy, capture_output=True, text=True, timeout=900, env=mkdocs_env())
    assert proc.returncode == 0, proc.stderr
    log = proc.stderr
    assert " 0 to run" in log, log
    assert "API reference: 0 entries reused" not in log and ", 0 rendered" in log, log
    pages = next(line for line in log.splitlines() if "build cache:" in line)
    assert "pages: 0 reused" not in pages and ", 0 made" in pages.split("pages:")[1], pages
