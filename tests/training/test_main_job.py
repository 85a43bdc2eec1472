"""The README's first command, shrunk: the main job trains (warm start + PPO), exports and plays the round robin."""

from __future__ import annotations

import json

from tabletop_envs import load_policy
from training.main_job import main


def test_the_main_job_trains_exports_and_ranks_the_new_agent_against_the_shipped_opponents(tmp_path, capsys):
    run = tmp_path / "main"
    result = main(["--set", "ppo.total_timesteps=512", "--set", "pretrain.games=30", "--set", "pretrain.epochs=1",
                   "--set", "eval.every=512", "--set", "eval.games=4", "--set", "output.tensorboard=false",
                   "--set", "output.progress_bar=false", "--set", f"output.dir={run}", "--games", "4"])
    out = capsys.readouterr().out
    assert "[pretrain]" in out and "[3/3] summary" in out and "| new agent | heuristic |" in out
    assert result["steps"] >= 512
    assert set(result["round_robin"]["policies"]) == {"new agent", "random", "heuristic", "ppo"}
    assert json.loads((run / "pretrain.json").read_text())["games"] == 30
    assert (run / "main_job.md").exists() and (run / "elo.png").exists()
    assert load_policy(result["exported"]).metadata["env_id"] == "terralore_v0"
