"""How often play meets what an observation leaves out that the player knows (the env pages' lists).

    python -m benchmarks.observation_gaps --earth-games 30 10 --terralore-games 200

Earth: the place and pay decisions whose resource (sprouts or growth) neither the observation nor the mask
tells, found by switching the pending task's resource and comparing what the seat is shown. Terralore: the
decisions taken holding a card the opponent knows (``known_hand``), which the seat's own observation does not
mark. Each in games of the heuristic bot against itself and of the shipped model against the heuristic.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys

import numpy as np


def _play(env, policies, seed: int, rng: np.random.Generator, look) -> None:
    """One game, ``look(state, seat)`` before every decision; ``policies`` by seat."""
    env.reset(seed=seed)
    while env.agents:
        agent = env.agent_selection
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.agents.index(agent)
        look(env.game_state, seat)
        env.step(policies[seat].act(obs["observation"], obs["action_mask"], rng))


def earth_resource(games: int, policies) -> dict:
    from tabletop_envs import earth_v0

    counts: collections.Counter = collections.Counter()

    def look(state, seat):
        counts["decisions"] += 1
        task = state.queue[0]
        if task["t"] in ("place", "pay"):
            twin = state.clone()
            twin.queue[0]["res"] = "growth" if task["res"] == "sprouts" else "sprouts"
            twin._mask_cache = None
            same_obs = np.array_equal(state.observation(seat), twin.observation(seat))
            same_mask = np.array_equal(state.legal_action_mask(), twin.legal_action_mask())
            counts[task["t"]] += 1
            counts[f"{task['t']}, observation alike"] += same_obs
            counts[f"{task['t']}, observation and mask alike"] += same_obs and same_mask

    env = earth_v0.env(num_players=2)
    for g in range(games):
        _play(env, policies, 1000 + g, np.random.default_rng(g), look)
    return dict(counts)


def terralore_known(games: int, policies, rotate: bool) -> dict:
    from tabletop_envs import terralore_v0

    counts: collections.Counter = collections.Counter()
    seen: set[int] = set()
    env = terralore_v0.env()
    for g in range(games):
        def look(state, seat, g=g):
            counts["decisions"] += 1
            if state.known_hand[seat]:
                counts["holding a card the opponent knows"] += 1
                seen.add(g)

        seated = [policies[(g + p) % 2] for p in (0, 1)] if rotate else policies
        _play(env, seated, 2000 + g, np.random.default_rng(g), look)
    return {**counts, "games with one": len(seen), "games": games}


def main(argv=None) -> dict:
    from benchmarks import positive_int
    from tabletop_envs import load_policy

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--earth-games", type=positive_int, nargs=2, default=[30, 10], metavar=("HEURISTIC", "MODEL"),
                        help="two-player Earth games of the heuristic against itself, and of the model against it")
    parser.add_argument("--terralore-games", type=positive_int, default=200, help="Terralore games of each pairing")
    args = parser.parse_args(argv)
    earth = [load_policy(f"earth_v0/{p}", env="earth_v0", game_config={"num_players": 2}) for p in ("heuristic", "ppo")]
    terra = [load_policy(f"terralore_v0/{p}", env="terralore_v0") for p in ("heuristic", "ppo")]
    report = {
        "earth, heuristic self-play": earth_resource(args.earth_games[0], [earth[0], earth[0]]),
        "earth, model vs heuristic": earth_resource(args.earth_games[1], [earth[1], earth[0]]),
        "terralore, heuristic self-play": terralore_known(args.terralore_games, [terra[0], terra[0]], False),
        "terralore, model vs heuristic": terralore_known(args.terralore_games, [terra[1], terra[0]], True),
    }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
