"""Learning regression: a short seeded self-play run on Terralore must clearly beat random."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

from training.config import load_config  # noqa: E402
from training.evaluate import play_pair  # noqa: E402
from training.train import train  # noqa: E402


@pytest.mark.slow
def test_short_seeded_terralore_run_beats_random_in_80_percent_of_200_games(tmp_path):
    cfg = load_config(data={
        "env": "terralore_v0", "seed": 0,
        "ppo": {"total_timesteps": 60000, "n_steps": 256, "batch_size": 256, "n_epochs": 4, "net_arch": [128, 128]},
        "vec": {"n_envs": 4},
        "selfplay": {"random_weight": 0.1, "heuristic_weight": 0.3, "snapshot_every": 15000},
        "eval": {"every": 30000, "games": 50, "final_games": 0},
        "output": {"dir": str(tmp_path / "run"), "progress_bar": False, "tensorboard": False,
                   "learning_curve": False, "checkpoint_every": 100000},
    })
    summary = train(cfg)
    result = play_pair("terralore_v0", summary["exported"], "random", 200, seed=2024)
    assert result.games == 200
    assert result.wins / result.games >= 0.80, result
