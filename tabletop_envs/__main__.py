"""``python -m tabletop_envs``: the ``tabletop-envs`` command (play, replay, list)."""

import sys

from .cli import main

sys.exit(main())
