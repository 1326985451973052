"""``thunder-explain``: the site's trace view for any script (``scripts/dev explain SCRIPT``).

Runs a script as ``python SCRIPT ARGS...`` would, notes every function it compiles with
``thunder.jit`` or ThunderFX (``collect.py``), then reads each compilation's traces from the
objects and prints them under the site's capture (``page/capture.py``), so each printed line
keeps the bound symbol it came from (``report.py``). ``page.py`` writes one self-contained HTML
file, marked up by the same code as the site's traces (``plugins/traces``).
"""
