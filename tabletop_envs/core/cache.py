"""Bounded per-process caches, least recently used out first, shared safely between threads."""

from __future__ import annotations

import os
import threading

#: one lock for every such cache: a server loading bots in several threads iterated a cache while another
#: thread inserted ("dictionary changed size during iteration"); re-entrant, so a caller may hold it across
#: a few cache operations
LOCK = threading.RLock()

# A fork copies the lock as it is: forked while another thread held it (a server loading bots in one thread
# while another starts a worker), the child's first load waited forever for a thread that does not exist
# there. Taken across the fork, the child gets it free and the caches whole; the holders never wait on
# anything, so the fork waits a few microseconds at most.
if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(before=LOCK.acquire, after_in_parent=LOCK.release, after_in_child=LOCK.release)


def recall(cache: dict, key):
    """``cache[key]`` (None when absent), now the last to be evicted."""
    with LOCK:
        value = cache.pop(key, None)
        if value is not None:
            cache[key] = value
        return value


def keep(cache: dict, key, value, size: int):
    """``cache[key] = value``, the least recently used entries beyond ``size`` dropped; returns ``value``."""
    with LOCK:
        cache[key] = value
        while len(cache) > size:
            del cache[next(iter(cache))]
        return value
