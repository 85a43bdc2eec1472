"""Golden random playthroughs: any change of rules, catalogue or chance use changes these numbers.

If a change is intended, regenerate with ``python -m tests.earth.test_golden`` and say why in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.earth.engine import EarthGame

GOLDEN = Path(__file__).with_name("golden.json")


def playthrough(n: int) -> dict:
    s = EarthGame(num_players=n).new_initial_state(1234 + n)
    rng = np.random.default_rng(n)
    trail = []
    while not s.is_terminal():
        a = int(rng.choice(s.legal_actions()))
        trail.append(a)
        s.apply_action(a)
    return {"decisions": len(trail), "turns": s.turns, "scores": s.scores, "first_actions": trail[:40]}


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_golden_random_playthrough(n):
    want = json.loads(GOLDEN.read_text())[str(n)]
    assert playthrough(n) == want


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({str(n): playthrough(n) for n in range(1, 6)}, indent=1) + "\n")
    print("wrote", GOLDEN)
