"""Sampling throughput of self-play PPO: RLlib (new API stack) side by side with SB3 MaskablePPO.

Both collect with the policy network in the loop, on the same game, with the same MLP size and one
torch thread. Numbers are env decisions per second (every seat's decisions count; in SB3 the
opponent's decisions happen inside ``env.step`` through a numpy snapshot of the learner, as in
``training.train``), medians over ``--repeats`` timed windows:

- ``sb3 collect (k envs)``: ``MaskablePPO.collect_rollouts`` over a DummyVecEnv of k envs (4 envs as
  configs/<game>.yaml has, but SB3's stock ``MlpPolicy`` and vec env, not the faster policy class and
  batched self-play vec env of ``training.train``), no update;
- ``sb3 learn (k envs)``: ``MaskablePPO.learn`` (collection + PPO update), same settings;
- ``rllib sample (driver, k envs)``: ``EnvRunner.sample`` in the driver process (``num_env_runners:
  0``, ``num_envs_per_env_runner: k``);
- ``rllib sample (1 runner, k envs)``: the same on one remote env-runner actor, as
  ``training.rllib_train`` runs with the shipped configs;
- ``rllib train (1 runner, k envs)``: ``Algorithm.train()`` (sampling on the runner + update in the
  driver);
- ``adapter, random``: the MultiAgentEnv adapter alone with random legal actions (the ceiling).

    python -m benchmarks.rllib_throughput --env terralore_v0 --seconds 8 --repeats 3 \
        --json benchmarks/results/rllib_throughput.json

Needs the ``train`` and ``distributed`` extras. Ray is started with ``num_cpus=2`` and shut down.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks import check_json_path, machine_facts, positive_float, positive_int, write_json
from training.export import load_average


def _median(rates: list[float]) -> dict:
    return {"steps_per_s": statistics.median(rates), "runs": [round(r, 1) for r in rates]}


# ------------------------------------------------------------------------------------ reference
def adapter_random(env_name: str, env_kwargs: dict, seconds: float, repeats: int) -> dict:
    from tabletop_envs.rllib_adapter import TabletopMultiAgentEnv

    env = TabletopMultiAgentEnv({"env": env_name, **env_kwargs})
    rng = np.random.default_rng(0)
    rates = []
    for r in range(repeats):
        steps, games = 0, 0
        obs, _ = env.reset(seed=r)
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            (agent, ob), = obs.items()
            obs, _, term, trunc, _ = env.step({agent: int(rng.choice(np.flatnonzero(ob["action_mask"])))})
            steps += 1
            if term["__all__"] or trunc["__all__"]:
                games += 1
                obs, _ = env.reset(seed=1000 * r + games)
        rates.append(steps / (time.perf_counter() - start))
    return _median(rates)


# ------------------------------------------------------------------------------------ SB3
def sb3(env_name: str, env_kwargs: dict, hiddens: list[int], n_envs: int, n_steps: int, seconds: float,
        repeats: int) -> dict:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tabletop_envs.core.single_agent import SingleAgentEnv
    from training.export import numpy_policy
    from training.train import quiet_logger

    counter = {"decisions": 0}

    def make():
        env = SingleAgentEnv(env_name, **env_kwargs)
        play = env.play  # every move of the deal goes through it: the learner's, the opponents', the forced

        def counting_play(action):  # every seat's decision, the opponent's included, as RLlib counts them
            counter["decisions"] += 1
            play(action)

        env.play = counting_play
        return env

    venv = DummyVecEnv([make for _ in range(n_envs)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=256, n_epochs=4, seed=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": hiddens, "vf": hiddens}, "activation_fn": torch.nn.Tanh})
    model.set_logger(quiet_logger())
    venv.env_method("set_opponent", numpy_policy(model, deterministic=False, name="snapshot"))
    _, callback = model._setup_learn(10**9, None)
    callback.on_training_start(locals(), globals())

    def collect_window():
        counter["decisions"] = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            model.collect_rollouts(model.env, callback, model.rollout_buffer, n_rollout_steps=n_steps)
        return counter["decisions"] / (time.perf_counter() - start)

    collect_window()  # warm-up
    collect = _median([collect_window() for _ in range(repeats)])
    learn_rates = []
    per_call = n_steps * n_envs
    for _ in range(repeats):
        counter["decisions"] = 0
        start = time.perf_counter()
        calls = 0
        while time.perf_counter() - start < seconds:
            model.learn(per_call, reset_num_timesteps=False)
            calls += 1
        learn_rates.append(counter["decisions"] / (time.perf_counter() - start))
    venv.close()
    return {"collect": collect, "learn": _median(learn_rates),
            "settings": {"n_envs": n_envs, "n_steps": n_steps, "hiddens": hiddens}}


# ------------------------------------------------------------------------------------ RLlib
def rllib(env_name: str, env_kwargs: dict, hiddens: list[int], batch: int, envs: list[int], seconds: float,
          repeats: int) -> dict:
    import ray

    from training.rllib_train import build_algo_config, load_rllib_config, start_ray

    def cfg_for(runners: int, k: int):
        return load_rllib_config(data={
            "env": env_name, "env_kwargs": env_kwargs, "iterations": 1,
            "env_runners": {"num_env_runners": runners, "num_envs_per_env_runner": k},
            "ppo": {"train_batch_size_per_learner": batch, "minibatch_size": 256, "num_epochs": 4},
            "model": {"fcnet_hiddens": hiddens}, "output": {"dir": "/tmp/rllib_throughput"}})

    out = {"settings": {"train_batch_size_per_learner": batch, "hiddens": hiddens}}
    start_ray(cfg_for(0, 1), None)
    try:
        for k in envs:
            algo = build_algo_config(cfg_for(0, k)).build_algo()
            try:
                runner = algo.env_runner
                out[f"rllib sample (driver, {k} envs)"] = _median([
                    _sample_window(lambda n, er=runner: er.sample(num_timesteps=n), seconds, warm=r == 0)
                    for r in range(repeats)])
            finally:
                algo.stop()
        k = envs[-1]
        algo = build_algo_config(cfg_for(1, k)).build_algo()
        try:
            group = algo.env_runner_group

            def remote_sample(n):
                return group.foreach_env_runner(lambda runner: runner.sample(num_timesteps=n),
                                                local_env_runner=False)[0]

            out[f"rllib sample (1 runner, {k} envs)"] = _median([_sample_window(remote_sample, seconds, warm=r == 0)
                                              for r in range(repeats)])
            rates = []
            algo.train()  # warm-up
            for _ in range(repeats):
                steps, start = 0, time.perf_counter()
                while time.perf_counter() - start < seconds:
                    result = algo.train()
                    steps += int(result["env_runners"]["num_env_steps_sampled"])
                rates.append(steps / (time.perf_counter() - start))
            out[f"rllib train (1 runner, {k} envs)"] = _median(rates)
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    return out


def _sample_window(sample, seconds: float, warm: bool) -> float:
    if warm:
        sample(200)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        episodes = sample(500)
        steps += sum(ep.env_steps() for ep in episodes)
    return steps / (time.perf_counter() - start)


# ------------------------------------------------------------------------------------ main
def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--env", default="terralore_v0")
    parser.add_argument("--seconds", type=positive_float, default=8.0, help="length of one timed window")
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed windows (median reported)")
    parser.add_argument("--hiddens", type=positive_int, nargs="+", default=[128, 128], help="MLP sizes for both")
    parser.add_argument("--sb3-envs", type=positive_int, nargs="+", default=[4, 16],
                        help="DummyVecEnv sizes (4 as the SB3 recipes have)")
    parser.add_argument("--sb3-steps", type=positive_int, default=256, help="n_steps per env (the SB3 recipe's)")
    parser.add_argument("--rllib-envs", type=positive_int, nargs="+", default=[1, 16],
                        help="num_envs_per_env_runner values (the last one is also used on a remote runner)")
    parser.add_argument("--rllib-batch", type=positive_int, default=2048, help="train_batch_size_per_learner")
    parser.add_argument("--only", choices=["sb3", "rllib", "adapter"], nargs="*")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    check_json_path(args.json)
    only = set(args.only or ["adapter", "sb3", "rllib"])
    if only & {"adapter", "rllib"}:  # before the SB3 rows, whose minutes of timing a missing Ray threw away
        from training.rllib_train import require_ray

        require_ray()
    warnings.simplefilter("ignore")
    import torch

    torch.set_num_threads(1)
    report = {"env": args.env, "machine": machine_facts(), "seconds": args.seconds, "repeats": args.repeats,
              "results": {}}
    res = report["results"]
    if "adapter" in only:
        res["adapter, random"] = adapter_random(args.env, {}, args.seconds, args.repeats)
    if "sb3" in only:
        for k in args.sb3_envs:
            out = sb3(args.env, {}, args.hiddens, k, args.sb3_steps, args.seconds, args.repeats)
            res[f"sb3 collect ({k} envs)"], res[f"sb3 learn ({k} envs)"] = out["collect"], out["learn"]
        report["sb3_settings"] = {"n_steps": args.sb3_steps, "hiddens": args.hiddens, "batch_size": 256,
                                  "n_epochs": 4}
    if "rllib" in only:
        import ray

        out = rllib(args.env, {}, args.hiddens, args.rllib_batch, args.rllib_envs, args.seconds, args.repeats)
        report["rllib_settings"] = {**out.pop("settings"), "ray": ray.__version__, "num_epochs": 4,
                                    "minibatch_size": 256}
        res.update(out)
    report["load_after"] = load_average()
    print(f"{args.env}: env decisions per second (median of {args.repeats} x {args.seconds:g}s)")
    for name, r in res.items():
        print(f"  {name:<34} {r['steps_per_s']:>9,.0f}   runs {r['runs']}")
    if report["machine"]["load_average"] and report["load_after"]:  # none on Windows
        print(f"  load average before/after: {report['machine']['load_average'][0]:.2f} / {report['load_after'][0]:.2f}")
    if args.json:
        write_json(args.json, report)
    return report


if __name__ == "__main__":
    import sys

    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
