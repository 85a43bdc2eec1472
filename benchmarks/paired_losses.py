"""Are a policy's losses against an opponent tied to the deal, or to the play?

Every deal (seed) is played from both seats. If losses came from hopeless deals, the same deal
would be lost from both seats far more often than the product of the two seats' loss rates; if
they come from the play, both-seat losses match that product. "The play" is the policy's own
choices, the opponent's (a random opponent draws afresh in each seating) and the dice: this
test cannot tell those apart. The output gives the both-seat rate's 95 % (Wilson) interval and the
largest share of all losses that hopeless deals could explain at its upper end: with few both-seat
losses, "matches the product" is only as strong as that bound.

    python -m benchmarks.paired_losses --env terralore_v0 --policy terralore_v0/ppo --deals 1000
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from tabletop_envs import load_policy
from tabletop_envs.core.arena import play_game
from tabletop_envs.core.errors import ConfigError, run_cli
from tabletop_envs.core.policy import policy_rng
from tabletop_envs.core.registry import make_game
from training.evaluate import check_seed, wilson


def paired_losses(env_name: str, policy, opponent, deals: int, seed: int = 0, game_kwargs: dict | None = None) -> dict:
    game = make_game(env_name, **(game_kwargs or {}))
    if game.num_players != 2:
        raise ValueError("paired losses are defined for two-player games")
    lost = np.zeros((deals, 2), bool)
    for i in range(deals):
        deal = seed + i
        for seat in (0, 1):
            policies = [policy, opponent] if seat == 0 else [opponent, policy]
            # never the deal's own stream, nor one that tells the deal's seed (policy_rng); one per seat
            returns, _ = play_game(game, policies, deal, rng=[policy_rng(deal, seat, s) for s in (0, 1)])
            lost[i, seat] = returns[seat] < returns[1 - seat]
    p0, p1 = lost.mean(0)
    both = int(lost.all(1).sum())
    low, high = wilson(both, deals)
    return {"env": env_name, "deals": deals, "loss_rate_seat_0": float(p0), "loss_rate_seat_1": float(p1),
            "both_seats_lost": both / deals, "both_seats_lost_ci95": [low, high], "if_independent": float(p0 * p1),
            # hopeless deals lose from both seats: at a both-seat rate of h they are 2h of the p0 + p1 lost
            "deal_share_of_losses_at_most": min(1.0, 2 * high / (p0 + p1)) if p0 + p1 else 0.0}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--policy", required=True, help="policy id or model path")
    parser.add_argument("--opponent", default=None, help="default: <env>/random")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0,
                        help="the deals are seed, seed+1, ...: two nearby seeds share most deals, so for a second, "
                             "independent sample move the seed by at least --deals")
    args = parser.parse_args(argv)
    if args.deals < 1:
        raise ConfigError(f"--deals must be a positive integer, got {args.deals}; e.g. --deals 1000")
    check_seed(args.seed)
    # the deals use the default rules: a model trained under others is warned about
    result = paired_losses(args.env, load_policy(args.policy, env=args.env, game_config={}),
                           load_policy(args.opponent or f"{args.env}/random", env=args.env, game_config={}),
                           args.deals, args.seed)
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    sys.exit(run_cli(main))
