"""Observation encoding (what one seat may see) and resampling of everything that seat cannot see."""

from __future__ import annotations

import numpy as np

from tabletop_envs.core.engine import new_rng

from .catalogue import ACTIONS, COLOURS, NUM_EARTH, NUM_ISLANDS, NUM_PLANTABLE_IDS

DECISION_INDEX = None
EVENT0 = NUM_PLANTABLE_IDS


def _layout_offsets(game):
    cache = getattr(game, "_obs_offsets", None)
    if cache is None:
        from .engine import DECISIONS

        lay = game.observation_layout
        cache = {name: seg.start for name, seg in lay.segments.items()}
        cache["_decision_index"] = {d: i for i, d in enumerate(DECISIONS)}
        game._obs_offsets = cache
    return cache


def encode(s, player: int) -> np.ndarray:
    game = s.game
    lay = game.observation_layout
    o = _layout_offsets(game)
    v = np.zeros(lay.size, np.float32)
    n = s.n
    rel = [(q - player) % n for q in range(n)]
    phase = {"setup": 0, "play": 1, "over": 2}[s.phase]
    v[o["phase"] + phase] = 1
    if s.phase != "over":
        task = s.queue[0]
        decider = task["p"]
        v[o["decider"] + rel[decider]] = 1
        if decider == player:
            v[o["decision"] + o["_decision_index"][task["t"]]] = 1
            if "colour" in task:
                v[o["activation_colour"] + COLOURS.index(task["colour"])] = 1
            v[o["pending_count"]] = min(task.get("left", 0) / 12.0, 1.0)
            if task["t"] == "plant_cell":
                v[o["pending_card"] + task["card"]] = 1
    v[o["active"] + rel[s.active]] = 1
    v[o["first"] + rel[s.first]] = 1
    v[o["seats_in_game"]:o["seats_in_game"] + n] = 1
    if s.action >= 0:
        v[o["action"] + s.action] = 1
    v[o["round"]] = min(s.rounds / 100.0, 1.0)
    v[o["end_triggered"]] = float(s.end_triggered)
    v[o["deck"]] = len(s.deck) / NUM_EARTH
    v[o["deck"] + 1] = len(s.discard) / NUM_EARTH
    if s.hands[player]:
        v[o["hand"] + np.asarray(s.hands[player])] = 1
    if s.drawn[player]:
        v[o["drawn"] + np.asarray(s.drawn[player])] = 1
    if s.eco[player] >= 0:
        v[o["my_ecosystem"] + s.eco[player]] = 1
    elif s.phase == "setup":
        for c in s.offers["ecosystem"][player]:
            v[o["my_ecosystem"] + 2 * c: o["my_ecosystem"] + 2 * c + 2] = 1
    if s.phase == "setup":
        for c in s.offers["island"][player]:
            v[o["my_offers"] + 2 * c: o["my_offers"] + 2 * c + 2] = 1
        for c in s.offers["climate"][player]:
            v[o["my_offers"] + NUM_ISLANDS + 2 * c: o["my_offers"] + NUM_ISLANDS + 2 * c + 2] = 1
    for e in s.public_eco:
        v[o["public_ecosystems"] + e] = 1
    for f, side in enumerate(s.fauna):
        v[o["fauna"] + f * 46 + side] = 1
        for k, q in enumerate(s.leaves[f]):
            v[o["fauna_leaves"] + f * 5 + rel[q]] = max(6 - (k + 1), 1) / 5.0
    if s.bonus >= 0:
        v[o["bonus"] + rel[s.bonus]] = 1
    cat = game.cat
    feats = cat.card_features
    cells_w = feats.shape[1] + 2
    for q in range(n):
        r = rel[q]
        base = o["resources"] + r * 6
        v[base] = min(s.soil[q] / 40.0, 1.0)
        v[base + 1] = min(len(s.hands[q]) / 30.0, 1.0)
        v[base + 2] = min(len(s.compost[q]) / 30.0, 1.0)
        v[base + 3] = min(len(s.events[q]) / 10.0, 1.0)
        grid = s.grid[q]
        occupied = [c for c in grid if c >= 0]
        v[base + 4] = len(occupied) / 16.0
        v[base + 5] = float(q == s.active)
        if s.last_action[q] >= 0:
            v[o["last_action"] + r * 4 + s.last_action[q]] = 1
        public = s.phase != "setup" or q == player
        if public and s.island[q] >= 0:
            v[o["island"] + r * NUM_ISLANDS + s.island[q]] = 1
        if public and s.climate[q] >= 0:
            v[o["climate"] + r * 20 + s.climate[q]] = 1
        if s.events[q]:
            v[o["event_stack"] + r * 38 + np.asarray(s.events[q]) - EVENT0] = 1
        if occupied:
            v[o["tableau_cards"] + r * NUM_PLANTABLE_IDS + np.asarray(occupied)] = 1
            start = o["cells"] + r * 16 * cells_w
            block = v[start:start + 16 * cells_w].reshape(16, cells_w)
            block[:, :-2] = feats[grid]  # row -1 of feats is the empty cell
            block[:, -2] = np.asarray(s.spr[q], np.float32) / 6.0
            block[:, -1] = np.asarray(s.gro[q], np.float32) / 8.0
    return v


def resample(s, player: int, rng: np.random.Generator):
    """A copy where every Earth card ``player`` cannot see (deck order, others' hands and draws, unknown
    compost cards) and the other players' personal ecosystems are re-dealt, keeping every size."""
    t = s.clone()
    n = t.n
    slots = []  # (list, index) positions whose card is hidden from player
    for i in range(len(t.deck)):
        slots.append((t.deck, i))
    for q in range(n):
        if q != player:
            for zone in (t.hands[q], t.drawn[q]):
                slots += [(zone, i) for i in range(len(zone))]
        for i, known in enumerate(t.compost_known[q]):
            if q != player or not known:
                slots.append((t.compost[q], i))
    pool = [zone[i] for zone, i in slots]
    if t.queue and t.queue[0]["t"] == "plant_cell" and t.queue[0]["p"] != player:
        # the card being planted is committed; keep it where it is
        keep = t.queue[0]["card"]
        slots = [(z, i) for z, i in slots if z[i] != keep]
        pool = [zone[i] for zone, i in slots]
    order = rng.permutation(len(pool))
    for (zone, i), j in zip(slots, order):
        zone[i] = pool[int(j)]
    # other players' personal ecosystems: any card not public and not offered to player
    eco_cards = getattr(s.game, "_eco_cards", None) or list(range(len(s.game.cat.ecosystems) // 2))
    taken = {e // 2 for e in t.public_eco} | set(t.offers["ecosystem"][player])
    free = [c for c in eco_cards if c not in taken]
    free = [free[int(i)] for i in rng.permutation(len(free))]
    k = 0
    for q in range(n):
        if q == player:
            continue
        m = len(t.offers["ecosystem"][q])
        t.offers["ecosystem"][q] = free[k:k + m]
        k += m
        if t.eco[q] >= 0:
            t.eco[q] = 2 * t.offers["ecosystem"][q][int(rng.integers(m))] + int(rng.integers(2))
    t.rng = new_rng(int(rng.integers(2**63 - 1)))
    t._mask_cache = None
    return t


__all__ = ["encode", "resample", "ACTIONS"]
