"""A tiny game with neither hidden information nor chance, to test that the core takes such games.

Two players take 1, 2 or 3 stones in turn from a pile of 15; who takes the last stone wins. Seat 0
always starts.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.core import TERMINAL, ActionLayout, Game, ObservationLayout, State, TabletopAECEnv, new_rng
from tabletop_envs.core.engine import check_seat, invariant

STONES = 15


class PileGame(Game):
    env_name = "pile_v0"
    default_max_turns = 50
    decisions = ("take",)
    hidden_information = False
    chance = False

    def __init__(self):
        self.num_players = 2
        self.action_layout = ActionLayout([("take", 3, "take i + 1 stones", ["take 1", "take 2", "take 3"])])
        self.observation_layout = ObservationLayout([("pile", 1, 0, 1, "stones left / 15"),
                                                     ("seat", 2, 0, 1, "own seat, one-hot")])

    def config(self):
        return {}

    def new_initial_state(self, seed=None):
        return PileState(self, seed)


class PileState(State):
    def __init__(self, game, seed):
        self.game = game
        self.rng = new_rng(seed)  # drawn from by nothing: the game has no chance
        self.pile = STONES
        self.player = 0
        self.turn_no = 0
        self._mask_cache = None

    @property
    def turn(self):
        return self.turn_no

    def current_player(self):
        return TERMINAL if self.is_terminal() else self.player

    def is_terminal(self):
        return self.pile == 0

    def _legal_action_mask(self):
        mask = np.zeros(3, np.int8)
        mask[:min(3, self.pile)] = 1
        return mask

    def _apply_action(self, action):
        self.pile -= action + 1
        self.player = 1 - self.player
        self.turn_no += 1

    def returns(self):
        if not self.is_terminal():
            return np.zeros(2)
        winner = 1 - self.player  # the seat that took the last stone
        return np.array([1.0 if p == winner else -1.0 for p in range(2)])

    def observation(self, player):
        player = check_seat(self.game, player)
        obs = np.array([self.pile / STONES, 0, 0], np.float32)
        obs[1 + player] = 1
        return obs

    def resample_hidden(self, player, rng):
        check_seat(self.game, player)
        other = self.clone()
        other.rng = new_rng(int(rng.integers(2**63 - 1)))
        return other

    def check_invariants(self):
        invariant(0 <= self.pile <= STONES, f"pile {self.pile}")

    def render_text(self, player=None):
        check_seat(self.game, player, spectator=True)
        return f"pile {self.pile}, seat {self.player} to take"

    def decision(self):
        return "" if self.is_terminal() else "take"


class raw_env(TabletopAECEnv):
    game_class = PileGame
    metadata = {"render_modes": ["ansi"], "name": "pile_v0", "is_parallelizable": False, "render_fps": 2}


def env(**kwargs):
    return raw_env(**kwargs)


PileGame.state_class = PileState
