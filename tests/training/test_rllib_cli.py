"""The RLlib trainer's recipe and command line, checked without ray installed (the training itself is
tested in tests/distributed)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from extras import needs_onnx

from tabletop_envs import ConfigError
from training.rllib_train import load_rllib_config, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["''", "a/b", "ppo.v2"])
def test_rllib_output_name_must_be_a_plain_file_stem(name):
    with pytest.raises(ConfigError, match="output.name .* must be a plain file stem"):
        load_rllib_config(overrides=[f"output.name={name}"])


@pytest.mark.parametrize("name", ["run", "RUN"])
def test_rllib_output_name_of_the_runs_own_report_is_refused(name):
    # the exported sidecar run.json wrote over the run's run.json, which --export-checkpoint reads back
    with pytest.raises(ConfigError, match=r"output.name '(?i:run)' would write the exported sidecar over the run's "
                                          r"own run.json .*choose another name"):
        load_rllib_config(overrides=[f"output.name={name}"])
    assert load_rllib_config(overrides=["output.name=summary"]).output.name == "summary"  # no such report here


def test_rllib_output_dir_knows_only_env_and_seed():
    with pytest.raises(ConfigError, match=r"unknown placeholder \{name\}; the placeholders are \{env\}, \{seed\}"):
        load_rllib_config(overrides=["output.dir=runs/{name}"])
    assert str(load_rllib_config(overrides=["output.dir=runs/{env}-{seed}"]).run_dir()) == "runs/terralore_v0-0"


def _run_without_ray(*args: str) -> subprocess.CompletedProcess:
    # sys.modules[name] = None makes "import name" fail as if ray were not installed (whether it is or not)
    code = ("import sys; sys.modules['ray'] = None; sys.modules['ray.rllib'] = None\n"
            "from training.rllib_train import cli\n"
            f"sys.argv = ['rllib_train', *{list(args)!r}]\ncli()")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("extra", [[], ["--export-checkpoint", "runs/rllib/x/checkpoint_00001"]])
def test_rllib_train_without_ray_says_how_to_install_it_in_one_line(extra):
    out = _run_without_ray("--config", "configs/rllib_terralore.yaml", *extra)
    assert out.returncode == 2
    assert out.stderr.startswith("error: training.rllib_train needs Ray RLlib, which is not installed")
    assert "pip install -e '.[distributed]'" in out.stderr and out.stderr.count("\n") == 1


@pytest.mark.parametrize(("version", "untested"), [("2.40.0", True), ("2.49.9", True), ("2.50.1", False),
                                                  ("2.60.0", False), ("2.61.0", True), ("3.0.0.dev0", True)])
def test_a_ray_outside_the_tested_releases_is_named_in_a_note_with_the_release_to_install(
        monkeypatch, capsys, version, untested):
    # a Ray installed without the extra's pin (its own venv, a cluster image) ran unchecked
    import types

    from training.rllib_train import require_ray

    fake = types.ModuleType("ray")
    fake.__version__ = version
    fake.rllib = types.ModuleType("ray.rllib")
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setitem(sys.modules, "ray.rllib", fake.rllib)
    require_ray()
    require_ray()  # the command line and train() both ask: one note
    err = capsys.readouterr().err
    if untested:
        assert err == (f"note: ray {version} is outside the releases training.rllib_train is tested with (2.50-2.60); "
                       "if RLlib fails below, install one of them: pip install 'ray[rllib]==2.60.0'\n")
    else:
        assert err == ""


def test_a_cluster_address_where_nothing_answers_is_an_error_naming_it_at_once():
    # a typo in the head's IP: Ray retried it for minutes (over 150 s) before its ConnectionError
    import socket

    from tabletop_envs.core.errors import TabletopError
    from training.rllib_train import check_reachable

    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        check_reachable(f"127.0.0.1:{listening.getsockname()[1]}")  # a head that answers
        closed = listening.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(TabletopError, match=rf"^cannot join the Ray cluster at '127.0.0.1:{closed}' \(nothing answers "
                                            r"there: .*\): start it first \(ray start --head .*--address local\)$"):
        check_reachable(f"127.0.0.1:{closed}")
    assert time.monotonic() - started < 5
    for left_to_ray in ("auto", "ray://127.0.0.1:1", "localhost"):
        check_reachable(left_to_ray)


def test_the_tested_ray_releases_are_the_distributed_extras_pin_wherever_they_are_named():
    # three places name them (pyproject's pin, the trainer's note, the adapter's import error): a bumped pin
    # left the others naming the old range
    import re

    from training.rllib_train import TESTED_RAY

    root = Path(__file__).resolve().parents[2]
    pin = re.search(r"ray\[rllib\]>=(\d+)\.(\d+),<(\d+)\.(\d+)", (root / "pyproject.toml").read_text(encoding="utf-8"))
    low, (high_major, below_minor) = tuple(map(int, pin.groups()[:2])), map(int, pin.groups()[2:])
    assert TESTED_RAY == (low, (high_major, below_minor - 1))
    (lo_major, lo_minor), (hi_major, hi_minor) = TESTED_RAY
    adapter = (root / "tabletop_envs" / "rllib_adapter.py").read_text(encoding="utf-8")
    assert f"needs Ray RLlib {lo_major}.{lo_minor}-{hi_major}.{hi_minor}, " in adapter


def test_rllib_recipe_mistakes_are_reported_without_ray():
    out = _run_without_ray("--config", "configs/rllib_terralore.yaml", "--set", "iteration=3")
    assert out.returncode == 2 and "unknown key 'iteration'. Did you mean 'iterations'?" in out.stderr


def test_rllib_unknown_key_points_to_the_rllib_key_list(capsys):
    # it pointed to python -m training.config, which lists the SB3 recipe's keys only
    with pytest.raises(ConfigError, match=r"unknown key 'env_runners.num_env_runner'.*"
                                          r"\(python -m training.rllib_train --keys lists them all\)"):
        load_rllib_config(data={"env_runners": {"num_env_runner": 2}})
    main(["--keys"])
    table = capsys.readouterr().out
    assert "`env_runners.num_env_runners`" in table and "`selfplay.frozen_update_every`" in table
    assert "`vec.n_envs`" not in table  # an SB3 recipe key


def test_rllib_config_errors_still_point_sb3_users_to_training_config():
    from training.config import load_config

    with pytest.raises(ConfigError, match=r"\(python -m training.config lists them all\)"):
        load_config(data={"ppo": {"n_step": 3}})


def test_rllib_draw_reward_for_a_one_seat_game_is_refused_before_ray_starts():
    with pytest.raises(ConfigError, match=r"selfplay.draw_reward -0.5: earth_v0 with 1 player is never drawn .*"
                                          r"set selfplay.draw_reward=0"):
        load_rllib_config(data={"env": "earth_v0", "env_kwargs": {"num_players": 1}, "selfplay": {"draw_reward": -0.5}})
    assert load_rllib_config(data={"env": "earth_v0", "env_kwargs": {"num_players": 2},
                                   "selfplay": {"draw_reward": -0.5}}).selfplay.draw_reward == -0.5


def test_rllib_draw_reward_is_a_recipe_key_within_a_loss_and_a_win():
    with pytest.raises(ConfigError, match=r"selfplay.draw_reward.* must be >= -1"):
        load_rllib_config(overrides=["selfplay.draw_reward=-2"])
    out = _run_without_ray("--keys")
    assert out.returncode == 0 and "`selfplay.draw_reward`" in out.stdout, out.stderr


def test_progress_rows_after_a_resumed_checkpoint_go_to_a_file_of_their_own_each_time(tmp_path):
    # appended to one file, the rows of two abandoned parts (or of two runs) mixed there
    import json

    from training.config import set_aside_earlier_run
    from training.rllib_train import RLLIB_RUN_FILES, RLLIB_RUN_GLOBS, set_aside_progress_after

    progress = tmp_path / "progress.jsonl"
    rows = [json.dumps({"iteration": i, "part": "first"}) for i in (1, 2, 3)]
    progress.write_text("\n".join(rows) + "\n", encoding="utf-8")
    said = []
    set_aside_progress_after(progress, 2, said.append)
    assert progress.read_text(encoding="utf-8").splitlines() == rows[:2]
    assert (tmp_path / "progress.after-2.jsonl").read_text(encoding="utf-8").splitlines() == rows[2:]
    assert said == ["progress.jsonl held 1 rows of iterations after the checkpoint's 2: moved to progress.after-2.jsonl"]
    again = json.dumps({"iteration": 3, "part": "second"})
    progress.write_text("\n".join(rows[:2] + [again]) + "\n", encoding="utf-8")
    set_aside_progress_after(progress, 2, said.append)
    assert (tmp_path / "progress.after-2-2.jsonl").read_text(encoding="utf-8").splitlines() == [again]
    assert (tmp_path / "progress.after-2.jsonl").read_text(encoding="utf-8").splitlines() == rows[2:]
    set_aside_progress_after(progress, 5, said.append)  # nothing after 5: nothing moves
    assert len(said) == 2
    # a fresh run sets them aside with the rest of the run (the trainer's globs)
    aside = set_aside_earlier_run(tmp_path, "rllib_ppo", files=RLLIB_RUN_FILES, globs=RLLIB_RUN_GLOBS)
    assert sorted(p.name for p in aside.iterdir()) == ["progress.after-2-2.jsonl", "progress.after-2.jsonl",
                                                       "progress.jsonl"]


def test_rllib_progress_rows_that_name_no_iteration_stay_and_a_missing_progress_file_stays_missing(tmp_path):
    # a row cut short by a crash, or a line that is no row, names no iteration: it stays (readers skip it) while the
    # rows after the checkpoint still move; a folder whose progress.jsonl is gone resumes in place without one
    import json

    from training.rllib_train import set_aside_progress_after

    progress = tmp_path / "progress.jsonl"
    said = []
    set_aside_progress_after(progress, 2, said.append)
    assert list(tmp_path.iterdir()) == [] and said == []
    rows = [json.dumps({"iteration": 1}), json.dumps({"iteration": 2}), "[3]", json.dumps({"iteration": 3}),
            '{"iteration": 4, "env_st']
    progress.write_text("\n".join(rows), encoding="utf-8")
    set_aside_progress_after(progress, 2, said.append)
    assert progress.read_text(encoding="utf-8").splitlines() == rows[:3] + rows[4:]
    assert (tmp_path / "progress.after-2.jsonl").read_text(encoding="utf-8").splitlines() == [rows[3]]


def test_rllib_a_cut_short_last_progress_row_with_nothing_after_the_checkpoint_ends_its_line(tmp_path):
    # found by a coverage audit: nothing moved, so the file was left as it was, and the resumed run's first row,
    # appended, ended the cut-short line, where no reader finds it (--export-checkpoint recorded 0 env steps)
    import json

    from training.rllib_train import _steps_at, set_aside_progress_after

    progress = tmp_path / "progress.jsonl"
    progress.write_text(json.dumps({"iteration": 1, "env_steps_sampled": 100}) + '\n{"iteration": 2, "env_st',
                        encoding="utf-8")
    set_aside_progress_after(progress, 1, lambda line: None)
    with open(progress, "a", encoding="utf-8") as f:  # as the resumed run writes its rows
        f.write(json.dumps({"iteration": 2, "env_steps_sampled": 200}) + "\n")
    assert (_steps_at(tmp_path, 1), _steps_at(tmp_path, 2)) == (100, 200)
    assert not list(tmp_path.glob("progress.after-*"))


def _checkpoint_with_env_config(folder, env_config):
    """A checkpoint folder holding only what check_checkpoint_game reads without a run.json: the algorithm's
    config (RLlib's class_and_ctor_args.pkl), whose env_config is what the trainer passed the envs."""
    import pickle

    folder.mkdir()
    with open(folder / "class_and_ctor_args.pkl", "wb") as f:
        pickle.dump({"class": object, "ctor_args_and_kwargs": (({"env_config": env_config},), {})}, f)
    return folder


@pytest.mark.parametrize(("trainer_keys", "recipe"), [
    ({"max_turns": 60, "illegal_action": "penalty"}, {"env_kwargs": {"max_turns": 60}, "illegal_action": "penalty"}),
    ({"max_turns": 60, "illegal_action": "penalty"}, {}),  # a turn limit is no game option
    ({"illegal_action": "raise", "draw_reward": -0.5}, {"selfplay": {"draw_reward": -0.5}}),
], ids=["turn_limit", "other_turn_limit", "draw_reward"])
def test_rllib_a_checkpoint_without_its_run_json_is_judged_by_its_game_options_not_the_keys_the_trainer_adds(
        tmp_path, trainer_keys, recipe):
    # A checkpoint copied out of its run folder is checked against the env config it holds, which also has the
    # keys the trainer passes the envs (max_turns, illegal_action, selfplay.draw_reward): no game options.
    # "draw_reward" was taken for one, so --resume / --export-checkpoint refused a draw_reward run's checkpoint
    # even with the very --set options it was started with.
    from training.rllib_train import check_checkpoint_game

    checkpoint = _checkpoint_with_env_config(tmp_path / "checkpoint_00001", {"env": "terralore_v0", **trainer_keys})
    out = {"output": {"dir": str(tmp_path / "out")}}
    check_checkpoint_game(load_rllib_config(data={**recipe, **out}), checkpoint)  # the recipe's game: no error
    with pytest.raises(ConfigError, match=r"was trained with game_config \{\} of terralore_v0 \(its own env config"):
        check_checkpoint_game(load_rllib_config(data={**recipe, **out, "env_kwargs": {
            **recipe.get("env_kwargs", {}), "decks": ["tidal_fortress", "ember_rush"]}}), checkpoint)


def test_rllib_a_checkpoint_without_run_json_that_no_run_of_this_trainer_saved_is_refused_naming_it(tmp_path):
    # the game is then read from the checkpoint's own algorithm config: a folder without one met an OSError, and
    # another trainer's (an env config without this trainer's "env" key) a KeyError
    from training.rllib_train import check_checkpoint_game

    cfg = load_rllib_config(data={"output": {"dir": str(tmp_path / "out")}})
    (tmp_path / "checkpoint_00001").mkdir()
    with pytest.raises(ConfigError, match=r"checkpoint_00001 is not an RLlib checkpoint of this trainer "
                                          r"\(class_and_ctor_args.pkl: .*No such file.*\); pass a "
                                          r"checkpoint_<iteration> folder of a training.rllib_train run"):
        check_checkpoint_game(cfg, tmp_path / "checkpoint_00001")
    other = _checkpoint_with_env_config(tmp_path / "other", {"num_players": 2})
    with pytest.raises(ConfigError, match=r"other is an RLlib checkpoint of another trainer \(its env config names "
                                          r"no registered env\); pass a checkpoint_<iteration> folder"):
        check_checkpoint_game(cfg, other)


def test_rllib_a_crashed_runs_half_written_progress_row_does_not_stop_its_checkpoints_export(tmp_path):
    # --export-checkpoint, the rescue of a crashed run, reads the checkpoint's env steps from progress.jsonl; a
    # last row cut short (a run killed or out of disk while writing it) failed it with a bare JSON error naming
    # no file. Such a row is skipped, as set_aside_progress_after skips it.
    from training.rllib_train import _steps_at

    (tmp_path / "progress.jsonl").write_text('{"iteration": 1, "env_steps_sampled": 257}\n'
                                             '{"iteration": 2, "env_steps_sa', encoding="utf-8")
    assert _steps_at(tmp_path, 1) == 257
    assert _steps_at(tmp_path, 2) == 0  # unknown, as for a run without progress.jsonl


@pytest.mark.parametrize(("key", "value", "message"), [
    ("illegal_action", "penalty", r"env_kwargs.illegal_action is set by the trainer; use the top-level key instead"),
    ("render_mode", "human", r"env_kwargs.render_mode: no rendering in training"),
])
def test_rllib_env_kwargs_that_the_trainer_sets_are_refused_naming_the_key(key, value, message):
    # without the check, render_mode=human built fine (every env runner would open a window) and
    # illegal_action failed as "got multiple values for keyword argument"
    with pytest.raises(ConfigError, match=message):
        load_rllib_config(data={"env_kwargs": {key: value}})


def test_rllib_a_minibatch_as_large_as_the_train_batch_is_accepted_and_one_step_larger_is_not():
    cfg = load_rllib_config(data={"ppo": {"minibatch_size": 512, "train_batch_size_per_learner": 512}})
    assert cfg.ppo.minibatch_size == cfg.ppo.train_batch_size_per_learner == 512
    with pytest.raises(ConfigError, match="ppo.minibatch_size 513 exceeds ppo.train_batch_size_per_learner 512"):
        load_rllib_config(data={"ppo": {"minibatch_size": 513, "train_batch_size_per_learner": 512}})


@pytest.mark.parametrize("hiddens", [[], [64, 0], [-8]])
def test_rllib_fcnet_hiddens_must_be_a_non_empty_list_of_positive_sizes(hiddens):
    with pytest.raises(ConfigError, match=r"model.fcnet_hiddens must be a non-empty list of positive sizes"):
        load_rllib_config(data={"model": {"fcnet_hiddens": hiddens}})


def test_rllib_the_largest_seed_numpy_takes_after_the_runner_offset_is_accepted():
    # RLlib seeds runner w with seed + w, which NumPy takes up to 2**32 - 1: with 1 runner 2**32 - 2 is the
    # largest seed, with 3 runners 2**32 - 4
    assert load_rllib_config(data={"seed": 2**32 - 2}).seed == 2**32 - 2
    assert load_rllib_config(data={"seed": 2**32 - 4, "env_runners": {"num_env_runners": 3}}).seed == 2**32 - 4
    with pytest.raises(ConfigError, match="seed 4294967293 is too large.*at most 4294967292"):
        load_rllib_config(data={"seed": 2**32 - 3, "env_runners": {"num_env_runners": 3}})


def test_rllib_a_local_ray_exactly_as_large_as_the_recipes_actors_is_enough():
    # no error is the outcome: a refusal here would stop a recipe that fits (2 runners x 1 CPU on 2 CPUs; or
    # 1 runner + 1 learner)
    load_rllib_config(data={"env_runners": {"num_env_runners": 2}, "ray": {"num_cpus": 2}}).check_local_resources()
    load_rllib_config(data={"env_runners": {"num_env_runners": 1}, "learners": {"num_learners": 1},
                            "ray": {"num_cpus": 2}}).check_local_resources()


def test_rllib_a_gpu_learner_on_a_machine_without_a_gpu_is_refused_before_ray_waits_for_it(monkeypatch):
    torch = pytest.importorskip("torch")
    cfg = load_rllib_config(data={"learners": {"num_learners": 1, "num_gpus_per_learner": 1}, "ray": {"num_cpus": 3}})
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    with pytest.raises(ConfigError, match=r"learners.num_gpus_per_learner=1 but this machine has no GPU torch can use"):
        cfg.check_local_resources()
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    cfg.check_local_resources()  # one GPU: the learner gets it


def test_rllib_progress_rows_take_rllibs_lifetime_counts_as_plain_numbers():
    # the per-iteration counts (num_env_steps_sampled, num_episodes) would make progress.jsonl's steps and
    # episodes those of the last iteration only; RLlib reports numpy scalars, which json cannot write
    import json

    import numpy as np

    from training.rllib_train import iteration_metrics

    result = {"training_iteration": 3, "time_this_iter_s": 1.5,
              "env_runners": {"num_env_steps_sampled_lifetime": np.int64(768), "num_env_steps_sampled": 256,
                              "num_agent_steps_sampled_lifetime": 999, "num_episodes_lifetime": 30,
                              "num_episodes": 9, "episode_len_mean": np.float32(25.5),
                              "module_episode_returns_mean": {"main": np.float32(0.25)}},
              "timers": {"env_runner_sampling_timer": 0.75}}
    row = iteration_metrics(result)
    assert row == {"iteration": 3, "env_steps_sampled": 768, "env_steps_this_iter": 256, "episodes": 30,
                   "episode_len_mean": 25.5, "module_return_mean": {"main": 0.25}, "sample_time_s": 0.75,
                   "iteration_time_s": 1.5}
    assert json.loads(json.dumps(row)) == row
    assert iteration_metrics({"training_iteration": 1})["env_steps_sampled"] is None  # a result without runners


def test_rllib_a_checkpoints_env_steps_are_those_of_its_own_iteration_not_the_runs_last(tmp_path):
    # --export-checkpoint of checkpoint_00002 of a 3-iteration run must record the steps sampled up to
    # iteration 2 in the sidecar
    import json

    from training.rllib_train import _steps_at

    rows = [{"iteration": i, "env_steps_sampled": 256 * i} for i in (1, 2, 3)]
    (tmp_path / "progress.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert (_steps_at(tmp_path, 2), _steps_at(tmp_path, 3)) == (512, 768)
    assert _steps_at(tmp_path, 7) == 0 and _steps_at(tmp_path / "nowhere", 2) == 0  # unknown: 0


def test_rllib_train_without_a_recipe_says_so_instead_of_training_the_defaults(capsys):
    with pytest.raises(SystemExit) as exit_:
        main([])
    assert exit_.value.code == 2 and "the following arguments are required: --config" in capsys.readouterr().err


def test_rllib_a_checkpoint_state_file_that_fails_to_unpickle_in_any_way_is_named_as_damaged(tmp_path):
    # a byte changed inside a state file fails its unpickling with whatever error it meets (here an unknown module,
    # not an UnpicklingError): refused naming the file, before Ray starts, not met by RLlib's restore
    import pickle
    from collections import OrderedDict

    from training.rllib_train import check_checkpoint_loads

    state = tmp_path / "checkpoint_00001" / "algorithm_state.pkl"
    state.parent.mkdir()
    state.write_bytes(pickle.dumps(OrderedDict(a=1)).replace(b"collections", b"collectionz"))
    with pytest.raises(ConfigError, match=r"algorithm_state.pkl cannot be read \(UnpicklingError: "
                                          r"ModuleNotFoundError: No module named 'collectionz'\); it is damaged"):
        check_checkpoint_loads(state.parent)


def test_frozen_mode_seats_main_in_every_seat_of_a_larger_table():
    # found by a seat audit: main drawn from the first two seats alone passed at two seats, and no test asked
    from training.rllib_train import main_seat

    for num_players in (3, 5):
        assert {main_seat(f"episode-{i}", num_players) for i in range(200)} == set(range(num_players))


@needs_onnx
def test_the_end_of_run_evaluation_at_three_seats_wins_when_the_model_ranks_above_its_paired_random_seat(
        tmp_path, monkeypatch):
    # as training.train's evaluations (training.evaluate.play_pair): a model always picking 2 in the three-seat
    # picks game draws where the random seat it is paired with picks 2 too (1 in 3) and wins otherwise, whatever
    # the third seat picks. Counted as a match against two random seats, a draw came whenever either of them
    # picked 2 (5 in 9), and a model playing as well as random "won" about 1 in 3 where a pair gives a half
    import numpy as np
    import three_seat_game

    from training.export import export_policy
    from training.rllib_train import evaluate_export

    three_seat_game.register(monkeypatch)
    cfg = load_rllib_config(data={"env": "picks_v0", "eval": {"opponents": ["random"]},
                                  "output": {"dir": str(tmp_path), "eval_games": 120}})
    bias = np.array([0.0, 0.0, 5.0])
    path = export_policy([(np.zeros((3, 3)), bias)], "tanh", tmp_path / "m", "picks_v0")
    result = evaluate_export(cfg, path, 120)["vs_random"]
    assert result["games"] == 120 and result["loss"]["rate"] == 0
    assert abs(result["draw"]["rate"] - 1 / 3) < 0.1, result


@needs_onnx
def test_the_rllib_export_is_evaluated_against_random_and_the_heuristic_as_training_trains_are(tmp_path):
    # only random was played: an RLlib-trained agent had no rate against the heuristic bot to set beside the SB3
    # recipes', whose sidecars hold both
    import json

    import numpy as np

    from tabletop_envs import load_policy
    from tabletop_envs.core.registry import make_game
    from training.evaluate import anchor_evaluation
    from training.export import export_policy
    from training.rllib_train import evaluate_export

    cfg = load_rllib_config(data={"env": "terralore_v0", "output": {"dir": str(tmp_path), "eval_games": 4}})
    assert cfg.eval.opponents == ["random", "heuristic"]
    game = make_game("terralore_v0")
    rng = np.random.default_rng(0)
    path = export_policy([(rng.normal(size=(game.observation_layout.size, game.num_actions)),
                           rng.normal(size=game.num_actions))], "tanh", tmp_path / "m", "terralore_v0")
    result = evaluate_export(cfg, path, 4)
    again = anchor_evaluation("terralore_v0", load_policy(str(path)), 4, seed=cfg.seed + 1)
    assert result == again and set(result) == {"vs_random", "vs_heuristic", "protocol"}
    assert json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["evaluation"] == result


def test_rllib_eval_games_without_anchors_or_with_two_under_one_name_are_refused():
    with pytest.raises(ConfigError, match=r"eval.opponents is empty: name the anchors"):
        load_rllib_config(overrides=["output.eval_games=10", "eval.opponents=[]"])
    with pytest.raises(ConfigError, match=r"eval.opponents: 'random' and 'random' would both be reported as vs_random"):
        load_rllib_config(overrides=["output.eval_games=10", "eval.opponents=[random,random]"])
    assert load_rllib_config(overrides=["eval.opponents=[]"]).output.eval_games == 0  # nothing to play: fine


def test_an_rllib_anchor_that_cannot_play_the_game_is_refused_before_the_run_not_after_it(toy):
    # found only when the trained export was evaluated, after the whole run: a game of one's own has no heuristic
    with pytest.raises(ConfigError, match=r"eval.opponents: 'heuristic' cannot play toy_v0 .*fix the name or path in "
                                          r"eval.opponents"):
        load_rllib_config(data={"env": "toy_v0", "output": {"eval_games": 10}})
    assert load_rllib_config(data={"env": "toy_v0", "eval": {"opponents": ["random"]}, "output": {"eval_games": 10}})


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_stop_signal_asks_the_rllib_run_to_stop_after_its_iteration_and_a_second_one_aborts(capfd):
    from training.rllib_train import stop_after_the_iteration

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    with stop_after_the_iteration() as stop:
        assert stop.signum is None
        signal.raise_signal(signal.SIGTERM)  # a scheduler's time limit: asked, nothing raised
        assert stop.signum == signal.SIGTERM
        assert "SIGTERM: the run stops once this iteration has ended" in capfd.readouterr().err
        with pytest.raises(KeyboardInterrupt):  # the second, of any of the three: abort at once
            signal.raise_signal(signal.SIGINT)
    assert {sig: signal.getsignal(sig) for sig in before} == before


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_signal_ignored_before_the_rllib_run_stays_ignored(monkeypatch):
    from training.rllib_train import stop_after_the_iteration

    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nohup
    try:
        with stop_after_the_iteration() as stop:
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            signal.raise_signal(signal.SIGHUP)
            assert stop.signum is None
    finally:
        signal.signal(signal.SIGHUP, previous)


@pytest.mark.parametrize("interrupted, status", [(False, 0), (True, 130)])
def test_the_rllib_command_ends_a_run_stopped_early_with_the_interrupts_status(monkeypatch, interrupted, status):
    import training.rllib_train as rllib_train

    monkeypatch.setattr(rllib_train, "main", lambda argv: {"interrupted": interrupted})
    with pytest.raises(SystemExit) as exit_info:
        rllib_train.cli()
    assert exit_info.value.code == status


def _ray_handler(signum, frame):
    """The SIGTERM handler ray.init installs: it exits at once, with the signal's number as the status."""
    sys.exit(signum)


def test_the_commands_sigterm_handler_outlives_ray_init_and_the_default_is_left_to_ray():
    # ray.init put in its own handler, which exits at once with status 15 and not a word: a SIGTERM while the run
    # started, exported or evaluated (outside the iterations) ended it so, and training.train's ended with 130
    from training.rllib_train import sigterm_handler_kept
    from training.train import sigterm_as_interrupt

    before = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with sigterm_as_interrupt():
            command = signal.getsignal(signal.SIGTERM)
            with sigterm_handler_kept():
                signal.signal(signal.SIGTERM, _ray_handler)
            assert signal.getsignal(signal.SIGTERM) is command
            with pytest.raises(KeyboardInterrupt):
                signal.raise_signal(signal.SIGTERM)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with sigterm_handler_kept():  # train() called in-process, no handler of the caller: Ray's shuts Ray down
            signal.signal(signal.SIGTERM, _ray_handler)
        assert signal.getsignal(signal.SIGTERM) is _ray_handler
    finally:
        signal.signal(signal.SIGTERM, before)


def test_a_sigterm_while_ray_starts_ends_the_rllib_command_as_ctrl_c_does():
    # ray.init puts its handler in at its first lines and takes seconds to start Ray: a SIGTERM then exited with
    # status 15 and not a word, where one before or after it ends the command with 'interrupted' and 130
    from training.rllib_train import sigterm_handler_kept
    from training.train import sigterm_as_interrupt

    before = signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with sigterm_as_interrupt(), pytest.raises(KeyboardInterrupt), sigterm_handler_kept():
            signal.signal(signal.SIGTERM, _ray_handler)
            signal.raise_signal(signal.SIGTERM)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with pytest.raises(SystemExit), sigterm_handler_kept():  # train() called in-process: Ray's exit, as Ray has it
            signal.signal(signal.SIGTERM, _ray_handler)
            signal.raise_signal(signal.SIGTERM)
    finally:
        signal.signal(signal.SIGTERM, before)
