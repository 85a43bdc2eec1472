"""The models card's command line: a missing, misnamed or empty models folder is one clear line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_envs import ConfigError
from tabletop_envs.core.errors import run_cli
from training.model_card import MODELS, main

ROOT = Path(__file__).resolve().parents[2]


def test_a_missing_models_folder_is_one_line_not_a_traceback(tmp_path):
    out = subprocess.run([sys.executable, "-m", "training.model_card", "--models", str(tmp_path / "nonexist")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert out.stderr == f"error: --models {tmp_path / 'nonexist'} does not exist; pass the folder of exported " \
                         "models (<game>/<name>.json sidecars), e.g. --models models\n"


def test_a_folder_without_models_is_refused_and_its_readme_kept(tmp_path, capsys):
    (tmp_path / "terralore").mkdir()
    (tmp_path / "terralore" / "notes.json").write_text("{}", encoding="utf-8")  # a JSON that is no sidecar
    (tmp_path / "README.md").write_text("keep me", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"no exported models under {tmp_path}"):
        main(["--models", str(tmp_path)])
    assert run_cli(main, ["--models", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error: no exported models")
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "keep me"


def test_a_file_as_models_folder_is_refused(tmp_path):
    (tmp_path / "f").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="is a file"):
        main(["--models", str(tmp_path / "f")])


def test_the_card_of_a_copy_of_the_shipped_models_is_written(tmp_path):
    shutil.copytree(MODELS, tmp_path / "models")
    main(["--models", str(tmp_path / "models")])
    assert (tmp_path / "models" / "README.md").read_text(encoding="utf-8") == (MODELS / "README.md").read_text(encoding="utf-8")


def test_a_win_rate_on_its_target_meets_it_and_one_below_is_marked():
    from training.model_card import _rate

    def rates(win):
        return {"vs_random": {"games": 400, "win": {"rate": win, "ci95": [win - 0.02, win + 0.02]},
                              "draw": {"rate": 0.0}}}

    assert "below target" not in _rate(rates(0.95), "vs_random")
    assert "below target" in _rate(rates(0.9475), "vs_random")
    assert "below target" not in _rate({"vs_heuristic": rates(0.60)["vs_random"]}, "vs_heuristic")
    assert "below target" in _rate({"vs_heuristic": rates(0.5975)["vs_random"]}, "vs_heuristic")


def test_the_training_machine_is_named_with_its_processor_where_the_sidecar_has_it():
    from training.model_card import _machine

    assert _machine({"cpus": 2, "cpu": "AMD EPYC"}) == "a 2-core machine (AMD EPYC)"
    assert _machine({"cpus": 2, "load_average_at_end": [1.0]}) == "a 2-core machine"  # sidecars from before


def test_the_warm_start_names_who_taught_which_decisions_and_how_well_they_were_learnt():
    from training.model_card import _warm_start

    plain = {"teacher": "travel_earth_v0/ppo_anti_exploiter", "games": 1000, "samples": 300000,
             "collect_seconds": 28.0, "fit_seconds": 30.0, "holdout_agreement": 0.774}
    assert _warm_start(plain) == ("cloned `travel_earth_v0/ppo_anti_exploiter` from 1,000 recorded games (300,000 "
                                  "decisions, 58 s), 77.4% held-out agreement with it, then PPO")
    taught = {**plain, "decision_teachers": {"statistic": "heuristic"},
              "holdout_agreement_by_decision": {"play": {"samples": 10, "agreement": 0.7},
                                                "statistic": {"samples": 3000, "agreement": 0.957}}}
    assert _warm_start(taught) == ("cloned `travel_earth_v0/ppo_anti_exploiter`, the statistic decisions by "
                                   "`heuristic` from 1,000 recorded games (300,000 decisions, 58 s), 77.4% held-out "
                                   "agreement with it, 95.7% on the statistic decisions, then PPO")
    # a cloning of 20 decisions or fewer holds none out: its report has no agreement (null, not NaN)
    assert "n/a held-out agreement with it" in _warm_start({**plain, "holdout_agreement": None})


def test_the_card_of_a_model_exported_without_a_training_record_is_written(tmp_path):
    # export_policy(..., training=None) writes no steps or wall time: the card failed on formatting them
    import numpy as np

    pytest.importorskip("onnx", reason="needs the [train] extra")
    from tabletop_envs.core.registry import make_game
    from training.export import export_policy
    from training.model_card import card

    game, rng = make_game("terralore_v0"), np.random.default_rng(0)
    weights = [(rng.normal(size=(game.observation_layout.size, 8)), rng.normal(size=8)),
               (rng.normal(size=(8, game.num_actions)), rng.normal(size=game.num_actions))]
    export_policy(weights, "tanh", tmp_path / "terralore" / "mine", "terralore_v0")
    text = card(tmp_path)
    assert "terralore_v0/mine" in text and "| training | ? learner steps" in text and "? min wall time" in text
