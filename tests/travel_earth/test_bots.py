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


def test_heuristic_defends_with_an_animal_a_defensive_change_can_rescue_when_its_reservoir_can_spare_a_card():
    from .scenario import act, scenario

    # on Weight both lose to the Lion; the Cheetah wins on Top Speed, still unused, so a defensive change
    # can save it. With two Reservoir cards (Empty ones pay too) the bot defends with it; with one it
    # gives up its least valuable Animal, the gazelle, which wins on no statistic
    for reservoir, expected in ((["Koala", "Emu"], "defend with Ready Cheetah TE-001"),
                                (["Koala"], "defend with Ready Thomson's gazelle TE-013")):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Sea otter"]),
                     p1=dict(ready=["Cheetah", "Thomson's gazelle"], reservoir=reservoir), empty=(0, len(reservoir)))
        act(s, "declare", "Lion")
        act(s, "statistic", 1)  # Weight
        assert _bot_move(s) == expected, reservoir


def test_heuristic_defends_with_a_ready_animal_that_ties_rather_than_give_up_its_least_valuable_one():
    from .scenario import act, scenario

    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Cheetah", "Thomson's gazelle"]))
    act(s, "declare", "Lion")
    act(s, "statistic", 4)  # Offspring: the Cheetah ties the Lion, the gazelle loses
    assert _bot_move(s) == "defend with Ready Cheetah TE-001"


def test_heuristic_defends_with_an_animal_that_wins_rather_than_a_weaker_one_that_ties():
    from .scenario import act, scenario

    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Cheetah", "Common ostrich"]))
    act(s, "declare", "Lion")
    act(s, "statistic", 4)  # Offspring: the ostrich wins, the Cheetah (the less valuable card) only ties
    assert _bot_move(s) == "defend with Ready Common ostrich TE-048"


def test_heuristic_declares_an_animal_that_beats_most_of_the_opposing_field_and_locks_when_none_does():
    from .scenario import scenario

    # the Lion beats the sea otter and the elephant on Top Speed (2 of 3, over the 60 % threshold); against
    # a Blue whale and a Cheetah it beats one of the two on every statistic
    for field, expected in ((["Sea otter", "African bush elephant", "Cheetah"], "declare Lion TE-003"),
                            (["Blue whale", "Cheetah"], "lock Challenger group")):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=field))
        assert _bot_move(s) == expected, field


def test_heuristic_declares_an_animal_that_beats_exactly_60_percent_of_the_opposing_field_its_rank_tipping_it_over():
    """The share beaten plus a hundredth of the rank must pass 0.6 (the docstring): the Lion beats 3 of these
    5 on every statistic, 60 % plus its rank (an audit found the docstring saying "more than 60 %"); 1 of 2
    locks (the test above)."""
    from .scenario import scenario

    field = ["African bush elephant", "Cheetah", "Blue whale", "Emu", "Springbok"]
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=field))
    assert _bot_move(s) == "declare Lion TE-003"


# ---------------------------------------------------------------- gaps left by mutation testing (s49 bot audit)


def test_heuristic_challenges_an_empty_field_with_any_animal_as_last_resort_however_low_its_ranks():
    from .scenario import scenario

    # the Leopard's best rank is under 0.6, but an empty field leaves nothing to lose to: Last Resort
    s = scenario(p0=dict(ready=["Leopard"], reservoir=["Koala"]), p1=dict(reservoir=["Emu"]))
    assert _bot_move(s) == "declare Leopard TE-005"


def test_heuristic_picks_the_next_statistic_after_a_tie_against_the_defender_not_the_whole_field():
    from .scenario import act, scenario, stat

    # the sea lion ties the zebra on Offspring; against the known Defender only Development Time wins
    s = scenario(p0=dict(ready=["California sea lion"], reservoir=["Koala"]),
                 p1=dict(ready=["Plains zebra", "Lion"], reservoir=["Emu"]))
    act(s, "declare", "California sea lion")
    act(s, "statistic", stat("Offspring"))
    act(s, "defend_ready", "Plains zebra")
    assert s.phase == "statistic"
    assert _bot_move(s) == "challenge on Development Time"


def test_heuristic_counts_a_resting_defenders_tie_as_a_loss_and_gives_up_its_least_valuable_animal():
    from .scenario import act, scenario, stat

    # on Max Lifespan the Resting penguin would tie the bear (a Resting tie is its loss, RULES.md choice 6) and
    # the Ready hummingbird loses; with no Reservoir to pay for a change the less valuable hummingbird goes
    s = scenario(p0=dict(ready=["Brown bear"], reservoir=["Koala"]),
                 p1=dict(ready=["Anna's hummingbird"], resting=["Emperor penguin"]))
    act(s, "declare", "Brown bear")
    act(s, "statistic", stat("Max Lifespan"))
    assert _bot_move(s) == "defend with Ready Anna's hummingbird TE-047"


def test_heuristic_defends_with_a_resting_armoured_shell_winner_under_both_discarded_as_it_stays():
    from .scenario import act, scenario, stat

    # under resting_defender_win="both_discarded" a Resting winner goes with the Challenger, except an
    # Armoured Shell (RULES.md choice 6): the tortoise stays, and is the less valuable of the two winners
    s = scenario(p0=dict(ready=["Komodo dragon"], reservoir=["Koala"]),
                 p1=dict(ready=["Lion"], resting=["Galápagos giant tortoise"]), resting_defender_win="both_discarded")
    act(s, "declare", "Komodo dragon")
    act(s, "statistic", stat("Weight"))
    bot = load_policy("travel_earth_v0/heuristic", game_config=s.game.config())
    action = bot.act(s.observation(1), s.legal_action_mask(), np.random.default_rng(0))
    assert s.action_to_string(action) == "defend with Resting Galápagos giant tortoise TE-054"


def test_heuristic_pays_for_a_defensive_change_to_a_winning_statistic_only_when_its_reservoir_can_spare_a_card():
    from .scenario import act, scenario, stat

    # the Tiger loses to the Lion on Weight and wins on Development Time: with two Reservoir cards the bot pays one
    # for the change; with its last card it accepts the loss and keeps the card
    for reservoir, expected in ((["Giraffe", "Emu"], "change to Development Time"), (["Giraffe"], "accept")):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=reservoir))
        act(s, "declare", "Lion")
        act(s, "statistic", stat("Weight"))
        act(s, "defend_ready", "Tiger")
        assert s.phase == "change"
        assert _bot_move(s) == expected, reservoir


def test_heuristic_plays_every_animal_in_hand_strongest_first():
    from .scenario import act, scenario

    s = scenario(p0=dict(hand=["Koala", "Lion"]), phase="play")
    assert _bot_move(s) == "play Lion TE-003"
    act(s, "play", "Lion")
    assert _bot_move(s) == "play Koala TE-020"


def test_heuristic_counts_resting_opponents_in_the_field_a_challenger_must_beat():
    from .scenario import scenario

    # the Lion beats the whale alone, but only one of the whale and the Cheetah on any statistic (the declaring
    # test with both Ready): a Resting Cheetah is part of the field a Challenger can meet, so the bot locks
    for resting, expected in (([], "declare Lion TE-003"), (["Cheetah"], "lock Challenger group")):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Blue whale"], resting=resting))
        assert _bot_move(s) == expected, resting


def test_heuristic_pays_for_a_change_with_its_weakest_known_card_or_the_unseen_one_when_every_known_card_is_worth_keeping():
    from .scenario import act, scenario, stat

    # the Giraffe (mean rank under 0.5) goes before the Emu and before the unseen card; the Emu alone is worth
    # keeping when the unseen card can pay
    for reservoir, unseen, expected in ((["Emu", "Giraffe"], [], "discard Reservoir Giraffe TE-006"),
                                        (["Emu", "Giraffe"], ["Walrus"], "discard Reservoir Giraffe TE-006"),
                                        (["Emu"], ["Walrus"], "discard the unseen Reservoir card")):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                     p1=dict(ready=["Tiger"], reservoir=reservoir, unseen=unseen))
        act(s, "declare", "Lion")
        act(s, "statistic", stat("Weight"))
        act(s, "defend_ready", "Tiger")
        act(s, "change_statistic", stat("Development Time"))
        assert s.phase == "pay"
        assert _bot_move(s) == expected, (reservoir, unseen)


# ---------------------------------------------------------------- gaps left by mutation testing (bot decision audit)


def test_heuristic_adds_its_weakest_card_to_the_reservoir_below_4_cards_or_with_more_than_3_in_hand():
    from .scenario import scenario

    two, four = ["Lion", "Koala"], ["Lion", "Koala", "Tiger", "Emu"]
    for reservoir, hand, expected in ((["Walrus"] * 3, two, "add Koala TE-020 to Reservoir"),
                                      (["Walrus"] * 4, two, "skip Reservoir"),
                                      (["Walrus"] * 4, four, "add Koala TE-020 to Reservoir")):
        s = scenario(p0=dict(hand=hand, reservoir=reservoir), phase="add")
        assert _bot_move(s) == expected, (len(reservoir), len(hand))


def test_heuristic_declares_the_animal_whose_best_statistic_beats_most_of_the_opposing_field():
    from .scenario import scenario

    # both beat the whole field on some statistic, over the threshold: the Lion's rank on its best one (Top Speed)
    # is higher than the Tiger's on its own (Weight), so the Lion is the one declared
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala"]),
                 p1=dict(ready=["Sea otter", "Thomson's gazelle", "Koala"]))
    assert _bot_move(s) == "declare Lion TE-003"


def test_heuristic_defends_with_a_ready_animal_that_ties_rather_than_one_a_paid_change_could_rescue():
    from .scenario import act, scenario, stat

    # on Offspring the Cheetah ties the Lion; the Koala loses but would win on Development Time for a Reservoir
    # card: a tie costs nothing, and the Cheetah defends
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Sea otter"]),
                 p1=dict(ready=["Cheetah", "Koala"], reservoir=["Emu", "Walrus"]))
    act(s, "declare", "Lion")
    act(s, "statistic", stat("Offspring"))
    assert _bot_move(s) == "defend with Ready Cheetah TE-001"


def test_heuristic_challenges_an_empty_field_on_its_challengers_best_ranked_statistic():
    from .scenario import act, scenario

    # Last Resort meets unknown cards: the Koala's best rank is Development Time (Top Speed comes first)
    s = scenario(p0=dict(ready=["Koala"], reservoir=["Emu"]), p1=dict(reservoir=["Walrus"]))
    act(s, "declare", "Koala")
    assert _bot_move(s) == "challenge on Development Time"


def test_heuristic_picks_the_statistic_that_beats_resting_opponents_too_before_a_defender_is_chosen():
    from .scenario import act, scenario

    # the Lion beats the Koala on Top Speed but the Resting Springbok is faster: on Weight it beats both
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Emu"]), p1=dict(ready=["Koala"], resting=["Springbok"]))
    act(s, "declare", "Lion")
    assert _bot_move(s) == "challenge on Weight"
