"""The Terralore card catalogue (``cards.json``) and preset decks (``decks.json``), validated on load.

A card is a creature (cost, points, lane slots) or a skill (cost only), with an elemental affinity,
a rarity and a list of effects from a small declarative vocabulary:

- reveal effects, resolved once when the card is turned face up:
  ``destroy`` / ``exile`` / ``weaken`` / ``move`` (with a ``target`` selector), ``heal_castle``,
  ``damage_castle``, ``draw`` (``amount``), ``recover`` (``target``: creature / skill / any);
- continuous lane effects, active while the creature is face up on the field:
  ``lane_buff`` (+amount to your other creatures here, optionally only one affinity),
  ``lane_debuff`` (-amount to the enemy creatures here),
  ``synergy`` (+amount to this creature per other creature of ``affinity`` on your field);
- multi-slot creatures: a creature's ``slots`` (1-3) count against the four slots of a lane.

Card ids are the catalogue order (0..N-1) and never change within an env version: action ids and
observation indices are built from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from ..core.catalogue import Field, load_records, validate_record
from ..core.errors import CatalogueError, DeckError

HERE = Path(__file__).parent
CARDS_PATH = HERE / "cards.json"
DECKS_PATH = HERE / "decks.json"

DECK_SIZE = 20
AFFINITIES = ("water", "earth", "fire", "wind", "light", "shadow")
RARITIES = ("common", "uncommon", "rare", "epic", "legendary")
KINDS = ("creature", "skill")
LANE_SLOTS = 4

REVEAL_KINDS = ("destroy", "exile", "weaken", "move", "heal_castle", "damage_castle", "draw", "recover")
CONTINUOUS_KINDS = ("lane_buff", "lane_debuff", "synergy")
EFFECT_KINDS = REVEAL_KINDS + CONTINUOUS_KINDS

#: which target selectors each targeted effect accepts
TARGETS = {
    "destroy": ("enemy_here_strongest", "enemy_here_weakest", "enemy_any_strongest", "own_here_weakest"),
    "exile": ("enemy_here_strongest", "enemy_here_weakest", "enemy_any_strongest"),
    "weaken": ("enemy_here_strongest", "enemy_here_weakest"),
    "move": ("enemy_here_strongest", "own_other_strongest"),
    "recover": ("creature", "skill", "any"),
}
#: effects that need an ``amount`` >= 1; the others take no amount
AMOUNT_KINDS = ("weaken", "heal_castle", "damage_castle", "draw", "lane_buff", "lane_debuff", "synergy")
#: effects that may carry an ``affinity`` filter (synergy must)
AFFINITY_KINDS = ("destroy", "exile", "weaken", "move", "lane_buff", "lane_debuff", "synergy")

CARD_SCHEMA = {
    "id": Field(int, min=0),
    "name": Field(str, check=lambda s: None if s.strip() else "a card needs a non-empty name"),
    "kind": Field(str, choices=KINDS),
    "affinity": Field(str, choices=AFFINITIES),
    "rarity": Field(str, choices=RARITIES),
    "cost": Field(int, min=0, max=6),
    "points": Field(int, min=0, max=12, required=False, default=None),
    "slots": Field(int, min=1, max=3, required=False, default=1),
    "effects": Field(list, required=False, default=[]),
}
EFFECT_SCHEMA = {
    "kind": Field(str, choices=EFFECT_KINDS),
    "amount": Field(int, min=1, max=9, required=False, default=None),
    "target": Field(str, required=False, default=None),
    "affinity": Field(str, choices=AFFINITIES, required=False, default=None),
}
#: the top-level keys beside each file's list: its format tag, which names a file of another format (a later
#: card vocabulary) as such rather than by the first field this loader does not know
CARDS_HEADER = {"format": Field(str, choices=("terralore-cards/1",), required=False)}
DECKS_HEADER = {"format": Field(str, choices=("terralore-decks/1",), required=False)}
DECK_SCHEMA = {
    "name": Field(str),
    "theme": Field(str, required=False, default=""),
    "cards": Field(list),
}


@dataclass(frozen=True)
class Effect:
    kind: str
    amount: int | None = None
    target: str | None = None
    affinity: str | None = None

    @property
    def continuous(self) -> bool:
        return self.kind in CONTINUOUS_KINDS


@dataclass(frozen=True)
class Card:
    id: int
    name: str
    kind: str
    affinity: str
    rarity: str
    cost: int
    points: int
    slots: int
    effects: tuple[Effect, ...]

    @property
    def is_creature(self) -> bool:
        return self.kind == "creature"

    @property
    def text(self) -> str:
        return card_text(self)


class Catalogue:
    """All cards by id and by name, plus per-id arrays the engine reads in its hot paths."""

    def __init__(self, cards: list[Card], path: str | Path = "<memory>"):
        self.path = str(path)
        self.cards = cards
        self.by_name = {c.name: c for c in cards}
        self.size = len(cards)
        self.names = [c.name for c in cards]
        self.cost = [c.cost for c in cards]
        self.points = [c.points for c in cards]
        self.slots = [c.slots for c in cards]
        self.is_creature = [c.is_creature for c in cards]
        self.affinity = [AFFINITIES.index(c.affinity) for c in cards]
        self.reveal_effects = [tuple(e for e in c.effects if not e.continuous) for c in cards]
        self.buff = [_continuous(c, "lane_buff") for c in cards]
        self.debuff = [_continuous(c, "lane_debuff") for c in cards]
        self.synergy = [_continuous(c, "synergy") for c in cards]
        self.has_continuous = [bool(self.buff[i] or self.debuff[i] or self.synergy[i]) for i in range(self.size)]

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, card_id: int) -> Card:
        return self.cards[card_id]

    def card_id(self, ref: int | str, where: str = "deck") -> int:
        """A card id from an id or a name, with an error that names the unknown card."""
        if isinstance(ref, bool) or not isinstance(ref, (int, str, np.integer)):
            raise DeckError(f"{where}: cards are given by name or id, got {type(ref).__name__} {ref!r}")
        if isinstance(ref, str):
            card = self.by_name.get(ref)
            if card is None:
                close = [n for n in self.names if n.lower().startswith(ref.lower()[:4])][:5]
                raise DeckError(f"{where}: unknown card name {ref!r}; "
                                f"similar names: {close or 'none'} (see {Path(self.path).name})")
            return card.id
        if not 0 <= int(ref) < self.size:
            raise DeckError(f"{where}: card id {ref} outside 0..{self.size - 1}")
        return int(ref)


def _continuous(card: Card, kind: str) -> tuple[int, int] | None:
    """(amount, affinity index or -1) of the card's continuous effect of this kind, if any."""
    for e in card.effects:
        if e.kind == kind and e.amount is not None:  # (every continuous kind has an amount)
            return (e.amount, -1 if e.affinity is None else AFFINITIES.index(e.affinity))
    return None


def _validate_effect(raw, where: str, kind: str) -> Effect:
    rec = validate_record(raw, EFFECT_SCHEMA, where)
    ek = rec["kind"]
    if ek in TARGETS:
        if rec["target"] not in TARGETS[ek]:
            raise CatalogueError(f"{where}: effect {ek!r} needs a 'target' from {list(TARGETS[ek])}, "
                                 f"got {rec['target']!r}")
    elif rec["target"] is not None:
        raise CatalogueError(f"{where}: effect {ek!r} takes no 'target'; remove it")
    if ek in AMOUNT_KINDS and rec["amount"] is None:
        raise CatalogueError(f"{where}: effect {ek!r} needs an 'amount' (an integer 1..9)")
    if ek not in AMOUNT_KINDS and rec["amount"] is not None:
        raise CatalogueError(f"{where}: effect {ek!r} takes no 'amount'; remove it")
    if ek == "synergy" and rec["affinity"] is None:
        raise CatalogueError(f"{where}: effect 'synergy' needs an 'affinity' from {list(AFFINITIES)}")
    if rec["affinity"] is not None and ek not in AFFINITY_KINDS:
        raise CatalogueError(f"{where}: effect {ek!r} takes no 'affinity'; remove it")
    if ek in CONTINUOUS_KINDS and kind != "creature":
        raise CatalogueError(f"{where}: continuous effect {ek!r} only works on creatures (a skill leaves "
                             "play when revealed); use a reveal effect or make the card a creature")
    return Effect(ek, rec["amount"], rec["target"], rec["affinity"])


def _build_card(rec: dict, where: str) -> Card:
    kind = rec["kind"]
    if kind == "creature" and rec["points"] is None:
        raise CatalogueError(f"{where}: a creature needs 'points' (its point value, 0..12)")
    if kind == "skill":
        if rec["points"] not in (None, 0):
            raise CatalogueError(f"{where}: skills add no points; remove 'points' or make the card a creature")
        if rec["slots"] != 1:
            raise CatalogueError(f"{where}: only creatures occupy lane slots; remove 'slots'")
    effects = tuple(_validate_effect(raw, f"{where}, effects[{j}]", kind) for j, raw in enumerate(rec["effects"]))
    kinds = [e.kind for e in effects if e.continuous]
    if len(kinds) != len(set(kinds)):
        raise CatalogueError(f"{where}: a card may have each continuous effect kind once; merge the amounts")
    return Card(rec["id"], rec["name"], kind, rec["affinity"], rec["rarity"], rec["cost"],
                rec["points"] or 0, rec["slots"], effects)


def load_catalogue(path: str | Path = CARDS_PATH) -> Catalogue:
    """Load and validate a card file. Raises CatalogueError naming the file, the card and the fix."""
    records = load_records(path, "cards", CARD_SCHEMA, header=CARDS_HEADER)
    name = Path(path).name
    cards = []
    for i, rec in enumerate(records):
        where = f"{name}: cards[{i}] ({rec['name']!r})"
        if rec["id"] != i:
            raise CatalogueError(f"{where}: id is {rec['id']} but must equal its position {i}; card ids are "
                                 "action ids, so list the cards in id order 0, 1, 2 … without gaps")
        cards.append(_build_card(rec, where))
    if len(cards) < DECK_SIZE:
        raise CatalogueError(f"{name}: {len(cards)} cards cannot fill a {DECK_SIZE}-card singleton deck")
    return Catalogue(cards, path)


@cache
def default_catalogue() -> Catalogue:
    return load_catalogue(CARDS_PATH)


# ---------------------------------------------------------------------------------------------- decks
def validate_deck(catalogue: Catalogue, cards, where: str = "deck") -> list[int]:
    """Card ids of a legal deck: exactly 20 cards, one copy of each (singleton)."""
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__iter__"):
        raise DeckError(f"{where}: a deck is a list of {DECK_SIZE} card names or ids, got {cards!r}")
    if isinstance(cards, (dict, set, frozenset)):  # a dict's counts were dropped, a set's order is no order
        raise DeckError(f"{where}: a deck is a list of {DECK_SIZE} card names or ids, got a {type(cards).__name__}"
                        + (" (its counts are not read: decks are singleton, one copy of each card)"
                           if isinstance(cards, dict) else "") + "; give a list")
    ids = [catalogue.card_id(ref, where) for ref in cards]
    if len(ids) != DECK_SIZE:
        raise DeckError(f"{where}: a deck has exactly {DECK_SIZE} cards, this one has {len(ids)}; "
                        f"{'add' if len(ids) < DECK_SIZE else 'remove'} {abs(DECK_SIZE - len(ids))}")
    seen = set()
    for card_id in ids:
        if card_id in seen:
            raise DeckError(f"{where}: {catalogue.names[card_id]!r} appears more than once; decks are "
                            "singleton (one copy of each card): replace the duplicate")
        seen.add(card_id)
    return ids


def load_presets(path: str | Path = DECKS_PATH, catalogue: Catalogue | None = None) -> dict[str, list[int]]:
    """Preset decks by name, each validated against the catalogue."""
    catalogue = catalogue or default_catalogue()
    records = load_records(path, "decks", DECK_SCHEMA, header=DECKS_HEADER)
    name = Path(path).name
    out = {}
    for i, rec in enumerate(records):
        where = f"{name}: decks[{i}] ({rec['name']!r})"
        try:
            out[rec["name"]] = validate_deck(catalogue, rec["cards"], where)
        except DeckError as exc:
            raise CatalogueError(str(exc)) from exc
    return out


@cache
def default_presets() -> dict[str, list[int]]:
    return load_presets()


def random_deck(catalogue: Catalogue, rng: np.random.Generator) -> list[int]:
    """A uniformly random legal deck: 20 distinct cards of the catalogue."""
    return sorted(rng.choice(catalogue.size, DECK_SIZE, replace=False).tolist())


def normalize_deck_spec(catalogue: Catalogue, spec, where: str):
    """A JSON-safe deck spec: ``"random"``, a preset name, or a validated list of card ids."""
    if isinstance(spec, np.ndarray):  # ids from NumPy: compared with == they would be an array
        spec = spec.tolist()
    if spec == "random":
        return "random"
    if isinstance(spec, str):
        presets = default_presets()
        if spec not in presets:
            raise DeckError(f"{where}: unknown deck {spec!r}; use 'random', a preset "
                            f"({', '.join(sorted(presets))}) or a list of {DECK_SIZE} card names")
        return spec
    return validate_deck(catalogue, spec, where)


def resolve_deck(catalogue: Catalogue, spec, rng: np.random.Generator) -> list[int]:
    if spec == "random":
        return random_deck(catalogue, rng)
    if isinstance(spec, str):
        return list(default_presets()[spec])
    return list(spec)


# ---------------------------------------------------------------------------------------------- text
_TARGET_TEXT = {
    "enemy_here_strongest": "the strongest enemy creature here",
    "enemy_here_weakest": "the weakest enemy creature here",
    "enemy_any_strongest": "the strongest enemy creature",
    "own_here_weakest": "your weakest other creature here",
    "own_other_strongest": "your strongest creature in your other lane",
}


def effect_text(e: Effect) -> str:
    aff = f" {e.affinity.capitalize()}" if e.affinity else ""
    target = _TARGET_TEXT.get(e.target or "", "")
    if aff and target:
        target = target.replace("creature", f"{aff.strip()} creature")
    k = e.kind
    if k == "destroy":
        return f"Reveal: destroy {target}."
    if k == "exile":
        return f"Reveal: exile {target}."
    if k == "weaken":
        return f"Reveal: {target} gets -{e.amount} points this turn."
    if k == "move":
        if e.target == "own_other_strongest":
            return f"Reveal: move {target} into this lane."
        return f"Reveal: move {target} to its owner's other lane."
    if k == "heal_castle":
        return f"Reveal: heal your castle by {e.amount}."
    if k == "damage_castle":
        return f"Reveal: deal {e.amount} damage to the enemy castle."
    if k == "draw":
        return f"Reveal: draw {e.amount}."
    if k == "recover":
        what = {"creature": "creature", "skill": "skill", "any": "card"}[e.target or ""]  # (it has one)
        return f"Reveal: return the costliest {what} from your Graveyard to your hand."
    if k == "lane_buff":
        return f"Your other{aff} creatures here get +{e.amount}."
    if k == "lane_debuff":
        return f"Enemy{aff} creatures here get -{e.amount}."
    if k == "synergy":
        return f"+{e.amount} for each other{aff} creature on your field."
    raise ValueError(k)


def card_text(card: Card) -> str:
    parts = [effect_text(e) for e in card.effects]
    if card.slots > 1:
        parts.insert(0, f"Occupies {card.slots} lane slots.")
    return " ".join(parts)
