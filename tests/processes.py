"""What the signal and lock tests ask of the processes a command started: its descendants, which outlived
it, the stop signals it starts with, and a run folder another process holds."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import numpy as np
import pytest

#: the tests that find a command's processes read Linux's /proc
needs_proc = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads Linux's /proc")


def children(pid: int) -> list[int]:
    """The processes ``pid`` started itself; empty without Linux's /proc."""
    task = Path(f"/proc/{pid}/task")
    return [int(p) for thread in (task.glob("*/children") if task.is_dir() else [])
            for p in thread.read_text(encoding="utf-8").split()]


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (forkserver workers are the forkserver's children, not the trainer's);
    empty without Linux's /proc."""
    found, todo = [], [pid]
    while todo:
        below = children(todo.pop())
        found += below
        todo += below
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead but still holds its pid until reaped by its parent (here: init, soon)
    try:
        return Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:  # gone meanwhile, or no /proc: os.kill found it
        return not Path("/proc").is_dir()


def outlived(pids: list[int], seconds: float = 10.0) -> list[int]:
    """Those of ``pids`` still running ``seconds`` after their parent ended (a forkserver leaves at its EOF)."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]


def signal_the_group_parent_last(pid: int, sig: signal.Signals, head_start: float = 1.0) -> list[int]:
    """``sig`` as a terminal's Ctrl-C or a batch scheduler sends it to a process group, with the parent
    the slowest to react: its descendants get it ``head_start`` seconds before it does, which is the
    order in which a worker that did not leave the signal to its parent broke the parent's shutdown
    (sent to the group at once, the parent usually won the race, and the test passed by luck).
    Returns the descendants signalled."""
    workers = descendants(pid)
    for worker in workers:
        try:
            os.kill(worker, sig)
        except ProcessLookupError:
            pass
    time.sleep(head_start)
    os.kill(pid, sig)
    return workers


HOLD_RUN_FOLDER = """
import sys, time
from pathlib import Path
from training.config import run_folder_held
with run_folder_held(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(120)
"""


@contextlib.contextmanager
def run_folder_held_elsewhere(folder: Path):
    """Another process holds ``folder`` as a run writing there does (``training.config.run_folder_held``)
    while the block runs; yields that process."""
    import subprocess
    import sys

    other = subprocess.Popen([sys.executable, "-c", HOLD_RUN_FOLDER, str(folder)], stdout=subprocess.PIPE, text=True,
                             cwd=Path(__file__).resolve().parents[1])
    try:
        assert other.stdout.readline() == "held\n"
        yield other
    finally:
        other.kill()
        other.wait()
        other.stdout.close()


def stop_signals_at_their_defaults() -> None:
    """``Popen``'s ``preexec_fn``: the command starts with Ctrl-C, SIGTERM and SIGHUP at their defaults, as
    from a terminal. A shell's background job (``cmd &``) starts with SIGINT ignored and ``nohup`` with
    SIGHUP ignored, and a command inherits both: under a CI started that way the tests that stop a command
    with them found it deaf and waited out their time limits."""
    from tabletop_envs.core.errors import STOP_SIGNALS

    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


@contextlib.contextmanager
def ctrl_c_delivered():
    """SIGINT raises KeyboardInterrupt in this process while the block runs, even where it was started
    with SIGINT ignored (a shell's background job)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class StandIn:
    """A policy for the distillation's worker processes (importable there): ``"wait"`` holds its first move for
    minutes, as a worker deep in its chunk; ``"die"`` ends its process, as the out-of-memory killer would;
    ``"random"`` plays. ``weight`` bytes of baggage give it a trained policy's size."""

    def __init__(self, move: str = "random", weight: int = 0):
        self.move, self.baggage = move, bytes(weight)

    def act(self, obs, mask, rng) -> int:
        if self.move == "die":
            os._exit(9)
        if self.move == "wait":
            time.sleep(120)
        return int(rng.choice(np.flatnonzero(mask)))
