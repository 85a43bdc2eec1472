"""The rules-engine protocol every game implements (OpenSpiel-like ``Game`` / ``State``).

An engine knows nothing about gymnasium, pettingzoo or torch. Chance lives in the state's own
seeded ``numpy.random.Generator`` so that the same seed and the same actions give the same game.

A game subclasses :class:`Game` and :class:`State` and implements the methods marked "game
implements". Everything else (AEC env, single-agent env, conformance tests, benchmark) is generic.
"""

from __future__ import annotations

import copy
import inspect
import json
from typing import Any, ClassVar

import numpy as np

from .errors import ConfigError, IllegalActionError, is_int
from .layout import ActionLayout, ObservationLayout

TERMINAL = -1


def check_flags(**flags) -> None:
    """Rule options that are switches must be real booleans: bool("no") is True."""
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise ConfigError(f"{name} must be True or False, got {value!r}")


def check_num_players(num_players, player_counts, rule: str) -> None:
    """``num_players`` is an int in ``player_counts``, else a ConfigError: ``rule``, then the value as given.
    The type too: 2.0 == 2 and True == 1, and a "2" printed without quotes reads as if 2 were refused."""
    if not is_int(num_players) or num_players not in player_counts:
        raise ConfigError(f"{rule}; got num_players={num_players!r}")


class Game:
    """Static description of one game configuration: rules options, catalogue, layouts."""

    #: registry name with version, e.g. ``"terralore_v0"``; bump the version with any change of the
    #: observation or action layout. A fix that makes play follow the rule text (or hide what the rules
    #: hide) stays in the version, listed in its version history.
    env_name: ClassVar[str] = ""
    #: options that joined a released version with a default other than how it played before: a model
    #: sidecar written before an option existed does not name it, and its model played with this value
    options_before_they_existed: ClassVar[dict] = {}
    #: player counts the game supports
    player_counts: ClassVar[tuple[int, ...]] = (2,)
    #: default ``max_turns`` truncation for the env faces
    default_max_turns: ClassVar[int] = 200

    num_players: int
    action_layout: ActionLayout
    observation_layout: ObservationLayout
    state_class: ClassVar[type[State]]

    @classmethod
    def build(cls, **game_kwargs) -> Game:
        """The game with these rule options; an unknown option is a ConfigError that lists the known ones
        (a plain TypeError would not)."""
        params = inspect.signature(cls.__init__).parameters
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            unknown = sorted(set(game_kwargs) - set(params))
            if unknown:
                known = ", ".join(n for n in params if n != "self")
                raise ConfigError(f"{cls.env_name or cls.__name__} has no option {', '.join(unknown)}; "
                                  f"its options are: {known} (and the env's render_mode, max_turns, illegal_action)")
        return cls(**game_kwargs)

    @property
    def num_actions(self) -> int:
        return self.action_layout.num_actions

    def new_initial_state(self, seed: int | None = None) -> State:  # game implements
        raise NotImplementedError

    def config(self) -> dict:
        """JSON-safe keyword arguments that rebuild this game (stored in replays and saved models)."""
        return {}

    def state_from_dict(self, data: dict) -> State:
        return self.state_class.from_dict(self, data)


class State:
    """One position of a game. Subclasses store only JSON-friendly data plus ``self.rng``."""

    game: Game
    rng: np.random.Generator
    #: attributes that are caches or back-references, left out of to_dict / equality
    _transient: ClassVar[tuple[str, ...]] = ("game", "_mask_cache")

    # ----------------------------------------------------------------- game implements
    def current_player(self) -> int:
        """The seat that decides now, or ``TERMINAL`` (-1)."""
        raise NotImplementedError

    def _legal_action_mask(self) -> np.ndarray:
        """int8 0/1 vector of length ``game.num_actions`` for the current player."""
        raise NotImplementedError

    def _apply_action(self, action: int) -> None:
        """Apply an action already known to be legal."""
        raise NotImplementedError

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def returns(self) -> np.ndarray:
        """Per-seat result; all zeros until the game ends."""
        raise NotImplementedError

    def observation(self, player: int) -> np.ndarray:
        """float32 vector of ``game.observation_layout`` from ``player``'s view only."""
        raise NotImplementedError

    def resample_hidden(self, player: int, rng: np.random.Generator) -> State:
        """A copy in which everything ``player`` cannot see is re-dealt consistently with what they saw,
        future chance included: the copy gets a generator of its own, drawn from ``rng``."""
        raise NotImplementedError

    @property
    def turn(self) -> int:
        """Game turns played so far; drives the ``max_turns`` truncation."""
        raise NotImplementedError

    def check_invariants(self) -> None:
        """Raise AssertionError if the state breaks a game invariant (cards conserved, no negative
        resources …). Called by the conformance harness at every decision of random games."""
        raise NotImplementedError

    def render_text(self, player: int | None = None) -> str:
        """Readable table; ``player`` given: only what that player sees."""
        return repr(self)

    def decision(self) -> str:
        """Name of the pending decision (for messages)."""
        return ""

    # ----------------------------------------------------------------- generic
    def legal_action_mask(self) -> np.ndarray:
        mask = self.__dict__.get("_mask_cache")
        if mask is None:
            mask = self._legal_action_mask()
            # shared (info["action_mask"], opponents, the next call): a write would change the rules
            mask.setflags(write=False)  # (half the cost of assigning flags.writeable)
            self._mask_cache = mask
        return mask

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self.legal_action_mask()).tolist()

    def apply_action(self, action: int) -> None:
        action = int(action)
        mask = self.legal_action_mask()
        if not (0 <= action < mask.shape[0]) or not mask[action]:
            raise IllegalActionError(action, self.legal_actions(), self._describe_safe, self.decision())
        self.apply_legal_action(action)

    def apply_legal_action(self, action: int) -> None:
        """``apply_action`` for an int already checked against ``legal_action_mask()`` (the envs check
        it once, in :func:`~tabletop_envs.core.aec.resolve_action`, and must not pay for it twice)."""
        self._mask_cache = None
        self._apply_action(action)

    def _describe_safe(self, action) -> str:
        return self.action_to_string(int(action))

    def action_to_string(self, action: int) -> str:
        return self.game.action_layout.label(action)

    def clone(self) -> State:
        memo = {id(self.game): self.game}
        return copy.deepcopy(self, memo)

    def to_dict(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k not in self._transient}
        data["rng"] = self.rng.bit_generator.state
        return {"env": self.game.env_name, "config": self.game.config(), "state": _jsonable(data)}

    @classmethod
    def from_dict(cls, game: Game, data: dict) -> State:
        if data.get("env") != game.env_name:
            raise ValueError(f"state of {data.get('env')!r} cannot be loaded into {game.env_name!r}")
        state = cls.__new__(cls)
        state.game = game
        fields = dict(copy.deepcopy(data["state"]))
        rng_state = fields.pop("rng")
        state.__dict__.update(fields)
        state.rng = np.random.Generator(getattr(np.random, rng_state["bit_generator"])())
        state.rng.bit_generator.state = rng_state
        state._mask_cache = None
        return state

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


def _jsonable(value: Any) -> Any:
    """Plain JSON types only: tuples become lists, numpy scalars/arrays become Python values."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"state dict keys must be str for JSON, got {k!r}")
            out[k] = _jsonable(v)
        return out
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"state field of type {type(value).__name__} is not JSON-safe; store lists/dicts/ints")


def check_json_roundtrip(state: State) -> State:
    """Serialise through real JSON text and back (used by tests and replays)."""
    text = json.dumps(state.to_dict())
    return state.game.state_from_dict(json.loads(text))


def new_rng(seed: int | None) -> np.random.Generator:
    """A generator on NumPy's PCG64, the bit generator deals are drawn from: a seed replays the same
    deal wherever the NumPy release keeps PCG64's stream (None: fresh entropy)."""
    return np.random.Generator(np.random.PCG64(seed))


def search_hidden_deal(steps: int, options, rng: np.random.Generator, what: str) -> list:
    """One choice per step, depth-first: ``options(picks)`` gives the candidates for the next step after
    ``picks`` (an empty list is a dead end), tried in a random order. For ``resample_hidden`` when dealing
    at random keeps failing: the real deal always fits, so a deal exists, and the search finds one without
    keeping the real cards. ``what`` names the deal in the error raised if none fits."""
    picks: list = []

    def extend() -> bool:
        if len(picks) == steps:
            return True
        candidates = options(picks)
        for i in rng.permutation(len(candidates)):
            picks.append(candidates[int(i)])
            if extend():
                return True
            picks.pop()
        return False

    if not extend():
        raise AssertionError(f"no deal of {what} fits what the player saw, though the real one does")
    return picks
