"""Skip marks for tests that need a package of an optional extra, so that the suite runs green for a user
who installs the environment library alone (``pip install -e ".[render,dev]"``, no torch).

Marks test by test (not a hook turning any ModuleNotFoundError into a skip): a test of the library that
wrongly starts to need torch must still fail. Where the extra is installed, nothing is skipped."""

from __future__ import annotations

import importlib.util

import pytest

TRAIN_REASON = "needs the [train] extra (torch, stable-baselines3, sb3-contrib)"
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib")


def missing(*modules: str) -> list[str]:
    """The modules of ``modules`` that are not installed (a ``sys.modules[name] = None`` block counts)."""
    return [m for m in modules if importlib.util.find_spec(m) is None]


needs_train = pytest.mark.skipif(bool(missing(*TRAIN_MODULES)), reason=TRAIN_REASON)
needs_matplotlib = pytest.mark.skipif(bool(missing("matplotlib")),
                                      reason="needs matplotlib (in the [train] extra)")
needs_onnx = pytest.mark.skipif(bool(missing("onnx")), reason="needs onnx (in the [train] extra) to write a model")
