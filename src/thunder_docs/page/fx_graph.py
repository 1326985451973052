"""Draw how ThunderFX split one FX graph, as a Mermaid flowchart made from the objects.

Given a ``SubgraphInfo`` (an entry of a ThunderFX backend's ``subgraph_infos``), each node of
the graph that Dynamo handed over (``original_graph_module``) is drawn inside a box for the part
it went to (``split_graph_module``'s children, ``thunder_0``, ``inductor_1``, ...), labelled as
the FX code names it (``y = torch.sin``); the graph's inputs and its output are dashed nodes;
each arrow is a value a node reads. A node is in the part whose own graph has a node of the
same name, which is how ``torch.fx``'s ``split_module`` copies nodes.
"""

from __future__ import annotations

from typing import Any

from thunder_docs.page.graph import _quote

CALLS = ("call_function", "call_method", "call_module")


def is_split(obj: Any) -> bool:
    return all(hasattr(obj, name) for name in ("original_graph_module", "split_graph_module", "split_reasons"))


def _target(node) -> str:
    if node.op == "call_method":
        return f"{node.args[0]}.{node.target}" if node.args else str(node.target)
    if node.op == "call_module":
        return str(node.target)
    module = getattr(node.target, "__module__", None) or ""
    name = getattr(node.target, "__name__", None) or str(node.target)
    short = {"torch": "torch", "_operator": "operator"}.get(module.split(".")[0], module)
    return f"{short}.{name}" if short else name


def _runs_on(part: str) -> str:
    """What compiles a part, short enough for the title of its box."""
    return "thunder.jit" if part.startswith("thunder") else "TorchInductor" if part.startswith("inductor") else "eager"


def mermaid(info: Any, title: str) -> str:
    graph = info.original_graph_module.graph
    split = info.split_graph_module
    part_of: dict[str, str] = {}
    parts = [name for name, _ in split.named_children()]
    for name, module in split.named_children():
        for node in module.graph.nodes:
            if node.op in CALLS:
                part_of.setdefault(node.name, name)
    ids = {node.name: f"n{k}" for k, node in enumerate(graph.nodes)}
    lines, edges, inputs = [], [], []
    for node in graph.nodes:
        if node.op == "placeholder":
            inputs.append(node.name)
            lines.append(f'{ids[node.name]}["{_quote(node.name)}"]:::io')
        elif node.op == "output":
            lines.append(f'{ids[node.name]}["result"]:::io')
        for source in node.all_input_nodes:
            edges.append(f"{ids[source.name]} --> {ids[node.name]}")
    boxes = []
    for k, part in enumerate(parts):
        members = [n for n in graph.nodes if n.op in CALLS and part_of.get(n.name) == part]
        boxes.append(f'subgraph p{k}["{_quote(part)} ({_runs_on(part)})"]')
        boxes += [f'    {ids[n.name]}["{_quote(n.name)} = {_quote(_target(n))}"]' for n in members]
        boxes.append("end")
    unplaced = [n for n in graph.nodes if n.op in CALLS and n.name not in part_of]
    lines += [f'{ids[n.name]}["{_quote(n.name)} = {_quote(_target(n))}"]' for n in unplaced]
    summary = "; ".join(f"{part} ({_runs_on(part)}): "
                        + (", ".join(n.name for n in graph.nodes if part_of.get(n.name) == part) or "no node")
                        for part in parts)
    described = (f"How ThunderFX split the FX graph {title}: its inputs {', '.join(inputs) or 'none'}; "
                 f"the parts, each with the nodes it got: {summary}. Each arrow is a value a node reads.")
    return "\n".join(["flowchart TB", f"    accTitle: How ThunderFX split the FX graph {title}", f"    accDescr: {described}",
                      *("    " + line for line in boxes + lines + edges),
                      "    classDef io stroke-dasharray: 4 3"])
