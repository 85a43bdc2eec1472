"""The Terralore observation: what one player may know, as one flat float32 vector.

Card segments are indexed by catalogue card id. A player sees their own hand, lanes and face-down
cards; of the opponent only face-up creatures, how many face-down cards
sit in each lane, cards publicly returned to their hand, and hand/deck sizes; both Graveyards and
Exiles; castles, lane totals, the turn, and their own pending decision. With the ``opaque_wall``
option the state is encoded through ``state.seen_by(player)``: during the Play Phase the opponent is
written as they stood when it began.
"""

from __future__ import annotations

import numpy as np

from ..core.layout import ObservationLayout
from .catalogue import DECK_SIZE, Catalogue

DECISION_ORDER = ("mulligan", "play", "lane", "discard", "destroy")
_DECISION_INDEX = {d: i for i, d in enumerate(DECISION_ORDER)}
_MAX_TURN = 25.0  # decks of 20 run out by turn 10; the bound only needs to hold


def build_layout(n: int) -> ObservationLayout:
    def cards(name, what):
        return (name, n, 0, 1, f"1 where card *i* (catalogue id) {what}")

    return ObservationLayout([
        cards("hand", "is in your hand"),
        cards("own_attacking", "is your face-up creature in your attacking lane"),
        cards("own_defending", "is your face-up creature in your defending lane"),
        cards("own_face_down_attacking", "is your face-down card in your attacking lane"),
        cards("own_face_down_defending", "is your face-down card in your defending lane"),
        cards("opp_attacking", "is the opponent's face-up creature in their attacking lane (your defending lane)"),
        cards("opp_defending", "is the opponent's face-up creature in their defending lane (your attacking lane)"),
        cards("opp_known_hand", "was returned to the opponent's hand in view (from their Graveyard) and not "
                                  "seen since: in their hand, or one of their face-down cards"),
        cards("own_graveyard", "is in your Graveyard"),
        cards("opp_graveyard", "is in the opponent's Graveyard"),
        cards("own_exile", "is in your Exile"),
        cards("opp_exile", "is in the opponent's Exile"),
        cards("pending_card", "is the card you are placing now"),
        ("lane_points", 4, 0, 10, "face-up points / 10: your attacking, your defending, opponent's attacking, "
                                  "opponent's defending lane"),
        ("castles", 2, 0, 1, "castle HP / 10: yours, the opponent's"),
        ("hand_sizes", 2, 0, 1, "hand size / 7: yours, the opponent's"),
        ("deck_sizes", 2, 0, 1, "deck size / 20: yours, the opponent's"),
        ("opp_face_down_counts", 2, 0, 1, "number of the opponent's face-down cards / 20: attacking, defending lane "
                                               "(0 with opaque_wall, the default)"),
        ("turn", 1, 0, 1, f"turn number / {_MAX_TURN:g}"),
        ("phase", 2, 0, 1, "one-hot phase: mulligan, play"),
        ("decision", 5, 0, 1, "one-hot decision you must take now (all 0 when it is not your move): "
                              + ", ".join(DECISION_ORDER)),
        ("pending_lane", 2, 0, 1, "one-hot lane of the card you are placing: attacking, defending"),
        ("payment", 2, 0, 1, "cards still to discard / 6, lane slots still to free / 4"),
        ("placement", 3, 0, 1, "you place first this turn, you have finished placing, the opponent has finished"),
        ("mulliganed", 2, 0, 1, "you took a mulligan, the opponent took a mulligan"),
        ("reveal_first", 2, 0, 1, "one-hot who revealed first last Reveal Phase: you, the opponent"),
    ])


class Encoder:
    """Writes ``state`` from ``player``'s view into the layout; offsets are precomputed."""

    def __init__(self, catalogue: Catalogue):
        self.n = catalogue.size
        self.layout = build_layout(self.n)
        s = self.layout.segments
        self.off = {name: seg.start for name, seg in s.items()}
        self.tail_start = s["lane_points"].start
        # the index list is the hot part of encode
        self._adds = self.layout.column_adders(
            "hand", "own_attacking", "own_defending", "own_face_down_attacking", "own_face_down_defending",
            "opp_attacking", "opp_defending", "opp_known_hand", "own_graveyard", "opp_graveyard",
            "own_exile", "opp_exile")

    def encode(self, state, player: int) -> np.ndarray:
        p, q = player, 1 - player
        o = self.off
        vec = np.zeros(self.layout.size, np.float32)
        fd_p, fd_q = state.face_down[p], state.face_down[q]
        field_p, field_q = state.field[p], state.field[q]
        hand, own_a, own_d, own_fa, own_fd, opp_a, opp_d, opp_known, own_g, opp_g, own_x, opp_x = self._adds
        idx = [*map(hand, state.hand[p]),
               *map(own_a, field_p[0]), *map(own_d, field_p[1]),
               *map(own_fa, fd_p[0]), *map(own_fd, fd_p[1]),
               *map(opp_a, field_q[0]), *map(opp_d, field_q[1]),
               *map(opp_known, state.known_hand[q]),
               *map(own_g, state.graveyard[p]), *map(opp_g, state.graveyard[q]),
               *map(own_x, state.exile[p]), *map(opp_x, state.exile[q])]
        mine = state.actor == p and state.phase != "over"
        if mine and state.pending_card >= 0:
            idx.append(o["pending_card"] + state.pending_card)
        vec.put(idx, 1.0)

        decision = [0.0] * 5
        pending_lane = [0.0, 0.0]
        payment = [0.0, 0.0]
        if mine:
            decision[_DECISION_INDEX[state.decision_name]] = 1.0
            if state.pending_lane >= 0:
                pending_lane[state.pending_lane] = 1.0
            payment = [state.discards_left / 6.0, state.slots_to_free / 4.0]
        rf = state.reveal_first
        tp, tq = state.totals[p], state.totals[q]
        vec[self.tail_start:] = [
            tp[0] / 10.0, tp[1] / 10.0, tq[0] / 10.0, tq[1] / 10.0,
            state.castle[p] / 10.0, state.castle[q] / 10.0,
            len(state.hand[p]) / 7.0, len(state.hand[q]) / 7.0,
            len(state.deck[p]) / DECK_SIZE, len(state.deck[q]) / DECK_SIZE,
            len(fd_q[0]) / 20.0, len(fd_q[1]) / 20.0,
            min(state.turn_number / _MAX_TURN, 1.0),
            float(state.phase == "mulligan"), float(state.phase == "play"),
            *decision, *pending_lane, *payment,
            float(state.first_placer == p), float(state.done_placing[p]), float(state.done_placing[q]),
            float(state.mulliganed[p]), float(state.mulliganed[q]),
            float(rf == p), float(rf == q),
        ]
        return vec
