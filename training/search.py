"""A rollout search over a policy, against a known opponent, from one seat's information.

At a decision with more than one legal action the search deals ``worlds`` worlds that agree with
everything the seat has seen (``state.resample_hidden``), plays each legal action in every world and
finishes the game with the policy in its own seat and the opponent in the other. An action's score
is its wins less its losses over the worlds; the search plays the best one, and keeps the policy's
own choice on a tie. Every action of one world is finished with the same generator, so the
comparison between them is not muddied by luck.

``benchmarks.search_ceiling`` measures how much this gains over the policy alone; ``training.distill``
teaches the policy the search's moves.
"""

from __future__ import annotations

import numpy as np


def play_out(state, choose, max_turns: int, seat: int) -> int:
    """Finish ``state`` with ``choose(state, player)``: +1, 0 or -1 for ``seat`` (0 when truncated)."""
    while not state.is_terminal():
        if state.turn >= max_turns:
            return 0
        state.apply_action(choose(state, state.current_player()))
    returns = state.returns()
    return int(np.sign(returns[seat] - returns[1 - seat]))


def mover(policies: dict, rng: np.random.Generator):
    """``choose(state, player)`` for :func:`play_out`: each player's policy asked on its own observation."""
    return lambda state, p: policies[p].act(state.observation(p), state.legal_action_mask(), rng)


def search_scores(state, seat: int, policy, opponent, worlds: int, max_turns: int,
                  rng: np.random.Generator) -> tuple[int, list[int], np.ndarray]:
    """``(own, legal, scores)``: the policy's own action, the legal actions and each one's wins less
    losses over ``worlds`` re-dealt worlds (no worlds are dealt when only one action is legal)."""
    legal = state.legal_actions()
    own = int(policy.act(state.observation(seat), state.legal_action_mask(), rng))
    if len(legal) == 1:
        return own, legal, np.zeros(1)
    return own, legal, world_scores(state, seat, legal, policy, opponent, worlds, max_turns, rng)


def world_scores(state, seat: int, legal: list[int], policy, opponent, worlds: int, max_turns: int,
                 rng: np.random.Generator) -> np.ndarray:
    """Wins less losses of each of ``legal`` over ``worlds`` more re-dealt worlds."""
    scores = np.zeros(len(legal))
    for _ in range(worlds):
        world = state.resample_hidden(seat, rng)
        rollout_seed = int(rng.integers(2**63))
        for j, action in enumerate(legal):
            line = world.clone()
            line.apply_action(action)
            scores[j] += play_out(line, mover({seat: policy, 1 - seat: opponent},
                                              np.random.default_rng(rollout_seed)), max_turns, seat)
    return scores


def best_action(own: int, legal: list[int], scores: np.ndarray, margin: float = 0.0) -> int:
    """The search's move: the best-scoring action, unless it beats the policy's own by no more than
    ``margin`` (ties, and with a margin near-ties, keep the policy's choice)."""
    if len(legal) == 1:
        return own
    top = int(np.argmax(scores))
    return legal[top] if scores[top] - scores[legal.index(own)] > margin else own


def search_action(state, seat: int, policy, opponent, worlds: int, max_turns: int,
                  rng: np.random.Generator) -> int:
    """The search's move at ``state`` for ``seat`` (see the module docstring)."""
    return best_action(*search_scores(state, seat, policy, opponent, worlds, max_turns, rng))
