"""The hooks into Thunder and torch (shared/hooks.py): each is checked against the installed code
when the build starts, switches itself off with one warning where that code changed (so
``--strict`` fails), and a printed trace that maps to no bound symbol fails the build."""

from __future__ import annotations

import shutil

import pytest

from thunder_docs.shared import hooks

TRACE = '''\
# --8<-- [start:setup]
import torch
import thunder
jfn = thunder.jit(lambda x: x + 1)
jfn(torch.ones(2))
# --8<-- [end:setup]

# --8<-- [start:show]
print(thunder.last_traces(jfn)[-1])
# --8<-- [end:show]
'''
BROKEN_PRINTER = TRACE.replace("# --8<-- [start:show]\n", '''# --8<-- [start:show]
from thunder.core.symbol import BoundSymbol

recorded = BoundSymbol.python  # a printer that no longer prints bound symbols as BoundSymbol.python says
BoundSymbol.python = lambda bsym, *args, **kwargs: [
    "  " + line.replace(" = ", " := ") for line in recorded(bsym, *args, **kwargs)]
''')
PAGE = '# Page\n\n```python\n--8<-- "snippets/page.py:setup"\n```\n\n```python\n--8<-- "snippets/page.py:show"\n```\n'


def _copy_of_thunder(tmp_path):
    """The files of the installed Thunder that the hooks rely on, copied, with torch's root as installed."""
    roots = hooks.package_roots()
    for point in {p.partition(":")[0] for hook in hooks.HOOKS for p in hook.relies_on}:
        if point.startswith("thunder/"):
            (tmp_path / point).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(roots["thunder"] / point, tmp_path / point)
    return {**roots, "thunder": tmp_path}


def test_the_installed_code_is_what_every_hook_was_verified_against():
    assert hooks.check() == []


def test_a_changed_thunder_function_switches_off_the_hook_that_relies_on_it(tmp_path):
    roots = _copy_of_thunder(tmp_path)
    trace_py = tmp_path / "thunder/core/trace.py"
    text = trace_py.read_text()
    assert "    def python(self, *, print_depth: int = 1, include_decorators: bool = True) -> str:\n" in text
    trace_py.write_text(text.replace(
        "    def python(self, *, print_depth: int = 1, include_decorators: bool = True) -> str:\n",
        "    def python(self, *, print_depth: int = 1, include_decorators: bool = True) -> str:\n"
        "        print_depth = max(print_depth, 0)\n"))
    broken = hooks.check(roots)
    assert [(b.hook.name, b.changed) for b in broken] == [("capture", ("thunder/core/trace.py:TraceCtx.python",))]
    assert broken[0].message().startswith("the hook 'capture' (page/capture.py, page/lines.py) is off: "
                                          "thunder/core/trace.py:TraceCtx.python changed since it was verified")


def test_a_change_to_where_thunder_picks_the_recorded_frame_switches_off_the_explorers_frames(tmp_path):
    """explain-frames (explain/frames.py) notes the interpreter's frames when the source location is
    set; which frames are Thunder's own is read from the interpreter's own choice: a change there turns it off."""
    roots = _copy_of_thunder(tmp_path)
    interpreter = tmp_path / "thunder/core/interpreter.py"
    text = interpreter.read_text()
    old = 'if modname not in ("thunder.core.interpreter", "thunder.core.jit_ext", "thunder.torch"):'
    assert old in text
    interpreter.write_text(text.replace(old, old.replace('"thunder.torch"', '"thunder.torch", "thunder.nn"')))
    [broken] = hooks.check(roots)
    assert broken.hook.name == "explain-frames"
    assert broken.changed == ("thunder/core/interpreter.py:InterpreterRuntimeCtx.get_current_user_source_location",)
    assert "so thunder-explain shows the chain from your line to each line recorded in a library no longer" in \
        broken.message()


def test_the_frames_hook_skips_the_frames_thunder_skips():
    """explain/frames.py leaves out the same modules as the interpreter when it picks the line to record."""
    import ast
    import inspect

    from thunder.core.interpreter import InterpreterRuntimeCtx

    from thunder_docs.explain.frames import THUNDERS_OWN

    source = inspect.getsource(InterpreterRuntimeCtx.get_current_user_source_location)
    [skipped] = [n for n in ast.walk(ast.parse("class C:\n" + source)) if isinstance(n, ast.Tuple) and n.elts
                 and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in n.elts)]
    assert tuple(e.value for e in skipped.elts) == THUNDERS_OWN


def test_a_docstring_or_layout_change_keeps_the_hooks_on(tmp_path):
    roots = _copy_of_thunder(tmp_path)
    symbol_py = tmp_path / "thunder/core/symbol.py"
    text = symbol_py.read_text()
    old = "    def python(self, indent: int, commented: bool = False, print_depth: int = 1) -> list[str]:\n"
    assert old in text
    symbol_py.write_text(text.replace(old, old.replace(") -> list[str]:", ") -> (\n        list[str]\n    ):")
                                      + '        """Reworded."""\n', 1))
    assert hooks.check(roots) == []


def test_a_changed_cache_check_switches_off_the_recompile_reasons(tmp_path):
    """explain-recompiled runs each cache entry's prologue as the cache check does: if Thunder's
    check changes (here: it stops at the first entry), the explorer's reasons would no longer be its."""
    roots = _copy_of_thunder(tmp_path)
    init = tmp_path / "thunder/__init__.py"
    text = init.read_text()
    old = "            for cache_entry in reversed(cs.interpreter_cache):\n"
    assert old in text
    init.write_text(text.replace(old, "            for cache_entry in reversed(cs.interpreter_cache[-1:]):\n"))
    assert [(b.hook.name, b.changed) for b in hooks.check(roots)] == [
        ("explain-recompiled", ("thunder/__init__.py:jit.get_computation_and_inputs",))]


def test_a_definition_that_is_gone_is_named(tmp_path):
    roots = _copy_of_thunder(tmp_path)
    passes = tmp_path / "thunder/executors/passes.py"
    passes.write_text(passes.read_text().replace("def process_bsym(", "def process_bound_symbol("))
    [broken] = hooks.check(roots)
    assert broken.hook.name == "explain-declined"
    point = "thunder/executors/passes.py:_transform_for_operator_executor_execution.OpExProcessor.process_bsym"
    assert broken.changed == (point,)
    assert hooks.fingerprint(point, roots).startswith("missing: thunder/executors/passes.py defines no ")


def _site(throwaway, snippet: str):
    """A page that prints a trace, with the plugin that marks printed traces up."""
    return throwaway.write({"snippets/page.py": snippet, "docs/page.md": PAGE},
                           exec_options={"timeout": 300, "approve": False, "cache": False}, plugins=("thunder-traces",))


def test_the_page_marks_up_its_printed_trace(throwaway):
    proc = _site(throwaway, TRACE).build()
    assert proc.returncode == 0, proc.stdout
    assert "data-lines=" in throwaway.html()


def test_a_hook_that_is_off_warns_and_fails_the_strict_build(throwaway, monkeypatch):
    """capture off: one warning, which --strict (the throwaway's builds are strict) turns into a failure."""
    broken = hooks.Broken(hooks.by_name("capture"), ("thunder/core/trace.py:TraceCtx.python",))
    monkeypatch.setattr(hooks, "installed_check", lambda: (broken,))
    log = _site(throwaway, TRACE).failed_build()
    assert "WARNING: thunder-exec: the hook 'capture' (page/capture.py, page/lines.py) is off: " in log
    assert "Aborted with 1 warnings in strict mode!" in log


def test_a_hook_that_is_off_leaves_the_traces_plain(throwaway, monkeypatch):
    """Without --strict the page builds, its trace plain: the page's process was told the hook is off."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    broken = hooks.Broken(hooks.by_name("capture"), ("thunder/core/trace.py:TraceCtx.python",))
    monkeypatch.setattr(hooks, "installed_check", lambda: (broken,))
    _site(throwaway, TRACE)
    build(load_config(str(throwaway.folder / "mkdocs.yml"), site_dir=str(throwaway.folder / "site"), strict=False))
    html = throwaway.html()
    assert "def computation(x):" in html and "data-lines=" not in html


def test_a_printed_trace_that_maps_to_no_bound_symbol_fails_the_build(throwaway):
    log = _site(throwaway, BROKEN_PRINTER).failed_build()
    assert ("docs/page.md: section 'show' failed at snippets/page.py:9: printed a trace ('def computation(x):' and "
            "the line after it are in the output), and no line of it maps to a bound symbol") in log


@pytest.mark.parametrize("name", [h.name for h in hooks.HOOKS])
def test_a_hook_reads_whether_it_is_off_from_its_process_environment(name, monkeypatch):
    monkeypatch.setenv(hooks.OFF_VARIABLE, f"other,{name}")
    assert hooks.is_off(name)
    monkeypatch.setenv(hooks.OFF_VARIABLE, "")
    assert not hooks.is_off(name)
