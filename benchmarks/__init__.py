"""Benchmarks: each writes its numbers with the facts of the machine that produced them."""

from __future__ import annotations

import json
import os
import platform
from importlib import metadata
from pathlib import Path

from tabletop_envs.core.files import write_text_whole
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
    return {"python": platform.python_version(), "cpu": cpu, "cpus": os.cpu_count(),
            "load_average": load_average(), "packages": versions}


def write_json(path, report: dict) -> None:
    """``--json``: the report, its folder made if need be."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # beside its place first: a rerun on a full disk tore the committed result it was to replace
    write_text_whole(path, json.dumps(report, indent=2) + "\n")
