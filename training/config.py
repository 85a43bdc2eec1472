"""The training-recipe schema: every key, its type, its default and what it means, in one place.

A recipe is a YAML file (``configs/<game>.yaml``) holding any subset of these keys; the rest keep
their defaults. Unknown keys and ill-typed values are a :class:`ConfigError` that names the key,
the file and the fix. ``--set section.key=value`` overrides one key from the command line (the
value is parsed as YAML: ``--set ppo.net_arch=[64,64]``; as in a recipe, a key given twice, a number
YAML 1.1 reads as octal or base 60, such as 010, 1:30 or 1:30.5, a date that is none, and a comment, which YAML
would drop from ``output.dir=runs/lr #2``, are refused; of two ``--set`` of one key the last wins).

``python -m training.config`` prints the whole schema as a Markdown table.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import itertools
import json
import math
import os
import re
import shlex
import string
import sys
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tabletop_envs.core.errors import ConfigError
from tabletop_envs.core.files import cannot_write_in, path_is, read_text_at_most, user_path


def config_key(default, doc: str, **kw):
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata={"doc": doc, **kw})
    return field(default=default, metadata={"doc": doc, **kw})


@dataclass
class PPOConfig:
    total_timesteps: int = config_key(200_000, "learner decisions (env steps) to train for", min=1)
    learning_rate: float = config_key(3e-4, "Adam step size", min=0)
    n_steps: int = config_key(512, "rollout length per env before each update", min=2)
    batch_size: int = config_key(256, "minibatch size of the PPO update; the rollout (n_steps * n_envs) may not "
                                 "leave a last minibatch of one sample", min=2)
    n_epochs: int = config_key(4, "passes over each rollout", min=1)
    gamma: float = config_key(0.99, "discount", min=0, max=1)
    gae_lambda: float = config_key(0.95, "GAE lambda", min=0, max=1)
    clip_range: float = config_key(0.2, "PPO clip range", min=0)
    ent_coef: float = config_key(0.01, "entropy bonus (over legal actions only)", min=0)
    vf_coef: float = config_key(0.5, "value-loss weight", min=0)
    max_grad_norm: float = config_key(0.5, "gradient clipping", min=0)
    net_arch: list[int] = config_key([128, 128], "hidden layer sizes of the policy and value MLPs (not shared)")
    activation: Literal["tanh", "relu"] = config_key("tanh", "hidden activation; exported as-is")
    torch_threads: int = config_key(1, "torch intra-op threads while collecting (1 leaves the other core to the envs)",
                                    min=1)
    update_threads: int = config_key(2, "torch intra-op threads during the PPO update, when the envs wait (capped at "
                                     "the machine's cores)", min=1)
    device: str = config_key("cpu", "torch device for the learner: cpu, cuda, cuda:<N>, mps or auto (cuda when "
                             "there is one); a device the machine lacks is refused when the run starts")


@dataclass
class VecConfig:
    n_envs: int = config_key(2, "parallel envs collecting rollouts", min=1)
    kind: Literal["batched", "dummy", "subproc"] = config_key(
        "batched", "batched: one process, the opponents of all envs move in one forward pass per policy "
        "(training.vec_env); dummy: SB3's DummyVecEnv (one process, one env after the other); subproc: "
        "SubprocVecEnv (one process per env)")


@dataclass
class SelfPlayConfig:
    random_weight: float = config_key(0.1, "chance that an opponent seat holds the random anchor, drawn per seat "
                                      "and episode (the share of episodes at two players)", min=0, max=1)
    heuristic_weight: float = config_key(0.2, "chance that an opponent seat holds the game's heuristic bot, drawn per "
                                         "seat and episode", min=0, max=1)
    opponents: dict[str, float] = config_key({}, "fixed opponents the learner trains against too, each with its "
                                             "chance of holding an opponent seat, drawn per seat and episode as "
                                             "random_weight is: {<anchor>: <share>}, each anchor named as in "
                                             "eval.opponents (a policy id such as terralore_v0/ppo, a name under "
                                             "the env, or a model path); the snapshots get what random_weight, "
                                             "heuristic_weight and these shares leave", min=0, max=1)
    snapshot_every: int = config_key(20_000, "steps between attempts to freeze the learner into the pool", min=1)
    window: int = config_key(5, "snapshots kept: the last K frozen ones", min=1)
    play_latest_ratio: float = config_key(0.5, "of the snapshot draws, the share that takes the newest snapshot; the "
                                          "rest draw uniformly from the window, the newest included (so the newest "
                                          "gets ratio + (1 - ratio) / snapshots)", min=0, max=1)
    gate_win_rate: float = config_key(0.5, "freeze a new snapshot only if the learner's recent score against the "
                                      "pool's snapshots is at least this: per episode the mean over the snapshot "
                                      "seats of 1 (higher return), 0.5 (equal) or 0, so 0.5 is 'as strong' at any "
                                      "number of players (0 = always; a pool without snapshots always gets one)",
                                      min=0, max=1)
    gate_episodes: int = config_key(100, "recent episodes against snapshots that the gate looks at, counted since "
                                    "the last freeze; it waits for min(20, this) of them", min=1)
    snapshot_sampling: Literal["sample", "argmax"] = config_key("sample", "how snapshots pick among legal actions")
    initial_snapshot: bool = config_key(True, "put the untrained learner in the pool at step 0")
    draw_reward: float = config_key(0.0, "added to the learner's reward when a game ends drawn (every seat's "
                                    "standing equal: a stalemate, a tie, a max_turns truncation); below 0 a draw "
                                    "costs the learner, which pushes it to break opponents that stall, and a "
                                    "max_turns cut ends the episode as terminated (the draw reward is its outcome: "
                                    "PPO does not also bootstrap a value past it). The evaluations and the snapshot "
                                    "gate score the standings, so they are unchanged",
                                    min=-1, max=1)


@dataclass
class PretrainConfig:
    teacher: str = config_key("", "warm start: clone this policy ('heuristic', an id or a model path) into the "
                              "learner before PPO; empty = start from scratch")
    decisions: dict[str, str] = config_key({}, "decisions another policy teaches, by the game's decision names: "
                                           "{decision: policy}, e.g. {statistic: heuristic}; the teacher still "
                                           "plays every other decision")
    games: int = config_key(1000, "teacher games recorded for the warm start", min=1)
    vs_random_share: float = config_key(0.25, "share of those games the teacher plays against random", min=0, max=1)
    epochs: int = config_key(5, "passes over the teacher data", min=1)
    batch_size: int = config_key(512, "minibatch size of the cloning fit", min=2)
    learning_rate: float = config_key(1e-3, "Adam step size of the cloning fit", min=0)
    vf_coef: float = config_key(0.5, "weight of the value head's fit to the teacher games' returns", min=0)


@dataclass
class DistillConfig:
    games: int = config_key(0, "after PPO (and the checkpoint selection), search this many games (rounded up to "
                            "whole deals, each played from both seats) and fine-tune the policy toward the search's "
                            "moves (training.distill); 0 = off", min=0)
    rounds: int = config_key(1, "rounds of search and fine-tuning: each searches games of its own (seed + 3000 + "
                             "1000 x (round - 1)) with the policy the round before fitted", min=1)
    opponents: list[str] = config_key(["random"], "whom the searched games are played against: deal d (each deal "
                                      "from both seats) against the (d mod k)-th of k; the search knows its "
                                      "opponent, so it teaches play against these")
    worlds: int = config_key(32, "re-dealt worlds the search plays out at each decision", min=1)
    margin: float = config_key(0.05, "teach the search's move only where its wins less losses per world beat the "
                               "policy's own move's by more than this (near-ties are noise; 0.05 is 1.6 of 32 worlds); with target "
                               "'scores' it decides only where confirm_worlds are played",
                               min=0)
    confirm_worlds: int = config_key(64, "more worlds played where the search would teach a move, before it is "
                                     "taught (fewer noisy labels; 0 = none)", min=0)
    target: Literal["move", "scores"] = config_key(
        "move", "what the fine-tuning teaches: 'move' = the search's move where it beats the policy's own by more "
        "than margin, the policy's own elsewhere; 'scores' = the policy before the fit reweighted by "
        "exp(score / temperature) over the legal actions (every decision speaks; ties change nothing)")
    temperature: float = config_key(0.05, "with target 'scores': the score gap (wins less losses per world) that "
                                    "multiplies an action's probability by e", min=1e-6)
    epochs: int = config_key(20, "passes over the searched decisions", min=1)
    batch_size: int = config_key(256, "minibatch size of the fine-tuning", min=2)
    learning_rate: float = config_key(3e-4, "Adam step size of the fine-tuning", min=0)
    kl_coef: float = config_key(0.1, "weight of the KL divergence from the policy before the fine-tuning", min=0)
    workers: int = config_key(0, "processes that play the searched games (0: one per core); the data does not "
                              "depend on it", min=0)


@dataclass
class EvalConfig:
    every: int = config_key(20_000, "steps between scheduled evaluations", min=1)
    games: int = config_key(100, "seat-rotated games per anchor at each scheduled evaluation", min=2)
    final_games: int = config_key(400, "seat-rotated games per anchor after training", min=0)
    opponents: list[str] = config_key(["random", "heuristic"], "anchors: names under the env "
                                "('random' -> '<env>/random'), policy ids or model paths; each is reported as "
                                "vs_<anchor> (a model path: vs_<file stem>), so no two may share that name")
    deterministic: bool = config_key(True, "evaluate (and ship) the policy as masked argmax (true) or masked sampling "
                                     "(false); recorded in the sidecar as the loader's default (training.export's too)")
    select_games: int = config_key(0, "after training, play this many seat-rotated games against select_anchor with "
                                   "the checkpoint reached at each multiple of select_every steps and with the final "
                                   "model, then evaluate and export the best (0: the final model)", min=0)
    select_every: int = config_key(200_000, "spacing in steps of the checkpoints select_games compares", min=1)
    select_anchor: str = config_key("heuristic", "the anchor the selection games are played against")


@dataclass
class OutputConfig:
    dir: str = config_key("runs/{env}-s{seed}", "run folder; {env}, {seed} and {name} are filled in, and ~ is the "
                          "home folder")
    name: str = config_key("ppo", "model name (file stem of the exported policy: letters, digits, _ and -; not that "
                           "of a report beside it: run, pretrain, distill, summary, history, main_job)")
    checkpoint_every: int = config_key(50_000, "steps between checkpoints (model zip + pool)", min=1)
    tensorboard: bool = config_key(True, "write TensorBoard logs under <dir>/tb")
    progress_bar: bool = config_key(True, "tqdm/rich progress bar")
    learning_curve: bool = config_key(True, "write <dir>/learning_curve.png at the end")
    export: bool = config_key(True, "export ONNX + npz + JSON sidecar into <dir> at the end")
    verbose: int = config_key(0, "SB3 verbosity (0 quiet, 1 per-update table)", min=0, max=2)


# What a phase may change mid-run: values read afresh at every update or every episode.
PHASE_KEYS = {"ppo.learning_rate", "ppo.ent_coef", "selfplay.random_weight", "selfplay.heuristic_weight",
              "selfplay.opponents", "selfplay.play_latest_ratio", "selfplay.gate_win_rate"}


@dataclass
class TrainConfig:
    env: str = config_key("terralore_v0", "env name from the registry")
    env_kwargs: dict[str, Any] = config_key({}, "rule options / num_players / max_turns passed to the env")
    seed: int = config_key(0, "seeds torch, the envs, the opponent pool and evaluation", min=0, max=2**32 - 1)
    ppo: PPOConfig = field(default_factory=PPOConfig, metadata={"doc": "MaskablePPO hyperparameters"})
    vec: VecConfig = field(default_factory=VecConfig, metadata={"doc": "vectorised collection"})
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig, metadata={"doc": "opponent pool"})
    pretrain: PretrainConfig = field(default_factory=PretrainConfig, metadata={"doc": "warm start by cloning a bot"})
    distill: DistillConfig = field(default_factory=DistillConfig,
                                   metadata={"doc": "search distillation after PPO"})
    eval: EvalConfig = field(default_factory=EvalConfig, metadata={"doc": "evaluation schedule"})
    output: OutputConfig = field(default_factory=OutputConfig, metadata={"doc": "files and logging"})
    phases: list[dict[str, Any]] = config_key([], "later phases of the same run: [{at: <step>, set: {<key>: <value>}}], "
                                              "applied in order when the learner reaches each step (and again on "
                                              f"--resume); keys: {', '.join(sorted(PHASE_KEYS))}")

    def validate(self) -> TrainConfig:
        self._check_phases()
        self._check_shares()
        if self.ppo.batch_size > self.ppo.n_steps * self.vec.n_envs:
            raise ConfigError(f"ppo.batch_size {self.ppo.batch_size} exceeds the rollout size ppo.n_steps * "
                              f"vec.n_envs = {self.ppo.n_steps * self.vec.n_envs}; lower it or raise n_steps")
        self._check_last_minibatch()
        if not self.ppo.net_arch or any(h < 1 for h in self.ppo.net_arch):
            raise ConfigError(f"ppo.net_arch must be a non-empty list of positive sizes, got {self.ppo.net_arch}")
        check_device(self.ppo.device, "ppo.device")
        from .evaluate import anchor_keys

        anchor_keys(self.eval.opponents, "eval.opponents")
        if self.distill.games and not self.distill.opponents:
            raise ConfigError("distill.opponents is empty: the searched games need someone to play against, e.g. "
                              "--set distill.opponents=[random]")
        if len(set(self.distill.opponents)) != len(self.distill.opponents):
            raise ConfigError(f"distill.opponents {self.distill.opponents} names an opponent twice; each one takes "
                              "every k-th deal, so list it once")
        check_output_name(self.output.name, RUN_FILES)
        check_dir_template(self.output.dir, "output.dir", env=self.env, seed=self.seed, name=self.output.name)
        check_folder_can_be_made(self.run_dir(), "output.dir")
        return self

    def _check_phases(self) -> None:
        previous = 0
        checked: list[dict[str, Any]] = []  # new dicts: the converted values written back changed the caller's
        for i, phase in enumerate(self.phases):
            where = f"phases[{i}]"
            if set(phase) != {"at", "set"} or not isinstance(phase["set"], dict) or not phase["set"]:
                raise ConfigError(f"{where} must be a mapping with exactly 'at' (a step) and 'set' (keys to change), "
                                  f"got {phase!r}")
            at = _check_type(phase["at"], int, f"{where}.at", "phases", {})  # 1e5 as ppo.total_timesteps takes it
            if not previous < at < self.ppo.total_timesteps:
                raise ConfigError(f"{where}.at must be a step after the previous phase's ({previous}) and before "
                                  f"ppo.total_timesteps ({self.ppo.total_timesteps}), got {at!r}; for a shorter run drop them: --set phases=[]")
            previous = at
            changes: dict[str, Any] = {}
            for key, value in phase["set"].items():
                if key not in PHASE_KEYS:
                    raise ConfigError(f"{where}.set: {key!r} cannot change during a run; phase keys are "
                                      f"{', '.join(sorted(PHASE_KEYS))}")
                section, name = key.split(".")
                part = getattr(self, section)
                hint = typing.get_type_hints(type(part))[name]
                meta = {f.name: f.metadata for f in dataclasses.fields(part)}[name]
                changes[key] = _check_type(value, hint, f"{where}.set.{key}", "phases", meta)
            checked.append({"at": at, "set": changes})
        self.phases = checked

    def _check_last_minibatch(self) -> None:
        """The rollout may not end in a minibatch of one sample.

        The PPO update (sb3-contrib's MaskablePPO, unlike SB3's PPO) divides each minibatch's advantages
        by their standard deviation, which one sample does not have: NaN weights, and the run dies later
        with a misleading "illegal action" error. FastMaskableRolloutBuffer cuts minibatches as sb3 does.
        """
        p, n_envs = self.ppo, self.vec.n_envs
        rollout = p.n_steps * n_envs
        if rollout % p.batch_size != 1:
            return
        batch = next((b for b in range(p.batch_size - 1, 1, -1) if rollout % b != 1), rollout)
        n_steps = next(n for n in itertools.count(p.n_steps + 1) if n * n_envs % p.batch_size != 1)
        raise ConfigError(f"the rollout ppo.n_steps * vec.n_envs = {p.n_steps} * {n_envs} = {rollout} leaves a last "
                          f"minibatch of one sample ({rollout} = {rollout // p.batch_size} * ppo.batch_size "
                          f"{p.batch_size} + 1), whose advantage has no standard deviation to normalise by (NaN "
                          f"weights); change one of them, e.g. --set ppo.batch_size={batch} or --set "
                          f"ppo.n_steps={n_steps}")

    def _check_shares(self) -> None:
        """The anchors' and fixed opponents' shares of opponent seats, as written and after each phase, sum to
        at most 1, and the fixed opponents are named so that each has its own win rate."""
        from .pool import check_opponents

        shares: dict[str, Any] = {"selfplay.random_weight": self.selfplay.random_weight,
                                  "selfplay.heuristic_weight": self.selfplay.heuristic_weight,
                                  "selfplay.opponents": self.selfplay.opponents}
        for where, changes in [("", {}), *((f"phases[{i}]: ", p["set"]) for i, p in enumerate(self.phases))]:
            shares.update({k: v for k, v in changes.items() if k in shares})
            if "selfplay.opponents" in changes or not where:
                check_opponents(self.env, shares["selfplay.opponents"], f"{where}selfplay.opponents")
            total = shares["selfplay.random_weight"] + shares["selfplay.heuristic_weight"] + sum(
                shares["selfplay.opponents"].values())
            if total > 1 + 1e-9:
                fixed = " + the selfplay.opponents shares" if shares["selfplay.opponents"] else ""
                raise ConfigError(f"{where}selfplay.random_weight + selfplay.heuristic_weight{fixed} = "
                                  f"{total:g} > 1; they are shares of opponent seats")

    def run_dir(self) -> Path:
        return user_path(self.output.dir.format(env=self.env, seed=self.seed, name=self.output.name))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def resume_seed(seed: int, progress: int) -> int:
    """The seed of a run resumed at ``progress`` (SB3: its step; RLlib: its iteration): streams of its
    own, so it deals new games instead of the first part's again, and the same on every resume from there."""
    import numpy as np

    return int(np.random.SeedSequence([seed, progress]).generate_state(1)[0])


def command_line(module: str, argv: list[str], drop: str, *, drop_value: bool) -> str:
    """``python -m <module>`` and ``argv`` quoted for a shell, the command a run records: less the option
    ``drop`` (a resume: the run it continues is the same run), under any prefix the parser takes for it too
    (``--res`` resumed, and a recorded ``--res`` resumed again where the command should make the model
    again), with its value where ``drop_value``."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        option = arg.split("=", 1)[0]
        if len(option) > 2 and drop.startswith(option):
            skip = drop_value and "=" not in arg
            continue
        kept.append(shlex.quote(arg))
    return " ".join([f"python -m {module}", *kept])


def check_device(device: str, key: str) -> None:
    """A torch device string, checked when the recipe loads rather than when the learner is built."""
    if re.fullmatch(r"auto|cpu|(cuda|mps)(:\d+)?", device):
        return
    try:
        import torch

        torch.device(device)
        return
    except ImportError:
        pass
    except (RuntimeError, ValueError, TypeError):
        pass
    raise ConfigError(f"{key} {device!r} is not a torch device; use cpu, cuda, cuda:<N> (e.g. cuda:0), mps or auto")


def check_device_present(device: str, key: str = "ppo.device") -> None:
    """``device`` exists on this machine. Checked when a run starts, not when the recipe loads (a recipe
    for a GPU machine may be read anywhere): SB3 quietly trains on the CPU when CUDA is missing, while
    run.json and the sidecar would still say cuda, so the run's record and its speed would disagree."""
    import torch

    kind, _, index = device.partition(":")
    if kind == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count <= int(index or 0):
            seen = f"{count} CUDA device{'s' * (count != 1)}" if count else \
                f"no CUDA device (torch {torch.__version__}{'' if torch.version.cuda else ', a CPU-only build'})"
            raise ConfigError(f"{key} {device!r}, but torch sees {seen} on this machine; train on the CPU with "
                              f"--set {key}=cpu, or use {key}=auto (cuda when there is one)")
    elif kind == "mps" and not torch.backends.mps.is_available():
        raise ConfigError(f"{key} {device!r}, but torch sees no MPS device on this machine; train on the CPU with "
                          f"--set {key}=cpu, or use {key}=auto")
    elif kind not in ("cpu", "auto", "cuda", "mps"):
        # any other torch device (xpu, meta, ...): one tensor there and back, or the run would fail in the
        # learner's constructor with torch's own error, after the run folder was set up
        try:
            (torch.zeros(1, device=device) + 1).cpu()
        except Exception as exc:  # torch raises AssertionError, RuntimeError or NotImplementedError here
            raise ConfigError(f"{key} {device!r} cannot train on this machine ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0] if str(exc) else 'no message'}); use cpu, cuda or "
                              f"mps, or {key}=auto") from None


#: names Windows keeps for devices, whatever the extension: ``con.onnx`` there is the console, not a file; the
#: ports' digits include the superscripts ¹ ² ³, which ``\w`` lets into a stem (as ``os.path.isreserved`` lists)
WINDOWS_DEVICE_NAMES = {"CON", "PRN", "AUX", "NUL",
                        *(f"{port}{i}" for port in ("COM", "LPT") for i in [*"0123456789", "\u00b9", "\u00b2", "\u00b3"])}


#: the longest output.name in bytes (UTF-8): <name>.onnx is written first as <name>.onnx.<host>-<pid>-<n>.part
#: (tabletop_envs.core.files.written_beside), up to about 75 bytes more, and a file name holds 255
MAX_FILE_STEM_BYTES = 150


def check_file_stem(name: str, key: str) -> None:
    """A name that becomes ``<run dir>/<name>.onnx``: no folder, no extension, not empty, and a file name on
    every system (a recipe written on Linux is trained on Windows too)."""
    if not re.fullmatch(r"[\w-]+", name):
        raise ConfigError(f"{key} {name!r} must be a plain file stem (letters, digits, _ and -; no folder, dot or "
                          f"space): the model is written as <run dir>/<{key.split('.')[-1]}>.onnx; e.g. ppo")
    if len(name.encode("utf-8")) > MAX_FILE_STEM_BYTES:
        # a file name holds 255 bytes: output.name of 300 letters loaded, and the run ended in OSError "File name
        # too long" as it started (on Python 3.13 and later, only at the export, after the whole training)
        raise ConfigError(f"{key} {name[:24]!r}… is {len(name.encode('utf-8'))} bytes long; a file name holds 255 "
                          f"bytes, and <{key.split('.')[-1]}>.onnx and its temporary copy need room beside it: "
                          f"keep it to {MAX_FILE_STEM_BYTES} (letters, digits, _ and -), e.g. ppo")
    if name.upper() in WINDOWS_DEVICE_NAMES:
        raise ConfigError(f"{key} {name!r} is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, and COM "
                          f"or LPT with a superscript 1, 2 or 3), where {name}.onnx would not be a file; choose another "
                          "name, e.g. ppo")


def check_folder_can_be_made(folder: Path, what: str) -> None:
    """Refuse a folder under a file: making it failed with NotADirectoryError once the run had begun."""
    blocking = next((d for d in (folder, *folder.parents) if d.exists()), None)
    if blocking is not None and not blocking.is_dir():
        raise ConfigError(f"{what} {str(folder)!r}: {blocking} is a file, so no folder can be made there; choose "
                          "another folder")


def make_output_folder(folder: Path, what: str) -> None:
    """Make ``folder`` and create a file in it now, before the work whose results go there: a folder that
    could not be made (under /proc) or written (a read-only mount, another user's folder) ended a benchmark
    or an evaluation after its minutes of work in "[Errno 2] No such file or directory: '/proc/results'",
    which named neither the option nor a fix, and its results were not written."""
    check_folder_can_be_made(folder, what)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{what} {str(folder)!r}: the folder cannot be made ({exc.strerror or exc}); choose a "
                          "folder you can write to") from None
    problem = cannot_write_in(folder)
    if problem:
        raise ConfigError(f"{what} {str(folder)!r}: no file can be written in the folder ({problem}); choose a "
                          "folder you can write to")


def check_dir_template(template: str, key: str, **values) -> None:
    """``template`` may use only the placeholders in ``values`` (``{{``/``}}`` for a literal brace)."""
    allowed = ", ".join("{" + k + "}" for k in values)
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
        unknown = [f for f in fields if f not in values]
        if not unknown:
            template.format(**values)
    except (ValueError, IndexError, KeyError, AttributeError) as exc:
        raise ConfigError(f"{key} {template!r} is not a valid folder template ({exc}); its placeholders are "
                          f"{allowed}; write {{{{ and }}}} for a literal brace") from None
    if unknown:
        raise ConfigError(f"{key} {template!r} uses the unknown placeholder {{{unknown[0]}}}; the placeholders are "
                          f"{allowed} (write {{{{ and }}}} for a literal brace)")


# ------------------------------------------------------------------------------------ parsing
def shipped_recipes_dir() -> Path:
    """The shipped recipes: ``configs/`` of a checkout, or ``training/configs`` inside an installed wheel."""
    from tabletop_envs.core.registry import shipped_folder

    return shipped_folder(Path(__file__).resolve().parent / "configs", "configs")


def resolve_recipe(path: str | Path) -> Path:
    """``path`` if it exists; else a shipped recipe it names (``terralore``, ``terralore.yaml`` or
    ``configs/terralore.yaml``), so the README's commands work from any folder and from a wheel.

    Any other missing path stays as given: loading it is the error, and a recipe of one's own is never
    swapped for a shipped one."""
    given = user_path(path)
    # path_is: a name too long for a file made exists() raise "File name too long" (before Python 3.13)
    if path_is(given, Path.exists) or given.parent not in (Path("."), Path("configs")):
        return given
    shipped = shipped_recipes_dir()
    for candidate in (shipped / given.name, shipped / f"{given.name}.yaml"):
        if path_is(candidate, Path.is_file):
            return candidate
    return given


def shipped_recipe_names() -> list[str]:
    """The names :func:`resolve_recipe` takes, e.g. ``["earth", "main_job", "terralore", ...]``."""
    return sorted(p.stem for p in shipped_recipes_dir().glob("*.yaml"))


def load_config(path: str | Path | None = None, overrides: list[str] | None = None,
                data: dict | None = None) -> TrainConfig:
    """A validated config from a YAML file and/or a dict, then ``section.key=value`` overrides."""
    from .rllib_train import RLlibTrainConfig

    return load_typed_config(TrainConfig, path, overrides, data, "recipes live in configs/*.yaml",
                             other_tool=(RLlibTrainConfig, "an RLlib recipe", "python -m training.rllib_train"))


def load_typed_config(schema: type, path: str | Path | None = None, overrides: list[str] | None = None,
                      data: dict | None = None, where: str = "",
                      keys_hint: str = "python -m training.config lists them all",
                      other_tool: tuple[type, str, str] | None = None):
    """Any dataclass ``schema`` built with :func:`config_key` fields from YAML, a dict and ``--set`` overrides.

    Unknown or ill-typed keys are a ConfigError naming the key, the source and the fix; ``keys_hint``
    says where the schema's keys are listed. ``other_tool``: (the schema of another trainer's recipes,
    what such a recipe is, its command), so that a file of that trainer's is named as such instead
    of as an unknown key.
    """
    import yaml

    if path is not None:
        path = resolve_recipe(path)
    source = str(path) if path else "<dict>"
    raw: dict = {}
    if path is not None:
        try:
            text = read_text_at_most(Path(path), MAX_RECIPE_BYTES, "any recipe")
        except FileNotFoundError:
            raise ConfigError(f"config file {path} not found; {where} (shipped: "
                              f"{', '.join(shipped_recipe_names())}; pass one by name)") from None
        except IsADirectoryError:
            raise ConfigError(f"config file {path} is a folder; pass a YAML file, {where}") from None
        except OSError as exc:  # a link that leads to itself ended the command on a traceback; no permission too
            raise ConfigError(f"config file {path} cannot be read ({exc.strerror or exc}); pass a recipe, {where}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"config file {path} is not UTF-8 text; pass a YAML file, {where}") from None
        except ValueError as exc:  # a pipe, a device, a file far too large
            raise ConfigError(f"config file {path} cannot be read: {exc}; pass a recipe, {where}") from None
        try:
            raw = _read_yaml(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{_yaml_problem(exc, str(path))}; fix the file") from None
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of keys, got {type(raw).__name__}")
        _check_expanded_size(raw, path)
    if data:
        raw = _merge(raw, data)
    for item in overrides or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ConfigError(f"override {item!r} must look like section.key=value, e.g. ppo.n_steps=256")
        try:
            parsed = _read_yaml(value)  # as a recipe's: a key given twice is refused
        except yaml.YAMLError as exc:
            if hasattr(exc, "in_a_value"):
                raise ConfigError(f"override {name.strip()}: the value {_shown(value)} {exc.in_a_value}") from None
            raise ConfigError(f"override {name.strip()}: the value {_shown(value)} is not valid YAML "
                              f"({_yaml_problem(exc)}); close the brackets or quotes, e.g. ppo.net_arch=[64,64], or "
                              "quote a string") from None
        comment = _comment_in(value)
        if comment is not None:
            # YAML drops it without a word: output.dir=runs/lr-3e-4 #2 trained in runs/lr-3e-4, beside (and
            # over) the sweep's other members
            raise ConfigError(f"override {name.strip()}: the value {_shown(value)} holds a YAML comment "
                              f"({_shown(comment)}: a # at the start or after a space begins one), which YAML drops; "
                              f"quote the value to keep the #, e.g. --set \"{name.strip()}='...'\", or leave the "
                              "comment out")
        raw = _set(raw, name.strip().split("."), parsed, schema)
    if overrides:
        source = f"{source} + --set"
    try:
        return _build(schema, raw, "", source, keys_hint).validate()
    except ConfigError:
        if path is not None and other_tool is not None:
            other, what, command = other_tool
            keys, own, theirs = set(raw), {f.name for f in dataclasses.fields(schema)}, \
                {f.name for f in dataclasses.fields(other)}
            if keys <= theirs and not keys <= own:
                raise ConfigError(f"{path} is {what} (its keys {', '.join(sorted(keys - own))} are that trainer's): "
                                  f"run it with {command} --config {path}, or pass a recipe of this one") from None
        raise


#: values a recipe may hold with its YAML aliases expanded (the shipped ones hold a few hundred)
MAX_RECIPE_VALUES = 100_000
#: bytes a recipe file may hold (the shipped ones hold a few KB): PyYAML took 63 s and 1.2 GB over 10 MB
MAX_RECIPE_BYTES = 256 << 10


def _check_expanded_size(raw: dict, path) -> None:
    """ConfigError for a recipe whose aliases repeat aliases (a "billion laughs"): ten lines of it are a
    thousand million values once expanded, and checking them (an error message shows the value) hung."""
    count, todo = 0, [raw]
    while todo:
        value = todo.pop()
        count += 1
        if count > MAX_RECIPE_VALUES:
            raise ConfigError(f"{path} holds more than {MAX_RECIPE_VALUES:,} values once its YAML aliases are expanded "
                              "(aliases that repeat aliases, or a list or mapping that holds itself); a recipe holds "
                              "a few hundred: fix the file")
        if isinstance(value, dict):
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)


def _read_yaml(text: str):
    """``text`` read with :func:`_recipe_loader`, where every text that cannot be read is a ``yaml.YAMLError``
    (the caller names the file or the ``--set`` key): PyYAML composes nested nodes recursively, so a few
    thousand levels raised RecursionError."""
    import yaml

    try:
        return yaml.load(text, Loader=_recipe_loader())
    except RecursionError:
        exc = yaml.YAMLError("its lists or mappings nest too deeply to be read")
        exc.in_a_value = "nests its lists or mappings too deeply to be read"
        raise exc from None


def _comment_in(text: str) -> str | None:
    """The first YAML comment of ``text`` (one YAML reads without error), or None: comments lie between its
    tokens, from a ``#`` to the end of the line."""
    import yaml

    end = 0
    with contextlib.suppress(yaml.YAMLError):  # (read once already: its error has been told)
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            gap = text[end:token.start_mark.index]
            if "#" in gap:
                return gap[gap.index("#"):].splitlines()[0]
            end = token.end_mark.index
    return None


def _shown(value: str, limit: int = 60) -> str:
    """``repr(value)``, its middle cut out when long: a --set value of thousands of digits or brackets."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit // 2]}…{text[-limit // 4:]} ({len(value):,} characters)"


def _recipe_loader():
    """PyYAML's safe loader, but a key given twice in one mapping is an error: PyYAML kept the last one, so a
    second ``ppo:`` section silently dropped the first (its steps and rollout length). So is a number YAML 1.1
    reads as octal (010 is 8) or base 60 (1:30 is 90, 1:30.5 is 90.5), and a value that reads as a date but is
    none (2024-13-01), or a value its explicit tag cannot hold (``!!int abc``). ``--set`` values are read with it
    too; its errors' ``in_a_value`` says the problem of such a one-line value."""
    import yaml

    class RecipeLoader(yaml.SafeLoader):
        def construct_object(self, node, deep=False):
            # a value its tag cannot build raised from inside PyYAML: KeyError (``!!bool maybe``), TypeError
            # (``!!map [1]``), AttributeError or IndexError, each a traceback; ValueError (``!!int abc``, a 5,000-digit
            # number) was reported as "a number too long to read"
            try:
                return super().construct_object(node, deep)
            except (ValueError, LookupError, TypeError, AttributeError) as exc:
                scalar = isinstance(node, yaml.ScalarNode)
                what = f"the value {_shown(node.value)}" if scalar else \
                    f"a {'list' if isinstance(node, yaml.SequenceNode) else 'mapping'}"
                # (the first clause: int()'s digit limit goes on to advise raising the limit)
                why = f" ({str(exc).split(';')[0]})" if isinstance(exc, ValueError) else ""
                if node.tag == self.resolve(type(node), node.value if scalar else None, (True, False)):
                    said = f"cannot be read{why}; fix it, or quote it for a string"
                else:
                    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
                    said = f"does not fit its tag {tag}{why}; drop the tag, or write a value that fits it"
                error = yaml.constructor.ConstructorError(None, None, f"{what} {said}", node.start_mark)
                error.in_a_value = said
                raise error from None

    def mapping(loader, node):
        first: dict = {}
        for key_node, _ in node.value:  # the keys written here; a "<<" merge's may be overridden by them
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge" else None
            if key is not None and key in first:
                exc = yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"the key {key!r} is given twice (first on line {first[key] + 1}); keep one and merge what "
                    "both hold", key_node.start_mark)
                exc.in_a_value = f"gives the key {key!r} twice; keep one"  # as a --set value, which has no lines
                raise exc
            first.setdefault(key, key_node.start_mark.line)
        data: dict = {}
        yield data  # as the safe loader's own map: a recipe that holds itself meets the size check, not a crash
        data.update(loader.construct_mapping(node))  # (which applies "<<" merges)

    def refuse(node, said: str, what: str = "the number"):
        exc = yaml.constructor.ConstructorError(None, None, f"{what} {node.value} {said}", node.start_mark)
        exc.in_a_value = said
        raise exc

    def integer(loader, node):  # YAML 1.1's octal and base 60: seed: 010 was seed 8, unsaid
        digits = node.value.replace("_", "").lstrip("+-")
        why = ("a colon makes it base 60" if ":" in digits else
               "a leading 0 makes it octal" if len(digits) > 1 and digits[0] == "0" and digits[1] not in "bx" else None)
        number = loader.construct_yaml_int(node)
        if why:
            refuse(node, f"is read by YAML 1.1 as {number} ({why}); write the number you mean, or quote it for a string")
        return number

    def real(loader, node):  # YAML 1.1's base 60 again: learning_rate: 1:30.5 was 90.5
        number = loader.construct_yaml_float(node)
        if ":" in node.value:
            refuse(node, f"is read by YAML 1.1 as {number} (a colon makes it base 60); write the number you mean, "
                         "or quote it for a string")
        return number

    def date(loader, node):  # 2024-13-01 reads as a date, and datetime's ValueError named no key or line
        try:
            return loader.construct_yaml_timestamp(node)
        except ValueError as exc:
            refuse(node, f"reads as a date but is none ({exc}); quote it for a string",
                   what="the value")

    RecipeLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    RecipeLoader.add_constructor("tag:yaml.org,2002:int", integer)
    RecipeLoader.add_constructor("tag:yaml.org,2002:float", real)
    RecipeLoader.add_constructor("tag:yaml.org,2002:timestamp", date)
    return RecipeLoader


def _yaml_problem(exc, source: str | None = None) -> str:
    """A YAML error in one line: where (the file's line and column) and what, without PyYAML's excerpts."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if problem is None:
        text = " ".join(str(exc).split())
        return f"{source} is not valid YAML: {text}" if source else text
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if source is None:  # a one-line value: no line numbers
        return f"{problem} {context}" if context else problem
    if context and context_mark is not None:
        problem += f" ({context} begun on line {context_mark.line + 1}, column {context_mark.column + 1})"
    elif context:
        problem += f" ({context})"
    where = f", line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{source}{where}: not valid YAML: {problem}"


def _set(raw: dict, keys: list[str], value, schema) -> dict:
    """``raw`` with ``keys`` set to ``value``: a mapping given to a key replaces the key's mapping (``--set
    'selfplay.opponents={a: 1.0}'`` plays a alone, where the recipe's opponents used to stay beside it and
    overfill the seats), while one given to a whole section (``--set 'ppo={n_steps: 64}'``) changes only the
    keys it names, as a recipe file's section does; ``--set env_kwargs.num_players=3`` changes one entry."""
    sections = {f.name for f in dataclasses.fields(schema) if dataclasses.is_dataclass(f.default_factory)}
    if len(keys) == 1 and keys[0] in sections:
        return _merge(raw, {keys[0]: value})
    if len(keys) > 3 and keys[0] in sections:
        hint = typing.get_type_hints(typing.get_type_hints(schema)[keys[0]]).get(keys[1])
        if typing.get_origin(hint) is dict and typing.get_args(hint)[1] is not Any:
            # a mapping of names to values, no deeper: the rest is one name, dots and all (--set
            # selfplay.opponents.runs/x/ppo.onnx=0.3 set {'runs/x/ppo': {'onnx': 0.3}}, refused naming neither)
            keys = [*keys[:2], ".".join(keys[2:])]
    return _set_path(raw, keys, value)


def _set_path(raw: dict, keys: list[str], value, done: tuple[str, ...] = ()) -> dict:
    out = dict(raw)
    head = out.get(keys[0])
    if len(keys) > 1 and keys[0] in out and not isinstance(head, dict):
        # the recipe's own value is refused without the override: the override replaced it without a word
        where = ".".join((*done, keys[0]))
        raise ConfigError(f"the recipe's {where!r} must be a mapping of keys, got {head!r}, so --set "
                          f"{'.'.join((*done, *keys))} has no mapping to set a key in; fix {where} in the recipe")
    out[keys[0]] = (_set_path(head if isinstance(head, dict) else {}, keys[1:], value, (*done, keys[0]))
                    if len(keys) > 1 else value)
    return out


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for k, v in extra.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _build(cls, raw: dict, prefix: str, source: str, keys_hint: str = "python -m training.config lists them all"):
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in raw.items():
        name = f"{prefix}{key}"
        if key not in fields:
            close = difflib.get_close_matches(str(key), list(fields), n=1)
            hint = f" Did you mean '{prefix}{close[0]}'?" if close else ""
            raise ConfigError(f"{source}: unknown key {name!r}.{hint} Known keys here: {', '.join(fields)} "
                              f"({keys_hint})")
        hint = hints[key]
        if dataclasses.is_dataclass(hint):
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {name!r} must be a mapping of keys, got {value!r}")
            kwargs[key] = _build(hint, value, f"{name}.", source, keys_hint)
        else:
            kwargs[key] = _check_type(value, hint, name, source, fields[key].metadata)
    return cls(**kwargs)


#: the largest integer a recipe's integer key takes: a signed 64-bit integer, what NumPy and torch count in
MAX_CONFIG_INT = 2**63 - 1


def _check_type(value, hint, name: str, source: str, meta) -> Any:
    origin = typing.get_origin(hint)
    bad = ConfigError(f"{source}: {name!r} must be {_describe(hint)}, got {value!r} ({type(value).__name__})")
    if origin is Literal:
        if value not in typing.get_args(hint):
            raise bad
        return value
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(value, list):
            raise bad
        if item is str:
            _refuse_empty_items(value, name, source)
        return [_check_type(v, item, f"{name}[{i}]", source, {}) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise bad
        item = typing.get_args(hint)[1]
        if item is Any:
            return dict(value)
        if item is str:
            _refuse_empty_items(value, name, source)
        return {k: _check_type(v, item, f"{name}[{k}]", source, meta) for k, v in value.items()}
    if hint is bool:
        if not isinstance(value, bool):
            raise bad
        return value
    if hint in (int, float) and isinstance(value, str):
        try:  # YAML 1.1 reads 2e5 (no dot) as a string
            value = float(value)
        except ValueError:
            raise bad from None
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():  # 2e5 in YAML
                value = int(value)
            else:
                raise bad
        if not -MAX_CONFIG_INT - 1 <= value <= MAX_CONFIG_INT:
            # YAML reads hundreds of digits: selfplay.window, ppo.torch_threads or ppo.n_steps of 10**400 loaded,
            # and the run ended in OverflowError or ValueError from deque, torch or NumPy once it had started
            raise ConfigError(f"{source}: {name!r} must be a 64-bit integer, from {-MAX_CONFIG_INT - 1} to "
                              f"{MAX_CONFIG_INT} (what NumPy and torch count in), got an integer of "
                              f"{len(str(abs(value)))} digits; use a smaller number")
    elif hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        try:
            value = float(value)
        except OverflowError:  # an int past the largest float: a traceback, not this message, named no key
            raise ConfigError(f"{source}: {name!r} must be a finite number, got an integer of {len(str(abs(value)))} "
                              "digits") from None
        if not math.isfinite(value):
            raise ConfigError(f"{source}: {name!r} must be a finite number, got {value!r}")
    elif hint is str:
        if value is None:  # `--set key=` and `key:` read as null in YAML
            raise ConfigError(f"{source}: {name!r} must be a string, got nothing; for the empty string write "
                              f"{name}: '' (or --set \"{name}=''\")")
        read = ("YAML 1.1 reads yes, no, on, off, true and false unquoted as true or false" if isinstance(value, bool)
                else "YAML reads a colon followed by a space or by the end as a mapping" if isinstance(value, dict)
                else None)  # `--set output.name=no`, `--set ppo.device=cuda:`
        if read and "[" not in name:
            raise ConfigError(f"{source}: {name!r} must be a string, got {value!r}: {read}; quote the string, e.g. "
                              f"--set \"{name}='...'\"")
        if not isinstance(value, str):
            raise bad
    if "min" in meta and value < meta["min"]:
        raise ConfigError(f"{source}: {name!r} must be >= {meta['min']}, got {value!r}")
    if "max" in meta and value > meta["max"]:
        raise ConfigError(f"{source}: {name!r} must be <= {meta['max']}, got {value!r}")
    return value


def _refuse_empty_items(value: list | dict, name: str, source: str) -> None:
    """A list or mapping of strings with an item left empty or written null is refused with an override that
    loads (the value less that item): the fix a string key gets, ``--set "eval.opponents[1]=''"``, is none."""
    import yaml

    pairs = list(enumerate(value)) if isinstance(value, list) else list(value.items())
    empty = [k for k, v in pairs if v is None]
    if not empty:
        return
    kept = [v for v in value if v is not None] if isinstance(value, list) else {k: v for k, v in pairs if v is not None}
    text = yaml.safe_dump(kept, default_flow_style=True, width=1 << 20).strip()
    raise ConfigError(f"{source}: '{name}[{empty[0]}]' must be a string, got nothing (an item left empty or written "
                      f"null); write it out, or leave it out as in --set \"{name}={text}\"")


def _describe(hint) -> str:
    origin = typing.get_origin(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(hint))
    if origin is list:
        inner = _describe(typing.get_args(hint)[0]).split(" ", 1)[-1]  # "mapping with string keys"
        noun, _, rest = inner.partition(" ")
        return f"a list of {noun}s{' ' + rest if rest else ''}"
    if origin is dict:
        item = typing.get_args(hint)[1]
        return "a mapping with string keys" + ("" if item is Any else f" and {_describe(item).split(' ', 1)[-1]} values")
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string"}.get(hint, str(hint))


def schema_markdown(schema: type | None = None) -> str:
    """The documented schema (``TrainConfig``'s unless another is given): key, type, default, meaning."""
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]

    def walk(cls, prefix):
        hints = typing.get_type_hints(cls)
        default = cls()
        for f in dataclasses.fields(cls):
            hint = hints[f.name]
            if dataclasses.is_dataclass(hint):
                walk(hint, f"{prefix}{f.name}.")
                continue
            rows.append(f"| `{prefix}{f.name}` | {_describe(hint)} | `{getattr(default, f.name)!r}` | "
                        f"{f.metadata['doc']} |")

    walk(schema or TrainConfig, "")
    return "\n".join(rows)


if __name__ == "__main__":
    from tabletop_envs.core.errors import lenient_stdout

    with lenient_stdout():
        print(schema_markdown())


#: what a run writes at the top of its folder besides its exported ``<output.name>.onnx/.npz/.json``
#: (the last three are training.main_job's report)
RUN_FILES = ("run.json", "pretrain.json", "distill.json", "distill", "summary.json", "history.json", "final_model.zip",
             "distilled_model.zip", "learning_curve.png", "checkpoints", "tb", "main_job.json", "main_job.md", "elo.png")
EXPORT_SUFFIXES = (".onnx", ".npz", ".json")


def check_output_name(name: str, run_files: tuple) -> None:
    """``output.name`` as a file stem that is not one of the run's own reports (``run_files``' JSON files):
    the sidecar and the report wrote over each other (summary.json left a model no loader reads, and
    run.json a run that --resume could not read back)."""
    check_file_stem(name, "output.name")
    reports = [Path(f).stem for f in run_files if f.endswith(".json")]
    if name.lower() in reports:  # (lower: a file system that ignores case)
        raise ConfigError(f"output.name {name!r} would write the exported sidecar over the run's own "
                          f"{name.lower()}.json (its reports: {', '.join(f'{r}.json' for r in reports)}); "
                          "choose another name, e.g. ppo")


def earlier_run_files(run_dir: Path, name: str, files: tuple = RUN_FILES, globs: tuple = ()) -> list[Path]:
    """What :func:`set_aside_earlier_run` would move (same arguments)."""
    names = {name}
    try:
        names.add(json.loads((run_dir / "run.json").read_text(encoding="utf-8"))["config"]["output"]["name"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no run.json, or not one of ours: this run's name is all there is to go by
    candidates = [run_dir / f for f in files] + sorted(p for g in globs for p in run_dir.glob(g))
    candidates += [run_dir / f"{n}{suffix}" for n in sorted(n for n in names if isinstance(n, str) and n)
                   for suffix in EXPORT_SUFFIXES]
    # an empty folder holds nothing to misread (and training.train's own run writes into it)
    return [p for p in candidates if p.is_file() or (p.is_dir() and any(p.iterdir()))]


def set_aside_earlier_run(run_dir: Path, name: str, files: tuple = RUN_FILES, globs: tuple = ()) -> Path | None:
    """A fresh run in a folder that holds an earlier run's files moves them into one ``before-<time>``
    folder there: this run would overwrite its model, sidecar and reports, and ``--resume``, the
    checkpoint selection and a resumed run's reports (pretrain.json) would read its leftovers as this
    run's. Nothing is deleted. ``name`` is this run's ``output.name``; the earlier run's is read from its
    run.json, so its exported policy moves too when the names differ. ``files`` and ``globs``: what a
    run of this trainer writes (the RLlib trainer's differ)."""
    found = earlier_run_files(run_dir, name, files, globs)
    if not found:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = run_dir / f"before-{stamp}"
    for n in itertools.count(2):
        if not target.exists():
            break
        target = run_dir / f"before-{stamp}-{n}"  # two fresh runs within the same second
    target.mkdir()
    for path in found:
        path.rename(target / path.name)
    print(f"{run_dir} held an earlier run's files: moved {', '.join(p.name for p in found)} to {target}",
          flush=True)
    return target


#: the file in a run folder that the run writing there holds locked (see :func:`run_folder_held`)
RUN_LOCK = "run.lock"


@contextlib.contextmanager
def run_folder_held(run_dir: Path):
    """While the block runs, no other run writes into ``run_dir``: the same command launched twice set the
    first run's files aside (``set_aside_earlier_run``) while it went on writing checkpoints and its model
    into the folder, so the two runs' files mixed there and ``--resume`` read the first run's as the second's.
    The lock is the kernel's on an open file, so a run that dies (SIGKILL, the OOM killer, a power cut)
    leaves none behind to clear by hand; the file itself stays, holding the last holder's pid."""
    make_output_folder(run_dir, "output.dir")
    path = run_dir / RUN_LOCK
    # "a": opening must not empty the pid of a holder this run is about to be refused by
    with open(path, "a+", encoding="utf-8") as fh:
        locked = _lock_file(fh)
        if locked is False:
            fh.seek(0)
            holder = fh.read(32).strip()
            raise ConfigError(f"another run (pid {holder or '?'}) is writing to {run_dir}; wait for it to end, or "
                              "pick another output.dir")
        if locked is None:  # a file system without locks must not stop every run there
            print(f"note: {run_dir} is on a file system without file locks: nothing stops a second run from "
                  "writing into it at the same time", flush=True)
        else:
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
        try:
            yield
        finally:
            if locked:
                _unlock_file(fh)


#: Windows locks byte ranges, and a locked byte cannot be read by another process: this one, past the pid, is
#: the lock
_WINDOWS_LOCK_OFFSET = 1 << 20


def _lock_file(fh) -> bool | None:
    """Lock ``fh`` for this process without waiting: True, False if another process holds it, None where the
    file system has no locks (ENOLCK, EOPNOTSUPP: some network and FUSE file systems)."""
    if sys.platform == "win32":  # no fcntl there; and the check tells mypy which module each branch has
        import msvcrt

        fh.seek(_WINDOWS_LOCK_OFFSET)
        try:
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return None
    return True


def _unlock_file(fh) -> None:
    if sys.platform == "win32":
        import msvcrt

        fh.seek(_WINDOWS_LOCK_OFFSET)
        msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
