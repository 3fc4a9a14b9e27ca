"""``python -m lazytensor.launch``: see ``lazytensor.launch``."""

import sys

from lazytensor.launch.launcher import main

sys.exit(main())
