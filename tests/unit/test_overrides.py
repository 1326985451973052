"""Each Material template the site replaces (overrides/) is compared with the file of the installed
Material it was taken from: an upgrade of Material that changes one of them fails here, naming it,
instead of the site going on with a stale copy.

A partial that is Material's with a few changes is Material's file with exactly those changes (and,
for one, a script appended). A file the site writes anew stands for a Material file whose digest is
recorded: when Material's changes, look at what changed, carry it over, and record the new digest.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import material
import pytest

from conftest import ROOT

MATERIAL = Path(material.__file__).parent / "templates"
OVERRIDES = ROOT / "overrides"
COMMENT = re.compile(r"\A\{#-.*?-#\}\n", re.S)  # the opening comment: Material's "generated" note, or ours

# Material's partial, its opening comment left out, with these replacements (each made once), and
# whether the override appends more after it.
CHANGED = {
    "partials/palette.html": ([('<form class="md-header__option" data-md-component="palette">',
                                '<form class="md-header__option" data-thunder-palette autocomplete="off">')], False),
    "partials/source.html": ([(' class="md-source" data-md-component="source">', ' class="md-source">')], False),
    "partials/search.html": ([('<div class="md-search" data-md-component="search" role="dialog">',
                               '<div class="md-search" data-md-component="search" role="dialog" '
                               "aria-label=\"{{ lang.t('search') }}\">")], True),
}
# Written anew: the digest (sha256, first 16 hex digits) of the Material file each replaces.
REPLACED = {
    "404.html": "80c93494b5432b1b",
    "partials/javascripts/palette.html": "8790389765ea6036",
}


def _body(text: str) -> str:
    return COMMENT.sub("", text, count=1)


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_a_changed_partial_is_material_s_with_only_its_stated_changes(name):
    replacements, appends = CHANGED[name]
    expected = _body((MATERIAL / name).read_text(encoding="utf-8"))
    for old, new in replacements:
        assert expected.count(old) == 1, f"Material's {name} no longer has {old!r} once: carry the change over"
        expected = expected.replace(old, new)
    ours = _body((OVERRIDES / name).read_text(encoding="utf-8"))
    if appends:
        assert ours.startswith(expected), f"overrides/{name} is not Material's {name} with its stated changes"
    else:
        assert ours == expected, f"overrides/{name} is not Material's {name} with its stated changes"


@pytest.mark.parametrize("name", sorted(REPLACED))
def test_a_replaced_file_stands_for_the_material_file_it_was_written_against(name):
    found = hashlib.sha256((MATERIAL / name).read_bytes()).hexdigest()[:16]
    assert found == REPLACED[name], (f"Material's {name} changed ({found}): see what changed, carry it over to "
                                     f"overrides/{name}, then record the new digest here")


def test_every_override_is_compared():
    ours = {p.relative_to(OVERRIDES).as_posix() for p in OVERRIDES.rglob("*.html")}
    assert ours == {*CHANGED, *REPLACED, "main.html"}  # main.html extends base.html: tests/browser/test_site_files.py


def test_main_html_extends_material_s_scripts_block():
    base = (MATERIAL / "base.html").read_text(encoding="utf-8")
    block = base[base.index("{% block scripts %}"):]
    assert '<script src="{{ \'assets/javascripts/bundle.' in block[:block.index("{% endblock %}")]
