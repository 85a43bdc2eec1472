"""The RLlib face stays optional: the library imports without ray, and the adapter says how to get it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_importing_tabletop_envs_does_not_import_ray():
    out = _run("import sys, tabletop_envs; tabletop_envs.load_policy('terralore_v0/random'); "
               "print('ray' in sys.modules, 'tabletop_envs.rllib_adapter' in sys.modules)")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


def test_adapter_without_ray_names_the_distributed_extra():
    # sys.modules[name] = None makes "import name" fail as if it were not installed.
    out = _run("import sys; sys.modules['ray'] = None; sys.modules['ray.rllib'] = None\n"
               "try:\n    import tabletop_envs.rllib_adapter\nexcept ImportError as e:\n    print(e)")
    assert out.returncode == 0, out.stderr
    assert "pip install 'tabletop-envs[distributed]'" in out.stdout
    assert "which is not installed" in out.stdout


def test_adapter_with_a_ray_that_lacks_what_it_imports_names_that_ray_not_a_missing_one():
    # another Ray release (one outside 2.50-2.60, installed without the extra's pin) was reported as "not installed"
    out = _run("import sys, types; sys.modules['ray'] = types.ModuleType('ray'); sys.modules['ray'].__version__ = "
               "'2.40.0'; sys.modules['ray.rllib'] = None\n"
               "try:\n    import tabletop_envs.rllib_adapter\nexcept ImportError as e:\n    print(e)")
    assert out.returncode == 0, out.stderr
    assert "needs Ray RLlib 2.50-2.60, ray 2.40.0 is installed, but this adapter cannot import from it (" in out.stdout
    assert "not installed" not in out.stdout and "pip install 'tabletop-envs[distributed]'" in out.stdout


def test_rllib_recipe_refuses_an_env_option_the_game_does_not_have_before_ray_starts():
    # The env is built only inside Ray's env-runner actors, where a bad option used to end the run in
    # a Ray traceback (IndexError from get_spaces) after starting Ray, instead of the recipe's one-line error.
    from tabletop_envs.core.errors import ConfigError
    from training.rllib_train import load_rllib_config

    with pytest.raises(ConfigError, match=r"env_kwargs.*earth_v0 has no option num_player"):
        load_rllib_config(data={"env": "earth_v0", "env_kwargs": {"num_player": 3}})
    with pytest.raises(ConfigError, match=r"env_kwargs.*1-5 players"):
        load_rllib_config(data={"env": "earth_v0", "env_kwargs": {"num_players": 7}})
    with pytest.raises(ConfigError, match=r"env_kwargs.*max_turns"):
        load_rllib_config(data={"env": "terralore_v0", "env_kwargs": {"max_turns": 0}})
    assert load_rllib_config(data={"env": "earth_v0", "env_kwargs": {"num_players": 3}}).env_kwargs == {"num_players": 3}


def test_rllib_recipe_refuses_data_parallel_learners_that_rllib_cannot_feed_turn_based_episodes():
    # With 2 learner actors RLlib 2.60 failed on the second iteration ("Can only slice a
    # MultiAgentEpisode if all lookback buffers ... have the exact same size"), or hung in the
    # gradient all-reduce: refused when the recipe loads, not hours into a cluster run.
    from tabletop_envs.core.errors import ConfigError
    from training.rllib_train import load_rllib_config

    with pytest.raises(ConfigError, match=r"learners.num_learners 2.*at most 1"):
        load_rllib_config(data={"learners": {"num_learners": 2}})
    assert load_rllib_config(data={"learners": {"num_learners": 1, "num_gpus_per_learner": 1}}).learners.num_learners == 1


def test_rllib_recipe_refuses_an_evaluation_vs_random_at_a_one_seat_table():
    # At Earth solo the end-of-run "vs random" evaluation had no opponent and reported every game a
    # win (win_rate 1.0), as bot_vs_random once did.
    from tabletop_envs.core.errors import ConfigError
    from training.rllib_train import load_rllib_config

    with pytest.raises(ConfigError, match=r"one seat.*output.eval_games=0"):
        load_rllib_config(data={"env": "earth_v0", "env_kwargs": {"num_players": 1}, "output": {"eval_games": 200}})
    cfg = load_rllib_config(data={"env": "earth_v0", "env_kwargs": {"num_players": 1}, "output": {"eval_games": 0}})
    assert cfg.output.eval_games == 0


def test_the_rllib_sidecars_command_is_the_command_line_used_or_the_recipe_when_called_from_python():
    # it recorded sys.argv, so a train() called from Python (a notebook, pytest) wrote that program's
    # arguments as the command that made the model
    from training.rllib_train import load_rllib_config, reproduce_command

    cfg = load_rllib_config(data={"env": "earth_v0", "iterations": 3})
    assert reproduce_command(cfg, ["--config", "configs/rllib_earth.yaml", "--set", "iterations=3",
                                   "--resume", "run/checkpoint_00002", "--address=auto"]) == (
        "python -m training.rllib_train --config configs/rllib_earth.yaml --set iterations=3 --address=auto")
    assert reproduce_command(cfg, ["--resume=x", "--config", "my recipe.yaml"]) == (
        "python -m training.rllib_train --config 'my recipe.yaml'")
    from_python = reproduce_command(cfg)
    assert from_python.startswith("python -m training.rllib_train  # config {") and "'iterations': 3" in from_python


def test_the_rllib_sidecars_command_leaves_out_an_abbreviated_resume_too():
    # argparse takes any unambiguous prefix of an option, so --res resumed the run, but the recorded command
    # kept it: run again, it resumed from the checkpoint instead of making the model again
    from training.rllib_train import load_rllib_config, reproduce_command

    cfg = load_rllib_config(data={"env": "earth_v0", "iterations": 3})
    for resume in (["--res", "run/checkpoint_00002"], ["--resum=run/checkpoint_00002"], ["--r", "x"]):
        assert reproduce_command(cfg, ["--config", "c.yaml", *resume, "--set", "iterations=3"]) == (
            "python -m training.rllib_train --config c.yaml --set iterations=3"), resume
