"""Two builds at once never lose the site: each builds into a partial folder of its own, and a
finished one replaces the site under a lock (scripts/publish_site.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import threading

from conftest import ROOT, mkdocs_env

_spec = importlib.util.spec_from_file_location("publish_site", ROOT / "scripts" / "publish_site.py")
publish_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(publish_site)


def test_publishes_racing_at_once_leave_one_whole_site(tmp_path):
    """Eight builds finishing together: the site is one of them, whole, and nothing else is left."""
    site = tmp_path / "site"
    partials = []
    for k in range(8):
        partial = tmp_path / f"site.partial.{k}"
        (partial / "page").mkdir(parents=True)
        (partial / "index.html").write_text(f"build {k}")
        (partial / "page" / "index.html").write_text(f"build {k}")
        partials.append(partial)
    threads = [threading.Thread(target=publish_site.publish, args=(p, site)) for p in partials]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shown = (site / "index.html").read_text()
    assert shown.startswith("build ") and (site / "page" / "index.html").read_text() == shown
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "site.lock"]


def test_two_builds_started_at_once_keep_the_site(built_site, tmp_path):
    """`scripts/dev build` twice at once (warm: the session's build filled the caches): both
    succeed and the site is there, every page in it."""
    site = tmp_path / "site"
    env = mkdocs_env(THUNDER_DOCS_SITE_DIR=str(site))
    builds = [subprocess.Popen(["scripts/dev", "build"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    logs = [b.communicate(timeout=900)[0] for b in builds]
    assert [b.returncode for b in builds] == [0, 0], "\n".join(logs)
    built = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))
    expected = sorted(p.relative_to(built_site).as_posix() for p in built_site.rglob("index.html"))
    assert built == expected
    assert not list(tmp_path.glob("site.partial*")), "a partial folder was left behind"
