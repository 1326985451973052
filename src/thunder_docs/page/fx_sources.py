"""From a ThunderFX trace's source comment to the user's own line.

A trace made by ThunderFX names FX's generated code (``<eval_with_key>.N:L``), not the user's
file. FX compiles each ``GraphModule``'s code under such a name, and the node that a line of
that code assigns keeps the user's frames in ``node.meta["stack_trace"]``. So: note each
graph module as FX compiles it (``GraphModule.recompile``, public), read line ``L`` of its
code, take the node it assigns, and return the innermost frame of that node's stack trace.

Where any step finds nothing (a module already gone, a line that assigns no node, a node
without a stack trace), the answer is None and the comment keeps FX's name: nothing is guessed.
"""

from __future__ import annotations

import linecache
import re
import weakref

from thunder_docs.shared import hooks

_MODULES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # "<eval_with_key>.N" -> module
_ASSIGNS = re.compile(r"^\s*(\w+)\s*(?::[^=]+)?=(?!=)")  # "    cos = y.cos();  y = None" -> cos
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_installed = False


def install() -> None:
    """Note every GraphModule's code name from now on (once per process), unless the hook is off
    (shared/hooks.py: torch's GraphModule.recompile changed since it was verified)."""
    global _installed
    if _installed or hooks.is_off("fx-sources"):
        return
    from torch.fx import GraphModule

    recompile = GraphModule.recompile

    def noting_recompile(self, *args, **kwargs):
        result = recompile(self, *args, **kwargs)
        code = getattr(getattr(type(self), "forward", None), "__code__", None)
        if code is not None and code.co_filename.startswith("<eval_with_key>"):
            _MODULES[code.co_filename] = self
        return result

    noting_recompile.__wrapped__, noting_recompile.__name__ = recompile, recompile.__name__
    noting_recompile.__doc__ = recompile.__doc__
    GraphModule.recompile = noting_recompile
    _installed = True


def user_line(filename: str, lineno: int) -> tuple[str, int] | None:
    """The user's (file, line) that made line ``lineno`` of FX's code ``filename``, if known."""
    module = _MODULES.get(filename)
    if module is None:
        return None
    lines = linecache.getlines(filename)
    if not 0 < lineno <= len(lines) or not (match := _ASSIGNS.match(lines[lineno - 1])):
        return None
    node = next((n for n in module.graph.nodes if n.name == match.group(1)), None)
    frames = _FRAME.findall((node.meta.get("stack_trace") or "") if node is not None else "")
    if not frames:
        return None
    path, line = frames[-1]  # the innermost frame: the line that called the operation
    return path, int(line)
