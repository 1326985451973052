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
print("after each compilation's traces:", sorted({h.get_text() for h in page.select("h4")}))
print("folded:", sorted({d.summary.get_text() for d in page.select("details")}))

assert [h.get_text() for h in page.select("h2")] == ["Summary", "Model (thunder.jit)", "Your source"]
assert model.find_next("p").get_text() == "3 calls, 1 cache hit, 2 cache misses."  # batches 8, 8, 16
assert [h.get_text() for h in page.select("h3")] == ["Compilation 1", "Compilation 2"]
assert len(page.select("figure.trace code[data-traces]")) == 8  # four traces per compilation
assert [h.get_text() for h in page.select("h4")] == ["Who runs each line of the computation trace",
                                                     "Who runs each line of the backward trace",
                                                     "Passes and their time"] * 2
# --8<-- [end:page]

# --8<-- [start:help]
helped = subprocess.run([sys.executable, "-m", "thunder_docs.explain", "--help"],
                        capture_output=True, text=True, timeout=120)
print(helped.stdout.split("\npositional arguments:")[0].split("\n\n")[0])  # the usage line
print("exit codes:" + helped.stdout.split("exit codes:", 1)[1].rstrip())
assert helped.returncode == 0 and "  3  the script ran but compiled nothing" in helped.stdout
# --8<-- [end:help]
