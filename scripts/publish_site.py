"""Put a finished build in place of the site folder, so that builds finishing together never lose it.

``scripts/dev build`` builds into a partial folder of its own (``site.partial.XXXXXX``), so two
builds never write into one folder, then calls this. Under an exclusive lock on ``<site>.lock``
(released by the system when this process ends, however it ends) the site folder is moved aside,
the build is renamed into its place, and the old one removed: the last build to finish is the
site, and a folder that another build has just put in place is never deleted half-read.

    python scripts/publish_site.py PARTIAL SITE
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
from pathlib import Path


def publish(partial: Path, site: Path) -> None:
    with open(site.with_name(site.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        old = partial.with_name(partial.name + ".old")
        if site.exists():
            os.rename(site, old)
        os.rename(partial, site)
        shutil.rmtree(old, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python scripts/publish_site.py PARTIAL SITE")
    publish(Path(sys.argv[1]), Path(sys.argv[2]))
