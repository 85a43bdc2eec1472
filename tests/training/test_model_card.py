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


@pytest.mark.parametrize(("edit", "row"), [
    (lambda r: r["win"].pop("ci95"), "97.0% [?, ?] of 1000, draws 0.3%"),
    (lambda r: r.pop("games"), "97.0% [95.7, 97.9] of ?, draws 0.3%"),
    (lambda r: r.pop("draw"), "97.0% [95.7, 97.9] of 1000, draws ?"),
    (lambda r: r["win"].pop("rate"), "? [95.7, 97.9] of 1000, draws 0.3%"),
    (lambda r: r.pop("win"), "? [?, ?] of 1000, draws 0.3%"),
], ids=["no ci95", "no games", "no draw", "no win rate", "no win"])
def test_a_result_the_sidecar_records_in_part_is_printed_with_a_question_mark_for_each_missing_piece(tmp_path, edit,
                                                                                                      row):
    # the loader's checks pass such a sidecar (a hand-written or older one), and the card ended in a KeyError
    import json

    from training.model_card import card

    shutil.copytree(MODELS / "terralore", tmp_path / "terralore")
    side = tmp_path / "terralore" / "ppo.json"
    meta = json.loads(side.read_text(encoding="utf-8"))
    assert meta["evaluation"]["vs_random"]["games"] == 1000  # the rows below are the shipped model's results
    edit(meta["evaluation"]["vs_random"])
    side.write_text(json.dumps(meta), encoding="utf-8")
    assert f"| vs random | {row} |" in card(tmp_path).splitlines()


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


def test_a_sidecar_that_is_not_json_is_refused_naming_it(tmp_path):
    from tabletop_envs import TabletopError
    from training.model_card import card

    shutil.copytree(MODELS / "terralore", tmp_path / "terralore")
    side = tmp_path / "terralore" / "ppo.json"
    side.write_text(side.read_text(encoding="utf-8")[:200], encoding="utf-8")  # cut short
    with pytest.raises(TabletopError, match=r"ppo\.json is not valid JSON .*; re-export the model or remove the file"):
        card(tmp_path)


@pytest.mark.parametrize(("edit", "problem"), [(lambda meta: meta.pop("network"), "lacks ['network']"),
                                               (lambda meta: meta.update(num_actions="many"),
                                                "num_actions must be a positive int, got 'many'"),
                                               (lambda meta: meta.update(training=[]),
                                                "training must be an object (steps, seed, command, ...), got []"),
                                               (lambda meta: meta["evaluation"]["vs_random"].update(win="97%"),
                                                "evaluation.vs_random.win must be an object (rate, ci95), got '97%'")],
                         ids=["without network", "num_actions no int", "training no object", "win no object"])
def test_an_edited_sidecar_is_refused_in_one_line_naming_it_and_its_readme_kept(tmp_path, capsys, edit, problem):
    # an audit found a sidecar without "network" ending the command in a KeyError traceback: the card now reads
    # each sidecar through the loader's own checks
    import json

    shutil.copytree(MODELS / "terralore", tmp_path / "terralore")
    (tmp_path / "README.md").write_text("keep me", encoding="utf-8")
    side = tmp_path / "terralore" / "ppo.json"
    meta = json.loads(side.read_text(encoding="utf-8"))
    edit(meta)
    side.write_text(json.dumps(meta), encoding="utf-8")
    assert run_cli(main, ["--models", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: sidecar {side}") and problem in err and "re-export the model" in err
    assert err.count("\n") == 1 and (tmp_path / "README.md").read_text(encoding="utf-8") == "keep me"


def test_a_model_stopped_early_by_the_operator_says_so_on_its_training_row(tmp_path):
    import json

    from training.model_card import card

    shutil.copytree(MODELS / "terralore", tmp_path / "terralore")
    side = tmp_path / "terralore" / "ppo.json"
    meta = json.loads(side.read_text(encoding="utf-8"))
    assert "stopped early" not in card(tmp_path)
    meta["training"]["stopped_early"] = True
    side.write_text(json.dumps(meta), encoding="utf-8")
    row = next(line for line in card(tmp_path).splitlines() if line.startswith("| training |"))
    assert "min wall time" in row and ", stopped early by the operator" in row


def test_a_model_trained_in_parts_says_how_many_on_its_training_row(tmp_path):
    import json

    from training.model_card import card

    shutil.copytree(MODELS / "terralore", tmp_path / "terralore")
    side = tmp_path / "terralore" / "ppo.json"
    meta = json.loads(side.read_text(encoding="utf-8"))
    assert " parts (stopped and resumed" not in card(tmp_path)
    meta["training"]["parts"] = [{"command": "a", "steps": [0, 9], "seconds": 60.0},
                                 {"command": "b", "steps": [9, 20], "seconds": 90.0}]
    meta["training"]["wall_time_s"] = 150.0
    side.write_text(json.dumps(meta), encoding="utf-8")
    row = next(line for line in card(tmp_path).splitlines() if line.startswith("| training |"))
    assert "2.5 min wall time" in row and ", in 2 parts (stopped and resumed; each one's command" in row
    # the last part's command alone trains on from its first part's step: the row gives each in turn
    row = next(line for line in card(tmp_path).splitlines() if line.startswith("| reproduce |"))
    assert row == "| reproduce | (1) up to step 9: `a`; then (2) up to step 20: `b` |"


def test_a_distillation_toward_the_searchs_moves_is_described_as_such():
    from training.model_card import _distilled

    move = {"target": "move", "margin": 0.05, "games": 2000, "opponents": ["random", "heuristic"], "worlds": 32,
            "confirmed": 1234, "confirm_worlds": 64, "search_win_rate": 0.9612, "relabelled": 0.0831,
            "samples": 40000, "collect_seconds": 1800.0, "fit_seconds": 60.4}
    assert _distilled(move) == [
        "| search distillation | 2,000 games against random, heuristic searched over 32 worlds a decision (1,234 "
        "confirmed over 64 more), the search winning 96.1%; 8.3% of 40,000 decisions taught the search's move "
        "(1860 s) |"]
    rows = _distilled({**move, "target": "scores", "temperature": 0.05, "earlier_rounds": [move]})
    assert rows[0].startswith("| search distillation, round 1 of 2 |") and "taught the search's move" in rows[0]
    assert rows[1].startswith("| search distillation, round 2 of 2 |") and "exp(score / 0.05)" in rows[1]
