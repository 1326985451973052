"""Put each section's output under the block that shows its code, as Markdown.

A section marked ``<!-- exec: cuda -->`` gets two tabs: the CPU output of this build, and
the CUDA output of this build (on a GPU machine) or the approved CUDA output, labelled with
where it was recorded, or a note that none has been recorded yet.
"""

from __future__ import annotations

import re

from pymdownx.snippets import SnippetPreprocessor

from thunder_docs.plugins.exec import approved
from thunder_docs.shared import block_ids
from thunder_docs.shared.model import Page, Site
from thunder_docs.shared.results import CPU, CUDA
from thunder_docs.shared.sections import Include

# Code and printed output stay out of the search index (Material skips elements marked
# data-search-exclude): the index loads with every page, and the prose and the reference
# already name what the code uses. The page's file keeps a bare ```python fence (mktestdocs).
NOT_SEARCHED = 'data-search-exclude="true"'


def insert_outputs(site: Site, page: Page, markdown: str, machine: str) -> str:
    """The page's Markdown with an output block after each include's fence; each block carries
    its identifier (shared/block_ids.py)."""
    lines = markdown.split("\n")
    for index, inc in reversed(list(enumerate(page.includes))):
        lines[inc.fence.end + 1 : inc.fence.end + 1] = _outputs(site, page, inc, index, machine)
        lines[inc.fence.start] = (f"{inc.fence.indent}{inc.fence.marker} {{ .{inc.fence.lang} {NOT_SEARCHED} "
                                  f"{block_ids.attribute(block_ids.code_block(index))} }}")
    return "\n".join(lines)


def _outputs(site: Site, page: Page, inc: Include, index: int, machine: str) -> list[str]:
    return _printed(site, page, inc, index, machine) + _graphs(site, page, inc)


def _graphs(site: Site, page: Page, inc: Include) -> list[str]:
    """A Mermaid fence for each graph the block asks for (drawn to SVG by thunder-diagrams)."""
    lines = []
    for _, text in site.results.graphs(CPU, page.path, inc.sections[-1]) if inc.graphs else ():
        lines += ["", f"{inc.fence.indent}```mermaid", *(inc.fence.indent + ln for ln in text.split("\n")),
                  f"{inc.fence.indent}```"]
    return lines


def _printed(site: Site, page: Page, inc: Include, index: int, machine: str) -> list[str]:
    cpu = site.results.output(CPU, page.path, inc.sections)
    cpu_id, cuda_id = block_ids.output_block(index, CPU), block_ids.output_block(index, CUDA)
    if not inc.cuda:
        return output_block(inc, cpu, inc.fence.indent, cpu_id) if cpu else []
    inner = inc.fence.indent + "    "
    if site.results.has(CUDA, page.path):
        cuda_title = f"CUDA ({machine}, this build)"
        cuda_body = output_block(inc, site.results.output(CUDA, page.path, inc.sections), inner, cuda_id, "exec-cuda")
    else:
        cuda_title, cuda_body = "CUDA", _recorded_cuda(site, page, inc, inner, cuda_id)
    cpu_body = output_block(inc, cpu, inner, cpu_id) or ["", f"{inner}(no output)"]
    return ["", f'{inc.fence.indent}=== "CPU (this build)"', *cpu_body,
            "", f'{inc.fence.indent}=== "{cuda_title}"', *cuda_body]


def _recorded_cuda(site: Site, page: Page, inc: Include, indent: str, ident: str) -> list[str]:
    path = site.approved_path(page, CUDA)
    recorded = approved.load(path)
    names = [s.name for s in inc.sections]
    if recorded is None or not all(n in recorded.sections for n in names):
        return ["", f"{indent}!!! info \"No CUDA output recorded yet\"",
                f"{indent}    This build ran on a machine without CUDA, and no output of this code on "
                f"CUDA has been recorded yet. The CPU tab shows what it printed here."]
    output = "\n".join(recorded.sections[n] for n in names if recorded.sections[n])
    return ["", f"{indent}!!! note \"Recorded output\"", f"{indent}    {recorded.label()}. This build ran "
            f"on a machine without CUDA, so it shows the approved output from `{site.shown(path)}`.",
            *output_block(inc, output, indent, ident, "exec-cuda")]


def output_block(inc: Include, output: str, indent: str, ident: str, css: str = "") -> list[str]:
    """A fenced block of printed output that shows it as printed: its fence longer than any run of
    backticks inside it, so no line closes it (thunder-cite and Markdown leave a fence's lines
    alone), and each line that pymdownx.snippets would read as a directive escaped. It carries
    its identifier ``ident`` (shared/block_ids.py)."""
    if not output:
        return []
    longest = max((len(run) for run in _BACKTICKS.findall(output)), default=0)
    fence = "`" * max(3, longest + 1)
    body = [_escape_snippets(indent + line) if line else line for line in output.split("\n")]
    classes = f".{inc.output_lang} .exec-output" + (f" .{css}" if css else "")
    return ["", f'{indent}{fence} {{ {classes} title="Output" {NOT_SEARCHED} {block_ids.attribute(ident)} }}',
            *body, f"{indent}{fence}"]


_BACKTICKS = re.compile(r"`+")


def _escape_snippets(line: str) -> str:
    """The line as pymdownx.snippets shows it after reading it, which is as printed.

    Snippets runs on the page's Markdown before fences are read, so a printed include
    (``--8<-- "file"``, or the ``--8<--`` that opens or closes a block of paths) would be
    replaced by the file, and a section marker (``--8<-- [start:name]``) removed. Snippets
    takes one ``;`` off the run of them before a marker and shows the line otherwise as it
    is; so one ``;`` goes there, also before one already there (``;--8<-- "file"`` stays so).
    Its own patterns decide what it would read.
    """
    match = SnippetPreprocessor.RE_ALL_SNIPPETS.match(line)
    if match is None and "8<-" in line:
        match = SnippetPreprocessor.RE_SNIPPET_SECTION.match(line)
    if match is None:
        return line
    return line[:match.start("escape")] + ";" + line[match.start("escape"):]
