"""Execute the site's notebooks (such as docs/tour.ipynb) with nbclient, through the cache.

Notebooks are stored without outputs. The build executes each one in a kernel started from
the build's own Python, with the repository as working directory, and fails on the first
cell that raises (errors are never allowed). The executed copy is kept in the cache under
a key made like a section's (the notebook's bytes plus versions, device and environment),
and mkdocs-jupyter renders that copy without executing it again. So a warm build starts
no kernel. Before the first cell, the build silently sets up the trace capture in the kernel
(page/capture.py); each code cell's trace map is kept in its metadata in the executed copy.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from thunder_docs.page.capture import kernel_setup_code
from thunder_docs.shared.code_digest import digest_of, loaded_digest
from thunder_docs.shared.files import digest, write_atomic
from thunder_docs.shared.trace_map import TraceMap

NB_DIR = "notebooks"
TRACES_KEY = "thunder_docs_traces"  # a code cell's metadata: the trace map of what it printed


class NotebookError(Exception):
    """A notebook cell raised, or the notebook ran past its timeout."""


def notebook_key(source: bytes, context: dict) -> str:
    """The notebook, everything its outputs depend on (context), and the code that executes it."""
    return digest("notebook", json.dumps(context, sort_keys=True), loaded_digest("thunder_docs.plugins.exec.notebooks"),
                  digest_of("thunder_docs.page.capture"), source)  # the capture runs in the kernel: as the files are


def executed_copy(path: Path, shown: str, root: Path, cache_dir: Path, context: dict,
                  timeout: float, hooks_env: dict[str, str] | None = None) -> tuple[Path, bool, str]:
    """The path of an executed copy of a notebook, whether it was executed just now, and what
    its kernel wrote to stderr then (``hooks_env``: which hooks are off, shared/hooks.py)."""
    hooks_env = hooks_env or {}
    key = notebook_key(path.read_bytes(), {**context, **hooks_env})
    target = cache_dir / NB_DIR / key / path.name  # same file name: mkdocs-jupyter matches on it
    if target.is_file():
        return target, False, ""
    executed, stderr = execute(path, shown, root, timeout, hooks_env)
    write_atomic(target, executed)
    return target, True, stderr


def execute(path: Path, shown: str, root: Path, timeout: float, hooks_env: dict[str, str] | None = None) -> tuple[str, str]:
    """The executed notebook, and what its kernel wrote to stderr (kept off the terminal)."""
    import nbformat
    from jupyter_client import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    notebook = nbformat.read(path, as_version=4)
    os.environ["PYTHONHASHSEED"] = "0"  # passed to the kernel: sets print in the order the pages show
    with (tempfile.TemporaryDirectory(prefix="thunder-docs-nb-") as tmp, tempfile.TemporaryFile() as stderr):
        # Unix sockets in a private folder, not TCP: nothing listens on the network.
        kernel = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(tmp, "kernel"))
        # coalesce_streams: a cell's standard output is one stream output however the kernel sent
        # it (under load a cell's print can arrive in two messages), so its trace map matches it.
        client = NotebookClient(notebook, km=kernel, timeout=timeout, allow_errors=False, record_timing=False,
                                coalesce_streams=True, resources={"metadata": {"path": str(root)}})
        maps = Path(tmp) / "traces.jsonl"

        async def record_traces(notebook):
            """Before the first cell, silently (no execution count): map each cell's printed traces."""
            reply = await client.async_wait_for_reply(
                client.kc.execute(kernel_setup_code(root, maps, hooks_env or {}), silent=True, store_history=False))
            if reply is None or reply["content"]["status"] != "ok":
                raise NotebookError(f"{shown}: could not set up the trace capture in the kernel: {reply}")

        client.on_notebook_start = record_traces
        try:
            client.execute(stderr=stderr)  # passed on to the kernel's process
        except CellTimeoutError:
            raise NotebookError(f"{shown}: a cell ran past the timeout of {timeout:g} s") from None
        except CellExecutionError as error:
            cell = _failed_cell(notebook)
            raise NotebookError(f"{shown}: cell {cell} raised {error.ename}: {error.evalue}") from None
        finally:
            stderr.seek(0)
            kernel_stderr = stderr.read().decode("utf-8", errors="replace")
        by_count = {m["count"]: m["traces"] for m in map(json.loads, maps.read_text().splitlines())} \
            if maps.exists() else {}
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.get("execution_count") in by_count:
            cell.metadata[TRACES_KEY] = by_count[cell.execution_count]
    return nbformat.writes(notebook), kernel_stderr


def trace_maps(executed: Path) -> list[tuple[str, TraceMap]]:
    """(standard output, trace map) of each code cell of an executed copy whose output shows traces."""
    notebook = json.loads(executed.read_text(encoding="utf-8"))
    found = []
    for cell in notebook["cells"]:
        data = cell.get("metadata", {}).get(TRACES_KEY)
        if cell["cell_type"] == "code" and data:
            stdout = "".join("".join(o["text"]) if isinstance(o["text"], list) else o["text"]
                             for o in cell.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") == "stdout")
            found.append((stdout, TraceMap.from_json(data)))
    return found


def _failed_cell(notebook) -> int | str:
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    for number, cell in enumerate(code_cells, start=1):
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            return number
    return "?"
