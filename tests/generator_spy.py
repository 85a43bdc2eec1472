"""A policy that records the generator it is handed, for the tests that no policy gets a deal's stream."""

from tabletop_envs.core import RandomPolicy
from tabletop_envs.core.engine import new_rng


class GeneratorSpy:
    """Plays randomly and records the stream of the generator it is handed at its first move."""

    def __init__(self):
        self.first_state = None

    def act(self, obs, mask, rng):
        if self.first_state is None:
            self.first_state = rng.bit_generator.state
        return RandomPolicy().act(obs, mask, rng)


def same_stream(state, seed) -> bool:
    """PCG64's increment names its stream: equal increments are one sequence of numbers
    (``new_rng(seed)`` and ``np.random.default_rng(seed)`` are the same stream)."""
    return state["state"]["inc"] == new_rng(seed).bit_generator.state["state"]["inc"]
