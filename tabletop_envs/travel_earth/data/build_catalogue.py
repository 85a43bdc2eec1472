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
import sys
from pathlib import Path

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

STATISTICS = [
    {"key": "top_speed", "name": "Top Speed", "unit": "km/h", "wins": "higher",
     "meaning": "highest reported speed in the printed mode (run, swim, fly or dive)"},
    {"key": "weight", "name": "Weight", "unit": "kg", "wins": "higher", "meaning": "adult body mass (typical where the sources give one)"},
    {"key": "length", "name": "Length", "unit": "m", "wins": "higher",
     "meaning": "adult length (typical where the sources give one; how it is measured depends on the group)"},
    {"key": "lifespan", "name": "Max Lifespan", "unit": "years", "wins": "higher",
     "meaning": "maximum recorded longevity"},
    {"key": "offspring", "name": "Offspring", "unit": "young or eggs per brood", "wins": "higher",
     "meaning": "typical litter, clutch or spawn size"},
    {"key": "development", "name": "Development Time", "unit": "days", "wins": "lower",
     "meaning": "gestation or incubation; the quicker start in life wins"},
]

ABILITIES = [
    {"key": "ambush", "name": "Ambush", "overrides": "Newly played Animals enter the Resting Row.",
     "text": "This Animal enters your Ready Row instead of your Resting Row, so it may challenge the turn it is played."},
    {"key": "armoured_shell", "name": "Armoured Shell", "overrides": "The Resting penalty.",
     "text": "While Resting, this Animal defends as if it were Ready: no Resting penalty applies to it."},
    {"key": "patient_hunter", "name": "Patient Hunter", "overrides": "Each Challenger costs 1 Full Reservoir card.",
     "text": "You may declare this Animal as a Challenger without a Full Reservoir card; its challenge empties none."},
    {"key": "stoop", "name": "Stoop", "overrides": "The defending player chooses a Defender from either row.",
     "text": "When this Animal challenges, the defending player must choose a Ready Animal as the Defender if they have one."},
    {"key": "fearless", "name": "Fearless", "overrides": "The defending player may make a defensive statistic change.",
     "text": "The defending player cannot make a defensive statistic change against this Challenger."},
    {"key": "threat_display", "name": "Threat Display",
     "overrides": "A defensive change is allowed only to a statistic that actually wins.",
     "text": "When this Animal defends, its defensive statistic change may pick any eligible unused statistic, even one it does not win."},
    {"key": "tireless", "name": "Tireless", "overrides": "A surviving Challenger becomes Resting.",
     "text": "If this Animal survives its challenge, it stays in the Ready Row instead of becoming Resting."},
    {"key": "ink_cloud", "name": "Ink Cloud",
     "overrides": "A defensive statistic change permanently discards a Reservoir card.",
     "text": "When this Animal defends, its defensive statistic change turns 1 Full Reservoir card Empty instead of discarding a card (if you have a Full one)."},
    {"key": "stampede", "name": "Stampede", "overrides": "All six statistics tied: discard the Challenger and end the turn.",
     "text": "If this Challenger is discarded because every statistic tied, your turn does not end: the rest of your Challenger group still resolves."},
    {"key": "homing", "name": "Homing", "overrides": "A failed Last Resort card is discarded.",
     "text": "If this card is revealed by Last Resort Sacrifice and fails, it returns to its owner's Hand instead of the Discard Pile."},
    {"key": "blubber_store", "name": "Blubber Store", "overrides": "Your Reservoir can contain at most 6 cards.",
     "text": "While this Animal is on your field, your Reservoir can hold 7 cards."},
    {"key": "pouch", "name": "Pouch", "overrides": "Add up to 1 card from Hand to your Reservoir each turn.",
     "text": "While this Animal is on your field, you may add up to 2 cards from Hand to your Reservoir each turn."},
    {"key": "tiny", "name": "Tiny", "overrides": "Weight: the higher value wins.",
     "text": "In any comparison of Weight that involves this Animal, the lower Weight wins."},
    {"key": "early_riser", "name": "Early Riser", "overrides": "Draw the number of cards the Hand-size table gives.",
     "text": "While this Animal is on your field at your Draw step, draw 1 more card than the Hand-size table gives."},
]


def _number(text: str) -> float | int:
    value = float(text)
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


def build(csv_path: Path) -> dict:
    rows = [r for r in csv.DictReader(csv_path.open(encoding="utf-8")) if all(r[c] for c in STAT_COLUMNS.values())]
    cards = []
    by_name = {}
    for i, row in enumerate(rows):
        ability = ABILITY_OF.get(row["common_name"])
        rarity = _rarity(row, ability is not None)
        card = {
            "collector_number": f"TE-{i + 1:03d}",
            "name": row["common_name"],
            "scientific_name": row["scientific_name"],
            "group": row["group"],
            "stats": {key: _number(row[col]) for key, col in STAT_COLUMNS.items()},
            "speed_mode": row["speed_mode"],
            "rarity": rarity,
            "printings": _printings(i, rarity),
            "source": "shared/reference/animal_stats.csv; " + row["sources"],
        }
        if row["max_depth_m"]:
            card["max_depth_m"] = _number(row["max_depth_m"])
        if ability:
            card["ability"] = ability
        cards.append(card)
        by_name[row["common_name"]] = card
    for name, ability, printing in VARIANTS:
        base = dict(by_name[name])
        base.update(collector_number=f"TE-{len(cards) + 1:03d}", ability=ability, rarity="rare",
                    printings=["standard", printing, "foil"])
        cards.append(base)
    return {"set": "Travel Earth: Base Set", "statistics": STATISTICS, "abilities": ABILITIES, "cards": cards}


#: the packaged copy of shared/reference/animal_stats.csv
DATASET = Path(__file__).with_name("animal_stats.csv")


def main(argv: list[str]) -> None:
    csv_path = Path(argv[0]) if argv else DATASET
    out = Path(__file__).with_name("animals.json")
    out.write_text(json.dumps(build(csv_path), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
