"""Human-vs-bot play in the terminal, for any registered game.

The human sees exactly their own view (``State.render_text(seat)``), never the true state, and
picks one of the numbered legal moves by number or by (part of) its readable name. Bad input gets
a message and a new prompt; end of input ends the game cleanly. Every game is recorded as a
:class:`~tabletop_envs.core.replay.Replay` that can be saved at the end.

Input and output go through two callables (``ask(prompt) -> str``, ``say(text)``) so the loop is
driven by scripted input in tests exactly as by a person at the keyboard.
"""

from __future__ import annotations

import itertools
import os
import re
import secrets
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .engine import check_seed_value
from .errors import IllegalActionError, StopSignal, is_int
from .files import path_is
from .policy import Policy, load_policy, policy_name, policy_rng, restart_policies
from .replay import Replay

Ask = Callable[[str], str]
Say = Callable[[str], None]

HELP = ("Type the number of a move, or a unique part of its name (e.g. of a card's name).\n"
        "  t  show the table again    h  this help    q  quit (you can still save the replay)")


class QuitGame(Exception):
    """The human asked to stop (q) or closed the input (EOF)."""


@dataclass
class PlayResult:
    replay: Replay
    returns: list[float] | None  # None when the game did not end (quit, EOF or max_turns)
    human_seat: int
    finished: bool
    reason: str  # "terminated", "truncated", "quit", "eof", "interrupted", "SIGTERM", "SIGHUP"


def resolve_env_name(game: str) -> str:
    """``terralore`` / ``travel-earth`` / ``earth_v0`` → the registered env name."""
    from .registry import ENVS, env_family, env_version

    key = game.strip().lower().replace("-", "_")
    if key in ENVS:
        return key
    matches = [name for name in ENVS if env_family(name) == key]
    if matches:
        return max(matches, key=env_version)  # the newest version
    raise ValueError(f"unknown game {game!r}; choose one of: " + ", ".join(sorted({env_family(n) for n in ENVS})))


def default_opponent(env_name: str) -> str:
    from .policy import _POLICIES
    from .registry import ENVS, import_if_written

    heuristic = f"{env_name}/heuristic"
    if ENVS[env_name].policies_module:
        import_if_written(ENVS[env_name].policies_module)  # a game without bots yet plays its random bot
    return heuristic if heuristic in _POLICIES else f"{env_name}/random"


def choose_move(text: str, legal: Sequence[int], names: Sequence[str]) -> tuple[int | None, str]:
    """Parse one line of human input against the numbered legal moves.

    Returns ``(action, "")`` or ``(None, message)`` explaining what was wrong.
    """
    text = text.strip()
    if not text:
        return None, f"Please type a move number 1–{len(legal)} (h for help)."
    if re.fullmatch(r"[+-]?[0-9]+", text):  # str.isdigit() also passes "²", which int() refuses
        # int() refuses over 4,300 digits with a ValueError, which ended the game: no move has a long number
        if len(text.lstrip("+-").lstrip("0")) > 9:
            return None, f"{text[:9]}… is not one of the moves: type a number from 1 to {len(legal)}."
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1], ""
        return None, f"{number} is not one of the moves: type a number from 1 to {len(legal)}."
    wanted = text.lower()
    exact = [i for i, n in enumerate(names) if n.lower() == wanted]
    found = exact or [i for i, n in enumerate(names) if wanted in n.lower()]
    if len(found) == 1:
        return legal[found[0]], ""
    if not found:
        return None, f"No legal move is called {text!r}. Type a number from 1 to {len(legal)} (h for help)."
    options = ", ".join(f"{i + 1}. {names[i]}" for i in found[:8])
    return None, f"{text!r} matches several moves ({options}{' …' if len(found) > 8 else ''}); be more precise."


def format_moves(legal: Sequence[int], names: Sequence[str]) -> str:
    width = len(str(len(legal)))
    return "\n".join(f"  {i + 1:>{width}}. {name}" for i, name in enumerate(names))


def read_line(ask: Ask, prompt: str, say: Say) -> str:
    """``ask(prompt)``, again after a line that is not text: one stray byte (a Latin-1 "é" typed into a
    UTF-8 terminal) raised UnicodeDecodeError, which ended the game and lost its replay."""
    while True:
        try:
            return ask(prompt)
        except UnicodeDecodeError:
            say("That line is not text in this terminal's encoding (a character from another keyboard layout?); "
                "type it again.")


def ask_yes_no(ask: Ask, prompt: str, say: Say) -> bool:
    """A ``[y/N]`` question: y or yes is yes, an empty line, n or no is no, and anything else is asked
    again (a typo such as "ye" or "save" was a silent no, which lost the replay)."""
    while True:
        answer = read_line(ask, prompt, say).strip().lower()
        if answer in ("y", "yes"):
            return True
        if answer in ("", "n", "no"):
            return False
        say(f"Please answer y or n (not {answer[:40]!r}).")


def _human_move(env, seat: int, ask: Ask, say: Say) -> int:
    state = env.game_state
    legal = state.legal_actions()
    names = [state.action_to_string(a) for a in legal]
    decision = state.decision()
    if len(legal) == 1:  # nothing to choose (Earth asks every seat to pass its turn-end window): no prompt
        say(f"Your only move{f' ({decision})' if decision else ''}, played: {names[0]}")
        return legal[0]
    say(_banner(env, seat))
    say(state.render_text(seat))
    say(f"\nYour move{f' ({decision})' if decision else ''}:\n{format_moves(legal, names)}")
    while True:
        try:
            line = read_line(ask, "> ", say)
        except EOFError:
            raise QuitGame("eof") from None
        command = line.strip().lower()
        if command in ("q", "quit", "exit"):
            raise QuitGame("quit")
        if command in ("h", "help", "?"):
            say(HELP)
            continue
        if command in ("t", "table"):
            say(state.render_text(seat))
            say(format_moves(legal, names))
            continue
        action, problem = choose_move(line, legal, names)
        if action is not None:
            say(f"You: {names[legal.index(action)]}")
            return action
        say(problem)


def _bot_move(policy: Policy, state, seat: int, name: str, rng) -> int:
    """The bot's move at ``seat``, or an :class:`IllegalActionError` whose message the human may read."""
    from .single_agent import check_opponent_move

    mask = state.legal_action_mask()
    try:
        return check_opponent_move(policy.act(state.observation(seat), mask, rng), mask, policy, seat, state, name)
    except IllegalActionError as error:
        # printed to the human at the table: the legal moves it lists, and the name (or id) of the move the
        # bot chose, are cards of the bot's hand; the fields keep them for code
        error.reason = (f"the opponent {name} (seat {seat}) chose a move that is not legal at its decision "
                        "(which move, and its legal ones, are not shown: they would name cards of its hand)")
        error.args = (f"{error.reason}. Its act(observation, action_mask, rng) must return an action whose bit "
                      "in the action mask is 1",)
        raise


def _banner(env, seat: int) -> str:
    return f"\n{'=' * 24} {env.metadata['name']} · you are player_{seat} {'=' * 24}"


def play_match(env_name: str, opponents: Sequence[str | Policy], human_seat: int = 0, seed: int | None = None,
               ask: Ask = input, say: Say = print, env_kwargs: dict | None = None, window: bool = False) -> PlayResult:
    """One game: the human at ``human_seat``, ``opponents`` in the other seats in order.

    ``env_kwargs`` go to the env (rule options, ``num_players``, ``max_turns``). ``window``: also show
    the table, from the human's seat only, as a picture in a window, drawn whenever the human is to move
    and at the end (not after each bot move: how many moves a bot made can be hidden).
    """
    from .registry import get_spec

    if isinstance(opponents, (str, os.PathLike)) or hasattr(opponents, "act"):  # len() of an id counted its letters
        raise TypeError(f"opponents must be a list (one per other seat, or one for all), got {opponents!r}: e.g. "
                        f"[{opponents!r}]")
    env_kwargs = dict(env_kwargs or {})
    if env_kwargs.get("illegal_action", "raise") != "raise":  # else refused by Replay.start, which no player called
        raise ValueError(f"env_kwargs illegal_action={env_kwargs['illegal_action']!r}: in play every move is checked "
                         "before it is made (the human's are picked from the legal ones, a bot's illegal move ends "
                         "the game in an error), and the game is recorded as a replay, which records the moves as "
                         "played; leave it out")
    if window:  # drawn here, when the human decides (show_window below), not by the env after every move
        env_kwargs["render_mode"] = "rgb_array"
    env = get_spec(env_name).load_module().raw_env(**env_kwargs)
    n = env.game.num_players
    # an int, as SingleAgentEnv's learner_seat: True sat the human at seat 1, "1" failed on a comparison
    if not is_int(human_seat) or not 0 <= human_seat < n:
        raise ValueError(f"--seat must be between 0 and {n - 1} for {n} players, got {human_seat!r}")
    human_seat = int(human_seat)
    env.render_player = human_seat  # the window shows only what the human may see
    if len(opponents) == 1 and n > 2:
        opponents = list(opponents) * (n - 1)
    if len(opponents) != n - 1:
        wanted = "no opponent (a solo game)" if n == 1 else f"{n - 1} opponent{'s' * (n > 2)}"
        raise ValueError(f"{env_name} with {n} player{'s' * (n > 1)} needs {wanted}, got {len(opponents)}")
    # another game's policy: ModelMismatchError; a model trained under other rule options: a warning
    policies = [load_policy(o, env=env_name, game_config=env.game.config()) for o in opponents]
    seat_policy: dict[int, Policy] = {}
    names: list[str] = []
    others = iter(zip(opponents, policies))
    for s in range(n):
        if s == human_seat:
            names.append("human")
        else:
            label, policy = next(others)
            seat_policy[s] = policy
            names.append(policy_name(label))  # a Path as its path, a loaded model by its name
    # 63 bits: a bot that checks guessed seeds against its generator (one hash each) must not find it.
    # Checked before int(): that played 1.5 and True as seed 1, and "3" as 3
    check_seed_value(seed)
    seed = secrets.randbits(63) if seed is None else int(seed)
    replay = Replay.start(env, seed, names)
    env.reset(seed=seed)
    restart_policies(policies)
    viewer = None
    if window:  # no display: refused before the game starts, not at the human's first move
        from . import render

        viewer = render.make_viewer(env.metadata.get("name", "tabletop_envs"))

    def show_window() -> None:
        # only before the human's decisions and at the end: redrawn after every move, the window took as
        # many redraws (and as much time) as the bots took decisions, which a hidden placement must not show
        if viewer is not None:
            viewer.show(env.render())

    # one per seat, never default_rng(seed), the env's deal stream: a bot must neither re-deal nor draw
    # ahead in another bot's generator to choose its random moves
    bot_rngs = [policy_rng(seed, seat) for seat in range(n)]
    # The seed fixes the whole deal (hands, deck order): shown only once the game is over.
    say(f"{env_name}. Seats: " + ", ".join(f"player_{i} = {p}" for i, p in enumerate(names)))
    say("Type h for help.")
    reason = ""
    bot_moves = 0
    try:
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                reason = "terminated" if env.terminations[agent] else "truncated"
                show_window()
                break
            player = env.agent_name_mapping[agent]
            if player == human_seat:
                if bot_moves:
                    # not how many: a bot's count of decisions can be hidden (a Terralore placement behind
                    # the opaque wall takes one decision per card, lane, discard and destroy)
                    say("(the other players have moved)" if n > 2 else "(your opponent has moved)")
                    bot_moves = 0
                show_window()
                action = _human_move(env, player, ask, say)
            else:
                action = _bot_move(seat_policy[player], env.game_state, player, names[player], bot_rngs[player])
                bot_moves += 1
            env.step(action)
            replay.record(action)
    except QuitGame as stop:
        reason = str(stop)
    except KeyboardInterrupt as stop:
        # Ctrl-C stops the game like q, so the replay can still be saved, and so do a SIGTERM and a terminal
        # that closed (SIGHUP) where the command takes them as one. It may land inside env.step, leaving a
        # half-applied move: seal the replay on the table its recorded moves rebuild.
        reason = signal.Signals(stop.signum).name if isinstance(stop, StopSignal) else "interrupted"
        env.close()
        env = replay.make_env()
        for _ in replay.steps(env, verify=False):
            pass
    finally:
        env.close()
        if viewer is not None:
            viewer.close()
    replay.finish(env)
    return PlayResult(replay, replay.returns, human_seat, reason in ("terminated", "truncated"), reason)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def announce_result(result: PlayResult, env, say: Say = print) -> None:
    """The final table from the human's seat and the score."""
    seat = result.human_seat
    # a game the player stopped (q, end of input, Ctrl-C) is not over: its banner said so anyway
    banner = "game over" if result.reason in ("terminated", "truncated") else "game stopped"
    say(f"\n{'=' * 30} {banner} {'=' * 30}")
    say(env.game_state.render_text(seat))
    returns = result.returns  # None only where the game did not end
    if result.reason == "terminated" and returns is not None:
        # who beat whom by the rules: a reward option may shape the returns away from it (Earth's
        # reward="vp_margin" returns are level on a VP tie that the tiebreakers decide)
        state = env.game_state
        ranks = [float(x) for x in state.standings()] if state.is_terminal() else list(returns)
        mine = ranks[seat]
        best = max(ranks)
        if len(returns) == 1:  # solo: nobody to beat, the return is the score
            say(f"Your score: {returns[seat]:g}")
        else:
            if len(ranks) == 2:
                verdict = "You win!" if mine == best and ranks.count(best) == 1 else (
                    "Draw." if mine == best else "You lose.")
            else:  # a middle place is no loss (Earth's rank rewards give it about 0)
                place = 1 + sum(r > mine for r in ranks)
                verdict = f"You finished {_ordinal(place)} of {len(ranks)}{' (tied)' * (ranks.count(mine) > 1)}."
            say(f"{verdict}  Scores (returns): " + ", ".join(f"player_{i}: {r:+g}" for i, r in enumerate(returns)))
            if points := env.game_state.final_points():
                say(points)
    elif result.reason == "truncated":
        say(f"The game reached the turn limit ({env.max_turns} turn{'s' * (env.max_turns != 1)}) and ends "
            "without a winner.")
    else:
        say("Game stopped before the end.")
    say(f"Seed {result.replay.seed} (play this deal again with --seed {result.replay.seed}).")


def shell_word(text: str) -> str:
    """``text`` as one word of a command a person pastes into their shell: a replay saved as
    ``my game.json`` was offered as ``tabletop-envs replay my game.json``, two arguments."""
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline([text])  # cmd and PowerShell read double quotes, not single
    import shlex

    return shlex.quote(text)


def offer_save(result: PlayResult, ask: Ask = input, say: Say = print, path: str | None = None) -> str | None:
    """Ask whether to save the replay (or save straight to ``path``); returns the saved path."""
    if path is None:
        # the default names only the game and seed: a second game of that seed must not replace the first
        base = f"replay-{result.replay.env}-seed{result.replay.seed}"
        default = next(name for name in (f"{base}{f'-{k}' if k > 1 else ''}.json" for k in itertools.count(1))
                       if not path_is(name, Path.exists))
        try:
            if not ask_yes_no(ask, "Save the replay? [y/N] ", say):
                return None
            path = read_line(ask, f"File name [{default}]: ", say).strip() or default
            while path_is(path, Path.is_file):
                if ask_yes_no(ask, f"{path} exists. Replace it? [y/N] ", say):
                    break
                path = read_line(ask, "Another file name (empty: do not save): ", say).strip()
                if not path:
                    say("The replay was not saved.")
                    return None
        except EOFError:  # Ctrl-D at a question: said on a line of its own, the prompt's line left open
            say("\nThe replay was not saved.")
            return None
    while True:
        try:
            saved = result.replay.save(path)
            break
        except OSError as exc:
            say(f"Could not save the replay to {path!r}: {exc.strerror or exc}")
        try:  # the game is over and only this file keeps it: ask again rather than lose it
            path = read_line(ask, "Another file name (empty: do not save): ", say).strip()
        except EOFError:
            say("\nThe replay was not saved.")
            return None
        if not path:
            say("The replay was not saved.")
            return None
    say(f"Replay saved to {saved}. Watch it with: tabletop-envs replay {shell_word(str(saved))}")
    return str(saved)


def watch_replay(replay: Replay, seat: int | None = None, ask: Ask | None = input, say: Say = print,
                 frames: list | None = None, window: bool = False) -> None:
    """Step through a replay, showing the table (from ``seat``'s view, or the whole table) before
    each action. ``ask`` pauses between steps (None: no pause). ``frames`` collects rgb images;
    ``window`` shows the pictures in a window as the replay goes."""
    env = replay.make_env(render_mode="human" if window else None)
    n = env.game.num_players
    if seat is not None and (not is_int(seat) or not 0 <= seat < n):  # before a window opens for nothing
        raise ValueError(f"--seat must be between 0 and {n - 1}, got {seat!r}")
    env.render_player = seat
    try:
        _watch(replay, env, n, seat, ask, say, frames, window)
    finally:  # a replay that fails to verify, or an interrupt, leaves no window behind
        env.close()


def _watch(replay: Replay, env, n: int, seat: int | None, ask: Ask | None, say: Say, frames: list | None,
           window: bool) -> None:
    if window:  # no display: refused before the first table is printed
        from .render import open_window

        open_window(env)

    def snapshot():
        if window:
            env.render()
        if frames is not None:
            from .render import draw_state

            frames.append(draw_state(env, seat))

    # played through silently first: the final digest is known only at the end, and a replay that
    # plays out otherwise would show a whole game of other moves before saying so
    replay.replay()
    players = replay.players or ["?"] * n
    say(f"Replay of {replay.env} (seed {replay.seed}, {len(replay.actions)} action{'s' * (len(replay.actions) != 1)}, "
        "recorded with "
        f"tabletop-envs {replay.library_version}). Seats: "
        + ", ".join(f"player_{i} = {p}" for i, p in enumerate(players)))
    for index, player, action in replay.steps(env):
        state = env._require_reset()
        say(f"\n--- action {index + 1}/{len(replay.actions)} ---")  # the table below names the turn
        say(state.render_text(seat))
        snapshot()
        shown = state.action_to_string(action) if seat is None or seat == player else "(hidden from your seat)"
        say(f"player_{player} ({players[player]}): {shown}")
        if ask is not None:
            try:
                if read_line(ask, "[Enter] next, q quit > ", say).strip().lower() in ("q", "quit"):
                    say("Stopped.")
                    return
            except EOFError:
                ask = None  # input closed: play the rest without pausing
    snapshot()
    state = env._require_reset()
    say(f"\n--- end: final table ---\n{state.render_text(seat)}")
    if replay.returns is not None:
        say("Returns: " + ", ".join(f"player_{i}: {r:+g}" for i, r in enumerate(replay.returns)))
        if points := state.final_points():
            say(points)
    say("Replay verified: the final state matches the recorded one.")
