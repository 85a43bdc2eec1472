"""Round-robin evaluation: seat rotation with paired seeds, Wilson intervals, Bradley–Terry Elo."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.evaluate import PairResult, bradley_terry_elo, main, play_pair, seatings, wilson


def test_wilson_interval_contains_the_rate_and_narrows_with_games():
    lo, hi = wilson(60, 100)
    assert lo < 0.6 < hi and hi - lo == pytest.approx(0.19, abs=0.01)
    lo2, hi2 = wilson(600, 1000)
    assert hi2 - lo2 < (hi - lo) / 3
    assert wilson(0, 50)[0] == 0.0 and wilson(50, 50)[1] == 1.0


def test_every_deal_is_played_from_every_seat_rotation():
    assert seatings(2) == [(0, 1), (1, 0)]
    rot = seatings(3)
    assert len(rot) == 6 and {a for a, _ in rot} == {0, 1, 2} and {b for _, b in rot} == {0, 1, 2}


def test_a_pair_against_itself_is_even(toy):
    res = play_pair(toy, "random", "random", 400, seed=1)
    assert res.games == 400 and res.wins + res.draws + res.losses == 400
    assert abs(res.wins - res.losses) < 80


def test_paired_seeds_cancel_the_deal_for_identical_deterministic_policies(toy, play_highest):
    res = play_pair(toy, play_highest, play_highest, 100)
    assert res.wins == res.losses  # each deal from both seats: any seat edge cancels exactly


def test_a_stronger_policy_wins_more(toy, play_highest):
    res = play_pair(toy, play_highest, "random", 400, seed=2)
    lo, _ = wilson(res.wins, res.games)
    assert lo > 0.5


def test_bradley_terry_recovers_order_and_anchors_random_at_zero():
    pairs = [PairResult("a", "random", 1000, 760, 0, 240), PairResult("b", "random", 1000, 500, 0, 500),
             PairResult("a", "b", 1000, 760, 0, 240)]
    elo = bradley_terry_elo(["random", "a", "b"], pairs)
    assert elo["random"] == 0
    assert elo["a"] == pytest.approx(200, abs=10)  # 76 % is +200 Elo
    assert elo["b"] == pytest.approx(0, abs=10)


def test_bradley_terry_stays_finite_for_a_clean_sweep():
    elo = bradley_terry_elo(["random", "a"], [PairResult("a", "random", 100, 100, 0, 0)])
    assert np.isfinite(elo["a"]) and elo["a"] > 600


def test_cli_writes_json_markdown_and_png(toy, tmp_path):
    with pytest.raises(ValueError, match="distinct"):
        main(["--env", toy, "--policies", "random", "random", "--games", "10"])
    report = main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "20", "--out", str(tmp_path),
                   "--png"])
    assert json.loads((tmp_path / "elo.json").read_text())["pairs"][0]["games"] == 20
    assert "| policy | Elo" in (tmp_path / "elo.md").read_text()
    assert (tmp_path / "elo.png").stat().st_size > 1000
    assert report["elo"]["random"] == 0


def test_earth_with_three_players_is_rank_based_over_all_seat_rotations():
    pytest.importorskip("tabletop_envs.earth.bots")
    res = play_pair("earth_v0", "heuristic", "random", 6, seed=0, game_kwargs={"num_players": 3})
    assert res.games == 6  # one deal from all 6 (seat of A, seat of B) placements, random in the third seat
    assert res.wins >= 5  # the heuristic out-ranks random
