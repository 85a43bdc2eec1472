"""The Earth catalogue: JSON card files validated on load, plus numpy tables the engine and encoder use.

Every ability is checked against the one declarative vocabulary (see ``ABILITY_KINDS``); a bad record
raises :class:`CatalogueError` naming the file, the record, the field and the fix.
"""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from tabletop_envs.core.catalogue import Field, load_records
from tabletop_envs.core.errors import CatalogueError, is_int

from .text import ability_text, objective_text

DATA = Path(__file__).resolve().parent / "data"
TYPES = ("tree", "herb", "mushroom", "bush")
HABITATS = ("sunny", "wet", "rocky", "cold")
ACTIONS = ("plant", "compost", "water", "grow")
ACTION_COLOUR = {"plant": "green", "compost": "red", "water": "blue", "grow": "yellow"}
COLOURS = ("green", "red", "blue", "yellow", "multi", "black", "brown")
GAIN_RES = ("soil", "sprouts", "growth", "draw", "compost_deck", "compost_hand", "compost_draw")
COST_RES = ("soil", "sprouts", "growth", "hand_compost", "compost_discard")
DIRS = ("row", "col", "adj", "orth", "diag", "all")
ABILITY_KEYS = ("color", "kind", "gain", "cost", "if_action", "filter", "n", "res", "action", "score")
ABILITY_KINDS = ("gain", "copy", "all_types", "cost_reduction", "forbid_action", "on_event", "score", "alt_cost")
SCORE_PATTERNS = ("per_in_dir", "longest_path", "sets", "per_resource", "any_player")
#: the keys each kind reads (besides color and kind): the engine ignored any other, so a copy's cost was never paid
KIND_KEYS = {"gain": ("gain", "cost", "if_action"), "on_event": ("gain", "cost", "if_action"),  # refused below, with why
             "copy": (), "all_types": (),
             "cost_reduction": ("filter", "n"), "forbid_action": ("action",), "alt_cost": ("res",), "score": ("score",)}
#: the keys each scoring pattern reads (besides pattern and vp)
PATTERN_KEYS = {"per_in_dir": ("dir", "filter"), "longest_path": ("habitat",), "sets": ("elements",),
                "per_resource": ("res", "per"), "any_player": ("habitat",)}
MEASURES = ("flora_growth_ge", "flora_sprouts_ge", "soil", "compost", "hand", "events", "habitat", "type", "color",
            "full_cols", "full_rows", "full_diagonals", "vp_ge", "vp_le", "cost_ge", "cost_le", "sets_rbyte", "tag",
            "sprout_spaces_eq", "flora_full", "flora_bare", "vp_odd", "vp_even", "terrain", "diag_path_type",
            "lines_diff_color", "lines_same_color", "lines_diff_type", "lines_same_type", "lines_diff_sprouts",
            "lines_diff_growth", "sprouts", "growth", "canopies")
NUM_FLORA, NUM_TERRAIN, NUM_EVENTS = 179, 66, 38
NUM_EARTH = NUM_FLORA + NUM_TERRAIN + NUM_EVENTS
NUM_PLANTABLE_IDS = NUM_FLORA + NUM_TERRAIN
NUM_ISLANDS, NUM_CLIMATES, NUM_FAUNA, NUM_ECOSYSTEMS = 20, 20, 46, 64


# ------------------------------------------------------------------ ability vocabulary checks
def _check_filter(f) -> str | None:
    if f is None or f == {}:
        return None
    if not isinstance(f, dict) or len(f) != 1:
        return f"filter {f!r} must be {{}} or one of type/habitat/color/kind"
    (k, v), = f.items()
    allowed = {"type": TYPES, "habitat": HABITATS, "color": COLOURS, "kind": ("terrain", "flora", "event")}
    if k not in allowed:
        return f"filter {f!r}: its key must be one of {sorted(allowed)}"
    if v not in allowed[k]:  # naming the values spares a look into the vocabulary for a misspelt type
        return f"filter {f!r}: a {k} filter's value must be one of {allowed[k]}"
    return None


def _check_gain(g) -> str | None:
    if not isinstance(g, dict) or g.get("res") not in GAIN_RES or not is_int(g.get("n")) or g["n"] < 0:
        return f"gain {g!r} needs res in {GAIN_RES} and a non-negative int n"
    unknown = set(g) - {"res", "n", "per", "where"}
    if unknown:
        return f"gain {g!r} has unknown keys {sorted(unknown)}"
    per = g.get("per")
    if per is not None:
        if not isinstance(per, dict):
            return f"per {per!r} must be an object with 'what' ('planted' or 'tableau')"
        if per.get("what") not in ("planted", "tableau"):
            return f"per {per!r}: 'what' must be 'planted' or 'tableau'"
        if per["what"] == "tableau" and per.get("dir") not in DIRS:
            return f"per {per!r}: 'dir' must be one of {DIRS}"
        keys = ("what", "filter") + (("dir",) if per["what"] == "tableau" else ())
        if set(per) - set(keys):  # a misspelt 'filter' counted every card
            return f"per {per!r} has unknown keys {sorted(set(per) - set(keys))}; a {per['what']!r} per's keys are {keys}"
        if (p := _check_filter(per.get("filter"))):
            return p
    where = g.get("where")
    if where is not None:
        if not isinstance(where, dict):
            return f"where {where!r} must be an object with dir in {DIRS} and a bool 'each'"
        if g["res"] not in ("sprouts", "growth"):
            return f"gain {g!r}: 'where' (directional placement) only applies to sprouts or growth"
        if where.get("dir") not in DIRS or not isinstance(where.get("each"), bool):
            return f"where {where!r} needs dir in {DIRS} and a bool 'each'"
        if set(where) - {"dir", "each", "filter"}:
            return f"where {where!r} has unknown keys {sorted(set(where) - {'dir', 'each', 'filter'})}; its keys are " \
                   "('dir', 'each', 'filter')"
        if (p := _check_filter(where.get("filter"))):
            return p
    return None


def check_ability(a) -> str | None:
    """None if ``a`` is a valid ability of the vocabulary, else the problem and the fix."""
    if not isinstance(a, dict):
        return f"ability {a!r} must be an object"
    unknown = sorted(set(a) - set(ABILITY_KEYS))
    if unknown:  # as for a card's fields and a gain's keys: a misspelt key must not be dropped in silence
        close = {k: difflib.get_close_matches(str(k), ABILITY_KEYS, n=1) for k in unknown}
        hints = "".join(f" ({k!r}: did you mean {m[0]!r}?)" for k, m in close.items() if m)
        return f"ability {a!r} has unknown keys {unknown}{hints}; an ability's keys are {ABILITY_KEYS}"
    if a.get("color") not in COLOURS:
        return f"ability colour {a.get('color')!r} must be one of {COLOURS}"
    kind = a.get("kind")
    if kind not in ABILITY_KINDS:
        return f"ability kind {kind!r} must be one of {ABILITY_KINDS}"
    unused = sorted(set(a) - {"color", "kind", *KIND_KEYS[kind]})
    if unused:
        return (f"ability {a!r}: an ability of kind {kind!r} does not use {unused}; its keys are "
                f"{('color', 'kind') + KIND_KEYS[kind]}")
    cost = a.get("cost") or {}
    if not isinstance(cost, dict):  # only a gain (an event) or an on_event gets here with a cost
        return f"cost {cost!r} must be an object of resource -> amount, e.g. {{\"soil\": 2}}"
    for r, n in cost.items():
        if r not in COST_RES or not is_int(n) or n < 1:
            return f"cost {r!r}: {n!r} must use a resource in {COST_RES} and a positive int"
    if kind in ("gain", "on_event"):
        if not isinstance(a.get("gain"), list) or not a["gain"]:
            return f"{kind} ability needs a non-empty 'gain' list"
        for g in a["gain"]:
            if (p := _check_gain(g)):
                return p
        if a.get("if_action") not in (None,) + ACTIONS:
            return f"if_action {a.get('if_action')!r} must be one of {ACTIONS}"
        if kind == "on_event" and (a.get("cost") or a.get("if_action")):
            # playing an event is no activation: there is no point at which to offer a payment or test a condition
            return ("an on_event ability gains without a cost or an if_action condition; give it only 'gain' "
                    "(or make it a 'gain' ability, which is activated by its colour)")
    if kind == "copy" and a["color"] not in ("red", "blue", "yellow", "green", "multi"):
        return "a copy ability must have an action colour"
    if kind == "cost_reduction":
        if "filter" not in a:  # the engine and the text read a["filter"]: {} stands for every card
            return "cost_reduction needs a 'filter' ({} for every card, or one of type/habitat/color/kind)"
        if (p := _check_filter(a["filter"])):
            return p
        if not is_int(a.get("n")) or a["n"] < 1:
            return "cost_reduction needs a positive int 'n'"
    if kind == "alt_cost" and a.get("res") not in ("hand_compost", "sprouts", "growth"):
        return "alt_cost needs 'res' in ('hand_compost', 'sprouts', 'growth')"
    if kind == "forbid_action" and a.get("action") not in ACTIONS:
        return f"forbid_action needs 'action' in {ACTIONS}"
    if kind == "score":
        s = a.get("score")
        if not isinstance(s, dict) or s.get("pattern") not in SCORE_PATTERNS:
            return f"score needs a 'pattern' in {SCORE_PATTERNS}"
        # terrain_vp reads score["filter"] and score["elements"]: a missing one raised KeyError at scoring
        if s["pattern"] == "per_in_dir" and (s.get("dir") not in DIRS or "filter" not in s
                                             or _check_filter(s["filter"])):
            return f"per_in_dir score {s!r} needs dir in {DIRS} and a valid filter"
        if s["pattern"] == "sets" and not (isinstance(s.get("elements"), list) and s["elements"]
                                           and all(e in TYPES for e in s["elements"])
                                           and len(set(s["elements"])) == len(s["elements"])):
            return f"sets score {s!r} needs 'elements': a list of distinct types from {TYPES}"
        if s["pattern"] in ("longest_path", "any_player") and s.get("habitat") not in HABITATS:
            return f"{s['pattern']} score needs a habitat in {HABITATS}"
        if s["pattern"] == "per_resource" and (s.get("res") not in ("soil", "sprouts", "compost", "hand", "growth")
                                               or not is_int(s.get("per")) or s["per"] < 1):
            return "per_resource score needs res (soil/sprouts/compost/hand/growth) and a positive per"
        if not is_int(s.get("vp")):
            return "score needs an int 'vp'"
        keys = ("pattern", "vp") + PATTERN_KEYS[s["pattern"]]
        if set(s) - set(keys):
            return f"{s['pattern']} score {s!r} has unknown keys {sorted(set(s) - set(keys))}; its keys are {keys}"
    return None


def _abilities_check(v) -> str | None:
    if not isinstance(v, list) or not 1 <= len(v) <= 2:
        return "every card has 1 or 2 abilities (a list)"
    for a in v:
        if (p := check_ability(a)):
            return p + "; see the ability vocabulary in tabletop_envs/earth/catalogue.py"
    return None


def _habitats_check(v) -> str | None:
    if not isinstance(v, list) or any(h not in HABITATS for h in v) or len(set(v)) != len(v):
        return f"habitats must be a list of distinct values from {HABITATS}"
    return None


EARTH_SCHEMA = {
    "id": Field(int, min=0), "name": Field(str), "kind": Field(str, choices=("flora", "terrain", "event")),
    "type": Field(str, choices=("",) + TYPES + ("joker",)), "cost": Field(int, min=0, max=20),
    "vp": Field(int, min=-10, max=20), "growth": Field(int, min=0, max=8), "canopy": Field(int, min=0, max=20),
    "sprouts": Field(int, min=0, max=6), "habitats": Field(list, check=_habitats_check),
    "tags": Field(list, check=lambda v: None if all(t in ("colour", "geographic", "animal") for t in v)
                  else "tags must be from colour/geographic/animal"),
    "abilities": Field(list, check=_abilities_check), "text": Field(str),
}
ISLAND_SCHEMA = {
    "id": Field(int, min=0), "name": Field(str), "card": Field(int, min=0), "vp": Field(int, min=0, max=15),
    "habitats": Field(list, check=_habitats_check), "draw": Field(int, min=0, max=15),
    "compost": Field(int, min=0, max=10), "soil": Field(int, min=0, max=15),
    "abilities": Field(list, check=_abilities_check), "text": Field(str),
}
CLIMATE_SCHEMA = {
    "id": Field(int, min=0), "name": Field(str), "card": Field(int, min=0), "vp": Field(int, min=0, max=10),
    "habitats": Field(list, check=_habitats_check), "abilities": Field(list, check=_abilities_check),
    "text": Field(str),
}
OBJECTIVE_SCHEMA = {
    "id": Field(int, min=0), "name": Field(str), "card": Field(int, min=0), "measure": Field(str, choices=MEASURES),
    "arg": Field((str, int, type(None)), required=False), "text": Field(str),
}
FAUNA_SCHEMA = {**OBJECTIVE_SCHEMA, "n": Field(int, min=1)}
ECOSYSTEM_SCHEMA = {**OBJECTIVE_SCHEMA, "per": Field((int, type(None)), required=False),
                    "vp": Field((int, type(None)), required=False), "max": Field((int, type(None)), required=False),
                    "table": Field((list, type(None)), required=False)}


def _check_ids_and_text(records: list[dict], path: Path, objective: str | None = None) -> None:
    for i, rec in enumerate(records):
        if rec["id"] != i:
            raise CatalogueError(f"{path.name}: record {i} ({rec['name']!r}) has id {rec['id']}; ids must be 0..N-1 "
                                 "in file order (action ids are built from them)")
        want = (objective_text(rec, objective) if objective else " ".join(ability_text(a) for a in rec["abilities"]))
        if rec["text"] != want:
            # the generator rewrites the shipped files from its own data: it reverted an edit there, and left
            # a data_dir copy as it was, so the same error came back
            raise CatalogueError(f"{path.name}: record {i} ({rec['name']!r}) text {rec['text']!r} does not match its "
                                 f"data; set its \"text\" to {json.dumps(want, ensure_ascii=False)} in {path} (the text "
                                 "tabletop_envs.earth.text writes from the data)")


#: the 'arg' each objective measure counts with (scoring.measure): an int threshold, a value from a list,
#: or none
INT_ARG_MEASURES = ("vp_ge", "vp_le", "cost_ge", "cost_le", "flora_growth_ge", "flora_sprouts_ge", "sprout_spaces_eq")
CHOICE_ARG_MEASURES = {"habitat": HABITATS, "color": COLOURS, "type": TYPES, "diag_path_type": TYPES,
                       "tag": ("colour", "geographic", "animal")}


def _objective_problem(rec: dict, kind: str) -> str | None:
    """What keeps scoring from counting this fauna / ecosystem objective, or None. The schema checks
    each field alone; these fields depend on each other and were met only when scored (a ZeroDivisionError
    at the end of a game, or an objective that counts nothing)."""
    m, arg = rec["measure"], rec["arg"]
    if m in INT_ARG_MEASURES and not is_int(arg):
        return f"measure {m!r} needs an int 'arg' (the threshold), got {arg!r}"
    if m in CHOICE_ARG_MEASURES and arg not in CHOICE_ARG_MEASURES[m]:
        return f"measure {m!r} needs an 'arg' from {CHOICE_ARG_MEASURES[m]}, got {arg!r}"
    if m not in INT_ARG_MEASURES and m not in CHOICE_ARG_MEASURES and arg is not None:
        return f"measure {m!r} takes no 'arg' (null), got {arg!r}"
    if kind != "ecosystem":
        return None
    table = rec["table"]
    if table:
        if not all(is_int(v) for v in table):
            return f"'table' must be a list of ints (VP by count), got {table!r}"
        # scoring and the text read the table alone: a 'per', 'vp' or 'max' beside it loaded and did nothing
        beside = [k for k in ("per", "vp", "max") if rec[k] is not None]
        if beside:
            return (f"an objective with a 'table' scores by the table alone and does not use {beside}; set them to "
                    "null, or drop the table to score by 'per' and 'vp'")
        return None
    if not is_int(rec["per"]) or rec["per"] < 1:
        return f"without a 'table', 'per' must be an int >= 1, got {rec['per']!r}"
    if not is_int(rec["vp"]):
        return f"without a 'table', 'vp' must be an int, got {rec['vp']!r}"
    if rec["max"] is not None and rec["max"] < 1:
        return f"'max' must be null or an int >= 1 (the VP cap), got {rec['max']!r}"
    return None


def _idle_ability(a: dict, holder: str) -> str | None:
    """Why ability ``a`` never takes effect on a card of ``holder`` ("joker", "flora", "terrain", "side": an
    island or climate), else None. Such an ability loaded and did nothing, while its text (generated from the
    data and shown to the players) promised it."""
    kind, colour = a["kind"], a["color"]
    if kind == "all_types" and holder != "joker":
        return ("'all_types' takes effect on a flora of type 'joker' only (the type is what counts as every type): "
                "give the card type 'joker' or drop the ability")
    if kind == "gain" and colour == "brown":
        return ("a brown 'gain' ability is never activated (no action is brown): give it an action colour, 'multi', "
                "or 'black' (gained when its card is planted)")
    if holder == "side" and kind == "gain" and colour == "black":
        return ("a black ability is triggered when its card is planted, and an island or climate is never planted: "
                "give it an action colour or 'multi'")
    if holder == "side" and kind in ("score", "copy", "alt_cost"):
        return (f"an island or climate never uses an ability of kind {kind!r} (end-game scores, copies and alternative costs "
                "are those of tableau cards): use it on an Earth card")
    if holder in ("side", "event") and kind in ("gain", "on_event"):
        # a direction is counted from the card's own cell: the engine counted the whole tableau instead, so
        # "+1 soil per Herb in this row" on an island paid for every Herb
        for g in a["gain"]:
            for key in ("where", "per"):
                direction = (g.get(key) or {}).get("dir", "all")
                if direction != "all":
                    return (f"{'an island or climate' if holder == 'side' else 'an event'} has no cell in the tableau "
                            f"to count its {key!r} direction {direction!r} from: use \"dir\": \"all\" (your whole "
                            "tableau), or put the ability on a flora or terrain")
    if holder == "event" and a.get("if_action"):
        # an event is played at any time, not during an action; the condition was accepted and never tested
        return ("an event is played at any time, not as part of an action, so its ability takes no 'if_action' "
                "condition: drop it")
    return None


def _check_idle_abilities(records: list[dict], path: Path, key: str, holder=None) -> None:
    for i, rec in enumerate(records):
        where = holder or ("joker" if rec["type"] == "joker" else rec["kind"])
        for a in rec["abilities"]:
            if (problem := _idle_ability(a, where)):
                raise CatalogueError(f"{path.name}: {key}[{i}] ({rec['name']!r}), field 'abilities': {problem}")


#: fields a card of each kind has but the game never reads, with why: a value there loaded and did nothing
UNUSED_FIELDS = {
    "terrain": {"growth": "a terrain holds no growth", "canopy": "a terrain holds no growth",
                "sprouts": "a terrain holds no sprouts", "tags": "only flora tags are counted"},
    "event": {"cost": "an event's cost is its ability's 'cost'", "growth": "an event is never planted",
              "canopy": "an event is never planted", "sprouts": "an event is never planted",
              "habitats": "an event is never planted", "tags": "only flora tags are counted"},
}


def _check_unused_fields(records: list[dict], path: Path) -> None:
    for i, rec in enumerate(records):
        where = f"{path.name}: cards[{i}] ({rec['name']!r})"
        for key, why in UNUSED_FIELDS.get(rec["kind"], {}).items():
            if rec[key]:
                article = "an" if rec["kind"] == "event" else "a"
                raise CatalogueError(f"{where}, field {key!r}: {article} {rec['kind']} card does not use it ({why}); set it "
                                     f"to {[] if isinstance(rec[key], list) else 0}")
        if rec["kind"] == "flora" and rec["canopy"] and not rec["growth"]:
            raise CatalogueError(f"{where}, field 'canopy': a flora without growth spaces never completes its canopy; "
                                 "set 'canopy' to 0 or give it growth spaces")
        if sum(a["kind"] == "alt_cost" for a in rec["abilities"]) > 1:
            raise CatalogueError(f"{where}, field 'abilities': a card has at most one 'alt_cost' ability (the engine "
                                 "offers one alternative to soil); keep one")


def _check_objectives(records: list[dict], path: Path, kind: str) -> None:
    for i, rec in enumerate(records):
        if (problem := _objective_problem(rec, kind)):
            raise CatalogueError(f"{path.name}: record {i} ({rec['name']!r}): {problem}")


def _check_counts(records, path, want, what):
    if len(records) != want:
        raise CatalogueError(f"{path.name}: {len(records)} {what}, the game has {want}")


def _check_two_sides(records, path, what):
    cards: dict[int, int] = {}
    for r in records:
        cards[r["card"]] = cards.get(r["card"], 0) + 1
    bad = [c for c, n in cards.items() if n != 2]
    if bad or sorted(cards) != list(range(len(cards))):
        raise CatalogueError(f"{path.name}: every {what} card needs exactly 2 sides numbered 0..N-1; "
                             f"cards {bad or sorted(cards)} do not")
    # the engine deals card c as records 2c and 2c+1: sides listed in another order dealt both sides of one
    # fauna card to the board, or one island's two sides to two players
    for i, r in enumerate(records):
        if r["card"] != i // 2:
            raise CatalogueError(f"{path.name}: record {i} ({r['name']!r}) is a side of {what} card {r['card']}, but "
                                 f"records {2 * (i // 2)} and {2 * (i // 2) + 1} must be the two sides of card {i // 2}: "
                                 "list the sides in card order, side A then side B, so record i has \"card\": i // 2")


class Catalogue:
    """All components, validated, with numpy tables for fast encoding."""

    def __init__(self, data_dir: str | Path = DATA):
        d = Path(data_dir)
        self.earth = load_records(d / "earth_cards.json", "cards", EARTH_SCHEMA)
        self.islands = load_records(d / "islands.json", "islands", ISLAND_SCHEMA)
        self.climates = load_records(d / "climates.json", "climates", CLIMATE_SCHEMA)
        self.fauna = load_records(d / "fauna.json", "fauna", FAUNA_SCHEMA)
        self.ecosystems = load_records(d / "ecosystems.json", "ecosystems", ECOSYSTEM_SCHEMA)
        _check_objectives(self.fauna, d / "fauna.json", "fauna")
        _check_objectives(self.ecosystems, d / "ecosystems.json", "ecosystem")
        _check_ids_and_text(self.earth, d / "earth_cards.json")
        _check_ids_and_text(self.islands, d / "islands.json")
        _check_ids_and_text(self.climates, d / "climates.json")
        _check_ids_and_text(self.fauna, d / "fauna.json", "fauna")
        _check_ids_and_text(self.ecosystems, d / "ecosystems.json", "ecosystem")
        kinds = [c["kind"] for c in self.earth]
        if kinds != ["flora"] * NUM_FLORA + ["terrain"] * NUM_TERRAIN + ["event"] * NUM_EVENTS:
            raise CatalogueError(f"{d / 'earth_cards.json'}: cards must be {NUM_FLORA} flora, then {NUM_TERRAIN} "
                                 f"terrain, then {NUM_EVENTS} events (in that order); got "
                                 f"{kinds.count('flora')}/{kinds.count('terrain')}/{kinds.count('event')}")
        for c in self.earth:
            if (c["kind"] == "flora") != (c["type"] != ""):
                raise CatalogueError(f"earth_cards.json: {c['name']!r}: flora need a type, other cards type ''")
            if c["kind"] == "event" and any(a["color"] != "black" for a in c["abilities"]):
                raise CatalogueError(f"earth_cards.json: event {c['name']!r}: events only have black abilities")
            # playing an event pays and gains its first ability (the mask and the activation offers read its
            # cost there too): another kind raised KeyError 'gain' when played, a second ability was never gained
            if c["kind"] == "event" and (len(c["abilities"]) != 1 or c["abilities"][0]["kind"] != "gain"):
                raise CatalogueError(f"earth_cards.json: cards[{c['id']}] ({c['name']!r}), field 'abilities': an event "
                                     "has one black 'gain' ability (its cost and gains, e.g. {\"color\": \"black\", "
                                     "\"kind\": \"gain\", \"gain\": [{\"res\": \"soil\", \"n\": 2}]}); put "
                                     "several gains in its one 'gain' list")
        _check_unused_fields(self.earth, d / "earth_cards.json")
        _check_idle_abilities(self.earth, d / "earth_cards.json", "cards")
        _check_idle_abilities(self.islands, d / "islands.json", "islands", "side")
        _check_idle_abilities(self.climates, d / "climates.json", "climates", "side")
        for i, rec in enumerate(self.islands):
            if rec["compost"] > rec["draw"]:  # "of the cards drawn, a number of them will be composted"
                raise CatalogueError(f"islands.json: islands[{i}] ({rec['name']!r}): it composts {rec['compost']} of "
                                     f"the {rec['draw']} cards it draws; 'compost' must be at most 'draw'")
        _check_counts(self.islands, d / "islands.json", NUM_ISLANDS, "island sides")
        _check_counts(self.climates, d / "climates.json", NUM_CLIMATES, "climate sides")
        _check_counts(self.fauna, d / "fauna.json", NUM_FAUNA, "fauna sides")
        _check_counts(self.ecosystems, d / "ecosystems.json", NUM_ECOSYSTEMS, "ecosystem sides")
        for recs, path, what in ((self.islands, "islands.json", "island"), (self.climates, "climates.json", "climate"),
                                 (self.fauna, "fauna.json", "fauna"), (self.ecosystems, "ecosystems.json",
                                                                       "ecosystem")):
            _check_two_sides(recs, d / path, what)
        self._tables()

    def _tables(self) -> None:
        e = self.earth
        n = len(e)
        self.cost = np.array([c["cost"] for c in e], np.int64)
        self.vp = np.array([c["vp"] for c in e], np.int64)
        self.max_growth = np.array([c["growth"] for c in e], np.int64)
        self.canopy = np.array([c["canopy"] for c in e], np.int64)
        self.sprout_spaces = np.array([c["sprouts"] for c in e], np.int64)
        self.is_flora = np.array([c["kind"] == "flora" for c in e])
        self.is_terrain = np.array([c["kind"] == "terrain" for c in e])
        self.is_event = np.array([c["kind"] == "event" for c in e])
        # type membership: a joker counts as every type
        self.types_of = [set(TYPES) if c["type"] == "joker" else ({c["type"]} if c["type"] else set()) for c in e]
        self.habitats_of = [set(c["habitats"]) for c in e]
        self.colours_of = [[a["color"] for a in c["abilities"]] for c in e]
        self.plantable = self.is_flora | self.is_terrain
        # per-card static feature rows for the observation (row n = empty cell)
        feats = np.zeros((n + 1, STATIC_FEATURES), np.float32)
        for i, c in enumerate(e):
            f = feats[i]
            f[0] = 1.0
            f[1] = c["cost"] / 15.0
            f[2] = (c["vp"] + 4) / 14.0
            f[3] = c["growth"] / 8.0
            f[4] = c["canopy"] / 13.0
            f[5] = c["sprouts"] / 6.0
            if c["kind"] == "terrain":
                f[6] = 1.0
            for t in self.types_of[i]:
                f[7 + TYPES.index(t)] = 1.0
            for h in c["habitats"]:
                f[11 + HABITATS.index(h)] = 1.0
            for col in self.colours_of[i]:
                f[15 + COLOURS.index(col)] = 1.0
        self.card_features = np.clip(feats, 0.0, 1.0)  # custom catalogues may exceed the usual ranges
        # Python-list twins for scalar lookups in the engine's hot paths (numpy scalar indexing is slow)
        self.is_flora_l = self.is_flora.tolist()
        self.is_event_l = self.is_event.tolist()
        self.plantable_l = self.plantable.tolist()
        self.sprout_spaces_l = self.sprout_spaces.tolist()
        self.max_growth_l = self.max_growth.tolist()
        self.cost_l = self.cost.tolist()
        # "this card's cost may be paid with ... instead of soil": the resource, or None
        self.alt_cost_l = [next((a["res"] for a in c["abilities"] if a["kind"] == "alt_cost"), None) for c in e]
        self.names = [c["name"] for c in e]


STATIC_FEATURES = 22


def load_catalogue(data_dir: str | Path | None = None) -> Catalogue:
    """The validated catalogue, loaded once per folder and version of its files (every game and bot of one
    version shares the same object; a file edited since is read again, as a new process would)."""
    try:
        folder = Path(data_dir or DATA).resolve()
        versions = _file_versions(folder)
    except (OSError, RuntimeError, ValueError) as exc:
        # a name no folder can have: a symbolic link loop (RuntimeError before Python 3.13), a NUL or an unpaired
        # surrogate (ValueErrors), a name too long (OSError) ended the env, a replay or play on a traceback
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc  # (its name once is enough)
        raise CatalogueError(f"data_dir {str(data_dir)!r} cannot be a catalogue folder ({why}); pass the folder "
                             "that holds earth_cards.json and the other card files, e.g. a copy of the shipped "
                             "tabletop_envs/earth/data") from None
    return _load(str(folder), versions)


def _file_versions(folder: Path) -> tuple:
    # every JSON file of the folder, not a second list of the names Catalogue reads: one missing is named by
    # Catalogue, and a failed load is not cached
    versions = []
    for path in sorted(folder.glob("*.json")):
        try:
            st = path.stat()
        except OSError:
            continue
        versions.append((path.name, st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(versions)


@lru_cache(maxsize=4)
def _load(data_dir: str, versions: tuple) -> Catalogue:
    return Catalogue(data_dir)
