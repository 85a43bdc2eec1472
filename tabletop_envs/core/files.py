"""Writing a user's files so that a failure part-way leaves the earlier file, not a torn one; reading the
JSON of files that may come from someone else."""

from __future__ import annotations

import contextlib
import glob
import itertools
import json
import os
import re
import socket
import stat
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: a URL's start (``https://``, ``file://``, ``hf://``): names no file on this machine, nor a policy id
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")

#: tells apart the parts of writes under way at once in one process (threads, or a write inside another's block)
_PART_NUMBERS = itertools.count()

#: this machine in a part's name (letters, digits, ``_``; a part written on another machine of a shared
#: folder is never taken for one of this machine's)
_HOST = re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname())[:40] or "host"

#: a part left by a write that died is removed only once it has been untouched this long, besides its
#: process having ended: a process of another container on this machine (its own process numbers, the
#: machine's name) may be writing it
STALE_PART_SECONDS = 600.0


def _remove_stale_parts(path: Path) -> None:
    """Removes the parts beside ``path`` that a write on this machine left when its process was killed (the
    out-of-memory killer, a SIGKILL, a power cut): each write's part has its own name, so the next write
    never replaced them, and a run folder kept a torn copy of each model it was writing, for ever."""
    if sys.platform == "win32":  # (os.kill ends a process there rather than asking whether it runs)
        return
    pattern = re.compile(re.escape(f"{path.name}.{_HOST}-") + r"(\d+)-\d+\.part")
    try:
        found = path.parent.glob(f"{glob.escape(path.name)}.{_HOST}-*.part")
        for part in found:
            match = pattern.fullmatch(part.name)
            if match is None or _process_runs(int(match.group(1))):
                continue
            if time.time() - part.stat().st_mtime >= STALE_PART_SECONDS:
                part.unlink(missing_ok=True)
    except OSError:  # a folder that cannot be listed, a part gone meanwhile: the write itself says what is wrong
        pass


def _process_runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except OverflowError:  # a number no process has
        return False
    return True


def _through_link(path: Path) -> Path:
    """The file a symbolic link leads to (followed to the end, as ``open()`` does), or ``path`` itself (also for
    a name no file can have: the write says so)."""
    return Path(os.path.realpath(path)) if path_is(path, Path.is_symlink, expand=False) else path


@contextlib.contextmanager
def written_beside(*paths: Path, marker_last: bool = False) -> Iterator[list[Path]]:
    """Yields a ``<name>.<host>-<pid>-<n>.part`` path beside each of ``paths`` for the block to write; once it ends
    without an error, each is moved into place in order, so a full disk or an interrupt part-way leaves the
    earlier files as they were. With ``marker_last``, the last path (a file that marks the others whole,
    as a checkpoint's state.json) is removed before any is moved and comes back last. The parts are
    removed whatever happens.

    Each write has parts of its own: two saves of one name at once (two games of one seed saved under the
    default name they share, from two terminals or threads) shared a fixed ``<name>.part``, and one moved the
    other's half-written part into place while the other then failed on a FileNotFoundError. Parts that
    killed writes on this machine left beside ``paths`` are removed (:func:`_remove_stale_parts`).

    A path that is a symbolic link is written through, as ``open()`` writes: moving the part onto the link
    replaced it with a plain file, and the file it led to (a shared results folder) kept its old text."""
    paths = tuple(_through_link(path) for path in paths)
    for path in paths:
        _remove_stale_parts(path)
    tag = f"{_HOST}-{os.getpid()}-{next(_PART_NUMBERS)}"
    parts = [path.with_name(f"{path.name}.{tag}.part") for path in paths]
    try:
        yield parts
        if marker_last:
            paths[-1].unlink(missing_ok=True)
        for part, path in zip(parts, paths):
            part.replace(path)
    finally:
        for part in parts:
            part.unlink(missing_ok=True)


def user_path(name: str | os.PathLike[str]) -> Path:
    """A path the user gave, a leading ``~`` or ``~user`` expanded as a shell expands it, and as a shell left as
    written where there is no such user (``~game.json``): pathlib's own ``expanduser()`` raises RuntimeError
    "Could not determine home directory" there, which ended ``tabletop-envs play --save ~game.json``, an
    opponent ``~models/m.onnx`` or a recipe's ``output.dir`` on a traceback naming no argument."""
    return Path(os.path.expanduser(name))


def path_is(name: str | os.PathLike[str], test: Callable[[Path], bool], expand: bool = True) -> bool:
    """``test(Path(name))`` (``~`` expanded unless ``expand`` is False: a name expanded once already stays as
    it is), False for a name no file can have: before Python 3.13 ``exists()`` and ``is_file()`` raise OSError
    "File name too long", which ended a game played with a seed of hundreds of digits (its default replay name)
    before it was saved, and made a policy id of thousands of letters an OSError instead of "no policy
    registered"."""
    try:
        return test(user_path(name) if expand else Path(name))
    except OSError:
        return False


def write_text_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) beside it first, then move it into place: written in place, a
    saved replay or a model's sidecar was emptied first, so a failed save of a replay under the name of an
    earlier one lost both, and a failed sidecar update left a model that no longer loads."""
    with written_beside(path) as (part,):
        part.write_text(text, encoding="utf-8")


#: the most bytes a JSON file this library reads (a replay, a model's sidecar, a card file) may hold: the
#: longest replays and the largest card file are well under 1 MB
MAX_JSON_BYTES = 64 << 20


def read_json_text(path: Path) -> str:
    """The UTF-8 text of a JSON file of at most :data:`MAX_JSON_BYTES`: see :func:`read_text_at_most`. Read
    whole, a sidecar linked to /dev/zero filled 7 GB of memory in 20 s, and a 120 MB replay took 27 s and
    630 MB before it was refused."""
    return read_text_at_most(path, MAX_JSON_BYTES, "any replay, model sidecar or card file")


def read_text_at_most(path: Path, limit: int, what: str) -> str:
    """The UTF-8 text (a leading byte-order mark dropped) of a regular file of at most ``limit`` bytes (``what`` never holds more), else ValueError;
    OSError and UnicodeDecodeError as ``read_text`` raises them. A pipe or a device is no such file: a sidecar
    that was a named pipe waited for a writer for ever."""
    mode = os.stat(path).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # (a folder: open() names it, as before)
        raise ValueError("it is no regular file (a pipe, a device or a socket)")
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"it holds over {limit:,} bytes, far more than {what}")
    return data.decode("utf-8-sig")  # a byte-order mark (Windows Notepad writes one) is no content


class RepeatedKeyError(ValueError):
    """A JSON object that gives one key twice."""


def _one_value_per_key(pairs: list) -> dict:
    # json.loads keeps a repeated key's last value without a word: a card written with "points" twice (one
    # edit added, one forgotten) played with the second, whichever was meant
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    start = ", ".join(f"{_dumped(k)}: {_dumped(v)}" for k, v in pairs[:3])  # where to look: the object's start
    start = (start if len(start) <= 100 else start[:99] + "…") + (", …" if len(pairs) > 3 else "")
    raise RepeatedKeyError(f"an object gives the key {_dumped(key)} twice ({{{start}}}); which one a JSON reader "
                           "keeps is not defined: delete the one you do not mean")


def _dumped(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def parse_json(text: str):
    """``json.loads(text)``, where every text that cannot be read is a ValueError (a JSONDecodeError for bad
    syntax, a RepeatedKeyError for an object giving a key twice), for the caller to name its file: a replay,
    sidecar or catalogue nested a few thousand levels deep raised RecursionError, and one holding an integer
    of thousands of digits a ValueError advising to raise Python's limit, each a traceback naming no file."""
    try:
        return json.loads(text, object_pairs_hook=_one_value_per_key)
    except RecursionError:
        raise ValueError("its arrays or objects nest too deeply to be read") from None
    except (json.JSONDecodeError, RepeatedKeyError):
        raise
    except ValueError:  # int()'s digit limit, whose message advises raising it
        raise ValueError(f"it holds an integer of more than {sys.get_int_max_str_digits()} digits") from None


#: the control characters (Unicode category Cc: C0, DEL and C1), which a terminal takes as commands; not
#: ``str.isprintable``, which also refused a no-break space, a soft hyphen or an emoji's zero-width joiner
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def has_control(text: str) -> bool:
    return CONTROL.search(text) is not None


def json_items(data: Any) -> Iterator[tuple[str, Any]]:
    """(where, value) of every value in JSON ``data`` and of every key (``"a key of <where>"``), in the file's
    order, a mapping's keys before the values under them: what :func:`control_text` and the catalogues' check of
    numbers too large for a float walk, each naming the first it finds."""
    todo = [("", data)]
    while todo:
        where, value = todo.pop()
        yield where or "the top level", value
        # pushed reversed, so popped in order
        if isinstance(value, dict):
            todo.extend(reversed([(f"{where}.{key}" if where else str(key), item) for key, item in value.items()]))
            todo.extend(reversed([(f"a key of {where or 'the top level'}", key) for key in value]))
        elif isinstance(value, list):
            todo.extend(reversed([(f"{where}[{i}]", item) for i, item in enumerate(value)]))


def control_text(data: Any) -> tuple[str, str] | None:
    """(where, text) of the first text (value or key) in JSON ``data`` with a control character, or None.
    Names and hashes from files are printed as they are: an escape sequence in a card file or a model's
    sidecar from someone else set the terminal's title when ``tabletop-envs play`` showed it."""
    return next(((where, value) for where, value in json_items(data) if isinstance(value, str) and has_control(value)),
                None)


def cannot_write_in(folder: Path) -> str | None:
    """Why no file can be created in the existing ``folder`` (``"Read-only file system"``), or None if one can:
    tried with a file that is gone again, since a folder's permission bits do not say it (root passes them,
    a read-only mount or Linux's /proc refuse whatever they say)."""
    import tempfile  # here, not at the top: every env and load_policy imports this module, few write (3.5 ms)

    try:
        with tempfile.TemporaryFile(dir=folder):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)
