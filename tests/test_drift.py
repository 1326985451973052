"""Another Thunder beside the pinned one (src/thunder_docs/drift/, scripts/dev --thunder).

- A build that goes on past failures (``keep_going``, set by ``build --thunder``) shows a note in
  place of a failed section and the sections after it.
- ``scripts/dev drift --thunder PATH`` on a copy of the installed Thunder with one function edited
  (``cache_hits`` counts one more): the report names the assert that fails and the sentence of the
  page it proves, exits 1, and writes no approved file.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, mkdocs_env

PAGE = """# Page

The first section prints one.

```python
--8<-- "snippet.py:one"
```

Two is not three.

```python
--8<-- "snippet.py:two"
```

```python
--8<-- "snippet.py:three"
```
"""
SNIPPET = """# --8<-- [start:one]
print("one")
# --8<-- [end:one]
# --8<-- [start:two]
assert 2 == 3
# --8<-- [end:two]
# --8<-- [start:three]
print("three")
# --8<-- [end:three]
"""


def test_a_build_that_goes_on_shows_a_note_in_place_of_the_failed_section_and_those_after_it(throwaway):
    site = throwaway.write({"docs/page.md": PAGE, "snippet.py": SNIPPET}, exec_options={"keep_going": True},
                           strict=False)
    built = site.build("--no-strict")
    assert built.returncode == 0, built.stdout
    assert "section 'two' failed" in built.stdout  # a warning in the log
    html = site.html()
    assert "one" in html and "[not run] On lightning-thunder" in html and "AssertionError" in html
    assert html.count("[not run]") == 2  # the failed section, and the one after it
    assert "an earlier section of this page failed" in html
    assert "<code>three" not in html
    note = html.split('class="admonition warning"', 1)[1].split("</div>", 1)[0]  # under the title
    assert "proof failed on lightning-thunder" in note and "<code>two</code> failed at <code>snippet.py:" in note


def test_without_keep_going_a_failed_section_fails_the_build(throwaway):
    site = throwaway.write({"docs/page.md": PAGE, "snippet.py": SNIPPET}, strict=False)
    built = site.build("--no-strict")
    assert built.returncode != 0 and "section 'two' failed" in built.stdout


def _edited_thunder(folder: Path) -> Path:
    """A checkout made from the installed Thunder, with ``thunder.cache_hits`` counting one more."""
    installed = Path(next(iter(importlib.util.find_spec("thunder").submodule_search_locations)))
    shutil.copytree(installed, folder / "thunder", ignore=shutil.ignore_patterns("__pycache__"))
    init = folder / "thunder" / "__init__.py"
    text = init.read_text()
    assert text.count("    return cs.cache_hits\n") == 1
    init.write_text(text.replace("    return cs.cache_hits\n", "    return cs.cache_hits + 1\n"))
    (folder / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "lightning-thunder"\nversion = "0.2.6+edited"\n\n'
        '[tool.setuptools.packages.find]\ninclude = ["thunder*"]\n')
    return folder


def test_drift_of_a_checkout_names_the_failed_assert_and_the_sentence_it_proves(tmp_path):
    checkout = _edited_thunder(tmp_path / "lightning-thunder")
    approved = ROOT / "snippets" / "approved" / "cpu" / "first_trace.txt"
    before = approved.stat().st_mtime_ns
    out = tmp_path / "report"
    done = subprocess.run([sys.executable, "-m", "thunder_docs.drift", "--thunder", str(checkout),
                           "--page", "first_trace", "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, env=mkdocs_env(THUNDER_DOCS_THUNDER_VENVS=str(tmp_path / "venvs")))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "lightning-thunder 0.2.6+edited" in done.stdout  # the checkout ran, not the pinned Thunder
    assert "failed   docs/first_trace.md [last-trace] snippets/first_trace.py:" in done.stdout
    assert "proves: The `assert` lines check both, and that a second call, a cache hit, leaves the same list." \
        in done.stdout
    assert "hooks off: 0" in done.stdout  # nothing the hooks rely on was edited
    report = json.loads((out / "drift.json").read_text())
    assert [p["section"] for p in report["proofs"]] == ["last-trace"]
    assert "cache hit" in (out / "index.html").read_text()
    assert approved.stat().st_mtime_ns == before  # never approved
    venv_thunder = subprocess.run([str(tmp_path / "venvs" / "checkout-lightning-thunder" / "bin" / "python"), "-c",
                                   "import thunder, torch; print(thunder.__file__); print(torch.__file__)"],
                                  capture_output=True, text=True, check=True).stdout.split()
    assert venv_thunder[0] == str(checkout / "thunder" / "__init__.py")
    assert venv_thunder[1] == importlib.util.find_spec("torch").origin  # the pinned torch, not a second one


def test_the_site_reads_approve_and_keep_going_from_the_environment(monkeypatch):
    """`scripts/dev build --thunder` sets THUNDER_DOCS_APPROVE=false and THUNDER_DOCS_KEEP_GOING=true."""
    from mkdocs.config import load_config

    for approve, keep_going in (("false", "true"), ("true", "false")):
        monkeypatch.setenv("THUNDER_DOCS_APPROVE", approve)
        monkeypatch.setenv("THUNDER_DOCS_KEEP_GOING", keep_going)
        config = load_config(str(ROOT / "mkdocs.yml")).plugins["thunder-exec"].config
        assert (config.approve, config.keep_going) == (approve == "true", keep_going == "true")


def test_a_citation_another_thunder_lacks_is_plain_code_when_the_build_goes_on():
    import pytest
    from mkdocs.exceptions import PluginError

    from thunder_docs.plugins.cite.plugin import render

    text = "See [[thunder/core/trace.py:NoSuchName]]."
    with pytest.raises(PluginError, match="NoSuchName"):
        render(text, "p.md")
    assert render(text, "p.md", keep_going=True) == \
        "See `thunder/core/trace.py:NoSuchName` (not in lightning-thunder 0.2.6)."


def test_scripts_dev_refuses_a_thunder_it_cannot_name():
    for args, said in ((["build", "--thunder"], "--thunder needs a value"),
                       (["build", "--thunder", "bad!"], "--thunder takes nightly, a version"),
                       (["drift", "--thunder", "bad!"], "--thunder takes nightly, a version")):
        done = subprocess.run([str(ROOT / "scripts" / "dev"), *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 2 and said in done.stderr, (args, done.stderr)
