"""The site builds and serves on ProperDocs, the maintained fork of MkDocs 1.x, as on MkDocs.

ProperDocs reads mkdocs.yml, loads the plugins registered under ``mkdocs.plugins`` and makes
``import mkdocs`` give its own package, so the same plugins run. On the built site the one
difference is the generator tag of each HTML page, which ProperDocs fills in itself
(``mkdocs-ProperDocs 1.6.7`` where MkDocs writes ``mkdocs-1.6.1``).
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
import time
from pathlib import Path

from test_serve import free_port, get, next_build_log, page, reader, served_at, snippet

from conftest import ROOT, material_pages, mkdocs_env
from thunder_docs.shared.versions import distribution_version

GENERATOR = re.compile(rb'<meta name="generator" content="mkdocs-([^,"]*)')
RECORD = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL) +-  ", re.M)  # a log record's first line


def said_beyond_info(log: str) -> list[str]:
    """What a build printed besides INFO records: other records, Python warnings (which ProperDocs
    logs as INFO records that start with their category) and text before the first record."""
    before, *records = RECORD.split(log)
    said = [before] if before.strip() else []
    return said + [f"{level}: {text}" for level, text in zip(records[::2], records[1::2], strict=True)
                   if level != "INFO" or re.match(r"\w*Warning: ", text)]


def build(engine: str, folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """`<engine> build` of the site in ``folder``, naming its mkdocs.yml (as ProperDocs asks); the log in .stdout."""
    return subprocess.run(
        [sys.executable, "-m", engine, "build", "--config-file", str(folder / "mkdocs.yml"), *args], cwd=folder,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800, env=mkdocs_env(**env),
    )


def blank_generators(site: Path) -> tuple[dict[str, bytes], set[bytes]]:
    """Every file of a built site, with its generator tag blanked, and the generators it named."""
    files, named = {}, set()
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        data = path.read_bytes()
        named.update(GENERATOR.findall(data))
        files[path.relative_to(site).as_posix()] = GENERATOR.sub(b'<meta name="generator" content="mkdocs-', data)
    return files, named


def test_properdocs_builds_the_site_mkdocs_builds(built_site, tmp_path):
    # The same build date as the MkDocs build (the sitemap's dates and its .gz header hold it).
    epoch = struct.unpack("<I", (built_site / "sitemap.xml.gz").read_bytes()[4:8])[0]  # gzip's MTIME field
    site = tmp_path / "site"
    proc = build("properdocs", ROOT, "--strict", "--site-dir", str(site), SOURCE_DATE_EPOCH=str(epoch))
    assert proc.returncode == 0, proc.stdout
    assert not said_beyond_info(proc.stdout), proc.stdout

    ours, mkdocs_named = blank_generators(built_site)
    theirs, properdocs_named = blank_generators(site)
    assert sorted(theirs) == sorted(ours), "the two builds wrote different files"
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert not differ, f"beyond the generator tag, ProperDocs built these files differently: {differ}"
    assert mkdocs_named == {distribution_version("mkdocs").encode()}
    assert properdocs_named == {f"ProperDocs {distribution_version('properdocs')}".encode()}
    changed = {name for name in ours if (built_site / name).read_bytes() != (site / name).read_bytes()}
    pages = {p.relative_to(built_site).as_posix() for p in material_pages(built_site)}  # not the explorer's
    assert changed == pages, "every page names its generator"


def test_under_properdocs_a_page_conversion_is_its_own_and_a_warm_build_still_warns(throwaway):
    """The page cache keys on the engine that runs (ProperDocs, not the MkDocs installed beside it),
    and a conversion during which ProperDocs' own loggers said something is not kept."""
    throwaway.write({"docs/index.md": "# Home\n\nSee [a page](missing.md).\n", "docs/fine.md": "# Fine\n"},
                    plugins=("thunder-buildcache",), strict=False, theme={"name": "material"})
    logs = [build(engine, throwaway.folder).stdout for engine in ("mkdocs", "properdocs", "properdocs")]
    pages = [re.search(r"pages: (\d+) reused, (\d+) made", log).groups() for log in logs]
    assert pages == [("0", "2"), ("0", "2"), ("1", "1")], logs  # ProperDocs converts fine.md once, then reuses it
    for log in logs:
        assert "contains a link 'missing.md', but the target is not found" in log, log  # warm builds warn too


def test_properdocs_serves_and_rebuilds_after_an_edit(throwaway, tmp_path):
    throwaway.write({"docs/one.md": page("one"), "snippets/one.py": snippet(1)}, exec_options={},
                    plugins=("thunder-buildcache",), theme={"name": "material"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "properdocs", "serve", "--config-file", str(tmp_path / "mkdocs.yml"),
         "--dev-addr", f"127.0.0.1:{free_port()}"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=mkdocs_env(),
    )
    lines = reader(proc)
    try:
        first = next_build_log(lines, end="Documentation built in")
        assert "executed 2 sections of 1 pages" in first and not said_beyond_info(first), first
        url = served_at(lines) + "one/"
        assert "x is 1" in get(url)
        time.sleep(1)

        (tmp_path / "snippets" / "one.py").write_text(snippet(2))  # ProperDocs watches snippets/ too
        log = next_build_log(lines)
        assert "executed 2 sections of 1 pages" in log and not said_beyond_info(log), log
        shown = re.sub(r"<[^>]+>", "", get(url))
        assert "x = 2" in shown and "x is 2" in shown
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_warm_verbose_properdocs_build_still_checks_anchors(throwaway):
    """ProperDocs collects the links it checks anchors with under --verbose too (MkDocs 1.6 does not),
    so a conversion given back from the cache gives them back there as well."""
    throwaway.write({"docs/index.md": "# Home\n\nSee [a heading](other.md#nope).\n", "docs/other.md": "# Other\n"},
                    plugins=("thunder-buildcache",), theme={"name": "material"}, validation={"anchors": "warn"})
    for args in ((), ("--verbose",)):
        proc = build("properdocs", throwaway.folder, *args)
        assert proc.returncode != 0 and "does not contain an anchor '#nope'" in proc.stdout, proc.stdout
    assert "pages: 2 reused, 0 made" in proc.stdout, proc.stdout


def test_the_page_cache_keys_on_the_version_of_the_engine_that_runs(monkeypatch, throwaway, tmp_path):
    """Here (pytest) MkDocs runs: its version is in the key, ProperDocs' (installed, not running) is not."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    from thunder_docs.plugins.buildcache import page_cache

    throwaway.write({"docs/index.md": "# Home\n"}, plugins=("thunder-buildcache",))
    config = load_config(str(throwaway.folder / "mkdocs.yml"))
    before = page_cache.PageCache(tmp_path, config, Files([])).context
    real = page_cache.distribution_version
    for package, changes in (("mkdocs", True), ("properdocs", False)):
        monkeypatch.setattr(page_cache, "distribution_version",
                            lambda dist, package=package: "9.9.9" if dist == package else real(dist))
        assert (page_cache.PageCache(tmp_path, config, Files([])).context != before) == changes, package
        monkeypatch.undo()
