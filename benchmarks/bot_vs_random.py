"""Strength of a policy against another (default: the game's heuristic vs random), seat-rotated.

    python -m benchmarks.bot_vs_random --env terralore_v0 --games 1000
    python -m benchmarks.bot_vs_random --env earth_v0 --players 2 --games 500
    python -m benchmarks.bot_vs_random --env terralore_v0 --env-kwargs '{"defenders_deal_damage": true}'

Prints the win rate with a 95 % Wilson interval and the mean game length; ``--json`` writes it.
Built on ``tabletop_envs.core.arena.play_match`` (paired deals, seats rotated every game).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main(argv=None) -> dict:
    from benchmarks import check_json_path, machine_facts, model_digests, positive_int, write_json
    from tabletop_envs.core.arena import play_match
    from tabletop_envs.core.registry import make_game
    from training.evaluate import (
        check_games,
        check_seed,
        check_two_seats,
        parse_env_kwargs,
        split_env_kwargs,
        wilson,
    )

    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--env", default="terralore_v0")
    parser.add_argument("--policy", help="policy id or model path (default: <env>/heuristic)")
    parser.add_argument("--opponent", help="policy id or model path (default: <env>/random)")
    parser.add_argument("--games", type=int, default=1000, help="games (rounded up to whole seat rotations)")
    parser.add_argument("--players", type=positive_int, help="seat count for games that take num_players")
    parser.add_argument("--env-kwargs", default="{}",
                        help='JSON rule options and max_turns, as training.evaluate takes them, e.g. '
                             '\'{"deck_out": "empty_deck"}\'')
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    check_json_path(args.json)
    check_games(args.games)
    check_seed(args.seed)
    policy = args.policy or f"{args.env}/heuristic"
    opponent = args.opponent or f"{args.env}/random"
    env_kwargs = dict(parse_env_kwargs(args.env_kwargs) or {})
    if args.players:
        env_kwargs["num_players"] = args.players
    kwargs, max_turns = split_env_kwargs(env_kwargs, args.env)
    seats = make_game(args.env, **kwargs).num_players
    check_two_seats(args.env, seats)  # alone at the table the policy has the best return every game
    start = time.perf_counter()
    res = play_match(args.env, [policy] + [opponent] * (seats - 1), args.games, args.seed, kwargs, max_turns)
    elapsed = time.perf_counter() - start
    lo, hi = wilson(int(res.wins[0]), res.games)
    out = {"env": args.env, "env_kwargs": env_kwargs, "policy": policy, "opponent": opponent, "players": seats,
           "games": res.games,
           "wins": int(res.wins[0]), "draws": int(res.draws[0]), "losses": int(res.losses[0]),
           "win_rate": res.win_rate(0), "ci95": [lo, hi], "mean_decisions": sum(res.lengths) / res.games,
           "mean_return": float(res.total_return[0] / res.games), "seconds": elapsed, "machine": machine_facts(),
           "models": model_digests(args.env, make_game(args.env, **kwargs).config(), policy, opponent)}
    print(f"{policy} vs {opponent} on {args.env} ({seats} seats, {res.games} seat-rotated games): "
          f"win {100 * out['win_rate']:.1f}% [95% CI {100 * lo:.1f}–{100 * hi:.1f}], "
          f"draw {100 * res.draws[0] / res.games:.1f}%, loss {100 * res.losses[0] / res.games:.1f}%; "
          f"{out['mean_decisions']:.0f} decisions per game; {elapsed:.1f}s")
    if args.json:
        write_json(args.json, out)
    return out


if __name__ == "__main__":
    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
