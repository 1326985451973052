"""The versions side by side (scripts/versions.py): mike's versions.json and the default redirect."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("versions", Path(__file__).parents[2] / "scripts" / "versions.py")
versions = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(versions)


def test_a_nightly_is_named_by_its_date_and_another_thunder_by_its_version():
    assert versions.main_title("0.2.7.dev20260201") == "main (nightly 20260201)"
    assert versions.main_title("0.2.6+edited") == "main (Thunder 0.2.6+edited)"


def test_versions_json_is_mikes_with_the_release_first_and_default():
    assert versions.versions("0.2.6", "0.2.7.dev20260201") == [
        {"version": "0.2.6", "title": "0.2.6 (release)", "aliases": ["latest"]},
        {"version": "main", "title": "main (nightly 20260201)", "aliases": []},
    ]


def test_the_root_and_the_default_alias_send_the_reader_to_the_release(tmp_path):
    for name in ("0.2.6", "main"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text("<html></html>")
    versions.write(tmp_path, "0.2.6", "0.2.7.dev20260201")
    assert json.loads((tmp_path / "versions.json").read_text())[1]["title"] == "main (nightly 20260201)"
    assert 'url=0.2.6/"' in (tmp_path / "index.html").read_text()
    assert 'url=../0.2.6/"' in (tmp_path / "latest" / "index.html").read_text()


def test_a_missing_version_folder_is_an_error(tmp_path):
    (tmp_path / "0.2.6").mkdir()
    (tmp_path / "0.2.6" / "index.html").write_text("")
    with pytest.raises(SystemExit, match="main"):
        versions.write(tmp_path, "0.2.6", "0.2.7.dev20260201")
