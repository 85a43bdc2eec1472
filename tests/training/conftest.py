import numpy as np
import pytest


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
