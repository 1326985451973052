"""Under `mkdocs serve`: a prose edit runs no code; a section edit re-runs only its own page;
each edit converts only the edited page again (thunder-buildcache), and the server serves the
edited page with what changed."""

import contextlib
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from conftest import mkdocs_env


def page(name):
    return (f'# {name}\n\nProse.\n\n```python\n--8<-- "snippets/{name}.py:a"\n```\n\n'
            f'```python\n--8<-- "snippets/{name}.py:b"\n```\n')


def snippet(value):
    return f'# --8<-- [start:a]\nx = {value}\n# --8<-- [end:a]\n\n# --8<-- [start:b]\nprint("x is", x)\n# --8<-- [end:b]\n'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reader(proc):
    """The server's output lines, read by a thread, so waiting for one can time out."""
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    return lines


def next_build_log(lines, timeout=120, end="Reloading browsers"):
    """Lines printed by the server up to the end of the next build.

    A rebuild ends with the server's "Reloading browsers". Not with "Documentation built in N
    seconds": MkDocs' DuplicateFilter drops that line when an earlier build took as long.
    """
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            seen.append(lines.get(timeout=1))
        except queue.Empty:
            continue
        if end in seen[-1]:
            return "".join(seen)
    raise AssertionError("no rebuild:\n" + "".join(seen))


def settle(lines, quiet=3.0, timeout=60) -> str:
    """Wait until the server has printed nothing for `quiet` seconds; return what it printed.

    One edit can start more than one rebuild (the watcher may see a file's truncation and its
    write apart). Waiting for quiet before the next edit makes the next build log that edit's.
    """
    seen, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            seen.append(lines.get(timeout=quiet))
        except queue.Empty:
            return "".join(seen)
    raise AssertionError(f"the server never went quiet for {quiet} s:\n" + "".join(seen))


def served_at(lines, timeout=60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            continue
        if match := re.search(r"Serving on (\S+)", line):
            return match[1]
    raise AssertionError("mkdocs serve never said where it serves")


def get(url: str) -> str:
    return urllib.request.urlopen(url, timeout=30).read().decode()


def test_serve_reuses_and_reexecutes_only_what_changed(throwaway, tmp_path):
    throwaway.write({f"{folder}/{name}.{ext}": text(name) for name in ("one", "two")
                     for folder, ext, text in (("docs", "md", page), ("snippets", "py", lambda _: snippet(1)))},
                    exec_options={}, plugins=({"thunder-buildcache": {"cache_dir": ".cache/build"}},))
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{free_port()}"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=mkdocs_env(),
    )
    lines = reader(proc)
    try:
        first = next_build_log(lines, end="Documentation built in")  # the first build: before serving
        assert "executed 4 sections of 2 pages" in first
        url = served_at(lines) + "one/"
        settle(lines)

        (tmp_path / "docs" / "one.md").write_text(page("one").replace("Prose.", "Edited prose."))
        log = next_build_log(lines)
        assert re.search(r"executed 0 sections of 0 pages .* reused 4", log)
        assert "pages: 1 reused, 1 made" in log  # two.md's conversion is reused
        assert "Edited prose." in get(url)
        settle(lines)

        (tmp_path / "snippets" / "one.py").write_text(snippet(2))  # a snippet edit rebuilds too
        log = next_build_log(lines)
        assert "executed 2 sections of 1 pages" in log and "reused 2 from the cache" in log
        assert "pages: 1 reused, 1 made" in log
        shown = re.sub(r"<[^>]+>", "", get(url))  # the page's text: code and output
        assert "x = 2" in shown and "x is 2" in shown
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_accepting_output_settles_after_one_rebuild(throwaway, tmp_path):
    """With update_approved on (THUNDER_DOCS_UPDATE=true), a build writes the approved file only
    when its text changes. Serve watches snippets/: a snippet edit rebuilds, that build writes the
    new approved output, which starts one more rebuild; that one writes nothing, and the server
    stays idle (it rebuilt without end when every build wrote the file again)."""
    throwaway.write({"docs/one.md": page("one"), "snippets/one.py": snippet(1)},
                    exec_options={"approve": True, "update_approved": True})
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{free_port()}"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=mkdocs_env(),
    )
    lines = reader(proc)
    approved = tmp_path / "snippets" / "approved" / "cpu" / "one.txt"
    try:
        next_build_log(lines, end="Documentation built in")
        served_at(lines)
        settle(lines)
        (tmp_path / "snippets" / "one.py").write_text(snippet(2))
        next_build_log(lines)
        assert "=== section: b ===\nx is 2" in approved.read_text()
        seen, deadline = [], time.monotonic() + 12  # the watcher polls every half second
        while time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                seen.append(lines.get(timeout=0.5))
        rebuilds = sum("Reloading browsers" in line for line in seen)
        assert rebuilds <= 1, f"{rebuilds} rebuilds in 12 s after the edit's build:\n" + "".join(seen)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_an_edit_of_the_page_code_under_serve_runs_the_edited_code(throwaway, tmp_path):
    """serve keeps one forkserver, which imported the page code when it started: when that code
    changes, the page processes start again from a new one, so what a page prints comes from the
    code its cache key names. The package is a copy, first on the server's path, edited while it serves."""
    import shutil

    import thunder_docs

    package = tmp_path / "src" / "thunder_docs"
    shutil.copytree(Path(thunder_docs.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    shown = '# --8<-- [start:a]\nprint("edited:", globals().get("EDITED", False), {value})\n# --8<-- [end:a]\n'
    throwaway.write({"docs/one.md": '# One\n\n```python\n--8<-- "snippets/one.py:a"\n```\n',
                     "snippets/one.py": shown.format(value=1)}, exec_options={})
    env = mkdocs_env(PYTHONPATH=str(tmp_path / "src"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{free_port()}"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    lines = reader(proc)
    try:
        next_build_log(lines, end="Documentation built in")
        url = served_at(lines) + "one/"
        assert "edited: False 1" in re.sub(r"<[^>]+>", "", get(url))
        worker = package / "page" / "worker.py"
        namespace = 'namespace: dict = {"__name__": "__main__", "__builtins__": __builtins__}'
        worker.write_text(worker.read_text().replace(namespace, namespace[:-1] + ', "EDITED": True}'))
        time.sleep(1)
        (tmp_path / "snippets" / "one.py").write_text(shown.format(value=2))
        log = next_build_log(lines)
        assert "the page code changed: the page processes start again with it" in log, log
        assert "edited: True 2" in re.sub(r"<[^>]+>", "", get(url))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
