"""(e) Each kind of bad input fails the build with one message: page, snippet file:line, cause.

Each case builds a throwaway site in a temporary folder. Its plugin preloads nothing, so
these builds take seconds; the builds that must fail run in this process.
"""

import re
import textwrap
import time
from pathlib import Path

import pytest

OPTIONS = {"timeout": 30, "max_output_chars": 1000}

SNIPPET = '''\
# --8<-- [start:fine]
x = 1
print("fine", x)
# --8<-- [end:fine]

# --8<-- [start:boom]
y = x + 1
print(1 / 0)
# --8<-- [end:boom]

# --8<-- [start:hang]
while True:
    pass
# --8<-- [end:hang]

# --8<-- [start:chatty]
print("x" * 5000)
# --8<-- [end:chatty]

# --8<-- [start:diffy]
print("+ added")
print("- removed")
# --8<-- [end:diffy]
'''


def site(throwaway, page: str):
    return throwaway.write({"snippets/page.py": SNIPPET, "docs/page.md": textwrap.dedent(page)}, exec_options=OPTIONS)


def include(spec: str, before: str = "") -> str:
    return f'{before}# Page\n\nText.\n\n```python\n--8<-- "snippets/page.py:fine"\n```\n\n```python\n--8<-- "{spec}"\n```\n'


def assert_fails_cleanly(throwaway, page: str, *expected):
    log = site(throwaway, page).failed_build()
    for text in expected:
        assert text in log, f"{text!r} not in build log:\n{log}"
    assert "Traceback (most recent call last)" not in log.split("ERROR", 1)[0], "a crash, not a clear error"
    assert not (throwaway.folder / "site" / "page" / "index.html").exists(), "a failed build wrote the page"


def test_good_page_builds(throwaway):
    proc = site(throwaway, "# Page\n\n```python\n--8<-- \"snippets/page.py:fine\"\n```\n").build()
    assert proc.returncode == 0, proc.stdout
    assert "fine 1" in throwaway.html()


def test_output_language_option(throwaway):
    page = '# Page\n\n<!-- exec: output=diff -->\n```python\n--8<-- "snippets/page.py:diffy"\n```\n'
    proc = site(throwaway, page).build()
    assert proc.returncode == 0, proc.stdout
    html = throwaway.html()
    assert '<span class="gi">+ added</span>' in html and '<span class="gd">- removed</span>' in html


@pytest.mark.parametrize("options, cause", [
    pytest.param("colour=red", "unknown exec option 'colour' (known: cuda, graph, output, reads, runs, stepper)",
                 id="colour=red"),
    pytest.param("cuda=x", "exec option 'cuda' is a flag and takes no value: write cuda, not cuda=x", id="cuda=x"),
    pytest.param("stepper=yes", "exec option 'stepper' is a flag and takes no value", id="stepper=yes"),
    pytest.param("graph=", "exec option 'graph' needs a value: graph=traces[0],traces[-1]", id="graph="),
    pytest.param("graph=x,,y", "exec option 'graph=x,,y': an item is empty", id="graph=x,,y"),
    pytest.param("graph=traces[0", "exec option 'graph=traces[0': 'traces[0' is not a Python expression", id="graph=traces[0"),
    pytest.param("output=", "exec option 'output' needs a value: output=diff", id="output="),
    pytest.param("output=nolexer", "exec option 'output=nolexer': no Pygments lexer is named 'nolexer'", id="output=nolexer"),
    pytest.param("output=diff output=text", "exec option 'output' is given twice", id="output=diff output=text"),
])
def test_a_bad_option_names_the_page_and_the_line(throwaway, options, cause):
    page = f'# Page\n\n<!-- exec: {options} -->\n```python\n--8<-- "snippets/page.py:fine"\n```\n'
    assert_fails_cleanly(throwaway, page, f"thunder-exec: docs/page.md:3: {cause}")


@pytest.mark.parametrize("page", [
    '# Page\n\n<!-- exec: cuda -->\n\n```python\n--8<-- "snippets/page.py:fine"\n```\n',  # a blank line between
    '# Page\n\n<!-- exec: cuda -->\n```text\nprinted\n```\n',  # before a fence that runs nothing
    '# Page\n\n<!-- exec: cuda -->\nText.\n',
])
def test_options_not_right_before_a_python_fence_fail(throwaway, page):
    assert_fails_cleanly(throwaway, page, "thunder-exec: docs/page.md:3: exec options apply to the python fence on the "
                                          "next line, and the next line is not one")


def test_options_shown_inside_a_fence_are_text(throwaway):
    page = '# Page\n\n````markdown\n<!-- exec: colour=red -->\n```python\n--8<-- "snippets/page.py:fine"\n```\n````\n'
    proc = site(throwaway, page).build()
    assert proc.returncode == 0, proc.stdout
    assert "&lt;!-- exec: colour=red --&gt;" in throwaway.html()


def test_line_numbers_count_the_front_matter(throwaway):
    page = '---\nexec_timeout: 5\n---\n\n# Page\n\n<!-- exec: colour=red -->\n```python\n--8<-- "snippets/page.py:fine"\n```\n'
    assert_fails_cleanly(throwaway, page, "docs/page.md:7: unknown exec option 'colour'")


def test_section_that_raises(throwaway):
    assert_fails_cleanly(throwaway, include("snippets/page.py:boom"), "docs/page.md", "section 'boom'", "snippets/page.py:8",
                          "ZeroDivisionError: division by zero")


def test_section_past_its_timeout(throwaway):
    page = include("snippets/page.py:hang", before="---\nexec_timeout: 2\n---\n\n")
    assert_fails_cleanly(throwaway, page, "docs/page.md", "section 'hang'", "snippets/page.py:12",
                         "ran past the timeout of 2 s")


def test_output_over_the_limit(throwaway):
    assert_fails_cleanly(throwaway, include("snippets/page.py:chatty"), "docs/page.md", "section 'chatty'", "snippets/page.py:17",
                          "the limit of 1,000 characters")


def test_missing_snippet_file(throwaway):
    assert_fails_cleanly(throwaway, include("snippets/nope.py:fine"), "docs/page.md:9", "snippets/nope.py does not exist")


def test_missing_section(throwaway):
    assert_fails_cleanly(throwaway, include("snippets/page.py:nope"), "docs/page.md:9", "snippets/page.py has no section 'nope'",
                          "fine, boom, hang, chatty, diffy")


@pytest.mark.parametrize("fence", ["```python\nprint('typed by hand')\n```", '```python title="x"\nprint(1)\n```'])
def test_code_typed_on_the_page(throwaway, fence):
    assert_fails_cleanly(throwaway, f"# Page\n\n{fence}\n", "docs/page.md:3", "must only include snippet sections")


def test_a_page_leaves_nothing_running(throwaway):
    """A section that starts a process: the build ends it with the page (its process group)."""
    snippet = ('# --8<-- [start:spawn]\nimport subprocess\nchild = subprocess.Popen(["sleep", "600"])\n'
               'print("started", child.pid)\n# --8<-- [end:spawn]\n')
    throwaway.write({"snippets/page.py": snippet,
                     "docs/page.md": '# Page\n\n```python\n--8<-- "snippets/page.py:spawn"\n```\n'})
    proc = throwaway.build()
    assert proc.returncode == 0, proc.stdout
    pid = int(re.search(r"started (\d+)", throwaway.html())[1])
    deadline = time.monotonic() + 10
    while _running(pid):
        assert time.monotonic() < deadline, f"the section's child process {pid} still runs after the build"
        time.sleep(0.1)


def _running(pid: int) -> bool:
    """Whether a process runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_page_process_that_dies_before_it_is_ready_is_named():
    """The pipe closes before the page's process says it is ready (it died importing what every
    page preloads): the error names the page, the first section and the exit code, not EOFError."""
    from thunder_docs.plugins.exec.runner import ExecutionError, PageJob, Runner
    from thunder_docs.shared.sections import Section

    class ClosedPipe:
        def poll(self, timeout):
            return True

        def recv(self):
            raise EOFError

    class DeadProcess:
        exitcode = 3

        def join(self):
            pass

    section = Section(name="fine", path="snippets/page.py", start_line=2, code="x = 1\n")
    job = PageJob(page="docs/page.md", sections=[section], timeout=5, max_output_chars=1000)
    with pytest.raises(ExecutionError) as raised:
        Runner(Path("."))._ready(job, ClosedPipe(), DeadProcess())
    assert str(raised.value) == ("docs/page.md: section 'fine' failed at snippets/page.py:2: "
                                 "the worker process died before it was ready (exit code 3)")


def test_a_page_process_killed_by_a_signal_is_named_by_the_signal(throwaway):
    """A page's process that a signal ends (here SIGSEGV, as a crash in native code would) is
    reported by the signal's name, not as a negative exit code."""
    snippet = "# --8<-- [start:crash]\nimport os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n# --8<-- [end:crash]\n"
    page = '# Page\n\n```python\n--8<-- "snippets/page.py:crash"\n```\n'
    log = throwaway.write({"snippets/page.py": snippet, "docs/page.md": page}, exec_options=OPTIONS).failed_build()
    assert ("docs/page.md: section 'crash' failed at snippets/page.py:2: "
            "the worker process died (killed by SIGSEGV (signal 11))") in log
    assert "exit code -11" not in log


def test_exit_status_names_signals_and_exit_codes():
    from thunder_docs.plugins.exec.runner import exit_status

    assert exit_status(-9) == "killed by SIGKILL (signal 9)"
    assert exit_status(3) == "exit code 3"
    assert exit_status(-200) == "killed by an unknown signal (signal 200)"


def test_a_cache_folder_that_cannot_be_used_fails_at_once_naming_it(throwaway):
    """`.cache` a regular file: the build stops in its configuration, before any page runs, with
    one line naming the folder and what is in the way."""
    site(throwaway, "# Page\n\n```python\n--8<-- \"snippets/page.py:fine\"\n```\n")
    (throwaway.folder / ".cache").write_text("not a folder")
    log = throwaway.failed_build()
    assert ("thunder-exec: the cache folder .cache/thunder-docs cannot be used: .cache is a file, not a folder "
            "(its cache_dir option in mkdocs.yml)") in log
    assert "Traceback" not in log and "thunder-exec: executed" not in log  # no page ran


def test_a_site_without_attr_list_fails_naming_it(throwaway):
    """Output blocks carry their identifier as an attribute, which only attr_list passes on."""
    site(throwaway, "# Page\n")
    yml = (throwaway.folder / "mkdocs.yml").read_text().replace("- attr_list\n", "")
    (throwaway.folder / "mkdocs.yml").write_text(yml)
    log = throwaway.failed_build()
    assert "thunder-exec: needs the attr_list Markdown extension (markdown_extensions in mkdocs.yml)" in log
