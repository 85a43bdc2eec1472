"""Terralore rules engine: ``TerraloreGame`` / ``TerraloreState``.

A turn is the four phases of the rule text:

1. Draw Phase — both players draw 2 (from the second turn on, by default); a full hand (7) sends
   surplus draws to the Graveyard; a player who cannot draw loses (deck-out).
2. Play Phase — players place cards face down in their attacking or defending lane. The placement
   is simultaneous at the table; here it is sequential (the first placer alternates each turn) and
   the second placer sees only how many face-down cards sit in each of the first placer's lanes
   (with the ``opaque_wall`` option, nothing of them until the Reveal Phase).
   Placing one card is a chain of small decisions: ``play`` (which card) → ``lane`` → one
   ``discard`` per point of cost → ``destroy`` (only when the lane's four slots are full).
3. Reveal Phase — face-down cards turn face up, lane by lane, in the order of the rule text; reveal
   effects resolve as each card turns; skills then go to the Graveyard.
4. Counting Phase — each attacking lane's points are compared with the opponent's defending lane;
   the excess is dealt to the opponent's castle.

Rule choices where the text is silent are in RULES.md; the ones a user may change are kwargs of
``TerraloreGame``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence

import numpy as np

from ..core.engine import (
    TERMINAL,
    Game,
    InvariantError,
    State,
    check_flags,
    check_num_players,
    check_seat,
    counted_deal,
    invariant,
    new_rng,
)
from ..core.errors import ConfigError, DeckError
from ..core.layout import ActionLayout
from .catalogue import (
    AFFINITIES,
    DECK_SIZE,
    LANE_SLOTS,
    Catalogue,
    default_catalogue,
    normalize_deck_spec,
    resolve_deck,
)

ATTACK, DEFEND = 0, 1
LANE_NAMES = ("attacking", "defending")
CASTLE_HP = 10
OPENING_HAND = 4
HAND_LIMIT = 7
DRAW_PER_TURN = 2

MULLIGAN, PLAY, LANE, DISCARD, DESTROY = "mulligan", "play", "lane", "discard", "destroy"
DECISIONS = (MULLIGAN, PLAY, LANE, DISCARD, DESTROY)
DECK_OUT_RULES = ("cannot_draw", "empty_deck")
#: the zones of a player that placing cards changes, which ``play_start`` remembers (``_placement_zones``)
PLACEMENT_ZONES = ("hand", "field", "graveyard", "known_hand")


class TerraloreGame(Game):
    """Terralore for two players.

    Args:
        decks: one deck per player; each ``"random"`` (a random legal deck every game), a preset name
            from ``decks.json``, or a list of 20 card names / ids (validated: 20 cards, singleton).
        draw_on_first_turn: the first revision of the rule text draws 2 at the start of every turn;
            the later one only from the second turn on (default False, the later text).
        mulligan: each player may once shuffle the opening hand back and draw one card fewer.
        defenders_deal_damage: if True, a defending lane's excess over the attacking lane also hits
            the attacker's castle (the text only says attacking excess does; default False).
        deck_out: ``"cannot_draw"`` (default: you lose when a Draw Phase asks for a card your deck no
            longer has) or ``"empty_deck"`` (you lose as soon as your deck is empty at the end of a
            Draw Phase or a turn).
        opaque_wall: True (default): nothing of the opponent's placement this turn is seen until the
            Reveal Phase, not even card backs or the discards that paid for them ("the placement remains
            hidden from the opponent"; the novel places cards "behind an opaque wall"). False: the second
            placer sees them, as on an open table.
    """

    env_name = "terralore_v0"
    decisions = DECISIONS
    player_counts = (2,)
    options_before_they_existed = {"opaque_wall": False}
    default_max_turns = 50

    @classmethod
    def trained_covers(cls, option: str, trained, here) -> bool:
        if option == "decks" and isinstance(trained, list) and isinstance(here, list) and len(trained) == len(here):
            # a "random" deck is a uniformly random legal deck each game: a model trained on those has met
            # decks of every card a preset or a listed deck can hold, under the same rules
            return all(t == "random" or t == h for t, h in zip(trained, here))
        return super().trained_covers(option, trained, here)

    def __init__(self, decks: Sequence[str | Sequence[str | int] | np.ndarray] = ("random", "random"),
                 draw_on_first_turn: bool = False, mulligan: bool = True,
                 defenders_deal_damage: bool = False, deck_out: str = "cannot_draw", opaque_wall: bool = True,
                 num_players: int = 2):
        check_num_players(num_players, self.player_counts, "Terralore is a two-player game")
        # a str first: a NumPy str array equal to one passed ``in`` and then broke config()'s JSON (state_dict,
        # replays, sidecars), and a longer one made ``in`` an "ambiguous truth value" error
        if not isinstance(deck_out, str) or deck_out not in DECK_OUT_RULES:
            raise ConfigError(f"deck_out must be one of {DECK_OUT_RULES}, got {deck_out!r}")
        check_flags(draw_on_first_turn=draw_on_first_turn, mulligan=mulligan,
                    defenders_deal_damage=defenders_deal_damage, opaque_wall=opaque_wall)
        self.catalogue: Catalogue = default_catalogue()
        if (isinstance(decks, str) or not hasattr(decks, "__len__")
                or (isinstance(decks, np.ndarray) and decks.ndim == 0) or len(decks) != 2):  # (a 0-d array: no len())
            raise DeckError(f"decks must be a pair (one deck per player), e.g. ('random', 'ember_rush'); got {decks!r}")
        self.decks = [normalize_deck_spec(self.catalogue, spec, f"decks[{i}]") for i, spec in enumerate(decks)]
        # bool(): check_flags lets numpy's bool_ in, which config() would hand to JSON (replays, saved states,
        # sidecars) as a type it cannot write
        self.draw_on_first_turn = bool(draw_on_first_turn)
        self.mulligan = bool(mulligan)
        self.defenders_deal_damage = bool(defenders_deal_damage)
        self.deck_out = deck_out
        self.opaque_wall = bool(opaque_wall)
        self.num_players = 2
        self.action_layout = build_action_layout(self.catalogue)
        self.first_action = dict(self.action_layout.start)
        self._num_actions = self.action_layout.num_actions
        from .encoder import Encoder

        self.encoder = Encoder(self.catalogue)
        self.observation_layout = self.encoder.layout

    @property
    def num_actions(self) -> int:
        return self._num_actions

    def config(self) -> dict:
        return {"decks": [d if isinstance(d, str) else list(d) for d in self.decks],
                "draw_on_first_turn": self.draw_on_first_turn, "mulligan": self.mulligan,
                "defenders_deal_damage": self.defenders_deal_damage, "deck_out": self.deck_out,
                "opaque_wall": self.opaque_wall}

    def new_initial_state(self, seed: int | None = None) -> TerraloreState:
        return TerraloreState(self, seed)


def build_action_layout(cat: Catalogue) -> ActionLayout:
    n, names = cat.size, cat.names
    return ActionLayout([
        ("mulligan", 2, "Opening hand: keep it (0) or mulligan (1: shuffle it back, draw one card fewer)",
         ["keep opening hand", "mulligan"]),
        ("play", n, "Play Phase: place card *i* (catalogue id) from your hand face down",
         [f"play {x}" for x in names]),
        ("end_play", 1, "Play Phase: place nothing more this turn", ["end placement"]),
        ("lane", 2, "Put the chosen card in your attacking (0) or defending (1) lane",
         ["into attacking lane", "into defending lane"]),
        ("discard", n, "Pay the cost: discard card *i* from your hand to your Graveyard",
         [f"discard {x}" for x in names]),
        ("destroy", n, "Lane full: destroy your creature *i* in that lane (to the Graveyard) to free its slots",
         [f"destroy {x}" for x in names]),
    ])


class TerraloreState(State):
    """One Terralore position. Fields are JSON types; card ids index the catalogue.

    ``field[p][lane]`` holds face-up creatures; ``face_down[p][lane]`` the cards placed this turn in
    placement order (the card being placed right now is already there, as ``pending_card``).
    """

    game: TerraloreGame
    _transient = ("game", "_mask_cache", "cat")
    _optional_fields = ("play_start",)
    #: with the opaque wall, each player's zones as they stood when this Play Phase began (see
    #: ``_mark_play_start``); absent otherwise, so states under the default rules stay as they were
    play_start: list[dict] | None = None

    def __init__(self, game: TerraloreGame, seed: int | None = None):
        self.game = game
        self.cat = game.catalogue
        self.rng = new_rng(seed)
        self.deck_list = [sorted(resolve_deck(self.cat, spec, self.rng)) for spec in game.decks]
        self.deck = [list(d) for d in self.deck_list]
        for d in self.deck:
            self.rng.shuffle(d)
        self.hand: list[list[int]] = [[], []]
        self.field: list[list[list[int]]] = [[[], []], [[], []]]
        self.face_down: list[list[list[int]]] = [[[], []], [[], []]]
        self.graveyard: list[list[int]] = [[], []]
        self.exile: list[list[int]] = [[], []]
        self.castle = [CASTLE_HP, CASTLE_HP]
        # cards the opponent saw enter this hand (recovered from the Graveyard) and has not seen since:
        # still in the hand, or placed face down this turn (which card went down is hidden)
        self.known_hand: list[list[int]] = [[], []]
        self.weakened: list[dict[str, int]] = [{}, {}]  # str(card id) -> points lost until the end of this turn
        self.mulliganed = [False, False]
        self.turn_number = 0
        self.phase = MULLIGAN
        self.decision_name = MULLIGAN
        self.actor = 0
        self.first_placer = 0
        self.done_placing = [False, False]
        self.pending_card = -1
        self.pending_lane = -1
        self.discards_left = 0
        self.slots_to_free = 0
        self.reveal_first = -1
        self.totals = [[0, 0], [0, 0]]  # face-up lane points, refreshed whenever the field changes
        self.result = [0, 0]
        self.end_reason = ""
        self.log: list[str] = []
        for p in (0, 1):
            self._draw(p, OPENING_HAND)
        if not game.mulligan:
            self._start_turn()

    def clone(self) -> TerraloreState:
        """A deep copy, by hand: the catalogue and game are shared, every zone is copied."""
        twin = TerraloreState.__new__(TerraloreState)
        twin.__dict__.update(self.__dict__)
        for name in ("hand", "deck", "deck_list", "graveyard", "exile", "known_hand", "totals"):
            setattr(twin, name, [list(x) for x in getattr(self, name)])
        twin.field = [[list(lane) for lane in lanes] for lanes in self.field]
        twin.face_down = [[list(lane) for lane in lanes] for lanes in self.face_down]
        twin.weakened = [dict(w) for w in self.weakened]
        for name in ("castle", "mulliganed", "done_placing", "result", "log"):
            setattr(twin, name, list(getattr(self, name)))
        if self.play_start is not None:
            twin.play_start = [{zone: copy.deepcopy(cards) for zone, cards in start.items()}
                               for start in self.play_start]
        twin.rng = copy.deepcopy(self.rng)
        twin._mask_cache = None
        return twin

    def _restore_transient(self) -> None:
        self.cat = self.game.catalogue

    # ------------------------------------------------------------------ protocol
    def current_player(self) -> int:
        return TERMINAL if self.phase == "over" else self.actor

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def returns(self) -> np.ndarray:
        return np.array(self.result, np.float64)

    @property
    def turn(self) -> int:
        return max(0, self.turn_number - 1)

    def decision(self) -> str:
        return self.decision_name

    def observation(self, player: int) -> np.ndarray:
        player = check_seat(self.game, player)
        return self.game.encoder.encode(self.seen_by(player) if self.game.opaque_wall else self, player)

    def _legal_action_mask(self) -> np.ndarray:
        game = self.game
        mask = np.zeros(game.num_actions, np.int8)
        if self.phase == "over":
            return mask
        p = self.actor
        d = self.decision_name
        if d == PLAY:
            hand = self.hand[p]
            spare = len(hand) - 1
            cost = self.cat.cost
            start = game.first_action["play"]
            mask.put([start + c for c in hand if cost[c] <= spare], 1)
            mask[game.first_action["end_play"]] = 1
        elif d == DISCARD:
            mask.put([game.first_action["discard"] + c for c in self.hand[p]], 1)
        elif d == LANE:
            start = game.first_action["lane"]
            mask[start:start + 2] = 1
        elif d == DESTROY:
            mask.put([game.first_action["destroy"] + c for c in self._destroy_candidates()], 1)
        else:
            start = game.first_action["mulligan"]
            mask[start:start + 2] = 1
        return mask

    def _apply_action(self, action: int) -> None:
        handler, index = self.game.action_layout.handlers(type(self))[action]
        handler(self, index)

    # ------------------------------------------------------------------ decisions
    def _do_mulligan(self, take: int) -> None:
        p = self.actor
        if take:
            self._mulligan(p)
        if p == 0:
            self.actor = 1
        else:
            self._start_turn()

    def _mulligan(self, p: int) -> None:
        """Redraw the opening hand at the price of one card (the story's 4 -> 3)."""
        size = len(self.hand[p])
        self.deck[p].extend(self.hand[p])
        self.hand[p] = []
        self.rng.shuffle(self.deck[p])
        self._draw(p, size - 1)
        self.mulliganed[p] = True

    def _do_play(self, card: int) -> None:
        self.pending_card = card
        self.decision_name = LANE

    def _do_lane(self, lane: int) -> None:
        p, card = self.actor, self.pending_card
        self.hand[p].remove(card)  # face down: a known card stays known until it is seen again
        self.face_down[p][lane].append(card)
        self.pending_lane = lane
        self.discards_left = self.cat.cost[card]
        # a fifth creature (or a multi-slot one that does not fit) forces the replace-one choice
        self.slots_to_free = max(0, self._used_slots(p, lane) - LANE_SLOTS) if self.cat.is_creature[card] else 0
        self._next_payment_step()

    def _do_discard(self, card: int) -> None:
        p = self.actor
        self.hand[p].remove(card)
        self._seen(p, card)
        self.graveyard[p].append(card)
        self.discards_left -= 1
        self._next_payment_step()

    def _do_destroy(self, card: int) -> None:
        p, lane = self.actor, self.pending_lane
        if card in self.field[p][lane]:
            self._remove_from_field(p, lane, card)
        else:
            self.face_down[p][lane].remove(card)
            self._seen(p, card)
        self.graveyard[p].append(card)
        self.slots_to_free = max(0, self.slots_to_free - self.cat.slots[card])
        self._refresh_totals()
        self._next_payment_step()

    def _do_end_play(self, _index: int) -> None:
        p = self.actor
        self.done_placing[p] = True
        if not self.done_placing[1 - p]:
            self.actor = 1 - p
            return
        self._reveal_phase()
        self._counting_phase()
        self._end_of_turn()

    def _next_payment_step(self) -> None:
        if self.discards_left > 0:
            self.decision_name = DISCARD
        elif self.slots_to_free > 0:
            self.decision_name = DESTROY
        else:
            self.pending_card = self.pending_lane = -1
            self.decision_name = PLAY

    def _destroy_candidates(self) -> list[int]:
        p, lane, pending = self.actor, self.pending_lane, self.pending_card
        creature = self.cat.is_creature
        return self.field[p][lane] + [c for c in self.face_down[p][lane] if c != pending and creature[c]]

    def _seen(self, p: int, card: int) -> None:
        """``card`` of player ``p`` is in view again: no longer a known-but-unseen card."""
        if card in self.known_hand[p]:
            self.known_hand[p].remove(card)

    # ------------------------------------------------------------------ turn structure
    def _draw(self, p: int, n: int) -> int:
        """Draw up to n; a card drawn into a full hand goes to the Graveyard. Returns cards drawn."""
        deck, hand = self.deck[p], self.hand[p]
        drawn = 0
        while drawn < n and deck:
            card = deck.pop()
            if len(hand) < HAND_LIMIT:
                hand.append(card)
            else:
                self.graveyard[p].append(card)
            drawn += 1
        return drawn

    def _start_turn(self) -> None:
        self.turn_number += 1
        self.phase = PLAY
        if self.turn_number > 1 or self.game.draw_on_first_turn:
            if self._draw_phase():
                return
        self.done_placing = [False, False]
        self.first_placer = (self.turn_number - 1) % 2
        self.actor = self.first_placer
        self.decision_name = PLAY
        self._mark_play_start()

    def _mark_play_start(self) -> None:
        """With the opaque wall, remember each player's zones as the Play Phase begins: until the Reveal
        Phase the opponent is shown (and re-dealt) as they stood then."""
        if self.game.opaque_wall:
            self.play_start = [self._placement_zones(p) for p in (0, 1)]

    def _placement_zones(self, p: int) -> dict:
        """Copies of the zones of ``p`` that placing cards changes (face-down lanes start empty)."""
        return {"hand": list(self.hand[p]), "field": [list(ln) for ln in self.field[p]],
                "graveyard": list(self.graveyard[p]), "known_hand": list(self.known_hand[p])}  # PLACEMENT_ZONES

    def _play_started(self) -> list[dict]:
        """``play_start``: each player's zones as this Play Phase began, which one under the opaque wall keeps."""
        if self.play_start is None:
            raise InvariantError("the Play Phase began without remembering where it began")
        return self.play_start

    def _rewind_placement(self, q: int, share: bool = False) -> None:
        """Put player ``q``'s zones back as they stood when this Play Phase began, undoing their placement
        (cards placed, discards, replace-one destroys). Every changed zone gets new outer lists, so a
        shallow copy of a state may be rewound without touching the state. ``share``: a read-only view,
        which may hold the remembered lists themselves instead of copies."""
        start = self._play_started()[q]
        field_changed = self.field[q] != start["field"]
        for zone in ("hand", "graveyard", "known_hand", "field", "face_down"):
            pair = list(getattr(self, zone))
            pair[q] = [[], []] if zone == "face_down" else start[zone] if share else copy.deepcopy(start[zone])
            setattr(self, zone, pair)
        if field_changed:  # the opponent's face-up creatures feed both players' lane totals (lane debuffs)
            self._refresh_totals()

    def seen_by(self, player: int | None) -> TerraloreState:
        """The position as ``player`` may see it (``None``: the whole table). With the opaque wall, during
        the Play Phase the opponent stands as they did when it began: their placement so far is behind
        the wall. Otherwise the state itself."""
        if player is None or self.phase != PLAY or not self.game.opaque_wall:
            return self
        q = 1 - player
        if self.actor != q and len(self.hand[q]) == len(self._play_started()[q]["hand"]):
            return self  # every card placed or discarded leaves the hand: they have done nothing yet
        view = TerraloreState.__new__(TerraloreState)
        view.__dict__.update(self.__dict__)
        view._rewind_placement(q, share=True)
        if view.actor == q:  # whether they are paying for a card now would tell that they placed one
            view._restart_placement(q)
        view._mask_cache = None
        return view

    def _restart_placement(self, q: int) -> None:
        """``q`` to move at the first decision of the Play Phase, placing nothing yet."""
        self.actor, self.decision_name, self.pending_card, self.pending_lane = q, PLAY, -1, -1
        self.discards_left = self.slots_to_free = 0

    def _draw_phase(self) -> bool:
        """Both players draw 2. Returns True when the game ended by deck-out."""
        if self.game.deck_out == "cannot_draw":
            losers = [p for p in (0, 1) if len(self.deck[p]) < DRAW_PER_TURN]
            if len(losers) == 2 and len(self.deck[0]) != len(self.deck[1]):
                # cards are drawn one at a time: of two short decks the shorter runs out first, and a
                # player wins when "the opponent runs out of cards in their deck before you do"
                losers = [0 if len(self.deck[0]) < len(self.deck[1]) else 1]
            if losers:
                self._end_by_deck_out(losers)
                return True
        before = [len(self.deck[0]), len(self.deck[1])]
        for p in (0, 1):
            self._draw(p, DRAW_PER_TURN)
        # with empty_deck too, of two decks this Draw Phase empties the shorter runs out first
        return self._check_empty_decks(before if before[0] != before[1] else None)

    def _check_empty_decks(self, drawn_from: list[int] | None = None) -> bool:
        """``drawn_from``: the deck sizes before a Draw Phase that just drew (one card at a time)."""
        if self.game.deck_out != "empty_deck":
            return False
        losers = [p for p in (0, 1) if not self.deck[p]]
        if len(losers) == 2 and drawn_from is not None:
            losers = [0 if drawn_from[0] < drawn_from[1] else 1]
        if losers:
            self._end_by_deck_out(losers)
            return True
        return False

    def _end_by_deck_out(self, losers: list[int]) -> None:
        if len(losers) == 1:
            self._finish(1 - losers[0], "deck-out")
        else:
            self._finish_by_tiebreakers("both decks ran out")

    def _end_of_turn(self) -> None:
        self.weakened = [{}, {}]  # weaken effects last "this turn"
        self._refresh_totals()
        if self.castle[0] <= 0 or self.castle[1] <= 0:
            if self.castle[0] <= 0 and self.castle[1] <= 0:
                self._finish_by_tiebreakers("both castles fell")
            else:
                self._finish(0 if self.castle[1] <= 0 else 1, "castle destroyed")
            return
        if self._check_empty_decks():
            return
        self._start_turn()

    def _finish(self, winner: int, reason: str) -> None:
        self.result = [1, -1] if winner == 0 else [-1, 1]
        self.end_reason = reason
        self.phase = "over"
        self.decision_name = ""
        self.log.append(f"player_{winner} wins ({reason})")

    def _finish_by_tiebreakers(self, reason: str) -> None:
        """Tiebreakers: higher castle HP, then more points on the field, else a draw."""
        leader = self._leader()
        if leader is None:
            self.result = [0, 0]
            self.end_reason = f"{reason}; castles and field points tied: draw"
            self.phase = "over"
            self.decision_name = ""
            self.log.append(self.end_reason)
        else:
            self._finish(leader, f"{reason}; tiebreaker")

    def _leader(self) -> int | None:
        """The player ahead by castle HP, then by field points; None if perfectly tied."""
        if self.castle[0] != self.castle[1]:
            return 0 if self.castle[0] > self.castle[1] else 1
        points = [self.field_points(0), self.field_points(1)]
        if points[0] != points[1]:
            return 0 if points[0] > points[1] else 1
        return None

    # ------------------------------------------------------------------ reveal and counting
    def reveal_starter(self) -> int:
        """Who reveals first: the die roll in round 1 and on a perfect tie, else the losing player."""
        leader = None if self.turn_number == 1 else self._leader()
        if leader is None:
            return self._roll_die_for_first()
        return 1 - leader

    def _roll_die_for_first(self) -> int:
        while True:
            a, b = (int(x) for x in self.rng.integers(1, 7, 2))
            if a != b:
                self.log.append(f"die roll: player_0 {a}, player_1 {b}")
                return 0 if a > b else 1

    def _reveal_phase(self) -> None:
        self.log = []
        first = self.reveal_starter()
        second = 1 - first
        self.reveal_first = first
        # losing player's defending lane, the opponent's attacking lane (the same lane, clockwise),
        # the opponent's defending lane, the losing player's attacking lane
        for p, lane in ((first, DEFEND), (second, ATTACK), (second, DEFEND), (first, ATTACK)):
            cards = self.face_down[p][lane]
            while cards:
                self._reveal_card(p, lane, cards.pop(0))

    def _reveal_card(self, p: int, lane: int, card: int) -> None:
        self._seen(p, card)
        creature = self.cat.is_creature[card]
        if creature:
            self.field[p][lane].append(card)
        self.log.append(f"player_{p} reveals {self.cat.names[card]} ({LANE_NAMES[lane]})")
        for effect in self.cat.reveal_effects[card]:
            self._resolve(p, lane, card, effect)
        if not creature:
            self.graveyard[p].append(card)

    def _counting_phase(self) -> None:
        attack = [self.lane_total(p, ATTACK) for p in (0, 1)]
        defend = [self.lane_total(p, DEFEND) for p in (0, 1)]
        damage = [0, 0]
        for p in (0, 1):
            q = 1 - p
            damage[q] += max(0, attack[p] - defend[q])
            if self.game.defenders_deal_damage:
                damage[p] += max(0, defend[q] - attack[p])
        for p in (0, 1):
            self.castle[p] = max(0, self.castle[p] - damage[p])
        self.log.append(f"counting: attack {attack}, defend {defend}, castle damage {damage}, "
                        f"castles {self.castle}")

    # ------------------------------------------------------------------ points
    def card_points(self, p: int, lane: int, card: int) -> int:
        """A face-up creature's points now: base, lane effects, synergies, this turn's weakening."""
        cat = self.cat
        points = cat.points[card]
        aff = cat.affinity[card]
        if cat.has_continuous[card] or self._lane_has_auras(p, lane):
            for other in self.field[p][lane]:
                buff = cat.buff[other]
                if buff and other != card and (buff[1] < 0 or buff[1] == aff):
                    points += buff[0]
            for enemy in self.field[1 - p][1 - lane]:
                debuff = cat.debuff[enemy]
                if debuff and (debuff[1] < 0 or debuff[1] == aff):
                    points -= debuff[0]
            synergy = cat.synergy[card]
            if synergy:
                mates = sum(1 for ln in self.field[p] for c in ln if c != card and cat.affinity[c] == synergy[1])
                points += synergy[0] * mates
        weak = self.weakened[p].get(str(card))
        if weak:
            points -= weak
        return max(0, points)

    def _lane_has_auras(self, p: int, lane: int) -> bool:
        cat = self.cat
        return any(cat.buff[c] for c in self.field[p][lane]) or any(cat.debuff[c] for c in self.field[1 - p][1 - lane])

    def lane_total(self, p: int, lane: int) -> int:
        cards = self.field[p][lane]
        if not cards:
            return 0
        return sum(self.card_points(p, lane, c) for c in cards)

    def _refresh_totals(self) -> None:
        self.totals = [[self.lane_total(p, ATTACK), self.lane_total(p, DEFEND)] for p in (0, 1)]

    def field_points(self, p: int) -> int:
        return self.lane_total(p, ATTACK) + self.lane_total(p, DEFEND)

    def _used_slots(self, p: int, lane: int) -> int:
        cat = self.cat
        return (sum(cat.slots[c] for c in self.field[p][lane])
                + sum(cat.slots[c] for c in self.face_down[p][lane] if cat.is_creature[c]))

    # ------------------------------------------------------------------ effects
    def _resolve(self, p: int, lane: int, card: int, effect) -> None:
        kind = effect.kind
        q = 1 - p
        if kind == "heal_castle":
            self.castle[p] = min(CASTLE_HP, self.castle[p] + effect.amount)
        elif kind == "damage_castle":
            self.castle[q] = max(0, self.castle[q] - effect.amount)
        elif kind == "draw":
            if not self._draw(p, effect.amount):
                return  # an empty deck: the reveal's log names only effects that did something
        elif kind == "recover":
            if not self._recover(p, effect.target):
                return
        else:
            target = self._select_target(p, lane, card, effect)
            if target is None:
                return
            owner, where, victim = target
            if kind == "destroy":
                self._remove_from_field(owner, where, victim)
                self.graveyard[owner].append(victim)
            elif kind == "exile":
                self._remove_from_field(owner, where, victim)
                self.exile[owner].append(victim)
            elif kind == "weaken":
                key = str(victim)
                self.weakened[owner][key] = self.weakened[owner].get(key, 0) + effect.amount
            elif kind == "move":
                dest = 1 - where
                if self._used_slots(owner, dest) + self.cat.slots[victim] <= LANE_SLOTS:
                    self.field[owner][where].remove(victim)
                    self.field[owner][dest].append(victim)
                else:
                    return
        self.log.append(f"  {self.cat.names[card]}: {kind}")

    def _select_target(self, p: int, lane: int, card: int, effect) -> tuple[int, int, int] | None:
        """(owner, lane, card) chosen by the card's selector among face-up creatures, or None."""
        sel = effect.target
        q = 1 - p
        if sel.startswith("enemy_here"):
            pool = [(q, 1 - lane, c) for c in self.field[q][1 - lane]]
        elif sel == "enemy_any_strongest":
            pool = [(q, ln, c) for ln in (ATTACK, DEFEND) for c in self.field[q][ln]]
        elif sel == "own_here_weakest":
            pool = [(p, lane, c) for c in self.field[p][lane] if c != card]
        else:  # own_other_strongest
            pool = [(p, 1 - lane, c) for c in self.field[p][1 - lane]]
        if effect.affinity is not None:
            aff = self.cat.affinity
            want = AFFINITIES.index(effect.affinity)
            pool = [t for t in pool if aff[t[2]] == want]
        if not pool:
            return None
        if sel.endswith("strongest"):
            return max(pool, key=lambda t: (self.card_points(*t), -t[2]))
        return min(pool, key=lambda t: (self.card_points(*t), t[2]))

    def _remove_from_field(self, owner: int, lane: int, card: int) -> None:
        self.field[owner][lane].remove(card)
        self.weakened[owner].pop(str(card), None)

    def _recover(self, p: int, what: str) -> bool:
        """Return the best such card from the Graveyard to the hand; False where none came back."""
        creature = self.cat.is_creature
        pool = [c for c in self.graveyard[p] if what == "any" or creature[c] == (what == "creature")]
        if not pool or len(self.hand[p]) >= HAND_LIMIT:
            return False
        best = max(pool, key=lambda c: (self.cat.cost[c], -c))
        self.graveyard[p].remove(best)
        self.hand[p].append(best)
        self.known_hand[p].append(best)
        return True

    # ------------------------------------------------------------------ hidden information
    def resample_hidden(self, player: int, rng: np.random.Generator) -> TerraloreState:
        """Re-deal what ``player`` cannot see: their own deck order, and the opponent's unknown hand
        cards, face-down cards and deck, from the opponent's hidden cards.

        Face-down cards keep their cost (the discards that paid for them were seen) and lane slots stay
        within four. The opponent's known cards (returned to their hand in view) stay in their hand or
        face down, but which of them were placed is re-dealt too: ``player`` cannot see it. Neither can
        they see which card the opponent is placing right now: an opponent choosing its lane is still
        choosing the card, and a card being paid for is re-dealt among those whose cost the discards
        seen so far leave unpaid (with its payment and slots to free as that card's).
        The world gets a generator of its own (drawn from ``rng``): future chance is re-drawn too.

        With the opaque wall, ``player`` has seen nothing of the opponent's placement this Play Phase: the
        opponent is re-dealt as they stood when it began, then places anew with uniformly random legal
        actions from the world's generator (ending their placement if they really have). ``player``'s own
        side stays as it is: lanes are per player, so their placement never depended on the opponent's.
        """
        player = check_seat(self.game, player)
        s = self.clone()
        q = 1 - player
        walled = s.game.opaque_wall and s.phase == PLAY
        # the opponent placed, or is placing, behind the wall: they start again from the Play Phase's start
        replace = walled and (self.done_placing[q] or self.actor == q)
        if walled:
            s._rewind_placement(q)
        if replace:
            s._restart_placement(q)
            s.done_placing[q] = False
        elif s.actor == q and s.decision_name == LANE:
            # on an open table the pick shows nothing until the card goes down in its lane
            s._restart_placement(q)
        rng.shuffle(s.deck[player])
        known = list(s.known_hand[q])
        unknown_hand = [c for c in s.hand[q] if c not in known]
        face_down_unknown = [c for ln in s.face_down[q] for c in ln if c not in known]
        unknown = unknown_hand + s.deck[q] + face_down_unknown
        # A "random" deck list is hidden too: its unseen cards are any catalogue cards the opponent has
        # not shown (uniform, as random_deck drew them), not the real list's. A preset or a given list
        # is part of the public game config.
        seen = set(s.deck_list[q]) - set(unknown)
        pool = [c for c in range(s.cat.size) if c not in seen] if s.game.decks[q] == "random" else unknown
        hand_size = len(s.hand[q])
        new_face_down = s._deal_face_down(q, pool, known, len(unknown), rng)
        placed = {c for ln in new_face_down for c in ln}
        hand = [c for c in known if c not in placed]
        rest = [c for c in pool if c not in placed and c not in known]
        rng.shuffle(rest)
        # as many unseen cards as the real hidden zones hold besides the face-down ones just dealt
        rest = rest[:len(unknown) - len(placed - set(known))]
        k = hand_size - len(hand)
        s.hand[q] = hand + rest[:k]
        s.deck[q] = rest[k:]
        s.face_down[q] = new_face_down
        if s.actor == q and s.pending_card >= 0:
            s._pay_for_redealt_pending_card()
        s.deck_list[q] = sorted(s.hand[q] + s.deck[q] + s.graveyard[q] + s.exile[q]
                                + [c for ln in s.field[q] + s.face_down[q] for c in ln])
        # future chance (die rolls, mulligan shuffles) is hidden too: a world keeping the real generator
        # would roll the real dice, and its state would let the deal be re-run
        s.rng = new_rng(int(rng.integers(2**63 - 1)))
        s._mask_cache = None
        if walled:
            s._play_started()[q] = s._placement_zones(q)
        if replace:
            s._place_at_random(q, finish=self.done_placing[q])
            if self.done_placing[q]:  # the turn is back with player, mid-placement as in the real state
                for name in ("actor", "decision_name", "pending_card", "pending_lane", "discards_left",
                             "slots_to_free"):
                    setattr(s, name, getattr(self, name))
                s._mask_cache = None
        return s

    def _place_at_random(self, q: int, finish: bool) -> None:
        """``q`` places with uniformly random legal actions from this state's generator until they choose to
        end placement; ``finish``: they end it too, else they stay to move (the real one is still placing)."""
        end = self.game.first_action["end_play"]
        while True:
            action = int(self.rng.choice(np.flatnonzero(self.legal_action_mask())))
            if action == end and not finish:
                return
            self.apply_legal_action(action)
            if action == end:
                return

    def _face_down_fits(self, q, real, x, slots):
        """May card ``x`` lie face down where ``q``'s card ``real`` lies, ``slots`` of its lane being taken by
        the face-up creatures and the face-down cards placed before it?"""
        cat = self.cat
        over = slots + cat.slots[x] - LANE_SLOTS if cat.is_creature[x] else 0
        if q != self.actor or real != self.pending_card:  # paid for: its cost was seen, and it fitted
            return cat.cost[x] == cat.cost[real] and over <= 0
        # the card being paid for may overfill its lane (a replace-one choice follows the discards)
        paid = cat.cost[real] - self.discards_left
        if self.decision_name == DESTROY:  # paid in full, and its lane is still over
            return cat.cost[x] == paid and over > 0
        # still discarding: playable from the hand it was picked from (cost at most the other cards)
        return paid < cat.cost[x] <= paid + len(self.hand[q])

    def _pay_for_redealt_pending_card(self) -> None:
        """The payment still due for the re-dealt card being placed, as ``_do_lane`` and the payment steps so
        far would have left it: the discards seen are paid, the slots to free are its lane's overflow."""
        q, lane, real = self.actor, self.pending_lane, self.pending_card
        card = self.face_down[q][lane][-1]
        self.discards_left = self.cat.cost[card] - (self.cat.cost[real] - self.discards_left)
        self.pending_card = card
        self.slots_to_free = max(0, self._used_slots(q, lane) - LANE_SLOTS) if self.cat.is_creature[card] else 0

    def _field_slots(self, q):
        """Slots taken by ``q``'s face-up creatures in each lane."""
        return [sum(self.cat.slots[c] for c in self.field[q][ln]) for ln in (ATTACK, DEFEND)]

    def _deal_face_down(self, q, pool, known, unknown, rng):
        """``q``'s face-down cards under :meth:`_face_down_fits`, from the ``pool`` of unseen cards and the
        ``known`` ones (seen to return to the hand), each whole deal of the hidden zones alike likely.

        A deal placing ``j`` known cards face down leaves ``unknown - (f - j)`` unseen cards for the hand's free
        places (``known`` minus ``j`` of them taken) and the deck, picked from the pool's rest: the count of
        those ways weights it. A known card is likelier face down than any one unseen card of its cost, most
        of which lie in the deck (3 in 4 against 1 in 11 with a random deck, where each card alike was).
        Cards alike in cost, kind, slots and being known fit alike: the deal picks such a kind for each place
        (:func:`counted_deal`), then cards of each kind in a random order."""
        positions = [(ln, c) for ln in (ATTACK, DEFEND) for c in self.face_down[q][ln]]
        if not positions:
            return [[], []]
        cat = self.cat
        known = set(known)
        alike: dict[tuple, list[int]] = {}
        for x in dict.fromkeys(pool + sorted(known)):
            creature = cat.is_creature[x]
            alike.setdefault((cat.cost[x], creature, cat.slots[x] if creature else 0, x in known), []).append(x)
        kinds = list(alike)
        base = self._field_slots(q)
        room, f = len(self.hand[q]) - len(known), len(positions)

        def slots(done):  # the slots taken in the lane of the next place, before it
            ln = positions[len(done)][0]
            return base[ln] + sum(kind[2] for kind, (lane, _) in zip(done, positions) if lane == ln and kind[1])

        def options(done):
            ln, real = positions[len(done)]
            taken = slots(done)
            return [(kind, len(alike[kind]) - done.count(kind)) for kind in kinds
                    if done.count(kind) < len(alike[kind]) and self._face_down_fits(q, real, alike[kind][0], taken)]

        def key(done):
            return tuple(sorted(done)), (slots(done) if len(done) < f else 0)

        def weight(done):
            j = sum(kind[3] for kind in done)
            if room + j < 0:  # more known cards left than the hand holds
                return 0
            rest = unknown - (f - j)  # the unseen cards of the hand's free places and the deck: room + j + deck
            return math.comb(len(pool) - (f - j), rest) * math.comb(rest, room + j)

        for cards in alike.values():
            rng.shuffle(cards)
        out = [[], []]
        for (ln, _), kind in zip(positions, counted_deal(f, options, rng, "the face-down cards", key, weight)):
            out[ln].append(alike[kind].pop())
        return out

    # ------------------------------------------------------------------ checks and text
    def saved_bounds(self) -> dict:
        last = len(self.cat) - 1
        return {"deck_list[][]": (0, last), "castle[]": (0, CASTLE_HP), "turn_number": (0, None),
                "phase": frozenset((MULLIGAN, PLAY, "over")), "decision_name": frozenset(DECISIONS + ("",)),
                "actor": (0, 1), "first_placer": (0, 1), "pending_card": (-1, last), "pending_lane": (-1, 1),
                "discards_left": (0, None), "slots_to_free": (0, None), "reveal_first": (-1, 1), "result[]": (-1, 1)}

    def saved_lengths(self) -> dict[str, int]:
        per_seat = ("deck_list", "deck", "hand", "field", "face_down", "graveyard", "exile", "castle", "known_hand",
                    "weakened", "mulliganed", "done_placing", "totals", "result", "play_start")
        return dict.fromkeys(per_seat, 2) | dict.fromkeys(("field[]", "face_down[]", "totals[]"), 2) | {
            "deck_list[]": DECK_SIZE}

    def check_invariants(self) -> None:
        cat = self.cat
        for p in (0, 1):
            zones = (self.hand[p] + self.deck[p] + self.graveyard[p] + self.exile[p]
                     + [c for ln in self.field[p] + self.face_down[p] for c in ln])
            invariant(sorted(zones) == self.deck_list[p], f"player {p}: cards not conserved across zones")
            invariant(len(self.deck_list[p]) == DECK_SIZE and len(set(self.deck_list[p])) == DECK_SIZE,
                      f"player {p}: the deck list is not {DECK_SIZE} different cards")
            invariant(0 <= self.castle[p] <= CASTLE_HP,
                      f"castle {p} HP {self.castle[p]} out of 0..{CASTLE_HP}")
            invariant(len(self.hand[p]) <= HAND_LIMIT, f"player {p} holds {len(self.hand[p])} > {HAND_LIMIT}")
            invariant(all(c in self.hand[p] or c in self.face_down[p][0] or c in self.face_down[p][1]
                          for c in self.known_hand[p]),
                      "a known card left the hand unseen")
            invariant(len(set(self.known_hand[p])) == len(self.known_hand[p]),
                      f"player {p}: a known card listed twice")
            for ln in (ATTACK, DEFEND):
                # while a replace-one choice is pending, the lane is over by exactly the slots to free
                freeing = self.slots_to_free if (p, ln) == (self.actor, self.pending_lane) else 0
                invariant(self._used_slots(p, ln) - freeing <= LANE_SLOTS,
                          f"player {p} lane {ln} over {LANE_SLOTS} slots")
                invariant(all(cat.is_creature[c] for c in self.field[p][ln]),
                          f"player {p} lane {ln} holds a card that is no creature")
            invariant(self.totals[p] == [self.lane_total(p, ATTACK), self.lane_total(p, DEFEND)]
                      or self.phase == "over",
                      "stale lane totals")
            for key in self.weakened[p]:
                invariant(any(int(key) in ln for ln in self.field[p]), "weakening on a card not on the field")
        if self.phase == "over":
            invariant(sum(self.result) == 0, f"the result {self.result} is not zero-sum")
        else:
            invariant(self.phase in (MULLIGAN, PLAY) and self.decision_name in DECISIONS,
                      f"no phase {self.phase!r} with the decision {self.decision_name!r}")
            invariant(self.discards_left >= 0 and self.slots_to_free >= 0,
                      f"{self.discards_left} discards and {self.slots_to_free} slots left to pay")
            self._check_pending_placement()
        for p in (0, 1):  # cards go face down in the Play Phase and turn face up in the Reveal Phase that ends it
            invariant(self.phase == PLAY or not any(self.face_down[p]), f"player {p}: face-down cards outside the Play Phase")
        if self.play_start is not None:
            self._check_play_start_shape()
        if self.game.opaque_wall and self.phase == PLAY:
            self._check_play_start()
        invariant((self.phase == "over") == bool(self.end_reason),
                  f"phase {self.phase!r} with end reason {self.end_reason!r}: a game has one exactly when it is over")

    def _check_pending_placement(self) -> None:
        """The placement in progress, if any, is one the actor could have begun: a hand card waiting for its
        lane, or the card placed face down in the lane being paid for."""
        p, card, lane = self.actor, self.pending_card, self.pending_lane
        invariant((self.phase == MULLIGAN) == (self.decision_name == MULLIGAN),
                  "the mulligan decision outside its phase")
        invariant(self.phase == MULLIGAN or self.turn_number >= 1,
                  f"the Play Phase of turn {self.turn_number}")
        if self.phase == MULLIGAN:
            # nothing is placed or recovered before the first Play Phase
            invariant(self.done_placing == [False, False] and self.known_hand == [[], []],
                      "placing done or known cards in the mulligan phase")
        else:
            # the first placer places, ends, then the other places (_do_end_play); the actor is never done
            invariant(self.done_placing == [q != p and p != self.first_placer for q in (0, 1)],
                      f"player {p} places while done_placing is {self.done_placing} (player_{self.first_placer} "
                      "places first)")
            other = 1 - p
            invariant(self.done_placing[other] or not any(self.face_down[other]),
                      f"player {other} has face-down cards before their placement began")
        cat = self.cat
        if self.decision_name in (DISCARD, DESTROY):
            # the card being paid for is the last one placed: destroys take only the ones before it
            invariant(lane in (ATTACK, DEFEND) and self.face_down[p][lane][-1:] == [card],
                      f"paying for card {card}, not the last card placed face down in lane {lane}")
            # discards come first, then the slots to free (_next_payment_step)
            invariant((self.discards_left > 0) == (self.decision_name == DISCARD)
                      and (self.decision_name == DISCARD or self.slots_to_free > 0),
                      "the payment out of step with its decision")
            # _do_lane asks for the card's cost, which the play mask left in the hand; each discard takes one
            invariant(self.discards_left <= min(cat.cost[card], len(self.hand[p])),
                      f"{self.discards_left} discards left for card {card} (cost {cat.cost[card]}), hand cards: "
                      f"{len(self.hand[p])}")
            # the slots to free are the lane's overflow, which the new creature alone made
            used = self._used_slots(p, lane)
            invariant(self.slots_to_free == max(0, used - LANE_SLOTS)
                      and used - (cat.slots[card] if cat.is_creature[card] else 0) <= LANE_SLOTS,
                      f"{self.slots_to_free} slots to free in lane {lane}, which holds {used} of {LANE_SLOTS}")
            return
        invariant(self.discards_left == self.slots_to_free == 0 and lane == -1,
                  "a payment left outside its decision")
        if self.decision_name == LANE:
            invariant(card in self.hand[p], f"choosing a lane for card {card}, not in the hand")
            invariant(cat.cost[card] < len(self.hand[p]),
                      f"choosing a lane for card {card} of cost {cat.cost[card]}, with {len(self.hand[p]) - 1} "
                      "other card(s) in the hand to pay for it")
        else:
            invariant(card == -1, f"card {card} pending outside a placement")

    def _check_play_start_shape(self) -> None:
        """``play_start`` is what ``_mark_play_start`` writes: per player, the four zones it copies, card ids."""
        invariant(self.game.opaque_wall, "a Play Phase start kept though the opaque wall is off")
        start = self._play_started()
        invariant(isinstance(start, list) and len(start) == 2
                  and all(isinstance(zones, dict) and sorted(zones) == sorted(PLACEMENT_ZONES) for zones in start),
                  f"the Play Phase start is not each player's zones {', '.join(PLACEMENT_ZONES)}")
        size = self.cat.size
        for p, zones in enumerate(start):
            field = zones["field"]
            invariant(isinstance(field, list) and len(field) == 2,
                      f"player {p}: the Play Phase start's field is not two lanes")
            for cards in (zones["hand"], zones["graveyard"], zones["known_hand"], *field):
                invariant(isinstance(cards, list) and all(type(c) is int and 0 <= c < size for c in cards),
                          f"player {p}: the Play Phase start holds a zone that is no list of card ids")

    def _check_play_start(self) -> None:
        """The remembered start of the Play Phase (opaque wall) is a position the placement since led from."""
        started = self._play_started()
        cat = self.cat
        for p in (0, 1):
            start = started[p]
            start_field = [c for ln in start["field"] for c in ln]
            invariant(sorted(start["hand"] + self.deck[p] + start["graveyard"] + self.exile[p] + start_field)
                      == self.deck_list[p],
                      f"player {p}: the Play Phase start does not hold their cards")
            # placing only takes cards from the hand and the field and adds them to the Graveyard
            invariant(set(self.hand[p]) <= set(start["hand"]),
                      f"player {p}: a hand card appeared while placing")
            invariant(all(set(now) <= set(was) for now, was in zip(self.field[p], start["field"])),
                      f"player {p}: a face-up creature appeared while placing")
            invariant(self.graveyard[p][:len(start["graveyard"])] == start["graveyard"],
                      f"player {p}: the Graveyard lost a card while placing")
            invariant(set(self.known_hand[p]) <= set(start["known_hand"]) <= set(start["hand"])
                      and len(set(start["known_hand"])) == len(start["known_hand"]),
                      f"player {p}: known cards out of step with the Play Phase start")
            # what a Play Phase begins with: a hand within the limit, lanes of creatures within their slots
            invariant(len(start["hand"]) <= HAND_LIMIT, f"player {p}: the Play Phase start holds a hand over {HAND_LIMIT}")
            invariant(all(all(cat.is_creature[c] for c in ln) and sum(cat.slots[c] for c in ln) <= LANE_SLOTS
                          for ln in start["field"]),
                      f"player {p}: the Play Phase start holds a lane no Play Phase begins with")
            # cards go face down from the hand; a player not yet placing still holds what they began with
            invariant(all(set(ln) <= set(start["hand"]) for ln in self.face_down[p]),
                      f"player {p}: a face-down card not from the hand the Play Phase began with")
            if p != self.actor and not self.done_placing[p]:
                invariant(all(getattr(self, zone)[p] == start[zone] for zone in PLACEMENT_ZONES),
                          f"player {p}: zones changed since the Play Phase began, before their placement")

    def decision_seen_by(self, player: int | None) -> str:
        """The pending decision as ``player`` may read it. The observation shows it to the actor only: another
        seat sees that the actor is placing, not which step of a placement (choosing the lane, paying),
        as behind the opaque wall, where :meth:`seen_by` shows the opponent at the Play decision."""
        if player is None or player == self.actor or self.phase != PLAY:
            return self.decision_name
        return PLAY

    def card_label(self, card: int) -> str:
        c = self.cat[card]
        if c.is_creature:
            big = f", {c.slots} slots" if c.slots > 1 else ""
            return f"{c.name} [{c.cost}c {c.points}p {c.affinity}{big}]"
        return f"{c.name} [{c.cost}c skill {c.affinity}]"

    def placing_line(self) -> str:
        """What the card being placed still asks for. While its lane is being chosen nothing is paid yet and
        ``discards_left``/``slots_to_free`` are still 0 (``_do_lane`` sets them): the cost, and the slots each
        lane would have to free, are told instead."""
        card, p = self.pending_card, self.actor
        name = self.cat.names[card]
        if self.decision_name == LANE:
            line = f"placing {name}: choose its lane, then {self.cat.cost[card]} discard(s) to pay"
            over = [max(0, self._used_slots(p, ln) + self.cat.slots[card] - LANE_SLOTS) if self.cat.is_creature[card]
                    else 0 for ln in (ATTACK, DEFEND)]
            if any(over):  # a full lane asks for a replace-one choice after the discards
                line += (f"; slot(s) to free: {over[ATTACK]} in the attacking lane, "
                         f"{over[DEFEND]} in the defending lane")
            return line
        return (f"placing {name} into the {LANE_NAMES[self.pending_lane]} lane: {self.discards_left} discard(s) "
                f"to pay, {self.slots_to_free} slot(s) to free")

    def render_text(self, player: int | None = None) -> str:
        """Both sides' castles and lanes; with ``player`` given, only what that player can see. Under the
        table, the printed text of each card it names in a hand or a lane (the Graveyard's and the Exile's
        cards no longer act)."""
        # with the opaque wall the text shows what the observation shows: the opponent behind the wall
        player = check_seat(self.game, player, spectator=True)
        s = self.seen_by(player)
        cat = s.cat
        texts: dict[int, None] = {}  # cards named in a hand or lane, in order of appearance

        def named(card: int, label: str) -> str:
            texts[card] = None
            return label

        status = ("game over: " + s.end_reason + f" (returns {s.result})") if s.phase == "over" else \
            f"{s.phase} phase, player_{s.actor} to decide ({s.decision_seen_by(player)})"
        if s.phase == "play":  # as the observation's placement flags give it
            done = [f"player_{p}" for p in (0, 1) if s.done_placing[p]]
            status += f"; player_{s.first_placer} places first" + (f", done placing: {', '.join(done)}" if done else "")
        lines = [f"Terralore — turn {s.turn_number}: {status}"]
        seats = (1 - player, player) if player is not None else (1, 0)
        for p in seats:
            hidden = player is not None and p != player
            lines.append(f"player_{p}{' (you)' if p == player else ''}: castle {s.castle[p]}/{CASTLE_HP}, "
                         f"hand {len(s.hand[p])}, deck {len(s.deck[p])}, "
                         f"graveyard {len(s.graveyard[p])}, exile {len(s.exile[p])}"
                         + (", took a mulligan" if s.mulliganed[p] else ""))
            for ln in (DEFEND, ATTACK):
                shown = [named(c, f"{cat.names[c]} {s.card_points(p, ln, c)}p"
                               + (f" ({cat.slots[c]} slots)" if cat.slots[c] > 1 else "")) for c in s.field[p][ln]]
                down = s.face_down[p][ln]
                if hidden:
                    # an unseen face-down card may be a creature taking slots: only the face-up ones count
                    used = sum(cat.slots[c] for c in s.field[p][ln])
                    slots = f"{used}/{LANE_SLOTS} slots face up" if down else f"{used}/{LANE_SLOTS} slots"
                    if down:
                        shown.append(f"{len(down)} face down")
                else:
                    slots = f"{s._used_slots(p, ln)}/{LANE_SLOTS} slots"
                    shown += [named(c, f"face down: {self.card_label(c)}") for c in down]
                lines.append(f"  {LANE_NAMES[ln]:>9} lane ({s.lane_total(p, ln):2d} pts, {slots}): "
                             + (", ".join(shown) or "-"))
            if not hidden:
                lines.append("  hand: " + (", ".join(named(c, self.card_label(c)) for c in s.hand[p]) or "-"))
            elif s.known_hand[p]:
                where = "known, in hand or face down" if any(s.face_down[p]) else "known in hand"
                lines.append(f"  {where}: " + ", ".join(named(c, cat.names[c]) for c in s.known_hand[p]))
            # open zones (the observation has them): the discards paying for a face-down card are read here
            for zone, cards in (("graveyard", s.graveyard[p]), ("exile", s.exile[p])):
                if cards:
                    lines.append(f"  {zone}: " + ", ".join(cat.names[c] for c in cards))
        printed = [c for c in texts if cat[c].text]
        if printed:
            lines.append("card texts:")
            lines += [f"  {cat.names[c]}: {cat[c].text}" for c in printed]
        if s.pending_card >= 0 and (player is None or player == s.actor):
            lines.append(s.placing_line())
        if s.log:
            lines.append("last reveal: " + "; ".join(s.log))
        return "\n".join(lines)


TerraloreGame.state_class = TerraloreState
