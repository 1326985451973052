"""thunder-explain: the site's trace view for a script of one's own.

Each script below runs under ``python -m thunder_docs.explain`` in a folder of its own; the page it
writes must hold every trace of each compilation, with the site's DOM contract
(``<code data-traces data-lines>``, from which the script marks up ``.tl``, ``.tp[data-proxy]``,
``data-def``), and open from ``file://`` in Chromium with the interactions working and no request
to any host.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import textwrap

import pytest
from bs4 import BeautifulSoup

from conftest import ROOT, mkdocs_env

SCRIPTS = {
    "function": """
        import torch
        import thunder

        def f(a, b):
            c = a * b
            return torch.sin(c) + a

        jf = thunder.jit(f)
        print(jf(torch.ones(3), torch.ones(3)))
    """,
    "training": """
        import torch
        import thunder

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 2)

            def forward(self, x):
                return torch.relu(self.fc(x))

        torch.manual_seed(0)
        model = thunder.jit(Model())
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(3, 4)
        for _ in range(2):
            model(x).sum().backward()
            opt.step()
            opt.zero_grad()
    """,
    "yourline": """
        import torch
        import thunder


        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(4, 8)

            def forward(self, x):
                return torch.relu(self.fc1(x))


        model = thunder.jit(Block())
        model(torch.randn(2, 4)).sum().backward()
    """,
    "shapes": """
        import sys
        import torch
        import thunder

        jf = thunder.jit(lambda a: a * 2 + 1)
        jf(torch.ones(3))
        jf(torch.ones(2, 5))
        print("argv", sys.argv[1:])
    """,
    "fx": """
        import torch
        from thunder.dynamo import thunderfx

        def fn(x):
            y = torch.sin(x)
            h = torch.histc(y, bins=4)
            return torch.cos(h).sum() + y.sum()

        cfn = thunderfx(fn)
        cfn(torch.randn(8))
    """,
    "fxshapes": """
        import torch
        from thunder.dynamo import thunderfx

        def fn(x):
            y = torch.sin(x)
            print("a graph break")
            return torch.cos(y).sum()

        cfn = thunderfx(fn)
        cfn(torch.randn(8))
        cfn(torch.randn(8, 2))  # a new rank: TorchDynamo's guard on x fails, and it makes new graphs
    """,
    "declined": """
        import torch
        import thunder
        from thunder.extend import OperatorExecutor, register_executor

        picky = OperatorExecutor("picky", version="0.1")
        register_executor(picky)

        def only_small(a):
            return a.numel() < 3

        sin = picky.register_operator("picky_sin", like=thunder.torch.sin, fn=torch.sin)
        picky.register_implementation(thunder.torch.sin, sin, checker=only_small)

        def f(a, b):
            return torch.sin(a * b)

        jf = thunder.jit(f, executors=[picky, *thunder.get_default_executors()])
        jf(torch.ones(3), torch.ones(3))
    """,
    "raises": """
        import torch
        import thunder

        jf = thunder.jit(lambda x: x - 1)
        jf(torch.ones(2))
        raise ValueError("boom after compiling")
    """,
    "plain": """
        print("no Thunder in here")
    """,
    "uncalled": """
        import thunder

        jf = thunder.jit(lambda a: a * 2)  # never called: nothing is compiled
    """,
    "nocache": """
        import torch
        import thunder

        jf = thunder.jit(lambda x: torch.sin(x) * 2, cache="no caching")
        for n in (4, 4, 8):
            jf(torch.ones(n))
    """,
    "syntax": """
        import thunder

        def f(x)
            return x
    """,
}

# --open starts $BROWSER with the page's URL (Python's webbrowser): here a shell that writes it down.
OPENED = "opened.txt"
BROWSER = f"/bin/sh -c 'echo \"$0\" > {OPENED}' %s"


def explain(tmp_path, name: str, *args: str, options: tuple[str, ...] = (),
            env: dict | None = None) -> tuple[subprocess.CompletedProcess, BeautifulSoup | None]:
    folder = tmp_path / name
    folder.mkdir()
    (folder / f"{name}.py").write_text(textwrap.dedent(SCRIPTS[name]))
    proc = subprocess.run([sys.executable, "-m", "thunder_docs.explain", *options, f"{name}.py", *args],
                          cwd=folder, capture_output=True, text=True, timeout=600, env={**mkdocs_env(), **(env or {})})
    out = folder / "explain" / f"{name}.html"
    proc.page = out  # where the page is (it may not exist)
    return proc, BeautifulSoup(out.read_text(), "html.parser") if out.exists() else None


def traces_of(soup: BeautifulSoup) -> list:
    return soup.select("figure.trace code[data-traces]")


def assert_site_dom(soup: BeautifulSoup) -> None:
    """Each trace block carries the site's line map (the script marks its lines and names up from it)."""
    blocks = traces_of(soup)
    assert blocks, "no trace block"
    for code in blocks:
        rows = json.loads(code.get("data-lines", "[]"))
        assert rows, "a trace block without mapped lines"
        printed = code.get_text().split("\n")
        names = {n[1] for row in rows for n in row.get("n", [])}
        defined = {n[1] for row in rows for n in row.get("n", []) if len(n) > 2}
        assert names and defined and defined <= names
        assert all(printed[row["l"]][n[0]:n[0] + len(n[1])] == n[1] for row in rows for n in row.get("n", []))
    assert not soup.select("script[src], link[href], img[src]")  # self-contained


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("explain")
    return {name: explain(tmp, name, *(["--flag", "x"] if name == "shapes" else []),
                          options=("--open",) if name == "function" else (), env={"BROWSER": BROWSER})
            for name in SCRIPTS}


def test_a_function_gets_its_computation_prologue_and_epilogue(pages):
    proc, soup = pages["function"]
    assert proc.returncode == 0, proc.stderr
    titles = [f.figcaption.get_text() for f in soup.select("figure.trace")]
    assert any("computation" in t for t in titles) and any("prologue" in t for t in titles)
    assert_site_dom(soup)
    assert "tensor([" in proc.stdout  # the script's own output, as python would print it


def test_a_training_step_gets_its_backward_and_its_cache_hit(pages):
    proc, soup = pages["training"]
    assert proc.returncode == 0, proc.stderr
    titles = [f.figcaption.get_text() for f in soup.select("figure.trace")]
    assert any("backward" in t for t in titles)
    row = soup.select_one("table tbody tr").get_text(" ")
    assert re.search(r"Model \(thunder.jit\)\s+2\s+1\s+1\s+1", row), row  # 2 calls, 1 hit, 1 miss, 1 compilation
    backward = next(f for f in soup.select("figure.trace") if "backward" in f.figcaption.get_text())
    assert "BACKWARD" in backward.code["data-traces"]
    assert_site_dom(soup)


def _forward_rows(soup: BeautifulSoup) -> list[dict]:
    forward = next(f for f in soup.select("figure.trace") if "computation" in f.figcaption.get_text())
    return json.loads(forward.code["data-lines"])


def test_a_line_inside_a_module_names_the_chain_from_your_line_and_your_line_lists_it(pages):
    """The linear is recorded at torch's linear.py; its chain starts at the script's call of the
    model and goes through the line of the user's forward that calls self.fc1; both lines list it."""
    proc, soup = pages["yourline"]
    assert proc.returncode == 0, proc.stderr
    rows = _forward_rows(soup)
    [linear] = [r for r in rows if r.get("y") == "linear" and r.get("d") == 0]
    assert linear["s"] == "site-packages/torch/nn/modules/linear.py:125"
    chain = linear["c"].split("\n")
    assert chain[0] == "yourline.py:16  model(torch.randn(2, 4)).sum().backward()"
    assert chain[1] == "→ yourline.py:12  return torch.relu(self.fc1(x))"
    assert chain[2].startswith("→ site-packages/torch/nn/modules/linear.py:125  return F.linear(")
    assert linear["u"] == "yourline.py:16 yourline.py:12"
    relu = [r for r in rows if r.get("s") == "yourline.py:12" and r.get("d") == 0]
    assert relu and all("c" not in r and r["u"] == "yourline.py:16 yourline.py:12" for r in relu)
    comment = soup.find("a", class_="tsrc", string="site-packages/torch/nn/modules/linear.py:125")
    assert comment["href"] == "#src-yourline-12" and "yourline.py:12 →" in comment["title"]
    listed = soup.find("details", id="ops-src-yourline-12")
    ops = listed.select("li a")
    linear_op = next(a for a in ops if "torch.nn.functional.linear(" in a.get_text())
    anchor = soup.find(id=linear_op["href"][1:])
    assert anchor is not None and anchor.find_parent("figure", class_="trace") is not None
    assert "recorded at site-packages/torch/nn/modules/linear.py:125" in linear_op.find_parent("li").get_text()
    assert len(soup.find("details", id="ops-src-yourline-16").select("li")) == len(ops)  # the call: every one
    backward = next(f for f in soup.select("figure.trace") if "backward" in f.figcaption.get_text())
    assert not any("u" in r or "c" in r for r in json.loads(backward.code["data-lines"]))  # no source: no chain


def test_with_the_frames_hook_off_no_line_gets_a_chain(tmp_path):
    proc, soup = explain(tmp_path, "yourline", env={"THUNDER_DOCS_HOOKS_OFF": "explain-frames"})
    assert proc.returncode == 0, proc.stderr
    assert not any("u" in r or "c" in r for r in _forward_rows(soup))
    assert not soup.select("details.ops")


def test_two_shapes_are_two_compilations_and_the_script_gets_its_arguments(pages):
    proc, soup = pages["shapes"]
    assert proc.returncode == 0, proc.stderr
    assert "argv ['--flag', 'x']" in proc.stdout
    assert [h.get_text() for h in soup.select("h3")] == ["Compilation 1", "Compilation 2"]
    assert_site_dom(soup)


def _why_rows(soup: BeautifulSoup) -> list[list[str]]:
    table = next(t for t in soup.select("table") if "the check that raised" in t.get_text())
    return [[td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr")]


def test_the_second_compilation_names_the_check_of_the_first_that_failed(pages):
    """The first compilation's prologue checked a's shape (3,); the second call gave (2, 5)."""
    proc, soup = pages["shapes"]
    assert proc.returncode == 0, proc.stderr
    [row] = _why_rows(soup)
    assert row[:5] == ["1", "a", "shape", "(3,)", "(2, 5)"]
    assert row[6].startswith("check_tensor_metadata(a, (3,), 'cpu', torch.float32, False)")
    assert "compilation 1: a: shape (3,) expected, (2, 5) given" in soup.select_one("table").find_next("table").get_text()
    second = soup.find("h3", string="Compilation 2")
    assert second.find_next("h4").get_text() == "Why it compiled again"
    assert soup.find("h3", string="Compilation 1").find_next("h4").get_text() != "Why it compiled again"


def test_a_thunderfx_graph_says_which_guard_or_graph_break_made_it(pages):
    proc, soup = pages["fxshapes"]
    assert proc.returncode == 0, proc.stderr
    made = [p.get_text() for p in soup.find_all("p") if p.get_text().startswith("Why TorchDynamo made it: ")]
    assert len(made) == 4  # before and after the break, for each rank
    assert made[0] == "Why TorchDynamo made it: the first graph of its frame"
    assert made[1].startswith("Why TorchDynamo made it: resumes after the graph break: ") and "fxshapes.py:7" in made[1]
    assert made[2] == "Why TorchDynamo made it: recompiled: a guard failed: 0/0: tensor 'x' rank mismatch. expected 1, actual 2"
    assert "rank mismatch" in made[3]


def test_each_trace_line_has_its_bytes_alive_and_the_peak(pages):
    proc, soup = pages["training"]
    assert proc.returncode == 0, proc.stderr
    heads = [h.get_text() for h in soup.select("h4")]
    assert "Memory of the computation trace" in heads and "Memory of the backward trace" in heads
    for head in soup.find_all("h4", string=re.compile("^Memory of")):
        table = head.find_next("table")
        rows = [[td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr")]
        alive = [int(r[2].split(" B")[0].replace(",", "")) for r in rows]
        [peak] = [k for k, r in enumerate(rows) if r[3] == "peak"]
        assert alive[peak] == max(alive) and max(alive[:peak], default=0) < alive[peak]
    saved = soup.find("p", string=re.compile("^Saved for the backward")).find_next("table")
    made_by = {tr.select("td")[0].get_text(): tr.select("td")[2].get_text() for tr in saved.select("tbody tr")}
    # x for the weight's gradient; relu's backward keeps the mask x @ W.T + b > 0, made by a gt line
    assert made_by["x"] == "an argument" and sorted(made_by.values()) == ["an argument", "gt"]


def test_a_thunderfx_split_gets_each_thunder_part_and_the_split_reason(pages):
    proc, soup = pages["fx"]
    assert proc.returncode == 0, proc.stderr
    titles = [h.get_text() for h in soup.select("h2")]
    assert "ThunderFX graph 1, part thunder_0" in titles and "ThunderFX graph 1, part thunder_2" in titles
    assert "MISSING_OP_SUPPORT" in soup.get_text() and "inductor_1" in soup.get_text()
    links = soup.select("a.tsrc")  # FX's <eval_with_key> lines link to the script's own lines
    assert links and all(a.get_text().startswith("<eval_with_key>") for a in links)
    assert {soup.find(id=a["href"][1:])["data-src"] for a in links} == {"fx.py:6", "fx.py:8"}
    assert_site_dom(soup)


def test_each_line_says_which_executors_declined_it_and_why(pages):
    """picky is asked first: it has no implementation of mul, and its checker declines sin for
    3 elements; torch runs both lines."""
    proc, soup = pages["declined"]
    assert proc.returncode == 0, proc.stderr
    table = next(t for t in soup.select("table") if "asked first, and declined" in t.get_text())
    rows = {cells[1]: cells for cells in ([td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr"))}
    assert rows["mul"][2] == "torch" and "picky: no implementation of torch.mul is registered" in rows["mul"][4]
    assert rows["sin"][2] == "torch" and "picky: its checker only_small returned False" in rows["sin"][4]
    assert "torch:" not in rows["sin"][4]  # the executor that ran it did not decline it


def test_a_script_that_raises_still_gets_its_page_and_fails(pages):
    proc, soup = pages["raises"]
    assert proc.returncode == 1
    assert "ValueError: boom after compiling" in proc.stderr
    assert "ValueError: boom after compiling" in soup.select_one(".error").get_text()
    assert_site_dom(soup)


def test_a_script_without_thunder_says_so(pages):
    proc, soup = pages["plain"]
    assert proc.returncode == 3 and soup is None
    assert "compiled nothing with thunder.jit or ThunderFX" in proc.stderr


def test_a_function_jitted_and_never_called_is_compiled_nothing(pages):
    proc, soup = pages["uncalled"]
    assert proc.returncode == 3 and soup is None
    assert "compiled nothing: it made 1 jitted functions and called none" in proc.stderr


def test_without_caching_the_page_shows_the_last_calls_compilation(pages):
    """cache="no caching" keeps no cache entry, but Thunder keeps the last call's traces."""
    proc, soup = pages["nocache"]
    assert proc.returncode == 0, proc.stderr
    assert "compiled this function 3 times" in soup.select_one(".last-call").get_text()
    assert "1 of 3 (no caching: the last)" in soup.select_one("table").get_text()  # the summary's count
    titles = [f.figcaption.get_text() for f in soup.select("figure.trace")]
    assert any("computation trace" in t for t in titles) and any("prologue trace" in t for t in titles)
    prologue = next(f for f in soup.select("figure.trace") if "prologue trace" in f.figcaption.get_text())
    assert 'x: "cpu f32[8]"' in prologue.get_text()  # the last call's input (it checks no shape then)
    assert_site_dom(soup)


def test_a_syntax_error_is_reported_alone_before_thunder_is_imported(pages):
    proc, soup = pages["syntax"]
    assert proc.returncode == 1 and soup is None
    assert proc.stderr.startswith('  File "syntax.py", line 4') and proc.stderr.rstrip().endswith("SyntaxError: expected ':'")
    assert "Traceback" not in proc.stderr and "importing thunder" not in proc.stderr
    assert "compiled nothing" not in proc.stderr


def test_open_starts_the_browser_on_the_written_page(pages):
    proc, _ = pages["function"]
    assert proc.returncode == 0, proc.stderr
    opened = (proc.page.parents[1] / OPENED).read_text().strip()
    assert opened == proc.page.resolve().as_uri()
    assert f"opened {opened}" in proc.stderr
    assert not (pages["shapes"][0].page.parents[1] / OPENED).exists()  # only with --open


def cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "thunder_docs.explain", *argv], capture_output=True, text=True,
                          timeout=120, env=mkdocs_env())


def test_help_is_plain_text_with_every_exit_code():
    from thunder_docs.explain.cli import EXIT

    proc = cli("--help")
    assert proc.returncode == 0 and proc.stderr == ""
    assert "`" not in proc.stdout and "``" not in proc.stdout
    for option in ("--out PATH", "--open", "--version", "SCRIPT", "ARGS"):
        assert option in proc.stdout
    codes = proc.stdout.split("exit codes:\n", 1)[1]
    assert [int(line.split()[0]) for line in codes.splitlines() if line[:3].strip().isdigit()] == sorted(EXIT) == [0, 1, 2, 3, 4]


def test_usage_errors_exit_2_and_compiled_nothing_exits_3(tmp_path):
    from importlib import metadata

    assert cli("--no-such-option", "x.py").returncode == 2
    assert cli().returncode == 2  # no SCRIPT
    missing = cli(str(tmp_path / "missing.py"))
    assert missing.returncode == 2 and "no such script" in missing.stderr
    version = cli("--version")
    assert version.returncode == 0
    assert version.stdout.strip() == (f"thunder-explain {metadata.version('thunder-internals')} "
                                      f"(lightning-thunder {metadata.version('lightning-thunder')}, "
                                      f"torch {metadata.version('torch')})")


def test_the_explorers_one_pass_markup_equals_the_sites():
    """page.marked_text marks a plain-text block line by line; the site's mark_output walks a tree.
    On real traces (with a backward, so source links and saved tensors too) the two agree."""
    import thunder
    import torch

    from thunder_docs.explain.collect import Collected, Compiled
    from thunder_docs.explain.page import marked_text
    from thunder_docs.explain.report import build
    from thunder_docs.plugins.traces.plugin import Block as SiteBlock
    from thunder_docs.plugins.traces.plugin import mark_output

    def f(a, b):
        return torch.sin(a * b) + a

    jf = thunder.jit(f)
    jf(torch.ones(3, requires_grad=True), torch.ones(3))
    report = build(Collected([Compiled("f", jf)]), ROOT, "f")
    blocks = [b for c in report.functions[0].compilations for b in c.blocks]
    assert len(blocks) >= 3 and any(b.trace_map.lines for b in blocks)
    for block in blocks:
        block.stepper = False
        site = mark_output("<pre>", "<code>" + html.escape(block.text) + "</code>",
                           SiteBlock(None, block.text, block.trace_map), set())
        assert site is not None
        assert marked_text(block, set()) == site[1], block.title


def test_the_backwards_peak_is_compared_with_memory_calculation():
    """The page's peak of each trace, beside thunder.examine.memory_calculation's on the same trace."""
    import thunder
    import torch
    from thunder.examine.memory_calculation import get_alloc_memory

    from thunder_docs.explain.collect import Collected, Compiled
    from thunder_docs.explain.memory import note
    from thunder_docs.explain.report import build

    def f(a, b):
        return torch.sin(a * b).reshape(-1).sum()

    jf = thunder.jit(f)
    jf(torch.ones(3, 4, requires_grad=True), torch.ones(3, 4)).backward()
    [compilation] = build(Collected([Compiled("f", jf)]), ROOT, "f").functions[0].compilations
    backward = thunder.last_backward_traces(jf)[-1]
    compared = compilation.memory["backward"].compared
    assert compared.theirs == get_alloc_memory(backward)[0]
    assert compared.peak == max(r.alive for r in compilation.memory["backward"].rows)
    assert compared.arguments_freed and compared.peak != compared.theirs
    assert note(compared).startswith(f"Peak here: {compared.peak:,} B")
    assert "They differ because this count frees these arguments at their del" in note(compared)


def test_the_note_on_passes_says_what_the_lists_hold():
    """The explorer's note under each pass table (page.NOTE_PASSES): the computation's "Transform for
    execution" is not in the list; the step after it, Delete Last Used, holds its result, and, with a
    backward, the split's forward: the lines from the first get_grad on, the backward's, are gone there."""
    import thunder
    import torch

    from thunder_docs.explain.page import NOTE_PASSES

    def f(a, b):
        return torch.sin(a * b).sum()

    jf = thunder.jit(f)
    jf(torch.ones(3, requires_grad=True), torch.ones(3)).backward()
    traces = thunder.last_traces(jf)
    passes = [str(t.get_provenance()) for t in traces]
    assert not any("Transform for execution" in p for p in passes)
    at = next(i for i, p in enumerate(passes) if "Delete Last Used" in p)
    before = [b.sym.name for b in traces[at - 1].bound_symbols]
    after = [b.sym.name for b in traces[at].bound_symbols]
    assert "Grad transform pass" in passes[at - 1] and "get_grad" in before and "get_grad" not in after
    backward = [b.sym.name for b in thunder.last_backward_traces(jf)[0].bound_symbols]
    assert "cos" in before[before.index("get_grad"):] and "cos" not in after and "cos" in backward  # moved there
    assert all(words in NOTE_PASSES for words in ("Delete Last Used", "get_grad", "split into forward and backward"))


def test_an_explorer_failure_exits_4_naming_the_explorer(tmp_path, monkeypatch, capsys):
    """A bug of the explorer while it reads the traces is not the script's failure: exit 4, no page."""
    from thunder_docs.explain import cli, report

    (tmp_path / "ok.py").write_text("import torch\nimport thunder\nthunder.jit(lambda x: x + 1)(torch.ones(2))\n")
    monkeypatch.chdir(tmp_path)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug of the explorer")

    monkeypatch.setattr(report, "build", broken)
    assert cli.main(["ok.py"]) == cli.EXPLORER_FAILED == 4
    err = capsys.readouterr().err
    assert "RuntimeError: a bug of the explorer" in err and "the explorer failed while reading what ok.py compiled" in err
    assert not (tmp_path / "explain" / "ok.html").exists()


def test_a_thunderfx_graphs_lines_get_no_chain_and_no_list(pages):
    """Their frames run through FX's generated code, which has no source: no chain, nothing in Your source."""
    for name in ("fx", "fxshapes"):
        proc, soup = pages[name]
        assert proc.returncode == 0, proc.stderr
        rows = [r for code in traces_of(soup) for r in json.loads(code["data-lines"])]
        assert rows and not [r for r in rows if "c" in r or "u" in r], name
        assert not soup.select("details[id^=ops-src]"), name
