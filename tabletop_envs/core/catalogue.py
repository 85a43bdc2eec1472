"""Loading card data files with validation that names the file, the record and the fix."""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .errors import CatalogueError
from .files import RepeatedKeyError, control_text, json_items, parse_json, read_json_text


class Field:
    """One field of a record schema: type, optional allowed values / range, default."""

    def __init__(self, kind: type | tuple, *, choices: Iterable | None = None, min: float | None = None,
                 max: float | None = None, required: bool = True, default: Any = None,
                 check: Callable[[Any], str | None] | None = None):
        self.kind = kind
        self.choices = None if choices is None else list(choices)
        self.min, self.max = min, max
        self.required = required
        self.default = default
        self.check = check

    def validate(self, value: Any, where: str) -> Any:
        kinds = self.kind if isinstance(self.kind, tuple) else (self.kind,)
        if bool not in kinds and isinstance(value, bool) or not isinstance(value, kinds):
            names = "/".join(k.__name__ for k in kinds)
            raise CatalogueError(f"{where}: expected {names}, got {type(value).__name__} {value!r}")
        if isinstance(value, float) and not math.isfinite(value):  # json reads NaN/Infinity; NaN passes any range test
            raise CatalogueError(f"{where}: {value!r} is not a finite number")
        if self.choices is not None and value not in self.choices:
            raise CatalogueError(f"{where}: {value!r} is not one of {self.choices}")
        if self.min is not None and value < self.min or self.max is not None and value > self.max:
            allowed = (f"{self.min}..{self.max}" if self.min is not None and self.max is not None  # not "0..None"
                       else f"({self.min} or more)" if self.min is not None else f"({self.max} or less)")
            raise CatalogueError(f"{where}: {value!r} outside the allowed range {allowed}")
        if self.check is not None:
            problem = self.check(value)
            if problem:
                raise CatalogueError(f"{where}: {problem}")
        return value


def visible_text(text: str) -> str:
    """``text`` as a reader sees it: without format characters (Unicode category Cf: zero-width spaces and
    joiners, soft hyphens, direction marks), runs of spaces as one, ends stripped. A name may hold them (an
    emoji sequence's joiner), but two names that read alike are one name, and one that reads as nothing is
    blank."""
    return " ".join("".join(ch for ch in text if unicodedata.category(ch) != "Cf").split())


def _name_key(text: str) -> str:
    """``text`` as :func:`visible_text` reads it, caseless and in one Unicode form: "Café" typed as one
    character "é" or as "e" and a combining accent is one name on a label."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", visible_text(text)).casefold())


def validate_record(record: Any, schema: dict[str, Field], where: str) -> dict:
    """Check one record against ``schema``; unknown keys are errors (typos must not pass silently)."""
    if not isinstance(record, dict):
        raise CatalogueError(f"{where}: expected an object, got {type(record).__name__}")
    unknown = sorted(set(record) - set(schema))
    if unknown:
        raise CatalogueError(f"{where}: unknown field(s) {unknown}; allowed fields are {sorted(schema)}")
    out = {}
    for key, spec in schema.items():
        if key not in record:
            if spec.required:
                raise CatalogueError(f"{where}: missing required field {key!r}")
            out[key] = spec.default
            continue
        out[key] = spec.validate(record[key], f"{where}, field {key!r}")
    return out


def load_json(path: str | Path) -> Any:
    path = Path(path)
    try:
        data = parse_json(read_json_text(path))
    except OSError as exc:
        raise CatalogueError(f"cannot read catalogue file {path}: {exc}") from exc
    except UnicodeDecodeError as exc:  # ValueErrors, as the next one: caught before the last clause
        raise CatalogueError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}); save the file as "
                             "UTF-8 JSON") from None
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"{path}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    except RepeatedKeyError as exc:
        raise CatalogueError(f"{path}: {exc}") from None
    except ValueError as exc:  # too large, no regular file, nested too deep, an endless integer
        raise CatalogueError(f"{path}: not a catalogue: {exc}; pass a card file in the shipped format") from None
    huge = _huge_number(data)
    if huge:
        digits = len(str(abs(huge[1])))
        raise CatalogueError(f"{path}: {huge[0]} is a number of {digits} digits, too large to play with (the game "
                             "counts in floating point, up to about 1.8e308); use a smaller number")
    control = control_text(data)
    if control:
        raise CatalogueError(f"{path}: {control[0]} holds control characters ({control[1]!r}); card files hold "
                             "printable text only: remove them")
    return data


def _huge_number(data: Any) -> tuple[str, int] | None:
    """(where, value) of the first integer in JSON ``data`` too large to be a float, or None. JSON reads such
    an integer (up to thousands of digits); a statistic of 10**400 met NumPy as OverflowError on load, and an
    Earth gain or VP of 10**400 loaded and ended the game in OverflowError when it was encoded or scored."""
    return next(((where, value) for where, value in json_items(data)
                 if isinstance(value, int) and not isinstance(value, bool) and not _is_a_float(value)), None)


def _is_a_float(value: int) -> bool:
    try:
        float(value)
    except OverflowError:
        return False
    return True


def load_records(path: str | Path, key: str, schema: dict[str, Field], unique: str = "name",
                 header: dict[str, Field] | None = None) -> list[dict]:
    """Load ``data[key]`` (a list of records) from a JSON file and validate every record. ``header``: the
    schema of the file's other top-level keys (a format tag, a set name), which are checked as a record's."""
    data = load_json(path)
    if not isinstance(data, dict) or key not in data or not isinstance(data[key], list):
        raise CatalogueError(f"{path}: expected a JSON object with a list under {key!r}")
    # a misspelt or misplaced top-level key ("crads" beside "cards") loaded and was never read
    validate_record(data, {key: Field(list), **(header or {})}, f"{Path(path).name}, top level")
    records: list[dict] = []
    seen: dict[Any, int] = {}
    for i, raw in enumerate(data[key]):
        label = raw.get(unique, "?") if isinstance(raw, dict) else "?"
        rec = validate_record(raw, schema, f"{Path(path).name}: {key}[{i}] ({label!r})")
        if unique:
            value = rec[unique]
            if isinstance(value, str):
                # names that differ only by case, spaces or invisible characters read as one card on a label
                # or in a deck file; one of spaces or invisible characters names none ("plant ")
                value = _name_key(value)
                if not value:
                    raise CatalogueError(f"{Path(path).name}: {key}[{i}] has a blank {unique} {rec[unique]!r}; "
                                         "give it one")
            if value in seen:
                raise CatalogueError(f"{Path(path).name}: {key}[{i}] repeats {unique} {rec[unique]!r} "
                                     f"(first at {key}[{seen[value]}]: {records[seen[value]][unique]!r}); {unique}s "
                                     "must be unique, ignoring case, spaces and invisible characters")
            seen[value] = i
        records.append(rec)
    return records
