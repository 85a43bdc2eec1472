"""The Travel Earth animal catalogue, the preset decks and the deck validator.

``data/animals.json`` holds every card: six battle statistics with real printed values (each card
names its sources), Maximum Depth for aquatic animals (information only, never compared), the
collector number, rarity, printings and the optional printed ability. A card's catalogue index
(its position in the file) is its stable id in action and observation layouts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

import numpy as np

from tabletop_envs.core.catalogue import Field, load_json, load_records, validate_record, visible_text
from tabletop_envs.core.errors import CatalogueError, DeckError, is_int

DATA_DIR = Path(__file__).with_name("data")
ANIMALS_FILE = DATA_DIR / "animals.json"
DECKS_FILE = DATA_DIR / "decks.json"

STAT_KEYS = ("top_speed", "weight", "length", "lifespan", "offspring", "development")
NUM_STATS = len(STAT_KEYS)
PRINTINGS = ("standard", "alternate_art", "foil", "promo", "first_edition")
RARITIES = ("common", "uncommon", "rare")
GROUPS = ("land mammal", "marine mammal", "bird", "reptile", "amphibian", "fish", "insect/arachnid",
          "mollusc/crustacean")
SPEED_MODES = ("run", "swim", "fly", "dive")
FORMATS = {"casual": (20, None), "championship": (60, 60)}
MAX_COPIES = 4

#: the six statistics as the rules define them: which value wins each is a rule ("the lower Development Time
#: wins"), so a file's ``wins`` must say the same (the text view and the engine read it)
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

#: the printed abilities the engine implements, word for word: a file's ability is one of these (an ability of
#: another key loaded, and its text promised what the engine never did)
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

#: the fewest cards that fill a casual deck at four copies each
MIN_CARDS = -(-FORMATS["casual"][0] // MAX_COPIES)


def _check_stats(stats) -> str | None:
    if not isinstance(stats, dict) or set(stats) != set(STAT_KEYS):
        got = sorted(stats) if isinstance(stats, dict) else type(stats).__name__
        return f"stats must have exactly the keys {list(STAT_KEYS)}, got {got}"
    for key, value in stats.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:  # NaN too
            return f"stat {key!r} must be a positive number (a real printed value), got {value!r}"
    return None


def _check_printings(printings) -> str | None:
    if not isinstance(printings, list) or not printings:
        return "printings must be a non-empty list"
    bad = [p for p in printings if p not in PRINTINGS]
    if bad:
        return f"unknown printing(s) {bad}; allowed: {list(PRINTINGS)}"
    if len(set(printings)) != len(printings):
        return "printings repeat an entry"
    return None


def _check_number(text) -> str | None:
    # [0-9], not \d: that matched any script's digits, so "TE-١٢٣" loaded as a collector number
    return None if re.fullmatch(r"TE-[0-9]{3}", text) else f"collector number {text!r} must look like 'TE-001'"


STAT_SCHEMA = {
    "key": Field(str, choices=STAT_KEYS),
    "name": Field(str),
    "unit": Field(str),
    "wins": Field(str, choices=("higher", "lower")),
    "meaning": Field(str),
}
ABILITY_SCHEMA = {
    "key": Field(str),
    "name": Field(str),
    "text": Field(str),
    "overrides": Field(str),
}


def _check_name(name: str) -> str | None:
    return None if visible_text(name) else "name must not be empty (or only spaces and invisible characters)"


def card_schema(ability_keys) -> dict[str, Field]:
    return {
        "collector_number": Field(str, check=_check_number),
        "name": Field(str, check=_check_name),
        "scientific_name": Field(str),
        "group": Field(str, choices=GROUPS),
        "stats": Field(dict, check=_check_stats),
        "speed_mode": Field(str, choices=SPEED_MODES),
        "rarity": Field(str, choices=RARITIES),
        "printings": Field(list, check=_check_printings),
        "source": Field(str, check=lambda s: None if len(s.strip()) > 10 else "every card must cite its source"),
        "max_depth_m": Field((int, float), min=0, required=False),
        "ability": Field(str, choices=ability_keys, required=False),
    }


_KNOWN_ABILITIES = {a["key"]: a for a in ABILITIES}

#: the top-level keys of a catalogue file beside "cards"
HEADER = {"set": Field(str, required=False), "statistics": Field(list), "abilities": Field(list)}


def _checked_ability(rec: dict, seen: dict, where: str) -> str:
    """The key of ability record ``rec``, which must be one the engine implements, as it is printed, and new
    in the file (a second record of a key replaced the first)."""
    key = rec["key"]
    if key not in _KNOWN_ABILITIES:
        raise CatalogueError(f"{where}: ability {key!r} is not one the game plays; the abilities are "
                             f"{sorted(_KNOWN_ABILITIES)}")
    if key in seen:
        raise CatalogueError(f"{where}: ability {key!r} is defined twice; keep one")
    for field, want in _KNOWN_ABILITIES[key].items():
        if rec[field] != want:
            raise CatalogueError(f"{where} ({key!r}), field {field!r}: {rec[field]!r} is not what the game plays; "
                                 f"set it to {want!r}")
    return key


class Catalogue:
    """All cards of one catalogue file, with the arrays the engine compares on."""

    def __init__(self, path: str | Path = ANIMALS_FILE):
        self.path = Path(path)
        data = load_json(self.path)
        if not isinstance(data, dict):
            raise CatalogueError(f"{self.path}: expected a JSON object with 'statistics', 'abilities' and 'cards'")
        for key in ("statistics", "abilities"):
            if not isinstance(data.get(key), list):
                raise CatalogueError(f"{self.path}: expected a list under {key!r}")
        self.statistics = [validate_record(r, STAT_SCHEMA, f"{self.path.name}: statistics[{i}]")
                           for i, r in enumerate(data["statistics"])]
        if [s["key"] for s in self.statistics] != list(STAT_KEYS):
            raise CatalogueError(f"{self.path.name}: statistics must list {list(STAT_KEYS)} in this order")
        for i, (stat, rule) in enumerate(zip(self.statistics, STATISTICS)):
            if stat["wins"] != rule["wins"]:
                raise CatalogueError(f"{self.path.name}: statistics[{i}] ({stat['key']!r}), field 'wins': the rules say "
                                     f"the {rule['wins']} {rule['name']} wins; set it to {rule['wins']!r}")
        self.abilities: dict[str, dict] = {}
        for i, raw in enumerate(data["abilities"]):
            rec = validate_record(raw, ABILITY_SCHEMA, f"{self.path.name}: abilities[{i}]")
            self.abilities[_checked_ability(rec, self.abilities, f"{self.path.name}: abilities[{i}]")] = rec
        self.cards = load_records(self.path, "cards", card_schema(list(self.abilities)), unique="collector_number",
                                  header=HEADER)
        if len(self.cards) < MIN_CARDS:
            raise CatalogueError(f"{self.path.name}: {len(self.cards)} cards cannot fill a "
                                 f"{FORMATS['casual'][0]}-card deck at {MAX_COPIES} copies each; list at least "
                                 f"{MIN_CARDS}")
        self.size = len(self.cards)
        self.index = {c["collector_number"]: i for i, c in enumerate(self.cards)}
        self.names = [c["name"] for c in self.cards]
        self.stat_names = [s["name"] for s in self.statistics]
        self.stat_units = [s["unit"] for s in self.statistics]
        #: +1 where the higher printed value wins, -1 where the lower wins
        self.stat_sign = np.array([1.0 if s["wins"] == "higher" else -1.0 for s in self.statistics])
        self.values = np.array([[c["stats"][k] for k in STAT_KEYS] for c in self.cards], dtype=np.float64)
        self.ability = [c["ability"] for c in self.cards]
        self.ability_ids = {key: [i for i, a in enumerate(self.ability) if a == key] for key in self.abilities}
        # Percentile rank of each value among all cards: a scale-free strength the bots can use.
        order = np.argsort(np.argsort(self.values * self.stat_sign, axis=0, kind="stable"), axis=0)
        self.rank = order / max(self.size - 1, 1)

    def label(self, card: int) -> str:
        return f"{self.names[card]} {self.cards[card]['collector_number']}"

    def value_text(self, card: int, stat: int) -> str:
        value = self.values[card, stat]
        return f"{self.stat_names[stat]} {value:g} {self.stat_units[stat]}"

    def describe(self, card: int) -> str:
        """The card as printed: statistics with units and which way they win, Maximum Depth for aquatic
        animals (information only, never compared), rarity, printings, ability text and sources."""
        c = self.cards[card]
        lines = [f"{c['name']} ({c['scientific_name']}) {c['collector_number']} - {c['rarity']}, {c['group']}"]
        for i, s in enumerate(self.statistics):
            mode = f" ({c['speed_mode']})" if s["key"] == "top_speed" else ""
            lines.append(f"  {self.value_text(card, i)}{mode}  [{s['wins']} wins]")
        if c["max_depth_m"] is not None:
            lines.append(f"  Maximum Depth {c['max_depth_m']:g} m  [information only, never compared]")
        if c["ability"]:
            ability = self.abilities[c["ability"]]
            lines.append(f"  {ability['name']}: {ability['text']}")
        lines.append(f"  Printings: {', '.join(c['printings'])}")
        lines.append(f"  Sources: {c['source']}")
        return "\n".join(lines)

    def card_id(self, number: str, where: str = "deck") -> int:
        try:
            return self.index[number]
        except KeyError:
            raise DeckError(f"{where}: unknown collector number {number!r}; this catalogue has "
                            f"{self.cards[0]['collector_number']}..{self.cards[-1]['collector_number']} "
                            f"(see {self.path.name})") from None


@lru_cache(maxsize=4)
def load_catalogue(path: str = str(ANIMALS_FILE)) -> Catalogue:
    return Catalogue(path)


# ----------------------------------------------------------------------------- decks
def parse_deck(spec, catalogue: Catalogue, where: str = "deck") -> list[tuple[int, str]]:
    """``spec``: a list of ``"TE-001"`` / ``"TE-001/alternate_art"`` strings or a dict of those to counts.

    Returns one ``(card id, printing)`` per physical card.
    """
    if isinstance(spec, dict):
        items = []
        for key, count in spec.items():
            if not is_int(count) or count < 1:  # NumPy integers too (np.unique's counts), as the options take
                raise DeckError(f"{where}: count for {key!r} must be a positive integer, got {count!r}")
            if count > MAX_COPIES:  # refused before [key] * count: 10**18 copies exhaust memory
                if not isinstance(key, str):
                    raise DeckError(f"{where}: deck entries must be strings like 'TE-001' or 'TE-001/alternate_art', got {key!r}")
                number, _, printing = key.partition("/")
                raise DeckError(f"{where}: {count} copies of {catalogue.label(catalogue.card_id(number, where))} "
                                f"({printing or 'standard'} x{count}); at most {MAX_COPIES} copies of the same common "
                                f"name and collector number are allowed: remove {count - MAX_COPIES}")
            items.extend([key] * count)
    elif isinstance(spec, (list, tuple)):
        items = list(spec)
    elif isinstance(spec, np.ndarray) and spec.ndim == 1:  # as Terralore takes a deck
        items = spec.tolist()
    else:
        raise DeckError(f"{where}: a deck is a preset name, a list of 'TE-001[/printing]' entries or a dict "
                        f"of them to counts; got {type(spec).__name__}")
    cards = []
    for entry in items:
        if not isinstance(entry, str):
            raise DeckError(f"{where}: deck entries must be strings like 'TE-001' or 'TE-001/alternate_art', got {entry!r}")
        number, _, printing = entry.partition("/")
        printing = printing or "standard"
        card = catalogue.card_id(number, where)
        if printing not in catalogue.cards[card]["printings"]:
            raise DeckError(f"{where}: {catalogue.label(card)} has no {printing!r} printing; it is printed as "
                            f"{catalogue.cards[card]['printings']}")
        cards.append((card, printing))
    return cards


def _check_format(deck_format) -> None:
    if not isinstance(deck_format, str) or deck_format not in FORMATS:  # a list is unhashable: TypeError in a dict
        raise DeckError(f"unknown deck format {deck_format!r}; choose one of {sorted(FORMATS)}")


def validate_deck(cards: list[tuple[int, str]], deck_format: str, catalogue: Catalogue, where: str = "deck") -> None:
    """Deck construction: size by format, at most four copies of one common name + collector number."""
    _check_format(deck_format)
    low, high = FORMATS[deck_format]
    n = len(cards)
    if n < low or high is not None and n > high:
        need = f"exactly {low}" if high == low else f"{low} or more"
        fix = f"add {low - n}" if n < low or high is None else f"remove {n - high}"
        raise DeckError(f"{where}: a {deck_format} deck must have {need} cards, this one has {n}: {fix}")
    copies = Counter((catalogue.names[c], catalogue.cards[c]["collector_number"]) for c, _ in cards)
    for (name, number), count in sorted(copies.items()):
        if count > MAX_COPIES:
            prints = Counter(p for c, p in cards if catalogue.cards[c]["collector_number"] == number)
            detail = ", ".join(f"{p} x{k}" for p, k in sorted(prints.items()))
            raise DeckError(f"{where}: {count} copies of {name} {number} ({detail}); at most {MAX_COPIES} copies of "
                            f"the same common name and collector number are allowed, alternate-art, foil, promo "
                            f"and First Edition printings counted together: remove {count - MAX_COPIES}")


@lru_cache(maxsize=1)
def preset_decks() -> dict:
    data = load_json(DECKS_FILE)
    if not isinstance(data, dict):
        raise CatalogueError(f"{DECKS_FILE}: expected an object of format -> preset name -> deck")
    for deck_format, presets in data.items():  # build_deck indexes them by name: a list raised TypeError there
        if not isinstance(presets, dict):
            raise CatalogueError(f"{DECKS_FILE}: {deck_format!r} must be an object of preset name -> deck, got "
                                 f"{type(presets).__name__}")
    # build_deck looks presets up by the env's deck_format: those of a misspelt format ("casul") were never found
    validate_record(data, {name: Field(dict, required=False) for name in FORMATS}, f"{DECKS_FILE.name}, top level")
    # every preset, not only those a game asks for: a card number the catalogue lacks in an unused preset went
    # unnoticed until someone chose it (all four take under a millisecond, once: the result is cached)
    catalogue = load_catalogue()
    for deck_format, presets in data.items():
        for name, spec in presets.items():
            where = f"{DECKS_FILE.name}: {deck_format} preset {name!r}"
            try:
                validate_deck(parse_deck(spec, catalogue, where), deck_format, catalogue, where)
            except DeckError as exc:  # the file is at fault, not the deck a caller asked for
                raise CatalogueError(str(exc)) from None
    return data


def build_deck(spec, deck_format: str, catalogue: Catalogue, where: str = "deck") -> list[int]:
    """A validated deck as a list of card ids (printings play identically)."""
    _check_format(deck_format)  # before the presets are looked up by it
    if isinstance(spec, str):
        every = preset_decks()
        presets = every.get(deck_format, {})
        if spec not in presets:
            other = [f for f, decks in every.items() if f != deck_format and isinstance(decks, dict) and spec in decks]
            hint = f" ({spec!r} is a {other[0]} preset: build the env with deck_format={other[0]!r})" if other else ""
            raise DeckError(f"{where}: no {deck_format} preset named {spec!r}{hint}; presets: {sorted(presets)}")
        where = f"{where} (preset {spec!r})"
        spec = presets[spec]
    cards = parse_deck(spec, catalogue, where)
    validate_deck(cards, deck_format, catalogue, where)
    return sorted(c for c, _ in cards)
