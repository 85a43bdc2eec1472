"""The rules-engine protocol every game implements (OpenSpiel-like ``Game`` / ``State``).

An engine knows nothing about gymnasium, pettingzoo or torch. Chance lives in the state's own
seeded ``numpy.random.Generator`` so that the same seed and the same actions give the same game.

A game subclasses :class:`Game` and :class:`State` and implements the methods marked "game
implements". Everything else (AEC env, single-agent env, conformance tests, benchmark) is generic.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import json
import traceback
from typing import Any, ClassVar, Literal, TypeVar, overload

import numpy as np

from .cache import keep, recall
from .errors import ConfigError, IllegalActionError, StateError, action_index, is_int
from .files import control_text
from .layout import ActionLayout, ObservationLayout

TERMINAL = -1

#: a State subclass: clone() and from_dict() give the class they are called on
_S = TypeVar("_S", bound="State")


class InvariantError(AssertionError):
    """A state breaks one of its game's invariants (:meth:`State.check_invariants`)."""


def invariant(condition, message: str) -> None:
    """Raise :class:`InvariantError` with ``message`` unless ``condition`` holds. Not an ``assert``:
    ``python -O`` strips those, and ``from_dict`` relies on these checks to refuse an edited saved state."""
    if not condition:
        raise InvariantError(message)


@overload
def check_seat(game: Game, player: Any, spectator: Literal[False] = False) -> int: ...
@overload
def check_seat(game: Game, player: Any, spectator: bool) -> int | None: ...
def check_seat(game: Game, player: Any, spectator: bool = False) -> int | None:
    """``player`` as a seat number of ``game``, for the methods that show or re-deal one seat's view: a
    wrong seat would otherwise index another seat's hand (Python reads -1, which is ``TERMINAL``, as the
    last seat). ``spectator``: None is allowed too (the god's view)."""
    if type(player) is int and 0 <= player < game.num_players:  # every call from the envs: one test
        return player
    if player is None and spectator:
        return None
    n = game.num_players
    if not is_int(player):
        raise TypeError(f"a seat is an int from 0 to {n - 1}" + (" or None (everything)" if spectator else "")
                        + f", got {player!r}")
    if not 0 <= player < n:
        why = " (-1 is TERMINAL, what current_player() says once the game is over)" if player == TERMINAL else ""
        raise ValueError(f"seat {player} is not a seat of this {n}-player {game.env_name} game: 0 to {n - 1}{why}")
    return int(player)


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
    #: default ``max_turns`` truncation for the env faces; per instance where a rule option lengthens games
    default_max_turns: int = 200
    #: every name ``State.decision()`` can return while the game runs (a recipe names decisions by these)
    decisions: ClassVar[tuple[str, ...]] = ()
    #: False for a game where every player sees (or can work out) the whole state: its ``resample_hidden``
    #: re-deals nothing, which the leak checks then require (they otherwise require a re-deal to change
    #: something). A game may set it per instance in ``__init__`` where a rule option decides it
    hidden_information: bool = True
    #: False for a game without chance (no deal, shuffle or draw of the first player): every seed deals
    #: the same game, which the seeding checks then require (they otherwise require unseeded resets to
    #: differ); per instance too, as ``hidden_information``
    chance: bool = True

    num_players: int
    action_layout: ActionLayout
    observation_layout: ObservationLayout
    state_class: ClassVar[type[State]]

    @classmethod
    def trained_covers(cls, option: str, trained, here) -> bool:
        """Whether a model trained with ``option`` at ``trained`` met the games ``option`` at ``here`` gives
        (both JSON values, as ``config()`` writes them): by default only at the same value. A game whose
        option draws among values (a random deck among the legal ones) says so here, and a model trained
        on the draw is not warned about as out of its depth on one of them."""
        return trained == here

    @classmethod
    def build(cls, **game_kwargs) -> Game:
        """The game with these rule options; an unknown option is a ConfigError that lists the known ones
        (a plain TypeError would not)."""
        cls.check_option_names(game_kwargs)
        return cls(**game_kwargs)

    @classmethod
    def check_option_names(cls, names, face: str = "the env's",
                           face_options: tuple[str, ...] = ("render_mode", "max_turns", "illegal_action"),
                           face_takes: bool = False) -> None:
        """ConfigError for a name in ``names`` that is none of the game's options, listing them and
        ``face_options`` (the keywords the face that takes them has beside the rules: ``face``'s; with
        ``face_takes`` the names may be those too) and the nearest name, so that a misspelt face keyword
        (``opponet``) is not only told the rule options."""
        params = inspect.signature(cls.__init__).parameters
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            return
        known = [n for n in params if n != "self"]
        unknown = sorted(set(names) - set(known) - (set(face_options) if face_takes else set()))
        if unknown:
            near = {n: difflib.get_close_matches(n, [k for k in (*known, *face_options) if k != n], n=1)
                    for n in unknown}
            hint = "; ".join(f"did you mean {m[0]!r} for {n!r}?" for n, m in near.items() if m)
            raise ConfigError(f"{cls.env_name or cls.__name__} has no option {', '.join(unknown)}; its options are: "
                              f"{', '.join(known)} (and {face} {', '.join(face_options)})"
                              + (f"; {hint}" if hint else ""))

    @property
    def num_actions(self) -> int:
        return self.action_layout.num_actions

    def new_initial_state(self, seed: int | None = None) -> State:  # game implements
        """A new deal: the same ``seed`` deals the same game and its chance; ``None`` deals one from fresh
        operating-system entropy (not reproducible)."""
        raise NotImplementedError

    def config(self) -> dict:
        """JSON-safe keyword arguments that rebuild this game (stored in replays and saved models)."""
        return {}

    @classmethod
    def layout_config(cls, config: dict) -> dict:
        """The part of ``config`` a game with the same layouts is built from, to check a model's layout
        hashes: a game whose option names a file on the machine that trained (a catalogue folder) leaves it
        out where the layouts cannot depend on it."""
        return dict(config)

    def state_from_dict(self, data: dict) -> State:
        return self.state_type().from_dict(self, data)

    @classmethod
    def state_type(cls) -> type[State]:
        """``state_class``, or an error that says how to set it (a bare AttributeError would not)."""
        try:
            return cls.state_class
        except AttributeError:
            raise NotImplementedError(
                f"{cls.__name__}.state_class is not set: write `{cls.__name__}.state_class = <its State "
                f"subclass>` under both classes (docs/adding_a_game.md, \"The files\")") from None


class State:
    """One position of a game. Subclasses store only JSON-friendly data plus ``self.rng``."""

    game: Game
    rng: np.random.Generator
    _mask_cache: np.ndarray | None
    #: attributes that are caches or back-references, left out of to_dict / equality
    _transient: ClassVar[tuple[str, ...]] = ("game", "_mask_cache")
    #: fields a state may lack: the class holds their default (every other field of a fresh state is required)
    _optional_fields: ClassVar[tuple[str, ...]] = ()

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

    def standings(self) -> np.ndarray:
        """Who beat whom by the rules, for counting wins, draws and losses: a higher value beat a lower one,
        equal values tied; all zeros until the game ends. The returns, unless a game's reward option shapes
        them away from the rules' result (Earth's ``reward="vp_margin"`` ignores the tiebreakers)."""
        return self.returns()

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
        """Raise :class:`InvariantError` (with :func:`invariant`, which ``python -O`` keeps) if the state breaks
        a game invariant (cards conserved, no negative resources …). Called by the conformance harness at
        every decision of random games, and by ``from_dict`` on every saved state it loads."""
        raise NotImplementedError

    def saved_bounds(self) -> dict[str, Any]:
        """What a loaded state may hold, per field path (``name``; ``name[]`` for the items of a list
        field, ``name[][]`` for theirs): ``(lo, hi)`` for ints from ``lo`` to ``hi`` (``None``: no bound),
        a frozenset of the allowed values, or ``None`` for any value. Paths left out are not checked.
        An edited value of the right kind but out of range (``"pending_card": -1``) otherwise loaded
        and failed later, in play, as an IndexError or a silently different game."""
        return {}

    def saved_lengths(self) -> dict[str, int]:
        """The length of each list field path whose length the rules fix (one entry per seat …)."""
        return {}

    def render_text(self, player: int | None = None) -> str:
        """Readable table; ``player`` given: only what that player sees."""
        return repr(self)

    def decision(self) -> str:
        """Name of the pending decision (for messages); ``""`` once the game is over."""
        return ""

    def final_points(self) -> str:
        """The ended game's points in words, for a game whose returns are not its points ("" if none)."""
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
        """Apply action id ``action`` (an int or NumPy integer) if the mask allows it, else raise
        :class:`IllegalActionError` naming the legal actions, the state unchanged. A value that is no action
        id (2.5, "3", True) is refused as the env faces refuse it: ``int()`` made 2.5 action 2 and played it."""
        index = action_index(action)
        mask = self.legal_action_mask()
        if index is None or not 0 <= index < mask.shape[0] or not mask[index]:
            raise IllegalActionError(action, self.legal_actions(), self._describe_safe, self.decision())
        self.apply_legal_action(index)

    def apply_legal_action(self, action: int) -> None:
        """``apply_action`` for an int already checked against ``legal_action_mask()`` (the envs check
        it once, in :func:`~tabletop_envs.core.aec.resolve_action`, and must not pay for it twice)."""
        self._mask_cache = None
        self._apply_action(action)

    def _describe_safe(self, action) -> str:
        return self.action_to_string(int(action))

    def action_to_string(self, action: int) -> str:
        return self.game.action_layout.label(action)

    def clone(self: _S) -> _S:
        memo = {id(self.game): self.game}
        return copy.deepcopy(self, memo)

    def to_dict(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k not in self._transient}
        data["rng"] = self.rng.bit_generator.state
        return {"env": self.game.env_name, "config": self.game.config(), "state": _jsonable(data)}

    @classmethod
    def from_dict(cls: type[_S], game: Game, data: dict) -> _S:
        """The state ``to_dict()`` wrote, into ``game``. Refused with a :class:`StateError` that names the
        problem: another env, other rule options, missing or unknown fields, a generator state NumPy
        cannot restore, or fields that break the game's invariants (an edited or corrupted file)."""
        fields = _checked_fields(cls, game, data)
        control = control_text(fields)
        if control:  # the log and names are printed as they are: an escape sequence there is a terminal command
            raise StateError(f"the saved {game.env_name} state's {control[0]} holds control characters "
                             f"({control[1]!r}): it was edited or corrupted after to_dict() wrote it")
        state = cls.__new__(cls)
        state.game = game
        rng_state = fields.pop("rng")
        state.__dict__.update(fields)
        try:
            # a bit generator's class only: any other name of np.random was called, "seed" reseeding the
            # process's global generator, and the abstract base class raises NotImplementedError
            kind = getattr(np.random, rng_state["bit_generator"])
            if not (isinstance(kind, type) and issubclass(kind, np.random.BitGenerator)
                    and kind is not np.random.BitGenerator):
                raise ValueError(f"{rng_state['bit_generator']!r} is not a NumPy bit generator")
            state.rng = np.random.Generator(kind())
            state.rng.bit_generator.state = rng_state
        except (AttributeError, KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
            # (IndexError: a short MT19937 key; OverflowError: a PCG64 state beyond 128 bits)
            raise StateError(f"the saved state's generator cannot be restored ({type(exc).__name__}: {exc}); "
                             "'rng' must be the bit generator state to_dict() wrote") from exc
        state._mask_cache = None
        state._restore_transient()
        wrong = _wrong_kinds(state)
        if wrong:
            raise StateError(f"the saved {game.env_name} state has fields of another type than the game gives them "
                             f"in play: {', '.join(wrong[:5])}: it was edited or corrupted after to_dict() wrote it")
        outside = _out_of_bounds(state)
        if outside:
            raise StateError(f"the saved {game.env_name} state holds values the game never gives these fields: "
                             f"{', '.join(outside[:5])}: it was edited or corrupted after to_dict() wrote it")
        try:
            state.check_invariants()
        except NotImplementedError:  # a game without invariants to check
            pass
        except Exception as exc:  # an edited value fails as whatever it breaks first
            raise StateError(f"the saved {game.env_name} state breaks the game's invariants ({_failure(exc)}): it "
                             "was edited or corrupted after to_dict() wrote it") from exc
        _check_playable(state)
        return state

    def _restore_transient(self) -> None:
        """Rebuild the attributes ``to_dict`` leaves out (``_transient``), beyond the game and the mask cache."""

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self.to_dict() == other.to_dict()

    # unhashable, as Python makes a class that defines __eq__; typeshed types object.__hash__ as a method only
    __hash__ = None  # type: ignore[assignment]


#: the fields each state class writes, read once from a fresh state (see ``_checked_fields``)
_STATE_FIELDS: dict[type, frozenset[str]] = {}


def _checked_fields(cls: type[State], game: Game, data: Any) -> dict:
    """A deep copy of the saved fields, once ``data`` is known to be a whole state of ``game``."""
    if not isinstance(data, dict) or not {"env", "config", "state"} <= set(data):
        got = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise StateError(f"not a saved state: expected the dict State.to_dict() writes, with keys 'env', "
                         f"'config' and 'state'; got {got}")
    if set(data) != {"env", "config", "state"}:
        raise StateError(f"a saved state has the keys 'env', 'config' and 'state' only; unknown: "
                         f"{sorted(set(data) - {'env', 'config', 'state'})}")
    if data["env"] != game.env_name:
        # the fix too, as for a state saved under other rule options (docs/integrations.md promises both)
        raise StateError(f"state of {data['env']!r} cannot be loaded into {game.env_name!r}: load it into a game "
                         f"of its own env, make_game(data['env'], **data['config']) (tabletop_envs.core.registry), "
                         f"or that env with the same keywords")
    config = _jsonable(game.config())
    try:  # as read back from JSON: a tuple in memory is a list there
        saved = _jsonable(data["config"])
    except TypeError:
        saved = None
    # a state saved before an option existed was played as the game played then (as replays and model
    # sidecars read it): refusing it as "(absent)" left it loadable into no game at all
    predates = {k: v for k, v in type(game).options_before_they_existed.items()
                if isinstance(saved, dict) and k not in saved}
    if isinstance(saved, dict) and set(config) - set(saved) - set(predates):
        # an option added since with the default that plays as the game played then (Travel Earth's
        # resting_defender_win): the saved config, built into a game, names it; refused as "(absent)",
        # the state loaded into no game at all, the one the error advised included
        try:
            built = _jsonable(type(game).build(**{**saved, **predates}).config())
        except Exception:  # a saved config no game takes: the comparison below names what differs
            built = {}
        predates.update({k: built[k] for k in set(config) - set(saved) - set(predates) if k in built})
    if predates:
        saved = {**saved, **_jsonable(predates)}
    if not _same_json(saved, config):
        saved = saved if isinstance(saved, dict) else {}
        differ = sorted(k for k in set(saved) | set(config)
                        if not _same_json(saved.get(k, "(absent)"), config.get(k, "(absent)")))
        also = "".join(f", {k}={v!r}" for k, v in predates.items())
        raise StateError(
            f"the state was saved under other rule options than this {game.env_name} game's: "
            + ", ".join(f"{k}={saved.get(k, '(absent)')!r} saved" + (" (it predates the option)" if k in predates else "")
                        + f", {config.get(k, '(absent)')!r} here" for k in differ)
            + f". Load it into a game built with the saved options: make_game({game.env_name!r}, "
            f"**data['config']{also}) (tabletop_envs.core.registry), or the env with the same keywords")
    fields = data["state"]
    if not isinstance(fields, dict):
        raise StateError(f"the saved state's 'state' must be a dict of fields, got {type(fields).__name__}")
    problem = _not_json(fields)
    if problem:  # (a set or a number as a key failed later as a TypeError, deep nesting as a RecursionError)
        raise StateError(f"the saved {game.env_name} state holds {problem}: a saved state holds what JSON holds "
                         "(dicts with string keys, lists, strings, numbers, true, false, null), as State.to_dict() "
                         "writes it and json.loads reads it back")
    expected = _STATE_FIELDS.get(cls)
    if expected is None:
        expected = _STATE_FIELDS[cls] = frozenset(game.new_initial_state(seed=0).to_dict()["state"])
    optional = set(cls._optional_fields)
    missing = sorted(expected - optional - set(fields))
    unknown = sorted(set(fields) - expected - optional)
    if missing or unknown:
        raise StateError(f"the saved {game.env_name} state does not have this version's fields: "
                         + "; ".join(part for part in (f"missing {missing}" if missing else "",
                                                       f"unknown {unknown}" if unknown else "") if part)
                         + ". It was saved by another revision of the library: a rule fix within a version can "
                         "add or drop a state's fields (see the env's version history), so load it with the revision "
                         "that saved it, or save it again with State.to_dict() of this one" + (
                             f" (a field a {cls.__name__} gains during play belongs in its _optional_fields)"
                             if unknown else ""))
    return copy.deepcopy(fields)


def _same_json(a: Any, b: Any) -> bool:
    """``a == b`` as JSON reads them: true is not 1, nor 1.0 (in Python each equals the others, so a saved
    Earth state of num_players true loaded into a solo game, and hand_size_table [3, 2, true] into one of
    [3, 2, 1])."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


#: what a saved state's leaves may be besides None (a NumPy scalar is written as the Python number it holds)
_JSON_SCALARS = (bool, int, float, str, np.generic)
#: nesting deeper than any game's state (Earth's task queue: 4 levels)
MAX_SAVED_DEPTH = 32


def _not_json(fields: dict) -> str:
    """What in ``fields`` JSON cannot hold, by its place (``queue[0]['p']``), or ""; walked without recursion."""
    for key in fields:
        if not isinstance(key, str):
            return f"a field named by a value of type {type(key).__name__} ({key!r})"
    todo: list[tuple[str, Any, int]] = [(k, v, 1) for k, v in fields.items()]
    while todo:
        where, value, depth = todo.pop()
        if depth > MAX_SAVED_DEPTH:
            return f"values nested more than {MAX_SAVED_DEPTH} deep at {where.split('[')[0]}"
        if isinstance(value, dict):
            for k, v in value.items():
                if not isinstance(k, str):
                    return f"a key of type {type(k).__name__} ({k!r}), not a string, in {where}"
                todo.append((f"{where}[{k!r}]", v, depth + 1))
        elif isinstance(value, list):
            todo.extend((f"{where}[{i}]", v, depth + 1) for i, v in enumerate(value))
        elif not (value is None or isinstance(value, _JSON_SCALARS)):
            return f"a value of type {type(value).__name__} at {where}"
    return ""


def _failure(exc: BaseException) -> str:
    """``Type: message`` of an exception, a bare assert's source line as its message."""
    detail = str(exc) or (traceback.extract_tb(exc.__traceback__)[-1].line or "").strip()
    return f"{type(exc).__name__}: {detail}"


def _check_playable(state: State) -> None:
    """A loaded state answers what an env asks of it first: whose turn, the mask, every seat's
    observation and text view. An edited field of the right name and kind can pass the field, range and
    invariant checks and failed there, in the env, with Python's own error."""
    game = state.game
    try:
        player = state.current_player()
        if not state.is_terminal():
            if not is_int(player) or not 0 <= player < game.num_players:
                raise ValueError(f"current_player() is {player!r}, not a seat from 0 to {game.num_players - 1}")
            mask = state.legal_action_mask()
            if mask.shape != (game.num_actions,) or not mask.any():
                raise ValueError(f"the action mask has shape {mask.shape} and {int(mask.sum())} legal actions")
        if not is_int(state.turn):
            raise ValueError(f"the turn is {state.turn!r}, not an int")
        for seat in range(game.num_players):
            state.observation(seat)
            state.render_text(seat)
    except Exception as exc:
        raise StateError(f"the saved {game.env_name} state cannot be played from ({_failure(exc)}): it was "
                         "edited or corrupted after to_dict() wrote it") from exc


def _out_of_bounds(state: State) -> list[str]:
    """``path: value (must be …)`` for each saved value or list length outside ``saved_bounds()`` and
    ``saved_lengths()``. A value of another kind is left to ``_wrong_kinds``, which names it better."""
    bounds, lengths = state.saved_bounds(), state.saved_lengths()
    out: list[str] = []

    def check(value, path):
        if len(out) >= 5:
            return
        if isinstance(value, list):
            want = lengths.get(path)
            if want is not None and len(value) != want:
                out.append(f"{path}: {len(value)} items (must be {want})")
                return
            for item in value:
                check(item, path + "[]")
            return
        bound = bounds.get(path)
        if bound is None:
            return
        if isinstance(bound, frozenset):
            if isinstance(value, dict) or value not in bound:
                out.append(f"{path}: {value!r} (must be one of {', '.join(map(repr, sorted(bound)))})")
        elif is_int(value):
            lo, hi = bound
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                limits = (f"from {lo} to {hi}" if lo is not None and hi is not None
                          else f">= {lo}" if lo is not None else f"<= {hi}")
                out.append(f"{path}: {value} (must be {limits})")

    for name, value in state.to_dict()["state"].items():
        if name != "rng":
            check(value, name)
    return out


#: per state class and rule options, the JSON kinds each field path took along a few seeded random games
_FIELD_KINDS: dict[tuple, dict[str, set[str]]] = {}
#: rule-option sets _FIELD_KINDS keeps, the most recently used: unbounded, saved states of ever new deck lists
#: (a deck-building loop) kept 10 kB for each
FIELD_KINDS_SIZE = 16


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    return {int: "int", float: "float", str: "str", list: "list", dict: "dict"}.get(type(value), type(value).__name__)


def _record_kinds(value: Any, path: str, out: dict[str, set[str]]) -> None:
    out.setdefault(path, set()).add(_kind(value))
    if isinstance(value, list):  # not into dicts: a pending task's keys and values vary with the task
        for item in value:
            _record_kinds(item, path + "[]", out)


def _field_kinds(state: State) -> dict[str, set[str]]:
    game = state.game
    key = (type(state), json.dumps(_jsonable(game.config()), sort_keys=True))
    kinds = recall(_FIELD_KINDS, key)
    if kinds is None:
        kinds = {}
        for seed in range(4):
            rng = np.random.default_rng(seed)
            s = game.new_initial_state(seed)
            for step in range(2000):
                if step % 4 == 0 or s.is_terminal():  # the end too: some fields are written only there
                    for name, value in s.to_dict()["state"].items():
                        if name != "rng":
                            _record_kinds(value, name, kinds)
                if s.is_terminal():
                    break
                s.apply_legal_action(int(rng.choice(s.legal_actions())))
        keep(_FIELD_KINDS, key, kinds, FIELD_KINDS_SIZE)
    return kinds


def _wrong_kinds(state: State) -> list[str]:
    """``path: kind (in play: kinds)`` for each saved value of a kind the field (or an item of a list in it)
    never took in a few random games. Where play saw only null there is nothing to compare with, an int
    stands for a float, and dicts are not looked into (a pending task's keys vary with the task)."""
    kinds = _field_kinds(state)
    wrong: list[str] = []

    def check(value, path):
        seen = kinds.get(path)
        kind = _kind(value)
        if seen and seen != {"null"} and kind not in seen and not (kind == "int" and "float" in seen):
            wrong.append(f"{path}: {kind} (in play: {' or '.join(sorted(seen))})")
            return
        if isinstance(value, list):
            for item in value:
                check(item, path + "[]")

    for name, value in state.to_dict()["state"].items():
        if name != "rng":
            check(value, name)
    return wrong


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
    if value is None or isinstance(value, _JSON_SCALARS):
        return value
    raise TypeError(f"state field of type {type(value).__name__} is not JSON-safe; store lists/dicts/ints")


def check_json_roundtrip(state: State) -> State:
    """Serialise through real JSON text and back (used by tests and replays)."""
    text = json.dumps(state.to_dict())
    return state.game.state_from_dict(json.loads(text))


def check_seed_value(seed) -> None:
    """A deal's seed is None or a non-negative int: NumPy's own refusals name neither, and it takes True as 1."""
    if seed is not None and (not is_int(seed) or seed < 0):
        raise ConfigError(f"seed must be None (a fresh random deal) or a non-negative int, got {seed!r}")


def new_rng(seed: int | None) -> np.random.Generator:
    """A generator on NumPy's PCG64, the bit generator deals are drawn from: a seed replays the same
    deal wherever the NumPy release keeps PCG64's stream (None: fresh entropy)."""
    check_seed_value(seed)
    return np.random.Generator(np.random.PCG64(seed))


def counted_deal(steps: int, options, rng: np.random.Generator, what: str, key=tuple, weight=None) -> list:
    """One pick per step for ``resample_hidden``, each whole deal drawn with a probability in proportion to
    ``weight(picks)`` (without it, every deal that fits alike likely). ``options(picks)`` gives the next step's
    candidates after ``picks`` as ``(candidate, n)`` pairs: ``n`` alike cards it stands for (1 for one card).
    ``key(picks)`` sums ``picks`` up as far as the later steps and the weight depend on them, so the deals are
    counted once per key.

    Each pick is weighted by the count of the deals that complete it. Dealing step by step, each candidate alike
    likely among those still fitting, favoured the deals where an early step took a card a later one needed
    (Earth's setup islands: 1 world in 4 where 1 in 7 was right), and a known card competed with every unseen
    card alike though most of those lie in the deck (Terralore's face-down cards: 1 in 11 where 3 in 4 was
    right). The real deal always fits, so some deal does; ``what`` names the deal if none fits."""
    counted: dict = {}

    def ways(picks: list) -> int:
        at = (len(picks), key(picks))
        if at not in counted:
            counted[at] = ((1 if weight is None else weight(picks)) if len(picks) == steps
                           else sum(n * ways([*picks, x]) for x, n in options(picks)))
        return counted[at]

    if ways([]) == 0:
        raise AssertionError(f"no deal of {what} fits what the player saw, though the real one does")
    picks: list = []
    for _ in range(steps):
        candidates = options(picks)
        counts = [n * ways([*picks, x]) for x, n in candidates]
        # Python ints (binomials of a 65-card catalogue pass 2**63): a share of the total, as a float
        left = rng.random() * sum(counts)
        chosen = next((x for (x, _), n in zip(candidates, counts) if n and (left := left - n) < 0), None)
        if chosen is None:  # the float's rounding at the very end: the last candidate that fits
            chosen = next(x for (x, _), n in zip(reversed(candidates), reversed(counts)) if n)
        picks.append(chosen)
    return picks
