"""Which mentions of a name in a page's prose become links: the first one of each target.

A name in prose links at its first mention on the page; a later mention of the same target
(the same autorefs identifier, or the same URL) stays plain inline code, so that the page has
one Tab stop per target, not one per mention (Wikipedia's MOS:DUPLINK: link a term once, at its
first occurrence). A link the author wrote (``[text][identifier]``, a citation) is a mention too.

What a reader may never open does not use up the page's link. The content of a ``<details>``
(open or not) and each tab of a tabbed set (pymdownx.tabbed) is a part of the page of its own:
it sees what was linked before it, outside it, and what it links counts only inside it; only
the tab shown when the page loads (its radio button is checked) counts for the rest of the
page. Parts nest: a ``<details>`` in a tab is a part of that tab.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from thunder_docs.shared.html_tree import Token


@dataclass
class _Tabs:
    """A tabbed set: its radio buttons (one per tab, in order) and the tabs seen so far."""

    buttons: int = 0
    shown: int = 0  # the tab whose button is checked
    tabs: int = 0

    def add_button(self, *, checked: bool) -> None:
        if checked:
            self.shown = self.buttons
        self.buttons += 1

    def next_tab_is_shown(self) -> bool:
        self.tabs += 1
        return self.tabs - 1 == self.shown


@dataclass
class _Part:
    depth: int  # the place of the element that makes it in the stack of open elements
    before: frozenset[str]  # targets linked before it opened, outside it
    keep: bool  # when it ends, its links count for what follows it
    linked: set[str] = field(default_factory=set)
    tabs: _Tabs | None = None  # when the part is a tabbed set

    def knows(self, target: str) -> bool:
        return target in self.before or target in self.linked


class FirstMentions:
    """The targets linked so far in the part of the page being read (see the module docstring).

    Feed it every element as it opens (``open``) and the depth of the stack of open elements
    after each end tag (``close``).
    """

    def __init__(self) -> None:
        self._parts = [_Part(depth=-1, before=frozenset(), keep=True)]  # the page

    def first(self, target: str) -> bool:
        """Whether this mention of ``target`` is its first; from now on it is not."""
        part = self._parts[-1]
        if part.knows(target):
            return False
        part.linked.add(target)
        return True

    def open(self, tag: Token, depth: int) -> None:
        """An element starts (``tag``, its start tag) at ``depth`` in the stack of open elements."""
        top = self._parts[-1]
        if tag.name == "details":
            self._push(depth, top.before | top.linked, keep=False)
        elif tag.name == "div" and "tabbed-set" in tag.classes:
            self._push(depth, top.before | top.linked, keep=True, tabs=_Tabs())
        elif top.tabs is not None and tag.name == "input":
            top.tabs.add_button(checked=tag.attr("checked") is not None)
        elif top.tabs is not None and tag.name == "div" and "tabbed-block" in tag.classes:
            self._push(depth, top.before, keep=top.tabs.next_tab_is_shown())  # not its sibling tabs' links

    def close(self, depth: int) -> None:
        """The open elements are ``depth`` deep: the parts made by deeper ones have ended."""
        while len(self._parts) > 1 and self._parts[-1].depth >= depth:
            part = self._parts.pop()
            if part.keep:
                self._parts[-1].linked |= part.linked

    def _push(self, depth: int, before: frozenset[str], *, keep: bool, tabs: _Tabs | None = None) -> None:
        self._parts.append(_Part(depth, before, keep, tabs=tabs))


def written_target(tag: Token) -> str | None:
    """What a link the author wrote links to: an ``<autoref>``'s identifier, an ``<a>``'s href."""
    if tag.name == "autoref":
        return tag.attr("identifier")
    if tag.name == "a":
        return tag.attr("href")
    return None
