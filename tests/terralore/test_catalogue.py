"""The card catalogue and preset decks: content requirements and validation errors."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from tabletop_envs.core.errors import CatalogueError, DeckError
from tabletop_envs.terralore.catalogue import (
    AFFINITIES,
    CARDS_PATH,
    DECKS_PATH,
    RARITIES,
    default_catalogue,
    default_presets,
    load_catalogue,
    load_presets,
    random_deck,
    validate_deck,
)
from tabletop_envs.terralore.engine import TerraloreGame

CAT = default_catalogue()


def test_catalogue_has_at_least_60_distinct_cards_of_both_kinds():
    assert len(CAT) >= 60 and len(set(CAT.names)) == len(CAT)
    kinds = Counter(c.kind for c in CAT.cards)
    assert kinds["creature"] >= 30 and kinds["skill"] >= 15


def test_six_affinities_and_five_rarities_all_used():
    assert Counter(c.affinity for c in CAT.cards).keys() == set(AFFINITIES)
    rarity = Counter(c.rarity for c in CAT.cards)
    assert rarity.keys() == set(RARITIES)
    assert rarity["common"] > rarity["uncommon"] > rarity["rare"] > rarity["legendary"]


def test_card_ids_are_catalogue_positions():
    assert [c.id for c in CAT.cards] == list(range(len(CAT)))


def test_named_cards_from_the_story_exist():
    for name in ("Sturdy Turtle", "Healing Ray", "Cranky Seagull", "Seagull Poison", "Fortified Shell", "Red Fox"):
        assert name in CAT.by_name
    assert CAT.by_name["Cranky Seagull"].cost == 3
    assert CAT.by_name["Fortified Shell"].slots == 3


def test_continuous_effect_texts_name_the_affinity_they_are_limited_to():
    # the engine limits a lane buff, a lane debuff or a synergy to the effect's affinity; the text must say so
    from tabletop_envs.terralore.catalogue import Effect, effect_text

    assert effect_text(Effect("lane_debuff", 1, affinity="fire")) == "Enemy Fire creatures here get -1."
    assert effect_text(Effect("lane_debuff", 2)) == "Enemy creatures here get -2."
    assert effect_text(Effect("lane_buff", 1, affinity="water")) == "Your other Water creatures here get +1."
    assert effect_text(Effect("synergy", 1, affinity="wind")) == "+1 for each other Wind creature on your field."


def test_reveal_texts_give_the_amount_the_engine_applies():
    # the text is all a human reads of a card: its number must be the effect's own
    from tabletop_envs.terralore.catalogue import Effect, effect_text

    assert effect_text(Effect("heal_castle", 4)) == "Reveal: heal your castle by 4."
    assert effect_text(Effect("damage_castle", 2)) == "Reveal: deal 2 damage to the enemy castle."
    assert effect_text(Effect("draw", 3)) == "Reveal: draw 3."
    assert effect_text(Effect("weaken", 2, target="enemy_here_strongest")) == \
        "Reveal: the strongest enemy creature here gets -2 points this turn."


def test_every_card_has_readable_text():
    for card in CAT.cards:
        if card.effects or card.slots > 1:
            assert card.text and "None" not in card.text


def _write(tmp_path, cards):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"cards": cards}), encoding="utf-8")
    return path


def _raw():
    return json.loads(CARDS_PATH.read_text(encoding="utf-8"))["cards"]


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda c: c[3].update(kind="spell"), "'spell' is not one of"),
    (lambda c: c[3].update(affinity="metal"), "'metal' is not one of"),
    (lambda c: c[3].update(rarity="mythic"), "'mythic' is not one of"),
    (lambda c: c[3].update(cost=-1), "outside the allowed range"),
    (lambda c: c[3].update(cost="2"), "expected int"),
    (lambda c: c[3].update(cost=True), "expected int, got bool True"),  # JSON true is no cost, though Python's 1
    (lambda c: c[3].pop("points"), "a creature needs 'points'"),
    (lambda c: c[3].update(colour="red"), "unknown field"),
    # a card's text is written from its effects: a text of its own loaded and was never shown or played
    (lambda c: c[3].update(text="Reveal: destroy every enemy creature."), r"unknown field\(s\) \['text'\]"),
    (lambda c: c[3].update(id=7), "must equal its position"),
    # the message points at the first card of that name, to be renamed or removed
    (lambda c: c[4].update(name=c[3]["name"]), r"cards\[4\] repeats name 'Reef Eel' \(first at cards\[3\]: 'Reef Eel'\)"),
    # an action label or a deck file would not tell these two apart
    (lambda c: c[4].update(name=" " + c[3]["name"].upper()), "repeats name .* ignoring case, spaces and invisible"),
    (lambda c: c[4].update(name=c[3]["name"] + "\u200b"), "repeats name"),  # reads as the other
    (lambda c: c[4].update(name=c[3]["name"].replace(" ", "  ")), "repeats name"),  # "Reef  Eel" reads as "Reef Eel"
    # "é" as one character and as "e" with a combining accent: the same text, however an editor stored it
    (lambda c: (c[3].update(name="Caf\u00e9 Eel"), c[4].update(name="Cafe\u0301 Eel")), "repeats name"),
    (lambda c: c[4].update(name="\u200b"), "has a blank name"),
    (lambda c: c[8].update(points=3), "skills add no points"),
    (lambda c: c[8].update(slots=2), "only creatures occupy lane slots"),
    # a creature takes 1-3 of a lane's four slots (RULES.md)
    (lambda c: c[3].update(slots=0), r"field 'slots': 0 outside the allowed range 1\.\.3"),
    (lambda c: c[3].update(slots=4), r"field 'slots': 4 outside the allowed range 1\.\.3"),
    (lambda c: c[2]["effects"][0].update(amount=0), r"effects\[0\], field 'amount': 0 outside the allowed range 1\.\.9"),
    (lambda c: c.__setitem__(3, None), r"cards\[3\] \('\?'\): expected an object, got NoneType"),
    (lambda c: c[3].update(effects=[{"kind": "explode"}]), "'explode' is not one of"),
    (lambda c: c[3].update(effects=[{"kind": "destroy"}]), "needs a 'target'"),
    (lambda c: c[3].update(effects=[{"kind": "destroy", "target": "everything"}]), "needs a 'target' from"),
    (lambda c: c[3].update(effects=[{"kind": "draw"}]), "needs an 'amount'"),
    (lambda c: c[3].update(effects=[{"kind": "recover", "target": "any", "amount": 2}]), "takes no 'amount'"),
    (lambda c: c[3].update(effects=[{"kind": "heal_castle", "amount": 1, "target": "creature"}]), "takes no 'target'"),
    (lambda c: c[3].update(effects=[{"kind": "synergy", "amount": 1}]), "needs an 'affinity'"),
    (lambda c: c[3].update(effects=[{"kind": "draw", "amount": 1, "affinity": "fire"}]), "takes no 'affinity'"),
    (lambda c: c[8].update(effects=[{"kind": "lane_buff", "amount": 1}]), "only works on creatures"),
    (lambda c: c[3].update(effects=[{"kind": "lane_buff", "amount": 1}, {"kind": "lane_buff", "amount": 2}]),
     "each continuous effect kind once"),
])
def test_catalogue_validation_errors_name_the_card_and_the_fix(tmp_path, mutate, message):
    cards = _raw()
    mutate(cards)
    with pytest.raises(CatalogueError, match=message) as err:
        load_catalogue(_write(tmp_path, cards))
    assert "cards.json" in str(err.value) and "cards[" in str(err.value)


def test_catalogue_file_errors(tmp_path):
    bad = tmp_path / "cards.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CatalogueError, match="not valid JSON at line 1"):
        load_catalogue(bad)
    with pytest.raises(CatalogueError, match="cannot read"):
        load_catalogue(tmp_path / "missing.json")
    with pytest.raises(CatalogueError, match="cards.json: 19 cards cannot fill a 20-card singleton deck"):
        load_catalogue(_write(tmp_path, _raw()[:19]))
    assert len(load_catalogue(_write(tmp_path, _raw()[:20]))) == 20  # one singleton deck's worth is enough
    for text in ("[]", '{"creatures": []}', '{"cards": {"Red Fox": {}}}'):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(CatalogueError, match="cards.json: expected a JSON object with a list under 'cards'"):
            load_catalogue(bad)


@pytest.mark.parametrize("text, problem", [("[" * 100_000 + "]" * 100_000, "nest too deeply"),
                                           ('{"cards": ' + "1" * 5000 + "}", "an integer of more than")], ids=["deep", "huge-int"])
def test_a_catalogue_file_too_deep_or_with_a_huge_number_is_refused_naming_the_file(tmp_path, text, problem):
    """json.loads met these as RecursionError and a ValueError naming no file."""
    path = tmp_path / "cards.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogueError, match=rf"cards\.json: not a catalogue: .*{problem}"):
        load_catalogue(path)


def test_a_catalogue_file_far_larger_than_any_card_file_is_refused_before_it_is_read_whole(tmp_path, monkeypatch):
    from tabletop_envs.core import files

    path = tmp_path / "cards.json"
    path.write_bytes(CARDS_PATH.read_bytes())
    monkeypatch.setattr(files, "MAX_JSON_BYTES", path.stat().st_size - 1)
    with pytest.raises(CatalogueError, match=r"cards\.json: not a catalogue: it holds over [\d,]+ bytes"):
        load_catalogue(path)


@pytest.mark.parametrize("old, new, where", [
    (b'"Tidepool', b'"\\u001b]0;title\\u0007Tidepool', r"cards\[\d+\]\.name"),
    (b'"name"', b'"na\\u001b[2Jme"', r"a key of cards\[\d+\]"),
], ids=["value", "key"])
def test_a_catalogue_text_with_terminal_control_characters_is_refused_naming_where(tmp_path, old, new, where):
    """Card names are printed as they are: an escape sequence in a card file from someone else set the
    terminal's title when tabletop-envs play listed the choices."""
    path = tmp_path / "cards.json"
    path.write_bytes(CARDS_PATH.read_bytes().replace(old, new, 1))
    with pytest.raises(CatalogueError, match=rf"cards\.json: {where} holds control characters \('.*remove them"):
        load_catalogue(path)


def test_of_two_texts_with_control_characters_in_one_card_the_first_in_the_file_is_named(tmp_path):
    # the message sends the reader to one place: the first, as an editor's search from the top finds it
    cards = _raw()
    cards[3].update(name="Reef\x1bEel", rarity="rare\x07")
    with pytest.raises(CatalogueError, match=r"cards\.json: cards\[3\]\.name holds control characters"):
        load_catalogue(_write(tmp_path, cards))


def test_a_folder_in_place_of_a_card_file_is_refused_as_a_folder_not_as_a_pipe_or_device(tmp_path):
    with pytest.raises(CatalogueError, match=r"cannot read catalogue file .*Is a directory"):
        load_catalogue(tmp_path)


@pytest.mark.parametrize("deck, message", [
    ({"Sturdy Turtle": 3}, r"a deck is a list of 20 card names or ids, got a dict \(its counts are not read: decks "
                           r"are singleton"),
    (frozenset(range(20)), r"got a frozenset; give a list"),
])
def test_a_deck_given_as_counts_or_as_a_set_is_refused(deck, message):
    # a dict's counts were dropped (its keys made the deck), and a set's order, which hash seeds change, dealt
    # another game from the same seed in another process
    with pytest.raises(DeckError, match=message):
        validate_deck(CAT, deck)


def test_a_catalogue_name_with_a_no_break_space_a_soft_hyphen_or_an_emoji_sequence_loads(tmp_path):
    # printable text that str.isprintable() calls unprintable: only the terminal's control characters are refused
    name = "Tide\u00a0pool Gar\u00adden \U0001F469\u200d\U0001F33E"
    path = tmp_path / "cards.json"
    path.write_bytes(CARDS_PATH.read_bytes().replace(b'"Tidepool', f'"{name}Tidepool'.encode(), 1))
    assert any(n.startswith(name) for n in load_catalogue(path).names)


def test_the_shipped_catalogue_loads_from_disk_like_the_default():
    assert load_catalogue(CARDS_PATH).names == CAT.names


# ------------------------------------------------------------------ decks
def test_at_least_four_themed_preset_decks_each_legal():
    presets = default_presets()
    assert len(presets) >= 4
    for name, deck in presets.items():
        assert validate_deck(CAT, deck, name) == deck


def test_preset_decks_are_themed_by_affinity():
    for name, deck in default_presets().items():
        if name == "worst_deck_ever":
            continue
        top_two = Counter(CAT[c].affinity for c in deck).most_common(2)
        assert top_two[0][1] + top_two[1][1] >= 12, f"{name} is not built around two affinities"


def test_random_deck_is_legal_and_varies():
    rng = np.random.default_rng(0)
    decks = [random_deck(CAT, rng) for _ in range(5)]
    for d in decks:
        assert validate_deck(CAT, d) == d
    assert len({tuple(d) for d in decks}) == 5


@pytest.mark.parametrize(("deck", "message"), [
    (CAT.names[:19], "exactly 20 cards, this one has 19; add 1"),
    (CAT.names[:21], "has 21; remove 1"),
    (CAT.names[:19] + [CAT.names[0]], "appears more than once"),
    (CAT.names[:19] + ["Pikachu"], "unknown card name 'Pikachu'"),
    (list(range(19)) + [999], "card id 999 outside"),
    (list(range(19)) + [len(CAT)], rf"card id {len(CAT)} outside 0\.\.{len(CAT) - 1}"),
    (list(range(2, 21)) + [True], "cards are given by name or id, got bool True"),  # not card 1
    (list(range(19)) + [1.5], "by name or id"),
    ("Tidepool Crab", "list of 20 card names"),
    (7, "a deck is a list of 20 card names or ids, got 7"),
    (b"ember_rush", "a deck is a list of 20 card names or ids, got b'ember_rush'"),  # (iterated: ids 101, 109, ...)
])
def test_illegal_decks_are_refused_with_the_problem_and_the_fix(deck, message):
    with pytest.raises(DeckError, match=message):
        TerraloreGame(decks=(deck, "random"))


def test_decks_are_chosen_per_player_through_env_kwargs():
    from tabletop_envs import terralore_v0

    env = terralore_v0.env(decks=("ember_rush", CAT.names[20:40]))
    env.reset(seed=0)
    assert env.game_state.deck_list[0] == sorted(default_presets()["ember_rush"])
    assert env.game_state.deck_list[1] == list(range(20, 40))
    with pytest.raises(DeckError, match="unknown deck 'nope'"):
        terralore_v0.env(decks=("nope", "random"))
    with pytest.raises(DeckError, match="a pair"):
        terralore_v0.env(decks="ember_rush")


def test_random_decks_are_drawn_per_game_from_the_seed():
    g = TerraloreGame()
    assert g.new_initial_state(1).deck_list == g.new_initial_state(1).deck_list
    assert g.new_initial_state(1).deck_list != g.new_initial_state(2).deck_list


def test_preset_file_errors(tmp_path):
    path = tmp_path / "decks.json"
    path.write_text(json.dumps({"decks": [{"name": "short", "cards": CAT.names[:5]}]}), encoding="utf-8")
    with pytest.raises(CatalogueError, match=r"decks\[0\] \('short'\).*exactly 20"):
        load_presets(path)


@pytest.mark.parametrize("source, load", [(CARDS_PATH, load_catalogue), (DECKS_PATH, load_presets)], ids=["cards", "decks"])
def test_an_unknown_top_level_key_or_another_format_tag_in_a_card_or_deck_file_is_refused_naming_it(tmp_path, source,
                                                                                                     load):
    # a key misspelt or misplaced at the top level ("crads" beside "cards") loaded and was never read
    data = json.loads(source.read_text(encoding="utf-8"))
    path = tmp_path / source.name
    path.write_text(json.dumps({**data, "extra": []}), encoding="utf-8")
    with pytest.raises(CatalogueError, match=rf"{source.name}, top level: unknown field\(s\) \['extra'\]; allowed "
                                             rf"fields are \['{source.stem}', 'format'\]"):
        load(path)
    path.write_text(json.dumps({**data, "format": data["format"].replace("/1", "/2")}), encoding="utf-8")
    with pytest.raises(CatalogueError, match=rf"{source.name}, top level, field 'format': .*/2' is not one of"):
        load(path)
    path.write_text(json.dumps({k: v for k, v in data.items() if k != "format"}), encoding="utf-8")
    assert load(path)  # a file without the tag, as the tests write them, loads


def test_a_card_file_that_is_not_utf8_is_refused_naming_the_file_and_left_as_it_was(tmp_path):
    path = tmp_path / "cards.json"
    path.write_bytes(CARDS_PATH.read_bytes().replace(b"Tidepool", b"Tidep\xffol"))
    before = path.read_bytes()
    with pytest.raises(CatalogueError, match=r"cards\.json: not UTF-8 text .*save the file as UTF-8"):
        load_catalogue(path)
    with pytest.raises(CatalogueError, match=r"cards\.json: not UTF-8 text"):
        load_presets(path)
    assert path.read_bytes() == before
