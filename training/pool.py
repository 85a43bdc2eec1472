"""The self-play opponent pool: fixed anchors plus a window of frozen snapshots of the learner.

Each episode the single-agent env calls ``pool(rng)`` once per opponent seat:

- with probability ``random_weight`` the random policy, with ``heuristic_weight`` the heuristic bot;
- otherwise a snapshot: the newest with probability ``play_latest_ratio``, else one drawn uniformly
  from the last ``window`` snapshots. With no snapshot yet, the anchors share the whole mass.

Snapshots are :class:`~tabletop_envs.core.onnx_policy.MLPPolicy` objects (numpy weights), so an
opponent move costs a few µs and the pool pickles cheaply to SubprocVecEnv workers
(``env_method("set_opponent", pool)`` after every change).

Whether a new snapshot is frozen is gated on the learner's recent score against the pool's
snapshots (``gate_win_rate``; a win 1, a draw 0.5): a learner that cannot yet beat its past selves keeps training
against them instead of filling the window with copies of the same strength.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from tabletop_envs.core.errors import ConfigError
from tabletop_envs.core.onnx_policy import MLPPolicy
from tabletop_envs.core.policy import RandomPolicy, load_policy

RANDOM, HEURISTIC, SNAPSHOT = "random", "heuristic", "snapshot"


class OpponentPool:
    """Callable ``rng -> Policy``; every returned policy carries ``pool_tag`` (random/heuristic/snapshot)."""

    def __init__(self, env_name: str, random_weight: float = 0.1, heuristic_weight: float = 0.2,
                 window: int = 5, play_latest_ratio: float = 0.5, game_config: dict | None = None):
        self.env_name = env_name
        self.game_config = game_config  # the rules the heuristic plays under (Earth: its catalogue)
        self.window = window
        self.play_latest_ratio = play_latest_ratio
        self.snapshots: deque[MLPPolicy] = deque(maxlen=window)
        self.random = _tagged(RandomPolicy(), RANDOM, "random")
        self.heuristic = None
        self.set_weights(random_weight, heuristic_weight)

    def set_weights(self, random_weight: float, heuristic_weight: float) -> None:
        """Change the anchors' shares (a recipe phase); the heuristic is loaded when it first gets a share."""
        if random_weight + heuristic_weight > 1 + 1e-9:
            raise ValueError("random_weight + heuristic_weight must be <= 1")
        if heuristic_weight > 0 and self.heuristic is None:
            try:
                bot = load_policy(f"{self.env_name}/heuristic", game_config=self.game_config)
            except Exception as exc:
                raise ConfigError(f"selfplay.heuristic_weight is {heuristic_weight} but {self.env_name}/heuristic "
                                  f"cannot be loaded ({exc}); set selfplay.heuristic_weight: 0") from exc
            self.heuristic = _tagged(bot, HEURISTIC, "heuristic")
        self.random_weight, self.heuristic_weight = random_weight, heuristic_weight

    # ------------------------------------------------------------------ sampling
    def probabilities(self) -> dict[str, float]:
        """Share of opponent draws per kind, given the snapshots present now."""
        r, h = self.random_weight, self.heuristic_weight
        if not self.snapshots:
            total = r + h
            if total == 0:
                return {RANDOM: 1.0, HEURISTIC: 0.0, SNAPSHOT: 0.0}
            return {RANDOM: r / total, HEURISTIC: h / total, SNAPSHOT: 0.0}
        return {RANDOM: r, HEURISTIC: h, SNAPSHOT: 1.0 - r - h}

    def __call__(self, rng: np.random.Generator):
        p = self.probabilities()
        u = rng.random()
        if u < p[RANDOM]:
            return self.random
        if u < p[RANDOM] + p[HEURISTIC]:
            return self.heuristic
        if len(self.snapshots) == 1 or rng.random() < self.play_latest_ratio:
            return self.snapshots[-1]
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    # ------------------------------------------------------------------ snapshots
    def add_snapshot(self, weights, activation: str, steps: int, deterministic: bool = False) -> MLPPolicy:
        snap = MLPPolicy(weights, activation, deterministic=deterministic, name=f"snapshot@{steps}")
        _tagged(snap, SNAPSHOT, snap.name)
        snap.steps = steps
        self.snapshots.append(snap)
        return snap

    @property
    def size(self) -> int:
        """Opponents one can draw: the anchors with a positive weight plus the snapshots."""
        return int(self.random_weight > 0) + int(self.heuristic_weight > 0) + len(self.snapshots)

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        return {"snapshots": [{"steps": s.steps, "activation": s.activation, "deterministic": s.deterministic,
                               "weights": [(w.copy(), b.copy()) for w, b in s.layers]} for s in self.snapshots]}

    def load_state_dict(self, state: dict) -> None:
        self.snapshots.clear()
        for s in state["snapshots"]:
            self.add_snapshot(s["weights"], s["activation"], s["steps"], s["deterministic"])


class WinRateGate:
    """Recent results against snapshots; decides whether the learner has earned a new snapshot."""

    def __init__(self, threshold: float, episodes: int):
        self.threshold = threshold
        self.results: deque[float] = deque(maxlen=episodes)

    def record(self, score: float) -> None:
        self.results.append(score)

    def win_rate(self) -> float:
        return float(np.mean(self.results)) if self.results else float("nan")

    def open(self) -> bool:
        if self.threshold <= 0:
            return True
        # Too few games to judge: wait rather than freeze a snapshot on noise.
        if len(self.results) < min(20, self.results.maxlen):
            return False
        return self.win_rate() >= self.threshold

    def reset(self) -> None:
        self.results.clear()


def _tagged(policy, tag: str, name: str):
    policy.pool_tag = tag
    if not getattr(policy, "name", None) or tag != HEURISTIC:
        try:
            policy.name = name
        except AttributeError:
            pass
    return policy
