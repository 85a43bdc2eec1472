"""Non-default rule options of each shipped game, one value at a time and in pairs, at its player counts.

Most tests play the defaults; the tests of the option space (test_conformance.py's pairwise run, replays and
pictures under options) take their option sets from here, so a new option or value is added in one place.
"""

from __future__ import annotations

import itertools

from tabletop_envs.core.registry import ENVS
from tabletop_envs.earth.catalogue import DATA as EARTH_DATA

#: each game's non-default values (several for a free-form option, its edges included), one option per dict
NON_DEFAULT: dict[str, list[dict]] = {
    "terralore_v0": [
        {"decks": ("tidal_fortress", "ember_rush")}, {"decks": ("worst_deck_ever", "random")},
        {"draw_on_first_turn": True}, {"mulligan": False}, {"defenders_deal_damage": True},
        {"deck_out": "empty_deck"}, {"opaque_wall": False},
    ],
    "travel_earth_v0": [
        {"deck_format": "casual"}, {"decks": ("wild_mix", "expedition")},
        {"hand_size_table": [0]}, {"hand_size_table": [6, 0]}, {"stalemate_turns": 2}, {"stalemate_turns": 10_000},
        {"first_player": 0}, {"first_player": 1}, {"resting_defender_win": "both_discarded"},
    ],
    "earth_v0": [
        {"reward": "vp_margin"}, {"advanced_draft": True}, {"fauna_side": "beginner"}, {"max_rounds": 1},
        {"max_rounds": 4}, {"data_dir": str(EARTH_DATA)},
    ],
}

#: all of a game's options off their defaults at once (a value each), for the quick checks of the default run
ALL_AT_ONCE: dict[str, dict] = {
    "terralore_v0": {"decks": ("ember_rush", "random"), "draw_on_first_turn": True, "mulligan": False,
                     "defenders_deal_damage": True, "deck_out": "empty_deck", "opaque_wall": False},
    "travel_earth_v0": {"deck_format": "casual", "decks": ("deep_sea", "starter"), "hand_size_table": [2, 1, 0],
                        "stalemate_turns": 3, "first_player": 1, "resting_defender_win": "both_discarded"},
    "earth_v0": {"num_players": 3, "reward": "vp_margin", "advanced_draft": True, "fauna_side": "beginner",
                 "max_rounds": 3, "data_dir": str(EARTH_DATA)},
}


def _with_players(env_name: str, kwargs: dict, n: int) -> dict:
    return {**kwargs, "num_players": n} if len(ENVS[env_name].player_counts) > 1 else dict(kwargs)


def option_cases(env_name: str) -> list[dict]:
    """Each non-default value at every player count, and each pair of values of two options (deck_format
    with a deck of its format only) at one player count, turn about, so every count meets pairs."""
    counts = ENVS[env_name].player_counts
    # a game not listed yet plays no option cases here: test_conformance's check that every option is listed
    # names this file, where a KeyError at collection stopped the whole file
    singles = NON_DEFAULT.get(env_name, [])
    cases = [_with_players(env_name, one, n) for one in singles for n in counts]
    pairs = [{**a, **b} for a, b in itertools.combinations(singles, 2) if not set(a) & set(b)]
    # a championship preset is no casual deck (a clear DeckError, test_decks.py): casual pairs with its own
    pairs = [p for p in pairs if not ("deck_format" in p and "decks" in p)]
    if env_name == "travel_earth_v0":
        pairs.append({"deck_format": "casual", "decks": ("deep_sea", "starter")})
    cases += [_with_players(env_name, pair, counts[i % len(counts)]) for i, pair in enumerate(pairs)]
    return cases


def case_id(env_name: str, kwargs: dict) -> str:
    # the shipped data folder by name: its absolute path made every checkout's test ids its own
    shown = {k: "<shipped data>" if v == str(EARTH_DATA) else v for k, v in kwargs.items()}
    return env_name + "-" + ",".join(f"{k}={v}" for k, v in shown.items())
