"""Which versions of another package a wrapper of ours was verified against.

The build caches (``thunder-buildcache``, ``thunder-refcache``) wrap functions of other packages
and rely on how those packages work inside (each wrapper's module lists what it relies on, and
``tests/test_contracts.py`` checks each of those points against the installed source). A wrapper
is switched on only when every package it relies on is at a version it was verified with; on
any other version it stays off, with one warning, and the build is as correct as without the
cache, only slower. To verify a new version: run ``tests/test_contracts.py`` against it, then
add the version here.

MkDocs itself may be ProperDocs, the fork by MkDocs' maintainers that keeps the 1.x plugin API
(it answers to ``import mkdocs``): ``running("mkdocs")`` names whichever of the two is running.
"""

from __future__ import annotations

from dataclasses import dataclass

from thunder_docs.shared.versions import distribution_version, engine_distribution


def running(package: str) -> tuple[str, str]:
    """The distribution that provides ``package`` in this process, and its version."""
    if package == "mkdocs":
        package = engine_distribution()
    return package, distribution_version(package)


@dataclass(frozen=True)
class Contract:
    """A wrapper (``what``) and, for each package it relies on, the versions it was verified with."""

    what: str
    verified: dict[str, tuple[str, ...]]  # distribution -> versions ("mkdocs" also admits "properdocs")

    def mismatches(self) -> list[str]:
        """Each relied-on package whose running version was not verified, as "name version"."""
        found = []
        for package, versions in self.verified.items():
            name, version = running(package)
            if f"{name} {version}" not in {f"{n} {v}" for n, v in _admitted(package, versions)}:
                found.append(f"{name} {version}")
        return found

    def unverified_message(self) -> str | None:
        """None when every package is at a verified version; else the one warning to log."""
        off = self.mismatches()
        if not off:
            return None
        known = "; ".join(f"{p} {', '.join(v)}" for p, v in self.verified.items())
        return (f"{self.what} is off: it was verified with {known}, and this build runs {', '.join(off)}. "
                "The build is correct, only slower. To switch it on, run tests/test_contracts.py and add the "
                "version in the wrapper's CONTRACT.")


def _admitted(package: str, versions: tuple[str, ...]) -> list[tuple[str, str]]:
    """("mkdocs", "1.6.1") style pairs; a version written "properdocs 1.6.7" names the fork."""
    pairs = []
    for v in versions:
        name, _, number = v.rpartition(" ")
        pairs.append((name or package, number))
    return pairs
