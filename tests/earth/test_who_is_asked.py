"""Who is asked a decision is public (agent_selection, the observation's ``decider``, the text view), so
it may depend only on what every other seat can see — hand sizes, never hand contents."""

from __future__ import annotations

import numpy as np
import pytest

from .scenario import (
    CAT,
    EVENT0,
    A,
    after_setup,
    choose_action,
    clear_tableau,
    flora,
    game,
    give,
    legal,
    put,
    quiet,
    random_play,
    seed_where_first,
)

# decisions whose move (which card of the hand or of the draw) the other seats never see
HIDDEN_CARD_CHOICES = ("setup_compost", "keep", "pay_hand", "compost_hand")


def own_cards(s, p):
    return sorted(s.hands[p]), sorted(s.drawn[p])


def play_both(s, t, observer, rng, max_steps=80):
    """Play the same public moves in worlds ``s`` and ``t``; return who was asked what, in order, as
    (seat, decision, whether its legal moves were the same in both worlds).

    Checks at every step that ``observer`` sees the same observation and that the same seat is asked
    the same kind of decision. A move is the same public move if it is legal in both worlds, or picks
    the same rank among the cards of a choice nobody else sees. Stops when the observer's own cards
    differ (it drew from a differently shuffled deck) or no move is the same in both worlds."""
    asked = []
    for _ in range(max_steps):
        if s.is_terminal() or t.is_terminal():
            assert s.is_terminal() and t.is_terminal()
            break
        if own_cards(s, observer) != own_cards(t, observer):
            break
        np.testing.assert_array_equal(s.observation(observer), t.observation(observer))
        assert (s.current_player(), s.decision()) == (t.current_player(), t.decision())
        legal_s, legal_t = s.legal_actions(), t.legal_actions()
        asked.append((s.current_player(), s.decision(), legal_s == legal_t))
        common = sorted(set(legal_s) & set(legal_t))
        if common:
            a = b = int(rng.choice(common))
        elif s.decision() in HIDDEN_CARD_CHOICES and len(legal_s) == len(legal_t):
            i = int(rng.integers(len(legal_s)))
            a, b = legal_s[i], legal_t[i]
        else:
            break
        s.apply_action(a)
        t.apply_action(b)
    return asked


@pytest.mark.parametrize("n", [2, 4])
def test_whether_a_seat_is_asked_depends_only_on_public_information(n):
    """Re-deal everything an observer cannot see (``resample_hidden``): after the same public moves the
    observer sees the same observations, and the same seats are asked the same decisions."""
    rng = np.random.default_rng(n)
    asked = []
    for seed in range(3):
        s = game(n).new_initial_state(seed)
        while not s.is_terminal():
            random_play(s, rng, until=lambda x, k=s.turns + 3: x.turns >= k or x.is_terminal())
            if s.is_terminal():
                break
            for observer in range(n):
                asked += play_both(s.clone(), s.resample_hidden(observer, rng), observer, rng)
    # the re-dealt hands often gave a seat different options at the window or when planting
    differing = [d for _, d, same in asked if not same and d in ("window", "plant")]
    assert len(differing) >= 30 and "plant" in differing


def twin_with_hand_card(s, q, old, new):
    """A copy of ``s`` where ``old`` in seat q's hand and ``new`` in the draw pile trade places: the
    other seats cannot tell the two apart."""
    t = s.clone()
    t.hands[q][t.hands[q].index(old)] = new
    t.deck[t.deck.index(new)] = old
    t._mask_cache = None
    for p in range(s.n):
        if p != q:
            np.testing.assert_array_equal(s.observation(p), t.observation(p))
    return t


def at_action(n=2, p=0):
    """Seat p chooses its first action, reached by playing the setup of a game seat p starts; empty tableaux and
    hands; island and climate abilities stay quiet."""
    s = after_setup(n, seed_where_first(n, p))
    assert (s.decision(), s.current_player(), s.active, s.first) == ("action", p, p, p)
    for q in range(n):
        clear_tableau(s, q)
        s.discard += s.hands[q]
        s.hands[q] = []
    quiet(s)
    return s


def in_deck(s, pred):
    return next(c for c in s.deck if pred(CAT.earth[c]))


def plain_move(s):
    """Pass where legal, else the first legal move that is neither an event nor a conversion."""
    legal_s = s.legal_actions()
    if A(s, "pass") in legal_s:
        return A(s, "pass")
    return next(a for a in legal_s if a < A(s, "event") or a > A(s, "convert"))


def walk_to(s, t, seat, decision):
    """Make the same plain moves in both worlds until ``seat`` is asked ``decision``."""
    while (s.current_player(), s.decision()) != (seat, decision):
        assert (s.current_player(), s.decision()) == (t.current_player(), t.decision())
        a = plain_move(s)
        assert a in t.legal_actions()
        s.apply_action(a)
        t.apply_action(a)
    assert (t.current_player(), t.decision()) == (seat, decision)


def test_end_of_turn_window_is_offered_to_a_seat_with_a_card_in_hand_whatever_the_card():
    s = at_action(2, p=0)
    event = in_deck(s, lambda c: c["kind"] == "event" and not c["abilities"][0].get("cost"))
    give(s, 1, event)
    t = twin_with_hand_card(s, 1, event, in_deck(s, lambda c: c["kind"] != "event"))
    for world in (s, t):
        choose_action(world, "compost")
    assert (1, "window", False) in play_both(s.clone(), t.clone(), 0, np.random.default_rng(0), max_steps=30)
    walk_to(s, t, 1, "window")
    assert legal(s, "event") == [event - EVENT0]
    assert t.legal_actions() == [A(t, "pass")]  # asked all the same: only pass is legal


def test_other_players_are_asked_to_plant_whatever_cards_their_hand_holds():
    s = at_action(2, p=0)
    s.soil[1] = 3
    cheap = in_deck(s, lambda c: c["kind"] == "flora" and c["cost"] <= 3 and c["type"] != "joker")
    dear = in_deck(s, lambda c: c["kind"] == "flora" and c["cost"] >= 6)
    give(s, 1, cheap)
    t = twin_with_hand_card(s, 1, cheap, dear)
    for world in (s, t):
        choose_action(world, "plant")
    assert (1, "plant", False) in play_both(s.clone(), t.clone(), 0, np.random.default_rng(1), max_steps=30)
    walk_to(s, t, 1, "plant")
    assert legal(s, "plant") == [cheap] and legal(t, "plant") == []


def test_a_seat_is_skipped_when_public_information_shows_it_has_no_choice():
    # empty hands and fewer than 3 sprouts: no end-of-turn window
    s = at_action(2, p=0)
    choose_action(s, "compost")
    seen = []
    while not (s.decision() == "action" and s.current_player() == 1):
        seen.append((s.current_player(), s.decision()))
        s.apply_action(plain_move(s))
    assert (1, "option") in seen and (1, "window") not in seen and (0, "window") not in seen
    # 3 sprouts: the window is offered (the sprouts are public)
    s = at_action(2, p=0)
    put(s, 1, 0, flora(lambda c: c["sprouts"] >= 3), sprouts=3)
    choose_action(s, "compost")
    while s.decision() != "window":
        # this turn's window: walking on to a later turn's, the check passed with the sprouts ignored
        assert s.decision() != "action", "the turn ended with no window"
        s.apply_action(plain_move(s))
    assert s.current_player() == 1 and A(s, "convert") in s.legal_actions()
    # empty hands, or a full tableau whatever the hand: nobody is asked to plant
    for full in (False, True):
        s = at_action(2, p=0)
        if full:
            cards = [c for c in s.deck if CAT.earth[c]["kind"] != "event"][:17]
            for cell, c in enumerate(cards[:16]):
                put(s, 1, cell, c)
            give(s, 1, cards[16])
            s.soil[1] = 50
        choose_action(s, "plant")
        while s.decision() != "action":
            assert s.decision() != "plant"
            s.apply_action(plain_move(s))


@pytest.mark.parametrize("action, piece, event", [("grow", "growth", 250), ("water", "sprouts", 247)])
def test_the_active_players_placement_without_room_is_asked_where_an_event_paying_that_piece_might_free_it(
        action, piece, event):
    """No flora has room for the row's growth (sprouts). With two seats the placement is asked when the active
    seat holds a card and has the growth (sprouts) some event of the catalogue costs (public), whatever the
    hand; in solo play only when the hand holds such an event (Aurora pays 2 growth, Drought 2 sprouts). With
    no card in hand, or none of that piece to pay such an event with, it is skipped."""
    assert CAT.earth[event]["abilities"][0]["cost"] == {piece: 2}
    full = flora(lambda c: c[piece] >= 2)  # a flora's growth (sprout) spaces are its card's "growth" ("sprouts")
    for n, hand, tableau, asked in ((2, "flora", "full", True), (2, "event", "full", True),
                                    (2, "none", "full", False), (2, "event", "empty", False),
                                    (1, "flora", "full", False), (1, "event", "full", True)):
        s = at_action(n, p=0)
        quiet(s)
        if tableau == "full":
            put(s, 0, 0, full, **{piece: CAT.earth[full][piece]})
        if hand == "event":
            give(s, 0, event)
        elif hand == "flora":
            give(s, 0, in_deck(s, lambda c: c["kind"] == "flora"))
        s.compost[1 % n] += s.deck + s.discard  # the Growing row's draw of 4 finds no card: the hand is as set
        s.deck, s.discard = [], []
        choose_action(s, action)
        assert (s.current_player() == 0 and s.decision() == "place") == asked, (n, hand, tableau)
        if asked:
            assert s.queue[0]["res"] == piece
            assert legal(s, "cell") == [] and legal(s, "event") == ([event - EVENT0] if hand == "event" else [])


def test_solo_play_offers_the_window_only_when_the_hand_holds_a_playable_event():
    """No other seat to hide the hand from: the hand's contents decide, as they always did."""
    for kind, offered in (("flora", False), ("event", True)):
        s = at_action(1, p=0)
        give(s, 0, in_deck(s, lambda c, k=kind: c["kind"] == k and not c["abilities"][0].get("cost")))
        choose_action(s, "compost")
        seen = []
        while s.decision() != "action":
            seen.append(s.decision())
            s.apply_action(plain_move(s))
        assert ("window" in seen) == offered
