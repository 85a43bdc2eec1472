"""One test per rule sentence of shared/rules/earth.txt (names follow the rule text)."""

from __future__ import annotations

import numpy as np
import pytest
from picture_spy import texts_written

from tabletop_envs.core.errors import ConfigError, IllegalActionError
from tabletop_envs.earth import scoring
from tabletop_envs.earth.catalogue import ACTIONS, TYPES
from tabletop_envs.earth.engine import CLIMATE_SLOT, ISLAND_SLOT

from .scenario import (
    CAT,
    EVENT0,
    A,
    act,
    after_setup,
    choose_action,
    clear_tableau,
    climate_where,
    first,
    flora,
    game,
    give,
    island_where,
    legal,
    put,
    quiet,
    random_play,
    seed_where_first,
    take,
    with_ability,
)


def at_action(n=2, p=0, **kw):
    """Seat p chooses its first action, reached by playing the setup of a game seat p starts; empty tableaux."""
    s = after_setup(n, seed_where_first(n, p, **kw), **kw)
    assert (s.decision(), s.current_player(), s.active, s.first) == ("action", p, p, p)
    for q in range(n):
        clear_tableau(s, q)
    return s


def empty_hands(s):
    for q in range(s.n):
        while s.hands[q]:
            s.discard.append(s.hands[q].pop())


def cheap(skip=0):
    """A flora costing 1-2 with no black ability (planting it needs no further decision)."""
    return flora(lambda c: 1 <= c["cost"] <= 2 and all(a["color"] != "black" for a in c["abilities"]), skip)


def plain_step(s):
    """One step of plain play: pass where allowed, else option A, else the first choice (never an event)."""
    acts = s.legal_actions()
    if A(s, "pass") in acts:
        s.apply_action(A(s, "pass"))
    elif s.decision() == "option":
        act(s, "option", 0)
    else:
        s.apply_action(acts[0])


# ====================================================================== setup
def test_setup_shuffle_fauna_cards_and_place_1_on_each_of_the_4_fauna_spaces_either_side_face_up():
    sides, boards = set(), set()
    for seed in range(30):
        s = game(2).new_initial_state(seed)
        assert len(s.fauna) == 4 and len({f // 2 for f in s.fauna}) == 4
        sides |= {f % 2 for f in s.fauna}
        boards.add(tuple(sorted(f // 2 for f in s.fauna)))
    assert sides == {0, 1} and len(boards) > 20  # shuffled: a different 4 almost every game


def test_setup_place_1_ecosystem_on_each_of_the_2_spaces_then_deal_1_ecosystem_card_to_each_player():
    s = game(4).new_initial_state(3)
    assert len(s.public_eco) == 2
    personal = [c for offer in s.offers["ecosystem"] for c in offer]
    assert [len(o) for o in s.offers["ecosystem"]] == [1, 1, 1, 1]
    assert len(set(personal) | {e // 2 for e in s.public_eco}) == 6
    # shuffled, either side face up
    boards = [game(2).new_initial_state(seed).public_eco for seed in range(30)]
    assert len({tuple(e // 2 for e in b) for b in boards}) > 20 and {e % 2 for b in boards for e in b} == {0, 1}


def test_setup_deal_1_climate_and_1_island_to_each_player():
    s = game(5).new_initial_state(1)
    for what in ("climate", "island"):
        cards = [c for offer in s.offers[what] for c in offer]
        assert len(cards) == 5 and len(set(cards)) == 5
        # from a shuffled pile: the cards dealt, and who gets which, change from game to game
        deals = {tuple(c for o in game(2).new_initial_state(seed).offers[what] for c in o)
                 for seed in range(30)}
        assert len(deals) > 20


def test_setup_each_player_selects_a_side_of_their_island_climate_and_ecosystem():
    s = game(2).new_initial_state(0)
    p = s.current_player()
    for what, field, side in (("island", "island", 1), ("climate", "climate", 0), ("ecosystem", "eco", 1)):
        assert s.decision() == "side" and s.current_player() == p
        card = s.offers[what][p][0]
        assert legal(s, "side_" + what) == [2 * card, 2 * card + 1]
        other = s.clone()  # either side may be chosen, and the side chosen is the one in play
        act(other, "side_" + what, 2 * card + 1 - side)
        assert getattr(other, field)[p] == 2 * card + 1 - side
        act(s, "side_" + what, 2 * card + side)
        assert getattr(s, field)[p] == 2 * card + side
    assert (s.island[p] % 2, s.climate[p] % 2, s.eco[p] % 2) == (1, 0, 1)


def test_advanced_game_deals_2_island_2_climate_and_2_ecosystem_cards_to_choose_1_of_each():
    s = game(2, advanced_draft=True).new_initial_state(0)
    assert all(len(o) == 2 for what in ("island", "climate", "ecosystem") for o in s.offers[what])
    assert len(s.public_eco) == 2  # the 2 public ecosystems are still placed (RULES.md)
    for what in ("island", "climate", "ecosystem"):
        # dealt from one shuffled pile: no card is offered to two players, nor lies on the fauna board
        dealt = [c for o in s.offers[what] for c in o]
        on_board = [e // 2 for e in s.public_eco] if what == "ecosystem" else []
        assert len(set(dealt + on_board)) == len(dealt + on_board) == 2 * s.n + len(on_board)
    p = s.current_player()
    for what, chosen in (("island", s.island), ("climate", s.climate), ("ecosystem", s.eco)):
        # one side of one of the 2 cards dealt: 4 choices, one decision
        assert legal(s, "side_" + what) == sorted(2 * c + k for c in s.offers[what][p] for k in (0, 1))
        act(s, "side_" + what, 2 * s.offers[what][p][1] + 1)
        assert chosen[p] == 2 * s.offers[what][p][1] + 1
    assert s.current_player() != p


def test_place_the_fauna_board_with_4_fauna_spaces_2_ecosystem_spaces_and_the_7_vp_bonus_space():
    s = after_setup(3, 2)
    assert len(s.fauna) == 4 and len(s.public_eco) == 2
    assert s.leaves == [[], [], [], []] and s.bonus == -1  # no leaf on it yet
    lay = s.game.observation_layout
    for q in range(3):  # the board lies in the middle of the table: every seat sees the same one
        obs = s.observation(q)
        assert np.argmax(lay.view(obs, "fauna"), axis=1).tolist() == s.fauna
        assert lay.view(obs, "fauna").sum() == 4
        assert np.flatnonzero(lay.view(obs, "public_ecosystems")).tolist() == sorted(s.public_eco)
        assert lay.view(obs, "fauna_leaves").sum() == 0 and lay.view(obs, "bonus").sum() == 0
    s = after_setup(3, 4)  # ecosystem sides are shown by side, not by card: side 1 shows as itself
    assert all(e % 2 for e in s.public_eco), "both public ecosystems lie on side 1 (the seed is picked for it)"
    for q in range(3):
        assert np.flatnonzero(lay.view(s.observation(q), "public_ecosystems")).tolist() == sorted(s.public_eco)


def test_each_player_gets_a_player_board_with_the_4_action_spaces():
    s = after_setup(3, 1)
    assert all(s.grid[q] == [-1] * 16 and s.events[q] == [] for q in range(3))  # an empty 4x4 tableau, event space
    chose = []
    for _ in range(3):  # one round: each player in turn chooses from the same 4 action spaces of their own board
        assert s.decision() == "action" and legal(s, "action") == [0, 1, 2, 3]
        p = s.current_player()
        chose.append(p)
        choose_action(s, "compost")
        assert s.last_action[p] == ACTIONS.index("compost")
        random_play(s, np.random.default_rng(p), until=lambda t: t.decision() == "action")
    assert sorted(chose) == [0, 1, 2]


def test_fauna_ecosystem_climate_and_island_cards_not_dealt_are_returned_to_the_box():
    n = 5
    s = after_setup(n, 3)
    # in play: 4 fauna, the 2 public ecosystems, and 1 island, 1 climate, 1 ecosystem per player, nothing else
    assert len({f // 2 for f in s.fauna}) == 4
    for what, chosen in (("island", s.island), ("climate", s.climate), ("ecosystem", s.eco)):
        assert [len(o) for o in s.offers[what]] == [1] * n
        assert [side // 2 for side in chosen] == [o[0] for o in s.offers[what]]
    in_play = {e // 2 for e in s.public_eco} | {e // 2 for e in s.eco}
    assert len(in_play) == 2 + n < len(CAT.ecosystems) // 2
    assert len({i // 2 for i in s.island}) == n < len(CAT.islands) // 2
    assert len({c // 2 for c in s.climate}) == n < len(CAT.climates) // 2


def test_shuffle_all_the_earth_cards_into_a_face_down_draw_pile():
    a, b = game(2).new_initial_state(1), game(2).new_initial_state(2)
    assert sorted(a.deck + [c for h in a.hands for c in h]) == list(range(len(CAT.earth)))
    assert a.deck != b.deck
    s = after_setup(2, 1)
    obs = s.observation(0)
    t = s.resample_hidden(0, np.random.default_rng(0))  # deck order is hidden: re-dealing it changes nothing seen
    assert t.deck != s.deck
    np.testing.assert_array_equal(t.observation(0), obs)


def test_the_5th_leaf_token_marks_the_action_chosen_this_turn():
    s = at_action(2, p=0)
    choose_action(s, "grow")
    lay = s.game.observation_layout
    seen_by_other = lay.view(s.observation(1), "last_action")
    assert seen_by_other[1].tolist() == [0, 0, 0, 1]  # relative seat 1 of player 1 is player 0
    assert lay.view(s.observation(1), "action").tolist() == [0, 0, 0, 1]


def test_the_action_chosen_this_turn_is_over_with_the_turn_while_the_leaf_stays_on_its_space():
    # the 5th leaf marks "the action chosen this turn": when player 1's turn starts nobody has chosen yet, and
    # player 0's leaf still lies on Growing (its last choice)
    s = at_action(2, p=0)
    quiet(s)
    choose_action(s, "grow")
    end_turn(s)
    assert (s.decision(), s.current_player(), s.action) == ("action", 1, -1)
    lay = s.game.observation_layout
    assert lay.view(s.observation(1), "action").tolist() == [0, 0, 0, 0]
    assert lay.view(s.observation(1), "last_action")[1].tolist() == [0, 0, 0, 1]
    assert "action grow" not in s.render_text(1)


def test_each_player_takes_5_leaf_tokens_4_for_the_fauna_board_and_the_5th_for_the_action():
    # Beaver (20+ soil), Moose (20+ cards in hand), Narwhal (4+ terrain), Firefly (12+ cards in compost)
    s = at_action(2, p=0)
    quiet(s)
    names = ("Beaver", "Moose", "Narwhal", "Firefly")
    s.fauna = [next(f["id"] for f in CAT.fauna if f["name"] == name) for name in names]
    s.soil[0] = 30
    give(s, 0, *s.deck[-25:])
    while len(s.compost[0]) < 15:
        s.compost[0].append(s.deck.pop())
        s.compost_known[0].append(False)
    terrains = [c["id"] for c in CAT.earth if c["kind"] == "terrain" and all(a["kind"] == "score" for a in c["abilities"])]
    for cell in range(4):
        put(s, 0, cell, terrains[cell])
    choose_action(s, "compost")
    end_turn(s)
    assert s.leaves == [[0], [0], [0], [0]]  # 4 leaves on the fauna board
    assert s.last_action[0] == ACTIONS.index("compost")  # the 5th marks the action
    for cell in range(4, 16):  # completing the tableau first: one more leaf, on the 7 VP bonus space (RULES.md)
        put(s, 0, cell, flora(lambda c: True, skip=cell))
    choose_action(s, "compost")  # player 1's turn, the last of the round: the game ends with it
    end_turn(s)
    assert s.bonus == 0 and s.is_terminal()
    b = scoring.score_breakdown(s, 0)
    assert b["8_fauna"] == 4 * 15 + 7 and s.scores[0] == sum(b.values())


def test_randomly_choose_a_start_player_and_give_them_the_1st_player_token():
    firsts = {game(3).new_initial_state(seed).first for seed in range(40)}
    assert firsts == {0, 1, 2}
    for seed in range(4):  # start players 2, 0, 2 and 1: the token's holder takes the first turn
        s = after_setup(3, seed)
        assert s.active == s.first and s.current_player() == s.first and s.decision() == "action"
        lay = s.game.observation_layout
        for q in range(3):  # the token lies on the table: every seat sees who holds it
            assert np.flatnonzero(lay.view(s.observation(q), "first")).tolist() == [(s.first - q) % 3]
    random_play(s, until=lambda t: t.decision() == "action" and t.active != t.first)
    for q in range(3):  # the token stays with the start player when the turn passes on
        assert np.flatnonzero(lay.view(s.observation(q), "first")).tolist() == [(s.first - q) % 3]


def test_each_player_draws_island_cards_composts_the_island_number_simultaneously_and_takes_island_soil():
    s = after_setup(3, 2)
    for p in range(3):
        isl = CAT.islands[s.island[p]]
        assert len(s.hands[p]) == isl["draw"] - isl["compost"]
        assert len(s.compost[p]) == isl["compost"] and all(s.compost_known[p])
        assert s.soil[p] == isl["soil"]


def test_setup_compost_choice_is_hidden_from_the_other_players():
    s = game(2).new_initial_state(4)
    while s.decision() != "setup_compost":
        s.apply_action(s.legal_actions()[0])
    p = s.current_player()
    other = 1 - p
    options = legal(s, "card")
    a, b = s.clone(), s.clone()
    act(a, "card", options[0])
    act(b, "card", options[-1])
    np.testing.assert_array_equal(a.observation(other), b.observation(other))
    assert not np.array_equal(a.observation(p), b.observation(p))


@pytest.mark.parametrize("first", [0, 1])
def test_other_players_island_and_climate_sides_stay_hidden_until_everyone_has_chosen(first):
    # hidden from either seat: a mutant showing seat 1 the other island during setup passed a game seat 1 starts
    seed = seed_where_first(2, first)
    s = game(2).new_initial_state(seed)
    p = s.current_player()
    assert p == first
    other = 1 - p
    before = s.observation(other)
    card = s.offers["island"][p][0]
    a = s.clone()
    act(a, "side_island", 2 * card)
    b = s.clone()
    act(b, "side_island", 2 * card + 1)
    np.testing.assert_array_equal(a.observation(other), b.observation(other))
    assert a.observation(other)[s.game.observation_layout.slices["island"]].sum() == before[
        s.game.observation_layout.slices["island"]].sum()
    done = after_setup(2, seed)
    lay = done.game.observation_layout
    assert lay.view(done.observation(other), "island")[(p - other) % 2].sum() == 1


# ====================================================================== choosing actions
def test_you_may_choose_the_same_action_as_another_player():
    s = at_action(2, p=0)
    empty_hands(s)
    choose_action(s, "water")
    random_play(s, until=lambda t: t.decision() == "action" and t.active == 1)
    assert ACTIONS.index("water") in legal(s, "action")
    choose_action(s, "water")
    assert s.last_action == [2, 2]


def test_you_may_perform_the_same_action_multiple_turns_in_a_row():
    s = at_action(1, p=0)
    empty_hands(s)
    for _ in range(3):
        assert legal(s, "action") == [0, 1, 2, 3]
        choose_action(s, "compost")
        random_play(s, until=lambda t: t.decision() == "action")
    assert s.turns == 3 and s.last_action == [1]


def test_you_cannot_choose_action_x_applies_only_as_active_player():
    """Played out: player 0's terrain forbids Composting. Player 0 cannot choose it, Waters instead; player 1 then
    chooses Composting and player 0 takes the other players' row (2 soil) like anyone; player 0 still cannot choose
    it on its next turn."""
    terrain = with_ability(lambda a: a["kind"] == "forbid_action", "terrain")
    banned = next(a["action"] for a in CAT.earth[terrain]["abilities"] if a["kind"] == "forbid_action")
    assert banned == "compost"
    s = at_action(2, p=0)
    empty_hands(s)
    put(s, 0, 5, terrain)
    assert ACTIONS.index(banned) not in legal(s, "action")
    assert len(legal(s, "action")) == 3
    choose_action(s, "water")
    while s.turns == 0:
        plain_step(s)
    # when another player chooses it, the forbidding player still takes the other row
    assert (s.decision(), s.current_player(), s.active) == ("action", 1, 1)
    assert legal(s, "action") == [0, 1, 2, 3]
    choose_action(s, banned)
    assert s.current_player() == 0 and s.decision() == "option"
    soil = s.soil[0]
    act(s, "option", 0)
    assert s.soil[0] == soil + 2
    while s.turns == 1:
        plain_step(s)
    assert (s.decision(), s.current_player()) == ("action", 0)
    assert ACTIONS.index(banned) not in legal(s, "action") and len(legal(s, "action")) == 3


# ====================================================================== planting
@pytest.mark.parametrize("seat", [0, 1])
def test_planting_active_player_may_plant_up_to_2_cards_paying_the_soil_cost(seat):
    # either seat as the active player: mutants changing this row for seat 1 only passed seat 0's case
    s = at_action(2, p=seat)
    empty_hands(s)
    a, b, c = cheap(0), cheap(1), cheap(2)
    give(s, seat, a, b, c)
    s.soil[seat] = 20
    choose_action(s, "plant")
    assert s.decision() == "plant" and set(legal(s, "plant")) == {a, b, c}
    act(s, "plant", a)
    act(s, "cell", 5)
    act(s, "plant", b)
    act(s, "cell", 6)
    assert s.grid[seat][5] == a and s.grid[seat][6] == b
    assert s.soil[seat] == 20 - CAT.earth[a]["cost"] - CAT.earth[b]["cost"]
    assert s.decision() != "plant" or s.current_player() != seat  # no third planting


def test_planting_needs_enough_soil_for_the_cost():
    s = at_action(2, p=0)
    empty_hands(s)
    expensive = flora(lambda c: c["cost"] >= 5)
    give(s, 0, expensive)
    s.soil[0] = CAT.earth[expensive]["cost"] - 1
    choose_action(s, "plant")
    # still asked (whether a seat is asked never depends on its hand's contents), but only pass is legal
    assert s.current_player() == 0 and s.decision() == "plant" and legal(s, "plant") == []


def test_planting_with_exactly_the_soil_cost_is_allowed_and_spends_all_the_soil():
    s = at_action(2, p=0)
    quiet(s)
    empty_hands(s)
    card = flora(lambda c: c["cost"] >= 3 and CAT.alt_cost_l[c["id"]] is None
                 and all(a["color"] != "black" for a in c["abilities"]))
    give(s, 0, card)
    cost = CAT.earth[card]["cost"]
    assert s.effective_cost(0, card) == cost  # no cost reduction in play
    s.soil[0] = cost
    choose_action(s, "plant")
    assert legal(s, "plant") == [card]
    act(s, "plant", card)
    act(s, "cell", 5)
    assert s.grid[0][5] == card and s.soil[0] == 0


def test_you_cannot_choose_action_x_allows_every_action_if_all_four_were_forbidden(monkeypatch):
    """No shipped cards forbid all four actions (none forbids Planting); were all forbidden, all are allowed
    rather than leaving the active player with no legal action."""
    s = at_action(2, p=0)
    monkeypatch.setattr(s, "forbidden_actions", lambda p: set(ACTIONS))
    s._mask_cache = None
    assert legal(s, "action") == [0, 1, 2, 3]


@pytest.mark.parametrize("seat", [0, 1])
def test_your_1st_card_can_be_placed_anywhere_later_cards_adjacent_orthogonally_or_diagonally(seat):
    # either seat: mutants narrowing seat 1's cells passed seat 0's case (only seeded random games caught them)
    s = at_action(2, p=seat)
    empty_hands(s)
    a, b = cheap(0), cheap(1)
    give(s, seat, a, b)
    s.soil[seat] = 20
    choose_action(s, "plant")
    act(s, "plant", a)
    assert legal(s, "cell") == list(range(16))
    act(s, "cell", 0)
    act(s, "plant", b)
    assert legal(s, "cell") == [1, 4, 5]  # orthogonal and diagonal neighbours of the corner


def test_all_cards_after_your_1st_are_placed_adjacent_to_a_placed_card_never_on_top_of_one():
    # a cell holding a card is taken whichever card it holds, card id 0 (the catalogue's first) included
    for first_id in (0, cheap(2)):
        s = at_action(2, p=0)
        empty_hands(s)
        put(s, 0, 5, first_id)
        put(s, 0, 6, cheap(3))
        a = cheap(0)
        give(s, 0, a)
        s.soil[0] = 20
        choose_action(s, "plant")
        act(s, "plant", a)
        # the empty neighbours of cells 5 and 6, never 5 or 6 themselves
        assert legal(s, "cell") == [0, 1, 2, 3, 4, 7, 8, 9, 10, 11]


@pytest.mark.parametrize("seat", [0, 1])
def test_after_planting_the_active_player_draws_4_keeps_1_and_discards_the_rest(seat):
    # either seat as the active player: mutants changing this row for seat 1 only passed seat 0's case
    s = at_action(2, p=seat)
    empty_hands(s)
    card = cheap()
    give(s, seat, card)
    s.soil[seat] = 20
    discard = len(s.discard)
    choose_action(s, "plant")
    assert (s.decision(), s.drawn[seat]) == ("plant", [])  # the planting comes first, nothing drawn yet
    act(s, "plant", card)
    act(s, "cell", 0)
    assert s.decision() == "keep" and len(s.drawn[seat]) == 4
    keep = legal(s, "card")
    act(s, "card", keep[1])
    assert s.hands[seat] == [keep[1]] and len(s.discard) == discard + 3 and s.drawn[seat] == []
    assert not (s.decision() == "plant" and s.current_player() == seat)  # the kept card is not planted this turn


def test_planting_other_players_may_plant_1_card_then_draw_1():
    s = at_action(2, p=0)
    empty_hands(s)
    a, b = cheap(0), cheap(1)
    give(s, 1, a, b)
    s.soil[1] = 20
    choose_action(s, "plant")
    act(s, "card", legal(s, "card")[0])  # active keeps one card
    assert s.current_player() == 1 and s.decision() == "plant"
    act(s, "plant", a)
    act(s, "cell", 3)
    assert s.grid[1][3] == a and s.soil[1] == 20 - s.effective_cost(1, a)  # paying its cost
    assert CAT.earth[a]["cost"] > 0 and s.effective_cost(1, a) > 0
    assert len(s.hands[1]) == 2  # b plus the card drawn after planting
    assert not (s.decision() == "plant" and s.current_player() == 1)
    # every other player, not only the next one: in a game of 3, seats 1 and 2 each plant 1 and draw 1
    s = at_action(3, p=0)
    empty_hands(s)
    for q, card in ((1, a), (2, b)):
        give(s, q, card)
        s.soil[q] = 20
    choose_action(s, "plant")
    act(s, "card", legal(s, "card")[0])
    for q, card in ((1, a), (2, b)):
        assert (s.current_player(), s.decision()) == (q, "plant")
        act(s, "plant", card)
        act(s, "cell", 0)
        assert s.grid[q][0] == card and s.soil[q] == 20 - s.effective_cost(q, card)
    assert [len(h) for h in s.hands] == [1, 1, 1]


def test_planting_all_players_activate_green_abilities():
    s = at_action(2, p=0)
    empty_hands(s)
    green_terrain = with_ability(lambda a: a["color"] == "green" and a["gain"][0]["res"] == "soil", "terrain")
    put(s, 1, 0, green_terrain)
    put(s, 0, 0, with_ability(lambda a: a["color"] == "green" and a["gain"][0]["res"] == "soil", "terrain",
                              skip=1))
    choose_action(s, "plant")
    act(s, "card", legal(s, "card")[0])
    random_play_until_activation(s)
    assert s.decision() == "activate" and s.queue[0]["colour"] == "green"
    seen = []
    while s.decision() == "activate":
        seen.append(s.current_player())
        soil = s.soil[s.current_player()]
        p = s.current_player()
        act(s, "activate", legal(s, "activate")[0])
        assert s.soil[p] > soil
        while s.decision() == "activate" and s.current_player() == p:
            act(s, "pass")
    assert seen == [0, 1]


def finish_ability(s):
    """Resolve the pending ability (passing or taking first choices) back to the activation decision."""
    while s.decision() not in ("activate", "action"):
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])


def random_play_until_activation(s):
    rng = np.random.default_rng(1)
    while s.decision() != "activate":
        acts = s.legal_actions()
        passes = [a for a in acts if a == A(s, "pass")]
        s.apply_action(passes[0] if passes else int(rng.choice(acts)))


# ====================================================================== composting
@pytest.mark.parametrize("seat", [0, 1])
def test_composting_active_gains_5_soil_and_composts_2_from_the_draw_pile_face_down(seat):
    # either seat as the active player: mutants changing this row for seat 1 only passed seat 0's case
    s = at_action(2, p=seat)
    soil, comp, top2 = s.soil[seat], len(s.compost[seat]), s.deck[-2:]
    choose_action(s, "compost")
    assert s.soil[seat] == soil + 5
    assert len(s.compost[seat]) == comp + 2 and sorted(s.compost[seat][-2:]) == sorted(top2)
    assert s.compost_known[seat][-2:] == [False, False]


def test_there_is_no_limit_to_the_amount_of_soil():
    s = at_action(1, p=0)
    s.soil[0] = 500
    choose_action(s, "compost")
    assert s.soil[0] == 505


@pytest.mark.parametrize("what", ["soil", "sprouts", "growth"])
def test_the_supply_of_soil_sprouts_and_growth_tokens_is_unlimited(what):
    """However many tokens are already out on a 5-player table, every gain is taken in full."""
    s = at_action(5, p=0)
    quiet(s)
    empty_hands(s)
    key = "sprouts" if what == "sprouts" else "growth"
    roomy = [c["id"] for c in CAT.earth if c["kind"] == "flora" and c["type"] != "joker" and c[key] >= 3
             and not any(a["color"] == "black" for a in c["abilities"])]
    for q in range(5):
        s.soil[q] = 200
        for cell in range(8):  # 6 flora full of pieces, 2 with room
            card = roomy[q * 8 + cell]
            full = CAT.earth[card][key] if cell < 6 else 0
            put(s, q, cell, card, **{key: full})

    def out():
        return [s.soil[q] if what == "soil" else sum(s.spr[q] if what == "sprouts" else s.gro[q]) for q in range(5)]

    before = out()
    assert sum(before) >= 5 * 18
    choose_action(s, {"soil": "compost", "sprouts": "water", "growth": "grow"}[what])
    while s.decision() in ("place", "option"):
        if s.decision() == "option":  # the others take the tokens: 2 soil / up to 2 sprouts / up to 2 growth
            act(s, "option", {"soil": 0, "sprouts": 0, "growth": 1}[what])
        else:
            act(s, "cell", legal(s, "cell")[0])
    gained = [a - b for a, b in zip(out(), before)]
    assert gained == [{"soil": 5, "sprouts": 6, "growth": 2}[what]] + [2] * 4


def test_composting_other_players_gain_2_soil_or_compost_2_from_the_draw_pile():
    for option, soil_gain, comp_gain in ((0, 2, 0), (1, 0, 2)):
        s = at_action(3, p=0)
        choose_action(s, "compost")
        for q in (1, 2):  # every other player chooses, clockwise from the active player
            assert s.current_player() == q and s.decision() == "option"
            soil, comp = s.soil[q], len(s.compost[q])
            act(s, "option", option)
            assert (s.soil[q] - soil, len(s.compost[q]) - comp) == (soil_gain, comp_gain)


def test_composting_all_players_activate_red_abilities():
    s = at_action(2, p=0)
    red = with_ability(lambda a: a["color"] == "red" and a["kind"] == "gain" and not a.get("cost")
                       and a["gain"][0]["res"] == "soil" and "per" not in a["gain"][0] and not a.get("if_action"))
    put(s, 1, 0, red)
    put(s, 1, 1, plain_gain("blue", "soil"))
    choose_action(s, "compost")
    act(s, "option", 0)
    while not (s.decision() == "activate" and s.current_player() == 1):
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])
    slot = next(k for k, a in enumerate(CAT.earth[red]["abilities"]) if a["color"] == "red")
    assert s.queue[0]["colour"] == "red" and slot in legal(s, "activate")
    assert not {2, 3} & set(legal(s, "activate"))  # the blue card at cell 1 is not activated
    soil = s.soil[1]
    act(s, "activate", slot)
    assert s.soil[1] == soil + CAT.earth[red]["abilities"][slot]["gain"][0]["n"]


# ====================================================================== watering
def sprout_flora(spaces_at_least=3, skip=0):
    return flora(lambda c: c["sprouts"] >= spaces_at_least and not any(a["color"] == "black" for a in c["abilities"]),
                 skip)


@pytest.mark.parametrize("seat", [0, 1])
def test_watering_active_places_up_to_6_sprouts_on_empty_sprout_spaces_then_gains_2_soil(seat):
    # either seat as the active player: mutants changing this row for seat 1 only passed seat 0's case
    s = at_action(2, p=seat)
    f1, f2 = sprout_flora(4, 0), sprout_flora(4, 1)
    put(s, seat, 0, f1)
    put(s, seat, 1, f2)
    soil = s.soil[seat]
    choose_action(s, "water")
    assert s.decision() == "place" and legal(s, "cell") == [0, 1]
    for cell in (0, 0, 1, 1, 1, 0):
        act(s, "cell", cell)
    assert s.spr[seat][:2] == [3, 3] and s.soil[seat] == soil + 2


@pytest.mark.parametrize("seat", [0, 1])
def test_watering_sprouts_only_on_flora_with_empty_sprout_spaces_unplaceable_sprouts_are_lost(seat):
    # either seat as the active player: a mutant giving seat 1's flora one sprout space more passed seat 0's case
    s = at_action(2, p=seat)
    small = flora(lambda c: c["sprouts"] == 2)
    put(s, seat, 0, small)
    empty_hands(s)  # no card in hand: no event could free a sprout space (the reading "Events at any time")
    choose_action(s, "water")
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert s.spr[seat][0] == 2
    assert not (s.decision() == "place" and s.current_player() == seat)  # the other 4 are lost
    assert sum(s.spr[seat]) == 2


def test_sprouts_cannot_be_saved_in_a_personal_supply():
    s = at_action(2, p=0)
    soil, hand = s.soil[0], list(s.hands[0])
    choose_action(s, "water")  # empty tableau: all 6 sprouts are lost at once
    assert sum(s.spr[0]) == 0 and s.current_player() == 1
    assert (s.soil[0], s.hands[0]) == (soil + 2, hand)  # the row's 2 soil; nothing kept in their stead
    # nor for a later turn: with room for 8 the next Watering places its own 6 sprouts and no more
    while not (s.decision() == "action" and s.active == 0):
        plain_step(s)
    put(s, 0, 0, sprout_flora(4, 0))
    put(s, 0, 1, sprout_flora(4, 1))
    choose_action(s, "water")
    while s.current_player() == 0 and s.decision() == "place" and legal(s, "cell"):
        act(s, "cell", legal(s, "cell")[0])
    assert sum(s.spr[0]) == 6


@pytest.mark.parametrize("other", [1, 0])
def test_watering_other_players_place_up_to_2_sprouts_or_gain_2_soil(other):
    # either seat as the other player: a mutant giving seat 0's option B 1 soil passed seat 1's case
    s = at_action(2, p=1 - other)
    put(s, other, 4, sprout_flora(3))
    choose_action(s, "water")
    assert s.current_player() == other and s.decision() == "option"
    act(s, "option", 0)
    act(s, "cell", 4)
    act(s, "cell", 4)
    # room left, but two is all
    assert s.spr[other][4] == 2 and s.spr[other][4] < CAT.earth[s.grid[other][4]]["sprouts"]
    assert s.current_player() != other or legal(s, "cell") == []
    s = at_action(2, p=1 - other)
    choose_action(s, "water")
    assert s.current_player() == other and s.decision() == "option"
    soil = s.soil[other]
    act(s, "option", 1)
    assert s.soil[other] == soil + 2
    s2 = at_action(3, p=0)
    choose_action(s2, "water")
    for q in (1, 2):  # every other player chooses, clockwise from the active player
        assert (s2.current_player(), s2.decision()) == (q, "option")
        soil = s2.soil[q]
        act(s2, "option", 1)
        assert s2.soil[q] == soil + 2


def test_convert_3_sprouts_to_2_soil_at_any_other_time():
    s = at_action(2, p=0)
    put(s, 0, 0, sprout_flora(4), sprouts=4)
    assert 0 in legal(s, "convert")
    soil = s.soil[0]
    act(s, "convert")
    assert s.decision() == "pay"
    for _ in range(3):
        act(s, "cell", 0)
    assert s.spr[0][0] == 1 and s.soil[0] == soil + 2 and s.decision() == "action"
    put(s, 0, 1, sprout_flora(4, skip=1), sprouts=1)  # 2 sprouts in all: too few to convert
    assert legal(s, "convert") == []
    # any other time: at every decision of another player's turn that is not in the middle of an ability
    for action, points in (("plant", {"plant", "activate", "window"}), ("compost", {"option", "window"})):
        s = at_action(2, p=0)
        quiet(s)
        empty_hands(s)
        put(s, 1, 0, sprout_flora(4), sprouts=4)
        put(s, 1, 1, with_ability(lambda a: a["color"] == "green" and a["gain"][0]["res"] == "soil",
                                  "terrain"))
        give(s, 1, cheap())
        s.soil[1] = 20
        choose_action(s, action)
        seen = set()
        while s.turns == 0:
            if s.current_player() == 1 and s.decision() in ("plant", "option", "activate", "window"):
                assert legal(s, "convert") == [0], s.decision()
                seen.add(s.decision())
            plain_step(s)
        assert seen == points, action


def test_players_may_convert_sprouts_in_their_tableau_to_soil_taking_them_from_any_of_its_cells():
    # "Players may convert sprouts in their tableau to soil": the 3 sprouts may come from any flora, the last cell
    # of the tableau included, and from several
    for cells in ([15], [0, 15], [3, 12, 15]):
        s = at_action(2, p=0)
        for k, cell in enumerate(cells):
            put(s, 0, cell, sprout_flora(3, skip=k), sprouts=3 // len(cells) + (k == 0) * (3 % len(cells)))
        soil = s.soil[0]
        act(s, "convert")
        assert s.decision() == "pay" and legal(s, "cell") == cells
        for cell in cells:
            while s.spr[0][cell]:
                act(s, "cell", cell)
        assert sum(s.spr[0]) == 0 and s.soil[0] == soil + 2 and s.decision() == "action"


def soil_ability_flora() -> int:
    """A flora whose one ability is a multicolour gain costing 1 soil (it answers the Blue action too)."""
    return flora(lambda c: len(c["abilities"]) == 1 and c["abilities"][0]["color"] == "multi"
                 and c["abilities"][0]["kind"] == "gain" and c["abilities"][0].get("cost") == {"soil": 1}
                 and not c["abilities"][0].get("if_action"))


def test_otherwise_you_can_convert_them_any_other_time_even_where_only_the_converted_soil_pays_for_an_ability():
    # p1 reaches 3 sprouts during the Watering rows (no converting there) and holds no soil: its one blue
    # ability costs 1 soil, so only converting after the action pays for it. The activation must be asked
    # (it was skipped, with no moment between the action and the activations to convert in).
    s = at_action(2, p=0)
    quiet(s)
    empty_hands(s)
    put(s, 0, 5, flora(lambda c: c["sprouts"] >= 6 and all(a["color"] not in ("blue", "multi", "black")
                                                              for a in c["abilities"])))
    put(s, 1, 5, soil_ability_flora(), sprouts=1)
    s.soil = [0, 0]
    choose_action(s, "water")
    while s.current_player() == 0:
        act(s, "pass")
    act(s, "option", 0)  # p1: place 2 sprouts
    act(s, "cell", 5)
    act(s, "cell", 5)
    assert sum(s.spr[1]) == 3 and s.soil[1] == 0
    while not (s.decision() == "activate" and s.current_player() == 1):
        assert s.stage != "end", "p1's blue activation was skipped"
        act(s, "pass")
    assert legal(s, "activate") == [] and legal(s, "convert") == [0]
    act(s, "convert")
    for _ in range(3):
        act(s, "cell", 5)
    assert s.soil[1] == 2 and s.decision() == "activate" and legal(s, "activate") == [10]
    act(s, "activate", 10)
    assert s.soil[1] == 1  # the ability's cost paid from the converted soil


def test_otherwise_you_can_convert_them_any_other_time_even_where_only_the_converted_soil_pays_for_a_planting():
    # In a Planting turn p1 may plant 1 card; it holds no soil, and 3 sprouts would convert to the 2 soil its
    # card costs: the planting is asked (some card of the game costs nothing, so it always was), converting
    # is legal there, and the card is then planted with the converted soil
    s = at_action(2, p=0)
    quiet(s)
    empty_hands(s)
    card = flora(lambda c: c["cost"] == 2 and all(a["color"] != "black" for a in c["abilities"]))
    give(s, 1, card)
    put(s, 1, 0, sprout_flora(3), sprouts=3)
    s.soil = [0, 0]
    choose_action(s, "plant")
    while not (s.decision() == "plant" and s.current_player() == 1):
        assert s.stage != "end", "p1's planting was skipped"
        act(s, "pass") if A(s, "pass") in s.legal_actions() else s.apply_action(s.legal_actions()[0])
    assert legal(s, "plant") == [] and legal(s, "convert") == [0]
    act(s, "convert")
    for _ in range(3):
        act(s, "cell", 0)
    assert s.soil[1] == 2 and s.decision() == "plant" and legal(s, "plant") == [card]
    act(s, "plant", card)
    act(s, "cell", legal(s, "cell")[0])
    assert card in s.grid[1] and s.soil[1] == 0


def test_otherwise_you_can_convert_them_any_other_time_even_where_only_the_converted_soil_pays_for_a_solo_planting():
    # solo planting was skipped where only the soil of converting 3 sprouts paid the card in hand (cost 2)
    def planting(cost):
        s = at_action(1, p=0)
        empty_hands(s)
        quiet(s)
        card = flora(lambda c: c["cost"] == cost and all(a["color"] != "black" for a in c["abilities"]))
        give(s, 0, card)
        put(s, 0, 0, sprout_flora(3), sprouts=3)
        s.soil[0] = 0
        choose_action(s, "plant")
        return s, card

    s, card = planting(2)
    assert (s.current_player(), s.decision(), legal(s, "plant"), legal(s, "convert")) == (0, "plant", [], [0])
    act(s, "convert")
    for _ in range(3):
        act(s, "cell", 0)
    assert (s.soil[0], s.decision(), legal(s, "plant")) == (2, "plant", [card])
    act(s, "plant", card)
    act(s, "cell", legal(s, "cell")[0])
    assert card in s.grid[0] and s.soil[0] == 0
    # a card costing 3: converting would not pay for it, the planting is skipped
    assert planting(3)[0].decision() == "keep"


def test_you_cannot_convert_sprouts_to_soil_during_the_watering_action():
    s = at_action(2, p=0)
    quiet(s)
    put(s, 1, 0, sprout_flora(4), sprouts=4)
    put(s, 1, 1, plain_gain("blue", "soil"))
    put(s, 0, 0, sprout_flora(4, skip=1), sprouts=3)  # the active row's placement, where events are offered: 3 sprouts
    choose_action(s, "water")
    assert (s.decision(), s.current_player(), legal(s, "convert")) == ("place", 0, [])
    act(s, "pass")
    assert s.decision() == "option" and s.current_player() == 1
    assert legal(s, "convert") == []
    act(s, "option", 1)
    # the action is over once the blue activation starts: conversion is back there already
    while not (s.decision() == "activate" and s.current_player() == 1):
        act(s, "pass")
    assert s.stage == "activation" and legal(s, "convert") == [0]


def test_you_cannot_convert_sprouts_in_the_middle_of_a_card_ability():
    """Played out: player 0 takes Growing; at its Yellow activation player 1 (7 sprouts, a free event in hand)
    activates "pay 2 sprouts: +4 growth". Conversion and events are offered at the activation decision and again
    once the ability is done, never while paying its cost or placing its growth."""
    payer = with_ability(lambda a: a["color"] == "yellow" and (a.get("cost") or {}).get("sprouts") == 2)
    assert CAT.earth[payer]["abilities"][0]["gain"] == [{"res": "growth", "n": 4}]
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 1, 0, payer, sprouts=3)
    put(s, 1, 1, sprout_flora(4), sprouts=4)
    e = free_event()
    give(s, 1, e)
    choose_action(s, "grow")
    act(s, "option", 0)  # player 1 draws 2
    while not (s.decision() == "activate" and s.current_player() == 1):  # player 0's own activation: passed
        act(s, "pass")
    assert s.queue[0]["colour"] == "yellow" and 0 in legal(s, "activate")
    assert legal(s, "convert") == [0] and e - EVENT0 in legal(s, "event")  # between abilities: allowed
    act(s, "activate", 0)
    assert s.decision() == "pay"  # paying the cost: 7 sprouts, yet no conversion, no event
    assert legal(s, "convert") == [] and legal(s, "event") == []
    act(s, "cell", 1)
    act(s, "cell", 1)
    assert s.decision() == "place" and sum(s.spr[1]) == 5  # placing the gain: still in the ability
    assert legal(s, "convert") == [] and legal(s, "event") == []
    while s.decision() == "place":
        act(s, "cell", legal(s, "cell")[0])
    assert s.gro[1][0] == 4 and s.current_player() == 1  # the ability is done: both are offered again
    assert legal(s, "convert") == [0] and e - EVENT0 in legal(s, "event")


# ====================================================================== growing
def grow_flora(at_least=2, skip=0):
    return flora(lambda c: c["growth"] >= at_least and not any(a["color"] == "black" for a in c["abilities"]), skip)


@pytest.mark.parametrize("seat", [0, 1])
def test_growing_active_draws_4_then_places_up_to_2_growth(seat):
    # either seat as the active player: mutants changing this row for seat 1 only passed seat 0's case
    s = at_action(2, p=seat)
    put(s, seat, 0, grow_flora(3))
    # neither a terrain nor a flora without growth spaces has room for growth
    put(s, seat, 1, first("terrain", lambda c: all(a["color"] != "black" for a in c["abilities"])))
    put(s, seat, 2, flora(lambda c: c["growth"] == 0))
    hand = len(s.hands[seat])
    choose_action(s, "grow")
    assert len(s.hands[seat]) == hand + 4
    assert legal(s, "cell") == [0]
    act(s, "cell", 0)
    assert legal(s, "cell") == [0]  # room for a third growth, but two is the total
    act(s, "cell", 0)
    assert s.gro[seat][0] == 2 and s.gro[seat][0] < CAT.earth[s.grid[seat][0]]["growth"]
    assert legal(s, "cell") == [] and s.decision() != "place"


def test_there_is_no_limit_to_the_number_of_cards_in_hand():
    s = at_action(1, p=0)
    give(s, 0, *s.deck[-40:])
    n = len(s.hands[0])
    choose_action(s, "grow")
    assert len(s.hands[0]) == n + 4


@pytest.mark.parametrize("seat", [0, 1])
def test_growth_is_limited_by_the_maximum_and_the_last_piece_is_a_canopy(seat):
    # either seat as the active player: a mutant leaving no room for seat 1's canopy on a flora of 2 or more
    # growth passed seat 0's case
    s = at_action(2, p=seat)
    one = grow_flora(1, 0) if CAT.earth[grow_flora(1, 0)]["growth"] == 1 else flora(lambda c: c["growth"] == 1)
    put(s, seat, 0, one)
    choose_action(s, "grow")
    act(s, "cell", 0)
    assert s.gro[seat][0] == 1
    assert legal(s, "cell") == []  # full: the single piece is the canopy
    s = at_action(2, p=seat)
    two = flora(lambda c: c["growth"] == 2)
    put(s, seat, 0, two, growth=1)
    choose_action(s, "grow")
    assert legal(s, "cell") == [0]  # the trunk is there, the canopy goes on it
    act(s, "cell", 0)
    assert s.gro[seat][0] == 2 and legal(s, "cell") == []
    assert scoring.growth_vp(CAT, one, 1) == CAT.earth[one]["canopy"]
    tall = flora(lambda c: c["growth"] >= 3)
    assert scoring.growth_vp(CAT, tall, 2) == 2
    assert scoring.growth_vp(CAT, tall, CAT.earth[tall]["growth"]) == CAT.earth[tall]["canopy"]


def test_growth_that_cannot_be_placed_this_turn_is_lost():
    s = at_action(2, p=0)
    one = flora(lambda c: c["growth"] == 1)
    put(s, 0, 0, one)
    choose_action(s, "grow")
    act(s, "cell", 0)  # the only room
    # still asked: some event of the catalogue pays 1 growth, which would make room (the hand is hidden)
    assert (s.current_player(), s.decision(), legal(s, "cell")) == (0, "place", [])
    act(s, "pass")  # the second growth is lost
    assert s.gro[0][0] == 1 and s.current_player() == 1 and sum(s.gro[0]) == 1


def test_growing_other_players_draw_2_or_place_up_to_2_growth():
    s = at_action(2, p=0)
    put(s, 1, 0, grow_flora(3))
    choose_action(s, "grow")
    assert s.current_player() == 1  # the active player had no flora: both growth were lost
    hand = len(s.hands[1])
    act(s, "option", 0)
    assert len(s.hands[1]) == hand + 2
    s = at_action(2, p=0)
    put(s, 1, 0, grow_flora(3))
    choose_action(s, "grow")
    act(s, "option", 1)
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert s.gro[1][0] == 2 and s.gro[1][0] < CAT.earth[s.grid[1][0]]["growth"]  # room left, but two is all
    assert s.current_player() != 1 or legal(s, "cell") == []


def test_if_the_deck_runs_out_shuffle_the_discard_but_not_the_compost():
    s = at_action(1, p=0)
    rest = list(s.deck)
    s.discard = rest[:10]
    s.compost[0] += rest[10:]
    s.compost_known[0] += [False] * len(rest[10:])
    s.deck = []
    comp, discard, hand = list(s.compost[0]), list(s.discard), list(s.hands[0])
    choose_action(s, "grow")
    assert len(s.deck) == 6 and len(s.discard) == 0
    drawn = s.hands[0][len(hand):]
    assert sorted(s.deck + drawn) == sorted(discard)  # the new draw pile is the old discard ...
    assert s.deck + drawn[::-1] != discard  # ... shuffled (drawn from its top)
    assert s.compost[0] == comp


def test_the_discard_is_reshuffled_when_a_card_is_next_needed_from_the_empty_deck():
    # RULES.md reading: the active player's "draw 4, keep 1" takes the deck's last 4 cards; the 3 it discards
    # join the new pile, shuffled only when p1 draws its card
    s = at_action(2, p=0)
    quiet(s)
    empty_hands(s)
    extra, s.deck = s.deck[:-4], s.deck[-4:]
    s.discard = extra[:5]
    s.compost[0] += extra[5:]
    s.compost_known[0] += [False] * len(extra[5:])
    choose_action(s, "plant")
    while s.decision() != "keep":
        act(s, "pass")
    drawn = list(s.drawn[0])
    assert s.deck == [] and len(s.discard) == 5  # the deck ran out: nothing shuffled yet
    act(s, "card", drawn[0])  # keep 1, discard 3; then p1 draws 1 from the new pile
    pile = s.deck + s.hands[1]
    assert sorted(pile) == sorted(extra[:5] + drawn[1:]) and s.discard == []


def test_if_deck_and_discard_are_both_empty_players_can_no_longer_draw():
    s = at_action(1, p=0)
    s.hands[0] += s.deck + s.discard
    s.deck, s.discard = [], []
    n = len(s.hands[0])
    choose_action(s, "grow")
    assert len(s.hands[0]) == n
    s.check_invariants()


# ====================================================================== activating abilities
def test_each_ability_only_once_per_turn_and_the_tableau_left_to_right_top_to_bottom():
    """Played out: player 0 takes Composting with two multicoloured +1 soil flora at cells 0 and 5 (the later one
    in reading order); the Red activation starts after player 1's row."""
    f, f2 = plain_gain("multi", "soil", 0), plain_gain("multi", "soil", 1)
    assert [CAT.earth[c]["abilities"][0]["gain"] for c in (f, f2)] == [[{"res": "soil", "n": 1}]] * 2
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)  # no island/climate ability can be activated
    put(s, 0, 0, f)
    put(s, 0, 5, f2)
    choose_action(s, "compost")
    act(s, "option", 0)  # player 1 takes 2 soil
    assert (s.decision(), s.current_player(), s.queue[0]["colour"]) == ("activate", 0, "red")
    assert legal(s, "activate") == [0, 10]
    # in reading order: cell 0, then cell 5; neither is offered again once activated
    s2 = s.clone()
    soil = s2.soil[0]
    act(s2, "activate", 0)
    assert legal(s2, "activate") == [10]
    act(s2, "activate", 10)
    assert s2.soil[0] == soil + 2
    assert (s2.decision(), s2.current_player()) == ("action", 1)  # the turn is over: nothing was offered again
    # the later card first: the earlier one is skipped for good
    soil = s.soil[0]
    act(s, "activate", 10)
    assert legal(s, "activate") == []
    assert s.soil[0] == soil + 1 and (s.decision(), s.current_player()) == ("action", 1)
    # row by row, not column by column: r1c0 (cell 4) comes after r0c1 (cell 1), so taking it closes cell 1
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 0, 1, f)
    put(s, 0, 4, f2)
    choose_action(s, "compost")
    act(s, "option", 0)
    assert legal(s, "activate") == [2, 8]
    act(s, "activate", 8)
    assert legal(s, "activate") == [] and (s.decision(), s.current_player()) == ("action", 1)
    # the island's and the climate's abilities too: once each (an empty tableau loses the island's sprouts)
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s, 1)
    s.island[0] = island_where(lambda a: a["kind"] == "gain" and a["color"] == "red" and not a.get("cost"))
    s.climate[0] = climate_where(lambda a: a["color"] == "red" and not a.get("cost")
                                 and not a.get("if_action"))
    choose_action(s, "compost")
    act(s, "option", 0)
    assert legal(s, "activate") == [ISLAND_SLOT, CLIMATE_SLOT]
    act(s, "activate", ISLAND_SLOT)
    assert legal(s, "activate") == [CLIMATE_SLOT]
    soil = s.soil[0]
    act(s, "activate", CLIMATE_SLOT)
    assert s.soil[0] == soil + 2 and (s.decision(), s.current_player()) == ("action", 1)


@pytest.mark.parametrize("seat", [0, 1])
def test_island_and_climate_both_before_or_both_after_the_tableau(seat):
    """Played out: either player takes Composting and activates Red with a Red island (+2 sprouts on Composting), a
    Red climate (+2 soil) and two Red flora (+2 soil each). Each order is tried from the start of that activation:
    what is offered after every step, and what was gained. Island then climate, both before or both after the
    tableau; once the tableau has started the island/climate pair can no longer straddle it (a mutant letting
    seat 1's pair straddle the tableau passed seat 0's case)."""
    island = island_where(lambda a: a["kind"] == "gain" and a["color"] == "red" and not a.get("cost"))
    climate = climate_where(lambda a: a["color"] == "red" and not a.get("cost") and not a.get("if_action"))
    assert CAT.islands[island]["abilities"][0]["gain"] == [{"res": "sprouts", "n": 2}]
    assert CAT.climates[climate]["abilities"] == [{"color": "red", "kind": "gain", "gain": [{"res": "soil", "n": 2}]}]
    red_a, red_b = plain_gain("red", "soil", 0), plain_gain("red", "soil", 1)
    assert [CAT.earth[c]["abilities"][0]["gain"][0]["n"] for c in (red_a, red_b)] == [2, 2]
    T0, T1, ISL, CLI = 0, 2, 32, 34  # cell 0 ability 0, cell 1 ability 0, the island, the climate

    def activate_in_order(steps):
        """Activate the slots of ``steps`` in order (a negative step -x: try slot x there, which must be refused);
        return the slots offered before each step and at the end, and the soil and sprouts gained."""
        s = at_action(2, p=seat)
        empty_hands(s)
        quiet(s, 1 - seat)
        put(s, seat, 0, red_a)
        put(s, seat, 1, red_b)
        s.island[seat], s.climate[seat] = island, climate
        choose_action(s, "compost")
        act(s, "option", 0)  # the other player takes 2 soil
        assert (s.decision(), s.current_player(), s.queue[0]["colour"]) == ("activate", seat, "red")
        soil, sprouts = s.soil[seat], sum(s.spr[seat])
        offered = []
        for step in steps:
            if step < 0:
                assert s.decision() == "activate" and s.current_player() == seat  # refused mid-activation
                with pytest.raises(IllegalActionError):
                    act(s, "activate", -step)
                continue
            offered.append(legal(s, "activate"))
            act(s, "activate", step)
            while s.decision() == "place":  # the island's 2 sprouts
                act(s, "cell", legal(s, "cell")[0])
        mine = s.decision() == "activate" and s.current_player() == seat
        offered.append(legal(s, "activate") if mine else [])
        return offered, s.soil[seat] - soil, sum(s.spr[seat]) - sprouts

    everything = [T0, T1, ISL, CLI]
    # both before: island, climate, then the tableau left to right
    assert activate_in_order([ISL, CLI, T0, T1]) == ([everything, [T0, T1, CLI], [T0, T1], [T1], []], 6, 2)
    # both after: the tableau, then island, climate
    assert activate_in_order([T0, T1, ISL, CLI]) == ([everything, [T1, ISL, CLI], [ISL, CLI], [CLI], []], 6, 2)
    # island before the tableau: the climate cannot follow the tableau, its 2 soil are never gained
    assert activate_in_order([ISL, T0, -CLI, T1]) == ([everything, [T0, T1, CLI], [T1], []], 4, 2)
    # the tableau started, then the island: the rest of the tableau is closed, only the climate is left
    assert activate_in_order([T0, ISL, -T1, CLI]) == ([everything, [T1, ISL, CLI], [CLI], []], 4, 2)
    # climate before the tableau: the island can no longer come (not after its climate, not after the tableau)
    assert activate_in_order([CLI, -ISL, T0, T1]) == ([everything, [T0, T1], [T1], []], 6, 0)
    # the tableau, then the climate: the island cannot follow its climate
    assert activate_in_order([T0, T1, CLI]) == ([everything, [T1, ISL, CLI], [ISL, CLI], []], 6, 0)


def test_abilities_with_a_cost_before_the_colon_must_be_paid_first_and_only_when_payable():
    """Played out over 3 turns. Player 0 holds Common Magnolia ("[Yellow] -2 sprouts: +4 growth", cell 0) and a
    flora with 1 sprout (cell 1). Turn 1, Growing: 1 sprout cannot pay 2, the Magnolia is not offered (only the
    island's Yellow ability is). Turn 2, player 1 Waters and player 0 places its 2 sprouts. Turn 3, Growing: now
    offered; activating it asks for the 2 sprouts first (no pass, nothing else), and only then places +4 growth."""
    payer = next(c["id"] for c in CAT.earth if c["name"] == "Common Magnolia")
    assert CAT.earth[payer]["abilities"] == [{"color": "yellow", "kind": "gain", "cost": {"sprouts": 2},
                                              "gain": [{"res": "growth", "n": 4}]}]
    target = flora(lambda c: c["sprouts"] >= 4 and all(a["color"] == "red" for a in c["abilities"]))
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)  # player 0's island: "[Yellow] draw 2, if you chose the Yellow action"; player 1's climate: Blue
    put(s, 0, 0, payer)
    put(s, 0, 1, target, sprouts=1)
    # turn 1: player 0 Grows with 1 sprout
    choose_action(s, "grow")
    offered = []
    while s.turns == 0:
        if s.decision() == "activate" and s.current_player() == 0:
            assert s.queue[0]["colour"] == "yellow"
            offered.append(legal(s, "activate"))
        plain_step(s)
    assert offered == [[ISLAND_SLOT]]  # the island only: the Magnolia's cost cannot be paid
    assert s.spr[0][:2] == [0, 1] and sum(s.gro[0]) == 0
    # turn 2: player 1 Waters; player 0 takes "place up to 2 sprouts" and puts them beside the first one
    choose_action(s, "water")
    act(s, "option", 0)
    act(s, "cell", 1)
    act(s, "cell", 1)
    assert s.spr[0][:2] == [0, 3]
    while s.turns == 1:
        plain_step(s)
    # turn 3: player 0 Grows with 3 sprouts
    choose_action(s, "grow")
    while not (s.decision() == "activate" and s.current_player() == 0):
        plain_step(s)
    assert legal(s, "activate") == [0, ISLAND_SLOT]
    act(s, "activate", 0)
    # the cost first: 2 sprouts, one at a time, from a flora that has them; nothing to skip it with
    for paid in (0, 1):
        assert s.decision() == "pay" and s.current_player() == 0
        assert s.legal_actions() == [A(s, "cell", 1)]  # no pass, no event, no conversion
        assert sum(s.gro[0]) == 0 and s.spr[0][1] == 3 - paid  # no growth before the cost is paid
        act(s, "cell", 1)
    # then the benefit: +4 growth to place
    assert s.spr[0][1] == 1 and s.decision() == "place" and s.queue[0]["left"] == 4
    while s.decision() == "place":
        act(s, "cell", legal(s, "cell")[0])
    assert sum(s.gro[0]) == 4 and sum(s.spr[0]) == 1
    assert (s.decision(), legal(s, "activate")) == ("activate", [ISLAND_SLOT])  # on with the activation


def test_any_ability_with_a_cost_before_the_colon_must_be_paid_also_when_a_copy_copies_it():
    """A copy resolves the copied ability whole, its cost first: Dune Sprouts ("[Yellow] copy one Yellow ability",
    cell 0) copying Silver Mint ("[Multi] pay 1 soil: +2 growth", cell 1) with exactly 1 soil pays it, and the
    Mint itself can then no longer be paid for. Only the copy targets were tested (payable or not), so a copy
    that handed out the gain without the payment passed every test."""
    dune, mint = (next(c["id"] for c in CAT.earth if c["name"] == name) for name in ("Dune Sprouts", "Silver Mint"))
    assert CAT.earth[mint]["abilities"] == [{"color": "multi", "kind": "gain", "cost": {"soil": 1},
                                             "gain": [{"res": "growth", "n": 2}]}]
    s = at_action(2, p=0)
    quiet(s)  # player 0's island: "[Yellow] draw 2, if you chose the Yellow action": no cost, no growth
    put(s, 0, 0, dune)
    put(s, 0, 1, mint)
    s.soil[0] = 1
    choose_action(s, "grow")
    while not (s.decision() == "activate" and s.current_player() == 0):
        plain_step(s)
    assert s.soil[0] == 1 and sum(s.gro[0]) == 0 and legal(s, "activate") == [0, 2, ISLAND_SLOT]
    act(s, "activate", 0)
    assert s.decision() == "copy" and legal(s, "activate") == [2]
    act(s, "activate", 2)
    assert s.soil[0] == 0 and s.decision() == "place" and s.queue[0]["left"] == 2
    while s.decision() == "place":
        act(s, "cell", legal(s, "cell")[0])
    assert sum(s.gro[0]) == 2 and s.soil[0] == 0
    assert (s.decision(), legal(s, "activate")) == ("activate", [ISLAND_SLOT])  # the Mint: no soil left to pay


def test_multicoloured_abilities_matching_the_current_action_are_also_activated():
    """Played out for each action: player 0 takes it; player 1 holds a multicoloured +1 soil flora (cell 0) and a
    terrain with a Green +1 soil ability (cell 1), and is asked at its own activation."""
    multi = plain_gain("multi", "soil")
    green = with_ability(lambda a: a["color"] == "green" and a["gain"][0]["res"] == "soil", "terrain")
    assert CAT.earth[green]["abilities"][0]["color"] == "green"
    for action, colour, ok in (("compost", "red", True), ("water", "blue", True), ("grow", "yellow", True),
                               ("plant", "green", False)):
        s = at_action(2, p=0)
        empty_hands(s)
        quiet(s)
        put(s, 1, 0, multi)
        put(s, 1, 1, green)
        choose_action(s, action)
        while s.turns == 0 and not (s.decision() == "activate" and s.current_player() == 1):
            s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])
        assert (s.decision(), s.current_player()) == ("activate", 1), f"no activation offered for {action}"
        assert s.queue[0]["colour"] == colour
        # slot 0: the multicoloured ability; slot 2: the Green one (offered only for Planting)
        assert legal(s, "activate") == ([0] if ok else [2]), action
        if ok:
            soil = s.soil[1]
            act(s, "activate", 0)
            assert s.soil[1] == soil + 1


def test_you_are_never_forced_to_activate_a_card_ability():
    """Played out: player 1's only usable ability (a multicoloured +1 soil) at its Red activation, and player 0's
    Black ability right after planting its card: both may be passed, and passing gains nothing."""
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 1, 0, plain_gain("multi", "soil"))
    choose_action(s, "compost")
    act(s, "option", 1)  # player 1 composts 2 instead of taking soil
    assert (s.decision(), s.current_player(), legal(s, "activate")) == ("activate", 1, [0])
    assert A(s, "pass") in s.legal_actions()
    soil = s.soil[1]
    act(s, "pass")
    assert s.soil[1] == soil and (s.decision(), s.current_player()) == ("action", 1)
    # a Black ability (draw cards) when its card is played
    s, _ = black_draw_card_just_planted(quiet_others=True)
    assert (s.decision(), legal(s, "activate")) == ("activate", [0]) and A(s, "pass") in s.legal_actions()
    act(s, "pass")
    assert s.hands[0] == [] and s.decision() == "keep"  # nothing drawn: on to the draw-4-keep-1


def test_you_are_never_forced_to_activate_a_card_ability_nor_to_place_all_the_growth_it_gains():
    """Played out: player 1's Greater Magnolia (Yellow "+2 growth", room for 4) at the Growing row's
    activation: it places one piece, then passes; the second is not placed (the reading "Pieces an ability
    gains")."""
    magnolia = 7
    assert (CAT.earth[magnolia]["abilities"][0], CAT.earth[magnolia]["growth"]) == (
        {"color": "yellow", "kind": "gain", "gain": [{"res": "growth", "n": 2}]}, 4)
    s = at_action(2, p=0)
    quiet(s)
    put(s, 1, 0, magnolia)
    choose_action(s, "grow")
    act(s, "option", 0)  # player 1 draws 2
    while s.current_player() == 0:  # the active player's own growth and activation: passed
        act(s, "pass")
    assert (s.current_player(), s.decision(), legal(s, "activate")) == (1, "activate", [0])
    act(s, "activate", 0)
    assert (s.decision(), legal(s, "cell")) == ("place", [0])
    act(s, "cell", 0)
    assert (s.decision(), legal(s, "cell")) == ("place", [0]) and A(s, "pass") in s.legal_actions()
    act(s, "pass")
    assert s.gro[1][0] == 1 and not (s.decision() == "place" and s.current_player() == 1)


def black_draw_card_just_planted(quiet_others: bool = False, **kw):
    """Player 0, hand emptied, plants a card whose Black ability draws cards (free) into cell 0 (``kw``: the
    game's options)."""
    black = with_ability(lambda a: a["color"] == "black" and a["kind"] == "gain" and a["gain"][0]["res"] == "draw"
                         and not a.get("cost"))
    s = at_action(2, p=0, **kw)
    empty_hands(s)
    if quiet_others:
        quiet(s)
    give(s, 0, black)
    s.soil[0] = 20
    choose_action(s, "plant")
    act(s, "plant", black)
    act(s, "cell", 0)
    return s, black


def test_black_abilities_are_triggered_only_when_played():
    s, black = black_draw_card_just_planted()
    assert s.decision() == "activate" and s.queue[0]["colour"] == "black" and legal(s, "activate") == [0]
    act(s, "activate", 0)
    assert len(s.hands[0]) == CAT.earth[black]["abilities"][0]["gain"][0]["n"]
    # never again: not in any action's activation
    for colour in ("green", "red", "blue", "yellow"):
        assert not s.slot_usable(0, 0, colour)
    # played by another player in the Planting row, it triggers for them just the same
    s = at_action(2, p=0)
    empty_hands(s)
    give(s, 1, black)
    s.soil[1] = 20
    choose_action(s, "plant")
    act(s, "card", legal(s, "card")[0])  # the active player keeps a card of the draw 4
    act(s, "plant", black)
    act(s, "cell", 0)
    assert (s.decision(), s.current_player(), s.queue[0]["colour"]) == ("activate", 1, "black")
    assert legal(s, "activate") == [0]
    act(s, "activate", 0)
    assert len(s.hands[1]) == CAT.earth[black]["abilities"][0]["gain"][0]["n"] + 1  # and the row's draw of 1


def test_black_abilities_of_a_card_with_two_are_both_triggered_when_played(tmp_path):
    """No shipped card has two black abilities, but a custom catalogue may: "Black abilities are triggered only
    when played" and "you are never forced to activate", so each may be used once, in reading order (before the
    fix the decision ended with the first, and the second was lost)."""
    import json
    import shutil

    from tabletop_envs.earth.catalogue import DATA
    from tabletop_envs.earth.text import ability_text

    for f in DATA.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    data = json.loads((tmp_path / "earth_cards.json").read_text(encoding="utf-8"))
    _, black = black_draw_card_just_planted()
    record = next(c for c in data["cards"] if c["id"] == black)
    assert len(record["abilities"]) == 1
    drawn = record["abilities"][0]["gain"][0]["n"]
    record["abilities"].append({"color": "black", "kind": "gain", "gain": [{"res": "soil", "n": 7}]})
    record["text"] = " ".join(ability_text(a) for a in record["abilities"])
    (tmp_path / "earth_cards.json").write_text(json.dumps(data), encoding="utf-8")

    def planted(kw):
        return black_draw_card_just_planted(**kw)[0]

    kw = {"data_dir": str(tmp_path)}
    s = planted(kw)
    assert s.decision() == "activate" and s.queue[0]["colour"] == "black" and legal(s, "activate") == [0, 1]
    act(s, "activate", 0)
    assert s.decision() == "activate" and legal(s, "activate") == [1]  # the second, still to use
    soil = s.soil[0]
    act(s, "activate", 1)
    assert (len(s.hands[0]), s.soil[0]) == (drawn, soil + 7)
    assert not (s.decision() == "activate" and s.queue[0]["colour"] == "black")
    s.check_invariants()
    # in reading order: the second first leaves nothing of this card to use
    s = planted(kw)
    soil = s.soil[0]
    act(s, "activate", 1)
    assert (len(s.hands[0]), s.soil[0]) == (0, soil + 7)
    assert not (s.decision() == "activate" and s.queue[0]["colour"] == "black")
    # never forced: pass skips both
    s = planted(kw)
    soil = s.soil[0]
    act(s, "pass")
    assert (len(s.hands[0]), s.soil[0]) == (0, soil)
    assert not (s.decision() == "activate" and s.queue[0]["colour"] == "black")


def test_brown_abilities_have_end_game_scoring_and_are_never_activated():
    """Played out in a one-round game: player 0 plants Southern Caldera ("[Brown] end of game: 3 VP per Herb in this
    row") at cell 0 beside a herb, then a second herb into that row; player 1 takes its turn and the game ends.
    Nothing is scored and the brown ability is never offered during play; the final score counts both herbs."""
    caldera = next(c["id"] for c in CAT.earth if c["name"] == "Southern Caldera")
    assert CAT.earth[caldera]["abilities"] == [{"color": "brown", "kind": "score", "score": {
        "pattern": "per_in_dir", "dir": "row", "filter": {"type": "herb"}, "vp": 3}}]
    herb1, herb2 = (flora(lambda c: c["type"] == "herb" and 1 <= c["cost"] <= 3
                          and all(a["color"] not in ("black", "green") for a in c["abilities"]), k) for k in (0, 1))
    s = at_action(2, p=0, max_rounds=1)
    empty_hands(s)
    quiet(s)
    put(s, 0, 1, herb1)
    give(s, 0, caldera, herb2)
    s.soil[0] = 30
    choose_action(s, "plant")
    act(s, "plant", caldera)
    act(s, "cell", 0)
    assert s.grid[0][0] == caldera and s.decision() == "plant"  # no ability of it fires when played
    act(s, "plant", herb2)
    act(s, "cell", 2)  # the row now holds 2 herbs; it held 1 when the Caldera was planted
    offered = []  # player 0's activation decisions (player 1 takes Growing: herb2's Yellow ability, cell 2)
    while not s.is_terminal():
        assert s.scores is None and not s.returns().any()  # nothing is scored before the end
        if s.decision() == "action":
            choose_action(s, "grow")
            continue
        if s.decision() == "activate" and s.current_player() == 0:
            offered.append(legal(s, "activate"))
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])
    assert offered == [[4]]  # herb2's ability; the Caldera's (cell 0: slots 0, 1) never
    assert s.turns == 2 and s.grid[0][:3] == [caldera, herb1, herb2]
    b = scoring.score_breakdown(s, 0)
    assert b["6_terrain"] == 3 * 2  # the row's herbs at the end of the game
    assert s.scores[0] == sum(b.values())
    for colour in ("green", "red", "blue", "yellow", "black"):
        assert not s.slot_usable(0, 0, colour) and not s.slot_usable(0, 1, colour)


def test_all_players_activate_clockwise_from_the_active_player():
    s = at_action(3, p=1)
    multi = with_ability(lambda a: a["color"] == "multi" and not a.get("cost"))
    for q in range(3):
        put(s, q, 0, multi if q == 0 else with_ability(lambda a: a["color"] == "multi" and not a.get("cost"),
                                                         skip=q))
        quiet(s, q)
    choose_action(s, "compost")
    for q in (2, 0):
        assert s.current_player() == q
        act(s, "option", 0)
    order = []
    while s.decision() == "activate":
        order.append(s.current_player())
        act(s, "pass")
    assert order == [1, 2, 0]


# ====================================================================== events
def event_card(pred=lambda c: True):
    return next(c["id"] for c in CAT.earth if c["kind"] == "event" and pred(c))


def free_event():
    return event_card(lambda c: not c["abilities"][0].get("cost"))


def test_events_can_be_played_at_any_time_including_other_players_turns():
    s = at_action(2, p=0)
    e = free_event()
    give(s, 1, e)
    choose_action(s, "compost")
    assert s.current_player() == 1 and s.decision() == "option"
    assert legal(s, "event") == [e - EVENT0]
    act(s, "event", e - EVENT0)
    assert e in s.events[1] and s.decision() == "option" and s.current_player() == 1


def test_events_and_conversion_start_with_the_first_turn_not_during_setup():
    s = game(2).new_initial_state(4)
    while s.decision() != "setup_compost":
        s.apply_action(s.legal_actions()[0])
    p = s.current_player()
    give(s, p, free_event())
    assert legal(s, "event") == [] and legal(s, "convert") == []


def test_events_can_be_played_between_the_activation_of_2_abilities():
    """Played out: player 0 takes Composting with two multicoloured +1 soil flora (cells 0 and 1) and a free
    "+2 soil" event in hand. At its Red activation it activates the first, plays the event, then activates the
    second: the event resolves at once, and the activation goes on where it was."""
    f0, f1 = plain_gain("multi", "soil", 0), plain_gain("multi", "soil", 1)
    e = free_event()
    assert CAT.earth[e]["abilities"][0]["gain"] == [{"res": "soil", "n": 2}]
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 0, 0, f0)
    put(s, 0, 1, f1)
    give(s, 0, e)
    choose_action(s, "compost")
    act(s, "option", 0)  # player 1 takes 2 soil
    assert (s.decision(), s.current_player(), s.queue[0]["colour"]) == ("activate", 0, "red")
    assert legal(s, "activate") == [0, 2]
    soil = s.soil[0]
    act(s, "activate", 0)
    assert s.soil[0] == soil + 1
    # between the two activations: the event may be played, and is
    assert (s.decision(), legal(s, "activate")) == ("activate", [2]) and legal(s, "event") == [e - EVENT0]
    act(s, "event", e - EVENT0)
    assert s.events[0] == [e] and s.hands[0] == [] and s.soil[0] == soil + 1 + 2
    # still player 0's Red activation, with the second ability still to come
    assert (s.decision(), s.current_player()) == ("activate", 0) and s.queue[0]["colour"] == "red"
    assert legal(s, "activate") == [2]
    act(s, "activate", 2)
    assert s.soil[0] == soil + 1 + 2 + 1
    assert (s.decision(), s.current_player()) == ("action", 1)  # nothing left to activate: the turn is over


def test_events_can_be_played_at_any_time_even_between_placing_the_watering_rows_sprouts():
    """Played out: player 0's one flora has 2 sprout spaces and they hold Drought (pay 2 sprouts: compost 3).
    Placing the Watering row's 6 sprouts, they fill the flora, play Drought with the 2 just placed, and place 2
    more where it freed room; the last 2 are lost. Before, the placement ended when the flora was full and the 4
    were lost: events came only after the row. Converting stays refused there and while paying the event ("You
    cannot convert sprouts to soil during this action"), though a second flora, full, holds 3 sprouts."""
    drought = 247
    assert CAT.earth[drought]["abilities"][0]["cost"] == {"sprouts": 2}
    small, full = flora(lambda c: c["sprouts"] == 2), flora(lambda c: c["sprouts"] == 3)
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 0, 0, small)
    put(s, 0, 1, full, sprouts=3)
    give(s, 0, drought)
    choose_action(s, "water")
    assert (s.current_player(), s.decision(), legal(s, "cell"), legal(s, "event"), legal(s, "convert")) == (
        0, "place", [0], [drought - EVENT0], [])
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert (s.decision(), legal(s, "cell"), legal(s, "event"), legal(s, "convert")) == (
        "place", [], [drought - EVENT0], [])
    compost = len(s.compost[0])
    act(s, "event", drought - EVENT0)
    while s.decision() == "pay":
        assert legal(s, "convert") == []
        act(s, "cell", 0)  # Drought's 2 sprouts, from the small flora
    assert s.events[0] == [drought] and s.spr[0][0] == 0 and len(s.compost[0]) == compost + 3
    assert (s.current_player(), s.decision(), legal(s, "cell")) == (0, "place", [0])
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert s.spr[0][0] == 2 and not (s.decision() == "place" and s.current_player() == 0)  # the last 2 lost


def test_events_can_be_played_at_any_time_even_between_drawing_4_and_placing_growth_in_the_growing_row():
    """Played out: player 0's two flora hold all the growth they take, and the Growing row's draw of 4 brings
    Aurora (pay 2 growth -> 5 sprouts). Played before the growth of step 2, Aurora frees room for it: player 0
    is asked the placement though no flora has room, plays Aurora, and places the 2 growth where Aurora's were
    paid. Before, the placement was skipped (no room) and the 2 growth were lost; the event came only after the
    row. Whether the placement is asked is public: a hand drawn without an event is asked too, pass only."""
    aurora = 250
    assert CAT.earth[aurora]["abilities"][0] == {"color": "black", "kind": "gain", "cost": {"growth": 2},
                                                 "gain": [{"res": "sprouts", "n": 5}]}
    tall = [flora(lambda c: c["growth"] >= 2 and c["sprouts"] >= 3, k) for k in (0, 1)]
    plain = [flora(lambda c: c["id"] not in tall, k) for k in range(4)]  # no event among them
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    for cell, card in enumerate(tall):
        put(s, 0, cell, card, growth=CAT.earth[card]["growth"])
    twin = s.clone()
    for world, drawn in ((s, [aurora, *plain[:3]]), (twin, plain)):
        for card in drawn:
            take(world, card)
        world.deck += drawn  # the top of the pile: the row's draw of 4 takes them
        choose_action(world, "grow")
        assert sorted(world.hands[0]) == sorted(drawn)
        assert (world.current_player(), world.decision(), world.queue[0]["res"]) == (0, "place", "growth")
        assert legal(world, "cell") == []  # no flora has room for growth
    assert twin.legal_actions() == [A(twin, "pass")]  # asked all the same: whether is public
    assert legal(s, "event") == [aurora - EVENT0] and legal(s, "pass") == [0]
    growth = [s.gro[0][0], s.gro[0][1]]
    act(s, "event", aurora - EVENT0)
    act(s, "cell", 0)
    act(s, "cell", 0)  # Aurora's 2 growth paid from the first flora
    while s.queue[0]["t"] == "place" and s.queue[0]["res"] == "sprouts":
        act(s, "cell", legal(s, "cell")[0])  # its 5 sprouts, where they fit
    assert s.events[0] == [aurora] and s.gro[0][0] == growth[0] - 2
    assert (s.current_player(), s.decision(), s.queue[0]["res"], legal(s, "cell")) == (0, "place", "growth", [0])
    act(s, "cell", 0)
    act(s, "cell", 0)  # step 2's growth, on the room Aurora made
    assert [s.gro[0][0], s.gro[0][1]] == growth and sum(s.spr[0]) == 5
    assert s.decision() != "place" or s.current_player() != 0


def test_otherwise_you_can_convert_them_any_other_time_even_between_drawing_4_and_placing_growth_in_the_growing_row():
    # the Growing row's growth placement offered events but no conversion (RULES.md: both are offered there)
    tall = flora(lambda c: c["growth"] >= 2 and c["sprouts"] >= 3
                 and all(a["color"] != "black" for a in c["abilities"]))
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 0, 0, tall, sprouts=3)
    soil = s.soil[0]
    choose_action(s, "grow")
    assert (s.current_player(), s.decision()) == (0, "place")
    assert (s.queue[0]["res"], s.queue[0]["left"], legal(s, "convert")) == ("growth", 2, [0])
    act(s, "convert")
    for _ in range(3):
        act(s, "cell", 0)
    assert (s.spr[0][0], s.soil[0]) == (0, soil + 2)
    # the placement goes on where it was: both growth still to place
    assert (s.current_player(), s.decision()) == (0, "place")
    assert (s.queue[0]["res"], s.queue[0]["left"]) == ("growth", 2)
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert s.gro[0][0] == 2


def test_events_are_not_offered_at_the_other_rows_placements_nor_mid_ability():
    """The anytime placement is the Growing row's step 2 only: the other players chose to place growth at an
    ``option`` decision, where events are offered, and their hands have not changed since; an ability's or an
    event's placement is the middle of an ability."""
    aurora = 250
    room = flora(lambda c: c["growth"] >= 4 and c["sprouts"] >= 3)
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 1, 0, room, growth=2)  # Aurora's 2 growth, and room for 2 more
    give(s, 1, aurora)
    put(s, 0, 0, flora(lambda c: c["id"] != room and c["growth"] >= 2 and c["sprouts"] >= 5))
    choose_action(s, "grow")
    while s.current_player() == 0 and s.decision() == "place":
        act(s, "pass")
    assert (s.current_player(), s.decision()) == (1, "option")
    assert legal(s, "event") == [aurora - EVENT0]  # offered at the option decision
    act(s, "option", 1)  # place up to 2 growth
    assert (s.decision(), legal(s, "cell"), legal(s, "event")) == ("place", [0], [])
    act(s, "cell", 0)
    act(s, "cell", 0)
    # Aurora played at player 1's next anytime decision: its sprouts' placement offers no event either
    for _ in range(50):
        if s.current_player() == 1 and legal(s, "event"):
            break
        act(s, "pass")
    assert legal(s, "event") == [aurora - EVENT0]
    act(s, "event", aurora - EVENT0)
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert (s.decision(), s.queue[0]["res"], legal(s, "event")) == ("place", "sprouts", [])


def test_events_can_be_played_at_any_time_even_where_only_the_event_pays_for_an_ability_of_the_activation():
    """Played out: player 1 has Common Magnolia (Yellow: pay 2 sprouts -> 4 growth), no sprouts, and Aurora (pay
    2 growth -> 5 sprouts) in hand. Player 0 takes Growing; player 1 places its 2 growth on the Magnolia. Only
    then can Aurora be paid, and only Aurora's sprouts pay for the Magnolia: player 1 is asked its Yellow
    activation (nothing in it is payable yet), plays Aurora there, then activates the Magnolia. Before, the
    activation was skipped and Aurora came only in the end-of-turn window, too late for the Magnolia."""
    magnolia, aurora = 8, 250
    assert CAT.earth[magnolia]["abilities"][0] == {"color": "yellow", "kind": "gain", "cost": {"sprouts": 2},
                                                   "gain": [{"res": "growth", "n": 4}]}
    assert CAT.earth[aurora]["abilities"][0]["cost"] == {"growth": 2}
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 1, 5, magnolia)
    give(s, 1, aurora)
    twin = s.clone()  # a flora instead of Aurora: the other seat cannot tell the two hands apart
    twin.hands[1] = [flora(lambda c: c["id"] not in (magnolia,) and c["id"] in twin.deck)]
    twin.deck.remove(twin.hands[1][0])
    twin.deck.append(aurora)
    for world in (s, twin):
        choose_action(world, "grow")
        while (world.current_player(), world.decision()) != (1, "option"):
            world.apply_action(A(world, "pass"))
        act(world, "option", 1)  # place up to 2 growth
        act(world, "cell", 5)
        act(world, "cell", 5)
        while world.current_player() == 0:
            world.apply_action(A(world, "pass"))
        assert (world.current_player(), world.decision(), world.queue[0]["colour"]) == (1, "activate", "yellow")
        assert legal(world, "activate") == []
    assert twin.legal_actions() == [A(twin, "pass")]  # asked all the same: whether is public
    act(s, "event", aurora - EVENT0)
    act(s, "cell", 5)
    act(s, "cell", 5)  # Aurora's 2 growth paid
    while s.decision() == "place":
        act(s, "cell", 5)  # 3 of its 5 sprouts fit on the Magnolia
    assert (s.spr[1][5], s.gro[1][5]) == (3, 0)
    assert (s.decision(), legal(s, "activate")) == ("activate", [10])
    act(s, "activate", 10)
    act(s, "cell", 5)
    act(s, "cell", 5)
    while s.decision() == "place":
        act(s, "cell", 5)
    assert (s.spr[1][5], s.gro[1][5]) == (1, 4)


@pytest.mark.parametrize("n", [1, 2])
def test_events_can_be_played_at_any_time_even_where_only_the_event_pays_for_a_planting(n):
    """Played out: the active player plants Northern Grove (black: +7 sprouts) with all 9 soil, its sprouts go
    on two flora, and the hand holds Meteor Shower (pay 7 sprouts -> 11 soil) and African Ash (cost 8). Only
    the event pays for the Ash, so the second planting is asked (converting would give 4 soil). In solo play
    it was skipped (the hand decides there, and it looked at the cards only): the Ash could never be
    planted this turn, since the next decision, keeping a drawn card, takes no event. With another card in
    the event's place the solo planting is still skipped."""
    snake_cedar, river_fennel, grove, meteor, ash = 5, 61, 197, 253, 24
    assert CAT.earth[grove]["cost"] == 9 and CAT.earth[grove]["abilities"][0]["gain"] == [{"res": "sprouts", "n": 7}]
    assert CAT.earth[meteor]["abilities"][0]["cost"] == {"sprouts": 7}
    assert CAT.earth[meteor]["abilities"][0]["gain"] == [{"res": "soil", "n": 11}]
    assert CAT.earth[ash]["cost"] == 8

    def played(third):
        s = at_action(n, p=0)
        empty_hands(s)
        quiet(s)
        put(s, 0, 0, snake_cedar)
        put(s, 0, 1, river_fennel)
        give(s, 0, grove, third, ash)
        s.soil[0] = 9
        choose_action(s, "plant")
        act(s, "plant", grove)
        act(s, "cell", 2)
        act(s, "activate", 4)  # the Grove's black ability (cell 2, its first)
        while s.decision() == "place":
            act(s, "cell", 0 if s.spr[0][0] < 6 else 1)
        assert (sum(s.spr[0]), s.soil[0]) == (7, 0)
        return s

    s = played(meteor)
    assert (s.current_player(), s.decision(), legal(s, "event")) == (0, "plant", [meteor - EVENT0])
    act(s, "event", meteor - EVENT0)
    while s.decision() == "pay":
        act(s, "cell", 0 if s.spr[0][0] else 1)
    assert (s.soil[0], s.decision(), legal(s, "plant")) == (11, "plant", [ash])
    act(s, "plant", ash)
    act(s, "cell", legal(s, "cell")[0])
    assert ash in s.grid[0] and s.soil[0] == 3
    if n == 1:
        # costlier than converting the 7 sprouts pays (4 soil), no alternative cost
        other = flora(lambda c: c["cost"] > 4 and c["id"] != ash and CAT.alt_cost_l[c["id"]] is None)
        assert played(other).decision() == "keep"


def test_events_can_be_played_at_any_time_even_where_only_the_event_pays_a_cards_alternative_cost_in_solo_play():
    # solo planting was skipped where only an event's sprouts paid the card's alternative (sprout) cost
    lavender, sandstorm = 49, 254
    assert (CAT.earth[lavender]["cost"], CAT.alt_cost_l[lavender]) == (5, "sprouts")
    assert CAT.earth[sandstorm]["abilities"][0] == {"color": "black", "kind": "gain",
                                                    "gain": [{"res": "sprouts", "n": 2}]}

    def planting(card):
        s = at_action(1, p=0)
        empty_hands(s)
        quiet(s)
        put(s, 0, 0, sprout_flora(5), sprouts=3)  # converting gives 2 soil, too few for a cost of 5
        give(s, 0, card, sandstorm)
        s.soil[0] = 0
        choose_action(s, "plant")
        return s

    s = planting(lavender)
    assert (s.current_player(), s.decision(), legal(s, "plant")) == (0, "plant", [])
    assert legal(s, "event") == [sandstorm - EVENT0]
    act(s, "event", sandstorm - EVENT0)
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert (s.spr[0][0], s.decision(), legal(s, "plant")) == (5, "plant", [lavender])
    act(s, "plant", lavender)
    act(s, "cell", legal(s, "cell")[0])
    while s.decision() == "pay":
        act(s, "cell", 0)
    assert lavender in s.grid[0] and s.spr[0][0] == 0 and s.soil[0] == 0
    # a card of the same cost with no alternative: no event of the hand pays it, the planting is skipped
    other = flora(lambda c: c["cost"] == 5 and CAT.alt_cost_l[c["id"]] is None)
    assert planting(other).decision() == "keep"


def test_events_can_be_played_at_any_time_even_where_only_an_event_that_draws_brings_a_card_for_a_solo_planting():
    """Played out in solo play: the first card planted, African Myrtle (black: draw 1), draws Tsunami (draw 2),
    and the hand holds nothing else. Playing Tsunami draws two flora costing 0, and one is the second planting.
    The planting was skipped (nothing plantable in the hand, no event paying for a card), and the next decision,
    keeping a drawn card, takes no event: the second card could never be planted this turn. With more than one
    seat the planting is asked whatever the hand holds; with Sandstorm (2 sprouts, no draw), or with Tsunami and
    the Myrtle's cell the last free one, it is still skipped."""
    myrtle, tsunami, sandstorm = 141, 252, 254
    assert (CAT.earth[myrtle]["cost"], CAT.earth[myrtle]["abilities"]) == (
        2, [{"color": "black", "kind": "gain", "gain": [{"res": "draw", "n": 1}]}])
    assert CAT.earth[tsunami]["abilities"][0] == {"color": "black", "kind": "gain", "gain": [{"res": "draw", "n": 2}]}
    free = [c["id"] for c in CAT.earth if c["kind"] == "flora" and c["cost"] == 0
            and not any(a["color"] == "black" for a in c["abilities"])][:2]

    def planting(event, full=False):
        s = at_action(1, p=0)
        empty_hands(s)
        quiet(s)
        if full:  # every cell but the Myrtle's
            others = [c for c in s.deck if CAT.is_flora[c] and c not in (myrtle, *free)][:15]
            for cell, card in zip([i for i in range(16) if i != 5], others):
                put(s, 0, cell, card)
        give(s, 0, myrtle)
        s.soil[0] = 2
        for card in (*free, event):
            s.deck.append(take(s, card))  # the top of the pile: the Myrtle draws the event, the event the flora
        choose_action(s, "plant")
        act(s, "plant", myrtle)
        act(s, "cell", 5)
        act(s, "activate", 10)  # the Myrtle's black ability (cell 5, its first)
        assert (s.hands[0], s.soil[0]) == ([event], 0)
        return s

    s = planting(tsunami)
    assert (s.current_player(), s.decision(), legal(s, "plant"), legal(s, "event")) == (
        0, "plant", [], [tsunami - EVENT0])
    act(s, "event", tsunami - EVENT0)
    assert sorted(s.hands[0]) == sorted(free) and s.decision() == "plant"
    act(s, "plant", free[0])
    act(s, "cell", legal(s, "cell")[0])
    assert free[0] in s.grid[0] and myrtle in s.grid[0] and s.decision() == "keep"
    assert planting(sandstorm).decision() == "keep"
    assert planting(tsunami, full=True).decision() == "keep"


def test_planting_all_other_players_plant_1_card_before_any_of_them_draws_1():
    """"3. All other players may plant 1 card ... 4. All other players may draw 1 card": at a 3-player table
    with one card left to draw after the active player's draw 4, seat 2 plants Snake Myrtle (black: draw 2)
    before seat 1 draws, so the Myrtle's draw takes the last card and seat 1's draw finds none. Played seat by
    seat, seat 1 drew it first."""
    myrtle = 132
    assert CAT.earth[myrtle]["abilities"][0] == {"color": "black", "kind": "gain", "gain": [{"res": "draw", "n": 2}]}
    s = at_action(3, p=0)
    empty_hands(s)
    quiet(s)
    give(s, 2, myrtle)
    s.soil[2] = 10
    rest = s.deck + s.discard
    s.deck, s.discard = rest[:5], []  # 4 for the active player's draw, then 1
    s.compost[0] += rest[5:]  # out of play, face down
    s.compost_known[0] += [False] * len(rest[5:])
    last = s.deck[0]  # drawn from the end
    choose_action(s, "plant")
    act(s, "card", legal(s, "card")[0])  # keep one; the other 3 go to the discard pile
    s.discard = []
    assert len(s.deck) == 1
    assert (s.current_player(), s.decision()) == (2, "plant")  # seat 1, with no card in hand, is not asked
    act(s, "plant", myrtle)
    act(s, "cell", 0)
    act(s, "activate", 0)  # the Myrtle's black draw 2
    # then the other players' draws, automatic: seat 1's finds no card
    assert (s.hands[1], s.hands[2], s.deck, s.discard) == ([], [last], [], [])
    assert not any(t["t"] == "auto" and t["op"] == "draw" for t in s.queue)


def test_end_of_turn_window_lets_every_player_play_events_or_convert():
    s = at_action(2, p=0)
    empty_hands(s)
    give(s, 1, free_event())
    choose_action(s, "compost")
    act(s, "option", 0)
    while s.decision() != "window":
        s.apply_action(A(s, "pass"))
    assert s.current_player() == 1 and legal(s, "event") and A(s, "pass") in s.legal_actions()


def test_end_of_turn_window_is_offered_clockwise_from_the_active_player():
    """RULES.md: the end-of-turn window goes to every player "clockwise from the active player" (a later seat
    sees the events played before it), as the activations do."""
    s = at_action(3, p=1)
    empty_hands(s)
    quiet(s)
    for q in range(3):
        give(s, q, cheap(q))  # the window is asked of every seat with a card in hand, whatever the card
    choose_action(s, "compost")
    order = []
    while s.current_player() in (0, 1, 2) and s.decision() != "action":
        if s.decision() == "window":
            order.append(s.current_player())
        plain_step(s)
    assert order == [1, 2, 0]


def test_events_do_not_go_to_the_tableau_they_go_to_the_event_stack_and_cannot_be_composted():
    """Played out: player 0 plays a "+2 soil" event at its action choice, then takes Composting with Japanese Basil
    ("[Red] compost 2 cards from your hand", cell 0) and Hairy Larch ("[Red] compost 1 card from your hand: +2
    soil", cell 1). Both compost choices offer the hand (a second, unplayed event included), never the played one."""
    basil, larch = (next(c["id"] for c in CAT.earth if c["name"] == name) for name in ("Japanese Basil", "Hairy Larch"))
    assert CAT.earth[basil]["abilities"] == [{"color": "red", "kind": "gain",
                                              "gain": [{"res": "compost_hand", "n": 2}]}]
    assert CAT.earth[larch]["abilities"] == [{"color": "red", "kind": "gain", "cost": {"hand_compost": 1},
                                              "gain": [{"res": "soil", "n": 2}]}]
    e = free_event()
    e2 = event_card(lambda c: c["id"] != e)  # stays in the hand
    f1, f2 = cheap(0), cheap(1)
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    put(s, 0, 0, basil)
    put(s, 0, 1, larch)
    give(s, 0, e, e2, f1, f2)
    soil = s.soil[0]
    act(s, "event", e - EVENT0)
    assert s.events[0] == [e] and e not in s.grid[0] and e not in s.hands[0]
    assert s.soil[0] == soil + 2 and (s.decision(), s.current_player()) == ("action", 0)
    choose_action(s, "compost")
    act(s, "option", 0)  # player 1 takes 2 soil
    assert (s.decision(), s.current_player(), legal(s, "activate")) == ("activate", 0, [0, 2])
    compost = list(s.compost[0])
    act(s, "activate", 0)  # Japanese Basil: compost 2 from hand
    assert s.decision() == "compost_hand" and legal(s, "card") == sorted([e2, f1, f2])
    act(s, "card", e2)  # an event still in the hand may be composted
    assert s.decision() == "compost_hand" and legal(s, "card") == sorted([f1, f2])
    act(s, "card", f1)
    assert (s.decision(), legal(s, "activate")) == ("activate", [2])
    soil = s.soil[0]
    act(s, "activate", 2)  # Hairy Larch: its cost, 1 card from hand
    assert s.decision() == "pay_hand" and legal(s, "card") == [f2]
    act(s, "card", f2)
    assert s.soil[0] == soil + 2
    assert s.compost[0] == compost + [e2, f1, f2] and s.hands[0] == []
    assert s.events[0] == [e] and e not in s.grid[0]  # the played event stays in the event stack


def test_events_give_an_instant_benefit_and_do_not_directly_affect_other_players():
    _each_event_benefits_its_player_only(0)


def _each_event_benefits_its_player_only(p: int) -> None:
    """Seat p plays every event in turn (seat 0 active: at its action, or seat 1 at its Composting option),
    paying and placing with the first choices: its soil, hand, compost, sprouts and growth change by what the
    event gives and costs, and nothing of the other seat's."""
    q = 1 - p
    six = [c["id"] for c in CAT.earth if c["kind"] == "flora" and c["sprouts"] == 6 and c["growth"] < 4]
    for e in [c["id"] for c in CAT.earth if c["kind"] == "event"]:
        s = at_action(2, p=0)
        quiet(s)
        for cell in range(4):  # 12 sprouts to pay with, room for 12 more
            put(s, p, cell, six[cell], sprouts=6 if cell < 2 else 0)
        put(s, p, 4, flora(lambda c: c["growth"] >= 4 and c["sprouts"] == 0), growth=4)
        give(s, p, e)
        if p == 1:
            choose_action(s, "compost")
        back_at = s.decision()
        assert (s.current_player(), back_at) == (p, "option" if p == 1 else "action")
        ability = CAT.earth[e]["abilities"][0]
        mine = (s.soil[p], len(s.hands[p]), len(s.compost[p]), sum(s.spr[p]), sum(s.gro[p]))
        theirs = [list(x[q]) for x in (s.hands, s.compost, s.grid, s.spr, s.gro, s.events)] + [s.soil[q]]
        act(s, "event", e - EVENT0)
        while s.decision() != back_at:  # pay and place (first choices), back to the same decision
            assert s.current_player() == p
            s.apply_action(s.legal_actions()[0])
        gain = {g["res"]: g["n"] for g in ability["gain"]}
        cost = ability.get("cost") or {}
        assert (s.soil[p], len(s.hands[p]), len(s.compost[p]), sum(s.spr[p]), sum(s.gro[p])) == (
            mine[0] + gain.get("soil", 0), mine[1] - 1 + gain.get("draw", 0), mine[2] + gain.get("compost_deck", 0),
            mine[3] - cost.get("sprouts", 0) + gain.get("sprouts", 0), mine[4] - cost.get("growth", 0)), e
        assert [list(x[q]) for x in (s.hands, s.compost, s.grid, s.spr, s.gro, s.events)] + [s.soil[q]] == theirs, e


def test_a_played_event_lies_face_up_in_the_event_space_of_its_players_board():
    s = at_action(3, p=0)
    e = free_event()
    give(s, 0, e)
    lay = s.game.observation_layout
    assert all(lay.view(s.observation(q), "event_stack").sum() == 0 for q in range(3))
    act(s, "event", e - EVENT0)
    assert s.events[0] == [e]
    for q in range(3):  # face up: every seat sees it on player 0's board (relative seat of player 0)
        stacks = lay.view(s.observation(q), "event_stack")
        assert np.flatnonzero(stacks[(0 - q) % 3]).tolist() == [e - EVENT0] and stacks.sum() == 1


def test_once_played_events_cannot_be_exchanged_activated_or_composted():
    # in random play an event stack only grows, and no decision offers a played event as a card to pick
    for n, seed in ((2, 0), (3, 1), (4, 2)):
        s = after_setup(n, seed)
        rng = np.random.default_rng(seed)
        stacks = [[] for _ in range(n)]
        while not s.is_terminal():
            played = {c for st in s.events for c in st}
            assert not played & set(legal(s, "card"))
            s.apply_action(int(rng.choice(s.legal_actions())))
            assert all(s.events[q][:len(stacks[q])] == stacks[q] for q in range(n))
            stacks = [list(st) for st in s.events]
        assert sum(map(len, stacks)) > 0
    # played out: player 0 plays a "draw 2" event (Black), then takes each action in turn (player 1 Composts in
    # between). Player 0 holds a multicoloured +1 soil flora (cell 0) and a Green +1 soil terrain (cell 1), and plants
    # a flora with a Black "draw 1" (cell 2): every activation colour and a Black trigger come up. The event is never
    # offered, never resolved again, never playable again: the hand grows only by the action's draws.
    e = event_card(lambda c: not c["abilities"][0].get("cost") and c["abilities"][0]["gain"][0]["res"] == "draw")
    assert CAT.earth[e]["abilities"][0]["gain"] == [{"res": "draw", "n": 2}]
    multi = plain_gain("multi", "soil")
    green = next(c["id"] for c in CAT.earth if c["name"] == "Northern Moraine")  # [Green] +1 soil; end-game VP
    assert CAT.earth[green]["abilities"][0] == {"color": "green", "kind": "gain", "gain": [{"res": "soil", "n": 1}]}
    black = flora(lambda c: [(a["color"], a["kind"]) for a in c["abilities"]] == [("black", "gain")]
                  and c["abilities"][0]["gain"] == [{"res": "draw", "n": 1}] and c["cost"] <= 2)
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)  # island: Yellow draw 2 if player 0 Grows; climate: Blue +2 sprouts if player 0 Waters
    put(s, 0, 0, multi)
    put(s, 0, 1, green)
    give(s, 0, e, black)
    s.soil[0] = 20
    act(s, "event", e - EVENT0)
    assert s.events[0] == [e] and len(s.hands[0]) == 1 + 2
    offered = []
    for action in ("plant", "compost", "water", "grow"):
        for p, name in ((0, action), (1, "compost")):
            turn = s.turns
            assert (s.decision(), s.current_player()) == ("action", p)
            choose_action(s, name)
            while s.turns == turn:
                if s.current_player() == 0:
                    assert e - EVENT0 not in legal(s, "event") and e not in legal(s, "card")
                    if s.decision() == "activate":
                        offered.append((s.queue[0]["colour"], legal(s, "activate")))
                    elif s.decision() == "plant" and black in s.hands[0]:
                        act(s, "plant", black)
                        act(s, "cell", 2)
                        continue
                plain_step(s)  # every ability offered is passed
            assert s.events[0] == [e] and e not in s.grid[0]
    # player 0's Planting: the new flora's Black trigger, then the terrain; player 0's own Watering and Growing add
    # its climate's and island's abilities; the multicoloured flora at every Red, Blue and Yellow activation
    red = ("red", [0])  # player 1's Composting and player 0's
    assert offered == [("black", [4]), ("green", [2]), red, red, red, ("blue", [0, CLIMATE_SLOT]), red,
                       ("yellow", [0, ISLAND_SLOT]), red]
    # 3 after the event, -1 planted +1 kept (Planting), +4 (Growing): the event's draw 2 never came again
    assert len(s.hands[0]) == 3 - 1 + 1 + 4


def test_events_may_earn_or_lose_points_at_the_end_of_the_game():
    s = at_action(2, p=0)
    neg = event_card(lambda c: c["vp"] < 0)
    s.events[0].append(take(s, neg))
    assert scoring.score_breakdown(s, 0)["2_events"] == CAT.earth[neg]["vp"] < 0
    pos = event_card(lambda c: c["vp"] > 0)
    s.events[0].append(take(s, pos))
    assert scoring.score_breakdown(s, 0)["2_events"] == CAT.earth[neg]["vp"] + CAT.earth[pos]["vp"]
    assert CAT.earth[pos]["vp"] > 0


def test_whenever_you_play_an_event_brown_ability_triggers():
    s = at_action(2, p=0)
    s.island[0] = island_where(lambda a: a["kind"] == "on_event" and a["gain"][0]["res"] == "soil")
    e = event_card(lambda c: not c["abilities"][0].get("cost") and c["abilities"][0]["gain"][0]["res"] == "draw")
    give(s, 0, e)
    soil = s.soil[0]
    act(s, "event", e - EVENT0)
    assert s.soil[0] == soil + 1


def test_whenever_you_play_an_event_triggers_at_every_event_not_once_per_turn():
    """"Each ability can only be activated once per turn" is said of the abilities an action's colour activates;
    a "whenever you play an event" ability is triggered by each event: two events in one turn, two triggers."""
    s = at_action(2, p=0)
    empty_hands(s)
    s.island[0] = island_where(lambda a: a["kind"] == "on_event" and a["gain"][0]["res"] == "soil")
    free_draws = [c["id"] for c in CAT.earth if c["kind"] == "event" and not c["abilities"][0].get("cost")
                  and c["abilities"][0]["gain"][0]["res"] == "draw"][:2]
    give(s, 0, *free_draws)
    soil, turns = s.soil[0], s.turns
    for e in free_draws:
        act(s, "event", e - EVENT0)
    assert s.soil[0] == soil + 2 and s.turns == turns


def test_a_whenever_you_play_an_event_gain_counts_as_the_events_own_so_solo_play_asks_the_activation_it_pays():
    # solo activation was skipped where only the island's +1 soil per event paid its ability: event too late
    tsunami = 252  # free, draw 2: no soil of its own
    s = at_action(1, p=0)
    empty_hands(s)
    quiet(s)
    s.island[0] = island_where(lambda a: a["kind"] == "on_event" and a["gain"] == [{"res": "soil", "n": 1}])
    put(s, 0, 0, soil_ability_flora())  # multicolour, pay 1 soil: +2 growth
    put(s, 0, 1, grow_flora(2))  # room for the growth
    give(s, 0, tsunami)
    s.soil[0] = 0
    s.compost[0] += s.deck + s.discard  # nothing left to draw: the hand stays as set
    s.compost_known[0] += [False] * len(s.deck + s.discard)
    s.deck, s.discard = [], []
    choose_action(s, "grow")
    while s.decision() == "place":
        act(s, "pass")  # the Growing row's growth: none placed
    assert s.decision() == "activate", "the activation was skipped"
    assert (s.queue[0]["colour"], legal(s, "activate")) == ("yellow", [])
    assert legal(s, "event") == [tsunami - EVENT0]
    act(s, "event", tsunami - EVENT0)
    assert s.soil[0] == 1 and s.hands[0] == [] and legal(s, "activate") == [0]
    act(s, "activate", 0)
    while s.decision() == "place":
        act(s, "cell", 1)
    assert s.soil[0] == 0 and s.gro[0][1] == 2


# ====================================================================== fauna
def fauna_state(measure="soil", n=3):
    s = at_action(n, p=1)
    side = next(f["id"] for f in CAT.fauna if f["measure"] == measure)
    s.fauna = [side, s.fauna[1], s.fauna[2], s.fauna[3]]
    s.fauna = [side] + [f for f in s.fauna[1:] if CAT.fauna[f]["measure"] != measure][:3]
    while len(s.fauna) < 4:
        s.fauna.append(next(f["id"] for f in CAT.fauna if f["measure"] == "full_rows"))
    return s, CAT.fauna[side]["n"]


def end_turn(s):
    """Finish the current turn with passes / first choices."""
    turns = s.turns
    while s.turns == turns and not s.is_terminal():
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])


def test_fauna_claimed_at_end_of_turn_with_the_highest_available_vp_tier():
    s, need = fauna_state("soil")
    s.soil[2] = need + 10
    choose_action(s, "water")
    assert s.leaves[0] == []  # not during the turn
    end_turn(s)
    assert s.leaves[0] == [2]
    assert scoring.score_breakdown(s, 2)["8_fauna"] >= 15


def test_a_player_who_fulfills_an_objective_during_the_turn_claims_it_at_the_end_of_that_turn():
    """"At the end of a turn in which a player fulfills an objective ... they claim" it: fulfilling it at
    any point of the turn counts, even if spending afterwards leaves it unmet when the turn ends."""
    s, need = fauna_state("soil")
    quiet(s)
    pay_soil = with_ability(lambda a: a["color"] == "multi" and (a.get("cost") or {}).get("soil"))
    put(s, 1, 0, pay_soil)
    s.soil[1] = need - 5  # the Composting action's 5 soil reaches the objective ...
    choose_action(s, "compost")
    assert s.soil[1] == need
    while s.decision() != "activate" or s.current_player() != 1:
        s.apply_action(s.legal_actions()[0])
    act(s, "activate", 0)  # ... and the multicoloured "pay soil" ability spends below it again
    assert s.soil[1] < need
    end_turn(s)
    assert s.soil[1] < need and s.leaves[0] == [1]


def test_an_objective_met_when_the_turn_begins_is_claimed_even_if_an_event_played_before_the_action_lowers_it():
    # "At the end of a turn in which a player fulfills an objective ... they claim" it: the active player meets
    # "20+ cards in hand" as its turn begins, then plays an event (a card leaves the hand) before choosing
    s, need = fauna_state("hand")
    quiet(s)
    event = next(c for c in s.deck if CAT.is_event[c] and not CAT.earth[c]["abilities"][0].get("cost")
                 and all(g["res"] != "draw" for g in CAT.earth[c]["abilities"][0]["gain"]))
    give(s, 1, event)
    while len(s.hands[1]) > need:
        s.discard.append(s.hands[1].pop(0))
    while len(s.hands[1]) < need:
        s.hands[1].append(s.deck.pop())
    assert (s.decision(), s.current_player()) == ("action", 1)
    act(s, "event", event - EVENT0)  # the first thing seat 1 does this turn
    finish_ability(s)
    assert len(s.hands[1]) == need - 1
    choose_action(s, "water")  # no card comes back to the hand this turn
    end_turn(s)
    assert len(s.hands[1]) < need and s.leaves[0] == [1]


@pytest.mark.parametrize("how", ["pay_hand", "compost_hand", "event", "compost_discard", "convert"])
def test_an_objective_met_during_the_turn_is_claimed_even_when_a_later_step_of_that_turn_lowers_the_count(how):
    """Each way a count can fall mid-turn: paying with hand cards, composting from hand, playing an event (hand),
    discarding from the compost (compost), converting sprouts (flora with N sprouts). The count meets the
    objective exactly, then drops by one; nothing else the player does first could have noted it."""
    measure = {"compost_discard": "compost", "convert": "flora_sprouts_ge"}.get(how, "hand")
    action, colour = ("water", "blue") if how == "compost_discard" else ("compost", "red")
    s, need = fauna_state(measure)
    quiet(s)
    if how == "event":
        give(s, 1, next(c for c in s.deck if CAT.is_event[c] and not CAT.earth[c]["abilities"][0].get("cost")))
    elif how == "convert":
        side = CAT.fauna[s.fauna[0]]
        for k in range(need):  # need flora with enough sprouts; the first can lose 3 to a conversion
            put(s, 1, k, flora(lambda c: c["sprouts"] >= max(side["arg"], 3), skip=k),
                sprouts=max(side["arg"], 3) if k == 0 else side["arg"])
    else:
        pred = {"pay_hand": lambda a: (a.get("cost") or {}).get("hand_compost") == 1,
                "compost_hand": lambda a: not a.get("cost") and a["gain"] == [{"res": "compost_hand", "n": 1}],
                "compost_discard": lambda a: (a.get("cost") or {}).get("compost_discard") == 1}[how]

        def ok(a):
            return a["kind"] == "gain" and a["color"] == colour and not a.get("if_action") and pred(a)

        card = with_ability(ok)
        put(s, 1, 0, card, sprouts=CAT.earth[card]["sprouts"])  # full: the Watering row places nothing
        slot = next(k for k, a in enumerate(CAT.earth[card]["abilities"]) if ok(a))
    if measure in ("hand", "compost"):
        zone = s.compost[1] if measure == "compost" else s.hands[1]
        while len(zone) > need:
            s.discard.append(zone.pop(0))
            if measure == "compost":
                s.compost_known[1].pop(0)
        while len(zone) < need:
            zone.append(s.deck.pop())
            if measure == "compost":
                s.compost_known[1].append(False)

    def count():
        return scoring.measure(s, 1, measure, CAT.fauna[s.fauna[0]]["arg"])

    assert count() == need
    choose_action(s, action)
    if how in ("event", "convert"):  # at the first of its decisions where it may (activation or end-of-turn window)
        while s.current_player() != 1 or not legal(s, how):
            s.apply_action(s.legal_actions()[0])
        act(s, how, legal(s, how)[0])
    else:
        while s.decision() != "activate" or s.current_player() != 1:
            # (the full card's Watering placement is asked for the events that might free room: passed)
            s.apply_action(A(s, "pass") if s.decision() == "place" else s.legal_actions()[0])
        act(s, "activate", slot)
    while s.decision() in ("pay_hand", "compost_hand", "pay") and s.current_player() == 1:
        s.apply_action(s.legal_actions()[0])
    assert count() == need - 1
    end_turn(s)
    assert count() < need and s.leaves[0] == [1]


def after_every_step(monkeypatch, record, but=None):
    """Call ``record(state, seat)`` after every step of the engine (each decision and automatic task, and
    playing an event), for the seat the step was for; ``but``: a step left as it is."""
    from tabletop_envs.earth.engine import EarthState

    def wrap(name, orig):
        def step(self, *args):
            out = orig(self, *args)
            record(self, args[0] if name == "play_event" else args[0]["p"])
            return out
        return step

    for name in [n for n in vars(EarthState) if n.startswith(("_auto_", "_do_")) and n != but] + ["play_event"]:
        monkeypatch.setattr(EarthState, name, wrap(name, getattr(EarthState, name)))


def test_an_objective_met_during_the_turn_is_claimed_even_when_placing_a_sprout_later_that_turn_breaks_it():
    """"Have N flora with no growth and no sprouts", met exactly as the Watering turn begins: the active player's
    first sprout lowers the count, and the objective is still claimed at the end of that turn."""
    s, need = fauna_state("flora_bare")
    quiet(s)
    for k in range(need):
        put(s, 1, k, flora(lambda c: c["sprouts"] >= 1, skip=k))
    assert scoring.measure(s, 1, "flora_bare") == need
    choose_action(s, "water")
    assert (s.decision(), s.current_player()) == ("place", 1)
    act(s, "cell", 0)
    assert scoring.measure(s, 1, "flora_bare") == need - 1
    end_turn(s)
    assert scoring.measure(s, 1, "flora_bare") < need and s.leaves[0] == [1]


def test_every_objective_fulfilled_at_some_moment_of_a_turn_is_claimed_at_its_end_in_random_play(monkeypatch):
    """Brute force against the engine: after every single step (each decision and automatic task) each
    objective is checked; at the end of the turn exactly the seats that met one at some moment claim it,
    clockwise from the active player. Thresholds are cut (to 1/4, 1/2, 3/4 of the printed one by fauna space) so
    objectives come and go within turns."""
    from tabletop_envs.earth.engine import EarthState

    def easy(s, p, side):
        f = s.game.cat.fauna[side]
        return scoring.measure(s, p, f["measure"], f["arg"]) >= max(1, f["n"] * (1 + s.fauna.index(side)) // 4)

    monkeypatch.setattr(scoring, "fauna_met", easy)
    seen = [set() for _ in range(4)]
    transient = []

    def record(s, p):
        if p >= 0 and s.phase == "play":
            for slot, side in enumerate(s.fauna):
                if easy(s, p, side):
                    seen[slot].add(p)

    after_every_step(monkeypatch, record, but="_auto_fauna_check")
    check = EarthState._auto_fauna_check

    def fauna_check(self, task):
        before = [list(c) for c in self.leaves]
        order = self.order_from(self.active)
        want = [[q for q in order if q not in before[slot] and (q in seen[slot] or easy(self, q, side))]
                for slot, side in enumerate(self.fauna)]
        transient.extend(q for slot, side in enumerate(self.fauna) for q in want[slot] if not easy(self, q, side))
        check(self, task)
        assert [c[len(b):] for c, b in zip(self.leaves, before)] == want
        for x in seen:
            x.clear()

    monkeypatch.setattr(EarthState, "_auto_fauna_check", fauna_check)
    falling = [f["id"] for f in CAT.fauna if f["measure"] in ("soil", "compost", "hand", "flora_bare", "flora_full",
                                                               "flora_sprouts_ge", "flora_growth_ge")]
    for n in (2, 3, 4):
        for seed in range(4):
            s = game(n).new_initial_state(seed)
            s.fauna = [falling[(seed * 4 + n + k * 3) % len(falling)] for k in range(4)]  # counts that rise and fall
            random_play(s, np.random.default_rng(seed))
    assert transient  # some objectives were met only in the middle of a turn, and claimed


def test_every_objective_count_that_can_fall_during_a_turn_is_watched_so_a_fauna_met_at_any_moment_is_claimed(
        monkeypatch):
    """The engine looks at the fauna objectives only before a step that can lower a count of
    ``FALLING_MEASURES`` and at the end of the turn. A measure that falls but is missing there was claimed only
    if still met at the end (canopies fell when a growth was paid, and "4 different sprout counts in a line" when
    a sprout was placed). Every measure of the vocabulary is counted after every step of random play."""
    from tabletop_envs.earth.catalogue import CHOICE_ARG_MEASURES, INT_ARG_MEASURES, MEASURES
    from tabletop_envs.earth.engine import FALLING_MEASURES

    probes = [(m, a) for m in MEASURES for a in (CHOICE_ARG_MEASURES.get(m) or ((1, 2, 3) if m in INT_ARG_MEASURES
                                                                              else (None,)))]
    last: dict = {}
    fell: set = set()

    def record(s, p):
        if p < 0 or s.phase != "play":
            return
        for m, a in probes:
            now = scoring.measure(s, p, m, a)
            if now < last.get((p, m, a), -1):
                fell.add(m)
            last[p, m, a] = now

    after_every_step(monkeypatch, record)
    for n in (2, 3):
        for seed in range(3):
            last.clear()
            random_play(game(n).new_initial_state(seed), np.random.default_rng(seed))
    assert {"soil", "sprouts", "lines_diff_sprouts"} <= fell  # the probe sees counts fall
    assert fell <= FALLING_MEASURES, f"counts that fell but are not watched: {sorted(fell - FALLING_MEASURES)}"


def test_fauna_objectives_are_checked_after_the_end_of_turn_window_so_an_event_played_there_counts_that_turn():
    """RULES.md: the window comes before the fauna check. Seat 1 reaches a soil objective with an event it plays
    in the window of seat 0's turn, and claims it at the end of that turn (checked before the window, the event's
    soil would have counted only at the end of seat 1's own turn)."""
    s = at_action(2, p=0)
    quiet(s)
    empty_hands(s)
    side = fauna_named("Beaver")
    s.fauna = [side] + [f for f in s.fauna if CAT.fauna[f]["measure"] != "soil"][:3]
    e = free_event()
    (gain,) = CAT.earth[e]["abilities"][0]["gain"]
    assert gain["res"] == "soil" and "per" not in gain
    s.soil[1] = CAT.fauna[side]["n"] - gain["n"]
    give(s, 1, e)
    choose_action(s, "compost")
    act(s, "option", 1)  # seat 1 composts 2 from the deck instead of taking 2 soil
    while s.decision() != "window" or s.current_player() != 1:
        s.apply_action(A(s, "pass"))
    assert s.leaves[0] == [] and s.turns == 0
    act(s, "event", e - EVENT0)
    while s.turns == 0:  # (the window ends with the event: seat 1 holds no other card)
        s.apply_action(A(s, "pass"))
    assert s.leaves[0] == [1] and (s.active, s.decision()) == (1, "action")


def test_fauna_ties_on_the_same_turn_placed_clockwise_starting_with_the_active_player():
    s, need = fauna_state("soil")
    for q in range(3):
        s.soil[q] = need + 10
    choose_action(s, "water")
    end_turn(s)
    assert s.leaves[0] == [1, 2, 0]
    tiers = [scoring.score_breakdown(s, q)["8_fauna"] for q in (1, 2, 0)]
    assert tiers[0] >= 15 and tiers[1] >= 11 and tiers[2] >= 8 and tiers[0] > tiers[1] > tiers[2]


def test_normal_fauna_side_scores_15_11_8_6_5_vp_by_order_of_claim():
    s, need = fauna_state("soil", n=5)
    for q in range(5):
        s.soil[q] = need + 10
    choose_action(s, "water")
    end_turn(s)
    assert s.leaves == [[1, 2, 3, 4, 0], [], [], []] and s.bonus == -1
    assert [scoring.score_breakdown(s, q)["8_fauna"] for q in (1, 2, 3, 4, 0)] == [15, 11, 8, 6, 5]


def test_a_claimed_fauna_objective_cannot_be_lost():
    s, need = fauna_state("soil")
    s.soil[2] = need + 10
    choose_action(s, "water")
    end_turn(s)
    s.soil[2] = 0
    choose_action(s, "water")
    end_turn(s)
    assert s.leaves[0] == [2]


def test_beginner_fauna_side_gives_every_achiever_10_vp():
    s = at_action(2, p=0, fauna_side="beginner")
    s.leaves = [[0, 1], [], [], []]
    assert scoring.score_breakdown(s, 1)["8_fauna"] == 10 == scoring.score_breakdown(s, 0)["8_fauna"]


# ====================================================================== end of the game
def fill(s, p, n=16):
    cards = [c for c in s.deck if CAT.is_flora[c]][:n]
    for i, c in enumerate(cards):
        put(s, p, i, c)


def test_the_game_ends_at_the_end_of_the_round_in_which_a_player_completes_16_cards():
    s = at_action(3, p=0)
    fill(s, 1, 15)  # one card short of the 4x4 grid: the rounds go on
    for _ in range(3):
        choose_action(s, "water")
        end_turn(s)
    assert not s.end_triggered and not s.is_terminal() and s.rounds == 1 and s.active == 0
    s = at_action(3, p=0)
    fill(s, 1, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.end_triggered and not s.is_terminal() and s.active == 1
    choose_action(s, "water")
    end_turn(s)
    assert not s.is_terminal()
    choose_action(s, "water")
    end_turn(s)
    assert s.is_terminal() and s.turns == 3


def test_the_player_who_first_completes_their_tableau_takes_the_7_vp_bonus():
    s = at_action(2, p=0)
    fill(s, 1, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.bonus == 1
    assert scoring.score_breakdown(s, 1)["8_fauna"] - 7 == sum(
        scoring.FAUNA_TIERS[c.index(1)] for c in s.leaves if 1 in c)


def test_if_the_active_player_and_another_complete_on_the_same_turn_the_active_player_gets_the_bonus():
    s = at_action(3, p=1)
    fill(s, 0, 16)
    fill(s, 1, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.bonus == 1


def test_the_bonus_goes_clockwise_from_the_active_player_not_from_the_first_player():
    # in the second turn seat 1 is active and seat 0 the first player: both complete, seat 1 takes the bonus,
    # and of seats 0 and 2 (seat 1 not completing) seat 2, the closer clockwise to seat 1
    for completing, taker in (((0, 1), 1), ((0, 2), 2)):
        s = at_action(3, p=0)
        choose_action(s, "water")
        end_turn(s)
        assert (s.decision(), s.active, s.first) == ("action", 1, 0)
        for q in completing:
            fill(s, q, 16)
        choose_action(s, "water")
        end_turn(s)
        assert s.bonus == taker, completing


def test_if_several_non_active_players_complete_the_closest_clockwise_to_the_active_player_gets_it():
    s = at_action(4, p=1)
    fill(s, 0, 16)
    fill(s, 3, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.bonus == 3


def test_the_bonus_stays_with_the_first_completer_when_another_completes_later_in_the_last_round():
    s = at_action(2, p=0)
    fill(s, 0, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.bonus == 0 and not s.is_terminal()  # the last round goes on to seat 1
    fill(s, 1, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.is_terminal() and s.bonus == 0  # the later completer took the leaf off the first one


def test_the_game_ends_at_the_end_of_the_round_after_the_last_turns_end_of_turn_window_whose_events_still_count():
    """The last turn of the game is a whole turn: it ends with the end-of-turn window and the fauna check, and only
    then does the game end. Seat 0 draws Avalanche (+1 soil, 1 VP) with its Multi "draw 1" in the blue activation
    of seat 1's last turn, after its last other decision of the turn; played in the window, it brings seat 0 to
    the soil fauna's 21, claimed at that turn's end, and its VP is scored (a game ended without that window lost
    both)."""
    avalanche = 249
    assert (CAT.earth[avalanche]["vp"], CAT.earth[avalanche]["abilities"][0]) == (
        1, {"color": "black", "kind": "gain", "gain": [{"res": "soil", "n": 1}]})
    drawer = with_ability(lambda a: a == {"color": "multi", "kind": "gain", "gain": [{"res": "draw", "n": 1}]})
    beaver = next(f["id"] for f in CAT.fauna if f["measure"] == "soil")
    need = CAT.fauna[beaver]["n"]
    s = at_action(2, p=0)
    empty_hands(s)
    quiet(s)
    s.fauna[0] = beaver
    s.fauna[1:] = [f for f in s.fauna[1:] if f // 2 != beaver // 2][:3]
    while len(s.fauna) < 4:
        s.fauna.append(next(f["id"] for f in CAT.fauna if f["measure"] == "full_rows" and f["id"] not in s.fauna))
    put(s, 0, 0, drawer)
    fill(s, 1, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.end_triggered and (s.active, s.first, s.leaves[0]) == (1, 0, [])  # seat 1's turn is the last
    empty_hands(s)
    s.deck.append(take(s, avalanche))  # the top of the pile: the Multi's draw takes it
    s.soil[0] = need - 1
    choose_action(s, "water")
    while not (s.current_player() == 0 and s.decision() == "activate"):
        s.apply_action(A(s, "pass") if A(s, "pass") in s.legal_actions() else s.legal_actions()[0])
    act(s, "activate", 0)  # the Multi's draw 1 (cell 0), a blue ability this turn
    assert (s.hands[0], s.soil[0], s.decision(), s.current_player()) == ([avalanche], need - 1, "window", 0)
    act(s, "event", avalanche - EVENT0)  # the hand is empty now: the window closes, and the game ends
    assert s.is_terminal() and s.turns == 2
    assert s.events[0] == [avalanche] and s.soil[0] == need and s.leaves[0] == [0]
    steps = scoring.score_breakdown(s, 0)
    assert (steps["2_events"], steps["8_fauna"]) == (1, scoring.FAUNA_TIERS[0])


@pytest.mark.parametrize("seat", [0, 1])
def test_scoring_steps_1_to_8(seat):
    # either seat, each scored on its own area: mutants changing one step for seat 1 only (another seat's
    # sprouts, a negative event or a compost card left out, a tier lower) passed seat 0's case
    s = at_action(2, p=0)
    f = flora(lambda c: c["growth"] >= 2 and c["sprouts"] >= 2)
    put(s, seat, 0, f, sprouts=2, growth=CAT.earth[f]["growth"])
    g = flora(lambda c: c["growth"] >= 3, skip=1)
    put(s, seat, 1, g, growth=1)
    e, minus = event_card(lambda c: c["vp"] > 0), event_card(lambda c: c["vp"] < 0)
    s.events[seat] += [take(s, e), take(s, minus)]
    s.compost[seat].append(take(s, flora(lambda c: c["vp"] >= 3, skip=2)))  # step 1 leaves the compost out
    s.compost_known[seat].append(False)
    while len(s.compost[seat]) < 8:
        s.compost[seat].append(s.deck.pop())
        s.compost_known[seat].append(False)
    s.leaves = [[seat], [1 - seat, seat], [], []]
    s.bonus = seat
    eco = {e["name"]: e["id"] for e in CAT.ecosystems}
    s.public_eco = [eco["Atacama"], eco["Mekong Delta"]]  # VP by count of Trees 2:5; 3 VP per 4 growth
    s.eco[seat] = eco["Lapland"]  # the second card with the Trees table
    b = scoring.score_breakdown(s, seat)
    isl, cli = CAT.islands[s.island[seat]], CAT.climates[s.climate[seat]]
    assert b["1_base"] == isl["vp"] + cli["vp"] + CAT.earth[f]["vp"] + CAT.earth[g]["vp"]
    assert b["2_events"] == CAT.earth[e]["vp"] + CAT.earth[minus]["vp"]
    assert b["3_compost"] == len(s.compost[seat]) == 8
    assert b["4_sprouts"] == 2
    assert b["5_growth"] == CAT.earth[f]["canopy"] + 1
    assert b["6_terrain"] == 0
    # step 7 by hand: f and g are 2 Trees (Atacama 5); growth 3 + 1 = 4 is one set of 4 (Mekong Delta 3); the
    # personal ecosystem counts the same 2 Trees (Lapland 5), for its owner only.
    assert [CAT.earth[c]["type"] for c in (f, g)] == ["tree", "tree"] and CAT.earth[f]["growth"] == 3
    assert b["7_ecosystems"] == 5 + 3 + 5
    assert scoring.score_breakdown(s, seat, personal=False)["7_ecosystems"] == 5 + 3
    assert b["8_fauna"] == 15 + 11 + 7
    assert scoring.final_score(s, seat) == sum(b.values())


def test_ties_are_broken_by_soil_then_hand_then_growth_then_sprouts_then_compost(monkeypatch):
    s = at_action(2, p=0)
    monkeypatch.setattr(scoring, "final_score", lambda st, p: 100)  # equal VP: only tiebreakers decide
    f, g = flora(lambda c: c["growth"] >= 3 and c["sprouts"] >= 3, 0), flora(
        lambda c: c["growth"] >= 3 and c["sprouts"] >= 3, 1)
    for q, card in ((0, f), (1, g)):
        s.hands[q], s.compost[q], s.compost_known[q] = [], [], []
        s.soil[q] = 5
        put(s, q, 0, card, sprouts=1, growth=1)
    assert scoring.tiebreak_key(s, 0) == scoring.tiebreak_key(s, 1)
    tied = s.clone()
    tied._game_over()
    assert tied.scores == [100, 100] and tied.returns().tolist() == [0.0, 0.0]
    # each later tiebreaker is outweighed by every earlier one, in the ranking and in the rank reward
    steps = [("soil", lambda t, q: t.soil.__setitem__(q, 6)),
             ("hand", lambda t, q: t.hands[q].append(t.deck.pop())),
             ("growth", lambda t, q: t.gro[q].__setitem__(0, 2)),
             ("sprouts", lambda t, q: t.spr[q].__setitem__(0, 2)),
             ("compost", lambda t, q: (t.compost[q].append(t.deck.pop()), t.compost_known[q].append(False)))]
    for i, (_, bump) in enumerate(steps):
        t = s.clone()
        bump(t, 1)
        assert t.ranking()[0] == 1
        for _, later in steps[i + 1:]:
            later(t, 0)
        assert t.ranking()[0] == 1, f"tiebreaker {i} must outweigh the later ones"
        t._game_over()
        assert t.scores == [100, 100]
        assert t.returns().tolist() == t.standings().tolist() == [-1.0, 1.0], f"tiebreaker {i} in the returns"
    # growth and sprouts count over the whole tableau: a card in its last cell breaks the tie as well
    h = flora(lambda c: c["growth"] >= 3 and c["sprouts"] >= 3, 2)
    for growth, sprouts in ((1, 0), (0, 1)):
        t = s.clone()
        put(t, 1, 15, h, sprouts=sprouts, growth=growth)
        assert t.ranking()[0] == 1, ("growth", "sprouts")[sprouts]


def test_rank_reward_winner_plus_1_last_minus_1_and_ties_share_the_mean_zero_sum():
    s = at_action(3, p=0)
    s._game_over()
    s.scores = [50, 40, 30]
    keys = {0: (50,), 1: (40,), 2: (30,)}
    orig = scoring.tiebreak_key
    try:
        scoring.tiebreak_key = lambda st, p: keys[p]
        np.testing.assert_allclose(s.returns(), [1, 0, -1])
        keys[1] = (50,)
        np.testing.assert_allclose(s.returns(), [0.5, 0.5, -1])
        assert abs(s.returns().sum()) < 1e-12
    finally:
        scoring.tiebreak_key = orig


def test_vp_margin_reward_is_own_vp_minus_mean_of_the_others():
    s = at_action(3, p=0, reward="vp_margin")
    s._game_over()
    s.scores = [50, 40, 30]
    np.testing.assert_allclose(s.returns(), [15, 0, -15])
    # at two seats each one's margin over the other, the same for either seat (zero-sum)
    s = at_action(2, p=0, reward="vp_margin")
    s._game_over()
    s.scores = [40, 50]
    np.testing.assert_allclose(s.returns(), [-10, 10])


def test_solo_reward_is_the_final_vp():
    s = after_setup(1, 3)
    random_play(s)
    assert s.returns().tolist() == [float(scoring.final_score(s, 0))]
    assert game(1).zero_sum is False and game(2).zero_sum is True


def test_max_rounds_safety_ends_and_scores_a_game_that_cannot_finish():
    s = after_setup(2, 0, max_rounds=2)
    random_play(s)
    assert s.rounds <= 2 and s.is_terminal() and s.scores is not None


def test_bad_config_names_the_problem():
    with pytest.raises(ConfigError, match="1-5 players"):
        game(6)
    with pytest.raises(ConfigError, match="reward"):
        game(2, reward="money")


def test_max_rounds_true_is_a_config_error_not_a_one_round_game():
    # True is an int to Python: it used to end every game after its first round
    with pytest.raises(ConfigError, match="max_rounds must be a positive int, got True"):
        game(2, max_rounds=True)


def test_a_path_data_dir_is_recorded_as_json_text():
    import json
    from pathlib import Path

    from tabletop_envs.earth.catalogue import DATA

    # config() goes into replays and sidecars: a Path in it made saving them a TypeError
    config = game(2, data_dir=Path(DATA)).config()
    assert json.loads(json.dumps(config))["data_dir"] == str(DATA)


def test_illegal_action_raises_with_the_legal_ones():
    s = at_action(2, p=0)
    with pytest.raises(IllegalActionError, match="Legal actions"):
        act(s, "cell", 3)


# ====================================================================== ecosystems
def test_3_ecosystems_score_for_each_player_the_2_on_the_fauna_board_and_their_own():
    def side(name):
        return next(e["id"] for e in CAT.ecosystems if e["name"] == name)

    s = at_action(2, p=0)
    quiet(s)
    # by count of Trees / Mushrooms on the fauna board; Herbs is player 0's, Bushes player 1's
    s.public_eco = [side("Atacama"), side("Gobi")]
    s.eco = [side("Vatnajokull"), side("Yukon")]
    for q in range(2):
        cell = 0
        for kind, count in (("tree", 4), ("mushroom", 3), ("herb", 2), ("bush", 4)):
            for k in range(count):
                put(s, q, cell, flora(lambda c, kind=kind: c["type"] == kind, skip=2 * k + q))
                cell += 1
    table = CAT.ecosystems[side("Atacama")]["table"]  # the 4 count tables are the same
    assert [scoring.score_breakdown(s, q)["7_ecosystems"] for q in range(2)] == [
        table[4] + table[3] + table[2], table[4] + table[3] + table[4]]
    s.eco[0] = -1  # without a card on the player board only the 2 public ones score
    assert scoring.score_breakdown(s, 0)["7_ecosystems"] == table[4] + table[3]


def test_ecosystems_score_multiple_times_but_each_card_only_once_per_ecosystem():
    s = at_action(2, p=0)
    side = next(e["id"] for e in CAT.ecosystems if e["measure"] == "habitat" and e["per"] == 3)
    hab = CAT.ecosystems[side]["arg"]
    s.island[0] = next(i["id"] for i in CAT.islands if hab not in i["habitats"])
    s.climate[0] = next(c["id"] for c in CAT.climates if hab not in c["habitats"])
    cards = [c["id"] for c in CAT.earth if c["kind"] == "flora" and hab in c["habitats"]][:7]
    for i, c in enumerate(cards):
        put(s, 0, i, c)
    assert scoring.ecosystem_vp(s, 0, side) == CAT.ecosystems[side]["vp"] * 2  # 7 cards: 2 sets of 3, 1 left over


def test_an_ecosystem_scores_rows_or_columns_since_a_row_and_a_column_share_a_card():
    # "Once a card/component has been used to score an ecosystem card, it cannot be used again for
    # scoring on the same ecosystem card": every row crosses every column
    s = at_action(2, p=0)
    side = next(e["id"] for e in CAT.ecosystems if e["measure"] == "lines_same_type")
    trees = [c["id"] for c in CAT.earth if c["type"] == "tree"]
    for i in range(4):
        put(s, 0, i, trees[i])  # row 0
    for k, i in enumerate((4, 8, 12)):
        put(s, 0, i, trees[4 + k])  # column 0 with the row's first card
    vp = CAT.ecosystems[side]["vp"]
    assert scoring.ecosystem_vp(s, 0, side) == vp, "row 0 and column 0 share their corner card: one of them scores"
    for k, i in enumerate((5, 6, 7)):
        put(s, 0, i, trees[7 + k])  # row 1: two disjoint rows
    assert scoring.ecosystem_vp(s, 0, side) == 2 * vp


def test_an_ecosystem_of_rows_or_columns_never_scores_a_diagonal():
    """"Rows or columns of 4 ...": four Trees on a diagonal, with no full row or column, score nothing."""
    s = at_action(2, p=0)
    side = next(e["id"] for e in CAT.ecosystems if e["measure"] == "lines_same_type")
    trees = [c["id"] for c in CAT.earth if c["type"] == "tree"]
    for k, cell in enumerate((0, 5, 10, 15)):
        put(s, 0, cell, trees[k])
    assert scoring.measure(s, 0, "full_diagonals") == 1
    assert scoring.ecosystem_vp(s, 0, side) == 0


def test_type_count_table_ecosystem():
    s = at_action(2, p=0)
    side = next(e["id"] for e in CAT.ecosystems if e.get("table"))
    t = CAT.ecosystems[side]["arg"]
    for i, c in enumerate([c["id"] for c in CAT.earth if c["type"] == t][:4]):
        put(s, 0, i, c)
    assert scoring.ecosystem_vp(s, 0, side) == CAT.ecosystems[side]["table"][4] == 13


def test_joker_flora_counts_as_every_type():
    joker = next(c["id"] for c in CAT.earth if c["type"] == "joker")
    assert CAT.types_of[joker] == set(TYPES)
    s = at_action(2, p=0)
    put(s, 0, 0, joker)
    assert all(scoring.measure(s, 0, "type", t) == 1 for t in TYPES)


def test_joker_flora_counts_as_every_type_for_abilities_too_cost_reductions_and_terrain_scoring():
    """FAQ: jokers "count as every flora type, both for scoring and for abilities". Marsh Sprouts (cost 8) is a
    Tree and a Herb, so "Trees cost 2 less" and "Herbs cost 2 less" both lower it: 4 soil plant it. Beside a
    Northern Floodplain ("3 VP per Bush on the orthogonally adjacent cards") it is a Bush too. The type objectives
    were tested; a type filter of abilities and terrains that read the printed type ("joker") passed every test."""
    marsh = next(c["id"] for c in CAT.earth if c["name"] == "Marsh Sprouts")
    steppe, cliffs, floodplain = (next(c["id"] for c in CAT.earth if c["name"] == name)
                                  for name in ("Northern Steppe", "Northern Sea Cliffs", "Northern Floodplain"))
    assert CAT.earth[marsh]["cost"] == 8 and CAT.earth[marsh]["type"] == "joker"
    assert [CAT.earth[t]["abilities"][0].get("filter") for t in (steppe, cliffs)] == [{"type": "tree"}, {"type": "herb"}]
    s = at_action(2, p=0)
    quiet(s)
    empty_hands(s)
    put(s, 0, 0, steppe)
    put(s, 0, 1, cliffs)
    put(s, 0, 6, floodplain)
    give(s, 0, marsh)
    s.soil[0] = 4
    choose_action(s, "plant")
    assert legal(s, "plant") == [marsh]
    act(s, "plant", marsh)
    act(s, "cell", 2)
    assert s.grid[0][2] == marsh and s.soil[0] == 0
    assert scoring.score_breakdown(s, 0)["6_terrain"] == 3  # the joker, orthogonally beside the Floodplain, is a Bush


def test_island_and_climate_count_for_habitat_objectives():
    s = at_action(2, p=0)
    hab = CAT.islands[s.island[0]]["habitats"][0]
    before = scoring.measure(s, 0, "habitat", hab)
    assert before >= 1
    clear_tableau(s, 0)
    s.island[0] = next(i["id"] for i in CAT.islands if hab not in i["habitats"])
    assert scoring.measure(s, 0, "habitat", hab) == before - 1


def test_island_and_climate_ability_colours_count_for_colour_objectives():
    """"These cards can also count for ecosystem/fauna objectives": an island's and a climate's ability
    colours count for "N+ cards with a <colour> ability" objectives and ecosystems as a tableau card's do."""
    s = at_action(2, p=0)
    clear_tableau(s, 0)
    cards = (CAT.islands[s.island[0]], CAT.climates[s.climate[0]])
    colours = [a["color"] for rec in cards for a in rec["abilities"]]
    for col in set(colours):
        assert scoring.measure(s, 0, "color", col) == colours.count(col)
    s.island[0] = s.climate[0] = -1
    assert all(scoring.measure(s, 0, "color", col) == 0 for col in colours)


@pytest.mark.parametrize("seat", [0, 1])
def test_island_and_climate_cards_also_count_for_fauna_objectives_on_card_vp_and_sets(seat):
    # "These cards can also count for ecosystem/fauna objectives": an island and a climate worth >= 4 VP are two
    # of the "6+ cards worth at least 4 VP", and their ability colours are elements of a Red/Blue/Yellow set; for
    # either seat's (a mutant leaving seat 1's island and climate out of the VP counts passed seat 0's case)
    okapi = next(f["id"] for f in CAT.fauna if f["measure"] == "vp_ge")
    need, low = CAT.fauna[okapi]["n"], CAT.fauna[okapi]["arg"]
    s = at_action(2, p=0)
    s.fauna = [okapi] + [f for f in s.fauna if f != okapi][:3]
    s.island[seat] = next(i["id"] for i in CAT.islands if i["vp"] >= low)
    s.climate[seat] = next(c["id"] for c in CAT.climates if c["vp"] >= low)
    for cell, card in enumerate(flora(lambda c: c["vp"] >= low, skip=k) for k in range(need - 2)):
        put(s, seat, cell, card)
    choose_action(s, "water")
    end_turn(s)
    assert s.leaves[0] == [seat]
    # odd / even VP count the island and climate too
    odd = sum(v % 2 for v in (CAT.islands[s.island[seat]]["vp"], CAT.climates[s.climate[seat]]["vp"]))
    assert scoring.measure(s, seat, "vp_odd") == sum(CAT.earth[c]["vp"] % 2 for c in s.grid[seat] if c >= 0) + odd

    def only(colour):
        return lambda c: [a["color"] for a in c["abilities"]] == [colour]

    t = at_action(2, p=0)
    cards = [flora(only("red"), 0), flora(only("red"), 1), flora(only("blue"), 0), flora(only("blue"), 1),
             flora(only("yellow"), 0)]
    cards += [c["id"] for c in CAT.earth if c["kind"] == "terrain"
              and not {a["color"] for a in c["abilities"]} & {"red", "blue", "yellow", "multi"}][:2]
    for cell, card in enumerate(cards):
        put(t, 0, cell, card)
    t.events[0] += [take(t, event_card(lambda c, k=k: c["id"] == k)) for k in
                    [c["id"] for c in CAT.earth if c["kind"] == "event"][:2]]
    t.island[0] = next(i["id"] for i in CAT.islands if not {a["color"] for a in i["abilities"]}
                       & {"red", "blue", "yellow", "multi"})
    t.climate[0] = climate_where(lambda a: a["color"] == "red")
    assert scoring.measure(t, 0, "sets_rbyte") == 1  # only 1 Yellow card: one set
    t.climate[0] = climate_where(lambda a: a["color"] == "yellow")
    assert scoring.measure(t, 0, "sets_rbyte") == 2  # the climate's Yellow ability completes the second set


def plain_gain(colour, res, skip=0):
    """A flora whose only ability is an unconditional, free ``colour`` gain of ``res``."""
    return flora(lambda c: len(c["abilities"]) == 1 and c["abilities"][0]["color"] == colour
                 and c["abilities"][0]["kind"] == "gain" and not c["abilities"][0].get("cost")
                 and not c["abilities"][0].get("if_action")
                 and [g["res"] for g in c["abilities"][0]["gain"]] == [res]
                 and "per" not in c["abilities"][0]["gain"][0], skip)


def test_watering_all_players_activate_blue_abilities():
    s = at_action(2, p=0)
    quiet(s)
    blue, red = plain_gain("blue", "soil"), plain_gain("red", "soil")
    put(s, 1, 0, blue)
    put(s, 1, 1, red)
    choose_action(s, "water")
    act(s, "option", 1)  # player 1 takes 2 soil
    while s.current_player() == 0:  # the active player's own blue activation (its climate): skipped
        act(s, "pass")
    assert s.current_player() == 1 and s.decision() == "activate" and s.queue[0]["colour"] == "blue"
    assert legal(s, "activate") == [0]  # the blue card, not the red one
    soil = s.soil[1]
    act(s, "activate", 0)
    assert s.soil[1] == soil + CAT.earth[blue]["abilities"][0]["gain"][0]["n"]


def test_growing_all_players_activate_yellow_abilities():
    s = at_action(2, p=0)
    quiet(s)
    yellow, red = plain_gain("yellow", "draw"), plain_gain("red", "soil")
    put(s, 1, 0, red)
    put(s, 1, 1, yellow)
    choose_action(s, "grow")
    act(s, "option", 0)  # player 1 draws 2
    while s.current_player() == 0:  # the active player's own yellow activation (its island): skipped
        act(s, "pass")
    assert s.current_player() == 1 and s.decision() == "activate" and s.queue[0]["colour"] == "yellow"
    assert legal(s, "activate") == [2]  # the yellow card at cell 1, not the red one
    hand = len(s.hands[1])
    act(s, "activate", 2)
    assert len(s.hands[1]) == hand + CAT.earth[yellow]["abilities"][0]["gain"][0]["n"]


def test_if_deck_and_discard_are_both_empty_players_can_no_longer_compost_from_the_draw_pile():
    s = at_action(2, p=0)
    s.hands[1] += s.deck + s.discard
    s.deck, s.discard = [], []
    soil, compost = s.soil[0], [list(c) for c in s.compost]
    choose_action(s, "compost")
    assert s.soil[0] == soil + 5 and s.compost[0] == compost[0]  # the soil still comes, the 2 cards cannot
    assert s.current_player() == 1
    act(s, "option", 1)  # compost 2 from the (empty) draw pile
    assert s.compost[1] == compost[1]
    s.check_invariants()


def test_a_player_fulfilling_objectives_on_several_fauna_cards_in_one_turn_claims_each_of_them():
    s = at_action(3, p=1)
    soil_side = next(f["id"] for f in CAT.fauna if f["measure"] == "soil")
    hand_side = next(f["id"] for f in CAT.fauna if f["measure"] == "hand")
    rows_side = next(f["id"] for f in CAT.fauna if f["measure"] == "full_rows")
    cols_side = next(f["id"] for f in CAT.fauna if f["measure"] == "full_cols")
    s.fauna = [soil_side, hand_side, rows_side, cols_side]
    s.soil[2] = CAT.fauna[soil_side]["n"]
    give(s, 2, *s.deck[-CAT.fauna[hand_side]["n"]:])
    choose_action(s, "water")
    end_turn(s)
    assert s.leaves == [[2], [2], [], []]
    assert scoring.score_breakdown(s, 2)["8_fauna"] == 2 * scoring.FAUNA_TIERS[0]


def test_the_round_ends_with_the_player_before_the_first_player_whoever_completes_16_cards():
    # first player 1: a round is the turns of 1, 2, 0
    s = at_action(3, p=1)
    for active in (1, 2):
        assert not s.is_terminal() and s.active == active
        choose_action(s, "water")
        end_turn(s)
    assert s.active == 0 and s.first == 1
    fill(s, 2, 16)  # completed during the round's last turn (player 0's): the game ends with that turn
    choose_action(s, "water")
    end_turn(s)
    assert s.is_terminal() and s.turns == 3 and s.bonus == 2
    s = at_action(3, p=1)
    fill(s, 0, 16)  # completed during the first player's turn: players 2 and 0 still play theirs
    for active in (1, 2, 0):
        assert not s.is_terminal() and s.active == active
        choose_action(s, "water")
        end_turn(s)
    assert s.is_terminal() and s.turns == 3


def test_scoring_step_6_adds_the_end_game_bonus_of_every_terrain_in_the_tableau():
    def scorer(pred):
        return next(c["id"] for c in CAT.earth if c["kind"] == "terrain"
                    and any(a["kind"] == "score" and pred(a["score"]) for a in c["abilities"]))

    row = scorer(lambda sc: sc["pattern"] == "per_in_dir" and sc["dir"] == "row" and "type" in sc["filter"])
    per_row = next(a["score"] for a in CAT.earth[row]["abilities"] if a["kind"] == "score")
    res = scorer(lambda sc: sc["pattern"] == "per_resource" and sc["res"] == "soil")
    per_soil = next(a["score"] for a in CAT.earth[res]["abilities"] if a["kind"] == "score")
    s = at_action(2, p=0)
    put(s, 0, 0, row)
    put(s, 0, 1, flora(lambda c: c["type"] == per_row["filter"]["type"], 0))
    put(s, 0, 3, flora(lambda c: c["type"] == per_row["filter"]["type"], 1))
    put(s, 0, 4, flora(lambda c: c["type"] == per_row["filter"]["type"], 2))  # another row: does not count
    put(s, 0, 8, res)
    # a terrain whose end-game bonus is its second ability, in the tableau's last cell: "VP per terrain"
    cliffs = next(c["id"] for c in CAT.earth if c["kind"] == "terrain" and len(c["abilities"]) == 2
                  and c["abilities"][1]["kind"] == "score" and c["abilities"][1]["score"].get("dir") == "all"
                  and c["abilities"][1]["score"]["filter"] == {"kind": "terrain"})
    put(s, 0, 15, cliffs)
    s.soil[0] = 3 * per_soil["per"] + 1
    b = scoring.score_breakdown(s, 0)
    per_terrain = CAT.earth[cliffs]["abilities"][1]["score"]["vp"]
    assert b["6_terrain"] == 2 * per_row["vp"] + 3 * per_soil["vp"] + 3 * per_terrain  # 3 terrains
    assert scoring.final_score(s, 0) == sum(b.values())


def test_objectives_that_say_cards_count_terrain_too_those_that_say_flora_count_only_flora():
    # Okapi: "7+ cards worth at least 4 VP"; Pelican: "7+ flora with no growth and no sprouts"
    okapi, pelican = (next(f["id"] for f in CAT.fauna if f["name"] == name) for name in ("Okapi", "Pelican"))
    beaver, moose = (next(f["id"] for f in CAT.fauna if f["name"] == name) for name in ("Beaver", "Moose"))
    s = at_action(2, p=0)
    quiet(s)  # island and climate worth less than 4 VP
    empty_hands(s)
    s.fauna = [okapi, pelican, beaver, moose]
    terrains = [c["id"] for c in CAT.earth if c["kind"] == "terrain" and c["vp"] >= 4
                and all(a["kind"] == "gain" for a in c["abilities"])][:2]
    worth = [flora(lambda c: c["vp"] >= 4, skip=k) for k in range(5)]
    low = [flora(lambda c: c["vp"] < 4, skip=k) for k in range(2)]
    for cell, card in enumerate(terrains + worth + low[:1]):  # 2 terrains, 6 bare flora
        put(s, 0, cell, card)
    assert [CAT.fauna[f]["n"] for f in (okapi, pelican)] == [7, 7]
    choose_action(s, "compost")
    end_turn(s)
    assert s.leaves[0] == [0]  # 5 flora and 2 terrains are 7 cards
    assert s.leaves[1] == []  # 6 flora: the terrains are cards, not flora
    put(s, 0, 8, low[1])
    choose_action(s, "compost")
    end_turn(s)
    assert s.leaves[1] == [0]


def test_terrain_objectives_count_only_the_terrain_cards_of_the_tableau():
    """Narwhal "Have 4+ Terrain cards" and Masai Mara "3 VP each for Terrain cards" count terrain only."""
    narwhal = next(f for f in CAT.fauna if f["name"] == "Narwhal")
    mara = next(e for e in CAT.ecosystems if e["name"] == "Masai Mara")
    assert (narwhal["measure"], narwhal["n"], mara["measure"]) == ("terrain", 4, "terrain")
    s = at_action(2, p=0)
    terrains = [c["id"] for c in CAT.earth if c["kind"] == "terrain"][:4]
    for cell, card in enumerate(terrains[:3] + [flora(skip=k) for k in range(5)]):
        put(s, 0, cell, card)
    assert scoring.measure(s, 0, "terrain") == 3
    assert not scoring.fauna_met(s, 0, narwhal["id"])
    assert scoring.ecosystem_vp(s, 0, mara["id"]) == 3 * mara["vp"] // mara["per"]
    put(s, 0, 8, terrains[3])
    assert scoring.measure(s, 0, "terrain") == 4 and scoring.fauna_met(s, 0, narwhal["id"])


def test_cost_objectives_count_only_tableau_cards_since_island_and_climate_have_no_soil_cost():
    # "These cards can also count for ecosystem/fauna objectives" (island, climate): they count wherever they
    # carry what the objective looks at (VP, habitats, ability colours); they print no soil cost
    s = at_action(2, p=0)
    cheap_cards = [flora(lambda c: c["cost"] <= 3, skip=k) for k in range(3)]
    for cell, card in enumerate(cheap_cards):
        put(s, 0, cell, card)
    dear = flora(lambda c: c["cost"] >= 4)
    put(s, 0, 3, dear)
    assert scoring.measure(s, 0, "cost_le", 3) == 3 and scoring.measure(s, 0, "cost_ge", 4) == 1
    low_vp = sum(CAT.earth[c]["vp"] <= 3 for c in cheap_cards + [dear])
    low_vp += sum(card["vp"] <= 3 for card in (CAT.islands[s.island[0]], CAT.climates[s.climate[0]]))
    assert scoring.measure(s, 0, "vp_le", 3) == low_vp


def test_cost_objectives_read_a_cards_printed_cost_not_the_cost_a_reduction_lowered_when_it_was_planted():
    """Marsh Sprouts (cost 8, a joker: Tree and Herb) planted for 4 soil under "Trees cost 2 less" and "Herbs
    cost 2 less" still costs 8 for "N+ cards costing at least / at most X" (a reduction acts on the payment)."""
    marsh = next(c["id"] for c in CAT.earth if c["name"] == "Marsh Sprouts")
    steppe, cliffs = (next(c["id"] for c in CAT.earth if c["name"] == name)
                      for name in ("Northern Steppe", "Northern Sea Cliffs"))
    s = at_action(2, p=0)
    quiet(s)
    empty_hands(s)
    put(s, 0, 0, steppe)
    put(s, 0, 1, cliffs)
    give(s, 0, marsh)
    s.soil[0] = 4
    choose_action(s, "plant")
    act(s, "plant", marsh)
    act(s, "cell", 2)
    assert s.grid[0][2] == marsh and s.soil[0] == 0 and s.effective_cost(0, marsh) == 4
    printed = [CAT.earth[c]["cost"] for c in (steppe, cliffs, marsh)]
    assert scoring.measure(s, 0, "cost_ge", 8) == sum(v >= 8 for v in printed) >= 1
    assert scoring.measure(s, 0, "cost_le", 4) == sum(v <= 4 for v in printed)


def test_card_objectives_do_not_count_the_event_stack_only_the_sets_objective_names_events():
    # events "do not get added to your tableau": played events count only where an objective names them
    # ("N+ events played", the Red/Blue/Yellow/Terrain/Event sets), not as cards or black abilities
    s = at_action(2, p=0)
    put(s, 0, 0, with_ability(lambda a: a["color"] == "black"))
    odd = next(c["id"] for c in CAT.earth if c["kind"] == "event" and c["vp"] % 2)
    counts = (("color", "black"), ("vp_odd", None), ("vp_le", 3), ("events", None))

    def measured():
        return [scoring.measure(s, 0, m, arg) for m, arg in counts]

    black, vp_odd, vp_le, events = measured()
    assert black >= 1
    s.events[0].append(take(s, odd))
    assert measured() == [black, vp_odd, vp_le, events + 1]


# ====================================================================== objectives as printed on the cards
def fauna_named(name):
    return next(f["id"] for f in CAT.fauna if f["name"] == name)


def ecosystem_named(name):
    return next(e["id"] for e in CAT.ecosystems if e["name"] == name)


def claims_after_a_turn(s, side):
    """Seat 0 (active, at its action choice) plays a plain Composting turn with fauna ``side`` on the board:
    did it claim the objective at the end of the turn?"""
    s.fauna = [side] + [f for f in s.fauna if f != side][:3]
    s.leaves = [[] for _ in range(4)]
    choose_action(s, "compost")
    end_turn(s)
    return 0 in s.leaves[0]


def test_fauna_objectives_have_3_full_rows_3_full_columns_or_1_full_diagonal():
    # Red Panda: "Have 3+ full rows"; Snow Leopard: "Have 3+ full columns"; Pangolin: "Have 1+ full diagonals"
    # (the two corner-to-corner lines 0-5-10-15 and 3-6-9-12)
    sides = {m: next(f["id"] for f in CAT.fauna if f["measure"] == m) for m in ("full_rows", "full_cols",
                                                                               "full_diagonals")}
    assert [CAT.fauna[f]["n"] for f in sides.values()] == [3, 3, 1]
    diagonals = {0, 5, 10, 15, 3, 6, 9, 12}
    cards = [flora(lambda c: c["cost"] <= 9, skip=k) for k in range(16)]
    assert cards[0] == 0  # the catalogue's first card fills a cell like any other
    for gap in range(16):  # the whole tableau but one cell
        s = at_action(2, p=0)
        for cell in range(16):
            if cell != gap:
                put(s, 0, cell, cards[cell])
        assert [scoring.measure(s, 0, m) for m in sides] == [3, 3, 1 if gap in diagonals else 2], gap
    for diagonal in ([0, 5, 10, 15], [3, 6, 9, 12]):
        s = at_action(2, p=0)
        quiet(s)
        for cell in diagonal[:3]:
            put(s, 0, cell, cards[cell])
        assert not claims_after_a_turn(s, sides["full_diagonals"])  # 3 of its 4 cells
        put(s, 0, diagonal[3], cards[diagonal[3]])
        assert claims_after_a_turn(s, sides["full_diagonals"])  # one full diagonal, every other cell empty
        assert not claims_after_a_turn(s, sides["full_rows"]) and not claims_after_a_turn(s, sides["full_cols"])
    rows, cols = ([4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14, 15]), ([1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15])
    for lines, claimed in ((rows, "full_rows"), (cols, "full_cols")):
        s = at_action(2, p=0)
        quiet(s)
        for cell in lines[0] + lines[1] + lines[2][:3]:
            put(s, 0, cell, cards[cell])
        assert not any(claims_after_a_turn(s, f) for f in sides.values())  # 2 full lines and 3 cards
        put(s, 0, lines[2][3], cards[lines[2][3]])
        assert [claims_after_a_turn(s, f) for f in sides.values()] == [m == claimed for m in sides]


def test_ecosystem_5_vp_each_for_trees_on_your_longest_diagonal_path_max_25():
    # Sahel / Banff: "5 (6) VP each for Trees on your longest diagonal path (max 25)": a path of diagonal
    # steps between cards of the type, which may turn but never revisits a card
    sahel, banff = ecosystem_named("Sahel"), ecosystem_named("Banff")
    assert (CAT.ecosystems[sahel]["measure"], CAT.ecosystems[sahel]["arg"]) == ("diag_path_type", "tree")
    s = at_action(2, p=0)
    trees = iter(flora(lambda c: c["type"] == "tree", skip=k) for k in range(16))
    herb = flora(lambda c: c["type"] == "herb")

    def path():
        return scoring.measure(s, 0, "diag_path_type", "tree")

    assert scoring.ecosystem_vp(s, 0, sahel) == 0  # no tree, no path
    put(s, 0, 15, next(trees))
    assert scoring.ecosystem_vp(s, 0, sahel) == 5  # a lone tree is a path of 1
    for cell in (0, 5, 10):
        put(s, 0, cell, next(trees))
    put(s, 0, 3, next(trees))  # a tree off the path (its only diagonal neighbour, cell 6, is empty)
    put(s, 0, 1, next(trees))  # orthogonally next to a tree: not a diagonal step
    assert path() == 4 and scoring.ecosystem_vp(s, 0, sahel) == 4 * 5
    put(s, 0, 8, next(trees))
    put(s, 0, 13, next(trees))  # 0-5-8-13-10-15 turns twice: 6 trees; 0-5-10-15 and 8-13 alone are shorter
    assert path() == 6 and scoring.ecosystem_vp(s, 0, sahel) == 25 < 6 * 5  # at most 25
    put(s, 0, 13, herb)  # another type breaks the path: 0-5-10-15 (or 8-5-10-15) again
    assert path() == 4 and scoring.ecosystem_vp(s, 0, sahel) == 4 * 5
    for cell in (13, 2, 7):
        put(s, 0, cell, next(trees))
    # 2-7-10-13-8-5-0 (or -15): 7 trees, the longest path on one colour of the board's checkering
    assert path() == 7 and scoring.ecosystem_vp(s, 0, sahel) == 25
    assert scoring.ecosystem_vp(s, 0, banff) == 25 < 7 * 6  # 6 VP each, still at most 25


def test_type_count_table_ecosystem_scores_29_for_7_or_more_cards_and_2_for_1():
    # Atacama: "VP by count of Trees: 1:2, 2:5, 3:9, 4:13, 5:18, 6:24, 7:29+"
    atacama = ecosystem_named("Atacama")
    s = at_action(2, p=0)
    quiet(s)
    vps = []
    for k in range(9):
        vps.append(scoring.ecosystem_vp(s, 0, atacama))
        put(s, 0, k, flora(lambda c: c["type"] == "tree", skip=k))
    vps.append(scoring.ecosystem_vp(s, 0, atacama))
    assert vps == [0, 2, 5, 9, 13, 18, 24, 29, 29, 29]


def test_island_and_climate_cards_can_also_count_for_objectives_whichever_card_and_side_was_dealt():
    # "These cards can also count for ecosystem/fauna objectives" (island, climate): every side, the first of
    # the catalogue included, counts its habitats and its VP
    s = at_action(2, p=0)
    clear_tableau(s, 0)
    for isl in range(len(CAT.islands)):
        for cli in range(len(CAT.climates)):
            s.island[0], s.climate[0] = isl, cli
            habitats = CAT.islands[isl]["habitats"] + CAT.climates[cli]["habitats"]
            for hab in ("sunny", "wet", "rocky", "cold"):
                assert scoring.measure(s, 0, "habitat", hab) == habitats.count(hab)
            assert scoring.score_breakdown(s, 0)["1_base"] == CAT.islands[isl]["vp"] + CAT.climates[cli]["vp"]


def colours(*want):
    """A non-joker flora whose abilities have exactly these colours, in this order."""
    return lambda c: [a["color"] for a in c["abilities"]] == list(want)


def test_ecosystem_7_vp_each_for_rows_or_columns_of_4_cards_sharing_one_ability_colour():
    # Chihuahuan: "7 VP each for rows/columns of 4 cards sharing one ability colour"
    chihuahuan = ecosystem_named("Chihuahuan")
    vp = CAT.ecosystems[chihuahuan]["vp"]
    assert vp == 7
    s = at_action(2, p=0)
    row = [flora(colours("red"), 0), flora(colours("red", "blue"), 0), flora(colours("yellow", "red"), 0),
           flora(colours("red"), 1)]
    for cell, card in enumerate(row):
        put(s, 0, cell, card)
    assert scoring.ecosystem_vp(s, 0, chihuahuan) == vp  # all 4 have a Red ability
    put(s, 0, 3, flora(colours("blue"), 0))  # Red, Red/Blue, Yellow/Red, Blue: no colour on all 4
    assert scoring.ecosystem_vp(s, 0, chihuahuan) == 0
    for cell, card in zip((3, 7, 11, 15), [flora(colours("blue"), 1), flora(colours("yellow", "blue"), 0),
                                           flora(colours("blue"), 2)]):
        put(s, 0, cell, card)
    assert scoring.ecosystem_vp(s, 0, chihuahuan) == 0  # column 3 has 3 cards only
    put(s, 0, 15, flora(colours("red", "blue"), 1))
    assert scoring.ecosystem_vp(s, 0, chihuahuan) == vp  # column 3: all Blue
    for k, cell in enumerate((4, 8, 12)):
        put(s, 0, cell, flora(colours("red"), 2 + k))
    assert scoring.ecosystem_vp(s, 0, chihuahuan) == 2 * vp  # column 0 (all Red) scores it again


def test_ecosystem_7_vp_each_for_rows_or_columns_of_4_different_types():
    # Kakadu: "7 VP each for rows/columns of 4 different types"; a joker is whichever type is missing,
    # a terrain has no type
    kakadu = ecosystem_named("Kakadu")
    vp = CAT.ecosystems[kakadu]["vp"]
    assert vp == 7
    joker = next(c["id"] for c in CAT.earth if c["type"] == "joker")
    terrain = next(c["id"] for c in CAT.earth if c["kind"] == "terrain")
    s = at_action(2, p=0)

    def of(t, k=0):
        return flora(lambda c: c["type"] == t, skip=k)

    for cell, t in zip((0, 4, 8, 12), ("tree", "herb", "mushroom", "bush")):
        put(s, 0, cell, of(t))
    assert scoring.ecosystem_vp(s, 0, kakadu) == vp  # column 0
    put(s, 0, 12, of("herb", 1))
    assert scoring.ecosystem_vp(s, 0, kakadu) == 0  # two herbs
    put(s, 0, 12, joker)
    assert scoring.ecosystem_vp(s, 0, kakadu) == vp  # the joker is the bush
    put(s, 0, 12, terrain)
    assert scoring.ecosystem_vp(s, 0, kakadu) == 0


@pytest.mark.parametrize("what", ["sprouts", "growth"])
def test_ecosystem_rows_or_columns_of_4_flora_with_4_different_sprout_or_growth_counts(what):
    # Kamchatka: "8 VP each for rows/columns of 4 flora with 4 different sprout counts"; Altai: "8 VP each for
    # rows/columns of 4 flora with 4 different growth counts" (0 is a count; a terrain is not a flora)
    side = ecosystem_named("Kamchatka" if what == "sprouts" else "Altai")
    vp = CAT.ecosystems[side]["vp"]
    terrain = next(c["id"] for c in CAT.earth if c["kind"] == "terrain")
    big = [flora(lambda c: c["sprouts"] >= 4 and c["growth"] >= 4, skip=k) for k in range(5)]
    s = at_action(2, p=0)
    for k, cell in enumerate((1, 5, 9, 13)):  # column 1 with 0, 1, 2, 3 pieces
        put(s, 0, cell, big[k], **{what: k})
    assert scoring.ecosystem_vp(s, 0, side) == vp
    pieces = s.spr[0] if what == "sprouts" else s.gro[0]
    pieces[13] = 2
    assert scoring.ecosystem_vp(s, 0, side) == 0  # two flora with 2
    pieces[13] = 4
    other = s.gro[0] if what == "sprouts" else s.spr[0]
    other[1], other[5], other[9], other[13] = 1, 1, 1, 1  # the other kind of piece does not matter
    assert scoring.ecosystem_vp(s, 0, side) == vp
    put(s, 0, 1, terrain)  # a terrain (no pieces) with flora showing 1, 2, 4: not 4 flora
    assert scoring.ecosystem_vp(s, 0, side) == 0


def test_fauna_objective_have_4_flora_with_a_geographic_word_in_the_name():
    # Capybara: "Have 4+ flora with a geographic word in the name"
    capybara = fauna_named("Capybara")
    tag = CAT.fauna[capybara]["arg"]
    tagged = [c["id"] for c in CAT.earth if c["kind"] == "flora" and tag in c["tags"]]
    other = [c["id"] for c in CAT.earth if c["kind"] == "flora" and c["tags"] and tag not in c["tags"]]
    s = at_action(2, p=0)
    quiet(s)
    assert CAT.fauna[capybara]["n"] == 4
    for cell, card in enumerate(tagged[:3] + other[:3]):
        put(s, 0, cell, card)
    assert not claims_after_a_turn(s, capybara)  # 3 geographic names, 3 with other words
    put(s, 0, 6, tagged[3])
    assert claims_after_a_turn(s, capybara)


def test_fauna_objective_have_7_flora_with_no_growth_and_no_sprouts():
    # Pelican: a flora holding only growth, or only sprouts, is not bare (no test held a flora with one kind)
    pelican = fauna_named("Pelican")
    n = CAT.fauna[pelican]["n"]
    assert CAT.fauna[pelican]["measure"] == "flora_bare" and n == 7
    roomy = [flora(lambda c: c["sprouts"] >= 1 and c["growth"] >= 2, skip=k) for k in range(n)]
    for piece in ("growth", "sprouts", None):
        s = at_action(2, p=0)
        quiet(s)
        for cell, card in enumerate(roomy):
            put(s, 0, cell, card, **({piece: 1} if piece and cell == 3 else {}))
        assert claims_after_a_turn(s, pelican) == (piece is None), piece


@pytest.mark.parametrize("name", ["Snowy Owl", "Red Fox", "Chamois"])
def test_fauna_objectives_have_n_flora_with_at_least_k_growth_count_a_flora_holding_exactly_k(name):
    # Snowy Owl: "Have 3+ flora with at least 3 growth"; Red Fox: "6+ ... at least 1"; Chamois: "5+ ... at least 2"
    side = fauna_named(name)
    k, n = CAT.fauna[side]["arg"], CAT.fauna[side]["n"]
    assert CAT.fauna[side]["measure"] == "flora_growth_ge"
    tall = [flora(lambda c: c["growth"] >= k + 1, skip=j) for j in range(n)]
    for short in (True, False):
        s = at_action(2, p=0)
        quiet(s)
        for cell, card in enumerate(tall):
            put(s, 0, cell, card, growth=k - (short and cell == 0))
        assert claims_after_a_turn(s, side) != short, short


def test_fauna_objective_have_5_flora_with_6_sprout_spaces():
    # Macaw: "Have 5+ flora with 6 sprout spaces": exactly 6, whatever sits on them
    macaw = fauna_named("Macaw")
    assert CAT.fauna[macaw]["n"] == 5
    six = [flora(lambda c: c["sprouts"] == 6, skip=k) for k in range(5)]
    five = flora(lambda c: c["sprouts"] == 5)
    s = at_action(2, p=0)
    quiet(s)
    for cell, card in enumerate(six[:4] + [five]):
        put(s, 0, cell, card)
    assert not claims_after_a_turn(s, macaw)
    put(s, 0, 5, six[4], sprouts=6)
    assert claims_after_a_turn(s, macaw)


def test_fauna_objective_have_11_cards_with_even_vp():
    # Walrus: "Have 11+ cards with even VP": 0 is even; the island and climate count too
    walrus = fauna_named("Walrus")
    need = CAT.fauna[walrus]["n"]
    assert need == 11
    s = at_action(2, p=0)
    quiet(s)
    even_area = sum(card["vp"] % 2 == 0 for card in (CAT.islands[s.island[0]], CAT.climates[s.climate[0]]))
    even = [flora(lambda c: c["vp"] % 2 == 0 and c["vp"] > 0, skip=k) for k in range(need)]
    zero = flora(lambda c: c["vp"] == 0)
    odd = [flora(lambda c: c["vp"] % 2 == 1, skip=k) for k in range(3)]
    cards = [zero] + even[:need - even_area - 2] + odd
    for cell, card in enumerate(cards):
        put(s, 0, cell, card)
    assert scoring.measure(s, 0, "vp_even") == need - 1 and scoring.measure(s, 0, "vp_odd") == 3 + 2 - even_area
    assert not claims_after_a_turn(s, walrus)
    put(s, 0, len(cards), even[-1])
    assert claims_after_a_turn(s, walrus)


def test_ecosystem_5_vp_per_2_filled_canopies_including_flora_with_only_a_canopy():
    # Congo Basin: "5 VP per 2 filled canopies"; "Flora with a maximum growth of 1 will only have a canopy"
    congo = ecosystem_named("Congo Basin")
    vp = CAT.ecosystems[congo]["vp"]
    one = flora(lambda c: c["growth"] == 1)
    tall = flora(lambda c: c["growth"] >= 3)
    bare = flora(lambda c: c["growth"] == 0)
    s = at_action(2, p=0)
    put(s, 0, 0, one)
    put(s, 0, 1, tall, growth=CAT.earth[tall]["growth"] - 1)  # trunks only
    put(s, 0, 2, bare)  # no growth space: never a canopy
    assert scoring.ecosystem_vp(s, 0, congo) == 0
    choose_action(s, "grow")
    act(s, "cell", 0)  # the single piece on the max-growth-1 flora is its canopy
    assert scoring.measure(s, 0, "canopies") == 1 and scoring.ecosystem_vp(s, 0, congo) == 0  # 1 of a pair
    act(s, "cell", 1)  # the last piece on the tall one
    assert CAT.ecosystems[congo]["per"] == 2 and scoring.ecosystem_vp(s, 0, congo) == vp


def test_scoring_step_5_the_single_piece_of_a_flora_with_maximum_growth_1_is_a_canopy_and_scores_canopy_vp():
    # "Add 1 VP per trunk ..., unless the canopy has been placed, in which case you score the canopy VP";
    # "Flora with a maximum growth of 1 will only have a canopy"
    s = at_action(2, p=0)
    ones = [c["id"] for c in CAT.earth if c["kind"] == "flora" and c["growth"] == 1]
    assert {CAT.earth[c]["canopy"] for c in ones} - {1}, "some of them print a canopy worth more than 1 VP"
    for one in ones:
        put(s, 0, 0, one)
        assert scoring.score_breakdown(s, 0)["5_growth"] == 0
        s.gro[0][0] = 1
        assert scoring.score_breakdown(s, 0)["5_growth"] == CAT.earth[one]["canopy"], CAT.earth[one]["name"]


def test_terrain_3_vp_per_tree_on_the_orthogonally_adjacent_cards_whichever_trees_they_are():
    # Northern Tundra: "end of game: 3 VP per Tree on the orthogonally adjacent cards", for every tree of the deck
    tundra = next(c["id"] for c in CAT.earth if c["name"] == "Northern Tundra")
    score = next(a["score"] for a in CAT.earth[tundra]["abilities"] if a["kind"] == "score")
    assert (score["dir"], score["filter"], score["vp"]) == ("orth", {"type": "tree"}, 3)
    s = at_action(2, p=0)
    quiet(s)
    put(s, 0, 5, tundra)
    put(s, 0, 10, next(c["id"] for c in CAT.earth if c["type"] == "joker"))  # a Tree diagonally: does not count
    for tree in [c["id"] for c in CAT.earth if c["type"] == "tree"]:
        put(s, 0, 6, tree)
        assert scoring.score_breakdown(s, 0)["6_terrain"] == 3, CAT.earth[tree]["name"]


def test_your_own_ecosystem_card_scores_for_you_whichever_card_and_side_you_chose():
    # "There will be 3 ecosystem cards in play ... 2 on the fauna board and 1 on your player board"; "you may
    # choose either side": every side, the first of the catalogue included, adds its VP to its owner's step 7
    s = at_action(2, p=0)
    for cell in range(12):  # 3 of each type, pieces, resources: most objectives score something
        kind = TYPES[cell % 4]
        put(s, 0, cell, flora(lambda c, kind=kind: c["type"] == kind and c["sprouts"] >= 3 and c["growth"] >= 2,
                              skip=cell // 4), sprouts=cell % 4, growth=1 + cell % 2)
    s.soil[0] = 7
    public = scoring.score_breakdown(s, 0, personal=False)["7_ecosystems"]
    scored = 0
    for side in range(len(CAT.ecosystems)):
        s.eco[0] = side
        vp = scoring.ecosystem_vp(s, 0, side)
        assert scoring.score_breakdown(s, 0)["7_ecosystems"] == public + vp, CAT.ecosystems[side]["name"]
        scored += vp > 0
    assert scoring.ecosystem_vp(s, 0, 0) > 0 and scored > len(CAT.ecosystems) // 2


def test_you_can_activate_your_island_and_then_your_climate_whichever_cards_you_were_dealt():
    # "You can activate your Island and then your Climate either before or after your tableau's activation": the
    # gain ability of every island and climate side is offered when its colour is activated (costs payable)
    colour_action = {"green": "plant", "red": "compost", "blue": "water", "yellow": "grow", "multi": "compost"}
    for what, cards, slot0 in (("island", CAT.islands, ISLAND_SLOT), ("climate", CAT.climates, CLIMATE_SLOT)):
        for side, card in enumerate(cards):
            for k, a in enumerate(card["abilities"]):
                if a["kind"] != "gain":
                    continue
                s = at_action(2, p=0)
                quiet(s)
                (s.island if what == "island" else s.climate)[0] = side
                # enough of everything an island or climate cost names: soil, sprouts, growth, hand, compost
                put(s, 0, 0, flora(lambda c: c["sprouts"] >= 4 and c["growth"] >= 3), sprouts=4, growth=2)
                s.soil[0] = 20
                give(s, 0, *s.deck[-4:])
                s.compost[0] += [s.deck.pop() for _ in range(4)]
                s.compost_known[0] += [False] * 4
                choose_action(s, colour_action[a["color"]])
                while (s.decision(), s.current_player()) != ("activate", 0):
                    plain_step(s)
                assert slot0 + k in legal(s, "activate"), (what, card["name"], a)


def test_abilities_in_the_tableau_that_match_the_colour_of_the_action_can_be_activated_on_every_card():
    # "After an action is taken, all players may activate any abilities in their tableau that match the color of
    # the action" (multicoloured ones on Red, Blue and Yellow): every such ability of the deck, a batch of cards at
    # a time, with enough of everything to pay any cost
    colour_action = {"green": "plant", "red": "compost", "blue": "water", "yellow": "grow"}
    store = flora(lambda c: c["sprouts"] >= 4 and c["growth"] >= 3 and not c["abilities"][0]["color"] == "black")
    for colour, action in colour_action.items():
        abilities = [(c["id"], k) for c in CAT.earth if c["kind"] != "event" and c["id"] != store
                     and not any(a["kind"] == "forbid_action" for a in c["abilities"])
                     for k, a in enumerate(c["abilities"]) if a["kind"] == "gain"
                     and (a["color"] == colour or (a["color"] == "multi" and colour != "green"))]
        cards = list(dict.fromkeys(c for c, _ in abilities))
        assert len(cards) >= 16
        for start in range(0, len(cards), 15):
            batch = cards[start:start + 15]
            s = at_action(2, p=0)
            quiet(s)
            # the store lies in the last cell, then in the first: each cell holds a batch's card in some batch
            store_cell = 15 if start % 30 == 0 else 0
            cells = [cell for cell in range(16) if cell != store_cell][-len(batch):]
            put(s, 0, store_cell, store, sprouts=4, growth=2)
            for cell, card in zip(cells, batch):
                put(s, 0, cell, card)
            s.soil[0] = 20
            give(s, 0, *s.deck[-4:])
            s.compost[0] += [s.deck.pop() for _ in range(4)]
            s.compost_known[0] += [False] * 4
            choose_action(s, action)
            while (s.decision(), s.current_player()) != ("activate", 0):
                plain_step(s)
            offered = legal(s, "activate")
            for card, k in abilities:
                if card in batch:
                    assert cells[batch.index(card)] * 2 + k in offered, (colour, CAT.earth[card]["name"])


def test_longest_path_stops_at_a_path_through_its_whole_component():
    # a 'longest_path' terrain (Southern Meadow, Southern Gorge) scores the longest simple path through
    # its cell; the search enumerated every simple path of the matching cells from every cell, ~11 ms per
    # terrain on a full grid, paid for each seat at the game's end and again by each returns()/standings()
    # call (a custom catalogue's tableau can hold 16 such terrains). A path that visits its whole connected
    # component cannot be beaten: the search stops there. The steps looked up are counted, not timed.
    class Counting(list):
        lookups = 0

        def __getitem__(self, i):
            Counting.lookups += 1
            return list.__getitem__(self, i)

    orth = Counting(scoring.DIR_CELLS["orth"])
    assert scoring._longest_path([True] * 16, orth, start=5) == 16
    assert scoring._longest_path([True] * 16, orth) == 16
    assert Counting.lookups < 1000  # over a million before
    # the same lengths as the full enumeration where no path covers the component: a plus sign (5 cells,
    # longest 3) and two separate pieces
    plus = [c in (1, 4, 5, 6, 9) for c in range(16)]
    assert scoring._longest_path(plus, scoring.DIR_CELLS["orth"], start=5) == 3
    assert scoring._longest_path(plus, scoring.DIR_CELLS["orth"], start=1) == 3
    assert scoring._longest_path(plus, scoring.DIR_CELLS["orth"]) == 3
    pieces = [c in (0, 1, 2, 3, 12, 13) for c in range(16)]
    assert scoring._longest_path(pieces, scoring.DIR_CELLS["orth"], start=13) == 2
    assert scoring._longest_path(pieces, scoring.DIR_CELLS["orth"]) == 4
    assert scoring._longest_path(pieces, scoring.DIR_CELLS["orth"], start=7) == 0


def test_max_rounds_beyond_the_default_turn_cut_still_ends_and_scores_the_game_not_a_truncation():
    # at 5 players max_rounds=201 is 1,005 player turns: the env's default cut at 1,000 ended such a game
    # with reward 0 before the rounds the option sets
    from tabletop_envs.earth_v0 import env as make_env

    e = make_env(num_players=5, max_rounds=201)
    assert e.unwrapped.max_turns == 1005 and game(5, max_rounds=201).default_max_turns == 1005
    assert game(2, max_rounds=100).default_max_turns == 1000
    e.reset(seed=0)
    e.unwrapped.game_state.turns = 1000  # 200 rounds played: the last round's 5 turns pass the default cut
    e.unwrapped.game_state.rounds = 200
    e.unwrapped.game_state.end_triggered = False
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert not trunc
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.unwrapped.game_state.is_terminal() and e.unwrapped.game_state.scores is not None
    assert (e.unwrapped.game_state.rounds, e.unwrapped.game_state.turns) == (201, 1005)


def test_growth_cannot_be_placed_in_a_personal_supply_so_growth_lost_this_turn_never_comes_back():
    s = at_action(2, p=0)
    quiet(s)
    put(s, 0, 0, flora(lambda c: c["growth"] == 1))
    choose_action(s, "grow")
    act(s, "cell", 0)
    act(s, "pass")  # the second growth has nowhere to go
    assert (s.current_player(), s.decision()) == (1, "option")
    act(s, "option", 1)  # seat 1 has no flora: both growth are lost at once
    while not (s.decision() == "action" and s.active == 1):
        plain_step(s)
    # room for 4 growth each now: a growth kept from last turn would make a third placement legal
    put(s, 0, 1, grow_flora(4))
    put(s, 1, 0, grow_flora(4, 1))
    choose_action(s, "grow")
    act(s, "cell", 0)
    act(s, "cell", 0)
    assert s.gro[1][0] == 2 and not (s.current_player() == 1 and s.decision() == "place" and legal(s, "cell"))
    while s.current_player() == 1 and s.decision() == "place":
        act(s, "pass")
    assert (s.current_player(), s.decision()) == (0, "option")
    act(s, "option", 1)
    act(s, "cell", 1)
    act(s, "cell", 1)
    assert s.gro[0][1] == 2 and not (s.current_player() == 0 and s.decision() == "place" and legal(s, "cell"))


def test_at_the_beginning_of_the_game_you_choose_the_side_of_each_card_to_use_and_either_side_is_kept():
    # each of the three cards on each side: a choice overridden for one card (one side always) would show
    for k in (0, 1):
        s = game(2).new_initial_state(0)
        p = s.current_player()
        for what, chosen in (("island", s.island), ("climate", s.climate), ("ecosystem", s.eco)):
            card = s.offers[what][p][0]
            act(s, "side_" + what, 2 * card + k)
            assert chosen[p] == 2 * card + k
        while s.phase == "setup":
            s.apply_action(s.legal_actions()[0])
        assert (s.island[p] % 2, s.climate[p] % 2, s.eco[p] % 2) == (k, k, k)
        assert s.soil[p] == CAT.islands[s.island[p]]["soil"]  # the chosen side's starting soil


def test_a_standard_game_has_3_ecosystem_cards_in_play_2_on_the_fauna_board_and_1_on_each_players_board():
    for n, seed in ((2, 0), (3, 1), (5, 2)):
        s = after_setup(n, seed)
        assert len(s.public_eco) == 2 and all(e >= 0 for e in s.eco)
        # no player's own card is one of the fauna board's, nor another player's
        cards = [e // 2 for e in s.public_eco] + [e // 2 for e in s.eco]
        assert len(set(cards)) == len(cards) == 2 + n
        random_play(s, np.random.default_rng(seed))
        for p in range(n):
            # the 3 ecosystems that score for p: the board's 2, then p's own
            assert scoring.score_breakdown(s, p)["7_ecosystems"] == sum(
                scoring.ecosystem_vp(s, p, e) for e in (*s.public_eco, s.eco[p]))


def test_fauna_ties_on_the_same_turn_are_placed_clockwise_from_the_active_player_not_from_the_first_player():
    s, need = fauna_state("soil")
    s.soil = [0, 0, 0]
    choose_action(s, "water")
    end_turn(s)  # seat 1, the first player, has had its turn: seat 2 is active
    assert (s.first, s.active, s.leaves[0]) == (1, 2, [])
    s.soil = [need + 10] * 3
    choose_action(s, "water")
    end_turn(s)
    assert s.leaves[0] == [2, 0, 1]
    assert [scoring.score_breakdown(s, q)["8_fauna"] for q in (2, 0, 1)] == [15, 11, 8]


def test_a_claimed_fauna_objective_cannot_be_lost_its_leaf_still_scores_when_the_objective_is_no_longer_met():
    s, need = fauna_state("soil")
    s.soil[2] = need + 10
    choose_action(s, "water")
    end_turn(s)
    assert s.leaves[0] == [2]
    s.soil[2] = 0
    assert not scoring.fauna_met(s, 2, s.fauna[0])
    s.end_triggered = True  # the game ends with this round
    while not s.is_terminal():  # the objective stays unmet to the end of the game (no soil for seat 2)
        s.soil[2] = 0
        end_turn(s)
    assert s.leaves[0][0] == 2 and scoring.score_breakdown(s, 2)["8_fauna"] >= 15


@pytest.mark.parametrize("seat", [0, 1])
def test_island_and_climate_cards_also_count_for_objectives_on_ability_colours_and_red_blue_yellow_sets(seat):
    # "These cards can also count for ecosystem/fauna objectives", said of the island and of the climate: the
    # colour of each one's abilities counts for the colour objectives and is an element of a set; either seat's
    # (a mutant leaving seat 1's events out of its sets passed seat 0's case)
    s = at_action(2, p=0)
    clear_tableau(s, seat)
    s.events[seat] = []
    for isl in range(len(CAT.islands)):
        for cli in range(len(CAT.climates)):
            s.island[seat], s.climate[seat] = isl, cli
            shown = [a["color"] for a in CAT.islands[isl]["abilities"] + CAT.climates[cli]["abilities"]]
            for col in ("red", "blue", "yellow", "green", "multi", "black", "brown"):
                assert scoring.measure(s, seat, "color", col) == shown.count(col)
    # Red from the island, Blue from the climate, Yellow, Terrain and Event from the rest: one whole set
    s.island[seat] = island_where(lambda a: a["color"] == "red")
    s.climate[seat] = climate_where(lambda a: a["color"] == "blue")
    put(s, seat, 0, flora(colours("yellow")))
    put(s, seat, 1, next(c["id"] for c in CAT.earth if c["kind"] == "terrain"
                          and all(a["color"] == "brown" for a in c["abilities"])))
    s.events[seat] = [take(s, EVENT0)]
    assert scoring.measure(s, seat, "sets_rbyte") == 1
    s.island[seat] = island_where(lambda a: a["color"] == "green")
    assert scoring.measure(s, seat, "sets_rbyte") == 0  # no Red left
    s.island[seat] = island_where(lambda a: a["color"] == "red")
    s.climate[seat] = climate_where(lambda a: a["color"] == "red")
    assert scoring.measure(s, seat, "sets_rbyte") == 0  # no Blue left


def test_a_climate_gives_its_player_another_ability_every_ability_of_a_climate_with_two():
    two = next(c["id"] for c in CAT.climates if len(c["abilities"]) == 2)
    action_of = {"green": "plant", "red": "compost", "blue": "water", "yellow": "grow"}
    for k, ability in enumerate(CAT.climates[two]["abilities"]):
        action = ability.get("if_action") or action_of[ability["color"]]
        s = at_action(2, p=0)
        empty_hands(s)
        quiet(s)
        s.climate[0] = two
        choose_action(s, action)
        while s.decision() == "option":
            act(s, "option", 0)
        assert (s.decision(), s.current_player(), legal(s, "activate")) == ("activate", 0, [CLIMATE_SLOT + k])
        soil, compost = s.soil[0], len(s.compost[0])
        act(s, "activate", CLIMATE_SLOT + k)
        gained = next(g["n"] for g in ability["gain"] if g["res"] == "soil")
        assert s.soil[0] == soil + gained
        assert len(s.compost[0]) == compost - (ability.get("cost") or {}).get("compost_discard", 0)


def test_cards_and_flora_wording_matters_for_ecosystem_objectives_as_for_fauna_objectives():
    # Sonoran: "rows/columns of 4 cards with 4 different ability colours" (a terrain is a card); Kamchatka:
    # "rows/columns of 4 flora with 4 different sprout counts" (a terrain is not a flora)
    sonoran, kamchatka = ecosystem_named("Sonoran"), ecosystem_named("Kamchatka")
    terrain = next(c["id"] for c in CAT.earth if c["kind"] == "terrain"
                   and [a["color"] for a in c["abilities"]] == ["brown"])
    s = at_action(2, p=0)
    for cell, card in enumerate((flora(colours("red")), flora(colours("blue")), flora(colours("yellow")))):
        put(s, 0, cell, card, sprouts=min(cell + 1, CAT.earth[card]["sprouts"]))
    assert len({s.spr[0][i] for i in range(3)} - {0}) == 3
    put(s, 0, 3, terrain)
    assert scoring.ecosystem_vp(s, 0, sonoran) == CAT.ecosystems[sonoran]["vp"]
    assert scoring.ecosystem_vp(s, 0, kamchatka) == 0  # a terrain with no sprouts: 0 is not a flora's count
    put(s, 0, 3, flora(lambda c: [a["color"] for a in c["abilities"]] == ["red"], skip=1))
    assert scoring.ecosystem_vp(s, 0, kamchatka) == CAT.ecosystems[kamchatka]["vp"]


def test_habitats_are_used_for_scoring_objectives_those_of_every_card_in_the_area():
    # Hedgehog "Have 7+ Wet habitats", Sundarbans "5 VP per 3 Wet habitats": the Wet of 3 flora, 2 terrains,
    # the island and the climate are 7
    hedgehog = next(f["id"] for f in CAT.fauna if f["name"] == "Hedgehog")
    sundarbans = ecosystem_named("Sundarbans")
    assert (CAT.fauna[hedgehog]["n"], CAT.ecosystems[sundarbans]["per"]) == (7, 3)
    s = at_action(2, p=0)
    s.island[0] = next(i["id"] for i in CAT.islands if "wet" in i["habitats"])
    s.climate[0] = next(c["id"] for c in CAT.climates if "wet" in c["habitats"])
    wet_terrain = [c["id"] for c in CAT.earth if c["kind"] == "terrain" and "wet" in c["habitats"]][:2]
    for cell, card in enumerate(wet_terrain + [flora(lambda c: "wet" in c["habitats"], skip=k) for k in range(3)]):
        put(s, 0, cell, card)
    assert scoring.measure(s, 0, "habitat", "wet") == 7
    assert scoring.fauna_met(s, 0, hedgehog)
    assert scoring.ecosystem_vp(s, 0, sundarbans) == 2 * CAT.ecosystems[sundarbans]["vp"]


def test_events_can_be_played_at_any_time_on_your_own_turn_too_choosing_the_action_planting_and_growing():
    e = free_event()
    for action in ("plant", "grow"):
        s = at_action(2, p=0)
        empty_hands(s)
        give(s, 0, e, cheap())
        s.soil[0] = 10
        put(s, 0, 0, grow_flora(3))
        assert (s.decision(), legal(s, "event")) == ("action", [e - EVENT0])  # before choosing the action
        choose_action(s, action)
        # Planting: the choice of a card; Growing: the placement of the growth, after the draw of 4
        assert (s.current_player(), s.decision()) == (0, "plant" if action == "plant" else "place")
        assert e - EVENT0 in legal(s, "event")
        act(s, "event", e - EVENT0)
        assert e in s.events[0] and (s.current_player(), s.decision()) == (0, "plant" if action == "plant" else "place")


def test_events_give_an_instant_benefit_to_their_player_even_when_played_on_another_players_turn():
    _each_event_benefits_its_player_only(1)


def test_events_do_not_get_added_to_your_tableau_an_event_in_hand_is_never_offered_for_planting():
    e, f = free_event(), cheap()
    for p in (0, 1):  # the active player's planting and the other row's
        s = at_action(2, p=0)
        empty_hands(s)
        quiet(s)
        give(s, p, e, f)
        s.soil[p] = 20
        choose_action(s, "plant")
        while s.current_player() != p:
            plain_step(s)
        assert s.decision() == "plant"
        assert legal(s, "plant") == [f] and legal(s, "cell") == []  # the card to plant only, never the event
        act(s, "plant", f)
        act(s, "cell", legal(s, "cell")[0])
        assert e in s.hands[p] and e not in s.grid[p] and s.events[p] == []


def test_a_played_event_lies_face_up_every_seat_sees_its_name_in_the_text_view_and_the_picture(monkeypatch):
    from tabletop_envs.earth.picture import draw_table

    s = at_action(3, p=0)
    e = free_event()
    give(s, 0, e)
    name = CAT.earth[e]["name"]
    act(s, "event", e - EVENT0)
    written = texts_written(monkeypatch)
    for q in range(3):
        assert f"  event stack: {name}" in s.render_text(q).splitlines()
        written.clear()
        draw_table(s, q)
        assert f"events: {name}" in written


def test_the_game_ends_only_once_a_player_has_completed_all_16_cards_of_the_tableau_15_are_not_enough():
    s = at_action(2, p=0)
    fill(s, 1, 15)
    for _ in range(2):  # a whole round with 15 cards
        choose_action(s, "water")
        end_turn(s)
    assert not s.end_triggered and not s.is_terminal() and s.bonus == -1
    fill(s, 1, 16)
    for _ in range(2):
        choose_action(s, "water")
        end_turn(s)
    assert s.is_terminal() and s.bonus == 1


def test_scoring_steps_1_4_and_5_count_every_card_sprout_and_trunk_of_the_whole_tableau():
    s = at_action(2, p=0)
    cards = [flora(lambda c: c["growth"] >= 2 and c["sprouts"] >= 1 and c["vp"] >= 1, skip=k) for k in range(16)]
    for cell, card in enumerate(cards):  # a sprout and a trunk (not the canopy) on each of the 16 cards
        put(s, 0, cell, card, sprouts=1, growth=1)
    b = scoring.score_breakdown(s, 0)
    isl, cli = CAT.islands[s.island[0]], CAT.climates[s.climate[0]]
    assert b["1_base"] == isl["vp"] + cli["vp"] + sum(CAT.earth[c]["vp"] for c in cards)
    assert (b["4_sprouts"], b["5_growth"]) == (16, 16)


def test_add_the_7_vp_bonus_only_if_you_were_the_1st_player_to_complete_your_tableau():
    s = at_action(2, p=0)
    fill(s, 1, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.bonus == 1
    for q in range(2):
        leaves = sum(scoring.FAUNA_TIERS[c.index(q)] for c in s.leaves if q in c)
        assert scoring.score_breakdown(s, q)["8_fauna"] == leaves + (7 if q == 1 else 0)


def test_ties_after_the_five_tiebreakers_share_the_mean_of_the_tied_ranks_among_three_or_more_players(monkeypatch):
    # two seats tied is the only tie a two-player game has: three or more tied seats share the mean of all
    # their ranks, not of the first two
    s = at_action(4, p=0)
    s._game_over()
    keys = {0: (60,), 1: (50,), 2: (50,), 3: (50,)}
    monkeypatch.setattr(scoring, "tiebreak_key", lambda st, p: keys[p])
    np.testing.assert_allclose(s.returns(), [1, -1 / 3, -1 / 3, -1 / 3])
    keys.update({0: (50,)})
    np.testing.assert_allclose(s.returns(), [0, 0, 0, 0])
    keys.update({0: (50,), 1: (50,), 2: (40,), 3: (40,)})
    np.testing.assert_allclose(s.returns(), [2 / 3, 2 / 3, -2 / 3, -2 / 3])
    assert abs(s.returns().sum()) < 1e-12


def test_end_of_game_vp_per_habitat_in_any_one_players_area_looks_at_every_other_player_not_only_a_neighbour():
    # Southern Moor: "2 VP per Sunny habitat in any one player's area"; at four seats the area with the most
    # sits across the table, next to neither neighbour of the scoring player
    moor = next(c["id"] for c in CAT.earth if c["name"] == "Southern Moor")
    s = at_action(4, p=0)
    for q in range(4):
        s.island[q] = next(i["id"] for i in CAT.islands if "sunny" not in i["habitats"])
        s.climate[q] = next(c["id"] for c in CAT.climates if "sunny" not in c["habitats"])
    sunny = [c["id"] for c in CAT.earth if c["kind"] == "flora" and c["habitats"] == ["sunny"]]
    put(s, 0, 0, moor)
    cells = iter(sunny)
    for q, count in ((1, 2), (2, 5), (3, 3)):
        for cell in range(count):
            put(s, q, cell, next(cells))
    assert [scoring.measure(s, q, "habitat", "sunny") for q in range(4)] == [1, 2, 5, 3]
    assert scoring.score_breakdown(s, 0)["6_terrain"] == 2 * 5


def test_planting_all_other_players_draw_1_card_one_after_another_clockwise_from_the_active_player():
    # the draw pile's next cards go round the table from the active player's left; at two seats there is only
    # one other player, so the order shows from three on (seat 2 active: seats 3, 0, 1 in turn)
    s = at_action(4, p=2)
    empty_hands(s)
    quiet(s)
    top = s.deck[::-1]  # drawn from the end
    choose_action(s, "plant")
    assert sorted(s.drawn[2]) == sorted(top[:4])
    act(s, "card", legal(s, "card")[0])
    assert (s.hands[3], s.hands[0], s.hands[1]) == ([top[4]], [top[5]], [top[6]])


def test_if_three_non_active_players_complete_on_the_same_turn_the_closest_clockwise_to_the_active_player_gets_it():
    # seat 1 active at a table of four: seats 2, 3 and 0 complete on its turn, seat 2 sits closest clockwise
    s = at_action(4, p=1)
    for q in (0, 2, 3):
        fill(s, q, 16)
    choose_action(s, "water")
    end_turn(s)
    assert s.end_triggered and s.bonus == 2
    leaves = [sum(scoring.FAUNA_TIERS[c.index(q)] for c in s.leaves if q in c) for q in range(4)]
    assert [scoring.score_breakdown(s, q)["8_fauna"] - leaves[q] for q in range(4)] == [0, 0, 7, 0]


def test_setup_sides_then_compost_choices_are_asked_seat_by_seat_clockwise_from_the_first_player():
    # "each player selects a side ... everyone simultaneously selects cards to compost", turned into turns
    # (RULES.md): all the side choices, then all the compost choices, each round of them clockwise from the
    # first player, which at two seats is the only order there is
    s = game(4).new_initial_state(next(seed for seed in range(100) if game(4).new_initial_state(seed).first == 2))
    asked = []
    while s.phase == "setup":
        asked.append((s.decision(), s.current_player()))
        s.apply_action(s.legal_actions()[0])
    order = [2, 3, 0, 1]
    sides = [("side", q) for q in order for _ in range(3)]
    composts = [("setup_compost", q) for q in order for _ in range(CAT.islands[s.island[q]]["compost"])]
    assert asked == sides + composts
