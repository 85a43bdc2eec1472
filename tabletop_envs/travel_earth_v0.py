"""PettingZoo-style entry point: ``from tabletop_envs import travel_earth_v0; env = travel_earth_v0.env()``."""

from tabletop_envs.travel_earth.env import __doc__, env, raw_env  # noqa: F401
