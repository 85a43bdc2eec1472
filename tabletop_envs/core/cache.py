"""Bounded per-process caches, least recently used out first, shared safely between threads."""

from __future__ import annotations

import threading

#: one lock for every such cache: a server loading bots in several threads iterated a cache while another
#: thread inserted ("dictionary changed size during iteration"); re-entrant, so a caller may hold it across
#: a few cache operations
LOCK = threading.RLock()


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
