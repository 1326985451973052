"""The identifier of each block the build writes into a page: how the traces plugin finds the
blocks that ``plugins/exec/render.py`` wrote, after Markdown made them HTML.

Each include's code block and each of its output blocks carries ``data-exec-block`` (on the
``<div>`` Pygments wraps the block in): ``code-<k>``, ``out-<k>`` and ``out-<k>-cuda`` for the
k-th include of the page (from 0, in page order). A block is found by its identifier, never by
its position among the page's blocks, so a block that Markdown, an extension or the author adds
(an admonition around one, a hand-written fence) cannot shift the others.
"""

from __future__ import annotations

from thunder_docs.shared.results import CPU

ATTRIBUTE = "data-exec-block"


def code_block(index: int) -> str:
    return f"code-{index}"


def output_block(index: int, device: str) -> str:
    return f"out-{index}" if device == CPU else f"out-{index}-{device}"


def attribute(ident: str) -> str:
    """The attribute as it goes in a fence's braces (pymdownx.superfences puts it on the <div>)."""
    return f'{ATTRIBUTE}="{ident}"'
