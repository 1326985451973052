"""Screenshot every page of a built site, light and dark, and print each page's weight.

    python scripts/screenshots.py [SITE_DIR] [OUT_DIR]      (defaults: site/ and screenshots/)

`scripts/dev screenshots` builds the site first, then runs this. Files are named
OUT_DIR/<light|dark>/<page>.png, <page> being the page's source path with "/" as "__".
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import harness  # noqa: E402 - the browser tests' harness, importable once its folder is on the path
from playwright.sync_api import sync_playwright  # noqa: E402 - imported with harness, which needs it


def main(site: Path, out: Path) -> int:
    if not (site / "index.html").is_file():
        print(f"no built site in {site}: run `scripts/dev build` first", file=sys.stderr)
        return 1
    pages = harness.doc_pages()
    weights, problems = {}, []
    shutil.rmtree(out, ignore_errors=True)
    with harness.serve(site) as url, sync_playwright() as playwright:
        browser = harness.launch(playwright)
        for scheme in harness.SCHEMES:
            context = harness.new_context(browser, url)
            tab = context.new_page()
            tab.goto(url)
            harness.switch_scheme(tab, scheme)
            folder = out / scheme
            folder.mkdir(parents=True)
            for page in pages:
                seen = harness.visit(tab, url + page.url, url)
                problems += [f"{page} ({scheme}): {p}" for p in seen.console_errors + seen.failed + seen.external]
                if scheme == "light":
                    weights[page.source] = harness.weight(seen, site, url)
                name = page.source.rsplit(".", 1)[0].replace("/", "__") + ".png"
                tab.screenshot(path=folder / name, full_page=True)
            context.close()
        browser.close()
    print(f"{2 * len(pages)} screenshots in {out}/light and {out}/dark\n")
    print("Page weight, first load (KiB; gzip: the same files gzip-compressed):")
    print("\n".join(harness.weight_table(weights)))
    for problem in problems:
        print("problem:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    site = Path(args[0]) if args else ROOT / "site"
    out = Path(args[1]) if len(args) > 1 else ROOT / "screenshots"
    sys.exit(main(site.resolve(), out.resolve()))
