"""The drift report's pieces (src/thunder_docs/drift/), on hand-made inputs: no Thunder runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from thunder_docs.drift import apis, citations, env, outputs, proofs
from thunder_docs.drift.report import Report, page_html, summary

# -- outputs --------------------------------------------------------------------------------------


def test_a_section_that_prints_the_same_is_same():
    drift = outputs.section_drift("jit", "a\nb", "a\nb")
    assert drift.status == outputs.SAME and drift.diff == () and drift.same_lines == 2


def test_a_changed_line_is_in_the_diff_and_the_others_count_as_same():
    drift = outputs.section_drift("jit", "a\nb\nc", "a\nB\nc")
    assert drift.status == outputs.CHANGED
    assert "-b" in drift.diff and "+B" in drift.diff and "-a" not in drift.diff
    assert (drift.lines, drift.same_lines) == (3, 2)


def test_the_failed_section_and_those_after_it_are_told_apart():
    page = outputs.page_outputs("docs/p.md", ["one", "two", "three"], {"one": "x", "two": "y", "three": "z"},
                                {"one": "x"}, failed_section="two")
    assert [s.status for s in page.sections] == [outputs.SAME, outputs.FAILED, outputs.NOT_RUN]
    assert [s.name for s in page.drifted] == ["two", "three"]
    assert (page.lines, page.same_lines) == (3, 1)


def test_a_section_without_approved_output_is_not_approved():
    assert outputs.section_drift("new", None, "out").status == outputs.UNAPPROVED


# -- proofs ---------------------------------------------------------------------------------------
PAGE = """# A page

Some words first. The cache keeps one entry per shape. A second call is a cache hit.

```python
--8<-- "snippets/p.py:calls"
```

After the block, `cache_misses` counts the compilations.

```python
--8<-- "snippets/p.py:other"
```
"""


def test_the_claim_is_the_sentence_that_shares_the_most_words_with_the_assert():
    assert proofs.claim(PAGE, "snippets/p.py:calls", "assert thunder.cache_hits(jfn) == 1  # a cache hit") == \
        "A second call is a cache hit."
    assert proofs.claim(PAGE, "snippets/p.py:calls", "assert thunder.cache_misses(jfn) == 2") == \
        "After the block, `cache_misses` counts the compilations."


def test_without_a_shared_word_the_claim_is_the_last_sentence_before_the_block():
    assert proofs.claim(PAGE, "snippets/p.py:calls", "assert zzz") == "A second call is a cache hit."


def test_a_section_the_page_does_not_show_has_no_claim():
    assert proofs.claim(PAGE, "snippets/p.py:missing", "assert cache") == ""


# -- citations ------------------------------------------------------------------------------------
def _thunder(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / "thunder" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "thunder" / name).write_text(text)
    return root


def test_citations_that_are_gone_or_changed_are_found_and_unchanged_ones_are_not(tmp_path):
    pinned = _thunder(tmp_path / "a", {"core.py": "def kept(x):\n    return x\n\ndef edited():\n    return 1\n\n"
                                                  "def gone():\n    pass\n"})
    other = _thunder(tmp_path / "b", {"core.py": "def kept(x):\n    '''A new docstring.'''\n    return x\n\n"
                                                 "def edited():\n    return 2\n"})
    text = "[[thunder/core.py:kept]] [[thunder/core.py:edited]] [[thunder/core.py:gone]] [[thunder/core.py:kept]]"
    found = citations.cited([("docs/p.md", text)])
    assert found == [("docs/p.md", "thunder/core.py:kept"), ("docs/p.md", "thunder/core.py:edited"),
                     ("docs/p.md", "thunder/core.py:gone")]
    drifts = {d.citation: d.status for d in citations.compare(found, pinned, other)}
    assert drifts == {"thunder/core.py:edited": citations.CHANGED, "thunder/core.py:gone": citations.GONE}


def test_a_whole_file_citation_changes_with_the_file(tmp_path):
    pinned = _thunder(tmp_path / "a", {"m.py": "x = 1\n"})
    other = _thunder(tmp_path / "b", {"m.py": "x = 2\n"})
    assert [d.status for d in citations.compare([("p", "thunder/m.py")], pinned, other)] == [citations.CHANGED]
    assert citations.compare([("p", "thunder/m.py")], pinned, pinned) == []


# -- APIs -----------------------------------------------------------------------------------------
def test_an_api_re_exported_from_another_module_resolves_to_its_definition(tmp_path):
    root = _thunder(tmp_path, {"__init__.py": "from thunder.core.trace import TraceCtx\n",
                               "core/__init__.py": "", "core/trace.py": "class TraceCtx:\n    def python(self): ...\n"})
    assert apis.resolve(root, "thunder.TraceCtx") == "thunder/core/trace.py:TraceCtx"
    assert apis.resolve(root, "thunder.core.trace.TraceCtx.python") == "thunder/core/trace.py:TraceCtx.python"
    assert apis.resolve(root, "thunder.core") == "thunder/core/__init__.py"
    assert apis.resolve(root, "thunder.nothing") == ""


def test_an_api_that_moved_or_went_is_reported_with_where_it_is_now(tmp_path):
    pinned = _thunder(tmp_path / "a", {"__init__.py": "", "old.py": "def f(): ...\n\ndef g(): ...\n\ndef h(): ...\n"})
    other = _thunder(tmp_path / "b", {"__init__.py": "", "old.py": "from thunder.new import f\n\ndef h(): ...\n",
                                      "new.py": "def f(): ...\n", "elsewhere.py": "def g(): ...\n"})
    named = apis.named([("docs/p.md", "`thunder.old.f` and `thunder.old.g()` and `thunder.old.h`")])
    drifts = {d.api: d for d in apis.compare(named, pinned, other)}
    assert set(drifts) == {"thunder.old.f", "thunder.old.g"}
    assert drifts["thunder.old.f"].after == "thunder/new.py:f"
    assert drifts["thunder.old.g"].gone and drifts["thunder.old.g"].candidates == ("thunder/elsewhere.py:g",)
    assert drifts["thunder.old.g"].pages == ("docs/p.md",)


# -- the report -----------------------------------------------------------------------------------
def _report(**findings) -> Report:
    return Report("lightning-thunder 0.2.7.dev1", "lightning-thunder 0.2.6", **findings)


def test_a_report_without_findings_has_not_drifted():
    report = _report(pages=[outputs.page_outputs("docs/p.md", ["a"], {"a": "x"}, {"a": "x"}, None)])
    assert not report.drifted and report.same_share() == 1.0
    assert summary(report).rstrip().endswith("no drift")


@pytest.mark.parametrize("finding", [
    {"pages": [outputs.page_outputs("docs/p.md", ["a"], {"a": "x"}, {"a": "y"}, None)]},
    {"proofs": [proofs.FailedProof("docs/p.md", "a", "snippets/p.py:3", "assert x", "AssertionError", "X holds.")]},
    {"citations": [citations.CitationDrift("docs/p.md", "thunder/core.py:f", citations.GONE)]},
    {"apis": [apis.ApiDrift("thunder.f", "thunder/a.py:f", "thunder/b.py:f")]},
    {"hooks_off": ["the hook 'capture' is off"]},
])
def test_any_finding_is_drift_and_is_in_both_renderings(finding):
    report = _report(**finding)
    assert report.drifted
    text, page = summary(report), page_html(report)
    assert text.rstrip().endswith("drifted")
    shown = {"pages": "[a]", "proofs": "proves: X holds.", "citations": "[[thunder/core.py:f]] no longer resolves",
             "apis": "thunder.f: thunder/a.py:f -> thunder/b.py:f", "hooks_off": "hook     the hook"}[next(iter(finding))]
    assert shown in text
    assert "<script" not in page and page.startswith("<!doctype html>")


def test_the_page_escapes_what_it_shows():
    report = _report(proofs=[proofs.FailedProof("docs/p.md", "a", "s:1", "assert x < 1", "<boom>", "")])
    assert "&lt;boom&gt;" in page_html(report) and "<boom>" not in page_html(report)


# -- the environment ------------------------------------------------------------------------------
def test_the_newest_pre_release_is_the_first_listed():
    listing = ("lightning-thunder (0.2.7.dev20260201)\n"
               "Available versions: 0.2.7.dev20260201, 0.2.7.dev20260125, 0.2.6\n")
    assert env.newest_prerelease(listing) == "0.2.7.dev20260201"
    with pytest.raises(env.EnvError):
        env.newest_prerelease("nothing")


def test_a_thunder_is_a_version_or_a_checkout(tmp_path):
    assert env.parse("0.2.7.dev20260201", tmp_path) == env.Thunder(version="0.2.7.dev20260201")
    (tmp_path / "lt" / "thunder").mkdir(parents=True)
    (tmp_path / "lt" / "thunder" / "__init__.py").write_text("")
    checkout = env.parse(str(tmp_path / "lt"), tmp_path)
    assert checkout.checkout == tmp_path / "lt" and checkout.key == "checkout-lt"
    with pytest.raises(env.EnvError, match="not a Thunder checkout"):
        env.parse(str(tmp_path), tmp_path)
    with pytest.raises(env.EnvError, match="--thunder takes"):
        env.parse("latest!", tmp_path)


def test_the_pth_adds_each_pinned_directory_as_a_site_directory_after_the_first_ones(tmp_path):
    text = env.pth_text(["/a/site-packages", "/b/src"], first=["/checkout"])
    assert text == ("/checkout\nimport site; site.addsitedir('/a/site-packages')\n"
                    "import site; site.addsitedir('/b/src')\n")
    # as Python reads it: the .pth files of a listed directory run too (distutils-precedence.pth, say)
    pinned = tmp_path / "pinned"
    pinned.mkdir()
    (pinned / "extra.pth").write_text(str(tmp_path / "from-a-pth") + "\n")
    (tmp_path / "from-a-pth").mkdir()
    own = tmp_path / "own"
    own.mkdir()
    (own / "z.pth").write_text(env.pth_text([str(pinned)]))
    code = f"import site, sys; site.addsitedir({str(own)!r}); print(sys.path)"
    path = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True).stdout
    assert str(pinned) in path and str(tmp_path / "from-a-pth") in path


def test_words_match_an_identifier_with_the_prose_that_names_it():
    assert {"cache", "hit"} <= proofs.words("thunder.cache_hits(jfn) == 1")
    assert {"cache", "hit"} <= proofs.words("a second call, a cache hit, leaves")


def test_the_share_of_unchanged_lines_counts_the_sections_that_ran_apart():
    report = _report(pages=[outputs.page_outputs("docs/p.md", ["a", "b"], {"a": "x\ny", "b": "z\nw"},
                                                 {"a": "x\nY"}, failed_section="b")])
    assert report.same_share_of_run() == 0.5 and report.same_share() == 0.25


def test_a_list_item_is_a_paragraph_of_its_own():
    page = "Before.\n\n```python\n--8<-- \"snippets/p.py:s\"\n```\n\n- `vmap`: one item.\n- `cond`: another.\n"
    assert proofs.prose_around(page, "snippets/p.py:s") == ("Before.", "- `vmap`: one item.")


def test_added_lines_count_in_the_summary():
    report = _report(pages=[outputs.page_outputs("docs/p.md", ["a"], {"a": "x"}, {"a": "x\nnew"}, None)])
    assert "[a]: 0 of 1 approved lines differ (-0 +1)" in summary(report)


def test_the_page_opens_with_the_counts_and_lists_each_finding_once():
    report = _report(pages=[outputs.page_outputs("docs/p.md", ["a"], {"a": "x"}, {"a": "y"}, None)])
    page = page_html(report)
    counts = page.split('<pre class=counts>', 1)[1].split("</pre>", 1)[0]
    assert counts.count("\n") == 2 and "pages: 1" in counts and "docs/p.md" not in counts


def test_jupyter_data_is_that_of_the_venv_that_holds_the_pinned_packages(tmp_path):
    overlay = tmp_path / "overlay" / "lib" / "python3.12" / "site-packages"
    pinned = tmp_path / "pinned" / "lib" / "python3.12" / "site-packages"
    overlay.mkdir(parents=True)
    pinned.mkdir(parents=True)
    assert env.jupyter_data([str(overlay), str(pinned)]) is None
    (tmp_path / "pinned" / "share" / "jupyter").mkdir(parents=True)
    assert env.jupyter_data([str(overlay), str(pinned)]) == tmp_path / "pinned" / "share" / "jupyter"
