"""Search distillation: the rollout search's labels, the fine-tuning toward them, and their place in a run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from processes import (
    StandIn,
    ctrl_c_delivered,
    descendants,
    needs_proc,
    outlived,
    signal_the_group_parent_last,
    stop_signals_at_their_defaults,
)

from tabletop_envs import ConfigError
from tabletop_envs.core.policy import RandomPolicy
from tabletop_envs.core.registry import make_game

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

from training.config import load_config  # noqa: E402
from training.distill import SearchData, collect, fit  # noqa: E402
from training.evaluate import play_pair  # noqa: E402
from training.export import numpy_policy  # noqa: E402
from training.pool import OpponentPool  # noqa: E402
from training.search import best_action, play_out, search_scores, world_scores  # noqa: E402
from training.train import build_model, make_vec_env, train  # noqa: E402

TINY = {"env": "toy_v0", "seed": 1,
        "ppo": {"total_timesteps": 256, "n_steps": 128, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "selfplay": {"heuristic_weight": 0.0, "snapshot_every": 256, "gate_win_rate": 0.0, "window": 2},
        "eval": {"every": 512, "games": 20, "final_games": 20, "opponents": ["random"]},
        "output": {"checkpoint_every": 512, "progress_bar": False, "tensorboard": False}}


class AlwaysDraw:
    """A toy-game policy far worse than random: draw while the deck lasts, then the lowest card."""

    name = "draw"

    def act(self, obs, mask, rng):
        legal = np.flatnonzero(mask)
        return int(legal.max()) if mask[10] else int(legal.min())


def tiny_overrides(out, *extra):
    overrides = [f"{k}={json.dumps(v)}" for section, keys in TINY.items() if isinstance(keys, dict)
                 for k, v in ((f"{section}.{k}", v) for k, v in keys.items())]
    return [*overrides, "env=toy_v0", "seed=1", f"output.dir={out}", "distill.games=20", "distill.worlds=4",
            "distill.epochs=2", "distill.workers=1", *extra]


def untrained_model(toy, tmp_path, seed=1):
    cfg = load_config(None, [f"{k}={v}" for k, v in [("env", toy), ("seed", seed), ("ppo.net_arch", "[16]"),
                                                      ("ppo.n_steps", 128), ("ppo.batch_size", 64)]])
    return build_model(cfg, make_vec_env(cfg, OpponentPool(toy, 1.0, 0.0)), tmp_path)


def win_rate(env_name, policy, games=400, seed=0):
    return play_pair(env_name, policy, RandomPolicy(), games, seed).rates()["win"]["rate"]


def test_best_action_keeps_the_policys_move_on_a_tie_and_within_the_margin():
    legal = [3, 5, 8]
    assert best_action(5, legal, np.array([4.0, 4.0, 1.0])) == 5  # a tie keeps the policy's move
    assert best_action(5, legal, np.array([6.0, 4.0, 1.0])) == 3
    assert best_action(5, legal, np.array([6.0, 4.0, 1.0]), margin=2.0) == 5  # not beyond the margin
    assert best_action(5, legal, np.array([7.0, 4.0, 1.0]), margin=2.0) == 3
    assert best_action(5, [5], np.array([0.0])) == 5


def test_search_scores_are_wins_less_losses_over_the_worlds(toy):
    state = make_game(toy).new_initial_state(4)
    for _ in range(4):  # both seats draw twice: the deck is empty, and seat 0's last move is next
        state.apply_action(10)
    higher_did_better = 0
    for seed in range(20):
        own, legal, scores = search_scores(state, 0, AlwaysDraw(), RandomPolicy(), worlds=1, max_turns=50,
                                           rng=np.random.default_rng(seed))
        assert legal == state.legal_actions() and 10 not in legal and own == min(legal)
        assert set(scores.tolist()) <= {-1.0, 0.0, 1.0}
        # the last card played is the total's last term: in every world the highest card does no worse
        hand = [a for a in legal if a < 10]
        high, low = scores[legal.index(max(hand))], scores[legal.index(min(hand))]
        assert high >= low
        higher_did_better += high > low
    assert higher_did_better > 0
    _, _, scores = search_scores(state, 0, AlwaysDraw(), RandomPolicy(), worlds=12, max_turns=50,
                                 rng=np.random.default_rng(0))
    assert np.all(np.abs(scores) <= 12) and np.array_equal(scores, np.round(scores))


class TakeOne:
    """A pile-game policy: always take one stone."""

    def act(self, obs, mask, rng):
        return 0


def _pile_at_three(pile):
    state = make_game(pile).new_initial_state(0)
    for _ in range(4):  # 15 stones, four takes of three: 3 left and seat 0 to move again
        state.apply_action(2)
    assert state.current_player() == 0 and state.legal_actions() == [0, 1, 2]
    return state


def test_search_scores_sum_every_worlds_result_for_the_searching_seat(pile):
    # the sign of a result, every world counted (not only the last), each side in its own seat
    state = _pile_at_three(pile)
    own, legal, scores = search_scores(state, 0, RandomPolicy(), TakeOne(), worlds=12, max_turns=50,
                                       rng=np.random.default_rng(0))
    # take 3: won at once; take 2: the opponent takes the last; take 1: the opponent takes one, seat 0 the last
    assert legal == [0, 1, 2] and scores.tolist() == [12.0, -12.0, 12.0]


def test_play_out_stops_at_the_turn_limit_without_a_move(pile):
    # a playout that reached max_turns is a truncated game (0), not one more move
    state = _pile_at_three(pile)
    moves = []

    def choose(s, player):
        moves.append(player)
        return 2

    assert play_out(state.clone(), choose, max_turns=state.turn, seat=0) == 0 and not moves
    assert play_out(state.clone(), choose, max_turns=state.turn + 1, seat=0) == 1 and moves == [0]


def test_every_action_of_one_world_is_finished_with_a_generator_of_the_same_stream(toy):
    # the module's "every action of one world is finished with the same generator": the same luck for each
    state = make_game(toy).new_initial_state(4)
    first_states, generators = [], []

    class Spy:
        def act(self, obs, mask, rng):
            if not any(rng is g for g in generators):
                generators.append(rng)  # (kept: the id of a collected generator could come back)
                first_states.append(rng.bit_generator.state["state"])
            return RandomPolicy().act(obs, mask, rng)

    legal = state.legal_actions()
    world_scores(state, 0, legal, Spy(), Spy(), worlds=1, max_turns=50, rng=np.random.default_rng(3))
    assert len(generators) == len(legal) and all(s == first_states[0] for s in first_states)


def test_each_player_of_a_playout_is_asked_on_its_own_observation(pile):
    # shown the searching seat's observation, the opponent saw its hidden cards
    state = make_game(pile).new_initial_state(0)
    for _ in range(3):
        state.apply_action(2)  # 6 stones, seat 1 to search: the playouts need moves of both seats
    seen = []

    class SeatSpy:
        def __init__(self, seat):
            self.seat = seat

        def act(self, obs, mask, rng):
            seen.append((self.seat, int(np.argmax(obs[1:]))))  # the pile game's observation names its seat
            return RandomPolicy().act(obs, mask, rng)

    world_scores(state, 1, state.legal_actions(), SeatSpy(1), SeatSpy(0), worlds=4, max_turns=50,
                 rng=np.random.default_rng(0))
    assert {s for s, _ in seen} == {0, 1} and all(s == shown for s, shown in seen)


def test_the_search_deals_a_world_for_each_of_its_worlds(toy, monkeypatch):
    # the worlds are re-dealt hidden cards, not the true state played out again (which the seat cannot know)
    state = make_game(toy).new_initial_state(4)
    dealt = []
    real = type(state).resample_hidden
    monkeypatch.setattr(type(state), "resample_hidden",
                        lambda self, seat, rng: dealt.append(seat) or real(self, seat, rng))
    search_scores(state, 0, RandomPolicy(), RandomPolicy(), worlds=5, max_turns=50, rng=np.random.default_rng(0))
    assert dealt == [0] * 5


def test_a_forced_move_deals_no_world_and_leaves_the_generator_to_the_policy(pile):
    # one legal action: nothing to compare, so the search plays no world and draws nothing past the policy's move
    state = _pile_at_three(pile)
    state.apply_action(1)  # one stone left: seat 1's only move is to take it
    assert state.legal_actions() == [0]
    dealt = []
    real = type(state).resample_hidden
    with pytest.MonkeyPatch.context() as m:
        m.setattr(type(state), "resample_hidden", lambda self, seat, rng: dealt.append(seat) or real(self, seat, rng))
        rng = np.random.default_rng(0)
        own, legal, scores = search_scores(state, 1, RandomPolicy(), TakeOne(), worlds=8, max_turns=50, rng=rng)
    alone = np.random.default_rng(0)
    RandomPolicy().act(state.observation(1), state.legal_action_mask(), alone)
    assert (own, legal, scores.tolist()) == (0, [0], [0.0]) and not dealt
    assert rng.bit_generator.state == alone.bit_generator.state


def test_each_world_is_finished_with_a_generator_of_its_own(toy):
    # the same luck for each action of one world, but not the same luck in every world (the worlds' playouts
    # would then share one sequence of random moves, and the search would measure that one sequence)
    state = make_game(toy).new_initial_state(4)
    firsts = {}

    class Spy:
        def act(self, obs, mask, rng):
            firsts.setdefault(id(rng), (rng, str(rng.bit_generator.state["state"])))
            return RandomPolicy().act(obs, mask, rng)

    legal = state.legal_actions()
    world_scores(state, 0, legal, Spy(), Spy(), worlds=3, max_turns=50, rng=np.random.default_rng(3))
    starts = [first for _, first in firsts.values()]
    assert len(starts) == 3 * len(legal) and len(set(starts)) == 3


def test_search_labels_teach_the_search_move_only_beyond_the_margin():
    nan = np.nan
    scores = np.array([[3.0, 5.0, nan], [3.0, 4.0, nan], [nan, 2.0, -6.0]], np.float32) / 10
    data = SearchData(np.zeros((3, 2), np.float16), ~np.isnan(scores), np.array([0, 0, 2]), scores,
                      np.full(3, 10, np.int32), np.zeros(6, np.int8), 0.0)
    labels, relabelled = data.labels(margin=0.1)
    assert labels.tolist() == [1, 0, 1] and relabelled.tolist() == [True, False, True]
    labels, relabelled = data.labels(margin=0.0)
    assert labels.tolist() == [1, 1, 1]
    # "more than the margin": a gap of exactly the margin, and a tie at margin 0, keep the policy's move
    scores = np.array([[0.25, 0.5], [0.5, 0.5]], np.float32)  # (exact in binary)
    data = SearchData(np.zeros((2, 2), np.float16), np.ones((2, 2), bool), np.array([0, 1]), scores,
                      np.full(2, 4, np.int32), np.zeros(2, np.int8), 0.0)
    labels, relabelled = data.labels(margin=0.25)
    assert labels.tolist() == [0, 1] and not relabelled.any()
    labels, relabelled = data.labels(margin=0.0)
    assert labels.tolist() == [1, 1] and relabelled.tolist() == [True, False]


def test_search_labels_never_teach_an_illegal_move_where_every_legal_one_loses():
    # an illegal action's score is NaN, not 0: read as 0 it would beat legal moves that all lose
    scores = np.array([[np.nan, -0.5, -0.25], [np.nan, -1.0, -1.0]], np.float32)
    data = SearchData(np.zeros((2, 2), np.float16), ~np.isnan(scores), np.array([1, 2]), scores,
                      np.full(2, 4, np.int32), np.zeros(4, np.int8), 0.0)
    labels, relabelled = data.labels(margin=0.1)
    assert labels.tolist() == [2, 2] and relabelled.tolist() == [True, False]


def test_collect_deals_each_seed_its_own_games(toy, play_highest):
    # the deals come from the seed (each round searches deals of its own), not from the deal's index alone
    def first_hands(seed):
        data = collect(toy, play_highest, [AlwaysDraw()], games=8, worlds=1, seed=seed, workers=1)
        return data.observations[_toy_turn(data.observations) == 0]

    three, again, four = first_hands(3), first_hands(3), first_hands(4)
    assert len(three) == 4 and np.array_equal(three, again)
    assert three.shape != four.shape or not np.array_equal(three, four)


def _toy_turn(obs) -> np.ndarray:
    """The toy game's turn number, read from its observation."""
    return np.rint(np.asarray(obs, np.float32)[..., -1] * 6).astype(int)


def test_collect_plays_on_with_the_searchs_best_move_whatever_the_margin(toy, monkeypatch):
    # the margin decides what is confirmed and taught, not the move the game goes on with (the search's)
    import training.distill as distill_module

    stub = _StubbedSearch(1)
    monkeypatch.setattr(distill_module, "search_scores", stub.search_scores)
    within = collect(toy, RandomPolicy(), [RandomPolicy()], games=4, worlds=8, seed=3, workers=1, margin=0.2)
    beyond = collect(toy, RandomPolicy(), [RandomPolicy()], games=4, worlds=8, seed=3, workers=1, margin=0.0)
    assert np.array_equal(within.observations, beyond.observations)
    assert np.array_equal(within.results, beyond.results)


def test_collect_records_the_policys_decisions_with_a_choice_and_plays_on_with_the_searchs_move(toy):
    data = collect(toy, AlwaysDraw(), [RandomPolicy()], games=20, worlds=8, seed=3, workers=1)
    assert data.results.shape == (20,) and len(data) > 20
    assert np.array_equal(np.isnan(data.scores), ~data.masks)  # a score for each legal action, none other
    assert data.masks.sum(1).min() >= 2
    rng = np.random.default_rng(0)
    assert all(AlwaysDraw().act(o, m, rng) == a for o, m, a in zip(data.observations, data.masks, data.own))
    # the search's games beat random far more often than the policy's own play does
    assert (data.results > 0).mean() > win_rate(toy, AlwaysDraw(), 200) + 0.3


def test_collect_confirms_with_more_worlds_only_where_the_search_would_teach_a_move(toy):
    data = collect(toy, AlwaysDraw(), [RandomPolicy()], games=20, worlds=8, seed=3, workers=1,
                   confirm_worlds=24, margin=0.1)
    plain = collect(toy, AlwaysDraw(), [RandomPolicy()], games=20, worlds=8, seed=3, workers=1)
    assert set(np.unique(data.worlds)) == {8, 32} and set(np.unique(plain.worlds)) == {8}
    confirmed = data.worlds == 32
    n = len(data)
    own = data.scores[np.arange(n), data.own]
    assert np.all(np.nanmax(data.scores, 1)[~confirmed] - own[~confirmed] <= 0.1 + 1e-6)  # nothing to confirm
    assert np.array_equal(data.scores * data.worlds[:, None], np.round(data.scores * data.worlds[:, None]),
                          equal_nan=True)  # per-world means of whole wins and losses


def in_this_process(record):
    """A stand-in for ``map_in_processes`` that runs the jobs in this process, after ``record(jobs, workers)``."""
    def serial(fn, jobs, workers, initializer, initargs):
        record(jobs, workers)
        initializer(*initargs)
        return [fn(job) for job in jobs]
    return serial


def test_collect_deals_the_same_data_on_one_worker_and_on_two():
    policy = RandomPolicy()
    one = collect("terralore_v0", policy, [RandomPolicy()], games=12, worlds=1, seed=5, workers=1)
    two = collect("terralore_v0", policy, [RandomPolicy()], games=12, worlds=1, seed=5, workers=2)
    for name in ("observations", "masks", "own", "results"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert np.array_equal(one.scores, two.scores, equal_nan=True)


def test_collect_starts_no_more_processes_than_jobs_nor_than_windows_can_wait_on(toy, play_highest, monkeypatch):
    """A pool of more than 61 processes hangs or is refused on Windows (python/cpython#94243): workers=0 is
    one per core, and a 64-core machine has 64."""
    import sys

    import training.distill as distill_module

    started = []
    monkeypatch.setattr(distill_module, "map_in_processes", in_this_process(lambda jobs, workers: started.append(workers)))
    opponents = [RandomPolicy(), AlwaysDraw()]
    collect(toy, play_highest, opponents, games=8, worlds=1, seed=3, workers=128)  # 4 deals: 4 jobs
    monkeypatch.setattr(sys, "platform", "win32")
    collect(toy, play_highest, opponents, games=256, worlds=1, seed=3, workers=128)  # 128 jobs
    collect(toy, play_highest, opponents, games=8, worlds=1, seed=3, workers=128)  # the cap is no floor
    monkeypatch.setattr(distill_module.os, "cpu_count", lambda: 3)
    collect(toy, play_highest, opponents, games=16, worlds=1, seed=3, workers=0)  # 8 jobs
    assert started == [4, 61, 4, 3]


def test_collect_splits_the_games_between_the_opponents(toy, play_highest):
    data = collect(toy, play_highest, [RandomPolicy(), AlwaysDraw()], games=40, worlds=4, seed=3, workers=1)
    assert data.results.shape == (40,)
    # on one worker the rows come opponent by opponent: the last 20 games are the odd deals, against the
    # policy that only draws, which the search never fails to beat; random takes some of the first 20
    assert np.all(data.results[20:] == 1) and np.any(data.results[:20] < 1)


def test_collect_plays_deal_d_against_the_d_mod_k_th_opponent_and_rounds_up_to_whole_deals(toy, play_highest,
                                                                                         monkeypatch):
    import training.distill as distill_module

    real, played = distill_module._games, []
    # a job is (the opponent's index, its deals); the opponents reach the workers with the policy, once each
    monkeypatch.setattr(distill_module, "_games",
                        lambda job, shared: played.append((shared[4][job[0]], job[1])) or real(job, shared))
    opponents = [RandomPolicy(), RandomPolicy(), RandomPolicy()]
    data = collect(toy, play_highest, opponents, games=13, worlds=1, seed=3, workers=1)  # 7 deals, both seats
    assert sorted(d for _, chunk in played for d in chunk) == list(range(7)) and data.results.shape == (14,)
    assert all(opponent is opponents[d % 3] for opponent, chunk in played for d in chunk)


def test_collect_records_no_decision_with_a_single_legal_action(pile):
    # a forced move (one stone left) teaches nothing and is not searched; these games do meet forced moves
    forced = 0
    for deal in range(20):
        state = make_game(pile).new_initial_state(deal)
        rng = np.random.default_rng(deal)
        while not state.is_terminal():
            forced += int(state.legal_action_mask().sum() == 1)
            state.apply_action(RandomPolicy().act(None, state.legal_action_mask(), rng))
    assert forced
    data = collect(pile, RandomPolicy(), [RandomPolicy()], games=40, worlds=1, seed=0, workers=1)
    assert data.masks.sum(1).min() >= 2


class _StubbedSearch:
    """``search_scores`` and ``world_scores`` for ``training.distill``: the last legal action beats the policy's
    (the first) by ``gap`` over the first worlds, and wins every confirming world."""

    def __init__(self, gap):
        self.gap, self.confirmations = gap, []

    def search_scores(self, state, seat, policy, opponent, worlds, limit, rng):
        legal = state.legal_actions()
        scores = np.zeros(len(legal))
        scores[-1] = self.gap
        return legal[0], legal, scores

    def world_scores(self, state, seat, legal, policy, opponent, worlds, limit, rng):
        self.confirmations.append(worlds)
        scores = np.zeros(len(legal))
        scores[-1] = worlds
        return scores


@pytest.mark.parametrize("gap, confirmed", [(1, False), (2, True)])
def test_collect_confirms_where_the_gap_per_world_beats_the_margin_and_scores_per_world_played(
        toy, monkeypatch, gap, confirmed):
    # the margin is per world (not on the raw wins less losses), and the scores are per world played,
    # the confirming worlds included
    import training.distill as distill_module

    stub = _StubbedSearch(gap)
    monkeypatch.setattr(distill_module, "search_scores", stub.search_scores)
    monkeypatch.setattr(distill_module, "world_scores", stub.world_scores)
    # 8 worlds, margin 0.2 a world: a gap of 1 (0.125 a world) is within it, a gap of 2 (0.25) beyond it
    data = collect(toy, RandomPolicy(), [RandomPolicy()], games=4, worlds=8, seed=3, workers=1,
                   confirm_worlds=24, margin=0.2)
    assert bool(stub.confirmations) == confirmed and set(stub.confirmations) <= {24}
    last = np.array([np.flatnonzero(m)[-1] for m in data.masks])
    played = 32 if confirmed else 8
    assert np.all(data.worlds == played)
    assert np.allclose(data.scores[np.arange(len(data)), last], (gap + played - 8) / played)


def test_the_searchs_playouts_stop_at_the_turn_limit_of_the_searched_games(toy):
    # a game cut at max_turns has no result, and neither has a playout cut there: the search scores what the
    # games it teaches can reach, not results past their end (the toy game lasts 6 turns)
    cut = collect(toy, AlwaysDraw(), [RandomPolicy()], games=10, worlds=4, seed=3, workers=1, max_turns=4)
    assert len(cut) and not np.nansum(np.abs(cut.scores)) and not cut.results.any()
    whole = collect(toy, AlwaysDraw(), [RandomPolicy()], games=10, worlds=4, seed=3, workers=1, max_turns=6)
    assert np.nansum(np.abs(whole.scores)) > 0


def test_collect_without_a_decision_to_search_is_a_config_error(toy, play_highest):
    # not numpy's "need at least one array to stack"
    with pytest.raises(ConfigError, match="held no decision with more than one legal action; raise distill.games"):
        collect(toy, play_highest, [RandomPolicy()], games=2, worlds=1, seed=3, workers=1, max_turns=0)


def test_the_policy_and_its_opponent_draw_from_streams_of_their_own(toy, play_highest, monkeypatch):
    # one stream for both: a sampling policy's draws and a random opponent's were the same numbers
    import training.distill as distill_module

    made = []
    real = distill_module.policy_rng
    monkeypatch.setattr(distill_module, "policy_rng", lambda *key: made.append(real(*key)) or made[-1])
    collect(toy, play_highest, [RandomPolicy()], games=4, worlds=1, seed=3, workers=1)
    streams = [g.bit_generator.state["state"]["inc"] for g in made]
    assert len(made) == 8 and len(set(streams)) == len(streams)  # 2 deals x 2 seats x (policy, opponent)


@pytest.mark.parametrize("target", ["move", "scores"])
def test_distilling_the_search_makes_an_untrained_policy_beat_random(toy, tmp_path, target):
    model = untrained_model(toy, tmp_path)
    before = win_rate(toy, numpy_policy(model))
    data = collect(toy, numpy_policy(model), [RandomPolicy()], games=200, worlds=16, seed=11, workers=1)
    report = fit(model.policy, data, margin=0.1, epochs=30, learning_rate=3e-3, kl_coef=0.1, target=target,
                 temperature=0.1, log=lambda *a: None)
    after = win_rate(toy, numpy_policy(model))
    assert report["relabelled"] > 0.2
    assert report["holdout_after"][1] > report["holdout_before"][1] + 0.3  # it learnt the search's moves
    assert after > before + 0.3, (before, after)


def test_the_fit_changes_the_action_head_and_leaves_the_value_head_alone(toy, tmp_path):
    import torch

    model = untrained_model(toy, tmp_path)
    value_before = {k: v.clone() for k, v in model.policy.state_dict().items() if "value" in k}
    action_before = model.policy.action_net.weight.detach().clone()
    data = collect(toy, numpy_policy(model), [RandomPolicy()], games=20, worlds=4, seed=2, workers=1)
    fit(model.policy, data, margin=0.0, epochs=2, log=lambda *a: None)
    assert value_before and all(torch.equal(v, model.policy.state_dict()[k]) for k, v in value_before.items())
    assert not torch.equal(action_before, model.policy.action_net.weight)


@pytest.mark.parametrize("target", ["move", "scores"])
def test_a_run_with_distill_exports_the_distilled_policy_and_records_its_report(toy, tmp_path, target):
    out = tmp_path / "run"
    summary = train(load_config(None, tiny_overrides(out, f"distill.target={target}")))
    report = json.loads((out / "distill.json").read_text(encoding="utf-8"))
    assert report["games"] == 20 and report["samples"] > 0 and len(report["epochs"]) == 2
    assert report["target"] == target and ("temperature" in report) == (target == "scores")
    assert summary["distill"]["samples"] == report["samples"]
    sidecar = json.loads((out / "ppo.json").read_text(encoding="utf-8"))
    assert sidecar["training"]["distill"]["samples"] == report["samples"]
    from sb3_contrib import MaskablePPO

    from training.export import mlp_weights

    exported = np.load(out / "ppo.npz")
    distilled, _ = mlp_weights(MaskablePPO.load(out / "distilled_model.zip"))
    undistilled, _ = mlp_weights(MaskablePPO.load(out / "final_model.zip"))
    last = len(distilled) - 1
    assert np.allclose(exported[f"W{last}"], distilled[-1][0])
    assert not np.allclose(exported[f"W{last}"], undistilled[-1][0])
    from training.model_card import card

    row = next(line for line in card(tmp_path).splitlines() if line.startswith("| search distillation |"))
    assert "20 games against random searched over 4 worlds" in row and f"{report['samples']:,} decisions" in row
    assert ("reweighted by exp(score / 0.05)" in row) == (target == "scores")
    assert ("the search's move" in row) == (target == "move")


def test_a_run_stopped_in_its_distillation_resumes_into_it_and_ships_what_one_run_ships(toy, tmp_path,
                                                                                        monkeypatch):
    import training.distill

    train(load_config(None, tiny_overrides(tmp_path / "one")))
    real = training.distill.distill

    def stopped(model, cfg, run_dir=None, log=print):
        raise KeyboardInterrupt

    monkeypatch.setattr(training.distill, "distill", stopped)
    with pytest.raises(KeyboardInterrupt):
        train(load_config(None, tiny_overrides(tmp_path / "two")))
    assert not (tmp_path / "two" / "distill.json").exists()
    monkeypatch.setattr(training.distill, "distill", real)
    train(load_config(None, tiny_overrides(tmp_path / "two")), resume=True)
    one, two = np.load(tmp_path / "one" / "ppo.npz"), np.load(tmp_path / "two" / "ppo.npz")
    assert all(np.array_equal(one[k], two[k]) for k in one.files)
    assert json.loads((tmp_path / "two" / "distill.json").read_text(encoding="utf-8"))["samples"] > 0
    with pytest.raises(ConfigError, match="nothing left to train"):  # distilled already
        train(load_config(None, tiny_overrides(tmp_path / "two")), resume=True)


def test_the_sidecars_wall_time_counts_the_distillation(toy, tmp_path, monkeypatch):
    import time

    import training.distill

    real = training.distill.distill

    def slow(model, cfg, run_dir=None, log=print):
        time.sleep(3)
        return real(model, cfg, run_dir, log)

    monkeypatch.setattr(training.distill, "distill", slow)
    summary = train(load_config(None, tiny_overrides(tmp_path / "run")))
    assert summary["train_seconds"] >= 3
    assert json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))["training"]["wall_time_s"] >= 3


def test_a_run_stopped_in_its_distillation_can_be_finished_without_it(toy, tmp_path, monkeypatch):
    import training.distill

    def stopped(model, cfg, run_dir=None, log=print):
        raise KeyboardInterrupt

    monkeypatch.setattr(training.distill, "distill", stopped)
    with pytest.raises(KeyboardInterrupt):
        train(load_config(None, tiny_overrides(tmp_path / "run")))
    summary = train(load_config(None, tiny_overrides(tmp_path / "run", "distill.games=0")), resume=True)
    assert "distill" not in summary and summary["steps_per_second"] is None  # no step trained by this call
    assert (tmp_path / "run" / "ppo.npz").exists()
    with pytest.raises(ConfigError, match="nothing left to train"):
        train(load_config(None, tiny_overrides(tmp_path / "run", "distill.games=0")), resume=True)


def test_a_distilled_run_resumed_again_is_told_its_distillation_is_done(toy, tmp_path):
    train(load_config(None, tiny_overrides(tmp_path / "run")))
    with pytest.raises(ConfigError, match=r"and its distillation \(distill.json\)"):
        train(load_config(None, tiny_overrides(tmp_path / "run", "distill.worlds=8")), resume=True)


@pytest.mark.parametrize("text, rounds", [(None, 0), ('{"round": 2}', 2), ('{"samples": 40}', 1), ('{"round', 0),
                                          ("[]", 0)])
def test_the_rounds_a_run_distilled_are_read_from_its_distill_json(tmp_path, text, rounds):
    # a distill.json from before rounds has no "round": its one distillation is done, and --resume must not redo it
    from training.train import distill_rounds_done

    if text is not None:
        (tmp_path / "distill.json").write_text(text, encoding="utf-8")
    assert distill_rounds_done(tmp_path) == rounds


def test_a_run_interrupted_in_ppo_skips_the_distillation_and_resumes_into_it(toy, tmp_path, monkeypatch, capsys):
    import training.distill
    from training.callbacks import SelfPlayCallback

    calls = []
    real = training.distill.distill
    monkeypatch.setattr(training.distill, "distill", lambda model, cfg, run_dir=None, log=print: calls.append(1) or real(model, cfg, run_dir, log))

    def interrupt(self):
        if self.num_timesteps >= 128:
            raise KeyboardInterrupt
        return True

    with monkeypatch.context() as m:
        m.setattr(SelfPlayCallback, "_on_step", interrupt)
        summary = train(load_config(None, tiny_overrides(tmp_path / "run")))
    assert summary["interrupted"] and "distill" not in summary and not calls
    assert "the distillation is skipped" in capsys.readouterr().out
    summary = train(load_config(None, tiny_overrides(tmp_path / "run")), resume=True)
    assert calls and summary["distill"]["samples"] > 0


def test_the_report_of_a_fit_without_held_out_relabelled_decisions_is_json(toy, tmp_path):
    model = untrained_model(toy, tmp_path)
    data = collect(toy, numpy_policy(model), [RandomPolicy()], games=2, worlds=1, seed=2, workers=1)
    report = fit(model.policy, data, epochs=1, log=lambda *a: None)
    json.loads(json.dumps(report, allow_nan=False))


def _search_data(toy, n=200, seed=0):
    """Synthetic searched decisions whose observations name their row (the index in binary)."""
    rng = np.random.default_rng(seed)
    width = make_game(toy).observation_layout.size
    bits = int(np.ceil(np.log2(n)))
    obs = np.zeros((n, width), np.float16)
    obs[:, :bits] = (np.arange(n)[:, None] >> np.arange(bits)) & 1
    masks = np.ones((n, 11), bool)
    masks[:, 10] = rng.random(n) < 0.5
    own = rng.integers(0, 10, n)
    scores = np.where(masks, rng.choice([-1.0, 0.0, 1.0], (n, 11)), np.nan).astype(np.float32)
    return SearchData(obs, masks, own.astype(np.int64), scores, np.full(n, 4, np.int32),
                      np.array([1, 0, -1, 1], np.int8), 0.0), bits


def test_the_fit_never_trains_on_its_held_out_decisions_and_reshuffles_the_rest_each_epoch(toy, tmp_path,
                                                                                          monkeypatch):
    import torch

    data, bits = _search_data(toy)
    policy = untrained_model(toy, tmp_path).policy
    batches = []
    original = policy.get_distribution

    def spy(obs, action_masks=None):
        if torch.is_grad_enabled():
            batches.append((obs[:, :bits].round().long() << torch.arange(bits)).sum(1).tolist())
        return original(obs, action_masks=action_masks)

    monkeypatch.setattr(policy, "get_distribution", spy)
    fit(policy, data, epochs=2, batch_size=32, holdout=0.1, log=lambda *a: None)
    counts = np.bincount([i for batch in batches for i in batch], minlength=200)
    # 20 held out, every other row once an epoch (none of a minibatch dropped), in a new order each epoch
    assert np.count_nonzero(counts == 0) == 20 and set(counts[counts > 0].tolist()) == {2}
    assert batches[0] != batches[len(batches) // 2]


def test_the_held_out_agreement_where_the_search_moved_is_over_the_relabelled_rows(toy, tmp_path):
    # at step size 0 the policy stays the one measured here; its rows the search left alone must not count
    from training.pretrain import holdout_split

    data, _ = _search_data(toy)
    model = untrained_model(toy, tmp_path)
    labels, relabelled = data.labels(0.05)
    hit = logits_of(model, data).argmax(1) == labels
    hold, _ = holdout_split(len(data), 0.3, np.random.default_rng(4))  # fit's split at seed 4
    moved = relabelled[hold]
    assert moved.any() and (~moved).any() and hit[hold][moved].mean() != hit[hold][~moved].mean()
    report = fit(model.policy, data, epochs=1, learning_rate=0.0, holdout=0.3, seed=4, log=lambda *a: None)
    expected = [pytest.approx(hit[hold].mean(), abs=1e-4), pytest.approx(hit[hold][moved].mean(), abs=1e-4)]
    assert list(report["holdout_before"]) == list(report["holdout_after"]) == expected
    assert [report["epochs"][0]["holdout_agreement"], report["epochs"][0]["holdout_relabelled"]] == expected


def test_a_fit_is_reproducible_from_its_seed_and_follows_it(toy, tmp_path):
    # the held-out decisions and the minibatches come from the seed (the recipe's): a distilled run reproduces
    data, _ = _search_data(toy)

    def fitted(seed):
        model = untrained_model(toy, tmp_path)
        fit(model.policy, data, epochs=2, batch_size=32, learning_rate=1e-2, seed=seed, log=lambda *a: None)
        return logits_of(model, data)

    assert np.array_equal(fitted(3), fitted(3))
    assert not np.array_equal(fitted(3), fitted(4))


def test_the_reported_loss_is_the_mean_over_the_training_rows(toy, tmp_path):
    # not summed per minibatch; at learning rate 0 the KL term stays 0
    data, _ = _search_data(toy)
    model = untrained_model(toy, tmp_path)
    labels, _ = data.labels(0.05)
    expected = float(-logits_of(model, data)[np.arange(len(data)), labels].mean())
    report = fit(model.policy, data, epochs=1, batch_size=64, learning_rate=0.0, holdout=0.0, log=lambda *a: None)
    assert report["epochs"][0]["loss"] == pytest.approx(expected, abs=1e-3)


def test_the_reported_loss_leaves_the_held_out_rows_out_of_its_mean(toy, tmp_path):
    from training.pretrain import holdout_split

    data, _ = _search_data(toy)
    model = untrained_model(toy, tmp_path)
    labels, _ = data.labels(0.05)
    _, train_rows = holdout_split(len(data), 0.5, np.random.default_rng(0))  # fit's split at seed 0
    expected = float(-logits_of(model, data)[train_rows, labels[train_rows]].mean())
    report = fit(model.policy, data, epochs=1, batch_size=64, learning_rate=0.0, holdout=0.5, log=lambda *a: None)
    assert report["epochs"][0]["loss"] == pytest.approx(expected, abs=1e-3)


def test_the_scores_target_is_the_policy_reweighted_by_exp_score_over_temperature(toy, tmp_path):
    # the target's own size, through the first epoch's loss at step size 0: on an untrained, near-uniform
    # policy any target has about the same cross-entropy, so this one is given preferences first
    import torch

    data, _ = _search_data(toy)
    model = untrained_model(toy, tmp_path)
    with torch.no_grad():
        model.policy.action_net.bias.copy_(torch.linspace(0.0, 3.0, 11))
    before = torch.as_tensor(logits_of(model, data))
    legal = torch.as_tensor(data.masks)
    scores = torch.as_tensor(np.nan_to_num(data.scores, nan=0.0))
    soft = torch.softmax((before + scores / 0.5).masked_fill(~legal, -torch.inf), -1)
    expected = float(-(soft * before.masked_fill(~legal, 0.0)).sum(-1).mean())
    moved = float((soft.argmax(-1) != before.argmax(-1)).float().mean())
    report = fit(model.policy, data, target="scores", temperature=0.5, epochs=1, batch_size=64, learning_rate=0.0,
                 holdout=0.0, log=lambda *a: None)
    assert report["epochs"][0]["loss"] == pytest.approx(expected, abs=1e-3)
    assert report["relabelled"] == pytest.approx(moved, abs=1e-4) and 0 < moved < 1


def test_the_kl_term_holds_the_fitted_policy_near_the_policy_before_the_fit(toy, tmp_path):
    # kl_coef ignored, or the KL's sign flipped (pushed away), would let the policy drift as far or further
    data, _ = _search_data(toy)
    data.scores = np.where(data.masks, 0.0, np.nan).astype(np.float32)
    data.scores[:, 3] = 1.0  # the search teaches action 3 everywhere

    def drift(kl_coef):
        model = untrained_model(toy, tmp_path)
        before = logits_of(model, data)
        fit(model.policy, data, margin=0.0, epochs=10, batch_size=16, learning_rate=1e-2, kl_coef=kl_coef,
            log=lambda *a: None)
        after = logits_of(model, data)
        return float(np.where(data.masks, np.exp(before) * (before - after), 0.0).sum(-1).mean())

    held, free = drift(2.0), drift(0.0)
    assert held < 0.5 * free, (held, free)


def test_the_search_win_rate_counts_wins_only(toy, tmp_path):
    data, _ = _search_data(toy, n=30)  # results: won, drawn, lost, won
    report = fit(untrained_model(toy, tmp_path).policy, data, epochs=1, log=lambda *a: None)
    assert report["search_win_rate"] == 0.5 and report["games"] == 4


@pytest.mark.parametrize("opponents, match", [("[]", "distill.opponents is empty"),
                                              ("[random, heuristic, random]", "names an opponent twice")])
def test_distill_opponents_must_be_someone_and_each_once(opponents, match):
    with pytest.raises(ConfigError, match=match):
        load_config(None, ["distill.games=10", f"distill.opponents={opponents}"])


def test_distill_is_refused_before_the_run_starts_for_more_than_two_players_or_an_unknown_opponent(tmp_path):
    base = [f"output.dir={tmp_path / 'run'}", "distill.games=10"]
    with pytest.raises(ConfigError, match="two-player"):
        train(load_config(None, ["env=earth_v0", "env_kwargs={num_players: 3}", *base]))
    with pytest.raises(Exception, match="nobody"):
        train(load_config(None, ["env=terralore_v0", "distill.opponents=[nobody]", *base]))
    assert not (tmp_path / "run").exists()


def logits_of(model, data):
    import torch

    with torch.no_grad():
        obs = torch.as_tensor(data.observations.astype(np.float32))
        return model.policy.get_distribution(obs, action_masks=data.masks).distribution.logits.numpy()


def test_scores_targets_leave_ties_as_they_were_and_teach_a_clear_gap(toy, tmp_path):
    model = untrained_model(toy, tmp_path)
    data = collect(toy, numpy_policy(model), [RandomPolicy()], games=60, worlds=2, seed=4, workers=1)
    before = logits_of(model, data)
    # every legal action scores the same: the target is the policy itself, so nothing is taught
    data.scores = np.where(data.masks, 0.0, np.nan).astype(np.float32)
    report = fit(model.policy, data, target="scores", epochs=5, kl_coef=0.0, log=lambda *a: None)
    assert report["relabelled"] == 0 and report["target"] == "scores" and "margin" not in report
    drift = np.abs(np.exp(logits_of(model, data)) - np.exp(before)).max()
    assert drift < 0.005  # (rounding noise only: an untrained policy's near-ties may still swap their order)
    # the least likely legal action wins every world: it becomes the policy's choice
    least = np.where(data.masks, before, np.inf).argmin(1)
    data.scores[np.arange(len(data)), least] = 1.0
    report = fit(model.policy, data, target="scores", temperature=0.05, epochs=30, learning_rate=3e-3,
                 kl_coef=0.0, log=lambda *a: None)
    assert report["relabelled"] >= 0.95  # (not where all tie: the least likely is then the most likely too)
    assert report["holdout_after"][0] > report["holdout_before"][0] + 0.5
    assert (logits_of(model, data).argmax(1) == least).mean() >= 0.6  # from none of them


def test_an_unknown_target_is_refused_before_the_policy_changes(toy, tmp_path):
    model = untrained_model(toy, tmp_path)
    data = collect(toy, numpy_policy(model), [RandomPolicy()], games=4, worlds=1, seed=2, workers=1)
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    with pytest.raises(ConfigError, match="distill target 'soft' is neither 'move' nor 'scores'"):
        fit(model.policy, data, target="soft", log=lambda *a: None)
    assert all((v == model.policy.state_dict()[k]).all() for k, v in before.items())
    with pytest.raises(ConfigError, match="distill.target"):
        load_config(None, ["distill.target=soft"])


def counting_rounds(monkeypatch, stop_at: int | None = None) -> list:
    """Record the rounds ``training.distill`` searches; with ``stop_at``, a Ctrl-C as that round starts."""
    import training.distill

    searched, real = [], training.distill._round

    def counted(model, cfg, round_number, log):
        if round_number == stop_at:
            raise KeyboardInterrupt
        searched.append(round_number)
        return real(model, cfg, round_number, log)

    monkeypatch.setattr(training.distill, "_round", counted)
    return searched


def test_two_rounds_search_the_policy_the_first_round_fitted_on_deals_of_their_own(toy, tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    import training.distill
    from training.distill import policy_digest
    from training.export import mlp_weights
    from training.model_card import card

    seeds, real = [], training.distill.collect
    monkeypatch.setattr(training.distill, "collect", lambda *a, seed, **k: seeds.append(seed) or real(*a, seed=seed, **k))
    out = tmp_path / "run"
    summary = train(load_config(None, tiny_overrides(out, "distill.rounds=2")))
    assert seeds == [1 + 3000, 1 + 4000]  # the run's seed 1: deals of each round's own
    report = json.loads((out / "distill.json").read_text(encoding="utf-8"))
    first, second = (json.loads((out / "distill" / f"round{k}.json").read_text(encoding="utf-8")) for k in (1, 2))
    assert report["round"] == 2 and [r["round"] for r in report["earlier_rounds"]] == [1]
    assert summary["distill"]["earlier_rounds"][0]["samples"] == first["samples"]
    round_one = MaskablePPO.load(out / "distill" / "round1.zip")
    assert second["base"] == policy_digest(round_one) != first["base"]  # it searched the first round's policy
    assert first["base"] == policy_digest(MaskablePPO.load(out / "final_model.zip"))
    exported = np.load(out / "ppo.npz")
    final, _ = mlp_weights(MaskablePPO.load(out / "distilled_model.zip"))
    after_one, _ = mlp_weights(round_one)
    assert np.array_equal(exported[f"W{len(final) - 1}"], final[-1][0])
    assert not np.array_equal(final[-1][0], after_one[-1][0])
    rows = [line for line in card(tmp_path).splitlines() if line.startswith("| search distillation")]
    assert [row.split(" |")[0] for row in rows] == ["| search distillation, round 1 of 2",
                                                    "| search distillation, round 2 of 2"]
    assert f"{first['samples']:,} decisions" in rows[0] and f"{second['samples']:,} decisions" in rows[1]


def test_a_run_stopped_in_its_second_round_resumes_into_it_and_ships_what_one_run_ships(toy, tmp_path,
                                                                                      monkeypatch, capsys):
    train(load_config(None, tiny_overrides(tmp_path / "one", "distill.rounds=2")))
    with monkeypatch.context() as m:
        searched = counting_rounds(m, stop_at=2)
        capsys.readouterr()
        with pytest.raises(KeyboardInterrupt):
            train(load_config(None, tiny_overrides(tmp_path / "two", "distill.rounds=2")))
    assert searched == [1] and not (tmp_path / "two" / "distill.json").exists()
    assert (f"PPO steps and the finished rounds in {tmp_path / 'two' / 'distill'} (round1) are kept; --resume "
            "continues from there") in capsys.readouterr().out
    searched = counting_rounds(monkeypatch)
    train(load_config(None, tiny_overrides(tmp_path / "two", "distill.rounds=2")), resume=True)
    assert searched == [2]  # the first round read back, not searched again
    one, two = np.load(tmp_path / "one" / "ppo.npz"), np.load(tmp_path / "two" / "ppo.npz")
    assert all(np.array_equal(one[k], two[k]) for k in one.files)
    report = json.loads((tmp_path / "two" / "distill.json").read_text(encoding="utf-8"))
    assert report["round"] == 2
    # the first round was searched after the first part's last checkpoint: its time counts with its report's
    kept = report["earlier_rounds"][0]
    summary = json.loads((tmp_path / "two" / "summary.json").read_text(encoding="utf-8"))
    assert kept["read_back"] and "read_back" not in report
    assert summary["train_seconds_all_parts"] == round(sum(p["seconds"] for p in summary["parts"])
                                                       + kept["collect_seconds"] + kept["fit_seconds"], 1)


def test_a_distilled_run_resumed_with_another_round_searches_only_that_one(toy, tmp_path, monkeypatch):
    train(load_config(None, tiny_overrides(tmp_path / "one", "distill.rounds=2")))
    train(load_config(None, tiny_overrides(tmp_path / "two")))
    searched = counting_rounds(monkeypatch)
    summary = train(load_config(None, tiny_overrides(tmp_path / "two", "distill.rounds=2")), resume=True)
    assert searched == [2] and summary["distill"]["round"] == 2
    one, two = np.load(tmp_path / "one" / "ppo.npz"), np.load(tmp_path / "two" / "ppo.npz")
    assert all(np.array_equal(one[k], two[k]) for k in one.files)
    with pytest.raises(ConfigError, match=r"and its distillation \(distill.json\)"):
        train(load_config(None, tiny_overrides(tmp_path / "two", "distill.rounds=2")), resume=True)


def test_a_kept_round_of_other_settings_or_another_policy_is_searched_again(toy, tmp_path, monkeypatch):
    train(load_config(None, tiny_overrides(tmp_path / "run")))
    searched = counting_rounds(monkeypatch)
    summary = train(load_config(None, tiny_overrides(tmp_path / "run", "distill.rounds=2", "distill.worlds=8")),
                    resume=True)
    assert searched == [1, 2] and summary["distill"]["worlds"] == 8
    assert json.loads((tmp_path / "run" / "distill" / "round1.json").read_text(encoding="utf-8"))["worlds"] == 8
    searched.clear()  # more PPO steps: another policy under the first round
    train(load_config(None, tiny_overrides(tmp_path / "run", "distill.rounds=2", "distill.worlds=8",
                                           "ppo.total_timesteps=512")), resume=True)
    assert searched == [1, 2]


def _rounds_searched(model, run, monkeypatch):
    """A function of recipe overrides that runs the distillation of ``model`` into ``run`` with each round's
    search and fit stubbed, returning the rounds it searched (not read back from the folder)."""
    import training.distill

    searched = []
    monkeypatch.setattr(training.distill, "_round", lambda model, cfg, n, log: searched.append(n) or {"round": n})

    def searched_by(*overrides):
        searched.clear()
        training.distill.distill(model, load_config(None, ["env=toy_v0", "distill.games=2", *overrides]), run,
                                 log=lambda *a: None)
        return list(searched)

    return searched_by


def test_a_kept_round_is_read_back_only_under_the_same_value_of_every_setting_but_rounds_and_workers(
        toy, tmp_path, monkeypatch):
    # each distill setting changes the searched data or the fit: a round kept under another value is not this run's
    import dataclasses

    from training.config import DistillConfig

    searched_by = _rounds_searched(untrained_model(toy, tmp_path), tmp_path / "run", monkeypatch)

    assert searched_by() == [1] and searched_by() == [] and searched_by("distill.workers=3") == []
    changes = {"games": 4, "opponents": "[random, heuristic]", "worlds": 8, "margin": 0.1, "confirm_worlds": 8,
               "target": "scores", "temperature": 0.1, "epochs": 3, "batch_size": 8, "learning_rate": 0.01,
               "kl_coef": 0.5}
    assert set(changes) == {f.name for f in dataclasses.fields(DistillConfig)} - {"rounds", "workers"}
    for key, value in changes.items():
        assert searched_by(f"distill.{key}={value}") == [1], key
        assert searched_by() == [1], key  # (the round kept now is the other value's)


def test_a_kept_round_is_searched_again_under_another_seed_sampling_or_game_option_or_without_its_model(
        toy, tmp_path, monkeypatch):
    # the run's seed deals the searched games, eval.deterministic is how the searched policy plays, env_kwargs are
    # the rules: a round kept under another value of any is not this run's; nor is a report without its model
    searched_by = _rounds_searched(untrained_model(toy, tmp_path), tmp_path / "run", monkeypatch)

    assert searched_by() == [1] and searched_by() == []
    for override in ("seed=2", "eval.deterministic=false", "env_kwargs={turns: 4}"):
        assert searched_by(override) == [1], override
        assert searched_by() == [1], override
    (tmp_path / "run" / "distill" / "round1.zip").unlink()
    assert searched_by() == [1]


@pytest.mark.parametrize("deterministic", [True, False])
def test_the_search_plays_the_policy_as_the_run_ships_it(toy, tmp_path, monkeypatch, deterministic):
    import training.distill as distill_module

    class Searched(Exception):
        pass

    seen = []

    def spy(env, policy, *a, **k):
        seen.append(policy.deterministic)
        raise Searched

    monkeypatch.setattr(distill_module, "collect", spy)
    cfg = load_config(None, tiny_overrides(tmp_path / "run", f"eval.deterministic={str(deterministic).lower()}"))
    with pytest.raises(Searched):
        distill_module.distill(untrained_model(toy, tmp_path), cfg, log=lambda *_: None)
    assert seen == [deterministic]


def test_a_round_stopped_between_its_model_and_its_report_leaves_no_report_of_other_settings_beside_it(
        toy, tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    train(load_config(None, tiny_overrides(tmp_path / "run")))  # round 1 with 4 worlds, kept
    real_save = MaskablePPO.save

    def stopped_after_the_round_model(self, path, *args, **kwargs):
        real_save(self, path, *args, **kwargs)
        if Path(path).name.startswith("round"):
            raise KeyboardInterrupt

    monkeypatch.setattr(MaskablePPO, "save", stopped_after_the_round_model)
    with pytest.raises(KeyboardInterrupt):
        train(load_config(None, tiny_overrides(tmp_path / "run", "distill.rounds=2", "distill.worlds=8")),
              resume=True)
    monkeypatch.setattr(MaskablePPO, "save", real_save)
    # back to 4 worlds: round1.zip is the 8-world model now, so round 1 must be searched again
    searched = counting_rounds(monkeypatch)
    train(load_config(None, tiny_overrides(tmp_path / "run", "distill.rounds=2")), resume=True)
    assert searched == [1, 2]


def test_a_fresh_run_sets_the_earlier_runs_rounds_aside(toy, tmp_path):
    out = tmp_path / "run"
    train(load_config(None, tiny_overrides(out)))
    train(load_config(None, tiny_overrides(out)))
    assert sorted(p.name for p in out.glob("before-*/distill/*")) == ["round1.json", "round1.zip"]
    assert sorted(p.name for p in (out / "distill").iterdir()) == ["round1.json", "round1.zip"]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads a process's children from Linux's /proc")
@needs_proc
@pytest.mark.parametrize("to_group, sig", [
    (False, "SIGTERM"),
    # a terminal's Ctrl-C reaches the whole group: each worker, some still importing, printed a
    # KeyboardInterrupt traceback over the trainer's message
    (True, "SIGINT"),
    # a batch scheduler's SIGTERM (or `timeout`'s) reaches the group too: the workers died first, and
    # the trainer reported a worker killed by the out-of-memory killer instead of stopping as asked
    (True, "SIGTERM")])
def test_sigterm_during_the_distillation_ends_its_workers_and_keeps_the_run_resumable(tmp_path, to_group, sig):
    import signal
    import subprocess
    import sys
    import time

    run = tmp_path / "run"
    sets = {"env": "terralore_v0", "seed": 1, "ppo.total_timesteps": 128, "ppo.n_steps": 64, "ppo.batch_size": 64,
            "ppo.n_epochs": 1, "ppo.net_arch": "[16]", "selfplay.heuristic_weight": 0.0, "eval.every": 1_000_000,
            "eval.final_games": 0, "output.progress_bar": "false", "output.learning_curve": "false",
            "distill.games": 100_000, "distill.worlds": 8, "distill.workers": 2, "output.dir": str(run)}
    proc = subprocess.Popen([sys.executable, "-m", "training.train", *(f"--set={k}={v}" for k, v in sets.items())],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=Path(__file__).resolve().parents[2], start_new_session=to_group,
                            preexec_fn=stop_signals_at_their_defaults)
    try:
        lines = []
        while not any("[distill] searching" in line for line in lines):
            lines.append(proc.stdout.readline())
            assert lines[-1], "".join(lines)
        workers = []
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:  # the pool's two, and the resource tracker
            time.sleep(0.2)
            workers = descendants(proc.pid)
        assert len(workers) >= 2
        time.sleep(1.0)  # the workers are searching their first chunks, minutes of work each
        if to_group:
            signal_the_group_parent_last(proc.pid, getattr(signal, sig))
        else:
            proc.send_signal(getattr(signal, sig))
        # the stop evaluates and exports what was learnt: over a minute on a loaded 2-core machine
        out, _ = proc.communicate(timeout=180)
    finally:
        if to_group:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        # a failure here left the workers searching on for minutes, and on a loaded machine the next
        # runs timed out behind them
        for pid in descendants(proc.pid) if proc.poll() is None else []:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, out
    assert "interrupted in the distillation" in out and out.rstrip().endswith("interrupted"), out
    assert "PPO steps are kept (no round had finished); --resume continues from there" in out, out  # its first
    assert "Traceback" not in out, out
    assert not outlived(workers), "a distillation worker outlived the trainer"
    # PPO's steps are in a checkpoint, so --resume goes straight back to the distillation
    assert list((run / "checkpoints").glob("step_*/state.json")) and not (run / "distill.json").exists()


def test_a_distillation_worker_that_dies_ends_the_search_with_an_error_instead_of_a_wait_forever():
    # the out-of-memory killer ends the biggest process: a multiprocessing Pool then waited forever
    # for the chunk the dead worker held
    from tabletop_envs.core.errors import TabletopError
    from training.distill import map_in_processes

    t0 = time.monotonic()
    with pytest.raises(TabletopError, match="worker process died.*--resume continues"):
        map_in_processes(os._exit, [9, 0], workers=2)  # the first worker leaves as a killed one would
    assert time.monotonic() - t0 < 60


def test_a_distillation_worker_that_dies_beside_one_still_searching_ends_the_search_without_a_hang():
    # On Python 3.12 and later the pool's cleanup after a worker died waited, holding a lock that shutdown
    # takes, for the worker still searching, which ignores the pool's SIGTERM; and while each job carried the
    # policy (a trained one: hundreds of KB), it first waited for its feeder thread, still sending the next
    # job to that worker (on 3.10 the error came after 30 s, and the exit never). The trainer hung for ever
    import threading

    from tabletop_envs.core.errors import TabletopError

    t0 = time.monotonic()
    with pytest.raises(TabletopError, match="worker process died"):  # 3 jobs: deal d against opponent d
        collect("terralore_v0", StandIn(weight=1 << 20), [StandIn("wait"), StandIn("die"), StandIn("wait")],
                games=6, worlds=1, seed=1, workers=2)
    assert time.monotonic() - t0 < 30
    # Python's exit joins it
    assert not [t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread" and t.is_alive()]


def test_the_jobs_a_search_hands_its_worker_processes_stay_small_whatever_the_policys_size(monkeypatch):
    """The policy and opponents go to each worker once, as it starts; a job is an opponent's index and a range
    of deals, far smaller than a pipe holds (see the test above)."""
    import pickle

    import training.distill as distill_module

    sizes: list[int] = []
    monkeypatch.setattr(distill_module, "map_in_processes",
                        in_this_process(lambda jobs, workers: sizes.extend(len(pickle.dumps(job)) for job in jobs)))
    big = StandIn(weight=1 << 20)
    data = collect("terralore_v0", big, [big, RandomPolicy()], games=8, worlds=1, seed=2, workers=2)
    assert len(sizes) == 4 and max(sizes) < 200, sizes  # 4 deals, one job each
    assert len(data.results) == 8


@needs_proc
def test_an_interrupt_ends_the_distillation_workers_without_waiting_out_their_chunks():
    import threading

    from training.distill import map_in_processes

    def workers():  # not the resource tracker, which lives as long as this process
        return [pid for pid in descendants(os.getpid())
                if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]

    seen = []
    timer = threading.Timer(3.0, lambda: (seen.extend(workers()), os.kill(os.getpid(), signal.SIGINT)))
    t0 = time.monotonic()
    with ctrl_c_delivered():
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                map_in_processes(time.sleep, [120, 120], workers=2)  # chunks of minutes
        finally:
            timer.cancel()
        # nor its manager thread, as the interrupt leaves (checked before outlived() gives it seconds to end
        # on its own): at exit, Python 3.11 wrote to the pipe that thread was closing, and a distillation
        # stopped by Ctrl-C ended on "OSError: [Errno 9] Bad file descriptor" after its message
        assert not [t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"]
    assert time.monotonic() - t0 < 60 and len(seen) >= 2
    assert not outlived(seen)


def test_a_distillation_worker_spawned_under_the_trainer_does_not_import_torch(tmp_path):
    # spawn imports the parent's main module again in each worker; under `python -m training.train` that
    # is the trainer's module, which imported SB3 (and so torch) at its top for the callbacks' base class:
    # each worker, which only plays numpy games, held about 250 MB instead of 44 MB and started seconds later
    import subprocess
    import sys

    script = tmp_path / "trainer_as_main.py"
    script.write_text(
        "import sys\n"
        "import training.train  # what the main module holds under `python -m training.train`\n"
        "from training.distill import map_in_processes\n\n\n"
        "def loaded(name):\n"
        "    return name in sys.modules\n\n\n"
        "if __name__ == '__main__':\n"
        "    print(map_in_processes(loaded, ['torch', 'stable_baselines3', 'training.train'], workers=2))\n",
        encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[False,", "False,", "True]"]  # the trainer's module, without torch


def test_a_kept_round_is_read_back_whatever_the_number_of_workers(toy, tmp_path, monkeypatch):
    # distill.workers says where the search runs, not what it finds: a round kept with one worker is this recipe's
    train(load_config(None, tiny_overrides(tmp_path / "run")))
    searched = counting_rounds(monkeypatch, stop_at=2)  # (round 2's workers could not build the test's toy game)
    with pytest.raises(KeyboardInterrupt):
        train(load_config(None, tiny_overrides(tmp_path / "run", "distill.rounds=2", "distill.workers=2")),
              resume=True)
    assert searched == []  # round 1 read back


def test_a_kept_round_report_cut_short_is_searched_again_not_an_error(toy, tmp_path, monkeypatch):
    # a round1.json cut short (a crash mid-write where renames are not atomic) is no round to read back
    train(load_config(None, tiny_overrides(tmp_path / "run")))
    report = tmp_path / "run" / "distill" / "round1.json"
    report.write_text(report.read_text(encoding="utf-8")[:40], encoding="utf-8")
    searched = counting_rounds(monkeypatch)
    train(load_config(None, tiny_overrides(tmp_path / "run", "distill.rounds=2")), resume=True)
    assert searched == [1, 2] and json.loads(report.read_text(encoding="utf-8"))["round"] == 1


def test_the_distillation_fit_runs_on_the_update_threads_and_restores_the_count(toy, tmp_path, monkeypatch,
                                                                                restore_torch_threads):
    # as the warm start's fit: the search's processes are done by then, so the fit may use the update threads
    import torch

    import training.distill as distill_module

    cfg = load_config(None, tiny_overrides(tmp_path / "run", "ppo.update_threads=2"))
    seen, original = [], distill_module.fit
    monkeypatch.setattr(distill_module, "fit",
                        lambda *a, **k: (seen.append(torch.get_num_threads()), original(*a, **k))[1])
    torch.set_num_threads(1)
    distill_module.distill(untrained_model(toy, tmp_path), cfg, log=lambda *_: None)
    assert seen == [min(2, os.cpu_count())] and torch.get_num_threads() == 1


def test_a_round_passes_the_recipes_settings_to_the_search_and_the_fit(toy, tmp_path, monkeypatch):
    # each distill.* key reaches the function it is for, not that function's default; the search plays the
    # policy the run ships (eval.deterministic), and "confirmed" counts the decisions searched again
    import training.distill as distill_module

    cfg = load_config(None, tiny_overrides(tmp_path / "run", "distill.confirm_worlds=8", "distill.margin=0.125",
                                           "distill.kl_coef=0.3", "distill.temperature=0.2", "distill.target=scores"))
    calls = {}
    real_collect, real_fit = distill_module.collect, distill_module.fit

    def spy_collect(env, policy, *a, **k):
        calls["collect"] = {**k, "deterministic": policy.deterministic}
        calls["data"] = real_collect(env, policy, *a, **k)
        return calls["data"]

    monkeypatch.setattr(distill_module, "collect", spy_collect)
    monkeypatch.setattr(distill_module, "fit", lambda *a, **k: calls.update(fit=k) or real_fit(*a, **k))
    report = distill_module.distill(untrained_model(toy, tmp_path), cfg, log=lambda *_: None)
    assert calls["collect"]["confirm_worlds"] == 8 and calls["collect"]["margin"] == 0.125
    assert calls["collect"]["deterministic"] is True
    assert (calls["fit"]["margin"], calls["fit"]["kl_coef"], calls["fit"]["temperature"]) == (0.125, 0.3, 0.2)
    assert calls["fit"]["target"] == "scores"
    assert report["confirmed"] == int((calls["data"].worlds > 4).sum()) < report["samples"]


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_a_sigterm_reaching_the_trainer_while_it_starts_the_workers_is_kept_and_the_workers_never_see_one():
    # the trainer ignored the stop signals while it handed each worker its start-up data (seconds on a busy
    # machine, a policy's weights through a pipe): a SIGTERM sent to it alone then was lost, and the run went on
    import subprocess
    import sys

    from training.distill import interrupts_left_to_the_parent

    got = []
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
    try:
        with interrupts_left_to_the_parent():
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)
            # not mid-way through starting the workers: one started then was left out of the pool's list
            assert got == []
        deadline = time.monotonic() + 5
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        assert got == [signal.SIGTERM]
        child.send_signal(signal.SIGTERM)
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=1.0)  # a worker leaves the stop to the trainer
    finally:
        signal.signal(signal.SIGTERM, previous)
        child.kill()
        child.wait()
