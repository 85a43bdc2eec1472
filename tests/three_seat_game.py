"""A three-seat game for the arena's counting of shared results: each seat in turn picks 0, 1 or 2 and
scores what it picked, so the policies alone decide who shares the best return."""

from __future__ import annotations

import numpy as np

from tabletop_envs.core import TERMINAL, ActionLayout, Game, ObservationLayout, State, TabletopAECEnv, new_rng


class PickGame(Game):
    env_name = "picks_v0"
    player_counts = (3,)

    def __init__(self):
        self.num_players = 3
        self.action_layout = ActionLayout([("pick", 3, "score 0, 1 or 2", None)])
        self.observation_layout = ObservationLayout([("seat", 3, 0, 1, "own seat, one-hot")])

    def new_initial_state(self, seed=None):
        return PickState(self, seed)


class PickState(State):
    def __init__(self, game, seed):
        self.game, self.rng, self.picks, self._mask_cache = game, new_rng(seed), [], None

    @property
    def turn(self):
        return len(self.picks)

    def current_player(self):
        return TERMINAL if self.is_terminal() else len(self.picks)

    def is_terminal(self):
        return len(self.picks) == 3

    def _legal_action_mask(self):
        return np.ones(3, np.int8)

    def _apply_action(self, action):
        self.picks.append(int(action))

    def returns(self):
        return np.array(self.picks, float) if self.is_terminal() else np.zeros(3)

    def observation(self, player):
        obs = self.game.observation_layout.new()
        obs[player] = 1
        return obs


class raw_env(TabletopAECEnv):
    game_class = PickGame
    metadata = {"render_modes": ["ansi"], "name": "picks_v0", "is_parallelizable": False, "render_fps": 2}


def register(monkeypatch) -> None:
    """Register this game as ``picks_v0`` for one test, so the arena, the pool and the faces find it by name."""
    from tabletop_envs.core.registry import ENVS, EnvSpec

    monkeypatch.setitem(ENVS, "picks_v0", EnvSpec("picks_v0", "three_seat_game", "test/picks-v0", "test/Picks-v0",
                                                  (3,), "", "picks"))
