"""The rules' chance is fair: shuffles put every card in every position equally often, the first player is
each seat equally often, the two players' decks are shuffled independently, and Earth's board and offers
draw every card alike. Chi-square tests over fixed seeds (so they never flake), failing at p < 1e-6: they
catch a shuffle that never moves a card, a first seat that is always 0 or decks dealt from one stream, not
a bias of a fraction of a percent. The default run deals 400 games; ``-m slow`` 8000 (at this commit the
smallest of the 90 p-values of both runs was 0.09)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from tabletop_envs.core.registry import make_game

#: the significance level each test fails at
ALPHA = 1e-6
#: deals per test: the default run's, and the slow run's
SIZES = [pytest.param(400, id="400-deals"), pytest.param(8000, id="8000-deals", marks=pytest.mark.slow)]


def chi_square_p(observed, expected) -> float:
    """Upper-tail p-value of Pearson's chi-square of ``observed`` counts against ``expected`` ones (same
    shape, same total), with as many degrees of freedom as cells less one (Wilson and Hilferty's normal
    approximation, close enough at 1e-6 for these tests, without SciPy)."""
    observed, expected = np.asarray(observed, float).ravel(), np.asarray(expected, float).ravel()
    # a cell expected 0 is one of independence()'s with a margin of 0, so its count is 0 too (no table here
    # expects 0 where a count can fall): it adds nothing but a 0/0
    keep = expected > 0
    observed, expected = observed[keep], expected[keep]
    stat = float(((observed - expected) ** 2 / expected).sum())
    df = observed.size - 1
    if df == 0:  # one cell (a solo game's first player): nothing to be unfair about
        return 1.0
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def assert_fair(what: str, observed, expected) -> None:
    p = chi_square_p(observed, expected)
    observed, expected = np.asarray(observed, float), np.asarray(expected, float)
    worst = np.unravel_index(np.argmax(np.abs(observed - expected) / np.sqrt(np.maximum(expected, 1))), observed.shape)
    assert p >= ALPHA, (f"{what}: p = {p:.2g} < {ALPHA:g}; " + (f"counts {observed.tolist()}" if observed.size <= 16 else
                        f"worst cell {tuple(map(int, worst))}: {observed[worst]:g} where {expected[worst]:.1f} expected"))


def uniform_over(counts_shape: tuple, total: float) -> np.ndarray:
    return np.full(counts_shape, total / math.prod(counts_shape))


def deck_positions(decks, decklist, deals: int, buckets: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observed and expected counts of each card of ``decklist`` (a sorted list, copies allowed) at each
    position of the undrawn part of the shuffled decks ``decks`` (draws take the end of the list, so the
    first positions are the first of the shuffle, whatever was drawn). ``buckets``: positions grouped into
    that many runs (0: each position alone)."""
    kinds = sorted(set(decklist))
    index = {c: i for i, c in enumerate(kinds)}
    length = min(len(d) for d in decks)
    width = buckets or length
    observed = np.zeros((len(kinds), width))
    for deck in decks:
        for position, card in enumerate(deck[:length]):
            observed[index[card], position * width // length] += 1
    copies = Counter(decklist)
    per_bucket = np.bincount(np.arange(length) * width // length, minlength=width)
    expected = np.outer([copies[c] / len(decklist) for c in kinds], per_bucket) * deals
    return observed, expected


def independence(first: list[int], second: list[int], groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Observed and expected (from the margins) counts of the pairs ``(first[i], second[i])``, values in
    ``range(groups)``."""
    observed = np.zeros((groups, groups))
    np.add.at(observed, (first, second), 1)
    expected = np.outer(observed.sum(1), observed.sum(0)) / observed.sum()
    return observed, expected


@pytest.mark.parametrize("deals", SIZES)
def test_terralore_shuffles_each_deck_fairly_and_independently_of_the_other(deals):
    # random decks (the default): each position of the shuffle by the card's rank in its sorted deck list
    game = make_game("terralore_v0")
    states = [game.new_initial_state(seed) for seed in range(deals)]
    bottoms: list[list[int]] = [[], []]
    for seat in (0, 1):
        ranks = [[s.deck_list[seat].index(c) for c in s.deck[seat]] for s in states]
        assert_fair(f"terralore seat {seat}: card (by rank) against position", *deck_positions(ranks, list(range(20)), deals))
        bottoms[seat] = [r[0] * 4 // 20 for r in ranks]
    assert_fair("terralore: the bottom cards of the two decks", *independence(*bottoms, 4))
    # a preset: one deck list, shuffled anew each deal
    preset = make_game("terralore_v0", decks=("ember_rush", "ember_rush"))
    shuffles = [preset.new_initial_state(seed).deck for seed in range(deals)]
    for seat in (0, 1):
        assert_fair(f"terralore preset, seat {seat}", *deck_positions([d[seat] for d in shuffles],
                                                                       preset.new_initial_state(0).deck_list[seat], deals))


@pytest.mark.parametrize("deals", SIZES)
def test_terralore_round_1_die_roll_lets_each_seat_reveal_first_equally_often(deals):
    game = make_game("terralore_v0")
    firsts = np.bincount([game.new_initial_state(seed)._roll_die_for_first() for seed in range(deals)], minlength=2)
    assert_fair("terralore: the round-1 die roll's winner", firsts, uniform_over((2,), deals))


@pytest.mark.parametrize("deals", SIZES)
def test_travel_earth_flips_a_fair_coin_and_shuffles_both_decks_fairly_and_independently(deals):
    game = make_game("travel_earth_v0")
    states = [game.new_initial_state(seed) for seed in range(deals)]
    assert_fair("travel earth: the coin flip's first seat", np.bincount([s.first for s in states], minlength=2),
                uniform_over((2,), deals))
    for seat in (0, 1):
        assert_fair(f"travel earth seat {seat}: card against position",
                    *deck_positions([s.deck[seat] for s in states], game.decklists[seat], deals, buckets=8))
    kinds = [sorted(set(d)) for d in game.decklists]
    bottoms = [[kinds[seat].index(s.deck[seat][0]) * 4 // len(kinds[seat]) for s in states] for seat in (0, 1)]
    assert_fair("travel earth: the bottom cards of the two decks", *independence(*bottoms, 4))


@pytest.mark.parametrize("deals", SIZES)
@pytest.mark.parametrize("options", [*({"num_players": n} for n in range(1, 6)),
                                     {"num_players": 3, "advanced_draft": True},
                                     {"num_players": 5, "advanced_draft": True}],
                         ids=[*(f"{n}p" for n in range(1, 6)), "3p-advanced", "5p-advanced"])
def test_earth_deals_its_deck_board_offers_and_first_player_fairly(options, deals):
    game = make_game("earth_v0", **options)
    players = game.num_players
    cat = game.cat
    states = [game.new_initial_state(seed) for seed in range(deals)]
    assert_fair(f"earth {players}p: the first player", np.bincount([s.first for s in states], minlength=players),
                uniform_over((players,), deals))
    assert_fair(f"earth {players}p: card against position in the Earth deck",
                *deck_positions([s.deck for s in states], sorted(states[0].deck), deals, buckets=8))
    fauna = np.zeros((len(cat.fauna) // 2, 2))
    for s in states:
        for side in s.fauna:
            fauna[side // 2, side % 2] += 1
    assert_fair(f"earth {players}p: the fauna cards and their sides", fauna, uniform_over(fauna.shape, 4 * deals))
    public = np.bincount([side // 2 for s in states for side in s.public_eco], minlength=len(cat.ecosystems) // 2)
    assert_fair(f"earth {players}p: the public ecosystems", public, uniform_over(public.shape, 2 * deals))
    for what, total in (("island", len(cat.islands) // 2), ("climate", len(cat.climates) // 2),
                        ("ecosystem", len(cat.ecosystems) // 2)):
        offered = np.zeros((players, total))
        for s in states:
            for seat, cards in enumerate(s.offers[what]):
                offered[seat, cards] += 1
        # an ecosystem card is never offered while it lies public: the other cards share its chances
        expected = offered.sum(1, keepdims=True) / total * np.ones((players, total))
        assert_fair(f"earth {players}p: the {what} cards offered to each seat", offered, expected)
