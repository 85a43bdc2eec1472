"""How much stronger could a policy play against an opponent? A rollout search over it, side by side.

Every deal is played from both seats twice: by the policy as it is, and by a search built on it.
At each of its decisions with more than one legal action the search deals ``--worlds`` worlds
that agree with everything its seat has seen (``state.resample_hidden``), plays each legal action
in every world and finishes the game with the policy in its own seat and the real opponent in the
other, then picks the action with the most wins less losses (ties keep the policy's own choice;
the search is ``training.search``, which ``training.distill`` also uses). The search knows
whom it plays, so its result is a floor under what any player of that seat's information could
reach against *that* opponent; the gap to the plain policy is play the network leaves on the table.
Both sides meet the same opponent on the same deals, its generator seeded the same way.

    python -m benchmarks.search_ceiling --env terralore_v0 --policy terralore_v0/ppo --deals 300 --worlds 32

A search decision costs about ``worlds`` × legal actions × the rest of a game in policy moves
(Terralore with 32 worlds: about 1 s a game); games of hundreds of decisions (Earth) take long.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.arena import deal_seed
from tabletop_envs.core.errors import ConfigError
from tabletop_envs.core.policy import policy_rng
from training.search import mover, play_out, search_action


def search_ceiling(env_name: str, policy, opponent, deals: int, worlds: int, seed: int = 0,
                   game_kwargs: dict | None = None, max_turns: int | None = None) -> dict:
    from tabletop_envs.core.registry import make_game
    from training.evaluate import PairResult

    game = make_game(env_name, **(game_kwargs or {}))
    if game.num_players != 2:
        raise ConfigError(f"the search rolls out two-player games; {env_name} has {game.num_players} seats here "
                          "(e.g. --env-kwargs '{\"num_players\": 2}')")
    limit = game.default_max_turns if max_turns is None else max_turns
    outcomes: dict[str, list[float]] = {"plain": [], "search": []}
    for deal in range(deals):
        dealt = deal_seed(seed, deal)  # training.evaluate.play_pair's deals
        for seat in (0, 1):
            for side, results in outcomes.items():
                # of (deal, seat), never the deal's own stream nor one that tells its seed; the same for both sides
                opp_rng, own_rng = policy_rng(dealt, seat, 0), policy_rng(dealt, seat, 1)
                plain, others = mover({seat: policy}, own_rng), mover({1 - seat: opponent}, opp_rng)

                def choose(state, p, seat=seat, side=side, plain=plain, others=others, own_rng=own_rng):
                    if p != seat:
                        return others(state, p)
                    if side == "plain":
                        return plain(state, p)
                    return search_action(state, seat, policy, opponent, worlds, limit, own_rng)

                results.append(play_out(game.new_initial_state(dealt), choose, limit, seat))
    out: dict[str, Any] = {"env": env_name, "deals": deals, "games": 2 * deals, "worlds": worlds, "seed": seed}
    for side, results in outcomes.items():
        r = np.array(results)
        out[side] = PairResult(side, "opponent", len(r), int((r > 0).sum()), int((r == 0).sum()),
                               int((r < 0).sum())).rates()
    out["paired"] = paired_wins(outcomes["plain"], outcomes["search"])
    return out


def paired_wins(plain: list[float], search: list[float]) -> dict:
    """McNemar's exact test on the games both sides played (same deal, seat and opponent stream): of
    the games exactly one side won, how likely a split at least this uneven is if neither side were
    the stronger. Two Wilson intervals that overlap say nothing about paired games."""
    plain_only = sum(a > 0 >= b for a, b in zip(plain, search))
    search_only = sum(b > 0 >= a for a, b in zip(plain, search))
    n, k = plain_only + search_only, min(plain_only, search_only)
    p = min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n) if n else 1.0
    return {"games_only_plain_won": plain_only, "games_only_search_won": search_only, "mcnemar_exact_p": p}


def main(argv=None) -> dict:
    from benchmarks import check_json_path, machine_facts, model_digests, write_json
    from tabletop_envs.core.registry import make_game
    from training.evaluate import check_seed, parse_env_kwargs, resolve, split_env_kwargs

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--policy", required=True, help="policy id or model path: the one searched over")
    parser.add_argument("--opponent", default=None, help="default: <env>/random")
    parser.add_argument("--deals", type=int, default=300, help="deals, each played from both seats")
    parser.add_argument("--worlds", type=int, default=32, help="re-dealt worlds per search decision")
    parser.add_argument("--env-kwargs", default="{}", help="JSON rule options and max_turns")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    check_json_path(args.json)
    for name, example in (("deals", 300), ("worlds", 32)):
        if getattr(args, name) < 1:
            raise ConfigError(f"--{name} must be a positive integer, got {getattr(args, name)}; e.g. --{name} {example}")
    check_seed(args.seed)
    kwargs, max_turns = split_env_kwargs(parse_env_kwargs(args.env_kwargs), args.env)
    config = make_game(args.env, **kwargs).config()
    policy_name, policy = resolve(args.policy, args.env, config)
    opponent_name, opponent = resolve(args.opponent or f"{args.env}/random", args.env, config)
    start = time.perf_counter()
    out = search_ceiling(args.env, policy, opponent, args.deals, args.worlds, args.seed, kwargs, max_turns)
    out.update(policy=policy_name, opponent=opponent_name, env_kwargs=kwargs, seconds=time.perf_counter() - start,
               machine=machine_facts(), models=model_digests(args.env, config, args.policy,
                                                             args.opponent or f"{args.env}/random"))
    for side in ("plain", "search"):
        r = out[side]
        print(f"{policy_name if side == 'plain' else f'search over it ({args.worlds} worlds)'} vs {opponent_name}: "
              f"win {100 * r['win']['rate']:.1f}% [95% CI {100 * r['win']['ci95'][0]:.1f}–"
              f"{100 * r['win']['ci95'][1]:.1f}], draw {100 * r['draw']['rate']:.1f}% of {r['games']}")
    paired = out["paired"]
    print(f"paired: {paired['games_only_search_won']} games won by the search alone, "
          f"{paired['games_only_plain_won']} by the policy alone (McNemar exact p = {paired['mcnemar_exact_p']:.3g})")
    print(f"{out['seconds']:.0f}s")
    if args.json:
        write_json(args.json, out)
    return out


if __name__ == "__main__":
    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
