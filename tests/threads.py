"""Threads that switch often, for the tests of what threads may share (caches, policies, envs)."""

from __future__ import annotations

import sys
import threading


def run_in_threads(target, args_list, switch_interval: float = 1e-5) -> None:
    """``target(*args)`` for each of ``args_list``, each on a thread of its own, all at once, switching every
    ``switch_interval`` seconds: at Python's 5 ms most threads would run through before the next one starts."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval)
    try:
        threads = [threading.Thread(target=target, args=args) for args in args_list]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(before)
