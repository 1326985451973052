# --8<-- [start:run]
import re
import subprocess
import sys
import tempfile
from pathlib import Path

script = Path("examples/two_shapes.py")  # run from the repository's folder
if not script.is_file():
    raise SystemExit(f"{script} not found: run this from the repository's folder")
print(script.read_text().split('"""\n', 2)[-1].strip())  # the script, without its docstring

out = Path(tempfile.mkdtemp()) / "two_shapes.html"
proc = subprocess.run([sys.executable, "-m", "thunder_docs.explain", "--out", str(out), str(script)],
                      capture_output=True, text=True, timeout=600)
messages = [line for line in proc.stderr.splitlines() if line.startswith("thunder-explain:")]
print("\nexit code:", proc.returncode)
print("\n".join(re.sub(r"ran in [\d.]+ s", "ran in N s", line) for line in messages
                if "wrote" not in line))
print("thunder-explain: wrote", out.name)

assert proc.returncode == 0
assert any(line.endswith("(1 functions, 2 compilations)") for line in messages)
assert "loss:" in proc.stdout  # the script's own output stays the script's
# --8<-- [end:run]

# --8<-- [start:page]
from bs4 import BeautifulSoup  # noqa: E402

page = BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser")
print("title:", page.h1.get_text())
print("sections:", [h.get_text() for h in page.select("h2")])
model = page.select("h2")[1]
print(f"{model.get_text()}: {model.find_next('p').get_text()}")
for compilation in page.select("h3"):
    blocks = []
    for node in compilation.find_all_next(["h3", "h2", "figcaption"]):
        if node.name != "figcaption":
            break
        blocks.append(node.get_text())
    print(f"{compilation.get_text()}: {blocks}")
for compilation in page.select("h3"):
    headings = []
    for node in compilation.find_all_next(["h3", "h2", "h4"]):
        if node.name != "h4":
            break
        headings.append(node.get_text())
    print(f"{compilation.get_text()}, its tables: {headings}")
print("folded:", sorted({d.summary.get_text() for d in page.select("details:has(> figure.trace)")}))

assert [h.get_text() for h in page.select("h2")] == ["Summary", "Model (thunder.jit)", "Your source"]
assert model.find_next("p").get_text() == "3 calls, 1 cache hit, 2 cache misses."  # batches 8, 8, 16
assert [h.get_text() for h in page.select("h3")] == ["Compilation 1", "Compilation 2"]
assert len(page.select("figure.trace code[data-traces]")) == 8  # four traces per compilation
tables = ["Who runs each line of the computation trace", "Who runs each line of the backward trace",
          "Memory of the computation trace", "Memory of the backward trace", "Passes and their time"]
assert [h.get_text() for h in page.select("h4")] == tables + ["Why it compiled again"] + tables
# --8<-- [end:page]

# --8<-- [start:yourline]
import json  # noqa: E402

forward = page.select("figure.trace code[data-traces]")[0]  # compilation 1's computation trace
line_map = json.loads(forward["data-lines"])  # the map of its lines, as the page's script reads it
linear = next(r for r in line_map if r.get("y") == "linear" and r.get("d") == 0)  # fc1's line (depth 0: not a subsymbol)
print("recorded at:", linear["s"])
print(linear["c"])  # the chain: your line first
listed = page.find("details", id="ops-src-examples-two-shapes-14")  # under your forward's line
print(listed.summary.get_text())
for item in listed.select("li")[:3]:  # compilation 1's
    print(" ", item.a.get_text().split("  #")[0], "|", item.span.get_text().split("; ")[1])

chain = linear["c"].split("\n")
assert chain[0].startswith("examples/two_shapes.py:22  loss = ")  # the call of the model
assert chain[1] == "→ examples/two_shapes.py:14  return self.fc2(torch.tanh(self.fc1(x)))"
assert chain[2].startswith("→ site-packages/torch/nn/modules/linear.py:125  return F.linear(")
ops = [item.a.get_text() for item in listed.select("li")]
assert len(ops) == 6 and sum("linear(" in op for op in ops) == 4  # fc1, tanh, fc2; two compilations
called = page.find("details", id="ops-src-examples-two-shapes-22")  # the line that calls the model
assert [item.a.get_text() for item in called.select("li")] == ops  # lists what was made inside it
backward = page.select("figure.trace code[data-traces]")[1]
assert "backward" in backward.find_parent("figure").figcaption.get_text()
assert not any("c" in r or "u" in r for r in json.loads(backward["data-lines"]))  # no source, no chain

import thunder  # noqa: E402
import torch  # noqa: E402

two = thunder.jit(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)))
two(torch.ones(1, 2))
first, last = thunder.last_traces(two)[0], thunder.last_traces(two)[-1]


def positions(trc):
    return [b.source_positions for b in trc.bound_symbols if b.sym.name == "linear"]


a, b = positions(first)
assert a == b and a is not b  # one line of linear.py, two calls: two objects
assert all(x is y for x, y in zip(positions(first), positions(last), strict=True))  # the passes copy each
# --8<-- [end:yourline]

# --8<-- [start:why]
def rows(table) -> list[list[str]]:
    return [[cell.get_text() for cell in tr.select("th, td")] for tr in table.select("tr")]

summary = next(t for t in page.select("table") if "why it compiled again" in t.get_text())
print("in the summary:", *rows(summary), sep="\n  ")
why = page.find("h4", string="Why it compiled again")
print(f"under {why.find_previous('h3').get_text()}:", *rows(why.find_next("table")), sep="\n  ")

assert rows(summary)[1] == ["Model (thunder.jit)", "2", "compilation 1: x: shape (8, 16) expected, (16, 16) given"]
[failed] = rows(why.find_next("table"))[1:]  # one earlier compilation, one failed check
assert failed[:5] == ["1", "x", "shape", "(8, 16)", "(16, 16)"]
assert failed[6] == "check_tensor_metadata(x, (8, 16), 'cpu', torch.float32, False)"
# --8<-- [end:why]

# --8<-- [start:memory]
import contextlib  # noqa: E402
import io  # noqa: E402
import runpy  # noqa: E402

import thunder  # noqa: E402
from thunder.examine.memory_calculation import get_alloc_memory  # noqa: E402

def as_bytes(text: str) -> int:
    return int(text.split(" B")[0].replace(",", ""))

heading = page.find("h4", string="Memory of the backward trace")  # compilation 1's
backward = rows(heading.find_next("table"))
[peak] = [row for row in backward[1:] if row[-1] == "peak"]
print("the backward's peak:", peak)
saved = page.find("h4", string="Memory of the computation trace").find_next(
    "p", string=lambda text: text and text.startswith("Saved for the backward"))
print(saved.get_text(), *rows(saved.find_next("table")), sep="\n  ")
note = heading.find_next("p", class_="memory-note").get_text()
print("note:", note.replace(". ", ".\n  "))

# The same script run here, without the explorer: Thunder's own estimate of the same backward trace.
with contextlib.redirect_stdout(io.StringIO()):  # the script's own "loss:" line
    script_globals = runpy.run_path(str(script), run_name="__main__")
first = thunder.compile_stats(script_globals["model"]).interpreter_cache[0]
backward_trace = first.backward_traces[-1]
theirs, changes = get_alloc_memory(backward_trace)
print("get_alloc_memory on the backward trace:", theirs)

alive = [as_bytes(row[2]) for row in backward[1:]]
assert as_bytes(peak[2]) == max(alive)  # the row marked is the most bytes alive
assert f"Peak here: {as_bytes(peak[2]):,} B" in note and f"on the same trace: {theirs:,} B" in note
assert as_bytes(peak[2]) < theirs  # memory_calculation keeps the arguments the backward deletes
assert "this count frees these arguments at their del" in note and "gives their own bytes to" in note
# The backward clears its cotangents: memory_calculation frees those at their del too, so they are no difference.
from thunder.examine.memory_calculation import thunder_alias_operator_list  # noqa: E402

cleared = {b.args[0].name: b.args[0] for b in backward_trace.bound_symbols if b.sym.name == "clear_mutable_collection"}
cotangents = [p.name for p in cleared["cotangents"].collection()]
assert all(changes[f"python_del {name}"] < 0 for name in cotangents)  # freed there at their del
freed_list = note.split("frees these arguments at their del (")[1].split(")")[0].split(", ")
assert cotangents and not set(cotangents) & set(freed_list)
assert {"reshape", "transpose", "contiguous"} <= set(thunder_alias_operator_list)
saved_rows = rows(saved.find_next("table"))[1:]
assert {row[2] for row in saved_rows} >= {"an argument"} and len(saved_rows) >= 2
# --8<-- [end:memory]

# --8<-- [start:help]
helped = subprocess.run([sys.executable, "-m", "thunder_docs.explain", "--help"],
                        capture_output=True, text=True, timeout=120)
print(helped.stdout.split("\npositional arguments:")[0].split("\n\n")[0])  # the usage line
print("exit codes:" + helped.stdout.split("exit codes:", 1)[1].rstrip())
assert helped.returncode == 0 and "  3  the script ran but compiled nothing" in helped.stdout
# --8<-- [end:help]
