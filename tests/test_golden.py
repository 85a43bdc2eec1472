"""The seeded playthroughs of tests/golden.py against their recorded files (see that module)."""

from __future__ import annotations

import pytest
from golden import CASES, FOLDER, file_name, playthrough


@pytest.mark.parametrize(("name", "n", "who"), CASES, ids=[file_name(*case)[:-4] for case in CASES])
def test_a_seeded_game_plays_move_for_move_as_recorded(name, n, who):
    path = FOLDER / file_name(name, n, who)
    recorded = path.read_text(encoding="utf-8").splitlines()
    played = playthrough(name, n, who)
    for i, (want, got) in enumerate(zip(recorded, played)):
        assert got == want, (f"{path.name} line {i + 1} differs (regenerate with `python tests/golden.py` "
                             f"if the change is intended, and say why in the commit)")
    assert len(played) == len(recorded), f"{path.name}: {len(played)} lines played, {len(recorded)} recorded"
