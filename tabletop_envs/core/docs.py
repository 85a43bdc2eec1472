"""Each env's documentation page is its ``env.py`` docstring; its tables come from the layouts.

``python -m tabletop_envs.core.docs [env_name ...]`` rewrites the action and observation tables and
the space sizes in those docstrings from the code; the conformance harness
(``conformance.check_doc_page``) fails when a page no longer matches.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .errors import TabletopError, run_cli
from .registry import ENVS, get_spec, make_game

ACTION_HEADER = "| ids | name | meaning |"
OBSERVATION_HEADER = "| indices | name |"
#: the action mask's length as the pages write it: ``Box(203,) int8`` or ``int8 (449,)``
MASK_SIZE = r"Box\((\d+),\) int8|int8 \((\d+),\)"


def mask_sizes(text: str) -> list[int]:
    """Every action-mask length ``text`` states."""
    return [int(a or b) for a, b in re.findall(MASK_SIZE, text)]


def doc_tables(game) -> tuple[str, str]:
    """(action table, observation table) exactly as the documentation page must show them."""
    return game.action_layout.table_markdown(), game.observation_layout.table_markdown()


def state_row(env_name: str, game) -> str:
    """The page's summary row for PettingZoo's ``state()``, sized for the env's player counts."""
    counts = get_spec(env_name).player_counts
    size = game.observation_layout.size
    shape = f"{size * counts[0]}" if len(counts) == 1 else f"n × {size}"
    who = "both players'" if counts == (2,) else "every player's"
    return (f"| state | ``env.state()``: Box({shape},) float32, {who} observations seat by seat (a god's view, "
            "for a centralised critic) |")


def _replace_state_row(text: str, row: str) -> str:
    if re.search(r"^\| state \|.*$", text, flags=re.M):
        return re.sub(r"^\| state \|.*$", lambda _: row, text, count=1, flags=re.M)
    return re.sub(r"^(\| observation \|.*)$", lambda m: m.group(1) + "\n" + row, text, count=1, flags=re.M)


def table_span(text: str, header: str) -> tuple[int, int] | None:
    """(start, end) in ``text`` of the table that begins at the first ``header``, or None where there is none: what
    the refresh replaces and the conformance check compares with the generated table, stale rows included."""
    start = text.find(header)
    if start < 0:
        return None
    # the table is the run of lines that start with "|": up to the next blank line, it took the closing quotes
    # of a docstring that ends with the table, and the env module no longer parsed
    table_lines = re.compile(r"\|[^\n]*(?:\n\|[^\n]*)*").match(text, start)
    return start, (table_lines.end() if table_lines is not None else start)  # (None never: a header starts with "|")


def state_rows(text: str) -> list[str]:
    """Every summary row for ``state()`` that ``text`` holds (a page holds one)."""
    return re.findall(r"^\| state \|.*$", text, flags=re.M)


def _replace_table(text: str, header: str, table: str, path: Path) -> str:
    span = table_span(text, header)
    if span is None:  # a new game's page: str.index failed here as "ValueError: substring not found"
        raise TabletopError(f"{path}: its docstring has no {header!r} line for the generated table to replace; a "
                            f"page holds both tables' header lines ({ACTION_HEADER!r} and {OBSERVATION_HEADER!r}), "
                            "as tabletop_envs/terralore/env.py does: add them where the tables go and run this again")
    start, end = span
    return text[:start] + table + text[end:]


def refresh(env_name: str) -> Path:
    spec = get_spec(env_name)
    game = make_game(env_name)
    module_file = spec.load_module().__file__
    if module_file is None:
        raise TabletopError(f"{spec.module} is a namespace package, not a module file: its docstring cannot be refreshed")
    path = Path(module_file)
    actions, observations = doc_tables(game)
    text = path.read_text(encoding="utf-8")
    text = _replace_table(text, ACTION_HEADER, actions, path)
    text = _replace_table(text, OBSERVATION_HEADER, observations, path)
    text = re.sub(r"Discrete\(\d+\)", f"Discrete({game.num_actions})", text)
    text = re.sub(r"Box\(\d+,\) float32", f"Box({game.observation_layout.size},) float32", text)
    text = re.sub(r"\(\d+,\), float32", f"({game.observation_layout.size},), float32", text)
    text = re.sub(r"Box\(\d+,\) int8", f"Box({game.num_actions},) int8", text)
    text = re.sub(r"int8 \(\d+,\)", f"int8 ({game.num_actions},)", text)
    text = _replace_state_row(text, state_row(env_name, game))
    # the sizes are rewritten where the page shows them: a page without those rows was reported "refreshed",
    # and check_doc_page went on saying to regenerate it
    size = game.observation_layout.size
    lacking = [row for row, shown in (
        (f"| actions | Discrete({game.num_actions}) |", f"Discrete({game.num_actions})" in text),
        (f"| observation | Dict(``observation``: Box({size},) float32, ``action_mask``: Box({game.num_actions},) "
         "int8) | (the state row is written after it)", f"({size},)" in text and state_row(env_name, game) in text),
    ) if not shown]
    if lacking:
        raise TabletopError(f"{path}: its docstring has no row for the sizes to rewrite; a page's summary table holds "
                            f"these rows (tabletop_envs/terralore/env.py has them): {'; '.join(lacking)}. Add them "
                            "and run this again")
    path.write_text(text, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> None:
    names = (sys.argv[1:] if argv is None else argv) or list(ENVS)
    for name in names:  # every name checked before any page is rewritten
        get_spec(name)
    for name in names:
        print("refreshed", refresh(name))


if __name__ == "__main__":
    sys.exit(run_cli(main))
