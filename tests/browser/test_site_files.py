"""(f) The built site's files: every page built, every internal link and anchor resolves,
a 404 page, Material's script deferred, the search index held until search is used, and two
builds of the same tree are byte-identical."""

from __future__ import annotations

import difflib
import html.parser
import json
import re
import urllib.parse
from functools import cache
from pathlib import Path

import pytest

from conftest import material_pages

from .harness import base_path, built_pages, configured_site_url, doc_pages

# One worker runs every browser test: one Chromium, one server, one built site.
pytestmark = pytest.mark.xdist_group("browser")

SITE_URL_HOSTS = {urllib.parse.urlsplit(configured_site_url()).hostname}  # links to the deployed site are internal
LINKING = {"a": "href", "link": "href", "script": "src", "img": "src", "source": "src", "iframe": "src"}


def test_every_page_is_built(built_site):
    expected = {p.url for p in doc_pages()}
    built = built_pages(built_site)
    assert built == expected, (f"built but not in docs/: {sorted(built - expected)}; "
                               f"in docs/ but not built: {sorted(expected - built)}")


def test_there_is_a_404_page(built_site):
    page = built_site / "404.html"
    assert page.is_file(), "the build wrote no 404.html"
    assert "Page not found" in page.read_text(encoding="utf-8")


class _Scripts(html.parser.HTMLParser):
    """The <script src> tags of one HTML file: (src, whether it is deferred)."""

    def __init__(self):
        super().__init__()
        self.scripts: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.scripts.append((attrs["src"], "defer" in attrs))


def test_every_page_loads_material_s_script_and_the_site_s_deferred(built_site):
    """overrides/main.html adds `defer` to Material's bundle.js, and the site's plugins add their
    scripts deferred (shared/page_assets.py): no page has a script that holds its parser. A change
    in Material's scripts block that the override no longer matches shows here."""
    pages = material_pages(built_site)
    assert pages, f"no page in {built_site}"
    wrong = {}
    for page in pages:
        parser = _Scripts()
        parser.feed(page.read_text(encoding="utf-8"))
        bundles = [src for src, _ in parser.scripts if "/javascripts/bundle." in src]
        blocking = [src for src, deferred in parser.scripts if not deferred]
        if len(bundles) != 1 or blocking:
            wrong[page.relative_to(built_site).as_posix()] = {"bundle.js tags": bundles, "not deferred": blocking}
    assert not wrong, f"pages that do not load Material's bundle.js once, or load a script not deferred: {wrong}"


# The script of overrides/partials/search.html, and the index URL it holds the request of.
HOLD_SCRIPT = re.compile(r'<script>\(\(\) => \{(?:(?!</script>).)*?XMLHttpRequest\.prototype(?:(?!</script>).)*</script>', re.S)
HELD_URL = re.compile(r'const index = new URL\(("[^"]*"), location\.href\)')


def test_every_page_holds_material_s_request_for_the_search_index(built_site):
    """overrides/partials/search.html holds Material's request for the search index until search
    is used. What it relies on: Material's bundle asks for the index once, by an XMLHttpRequest
    GET of search/search_index.json under the site's base (its one request function); and the
    script runs before the bundle, on every page, holding that URL as the page resolves it. A
    Material that asks another way fails here, and the browser test then sees every page load
    the index (tests/browser/test_pages_in_browser.py)."""
    bundles = sorted((built_site / "assets" / "javascripts").glob("bundle.*.min.js"))
    assert len(bundles) == 1, bundles
    code = bundles[0].read_text(encoding="utf-8")
    assert code.count('new URL("search/search_index.json",') == 1, "Material's bundle names the index otherwise"
    assert code.count("new XMLHttpRequest") == 1 and code.count('.open("GET",') == 1, \
        "Material's bundle no longer fetches through one XMLHttpRequest GET"
    base, wrong = base_path(), {}
    pages = material_pages(built_site)
    for page in pages:
        rel = page.relative_to(built_site).as_posix()
        text = page.read_text(encoding="utf-8")
        holds = [(m.start(), HELD_URL.findall(m.group())) for m in HOLD_SCRIPT.finditer(text)]
        bundle = text.find("/javascripts/bundle.")
        page_url = rel.removesuffix("index.html")  # 404.html is served anywhere: its URLs are absolute
        held = [urllib.parse.urljoin(f"http://site{base}{page_url}", json.loads(url)) for _, urls in holds for url in urls]
        if len(holds) != 1 or not 0 <= holds[0][0] < bundle or held != [f"http://site{base}search/search_index.json"]:
            wrong[rel] = {"scripts": len(holds), "before the bundle": bool(holds) and holds[0][0] < bundle, "holds": held}
    assert pages and not wrong, f"pages without the search partial's script before bundle.js, holding the index: {wrong}"


class _Links(html.parser.HTMLParser):
    """The links (href/src) and the ids of one HTML file."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in LINKING and attrs.get(LINKING[tag]):
            self.links.append(attrs[LINKING[tag]])
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])


@cache
def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def _ids(path: Path) -> set[str]:
    return _parse(path).ids


def _target(site: Path, path: str) -> Path | None:
    """The file a site-relative URL path is served from, or None."""
    rel = urllib.parse.unquote(path)
    candidate = site / rel
    if rel == "" or rel.endswith("/") or candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


def _check(site: Path, base: str, page_url: str, link: str, where: str, broken: list[str]) -> None:
    parts = urllib.parse.urlsplit(link)
    if parts.scheme in ("mailto", "javascript", "data", "blob"):
        return
    if parts.scheme in ("http", "https"):
        if parts.hostname not in SITE_URL_HOSTS:
            return  # an external link: the browser tests check that none of them is *loaded*
        link = parts.path + ("#" + parts.fragment if parts.fragment else "")
    absolute = urllib.parse.urljoin(f"http://site{base}{page_url}", link)
    parts = urllib.parse.urlsplit(absolute)
    if not parts.path.startswith(base):
        broken.append(f"{where}: {link} points outside the site")
        return
    target = _target(site, parts.path[len(base):])
    if target is None:
        broken.append(f"{where}: {link} (no such file)")
    elif parts.fragment and target.suffix == ".html" and urllib.parse.unquote(parts.fragment) not in _ids(target):
        broken.append(f"{where}: {link} (no anchor #{parts.fragment})")


def test_internal_links_and_anchors_resolve(built_site):
    """Every href/src in every HTML file, and every search result location, finds its file and anchor."""
    base = base_path()
    broken: list[str] = []
    for html_file in material_pages(built_site):
        rel = html_file.relative_to(built_site).as_posix()
        if rel.startswith("assets/"):
            continue
        # A page's URL is its folder; 404.html is served at any address, so its links are absolute.
        page_url = rel.removesuffix("index.html") if rel.endswith("index.html") else rel
        for link in _parse(html_file).links:
            _check(built_site, base, page_url, link, rel, broken)
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    for doc in index["docs"]:
        _check(built_site, base, "", doc["location"], "search index", broken)
    assert not broken, f"{len(broken)} broken internal links:\n  " + "\n  ".join(sorted(set(broken)))


def test_two_builds_are_byte_identical(built_site, second_build):
    """A second build of the same tree writes the same files, byte for byte (dates come from SOURCE_DATE_EPOCH)."""
    again = second_build()
    files = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*") if p.is_file()}
    files_again = {p.relative_to(again).as_posix() for p in again.rglob("*") if p.is_file()}
    assert files == files_again, f"only in one build: {sorted(files ^ files_again)}"
    differ = []
    for rel in sorted(files):
        a, b = (built_site / rel).read_bytes(), (again / rel).read_bytes()
        if a == b:
            continue
        try:
            diff = difflib.unified_diff(a.decode().splitlines(), b.decode().splitlines(), lineterm="", n=0)
            differ.append(rel + ":\n    " + "\n    ".join(list(diff)[2:8]))
        except UnicodeDecodeError:
            differ.append(f"{rel} (binary, {len(a)} vs {len(b)} bytes)")
    assert not differ, f"{len(differ)} files differ between two builds:\n  " + "\n  ".join(differ)
