"""The benchmark's Connect Four single-agent reduction is the correct one (unlike the SB3 tutorial's)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from extras import needs_train

from benchmarks.training_throughput import ConnectFourVsRandom, ZeroCostEnv


def test_losses_on_the_opponents_move_reach_the_learner_and_seats_are_drawn():
    env = ConnectFourVsRandom()
    rng = np.random.default_rng(0)
    seats, outcomes = set(), []
    for seed in range(60):
        obs, _ = env.reset(seed=seed)
        seats.add(env.learner)
        total, done, my_moves = 0.0, False, 0
        while not done:
            # the learner's own pieces are plane 0 of its observation (PettingZoo: "mine, theirs")
            assert obs.reshape(6, 7, 2)[:, :, 0].sum() == my_moves
            obs, reward, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            my_moves += 1
            total += reward
            done = term or trunc
        # everything the learner got is its final result, whoever made the last move
        assert total == env.aec.rewards[env.learner] and total in (-1.0, 0.0, 1.0)
        outcomes.append(total)
    assert seats == {"player_0", "player_1"}
    assert -1.0 in outcomes and 1.0 in outcomes  # the opponent's winning move is a -1 for the learner


@needs_train
def test_the_zero_cost_env_replays_real_observations_and_masks_in_the_games_shape_and_is_a_valid_masked_env():
    from gymnasium.utils.env_checker import check_env

    from benchmarks.training_throughput import _WithOpponent, record_observations
    from tabletop_envs.core.policy import RandomPolicy

    bank, masks = record_observations(_WithOpponent("terralore_v0", {}, RandomPolicy()), count=12)
    assert bank.shape == (12, 889) and bank.any(1).all()
    assert 0 < np.count_nonzero(bank) < bank.size / 4  # sparse, as the game's observations are
    assert masks.shape == (12, 203) and masks.any(1).all() and masks.sum() < masks.size / 4  # few legal actions
    env = ZeroCostEnv(bank, 203, length=5, masks=masks)
    check_env(env, skip_render_check=True)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (889,) and env.action_masks().shape == (203,)
    seen = [(obs, env.action_masks())]
    ends = []
    for _ in range(5):
        obs, _, end, _, _ = env.step(0)
        seen.append((obs, env.action_masks()))
        ends.append(end)
    assert ends == [False] * 4 + [True]  # episodes of `length` learner steps, so resets are counted too
    assert any(not np.array_equal(a, b) for (a, _), (b, _) in zip(seen, seen[1:]))  # the recordings in turn
    # each observation comes with the mask recorded with it
    assert all(any(np.array_equal(o, b) and np.array_equal(m, n) for b, n in zip(bank, masks)) for o, m in seen)
    assert ZeroCostEnv(bank, 203).action_masks().all()  # without masks: every action legal
    with pytest.raises(ValueError, match="legal action in every row"):
        ZeroCostEnv(bank, 203, masks=np.zeros_like(masks))


@needs_train
def test_the_benchmark_trains_both_sides_with_the_named_policy_class():
    from benchmarks.training_throughput import _ZeroCost, algorithm_kwargs, measure
    from training.masked_policy import FastMaskablePolicy, FastMaskableRolloutBuffer

    assert algorithm_kwargs("fast") == {"policy": FastMaskablePolicy, "rollout_buffer_class": FastMaskableRolloutBuffer}
    assert algorithm_kwargs("stock") == {"policy": "MlpPolicy"}
    settings = {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}}
    for name in ("fast", "stock"):
        result = measure([_ZeroCost(np.eye(6, dtype=np.float32), 4)] * 2, 64, settings, policy=name)
        assert result["steps"] == 64 and result["steps_per_s"] > 0
    with pytest.raises(ValueError, match="fast, stock"):
        algorithm_kwargs("sb3")


class _SlowEnv(ZeroCostEnv):
    """A zero-cost env whose step sleeps 2 ms: the clock must put that time in the env piece."""

    def step(self, action):
        import time

        time.sleep(0.002)
        return super().step(action)


@needs_train
def test_every_run_times_its_pieces_and_the_env_piece_holds_the_envs_own_time():
    from benchmarks.training_throughput import PIECES, measure

    settings = {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}}
    bank = np.eye(6, dtype=np.float32)
    for policy in ("fast", "stock"):
        for vec in ("batched", "dummy"):
            us = measure([lambda: _SlowEnv(bank, 4)] * 2, 64, settings, policy=policy, vec=vec)["us_per_step"]
            assert set(us) == {name for name, *_ in PIECES} | {"other collection", "total", "rest"}
            assert all(us[name] >= 0 for name, *_ in PIECES)
            # two envs sleep 2 ms each per vectorised step of two learner steps: >= 2,000 µs a learner step,
            # in the env piece, not in the loop around it (the forward can hold torch's first-call set-up)
            assert us["env"] >= 2000 and us["masks"] + us["buffer"] + us["other collection"] < 1000
            inner = us["env"] + us["masks"] + us["forward"] + us["buffer"]
            assert inner <= us["collection"] + 0.2 and us["collection"] + us["update"] <= us["total"] + 0.2


@needs_train
def test_the_piece_clock_wraps_instances_only_and_removes_its_wrappers():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from benchmarks.training_throughput import PIECES, _PieceClock
    from training.train import quiet_logger

    bank = np.eye(6, dtype=np.float32)
    model = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: ZeroCostEnv(bank, 4)]), n_steps=16, batch_size=16,
                        n_epochs=1, policy_kwargs={"net_arch": [8]}, device="cpu")
    model.set_logger(quiet_logger())
    clock = _PieceClock(model)
    assert "forward" in vars(model.policy) and "train" in vars(model)
    model.learn(32)
    assert all(clock.seconds[name] > 0 for name, *_ in PIECES)
    clock.remove()
    owners = {"env": model.env, "policy": model.policy, "rollout_buffer": model.rollout_buffer, "model": model}
    assert not any(method in vars(owners[owner]) for _, owner, method, _ in PIECES)
    seconds = dict(clock.seconds)
    model.learn(32)  # no longer timed
    assert clock.seconds == seconds


@needs_train
def test_the_policy_comparison_trains_every_env_with_both_policy_classes(monkeypatch):
    import benchmarks.training_throughput as tt

    calls = []

    def fake_measure(fns, steps, settings, seed=0, policy="fast", vec="batched"):
        calls.append((len(fns), policy))
        return {"steps": steps, "seconds": 1.0, "steps_per_s": 200.0 if policy == "fast" else 100.0}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "warm_up", lambda *a, **k: None)  # untimed; counted by its own test
    rows = tt.policy_comparison(64, 2, ["terralore_v0"], repeats=1)
    assert [r["env"] for r in rows] == ["connect_four-v3", "terralore_v0"]
    assert sorted(calls) == [(2, "fast"), (2, "fast"), (2, "stock"), (2, "stock")]
    assert all(r["speedup"] == 2.0 for r in rows)


@needs_train
def test_the_policy_comparisons_speedup_is_the_median_of_each_rounds_own_ratio(monkeypatch):
    import benchmarks.training_throughput as tt

    speeds = {"stock": [100.0, 200.0, 300.0], "fast": [300.0, 250.0, 330.0]}  # rounds: 3.0, 1.25, 1.1
    count = {}

    def fake_measure(fns, steps, settings, seed=0, policy="fast", vec="batched"):
        key = (id(fns), policy)
        count[key] = count.get(key, -1) + 1
        return {"steps": steps, "seconds": 1.0, "steps_per_s": speeds[policy][count[key]]}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "warm_up", lambda *a, **k: None)  # untimed; counted by its own test
    rows = tt.policy_comparison(64, 2, ["terralore_v0"], repeats=3)
    for row in rows:
        assert row["speedup"] == 1.25 and row["speedup_each_round"] == [3.0, 1.25, 1.1]  # not 250 / 200
        assert (row["stock_steps_per_s"], row["fast_steps_per_s"]) == (200.0, 300.0)


@needs_train
def test_throughput_ratios_are_the_median_of_each_rounds_own_ratio(monkeypatch):
    import benchmarks.training_throughput as tt

    # The machine is twice as fast in round 2, and within every round it speeds up by a tenth of its
    # speed per run: each game's ratio against the mean of the reference runs just before and after
    # it is 1.5 (or 0.8); the ratio of medians is not, nor is a ratio against the round's first
    # reference run.
    games = ["terralore_v0", "travel_earth_v0"]
    truth = {"connect_four-v3": 100.0, "terralore_v0": 150.0, "travel_earth_v0": 80.0}
    machine = [1.0, 2.0, 1.1]
    order = []

    def fake_measure(fns, steps, settings, seed=0, policy="fast", vec="batched"):
        floor = isinstance(fns[0], tt._ZeroCost)
        if fns[0] is tt.ConnectFourVsRandom or floor and fns[0].num_actions == 7:
            env = "connect_four-v3"
        else:
            env = fns[0].env_name if not floor else games[[203, 449].index(fns[0].num_actions)]
        round_index, within = divmod(len(order), runs_per_round)
        order.append((env, floor))
        value = truth[env] * machine[round_index] * (1 + 0.1 * within) * (3 if floor else 1)
        return {"steps": steps, "seconds": steps / value, "steps_per_s": value,
                "us_per_step": {"env": 10.0 * (round_index + 1)}}  # rounds: 10, 20, 30

    runs_per_round = 1 + 2 * len(games) + 1 + len(games)  # R (G R)... then the floors
    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "warm_up", lambda *a, **k: None)  # untimed; counted by its own test
    counts = []

    def fake_record(env_fn, count=256, seed=0):
        counts.append(count)
        return np.eye(4, dtype=np.float32), np.ones((4, 7), bool)

    monkeypatch.setattr(tt, "record_observations", fake_record)
    rows = tt.training_throughput(64, 2, games, repeats=3)
    # every zero-cost env replays as many recordings as a rollout holds (n_steps per env x envs)
    assert counts == [tt.SETTINGS["n_steps"] * 2] * (1 + len(games))
    ref, terralore, travel = rows
    assert len(order) == 3 * runs_per_round
    assert order[:runs_per_round] == order[runs_per_round:2 * runs_per_round]  # the same interleaving each round
    assert [e for e, f in order[:5]] == ["connect_four-v3", "terralore_v0", "connect_four-v3", "travel_earth_v0",
                                          "connect_four-v3"]
    assert [round(r, 6) for r in terralore["vs_reference_each_round"]] == [1.5, 1.5, 1.5]
    assert terralore["vs_reference"] == 1.5 and travel["vs_reference"] == 0.8
    # each piece is its own median over the rounds, for the runs and their zero-cost envs
    assert all(row["us_per_step"] == row["zero_cost_us_per_step"] == {"env": 20.0} for row in rows)
    assert ref["repeats"] == 3 and len(ref["steps_per_s_each_round"]) == 3
    assert all(len(r) == 3 for r in ref["steps_per_s_each_round"])


@needs_train
def test_the_benchmark_runs_both_sides_in_the_vec_env_it_is_told():
    from stable_baselines3.common.vec_env import DummyVecEnv

    import benchmarks.training_throughput as tt
    from training.vec_env import SelfPlayVecEnv

    assert tt.vec_env_class("batched") is SelfPlayVecEnv and tt.vec_env_class("dummy") is DummyVecEnv
    with pytest.raises(ValueError, match="batched, dummy"):
        tt.vec_env_class("subproc")
    result = tt.measure([tt.ConnectFourVsRandom, tt.ConnectFourVsRandom], 64,
                        {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "policy_kwargs": {"net_arch": [16]}})
    assert result["steps"] >= 64 and result["steps_per_s"] > 0


def test_the_latency_benchmark_times_every_shipped_model_on_the_game_it_was_trained_for():
    from benchmarks.training_throughput import GAMES, latency_targets
    from tabletop_envs.core.onnx_policy import shipped_model_ids

    targets = {pid: (env_name, kwargs) for pid, env_name, kwargs in latency_targets(None, list(GAMES))}
    assert set(targets) == set(shipped_model_ids())
    assert targets["earth_v0/ppo_4p"][1]["num_players"] == 4 and targets["earth_v0/ppo"][1]["num_players"] == 2
    assert latency_targets(["earth_v0/heuristic"], list(GAMES)) == [("earth_v0/heuristic", "earth_v0",
                                                                       {"num_players": 2})]


def test_a_benchmark_result_records_the_machine_and_package_versions_that_produced_it(tmp_path):
    # the ratios against the reference envs move by 0.2 between machines of this workplace
    import benchmarks.training_throughput as tt

    out = tmp_path / "result.json"
    result = tt.main(["--skip-training", "--policies", "terralore_v0/random", "--json", str(out)])
    machine = json.loads(out.read_text(encoding="utf-8"))["machine"]
    assert machine == result["machine"]
    assert machine["cpus"] >= 1 and machine["cpu"]["model name"]
    assert machine["packages"]["pettingzoo"] and machine["packages"]["numpy"]


@needs_train
def test_the_free_engine_bound_pays_the_opponents_moves_of_real_self_play_and_nothing_else():
    import benchmarks.free_engine_bound as fe
    import benchmarks.training_throughput as tt

    class Counting:
        calls = 0

        def act(self, observation, mask, rng):
            Counting.calls += 1
            assert mask[np.flatnonzero(mask)[0]]  # a recorded mask of the game
            return int(np.flatnonzero(mask)[0])

    bank, masks = tt.record_observations(tt._WithOpponent("terralore_v0", {}, "terralore_v0/random"), 64)
    env = fe.ZeroCostWithOpponent(bank, masks.shape[1], masks, Counting(), rate=0.75)
    env.reset(seed=0)
    for _ in range(40):
        env.step(0)
    assert Counting.calls == 30
    opponent = Counting()
    rate = fe.opponent_moves_per_learner_step(tt._WithOpponent("terralore_v0", {}, opponent), opponent, steps=300)
    assert 0.3 < rate < 2 and "act" not in vars(opponent), "counted on real play, then the method restored"


@needs_train
def test_every_run_plays_against_the_same_sampling_snapshot_opponent():
    # "the same opponent, so the same games, in every run": a fresh learner's weights drawn anew each run
    # would give each run other games; and the pool's snapshots sample, they do not play their argmax
    from benchmarks.training_throughput import SETTINGS, snapshot_opponent

    net_arch = SETTINGS["policy_kwargs"]["net_arch"]
    first, second = (snapshot_opponent("terralore_v0", {}, net_arch) for _ in range(2))
    assert not first.deterministic and not second.deterministic
    assert all(np.array_equal(x, y) for a, b in zip(first.layers, second.layers) for x, y in zip(a, b))


def test_the_piece_clock_splits_a_learner_step_into_the_pieces_the_loop_around_them_and_the_rest():
    from types import SimpleNamespace

    from benchmarks.training_throughput import _PieceClock

    def owner(*methods):
        return SimpleNamespace(**dict.fromkeys(methods, lambda *a, **k: None))

    model = owner("collect_rollouts", "train")
    model.env, model.policy = owner("step_wait", "env_method"), owner("forward")
    model.rollout_buffer = owner("add")
    clock = _PieceClock(model)
    clock.seconds.update(env=1.0, masks=0.5, forward=2.0, buffer=0.25, collection=5.0, update=3.0)
    us = clock.per_step(1000, 10.0)  # seconds over 1,000 learner steps: ms per step are µs per 1,000
    assert us == {"env": 1000.0, "masks": 500.0, "forward": 2000.0, "buffer": 250.0, "collection": 5000.0,
                  "update": 3000.0, "other collection": 1250.0, "total": 10000.0, "rest": 2000.0}


@needs_train
def test_a_runs_speed_counts_the_learner_steps_it_played_not_the_steps_it_asked_for():
    # learn() plays whole rollouts: 65 steps asked of 2 envs x 32 are 128 played, and timed
    from benchmarks.training_throughput import _ZeroCost, measure

    settings = {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "policy_kwargs": {"net_arch": [8]}}
    result = measure([_ZeroCost(np.eye(6, dtype=np.float32), 4)] * 2, 65, settings)
    assert result["steps"] == 128
    assert result["seconds"] == pytest.approx(128 / result["steps_per_s"], abs=0.0051)  # seconds rounded to 0.01
