"""The RLlib trainer's recipe and command line, checked without ray installed (the training itself is
tested in tests/distributed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_envs import ConfigError
from training.rllib_train import load_rllib_config, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["''", "a/b", "ppo.v2"])
def test_rllib_output_name_must_be_a_plain_file_stem(name):
    with pytest.raises(ConfigError, match="output.name .* must be a plain file stem"):
        load_rllib_config(overrides=[f"output.name={name}"])


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


def test_rllib_a_crashed_runs_half_written_progress_row_does_not_stop_its_checkpoints_export(tmp_path):
    # --export-checkpoint, the rescue of a crashed run, reads the checkpoint's env steps from progress.jsonl; a
    # last row cut short (a run killed or out of disk while writing it) failed it with a bare JSON error naming
    # no file. Such a row is skipped, as set_aside_progress_after skips it.
    from training.rllib_train import _steps_at

    (tmp_path / "progress.jsonl").write_text('{"iteration": 1, "env_steps_sampled": 257}\n'
                                             '{"iteration": 2, "env_steps_sa', encoding="utf-8")
    assert _steps_at(tmp_path, 1) == 257
    assert _steps_at(tmp_path, 2) == 0  # unknown, as for a run without progress.jsonl
