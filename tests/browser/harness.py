"""What the browser tests and `scripts/dev screenshots` share: the pages, a local server, Chromium.

The site is served the way it is deployed: under the path of `site_url` (so the 404 page's
absolute asset URLs work), and any missing path is answered with the site's 404.html and
status 404. Files are sent with `Cache-Control: no-store`, so each page load is a first load
and its responses are what a new reader downloads; a context made with `cache=True` asks for
cacheable files instead (faster, for checks that do not weigh pages).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import os
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")  # Debian's chromium; never a downloaded one
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
    "--disable-component-update", "--disable-sync", "--disable-quic",
]
VIEWPORT = {"width": 1280, "height": 900}
CACHE_HEADER = "X-Test-Cacheable"  # sent by a context that may cache files
SCHEMES = {"light": "default", "dark": "slate"}  # our name -> Material's data-md-color-scheme


# -- pages ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Page:
    source: str  # path under docs/, e.g. "concepts/trace.md"
    url: str  # path under the site's base URL, e.g. "concepts/trace/"
    graphs: int = 0  # trace graphs its code blocks draw

    @property
    def html(self) -> str:  # the file in the built site
        return self.url + "index.html"

    def mermaid_fences(self) -> int:
        """How many diagrams the page shows: its source's Mermaid fences (``` or ~~~) and the
        trace graphs its code blocks ask for (``<!-- exec: graph=a,b -->``, from the model)."""
        text = (DOCS / self.source).read_text(encoding="utf-8")
        return len(re.findall(r"(?:^|\\n|\")[ \t]*(?:`{3,}|~{3,})[ \t]*mermaid\b", text, re.M)) + self.graphs

    def __str__(self) -> str:
        return self.source


def doc_pages() -> list[Page]:
    """Every page of the site, Markdown and notebooks, with its URL, from the site model."""
    from thunder_docs.shared.model import load_site

    site = load_site(ROOT / "mkdocs.yml")
    items = [*site.pages.values(), *site.notebooks.values()]
    # The URL under the site's base: the built file's folder ("" for the home page).
    return sorted((Page(item.src_uri, item.dest_uri.removesuffix("index.html"),
                        sum(len(inc.graphs) for inc in getattr(item, "includes", ()))) for item in items),
                  key=lambda page: page.source)


def built_pages(site: Path) -> set[str]:
    """The URL of every HTML page in a built site, except the 404 page."""
    urls = set()
    for html in site.rglob("index.html"):
        rel = html.relative_to(site)
        if rel.parts[0] in ("assets", "search"):
            continue
        urls.add("" if rel.parent == Path(".") else rel.parent.as_posix() + "/")
    return urls


def configured_site_url() -> str:
    """`site_url` of mkdocs.yml as this environment resolves it (`!ENV`), "" when unset."""
    from mkdocs.utils.yaml import yaml_load

    with open(ROOT / "mkdocs.yml", encoding="utf-8") as file:
        return str(yaml_load(file).get("site_url") or "")


def base_path() -> str:
    """The path of `site_url`, where the site is served ("/" when unset)."""
    path = urllib.parse.urlsplit(configured_site_url()).path.strip("/")
    return f"/{path}/" if path else "/"


# -- the local server -----------------------------------------------------------------------
class _Handler(http.server.SimpleHTTPRequestHandler):
    base = "/"
    compress = False  # gzip what the client accepts gzipped, as most hosts do (the phone bench)

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if not (self.compress and "gzip" in self.headers.get("Accept-Encoding", "") and path.is_file()
                and not urllib.parse.urlsplit(self.path).path.endswith(".gz")):
            return super().do_GET()
        if not self.path.split("?")[0].endswith("/") and Path(self.translate_path(self.path)).is_dir():
            return super().do_GET()  # the redirect to the folder's URL
        body = gzip.compress(path.read_bytes(), 6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client moved on
            self.wfile.write(body)

    def translate_path(self, path: str) -> str:
        path = urllib.parse.urlsplit(path).path
        if not path.startswith(self.base):
            return str(Path(self.directory) / "\0outside")
        return super().translate_path("/" + path[len(self.base):])

    def end_headers(self):
        cacheable = self.headers.get(CACHE_HEADER) == "1"
        self.send_header("Cache-Control", "max-age=3600" if cacheable else "no-store")
        super().end_headers()

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(site: Path, compress: bool = False):
    """Serve a built site on 127.0.0.1 on a free port; yields the site's base URL. With
    `compress`, files are sent gzip-compressed to a client that accepts it."""
    base = base_path()
    handler = type("Handler", (_Handler,), {"base": base, "compress": compress})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{base}"
    finally:
        server.shutdown()
        server.server_close()


# -- the browser ----------------------------------------------------------------------------
def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def new_context(browser, base_url: str, cache: bool = False, **options):
    context = browser.new_context(viewport=VIEWPORT, color_scheme="light", **options)
    if cache:
        context.set_extra_http_headers({CACHE_HEADER: "1"})
    # Nothing may leave the machine: a request to any other origin is recorded, then blocked.
    origin = base_url.split("/", 3)[:3]
    origin = "/".join(origin) + "/"
    context.route(lambda url: not url.startswith((origin, "data:", "blob:")), lambda route: route.abort())
    return context


def switch_scheme(page, scheme: str) -> None:
    """Click the header's palette toggle until the page shows `scheme` (as a reader would)."""
    want = SCHEMES[scheme]
    for _ in range(len(SCHEMES)):
        if page.locator("body").get_attribute("data-md-color-scheme") == want:
            return
        page.locator("form[data-thunder-palette] label:not([hidden])").click()
    page.wait_for_function(f"document.body.getAttribute('data-md-color-scheme') === {want!r}")


@dataclass
class Visit:
    """What happened while one page loaded."""

    url: str
    status: int | None = None
    console_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    responses: list = field(default_factory=list)
    diagrams: list[dict] = field(default_factory=list)


# Material's search index: a page loads it only once search is used (overrides/partials/search.html).
SEARCH_INDEX = "search/search_index.json"


def requested_search_index(seen: Visit) -> list[str]:
    """The requests for the search index that a visit made."""
    return [r.url for r in seen.responses if urllib.parse.urlsplit(r.url).path.endswith("/" + SEARCH_INDEX)]


# Each diagram is inline SVG drawn at build time, once for both schemes; the stylesheet colours
# it for the scheme shown. For each: how many SVGs show, the colour of its text (Mermaid's
# theme of the scheme: DIAGRAM_TEXT), its size, its accessible name and description (what
# aria-labelledby and aria-describedby point to).
DIAGRAM_TEXT = {"light": "rgb(51, 51, 51)", "dark": "rgb(204, 204, 204)"}  # Mermaid's default and dark themes
DIAGRAMS_JS = """() => [...document.querySelectorAll(".md-typeset div.diagram")].map((div) => {
  const shown = [...div.querySelectorAll(":scope > div > svg")].filter((svg) => svg.getBoundingClientRect().width > 0);
  const svg = shown[0];
  const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
  const text = (attr) => svg && svg.getAttribute(attr) ?
    svg.getAttribute(attr).split(" ").map((id) => (document.getElementById(id) || {}).textContent || "").join(" ").trim() : "";
  return { shown: shown.length, text: svg ? getComputedStyle(svg).fill : null, width: box.width, height: box.height,
           name: text("aria-labelledby"), description: text("aria-describedby") };
})"""


def visit(page, url: str, origin: str, timeout_ms: int = 15_000) -> Visit:
    """Load `url` in `page` and wait until its network is idle; record what happened."""
    seen = Visit(url)

    def on_console(message):
        if message.type == "error":
            seen.console_errors.append(f"{message.text} ({message.location.get('url', '')})")

    mine = set()  # requests made by this visit (one of the previous page may be aborted now)

    def on_request(request):
        mine.add(request)
        if not request.url.startswith((origin, "data:", "blob:")):
            seen.external.append(request.url)

    def on_failed(request):
        if request in mine:
            seen.failed.append(f"{request.url}: {request.failure}")

    def on_response(response):
        seen.responses.append(response)
        if response.status >= 400 and response.url != url:
            seen.failed.append(f"{response.url}: HTTP {response.status}")

    handlers = {
        "console": on_console,
        "pageerror": lambda error: seen.console_errors.append(f"uncaught: {error}"),
        "request": on_request,
        "requestfailed": on_failed,
        "response": on_response,
    }
    for event, handler in handlers.items():
        page.on(event, handler)
    try:
        response = page.goto(url, wait_until="load")
        seen.status = response.status if response else None
        # Material starts its search worker as the page loads, and a block near the view may
        # fetch a file (a stepper's traces): wait until nothing is being fetched (half a second
        # without a request), so every request of the first load counts. The search index is
        # not one: it waits until the reader uses search.
        page.wait_for_load_state("networkidle", timeout=timeout_ms)
        seen.diagrams = page.evaluate(DIAGRAMS_JS)
    finally:
        for event, handler in handlers.items():
            page.remove_listener(event, handler)
    return seen


# -- weight ---------------------------------------------------------------------------------
KINDS = ("html", "css", "js", "font", "other")


def _kind(response) -> str:
    rtype = response.request.resource_type
    path = urllib.parse.urlsplit(response.url).path
    if rtype == "document":
        return "html"
    if rtype == "stylesheet" or path.endswith(".css"):
        return "css"
    if rtype == "script" or path.endswith((".js", ".mjs")):
        return "js"
    if rtype == "font" or path.endswith((".woff", ".woff2", ".ttf", ".otf")):
        return "font"
    return "other"


@functools.cache
def _gzipped_size(site: Path, rel: str) -> int:
    path = site / rel
    if path.is_dir():
        path = path / "index.html"
    return len(gzip.compress(path.read_bytes(), 9, mtime=0)) if path.is_file() else 0


def weight(seen: Visit, site: Path, base_url: str) -> dict[str, int]:
    """Bytes a first load transfers, by kind, as served (uncompressed) and as gzip would send them."""
    sizes = dict.fromkeys(KINDS, 0)
    sizes["requests"] = 0
    sizes["gzip"] = 0
    for response in seen.responses:
        if not response.url.startswith(base_url):
            continue
        body = response.request.sizes()["responseBodySize"]
        sizes[_kind(response)] += body
        sizes["requests"] += 1
        sizes["gzip"] += _gzipped_size(site, urllib.parse.urlsplit(response.url).path[len(urllib.parse.urlsplit(base_url).path):])
    sizes["total"] = sum(sizes[k] for k in KINDS)
    return sizes


def weight_table(weights: dict[str, dict[str, int]]) -> list[str]:
    """A text table of per-page weights in KiB."""
    head = f"{'page':<34}" + "".join(f"{k:>9}" for k in (*KINDS, "total", "gzip")) + f"{'requests':>10}"
    lines = [head, "-" * len(head)]
    for name, sizes in weights.items():
        cells = "".join(f"{sizes[k] / 1024:>8.1f}K" for k in (*KINDS, "total", "gzip"))
        lines.append(f"{name:<34}{cells}{sizes['requests']:>10}")
    return lines


# -- accessibility --------------------------------------------------------------------------
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # from the npm registry (package.json)
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]  # WCAG 2.0, 2.1 and 2.2, levels A and AA
AXE_EXTRA_RULES = ["aria-dialog-name", "landmark-unique"]  # best practices, tagged neither
AXE_RUN_JS = """async ([tags, extra]) => {
  const rules = Object.fromEntries(extra.map((id) => [id, { enabled: true }]));
  const result = await axe.run(document, { runOnly: { type: "tag", values: tags }, rules, resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), impact: n.impact, summary: n.failureSummary })),
  }));
}"""


def audit(page) -> list[dict]:
    """axe-core's violations of WCAG 2.0/2.1/2.2 A and AA (and AXE_EXTRA_RULES) on the page as shown now."""
    if not AXE_JS.is_file():
        raise FileNotFoundError(f"{AXE_JS} is missing: run `scripts/dev setup` (npm ci installs axe-core)")
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))
    return page.evaluate(AXE_RUN_JS, [AXE_TAGS, AXE_EXTRA_RULES])


def accessibility_table(results: dict[tuple[str, str], list[dict]]) -> list[str]:
    """A text table: per page and scheme, how many elements violate a rule, by impact."""
    impacts = ("critical", "serious", "moderate", "minor")
    head = f"{'page':<34}{'scheme':<8}" + "".join(f"{i:>10}" for i in impacts) + "  rules"
    lines = [head, "-" * len(head)]
    for (name, scheme), violations in results.items():
        counts = {i: sum(len(v["nodes"]) for v in violations if v["impact"] == i) for i in impacts}
        rules = ", ".join(sorted({v["id"] for v in violations})) or "-"
        lines.append(f"{name:<34}{scheme:<8}" + "".join(f"{counts[i]:>10}" for i in impacts) + f"  {rules}")
    return lines


# -- print ----------------------------------------------------------------------------------
def print_table(rows: dict[str, dict[str, int]]) -> list[str]:
    """A text table: per page, its code blocks and lines as printed, the lines cut, the controls shown."""
    head = f"{'page':<34}{'blocks':>8}{'lines':>8}{'cut':>6}{'controls':>10}"
    lines = [head, "-" * len(head)]
    for name, row in rows.items():
        lines.append(f"{name:<34}{row['blocks']:>8}{row['lines']:>8}{row['cut']:>6}{row['controls']:>10}")
    total = {k: sum(row[k] for row in rows.values()) for k in ("blocks", "lines", "cut", "controls")}
    lines.append(f"{'all pages':<34}{total['blocks']:>8}{total['lines']:>8}{total['cut']:>6}{total['controls']:>10}")
    return lines


# -- HTML -----------------------------------------------------------------------------------
def html_table(rows: dict[str, dict[str, int]]) -> list[str]:
    """A text table: per built page, the Nu checker's errors in our markup, inside diagrams, in Material's."""
    kinds = ("ours", "diagrams", "material")
    head = f"{'page':<44}" + "".join(f"{k:>10}" for k in kinds)
    lines = [head, "-" * len(head)]
    for name, row in rows.items():
        if any(row.values()):
            lines.append(f"{name:<44}" + "".join(f"{row[k]:>10}" for k in kinds))
    lines.append(f"{f'all {len(rows)} pages':<44}" + "".join(f"{sum(r[k] for r in rows.values()):>10}" for k in kinds))
    return lines


# -- the keyboard -----------------------------------------------------------------------------
def keyboard_table(rows: dict[str, dict]) -> list[str]:
    """A text table: per page, its elements and Tab stops when it loads and once every trace
    block is marked up, its trace blocks, the most Tab stops inside one; then the largest of
    each, and the other checks' figures (rows named in parentheses)."""
    cols = ("elements", "elements_marked", "stops", "stops_marked", "blocks", "most_in_a_block")
    heads = ("elements", "marked up", "Tab stops", "marked up", "traces", "in one")
    pages = {k: v for k, v in rows.items() if not k.startswith("(")}
    head = f"{'page':<34}" + "".join(f"{h:>11}" for h in heads)
    lines = [head, "-" * len(head)]
    lines += [f"{name:<34}" + "".join(f"{row[c]:>11}" for c in cols) for name, row in pages.items()]
    if pages:
        lines.append(f"{'largest':<34}" + "".join(f"{max(r[c] for r in pages.values()):>11}" for c in cols))
    lines += [f"{name} " + ", ".join(f"{k}: {v}" for k, v in row.items()) for name, row in rows.items() if name.startswith("(")]
    lines.append("a page fails over 3,000 elements when it loads, over 120 Tab stops, or with a trace block of 2 or more")
    return lines


# -- diagram labels -------------------------------------------------------------------------
DIAGRAM_LIMITS = {"desktop": (1280, 12), "phone": (390, 10)}  # viewport -> (width, smallest label in CSS px)


def diagram_label_table(rows: dict[tuple[str, str, str], list[dict]]) -> list[str]:
    """A text table: per viewport and scheme, the diagrams and labels measured, the smallest label
    (and where), and how many diagrams and labels are under the viewport's limit."""
    head = (f"{'viewport':<14}{'scheme':<8}{'diagrams':>9}{'labels':>8}{'smallest':>10}  {'where':<48}"
            f"{'diagrams under':>15}{'labels under':>13}{'text contrast':>14}{'line contrast':>14}")
    lines = [head, "-" * len(head)]
    for viewport, (width, _limit) in DIAGRAM_LIMITS.items():
        for scheme in ("light", "dark"):
            found = [(page, row) for (v, s, page), diagrams in sorted(rows.items()) if (v, s) == (viewport, scheme)
                     for row in diagrams]
            if not found:
                continue
            page, row = min(found, key=lambda item: item[1]["smallest"])
            where = f"{page} {row['diagram']}"
            where = where if len(where) <= 46 else where[:45] + "…"
            under = sum(1 for _, r in found if r["under"])
            labels_under = sum(r["under"] for _, r in found)
            text = min(r.get("contrast") or 0 for _, r in found)
            line = min((r["lines"] for _, r in found if r.get("lines") is not None), default=0)
            lines.append(f"{viewport + ' ' + str(width):<14}{scheme:<8}{len(found):>9}{sum(r['labels'] for _, r in found):>8}"
                         f"{row['smallest']:>8.1f}px  {where:<48}{under:>15}{labels_under:>13}{text:>12.1f}:1{line:>12.1f}:1")
    lines.append(f"limits: {', '.join(f'{v} {lim}px' for v, (_, lim) in DIAGRAM_LIMITS.items())}, contrast 4.5:1 for "
                 "text and 3:1 for lines (the lowest shown); a diagram under a limit fails its page's test")
    return lines
