"""The heuristic bot: registered, legal, observation-only, and clearly stronger than random play."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import load_policy
from tabletop_envs.core.arena import play_match
from tabletop_envs.terralore.bots import TerraloreHeuristic
from tabletop_envs.terralore.engine import TerraloreGame


def test_heuristic_is_registered_under_the_env_name():
    assert isinstance(load_policy("terralore_v0/heuristic"), TerraloreHeuristic)


def test_heuristic_plays_only_legal_actions_and_decides_from_the_observation_alone():
    game = TerraloreGame()
    bot = TerraloreHeuristic()
    rng = np.random.default_rng(0)
    for seed in range(20):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_action_mask()
            obs = state.observation(p)
            action = bot.act(obs, mask, np.random.default_rng(1))
            assert mask[action], f"illegal {state.action_to_string(action)}"
            # a re-dealt world that looks the same to p gets the same answer
            other = state.resample_hidden(p, rng)
            assert bot.act(other.observation(p), other.legal_action_mask(), np.random.default_rng(1)) == action
            state.apply_action(action)


def test_heuristic_beats_random_in_at_least_85_percent_of_100_seat_alternated_games():
    res = play_match("terralore_v0", ["terralore_v0/heuristic", "terralore_v0/random"], 100, seed=11)
    assert res.games == 100
    assert res.win_rate(0) >= 0.85, res.summary()


@pytest.mark.slow
def test_heuristic_beats_random_in_at_least_90_percent_of_1000_seat_alternated_games():
    res = play_match("terralore_v0", ["terralore_v0/heuristic", "terralore_v0/random"], 1000, seed=0)
    assert res.win_rate(0) >= 0.90, res.summary()


def test_heuristic_beats_random_with_every_preset_deck():
    from tabletop_envs.terralore.catalogue import default_presets

    for deck in default_presets():
        if deck == "worst_deck_ever":
            continue
        res = play_match("terralore_v0", ["terralore_v0/heuristic", "terralore_v0/random"], 20, seed=3,
                         game_kwargs={"decks": (deck, deck)})
        assert res.win_rate(0) >= 0.7, f"{deck}: {res.summary()}"
