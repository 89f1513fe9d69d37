"""``python -m skprivsynth``: the same command as the ``skprivsynth`` console script."""

import sys

from .cli import main

sys.exit(main())
