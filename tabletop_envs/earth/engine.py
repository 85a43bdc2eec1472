"""The Earth rules engine: setup, the four actions, ability activation, anytime events and conversion,
fauna objectives, end of game and scoring.

The game runs as a queue of small tasks (``self.queue``, front first). A *decision* task waits for one
seat's action; an *automatic* task runs immediately. Compound choices (which card, which cell, which
flora gets each sprout or growth, which abilities to activate, what to pay) are sequences of these
decisions, each with its own mask. Anytime options (play an event, convert 3 sprouts to 2 soil) are
offered at the decision points listed in ``ANYTIME_DECISIONS``, at the active player's placement in the
Watering and Growing rows (a ``place`` task marked ``anytime``; no conversion while Watering) and in an
end-of-turn window.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

import numpy as np

from tabletop_envs.core.engine import (
    TERMINAL,
    Game,
    InvariantError,
    State,
    check_flags,
    check_num_players,
    check_seat,
    invariant,
    new_rng,
)
from tabletop_envs.core.errors import ConfigError, is_int
from tabletop_envs.core.files import parse_json, read_json_text
from tabletop_envs.core.layout import ActionLayout, ObservationLayout

from . import scoring
from .catalogue import (
    ACTION_COLOUR,
    ACTIONS,
    COLOURS,
    DATA,
    NUM_CLIMATES,
    NUM_EARTH,
    NUM_ECOSYSTEMS,
    NUM_EVENTS,
    NUM_FLORA,
    NUM_ISLANDS,
    NUM_TERRAIN,
    STATIC_FEATURES,
    load_catalogue,
)
from .scoring import DIR_CELLS, matches

NUM_PLANTABLE = NUM_FLORA + NUM_TERRAIN
EVENT0 = NUM_PLANTABLE  # first event card id
ISLAND_SLOT, CLIMATE_SLOT = 32, 34  # activation slots: 0..31 tableau (cell*2 + ability), 32-33 island, 34-35 climate
NUM_SLOTS = 36
MAX_SEATS = 5

DECISIONS = ("side", "setup_compost", "action", "plant", "plant_cell", "keep", "option", "place", "pay",
             "pay_hand", "compost_hand", "activate", "copy", "window", "pay_method")
# decision points where a player may also play an event or convert sprouts (never mid-ability)
ANYTIME_DECISIONS = frozenset({"action", "plant", "option", "activate", "window"})
#: the count (scoring.measure) behind each resource a cost can name
PAYABLE_COUNTS = {"soil": "soil", "sprouts": "sprouts", "growth": "growth", "hand_compost": "hand",
                  "compost_discard": "compost"}
OPTION_LABELS = {"compost": ("gain 2 soil", "compost 2 from the deck"),
                 "water": ("place up to 2 sprouts", "gain 2 soil"),
                 "grow": ("draw 2 cards", "place up to 2 growth")}
REWARD_MODES = ("rank", "vp_margin")
#: objective counts that can fall during a turn (spent, paid, converted, planted from hand, covered with pieces);
#: every other count only grows (the tableau and the event stack only gain cards)
FALLING_MEASURES = frozenset({"soil", "hand", "compost", "sprouts", "growth", "flora_growth_ge", "flora_sprouts_ge",
                              "flora_full", "flora_bare", "canopies", "lines_diff_sprouts", "lines_diff_growth"})
#: the only steps that make one of those counts fall: decisions (planting pays soil from a hand card, paying,
#: composting from hand, placing a piece on a bare flora) and automatic payments; playing an event (hand) too
FALLING_DECISIONS = frozenset({"plant_cell", "pay_method", "pay", "pay_hand", "compost_hand", "place"})
FALLING_OPS = frozenset({"pay_soil", "compost_discard", "compost_draw"})
#: the cost resource (``COST_RES``) that each gained resource can help to pay
GAIN_PAYS = {"soil": "soil", "sprouts": "sprouts", "growth": "growth", "draw": "hand_compost",
             "compost_draw": "hand_compost", "compost_deck": "compost_discard", "compost_hand": "compost_discard"}
#: the automatic tasks' ``op`` (``_auto_auto``): a gain's resource, or a cost paid without a choice
AUTO_OPS = ("soil", "pay_soil", "draw", "compost_deck", "compost_discard", "compost_draw")
#: the colours an activation is for: the chosen action's, or black for a card just planted
ACTIVATION_COLOURS = (*ACTION_COLOUR.values(), "black")
#: setup's tasks in the order they are queued (every seat's sides, every draw, every compost, the finish)
SETUP_TASKS = ("side", "setup_draw", "setup_compost", "setup_finish")
#: a key a task may lack: a seat's setup compost learns its count from the island at the seat's setup draw,
#: and only the active player's placement in the Watering and Growing rows is marked ``anytime`` (events offered
#: there; conversion too, except while Watering)
OPTIONAL_TASK_KEYS = {"setup_compost": frozenset({"left"}), "place": frozenset({"anytime"})}
#: the turn's own steps, each with the queue's last tasks while it is queued and the stage it belongs to
TURN_STEPS = {"action": (["action"], "choose"),
              "activation_start": (["activation_start", "turn_end"], "rows"),
              "turn_end": (["turn_end"], "activation"), "fauna_check": (["fauna_check"], "end")}


def _int_in(lo: int, hi: int | None = None, what: str = "") -> tuple:
    """(check, description) of a task key holding an int from ``lo`` to ``hi`` (None: no bound), no bool."""
    def ok(v) -> bool:
        return type(v) is int and v >= lo and (hi is None or v <= hi)
    return ok, what or (f"an int from {lo} to {hi}" if hi is not None else f"an int >= {lo}")


def _one_of(*values: str) -> tuple:
    return (lambda v: type(v) is str and v in values), "one of " + ", ".join(map(repr, values))


def _cells(v) -> bool:
    return type(v) is list and all(type(c) is int and 0 <= c < 16 for c in v) and len(set(v)) == len(v)


def _placed(v) -> bool:
    return type(v) is list and len(v) == 16 and all(type(c) is int and c >= 0 for c in v)


def task_schema(num_players: int, cat) -> dict[str, dict[str, tuple]]:
    """Each kind of queued task (``t``, one per decision and per ``_auto_*`` step) and its other keys, each
    with (check, description) of what the code that queues the task puts there: ``from_dict`` refuses a
    saved queue holding anything else (a task the game never queues failed later, in play, as a Python
    error, a mask with no legal action or an observation outside its space)."""
    seat = _int_in(0, num_players - 1, f"a seat from 0 to {num_players - 1}")
    no_seat = _int_in(-1, -1, "-1 (a step of the game, no seat's)")
    count = _int_in(1)  # costs, gains and picks left: a task whose count reaches 0 leaves the queue
    pieces = _one_of("sprouts", "growth")
    colour = _one_of(*ACTIVATION_COLOURS)
    flag = (lambda v: type(v) is bool), "true or false"
    return {
        "side": {"p": seat, "what": _one_of("island", "climate", "ecosystem")},
        "setup_draw": {"p": seat},
        "setup_compost": {"p": seat, "left": _int_in(0, max(i["compost"] for i in cat.islands))},
        "setup_finish": {"p": no_seat},
        "action": {"p": seat},
        "plant": {"p": seat, "left": _int_in(1, 2)},  # the active seat plants up to 2, the others 1
        "plant_cell": {"p": seat, "card": _int_in(0, NUM_PLANTABLE - 1, "a flora or terrain card")},
        "draw_keep": {"p": seat, "n": count},
        "keep": {"p": seat},
        "option": {"p": seat},
        # an "each" placement on no matching card places nothing: 0 left
        "place": {"p": seat, "res": pieces, "left": _int_in(0), "cap": _int_in(0),
                  "cells": (_cells, "a list of distinct cells 0-15"),
                  "placed": (_placed, "16 counts >= 0, one per cell"), "anytime": (lambda v: v is True, "true")},
        "pay": {"p": seat, "res": pieces, "left": count},
        "pay_hand": {"p": seat, "left": count},
        "compost_hand": {"p": seat, "left": count},
        "pay_method": {"p": seat, "left": count, "res": _one_of("hand_compost", "sprouts", "growth")},
        "activate": {"p": seat, "colour": colour, "tn": _int_in(0, ISLAND_SLOT),
                     "icn": _int_in(0, NUM_SLOTS - ISLAND_SLOT), "tc": flag, "icc": flag,
                     "only": _int_in(-1, 15, "-1 or the cell of the card just planted")},
        "copy": {"p": seat, "cell": _int_in(0, 15), "colour": colour},
        "window": {"p": seat},
        "auto": {"p": seat, "op": _one_of(*AUTO_OPS), "n": count},
        "activation_start": {"p": no_seat},
        "turn_end": {"p": no_seat},
        "fauna_check": {"p": no_seat},
    }


class EarthGame(Game):
    """Earth for 1-5 players.

    Args:
        num_players: 1-5.
        reward: ``"rank"`` (winner +1 … last -1, linear in rank, ties share the mean) or ``"vp_margin"``
            (own VP minus the mean VP of the others). Solo play always returns the final VP.
        advanced_draft: deal 2 islands, 2 climates and 2 ecosystems to each player to choose 1 of each.
        fauna_side: ``"normal"`` (15/11/8/6/5 VP by order) or ``"beginner"`` (10 VP to every achiever).
        max_rounds: safety end of game after this many rounds (scored normally); see RULES.md.
        data_dir: alternative catalogue folder (validated on load).
    """

    env_name = "earth_v0"
    decisions = DECISIONS
    player_counts = (1, 2, 3, 4, 5)
    default_max_turns = 1000

    @classmethod
    def trained_covers(cls, option: str, trained, here) -> bool:
        if option == "data_dir" and trained != here:
            # the shipped cards under another name (the shipped folder, a copy of it): the cards the model learnt
            return _card_files(trained) is not None and _card_files(trained) == _card_files(here)
        return super().trained_covers(option, trained, here)

    def __init__(self, num_players: int = 2, reward: str = "rank", advanced_draft: bool = False,
                 fauna_side: str = "normal", max_rounds: int = 100, data_dir: str | None = None):
        check_num_players(num_players, self.player_counts, "Earth is for 1-5 players")
        # str first: a NumPy str array equal to one passed ``in`` and then broke config()'s JSON (state_dict,
        # replays, sidecars), and a longer one made ``in`` an "ambiguous truth value" error
        if not isinstance(reward, str) or reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        check_flags(advanced_draft=advanced_draft)
        if not isinstance(fauna_side, str) or fauna_side not in ("normal", "beginner"):
            raise ConfigError(f"fauna_side must be 'normal' or 'beginner', got {fauna_side!r}")
        if not is_int(max_rounds) or max_rounds < 1:  # numpy ints too, as num_players takes them
            raise ConfigError(f"max_rounds must be a positive int, got {max_rounds!r}")
        # a PathLike may stand for bytes, which config() could not write into a replay's JSON
        if data_dir is not None and (not isinstance(data_dir, (str, os.PathLike))
                                     or not isinstance(os.fspath(data_dir), str) or not os.fspath(data_dir)):
            # "" loaded the shipped cards while config() recorded "" as the folder
            raise ConfigError(f"data_dir must be None (the shipped catalogue) or a folder path, got {data_dir!r}")
        self.num_players = int(num_players)
        self.reward = reward
        self.advanced_draft = bool(advanced_draft)
        self.fauna_side = fauna_side
        self.max_rounds = int(max_rounds)  # a plain int: config() goes into JSON
        # the env faces' cut, in player turns: never before max_rounds ends and scores the game (at 5 players
        # max_rounds=201 ran past the class's 1000, and a game the rules end was truncated with reward 0)
        self.default_max_turns = max(type(self).default_max_turns, self.max_rounds * self.num_players)
        # a str: config() goes into replays and sidecars as JSON, where a Path cannot; absolute: a relative
        # one recorded there named the cards of whatever folder the replaying process started in
        self.data_dir = None if data_dir is None else os.path.abspath(os.fspath(data_dir))
        self.cat = load_catalogue(self.data_dir)
        self.zero_sum = num_players >= 2
        self.action_layout = build_action_layout(self.cat)
        self.observation_layout = build_observation_layout()
        al = self.action_layout
        self.A = {name: al.start[name] for name in al.segments}
        cat = self.cat
        # the catalogue's plantable cards and distinct event costs, cheapest first: whether a seat is asked
        # to plant or given the end-of-turn window depends on these and public counts, never on its hand
        self.plantable_by_cost = sorted((c for c in range(NUM_EARTH) if cat.plantable_l[c]), key=cat.cost_l.__getitem__)
        event_costs = {tuple(sorted((cat.earth[c]["abilities"][0].get("cost") or {}).items()))
                       for c in range(NUM_EARTH) if cat.is_event_l[c]}
        self.event_costs = [dict(k) for k in sorted(event_costs, key=lambda k: (sum(n for _, n in k), k))]
        # each event's cost with the cost resources its gains can help to pay (solo play reads the hand's), and
        # each distinct cost with all its events' resources: whether a seat of a game of several is asked its
        # activation because an event might pay for an ability depends on these, never on its hand
        self.event_offer = {}
        offers: dict = {}
        for c in range(NUM_EARTH):
            if cat.is_event_l[c]:
                a = cat.earth[c]["abilities"][0]
                cost, gains = a.get("cost") or {}, frozenset(GAIN_PAYS[g["res"]] for g in a.get("gain") or ())
                self.event_offer[c] = (cost, gains)
                offers.setdefault(tuple(sorted(cost.items())), set()).update(gains)
        self.event_offers = [(dict(k), frozenset(v)) for k, v in sorted(offers.items())]
        self.task_schema = task_schema(self.num_players, cat)
        # the keys each kind of task must have
        self.task_keys = {t: frozenset(keys) - OPTIONAL_TASK_KEYS.get(t, frozenset())
                          for t, keys in self.task_schema.items()}

    def config(self) -> dict:
        return {"num_players": self.num_players, "reward": self.reward, "advanced_draft": self.advanced_draft,
                "fauna_side": self.fauna_side, "max_rounds": self.max_rounds, "data_dir": self.data_dir}

    @classmethod
    def layout_config(cls, config: dict) -> dict:
        # a catalogue is validated to the shipped card counts, so the layouts never depend on data_dir; a model
        # trained on a folder of its own (recorded as that machine's path, or relative to where it ran) was
        # refused wherever the folder was not at that path, as if its sidecar had been edited
        return {k: v for k, v in config.items() if k != "data_dir"}

    def new_initial_state(self, seed: int | None = None) -> EarthState:
        return EarthState(self, seed)

    def __reduce__(self):
        # pickled by its options: the catalogue is reloaded (validated, shared) rather than copied
        return (_game_from_config, (self.config(),))


def build_action_layout(cat) -> ActionLayout:
    names = cat.names
    return ActionLayout([
        ("side_island", NUM_ISLANDS, "setup: choose this island side (of a card you were dealt)",
         [f"island side {s['name']}" for s in cat.islands]),
        ("side_climate", NUM_CLIMATES, "setup: choose this climate side", [f"climate side {s['name']}"
                                                                            for s in cat.climates]),
        ("side_ecosystem", NUM_ECOSYSTEMS, "setup: choose this personal ecosystem side",
         [f"ecosystem side {s['name']}" for s in cat.ecosystems]),
        ("action", 4, "active player: choose Planting / Composting / Watering / Growing", list(ACTIONS)),
        ("plant", NUM_PLANTABLE, "plant this flora/terrain card from hand (by catalogue id)",
         [f"plant {n}" for n in names[:NUM_PLANTABLE]]),
        ("cell", 16, "tableau cell row*4+col: where to plant / place / remove a sprout or growth",
         [f"cell r{i // 4}c{i % 4}" for i in range(16)]),
        ("card", NUM_EARTH, "pick this card (keep from the draw, compost from hand, pay with it)",
         [f"card {n}" for n in names]),
        ("activate", NUM_SLOTS, "activate this ability: tableau cell*2+k, 32-33 island, 34-35 climate",
         [f"activate cell r{i // 8}c{(i // 2) % 4} ability {i % 2}" for i in range(32)]
         + ["activate island ability 0", "activate island ability 1", "activate climate ability 0",
            "activate climate ability 1"]),
        ("event", NUM_EVENTS, "anytime: play this event from hand to your event stack",
         [f"play event {n}" for n in names[EVENT0:]]),
        ("convert", 1, "anytime: convert 3 sprouts in your tableau to 2 soil", ["convert 3 sprouts to 2 soil"]),
        ("option", 2, "binary choice: other players' row (Composting: 2 soil / compost 2; Watering: 2 sprouts / "
         "2 soil; Growing: draw 2 / 2 growth) or paying a cost with soil / the card's alternative",
         ["option A (soil / sprouts / draw / pay soil)", "option B (compost / soil / growth / pay alternative)"]),
        ("pass", 1, "stop / decline / end activation / end window", ["pass"]),
    ])


def build_observation_layout() -> ObservationLayout:
    S = MAX_SEATS
    return ObservationLayout([
        ("phase", 3, 0, 1, "one-hot: setup, play, over"),
        ("decision", len(DECISIONS), 0, 1, f"my pending decision one-hot {DECISIONS} (zeros if not mine)"),
        ("decider", S, 0, 1, "seat (relative to me) whose decision is pending"),
        ("active", S, 0, 1, "active player, relative seat"),
        ("first", S, 0, 1, "first player token, relative seat"),
        ("seats_in_game", S, 0, 1, "1 for relative seats that exist"),
        ("action", 4, 0, 1, "the action chosen this turn"),
        ("activation_colour", len(COLOURS), 0, 1, "colour being activated in my pending activation"),
        ("pending_count", 1, 0, 1, "pieces / cards left in my pending decision / 12 (clipped)"),
        ("pending_card", NUM_EARTH, 0, 1, "the card I am planting (my plant_cell decision)"),
        ("round", 1, 0, 1, "rounds played / 100 (clipped)"),
        ("end_triggered", 1, 0, 1, "someone completed 16 cards: this is the last round"),
        ("deck", 2, 0, 1, "draw pile and discard sizes / 283"),
        ("hand", NUM_EARTH, 0, 1, "my hand (multi-hot by catalogue id)"),
        ("drawn", NUM_EARTH, 0, 1, "cards I drew and must choose from (draw 4 keep 1)"),
        ("my_known_compost", NUM_EARTH, 0, 1, "cards I composted from my hand (still in my compost)"),
        ("my_ecosystem", NUM_ECOSYSTEMS, 0, 1, "my personal ecosystem side (or the sides I may choose in setup)"),
        ("my_offers", NUM_ISLANDS + NUM_CLIMATES, 0, 1, "island and climate cards dealt to me, both sides (all setup; my choices show in `island`, `climate`)"),
        ("public_ecosystems", NUM_ECOSYSTEMS, 0, 1, "the 2 public ecosystem sides"),
        ("fauna", (4, 46), 0, 1, "fauna side on each of the 4 fauna spaces"),
        ("fauna_leaves", (4, S), 0, 1, "leaf of relative seat s on fauna space f, value (6 - order)/5"),
        ("bonus", S, 0, 1, "relative seat holding the first-completion 7 VP leaf"),
        ("resources", (S, 6), 0, 1, "per seat: soil/40, hand/30, compost/30, events/10 (each clipped at 1), cards/16, is the active player"),
        ("last_action", (S, 4), 0, 1, "per seat: leaf marker of the action chosen last"),
        ("island", (S, NUM_ISLANDS), 0, 1, "per seat: island side (others' hidden during setup)"),
        ("climate", (S, NUM_CLIMATES), 0, 1, "per seat: climate side (others' hidden during setup)"),
        ("event_stack", (S, NUM_EVENTS), 0, 1, "per seat: events played (public)"),
        ("tableau_cards", (S, NUM_PLANTABLE), 0, 1, "per seat: cards in the tableau (multi-hot)"),
        ("cells", (S, 16, STATIC_FEATURES + 2), 0, 1,
         "per seat and cell: static card features (occupied, cost, VP, growth max, canopy, sprout spaces, "
         "terrain, 4 types, 4 habitats, 7 colours) then sprouts/6 and growth/8"),
    ])


class EarthState(State):
    """One position of Earth. All fields are JSON types (see the core contract)."""

    game: EarthGame
    _transient: ClassVar[tuple[str, ...]] = ("game", "_mask_cache")
    # per Earth card, how many reshuffles of the discard had happened when it last went into the draw pile
    # (the pile it was drawn from); and for each reshuffle, each seat's smallest compost size since it (a card
    # lying at or above that size was composted after it and may come from the pile it made; one below, from a
    # hand before it, cannot): both gained at the first reshuffle
    _optional_fields = ("deck_epoch", "compost_marks")

    def __init__(self, game: EarthGame, seed: int | None = None):
        self.game = game
        self.rng = new_rng(seed)
        self._mask_cache = None
        n = self.n = game.num_players
        cat = game.cat
        self.phase = "setup"
        deck = list(range(NUM_EARTH))
        self.rng.shuffle(deck)
        self.deck = [int(c) for c in deck]
        self.discard: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.drawn: list[list[int]] = [[] for _ in range(n)]
        self.compost: list[list[int]] = [[] for _ in range(n)]
        # owner saw this compost card (it came from their hand)
        self.compost_known: list[list[bool]] = [[] for _ in range(n)]
        self.events: list[list[int]] = [[] for _ in range(n)]
        self.grid = [[-1] * 16 for _ in range(n)]
        self.spr = [[0] * 16 for _ in range(n)]
        self.gro = [[0] * 16 for _ in range(n)]
        self.soil = [0] * n
        self.island = [-1] * n
        self.climate = [-1] * n
        self.eco = [-1] * n
        self.last_action = [-1] * n
        self.planted: list[list[int]] = [[] for _ in range(n)]
        # fauna board: 4 fauna cards, either side up; 2 public ecosystems, either side up
        fauna_cards = self.rng.choice(len(cat.fauna) // 2, 4, replace=False)
        self.fauna = [int(c) * 2 + int(self.rng.integers(2)) for c in fauna_cards]
        self.leaves: list[list[int]] = [[] for _ in range(4)]
        # seats that fulfilled each fauna objective at some point of the current turn (claimed at its end)
        self.fauna_seen: list[list[int]] = [[] for _ in range(4)]
        eco_cards = [int(c) for c in self.rng.permutation(len(cat.ecosystems) // 2)]
        self.public_eco = [c * 2 + int(self.rng.integers(2)) for c in eco_cards[:2]]
        k = 2 if game.advanced_draft else 1
        self.offers = {"ecosystem": [eco_cards[2 + p * k: 2 + (p + 1) * k] for p in range(n)]}
        for what, total in (("climate", len(cat.climates) // 2), ("island", len(cat.islands) // 2)):
            cards = [int(c) for c in self.rng.permutation(total)]
            self.offers[what] = [cards[p * k:(p + 1) * k] for p in range(n)]
        self.first = int(self.rng.integers(n))
        self.active = self.first
        self.action = -1
        self.stage = "setup"
        self.bonus = -1
        self.end_triggered = False
        self.turns = 0
        self.rounds = 0
        self.scores: list[int] | None = None
        self.queue: list[dict] = []
        order = self.order_from(self.first)
        for p in order:
            for what in ("island", "climate", "ecosystem"):
                self.queue.append({"t": "side", "p": p, "what": what})
        for p in order:
            self.queue.append({"t": "setup_draw", "p": p})
        for p in order:
            self.queue.append({"t": "setup_compost", "p": p})
        self.queue.append({"t": "setup_finish", "p": -1})
        self._run()

    # ================================================================== helpers
    def order_from(self, start: int) -> list[int]:
        """Seats in clockwise turn order starting with ``start``."""
        return [(start + i) % self.n for i in range(self.n)]

    @property
    def turn(self) -> int:
        return self.turns

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        return self.queue[0]["p"]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def decision(self) -> str:
        return "" if self.phase == "over" else self.queue[0]["t"]

    def _top_of_deck(self) -> int:
        """Next card of the draw pile; the discard (never the compost) is reshuffled when it runs out."""
        if not self.deck:
            if not self.discard:
                return -1
            # the discard is public: everyone saw which cards make up the new draw pile (resample_hidden)
            epoch = self.__dict__.setdefault("deck_epoch", [0] * NUM_EARTH)
            self.__dict__.setdefault("compost_marks", []).append([len(c) for c in self.compost])
            reshuffles = max(epoch) + 1
            for c in self.discard:
                epoch[c] = reshuffles
            self.deck = self.discard
            self.discard = []
            self.rng.shuffle(self.deck)
            self.deck = [int(c) for c in self.deck]
        return self.deck.pop()

    def draw(self, p: int, n: int, into: list | None = None) -> int:
        target = self.hands[p] if into is None else into
        got = 0
        for _ in range(n):
            c = self._top_of_deck()
            if c < 0:
                break
            target.append(c)
            got += 1
        return got

    def compost_from_deck(self, p: int, n: int) -> None:
        for _ in range(n):
            c = self._top_of_deck()
            if c < 0:
                return
            self.compost[p].append(c)
            self.compost_known[p].append(False)

    def _compost_pop(self, p: int) -> int:
        """Take the top compost card. A mark at or above the new size would date a card composted later
        before that reshuffle (resample's bound): each mark keeps the smallest size since its reshuffle."""
        self.compost_known[p].pop()
        card = self.compost[p].pop()
        for mark in self.__dict__.get("compost_marks", []):
            mark[p] = min(mark[p], len(self.compost[p]))
        return card

    def compost_from_hand(self, p: int, card: int) -> None:
        self.hands[p].remove(card)
        self.compost[p].append(card)
        self.compost_known[p].append(True)

    def abilities_of(self, p: int, slot: int) -> dict | None:
        cat = self.game.cat
        if slot < ISLAND_SLOT:
            card = self.grid[p][slot // 2]
            if card < 0:
                return None
            abs_ = cat.earth[card]["abilities"]
        elif slot < CLIMATE_SLOT:
            if self.island[p] < 0:
                return None
            abs_ = cat.islands[self.island[p]]["abilities"]
        else:
            if self.climate[p] < 0:
                return None
            abs_ = cat.climates[self.climate[p]]["abilities"]
        k = slot % 2
        return abs_[k] if k < len(abs_) else None

    def all_abilities(self, p: int):
        """(slot, ability) for every tableau card, the island and the climate of p."""
        cat = self.game.cat
        for cell, card in enumerate(self.grid[p]):
            if card >= 0:
                for k, a in enumerate(cat.earth[card]["abilities"]):
                    yield cell * 2 + k, a
        if self.island[p] >= 0:
            for k, a in enumerate(cat.islands[self.island[p]]["abilities"]):
                yield ISLAND_SLOT + k, a
        if self.climate[p] >= 0:
            for k, a in enumerate(cat.climates[self.climate[p]]["abilities"]):
                yield CLIMATE_SLOT + k, a

    def cost_reductions(self, p: int) -> list[tuple[dict, int]]:
        return [(a["filter"], a["n"]) for _, a in self.all_abilities(p) if a["kind"] == "cost_reduction"]

    def effective_cost(self, p: int, card: int, reductions: list | None = None) -> int:
        """Soil cost after brown cost reductions in p's area (never below 0)."""
        cat = self.game.cat
        cost = cat.cost_l[card]
        for f, n in (self.cost_reductions(p) if reductions is None else reductions):
            if matches(cat, card, f):
                cost -= n
        return max(cost, 0)

    def forbidden_actions(self, p: int) -> set:
        return {a["action"] for _, a in self.all_abilities(p) if a["kind"] == "forbid_action"}

    def legal_cells_to_plant(self, p: int) -> list[int]:
        """The first card goes anywhere; every later card touches a card orthogonally or diagonally."""
        grid = self.grid[p]
        if all(c < 0 for c in grid):
            return list(range(16))
        return [i for i in range(16) if grid[i] < 0 and any(grid[j] >= 0 for j in DIR_CELLS["adj"][i])]

    def room(self, p: int, cell: int, res: str) -> int:
        card = self.grid[p][cell]
        cat = self.game.cat
        if card < 0 or not cat.is_flora_l[card]:
            return 0
        if res == "sprouts":
            return cat.sprout_spaces_l[card] - self.spr[p][cell]
        return cat.max_growth_l[card] - self.gro[p][cell]

    def have(self, p: int, res: str) -> int:
        """How much of a payable resource p holds (the objectives' count of it). Counted only when
        asked: costs are checked for every ability slot and event card each time a decision's
        options are listed."""
        return scoring.measure(self, p, PAYABLE_COUNTS[res])

    def can_pay(self, p: int, cost: dict | None) -> bool:
        return all(self.have(p, res) >= n for res, n in (cost or {}).items())

    def can_pay_event(self, p: int, cost: dict | None) -> bool:
        """can_pay for an event's cost: the event leaves the hand when played, so cards composted from the hand
        are other cards (counting it let the event pay with itself, for free)."""
        return all(self.have(p, res) - (res == "hand_compost") >= n for res, n in (cost or {}).items())

    def count_per(self, p: int, per: dict, cell: int | None) -> int:
        cat = self.game.cat
        f = per.get("filter")
        if per["what"] == "planted":
            return sum(matches(cat, c, f) for c in self.planted[p])
        cells = DIR_CELLS[per["dir"]][cell] if cell is not None else range(16)
        return sum(self.grid[p][i] >= 0 and matches(cat, self.grid[p][i], f) for i in cells)

    def colour_matches(self, ability_colour: str, colour: str) -> bool:
        """Multicolour abilities match the Red, Blue and Yellow actions."""
        return ability_colour == colour or (ability_colour == "multi" and colour in ("red", "blue", "yellow"))

    def applies(self, p: int, a: dict, colour: str) -> bool:
        """Is ``a`` a gain ability p may activate for an action of ``colour`` (its condition met), cost aside?"""
        if a["kind"] != "gain" or not self.colour_matches(a["color"], colour):
            return False
        return not a.get("if_action") or (p == self.active and self.action >= 0
                                          and ACTIONS[self.action] == a["if_action"])

    def usable(self, p: int, a: dict, colour: str) -> bool:
        """Can p activate gain ability ``a`` for an action of ``colour`` now (condition met, cost payable)."""
        return self.applies(p, a, colour) and self.can_pay(p, a.get("cost"))

    def copy_sources(self, p: int, source_cell: int) -> list[tuple[int, dict]]:
        """The tableau ability slots (with their abilities) a copy ability on ``source_cell`` looks at: never
        the island or climate, never its own card."""
        return [(s, a) for s in range(ISLAND_SLOT) if s // 2 != source_cell and (a := self.abilities_of(p, s)) is not None]

    def copy_targets(self, p: int, source_cell: int, colour: str) -> list[int]:
        """Tableau ability slots a copy ability may copy (never the island or climate, never a copy)."""
        return [s for s, a in self.copy_sources(p, source_cell) if self.usable(p, a, colour)]

    def slot_usable(self, p: int, slot: int, colour: str) -> bool:
        a = self.abilities_of(p, slot)
        if a is None:
            return False
        if a["kind"] == "copy":
            return (slot < ISLAND_SLOT and self.colour_matches(a["color"], colour)
                    and bool(self.copy_targets(p, slot // 2, colour)))
        return self.usable(p, a, colour)

    # ================================================================== ability resolution
    def resolve(self, p: int, a: dict, cell: int | None) -> None:
        """Queue an ability's costs (paid first) then its gains, in front of the current task."""
        self.queue[0:0] = self.ability_tasks(p, a, cell)

    def ability_tasks(self, p: int, a: dict, cell: int | None) -> list[dict]:
        tasks = []
        for res, n in (a.get("cost") or {}).items():
            if res == "soil":
                tasks.append({"t": "auto", "p": p, "op": "pay_soil", "n": n})
            elif res == "compost_discard":
                tasks.append({"t": "auto", "p": p, "op": "compost_discard", "n": n})
            else:
                tasks.append(self.payment_task(p, res, n))
        for g in a["gain"]:
            mult = self.count_per(p, g["per"], cell) if g.get("per") else 1
            amount = g["n"] * mult
            if amount <= 0:
                continue
            res = g["res"]
            if res in ("sprouts", "growth"):
                tasks.append(self.place_task(p, res, amount, g.get("where"), cell))
            elif res == "compost_hand":
                tasks.append({"t": "compost_hand", "p": p, "left": amount})
            else:
                tasks.append({"t": "auto", "p": p, "op": res, "n": amount})
        return tasks

    def place_task(self, p: int, res: str, n: int, where: dict | None, cell: int | None) -> dict:
        cat = self.game.cat
        cap = 0
        if where is None:
            cells = list(range(16))
        else:
            # an island's, climate's or event's ability has no cell: the catalogue allows it only "dir": "all",
            # whose cells are the same from any cell (its filter and "each" were dropped with the direction)
            cells = [i for i in DIR_CELLS[where["dir"]][0 if cell is None else cell]
                     if self.grid[p][i] >= 0 and matches(cat, self.grid[p][i], where.get("filter"))]
            if where.get("each"):
                cap = n
                n = n * len(cells)
        return {"t": "place", "p": p, "res": res, "left": n, "cells": cells, "cap": cap, "placed": [0] * 16}

    def place_cells(self, task: dict) -> list[int]:
        p, res, cap = task["p"], task["res"], task["cap"]
        return [i for i in task["cells"] if self.room(p, i, res) > 0 and (not cap or task["placed"][i] < cap)]

    def play_event(self, p: int, card: int) -> None:
        """An event goes to the event stack; its effect, then any "whenever you play an event" abilities."""
        self.hands[p].remove(card)
        self.events[p].append(card)
        tasks = self.ability_tasks(p, self.game.cat.earth[card]["abilities"][0], None)
        for slot, a in self.all_abilities(p):
            if a["kind"] == "on_event":  # gains as a gain ability's (the catalogue allows it no cost or condition)
                tasks += self.ability_tasks(p, {"gain": a["gain"]}, slot // 2 if slot < ISLAND_SLOT else None)
        self.queue[0:0] = tasks

    # ================================================================== the scheduler
    def _run(self) -> None:
        """Run automatic tasks until a decision that is asked is at the front (or the game ends)."""
        while self.phase != "over":
            if not self.queue:
                self._end_turn()
                continue
            task = self.queue[0]
            t = task["t"]
            if t in DECISIONS:
                if self._has_choice(task):
                    return
                self.queue.pop(0)
                continue
            self.queue.pop(0)
            if t == "auto" and task["op"] in FALLING_OPS:
                self._note_fauna(task["p"])
            getattr(self, "_auto_" + t)(task)

    def _note_fauna(self, p: int) -> None:
        """Record the fauna objectives p fulfils now: "at the end of a turn in which a player fulfills an
        objective" they claim it, even if it is no longer met when the turn ends. Called just before every step
        that can make one of p's counts fall (``FALLING_DECISIONS``, ``FALLING_OPS``, playing an event): between
        two such steps p's counts only grow, so the state before a fall, or at the end of the turn, is the
        highest; this sees every moment of the turn at which p met an objective."""
        if p < 0 or self.phase != "play":
            return
        fauna = self.game.cat.fauna
        for slot, side in enumerate(self.fauna):
            # counts that never fall during a turn (cards planted, events played) are seen at its end anyway
            if fauna[side]["measure"] in FALLING_MEASURES and p not in self.fauna_seen[slot] \
                    and p not in self.leaves[slot] and scoring.fauna_met(self, p, side):
                self.fauna_seen[slot].append(p)

    def _has_choice(self, task: dict) -> bool:
        """Is this decision asked? If so its mask is built now (the env asks for it next).

        A decision is skipped only when what every other seat can see shows it offers no choice: who
        is asked is public (agent_selection, the observation's ``decider``), so it must never depend
        on a hand's contents. The window and planting are asked whenever the seat *could* have a
        choice (``_may_play_event``, ``_may_plant``), even if its hand turns out to allow only pass;
        every other decision's choices are public (tableaux, pieces, soil, counts, own drawn cards).
        An activation (a planting) is also asked where an event played now might pay for one of its
        abilities (a card to plant): ``_event_may_pay`` (``_event_may_pay_plant``), judged the same way.
        Solo play has no other seat to hide the hand from: there the hand decides, as it always did.
        """
        choices = self._choices(task)
        anytime = None
        t, p = task["t"], task["p"]
        if t == "window":
            anytime = self._anytime_options(p, task)
            asked = anytime[1] or (self._may_play_event(p) if self.n > 1 else bool(anytime[0]))
        elif t == "plant":
            asked = self._may_plant(p) if self.n > 1 else bool(choices)
        else:
            asked = bool(choices)
        if not asked and (self._event_may_pay(p, task) if t == "activate" else
                          self._event_may_pay_plant(p) or self._event_may_bring_plant(p) if t == "plant" else
                          t == "place" and self._event_may_make_room(p, task)):
            # "Events can be played at any time ... between the activation of 2 abilities": asked where playing
            # an event now might pay for an ability of this activation, or for a card to plant, that p cannot
            # pay for yet, or free room for the active player's sprouts or growth in the rows (judged, with more
            # than one seat, on the catalogue's events and public counts, as the window is)
            asked = True
        if not asked and t in ("plant", "activate") and self._may_convert(p, task):
            # Converting sprouts is legal at this decision and its soil may pay for a card or an ability
            # that the soil held now cannot: asked when it would (judged on the sprouts and soil, which
            # every seat sees). Converting spends sprouts too, so now and then only pass and convert help.
            gain = 2 * (sum(self.spr[p]) // 3)
            self.soil[p] += gain
            try:
                asked = self._may_plant(p) if t == "plant" and self.n > 1 else bool(self._choices(task))
            finally:
                self.soil[p] -= gain
        if asked:
            mask = self._build_mask(task, choices, anytime)
            # read-only, as State.legal_action_mask caches it: it is handed out as info["action_mask"]
            mask.setflags(write=False)
            self._mask_cache = mask
        return asked

    def _may_plant(self, p: int) -> bool:
        """Could p plant a card now, as far as the other seats can tell: a legal cell, a card in hand, and
        some plantable card of the catalogue p could pay for (soil, reductions, alternative costs)."""
        if not self.hands[p] or not self.legal_cells_to_plant(p):
            return False
        red = self.cost_reductions(p)
        return any(self.pay_methods(p, c, self.effective_cost(p, c, red)) for c in self.game.plantable_by_cost)

    def _event_may_pay(self, p: int, task: dict) -> bool:
        """Might an event played now pay (part of) the cost of an ability p may still activate in this
        activation but cannot pay for yet? With more than one seat, judged on a card in hand and the
        catalogue's events whose cost p can pay (public); in solo play on the events in the hand."""
        if not self.hands[p]:
            return False
        colour = task["colour"]
        missing: set = set()
        for slot in self._activation_candidates(task):
            a = self.abilities_of(p, slot)
            if a is None:
                continue
            if a["kind"] == "copy":
                if slot < ISLAND_SLOT and self.colour_matches(a["color"], colour):
                    for _, b in self.copy_sources(p, slot // 2):
                        missing |= self._unpaid(p, b, colour)
            else:
                missing |= self._unpaid(p, a, colour)
        return self._event_may_gain(p, missing)

    def _event_may_pay_plant(self, p: int) -> bool:
        """Might an event played now pay for a card p cannot plant yet (soil, or the card's alternative
        cost)? The event leaves the hand, so a second card must stay there. With more than one seat, judged
        on the catalogue's plantable cards and events (public); in solo play on the hand."""
        hand = self.hands[p]
        if len(hand) < 2 or not self.legal_cells_to_plant(p):
            return False
        cat = self.game.cat
        cards = self.game.plantable_by_cost if self.n > 1 else [c for c in set(hand) if cat.plantable_l[c]]
        if not cards:
            return False
        alternatives = {cat.alt_cost_l[c] for c in cards} - {None}
        return self._event_may_gain(p, {"soil"} | alternatives)

    def _event_may_bring_plant(self, p: int) -> bool:
        """Solo play: might an event played now draw a card to plant? A black "draw" planted as the first card
        may draw an event that draws (Tsunami), and no decision of p's comes between that draw and the second
        planting: skipped on a hand with nothing plantable, the event could not be played before it (found by a
        rules audit). With more than one seat a hand holding a card is asked anyway (``_may_plant``)."""
        if self.n > 1 or not self.hands[p] or not self.legal_cells_to_plant(p):
            return False
        # gains that bring cards to the hand are the ones GAIN_PAYS files under the hand's cost resource
        return self._event_may_gain(p, {"hand_compost"})

    def _event_may_make_room(self, p: int, task: dict) -> bool:
        """Might an event played now, at the active player's Watering or Growing placement, free room for its
        sprouts or growth: one that pays that piece, which p can pay? With more than one seat, judged on a card
        in hand and the catalogue's events (public); in solo play on the events in the hand."""
        if not task.get("anytime") or not self.hands[p]:
            return False
        res = task["res"]
        return any(res in cost and self.can_pay_event(p, cost) for cost, _ in self._event_offers(p))

    def _event_offers(self, p: int) -> list[tuple[dict, frozenset]]:
        """The events whose play p's questions are judged on, as (cost, cost resources its gains help pay): with
        more than one seat the catalogue's (public), in solo play the hand's."""
        offer = self.game.event_offer
        return self.game.event_offers if self.n > 1 else [offer[c] for c in set(self.hands[p]) if c in offer]

    def _event_may_gain(self, p: int, missing: set) -> bool:
        """Could p pay for an event now that gains one of the ``missing`` cost resources? With more than one
        seat, judged on the catalogue's events (public); in solo play on the events in the hand."""
        if not missing:
            return False
        # "whenever you play an event" abilities of p's area gain too
        extra = {GAIN_PAYS[g["res"]] for _, a in self.all_abilities(p) if a["kind"] == "on_event" for g in a["gain"]}
        return any((gains | extra) & missing and self.can_pay_event(p, cost) for cost, gains in self._event_offers(p))

    def _unpaid(self, p: int, a: dict, colour: str) -> set:
        """The cost resources p lacks for gain ability ``a`` of this colour whose condition is met (else none)."""
        if not self.applies(p, a, colour):
            return set()
        return {res for res, n in (a.get("cost") or {}).items() if self.have(p, res) < n}

    def _may_play_event(self, p: int) -> bool:
        """Could p play an event now, as far as the other seats can tell: a card in hand, and some event
        of the catalogue whose cost p can pay."""
        return bool(self.hands[p]) and any(self.can_pay_event(p, cost) for cost in self.game.event_costs)

    # ------------------------------------------------------------------ automatic tasks
    def _auto_auto(self, task: dict) -> None:
        p, n, op = task["p"], task["n"], task["op"]
        if op == "soil":
            self.soil[p] += n
        elif op == "pay_soil":
            self.soil[p] -= n
        elif op == "draw":
            self.draw(p, n)
        elif op == "compost_deck":
            self.compost_from_deck(p, n)
        elif op == "compost_discard":
            for _ in range(n):
                self.discard.append(self._compost_pop(p))
        elif op == "compost_draw":
            for _ in range(min(n, len(self.compost[p]))):
                self.hands[p].append(self._compost_pop(p))
        else:
            raise AssertionError(f"unknown automatic op {op!r}")

    def _auto_setup_draw(self, task: dict) -> None:
        p = task["p"]
        island = self.game.cat.islands[self.island[p]]
        self.draw(p, island["draw"])
        for t in self.queue:
            if t["t"] == "setup_compost" and t["p"] == p:
                t["left"] = island["compost"]

    def _auto_setup_finish(self, task: dict) -> None:
        for p in range(self.n):
            self.soil[p] += self.game.cat.islands[self.island[p]]["soil"]
        self.phase = "play"
        self.stage = "choose"
        self.queue.append({"t": "action", "p": self.active})

    def _auto_draw_keep(self, task: dict) -> None:
        p = task["p"]
        if self.draw(p, task["n"], into=self.drawn[p]):
            self.queue.insert(0, {"t": "keep", "p": p})

    def _auto_activation_start(self, task: dict) -> None:
        self.stage = "activation"
        colour = ACTION_COLOUR[ACTIONS[self.action]]
        self.queue[0:0] = [{"t": "activate", "p": q, "colour": colour, "tn": 0, "icn": 0, "tc": False,
                            "icc": False, "only": -1} for q in self.order_from(self.active)]

    def _auto_turn_end(self, task: dict) -> None:
        self.stage = "end"
        self.queue[0:0] = [{"t": "window", "p": q} for q in self.order_from(self.active)]
        self.queue.append({"t": "fauna_check", "p": -1})

    def _auto_fauna_check(self, task: dict) -> None:
        """Highest available tier for everyone who fulfilled an objective during the turn (now or earlier in
        it); simultaneous achievers placed clockwise from the active player."""
        for q in self.order_from(self.active):
            for slot, side in enumerate(self.fauna):
                if q not in self.leaves[slot] and (q in self.fauna_seen[slot] or scoring.fauna_met(self, q, side)):
                    self.leaves[slot].append(q)
        self.fauna_seen = [[] for _ in range(4)]
        complete = [q for q in self.order_from(self.active) if all(c >= 0 for c in self.grid[q])]
        if complete:
            self.end_triggered = True
            if self.bonus < 0:
                self.bonus = complete[0]

    def _end_turn(self) -> None:
        self.turns += 1
        self.planted = [[] for _ in range(self.n)]
        self.action = -1
        self.stage = "choose"
        nxt = (self.active + 1) % self.n
        if nxt == self.first:
            self.rounds += 1
            if self.end_triggered or self.rounds >= self.game.max_rounds:
                self._game_over()
                return
        self.active = nxt
        self.queue.append({"t": "action", "p": nxt})

    def _game_over(self) -> None:
        self.phase = "over"
        self.queue = []
        self.scores = [scoring.final_score(self, p) for p in range(self.n)]

    # ------------------------------------------------------------------ the four actions
    def _start_action(self, p: int, action: int) -> None:
        self.action = action
        self.last_action[p] = action
        self.stage = "rows"
        others = self.order_from(p)[1:]
        name = ACTIONS[action]
        q = []
        if name == "plant":
            q.append({"t": "plant", "p": p, "left": 2})
            q.append({"t": "draw_keep", "p": p, "n": 4})
            # "3. All other players may plant 1 card ... 4. All other players may draw 1 card": every planting
            # before any of those draws, which matters once the draw pile runs low (a planted card's black
            # ability may draw)
            q += [{"t": "plant", "p": o, "left": 1} for o in others]
            q += [{"t": "auto", "p": o, "op": "draw", "n": 1} for o in others]
        elif name == "compost":
            q.append({"t": "auto", "p": p, "op": "soil", "n": 5})
            q.append({"t": "auto", "p": p, "op": "compost_deck", "n": 2})
            q += [{"t": "option", "p": o} for o in others]
        elif name == "water":
            # events "can be played at any time": one that pays sprouts frees sprout spaces for the rest of the
            # six (found by a rules audit: unplaceable sprouts were lost though such an event would have made room)
            q.append({"t": "place", "p": p, "res": "sprouts", "left": 6, "cells": list(range(16)), "cap": 0,
                      "placed": [0] * 16, "anytime": True})
            q.append({"t": "auto", "p": p, "op": "soil", "n": 2})
            q += [{"t": "option", "p": o} for o in others]
        else:
            q.append({"t": "auto", "p": p, "op": "draw", "n": 4})
            # events "can be played at any time": an event drawn just now may be played before or between the
            # growth (one that pays growth frees room for it), so this placement is an anytime decision
            q.append({"t": "place", "p": p, "res": "growth", "left": 2, "cells": list(range(16)), "cap": 0,
                      "placed": [0] * 16, "anytime": True})
            q += [{"t": "option", "p": o} for o in others]
        q.append({"t": "activation_start", "p": -1})
        q.append({"t": "turn_end", "p": -1})
        self.queue[0:0] = q

    def _apply_option(self, p: int, second: bool) -> None:
        name = ACTIONS[self.action]
        if name == "compost":
            self.queue.insert(0, {"t": "auto", "p": p, "op": "compost_deck" if second else "soil", "n": 2})
        elif name == "water":
            self.queue.insert(0, {"t": "auto", "p": p, "op": "soil", "n": 2} if second else
                              {"t": "place", "p": p, "res": "sprouts", "left": 2, "cells": list(range(16)),
                               "cap": 0, "placed": [0] * 16})
        else:
            self.queue.insert(0, {"t": "place", "p": p, "res": "growth", "left": 2, "cells": list(range(16)),
                                  "cap": 0, "placed": [0] * 16} if second else
                              {"t": "auto", "p": p, "op": "draw", "n": 2})

    # ================================================================== choices and masks
    def _choices(self, task: dict) -> list[int]:
        """Legal action ids of the decision ``task`` other than pass and the anytime options."""
        A = self.game.A
        t, p = task["t"], task["p"]
        cat = self.game.cat
        if t == "side":
            seg = {"island": "side_island", "climate": "side_climate", "ecosystem": "side_ecosystem"}[task["what"]]
            return [A[seg] + c * 2 + s for c in self.offers[task["what"]][p] for s in (0, 1)]
        if t in ("setup_compost", "pay_hand", "compost_hand"):
            return [A["card"] + c for c in sorted(set(self.hands[p]))] if task.get("left", 0) > 0 else []
        if t == "action":
            banned = self.forbidden_actions(p)
            ok = [i for i, name in enumerate(ACTIONS) if name not in banned]
            return [A["action"] + i for i in (ok or range(4))]
        if t == "plant":
            if not self.legal_cells_to_plant(p):
                return []
            red = self.cost_reductions(p)
            plantable = cat.plantable_l
            return [A["plant"] + c for c in sorted(set(self.hands[p]))
                    if plantable[c] and self.pay_methods(p, c, self.effective_cost(p, c, red))]
        if t == "plant_cell":
            return [A["cell"] + i for i in self.legal_cells_to_plant(p)]
        if t == "keep":
            return [A["card"] + c for c in sorted(set(self.drawn[p]))]
        if t in ("option", "pay_method"):
            return [A["option"], A["option"] + 1]
        if t == "place":
            return [A["cell"] + i for i in self.place_cells(task)] if task["left"] > 0 else []
        if t == "pay":
            vals = self.spr[p] if task["res"] == "sprouts" else self.gro[p]
            return [A["cell"] + i for i in range(16) if vals[i] > 0]
        if t == "activate":
            return [A["activate"] + s for s in self._activation_slots(task)]
        if t == "copy":
            return [A["activate"] + s for s in self.copy_targets(p, task["cell"], task["colour"])]
        return []

    def _activation_slots(self, task: dict) -> list[int]:
        p, colour = task["p"], task["colour"]
        return [s for s in self._activation_candidates(task) if self.slot_usable(p, s, colour)]

    def _activation_candidates(self, task: dict) -> list[int]:
        """The slots this activation may still reach in its order (reading order; island and climate
        both before or both after the tableau), usable now or not."""
        if task["only"] >= 0:  # a card just planted: its black abilities, in reading order
            return [s for s in (task["only"] * 2, task["only"] * 2 + 1) if s >= task["tn"]]
        out = []
        if not task["tc"]:
            grid = self.grid[task["p"]]
            out += [s for s in range(task["tn"], ISLAND_SLOT) if grid[s // 2] >= 0]
        if not task["icc"]:
            out += list(range(ISLAND_SLOT + task["icn"], NUM_SLOTS))
        return out

    def _may_pass(self, task: dict) -> bool:
        return task["t"] in ("plant", "place", "compost_hand", "activate", "window")

    def _anytime(self, task: dict) -> bool:
        """Are events and conversion offered at this decision (never mid-ability, never during setup)?"""
        return (task["t"] in ANYTIME_DECISIONS or "anytime" in task) and self.phase == "play"

    def _anytime_options(self, p: int, task: dict) -> tuple[list[int], bool]:
        """(playable events, may convert) for p at this decision."""
        if not self._anytime(task):
            return [], False
        cat = self.game.cat
        is_event = cat.is_event_l
        events = [c for c in sorted(set(self.hands[p])) if is_event[c]
                  and self.can_pay_event(p, cat.earth[c]["abilities"][0].get("cost"))]
        return events, self._may_convert(p, task)

    def _may_convert(self, p: int, task: dict) -> bool:
        """May p convert 3 sprouts to 2 soil at this decision (never during the Watering action itself)."""
        if not self._anytime(task):
            return False
        watering = self.stage == "rows" and self.action >= 0 and ACTIONS[self.action] == "water"
        return not watering and sum(self.spr[p]) >= 3

    def _legal_action_mask(self) -> np.ndarray:
        if self.phase == "over":
            return np.zeros(self.game.num_actions, np.int8)
        task = self.queue[0]
        return self._build_mask(task, self._choices(task))

    def _build_mask(self, task: dict, choices: list[int], anytime: tuple | None = None) -> np.ndarray:
        """The mask of decision ``task``: its ``choices``, pass, and ``anytime`` (the task's
        ``_anytime_options``, computed here unless given)."""
        mask = np.zeros(self.game.num_actions, np.int8)
        A = self.game.A
        mask.put(choices, 1)
        if self._may_pass(task):
            mask[A["pass"]] = 1
        events, convert = self._anytime_options(task["p"], task) if anytime is None else anytime
        if events:
            mask.put([A["event"] + c - EVENT0 for c in events], 1)
        if convert:
            mask[A["convert"]] = 1
        return mask

    # ================================================================== applying actions
    def _apply_action(self, action: int) -> None:
        seg, i = self.game.action_layout.decode(action)
        task = self.queue[0]
        p = task["p"]
        if seg == "event" or task["t"] in FALLING_DECISIONS:
            self._note_fauna(p)
        if seg == "event":
            self.play_event(p, EVENT0 + i)
        elif seg == "convert":
            self.queue[0:0] = [{"t": "pay", "p": p, "res": "sprouts", "left": 3},
                               {"t": "auto", "p": p, "op": "soil", "n": 2}]
        elif seg == "pass":
            self._apply_pass(task)
        else:
            getattr(self, "_do_" + task["t"])(task, seg, i)
        self._run()

    def _apply_pass(self, task: dict) -> None:
        self.queue.pop(0)

    def _do_side(self, task, seg, i):
        p, what = task["p"], task["what"]
        if what == "island":
            self.island[p] = i
        elif what == "climate":
            self.climate[p] = i
        else:
            self.eco[p] = i
        self.queue.pop(0)

    def _do_setup_compost(self, task, seg, i):
        self.compost_from_hand(task["p"], i)
        task["left"] -= 1
        if task["left"] <= 0:
            self.queue.pop(0)

    _do_pay_hand = _do_setup_compost
    _do_compost_hand = _do_setup_compost

    def _do_action(self, task, seg, i):
        self.queue.pop(0)
        self._start_action(task["p"], i)

    def _do_plant(self, task, seg, i):
        task["left"] -= 1
        if task["left"] <= 0:
            self.queue.pop(0)
        self.queue.insert(0, {"t": "plant_cell", "p": task["p"], "card": i})

    def _do_plant_cell(self, task, seg, cell):
        p, card = task["p"], task["card"]
        self.queue.pop(0)
        cost = self.effective_cost(p, card)
        methods = self.pay_methods(p, card, cost)
        self.hands[p].remove(card)
        self.grid[p][cell] = card
        self.planted[p].append(card)
        tasks = []
        if methods == ["soil"]:
            self.soil[p] -= cost
        elif "soil" in methods:
            tasks.append({"t": "pay_method", "p": p, "left": cost, "res": methods[1]})
        else:
            tasks.append(self.payment_task(p, methods[0], cost))
        # black abilities trigger once, when the card is played (optional, like every ability)
        if any(a["color"] == "black" and a["kind"] == "gain" for a in self.game.cat.earth[card]["abilities"]):
            tasks.append({"t": "activate", "p": p, "colour": "black", "tn": 0, "icn": 0, "tc": False,
                          "icc": False, "only": cell})
        self.queue[0:0] = tasks

    def pay_methods(self, p: int, card: int, cost: int) -> list[str]:
        """How p can pay ``cost`` for ``card`` now: soil, and the card's alternative resource if it has one."""
        out = ["soil"] if self.soil[p] >= cost else []
        alt = self.game.cat.alt_cost_l[card]
        if alt is not None and cost > 0:
            # the card being planted is in the hand but cannot compost itself
            if self.have(p, alt) - (alt == "hand_compost") >= cost:
                out.append(alt)
        return out

    def payment_task(self, p: int, res: str, n: int) -> dict:
        if res == "hand_compost":
            return {"t": "pay_hand", "p": p, "left": n}
        return {"t": "pay", "p": p, "res": res, "left": n}

    def _do_pay_method(self, task, seg, i):
        p = task["p"]
        self.queue.pop(0)
        if i == 0:
            self.soil[p] -= task["left"]
        else:
            self.queue.insert(0, self.payment_task(p, task["res"], task["left"]))

    def _do_keep(self, task, seg, card):
        p = task["p"]
        self.queue.pop(0)
        self.drawn[p].remove(card)
        self.hands[p].append(card)
        self.discard.extend(self.drawn[p])
        self.drawn[p] = []

    def _do_option(self, task, seg, i):
        self.queue.pop(0)
        self._apply_option(task["p"], i == 1)

    def _do_place(self, task, seg, cell):
        p = task["p"]
        if task["res"] == "sprouts":
            self.spr[p][cell] += 1
        else:
            self.gro[p][cell] += 1
        task["placed"][cell] += 1
        task["left"] -= 1
        if task["left"] <= 0:
            self.queue.pop(0)

    def _do_pay(self, task, seg, cell):
        p = task["p"]
        if task["res"] == "sprouts":
            self.spr[p][cell] -= 1
        else:
            self.gro[p][cell] -= 1
        task["left"] -= 1
        if task["left"] <= 0:
            self.queue.pop(0)

    def _do_activate(self, task, seg, slot):
        p = task["p"]
        if task["only"] >= 0:
            # a card with two black abilities may use both (each once, in order); the decision ends once
            # no black ability of the card is left to reach
            task["tn"] = slot + 1
            cell = task["only"]
            if not any(a["color"] == "black" and a["kind"] == "gain"
                       for a in self.game.cat.earth[self.grid[p][cell]]["abilities"][slot + 1 - cell * 2:]):
                self.queue.pop(0)
        elif slot < ISLAND_SLOT:
            # island and climate go both before or both after the tableau
            if task["icn"] > 0:
                task["icc"] = True
            task["tn"] = slot + 1
        else:
            if task["tn"] > 0:
                task["tc"] = True
            task["icn"] = slot - ISLAND_SLOT + 1
        a = self.abilities_of(p, slot)
        cell = slot // 2 if slot < ISLAND_SLOT else None
        if a["kind"] == "copy":
            self.queue.insert(0, {"t": "copy", "p": p, "cell": cell, "colour": task["colour"]})
        else:
            self.resolve(p, a, cell)

    def _do_copy(self, task, seg, slot):
        # directional instructions of the copied ability apply from the copying card's position
        self.queue.pop(0)
        self.resolve(task["p"], self.abilities_of(task["p"], slot), task["cell"])

    # ================================================================== copies
    def clone(self) -> EarthState:
        """Structural copy (all fields are JSON types): ~20x faster than deepcopy, same result."""
        t = EarthState.__new__(EarthState)
        d = t.__dict__
        for k, v in self.__dict__.items():
            if k == "rng":  # the state's own kind of bit generator: a loaded state may hold any NumPy one
                rng = np.random.Generator(type(v.bit_generator)())
                rng.bit_generator.state = v.bit_generator.state
                d[k] = rng
            elif k in ("game", "_mask_cache"):
                d[k] = v
            else:
                d[k] = _copy_json(v)
        return t

    # ================================================================== returns
    def returns(self) -> np.ndarray:
        n = self.n
        if self.phase != "over":
            return np.zeros(n)
        scores = np.array(self.scores, float)
        if n == 1:
            return scores
        if self.game.reward == "vp_margin":
            return scores - (scores.sum() - scores) / (n - 1)
        return self.standings()

    def standings(self) -> np.ndarray:
        """The rank reward whatever ``reward`` shapes the returns: VP, then the rule text's five tiebreakers
        decide who beat whom (``reward="vp_margin"`` returns tell a VP tie only); solo, the final VP."""
        n = self.n
        if self.phase != "over":
            return np.zeros(n)
        if n == 1:
            return np.array(self.scores, float)
        keys = [scoring.tiebreak_key(self, p) for p in range(n)]
        out = np.zeros(n)
        for p in range(n):
            better = sum(k > keys[p] for k in keys)
            tied = sum(k == keys[p] for k in keys)
            rank = better + (tied - 1) / 2.0  # ties share the mean rank
            out[p] = 1.0 - 2.0 * rank / (n - 1)
        return out

    def ranking(self) -> list[int]:
        """Seats from winner to last: VP, then the five tiebreakers; seats tied on all of them in seat order
        (``standings`` gives them a shared rank). Before the game ends, by the VP the tableaux would score now."""
        return sorted(range(self.n), key=lambda p: scoring.tiebreak_key(self, p), reverse=True)

    # ================================================================== invariants
    def saved_bounds(self) -> dict:
        cat, n = self.game.cat, self.game.num_players  # not self.n: a saved field, checked here
        seat, card = (0, n - 1), (-1, NUM_EARTH - 1)
        return {"n": (n, n), "phase": frozenset(("setup", "play", "over")), "grid[][]": card,
                "stage": frozenset(("setup", "choose", "rows", "activation", "end")),
                "island[]": (-1, len(cat.islands) - 1), "climate[]": (-1, len(cat.climates) - 1),
                "eco[]": (-1, len(cat.ecosystems) - 1), "public_eco[]": (0, len(cat.ecosystems) - 1),
                "fauna[]": (0, len(cat.fauna) - 1), "leaves[][]": seat, "fauna_seen[][]": seat,
                "planted[][]": (0, NUM_EARTH - 1), "last_action[]": (-1, len(ACTIONS) - 1),
                "action": (-1, len(ACTIONS) - 1), "first": seat, "active": seat, "bonus": (-1, n - 1),
                "turns": (0, None), "rounds": (0, None), "deck_epoch[]": (0, None),
                "compost_marks[][]": (0, None)}

    def saved_lengths(self) -> dict[str, int]:
        per_seat = ("hands", "drawn", "compost", "compost_known", "events", "grid", "spr", "gro", "soil", "island",
                    "climate", "eco", "last_action", "planted")
        return dict.fromkeys(per_seat, self.game.num_players) | dict.fromkeys(("grid[]", "spr[]", "gro[]"), 16) | {
            "fauna": 4, "leaves": 4, "fauna_seen": 4, "public_eco": 2, "deck_epoch": NUM_EARTH,
            "compost_marks[]": self.game.num_players}

    def check_invariants(self) -> None:
        # the queue and the offers first: a dict's contents are checked by nothing before (the core's type
        # and range checks read lists), and what follows reads them
        self._check_queue()
        self._check_offers()
        zones = list(self.deck) + list(self.discard)
        for p in range(self.n):
            zones += self.hands[p] + self.drawn[p] + self.compost[p] + self.events[p]
            zones += [c for c in self.grid[p] if c >= 0]
        invariant(sorted(zones) == list(range(NUM_EARTH)), "Earth cards are not conserved across the zones")
        self._check_pending()
        self._check_reshuffles()
        cat = self.game.cat
        flora, spaces, tall = cat.is_flora_l, cat.sprout_spaces_l, cat.max_growth_l
        for p in range(self.n):
            invariant(self.soil[p] >= 0, f"player {p} has negative soil")
            invariant(len(self.compost[p]) == len(self.compost_known[p]),
                      f"player {p}: the compost and what is known of it differ in length")
            spr, gro = self.spr[p], self.gro[p]
            for i, c in enumerate(self.grid[p]):
                if c < 0 or not flora[c]:
                    invariant(spr[i] == 0 and gro[i] == 0, "pieces on an empty cell or terrain")
                else:
                    invariant(0 <= spr[i] <= spaces[c], "sprouts beyond the sprout spaces")
                    invariant(0 <= gro[i] <= tall[c], "growth beyond the maximum")
        for claimed in self.leaves:
            invariant(len(set(claimed)) == len(claimed), "a player claimed a fauna twice")
        # the counts play keeps: an edited saved state's rounds=10**12 ended the game at the next round's end,
        # and scores=[1] in a game of two was the result of a game still going
        if self.phase == "over":
            invariant(self.scores == [scoring.final_score(self, p) for p in range(self.n)],
                      f"the final scores {self.scores} are not what the tableaux score")
            return
        invariant(self.rounds < self.game.max_rounds, f"round {self.rounds} is at max_rounds "
                  f"({self.game.max_rounds}), where the game ends, yet it goes on")
        invariant(self.scores is None, "the game has final scores, yet it goes on")
        invariant(self.turns == self.rounds * self.n + (self.active - self.first) % self.n,
                  f"{self.turns} turns do not fit {self.rounds} rounds with seat {self.active} to move after "
                  f"first player {self.first}")

    def _check_queue(self) -> None:
        """Every queued task is one the game queues (``task_schema``), and the queue is in an order play
        leaves it: setup's tasks during setup and never after, a decision at its front, the turn's own steps
        (the action, activation, turn end and fauna check) last and in the stage they belong to."""
        schema, required = self.game.task_schema, self.game.task_keys
        queue = self.queue
        for i, task in enumerate(queue):
            t = task.get("t") if type(task) is dict else None
            if type(t) is not str or t not in schema:
                raise InvariantError(f"queue[{i}] is {_short(task)}: the game queues no such task (its 't' "
                                     f"is one of {', '.join(schema)})")
            keys = schema[t]
            if not required[t] <= task.keys() <= keys.keys() | {"t"}:
                missing = sorted(required[t] - task.keys())
                unknown = sorted(task.keys() - keys.keys() - {"t"})
                raise InvariantError(f"queue[{i}] (task {t!r}) " + "; ".join(
                    part for part in (f"lacks {missing}" if missing else "",
                                      f"has keys it never has: {unknown}" if unknown else "") if part)
                    + f" (task {t!r} has {sorted(keys)})")
            for key, (ok, what) in keys.items():
                if key in task and not ok(task[key]):
                    raise InvariantError(f"queue[{i}][{key!r}] is {_short(task[key])}, where task {t!r} "
                                         f"holds {what}")
        kinds = [task["t"] for task in queue]
        if self.phase == "over":
            invariant(not queue, "the game is over but tasks are queued")
            return
        invariant(queue, "no task is queued, though the game is not over")
        if kinds[0] not in DECISIONS:
            raise InvariantError(f"queue[0] is the automatic step {kinds[0]!r}: a position waits for a "
                                 "decision")
        if self.phase == "setup":
            play = [t for t in kinds if t not in SETUP_TASKS]
            if play:
                raise InvariantError(f"the play task {play[0]!r} is queued during setup")
            order = [SETUP_TASKS.index(t) for t in kinds]
            if order != sorted(order) or kinds.count("setup_finish") != 1 or kinds[-1] != "setup_finish":
                raise InvariantError(f"setup's tasks are not in the order setup queues them: {kinds}")
            if self.stage != "setup" or self.action != -1:
                raise InvariantError(f"stage {self.stage!r} and action {self.action} during setup (setup, "
                                     "-1)")
            return
        setup = [t for t in kinds if t in SETUP_TASKS]
        if setup:
            raise InvariantError(f"the setup task {setup[0]!r} is queued after setup")
        # the turn's own steps: tasks are put in front of the queue but for the action (queued alone, the
        # turn before ended) and the fauna check (queued last, behind the end-of-turn windows)
        steps = [t for t in kinds if t in TURN_STEPS]
        if steps:
            tail, stage = TURN_STEPS[steps[0]]
            if steps != tail or kinds[-len(tail):] != tail:
                raise InvariantError(f"the turn's steps {steps} are not the queue's last tasks, in order: "
                                     f"{kinds}")
            if self.stage != stage:
                raise InvariantError(f"stage {self.stage!r} with {steps[0]!r} queued (its stage is "
                                     f"{stage!r})")
            if tail == ["action"] and queue[-1]["p"] != self.active:
                raise InvariantError(f"queue[{len(queue) - 1}]['p'] is {queue[-1]['p']}: the action is the "
                                     f"active seat's ({self.active})")
        if (self.action >= 0) != (self.stage in ("rows", "activation", "end")):
            raise InvariantError(f"action {self.action} at stage {self.stage!r}: the action is chosen (0-3) "
                                 "from the rows to the end of the turn, and -1 before")
        for i, task in enumerate(queue):
            t = task["t"]
            if i and t in ("plant_cell", "keep", "copy"):
                raise InvariantError(f"queue[{i}] is a {t!r} decision behind another: it is asked as soon as "
                                     "queued")
            if t == "option" and self.action < 0:
                raise InvariantError(f"queue[{i}] is an option of the action's other row, with no action "
                                     "chosen")
            if t == "window" and self.stage != "end":
                raise InvariantError(f"queue[{i}] is an end-of-turn window at stage {self.stage!r}")
            if t == "activate":
                only = task["only"]
                if (only >= 0) != (task["colour"] == "black"):
                    raise InvariantError(f"queue[{i}] activates {task['colour']!r} abilities with "
                                         f"only={only}: a black activation is the card just planted's (only: "
                                         "its cell), any other the whole area's (-1)")
                if only >= 0 and self.grid[task["p"]][only] < 0:
                    raise InvariantError(f"queue[{i}] activates the card just planted at cell {only} of seat "
                                         f"{task['p']}, an empty cell")
            elif t == "place":
                if "anytime" in task and not (self.stage == "rows" and task["p"] == self.active and
                                              (ACTIONS[self.action], task["res"]) in (("grow", "growth"),
                                                                                      ("water", "sprouts"))):
                    raise InvariantError(f"queue[{i}] is a placement marked anytime, which only the active "
                                         "seat's sprouts in the Watering row and growth in the Growing row are")
                if "anytime" in task and any(u["t"] == "place" for u in queue[i + 1:]):
                    # the row's own placement is queued last: an event played at it queues its placements in
                    # front of it (Sandstorm's sprouts while Watering are the active seat's sprouts too)
                    raise InvariantError(f"queue[{i}] is a placement marked anytime with another placement "
                                         "behind it: only the row's own placement is, and it is the last one queued")
                placed, cap, cells = task["placed"], task["cap"], task["cells"]
                if any(k and (c not in cells or (cap and k > cap)) for c, k in enumerate(placed)):
                    raise InvariantError(f"queue[{i}]['placed'] is {placed}: pieces placed outside its cells "
                                         f"{cells} or beyond its cap {cap}")

    def _check_pending(self) -> None:
        """What a pending decision reads is there: the card a seat plants is in its hand and payable, the
        cards a seat keeps one of wait for that decision only."""
        front = self.queue[0] if self.queue else None
        if front is not None and front["t"] == "plant_cell":
            p, card = front["p"], front["card"]
            if card not in self.hands[p]:
                raise InvariantError(f"queue[0]: seat {p} plants card {card}, which its hand does not hold")
            cost = self.effective_cost(p, card)
            if not self.pay_methods(p, card, cost):
                raise InvariantError(f"queue[0]: seat {p} plants card {card}, which it cannot pay for (cost "
                                     f"{cost}, soil {self.soil[p]}): a card is picked only when it can be "
                                     "paid for")
            if not self.legal_cells_to_plant(p):
                raise InvariantError(f"queue[0]: seat {p} plants card {card} with no cell to plant it in")
        keeper = front["p"] if front is not None and front["t"] == "keep" else -1
        for q in range(self.n):
            if bool(self.drawn[q]) != (q == keeper):
                raise InvariantError(f"seat {q} has {len(self.drawn[q])} drawn cards to keep one of, "
                                     f"{'with' if q == keeper else 'without'} its keep decision pending")

    def _check_offers(self) -> None:
        """The island, climate and ecosystem cards dealt to each seat (``offers``, read by setup's choices,
        the observation and ``resample_hidden``): as many as the draft deals, each card to one seat only,
        none of them a public ecosystem, each seat's chosen side a side of a card it was dealt; and a side
        chosen by every seat whose choice is no longer queued. Once setup is over, the island and climate
        cards dealt are read by nothing (the sides chosen are public, and a world re-deals them only during
        setup): the rule tests' positions give seats the island and climate they need, whatever was dealt."""
        cat, n = self.game.cat, self.n
        k = 2 if self.game.advanced_draft else 1
        sides = (("island", cat.islands, self.island, "island"),
                 ("climate", cat.climates, self.climate, "climate"),
                 ("ecosystem", cat.ecosystems, self.eco, "eco"))
        offers = self.offers
        if type(offers) is not dict or offers.keys() != {"island", "climate", "ecosystem"}:
            raise InvariantError(f"offers is {_short(offers)}: the cards dealt to each seat, by 'island', "
                                 "'climate' and 'ecosystem'")
        public = {e // 2 for e in self.public_eco}
        if len(public) != len(self.public_eco):
            raise InvariantError(f"public_eco {self.public_eco}: both sides of one ecosystem card")
        if len({f // 2 for f in self.fauna}) != len(self.fauna):
            raise InvariantError(f"fauna {self.fauna}: one fauna card twice on the board")
        waiting = {(task["p"], task["what"]) for task in self.queue if task["t"] == "side"}
        if len(waiting) != sum(task["t"] == "side" for task in self.queue):
            raise InvariantError("a seat is asked twice to choose the same side")
        for what, records, chosen, field in sides:
            dealt = offers[what]
            cards = len(records) // 2
            if not (type(dealt) is list and len(dealt) == n and all(
                    type(mine) is list and len(mine) == k
                    and all(type(c) is int and 0 <= c < cards for c in mine) for mine in dealt)):
                raise InvariantError(f"offers[{what!r}] is {_short(dealt)}: one list per seat ({n}) of {k} "
                                     f"{what} card{'s' if k > 1 else ''} from 0 to {cards - 1}")
            if what != "ecosystem" and self.phase != "setup":
                continue
            flat = [c for mine in dealt for c in mine]
            if len(set(flat)) != len(flat):
                raise InvariantError(f"offers[{what!r}] deals a card twice: {dealt}")
            if what == "ecosystem" and public.intersection(flat):
                raise InvariantError(f"offers['ecosystem'] {dealt} deals a public ecosystem (public_eco "
                                     f"{self.public_eco})")
            for p in range(n):
                side = chosen[p]
                if side >= 0 and side // 2 not in dealt[p]:
                    raise InvariantError(f"{field}[{p}] is side {side}, of card {side // 2}, which seat {p} "
                                         f"was not dealt (offers[{what!r}][{p}] is {dealt[p]})")
        for what, _, chosen, field in sides:
            for p in range(n):
                side = chosen[p]
                # during setup the seats whose choice is still queued have none, after it every seat has one
                if (side < 0) != ((p, what) in waiting):
                    raise InvariantError(f"{field}[{p}] is {side}, though seat {p} " + (
                        "is still to choose it" if side >= 0 else "chose it" if self.phase == "setup"
                        else "chose it in setup"))
        if self.phase == "setup":
            draws = [task["p"] for task in self.queue if task["t"] == "setup_draw"]
            composts = [task for task in self.queue if task["t"] == "setup_compost"]
            if len(set(draws)) != len(draws) or len({task["p"] for task in composts}) != len(composts):
                raise InvariantError("a seat's setup draw or compost is queued twice")
            for p in draws:
                if not any(task["p"] == p for task in composts):
                    raise InvariantError(f"seat {p}'s setup draw is queued without its compost")
            for task in composts:
                if ("left" in task) == (task["p"] in draws):
                    raise InvariantError(f"seat {task['p']}'s setup compost " + (
                        "counts the cards to compost before its island's draw" if "left" in task
                        else "has no count of the cards to compost after its island's draw"))

    def _check_reshuffles(self) -> None:
        """``deck_epoch`` and ``compost_marks`` (gained together, at the first reshuffle of the discard): one
        mark per reshuffle, so the latest pile's number is how many there were, and the draw pile is that
        pile."""
        epoch, marks = self.__dict__.get("deck_epoch"), self.__dict__.get("compost_marks")
        if (epoch is None) != (marks is None):
            raise InvariantError("deck_epoch and compost_marks are gained together, at the first reshuffle: "
                                 f"{'deck_epoch' if epoch is None else 'compost_marks'} is missing")
        if epoch is None or marks is None:
            return
        latest = max(epoch)
        if latest != len(marks):
            raise InvariantError(f"deck_epoch numbers {latest} reshuffles of the discard and compost_marks "
                                 f"records {len(marks)}")
        for p in range(self.n):
            sizes = [m[p] for m in marks]
            if sizes != sorted(sizes) or (sizes and sizes[-1] > len(self.compost[p])):
                raise InvariantError(f"seat {p}'s compost_marks {sizes} are not its smallest compost sizes since "
                                     f"each reshuffle (its compost holds {len(self.compost[p])}): a state saved "
                                     "before 2026-12-05 whose compost shrank after a reshuffle kept sizes that "
                                     "cannot be mended; rebuild it from its replay, which plays the game again")
        stale = [c for c in self.deck if epoch[c] != latest]
        if stale:
            raise InvariantError(f"the draw pile holds card {stale[0]} of deck_epoch {epoch[stale[0]]}, not "
                                 f"of the latest reshuffle ({latest})")

    # ================================================================== observation
    def observation(self, player: int) -> np.ndarray:
        from .encode import encode

        return encode(self, check_seat(self.game, player))

    def resample_hidden(self, player: int, rng: np.random.Generator) -> EarthState:
        from .encode import resample

        return resample(self, check_seat(self.game, player), rng)

    def final_points(self) -> str:
        scores = self.scores
        if self.phase != "over" or scores is None:  # (the scores are counted as the game ends)
            return ""
        line = "VP: " + ", ".join(f"player_{p}: {v}" for p, v in enumerate(scores))
        tied = [p for p in range(self.n) if scores.count(scores[p]) > 1]
        if tied:  # the rule text's tiebreakers decide between them: show what they read
            line += ("\nTied on VP; the tiebreakers (soil, cards in hand, growth, sprouts, composted cards): "
                     + ", ".join(f"player_{p}: " + "/".join(map(str, scoring.tiebreak_key(self, p)[1:]))
                                 for p in tied))
        return line

    def render_text(self, player: int | None = None) -> str:
        from .render import render

        return render(self, check_seat(self.game, player, spectator=True))

    def action_to_string(self, action: int) -> str:
        """The layout's label, made specific for the binary ``option`` choice of the pending decision."""
        seg, i = self.game.action_layout.decode(action)
        if seg == "option" and self.phase == "play":
            task = self.queue[0]
            if task["t"] == "option" and self.action >= 0:
                return OPTION_LABELS[ACTIONS[self.action]][i]
            if task["t"] == "pay_method":
                return "pay the cost in soil" if i == 0 else f"pay the cost with {task['res'].replace('_', ' ')}"
        return self.game.action_layout.label(action)


def _short(value, limit: int = 80) -> str:
    """``repr`` of a saved value for a message, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _game_from_config(config: dict) -> EarthGame:
    return EarthGame(**config)


def _copy_json(v):
    tv = type(v)
    if tv is list:
        return [x if type(x) in (int, str, bool, float) else _copy_json(x) for x in v]
    if tv is dict:
        return {k: x if type(x) in (int, str, bool, float) else _copy_json(x) for k, x in v.items()}
    return v  # int, str, bool, float, None


EarthGame.state_class = EarthState


def _card_files(data_dir: str | None) -> dict | None:
    """The card files of a ``data_dir`` (None: the shipped folder), by name, as JSON data (the layout of a
    file aside); None where they cannot be read (a model's sidecar names the folder: read as any file from
    someone else, no pipe and no giant)."""
    folder = DATA if data_dir is None else Path(data_dir)
    try:
        return {path.name: parse_json(read_json_text(path)) for path in sorted(folder.glob("*.json"))} or None
    except (OSError, ValueError):
        return None
