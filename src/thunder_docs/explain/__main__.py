"""``python -m thunder_docs.explain SCRIPT ...``: the same as the ``thunder-explain`` command."""

import sys

from thunder_docs.explain.cli import main

sys.exit(main())
