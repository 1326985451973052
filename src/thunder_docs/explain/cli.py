"""``thunder-explain [--out PATH] SCRIPT [ARGS...]``: run SCRIPT, then write its traces' page.

SCRIPT runs as ``python SCRIPT ARGS...`` would: ``sys.argv`` is ``[SCRIPT, *ARGS]``, the current
folder stays, the script's folder is first on ``sys.path``, and it runs as ``__main__``. Exit
codes: 0 when the script ran and compiled something, 1 when it raised (the page still shows what
it compiled before, and its traceback), 2 when it compiled nothing with Thunder, 3 for bad usage.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import time
import traceback
from pathlib import Path

PREFIX = "thunder-explain:"


def _progress(message: str) -> None:
    print(f"{PREFIX} {message}", file=sys.stderr, flush=True)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="thunder-explain", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="the HTML file to write (default: explain/<script>.html)")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    return parser.parse_args(argv)


def check_hooks() -> None:
    """Switch off each hook whose Thunder or torch code changed since it was verified (one warning
    each, shared/hooks.py); the capture and the collector read the result from the environment."""
    from thunder_docs.shared import hooks

    broken = hooks.installed_check()
    for problem in broken:
        _progress(f"warning: {problem.message()}")
    os.environ.update(hooks.off_env(broken))


def run(script: Path, args: list[str]) -> tuple[object, str | None, int]:
    """Run the script under the collector: what it compiled, its traceback (or None), its exit code."""
    check_hooks()
    _progress("importing thunder")
    import thunder  # noqa: F401  (imported before the script, so its thunder.jit is the noting one)

    from thunder_docs.explain.collect import collecting

    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(script), *args]
    sys.path.insert(0, str(script.resolve().parent))
    error, code = None, 0
    _progress(f"running {script}")
    started = time.perf_counter()
    with collecting(_progress) as collected:
        try:
            runpy.run_path(str(script), run_name="__main__")
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except BaseException as exc:  # the page still shows what was compiled before the error
            error = "".join(traceback.format_exception(exc))
            code = 1
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    _progress(f"the script ran in {time.perf_counter() - started:.1f} s")
    return collected, error, code


def main(argv: list[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    script = Path(options.script)
    if not script.is_file():
        print(f"{PREFIX} no such script: {script}", file=sys.stderr)
        return 3
    collected, error, code = run(script, options.args)
    if not collected.functions and not collected.backends:
        if error:
            print(error, file=sys.stderr, end="")
        print(f"{PREFIX} {script} compiled nothing with thunder.jit or ThunderFX: there are no traces to show "
              "(call thunder.jit(fn) or thunderfx(fn), and call the result, in the script)", file=sys.stderr)
        return code or 2
    from thunder_docs.explain.page import page
    from thunder_docs.explain.report import build

    report = build(collected, Path(os.getcwd()).resolve(), str(script), _progress)
    out = options.out or Path("explain") / f"{script.stem}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page(report, error), encoding="utf-8")
    if error:
        print(error, file=sys.stderr, end="")
    _progress(f"wrote {out} ({len(report.functions)} functions, {report.compilations} compilations)")
    return code
