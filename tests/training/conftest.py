import numpy as np
import pytest

from tabletop_envs.core.registry import ENVS, EnvSpec


@pytest.fixture()
def toy(monkeypatch):
    """The core's toy game (tests/toy_game.py) registered as env ``toy_v0``."""
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_game", "test/toy-v0", "test/Toy-v0", (2,), "", "toy"))
    return "toy_v0"


class PlayHighest:
    """A toy-game policy that is clearly better than random: play the highest card in hand."""

    name = "highest"

    def act(self, obs, mask, rng):
        legal = np.flatnonzero(mask[:10])
        return int(legal.max()) if legal.size else 10


@pytest.fixture()
def play_highest():
    return PlayHighest()


@pytest.fixture()
def restore_torch_threads():
    """For a test that sets torch's thread count: the process's count again afterwards, not the test's."""
    import torch

    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)
