"""Named segments of the flat observation vector and the flat action space.

Both layouts are the single source of the docs' tables and of the layout hash that a saved
policy is checked against, so an encoding change cannot go unnoticed.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .errors import action_index

if TYPE_CHECKING:
    from gymnasium.spaces import Box


@dataclass(frozen=True)
class ObsSegment:
    name: str
    start: int
    shape: tuple[int, ...]
    low: float
    high: float
    description: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def stop(self) -> int:
        return self.start + self.size


class ObservationLayout:
    """An ordered list of named float32 segments forming one flat vector.

    ``segments`` items are ``(name, shape, low, high, description)``; ``shape`` is an int or a tuple.
    """

    def __init__(self, segments: Sequence[tuple]):
        self.segments: dict[str, ObsSegment] = {}
        start = 0
        for name, shape, low, high, description in segments:
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            if name in self.segments:
                raise ValueError(f"duplicate observation segment {name!r}")
            seg = ObsSegment(name, start, shape, float(low), float(high), description)
            self.segments[name] = seg
            start = seg.stop
        self.size = start
        self.low = np.empty(self.size, np.float32)
        self.high = np.empty(self.size, np.float32)
        for seg in self.segments.values():
            self.low[seg.start : seg.stop] = seg.low
            self.high[seg.start : seg.stop] = seg.high
        self.slices = {n: slice(s.start, s.stop) for n, s in self.segments.items()}
        self._views = {n: (self.slices[n], s.shape) for n, s in self.segments.items()}  # bots read these per move

    def new(self) -> np.ndarray:
        return np.zeros(self.size, np.float32)

    def column_adders(self, *names: str) -> tuple:
        """``start.__add__`` of each named segment: ``map(adder, card_ids)`` gives the columns of those
        cards in that segment, the cheapest way an encoder turns a zone into indices."""
        return tuple(self.segments[name].start.__add__ for name in names)

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """The part of ``vector`` that belongs to segment ``name``, in its shape (a view, writable)."""
        where, shape = self._views[name]
        return vector[where].reshape(shape)

    def space(self) -> Box:
        from gymnasium.spaces import Box

        return Box(self.low.copy(), self.high.copy(), (self.size,), np.float32)

    def describe(self) -> list[dict]:
        return [
            {"name": s.name, "start": s.start, "stop": s.stop, "shape": list(s.shape),
             "low": s.low, "high": s.high, "description": s.description}
            for s in self.segments.values()
        ]

    def table_markdown(self) -> str:
        rows = ["| indices | name | shape | range | meaning |", "|---|---|---|---|---|"]
        for s in self.segments.values():
            idx = f"{s.start}" if s.size == 1 else f"{s.start}–{s.stop - 1}"
            shape = "×".join(map(str, s.shape))
            rows.append(f"| {idx} | `{s.name}` | {shape} | {s.low:g}…{s.high:g} | {s.description} |")
        return "\n".join(rows)

    def hash(self) -> str:
        blob = json.dumps([(s.name, s.shape, s.low, s.high) for s in self.segments.values()])
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ActionSegment:
    name: str
    start: int
    size: int
    description: str
    label: Callable[[int], str]

    @property
    def stop(self) -> int:
        return self.start + self.size


class ActionLayout:
    """Named ranges of stable flat action ids.

    ``segments`` items are ``(name, size, description, labels)``; ``labels`` is a list of strings,
    a callable ``index -> str``, or None (then ``name[i]``).
    """

    def __init__(self, segments: Sequence[tuple]):
        self.segments: dict[str, ActionSegment] = {}
        start = 0
        self._owner: list[str] = []
        for name, size, description, labels in segments:
            if name in self.segments:
                raise ValueError(f"duplicate action segment {name!r}")
            label: Callable[[int], str]
            if isinstance(labels, (list, tuple)):
                if len(labels) != size:
                    raise ValueError(f"segment {name!r}: {len(labels)} labels for {size} actions")
                label = labels.__getitem__
            elif labels is None:
                label = (lambda n: (lambda i: f"{n}[{i}]"))(name)
            else:
                label = labels
            self.segments[name] = ActionSegment(name, start, int(size), description, label)
            self._owner.extend([name] * int(size))
            start += int(size)
        self.num_actions = start
        self.start = {n: s.start for n, s in self.segments.items()}

    def id(self, name: str, index: int = 0) -> int:
        seg = self.segments[name]
        if type(index) is not int:  # the engines pass ints: one test on their path
            checked = action_index(index)
            if checked is None:  # 2.5 made action id start + 2.5, True the segment's second action
                raise TypeError(f"action segment {name!r}: an index is an int, got {type(index).__name__} "
                                f"{index!r}")
            index = checked
        if not 0 <= index < seg.size:
            raise IndexError(f"action segment {name!r} has {seg.size} entries, got index {index}")
        return seg.start + index

    def range(self, name: str) -> range:
        seg = self.segments[name]
        return range(seg.start, seg.stop)

    def decode(self, action: int) -> tuple[str, int]:
        """``(segment name, index within it)`` of action id ``action``: TypeError for what is no action id
        (``int()`` made 2.5 or "2" name action 2), IndexError outside ``0..num_actions - 1``."""
        if type(action) is not int:  # the engines pass ints: one test on their path
            index = action_index(action)
            if index is None:
                raise TypeError(f"an action id is an int (or a NumPy integer), got {action!r}")
            action = index
        if not 0 <= action < self.num_actions:
            raise IndexError(f"action {action} outside 0..{self.num_actions - 1}")
        name = self._owner[action]
        return name, action - self.segments[name].start

    def handlers(self, state_class, prefix: str = "_do_") -> list[tuple[Callable, int]]:
        """``(state_class.<prefix><segment name>, index within the segment)`` for every action id, built
        once per class: an engine applies an action with one table lookup instead of a decode and a
        method lookup by name."""
        cache = self.__dict__.setdefault("_handlers", {})
        table = cache.get(state_class)
        if table is None:
            table = cache[state_class] = [(getattr(state_class, prefix + self._owner[a]),
                                           a - self.segments[self._owner[a]].start) for a in range(self.num_actions)]
        return table

    def label(self, action: int) -> str:
        name, index = self.decode(action)
        return self.segments[name].label(index)

    def table_markdown(self) -> str:
        rows = ["| ids | name | meaning |", "|---|---|---|"]
        for s in self.segments.values():
            ids = f"{s.start}" if s.size == 1 else f"{s.start}–{s.stop - 1}"
            rows.append(f"| {ids} | `{s.name}` | {s.description} |")
        return "\n".join(rows)

    def hash(self) -> str:
        blob = json.dumps([(s.name, s.size) for s in self.segments.values()])
        return hashlib.sha256(blob.encode()).hexdigest()[:16]
