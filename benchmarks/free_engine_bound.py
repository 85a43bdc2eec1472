"""What a compiled engine and encoder could reach at most: training throughput with the game's rules
and encoding made free, the opponent's inference kept.

Each game is trained (the settings of ``benchmarks.training_throughput``) on a zero-cost env of its
shape that replays recorded real observations and masks and, per learner step, asks the real numpy
snapshot opponent for as many moves as self-play on the real env does (counted first, on recorded
observations of the same shape). Nothing of the engine, the encoder or the single-agent plumbing is
left, so no faster implementation of the rules in any language can pass this ratio without also
making the opponent's forward pass or the learner cheaper. Rounds interleave connect_four-v3 before
and after each run, as the training benchmark does.

``python -m benchmarks.free_engine_bound --rounds 5 --json benchmarks/results/free_engine_bound.json``
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import numpy as np

from benchmarks import check_json_path, machine_facts, positive_int, write_json
from benchmarks import training_throughput as tt


class ZeroCostWithOpponent(tt.ZeroCostEnv):
    """A zero-cost env whose every step also pays ``rate`` opponent moves of ``opponent`` (on
    recorded observations and masks, cycled)."""

    def __init__(self, observations, num_actions, masks, opponent, rate: float):
        super().__init__(observations, num_actions, masks=masks)
        self.opponent, self.rate, self._debt, self._j = opponent, rate, 0.0, 0
        self._rng = np.random.default_rng(0)

    def step(self, action):
        self._debt += self.rate
        while self._debt >= 1:
            self._debt -= 1
            self._j = (self._j + 1) % self._bank.shape[0]
            self.opponent.act(self._bank[self._j], self._masks[self._j], self._rng)
        return super().step(action)


class _Make:
    def __init__(self, *args):
        self.args = args

    def __call__(self):
        return ZeroCostWithOpponent(*self.args)


def opponent_moves_per_learner_step(env_fn, opponent, steps: int = 3000, seed: int = 1) -> float:
    """How many times the opponent is asked per learner decision in real self-play (random learner)."""
    calls = [0]
    act = opponent.act

    def counting(*args):
        calls[0] += 1
        return act(*args)

    opponent.act = counting  # on the instance: the class is untouched
    try:
        env, rng = env_fn(), np.random.default_rng(seed)
        env.reset(seed=seed)
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if terminated or truncated:
                env.reset()
    finally:
        del opponent.act
    return calls[0] / steps


def free_engine_bound(label: str, rounds: int, steps: int = 12288, n_envs: int = 4) -> dict:
    env_name, kwargs = tt.env_name_of(label), tt.game_kwargs(label)
    snapshot = tt.snapshot_opponent(env_name, kwargs, tt.SETTINGS["policy_kwargs"]["net_arch"])
    real = tt._WithOpponent(env_name, kwargs, snapshot)
    bank, masks = tt.record_observations(real, tt.SETTINGS["n_steps"] * n_envs)
    rate = opponent_moves_per_learner_step(real, snapshot)
    free = [_Make(bank, masks.shape[1], masks, snapshot, rate) for _ in range(n_envs)]
    reference = [tt.ConnectFourVsRandom for _ in range(n_envs)]
    tt.warm_up(reference, tt.SETTINGS)  # else the first round's "before" run is a process's first learn
    ratios = []
    for _ in range(rounds):
        before = tt.measure(reference, steps, tt.SETTINGS)["steps_per_s"]
        run = tt.measure(free, steps, tt.SETTINGS)["steps_per_s"]
        after = tt.measure(reference, steps, tt.SETTINGS)["steps_per_s"]
        ratios.append(round(run / ((before + after) / 2), 3))
    return {"env": label, "opponent_moves_per_learner_step": round(rate, 3),
            "vs_reference": round(statistics.median(ratios), 2), "vs_reference_each_round": ratios}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=positive_int, default=5)
    parser.add_argument("--steps", type=positive_int, default=12288, help="learner steps per measurement")
    parser.add_argument("--games", nargs="*", default=list(tt.GAMES),
                        help=f"subset of {list(tt.GAMES)}, or any registered env name (its default options)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    check_json_path(args.json)
    tt.refuse_unknown_games(parser, args.games)  # a KeyError came after the table's header
    result: dict[str, Any] = {"machine": machine_facts(), "rows": []}
    print(f"| env | opponent moves per learner step | free engine × {tt.REFERENCE} (each round) |\n|---|---:|---:|")
    for label in args.games:
        row = free_engine_bound(label, args.rounds, args.steps)
        result["rows"].append(row)
        rounds = ", ".join(f"{r:.2f}" for r in row["vs_reference_each_round"])
        print(f"| {label} | {row['opponent_moves_per_learner_step']:.2f} | {row['vs_reference']:.2f} ({rounds}) |",
              flush=True)
    if args.json:
        write_json(args.json, result)
    return result


if __name__ == "__main__":
    import sys

    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
