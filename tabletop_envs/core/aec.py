"""The generic PettingZoo AEC face over any engine :class:`~tabletop_envs.core.engine.Game`.

PettingZoo's default wrapper chain (TerminateIllegal, AssertOutOfBounds, OrderEnforcing) costs
about 4x in throughput. This class gives the same safety inline: stepping before ``reset`` raises,
out-of-range and illegal actions are handled by the ``illegal_action`` policy, and stepping a dead
agent follows the AEC protocol.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterable
from typing import Any, Literal, overload

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .engine import TERMINAL, Game, State, check_seed_value
from .errors import ConfigError, IllegalActionError, StateError, UnknownAgentError, action_index

ILLEGAL_ACTION_POLICIES = ("raise", "penalty", "random_legal")
#: the env faces' own options, beside the game's rule options (never in ``Game.config()``)
AEC_KWARGS = ("render_mode", "max_turns", "illegal_action")


def resolve_action(state, action, policy: str, rng: np.random.Generator | None) -> int | None:
    """The action to apply for ``action`` under an ``illegal_action`` policy.

    A legal action comes back as an int. An illegal one (or ``None``) raises
    :class:`IllegalActionError` naming the legal actions (``"raise"``), comes back as ``None``
    (``"penalty"``: the caller ends the game with :func:`penalty_returns`), or is replaced by a
    uniformly random legal action (``"random_legal"``). The AEC env and the single-agent env share it,
    so both faces treat a bad action alike.
    """
    mask = state.legal_action_mask()
    index = action_index(action)
    if index is not None and 0 <= index < mask.shape[0] and mask[index]:
        return index
    if policy == "raise":
        raise IllegalActionError(action, state.legal_actions(), state._describe_safe, state.decision())
    if policy == "penalty":
        return None
    if rng is None:  # the env deals its generator only for this policy
        raise RuntimeError("illegal_action became 'random_legal' after reset(): call reset() again so that "
                           "the replacement draws are seeded")
    return int(rng.choice(np.flatnonzero(mask)))


def check_max_turns(max_turns) -> None:
    """``max_turns`` is None (the game's default) or a positive int: 0 would end every game undecided."""
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer))
                                  or max_turns < 1):
        raise ConfigError(f"max_turns must be None (the game's default) or a positive int, got {max_turns!r}")


def check_illegal_action(illegal_action) -> None:
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTION_POLICIES:
        raise ConfigError(f"illegal_action must be one of {ILLEGAL_ACTION_POLICIES}, got {illegal_action!r}")


def check_render_mode(render_mode, modes) -> None:
    # str first: a NumPy str array equal to a mode passed ``in``, and a longer one made it an "ambiguous truth value"
    if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in modes):
        raise ConfigError(f"render_mode must be None or one of {tuple(modes)}, got {render_mode!r}")


def penalty_returns(num_players: int, mover: int) -> np.ndarray:
    """Zero-sum result of an illegal move under ``illegal_action="penalty"``: mover -1, the others share +1
    (alone at the table, the mover just gets -1)."""
    returns = np.full(num_players, 1.0 / max(1, num_players - 1))
    returns[mover] = -1.0
    return returns


class TabletopAECEnv(AECEnv):
    """AEC env over an engine. Subclassed per game only to set ``game_class`` and ``metadata``.

    Args:
        render_mode: ``None`` or ``"ansi"`` (games with a renderer also accept ``"rgb_array"``/``"human"``).
        max_turns: truncate (reward 0) once the engine's turn counter reaches this; ``None`` = the
            game's default.
        illegal_action: ``"raise"`` (default, :class:`IllegalActionError`), ``"penalty"`` (game ends,
            mover -1, the others share +1, zero-sum; every seat's info says ``illegal_action``, why the
            game ended, and the reward says who) or ``"random_legal"`` (a uniformly random legal
            action is played instead and ``info["illegal_action"]`` is set in that agent's info until
            its next step, so its next ``last()`` reads it even after other seats moved).
        **game_kwargs: rule options, decks, player count … passed to the game class.
    """

    game_class: type[Game]
    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "", "is_parallelizable": False, "render_fps": 2}
    #: seat whose view render() shows (text and picture); None = the whole table (a spectator)
    render_player: int | None = None

    def __init__(self, render_mode: str | None = None, max_turns: int | None = None,
                 illegal_action: str = "raise", **game_kwargs):
        super().__init__()
        # ConfigError (a ValueError too): the command-line tools report it in one line, not a traceback
        check_render_mode(render_mode, self.metadata["render_modes"])
        check_illegal_action(illegal_action)
        check_max_turns(max_turns)
        self.game: Game = self.game_class.build(**game_kwargs)
        self.game_kwargs = game_kwargs
        self.render_mode = render_mode
        self.max_turns = self.game.default_max_turns if max_turns is None else int(max_turns)
        self.illegal_action = illegal_action
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        # one space object per seat, equal but not shared: seeding one seat's space must not move another's
        self.observation_spaces = {a: spaces.Dict({
            "observation": self.game.observation_layout.space(),
            "action_mask": spaces.Box(0, 1, (self.game.num_actions,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.game.num_actions) for a in self.possible_agents}
        layout = self.game.observation_layout
        #: the space of :meth:`state`: every seat's observation, seat by seat
        self.state_space = spaces.Box(np.tile(layout.low, n), np.tile(layout.high, n), (n * layout.size,),
                                      np.float32)
        self._zero_mask = np.zeros(self.game.num_actions, np.int8)
        self._zero_mask.flags.writeable = False  # one array in every waiting seat's info
        #: the engine state (a god's view, for tools and tests); not ``state``, which is PettingZoo's
        #: global-state method
        self.game_state: State | None = None
        self._seed_rng = np.random.default_rng()

    def __repr__(self) -> str:
        # the options that make this env play other rules or stop elsewhere than the defaults, so a log or
        # a notebook cell tells two envs apart ("terralore_v0" alone is PettingZoo's str)
        args = [f"{k}={v!r}" for k, v in sorted(self.game_kwargs.items())]
        if self.max_turns != self.game.default_max_turns:
            args.append(f"max_turns={self.max_turns}")
        if self.illegal_action != "raise":
            args.append(f"illegal_action={self.illegal_action!r}")
        if self.render_mode is not None:
            args.append(f"render_mode={self.render_mode!r}")
        return f"{self.metadata['name']}.raw_env({', '.join(args)})"

    # PettingZoo asks for the same space object every call.
    def observation_space(self, agent: str) -> spaces.Dict:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: str) -> spaces.Discrete:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent) -> UnknownAgentError:
        return UnknownAgentError(f"no agent {agent!r} at this table; its agents are {', '.join(self.possible_agents)} "
                                 "(env.possible_agents)")

    # ------------------------------------------------------------------ lifecycle
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new deal, or with ``options={"state": saved}`` the saved position (``state_dict()`` data or an
        engine state of this game), which plays on exactly as the game it was saved from."""
        start = self.start_state(options)
        if seed is not None:
            check_seed_value(seed)
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(2**63 - 1))
        self.game_state = start if start is not None else self.game.new_initial_state(game_seed)
        # only "random_legal" draws from it; making a generator costs as much as a few moves. Its own
        # stream ([seed, 1]), not the deal's: picks must tell nothing about how the cards were dealt.
        self._illegal_rng = (np.random.default_rng([game_seed, 1]) if self.illegal_action == "random_legal"
                             else None)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {"action_mask": self._zero_mask} for a in self.agents}
        self.num_steps = 0
        self._replaced: set[str] = set()  # random_legal: agents whose last move was replaced, until they step
        self._after_move(self.game_state)

    def start_state(self, options: dict | None, arguments: tuple[str, ...] = AEC_KWARGS) -> State | None:
        """The position ``reset`` starts from: None for a new deal, else a copy of ``options["state"]``,
        checked to be a position of this game (rule options included) from which there is still a move.
        ``options`` is ``None`` or a dict; keys other than ``"state"`` are ignored, with a warning for one of
        ``arguments`` or a rule option of the game (they are set where the env is built)."""
        if options is None:
            return None
        if not isinstance(options, dict):
            raise ConfigError(f"reset options must be a dict or None, got {type(options).__name__}")
        # other keys are ignored, as PettingZoo's api_test expects (it resets with options={"options": 1}); but
        # options={"state": saved, "learner_seat": 1} drew the seat at random without a word
        own = {*arguments, *self.game.config()}
        misplaced = [k for k in options if k in own]
        if misplaced:
            warnings.warn(f"reset option {misplaced[0]!r} is not one this env reads, so this reset ignores it: it "
                          f"is an argument of the env, given where the env is built ({misplaced[0]}=...)",
                          UserWarning, stacklevel=3)
        if "state" not in options:
            # but options={"State": saved} dealt a new game without a word, which a user may notice much later
            near = [k for k in options if isinstance(k, str) and difflib.get_close_matches(k.lower(), ["state"])]
            if near:
                warnings.warn(f"reset option {near[0]!r} is not one this env reads, so this reset deals a new "
                              "game; a saved position is options={'state': saved}", UserWarning, stacklevel=3)
            return None
        saved = options["state"]
        # through to_dict, so that an engine state is checked as a saved one is and the env plays a copy
        state = self.game.state_from_dict(saved.to_dict() if isinstance(saved, State) else saved)
        if state.is_terminal():
            raise StateError("the saved position is a finished game: there is no move left to play from it")
        if state.turn >= self.max_turns:
            raise StateError(f"the saved position is at turn {state.turn}, where max_turns={self.max_turns} has "
                             f"already truncated the game: build the env with a larger max_turns")
        return state

    def _require_reset(self) -> State:
        """The game's state; before ``reset()`` a RuntimeError that says so."""
        if self.game_state is None:
            raise RuntimeError("reset() must be called before step(), observe(), last(), state() or render(): "
                               "call env.reset(seed=...) first")
        return self.game_state

    #: what reset() sets: read before it, each is named with the fix instead of Python's bare AttributeError
    _SET_BY_RESET = frozenset({"agents", "agent_selection", "rewards", "terminations", "truncations", "infos",
                               "num_steps", "num_agents"})  # num_agents: PettingZoo's property reads agents

    def __getattr__(self, name):
        # only reached when the attribute is missing
        if name in type(self)._SET_BY_RESET:
            raise AttributeError(f"{name} is set by reset(): call env.reset(seed=...) before reading it "
                                 "(or iterating env.agent_iter())")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def agent_iter(self, max_iter: int = 2**63) -> Iterable[str]:
        if self.game_state is None:
            raise RuntimeError("reset() must be called before agent_iter(): call env.reset(seed=...) first")
        return super().agent_iter(max_iter)

    def _after_move(self, state: State) -> None:
        """Point agent_selection at the seat to move and refresh its mask in info."""
        player = state.current_player()
        if player == TERMINAL:
            return
        agent = self.possible_agents[player]
        prev = getattr(self, "agent_selection", None)
        if prev is not None and prev != agent and prev in self.infos:
            self.infos[prev] = self._info(prev, self._zero_mask)
        self.agent_selection = agent
        self.infos[agent] = self._info(agent, state.legal_action_mask())

    def _info(self, agent: str, mask: np.ndarray) -> dict[str, Any]:
        # a replaced move's flag stays until the agent steps again: an AEC loop reads info from last() at
        # the agent's next turn, by when other seats' moves had rebuilt it
        return {"action_mask": mask, "illegal_action": True} if agent in self._replaced else {"action_mask": mask}

    @overload
    def last(self, observe: Literal[True] = True) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]: ...
    @overload
    def last(self, observe: Literal[False]) -> tuple[None, float, bool, bool, dict[str, Any]]: ...
    @overload
    def last(self, observe: bool) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]: ...
    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``(observation, cumulative reward, terminated, truncated, info)`` of the agent to move
        (``observation`` None with ``observe=False``)."""
        self._require_reset()
        if not self.agents:  # PettingZoo's last() would fail on a KeyError of the agent who left
            raise RuntimeError("the game is over and every agent has left: call env.reset() before last()")
        return super().last(observe)

    def observe(self, agent: str) -> dict:
        """``{"observation": float32 vector, "action_mask": int8 vector}`` from ``agent``'s view only. The mask is
        a copy, all zeros unless ``agent`` is the one to move and the game is neither over nor truncated. An
        agent that has left the table can still be observed; a name not in ``possible_agents`` raises
        :class:`UnknownAgentError`."""
        state = self._require_reset()
        try:
            player = self.agent_name_mapping[agent]
        except (KeyError, TypeError):  # TypeError: an unhashable name, such as a list
            raise self._unknown_agent(agent) from None
        # a truncated or penalised game is not over in the engine, but nobody may move any more, before
        # or after leaving the table (a seat that left has no terminations entry: it is done)
        if player == state.current_player() and not (self.terminations.get(agent, True)
                                                     or self.truncations.get(agent, True)):
            mask = state.legal_action_mask().copy()
        else:
            mask = self._zero_mask.copy()
        return {"observation": state.observation(player), "action_mask": mask}

    def step(self, action) -> None:
        state = self._require_reset()
        if not self.agents:
            raise RuntimeError("the game is over and every agent has left: call env.reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mover = self.agent_name_mapping[agent]
        chosen = resolve_action(state, action, self.illegal_action, self._illegal_rng)  # a refusal changes nothing
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if chosen is None:
            self._end_with_penalty(mover)
            if self.render_mode == "human":  # the step that ends the game is drawn as any other
                self.render()
            return
        # a move random_legal replaced is flagged in the mover's info until it steps again (``_info``)
        if chosen == action_index(action):
            self._replaced.discard(agent)
        else:
            self._replaced.add(agent)
        state.apply_legal_action(chosen)
        self.num_steps += 1
        if state.is_terminal():
            returns = state.returns()
            for i, a in enumerate(self.agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = True
                self.infos[a] = self._info(a, self._zero_mask)
        elif state.turn >= self.max_turns:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a] = self._info(a, self._zero_mask)
            self.agent_selection = self.possible_agents[state.current_player()]
        else:
            self._after_move(state)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_with_penalty(self, mover: int) -> None:
        returns = penalty_returns(len(self.agents), mover)
        for i, a in enumerate(self.agents):
            self.rewards[a] = float(returns[i])
            self.terminations[a] = True
            self.infos[a] = {"action_mask": self._zero_mask, "illegal_action": True}
        self._accumulate_rewards()

    # ------------------------------------------------------------------ extras
    def render(self) -> str | np.ndarray | None:
        """The current position, as ``render_mode`` asks: ``"ansi"`` a str, ``"rgb_array"`` an H×W×3 uint8
        array, ``"human"`` drawn in a window (returns None). It shows the whole table, every hand face up (a
        god's view), unless :attr:`render_player` is set to a seat. Without a ``render_mode`` it warns and
        returns None; before ``reset()`` it raises RuntimeError."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        state = self._require_reset()
        if self.render_mode == "ansi":
            return state.render_text(self.render_player)
        return self._render_image()

    def _render_image(self):
        from .render import render_env_image  # Pillow only when a picture is asked for

        return render_env_image(self)

    def close(self) -> None:
        viewer = self.__dict__.pop("_viewer", None)  # the "human" window, if one was opened
        if viewer is not None:
            viewer.close()

    def __getstate__(self) -> dict:
        # a copy (pickle, deepcopy) leaves the "human" window behind: a window cannot be copied, and the
        # copy opens one of its own when it next draws
        state = self.__dict__.copy()
        state.pop("_viewer", None)
        return state

    def state(self) -> np.ndarray:
        """PettingZoo's global state, for a centralised critic: every seat's observation, seat by seat.

        A god's view (it shows every hand), for training only; what nobody may know yet, such as the
        order of a deck, is in none of the observations and so not here either. The engine state
        itself is :attr:`game_state`.
        """
        state = self._require_reset()
        return np.concatenate([state.observation(p) for p in range(self.game.num_players)])

    def state_dict(self) -> dict:
        """The whole engine state as JSON-safe data (a god's view: for replays and debugging)."""
        return self._require_reset().to_dict()

    def action_to_string(self, action: int) -> str:
        """The name of action id ``action`` in the current position (Earth names its ``option`` ids after the
        pending choice). TypeError for a non-integer, IndexError outside ``0..num_actions - 1``; legal or
        not, any id in range is named."""
        state = self._require_reset()
        index = action_index(action)
        if index is None:  # int(2.5) would name action 2
            raise TypeError(f"action_to_string takes an action id (an int), got {action!r}")
        return state.action_to_string(index)
