"""The animal catalogue: real sourced statistics, printings, rarity, and clear errors on bad data."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tabletop_envs.core.errors import CatalogueError
from tabletop_envs.travel_earth.catalogue import ANIMALS_FILE, PRINTINGS, STAT_KEYS, Catalogue, load_catalogue
from tabletop_envs.travel_earth.data.build_catalogue import DATASET, build

CAT = load_catalogue()
SHARED_DATASET = Path(__file__).resolve().parents[3] / "shared" / "reference" / "animal_stats.csv"
COLUMNS = dict(zip(STAT_KEYS, ["top_speed_kmh", "weight_kg", "length_m", "max_lifespan_years", "offspring_per_brood",
                               "gestation_or_incubation_days"]))


def test_catalogue_has_at_least_60_real_animals_with_six_battle_statistics():
    species = {c["scientific_name"] for c in CAT.cards}
    assert len(species) >= 60 and CAT.size >= len(species)
    for card in CAT.cards:
        assert set(card["stats"]) == set(STAT_KEYS) and all(v > 0 for v in card["stats"].values())


@pytest.mark.skipif(not SHARED_DATASET.exists(), reason="shared/reference/ is not beside this checkout (CI)")
def test_the_packaged_dataset_is_the_teams_sourced_dataset():
    assert DATASET.read_bytes() == SHARED_DATASET.read_bytes(), \
        "copy shared/reference/animal_stats.csv into tabletop_envs/travel_earth/data/ and rerun build_catalogue"


def test_the_catalogue_is_what_build_catalogue_makes_of_the_dataset():
    assert build(DATASET) == json.loads(ANIMALS_FILE.read_text(encoding="utf-8")), \
        "run: python -m tabletop_envs.travel_earth.data.build_catalogue"


def test_printed_values_are_the_sourced_real_world_values():
    with DATASET.open(encoding="utf-8", newline="") as f:
        rows = {r["common_name"]: r for r in csv.DictReader(f)}
    for card in CAT.cards:
        row = rows[card["name"]]
        assert card["scientific_name"] == row["scientific_name"]
        for key, column in COLUMNS.items():
            assert card["stats"][key] == pytest.approx(float(row[column]), rel=0, abs=0), (card["name"], key)
        depth = row["max_depth_m"]
        assert (card["max_depth_m"] is not None) == bool(depth), card["name"]
        assert row["sources"] in card["source"]


def test_every_card_records_the_source_of_its_values():
    for card in CAT.cards:
        assert "speed" in card["source"] and "weight" in card["source"], card["collector_number"]


def test_maximum_depth_is_printed_only_for_aquatic_animals():
    aquatic_groups = {"marine mammal", "fish", "mollusc/crustacean"}
    deep = [c for c in CAT.cards if c["max_depth_m"] is not None]
    assert deep
    for card in deep:
        assert card["group"] in aquatic_groups or card["name"] in (
            "Emperor penguin", "Gentoo penguin", "Leatherback sea turtle"), card["name"]
    assert all(c["max_depth_m"] is None for c in CAT.cards if c["group"] == "land mammal")


def test_collector_numbers_printings_and_rarity():
    numbers = [c["collector_number"] for c in CAT.cards]
    assert numbers == [f"TE-{i:03d}" for i in range(1, CAT.size + 1)]
    printed = {p for c in CAT.cards for p in c["printings"]}
    assert printed == set(PRINTINGS)  # alternate art, foil, promo, First Edition and standard all exist
    assert {c["rarity"] for c in CAT.cards} == {"common", "uncommon", "rare"}
    # two cards may share a common name under different collector numbers
    assert CAT.names.count("Cheetah") == 2


def _write(tmp_path, data) -> Path:
    path = tmp_path / "animals.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _data():
    return json.loads(ANIMALS_FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["cards"][0]["stats"].pop("weight"), "stats must have exactly the keys"),
    (lambda d: d["cards"][0]["stats"].update(weight=-3), "must be a positive number"),
    (lambda d: d["cards"][0]["stats"].update(weight="heavy"), "must be a positive number"),
    (lambda d: d["cards"][0].update(ability="teleport"), "'teleport' is not one of"),
    (lambda d: d["cards"][1].update(collector_number="TE-001"), "repeats collector_number 'TE-001'"),
    (lambda d: d["cards"][0].pop("source"), "missing required field 'source'"),
    (lambda d: d["cards"][0].update(colour="red"), "unknown field(s) ['colour']"),
    (lambda d: d["cards"][0].update(name="\u200b\u200b"), "name must not be empty (or only spaces and invisible"),
    (lambda d: d["cards"][0].update(printings=["holo"]), "unknown printing(s) ['holo']"),
    (lambda d: d["cards"][0].update(collector_number="001"), "must look like 'TE-001'"),
    (lambda d: d["cards"][0].update(collector_number="TE-001a"), "must look like 'TE-001'"),
    (lambda d: d["cards"][0].update(collector_number="TE-\u0661\u0662\u0663"), "must look like 'TE-001'"),  # Arabic-Indic digits
    (lambda d: d["cards"][0]["stats"].update(colour=1), "stats must have exactly the keys"),  # read by nothing
    (lambda d: d["cards"][0]["stats"].update(weight=True), "must be a positive number (a real printed value), got True"),
    (lambda d: d["cards"][0].update(printings=[]), "printings must be a non-empty list"),
    (lambda d: d["cards"][0].update(printings=["foil", "foil"]), "printings repeat an entry"),
    (lambda d: next(c for c in d["cards"] if "max_depth_m" in c).update(max_depth_m=-1),
     "field 'max_depth_m': -1 outside the allowed range (0 or more)"),
    (lambda d: d["statistics"].reverse(), "statistics must list"),
    (lambda d: d.pop("abilities"), "expected a list under 'abilities'"),
    # a top-level key read by nothing ("extra", a misspelling) loaded without a word
    (lambda d: d.update(extra=[]), "animals.json, top level: unknown field(s) ['extra']; allowed fields are "
                                   "['abilities', 'cards', 'set', 'statistics']"),
    (lambda d: d.update(set=1), "animals.json, top level, field 'set': expected str, got int 1"),
])
def test_malformed_catalogue_gives_clear_error_naming_record_and_field(tmp_path, change, message):
    data = _data()
    change(data)
    with pytest.raises(CatalogueError) as err:
        Catalogue(_write(tmp_path, data))
    assert message in str(err.value)
    assert "animals.json" in str(err.value)


def test_catalogue_error_names_the_card_and_field(tmp_path):
    data = _data()
    data["cards"][5]["stats"]["length"] = 0
    with pytest.raises(CatalogueError, match=r"cards\[5\] \('TE-006'\), field 'stats'"):
        Catalogue(_write(tmp_path, data))


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_statistic_or_depth_that_is_not_a_finite_number_is_refused(tmp_path, value):
    """Python's json reads NaN and Infinity; a NaN statistic compares neither higher nor lower, so a
    challenge on it would be decided by NumPy's cast of NaN instead of by a printed value."""
    data = _data()
    data["cards"][2]["stats"]["top_speed"] = value
    with pytest.raises(CatalogueError, match=r"animals\.json: cards\[2\].*field 'stats'.*'top_speed' must be a "
                                             r"positive number"):
        Catalogue(_write(tmp_path, data))
    data = _data()
    aquatic = next(i for i, c in enumerate(data["cards"]) if "max_depth_m" in c)
    data["cards"][aquatic]["max_depth_m"] = value
    with pytest.raises(CatalogueError, match=rf"cards\[{aquatic}\].*field 'max_depth_m'.*not a finite number"):
        Catalogue(_write(tmp_path, data))


def _ability(key):
    return lambda d: next(a for a in d["abilities"] if a["key"] == key)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["abilities"].append({"key": "venom", "name": "Venom", "overrides": "-",
                                      "text": "This Animal wins every challenge."}),
     r"abilities\[14\]: ability 'venom' is not one the game plays; the abilities are \['ambush'"),
    (lambda d: d["abilities"].append({**_ability("tiny")(d), "text": "the HIGHER Weight wins"}),
     r"abilities\[14\]: ability 'tiny' is defined twice; keep one"),
    (lambda d: _ability("tiny")(d).update(text="In any comparison of Weight, the higher Weight wins."),
     r"abilities\[12\] \('tiny'\), field 'text': .* is not what the game plays; set it to 'In any comparison"),
    (lambda d: d["statistics"][1].update(wins="lower"),
     r"statistics\[1\] \('weight'\), field 'wins': the rules say the higher Weight wins; set it to 'higher'"),
    (lambda d: d.update(cards=d["cards"][:4]), r"4 cards cannot fill a 20-card deck at 4 copies each; list at least 5"),
    (lambda d: d.update(cards=[]), r"0 cards cannot fill a 20-card deck"),
], ids=["unknown_ability", "ability_twice", "ability_text", "statistic_wins", "four_cards", "no_cards"])
def test_a_catalogue_that_says_another_game_than_the_engine_plays_is_refused(tmp_path, change, message):
    """Each loaded: a card printed an ability the engine never applied (or a second definition of one replaced
    its text), a statistic said the lower value wins while the text view said higher, and an empty card list
    met NumPy as a broadcasting ValueError."""
    data = _data()
    change(data)
    with pytest.raises(CatalogueError, match=rf"animals\.json: {message}"):
        Catalogue(_write(tmp_path, data))


def _csv(tmp_path, edit=lambda rows: None, bom=False):
    with DATASET.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames, list(reader)
    edit(rows)
    path = tmp_path / "stats.csv"
    with path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        writer = csv.DictWriter(f, fields)
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rows: rows[0].update(top_speed_kmh="nan"), r"line 2 \('Cheetah'\), column 'top_speed_kmh': 'nan' is not a "
                                                       r"positive number; fix the value in the CSV"),
    (lambda rows: rows[1].update(weight_kg="heavy"), r"line 3 .*column 'weight_kg': 'heavy' is not a positive number"),
    (lambda rows: rows[1].update(weight_kg="0"), r"column 'weight_kg': '0' is not a positive number"),
    (lambda rows: rows[2].update(group="Land Mammal"), r"column 'group': 'Land Mammal' is not one of \['land mammal'"),
    (lambda rows: rows[3].update(speed_mode="walk"), r"line 5 .*column 'speed_mode': 'walk' is not one of \['run'"),
    (lambda rows: rows[3].update(scientific_name=" "), r"line 5 .*column 'scientific_name': empty"),
    (lambda rows: rows.pop(0), r"no row with all six statistics for \['Cheetah'\], which ABILITY_OF or VARIANTS"),
], ids=["nan", "word", "zero", "group", "speed_mode", "scientific_name", "named_row_missing"])
def test_build_catalogue_refuses_a_bad_row_by_line_and_column_and_leaves_the_catalogue_as_it_was(tmp_path, edit,
                                                                                                  message):
    # it wrote animals.json anyway (NaN), which every TravelEarthGame() then refused, or stopped in a traceback
    from tabletop_envs.travel_earth.data.build_catalogue import main

    out = tmp_path / "animals.json"
    out.write_bytes(ANIMALS_FILE.read_bytes())
    with pytest.raises(CatalogueError, match=message):
        main([str(_csv(tmp_path, edit))], out=out)
    assert out.read_bytes() == ANIMALS_FILE.read_bytes() and sorted(p.name for p in tmp_path.iterdir()) == [
        "animals.json", "stats.csv"]


def _second_weight_column(lines):
    return [line + (",weight_kg" if i == 0 else ",1") for i, line in enumerate(lines)]


def _a_cell_too_many(lines):
    return [line + (",1" if line.startswith("Lion,") else "") for line in lines]


@pytest.mark.parametrize(("edit", "message"), [
    (_second_weight_column, r"stats\.csv: the header names the column\(s\) \['weight_kg'\] twice; keep one of each"),
    (_a_cell_too_many, r"stats\.csv, line \d+ \('Lion'\): 13 cells for the header's 12 columns; quote a cell that "
                       "holds a comma"),
], ids=["column_twice", "cell_too_many"])
def test_build_catalogue_refuses_a_csv_whose_cells_do_not_match_its_header_and_leaves_the_catalogue_as_it_was(
        tmp_path, edit, message):
    # csv.DictReader keeps a repeated column's last cell (every animal would have weighed 1 kg) and files a cell
    # beyond the header under None: both built a catalogue without a word
    from tabletop_envs.travel_earth.data.build_catalogue import main

    source = tmp_path / "stats.csv"
    source.write_text("\n".join(edit(DATASET.read_text(encoding="utf-8").splitlines())) + "\n", encoding="utf-8")
    out = tmp_path / "animals.json"
    out.write_bytes(ANIMALS_FILE.read_bytes())
    with pytest.raises(CatalogueError, match=message):
        main([str(source)], out=out)
    assert out.read_bytes() == ANIMALS_FILE.read_bytes()


def test_build_catalogue_refuses_a_csv_without_a_column_it_reads_naming_it_and_leaves_the_catalogue_as_it_was(tmp_path):
    # a column renamed in a newer copy of the dataset: each row would have lacked the statistic
    from tabletop_envs.travel_earth.data.build_catalogue import main

    lines = DATASET.read_text(encoding="utf-8").splitlines()
    source = tmp_path / "stats.csv"
    source.write_text("\n".join([lines[0].replace("weight_kg", "mass_kg"), *lines[1:]]) + "\n", encoding="utf-8")
    out = tmp_path / "animals.json"
    out.write_bytes(ANIMALS_FILE.read_bytes())
    with pytest.raises(CatalogueError, match=r"stats\.csv: the columns \['weight_kg'\] are missing; the dataset's "
                                             r"columns are \['top_speed_kmh', 'weight_kg'"):
        main([str(source)], out=out)
    assert out.read_bytes() == ANIMALS_FILE.read_bytes()


def test_build_catalogue_names_the_file_it_would_have_written_where_the_catalogue_is_refused(tmp_path, monkeypatch):
    # the message named the temporary part, gone by the time it was read
    from tabletop_envs.travel_earth.data import build_catalogue

    out = tmp_path / "animals.json"
    monkeypatch.setattr(build_catalogue, "_printings", lambda index, rarity: ["holo"])
    with pytest.raises(CatalogueError, match=r"makes a catalogue the game refuses \(animals\.json: cards\[0\].*"
                                             r"unknown printing\(s\) \['holo'\].*\); animals\.json is unchanged") as err:
        build_catalogue.main([str(DATASET)], out=out)
    assert ".part" not in str(err.value) and not out.exists() and list(tmp_path.iterdir()) == []


def test_build_catalogue_reads_a_csv_saved_with_a_byte_order_mark_and_checks_what_it_writes(tmp_path, capsys):
    from tabletop_envs.travel_earth.data.build_catalogue import main

    out = tmp_path / "animals.json"
    main([str(_csv(tmp_path, bom=True))], out=out)
    assert out.read_bytes() == ANIMALS_FILE.read_bytes() and capsys.readouterr().out == f"wrote {out}\n"


def test_catalogue_not_json_or_missing_file(tmp_path):
    with pytest.raises(CatalogueError, match="not valid JSON at line"):
        Catalogue(_write(tmp_path, "{ not json"))
    with pytest.raises(CatalogueError, match="cannot read catalogue file"):
        Catalogue(tmp_path / "nope.json")
    with pytest.raises(CatalogueError, match=r"animals\.json: expected a JSON object with 'statistics', 'abilities' "
                                             "and 'cards'"):
        Catalogue(_write(tmp_path, "[]"))


def test_a_preset_file_that_holds_no_object_is_refused_naming_it(tmp_path, monkeypatch):
    from tabletop_envs.travel_earth import catalogue

    path = tmp_path / "decks.json"
    path.write_text(json.dumps([{"casual": {}}]), encoding="utf-8")
    monkeypatch.setattr(catalogue, "DECKS_FILE", path)
    catalogue.preset_decks.cache_clear()
    try:
        with pytest.raises(CatalogueError, match=r"decks\.json: expected an object of format -> preset name -> deck"):
            catalogue.preset_decks()
    finally:
        catalogue.preset_decks.cache_clear()  # the shipped presets for the tests after this one


def test_a_preset_file_with_a_format_the_game_has_not_is_refused_naming_it(tmp_path, monkeypatch):
    # build_deck looks presets up by the env's deck_format: the presets of a misspelt format were never found
    from tabletop_envs.travel_earth import catalogue

    data = json.loads(catalogue.DECKS_FILE.read_text(encoding="utf-8"))
    path = tmp_path / "decks.json"
    path.write_text(json.dumps({**data, "casul": data["casual"]}), encoding="utf-8")
    monkeypatch.setattr(catalogue, "DECKS_FILE", path)
    catalogue.preset_decks.cache_clear()
    try:
        with pytest.raises(CatalogueError, match=r"decks\.json, top level: unknown field\(s\) \['casul'\]; allowed "
                                                 r"fields are \['casual', 'championship'\]"):
            catalogue.preset_decks()
    finally:
        catalogue.preset_decks.cache_clear()  # the shipped presets for the tests after this one


@pytest.mark.parametrize(("preset", "message"), [
    ({"TE-999": 4}, r"decks\.json: casual preset 'unused': unknown collector number 'TE-999'; this catalogue has "
                    r"TE-001\.\.TE-\d{3} \(see animals\.json\)"),
    ({"TE-001": 4}, r"decks\.json: casual preset 'unused': a casual deck must have 20 or more cards, this one has 4: "
                    "add 16")])
def test_a_preset_no_game_asks_for_is_checked_against_the_catalogue_when_the_presets_load(tmp_path, monkeypatch,
                                                                                          preset, message):
    # it was checked only when chosen: a game of another preset built, and the broken one waited for its first user
    from tabletop_envs.travel_earth import catalogue
    from tabletop_envs.travel_earth.engine import TravelEarthGame

    data = json.loads(catalogue.DECKS_FILE.read_text(encoding="utf-8"))
    data["casual"]["unused"] = preset
    path = tmp_path / "decks.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(catalogue, "DECKS_FILE", path)
    catalogue.preset_decks.cache_clear()
    try:
        with pytest.raises(CatalogueError, match=message):
            TravelEarthGame(deck_format="casual", decks=["starter", "starter"])
    finally:
        catalogue.preset_decks.cache_clear()  # the shipped presets for the tests after this one


def test_five_cards_fill_a_casual_deck_at_four_copies_each(tmp_path):
    data = _data()
    data["cards"] = data["cards"][:5]
    assert Catalogue(_write(tmp_path, data)).size == 5


@pytest.mark.parametrize("where", ["stats", "max_depth_m"])
def test_a_number_too_large_for_a_float_is_refused_naming_where_it_is(tmp_path, where):
    """JSON reads integers of hundreds of digits: a statistic of 10**400 met NumPy as OverflowError, and a
    Maximum Depth of 10**400 loaded and raised OverflowError when the card was described."""
    data = _data()
    i = next(i for i, c in enumerate(data["cards"]) if "max_depth_m" in c)
    if where == "stats":
        data["cards"][i]["stats"]["weight"] = 10**400
    else:
        data["cards"][i]["max_depth_m"] = 10**400
    key = "stats.weight" if where == "stats" else "max_depth_m"
    with pytest.raises(CatalogueError, match=rf"animals\.json: cards\[{i}\]\.{key} is a number of 401 digits, too large "
                                             r"to play with .*; use a smaller number"):
        Catalogue(_write(tmp_path, data))


def test_card_text_shows_statistics_and_maximum_depth_as_information_only():
    sperm = CAT.describe(CAT.names.index("Sperm whale"))
    assert "Maximum Depth 2250 m  [information only, never compared]" in sperm
    assert "Development Time 502 days  [lower wins]" in sperm and "Weight 28500 kg  [higher wins]" in sperm
    lion = CAT.describe(CAT.names.index("Lion"))
    assert "Maximum Depth" not in lion and "Top Speed 80 km/h (run)" in lion
    assert "Ambush: This Animal enters your Ready Row" in CAT.describe(CAT.index["TE-005"])
