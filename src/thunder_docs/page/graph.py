"""Draw a trace as a Mermaid dataflow graph, made from the trace object, never from its printed text.

Runs in a page's worker, where the snippet's objects live (``<!-- exec: graph=NAME -->``). Each
bound symbol is a node labelled as its line prints (``t0 = ltorch.add``); an input is a node
with a dashed border and its name (so is the return); each proxy a line reads is an edge from the node that made it, labelled with
the proxy's name and its annotation as the trace prints it, less the device (``x: f32[2, 3]``), on the
first arrow of each value. ``del`` lines
are left out: they free values and carry no data. Given a bound symbol (a fusion region), the
graph shows its subsymbols, with its inputs as the graph's inputs.
"""

from __future__ import annotations

from typing import Any


def mermaid(obj: Any, title: str) -> str:
    from thunder.core.prims import PrimIDs
    from thunder.core.symbol import BoundSymbol
    from thunder.core.trace import TraceCtx

    if isinstance(obj, TraceCtx):
        bsyms, inputs = obj.bound_symbols, []
    elif isinstance(obj, BoundSymbol):
        bsyms, inputs = obj.subsymbols, list(obj.flat_proxy_args)
    else:
        from thunder_docs.page import fx_graph

        if fx_graph.is_split(obj):  # a ThunderFX SubgraphInfo: how its FX graph was split
            return fx_graph.mermaid(obj, title)
        raise TypeError(f"graph={title}: a {type(obj).__name__}, not a trace, a bound symbol or a ThunderFX "
                        "SubgraphInfo")
    nodes, edges = [], []
    made_by: dict[str, str] = {}  # proxy name -> the node that made it
    labelled: set[str] = set()  # values whose first arrow has its label
    for number, proxy in enumerate(inputs):
        made_by[proxy.name] = f"in{number}"
        nodes.append(f'in{number}["{_quote(proxy.name)}"]:::io')
    for number, bsym in enumerate(bsyms):
        if bsym.sym.id == PrimIDs.DEL:
            continue
        node = f"n{number}"
        if bsym.sym.id == PrimIDs.UNPACK_TRIVIAL:
            nodes.append(f'{node}["{_quote(", ".join(p.name for p in bsym.flat_proxy_outs))}"]:::io')
        elif bsym.sym.id == PrimIDs.RETURN:
            nodes.append(f'{node}["return"]:::io')
        else:
            nodes.append(f'{node}["{_quote(_call(bsym))}"]')
        for proxy in _unique(bsym.flat_proxy_args):
            if proxy.name not in made_by:
                continue
            if proxy.name in labelled:  # one label per value, on its first arrow: fewer labels collide
                edges.append(f"{made_by[proxy.name]} --> {node}")
            else:
                labelled.add(proxy.name)
                edges.append(f'{made_by[proxy.name]} -->|"{_quote(_annotation(proxy))}"| {node}')
        for proxy in bsym.flat_proxy_outs:
            made_by[proxy.name] = node
    described = (f"The dataflow of {title}: {len(nodes)} nodes, one per input and per line of the trace "
                 "(del lines left out); each arrow is a value, labelled with its name, dtype and shape on its first arrow.")
    return "\n".join(["flowchart TB", f"    accTitle: Dataflow of {title}", f"    accDescr: {described}",
                      *("    " + line for line in nodes + edges),
                      # Plain rectangles: Mermaid draws other shapes as long curved paths (30 KB a node).
                      "    classDef io stroke-dasharray: 4 3"])


def _call(bsym) -> str:
    """The line as the trace prints it, up to its arguments: ``t0 = ltorch.add``."""
    line = next(ln for ln in bsym.python(0, print_depth=1) if not ln.lstrip().startswith("#"))
    return line.split("(", 1)[0].strip()


def _annotation(proxy) -> str:
    """The proxy's name and its annotation as the trace prints it, less the device: ``x: f32[2, 3]``."""
    shown = proxy.type_string() if hasattr(proxy, "type_string") else type(proxy).__name__
    device = getattr(proxy, "device", None)
    if device is not None and shown.startswith(f"{device.device_str()} "):
        shown = shown.split(" ", 1)[1]
    return f"{proxy.name}: {shown}"


def _unique(proxies) -> list:
    seen, found = set(), []
    for proxy in proxies:
        if proxy.name not in seen:
            seen.add(proxy.name)
            found.append(proxy)
    return found


def _quote(text: str) -> str:
    """Text safe inside a Mermaid label or accessibility line."""
    return text.replace('"', "#quot;").replace("\n", " ")
