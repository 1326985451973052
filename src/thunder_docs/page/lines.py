"""What each line of a recorded trace means, and which recorded line each printed line is.

page/capture.py records trace texts while a section runs; this module aligns a trace's text
with the bound symbols that printed it, matches the section's output lines to recorded lines
(the same line, after a diff's one-character prefix, or at the end of a labelled line), and
says what a matched line means, from its bound symbol: the names it defines and reads, its
symbol, executor, source line and subsymbol depth.
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, field, replace
from typing import Any

from thunder_docs.page.fx_sources import user_line
from thunder_docs.shared.trace_map import Line, Name

_SUFFIX = 16  # a labelled line must end with at least this much of a trace line


@dataclass
class Info:
    """What made one recorded line."""

    kind: str  # "op", "source" or "signature"
    bsym: Any = None
    depth: int = 0


@dataclass
class Recording:
    raw: list[str]  # the lines as Thunder made them
    infos: list[Info | None]
    trace: Any  # the TraceCtx, or None for a bound symbol printed on its own
    printed: int  # bytes of standard output printed before it was made
    norm: list[str] = field(default_factory=list)  # each line normalized as the output is



# -- aligning a trace's text with the bound symbols that printed it ---------------------------------
def align(trc, raw: list[str], groups: list) -> list[Info | None]:
    """Per line of a printed trace: the bound symbol that printed it, its source comment, its signature.

    ``groups`` are the top-level bound symbols in order, each with the lines it printed
    (TraceCtx.python prints a header, then each one's lines, with a source comment before
    a bound symbol whose source line differs from the one before it).
    """
    infos: list[Info | None] = [None] * len(raw)
    cursor, first = 0, None
    filename = lineno = None
    for bsym, lines, b_infos in groups:
        position = _find(raw, lines, cursor) if lines else cursor
        if position is None:
            break
        where = _source(bsym)
        if where and where != (filename, lineno) and position - 1 >= cursor and raw[position - 1].lstrip().startswith("#"):
            infos[position - 1] = Info("source", bsym, 0)
        filename, lineno = (bsym.source_filename, bsym.source_positions and bsym.source_positions.lineno)
        if lines:
            first = position if first is None else first
            infos[position:position + len(lines)] = b_infos
            cursor = position + len(lines)
    end = first if first is not None else len(raw)
    def_line = next((k for k in range(end - 1, -1, -1) if raw[k].startswith("def ")), None)
    if def_line is not None:
        infos[def_line] = Info("signature", None, 0)
    return infos


def _find(raw: list[str], lines: list[str], start: int) -> int | None:
    n = len(lines)
    for k in range(start, len(raw) - n + 1):
        if raw[k] == lines[0] and raw[k:k + n] == lines:
            return k
    return None


def _source(bsym) -> tuple[str, int] | None:
    positions = bsym.source_positions
    if bsym.source_filename is None or positions is None or positions.lineno is None:
        return None
    return bsym.source_filename, positions.lineno


def _linked_source(bsym) -> tuple[str, int] | None:
    """The line a trace line links to: its source line, or, for a line of FX's generated code
    (a ThunderFX trace), the user's line that FX recorded for it (page/fx_sources.py)."""
    where = _source(bsym)
    if where is not None and where[0].startswith("<eval_with_key>"):
        try:
            return user_line(*where) or where
        except Exception:  # noqa: BLE001 - a link is a help: never fail a page for want of one
            return where
    return where


def _shown_source(where: tuple[str, int] | None, norm) -> str:
    """``file:line`` as the page shows it (normalized), or "" for a file of no fixed place (a
    notebook kernel's temporary cell file): a machine's path never reaches the page."""
    if where is None:
        return ""
    shown = norm(f"{where[0]}:{where[1]}")
    return "" if shown.startswith("/") else shown


# -- matching the output's lines to recorded lines -------------------------------------------------
def _key(line: str) -> str:
    return " ".join(line.split())


def match_lines(out: list[str], recordings: list[Recording], norm) -> dict[int, tuple[int, int, int]]:
    """Output line -> (recording, its line, column where the trace's text starts)."""
    exact: dict[str, list[tuple[int, int]]] = {}
    ends: dict[str, list[tuple[int, int]]] = {}
    for r, rec in enumerate(recordings):
        for j, line in enumerate(rec.norm):
            if line.strip():
                exact.setdefault(_key(line), []).append((r, j))
                if len(line) >= _SUFFIX and "\t" not in rec.raw[j]:
                    ends.setdefault(line[-_SUFFIX:], []).append((r, j))

    def fits(i: int, r: int, j: int, diff: bool) -> bool:
        """Output line i shows recorded line j of r (after a diff's prefix, when diff)."""
        rec = recordings[r]
        if j >= len(rec.raw) or rec.printed > i:
            return False
        line = out[i]
        if not diff:
            return line == rec.norm[j]
        if not rec.raw[j].strip():
            return line == ""  # a blank line of a diff: " ", then stripped
        return line[:1] in ("+", "-", " ") and norm(line[0] + rec.raw[j]) == line

    matches: dict[int, tuple[int, int, int]] = {}
    i = 0
    while i < len(out):
        best = None  # (run, printed, recording, line, prefix)
        candidates = [(r, j, False) for r, j in exact.get(_key(out[i]), [])]
        if out[i][:1] in "+- " and len(out[i]) > 1:
            candidates += [(r, j, True) for r, j in exact.get(_key(out[i][1:]), [])]
        for r, j, prefix in candidates:
            run = 0
            while i + run < len(out) and fits(i + run, r, j + run, prefix):
                run += 1
            if run and any(recordings[r].infos[j + k] for k in range(run)):
                score = (run, recordings[r].printed, r)
                if best is None or score > best[0]:
                    best = (score, r, j, prefix)
        if best is not None:
            (run, _, _), r, j, prefix = best
            for k in range(run):
                if recordings[r].infos[j + k] is not None:
                    matches[i + k] = (r, j + k, 1 if prefix else 0)
            i += run
            continue
        tail = out[i][-_SUFFIX:]
        labelled = [(recordings[r].printed, r, j) for r, j in ends.get(tail, [])
                    if recordings[r].printed <= i and recordings[r].infos[j] is not None
                    and len(out[i]) > len(recordings[r].norm[j]) and out[i].endswith(recordings[r].norm[j])]
        if labelled:
            _, r, j = max(labelled)
            matches[i] = (r, j, len(out[i]) - len(recordings[r].norm[j]))
        i += 1
    return matches


# -- what a line means ---------------------------------------------------------------------------------
def proxies_of(bsym, attribute: str) -> list:
    try:
        return [p for p in getattr(bsym, attribute) if hasattr(p, "name")]
    except Exception:  # a bound symbol whose arguments cannot be flattened: no names
        return []


def _names_of(bsym, attribute: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.name for p in proxies_of(bsym, attribute)))


def annotation(proxy) -> str:
    try:
        return proxy.type_string()
    except Exception:
        return type(proxy).__name__


def signature(trc) -> list[tuple[str, Any]]:
    try:
        si = trc.siginfo()
    except Exception:
        return []
    params = list(si.args)
    if si.varargs:
        params.append(si.varargs)
    if si.varkwargs:
        params.append(si.varkwargs)
    params += list(si.kwargs.items())
    return [(name, value) for name, value in params]


def param(trc, name: str):
    for bsym in trc.bound_symbols:
        for proxy in proxies_of(bsym, "flat_proxy_outs"):
            if proxy.name == name:
                return proxy
    return None


def function_name(trc) -> str:
    try:
        return trc.siginfo().name
    except Exception:
        return ""


def saved(trc) -> tuple[str, ...]:
    """A forward trace returns (result, (saved tensors, saved non-tensors)): the saved tensors' names."""
    try:
        from thunder.core.pytree import tree_flatten

        tensors = trc.bound_symbols[-1].args[1][0]
        return tuple(dict.fromkeys(p.name for p in tree_flatten(tensors)[0] if hasattr(p, "name")))
    except Exception:
        return ()


def definitions(lines: list[Line]) -> list[Line]:
    """The lines of one trace, each name's definition marked: its first occurrence in the lines
    of the shallowest bound symbol whose outputs hold it."""
    best: dict[str, tuple[int, int, int]] = {}  # name -> (depth, position in lines, position in names)
    for k, line in enumerate(lines):
        for n, name in enumerate(line.names):
            if line.kind == "op" and name.name in line.defines:
                best[name.name] = min(best.get(name.name, (line.depth, k, n)), (line.depth, k, n))
    marked = {(k, n) for _, k, n in best.values()}
    return [replace(line, names=tuple(replace(name, defines=(k, n) in marked) for n, name in enumerate(line.names)))
            if any(k == m for m, _ in marked) else line for k, line in enumerate(lines)]


def line_of(i: int, trace: int, rec: Recording, j: int, col: int, norm) -> Line:
    info = rec.infos[j]
    text = rec.norm[j]
    if info.kind == "signature":
        params = {name for name, _ in signature(rec.trace)}
        names = tuple(Name(a + col, b + col, n) for a, b, n in _name_tokens(text, params))
        return Line(i, trace, "signature", names=names, col=col)
    bsym = info.bsym
    source = _shown_source(_linked_source(bsym), norm)
    if info.kind == "source":
        return Line(i, trace, "source", source=source, col=col)
    defines, reads = _names_of(bsym, "flat_proxy_outs"), _names_of(bsym, "flat_proxy_args")
    names = [Name(a + col, b + col, name) for a, b, name in _name_tokens(text, {*defines, *reads})]
    executor = getattr(bsym.sym, "executor", None)
    return Line(i, trace, "op", str(bsym.sym.id), getattr(executor, "name", "") or "", source, info.depth,
                defines, reads, tuple(names), col)


def _name_tokens(text: str, wanted: set[str], nested: bool = True) -> list[tuple[int, int, str]]:
    """Where the ``wanted`` names stand in a printed line, found with Python's tokenizer.

    A commented line (a subsymbol, an annotation) is read after its ``#``; names after a dot
    (attributes, ``ltorch.add``) and inside strings are not names of proxies.
    """
    body = text.lstrip(" ")
    offset = len(text) - len(body)
    while body.startswith("#"):
        stripped = body[1:].lstrip(" ")
        offset += len(body) - len(stripped)
        body = stripped
    found: list[tuple[int, int, str]] = []
    previous = ""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(body).readline):
            if tok.start[0] != 1:
                break
            if tok.type == tokenize.NAME and tok.string in wanted and previous != ".":
                found.append((offset + tok.start[1], offset + tok.end[1], tok.string))
            elif tok.type == tokenize.COMMENT and nested:
                found += [(offset + tok.start[1] + a, offset + tok.start[1] + b, n)
                          for a, b, n in _name_tokens(tok.string, wanted, nested=False)]
            previous = tok.string
    except (tokenize.TokenError, SyntaxError):
        pass  # an unfinished line (a printer that spreads a call over lines): the names before the end
    return found
