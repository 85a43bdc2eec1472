"""Errors with messages that name the problem and the fix."""

from __future__ import annotations

import contextlib
import errno
import json
import operator
import os
import signal
import sys
from collections.abc import Callable

import numpy as np


class TabletopError(Exception):
    """Base class of the library's own errors: illegal actions, bad env or training options, catalogues,
    decks, models, replays, saved states, unknown env and agent names. The command-line tools report these in one line.

    Using an env out of order is Python's own error, as in Gymnasium and PettingZoo: a ``RuntimeError`` for
    ``step()`` before ``reset()`` or after the episode is over, and a ``ValueError`` for a policy asked with
    a mask that has no legal action or a non-``None`` action for an agent that is done."""


class IllegalActionError(TabletopError, ValueError):
    """An action that the current decision does not allow."""

    def __init__(self, action, legal: list[int], describe=None, decision: str = "", who: str = ""):
        self.action = action
        self.legal = list(legal)
        names = [f"{a} ({describe(a)})" if describe else str(a) for a in self.legal[:20]]
        more = f" … and {len(self.legal) - 20} more" if len(self.legal) > 20 else ""
        if action_index(action) is None:  # 2.5, "3", True: not action 2 or 3, whatever int() makes of them
            what = f"{action!r} (not an action id: an action is an int whose bit in the action mask is 1)"
        else:
            what = f"{action} ({describe(action)})" if describe and _is_index(action, describe) else repr(action)
        where = f" while deciding {decision!r}" if decision else ""
        #: what was wrong, without the advice to whoever steps the env (a replay gives its own)
        self.reason = f"illegal action {what}{where}. Legal actions: {', '.join(names)}{more}"
        if not self.legal:  # it said "Legal actions: ." and advised picking one whose mask bit is 1
            self.reason = f"illegal action {what}: the game is over, no action is legal"
            super().__init__(f"{self.reason}. Start a new game: env.reset(), or game.new_initial_state(seed)")
            return
        if who:  # a policy's move, not the caller's: the fix is in the policy
            super().__init__(f"{who} chose an {self.reason}. Its act(observation, action_mask, rng) must return "
                             "an action whose bit in the action mask is 1")
            return
        super().__init__(
            f"{self.reason}. Pick an action whose bit in the action mask is 1, or build the env with "
            "illegal_action='penalty' / 'random_legal'."
        )

    def __reduce__(self):
        # rebuilt from its message and fields: copy and pickle call __init__ with args == (message,), which
        # failed, and Ray (which copies and ships errors) showed that TypeError instead of this error
        return _rebuilt, (type(self), self.args, self.__dict__)


def _rebuilt(cls, args, fields):
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(fields)
    return error


def action_index(action) -> int | None:
    """The action id an int-like action stands for (an int, a NumPy integer, a one-element integer
    array as a vec env hands out), else None: 2.5 or "3" is no action id, not action 2 or 3."""
    if isinstance(action, np.ndarray) and action.size == 1 and action.dtype.kind in "iu":
        action = action.reshape(())[()]
    if isinstance(action, bool):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def is_int(value) -> bool:
    """An int or NumPy integer, not a bool: True is an int to Python, and 2.0 or "2" is none."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _is_index(action, describe) -> bool:
    try:
        describe(action)
        return True
    except Exception:
        return False


class CatalogueError(TabletopError, ValueError):
    """A card catalogue or deck file that does not meet its schema."""


class DeckError(TabletopError, ValueError):
    """A deck that breaks the game's deck-construction rules."""


class ConfigError(TabletopError, ValueError):
    """A training / env configuration with unknown or ill-typed keys."""


class ModelMismatchError(TabletopError, ValueError):
    """A saved policy whose env id, version or observation layout differs from the env's."""


class ReplayError(TabletopError, ValueError):
    """A replay file that is malformed or belongs to another env version."""


class StateError(TabletopError, ValueError):
    """A saved state (``State.to_dict()`` data) that is malformed, edited, or belongs to another env,
    rule options or library version."""


class RuleOptionsWarning(UserWarning):
    """A trained model plays an env whose rule options differ from those it was trained under: the
    observation layout is the same, so it plays, but it never learnt these rules."""


class UnknownEnvError(TabletopError, KeyError):
    """An env name that is not registered (a KeyError, as a failed lookup is)."""

    def __str__(self) -> str:  # KeyError's own str is the repr of its argument, quotes and all
        return str(self.args[0]) if self.args else ""


class UnknownAgentError(TabletopError, KeyError):
    """An agent name that is not one of the env's ``possible_agents`` (a KeyError, as a failed lookup is)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


#: what a command-line tool reports in one line instead of a traceback: the library's own errors (an
#: unknown env name among them), a missing file, malformed JSON in an argument
CLI_ERRORS = (TabletopError, FileNotFoundError, json.JSONDecodeError)


#: an OSError that is the machine's state, not a fault of the command: a full disk or quota, a read-only file
#: system, no permission. A training run that filled the disk ended on a traceback through torch and SB3.
FULL_DISK_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
NOT_WRITABLE_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}
#: a name the user gave that no file can have: an output.dir, an opponent or a teacher of 300 letters ended a
#: training command on a traceback (Python before 3.13 raises it from Path.exists() and Path.is_file() too)
NAME_TOO_LONG_ERRNOS = {errno.ENAMETOOLONG}
#: the OSErrors a command reports in one line (:func:`run_cli`): the machine's state, or a name too long
USER_OS_ERRNOS = FULL_DISK_ERRNOS | NOT_WRITABLE_ERRNOS | NAME_TOO_LONG_ERRNOS


def cli_message(exc: BaseException) -> str:
    """The message of ``exc`` for a user (``str`` of a KeyError is its repr, quotes and all)."""
    if isinstance(exc, OSError) and exc.errno in USER_OS_ERRNOS:
        where = f": {exc.filename}" if exc.filename else ""
        # a write to an open file that fills the disk names no file: the message cannot either
        fix = ("make room on the disk, or choose another folder" if exc.errno in FULL_DISK_ERRNOS
               else "give a shorter file or folder name (a name holds at most 255 bytes)"
               if exc.errno in NAME_TOO_LONG_ERRNOS
               else "choose a folder you can write to" if exc.errno == errno.EROFS
               else "check its permissions, or choose another folder")
        return f"{exc.strerror}{where}; {fix}, and run the command again"
    return str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)


@contextlib.contextmanager
def lenient_stdout():
    """While a command runs, let its text for a person come out as ``?`` where the output's encoding has no
    such character, instead of ending the command: Windows writes redirected or piped output in its ANSI code
    page (cp1251, cp932, ...), which lacks the em dash of a Terralore table, the "á" of Galápagos or the
    en dash of a ``--help``, and a replay stopped half-way with "error: 'charmap' codec can't encode".
    A UTF-8 output, and an error handler someone chose, are left alone; the one found is put back after, so
    a caller that runs a command in its own process keeps its stdout as it was."""
    import codecs

    stream = sys.stdout
    reconfigure = getattr(stream, "reconfigure", None)
    encoding = getattr(stream, "encoding", None)
    before = getattr(stream, "errors", None)
    if reconfigure is None or not encoding or before not in ("strict", "surrogateescape"):
        yield
        return
    try:
        changed = codecs.lookup(encoding).name != "utf-8"
        if changed:
            reconfigure(errors="replace")
    except (LookupError, ValueError, OSError):
        changed = False  # an unknown codec or a closed stream: printing fails as it would have
    try:
        yield
    finally:
        if changed:
            try:
                reconfigure(errors=before)
            except (ValueError, OSError):  # closed, or a reader gone (BrokenPipeError): nothing to keep
                pass


def to_devnull(stream) -> None:
    """Points ``stream``'s file descriptor at the null device: its reader went away (``| head``, a
    killed ``tee``), and what is still buffered for it, flushed again at exit, has nowhere to go."""
    with contextlib.suppress(AttributeError, ValueError, OSError):  # no descriptor (a test's StringIO)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, stream.fileno())
        os.close(null)


#: the signals a command takes as a request to stop: Ctrl-C, the SIGTERM of a batch scheduler or ``kill``,
#: and the SIGHUP of a terminal that closed (an ssh session that dropped); Windows has only the first two
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class StopSignal(KeyboardInterrupt):
    """A SIGTERM or SIGHUP taken as Ctrl-C (:func:`stop_signals_as_interrupt`): caught wherever a Ctrl-C is, and
    ``signum`` says which it was, for a command that asks no more questions after one."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def stop_signals_as_interrupt(handle: Callable[[int], None] | None = None):
    """While the block runs, SIGTERM (a batch scheduler's time limit or pre-emption, ``kill``, a shutdown) and SIGHUP
    (the terminal closed: an ssh session that dropped) raise :class:`StopSignal`, a KeyboardInterrupt, so that a
    command stops as Ctrl-C stops it, keeping what it keeps then, instead of ending on the spot; or, with ``handle``,
    call ``handle(signum)``, which raises where the command can stop. Only from the main thread (where Python runs
    signal handlers) and only over the default handler: a caller's own handler, and nohup's ignored SIGHUP, are
    left alone."""
    import threading

    taken = [sig for sig in STOP_SIGNALS if sig != signal.SIGINT and signal.getsignal(sig) == signal.SIG_DFL]
    if threading.current_thread() is not threading.main_thread():
        taken = []

    def interrupt(signum, frame):
        if handle is None:
            raise StopSignal(signum)
        handle(signum)

    for sig in taken:
        signal.signal(sig, interrupt)
    try:
        yield
    finally:
        for sig in taken:
            signal.signal(sig, signal.SIG_DFL)


def reader_gone(exc: OSError) -> bool:
    """Whether ``exc`` says the reader of an output went away: a closed pipe (``| head``), or a terminal
    that hung up, whose writes fail with EIO."""
    return isinstance(exc, BrokenPipeError) or exc.errno == errno.EIO


class _ReaderMayGo:
    """``stream``, whose writes go to the null device once its reader has gone instead of raising."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError as exc:
            if not reader_gone(exc):
                raise
            to_devnull(self._stream)
            return len(text)

    def flush(self):
        try:
            self._stream.flush()
        except OSError as exc:
            if not reader_gone(exc):
                raise
            to_devnull(self._stream)
            self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def output_reader_may_go():
    """While a command runs, a reader of its stdout or stderr that goes away (``| head``, a ``tee``
    killed, or ended by the same Ctrl-C) no longer ends it: the rest of its text goes nowhere, and
    the command goes on to its end, as it would have with its output in a file. A training run's
    product is its files: the first line printed after its ``tee`` died was a BrokenPipeError that
    ended it with nothing saved since its last checkpoint (its own "interrupted at" line, after a
    Ctrl-C that also ended the ``tee``), and a short command ended on a traceback."""
    streams = {name: getattr(sys, name) for name in ("stdout", "stderr")}
    for name, stream in streams.items():
        if stream is not None:
            setattr(sys, name, _ReaderMayGo(stream))
    try:
        yield
    finally:
        for name, stream in streams.items():
            if stream is not None:
                with contextlib.suppress(ValueError, OSError):  # here, where a reader gone is no error, not at exit
                    getattr(sys, name).flush()
                setattr(sys, name, stream)


def run_cli(main, argv: list[str] | None = None) -> int:
    """Run a command's ``main(argv)`` for its console script or ``python -m``: an error of
    :data:`CLI_ERRORS`, or a full disk, a folder it may not write to or a file name too long, ends it with
    ``error: <message>`` on stderr and exit status 2, as argparse ends a bad argument, instead of a traceback;
    an interrupt (Ctrl-C, or a SIGTERM where the command turns it into one) with ``interrupted`` and the
    shell's status for it, 130. A reader of its output that goes away does not end it
    (:func:`output_reader_may_go`). ``main`` itself raises, for callers and tests."""
    with output_reader_may_go():
        try:
            with lenient_stdout():
                main(argv)
        except CLI_ERRORS as exc:
            print(f"error: {cli_message(exc)}", file=sys.stderr)
            return 2
        except OSError as exc:
            if exc.errno not in USER_OS_ERRNOS:
                raise  # another OSError is the command's own fault: its traceback says where
            print(f"error: {cli_message(exc)}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
            return 130
    return 0
