"""``python -m lazytensor.lift FILE.py:FUNCTION`` (see ``lazytensor.lift.cli``)."""

import sys

from lazytensor.lift.cli import main

sys.exit(main())
