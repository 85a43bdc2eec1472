"""The catalogue: real-game shape, deterministic generation, clear errors for bad data files."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tabletop_envs.core.errors import CatalogueError
from tabletop_envs.earth.catalogue import DATA, Catalogue, check_ability
from tabletop_envs.earth.data import generate
from tabletop_envs.earth.text import ability_text

from .scenario import CAT


def test_component_counts_match_the_real_game():
    kinds = Counter(c["kind"] for c in CAT.earth)
    assert kinds == {"flora": 179, "terrain": 66, "event": 38}
    assert (len(CAT.islands), len(CAT.climates), len(CAT.fauna), len(CAT.ecosystems)) == (20, 20, 46, 64)


def test_flora_types_in_equal_shares_plus_3_jokers():
    types = Counter(c["type"] for c in CAT.earth if c["kind"] == "flora")
    assert types == {"tree": 44, "herb": 44, "mushroom": 44, "bush": 44, "joker": 3}


def test_habitats_are_sunny_wet_rocky_and_cold():
    cards = Counter(h for c in CAT.earth for h in c["habitats"])
    assert set(cards) == {"sunny", "wet", "rocky", "cold"} and min(cards.values()) >= 100
    assert {h for card in CAT.islands + CAT.climates for h in card["habitats"]} == set(cards)


def test_flora_value_histograms_follow_the_real_game():
    flora = [c for c in CAT.earth if c["kind"] == "flora"]
    assert Counter(c["cost"] for c in flora) == {0: 11, 1: 29, 2: 29, 3: 32, 4: 31, 5: 13, 6: 15, 7: 9, 8: 9, 9: 1}
    assert Counter(c["vp"] for c in flora) == {0: 35, 1: 51, 2: 43, 3: 12, 4: 25, 5: 7, 6: 3, 7: 3}
    assert Counter(c["growth"] for c in flora) == {0: 11, 1: 39, 2: 49, 3: 40, 4: 28, 5: 8, 6: 3, 8: 1}
    assert Counter(c["sprouts"] for c in flora) == {0: 10, 1: 4, 2: 26, 3: 31, 4: 37, 5: 25, 6: 46}
    assert Counter(len(c["habitats"]) for c in flora) == {0: 27, 1: 74, 2: 52, 3: 17, 4: 9}
    colours = Counter("+".join(a["color"] for a in c["abilities"]) for c in flora if c["type"] != "joker")
    assert colours == {"yellow": 40, "blue": 39, "red": 39, "multi": 20, "black": 10, "red+blue": 10,
                       "yellow+red": 9, "yellow+blue": 9}
    assert all(c["canopy"] == 0 for c in flora if c["growth"] == 0)


def test_per_type_tendencies_trees_grow_tallest_herbs_hold_most_sprouts():
    def mean(t, k):
        vals = [c[k] for c in CAT.earth if c["type"] == t]
        return sum(vals) / len(vals)

    assert mean("tree", "growth") == max(mean(t, "growth") for t in ("tree", "herb", "mushroom", "bush"))
    assert mean("herb", "sprouts") == max(mean(t, "sprouts") for t in ("tree", "herb", "mushroom", "bush"))
    assert mean("mushroom", "cost") == min(mean(t, "cost") for t in ("tree", "herb", "mushroom", "bush"))


def test_terrain_and_event_shapes():
    terrain = [c for c in CAT.earth if c["kind"] == "terrain"]
    shapes = Counter("+".join(a["color"] for a in c["abilities"]) for c in terrain)
    assert shapes == {"brown": 40, "green+brown": 18, "black": 8}
    events = [c for c in CAT.earth if c["kind"] == "event"]
    assert Counter(c["vp"] for c in events) == {-4: 4, -3: 4, -2: 6, -1: 4, 0: 16, 1: 4}
    assert all(a["color"] == "black" for c in events for a in c["abilities"])


def test_island_setup_rows_and_climate_values_in_the_real_ranges():
    for i in CAT.islands:
        assert 3 <= i["draw"] <= 12 and 0 <= i["compost"] <= 5 and 4 <= i["soil"] <= 8 and 0 <= i["vp"] <= 10
        assert i["compost"] < i["draw"]
    for c in CAT.climates:
        assert 1 <= c["vp"] <= 4 and len(c["habitats"]) == 2


def test_generator_is_deterministic_and_matches_the_committed_files():
    built = generate.build()
    for name, data in built.items():
        assert json.loads((DATA / name).read_text(encoding="utf-8")) == json.loads(json.dumps(data)), f"{name} is out of date"


def test_the_generator_writes_the_committed_files_byte_for_byte(monkeypatch, tmp_path, capsys):
    # the command that rewrites them: its layout (indent, ASCII escapes, final newline) is the committed one,
    # so a regeneration shows no diff beyond what the generator changed
    monkeypatch.setattr(generate, "HERE", tmp_path)
    generate.main([])
    names = sorted(p.name for p in DATA.glob("*.json"))
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    for name in names:
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
    assert capsys.readouterr().out == "".join(f"wrote {tmp_path / name}\n" for name in generate.build())


def test_the_generators_help_explains_and_writes_no_file(monkeypatch, capsys):
    # --help was ignored: the command rewrote the five data files (found by a docs audit)
    written = []
    monkeypatch.setattr(Path, "write_text", lambda self, *a, **k: written.append(self))
    with pytest.raises(SystemExit) as done:
        generate.main(["--help"])
    assert done.value.code == 0 and "Rewrite Earth's catalogue" in capsys.readouterr().out and written == []


# The real game's objectives as game_facts.md B.8 and B.9 list them, in our measures: (measure, arg, count).
# The facts give their measures and numbers so that ours can follow their shape; they ask us not to
# reproduce any of them one to one.
REAL_FAUNA = {
    ("flora_growth_ge", 3, 4), ("flora_growth_ge", 1, 7), ("flora_sprouts_ge", 4, 6), ("flora_sprouts_ge", 1, 9),
    ("soil", None, 20), ("compost", None, 15), ("hand", None, 20), ("events", None, 4),
    *{("habitat", h, 8) for h in ("rocky", "sunny", "wet", "cold")},
    *{("type", t, 4) for t in ("tree", "bush", "herb", "mushroom")},
    *{("color", c, 6) for c in ("red", "blue", "yellow")}, ("color", "black", 3),
    ("full_cols", None, 2), ("full_rows", None, 2), ("full_diagonals", None, 2),
    ("vp_ge", 4, 6), ("vp_le", 3, 11), ("cost_ge", 4, 6), ("cost_le", 3, 9), ("sets_rbyte", None, 2),
    ("color", "multi", 2), *{("tag", t, 3) for t in ("geographic", "animal", "colour")},
    ("sprout_spaces_eq", 6, 4), ("flora_full", None, 4), ("flora_bare", None, 8), ("vp_odd", None, 7),
    ("vp_even", None, 10),
}
# (measure, arg, per, vp, max) for a rate, or (measure, arg, table) for a count table; "6-7 VP" for a line of
# different sprouts or growth counts as both.
REAL_ECOSYSTEMS = {
    *{("type", t, (0, 0, 4, 8, 13, 23, 28, 30)) for t in ("tree", "bush", "herb", "mushroom")},
    *{("diag_path_type", t, 1, 4, 28) for t in ("tree", "bush", "herb", "mushroom")},
    *{("habitat", h, 2, 3, None) for h in ("rocky", "sunny", "wet", "cold")},
    ("color", "black", 2, 9, None), ("soil", None, 1, 2, 24), ("hand", None, 6, 6, 24), ("compost", None, 4, 3, 24),
    *{("color", c, 1, 2, None) for c in ("red", "yellow", "blue")},
    *{(m, None, 1, 6, None) for m in ("lines_diff_color", "lines_same_color", "lines_diff_type", "lines_same_type")},
    *{(m, None, 1, vp, None) for m in ("lines_diff_sprouts", "lines_diff_growth") for vp in (6, 7)},
    ("sprouts", None, 5, 3, None), ("growth", None, 3, 2, None), ("canopies", None, 1, 2, None),
    ("color", "multi", 2, 11, None), ("color", "green", 2, 10, None),
}


def test_no_fauna_or_ecosystem_side_reproduces_one_of_the_real_games_one_to_one():
    assert len(REAL_FAUNA) == 37 and len(REAL_ECOSYSTEMS) == 32  # every objective the facts list
    copied = [f["name"] for f in CAT.fauna if (f["measure"], f["arg"], f["n"]) in REAL_FAUNA]
    copied += [e["name"] for e in CAT.ecosystems
               if (e["measure"], e["arg"], tuple(e["table"] or ())) in REAL_ECOSYSTEMS
               or (e["measure"], e["arg"], e["per"], e["vp"], e["max"]) in REAL_ECOSYSTEMS]
    assert copied == []


def test_no_card_or_side_carries_the_name_of_a_real_card_the_facts_name():
    assert {"Yellow Morel", "Japanese Maple", "Penny Bun"} <= generate.REAL_CARD_NAMES  # game_facts.md B.4
    ours = {c["name"] for kind in (CAT.earth, CAT.islands, CAT.climates, CAT.fauna, CAT.ecosystems) for c in kind}
    assert not ours & generate.REAL_CARD_NAMES


def test_the_objectives_keep_the_real_games_measures():
    """What the facts let us use: every measure that B.8 and B.9 list is an objective of ours."""
    assert {(m, a) for m, a, _ in REAL_FAUNA} <= {(f["measure"], f["arg"]) for f in CAT.fauna}
    assert {r[:2] for r in REAL_ECOSYSTEMS} <= {(e["measure"], e["arg"]) for e in CAT.ecosystems}


# ------------------------------------------------------------------ bad files: clear errors
@pytest.fixture
def data_copy(tmp_path):
    for f in DATA.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def edit(path, key, fn):
    data = json.loads(path.read_text(encoding="utf-8"))
    fn(data[key])
    path.write_text(json.dumps(data), encoding="utf-8")


def test_unknown_field_names_the_record_and_the_allowed_fields(data_copy):
    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[3].update(colour="red"))
    with pytest.raises(CatalogueError, match=r"cards\[3\].*unknown field.*'colour'.*allowed fields"):
        Catalogue(data_copy)


def test_an_unknown_top_level_key_of_a_data_file_is_refused_naming_the_file(data_copy):
    # the loader read its one list and nothing else: a key beside it ("fauna_extra") loaded without a word
    path = data_copy / "fauna.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "fauna_extra": []}), encoding="utf-8")
    with pytest.raises(CatalogueError, match=r"fauna\.json, top level: unknown field\(s\) \['fauna_extra'\]; "
                                             r"allowed fields are \['fauna'\]"):
        Catalogue(data_copy)


def test_unknown_ability_colour_names_the_vocabulary(data_copy):
    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[0]["abilities"][0].update(color="pink"))
    with pytest.raises(CatalogueError, match="colour 'pink' must be one of"):
        Catalogue(data_copy)


@pytest.mark.parametrize("key", ["bogus", "cots"])
def test_an_unknown_ability_key_is_named_instead_of_ignored(data_copy, key):
    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[0]["abilities"][0].update({key: 1}))
    with pytest.raises(CatalogueError, match=rf"cards\[0\].*unknown keys \['{key}'\].*keys are"):
        Catalogue(data_copy)
    if key == "cots":
        with pytest.raises(CatalogueError, match="did you mean 'cost'"):
            Catalogue(data_copy)


def test_bad_gain_resource_is_rejected(data_copy):
    edit(data_copy / "earth_cards.json", "cards",
         lambda cards: cards[0]["abilities"][0].update(kind="gain", gain=[{"res": "gold", "n": 2}]))
    with pytest.raises(CatalogueError, match="res in"):
        Catalogue(data_copy)


def test_text_out_of_date_names_the_text_and_setting_it_loads_the_catalogue(data_copy):
    # an edited ability in a data_dir copy: the generator the message named rewrote the shipped files only
    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[0]["abilities"][0].update(
        kind="gain", gain=[{"res": "sprouts", "n": 2}]))
    with pytest.raises(CatalogueError) as caught:
        Catalogue(data_copy)
    match = re.search(r'set its "text" to ("(?:[^"\\]|\\.)*") in (\S+) \(', str(caught.value))
    assert match, str(caught.value)
    text, where = json.loads(match.group(1)), Path(match.group(2))
    assert where == data_copy / "earth_cards.json"
    edit(where, "cards", lambda cards: cards[0].update(text=text))
    Catalogue(data_copy)


@pytest.mark.parametrize("sides", [1, 2])  # 2: a whole island card, both sides, gone
def test_wrong_number_of_components(data_copy, sides):
    edit(data_copy / "islands.json", "islands", lambda isl: isl.__delitem__(slice(-sides, None)))
    with pytest.raises(CatalogueError, match=rf"islands\.json: {20 - sides} island sides, the game has 20"):
        Catalogue(data_copy)


def test_ids_must_follow_file_order(data_copy):
    edit(data_copy / "fauna.json", "fauna", lambda f: f[2].update(id=7))
    with pytest.raises(CatalogueError, match="ids must be 0..N-1"):
        Catalogue(data_copy)


@pytest.mark.parametrize("name, key", [("fauna.json", "fauna"), ("islands.json", "islands")])
def test_the_two_sides_of_card_c_are_records_2c_and_2c_plus_1(data_copy, name, key):
    """The engine deals card c as records 2c and 2c+1. Sides listed in another order (here every A side, then
    every B side) loaded: both sides of one fauna card lay on the board at once, or two players were dealt the
    two sides of one island."""
    def regroup(records):
        for i, r in enumerate(records):
            r["card"] = i % (len(records) // 2)

    edit(data_copy / name, key, regroup)
    with pytest.raises(CatalogueError, match=rf"{name}: record 1 \('.*'\) is a side of .* card 1, but records 0 and 1 "
                                             r"must be the two sides of card 0: list the sides in card order"):
        Catalogue(data_copy)


def test_every_card_with_sides_has_exactly_two_numbered_from_zero(data_copy):
    edit(data_copy / "fauna.json", "fauna", lambda f: f[2].update(card=0))  # card 0 has 3 sides, card 1 one
    with pytest.raises(CatalogueError, match=r"fauna.json: every fauna card needs exactly 2 sides numbered 0..N-1; "
                                             r"cards \[0, 1\] do not"):
        Catalogue(data_copy)


@pytest.mark.parametrize("change, problem", [
    (lambda c: c[0].update(name="   "), r"cards\[0\] has a blank name '   '; give it one"),
    (lambda c: c[1].update(name=c[0]["name"].lower() + " "),
     r"cards\[1\] repeats name .* ignoring case, spaces and invisible characters"),
    (lambda c: c[0].update(name="\u200b"), r"cards\[0\] has a blank name '\\u200b'; give it one"),
    (lambda c: c[1].update(name=c[0]["name"] + "\u200b"), r"cards\[1\] repeats name"),
], ids=["blank", "same_but_case_and_space", "zero_width_space", "same_but_zero_width_space"])
def test_a_card_name_is_not_blank_and_differs_from_the_others_by_more_than_case(data_copy, change, problem):
    """A blank name gave action labels such as "plant "; two names that differ only by case or a trailing
    space read as one card to a player."""
    edit(data_copy / "earth_cards.json", "cards", change)
    with pytest.raises(CatalogueError, match=rf"earth_cards\.json: {problem}"):
        Catalogue(data_copy)


def _retext(card):
    card["text"] = " ".join(ability_text(a) for a in card["abilities"])


def _two_alt_costs(cards):
    card = next(c for c in cards if c["kind"] == "flora" and c["type"] != "joker" and len(c["abilities"]) == 1
                and c["abilities"][0]["kind"] == "alt_cost")
    res = "growth" if card["abilities"][0]["res"] != "growth" else "sprouts"
    card["abilities"].append({"color": "brown", "kind": "alt_cost", "res": res})
    _retext(card)


@pytest.mark.parametrize("change, problem", [
    (lambda c: next(x for x in c if x["kind"] == "terrain").update(growth=2),
     r"field 'growth': a terrain card does not use it \(a terrain holds no growth\); set it to 0"),
    (lambda c: next(x for x in c if x["kind"] == "terrain").update(sprouts=3),
     r"field 'sprouts': a terrain card does not use it"),
    (lambda c: next(x for x in c if x["kind"] == "terrain").update(tags=["animal"]),
     r"field 'tags': a terrain card does not use it \(only flora tags are counted\); set it to \[\]"),
    (lambda c: next(x for x in c if x["kind"] == "event").update(cost=3),
     r"field 'cost': an event card does not use it \(an event's cost is its ability's 'cost'\)"),
    (lambda c: next(x for x in c if x["kind"] == "event").update(habitats=["wet"]),
     r"field 'habitats': an event card does not use it \(an event is never planted\)"),
    (lambda c: next(x for x in c if x["kind"] == "flora" and x["growth"] == 0).update(canopy=4),
     r"field 'canopy': a flora without growth spaces never completes its canopy"),
    (_two_alt_costs, r"field 'abilities': a card has at most one 'alt_cost' ability"),
], ids=["terrain_growth", "terrain_sprouts", "terrain_tags", "event_cost", "event_habitats",
        "canopy_without_growth", "two_alt_costs"])
def test_a_field_the_game_never_reads_for_a_cards_kind_is_refused_naming_the_card(data_copy, change, problem):
    """Each loaded and did nothing: an event is paid through its ability, a terrain holds no pieces, a
    flora without growth spaces never reaches its canopy, and only the first alternative cost was offered
    (a card whose text offered sprouts or growth took only one of them)."""
    edit(data_copy / "earth_cards.json", "cards", change)
    with pytest.raises(CatalogueError, match=rf"earth_cards\.json: cards\[\d+\] \('.*'\), {problem}"):
        Catalogue(data_copy)


def test_an_island_may_compost_every_card_it_draws(data_copy):
    edit(data_copy / "islands.json", "islands", lambda isl: isl[7].update(compost=isl[7]["draw"]))
    assert Catalogue(data_copy).islands[7]["compost"] == Catalogue(data_copy).islands[7]["draw"]


def test_an_island_composts_at_most_the_cards_it_draws(data_copy):
    """"Of the cards drawn, a number of them will be composted": an island drawing 2 and composting 6 loaded,
    and its player composted 2."""
    edit(data_copy / "islands.json", "islands", lambda isl: isl[7].update(compost=isl[7]["draw"] + 1))
    with pytest.raises(CatalogueError, match=r"islands\.json: islands\[7\] \('.*'\): it composts \d+ of the \d+ "
                                             r"cards it draws; 'compost' must be at most 'draw'"):
        Catalogue(data_copy)


@pytest.mark.parametrize("test, change, problem", [
    (lambda a: a["kind"] == "gain", lambda a: a["gain"][0].update(n=True), "and a non-negative int n"),
    (lambda a: a.get("cost"), lambda a: a["cost"].update({next(iter(a["cost"])): True}), "and a positive int"),
    (lambda a: a["kind"] == "cost_reduction", lambda a: a.update(n=True), "cost_reduction needs a positive int 'n'"),
    (lambda a: a["kind"] == "score", lambda a: a["score"].update(vp=True), "score needs an int 'vp'"),
], ids=["gain_n", "cost", "cost_reduction_n", "score_vp"])
def test_true_is_no_number_in_an_ability(data_copy, test, change, problem):
    """JSON true is an int to Python: it loaded as 1, and the card's text read "+True sprout(s)"."""
    i = _edit_ability(data_copy, test, change)
    with pytest.raises(CatalogueError, match=rf"earth_cards\.json: cards\[{i}\].*{problem}"):
        Catalogue(data_copy)


def test_cards_must_be_flora_then_terrain_then_events(data_copy):
    def swap(cards):
        cards[0]["kind"], cards[0]["type"] = "terrain", ""
    edit(data_copy / "earth_cards.json", "cards", swap)
    with pytest.raises(CatalogueError, match="179 flora, then 66 terrain"):
        Catalogue(data_copy)


@pytest.mark.parametrize("habitats", [["swampy"], ["wet", "wet"]])
def test_bad_habitat_and_bad_filter(data_copy, habitats):
    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[1].update(habitats=habitats))
    with pytest.raises(CatalogueError, match=r"cards\[1\].*habitats must be a list of distinct values"):
        Catalogue(data_copy)


def test_invalid_json_names_line_and_column(data_copy):
    (data_copy / "climates.json").write_text('{"climates": [1, }', encoding="utf-8")
    with pytest.raises(CatalogueError, match="not valid JSON at line 1"):
        Catalogue(data_copy)


def test_an_island_whose_on_event_ability_has_a_cost_is_refused_on_load(data_copy):
    def add_cost(islands):
        next(i for i in islands if i["abilities"][0]["kind"] == "on_event")["abilities"][0]["cost"] = {"soil": 3}

    edit(data_copy / "islands.json", "islands", add_cost)
    with pytest.raises(CatalogueError, match="an on_event ability gains without a cost or an if_action condition"):
        Catalogue(data_copy)


def test_env_accepts_a_validated_alternative_data_dir(data_copy):
    from tabletop_envs.earth.engine import EarthGame

    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[0].update(cost=99))
    with pytest.raises(CatalogueError, match="cost"):
        EarthGame(num_players=2, data_dir=str(data_copy))


def _first(cards, test):
    """(card index, ability index) of the first ability that passes ``test``."""
    return next((i, j) for i, c in enumerate(cards) for j, a in enumerate(c["abilities"]) if test(a))


def _edit_ability(data_copy, test, change):
    cards = json.loads((data_copy / "earth_cards.json").read_text(encoding="utf-8"))["cards"]
    i, j = _first(cards, test)
    edit(data_copy / "earth_cards.json", "cards", lambda cards: change(cards[i]["abilities"][j]))
    return i


def _gain(key):
    return lambda a: a["kind"] == "gain" and any(key in g for g in a["gain"])


@pytest.mark.parametrize("test, change, problem", [
    (_gain("per"), lambda a: next(g for g in a["gain"] if "per" in g).update(per=2), "per 2 must be an object"),
    (_gain("where"), lambda a: next(g for g in a["gain"] if "where" in g).update(where=["row"]),
     r"where \['row'\] must be an object"),
    (lambda a: a.get("cost"), lambda a: a.update(cost=3), "cost 3 must be an object"),
    (lambda a: a["kind"] == "score" and a["score"]["pattern"] == "sets", lambda a: a["score"].pop("elements"),
     "sets score .* needs 'elements'"),
    (lambda a: a["kind"] == "score" and a["score"]["pattern"] == "sets", lambda a: a["score"].update(elements=["x"]),
     "sets score .* needs 'elements'"),
    (lambda a: a["kind"] == "score" and a["score"]["pattern"] == "per_in_dir", lambda a: a["score"].pop("filter"),
     "needs dir in .* and a valid filter"),
    (lambda a: a["kind"] == "cost_reduction", lambda a: a.pop("filter"), "cost_reduction needs a 'filter'"),
], ids=["per_not_object", "where_not_object", "cost_not_object", "sets_without_elements", "sets_of_unknown_types",
        "per_in_dir_without_filter", "cost_reduction_without_filter"])
def test_an_ability_part_of_the_wrong_shape_is_refused_naming_the_card(data_copy, test, change, problem):
    """These met the loader as AttributeError / KeyError, or (a per_in_dir score without a filter)
    loaded and raised KeyError when the game scored the terrain."""
    i = _edit_ability(data_copy, test, change)
    with pytest.raises(CatalogueError, match=rf"earth_cards\.json: cards\[{i}\].*{problem}"):
        Catalogue(data_copy)


def _event_abilities(abilities):
    def change(cards):
        event = next(c for c in cards if c["kind"] == "event")
        event["abilities"] = abilities(event["abilities"][0])
        event["text"] = " ".join(ability_text(a) for a in event["abilities"])
    return change


def _abilities(n):
    def change(cards):
        cards[0]["abilities"] = (cards[0]["abilities"] * 3)[:n]
        _retext(cards[0])
    return change


@pytest.mark.parametrize("change, problem", [
    (lambda c: c[0].update(type=""), r"'Coastal Ash': flora need a type, other cards type ''"),
    (lambda c: next(x for x in c if x["kind"] == "terrain").update(type="tree"), r"flora need a type, other cards type ''"),
    (_event_abilities(lambda a: [{**a, "color": "red"}]), r"event '.*': events only have black abilities"),
    (lambda c: c[0].update(tags=["dragon"]), r"cards\[0\].*field 'tags': tags must be from colour/geographic/animal"),
    (_abilities(0), r"cards\[0\].*every card has 1 or 2 abilities"),
    (_abilities(3), r"cards\[0\].*every card has 1 or 2 abilities"),
], ids=["flora_without_type", "terrain_with_type", "event_red", "unknown_tag", "no_ability", "three_abilities"])
def test_a_card_of_a_shape_the_game_has_not_is_refused_naming_it(data_copy, change, problem):
    edit(data_copy / "earth_cards.json", "cards", change)
    with pytest.raises(CatalogueError, match=rf"earth_cards\.json: .*{problem}"):
        Catalogue(data_copy)


@pytest.mark.parametrize("name, key, change, where", [
    ("earth_cards.json", "cards", lambda r: r[0]["abilities"][0]["gain"][0].update(n=10**400),
     r"cards\[0\]\.abilities\[0\]\.gain\[0\]\.n"),
    ("ecosystems.json", "ecosystems", lambda r: r[0]["table"].__setitem__(1, 10**400), r"ecosystems\[0\]\.table\[1\]"),
], ids=["gain", "ecosystem_table"])
def test_a_number_too_large_for_a_float_is_refused_on_load(data_copy, name, key, change, where):
    """JSON reads integers of hundreds of digits: a gain or an ecosystem's VP of 10**400 loaded (its text
    written from it), and the game ended in OverflowError when the observation was encoded or scored."""
    from tabletop_envs.earth.text import objective_text

    def change_and_retext(records):
        change(records)
        if key == "cards":
            _retext(records[0])
        else:
            records[0]["text"] = objective_text(records[0], "ecosystem")

    edit(data_copy / name, key, change_and_retext)
    with pytest.raises(CatalogueError, match=rf"{re.escape(name)}: {where} is a number of 401 digits, too large to play "
                                             r"with .*; use a smaller number"):
        Catalogue(data_copy)


@pytest.mark.parametrize("abilities, problem", [
    (lambda a: [{**a, "if_action": "grow"}], "an event is played at any time, not as part of an action, so its "
                                            "ability takes no 'if_action' condition: drop it"),
    (lambda a: [{"color": "black", "kind": "gain", "gain": [{"res": "soil", "n": 1,
                                                             "per": {"what": "tableau", "dir": "row"}}]}],
     "an event has no cell in the tableau to count its 'per' direction 'row' from"),
], ids=["if_action", "per_row"])
def test_an_event_ability_with_an_action_condition_or_a_direction_is_refused_on_load(data_copy, abilities, problem):
    """Both loaded and did something else than the text said: the condition was never tested (the gain came
    whatever the action), and "per Herb in this row" counted the whole tableau."""
    edit(data_copy / "earth_cards.json", "cards", _event_abilities(abilities))
    with pytest.raises(CatalogueError, match=rf"earth_cards\.json: cards\[245\] \('.*'\), field 'abilities': {problem}"):
        Catalogue(data_copy)


def test_an_island_climate_or_event_ability_counting_in_the_whole_tableau_loads(data_copy):
    """dir "all" is the one direction with no cell to count from: it loads on an island, a climate or an event."""
    everywhere = {"color": "red", "kind": "gain", "gain": [
        {"res": "sprouts", "n": 1, "where": {"dir": "all", "each": True, "filter": {"type": "tree"}}}]}

    def add(records):
        records[0]["abilities"] = records[0]["abilities"][:1] + [everywhere]
        _retext(records[0])

    edit(data_copy / "climates.json", "climates", add)
    edit(data_copy / "earth_cards.json", "cards", _event_abilities(lambda a: [{
        "color": "black", "kind": "gain", "gain": [{"res": "soil", "n": 1, "per": {"what": "tableau", "dir": "all"}}]}]))
    cat = Catalogue(data_copy)
    assert cat.climates[0]["abilities"][1] == everywhere and cat.earth[245]["text"].endswith("in your tableau.")


@pytest.mark.parametrize("abilities", [
    lambda a: [{"color": "black", "kind": "cost_reduction", "filter": {}, "n": 1}],
    lambda a: [{"color": "black", "kind": "score", "score": {"pattern": "per_resource", "res": "soil", "per": 1, "vp": 1}}],
    lambda a: [{"color": "black", "kind": "on_event", "gain": [{"res": "soil", "n": 2}]}],
    lambda a: [a, {"color": "black", "kind": "gain", "gain": [{"res": "soil", "n": 5}]}],
], ids=["cost_reduction", "score", "on_event", "two_gains"])
def test_an_event_is_one_black_gain_ability_or_refused_on_load(data_copy, abilities):
    """An event is played for its one gain ability (abilities[0]): a cost reduction or a score met the play as
    KeyError 'gain' when the event was played, and an event's second ability loaded and was never gained."""
    edit(data_copy / "earth_cards.json", "cards", _event_abilities(abilities))
    with pytest.raises(CatalogueError, match=r"earth_cards\.json: cards\[245\] \('.*'\), field 'abilities': an "
                                             r"event has one black 'gain' ability"):
        Catalogue(data_copy)


@pytest.mark.parametrize("name, key, ability, problem", [
    ("earth_cards.json", "cards", {"color": "brown", "kind": "all_types"}, "'all_types' takes effect on a flora of type 'joker' only"),
    ("earth_cards.json", "cards", {"color": "brown", "kind": "gain", "gain": [{"res": "soil", "n": 3}]},
     "a brown 'gain' ability is never activated"),
    ("islands.json", "islands", {"color": "black", "kind": "gain", "gain": [{"res": "soil", "n": 3}]},
     "a black ability is triggered when its card is planted, and an island or climate is never planted"),
    ("climates.json", "climates", {"color": "brown", "kind": "score",
                                   "score": {"pattern": "per_resource", "res": "soil", "per": 1, "vp": 1}},
     "an island or climate never uses an ability of kind 'score'"),
    ("islands.json", "islands", {"color": "blue", "kind": "copy"}, "an island or climate never uses an ability of kind 'copy'"),
    ("climates.json", "climates", {"color": "black", "kind": "alt_cost", "res": "sprouts"},
     "an island or climate never uses an ability of kind 'alt_cost'"),
    ("islands.json", "islands", {"color": "red", "kind": "gain", "gain": [
        {"res": "soil", "n": 1, "per": {"what": "tableau", "dir": "row", "filter": {"type": "herb"}}}]},
     "an island or climate has no cell in the tableau to count its 'per' direction 'row' from: use \"dir\": \"all\""),
    ("climates.json", "climates", {"color": "blue", "kind": "gain", "gain": [
        {"res": "sprouts", "n": 1, "where": {"dir": "col", "each": True, "filter": {}}}]},
     "an island or climate has no cell in the tableau to count its 'where' direction 'col' from"),
    ("islands.json", "islands", {"color": "brown", "kind": "on_event", "gain": [
        {"res": "soil", "n": 1, "per": {"what": "tableau", "dir": "adj"}}]},
     "an island or climate has no cell in the tableau to count its 'per' direction 'adj' from"),
], ids=["all_types_on_a_tree", "brown_gain", "black_gain_on_an_island", "score_on_a_climate", "copy_on_an_island",
        "alt_cost_on_a_climate", "per_row_on_an_island", "where_col_on_a_climate", "on_event_per_adj_on_an_island"])
def test_an_ability_that_never_takes_effect_where_it_is_is_refused_on_load(data_copy, name, key, ability, problem):
    """Each loaded and did nothing in play (a tree with 'all_types' counted as a tree only, as the type
    'joker' is what counts as every type; nothing activates brown gains, plants an island or climate, or
    scores, copies or pays with theirs), while the card's text promised it."""
    def add(records):
        records[0]["abilities"] = records[0]["abilities"][:1] + [ability]
        records[0]["text"] = " ".join(ability_text(a) for a in records[0]["abilities"])

    edit(data_copy / name, key, add)
    with pytest.raises(CatalogueError, match=rf"{name}: {key}\[0\] \('.*'\), field 'abilities': {problem}"):
        Catalogue(data_copy)


@pytest.mark.parametrize("test, change, problem", [
    (lambda a: a["kind"] == "copy", lambda a: a.update(cost={"soil": 5}),
     r"an ability of kind 'copy' does not use \['cost'\]; its keys are \('color', 'kind'\)"),
    (lambda a: a["kind"] == "cost_reduction", lambda a: a.update(if_action="plant"),
     r"an ability of kind 'cost_reduction' does not use \['if_action'\]"),
    (lambda a: a["kind"] == "gain" and not a.get("cost"), lambda a: a.update(n=3), r"an ability of kind 'gain' does not use \['n'\]"),
    (_gain("per"), lambda a: next(g for g in a["gain"] if "per" in g)["per"].update(fliter={"type": "tree"}),
     r"per .* has unknown keys \['fliter'\]"),
    (_gain("where"), lambda a: next(g for g in a["gain"] if "where" in g)["where"].update(filer={"type": "tree"}),
     r"where .* has unknown keys \['filer'\]"),
    (lambda a: a["kind"] == "score" and a["score"]["pattern"] == "per_in_dir", lambda a: a["score"].update(per=2),
     r"per_in_dir score .* has unknown keys \['per'\]"),
], ids=["copy_cost", "cost_reduction_if_action", "gain_n", "per_misspelt_filter", "where_misspelt_filter",
        "per_in_dir_per"])
def test_a_key_that_the_abilitys_kind_does_not_read_is_refused_naming_the_card(data_copy, test, change, problem):
    """Each loaded and was ignored in play: a copy with a cost copied for free, a misspelt per or where
    filter counted or reached every card, while the record looked as its author meant it."""
    i = _edit_ability(data_copy, test, change)  # the text stays right: it never read these keys
    with pytest.raises(CatalogueError, match=rf"earth_cards\.json: cards\[{i}\].*{problem}"):
        Catalogue(data_copy)


def _objective(data_copy, name, key, test, change):
    records = json.loads((data_copy / name).read_text(encoding="utf-8"))[key]
    i = next(i for i, r in enumerate(records) if test(r))
    edit(data_copy / name, key, lambda records: change(records[i]))
    return i


def _per_vp(r):
    return r["table"] is None


@pytest.mark.parametrize("name, test, change, problem", [
    ("ecosystems.json", _per_vp, lambda r: r.update(per=0), "'per' must be an int >= 1"),
    ("ecosystems.json", _per_vp, lambda r: r.update(vp=None), "'vp' must be an int"),
    ("ecosystems.json", _per_vp, lambda r: r.update(max=-3), "'max' must be null or an int >= 1"),
    ("ecosystems.json", _per_vp, lambda r: r.update(max=0), "'max' must be null or an int >= 1"),
    # the table alone is scored: these loaded and did nothing
    ("ecosystems.json", lambda r: r["table"], lambda r: r.update(per=2, vp=3),
     r"an objective with a 'table' scores by the table alone and does not use \['per', 'vp'\]; set them to null"),
    ("ecosystems.json", lambda r: r["table"], lambda r: r["table"].append("a"), "'table' must be a list of ints"),
    ("ecosystems.json", lambda r: r["table"], lambda r: r["table"].append(float("inf")), "'table' must be a list of ints"),
    ("ecosystems.json", lambda r: r["measure"] == "type", lambda r: r.update(arg="metal"),
     r"measure 'type' needs an 'arg' from \('tree'"),
    ("ecosystems.json", lambda r: r["measure"] == "soil", lambda r: r.update(arg="wet"), "measure 'soil' takes no 'arg'"),
    ("fauna.json", lambda r: r["measure"] == "vp_ge", lambda r: r.update(arg=None), "measure 'vp_ge' needs an int 'arg'"),
    ("fauna.json", lambda r: r["measure"] == "flora_growth_ge", lambda r: r.update(arg="3"),
     "measure 'flora_growth_ge' needs an int 'arg'"),
    ("fauna.json", lambda r: r["measure"] == "color", lambda r: r.update(arg="pink"), "measure 'color' needs an 'arg'"),
], ids=["per_0", "vp_null", "max_negative", "max_0", "table_and_per", "table_text", "table_infinity", "type_metal",
        "soil_with_arg", "vp_ge_null", "growth_text", "color_pink"])
def test_an_objective_the_scoring_cannot_count_is_refused_naming_the_record(data_copy, name, test, change, problem):
    """With the text regenerated these loaded, then raised ZeroDivisionError / TypeError / OverflowError
    when the objective was scored, or counted nothing ('metal' is no flora type) without a word."""
    from tabletop_envs.earth.text import objective_text

    kind = "fauna" if name == "fauna.json" else "ecosystem"
    key = "fauna" if name == "fauna.json" else "ecosystems"

    def change_and_retext(r):
        change(r)
        r["text"] = objective_text(r, kind)

    i = _objective(data_copy, name, key, test, change_and_retext)
    with pytest.raises(CatalogueError, match=rf"{name}: record {i} \(.*{problem}"):
        Catalogue(data_copy)


@pytest.mark.parametrize("data_dir", [5, ["data"], b"/tmp", ""])  # "": the shipped cards, recorded as ""
def test_a_data_dir_that_is_no_path_is_a_config_error(data_dir):
    """Path(5) raised a plain TypeError from the catalogue loader; bytes are no folder path either."""
    from tabletop_envs.core.errors import ConfigError
    from tabletop_envs.earth.engine import EarthGame

    with pytest.raises(ConfigError, match=r"data_dir must be None \(the shipped catalogue\) or a folder path, got "):
        EarthGame(num_players=2, data_dir=data_dir)


@pytest.mark.parametrize("name, why", [("loop", r"Symlink loop|Too many levels of symbolic links"),
                                       ("h" * 300, "File name too long"), ("a\x00b", "embedded null (byte|character)"),
                                       ("\ud800", "surrogates not allowed")],
                         ids=["link loop", "too long", "NUL", "surrogate"])
def test_a_data_dir_no_folder_can_have_is_a_catalogue_error_naming_it(tmp_path, name, why):
    # a link loop (RuntimeError before Python 3.13), a name too long, a NUL or a lone surrogate ended the env, a
    # replay of such a game or tabletop-envs play --option data_dir=... on a traceback naming no option
    from tabletop_envs import earth_v0

    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    # (Python 3.13 resolves such a name without a word; reading the card file in it then names the file)
    with pytest.raises(CatalogueError, match=rf"^(data_dir '.*' cannot be a catalogue folder \(|cannot read catalogue "
                                             rf"file .*/earth_cards.json: ).*({why})"):
        earth_v0.env(data_dir=str(tmp_path / name))


def test_a_data_dir_too_long_for_a_file_name_is_named_once_in_its_catalogue_error(tmp_path):
    # the OSError's own text repeats the name ("[Errno 36] File name too long: '<name>'"): the error gives its
    # reason alone, beside the data_dir it names
    from tabletop_envs import earth_v0

    long = "h" * 300
    with pytest.raises(CatalogueError) as caught:
        earth_v0.env(data_dir=str(tmp_path / long))
    message = str(caught.value)
    if message.startswith("data_dir "):  # (Python 3.13 resolves the name and names the card file it cannot read)
        assert message.count(long) == 1 and "cannot be a catalogue folder (File name too long);" in message, message


@pytest.mark.slow
def test_seeded_fuzz_of_abilities_and_objectives_refuses_clearly_or_plays(tmp_path):
    """Mutated abilities, fauna and ecosystems (texts regenerated, so the text check does not hide
    them): each mutant either raises CatalogueError naming its file or loads and plays a solo game
    to the end. A few seconds."""
    import copy
    import random

    import numpy as np

    from tabletop_envs.earth.engine import EarthGame
    from tabletop_envs.earth.text import ability_text, objective_text

    weird = [None, True, 0, -1, 3, 10**9, 1.5, float("nan"), float("inf"), "", "tree", "x", [], {}, [1], {"k": 1}]
    files = {"earth_cards.json": ("cards", None), "islands.json": ("islands", None), "fauna.json": ("fauna", "fauna"),
             "ecosystems.json": ("ecosystems", "ecosystem")}
    originals = {name: json.loads((DATA / name).read_text(encoding="utf-8")) for name in files}
    rng = random.Random(7)

    def leaves(node, path=()):
        yield path
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            yield from leaves(v, path + (k,))

    for i in range(500):
        folder = tmp_path / str(i)
        folder.mkdir()
        for f in DATA.glob("*.json"):
            shutil.copy(f, folder / f.name)
        name = rng.choice(list(files))
        key, objective = files[name]
        data = copy.deepcopy(originals[name])
        record = rng.choice(data[key])
        part = record["abilities"] if objective is None else record
        *parent, last = rng.choice([p for p in leaves(part) if p])
        target = part
        for k in parent:
            target = target[k]
        if rng.random() < 0.2 and isinstance(target, dict):
            del target[last]
        else:
            target[last] = rng.choice(weird)
        try:
            record["text"] = (objective_text(record, objective) if objective
                              else " ".join(ability_text(a) for a in record["abilities"]))
        except Exception:  # a record the text cannot describe: the loader must refuse it
            pass
        (folder / name).write_text(json.dumps(data), encoding="utf-8")
        try:
            Catalogue(folder)
        except CatalogueError as exc:
            assert any(f in str(exc) for f in files), str(exc)
            continue
        state = EarthGame(num_players=1, data_dir=str(folder)).new_initial_state(i)
        moves = np.random.default_rng(i)
        while not state.is_terminal():
            state.apply_action(int(moves.choice(state.legal_actions())))
        state.check_invariants()


def test_the_heuristic_values_the_cards_of_the_catalogue_its_game_was_built_from(data_copy):
    """It read the shipped catalogue whatever data_dir the game had, so its card values were not the game's."""
    from tabletop_envs import load_policy
    from tabletop_envs.core.single_agent import SingleAgentEnv
    from tabletop_envs.earth.catalogue import load_catalogue
    from training.pool import OpponentPool

    custom, shipped = load_catalogue(data_copy), load_catalogue()
    assert custom is not shipped
    assert load_policy("earth_v0/heuristic").cat is shipped
    assert load_policy("earth_v0/heuristic", game_config={"data_dir": str(data_copy)}).cat is custom
    env = SingleAgentEnv("earth_v0", opponent="earth_v0/heuristic", data_dir=data_copy)
    assert env.game.cat is custom and env.opponent.cat is custom
    pool = OpponentPool("earth_v0", 0.0, 1.0, game_config=env.game.config())
    assert pool.heuristic.cat is custom


def test_a_catalogue_folder_edited_within_one_process_is_read_again(data_copy):
    """The cache was keyed by the folder alone: a game built after editing a data_dir file (a notebook
    tuning its cards) kept playing the cards read before, until the process restarted."""
    from tabletop_envs.earth.catalogue import load_catalogue
    from tabletop_envs.earth.engine import EarthGame

    before = load_catalogue(data_copy)
    assert load_catalogue(data_copy) is before  # unchanged files: one shared object
    name = before.earth[0]["name"]
    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[0].update(name=name + " Renamed"))
    after = EarthGame(num_players=2, data_dir=str(data_copy)).cat
    assert after is not before and after.earth[0]["name"] == name + " Renamed"
    (data_copy / "fauna.json").unlink()
    with pytest.raises(CatalogueError, match="fauna.json"):
        load_catalogue(data_copy)


def test_a_link_to_nothing_among_the_card_files_does_not_stop_the_folder_loading(data_copy):
    # Emacs marks a file it edits with a link to nothing beside it (.#earth_cards.json): looking at every JSON
    # file's version to key the cache met it, and the folder was refused as no catalogue folder at all
    from tabletop_envs.earth.catalogue import load_catalogue

    (data_copy / ".#earth_cards.json").symlink_to("me@host.4242:1700000000")
    assert load_catalogue(data_copy).earth == load_catalogue().earth


@pytest.mark.parametrize("trained_on", ["gone", "my_cards"])  # another machine's folder; one relative to elsewhere
def test_a_model_trained_on_a_catalogue_folder_not_here_loads_and_is_named_when_it_plays_other_cards(
        data_copy, tmp_path_factory, trained_on):
    # the layouts never depend on data_dir (the counts are validated), but checking them built the game from
    # the sidecar's folder: a model trained on cards of its own was refused wherever that folder was not,
    # "the sidecar was edited", and a model whose folder could not be read played the shipped cards silently
    import warnings

    from tabletop_envs import RuleOptionsWarning, load_policy
    from tabletop_envs.core.onnx_policy import model_path_for_id
    from tabletop_envs.earth.engine import EarthGame

    shipped = model_path_for_id("earth_v0/ppo")
    folder = tmp_path_factory.mktemp("model")
    for suffix in (".onnx", ".npz", ".json"):
        shutil.copy(shipped.with_suffix(suffix), folder / f"ppo{suffix}")
    trained = str(folder / trained_on) if trained_on == "gone" else trained_on
    edit(folder / "ppo.json", "game_config", lambda config: config.update(data_dir=trained))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        policy = load_policy(str(folder / "ppo.onnx"), env="earth_v0")
    assert policy.metadata["game_config"]["data_dir"] == trained
    for here in (EarthGame(), EarthGame(data_dir=str(data_copy))):
        with pytest.warns(RuleOptionsWarning, match=rf"trained with data_dir={trained!r}; this env has "
                                                    rf"data_dir={here.config()['data_dir']!r}"):
            load_policy(str(folder / "ppo.onnx"), env="earth_v0", game_config=here.config())


def _soil(**extra):
    return {"color": "green", "kind": "gain", "gain": [{"res": "soil", "n": 1, **extra}]}


def _sprouts_where(**where):
    return {"color": "green", "kind": "gain", "gain": [{"res": "sprouts", "n": 1, "where": where}]}


def _score(**score):
    return {"color": "black", "kind": "score", "score": score}


@pytest.mark.parametrize("ability, problem", [
    (_soil(per={"what": "planted", "filter": {"type": "tree", "habitat": "wet"}}), "must be {} or one of type/habitat"),
    (_soil(per={"what": "planted", "filter": {"size": "tree"}}), r"its key must be one of \['color', 'habitat'"),
    (_soil(per={"what": "planted", "filter": {"type": "cactus"}}), r"a type filter's value must be one of \('tree'"),
    ({"color": "green", "kind": "gain", "gain": [{"res": "gold", "n": 1}]}, r"needs res in \('soil'"),
    (_soil(n=-1), "a non-negative int n"),
    (_soil(each=True), r"has unknown keys \['each'\]"),
    (_soil(per={"what": "hand"}), "'what' must be 'planted' or 'tableau'"),
    (_soil(per={"what": "tableau", "dir": "up"}), r"'dir' must be one of \('row'"),
    (_soil(per={"what": "planted", "dir": "row"}), r"unknown keys \['dir'\]; a 'planted' per's keys are"),
    (_soil(where={"dir": "row", "each": True}), "'where' .* only applies to sprouts or growth"),
    (_sprouts_where(dir="up", each=True), r"needs dir in \('row'.* and a bool 'each'"),
    (_sprouts_where(dir="row", each=1), "and a bool 'each'"),
    (_sprouts_where(dir="row", each=True, n=2), r"unknown keys \['n'\]; its keys are \('dir', 'each', 'filter'\)"),
    (_sprouts_where(dir="row", each=True, filter={"kind": "fauna"}), "a kind filter's value must be one of"),
    (["gain"], "must be an object"),
    ({"color": "pink", "kind": "gain"}, r"colour 'pink' must be one of \('green'"),
    ({"color": "green", "kind": "steal"}, r"kind 'steal' must be one of \('gain'"),
    ({"color": "green", "kind": "copy", "n": 2}, r"kind 'copy' does not use \['n'\]"),
    ({**_soil(), "cost": {"gold": 1}}, r"cost 'gold': 1 must use a resource in \('soil'"),
    ({**_soil(), "cost": {"soil": 0}}, "and a positive int"),
    ({"color": "green", "kind": "gain", "gain": []}, "needs a non-empty 'gain' list"),
    ({**_soil(), "if_action": "dance"}, r"if_action 'dance' must be one of \('plant'"),
    ({"color": "black", "kind": "copy"}, "a copy ability must have an action colour"),
    ({"color": "green", "kind": "cost_reduction", "filter": {"habitat": "hot"}, "n": 1}, "a habitat filter's value"),
    ({"color": "green", "kind": "cost_reduction", "filter": {}, "n": 0}, "cost_reduction needs a positive int 'n'"),
    ({"color": "green", "kind": "alt_cost", "res": "soil"}, "alt_cost needs 'res' in"),
    ({"color": "green", "kind": "forbid_action", "action": "dance"}, "forbid_action needs 'action' in"),
    (_score(pattern="most", vp=1), r"score needs a 'pattern' in \('per_in_dir'"),
    (_score(pattern="per_in_dir", dir="up", filter={}, vp=1), "needs dir in .* and a valid filter"),
    (_score(pattern="sets", elements=["tree", "tree"], vp=1), "a list of distinct types"),
    (_score(pattern="longest_path", habitat="hot", vp=1), "longest_path score needs a habitat in"),
    (_score(pattern="per_resource", res="soil", per=0, vp=1), "needs res .* and a positive per"),
    (_score(pattern="any_player", habitat="wet", vp="2"), "score needs an int 'vp'"),
    (_score(pattern="any_player", habitat="wet", vp=2, dir="row"), r"unknown keys \['dir'\]; its keys are"),
])
def test_each_refusal_of_the_ability_vocabulary_names_the_part_at_fault_and_what_it_may_be(ability, problem):
    """One ability per check of ``check_ability``, each wrong in that one way (the seeded fuzz above reaches
    most of them only by chance, and a check that stopped refusing would let the card load and fail in play)."""
    assert re.search(problem, check_ability(ability) or "(loads)"), check_ability(ability)


def test_option_data_dir_plays_the_cards_of_that_folder_and_none_the_shipped_ones(data_copy):
    from tabletop_envs.earth.engine import EarthGame

    shipped = EarthGame(num_players=2).cat
    edit(data_copy / "earth_cards.json", "cards", lambda cards: cards[0].update(name=cards[0]["name"] + " Custom"))
    custom = EarthGame(num_players=2, data_dir=str(data_copy)).cat
    assert custom.earth[0]["name"] == shipped.earth[0]["name"] + " Custom"
    assert EarthGame(num_players=2).cat.earth[0]["name"] == shipped.earth[0]["name"]
