"""``tabletop-envs``: play a game against a bot in the terminal, watch a replay, list what is shipped.

    tabletop-envs play terralore --opponent terralore_v0/heuristic --seat 1 --seed 7
    tabletop-envs play earth --players 3 --opponent earth_v0/heuristic --opponent earth_v0/random
    tabletop-envs replay replay-terralore_v0-seed7.json [--seat 0] [--no-pause] [--gif game.gif]
    tabletop-envs list
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import warnings

from .core.errors import (
    StopSignal,
    TabletopError,
    cli_message,
    is_int,
    lenient_stdout,
    output_reader_may_go,
    stop_signals_as_interrupt,
    to_devnull,
)
from .core.files import cannot_write_in, parse_json, user_path


def _option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"game options look like KEY=VALUE, got {text!r}")
    try:
        return key, parse_json(value)
    except json.JSONDecodeError:
        # Python's spellings too: the env's own errors name values as Python does ("must be True or False")
        python_words = {"True": True, "False": False, "None": None}
        return key, python_words.get(value, value)  # any other bare word is a string
    except ValueError as exc:  # a key given twice, nesting too deep, an integer of thousands of digits
        raise argparse.ArgumentTypeError(f"game option {key}: {exc}") from None


def _frames_per_second(text: str) -> float:
    try:
        fps = float(text)
    except ValueError:
        fps = float("nan")
    # 0 divided by zero after the whole replay, and a GIF holds a frame at most 655.35 s
    if not 0.01 <= fps <= 100:
        raise argparse.ArgumentTypeError(f"frames per second must be a number from 0.01 to 100, got {text!r}")
    return fps


def _check_output_file(path: str, flag: str, suffix: str | None = None) -> None:
    """Refuse an output file that cannot be written before the game or replay, not after it: a replay
    failed to save once the game was over, and a GIF only after the whole replay had been shown."""
    if not path:
        raise ValueError(f"{flag} needs a file name, e.g. {flag} game{suffix or '.json'}")
    where = user_path(path)
    if where.is_dir():
        raise ValueError(f"{flag} {path!r} is a folder: give a file name, e.g. {flag} {where / ('game' + (suffix or '.json'))}")
    if suffix and where.suffix.lower() != suffix:
        raise ValueError(f"{flag} {path!r}: the file name must end in {suffix}")
    if not where.parent.is_dir():
        raise ValueError(f"{flag} {path!r}: there is no folder {str(where.parent)!r} to write it in")
    problem = cannot_write_in(where.parent)
    if problem:  # /proc/game.gif: "[Errno 2] No such file or directory" once the replay had been shown
        raise ValueError(f"{flag} {path!r}: no file can be written in {str(where.parent)!r} ({problem}); give a "
                         "file name in a folder you can write to")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop-envs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a game against bots in the terminal")
    # the games as registered: a game added there is listed here too
    from .core.registry import ENVS, env_family

    games = sorted({env_family(name) for name in ENVS})
    play.add_argument("game", help=f"one of {', '.join(games)} (optionally with version: {next(iter(ENVS))})")
    play.add_argument("--opponent", action="append", default=None,
                      help="policy id (terralore_v0/heuristic, terralore_v0/random) or model path; "
                           "repeat once per other seat (Earth), or give one for all (default: the heuristic)")
    play.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0, player_0; who moves first is the game's rule: "
                           "a coin flip in Travel Earth, the deal in Earth)")
    play.add_argument("--seed", type=int, default=None, help="game seed (default: random, shown when the game ends: it fixes the hidden cards)")
    play.add_argument("--players", type=int, default=None, help="number of players (Earth: 1–5)")
    play.add_argument("--max-turns", type=int, default=None, help="turn limit (default: the game's)")
    play.add_argument("--option", action="append", type=_option, default=[], metavar="KEY=VALUE",
                      help="rule option passed to the game (JSON value; True, False and None also work), repeatable")
    play.add_argument("--save", default=None, metavar="FILE", help="save the replay here without asking")
    play.add_argument("--window", action="store_true",
                      help="also show your view of the table as a picture in a window (needs pygame or matplotlib)")

    replay = sub.add_parser("replay", help="step through a saved replay, verifying it reproduces the game")
    replay.add_argument("file")
    replay.add_argument("--seat", type=int, default=None, help="watch from this seat's view (default: whole table)")
    replay.add_argument("--no-pause", action="store_true", help="do not wait for Enter between actions")
    replay.add_argument("--gif", default=None, metavar="FILE", help="also write the game as an animated GIF")
    replay.add_argument("--fps", type=_frames_per_second, default=2.0, help="GIF frames per second (0.01 to 100)")
    replay.add_argument("--window", action="store_true", help="also show the pictures in a window")

    sub.add_parser("list", help="list the games and the registered opponents")
    return parser


def _play(args, ask, say) -> int:
    from .core.play import announce_result, default_opponent, offer_save, play_match, resolve_env_name

    env_name = resolve_env_name(args.game)
    if args.save is not None:
        _check_output_file(args.save, "--save")
    env_kwargs = dict(args.option)
    if "render_mode" in env_kwargs:  # it drew the table at every bot decision too, which --window hides
        raise ValueError("--option render_mode is no rule option: to see the table as a picture, add --window")
    for flag, key, value in (("--players", "num_players", args.players), ("--max-turns", "max_turns", args.max_turns)):
        if value is None:
            continue
        given = env_kwargs.get(key, value)
        if not (is_int(given) and given == value):  # the flag replaced the option without a word
            raise ValueError(f"{flag} {value} and --option {key}={given!r} disagree; give only one of them")
        env_kwargs[key] = value
    opponents = args.opponent or [default_opponent(env_name)]
    if env_kwargs.get("num_players") == 1 and args.opponent is None:  # --players 1 or --option num_players=1
        opponents = []
    stop = StopAtQuestions(ask)
    with stop_signals_as_interrupt(stop.signalled):
        result = play_match(env_name, opponents, human_seat=args.seat, seed=args.seed, ask=stop, say=say,
                            env_kwargs=env_kwargs, window=args.window)
        env = result.replay.make_env()
        for _ in result.replay.steps(env):  # the final table, rebuilt (and verified) from the replay
            pass
        if result.reason == "eof":
            say("\nInput closed: the game was stopped.")
        elif result.reason == "interrupted":
            say("\nInterrupted: the game was stopped.")
        elif result.reason in ("SIGTERM", "SIGHUP"):
            say(f"\n{result.reason}: the game was stopped.")
        announce_result(result, env, say)
        if stop.signum is not None and args.save is None:
            say(f"The replay was not saved ({signal.Signals(stop.signum).name}: no one is asked now; "
                "--save FILE saves a game without asking).")
        else:
            offer_save(result, stop, say, path=args.save)
    return 0


class StopAtQuestions:
    """``ask``, for a game that a SIGTERM (a shutdown, ``kill``) or a terminal that closed (SIGHUP: an ssh session
    that dropped) stops as Ctrl-C does, so that ``--save`` still saves it: either ended the command on the spot,
    the game with it. The signal stops the game at the question waiting for the player, or at the next one (not
    in a bot's move, nor while the game is announced and saved: a terminal that closes ends the input, and its
    SIGHUP, maybe two, comes while the stopped game is saved). After one, no question waits for an answer."""

    def __init__(self, ask):
        self.ask = ask
        self.signum: int | None = None
        self.waiting = False

    def __call__(self, prompt: str) -> str:
        self.waiting = True  # before signum is read: a signal that came between the two waited at the question
        try:
            if self.signum is not None:
                raise StopSignal(self.signum)
            return self.ask(prompt)
        finally:
            self.waiting = False

    def signalled(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        if self.waiting:
            self.waiting = False
            raise StopSignal(signum)


def _replay(args, ask, say) -> int:
    from .core.play import watch_replay
    from .core.replay import Replay

    if args.gif is not None:
        _check_output_file(args.gif, "--gif", ".gif")
    replay = Replay.load(args.file)
    frames: list | None = [] if args.gif else None
    watch_replay(replay, seat=args.seat, ask=None if args.no_pause else ask, say=say, frames=frames,
                 window=args.window)
    if frames:
        from .core.render import save_gif

        say(f"GIF written to {save_gif(frames, args.gif, args.fps)}")
    return 0


def _list(say) -> int:
    from .core.registry import ENVS, available_envs

    ready = available_envs()
    for name, spec in ENVS.items():
        players = ", ".join(map(str, spec.player_counts))
        say(f"{name:18} players {players:14} {'ready' if name in ready else 'not installed'}")
    from .core.onnx_policy import shipped_model_ids
    from .core.play import default_opponent

    heuristics = [default_opponent(n) for n in ready]
    trained = [m for n in ready for m in shipped_model_ids(n)]
    say("opponents: " + ", ".join([f"{n}/random" for n in ready] + [h for h in heuristics if not h.endswith("/random")]
                                  + trained))
    return 0


def main(argv: list[str] | None = None, ask=input, say=print) -> int:
    """Entry point of the ``tabletop-envs`` console script; ``ask``/``say`` let tests script a session."""
    with lenient_stdout():  # for this command only: a caller's own stdout is put back as it was
        return _main(argv, ask, say)


def _main(argv: list[str] | None, ask, say) -> int:
    args = build_parser().parse_args(argv)
    if args.command != "play":
        return _run(args, ask, say)
    # a game's lines to a terminal that closed go nowhere, instead of ending it before it is saved
    with output_reader_may_go():
        return _run(args, ask, say)


def _run(args, ask, say) -> int:
    try:
        with warnings.catch_warnings():  # a warning for a person, not Python's "file:line: Category: ..."
            warnings.showwarning = lambda message, *_args, **_kwargs: _complain(say, f"warning: {message}")
            if args.command == "play":
                return _play(args, ask, say)
            if args.command == "replay":
                return _replay(args, ask, say)
            return _list(say)
    except BrokenPipeError:
        # the reader went away (tabletop-envs list | head): nothing to report, and nothing more to flush to it
        to_devnull(sys.stdout)
        return 0
    except (TabletopError, ValueError, KeyError, OSError) as exc:
        _complain(say, f"error: {cli_message(exc)}")
        return 2
    except KeyboardInterrupt:
        _complain(say, "\ninterrupted")  # on a line of its own: the terminal's ^C leaves the cursor after it
        return 130


def _complain(say, text: str) -> None:
    """On stderr, as the training commands and argparse write theirs (a session scripted through ``say``: there)."""
    (say if say is not print else lambda line: print(line, file=sys.stderr))(text)


if __name__ == "__main__":
    sys.exit(main())
