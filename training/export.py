"""Export a MaskablePPO model as a light opponent: ONNX logits graph + numpy weights + JSON sidecar.

The exported graph is the policy's logits path only (features -> policy MLP -> action head); the
mask is applied outside it by the loader (``tabletop_envs.core.onnx_policy``), never by relying on
the policy's unmasked ``forward``. The ONNX graph is written from the extracted weights with
``onnx.helper`` (Gemm + activation per layer), so the export does not depend on torch's changing
ONNX exporters; a parity test checks it against the torch policy on real observations.

    python -m training.export --model runs/terralore_v0-s0/final_model.zip --out models/terralore/ppo

The ``--model`` file is read with SB3's ``load``, which unpickles it: it runs any code the file holds, so
export only models you made or trust. The export it writes is data, and loads without running any.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.arena import check_seed
from tabletop_envs.core.errors import ConfigError, ModelMismatchError, run_cli
from tabletop_envs.core.files import write_text_whole, written_beside
from tabletop_envs.core.onnx_policy import SIDECAR_FORMAT, MLPPolicy, file_sha256, read_sidecar
from tabletop_envs.core.registry import env_family, make_game

from .config import make_output_folder, user_path
from .evaluate import (
    anchor_keys,
    env_name_arg,
    parse_env_kwargs,
    resolve,
    split_env_kwargs,
)

OPSET = 17


def linear_layers(*parts, check_chain: bool = True) -> tuple[list, str | None]:
    """The Linear layers of an MLP made of ``parts`` (an SB3 branch, or RLlib's encoder and head), in
    order, and its activation's name. Containers are walked; any other layer (LayerNorm, dropout, a
    second kind of activation …) is a TypeError, because neither the export nor a numpy forward can
    run it and a silently different opponent would be worse than none.

    The opponent format runs the activation after every layer but the last, so two Linear layers
    without one between them, or an activation first or twice, is a TypeError too. A module of its own
    is walked as well, but its forward may do more than run its layers in order (a skip connection, a
    scale): with ``check_chain`` the parts, run one after the other on a probe, must give what their
    layers run in order give, else TypeError. RLlib's encoder takes a batch dict, not a tensor; its
    export compares the logits itself (``check_chain=False``)."""
    import torch

    names = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}
    containers = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict, torch.nn.Identity)
    layers = []  # the Linear layers and activations, in order
    for part in parts:
        for module in part.modules():
            if isinstance(module, torch.nn.Linear) or type(module) in names:
                layers.append(module)
            elif not isinstance(module, containers) and next(module.children(), None) is None:
                raise TypeError(f"cannot export layer {module!r} of the policy MLP: only Linear layers and one of "
                                "tanh/relu export to the opponent format")
    linears = [m for m in layers if isinstance(m, torch.nn.Linear)]
    activations = {names[type(m)] for m in layers if type(m) in names}
    if len(activations) > 1:
        raise TypeError(f"mixed activations {sorted(activations)} do not export to the opponent format")
    kinds = ["Linear" if isinstance(m, torch.nn.Linear) else names[type(m)] for m in layers]
    if any((a == "Linear") == (b == "Linear") for a, b in zip(kinds, kinds[1:])) or kinds[:1] not in ([], ["Linear"]):
        raise TypeError(f"the policy MLP runs {', '.join(kinds)} in order: the opponent format needs one "
                        "activation after each Linear layer but the last")
    if check_chain and linears:
        probe = torch.randn(4, linears[0].in_features, generator=torch.Generator().manual_seed(0))
        with torch.no_grad():
            expected = chain = probe.to(linears[0].weight)
            try:
                for part in parts:
                    expected = part(expected)
            except Exception as e:
                raise TypeError(f"cannot run the policy MLP's parts one after the other on a tensor ({e}); a "
                                "caller that compares the exported logits itself passes check_chain=False") from e
            for module in layers:
                chain = module(chain)
        if expected.shape != chain.shape or not torch.allclose(expected, chain, atol=1e-5, rtol=1e-4):
            raise TypeError(f"the policy MLP ({', '.join(type(p).__name__ for p in parts)}) does not run its "
                            "Linear layers and activations in order (a skip connection, a scale, a forward of "
                            "its own?): it does not export to the opponent format")
    return linears, (activations.pop() if activations else None)


def layer_weights(linears) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(W, b), ...]`` of torch Linear layers, W of shape (in, out) (the opponent format's order)."""
    return [(lin.weight.detach().cpu().numpy().T.copy(), lin.bias.detach().cpu().numpy().copy()) for lin in linears]


def mlp_weights(model) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The logits path of an SB3 (Maskable)ActorCriticPolicy as ``[(W, b), ...]`` with W of shape (in, out)."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    policy = getattr(model, "policy", model)
    extractor = policy.pi_features_extractor if hasattr(policy, "pi_features_extractor") else \
        policy.features_extractor
    if not isinstance(extractor, FlattenExtractor):
        raise TypeError(f"only MlpPolicy (FlattenExtractor) exports to a plain MLP, got {type(extractor).__name__}")
    layers, activation = linear_layers(policy.mlp_extractor.policy_net, policy.action_net)
    return layer_weights(layers), activation or "tanh"


def numpy_policy(model, deterministic: bool = True, name: str = "learner") -> MLPPolicy:
    """The model's current policy as a numpy MLP (used for snapshots and scheduled evaluation)."""
    weights, activation = mlp_weights(model)
    return MLPPolicy(weights, activation, deterministic=deterministic, name=name)


def onnx_graph(weights, activation: str):
    """An ONNX model: input ``observation`` [batch, n_obs] -> output ``logits`` [batch, n_actions]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    act_op = {"tanh": "Tanh", "relu": "Relu"}[activation]
    nodes, inits = [], []
    current = "observation"
    for i, (w, b) in enumerate(weights):
        inits += [numpy_helper.from_array(np.asarray(w, np.float32), f"W{i}"),
                  numpy_helper.from_array(np.asarray(b, np.float32), f"b{i}")]
        last = i == len(weights) - 1
        out = "logits" if last else f"z{i}"
        nodes.append(helper.make_node("Gemm", [current, f"W{i}", f"b{i}"], [out], name=f"dense{i}"))
        if not last:
            nodes.append(helper.make_node(act_op, [out], [f"h{i}"], name=f"{activation}{i}"))
            out = f"h{i}"
        current = out
    n_obs, n_act = weights[0][0].shape[0], weights[-1][0].shape[1]
    graph = helper.make_graph(
        nodes, "policy_logits",
        [helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["batch", n_obs])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", n_act])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="tabletop_envs.training.export")
    model.ir_version = 8  # readable by onnxruntime >= 1.10
    onnx.checker.check_model(model)
    return model


def code_version() -> dict:
    """What made a model, for its sidecar: this library's version, the git commit where there is one,
    Python and the training packages' versions."""
    import tabletop_envs
    from tabletop_envs.core.replay import code_revision

    info = {"tabletop_envs": tabletop_envs.__version__, "python": platform.python_version()}
    sha = code_revision()
    if sha:
        info["git"] = sha
    for mod in ("stable_baselines3", "sb3_contrib", "torch"):
        try:
            info[mod] = __import__(mod).__version__
        except ImportError:
            pass
    return info


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, rounded, or None where the platform keeps none: Windows has
    no ``os.getloadavg`` at all (AttributeError, not OSError), and a training run began by reading it."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def cpu_info(keys=("model name",)) -> dict:
    """``keys`` of the first core's block in /proc/cpuinfo (the model name falls back on ``platform``): a
    seeded run's weights depend on the processor (torch's CPU kernels round differently on another
    instruction set), and benchmark ratios do too."""
    cpu = {"model name": platform.processor() or platform.machine()} if "model name" in keys else {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            first = f.read().split("\n\n", 1)[0]
    except OSError:
        return cpu
    for line in first.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in keys:
            cpu[key.strip()] = value.strip()
    return cpu


MODEL_SUFFIXES = (".onnx", ".npz", ".json")


def model_stem(out: str | Path) -> Path:
    """The stem of an exported model's three files: ``out`` whole, dots included (``ppo.v2`` writes
    ``ppo.v2.onnx``; ``Path.with_suffix`` would make it ``ppo.onnx``, another model's file), except that
    one of the three file names stands for its stem (``dir/ppo.onnx`` is ``dir/ppo``)."""
    out = user_path(out)
    return out.with_suffix("") if out.suffix in MODEL_SUFFIXES else out


def model_file(out: str | Path, suffix: str) -> Path:
    """``<stem>.onnx`` (``suffix`` one of :data:`MODEL_SUFFIXES`) of the model at ``out``."""
    stem = model_stem(out)
    return stem.with_name(stem.name + suffix)


def export_policy(weights, activation: str, out_stem: str | Path, env_name: str, game_config: dict | None = None,
                  training: dict | None = None, evaluation: dict | None = None, name: str | None = None,
                  deterministic: bool = True) -> Path:
    """Write ``<out_stem>.onnx``, ``.npz`` and ``.json`` (see :func:`model_stem`); returns the .onnx path."""
    out_stem = model_stem(out_stem)
    game = make_game(env_name, **(game_config or {}))
    n_obs, n_act = weights[0][0].shape[0], weights[-1][0].shape[1]
    if (n_obs, n_act) != (game.observation_layout.size, game.num_actions):
        raise ModelMismatchError(f"network {n_obs}->{n_act} does not fit {env_name} "
                                 f"({game.observation_layout.size} observations, {game.num_actions} actions)")
    import onnx  # after the check: a network that cannot fit is refused even where onnx is missing

    out_stem.parent.mkdir(parents=True, exist_ok=True)
    onnx_path = model_file(out_stem, ".onnx")
    # each file is written beside its place and moved there once all three are whole, so a failure
    # leaves the earlier export as it was, not a new graph beside old weights and an old sidecar
    with written_beside(*(model_file(out_stem, suffix) for suffix in (".onnx", ".npz", ".json"))) as parts:
        onnx_part, npz_part, json_part = parts
        onnx.save(onnx_graph(weights, activation), str(onnx_part))
        arrays: dict[str, Any] = {}  # Any: typed as arrays, savez's **kwds would also be checked against allow_pickle
        for i, (w, b) in enumerate(weights):
            arrays[f"W{i}"], arrays[f"b{i}"] = np.asarray(w, np.float32), np.asarray(b, np.float32)
        with open(npz_part, "wb") as fh:  # a file object: savez would add .npz to a name
            np.savez(fh, **arrays)
        meta = _sidecar(weights, activation, out_stem, env_name, game, training, evaluation, name, deterministic,
                        {"onnx": file_sha256(onnx_part), "weights": file_sha256(npz_part)})
        json_part.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return onnx_path


def _sidecar(weights, activation: str, out_stem: Path, env_name: str, game, training, evaluation, name,
             deterministic: bool, digests: dict) -> dict:
    onnx_path = model_file(out_stem, ".onnx")
    version = env_name.rpartition("_v")[2]
    meta = {
        "format": SIDECAR_FORMAT,
        "name": name or out_stem.name,
        "env_id": env_name,
        "env_family": env_family(env_name),
        "env_version": int(version) if version.isdigit() else version,
        # every option, defaults included: an option added later with another default must not be
        # mistaken for one this model played under (check_rule_options)
        "game_config": json.loads(json.dumps(game.config(), default=str)),
        "num_players": game.num_players,
        "observation_layout_hash": game.observation_layout.hash(),
        "observation_size": game.observation_layout.size,
        "action_layout_hash": game.action_layout.hash(),
        "num_actions": game.num_actions,
        "network": {"kind": "mlp", "hidden": [int(w.shape[1]) for w, _ in weights[:-1]], "activation": activation},
        "mask": "not in the graph: set logits of illegal actions to -inf, then argmax (or sample)",
        "act": "argmax" if deterministic else "sample",
        "files": {"onnx": onnx_path.name, "weights": model_file(out_stem, ".npz").name},
        # the loader plays only the file exported with this sidecar (a stale .npz has the same shape)
        "sha256": digests,
        "training": training or {},
        "evaluation": evaluation or {},
        "code_version": code_version(),
        "exported": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    return meta


def export_model(model, out_stem, env_name: str, game_config: dict | None = None, training: dict | None = None,
                 evaluation: dict | None = None, name: str | None = None, deterministic: bool = True) -> Path:
    """Export a trained MaskablePPO ``model``'s policy as ``<out_stem>.onnx`` and ``.npz`` with its JSON
    sidecar (env id and version, observation-layout hash, training and evaluation records); returns the
    ONNX path. ``load_policy`` reads the result without torch."""
    weights, activation = mlp_weights(model)
    training = {"steps": int(getattr(model, "num_timesteps", 0)), **(training or {})}
    return export_policy(weights, activation, out_stem, env_name, game_config, training, evaluation, name,
                         deterministic)


def update_sidecar(path: str | Path, **sections) -> dict:
    """Merge keys (e.g. ``evaluation=...``) into an exported model's sidecar, read through the loader's checks:
    an edited one (``"evaluation": []``) ended in "TypeError: 'list' object is not a mapping"."""
    side = model_file(path, ".json")
    meta = read_sidecar(side)
    for key, value in sections.items():
        if isinstance(value, dict) and not isinstance(meta.get(key, {}), dict):  # a key the loader does not check
            raise ModelMismatchError(f"sidecar {side}: {key} must be an object to merge {sorted(value)} into, got "
                                     f"{meta[key]!r}; restore it or re-export the model")
        meta[key] = {**meta.get(key, {}), **value} if isinstance(value, dict) else value
    write_text_whole(side, json.dumps(meta, indent=2) + "\n")
    return meta


def _exported_env(side: Path) -> str | None:
    """The env id of the model whose sidecar is at ``side``, if one readably is."""
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    env_id = meta.get("env_id") if isinstance(meta, dict) else None
    return env_id if isinstance(env_id, str) else None


def find_run_json(model: Path) -> Path | None:
    """The run.json of the run that saved ``model``: next to it (``<run>/final_model.zip``), or in the run
    folder above a checkpoint (``<run>/checkpoints/step_N/model.zip``)."""
    candidates = [model.with_name("run.json")]
    if model.parent.parent.name == "checkpoints":
        candidates.append(model.parent.parent.parent / "run.json")
    return next((c for c in candidates if c.is_file()), None)


def run_act(run_info: dict) -> str:
    """How the run's recipe ships its policy (``eval.deterministic``): a re-export of a run that samples
    (Travel Earth's recipe: argmax stalls into draws) must not turn it into argmax. argmax without one."""
    config = run_info.get("config")
    deterministic = config.get("eval", {}).get("deterministic", True) if isinstance(config, dict) else True
    return "sample" if deterministic is False else "argmax"


def check_model_file(model: Path) -> None:
    """``model`` is an existing SB3 model zip (not an exported .onnx, not a folder)."""
    import zipfile

    if not model.exists():
        raise FileNotFoundError(f"--model {model} does not exist; pass the .zip that training.train saved, e.g. "
                                "runs/<run>/final_model.zip or runs/<run>/checkpoints/step_<N>/model.zip")
    if not model.is_file() or not zipfile.is_zipfile(model) or model.suffix == ".npz":
        # an .npz is a zip too: it was told that its writing had been cut off
        what = ("a folder" if model.is_dir() else "an exported model's weights" if model.suffix == ".npz"
                else "not a zip file")
        hint = (" (it is already an exported policy: load it with tabletop_envs.load_policy)"
                if model.suffix in (".onnx", ".npz", ".json") else "")
        raise ConfigError(f"--model {model} is {what}{hint}; pass the SB3 MaskablePPO .zip that training.train "
                          "saved, e.g. runs/<run>/final_model.zip")
    # a model.zip cut short (a full disk, a run killed while saving) still holds the zip of a torch tensor file
    # it stored whole, which is_zipfile finds; SB3 then failed on "No data found in the saved file"
    try:
        with zipfile.ZipFile(model) as archive:
            whole = "data" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        whole = False
    if not whole:
        raise ConfigError(f"--model {model} is not a whole SB3 model (no 'data' in the zip): its writing was cut "
                          "off (a full disk, a run killed while saving); pass a checkpoint of the run, "
                          "runs/<run>/checkpoints/step_<N>/model.zip, or --resume the run to save it again")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True,
                        help="SB3 MaskablePPO .zip (from training.train, or a MlpPolicy MaskablePPO of your own, "
                             "with --env); SB3 model files are pickles: loading one runs any code it holds, so "
                             "export only models you made or trust")
    parser.add_argument("--out", required=True,
                        help="output stem: writes <out>.onnx, .npz and .json, replacing a model of that stem; "
                             "dots stay in the stem (ppo.v2 writes ppo.v2.onnx), and an --out ending in .onnx, "
                             ".npz or .json means its stem (dir/ppo.onnx is dir/ppo)")
    # a game's name as training.evaluate takes it (travel_earth): it was refused, naming travel_earth_v0
    parser.add_argument("--env", type=env_name_arg, help="env name (terralore or terralore_v0); default: from "
                        "run.json next to the model")
    parser.add_argument("--env-kwargs",
                        help="JSON rule options the model was trained under, as its env took them, e.g. "
                             "'{\"num_players\": 4}', for a model without a run.json; default: the run.json's, else "
                             "the env's defaults")
    parser.add_argument("--eval-games", type=int, default=0,
                        help="also measure against the anchors (seat-rotated, on the deals of --seed)")
    parser.add_argument("--seed", type=int, default=12345,
                        help="the deals of --eval-games (default 12345; a run's own final evaluation plays its "
                             "recipe's seed + 1000 against its eval.opponents, which --seed and --anchors repeat)")
    parser.add_argument("--anchors", nargs="+", default=["random", "heuristic"], help="opponents for --eval-games")
    parser.add_argument("--act", choices=["argmax", "sample"],
                        help="how the policy picks among legal actions (evaluation and the loader's default); "
                             "default: as the run's recipe ships it (eval.deterministic in its run.json), else "
                             "argmax")
    args = parser.parse_args(argv)
    # before anything is read or made (the --out folder included)
    if args.eval_games < 0:
        raise ConfigError(f"--eval-games must be 0 (no evaluation) or a positive number of games, got "
                          f"{args.eval_games}")
    check_seed(args.seed)
    model_path = user_path(args.model)
    if not model_path.exists() and model_path.with_name(model_path.name + ".zip").is_file():
        model_path = model_path.with_name(model_path.name + ".zip")  # SB3 adds the .zip too
    check_model_file(model_path)
    run_info = {}
    run_json = find_run_json(model_path)
    if run_json is not None:
        try:
            run_info = json.loads(run_json.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:  # json's own message named neither the file nor a way out
            raise ConfigError(f"{run_json} is not valid JSON ({exc}); restore the run.json training.train wrote "
                              "there, or move it away and pass --env") from None
        if not isinstance(run_info, dict):
            raise ConfigError(f"{run_json} holds a {type(run_info).__name__}, not the object training.train writes "
                              "(env, config, training, ...); restore it, or move it away and pass --env")
    if args.out.endswith(("/", os.sep)) or user_path(args.out).is_dir():  # it wrote <folder>.onnx beside it
        raise ConfigError(f"--out {args.out} is a folder: give the model's path in it, without a suffix, e.g. "
                          f"--out {user_path(args.out) / 'ppo'} (writes ppo.onnx, ppo.npz and ppo.json there)")
    make_output_folder(user_path(args.out).parent, "--out")
    summary_json = model_path.with_name("summary.json")
    summary: dict = {}
    if summary_json.exists():
        try:
            summary = json.loads(summary_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # json's own message named no file
            raise ConfigError(f"{summary_json} cannot be read ({exc}); restore the summary.json training.train wrote "
                              "there, or move it away (the sidecar then records no training wall time)") from None
        if not isinstance(summary, dict):
            raise ConfigError(f"{summary_json} holds a {type(summary).__name__}, not the object training.train "
                              "writes; restore it, or move it away (the sidecar then records no training wall time)")
    env_name = args.env or run_info.get("env")
    if not env_name:
        parser.error("--env is required when the model has no run.json next to it (or, for a checkpoint, in "
                     "the run folder above checkpoints/)")
    if args.env and run_info.get("env") and run_info["env"] != args.env:
        raise ModelMismatchError(f"the model's run ({run_json}) is for {run_info['env']}, not {args.env}; drop "
                                 f"--env (or pass --env {run_info['env']}), or export a model trained for {args.env}")
    game_config = run_info.get("game_config", {})
    env_kwargs = run_info.get("env_kwargs")
    if args.env_kwargs is not None:
        # a model trained outside training.train has no run.json: its sidecar recorded the env's default options,
        # and the evaluation warned that it had never learnt the rules it was trained under
        if run_json is not None:
            raise ConfigError(f"--env-kwargs: the model's run ({run_json}) records the rule options it was trained "
                              "under; drop --env-kwargs")
        env_kwargs = parse_env_kwargs(args.env_kwargs)
        try:
            game_config = make_game(env_name, **split_env_kwargs(env_kwargs, env_name)[0]).config()
        except ConfigError as exc:  # the game's refusal of an option named no flag
            raise ConfigError(f"--env-kwargs: {exc}") from None
    max_turns = None
    if args.eval_games:  # an unknown anchor or the run's bad env_kwargs fails now, before the three files are written
        anchor_keys(args.anchors, "--anchors")
        for anchor in args.anchors:
            resolve(anchor, env_name, game_config)
        try:
            _, max_turns = split_env_kwargs(env_kwargs, env_name)
        except ConfigError as exc:  # it named neither the file nor a way out
            raise ConfigError(f"{run_json}: {exc}; restore the run.json training.train wrote there, or move it away "
                              "and pass --env") from None
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_path, device="cpu")
    training = dict(run_info.get("training", {}))
    if "config" in run_info:
        training["config"] = run_info["config"]
    if summary_json.exists():  # every part's time of a resumed run (a summary from before parts: its own)
        training["wall_time_s"] = summary.get("train_seconds_all_parts", summary.get("train_seconds"))
        if "parts" in summary:
            training["parts"] = summary["parts"]
    act = args.act or run_act(run_info)
    deterministic = act == "argmax"
    stem = model_stem(args.out)
    other_env = _exported_env(model_file(stem, ".json"))
    if other_env is not None and other_env != env_name:
        raise ConfigError(f"--out {args.out} holds a model for {other_env} ({model_file(stem, '.json')}); this "
                          f"{env_name} model would replace it: choose another --out, or move those files away first")
    replaced = [model_file(stem, s).name for s in MODEL_SUFFIXES if model_file(stem, s).exists()]
    path = export_model(model, stem, env_name, game_config, training=training, deterministic=deterministic,
                        name=f"{env_name}/{stem.name}")
    source = "--act" if args.act else ("the run's eval.deterministic" if "config" in run_info else "the default")
    # said before the games: a Ctrl-C in them ended the command with the earlier files replaced and not a word
    print(f"wrote {path} (+ .npz, .json; act {act}, from {source})" +
          (f"; replaced the earlier {', '.join(replaced)}" if replaced else ""), flush=True)
    if args.eval_games:
        # (looked up late: a test stands an interrupt in for anchor_evaluation)
        from .evaluate import anchor_evaluation, evaluation_lines

        try:
            evaluation = anchor_evaluation(env_name, str(path), args.eval_games, seed=args.seed, anchors=args.anchors,
                                           game_kwargs=game_config, max_turns=max_turns, act=act)
        except KeyboardInterrupt:
            print(f"interrupted in the evaluation: {path.name} is exported, its sidecar without an evaluation; "
                  f"the same command again measures it", flush=True)
            raise
        update_sidecar(path, evaluation=evaluation)
        print("\n".join(evaluation_lines(evaluation)) + "  (also in the sidecar)")


def cli() -> None:
    """Console-script entry point: an error of the arguments or the recipe ends it in one line."""
    sys.exit(run_cli(main))


if __name__ == "__main__":
    cli()
