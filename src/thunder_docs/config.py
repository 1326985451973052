"""The options of the site's plugins, each with what it does and its default.

Set them under the plugin's name in ``mkdocs.yml``; settings that CI, ``scripts/dev`` or the
benchmark change per run are read from the environment there with ``!ENV``, never here.
"""

from __future__ import annotations

from mkdocs.config import base
from mkdocs.config import config_options as c


class ExecConfig(base.Config):
    """Options of ``thunder-exec``, which executes snippet sections and notebooks."""

    execute = c.Type(bool, default=True)
    """Execute sections and notebooks. Off: pages show their code and no output. Default: on."""
    timeout = c.Type((int, float), default=120)
    """Seconds one section (or notebook cell) may run; a page's ``exec_timeout`` overrides it. Default: 120."""
    max_output_chars = c.Type(int, default=100_000)
    """Characters one section may print before the build fails. Default: 100,000."""
    preload = c.ListOfItems(c.Type(str), default=["torch", "thunder"])
    """Modules the worker imports once, before pages are forked from it. Default: torch, thunder."""
    jobs = c.Type(int, default=1)
    """Pages executed at once, each in its own process. Default: 1."""
    cache = c.Type(bool, default=True)
    """Reuse a section's output while nothing it depends on has changed. Default: on."""
    cache_dir = c.Type(str, default=".cache/thunder-docs")
    """Where cached outputs and executed notebooks live, relative to ``mkdocs.yml``. Default: ``.cache/thunder-docs``."""
    approve = c.Type(bool, default=True)
    """Compare each page's output with its approved output; a difference fails the build. Default: on."""
    update_approved = c.Type(bool, default=False)
    """Accept this build's output as the approved output instead of comparing. Default: off."""
    approved_dir = c.Type(str, default="snippets/approved")
    """Where approved outputs live (``<device>/<page>.txt``), relative to ``mkdocs.yml``. Default: ``snippets/approved``."""
    stderr_log = c.Type(str, default=".cache/thunder-docs/stderr.log")
    """Where what executed code wrote to stderr goes (the build log gets a line per page). Default:
    ``.cache/thunder-docs/stderr.log``."""
    stats_file = c.Optional(c.Type(str))
    """Write the build's execution statistics (JSON) to this file, for the benchmark. Default: unset."""


class LinksConfig(base.Config):
    """Options of ``thunder-links``, which links names to the API reference and to Thunder's source."""

    stylesheet = c.Type(bool, default=True)
    """Add the stylesheet for links inside code blocks. Default: on."""
    glossary = c.Type(str, default="glossary.md")
    """The page whose glossary terms are not marked (it defines them). Default: ``glossary.md``."""
    cache_dir = c.Optional(c.Type(str))
    """Keep each page's linked HTML here, keyed by its HTML, the linking code and Thunder's version, and
    reuse it; relative to ``mkdocs.yml``. Default: unset (link every page every build)."""


class TracesConfig(base.Config):
    """Options of ``thunder-traces``, which makes printed traces interactive (names, source lines, passes)."""

    enabled = c.Type(bool, default=True)
    """Mark up trace blocks and load the script and stylesheet on pages that have them. Default: on."""
    cache_dir = c.Optional(c.Type(str))
    """Keep each page's marked-up HTML here, keyed by its HTML, its trace maps and snippets and the
    marking code, and reuse it; relative to ``mkdocs.yml``. Default: unset (mark up every build)."""


class DownloadsConfig(base.Config):
    """Options of ``thunder-downloads``, which offers each page's code as a notebook and a ``.py`` file."""

    folder = c.Type(str, default="downloads")
    """The site folder the downloads go to. Default: ``downloads``."""


class ReferenceCacheConfig(base.Config):
    """Options of ``thunder-refcache``, which reuses the API reference's rendered entries."""

    enabled = c.Type(bool, default=True)
    """Reuse entries whose key is cached (reference_cache.py says what the key covers). Default: on."""
    cache_dir = c.Type(str, default=".cache/thunder-docs/reference")
    """Where rendered entries live, relative to ``mkdocs.yml``. Default: ``.cache/thunder-docs/reference``."""
    handler = c.Type(str, default="python")
    """The mkdocstrings handler whose entries are cached. Default: ``python``."""


class BuildCacheConfig(base.Config):
    """Options of ``thunder-buildcache``, which reuses the work other plugins repeat each build."""

    cache_dir = c.Type(str, default=".cache/thunder-docs/build")
    """The cache's folder, relative to ``mkdocs.yml``. Default: ``.cache/thunder-docs/build``."""
    search = c.Type(bool, default=True)
    """Reuse Material's search entries of pages whose HTML, title, meta and TOC are unchanged. Default: on."""
    highlight = c.Type(bool, default=True)
    """Reuse Pygments' highlighting of code blocks highlighted before with the same options. Default: on."""
    notebooks = c.Type(bool, default=True)
    """Reuse mkdocs-jupyter's conversion of notebooks converted before with the same options. Default: on."""
    pages = c.Type(bool, default=True)
    """Reuse each Markdown page's conversion to HTML while its Markdown, the files it includes, the
    site's files and the Markdown options are unchanged (page_cache.py says what is never reused).
    Default: on."""
    templates = c.Type(bool, default=True)
    """Keep the theme's Jinja templates compiled (Jinja's bytecode cache). Default: on."""


class CitationsConfig(base.Config):
    """Options of ``thunder-cite``, which resolves ``[[thunder/file.py:object]]`` citations."""

    cache_dir = c.Optional(c.Type(str))
    """Keep each page's Markdown with its citations resolved here, keyed by the Markdown, Thunder's
    version and the resolving code, and reuse it; relative to ``mkdocs.yml``. Default: unset
    (parse Thunder's cited files every build)."""
