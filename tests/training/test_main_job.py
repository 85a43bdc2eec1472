"""The README's first command, shrunk: the main job trains (warm start + PPO), exports and plays the round robin."""

from __future__ import annotations

import json

import pytest

from tabletop_envs import ConfigError, load_policy

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

from training.main_job import main  # noqa: E402


def test_the_main_job_trains_exports_and_ranks_the_new_agent_against_the_shipped_opponents(tmp_path, capsys):
    run = tmp_path / "main"
    result = main(["--set", "ppo.total_timesteps=512", "--set", "pretrain.games=30", "--set", "pretrain.epochs=1",
                   "--set", "eval.every=512", "--set", "eval.games=4", "--set", "output.tensorboard=false",
                   "--set", "output.progress_bar=false", "--set", f"output.dir={run}", "--games", "4"])
    out = capsys.readouterr().out
    assert "[pretrain]" in out and "[3/3] summary" in out and "| new agent | heuristic |" in out
    assert result["steps"] >= 512
    assert set(result["round_robin"]["policies"]) == {"new agent", "random", "heuristic", "ppo"}
    assert {pair["games"] for pair in result["round_robin"]["pairs"]} == {4}  # --games 4 per pair
    assert json.loads((run / "pretrain.json").read_text(encoding="utf-8"))["games"] == 30
    assert (run / "main_job.md").exists() and (run / "elo.png").exists()
    assert load_policy(result["exported"]).metadata["env_id"] == "terralore_v0"
    # with TensorBoard off it printed a tensorboard command for a tb/ folder it never wrote
    assert "TensorBoard" not in out and not (run / "tb").exists()
    assert f"learning curve: {run / 'learning_curve.png'}" in out and (run / "learning_curve.png").is_file()


@pytest.mark.parametrize(("argv", "message"), [
    (["--set", "output.export=false"], "the main job plays the exported agent .* output.export must be true"),
    (["--games", "0"], "the number of games must be a positive integer, got 0"),
    (["--set", "env=earth_v0", "--set", "env_kwargs={num_players: 1}"], "earth_v0 with 1 player has one seat"),
])
def test_the_main_job_refuses_what_its_round_robin_cannot_do_before_training(argv, message, monkeypatch):
    # output.export=false trained, then died with KeyError: 'exported'
    import training.main_job as main_job

    monkeypatch.setattr(main_job, "train", lambda *a, **k: pytest.fail("trained before refusing"))
    with pytest.raises(ConfigError, match=message):
        main(argv)


def test_the_one_seat_refusal_names_a_fix_the_main_job_takes(monkeypatch):
    # it said --env-kwargs '{"num_players": 2}', a flag of training.evaluate that the main job refuses
    import re

    import training.main_job as main_job

    argv = ["--set", "env=earth_v0", "--set", "env_kwargs={num_players: 1}"]
    with pytest.raises(ConfigError, match="has one seat") as caught:
        main(argv)
    fix = re.search(r"(--set \S+) \([^)]*training\.main_job", str(caught.value))
    assert fix, str(caught.value)

    class Trained(Exception):
        pass

    def trained(cfg, *args, **kwargs):
        assert cfg.env_kwargs["num_players"] == 2
        raise Trained

    monkeypatch.setattr(main_job, "train", trained)
    with pytest.raises(Trained):  # past every check, into the training
        main(argv + fix.group(1).split(" ", 1))


def test_the_command_the_main_job_records_names_its_recipe_and_every_override_each_as_one_word(tmp_path, monkeypatch):
    import shlex
    import shutil

    import training.main_job as main_job

    recipe = tmp_path / "my recipe.yaml"
    shutil.copy(main_job.DEFAULT_CONFIG, recipe)

    class Trained(Exception):
        pass

    def trained(cfg, command=None):
        raise Trained(command)

    monkeypatch.setattr(main_job, "train", trained)
    with pytest.raises(Trained) as caught:
        main(["--config", str(recipe), "--set", "seed=3", "--set", "eval.opponents=[random, heuristic]"])
    # pasted back into a shell, the command is the same one (an audit found the recipe's path split at its space)
    assert shlex.split(str(caught.value)) == ["python", "-m", "training.main_job", "--config", str(recipe),
                                              "--set", "seed=3", "--set", "eval.opponents=[random, heuristic]"]


def _train_by_copying_the_shipped_model(monkeypatch):
    # the round robin and the summary are what these tests check: the shipped model stands in for the new agent
    import shutil

    import training.main_job as main_job
    from tabletop_envs.core.onnx_policy import model_path_for_id

    shipped = model_path_for_id("terralore_v0/ppo")

    def train(cfg, command=None):
        run_dir = cfg.run_dir()
        run_dir.mkdir(parents=True)
        for suffix in (".onnx", ".npz", ".json"):
            shutil.copy(shipped.with_suffix(suffix), run_dir / f"new{suffix}")
        return {"run_dir": str(run_dir), "steps": 512, "train_seconds": 1.0, "exported": str(run_dir / "new.onnx")}

    monkeypatch.setattr(main_job, "train", train)


def test_the_main_job_leaves_the_shipped_ppo_out_of_its_round_robin_where_the_game_ships_none(tmp_path, monkeypatch):
    import tabletop_envs.core.onnx_policy as onnx_policy

    _train_by_copying_the_shipped_model(monkeypatch)
    monkeypatch.setattr(onnx_policy, "_model_roots", lambda: [tmp_path / "no models"])
    result = main(["--set", f"output.dir={tmp_path / 'main'}", "--set", "output.tensorboard=false", "--games", "2"])
    assert sorted(result["round_robin"]["policies"]) == ["heuristic", "new agent", "random"]


@pytest.mark.parametrize("tensorboard", [True, False])
def test_the_main_jobs_summary_ends_with_the_tensorboard_command_only_where_it_logged_to_tensorboard(
        tensorboard, tmp_path, monkeypatch, capsys):
    # this stand-in training draws no learning curve: with TensorBoard off nothing is left to name, not even a blank line
    _train_by_copying_the_shipped_model(monkeypatch)
    run = tmp_path / "main"
    main(["--set", f"output.dir={run}", "--set", f"output.tensorboard={str(tensorboard).lower()}", "--games", "2"])
    new = str(run / "new.onnx")
    last = f"TensorBoard: tensorboard --logdir {run / 'tb'}" if tensorboard else \
        f"exported policy: {new}  (tabletop_envs.load_policy({new!r}))"
    assert capsys.readouterr().out.splitlines()[-1] == last


def test_the_main_job_recipe_quotes_no_measured_numbers_that_drift():
    # it said "90.5 % vs random" and "in under a minute" long after either was true; the README has them
    from training.main_job import DEFAULT_CONFIG

    comments = [line for line in DEFAULT_CONFIG.read_text(encoding="utf-8").splitlines() if line.lstrip().startswith("#")]
    assert not [line for line in comments if "%" in line or "under a minute" in line]
    assert any("README" in line for line in comments)


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGKILL"), reason="POSIX signals")
def test_sigterm_stops_the_main_jobs_training_as_ctrl_c_does_and_the_job_goes_on(tmp_path):
    # the main job called train() without the trainer's SIGTERM handling: it died with no export or table
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    run = tmp_path / "main"
    argv = ["--set", "ppo.total_timesteps=10000000", "--set", "pretrain.games=30", "--set", "pretrain.epochs=1",
            "--set", "eval.every=10000000", "--set", "output.checkpoint_every=512", "--set", "output.tensorboard=false",
            "--set", "output.progress_bar=false", "--set", f"output.dir={run}", "--games", "4"]
    proc = subprocess.Popen([sys.executable, "-m", "training.main_job", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        deadline = time.monotonic() + 120
        while not list((run / "checkpoints").glob("step_*/state.json")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, proc.stdout.read()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0 and "interrupted at" in out and "| new agent | heuristic |" in out, out
    assert json.loads((run / "main_job.json").read_text(encoding="utf-8"))["steps"] < 10_000_000
