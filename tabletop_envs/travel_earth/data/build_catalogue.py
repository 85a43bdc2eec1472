"""Regenerate ``animals.json`` from the team's sourced dataset ``shared/reference/animal_stats.csv``.

``animal_stats.csv`` beside this file is a copy of that dataset, so the package (and CI, which has no
``shared/``) can check every printed value against it. When the dataset changes, copy it here and run
``python -m tabletop_envs.travel_earth.data.build_catalogue`` (or pass another CSV path).
``animals.json`` is the source of truth the game loads; this script only documents where every
printed value came from. Only rows with all six battle statistics become cards, so no printed value is
invented: each is the dataset's sourced value. Not all are typical adults: the dataset's notes
(``shared/reference/animal_stats.md``) list the estimates and maxima (AnAge's fish weights are 55 % of a
FishBase maximum; fish lengths and a few others are maxima) and the weaker sources (some speeds).
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

from tabletop_envs.core.errors import CatalogueError, run_cli
from tabletop_envs.core.files import written_beside
from tabletop_envs.travel_earth.catalogue import (
    ABILITIES,
    ANIMALS_FILE,
    GROUPS,
    SPEED_MODES,
    STATISTICS,
    Catalogue,
)

STAT_COLUMNS = {
    "top_speed": "top_speed_kmh",
    "weight": "weight_kg",
    "length": "length_m",
    "lifespan": "max_lifespan_years",
    "offspring": "offspring_per_brood",
    "development": "gestation_or_incubation_days",
}

# (common name, ability, rarity) for the cards that print a rule-overriding text.
ABILITY_OF = {
    "Leopard": "ambush",
    "Galápagos giant tortoise": "armoured_shell",
    "Nile crocodile": "patient_hunter",
    "Peregrine falcon": "stoop",
    "Honey badger": "fearless",
    "Magnificent frigatebird": "threat_display",
    "Grey-headed albatross": "tireless",
    "Giant Pacific octopus": "ink_cloud",
    "Blue wildebeest": "stampede",
    "Rock dove (pigeon)": "homing",
    "Bowhead whale": "blubber_store",
    "Red kangaroo": "pouch",
    "House mouse": "tiny",
    "Greater roadrunner": "early_riser",
}

# Second cards of an animal already in the set: another collector number, so they count
# separately towards the four-copy limit.
VARIANTS = [("Cheetah", "ambush", "promo"), ("Lion", "tireless", "first_edition"), ("Orca", "fearless", "alternate_art")]

RARE_GROUPS = {"marine mammal"}

#: the columns the script reads besides the statistics
OTHER_COLUMNS = ("common_name", "scientific_name", "group", "speed_mode", "max_depth_m", "sources")


def _number(text: str, where: str, allow_zero: bool = False) -> float | int:
    """A printed value: a positive finite number (a weight of 0, "fast" or "nan" made a file the game refuses,
    or a ValueError traceback)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise CatalogueError(f"{where}: {text!r} is not a {'non-negative' if allow_zero else 'positive'} number; "
                             "fix the value in the CSV")
    return int(value) if value.is_integer() else value


def _rarity(row: dict, has_ability: bool) -> str:
    if has_ability:
        return "rare"
    weight = float(row["weight_kg"])
    if weight >= 1000 or row["group"] in RARE_GROUPS:
        return "uncommon"
    return "common"


def _printings(index: int, rarity: str) -> list[str]:
    printings = ["standard", "first_edition"]
    if rarity != "common":
        printings.append("foil")
    if index % 3 == 0:
        printings.append("alternate_art")
    return printings


def _read_rows(csv_path: Path) -> list[tuple[int, dict]]:
    """(line, row) of every CSV row with all six statistics (a BOM is no part of the first column's name)."""
    with open(csv_path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in (*STAT_COLUMNS.values(), *OTHER_COLUMNS) if c not in header]
        if missing:
            raise CatalogueError(f"{csv_path}: the columns {missing} are missing; the dataset's columns are "
                                 f"{list(STAT_COLUMNS.values()) + list(OTHER_COLUMNS)}")
        twice = sorted({c for c in header if header.count(c) > 1})
        if twice:  # DictReader keeps a repeated column's last cell: a pasted second weight_kg replaced the first
            raise CatalogueError(f"{csv_path}: the header names the column(s) {twice} twice; keep one of each")
        rows = [(reader.line_num, dict(r)) for r in reader]
    for line, row in rows:
        if None in row:  # a cell beyond the header's columns: an unquoted comma shifted the cells after it
            raise CatalogueError(f"{csv_path}, line {line} ({row[header[0]]!r}): {len(header) + len(row[None])} "
                                 f"cells for the header's {len(header)} columns; quote a cell that holds a comma")
    return [(line, r) for line, r in rows if all((r[c] or "").strip() for c in STAT_COLUMNS.values())]


def build(csv_path: Path) -> dict:
    """The catalogue that the rows of ``csv_path`` with all six statistics make; a row the game could not
    print is a CatalogueError naming its line and column."""
    rows = _read_rows(Path(csv_path))
    cards = []
    by_name = {}
    for i, (line, row) in enumerate(rows):
        where = f"{csv_path}, line {line} ({row['common_name']!r})"
        for column, allowed in (("group", GROUPS), ("speed_mode", SPEED_MODES)):
            if row[column] not in allowed:
                raise CatalogueError(f"{where}, column {column!r}: {row[column]!r} is not one of {list(allowed)}")
        for column in ("common_name", "scientific_name", "sources"):
            if not (row[column] or "").strip():
                raise CatalogueError(f"{where}, column {column!r}: empty; every card prints it")
        stats = {key: _number(row[col], f"{where}, column {col!r}") for key, col in STAT_COLUMNS.items()}
        ability = ABILITY_OF.get(row["common_name"])
        rarity = _rarity(row, ability is not None)
        card = {
            "collector_number": f"TE-{i + 1:03d}",
            "name": row["common_name"],
            "scientific_name": row["scientific_name"],
            "group": row["group"],
            "stats": stats,
            "speed_mode": row["speed_mode"],
            "rarity": rarity,
            "printings": _printings(i, rarity),
            "source": "shared/reference/animal_stats.csv; " + row["sources"],
        }
        if row["max_depth_m"]:
            card["max_depth_m"] = _number(row["max_depth_m"], f"{where}, column 'max_depth_m'", allow_zero=True)
        if ability:
            card["ability"] = ability
        cards.append(card)
        by_name[row["common_name"]] = card
    named = [name for name in [*ABILITY_OF, *(v[0] for v in VARIANTS)] if name not in by_name]
    if named:
        raise CatalogueError(f"{csv_path}: no row with all six statistics for {named}, which ABILITY_OF or VARIANTS in "
                             f"{Path(__file__).name} name; add the rows or drop the names there")
    for name, ability, printing in VARIANTS:
        base = dict(by_name[name])
        base.update(collector_number=f"TE-{len(cards) + 1:03d}", ability=ability, rarity="rare",
                    printings=["standard", printing, "foil"])
        cards.append(base)
    return {"set": "Travel Earth: Base Set", "statistics": STATISTICS, "abilities": ABILITIES, "cards": cards}


#: the packaged copy of shared/reference/animal_stats.csv
DATASET = Path(__file__).with_name("animal_stats.csv")


def main(argv: list[str] | None, out: Path = ANIMALS_FILE) -> None:
    csv_path = Path(argv[0]) if argv else DATASET
    data = build(csv_path)
    # checked as the game loads it before it replaces the file the game plays: a bad row left a catalogue
    # that every TravelEarthGame() refused until the file was restored by hand
    with written_beside(out) as (part,):
        part.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        try:
            Catalogue(part)
        except CatalogueError as exc:  # (named as the file it would have been, not the part, which is gone)
            raise CatalogueError(f"{csv_path} makes a catalogue the game refuses "
                                 f"({str(exc).replace(part.name, out.name)}); {out.name} is unchanged") from None
    print(f"wrote {out}")


if __name__ == "__main__":
    sys.exit(run_cli(main, sys.argv[1:]))
