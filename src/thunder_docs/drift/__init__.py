"""Another Thunder beside the pinned one: its environment, and what it changes on the site.

``env.py`` sets up a virtual environment per Thunder (a nightly, a named version, or a local
checkout) on top of the pinned one; ``execute.py`` runs every page's sections in it;
``outputs.py``, ``citations.py`` and ``apis.py`` compare that Thunder with the pinned one;
``report.py`` writes what differs; ``cli.py`` is ``scripts/dev drift``.
"""
