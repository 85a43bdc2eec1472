"""Random-legal play through the full AEC API, our envs side by side with PettingZoo's.

Every env is driven by the same loop: ``env.last()`` (observation + mask), a uniformly random legal
action, ``env.step``; a finished game is reset. Reference envs are built with ``pettingzoo.make``
(their default wrapper chain, as users get them); ours with ``env()``, which has the same safety
built in. Medians over ``--repeats`` timed windows; ratios are against texas_holdem-v4 measured in
the same run.

    python -m benchmarks.aec_throughput --seconds 3 --repeats 3 --json benchmarks/results/aec.json
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks import machine_facts, write_json

REFERENCES = {
    "texas_holdem-v4": "classic/texas_holdem-v4",
    "connect_four-v3": "classic/connect_four-v3",
    "hanabi-v5": "classic/hanabi-v5",
}
OURS = {
    "terralore_v0": ("terralore_v0", {}),
    "travel_earth_v0": ("travel_earth_v0", {}),
    "earth_v0 (2p)": ("earth_v0", {"num_players": 2}),
    "earth_v0 (4p)": ("earth_v0", {"num_players": 4}),
}
BASELINE = "texas_holdem-v4"


def make_reference(pz_id: str):
    import pettingzoo

    return pettingzoo.make("aec", pz_id)


def make_ours(env_name: str, kwargs: dict):
    from tabletop_envs.core.registry import get_spec

    return get_spec(env_name).load_module().env(**kwargs)


def run_window(env, seconds: float, rng: np.random.Generator, seed: int) -> tuple[float, int]:
    """Steps per second over one timed window (resets included, as in real collection).

    The env is seeded once, at the window's start; later games reset without a seed, as
    PettingZoo's ``performance_benchmark`` and SB3's collection do. A seeded reset is not the
    same work everywhere: PettingZoo's RLCard envs rebuild their RLCard env (``rlcard.make``,
    about 0.2 ms: texas_holdem's 5-step games then spent about half their time reseeding),
    ours only make a generator, so reseeding every game timed seeding more than play."""
    env.reset(seed=seed)
    steps = games = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while True:
        for _ in range(200):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
            if not env.agents:
                games += 1
                env.reset()
        if time.perf_counter() >= deadline:
            break
    return steps / (time.perf_counter() - start), games


def measure(factories: dict, seconds: float, repeats: int) -> dict:
    results = {}
    rng = np.random.default_rng(0)
    for name, factory in factories.items():
        try:
            env = factory()
        except Exception as exc:  # a missing optional reference must not hide our numbers
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        run_window(env, min(0.5, seconds), rng, 0)  # warm-up
        rates = []
        games = 0
        for r in range(repeats):
            rate, g = run_window(env, seconds, rng, 1000 * (r + 1))
            rates.append(rate)
            games += g
        results[name] = {"steps_per_s": statistics.median(rates), "runs": rates, "games": games,
                         "us_per_step": 1e6 / statistics.median(rates)}
    return results


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="length of one timed window")
    parser.add_argument("--repeats", type=int, default=3, help="timed windows per env (median reported)")
    parser.add_argument("--only", nargs="*", help="names to run (default: all)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    factories = {}
    for name, pz_id in REFERENCES.items():
        factories[name] = (lambda i=pz_id: make_reference(i))
    for name, (env_name, kw) in OURS.items():
        factories[name] = (lambda e=env_name, k=kw: make_ours(e, k))
    if args.only:
        unknown = [name for name in args.only if name not in factories]
        if unknown:  # a typo would otherwise time the baseline alone
            parser.error(f"--only: unknown name(s) {unknown}; choose from {list(factories)} "
                         "(quote names with spaces: \"earth_v0 (2p)\")")
        factories = {k: v for k, v in factories.items() if k in args.only or k == BASELINE}
    results = measure(factories, args.seconds, args.repeats)
    base = results.get(BASELINE, {}).get("steps_per_s")
    print(f"{'environment':<20} {'steps/s':>10} {'µs/step':>9} {'× texas':>8}")
    for name, res in results.items():
        if "error" in res:
            print(f"{name:<20} {'error':>10}  {res['error'][:60]}")
            continue
        ratio = res["steps_per_s"] / base if base else float("nan")
        res["ratio_vs_texas_holdem"] = ratio
        print(f"{name:<20} {res['steps_per_s']:>10,.0f} {res['us_per_step']:>9.1f} {ratio:>8.2f}")
    report = {"machine": machine_facts(), "seconds": args.seconds,
              "repeats": args.repeats, "results": results}
    if args.json:
        write_json(args.json, report)
    return report


if __name__ == "__main__":
    main()
