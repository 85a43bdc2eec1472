"""The shared core: engine protocol, layouts, AEC and single-agent faces, opponents, catalogue helpers."""

from .aec import TabletopAECEnv
from .engine import TERMINAL, Game, State, new_rng
from .errors import IllegalActionError
from .layout import ActionLayout, ObservationLayout
from .policy import Policy, RandomPolicy, load_policy, register_policy
from .single_agent import SingleAgentEnv

__all__ = ["TERMINAL", "ActionLayout", "Game", "IllegalActionError", "ObservationLayout", "Policy",
           "RandomPolicy", "SingleAgentEnv", "State", "TabletopAECEnv", "load_policy", "new_rng",
           "register_policy"]
