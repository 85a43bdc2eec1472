"""The time budget .ci/run gives its optional test steps: tests that would start after
TABLETOP_TEST_DEADLINE skip, saying why; a malformed deadline is a usage error, not a silent run."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEADLINE_VARIABLE = "TABLETOP_TEST_DEADLINE"  # set by .ci/run, read by tests/conftest.py
# Two trivial tests, not collected by the default run; a file named on the command line is collected anyway.
TARGET = "tests/ci_budget_probe.py"


def _run(deadline: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != DEADLINE_VARIABLE}
    if deadline is not None:
        env[DEADLINE_VARIABLE] = deadline
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", TARGET],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_tests_after_the_deadline_skip_and_say_the_budget_is_spent():
    out = _run(str(time.time() - 1))
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"^2 skipped in ", out.stdout, re.M)
    assert f"the CI time budget is spent (past {DEADLINE_VARIABLE})" in out.stdout


def test_tests_before_the_deadline_run():
    out = _run(str(time.time() + 3600))
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"^2 passed in ", out.stdout, re.M)


def test_no_deadline_runs_everything():
    out = _run(None)
    assert re.search(r"^2 passed in ", out.stdout, re.M), out.stdout + out.stderr


def test_a_malformed_deadline_is_a_usage_error_naming_the_variable():
    out = _run("in ten minutes")
    assert out.returncode == 4, out.stdout + out.stderr  # pytest's usage-error status
    assert f"{DEADLINE_VARIABLE}='in ten minutes' is not a time" in out.stdout + out.stderr
