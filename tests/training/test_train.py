"""The training loop end to end on the toy game: files, curve, export, resume, CLI overrides."""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import signal
import sys
import time
from pathlib import Path

import pytest
from processes import (
    children,
    descendants,
    needs_proc,
    outlived,
    run_folder_held_elsewhere,
    signal_the_group_parent_last,
    stop_signals_at_their_defaults,
)

from tabletop_envs import ConfigError, load_policy

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

from training.config import load_config  # noqa: E402
from training.export import cpu_info  # noqa: E402
from training.train import main, train  # noqa: E402

TINY = {"env": "toy_v0", "seed": 1,
        "ppo": {"total_timesteps": 1024, "n_steps": 128, "batch_size": 64, "n_epochs": 2, "net_arch": [16]},
        "selfplay": {"heuristic_weight": 0.0, "snapshot_every": 256, "gate_win_rate": 0.0, "window": 2},
        "eval": {"every": 512, "games": 20, "final_games": 40, "opponents": ["random"]},
        "output": {"checkpoint_every": 512, "progress_bar": False}}


def test_a_tiny_run_writes_model_curve_checkpoints_and_an_exported_policy(toy, tmp_path):
    cfg = load_config(data={**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "run")}})
    summary = train(cfg)
    run = tmp_path / "run"
    assert summary["steps"] >= 1024
    for name in ("final_model.zip", "run.json", "history.json", "summary.json", "learning_curve.png",
                 "ppo.onnx", "ppo.npz", "ppo.json"):
        assert (run / name).exists(), name
    assert list((run / "tb").rglob("events.out.tfevents*"))
    history = json.loads((run / "history.json").read_text(encoding="utf-8"))
    assert [h["steps"] for h in history][0] == 0 and history[-1]["steps"] >= 1024  # from step 0 to the end
    assert len(summary["snapshots"]) == 2  # window of the last two
    meta = json.loads((run / "ppo.json").read_text(encoding="utf-8"))
    assert meta["evaluation"]["vs_random"]["games"] == 40 and meta["training"]["steps"] >= 1024
    # the weights of a seeded run depend on the processor, so its sidecar names it
    assert meta["training"]["machine"]["cpu"] == cpu_info()["model name"] != ""
    if hasattr(os, "getloadavg"):  # (test_a_run_on_a_platform_without_a_load_average...: where there is none)
        loads = meta["training"]["machine"]["load_average_at_end"]
        assert len(loads) == 3 and all(isinstance(x, float) and x >= 0 for x in loads), loads
    policy = load_policy(str(run / "ppo.onnx"))
    assert policy.metadata["env_id"] == "toy_v0"
    from sb3_contrib import MaskablePPO

    from training.masked_policy import FastMaskablePolicy, FastMaskableRolloutBuffer

    loaded = MaskablePPO.load(run / "final_model.zip", device="cpu")
    assert isinstance(loaded.policy, FastMaskablePolicy)
    assert loaded.rollout_buffer_class is FastMaskableRolloutBuffer


def test_resume_continues_from_the_newest_checkpoint(toy, tmp_path):
    data = {**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False,
                               "learning_curve": False}, "eval": {**TINY["eval"], "final_games": 0}}
    first = train(load_config(data=data))
    # the checkpoint holds the pool the resume plays against: the snapshots the first part froze
    with open(tmp_path / "run" / "checkpoints" / "step_000001024" / "pool.pkl", "rb") as fh:
        assert [f"snapshot@{s['steps']}" for s in pickle.load(fh)["snapshots"]] == first["snapshots"] != []
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1536}
    second = train(load_config(data=data), resume=True)
    assert first["steps"] == 1024 and second["steps"] == 1536
    assert int(second["snapshots"][-1].split("@")[1]) > 1024  # the pool came back from the checkpoint and moved on


def test_resume_with_no_checkpoint_in_the_run_folder_trains_afresh_and_says_so(toy, tmp_path, capsys):
    summary = train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256})), resume=True)
    assert summary["steps"] == 256
    assert f"no checkpoint under {tmp_path / 'run'}/checkpoints; starting afresh" in capsys.readouterr().out


def test_a_run_without_tensorboard_leaves_no_folder_in_the_temp_dir(toy, tmp_path, monkeypatch, capsys):
    import tempfile

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # where SB3's default logger makes its SB3-<time> folder
    data = {**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "tensorboard": False,
                               "learning_curve": False, "verbose": 1}, "eval": {**TINY["eval"], "final_games": 0}}
    train(load_config(data=data))
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1536}
    train(load_config(data=data), resume=True)
    assert list(temp.iterdir()) == []
    assert "total_timesteps" in capsys.readouterr().out  # verbose still prints SB3's table
    assert not (tmp_path / "run" / "tb").exists()


def test_cli_applies_overrides_and_reports_bad_keys(toy, tmp_path):
    recipe = tmp_path / "toy.yaml"
    import yaml

    recipe.write_text(yaml.safe_dump({**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "cli")}}), encoding="utf-8")
    summary = main(["--config", str(recipe), "--set", "ppo.total_timesteps=256", "--set", "eval.final_games=0",
                    "--set", "output.export=false"])
    assert summary["steps"] == 256
    run = json.loads((tmp_path / "cli" / "run.json").read_text(encoding="utf-8"))
    assert "--set ppo.total_timesteps=256" in run["training"]["command"]
    with pytest.raises(ConfigError, match="unknown key 'ppo.total_steps'"):
        main(["--config", str(recipe), "--set", "ppo.total_steps=1"])


def test_an_interrupted_run_still_saves_evaluates_and_exports(toy, tmp_path, monkeypatch):
    from training import callbacks

    original = callbacks.SelfPlayCallback._on_step

    def stop_after_512(self):
        if self.num_timesteps >= 512:
            raise KeyboardInterrupt
        return original(self)

    monkeypatch.setattr(callbacks.SelfPlayCallback, "_on_step", stop_after_512)
    cfg = load_config(data={**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "run")}})
    summary = train(cfg)
    assert summary["interrupted"] and 512 <= summary["steps"] < 1024
    meta = json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))
    assert meta["training"]["stopped_early"] is True and meta["evaluation"]["vs_random"]["games"] == 40
    assert list((tmp_path / "run" / "checkpoints").glob("step_*/model.zip"))


def test_an_interrupt_between_the_step_count_and_the_callback_names_the_checkpoint_by_the_model_steps(
        toy, tmp_path, monkeypatch):
    # SB3 counts a vector step before it hands the step to the callbacks: an interrupt in between left
    # the callback one vector step behind, and the checkpoint of the moment it stopped was named
    # step_404 while it and the summary held 406 (a CI run's SIGTERM test landed there)
    from training import callbacks

    original = callbacks.SelfPlayCallback.update_locals

    def stop_after_512(self, locals_):
        if self.model.num_timesteps >= 512:
            raise KeyboardInterrupt
        return original(self, locals_)

    monkeypatch.setattr(callbacks.SelfPlayCallback, "update_locals", stop_after_512)
    summary = train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 1024},
                                                output={"checkpoint_every": 1024})))
    assert summary["interrupted"] and summary["steps"] >= 512
    saved = [p.parent.name for p in (tmp_path / "run" / "checkpoints").glob("step_*/state.json")]
    assert saved == [f"step_{summary['steps']:09d}"]


def test_export_cli_rebuilds_the_policy_from_a_run_folder(toy, tmp_path):
    from training.export import main as export_main

    cfg = load_config(data={**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 256},
                            "eval": {**TINY["eval"], "final_games": 0},
                            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False}})
    train(cfg)
    export_main(["--model", str(tmp_path / "run" / "final_model.zip"), "--out", str(tmp_path / "m" / "ppo"),
                 "--eval-games", "20", "--anchors", "random"])
    meta = json.loads((tmp_path / "m" / "ppo.json").read_text(encoding="utf-8"))
    assert meta["env_id"] == "toy_v0" and meta["training"]["steps"] == 256
    assert meta["evaluation"]["vs_random"]["games"] == 20
    # the run's wall time comes from its summary.json (the model card prints it)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert meta["training"]["wall_time_s"] == summary["train_seconds"] is not None
    assert load_policy(str(tmp_path / "m" / "ppo.onnx")).num_actions == 11


def test_a_runs_final_evaluation_plays_under_its_env_kwargs_max_turns_and_its_protocol_says_so(toy, tmp_path):
    # the sidecar's rates of games cut at env_kwargs.max_turns read as the model's strength unless the protocol
    # names the limit; only the export's --eval-games was tested for it (f898c4c)
    train(load_config(data={**TINY, "env_kwargs": {"max_turns": 1},
                            "output": {**TINY["output"], "dir": str(tmp_path / "run")}}))
    evaluation = json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))["evaluation"]
    assert evaluation["vs_random"]["draw"]["rate"] == 1.0  # every game cut off at its first turn
    assert evaluation["protocol"].endswith(", masked argmax, max_turns 1"), evaluation["protocol"]


def test_export_with_the_runs_seed_plus_1000_and_its_opponents_repeats_the_runs_own_final_evaluation(toy, tmp_path,
                                                                                                      capsys):
    # --eval-games played seed 12345's deals only, so a re-export could not say what the run's sidecar said
    from training.export import main as export_main

    train(load_config(data={**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "run")}}))
    own = json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))["evaluation"]
    args = ["--model", str(tmp_path / "run" / "final_model.zip"), "--eval-games", str(TINY["eval"]["final_games"]),
            "--anchors", *TINY["eval"]["opponents"]]
    export_main([*args, "--out", str(tmp_path / "m" / "ppo"), "--seed", str(TINY["seed"] + 1000)])
    again = json.loads((tmp_path / "m" / "ppo.json").read_text(encoding="utf-8"))["evaluation"]
    assert again == own and f"seed {TINY['seed'] + 1000}," in again["protocol"]
    export_main([*args, "--out", str(tmp_path / "d" / "ppo")])  # the default: seed 12345's deals
    assert "seed 12345," in json.loads((tmp_path / "d" / "ppo.json").read_text(encoding="utf-8"))["evaluation"]["protocol"]
    with pytest.raises(ConfigError, match=r"the seed must be a non-negative integer, got -1"):
        export_main([*args, "--out", str(tmp_path / "n" / "ppo"), "--seed", "-1"])
    assert not (tmp_path / "n").exists()


def test_the_scheduled_and_final_evaluations_play_the_deals_of_seed_plus_1000(toy, tmp_path, monkeypatch):
    import training.train as train_module

    seeds, real = [], train_module.evaluate_model

    def recording(cfg, model, games, seed, anchors):
        seeds.append((games, seed))
        return real(cfg, model, games, seed, anchors)

    monkeypatch.setattr(train_module, "evaluate_model", recording)
    cfg = load_config(data={**TINY, "seed": 7, "ppo": {**TINY["ppo"], "total_timesteps": 128, "n_steps": 64,
                                                             "n_epochs": 1},
                            "eval": {**TINY["eval"], "every": 64, "games": 4, "final_games": 6},
                            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False,
                                       "learning_curve": False, "tensorboard": False}})
    train(cfg)
    assert {games for games, _ in seeds} == {4, 6}  # scheduled evaluations and the final one
    # an evaluation played other deals than `training.evaluate --seed 1007` replays
    assert {seed for _, seed in seeds} == {1007}


def test_a_phase_changes_the_learning_rate_and_the_pool_when_the_learner_reaches_its_step(toy, tmp_path):
    from sb3_contrib import MaskablePPO

    data = {**TINY, "phases": [{"at": 512, "set": {"ppo.learning_rate": 1e-5, "selfplay.random_weight": 0.0}}],
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False},
            "eval": {**TINY["eval"], "final_games": 0}}
    summary = train(load_config(data=data))
    (applied,) = summary["phases_applied"]
    assert applied["step"] == 512  # at the step it names: the learner passes it (2 envs, 2 steps at a time)
    model = MaskablePPO.load(tmp_path / "run" / "final_model.zip")
    assert model.policy.optimizer.param_groups[0]["lr"] == 1e-5  # the updates after the phase used the new rate
    run = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert run["config"]["ppo"]["learning_rate"] == 3e-4  # the recipe as written; phases are recorded beside it


def test_resume_reapplies_the_phases_already_reached_and_records_the_step_the_run_reached_them_at(toy, tmp_path,
                                                                                                  capsys):
    data = {**TINY, "phases": [{"at": 512, "set": {"selfplay.random_weight": 0.0, "ppo.ent_coef": 0.0}}],
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False},
            "eval": {**TINY["eval"], "final_games": 0}}
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 768}
    first = train(load_config(data=data))
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1024}
    second = train(load_config(data=data), resume=True)
    assert [p["at"] for p in first["phases_applied"]] == [512]
    # the summary said step 768, where the resume re-applied it, as if the phase had begun 256 steps late
    assert second["phases_applied"] == first["phases_applied"] == [
        {"at": 512, "step": 512, "set": {"selfplay.random_weight": 0.0, "ppo.ent_coef": 0.0}}]
    assert "[phase] step 512 (resumed): " in capsys.readouterr().out


def test_selection_ships_the_best_checkpoint_by_its_own_games_and_evaluates_it_on_others(toy, tmp_path, monkeypatch):
    import numpy as np
    from sb3_contrib import MaskablePPO

    import training.train as train_module
    from training.export import numpy_policy

    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 2048},
            "eval": {**TINY["eval"], "select_games": 20, "select_every": 512, "select_anchor": "random"},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "checkpoint_every": 256}}
    calls = []
    real = train_module.anchor_evaluation

    def scripted(env, policy, games, seed, anchors, **kw):  # real games; the candidate at 1024 steps scores best
        result = real(env, policy, games, seed=seed, anchors=anchors, **kw)
        calls.append((seed, tuple(anchors), games))
        if seed == 1 + 2000:  # candidates are evaluated in step order: 512, 1024, 1536, 2048
            result[f"vs_{anchors[0]}"]["score"] = 0.9 if sum(c[0] == seed for c in calls) == 2 else 0.2
        return result

    monkeypatch.setattr(train_module, "anchor_evaluation", scripted)
    summary = train(load_config(data=data))
    selection = summary["selection"]
    assert [c["steps"] for c in selection["candidates"]] == [512, 1024, 1536, 2048]
    assert selection["selected_steps"] == 1024 and selection["seed"] == 2001 and selection["games"] == 20
    assert [c for c in calls if c[0] == 2001] == [(2001, ("random",), 20)] * 4
    meta = json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))
    assert meta["training"]["selection"]["selected_steps"] == 1024
    assert meta["training"]["steps"] == 1024 and summary["steps"] == 2048  # shipped: the selected one
    # final_model.zip stays the last step's (training/README.md: re-export the selected checkpoint instead)
    assert MaskablePPO.load(tmp_path / "run" / "final_model.zip").num_timesteps == 2048
    shipped = load_policy(str(tmp_path / "run" / "ppo.npz"))
    chosen = numpy_policy(MaskablePPO.load(tmp_path / "run" / "checkpoints" / "step_000001024" / "model.zip"))
    probe = np.random.default_rng(0).random((5, chosen.observation_size)).astype(np.float32)
    np.testing.assert_allclose(shipped.logits(probe), chosen.logits(probe), rtol=1e-5, atol=1e-6)
    assert meta["evaluation"]["vs_random"]["games"] == 40  # the final evaluation: its own seed, the chosen model
    assert any(c[0] == 1 + 1000 and c[2] == 40 for c in calls)
    history = json.loads((tmp_path / "run" / "history.json").read_text(encoding="utf-8"))
    assert history[-1]["steps"] == 1024  # the final evaluation's point is the selected model's, not the learner's


@pytest.mark.parametrize("damage", ["torn", "missing"])
def test_a_damaged_checkpoint_the_selection_would_compare_is_refused_naming_it_and_the_way_on(toy, tmp_path, damage):
    # after the training: SB3's traceback ("wasn't a zip-file", or a made-up model.zip.zip) named no fix
    from types import SimpleNamespace

    from training.train import select_checkpoint

    cfg = load_config(data=quiet_tiny(tmp_path, eval={"select_games": 2, "select_every": 512}))
    checkpoint = tmp_path / "run" / "checkpoints" / "step_000000512"
    checkpoint.mkdir(parents=True)
    (checkpoint / "state.json").write_text("{}", encoding="utf-8")
    if damage == "torn":
        (checkpoint / "model.zip").write_bytes(b"PK\x03\x04 cut off")
    with pytest.raises(ConfigError, match=rf"checkpoint {checkpoint / 'model.zip'} cannot be loaded .*move the folder "
                                          rf"{checkpoint} out of .*--resume"):
        select_checkpoint(cfg, tmp_path / "run", SimpleNamespace(num_timesteps=1024))


def test_a_fresh_run_in_a_used_folder_sets_the_old_checkpoints_aside(toy, tmp_path):
    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 512},
            "eval": {**TINY["eval"], "final_games": 0, "select_games": 4, "select_every": 256,
                     "select_anchor": "random"},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False,
                       "checkpoint_every": 256}}
    old = tmp_path / "run" / "checkpoints" / "step_000009999"
    old.mkdir(parents=True)
    (old / "model.zip").write_bytes(b"an earlier run's model")
    summary = train(load_config(data=data))
    kept = list(tmp_path.glob("run/before-*/checkpoints/step_000009999/model.zip"))
    assert len(kept) == 1 and kept[0].read_bytes() == b"an earlier run's model"  # nothing lost
    assert sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir()) == ["step_000000256",
                                                                                     "step_000000512"]
    assert [c["steps"] for c in summary["selection"]["candidates"]] == [256, 512]  # only this run's


def test_a_fresh_run_sets_all_of_an_earlier_runs_files_aside_and_its_resume_reports_no_stale_warm_start(toy,
                                                                                                        tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    earlier = {"run.json": json.dumps({"config": {"output": {"name": "champion"}}}),
               "pretrain.json": json.dumps({"teacher": "toy_v0/highest", "samples": 5}),
               "summary.json": "{}", "history.json": "[]", "final_model.zip": "an earlier model",
               "ppo.onnx": "earlier", "ppo.npz": "earlier", "ppo.json": "{}", "champion.onnx": "earlier",
               "main_job.md": "an earlier report"}
    for name, text in earlier.items():
        (run / name).write_text(text, encoding="utf-8")
    (run / "notes.txt").write_text("mine", encoding="utf-8")
    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256}, output={"export": True})
    train(load_config(data=data))
    moved = list(tmp_path.glob("run/before-*"))
    assert len(moved) == 1 and {name: (moved[0] / name).read_text(encoding="utf-8") for name in earlier} == earlier
    assert not (run / "pretrain.json").exists() and not (run / "main_job.md").exists()
    assert (run / "notes.txt").read_text(encoding="utf-8") == "mine"  # not a file of a run: it stays
    summary = train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 512}, output={"export": True})),
                    resume=True)
    assert summary["steps"] == 512 and "pretrain" not in summary
    assert json.loads((run / "ppo.json").read_text(encoding="utf-8"))["training"]["pretrain"] is None
    assert list(tmp_path.glob("run/before-*")) == moved  # --resume sets nothing aside


def test_an_id_anchor_is_one_tensorboard_tag_and_keeps_its_name_in_the_history(toy, tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256}, eval={"opponents": ["random", "toy_v0/random"]},
                      output={"tensorboard": True, "export": True})
    train(load_config(data=data))
    (events,) = (tmp_path / "run" / "tb").rglob("events.out.tfevents*")
    tags = EventAccumulator(str(events)).Reload().Tags()["scalars"]
    assert {t for t in tags if t.startswith("eval/")} == {"eval/win_rate_vs_random", "eval/win_rate_vs_toy_v0_random"}
    history = json.loads((tmp_path / "run" / "history.json").read_text(encoding="utf-8"))
    assert {"vs_random", "vs_toy_v0/random"} <= set(history[0])


@pytest.mark.parametrize("device, cuda_devices, seen", [("cuda", 0, "no CUDA device"), ("cuda:1", 1, "1 CUDA device")])
def test_a_cuda_device_the_machine_lacks_is_refused_before_the_run_folder_is_made(toy, tmp_path, monkeypatch, device,
                                                                                 cuda_devices, seen):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda_devices > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: cuda_devices)
    with pytest.raises(ConfigError, match=f"ppo.device '{device}', but torch sees {seen}.* on this machine; train "
                                          "on the CPU with --set ppo.device=cpu"):
        train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256, "device": device})))
    assert not (tmp_path / "run").exists()


def test_an_unknown_selection_anchor_fails_before_training(toy, tmp_path):
    data = {**TINY, "eval": {**TINY["eval"], "select_games": 4, "select_anchor": "grandmaster"},
            "output": {**TINY["output"], "dir": str(tmp_path / "run")}}
    with pytest.raises(Exception, match="grandmaster"):
        train(load_config(data=data))
    assert not (tmp_path / "run" / "checkpoints").exists()


def test_resume_trains_with_the_recipes_ppo_settings_as_run_json_records_them(toy, tmp_path):
    from sb3_contrib import MaskablePPO

    data = {**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False,
                               "learning_curve": False}, "eval": {**TINY["eval"], "final_games": 0}}
    train(load_config(data=data))
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1536, "learning_rate": 0.05, "n_steps": 64, "ent_coef": 0.02}
    train(load_config(data=data), resume=True)
    model = MaskablePPO.load(tmp_path / "run" / "final_model.zip", device="cpu")
    assert (model.learning_rate, model.n_steps, model.ent_coef) == (0.05, 64, 0.02)
    assert model.lr_schedule(1.0) == 0.05
    recorded = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))["config"]["ppo"]
    assert (recorded["learning_rate"], recorded["n_steps"], recorded["ent_coef"]) == (0.05, 64, 0.02)


def finished_tiny_run(tmp_path, steps: int):
    """(recipe, run folder) of a tiny toy run trained to ``steps``, without export, curve or final games."""
    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": steps},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False},
            "eval": {**TINY["eval"], "final_games": 0}}
    train(load_config(data=data))
    return data, tmp_path / "run"


def folder_bytes(run) -> dict:
    return {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}


@pytest.mark.parametrize("change, resumes", [({"eval": {**TINY["eval"], "opponents": ["random", "nosuchbot"]}},
                                              (False, True)),
                                             ({"pretrain": {"teacher": "nosuchbot"}}, (False, True)),
                                             ({"selfplay": {**TINY["selfplay"], "opponents": {"nosuchbot": 0.5}}},
                                              (False, True)),
                                             ({"ppo": {**TINY["ppo"], "net_arch": [32]}}, (True,))])
def test_a_refused_invocation_leaves_the_run_folder_as_it_was(toy, tmp_path, change, resumes):
    data, run = finished_tiny_run(tmp_path, 512)
    before = folder_bytes(run)
    for resume in resumes:
        with pytest.raises(Exception, match="nosuchbot|net_arch"):
            train(load_config(data={**data, **change}), resume=resume)
        assert folder_bytes(run) == before


def test_resuming_a_run_that_reached_its_total_is_refused_naming_the_fix(toy, tmp_path):
    data, run = finished_tiny_run(tmp_path, 256)
    before = folder_bytes(run)
    # it crashed with "'SelfPlayCallback' object has no attribute 'model'" after rewriting run.json
    with pytest.raises(ConfigError, match=r"already at 256 steps .* ppo\.total_timesteps is 256.* "
                                          r"--set ppo\.total_timesteps=512"):
        train(load_config(data=data), resume=True)
    assert folder_bytes(run) == before


def test_resume_with_a_recipe_for_another_game_is_refused(toy, tmp_path):
    data, _ = finished_tiny_run(tmp_path, 256)
    other = {**data, "env": "terralore_v0", "eval": {**data["eval"], "opponents": ["random"]}}
    with pytest.raises(ConfigError, match="--resume would continue the run .* trains toy_v0"):
        train(load_config(data=other), resume=True)
    assert json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))["env"] == "toy_v0"


@pytest.mark.parametrize("text, problem", [
    ('{"env": "toy_v0",', r"run\.json cannot be read \(Expecting"),  # the JSON error alone named no file
    ("[]", r"run\.json is no run record"),  # AttributeError: 'list' object has no attribute 'get'
    ('{"config": {"ppo": 3}}', r"run\.json is no run record"),
    ('{"config": [1]}', r"run\.json is no run record"),
])
def test_resume_from_a_run_whose_run_json_is_broken_is_refused_naming_the_file(toy, tmp_path, text, problem):
    data, run = finished_tiny_run(tmp_path, 256)
    (run / "run.json").write_text(text, encoding="utf-8")
    resume_refused(data, run, rf"--resume: .*{problem}.*restore it from a copy")


def resume_refused(data: dict, run, match: str) -> None:
    """``--resume`` of ``data`` trained on to 512 steps is a ConfigError matching ``match``, and ``run`` stays as
    it was."""
    before = folder_bytes(run)
    with pytest.raises(ConfigError, match=match):
        train(load_config(data={**data, "ppo": {**data["ppo"], "total_timesteps": 512}}), resume=True)
    assert folder_bytes(run) == before


def test_resume_of_another_games_checkpoint_without_its_run_json_is_refused_naming_the_checkpoint(toy, tmp_path):
    # SB3's "Observation spaces do not match" came through as a traceback
    data, run = finished_tiny_run(tmp_path, 256)
    (run / "run.json").unlink()
    other = {**data, "env": "terralore_v0", "eval": {**data["eval"], "opponents": ["random"]},
             "ppo": {**data["ppo"], "total_timesteps": 512}}
    with pytest.raises(ConfigError, match=r"--resume: the checkpoint .*step_000000256.* was trained on another game "
                                          r"or layout than this recipe's terralore_v0"):
        train(load_config(data=other), resume=True)


def test_steps_per_second_leaves_out_evaluations_and_counts_the_trained_steps_not_the_selected_ones(
        toy, tmp_path, monkeypatch):
    import training.train as tt

    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 512},
            "eval": {**TINY["eval"], "every": 128, "final_games": 0, "select_games": 4, "select_every": 256,
                     "select_anchor": "random"},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False,
                       "checkpoint_every": 256}}
    real = tt.evaluate_model
    slow = 0.3

    def slow_evaluation(*args, **kwargs):
        import time

        time.sleep(slow)
        return real(*args, **kwargs)

    monkeypatch.setattr(tt, "evaluate_model", slow_evaluation)
    summary = train(load_config(data=data))
    ppo_seconds = summary["steps"] / summary["steps_per_second"]
    evals = 1 + 512 // 128  # step 0, then every 128 steps
    assert summary["train_seconds"] - ppo_seconds > 0.8 * evals * slow  # the sleeps are not PPO's time
    assert summary["steps"] == 512


def test_the_command_line_reports_a_bad_recipe_in_one_line():
    import subprocess
    import sys
    from pathlib import Path

    for module, args, message in [
        ("training.train", ["--config", "configs/terralore.yaml", "--set", "ppo.total_steps=1"],
         "unknown key 'ppo.total_steps'"),
        ("training.evaluate", ["--env", "nope_v0", "--policies", "random", "heuristic"], "unknown game 'nope_v0'; choose one of: earth, terralore, travel_earth"),
    ]:
        done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=120,
                              cwd=Path(__file__).resolve().parents[2])
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr


def test_a_seeded_run_is_reproducible_weight_for_weight(toy, tmp_path):
    import numpy as np

    def run(name, seed):
        data = {**TINY, "seed": seed, "output": {**TINY["output"], "dir": str(tmp_path / name),
                                                 "tensorboard": False, "learning_curve": False}}
        summary = train(load_config(data=data))
        return np.load(tmp_path / name / "ppo.npz"), summary

    first, summary_first = run("a", 1)
    again, summary_again = run("b", 1)
    other, _ = run("c", 2)
    assert first.files == again.files and all(np.array_equal(first[k], again[k]) for k in first.files)
    assert summary_first["snapshots"] == summary_again["snapshots"]
    assert not all(np.array_equal(first[k], other[k]) for k in first.files), "another seed, another run"


def test_dummy_and_subproc_collection_train_the_same_weights_and_batched_others(tmp_path):
    # training/README.md says which vec keys change a seeded run's weights: a sweep over vec.kind compares these
    from sb3_contrib import MaskablePPO

    def weights(kind):
        data = {"env": "terralore_v0", "seed": 3, "vec": {"kind": kind, "n_envs": 2},
                "ppo": {"total_timesteps": 256, "n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
                "selfplay": {"random_weight": 1.0, "heuristic_weight": 0.0},  # an opponent that samples its moves
                "eval": {"every": 10**9, "games": 2, "final_games": 0, "opponents": ["random"]},
                "output": {"dir": str(tmp_path / kind), "checkpoint_every": 10**9, "progress_bar": False,
                           "export": False, "learning_curve": False, "tensorboard": False}}
        train(load_config(data=data))
        params = MaskablePPO.load(tmp_path / kind / "final_model.zip").policy.state_dict()
        return [t.numpy().tobytes() for t in params.values()]

    dummy = weights("dummy")
    assert weights("subproc") == dummy
    assert weights("batched") != dummy


def test_without_an_initial_snapshot_the_first_snapshot_is_not_gated(toy, tmp_path):
    # the gate compares the learner with the pool's snapshots; with none there are no such games, and
    # waiting for them would keep self-play from ever starting
    data = {**TINY, "selfplay": {**TINY["selfplay"], "gate_win_rate": 0.5, "initial_snapshot": False,
                                 "window": 5},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False},
            "eval": {**TINY["eval"], "final_games": 0}}
    summary = train(load_config(data=data))
    assert summary["snapshots"] and int(summary["snapshots"][0].split("@")[1]) == 256


def test_a_resumed_run_deals_new_games_instead_of_replaying_the_first_ones(toy, tmp_path, monkeypatch):
    from tabletop_envs.core.single_agent import SingleAgentEnv

    deals = []
    real_deal = SingleAgentEnv.deal

    def recording_deal(self):
        real_deal(self)
        deals.append((self.learner_seat, tuple(map(tuple, self.game_state.hands))))

    monkeypatch.setattr(SingleAgentEnv, "deal", recording_deal)
    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 512},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False,
                       "tensorboard": False}, "eval": {**TINY["eval"], "final_games": 0}}
    train(load_config(data=data))
    first, deals[:] = deals[:40], []
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1024}
    train(load_config(data=data), resume=True)
    resumed = deals[:40]
    assert sum(a == b for a, b in zip(first, resumed)) < 10  # a few repeats by chance: 2 seats, 10 cards


def test_resume_logs_to_tensorboard_as_the_recipe_says_in_the_run_folder_it_continues(toy, tmp_path):
    import shutil

    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 512},
            "output": {**TINY["output"], "dir": str(tmp_path / "a"), "export": False, "learning_curve": False,
                       "tensorboard": False}, "eval": {**TINY["eval"], "final_games": 0}}
    train(load_config(data=data))
    shutil.copytree(tmp_path / "a", tmp_path / "b")  # a run carried on in another folder
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1024}
    data["output"] = {**data["output"], "dir": str(tmp_path / "b"), "tensorboard": True, "verbose": 1}
    train(load_config(data=data), resume=True)
    assert list((tmp_path / "b" / "tb").rglob("events.out.tfevents*"))
    assert not (tmp_path / "a" / "tb").exists()
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(tmp_path / "b" / "final_model.zip", device="cpu").verbose == 1


def test_an_evaluation_cut_short_by_an_interrupt_is_made_up_on_resume(toy, tmp_path, monkeypatch):
    import training.train as tt

    real = tt.evaluate_model
    interrupted = []

    def interrupt_the_one_at_512(cfg, model, *args, **kwargs):
        if model.num_timesteps == 512 and not interrupted:
            interrupted.append(True)
            raise KeyboardInterrupt
        return real(cfg, model, *args, **kwargs)

    monkeypatch.setattr(tt, "evaluate_model", interrupt_the_one_at_512)
    data = {**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False,
                               "learning_curve": False, "tensorboard": False},
            "eval": {**TINY["eval"], "final_games": 0}}
    assert train(load_config(data=data))["interrupted"]
    train(load_config(data=data), resume=True)
    steps = [h["steps"] for h in json.loads((tmp_path / "run" / "history.json").read_text(encoding="utf-8"))]
    assert steps[0] == 0 and 512 <= steps[1] < 768 and steps[2:] == [1024]


def test_resume_carries_on_the_gated_out_count_and_the_training_win_rates(toy, tmp_path):
    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 512},
            "selfplay": {**TINY["selfplay"], "gate_win_rate": 1.0,  # never opens: every attempt is gated out
                         "gate_episodes": 1000},  # room for both parts' results
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False,
                       "tensorboard": False}, "eval": {**TINY["eval"], "final_games": 0}}
    first = train(load_config(data=data))
    state = json.loads(next((tmp_path / "run" / "checkpoints").glob("step_000000512/state.json")).read_text(encoding="utf-8"))
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1024}
    second = train(load_config(data=data), resume=True)
    assert first["snapshots_gated_out"] == 2 and second["snapshots_gated_out"] == 4  # at 256, 512, 768, 1024
    assert second["snapshots"] == first["snapshots"] == ["snapshot@0"]  # the resume froze none past the gate
    assert set(state["recent"]) == {"random", "snapshot"} and all(state["recent"].values())
    end = json.loads(next((tmp_path / "run" / "checkpoints").glob("step_000001024/state.json")).read_text(encoding="utf-8"))
    # the gate's results and the training win rates go on from where the first part left them
    assert end["gate_results"][:len(state["gate_results"])] == state["gate_results"] != end["gate_results"]
    assert end["recent"]["random"][:len(state["recent"]["random"])] == state["recent"]["random"]


def test_tensorboard_logs_each_scheduled_evaluation_at_its_own_step(toy, tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    data = {**TINY, "eval": {**TINY["eval"], "every": 384, "final_games": 0},  # rollouts end every 256 steps
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False}}
    train(load_config(data=data))
    history = json.loads((tmp_path / "run" / "history.json").read_text(encoding="utf-8"))
    (events,) = (tmp_path / "run" / "tb").rglob("events.out.tfevents*")
    logged = EventAccumulator(str(events))
    logged.Reload()
    assert [e.step for e in logged.Scalars("eval/win_rate_vs_random")] == [h["steps"] for h in history] \
        == [0, 384, 768]


def test_resume_skips_a_checkpoint_whose_writing_was_cut_off(toy, tmp_path):
    import shutil

    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 512},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "export": False, "learning_curve": False,
                       "tensorboard": False}, "eval": {**TINY["eval"], "final_games": 0}}
    train(load_config(data=data))
    checkpoints = tmp_path / "run" / "checkpoints"
    broken = checkpoints / "step_000000600"  # killed after the model, before the pool and the schedule
    broken.mkdir()
    shutil.copy(checkpoints / "step_000000512" / "model.zip", broken / "model.zip")
    data["ppo"] = {**TINY["ppo"], "total_timesteps": 1024}
    summary = train(load_config(data=data), resume=True)
    assert summary["steps"] == 1024
    history = json.loads((tmp_path / "run" / "history.json").read_text(encoding="utf-8"))
    assert [h["steps"] for h in history] == [0, 512, 1024]


def test_resume_takes_the_checkpoint_of_the_most_steps_past_a_billion_too(tmp_path):
    # the folders are named step_<n> padded to 9 digits: by name, step_1000000000 sorted before step_999999999
    from training.train import latest_checkpoint

    for steps in (999_999_999, 1_000_000_000, 200_000_000):
        folder = tmp_path / "run" / "checkpoints" / f"step_{steps:09d}"
        folder.mkdir(parents=True)
        (folder / "state.json").write_text("{}", encoding="utf-8")
    assert latest_checkpoint(tmp_path / "run") == tmp_path / "run" / "checkpoints" / "step_1000000000"


@pytest.mark.parametrize("option, allowed", [("illegal_action=bogus", "'raise', 'penalty', 'random_legal'"),
                                             ("render_mode=bogus", "'ansi', 'rgb_array', 'human'")])
def test_a_bad_env_kwarg_of_the_env_itself_in_a_recipe_is_a_one_line_error_naming_it(tmp_path, capsys, option,
                                                                                    allowed):
    from tabletop_envs.core.errors import run_cli

    key = option.split("=")[0]
    rc = run_cli(main, ["--set", "env=terralore_v0", "--set", f"env_kwargs.{option}", "--set",
                        f"output.dir={tmp_path}/r", "--set", "ppo.total_timesteps=64"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1, err
    assert f"{key} must be" in err and allowed in err and "'bogus'" in err
    assert not (tmp_path / "r").exists()


def test_subproc_envs_start_where_forkserver_is_missing_as_on_windows(monkeypatch):
    import multiprocessing

    from training.pool import OpponentPool
    from training.train import make_vec_env

    real_get_context = multiprocessing.get_context

    def windows_get_context(method=None):
        if method in ("fork", "forkserver"):
            raise ValueError(f"cannot find context for {method!r}")
        return real_get_context(method)

    monkeypatch.setattr(multiprocessing, "get_context", windows_get_context)
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    cfg = load_config(data={"env": "terralore_v0", "vec": {"kind": "subproc", "n_envs": 1}})
    venv = make_vec_env(cfg, OpponentPool("terralore_v0", random_weight=1.0, heuristic_weight=0.0))
    try:
        assert venv.reset().shape == (1, 889)
    finally:
        venv.close()


# ---------------------------------------------------------------- behaviour pinned by the mutation audit of train.py

def _deal_spy(monkeypatch):
    """The opponents' names of every deal, in the order the envs dealt them."""
    from tabletop_envs.core.single_agent import SingleAgentEnv

    seen = []
    real_deal = SingleAgentEnv.deal

    def recording_deal(self):
        real_deal(self)
        seen.append([getattr(p, "name", "?") for p in self.episode_opponents])

    monkeypatch.setattr(SingleAgentEnv, "deal", recording_deal)
    return seen


def quiet_tiny(tmp_path, name="run", **sections):
    """TINY without export, curve, TensorBoard or final games, in ``tmp_path / name``; ``sections`` merge in."""
    data = {**TINY, "output": {**TINY["output"], "dir": str(tmp_path / name), "export": False,
                               "learning_curve": False, "tensorboard": False},
            "eval": {**TINY["eval"], "final_games": 0}}
    for key, value in sections.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    return data


def test_checkpoint_folders_are_named_as_training_readme_says(toy, tmp_path):
    # the README said checkpoints/step_N/, N summary.json's selection.selected_steps: a sweep's script that looked
    # for checkpoints/step_1024 found no such folder, the steps being zero-padded
    import re

    readme = (Path(__file__).resolve().parents[2] / "training" / "README.md").read_text(encoding="utf-8")
    example = re.search(r"`checkpoints/step_<N>/`, N zero-padded to (\w+) digits \(`step_(\d+)` for step (\d+);", readme)
    assert example, "training/README.md no longer shows how a checkpoint folder is named"
    width, padded, steps = example.groups()
    assert (width, len(padded), int(padded)) == ("nine", 9, int(steps))
    train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 512}, output={"checkpoint_every": 256})))
    assert sorted(p.name for p in (tmp_path / "run" / "checkpoints").iterdir()) == [
        f"step_{n:0{len(padded)}d}" for n in (256, 512)]


def test_each_rollout_logs_the_training_win_rates_the_pool_size_and_the_gate_on_snapshot_games_only(toy, tmp_path):
    from types import SimpleNamespace

    import numpy as np

    from training.callbacks import SelfPlayCallback
    from training.pool import OpponentPool

    pool = OpponentPool("toy_v0", random_weight=0.5, heuristic_weight=0.0)
    pool.add_snapshot([(np.zeros((4, 2)), np.zeros(2))], "tanh", steps=256)
    callback = SelfPlayCallback(load_config(data=quiet_tiny(tmp_path)), pool, tmp_path / "run")
    logged: dict = {}
    callback.model = SimpleNamespace(logger=SimpleNamespace(record=logged.__setitem__))
    # the learner at seat 0: won, lost, lost against the snapshot, then won against the random anchor
    for standings, opponent in (([1, -1], "snapshot"), ([-1, 1], "snapshot"), ([-1, 1], "snapshot"),
                                ([1, -1], "random")):
        callback._record({"returns": standings, "standings": standings, "learner_seat": 0,
                          "opponent_tags": [None, opponent]})
    callback._on_rollout_end()
    assert logged == pytest.approx({"selfplay/win_rate_vs_snapshot": 1 / 3, "selfplay/win_rate_vs_random": 1.0,
                                    "selfplay/pool_size": 2,  # the random anchor and the snapshot
                                    "selfplay/snapshots": 1, "selfplay/snapshots_gated_out": 0,
                                    "selfplay/gate_win_rate": 1 / 3})  # the random anchor's game is not judged


def test_the_training_win_rates_and_the_checkpoint_keep_the_last_200_games_against_each_opponent(toy, tmp_path):
    from training.callbacks import SelfPlayCallback
    from training.pool import OpponentPool

    callback = SelfPlayCallback(load_config(data=quiet_tiny(tmp_path)), OpponentPool(toy, 0.5, 0.0), tmp_path / "run")
    for won in [False] * 100 + [True] * 200:  # lost the first 100, won the 200 since
        standings = [1, -1] if won else [-1, 1]
        callback._record({"returns": standings, "standings": standings, "learner_seat": 0,
                          "opponent_tags": [None, "random"]})
    # the window moves on: a long run's state.json does not grow with every game it played
    assert callback.state()["recent"] == {"random": [1.0] * 200}


def _checkpointing_callback(toy, tmp_path, save):
    """A SelfPlayCallback whose model (at step 512) writes ``save(path)`` as its model.zip."""
    from types import SimpleNamespace

    from training.callbacks import SelfPlayCallback
    from training.pool import OpponentPool

    callback = SelfPlayCallback(load_config(data=quiet_tiny(tmp_path)), OpponentPool(toy, 0.5, 0.0), tmp_path / "run")
    callback.model = SimpleNamespace(num_timesteps=512, save=save)
    return callback


def test_a_checkpoint_rewrite_cut_off_between_its_files_leaves_no_state_json_to_mark_it_whole(toy, tmp_path,
                                                                                           monkeypatch):
    # the final checkpoint rewrites the last scheduled one's folder: once its new model.zip is in and pool.pkl
    # failed to follow, the folder holds a model and a pool of different steps, which --resume must not take
    import errno

    from training.train import latest_checkpoint

    callback = _checkpointing_callback(toy, tmp_path, lambda path: Path(path).write_bytes(b"the first model"))
    folder = callback.checkpoint()
    assert latest_checkpoint(tmp_path / "run") == folder
    real_replace = Path.replace

    def disk_full_at_the_pool(self, target):
        if Path(target).name == "pool.pkl":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", disk_full_at_the_pool)
    callback.model.save = lambda path: Path(path).write_bytes(b"the second model")
    with pytest.raises(OSError, match="No space left"):
        callback.checkpoint()
    assert (folder / "model.zip").read_bytes() == b"the second model"
    assert latest_checkpoint(tmp_path / "run") is None and sorted(p.name for p in folder.iterdir()) == ["model.zip",
                                                                                                       "pool.pkl"]


def test_an_interrupt_while_a_checkpoint_is_written_lands_once_the_checkpoint_is_whole(toy, tmp_path):
    def interrupted_save(path):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of the model's file
        time.sleep(0.05)  # the handler runs between bytecodes: here, were it not deferred
        Path(path).write_bytes(b"the model")

    callback = _checkpointing_callback(toy, tmp_path, interrupted_save)
    with pytest.raises(KeyboardInterrupt):
        callback.checkpoint()
    folder = tmp_path / "run" / "checkpoints" / "step_000000512"
    assert sorted(p.name for p in folder.iterdir()) == ["model.zip", "pool.pkl", "state.json"]
    assert (folder / "model.zip").read_bytes() == b"the model"


def test_a_resume_whose_recipe_moved_a_phase_records_that_phase_at_the_step_it_applies_it(toy, tmp_path, capsys):
    # the checkpoint's record of a phase at 512 is not the recipe's phase at 600: that one is applied now, at the
    # resume's step, and recorded so, not as the old phase applied at 512
    from types import SimpleNamespace

    from training.callbacks import SelfPlayCallback
    from training.pool import OpponentPool

    cfg = load_config(data=quiet_tiny(tmp_path, phases=[{"at": 600, "set": {"ppo.ent_coef": 0.0}}]))
    state = {"history": [{"steps": 0}], "next_snapshot": 1024, "next_eval": 1024, "next_checkpoint": 1024,
             "phases_applied": [{"at": 512, "step": 512, "set": {"ppo.ent_coef": 0.005}}]}
    callback = SelfPlayCallback(cfg, OpponentPool(toy, 0.5, 0.0), tmp_path / "run", state)
    callback.model = SimpleNamespace(learning_rate=3e-4, ent_coef=0.01, _setup_lr_schedule=lambda: None)
    callback.num_timesteps = 768
    assert callback._apply_phases()
    assert callback.phases_applied == [{"at": 600, "step": 768, "set": {"ppo.ent_coef": 0.0}}]
    assert callback.model.ent_coef == 0.0 and "[phase] step 768: " in capsys.readouterr().out


def test_a_phase_sets_the_anchor_shares_the_snapshot_choice_and_the_entropy_bonus(toy, tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    deals = _deal_spy(monkeypatch)
    data = quiet_tiny(tmp_path, phases=[{"at": 2, "set": {"selfplay.random_weight": 0.0,
                                                          "selfplay.play_latest_ratio": 1.0, "ppo.ent_coef": 0.0}}])
    summary = train(load_config(data=data))
    assert summary["phases_applied"][0]["step"] == 2
    after = [name for opponents in deals[2:] for name in opponents]  # the first two deals come before step 2
    assert after and "random" not in after  # random_weight 0: only snapshots
    steps = [int(name.split("@")[1]) for name in after]
    assert steps == sorted(steps) and steps[-1] >= 512  # play_latest_ratio 1: always the newest, never an older one
    assert MaskablePPO.load(tmp_path / "run" / "final_model.zip", device="cpu").ent_coef == 0.0


def test_a_phase_that_raises_the_gate_keeps_later_snapshots_out_of_the_pool(toy, tmp_path):
    data = quiet_tiny(tmp_path, phases=[{"at": 512, "set": {"selfplay.gate_win_rate": 1.0}}])
    summary = train(load_config(data=data))
    assert summary["snapshots_gated_out"] == 3  # the attempts at 512 (phase first), 768 and 1024
    assert summary["snapshots"] == ["snapshot@0", "snapshot@256"]


def test_a_low_gate_opens_once_the_learner_has_played_enough_games_against_the_snapshots(toy, tmp_path):
    # the gate needs min(20, gate_episodes) recorded games against snapshots; any score beats 0.01
    data = quiet_tiny(tmp_path, selfplay={"gate_win_rate": 0.01, "gate_episodes": 20})
    summary = train(load_config(data=data))
    assert summary["snapshots_gated_out"] == 0 and summary["snapshots"] == ["snapshot@768", "snapshot@1024"]


def test_a_frozen_snapshot_starts_the_gate_s_count_afresh(toy, tmp_path):
    # the gate judges the learner on the games since the last snapshot; the training win rates keep them all
    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 512}, selfplay={"gate_episodes": 1000},
                      output={"checkpoint_every": 384})
    train(load_config(data=data))
    state = json.loads((tmp_path / "run" / "checkpoints" / "step_000000384" / "state.json").read_text(encoding="utf-8"))
    gate, against_snapshots = state["gate_results"], state["recent"]["snapshot"]
    assert 0 < len(gate) < len(against_snapshots)  # games since the freeze at 256, out of those since step 0
    assert gate == against_snapshots[-len(gate):]


@pytest.mark.parametrize("case, selfplay, phases", [
    ("the initial snapshot", {"snapshot_every": 10_000}, []),
    ("a snapshot frozen during training", {"initial_snapshot": False, "snapshot_every": 128}, []),
    ("a phase's anchor shares", {"random_weight": 1.0, "snapshot_every": 10_000},
     [{"at": 128, "set": {"selfplay.random_weight": 0.0}}]),
])
def test_subproc_workers_play_against_the_pool_as_the_learner_changes_it(tmp_path, case, selfplay, phases):
    # each worker holds its own copy of the pool: every change must be sent to it, or it never plays a snapshot
    data = {"env": "terralore_v0", "seed": 1, "vec": {"kind": "subproc", "n_envs": 2}, "phases": phases,
            "ppo": {"total_timesteps": 384, "n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
            "selfplay": {"heuristic_weight": 0.0, "random_weight": 0.0, "gate_win_rate": 0.0, **selfplay},
            "eval": {"every": 10**9, "games": 2, "final_games": 0, "opponents": ["random"]},
            "output": {"dir": str(tmp_path / "run"), "checkpoint_every": 10**9, "progress_bar": False,
                       "export": False, "learning_curve": False, "tensorboard": False}}
    summary = train(load_config(data=data))
    state = json.loads((tmp_path / "run" / "checkpoints" / f"step_{summary['steps']:09d}" / "state.json").read_text(encoding="utf-8"))
    assert state["recent"].get("snapshot"), f"{case}: the workers never played a snapshot"


@pytest.mark.parametrize("kind, expected", [("batched", "SelfPlayVecEnv"), ("dummy", "DummyVecEnv")])
def test_vec_kind_builds_the_vector_env_the_recipe_names(toy, kind, expected):
    from training.pool import OpponentPool
    from training.train import make_vec_env

    cfg = load_config(data={"env": "toy_v0", "vec": {"kind": kind, "n_envs": 2}})
    venv = make_vec_env(cfg, OpponentPool("toy_v0", random_weight=1.0, heuristic_weight=0.0))
    try:
        assert type(venv.venv).__name__ == expected and venv.num_envs == 2
    finally:
        venv.close()


def test_a_fresh_run_prints_sb3_s_table_only_when_output_verbose_asks(toy, tmp_path, capsys):
    for verbose in (1, 0):
        data = quiet_tiny(tmp_path, name=f"v{verbose}", ppo={"total_timesteps": 256},
                          output={"tensorboard": True, "verbose": verbose})
        train(load_config(data=data))
        assert ("total_timesteps" in capsys.readouterr().out) == bool(verbose), f"verbose {verbose}"


def test_the_value_network_has_the_recipe_s_hidden_layers_and_activation_like_the_policy_network(toy, tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256, "net_arch": [16, 8],
                                                     "activation": "relu"}, output={"export": True})))
    extractor = MaskablePPO.load(tmp_path / "run" / "final_model.zip", device="cpu").policy.mlp_extractor

    def widths(net):
        return [m.out_features for m in net if isinstance(m, torch.nn.Linear)]

    def activations(net):
        return [type(m).__name__ for m in net if not isinstance(m, torch.nn.Linear)]

    assert widths(extractor.value_net) == widths(extractor.policy_net) == [16, 8]
    assert activations(extractor.value_net) == activations(extractor.policy_net) == ["ReLU", "ReLU"]
    assert json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))["network"]["activation"] == "relu"


@pytest.mark.parametrize("resumed", [False, True])
def test_a_run_and_its_resume_take_every_resumable_ppo_setting_from_the_recipe(toy, tmp_path, resumed):
    from sb3_contrib import MaskablePPO

    from training.train import RESUMABLE_PPO_KEYS

    data, run = finished_tiny_run(tmp_path, 256)
    new = {"learning_rate": 0.05, "n_steps": 64, "batch_size": 32, "n_epochs": 3, "gamma": 0.9, "gae_lambda": 0.8,
           "clip_range": 0.3, "ent_coef": 0.02, "vf_coef": 0.25, "max_grad_norm": 0.7}
    assert set(new) == set(RESUMABLE_PPO_KEYS)
    data["ppo"] = {**data["ppo"], "total_timesteps": 512, **new}
    train(load_config(data=data), resume=resumed)
    model = MaskablePPO.load(run / "final_model.zip", device="cpu")
    got = {key: getattr(model, key) for key in new}
    got["clip_range"] = model.clip_range(1.0)  # SB3 keeps it as a schedule
    assert got == new


def test_each_resume_deals_games_of_its_own_not_those_of_an_earlier_resume(toy, tmp_path, monkeypatch):
    from tabletop_envs.core.single_agent import SingleAgentEnv

    deals = []
    real_deal = SingleAgentEnv.deal

    def recording_deal(self):
        real_deal(self)
        deals.append((self.learner_seat, tuple(map(tuple, self.game_state.hands))))

    monkeypatch.setattr(SingleAgentEnv, "deal", recording_deal)
    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256})
    train(load_config(data=data))
    parts = []
    for total in (512, 768):
        deals.clear()
        data["ppo"] = {**data["ppo"], "total_timesteps": total}
        train(load_config(data=data), resume=True)
        parts.append(deals[:40])
    assert sum(a == b for a, b in zip(*parts)) < 10  # the resume at 512 is seeded apart from the one at 256


def test_resume_with_a_recipe_for_other_rules_of_the_same_game_is_refused(toy, tmp_path):
    data, run = finished_tiny_run(tmp_path, 256)
    before = folder_bytes(run)
    other = {**data, "env_kwargs": {"turns": 8}, "ppo": {**data["ppo"], "total_timesteps": 512}}
    with pytest.raises(ConfigError, match=r"trains toy_v0 with \{'turns': 6\}, this recipe toy_v0 with \{'turns': 8\}"):
        train(load_config(data=other), resume=True)
    assert folder_bytes(run) == before


def test_resume_with_another_activation_is_refused_naming_it(toy, tmp_path):
    data, run = finished_tiny_run(tmp_path, 256)
    before = folder_bytes(run)
    other = {**data, "ppo": {**data["ppo"], "total_timesteps": 512, "activation": "relu"}}
    with pytest.raises(ConfigError, match="its ppo.activation is tanh, this recipe's relu"):
        train(load_config(data=other), resume=True)
    assert folder_bytes(run) == before


def test_resume_keeps_the_checkpoint_schedule(toy, tmp_path):
    data, run = finished_tiny_run(tmp_path, 512)
    data["ppo"] = {**data["ppo"], "total_timesteps": 1024}
    train(load_config(data=data), resume=True)
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["step_000000512", "step_000001024"]


def test_update_threads_are_capped_at_the_machine_s_cores(monkeypatch):
    import training.train as tt

    monkeypatch.setattr(tt.os, "cpu_count", lambda: 2)
    assert [tt.update_thread_count(n) for n in (1, 2, 8)] == [1, 2, 2]
    monkeypatch.setattr(tt.os, "cpu_count", lambda: None)  # unknown: one
    assert tt.update_thread_count(4) == 1
    assert tt.busy_core_hint(1, cores=1, load=1.5) is None, "one core and one thread: nothing to lower"


def test_a_run_on_a_platform_without_a_load_average_trains_and_exports(toy, tmp_path, monkeypatch):
    """Windows has no os.getloadavg: the run began by reading it (AttributeError) for the busy-core hint,
    and read it again for the sidecar's machine record."""
    import os

    from training.model_card import card

    monkeypatch.delattr(os, "getloadavg")
    cfg = load_config(data={**TINY, "output": {**TINY["output"], "dir": str(tmp_path / "models" / "toy")}})
    train(cfg)
    meta = json.loads((tmp_path / "models" / "toy" / "ppo.json").read_text(encoding="utf-8"))
    assert "load_average_at_end" not in meta["training"]["machine"], meta["training"]["machine"]
    assert "its own work included: ?)" in card(tmp_path / "models")


@pytest.mark.parametrize("deterministic, act", [(False, "sample"), (True, "argmax")])
def test_a_run_evaluates_and_ships_its_policy_as_eval_deterministic_says(toy, tmp_path, monkeypatch, deterministic,
                                                                         act):
    # Travel Earth's recipe samples (argmax stalls into draws): its evaluations and its export must too
    import training.train as train_module

    played, real = [], train_module.anchor_evaluation

    def recording(env, policy, *args, **kwargs):
        played.append(policy.deterministic)
        return real(env, policy, *args, **kwargs)

    monkeypatch.setattr(train_module, "anchor_evaluation", recording)
    train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256},
                                      eval={"deterministic": deterministic, "final_games": 4},
                                      output={"export": True})))
    meta = json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))
    assert played and set(played) == {deterministic}  # the scheduled evaluations and the final one
    assert meta["act"] == act and meta["evaluation"]["protocol"].endswith(f"masked {act}")
    assert load_policy(str(tmp_path / "run" / "ppo.onnx")).deterministic is deterministic


@pytest.mark.parametrize("sampling, deterministic", [("sample", False), ("argmax", True)])
def test_snapshots_play_as_selfplay_snapshot_sampling_says(toy, tmp_path, sampling, deterministic):
    train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256},
                                      selfplay={"snapshot_sampling": sampling})))
    with open(tmp_path / "run" / "checkpoints" / "step_000000256" / "pool.pkl", "rb") as fh:
        snapshots = pickle.load(fh)["snapshots"]
    assert snapshots and all(s["deterministic"] is deterministic for s in snapshots)


def test_a_checkpoint_cut_off_while_its_folder_is_rewritten_is_not_taken_for_a_whole_one(toy, tmp_path, monkeypatch):
    # the final checkpoint rewrites the folder of the scheduled one at the same step; cut off, it must leave
    # no new model beside the old state.json: the scheduled checkpoint stays as it was, whole
    import training.train as tt
    from training import callbacks

    real_state, calls = callbacks.SelfPlayCallback.state, []

    def cut_off_the_second_time(self):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("killed while writing the final checkpoint")
        return real_state(self)

    monkeypatch.setattr(callbacks.SelfPlayCallback, "state", cut_off_the_second_time)
    with pytest.raises(RuntimeError, match="killed"):
        train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 512})))
    folder = tmp_path / "run" / "checkpoints" / "step_000000512"
    assert tt.latest_checkpoint(tmp_path / "run") == folder
    assert sorted(p.name for p in folder.iterdir()) == ["model.zip", "pool.pkl", "state.json"]  # no .part left
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(folder / "model.zip").num_timesteps == 512


def test_steps_per_second_leaves_out_the_time_spent_writing_checkpoints(toy, tmp_path, monkeypatch):
    import time

    from training import callbacks

    real_state, slow = callbacks.SelfPlayCallback.state, 0.5

    def slow_state(self):
        time.sleep(slow)
        return real_state(self)

    monkeypatch.setattr(callbacks.SelfPlayCallback, "state", slow_state)
    summary = train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 512},
                                                output={"checkpoint_every": 128})))
    ppo_seconds = summary["steps"] / summary["steps_per_second"]
    # the 4 checkpoints written during learn() sleep 4 * slow: counted as PPO's, they would not be left over
    # (PPO's own time is not bounded here: on a busy machine 512 toy steps took 2.5 s)
    assert summary["train_seconds"] - ppo_seconds > 0.8 * 4 * slow


def test_a_fresh_run_leaves_an_empty_checkpoints_folder_where_it_is(toy, tmp_path):
    (tmp_path / "run" / "checkpoints").mkdir(parents=True)
    train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256})))
    assert not list(tmp_path.glob("run/before-*"))  # nothing of an earlier run to set aside
    assert (tmp_path / "run" / "checkpoints" / "step_000000256" / "state.json").exists()


def test_selection_ties_go_to_the_later_model(toy, tmp_path, monkeypatch):
    import training.train as tt

    real = tt.anchor_evaluation

    def all_equal(env, policy, games, seed, anchors, **kw):
        result = real(env, policy, games, seed=seed, anchors=anchors, **kw)
        result[f"vs_{anchors[0]}"]["score"] = 0.5
        return result

    monkeypatch.setattr(tt, "anchor_evaluation", all_equal)
    data = quiet_tiny(tmp_path, eval={"select_games": 4, "select_every": 256, "select_anchor": "random"},
                      output={"checkpoint_every": 256})
    selection = train(load_config(data=data))["selection"]
    assert [c["steps"] for c in selection["candidates"]] == [256, 512, 768, 1024]
    assert selection["selected_steps"] == 1024


def test_the_selection_reports_the_games_it_played_not_the_games_asked_for(toy, tmp_path, capsys):
    # 3 asked at two seats are 2 deals from both seats: 4 games, which the scores are over (at Earth's
    # 4-player table 4 asked were 8 played, and the selection said "4 games")
    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 512},
                      eval={"select_games": 3, "select_every": 256, "select_anchor": "random"},
                      output={"checkpoint_every": 256})
    selection = train(load_config(data=data))["selection"]
    assert selection["games"] == 4
    assert "vs random (4 games)" in capsys.readouterr().out


def test_the_final_evaluation_is_printed_apart_from_the_last_scheduled_one_at_its_step(toy, tmp_path, capsys):
    # both printed "[eval] step 512": a reader took the final evaluation's games for a second scheduled one
    train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 512}, eval={"final_games": 6})))
    lines = [line for line in capsys.readouterr().out.splitlines() if " step 512: win rate" in line]
    assert [line.split(" step")[0] for line in lines] == ["[eval]", "[final eval]"]
    assert "(20 games each" in lines[0] and "(6 games each" in lines[1]


def test_torch_uses_ppo_torch_threads_outside_the_update_even_after_an_update_cut_short(toy, tmp_path, monkeypatch):
    import torch
    from sb3_contrib import MaskablePPO

    import training.train as tt

    seen, real_evaluate = [], tt.evaluate_model

    def recording_evaluate(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real_evaluate(*args, **kwargs)

    def interrupted_update(self):
        raise KeyboardInterrupt  # the user stops the run while the update holds ppo.update_threads

    monkeypatch.setattr(tt, "evaluate_model", recording_evaluate)
    monkeypatch.setattr(MaskablePPO, "train", interrupted_update)
    before = torch.get_num_threads()
    torch.set_num_threads(3)  # whatever the process had before train()
    try:
        data = quiet_tiny(tmp_path, ppo={"torch_threads": 1, "update_threads": 2}, eval={"final_games": 20})
        summary = train(load_config(data=data))
        after = torch.get_num_threads()
    finally:
        torch.set_num_threads(before)
    assert summary["interrupted"] and summary["steps"] == 256  # cut off in the first update
    assert seen == [1, 1] and after == 1  # the step-0 and the final evaluation, and what train() leaves


def test_a_run_with_learning_curve_off_draws_no_curve(toy, tmp_path):
    summary = train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256})))
    assert "learning_curve" not in summary and not (tmp_path / "run" / "learning_curve.png").exists()


def test_a_run_with_no_evaluation_anchors_draws_its_curve_without_a_legend_warning(tmp_path):
    import warnings

    from training.train import learning_curve_png

    # eval.opponents: [] leaves each point its step and time only; a legend of nothing warned "No artists"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        learning_curve_png([{"steps": 0, "eval_seconds": 0.1}], tmp_path / "curve.png", "toy_v0, seed 1")
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")


def test_the_command_a_resumed_run_records_reproduces_the_whole_run_without_resume(toy, tmp_path, capsys):
    import yaml

    recipe = tmp_path / "toy.yaml"
    recipe.write_text(yaml.safe_dump(quiet_tiny(tmp_path, ppo={"total_timesteps": 256})), encoding="utf-8")
    main(["--config", str(recipe)])
    capsys.readouterr()
    main(["--config", str(recipe), "--resume", "--set", "ppo.total_timesteps=512"])
    # --resume continued the run from its checkpoint, not afresh with the first run set aside
    assert "resuming from " in capsys.readouterr().out and not list((tmp_path / "run").glob("before-*"))
    command = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))["training"]["command"]
    assert command == f"python -m training.train --config {recipe} --set ppo.total_timesteps=512"


def test_a_resumed_runs_wall_time_and_commands_are_every_parts(toy, tmp_path):
    # the sidecar's wall time counted the last part alone (2.8 s of an 11 s run), and only its command was kept
    import yaml

    recipe = tmp_path / "toy.yaml"
    recipe.write_text(yaml.safe_dump(quiet_tiny(tmp_path, ppo={"total_timesteps": 256},
                                                output={"export": True})), encoding="utf-8")
    first = main(["--config", str(recipe)])
    assert first["parts"] == [{"command": f"python -m training.train --config {recipe}", "steps": [0, 256],
                               "seconds": first["train_seconds"]}]
    assert first["train_seconds_all_parts"] == first["train_seconds"]
    second = main(["--config", str(recipe), "--resume", "--set", "ppo.total_timesteps=512"])
    before, last = second["parts"]
    # the first part up to its checkpoint, written after its time was taken
    assert before["command"] == first["parts"][0]["command"] and before["steps"] == [0, 256]
    assert before["seconds"] >= first["train_seconds"] > 0
    assert last == {"command": f"python -m training.train --config {recipe} --set ppo.total_timesteps=512",
                    "steps": [256, 512], "seconds": second["train_seconds"]}
    assert second["train_seconds_all_parts"] == round(before["seconds"] + last["seconds"], 1) > second["train_seconds"]
    sidecar = json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))["training"]
    assert sidecar["wall_time_s"] == second["train_seconds_all_parts"] and sidecar["parts"] == second["parts"]
    from training.export import main as export_main  # the same from the run folder afterwards

    export_main(["--model", str(tmp_path / "run" / "final_model.zip"), "--out", str(tmp_path / "m" / "ppo")])
    again = json.loads((tmp_path / "m" / "ppo.json").read_text(encoding="utf-8"))["training"]
    assert again["wall_time_s"] == second["train_seconds_all_parts"] and again["parts"] == second["parts"]


def test_a_run_resumed_from_a_checkpoint_without_its_parts_records_their_time_as_unknown(toy, tmp_path):
    # a checkpoint written before parts were kept: its steps are known, not its time, so no total is made up
    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256}, output={"export": True})
    train(load_config(data=data))
    state_json = tmp_path / "run" / "checkpoints" / "step_000000256" / "state.json"
    state = json.loads(state_json.read_text(encoding="utf-8"))
    del state["parts"]
    state_json.write_text(json.dumps(state), encoding="utf-8")
    data["ppo"] = {**data["ppo"], "total_timesteps": 512}
    summary = train(load_config(data=data), resume=True)
    assert summary["parts"][0] == {"command": None, "steps": [0, 256], "seconds": None}
    assert summary["train_seconds_all_parts"] is None and summary["train_seconds"] > 0
    assert json.loads((tmp_path / "run" / "ppo.json").read_text(encoding="utf-8"))["training"]["wall_time_s"] is None


def test_the_command_a_run_records_quotes_an_argument_with_a_space_as_one_word(toy, tmp_path, monkeypatch):
    import shlex

    import yaml

    import training.train as train_module

    recipe = tmp_path / "my recipe.yaml"
    recipe.write_text(yaml.safe_dump(quiet_tiny(tmp_path)), encoding="utf-8")
    commands = []
    monkeypatch.setattr(train_module, "train", lambda cfg, resume, command: commands.append(command) or {})
    main(["--config", str(recipe), "--set", "ppo.total_timesteps=256"])
    assert shlex.split(commands[0]) == ["python", "-m", "training.train", "--config", str(recipe),
                                        "--set", "ppo.total_timesteps=256"]


def start_a_long_run(run: Path, vec_kind: str, **popen):
    """``python -m training.train`` of ten million steps into ``run``, once its first checkpoint is written."""
    import subprocess
    import sys

    sets = {"env": "terralore_v0", "seed": 1, "ppo.total_timesteps": 10_000_000, "ppo.n_steps": 64,
            "ppo.batch_size": 64, "ppo.n_epochs": 1, "ppo.net_arch": "[16]", "vec.n_envs": 2,
            "vec.kind": vec_kind, "selfplay.heuristic_weight": 0.0, "eval.every": 10_000_000,
            "eval.final_games": 8, "eval.opponents": "[random]", "output.checkpoint_every": 256,
            "output.progress_bar": "false", "output.learning_curve": "false", "output.dir": str(run)}
    popen = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "preexec_fn": stop_signals_at_their_defaults,
             **popen}
    proc = subprocess.Popen([sys.executable, "-m", "training.train", *(f"--set={k}={v}" for k, v in sets.items())],
                            text=True, cwd=Path(__file__).resolve().parents[2], **popen)
    deadline = time.monotonic() + 120
    while not list((run / "checkpoints").glob("step_*/state.json")) and time.monotonic() < deadline:
        time.sleep(0.1)
    if proc.poll() is not None:
        pytest.fail(proc.stdout.read() if proc.stdout else f"the run ended with status {proc.returncode}")
    return proc


@pytest.mark.skipif(not hasattr(signal, "SIGHUP") or not hasattr(os, "openpty"), reason="POSIX terminals")
def test_a_terminal_that_closes_stops_a_run_as_ctrl_c_does_and_its_lines_go_nowhere(tmp_path):
    # an ssh session that dropped: SIGHUP ended the run on the spot, losing the steps since its last
    # checkpoint, and each line printed to the terminal gone would fail with EIO
    terminal, its_end = os.openpty()
    run = tmp_path / "run"
    try:
        proc = start_a_long_run(run, "batched", stdout=its_end, stderr=its_end)
    finally:
        os.close(its_end)
    try:
        os.close(terminal)  # hung up: the run's next write to it fails with EIO
        terminal = None
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=120) == 130  # stopped early, as Ctrl-C ends it
    finally:
        if terminal is not None:
            os.close(terminal)
        proc.kill()
        proc.wait()
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["interrupted"] and f"step_{summary['steps']:09d}" in {
        p.parent.name for p in (run / "checkpoints").glob("step_*/state.json")}
    assert json.loads((run / "ppo.json").read_text(encoding="utf-8"))["training"]["stopped_early"] is True


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
@pytest.mark.parametrize("vec_kind, to_group, sig", [
    ("batched", False, "SIGTERM"),  # `kill <pid>`
    # a terminal's Ctrl-C and a batch scheduler's SIGTERM reach every process of the group: the
    # SubprocVecEnv workers died with the trainer, which then ended on a BrokenPipeError closing them
    ("subproc", True, "SIGINT"),
    ("subproc", True, "SIGTERM"),
    ("subproc", True, "SIGHUP")])  # a terminal that closed
def test_sigterm_stops_a_run_as_ctrl_c_does_with_a_checkpoint_an_evaluation_and_an_export(
        tmp_path, vec_kind, to_group, sig):
    import os

    run = tmp_path / "run"
    proc = start_a_long_run(run, vec_kind, start_new_session=to_group)
    try:
        first = {p.parent.name for p in (run / "checkpoints").glob("step_*/state.json")}
        workers = descendants(proc.pid)
        if to_group:
            signal_the_group_parent_last(proc.pid, getattr(signal, sig))
        else:
            proc.send_signal(getattr(signal, sig))
        out, _ = proc.communicate(timeout=120)
    finally:
        if to_group:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
    # saved, evaluated and exported, then the interrupt's status, as every command ends one: a script's next step
    # (`train && evaluate`) and a retry loop see that the run did not finish
    assert proc.returncode == 130 and "interrupted at" in out and "Traceback" not in out, out
    assert "stopped early at" in out and "--resume continues the run" in out, out
    assert not outlived(workers), "a worker outlived the trainer"
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert summary["interrupted"] and summary["steps"] < 10_000_000
    # the checkpoint of the moment it stopped, beside the scheduled ones: --resume loses nothing
    complete = {p.parent.name for p in (run / "checkpoints").glob("step_*/state.json")}
    assert f"step_{summary['steps']:09d}" in complete and complete >= first
    meta = json.loads((run / "ppo.json").read_text(encoding="utf-8"))
    assert meta["training"]["stopped_early"] is True and meta["evaluation"]["vs_random"]["games"] == 8


@pytest.mark.parametrize("interrupted, bad_recipe, status", [(False, False, 0), (True, False, 130), (False, True, 2)])
def test_the_command_ends_a_run_stopped_early_with_the_interrupts_status_and_a_finished_one_with_0(
        monkeypatch, capsys, interrupted, bad_recipe, status):
    import training.train as train_module

    def main(argv):
        if bad_recipe:
            raise ConfigError("ppo.n_stepz is not a key")
        return {"interrupted": interrupted, "steps": 4096}

    monkeypatch.setattr(train_module, "main", main)
    with pytest.raises(SystemExit) as exit_info:
        train_module.cli()
    assert exit_info.value.code == status
    said = capsys.readouterr().err
    assert ("stopped early at 4096 steps: --resume continues the run" in said) == interrupted, said


@needs_proc
def test_a_subproc_worker_that_dies_ends_the_run_with_a_checkpoint_and_an_error_naming_resume(tmp_path):
    # the out-of-memory killer ends the biggest process: the trainer ended on an EOFError traceback,
    # with nothing saved since the last checkpoint, then hung at exit ending the other workers
    import os

    run = tmp_path / "run"
    proc = start_a_long_run(run, "subproc")
    try:
        workers = [pid for pid in descendants(proc.pid) if pid not in children(proc.pid)]  # the forkserver's
        os.kill(workers[-1], signal.SIGKILL)
        out, _ = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 2 and "Traceback" not in out, out
    assert "worker process died at" in out and "--resume continues the run" in out, out
    saved = out.split("The run is saved in ")[1].split(":")[0]
    assert (Path(saved) / "state.json").exists()
    assert not outlived(workers)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_a_subproc_worker_that_dies_after_the_last_step_leaves_the_run_to_finish_and_export(tmp_path, monkeypatch):
    # during the last PPO update, when no step asks the workers any more: closing them ended the run on a
    # BrokenPipeError, with no final model or export, and the trainer then hung at exit
    from sb3_contrib import MaskablePPO

    real_learn = MaskablePPO.learn

    def learn_then_a_worker_dies(self, *args, **kwargs):
        model = real_learn(self, *args, **kwargs)
        worker = self.env.unwrapped.processes[0]
        os.kill(worker.pid, signal.SIGKILL)
        worker.join(timeout=30)
        return model

    monkeypatch.setattr(MaskablePPO, "learn", learn_then_a_worker_dies)
    data = {**quiet_tiny(tmp_path, env="terralore_v0", ppo={"total_timesteps": 128, "n_steps": 64},
                         output={"export": True}), "vec": {"kind": "subproc", "n_envs": 2}}
    summary = train(load_config(data=data))
    assert summary["steps"] == 128 and (tmp_path / "run" / "final_model.zip").exists()
    assert (tmp_path / "run" / "ppo.json").exists() and (tmp_path / "run" / "summary.json").exists()


def test_a_worker_that_dies_before_the_first_step_ends_the_run_saying_nothing_new_was_trained(toy, tmp_path,
                                                                                                monkeypatch):
    # the callback had not started: "saving" the run then wrote a checkpoint of nothing, or failed on its model
    from sb3_contrib import MaskablePPO

    import training.train as train_module
    from tabletop_envs.core.errors import TabletopError

    def died(self, *args, **kwargs):
        raise EOFError  # a worker's pipe, read to its end before the first step

    monkeypatch.setattr(MaskablePPO, "learn", died)
    monkeypatch.setattr(train_module, "a_worker_died", lambda venv: True)
    with pytest.raises(TabletopError, match=r"died at 0 steps .*Nothing was trained since the last checkpoint, if any: "
                                            r"--resume continues the run"):
        train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256})))
    assert not list((tmp_path / "run").glob("checkpoints/step_*"))


def test_a_pipe_error_in_a_run_whose_envs_live_in_the_trainer_is_raised_as_it_is_not_called_a_worker_s_death(
        toy, tmp_path, monkeypatch):
    # no worker process to have died: an EOFError of the env's own (a file read to its end) is that error
    from sb3_contrib import MaskablePPO

    def ended(self, *args, **kwargs):
        raise EOFError("the env's own file")

    monkeypatch.setattr(MaskablePPO, "learn", ended)
    with pytest.raises(EOFError, match="the env's own file"):
        train(load_config(data=quiet_tiny(tmp_path, ppo={"total_timesteps": 256})))


def test_a_subproc_worker_that_dies_while_starting_ends_the_run_with_an_error_not_a_pipe_traceback():
    from tabletop_envs.core.errors import TabletopError
    from training.pool import OpponentPool
    from training.train import make_vec_env

    # an option only the worker's env refuses: its traceback is the worker's own, then it ends
    cfg = load_config(data={"env": "terralore_v0", "env_kwargs": {"no_such_option": 1},
                            "vec": {"kind": "subproc", "n_envs": 2}})
    with pytest.raises(TabletopError, match="worker process died while starting.*run the command again"):
        make_vec_env(cfg, OpponentPool(cfg.env, 1.0, 0.0))


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_an_interrupt_while_a_model_file_is_written_lands_once_the_file_is_whole(tmp_path):
    # raised inside torch's zip writer, a SIGTERM left a torn checkpoint and a RuntimeError that no
    # `except KeyboardInterrupt` caught: the run ended in a traceback (seen in a CI run)
    import os

    from training.train import interrupts_deferred, sigterm_as_interrupt

    written = []
    with sigterm_as_interrupt(), pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # the handler runs between bytecodes: here, were it not deferred
            written.append("the rest of the file")
    assert written == ["the rest of the file"]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # both handlers put back


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")
def test_a_callers_own_handler_and_nohups_ignored_sighup_are_left_alone_by_the_trainers_handlers():
    import os

    from training.train import interrupts_deferred, sigterm_as_interrupt

    seen = []

    def own(signum, frame):
        seen.append(signum)

    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGTERM, own)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    try:
        with sigterm_as_interrupt():
            assert signal.getsignal(signal.SIGTERM) is own and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            assert seen == [signal.SIGTERM]  # the caller's handler ran, and no interrupt
            # an ignored SIGHUP stays ignored while a file is written: it neither lands afterwards nor takes the
            # place of the Ctrl-C that came after it
            with pytest.raises(KeyboardInterrupt), interrupts_deferred():
                os.kill(os.getpid(), signal.SIGHUP)
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def test_the_trainers_signal_handlers_are_left_alone_when_it_runs_outside_the_main_thread():
    # only the main thread may set a handler: elsewhere signal.signal raised ValueError before any training
    import threading

    from training.train import interrupts_deferred, sigterm_as_interrupt

    before = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    outcome = []

    def run():
        try:
            with sigterm_as_interrupt(), interrupts_deferred():
                outcome.append({sig: signal.getsignal(sig) for sig in before})
        except Exception as exc:  # noqa: BLE001 - the thread's error is the test's finding
            outcome.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert outcome == [before]


def test_a_run_begun_before_an_option_existed_resumes_under_the_rules_it_trained_by(toy, tmp_path, monkeypatch):
    # its run.json does not name the option, and it trained under options_before_they_existed (as its
    # model's sidecar is read): the absent key refused a resume under those very rules
    import toy_game

    data, run = finished_tiny_run(tmp_path, 256)
    info = json.loads((run / "run.json").read_text(encoding="utf-8"))
    del info["game_config"]["turns"]
    (run / "run.json").write_text(json.dumps(info), encoding="utf-8")
    monkeypatch.setattr(toy_game.ToyGame, "options_before_they_existed", {"turns": 6})
    with pytest.raises(ConfigError, match=r"trains toy_v0 with \{'turns': 6\}, this recipe toy_v0 with \{'turns': 8\}"):
        train(load_config(data={**data, "env_kwargs": {"turns": 8}, "ppo": {**data["ppo"], "total_timesteps": 512}}),
              resume=True)
    data["ppo"] = {**data["ppo"], "total_timesteps": 512}
    assert train(load_config(data=data), resume=True)["steps"] >= 512


def test_a_run_launched_into_a_folder_another_run_is_writing_to_is_refused_and_sets_nothing_aside(
        toy, tmp_path, capsys):
    # the same command launched twice: the second moved the first's files to before-<time>/ while the first
    # went on writing checkpoints into the folder
    from tabletop_envs.core.errors import run_cli

    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}", encoding="utf-8")
    with run_folder_held_elsewhere(run) as first:
        with pytest.raises(ConfigError, match=rf"another run \(pid {first.pid}\) is writing to .*run; wait for it"):
            train(load_config(data=quiet_tiny(tmp_path)))
        argv = [f"--set={k}" for k in ("env=toy_v0", "eval.opponents=[random]", "selfplay.heuristic_weight=0",
                                       f"output.dir={run}")]
        assert run_cli(main, argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: another run (pid ") and err.count("\n") == 1
        assert sorted(p.name for p in run.iterdir()) == ["run.json", "run.lock"]


def test_a_run_folder_whose_run_was_killed_is_free_again(tmp_path):
    # the kernel's lock goes with the process: no stale lock to remove after SIGKILL or the OOM killer
    import os

    from training.config import run_folder_held

    with run_folder_held_elsewhere(tmp_path) as first:
        first.kill()
        first.wait()
    with run_folder_held(tmp_path):
        assert (tmp_path / "run.lock").read_text(encoding="utf-8").strip() == str(os.getpid())


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="a folder no one can make: under Linux's /proc")
def test_an_output_dir_that_cannot_be_made_names_the_key_and_the_fix(tmp_path):
    # "error: [Errno 2] No such file or directory: '/proc/runs'" named neither output.dir nor a fix
    from training.config import run_folder_held

    with pytest.raises(ConfigError, match=r"output.dir '/proc/runs/x': the folder cannot be made \(No such file or "
                                          r"directory\); choose a folder you can write to"):
        with run_folder_held(Path("/proc/runs/x")):
            pass
    with pytest.raises(ConfigError, match=r"output.dir '/proc': no file can be written in the folder \(No such file "
                                          r"or directory\); choose a folder you can write to"):  # was a traceback
        with run_folder_held(Path("/proc")):
            pass


def test_a_disk_that_fills_while_the_summary_is_written_leaves_a_run_that_resumes_into_its_end(toy, tmp_path,
                                                                                               monkeypatch):
    # the torn summary.json made the run look finished to --resume ("nothing left to train"), and
    # training.export failed on "Expecting ',' delimiter", naming no file
    from full_disk import text_writes_fill_the_disk

    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256}, output={"checkpoint_every": 256})
    with monkeypatch.context() as patched:
        text_writes_fill_the_disk(patched, where=lambda path: path.name.startswith("summary.json"))
        with pytest.raises(OSError, match="No space left"):
            train(load_config(data=data))
    assert not list((tmp_path / "run").glob("summary.json*"))
    summary = train(load_config(data=data), resume=True)
    assert json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))["steps"] == summary["steps"]


def test_a_disk_that_fills_while_a_resumed_run_saves_its_final_model_keeps_the_earlier_one_whole(toy, tmp_path,
                                                                                                  monkeypatch):
    # final_model.zip was saved over in place: a resumed run that hit a full disk there lost the model its first
    # part had saved, and export --model runs/<run>/final_model.zip then failed on a torn zip
    import errno

    from sb3_contrib import MaskablePPO

    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256}, output={"checkpoint_every": 256})
    train(load_config(data=data))
    real_save = MaskablePPO.save

    def disk_full_on_the_final_model(self, path, *args, **kwargs):
        if Path(path).name.startswith("final_model.zip"):
            Path(path).write_bytes(b"PK\x03\x04 cut off")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_save(self, path, *args, **kwargs)

    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 512}, output={"checkpoint_every": 256})
    with monkeypatch.context() as patched, pytest.raises(OSError, match="No space left"):
        patched.setattr(MaskablePPO, "save", disk_full_on_the_final_model)
        train(load_config(data=data), resume=True)
    run = tmp_path / "run"
    assert MaskablePPO.load(run / "final_model.zip").num_timesteps == 256
    assert not list(run.glob("*.part"))


def test_the_selection_passes_over_a_checkpoint_whose_writing_was_cut_off(toy, tmp_path):
    # a run killed while writing its final checkpoint (at the step it was interrupted at, which the resumed run
    # does not save again) left a torn model.zip without state.json: --resume passed over it, the selection
    # loaded it and the run ended on "No data found in the saved file" after all its training
    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256}, output={"checkpoint_every": 256})
    train(load_config(data=data))
    checkpoints = tmp_path / "run" / "checkpoints"
    cut_off = checkpoints / "step_000000300"
    cut_off.mkdir()
    whole = (checkpoints / "step_000000256" / "model.zip").read_bytes()
    (cut_off / "model.zip").write_bytes(whole[:len(whole) // 2])
    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 512}, output={"checkpoint_every": 256},
                      eval={"select_games": 4, "select_every": 150, "select_anchor": "random"})
    summary = train(load_config(data=data), resume=True)
    assert [c["steps"] for c in summary["selection"]["candidates"]] == [256, 512]


def test_a_run_folder_on_a_file_system_without_locks_is_written_with_a_note(tmp_path, monkeypatch, capsys):
    # some network and FUSE file systems refuse flock (ENOLCK): the lock must not stop every run there
    import errno

    fcntl = pytest.importorskip("fcntl")
    from training.config import run_folder_held

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with run_folder_held(tmp_path):
        pass
    assert "file system without file locks" in capsys.readouterr().out


def test_a_disk_that_fills_while_the_final_checkpoint_rewrites_the_last_one_keeps_that_one_whole(toy, tmp_path,
                                                                                                  monkeypatch):
    # the final checkpoint rewrites the folder of the last scheduled one (same step): it removed state.json and
    # overwrote model.zip in place, so a full disk there lost the run's newest whole checkpoint
    import errno

    from sb3_contrib import MaskablePPO

    from training.train import latest_checkpoint

    real_save, saved_in = MaskablePPO.save, set()

    def disk_full_on_the_rewrite(self, path, *args, **kwargs):
        folder = Path(path).parent
        if folder.name.startswith("step_") and folder in saved_in:
            Path(path).write_bytes(b"PK\x03\x04 cut off")
            raise OSError(errno.ENOSPC, "No space left on device")
        saved_in.add(folder)
        return real_save(self, path, *args, **kwargs)

    data = quiet_tiny(tmp_path, ppo={"total_timesteps": 256}, output={"checkpoint_every": 256})
    with monkeypatch.context() as patched, pytest.raises(OSError, match="No space left"):
        patched.setattr(MaskablePPO, "save", disk_full_on_the_rewrite)
        train(load_config(data=data))
    run = tmp_path / "run"
    assert latest_checkpoint(run) == run / "checkpoints" / "step_000000256"
    assert MaskablePPO.load(run / "checkpoints" / "step_000000256" / "model.zip").num_timesteps == 256
    assert sorted(p.name for p in (run / "checkpoints" / "step_000000256").iterdir()) == ["model.zip", "pool.pkl",
                                                                                        "state.json"]


def test_a_fixed_opponent_plays_its_share_from_its_phase_on_and_its_training_win_rate_is_logged(toy, tmp_path,
                                                                                                 monkeypatch,
                                                                                                 play_highest):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from tabletop_envs.core import policy

    monkeypatch.setitem(policy._POLICIES, "toy_v0/highest", lambda: play_highest)
    data = quiet_tiny(tmp_path, selfplay={"random_weight": 0.5}, output={"tensorboard": True},
                      phases=[{"at": 512, "set": {"selfplay.opponents": {"highest": 0.5}}}])
    train(load_config(data=data))
    run = tmp_path / "run"
    before = json.loads((run / "checkpoints" / "step_000000512" / "state.json").read_text(encoding="utf-8"))
    after = json.loads((run / "checkpoints" / "step_000001024" / "state.json").read_text(encoding="utf-8"))
    assert "highest" not in before["recent"]
    # from step 512 on: random 0.5, the fixed opponent 0.5, no snapshot drawn; only the two envs' games already
    # under way at the phase may end against one
    new = {tag: len(after["recent"][tag]) - len(before["recent"].get(tag, [])) for tag in after["recent"]}
    assert new["highest"] > 30 and new["random"] > 30 and new.get("snapshot", 0) <= 2, new
    # the highest card wins the toy game's tricks: the young learner scores well under half against it
    assert sum(after["recent"]["highest"]) / len(after["recent"]["highest"]) < 0.5
    (events,) = (run / "tb").rglob("events.out.tfevents*")
    assert "selfplay/win_rate_vs_highest" in EventAccumulator(str(events)).Reload().Tags()["scalars"]


def test_subproc_workers_play_a_shipped_bot_named_as_a_fixed_opponent(tmp_path):
    data = {"env": "terralore_v0", "seed": 1, "vec": {"kind": "subproc", "n_envs": 2},
            "ppo": {"total_timesteps": 256, "n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
            "selfplay": {"heuristic_weight": 0.0, "random_weight": 0.0, "opponents": {"terralore_v0/ppo": 1.0}},
            "eval": {"every": 10**9, "games": 2, "final_games": 0, "opponents": ["random"]},
            "output": {"dir": str(tmp_path / "run"), "checkpoint_every": 10**9, "progress_bar": False,
                       "export": False, "learning_curve": False, "tensorboard": False}}
    summary = train(load_config(data=data))
    state = json.loads((tmp_path / "run" / "checkpoints" / f"step_{summary['steps']:09d}" / "state.json").read_text(
        encoding="utf-8"))
    assert set(state["recent"]) == {"terralore_v0_ppo"} and state["recent"]["terralore_v0_ppo"]


def random_short_travel_earth_ends(kind: str, draw_reward: float, episodes: int) -> list:
    """(reward, info) of the last step of the first ``episodes`` episodes of random learner moves against random
    opponents, in a 2-env vec env of Travel Earth with max_turns 30: about a third of the games are cut short,
    drawn, the rest decided."""
    import numpy as np

    from training.pool import OpponentPool
    from training.train import make_vec_env

    cfg = load_config(data={"env": "travel_earth_v0", "env_kwargs": {"max_turns": 30}, "seed": 0,
                            "vec": {"kind": kind, "n_envs": 2}, "selfplay": {"draw_reward": draw_reward}})
    venv = make_vec_env(cfg, OpponentPool("travel_earth_v0", random_weight=1.0, heuristic_weight=0.0))
    venv.seed(0)
    venv.reset()
    rng, ends = np.random.default_rng(0), []
    while len(ends) < episodes:
        masks = np.stack(venv.env_method("action_masks"))
        _, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        ends += [(float(rewards[i]), infos[i]) for i in np.flatnonzero(dones)]
    venv.close()
    return ends


@pytest.mark.parametrize("kind", ["batched", "dummy", "subproc"])  # subproc: the factory crosses a pickle
@pytest.mark.parametrize("draw_reward", [0.0, -0.25])
def test_draw_reward_is_added_to_the_learners_last_reward_of_a_drawn_game_only(kind, draw_reward):
    ends = random_short_travel_earth_ends(kind, draw_reward, 30)
    drawn = [reward for reward, info in ends if info["standings"][0] == info["standings"][1]]
    decided = [(info["standings"][info["learner_seat"]], reward) for reward, info in ends
               if info["standings"][0] != info["standings"][1]]
    assert len(drawn) >= 3 and len(decided) >= 3
    assert drawn == [draw_reward] * len(drawn)
    assert all(reward == result for result, reward in decided) and {r for r, _ in decided} == {-1.0, 1.0}


@pytest.mark.parametrize("draw_reward", [0.0, -0.25])
def test_draw_reward_makes_a_max_turns_cut_the_episodes_outcome_not_a_time_limit(draw_reward):
    """With a draw reward, a max_turns cut (drawn by the standings) ends the learner's episode as terminated: the
    draw reward is its outcome. Reported truncated, SB3 also bootstrapped the last observation's value, so the
    last target was draw_reward + gamma * V (found by a self-play audit). Without one, a cut stays truncated."""
    import numpy as np

    from training.train import SelfPlayEnv

    cuts = []
    for seed in range(40):
        env = SelfPlayEnv("travel_earth_v0", max_turns=30)
        env.draw_reward = draw_reward
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if terminated or truncated:
                break
        if not env.game_state.is_terminal():  # cut by max_turns
            cuts.append((reward, terminated, truncated, info["standings"]))
    assert len(cuts) >= 5
    assert cuts == [(draw_reward, bool(draw_reward), not draw_reward, [0.0, 0.0])] * len(cuts)

    # and in the vec env SB3 reads: no TimeLimit.truncated, so no bootstrap, where the draw reward is the outcome
    drawn = [(reward, info["TimeLimit.truncated"]) for reward, info in
             random_short_travel_earth_ends("batched", draw_reward, 30) if info["standings"] == [0.0, 0.0]]
    assert len(drawn) >= 5
    assert {reward for reward, _ in drawn} == {draw_reward}
    assert any(time_limit for _, time_limit in drawn) == (not draw_reward)


def test_draw_reward_leaves_a_one_seat_game_alone_it_is_never_drawn():
    import numpy as np

    from training.train import SelfPlayEnv

    # solo Earth's one standing always equals itself: the draw cost took half a point off every game
    env = SelfPlayEnv("earth_v0", num_players=1)
    env.draw_reward = -0.5
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while True:
        _, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            break
    assert terminated and reward == info["returns"][0] == info["standings"][0] > 0


def test_a_draw_reward_for_a_one_seat_game_is_refused_before_the_run_folder_is_made(tmp_path):
    data = {"env": "earth_v0", "env_kwargs": {"num_players": 1}, "seed": 0,
            "ppo": {"total_timesteps": 64, "n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [8]},
            "eval": {"every": 10**9, "games": 2, "final_games": 0, "opponents": ["random"]},
            "output": {"dir": str(tmp_path / "run"), "progress_bar": False, "export": False,
                       "learning_curve": False, "tensorboard": False},
            "selfplay": {"draw_reward": -0.5}}
    with pytest.raises(ConfigError, match=r"selfplay.draw_reward -0.5: earth_v0 with 1 player is never drawn .*"
                                          r"set selfplay.draw_reward=0"):
        train(load_config(data=data))
    assert not (tmp_path / "run").exists()


def test_a_one_seat_recipe_is_refused_before_an_earlier_run_is_set_aside(tmp_path):
    # the step-0 evaluation refused it, after the earlier run's checkpoints had been moved aside and its
    # run.json rewritten, so --resume no longer found them
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "run.json").write_text('{"earlier": true}', encoding="utf-8")
    data = {"env": "earth_v0", "env_kwargs": {"num_players": 1}, "seed": 0,
            "ppo": {"total_timesteps": 64, "n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [8]},
            "eval": {"every": 10**9, "games": 2, "final_games": 0, "opponents": ["random"]},
            "output": {"dir": str(run), "progress_bar": False, "export": False, "learning_curve": False,
                       "tensorboard": False}}
    with pytest.raises(ConfigError, match=r"earth_v0 with 1 player has one seat.*env_kwargs.num_players=2"):
        train(load_config(data=data))
    assert sorted(p.name for p in run.iterdir()) == ["checkpoints", "run.json"]
    assert (run / "run.json").read_text(encoding="utf-8") == '{"earlier": true}'


def test_the_history_holds_the_win_rate_under_the_anchors_name_and_the_score_beside_it(tmp_path, monkeypatch):
    # with draws the score (wins + half the draws) is not the win rate; the curve and the [eval] line show the latter
    import types

    from training import train as trainer
    from training.callbacks import SelfPlayCallback
    from training.config import TrainConfig
    from training.evaluate import PairResult
    from training.pool import OpponentPool

    cfg = TrainConfig()
    cfg.env = "terralore_v0"
    rates = PairResult("m", "random", 10, 4, 4, 2).rates()  # 4 wins, 4 draws, 2 losses
    monkeypatch.setattr(trainer, "evaluate_model", lambda *a, **k: {"vs_random": rates, "protocol": "stub"})
    callback = SelfPlayCallback(cfg, OpponentPool("terralore_v0", 1.0, 0.0), tmp_path)
    callback.evaluate(10, model=types.SimpleNamespace(num_timesteps=5))
    point = callback.history[-1]
    assert point["vs_random"] == pytest.approx(0.4) and point["vs_random_score"] == pytest.approx(0.6)
    assert point["vs_random_ci95"] == rates["win"]["ci95"]


@pytest.mark.parametrize("key", ["pretrain", "eval"])
def test_a_fresh_run_naming_the_earlier_runs_own_model_is_refused_before_anything_moves(toy, tmp_path, key):
    # the earlier run was moved aside, then loading its ppo.onnx failed on "no model at" the path just checked
    data = {**TINY, "ppo": {**TINY["ppo"], "total_timesteps": 256},
            "output": {**TINY["output"], "dir": str(tmp_path / "run"), "learning_curve": False},
            "eval": {**TINY["eval"], "final_games": 0}}
    train(load_config(data=data))
    run = tmp_path / "run"
    before = folder_bytes(run)
    model = str(run / "ppo.onnx")
    change = ({"pretrain": {"teacher": model, "games": 4}} if key == "pretrain"
              else {"eval": {**data["eval"], "opponents": ["random", model]}})
    where = "pretrain.teacher" if key == "pretrain" else "eval.opponents"
    with pytest.raises(ConfigError, match=rf"{where} names .*ppo\.onnx, a model of the earlier run in .* moves "
                                          r"aside .* copy the model out of the folder first"):
        train(load_config(data={**data, **change}))
    assert folder_bytes(run) == before and not list(run.glob("before-*"))


@pytest.mark.parametrize("key, unused, used", [("eval.select_anchor", {"eval.select_games": 0}, {"eval.select_games": 4}),
                                               ("distill.opponents", {"distill.games": 0}, {"distill.games": 2})])
def test_a_model_of_the_earlier_run_that_the_recipe_names_but_does_not_play_does_not_stop_a_fresh_run(
        toy, tmp_path, key, unused, used):
    from training.config import TrainConfig
    from training.train import check_models_stay

    run = tmp_path / "run"
    run.mkdir()
    for suffix in (".onnx", ".npz", ".json"):
        (run / f"ppo{suffix}").write_text("the earlier run's", encoding="utf-8")
    section, name = key.split(".")
    model = str(run / "ppo.onnx")

    def recipe(settings) -> TrainConfig:
        data: dict = {"env": "toy_v0", "output": {"dir": str(run)}, section: {name: model if name != "opponents"
                                                                                 else [model]}}
        for setting, value in settings.items():
            part, option = setting.split(".")
            data[part] = {**data.get(part, {}), option: value}
        return load_config(data=data)

    check_models_stay(recipe(unused), run)  # nothing to refuse: the model is not played
    with pytest.raises(ConfigError, match=rf"^{key} names .*ppo\.onnx, a model of the earlier run"):
        check_models_stay(recipe(used), run)


def test_a_fresh_run_may_name_a_model_outside_the_earlier_run_that_it_moves_aside(toy, tmp_path):
    from training.train import check_models_stay

    run, other = tmp_path / "run", tmp_path / "other"
    for folder in (run, other):
        folder.mkdir()
        for suffix in (".onnx", ".npz", ".json"):
            (folder / f"ppo{suffix}").write_text("a run's", encoding="utf-8")
    cfg = load_config(data={"env": "toy_v0", "output": {"dir": str(run)},
                            "eval": {"opponents": ["random", str(other / "ppo.onnx")]}})
    check_models_stay(cfg, run)  # the other run's model stays where it is: nothing to refuse


def _tear(path):
    path.write_bytes(path.read_bytes()[:1000])


@pytest.mark.parametrize("name, damage, why", [
    ("model.zip", _tear, r"cannot be loaded \(.*zip"),  # SB3's bare traceback
    ("model.zip", lambda p: p.unlink(), "is missing"),  # "No such file: .../model.zip.zip"
    ("pool.pkl", lambda p: p.write_bytes(b"garbage\n"), r"cannot be loaded \("),  # a raw traceback
    ("pool.pkl", lambda p: p.unlink(), "is missing"),
    ("state.json", lambda p: p.write_text('{"history', encoding="utf-8"), r"cannot be read \("),  # named no file
    ("state.json", lambda p: p.write_text("[]", encoding="utf-8"), "is no checkpoint state"),  # resumed afresh
    ("state.json", lambda p: p.write_text('{"history": []}', encoding="utf-8"), "is no checkpoint state"),
])
def test_resume_from_a_damaged_checkpoint_is_refused_naming_the_file_and_the_way_on(toy, tmp_path, name, damage,
                                                                                    why):
    data, run = finished_tiny_run(tmp_path, 256)
    checkpoint = run / "checkpoints" / "step_000000256"
    damage(checkpoint / name)
    resume_refused(data, run, rf"--resume: .*step_000000256[/\\]{name} {why}.*move the folder")


def test_resume_with_another_network_without_run_json_is_refused_naming_the_checkpoints_network(toy, tmp_path):
    # with run.json gone, the checkpoint's [16] network trained on and the sidecar recorded the recipe's [32]
    data, run = finished_tiny_run(tmp_path, 256)
    (run / "run.json").unlink()
    before = folder_bytes(run)
    other = {**data, "ppo": {**data["ppo"], "total_timesteps": 512, "net_arch": [32]}}
    # the refusal itself, not wrapped into "model.zip cannot be loaded (ConfigError: ...)"
    with pytest.raises(ConfigError, match=r"^--resume: the checkpoint \S*step_000000256\S*model\.zip holds a network of "
                                          r"ppo\.net_arch=\[16\], ppo\.activation=tanh, and this recipe's is \[32\], tanh: "
                                          r"resume with --set ppo\.net_arch=\[16\]"):
        train(load_config(data=other), resume=True)
    assert folder_bytes(run) == before


def test_the_command_a_run_records_leaves_out_an_abbreviated_resume_too(toy, tmp_path, monkeypatch):
    # argparse takes --res for --resume (any unambiguous prefix): the recorded command kept it, and run again
    # it resumed the run instead of making it again
    import yaml

    import training.train as train_module

    recipe = tmp_path / "toy.yaml"
    recipe.write_text(yaml.safe_dump(quiet_tiny(tmp_path)), encoding="utf-8")
    calls = []
    monkeypatch.setattr(train_module, "train", lambda cfg, resume, command: calls.append((resume, command)) or {})
    for resume in ("--res", "--r"):
        main(["--config", str(recipe), resume, "--set", "ppo.total_timesteps=256"])
    assert calls == [(True, f"python -m training.train --config {recipe} --set ppo.total_timesteps=256")] * 2


@pytest.mark.parametrize("key", ["output.dir", "eval.opponents", "pretrain.teacher"])
def test_a_name_too_long_for_a_file_ends_the_command_in_one_line(toy, tmp_path, capsys, key):
    # each ended training.train on a traceback: OSError "File name too long" from Path.exists() or Path.is_file()
    # (Python before 3.13), as the recipe was checked or as its policies loaded, before any training
    from tabletop_envs.core.errors import run_cli

    long = "a" * 300
    value = {"output.dir": str(tmp_path / long), "eval.opponents": f"[random, {long}]", "pretrain.teacher": long}[key]
    argv = [f"--set={k}" for k in ("env=toy_v0", "eval.opponents=[random]", "selfplay.heuristic_weight=0",
                                   f"output.dir={tmp_path / 'run'}", f"{key}={value}")]
    assert run_cli(main, argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    # a policy id that long is none (since 84bd3d1, before Python 3.13 too); Python 3.13 and later read such a
    # path as no file, and a folder cannot be made
    if key == "output.dir":
        assert sys.version_info >= (3, 13) or "give a shorter file or folder name" in err, err
    else:
        assert err.startswith(f"error: {key}: ") and "no policy registered as " in err, err


@pytest.mark.parametrize("key, section, values", [
    ("eval.opponents", "eval", {"opponents": ["random", "terralore_v0/random"]}),
    ("eval.select_anchor", "eval", {"select_games": 4, "select_anchor": "terralore_v0/random"}),
    ("pretrain.teacher", "pretrain", {"teacher": "terralore_v0/random"}),
    ("distill.opponents", "distill", {"games": 2, "opponents": ["terralore_v0/random"]}),
])
def test_a_policy_that_cannot_play_the_recipes_game_is_refused_naming_its_recipe_key(toy, tmp_path, key, section,
                                                                                     values):
    # the refusal named the policy alone ("policy 'terralore_v0/random' plays terralore_v0, not toy_v0"), while
    # selfplay.opponents' named its key: a recipe may name one policy under several keys, and the user was not
    # told which one to fix
    import re

    data = quiet_tiny(tmp_path)
    data[section] = {**data.get(section, {}), **values}
    with pytest.raises(ConfigError, match=rf"^{re.escape(key)}: 'terralore_v0/random' cannot play toy_v0 \(.*"
                                          rf"plays terralore_v0.*\); fix the name or path in {re.escape(key)}"):
        train(load_config(data=data))
    assert not (tmp_path / "run").exists()
