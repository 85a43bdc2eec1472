"""The self-play opponent pool: fixed anchors plus a window of frozen snapshots of the learner.

Each episode the single-agent env calls ``pool(rng)`` once per opponent seat:

- with probability ``random_weight`` the random policy, with ``heuristic_weight`` the heuristic bot,
  and with each share of ``opponents`` that fixed opponent (a shipped bot, another run's export);
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
from typing import Any, cast

import numpy as np

from tabletop_envs.core.errors import ConfigError
from tabletop_envs.core.onnx_policy import MLPPolicy
from tabletop_envs.core.policy import RandomPolicy, load_policy

RANDOM, HEURISTIC, SNAPSHOT = "random", "heuristic", "snapshot"


def opponent_tag(spec: str) -> str:
    """The name a fixed opponent's training win rate is kept and logged under (``selfplay/win_rate_vs_<tag>``):
    its evaluation anchor's name as one TensorBoard tag (``terralore_v0/ppo`` -> ``terralore_v0_ppo``, a model
    path -> its file stem), so the two curves of one opponent carry one name."""
    from .evaluate import anchor_key, tensorboard_tag

    return tensorboard_tag(anchor_key(spec))[len("vs_"):]


def check_opponents(env_name: str, opponents: dict[str, float], where: str = "selfplay.opponents") -> None:
    """The fixed opponents' names: none stands for an anchor that has its own weight, and no two share a tag
    (the second one's win rates would be logged as the first one's)."""
    from .evaluate import anchor_keys

    anchor_keys(list(opponents), where)
    for spec in opponents:
        tag = opponent_tag(spec)
        if spec in (RANDOM, HEURISTIC, f"{env_name}/{RANDOM}", f"{env_name}/{HEURISTIC}"):
            raise ConfigError(f"{where} names {spec!r}, which has its own share: set "
                              f"selfplay.{spec.rsplit('/', 1)[-1]}_weight instead")
        if tag in (RANDOM, HEURISTIC, SNAPSHOT):
            raise ConfigError(f"{where}: {spec!r} would be logged as selfplay/win_rate_vs_{tag}, the pool's own "
                              f"{tag} anchor's name; give the model file another stem (export it again with --out "
                              f"<dir>/<new name>, or copy its .onnx, .npz and .json under a new name)")


class OpponentPool:
    """Callable ``rng -> Policy``; every returned policy carries ``pool_tag`` (random/heuristic/snapshot)."""

    def __init__(self, env_name: str, random_weight: float = 0.1, heuristic_weight: float = 0.2,
                 window: int = 5, play_latest_ratio: float = 0.5, game_config: dict | None = None,
                 opponents: dict[str, float] | None = None):
        self.env_name = env_name
        self.game_config = game_config  # the rules the heuristic plays under (Earth: its catalogue)
        self.window = window
        self.play_latest_ratio = play_latest_ratio
        self.snapshots: deque[MLPPolicy] = deque(maxlen=window)
        self.random = _tagged(RandomPolicy(), RANDOM, "random")
        self.heuristic = None
        #: the fixed opponents loaded so far, by tag; a phase that drops one keeps it loaded and never draws it
        self.fixed: dict[str, Any] = {}  # Any: any policy, carrying pool_tag and pool_spec set here
        self.opponents: dict[str, float] = {}
        self.set_weights(random_weight, heuristic_weight, opponents or {})

    def set_weights(self, random_weight: float, heuristic_weight: float,
                    opponents: dict[str, float] | None = None) -> None:
        """Change the anchors' shares (a recipe phase); the heuristic and each fixed opponent are loaded when
        they first get a share. ``opponents`` None keeps the fixed opponents' shares as they are."""
        opponents = self.opponents if opponents is None else dict(opponents)
        if random_weight + heuristic_weight + sum(opponents.values()) > 1 + 1e-9:
            raise ValueError("random_weight + heuristic_weight + the opponents' shares must be <= 1")
        if heuristic_weight > 0 and self.heuristic is None:
            try:
                bot = load_policy(f"{self.env_name}/heuristic", game_config=self.game_config)
            except Exception as exc:
                raise ConfigError(f"selfplay.heuristic_weight is {heuristic_weight} but {self.env_name}/heuristic "
                                  f"cannot be loaded ({exc}); set selfplay.heuristic_weight: 0") from exc
            self.heuristic = _tagged(bot, HEURISTIC, "heuristic")
        self.load_opponents(opponents)
        self.random_weight, self.heuristic_weight = random_weight, heuristic_weight
        self.opponents = {spec: share for spec, share in opponents.items() if share > 0}
        # by tag, worked out once here rather than at every draw (one per opponent seat and episode)
        self._fixed_shares = {opponent_tag(spec): share for spec, share in self.opponents.items()}

    def load_opponents(self, specs) -> None:
        """Load the fixed opponents ``specs`` not loaded yet: all a run's phases name, before it starts, so a
        name that does not load ends the run at its start, not hours in."""
        from .evaluate import resolve_recipe_policy

        # by name, not tag: another model under a loaded one's tag (a later phase's other ppo.onnx) is refused
        # by the check below, not dropped as loaded and played by the loaded one
        loaded = self.fixed_specs()
        specs = [spec for spec in dict.fromkeys(specs) if spec not in loaded]
        if specs:
            check_opponents(self.env_name, dict.fromkeys([*loaded, *specs], 0))
        for spec in specs:
            _, bot = resolve_recipe_policy("selfplay.opponents", spec, self.env_name, self.game_config)
            bot = _tagged(bot, opponent_tag(spec), opponent_tag(spec))
            bot.pool_spec = spec
            self.fixed[opponent_tag(spec)] = bot

    def fixed_specs(self) -> list[str]:
        return [bot.pool_spec for bot in self.fixed.values()]

    # ------------------------------------------------------------------ sampling
    def probabilities(self) -> dict[str, float]:
        """Share of opponent draws per kind (a fixed opponent: per tag), given the snapshots present now."""
        shares = {RANDOM: self.random_weight, HEURISTIC: self.heuristic_weight,
                  **self._fixed_shares}
        if not self.snapshots:
            total = sum(shares.values())
            if total == 0:
                return {RANDOM: 1.0, HEURISTIC: 0.0, SNAPSHOT: 0.0}
            return {**{tag: share / total for tag, share in shares.items()}, SNAPSHOT: 0.0}
        return {**shares, SNAPSHOT: max(0.0, 1.0 - sum(shares.values()))}

    def __call__(self, rng: np.random.Generator):
        p = self.probabilities()
        u = rng.random()
        if u < p[RANDOM]:
            return self.random
        if u < p[RANDOM] + p[HEURISTIC]:
            return self.heuristic
        u -= p[RANDOM] + p[HEURISTIC]
        for tag, share in p.items():
            if tag not in (RANDOM, HEURISTIC, SNAPSHOT):
                if u < share:
                    return self.fixed[tag]
                u -= share
        if not self.snapshots:  # the shares' rounding left a sliver for snapshots there are none of
            return self.random
        if len(self.snapshots) == 1 or rng.random() < self.play_latest_ratio:
            return self.snapshots[-1]
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    # ------------------------------------------------------------------ snapshots
    def add_snapshot(self, weights, activation: str, steps: int, deterministic: bool = False) -> MLPPolicy:
        snap = MLPPolicy(weights, activation, deterministic=deterministic, name=f"snapshot@{steps}")
        _tagged(snap, SNAPSHOT, snap.name)
        snap.steps = steps  # type: ignore[attr-defined]  # set at runtime: the step a snapshot was frozen at
        self.snapshots.append(snap)
        return snap

    @property
    def size(self) -> int:
        """Opponents one can draw: the anchors and fixed opponents with a positive share plus the snapshots."""
        return int(self.random_weight > 0) + int(self.heuristic_weight > 0) + len(self.opponents) + len(self.snapshots)

    # ------------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        return {"snapshots": [{"steps": s.steps,  # type: ignore[attr-defined]  # add_snapshot sets it at runtime
                               "activation": s.activation, "deterministic": s.deterministic,
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
        # cast: maxlen is None only for a deque made without one, and __init__ gives it one
        if len(self.results) < min(20, cast(int, self.results.maxlen)):
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
