"""The warm start: recording a teacher, cloning it into the learner, and its place in a training run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_envs import TabletopError
from tabletop_envs.core import policy as policy_module
from tabletop_envs.core.arena import play_match
from tabletop_envs.core.policy import RandomPolicy

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

from training.config import load_config  # noqa: E402
from training.export import numpy_policy  # noqa: E402
from training.pool import OpponentPool  # noqa: E402
from training.pretrain import clone, collect, warm_start  # noqa: E402
from training.train import build_model, make_vec_env, train  # noqa: E402

TINY = {"env": "toy_v0", "seed": 1,
        "ppo": {"total_timesteps": 512, "n_steps": 128, "batch_size": 64, "n_epochs": 2, "net_arch": [16]},
        "selfplay": {"heuristic_weight": 0.0, "snapshot_every": 256, "gate_win_rate": 0.0, "window": 2},
        "eval": {"every": 512, "games": 20, "final_games": 20, "opponents": ["random"]},
        "output": {"checkpoint_every": 512, "progress_bar": False}}


@pytest.fixture()
def teacher(play_highest):
    return play_highest


@pytest.fixture()
def toy_teacher(toy, teacher, monkeypatch):
    monkeypatch.setitem(policy_module._POLICIES, "toy_v0/highest", lambda **kw: teacher)
    return "highest"


def test_collect_keeps_only_the_teachers_decisions(toy, teacher):
    data = collect(toy, teacher, games=40, seed=3, vs_random_share=0.5, gamma=1.0)
    assert len(data) > 40 and data.observations.dtype == np.float16
    rng = np.random.default_rng(0)
    for obs, mask, action in zip(data.observations, data.masks, data.actions):
        assert mask[action]
        assert teacher.act(obs.astype(np.float32), mask, rng) == action  # every row is a teacher move
    # Teacher-vs-teacher games contribute both seats, games against random only one: fewer than all moves.
    assert len(data) < 40 * 2 * 6


def test_collect_returns_are_the_final_result_discounted_by_the_seats_own_later_decisions(toy, teacher):
    undiscounted = collect(toy, teacher, games=30, seed=5, gamma=1.0)
    discounted = collect(toy, teacher, games=30, seed=5, gamma=0.5)
    assert np.array_equal(undiscounted.actions, discounted.actions)  # same games
    finals = np.sign(undiscounted.returns)
    assert set(np.unique(np.abs(undiscounted.returns))) <= {0.0, 1.0}
    powers = np.abs(discounted.returns[finals != 0])
    k = np.log2(1 / powers)
    assert np.allclose(k, np.round(k)) and k.min() == 0 and k.max() >= 2  # 0.5 ** decisions still to come
    assert np.array_equal(np.sign(discounted.returns), finals)


def test_cloning_makes_the_learner_play_like_the_teacher_and_beat_random(toy, teacher, toy_teacher, tmp_path):
    cfg = load_config(data={**TINY, "pretrain": {"teacher": toy_teacher, "games": 300, "epochs": 8,
                                                  "batch_size": 64, "learning_rate": 3e-3},
                            "output": {"dir": str(tmp_path / "run"), "tensorboard": False}})
    model = build_model(cfg, make_vec_env(cfg, OpponentPool(toy, 1.0, 0.0)), tmp_path)
    untrained = play_match(toy, [numpy_policy(model, deterministic=True), RandomPolicy()], 200, seed=11)
    report = warm_start(model, cfg, log=lambda *_: None)
    assert report["samples"] > 1000 and report["teacher"] == toy_teacher
    assert report["holdout_agreement"] >= 0.9
    cloned = play_match(toy, [numpy_policy(model, deterministic=True), RandomPolicy()], 200, seed=11)
    reference = play_match(toy, [teacher, RandomPolicy()], 200, seed=11)
    assert cloned.win_rate(0) > untrained.win_rate(0) + 0.1
    assert cloned.win_rate(0) >= reference.win_rate(0) - 0.1


def test_the_value_head_learns_the_teacher_games_returns(toy, teacher):
    from sb3_contrib import MaskablePPO

    from tabletop_envs.core.single_agent import SingleAgentEnv

    data = collect(toy, teacher, games=200, seed=1, vs_random_share=1.0, gamma=0.99)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(toy), policy_kwargs={"net_arch": [32]}, device="cpu", seed=0)
    first = clone(model.policy, data, epochs=1, batch_size=64, learning_rate=0.0, log=lambda *_: None)
    fitted = clone(model.policy, data, epochs=10, batch_size=64, learning_rate=3e-3, log=lambda *_: None)
    assert fitted["epochs"][-1]["holdout_value_mse"] < 0.7 * first["epochs"][-1]["holdout_value_mse"]


def test_a_warm_started_run_records_the_cloning_in_its_files_and_sidecar(toy, toy_teacher, tmp_path):
    cfg = load_config(data={**TINY, "pretrain": {"teacher": toy_teacher, "games": 20, "epochs": 1},
                            "output": {**TINY["output"], "dir": str(tmp_path / "run")}})
    summary = train(cfg)
    run = tmp_path / "run"
    report = json.loads((run / "pretrain.json").read_text())
    assert report["games"] == 20 and len(report["epochs"]) == 1
    assert summary["pretrain"]["samples"] == report["samples"]
    assert json.loads((run / "ppo.json").read_text())["training"]["pretrain"]["teacher"] == toy_teacher


def test_an_unknown_teacher_is_a_clear_error(toy, tmp_path):
    cfg = load_config(data={**TINY, "pretrain": {"teacher": "grandmaster", "games": 2},
                            "output": {**TINY["output"], "dir": str(tmp_path / "run")}})
    with pytest.raises(TabletopError, match="no policy registered as 'toy_v0/grandmaster'"):
        train(cfg)


def test_the_cloning_fit_runs_on_the_update_threads_and_restores_the_count(toy, toy_teacher, tmp_path, monkeypatch):
    import os

    import torch

    import training.pretrain as pretrain

    cfg = load_config(data={**TINY, "ppo": {**TINY.get("ppo", {}), "update_threads": 2},
                            "pretrain": {"teacher": toy_teacher, "games": 20, "epochs": 1},
                            "output": {"dir": str(tmp_path / "run"), "tensorboard": False}})
    model = build_model(cfg, make_vec_env(cfg, OpponentPool(toy, 1.0, 0.0)), tmp_path)
    seen = []
    original = pretrain.clone
    monkeypatch.setattr(pretrain, "clone", lambda *a, **k: (seen.append(torch.get_num_threads()), original(*a, **k))[1])
    torch.set_num_threads(1)
    warm_start(model, cfg, log=lambda *_: None)
    assert seen == [min(2, os.cpu_count())] and torch.get_num_threads() == 1


def test_collect_gives_each_seat_its_own_result_in_a_teacher_against_teacher_game(toy, teacher):
    # one game, both seats the teacher: the winner's decisions return +1, the loser's -1
    decided = 0
    for seed in range(10):
        data = collect(toy, teacher, games=1, seed=seed, vs_random_share=0.0, gamma=1.0)
        if data.returns.any():
            decided += 1
            assert sorted(np.unique(data.returns)) == [-1.0, 1.0], seed
    assert decided >= 3


def test_vs_random_share_is_the_share_of_games_the_teacher_plays_against_random(toy, teacher):
    # against random only one seat's decisions are the teacher's: about half the rows of teacher-vs-teacher games
    both_seats = len(collect(toy, teacher, games=60, seed=2, vs_random_share=0.0))
    one_seat = len(collect(toy, teacher, games=60, seed=2, vs_random_share=1.0))
    assert 0.35 < one_seat / both_seats < 0.65


def test_collect_discounts_by_the_decisions_still_to_come_not_those_already_made(toy, teacher):
    for seed in range(10):
        data = collect(toy, teacher, games=1, seed=seed, vs_random_share=0.0, gamma=0.5)
        if data.returns.any():
            break
    magnitudes = np.abs(data.returns)
    assert sorted(magnitudes[-2:]) == [1.0, 1.0]  # each seat's last decision: the result itself
    assert magnitudes[0] < 1.0 and np.all(np.diff(magnitudes[::2]) > 0)  # earlier ones: discounted more

