"""The explorer's page is kept by a key of what it is made from (plugins/explore/run.py), the
stylesheets and script it inlines too: they are not Python, so the code digest does not cover them."""

from __future__ import annotations

import shutil

from thunder_docs.plugins.explore import run


def test_the_key_changes_with_each_file_the_page_inlines(tmp_path, monkeypatch):
    (tmp_path / "run.py").write_text("x = 1\n")
    copies = []
    for k, file in enumerate(run.INLINED):
        copies.append(tmp_path / f"{k}-{file.name}")
        shutil.copy(file, copies[-1])
    monkeypatch.setattr(run, "INLINED", tuple(copies))
    keys = [run.key(tmp_path, "run.py")]
    for copy in copies:
        copy.write_bytes(copy.read_bytes() + b"\n")
        keys.append(run.key(tmp_path, "run.py"))
    assert len(set(keys)) == len(keys) == 4


def test_the_page_inlines_each_of_those_files():
    from thunder_docs.explain.page import page
    from thunder_docs.explain.report import Report

    html = page(Report("run.py"), None)
    assert all(file.read_text(encoding="utf-8") in html for file in run.INLINED)
