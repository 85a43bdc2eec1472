import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

# .ci/run sets this for its optional steps (long tests, RLlib, other Python) so that a slow machine
# skips what no longer fits in the 20-minute budget instead of overrunning it; never set by default.
DEADLINE_VARIABLE = "TABLETOP_TEST_DEADLINE"


def _deadline() -> float | None:
    raw = os.environ.get(DEADLINE_VARIABLE, "").strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise pytest.UsageError(
            f"{DEADLINE_VARIABLE}={raw!r} is not a time: give Unix seconds (e.g. $(( $(date +%s) + 600 ))) "
            f"or unset it") from None


@pytest.fixture()
def toy(monkeypatch):
    """The core's toy game (tests/toy_game.py) registered as env ``toy_v0``."""
    from tabletop_envs.core.registry import ENVS, EnvSpec

    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_game", "test/toy-v0", "test/Toy-v0", (2,), "", "toy"))
    return "toy_v0"


def pytest_configure(config):
    config._tabletop_deadline = _deadline()


def pytest_runtest_setup(item):
    deadline = item.config._tabletop_deadline
    if deadline is not None and time.time() > deadline:
        pytest.skip(f"the CI time budget is spent (past {DEADLINE_VARIABLE})")


# cgroup v2's CPU quota of this process's container: "max 100000" (none) or "<quota> <period>" in µs
CPU_MAX = "/sys/fs/cgroup/cpu.max"


def cpu_quota(path: str = CPU_MAX) -> int | None:
    """The CPUs a cgroup v2 quota lets this process use (rounded up), or None without a quota."""
    try:
        with open(path, encoding="ascii") as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else max(1, -(-int(quota) // int(period)))
    except (OSError, ValueError):
        return None


@pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist installed, nothing calls it
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per CPU this process may use. xdist counts the CPUs it may be scheduled on,
    which in a container limited by a CPU quota are every core of the host: each worker imports torch and
    the envs, so dozens of them would fight for two cores' time and memory. PYTEST_XDIST_AUTO_NUM_WORKERS,
    where set, decides (xdist's own hook reads it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    quota = cpu_quota()
    if quota is None:
        return None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(cpus, quota)
