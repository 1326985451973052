"""shared/html_tree.py: tokens keep the exact text, wrap only adds tags, each_pre hands each block."""

from __future__ import annotations

import pytest

from thunder_docs.shared.html_tree import each_pre, leaves, tokens, tree, wrap

BLOCK = '<span class="n">torch</span><span class="o">.</span><span class="n">add</span>(x, &amp;y)\n'


def test_tokens_cover_the_text_byte_for_byte_and_keep_attributes():
    html = '<div class="a b" id="i" data-x="1 &amp; 2"><p>t &lt; u</p><br/></div>'
    toks = tokens(html)
    assert "".join(html[t.start:t.end] for t in toks) == html
    div = toks[0]
    assert (div.name, div.classes, div.id, div.attr("data-x"), div.attr("missing")) == ("div", ("a", "b"), "i", "1 & 2", None)


def test_an_entity_is_one_character_of_text():
    root = tree(BLOCK)
    assert "".join(leaves(root)).count("\ufffc") == 1
    assert root.length == len("torch.add(x, &y)\n")


@pytest.mark.parametrize("first, last, shown", [
    (0, 8, "torch.add"),  # across three elements
    (6, 8, "add"),  # one element, whole
    (10, 10, "x"),  # inside a piece of text
    (13, 14, "&y"),  # an entity and the text after it
])
def test_wrap_adds_only_its_tags(first, last, shown):
    root = tree(BLOCK)
    assert wrap(root, first, last, "<a>", "</a>")
    html = root.html()
    assert html.replace("<a>", "").replace("</a>", "") == BLOCK
    inner = html[html.index("<a>") + 3:html.index("</a>")]
    assert "".join(leaves(tree(inner))).replace("\ufffc", "&") == shown


def test_wrap_refuses_a_stretch_that_cuts_an_element():
    root = tree(BLOCK)
    assert not wrap(root, 2, 7, "<a>", "</a>")  # "rch.ad": starts inside <span>torch</span>, ends inside another
    assert root.html() == BLOCK


def test_each_pre_hands_each_block_with_its_wrapper_and_replaces_only_what_it_is_told():
    html = ('<p>x</p><div class="highlight" data-exec-block="out-0"><pre><code>a</code></pre></div>'
            '<pre class="bare">b</pre>')
    seen = []

    def change(pre):
        seen.append((sorted(pre.classes), pre.wrapper_attr("data-exec-block"), pre.tag, pre.content))
        return ("<pre data-new>", pre.content.upper()) if pre.classes else None

    out = each_pre(html, change)
    assert seen == [(["highlight"], "out-0", "<pre>", "<code>a</code>"), ([], None, '<pre class="bare">', "b")]
    assert out == html.replace("<pre><code>a</code>", "<pre data-new><CODE>A</CODE>")


def test_each_pre_puts_what_change_returns_after_the_block():
    out = each_pre("<pre>a</pre>!", lambda pre: (pre.tag, pre.content, "<noscript>k</noscript>"))
    assert out == "<pre>a</pre><noscript>k</noscript>!"
