"""Nothing escapes a page: no process it started outlives it, and what it printed is shown as printed.

Processes: a section starts `sleep 600` in a session of its own, and another by a double
fork that leaves the session too (out of reach of the page's process group); after the
build, neither runs, whether the page finished or ran past its timeout, and under
`mkdocs serve` the number of processes stays flat over many rebuilds. Text: printed lines
that pymdownx.snippets, thunder-cite or Markdown would read (include directives, fences,
HTML, citations, abbreviations) show on the page exactly as printed; colour codes are
stripped and other control characters show as Unicode control pictures, so no control
byte reaches the HTML.

The builds that need no environment of their own run in this process (their page
processes come from this process's forkserver).
"""

from __future__ import annotations

import contextlib
import ctypes
import html
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from mkdocs.commands.build import build
from mkdocs.config import load_config
from test_serve import free_port, next_build_log, reader, served_at

from conftest import mkdocs_env

LINUX = Path("/proc/self/stat").exists() and sys.platform.startswith("linux")
needs_proc = pytest.mark.skipif(not LINUX, reason="processes are followed through /proc (Linux)")

SPAWN = '''\
# --8<-- [start:session]
import os
import subprocess
import time

session = subprocess.Popen(["sleep", "600"], start_new_session=True)
print("session", session.pid)
# --8<-- [end:session]

# --8<-- [start:double]
read, write = os.pipe()
middle = os.fork()
if middle == 0:  # a new session, a child in it, and gone: the child is an orphan
    try:
        os.setsid()
        orphan = subprocess.Popen(["sleep", "600"]).pid
        os.write(write, str(orphan).encode())
    finally:
        os._exit(0)
os.waitpid(middle, 0)
orphan = int(os.read(read, 20))
print("double", orphan)
# --8<-- [end:double]

# --8<-- [start:hang]
with open("pids.txt", "w") as pids:
    print(session.pid, orphan, file=pids)
time.sleep(600)
# --8<-- [end:hang]

# --8<-- [start:die]
with open("pids.txt", "w") as pids:
    print(session.pid, orphan, file=pids)
os._exit(3)  # the page's process dies without ending what it started
# --8<-- [end:die]
'''


def include(*names: str, front: str = "") -> str:
    blocks = "".join(f'```python\n--8<-- "snippets/page.py:{name}"\n```\n\n' for name in names)
    return f"{front}# Page\n\n{blocks}"


def build_here(throwaway) -> None:
    """Build in this process (faster than `mkdocs build` in its own)."""
    build(load_config(str(throwaway.folder / "mkdocs.yml"), site_dir=str(throwaway.folder / "site")))


def _sleeping(pid: int) -> bool:
    """Whether ``pid`` is still one of our `sleep 600`s: alive, or dead and never reaped (a zombie)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state == "Z" or cmdline == b"sleep\x00600\x00"


def assert_gone(*pids: int) -> None:
    deadline = time.monotonic() + 10
    while left := [pid for pid in pids if _sleeping(pid)]:
        if time.monotonic() > deadline:
            _kill(left)
            raise AssertionError(f"still there after the build: {left}")
        time.sleep(0.1)


def _kill(pids) -> None:
    """End the `sleep 600`s a failed test leaves (by their pids)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@needs_proc
def test_new_sessions_and_double_forks_end_with_the_page(throwaway):
    throwaway.write({"snippets/page.py": SPAWN, "docs/page.md": include("session", "double")})
    build_here(throwaway)
    shown = throwaway.html()
    pids = [int(re.search(rf"{name} (\d+)", shown)[1]) for name in ("session", "double")]
    assert_gone(*pids)


@needs_proc
def test_a_page_past_its_timeout_ends_with_what_it_started(throwaway):
    page = include("session", "double", "hang", front="---\nexec_timeout: 3\n---\n\n")
    log = throwaway.write({"snippets/page.py": SPAWN, "docs/page.md": page}, exec_options={"timeout": 3}).failed_build()
    assert "ran past the timeout of 3 s" in log
    pids = [int(pid) for pid in (throwaway.folder / "pids.txt").read_text().split()]
    assert_gone(*pids)


@needs_proc
def test_a_page_whose_process_dies_ends_with_what_it_started(throwaway):
    log = throwaway.write({"snippets/page.py": SPAWN, "docs/page.md": include("session", "double", "die")}).failed_build()
    assert "the worker process died (exit code 3)" in log
    pids = [int(pid) for pid in (throwaway.folder / "pids.txt").read_text().split()]
    assert_gone(*pids)


# -- under serve ------------------------------------------------------------------------------------
def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (FileNotFoundError, ProcessLookupError):
            continue
        children.setdefault(parent, []).append(int(stat.parent.name))
    found, queue = [], [root]
    while queue:
        below = children.get(queue.pop(), [])
        found += below
        queue += below
    return found


def _subreaper() -> None:
    """In the server's process, before it runs: orphans below it stay below it, where they are counted."""
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _spawning(value: int) -> str:
    return SPAWN.replace('print("session", session.pid)', f'print("session", session.pid, {value})')


def _next_run(lines) -> None:
    """Wait for the rebuild that runs the edited section (a rebuild may come first that runs
    nothing: the server can see a file change twice)."""
    for _ in range(3):
        if "executed 2 sections of 1 pages" in next_build_log(lines):
            return
    raise AssertionError("three rebuilds, and the edited section never ran")


@needs_proc
def test_serve_keeps_the_number_of_processes_flat(throwaway):
    """20 rebuilds, each running a section that starts two processes that would escape.

    The server is made a subreaper, so an escaped process (or an unreaped one) would stay
    below it and be counted: a leak cannot hide by being handed to init.
    """
    throwaway.write({"snippets/page.py": _spawning(0), "docs/page.md": include("session", "double")},
                    exec_options={})
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{free_port()}"],
        cwd=throwaway.folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=mkdocs_env(),
        preexec_fn=_subreaper,
    )
    lines = reader(proc)
    try:
        next_build_log(lines, end="Documentation built in")
        served_at(lines)  # watching now: an edit made before the server watches goes unseen
        time.sleep(0.5)
        before = len(_descendants(proc.pid))
        for value in range(1, 21):
            edited = throwaway.folder / "page.py.new"  # written whole, then renamed: never read half-written
            edited.write_text(_spawning(value))
            edited.replace(throwaway.folder / "snippets" / "page.py")
            _next_run(lines)
        after = len(_descendants(proc.pid))
        assert after == before, f"{before} processes below the server before 20 rebuilds, {after} after"
    finally:
        _kill(pid for pid in _descendants(proc.pid) if _sleeping(pid))
        proc.terminate()
        proc.wait(timeout=30)


# -- printed text ---------------------------------------------------------------------------------
PRINTED = [
    '--8<-- "README.md"',  # an include, inline form
    "    --8<-- 'README.md'",
    ';--8<-- "README.md"',  # already escaped: shown with its ";"
    ";;-8<- 'README.md'",
    "--8<--",  # an include, block form: the paths between two markers
    "README.md",
    "--8<--",
    "# --8<-- [start:part]",  # section markers, which snippets removes
    "text ;--8<-- [end:part] --8<-- [start:other]",
    "```",  # fences, which would end the output block
    "````python",
    "   ```",
    "  ``````",  # indented: still longer than the fence, unless the fence counts it
    "~~~",
    "~~~~ ``` `` `",
    "<b>x</b>",  # HTML
    "<!-- c -->",
    "&amp; &lt;b&gt;",
    "{{ x }}",  # templates
    "{% y %}",
    "[[thunder/core/trace.py:TraceCtx]]",  # a citation (thunder-cite)
    "`[[thunder/core/trace.py]]`",
    "*[HTML]: abbreviation",  # an abbreviation (abbr)
    "HTML",
    "=== \"Tab\"",  # a tab (pymdownx.tabbed)
    "!!! note",  # an admonition
]

TEXT_SNIPPET = """\
# --8<-- [start:printed]
with open("printed.txt") as printed:
    print(printed.read(), end="")
# --8<-- [end:printed]

# --8<-- [start:controls]
print("\\x1b[31mred\\x1b[0m and \\x1b[1;32mbold green\\x1b[0m, \\x1b]8;;https://example.com\\x07a link\\x1b]8;;\\x07")
print("bell\\x07 nul\\x00 backspace\\x08 escape\\x1b alone, del\\x7f, form feed\\x0c, unit\\x1f")
print("tab\\tstays, carriage\\rreturn, crlf line", end="\\r\\n")
print("last\\x0b")
# --8<-- [end:controls]
"""

CONTROLS = [
    "red and bold green, a link",
    "bell\u2407 nul\u2400 backspace\u2408 escape\u241b alone, del\u2421, form feed\u240c, unit\u241f",
    "tab stays, carriage",  # a carriage return ends a line, alone or before a newline
    "return, crlf line",
    "last\u240b",
]


def text_site(throwaway, sections: str):
    """A site with the Markdown extensions of the real one and the plugins that read a page after
    thunder-exec (its mkdocs.yml), a README to include and an abbreviation to apply."""
    extensions = ["abbr", "admonition", "attr_list", "md_in_html", "tables", {"toc": {"permalink": True}},
                  "pymdownx.details", {"pymdownx.highlight": {"anchor_linenums": False, "pygments_lang_class": True}},
                  "pymdownx.inlinehilite",
                  {"pymdownx.snippets": {"check_paths": True, "auto_append": ["includes/abbreviations.md"]}},
                  "pymdownx.superfences", {"pymdownx.tabbed": {"alternate_style": True}}]
    yml = {"site_name": "throwaway", "strict": True,
           "plugins": [{"thunder-exec": {"preload": [], "approve": False}}, "thunder-cite", "thunder-links",
                       "thunder-traces"],
           "markdown_extensions": extensions}
    page = "".join(f'```python\n--8<-- "snippets/page.py:{name}"\n```\n\n' for name in sections.split())
    throwaway.write_yml(yaml.safe_dump(yml, sort_keys=False), {
        "snippets/page.py": TEXT_SNIPPET, "printed.txt": "\n".join(PRINTED) + "\n",
        "README.md": "THE README\n", "includes/abbreviations.md": "*[HTML]: HyperText Markup Language\n",
        "docs/page.md": f"# Page\n\nSome HTML.\n\n{page}"})
    build_here(throwaway)
    return throwaway.html()


def shown(page_html: str) -> list[list[str]]:
    """The text of each output block, as a reader sees it: its <pre> without tags, unescaped."""
    blocks = BeautifulSoup(page_html, "html.parser").select(".exec-output pre")
    return [html.unescape(re.sub(r"<[^>]*>", "", block.decode_contents())).rstrip("\n").split("\n")
            for block in blocks]


def test_printed_text_is_shown_as_printed(throwaway):
    page_html = text_site(throwaway, "printed")
    assert shown(page_html) == [PRINTED]
    assert "THE README" not in page_html  # never included
    assert "<b>x</b>" not in page_html and "<!-- c -->" not in page_html
    assert "github.com" not in page_html  # the citation was not resolved
    assert '<abbr title="HyperText Markup Language">HTML</abbr>' in page_html  # the prose's is


def test_control_characters_never_reach_the_html(throwaway):
    page_html = text_site(throwaway, "controls")
    assert shown(page_html) == [CONTROLS]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", page_html)
