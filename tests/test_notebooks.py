"""Every page with code offers its code as a notebook and as a .py file, and the notebook,
run with nbclient in a fresh kernel from the repository root, prints what the page shows.

One thing differs by nature: where the code lives. On the page it is snippets/<page>.py;
in a notebook each cell is a temporary file of the kernel, with its own line numbers.
Thunder prints that location (a trace's source-line comments, a bound symbol's
source_filename and source_positions, which pages print), so the comparison masks the
file names of code and the numbers that follow `<file>:`, `line` and `lineno=`, and
nothing else beyond normalize()."""

import os
import re

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import PAGES_WITH_CODE, ROOT, SITE, built_html, includes_of, snippet_of
from thunder_docs.page.normalize import normalize
from thunder_docs.plugins.downloads.plugin import headings

_CODE_FILE = re.compile(r"snippets/[\w./-]+\.py|/\S*?ipykernel_\d+/\d+\.py")
_LOCATION = re.compile(r"<code file>(?::\d+:?|\s+\d+)\s*")  # file:line: in traces, "file line" in prints
_LINE_NUMBER = re.compile(r"\b(line|lineno|end_lineno)(\s*=\s*|\s+)\d+")


def stem(page: str) -> str:
    return SITE.page(page).id


def cpu_outputs(html) -> list[str]:
    """The outputs of the page's code on this machine's CPU (not a recorded CUDA tab)."""
    return [block.find("code").get_text().rstrip("\n") for block in html.select("div.exec-output:not(.exec-cuda)")]


# Lines a C++ library writes straight to file descriptor 1: a page's process catches them (it
# redirects the descriptor), a Jupyter kernel does not (it sends only Python's sys.stdout to the
# cell). gloo's connectivity line, printed once per process group (the distributed page), is one.
_C_LEVEL_LINE = re.compile(r"^\[Gloo\] Rank \d+ is connected to \d+ peer ranks\..*\n?", re.M)


def comparable(text: str) -> str:
    text = _C_LEVEL_LINE.sub("", text)
    text = _CODE_FILE.sub("<code file>", normalize(text, ROOT))
    return _LINE_NUMBER.sub(r"\1\2N", _LOCATION.sub("<code file>:N ", text))


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_notebook_holds_the_page_headings_and_code(built_site, page):
    notebook = nbformat.read(built_site / "downloads" / f"{stem(page)}.ipynb", as_version=4)
    nbformat.validate(notebook)
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert code == [inc.code for inc in includes_of(page)]
    markdown = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    text = (ROOT / page).read_text(encoding="utf-8")
    titles = ["#" * level + " " + title for _, level, title in headings(text)]
    assert [m for m in markdown if m.startswith("#")] == titles
    assert all(c.outputs == [] for c in notebook.cells if c.cell_type == "code"), "stored with outputs"


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_page_links_to_its_downloads(built_site, page):
    html = built_html(built_site, page)
    links = {a.get_text(): a["href"] for a in html.select("p.page-downloads a")}
    assert set(links) == {"Download as notebook", "Download .py"}
    page_dir = SITE.built(built_site, page).parent
    for href in links.values():
        assert (page_dir / href).resolve().is_file(), href
    script = (page_dir / links["Download .py"]).resolve()
    snippet = snippet_of(page)
    assert script.read_bytes() == (ROOT / snippet).read_bytes()


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_notebook_reproduces_the_page_outputs(built_site, page):
    notebook = nbformat.read(built_site / "downloads" / f"{stem(page)}.ipynb", as_version=4)
    client = NotebookClient(notebook, kernel_name="python3", timeout=600, allow_errors=False,
                            resources={"metadata": {"path": str(ROOT)}})  # cwd: the repository root
    # The venv's kernel (jupyter_client runs the kernelspec's "python" as this interpreter),
    # with the hash seed the build uses, so sets print in the same order.
    client.execute(env={**os.environ, "PYTHONHASHSEED": "0"})
    printed = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        stdout = "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")
        if stdout.strip():
            printed.append(comparable(stdout))
    expected = [e for o in cpu_outputs(built_html(built_site, page)) if (e := comparable(o)).strip()]
    assert len(printed) == len(expected), f"{page}: {len(printed)} cells printed, the page shows {len(expected)} outputs"
    for number, (got, want) in enumerate(zip(printed, expected, strict=True), start=1):
        assert got == want, f"{page}: output {number} of the notebook differs from the page"
