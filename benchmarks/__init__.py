"""Benchmarks: each writes its numbers with the facts of the machine that produced them."""

from __future__ import annotations

import argparse
import json
import os
import platform
from importlib import metadata
from pathlib import Path

from tabletop_envs.core.files import user_path, write_text_whole
from training.export import cpu_info, load_average

#: the packages whose versions move the numbers (pure-Python references speed up or slow down with them)
PACKAGES = ("numpy", "torch", "pettingzoo", "gymnasium", "stable_baselines3", "sb3_contrib")


def machine_facts() -> dict:
    """CPU model, core count, load and package versions: ratios against the reference envs differ
    between machines (a CPU that runs pure Python faster favours the references), so a result
    without them cannot be compared with another."""
    cpu = cpu_info(("model name", "cpu MHz", "cache size"))
    versions: dict[str, str | None] = {}  # None: not installed
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    from tabletop_envs.core.replay import code_revision, library_version

    return {"python": platform.python_version(), "cpu": cpu, "cpus": os.cpu_count(),
            "load_average": load_average(), "packages": versions,
            # the commit ("-dirty": with uncommitted changes; "" outside a checkout) the numbers were measured at
            "tabletop_envs": library_version(), "git": code_revision()}


def model_digests(env: str, game_config: dict, *policies) -> dict:
    """The SHA-256 records of the model files among ``policies`` (ids or paths), by the name given: an id
    such as ``travel_earth_v0/ppo`` names whatever the checkout ships then, which changes as models are
    retrained, so a result keeps the digest of the one it measured."""
    import warnings

    from tabletop_envs import load_policy

    out = {}
    for spec in dict.fromkeys(str(p) for p in policies):
        with warnings.catch_warnings():  # the benchmark's own load has warned of other rule options already
            warnings.simplefilter("ignore")
            meta = getattr(load_policy(spec, env=env, game_config=game_config), "metadata", None)
        if isinstance(meta, dict) and isinstance(meta.get("sha256"), dict):
            out[spec] = meta["sha256"]
    return out


def write_json(path, report: dict) -> None:
    """``--json``: the report, its folder made if need be."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # beside its place first: a rerun on a full disk tore the committed result it was to replace
    write_text_whole(path, json.dumps(report, indent=2) + "\n")


def check_json_path(path) -> None:
    """Refuse a ``--json`` path that cannot be written before the benchmark runs, not after it: a folder, a
    path under a file, or a folder that cannot be made or written, ended a run of minutes in a traceback that
    lost its results."""
    from tabletop_envs.core.errors import ConfigError
    from training.config import make_output_folder

    if path is None:
        return
    path = user_path(path)
    if str(path) in ("", ".") or path.is_dir():
        raise ConfigError(f"--json {str(path)!r} is a folder: give a file name in it, e.g. --json {path / 'results.json'}")
    make_output_folder(path.parent, "--json")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (0 repeats or rounds ended in a StatisticsError)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a number above 0 (a negative window length timed a few hundred steps)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text!r}")
    return value
