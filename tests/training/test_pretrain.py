"""The warm start: recording a teacher, cloning it into the learner, and its place in a training run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_envs import ConfigError, TabletopError
from tabletop_envs.core import policy as policy_module
from tabletop_envs.core.arena import play_match
from tabletop_envs.core.policy import RandomPolicy

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

from training.config import load_config  # noqa: E402
from training.export import numpy_policy  # noqa: E402
from training.pool import OpponentPool  # noqa: E402
from training.pretrain import clone, collect, holdout_split, warm_start  # noqa: E402
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


def test_a_game_cut_at_max_turns_teaches_its_moves_but_no_value(toy, teacher):
    # PPO bootstraps a truncated episode from the value head; a target of 0 (the env's truncation reward)
    # would teach the warm-started critic that every such state is even
    whole = collect(toy, teacher, games=10, seed=3)
    cut = collect(toy, teacher, games=10, seed=3, max_turns=3)  # the toy game lasts 6 turns: every game cut
    assert whole.value_known.all() and whole.returns.any()
    assert len(cut) and not cut.value_known.any() and not cut.returns.any()
    assert len(cut) < len(whole)


def test_the_value_head_learns_nothing_from_rows_without_a_result(toy, teacher):
    import torch

    data = collect(toy, teacher, games=60, seed=4)
    data.value_known[::2] = False
    fitted = []
    for made_up in (0.0, 1000.0):  # what the rows without a result say must not matter
        data.returns[~data.value_known] = made_up
        policy = _fresh_policy(toy)
        report = clone(policy, data, epochs=2, batch_size=64, seed=0, log=lambda *_: None)
        fitted.append(torch.cat([p.detach().flatten() for p in policy.parameters()]))
        assert np.isfinite(report["epochs"][-1]["holdout_value_mse"])
    assert torch.equal(fitted[0], fitted[1])
    data.value_known[:] = False
    policy = _fresh_policy(toy)
    before = {n: p.detach().clone() for n, p in policy.named_parameters()}
    report = clone(policy, data, epochs=1, batch_size=64, seed=0, log=lambda *_: None)
    after = dict(policy.named_parameters())
    value = [n for n in before if n.startswith(("value_net", "mlp_extractor.value"))]
    assert value and all(torch.equal(before[n], after[n]) for n in value)
    assert not torch.equal(before["action_net.weight"], after["action_net.weight"])  # the moves were learnt
    assert report["epochs"][-1]["holdout_value_mse"] is None  # (null in pretrain.json: NaN is no JSON)


@pytest.mark.parametrize("seed", [3, 918_273_645_501])
def test_collect_never_hands_the_teacher_or_the_random_player_the_generator_the_games_are_dealt_from(
        toy, seed, monkeypatch):
    # a teacher that read the seed off its generator re-dealt every recorded game (the hidden cards of the
    # decisions it is cloned from), and the random player's moves followed the deals
    from generator_spy import GeneratorSpy, same_stream, tells_the_seed

    from training import pretrain

    teacher, other = GeneratorSpy(), GeneratorSpy()
    monkeypatch.setattr(pretrain, "RandomPolicy", lambda: other)  # the random player collect builds
    collect(toy, teacher, games=4, seed=seed, vs_random_share=1.0)
    for spy in (teacher, other):
        assert spy.first_state is not None
        assert not same_stream(spy.first_state, seed) and not tells_the_seed(spy, seed)
    assert teacher.first_state["state"]["inc"] != other.first_state["state"]["inc"]  # nor each other's (PCG64)


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
    report = json.loads((run / "pretrain.json").read_text(encoding="utf-8"))
    assert report["games"] == 20 and len(report["epochs"]) == 1
    assert summary["pretrain"]["samples"] == report["samples"]
    assert json.loads((run / "ppo.json").read_text(encoding="utf-8"))["training"]["pretrain"]["teacher"] == toy_teacher


def test_an_unknown_teacher_is_a_clear_error(toy, tmp_path):
    cfg = load_config(data={**TINY, "pretrain": {"teacher": "grandmaster", "games": 2},
                            "output": {**TINY["output"], "dir": str(tmp_path / "run")}})
    with pytest.raises(TabletopError, match="no policy registered as 'toy_v0/grandmaster'"):
        train(cfg)


def test_the_cloning_fit_runs_on_the_update_threads_and_restores_the_count(toy, toy_teacher, tmp_path, monkeypatch,
                                                                           restore_torch_threads):
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


def test_each_row_holds_the_observation_the_teacher_decided_on(toy, teacher):
    # a seat's own view: in a teacher-against-teacher game, seat 1's rows must not hold seat 0's hand
    seen = []

    class Recording:
        def act(self, obs, mask, rng):
            seen.append(np.asarray(obs).astype(np.float16))
            return teacher.act(obs, mask, rng)

    data = collect(toy, Recording(), games=10, seed=3, vs_random_share=0.0)
    assert len(seen) == len(data)
    assert np.array_equal(data.observations, np.stack(seen))


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


def _toy_turn_of(obs) -> np.ndarray:
    """The toy game's turn number, read from its observation (one decision a turn, seat 0 first)."""
    return np.rint(np.asarray(obs, np.float32)[..., -1] * 6).astype(int)


def test_against_random_the_teacher_holds_each_seat_in_turn(toy, teacher):
    # the toy game alternates seats from seat 0, so a decision's turn number says whose it was
    data = collect(toy, teacher, games=40, seed=4, vs_random_share=1.0)
    seats = _toy_turn_of(data.observations) % 2
    assert np.count_nonzero(seats == 0) == np.count_nonzero(seats == 1) == 20 * 3


def test_collect_stops_each_game_at_the_turn_limit_and_records_no_result_for_it(toy, teacher):
    cut = collect(toy, teacher, games=10, seed=6, vs_random_share=0.0, max_turns=4)
    assert len(cut) == 10 * 4 and not cut.returns.any()
    assert set(_toy_turn_of(cut.observations)) == {0, 1, 2, 3}
    whole = collect(toy, teacher, games=10, seed=6, vs_random_share=0.0, max_turns=6)
    assert len(whole) == 10 * 6 and whole.returns.any()  # a limit at the game's length cuts nothing


def _row_ids(data_size: int, width: int) -> np.ndarray:
    """Observations that name their row: the row's index in binary in the first columns."""
    bits = int(np.ceil(np.log2(data_size)))
    assert bits <= width
    return ((np.arange(data_size)[:, None] >> np.arange(bits)) & 1).astype(np.float16)


def _fresh_policy(toy):
    from sb3_contrib import MaskablePPO

    from tabletop_envs.core.single_agent import SingleAgentEnv

    return MaskablePPO("MlpPolicy", SingleAgentEnv(toy), policy_kwargs={"net_arch": [16]}, device="cpu",
                       seed=0).policy


def _teacher_data(toy, teacher, rows: int):
    from training.pretrain import TeacherData

    data = collect(toy, teacher, games=rows, seed=8, vs_random_share=0.0)
    ids = _row_ids(rows, data.observations.shape[1])
    obs = data.observations[:rows].copy()
    obs[:, :ids.shape[1]] = ids
    return TeacherData(obs, data.masks[:rows], data.actions[:rows], data.returns[:rows], data.value_known[:rows],
                       data.games, 0.0), ids.shape[1]


def test_the_held_out_decisions_are_never_trained_on_and_the_rest_are_reshuffled_each_epoch(toy, teacher, monkeypatch):
    import torch

    data, bits = _teacher_data(toy, teacher, rows=200)
    policy = _fresh_policy(toy)
    batches, evaluated = [], set()
    original = policy.get_distribution

    def spy(obs, action_masks=None):
        ids = (obs[:, :bits].round().long() << torch.arange(bits)).sum(1).tolist()
        if torch.is_grad_enabled():
            batches.append(ids)
        else:
            evaluated.update(ids)
        return original(obs, action_masks=action_masks)

    monkeypatch.setattr(policy, "get_distribution", spy)
    clone(policy, data, epochs=2, batch_size=32, holdout=0.05, log=lambda *_: None)
    trained = set(sum(batches, []))
    assert len(evaluated) == 10 and trained.isdisjoint(evaluated) and trained | evaluated == set(range(200))
    # the same minibatches every epoch would follow the same gradient path again instead of a new one
    first, second = batches[:len(batches) // 2], batches[len(batches) // 2:]
    assert sorted(sum(first, [])) == sorted(sum(second, [])) and first[0] != second[0]


def test_every_minibatch_step_follows_its_own_gradient_alone(toy, teacher, monkeypatch):
    import torch

    data, _ = _teacher_data(toy, teacher, rows=16)  # under 21 rows: no hold-out, one minibatch an epoch
    policy = _fresh_policy(toy)
    clipped = torch.nn.utils.clip_grad_norm_
    grads = []

    def record(parameters, max_norm):
        parameters = list(parameters)
        grads.append(torch.cat([p.grad.flatten().clone() for p in parameters]))
        return clipped(parameters, max_norm)

    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_", record)
    # learning rate 0: the weights stay put, so each epoch's one minibatch has the same gradient
    clone(policy, data, epochs=3, batch_size=64, learning_rate=0.0, log=lambda *_: None)
    assert len(grads) == 3 and grads[0].abs().sum() > 0
    for later in grads[1:]:
        assert torch.allclose(later, grads[0], atol=1e-6)


def test_a_cloning_is_reproducible_from_its_seed_and_follows_it(toy, teacher):
    # the held-out rows and the minibatches come from the seed: a warm start reproduces from its recipe's seed
    import torch

    data = collect(toy, teacher, games=40, seed=3)

    def fitted(seed):
        policy = _fresh_policy(toy)
        clone(policy, data, epochs=2, batch_size=32, holdout=0.2, seed=seed, log=lambda *_: None)
        return torch.cat([p.detach().flatten() for p in policy.parameters()])

    assert torch.equal(fitted(3), fitted(3))
    assert not torch.equal(fitted(3), fitted(4))


def test_holdout_split_holds_none_out_of_twenty_or_fewer_and_rounds_the_share():
    rng = np.random.default_rng(0)
    hold, train_rows = holdout_split(20, 0.5, rng)
    assert len(hold) == 0 and sorted(train_rows.tolist()) == list(range(20))
    hold, train_rows = holdout_split(30, 0.05, rng)  # 1.5 held out: rounded to 2, not cut to 1
    assert len(hold) == 2 and sorted([*hold.tolist(), *train_rows.tolist()]) == list(range(30))


def test_the_reported_train_nll_is_the_mean_over_the_training_rows(toy, teacher):
    # not summed per minibatch
    import torch

    data = collect(toy, teacher, games=40, seed=3)
    policy = _fresh_policy(toy)
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(data.observations.astype(np.float32)),
                                       action_masks=data.masks)
        expected = float(-dist.log_prob(torch.as_tensor(data.actions)).mean())
    report = clone(policy, data, epochs=1, batch_size=32, learning_rate=0.0, holdout=0.0, log=lambda *_: None)
    assert len(data) > 64 and report["epochs"][0]["train_nll"] == pytest.approx(expected, abs=1e-3)


def test_the_held_out_value_mse_is_over_the_rows_with_a_result_only(toy, teacher):
    import torch

    data = collect(toy, teacher, games=60, seed=4)
    data.value_known[::2] = False
    policy = _fresh_policy(toy)
    hold, _ = holdout_split(len(data), 0.2, np.random.default_rng(0))  # clone's split at seed 0
    with torch.no_grad():
        values = policy.predict_values(torch.as_tensor(data.observations[hold].astype(np.float32))).flatten().numpy()
    expected = float(((values - data.returns[hold]) ** 2)[data.value_known[hold]].mean())
    report = clone(policy, data, epochs=1, learning_rate=0.0, holdout=0.2, seed=0, log=lambda *_: None)
    assert report["epochs"][0]["holdout_value_mse"] == pytest.approx(expected, abs=1e-3)


def test_vf_coef_0_leaves_the_value_head_where_it_was(toy, teacher):
    # Adam moves nothing without a gradient
    import torch

    data = collect(toy, teacher, games=40, seed=3)
    policy = _fresh_policy(toy)
    before = {n: p.detach().clone() for n, p in policy.named_parameters()}
    clone(policy, data, epochs=1, batch_size=64, vf_coef=0.0, log=lambda *_: None)
    value = [n for n in before if n.startswith(("value_net", "mlp_extractor.value"))]
    assert value and all(torch.equal(before[n], dict(policy.named_parameters())[n]) for n in value)


def test_collect_deals_the_games_from_its_seed(toy, teacher):
    one = collect(toy, teacher, games=10, seed=1, vs_random_share=0.0)
    again = collect(toy, teacher, games=10, seed=1, vs_random_share=0.0)
    two = collect(toy, teacher, games=10, seed=2, vs_random_share=0.0)
    assert np.array_equal(one.observations, again.observations)
    assert one.observations.shape != two.observations.shape or not np.array_equal(one.observations, two.observations)


def test_a_cloning_of_twenty_or_fewer_decisions_reports_null_agreement_and_logs_no_nan(toy, teacher):
    # none is held out of 20 or fewer: the report (pretrain.json) held NaN, which strict JSON readers refuse,
    # and the log said "nan%"
    data, _ = _teacher_data(toy, teacher, rows=16)
    lines = []
    report = clone(_fresh_policy(toy), data, epochs=1, batch_size=64, log=lines.append)
    assert report["holdout_agreement"] is None and report["epochs"][0]["holdout_value_mse"] is None
    json.dumps(report, allow_nan=False)
    assert lines and not any("nan" in line for line in lines) and "agreement with the teacher n/a" in lines[-1]


def test_collect_without_a_teacher_decision_is_a_config_error(toy, teacher):
    # as distill's collect: a ConfigError naming the fix, not numpy's "need at least one array to stack"
    with pytest.raises(ConfigError, match="held no decision of the teacher; raise pretrain.games"):
        collect(toy, teacher, games=2, seed=0, max_turns=0)


def test_the_reported_agreement_is_the_last_epochs(toy, teacher):
    data = collect(toy, teacher, games=120, seed=9, vs_random_share=0.0)
    report = clone(_fresh_policy(toy), data, epochs=6, batch_size=1024, learning_rate=3e-2, holdout=0.2,
                   log=lambda *_: None)
    agreements = [row["holdout_agreement"] for row in report["epochs"]]
    assert agreements[0] != agreements[-1]  # the fit moved, so the first and the last epoch can be told apart
    assert report["holdout_agreement"] == agreements[-1]


def test_a_resumed_warm_started_run_reports_its_cloning_with_the_epochs_left_to_pretrain_json(toy, toy_teacher,
                                                                                            tmp_path):
    data = {**TINY, "pretrain": {"teacher": toy_teacher, "games": 20, "epochs": 1},
            "eval": {**TINY["eval"], "final_games": 0},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False,
                       "tensorboard": False}}
    first = train(load_config(data=data))
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1024}
    second = train(load_config(data=data), resume=True)
    report = json.loads((tmp_path / "run" / "pretrain.json").read_text(encoding="utf-8"))
    assert report["epochs"] and second["steps"] == 1024
    assert first["pretrain"] == second["pretrain"] == {k: v for k, v in report.items() if k != "epochs"}


@pytest.mark.parametrize("games", ["0", "-3"])
def test_the_pretrain_command_refuses_a_number_of_evaluation_games_before_the_warm_start(toy, monkeypatch, games):
    import training.pretrain as pretrain
    from tabletop_envs import ConfigError

    monkeypatch.setattr(pretrain, "warm_start", lambda *a, **k: pytest.fail("warm start ran before --games was checked"))
    with pytest.raises(ConfigError, match=f"the number of games must be a positive integer, got {games}"):
        pretrain.main(["--set", "env=toy_v0", "--games", games])


@pytest.mark.parametrize("overrides, problem", [
    (["eval.opponents=[random, nosuch]"], "no policy registered as 'toy_v0/nosuch'"),
    (["eval.opponents=[terralore_v0/random]"], "terralore_v0"),
])
def test_the_pretrain_command_refuses_an_anchor_that_cannot_play_before_the_warm_start(toy, monkeypatch, overrides,
                                                                                       problem):
    import training.pretrain as pretrain
    from tabletop_envs.core.errors import TabletopError

    # the anchors were resolved only after the whole warm start, whose work was then lost
    monkeypatch.setattr(pretrain, "warm_start", lambda *a, **k: pytest.fail("warm start ran before the anchors were checked"))
    with pytest.raises(TabletopError, match=problem):
        pretrain.main(["--set", "env=toy_v0", *[f"--set={o}" for o in overrides], "--games", "4"])


@pytest.mark.parametrize("option", ["opponent=random", "learner_set=1"])
def test_the_pretrain_command_refuses_a_recipe_option_the_game_lacks_as_train_does_before_building_a_model(
        toy, monkeypatch, option):
    # it reached the single-agent env, whose error listed opponent, learner_seat and render_view as if a
    # recipe could set them (env_kwargs.opponent then failed as "got multiple values for 'opponent'")
    import training.pretrain as pretrain
    import training.train as train_module
    from tabletop_envs import ConfigError

    monkeypatch.setattr(train_module, "build_model", lambda *a, **k: pytest.fail("a model was built first"))
    key = option.split("=")[0]
    with pytest.raises(ConfigError, match=rf"toy_v0 has no option {key}; its options are: turns \(and the "
                                          r"env's render_mode, max_turns, illegal_action\)"):
        pretrain.main(["--set", "env=toy_v0", "--set", f"env_kwargs.{option}"])


class _Recorder:
    """Plays like ``policy`` and notes each of its moves, with ``tag``, in a log shared with other recorders."""

    def __init__(self, policy, tag: str, log: list):
        self.policy, self.tag, self.log = policy, tag, log

    def act(self, observation, action_mask, rng):
        action = self.policy.act(observation, action_mask, rng)
        self.log.append((self.tag, action))
        return action


def test_collect_lets_another_policy_teach_the_decisions_it_is_named_for():
    # Travel Earth's Challenger chooses the battle statistic ("statistic"); the heuristic knows the printed
    # values the observation names only by card id, so a recipe can have it teach that one decision
    log: list = []
    teacher = _Recorder(RandomPolicy(), "teacher", log)
    chooser = _Recorder(RandomPolicy(), "chooser", log)
    data = collect("travel_earth_v0", teacher, games=3, seed=2, vs_random_share=0.0,
                   decision_teachers={"statistic": chooser})
    assert len(data) == len(log) and data.decisions is not None
    assert [tag for tag, _ in log] == ["chooser" if d == "statistic" else "teacher" for d in data.decisions]
    assert data.actions.tolist() == [action for _, action in log]  # every row is the move of the policy that played it
    assert {"statistic", "declare", "play"} <= set(data.decisions.tolist())


def test_collect_names_the_decision_of_every_row():
    from tabletop_envs.core.registry import make_game

    data = collect("travel_earth_v0", RandomPolicy(), games=2, seed=4)
    assert data.decisions is not None and len(data.decisions) == len(data)
    assert set(data.decisions.tolist()) <= set(type(make_game("travel_earth_v0")).decisions)


def test_the_cloning_reports_the_held_out_agreement_of_each_decision():
    data = collect("travel_earth_v0", RandomPolicy(), games=4, seed=6, vs_random_share=0.0)
    report = clone(_fresh_policy("travel_earth_v0"), data, epochs=1, batch_size=256, holdout=0.3,
                   log=lambda *_: None)
    by_decision = report["holdout_agreement_by_decision"]
    assert sum(row["samples"] for row in by_decision.values()) == round(0.3 * len(data))
    assert set(by_decision) <= set(data.decisions.tolist())
    held = sum(row["samples"] * row["agreement"] for row in by_decision.values()) / sum(
        row["samples"] for row in by_decision.values())
    assert held == pytest.approx(report["holdout_agreement"], abs=1e-3)  # the parts make up the whole
    # a decision none of whose rows is held out is not named (it was, with 0 samples and a NaN agreement)
    report = clone(_fresh_policy("travel_earth_v0"), data, epochs=1, batch_size=256, holdout=0.02,
                   log=lambda *_: None)
    rows = report["holdout_agreement_by_decision"].values()
    assert sum(r["samples"] for r in rows) == round(0.02 * len(data))
    assert all(r["samples"] > 0 and np.isfinite(r["agreement"]) for r in rows)


def test_a_cloning_with_none_held_out_reports_and_logs_no_agreement_by_decision():
    # 20 decisions or fewer hold none out: there is no agreement of any decision to report
    from training.pretrain import TeacherData

    data = collect("travel_earth_v0", RandomPolicy(), games=1, seed=4)
    assert len(data) > 16
    small = TeacherData(data.observations[:16], data.masks[:16], data.actions[:16], data.returns[:16],
                        data.value_known[:16], 1, 0.0, data.decisions[:16])
    lines = []
    report = clone(_fresh_policy("travel_earth_v0"), small, epochs=1, batch_size=64, log=lines.append)
    assert "holdout_agreement_by_decision" not in report and not any("by decision" in line for line in lines)


def test_each_decisions_held_out_agreement_is_over_its_own_rows():
    # at step size 0 the policy stays the untrained one, whose agreement can be measured here row by row
    import torch

    data = collect("travel_earth_v0", RandomPolicy(), games=4, seed=6, vs_random_share=0.0)
    policy = _fresh_policy("travel_earth_v0")
    report = clone(policy, data, epochs=1, batch_size=256, learning_rate=0.0, holdout=0.3, seed=2,
                   log=lambda *_: None)
    hold, _ = holdout_split(len(data), 0.3, np.random.default_rng(2))  # clone's split at seed 2
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(data.observations[hold].astype(np.float32)),
                                       action_masks=data.masks[hold])
        agreed = (dist.distribution.probs.argmax(-1).numpy() == data.actions[hold])
    held = data.decisions[hold]
    expected = {d: float(agreed[held == d].mean()) for d in set(held.tolist())}
    assert len({round(v, 4) for v in expected.values()}) > 1  # the decisions' agreements differ
    got = {d: r["agreement"] for d, r in report["holdout_agreement_by_decision"].items()}
    assert got == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(("decisions", "teacher_spec", "message"), [
    ({"statistics": "heuristic"}, "heuristic", "travel_earth_v0 has no decision 'statistics'; its decisions are add, "
                                               "play, declare, statistic, defender, change, pay"),
    ({"statistic": "heuristic"}, "", "pretrain.teacher is empty: set the policy that teaches the others"),
    ({"statistic": "grandmaster"}, "heuristic", "no policy registered as 'travel_earth_v0/grandmaster'"),
])
def test_a_run_refuses_decisions_it_cannot_teach_before_its_folder_changes(tmp_path, decisions, teacher_spec, message):
    run = tmp_path / "run"
    cfg = load_config(data={"env": "travel_earth_v0", "pretrain": {"teacher": teacher_spec, "decisions": decisions},
                            "output": {"dir": str(run), "progress_bar": False}})
    with pytest.raises(TabletopError, match=message):
        train(cfg)
    assert not run.exists()


def test_a_warm_start_with_a_decision_teacher_records_who_taught_what(tmp_path, monkeypatch):
    import training.pretrain as pretrain

    cfg = load_config(data={"env": "travel_earth_v0", "seed": 3,
                            "ppo": {"n_steps": 64, "batch_size": 64, "net_arch": [16]}, "vec": {"n_envs": 1},
                            "pretrain": {"teacher": "random", "decisions": {"statistic": "heuristic"}, "games": 2,
                                         "epochs": 1},
                            "output": {"dir": str(tmp_path / "run"), "tensorboard": False}})
    model = build_model(cfg, make_vec_env(cfg, OpponentPool("travel_earth_v0", 1.0, 0.0)), tmp_path)
    seen = {}
    original = pretrain.collect
    monkeypatch.setattr(pretrain, "collect", lambda *a, **k: seen.update(k) or original(*a, **k))
    report = warm_start(model, cfg, log=lambda *_: None)
    assert report["decision_teachers"] == {"statistic": "heuristic"} and report["teacher"] == "random"
    assert type(seen["decision_teachers"]["statistic"]).__name__ == type(
        policy_module.load_policy("travel_earth_v0/heuristic")).__name__
    assert "statistic" in report["holdout_agreement_by_decision"]


def test_a_game_that_lists_no_decisions_refuses_decision_teachers_naming_the_fix(toy, toy_teacher, tmp_path):
    run = tmp_path / "run"
    cfg = load_config(data={**TINY, "pretrain": {"teacher": toy_teacher, "decisions": {"move": "random"}},
                            "output": {**TINY["output"], "dir": str(run)}})
    with pytest.raises(TabletopError, match=r"toy_v0's game does not list its decisions \(Game.decisions"):
        train(cfg)
    assert not run.exists()


def test_a_warm_start_collects_and_clones_with_the_recipes_settings(toy, toy_teacher, tmp_path, monkeypatch):
    # each pretrain.* key (and ppo.gamma, env_kwargs.max_turns) reaches collect or clone, not their defaults; the
    # games are dealt from seed + 7, the deals the shipped models were warm-started from
    import training.pretrain as pretrain

    cfg = load_config(data={**TINY, "seed": 5, "env_kwargs": {"max_turns": 4},
                            "ppo": {**TINY["ppo"], "gamma": 0.5},
                            "pretrain": {"teacher": toy_teacher, "games": 10, "epochs": 1, "vs_random_share": 0.75,
                                         "batch_size": 7, "vf_coef": 0.25, "learning_rate": 0.002},
                            "output": {"dir": str(tmp_path / "run"), "tensorboard": False}})
    model = build_model(cfg, make_vec_env(cfg, OpponentPool(toy, 1.0, 0.0)), tmp_path)
    seen = {}
    real_collect, real_clone = pretrain.collect, pretrain.clone
    monkeypatch.setattr(pretrain, "collect", lambda *a, **k: seen.update(collect=k) or real_collect(*a, **k))
    monkeypatch.setattr(pretrain, "clone", lambda *a, **k: seen.update(clone=k) or real_clone(*a, **k))
    warm_start(model, cfg, log=lambda *_: None)
    assert {k: seen["collect"][k] for k in ("seed", "gamma", "vs_random_share", "max_turns")} == {
        "seed": 12, "gamma": 0.5, "vs_random_share": 0.75, "max_turns": 4}
    assert {k: seen["clone"][k] for k in ("batch_size", "vf_coef", "learning_rate", "epochs", "seed")} == {
        "batch_size": 7, "vf_coef": 0.25, "learning_rate": 0.002, "epochs": 1, "seed": 5}


def test_the_pretrain_command_clones_the_heuristic_where_the_recipe_names_no_teacher(toy, teacher, monkeypatch):
    # only the command's refusals were tested: its default teacher is the game's heuristic bot
    import training.pretrain as pretrain

    monkeypatch.setitem(policy_module._POLICIES, "toy_v0/heuristic", lambda **kw: teacher)
    teachers = []

    def recorded(model, cfg, log=print):
        teachers.append(cfg.pretrain.teacher)
        return {}

    monkeypatch.setattr(pretrain, "warm_start", recorded)
    report = pretrain.main(["--set", "env=toy_v0", "--set", "ppo.net_arch=[16]", "--set", "eval.opponents=[random]",
                            "--games", "2"])
    assert teachers == ["heuristic"] and set(report["evaluation"]) == {"vs_random"}


def test_the_pretrain_command_clones_the_teacher_the_recipe_names(toy, monkeypatch):
    import training.pretrain as pretrain

    teachers = []

    def recorded(model, cfg, log=print):
        teachers.append(cfg.pretrain.teacher)
        return {}

    monkeypatch.setattr(pretrain, "warm_start", recorded)
    pretrain.main(["--set", "env=toy_v0", "--set", "ppo.net_arch=[16]", "--set", "eval.opponents=[random]",
                   "--set", "pretrain.teacher=random", "--games", "2"])
    assert teachers == ["random"]


@pytest.mark.parametrize("deterministic, act", [("true", "argmax"), ("false", "sample")])
def test_the_pretrain_command_evaluates_the_clone_as_a_runs_final_evaluation_does(toy, monkeypatch, deterministic,
                                                                                   act):
    # on the run's evaluation deals (seed + 1000), and playing as eval.deterministic says the shipped policy plays
    import training.evaluate
    import training.pretrain as pretrain

    monkeypatch.setattr(pretrain, "warm_start", lambda *a, **k: {})
    seen = {}

    def evaluation(env, learner, games, seed, anchors, game_kwargs, max_turns, act):
        seen.update(seed=seed, act=act, games=games, deterministic=learner.deterministic)
        return {"vs_random": {"win": {"rate": 0.5}}}

    monkeypatch.setattr(training.evaluate, "anchor_evaluation", evaluation)
    pretrain.main(["--set", "env=toy_v0", "--set", "seed=4", "--set", "ppo.net_arch=[16]", "--set",
                   "eval.opponents=[random]", "--set", f"eval.deterministic={deterministic}", "--games", "3"])
    assert seen == {"seed": 1004, "act": act, "games": 3, "deterministic": deterministic == "true"}
