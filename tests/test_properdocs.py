"""The site builds on ProperDocs, the maintained fork of MkDocs 1.x, as it does on MkDocs.

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
from pathlib import Path

from conftest import ROOT, mkdocs_env
from thunder_docs.shared.versions import distribution_version

GENERATOR = re.compile(rb'<meta name="generator" content="mkdocs-([^,"]*)')


def build(engine: str, folder: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """`<engine> build` of the site in ``folder``, naming its mkdocs.yml (as ProperDocs asks); the log in .stdout."""
    return subprocess.run(
        [sys.executable, "-m", engine, "build", "--config-file", str(folder / "mkdocs.yml"), *args], cwd=folder,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800, env=mkdocs_env(**env),
    )


def generators(site: Path) -> tuple[dict[str, bytes], set[bytes]]:
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
    # Nothing but INFO lines (a message's next lines are indented), and no Python warning (logged as INFO).
    said = [line for line in proc.stdout.splitlines()
            if not line.startswith(("INFO ", " ")) or re.match(r"INFO\s+-\s+\w*Warning: ", line)]
    assert not said, "ProperDocs said more than it does on MkDocs:\n" + "\n".join(said)

    ours, mkdocs_named = generators(built_site)
    theirs, properdocs_named = generators(site)
    assert sorted(theirs) == sorted(ours), "the two builds wrote different files"
    differ = [name for name in ours if ours[name] != theirs[name]]
    assert not differ, f"beyond the generator tag, ProperDocs built these files differently: {differ}"
    assert mkdocs_named == {distribution_version("mkdocs").encode()}
    assert properdocs_named == {f"ProperDocs {distribution_version('properdocs')}".encode()}
    changed = {name for name in ours if (built_site / name).read_bytes() != (site / name).read_bytes()}
    assert changed == {name for name in ours if name.endswith(".html")}, "every page names its generator"


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
