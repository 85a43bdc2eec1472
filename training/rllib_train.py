"""Self-play PPO with action masking on Ray RLlib (new API stack), for any of our envs.

    python -m training.rllib_train --config configs/rllib_terralore.yaml
    python -m training.rllib_train --config configs/rllib_terralore.yaml --address auto   # existing cluster
    python -m training.rllib_train --config configs/rllib_terralore.yaml --set iterations=3 --set env_runners.num_env_runners=0
    python -m training.rllib_train --config configs/rllib_terralore.yaml --resume runs/rllib/terralore_v0-s0/checkpoint_00010
    python -m training.rllib_train --config configs/rllib_terralore.yaml --export-checkpoint runs/.../checkpoint_00010
    python -m training.rllib_train --keys   # every recipe key with its type, default and meaning

Every seat of the turn-based :class:`~tabletop_envs.rllib_adapter.TabletopMultiAgentEnv` is played
by one shared, trained module ``main`` (``selfplay.mode: shared``), or one seat per episode by
``main`` and the others by ``frozen``, a copy of ``main`` refreshed every
``selfplay.frozen_update_every`` iterations (``selfplay.mode: frozen``). Illegal actions are never
sampled: the module sets their logits to the float minimum, and the env raises on an illegal action.

Without ``--address`` (or ``ray.address``, or ``RAY_ADDRESS`` in the environment; ``local`` is local) the script
starts a local Ray of its own, limited to ``ray.num_cpus`` CPUs, and stops it at the end. Outputs in ``output.dir``: RLlib checkpoints (``checkpoint_<iter>/``), ``progress.jsonl``
(one line of metrics per iteration), ``run.json`` and the exported opponent ``<name>.onnx`` +
``.npz`` + ``.json``, the same format as ``training/export.py`` writes for SB3, so
``load_policy("<dir>/<name>.onnx")`` plays it.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import signal
import socket
import sys
import threading
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from tabletop_envs.core.arena import check_draw_reward
from tabletop_envs.core.errors import STOP_SIGNALS, ConfigError, TabletopError, run_cli
from tabletop_envs.core.files import write_text_whole
from training.config import (
    check_dir_template,
    check_folder_can_be_made,
    check_output_name,
    command_line,
    config_key,
    load_typed_config,
    resume_seed,
    run_folder_held,
    set_aside_earlier_run,
    user_path,
)
from training.evaluate import evaluation_lines
from training.train import interrupts_deferred, sigterm_as_interrupt

if TYPE_CHECKING:
    from tabletop_envs.core.onnx_policy import MLPPolicy, OnnxPolicy

REPO_ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------ config schema
@dataclass
class RayConfig:
    address: str = config_key("", "Ray cluster to join ('auto', 'ray://head:10001', 'head:6379'); '' joins RAY_ADDRESS "
                                  "where it is set, else starts a local Ray ('local' always does)")
    num_cpus: int = config_key(2, "CPUs of the local Ray the script starts (ignored with an address)", min=1)
    include_dashboard: bool = config_key(False, "start the Ray dashboard with the local Ray")


@dataclass
class EnvRunnersConfig:
    num_env_runners: int = config_key(1, "sampling actors (0 = sample in the driver process)", min=0)
    num_envs_per_env_runner: int = config_key(16, "envs stepped by each runner (batched forward passes)", min=1)
    num_cpus_per_env_runner: float = config_key(1.0, "CPUs reserved per runner", min=0)
    rollout_fragment_length: int = config_key(0, "env steps per runner per sample call (0 = 'auto': the train batch "
                                         "split evenly over the runners' envs)", min=0)
    sample_timeout_s: float = config_key(120.0, "seconds to wait for a runner's samples", min=1)


@dataclass
class LearnersConfig:
    num_learners: int = config_key(0, "learner actors (0 = learn in the driver process; 1 = one learner actor, e.g. on "
                                   "a GPU; more is refused: RLlib cannot split turn-based episodes between learners)",
                                   min=0)
    num_cpus_per_learner: float = config_key(1.0, "CPUs per learner actor", min=0)
    num_gpus_per_learner: float = config_key(0.0, "GPUs per learner actor", min=0)


@dataclass
class RLlibPPOConfig:
    train_batch_size_per_learner: int = config_key(2000, "env steps per learner per training iteration", min=2)
    minibatch_size: int = config_key(256, "SGD minibatch size", min=2)
    num_epochs: int = config_key(4, "passes over each train batch", min=1)
    lr: float = config_key(3e-4, "Adam step size", min=0)
    gamma: float = config_key(0.99, "discount", min=0, max=1)
    lambda_: float = config_key(0.95, "GAE lambda", min=0, max=1)
    clip_param: float = config_key(0.2, "PPO clip range", min=0)
    entropy_coeff: float = config_key(0.01, "entropy bonus", min=0)
    vf_loss_coeff: float = config_key(0.5, "value-loss weight", min=0)
    vf_clip_param: float = config_key(10.0, "value clip range (win/loss and Earth rank returns are in [-1, 1]; "
                                             "solo Earth returns the final VP and reward=vp_margin a VP margin: "
                                             "raise it to their scale, e.g. 500)", min=0)
    grad_clip: float = config_key(0.5, "global gradient-norm clip", min=0)


@dataclass
class ModelConfig:
    fcnet_hiddens: list[int] = config_key([128, 128], "hidden layer sizes of the policy (and value) MLP")
    fcnet_activation: Literal["tanh", "relu"] = config_key("tanh", "hidden activation; exported as-is")
    vf_share_layers: bool = config_key(False, "policy and value share the hidden layers")


@dataclass
class SelfPlayConfig:
    mode: Literal["shared", "frozen"] = config_key("shared", "'shared': every seat plays and trains 'main'; 'frozen': "
                                             "one seat per episode plays 'main', the others a frozen copy")
    frozen_update_every: int = config_key(5, "iterations between copies of 'main' into 'frozen' (mode frozen)", min=1)
    draw_reward: float = config_key(0.0, "added to every seat's reward when a game ends drawn (every seat's standing "
                                    "equal: a stalemate, a tie, a max_turns truncation), as the SB3 recipe's "
                                    "selfplay.draw_reward: below 0 a draw costs 'main', which pushes it to break "
                                    "opponents that stall; a max_turns cut then ends as terminated (its outcome, "
                                    "not bootstrapped past)", min=-1, max=1)


@dataclass
class RLlibEvalConfig:
    deterministic: bool = config_key(True, "ship (and evaluate, output.eval_games) the exported policy as masked argmax "
                                     "(true) or masked sampling (false); recorded in the sidecar's act as the "
                                     "loader's default, as training.train's eval.deterministic is")
    opponents: list[str] = config_key(["random", "heuristic"], "the anchors the exported policy plays output.eval_games "
                                      "games against at the end, as training.train's eval.opponents: names under the "
                                      "env ('random' -> '<env>/random'), policy ids or model paths; each is reported "
                                      "as vs_<anchor>")


@dataclass
class OutputConfig:
    dir: str = config_key("runs/rllib/{env}-s{seed}", "run folder; {env} and {seed} are filled in, and ~ is the "
                          "home folder")
    name: str = config_key("rllib_ppo", "file stem of the exported policy (letters, digits, _ and -)")
    checkpoint_every: int = config_key(10, "iterations between RLlib checkpoints (the last one is always saved)", min=1)
    export: bool = config_key(True, "export ONNX + npz + JSON sidecar of 'main' at the end")
    eval_games: int = config_key(0, "seat-rotated games of the exported policy against each of eval.opponents at the "
                                 "end (0 = skip)", min=0)


@dataclass
class RLlibTrainConfig:
    env: str = config_key("terralore_v0", "env name from the registry")
    env_kwargs: dict[str, Any] = config_key({}, "rule options / num_players / max_turns passed to the env")
    illegal_action: Literal["raise", "penalty", "random_legal"] = config_key(
        "raise", "what the env does with an illegal action ('raise': a masking bug stops the run)")
    seed: int = config_key(0, "seeds RLlib (torch, env runners)", min=0)
    iterations: int = config_key(20, "training iterations (each samples train_batch_size_per_learner steps)", min=1)
    ray: RayConfig = field(default_factory=RayConfig, metadata={"doc": "where Ray runs"})
    env_runners: EnvRunnersConfig = field(default_factory=EnvRunnersConfig, metadata={"doc": "sampling"})
    learners: LearnersConfig = field(default_factory=LearnersConfig, metadata={"doc": "learning"})
    ppo: RLlibPPOConfig = field(default_factory=RLlibPPOConfig, metadata={"doc": "PPO hyperparameters"})
    model: ModelConfig = field(default_factory=ModelConfig, metadata={"doc": "network"})
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig, metadata={"doc": "who plays the seats"})
    eval: RLlibEvalConfig = field(default_factory=RLlibEvalConfig, metadata={"doc": "how the export plays"})
    output: OutputConfig = field(default_factory=OutputConfig, metadata={"doc": "files"})

    def validate(self) -> RLlibTrainConfig:
        from tabletop_envs.core.registry import ENVS

        if self.env not in ENVS:
            raise ConfigError(f"env {self.env!r} is not a registered env; known: {sorted(ENVS)}")
        for key in ("illegal_action", "render_mode"):
            if key in self.env_kwargs:
                raise ConfigError(f"env_kwargs.{key} is set by the trainer; use the top-level key instead"
                                  if key == "illegal_action" else "env_kwargs.render_mode: no rendering in training")
        self._check_env_kwargs()
        if self.learners.num_learners > 1:
            # RLlib 2.60 slices each MultiAgentEpisode between data-parallel learners and refuses (or, with
            # unequal minibatch counts, deadlocks in DDP) when the seats' lookback buffers differ in length,
            # which they do in every turn-based episode cut between two sample calls.
            raise ConfigError(f"learners.num_learners {self.learners.num_learners}: use at most 1; RLlib cannot "
                              "split turn-based multi-agent episodes between data-parallel learners (the run fails "
                              "on its second iteration or hangs). Scale sampling with env_runners.num_env_runners, "
                              "and give the one learner a GPU with learners.num_gpus_per_learner=1")
        if self.ppo.minibatch_size > self.ppo.train_batch_size_per_learner:
            raise ConfigError(f"ppo.minibatch_size {self.ppo.minibatch_size} exceeds "
                              f"ppo.train_batch_size_per_learner {self.ppo.train_batch_size_per_learner}")
        if not self.model.fcnet_hiddens or any(h < 1 for h in self.model.fcnet_hiddens):
            raise ConfigError(f"model.fcnet_hiddens must be a non-empty list of positive sizes, "
                              f"got {self.model.fcnet_hiddens}")
        # RLlib seeds runner w's generators with seed + w, which NumPy takes only up to 2**32 - 1
        top = 2**32 - 1 - self.env_runners.num_env_runners
        if self.seed > top:
            raise ConfigError(f"seed {self.seed} is too large: RLlib adds each env runner's index to it and NumPy "
                              f"takes seeds up to 2**32 - 1, so with {self.env_runners.num_env_runners} runners it "
                              f"must be at most {top}")
        check_output_name(self.output.name, RLLIB_RUN_FILES)
        check_dir_template(self.output.dir, "output.dir", env=self.env, seed=self.seed)
        check_folder_can_be_made(self.run_dir(), "output.dir")
        return self

    def check_local_resources(self) -> None:
        """A local Ray (no address) must hold the actors the recipe asks for: Ray waits for CPUs or a GPU it
        will never have, silently and for ever."""
        er, ln = self.env_runners, self.learners
        wanted = er.num_env_runners * er.num_cpus_per_env_runner + ln.num_learners * ln.num_cpus_per_learner
        if wanted > self.ray.num_cpus:
            raise ConfigError(
                f"the recipe's actors need {wanted:g} CPUs ({er.num_env_runners} env runners x "
                f"{er.num_cpus_per_env_runner:g}" + (f" + {ln.num_learners} learner x {ln.num_cpus_per_learner:g}"
                                                       if ln.num_learners else "")
                + f") but the local Ray gets ray.num_cpus={self.ray.num_cpus}, and Ray would wait for them for ever: "
                f"raise ray.num_cpus, or lower env_runners.num_env_runners")
        if ln.num_gpus_per_learner > 0:
            import torch

            if torch.cuda.device_count() == 0:
                raise ConfigError(f"learners.num_gpus_per_learner={ln.num_gpus_per_learner:g} but this machine has no "
                                  "GPU torch can use: set it to 0, or join a cluster with GPUs (ray.address)")

    def _check_env_kwargs(self) -> None:
        """Build the env once here: the trainer builds it only inside Ray's env-runner actors, where a bad
        option surfaces as a Ray traceback after the cluster has started."""
        from tabletop_envs.core.registry import get_spec

        try:
            env = get_spec(self.env).load_module().raw_env(**self.env_kwargs, illegal_action=self.illegal_action)
        except (TabletopError, TypeError, ValueError) as exc:
            raise ConfigError(f"env_kwargs {self.env_kwargs!r} do not build {self.env}: {exc}") from None
        check_draw_reward(self.selfplay.draw_reward, env.game.num_players, self.env)
        if self.output.eval_games and env.game.num_players < 2:
            # alone at the table the policy "wins" every game, so the evaluation would report 100 %
            raise ConfigError(f"output.eval_games {self.output.eval_games}: {self.env} with 1 player has one seat, "
                              "so there is no opponent to evaluate against; set output.eval_games=0")
        if self.output.eval_games:
            from training.evaluate import anchor_keys, resolve_recipe_policy

            if not self.eval.opponents:
                raise ConfigError(f"output.eval_games {self.output.eval_games} but eval.opponents is empty: name the "
                                  "anchors to play (e.g. --set eval.opponents=[random,heuristic]) or set "
                                  "output.eval_games=0")
            anchor_keys(self.eval.opponents, "eval.opponents")
            for anchor in self.eval.opponents:  # here, not after the training (a game of one's own has no heuristic)
                resolve_recipe_policy("eval.opponents", anchor, self.env, env.game.config())

    def run_dir(self) -> Path:
        return user_path(self.output.dir.format(env=self.env, seed=self.seed))


def load_rllib_config(path: str | Path | None = None, overrides: list[str] | None = None,
                      data: dict | None = None) -> RLlibTrainConfig:
    """A validated config from a YAML file and/or a dict, then ``section.key=value`` overrides."""
    from training.config import TrainConfig

    return load_typed_config(RLlibTrainConfig, path, overrides, data, "RLlib recipes are configs/rllib_*.yaml",
                             keys_hint=KEYS_HINT,
                             other_tool=(TrainConfig, "a MaskablePPO recipe", "python -m training.train"))


KEYS_HINT = "python -m training.rllib_train --keys lists them all"

RAY_MISSING = ("training.rllib_train needs Ray RLlib, which is not installed ({}); install the distributed extra: "
               "pip install -e '.[distributed]' (from this checkout)")


#: the Ray releases the trainer is tested with (the distributed extra's pin, ray[rllib]>=2.50,<2.61)
TESTED_RAY = ((2, 50), (2, 60))


def untested_ray_note(version: str) -> str | None:
    """A note for a Ray outside :data:`TESTED_RAY`, None inside it: a Ray installed without the extra (into its
    own venv, on a cluster image) is not held to its pin, and RLlib's API changes between releases."""
    try:
        major_minor = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        major_minor = ()
    if len(major_minor) == 2 and TESTED_RAY[0] <= major_minor <= TESTED_RAY[1]:
        return None
    (lo_major, lo_minor), (hi_major, hi_minor) = TESTED_RAY
    return (f"note: ray {version} is outside the releases training.rllib_train is tested with "
            f"({lo_major}.{lo_minor}-{hi_major}.{hi_minor}); if RLlib fails below, install one of them: "
            f"pip install 'ray[rllib]=={hi_major}.{hi_minor}.0'")


def require_ray() -> None:
    """Ray RLlib is importable, or a one-line error that says how to install it; a Ray outside the tested
    releases is named in a note."""
    try:
        import ray
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        raise TabletopError(RAY_MISSING.format(exc)) from None
    note = untested_ray_note(str(getattr(ray, "__version__", "?")))
    if note and note not in _NOTED:  # once: the command line and train() both ask
        _NOTED.add(note)
        print(note, file=sys.stderr, flush=True)


_NOTED: set[str] = set()


# ------------------------------------------------------------------------------------ RLlib setup
def env_config(cfg: RLlibTrainConfig) -> dict:
    draws = {"draw_reward": cfg.selfplay.draw_reward} if cfg.selfplay.draw_reward else {}
    return {"env": cfg.env, **cfg.env_kwargs, "illegal_action": cfg.illegal_action, **draws}


def main_seat(episode_id: str, num_players: int) -> int:
    """The seat that 'main' plays in a frozen-mode episode: stable across processes (no hash())."""
    return zlib.crc32(str(episode_id).encode()) % num_players


def build_algo_config(cfg: RLlibTrainConfig, seed: int | None = None):
    """The PPOConfig of a recipe; ``seed`` (default: the recipe's) seeds torch and the env runners."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from tabletop_envs.rllib_adapter import MaskedPPOTorchRLModule, TabletopMultiAgentEnv

    model = DefaultModelConfig(fcnet_hiddens=list(cfg.model.fcnet_hiddens),
                               fcnet_activation=cfg.model.fcnet_activation,
                               vf_share_layers=cfg.model.vf_share_layers)
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model)
    if cfg.selfplay.mode == "shared":
        modules = {"main": spec}

        def policy_mapping_fn(agent_id, episode, **kwargs):
            return "main"
    else:
        from tabletop_envs.core.registry import make_game

        modules = {"main": spec, "frozen": spec}
        num_players = make_game(cfg.env, **_game_kwargs(cfg)).num_players

        def policy_mapping_fn(agent_id, episode, **kwargs):
            seat = int(str(agent_id).rsplit("_", 1)[-1])  # AEC seat names are player_<i>
            return "main" if seat == main_seat(episode.id_, num_players) else "frozen"

    er, ln, ppo = cfg.env_runners, cfg.learners, cfg.ppo
    config = (
        PPOConfig()
        .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
        # RLlib's env pre-check steps a random, unmasked action, which a masked env rightly refuses.
        .environment(TabletopMultiAgentEnv, env_config=env_config(cfg), disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=er.num_env_runners, num_envs_per_env_runner=er.num_envs_per_env_runner,
                     num_cpus_per_env_runner=er.num_cpus_per_env_runner,
                     rollout_fragment_length=er.rollout_fragment_length or "auto", sample_timeout_s=er.sample_timeout_s)
        .learners(num_learners=ln.num_learners, num_cpus_per_learner=ln.num_cpus_per_learner,
                  num_gpus_per_learner=ln.num_gpus_per_learner)
        .multi_agent(policies=set(modules), policy_mapping_fn=policy_mapping_fn, policies_to_train=["main"])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(train_batch_size_per_learner=ppo.train_batch_size_per_learner, minibatch_size=ppo.minibatch_size,
                  num_epochs=ppo.num_epochs, lr=ppo.lr, gamma=ppo.gamma, lambda_=ppo.lambda_,
                  clip_param=ppo.clip_param, entropy_coeff=ppo.entropy_coeff, vf_loss_coeff=ppo.vf_loss_coeff,
                  vf_clip_param=ppo.vf_clip_param, grad_clip=ppo.grad_clip)
        .debugging(seed=cfg.seed if seed is None else seed, log_level="WARN")
    )
    if cfg.illegal_action == "raise":
        # RLlib restarts a failed env runner by default, so the IllegalActionError stayed in the runner's
        # log while the run went on with no samples and exported an untrained policy
        config.fault_tolerance(restart_failed_env_runners=False)
    if cfg.selfplay.mode == "frozen":
        config.callbacks(on_train_result=_frozen_refresher(cfg.selfplay.frozen_update_every))
    return config


def _frozen_refresher(every: int):
    def on_train_result(*, algorithm, result, **kwargs):
        if algorithm.iteration % every == 0:
            copy_main_to_frozen(algorithm)
    return on_train_result


def copy_main_to_frozen(algorithm) -> None:
    """Freeze the current 'main' into 'frozen' on every learner and every env runner.

    Set directly on the runners: RLlib's ``sync_weights`` skips runners whose weights sequence number
    is already current, which it is right after a training step.
    """
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    def copy(learner):
        learner.module["frozen"].set_state(learner.module["main"].get_state())

    algorithm.learner_group.foreach_learner(copy)
    state = algorithm.learner_group.get_state(
        components=f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/main", inference_only=True,
    )[COMPONENT_LEARNER][COMPONENT_RL_MODULE]["main"]

    def set_frozen(runner):
        runner.module["frozen"].set_state(state)

    algorithm.env_runner_group.foreach_env_runner(set_frozen, local_env_runner=True)


#: what a run of this trainer writes into output.dir besides its export (set aside as one by a fresh run)
RLLIB_RUN_FILES = ("run.json", "progress.jsonl")
RLLIB_RUN_GLOBS = ("checkpoint_*", "progress.after-*.jsonl")


def ray_address(cfg: RLlibTrainConfig, address: str | None) -> str:
    """The cluster a run joins: ``--address``, else the recipe's ``ray.address``, else ``RAY_ADDRESS`` (as
    ``ray job submit`` sets it for its driver); "" (or "local") for a local Ray of this run's own."""
    chosen = address if address is not None else (cfg.ray.address or os.environ.get("RAY_ADDRESS", ""))
    return "" if chosen == "local" else chosen


def cannot_join(address: str, why: object) -> TabletopError:
    return TabletopError(f"cannot join the Ray cluster at {address!r} ({why}): start it first (ray start --head on the "
                         "head node, see docs/distributed.md) and pass its address, or run on a local Ray of this "
                         "run's own: drop --address and ray.address, and unset RAY_ADDRESS (or pass --address local)")


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """A ``host:port`` cluster address answers a connection within ``timeout`` seconds, or a TabletopError naming
    it: Ray retries one that does not (a typo in the head's IP) for minutes before it says so. Other forms
    ('auto', ``ray://`` client addresses) are left to Ray."""
    host, colon, port = address.rpartition(":")
    if not colon or "://" in address or not port.isdigit() or not host:
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        raise cannot_join(address, f"nothing answers there: {exc}") from None


def start_ray(cfg: RLlibTrainConfig, address: str | None):
    """Join ``address`` or start a local Ray limited to ``ray.num_cpus`` (workers import this checkout)."""
    import ray

    address = ray_address(cfg, address)
    if address:
        check_reachable(address)
        try:
            with sigterm_handler_kept():
                ray.init(address=address, log_to_driver=True)
        except ConnectionError as exc:  # e.g. 'auto' with no `ray start` on this machine: a traceback before
            raise cannot_join(address, exc) from None
        return
    pythonpath = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    # address="local": without it Ray joins the cluster that a `ray start` on this machine left running
    # (/tmp/ray/ray_current_cluster), and refuses num_cpus there with a ValueError
    with sigterm_handler_kept():
        ray.init(address="local", num_cpus=cfg.ray.num_cpus, include_dashboard=cfg.ray.include_dashboard,
                 runtime_env={"env_vars": {"PYTHONPATH": pythonpath}}, log_to_driver=True)


@contextlib.contextmanager
def sigterm_handler_kept():
    """``ray.init`` replaces the driver's SIGTERM handler with Ray's, which exits at once with status 15 and not a
    word: the command's own (its stop as Ctrl-C, :func:`~training.train.sigterm_as_interrupt`) is put back, so a
    SIGTERM while the run starts, exports or evaluates (outside the iterations, where the run stops after the one
    under way) ends it as Ctrl-C does, with ``interrupted`` and status 130, as ``training.train`` ends then. The
    default handler is left to Ray: its exit shuts Ray down, where the default's left Ray's processes behind."""
    before = signal.getsignal(signal.SIGTERM)
    try:
        yield
    except SystemExit as exc:
        # Ray's handler took a SIGTERM while ray.init ran (it is in place from init's first lines, and Ray
        # takes seconds to start): it goes to the handler Ray's replaced, which ends the command as one after does
        if exc.code == signal.SIGTERM and callable(before):
            before(signal.SIGTERM, None)
        raise
    finally:
        if before not in (signal.SIG_DFL, None) and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, before)


# ------------------------------------------------------------------------------------ metrics
def _get(result: dict, *path, default=None):
    for key in path:
        if not isinstance(result, dict) or key not in result:
            return default
        result = result[key]
    return result


def iteration_metrics(result: dict) -> dict:
    """The few numbers worth a line per iteration (RLlib's result dict holds hundreds)."""
    runners = result.get("env_runners", {})
    metrics = {
        "iteration": result.get("training_iteration"),
        "env_steps_sampled": _get(result, "env_runners", "num_env_steps_sampled_lifetime"),
        "env_steps_this_iter": _get(result, "env_runners", "num_env_steps_sampled"),
        "episodes": _get(result, "env_runners", "num_episodes_lifetime"),
        "episode_len_mean": runners.get("episode_len_mean"),
        "module_return_mean": runners.get("module_episode_returns_mean"),
        "sample_time_s": _get(result, "timers", "env_runner_sampling_timer"),
        "iteration_time_s": result.get("time_this_iter_s"),
    }
    return {k: _plain(v) for k, v in metrics.items()}


def _plain(value):
    """JSON-safe numbers (RLlib reports numpy scalars and per-module dicts)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "item"):
        return value.item()
    return value


# ------------------------------------------------------------------------------------ export
def trained_module(algorithm, module_id: str = "main"):
    """A copy of the env runners' module ``module_id`` holding the learners' current weights.

    The learners hold the authoritative weights (local or remote); the env runners' copy only
    supplies the inference-only architecture.
    """
    import copy

    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    state = algorithm.learner_group.get_state(
        components=f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{module_id}", inference_only=True,
    )[COMPONENT_LEARNER][COMPONENT_RL_MODULE][module_id]
    module = copy.deepcopy(algorithm.get_module(module_id))
    module.set_state(state)
    return module


def module_mlp_weights(module) -> tuple[list, str]:
    """The logits path of ``MaskedPPOTorchRLModule`` (actor encoder MLP + pi head) as ``[(W, b), ...]``.

    Refuses any layer a plain MLP cannot express, so the numpy/ONNX policy cannot silently differ.
    """
    from .export import layer_weights, linear_layers

    encoder = module.encoder.actor_encoder if hasattr(module.encoder, "actor_encoder") else module.encoder.encoder
    linears, activation = linear_layers(encoder, module.pi, check_chain=False)  # compared below
    return layer_weights(linears), activation or "tanh"


def reproduce_command(cfg: RLlibTrainConfig, argv: list[str] | None = None) -> str:
    """The sidecar's ``training.command``: the command line used (``argv``, less ``--resume``: the run it
    continues is the same run), or, for a ``train()`` called from Python, the recipe written out."""
    if argv is None:
        return f"python -m training.rllib_train  # config {asdict(cfg)}"
    return command_line("training.rllib_train", argv, "--resume", drop_value=True)


def export_module(module, out_stem: str | Path, cfg: RLlibTrainConfig, steps: int, iterations: int,
                  command: str | None = None) -> Path:
    """Write the trained module as ``<out_stem>.onnx`` + ``.npz`` + ``.json`` via ``training.export``.

    Checks that the numpy MLP reproduces the module's logits before writing anything.
    """
    import numpy as np
    import ray
    import torch

    from tabletop_envs.core.onnx_policy import MLPPolicy
    from tabletop_envs.core.registry import make_game
    from training.export import export_policy

    weights, activation = module_mlp_weights(module)
    game = make_game(cfg.env, **_game_kwargs(cfg))
    probe = np.stack([game.new_initial_state(s).observation(0) for s in range(8)])
    with torch.no_grad():
        expected = module.logits_torch(torch.from_numpy(probe)).numpy()
    got = MLPPolicy(weights, activation).logits(probe)
    if not np.allclose(expected, got, atol=1e-4, rtol=1e-4):
        raise RuntimeError(f"exported MLP logits differ from the RLlib module's by up to "
                           f"{np.abs(expected - got).max():.3g}; the module has layers the export does not know")
    training = {"algorithm": "rllib-ppo", "framework": f"ray[rllib]=={ray.__version__}", "steps": int(steps),
                "iterations": int(iterations), "seed": cfg.seed, "selfplay": cfg.selfplay.mode,
                "command": command or reproduce_command(cfg)}
    return export_policy(weights, activation, out_stem, cfg.env, _game_kwargs(cfg), training=training,
                         name=Path(out_stem).name, deterministic=cfg.eval.deterministic)


def act_of(cfg: RLlibTrainConfig) -> str:
    """The sidecar's ``act`` of the recipe's export."""
    return "argmax" if cfg.eval.deterministic else "sample"


def _game_kwargs(cfg: RLlibTrainConfig) -> dict:
    """The env kwargs that rebuild the game (the AEC-only ones removed)."""
    return {k: v for k, v in cfg.env_kwargs.items() if k not in ("max_turns", "illegal_action", "render_mode")}


# ------------------------------------------------------------------------------------ main
def train(cfg: RLlibTrainConfig, address: str | None = None, log=print, resume: str | Path | None = None,
          command: str | None = None) -> dict:
    """Run the whole recipe; returns a summary (run dir, checkpoint, exported model, metrics per iteration).

    ``resume``: an RLlib checkpoint of this recipe; training continues from its iteration up to
    ``iterations`` in total. Called from the main thread, Ctrl-C, SIGTERM or SIGHUP (over any handler of the
    caller's, which is put back after) stops the run once the iteration under way has ended: the summary then
    says ``"interrupted": True``; a second one raises KeyboardInterrupt.
    """
    with contextlib.ExitStack() as held:
        return _train(cfg, address, log, resume, command, held)


def _train(cfg: RLlibTrainConfig, address: str | None, log, resume: str | Path | None, command: str | None,
           held: contextlib.ExitStack) -> dict:
    require_ray()
    import ray

    if not ray_address(cfg, address) and not ray.is_initialized():
        cfg.check_local_resources()  # before an earlier run's files are set aside below
    run_dir = cfg.run_dir().resolve()
    if resume is not None:
        # all before run.json below is rewritten, maybe the checkpoint's own
        done = checkpoint_iteration(resume)
        check_checkpoint_game(cfg, resume)
        check_checkpoint_network(cfg, resume)
        check_checkpoint_loads(resume)
        if Path(resume).resolve().parent == run_dir:
            check_no_later_checkpoints(run_dir, Path(resume).resolve(), done)
        if done >= cfg.iterations:
            raise ConfigError(f"{resume} is at iteration {done} and the recipe trains to iterations={cfg.iterations}: "
                              f"nothing left to train; raise the total, e.g. --set iterations={done + 10}")
        # RLlib restores the lifetime step count with the checkpoint: the first iteration compares with it
        # (unknown, 0, for a checkpoint without its run's progress.jsonl)
        steps_before = _steps_at(Path(resume).resolve().parent, done) or None
    else:
        steps_before = None
    # The env runners deal from the seed they are built with: a resumed run seeded like the first part
    # would deal the first part's games again.
    seed = cfg.seed if resume is None else resume_seed(cfg.seed, done)
    held.enter_context(run_folder_held(run_dir))  # as training.train's: the same command launched twice
    # Ray before anything of an earlier run moves: a cluster that cannot be joined stops the run there
    if not ray.is_initialized():
        start_ray(cfg, address)
        held.callback(ray.shutdown)  # after the algorithm has stopped (the finally below)
    if resume is None or Path(resume).resolve().parent != run_dir:
        # A fresh run appended to an earlier run's progress.jsonl beside its checkpoints; a run resumed from
        # another folder's checkpoint (an earlier run set aside, a copy) overwrote the run that output.dir holds.
        set_aside_earlier_run(run_dir, cfg.output.name, files=RLLIB_RUN_FILES, globs=RLLIB_RUN_GLOBS)
    else:
        set_aside_progress_after(run_dir / "progress.jsonl", done, log)
    # whole or not at all: a resume reads it back to check the game (check_checkpoint_game)
    write_text_whole(run_dir / "run.json", json.dumps({"env": cfg.env, "game_config": _game_kwargs(cfg),
                                                       "config": asdict(cfg)}, indent=2) + "\n")
    algo = None
    history: list[dict] = []
    summary: dict = {"run_dir": str(run_dir), "sampling_seed": seed}
    try:
        algo = build_algo_config(cfg, seed).build_algo()
        if resume is not None:
            with checkpoint_read(resume):
                algo.restore_from_path(str(Path(resume).resolve()))
            log(f"resumed from {resume} at iteration {algo.iteration} (sampling seed {seed})")
            if cfg.selfplay.mode == "frozen" and not checkpoint_has_module(resume, "frozen"):
                # A selfplay.mode=shared run saved no 'frozen'; left as built it would be an untrained
                # opponent until its first refresh. A fresh frozen run starts it as a copy of 'main'.
                copy_main_to_frozen(algo)
                log("the checkpoint holds no 'frozen' module (a selfplay.mode=shared run): 'frozen' starts as "
                    "a copy of the resumed 'main'")
        elif cfg.selfplay.mode == "frozen":
            copy_main_to_frozen(algo)
        summary["interrupted"] = False
        with open(run_dir / "progress.jsonl", "a", encoding="utf-8") as progress, stop_after_the_iteration() as stop:
            for it in range(algo.iteration + 1, cfg.iterations + 1):
                t0 = time.perf_counter()
                try:
                    result = algo.train()
                except Exception as exc:
                    if stop.signum is not None:
                        raise stopped_mid_iteration(it, summary.get("checkpoint"), log, exc) from exc
                    if isinstance(exc, ray.exceptions.RayActorError):  # restarts are off where illegal actions must stop
                        raise TabletopError(f"iteration {it}: an env runner died ({type(exc).__name__}); its own error, "
                                            "e.g. the IllegalActionError of a masking bug, is in the log above") from exc
                    raise
                metrics = iteration_metrics(result)
                metrics["wall_s"] = time.perf_counter() - t0
                before = history[-1]["env_steps_sampled"] if history else steps_before
                if not metrics["env_steps_sampled"] or metrics["env_steps_sampled"] == before:
                    if stop.signum is not None:
                        raise stopped_mid_iteration(it, summary.get("checkpoint"), log)
                    raise TabletopError(f"iteration {it} sampled no env steps: an env runner failed (its error is in "
                                       "the log above) or took longer than env_runners.sample_timeout_s; the run "
                                       "stops rather than export a policy trained on nothing")
                history.append(metrics)
                progress.write(json.dumps(metrics) + "\n")
                progress.flush()
                log(f"iter {it:4d}  env steps {metrics['env_steps_sampled']}  "
                    f"episodes {metrics['episodes']}  len {_fmt(metrics['episode_len_mean'])}  "
                    f"{metrics['wall_s']:.1f}s")
                # read once before the checkpoint and once after it: a signal that landed between two reads stopped
                # the run without this iteration's checkpoint (its line named an older one, or none: a NameError)
                stopping = stop.signum is not None and it < cfg.iterations
                if it % cfg.output.checkpoint_every == 0 or it == cfg.iterations or stopping:
                    with interrupts_deferred():  # an abort lands once the checkpoint is whole, not half written
                        checkpoint = algo.save_to_path(str(run_dir / f"checkpoint_{it:05d}"))
                    summary["checkpoint"] = str(checkpoint)
                    stopping = stop.signum is not None and it < cfg.iterations  # one while it was written stops here
                if stopping:
                    summary["interrupted"] = True
                    log(f"stopped after iteration {it} of {cfg.iterations}: {checkpoint} saved"
                        f"{', exporting' if cfg.output.export else ''}; --resume {checkpoint} continues the run")
                    break
        steps = int(history[-1]["env_steps_sampled"] or 0) if history else _steps_at(run_dir, algo.iteration)
        summary["env_steps"] = steps
        if cfg.output.export:
            module = trained_module(algo, "main")
            path = export_module(module, run_dir / cfg.output.name, cfg, steps, algo.iteration, command)
            summary["model"] = str(path)
            log(f"exported {path} (+ .npz, .json; act {act_of(cfg)}, from eval.deterministic)")
            if cfg.output.eval_games:
                summary["evaluation"] = evaluate_export(cfg, path, cfg.output.eval_games)
                for line in evaluation_lines(summary["evaluation"]):
                    log(line)
        elif cfg.output.eval_games:
            log(f"note: output.export=false, so the output.eval_games={cfg.output.eval_games} games against "
                f"{', '.join(cfg.eval.opponents)} (played by the exported policy) did not run")
    finally:
        if algo is not None:
            algo.stop()
    summary["history"] = history
    return summary


def checkpoint_iteration(checkpoint: str | Path) -> int:
    """The training iteration an RLlib checkpoint was saved at, read from its algorithm state."""
    import pickle

    path = Path(checkpoint)
    try:
        meta = json.loads((path / "rllib_checkpoint.json").read_text(encoding="utf-8"))
        with open(path / f"{meta.get('state_file', 'algorithm_state')}.pkl", "rb") as f:
            return int(pickle.load(f)["training_iteration"])
    except (OSError, ValueError, KeyError, TypeError, pickle.UnpicklingError) as exc:
        raise ConfigError(f"{path} is not an RLlib algorithm checkpoint of this recipe ({exc}); pass a "
                          "checkpoint_<iteration> folder of a run") from exc


@contextlib.contextmanager
def checkpoint_read(checkpoint: str | Path):
    """A damaged checkpoint (a file cut short by a full disk or a copy) is a ConfigError naming it: RLlib's
    restore met it as a bare UnpicklingError traceback."""
    import pickle

    try:
        yield
    except (OSError, EOFError, pickle.UnpicklingError) as exc:  # not a ValueError: a state-dict mismatch is one
        raise ConfigError(f"{checkpoint} cannot be read ({type(exc).__name__}: {exc}); it is damaged or incomplete: "
                          "pass another checkpoint_<iteration> folder of the run") from None


def check_checkpoint_loads(checkpoint: str | Path) -> None:
    """Every state file of ``checkpoint`` unpickles, checked before anything of the run is written and before
    Ray starts (a restore met a damaged one only then)."""
    import pickle

    for path in sorted(Path(checkpoint).rglob("*.pkl")):
        with checkpoint_read(path), open(path, "rb") as f:
            try:
                pickle.load(f)
            except (OSError, EOFError, pickle.UnpicklingError):
                raise
            except Exception as exc:  # a byte changed inside: any error of unpickling (an unknown module, ...)
                raise pickle.UnpicklingError(f"{type(exc).__name__}: {exc}") from None


def _checkpoint_number(folder: Path) -> int | None:
    suffix = folder.name.rsplit("_", 1)[-1]
    return int(suffix) if folder.name.startswith("checkpoint_") and suffix.isdigit() else None


def check_no_later_checkpoints(run_dir: Path, checkpoint: Path, done: int) -> None:
    """A run resumed from an earlier checkpoint of its folder would write its own checkpoints over the later
    ones there (and add a second row for each iteration to progress.jsonl)."""
    later = sorted(p.name for p in run_dir.glob("checkpoint_*")
                   if p.is_dir() and p != checkpoint and (_checkpoint_number(p) or 0) > done)
    if later:
        raise ConfigError(f"{run_dir} holds {', '.join(later)}, saved after {checkpoint.name} (iteration {done}): "
                          "resuming from it would overwrite them; resume from the latest checkpoint, or continue "
                          "into another folder with --set output.dir=<folder> (the run there is set aside)")


def set_aside_progress_after(progress: Path, done: int, log=print) -> None:
    """A run resumed in place from checkpoint ``done`` continues from there: the rows of the iterations after it
    (a run that stopped between checkpoints) move to ``progress.after-<done>.jsonl``, so progress.jsonl does
    not hold two rows for one iteration."""
    if not progress.is_file():
        return
    text = progress.read_text(encoding="utf-8")
    kept: list[str] = []
    after: list[str] = []
    for line in text.splitlines():
        try:
            iteration = json.loads(line).get("iteration")
        except (ValueError, AttributeError):
            iteration = None
        (after if isinstance(iteration, int) and iteration > done else kept).append(line)
    if after:
        aside = progress.with_name(f"progress.after-{done}.jsonl")
        for n in itertools.count(2):  # a file of its own: rows of another abandoned part are not this one's
            if not aside.exists():
                break
            aside = progress.with_name(f"progress.after-{done}-{n}.jsonl")
        write_text_whole(aside, "".join(line + "\n" for line in after))
        write_text_whole(progress, "".join(line + "\n" for line in kept))
        log(f"{progress.name} held {len(after)} rows of iterations after the checkpoint's {done}: moved to {aside.name}")
    elif text and not text.endswith("\n"):
        # a row cut short by a crash: the resumed run's first row must start a line of its own, not end that one
        write_text_whole(progress, text + "\n")


def _steps_at(run_dir: Path, iteration: int) -> int:
    """Env steps sampled up to ``iteration``, from the run's progress.jsonl (0 when unknown)."""
    progress = run_dir / "progress.jsonl"
    steps = 0
    if progress.exists():
        for line in progress.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:  # a row cut short by a crash: skipped, as set_aside_progress_after does
                continue
            if row.get("iteration") == iteration and row.get("env_steps_sampled") is not None:
                steps = int(row["env_steps_sampled"])
    return steps


def _same_game(trained: tuple, cfg: RLlibTrainConfig) -> bool:
    """The same game with every option filled in: ``{}`` and the defaults written out are one game."""
    from tabletop_envs.core.onnx_policy import _full_config

    env, options = trained
    if env != cfg.env or not isinstance(options, dict):
        return False
    try:
        return _full_config(env, options) == _full_config(cfg.env, _game_kwargs(cfg))
    except (TabletopError, TypeError, ValueError):  # options this version does not take: another game
        return False


def check_checkpoint_game(cfg: RLlibTrainConfig, checkpoint: str | Path) -> None:
    """The recipe builds the game the checkpoint's run trained on: its ``run.json``, or without one
    (a checkpoint copied out of its run folder) the env config the checkpoint itself holds.

    The layouts of Earth's table sizes (and of other rule options) are the same, so neither RLlib's
    restore, the export's shape check nor load_policy would notice weights trained for another game.
    """
    checkpoint = Path(checkpoint).resolve()
    run_json = checkpoint.parent / "run.json"
    if run_json.is_file():
        try:
            run = json.loads(run_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # (the JSON error alone named no file)
            raise ConfigError(f"{run_json}, beside the checkpoint, cannot be read ({exc}); it records the game the "
                              "run trained on: restore it from a copy") from None
        if not isinstance(run, dict):
            raise ConfigError(f"{run_json}, beside the checkpoint, is no run record (a JSON object with env, "
                              "game_config and config, as training.rllib_train writes it): restore it from a copy")
        trained, source = (run.get("env"), run.get("game_config")), str(run_json)
    else:
        args = _checkpoint_ctor_args(checkpoint, "class_and_ctor_args.pkl")[0]  # (the algorithm's config,)
        env_cfg = dict(args[0].get("env_config") or {}) if args and isinstance(args[0], dict) else {}
        if not isinstance(env_cfg.get("env"), str):
            raise ConfigError(f"{checkpoint} is an RLlib checkpoint of another trainer (its env config names no "
                              "registered env); pass a checkpoint_<iteration> folder of a training.rllib_train run")
        trained = (env_cfg.pop("env"), {k: v for k, v in env_cfg.items()
                                        if k not in ("max_turns", "illegal_action", "render_mode", "draw_reward")})
        source = f"its own env config; there is no {run_json.name} beside it"
    if not _same_game(trained, cfg):
        raise ConfigError(f"{checkpoint} was trained with game_config {json.dumps(trained[1])} of {trained[0]} "
                          f"({source}), but the recipe gives {cfg.env} with {json.dumps(_game_kwargs(cfg))}; "
                          "pass the --config and --set options the run was started with")


def check_checkpoint_network(cfg: RLlibTrainConfig, checkpoint: str | Path) -> None:
    """The recipe builds the network that module 'main' of the checkpoint holds: ``--resume`` is refused
    here, in one line, instead of by torch's state-dict shape mismatch after Ray has started."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE

    from tabletop_envs.core.registry import make_game

    checkpoint = Path(checkpoint).resolve()
    kwargs = _checkpoint_ctor_args(checkpoint, COMPONENT_LEARNER_GROUP, COMPONENT_LEARNER, COMPONENT_RL_MODULE,
                                   "main", "class_and_ctor_args.pkl")[1]
    try:
        sizes = (int(kwargs["observation_space"]["observations"].shape[0]), int(kwargs["action_space"].n))
        model = {key: kwargs["model_config"][key] for key in ("fcnet_hiddens", "fcnet_activation", "vf_share_layers")}
    except (KeyError, TypeError, AttributeError, IndexError):
        raise ConfigError(f"{checkpoint}: module 'main' is not a network of this trainer; pass a "
                          "checkpoint_<iteration> folder of a training.rllib_train run") from None
    game = make_game(cfg.env, **_game_kwargs(cfg))
    if sizes != (game.observation_layout.size, game.num_actions):
        raise ConfigError(f"{checkpoint} holds a network of {sizes[0]} observations and {sizes[1]} actions, but "
                          f"{cfg.env} has {game.observation_layout.size} and {game.num_actions}: it was trained on "
                          "another game or layout version and cannot be resumed; start a fresh run without --resume")
    model["fcnet_hiddens"] = list(model["fcnet_hiddens"])
    differ = {k: v for k, v in model.items() if getattr(cfg.model, k) != v}
    if differ:
        def text(value):  # as --set reads it, without a space the shell would split at
            return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))

        theirs = ", ".join(f"{k}={text(v)}" for k, v in differ.items())
        ours = ", ".join(f"{k}={text(getattr(cfg.model, k))}" for k in differ)
        sets = " ".join(f"--set model.{k}={text(v)}" for k, v in differ.items())
        raise ConfigError(f"{checkpoint} holds a network with {theirs}, but the recipe builds {ours}; resume with "
                          f"{sets} (the options its run was started with)")


def checkpoint_has_module(checkpoint: str | Path, module_id: str) -> bool:
    """Whether the learner state of an RLlib checkpoint holds module ``module_id``."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE

    return (Path(checkpoint) / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE / module_id).is_dir()


def _checkpoint_ctor_args(checkpoint: Path, *parts: str):
    """``(args, kwargs)`` an RLlib checkpoint's component under ``parts`` was built with (read, never written)."""
    import pickle

    path = checkpoint.joinpath(*parts)
    try:
        with open(path, "rb") as f:
            return pickle.load(f)["ctor_args_and_kwargs"]
    except (OSError, KeyError, TypeError, ImportError, AttributeError, pickle.UnpicklingError) as exc:
        raise ConfigError(f"{checkpoint} is not an RLlib checkpoint of this trainer ({path.name}: {exc}); pass a "
                          "checkpoint_<iteration> folder of a training.rllib_train run") from None


def export_checkpoint(cfg: RLlibTrainConfig, checkpoint: str | Path, out_stem: str | Path | None = None,
                      command: str | None = None) -> Path:
    """Export module 'main' of an RLlib checkpoint (no Ray cluster needed), e.g. after a crashed run."""
    require_ray()
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE
    from ray.rllib.core.rl_module.rl_module import RLModule

    checkpoint = Path(checkpoint).resolve()
    module_dir = checkpoint / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE / "main"
    if not module_dir.is_dir():
        raise FileNotFoundError(f"{checkpoint} is not an RLlib checkpoint of this trainer: {module_dir} is missing")
    check_checkpoint_game(cfg, checkpoint)
    check_checkpoint_loads(module_dir)  # names the damaged file
    with checkpoint_read(checkpoint):
        module = RLModule.from_checkpoint(str(module_dir))
    iteration = _checkpoint_number(checkpoint) or 0
    steps = _steps_at(checkpoint.parent, iteration)
    out_stem = Path(out_stem) if out_stem else checkpoint.parent / f"{cfg.output.name}_{checkpoint.name}"
    return export_module(module, out_stem, cfg, steps, iteration, command)


def evaluate_export(cfg: RLlibTrainConfig, model_path: Path, games: int) -> dict:
    """The exported policy's rates against each of ``eval.opponents`` (:func:`~training.evaluate.anchor_evaluation`:
    ``{"vs_random": {...}, "vs_heuristic": {...}, "protocol": ...}``), also written into its sidecar, where
    ``training.train``'s exports hold theirs (the model card reads them from there). Before 2026-12-08 only random
    was played, so an RLlib-trained agent had no rate against the heuristic bot to compare with the SB3 recipes'."""
    from tabletop_envs.core.policy import load_policy

    from .evaluate import anchor_evaluation
    from .export import update_sidecar

    # a model path loads a model policy, which carries its sidecar as metadata
    policy = cast("MLPPolicy | OnnxPolicy", load_policy(str(model_path)))
    # pairwise, as training.train's evaluations play theirs: at more than two seats the model wins a game when
    # it ranks above the anchor it is paired with (every other seat random), not only when it finishes alone on
    # top, which even play wins about 1 in n times; the same games as a match at two seats
    evaluation = anchor_evaluation(cfg.env, policy, games, seed=cfg.seed + 1, anchors=cfg.eval.opponents,
                                   game_kwargs=_game_kwargs(cfg), max_turns=cfg.env_kwargs.get("max_turns"),
                                   act=policy.metadata["act"])
    update_sidecar(model_path, evaluation=evaluation)
    return evaluation


class StopRequest:
    """The stop signal a run received (``signum``), None while it goes on."""

    def __init__(self) -> None:
        self.signum: int | None = None


@contextlib.contextmanager
def stop_after_the_iteration():
    """Ctrl-C, SIGTERM (a batch scheduler's time limit or pre-emption, ``kill``) or SIGHUP (a terminal that closed)
    asks the run to stop once the iteration under way has ended: it then saves a checkpoint and exports, as
    ``training.train`` stops. A second one aborts at once. Before, Ctrl-C ended the run on the spot and Ray's own
    SIGTERM handler exited the driver (status 15), each losing every iteration since the last checkpoint
    (``output.checkpoint_every``, 10 by default) and the export. An iteration is waited for, not cut short: cut
    in the driver's update, the module's layers would be saved half stepped. Only in the main thread; a signal
    ignored (``nohup``'s SIGHUP) stays ignored."""
    request = StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return

    def ask(signum, frame):
        if request.signum is not None:
            raise KeyboardInterrupt
        request.signum = signum
        # os.write: a print here could land inside another print to the same stream, which Python refuses
        with contextlib.suppress(OSError):
            os.write(2, f"\n{signal.Signals(signum).name}: the run stops once this iteration has ended, then saves a "
                        "checkpoint and exports (interrupt again to abort)\n".encode())

    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    for sig, handler in previous.items():
        if handler not in (signal.SIG_IGN, None):
            signal.signal(sig, ask)
    try:
        yield request
    finally:
        for sig, handler in previous.items():
            if handler is not None:
                signal.signal(sig, handler)


def stopped_mid_iteration(it: int, checkpoint: str | None, log, error: Exception | None = None) -> KeyboardInterrupt:
    """A stop signal that also reached the env runners (a scheduler's SIGTERM to every process of the job) ended
    iteration ``it`` before it finished: nothing of it is saved, and the last checkpoint is where to resume. The
    iteration's own error is named, in case it was not the signal's doing."""
    where = (f"--resume {checkpoint} continues the run from there" if checkpoint else
             "no checkpoint had been saved yet (output.checkpoint_every)")
    first_line = (str(error).strip().splitlines() or [""])[0][:200] if error is not None else ""
    why = f" ({type(error).__name__}{': ' + first_line if first_line else ''})" if error is not None else ""
    with contextlib.suppress(OSError):
        log(f"stopped during iteration {it}: the env runners ended with the signal{why}, so it was not saved; "
            f"{where}")
    return KeyboardInterrupt()


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.1f}"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--config", help="YAML recipe, e.g. configs/rllib_terralore.yaml (required)")
    parser.add_argument("--address", default=None,
                        help="join an existing Ray cluster ('auto' on a cluster node, or head-ip:6379; 'local' for a "
                             "local Ray); default: the recipe's ray.address, else RAY_ADDRESS, else a local Ray")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override one config key, e.g. --set iterations=3")
    parser.add_argument("--resume", metavar="CHECKPOINT",
                        help="continue from an RLlib checkpoint of this recipe (checkpoints are pickles: loading "
                             "one runs any code it holds, so give only your own or trusted ones)")
    parser.add_argument("--export-checkpoint", metavar="CHECKPOINT",
                        help="only export module 'main' of this checkpoint (no training, no Ray cluster; a pickle, as "
                             "for --resume)")
    parser.add_argument("--keys", action="store_true",
                        help="print every recipe key with its type, default and meaning, and exit")
    args = parser.parse_args(argv)
    if args.keys:
        from training.config import schema_markdown

        print(schema_markdown(RLlibTrainConfig))
        return {}
    if not args.config:
        parser.error("the following arguments are required: --config")
    cfg = load_rllib_config(args.config, args.set)  # a recipe's mistakes are reported with or without ray
    require_ray()
    command = reproduce_command(cfg, sys.argv[1:] if argv is None else argv)
    # a SIGTERM or SIGHUP outside the iterations (Ray starting, the export, the evaluation) ends the command as
    # Ctrl-C does, with its status 130: Ray's SIGTERM handler exited with 15 and a SIGHUP killed the driver, leaving
    # Ray's agent processes running
    with sigterm_as_interrupt():
        if args.export_checkpoint:
            path = export_checkpoint(cfg, user_path(args.export_checkpoint), command=command)
            print(f"wrote {path} (+ .npz, .json; act {act_of(cfg)}, from eval.deterministic)")
            return {"model": str(path)}
        summary = train(cfg, args.address, resume=user_path(args.resume) if args.resume else None, command=command)
    print(json.dumps({k: v for k, v in summary.items() if k != "history"}, indent=2))
    return summary


def cli() -> None:
    """Console-script entry point: an error of the arguments or the recipe ends it in one line. A run stopped
    early (Ctrl-C, SIGTERM, SIGHUP) ends, once it has saved a checkpoint and exported, with the interrupt's
    status 130, as ``training.train`` ends one: a script's next step and a retry loop see it did not finish."""
    stopped = []

    def run(argv: list[str] | None) -> None:
        stopped.append(main(argv).get("interrupted", False))

    status = run_cli(run)
    sys.exit(130 if status == 0 and any(stopped) else status)


if __name__ == "__main__":
    cli()
