"""Fixtures of the browser suite: the built site served on 127.0.0.1, one Chromium, one context per scheme.

Per-page weights collected while the pages load, and the keyboard figures (Tab stops, elements,
focus ring, target sizes), are printed at the end of the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .harness import CHROMIUM, ROOT, launch, new_context, serve, switch_scheme


def _last_commit_epoch() -> str:
    proc = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True)
    return proc.stdout.strip() or "0"


# Builds write dates (sitemap.xml lastmod, sitemap.xml.gz mtime); MkDocs takes them from
# SOURCE_DATE_EPOCH when set. scripts/dev exports it; a bare `pytest` gets the same value here,
# before any build (the `built_site` fixture copies os.environ when it runs).
os.environ.setdefault("SOURCE_DATE_EPOCH", _last_commit_epoch())

WEIGHTS: dict[str, dict[str, int]] = {}
ACCESSIBILITY: dict[tuple[str, str], list[dict]] = {}  # (page source, scheme) -> axe violations
HTML: dict[str, dict[str, int]] = {}  # built page -> the Nu checker's errors: ours, diagrams', Material's
PRINT: dict[str, dict[str, int]] = {}  # page source -> code lines cut and controls shown in print
OUTPUTS: dict[str, list[str]] = {}  # page source -> its printed outputs, as the browser shows them
KEYBOARD: dict[str, dict] = {}  # page source (or a check's name) -> its keyboard figures
DIAGRAM_LABELS: dict[tuple[str, str, str], list[dict]] = {}  # (viewport, scheme, page source) -> a row per diagram


@pytest.fixture(scope="session")
def second_build(built_site, tmp_path_factory):
    """A second build of the same tree, started in the background as soon as a browser test needs the site."""
    site = tmp_path_factory.mktemp("site-again")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONHASHSEED": "0"}
    log = site.parent / "site-again.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=env,
        )

    def wait() -> Path:
        code = proc.wait(timeout=1800)
        assert code == 0, "the second build failed:\n" + log.read_text()
        return site

    yield wait
    if proc.poll() is None:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def site_url(built_site, second_build):
    """The built site's base URL on a local server (requesting `second_build` starts it early)."""
    with serve(built_site) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `scripts/dev setup` (it installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def light(browser, site_url):
    """A page in a context that shows the light scheme (the reader's system prefers light)."""
    context = new_context(browser, site_url)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="session")
def dark(browser, site_url):
    """A page in a context switched to the dark scheme with the header's toggle, once (files cached)."""
    context = new_context(browser, site_url, cache=True)
    page = context.new_page()
    page.goto(site_url)
    switch_scheme(page, "dark")
    yield page
    context.close()


@pytest.fixture(scope="session")
def clipboard_page(browser, site_url):
    context = new_context(browser, site_url, cache=True, permissions=["clipboard-read", "clipboard-write"])
    yield context.new_page()
    context.close()


@pytest.fixture(scope="session")
def weights():
    return WEIGHTS


@pytest.fixture(scope="session")
def accessibility():
    return ACCESSIBILITY


@pytest.fixture(scope="session")
def html_report():
    return HTML


@pytest.fixture(scope="session")
def print_report():
    return PRINT


@pytest.fixture(scope="session")
def shown_outputs():
    return OUTPUTS


@pytest.fixture(scope="session")
def keyboard():
    return KEYBOARD


@pytest.fixture(scope="session")
def diagram_labels():
    return DIAGRAM_LABELS


def pytest_sessionfinish(session):
    """Hand the collected rows to the summary: in this process, or to pytest-xdist's controller."""
    rows = {"weights": WEIGHTS, "accessibility": {"\0".join(k): v for k, v in ACCESSIBILITY.items()},
            "print": PRINT, "html": HTML, "keyboard": KEYBOARD,
            "diagram_labels": {"\0".join(k): v for k, v in DIAGRAM_LABELS.items()}}
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["reports"] = rows
    else:
        from conftest import REPORTS

        for name, found in rows.items():
            REPORTS[name].update(found)
