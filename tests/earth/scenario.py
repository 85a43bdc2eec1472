"""Helpers that build Earth positions for rule tests: play the setup, then arrange zones by hand."""

from __future__ import annotations

import numpy as np

from tabletop_envs.earth.catalogue import ACTIONS, load_catalogue
from tabletop_envs.earth.engine import EVENT0, EarthGame

CAT = load_catalogue()
GAMES: dict = {}


def game(n: int = 2, **kw) -> EarthGame:
    # typed: True == 1 and hashes alike, so game(max_rounds=1) must not be the cached game(max_rounds=True)
    key = (n, tuple(sorted((k, type(v).__name__, v) for k, v in kw.items())))
    if key not in GAMES:
        GAMES[key] = EarthGame(num_players=n, **kw)
    return GAMES[key]


def A(s, seg: str, i: int = 0) -> int:
    return s.game.action_layout.id(seg, i)


def act(s, seg: str, i: int = 0) -> None:
    s.apply_action(A(s, seg, i))


def legal(s, seg: str) -> list[int]:
    r = s.game.action_layout.range(seg)
    return [a - r.start for a in s.legal_actions() if a in r]


def after_setup(n: int = 2, seed: int = 0, **kw):
    """A state at the first active player's action choice (setup played with first legal choices)."""
    s = game(n, **kw).new_initial_state(seed)
    while s.phase == "setup":
        s.apply_action(s.legal_actions()[0])
    return s


def seed_where_first(n: int = 2, p: int = 0, **kw) -> int:
    """The first seed whose setup makes seat p the first player: its first action choice is reached by play."""
    return next(seed for seed in range(100) if after_setup(n, seed, **kw).active == p)


def first(kind: str, pred=lambda c: True) -> int:
    """Id of the first Earth card of this kind matching pred."""
    for c in CAT.earth:
        if c["kind"] == kind and pred(c):
            return c["id"]
    raise LookupError(kind)


def take(s, card: int) -> int:
    """Move ``card`` out of the pile, hand, drawn cards, events or compost holding it (so tests can put it
    somewhere) and return it."""
    zones = [s.deck, s.discard] + s.hands + s.drawn + s.events
    for z in zones:
        if card in z:
            z.remove(card)
            return card
    for q in range(s.n):
        if card in s.compost[q]:
            i = s.compost[q].index(card)
            s.compost[q].pop(i)
            s.compost_known[q].pop(i)
            return card
    raise LookupError(card)


def give(s, p: int, *cards: int) -> None:
    for c in cards:
        s.hands[p].append(take(s, c))
    s._mask_cache = None


def put(s, p: int, cell: int, card: int, sprouts: int = 0, growth: int = 0) -> None:
    """Place ``card`` in p's tableau directly (discarding any card there to the discard pile)."""
    take(s, card)
    if s.grid[p][cell] >= 0:
        s.discard.append(s.grid[p][cell])
    s.grid[p][cell] = card
    s.spr[p][cell] = sprouts
    s.gro[p][cell] = growth
    s._mask_cache = None


def clear_tableau(s, p: int) -> None:
    for i in range(16):
        if s.grid[p][i] >= 0:
            s.discard.append(s.grid[p][i])
            s.grid[p][i] = -1
            s.spr[p][i] = s.gro[p][i] = 0


def set_decision(s, task: dict) -> None:
    s.queue = [task]
    s._mask_cache = None


def choose_action(s, name: str) -> None:
    act(s, "action", ACTIONS.index(name))


def flora(pred=lambda c: True, skip: int = 0) -> int:
    found = [c["id"] for c in CAT.earth if c["kind"] == "flora" and c["type"] != "joker" and pred(c)]
    return found[skip]


def with_ability(kind_pred, card_kind: str = "flora", skip: int = 0) -> int:
    found = [c["id"] for c in CAT.earth if c["kind"] == card_kind and any(kind_pred(a) for a in c["abilities"])
             and c["type"] != "joker"]
    return found[skip]


def random_play(s, rng=None, until=None, max_steps=20_000) -> None:
    # random games take up to about 2,000 steps (5 players); a rule bug that loops (an ability activated again
    # and again) fails here in seconds, where 100,000 steps ran into the per-test timeout
    rng = rng or np.random.default_rng(0)
    steps = 0
    while not s.is_terminal() and not (until and until(s)):
        s.apply_action(int(rng.choice(s.legal_actions())))
        steps += 1
        assert steps < max_steps


__all__ = ["EVENT0"]


def island_where(pred) -> int:
    return next(i["id"] for i in CAT.islands if pred(i["abilities"][0]))


def climate_where(pred) -> int:
    return next(c["id"] for c in CAT.climates if all(pred(a) for a in c["abilities"]))


def _conditional(a) -> bool:
    return a["kind"] == "gain" and bool(a.get("if_action"))


# an island and a climate whose abilities only work when their action was chosen: quiet in tests
QUIET_ISLAND = island_where(_conditional)
QUIET_CLIMATE = climate_where(_conditional)


def quiet(s, *players) -> None:
    for q in players or range(s.n):
        s.island[q], s.climate[q] = QUIET_ISLAND, QUIET_CLIMATE
    s._mask_cache = None
