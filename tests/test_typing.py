"""The library and its trainer are typed packages (PEP 561: ``py.typed`` ships in the wheel): mypy passes on
``tabletop_envs`` and ``training`` with the configuration in ``pyproject.toml``, and a user's own script is
checked against their annotations.

Slow (each run of mypy takes tens of seconds cold) and skipped where mypy is not installed."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

# what a user writes: the public faces, each result used as its annotation says it is
USER_SCRIPT = """
import numpy as np

from tabletop_envs import load_policy, terralore_v0
from tabletop_envs.core.arena import play_game, play_match
from tabletop_envs.core.registry import make_game
from tabletop_envs.core.single_agent import SingleAgentEnv

env = terralore_v0.env(max_turns=50)
env.reset(seed=1)
policy = load_policy("terralore_v0/random")
rng = np.random.default_rng(0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        env.step(None)
        continue
    action: int = policy.act(obs["observation"], obs["action_mask"], rng)
    env.step(action)
total: float = reward + 1.0
size: int = env.game.catalogue.size

learner = SingleAgentEnv("terralore_v0", opponent="terralore_v0/random")
observation, _ = learner.reset(seed=0)
mask: np.ndarray = learner.action_masks()
observation, step_reward, done, cut, step_info = learner.step(int(np.flatnonzero(mask)[0]))
score: float = step_reward

result = play_match("terralore_v0", ["terralore_v0/random", policy], num_games=2)
print(result.summary(), result.win_rate(0), result.wins.sum())
returns, decisions = play_game(make_game("terralore_v0"), [policy, policy], seed=3)
print(returns.tolist(), decisions + 1)
"""


# what a user of the trainer writes: a recipe loaded and read, the evaluation's and the export's helpers
USER_TRAINING_SCRIPT = """
from pathlib import Path

from training.config import TrainConfig, load_config
from training.evaluate import PairResult, anchor_key, wilson
from training.export import model_stem

cfg: TrainConfig = load_config("terralore.yaml", overrides=["ppo.total_timesteps=1000"])
steps: int = cfg.ppo.total_timesteps + cfg.vec.n_envs
lo, hi = wilson(3, 10)
width: float = hi - lo
rates: dict = PairResult("a", "b", 10, 3, 2, 5).rates()
key: str = anchor_key("terralore_v0/ppo")
stem: Path = model_stem("runs/a/ppo")
"""


#: the packages mypy checks (pyproject.toml's [tool.mypy] files); training and benchmarks read SB3, sb3-contrib
#: and torch's types
PACKAGES = ("tabletop_envs", "training", "benchmarks")
TRAIN_EXTRA = ("stable_baselines3", "sb3_contrib", "torch")


def _mypy(args: list[str], cwd: Path, cache: Path, pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install mypy)")
    env = {**os.environ, "PYTHONPATH": str(pythonpath)} if pythonpath is not None else None
    # a cache of its own: none is left in the checkout
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """mypy's cache, shared by this module's runs (a user's script reads the same library and NumPy)."""
    return tmp_path_factory.mktemp("mypy_cache")


@pytest.mark.parametrize("package", PACKAGES)
def test_mypy_passes_on_the_package(cache, package):
    # the per-module settings are pyproject.toml's [tool.mypy]; one package at a time, so that the library is
    # checked where the [train] extra (the SB3 and torch that training and benchmarks read) is not installed
    if package != "tabletop_envs":
        missing = [name for name in TRAIN_EXTRA if importlib.util.find_spec(name) is None]
        if missing:
            pytest.skip(f"{package} is checked against the [train] extra; {', '.join(missing)} missing")
    out = _mypy(["-p", package], ROOT, cache)
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]
    assert "Success" in out.stdout


def test_a_plain_mypy_checks_every_package():
    # `mypy` in a checkout (the README's development commands) reads the files from [tool.mypy]
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert sorted(config["tool"]["mypy"]["files"]) == sorted(PACKAGES)


def _check_user_script(tmp_path: Path, cache: Path, source: str) -> subprocess.CompletedProcess:
    # the script's folder is no checkout: the packages are found on PYTHONPATH, as installed packages are
    # (without py.typed, mypy would refuse to read them: "missing library stubs or py.typed marker")
    user = tmp_path / "user"
    user.mkdir()
    (user / "train_mine.py").write_text(textwrap.dedent(source), encoding="utf-8")
    return _mypy(["--python-version", "3.10", "train_mine.py"], user, cache, pythonpath=ROOT)


#: what a user writes against each package, two type errors to append to it (a seed as text and an action
#: read as a str; one override as text, not a list of them, and a config read as a dict), and what each
#: error's line names
SCRIPTS = {
    "library": (USER_SCRIPT,
                '\nenv.reset(seed="three")\nname: str = policy.act(obs["observation"], obs["action_mask"], rng)\n',
                [('"reset"', "[arg-type]"), ("[assignment]", '"int"')]),
    "trainer": (USER_TRAINING_SCRIPT,
                '\nload_config("terralore.yaml", overrides="ppo.n_steps=64")\nraw: dict = cfg\n',
                [('"load_config"', "[arg-type]"), ("[assignment]", '"TrainConfig"')]),
}


@pytest.mark.parametrize("against", SCRIPTS)
def test_a_users_script_type_checks_against_the_package(tmp_path, cache, against):
    out = _check_user_script(tmp_path, cache, SCRIPTS[against][0])
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]


@pytest.mark.parametrize("against", SCRIPTS)
def test_a_users_type_errors_are_reported(tmp_path, cache, against):
    script, wrong, named = SCRIPTS[against]
    out = _check_user_script(tmp_path, cache, script + wrong)
    assert out.returncode == 1, out.stdout[-5000:] + out.stderr[-2000:]
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, out.stdout
    for error, words in zip(errors, named):
        assert all(word in error for word in words), error
    assert "import-untyped" not in out.stdout
