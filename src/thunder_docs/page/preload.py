"""Imported once by the forkserver, so every page's process starts with these modules loaded.

The modules are named in THUNDER_DOCS_PRELOAD (comma-separated). Warnings raised while
importing them (such as "transformer_engine module not found!") are kept in WARNINGS for
the build's log instead of the terminal.

The forkserver is made a subreaper too (``processes.py``): what a killed page's process
leaves is handed to it, and its loop reaps every child it has; that a child is not one of
its pages is no news, so its warning about one is silenced.
"""

import importlib
import os
import warnings

from thunder_docs.page import processes

with warnings.catch_warnings(record=True) as _caught:
    warnings.simplefilter("always")
    for _name in filter(None, os.environ.get("THUNDER_DOCS_PRELOAD", "").split(",")):
        importlib.import_module(_name)

WARNINGS = [f"{w.category.__name__}: {w.message}" for w in _caught]

processes.become_subreaper()
warnings.filterwarnings("ignore", message="forkserver: waitpid returned unexpected pid", category=UserWarning)
