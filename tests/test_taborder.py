"""Controls that repeat another leave the Tab order (thunder-taborder): heading permalinks, whose
anchors the table of contents links to, and the copy buttons of API signatures."""

import pytest
from bs4 import BeautifulSoup

from conftest import PAGES, SITE
from thunder_docs.plugins.taborder.plugin import no_copy_signatures, untab_permalinks


def test_permalinks_leave_the_tab_order_in_either_attribute_order():
    toc = '<h2 id="a">A<a class="headerlink" href="#a" title="Permanent link">&para;</a></h2>'
    api = '<h2 id="b">B<a href="#b" class="headerlink" title="Permanent link">&para;</a></h2>'
    for heading in (toc, api):
        link = BeautifulSoup(untab_permalinks(heading), "html.parser").a
        assert link["tabindex"] == "-1" and link["href"].startswith("#")
    done = untab_permalinks(toc)
    assert untab_permalinks(done) == done
    other = '<a class="autorefs" href="#a">A</a>'
    assert untab_permalinks(other) == other


def test_signatures_get_no_copy_and_other_blocks_keep_theirs():
    signature = '<div class="language-python doc-signature highlight"><pre><code>f(x)</code></pre></div>'
    assert 'class="language-python doc-signature highlight no-copy"' in no_copy_signatures(signature)
    assert no_copy_signatures(no_copy_signatures(signature)) == no_copy_signatures(signature)
    code = '<div class="language-python highlight"><pre><code>f(x)</code></pre></div>'
    assert no_copy_signatures(code) == code


@pytest.mark.parametrize("page", PAGES)
def test_no_permalink_is_a_tab_stop_and_no_signature_has_a_copy_button(built_site, page):
    soup = BeautifulSoup(SITE.built(built_site, page).read_text(encoding="utf-8"), "html.parser")
    tabbable = [a["href"] for a in soup.select("a.headerlink") if a.get("tabindex") != "-1"]
    assert not tabbable, f"{page}: permalinks in the Tab order: {tabbable}"
    copied = [d for d in soup.select("div.doc-signature") if "no-copy" not in d["class"]]
    assert not copied, f"{page}: {len(copied)} signatures keep Material's copy button"
    in_toc = {a["href"] for a in soup.select("nav.md-nav--secondary a[href]")}
    missing = [a["href"] for a in soup.select("h2 > a.headerlink, h3 > a.headerlink") if a["href"] not in in_toc]
    assert not missing, f"{page}: permalinks the table of contents does not link to: {missing}"
