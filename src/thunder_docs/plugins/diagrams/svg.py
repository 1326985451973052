"""What the build does to an SVG that Mermaid drew: one drawing for both colour schemes, and less of it.

Mermaid puts a stylesheet in every SVG, made from its theme and scoped to the SVG's id: the
same rules for every diagram of a type (flowchart, class, sequence), then the diagram's own
(its ``classDef`` lines). The build draws each diagram once, in the light theme, and moves the
rules every diagram of its type shares into the site's stylesheet, once per type: the rules
both themes write alike once, the others once per scheme, under Material's
``[data-md-color-scheme]``, which Material sets before the page is painted (nothing flashes).
The SVG keeps only its own rules.

The rest makes the SVG smaller and valid HTML: attributes no browser reads (``data-*``, which
only Mermaid's script would; ``name``, which SVG has not; an empty ``font-weight``), markers and symbols nothing uses,
one text node per line of a label instead of one per word, and coordinates to 1/100 px. An
entity that SVG labels show as typed (``#95;`` or ``->`` is ``&#95;`` or ``-&gt;`` on the page)
becomes its character.
"""

from __future__ import annotations

import html
import re

ROLE = re.compile(r'aria-roledescription="([^"]+)"')
_STYLE = re.compile(r"<style>(.*?)</style>", re.S)
_SCOPE = "\x00"  # stands for the SVG's id in a rule's selectors while rules are compared


def role(svg: str) -> str:
    """The diagram's type as Mermaid names it on the SVG (``flowchart-v2``, ``class``, ``sequence``)."""
    match = ROLE.search(svg)
    return match.group(1) if match else ""


def rules(svg: str, svg_id: str) -> list[str]:
    """The rules of the SVG's stylesheet, in order, as CSS (Mermaid writes ``>`` as ``&gt;``), with
    its id written as ``_SCOPE``."""
    match = _STYLE.search(svg)
    css = html.unescape(match.group(1)) if match else ""
    found, depth, start = [], 0, 0
    for index, char in enumerate(css):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                found.append(css[start:index + 1].strip().replace(f"#{svg_id}", _SCOPE))
                start = index + 1
    return [rule for rule in found if rule]


def scoped(rule: str, scope: str) -> str:
    """A rule with ``_SCOPE`` replaced by ``scope`` (a rule without it, an @keyframes, stays)."""
    return rule.replace(_SCOPE, scope)


def type_stylesheet(role_name: str, light: list[str], dark: list[str]) -> str:
    """The rules that every diagram of a type shares, for both schemes (see the module's docstring)."""
    base = f'.diagram svg[aria-roledescription="{role_name}"]'
    schemes = {"light": '[data-md-color-scheme="default"] ', "dark": '[data-md-color-scheme="slate"] '}
    out = []
    if len(light) == len(dark) and all(_selector(a) == _selector(b) for a, b in zip(light, dark, strict=True)):
        for a, b in zip(light, dark, strict=True):
            if _SCOPE not in a:  # @keyframes, :root: the same in both
                out.append(a)
            elif a == b:  # the same specificity as a scheme's rule, so the order decides, as in Mermaid's
                out.append(scoped(a, "[data-md-color-scheme] " + base))
            else:
                out.append(scoped(a, schemes["light"] + base))
                out.append(scoped(b, schemes["dark"] + base))
    else:  # the themes wrote different rules: each scheme gets its own
        out += [scoped(r, schemes["light"] + base) for r in light if _SCOPE in r]
        out += [scoped(r, schemes["dark"] + base) for r in dark if _SCOPE in r]
        out += [r for r in dict.fromkeys(light + dark) if _SCOPE not in r]
    return "\n".join(dict.fromkeys(out)) + "\n"


def _selector(rule: str) -> str:
    return rule.split("{", 1)[0]


def own_rules(svg: str, svg_id: str, shared: list[str]) -> str:
    """The SVG with only the rules its type does not share (its classDefs) left in its stylesheet."""
    common = set(shared)
    own = [html.escape(scoped(r, f"#{svg_id}"), quote=False) for r in rules(svg, svg_id) if r not in common]
    return _STYLE.sub(lambda _: f"<style>{''.join(own)}</style>" if own else "", svg, count=1)


_DATA = re.compile(r' (?:data-[\w-]+|name)="[^"]*"| font-(?:weight|style)=""')
_EMPTY_STYLE = re.compile(r' style=""')
_WORDS = re.compile(r'((?:<tspan font-style="normal" class="text-inner-tspan"(?: font-weight="normal")?>[^<]*</tspan>)+)')
_NUMBERED = re.compile(r' (d|x|y|x1|x2|y1|y2|cx|cy|r|rx|ry|width|height|transform|viewBox|points|style|refX|refY)="([^"]*)"')
_LONG_NUMBER = re.compile(r"(-?\d+\.\d{3,})")
_TYPED_ENTITY = re.compile(r"&amp;(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")
_DEFINED = re.compile(r'<(marker|symbol)\b[^>]*\bid="([^"]+)".*?</\1>', re.S)


def compact(svg: str) -> str:
    """The SVG without what no reader's browser uses, its numbers to 1/100 px (see the module's docstring)."""
    svg = _DATA.sub("", svg)
    svg = _TYPED_ENTITY.sub(lambda m: html.escape(html.unescape(f"&{m.group(1)};"), quote=False), svg)
    svg = _EMPTY_STYLE.sub("", svg)
    svg = _WORDS.sub(lambda m: re.sub(r"<[^>]+>", "", m.group(1)), svg)
    svg = _NUMBERED.sub(lambda m: f' {m.group(1)}="{_LONG_NUMBER.sub(_round, m.group(2))}"', svg)
    for match in list(_DEFINED.finditer(svg)):
        ident = match.group(2)
        if f"#{ident})" not in svg and f'"#{ident}"' not in svg:
            svg = svg.replace(match.group(0), "", 1)
    svg = svg.replace("<defs></defs>", "")
    return svg


def _round(match: re.Match) -> str:
    text = f"{float(match.group(1)):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text
