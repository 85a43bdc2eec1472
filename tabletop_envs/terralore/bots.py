"""Terralore opponents: a heuristic bot, registered as ``"terralore_v0/heuristic"``.

The bot reads only the observation vector (decoded through the game's ``ObservationLayout``) and the
action mask, plus the public card catalogue. Its plan, at every placement:

- a card's worth is what lasts (points, lane effects, cards drawn or recovered, castle HP) plus how
  much it improves this turn's counting in its better lane: the attacking lane adds damage beyond
  the opponent's defence, the defending lane soaks their attack, removal takes points off a lane,
  castle damage and healing count too; a lethal attack (or avoiding one) outweighs everything.
  Face-down enemy cards are guessed at a few points each;
- place the set of cards worth most together that the hand can pay for (each card costs itself
  plus its cost in discards), best card first; stop when nothing is worth placing;
- pay with the cards outside that set that are worth least; free lane space by destroying the
  weakest creature; draw effects are avoided when they would run the deck out first;
- once the attack is lethal, further creatures defend.
"""

from __future__ import annotations

import numpy as np

from ..core.policy import check_policy_input, register_policy, whole_counts
from .catalogue import Catalogue, default_catalogue
from .encoder import DECISION_ORDER, build_layout

#: points a face-down enemy card is guessed to add to its lane
FACE_DOWN_GUESS = 2.0
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
        self.num_actions = actions.num_actions
        self.n = n
        self.points = np.array(self.cat.points, float)
        self.cost = np.array(self.cat.cost, float)
        self.is_creature = np.array(self.cat.is_creature, bool)
        self.lasting = np.array([self._lasting_worth(c) for c in self.cat.cards])

    # ------------------------------------------------------------------ card worth
    def _lasting_worth(self, card) -> float:
        """What a card is worth beyond this turn's counting: points, lane effects, cards gained."""
        worth = float(card.points) if card.is_creature else 0.0
        for e in card.effects:
            if e.kind in ("lane_buff", "synergy"):
                worth += 1.0 * e.amount
            elif e.kind == "lane_debuff":
                worth += 1.5 * e.amount
            elif e.kind == "draw":
                worth += 0.6 * e.amount
            elif e.kind == "recover":
                worth += 1.0
            elif e.kind == "destroy" and e.target == "own_here_weakest":
                worth -= 1.0
        return worth

    def _worth(self, card: int, view) -> float:
        """Worth of placing ``card`` now: what lasts (points, lane effects, cards, castle HP) plus how
        much it improves this turn's counting in its better lane."""
        known = view["_worth"].get(card)
        if known is None:
            known = view["_worth"][card] = (
                self.lasting[card] + self._castle_worth(card, view) - self._deck_out_risk(card, view)
                + max(0.0, max(self._gain(card, view, lane) for lane in (0, 1))))
        return known

    def _castle_worth(self, card: int, view) -> float:
        missing = 10 - round(view["castles"][0] * 10)
        worth = 0.0
        for e in self.cat[card].effects:
            if e.kind == "heal_castle":
                worth += 0.7 * min(missing, e.amount)
            elif e.kind == "damage_castle" and e.amount is not None:  # (the catalogue refuses one without)
                worth += 1.0 * e.amount
        return worth

    def _deck_out_risk(self, card: int, view) -> float:
        """Extra draws late in the game make you the first to run out of cards: price them in."""
        draws = sum(e.amount for e in self.cat[card].effects if e.kind == "draw" and e.amount is not None)
        if not draws:
            return 0.0
        mine, theirs = whole_counts(view["deck_sizes"], 20)
        if mine <= 10 and mine - draws < theirs + 1:
            return 0.6 * draws + 3.0
        return 0.0

    def _gain(self, card: int, view, lane: int) -> float:
        """Change of this turn's counting outlook with ``card`` in ``lane``: its points, the enemy
        creatures its effects remove, weaken or move, and its castle healing and damage."""
        own_att, own_def, opp_att, opp_def = view["_estimates"]
        own = [own_att, own_def]
        if self.is_creature[card]:
            own[lane] += self.points[card]
        enemies = view["_enemies"]
        facing = {0: opp_def, 1: opp_att}
        heal = burn = 0
        for e in self.cat[card].effects:
            # (the catalogue refuses a heal or a damage without an amount, these four kinds without a target)
            if e.kind == "heal_castle" and e.amount is not None:
                heal += e.amount
            elif e.kind == "damage_castle" and e.amount is not None:
                burn += e.amount
            elif e.kind in ("destroy", "exile", "weaken", "move") and e.target and e.target.startswith("enemy"):
                pool = enemies[0] + enemies[1] if e.target == "enemy_any_strongest" else enemies[lane]
                if e.affinity is not None:
                    pool = [c for c in pool if self.cat[c].affinity == e.affinity]
                if not pool:
                    continue
                pick = max if e.target.endswith("strongest") else min
                victim = pick(pool, key=lambda c: self.points[c])
                where = 0 if victim in enemies[0] else 1
                hit = min(self.points[victim], e.amount) if e.kind == "weaken" else self.points[victim]
                facing[where] -= hit
                if e.kind == "move":
                    facing[1 - where] += hit
        return self._balance(view, own[0], own[1], facing[1], facing[0], heal, burn) - view["_before"]

    def _balance(self, view, own_att, own_def, opp_att, opp_def, heal=0, burn=0) -> float:
        """How good this turn's counting looks: lethal either way dominates, else damage dealt minus taken."""
        my, their = view["_castle_hp"]
        taken = max(0.0, opp_att - own_def)
        dealt = max(0.0, own_att - opp_def)
        mine_left, theirs_left = min(10.0, my + heal) - taken, their - burn - dealt
        if theirs_left <= 0 < mine_left:
            return 100.0
        if mine_left <= 0 < theirs_left:
            return -100.0
        if mine_left <= 0 and theirs_left <= 0:
            return 50.0 if own_att + own_def > opp_att + opp_def else -50.0
        return dealt - 1.3 * taken

    # ------------------------------------------------------------------ policy
    def act(self, observation, action_mask, rng) -> int:
        check_policy_input("terralore_v0/heuristic", observation, action_mask, self.layout.size, self.num_actions)
        # lists too; float32 as the env gives it, so a float64 copy reads the same
        observation, action_mask = np.asarray(observation, np.float32), np.asarray(action_mask)
        view = _SegmentViews(self.layout, observation)
        # what every card's worth is measured against, computed once per decision
        view["_castle_hp"] = tuple(whole_counts(view["castles"], 10))  # (mine, theirs)
        view["_estimates"] = self._lane_estimates(view)
        view["_before"] = self._balance(view, *view["_estimates"])
        # enemies "here": my attacking lane (0) faces their defending lane and vice versa
        view["_enemies"] = {0: [int(c) for c in np.flatnonzero(view["opp_defending"])],
                            1: [int(c) for c in np.flatnonzero(view["opp_attacking"])]}
        view["_worth"] = {}
        decision = DECISION_ORDER[int(np.argmax(view["decision"]))] if view["decision"].any() else "play"
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
        return int(np.flatnonzero(action_mask)[0])

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
        points = whole_counts(view["lane_points"], 10)
        own_att = points[0] + self.points[view["own_face_down_attacking"] > 0].sum()
        own_def = points[1] + self.points[view["own_face_down_defending"] > 0].sum()
        fd = whole_counts(view["opp_face_down_counts"], 20)
        opp_att = points[2] + FACE_DOWN_GUESS * fd[0]
        opp_def = points[3] + FACE_DOWN_GUESS * fd[1]
        return own_att, own_def, opp_att, opp_def

    def _choose_lane(self, view) -> int:
        card = int(np.argmax(view["pending_card"]))
        attack, defend = self._gain(card, view, 0), self._gain(card, view, 1)
        if self.is_creature[card] and attack == defend and view["_before"] + attack >= 100.0:
            return 1  # the attack is already lethal: more defence guards against what we cannot see
        return 0 if attack >= defend else 1


class _SegmentViews(dict):
    """The observation's segments by name, each cut out the first time a decision reads it (a
    decision reads about half of them); the bot's own working values are stored alongside."""

    def __init__(self, layout, observation):
        super().__init__()
        self._layout, self._observation = layout, observation

    def __missing__(self, name):
        part = self[name] = self._layout.view(self._observation, name)
        return part


register_policy("terralore_v0/heuristic", TerraloreHeuristic)
