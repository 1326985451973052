"""The execution cache reuses output only when nothing that could change it has changed."""

import subprocess
import sys
from dataclasses import fields

import pytest

from conftest import ROOT, mkdocs_env
from thunder_docs.plugins.exec.cache import PAGE_CODE, CachedOutput, OutputCache, fingerprint, section_keys
from thunder_docs.shared.exec_options import ExecOptions, parse_exec_options
from thunder_docs.shared.sections import Section
from thunder_docs.shared.trace_map import TraceMap

A = Section("snippets/page.py", "a", 2, "x = 1")
B = Section("snippets/page.py", "b", 6, "print(x)")
VERSIONS = {"python": "3.12.1", "lightning-thunder": "0.2.6", "torch": "2.8.0"}


def keys(sections, device="cpu", env=None, versions=VERSIONS):
    return section_keys(sections, fingerprint(device, env or {}, versions))


# -- each invalidation rule, on the key -------------------------------------------------------

def test_same_inputs_same_keys():
    assert keys([A, B]) == keys([A, B])


def test_changing_an_earlier_section_changes_every_later_key():
    a2 = Section(A.path, A.name, A.start_line, "x = 2")
    before, after = keys([A, B]), keys([a2, B])
    assert before[0] != after[0] and before[1] != after[1]


def test_changing_a_later_section_keeps_earlier_keys():
    b2 = Section(B.path, B.name, B.start_line, "print(x + 1)")
    before, after = keys([A, B]), keys([A, b2])
    assert before[0] == after[0] and before[1] != after[1]


def test_moving_a_section_changes_its_key():  # line numbers are printed in traces
    moved = Section(B.path, B.name, B.start_line + 1, B.code)
    assert keys([A, B])[1] != keys([A, moved])[1]


def test_versions_change_keys():
    for package in ("lightning-thunder", "torch", "python"):
        upgraded = {**VERSIONS, package: "9.9.9"}
        assert keys([A], versions=upgraded) != keys([A])
    assert keys([A], versions={**VERSIONS, "nvfuser-cu128-torch28": "0.2.34"}) != keys([A])


@pytest.mark.parametrize("option", [f.name for f in fields(ExecOptions)])
def test_every_exec_option_is_in_the_key(option):
    """Each declared option, set as MAINTAINING.md's example sets it, changes its section's key (and later ones)."""
    example = next(f.metadata["example"] for f in fields(ExecOptions) if f.name == option)
    plain = keys([A, B])
    changed = section_keys([A, B], fingerprint("cpu", {}, VERSIONS), [ExecOptions(), parse_exec_options(example)],
                           ROOT)  # reads= names a file of the repository
    assert changed[0] == plain[0] and changed[1] != plain[1]
    earlier = section_keys([A, B], fingerprint("cpu", {}, VERSIONS), [parse_exec_options(example), ExecOptions()],
                           ROOT)
    assert earlier[0] != plain[0] and earlier[1] != plain[1]


def test_device_changes_keys():
    assert keys([A], device="NVIDIA H200") != keys([A], device="cpu")


def test_relevant_environment_variables_change_keys():
    for name in ("THUNDER_ANYTHING", "TORCH_LOGS", "CUDA_VISIBLE_DEVICES", "NVFUSER_DISABLE"):
        assert keys([A], env={name: "1"}) != keys([A]), name
    # PYTHONHASHSEED is forced to 0 in every worker, so its value here does not matter.
    unrelated = {"HOME": "/elsewhere", "TERM": "dumb", "THUNDER_DOCS_UPDATE": "1", "PYTHONHASHSEED": "123"}
    assert keys([A], env=unrelated) == keys([A])


def test_cache_round_trip_and_missing_entry(tmp_path):
    store = OutputCache(tmp_path)
    assert store.get("ab" * 32) is None
    entry = CachedOutput("out", "err", 1.5, TraceMap().to_json())
    store.put("ab" * 32, entry)
    assert store.get("ab" * 32) == entry
    (tmp_path / "ab" / f"{'ab' * 32}.json").write_text("{broken")
    assert store.get("ab" * 32) is None  # a damaged entry is a miss, not a crash
    (tmp_path / "ab" / f"{'ab' * 32}.json").write_text('{"output": "out", "stderr": "", "seconds": 1.5}')
    assert store.get("ab" * 32) is None  # an entry from before trace maps is a miss


# -- the same rules through real builds ------------------------------------------------------

PAGE = '# Page\n\n{prose}\n\n```python\n--8<-- "snippets/page.py:a"\n```\n\n```python\n--8<-- "snippets/page.py:b"\n```\n'
SNIPPET = ('# --8<-- [start:a]\nx = {x}\nprint("a ran")\n# --8<-- [end:a]\n\n'
           '# --8<-- [start:b]\nprint("x is", x)\n# --8<-- [end:b]\n')


def make_site(throwaway, x=1, prose="Some prose.", **exec_options):
    return throwaway.write({"snippets/page.py": SNIPPET.format(x=x), "docs/page.md": PAGE.format(prose=prose)},
                           exec_options=exec_options)


def start_build(folder, site="site", **env):
    return subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", site], cwd=folder,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=mkdocs_env(**env),
    )


def build(throwaway, **env):
    proc = throwaway.build(**env)
    assert proc.returncode == 0, proc.stdout
    return proc.stdout, throwaway.html()


def test_builds_reuse_and_invalidate(throwaway):
    make_site(throwaway)
    log, html = build(throwaway)
    assert "executed 2 sections of 1 pages" in log and "x is 1" in html

    log, html = build(throwaway)
    assert "executed 0 sections" in log and "reused 2 from the cache" in log and "x is 1" in html

    make_site(throwaway, prose="Other prose.")  # prose edit: nothing runs
    log, html = build(throwaway)
    assert "executed 0 sections" in log and "Other prose." in html

    make_site(throwaway, x=2)  # an earlier section changed: the later one shows the new state
    log, html = build(throwaway)
    assert "executed 2 sections" in log and "x is 2" in html

    log, _ = build(throwaway, THUNDER_SOMETHING="1")  # an environment variable that matters
    assert "executed 2 sections" in log

    throwaway.write({"docs/page.md": PAGE.format(prose="Other prose.").replace(
        '```python\n--8<-- "snippets/page.py:b"', '<!-- exec: output=python -->\n```python\n--8<-- "snippets/page.py:b"')})
    log, html = build(throwaway)  # an exec option: in the key
    assert "executed 2 sections" in log and '<span class="ow">is</span>' in html  # "x is 2", read as Python


def test_cache_dir_is_an_option(throwaway):
    make_site(throwaway, cache_dir="elsewhere")
    build(throwaway)
    assert list((throwaway.folder / "elsewhere").rglob("*.json")) and not (throwaway.folder / ".cache").exists()


def test_two_builds_at_once_share_the_cache(throwaway, tmp_path):
    make_site(throwaway)
    builds = [start_build(tmp_path, site=f"site{i}") for i in range(2)]
    logs = [b.communicate(timeout=300)[0] for b in builds]
    assert all(b.returncode == 0 for b in builds), logs
    for i in range(2):
        assert "x is 1" in (tmp_path / f"site{i}" / "page" / "index.html").read_text()
    assert not list((tmp_path / ".cache").rglob(".tmp-*")), "a temporary cache file was left behind"
    log, _ = build(throwaway)
    assert "executed 0 sections" in log


def imported_modules(log: str) -> set[str]:
    """Top-level module names from `python -X importtime` lines."""
    return {line.rsplit("|", 1)[1].strip().split(".")[0] for line in log.splitlines() if line.startswith("import time:")}


def test_warm_build_imports_neither_torch_nor_thunder(throwaway, tmp_path):
    make_site(throwaway, preload=["torch", "thunder"])
    command = [sys.executable, "-X", "importtime", "-m", "mkdocs", "build", "--strict"]
    cold = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=mkdocs_env(), timeout=300)
    assert cold.returncode == 0, cold.stderr[-2000:]
    assert {"torch", "thunder"} <= imported_modules(cold.stderr)  # the check can see them
    warm = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=mkdocs_env(), timeout=300)
    assert warm.returncode == 0, warm.stderr[-2000:]
    assert "executed 0 sections" in warm.stderr
    assert not {"torch", "thunder"} & imported_modules(warm.stderr)


def test_editing_the_code_that_runs_a_page_changes_every_section_key(tmp_path, monkeypatch):
    """Each module that a page's process imports (derived from the imports: shared/code_digest.py),
    and the runner that starts it: an edit to any of them runs the sections again."""
    import shutil

    from thunder_docs.shared import code_digest

    copy = tmp_path / "thunder_docs"
    shutil.copytree(code_digest.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(code_digest, "PACKAGE", copy)
    sections = [Section("snippets/a.py", "a", 1, "x = 1\n")]
    before = section_keys(sections, fingerprint("cpu", {}, {"thunder": "0.2.6"}))
    modules = [p.relative_to(copy).as_posix() for p in code_digest.module_files(*PAGE_CODE)]
    assert {"page/worker.py", "page/preload.py", "page/capture.py", "shared/trace_map.py", "shared/sections.py",
            "shared/hooks.py"} <= set(modules)
    for module in modules:
        path = copy / module
        text = path.read_text()
        path.write_text(text + "\n# edited\n")
        assert section_keys(sections, fingerprint("cpu", {}, {"thunder": "0.2.6"})) != before, module
        path.write_text(text)
    assert section_keys(sections, fingerprint("cpu", {}, {"thunder": "0.2.6"})) == before
