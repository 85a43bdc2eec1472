"""The time budget .ci/run gives its optional test steps: tests that would start after
TABLETOP_TEST_DEADLINE skip, saying why; a malformed deadline is a usage error, not a silent run."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


# ------------------------------------------------------------------ -n auto: the workers a CPU quota allows
@pytest.mark.parametrize(("cpu_max", "cpus"), [("max 100000\n", None), ("200000 100000\n", 2), ("150000 100000\n", 2),
                                                ("50000 100000\n", 1), ("", None), ("two cores\n", None)])
def test_the_cgroup_cpu_quota_is_read_as_whole_cpus_rounded_up(tmp_path, cpu_max, cpus):
    import worker_count

    path = tmp_path / "cpu.max"
    path.write_text(cpu_max, encoding="ascii")
    assert worker_count.cpu_quota(str(path)) == cpus


def test_the_cpu_quota_of_a_missing_cgroup_file_is_none(tmp_path):
    import worker_count

    assert worker_count.cpu_quota(str(tmp_path / "absent")) is None


def test_n_auto_starts_no_more_workers_than_the_quota_allows_on_a_host_with_more_cores(monkeypatch):
    import worker_count

    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(worker_count, "cpu_quota", lambda: 2)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert worker_count.auto_workers() == 2
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert worker_count.auto_workers() == 1  # fewer cores than the quota: the cores


def test_n_auto_is_left_to_xdist_without_a_quota_or_with_its_variable_set(monkeypatch):
    import worker_count

    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(worker_count, "cpu_quota", lambda: None)
    assert worker_count.auto_workers() is None
    monkeypatch.setattr(worker_count, "cpu_quota", lambda: 2)
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "3")
    assert worker_count.auto_workers() is None  # xdist's own hook reads the variable


def test_the_suite_runs_without_xdist_installed_or_enabled():
    # the conftest's xdist hook is optional: pytest refuses an unknown hook unless it is marked so
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", TARGET],
                         cwd=ROOT, env={k: v for k, v in os.environ.items() if k != DEADLINE_VARIABLE},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and re.search(r"^2 passed in ", out.stdout, re.M), out.stdout + out.stderr
