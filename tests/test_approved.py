"""Approved outputs: drift fails the build with a diff; CPU builds show labelled CUDA tabs."""

from bs4 import BeautifulSoup

from conftest import PAGES_WITH_CODE, SITE
from thunder_docs.plugins.exec import approved

SNIPPET = '''\
# --8<-- [start:setup]
import os
device = os.environ.get("THUNDER_DOCS_DEVICE", "cpu")
print("running on", device)
# --8<-- [end:setup]

# --8<-- [start:fusion]
print("fused on", device)
# --8<-- [end:fusion]
'''
PAGE = ('# Page\n\n```python\n--8<-- "snippets/page.py:setup"\n```\n\n'
        '<!-- exec: cuda -->\n```python\n--8<-- "snippets/page.py:fusion"\n```\n')


def site(throwaway, update=False):
    return throwaway.write({"snippets/page.py": SNIPPET, "docs/page.md": PAGE},
                           exec_options={"approve": True, "update_approved": update})


def build(throwaway):
    proc = throwaway.build()
    return proc.returncode, proc.stdout


def page_html(throwaway):
    return BeautifulSoup(throwaway.html(), "html.parser")


def test_missing_approved_output_fails_with_the_command_to_accept_it(throwaway):
    code, log = build(site(throwaway))
    assert code != 0
    assert "snippets/approved/cpu/page.txt (missing)" in log
    assert "+running on cpu" in log and approved.UPDATE_COMMAND in log


def test_update_writes_provenance_and_then_the_build_passes(throwaway):
    code, log = build(site(throwaway, update=True))
    assert code == 0, log
    stored = approved.load(throwaway.folder / "snippets" / "approved" / "cpu" / "page.txt")
    assert stored.sections == {"setup": "running on cpu", "fusion": "fused on cpu"}
    assert stored.provenance["device"] == "cpu"
    assert stored.provenance["thunder"] == "0.2.6" and stored.provenance["torch"].startswith("2.8.0")
    code, log = build(site(throwaway))
    assert code == 0, log


def test_one_changed_character_is_caught_with_its_diff(throwaway):
    assert build(site(throwaway, update=True))[0] == 0
    path = throwaway.folder / "snippets" / "approved" / "cpu" / "page.txt"
    path.write_text(path.read_text().replace("fused on cpu", "fused on cpx"))
    code, log = build(site(throwaway))
    assert code != 0
    assert "docs/page.md: the output on cpu differs from the approved output" in log
    assert "-fused on cpx" in log and "+fused on cpu" in log
    assert f"accept it with: {approved.UPDATE_COMMAND}" in log
    assert not (throwaway.folder / "site" / "page" / "index.html").exists()


def test_cpu_build_says_when_no_cuda_output_was_recorded(throwaway):
    assert build(site(throwaway, update=True))[0] == 0
    tabs = page_html(throwaway).select(".tabbed-labels label")
    assert [t.get_text() for t in tabs] == ["CPU (this build)", "CUDA"]
    text = page_html(throwaway).select_one(".tabbed-set").get_text()
    assert "fused on cpu" in text and "No CUDA output recorded yet" in text


def test_cpu_build_shows_recorded_cuda_output_with_its_provenance(throwaway):
    assert build(site(throwaway, update=True))[0] == 0
    recorded = {"device": "Test GPU 80GB", "python": "3.12.3", "thunder": "0.2.6",
                "torch": "2.11.0+cu130", "nvfuser": "not installed"}
    path = throwaway.folder / "snippets" / "approved" / "cuda" / "page.txt"
    path.parent.mkdir(parents=True)
    path.write_text(approved.render("docs/page.md", "cuda", recorded, [("fusion", "fused on cuda")]))
    code, log = build(site(throwaway))
    assert code == 0, log
    text = page_html(throwaway).select_one(".tabbed-set").get_text()
    assert "fused on cuda" in text and "fused on cpu" in text
    assert page_html(throwaway).select_one("div.exec-cuda code").get_text().strip() == "fused on cuda"
    assert ("Recorded on Test GPU 80GB with thunder 0.2.6, torch 2.11.0+cu130, nvFuser not installed, "
            "Python 3.12.3") in text


def test_render_and_load_round_trip(tmp_path):
    path = tmp_path / "x.txt"
    sections = [("a", "line 1\n\nline 3"), ("empty", ""), ("b", "=== not a marker")]
    path.write_text(approved.render("docs/x.md", "cpu", {"device": "cpu", "torch": "2.8.0"}, sections))
    loaded = approved.load(path)
    assert loaded.sections == dict(sections) and loaded.provenance == {"device": "cpu", "torch": "2.8.0"}
    assert approved.drift(path, tmp_path, sections) is None


def test_every_page_with_code_has_approved_cpu_output():
    for page in PAGES_WITH_CODE:
        path = SITE.approved_path(SITE.page(page), "cpu")
        assert path.is_file(), f"{page}: run {approved.UPDATE_COMMAND}"


def test_the_site_reads_update_from_the_environment(monkeypatch):
    """`scripts/dev build --update` sets THUNDER_DOCS_UPDATE=true; mkdocs.yml hands it to the plugin."""
    from mkdocs.config import load_config

    for value, expected in (("true", True), ("false", False)):
        monkeypatch.setenv("THUNDER_DOCS_UPDATE", value)
        config = load_config(str(SITE.root / "mkdocs.yml"))
        assert config.plugins["thunder-exec"].config.update_approved is expected
