"""Single-agent Gymnasium face: one learner against opponents that move inside the env.

This is the self-play reduction that works with SB3 / sb3-contrib MaskablePPO:
- the learner's seat is drawn at random each episode;
- opponents act inside ``step`` until the learner must decide again or the game ends;
- the reward returned is everything the learner accumulated since its last move, so a loss caused
  by an opponent's final move reaches the learner's last transition.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, cast

import gymnasium
import numpy as np

from .aec import AEC_KWARGS, TabletopAECEnv, action_index, penalty_returns, resolve_action
from .engine import State, check_seed_value
from .errors import ConfigError, IllegalActionError, StateError
from .policy import Policy, RandomPolicy, load_policy, policy_name, policy_rng, restart_policies

#: deals in a row that may end before the learner's first decision before reset gives up
MAX_REDEALS = 1000
REDEALS_EXHAUSTED = (f"{MAX_REDEALS} deals in a row ended before the learner's first decision; check the "
                     "opponents, and that max_turns leaves the learner's seat a turn")

RENDER_VIEWS = ("learner", "table")
#: the arguments this env takes beyond the AEC env's (AEC_KWARGS) and the game's rule options
OWN_ARGUMENTS = ("opponent", "learner_seat", "render_view")

OpponentSpec = Policy | str | os.PathLike | Callable[[np.random.Generator], Policy] | Sequence


def check_opponent_move(action, mask: np.ndarray, policy, player: int, state: State, name: str | None = None,
                        role: str = "opponent") -> int:
    """An opponent's (a ``role``'s) move as an action id, or an error naming it (``name``, by default the
    policy's; under ``illegal_action='raise'`` the message told the caller to fix its own move)."""
    index = action_index(action)
    if index is None or not 0 <= index < mask.shape[0] or not mask[index]:
        legal = np.flatnonzero(mask)
        raise IllegalActionError(action, legal.tolist(), state._describe_safe, state.decision(),
                                 who=f"the {role} {name or policy_name(policy)} (seat {player})")
    return index


#: what step() returns: (observation, reward, terminated, truncated, info)
StepResult = tuple[np.ndarray, float, bool, bool, dict[str, Any]]


class SingleAgentEnv(gymnasium.Env):
    """One learner against opponents.

    Args:
        env: an env name (``"terralore_v0"``) or a :class:`TabletopAECEnv` instance.
        opponent: a policy, a policy id/path, a list with one per other seat, or a callable
            ``rng -> policy`` drawn anew each episode (an opponent pool). Default: random. The pool is
            set-up code like the env itself: seeded, its generator follows from the reset seed (so that
            seeded training draws the same opponents); the policies it returns get generators of their
            own, which tell them nothing of the deals.
        learner_seat: fixed seat, or ``None`` to draw it every episode.
        render_mode: ``None`` (no frames: ``render()`` warns and returns None, as in Gymnasium), ``"ansi"``
            (text), ``"rgb_array"`` (a picture) or ``"human"`` (a window). With an env instance, ``None``
            takes the instance's own render_mode.
        render_view: ``"learner"`` (default): ``render()`` shows only what the learner may see, so a
            wrapper that feeds frames to the agent (``AddRenderObservation``) cannot leak hidden
            cards; ``"table"``: the whole table, every hand face up (videos for spectators).
        **env_kwargs: passed to the AEC env (rule options, ``max_turns``, ``illegal_action`` …) when ``env`` is
            a name; with an env instance they are refused (a ConfigError): the instance keeps its own.

    An opponent with a single legal action is not asked: the env plays it. A policy can only
    return that action, and a fifth of Terralore's decisions are forced, so this saves an
    observation and a forward pass each. A policy that keeps state between calls does not see those
    decisions; the library's policies keep none.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, env: str | TabletopAECEnv = "terralore_v0", opponent: OpponentSpec | None = None,
                 learner_seat: int | None = None, render_mode: str | None = None, render_view: str = "learner",
                 **env_kwargs):
        if not isinstance(render_view, str) or render_view not in RENDER_VIEWS:  # (a NumPy str array: check_render_mode)
            raise ConfigError(f"render_view must be one of {RENDER_VIEWS}, got {render_view!r}")
        if render_mode is not None and (not isinstance(render_mode, str)
                                        or render_mode not in self.metadata["render_modes"]):
            raise ConfigError(f"render_mode must be None or one of {tuple(self.metadata['render_modes'])}, "
                              f"got {render_mode!r}")
        if isinstance(env, str):
            from .registry import get_spec

            raw_env = get_spec(env).load_module().raw_env
            raw_env.game_class.check_option_names(
                env_kwargs, face="this env's", face_options=(*OWN_ARGUMENTS, *AEC_KWARGS),
                face_takes=True)
            aec: TabletopAECEnv = raw_env(render_mode=render_mode, **env_kwargs)
        else:
            # a ready env keeps the options it was built with: dropping these would play other rules than asked
            if render_mode in ("rgb_array", "human") and render_mode != env.render_mode:
                env_kwargs = {"render_mode": render_mode, **env_kwargs}
            if env_kwargs:
                raise ConfigError(f"env kwargs {sorted(env_kwargs)} given with a ready env instance, which keeps "
                                  "the options it was built with: build the AEC env with them, or pass the env "
                                  "name instead")
            if not isinstance(env, TabletopAECEnv):
                raise ConfigError(f"env must be an env name (e.g. 'terralore_v0') or an env of this library "
                                  f"(terralore_v0.raw_env()), got {env!r}")
            # a ready env built to draw keeps drawing: its render_mode is one of the options it was built with
            render_mode = env.render_mode if render_mode is None else render_mode
            aec = env
        self.aec = aec
        self.game = aec.game
        self.render_mode, self.render_view = render_mode, render_view
        self.observation_space = self.game.observation_layout.space()
        self.action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        n = self.game.num_players
        if learner_seat is not None and (isinstance(learner_seat, bool) or not isinstance(learner_seat, (int, np.integer))
                                         or not 0 <= learner_seat < n):
            raise ConfigError(f"learner_seat must be None (a random seat each episode) or a seat 0..{n - 1}, "
                             f"got {learner_seat!r}")
        self.learner_seat_fixed = learner_seat
        self.set_opponent(opponent)
        self.learner = self.aec.possible_agents[0]
        self.learner_seat = 0
        self.max_turns, self.illegal_action = aec.max_turns, aec.illegal_action
        #: the engine state of the episode (a god's view); None before the first reset
        self.game_state: State | None = None
        self._returns: np.ndarray | None = None
        self.truncated, self.illegal_action_played = False, False
        self._opp_rng = np.random.default_rng()  # who sits in the other seats (the pool's draws)
        self._moves_rng = np.random.default_rng()  # handed to the opponents for their moves
        self.episode_opponents: list[Policy] = []

    # SubprocVecEnv reaches these through env_method.
    def set_opponent(self, opponent: OpponentSpec | None) -> None:
        """Seat ``opponent`` (any form the ``opponent`` argument takes; None: random) from the next ``reset()``
        on; the episode in progress keeps its opponents."""
        if opponent is None:
            opponent = RandomPolicy()
        env_name = self.aec.metadata.get("name") or None  # a policy for another game is refused
        rules = self.game.config()  # a model trained under other rule options is named in a warning
        if isinstance(opponent, (str, os.PathLike)) or hasattr(opponent, "act"):
            opponent = load_policy(opponent, env=env_name, game_config=rules)
        elif isinstance(opponent, Sequence) and not isinstance(opponent, (bytes, bytearray)):  # (bytes: "got int")
            opponent = [load_policy(o, env=env_name, game_config=rules) for o in opponent]
            if len(opponent) != self.game.num_players - 1:
                raise ConfigError(f"{len(opponent)} opponents given for {self.game.num_players - 1} other seats: "
                                  "give one per other seat, in seat order, or a single opponent for every seat")
        elif not callable(opponent):
            raise TypeError(f"opponent must be a policy, id, list or callable(rng)->policy, got {opponent!r}")
        self.opponent = opponent

    def _draw_opponents(self) -> list[Policy]:
        n_other = self.game.num_players - 1
        if isinstance(self.opponent, list):
            return list(self.opponent)
        if hasattr(self.opponent, "act"):
            return [self.opponent] * n_other
        drawn = [self.opponent(self._opp_rng) for _ in range(n_other)]
        for policy in drawn:
            if not hasattr(policy, "act"):
                raise TypeError(f"the opponent callable {self.opponent!r} returned {policy!r}, not a policy: it must "
                                "return an object with act(observation, action_mask, rng), e.g. "
                                "load_policy('terralore_v0/heuristic')")
        return drawn

    # ------------------------------------------------------------------ the episode
    # In pieces (deal, opponent_to_move, play, outcome) so that a vectorised driver can interleave
    # many envs and move their opponents in one batched forward pass (training.vec_env); reset and
    # step below are those pieces for one env. The engine state is stepped directly: the AEC env
    # only deals (same seeds as its own reset) and renders, its PettingZoo bookkeeping is not kept.
    def deal(self, start: State | None = None) -> None:
        """A new deal (or the position ``start``): seat and opponents drawn, nothing played yet (opponents
        may be first to move)."""
        aec = self.aec
        aec.reset(seed=int(self.np_random.integers(2**31 - 1)), options=None if start is None else {"state": start})
        self.game_state = aec.game_state
        self._illegal_rng = aec._illegal_rng
        n = self.game.num_players
        seat = self.learner_seat_fixed
        if seat is None:
            seat = int(self.np_random.integers(n))
        self.learner_seat, self.learner = seat, aec.possible_agents[seat]
        self.episode_opponents = self._draw_opponents()
        restart_policies(self.episode_opponents)
        others = iter(self.episode_opponents)
        self.seat_policies = [None if s == seat else next(others) for s in range(n)]
        self._reward = 0.0
        self._returns = None  # the result once the game is over (None: not over)
        self.truncated = False
        self.illegal_action_played = False

    @property
    def over(self) -> bool:
        return self._returns is not None or self.truncated

    def opponent_to_move(self) -> tuple[Policy, int] | None:
        """The policy and seat that must move now, or None when the learner decides or the game is over."""
        state = self.game_state
        if state is None:
            state = self._require_reset("opponent_to_move")
        if self._returns is not None or self.truncated:
            return None
        player = state.current_player()
        if player == self.learner_seat:
            return None
        return cast(Policy, self.seat_policies[player]), player  # (only the learner's seat has None)

    def play(self, action) -> None:
        """Apply the current mover's action (the ``illegal_action`` rule decides about a bad one)."""
        state = self.game_state
        if state is None:
            state = self._require_reset("play")
        mover = state.current_player()
        if mover != self.learner_seat and self.illegal_action == "raise":
            # an opponent's bad move names the opponent ('penalty' and 'random_legal' treat every seat alike)
            action = check_opponent_move(action, state.legal_action_mask(), self.seat_policies[mover], mover, state)
        chosen = resolve_action(state, action, self.illegal_action, self._illegal_rng)
        # (a penalty is None, and so is the id of 2.0 or True: compared, they were equal, and said nothing)
        if mover == self.learner_seat and (chosen is None or chosen != action_index(action)):
            self.illegal_action_played = True
        if chosen is None:
            self._end(penalty_returns(self.game.num_players, mover))
            return
        state.apply_legal_action(chosen)
        if state.is_terminal():
            self._end(state.returns())
        elif state.turn >= self.max_turns:
            self.truncated = True  # reward 0, as the AEC env

    def play_opponent(self, policy: Policy, player: int, rng: np.random.Generator) -> None:
        """Ask ``policy`` for seat ``player``'s move (what that seat sees) and play it."""
        state = self.game_state
        if state is None:
            state = self._require_reset("play_opponent")
        self.play(policy.act(state.observation(player), state.legal_action_mask(), rng))

    def play_if_forced(self) -> bool:
        """Play the mover's only legal action if it has just one (no policy is asked: see the class doc)."""
        state = self.game_state
        if state is None:
            state = self._require_reset("play_if_forced")
        mask = state.legal_action_mask()
        if np.count_nonzero(mask) != 1:
            return False
        self.play(int(np.argmax(mask)))  # (np.argmax: NumPy 2.5's stubs refuse a bare ndarray.argmax())
        return True

    def _end(self, returns: np.ndarray) -> None:
        self._returns = returns
        self._reward += float(returns[self.learner_seat])

    def begin_step(self, action) -> None:
        """The learner's move, the first piece of ``step``."""
        state = self._require_reset("step")
        if self.over:
            raise RuntimeError("the episode is over: call env.reset() before step()")
        if state.current_player() != self.learner_seat:  # an opponent raised instead of moving
            raise RuntimeError(f"seat {state.current_player()} is to move, not the learner's seat "
                               f"{self.learner_seat}: its opponent failed to move (see the error it raised); "
                               "call env.reset()")
        self._reward = 0.0
        self.illegal_action_played = False
        self.play(action)

    def outcome(self) -> StepResult:
        """``step``'s return value once the opponents have moved."""
        state = self.game_state
        if state is None:
            state = self._require_reset("outcome")
        returns = self._returns
        terminated = returns is not None
        truncated = self.truncated and not terminated
        seat = self.learner_seat
        obs = state.observation(seat)
        info: dict[str, Any] = {"action_mask": self.action_masks()} if self.info_action_mask else {}
        if terminated or truncated:
            info["returns"] = returns.tolist() if returns is not None else [0.0] * self.game.num_players
            # who beat whom by the rules, where a reward option shapes the returns (Earth's vp_margin); a game
            # ended by an illegal move under illegal_action="penalty" never reached the rules' end (its
            # standings are all zeros): its result is the penalty returns
            info["standings"] = ((state.standings() if state.is_terminal() else returns)
                                 .tolist() if returns is not None else [0.0] * self.game.num_players)
            info["learner_seat"] = seat
        if self.illegal_action_played:
            info["illegal_action"] = True
        return obs, self._reward, terminated, truncated, info

    #: put the action mask in every step's info (MaskablePPO reads action_masks() instead)
    info_action_mask = True

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new deal, or with ``options={"state": saved}`` the saved position (``state_dict()`` data or an
        engine state of this game): the learner's seat and the opponents are drawn as for a deal (fix the
        seat with the env's ``learner_seat`` argument: as a reset option it is ignored, with a warning), and
        the opponents move until the learner decides. A saved position refused
        as it is read leaves the episode in progress as it was; one from which the opponents end the game before
        the learner decides is refused after their moves, the episode in progress given up."""
        start = self.aec.start_state(options, AEC_KWARGS + OWN_ARGUMENTS)  # checked before anything changes
        check_seed_value(seed)  # as the AEC env: True is no seed, a NumPy int is one, -1 a ConfigError
        super().reset(seed=None if seed is None else int(seed))
        if seed is not None:
            # [seed, 1], not seed + 1: vec envs are seeded seed, seed + 1, ..., and the next env's
            # deals would draw the very numbers this env's opponents draw
            self._opp_rng = np.random.default_rng([seed, 1])
            # an opponent holds this one, and must not read the seed of the learner's deals off it
            self._moves_rng = policy_rng(seed, 1)
        try:
            return self._reset_from(start)
        except BaseException:
            self.game_state = None  # half dealt: step() asks for a reset instead of playing on from it
            raise

    def _reset_from(self, start: State | None) -> tuple[np.ndarray, dict[str, Any]]:
        if start is not None:
            self.deal(start)
            self._play_opponents()
            if self.over:
                raise StateError(f"from the saved position the game ends before the learner's seat "
                                 f"{self.learner_seat} decides: give learner_seat the seat whose decisions to learn")
        else:
            # A game can end before the learner's first decision (e.g. a first-turn win in Travel Earth);
            # Gymnasium's reset cannot return a finished episode, so such a deal is replaced by a new one.
            for _ in range(MAX_REDEALS):
                self.deal()
                self._play_opponents()
                if not self.over:
                    break
            else:
                raise RuntimeError(REDEALS_EXHAUSTED)
        obs = cast(State, self.game_state).observation(self.learner_seat)  # (deal() set it)
        if self.render_mode == "human":  # Gymnasium: a human-mode env draws by itself
            self.render()
        return obs, {"learner_seat": self.learner_seat, "action_mask": self.action_masks()}

    def _play_opponents(self) -> None:
        """Let opponents move until the learner decides or the game is over."""
        while (turn := self.opponent_to_move()) is not None:
            if not self.play_if_forced():
                self.play_opponent(*turn, self._moves_rng)

    def step(self, action: Any) -> StepResult:
        """The learner's move, then the opponents' until the learner decides again or the game ends:
        ``(observation, reward, terminated, truncated, info)``. ``reward`` is what the learner gained since
        its last move (its seat's return at the end, a penalty's included; else 0). ``info`` holds ``action_mask``
        (bool, as ``action_masks()``: Gymnasium's ``Discrete.sample`` takes it as ``.astype(np.int8)``);
        once the episode ends also ``returns`` and ``standings`` (per seat; all zeros when truncated) and
        ``learner_seat``; ``illegal_action: True`` where the move was illegal and the ``illegal_action`` rule
        replaced it or ended the game. Raises RuntimeError before ``reset()`` and after the episode ended."""
        self.begin_step(action)
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self.outcome()

    def _require_reset(self, method: str) -> State:
        """The game's state; before ``reset()`` a RuntimeError naming ``method``."""
        if self.game_state is None:
            raise RuntimeError(f"reset() must be called before {method}(): call env.reset(seed=...) first")
        return self.game_state

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool vector (what MaskablePPO asks for); all True once the episode
        is over, so that a batched masked softmax stays finite. Raises RuntimeError before ``reset()``."""
        state = self.game_state
        if state is None:  # tested here, not by a call: MaskablePPO asks for masks every step
            state = self._require_reset("action_masks")
        if self.over or state.current_player() != self.learner_seat:
            # Nothing to decide; an all-True mask keeps batched policies finite (as Pgx does).
            return np.ones(self.game.num_actions, bool)
        return state.legal_action_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:  # Gymnasium's convention, as the AEC env: a warning, no frame
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' (text), "
                                  "'rgb_array' or 'human'")
            return None
        state = self._require_reset("render")
        seat = self.learner_seat if self.render_view == "learner" else None
        if self.render_mode in ("rgb_array", "human"):  # the table picture (for video wrappers)
            self.aec.render_player = seat
            return self.aec.render()
        return state.render_text(seat)

    def action_to_string(self, action: int) -> str:
        """The name of an action id in the current game (as the AEC env's ``action_to_string``)."""
        return self.aec.action_to_string(action)

    def close(self) -> None:
        self.aec.close()
