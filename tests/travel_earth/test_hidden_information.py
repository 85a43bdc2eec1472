"""Reservoir cards stay face down: whether the defending player is asked a decision may depend only on
what the Challenger can see (the Reservoir's size), never on which cards lie in it."""

from __future__ import annotations

import numpy as np

from tabletop_envs.core.engine import new_rng
from tabletop_envs.travel_earth.engine import TravelEarthGame
from tabletop_envs.travel_earth.render import draw_table

from .scenario import act, cid, legal, scenario

WEIGHT, DEVELOPMENT = 1, 5


def _worlds():
    """Three positions that differ only in seat 1's face-down cards (the same two decks in each):
    its Reservoir holds two copies of one card, two different cards, or a known card and Player 2's
    unseen one. Seat 0's Lion challenges seat 1's Tiger on Weight; Tiger wins on Development Time."""
    common = dict(ready=["Tiger"])
    return {
        "copies": scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                           p1=dict(common, reservoir=["Giraffe", "Giraffe"], hand=["Horse"])),
        "different": scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                              p1=dict(common, reservoir=["Giraffe", "Horse"], hand=["Giraffe"])),
        "unseen": scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                           p1=dict(common, reservoir=["Giraffe"], unseen=["Horse"], hand=["Giraffe"])),
    }


def _challengers_view(state):
    return state.observation(0), state.current_player(), state.decision(), state.render_text(player=0)


def _assert_same_view(worlds):
    views = {name: _challengers_view(s) for name, s in worlds.items()}
    first = next(iter(views.values()))
    for name, (obs, decider, decision, text) in views.items():
        np.testing.assert_array_equal(obs, first[0], err_msg=f"world {name!r}: the Challenger's observation differs")
        assert (decider, decision, text) == first[1:], f"world {name!r}: {decision!r} decided by seat {decider}"
    return first[1]


def test_whether_the_defender_is_asked_to_pay_depends_only_on_public_information():
    worlds = _worlds()
    assert len({tuple(s.game.decklists[1]) for s in worlds.values()}) == 1  # the same deck, re-dealt
    deciders = {name: [] for name in worlds}
    moves = [("declare", "Lion"), ("statistic", WEIGHT), ("defend_ready", "Tiger"),
             ("change_statistic", DEVELOPMENT), ("pay_reservoir", "Giraffe")]
    _assert_same_view(worlds)
    for segment, index in moves:
        for name, s in worlds.items():
            act(s, segment, cid(index) if isinstance(index, str) else index)
            deciders[name].append(s.current_player())
        _assert_same_view(worlds)
    assert len({tuple(d) for d in deciders.values()}) == 1
    # seat 1 was asked which card pays in every world, then Tiger won: seat 1's turn begins
    assert deciders["copies"] == [0, 1, 1, 1, 1]
    assert all(s.player == 1 and s.discard[0] == [cid("Lion")] for s in worlds.values())


def test_the_defender_is_asked_to_pay_even_when_its_reservoir_holds_copies_of_one_card():
    s = _worlds()["copies"]
    for segment, index in [("declare", "Lion"), ("statistic", WEIGHT), ("defend_ready", "Tiger"),
                           ("change_statistic", DEVELOPMENT)]:
        act(s, segment, index)
    assert s.phase == "pay" and s.current_player() == 1
    assert legal(s, "pay_reservoir") == [cid("Giraffe")] and legal(s, "pay_unseen") == []  # one legal move


def test_a_single_reservoir_card_pays_for_the_change_automatically():
    # one card in the Reservoir (public) leaves nothing to choose, known or unseen
    for reservoir in (dict(reservoir=["Giraffe"]), dict(unseen=["Giraffe"])):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], **reservoir))
        for segment, index in [("declare", "Lion"), ("statistic", WEIGHT), ("defend_ready", "Tiger"),
                               ("change_statistic", DEVELOPMENT)]:
            act(s, segment, index)
        assert s.reservoir_size(1) == 0 and s.discard[1] == [cid("Giraffe")]
        assert s.player == 1 and s.discard[0] == [cid("Lion")]  # no pay decision: the change resolved


def _with_copies_in_reservoir(state, seat: int):
    """``state`` with ``seat``'s face-down Reservoir re-dealt as copies of one card from its hidden cards
    (Hand, Deck, Reservoir), every zone keeping its size; None when no card has enough copies."""
    size = len(state.reservoir[seat])
    hidden = state.hand[seat] + state.deck[seat] + state.reservoir[seat]
    card = next((c for c in sorted(set(hidden)) if hidden.count(c) >= size), None)
    if card is None:
        return None
    world = state.clone()
    rest = list(hidden)
    for _ in range(size):
        rest.remove(card)
    n_hand = len(state.hand[seat])
    world.hand[seat], world.deck[seat], world.reservoir[seat] = rest[:n_hand], rest[n_hand:], [card] * size
    world._mask_cache = None
    world.check_invariants()
    return world


def test_the_challenger_cannot_tell_the_defenders_reservoir_cards_from_a_defensive_change():
    """Random games: at every defensive-change decision, re-deal what the Challenger cannot see (at random,
    and once with the Reservoir's known cards all copies of one card) and make the same change in each
    world; until the paying card is discarded, the worlds look the same to the Challenger and the same
    seat decides next."""
    game = TravelEarthGame()
    checked = copies = 0
    for seed in range(12):
        s = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not s.is_terminal() and s.turns < 200:
            defender = s.current_player()
            if s.phase == "change" and s.reservoir_size(defender) >= 2:
                challenger = s.player
                worlds = [s] + [s.resample_hidden(challenger, rng) for _ in range(3)]
                same = _with_copies_in_reservoir(s, defender)
                if same is not None:
                    worlds.append(same)
                    copies += 1
                for w in worlds[1:]:
                    np.testing.assert_array_equal(w.observation(challenger), s.observation(challenger))
                for action in s.legal_actions():
                    after = []
                    for w in worlds:
                        w = w.clone()
                        w.apply_action(action)
                        after.append(w)
                    for w in after[1:]:
                        assert (w.current_player(), w.decision()) == (after[0].current_player(), after[0].decision())
                        np.testing.assert_array_equal(w.observation(challenger), after[0].observation(challenger))
                        assert w.render_text(player=challenger) == after[0].render_text(player=challenger)
                    checked += 1
            legal_ids = s.legal_actions()
            s.apply_action(int(legal_ids[rng.integers(len(legal_ids))]))
    assert checked >= 20 and copies >= 5


def test_which_reservoir_card_last_resort_reveals_is_drawn_then_so_resampled_worlds_draw_it_again():
    """Last Resort "reveals a random Reservoir card" when the challenge comes. Seat 1 knows its own
    Reservoir cards but not the order chance will reveal them in: the worlds ``resample_hidden(1)``
    gives must draw that order anew, not replay the real state's generator (a planner searching them
    would know the future draws, and through the generator the deal)."""
    s = scenario(p0=dict(ready=["Bowhead whale"], reservoir=["Koala"]),
                 p1=dict(reservoir=["Lion", "Tiger", "Horse", "Giraffe"]))
    rng = np.random.default_rng(0)
    orders = set()
    for _ in range(20):
        world = s.resample_hidden(1, rng)
        np.testing.assert_array_equal(world.observation(1), s.observation(1))
        act(world, "declare", "Bowhead whale")
        act(world, "statistic", WEIGHT)  # the whale outweighs every card: all four are revealed and lost
        assert world.winner == 0 and len(world.discard[1]) == 4
        orders.add(tuple(world.discard[1]))
    assert len(orders) > 1, "every resampled world revealed the Reservoir in the real state's future order"


def test_an_addition_to_the_reservoir_shows_the_waiting_player_one_more_face_down_card_never_which():
    """"Add up to 1 card from Hand to your Reservoir"; "Reservoir cards stay face down". The waiting
    player sees the opponent's Reservoir grow by one card, not which card, and its own
    ``reservoir_adds`` stays 0 (it added nothing this turn); the adding player's counts its addition."""
    lay = TravelEarthGame(deck_format="casual").observation_layout
    worlds = {}
    for card in ("Lion", "Tiger"):
        s = scenario(p0=dict(hand=["Lion", "Tiger"]), phase="add")
        before = s.observation(1)
        act(s, "add_to_reservoir", card)
        worlds[card] = s
    lion, tiger = worlds["Lion"], worlds["Tiger"]
    np.testing.assert_array_equal(lion.observation(1), tiger.observation(1))
    assert lion.render_text(player=1) == tiger.render_text(player=1)
    np.testing.assert_array_equal(draw_table(lion, 1).array(), draw_table(tiger, 1).array())  # the picture too
    waiting = lion.observation(1)
    assert lay.view(waiting, "reservoir_adds").tolist() == [0]
    assert lay.view(before, "opp_reservoir").tolist() == [0, 0, 0]
    np.testing.assert_allclose(lay.view(waiting, "opp_reservoir"), [1 / 7, 1 / 7, 0])
    assert lay.view(lion.observation(0), "reservoir_adds").tolist() == [0.5]
    assert not np.array_equal(lion.observation(0), tiger.observation(0))  # the adder knows its card


def test_a_world_re_dealt_for_the_waiting_player_lets_the_player_to_move_add_only_cards_of_its_re_dealt_hand():
    # the env asks for the action mask at every step; a world re-dealt for the waiting player has the
    # player to move holding other cards, and must offer them, not the real hand's
    s = TravelEarthGame(first_player=0).new_initial_state(4)
    assert s.decision() == "add" and s.current_player() == 0
    add = s.game.action_layout.range("add_to_reservoir")
    real = {a - add.start for a in s.legal_actions() if a in add}
    assert real == set(s.hand[0])
    rng = np.random.default_rng(0)
    hands = set()
    for _ in range(30):
        world = s.resample_hidden(1, rng)
        assert {a - add.start for a in world.legal_actions() if a in add} == set(world.hand[0])
        for action in world.legal_actions():
            after = world.clone()
            after.apply_action(action)
            after.check_invariants()
        hands.add(tuple(sorted(world.hand[0])))
    assert len(hands) > 1, "the hand of the player to move was re-dealt"


def _without_generator(state):
    data = state.to_dict()["state"]
    del data["rng"]
    return data


def test_a_re_deal_whose_hidden_cards_can_only_lie_as_they_are_gives_back_the_real_position():
    """Seat 1's only face-down cards are two Reservoir cards (no Hand, Deck or unseen card) and seat 0's
    Deck is empty: re-dealing what seat 0 cannot see can only put the same two cards back. Every world
    is then the real position (``State.__eq__``'s fields, the generator aside): the Reservoir is a
    multiset kept in the engine's one (sorted) order, so a world does not differ by the shuffle's order."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Giraffe", "Horse"]),
                 filler_to="discard")
    assert s.deck == [[], []] and s.hand == [[], []] and s.unseen == [[], []]
    assert s.reservoir[1] == sorted(s.reservoir[1]) == [cid("Giraffe"), cid("Horse")]
    rng = np.random.default_rng(0)
    for _ in range(20):
        world = s.resample_hidden(0, rng)
        assert _without_generator(world) == _without_generator(s)


def test_a_homing_card_back_in_the_hand_after_a_failed_last_resort_is_not_remembered_so_worlds_deal_it_anywhere():
    """RULES.md choice 17: like a Last Resort winner back in the Reservoir, a Rock dove that failed its Last
    Resort reveal goes back to its owner's Hand in view, and the observation does not mark it, so the
    Challenger's re-dealt worlds put it in the Hand, the Deck or the Reservoir."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(reservoir=["Rock dove (pigeon)", "Giraffe"], hand=["Horse"]))
    s.rng = new_rng(1)  # the reveal draws the dove first: it fails on Weight, then the Giraffe wins
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    dove = cid("Rock dove (pigeon)")
    assert dove in s.hand[1] and s.reservoir[1] == [cid("Giraffe")] and not s.is_terminal()
    seen = s.observation(0)
    rng = np.random.default_rng(0)
    zones = set()
    for _ in range(60):
        world = s.resample_hidden(0, rng)
        np.testing.assert_array_equal(world.observation(0), seen)
        zones.add(next(zone for zone in ("hand", "deck", "reservoir") if dove in getattr(world, zone)[1]))
    assert zones == {"hand", "deck", "reservoir"}


def test_both_deck_lists_are_public_game_config_so_resample_hidden_redeals_the_opponent_from_their_own_list():
    # reading 21: worlds keep each seat's list (the env's `decks`, known to both) and re-deal only
    # where its cards lie; drawing the opponent's unseen cards from the catalogue would be another reading
    game = TravelEarthGame(decks=("expedition", "wild_mix"), first_player=0)
    assert game.decklists[0] != game.decklists[1]
    s = game.new_initial_state(5)
    rng = np.random.default_rng(1)
    for _ in range(12):  # into the game, so that hands, Reservoirs and Decks all hold cards
        moves = s.legal_actions()
        s.apply_action(moves[rng.integers(len(moves))])
    worlds = set()
    for _ in range(20):
        world = s.resample_hidden(0, rng)
        world.check_invariants()  # every seat's cards, zone by zone, are exactly its deck list
        assert set(world.hand[1]) <= set(game.decklists[1])
        worlds.add((tuple(sorted(world.hand[1])), tuple(world.deck[1])))
    assert len(worlds) > 1, "the opponent's hidden cards were not re-dealt"


def test_a_re_deal_for_seat_1_whose_hidden_cards_can_only_lie_as_they_are_gives_back_the_real_position():
    """test_a_re_deal_whose_hidden_cards_can_only_lie_as_they_are_gives_back_the_real_position with the seats
    swapped: the worlds seat 1 is dealt keep seat 0's Reservoir in the engine's sorted order too."""
    s = scenario(p0=dict(ready=["Tiger"], reservoir=["Giraffe", "Horse"]), p1=dict(ready=["Lion"], reservoir=["Koala"]),
                 player=1, filler_to="discard")
    assert s.deck == [[], []] and s.hand == [[], []] and s.unseen == [[], []]
    assert s.reservoir[0] == sorted(s.reservoir[0]) == [cid("Giraffe"), cid("Horse")]
    rng = np.random.default_rng(0)
    for _ in range(20):
        world = s.resample_hidden(1, rng)
        assert _without_generator(world) == _without_generator(s)
