"""Full games between policies on the engine, with seat rotation and paired seeds.

Policies see exactly what the AEC face gives them (``state.observation(seat)`` and the mask), so
results here equal results through the env, only faster. Used by the bots' strength checks, the
evaluation script and the README's main job.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .engine import Game
from .errors import ConfigError, IllegalActionError, is_int
from .policy import Policy, load_policy, policy_name, policy_rng, restart_policies


def is_draw(standings) -> bool:
    """Whether a finished game was drawn for every seat: two or more seats and every standing equal (a
    stalemate, a tie, a ``max_turns`` cut, whose standings are all zeros). A one-seat game is never drawn:
    there is no one to draw with, and its one standing always equals itself."""
    standings = np.asarray(standings)
    return standings.size > 1 and bool(standings.min() == standings.max())


def check_draw_reward(value, num_players: int, env_name: str, key: str = "selfplay.draw_reward") -> float:
    """A trainer's cost (or bonus) for a drawn game (:func:`is_draw`), refused where it means nothing: a
    one-seat game is never drawn, so the key could only be a mistake there."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value):
        raise ConfigError(f"{key} must be a number (the reward a drawn game adds, e.g. -0.5), got {value!r}")
    if value and num_players < 2:
        raise ConfigError(f"{key} {value:g}: {env_name} with 1 player is never drawn (there is no one to draw "
                          f"with), so the reward would only shift every game's result; set {key}=0")
    return float(value)


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal`` of a match, evaluation or search seeded ``seed`` (one formula, so that
    the same seed deals the same games in each). In Python ints: a NumPy seed (``np.uint64``, ``np.int64``)
    wrapped around in its own width, dealing other games than the same seed as an int, or a negative seed
    that was then refused."""
    return int(seed) * 1_000_003 + int(deal)


def check_seed(seed) -> None:
    """A match's, evaluation's or game's seed is a non-negative int, as everywhere else in the project: None or
    a Generator failed in ``int()`` deep inside, -1 was named as the seed of its first deal (-1000003), and
    NumPy refuses negative ones only once a generator is made from one."""
    if not is_int(seed) or seed < 0:
        raise ConfigError(f"the seed must be a non-negative integer, got {seed!r}; e.g. seed=0 (--seed 0)")


def check_games(games) -> None:
    """A number of games to play is a positive int: 0 or -3 played no game and reported NaN win rates (or,
    in an evaluation, played one deal anyway)."""
    if not is_int(games) or games < 1:
        raise ConfigError(f"the number of games must be a positive integer, got {games!r}; e.g. 200 (--games 200)")


def play_game(game: Game, policies: Sequence[Policy], seed: int, max_turns: int | None = None,
              rng: np.random.Generator | Sequence[np.random.Generator] | None = None) -> tuple[np.ndarray, int]:
    """Play one game; ``policies[i]`` sits in seat i. Returns (returns per seat, decisions).

    ``seed`` deals ``game.new_initial_state(seed)``. An env's ``reset(seed=seed)`` deals another game (it
    draws the deal's seed from ``seed``); ``reset(options={"state": game.new_initial_state(seed)})`` deals
    this one.

    ``rng``: one generator per seat (default ``policy_rng(seed, seat)``), or one for every seat, which
    only policies that trust each other may share: a policy that draws from another's generator before
    it moves chooses that one's next random numbers. A game that reaches ``max_turns`` (default: the
    game's) ends with all-zero returns (truncated).
    """
    returns, _, steps = play_game_standings(game, policies, seed, max_turns, rng)
    return returns, steps


def play_game_standings(game: Game, policies: Sequence[Policy], seed: int, max_turns: int | None = None,
                        rng: np.random.Generator | Sequence[np.random.Generator] | None = None
                        ) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`play_game` with the seats' standings as well: (returns, standings, decisions). Count wins,
    draws and losses on the standings (``State.standings``): they follow the rules' result where a reward
    option shapes the returns (Earth's ``reward="vp_margin"`` returns ignore the tiebreakers). A truncated
    game's are all zeros, as its returns."""
    from .aec import check_max_turns

    check_seed(seed)
    check_max_turns(max_turns)  # as the env checks it: 0 or -1 made every game a draw
    if len(policies) != game.num_players:
        raise ValueError(f"this {game.num_players}-seat game takes one policy per seat, got {len(policies)}")
    for seat, policy in enumerate(policies):
        if not hasattr(policy, "act"):  # an id or a path: play_match loads those, play_game takes policies
            raise TypeError(f"policies[{seat}] is {policy!r}, not a policy (an object with act(observation, "
                            "action_mask, rng)): load it first with load_policy(...), or play it with play_match")
    state = game.new_initial_state(seed)
    if rng is None:
        rngs = [policy_rng(seed, seat) for seat in range(game.num_players)]
    else:
        rngs = [rng] * game.num_players if isinstance(rng, np.random.Generator) else list(rng)
        if len(rngs) != game.num_players:
            raise ValueError(f"rng must be one generator, or one per seat ({game.num_players}), got {len(rngs)}")
    limit = game.default_max_turns if max_turns is None else max_turns
    restart_policies(policies)
    steps = 0
    while not state.is_terminal():
        if state.turn >= limit:
            return np.zeros(game.num_players), np.zeros(game.num_players), steps
        seat = state.current_player()
        mask = state.legal_action_mask()
        observation = state.observation(seat)
        try:
            action = policies[seat].act(observation, mask, rngs[seat])
        except Exception as exc:
            # the policy's own error, as it is; a round robin's traceback told neither whose it was nor which game
            if hasattr(exc, "add_note"):  # Python 3.11+
                exc.add_note(f"raised by the policy {policy_name(policies[seat])} (seat {seat}) while deciding "
                             f"{state.decision()!r} in the game dealt from seed {seed} "
                             f"(game.new_initial_state({seed}) replays the deal)")
            raise
        try:  # the engine refuses what the env faces refuse (2.7 or "3" is no action id)
            state.apply_action(action)
        except IllegalActionError:  # named after the policy at fault, not an env option the arena lacks
            raise IllegalActionError(action, state.legal_actions(), state._describe_safe, state.decision(),
                                     who=f"the policy {policy_name(policies[seat])} (seat {seat})") from None
        steps += 1
    return np.asarray(state.returns(), float), np.asarray(state.standings(), float), steps


@dataclass
class MatchResult:
    """What :func:`play_match` returns: games played, and per policy (in the order given) its wins, draws,
    losses and summed returns; the length of each game."""

    names: list[str]
    games: int = 0
    wins: np.ndarray = field(default_factory=lambda: np.zeros(0, int))  # per policy
    draws: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    total_return: np.ndarray = field(default_factory=lambda: np.zeros(0))
    lengths: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        # counts left out start at zero for each name: they were None, and summary() failed on them
        n = len(self.names)
        for name in ("wins", "draws", "losses", "total_return"):
            counts = getattr(self, name)
            if counts is None or len(counts) == 0 < n:
                setattr(self, name, np.zeros(n, float if name == "total_return" else int))

    def win_rate(self, i: int = 0) -> float:
        return float(self.wins[i] / self.games) if self.games else float("nan")

    def summary(self) -> str:
        lines = []
        for i, name in enumerate(self.names):
            if self.names.count(name) > 1:  # a policy against itself: two lines of one name told nobody which is which
                name = f"{name} (policies[{i}])"
            lines.append(f"{name}: {self.wins[i]}W {self.draws[i]}D {self.losses[i]}L of {self.games} "
                         f"({100 * self.win_rate(i):.1f}% wins)")
        return "\n".join(lines)


def play_match(env_name: str, policies: Sequence[str | os.PathLike[str] | Policy], num_games: int, seed: int = 0,
               game_kwargs: dict | None = None, max_turns: int | None = None) -> MatchResult:
    """``num_games`` games (rounded up to whole sets of seat rotations) with seats rotated every game and
    paired seeds (each deal is played from every seat rotation). For more than two seats a win is the
    unique best standing (``State.standings``: the rules' result, e.g. Earth's tiebreakers, whatever its
    ``reward`` option; the returns otherwise). A table of one seat is refused: there is no one to beat."""
    from .aec import check_max_turns
    from .registry import make_game

    if isinstance(policies, (str, os.PathLike)) or hasattr(policies, "act"):
        raise TypeError(f"policies must be a list with one policy per seat, got {policies!r}: e.g. "
                        "[policy, 'terralore_v0/random']")
    check_games(num_games)
    check_seed(seed)
    check_max_turns(max_turns)
    game = make_game(env_name, **(game_kwargs or {}))
    # another game's policy is refused by name; a model trained under other rule options is warned about
    pols = [load_policy(p, env=env_name, game_config=game.config()) for p in policies]
    # as training.evaluate names them: a loaded model by its name, a Path as its path (not 'PosixPath')
    names = [policy_name(p) for p in policies]
    n = game.num_players
    if n < 2:  # alone at the table a policy has the best standing every game, even one cut at max_turns
        raise ConfigError(f"{env_name} with {n} player has no one to beat, so a win, draw or loss means nothing; "
                          "score solo play with play_game (its returns are the game's own score, e.g. Earth's "
                          "final VP), or play a match with num_players >= 2")
    if len(pols) != n:
        raise ValueError(f"{env_name} with these kwargs has {n} seats; got {len(pols)} policies")
    res = MatchResult(names, 0, np.zeros(n, int), np.zeros(n, int), np.zeros(n, int), np.zeros(n))
    # a generator of its own per policy, never a deal's own stream (deal 0 is dealt from seed 0)
    rngs = [policy_rng(seed, i) for i in range(n)]
    # a deal played from only some seats would keep its luck and the seat edge in the result
    for g in range(-(-num_games // n) * n):
        dealt = deal_seed(seed, g // n)  # the same deal for each of the n rotations
        shift = g % n
        seating = [(i + shift) % n for i in range(n)]  # seat s is played by policy seating[s]
        returns, standings, length = play_game_standings(game, [pols[seating[s]] for s in range(n)], dealt,
                                                         max_turns, [rngs[seating[s]] for s in range(n)])
        res.games += 1
        res.lengths.append(length)
        by_policy, standing = np.empty(n), np.empty(n)
        for s in range(n):
            by_policy[seating[s]] = returns[s]
            standing[seating[s]] = standings[s]
        res.total_return += by_policy
        # who won by the rules (the standings), not by the returns, which a reward option may shape
        best = np.max(standing)
        winners = np.flatnonzero(standing == best)
        for i in range(n):
            if i not in winners:
                res.losses[i] += 1
            elif len(winners) == 1:
                res.wins[i] += 1
            else:  # a shared best: a draw for each seat that shares it
                res.draws[i] += 1
    return res
