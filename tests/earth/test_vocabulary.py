"""Every item of the ability vocabulary, run through the one interpreter (EarthState.resolve et al.)."""

from __future__ import annotations

import pytest

from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.earth import scoring
from tabletop_envs.earth.catalogue import ACTION_COLOUR, ACTIONS, check_ability
from tabletop_envs.earth.text import ability_text

from .scenario import (
    CAT,
    EVENT0,
    A,
    act,
    after_setup,
    choose_action,
    clear_tableau,
    flora,
    give,
    island_where,
    legal,
    put,
    quiet,
    seed_where_first,
    take,
)


def board(n=2, p=0):
    """Seat p's first action choice, reached by playing the setup of a game seat p starts; empty tableaux."""
    s = after_setup(n, seed_where_first(n, p))
    assert (s.decision(), s.current_player(), s.active, s.first) == ("action", p, p, p)
    for q in range(n):
        clear_tableau(s, q)
    quiet(s, p)  # island and climate abilities that never trigger on their own in these tests
    return s


def run(s, ability, cell=None, p=0):
    """Resolve ``ability`` for p now, in front of p's action decision."""
    assert check_ability(ability) is None, check_ability(ability)
    ability_text(ability)  # every vocabulary item has a text
    assert (s.decision(), s.current_player()) == ("action", p)  # reached by play, or back after an earlier run
    # resolved directly: these are the vocabulary's items one by one, most of them (as written here) on no card
    s.resolve(p, ability, cell)
    s._mask_cache = None
    s._run()


def play_to_activation(s, action, p=0):
    """Choose ``action`` for seat 0 and play plainly (pass, else option A, else the first choice) through its
    rows until seat p is asked to activate the action's colour."""
    choose_action(s, action)
    while (s.decision(), s.current_player()) != ("activate", p):
        assert s.decision() != "action"
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])
    assert s.stage == "activation" and s.queue[0]["colour"] == ACTION_COLOUR[action]


def roomy(skip=0):
    return flora(lambda c: c["sprouts"] >= 4 and c["growth"] >= 3, skip)


def gain(res, n, **kw):
    return {"color": "red", "kind": "gain", "gain": [{"res": res, "n": n, **kw}]}


# ------------------------------------------------------------------ plain gains
def test_gain_soil():
    s = board()
    soil = s.soil[0]
    run(s, gain("soil", 3))
    assert s.soil[0] == soil + 3


def test_gain_draw_cards():
    s = board()
    hand = len(s.hands[0])
    run(s, gain("draw", 2))
    assert len(s.hands[0]) == hand + 2


def test_gain_compost_from_deck():
    """One card at a time from the top of the pile: the second lies on the first, so a later "discard 1 from your
    compost" sends the second to the public discard."""
    s = board()
    comp, top, second = len(s.compost[0]), s.deck[-1], s.deck[-2]
    run(s, gain("compost_deck", 2))
    assert len(s.compost[0]) == comp + 2 and s.compost[0][-2:] == [top, second]


def test_gain_compost_from_hand_is_up_to_n_cards_of_your_choice():
    s = board()
    card = s.hands[0][0]
    run(s, gain("compost_hand", 2))
    assert s.decision() == "compost_hand" and A(s, "pass") in s.legal_actions()
    act(s, "card", card)
    act(s, "pass")
    assert s.compost[0][-1] == card and s.compost_known[0][-1] is True and s.decision() == "action"


def test_gain_draw_from_your_compost():
    s = board()
    top = s.compost[0][-1]
    run(s, gain("compost_draw", 1))
    assert top in s.hands[0]


def test_gain_sprouts_and_growth_are_placed_piece_by_piece():
    s = board()
    f = roomy()
    put(s, 0, 6, f)
    run(s, gain("sprouts", 2))
    act(s, "cell", 6)
    act(s, "cell", 6)
    run(s, gain("growth", 1))
    act(s, "cell", 6)
    assert (s.spr[0][6], s.gro[0][6]) == (2, 1)


# ------------------------------------------------------------------ pay X to gain Y
@pytest.mark.parametrize("res", ["soil", "sprouts", "growth", "hand_compost", "compost_discard"])
def test_pay_to_gain_each_payment_resource(res):
    s = board()
    f = roomy()
    put(s, 0, 0, f, sprouts=3, growth=2)
    s.soil[0] = 4
    for _ in range(2):
        s.compost[0].append(s.deck.pop())
        s.compost_known[0].append(False)
    before = {"soil": s.soil[0], "sprouts": sum(s.spr[0]), "growth": sum(s.gro[0]),
              "hand_compost": len(s.hands[0]), "compost_discard": len(s.compost[0])}
    ab = {"color": "blue", "kind": "gain", "cost": {res: 2}, "gain": [{"res": "draw", "n": 1}]}
    assert s.can_pay(0, ab["cost"])
    discard = len(s.discard)
    run(s, ab)
    while s.decision() in ("pay", "pay_hand"):
        assert A(s, "pass") not in s.legal_actions()  # a cost is paid in full
        s.apply_action(s.legal_actions()[0])
    after = {"soil": s.soil[0], "sprouts": sum(s.spr[0]), "growth": sum(s.gro[0]),
             "hand_compost": len(s.hands[0]) - 1, "compost_discard": len(s.compost[0])}
    assert before[res] - after[res] == 2
    if res == "hand_compost":
        assert after["compost_discard"] == before["compost_discard"] + 2
    if res == "compost_discard":
        assert len(s.discard) == discard + 2


def test_an_ability_whose_cost_cannot_be_paid_cannot_be_activated():
    s = board()
    ab = {"color": "blue", "kind": "gain", "cost": {"sprouts": 2}, "gain": [{"res": "soil", "n": 5}]}
    assert not s.usable(0, ab, "blue")
    put(s, 0, 0, roomy(), sprouts=2)
    assert s.usable(0, ab, "blue")


# ------------------------------------------------------------------ conditions
def test_condition_if_you_chose_the_action_this_turn():
    s = board()
    ab = {"color": "blue", "kind": "gain", "if_action": "water", "gain": [{"res": "soil", "n": 2}]}
    s.action = ACTIONS.index("water")  # usable() of a synthetic ability read for both seats and two actions; no play needed to read it
    assert s.usable(0, ab, "blue")
    assert not s.usable(1, ab, "blue")  # player 1 did not choose it
    s.action = ACTIONS.index("grow")
    assert not s.usable(0, ab, "blue")


@pytest.mark.parametrize("action", ACTIONS)
def test_condition_if_you_chose_the_action_this_turn_for_each_of_the_4_actions(action):
    # the vocabulary allows the condition on any action, Planting (the first of them) included
    s = board()
    colour = ACTION_COLOUR[action]
    choose_action(s, action)  # seat 0, the active player, chose ``action`` this turn
    for named in ACTIONS:
        ab = {"color": colour, "kind": "gain", "if_action": named, "gain": [{"res": "soil", "n": 2}]}
        assert s.usable(0, ab, colour) == (named == action), named
        assert not s.usable(1, ab, colour)  # player 1 did not choose it


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("flt", [{"type": "tree"}, {"habitat": "cold"}, {"color": "red"}, {"kind": "terrain"}])
def test_per_card_planted_this_turn_by_type_habitat_colour_or_kind(flt, seat):
    # either seat, each counting its own plantings: a mutant counting seat 0's for seat 1 passed seat 0's case
    s = board(p=seat)
    cards = [c["id"] for c in CAT.earth if c["kind"] in ("flora", "terrain")]
    from tabletop_envs.earth.scoring import matches
    hits = [c for c in cards if matches(CAT, c, flt)][:2]
    miss = [c for c in cards if not matches(CAT, c, flt)][:1]
    s.planted[seat] = hits + miss  # 3 plantings incl. terrains in one turn: no short game plants these (2 per turn)
    s.planted[1 - seat] = hits[:1]  # the other seat's planting this turn is not this seat's
    soil = s.soil[seat]
    run(s, {"color": "green", "kind": "gain", "gain": [{"res": "soil", "n": 2, "per": {"what": "planted",
                                                                                       "filter": flt}}]}, p=seat)
    assert s.soil[seat] == soil + 4


def test_per_card_with_a_colour_planted_this_turn_does_not_count_multicoloured_abilities():
    """The islands' "+2 soil per card with a Yellow (Red, Blue) ability planted this turn" count a
    multicoloured ability as a colour of its own, as the objectives do: it matches the Yellow action
    for activation, but a card whose only colour is Multi is not a card with a Yellow ability."""
    s = board()
    s.island[0] = island_where(lambda a: a["kind"] == "gain"
                               and a["gain"][0].get("per") == {"what": "planted", "filter": {"color": "yellow"}})

    def colours(c):
        return [a["color"] for a in c["abilities"]]

    multi = flora(lambda c: "multi" in colours(c) and "yellow" not in colours(c) and "black" not in colours(c))
    yellow = flora(lambda c: "yellow" in colours(c) and "multi" not in colours(c) and "black" not in colours(c))
    assert s.colour_matches("multi", "yellow")  # the multicoloured ability is activated on Yellow actions
    s.hands[0] = []
    give(s, 0, multi, yellow)
    s.soil[0] = 20
    choose_action(s, "plant")
    act(s, "plant", multi)
    act(s, "cell", 5)
    act(s, "plant", yellow)
    act(s, "cell", 6)
    assert s.planted[0] == [multi, yellow]
    while s.decision() != "activate":  # keep 1 of the 4 drawn, player 1 plants nothing
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])
    assert s.current_player() == 0 and s.queue[0]["colour"] == "green" and 32 in legal(s, "activate")
    soil = s.soil[0]
    act(s, "activate", 32)  # the island
    assert s.soil[0] == soil + 2  # the Yellow card only, not the Multi one


def test_per_card_of_a_type_in_a_direction_of_the_tableau():
    s = board()
    trees = [c["id"] for c in CAT.earth if c["type"] == "tree"]
    herb = next(c["id"] for c in CAT.earth if c["type"] == "herb")
    put(s, 0, 4, trees[0])
    put(s, 0, 6, trees[1])
    put(s, 0, 7, herb)
    put(s, 0, 1, trees[2])  # another row: not counted
    soil = s.soil[0]
    run(s, gain("soil", 1, per={"what": "tableau", "dir": "row", "filter": {"type": "tree"}}), cell=5)
    assert s.soil[0] == soil + 2


def test_per_card_of_a_type_in_this_row_or_in_your_tableau_counts_the_card_itself_when_it_is_one():
    """RULES.md: "this row" and "your tableau" hold the ability's own card, as "up to 1 on each Tree in this row"
    does. African Ash, a Tree alone in its row, gains for itself; a Terrain scoring per Terrain in your tableau
    scores itself (found unwritten by an audit)."""
    ash = next(c for c in CAT.earth if c["name"] == "African Ash")
    assert ash["type"] == "tree" and ash["text"] == "[Red] +1 soil per Tree in this row."
    s = board()
    put(s, 0, 0, ash["id"])
    play_to_activation(s, "compost")
    soil = s.soil[0]
    act(s, "activate", 0)
    assert s.soil[0] == soil + 1
    plain = next(c for c in CAT.earth if c["name"] == "Southern Floodplain")
    assert plain["kind"] == "terrain" and "3 VP per Terrain in your tableau" in plain["text"]
    s = board()
    put(s, 0, 0, plain["id"])
    assert scoring.score_breakdown(s, 0)["6_terrain"] == 3


# ------------------------------------------------------------------ directional placement
@pytest.mark.parametrize(("direction", "cells"), [("row", [4, 5, 6, 7]), ("col", [1, 5, 9, 13]),
                                                  ("orth", [1, 4, 6, 9]), ("diag", [0, 2, 8, 10]),
                                                  ("adj", [0, 1, 2, 4, 6, 8, 9, 10])])
def test_directional_placement_row_column_adjacent_orthogonal_diagonal(direction, cells):
    s = board()
    for i in range(16):
        put(s, 0, i, roomy(i))
    run(s, {"color": "yellow", "kind": "gain",
            "gain": [{"res": "growth", "n": 3, "where": {"dir": direction, "filter": {}, "each": False}}]}, cell=5)
    assert legal(s, "cell") == sorted(cells)


def test_up_to_n_on_adjacent_cards_means_n_pieces_in_total():
    s = board()
    for i in range(16):
        put(s, 0, i, roomy(i))
    run(s, {"color": "yellow", "kind": "gain",
            "gain": [{"res": "growth", "n": 3, "where": {"dir": "adj", "filter": {}, "each": False}}]}, cell=5)
    for c in (0, 1, 2):
        act(s, "cell", c)
    assert s.decision() == "action" and sum(s.gro[0]) == 3


@pytest.mark.parametrize("seat", [0, 1])
def test_up_to_1_on_each_card_of_a_type_in_this_row_including_this_card(seat):
    # either seat: a mutant allowing seat 1 one piece more on each card passed seat 0's case
    s = board(p=seat)
    trees = [c["id"] for c in CAT.earth if c["type"] == "tree" and c["sprouts"] >= 2]
    herb = next(c["id"] for c in CAT.earth if c["type"] == "herb" and c["sprouts"] >= 2)
    put(s, seat, 8, trees[0])
    put(s, seat, 9, trees[1])
    put(s, seat, 10, herb)
    run(s, {"color": "blue", "kind": "gain",
            "gain": [{"res": "sprouts", "n": 1, "where": {"dir": "row", "filter": {"type": "tree"}, "each": True}}]},
        cell=9, p=seat)
    assert legal(s, "cell") == [8, 9]
    act(s, "cell", 9)
    assert legal(s, "cell") == [8]  # at most 1 on each
    act(s, "cell", 8)
    assert s.decision() == "action" and s.spr[seat][8:11] == [1, 1, 0]


def test_an_island_climate_or_event_places_up_to_1_on_each_card_of_a_type_in_your_tableau():
    """An island, climate or event has no cell of its own, so the catalogue lets its placement reach only "in
    your tableau" (dir "all"). Its filter and "up to 1 on each" hold there too: both were dropped, and the
    pieces could go on any card (a Herb for "each Tree"), 1 in all."""
    s = board()
    trees = [c["id"] for c in CAT.earth if c["type"] == "tree" and c["sprouts"] >= 2]
    herb = next(c["id"] for c in CAT.earth if c["type"] == "herb" and c["sprouts"] >= 2)
    put(s, 0, 0, trees[0])
    put(s, 0, 9, trees[1])
    put(s, 0, 10, herb)
    run(s, {"color": "blue", "kind": "gain",
            "gain": [{"res": "sprouts", "n": 1, "where": {"dir": "all", "filter": {"type": "tree"}, "each": True}}]},
        cell=None)
    assert legal(s, "cell") == [0, 9]
    act(s, "cell", 9)
    assert legal(s, "cell") == [0]  # at most 1 on each
    act(s, "cell", 0)
    assert s.decision() == "action" and (s.spr[0][0], s.spr[0][9], s.spr[0][10]) == (1, 1, 0)


@pytest.mark.parametrize("seat", [0, 1])
def test_an_event_whose_cost_composts_cards_from_hand_is_paid_with_other_cards_than_itself(monkeypatch, seat):
    """The event leaves the hand when played: with only the event in hand it was playable, its payment found
    no card to compost, and its gain came for free. (No shipped event costs cards from hand; a catalogue of
    one's own may.) Either seat: a mutant letting seat 1's event pay with itself passed seat 0's case."""
    s = board(p=seat)
    e = next(c["id"] for c in CAT.earth if c["kind"] == "event" and not c["abilities"][0].get("cost"))
    # the game's own catalogue, not scenario.CAT: once other tests fill the catalogue cache (it keeps 4), a game may
    # hold another copy of the shipped files, and an edit of CAT then changed nothing it plays (failed after the fuzz)
    monkeypatch.setitem(s.game.cat.earth[e]["abilities"][0], "cost", {"hand_compost": 1})
    monkeypatch.setitem(s.game.cat.earth[e]["abilities"][0], "gain", [{"res": "soil", "n": 5}])
    s.discard += s.hands[seat]
    s.hands[seat] = []
    give(s, seat, e)
    assert (s.decision(), s.current_player()) == ("action", seat) and legal(s, "event") == []
    other = flora()
    give(s, seat, other)
    assert legal(s, "event") == [e - EVENT0]
    soil, compost = s.soil[seat], len(s.compost[seat])
    act(s, "event", e - EVENT0)
    assert s.decision() == "pay_hand" and A(s, "pass") not in s.legal_actions()
    act(s, "card", other)
    assert (s.soil[seat], len(s.compost[seat]), s.hands[seat], s.events[seat]) == (soil + 5, compost + 1, [], [e])
    assert s.compost[seat][-1] == other and s.decision() == "action"
    s.check_invariants()


# ------------------------------------------------------------------ cost reductions, copy, forbid, on_event
@pytest.mark.parametrize("seat", [0, 1])
def test_cost_reduction_by_type_or_habitat_not_below_zero(seat):
    # either seat, each by its own area: mutants lowering seat 1's reductions or their floor passed seat 0's case
    s = board(p=seat)
    other_seat = 1 - seat
    quiet(s, other_seat)
    terrain = next(c["id"] for c in CAT.earth if any(a["kind"] == "cost_reduction" and "type" in a["filter"]
                                                     for a in c["abilities"]))
    red = next(a for a in CAT.earth[terrain]["abilities"] if a["kind"] == "cost_reduction")
    t = red["filter"]["type"]
    cheap = next(c["id"] for c in CAT.earth if c["type"] == t and c["cost"] < red["n"])
    pricey = next(c["id"] for c in CAT.earth if c["type"] == t and c["cost"] >= 4)
    other = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and t not in CAT.types_of[c["id"]]
                 and "sunny" not in c["habitats"] and c["cost"] >= 2)
    put(s, seat, 0, terrain)
    assert s.effective_cost(seat, cheap) == 0
    assert s.effective_cost(seat, pricey) == CAT.earth[pricey]["cost"] - red["n"]
    assert s.effective_cost(seat, other) == CAT.earth[other]["cost"]
    assert s.effective_cost(other_seat, pricey) == CAT.earth[pricey]["cost"], "the terrain is in the other area"
    s.island[seat] = island_where(lambda a: a["kind"] == "cost_reduction")
    hab = CAT.islands[s.island[seat]]["abilities"][0]["filter"]["habitat"]
    sunny = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and hab in c["habitats"]
                 and t not in CAT.types_of[c["id"]] and c["cost"] >= 3)
    assert s.effective_cost(seat, sunny) == CAT.earth[sunny]["cost"] - 1


def test_cost_reductions_stack_two_terrains_for_one_type_and_one_for_a_habitat():
    # RULES.md: "Reductions stack": two "Trees cost 2 less" terrains take 4 from a tree, and a cold tree loses
    # 1 more under "Cold cards cost 1 less"
    s = board()
    tree_terrains = [c["id"] for c in CAT.earth if any(a["kind"] == "cost_reduction" and a["filter"] == {"type": "tree"}
                                                       for a in c["abilities"])]
    cold_terrain = next(c["id"] for c in CAT.earth if any(a["kind"] == "cost_reduction" and a["filter"] == {"habitat": "cold"}
                                                          for a in c["abilities"]))
    tree = next(c["id"] for c in CAT.earth if c["type"] == "tree" and "cold" not in c["habitats"] and c["cost"] >= 5)
    cold_tree = next(c["id"] for c in CAT.earth if c["type"] == "tree" and "cold" in c["habitats"] and c["cost"] >= 6)
    put(s, 0, 0, tree_terrains[0])
    assert s.effective_cost(0, tree) == CAT.earth[tree]["cost"] - 2
    put(s, 0, 1, tree_terrains[1])
    assert s.effective_cost(0, tree) == CAT.earth[tree]["cost"] - 4
    put(s, 0, 2, cold_terrain)
    assert s.effective_cost(0, cold_tree) == CAT.earth[cold_tree]["cost"] - 5
    assert s.effective_cost(0, tree) == CAT.earth[tree]["cost"] - 4


def test_copy_another_ability_in_your_tableau_from_the_copying_cards_position(monkeypatch):
    s = board()
    joker = next(c["id"] for c in CAT.earth if c["type"] == "joker" and c["abilities"][0]["color"] == "yellow")
    adj_grower = {"color": "yellow", "kind": "gain",
                  "gain": [{"res": "growth", "n": 1, "where": {"dir": "orth", "filter": {}, "each": False}}]}
    host = roomy(0)
    put(s, 0, 0, host)
    # the host gets a directional ability in the game's own catalogue (see the hand-compost event test above)
    monkeypatch.setitem(s.game.cat.earth[host], "abilities", [adj_grower, *CAT.earth[host]["abilities"]])
    put(s, 0, 15, joker)
    for i in (1, 11, 14):
        put(s, 0, i, roomy(i))
    play_to_activation(s, "grow")  # Growing: the Yellow activation
    assert 30 in legal(s, "activate")
    act(s, "activate", 30)
    assert s.decision() == "copy" and 0 in legal(s, "activate")
    act(s, "activate", 0)
    # the copied "orthogonally adjacent" applies around the joker at cell 15, not around the host at 0
    assert s.decision() == "place" and sorted(legal(s, "cell")) == [11, 14]
    before = list(s.gro[0])
    act(s, "cell", 14)
    assert s.gro[0][14] == before[14] + 1 and sum(s.gro[0]) == sum(before) + 1


def test_copy_one_blue_ability_may_copy_a_multicoloured_ability_the_blue_action_activates():
    """RULES.md: a copy's "one Blue (Red, Yellow) ability" is an ability the action activates, so a multicoloured
    one too ("Multicolored abilities that match the current action are also activated"); the island bonus "per
    card with a Blue ability planted this turn" names the card's colour, where Multi is a colour of its own."""
    meadow = next(c for c in CAT.earth if c["name"] == "Meadow Sprouts")
    larch = next(c for c in CAT.earth if c["name"] == "Downy Larch")
    assert meadow["text"].startswith("[Blue] copy one Blue ability in your tableau.")
    assert larch["text"].startswith("[Multi] ")
    s = board()
    put(s, 0, 0, meadow["id"])
    put(s, 0, 1, larch["id"])
    play_to_activation(s, "water")
    act(s, "activate", 0)
    assert s.decision() == "copy" and legal(s, "activate") == [2]  # the Larch's Multi ability
    assert not scoring.matches(CAT, larch["id"], {"color": "blue"})


def test_a_copy_may_copy_an_ability_already_activated_this_turn_and_the_original_stays_activatable():
    """"Each ability can only be activated once per turn" is read per ability slot: the copy is the copy
    card's own ability, so having activated an ability does not stop a copy from copying it, and copying
    an ability does not use it up."""
    joker = next(c["id"] for c in CAT.earth if c["type"] == "joker" and c["abilities"][0]["color"] == "yellow")
    draw1 = {"color": "yellow", "kind": "gain", "gain": [{"res": "draw", "n": 1}]}
    drawer = flora(lambda c: draw1 in c["abilities"])
    i = CAT.earth[drawer]["abilities"].index(draw1)

    def yellow_activation(joker_cell, drawer_cell):
        s = board()
        put(s, 0, joker_cell, joker)
        put(s, 0, drawer_cell, drawer)
        play_to_activation(s, "grow")  # Growing: the Yellow activation
        return s, len(s.hands[0])

    # the original first (cell 0), then the copy (cell 15) copies it
    s, hand = yellow_activation(15, 0)
    act(s, "activate", i)
    assert len(s.hands[0]) == hand + 1 and i not in legal(s, "activate")  # the original: once
    assert 30 in legal(s, "activate")
    act(s, "activate", 30)
    assert s.decision() == "copy" and legal(s, "activate") == [i]
    act(s, "activate", i)
    assert len(s.hands[0]) == hand + 2

    # the copy first (cell 0) copies the original (cell 5), which is then activated itself
    s, hand = yellow_activation(0, 5)
    act(s, "activate", 0)
    assert s.decision() == "copy" and legal(s, "activate") == [10 + i]
    act(s, "activate", 10 + i)
    assert len(s.hands[0]) == hand + 1
    assert s.decision() == "activate" and 10 + i in legal(s, "activate")
    act(s, "activate", 10 + i)
    assert len(s.hands[0]) == hand + 2


@pytest.mark.parametrize("seat", [0, 1])
def test_a_copy_never_copies_the_other_ability_of_its_own_card(monkeypatch, seat):
    # "copy another ability in your tableau": no shipped copy card has a gain beside its copy, so nothing
    # showed that its own card's is out of reach; a catalogue of one's own may hold one. Either seat: a mutant
    # letting seat 1's copy reach its own card passed seat 0's case
    s = board(p=seat)
    copier = next(c["id"] for c in CAT.earth if any(a["kind"] == "copy" for a in c["abilities"]))
    (j,) = [i for i, a in enumerate(CAT.earth[copier]["abilities"]) if a["kind"] == "copy"]
    colour = CAT.earth[copier]["abilities"][j]["color"]
    twin = {"color": colour, "kind": "gain", "gain": [{"res": "soil", "n": 3}]}
    monkeypatch.setitem(s.game.cat.earth[copier], "abilities", [CAT.earth[copier]["abilities"][j], twin])  # the game's
    put(s, seat, 5, copier)
    assert s.copy_targets(seat, 5, colour) == []
    other = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and c["id"] != copier
                 and any(s.usable(seat, a, colour) for a in c["abilities"] if a["kind"] == "gain"))
    put(s, seat, 6, other)
    assert s.copy_targets(seat, 5, colour) and all(slot // 2 == 6 for slot in s.copy_targets(seat, 5, colour))


def test_a_copy_copies_only_an_ability_whose_cost_can_be_paid_now():
    """"Any abilities with a numbered resource before a ':' must be paid to get the benefit": a copy resolves
    the copied ability, cost first, so an ability p cannot pay for is no copy target (and a copy with no
    target is not offered)."""
    meadow = next(c for c in CAT.earth if c["name"] == "Meadow Sprouts")
    mint = next(c for c in CAT.earth if c["name"] == "Silver Mint")
    assert meadow["text"].startswith("[Blue] copy one Blue ability in your tableau.")
    assert mint["abilities"][0] == {"color": "multi", "kind": "gain", "cost": {"soil": 1},
                                    "gain": [{"res": "growth", "n": 2}]}
    s = board()
    put(s, 0, 0, meadow["id"])
    put(s, 0, 1, mint["id"])
    s.soil[0] = 0
    assert s.copy_targets(0, 0, "blue") == [] and not s.slot_usable(0, 0, "blue")
    s.soil[0] = 1
    assert s.copy_targets(0, 0, "blue") == [2] and s.slot_usable(0, 0, "blue")


def test_a_copy_of_an_if_you_chose_the_action_ability_works_only_for_the_player_who_chose_the_action():
    """A copy resolves the copied ability with its condition: Purple Sage's "[Red] +2 soil, if you chose the Red
    action" copied by Marsh Sprouts ("[Red] copy one Red ability") pays the player who chose Composting, never a
    player activating Red in another player's turn (they chose no action). Played out for both seats: seat 1's
    copy may copy its other Red ability only."""
    marsh, sage, nettle = (next(c["id"] for c in CAT.earth if c["name"] == name)
                           for name in ("Marsh Sprouts", "Purple Sage", "Common Nettle"))
    assert CAT.earth[sage]["abilities"] == [{"color": "red", "kind": "gain", "if_action": "compost",
                                             "gain": [{"res": "soil", "n": 2}]}]
    for seat in (0, 1):
        s = board()
        quiet(s, 1)
        put(s, seat, 0, sage)
        put(s, seat, 1, marsh)
        put(s, seat, 2, nettle)  # "[Red] +1 soil per Tree in this row": the Marsh Sprouts (a joker) is one
        play_to_activation(s, "compost", p=seat)
        soil = s.soil[seat]
        assert legal(s, "activate") == ([0, 2, 4] if seat == 0 else [2, 4])  # seat 1: not the Sage itself
        act(s, "activate", 2)
        assert s.decision() == "copy" and legal(s, "activate") == ([0, 4] if seat == 0 else [4])
        act(s, "activate", 0 if seat == 0 else 4)
        assert s.soil[seat] == soil + (2 if seat == 0 else 1) and s.decision() == "activate"


def test_copy_never_copies_the_island_or_climate_or_another_copy():
    s = board()
    jokers = [c["id"] for c in CAT.earth if c["type"] == "joker"]
    put(s, 0, 0, jokers[0])
    put(s, 0, 1, jokers[1])
    colour = CAT.earth[jokers[0]]["abilities"][0]["color"]
    assert s.copy_targets(0, 0, colour) == []
    assert not s.slot_usable(0, 0, colour)


@pytest.mark.parametrize("seat", [0, 1])
def test_cannot_choose_action_x_as_active_player(seat):
    # either seat: a mutant dropping seat 1's forbidden action passed seat 0's case
    s = board(p=seat)
    assert legal(s, "action") == [0, 1, 2, 3]
    put(s, seat, 0, next(c["id"] for c in CAT.earth if any(a["kind"] == "forbid_action" and a["action"] == "water"
                                                         for a in c["abilities"])))
    assert (s.decision(), s.current_player()) == ("action", seat)
    assert legal(s, "action") == [i for i, name in enumerate(ACTIONS) if name != "water"]
    with pytest.raises(IllegalActionError):
        choose_action(s, "water")
    choose_action(s, "grow")  # the other three stay open
    assert s.action == ACTIONS.index("grow")


@pytest.mark.parametrize("seat", [0, 1])
def test_whenever_you_play_an_event_gain(seat):
    # either seat: a mutant skipping seat 1's trigger passed seat 0's case (only seeded random games caught it)
    s = board(p=seat)
    s.island[seat] = island_where(lambda a: a["kind"] == "on_event" and a["gain"][0]["res"] == "draw")
    e = next(c["id"] for c in CAT.earth if c["kind"] == "event" and not c["abilities"][0].get("cost")
             and c["abilities"][0]["gain"][0]["res"] == "soil")
    give(s, seat, e)
    hand, top, soil = list(s.hands[seat]), s.deck[-1], s.soil[seat]
    assert (s.decision(), s.current_player()) == ("action", seat) and e - EVENT0 in legal(s, "event")
    act(s, "event", e - EVENT0)
    # the event left the hand, the brown trigger drew the top card of the deck, the event gave its soil
    assert sorted(s.hands[seat]) == sorted([c for c in hand if c != e] + [top])
    assert s.soil[seat] == soil + CAT.earth[e]["abilities"][0]["gain"][0]["n"]
    assert s.events[seat] == [e] and (s.decision(), s.current_player()) == ("action", seat)
    s.check_invariants()


def test_whenever_you_play_an_event_gain_places_sprouts_as_a_gain_ability_would(monkeypatch):
    # a catalogue of one's own may give an on_event ability any gain: the shipped ones give soil or a draw,
    # and a sprout gain was once run as an automatic step the engine did not know (an AssertionError)
    s = board()
    s.island[0] = island_where(lambda a: a["kind"] == "on_event")
    monkeypatch.setitem(s.game.cat.islands[s.island[0]]["abilities"][0], "gain", [{"res": "sprouts", "n": 2}])
    put(s, 0, 5, flora(lambda c: c["sprouts"] >= 2))
    e = next(c["id"] for c in CAT.earth if c["kind"] == "event" and not c["abilities"][0].get("cost")
             and c["abilities"][0]["gain"][0]["res"] == "soil")
    give(s, 0, e)
    act(s, "event", e - EVENT0)
    assert (s.decision(), s.current_player()) == ("place", 0) and legal(s, "cell") == [5]
    act(s, "cell", 5)
    act(s, "cell", 5)
    assert s.spr[0][5] == 2 and (s.decision(), s.current_player()) == ("action", 0)
    s.check_invariants()


def test_an_on_event_ability_with_a_cost_or_a_condition_is_refused_when_the_catalogue_loads():
    gain = [{"res": "draw", "n": 1}]
    assert check_ability({"color": "brown", "kind": "on_event", "gain": gain}) is None
    for extra in ({"cost": {"soil": 3}}, {"if_action": "plant"}):
        problem = check_ability({"color": "brown", "kind": "on_event", "gain": gain, **extra})
        assert problem.startswith("an on_event ability gains without a cost or an if_action condition")


# ------------------------------------------------------------------ end-game scoring patterns
def terrain_with(pattern, **kw):
    return {"pattern": pattern, **kw}


def test_score_per_type_in_a_row():
    s = board()
    herbs = [c["id"] for c in CAT.earth if c["type"] == "herb"][:3]
    put(s, 0, 0, herbs[0])
    put(s, 0, 2, herbs[1])
    put(s, 0, 4, herbs[2])
    assert scoring.terrain_vp(s, 0, 1, terrain_with("per_in_dir", dir="row", filter={"type": "herb"}, vp=3)) == 6


def test_score_longest_orthogonal_path_of_a_habitat_through_this_card():
    s = board()
    wet = [c["id"] for c in CAT.earth if c["kind"] == "flora" and "wet" in c["habitats"]]
    dry = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and "wet" not in c["habitats"])
    for i, cell in enumerate([0, 1, 5, 9, 10, 3]):
        put(s, 0, cell, wet[i])
    put(s, 0, 2, dry)
    # path 0-1-5-9-10 (turns allowed, no revisits); cell 3 is cut off by the dry card at 2
    assert scoring.terrain_vp(s, 0, 5, terrain_with("longest_path", habitat="wet", vp=2)) == 10
    assert scoring.terrain_vp(s, 0, 3, terrain_with("longest_path", habitat="wet", vp=2)) == 2
    assert scoring.terrain_vp(s, 0, 2, terrain_with("longest_path", habitat="wet", vp=2)) == 0
    put(s, 0, 15, wet[6])  # r3c3 touches r2c2 (cell 10) only at a corner: a diagonal step joins no path
    assert scoring.terrain_vp(s, 0, 15, terrain_with("longest_path", habitat="wet", vp=2)) == 2
    assert scoring.terrain_vp(s, 0, 5, terrain_with("longest_path", habitat="wet", vp=2)) == 10
    # a card on a short branch of the group: the longest path through it (2-6-7-11-15), not the group's
    # longest path (4-5-6-7-11-15), which it is not on
    s = board()
    for i, cell in enumerate([4, 5, 6, 7, 11, 15, 2]):
        put(s, 0, cell, wet[i])
    assert scoring.terrain_vp(s, 0, 2, terrain_with("longest_path", habitat="wet", vp=2)) == 2 * 5
    assert scoring.terrain_vp(s, 0, 4, terrain_with("longest_path", habitat="wet", vp=2)) == 2 * 6


def test_score_longest_path_is_a_simple_path_not_the_whole_connected_group():
    """Five wet cards in a plus shape are connected, but no path without revisits goes through more than 3."""
    s = board()
    wet = [c["id"] for c in CAT.earth if c["kind"] == "flora" and "wet" in c["habitats"]]
    for i, cell in enumerate([1, 4, 5, 6, 9]):
        put(s, 0, cell, wet[i])
    assert scoring.terrain_vp(s, 0, 5, terrain_with("longest_path", habitat="wet", vp=2)) == 6
    assert scoring.terrain_vp(s, 0, 1, terrain_with("longest_path", habitat="wet", vp=2)) == 6


def test_score_sets_of_flora_types():
    s = board()
    for i, t in enumerate(["tree", "herb", "mushroom", "bush", "tree", "herb", "mushroom"]):
        put(s, 0, i, [c["id"] for c in CAT.earth if c["type"] == t][i])
    assert scoring.terrain_vp(s, 0, 15, terrain_with("sets", elements=["tree", "herb", "mushroom", "bush"],
                                                     vp=5)) == 5


def test_sets_take_each_element_from_a_different_card():
    s = board()
    joker = next(c["id"] for c in CAT.earth if c["type"] == "joker")
    trees = [c["id"] for c in CAT.earth if c["type"] == "tree"]
    herb = next(c["id"] for c in CAT.earth if c["type"] == "herb")
    pattern = terrain_with("sets", elements=["tree", "herb", "mushroom", "bush"], vp=5)
    for i, c in enumerate([trees[0], trees[1], herb, joker]):
        put(s, 0, i, c)
    assert scoring.terrain_vp(s, 0, 15, pattern) == 0  # the joker cannot be both the mushroom and the bush
    put(s, 0, 1, next(c["id"] for c in CAT.earth if c["type"] == "mushroom"))
    assert scoring.terrain_vp(s, 0, 15, pattern) == 5  # tree, herb, mushroom + joker as bush
    assert scoring.max_sets([{"a", "b"}, {"a", "b"}, {"a"}], ["a", "b"]) == 1


def test_line_of_four_different_ability_colours_may_use_either_colour_of_a_two_colour_card():
    s = board()
    single = {col: next(c["id"] for c in CAT.earth if c["kind"] == "flora" and c["type"] != "joker"
                        and [a["color"] for a in c["abilities"]] == [col]) for col in ("red", "blue", "yellow", "multi")}
    two = next(c["id"] for c in CAT.earth if [a["color"] for a in c["abilities"]] == ["red", "blue"])
    for i, c in enumerate([single["red"], two, single["yellow"], single["multi"]]):
        put(s, 0, i, c)  # red, red+blue (as blue), yellow, multi: 4 different
    assert scoring.measure(s, 0, "lines_diff_color") == 1
    put(s, 0, 3, single["blue"])  # red, red/blue, yellow, blue: only 3 colours available
    assert scoring.measure(s, 0, "lines_diff_color") == 0


def test_line_of_four_different_ability_colours_takes_each_colour_from_a_different_card():
    """Four colours among a row's cards are not enough: each card gives one colour of its own. A multicoloured
    card and a blue/yellow card beside two red-only cards show four colours; the two red cards give one."""
    s = board()
    pair = {cols: next(c["id"] for c in CAT.earth if c["kind"] == "flora" and c["type"] != "joker"
                       and sorted(a["color"] for a in c["abilities"]) == sorted(cols))
            for cols in (("red",), ("multi",), ("blue", "yellow"))}
    red2 = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and c["type"] != "joker"
                and c["id"] != pair[("red",)] and [a["color"] for a in c["abilities"]] == ["red"])
    for i, c in enumerate([pair[("multi",)], pair[("blue", "yellow")], pair[("red",)], red2]):
        put(s, 0, i, c)
    shown = set().union(*(CAT.colours_of[s.grid[0][i]] for i in range(4)))
    assert shown >= {"red", "blue", "yellow", "multi"}
    assert scoring.measure(s, 0, "lines_diff_color") == 0


def test_a_line_of_ability_colours_counts_black_and_brown_abilities_as_colours_too():
    """"Ability colours" are every colour an ability is printed in: a Black or Brown ability is a colour of a
    line, as Red, Blue, Yellow, Green and Multi are."""
    s = board()
    only = {col: next(c["id"] for c in CAT.earth if c["type"] != "joker" and CAT.colours_of[c["id"]] == [col]
                      and c["id"] in s.deck) for col in ("black", "brown", "red", "blue")}
    for i, col in enumerate(("black", "brown", "red", "blue")):
        put(s, 0, i, only[col])
    assert scoring.measure(s, 0, "lines_diff_color") == 1
    terrains = [c for c in s.deck if CAT.colours_of[c] == ["brown"] and c not in only.values()][:4]
    for i, c in enumerate(terrains):
        put(s, 0, 4 + i, c)
    assert scoring.measure(s, 0, "lines_same_color") == 1


def test_a_line_of_four_different_sprout_counts_counts_no_sprouts_as_one_of_them():
    s = board()
    flora = [c for c in s.deck if CAT.earth[c]["kind"] == "flora" and CAT.earth[c]["sprouts"] >= 3][:4]
    for i, c in enumerate(flora):
        put(s, 0, i, c, sprouts=i)  # 0, 1, 2, 3
    assert scoring.measure(s, 0, "lines_diff_sprouts") == 1
    s.spr[0][0] = 1  # 1, 1, 2, 3
    assert scoring.measure(s, 0, "lines_diff_sprouts") == 0


def test_a_multicoloured_ability_counts_for_multicolour_objectives_not_as_red_blue_or_yellow():
    """A multicoloured ability is a colour of its own in objectives: "N+ cards with a Red ability" does not count
    it, nor does the Red/Blue/Yellow/Terrain/Event set take it for its red element."""
    s = board()
    s.island[0] = s.climate[0] = -1  # no island or climate colours
    only = {col: next(c["id"] for c in CAT.earth if c["kind"] != "event" and c["type"] != "joker"
                      and [a["color"] for a in c["abilities"]] == [col]) for col in ("multi", "red", "blue", "yellow")}
    put(s, 0, 0, only["multi"])
    assert [scoring.measure(s, 0, "color", col) for col in ("multi", "red", "blue", "yellow")] == [1, 0, 0, 0]
    terrain = next(c["id"] for c in CAT.earth if c["kind"] == "terrain"
                   and not {"red", "blue", "yellow", "multi"} & set(CAT.colours_of[c["id"]]))
    event = next(c["id"] for c in CAT.earth if c["kind"] == "event")
    for cell, card in ((1, only["blue"]), (2, only["yellow"]), (3, terrain)):
        put(s, 0, cell, card)
    s.events[0].append(take(s, event))
    assert scoring.measure(s, 0, "sets_rbyte") == 0, "the multicoloured card is not the set's red element"
    put(s, 0, 4, only["red"])
    assert scoring.measure(s, 0, "sets_rbyte") == 1


def test_score_per_resource():
    s = board()
    s.soil[0] = 10
    assert scoring.terrain_vp(s, 0, 0, terrain_with("per_resource", res="soil", per=3, vp=2)) == 6


@pytest.mark.parametrize("seat", [0, 1])
def test_score_habitat_in_any_one_players_area_uses_the_highest_count(seat):
    # either seat scoring on the other's area: a mutant reading only seat 1's own area passed seat 0's case
    s = board()
    cold = [c["id"] for c in CAT.earth if c["kind"] == "flora" and "cold" in c["habitats"]]
    for i in range(5):
        put(s, 1 - seat, i, cold[i])
    put(s, seat, 0, cold[5])
    best = max(scoring.measure(s, q, "habitat", "cold") for q in range(2))
    assert best >= 5 and scoring.measure(s, seat, "habitat", "cold") < best
    assert scoring.terrain_vp(s, seat, 0, terrain_with("any_player", habitat="cold", vp=2)) == 2 * best


def test_score_habitat_in_any_one_players_area_counts_the_own_area_and_the_island_and_climate():
    """"Any one player's area" includes the scoring player's own, and an area holds its island and climate."""
    s = board()
    for q in range(2):
        s.island[q] = next(i["id"] for i in CAT.islands if "cold" not in i["habitats"])
        s.climate[q] = next(c["id"] for c in CAT.climates if "cold" not in c["habitats"])
    cold = [c["id"] for c in CAT.earth if c["kind"] == "flora" and "cold" in c["habitats"]]
    for i in range(3):
        put(s, 0, i, cold[i])
    for i in range(2):
        put(s, 1, i, cold[3 + i])
    terrain = terrain_with("any_player", habitat="cold", vp=2)
    assert scoring.terrain_vp(s, 0, 0, terrain) == 6, "the scoring player's own 3 cold cards are the most"
    s.island[1] = next(i["id"] for i in CAT.islands if "cold" in i["habitats"])
    s.climate[1] = next(c["id"] for c in CAT.climates if "cold" in c["habitats"])
    assert scoring.terrain_vp(s, 0, 0, terrain) == 8, "seat 1's 2 cold cards, cold island and cold climate"


def test_every_catalogue_ability_is_in_the_vocabulary_and_has_generated_text():
    for rec in CAT.earth + CAT.islands + CAT.climates:
        for a in rec["abilities"]:
            assert check_ability(a) is None
        assert rec["text"] == " ".join(ability_text(a) for a in rec["abilities"])


# ------------------------------------------------------------------ paying a card's cost with something else
def alt_card(res):
    return next(c["id"] for c in CAT.earth if any(a["kind"] == "alt_cost" and a["res"] == res
                                                  for a in c["abilities"]))


def plant_board(card, soil, *extra, prep=lambda s: None, seat=0):
    """Seat ``seat`` holds only ``card`` (and ``extra``) and ``soil`` soil, then chooses Planting."""
    s = board(p=seat)
    s.hands[seat] = []
    give(s, seat, card, *extra)
    s.soil[seat] = soil
    prep(s)
    choose_action(s, "plant")
    return s


@pytest.mark.parametrize("seat", [0, 1])
def test_alt_cost_card_is_plantable_without_soil_when_the_other_resource_covers_it(seat):
    # either seat: a mutant letting seat 1's card compost itself to pay for itself passed seat 0's case
    card = alt_card("hand_compost")
    cost = CAT.earth[card]["cost"]
    s = plant_board(card, 0, seat=seat)
    # nothing else in hand to compost: no card to plant (whether or not the seat is asked), nothing planted
    assert s.current_player() == seat and legal(s, "plant") == []
    while s.decision() != "action":
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])
    assert card not in s.grid[seat] and card in s.hands[seat]
    extra = [c for c in board().deck if CAT.cost[c] > 0 and CAT.earth[c]["kind"] != "event"][:cost]
    # one card short: the card being planted is not one of the cards that pay for it
    s = plant_board(card, 0, *extra[:-1], seat=seat)
    assert legal(s, "plant") == []
    s = plant_board(card, 0, *extra, seat=seat)
    assert (s.decision(), s.current_player()) == ("plant", seat) and legal(s, "plant") == [card]
    act(s, "plant", card)
    act(s, "cell", 0)
    assert s.decision() == "pay_hand" and A(s, "pass") not in s.legal_actions()
    for c in extra:
        act(s, "card", c)
    assert s.grid[seat][0] == card and s.soil[seat] == 0 and s.compost[seat][-cost:] == extra


def test_a_cost_reduction_lowers_the_alternative_cost_too():
    """A brown "Trees cost 2 less" lowers the card's cost however it is paid: the tree whose cost may be paid by
    composting cards from hand needs 2 cards fewer."""
    card = alt_card("hand_compost")
    assert "tree" in CAT.types_of[card]
    terrain = next(c["id"] for c in CAT.earth if any(a["kind"] == "cost_reduction" and a["filter"] == {"type": "tree"}
                                                    for a in c["abilities"]))
    less = next(a["n"] for a in CAT.earth[terrain]["abilities"] if a["kind"] == "cost_reduction")
    need = CAT.earth[card]["cost"] - less
    extra = [c for c in board().deck if CAT.cost[c] > 0 and CAT.earth[c]["kind"] != "event" and c != terrain][:need]
    with_terrain = lambda s: put(s, 0, 5, terrain)  # noqa: E731
    assert legal(plant_board(card, 0, *extra[:-1], prep=with_terrain), "plant") == []
    s = plant_board(card, 0, *extra, prep=with_terrain)
    assert legal(s, "plant") == [card]
    act(s, "plant", card)
    act(s, "cell", 6)
    for c in extra:
        act(s, "card", c)
    assert s.grid[0][6] == card and s.decision() != "pay_hand" and s.compost[0][-need:] == extra


def test_a_cost_reduction_lowers_the_alternative_cost_so_a_spare_card_stays_in_hand():
    """The reduced cost is what is composted from hand: with one card more than it in hand, that card is kept."""
    card = alt_card("hand_compost")
    terrain = next(c["id"] for c in CAT.earth if any(a["kind"] == "cost_reduction" and a["filter"] == {"type": "tree"}
                                                    for a in c["abilities"]))
    less = next(a["n"] for a in CAT.earth[terrain]["abilities"] if a["kind"] == "cost_reduction")
    need = CAT.earth[card]["cost"] - less
    extra = [c for c in board().deck if CAT.cost[c] > 0 and CAT.earth[c]["kind"] != "event" and c != terrain][:need + 1]
    s = plant_board(card, 0, *extra, prep=lambda s: put(s, 0, 5, terrain))
    act(s, "plant", card)
    act(s, "cell", 6)
    for c in extra[:need]:
        act(s, "card", c)
    assert s.grid[0][6] == card and s.decision() != "pay_hand" and s.hands[0] == extra[need:]


def test_a_card_whose_cost_is_reduced_to_0_is_planted_for_free_without_a_choice_of_payment():
    """A cost reduced to 0 takes nothing, neither soil nor the alternative resource: Hairy Milkcap (cost 1,
    "pay this card's cost with growth") beside a "Mushrooms cost 2 less" terrain is planted with no payment
    decision, and neither soil nor growth leaves its owner."""
    card = alt_card("growth")
    assert "mushroom" in CAT.types_of[card] and CAT.earth[card]["cost"] <= 2
    mushrooms_less = {"color": "brown", "kind": "cost_reduction", "filter": {"type": "mushroom"}, "n": 2}
    terrain = next(c["id"] for c in CAT.earth if mushrooms_less in c["abilities"])

    def prep(s):
        put(s, 0, 5, terrain)
        put(s, 0, 4, roomy(), growth=1)

    s = plant_board(card, 0, prep=prep)
    assert s.effective_cost(0, card) == 0 and s.pay_methods(0, card, 0) == ["soil"]
    assert legal(s, "plant") == [card]
    act(s, "plant", card)
    act(s, "cell", 6)
    assert s.grid[0][6] == card and s.decision() not in ("pay_method", "pay")
    assert (s.soil[0], sum(s.gro[0])) == (0, 1)


@pytest.mark.parametrize("res", ["sprouts", "growth"])
@pytest.mark.parametrize("seat", [0, 1])
def test_alt_cost_with_sprouts_or_growth_offers_the_choice_when_soil_also_covers_it(res, seat):
    # either seat: a mutant taking one soil less from seat 1 paying soil passed seat 0's case
    card = alt_card(res)
    cost = CAT.earth[card]["cost"]
    f = roomy()
    s = plant_board(card, 10, prep=lambda s: put(s, seat, 5, f, sprouts=cost if res == "sprouts" else 0,
                                                 growth=cost if res == "growth" else 0), seat=seat)
    assert (s.decision(), s.current_player()) == ("plant", seat) and legal(s, "plant") == [card]
    act(s, "plant", card)
    act(s, "cell", 0)
    assert s.decision() == "pay_method" and legal(s, "option") == [0, 1]
    t = s.clone()
    act(t, "option", 0)  # pay soil
    assert t.soil[seat] == 10 - cost
    act(s, "option", 1)  # pay with the other resource, piece by piece
    for _ in range(cost):
        act(s, "cell", 5)
    assert s.soil[seat] == 10 and (s.spr[seat][5] if res == "sprouts" else s.gro[seat][5]) == 0


def test_measure_full_flora_needs_every_space_filled():
    s = board()
    roomy = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and c["sprouts"] >= 1 and c["growth"] >= 1)
    bare = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and c["sprouts"] == 0 and c["growth"] == 0)
    put(s, 0, 0, roomy)
    put(s, 0, 1, bare)
    assert scoring.measure(s, 0, "flora_full") == 0, "nothing on the roomy flora; the bare one never counts"
    s.spr[0][0] = CAT.sprout_spaces[roomy]
    assert scoring.measure(s, 0, "flora_full") == 0, "sprouts without the growth are not full"
    s.gro[0][0] = CAT.max_growth[roomy]
    assert scoring.measure(s, 0, "flora_full") == 1


def test_measure_full_flora_with_every_growth_but_an_empty_sprout_space_is_not_full():
    s = board()
    roomy = next(c["id"] for c in CAT.earth if c["kind"] == "flora" and c["sprouts"] >= 1 and c["growth"] >= 1)
    put(s, 0, 0, roomy, sprouts=CAT.sprout_spaces[roomy] - 1, growth=CAT.max_growth[roomy])
    assert scoring.measure(s, 0, "flora_full") == 0, "a canopy with a sprout space left is not completely filled"
    s.spr[0][0] += 1
    assert scoring.measure(s, 0, "flora_full") == 1


def test_a_placement_in_total_limited_to_a_kind_of_card_names_that_kind_in_its_text():
    # no shipped card has one; a custom catalogue's card text must still say which cards take the pieces
    ability = {"color": "green", "kind": "gain",
               "gain": [{"res": "sprouts", "n": 2, "where": {"dir": "row", "filter": {"type": "tree"}, "each": False}}]}
    assert check_ability(ability) is None
    assert "up to 2 sprout(s) in total in this row (Tree only)" in ability_text(ability)


def test_an_ability_kind_or_scoring_pattern_without_a_text_is_refused_not_written_as_an_empty_text():
    # run() checks that every vocabulary item has a text by writing it: an empty one would pass unnoticed
    from tabletop_envs.earth.text import score_text

    with pytest.raises(ValueError, match="unknown ability kind 'teleport'"):
        ability_text({"color": "red", "kind": "teleport"})
    with pytest.raises(ValueError, match="unknown scoring pattern 'per_moon'"):
        ability_text({"color": "yellow", "kind": "score", "score": {"pattern": "per_moon", "vp": 1}})
    with pytest.raises(ValueError, match="unknown scoring pattern 'per_moon'"):
        score_text({"pattern": "per_moon", "vp": 1})
