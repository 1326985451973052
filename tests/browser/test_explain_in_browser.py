"""thunder-explain's page in Chromium, from its file:// URL (the pages come from tests/test_explain.py)."""

from __future__ import annotations

import pytest
from test_explain import explain

from conftest import ROOT

from .harness import AXE_TAGS

pytestmark = pytest.mark.xdist_group("browser")


@pytest.fixture(scope="module")
def training(tmp_path_factory):
    proc, _ = explain(tmp_path_factory.mktemp("explain"), "training")
    assert proc.returncode == 0, proc.stderr
    return proc.page


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_works_from_disk_with_no_request(training, scheme, browser):
    """From the file:// URL: hovering a name links its uses with a tooltip, Enter pins it, a fold
    button folds, and the page asks no host for anything; axe-core finds nothing serious."""
    context = browser.new_context(color_scheme=scheme)
    try:
        tab = context.new_page()
        requests, errors = [], []
        tab.on("request", lambda r: requests.append(r.url))
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.goto(training.as_uri())
        assert tab.evaluate("document.body.dataset.mdColorScheme") == ("slate" if scheme == "dark" else "default")
        name = tab.locator(".tp[data-def]").first
        name.hover()
        assert tab.locator(".tp.is-linked").count() >= 2
        assert tab.locator("#trace-tip").is_visible()
        fold = tab.locator(".tfold").first
        fold.click()
        assert fold.get_attribute("aria-expanded") == "false"
        tab.add_script_tag(path=str(ROOT / "node_modules" / "axe-core" / "axe.min.js"))
        # The site's rule set (harness.AXE_TAGS): WCAG 2.0, 2.1 and 2.2, A and AA.
        found = tab.evaluate("(tags) => axe.run(document, {runOnly: tags})", AXE_TAGS)
        serious = [(v["id"], [n["target"] for n in v["nodes"]][:5]) for v in found["violations"]
                   if v["impact"] in ("serious", "critical")]
    finally:
        context.close()
    assert errors == [], errors
    assert serious == [], serious
    assert [r for r in requests if not r.startswith(("file:", "data:"))] == []


def test_your_line_lights_up_the_lines_made_inside_a_module_and_the_tooltip_shows_the_chain(tmp_path, browser):
    """Hovering the user's forward line lights up the linear that torch's linear.py recorded; the
    tooltip of the name it defines shows the chain from the script's call down to linear.py."""
    proc, _ = explain(tmp_path, "yourline")
    assert proc.returncode == 0, proc.stderr
    tab = browser.new_page()
    try:
        tab.goto(proc.page.as_uri())
        code = tab.locator("figure.trace code[data-traces]").first
        code.scroll_into_view_if_needed()
        tab.wait_for_selector("figure.trace code.is-marked")
        tab.locator("#src-yourline-12").hover()
        lit = tab.locator('.tl.is-src[data-src="site-packages/torch/nn/modules/linear.py:125"]')
        assert lit.count() >= 1
        linear = tab.locator('.tl[data-sym="linear"][data-depth="0"] .tp[data-def]').first
        linear.hover()
        chain = tab.locator("#trace-tip .tt-chain")
        assert chain.is_visible()
        assert chain.inner_text().startswith("made at: yourline.py:16  model(")
        assert "→ site-packages/torch/nn/modules/linear.py:125" in chain.inner_text()
    finally:
        tab.close()
