"""tabletop_envs: PettingZoo AEC environments for Terralore, Travel Earth TCG and Earth.

``import tabletop_envs`` registers every env with PettingZoo (``pettingzoo.make("aec",
"tabletop_envs/terralore-v0")``) and Gymnasium (``gymnasium.make("tabletop_envs/Terralore-v0")``,
the single-agent "learner vs opponents" face). It imports neither torch nor the game modules.
"""

from __future__ import annotations

from .core.errors import (
    CatalogueError,
    ConfigError,
    DeckError,
    IllegalActionError,
    ModelMismatchError,
    ReplayError,
    RuleOptionsWarning,
    StateError,
    TabletopError,
    UnknownAgentError,
    UnknownEnvError,
)
from .core.policy import Policy, RandomPolicy, load_policy, register_policy, registered_policies
from .core.registry import ENVS

__version__ = "0.2.0"

__all__ = [
    "ENVS", "CatalogueError", "ConfigError", "DeckError", "IllegalActionError", "ModelMismatchError",
    "Policy", "RandomPolicy", "ReplayError", "RuleOptionsWarning", "StateError", "TabletopError", "UnknownAgentError", "UnknownEnvError", "load_policy", "register_policy",
    "registered_policies", *sorted(ENVS),  # every game core/registry.py lists, a fourth one too
]


def _register() -> None:
    import gymnasium
    import pettingzoo

    for spec in ENVS.values():
        if spec.pettingzoo_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", spec.pettingzoo_id, entry_point=f"{spec.module}:env")
        if spec.gymnasium_id not in gymnasium.registry:
            gymnasium.register(
                id=spec.gymnasium_id,
                entry_point="tabletop_envs.core.single_agent:SingleAgentEnv",
                kwargs={"env": spec.env_name},
                disable_env_checker=True,
            )


_register()


def __getattr__(name: str):
    # PettingZoo style: ``from tabletop_envs import terralore_v0; terralore_v0.env()``
    if name in ENVS:
        from .core.registry import import_if_written  # (imported here: not a name of the package)

        # a game added with its one line in core/registry.py and no tabletop_envs/<name>.py beside it: its
        # env module is what that file would re-export (env, raw_env and the documentation page)
        return import_if_written(f"tabletop_envs.{name}") or ENVS[name].load_module()
    raise AttributeError(f"module 'tabletop_envs' has no attribute {name!r}")
