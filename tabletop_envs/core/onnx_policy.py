"""Trained opponents as light policies: a numpy MLP forward, or onnxruntime for other graphs.

A saved model is three files with one stem (``models/terralore/ppo.*``):

- ``ppo.onnx`` — the policy-logits graph, input ``observation`` [batch, obs_size] float32, output
  ``logits`` [batch, num_actions]. The action mask is *not* in the graph: the caller sets illegal
  logits to -inf, then takes the argmax (or samples).
- ``ppo.npz`` — the same MLP's weights (``W0, b0, W1, b1, …``), so the common case runs as a few
  numpy matmuls (a few µs) with neither torch nor onnxruntime.
- ``ppo.json`` — the sidecar: env id and version, observation- and action-layout hashes, number of
  actions, network shape, training steps and seed, measured evaluation results, code version.

Loading checks the sidecar against the env this library builds today and refuses a mismatch with
:class:`ModelMismatchError`, because a policy fed an observation vector of another layout plays
nonsense without any error.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tokenize
import warnings
import weakref
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from .cache import LOCK, keep, recall
from .errors import ModelMismatchError, RuleOptionsWarning, TabletopError, is_int
from .files import URL, control_text, parse_json, path_is, read_json_text

SIDECAR_FORMAT = "tabletop_envs.policy/1"
ACTIVATIONS = {  # in place: applied only to fresh products
    "tanh": lambda x: np.tanh(x, out=x),
    "relu": lambda x: np.maximum(x, 0, out=x),
}


def mlp_forward(h: np.ndarray, layers, act) -> np.ndarray:
    """An MLP's output for one input (1-D) or a batch (2-D): ``act`` after every layer but the last.

    ``layers`` is ``[(W, b), ...]`` with ``W`` of shape (in, out), best in row order: the sparse
    first layer gathers whole rows of it.
    """
    return mlp_continue(sparse_linear(h, *layers[0]), layers[1:], act)


def sparse_linear(h: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``h @ w + b`` as a fresh array, for one input (1-D) or a batch (2-D)."""
    # Card-game observations are mostly zeros (one-hot zones): multiplying only the rows of the
    # columns that are non-zero somewhere in the input costs a few µs where the dense product of a
    # wide first layer costs hundreds on a busy machine.
    nonzero = (h.astype(bool) if h.ndim == 1 else h.any(0)).nonzero()[0]  # bool: the fast nonzero
    h = h.take(nonzero, -1) @ w.take(nonzero, 0) if nonzero.shape[0] * 4 < h.shape[-1] else h @ w
    h += b  # products are fresh arrays: add in place
    return h


def mlp_continue(h: np.ndarray, layers, act) -> np.ndarray:
    """The rest of an MLP from the previous layer's output ``h`` (before its activation, which is
    applied in place)."""
    for w, b in layers:
        h = act(h) @ w
        h += b
    return h


class _LogitsPolicy:
    """A policy that acts from ``self.logits(observation)``: masked argmax (``self.deterministic``)
    or a masked draw.

    ``logits`` refuses an observation of another width, ``act`` / ``act_batch`` a mask of another
    length (ModelMismatchError): a network fed another env's vectors picks rows or actions that mean
    something else and plays nonsense without any error. The checks compare ints only (hot path).
    """

    # set by each subclass's __init__; ``metadata`` (the sidecar) and ``model_file`` (the file it plays) only by
    # load_model_policy
    name: str
    deterministic: bool
    observation_size: int | None
    metadata: dict
    model_file: str | None = None

    def logits(self, observation: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator | None) -> int:
        """The legal action the logits pick (``rng``: for a draw; None draws from a fresh generator)."""
        logits = self.logits(observation)
        if logits.ndim != 1:  # a batch: its logits would be indexed as one row's and fail on an IndexError
            raise ValueError(f"policy {self.name!r}: act() takes one observation (a 1-D vector), got shape "
                             f"{np.shape(observation)}; for a batch of rows use act_batch(observations, "
                             "action_masks, rng)")
        if len(action_mask) != logits.shape[-1]:
            self._wrong_mask(np.shape(action_mask), logits.shape)
        if not math.isfinite(logits.sum()):
            self._not_finite(observation)
        return choose_legal(logits, action_mask, rng, self.deterministic)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray,
                  rng: np.random.Generator | None) -> np.ndarray:
        """``act`` for a batch of rows (one forward pass); see :func:`~tabletop_envs.core.policy.act_batch`."""
        logits = self.logits(observations)
        masks = np.asarray(action_masks, bool)
        if masks.shape != logits.shape:
            self._wrong_mask(masks.shape, logits.shape)
        if not math.isfinite(logits.sum()):
            self._not_finite(observations)
        return choose_legal_batch(logits, masks, rng, self.deterministic)

    def _trained_for(self) -> str:
        meta = getattr(self, "metadata", None)
        env_id = meta.get("env_id") if isinstance(meta, dict) else None
        return f" (trained for {env_id})" if env_id else ""

    def _wrong_width(self, shape: tuple) -> None:
        if not shape:
            raise ValueError(f"policy {self.name!r} takes an observation vector of {self.observation_size} values "
                             "(or a batch of them), got a scalar")
        raise ModelMismatchError(
            f"policy {self.name!r}{self._trained_for()} takes observations of {self.observation_size} values, "
            f"got {shape[-1]} (shape {shape}): most likely a model of another env. Play it in the env it was "
            "trained for, or load a model made for this env.")

    def _not_finite(self, observation) -> None:
        # the argmax of NaN logits is the first NaN: a move chosen by nothing, played without a word
        values = np.asarray(observation, np.float64)
        bad = ~np.isfinite(values)
        env_id, bounds = self._observation_range()
        if not bad.any() and bounds is not None and _within(values, *bounds):
            # the env's own observation overflows float32 in the forward: the weights are at fault, not the caller
            fault = f"its weights overflow float32 to NaN or infinite logits on an observation that {env_id} produces"
            if self.model_file:
                raise _broken_file(self.model_file, fault)
            raise ValueError(f"policy {self.name!r}: {fault}; check the weights it was built with")
        where = (f"the observation holds {int(bad.sum())} NaN or infinite value(s) (first at index "
                 f"{tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim > 1 else int(np.flatnonzero(bad)[0])})"
                 if bad.any() else "the observation holds values far outside what the env produces")
        raise ValueError(f"policy {self.name!r} got NaN or infinite logits: {where}. Pass the env's observation "
                         "unchanged (observe(agent)['observation']).")

    def _observation_range(self) -> tuple[str | None, tuple[np.ndarray, np.ndarray] | None]:
        """(env id, (low, high) of its observations) of the env the sidecar names, built under the sidecar's
        rule options; (env id or None, None) where there is no sidecar or no such game here (only asked once
        the logits are NaN or infinite, so building a game costs nothing on the hot path)."""
        meta = getattr(self, "metadata", None)
        if not (isinstance(meta, dict) and isinstance(meta.get("env_id"), str)):
            return None, None
        env_id = meta["env_id"]
        try:
            layout = _built_game(env_id, meta.get("game_config", {})).observation_layout
        except (TabletopError, KeyError, TypeError, ValueError, AttributeError):  # a sidecar loaded with check=False
            return env_id, None
        return env_id, (layout.low, layout.high)

    def _wrong_mask(self, mask_shape: tuple, logits_shape: tuple) -> None:
        if mask_shape[-1:] != logits_shape[-1:]:
            raise ModelMismatchError(
                f"policy {self.name!r}{self._trained_for()} has {logits_shape[-1]} actions, got an action mask "
                f"of {mask_shape[-1] if mask_shape else 'no'} entries (shape {mask_shape}): most likely a model "
                "of another env. Play it in the env it was trained for, or load a model made for this env.")
        raise ValueError(f"the action masks (shape {mask_shape}) do not match the observations (logits of shape "
                         f"{logits_shape}): give one mask row per observation row")


class MLPPolicy(_LogitsPolicy):
    """Masked argmax (or masked sampling) over the logits of a numpy MLP.

    Args:
        weights: ``[(W, b), ...]`` with ``W`` of shape (in, out); the last pair is the logits head.
        activation: ``"tanh"`` or ``"relu"``, applied after every hidden layer.
        deterministic: argmax over the legal logits (True) or sample from their softmax (False).
        name: shown in evaluation tables.
    """

    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]], activation: str = "tanh",
                 deterministic: bool = True, name: str = "mlp"):
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        self.layers = [(np.ascontiguousarray(w, np.float32), np.ascontiguousarray(b, np.float32))
                       for w, b in weights]
        self.activation = activation
        self._act = ACTIVATIONS[activation]
        self.deterministic = deterministic
        self.name = name
        self.observation_size = self.layers[0][0].shape[0]
        self.num_actions = self.layers[-1][0].shape[1]
        self._width = (self.observation_size,)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Logits for one observation (1-D) or a batch (2-D)."""
        observation = np.asarray(observation, np.float32)
        if observation.shape[-1:] != self._width:  # an int in a tuple: cheaper than the scan it guards
            self._wrong_width(observation.shape)
        return mlp_forward(observation, self.layers, self._act)

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_act"]  # lambdas do not pickle; rebuilt from the name
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._act = ACTIVATIONS[self.activation]
        self._width = (self.observation_size,)  # (absent from pickles of older versions)

    def __repr__(self) -> str:
        sizes = [self.observation_size] + [w.shape[1] for w, _ in self.layers]
        return f"MLPPolicy({self.name!r}, {'-'.join(map(str, sizes))}, {self.activation})"


class OnnxPolicy(_LogitsPolicy):
    """The same contract through onnxruntime, for graphs that are not a plain MLP.

    ``observation_size`` / ``num_actions`` (the sidecar's, when loaded by :func:`load_model_policy`)
    are checked against the graph's input and output widths when the session opens; None takes the
    graph's.
    """

    def __init__(self, onnx_path: str | Path, deterministic: bool = True, name: str = "onnx",
                 observation_size: int | None = None, num_actions: int | None = None):
        self.onnx_path = str(onnx_path)
        self.deterministic = deterministic
        self.name = name
        self.observation_size = observation_size
        self.num_actions = num_actions
        self._session: Any = None  # an onnxruntime.InferenceSession once opened (onnxruntime has no types)
        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            pass  # the install hint comes at first use
        else:
            self._open()  # now, so a file that is no ONNX graph fails at load, not at the first move

    def _open(self) -> Any:
        """Open the graph (an onnxruntime.InferenceSession, which is returned too) and check its widths."""
        try:
            import onnxruntime
        except ImportError as exc:
            raise TabletopError(f"{self.onnx_path} runs through onnxruntime, which is not installed: pip install "
                                "onnxruntime (an exported MLP's .npz plays without it: load_policy's "
                                "backend='auto' or 'numpy')") from exc
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        if not Path(self.onnx_path).is_file():
            raise FileNotFoundError(f"no ONNX graph at {self.onnx_path}")
        # a pickled policy reopens its file by path when first used: one replaced since its load would play
        # other moves without a word (a policy not loaded yet has no metadata; load_model_policy checks it)
        sidecar = getattr(self, "metadata", None)
        record = sidecar.get("sha256") if isinstance(sidecar, dict) else None
        if isinstance(sidecar, dict) and isinstance(record, dict) and isinstance(record.get("onnx"), str):
            _check_digest(sidecar, "onnx", Path(self.onnx_path), Path(self.onnx_path).with_suffix(".json"))
        external = _external_data_problem(Path(self.onnx_path))
        if external:
            raise _broken_file(self.onnx_path, external)
        try:
            session = onnxruntime.InferenceSession(self.onnx_path, options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime's own classes (InvalidProtobuf, InvalidGraph, Fail) derive from Exception
            raise _broken_file(self.onnx_path, f"onnxruntime: {str(exc).strip().splitlines()[0][:200]}") from exc
        graph_in, graph_out = session.get_inputs()[0], session.get_outputs()[0]
        for attr, dims in (("observation_size", graph_in.shape), ("num_actions", graph_out.shape)):
            width = dims[-1] if dims else None
            if not isinstance(width, int):  # a symbolic width: nothing to check against
                continue
            if getattr(self, attr) is None:
                setattr(self, attr, width)
            elif getattr(self, attr) != width:
                raise ModelMismatchError(f"{self.onnx_path} has {attr} {width} but its sidecar says "
                                         f"{getattr(self, attr)}; re-export the model")
        self._session, self._input = session, graph_in.name
        _SESSIONS.add(self)
        return session

    def logits(self, observation: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation, np.float32)
        session = self._session
        if session is None:
            session = self._open()  # learns the graph's width when none was given
        if self.observation_size is not None and obs.shape[-1:] != (self.observation_size,):
            self._wrong_width(obs.shape)
        out = session.run(None, {self._input: obs[None] if obs.ndim == 1 else obs})[0]
        return out[0] if obs.ndim == 1 else out

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_session"] = None  # sessions do not pickle; reopened on first use
        return state

    def __repr__(self) -> str:
        return f"OnnxPolicy({self.name!r}, {self.onnx_path!r})"


#: the policies whose onnxruntime session this process opened
_SESSIONS: weakref.WeakSet = weakref.WeakSet()
#: sessions a forked child inherited: kept alive and never run there (freed mid-run, one could touch state
#: that a thread of the parent held)
_INHERITED: list = []


def _reopen_after_fork() -> None:
    """A forked child's policies open sessions of their own at their first move, as a pickled policy does:
    onnxruntime is not fork-safe, and a child forked while another thread of the parent was inside the
    same session's run hung in its first run (about one fork in a hundred under a thread that kept playing)."""
    for policy in list(_SESSIONS):
        if policy._session is not None:
            _INHERITED.append(policy._session)
            policy._session = None
    _SESSIONS.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_reopen_after_fork)


def choose_legal(logits: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator | None,
                 deterministic: bool) -> int:
    """Argmax of (or a sample from) the logits restricted to the legal actions: always legal."""
    legal = np.flatnonzero(action_mask)
    count = legal.shape[0]
    if count == 0:
        raise ValueError("the action mask has no legal action: a policy is only asked at a decision point")
    if count == 1:
        return int(legal[0])
    z = logits[legal]
    if deterministic:
        return int(legal[np.argmax(z)])
    if rng is None:
        rng = np.random.default_rng()
    if count <= 16:
        # A handful of legal actions (the usual case in card games): Python floats cost less than
        # numpy's per-call overhead. Same draw: the first action whose cumulative weight exceeds u * total.
        values = z.tolist()
        top = max(values)
        weights = [math.exp(v - top) for v in values]
        threshold = rng.random() * math.fsum(weights)
        for i, w in enumerate(weights):
            threshold -= w
            if threshold < 0:
                return int(legal[i])
        return int(legal[-1])
    cumulative = np.cumsum(np.exp(z - z.max()))
    pick = np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right")
    return int(legal[min(pick, count - 1)])


def choose_legal_batch(logits: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator | None,
                       deterministic: bool) -> np.ndarray:
    """:func:`choose_legal` for each row of a batch: argmax of (or one draw from) the legal logits."""
    masks = np.asarray(action_masks, bool)
    if not masks.any(1).all():
        raise ValueError("an action mask of the batch has no legal action: a policy is only asked at a decision point")
    z = np.where(masks, logits, -np.inf)
    if deterministic:
        return z.argmax(1)
    weights = np.exp(z - z.max(1, keepdims=True))  # illegal actions weigh exactly 0
    np.cumsum(weights, 1, out=weights)
    if rng is None:
        rng = np.random.default_rng()
    threshold = rng.random(len(weights)) * weights[:, -1]
    # The first action whose cumulative weight exceeds the threshold: cumulative weights only rise at
    # legal actions, so it is legal, as in choose_legal.
    picks = (weights <= threshold[:, None]).sum(1)
    np.minimum(picks, masks.shape[1] - 1, out=picks)
    bad = ~masks[np.arange(len(picks)), picks]
    if bad.any():  # rounding at the very top of a row: its last legal action
        picks[bad] = [np.flatnonzero(m)[-1] for m in masks[bad]]
    return picks


# ------------------------------------------------------------------------------------ loading
def sidecar_path(path: str | Path) -> Path:
    """The ``.json`` next to a ``.onnx`` / ``.npz`` (or the path itself when it is the sidecar)."""
    return Path(path).with_suffix(".json")


def _missing_model_hint(path: str, side: Path) -> str:
    if URL.match(path):  # Path() made "https://h/m.onnx" "https:/h/m.onnx" in the hint
        return ("it is a URL, and models load from files on this machine (nothing is downloaded): download the "
                ".onnx (or .npz) and its .json sidecar into one folder and pass the path of the .onnx")
    stem = path.rsplit(".", 1)[0] if path.endswith((".onnx", ".npz", ".json")) else ""
    if stem and model_path_for_id(stem) is not None:  # "terralore_v0/ppo.onnx": an id, given a file's suffix
        return f"{stem!r} is the id of a shipped model: pass that id, without the suffix"
    return f"expected {Path(path).with_suffix('.onnx')} with its {side.name} sidecar (see training/export.py)"


def _exists(path: Path) -> bool:
    """``path.exists()``, the name as written (load_policy expanded a ``~``), False for a name no file can have
    (:func:`~tabletop_envs.core.files.path_is`): a model path of 300 letters ended load_policy on OSError
    "File name too long" instead of "no model at"."""
    return path_is(path, Path.exists, expand=False)


def read_sidecar(path: str | Path) -> dict:
    """The JSON sidecar of an exported model (``<stem>.json`` beside ``path``), checked for the keys the
    loader needs; a missing, unreadable or incomplete sidecar is a ``ModelMismatchError`` naming the fix."""
    side = sidecar_path(path)
    if not _exists(Path(path)) and not _exists(side):
        raise FileNotFoundError(f"no model at {path}: {_missing_model_hint(str(path), side)}")
    if not _exists(side):
        raise ModelMismatchError(f"{path} has no sidecar {side}: the env id, version and observation layout "
                                 "it was trained on are unknown, so it cannot be checked. Re-export it "
                                 "with `python -m training.export`.")
    try:
        text = read_json_text(side)
    except OSError as exc:  # a folder named like the sidecar, no permission to read it
        raise ModelMismatchError(f"sidecar {side} cannot be read ({type(exc).__name__}: {exc.strerror or exc}); "
                                 "restore the model's .json file there, or re-export the model") from None
    except UnicodeDecodeError as exc:  # (a ValueError: before the clause below)
        raise ModelMismatchError(f"sidecar {side} is not UTF-8 text (byte {exc.start}: {exc.reason}); restore it "
                                 "or re-export the model") from None
    except ValueError as exc:  # a pipe, a device, a file far too large
        raise ModelMismatchError(f"sidecar {side} cannot be read ({exc}); restore the model's .json file there, or "
                                 "re-export the model") from None
    try:
        meta = parse_json(text)
    except ValueError as exc:
        raise ModelMismatchError(f"sidecar {side} is not valid JSON ({exc}); re-export the model") from None
    if not isinstance(meta, dict):
        raise ModelMismatchError(f"sidecar {side} must hold a JSON object, got {type(meta).__name__}; restore it or "
                                 "re-export the model")
    check_sidecar(meta, side)
    return meta


def check_sidecar(meta: dict, side: Path) -> None:
    """Refuse a sidecar object (read from ``side``) without the keys and types the loader and the model card
    rely on: a ``ModelMismatchError`` naming the file, the problem and the fix."""
    control = control_text(meta)
    if control:
        raise ModelMismatchError(f"sidecar {side}: {control[0]} holds control characters ({control[1]!r}); restore "
                                 "it or re-export the model")
    missing = [k for k in ("env_id", "observation_layout_hash", "observation_size", "num_actions", "network")
               if k not in meta]
    if missing:
        raise ModelMismatchError(f"sidecar {side} lacks {missing}; re-export the model with training/export.py")
    # checked here, as the env_id is in check_compatible: the loader calls int(), .get() and a dict
    # lookup on these, which met an edited sidecar as TypeError, AttributeError or ValueError
    problem = None
    for key in ("observation_size", "num_actions"):
        value = meta[key]
        if not is_int(value) or value < 1:
            problem = f"{key} must be a positive int, got {value!r}"
            break
    else:
        network = meta["network"]
        if not isinstance(network, dict):
            problem = f"network must be an object (kind, hidden, activation), got {network!r}"
        elif network.get("kind") == "mlp" and "activation" in network and not (isinstance(network["activation"], str)
                                              and network["activation"] in ACTIVATIONS):
            problem = f"network.activation must be one of {sorted(ACTIVATIONS)}, got {network['activation']!r}"
        else:
            problem = _record_problem(meta)
    if problem:
        raise ModelMismatchError(f"sidecar {side}: {problem}; restore it or re-export the model")
    # another format may record what the loader reads otherwise; none (a sidecar written by hand) is read as this one
    if meta.get("format", SIDECAR_FORMAT) != SIDECAR_FORMAT:
        raise ModelMismatchError(f"sidecar {side} has format {meta['format']!r}; this library reads "
                                 f"{SIDECAR_FORMAT!r}: load it with the tabletop_envs that exported it "
                                 f"({_exported_by(meta)}), or re-export the model with this one")


def _exported_by(meta: dict) -> str:
    code = meta.get("code_version")
    version = code.get("tabletop_envs") if isinstance(code, dict) else None
    return f"version {version}" if isinstance(version, str) else "its sidecar's code_version"


def _record_problem(meta: dict) -> str | None:
    """What is wrong with the types of a sidecar's records for people (its name, training and evaluation), or
    None. The loader plays without them, but the model card and the evaluation tables print them: an edited
    ``"training": []`` or ``"win": "97%"`` ended ``python -m training.model_card`` in an AttributeError."""
    name = meta.get("name", "-")
    if not (isinstance(name, str) and name):
        return f"name must be a non-empty string (the model's name in tables), got {name!r}"
    training, evaluation = meta.get("training", {}), meta.get("evaluation", {})
    if not isinstance(training, dict):
        return f"training must be an object (steps, seed, command, ...), got {training!r}"
    for key in ("steps", "seed"):
        if key in training and not (is_int(training[key]) and training[key] >= 0):
            return f"training.{key} must be a non-negative int, got {training[key]!r}"
    for key, nullable in (("config", False), ("machine", False), ("pretrain", True), ("distill", True)):
        if key in training and not (isinstance(training[key], dict) or (nullable and training[key] is None)):
            return f"training.{key} must be an object{' or null' if nullable else ''}, got {training[key]!r}"
    if not isinstance(evaluation, dict):
        return f"evaluation must be an object (vs_<opponent>: results, protocol), got {evaluation!r}"
    for anchor, result in evaluation.items():
        if not anchor.startswith("vs_"):
            continue
        where = f"evaluation.{anchor}"
        if not isinstance(result, dict):
            return f"{where} must be an object (games, win, draw, loss), got {result!r}"
        if "games" in result and not (is_int(result["games"]) and result["games"] >= 0):
            return f"{where}.games must be a non-negative int, got {result['games']!r}"
        for outcome in ("win", "draw", "loss"):
            record = result.get(outcome, {})
            if not isinstance(record, dict):
                return f"{where}.{outcome} must be an object (rate, ci95), got {record!r}"
            if "rate" in record and not _is_share(record["rate"]):
                return f"{where}.{outcome}.rate must be a number from 0 to 1, got {record['rate']!r}"
            ci95 = record.get("ci95", [0, 0])
            if not (isinstance(ci95, list) and len(ci95) == 2 and all(map(_is_share, ci95))):
                return f"{where}.{outcome}.ci95 must be two numbers from 0 to 1 (the interval's ends), got {ci95!r}"
    return None


def _is_share(value) -> bool:
    """A rate: a JSON number (not a bool, not NaN) from 0 to 1."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1


def check_compatible(meta: dict, env: str | None = None, source: str = "model", *,
                     sidecar: str | Path | None = None) -> None:
    """Raise ModelMismatchError unless ``meta`` matches the env this library builds for its env id.

    ``sidecar``: the file ``meta`` was read from, named when its content is at fault."""
    from .registry import ENVS, env_family

    env_id = meta["env_id"]
    where = f"its sidecar {sidecar}" if sidecar else "its metadata"
    if not isinstance(env_id, str):
        raise ModelMismatchError(f"{source}: the env_id of {where} must be an env name such as 'terralore_v0', "
                                 f"got {env_id!r}; restore the sidecar or re-export the model")
    if env is not None and env != env_id:
        raise ModelMismatchError(f"{source} was trained for {env_id!r}, not {env!r}; load a model made for "
                                 f"{env!r} (models/{env_family(env)}/) or play it in {env_id!r}")
    if env_id not in ENVS:
        ours = [n for n in ENVS if env_family(n) == env_family(env_id)]
        hint = (f"this library has {ours}: the env version changed, so retrain or install the version the model "
                "was made for") if ours else f"known envs: {sorted(ENVS)}"
        raise ModelMismatchError(f"{source} was trained for env {env_id!r}, which this library does not have; {hint}")
    # The version is the env id's _vN suffix (registry.py); a sidecar saying another one was edited or
    # mixed up, and which of the two the weights were trained for is unknown. No env_version: older format.
    version = env_id.rpartition("_v")[2] if "_v" in env_id else None
    if "env_version" in meta and version is not None and str(meta["env_version"]) != version:
        raise ModelMismatchError(f"{source}: {where} says env_version {meta['env_version']!r} but env_id {env_id!r} "
                                 f"is version {version}; one of them was edited, so which env the model was "
                                 "trained for is unknown: restore the sidecar or re-export the model")
    game_config = meta.get("game_config", {})
    if not isinstance(game_config, dict):
        raise ModelMismatchError(f"{source}: the game_config of {where} must be a JSON object of {env_id}'s "
                                 f"options, got {game_config!r}; restore the sidecar or re-export the model")
    try:
        facts = _layout_facts(env_id, game_config)
    except (TabletopError, TypeError, ValueError) as exc:
        raise ModelMismatchError(f"{source}: {env_id} cannot be built with the game_config of {where} ({exc}). "
                                 "The sidecar was edited or its env_id names another game: restore it or "
                                 "re-export the model") from exc
    problems = _layout_problems(meta, facts)
    if problems:
        raise ModelMismatchError(f"{source} does not match {env_id} as built by this library: "
                                 + "; ".join(problems)
                                 + ". The encoding changed without a version bump, or the model is stale: retrain it "
                                 "(the sidecar's training.command reproduces it).")


def _layout_facts(env_id: str, game_config: dict) -> tuple:
    """(observation-layout hash, observation size, number of actions, action-layout hash) of ``env_id``'s game
    built with ``game_config`` (the part its layouts depend on, ``layout_config``)."""
    game_class, options = _layout_options(env_id, game_config)
    # the class too: an env id registered anew in one process (a test's toy game, a game edited in a notebook)
    # would otherwise be judged by the layouts of the class first built under that id
    key = (env_id, game_class, json.dumps(options, sort_keys=True, default=str))
    facts = recall(_LAYOUTS, key)
    if facts is None:  # building a game loads its catalogue: once per process is enough
        game = _built_game(env_id, game_config)
        facts = (game.observation_layout.hash(), game.observation_layout.size, game.num_actions,
                 game.action_layout.hash())
        keep(_LAYOUTS, key, facts, CONFIG_CACHE_SIZE)
    return facts


def _layout_options(env_id: str, game_config: dict) -> tuple[type, dict]:
    """(``env_id``'s game class, the options of ``game_config`` its layouts depend on)."""
    from .registry import ENVS

    game_class = ENVS[env_id].load_module().raw_env.game_class
    return game_class, game_class.layout_config(game_config)


def _built_game(env_id: str, game_config: dict):
    """``env_id``'s game built with the options of ``game_config`` its layouts depend on."""
    from .registry import make_game

    return make_game(env_id, **_layout_options(env_id, game_config)[1])


def _layout_problems(meta: dict, facts: tuple) -> list[str]:
    """What of a sidecar's layout facts differs from ``facts`` (:func:`_layout_facts`), in words."""
    obs_hash, obs_size, num_actions, action_hash = facts
    problems = []
    if meta["observation_layout_hash"] != obs_hash:
        problems.append(f"observation-layout hash {meta['observation_layout_hash']} != {obs_hash}")
    if int(meta["observation_size"]) != obs_size:
        problems.append(f"observation size {meta['observation_size']} != {obs_size}")
    if int(meta["num_actions"]) != num_actions:
        problems.append(f"number of actions {meta['num_actions']} != {num_actions}")
    if "action_layout_hash" in meta and meta["action_layout_hash"] != action_hash:
        problems.append(f"action-layout hash {meta['action_layout_hash']} != {action_hash}")
    return problems


def check_layouts_under(meta: dict, game_config: dict, source: str = "model") -> None:
    """Raise ModelMismatchError unless the env built with ``game_config`` (the rule options it will be played
    under) has the layouts ``meta`` records. :func:`check_compatible` builds the game from the sidecar's own
    options; a game whose layouts depend on an option (how many cards a hand holds) gives a model trained
    under one value vectors of another width under another, and such a model was only warned about as
    playing "with the same observation layout", then failed at its first move as "a model of another env"."""
    from .registry import ENVS, played_config

    env_id = meta.get("env_id")
    if not isinstance(env_id, str) or env_id not in ENVS or not {"observation_layout_hash", "observation_size",
                                                                   "num_actions"} <= set(meta):
        return  # nothing to compare (a policy object's own metadata need not be a sidecar)
    problems = _layout_problems(meta, _layout_facts(env_id, dict(game_config)))
    if problems:
        recorded = meta.get("game_config")
        # both sides with their defaults filled in, as check_rule_options compares them: a game_config
        # naming some options only said "'(absent)' here" of an option the env plays at its default
        trained = _trained_options(env_id, played_config(env_id, recorded if isinstance(recorded, dict) else {}))
        here = _full_config(env_id, dict(game_config))
        differ = ", ".join(f"{k}={trained.get(k, '(absent)')!r} in training, {here.get(k, '(absent)')!r} here"
                           for k in sorted(set(trained) | set(here)) if trained.get(k, "(absent)") != here.get(k, "(absent)"))
        raise ModelMismatchError(f"{source} cannot play this {env_id} env: its rule options ({differ or 'as given'}) "
                                 f"give the game other layouts than the model was trained on ({'; '.join(problems)}). "
                                 "Play it under the options it was trained with (its sidecar's game_config), or "
                                 "train a model under these")


#: options a model plays under without a warning: the README plays the Earth models at every table size
#: (a 2-player model at 4 players and back), whose observation and actions are the same for every count;
#: Earth's ``reward`` shapes the returns the env hands out, not a rule of the game the model plays
CARRIED_OVER_OPTIONS = frozenset({"num_players", "reward"})
_CONFIGS: dict[tuple[str, str, str], dict] = {}


def _full_config(env_id: str, game_config: dict) -> dict:
    """Every option of ``env_id``'s game built with ``game_config``, as JSON values (defaults filled in)."""
    from .registry import make_game

    # and the working folder: a relative data_dir names another folder from another one
    key = (env_id, json.dumps(game_config, sort_keys=True, default=str), os.getcwd())
    config = recall(_CONFIGS, key)
    if config is None:
        config = json.loads(json.dumps(make_game(env_id, **game_config).config(), default=str))
        keep(_CONFIGS, key, config, CONFIG_CACHE_SIZE)
    return config


def _trained_options(env_id: str, recorded: dict) -> dict:
    """The options a model was trained under (``recorded`` through ``played_config``), defaults filled in."""
    try:
        return _full_config(env_id, recorded)
    except (TabletopError, TypeError, ValueError):
        # no game of them here (a catalogue folder of the machine that trained, or a sidecar loaded with
        # check=False): compare the options as recorded, since saying nothing let a model trained on other
        # cards play these ones without a word
        return json.loads(json.dumps(recorded, default=str))


def check_rule_options(meta: dict, game_config: dict, source: str = "model") -> None:
    """Warn (:class:`RuleOptionsWarning`) when the env's rule options differ from the ones the model's
    sidecar says it was trained under, naming each option with both values. Not an error: the layout is
    the same, and playing a model under other rules is a legitimate experiment, but its measured
    strength is for its own rules, and nothing else would say that it is out of its depth."""
    env_id = meta.get("env_id")
    trained = meta.get("game_config", {})
    if not isinstance(env_id, str) or not isinstance(trained, dict):
        return
    try:
        from .registry import get_spec, played_config

        recorded = played_config(env_id, trained)
    except (TabletopError, TypeError, ValueError):  # a sidecar loaded with check=False: nothing to compare
        return
    trained = _trained_options(env_id, recorded)
    here = _full_config(env_id, dict(game_config))
    game_class = get_spec(env_id).load_module().raw_env.game_class
    differ = [k for k in sorted(set(trained) | set(here)) if k not in CARRIED_OVER_OPTIONS and k in trained
              and not game_class.trained_covers(k, trained.get(k), here.get(k))]
    if differ:
        def values(config):
            return ", ".join(f"{k}={config.get(k)!r}" for k in differ)

        warnings.warn(f"{source} was trained with {values(trained)}; this env has {values(here)}. It plays (the "
                      "observation layout is the same), but it never learnt these rules and its measured strength "
                      "is for its own: train a model under these options to rely on it", RuleOptionsWarning,
                      stacklevel=3)


def load_model_policy(path: str | Path, env: str | None = None, deterministic: bool | None = None,
                      backend: str = "auto", check: bool = True) -> MLPPolicy | OnnxPolicy:
    """A ``Policy`` from a saved model (``.onnx``, ``.npz`` or ``.json`` path), without torch or SB3.

    Args:
        path: any of the model's three files.
        env: the env name it must be for (``"terralore_v0"``); None accepts the sidecar's env.
        deterministic: masked argmax (True) or masked sampling (False); None = the sidecar's ``act``
            (how the model was evaluated; argmax when absent).
        backend: ``"numpy"`` (needs the .npz), ``"onnxruntime"`` (needs the .onnx) or ``"auto"``.
        check: refuse a model whose env id, version or layout differs (ModelMismatchError).
    """
    if backend not in ("auto", "numpy", "onnxruntime"):
        raise ValueError(f"backend must be 'auto', 'numpy' or 'onnxruntime', got {backend!r}")
    if deterministic is not None and not isinstance(deterministic, (bool, np.bool_)):
        # "false" (a string from a command line or a file) is truthy: it played argmax without a word
        raise TypeError(f"deterministic must be True (argmax), False (sample) or None (the sidecar's 'act'), got "
                        f"{deterministic!r}")
    meta = read_sidecar(path)
    if check:
        check_compatible(meta, env, source=str(path), sidecar=sidecar_path(path))
    base = Path(path)
    npz_names, onnx_names = (_model_file_names(base, meta, key, suffix) for key, suffix in
                             (("weights", ".npz"), ("onnx", ".onnx")))
    npz = next((base.with_name(n) for n in npz_names if base.with_name(n).is_file()), None)
    onnx_file = next((base.with_name(n) for n in onnx_names if base.with_name(n).is_file()), None)
    name = meta.get("name", base.stem)
    act = meta.get("act", "argmax")
    if act not in ("argmax", "sample"):  # a typo there made the model sample without a word
        raise ModelMismatchError(f"{sidecar_path(path)}: 'act' must be 'argmax' or 'sample' (how the model plays "
                                 f"by default), got {act!r}; correct the sidecar, or export the model again")
    if deterministic is None:
        deterministic = act == "argmax"
    network = meta["network"]
    is_mlp = network.get("kind") == "mlp"
    if backend == "onnxruntime":
        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            raise TabletopError("backend='onnxruntime' needs onnxruntime: pip install onnxruntime, or load with "
                                "backend='auto' (the .npz of an exported MLP plays without it)") from None
    policy: MLPPolicy | OnnxPolicy
    source: Path  # the file it plays from
    if backend != "onnxruntime" and is_mlp and npz is not None:
        policy, source = MLPPolicy(_read_weights(npz), network.get("activation", "tanh"), deterministic, name), npz
    elif backend == "numpy":
        raise TabletopError(f"backend='numpy' needs the MLP weights ({' or '.join(npz_names)} in {base.parent}); "
                            "they are missing: restore them, or use backend='onnxruntime'" if is_mlp else
                            f"backend='numpy' runs MLPs only; the sidecar says this network is "
                            f"{network.get('kind')!r}: use backend='onnxruntime'")
    elif onnx_file is not None:
        policy = OnnxPolicy(onnx_file, deterministic, name, meta["observation_size"], meta["num_actions"])
        source = onnx_file
    else:
        wanted = [*(npz_names if backend == "auto" and is_mlp else []), *onnx_names]
        raise FileNotFoundError(f"model {path}: found none of {', '.join(wanted)} in {base.parent}; restore them "
                                "next to the sidecar, or re-export the model (python -m training.export)")
    policy.metadata, policy.model_file = meta, str(source)
    if isinstance(policy, MLPPolicy) and (policy.observation_size != meta["observation_size"]
                                          or policy.num_actions != meta["num_actions"]):
        raise ModelMismatchError(f"{npz} has shape {policy.observation_size}->{policy.num_actions} but its sidecar "
                                 f"says {meta['observation_size']}->{meta['num_actions']}; re-export the model")
    if isinstance(policy, MLPPolicy):
        _check_network(network, policy.layers, source, onnx_file, sidecar_path(path))
    # last: a file that is broken or of another shape is named as such first
    _check_digest(meta, "weights" if isinstance(policy, MLPPolicy) else "onnx", source, sidecar_path(path))
    return policy


def _check_network(network: dict, weights, npz: Path, onnx_file: Path | None, side: Path) -> None:
    """The sidecar's ``network`` describes the weights the numpy forward runs: their hidden widths, and
    the activation of the exported graph beside them. The forward takes its activation from the
    sidecar, so an edited or mixed-up sidecar (relu over tanh weights) would otherwise play other moves
    without a word."""
    problems = []
    hidden = [int(w.shape[1]) for w, _ in weights[:-1]]
    if "hidden" in network and network["hidden"] != hidden:
        problems.append(f"hidden {network['hidden']} but {npz.name} holds hidden layers {hidden}")
    graph = _graph_activations(onnx_file) if onnx_file is not None and len(weights) > 1 else set()
    said = network.get("activation", "tanh")
    if len(graph) == 1 and said not in graph and onnx_file is not None:  # (a graph was read from it)
        problems.append(f"activation {said!r} but {onnx_file.name} applies {graph.pop()!r}")
    if problems:
        raise ModelMismatchError(f"sidecar {side}: its network says {'; and '.join(problems)}; restore the sidecar "
                                 "that came with these files, or re-export the model (python -m training.export)")


def file_sha256(path: Path) -> str:
    """The hex SHA-256 of a file, remembered per path, modification time and size (a load hashes the
    file it plays: 3 MB for Earth's weights)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    known = recall(_DIGESTS, key)
    if known is None:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        known = _remember(_DIGESTS, key, digest.hexdigest())
    return known


def _check_digest(meta: dict, key: str, file: Path, side: Path) -> None:
    """The file to be played is the one exported with this sidecar (its ``sha256`` record, written by
    training/export.py since 2026-12-02; older sidecars have none, and are not checked). A stale .npz
    beside a newer .onnx and sidecar has the same shape and played other moves without a word."""
    record = meta.get("sha256")
    if record is None:
        return
    if not isinstance(record, dict) or not isinstance(record.get(key, ""), str):
        raise ModelMismatchError(f"sidecar {side}: sha256 must map 'onnx' and 'weights' to hex digests, got "
                                 f"{record!r}; restore the sidecar, or re-export the model")
    if key in record and file_sha256(file) != record[key]:
        raise ModelMismatchError(f"{file} is not the file exported with the sidecar {side.name} (its SHA-256 "
                                 "differs): the files come from different exports. Copy a model's .onnx, .npz "
                                 "and .json together (cp runs/<run>/ppo.{onnx,npz,json} <folder>/), or "
                                 "re-export it")


def _graph_activations(onnx_file: Path) -> set[str]:
    """The activations (of ``ACTIVATIONS``) whose ops an ONNX graph holds, read without the onnx package
    (the loader needs neither it nor torch): a node's ``op_type`` is protobuf field 4, a string, so a
    ``Tanh`` node holds the bytes ``0x22 0x04 'Tanh'``. Weights that happen to hold those six bytes
    could add a name, never remove one: a caller acts only on a single name. Only the file's head is read:
    a graph's nodes (field 1) are written before its weights (field 5), and reading Earth's 3 MB took
    4 ms of a load; a graph laid out otherwise shows no name, and nothing is refused."""
    stat = onnx_file.stat()
    key = (str(onnx_file.resolve()), stat.st_mtime_ns, stat.st_size)
    found = recall(_GRAPH_ACTIVATIONS, key)
    if found is None:
        with open(onnx_file, "rb") as fh:
            data = fh.read(65536)
        ops = {name: name.capitalize().encode() for name in ACTIVATIONS}
        found = _remember(_GRAPH_ACTIVATIONS, key, {name for name, op in ops.items() if bytes([0x22, len(op)]) + op in data})
    return set(found)


#: where a TensorProto may sit in an ONNX file, by protobuf field number (onnx.proto): the messages to walk
_ONNX_FIELDS = {
    "model": {7: "graph", 20: "training", 25: "function"},
    "training": {1: "graph", 2: "graph"},
    "graph": {1: "node", 5: "tensor", 15: "sparse"},
    "function": {7: "node", 11: "attribute"},
    "node": {5: "attribute"},
    "attribute": {5: "tensor", 6: "graph", 10: "tensor", 11: "graph", 22: "sparse", 23: "sparse"},
    "sparse": {1: "tensor", 2: "tensor"},
    "tensor": {},
}


def _external_data_problem(onnx_file: Path) -> str | None:
    """Why an ONNX file is refused before onnxruntime opens it, or None: a tensor of it keeps its values in
    another file (TensorProto.external_data, field 13, or data_location EXTERNAL, field 14). Before 1.24,
    onnxruntime read any path such a tensor names ("/home/<you>/.ssh/id_rsa", "../../x") into the weights,
    where the moves could give it away; an export never has one. Read without the onnx package, as
    :func:`_graph_activations` reads; a file that is no protobuf is left to onnxruntime to refuse."""
    data = onnx_file.read_bytes()
    todo = [("model", 0, len(data))]
    while todo:
        kind, pos, end = todo.pop()
        while pos < end:
            key, pos = _varint(data, pos)
            field, wire = key >> 3, key & 7
            if wire == 0:
                value, pos = _varint(data, pos)
                if kind == "tensor" and field == 14 and value & 0xFFFFFFFF == 1:  # an int32 enum: the low bits
                    return "a tensor of it keeps its values in another file (external data): never an export"
            elif wire == 2:
                size, pos = _varint(data, pos)
                if kind == "tensor" and field == 13:
                    return "a tensor of it keeps its values in another file (external data): never an export"
                if field in _ONNX_FIELDS[kind]:
                    todo.append((_ONNX_FIELDS[kind][field], pos, min(pos + size, end)))
                pos += size
            elif wire in (1, 5):
                pos += 8 if wire == 1 else 4
            elif wire in (3, 4):  # a group, which protobuf skips: its fields are walked as this message's own,
                continue          # which can only refuse more
            else:
                return None  # no protobuf: onnxruntime says so
    return None


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    """The protobuf varint at ``data[pos]`` and the position after it (past the end: a number ending the walk)."""
    value = shift = 0
    while pos < len(data) and shift < 70:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos
    return 0, len(data) + 1


def _model_file_names(base: Path, meta: dict, key: str, suffix: str) -> list[str]:
    """Where a model's weights (``key="weights"``) or graph (``"onnx"``) may be, best first: the name
    with the stem of the file the caller gave, then the name the sidecar records. An export names all
    three files alike; a renamed copy (``m.onnx``, ``m.npz``, ``m.json``) keeps the old names in its
    sidecar, and when those old files are there too they may be another model since."""
    names = [base.with_suffix(suffix).name]
    files = meta.get("files", {})
    recorded = files.get(key) if isinstance(files, dict) else None
    if recorded is not None:
        if not isinstance(recorded, str) or not recorded or Path(recorded).name != recorded:
            raise ModelMismatchError(f"sidecar {sidecar_path(base)}: files.{key} must be the name of a file next "
                                     f"to it, got {recorded!r}; fix it or re-export the model")
        if recorded not in names:
            names.append(recorded)
    return names


#: what reading an .npz that is no export raises (NumPy imports zipfile, zlib and lzma itself). Beside the usual
#: ones: zipfile for a member it cannot unpack, a compression method it lacks or does not know, "patched data"
#: (flag bit 5) (NotImplementedError), an encrypted member (RuntimeError), a broken LZMA stream; and NumPy for an
#: .npy header its fallback for Python 2 headers cannot tokenize (TokenError). Each of those came out of the
#: loader as that bare error, found by a coverage-guided fuzz of the .npz bytes
_UNREADABLE_NPZ: tuple[type[Exception], ...] = (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile,
                                                zlib.error, NotImplementedError, RuntimeError, tokenize.TokenError)
try:
    import lzma

    _UNREADABLE_NPZ += (lzma.LZMAError,)
except ImportError:  # a Python built without it: zipfile then refuses LZMA members with NotImplementedError
    pass


def _read_weights(npz_path: Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """The layers of an .npz, shared read-only between the policies loaded from the same file.

    A truncated, empty or foreign file is refused here (ModelMismatchError naming it), not met as a
    zip or pickle error, or as a matmul error at the first move."""
    stat = npz_path.stat()
    key = (str(npz_path.resolve()), stat.st_mtime_ns, stat.st_size)
    layers = recall(_WEIGHTS, key)
    if layers is None:
        if not stat.st_size:  # said plainly: numpy names it EOFError, or (before 1.25) a pickle refusal
            raise _broken_file(npz_path, "the file is empty, 0 bytes")
        try:
            # opened here, to be closed here: np.load left the file it opened itself open where the zip in it
            # was unreadable (a truncated file), one descriptor per refused load
            with open(npz_path, "rb") as fh:
                data = np.load(fh)  # no pickles: allow_pickle stays False
                if not isinstance(data, np.lib.npyio.NpzFile):
                    raise ValueError("it holds a single array, not the W0, b0, W1, b1, ... of an .npz")
                with data:
                    n = len([k for k in data.files if LAYER_ARRAY.fullmatch(k) and k[0] == "W"])
                    # counted by its "W" too, a "Wx" beside W0..W2 was refused as "W3 is not a file in the archive";
                    # a layer missing (W1 of W0, W2) is named by the read, and a file without W0 as having no layers
                    extra = [k for k in data.files if not LAYER_ARRAY.fullmatch(k)]
                    if extra and n:
                        raise ValueError(f"it holds {', '.join(extra)} beside the layers W0, b0, ... of an export")
                    _check_unpacked_size(data, [f"{p}{i}" for i in range(n) for p in "Wb"], stat.st_size)
                    layers = [(_real_weights(data, f"W{i}"), _real_weights(data, f"b{i}")) for i in range(n)]
        except _UNREADABLE_NPZ as exc:
            raise _broken_file(npz_path, f"{type(exc).__name__}: {exc}") from exc
        problem = _layer_shape_problem(layers)
        if problem:
            raise _broken_file(npz_path, problem)
        for w, b in layers:
            w.flags.writeable = b.flags.writeable = False
        _remember(_WEIGHTS, key, layers)
    return layers


#: the names of an export's arrays: W0, b0, W1, b1, ...
LAYER_ARRAY = re.compile(r"[Wb](?:0|[1-9][0-9]*)")
#: bytes the arrays of an .npz may unpack to beyond twice the file's size: np.savez (the export) stores them
#: as they are, and np.savez_compressed shrinks trained float32 weights by a few per cent only
UNPACKED_SLACK = 64 << 20


def _check_unpacked_size(data, keys: list[str], size: int) -> None:
    """ValueError where reading the arrays ``keys`` of an open .npz of ``size`` bytes would take far more
    memory than the file. np.load allocates what an array's header declares before reading a byte of it: a 4 KB
    file declaring terabytes met a bare MemoryError, and 2 MB of deflated zeros took 2.5 GB and 11 s
    before the file was refused for a missing array. A member that is no .npy array is refused too (np.load
    hands its bytes back)."""
    names = set(data.zip.namelist())
    total = 0
    for key in keys:
        name = key if key in names else f"{key}.npy"
        if name not in names:
            continue  # missing: the read names it
        with data.zip.open(name) as fh:
            version = np.lib.format.read_magic(fh)  # ValueError for a member that is no .npy array
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read(fh)
        total += math.prod(shape) * dtype.itemsize
    if total > 2 * size + UNPACKED_SLACK:
        raise ValueError(f"its arrays declare {total:,} bytes, from a file of {size:,}: a forged header or a zip "
                         "bomb, never an export")


def _real_weights(data, key: str) -> np.ndarray:
    """``data[key]`` as float32, or ValueError: a NaN or infinite weight makes NaN logits, whose argmax
    is a legal but meaningless move, and a complex one would lose its imaginary part in the cast."""
    array = data[key]
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{key} holds {array.dtype} values, not real numbers")
    with np.errstate(over="ignore"):  # a float64 beyond float32's range becomes inf: refused just below
        array = np.ascontiguousarray(array, np.float32)
    if not np.isfinite(array).all():
        raise ValueError(f"{key} holds NaN or infinite values")
    return array


def _layer_shape_problem(layers) -> str | None:
    """What keeps ``[(W, b), ...]`` from being an MLP (W: in x out, b: out, each out the next in), or None."""
    if not layers:
        return "it has no layers (no W0)"
    for i, (w, b) in enumerate(layers):
        if w.ndim != 2 or b.shape != w.shape[1:]:
            return f"layer {i} has W of shape {w.shape} and b of shape {b.shape}"
        if i and w.shape[0] != layers[i - 1][0].shape[1]:
            return f"layer {i} takes {w.shape[0]} inputs but layer {i - 1} gives {layers[i - 1][0].shape[1]}"
    return None


def _within(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> bool:
    """Whether each row of ``values`` (one observation or a batch) lies within ``low`` .. ``high``."""
    return values.shape[-1:] == low.shape and bool(((values >= low) & (values <= high)).all())


def _broken_file(path, problem: str) -> ModelMismatchError:
    stem = Path(path).with_suffix("")
    return ModelMismatchError(f"{path} is not a readable model file ({problem}): it is corrupt, truncated or not "
                              f"an export; re-export the model (python -m training.export --model <run's .zip> "
                              f"--out {stem}) or restore the file")


# Per-process caches: (env id, game class, layout options) -> layout facts; (npz path, mtime, size) -> weights.
_LAYOUTS: dict[tuple, tuple] = {}
_WEIGHTS: dict[tuple, list] = {}
_GRAPH_ACTIVATIONS: dict[tuple, set] = {}
_DIGESTS: dict[tuple, str] = {}
#: model files the per-file caches keep, the most recently loaded: unbounded, a process that loads each
#: checkpoint of a run in turn (or a model re-exported in place, a new mtime each time) kept every file's
#: weights after its policies were gone, 3 MB an Earth model; a policy keeps its own weights when evicted
FILE_CACHE_SIZE = 16
#: rule options the per-config caches (_LAYOUTS, _CONFIGS) keep, the most recently used: unbounded, a loop that
#: built envs with a model opponent and new deck lists each time kept one of each per deck pair, 1.9 kB
CONFIG_CACHE_SIZE = 64


def _remember(cache: dict, key: tuple, value):
    """Keep ``value`` under ``key`` = (path, mtime, size) in a per-file cache: an earlier version of the
    same path can no longer be read, so it goes, and so do the least recently used files beyond
    ``FILE_CACHE_SIZE``."""
    with LOCK:
        for stale in [k for k in cache if k[0] == key[0]]:
            del cache[stale]
        return keep(cache, key, value, FILE_CACHE_SIZE)


def _model_roots() -> list[Path]:
    """Where models are looked up by id: ``TABLETOP_MODELS_DIR`` (os.pathsep-separated), then the shipped
    models: ``tabletop_envs/models`` inside an installed wheel, ``models/`` in a checkout."""
    import os

    from .registry import shipped_folder

    roots = [Path(p) for p in os.environ.get("TABLETOP_MODELS_DIR", "").split(os.pathsep) if p]
    return roots + [shipped_folder(Path(__file__).resolve().parents[1] / "models", "models")]


def model_path_for_id(policy_id: str) -> Path | None:
    """``"terralore_v0/ppo"`` -> ``models/terralore/ppo.onnx`` when that file (or its .npz) exists."""
    from .registry import ENVS

    env_name, _, name = policy_id.partition("/")
    spec = ENVS.get(env_name)
    if spec is None or not name:
        return None
    for root in _model_roots():
        for suffix in (".onnx", ".npz"):
            candidate = root / spec.models_dir / f"{name}{suffix}"
            if path_is(candidate, Path.exists) and sidecar_path(candidate).exists():
                return candidate
    return None


def shipped_model_ids(env_name: str | None = None) -> list[str]:
    """The ids of the models that load by id (``"earth_v0/ppo_4p"``), of one env or of all."""
    from .registry import ENVS

    ids: set[str] = set()
    for name, spec in ENVS.items():
        if env_name in (None, name):
            for root in _model_roots():
                ids.update(f"{name}/{side.stem}" for side in (root / spec.models_dir).glob("*.json")
                           if model_path_for_id(f"{name}/{side.stem}") is not None)
    return sorted(ids)
