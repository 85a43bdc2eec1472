"""The trainer's SB3 callbacks: snapshots into the opponent pool, win rates, scheduled evaluations and
checkpoints (``SelfPlayCallback``), and torch's thread counts around the PPO update (``UpdateThreads``).

They live apart from :mod:`training.train` because their base class imports torch. Under
``python -m training.train``, each spawned distillation worker imports the trainer's module again and
never trains; with the callbacks there, each worker held about 250 MB instead of 44 MB and took
seconds longer to start. ``training.train`` imports this module when a run starts.
"""

from __future__ import annotations

import json
import pickle
import time
from collections import defaultdict, deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from tabletop_envs.core.files import written_beside

from . import train as trainer
from .config import PHASE_KEYS, TrainConfig
from .evaluate import tensorboard_tag
from .pool import SNAPSHOT, OpponentPool, WinRateGate

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO


class UpdateThreads(BaseCallback):
    """torch runs the PPO update on ``update`` threads and the rest of training on ``collect``.

    While the update runs, the envs wait (in this process or their own), so the other cores are free
    for its matrix products, which our wide observations make large (Earth's first layers are
    5,148 x 128); collecting calls torch only on batches of n_envs, where threads add overhead, and
    env worker processes need those cores then.
    """

    def __init__(self, collect: int, update: int):
        super().__init__()
        self.collect, self.update = collect, trainer.update_thread_count(update)

    def _on_rollout_end(self) -> None:
        import torch

        torch.set_num_threads(self.update)

    def _on_rollout_start(self) -> None:
        import torch

        torch.set_num_threads(self.collect)

    _on_training_end = _on_rollout_start

    def _on_step(self) -> bool:
        return True


class SelfPlayCallback(BaseCallback):
    """Snapshots into the pool (gated), win-rate logging, scheduled evaluation, checkpoints."""

    def __init__(self, cfg: TrainConfig, pool: OpponentPool, run_dir: Path, state: dict | None = None,
                 command: str | None = None, started: float | None = None, first_step: int = 0):
        super().__init__()
        #: this part of the run (a resumed run is several): its command, its start (perf_counter) and first step
        self.command, self.first_step = command, first_step
        self.started = time.perf_counter() if started is None else started
        #: the parts before it, up to the checkpoint it resumed from, so that a resumed run's time is all of them
        self.parts_before: list[dict] = []
        self.cfg, self.pool, self.run_dir = cfg, pool, run_dir
        sp = cfg.selfplay
        self.gate = WinRateGate(sp.gate_win_rate, sp.gate_episodes)
        self.recent: dict[str, deque] = defaultdict(lambda: deque(maxlen=200))
        self.history: list[dict] = []
        self.snapshots_skipped = 0
        self.next_snapshot = sp.snapshot_every
        self.next_eval = cfg.eval.every
        self.next_checkpoint = cfg.output.checkpoint_every
        self.phases_applied: list[dict] = []
        #: on --resume, the phases the run had applied, with the steps it applied them at
        self.phases_resumed: list[dict] = []
        #: seconds spent on evaluations and checkpoints inside learn(): not PPO's throughput
        self.overhead_seconds = 0.0
        self.live = {key: getattr(getattr(cfg, key.split(".")[0]), key.split(".")[1]) for key in PHASE_KEYS}
        if state:
            self.history = state["history"]
            self.next_snapshot, self.next_eval = state["next_snapshot"], state["next_eval"]
            self.next_checkpoint = state["next_checkpoint"]
            self.gate.results.extend(state.get("gate_results", []))
            # TensorBoard's gated-out count and training win rates carry on instead of restarting from nothing
            self.snapshots_skipped = state.get("snapshots_skipped", 0)
            self.phases_resumed = state.get("phases_applied", [])
            for tag, results in state.get("recent", {}).items():
                self.recent[tag].extend(results)
            # a checkpoint written before parts were kept: its steps are known, its time and command are not
            self.parts_before = state.get("parts", [{"command": None, "steps": [0, first_step], "seconds": None}])

    # -------------------------------------------------------------- sb3 hooks
    def _on_training_start(self) -> None:
        if not self.pool.snapshots and self.cfg.selfplay.initial_snapshot:
            self._freeze()
        self._apply_phases()  # on --resume: the phases already reached
        self._push_pool()
        if not self.history:
            self.evaluate(self.cfg.eval.games)  # the curve starts from the untrained policy

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "returns" in info:
                self._record(info)
        steps = self.num_timesteps
        if self._apply_phases():
            self._push_pool()
        if steps >= self.next_snapshot:
            self.next_snapshot += self.cfg.selfplay.snapshot_every
            # With no snapshot there are no games against one to judge, and the gate would never open.
            if not self.pool.snapshots or self.gate.open():
                self._freeze()
                self._push_pool()
                self.gate.reset()
            else:
                self.snapshots_skipped += 1
        if steps >= self.next_eval:
            # advanced only once the evaluation is done: an interrupt during it leaves the point to the resume
            self.evaluate(self.cfg.eval.games)
            self.next_eval += self.cfg.eval.every
        if steps >= self.next_checkpoint:
            self.next_checkpoint += self.cfg.output.checkpoint_every
            self.checkpoint()
        return True

    def _on_rollout_end(self) -> None:
        for tag, results in self.recent.items():
            if results:
                self.logger.record(f"selfplay/win_rate_vs_{tag}", float(np.mean(results)))
        self.logger.record("selfplay/pool_size", self.pool.size)
        self.logger.record("selfplay/snapshots", len(self.pool.snapshots))
        self.logger.record("selfplay/snapshots_gated_out", self.snapshots_skipped)
        if self.gate.results:
            self.logger.record("selfplay/gate_win_rate", self.gate.win_rate())

    # -------------------------------------------------------------- pieces
    def _apply_phases(self) -> bool:
        """Apply the recipe's phases the learner has reached; True if any was applied now."""
        phases, applied = self.cfg.phases, False
        while len(self.phases_applied) < len(phases) and self.num_timesteps >= phases[len(self.phases_applied)]["at"]:
            phase = phases[len(self.phases_applied)]
            self.live.update(phase["set"])
            model, live = cast("MaskablePPO", self.model), self.live
            model.learning_rate = live["ppo.learning_rate"]
            model._setup_lr_schedule()  # SB3 reads the rate through its schedule at every update
            model.ent_coef = live["ppo.ent_coef"]
            self.pool.set_weights(live["selfplay.random_weight"], live["selfplay.heuristic_weight"],
                                  live["selfplay.opponents"])
            self.pool.play_latest_ratio = live["selfplay.play_latest_ratio"]
            self.gate.threshold = live["selfplay.gate_win_rate"]
            done = len(self.phases_applied)
            if done < len(self.phases_resumed) and self.phases_resumed[done]["at"] == phase["at"]:
                # re-applied on --resume: the record keeps the step the run reached it at, not the resume's
                self.phases_applied.append(self.phases_resumed[done])
                print(f"[phase] step {self.phases_resumed[done]['step']} (resumed): {phase['set']}", flush=True)
            else:
                self.phases_applied.append({"at": phase["at"], "step": int(self.num_timesteps), "set": phase["set"]})
                print(f"[phase] step {self.num_timesteps}: {phase['set']}", flush=True)
            applied = True
        return applied

    def _record(self, info: dict) -> None:
        for tag, score in trainer.episode_scores(info).items():
            self.recent[tag].append(score)
            if tag == SNAPSHOT:
                self.gate.record(score)

    def _freeze(self) -> None:
        from .export import mlp_weights

        weights, activation = mlp_weights(self.model)
        deterministic = self.cfg.selfplay.snapshot_sampling == "argmax"
        self.pool.add_snapshot(weights, activation, int(self.num_timesteps), deterministic)

    def _push_pool(self) -> None:
        self.training_env.env_method("set_opponent", self.pool)

    def evaluate(self, games: int, model=None, label: str = "eval") -> dict:
        """The learner's (or ``model``'s, at its own step) win rates against the anchors, into the history,
        printed as ``[label] step N: ...``."""

        evaluated = self.model if model is None else model
        t0 = time.perf_counter()
        result = trainer.evaluate_model(self.cfg, evaluated, games, self.cfg.seed + 1000, self.cfg.eval.opponents)
        seconds = time.perf_counter() - t0
        if model is None:
            self.overhead_seconds += seconds
        point: dict[str, Any] = {"steps": int(evaluated.num_timesteps), "eval_seconds": round(seconds, 2)}
        for key, rates in result.items():
            if key.startswith("vs_"):
                point[key] = rates["win"]["rate"]
                point[f"{key}_ci95"] = rates["win"]["ci95"]
                point[f"{key}_score"] = rates["score"]
                if model is None:
                    self.logger.record(f"eval/win_rate_{tensorboard_tag(key)}", rates["win"]["rate"])
        if model is None:
            # SB3 writes what was recorded at the next rollout's end (the step-0 point one rollout late);
            # written now, TensorBoard puts each point at the step history.json and the curve give it
            self.logger.dump(step=point["steps"])
        self.history.append(point)
        rates = "  ".join(f"{k} {100 * v:.1f}%" for k, v in point.items() if k.startswith("vs_") and
                          isinstance(v, float) and not k.endswith("_score"))
        played = max((r["games"] for k, r in result.items() if k.startswith("vs_")), default=games)
        print(f"[{label}] step {point['steps']}: win rate {rates} ({played} games each, "
              f"{point['eval_seconds']:.0f} s)", flush=True)
        return result

    def state(self) -> dict:
        return {"history": self.history, "next_snapshot": self.next_snapshot, "next_eval": self.next_eval,
                "next_checkpoint": self.next_checkpoint, "gate_results": list(self.gate.results),
                "snapshots_skipped": self.snapshots_skipped, "phases_applied": self.phases_applied,
                "recent": {tag: list(results) for tag, results in self.recent.items()}}

    def parts(self, last_step: int, seconds: float | None = None) -> list[dict]:
        """The run's parts up to now: each one's command, first and last step and seconds, this one's
        ``seconds`` (default: since it started) ending at ``last_step``."""
        seconds = time.perf_counter() - self.started if seconds is None else seconds
        return [*self.parts_before, {"command": self.command, "steps": [self.first_step, last_step],
                                     "seconds": round(seconds, 1)}]

    def checkpoint(self) -> Path:
        t0 = time.perf_counter()
        # the model's count, not the callback's: an interrupt between SB3's step count and the callback's
        # on_step leaves the callback one vector step behind, and the folder would misname what it holds
        folder = self.run_dir / "checkpoints" / f"step_{int(self.model.num_timesteps):09d}"
        folder.mkdir(parents=True, exist_ok=True)
        # Each file is written beside its place first: the final checkpoint rewrites the folder of the last
        # scheduled one, and a full disk part-way through that lost a whole checkpoint. state.json marks a
        # complete checkpoint for --resume, so it goes before the files are moved in and comes back last.
        files = (folder / "model.zip", folder / "pool.pkl", folder / "state.json")
        with trainer.interrupts_deferred(), written_beside(*files, marker_last=True) as (model_part, pool_part, state_part):
            self.model.save(model_part)
            with open(pool_part, "wb") as fh:
                pickle.dump(self.pool.state_dict(), fh)
            state = {**self.state(), "parts": self.parts(int(self.model.num_timesteps))}
            state_part.write_text(json.dumps(state), encoding="utf-8")
        self.overhead_seconds += time.perf_counter() - t0
        return folder
