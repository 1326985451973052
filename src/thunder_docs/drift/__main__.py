import sys

from thunder_docs.drift.cli import main

sys.exit(main())
