"""The sentence of a page that a failed assert proves.

A snippet's asserts check the claims of the prose around the block that shows them. So for an
assert that failed in section ``s``, the candidates are the sentences of the prose just before
and just after the include of ``s`` (up to the neighbouring code blocks); the one that shares
the most words with the assert line (its names, its strings, its comment) is the claim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from thunder_docs.shared.fences import iter_fences

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_LIST_ITEM = re.compile(r"^([-*+]|\d+\.)\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\[(])")
_COMMON = frozenset({"assert", "the", "and", "not", "for", "with", "that", "this", "are", "is", "len", "print",
                     "true", "false", "none", "in", "of", "its", "all", "any", "str", "isinstance", "thunder"})


@dataclass(frozen=True)
class FailedProof:
    page: str
    section: str
    where: str  # snippets/first_trace.py:31
    assertion: str  # the failed line of the snippet
    error: str  # the exception, one line
    sentence: str  # the sentence of the page it proves ("" when none is found)


def words(text: str) -> set[str]:
    """The words of a sentence or an assert line, compared loosely: lowercased, an identifier also
    as its parts (``cache_hits``: cache, hits), and without a plural's s (hits: hit)."""
    found = set()
    for word in _WORD.findall(text):
        for part in {word, *word.split("_")}:
            part = part.lower()
            found.add(part[:-1] if len(part) > 3 and part.endswith("s") and not part.endswith("ss") else part)
    return {w for w in found if len(w) > 2} - _COMMON


def prose_around(markdown: str, include: str) -> tuple[str, str] | None:
    """The prose paragraph just before and the one just after the fence that includes ``include``
    (``snippets/page.py:name``), fences, HTML comments and headings left out ("" for none); None
    when no fence includes it."""
    lines = markdown.split("\n")
    fences = [(f.start, f.end) for f in iter_fences(markdown)]
    for index, (begin, end) in enumerate(fences):
        if any(include in lines[j] for j in range(begin, end + 1)):
            before_from = fences[index - 1][1] + 1 if index else 0
            after_to = fences[index + 1][0] if index + 1 < len(fences) else len(lines)
            before, after = _paragraphs(lines[before_from:begin]), _paragraphs(lines[end + 1:after_to])
            return (before[-1] if before else "", after[0] if after else "")
    return None


def _paragraphs(lines: list[str]) -> list[str]:
    paragraphs, current = [], []
    for line in [*lines, ""]:
        text = line.strip()
        if _LIST_ITEM.match(text) and current:  # each list item is a paragraph of its own
            paragraphs.append(" ".join(current))
            current = []
        if not text or text.startswith(("#", "<!--")):
            if current:
                paragraphs.append(" ".join(current))
            current = []
        else:
            current.append(text)
    return paragraphs


def sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


def claim(markdown: str, include: str, assertion: str) -> str:
    """The sentence around ``include`` that shares the most words with ``assertion``; the last
    sentence before the block when none shares a word; "" when the page does not show it."""
    around = prose_around(markdown, include)
    if around is None:
        return ""
    before, after = sentences(around[0]), sentences(around[1])
    if not before + after:
        return ""
    wanted = words(assertion)
    best = max(before + after, key=lambda s: len(words(s) & wanted))  # the first of equals: before wins
    if not words(best) & wanted:
        return (before or after)[-1 if before else 0]
    return best
