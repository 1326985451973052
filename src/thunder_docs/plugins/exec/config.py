"""The options of ``thunder-exec``, each with what it does and its default.

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
    keep_going = c.Type(bool, default=False)
    """A section that fails does not fail the build: its page shows the sections before it and a
    note in place of it and those after it, and the build logs a warning. For builds with another
    Thunder (``scripts/dev build --thunder``), whose outputs are never approved. Default: off."""
    update_approved = c.Type(bool, default=False)
    """Accept this build's output as the approved output instead of comparing. Default: off."""
    approved_dir = c.Type(str, default="snippets/approved")
    """Where approved outputs live (``<device>/<page>.txt``), relative to ``mkdocs.yml``. Default: ``snippets/approved``."""
    stderr_log = c.Type(str, default="")
    """Where what executed code wrote to stderr goes (the build log gets a line per page). Default:
    ``stderr.log`` in ``cache_dir``."""
    stats_file = c.Optional(c.Type(str))
    """Write the build's execution statistics (JSON) to this file, for the benchmark. Default: unset."""
