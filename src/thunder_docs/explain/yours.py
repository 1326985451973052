"""The explorer page's view of each line's chain (frames.py): on the trace lines, and under your source.

A trace line made inside a library carries its chain in the block's line map (``c``: one frame a
line, your line first; the name tooltip shows it) and the user's lines it passes through (``u``:
hovering one of them lights the trace line up, as for a line recorded in your file). Its source
comment links to the innermost of your lines. Under each of your files, each of your lines
lists every operation it produced, with a link to the trace line.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from thunder_docs.explain.frames import Chain, shown, your_lines
from thunder_docs.explain.report import Block
from thunder_docs.shared.trace_markup import source_id

ARROW = " → "


@dataclass(frozen=True)
class Made:
    """One operation (a top-level trace line) that one of the user's lines produced."""

    ident: str  # the id of the trace line's anchor
    text: str  # the trace line, stripped
    where: str  # the line Thunder recorded ("site-packages/torch/nn/modules/linear.py:125")
    block: str  # which trace: "Compilation 1, the computation trace"


def chain_text(chain: Chain) -> str:
    """The chain as the tooltip shows it: one frame a line, the user's line first."""
    return "\n".join(("" if k == 0 else "→ ") + frame.shown() for k, frame in enumerate(chain))


def extras(block: Block) -> dict[int, dict]:
    """The line-map fields a block's lines get from their chains (``u``, and ``c`` when the chain
    says more than the line's source comment)."""
    rows: dict[int, dict] = {}
    for line, chain in block.chains.items():
        row = {}
        if yours := your_lines(chain):
            row["u"] = " ".join(yours)
        if shown(chain):
            row["c"] = chain_text(chain)
        if row:
            rows[line] = row
    return rows


def link_of(chain: Chain, anchors: set[str]) -> tuple[str, str] | None:
    """Where a source comment of a library line links to: the innermost of the user's lines on
    its chain (the id of that line in the source view), and the link's title (the chain)."""
    if not shown(chain):
        return None
    frame = next(f for f in reversed(chain) if f.yours)
    ident = source_id(frame.path, frame.line)
    if ident not in anchors:
        return None
    return ident, "Your line, and the frames down to this one: " + ARROW.join(f.where for f in chain)


def op_ids(block: Block, number: int) -> dict[int, str]:
    """An id for each top-level trace line with a chain (the source view links to it)."""
    depth = {x.line: x.depth for x in block.trace_map.lines if x.kind == "op"}
    return {line: f"op-{number}-{line}" for line in block.chains if depth.get(line) == 0}


def made_by(blocks: list[tuple[str, Block, dict[int, str]]]) -> dict[str, list[Made]]:
    """Each of the user's lines ("path:line"), with every operation it produced, in page order."""
    found: dict[str, list[Made]] = {}
    for title, block, ids in blocks:
        texts = block.text.split("\n")
        for line, ident in ids.items():
            chain = block.chains[line]
            for where in your_lines(chain):
                found.setdefault(where, []).append(Made(ident, texts[line].strip(), chain[-1].where, title))
    return found


def listing(source: str, made: list[Made]) -> str:
    """Under a line of the user's: the operations it produced, each a link to its trace line."""
    path, _, line = source.rpartition(":")
    items = "".join(f'<li><a href="#{m.ident}"><code>{html.escape(m.text)}</code></a> '
                    f"<span class=\"ops-where\">{html.escape(m.block)}; recorded at {html.escape(m.where)}</span></li>"
                    for m in made)
    count = f"{len(made)} operation{'' if len(made) == 1 else 's'}"
    return (f'<details class="ops" id="ops-{source_id(path, int(line))}"><summary><code>{html.escape(source)}'
            f"</code>: {count}</summary><ul>{items}</ul></details>")


NOTE = ("<p>Under each file, each of your lines lists every operation it produced, in the traces above: "
        "those recorded on it and those recorded inside the functions and modules it called (a "
        "<code>torch.nn</code> module's line is torch's; the chain of frames from your line to it is in the "
        "tooltip of the names the operation defines, and its source comment links to your line). The "
        "backward's lines are not listed: Thunder records no source line for them (select one to light up "
        "the forward lines that made the tensors it reads).</p>")
