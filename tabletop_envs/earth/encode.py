"""Observation encoding (what one seat may see) and resampling of everything that seat cannot see."""

from __future__ import annotations

import numpy as np

from tabletop_envs.core.engine import counted_deal, new_rng

from .catalogue import COLOURS, NUM_EARTH, NUM_ISLANDS, NUM_PLANTABLE_IDS

# soil/40, hand/30, compost/30, events/10, cards/16, is active — per relative seat
_RES_SCALE = np.tile(np.array([1 / 40, 1 / 30, 1 / 30, 1 / 10, 1 / 16, 1], np.float32), 5)
EVENT0 = NUM_PLANTABLE_IDS
# piece counts / 6 (sprouts) and / 8 (growth) as float32 products, the values the block arithmetic gave
_SIXTHS = [float(np.float32(k) * np.float32(1 / 6.0)) for k in range(64)]
_EIGHTHS = [float(np.float32(k) * np.float32(1 / 8.0)) for k in range(64)]


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
    """Ones and scalars are gathered as (index, value) lists and written with one ``put`` each; the
    card features of every seat's tableau cells are one gather (encoding takes ~30 µs here)."""
    game = s.game
    lay = game.observation_layout
    o = _layout_offsets(game)
    v = np.zeros(lay.size, np.float32)
    n = s.n
    rel = [(q - player) % n for q in range(n)]
    idx = [o["phase"] + {"setup": 0, "play": 1, "over": 2}[s.phase], o["active"] + rel[s.active],
           o["first"] + rel[s.first]]
    idx += range(o["seats_in_game"], o["seats_in_game"] + n)
    val: list[float] = []  # values of the scalar entries in sidx
    sidx: list[int] = []
    if s.phase != "over":
        task = s.queue[0]
        decider = task["p"]
        idx.append(o["decider"] + rel[decider])
        if decider == player:
            idx.append(o["decision"] + o["_decision_index"][task["t"]])
            if "colour" in task:
                idx.append(o["activation_colour"] + COLOURS.index(task["colour"]))
            sidx.append(o["pending_count"])
            val.append(min(task.get("left", 0) / 12.0, 1.0))
            if task["t"] == "plant_cell":
                idx.append(o["pending_card"] + task["card"])
    if s.action >= 0:
        idx.append(o["action"] + s.action)
    sidx += [o["round"], o["end_triggered"], o["deck"], o["deck"] + 1]
    val += [min(s.rounds / 100.0, 1.0), float(s.end_triggered), len(s.deck) / NUM_EARTH, len(s.discard) / NUM_EARTH]
    h = o["hand"]
    idx += [h + c for c in s.hands[player]]
    d = o["drawn"]
    idx += [d + c for c in s.drawn[player]]
    k0 = o["my_known_compost"]
    idx += [k0 + c for c, known in zip(s.compost[player], s.compost_known[player]) if known]
    if s.eco[player] >= 0:
        idx.append(o["my_ecosystem"] + s.eco[player])
    if s.phase == "setup":
        if s.eco[player] < 0:
            idx += [o["my_ecosystem"] + 2 * c + k for c in s.offers["ecosystem"][player] for k in (0, 1)]
        idx += [o["my_offers"] + 2 * c + k for c in s.offers["island"][player] for k in (0, 1)]
        idx += [o["my_offers"] + NUM_ISLANDS + 2 * c + k for c in s.offers["climate"][player] for k in (0, 1)]
    idx += [o["public_ecosystems"] + e for e in s.public_eco]
    for f, side in enumerate(s.fauna):
        idx.append(o["fauna"] + f * 46 + side)
        for k, q in enumerate(s.leaves[f]):
            sidx.append(o["fauna_leaves"] + f * 5 + rel[q])
            val.append(max(5 - k, 1) / 5.0)
    if s.bonus >= 0:
        idx.append(o["bonus"] + rel[s.bonus])
    setup = s.phase == "setup"
    res: list[float] = []
    la, isl, cli, ev, tab = (o["last_action"], o["island"], o["climate"], o["event_stack"] - EVENT0,
                             o["tableau_cards"])
    for r in range(n):  # relative seat order, so the resources block is contiguous
        q = (player + r) % n
        grid = s.grid[q]
        res += [s.soil[q], len(s.hands[q]), len(s.compost[q]), len(s.events[q]), 16 - grid.count(-1),
                q == s.active]
        if s.last_action[q] >= 0:
            idx.append(la + r * 4 + s.last_action[q])
        if not setup or q == player:
            if s.island[q] >= 0:
                idx.append(isl + r * NUM_ISLANDS + s.island[q])
            if s.climate[q] >= 0:
                idx.append(cli + r * 20 + s.climate[q])
        e0 = ev + r * 38
        idx += [e0 + c for c in s.events[q]]
    r0 = o["resources"]
    v[r0:r0 + 6 * n] = np.minimum(np.array(res, np.float32) * _RES_SCALE[:6 * n], 1.0)
    # the tableaux, relative seat order: card multi-hot, and per cell the card's features and its
    # sprouts / 6 and growth / 8 (Python lists: a few small numpy operations cost more on 2 x 16 cells)
    cells = o["cells"]
    feats = game.cat.card_features
    w = feats.shape[1] + 2
    placed_from = len(idx)
    ids: list[int] = []
    for r in range(n):
        q = (player + r) % n
        grid = s.grid[q]
        base = tab + r * NUM_PLANTABLE_IDS
        idx += [base + g for g in grid if g >= 0]
        ids += grid
        c0 = cells + r * 16 * w + w - 2
        for c, (sprouts, growth) in enumerate(zip(s.spr[q], s.gro[q])):
            if sprouts:
                sidx.append(c0 + c * w)
                val.append(_SIXTHS[sprouts])
            if growth:
                sidx.append(c0 + c * w + 1)
                val.append(_EIGHTHS[growth])
    v.put(idx, 1.0)  # put() converts a Python list ~3x faster than fancy assignment
    v.put(sidx, val)  # (never empty: the round, end and pile entries are always in it)
    if len(idx) > placed_from:  # an empty cell (-1) reads the catalogue's all-zero last row
        v[cells:cells + 5 * 16 * w].reshape(5, 16, w)[:n, :, :-2] = feats.take(ids, 0).reshape(n, 16, -1)
    return v


def resample(s, player: int, rng: np.random.Generator):
    """A copy where every Earth card ``player`` cannot see (deck order, others' hands and draws, unknown
    compost cards), the other players' personal ecosystems and, during setup, their island and climate
    cards and sides are re-dealt, keeping every size. Another seat choosing the cell for a card it plants
    is put back at choosing the card, which is re-dealt with its hand."""
    t = s.clone()
    n = t.n
    if t.queue and t.queue[0]["t"] == "plant_cell" and t.queue[0]["p"] != player:
        # the others see neither the pick nor the card (pending_card is the planter's own), so the planter
        # is still choosing which card to plant, from a hand re-dealt with the rest
        _unpick_plant(t)
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
    # once the discard (public) has been reshuffled into a new draw pile, its cards are known to lie in that
    # pile or where it has been drawn to since: each card is re-dealt among the hidden places holding cards
    # of the same draw pile (before any reshuffle, all of them)
    epoch = t.__dict__.get("deck_epoch")
    if epoch:
        # but which of its cards another seat composted from its hand is its own secret: the piles its cards
        # came from are public for the lot (its draws), not place by place (kept, a world told which pile a
        # face-down card came from). Each seat's lot is dealt again, a card composted before a reshuffle never
        # from the pile that reshuffle made: slots by that bound, each a uniform pick among the cards it may
        # hold (nested choices: every matching alike likely)
        marks = t.__dict__.get("compost_marks", [])
        for q in range(n):
            if q == player:
                continue
            lot = [(len(marks), t.hands[q], i) for i in range(len(t.hands[q]))] + \
                [(sum(m[q] <= i for m in marks), t.compost[q], i) for i, known in enumerate(t.compost_known[q]) if known]
            cards = [zone[i] for _, zone, i in lot]
            for bound, zone, i in sorted(lot, key=lambda slot: slot[0]):
                fits = [k for k, c in enumerate(cards) if epoch[c] <= bound]
                zone[i] = cards.pop(fits[int(rng.integers(len(fits)))])
    groups: dict[int, list] = {}
    for slot in slots:
        zone, i = slot
        groups.setdefault(epoch[zone[i]] if epoch else 0, []).append(slot)
    for _, group in sorted(groups.items()):
        pool = [zone[i] for zone, i in group]
        order = rng.permutation(len(pool))
        for (zone, i), j in zip(group, order):
            zone[i] = pool[int(j)]
    cat = s.game.cat
    if t.phase == "setup":  # islands and climates are revealed when setup ends
        # an island whose setup draw is done shows its draw number in the hand count; its compost number shows
        # card by card as its seat composts: the whole of it once the seat is done, while it decides more
        # than it has composted, before its turn nothing (every seat draws before any composts)
        undrawn = {task["p"] for task in t.queue if task["t"] == "setup_draw"}
        composting = {task["p"] for task in t.queue if task["t"] == "setup_compost"}
        deciding = t.queue[0]["p"] if t.queue and t.queue[0]["t"] == "setup_compost" else -1

        def island_fits(q, real, side):
            if q in undrawn:
                return True
            if q not in composting:
                return (side["draw"], side["compost"]) == (real["draw"], real["compost"])
            return side["draw"] == real["draw"] and side["compost"] >= len(t.compost[q]) + (q == deciding)

        _redeal_offers(t, player, "island", cat.islands, t.island, rng, fits_seen=island_fits)
        for task in t.queue:  # what a re-dealt island leaves its seat to compost
            if task["t"] == "setup_compost" and task["p"] != player and task["p"] not in undrawn:
                task["left"] = cat.islands[t.island[task["p"]]]["compost"] - len(t.compost[task["p"]])
        _redeal_offers(t, player, "climate", cat.climates, t.climate, rng)
    if t.phase != "over":  # at the end personal ecosystems are revealed for scoring
        _redeal_offers(t, player, "ecosystem", cat.ecosystems, t.eco, rng, public={e // 2 for e in t.public_eco})
    t.rng = new_rng(int(rng.integers(2**63 - 1)))
    t._mask_cache = None
    return t


def _unpick_plant(t) -> None:
    """Undo the pick that queued the front ``plant_cell`` task: the card is still in the hand (it leaves it
    when its cell is chosen), so only the ``plant`` task's count goes back (``_do_plant``)."""
    q = t.queue.pop(0)["p"]
    if t.queue and t.queue[0]["t"] == "plant" and t.queue[0]["p"] == q:
        t.queue[0]["left"] += 1
    else:  # that pick was its last: the task was dropped
        t.queue.insert(0, {"t": "plant", "p": q, "left": 1})


def _redeal_offers(t, player: int, what: str, sides: list, chosen: list, rng: np.random.Generator,
                   public=frozenset(), fits_seen=None) -> None:
    """Re-deal the other players' offered ``what`` cards, and the side each chose, from the cards neither
    public nor offered to ``player``. ``fits_seen(q, real, side)``: may seat q's chosen side be ``side``, given
    what the observation shows of the ``real`` one (None: anything may be)."""
    unseen = [c for c in range(len(sides) // 2) if c not in public and c not in t.offers[what][player]]

    def fits(q, cards):
        real = sides[chosen[q]] if chosen[q] >= 0 else None
        return [2 * c + k for c in cards for k in (0, 1) if fits_seen is None or fits_seen(q, real, sides[2 * c + k])]

    seats = [q for q in range(t.n) if q != player and chosen[q] >= 0]
    if fits_seen is None:  # any side fits any seat: seat by seat, each alike likely among the cards left
        picks, left = {}, list(unseen)
        for q in seats:
            picks[q] = int(2 * left.pop(int(rng.integers(len(left)))) + rng.integers(2))
    else:
        # the seats' shown numbers compete for the few cards that fit them: every fitting deal of distinct
        # cards is alike likely (a uniform deal, either side chosen), so the picks are counted, not dealt
        # seat by seat (:func:`counted_deal`)
        sides = [fits(q, unseen) for q in seats]

        def options(done):
            return [(side, 1) for side in sides[len(done)] if side // 2 not in {x // 2 for x in done}]

        picks = dict(zip(seats, counted_deal(len(seats), options, rng, f"the {what} offers",
                                             key=lambda done: frozenset(x // 2 for x in done))))
    # each seat's offer besides its pick, at random from the cards left
    free = [c for c in unseen if c not in {side // 2 for side in picks.values()}]
    free = [free[int(i)] for i in rng.permutation(len(free))]
    offers = {}
    for q in range(t.n):
        if q != player:
            m = len(t.offers[what][q]) - (q in picks)
            offers[q], free = ([picks[q] // 2] if q in picks else []) + free[:m], free[m:]
    for q, cards in offers.items():
        t.offers[what][q] = cards
    for q, side in picks.items():
        chosen[q] = side
