"""What ``pip install tabletop-envs`` (a wheel, not a checkout) gives: every package, the shipped opponents
by id and the shipped recipes by name."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the two data folders the wheel carries under other names (pyproject.toml's package-dir)
MAPPED = {"tabletop_envs.models": "models", "training.configs": "configs"}
# the typed packages (PEP 561): their py.typed marker lets a user's mypy or pyright read the annotations
TYPED = ("tabletop_envs", "training")


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_wheel_lists_every_package_of_the_tree_and_maps_the_models_and_recipes():
    # the package list is explicit (the data folders are mapped in): a new subpackage left out of it
    # would be missing from every installed copy while the editable checkout still worked
    tool = _pyproject()["tool"]["setuptools"]
    found = {".".join(p.relative_to(ROOT).parts) for top in ("tabletop_envs", "training")
             for p in [ROOT / top, *(ROOT / top).rglob("*")] if (p / "__init__.py").is_file()}
    assert set(tool["packages"]) == found | set(MAPPED)
    assert tool["package-dir"] == MAPPED


def test_each_typed_package_has_its_marker_listed_as_package_data():
    package_data = _pyproject()["tool"]["setuptools"]["package-data"]
    for package in TYPED:
        assert (ROOT / package / "py.typed").is_file(), package
        assert "py.typed" in package_data.get(package, []), package


def _wheel_builder_missing() -> str | None:
    try:
        import setuptools
    except ImportError:
        return "setuptools is not installed"
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    if (major, minor) < (70, 1):  # older ones build wheels only with the separate `wheel` package
        try:
            import wheel  # noqa: F401
        except ImportError:
            return f"setuptools {setuptools.__version__} needs the `wheel` package to build a wheel"
    return None


INSTALLED_CHECK = """
import json, sys
from pathlib import Path
import numpy as np
import tabletop_envs
from tabletop_envs import load_policy, terralore_v0
from tabletop_envs.core.onnx_policy import model_path_for_id, shipped_model_ids
from training.config import load_config, resolve_recipe, shipped_recipe_names
from training.export import code_version

target = Path(sys.argv[1]).resolve()
assert Path(tabletop_envs.__file__).resolve().is_relative_to(target), tabletop_envs.__file__
env = terralore_v0.env()
env.reset(seed=3)
obs = env.observe(env.agent_selection)
policy = load_policy("terralore_v0/ppo")
action = policy.act(obs["observation"], obs["action_mask"], np.random.default_rng(0))
cfg = load_config("configs/terralore.yaml")
print(json.dumps({
    "models": shipped_model_ids(),
    "model_file": str(model_path_for_id("terralore_v0/ppo").resolve().relative_to(target)),
    "legal": bool(obs["action_mask"][action]),
    "recipes": shipped_recipe_names(),
    "recipe_file": str(resolve_recipe("terralore").resolve().relative_to(target)),
    "recipe_env": cfg.env,
    "code_version": code_version(),
}))
"""


def test_an_installed_wheel_loads_the_shipped_opponents_by_id_and_the_recipes_by_name(tmp_path):
    # `pip install .` or from a git URL installs a wheel: models/ and configs/ of the checkout are not there,
    # so they travel inside it; run from a folder that is no checkout, with the checkout's modules out of reach
    pytest.importorskip("yaml", reason="the recipes need pyyaml (the dev or train extra)")
    missing = _wheel_builder_missing()
    if missing:
        pytest.skip(f"cannot build a wheel offline: {missing} (pip install 'setuptools>=70.1')")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("tabletop_envs", "training", "models", "configs"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.png"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "dist"), str(src)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = (tmp_path / "dist").glob("tabletop_envs-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {f"{package}/py.typed" for package in TYPED} <= names, sorted(n for n in names if "py.typed" in n)
    target = tmp_path / "site"
    subprocess.run(pip + ["install", "--no-deps", "--target", str(target), str(wheel)], check=True,
                   capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if shutil.which("git"):  # installed inside some project's repository, as a venv in a project is
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
        subprocess.run(git[:-2] + ["init", "-q", str(tmp_path)], check=True, timeout=60)
        (tmp_path / "project.txt").write_text("a project that is not tabletop_envs\n", encoding="utf-8")
        subprocess.run(git + ["add", "project.txt"], check=True, timeout=60)
        subprocess.run(git + ["commit", "-q", "-m", "project"], check=True, timeout=60)
    out = subprocess.run([sys.executable, "-c", INSTALLED_CHECK, str(target)], cwd=elsewhere, capture_output=True,
                         text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(target),
                                                      "TABLETOP_MODELS_DIR": ""})
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    import tabletop_envs
    from tabletop_envs.core.onnx_policy import shipped_model_ids
    from training.config import shipped_recipe_names

    assert got["models"] == shipped_model_ids() and "terralore_v0/ppo" in got["models"]
    assert got["model_file"] in ("tabletop_envs/models/terralore/ppo.onnx", "tabletop_envs/models/terralore/ppo.npz")
    assert got["legal"]
    assert got["recipes"] == shipped_recipe_names() and "main_job" in got["recipes"]
    assert got["recipe_file"] == "training/configs/terralore.yaml" and got["recipe_env"] == "terralore_v0"
    # a sidecar written there names this library's version, never the surrounding project's commit
    assert "git" not in got["code_version"] and got["code_version"]["tabletop_envs"] == tabletop_envs.__version__


def test_the_ci_floor_step_pins_every_lower_bound_pyproject_declares():
    """.ci/run installs the project at .ci/floors.txt and runs the default tests: each `>=` bound of the
    dependencies and of the extras it installs is pinned there at that bound, so a raised bound is tested."""
    import re

    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml with tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {}
    for requirement in project["dependencies"] + [r for extra in ("train", "render", "dev")
                                                  for r in project["optional-dependencies"][extra]]:
        name, bound = re.match(r"([\w.-]+)(?:\[[\w,]+\])?>=([\d.]+)", requirement).groups()
        declared[name.lower()] = bound
    pins = dict(re.match(r"([\w.-]+)==([\d.]+)$", line).groups()
                for line in (ROOT / ".ci" / "floors.txt").read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#"))
    # torch: only 2.13.0 is at hand as a CPU build; ruff lints, mypy type-checks, setuptools builds the test
    # wheel (their floors are tools' needs, not the library's); numpy 1.24.2: onnxruntime 1.17.0 needs it
    unpinned = {"torch", "ruff", "mypy", "setuptools"}
    assert set(pins) == set(declared) - unpinned
    for name, pin in pins.items():
        bound = tuple(int(x) for x in declared[name].split("."))
        version = tuple(int(x) for x in pin.split("."))
        assert version[:len(bound)] == bound, f"{name}: pyproject says >={declared[name]}, .ci/floors.txt pins {pin}"
