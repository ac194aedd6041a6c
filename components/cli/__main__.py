"""``python -m trainstack.cli``."""

import sys

from . import main

sys.exit(main())
