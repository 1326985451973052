"""Put the built versions of the site side by side, as mike lays them out, for Material's selector.

``scripts/dev versions`` builds the pinned release into ``<out>/<release>/`` and the site with
another Thunder into ``<out>/main/`` (both with ``mkdocs-versioned.yml``: the selector on), then
runs this, which writes ``<out>/versions.json`` (mike's format: version, title, aliases; the
release first, aliased ``latest``), ``<out>/latest/index.html`` and ``<out>/index.html``, which
send a reader to the release: the release is the default.

    python scripts/versions.py OUT RELEASE MAIN_THUNDER
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

MAIN = "main"
DEFAULT_ALIAS = "latest"


def main_title(thunder: str) -> str:
    """The selector's name for the main folder: 'main (nightly 20260201)' for a nightly's version."""
    nightly = re.search(r"\.dev(\d{8})$", thunder)
    return f"{MAIN} (nightly {nightly.group(1)})" if nightly else f"{MAIN} (Thunder {thunder})"


def versions(release: str, main_thunder: str) -> list[dict]:
    """mike's versions.json: the release (the default, aliased ``latest``), then main."""
    return [{"version": release, "title": f"{release} (release)", "aliases": [DEFAULT_ALIAS]},
            {"version": MAIN, "title": main_title(main_thunder), "aliases": []}]


def redirect(target: str) -> str:
    """A page that sends its reader to ``target`` (relative), as mike's alias redirects do."""
    url = html.escape(target, quote=True)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Redirecting</title>'
            f'<meta http-equiv="refresh" content="0; url={url}"><link rel="canonical" href="{url}">'
            f'</head><body>Redirecting to <a href="{url}">{url}</a></body></html>\n')


def write(out: Path, release: str, main_thunder: str) -> None:
    missing = [name for name in (release, MAIN) if not (out / name / "index.html").is_file()]
    if missing:
        raise SystemExit(f"scripts/versions.py: no built site in {', '.join(str(out / m) for m in missing)}")
    (out / "versions.json").write_text(json.dumps(versions(release, main_thunder), indent=2) + "\n", encoding="utf-8")
    (out / DEFAULT_ALIAS).mkdir(exist_ok=True)
    (out / DEFAULT_ALIAS / "index.html").write_text(redirect(f"../{release}/"), encoding="utf-8")
    (out / "index.html").write_text(redirect(f"{release}/"), encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: python scripts/versions.py OUT RELEASE MAIN_THUNDER")
    write(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
