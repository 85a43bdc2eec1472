"""PettingZoo-style entry point: ``from tabletop_envs import earth_v0; env = earth_v0.env()``."""

from tabletop_envs.earth.env import __doc__, env, raw_env  # noqa: F401
