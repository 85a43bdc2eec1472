"""Training throughput and opponent latency.

1. End-to-end env steps/s of MaskablePPO self-play on our games (learner vs a frozen numpy snapshot
   of itself, the opponent pool's hot path), side by side with the *same* MaskablePPO settings on
   PettingZoo ``connect_four-v3`` against a random opponent, through a correct single-agent
   reduction (below). Steps are learner decisions, i.e. what PPO trains on, on both sides.
   Each run is paired with a zero-cost env of the same observation and action shape trained with the
   same settings, replaying a rollout's worth of the game's recorded observations and masks:
   MaskablePPO's own cost for that shape, the ceiling no env of that shape can beat.
   The difference is the env's own cost per learner step, compared with connect_four's ("env cost × ref").
   Both sides use the policy class and rollout buffer ``training.train`` trains with (``--policy fast``,
   our ``FastMaskablePolicy`` and ``FastMaskableRolloutBuffer``: sb3-contrib's numbers with a cheaper
   mask and fewer copies) or sb3-contrib's stock ``MlpPolicy`` and buffer (``--policy stock``); never
   one for us and the other for the reference.
   Each round runs the reference before and after every game; a game's ratio is taken against the
   mean of those two runs, so the machine's drift cancels to first order.
   Every run also times its pieces (:data:`PIECES`: the envs' step, the masks, the rollout's forward
   pass, the rollout buffer, the update), so where a learner step's time goes is measured in the
   same runs as the ratios.
2. ``load_policy`` + ``act`` latency of a shipped opponent (median over real observations).

    python -m benchmarks.training_throughput --steps 12288 --repeats 7 --json benchmarks/results/training_throughput.json

Absolute numbers depend on the machine and on whatever else runs on it; the ratio measured in one
run is the comparable figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import gymnasium
import numpy as np

GAMES = {"terralore_v0": {}, "travel_earth_v0": {}, "earth_v0 (2p)": {"num_players": 2}}


def env_name_of(label: str) -> str:
    """The env a row label of :data:`GAMES` runs: ``"earth_v0 (2p)"`` -> ``"earth_v0"``."""
    return label.split(" ")[0]


def game_kwargs(label: str) -> dict:
    """The options a row label runs with: :data:`GAMES`' own, or a registered env's defaults (a fourth game)."""
    return GAMES[label] if label in GAMES else {}


def unknown_games(labels) -> list[str]:
    from tabletop_envs.core.registry import ENVS

    return [label for label in labels if label not in GAMES and label not in ENVS]


def refuse_unknown_games(parser: argparse.ArgumentParser, labels) -> None:
    """``parser.error`` naming the ``--games`` labels that are neither a row of :data:`GAMES` nor a registered
    env: a typo would otherwise fail deep inside, after the reference's runs."""
    if not labels:  # "--games" alone timed the reference alone (free_engine_bound: nothing) and wrote that
        parser.error(f"--games names no game; name one or more of {list(GAMES)} or a registered env, or leave "
                     "--games out for all three")
    repeated = sorted({label for label in labels if list(labels).count(label) > 1})
    if repeated:  # a game's ratio is paired with the reference runs around its first place in the round
        parser.error(f"--games: {repeated} given more than once; name each game once")
    unknown = unknown_games(labels)
    if unknown:
        from tabletop_envs.core.registry import ENVS

        parser.error(f"--games: unknown name(s) {unknown}; choose from {list(GAMES)} or a registered env "
                     f"({', '.join(sorted(ENVS))}); quote names with spaces")


REFERENCE = "connect_four-v3"


class ConnectFourVsRandom(gymnasium.Env):
    """Connect Four as a single-agent env: the learner against a random opponent.

    The reduction the PettingZoo SB3 tutorial gets wrong, done right: the learner's seat is drawn
    each episode; the opponent moves inside ``step``; the reward returned is everything the learner
    received since its previous decision (so a loss on the opponent's move reaches the learner);
    observations are always the learner's own (PettingZoo's planes are already "mine, theirs").
    """

    #: True: PettingZoo's raw_env, without the default wrapper chain (about half the env's cost per step)
    raw = False

    def __init__(self):
        import pettingzoo

        self.aec = pettingzoo.make("aec", "classic/connect_four-v3")  # default wrappers, as users get it
        if self.raw:
            self.aec = self.aec.unwrapped
        self.observation_space = gymnasium.spaces.Box(0, 1, (6 * 7 * 2,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(7)
        self._opp_rng = np.random.default_rng()

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._opp_rng = np.random.default_rng(seed + 1)
        self.aec.reset(seed=int(self.np_random.integers(2**31 - 1)))
        self.learner = self.aec.possible_agents[int(self.np_random.integers(2))]
        self._reward = 0.0
        self._play_opponent()
        return self._obs(), {}

    def _done(self) -> bool:
        return self.aec.terminations[self.learner] or self.aec.truncations[self.learner]

    def _play_opponent(self):
        while not self._done() and self.aec.agent_selection != self.learner:
            mask = self.aec.observe(self.aec.agent_selection)["action_mask"]
            legal = np.flatnonzero(mask)
            self.aec.step(int(legal[self._opp_rng.integers(legal.shape[0])]))
            self._reward += self.aec.rewards[self.learner]

    def _obs(self):
        return self.aec.observe(self.learner)["observation"].astype(np.float32).reshape(-1)

    def step(self, action):
        self._reward = 0.0
        self.aec.step(int(action))
        self._reward += self.aec.rewards[self.learner]
        self._play_opponent()
        terminated = self.aec.terminations[self.learner]
        truncated = self.aec.truncations[self.learner] and not terminated
        return self._obs(), float(self._reward), bool(terminated), bool(truncated), {}

    def action_masks(self):
        if self._done() or self.aec.agent_selection != self.learner:
            return np.ones(7, bool)
        return self.aec.observe(self.learner)["action_mask"].astype(bool)


class RawConnectFourVsRandom(ConnectFourVsRandom):
    """:class:`ConnectFourVsRandom` on ``raw_env()``: the reference without PettingZoo's wrapper chain,
    which ours do without too (``--reference raw``)."""

    raw = True


#: ``--reference``: the reference env's label and class
REFERENCES = {"wrapped": (REFERENCE, ConnectFourVsRandom), "raw": (f"{REFERENCE} raw_env", RawConnectFourVsRandom)}


class ZeroCostEnv(gymnasium.Env):
    """An env of a given observation and action shape that costs (almost) nothing per step.

    MaskablePPO's own cost per step (rollout plumbing, masked distribution, the update) grows with
    the observation width and the number of actions. Trained on this env with the same settings it
    gives the ceiling any env of that shape can reach, so the part of a game's training time that
    the env itself causes is measured, not guessed. It replays ``observations`` and their action
    ``masks`` (real ones, recorded from the game: the learner's cost depends on both, since the
    rollout's forward multiplies only the non-zero columns and the update's distribution reads only
    the legal actions, so zeros or all-legal masks would misstate it) in turn; episodes last
    ``length`` steps. Without ``masks`` every one of ``num_actions`` actions is legal.
    """

    def __init__(self, observations: np.ndarray, num_actions: int, length: int = 30, masks: np.ndarray | None = None):
        self._bank = np.asarray(observations, np.float32)
        self.observation_space = gymnasium.spaces.Box(0, 1, self._bank.shape[1:], np.float32)
        self.action_space = gymnasium.spaces.Discrete(num_actions)
        self._masks = np.ones((len(self._bank), num_actions), bool) if masks is None else np.asarray(masks, bool)
        if self._masks.shape != (len(self._bank), num_actions) or not self._masks.any(1).all():
            raise ValueError(f"masks must be ({len(self._bank)}, {num_actions}) with a legal action in every row")
        self.length, self._t, self._i = length, 0, 0

    def _next(self) -> np.ndarray:
        self._i = (self._i + 1) % self._bank.shape[0]
        return self._bank[self._i].copy()  # new data each call, as a real env

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._i = int(self.np_random.integers(self._bank.shape[0]))
        self._t = 0
        return self._next(), {}

    def step(self, action):
        self._t += 1
        return self._next(), 0.0, self._t >= self.length, False, {}

    def action_masks(self):
        return self._masks[self._i]


def record_observations(env_fn, count: int = 256, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` learner observations of an env played with random legal actions, and their masks."""
    env = env_fn()
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    bank: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    while len(bank) < count:
        mask = env.action_masks()
        bank.append(obs)
        masks.append(mask)
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = env.reset()
    return np.array(bank, np.float32), np.array(masks, bool)


class _ZeroCost:
    def __init__(self, observations: np.ndarray, num_actions: int, masks: np.ndarray | None = None):
        self.observations, self.num_actions, self.masks = observations, num_actions, masks

    def __call__(self):
        return ZeroCostEnv(self.observations, self.num_actions, masks=self.masks)


def snapshot_opponent(env_name: str, kwargs: dict, net_arch):
    """A numpy snapshot of a fresh MaskablePPO learner, sampling as the pool's snapshots do."""
    from sb3_contrib import MaskablePPO

    from tabletop_envs.core.onnx_policy import MLPPolicy
    from tabletop_envs.core.single_agent import SingleAgentEnv
    from training.export import mlp_weights

    model = MaskablePPO("MlpPolicy", SingleAgentEnv(env_name, **kwargs), policy_kwargs={"net_arch": net_arch},
                        device="cpu", seed=0)  # the same opponent, so the same games, in every run
    weights, activation = mlp_weights(model)
    return MLPPolicy(weights, activation, deterministic=False, name="snapshot")


POLICIES = ("fast", "stock")
VEC_NAMES = {"batched": "SelfPlayVecEnv", "dummy": "DummyVecEnv"}
SETTINGS: dict[str, Any] = {"n_steps": 512, "batch_size": 256, "n_epochs": 4, "policy_kwargs": {"net_arch": [128, 128]}}
THREADS = {"collect": 1, "update": 2}  # training.train's defaults (ppo.torch_threads, ppo.update_threads)


def algorithm_kwargs(name: str) -> dict:
    """``fast``: what training.train gives MaskablePPO (our policy class and rollout buffer);
    ``stock``: sb3-contrib's MlpPolicy and MaskableRolloutBuffer."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}: choose one of {', '.join(POLICIES)}")
    if name == "stock":
        return {"policy": "MlpPolicy"}
    from training.masked_policy import ALGORITHM_KWARGS

    return dict(ALGORITHM_KWARGS)


VEC_ENVS = tuple(VEC_NAMES)


def vec_env_class(name: str):
    """``batched``: training.train's SelfPlayVecEnv (our envs' opponents move in batched forward passes;
    connect_four, which has no such hook, is stepped env by env as DummyVecEnv does, minus the deep
    copy of infos); ``dummy``: SB3's DummyVecEnv on both sides."""
    if name not in VEC_ENVS:
        raise ValueError(f"unknown vec env {name!r}: choose one of {', '.join(VEC_ENVS)}")
    if name == "dummy":
        from stable_baselines3.common.vec_env import DummyVecEnv

        return DummyVecEnv
    from training.vec_env import SelfPlayVecEnv

    return SelfPlayVecEnv


#: the pieces of a learner step that every run times: (name, what owns the method, method, what it is)
PIECES = (
    ("env", "env", "step_wait", "the envs' step: the learner's move, the opponents' moves, new deals"),
    ("masks", "env", "env_method", "the action masks MaskablePPO asks the envs for before each forward pass"),
    ("forward", "policy", "forward", "the rollout's forward pass (actions, values, log-probabilities)"),
    ("buffer", "rollout_buffer", "add", "writing a step into the rollout buffer"),
    ("collection", "model", "collect_rollouts", "collecting a rollout, the four above included"),
    ("update", "model", "train", "PPO's update (the epochs of minibatches)"),
)


class _PieceClock:
    """Times the :data:`PIECES` of one model's training by wrapping the methods on the instances
    (nothing global is patched; :meth:`remove` restores them). A wrapper costs well under a µs per
    call, a few calls per vectorised step."""

    def __init__(self, model):
        self.seconds = dict.fromkeys([name for name, *_ in PIECES], 0.0)
        self._wrapped = []
        for name, owner, method, _ in PIECES:
            obj = model if owner == "model" else getattr(model, owner)
            self._wrapped.append((obj, method))
            setattr(obj, method, self._timed(name, getattr(obj, method)))

    def _timed(self, name, method):
        seconds, clock = self.seconds, time.perf_counter

        def timed(*args, **kwargs):
            start = clock()
            try:
                return method(*args, **kwargs)
            finally:
                seconds[name] += clock() - start

        return timed

    def remove(self) -> None:
        for obj, method in self._wrapped:
            vars(obj).pop(method, None)  # the class's method shows through again

    def per_step(self, steps: int, seconds: float) -> dict:
        """µs per learner step of each piece; ``other collection`` is the rest of collecting (SB3's
        loop around the pieces), ``rest`` what ``learn`` spends outside collecting and updating."""
        us = {name: s / steps * 1e6 for name, s in self.seconds.items()}
        inner = us["env"] + us["masks"] + us["forward"] + us["buffer"]
        us["other collection"] = us["collection"] - inner
        us["total"] = seconds / steps * 1e6
        us["rest"] = us["total"] - us["collection"] - us["update"]
        return {name: round(value, 1) for name, value in us.items()}


def measure(env_fns, steps: int, settings: dict, seed: int = 0, policy: str = "fast", vec: str = "batched") -> dict:
    import torch
    from sb3_contrib import MaskablePPO

    from training.callbacks import UpdateThreads
    from training.train import quiet_logger

    torch.set_num_threads(THREADS["collect"])
    venv = vec_env_class(vec)(env_fns)
    model = MaskablePPO(env=venv, **algorithm_kwargs(policy), seed=seed, device="cpu", verbose=0, **settings)
    model.set_logger(quiet_logger())
    clock = _PieceClock(model)
    start = time.perf_counter()
    try:
        model.learn(steps, callback=UpdateThreads(**THREADS))  # what training.train does by default
    finally:
        clock.remove()
    seconds = time.perf_counter() - start
    venv.close()
    return {"steps": int(model.num_timesteps), "seconds": round(seconds, 2),
            "steps_per_s": round(model.num_timesteps / seconds, 1),
            "us_per_step": clock.per_step(model.num_timesteps, seconds)}


def warm_up(env_fns, settings: dict, policy: str = "fast", vec: str = "batched") -> None:
    """An untimed run of two rollouts and their updates before the first timed one. The first ``learn``
    of a process ran 1-9 % slower than the next ones (six fresh processes, connect_four; none after
    this), and the first timed run is a reference run: it lowered the first game's ratio's
    denominator in round one (by half that), all of a one-round run's."""
    measure(env_fns, 2 * settings["n_steps"] * len(env_fns), settings, policy=policy, vec=vec)


def training_throughput(steps: int, n_envs: int, games: list[str], repeats: int = 1,
                        policy: str = "fast", vec: str = "batched", reference: str = "wrapped") -> list[dict]:
    """One row per env; with ``repeats`` > 1 every measurement is repeated in interleaved rounds
    (so a slow spell of the machine hits all of them alike): steps/s are the median run, ratios the
    median of each round's own ratio, a game's run against the mean of the reference runs just
    before and after it (this machine's speed drifts by tens of percent over minutes)."""
    from tabletop_envs.core.registry import make_game

    settings = SETTINGS
    ref_name, ref_class = REFERENCES[reference]
    # A rollout's worth of recordings: the update multiplies the observation columns that are non-zero
    # somewhere in the rollout, and 256 recordings hold about half of a real rollout's (Terralore 331
    # of 615, Earth 445 of 1,636), which made the zero-cost env cheaper than any real rollout.
    count = settings["n_steps"] * n_envs
    ref_bank, ref_masks = record_observations(ref_class, count)
    jobs: dict[tuple[str, str], list[Callable[[], Any]]] = {
        (ref_name, "run"): [ref_class for _ in range(n_envs)],
        (ref_name, "floor"): [_ZeroCost(ref_bank, 7, ref_masks) for _ in range(n_envs)]}
    for label in games:
        env_name, kwargs = env_name_of(label), game_kwargs(label)
        game = make_game(env_name, **kwargs)
        snap = snapshot_opponent(env_name, kwargs, settings["policy_kwargs"]["net_arch"])
        jobs[(label, "run")] = [_WithOpponent(env_name, kwargs, snap) for _ in range(n_envs)]
        bank, masks = record_observations(jobs[(label, "run")][0], count)
        jobs[(label, "floor")] = [_ZeroCost(bank, game.num_actions, masks) for _ in range(n_envs)]
    # Each round brackets every game's run with reference runs (R G1 R G2 R ...), so a game's ratio
    # compares it with the reference measured just before and just after it: the machine's drift
    # over a round (tens of seconds) cancels out, to first order. The zero-cost floors follow.
    ref_key = (ref_name, "run")
    warm_up(jobs[ref_key], settings, policy, vec)
    runs: dict = {key: [] for key in jobs}
    ref_rounds: list[list[float]] = []
    for _ in range(repeats):
        order = [ref_key] + [k for label in games for k in ((label, "run"), ref_key)]
        order += [(label, "floor") for label in [ref_name, *games]]
        ref_speeds = []
        for key in order:
            runs[key].append(measure(jobs[key], steps, settings, policy=policy, vec=vec))
            if key == ref_key:
                ref_speeds.append(runs[key][-1]["steps_per_s"])
        ref_rounds.append(ref_speeds)
    # the median run's record, with the true median speed: an even count of runs (the reference's, 4 per
    # round with 3 games) took the upper middle one
    median = {key: sorted(r, key=lambda m: m["steps_per_s"])[len(r) // 2]
              | {"repeats": len(r), "steps_per_s": statistics.median(m["steps_per_s"] for m in r)}
              for key, r in runs.items()}
    per_round = {key: [m["steps_per_s"] for m in r] for key, r in runs.items() if key != ref_key}

    def each_round(key) -> list[float]:
        if key[1] == "run":  # the reference runs just before and after this one
            i = games.index(key[0])
            return [speed / ((refs[i] + refs[i + 1]) / 2) for speed, refs in zip(per_round[key], ref_rounds)]
        return [speed / statistics.mean(refs) for speed, refs in zip(per_round[key], ref_rounds)]

    def ratio(key) -> float:
        return round(statistics.median(each_round(key)), 2)

    for key, r in runs.items():  # each piece's median over the rounds (the median run's own may be off)
        median[key]["us_per_step"] = _median_pieces(r)
    ref, ref_floor = median[(ref_name, "run")], median[(ref_name, "floor")]
    ref_env_us = _env_us(ref, ref_floor)
    rows = [{"env": ref_name, "opponent": "random (inside env)", "n_envs": n_envs, **ref,
             "repeats": repeats, "runs_per_round": len(games) + 1, "steps_per_s_each_round": ref_rounds,
             "zero_cost_env_steps_per_s": ref_floor["steps_per_s"],
             "zero_cost_vs_reference": ratio((ref_name, "floor")),
             "zero_cost_us_per_step": ref_floor["us_per_step"],
             "env_us_per_step": ref_env_us}]
    for label in games:
        res, floor = median[(label, "run")], median[(label, "floor")]
        env_us = _env_us(res, floor)
        rows.append({"env": label, "opponent": "numpy snapshot (self-play)", "n_envs": n_envs, **res,
                     "steps_per_s_each_round": per_round[(label, "run")],
                     "vs_reference": ratio((label, "run")),
                     "vs_reference_each_round": [round(r, 2) for r in each_round((label, "run"))],
                     "zero_cost_env_steps_per_s": floor["steps_per_s"],
                     "zero_cost_vs_reference": ratio((label, "floor")),
                     "zero_cost_us_per_step": floor["us_per_step"],
                     "env_us_per_step": env_us,
                     "env_cost_vs_reference": round(ref_env_us / env_us, 2) if env_us > 0 and ref_env_us > 0 else None})
    name = "FastMaskablePolicy" if policy == "fast" else "MlpPolicy"
    for row in rows:
        row["settings"] = f"MaskablePPO {name} {settings['policy_kwargs']['net_arch']}, n_steps {settings['n_steps']}, " \
                          f"batch {settings['batch_size']}, epochs {settings['n_epochs']}, {VEC_NAMES[vec]}, torch " \
                          f"{THREADS['collect']} thread collecting, {THREADS['update']} updating"
    return rows


def policy_comparison(steps: int, n_envs: int, games: list[str], repeats: int = 3) -> list[dict]:
    """Each env (connect_four included) trained with sb3-contrib's MlpPolicy and with ours, the two
    interleaved in every round so a slow spell of the machine hits both alike; median steps/s, and
    the speed-up as the median of each round's own ratio."""
    settings = SETTINGS
    jobs: dict[str, list[Callable[[], Any]]] = {REFERENCE: [ConnectFourVsRandom for _ in range(n_envs)]}
    for label in games:
        env_name, kwargs = env_name_of(label), game_kwargs(label)
        snap = snapshot_opponent(env_name, kwargs, settings["policy_kwargs"]["net_arch"])
        jobs[label] = [_WithOpponent(env_name, kwargs, snap) for _ in range(n_envs)]
    for policy in POLICIES:  # each class's first learn: the first timed run is the reference's with ours
        warm_up(jobs[REFERENCE], settings, policy)
    runs: dict = {}
    for _ in range(repeats):
        for label, fns in jobs.items():
            for policy in POLICIES:
                runs.setdefault((label, policy), []).append(measure(fns, steps, settings, policy=policy)["steps_per_s"])
    rows = []
    for label in jobs:
        stock, fast = (statistics.median(runs[(label, p)]) for p in ("stock", "fast"))
        each = [f / s for f, s in zip(runs[(label, "fast")], runs[(label, "stock")])]
        rows.append({"env": label, "stock_steps_per_s": round(stock, 1), "fast_steps_per_s": round(fast, 1),
                     "speedup": round(statistics.median(each), 2),
                     "speedup_each_round": [round(r, 2) for r in each], "repeats": repeats})
    return rows


def _median_pieces(runs: list[dict]) -> dict | None:
    """The median over runs of each piece's µs per learner step (None when a run has no pieces)."""
    pieces = [r.get("us_per_step") for r in runs]
    if not pieces or None in pieces:
        return None
    present = cast("list[dict]", pieces)  # (None is not in it)
    return {name: round(statistics.median(p[name] for p in present), 1) for name in present[0]}


def _env_us(run: dict, floor: dict) -> float:
    """µs per learner step that the env adds over a zero-cost env of the same shape."""
    return round(1e6 / run["steps_per_s"] - 1e6 / floor["steps_per_s"], 1)


class _WithOpponent:
    def __init__(self, env_name, kwargs, opponent):
        self.env_name, self.kwargs, self.opponent = env_name, kwargs, opponent

    def __call__(self):
        from training.train import SelfPlayEnv  # what training.train collects with

        return SelfPlayEnv(self.env_name, opponent=self.opponent, **self.kwargs)


def act_latency(policy_id: str, env_name: str, kwargs: dict, calls: int = 2000) -> dict:
    """Median latency of ``load_policy`` and of one ``act``, timed where a user calls it: inside games
    (the model in one seat, turn about, random play in the others), each call on the observation and
    mask the game has just made, with the engine's moves in between. Timed back to back on recorded
    observations instead, the model's weights stayed in the caches and ``act`` measured 7-14 % faster
    (12.2 / 15.1 / 25.1 µs against 13.1 / 16.6 / 28.5 in games, Terralore / Travel Earth / Earth)."""
    from tabletop_envs import load_policy
    from tabletop_envs.core.arena import play_game
    from tabletop_envs.core.policy import RandomPolicy
    from tabletop_envs.core.registry import make_game

    t0 = time.perf_counter()
    policy = load_policy(policy_id)
    load_ms = (time.perf_counter() - t0) * 1000
    game = make_game(env_name, **kwargs)
    times = []

    class Timed(RandomPolicy):
        def act(self, obs, mask, rng):
            t = time.perf_counter()
            action = policy.act(obs, mask, rng)
            times.append(time.perf_counter() - t)
            if not mask[action]:
                raise RuntimeError(f"{policy_id} chose illegal action {action}: the latency of a wrong answer means nothing")
            return action

    seed = 0
    while len(times) < calls:
        seats = [RandomPolicy() for _ in range(game.num_players)]
        seats[seed % game.num_players] = Timed()
        play_game(game, seats, seed)
        seed += 1
    meta = getattr(policy, "metadata", None)
    return {"policy": policy_id, "sha256": meta.get("sha256") if isinstance(meta, dict) else None,
            "policy_class": type(policy).__name__, "load_ms": round(load_ms, 2),
            "act_median_us": round(statistics.median(times) * 1e6, 1),
            "act_p99_us": round(float(np.percentile(times, 99)) * 1e6, 1), "calls": len(times)}


def latency_targets(policies: list[str] | None, games: list[str]) -> list[tuple[str, str, dict]]:
    """``(policy, env name, game kwargs)`` for the latency benchmark: the given policies, or every shipped
    model of the benchmarked games; a model is timed on the game it was trained for (its sidecar's
    game config: ``earth_v0/ppo_4p`` at four players)."""
    from tabletop_envs import load_policy
    from tabletop_envs.core.onnx_policy import model_path_for_id, read_sidecar, shipped_model_ids
    from tabletop_envs.core.policy import registered_policies

    if policies is None:
        policies = [m for g in games for m in shipped_model_ids(env_name_of(g))]
    targets = []
    for pid in policies:
        path = model_path_for_id(pid) or (Path(pid) if Path(pid).exists() else None)
        if path is not None:
            meta = read_sidecar(path)
            targets.append((pid, meta["env_id"], meta.get("game_config", {})))
        else:  # a policy without a model file (heuristic, random): the benchmarked game's settings
            if pid not in registered_policies():
                load_policy(pid)  # neither a model nor a bot: its error names the known ids (random builds at once)
            env_name = pid.split("/")[0]
            targets.append((pid, env_name, next((GAMES[g] for g in GAMES if env_name_of(g) == env_name), {})))
    return targets


def _print_pieces(rows: list[dict]) -> None:
    """Where a learner step's time goes, for each run and its zero-cost env (medians of the rounds)."""
    names = ("env", "masks", "forward", "buffer", "other collection", "update", "rest", "total")
    lines = []
    for row in rows:
        for label, pieces in ((row["env"], row.get("us_per_step")), (f"{row['env']}, zero-cost env",
                                                                       row.get("zero_cost_us_per_step"))):
            if pieces:
                lines.append(f"| {label} | " + " | ".join(f"{pieces[n]:.0f}" for n in names) + " |")
    if lines:
        print("\nµs per learner step, by piece (" + "; ".join(f"{n}: {what}" for n, _, _, what in PIECES
                                                             if n != "collection") + ")")
        print("| run | " + " | ".join(names) + " |\n|---|" + "---:|" * len(names))
        print("\n".join(lines))


def _cost_cell(cost: float | None) -> str:
    # None: the run minus its zero-cost floor came out at or below 0 µs (noise on a short run), no ratio
    return "n/a" if cost is None else f"{cost:.2f}"


def main(argv=None) -> dict:
    from benchmarks import check_json_path, machine_facts, positive_int, write_json

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=positive_int, default=20000, help="learner steps per measurement")
    parser.add_argument("--n-envs", type=positive_int, default=4)
    parser.add_argument("--repeats", type=positive_int, default=1,
                        help="interleaved rounds; the median run and the median of the rounds' ratios are reported")
    parser.add_argument("--games", nargs="*", default=list(GAMES),
                        help=f"subset of {list(GAMES)}, or any registered env name (its default options)")
    parser.add_argument("--policies", nargs="*", default=None,
                        help="policy ids or paths for the latency benchmark (default: every shipped model of the games)")
    parser.add_argument("--policy", choices=POLICIES, default="fast",
                        help="policy class on both sides: ours (what training.train uses) or sb3-contrib's MlpPolicy")
    parser.add_argument("--vec", choices=VEC_ENVS, default="batched",
                        help="vec env on both sides: training.train's SelfPlayVecEnv or SB3's DummyVecEnv")
    parser.add_argument("--compare-policies", action="store_true",
                        help="instead: each env trained with the stock and with our policy class, interleaved")
    parser.add_argument("--reference", choices=list(REFERENCES), default="wrapped",
                        help="connect_four as pettingzoo.make builds it (default wrapper chain, as the reference "
                             "table measures it) or its raw_env (no wrappers, as our envs run)")
    parser.add_argument("--skip-training", action="store_true")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    refuse_unknown_games(parser, args.games)
    if args.compare_policies:  # it trains both learners on the wrapped reference in the default vec env
        ignored = [flag for flag, given in (("--reference raw", args.reference != "wrapped"),
                                            (f"--vec {args.vec}", args.vec != "batched"),
                                            (f"--policy {args.policy}", args.policy != "fast"),
                                            ("--skip-training", args.skip_training)) if given]
        if ignored:
            parser.error(f"--compare-policies compares sb3-contrib's policy with ours on the wrapped reference and "
                         f"the default vec env; it takes no {', '.join(ignored)}: run those without it")
    check_json_path(args.json)
    # before the training runs: a mistyped --policies id ended minutes of them in an error, their table unwritten
    latency = latency_targets(args.policies, args.games)

    result: dict[str, Any] = {"machine": machine_facts(), "training": [], "latency": []}
    if args.compare_policies:
        result["policy_comparison"] = policy_comparison(args.steps, args.n_envs, args.games, args.repeats)
        print(f"\nsb3-contrib MlpPolicy + MaskableRolloutBuffer vs FastMaskablePolicy + FastMaskableRolloutBuffer "
              f"({args.steps} learner steps, median of {args.repeats})")
        print("| env | stock steps/s | ours steps/s | speed-up |\n|---|---:|---:|---:|")
        for row in result["policy_comparison"]:
            print(f"| {row['env']} | {row['stock_steps_per_s']:,.0f} | {row['fast_steps_per_s']:,.0f} | "
                  f"{row['speedup']:.2f} |")
    elif not args.skip_training:
        result["training"] = training_throughput(args.steps, args.n_envs, args.games, args.repeats, args.policy,
                                                 args.vec, args.reference)
        print(f"\nMaskablePPO self-play throughput ({args.steps} learner steps, median of {args.repeats}, {args.n_envs} envs, "
              f"{result['training'][0]['settings']})")
        print(f"| env | opponent | steps/s | × {result['training'][0]['env']} (each round) | zero-cost env of this shape: steps/s (× ref) | "
              f"env µs/step | env cost × ref |\n|---|---|---:|---:|---:|---:|---:|")
        for row in result["training"]:
            rounds = ", ".join(f"{r:.2f}" for r in row.get("vs_reference_each_round", []))
            print(f"| {row['env']} | {row['opponent']} | {row['steps_per_s']:,.0f} | {row.get('vs_reference', 1.0):.2f}"
                  f"{f' ({rounds})' if rounds else ''} | "
                  f"{row['zero_cost_env_steps_per_s']:,.0f} ({row.get('zero_cost_vs_reference', 1.0):.2f}) | "
                  f"{row['env_us_per_step']:.0f} | {_cost_cell(row.get('env_cost_vs_reference', 1.0))} |")
        _print_pieces(result["training"])
    for pid, env_name, kwargs in latency:
        result["latency"].append(act_latency(pid, env_name, kwargs))
    if result["latency"]:
        print("\n| policy | backend | load_policy ms | act median µs | act p99 µs |\n|---|---|---:|---:|---:|")
        for row in result["latency"]:
            print(f"| {row['policy']} | {row['policy_class']} | {row['load_ms']:.1f} | {row['act_median_us']:.1f} | "
                  f"{row['act_p99_us']:.1f} |")
    if args.json:
        write_json(args.json, result)
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    import sys

    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
