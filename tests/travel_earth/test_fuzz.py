"""Random legal play under every rule option: invariants hold at every decision and games end."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.core import conformance
from tabletop_envs.core.conformance import random_playout
from tabletop_envs.core.engine import check_json_roundtrip
from tabletop_envs.travel_earth.engine import TravelEarthGame

OPTIONS = [
    {},
    {"deck_format": "casual"},
    {"deck_format": "casual", "decks": ["starter", "deep_sea"], "hand_size_table": [1]},
    {"deck_format": "championship", "decks": ["expedition", "wild_mix"], "hand_size_table": [4, 3, 2, 1, 0]},
    {"stalemate_turns": 3, "first_player": 1},
    {"resting_defender_win": "both_discarded"},
]


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_random_games_keep_invariants_under_every_rule_option(options):
    game = TravelEarthGame(**options)
    rng = np.random.default_rng(0)
    for seed in range(15):
        state = game.new_initial_state(seed)
        random_playout(state, rng, visit=lambda s: s.check_invariants())
        state.check_invariants()
        assert state.is_terminal() and abs(state.returns().sum()) < 1e-9
    assert check_json_roundtrip(state) == state


@pytest.mark.parametrize("options", OPTIONS[2:], ids=[str(o) for o in OPTIONS[2:]])
def test_no_leak_and_mask_equals_rules_under_every_rule_option(options):
    # the conformance harness ran these under the defaults and the casual format only
    conformance.check_no_leak("travel_earth_v0", options, num_states=15)
    conformance.check_mask_equals_rules("travel_earth_v0", options, num_states=5)


def test_a_zero_draw_table_still_ends_by_stalemate_or_a_win():
    game = TravelEarthGame(hand_size_table=[0], stalemate_turns=5)
    rng = np.random.default_rng(1)
    for seed in range(10):
        state = game.new_initial_state(seed)
        random_playout(state, rng)
        assert state.is_terminal()
