"""Build exact Travel Earth positions for rules tests, with every card accounted for.

``scenario(p0=..., p1=...)`` takes each seat's zones by animal name; each deck is exactly those
cards (plus filler cards at the bottom of the Deck up to the 20-card casual minimum), so the
engine's conservation invariant holds and every test can call ``check_invariants``.
"""

from __future__ import annotations

from collections import Counter

from tabletop_envs.travel_earth.catalogue import load_catalogue
from tabletop_envs.travel_earth.engine import TravelEarthGame

CAT = load_catalogue()
ZONES = ("deck", "hand", "ready", "resting", "reservoir", "unseen", "discard")
# Filler: plain cards no scenario names (bottom of the Deck, drawn only in long tests).
FILLER = ["Koala", "Emu", "Sea otter", "Walrus", "Plains zebra", "Springbok", "Gentoo penguin", "Canada goose"]


def cid(name: str) -> int:
    """Catalogue id of the first card with this common name, or of a collector number."""
    if name.startswith("TE-"):
        return CAT.index[name]
    return CAT.names.index(name)


def ids(names) -> list[int]:
    return [cid(n) for n in names]


def _deck_spec(cards: list[int], filler_needed: int) -> list[str]:
    counts = Counter(cards)
    spec = [CAT.cards[c]["collector_number"] for c in cards]
    filler = []
    for name in FILLER * 4:
        if len(filler) >= filler_needed:
            break
        c = cid(name)
        if counts[c] < 4:
            counts[c] += 1
            filler.append(c)
    return spec + [CAT.cards[c]["collector_number"] for c in filler], filler


def scenario(p0: dict | None = None, p1: dict | None = None, player: int = 0, phase: str = "declare",
             first: int = 0, empty=(0, 0), filler_to: str = "deck", **options):
    """A state with seat ``player`` to act in ``phase``; zones given by animal names."""
    seats = [dict(p0 or {}), dict(p1 or {})]
    zones = [{z: ids(seat.get(z, [])) for z in ZONES} for seat in seats]
    decks, fillers = [], []
    for z in zones:
        cards = [c for name in ZONES for c in z[name]]
        spec, filler = _deck_spec(cards, max(0, 20 - len(cards)))
        decks.append(spec)
        fillers.append(filler)
    game = TravelEarthGame(deck_format="casual", decks=decks, first_player=first, **options)
    state = game.new_initial_state(0)
    for p in (0, 1):
        for name in ZONES:
            setattr_zone(state, name, p, list(zones[p][name]))
        # filler at the bottom of the Deck (the top is the list's end), or in the Discard Pile
        zone = state.deck if filler_to == "deck" else state.discard
        zone[p] = fillers[p] + zone[p]
    state.empty = list(empty)
    state.player = player
    state.phase = phase
    state.adds = 0
    state.queue = []
    state._clear_challenge()
    state.progress = False
    state._mask_cache = None
    state.check_invariants()
    return state


def setattr_zone(state, zone: str, seat: int, cards: list[int]) -> None:
    getattr(state, zone)[seat] = cards


def act(state, segment: str, index=0):
    """Apply the action ``segment[index]``; ``index`` may be an animal name."""
    if isinstance(index, str):
        index = cid(index)
    state.apply_action(state.game.action_layout.id(segment, index))
    state.check_invariants()
    return state


def legal(state, segment: str) -> list[int]:
    r = state.game.action_layout.range(segment)
    mask = state.legal_action_mask()
    return [i for i in range(len(r)) if mask[r.start + i]]


def names(cards) -> list[str]:
    return sorted(CAT.names[c] for c in cards)


def stat(name: str) -> int:
    return CAT.stat_names.index(name)
