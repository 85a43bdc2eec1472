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


def _recorded(case) -> list[str]:
    return (FOLDER / file_name(*case)).read_text(encoding="utf-8").splitlines()


def test_every_seeded_game_plays_as_recorded_with_all_of_them_in_threads_at_once():
    """Envs stepped by several threads of one process (a server's tables, a thread-pool evaluation) share
    the module-level caches (catalogues, layouts, render tables): each game must still be its own."""
    from threads import run_in_threads

    played = {}
    run_in_threads(lambda case: played.__setitem__(case, playthrough(*case)), [(case,) for case in CASES])
    assert [case for case in CASES if played.get(case) != _recorded(case)] == []


def test_seeded_games_play_as_recorded_in_a_spawned_process():
    """Spawn, the default start method on macOS and Windows: a fresh interpreter loads the catalogues and
    bots itself, and deals the same games."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    cases = [case for case in CASES if case[2] == "heuristic"] + [max(CASES, key=lambda c: c[1])]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        played = list(pool.map(playthrough, *zip(*cases)))
    assert [case for case, lines in zip(cases, played) if lines != _recorded(case)] == []
