"""Every sentence of the rule texts maps to a named test: the trace tables of the RULES.md pages.

A rule text (``../shared/rules/``) is cut into units: each line (a paragraph, a list item, a
heading, a table row) without its bullet or number, then each sentence of it. A unit is keyed by
the first 10 hex digits of the sha1 of its whitespace-normalised text, so the tables paraphrase the
text instead of quoting it, and a sentence whose wording changes shows up as a key no table has.

Each game's RULES.md has a section "Rule sentence → test" with one row per unit::

    | key | the text says (paraphrased) | tests |

where the tests cell names one or more tests in backticks (``test_…``, defined in a test file under
``tests/``; a note of the file may follow each), or says ``heading`` for a title that states no rule, or
``not a rule: <why>`` for the few units that rule nothing (a language menu).

    python tests/rule_trace.py earth_v0     # every unit with its key and its row's tests, or MISSING
"""

from __future__ import annotations

import hashlib
import html
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES_DIR = ROOT.parent / "shared" / "rules"
GAMES = {  # env name: (rule text, package folder)
    "terralore_v0": ("terralore.html", "terralore"),
    "travel_earth_v0": ("travel_earth_tcg.txt", "travel_earth"),
    "earth_v0": ("earth.txt", "earth"),
}
SECTION = "## Rule sentence → test"
NOT_A_RULE = ("heading", "not a rule:")
_BULLET = re.compile(r"^(?:[•\-*]\s*|\d+\.\s+)+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“‘(•])")
_TEST = re.compile(r"`(test_[A-Za-z0-9_]+)`")


def rule_units(text: str, is_html: bool = False) -> list[str]:
    """The text's units in order: lines without bullets or numbers, cut into sentences."""
    if is_html:
        text = re.sub(r"<\s*/?\s*(li|ul|ol|div|p|hr|br|h\d)\b[^>]*>", "\n", text, flags=re.I)
        text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    units = []
    for line in text.splitlines():
        line = " ".join(line.split())
        while True:  # "• • Place…", "• 1. The active player…"
            stripped = _BULLET.sub("", line).strip()
            if stripped == line:
                break
            line = stripped
        units += [s.strip() for s in _SENTENCE_END.split(line) if s.strip()]
    return units


def unit_key(unit: str) -> str:
    return hashlib.sha1(" ".join(unit.split()).encode()).hexdigest()[:10]


def read_units(env_name: str) -> list[str] | None:
    """The game's rule-text units, or None when ``shared/`` is not beside this checkout."""
    path = RULES_DIR / GAMES[env_name][0]
    if not path.is_file():
        return None
    return rule_units(path.read_text(encoding="utf-8"), is_html=path.suffix == ".html")


def trace_table(rules_md: str) -> dict[str, tuple[str, str]]:
    """``{key: (paraphrase, tests cell)}`` from the RULES.md section; a repeated key is an error."""
    if SECTION not in rules_md:
        return {}
    section = rules_md.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"`?[0-9a-f]{10}`?", cells[0]):
            continue
        key = cells[0].strip("`")
        if key in rows:
            raise ValueError(f"key {key} has two rows in the trace table")
        rows[key] = (cells[1], cells[2])
    return rows


def defined_tests() -> set[str]:
    source = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    return set(re.findall(r"^\s*def (test_[A-Za-z0-9_]+)\(", source, flags=re.M))


def _rows(env_name: str) -> dict[str, tuple[str, str]]:
    return trace_table((ROOT / "tabletop_envs" / GAMES[env_name][1] / "RULES.md").read_text(encoding="utf-8"))


def row_problems(env_name: str) -> list[str]:
    """Rows that name no test, or a test no test file defines (checkable without the rule text)."""
    rows = _rows(env_name)
    if not rows:
        return [f"tabletop_envs/{GAMES[env_name][1]}/RULES.md has no '{SECTION}' table"]
    tests, out = defined_tests(), []
    for key, (_, cell) in rows.items():
        names = _TEST.findall(cell)
        if not names and not cell.startswith(NOT_A_RULE):
            out.append(f"row {key} names no test (and is not marked 'heading' or 'not a rule: …')")
        out += [f"row {key} names {name}, which no test file defines" for name in names if name not in tests]
    return out


def coverage_problems(env_name: str, units: list[str]) -> list[str]:
    """Units of the rule text without a row, and rows that match no unit (a reworded sentence)."""
    rows = _rows(env_name)
    keys = {unit_key(u): u for u in units}  # a repeated sentence (Earth's card-side choice) shares one row
    return ([f"unit {k} has no row: {u!r}" for k, u in keys.items() if k not in rows]
            + [f"row {k} matches no unit of the rule text (reworded or removed?)" for k in rows if k not in keys])


def problems(env_name: str) -> list[str]:
    """What keeps the game's trace table from tracing every unit of its rule text to a real test."""
    units = read_units(env_name)
    return row_problems(env_name) + (coverage_problems(env_name, units) if units is not None else [])


def main(argv: list[str]) -> int:
    env_name = argv[0] if argv else "terralore_v0"
    if env_name not in GAMES:
        print(f"no game {env_name!r}: choose one of {', '.join(GAMES)}", file=sys.stderr)
        return 2
    units = read_units(env_name)
    if units is None:
        print(f"no rule text at {RULES_DIR / GAMES[env_name][0]}")
        return 2
    rows = _rows(env_name)
    for unit in units:
        key = unit_key(unit)
        print(f"{key}\t{rows[key][1] if key in rows else 'MISSING'}\t{unit}")
    for problem in problems(env_name):
        print("PROBLEM:", problem)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
