"""Rewrite the layout tables and sizes in env.py's docstring from the code: ``python -m tabletop_envs.earth.docs``.

The docstring is the env's documentation page; tests/earth/test_env.py checks it matches the layouts.
"""

from __future__ import annotations

import re
from pathlib import Path

from .engine import EarthGame

ENV = Path(__file__).with_name("env.py")


def _replace_table(text: str, header: str, table: str) -> str:
    start = text.index(header)
    end = text.index("\n\n", start)
    return text[:start] + table + text[end:]


def refresh(path: Path = ENV) -> None:
    game = EarthGame()
    text = path.read_text()
    text = _replace_table(text, "| ids | name | meaning |", game.action_layout.table_markdown())
    text = _replace_table(text, "| indices | name |", game.observation_layout.table_markdown())
    text = re.sub(r"Discrete\(\d+\)", f"Discrete({game.num_actions})", text)
    text = re.sub(r"Box\(\d+,\) float32", f"Box({game.observation_layout.size},) float32", text)
    text = re.sub(r"action_mask``: Box\(\d+,\) int8", f"action_mask``: Box({game.num_actions},) int8", text)
    path.write_text(text)


if __name__ == "__main__":
    refresh()
    print("refreshed", ENV)
