"""Self-play MaskablePPO through the single-agent env, with an opponent pool.

    python -m training.train --config configs/terralore.yaml [--set ppo.total_timesteps=50000 --set distill.games=0] [--resume]

The learner plays one seat (drawn each episode) of a ``SingleAgentEnv``; the other seats are drawn
from an :class:`~training.pool.OpponentPool` (random, heuristic, frozen numpy snapshots of the
learner). The reward of a learner transition is everything it got since its previous decision, so
a loss caused by an opponent's final move reaches the learner (the flaw of the PettingZoo SB3
tutorial, see the field survey §1.8).

A run folder (``output.dir``) receives: ``run.json`` (config, reproduce command), ``tb/``
(TensorBoard: episode reward, win rates against each anchor in training and in scheduled
evaluation, pool size), ``checkpoints/step_<n>/`` (model, pool, history; ``--resume`` continues
from the newest; its ``model.zip`` and ``pool.pkl`` are pickles, and loading them runs any code they hold,
so resume only runs you made or trust), ``final_model.zip``, the exported policy ``<name>.onnx/.npz/.json``,
``history.json`` and ``learning_curve.png``; with ``distill.games``, ``distill.json``,
``distilled_model.zip`` and each round's model and report in ``distill/``. A fresh run moves an
earlier run's files there into ``before-<time>/`` (:func:`set_aside_earlier_run`); ``run.lock`` keeps a
second run from writing into the folder at the same time (:func:`~training.config.run_folder_held`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tabletop_envs.core.arena import check_draw_reward, is_draw
from tabletop_envs.core.errors import (
    STOP_SIGNALS,
    ConfigError,
    TabletopError,
    run_cli,
    stop_signals_as_interrupt,
)
from tabletop_envs.core.files import write_text_whole, written_beside
from tabletop_envs.core.single_agent import SingleAgentEnv

from .config import (
    EXPORT_SUFFIXES,
    TrainConfig,
    check_device_present,
    command_line,
    earlier_run_files,
    load_config,
    resume_seed,
    run_folder_held,
    set_aside_earlier_run,
    user_path,
)
from .evaluate import (
    anchor_evaluation,
    check_two_seats,
    evaluation_lines,
    resolve_recipe_policy,
    save_figure_whole,
    split_env_kwargs,
)
from .pool import OpponentPool

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import gymnasium


class SelfPlayEnv(SingleAgentEnv):
    """SingleAgentEnv that reports, at the end of an episode, which kinds of opponent it faced, and adds
    ``draw_reward`` (``selfplay.draw_reward``) to the learner's reward when the game ends drawn.

    A ``max_turns`` cut counts as drawn there, so with a draw reward it ends the episode as terminated, not
    truncated: the draw reward is its outcome, and PPO must not also bootstrap a value past it (truncated,
    the last step's target was ``draw_reward + gamma * V``). Without one, a cut stays a time limit."""

    info_action_mask = False  # MaskablePPO reads masks through action_masks()
    draw_reward = 0.0

    def outcome(self):
        obs, reward, terminated, truncated, info = super().outcome()
        if terminated or truncated:
            info["opponent_tags"] = [None if p is None else getattr(p, "pool_tag", getattr(p, "name", "other"))
                                     for p in self.seat_policies]  # per seat: None at the learner's
            if self.draw_reward and is_draw(info["standings"]):
                reward += self.draw_reward
                terminated, truncated = True, False
        return obs, reward, terminated, truncated, info


class EnvFactory:
    """Picklable env constructor for SubprocVecEnv workers."""

    def __init__(self, env_name: str, env_kwargs: dict, opponent, draw_reward: float = 0.0):
        self.env_name, self.env_kwargs, self.opponent, self.draw_reward = env_name, env_kwargs, opponent, draw_reward

    def __call__(self) -> SelfPlayEnv:
        env = SelfPlayEnv(self.env_name, opponent=self.opponent, **self.env_kwargs)
        env.draw_reward = self.draw_reward
        return env


class WorkerEnvFactory(EnvFactory):
    """``EnvFactory`` as SubprocVecEnv's workers call it: the worker leaves Ctrl-C, SIGTERM and SIGHUP to the
    trainer, which ends it (``close_vec_env``). A terminal's Ctrl-C, and a batch scheduler's SIGTERM,
    reach the whole process group: the workers died with it, and the trainer, stopping as the signal
    asks (checkpoint, evaluation, export), ended instead on a BrokenPipeError from closing them. A
    worker whose trainer dies regardless ends at its pipe's EOF."""

    def __call__(self) -> SelfPlayEnv:
        for sig in STOP_SIGNALS:
            signal.signal(sig, lambda signum, frame: None)  # not SIG_IGN: a process it starts keeps the default
        return super().__call__()


def learner_score(returns: list[float], seat: int, against: list[int]) -> float:
    """The learner's mean score against the seats ``against``: 1 for a higher return, 0.5 for the same, 0
    for a lower one, as the evaluation scores a pair. At more than two seats, "won the table" would judge
    the learner by every seat at once: one exactly as strong as its snapshots would score 1/n, not 0.5."""
    mine = returns[seat]
    return float(np.mean([1.0 if mine > returns[s] else 0.5 if mine == returns[s] else 0.0 for s in against]))


def episode_scores(info: dict) -> dict[str, float]:
    """The learner's score against each kind of opponent it met in a finished episode (``learner_score``
    over the seats of that kind), from the info ``SelfPlayEnv`` gives at the end: on the standings (the
    rules' result), as the evaluation scores, not on returns a reward option shapes."""
    tags = info.get("opponent_tags", [])
    result = info.get("standings", info["returns"])
    return {tag: learner_score(result, info["learner_seat"], [s for s, t in enumerate(tags) if t == tag])
            for tag in set(tags) - {None}}


def make_vec_env(cfg: TrainConfig, pool: OpponentPool):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

    from .vec_env import SelfPlayVecEnv

    factory = WorkerEnvFactory if cfg.vec.kind == "subproc" else EnvFactory
    venv: VecEnv
    fns: list[Callable[[], gymnasium.Env]] = [factory(cfg.env, cfg.env_kwargs, pool, cfg.selfplay.draw_reward)
                                                for _ in range(cfg.vec.n_envs)]
    if cfg.vec.kind == "subproc":
        # Windows has no forkserver (get_context raises); the env factories and the pool pickle, so spawn works
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        try:
            venv = SubprocVecEnv(fns, start_method=method)
        except (EOFError, ConnectionError):  # a worker's pipe, as in train()
            raise worker_died("while starting", "Nothing was trained: run the command again") from None
    elif cfg.vec.kind == "dummy":
        venv = DummyVecEnv(fns)
    else:
        venv = SelfPlayVecEnv(fns)
    return VecMonitor(venv)


def close_vec_env(venv, cut_short: bool) -> None:
    """Ends ``venv``'s workers: a SubprocVecEnv's are killed after an interrupt or an error, not asked
    to close. The interrupt may have cut the trainer off in the middle of reading a worker's reply, and
    a close that reads the rest of that pipe could wait forever; after a worker died, asking the others
    failed on its pipe and left them running, and the trainer hung at exit, where multiprocessing ends
    its daemons with the SIGTERM they leave to the trainer. The workers hold nothing a run keeps.

    A worker that died after the last step (during the last PPO update) is no loss, the run is whole: asking it
    to close ended the run there on a BrokenPipeError, with no final model or export, and hung it at exit."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    inner = venv.unwrapped
    if not cut_short and isinstance(inner, SubprocVecEnv) and not inner.closed and a_worker_died(venv, timeout=0):
        print("a vec.kind=subproc worker process died after the last step; the run is whole and goes on", flush=True)
        cut_short = True
    if not (cut_short and isinstance(inner, SubprocVecEnv)) or inner.closed:
        venv.close()
        return
    for process in inner.processes:
        process.kill()  # not terminate(): the workers leave SIGTERM to the trainer
    for process in inner.processes:
        process.join()
    for remote in inner.remotes:
        remote.close()
    inner.closed = True


def worker_died(when: str, kept: str) -> TabletopError:
    return TabletopError(
        f"a vec.kind=subproc worker process died {when} (killed: often the system's out-of-memory killer; or it "
        f"crashed, its error above). {kept}, with fewer vec.n_envs, or vec.kind=batched (no worker processes), "
        "if memory ran out")


def a_worker_died(venv, timeout: float = 2) -> bool:
    """Whether one of a SubprocVecEnv's worker processes has ended (its pipe's EOF can come a moment
    before the process is reaped, hence the short wait; one already reaped no longer shows on its sentinel)."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    inner = venv.unwrapped
    if not isinstance(inner, SubprocVecEnv):
        return False
    if not all(p.is_alive() for p in inner.processes):
        return True
    return bool(multiprocessing.connection.wait([p.sentinel for p in inner.processes], timeout=timeout))


def quiet_logger(verbose: int = 0):
    """A logger for a run without TensorBoard: SB3's default makes an empty ``/tmp/SB3-<time>`` folder
    for every ``learn`` call that has no log folder, which piles up over tests and evaluations."""
    from stable_baselines3.common.logger import HumanOutputFormat, Logger

    return Logger(folder=None, output_formats=[HumanOutputFormat(sys.stdout)] if verbose else [])


def build_model(cfg: TrainConfig, venv, run_dir: Path):
    import torch
    from sb3_contrib import MaskablePPO

    from .masked_policy import ALGORITHM_KWARGS

    p = cfg.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    model = MaskablePPO(
        env=venv, **ALGORITHM_KWARGS, learning_rate=p.learning_rate, n_steps=p.n_steps, batch_size=p.batch_size,
        n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
        ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, seed=cfg.seed, device=p.device,
        policy_kwargs={"net_arch": {"pi": list(p.net_arch), "vf": list(p.net_arch)}, "activation_fn": activation},
        tensorboard_log=tensorboard_dir(cfg, run_dir), verbose=cfg.output.verbose,
    )
    if not cfg.output.tensorboard:
        model.set_logger(quiet_logger(cfg.output.verbose))
    return model


def tensorboard_dir(cfg: TrainConfig, run_dir: Path) -> str | None:
    return str(run_dir / "tb") if cfg.output.tensorboard else None


#: the PPO settings a resumed run takes from the recipe (SB3's load would keep the checkpoint's)
RESUMABLE_PPO_KEYS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range",
                      "ent_coef", "vf_coef", "max_grad_norm")


def load_for_resume(path: Path, cfg: TrainConfig, venv):
    """The checkpoint's model with the recipe's PPO and output settings, as run.json and the sidecar will
    record them."""
    import torch
    from sb3_contrib import MaskablePPO

    # The output keys too: the checkpoint's own would log where and how the earlier part did, even
    # when the run folder was copied elsewhere or the recipe turned TensorBoard on or off.
    try:
        model = MaskablePPO.load(path, env=venv, device=cfg.ppo.device,
                                 tensorboard_log=tensorboard_dir(cfg, cfg.run_dir()), verbose=cfg.output.verbose,
                                 **{key: getattr(cfg.ppo, key) for key in RESUMABLE_PPO_KEYS})
    except ValueError as exc:  # SB3's "Observation spaces do not match": a run folder without its run.json
        if "spaces do not match" not in str(exc):
            raise
        raise ConfigError(f"--resume: the checkpoint {path} was trained on another game or layout than this "
                          f"recipe's {cfg.env} ({exc}); resume with that run's recipe, or give this one another "
                          "output.dir") from None
    # run.json says the same where it is there (check_resumable); without it, the model is all that does,
    # and a recipe of another network was resumed and recorded as that network in run.json and the sidecar
    kwargs = model.policy_kwargs
    net = kwargs.get("net_arch", {})
    trained_arch = list(net.get("pi", [])) if isinstance(net, dict) else list(net)
    acts: dict = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    trained_act = acts.get(kwargs.get("activation_fn"), "another")
    if (trained_arch, trained_act) != (list(cfg.ppo.net_arch), cfg.ppo.activation):
        raise ConfigError(f"--resume: the checkpoint {path} holds a network of ppo.net_arch={trained_arch}, "
                          f"ppo.activation={trained_act}, and this recipe's is {list(cfg.ppo.net_arch)}, "
                          f"{cfg.ppo.activation}: resume with --set ppo.net_arch={trained_arch} --set "
                          f"ppo.activation={trained_act}, or give this recipe another output.dir")
    if not cfg.output.tensorboard:
        model.set_logger(quiet_logger(cfg.output.verbose))
    # load() seeds torch and the envs with the run's seed again, so the resumed part would replay the
    # first part's deals, seats and opponent draws; a seed of (seed, step) keeps it reproducible and new.
    model.set_random_seed(resume_seed(cfg.seed, model.num_timesteps))
    return model


#: the keys of a checkpoint's state.json that a resume reads (SelfPlayCallback.state writes more)
CHECKPOINT_STATE_KEYS = ("history", "next_snapshot", "next_eval", "next_checkpoint")


def read_checkpoint(checkpoint: Path, cfg: TrainConfig, venv, pool: OpponentPool):
    """(model, callback state) of a checkpoint folder, its opponent pool loaded into ``pool``. A file
    missing or damaged (edited, torn by a copy) is a ConfigError naming it and the way on: SB3's own
    errors named no fix, or a path it had made up (``model.zip.zip``)."""
    def damaged(name: str, why: str) -> ConfigError:
        return ConfigError(f"--resume: {checkpoint / name} {why}, so the checkpoint {checkpoint.name} cannot be "
                           f"resumed: move the folder {checkpoint} out of {checkpoint.parent} to resume from the "
                           "checkpoint before it, or start the run afresh without --resume")

    for name in ("model.zip", "pool.pkl", "state.json"):
        if not (checkpoint / name).is_file():
            raise damaged(name, "is missing")
    try:
        state = json.loads((checkpoint / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise damaged("state.json", f"cannot be read ({exc})") from None
    if not isinstance(state, dict) or any(key not in state for key in CHECKPOINT_STATE_KEYS):
        raise damaged("state.json", f"is no checkpoint state (a JSON object with {', '.join(CHECKPOINT_STATE_KEYS)})")
    try:
        model = load_for_resume(checkpoint / "model.zip", cfg, venv)
    except ConfigError:
        raise
    except Exception as exc:  # SB3, zipfile, torch and pickle each fail their own way on a torn file
        raise damaged("model.zip", f"cannot be loaded ({type(exc).__name__}: {exc})") from None
    try:
        with open(checkpoint / "pool.pkl", "rb") as fh:
            pool.load_state_dict(pickle.load(fh))
    except Exception as exc:
        raise damaged("pool.pkl", f"cannot be loaded ({type(exc).__name__}: {exc})") from None
    return model, state


def distill_rounds_done(run_dir: Path) -> int:
    """The rounds of the distillation a run finished (its distill.json; 0 if none)."""
    try:
        return int(json.loads((run_dir / "distill.json").read_text(encoding="utf-8")).get("round", 1))  # (before rounds: one)
    except (OSError, ValueError, AttributeError):
        return 0


def check_resumable(run_dir: Path, cfg: TrainConfig, game_config: dict) -> None:
    """--resume continues a run only with a recipe for the same game, rules and network."""
    run_json = run_dir / "run.json"
    if not run_json.exists():
        return
    try:
        old = json.loads(run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # (the JSON error alone named no file)
        raise ConfigError(f"--resume: {run_json} cannot be read ({exc}); it records the run's recipe: restore it "
                          "from a copy, or give this recipe another output.dir") from None
    config = old.get("config", {}) if isinstance(old, dict) else None
    old_ppo = config.get("ppo", {}) if isinstance(config, dict) else None
    if not isinstance(old_ppo, dict):
        raise ConfigError(f"--resume: {run_json} is no run record (a JSON object with env, game_config and config, "
                          "as training.train writes it): restore it from a copy, or give this recipe another "
                          "output.dir")
    problems = []
    trained = old.get("game_config", game_config)
    if old.get("env") == cfg.env and isinstance(trained, dict):
        from tabletop_envs.core.registry import played_config

        # a run begun before an option existed trained under the game as it played then (as its model's
        # sidecar is read): refusing the absent key refused a resume under those very rules
        trained = played_config(cfg.env, trained)
    if old.get("env") != cfg.env or trained != json.loads(json.dumps(game_config)):
        problems.append(f"it trains {old.get('env')} with {trained}, this recipe {cfg.env} "
                        f"with {game_config}")
    for key in ("net_arch", "activation"):
        if key in old_ppo and old_ppo[key] != getattr(cfg.ppo, key):
            problems.append(f"its ppo.{key} is {old_ppo[key]}, this recipe's {getattr(cfg.ppo, key)}")
    if problems:
        raise ConfigError(f"--resume would continue the run in {run_dir}, but {'; '.join(problems)}. Resume "
                          "with that run's recipe, or give this one another output.dir")


def recipe_models(cfg: TrainConfig) -> list[tuple[str, str]]:
    """(recipe key, spec) of every policy the recipe names: anchors, teachers, fixed opponents."""
    specs = [("eval.opponents", spec) for spec in cfg.eval.opponents]
    if cfg.eval.select_games:
        specs.append(("eval.select_anchor", cfg.eval.select_anchor))
    if cfg.pretrain.teacher:
        specs.append(("pretrain.teacher", cfg.pretrain.teacher))
    specs += [(f"pretrain.decisions.{d}", spec) for d, spec in cfg.pretrain.decisions.items()]
    specs += [("selfplay.opponents", spec) for spec in cfg.selfplay.opponents]
    specs += [(f"phases[{i}] selfplay.opponents", spec) for i, phase in enumerate(cfg.phases)
              for spec in phase["set"].get("selfplay.opponents", {})]
    if cfg.distill.games:
        specs += [("distill.opponents", spec) for spec in cfg.distill.opponents]
    return specs


def check_models_stay(cfg: TrainConfig, run_dir: Path) -> None:
    """A fresh run moves the earlier run in its folder aside before it loads its teacher and anchors
    again: a recipe naming that run's exported model (a teacher, an opponent) failed there, with the
    earlier run already moved, on "no model at" the path the user had just seen."""
    moving = {p.resolve() for p in earlier_run_files(run_dir, cfg.output.name)}
    if not moving:
        return
    for key, spec in recipe_models(cfg):
        path = user_path(spec)
        if path.suffix not in EXPORT_SUFFIXES or not path.is_file():
            continue
        used = {path.with_suffix(suffix).resolve() for suffix in EXPORT_SUFFIXES}
        if used & moving:
            raise ConfigError(
                f"{key} names {spec}, a model of the earlier run in {run_dir}, which this fresh run moves aside "
                f"into {run_dir}/before-<time>/ before it trains: copy the model out of the folder first (e.g. "
                f"{path.with_suffix('.*')} into models/), give this run another output.dir, or continue "
                "that run with --resume")


def update_thread_count(configured: int) -> int:
    """``ppo.update_threads``, capped at the machine's cores."""
    return max(1, min(configured, os.cpu_count() or 1))


def busy_core_hint(update_threads: int, cores: int | None = None, load: float | None = None) -> str | None:
    """A warning when the PPO update would use every core while other work already keeps one busy.

    torch's OpenMP threads spin between parallel regions: with ``update_threads`` equal to the cores
    and another process on one of them, the update fights that process and training runs several
    times slower (measured on 2 cores: 1,314 steps/s against 3,865 with one update thread). The
    thread count stays as configured (switching it mid-run would make seeded runs differ with the
    machine's load); the user is told how to change it.
    """
    cores = cores if cores is not None else (os.cpu_count() or 1)
    if load is None:
        from .export import load_average

        averages = load_average()
        if averages is None:
            return None
        load = averages[0]
    threads = max(1, min(update_threads, cores))
    if threads < 2 or threads < cores or load < 0.75:
        return None
    return (f"note: the load average is {load:.1f} on {cores} cores before training starts, and the PPO update "
            f"uses {threads} threads (ppo.update_threads): next to another busy process that can make training "
            "several times slower; on a shared machine pass --set ppo.update_threads=1")


def evaluate_model(cfg: TrainConfig, model, games: int, seed: int, anchors) -> dict:
    """``model``'s rates against ``anchors``, played as the recipe ships it (argmax or sampling)."""
    from .export import numpy_policy

    game_kwargs, max_turns = split_env_kwargs(cfg.env_kwargs, cfg.env)
    return anchor_evaluation(cfg.env, numpy_policy(model, deterministic=cfg.eval.deterministic), games, seed=seed,
                             anchors=anchors, game_kwargs=game_kwargs, max_turns=max_turns,
                             act="argmax" if cfg.eval.deterministic else "sample")


def checkpoint_steps(folder: Path) -> int:
    """The learner steps a checkpoint folder holds (``step_<num_timesteps>``)."""
    return int(folder.name.split("_")[1])


def latest_checkpoint(run_dir: Path) -> Path | None:
    # state.json is written last: a folder without it is a checkpoint whose writing was cut off. By the step
    # count, not the name: step_<n> is padded to 9 digits, and step_1000000000 sorts before step_999999999
    found = sorted((p.parent for p in (run_dir / "checkpoints").glob("step_*/state.json")
                    if p.parent.name[len("step_"):].isdigit()), key=checkpoint_steps)
    return found[-1] if found else None


def load_candidate(path: Path, device):
    """A checkpoint ``eval.select_games`` compares, refused naming it and the way on where it cannot be loaded."""
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, device=device)
    except Exception as exc:  # SB3, zipfile, torch and pickle each fail their own way on a torn or missing file
        # (after the training: SB3's own traceback named no fix, and the run ended without its export)
        raise ConfigError(
            f"eval.select_games: the checkpoint {path} cannot be loaded ({type(exc).__name__}: {exc}), so it "
            f"cannot be compared: move the folder {path.parent} out of {path.parent.parent} and run the command "
            "again with --resume, which selects among the other checkpoints (the trained model is saved)") from None


def select_checkpoint(cfg: TrainConfig, run_dir: Path, final_model) -> tuple:
    """The best of the run's checkpoints (one per ``eval.select_every`` steps) and the final model,
    by score against ``eval.select_anchor`` over ``eval.select_games`` games; ties go to the later.

    A long run's last model is not always its best (Earth's win rate against the heuristic rose and
    fell by 20 points within one run), so the recipe can ship the best one it saw. The selection
    games use their own seed (seed + 2000): the final evaluation (seed + 1000) plays other deals, so
    its numbers are not inflated by having picked the luckiest candidate.
    """
    ev = cfg.eval
    last = int(final_model.num_timesteps)
    # whole checkpoints only, as --resume takes them (latest_checkpoint): a model.zip without its state.json
    # may be torn, its writing cut off
    saved = sorted((checkpoint_steps(p.parent), p.with_name("model.zip"))
                   for p in (run_dir / "checkpoints").glob("step_*/state.json"))
    candidates: dict[int, Path | None] = {}
    for mark in range(ev.select_every, last, ev.select_every):
        reached = next((item for item in saved if item[0] >= mark), None)
        if reached is not None and reached[0] < last:
            candidates[reached[0]] = reached[1]
    candidates[last] = None  # the final model, in memory
    results, best = [], (float("-inf"), last, final_model)  # (score, steps, model): the first candidate beats it
    for steps, path in sorted(candidates.items()):
        if path is None:  # the final model, in memory
            model = final_model
        else:
            model = load_candidate(path, cfg.ppo.device)
        rates = evaluate_model(cfg, model, ev.select_games, cfg.seed + 2000, [ev.select_anchor])
        score = next(v for k, v in rates.items() if k.startswith("vs_"))
        results.append({"steps": steps, "score": score["score"], "win": score["win"]["rate"],
                        "win_ci95": score["win"]["ci95"]})
        # the games played: select_games rounded up to whole seat rotations (8 at a 4-player table for 4 asked),
        # which the scores and intervals are over; the games asked for said 4 where 8 were played
        print(f"[select] step {steps}: score {score['score']:.3f} vs {ev.select_anchor} "
              f"({score['games']} games)", flush=True)
        if score["score"] >= best[0]:
            best = (score["score"], steps, model)
    print(f"[select] shipping the model of step {best[1]}", flush=True)
    return best[2], {"anchor": ev.select_anchor, "games": score["games"], "seed": cfg.seed + 2000,
                     "candidates": results, "selected_steps": best[1]}


def learning_curve_png(history: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    keys = sorted({k for h in history for k in h if k.startswith("vs_") and not k.endswith(("_ci95", "_score"))})
    for key in keys:
        pts = sorted((h for h in history if key in h), key=lambda h: h["steps"])  # a selected model's final
        # evaluation sits at its own (earlier) step
        steps = [h["steps"] for h in pts]
        ax.plot(steps, [h[key] for h in pts], marker="o", label=key.replace("_", " "))
        ax.fill_between(steps, [h[f"{key}_ci95"][0] for h in pts], [h[f"{key}_ci95"][1] for h in pts], alpha=0.2)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (seat-rotated, 95% CI)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    if keys:
        ax.legend()
    fig.tight_layout()
    save_figure_whole(fig, path)
    plt.close(fig)


def save_model_whole(model, path: Path) -> None:
    """Save ``model`` beside ``path`` first: a --resume that finished its run again saved over the earlier
    final model in place, so a full disk or a kill part-way left neither that model nor the new one."""
    with interrupts_deferred(), written_beside(path) as (part,):
        model.save(part)


def train(cfg: TrainConfig, resume: bool = False, command: str | None = None) -> dict:
    """Train, evaluate, export. Returns a summary dict (also written to ``<run>/summary.json``)."""
    with contextlib.ExitStack() as held:
        return _train(cfg, resume, command, held)


def _train(cfg: TrainConfig, resume: bool, command: str | None, held: contextlib.ExitStack) -> dict:
    hint = busy_core_hint(cfg.ppo.update_threads)  # before this run's own work shows in the load
    if hint:
        print(hint, flush=True)
    import torch

    from .callbacks import SelfPlayCallback, UpdateThreads
    from .export import cpu_info, export_model, load_average

    torch.set_num_threads(cfg.ppo.torch_threads)
    run_dir = cfg.run_dir()
    game_kwargs, max_turns = split_env_kwargs(cfg.env_kwargs, cfg.env)
    from tabletop_envs.core.registry import make_game

    # Everything that can be refused is checked before the run folder changes: a typo in a command
    # must not move an earlier run's checkpoints aside or rewrite its run.json.
    check_device_present(cfg.ppo.device)
    game = make_game(cfg.env, **game_kwargs)
    game_config = game.config()
    check_draw_reward(cfg.selfplay.draw_reward, game.num_players, cfg.env)  # (no phase changes it)
    check_two_seats(cfg.env, game.num_players)  # the anchor evaluations refused it only at step 0
    for anchor in dict.fromkeys(cfg.eval.opponents):
        resolve_recipe_policy("eval.opponents", anchor, cfg.env, game_config)
    if cfg.eval.select_games:
        resolve_recipe_policy("eval.select_anchor", cfg.eval.select_anchor, cfg.env, game_config)
    if cfg.pretrain.teacher:
        resolve_recipe_policy("pretrain.teacher", cfg.pretrain.teacher, cfg.env, game_config)
    from .pretrain import decision_teachers

    decision_teachers(cfg, game_config)
    # the fixed opponents of every phase load now: one that cannot play ends the run here, not hours in
    sp = cfg.selfplay
    pool = OpponentPool(cfg.env, sp.random_weight, sp.heuristic_weight, sp.window, sp.play_latest_ratio,
                        game_config=game_config, opponents=sp.opponents)
    pool.load_opponents([spec for phase in cfg.phases for spec in phase["set"].get("selfplay.opponents", {})])
    if cfg.distill.games:
        for opponent in cfg.distill.opponents:
            resolve_recipe_policy("distill.opponents", opponent, cfg.env, game_config)
        if game.num_players != 2:
            raise ConfigError(f"distill: the search plays out two-player games and {cfg.env} has other seat counts "
                              f"here (env_kwargs {cfg.env_kwargs}); set distill.games=0")
    # before the folder is read: a checkpoint another run is writing there is not yet one to resume
    held.enter_context(run_folder_held(run_dir))
    checkpoint = latest_checkpoint(run_dir) if resume else None
    if checkpoint is None:
        check_models_stay(cfg, run_dir)
    if checkpoint is not None:
        check_resumable(run_dir, cfg, game_config)
        reached = checkpoint_steps(checkpoint)
        distilled = distill_rounds_done(run_dir) >= cfg.distill.rounds
        # a run that reached its steps but was stopped before its end (in the distillation, say) resumes into
        # the rest, and a finished one into a distillation it has not had
        rest_left = not (run_dir / "summary.json").exists() or (cfg.distill.games and not distilled)
        if reached >= cfg.ppo.total_timesteps and not rest_left:
            done = " and its distillation (distill.json)" if distilled else ""
            raise ConfigError(f"--resume: the run in {run_dir} is already at {reached} steps ({checkpoint.name}){done} "
                              f"and ppo.total_timesteps is {cfg.ppo.total_timesteps}, so there is nothing left to "
                              f"train; to continue it, raise the total, e.g. --set ppo.total_timesteps="
                              f"{max(2 * reached, reached + 1)}")
    command = command or f"python -m training.train  # config {cfg.to_dict()}"
    run_info = {"env": cfg.env, "game_config": game_config, "env_kwargs": cfg.env_kwargs, "config": cfg.to_dict(),
                "training": {"seed": cfg.seed, "command": command}}

    venv = make_vec_env(cfg, pool)
    start = time.perf_counter()
    state = None
    if checkpoint is not None:
        model, state = read_checkpoint(checkpoint, cfg, venv, pool)
        print(f"resuming from {checkpoint} at {model.num_timesteps} steps", flush=True)
    else:
        if resume:
            print(f"no checkpoint under {run_dir}/checkpoints; starting afresh", flush=True)
        model = build_model(cfg, venv, run_dir)
        set_aside_earlier_run(run_dir, cfg.output.name)
    run_dir.mkdir(parents=True, exist_ok=True)
    # the reports --resume and training.export read back go in whole or not at all (write_text_whole)
    write_text_whole(run_dir / "run.json", json.dumps(run_info, indent=2) + "\n")
    pretrain_report = None
    if checkpoint is None and cfg.pretrain.teacher:
        from .pretrain import warm_start

        pretrain_report = warm_start(model, cfg)
        write_text_whole(run_dir / "pretrain.json", json.dumps(pretrain_report, indent=2) + "\n")
    elif checkpoint is not None and (run_dir / "pretrain.json").exists():
        pretrain_report = json.loads((run_dir / "pretrain.json").read_text(encoding="utf-8"))
    start_steps = int(model.num_timesteps)
    callback = SelfPlayCallback(cfg, pool, run_dir, state, command=command, started=start, first_step=start_steps)
    ppo_start = time.perf_counter()
    remaining = cfg.ppo.total_timesteps - model.num_timesteps
    interrupted = learnt = False
    try:
        if remaining > 0:
            model.learn(remaining, callback=[callback, UpdateThreads(cfg.ppo.torch_threads, cfg.ppo.update_threads)],
                        progress_bar=cfg.output.progress_bar,
                        reset_num_timesteps=checkpoint is None, tb_log_name="run")
        learnt = True
    except (EOFError, ConnectionError):  # a worker's pipe: read to its end (EOF) or written to no one
        if not a_worker_died(venv):
            raise
        close_vec_env(venv, cut_short=True)
        # the model is whole (a rollout cut short is one it was not yet trained on): keep it, as an interrupt
        # does; a worker that died before the first step (the callback not yet started) left nothing new
        kept = (f"The run is saved in {callback.checkpoint()}" if model.num_timesteps > start_steps
                else "Nothing was trained since the last checkpoint, if any")
        raise worker_died(f"at {model.num_timesteps} steps", f"{kept}: --resume continues the run") from None
    except KeyboardInterrupt:
        # Stopping early is a normal way to end a run: keep what was learnt, still evaluate and export.
        interrupted = True
        torch.set_num_threads(cfg.ppo.torch_threads)  # an update may have been cut short
        print(f"\ninterrupted at {model.num_timesteps} steps: saving, evaluating and exporting "
              "(interrupt again to abort; --resume continues the run)", flush=True)
    finally:
        close_vec_env(venv, cut_short=not learnt)
    end = time.perf_counter()
    train_seconds = end - start
    # PPO's own pace: the steps this call trained over its time in learn(), less evaluations and checkpoints
    steps_per_second = ((model.num_timesteps - start_steps) / max(end - ppo_start - callback.overhead_seconds, 1e-9)
                        if model.num_timesteps > start_steps else None)  # None: this call trained no steps
    save_model_whole(model, run_dir / "final_model.zip")
    if remaining > 0:  # (resumed into the distillation only: the checkpoint is this model already)
        callback.checkpoint()

    last_steps = int(model.num_timesteps)
    if cfg.eval.select_games:
        model, summary_selection = select_checkpoint(cfg, run_dir, model)
    distill_report = None
    if cfg.distill.games and interrupted:
        print("the distillation is skipped as well (--resume continues the run into it)", flush=True)
    elif cfg.distill.games:
        from .distill import distill

        distill_start = time.perf_counter()
        try:
            distill_report = distill(model, cfg, run_dir=run_dir)
        except KeyboardInterrupt:
            # nothing to export yet: the model in memory is half-way between two rounds
            # (stopped in its first round, "each finished round (in <folder>) is kept" named a folder not there)
            finished = sorted(p.stem for p in (run_dir / "distill").glob("round*.json"))
            kept = (f"and the finished rounds in {run_dir / 'distill'} ({', '.join(finished)}) are kept" if finished
                    else "are kept (no round had finished)")
            print(f"\ninterrupted in the distillation: {model.num_timesteps} PPO steps {kept}; --resume continues "
                  "from there", flush=True)
            raise
        train_seconds += time.perf_counter() - distill_start  # training too: the sidecar's wall time counts it
        write_text_whole(run_dir / "distill.json", json.dumps(distill_report, indent=2) + "\n")
        save_model_whole(model, run_dir / "distilled_model.zip")
    from .distill import distill_rounds, round_seconds

    parts = callback.parts(last_steps, train_seconds)
    # the model's time is every part's, and that of the distillation rounds an earlier part finished after its
    # last checkpoint (read back here); unknown where a part's checkpoint predates parts
    known = [p["seconds"] for p in parts]
    known += [round_seconds(r) for r in distill_rounds(distill_report) if r.get("read_back")]
    all_seconds = None if None in known else round(sum(known), 1)
    summary = {"env": cfg.env, "run_dir": str(run_dir), "steps": last_steps,
               "train_seconds": round(train_seconds, 1), "train_seconds_all_parts": all_seconds, "parts": parts,
               "steps_per_second": None if steps_per_second is None else round(steps_per_second, 1),
               "snapshots": [s.name for s in pool.snapshots], "snapshots_gated_out": callback.snapshots_skipped,
               "interrupted": interrupted, "phases_applied": callback.phases_applied}
    if pretrain_report:
        summary["pretrain"] = {k: v for k, v in pretrain_report.items() if k != "epochs"}
    if cfg.eval.select_games:
        summary["selection"] = summary_selection
    if distill_report:
        summary["distill"] = {k: v for k, v in distill_report.items() if k != "epochs"}
    evaluation = {}
    if cfg.eval.final_games:
        # the selected model, if one was; labelled apart: the last scheduled evaluation is at the same step
        evaluation = callback.evaluate(cfg.eval.final_games, model, label="final eval")
        summary["evaluation"] = evaluation
    write_text_whole(run_dir / "history.json", json.dumps(callback.history, indent=2) + "\n")
    if cfg.output.export:
        machine = {"cpus": os.cpu_count(), "cpu": cpu_info()["model name"]}
        averages = load_average()
        if averages is not None:  # none on Windows: the model card says '?'
            machine["load_average_at_end"] = averages
        training = {"seed": cfg.seed, "command": command, "wall_time_s": all_seconds, "parts": parts,
                    "stopped_early": interrupted, "config": cfg.to_dict(),
                    "pretrain": summary.get("pretrain"), "selection": summary.get("selection"),
                    "distill": summary.get("distill"), "machine": machine}
        path = export_model(model, run_dir / cfg.output.name, cfg.env, game_config, training, evaluation,
                            name=f"{cfg.env}/{cfg.output.name}", deterministic=cfg.eval.deterministic)
        summary["exported"] = str(path)
    if cfg.output.learning_curve and callback.history:
        learning_curve_png(callback.history, run_dir / "learning_curve.png", f"{cfg.env}, seed {cfg.seed}")
        summary["learning_curve"] = str(run_dir / "learning_curve.png")
    # a torn summary.json (a full disk) made the run look finished to --resume, and training.export then
    # failed on a JSON error that named no file
    write_text_whole(run_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
    return summary


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--config", help="recipe YAML (configs/<game>.yaml); omitted keys keep their defaults")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one key, e.g. --set ppo.n_steps=256 (repeatable)")
    parser.add_argument("--resume", action="store_true",
                        help="continue from the newest checkpoint of the run dir (its model.zip and pool.pkl are "
                             "pickles: loading them runs any code they hold, so resume only runs you made or trust)")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    argv_used = sys.argv[1:] if argv is None else argv
    command = command_line("training.train", argv_used, "--resume", drop_value=False)
    with sigterm_as_interrupt():
        summary = train(cfg, resume=args.resume, command=command)
    print(json.dumps({k: v for k, v in summary.items() if k != "evaluation"}, indent=2))
    for line in evaluation_lines(summary.get("evaluation", {})):
        print(line)
    return summary


@contextlib.contextmanager
def sigterm_as_interrupt():
    """SIGTERM (a batch scheduler's time limit or pre-emption, ``kill``) and SIGHUP (the terminal closed:
    an ssh session that dropped) stop the run as Ctrl-C does: checkpoint, evaluation and export, or, in
    the distillation, its workers ended and the finished rounds kept. By default either ended the
    trainer on the spot, without a checkpoint since the last one, and left the distillation's workers
    searching to the end of their chunks. Only from the main thread (where Python runs signal handlers)
    and only over the default handler: a caller's own handler, and nohup's ignored SIGHUP, are left
    alone."""
    with stop_signals_as_interrupt():
        yield


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Ctrl-C, SIGTERM or SIGHUP while a model file is written lands once it is whole: raised inside torch's zip
    writer, the interrupt left a torn file and a RuntimeError in its place, which no ``except
    KeyboardInterrupt`` catches (a SIGTERM in the middle of a checkpoint ended the run with a traceback).
    The signal is raised again after the block, to whatever handler was there."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig, handler in previous.items():
        if handler not in (signal.SIG_IGN, None):  # an ignored signal stays ignored
            signal.signal(sig, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)
        for sig in pending[:1]:
            signal.raise_signal(sig)


def cli() -> None:
    """Console-script entry point: an error of the arguments or the recipe ends it in one line. A run stopped
    early (Ctrl-C, SIGTERM, SIGHUP) ends, once it has saved, evaluated and exported what it learnt, with the
    interrupt's status 130, as a stop in the distillation and every other command end: it ended 0, as a finished
    run does, so ``train && evaluate`` went on after a Ctrl-C and a retry loop took a pre-empted run for done."""
    stopped = []

    def run(argv: list[str] | None) -> None:
        summary = main(argv)
        if summary["interrupted"]:  # said while run_cli's care for a closed terminal or pipe still holds
            print(f"stopped early at {summary['steps']} steps: --resume continues the run", file=sys.stderr)
            stopped.append(True)

    status = run_cli(run)
    sys.exit(130 if status == 0 and stopped else status)


if __name__ == "__main__":
    # run as training.train, not __main__: a vec.kind=subproc worker pickles what it sends back by its class's
    # module, and under sb3-contrib 2.4 (the floor) the first thing it sent, an env's action_masks, named
    # __main__.SelfPlayEnv, which the trainer's __main__ held as another object: every such run ended at its start
    from training.train import cli

    cli()
