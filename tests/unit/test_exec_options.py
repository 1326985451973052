"""Exec options: declared once (shared/exec_options.py), parsed and checked once, listed in MAINTAINING.md.

Bad options failing a build, naming the page and the line, are in test_errors.py; an option
changing a section's cache key is in test_cache.py.
"""

from dataclasses import fields
from pathlib import Path

import pytest

from thunder_docs.shared.exec_options import ExecOptionError, ExecOptions, parse_exec_options, readme_list
from thunder_docs.shared.sections import find_includes

ROOT = Path(__file__).resolve().parents[2]
DECLARED = fields(ExecOptions)


def test_no_directive_means_the_defaults():
    assert parse_exec_options("") == ExecOptions() == ExecOptions(output="text", graph=(), stepper=False, cuda=False)


def test_a_directive_parses_to_typed_values():
    options = parse_exec_options(" cuda  output=diff graph=traces[0],bsym.subsymbols[-1] stepper ")
    assert options == ExecOptions(output="diff", graph=("traces[0]", "bsym.subsymbols[-1]"), stepper=True, cuda=True)
    with pytest.raises(AttributeError):  # frozen: no consumer changes what was parsed
        options.cuda = False


@pytest.mark.parametrize("declared", DECLARED, ids=lambda f: f.name)
def test_each_option_is_declared_with_a_type_a_default_an_example_and_a_doc(declared):
    assert declared.type in ("str", "bool", "tuple[str, ...]")
    assert isinstance(getattr(ExecOptions(), declared.name), {"str": str, "bool": bool, "tuple[str, ...]": tuple}[declared.type])
    example = parse_exec_options(declared.metadata["example"])  # the guide's example parses ...
    assert getattr(example, declared.name) != declared.default  # ... and sets this option
    assert example.written() == {declared.name: declared.metadata["example"].partition("=")[2]}
    assert declared.metadata["doc"].endswith(".") and "\n" not in declared.metadata["doc"]


def test_written_options_parse_back_to_the_same_object():
    options = ExecOptions(output="python", graph=("a", "b[1]"), cuda=True)
    text = " ".join(f"{k}={v}" if v else k for k, v in options.written().items())
    assert text == "output=python graph=a,b[1] cuda" and parse_exec_options(text) == options


@pytest.mark.parametrize("text", ["colour=red", "cuda=x", "cuda=", "graph=", "graph=a,", "graph=a b", "output=",
                                  "output=no-such-lexer", "stepper stepper", "graph=f(x"])
def test_bad_directives_raise(text):
    with pytest.raises(ExecOptionError):
        parse_exec_options(text)


def test_include_properties_are_views_of_the_options(tmp_path):
    (tmp_path / "snippets").mkdir()
    (tmp_path / "snippets/p.py").write_text("# --8<-- [start:a]\nx = 1\n# --8<-- [end:a]\n")
    page = '<!-- exec: cuda graph=trc output=diff stepper -->\n```python\n--8<-- "snippets/p.py:a"\n```\n'
    [inc] = find_includes(page, "docs/p.md", tmp_path)
    assert (inc.cuda, inc.graphs, inc.output_lang, inc.stepper) == (True, ["trc"], "diff", True)
    assert inc.options == {"output": "diff", "graph": "trc", "stepper": "", "cuda": ""}
    [plain] = find_includes(page.split("\n", 1)[1], "docs/p.md", tmp_path)
    assert (plain.cuda, plain.graphs, plain.output_lang, plain.stepper, plain.options) == (False, [], "text", False, {})


def test_the_maintainers_guide_lists_every_declared_option():
    guide = (ROOT / "MAINTAINING.md").read_text(encoding="utf-8")
    expected = "\n".join(readme_list())
    assert expected in guide, "MAINTAINING.md's list of exec options is not the declared one; replace it with:\n" + expected
    assert all(f"`<!-- exec: {f.metadata['example']} -->`" in expected for f in DECLARED)


def test_reads_puts_the_files_content_in_the_section_key(tmp_path):
    from thunder_docs.plugins.exec.cache import ReadFileMissing, section_keys
    from thunder_docs.shared.sections import Section

    section = Section(path="snippets/page.py", name="run", start_line=2, code="print(open('examples/s.py').read())\n")
    reads = [parse_exec_options("reads=examples/s.py")]
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "s.py").write_text("print(1)\n")
    before = section_keys([section], {}, reads, tmp_path)
    assert section_keys([section], {}, reads, tmp_path) == before
    assert section_keys([section], {}, None, tmp_path) != before  # the option itself is in the key
    (tmp_path / "examples" / "s.py").write_text("print(2)\n")
    assert section_keys([section], {}, reads, tmp_path) != before  # an edit of the file changes it
    (tmp_path / "examples" / "s.py").unlink()
    with pytest.raises(ReadFileMissing, match="section 'run' reads examples/s.py .* which does not exist"):
        section_keys([section], {}, reads, tmp_path)


def test_reads_takes_only_paths_inside_the_repository():
    for bad in ("/etc/passwd", "../outside.py", "a/../../b.py"):
        with pytest.raises(ExecOptionError, match="not a path inside the repository"):
            parse_exec_options(f"reads={bad}")
    assert parse_exec_options("reads=examples/a.py,examples/b.py").reads == ("examples/a.py", "examples/b.py")


def test_runs_puts_the_code_the_module_imports_in_the_section_key(tmp_path, monkeypatch):
    from thunder_docs.plugins.exec.cache import section_keys
    from thunder_docs.shared import code_digest
    from thunder_docs.shared.sections import Section

    package = tmp_path / "thunder_docs"  # a package of the same name, so the edit below is ours
    (package / "tool").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "tool" / "__init__.py").write_text("")
    (package / "tool" / "__main__.py").write_text("from thunder_docs.tool.cli import main\nmain()\n")
    (package / "tool" / "cli.py").write_text("def main():\n    print(1)\n")
    monkeypatch.setattr(code_digest, "PACKAGE", package)
    section = Section(path="snippets/page.py", name="run", start_line=2, code="subprocess.run(...)\n")
    runs = [parse_exec_options("runs=thunder_docs.tool.__main__")]
    before = section_keys([section], {}, runs, tmp_path)
    assert section_keys([section], {}, runs, tmp_path) == before
    (package / "tool" / "cli.py").write_text("def main():\n    print(2)\n")  # imported by __main__, not named
    assert section_keys([section], {}, runs, tmp_path) != before


def test_runs_takes_only_modules_of_the_package():
    with pytest.raises(ExecOptionError, match="'thunder_docs.no_such' is not a module of this site's package"):
        parse_exec_options("runs=thunder_docs.no_such")
    assert parse_exec_options("runs=thunder_docs.explain.cli").runs == ("thunder_docs.explain.cli",)
