"""thunder-explain: run a Python script, then write the site's trace view of what it compiled.

The command line, its help and its exit codes are in ``parse`` and ``EXIT``. SCRIPT runs much as
``python SCRIPT ARGS...`` would: ``sys.argv`` is ``[SCRIPT, *ARGS]``, the current folder stays,
the script's folder is first on ``sys.path``, and it runs as ``__main__``. Unlike python's,
``__file__`` is the path as given (the page names files that way), and SCRIPT is a file.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import time
import traceback
import webbrowser
from importlib import metadata
from pathlib import Path

PREFIX = "thunder-explain:"

# Exit codes, one meaning each (shown by --help).
OK = 0  # the script ran and compiled something; the page is written
SCRIPT_FAILED = 1  # the script raised, or has a syntax error (the page, if any, shows its traceback)
USAGE = 2  # bad usage: an unknown option, no script, a script that does not exist (argparse's own code)
NOTHING_COMPILED = 3  # the script ran but compiled nothing with thunder.jit or ThunderFX: no page
EXPLORER_FAILED = 4  # the explorer itself failed reading what the script compiled: no page
EXIT = {
    OK: "the script ran and compiled something; the page is written",
    SCRIPT_FAILED: "the script raised: the traceback is printed, and if the script compiled something\n"
                   "     before, a page shows that and the traceback; or it has a syntax error (reported\n"
                   "     alone, before Thunder is imported)",
    USAGE: "bad usage: an unknown option, no SCRIPT, or a SCRIPT that does not exist",
    NOTHING_COMPILED: "the script ran but compiled nothing with thunder.jit or ThunderFX (also: it\n"
                      "     jitted a function and never called it): no page",
    EXPLORER_FAILED: "the explorer itself failed while reading what the script compiled (its traceback\n"
                     "     is printed; a bug of the explorer, not of the script): no page",
}
ITS_OWN = "A script that calls sys.exit(N) with a number N other than 0 exits with N."

DESCRIPTION = """\
Run a Python script, then write one self-contained HTML page of what it compiled with
thunder.jit or ThunderFX: each compilation's traces, marked up as on the site, with the
executors that ran each line and those that declined it, and the lines of your own files
that made each trace line.

SCRIPT runs much as "python SCRIPT ARGS..." would: sys.argv is [SCRIPT, *ARGS], the current
folder stays, the script's folder is first on sys.path, and it runs as __main__. Unlike
python's, __file__ is the path as given, and SCRIPT is a file (not a folder)."""


def _progress(message: str) -> None:
    print(f"{PREFIX} {message}", file=sys.stderr, flush=True)


def version() -> str:
    """This explorer's version and the Thunder and torch it runs with (read without importing them)."""
    def installed(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return (f"thunder-explain {installed('thunder-internals')} "
            f"(lightning-thunder {installed('lightning-thunder')}, torch {installed('torch')})")


def parse(argv: list[str]) -> argparse.Namespace:
    codes = "\n".join(f"  {code}  {meaning}" for code, meaning in EXIT.items())
    parser = argparse.ArgumentParser(
        prog="thunder-explain", description=DESCRIPTION, epilog=f"exit codes:\n{codes}\n{ITS_OWN}",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, metavar="PATH",
                        help="the HTML file to write (default: explain/SCRIPT_NAME.html)")
    parser.add_argument("--open", action="store_true", help="open the page in a web browser when it is written")
    parser.add_argument("--version", action="version", version=version())
    parser.add_argument("script", metavar="SCRIPT", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="the script's own arguments")
    return parser.parse_args(argv)


def syntax_error(script: Path) -> str | None:
    """Python's own report of a syntax error in the script, or None: checked before Thunder is
    imported, so that such a script costs no import and reports that error alone."""
    try:
        compile(script.read_bytes(), str(script), "exec")
    except SyntaxError as exc:
        return "".join(traceback.format_exception_only(exc))
    return None


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
        return USAGE
    if problem := syntax_error(script):
        print(problem, file=sys.stderr, end="")
        return SCRIPT_FAILED
    collected, error, code = run(script, options.args)
    if not collected.functions and not collected.backends:
        if error:
            print(error, file=sys.stderr, end="")
        print(f"{PREFIX} {script} compiled nothing with thunder.jit or ThunderFX: there are no traces to show "
              "(call thunder.jit(fn) or thunderfx(fn), and call the result, in the script)", file=sys.stderr)
        return code or NOTHING_COMPILED
    from thunder_docs.explain.page import page
    from thunder_docs.explain.report import build

    try:
        report = build(collected, Path(os.getcwd()).resolve(), str(script), _progress)
        written = page(report, error) if report.compilations or report.graphs else None
    except Exception:
        print(traceback.format_exc(), file=sys.stderr, end="")
        print(f"{PREFIX} the explorer failed while reading what {script} compiled (the traceback above is the "
              "explorer's, not the script's): no page", file=sys.stderr)
        return EXPLORER_FAILED
    if report.compilations == 0 and not report.graphs:  # jitted, never called: nothing was compiled
        if error:
            print(error, file=sys.stderr, end="")
        print(f"{PREFIX} {script} compiled nothing: it made {len(report.functions)} jitted functions and "
              "called none (call the result of thunder.jit(fn))", file=sys.stderr)
        return code or NOTHING_COMPILED
    out = options.out or Path("explain") / f"{script.stem}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(written, encoding="utf-8")
    if error:
        print(error, file=sys.stderr, end="")
    _progress(f"wrote {out} ({len(report.functions)} functions, {report.compilations} compilations)")
    if options.open:
        open_page(out)
    return code


def open_page(out: Path) -> None:
    """Open the written page in the reader's web browser (Python's webbrowser: $BROWSER, then the
    system's default); say so when none could be started, since the page is written anyway."""
    uri = out.resolve().as_uri()
    if webbrowser.open(uri):
        _progress(f"opened {uri}")
    else:
        _progress(f"could not start a web browser; open {uri}")
