"""Terralore opponents: a heuristic bot, registered as ``"terralore_v0/heuristic"``.

The bot reads only the observation vector (decoded through the game's ``ObservationLayout``) and the
action mask, plus the public card catalogue. Its plan, per placement:

- play the card whose worth most exceeds the worth of the cheapest cards that would pay for it;
  stop placing when no card is worth its price;
- put creatures where they change the castle damage most: the attacking lane adds damage beyond the
  opponent's defence, the defending lane soaks the opponent's attack (face-down enemy cards are
  guessed at a few points each);
- aim targeted skills at the lane whose enemy creatures are strongest;
- pay with the least useful cards; free lane space by destroying the weakest creature.
"""

from __future__ import annotations

import numpy as np

from ..core.policy import register_policy
from .catalogue import Catalogue, default_catalogue
from .encoder import DECISION_ORDER, build_layout

#: points a face-down enemy card is guessed to add to its lane
FACE_DOWN_GUESS = 2.0
#: share of a creature's effect on this turn's counting added to its points when choosing what to play
CREATURE_GAIN = 1.0
#: cards worth no more than this are not worth placing (guards against rounding noise too)
MIN_WORTH = 0.05


class TerraloreHeuristic:
    """Greedy placement by castle-damage arithmetic; see the module docstring."""

    name = "heuristic"

    def __init__(self, catalogue: Catalogue | None = None):
        self.cat = catalogue or default_catalogue()
        self.layout = build_layout(self.cat.size)
        n = self.cat.size
        from .engine import build_action_layout

        actions = build_action_layout(self.cat)
        self.a_play = actions.start["play"]
        self.a_end = actions.start["end_play"]
        self.a_lane = actions.start["lane"]
        self.a_discard = actions.start["discard"]
        self.a_destroy = actions.start["destroy"]
        self.a_mulligan = actions.start["mulligan"]
        self.n = n
        self.points = np.array(self.cat.points, float)
        self.cost = np.array(self.cat.cost, float)
        self.is_creature = np.array(self.cat.is_creature, bool)
        self.base_worth = np.array([self._static_worth(c) for c in self.cat.cards])

    # ------------------------------------------------------------------ card worth
    def _static_worth(self, card) -> float:
        worth = float(card.points) if card.is_creature else 0.0
        for e in card.effects:
            if e.kind in ("lane_buff", "synergy"):
                worth += 1.0 * e.amount
            elif e.kind == "lane_debuff":
                worth += 1.5 * e.amount
            elif e.kind == "damage_castle":
                worth += 1.5 * e.amount
            elif e.kind == "draw":
                worth += 0.6 * e.amount
            elif e.kind in ("destroy", "exile"):
                worth += -1.0 if e.target == "own_here_weakest" else 3.0
            elif e.kind == "weaken":
                worth += 0.6 * e.amount
            elif e.kind == "move":
                worth += 1.5
            elif e.kind == "recover":
                worth += 1.0
            elif e.kind == "heal_castle":
                worth += 0.5 * e.amount
        return worth

    def _worth(self, card: int, view) -> float:
        """Worth of playing ``card`` now; a skill's targeted effects are judged in its best lane."""
        worth = self.base_worth[card] - self._deck_out_risk(card, view)
        if self.is_creature[card]:
            return worth + CREATURE_GAIN * max(0.0, self._creature_gain(card, view))
        for e in self.cat[card].effects:
            if e.kind == "heal_castle":
                missing = 10 - round(view["castles"][0] * 10)
                worth += 0.7 * min(missing, e.amount) - 0.5 * e.amount
            elif e.kind in ("destroy", "exile", "weaken", "move"):
                worth -= self._static_worth_of(e)
        return worth + max(self._skill_gain(card, view, lane) for lane in (0, 1))

    def _creature_gain(self, card: int, view) -> float:
        """How much this turn's counting improves with the creature in its better lane (lethal shows here)."""
        own_att, own_def, opp_att, opp_def = self._lane_estimates(view)
        pts = self.points[card]
        before = self._balance(view, own_att, own_def, opp_att, opp_def)
        return max(self._balance(view, own_att + pts, own_def, opp_att, opp_def),
                   self._balance(view, own_att, own_def + pts, opp_att, opp_def)) - before

    def _deck_out_risk(self, card: int, view) -> float:
        """Extra draws late in the game make you the first to run out of cards: price them in."""
        draws = sum(e.amount for e in self.cat[card].effects if e.kind == "draw")
        if not draws:
            return 0.0
        mine, theirs = view["deck_sizes"] * 20
        if mine <= 10 and mine - draws < theirs + 1:
            return 0.6 * draws + 3.0
        return 0.0

    def _static_worth_of(self, e) -> float:
        if e.kind in ("destroy", "exile"):
            return 3.0
        return 0.6 * e.amount if e.kind == "weaken" else 1.5

    def _skill_gain(self, card: int, view, lane: int) -> float:
        """Change of this turn's castle-damage balance if the skill's targeted effects hit in ``lane``."""
        own_att, own_def, opp_att, opp_def = self._lane_estimates(view)
        before = self._balance(view, own_att, own_def, opp_att, opp_def)
        # enemies "here": my attacking lane faces their defending lane and vice versa
        lanes = {0: [int(c) for c in np.flatnonzero(view["opp_defending"])],
                 1: [int(c) for c in np.flatnonzero(view["opp_attacking"])]}
        totals = {0: opp_def, 1: opp_att}
        for e in self.cat[card].effects:
            if e.kind not in ("destroy", "exile", "weaken", "move") or not e.target.startswith("enemy"):
                continue
            pool = lanes[0] + lanes[1] if e.target == "enemy_any_strongest" else lanes[lane]
            if e.affinity is not None:
                pool = [c for c in pool if self.cat[c].affinity == e.affinity]
            if not pool:
                continue
            pick = max if e.target.endswith("strongest") else min
            victim = pick(pool, key=lambda c: self.points[c])
            where = 0 if victim in lanes[0] else 1
            hit = min(self.points[victim], e.amount) if e.kind == "weaken" else self.points[victim]
            totals[where] -= hit
            if e.kind == "move":
                totals[1 - where] += hit
        after = self._balance(view, own_att, own_def, totals[1], totals[0])
        return after - before

    def _balance(self, view, own_att, own_def, opp_att, opp_def) -> float:
        """How good this turn's counting looks: lethal either way dominates, else damage dealt minus taken."""
        my, their = view["castles"] * 10
        taken = max(0.0, opp_att - own_def)
        dealt = max(0.0, own_att - opp_def)
        mine_left, theirs_left = my - taken, their - dealt
        if theirs_left <= 0 < mine_left:
            return 100.0
        if mine_left <= 0 < theirs_left:
            return -100.0
        if mine_left <= 0 and theirs_left <= 0:
            return 50.0 if own_att + own_def > opp_att + opp_def else -50.0
        return dealt - 1.3 * taken

    # ------------------------------------------------------------------ policy
    def act(self, observation, action_mask, rng) -> int:
        view = {name: self.layout.view(observation, name) for name in self.layout.segments}
        decision = DECISION_ORDER[int(np.argmax(view["decision"]))] if view["decision"].any() else "play"
        legal = np.flatnonzero(action_mask)
        if decision == "mulligan":
            return self.a_mulligan  # keep: a card fewer costs more than a better hand gains
        if decision == "play":
            return self._choose_play(view, action_mask)
        if decision == "lane":
            return self.a_lane + self._choose_lane(view)
        if decision == "discard":
            return self._choose_discard(view, action_mask)
        if decision == "destroy":
            own = np.flatnonzero(action_mask[self.a_destroy:self.a_destroy + self.n])
            return self.a_destroy + int(min(own, key=lambda c: (self.points[c], c)))
        return int(legal[0])

    def _plan(self, hand: list[int], budget: int, view) -> list[int]:
        """The cards to place from ``hand`` that are worth most together, each costing its cost plus
        itself out of ``budget`` cards (the rest of the hand pays the costs)."""
        worth = {c: self._worth(c, view) for c in hand}
        useful = [c for c in hand if worth[c] > MIN_WORTH]
        best, best_value = [], 0.0
        for bits in range(1, 1 << len(useful)):
            chosen = [c for i, c in enumerate(useful) if bits >> i & 1]
            if sum(self.cat.cost[c] + 1 for c in chosen) > budget:
                continue
            value = sum(worth[c] for c in chosen)
            if value > best_value:
                best, best_value = chosen, value
        return best

    def _choose_play(self, view, mask) -> int:
        hand = [int(c) for c in np.flatnonzero(view["hand"])]
        plan = self._plan(hand, len(hand), view)
        if not plan:
            return self.a_end
        card = max(plan, key=lambda c: (self._worth(c, view), -c))
        if not mask[self.a_play + card]:
            return self.a_end
        return self.a_play + card

    def _choose_discard(self, view, mask) -> int:
        hand = [int(c) for c in np.flatnonzero(mask[self.a_discard:self.a_discard + self.n])]
        left = round(view["payment"][0] * 6)
        keep = set(self._plan(hand, len(hand) - left, view))
        spare = [c for c in hand if c not in keep] or hand
        return self.a_discard + min(spare, key=lambda c: (self._worth(c, view), c))

    def _lane_estimates(self, view) -> tuple[float, float, float, float]:
        own_att = view["lane_points"][0] * 10 + self.points[view["own_face_down_attacking"] > 0].sum()
        own_def = view["lane_points"][1] * 10 + self.points[view["own_face_down_defending"] > 0].sum()
        fd = view["opp_face_down_counts"] * 20
        opp_att = view["lane_points"][2] * 10 + FACE_DOWN_GUESS * fd[0]
        opp_def = view["lane_points"][3] * 10 + FACE_DOWN_GUESS * fd[1]
        return own_att, own_def, opp_att, opp_def

    def _choose_lane(self, view) -> int:
        card = int(np.argmax(view["pending_card"]))
        if not self.is_creature[card]:
            return int(self._skill_gain(card, view, 1) > self._skill_gain(card, view, 0))
        own_att, own_def, opp_att, opp_def = self._lane_estimates(view)
        pts = self.points[card]
        attack = self._balance(view, own_att + pts, own_def, opp_att, opp_def)
        defend = self._balance(view, own_att, own_def + pts, opp_att, opp_def)
        if attack == defend >= 100.0:
            return 1  # the attack is already lethal: more defence guards against what we cannot see
        return 0 if attack >= defend else 1


register_policy("terralore_v0/heuristic", TerraloreHeuristic)
