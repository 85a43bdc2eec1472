"""The environment library alone (``pip install tabletop-envs[render,dev]``, no torch) runs the test suite:
tests that need the [train] extra skip at collection instead of erroring."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# sys.modules[name] = None makes "import name" raise ModuleNotFoundError as if it were not installed.
WITHOUT_TRAIN_EXTRA = """
import sys
for name in ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "ray"):
    sys.modules[name] = None
import pytest
sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "-rs", "tests"]))
"""


def test_the_suite_collects_without_the_train_extra_and_says_what_it_skips():
    out = subprocess.run([sys.executable, "-c", WITHOUT_TRAIN_EXTRA], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "error" not in out.stdout.splitlines()[-1], out.stdout[-3000:]
    assert "needs the [train] extra" in out.stdout  # the skip reason names the extra
