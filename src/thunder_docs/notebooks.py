"""Execute the site's notebooks (such as docs/tour.ipynb) with nbclient, through the cache.

Notebooks are stored without outputs. The build executes each one in a kernel started from
the build's own Python, with the repository as working directory, and fails on the first
cell that raises (errors are never allowed). The executed copy is kept in the cache under
a key made like a section's (the notebook's bytes plus versions, device and environment),
and mkdocs-jupyter renders that copy without executing it again. So a warm build starts
no kernel.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .files import write_atomic

NB_DIR = "notebooks"


class NotebookError(Exception):
    """A notebook cell raised, or the notebook ran past its timeout."""


def notebook_key(source: bytes, context: dict) -> str:
    digest = hashlib.sha256(b"notebook\0" + json.dumps(context, sort_keys=True).encode() + b"\0")
    digest.update(source)
    return digest.hexdigest()


def executed_copy(path: Path, shown: str, root: Path, cache_dir: Path, context: dict,
                  timeout: float) -> tuple[Path, bool, str]:
    """The path of an executed copy of a notebook, whether it was executed just now, and what
    its kernel wrote to stderr then."""
    key = notebook_key(path.read_bytes(), context)
    target = cache_dir / NB_DIR / key / path.name  # same file name: mkdocs-jupyter matches on it
    if target.is_file():
        return target, False, ""
    executed, stderr = execute(path, shown, root, timeout)
    write_atomic(target, executed)
    return target, True, stderr


def execute(path: Path, shown: str, root: Path, timeout: float) -> tuple[str, str]:
    """The executed notebook, and what its kernel wrote to stderr (kept off the terminal)."""
    import nbformat
    from jupyter_client import KernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    notebook = nbformat.read(path, as_version=4)
    os.environ["PYTHONHASHSEED"] = "0"  # passed to the kernel: sets print in the order the pages show
    try:
        with tempfile.TemporaryDirectory(prefix="thunder-docs-kernel-") as sockets, tempfile.TemporaryFile() as stderr:
            # Unix sockets in a private folder, not TCP: nothing listens on the network.
            kernel = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
            client = NotebookClient(notebook, km=kernel, timeout=timeout, allow_errors=False, record_timing=False,
                                    resources={"metadata": {"path": str(root)}})
            try:
                client.execute(stderr=stderr)  # passed on to the kernel's process
            finally:
                stderr.seek(0)
                kernel_stderr = stderr.read().decode("utf-8", errors="replace")
    except CellTimeoutError:
        raise NotebookError(f"{shown}: a cell ran past the timeout of {timeout:g} s") from None
    except CellExecutionError as error:
        cell = _failed_cell(notebook)
        raise NotebookError(f"{shown}: cell {cell} raised {error.ename}: {error.evalue}") from None
    return nbformat.writes(notebook), kernel_stderr


def _failed_cell(notebook) -> int | str:
    code_cells = [c for c in notebook.cells if c.cell_type == "code"]
    for number, cell in enumerate(code_cells, start=1):
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            return number
    return "?"
