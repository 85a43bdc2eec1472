"""benchmarks.paired_losses: every deal from both seats, and the both-seats loss rate against independence."""

from __future__ import annotations

import pytest

from benchmarks.paired_losses import paired_losses
from tabletop_envs.core.policy import RandomPolicy


def test_in_a_mirror_match_each_deal_is_lost_from_exactly_one_seat(toy, play_highest):
    # The same deterministic policy on both sides: the cards alone decide, so whichever seat the
    # deal favours wins both times and no deal is lost from both seats.
    mirror = paired_losses(toy, play_highest, play_highest, deals=100)
    assert mirror["both_seats_lost"] == 0.0
    assert 0.3 < mirror["loss_rate_seat_0"] < 0.7 and mirror["if_independent"] > 0.05


def test_against_random_the_measure_separates_deal_luck_from_play(toy, play_highest):
    # In the toy game the deal matters a lot: losing one seat of a deal almost guarantees winning
    # the other, so both-seat losses fall far below what independent losses would give.
    result = paired_losses(toy, play_highest, RandomPolicy(), deals=200)
    assert result["loss_rate_seat_0"] > 0.1 and result["loss_rate_seat_1"] > 0.1
    assert result["both_seats_lost"] < 0.5 * result["if_independent"]


def test_paired_losses_need_two_players():
    with pytest.raises(ValueError, match="two-player"):
        paired_losses("earth_v0", RandomPolicy(), RandomPolicy(), deals=1, game_kwargs={"num_players": 3})


def test_neither_seating_hands_the_policies_the_generator_that_dealt_the_cards(toy):
    # default_rng([deal, 0]) is default_rng(deal), the engine's deal stream: SeedSequence drops trailing zeros
    from generator_spy import same_stream

    class Spy(RandomPolicy):
        def __init__(self):
            self.streams = []

        def act(self, obs, mask, rng):
            self.streams.append(rng.bit_generator.state)
            return super().act(obs, mask, rng)

    spy = Spy()
    paired_losses(toy, spy, RandomPolicy(), deals=3, seed=5)
    assert spy.streams
    for deal in (5, 6, 7):
        assert not any(same_stream(state, deal) for state in spy.streams), f"deal {deal}'s generator handed out"


def test_neither_seating_hands_the_policies_a_generator_that_tells_the_deals_seed(toy):
    # SeedSequence(deal).spawn(2) kept the deal as its entropy, which a policy can read
    from generator_spy import GeneratorSpy, tells_the_seed

    for seat_of_spy in (0, 1):
        spy = GeneratorSpy()
        policies = (spy, RandomPolicy()) if seat_of_spy == 0 else (RandomPolicy(), spy)
        paired_losses(toy, *policies, deals=1, seed=918_273_645_501)
        assert spy.first_state is not None and not tells_the_seed(spy, 918_273_645_501)


def test_each_seating_and_each_policy_of_a_deal_draws_from_a_stream_of_its_own(toy, monkeypatch):
    # "a random opponent draws afresh in each seating": the same stream in both seatings would replay its
    # draws from the other seat, and one stream for both policies would hand each the other's numbers
    import benchmarks.paired_losses as pl

    handed, real = [], pl.play_game
    monkeypatch.setattr(pl, "play_game", lambda game, policies, deal, rng=None: handed.append(
        [g.bit_generator.state["state"]["inc"] for g in rng]) or real(game, policies, deal, rng=rng))
    paired_losses(toy, RandomPolicy(), RandomPolicy(), deals=2, seed=3)
    streams = [inc for game in handed for inc in game]
    assert len(handed) == 4 and len(set(streams)) == len(streams) == 8


def test_a_policy_that_never_loses_leaves_no_share_of_losses_to_the_deals(monkeypatch):
    import numpy as np

    import benchmarks.paired_losses as pl

    a, b = object(), object()
    monkeypatch.setattr(pl, "play_game", lambda game, policies, deal, rng=None: (
        np.array([1.0, -1.0]) if policies[0] is a else np.array([-1.0, 1.0]), 10))
    out = pl.paired_losses("terralore_v0", a, b, deals=4)
    assert out["loss_rate_seat_0"] == out["loss_rate_seat_1"] == out["both_seats_lost"] == 0.0
    assert out["deal_share_of_losses_at_most"] == 0.0


def test_paired_losses_command_line_plays_the_seed_given_against_the_envs_random_bot(monkeypatch):
    import benchmarks.paired_losses as pl
    from tabletop_envs.core.policy import policy_name

    seen = {}
    monkeypatch.setattr(pl, "paired_losses", lambda env, policy, opponent, deals, seed=0: seen.update(
        opponent=policy_name(opponent), deals=deals, seed=seed) or {})
    pl.main(["--env", "terralore_v0", "--policy", "terralore_v0/heuristic", "--deals", "5", "--seed", "40"])
    assert seen == {"opponent": "random", "deals": 5, "seed": 40}
