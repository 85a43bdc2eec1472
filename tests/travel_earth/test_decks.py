"""Deck construction: casual 20 or more, championship exactly 60, at most four copies of one common
name + collector number with every printing counted together; clear errors; both formats as kwargs."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tabletop_envs.core.errors import ConfigError, DeckError
from tabletop_envs.travel_earth.catalogue import build_deck, load_catalogue, preset_decks
from tabletop_envs.travel_earth.engine import TravelEarthGame

CAT = load_catalogue()


def deck_of(n: int, start: int = 1) -> dict:
    """n cards, 4 copies of each consecutive collector number from ``start``."""
    out, k = {}, start
    while n > 0:
        out[f"TE-{k:03d}"] = min(4, n)
        n -= 4
        k += 1
    return out


def test_preset_championship_decks_have_exactly_60_and_casual_at_least_20():
    presets = preset_decks()
    assert presets["championship"] and presets["casual"]
    for name in presets["championship"]:
        assert len(build_deck(name, "championship", CAT)) == 60
    for name in presets["casual"]:
        assert len(build_deck(name, "casual", CAT)) >= 20


def test_casual_open_play_deck_20_or_more_cards():
    assert len(build_deck(deck_of(20), "casual", CAT)) == 20
    assert len(build_deck(deck_of(44), "casual", CAT)) == 44
    with pytest.raises(DeckError, match="casual deck must have 20 or more cards, this one has 19: add 1"):
        build_deck(deck_of(19), "casual", CAT)


def test_championship_deck_exactly_60_cards():
    assert len(build_deck(deck_of(60), "championship", CAT)) == 60
    with pytest.raises(DeckError, match="exactly 60 cards, this one has 59: add 1"):
        build_deck(deck_of(59), "championship", CAT)
    with pytest.raises(DeckError, match="exactly 60 cards, this one has 61: remove 1"):
        build_deck(deck_of(61), "championship", CAT)


def test_no_more_than_four_copies_of_same_common_name_and_collector_number():
    deck = deck_of(16, start=2) | {"TE-001": 5}
    with pytest.raises(DeckError, match="5 copies of Cheetah TE-001 .*at most 4 copies.*remove 1"):
        build_deck(deck, "casual", CAT)
    # a deck listed card by card reaches the validator's own count, not the dict's count check
    listed = [f"TE-{k:03d}" for k in range(2, 6) for _ in range(4)]
    assert build_deck(listed + ["TE-001"] * 4, "casual", CAT).count(0) == 4
    with pytest.raises(DeckError, match=r"5 copies of Cheetah TE-001 \(standard x5\); at most 4 copies.*remove 1"):
        build_deck(listed + ["TE-001"] * 5, "casual", CAT)


def test_alternate_art_foil_promo_and_first_edition_count_together():
    cheetah_promo = CAT.cards[CAT.index["TE-070"]]
    assert {"promo", "foil"} <= set(cheetah_promo["printings"])
    deck = deck_of(16, start=2) | {"TE-070": 2, "TE-070/promo": 2, "TE-070/foil": 1}
    with pytest.raises(DeckError, match=r"5 copies of Cheetah TE-070 \(foil x1, promo x2, standard x2\)"):
        build_deck(deck, "casual", CAT)
    first = CAT.cards[0]["printings"]
    ok = deck_of(16, start=2) | {"TE-001": 2, "TE-001/" + first[1]: 2}
    assert build_deck(ok, "casual", CAT).count(0) == 4


def test_same_common_name_with_another_collector_number_counts_separately():
    deck = deck_of(12, start=2) | {"TE-001": 4, "TE-070": 4}  # eight Cheetahs, two collector numbers
    cards = build_deck(deck, "casual", CAT)
    assert cards.count(CAT.index["TE-001"]) == 4 and cards.count(CAT.index["TE-070"]) == 4


@pytest.mark.parametrize(("deck", "message"), [
    ({"TE-999": 20}, "unknown collector number 'TE-999'"),
    (deck_of(16, start=2) | {"TE-002/promo": 1}, "has no 'promo' printing"),
    ({"TE-001": 0}, "count for 'TE-001' must be a positive integer"),
    ([1, 2, 3], "deck entries must be strings"),
    ({1: 5}, r"deck entries must be strings like 'TE-001' or 'TE-001/alternate_art', got 1"),
    (42, "a deck is a preset name"),
    ("no_such_preset", "no casual preset named 'no_such_preset'"),
])
def test_deck_validator_errors_are_clear(deck, message):
    with pytest.raises(DeckError, match=message):
        build_deck(deck, "casual", CAT)


@pytest.mark.parametrize("count", [5, 10**18, 2**63])
def test_a_count_above_four_is_refused_before_the_copies_are_made(count):
    """{'TE-001': 10**18} raised MemoryError (2**63: OverflowError) while the list of copies was built."""
    with pytest.raises(DeckError, match=rf"seat 0 deck: {count} copies of Cheetah TE-001 \(standard x{count}\); at "
                                         rf"most 4 .*remove {count - 4}"):
        build_deck({"TE-001": count} | deck_of(20, start=2), "casual", CAT, where="seat 0 deck")


def test_an_unknown_collector_number_names_the_deck_it_is_in():
    """The error named the number but not the seat or preset, unlike every other deck error."""
    with pytest.raises(DeckError, match=r"seat 1 deck: unknown collector number 'TE-999'"):
        TravelEarthGame(deck_format="casual", decks=[deck_of(20), {"TE-999": 4} | deck_of(16)])
    with pytest.raises(DeckError, match=r"seat 0 deck: unknown collector number 'TE-999'"):
        TravelEarthGame(deck_format="casual", decks=[{"TE-999": 5}, deck_of(20)])


@pytest.mark.parametrize("deck_format", [["casual"], {"casual": 1}])
def test_a_deck_format_that_is_no_name_is_a_deck_error(deck_format):
    """A list from a replay's config or a sidecar's game_config met the FORMATS dict as TypeError
    (unhashable type). The game's own ConfigError: test_rules.py."""
    with pytest.raises(DeckError, match="unknown deck format"):
        build_deck("starter", deck_format, CAT)


@pytest.mark.parametrize("casual", [["starter"], "starter deck"])
def test_a_presets_file_whose_format_holds_no_object_is_refused_naming_the_file(tmp_path, monkeypatch, casual):
    """A list or text under 'casual' met build_deck as TypeError (list indices must be integers)."""
    import json

    from tabletop_envs.core.errors import CatalogueError
    from tabletop_envs.travel_earth import catalogue

    path = tmp_path / "decks.json"
    path.write_text(json.dumps({**json.loads(catalogue.DECKS_FILE.read_text(encoding="utf-8")), "casual": casual}), encoding="utf-8")
    monkeypatch.setattr(catalogue, "DECKS_FILE", path)
    catalogue.preset_decks.cache_clear()
    try:
        with pytest.raises(CatalogueError, match=r"decks\.json: 'casual' must be an object of preset name -> deck"):
            TravelEarthGame(deck_format="casual")
    finally:
        monkeypatch.undo()
        catalogue.preset_decks.cache_clear()


def test_a_preset_of_the_other_format_names_the_deck_format_that_has_it():
    from tabletop_envs.travel_earth.env import env

    with pytest.raises(DeckError, match="'starter' is a casual preset: build the env with deck_format='casual'"):
        env(decks=["starter", "starter"])
    with pytest.raises(DeckError, match="'expedition' is a championship preset: .* deck_format='championship'"):
        build_deck("expedition", "casual", CAT)


def test_both_formats_selectable_via_kwargs():
    from tabletop_envs.travel_earth.env import env

    champ, casual = env(deck_format="championship"), env(deck_format="casual")
    assert champ.game.deck_sizes == [60, 60] and casual.game.deck_sizes == [24, 24]
    custom = env(deck_format="casual", decks=[deck_of(20), "deep_sea"])
    assert custom.game.deck_sizes == [20, 24]
    with pytest.raises(ConfigError, match="deck_format must be one of"):
        env(deck_format="draft")
    with pytest.raises(DeckError, match="seat 1 deck"):
        TravelEarthGame(deck_format="championship", decks=["expedition", deck_of(40)])


_NUMBERS = [c["collector_number"] for c in CAT.cards]


@settings(max_examples=60, deadline=None)
@given(counts=st.dictionaries(st.sampled_from(_NUMBERS), st.integers(1, 6), min_size=3, max_size=25),
       deck_format=st.sampled_from(["casual", "championship"]))
# the drawn decks are small (Hypothesis favours few keys) and almost never legal: a run met no deck the
# validator accepts. The sizes at each format's edges, legal and one card off, and a fifth copy, every run
@example(counts=dict.fromkeys(_NUMBERS[:5], 4), deck_format="casual")
@example(counts={**dict.fromkeys(_NUMBERS[:4], 4), _NUMBERS[4]: 3}, deck_format="casual")
@example(counts={**dict.fromkeys(_NUMBERS[:4], 4), _NUMBERS[4]: 5}, deck_format="casual")
@example(counts=dict.fromkeys(_NUMBERS[:15], 4), deck_format="championship")
@example(counts={**dict.fromkeys(_NUMBERS[:14], 4), _NUMBERS[14]: 3}, deck_format="championship")
@example(counts={**dict.fromkeys(_NUMBERS[:15], 4), _NUMBERS[15]: 1}, deck_format="championship")
def test_validator_accepts_exactly_the_legal_decks(counts, deck_format):
    size = sum(counts.values())
    legal = max(counts.values()) <= 4 and (size >= 20 if deck_format == "casual" else size == 60)
    try:
        cards = build_deck(counts, deck_format, CAT)
    except DeckError:
        assert not legal
    else:
        assert legal and len(cards) == size


def test_a_deck_given_as_a_tuple_or_a_dict_is_recorded_as_json_reads_it_back():
    import json

    # config() kept a tuple deck as a tuple: the game rebuilt from a replay's or sidecar's config (a list there)
    # played the same cards, but its states compared unequal to the original's, and a dict deck edited after
    # the game was built changed the options the game reported
    listed = [f"TE-00{k}" for k in (1, 2, 3, 4, 6) for _ in range(4)]
    counts = deck_of(20)
    game = TravelEarthGame(deck_format="casual", decks=(tuple(listed), counts))
    counts["TE-001"] = 3
    config = game.config()
    assert config["decks"] == [listed, deck_of(20)] and json.loads(json.dumps(config)) == config
    twin = TravelEarthGame(**json.loads(json.dumps(config)))
    assert twin.new_initial_state(3) == game.new_initial_state(3)


def test_a_dict_deck_counting_in_numpy_integers_is_a_deck_and_records_plain_ints():
    import json

    import numpy as np

    # np.unique(..., return_counts=True) counts: "count for 'TE-001' must be a positive integer, got 4", while
    # hand_size_table, stalemate_turns and first_player take NumPy integers
    counts = {number: np.int64(n) for number, n in deck_of(20).items()}
    game = TravelEarthGame(deck_format="casual", decks=[counts, "starter"])
    assert game.deck_sizes == [20, 24]
    assert json.dumps(game.config()["decks"][0]) == json.dumps(deck_of(20))
    # the count as NumPy writes it: np.int64(0) from NumPy 2, 0 before
    with pytest.raises(DeckError, match="count for 'TE-001' must be a positive integer, got " + re.escape(repr(np.int64(0)))):
        TravelEarthGame(deck_format="casual", decks=[{**counts, "TE-001": np.int64(0)}, "starter"])


def test_a_numpy_array_is_taken_as_one_seats_deck_beside_a_preset():
    import numpy as np

    listed = [f"TE-00{k}" for k in (1, 2, 3, 4, 6) for _ in range(4)]
    game = TravelEarthGame(deck_format="casual", decks=[np.array(listed), "starter"])
    assert sorted(game.decklists[0]) == sorted(build_deck(listed, "casual", CAT))
    assert game.config()["decks"] == [listed, "starter"]


def test_numpy_arrays_are_taken_where_lists_are_a_deck_the_two_decks_and_the_hand_size_table():
    import json

    import numpy as np

    # refused with "a deck is a preset name, a list ... got ndarray" (and the table as no list), where a
    # Terralore deck may be an array; recorded as the lists JSON reads back
    listed = [f"TE-00{k}" for k in (1, 2, 3, 4, 6) for _ in range(4)]
    game = TravelEarthGame(deck_format="casual", decks=np.array([np.array(listed), np.array(listed)]),
                           hand_size_table=np.array([3, 2, 1]))
    config = game.config()
    assert config["decks"] == [listed, listed] and config["hand_size_table"] == [3, 2, 1]
    assert json.loads(json.dumps(config)) == config
    assert TravelEarthGame(**config).new_initial_state(5) == game.new_initial_state(5)
    assert TravelEarthGame(decks=np.array(["expedition", "expedition"])).config()["decks"] == ["expedition"] * 2
    with pytest.raises(ConfigError, match="hand_size_table must be a non-empty list"):
        TravelEarthGame(hand_size_table=np.array([[3, 2, 1]]))  # no table of cards by Hand size


def test_option_deck_format_championship_by_default_takes_exactly_60_cards_and_casual_20_or_more():
    # checked by the game itself, not only by build_deck: a game that validated every deck as casual, or
    # casual decks with the championship's ceiling, passed the build_deck tests
    with pytest.raises(DeckError, match="exactly 60 cards"):
        TravelEarthGame(decks=[deck_of(44), "expedition"])
    with pytest.raises(DeckError, match="exactly 60 cards"):
        TravelEarthGame(deck_format="championship", decks=["expedition", deck_of(64)])
    assert TravelEarthGame(deck_format="casual", decks=[deck_of(64), deck_of(20)]).deck_sizes == [64, 20]
    with pytest.raises(DeckError, match="20 or more cards"):
        TravelEarthGame(deck_format="casual", decks=["starter", deck_of(19)])


def test_option_decks_default_to_the_formats_preset_for_both_seats_and_take_one_deck_per_seat():
    def cards(name, deck_format="championship"):
        return sorted(build_deck(name, deck_format, CAT))

    assert [sorted(d) for d in TravelEarthGame().decklists] == [cards("expedition")] * 2
    assert [sorted(d) for d in TravelEarthGame(deck_format="casual").decklists] == [cards("starter", "casual")] * 2
    s = TravelEarthGame(decks=["expedition", "wild_mix"]).new_initial_state(3)
    for seat, name in enumerate(("expedition", "wild_mix")):
        assert sorted(s.deck[seat] + s.hand[seat] + s.unseen[seat]) == cards(name)
