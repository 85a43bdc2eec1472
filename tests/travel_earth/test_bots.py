"""The heuristic opponent: registered by id, reads only observation + mask, beats random play."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.core.arena import play_match
from tabletop_envs.core.policy import load_policy


def test_heuristic_is_registered_and_returns_legal_actions_from_the_observation():
    bot = load_policy("travel_earth_v0/heuristic")
    from tabletop_envs.travel_earth.env import env

    e = env()
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter(3000):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        action = bot.act(obs["observation"], obs["action_mask"], rng)
        assert obs["action_mask"][action] == 1
        e.step(action)


def test_heuristic_beats_random_in_90_percent_of_seat_alternated_games():
    res = play_match("travel_earth_v0", ["travel_earth_v0/heuristic", "travel_earth_v0/random"], 120, seed=1)
    assert res.win_rate(0) >= 0.9, res.summary()


@pytest.mark.slow
def test_heuristic_beats_random_in_90_percent_of_1000_games():
    res = play_match("travel_earth_v0", ["travel_earth_v0/heuristic", "travel_earth_v0/random"], 1000, seed=0)
    assert res.win_rate(0) >= 0.9, res.summary()


def test_heuristic_beats_random_in_the_casual_format():
    res = play_match("travel_earth_v0", ["travel_earth_v0/heuristic", "travel_earth_v0/random"], 60, seed=2,
                     game_kwargs={"deck_format": "casual"})
    assert res.win_rate(0) >= 0.85, res.summary()


def _bot_move(state):
    bot = load_policy("travel_earth_v0/heuristic")
    seat = state.current_player()
    action = bot.act(state.observation(seat), state.legal_action_mask(), np.random.default_rng(0))
    return state.action_to_string(action)


def test_heuristic_defends_with_a_ready_winner_when_a_resting_winner_would_be_discarded_too():
    from .scenario import act, scenario

    for option, expected in (("challenger_discarded", "defend with Resting Giraffe TE-006"),  # the least valuable
                             ("both_discarded", "defend with Ready Blue whale TE-026")):  # one that stays
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Blue whale"], resting=["Giraffe"]),
                     resting_defender_win=option)
        act(s, "declare", "Lion")
        act(s, "statistic", 1)  # Weight: both outweigh the Lion
        bot = load_policy("travel_earth_v0/heuristic", game_config=s.game.config())
        action = bot.act(s.observation(1), s.legal_action_mask(), np.random.default_rng(0))
        assert s.action_to_string(action) == expected


def test_heuristic_picks_a_statistic_that_beats_the_whole_opposing_field():
    from .scenario import act, scenario

    s = scenario(p0=dict(ready=["Cheetah"], reservoir=["Koala"]), p1=dict(ready=["African bush elephant", "Lion"]))
    act(s, "declare", "Cheetah")
    assert _bot_move(s) in ("challenge on Top Speed", "challenge on Development Time")  # beats both there


def test_heuristic_defends_with_an_animal_that_wins():
    from .scenario import act, scenario

    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"], resting=["Blue whale"]))
    act(s, "declare", "Lion")
    act(s, "statistic", 1)  # Weight
    assert _bot_move(s) == "defend with Resting Blue whale TE-026"
