"""Earth opponents. ``earth_v0/heuristic``: a greedy bot reading only the observation vector and mask
(card data is public knowledge, so it looks card ids up in the catalogue)."""

from __future__ import annotations

import numpy as np

from tabletop_envs.core.policy import check_policy_input, register_policy, whole_counts

from .catalogue import load_catalogue
from .engine import DECISIONS, EVENT0, build_action_layout, build_observation_layout


class EarthHeuristic:
    """Plant the best affordable card when it can, otherwise build soil, sprouts or growth; take every
    ability; place every sprout and growth; compost the weakest cards."""

    name = "heuristic"

    def __init__(self, data_dir: str | None = None):
        self.cat = cat = load_catalogue(data_dir)  # the game's own cards: a custom data_dir has other values
        self.obs = build_observation_layout()
        self.acts = build_action_layout(cat)
        self.A = {n: s.start for n, s in self.acts.segments.items()}
        # a card's worth when planted: printed VP, 0.6 a point of canopy, a little per sprout space
        self.worth = (cat.vp + 0.6 * cat.canopy + 0.35 * cat.sprout_spaces).astype(float)
        self.worth[EVENT0:] = -5.0
        self.keep_value = self.worth - 0.45 * cat.cost
        self.island_value = np.array([s["vp"] + s["soil"] + 0.7 * s["draw"] - 0.3 * s["compost"]
                                      for s in cat.islands])

    def _seg(self, vec, name):
        return self.obs.view(vec, name)

    def act(self, observation, action_mask, rng) -> int:
        legal = check_policy_input("earth_v0/heuristic", observation, action_mask, self.obs.size, self.acts.num_actions)
        if legal.size == 1:
            return int(legal[0])
        # lists too; float32 as the env gives it, so a float64 copy reads the same
        observation, action_mask = np.asarray(observation, np.float32), np.asarray(action_mask)
        dec = DECISIONS[int(np.argmax(self._seg(observation, "decision")))]
        A = self.A
        pick = getattr(self, "_" + dec, None)
        choice = pick(observation, action_mask, legal) if pick else None
        if choice is not None:
            return int(choice)
        non_anytime = [a for a in legal if not (A["event"] <= a < A["convert"] + 1)]
        return int(non_anytime[0] if non_anytime else legal[0])

    # ------------------------------------------------------------------ helpers
    def _in(self, legal, seg):
        s = self.acts.segments[seg]
        return [a - s.start for a in legal if s.start <= a < s.stop]

    def _hand(self, obs):
        return np.flatnonzero(self._seg(obs, "hand"))

    def _soil(self, obs):
        # a whole number: float32(7 / 40) * 40 is 6.9999999 in float64 (NumPy 1's scalar arithmetic, or a
        # float64 observation), and a card costing 7 would look unaffordable
        return float(whole_counts(self._seg(obs, "resources")[0, 0], 40))

    def _my_cells(self, obs):
        return self._seg(obs, "cells")[0]

    # ------------------------------------------------------------------ decisions
    def _side(self, obs, mask, legal):
        isl = self._in(legal, "side_island")
        if isl:
            return self.A["side_island"] + max(isl, key=lambda i: self.island_value[i])
        return None

    def _setup_compost(self, obs, mask, legal):
        cards = self._in(legal, "card")
        return self.A["card"] + min(cards, key=lambda c: self.keep_value[c])

    _pay_hand = _setup_compost

    def _compost_hand(self, obs, mask, legal):
        cards = self._in(legal, "card")
        if len(self._hand(obs)) <= 5:
            return self.A["pass"]
        return self.A["card"] + min(cards, key=lambda c: self.keep_value[c])

    def _action(self, obs, mask, legal):
        """Pick the action with the best rough VP estimate for this turn (planting also counts
        progress towards the 16 cards that end the game)."""
        acts = self._in(legal, "action")
        soil = self._soil(obs)
        cells = self._my_cells(obs)
        empty = 16 - int(cells[:, 0].sum())
        hand = [c for c in self._hand(obs) if c < EVENT0]
        affordable = sorted((self.worth[c] for c in hand if self.cat.cost[c] <= soil), reverse=True)
        room_s, room_g = _room(cells, 5, -2, 6), _room(cells, 3, -1, 8)
        value = {
            0: (sum(affordable[:2]) + 2.5 * min(len(affordable), 2)) if empty else -1.0,
            1: 2.0 + 0.35 * 5 + (2.0 if soil < 4 and hand else 0.0),
            2: min(6.0, room_s) + 0.35 * 2,
            3: 1.4 * min(2.0, room_g) + 0.3 * 4 + (1.5 if not hand else 0.0),
        }
        best = max(acts, key=lambda a: value.get(a, -2.0))
        return self.A["action"] + best

    def _plant(self, obs, mask, legal):
        cards = self._in(legal, "plant")
        if not cards:
            return self.A["pass"]
        return self.A["plant"] + max(cards, key=lambda c: self.worth[c] - 0.1 * self.cat.cost[c])

    def _plant_cell(self, obs, mask, legal):
        return self.A["cell"] + self._in(legal, "cell")[0]

    def _keep(self, obs, mask, legal):
        return self.A["card"] + max(self._in(legal, "card"), key=lambda c: self.keep_value[c])

    def _option(self, obs, mask, legal):
        action = int(np.argmax(self._seg(obs, "action")))
        cells = self._my_cells(obs)
        if action == 1:  # compost: soil when short, else 2 compost (2 VP)
            return self.A["option"] + (0 if self._soil(obs) < 8 else 1)
        if action == 2:
            return self.A["option"] + (0 if _room(cells, 5, -2, 6) >= 2 else 1)
        return self.A["option"] + (1 if _room(cells, 3, -1, 8) >= 2 else 0)

    def _place(self, obs, mask, legal):
        cells = self._in(legal, "cell")
        if not cells:
            return self.A["pass"]
        feats = self._my_cells(obs)
        # growth first where the canopy is closest (the canopy pays its printed VP); float32 array arithmetic,
        # as NumPy 2 does on these scalars (NumPy 1's scalar arithmetic widens to float64 and breaks ties otherwise)
        key = feats[:, -1] * np.float32(8) - feats[:, 3] * np.float32(8) + feats[:, 4]
        return self.A["cell"] + max(cells, key=lambda i: key[i])

    def _pay(self, obs, mask, legal):
        cells = self._in(legal, "cell")
        feats = self._my_cells(obs)
        return self.A["cell"] + max(cells, key=lambda i: feats[i, -2] + feats[i, -1] - feats[i, 4])

    def _activate(self, obs, mask, legal):
        slots = self._in(legal, "activate")
        return self.A["activate"] + slots[0] if slots else self.A["pass"]

    def _copy(self, obs, mask, legal):
        return self.A["activate"] + self._in(legal, "activate")[0]

    def _window(self, obs, mask, legal):
        events = [EVENT0 + e for e in self._in(legal, "event")]
        good = [c for c in events if self.cat.vp[c] >= 0 and not self.cat.earth[c]["abilities"][0].get("cost")]
        if good:
            return self.A["event"] + good[0] - EVENT0
        return self.A["pass"]

    def _pay_method(self, obs, mask, legal):
        return self.A["option"]  # soil: sprouts, growth and compost cards are worth VP


def _make(game_config: dict | None = None) -> EarthHeuristic:
    return EarthHeuristic(data_dir=(game_config or {}).get("data_dir"))


register_policy("earth_v0/heuristic", _make, overwrite=True)


def _room(cells: np.ndarray, spaces: int, pieces: int, scale: int) -> float:
    """Free sprout (or growth) spaces over the player's flora as a whole number: the observation holds each
    cell's spaces and pieces scaled down (/ 6 sprouts, / 8 growth), and in float32 (3 - 1) / 6 * 6 is
    1.9999999, which read a room of 2 as too small for "place up to 2 sprouts"."""
    return float(((whole_counts(cells[:, spaces], scale) - whole_counts(cells[:, pieces], scale)) * cells[:, 0]).sum())
