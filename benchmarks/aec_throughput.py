"""Random-legal play through the full AEC API, our envs side by side with PettingZoo's.

Every env is driven by the same loop: ``env.last()`` (observation + mask), a uniformly random legal
action, ``env.step``; a finished game is reset. Reference envs are built twice: with
``pettingzoo.make`` (their default wrapper chain, as users get them and as the reference table
measures texas_holdem) and as ``raw_env()`` (no wrappers; the chain costs them about half their
speed). Ours are built with ``env()``, which is the raw env with the same safety built in.

The envs are timed in rounds: each round runs one window of every env, one after another, so a
slow spell of the machine touches every env alike. Each env's rate is the median of its windows;
each ratio is the median over the rounds of that round's ratio against texas_holdem-v4 (wrapped, and
raw) measured beside it. "steps" are ``env.step`` calls, the dead steps (``step(None)`` as each agent
leaves a finished game) included, as the reference table counts them; "decisions" leave those out
(about 40 % of texas_holdem's steps are dead steps, 0.3-4 % of ours: see the committed results).

    python -m benchmarks.aec_throughput --seconds 3 --repeats 3 --json benchmarks/results/aec.json
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import check_json_path, machine_facts, positive_float, positive_int, write_json

REFERENCES = {
    "texas_holdem-v4": "classic/texas_holdem-v4",
    "connect_four-v3": "classic/connect_four-v3",
    "hanabi-v5": "classic/hanabi-v5",
}
#: the same envs without PettingZoo's default wrapper chain (the made env's ``unwrapped``, its raw_env)
RAW_REFERENCES = {f"{name} raw_env": pz_id for name, pz_id in REFERENCES.items()}
OURS = {
    "terralore_v0": ("terralore_v0", {}),
    "travel_earth_v0": ("travel_earth_v0", {}),
    "earth_v0 (2p)": ("earth_v0", {"num_players": 2}),
    "earth_v0 (4p)": ("earth_v0", {"num_players": 4}),
}
BASELINE = "texas_holdem-v4"
RAW_BASELINE = "texas_holdem-v4 raw_env"
#: the ratios each result gets (JSON key: the reference it divides by); the targets are Terralore and
#: Travel Earth against texas_holdem, 2-player Earth against hanabi
RATIOS = {"ratio_vs_texas_holdem": BASELINE, "ratio_vs_texas_holdem_raw": RAW_BASELINE,
          "ratio_vs_hanabi": "hanabi-v5", "ratio_vs_hanabi_raw": "hanabi-v5 raw_env"}


def make_reference(pz_id: str):
    import pettingzoo

    return pettingzoo.make("aec", pz_id)


def make_raw_reference(pz_id: str):
    return make_reference(pz_id).unwrapped


def make_ours(env_name: str, kwargs: dict):
    from tabletop_envs.core.registry import get_spec

    return get_spec(env_name).load_module().env(**kwargs)


def run_window(env, seconds: float, rng: np.random.Generator, seed: int) -> tuple[float, int, int, int]:
    """(steps per second, games, steps, decisions) over one timed window (resets included, as in real collection).

    The env is seeded once, at the window's start; later games reset without a seed, as
    PettingZoo's ``performance_benchmark`` and SB3's collection do. A seeded reset is not the
    same work everywhere: PettingZoo's RLCard envs rebuild their RLCard env (``rlcard.make``,
    about 0.2 ms: texas_holdem's 5-step games then spent about half their time reseeding),
    ours only make a generator, so reseeding every game timed seeding more than play."""
    env.reset(seed=seed)
    steps = games = dead = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    while True:
        for _ in range(200):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                dead += 1
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
            if not env.agents:
                games += 1
                env.reset()
        if time.perf_counter() >= deadline:
            break
    return steps / (time.perf_counter() - start), games, steps, steps - dead


def measure(factories: dict, seconds: float, repeats: int) -> dict:
    """Every env's windows, in ``repeats`` rounds of one window per env (see the module doc)."""
    results: dict[str, dict[str, Any]] = {}
    envs: dict[str, Any] = {}
    rng = np.random.default_rng(0)
    for name, factory in factories.items():
        try:
            envs[name] = factory()
        except Exception as exc:  # a missing optional reference must not hide our numbers
            results[name] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        run_window(envs[name], min(0.5, seconds), rng, 0)  # warm-up
        results[name] = {"runs": [], "games": 0, "decisions": 0, "steps": 0}
    for r in range(repeats):
        for name, env in envs.items():
            rate, games, steps, decisions = run_window(env, seconds, rng, 1000 * (r + 1))
            res = results[name]
            res["runs"].append(rate)
            res["games"] += games
            res["decisions"] += decisions
            res["steps"] += steps
    for name in envs:
        res = results[name]
        res["steps_per_s"] = statistics.median(res["runs"])
        res["us_per_step"] = 1e6 / res["steps_per_s"]
        res["decisions_per_s"] = res["steps_per_s"] * res["decisions"] / max(1, res.pop("steps"))
    for key, base in RATIOS.items():
        if base not in envs:
            continue
        for name in envs:  # the median of the rounds' ratios: each round's envs ran minutes apart at most
            res = results[name]
            res[key] = statistics.median(a / b for a, b in zip(res["runs"], results[base]["runs"]))
    return results


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--seconds", type=positive_float, default=3.0, help="length of one timed window")
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed windows per env (median reported)")
    parser.add_argument("--only", nargs="*", help="names to run (default: all)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    check_json_path(args.json)
    warnings.simplefilter("ignore")
    factories: dict[str, Callable[[], Any]] = {}
    for name, pz_id in REFERENCES.items():
        factories[name] = functools.partial(make_reference, pz_id)
    for name, pz_id in RAW_REFERENCES.items():
        factories[name] = functools.partial(make_raw_reference, pz_id)
    for name, (env_name, kw) in OURS.items():
        factories[name] = functools.partial(make_ours, env_name, kw)
    from tabletop_envs.core.registry import ENVS

    for name in args.only or ():
        if name not in factories and name in ENVS:  # any registered game, with its default options
            factories[name] = functools.partial(make_ours, name, {})
    if args.only:
        unknown = [name for name in args.only if name not in factories]
        if unknown:  # a typo would otherwise time the baseline alone
            parser.error(f"--only: unknown name(s) {unknown}; choose from {list(factories)} or a registered env "
                         f"({', '.join(sorted(ENVS))}) (quote names with spaces: \"earth_v0 (2p)\")")
        factories = {k: v for k, v in factories.items() if k in args.only or k in (BASELINE, RAW_BASELINE)}
    results = measure(factories, args.seconds, args.repeats)
    print(f"{'environment':<24} {'steps/s':>9} {'µs/step':>8} {'decisions/s':>11} {'× texas':>8} {'× raw':>6} "
          f"{'× hanabi':>9} {'× raw':>6}")
    for name, res in results.items():
        if "error" in res:
            print(f"{name:<24} {'error':>9}  {res['error'][:60]}")
            continue
        print(f"{name:<24} {res['steps_per_s']:>9,.0f} {res['us_per_step']:>8.1f} {res['decisions_per_s']:>11,.0f} "
              + " ".join(f"{res.get(key, float('nan')):>{w}.2f}" for key, w in zip(RATIOS, (8, 6, 9, 6))))
    report = {"machine": machine_facts(), "seconds": args.seconds,
              "repeats": args.repeats, "results": results}
    if args.json:
        write_json(args.json, report)
    return report


if __name__ == "__main__":
    import sys

    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
