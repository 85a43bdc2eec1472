"""A tiny hidden-information game used only to test the shared core on its own.

Two players each hold 3 cards from a shuffled 0..9 deck; on a turn a player plays a hand card
face up or draws (while the deck lasts). After 6 turns the higher total of played cards wins.
"""

from __future__ import annotations

import numpy as np

from tabletop_envs.core import TERMINAL, ActionLayout, Game, ObservationLayout, State, TabletopAECEnv, new_rng
from tabletop_envs.core.engine import check_seat, invariant

N_CARDS = 10


class ToyGame(Game):
    env_name = "toy_v0"
    default_max_turns = 50

    def __init__(self, turns: int = 6):
        self.num_players = 2
        self.turns = turns
        self.action_layout = ActionLayout([
            ("play", N_CARDS, "play card i from hand", [f"play {i}" for i in range(N_CARDS)]),
            ("draw", 1, "draw a card", ["draw"]),
        ])
        self.observation_layout = ObservationLayout([
            ("hand", N_CARDS, 0, 1, "own hand"),
            ("played", (2, N_CARDS), 0, 1, "cards played: own row first"),
            ("deck_size", 1, 0, 1, "deck size / 10"),
            ("turn", 1, 0, 1, "turn / turns"),
        ])

    def config(self):
        return {"turns": self.turns}

    def new_initial_state(self, seed=None):
        return ToyState(self, seed)


class ToyState(State):
    def __init__(self, game, seed):
        self.game = game
        self.rng = new_rng(seed)
        deck = self.rng.permutation(N_CARDS).tolist()
        self.hands = [deck[:3], deck[3:6]]
        self.deck = deck[6:]
        self.played = [[], []]
        self.player = 0
        self.turn_no = 0
        self._mask_cache = None

    @property
    def turn(self):
        return self.turn_no

    def current_player(self):
        return TERMINAL if self.is_terminal() else self.player

    def is_terminal(self):
        return self.turn_no >= self.game.turns

    def _legal_action_mask(self):
        mask = np.zeros(self.game.num_actions, np.int8)
        mask[self.hands[self.player]] = 1
        if self.deck:
            mask[N_CARDS] = 1
        return mask

    def _apply_action(self, action):
        if action == N_CARDS:
            self.hands[self.player].append(self.deck.pop())
        else:
            self.hands[self.player].remove(action)
            self.played[self.player].append(action)
        self.player = 1 - self.player
        self.turn_no += 1

    def returns(self):
        if not self.is_terminal():
            return np.zeros(2)
        a, b = sum(self.played[0]), sum(self.played[1])
        return np.array([np.sign(a - b), np.sign(b - a)], float)

    def observation(self, player):
        player = check_seat(self.game, player)
        lay = self.game.observation_layout
        obs = lay.new()
        obs[self.hands[player]] = 1
        played = lay.view(obs, "played")
        played[0, self.played[player]] = 1
        played[1, self.played[1 - player]] = 1
        obs[lay.slices["deck_size"]] = len(self.deck) / N_CARDS
        obs[lay.slices["turn"]] = min(self.turn_no / self.game.turns, 1)
        return obs

    def resample_hidden(self, player, rng):
        player = check_seat(self.game, player)
        other = self.clone()
        hidden = other.hands[1 - player] + other.deck
        rng.shuffle(hidden)
        k = len(other.hands[1 - player])
        other.hands[1 - player] = hidden[:k]
        other.deck = hidden[k:]
        other.rng = new_rng(int(rng.integers(2**63 - 1)))  # future chance is hidden too
        other._mask_cache = None
        return other

    def check_invariants(self):
        cards = sorted(self.hands[0] + self.hands[1] + self.deck + self.played[0] + self.played[1])
        invariant(cards == list(range(N_CARDS)), f"the cards are not conserved: {cards}")

    def bare_assert_invariants(self):
        """Invariants checked as a game outside the library might (this module is no test module, so
        pytest leaves the assert as Python writes it)."""
        assert self.turn_no < 0

    def render_text(self, player=None):
        check_seat(self.game, player, spectator=True)
        return f"turn {self.turn_no} played {self.played} deck {len(self.deck)}"


class raw_env(TabletopAECEnv):
    game_class = ToyGame
    metadata = {"render_modes": ["ansi"], "name": "toy_v0", "is_parallelizable": False, "render_fps": 2}


def env(**kwargs):
    return raw_env(**kwargs)


ToyGame.state_class = ToyState
