"""MkDocs calls the hooks in the order plugins/pipeline.py writes down (mkdocs.yml loaded as the build loads it)."""

from __future__ import annotations

from mkdocs.config import load_config

from conftest import ROOT
from thunder_docs.plugins.pipeline import PIPELINE, order


def _called(config) -> dict[str, list[str]]:
    names = {id(plugin): name for name, plugin in config.plugins.items()}
    called = {}
    for event, methods in config.plugins.events.items():
        if methods:
            called[event] = [names.get(id(getattr(m, "__self__", None)), repr(m)) +
                             (f"@{m.mkdocs_priority}" if getattr(m, "mkdocs_priority", 0) else "") for m in methods]
    return called


def test_mkdocs_calls_the_hooks_in_the_order_of_the_pipeline_table():
    assert _called(load_config(str(ROOT / "mkdocs.yml"))) == order()


def test_every_hook_of_ours_says_what_it_does():
    silent = [(event, name) for event, hooks in PIPELINE.items() for name, role in hooks
              if name.startswith("thunder-") and not role]
    assert silent == []
