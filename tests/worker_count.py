"""How many workers ``pytest -n auto`` starts (tests/conftest.py's xdist hook)."""
from __future__ import annotations

import os

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


def auto_workers() -> int | None:
    """``-n auto``: one worker per CPU this process may use. xdist counts the CPUs it may be scheduled on,
    which in a container limited by a CPU quota are every core of the host: each worker imports torch and
    the envs, so dozens of them would fight for two cores' time and memory. None leaves the count to
    xdist's own hook: without a quota, and where PYTEST_XDIST_AUTO_NUM_WORKERS is set (which that hook reads)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    quota = cpu_quota()
    if quota is None:
        return None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(cpus, quota)
