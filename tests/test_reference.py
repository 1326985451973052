"""The API reference: an entry for each class and function the pages use, a note that links
to the explaining page where Thunder has no docstring, and strict failure on a broken
cross-reference (shown with throwaway builds)."""

import re
import textwrap
from functools import cache

import griffe
import pytest
from bs4 import BeautifulSoup

from conftest import DOCS
from thunder_docs.plugins.links.names import API

REFERENCE = sorted((DOCS / "reference").glob("*.md"))
# Every class that the site's pages and the content brief name, and the functions they call.
REQUIRED = [
    "thunder.core.trace.TraceCtx", "thunder.core.trace.tracectx", "thunder.core.trace.from_trace",
    "thunder.core.trace.TraceProvenance", "thunder.core.trace.TraceTag",
    "thunder.core.symbol.Symbol", "thunder.core.symbol.BoundSymbol", "thunder.core.symbol.BoundSymbolTag",
    "thunder.core.prims.PrimIDs",
    "thunder.core.proxies.Proxy", "thunder.core.proxies.TensorProxy", "thunder.core.proxies.NumberProxy",
    "thunder.core.proxies.IntegerProxy", "thunder.core.proxies.FloatProxy", "thunder.core.proxies.CollectionProxy",
    "thunder.core.codeutils.SigInfo", "thunder.core.transform_common.Transform",
    "thunder.last_traces", "thunder.last_backward_traces", "thunder.last_prologue_traces",
    "thunder.compile_stats", "thunder.examine",
]


def blocks(page):
    """(identifier, text up to the next block) for each `::: identifier` of a reference page."""
    text = page.read_text(encoding="utf-8")
    found = list(re.finditer(r"^::: ([\w.]+)$", text, re.M))
    return [(m[1], text[m.end():found[i + 1].start() if i + 1 < len(found) else len(text)])
            for i, m in enumerate(found)]


IDENTIFIERS = {ident: (page, after) for page in REFERENCE for ident, after in blocks(page)}


@cache
def thunder_package():
    return griffe.load("thunder", allow_inspection=False)


def docstring_of(identifier: str) -> str:
    """Thunder's docstring of an object, as mkdocstrings reads it (statically)."""
    obj = thunder_package()[identifier.removeprefix("thunder.")]
    return (obj.docstring.value if obj.docstring else "").strip()


def test_every_required_object_has_an_entry():
    assert set(REQUIRED) <= set(IDENTIFIERS), sorted(set(REQUIRED) - set(IDENTIFIERS))


def test_every_linked_api_name_has_an_entry():
    """The names that `thunder_docs.plugins.links.plugin` turns into cross-references are all documented."""
    documented = set(IDENTIFIERS) | {f"thunder.examine.{name}" for name in ("examine", "get_fusions", "get_fusion_symbols")}
    assert set(API) <= documented, sorted(set(API) - documented)


@pytest.mark.parametrize("identifier", sorted(IDENTIFIERS))
def test_each_entry_links_to_the_page_that_explains_it(identifier):
    page, after = IDENTIFIERS[identifier]
    note = re.search(r'^!!! note "([^"]*)"\n((?:    .*\n?|\n)*)', after, re.M)
    assert note, f"{page.name}: no note after ::: {identifier}"
    if not docstring_of(identifier):
        assert note[1].startswith("No docstring"), f"{identifier}: say that Thunder has no docstring"
    if identifier != "thunder.common.CompileStats":
        assert re.search(r"\]\(\.\./(concepts|guides)/[\w/]+\.md(#[\w-]+)?\)|\]\(\.\./first_trace\.md\)", note[2]), \
            f"{identifier}: the note links no concept or guide page"


@pytest.mark.parametrize("identifier", sorted(IDENTIFIERS))
def test_each_entry_shows_its_signature_and_source(built_site, identifier):
    page, _ = IDENTIFIERS[identifier]
    html = BeautifulSoup((built_site / "reference" / page.stem / "index.html").read_text(encoding="utf-8"),
                         "html.parser")
    heading = html.find(id=identifier)
    assert heading is not None, f"no entry {identifier} in reference/{page.stem}"
    source = heading.select_one("a.doc-source-link")
    assert source and source["href"].startswith("https://github.com/Lightning-AI/lightning-thunder/blob/0.2.6/thunder/")
    if not identifier.endswith(("examine", "PrimIDs", "TraceTag", "BoundSymbolTag", "VISIT_TYPE", "get_grad")):
        entry = heading.find_parent(class_="doc-object")
        assert entry.select_one(".doc-signature"), f"{identifier}: no signature"


# -- throwaway builds: a broken cross-reference fails the strict build ------------------------------


PLUGINS = ("thunder-links", "autorefs",
           {"mkdocstrings": {"handlers": {"python": {"options": {"show_if_no_docstring": True}}}}})


def failed_build(throwaway, pages: dict[str, str]) -> str:
    throwaway.write({f"docs/{name}": textwrap.dedent(text) for name, text in pages.items()}, plugins=PLUGINS)
    return throwaway.failed_build()


def build(throwaway, pages: dict[str, str]):
    throwaway.write({f"docs/{name}": textwrap.dedent(text) for name, text in pages.items()}, plugins=PLUGINS)
    proc = throwaway.build()
    return proc, proc.stdout


def test_a_resolved_reference_builds(throwaway):
    proc, log = build(throwaway, {
        "index.md": "# Page\n\nCopy with `from_trace`, see [the entry][thunder.core.trace.from_trace].\n",
        "api.md": "# API\n\n::: thunder.core.trace.from_trace\n",
    })
    assert proc.returncode == 0, log
    html = (throwaway.folder / "site" / "index.html").read_text()
    assert html.count('href="api/#thunder.core.trace.from_trace"') == 2


def test_a_broken_explicit_reference_fails_the_strict_build(throwaway):
    log = failed_build(throwaway, {
        "index.md": "# Page\n\nSee [the entry][thunder.core.trace.NoSuchThing].\n",
        "api.md": "# API\n\n::: thunder.core.trace.from_trace\n",
    })
    assert "Could not find cross-reference target 'thunder.core.trace.NoSuchThing'" in log


def test_an_api_name_without_an_entry_fails_the_strict_build(throwaway):
    """`TraceCtx` in prose links to its entry: without the entry, the build fails."""
    log = failed_build(throwaway, {
        "index.md": "# Page\n\nA `TraceCtx` holds bound symbols.\n",
        "api.md": "# API\n\n::: thunder.core.trace.from_trace\n",
    })
    assert "Could not find cross-reference target 'thunder.core.trace.TraceCtx'" in log


def test_the_docstring_of_analyze_thunder_splits_reads_as_its_note_says():
    """reference/dynamo.md leaves this docstring out and says why: its lines have no indentation in
    common, so none is removed, and Markdown reads a code block that ends just before the first line
    at column 0, inside `print(f"fwd_trace:`, and the rest as one paragraph."""
    import markdown

    docstring = thunder_package()["dynamo.report.analyze_thunder_splits"].docstring  # as mkdocstrings reads it
    sections = docstring.parse("google")
    assert [s.kind.value for s in sections] == ["text"]
    lines = [line for line in sections[0].value.splitlines() if line.strip()]
    assert min(len(line) - len(line.lstrip()) for line in lines) == 0  # no common indentation to remove
    extensions = ["admonition", "attr_list", "md_in_html", "tables", "pymdownx.details", "pymdownx.highlight",
                  "pymdownx.superfences", "pymdownx.tabbed"]  # the block-level extensions of mkdocs.yml
    body = BeautifulSoup(markdown.markdown(sections[0].value, extensions=extensions), "html.parser")
    blocks = [child for child in body.children if getattr(child, "name", None)]
    assert [b.name for b in blocks] == ["div", "p"]  # one code block, then one paragraph
    # read statically, as mkdocstrings does, the summary line keeps its indentation: it is in the code block
    assert blocks[0].get_text().startswith("Generates a :class:`ThunderFXGraphReport`")
    assert blocks[0].get_text().rstrip().endswith('print(f"fwd_trace:')
    assert "for nvfusion_report in" in blocks[1].get_text()  # the rest of the example, as text
