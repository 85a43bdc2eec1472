"""Single-agent Gymnasium face: one learner against opponents that move inside the env.

This is the self-play reduction that works with SB3 / sb3-contrib MaskablePPO:
- the learner's seat is drawn at random each episode;
- opponents act inside ``step`` until the learner must decide again or the game ends;
- the reward returned is everything the learner accumulated since its last move, so a loss caused
  by an opponent's final move reaches the learner's last transition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium
import numpy as np

from .aec import TabletopAECEnv
from .policy import Policy, RandomPolicy, load_policy

OpponentSpec = Policy | str | Callable[[np.random.Generator], Policy] | Sequence


class SingleAgentEnv(gymnasium.Env):
    """One learner against opponents.

    Args:
        env: an env name (``"terralore_v0"``) or a :class:`TabletopAECEnv` instance.
        opponent: a policy, a policy id/path, a list with one per other seat, or a callable
            ``rng -> policy`` drawn anew each episode (an opponent pool). Default: random.
        learner_seat: fixed seat, or ``None`` to draw it every episode.
        **env_kwargs: passed to the AEC env (rule options, ``max_turns``, ``illegal_action`` …).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, env: str | TabletopAECEnv = "terralore_v0", opponent: OpponentSpec | None = None,
                 learner_seat: int | None = None, render_mode: str | None = None, **env_kwargs):
        if isinstance(env, str):
            from .registry import get_spec

            env = get_spec(env).load_module().raw_env(render_mode=render_mode, **env_kwargs)
        self.aec = env
        self.game = env.game
        self.render_mode = render_mode
        self.observation_space = self.game.observation_layout.space()
        self.action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        self.learner_seat_fixed = learner_seat
        self.set_opponent(opponent)
        self.learner = self.aec.possible_agents[0]
        self._opp_rng = np.random.default_rng()
        self.episode_opponents: list[Policy] = []

    # SubprocVecEnv reaches these through env_method.
    def set_opponent(self, opponent: OpponentSpec | None) -> None:
        if opponent is None:
            opponent = RandomPolicy()
        if isinstance(opponent, (str,)) or hasattr(opponent, "act"):
            opponent = load_policy(opponent)
        elif isinstance(opponent, Sequence):
            opponent = [load_policy(o) for o in opponent]
            if len(opponent) != self.game.num_players - 1:
                raise ValueError(f"{len(opponent)} opponents given for {self.game.num_players - 1} other seats")
        elif not callable(opponent):
            raise TypeError(f"opponent must be a policy, id, list or callable(rng)->policy, got {opponent!r}")
        self.opponent = opponent

    def _draw_opponents(self) -> list[Policy]:
        n_other = self.game.num_players - 1
        if isinstance(self.opponent, list):
            return list(self.opponent)
        if hasattr(self.opponent, "act"):
            return [self.opponent] * n_other
        return [self.opponent(self._opp_rng) for _ in range(n_other)]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._opp_rng = np.random.default_rng(seed + 1)
        # A game can end before the learner's first decision (e.g. a first-turn win in Travel Earth);
        # Gymnasium's reset cannot return a finished episode, so such a deal is replaced by a new one.
        for _ in range(1000):
            self.aec.reset(seed=int(self.np_random.integers(2**31 - 1)))
            n = self.game.num_players
            seat = self.learner_seat_fixed
            if seat is None:
                seat = int(self.np_random.integers(n))
            self.learner = self.aec.possible_agents[seat]
            opponents = self._draw_opponents()
            self.seat_policy = {}
            for agent in self.aec.possible_agents:
                if agent != self.learner:
                    self.seat_policy[agent] = opponents.pop(0)
            self.episode_opponents = list(self.seat_policy.values())
            self._reward = 0.0
            self._play_opponents()
            if not (self.aec.terminations[self.learner] or self.aec.truncations[self.learner]):
                break
        else:
            raise RuntimeError("1000 deals in a row ended before the learner's first decision; check the opponents")
        obs = self.aec.state.observation(seat)
        return obs, {"learner_seat": seat, "action_mask": self.action_masks()}

    def _play_opponents(self) -> None:
        """Let opponents move until the learner decides or the game is over."""
        aec = self.aec
        state = aec.state
        while not (aec.terminations[self.learner] or aec.truncations[self.learner]):
            agent = aec.agent_selection
            if agent == self.learner:
                return
            player = aec.agent_name_mapping[agent]
            action = self.seat_policy[agent].act(state.observation(player), state.legal_action_mask(), self._opp_rng)
            aec.step(action)
            self._reward += aec.rewards[self.learner]

    def step(self, action):
        aec = self.aec
        self._reward = 0.0
        aec.step(int(action))
        self._reward += aec.rewards[self.learner]
        self._play_opponents()
        terminated = aec.terminations[self.learner]
        truncated = aec.truncations[self.learner] and not terminated
        seat = aec.agent_name_mapping[self.learner]
        obs = aec.state.observation(seat)
        info = {"action_mask": self.action_masks()}
        if terminated or truncated:
            info["returns"] = aec.state.returns().tolist() if terminated else [0.0] * self.game.num_players
            info["learner_seat"] = seat
        return obs, float(self._reward), bool(terminated), bool(truncated), info

    def action_masks(self) -> np.ndarray:
        aec = self.aec
        if aec.terminations[self.learner] or aec.truncations[self.learner] or aec.agent_selection != self.learner:
            # Nothing to decide; an all-True mask keeps batched policies finite (as Pgx does).
            return np.ones(self.game.num_actions, bool)
        return aec.state.legal_action_mask().astype(bool)

    def render(self):
        if self.render_mode in ("rgb_array", "human"):  # the table picture (for video wrappers)
            return self.aec.render()
        return self.aec.state.render_text(self.aec.agent_name_mapping[self.learner])

    def close(self):
        self.aec.close()
