"""Note what a script compiles while it runs: each ``thunder.jit`` function and each ThunderFX backend.

``thunder.jit`` is replaced, for the length of the run, by a function that calls it and notes
what it returned; ``ThunderCompiler.__init__`` (the backend of ``thunderfx`` and of
``torch.compile(backend=ThunderCompiler())``) notes each backend. Nothing else changes: the
script gets what Thunder returns.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Compiled:
    """A function the script compiled with ``thunder.jit``, in the order compiled."""

    name: str
    jfn: Callable


@dataclass
class Collected:
    functions: list[Compiled] = field(default_factory=list)
    backends: list[Any] = field(default_factory=list)  # ThunderCompiler instances, in order
    progress: Callable[[str], None] = lambda message: None

    def fx_parts(self) -> set[int]:
        """ids of the thunder.jit functions that ThunderFX made for its graphs."""
        return {id(fn) for backend in self.backends for info in backend.subgraph_infos
                for fn in info.thunder_compiled_fns or ()}


def _name_of(fn: Any) -> str:
    target = getattr(fn, "__name__", None) or type(fn).__name__
    module = getattr(fn, "__module__", None) or type(fn).__module__
    return f"{target}" if module in (None, "__main__") else f"{module}.{target}"


@contextmanager
def collecting(progress: Callable[[str], None]):
    """Note, inside the block, every function compiled with thunder.jit and every ThunderFX backend."""
    import thunder
    from thunder.dynamo.compiler import ThunderCompiler

    found = Collected(progress=progress)
    jit, init = thunder.jit, ThunderCompiler.__init__

    def noting_jit(fn, *args, **kwargs):
        jfn = jit(fn, *args, **kwargs)
        if not _inside_thunder():
            found.functions.append(Compiled(_name_of(fn), jfn))
            progress(f"compiled {_name_of(fn)} with thunder.jit")
        return jfn

    def noting_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        found.backends.append(self)
        progress("a ThunderFX backend (ThunderCompiler) was made")

    noting_jit.__doc__, noting_jit.__name__ = jit.__doc__, jit.__name__
    thunder.jit, ThunderCompiler.__init__ = noting_jit, noting_init
    try:
        yield found
    finally:
        thunder.jit, ThunderCompiler.__init__ = jit, init


def _inside_thunder() -> bool:
    """Whether thunder.jit was called from Thunder's own code (ThunderFX jits its graphs)."""
    frame = sys._getframe(2)
    return frame is not None and frame.f_globals.get("__name__", "").startswith("thunder.")
