"""(e) Each kind of bad input fails the build with one message: page, snippet file:line, cause.

Each case builds a throwaway site in a temporary folder. Its plugin preloads nothing, so
these builds take seconds.
"""

import textwrap

import pytest

from conftest import mkdocs_build, write_site

MKDOCS_YML = """\
site_name: throwaway
strict: true
plugins:
  - thunder-exec:
      preload: []
      approve: false
      timeout: 30
      max_output_chars: 1000
markdown_extensions:
  - pymdownx.snippets
  - pymdownx.superfences
"""

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


def build(tmp_path, page: str):
    write_site(tmp_path, MKDOCS_YML, {"snippets/page.py": SNIPPET, "docs/page.md": textwrap.dedent(page)})
    proc = mkdocs_build(tmp_path)
    return proc, proc.stdout


def include(spec: str, before: str = "") -> str:
    return f'{before}# Page\n\nText.\n\n```python\n--8<-- "snippets/page.py:fine"\n```\n\n```python\n--8<-- "{spec}"\n```\n'


def assert_failed_cleanly(proc, log, tmp_path, *expected):
    assert proc.returncode != 0, log
    for text in expected:
        assert text in log, f"{text!r} not in build log:\n{log}"
    assert "Traceback (most recent call last)" not in log.split("ERROR", 1)[0], "a crash, not a clear error"
    assert not (tmp_path / "site" / "page" / "index.html").exists(), "a failed build wrote the page"


def test_good_page_builds(tmp_path):
    proc, log = build(tmp_path, "# Page\n\n```python\n--8<-- \"snippets/page.py:fine\"\n```\n")
    assert proc.returncode == 0, log
    assert "fine 1" in (tmp_path / "site" / "page" / "index.html").read_text()


def test_output_language_option(tmp_path):
    page = '# Page\n\n<!-- exec: output=diff -->\n```python\n--8<-- "snippets/page.py:diffy"\n```\n'
    proc, log = build(tmp_path, page)
    assert proc.returncode == 0, log
    html = (tmp_path / "site" / "page" / "index.html").read_text()
    assert '<span class="gi">+ added</span>' in html and '<span class="gd">- removed</span>' in html


def test_unknown_option(tmp_path):
    page = '# Page\n\n<!-- exec: colour=red -->\n```python\n--8<-- "snippets/page.py:fine"\n```\n'
    proc, log = build(tmp_path, page)
    assert_failed_cleanly(proc, log, tmp_path, "docs/page.md:4", "unknown exec option 'colour'")


def test_section_that_raises(tmp_path):
    proc, log = build(tmp_path, include("snippets/page.py:boom"))
    assert_failed_cleanly(proc, log, tmp_path, "docs/page.md", "section 'boom'", "snippets/page.py:8",
                          "ZeroDivisionError: division by zero")


def test_section_past_its_timeout(tmp_path):
    proc, log = build(tmp_path, include("snippets/page.py:hang", before="---\nexec_timeout: 2\n---\n\n"))
    assert_failed_cleanly(proc, log, tmp_path, "docs/page.md", "section 'hang'", "snippets/page.py:12",
                          "ran past the timeout of 2 s")


def test_output_over_the_limit(tmp_path):
    proc, log = build(tmp_path, include("snippets/page.py:chatty"))
    assert_failed_cleanly(proc, log, tmp_path, "docs/page.md", "section 'chatty'", "snippets/page.py:17",
                          "the limit of 1,000 characters")


def test_missing_snippet_file(tmp_path):
    proc, log = build(tmp_path, include("snippets/nope.py:fine"))
    assert_failed_cleanly(proc, log, tmp_path, "docs/page.md:9", "snippets/nope.py does not exist")


def test_missing_section(tmp_path):
    proc, log = build(tmp_path, include("snippets/page.py:nope"))
    assert_failed_cleanly(proc, log, tmp_path, "docs/page.md:9", "snippets/page.py has no section 'nope'",
                          "fine, boom, hang, chatty, diffy")


@pytest.mark.parametrize("fence", ["```python\nprint('typed by hand')\n```", '```python title="x"\nprint(1)\n```'])
def test_code_typed_on_the_page(tmp_path, fence):
    proc, log = build(tmp_path, f"# Page\n\n{fence}\n")
    assert_failed_cleanly(proc, log, tmp_path, "docs/page.md:3", "must only include snippet sections")
