"""The benchmark's Connect Four single-agent reduction is the correct one (unlike the SB3 tutorial's)."""

from __future__ import annotations

import numpy as np

from benchmarks.training_throughput import ConnectFourVsRandom


def test_losses_on_the_opponents_move_reach_the_learner_and_seats_are_drawn():
    env = ConnectFourVsRandom()
    rng = np.random.default_rng(0)
    seats, outcomes = set(), []
    for seed in range(60):
        obs, _ = env.reset(seed=seed)
        seats.add(env.learner)
        total, done, my_moves = 0.0, False, 0
        while not done:
            # the learner's own pieces are plane 0 of its observation (PettingZoo: "mine, theirs")
            assert obs.reshape(6, 7, 2)[:, :, 0].sum() == my_moves
            obs, reward, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            my_moves += 1
            total += reward
            done = term or trunc
        # everything the learner got is its final result, whoever made the last move
        assert total == env.aec.rewards[env.learner] and total in (-1.0, 0.0, 1.0)
        outcomes.append(total)
    assert seats == {"player_0", "player_1"}
    assert -1.0 in outcomes and 1.0 in outcomes  # the opponent's winning move is a -1 for the learner
