"""The guided tour (docs/tour.ipynb): stored without outputs, executed at build time
(by thunder-exec, through the cache; mkdocs-jupyter renders the executed copy), printing
nothing machine-specific; a cell that raises fails the build (shown with throwaway builds)."""

import json

import nbformat
from bs4 import BeautifulSoup

from conftest import DOCS, ROOT, mkdocs_build, write_site

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
    html = (built_site / "tour" / "index.html").read_text(encoding="utf-8")
    text = BeautifulSoup(html, "html.parser").select_one("article").get_text()
    for expected in ("TraceCtx made by: None", "# No signature available", "after dce:", "def computation(x, y):"):
        assert expected in text
    for private in (str(ROOT), "/tmp/", "/home/", "/root/", "ipykernel", "site-packages", "milliseconds"):
        assert private not in text, f"the tour prints {private!r}"
    assert "Traceback" not in text and "Warning" not in text


def test_tour_download_is_the_stored_notebook(built_site):
    assert (built_site / "downloads" / "tour.ipynb").read_bytes() == TOUR.read_bytes()
    html = BeautifulSoup((built_site / "tour" / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert [a["href"] for a in html.select("p.page-downloads a")] == ["../downloads/tour.ipynb"]


# -- a throwaway build: a cell that raises fails the build ---------------------------------------
MKDOCS_YML = """\
site_name: throwaway
strict: true
nav:
  - tour.ipynb
plugins:
  - thunder-exec:
      preload: []
      approve: false
  - mkdocs-jupyter:
      include: ["tour.ipynb"]
      execute: false
      allow_errors: false
      cache: false
"""


def notebook(*cells: str) -> str:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Tour")]
                                  + [nbformat.v4.new_code_cell(c) for c in cells],
                                  metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    for number, cell in enumerate(nb.cells):
        cell.id = f"c{number}"
    return json.dumps(nb)


def build(tmp_path, source: str):
    write_site(tmp_path, MKDOCS_YML, {"docs/tour.ipynb": source})
    proc = mkdocs_build(tmp_path)
    return proc, proc.stdout


def test_a_notebook_that_runs_builds(tmp_path):
    proc, log = build(tmp_path, notebook("x = 6 * 7", "print('answer', x)"))
    assert proc.returncode == 0, log
    assert "answer 42" in (tmp_path / "site" / "tour" / "index.html").read_text()


def test_a_cell_that_raises_fails_the_build(tmp_path):
    proc, log = build(tmp_path, notebook("x = 1", "print(1 / 0)"))
    assert proc.returncode != 0, log
    assert "docs/tour.ipynb: cell 2 raised ZeroDivisionError: division by zero" in log
    assert not (tmp_path / "site" / "tour" / "index.html").exists()


def test_executed_notebook_is_reused_until_it_changes(tmp_path):
    proc, log = build(tmp_path, notebook("print('first')"))
    assert proc.returncode == 0 and "docs/tour.ipynb: executed in" in log, log
    again = mkdocs_build(tmp_path)
    assert "docs/tour.ipynb: reused from the cache" in again.stdout, again.stdout
    assert "first" in (tmp_path / "site" / "tour" / "index.html").read_text()
    (tmp_path / "docs" / "tour.ipynb").write_text(notebook("print('second')"))
    changed = mkdocs_build(tmp_path)
    assert "docs/tour.ipynb: executed in" in changed.stdout, changed.stdout
    assert "second" in (tmp_path / "site" / "tour" / "index.html").read_text()
