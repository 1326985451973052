"""The memory a trace holds, line by line: the bytes of the tensors its names keep alive.

A tensor is alive from the line that defines its name (or from the start, for an argument) to the
``del`` line that deletes the name. Its bytes are its proxy's ``numel`` times its dtype's bytes.
A forward trace returns ``(result, (saved tensors, saved non-tensors))``: the saved tensors are
listed with the line that made each.

``thunder.examine.memory_calculation.get_alloc_memory`` estimates the peak of the same trace with
two other rules, so the explorer compares the two peaks and says why they differ (``Compared``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from thunder_docs.page.lines import saved as saved_names


@dataclass(frozen=True)
class Row:
    """One line of a trace: the names it defines, its symbol, and the bytes alive after it."""

    outputs: str  # the names it defines, or "del NAMES" for a del line
    symbol: str
    alive: int  # bytes of the tensors alive after the line
    peak: bool = False  # the first line after which the bytes alive are the most


@dataclass(frozen=True)
class Saved:
    """A tensor the forward saves for the backward: its bytes, and the line that made it."""

    name: str
    bytes: int
    made_by: str  # the symbol of the line that defines it, or "an argument"


@dataclass(frozen=True)
class Compared:
    """This count's peak beside ``memory_calculation``'s, and what in the trace makes them differ."""

    peak: int
    theirs: int
    arguments_freed: tuple[str, ...]  # arguments the trace deletes: freed here, kept to the end there
    aliases: tuple[str, ...]  # outputs of the operators it lists as aliases: their own bytes here, none there


@dataclass(frozen=True)
class Memory:
    rows: list[Row]
    start: int  # bytes alive before the first line: the tensor arguments
    saved: list[Saved]
    compared: Compared | None  # None when memory_calculation could not read the trace
    unknown: str = ""  # why there is no count (a shape that is not a number), or ""


class NotCounted(ValueError):
    """A tensor whose bytes are not a number at compile time (a symbolic shape)."""


def nbytes(proxy: Any) -> int:
    """The bytes of a tensor proxy, from its shape and dtype."""
    if not all(type(d) is int for d in proxy.shape):  # cache="symbolic values": a dimension is a proxy
        dims = ", ".join(str(getattr(d, "name", d)) for d in proxy.shape)
        raise NotCounted(f"{proxy.name} has the shape ({dims}), whose dimensions are not all numbers at compile "
                         'time (cache="symbolic values")')
    return int(proxy.numel) * int(proxy.dtype.bytes)


def _tensors(values) -> list[Any]:
    from thunder.core.proxies import TensorProxy

    return [p for p in values if isinstance(p, TensorProxy)]


def _arguments(trc: Any) -> list[Any]:
    from thunder.core.pytree import tree_flatten

    return _tensors(tree_flatten((trc.args, trc.kwargs))[0])


def rows(trc: Any) -> tuple[int, list[Row]]:
    """The bytes alive before the first line, and after each line of the trace."""
    from thunder.core.prims import PrimIDs

    alive = {p.name: nbytes(p) for p in _arguments(trc)}
    start, found = sum(alive.values()), []
    for bsym in trc.bound_symbols:
        if bsym.sym.id == PrimIDs.DEL:
            for p in _tensors(bsym.flat_proxy_args):
                alive.pop(p.name, None)
        else:
            for p in _tensors(bsym.flat_proxy_outs):
                alive.setdefault(p.name, nbytes(p))
        symbol = bsym.sym.id if isinstance(bsym.sym.id, str) else bsym.sym.name
        outputs = ", ".join(p.name for p in bsym.flat_proxy_outs) or "-"
        if bsym.sym.id == PrimIDs.DEL:  # what a del line deletes, as it prints
            outputs = "del " + ", ".join(p.name for p in bsym.flat_proxy_args)
        found.append(Row(outputs, symbol, sum(alive.values())))
    if found:
        top = max(range(len(found)), key=lambda k: (found[k].alive, -k))
        found[top] = Row(found[top].outputs, found[top].symbol, found[top].alive, peak=True)
    return start, found


def saved(trc: Any) -> list[Saved]:
    """The tensors a forward trace saves for the backward, with the line that made each."""
    names = saved_names(trc)
    if not names:
        return []
    arguments = {p.name for p in _arguments(trc)}
    made, sizes = {}, {}
    for bsym in trc.bound_symbols:
        for p in _tensors(bsym.flat_proxy_outs):
            made.setdefault(p.name, bsym.sym.name)
            sizes.setdefault(p.name, nbytes(p))
    for p in _arguments(trc):
        sizes.setdefault(p.name, nbytes(p))
    return [Saved(n, sizes.get(n, 0), "an argument" if n in arguments else made.get(n, "?")) for n in names]


def compared(trc: Any, peak: int) -> Compared | None:
    """``memory_calculation``'s peak of the trace, and the lines that make it differ from ``peak``."""
    from thunder.core.prims import PrimIDs
    from thunder.examine import memory_calculation

    try:
        theirs, changes = memory_calculation.get_alloc_memory(trc)
    except Exception:  # it asserts on traces it does not model (an alias of an unknown tensor, say)
        return None
    # Its changes are keyed "<symbol> <names>"; a tensor it frees has a negative change under a del
    # ("python_del t28") or under clear_mutable_collection (a cleared collection argument's tensors).
    # An alias operator's output shares its input's count there, so a tensor can be freed at the del
    # of an alias made from it: a name stands for the tensor it aliases, at any depth.
    listed = set(memory_calculation.thunder_alias_operator_list)
    base: dict[str, str] = {}
    for b in trc.bound_symbols:
        if b.sym.id in listed and b.flat_proxy_args:
            root = base.get(b.flat_proxy_args[0].name, b.flat_proxy_args[0].name)
            base.update((p.name, root) for p in _tensors(b.flat_proxy_outs))
    freed_there = {base.get(name, name) for key, change in changes.items() if change < 0
                   for name in [key.split(" ", 1)[-1]]}
    arguments = {p.name for p in _arguments(trc)}
    freed = tuple(dict.fromkeys(p.name for b in trc.bound_symbols if b.sym.id == PrimIDs.DEL
                                for p in _tensors(b.flat_proxy_args)
                                if p.name in arguments and p.name not in freed_there))
    aliases = tuple(p.name for b in trc.bound_symbols if b.sym.id in listed for p in _tensors(b.flat_proxy_outs))
    return Compared(peak, int(theirs), freed, aliases)


def memory(trc: Any, forward: bool = False) -> Memory:
    """What the page shows of one trace that runs (``forward``: it saves tensors for a backward)."""
    try:
        start, found = rows(trc)
        kept = saved(trc) if forward else []
    except NotCounted as unknown:
        return Memory([], 0, [], None, unknown=f"No count: {unknown}.")
    peak = max([start, *(r.alive for r in found)])
    return Memory(found, start, kept, compared(trc, peak))


def bytes_text(n: int) -> str:
    """Bytes as a reader reads them: 1,536 B (1.5 KiB)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n:,} B ({n / size:.1f} {unit})"
    return f"{n:,} B"


def note(c: Compared) -> str:
    """What the page says under a trace's memory table: the two peaks, and why they differ."""
    head = (f"Peak here: {bytes_text(c.peak)}. thunder.examine.memory_calculation.get_alloc_memory on the same "
            f"trace: {bytes_text(c.theirs)}.")
    why = []
    if c.arguments_freed:
        why.append(f"this count frees these arguments at their del ({', '.join(c.arguments_freed)}), where "
                   "memory_calculation keeps them to the end (it counts the caller's reference to an argument "
                   "too, and drops it only for the tensors held in a collection that is itself an argument of "
                   "the trace and that the trace clears, such as a backward's cotangents)")
    if c.aliases:
        why.append(f"this count gives their own bytes to {', '.join(c.aliases)}, outputs of the operators "
                   "memory_calculation lists as aliases (thunder_alias_operator_list), which it counts as none")
    if c.peak == c.theirs:
        return head + (" They agree." if not why else " The peaks agree, though the counts differ: " +
                       "; and ".join(why) + ".")
    if not why:
        return head + " They differ on lines neither rule above explains."
    return head + " They differ because " + "; and ".join(why) + "."


def section(which: str, m: Memory) -> str:
    """The memory table of one trace: bytes alive after each line, the peak marked; then the saved
    tensors of a forward, and the comparison with memory_calculation."""
    from thunder_docs.explain.page import _e, _table

    if m.unknown:
        return f"<h4>Memory of the {_e(which)} trace</h4>\n<p>{_e(m.unknown)}</p>"
    rows = [[r.outputs, r.symbol, bytes_text(r.alive), "peak" if r.peak else ""] for r in m.rows]
    out = [f"<h4>Memory of the {_e(which)} trace</h4>",
           f"<p>Before the first line, its tensor arguments hold {_e(bytes_text(m.start))}. A tensor is alive from "
           "the line that defines it to the <code>del</code> that deletes it; its bytes are its shape's elements "
           "times its dtype's bytes.</p>",
           _table(["outputs (or what it deletes)", "symbol", "alive after the line", "peak"], rows)]
    if m.saved:
        total = sum(s.bytes for s in m.saved)
        out.append(f"<p>Saved for the backward: {_e(bytes_text(total))}.</p>")
        out.append(_table(["saved tensor", "bytes", "made by"], [[s.name, bytes_text(s.bytes), s.made_by]
                                                                 for s in m.saved]))
    if m.compared is not None:
        out.append(f'<p class="memory-note">{_e(note(m.compared))}</p>')
    return "\n".join(out)
