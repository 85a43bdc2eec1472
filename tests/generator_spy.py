"""A policy that records the generator it is handed, for the tests that no policy gets a deal's stream
or the seed the deals were drawn from."""

import numpy as np

from tabletop_envs.core import RandomPolicy
from tabletop_envs.core.engine import new_rng


def seed_sequence(rng: np.random.Generator) -> np.random.SeedSequence:
    """What seeded ``rng``: ``bit_generator.seed_seq``, public since NumPy 1.25; NumPy 1.24 (the floor
    ``numpy>=1.24`` allows) has it only as ``_seed_seq`` (a policy can read either)."""
    bits = rng.bit_generator
    return bits.seed_seq if hasattr(bits, "seed_seq") else bits._seed_seq


class GeneratorSpy:
    """Plays randomly and records the stream of the generator it is handed at its first move, and what
    seeded that generator (which a policy can read as well as we do)."""

    def __init__(self):
        self.first_state = None
        self.entropy = None

    def act(self, obs, mask, rng):
        if self.first_state is None:
            self.first_state = rng.bit_generator.state
            self.entropy = seed_sequence(rng).entropy
        return RandomPolicy().act(obs, mask, rng)


def same_stream(state, seed) -> bool:
    """PCG64's increment names its stream: equal increments are one sequence of numbers
    (``new_rng(seed)`` and ``np.random.default_rng(seed)`` are the same stream)."""
    return state["state"]["inc"] == new_rng(seed).bit_generator.state["state"]["inc"]


def tells_the_seed(spy: GeneratorSpy, seed: int) -> bool:
    """Whether the generator the spy was handed gives away ``seed``: as what seeded it, or as a stream that
    a guess of the usual derivations of ``seed`` (a spawned child, ``[seed, k]``) re-creates."""
    entropy = np.atleast_1d(np.asarray(spy.entropy, dtype=object)).tolist()
    if seed in entropy:
        return True
    guesses = [np.random.SeedSequence(seed).spawn(1)[0], *(np.random.SeedSequence([seed, k]) for k in range(8))]
    return any(np.random.PCG64(g).state["state"] == spy.first_state["state"] for g in guesses)


class DrawRecorder:
    """Plays a legal move chosen by a number it draws from the generator it is handed, and records every number:
    two policies with streams of their own draw different numbers, and a stream's numbers can be checked."""

    def __init__(self, name):
        self.name, self.draws = name, []

    def act(self, obs, mask, rng):
        self.draws.append(rng.random())
        legal = np.flatnonzero(mask)
        return int(legal[int(self.draws[-1] * len(legal))])


class Remembers:
    """A policy with memory: its move depends on how many it made since its last ``restart()``, which it
    counts, so a match replays only if it is restarted before each game."""

    def __init__(self, name="remembers"):
        self.name, self.moves, self.restarts = name, 0, 0

    def restart(self):
        self.moves, self.restarts = 0, self.restarts + 1

    def act(self, obs, mask, rng):
        legal = np.flatnonzero(mask)
        self.moves += 1
        return int(legal[self.moves * 7 % len(legal)])
