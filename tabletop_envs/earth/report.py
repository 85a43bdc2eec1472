"""Random-vs-random (or any policies) statistics for Earth: final scores, turns, rounds and decisions.

    python -m tabletop_envs.earth.report --players 2 --games 200
    python -m tabletop_envs.earth.report --players 2 --games 100 --policy earth_v0/heuristic
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from tabletop_envs.core.errors import ConfigError, run_cli
from tabletop_envs.core.policy import load_policy, policy_rng

from .engine import EarthGame


def play(game: EarthGame, policies: list, seed: int) -> tuple:
    s = game.new_initial_state(seed)
    rng = policy_rng(seed)  # never the deal's own stream (the state is dealt from new_rng(seed))
    decisions = 0
    while not s.is_terminal():
        p = s.current_player()
        s.apply_action(policies[p].act(s.observation(p), s.legal_action_mask(), rng))
        decisions += 1
    return s, decisions


def summary(players: int, games: int, policy: str = "earth_v0/random", seed: int = 0) -> dict:
    game = EarthGame(num_players=players)
    pol = load_policy(policy, env="earth_v0", game_config=game.config())  # another game's policy is refused
    scores, turns, rounds, decisions = [], [], [], []
    start = time.perf_counter()
    for g in range(games):
        s, d = play(game, [pol] * players, seed + g)
        scores += s.scores
        turns.append(s.turns)
        rounds.append(s.rounds)
        decisions.append(d)
    took = time.perf_counter() - start

    def stats(x):
        x = np.asarray(x, float)
        return {"mean": round(float(x.mean()), 1), "std": round(float(x.std()), 1), "min": int(x.min()),
                "max": int(x.max())}

    return {"players": players, "games": games, "policy": policy, "final_vp": stats(scores),
            "turns": stats(turns), "rounds": stats(rounds), "decisions": stats(decisions),
            "engine_us_per_decision": round(took / sum(decisions) * 1e6, 1)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    ap.add_argument("--players", type=int, nargs="+", default=[2])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--policy", default="earth_v0/random")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.games < 1:  # no game has no statistics: numpy's min of nothing was a traceback
        raise ConfigError(f"the number of games must be a positive integer, got {args.games}; e.g. --games 100")
    out = {}
    for n in dict.fromkeys(args.players):  # a count named twice is one table: its games once, one line
        out[n] = summary(n, args.games, args.policy, args.seed)
        print(json.dumps(out[n]))
    return out


if __name__ == "__main__":
    sys.exit(run_cli(main))
