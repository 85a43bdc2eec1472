"""Opponents: one ``Policy`` protocol, a random policy and a registry of policies by id.

A policy sees exactly what a seat sees — the flat observation vector and the int8 action mask of
the AEC observation — never the true state. Heuristic bots decode what they need from the vector
through the game's ``ObservationLayout``.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib
import inspect
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import TabletopError
from .files import URL, path_is, user_path


@runtime_checkable
class Policy(Protocol):
    """What plays a seat: anything with ``act(observation, action_mask, rng) -> int``.

    ``observation`` and ``action_mask`` are what the env gives the seat to move (``obs["observation"]``
    and ``obs["action_mask"]`` of ``env.last()``); ``rng`` is the caller's generator, the only source of
    randomness a policy should draw from, so a seeded match replays. The answer must be a legal action.
    ``load_policy`` returns one; any object with such a method can sit at a table (``play_match``,
    ``SingleAgentEnv(opponent=...)``, ``training.evaluate``), named in reports by its ``name`` attribute,
    else its class's name.

    The mask is read-only (the game's own array: copy it to change it); the observation is the policy's own.
    One object plays every game of a match or round robin (and every seat it is given, a filler's included).
    A policy with memory across calls (an RNN's hidden state, a search tree it reuses, a count of its
    moves) may define ``restart()``, OpenSpiel's name for it: the arena, ``SingleAgentEnv``, ``record_game``
    and the play command call it before each game the object plays (once a game, however many seats it takes), so a
    seeded match replays and a pair's games do not depend on the others of a round robin, as they do for a
    policy whose answer depends on its arguments alone. Without it, what it remembers carries from game to
    game and pair to pair. An object seated at several seats sees their decisions interleaved; one shared by
    the envs of a vec env also sees their games interleaved, and is restarted at each env's new deal while
    the others play on: give each env an object of its own."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """Return a legal action id for this observation."""
        ...


NO_LEGAL_ACTION = "the action mask has no legal action: a policy is only asked at a decision point"


def whole_counts(values, scale: int) -> np.ndarray:
    """The whole numbers an observation holds scaled down (castle HP / 10, soil / 40, copies / 4 …), as exact
    float64s, for a bot that reads them back. Multiplying back alone leaves float32 rounding (``(3 - 1) / 6 * 6``
    is 1.9999999; NumPy 1's scalar arithmetic widens ``0.6 * 10`` to 6.000000238, NumPy 2 keeps it 6.0), and a
    bot's thresholds and ties then fall one way or the other."""
    return np.rint(np.asarray(values, np.float64) * scale)


def check_policy_input(policy_id: str, observation, action_mask, observation_size: int, num_actions: int) -> np.ndarray:
    """Refuse what a game's own policy (a heuristic bot) cannot read: another env's observation or mask
    (ModelMismatchError, where it would otherwise pick an action from numbers it misreads) or a mask
    without a legal action. Returns the legal action ids (bots call this on every move: kept cheap)."""
    try:
        shapes = observation.shape, action_mask.shape
    except AttributeError:  # lists
        shapes = np.shape(observation), np.shape(action_mask)
    if shapes != ((observation_size,), (num_actions,)):
        from .errors import ModelMismatchError

        if shapes[0][-1:] == (observation_size,) and shapes[1][-1:] == (num_actions,):  # this env's, but a batch
            raise ValueError(f"policy {policy_id!r}: act() takes one observation and its mask (1-D, {observation_size} "
                             f"and {num_actions} values), got shapes {shapes[0]} and {shapes[1]}: ask it row by row "
                             "(tabletop_envs.core.policy.act_batch does)")

        env_name = policy_id.partition("/")[0]
        raise ModelMismatchError(
            f"policy {policy_id!r} reads {env_name}'s observations ({observation_size} values) and action masks "
            f"({num_actions} entries), got shapes {shapes[0]} and {shapes[1]}: most likely another env's. Play it "
            f"in {env_name}, or load a policy of this env (tabletop-envs list).")
    legal = np.flatnonzero(action_mask)
    if not legal.size:
        raise ValueError(NO_LEGAL_ACTION)
    return legal


class RandomPolicy:
    """Uniform over the legal actions."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if not legal.shape[0]:
            raise ValueError(NO_LEGAL_ACTION)
        return int(legal[rng.integers(legal.shape[0])])

    def __repr__(self) -> str:
        return "RandomPolicy()"


def policy_name(policy) -> str:
    """A policy's name in reports and messages: an id or a path as given (a ``Path`` too: its ``name``
    attribute is only the file's name, and two ``runs/*/ppo.onnx`` would share it), else the object's
    ``name``, else its class's."""
    if isinstance(policy, (str, os.PathLike)):
        return os.fspath(policy)
    name = getattr(policy, "name", None)
    # a name of None or 7 became a null or int key of a report's Elo table
    return name if isinstance(name, str) and name else type(policy).__name__


def restart_policies(policies) -> None:
    """``restart()`` each policy that has one (see :class:`Policy`), once per object, before a game: a
    policy with memory carried one game's into the next, and a seeded match did not replay."""
    seen: set[int] = set()
    for policy in policies:
        restart = getattr(policy, "restart", None)
        if callable(restart) and id(policy) not in seen:
            seen.add(id(policy))
            restart()


def policy_rng(seed: int, *stream: int) -> np.random.Generator:
    """The generator the policies of a game (or match) dealt from ``seed`` draw from (``stream``: more
    ints that tell apart generators of the same seed).

    Seeded with a one-way hash (BLAKE2b) of the seed: a policy holds its generator, which carries what
    seeded it (``bit_generator.seed_seq.entropy``) and a state that ``SeedSequence``'s arithmetic can be
    run back from. Seeded with the seed itself, a spawned child of it or ``[seed, 1]``, the generator
    handed a policy the seed of the deals, and so every hidden card (``new_rng(seed)`` deals them).
    The hash hides a seed only as well as the seed is hard to guess: a policy may hash guesses too,
    which is why a match between untrusted bots takes a large secret seed (README, "What a seat may read").
    """
    key = ",".join(str(int(x)) for x in (seed, *stream)).encode()
    digest = hashlib.blake2b(key, digest_size=32, person=b"tabletop-policy").digest()
    return np.random.Generator(np.random.PCG64(int.from_bytes(digest, "little")))


def act_batch(policy: Policy, observations: np.ndarray, action_masks: np.ndarray,
              rng: np.random.Generator) -> np.ndarray:
    """One action per row of a batch (rows: seats of different games that this policy plays).

    A policy may define ``act_batch(observations, action_masks, rng)`` to answer a batch with one
    forward pass (the numpy MLP does); any other is asked row by row.
    """
    batched = getattr(policy, "act_batch", None)
    if batched is not None:
        return batched(observations, action_masks, rng)
    return np.array([policy.act(o, m, rng) for o, m in zip(observations, action_masks)], np.int64)


_POLICIES: dict[str, Callable[..., Policy]] = {}


def register_policy(policy_id: str, factory: Callable[..., Policy], overwrite: bool = False) -> None:
    """Make ``load_policy(policy_id)`` build ``factory(**kwargs)``. Ids look like ``"terralore_v0/heuristic"``.

    A factory with a ``game_config`` parameter gets the rule options of the env it will play when the
    caller knows them (``load_policy(..., game_config=...)``): Earth's heuristic reads the cards of a
    custom ``data_dir`` from it."""
    if "/" not in policy_id:
        raise ValueError(f"policy id {policy_id!r} must look like '<env_name>/<name>'")
    if policy_id in _POLICIES and not overwrite:
        raise ValueError(f"policy id {policy_id!r} is already registered")
    _POLICIES[policy_id] = factory


def registered_policies() -> list[str]:
    """The policy ids registered in code (each env's bots and any ``register_policy``), sorted. Trained
    models are found as files instead: ``shipped_model_ids()`` in ``tabletop_envs.core.onnx_policy``
    lists those ``load_policy`` finds (``tabletop-envs list`` prints both)."""
    from .registry import ENVS

    for name in ENVS:
        _import_policies(name)
    return sorted(_POLICIES)


def _import_policies(env_name: str) -> None:
    from .registry import ENVS

    spec = ENVS.get(env_name)
    if spec is not None and spec.policies_module:
        importlib.import_module(spec.policies_module)


#: the rule options a loaded policy was last checked against, kept on the policy (any object: a Policy is a
#: protocol, which has no such attribute)
_RULES_CHECKED = "_rules_checked"


def load_policy(policy: str | os.PathLike[str] | Policy, env: str | None = None, game_config: dict | None = None,
                **kwargs) -> Policy:
    """A ready ``Policy`` from an id (``"terralore_v0/heuristic"``), a model file path, or a policy.

    Model files (``.onnx`` with a ``.json`` sidecar) are loaded without torch; a model whose env id,
    version or observation-layout hash does not match the env is refused. ``env`` given (an env name),
    a policy of another game is refused too (ModelMismatchError): an id naming another env, a model
    trained for another env, or a loaded model policy whose metadata says so.

    ``game_config`` given (the rule options of the env it will play, e.g. ``env.game.config()``), a
    model trained under other options gets a :class:`~tabletop_envs.core.errors.RuleOptionsWarning`
    naming each one with both values; the player count is exempt (the Earth models play every table
    size). The env faces, the arena, evaluation and ``play`` pass it. A model whose layouts those options
    change (a game whose observation depends on an option) cannot play there: a ModelMismatchError.
    """
    if game_config is not None and not (isinstance(game_config, dict) and all(isinstance(k, str) for k in game_config)):
        # a model's check ended on "'str' object has no attribute 'items'", and a bot ignored it without a word
        raise TypeError(f"game_config must be None or a dict of rule options by name, as env.game.config() gives; "
                        f"got {game_config!r}")
    loaded = _load_policy(policy, env, game_config, **kwargs)
    meta = getattr(loaded, "metadata", None)
    if game_config is not None and isinstance(meta, dict) and "env_id" in meta:
        from .onnx_policy import check_layouts_under, check_rule_options

        # a tool that loads a model and hands the object on (evaluate's round robin) says it once
        rules = repr(sorted(game_config.items()))
        if getattr(loaded, _RULES_CHECKED, None) != rules:
            name = os.fspath(policy) if isinstance(policy, (str, os.PathLike)) else policy_name(policy)
            if kwargs.get("check", True):  # load_model_policy's check=False: the layouts are the caller's to vouch for
                check_layouts_under(meta, game_config, source=f"model {str(name)!r}")
            check_rule_options(meta, game_config, source=f"model {str(name)!r}")
            try:
                setattr(loaded, _RULES_CHECKED, rules)
            except AttributeError:
                pass
    return loaded


def _load_policy(policy: str | os.PathLike[str] | Policy, env: str | None = None, game_config: dict | None = None,
                 **kwargs) -> Policy:
    if env is not None:
        from .registry import get_spec

        get_spec(env)  # an unknown env name is an UnknownEnvError naming the known ones, not a mismatch
    # os.PathLike, not Path: SingleAgentEnv passes on any PurePath opponent, and a PurePosixPath is no Path
    if not isinstance(policy, (str, os.PathLike)):
        if isinstance(policy, type):  # a class has act() too, and would fail at its first move on a missing rng
            raise TypeError(f"expected a policy id, a model path or an object with act(); got the class "
                            f"{policy.__name__}, not a policy: pass an instance, {policy.__name__}()")
        if isinstance(policy, Policy):
            if kwargs:  # returned as it is, it would play as loaded: deterministic=False kept its argmax
                raise TypeError(f"load_policy options {sorted(kwargs)} apply when a policy is loaded from an id or a "
                                f"model path; {policy_name(policy)!r} is loaded already. Load it from its id or path "
                                "with them (load_policy('models/<game>/ppo.onnx', deterministic=False))")
            meta = getattr(policy, "metadata", None)
            if env is not None and isinstance(meta, dict) and "env_id" in meta:
                from .onnx_policy import check_compatible

                check_compatible(meta, env, source=f"policy {policy_name(policy)!r}")
            return policy
        raise TypeError(f"expected a policy id, a model path or an object with act(); got {type(policy).__name__}")
    text = os.fspath(policy)  # str() of an os.PathLike that is no PurePath is its repr, not its path
    if text.startswith("~"):  # "~/models/m.onnx" from a config file: a path, never an id
        text = str(user_path(text))
    if text.lower().endswith(".py"):  # it was read as a model and refused for want of a sidecar (.PY: Windows)
        raise TabletopError(_PYTHON_SOURCE.format(f"{text} is Python source, not a policy id or a model"))
    if text.endswith((".onnx", ".json", ".npz")) or path_is(text, Path.is_file) or URL.match(text):
        from .onnx_policy import load_model_policy

        _refuse_model_options(text, kwargs)
        return load_model_policy(text, env=env, **kwargs)
    env_name, _, name = text.partition("/")
    from .registry import ENVS

    # another env's id; a path such as "/runs/m" or "runs/m" names no env and is no mismatch
    if env is not None and name and env_name != env and env_name in ENVS:
        from .errors import ModelMismatchError

        raise ModelMismatchError(f"policy {text!r} plays {env_name}, not {env}; pick one of {env}'s policies "
                                 "(tabletop-envs list)")
    if name == "random":
        if env_name not in ENVS:
            from .registry import env_hint

            raise TabletopError(f"unknown env {env_name!r} in policy id {text!r}; known: {sorted(ENVS)}"
                                f"{env_hint(env_name)}")
        return _build(RandomPolicy, text, kwargs)
    if text not in _POLICIES:
        _import_policies(env_name)
    if text not in _POLICIES:
        from .onnx_policy import load_model_policy, model_path_for_id, shipped_model_ids

        shipped = model_path_for_id(text)  # "terralore_v0/ppo" -> models/terralore/ppo.onnx
        if shipped is not None:
            _refuse_model_options(text, kwargs)
            return load_model_policy(shipped, env=env_name, **kwargs)
        if text and path_is(text, Path.is_dir):
            raise TabletopError(_folder_message(Path(text)))
        known = sorted({*registered_policies(), *shipped_model_ids()})
        close = _close_ids(text, [*known, *(f"{n}/random" for n in ENVS)], env)
        # module:attr, as other tools name a Python object; not an id with a tag or a typo (earth_v0/ppo:4p meant
        # earth_v0/ppo_4p, and was told that Python objects are not loaded by name)
        if re.fullmatch(r"(\w+/)?[\w.]+:\w+", text) and not any(c.startswith(text.partition(":")[0]) for c in close):
            raise TabletopError(_PYTHON_SOURCE.format(f"{text!r} names no policy (ids and paths are data; a "
                                                      "Python object is not loaded by name)"))
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise TabletopError(f"no policy registered as {text!r}.{hint} Known ids: {', '.join(known)} (and "
                            "<env>/random); or pass a path to a .onnx model")
    factory = _POLICIES[text]
    if game_config is not None and "game_config" in inspect.signature(factory).parameters:
        kwargs.setdefault("game_config", dict(game_config))
    return _build(factory, text, kwargs)


_PYTHON_SOURCE = ("{}: a policy written in Python plays from Python, as the object itself, e.g. "
                  "training.evaluate.round_robin(env, [YourPolicy(), 'heuristic'], games=200) (README, 'Your own "
                  "agent against ours'); a trained network plays from the command line once exported "
                  "(python -m training.export ... --env <env>)")


def _build(factory, text: str, kwargs: dict) -> Policy:
    """``factory(**kwargs)``, refusing options it does not take by the id and what it takes: its own
    TypeError named a class the user never wrote ("RandomPolicy() takes no arguments")."""
    params = inspect.signature(factory).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        takes = [name for name, p in params.items()
                 if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        unknown = sorted(set(kwargs) - set(takes))
        if unknown:
            raise TypeError(f"policy {text!r} takes no option {', '.join(unknown)}; its options: "
                            f"{', '.join(takes) or 'none'} (deterministic and backend are for model files)")
    return factory(**kwargs)


def _refuse_model_options(text: str, kwargs: dict) -> None:
    """Refuse the options ``load_model_policy`` does not take, naming ``load_policy`` and the ones it does:
    its own TypeError named load_model_policy(), which the user never called."""
    from .onnx_policy import load_model_policy

    takes = [name for name in inspect.signature(load_model_policy).parameters if name not in ("path", "env")]
    unknown = sorted(set(kwargs) - set(takes))
    if unknown:
        raise TypeError(f"load_policy({text!r}) takes no option {', '.join(unknown)}; a model's options: "
                        f"{', '.join(takes)} (beside env and game_config)")


def _close_ids(text: str, known: list[str], env: str | None) -> list[str]:
    """The ids ``text`` most likely meant: for a name without its env (``"heuristic"``, as training.evaluate
    and the recipes take it), that name under ``env`` or under each env; else the nearest id (a typo, or
    another version: ``terralore_v1/ppo``)."""
    if "/" not in text:
        same = [k for k in known if k.partition("/")[2] == text and env in (None, k.partition("/")[0])]
        if same:
            return same
    return difflib.get_close_matches(text, known, n=1)


def _folder_message(folder: Path) -> str:
    """What to say when a folder is given where a model file is wanted: the models it holds."""
    models = []
    for side in sorted(folder.glob("*.json")):
        model = next((side.with_suffix(s) for s in (".onnx", ".npz") if side.with_suffix(s).is_file()), None)
        if model is not None:
            models.append(model.name)
    if models:
        return f"{folder} is a folder, not a model: pass one of its models ({', '.join(models)})"
    return (f"{folder} is a folder, not a model; it holds no model (a .onnx or .npz with its .json sidecar): "
            "pass the path of a model file, or a policy id (tabletop-envs list)")
