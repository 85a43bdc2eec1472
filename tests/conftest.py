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


@pytest.fixture()
def pile(monkeypatch):
    """tests/pile_game.py, a game without hidden information or chance, registered as env ``pile_v0``."""
    from tabletop_envs.core.registry import ENVS, EnvSpec

    monkeypatch.setitem(ENVS, "pile_v0", EnvSpec("pile_v0", "pile_game", "test/pile-v0", "test/Pile-v0", (2,), "",
                                                 "pile"))
    return "pile_v0"


def pytest_configure(config):
    config._tabletop_deadline = _deadline()


def pytest_runtest_setup(item):
    deadline = item.config._tabletop_deadline
    if deadline is not None and time.time() > deadline:
        pytest.skip(f"the CI time budget is spent (past {DEADLINE_VARIABLE})")


@pytest.hookimpl(optionalhook=True)  # an xdist hook: without xdist installed, nothing calls it
def pytest_xdist_auto_num_workers(config):
    from worker_count import auto_workers

    return auto_workers()
