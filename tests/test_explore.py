"""thunder-explore: the explorer's page of each script the site names, written beside the site.

On the built site: each script of mkdocs.yml has its page, the explorer's own (trace blocks with
the site's line map, self-contained). On throwaway sites: a page is kept by its digest and
reused; a script that fails, compiles nothing or does not exist fails the build naming it; a
build that fails elsewhere ends the explorer's run.
"""

from __future__ import annotations

import json
import os
import textwrap
import time

import yaml
from bs4 import BeautifulSoup
from mkdocs.config import load_config

from conftest import EXPLORE_FOLDER, ROOT

EXPLORED = load_config(str(ROOT / "mkdocs.yml")).plugins["thunder-explore"].config

COMPILES = """
    import torch
    import thunder

    jf = thunder.jit(lambda a: a * 2 + 1)
    jf(torch.ones(3))
"""


def test_every_script_has_its_explorer_page_on_the_built_site(built_site):
    assert EXPLORED.scripts == ["examples/two_shapes.py", "examples/real_model_step.py"]
    for script in EXPLORED.scripts:
        page = built_site / EXPLORE_FOLDER / f"{os.path.basename(script).removesuffix('.py')}.html"
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        blocks = soup.select("figure.trace code[data-traces]")
        assert blocks and all(code.get("data-lines") for code in blocks), script
        assert script in soup.get_text()  # the page names the script by its path in the repository
        assert not soup.select("script[src], link[href], img[src]")  # self-contained
    real = BeautifulSoup((built_site / EXPLORE_FOLDER / "real_model_step.html").read_text(encoding="utf-8"),
                         "html.parser")
    [call] = real.select("details.ops")  # no line is recorded in the script: its call of the model lists them
    assert call.summary.get_text().startswith("examples/real_model_step.py:12: ")
    forward = real.select("figure.trace code[data-traces]")[0]
    assert not any(r.get("s", "").startswith("examples/") for r in json.loads(forward["data-lines"]))
    assert len(call.select("li")) == sum(1 for r in json.loads(forward["data-lines"]) if r.get("d") == 0 and "u" in r)


def explore_site(throwaway, scripts: dict[str, str], **options):
    files = {"docs/index.md": "# Home\n", **{name: textwrap.dedent(text) for name, text in scripts.items()}}
    return throwaway.write(files, exec_options=None,
                           plugins=({"thunder-explore": {"scripts": list(scripts), **options}},))


def test_a_page_is_reused_until_its_script_changes(throwaway):
    site = explore_site(throwaway, {"run.py": COMPILES})
    first = site.build()
    assert first.returncode == 0, first.stdout
    assert "run.py: explored -> explore/run.html" in first.stdout
    page = site.folder / "site" / "explore" / "run.html"
    assert "figure" in page.read_text()
    started = time.perf_counter()
    again = site.build()
    assert again.returncode == 0 and "run.py: reused -> explore/run.html" in again.stdout, again.stdout
    assert time.perf_counter() - started < 60  # no explorer run: a build of one page
    (site.folder / "run.py").write_text(textwrap.dedent(COMPILES) + "jf(torch.ones(2, 2))\n")
    edited = site.build()
    assert edited.returncode == 0 and "run.py: explored -> explore/run.html" in edited.stdout, edited.stdout


def test_a_script_that_compiles_nothing_fails_the_build_naming_it(throwaway):
    site = explore_site(throwaway, {"plain.py": 'print("no Thunder")\n'})
    proc = site.build()
    assert proc.returncode != 0
    assert "thunder-explore: plain.py: thunder-explain exited with 3" in proc.stdout
    assert "compiled nothing with thunder.jit or ThunderFX" in proc.stdout
    assert not (site.folder / "site" / "index.html").exists()  # no site without its pages


def test_a_missing_script_fails_the_build_naming_it(throwaway):
    site = explore_site(throwaway, {})
    site.write_yml(yaml.safe_dump({"site_name": "t", "strict": True,
                                   "plugins": [{"thunder-explore": {"scripts": ["missing.py"]}}]}),
                   {"docs/index.md": "# Home\n"})
    proc = site.build()
    assert proc.returncode != 0 and "thunder-explore: missing.py: no such script" in proc.stdout, proc.stdout


def test_a_failed_build_ends_the_explorers_run(throwaway):
    """A page whose code raises fails the build while the explorer still runs its script: the
    build ends that run, and what the script started, before it exits."""
    marker = throwaway.folder / "still-running"
    slow = f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(15); open({str(marker)!r}, 'w')"])
        time.sleep(60)
    """
    files = {"docs/index.md": "# Home\n\n```python\n--8<-- \"snippets/index.py:boom\"\n```\n",
             "snippets/index.py": "# --8<-- [start:boom]\nraise ValueError('boom')\n# --8<-- [end:boom]\n",
             "slow.py": textwrap.dedent(slow)}
    throwaway.write(files, exec_options={}, plugins=({"thunder-explore": {"scripts": ["slow.py"]}},))
    started = time.perf_counter()
    proc = throwaway.build()
    assert proc.returncode != 0 and "boom" in proc.stdout, proc.stdout
    assert time.perf_counter() - started < 50  # it did not wait for the script's minute
    time.sleep(max(0.0, started + 20 - time.perf_counter()))  # past the child's 15 s
    assert not marker.exists(), "a process the explorer's script started outlived the build"
