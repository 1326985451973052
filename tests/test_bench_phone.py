"""The phone benchmark's own logic (scripts/bench_phone.py): which run it reports and what it strips.

Lighthouse itself runs only in the benchmark command, never here: its figures vary from run to run.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conftest import material_pages

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench_phone", ROOT / "scripts" / "bench_phone.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _bench()


def _report(name: str, fcp: float, tti: float) -> dict:
    return {"name": name, "audits": {"first-contentful-paint": {"numericValue": fcp},
                                     "interactive": {"numericValue": tti}}}


def test_the_median_run_is_the_one_nearest_the_median_fcp_and_tti():
    runs = [_report("fast", 1000, 1500), _report("middle", 1500, 2600), _report("slow", 2100, 2500)]
    # medians: FCP 1500, TTI 2500; "middle" is 100 ms away, "slow" 600 ms.
    assert bench.median_run(runs)["name"] == "middle"


def test_a_tie_goes_to_the_run_with_the_earlier_tti():
    runs = [_report("later", 1500, 2600), _report("earlier", 1500, 2400)]
    # medians: FCP 1500, TTI 2500: both runs are 100 ms away.
    assert bench.median_run(runs)["name"] == "earlier"


def test_one_run_is_its_own_median():
    only = _report("only", 1800, 3000)
    assert bench.median_run([only]) is only


def test_the_spread_of_runs_is_low_to_high_or_one_value():
    assert bench.spread([{"tbt": 210}, {"tbt": 90}, {"tbt": 150}], "tbt") == "90-210"
    assert bench.spread([{"tbt": 90}, {"tbt": 90}], "tbt") == "90"


def test_the_copy_without_the_theme_script_keeps_every_other_script(tmp_path):
    site = tmp_path / "site"
    (site / "guide").mkdir(parents=True)
    page = ('<script defer src="../assets/javascripts/bundle.a5f9d56c.min.js"></script>'
            '<script defer src="../assets/javascripts/thunder-traces.js"></script>')
    (site / "guide" / "index.html").write_text(page, encoding="utf-8")
    (site / "index.html").write_text(page.replace("../", ""), encoding="utf-8")
    copy = bench.without_theme_script(site, tmp_path)
    for name in ("index.html", "guide/index.html"):
        text = (copy / name).read_text(encoding="utf-8")
        assert "bundle." not in text and "thunder-traces.js" in text, text
    assert "bundle." in (site / "index.html").read_text(encoding="utf-8"), "the built site itself was changed"


def test_a_site_whose_theme_script_is_not_found_is_an_error(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<script src="assets/javascripts/other.js"></script>', encoding="utf-8")
    with pytest.raises(RuntimeError, match="no longer matches"):
        bench.without_theme_script(site, tmp_path)


def test_the_theme_script_pattern_finds_material_s_script_on_every_built_page(built_site):
    """The pattern follows the tag Material writes: each page of the built site loads bundle.js once."""
    pages = material_pages(built_site)
    assert pages, f"no page in {built_site}"
    found = {page.relative_to(built_site).as_posix(): len(bench.THEME_SCRIPT.findall(page.read_text(encoding="utf-8")))
             for page in pages}
    assert set(found.values()) == {1}, {name: n for name, n in found.items() if n != 1}
