"""What ``core.engine.check_seat`` says of a wrong seat (the conformance harness checks that every game's
``observation``, ``resample_hidden`` and ``render_text`` call it: ``check_seat_arguments``)."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.core import TERMINAL
from tabletop_envs.core.engine import check_seat
from tabletop_envs.core.registry import make_game


@pytest.fixture(scope="module")
def earth3():
    return make_game("earth_v0", num_players=3)


def test_a_seat_past_the_last_is_refused_naming_the_game_and_its_seats(earth3):
    with pytest.raises(ValueError, match="^seat 3 is not a seat of this 3-player earth_v0 game: 0 to 2$"):
        check_seat(earth3, 3)


def test_terminal_as_a_seat_is_refused_saying_what_minus_one_stands_for(earth3):
    with pytest.raises(ValueError, match=r"seat -1 .*\(-1 is TERMINAL, what current_player\(\) says once the game is over\)"):
        check_seat(earth3, TERMINAL)


@pytest.mark.parametrize("seat", [1.0, "1", True, None])
def test_what_is_no_seat_number_is_refused(earth3, seat):
    with pytest.raises(TypeError, match=rf"^a seat is an int from 0 to 2, got {seat!r}$".replace(".", r"\.")):
        check_seat(earth3, seat)


def test_a_spectator_view_takes_none_too(earth3):
    assert check_seat(earth3, None, spectator=True) is None
    with pytest.raises(TypeError, match=r"or None \(everything\)"):
        check_seat(earth3, "2", spectator=True)


def test_numpy_seats_become_ints(earth3):
    seat = check_seat(earth3, np.int64(2))
    assert seat == 2 and type(seat) is int


def test_a_terminal_state_refuses_current_player_as_a_seat():
    # the slip this guards against: current_player() is TERMINAL once the game is over
    state = make_game("travel_earth_v0").new_initial_state(seed=2)
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    with pytest.raises(ValueError, match="-1 is TERMINAL"):
        state.observation(state.current_player())
