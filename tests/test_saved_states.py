"""A saved state (``State.to_dict()``) loads back only into the game it belongs to: anything else is a
StateError that names the problem and the fix, and the data handed in is left as it was."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from tabletop_envs import StateError, TabletopError
from tabletop_envs.core.registry import make_game

#: a rule option that differs from each game's default, to save under one and load under the other
OTHER_OPTIONS = {
    "terralore_v0": {"opaque_wall": False},
    "travel_earth_v0": {"stalemate_turns": 10},
    "earth_v0": {"num_players": 4},
}


def played(env_name: str, steps: int = 40, **options):
    game = make_game(env_name, **options)
    state = game.new_initial_state(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return game, state


def refused(game, data, *fragments: str) -> str:
    before = copy.deepcopy(data)
    with pytest.raises(StateError) as info:
        game.state_from_dict(data)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    assert data == before, "a refused load changed the data handed in"
    return message


@pytest.mark.parametrize("env_name", sorted(OTHER_OPTIONS))
def test_a_saved_state_loads_back_equal_as_a_dict_and_through_json_text(env_name):
    game, state = played(env_name)
    data = state.to_dict()
    assert game.state_from_dict(data) == state
    assert game.state_from_dict(json.loads(json.dumps(data))) == state


@pytest.mark.parametrize("env_name", sorted(OTHER_OPTIONS))
def test_a_state_saved_under_other_rule_options_is_refused_naming_the_option_and_the_fix(env_name):
    (option, other), = OTHER_OPTIONS[env_name].items()
    game, state = played(env_name)
    data = json.loads(json.dumps(state.to_dict()))
    message = refused(make_game(env_name, **OTHER_OPTIONS[env_name]), data, f"{option}=", f"{other!r} here",
                      f"make_game({env_name!r}, **data['config'])")
    assert "saved under other rule options" in message
    # the fix the message gives works
    assert make_game(data["env"], **data["config"]).state_from_dict(data) == state


def test_a_state_saved_under_other_rule_options_is_refused_the_other_way_round_too():
    game, state = played("earth_v0", num_players=4)
    refused(make_game("earth_v0"), state.to_dict(), "num_players=4 saved, 2 here")


@pytest.mark.parametrize("env_name", sorted(OTHER_OPTIONS))
def test_a_state_of_another_env_is_refused(env_name):
    _, state = played(env_name)
    other = next(name for name in sorted(OTHER_OPTIONS) if name != env_name)
    message = refused(make_game(other), state.to_dict(), f"state of {env_name!r} cannot be loaded into {other!r}")
    assert isinstance(StateError(message), (TabletopError, ValueError))


@pytest.mark.parametrize("env_name", sorted(OTHER_OPTIONS))
def test_a_saved_state_missing_a_field_is_refused_naming_it(env_name):
    game, state = played(env_name)
    data = state.to_dict()
    field = sorted(data["state"])[1]
    del data["state"][field]
    refused(game, data, f"missing [{field!r}]", "this library version")


@pytest.mark.parametrize("env_name", sorted(OTHER_OPTIONS))
def test_a_saved_state_without_its_generator_is_refused(env_name):
    game, state = played(env_name)
    data = state.to_dict()
    del data["state"]["rng"]
    refused(game, data, "missing ['rng']")


@pytest.mark.parametrize("env_name", sorted(OTHER_OPTIONS))
def test_a_saved_state_with_an_unknown_field_is_refused_naming_it(env_name):
    game, state = played(env_name)
    data = state.to_dict()
    data["state"]["hnad"] = []
    refused(game, data, "unknown ['hnad']", "_optional_fields")


def test_a_field_a_state_gains_during_play_loads_back_once_its_class_names_it_optional(monkeypatch):
    import toy_game

    state = toy_game.ToyGame().new_initial_state(seed=4)
    state.streak = 2
    refused(state.game, state.to_dict(), "unknown ['streak']", "a ToyState gains during play")
    monkeypatch.setattr(toy_game.ToyState, "_optional_fields", ("streak",))
    assert state.game.state_from_dict(state.to_dict()) == state


def test_a_field_the_class_defaults_may_be_absent():
    # Terralore remembers the start of a Play Phase behind the opaque wall only: the open table never has it
    game, state = played("terralore_v0", opaque_wall=False)
    assert "play_start" not in state.to_dict()["state"]
    assert game.state_from_dict(state.to_dict()) == state
    game, state = played("terralore_v0")
    assert "play_start" in state.to_dict()["state"]
    assert game.state_from_dict(state.to_dict()) == state


@pytest.mark.parametrize("env_name", sorted(OTHER_OPTIONS))
def test_a_saved_state_whose_generator_numpy_cannot_restore_is_refused(env_name):
    game, state = played(env_name)
    data = state.to_dict()
    data["state"]["rng"]["bit_generator"] = "NoSuchGenerator"
    refused(game, data, "generator cannot be restored", "NoSuchGenerator")
    data = state.to_dict()
    data["state"]["rng"]["state"] = "not a state"
    refused(game, data, "generator cannot be restored")


@pytest.mark.parametrize("data, fragment", [
    ([1, 2], "got list"),
    ({"env": "terralore_v0"}, "got ['env']"),
    ("terralore_v0", "got str"),
])
def test_what_is_no_saved_state_is_refused_as_such(data, fragment):
    refused(make_game("terralore_v0"), data, "not a saved state", fragment)


def test_a_saved_state_with_keys_beyond_env_config_and_state_is_refused():
    game, state = played("terralore_v0")
    data = state.to_dict()
    data["note"] = "mine"
    refused(game, data, "unknown: ['note']")


def test_a_saved_state_whose_fields_are_no_dict_is_refused():
    game, state = played("travel_earth_v0")
    data = state.to_dict()
    data["state"] = [data["state"]]
    refused(game, data, "must be a dict of fields, got list")


@pytest.mark.parametrize("env_name, edit, fragment", [
    ("terralore_v0", lambda s: s["hand"][0].append(s["deck"][0][0]), "cards not conserved"),
    ("terralore_v0", lambda s: s["castle"].__setitem__(0, -3), "castle 0 HP -3"),
    ("travel_earth_v0", lambda s: s["hand"][0].append(10_000), "cards not conserved"),
    ("travel_earth_v0", lambda s: s["empty"].__setitem__(0, -1), "-1 Empty"),
    ("earth_v0", lambda s: s["soil"].__setitem__(0, -1), "negative soil"),
    ("earth_v0", lambda s: s["deck"].append(s["deck"][0]), "not conserved"),
    ("earth_v0", lambda s: s.__setitem__("deck", "abc"), "TypeError"),
])
def test_a_saved_state_edited_to_break_the_rules_is_refused_naming_what_it_breaks(env_name, edit, fragment):
    game, state = played(env_name)
    data = state.to_dict()
    edit(data["state"])
    refused(game, data, "breaks the game's invariants", fragment, "edited or corrupted")


def test_an_invariant_without_a_message_is_named_by_its_source_line():
    game, state = played("terralore_v0")
    data = state.to_dict()
    data["state"]["phase"] = "nap"
    refused(game, data, "assert self.phase in (MULLIGAN, PLAY)")


def test_a_game_without_invariants_still_loads_its_states(monkeypatch):
    import toy_game

    game = toy_game.ToyGame.build()
    state = game.new_initial_state(seed=2)
    state.apply_action(state.legal_actions()[0])

    def not_written(self):
        raise NotImplementedError

    monkeypatch.setattr(toy_game.ToyState, "check_invariants", not_written)
    assert game.state_from_dict(state.to_dict()) == state
