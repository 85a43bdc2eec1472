"""PettingZoo-style entry point: ``from tabletop_envs import terralore_v0; env = terralore_v0.env()``."""

from tabletop_envs.terralore.env import __doc__, env, raw_env  # noqa: F401
