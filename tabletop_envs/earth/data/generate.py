"""Deterministic generator of the Earth catalogue (our own names and card numbers; see below for the
fauna and ecosystem objectives).

Run ``python -m tabletop_envs.earth.data.generate`` to rewrite the JSON files next to this script.
The value distributions follow the real game's shape (game_facts.md part B.4–B.9): exact histograms
for flora cost, VP, growth and sprout spaces, the number of habitats per card and ability colours (the
totals per habitat come from a draw weighted by the real ones, within 1 of each); per-type tendencies
(trees grow tall, herbs hold sprouts, mushrooms are cheap). Names combine real plant, landform, island
and region words; every card's text is generated from its data by ``tabletop_envs.earth.text`` so data
and text cannot disagree.

The fauna objectives (``FAUNA_OBJECTIVES``) and ecosystem sides (``ECOSYSTEM_OBJECTIVES``) count what
game_facts.md B.8 and B.9 say the real ones count, with our own numbers: no side reproduces a real objective
one to one (``tests/earth/test_catalogue.py`` holds the real ones the facts list and checks it). Until
2026-12-05, 37 fauna sides and 30 ecosystem rules used the real thresholds and rates. Each such fauna side now
asks one step more or less than the real one, whichever keeps its difficulty on our cards nearer: how often a
player reached it in 300 two-player games of ``earth_v0/ppo`` and 150 four-player games of ``earth_v0/ppo_4p``,
kept between 10 % and 90 % of players (so no side nobody reaches, none everybody does). Each such ecosystem
rule now has another rate (or count table) with about the same average VP at those games' ends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20231
TYPES = ["tree", "herb", "mushroom", "bush"]
HABITATS = ["sunny", "wet", "rocky", "cold"]
ACTIONS = ["plant", "compost", "water", "grow"]

COLOUR_WORDS = ["Red", "White", "Silver", "Black", "Golden", "Purple", "Yellow", "Blue"]
GEO_WORDS = ["Japanese", "Alpine", "Canadian", "African", "Himalayan", "Siberian", "Arctic", "Andean",
             "Coastal", "River"]
ANIMAL_WORDS = ["Bear", "Fox", "Wolf", "Deer", "Crow", "Horse", "Goat", "Snake"]
PLAIN_WORDS = ["Common", "Weeping", "Dwarf", "Giant", "Sweet", "Bitter", "Lesser", "Greater", "Hairy",
               "Spiny", "Downy", "Creeping", "Tall", "Wild"]
BASES = {
    "tree": ["Oak", "Maple", "Birch", "Pine", "Spruce", "Cedar", "Willow", "Beech", "Ash", "Elm", "Fir",
             "Larch", "Poplar", "Alder", "Magnolia", "Cypress"],
    "herb": ["Basil", "Thyme", "Sage", "Mint", "Yarrow", "Fennel", "Clover", "Sorrel", "Chamomile",
             "Lavender", "Oregano", "Nettle", "Tansy", "Chicory"],
    "mushroom": ["Bolete", "Chanterelle", "Morel", "Puffball", "Bracket", "Inkcap", "Milkcap", "Webcap",
                 "Truffle", "Oyster", "Amanita", "Russula", "Earthstar"],
    "bush": ["Hazel", "Elder", "Holly", "Rose", "Heather", "Laurel", "Barberry", "Currant", "Gooseberry",
             "Bramble", "Broom", "Gorse", "Myrtle", "Sumac"],
}
JOKERS = ["Meadow Sprouts", "Marsh Sprouts", "Dune Sprouts"]
LANDFORMS = ["Prairie", "Steppe", "Savanna", "Tundra", "Marsh", "Fen", "Bog", "Delta", "Canyon", "Mesa",
             "Plateau", "Ridge", "Valley", "Gorge", "Dune Field", "Lagoon", "Estuary", "Fjord", "Moraine",
             "Scree Slope", "Heath", "Moor", "Meadow", "Grove", "Reef", "Atoll", "Caldera", "Salt Flat",
             "Oasis", "Badlands", "Floodplain", "Sea Cliffs", "Karst"]
LAND_QUALIFIERS = ["Northern", "Southern", "High", "Low", "Old", "Misty", "Windy", "Sunlit"]
EVENTS = ["Monsoon", "Wildfire", "Drought", "Flash Flood", "Avalanche", "Aurora", "Solar Eclipse", "Tsunami",
          "Meteor Shower", "Sandstorm", "Blizzard", "Heatwave", "Landslide", "Earthquake", "Tornado", "Typhoon",
          "Cold Snap", "Hailstorm", "Dust Devil", "Rainbow", "Fog Bank", "Geyser Burst", "Lava Flow", "Ash Cloud",
          "Spring Thaw", "Late Summer", "Hoarfrost", "Morning Dew", "Thunderstorm", "Lightning Strike",
          "King Tide", "Warm Current", "Mudslide", "Sinkhole", "Firefly Night", "Pollen Bloom", "Locust Swarm",
          "Bird Migration"]
ISLANDS = ["Madeira", "Tenerife", "Rarotonga", "Socotra", "Svalbard", "Lanzarote", "Tasmania", "Sakhalin",
           "Bora Bora", "Faroe", "Isabela", "Reunion", "Stromboli", "Surtsey", "Heimaey", "Capri", "Crete",
           "Corsica", "Sumatra", "Flores"]
CLIMATES = ["Mediterranean", "Humid Subtropical", "Oceanic", "Continental", "Subarctic", "Polar Ice Cap",
            "Tropical Rainforest", "Tropical Monsoon", "Hot Desert", "Cold Desert", "Alpine", "Highland",
            "Humid Continental", "Dry Summer", "Warm Oceanic", "Cold Semi-Arid", "Hot Semi-Arid", "Ice Fog",
            "Boreal", "Equatorial"]
FAUNA = ["Snowy Owl", "Red Fox", "Brown Bear", "Grey Heron", "Beaver", "Lynx", "Moose", "Wolverine", "Otter",
         "Badger", "Hedgehog", "Stag Beetle", "Monarch Butterfly", "Bumblebee", "Tree Frog", "Axolotl",
         "Koala", "Platypus", "Kiwi", "Kea", "Snow Leopard", "Red Panda", "Pangolin", "Okapi", "Meerkat",
         "Aardvark", "Cheetah", "Jaguar", "Tapir", "Capybara", "Sloth", "Toucan", "Macaw", "Flamingo",
         "Pelican", "Albatross", "Walrus", "Narwhal", "Musk Ox", "Ibex", "Chamois", "Marmot", "Pika",
         "Firefly", "Dragonfly", "Tortoise"]
REGIONS = ["Atacama", "Patagonia", "Gobi", "Kalahari", "Sahel", "Pantanal", "Everglades", "Camargue",
           "Danube Delta", "Sundarbans", "Daintree", "Tongass", "Bialowieza", "Carpathians", "Pyrenees",
           "Dolomites", "Cairngorms", "Okefenokee", "Mojave", "Sonoran", "Chihuahuan", "Kakadu", "Fiordland",
           "Kamchatka", "Altai", "Tibetan Plateau", "Mekong Delta", "Congo Basin", "Virunga", "Ngorongoro",
           "Masai Mara", "Etosha", "Drakensberg", "Atlas Mountains", "Sinai", "Zagros", "Caucasus", "Urals",
           "Lapland", "Vatnajokull", "Labrador", "Yukon", "Banff", "Olympic Peninsula", "Redwood Coast",
           "Appalachians", "Ozarks", "Pine Barrens", "Cerrado", "Llanos", "Altiplano", "Yungas",
           "Valdivian Forest", "Tierra del Fuego", "Sierra Nevada", "Great Basin", "Flint Hills", "Nullarbor",
           "Kimberley", "Western Ghats", "Borneo Highlands", "Wadi Rum", "Okavango Fringe", "Danakil"]


def hist(counts: dict[int, int]) -> list[int]:
    return [v for v, c in sorted(counts.items()) for _ in range(c)]


def assign(values: list[int], keys: np.ndarray) -> list[int]:
    """Give the sorted values to cards in the order of their keys (bias + noise)."""
    order = np.argsort(keys, kind="stable")
    out = [0] * len(values)
    for v, i in zip(sorted(values), order):
        out[int(i)] = v
    return out


def pick(rng, weights: list[float]) -> int:
    """A template index; weights follow the real game's most frequent ability atoms (facts B.5)."""
    w = np.asarray(weights, float)
    return int(rng.choice(len(w), p=w / w.sum()))


def gen(res: str, n: int, **extra) -> dict:
    return {"res": res, "n": n, **extra}


# ---------------------------------------------------------------- ability templates by colour
def red_ability(rng, power: int) -> dict:
    k = pick(rng, [0.3, 0.15, 0.15, 0.1, 0.1, 0.1, 0.1])
    if k == 0:
        return {"color": "red", "kind": "gain", "gain": [gen("soil", 1 + power)]}
    if k == 1:
        return {"color": "red", "kind": "gain", "gain": [gen("compost_hand", 1 + power)]}
    if k == 2:
        return {"color": "red", "kind": "gain", "cost": {"hand_compost": 1}, "gain": [gen("soil", 2 + power)]}
    if k == 3:
        return {"color": "red", "kind": "gain", "gain": [gen("soil", 1 + power // 2), gen("compost_hand", 1)]}
    if k == 4:
        return {"color": "red", "kind": "gain", "if_action": "compost", "gain": [gen("soil", 2 + power)]}
    if k == 5:
        return {"color": "red", "kind": "gain", "gain": [gen("compost_deck", 1 + power)]}
    t = TYPES[int(rng.integers(4))]
    return {"color": "red", "kind": "gain",
            "gain": [gen("soil", 1, per={"what": "tableau", "dir": "row", "filter": {"type": t}})]}


def blue_ability(rng, power: int) -> dict:
    k = pick(rng, [0.3, 0.2, 0.1, 0.1, 0.1, 0.08, 0.12])
    if k == 0:
        return {"color": "blue", "kind": "gain", "gain": [gen("sprouts", 1 + power)]}
    if k == 1:
        return {"color": "blue", "kind": "gain", "cost": {"compost_discard": 1},
                "gain": [gen("soil", 1), gen("sprouts", 1), gen("growth", 1)]}
    if k == 2:
        t = TYPES[int(rng.integers(4))]
        d = ["row", "col"][int(rng.integers(2))]
        return {"color": "blue", "kind": "gain",
                "gain": [gen("sprouts", 1, where={"dir": d, "filter": {"type": t}, "each": True})]}
    if k == 3:
        return {"color": "blue", "kind": "gain",
                "gain": [gen("sprouts", 2 + power // 2, where={"dir": "adj", "filter": {}, "each": False})]}
    if k == 4:
        return {"color": "blue", "kind": "gain", "cost": {"growth": 2}, "gain": [gen("sprouts", 3 + power)]}
    if k == 5:
        return {"color": "blue", "kind": "gain", "if_action": "water", "gain": [gen("sprouts", 2 + power)]}
    return {"color": "blue", "kind": "gain", "gain": [gen("soil", 1 + power // 2)]}


def yellow_ability(rng, power: int) -> dict:
    k = pick(rng, [0.3, 0.2, 0.1, 0.15, 0.08, 0.07, 0.1])
    if k == 0:
        return {"color": "yellow", "kind": "gain", "gain": [gen("growth", 1 + power)]}
    if k == 1:
        return {"color": "yellow", "kind": "gain", "gain": [gen("draw", 1 + power // 2)]}
    if k == 2:
        return {"color": "yellow", "kind": "gain", "cost": {"sprouts": 2}, "gain": [gen("growth", 3 + power)]}
    if k == 3:
        d = ["adj", "orth", "diag"][int(rng.integers(3))]
        return {"color": "yellow", "kind": "gain",
                "gain": [gen("growth", 2 + power // 2, where={"dir": d, "filter": {}, "each": False})]}
    if k == 4:
        t = TYPES[int(rng.integers(4))]
        return {"color": "yellow", "kind": "gain",
                "gain": [gen("growth", 1, where={"dir": "col", "filter": {"type": t}, "each": True})]}
    if k == 5:
        return {"color": "yellow", "kind": "gain", "if_action": "grow", "gain": [gen("growth", 2 + power)]}
    return {"color": "yellow", "kind": "gain", "gain": [gen("growth", 1), gen("sprouts", 1)]}


def multi_ability(rng, power: int) -> dict:
    k = int(rng.integers(4))
    if k == 0:
        return {"color": "multi", "kind": "gain", "cost": {"soil": 1}, "gain": [gen("growth", 2)]}
    if k == 1:
        return {"color": "multi", "kind": "gain", "gain": [gen("soil", 1)]}
    if k == 2:
        return {"color": "multi", "kind": "gain", "gain": [gen("sprouts", 1 + power // 2)]}
    return {"color": "multi", "kind": "gain", "gain": [gen("draw", 1)]}


def black_ability(rng, power: int) -> dict:
    k = pick(rng, [0.35, 0.15, 0.3, 0.1, 0.1])
    if k == 0:
        return {"color": "black", "kind": "gain", "gain": [gen("draw", 1 + power)]}
    if k == 1:
        return {"color": "black", "kind": "gain", "gain": [gen("growth", 2 + power)]}
    if k == 2:
        return {"color": "black", "kind": "gain", "cost": {"sprouts": 2}, "gain": [gen("soil", 3 + power)]}
    if k == 3:
        h = HABITATS[int(rng.integers(4))]
        return {"color": "black", "kind": "gain",
                "gain": [gen("sprouts", 1, per={"what": "tableau", "dir": "all", "filter": {"habitat": h}})]}
    return {"color": "black", "kind": "gain", "gain": [gen("compost_deck", 2 + power)]}


MAKERS = {"red": red_ability, "blue": blue_ability, "yellow": yellow_ability, "multi": multi_ability,
          "black": black_ability}


# ---------------------------------------------------------------- flora
def make_flora(rng) -> list[dict]:
    types = [t for t in TYPES for _ in range(44)] + ["joker"] * 3
    n = len(types)
    bias = {"cost": {"tree": 0.5, "herb": 0.25, "mushroom": -0.5, "bush": 0.0, "joker": 3.0},
            "growth": {"tree": 1.2, "herb": -0.6, "mushroom": -1.0, "bush": 0.7, "joker": 0.0},
            "sprouts": {"tree": -0.4, "herb": 0.6, "mushroom": 0.3, "bush": -0.1, "joker": -2.0},
            "vp": {"tree": 0.0, "herb": 0.0, "mushroom": 0.6, "bush": -0.3, "joker": -3.0}}

    def keys(field, extra=None):
        k = np.array([bias[field][t] for t in types]) + rng.normal(0, 1.0, n)
        return k if extra is None else k + extra

    cost = assign(hist({0: 11, 1: 29, 2: 29, 3: 32, 4: 31, 5: 13, 6: 15, 7: 9, 8: 9, 9: 1}), keys("cost"))
    cz = (np.array(cost) - 3.3) / 2.0
    vp = assign(hist({0: 35, 1: 51, 2: 43, 3: 12, 4: 25, 5: 7, 6: 3, 7: 3}), keys("vp", 0.5 * cz))
    growth = assign(hist({0: 11, 1: 39, 2: 49, 3: 40, 4: 28, 5: 8, 6: 3, 8: 1}), keys("growth", 0.3 * cz))
    sprouts = assign(hist({0: 10, 1: 4, 2: 26, 3: 31, 4: 37, 5: 25, 6: 46}), keys("sprouts"))
    nhab = assign(hist({0: 27, 1: 74, 2: 52, 3: 17, 4: 9}), keys("cost", np.where(np.array(types) == "joker", 9, 0)))
    quota = {"sunny": 71, "cold": 69, "wet": 65, "rocky": 60}
    colours = (["yellow"] * 40 + ["blue"] * 39 + ["red"] * 39 + ["multi"] * 20 + ["black"] * 10
               + ["red+blue"] * 10 + ["yellow+red"] * 9 + ["yellow+blue"] * 9)
    rng.shuffle(colours)
    names = flora_names(rng, types)
    cards = []
    ci = 0
    alt_left = ["growth", "sprouts", "hand_compost"]
    for i, t in enumerate(types):
        g = growth[i]
        canopy = 0 if g == 0 else max(1, min(13, int(round(1.25 * g + rng.normal(0.2, 0.8)))))
        habs = pick_habitats(rng, nhab[i], quota)
        power = min(2, max(0, (cost[i] - vp[i]) // 3))
        if t == "joker":
            copy_colour = ["blue", "red", "yellow"][JOKERS.index(names[i])]
            abilities = [{"color": copy_colour, "kind": "copy"}, {"color": "brown", "kind": "all_types"}]
        else:
            col = colours[ci]
            ci += 1
            abilities = [MAKERS[c](rng, power) for c in col.split("+")]
            if col == "black" and alt_left:
                # a few black flora may be paid for with something other than soil (Horn of Plenty style)
                abilities = [{"color": "black", "kind": "alt_cost", "res": alt_left.pop()}]
        cards.append({"name": names[i], "kind": "flora", "type": t, "cost": cost[i], "vp": vp[i], "growth": g,
                      "canopy": canopy, "sprouts": sprouts[i], "habitats": habs, "tags": name_tags(names[i]),
                      "abilities": abilities})
    return cards


def pick_habitats(rng, k: int, quota: dict) -> list[str]:
    chosen = []
    for _ in range(k):
        left = [h for h in HABITATS if h not in chosen]
        w = np.array([max(quota[h], 0.5) for h in left], float)
        h = left[int(rng.choice(len(left), p=w / w.sum()))]
        quota[h] -= 1
        chosen.append(h)
    return [h for h in HABITATS if h in chosen]


# The real cards game_facts.md B.4 names as examples: a name drawn from our words may be one of them
REAL_CARD_NAMES = {"Japanese Maple", "African Baobab", "Cat Grass", "Blackthorn", "Marula", "Giant Sequoia",
                   "Yellow Morel", "Penny Bun", "Rainbow Eucalyptus", "Horn of Plenty", "Woolly Buckeye",
                   "Swamp Sprouts", "Prairie", "Shrubland"}


def own_name(name: str, used: set[str]) -> str:
    """``name``, or where it is a real card's, the first name with a word of the same kind (so the same
    name tags) before the same base that is neither real nor taken: no draw, so no other card changes."""
    if name not in REAL_CARD_NAMES:
        return name
    word, base = name.split(" ", 1)
    kind = next(words for words in (COLOUR_WORDS, GEO_WORDS, ANIMAL_WORDS, PLAIN_WORDS) if word in words)
    return next(f"{w} {base}" for w in kind if f"{w} {base}" not in used | REAL_CARD_NAMES)


def flora_names(rng, types: list[str]) -> list[str]:
    prefixes = COLOUR_WORDS + GEO_WORDS + ANIMAL_WORDS + PLAIN_WORDS
    used: set[str] = set()
    out, joker = [], 0
    for t in types:
        if t == "joker":
            out.append(JOKERS[joker])
            joker += 1
            continue
        while True:
            name = f"{prefixes[int(rng.integers(len(prefixes)))]} {BASES[t][int(rng.integers(len(BASES[t])))]}"
            if name not in used:
                break
        name = own_name(name, used)
        used.add(name)
        out.append(name)
    return out


def name_tags(name: str) -> list[str]:
    words = name.split()
    tags = []
    if any(w in COLOUR_WORDS for w in words):
        tags.append("colour")
    if any(w in GEO_WORDS for w in words):
        tags.append("geographic")
    if any(w in ANIMAL_WORDS for w in words):
        tags.append("animal")
    return tags


# ---------------------------------------------------------------- terrain
def terrain_scoring(rng) -> dict:
    k = int(rng.integers(8))
    if k == 0:
        t = TYPES[int(rng.integers(4))]
        return {"pattern": "per_in_dir", "dir": "row", "filter": {"type": t}, "vp": 3}
    if k == 1:
        t = TYPES[int(rng.integers(4))]
        return {"pattern": "per_in_dir", "dir": "orth", "filter": {"type": t}, "vp": 3}
    if k == 2:
        t = TYPES[int(rng.integers(4))]
        return {"pattern": "per_in_dir", "dir": "diag", "filter": {"type": t}, "vp": 4}
    if k == 3:
        h = HABITATS[int(rng.integers(4))]
        return {"pattern": "longest_path", "habitat": h, "vp": 2}
    if k == 4:
        return {"pattern": "sets", "elements": list(TYPES), "vp": 5}
    if k == 5:
        res = ["soil", "sprouts", "compost", "hand"][int(rng.integers(4))]
        return {"pattern": "per_resource", "res": res, "per": 3, "vp": 2}
    if k == 6:
        h = HABITATS[int(rng.integers(4))]
        return {"pattern": "any_player", "habitat": h, "vp": 2}
    return {"pattern": "per_in_dir", "dir": "all", "filter": {"kind": "terrain"}, "vp": 3}


def make_terrain(rng) -> list[dict]:
    kinds = ["brown"] * 40 + ["green+brown"] * 18 + ["black"] * 8
    rng.shuffle(kinds)
    names = [f"{q} {land}" for land in LANDFORMS for q in LAND_QUALIFIERS[:2]]
    order = rng.permutation(len(names))[:66]
    cards = []
    for i, kind in enumerate(kinds):
        nhab = int(rng.choice([1, 2, 3, 4], p=[0.15, 0.25, 0.35, 0.25]))
        habs = sorted(rng.choice(HABITATS, nhab, replace=False).tolist(), key=HABITATS.index)
        abilities: list[dict[str, Any]] = []
        if kind == "black":
            cost, vp = int(rng.integers(6, 10)), int(rng.integers(2, 6))
            res = ["growth", "sprouts", "draw"][int(rng.integers(3))]
            abilities.append({"color": "black", "kind": "gain", "gain": [gen(res, {"growth": 8, "sprouts": 7,
                                                                                       "draw": 5}[res])]})
        else:
            k = int(rng.integers(10))
            if k < 6:
                abilities.append({"color": "brown", "kind": "score", "score": terrain_scoring(rng)})
                cost, vp = int(rng.integers(9, 14)), int(rng.integers(0, 3))
            elif k < 8:
                f = ({"type": TYPES[int(rng.integers(4))]} if k == 6 else {"habitat": HABITATS[int(rng.integers(4))]})
                abilities.append({"color": "brown", "kind": "cost_reduction", "filter": f, "n": 1 + (k == 6)})
                cost, vp = int(rng.integers(0, 3)), int(rng.integers(1, 4))
            elif k == 8:
                abilities.append({"color": "brown", "kind": "forbid_action",
                                  "action": ["compost", "water", "grow"][int(rng.integers(3))]})
                cost, vp = int(rng.integers(5, 9)), int(rng.integers(6, 11))
            else:
                abilities.append({"color": "brown", "kind": "on_event", "gain": [gen("soil", 1)]})
                cost, vp = 2, int(rng.integers(1, 4))
            if kind == "green+brown":
                g = [[gen("draw", 1)], [gen("soil", 1)], [gen("soil", 1), gen("compost_deck", 2)],
                     [gen("sprouts", 2)]][int(rng.integers(4))]
                abilities.insert(0, {"color": "green", "kind": "gain", "gain": g})
                cost = min(15, cost + 2)
        cards.append({"name": names[int(order[i])], "kind": "terrain", "type": "", "cost": cost, "vp": vp,
                      "growth": 0, "canopy": 0, "sprouts": 0, "habitats": habs, "tags": [], "abilities": abilities})
    return cards


# ---------------------------------------------------------------- events
def make_events(rng) -> list[dict]:
    vps = hist({-4: 4, -3: 4, -2: 6, -1: 4, 0: 16, 1: 4})
    rng.shuffle(vps)
    cards = []
    for i, vp in enumerate(vps):
        strength = -vp  # a bigger trade comes with a VP penalty
        k = int(rng.integers(6))
        ab: dict[str, Any]  # a card's ability, JSON as the catalogue reads it
        if vp >= 0 and k < 3:
            res = ["soil", "draw", "sprouts"][k]
            ab = {"color": "black", "kind": "gain", "gain": [gen(res, 1 + (vp == 0))]}
        elif k in (0, 3):
            ab = {"color": "black", "kind": "gain", "cost": {"growth": 2 + strength // 2},
                  "gain": [gen("sprouts", 3 + 2 * max(strength, 0))]}
        elif k in (1, 4):
            ab = {"color": "black", "kind": "gain", "cost": {"sprouts": 3 + strength},
                  "gain": [gen("soil", 3 + 2 * max(strength, 0))]}
        else:
            ab = {"color": "black", "kind": "gain", "cost": {"sprouts": 2 + max(strength, 0)},
                  "gain": [gen("compost_deck", 3 + max(strength, 0)), gen("draw", max(strength, 0) // 2)]}
        ab["gain"] = [g for g in ab["gain"] if g["n"] > 0]
        cards.append({"name": EVENTS[i], "kind": "event", "type": "", "cost": 0, "vp": vp, "growth": 0,
                      "canopy": 0, "sprouts": 0, "habitats": [], "tags": [], "abilities": [ab]})
    return cards


# ---------------------------------------------------------------- islands, climates
def make_islands(rng) -> list[dict]:
    sides = []
    for i, name in enumerate(ISLANDS):
        draw = int(rng.integers(3, 13))
        vp = int(np.clip(round(11 - draw + rng.normal(0, 1.2)), 0, 10))
        compost = int(np.clip(round(draw * 0.4 + rng.normal(0, 0.8)), 0, min(5, draw - 2)))
        soil = int(rng.integers(4, 9))
        nhab = int(rng.integers(1, 3))
        habs = sorted(rng.choice(HABITATS, nhab, replace=False).tolist(), key=HABITATS.index)
        k = i % 5
        ab: dict[str, Any]
        if k == 0:
            f = ({"habitat": HABITATS[int(rng.integers(4))]} if rng.random() < 0.6 else {"kind": "terrain"})
            res = ["soil", "sprouts", "growth", "draw"][int(rng.integers(4))]
            ab = {"color": "green", "kind": "gain",
                  "gain": [gen(res, 1 if res == "draw" else 2, per={"what": "planted", "filter": f})]}
        elif k == 1:
            c = ["red", "blue", "yellow"][int(rng.integers(3))]
            ab = {"color": "green", "kind": "gain",
                  "gain": [gen("soil", 2, per={"what": "planted", "filter": {"color": c}})]}
        elif k == 2:
            ab = {"color": "brown", "kind": "cost_reduction", "filter": {"habitat": HABITATS[int(rng.integers(4))]},
                  "n": 1}
        elif k == 3:
            ab = {"color": "brown", "kind": "on_event", "gain": [gen(["soil", "draw"][int(rng.integers(2))], 1)]}
        else:
            colour = ["red", "blue", "yellow"][int(rng.integers(3))]
            action = {"red": "compost", "blue": "water", "yellow": "grow"}[colour]
            res = ["soil", "sprouts", "growth", "draw"][int(rng.integers(4))]
            ab = {"color": colour, "kind": "gain", "if_action": action, "gain": [gen(res, 2)]}
        sides.append({"name": name, "card": i // 2, "vp": vp, "habitats": habs, "draw": draw, "compost": compost,
                      "soil": soil, "abilities": [ab]})
    return sides


def positionless(rng, colour: str, power: int) -> dict:
    """A climate sits outside the grid: no directional (row/column/adjacent) wording."""
    while True:
        ab = MAKERS[colour](rng, power)
        if all("where" not in g and "per" not in g for g in ab["gain"]):
            return ab


def make_climates(rng) -> list[dict]:
    sides = []
    for i, name in enumerate(CLIMATES):
        vp = int(rng.integers(1, 5))
        habs = sorted(rng.choice(HABITATS, 2, replace=False).tolist(), key=HABITATS.index)
        colour = ["red", "blue", "yellow"][i % 3]
        abilities = [positionless(rng, colour, max(0, 2 - vp))]
        if i % 10 == 9:
            abilities.append(positionless(rng, ["red", "blue", "yellow"][(i + 1) % 3], 0))
        sides.append({"name": name, "card": i // 2, "vp": vp, "habitats": habs, "abilities": abilities})
    return sides


# ---------------------------------------------------------------- fauna and ecosystems
FAUNA_OBJECTIVES = [
    ("flora_growth_ge", 3, 3), ("flora_growth_ge", 1, 6), ("flora_sprouts_ge", 4, 7), ("flora_sprouts_ge", 1, 8),
    ("soil", None, 21), ("compost", None, 14), ("hand", None, 21), ("events", None, 5),
    ("habitat", "rocky", 9), ("habitat", "sunny", 9), ("habitat", "wet", 7), ("habitat", "cold", 9),
    ("type", "tree", 3), ("type", "bush", 5), ("type", "herb", 5), ("type", "mushroom", 3),
    ("color", "red", 7), ("color", "blue", 7), ("color", "yellow", 5), ("color", "black", 2),
    ("full_cols", None, 3), ("full_rows", None, 3), ("full_diagonals", None, 1),
    ("vp_ge", 4, 7), ("vp_le", 3, 10), ("cost_ge", 4, 7), ("cost_le", 3, 8), ("sets_rbyte", None, 1),
    ("color", "multi", 1), ("tag", "geographic", 4), ("tag", "animal", 4), ("tag", "colour", 4),
    ("sprout_spaces_eq", 6, 5), ("flora_full", None, 5), ("flora_bare", None, 7), ("vp_odd", None, 6),
    ("vp_even", None, 11), ("terrain", None, 4), ("habitat", "sunny", 10), ("habitat", "cold", 10),
    ("flora_growth_ge", 2, 5), ("flora_sprouts_ge", 2, 8), ("soil", None, 25), ("compost", None, 12),
    ("type", "tree", 5), ("color", "green", 4),
]

ECOSYSTEM_OBJECTIVES = (
    [{"measure": "type", "arg": t, "table": [0, 2, 5, 9, 13, 18, 24, 29]} for t in TYPES]
    + [{"measure": "diag_path_type", "arg": t, "per": 1, "vp": 5, "max": 25} for t in TYPES]
    + [{"measure": "habitat", "arg": h, "per": 3, "vp": 5, "max": None} for h in HABITATS]
    + [{"measure": "color", "arg": "black", "per": 1, "vp": 3, "max": None},
       {"measure": "soil", "arg": None, "per": 3, "vp": 5, "max": 25},
       {"measure": "hand", "arg": None, "per": 6, "vp": 7, "max": 21},
       {"measure": "compost", "arg": None, "per": 3, "vp": 2, "max": 20}]
    + [{"measure": "color", "arg": c, "per": 2, "vp": 5, "max": None} for c in ("red", "yellow", "blue")]
    + [{"measure": m, "arg": None, "per": 1, "vp": 7, "max": None}
       for m in ("lines_diff_color", "lines_same_color", "lines_diff_type", "lines_same_type")]
    + [{"measure": "lines_diff_sprouts", "arg": None, "per": 1, "vp": 8, "max": None},
       {"measure": "lines_diff_growth", "arg": None, "per": 1, "vp": 8, "max": None},
       {"measure": "sprouts", "arg": None, "per": 2, "vp": 1, "max": None},
       {"measure": "growth", "arg": None, "per": 4, "vp": 3, "max": None},
       {"measure": "canopies", "arg": None, "per": 2, "vp": 5, "max": None},
       {"measure": "color", "arg": "multi", "per": 1, "vp": 4, "max": None},
       {"measure": "color", "arg": "green", "per": 1, "vp": 3, "max": None},
       {"measure": "terrain", "arg": None, "per": 1, "vp": 3, "max": None},
       {"measure": "events", "arg": None, "per": 2, "vp": 5, "max": None},
       {"measure": "tag", "arg": "geographic", "per": 1, "vp": 3, "max": None},
       {"measure": "tag", "arg": "animal", "per": 1, "vp": 3, "max": None},
       {"measure": "tag", "arg": "colour", "per": 1, "vp": 3, "max": None},
       {"measure": "flora_full", "arg": None, "per": 1, "vp": 4, "max": None},
       {"measure": "full_cols", "arg": None, "per": 1, "vp": 5, "max": None},
       {"measure": "full_rows", "arg": None, "per": 1, "vp": 5, "max": None}]
)


def make_fauna(rng) -> list[dict]:
    sides = []
    objectives = list(FAUNA_OBJECTIVES)
    if len(objectives) != 46:
        raise ValueError(f"the fauna deck has 46 objective sides, not {len(objectives)}")
    for i, (measure, arg, n) in enumerate(objectives):
        sides.append({"name": FAUNA[i], "card": i // 2, "measure": measure, "arg": arg, "n": n})
    return sides


def make_ecosystems(rng) -> list[dict]:
    base = ECOSYSTEM_OBJECTIVES
    sides = []
    for i in range(64):
        obj: dict[str, Any] = dict(base[i % len(base)])
        if i >= len(base) and obj.get("table") is None:  # second copies: a slightly different rate
            obj["vp"] = obj["vp"] + 1
        sides.append({"name": REGIONS[i], "card": i // 2, **{k: obj.get(k) for k in
                                                             ("measure", "arg", "per", "vp", "max", "table")}})
    return sides


def build() -> dict[str, dict]:
    from tabletop_envs.earth.text import ability_text, objective_text

    rng = np.random.default_rng(SEED)
    earth = make_flora(rng) + make_terrain(rng) + make_events(rng)
    for i, c in enumerate(earth):
        c["id"] = i
        c["text"] = " ".join(ability_text(a) for a in c["abilities"])
    islands, climates = make_islands(rng), make_climates(rng)
    for lst in (islands, climates):
        for i, c in enumerate(lst):
            c["id"] = i
            c["text"] = " ".join(ability_text(a) for a in c["abilities"])
    fauna, ecosystems = make_fauna(rng), make_ecosystems(rng)
    for lst, kind in ((fauna, "fauna"), (ecosystems, "ecosystem")):
        for i, c in enumerate(lst):
            c["id"] = i
            c["text"] = objective_text(c, kind)
    return {"earth_cards.json": {"cards": earth}, "islands.json": {"islands": islands},
            "climates.json": {"climates": climates}, "fauna.json": {"fauna": fauna},
            "ecosystems.json": {"ecosystems": ecosystems}}


def main(argv: list[str] | None = None) -> None:
    import argparse

    # no options: parsed so that --help explains instead of rewriting the files (found by a docs audit)
    argparse.ArgumentParser(prog="python -m tabletop_envs.earth.data.generate", description=(
        "Rewrite Earth's catalogue (earth_cards.json, islands.json, climates.json, fauna.json, ecosystems.json "
        "next to this script) from its deterministic generator; the same code writes the same files.")
    ).parse_args(argv)
    for name, data in build().items():
        (HERE / name).write_text(json.dumps(data, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
        print("wrote", HERE / name)


if __name__ == "__main__":
    main()
