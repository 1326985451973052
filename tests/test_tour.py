"""The guided tour (docs/tour.ipynb): stored without outputs, executed at build time
(by thunder-exec, through the cache; mkdocs-jupyter renders the executed copy), printing
nothing machine-specific; a cell that raises fails the build (shown with throwaway builds)."""

import json

import nbformat
from bs4 import BeautifulSoup

from conftest import DOCS, ROOT, built_html
from thunder_docs.plugins.exec.notebook_page import fix_appended_style, mark_terms

TOUR = DOCS / "tour.ipynb"


def test_tour_is_stored_without_outputs():
    notebook = nbformat.read(TOUR, as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)


def test_tour_is_in_the_nav_and_rendered_by_mkdocs_jupyter():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "tour.ipynb" in config.split("theme:")[0]
    plugin = config.split("- mkdocs-jupyter:")[1].split("\n  - ")[0]
    for option in ('include: ["tour.ipynb"]', "allow_errors: false"):
        assert option in plugin


def test_built_tour_shows_outputs_and_nothing_machine_specific(built_site):
    text = built_html(built_site, "docs/tour.ipynb").select_one("article").get_text()
    for expected in ("TraceCtx made by: None", "# No signature available", "after dce:", "def computation(x, y):"):
        assert expected in text
    for private in (str(ROOT), "/tmp/", "/home/", "/root/", "ipykernel", "site-packages", "milliseconds"):
        assert private not in text, f"the tour prints {private!r}"
    assert "Traceback" not in text and "Warning" not in text


def test_built_tour_has_one_stylesheet_first_in_its_content(built_site):
    """The notebook's styles and Pygments' rules in one <style>, first in the article; none is
    a Python list's repr (what mkdocs-jupyter appends; the browser test checks it as CSS)."""
    article = built_html(built_site, "docs/tour.ipynb").select_one("article")
    styles = article.find_all("style")
    assert len(styles) == 1 and article.find(True) is styles[0], [s.get_text()[:40] for s in styles]
    css = styles[0].get_text()
    assert ".highlight-ipynb .k {" in css and "--jp-mirror-editor-keyword-color:" in css
    assert not css.lstrip().startswith("[")


def test_appended_style_becomes_css_or_goes():
    """mkdocs-jupyter's appended <style> holds a Python list: empty (the site's template moved
    its rules), it goes; otherwise it becomes the stylesheets it holds, joined."""
    notebook = "<div>notebook</div>"
    assert fix_appended_style(notebook + "\n        <style>\n        []\n        </style>\n        ") == notebook + "\n"
    assert fix_appended_style(notebook) == notebook
    listed = notebook + "\n<style>\n" + repr(["pre { line-height: 125%; }\n", ".k { color: red }"]) + "\n</style>\n"
    assert fix_appended_style(listed) == notebook + "\n<style>\npre { line-height: 125%; }\n\n.k { color: red }\n</style>\n"


def test_tour_download_is_the_stored_notebook(built_site):
    assert (built_site / "downloads" / "tour.ipynb").read_bytes() == TOUR.read_bytes()
    html = built_html(built_site, "docs/tour.ipynb")
    assert [a["href"] for a in html.select("p.page-downloads a")] == ["../downloads/tour.ipynb"]


# -- a throwaway build: a cell that raises fails the build ---------------------------------------
JUPYTER = {"mkdocs-jupyter": {"include": ["tour.ipynb"], "execute": False, "allow_errors": False, "cache": False}}


def notebook(*cells: str) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Tour")]
                                  + [nbformat.v4.new_code_cell(c) for c in cells],
                                  metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    for number, cell in enumerate(nb.cells):
        cell.id = f"c{number}"
    return json.dumps(nb)


def site(throwaway, source: str):
    return throwaway.write({"docs/tour.ipynb": source}, exec_options={}, plugins=(JUPYTER,), nav=["tour.ipynb"])


def test_a_notebook_that_runs_builds(throwaway):
    proc = site(throwaway, notebook("x = 6 * 7", "print('answer', x)")).build()
    assert proc.returncode == 0, proc.stdout
    assert "answer 42" in throwaway.html("tour")
    assert "IPKernelApp" not in proc.stdout and "TCP" not in proc.stdout, "the kernel's chatter reached the log"


def test_a_cell_that_raises_fails_the_build(throwaway):
    log = site(throwaway, notebook("x = 1", "print(1 / 0)")).failed_build()
    assert "docs/tour.ipynb: cell 2 raised ZeroDivisionError: division by zero" in log
    assert not (throwaway.folder / "site" / "tour" / "index.html").exists()


def test_executed_notebook_is_reused_until_it_changes(throwaway):
    proc = site(throwaway, notebook("print('first')")).build()
    assert proc.returncode == 0 and "docs/tour.ipynb: executed in" in proc.stdout, proc.stdout
    again = throwaway.build()
    assert "docs/tour.ipynb: reused from the cache" in again.stdout, again.stdout
    assert "first" in throwaway.html("tour")
    (throwaway.folder / "docs" / "tour.ipynb").write_text(notebook("print('second')"))
    changed = throwaway.build()
    assert "docs/tour.ipynb: executed in" in changed.stdout, changed.stdout
    assert "second" in throwaway.html("tour")


def test_glossary_terms_in_markdown_cells_get_their_tooltips():
    """nbconvert's Markdown has no abbreviations: thunder-exec marks the terms of a Markdown cell as
    the abbr extension marks them on the Markdown pages (whole words, the longest term first), in its
    text only: never in code, a heading, an existing mark, or outside the Markdown cells."""
    terms = {"trace": "A record.", "bound symbol": "One operation.", "symbol": "An operation."}
    cell = ('<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown" data-mime-type="text/markdown">'
            '<h2 id="t">A trace</h2><p>Each <em>bound symbol</em> of a trace, <code>trace</code>, a '
            'symbol; traces, <a href="#x">the trace</a>.</p><pre>trace</pre></div>')
    code_cell = '<div class="jp-CodeCell"><pre>trace = 1</pre><div class="jp-OutputArea">a trace</div></div>'
    marked = mark_terms(cell + code_cell, terms)
    html = BeautifulSoup(marked, "html.parser")
    assert [(a.get_text(), a["title"]) for a in html.select("abbr")] == [
        ("bound symbol", "One operation."), ("trace", "A record."), ("symbol", "An operation."),
        ("trace", "A record."),  # in a link's text, as on the Markdown pages
    ]
    assert not html.select("h2 abbr, code abbr, pre abbr, .jp-CodeCell abbr")
    assert html.get_text() == BeautifulSoup(cell + code_cell, "html.parser").get_text()  # the text is unchanged
    assert mark_terms(code_cell, terms) == code_cell and mark_terms(cell, {}) == cell
