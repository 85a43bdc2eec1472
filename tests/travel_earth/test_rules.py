"""One test (at least) per sentence of shared/rules/travel_earth_tcg.txt, named after it.

Statistic indices: 0 Top Speed, 1 Weight, 2 Length, 3 Max Lifespan, 4 Offspring, 5 Development Time.
Useful printed matchups: Lion beats Tiger on Speed, Weight, Length and Lifespan, ties on Offspring
(3 = 3) and loses on Development Time (109 > 105 days, lower wins); Lion beats Sea otter on all six.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_envs.core.engine import TERMINAL, new_rng
from tabletop_envs.core.errors import ConfigError, DeckError, IllegalActionError
from tabletop_envs.travel_earth import engine as engine_module
from tabletop_envs.travel_earth.catalogue import ANIMALS_FILE, STAT_KEYS, Catalogue
from tabletop_envs.travel_earth.engine import TravelEarthGame

from .scenario import CAT, act, cid, ids, legal, names, scenario

SPEED, WEIGHT, LENGTH, LIFESPAN, OFFSPRING, DEVELOPMENT = range(6)
FILL4 = ["Koala", "Emu", "Walrus", "Springbok"]


def challenge(state, challenger: str, statistic: int):
    """Declare one Challenger (the group locks itself when nothing else can join) and pick a statistic."""
    act(state, "declare", challenger)
    if state.phase == "declare":
        act(state, "lock_challengers")
    return act(state, "statistic", statistic)


def end_turn_of(state, seat: int):
    """Seat ``seat`` has nothing to declare: locking the empty group ends its turn."""
    assert state.player == seat and state.phase == "declare"
    return act(state, "lock_challengers")


# --------------------------------------------------------------------------- 1. objective
def test_lose_when_no_field_animals_and_last_resort_exhausts_reservoir():
    s = scenario(p0=dict(ready=["Cheetah"], reservoir=["Koala"]), p1=dict(reservoir=["Sea otter"]))
    challenge(s, "Cheetah", SPEED)  # 120.1 km/h against a 9 km/h Sea otter
    assert s.is_terminal()
    assert list(s.returns()) == [1.0, -1.0]
    assert names(s.discard[1]).count("Sea otter") == 1
    # an empty field and an empty Reservoir are not the loss: only a Last Resort that runs out is. Seat 1 loses
    # its only Animal with no Reservoir card, plays another on its turn, and loses it; the next challenge finds
    # the field empty and nothing to reveal, and only then seat 1 has lost.
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(ready=["Sea otter"], hand=["Emu"]),
                 filler_to="discard")
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert s.ready[1] == s.resting[1] == [] and s.reservoir_size(1) == 0
    assert not s.is_terminal() and s.player == 1 and s.phase == "add"
    act(s, "skip_reservoir")
    act(s, "play", "Emu")  # nothing left to do: seat 0's turn
    assert s.player == 0 and not s.is_terminal()
    challenge(s, "Tiger", WEIGHT)
    act(s, "defend_resting", "Emu")
    assert not s.is_terminal() and s.ready[1] == s.resting[1] == []
    challenge(s, "Lion", WEIGHT)
    assert s.is_terminal() and list(s.returns()) == [1.0, -1.0]


def test_empty_reservoir_alone_is_not_a_loss_while_field_animals_remain():
    s = scenario(p0=dict(ready=["Cheetah"], reservoir=["Koala"]), p1=dict(ready=["Garden snail", "Lion"]))
    assert s.reservoir_size(1) == 0
    challenge(s, "Cheetah", SPEED)
    act(s, "defend_ready", "Garden snail")
    assert not s.is_terminal()
    assert s.ready[1] == ids(["Lion"])


def test_running_out_of_deck_or_hand_does_not_cause_a_loss():
    s = scenario(p0=dict(resting=["Lion"], hand=["Emu", "Koala"]), p1=dict(ready=["Tiger"]), filler_to="discard")
    end_turn_of(s, 0)  # seat 1: empty Deck and Hand, nothing to decide: its turn passes, nobody loses
    assert not s.is_terminal() and s.turns == 2
    assert s.player == 0 and s.phase == "add" and s.deck[1] == [] and s.hand[1] == []
    assert s.ready[1] == ids(["Tiger"])


def test_keep_playing_with_your_remaining_field_animals_and_reservoir():
    # seat 0 has neither Deck nor Hand left: its Ready Lion and Full Reservoir card still make a challenge
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], hand=["Giraffe"]),
                 player=1, filler_to="discard")
    end_turn_of(s, 1)
    assert s.player == 0 and s.phase == "declare" and s.deck[0] == [] and s.hand[0] == []
    challenge(s, "Lion", WEIGHT)  # 175 kg against 119.7 kg
    act(s, "defend_ready", "Tiger")
    assert cid("Tiger") in s.discard[1] and s.ready[1] == [] and s.resting[0] == ids(["Lion"])
    assert s.empty[0] == 1 and not s.is_terminal()


def test_this_guide_describes_a_two_player_game():
    with pytest.raises(ConfigError, match="two-player"):
        TravelEarthGame(num_players=3)


# --------------------------------------------------------------------------- 2. statistics
def test_compare_one_statistic_at_a_time_using_official_printed_values():
    for stat, lion_wins in [(SPEED, True), (WEIGHT, True), (LENGTH, True), (LIFESPAN, True), (DEVELOPMENT, False)]:
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
        challenge(s, "Lion", stat)
        act(s, "defend_ready", "Tiger")
        lion = CAT.values[cid("Lion"), stat]
        tiger = CAT.values[cid("Tiger"), stat]
        assert lion != tiger
        assert (names(s.discard[1]) == ["Tiger"]) == lion_wins
        assert (names(s.discard[0]) == ["Lion"]) == (not lion_wins)
    # equal printed values tie (3 = 3 young): nothing is discarded and the Challenger picks another statistic
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
    challenge(s, "Lion", OFFSPRING)
    act(s, "defend_ready", "Tiger")
    assert CAT.values[cid("Lion"), OFFSPRING] == CAT.values[cid("Tiger"), OFFSPRING]
    assert s.phase == "statistic" and s.discard == [[], []] and s.challenger == cid("Lion")


def test_comparisons_use_the_printed_values_to_their_last_printed_digit():
    # RULES.md 18: 153.0 against 152.9 km/h (a tenth of a km/h), 0.24 against 0.048 km/h (two figures below
    # 1 km/h) and 12.19 against 12.18 m (four significant figures) each decide the challenge; none is a tie
    for challenger, defender, stat in [("Magnificent frigatebird", "Rock dove (pigeon)", SPEED),
                                       ("Brown-throated sloth", "Garden snail", SPEED),
                                       ("Bowhead whale", "Sperm whale", LENGTH)]:
        s = scenario(p0=dict(ready=[challenger], reservoir=["Koala"]), p1=dict(ready=[defender]))
        challenge(s, challenger, stat)
        act(s, "defend_ready", defender)
        assert names(s.discard[1]) == [defender] and s.discard[0] == [], (challenger, defender)
        assert s.resting[0] == ids([challenger])


def _challenge_results(pairs) -> list[tuple[list[str], list[str]]]:
    """Each (Challenger, Defender, statistics in the order tried while they tie), played Ready against
    Ready: the cards each seat discarded."""
    results = []
    for challenger, defender, order in pairs:
        s = scenario(p0=dict(ready=[challenger], reservoir=["Koala"]), p1=dict(ready=[defender]))
        challenge(s, challenger, order[0])
        act(s, "defend_ready", defender)
        for stat in order[1:]:
            if s.phase != "statistic":
                break
            act(s, "statistic", stat)
        results.append((names(s.discard[0]), names(s.discard[1])))
    return results


def _printed_result(challenger, defender, order) -> tuple[list[str], list[str]]:
    """The result the six printed statistics give: the first one in ``order`` that differs decides; when all
    six tie, the Challenger is discarded."""
    a, b = cid(challenger), cid(defender)
    for stat in order:
        better = (CAT.values[a, stat] - CAT.values[b, stat]) * CAT.stat_sign[stat]
        if better:
            return ([], [CAT.names[b]]) if better > 0 else ([CAT.names[a]], [])
    return [CAT.names[a]], []


def test_maximum_depth_is_educational_information_not_a_battle_statistic(tmp_path, monkeypatch):
    assert "max_depth" not in STAT_KEYS and len(STAT_KEYS) == 6
    deep = [c for c in CAT.cards if c.get("max_depth_m")]
    assert len(deep) >= 10
    # A Sperm whale (2,250 m) and an Orca (1,000 m): no statistic, and no action, compares the depth.
    assert all("Depth" not in name for name in CAT.stat_names)
    game = TravelEarthGame()
    assert all("depth" not in game.action_layout.label(a).lower() for a in range(game.num_actions))
    # Real play: divers challenge each other, each statistic first in turn (ties move on to the next). Every
    # result is the one the six printed statistics give, both with the catalogue as printed and with a copy
    # whose depths are reversed (the deepest diver becomes the shallowest), where the two Orcas (TE-028 and
    # TE-072, the same six values) differ in depth by almost 3 km: if depth decided anything, even a tie, some
    # result would follow it in one catalogue or the other.
    divers = ["Sperm whale", "Orca", "TE-072", "Blue whale", "Southern elephant seal", "Sea otter"]
    pairs = [(a, b, [(first + i) % 6 for i in range(6)]) for a in divers for b in divers if a != b
             for first in range(6)]
    expected = [_printed_result(*pair) for pair in pairs]
    data = json.loads(ANIMALS_FILE.read_text(encoding="utf-8"))
    for card in data["cards"]:
        if card.get("max_depth_m") is not None:
            card["max_depth_m"] = 3000 - card["max_depth_m"]
    data["cards"][cid("TE-072")]["max_depth_m"] = 1
    (tmp_path / "animals.json").write_text(json.dumps(data), encoding="utf-8")
    reversed_depths = Catalogue(tmp_path / "animals.json")  # not load_catalogue: its cache stays as it was
    assert reversed_depths.cards[cid("Sperm whale")]["max_depth_m"] == 750  # the Orca's 1,000 m is now deeper
    assert (reversed_depths.cards[cid("Orca")]["max_depth_m"], reversed_depths.cards[cid("TE-072")]["max_depth_m"]) \
        == (2000, 1)
    np.testing.assert_array_equal(reversed_depths.values, CAT.values)
    assert _challenge_results(pairs) == expected
    monkeypatch.setattr(engine_module, "load_catalogue", lambda *args: reversed_depths)
    assert scenario().game.catalogue is reversed_depths
    assert _challenge_results(pairs) == expected


def test_the_six_battle_statistics_can_each_be_chosen_and_decide_a_challenge():
    # the Lion beats the Sea otter on all six: whichever is chosen, that statistic alone settles the challenge
    for stat in range(6):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"]))
        act(s, "declare", "Lion")
        assert legal(s, "statistic") == [SPEED, WEIGHT, LENGTH, LIFESPAN, OFFSPRING, DEVELOPMENT]
        act(s, "statistic", stat)
        act(s, "defend_ready", "Sea otter")
        assert s.discard[1] == ids(["Sea otter"]) and s.resting[0] == ids(["Lion"]), stat


def test_each_statistic_documents_whether_higher_or_lower_wins():
    wins = {s["key"]: s["wins"] for s in CAT.statistics}
    assert wins == {"top_speed": "higher", "weight": "higher", "length": "higher", "lifespan": "higher",
                    "offspring": "higher", "development": "lower"}


# --------------------------------------------------------------------------- 3. setup
def test_coin_flip_determines_who_goes_first():
    game = TravelEarthGame()
    firsts = {game.new_initial_state(seed).first for seed in range(40)}
    assert firsts == {0, 1}
    for seed in range(5):
        s = game.new_initial_state(seed)
        assert s.current_player() == s.first and s.player == s.first


def test_shuffle_each_deck_and_each_player_draws_3_cards():
    for first in (0, 1):
        game = TravelEarthGame(first_player=first)
        second = 1 - first
        deals, hands = [set(), set()], [set(), set()]
        for seed in range(8):
            s = game.new_initial_state(seed)
            assert len(s.hand[second]) == 3  # Player 2 has not drawn yet
            assert len(s.unseen[second]) == 1  # its free Reservoir card, the next card of its Deck
            assert len(s.hand[first]) == 3 + 1  # Player 1 drew 3, then drew on its first turn (Hand 3 -> 1 card)
            for seat in (0, 1):
                # the seat's own cards in the order they left its Deck, then the rest of it from the top
                deals[seat].add(tuple(s.hand[seat] + s.unseen[seat] + s.deck[seat][::-1]))
                hands[seat].add(tuple(sorted(s.hand[seat][:3])))
        # each seat's Deck is shuffled on its own: every seed deals it in another order, and its
        # 3-card starting Hand is not the same every time
        assert [len(d) for d in deals] == [8, 8]
        assert min(len(h) for h in hands) > 1


def test_shuffle_each_legal_deck():
    game = TravelEarthGame(first_player=0)
    orders = [set(), set()]
    for seed in range(6):
        s = game.new_initial_state(seed)
        for seat in (0, 1):
            assert sorted(s.deck[seat] + s.hand[seat] + s.unseen[seat]) == game.decklists[seat]
            orders[seat].add(tuple(s.deck[seat]))
        assert s.deck[0] != s.deck[1]  # the same decklist, shuffled for each seat on its own
    assert [len(o) for o in orders] == [6, 6]  # every seed deals each Deck in another order
    with pytest.raises(DeckError, match="exactly 60"):
        TravelEarthGame(decks=[{"TE-001": 4}, "expedition"])  # an illegal Deck never reaches the table


def test_player_2_places_top_card_of_deck_face_down_in_reservoir_unseen_by_both():
    game = TravelEarthGame(first_player=0)
    seed = 11
    s = game.new_initial_state(seed)
    rng = new_rng(seed)
    rng.permutation(game.decklists[0])
    deck1 = rng.permutation(game.decklists[1]).tolist()
    assert s.unseen[1] == [deck1[-4]]  # the card under the three drawn into Hand was the top card
    assert s.unseen[0] == [] and s.reservoir[1] == []
    assert s.full(1) == 1 and s.empty == [0, 0], "the free card is upright (Full) like any added card"
    lay = game.observation_layout
    for seat in (0, 1):
        obs = s.observation(seat)
        assert not lay.view(obs, "my_reservoir_known").any()
    assert lay.view(s.observation(1), "my_reservoir")[3] == 1  # its owner knows only that it is there
    assert lay.view(s.observation(0), "opp_reservoir")[0] == pytest.approx(1 / 7)
    line = [x for x in s.render_text(player=1).splitlines() if "Reservoir 1" in x][0]
    assert "(unseen card)" in line and CAT.names[s.unseen[1][0]] not in line


def test_player_2_free_starting_card_does_not_count_against_first_turn_addition():
    s = scenario(p0=dict(), p1=dict(hand=["Lion", "Tiger"], unseen=["Koala"], deck=FILL4), player=0, first=0)
    end_turn_of(s, 0)
    assert s.player == 1 and s.phase == "add"
    assert cid("Lion") in legal(s, "add_to_reservoir")
    act(s, "add_to_reservoir", "Lion")
    assert s.reservoir_size(1) == 2


def test_both_players_may_add_a_card_from_hand_during_their_first_turn():
    game = TravelEarthGame(first_player=1)
    s = game.new_initial_state(3)
    assert s.player == 1 and s.phase == "add" and legal(s, "add_to_reservoir")


def test_player_1_draws_normally_on_their_first_turn():
    game = TravelEarthGame(first_player=1)
    s = game.new_initial_state(5)
    assert len(s.hand[1]) == 4 and len(s.deck[1]) == 60 - 4
    assert len(s.deck[0]) == 60 - 3 - 1


# --------------------------------------------------------------------------- 4. field and Reservoir
def test_field_has_no_maximum_number_of_animals():
    hand = ["Lion", "Tiger", "Cheetah", "Leopard", "Giraffe", "Horse", "Koala", "Emu", "Walrus", "Orca",
            "Blue whale", "Garden snail"]
    # a field of 40 Animals already (every plain card the Hand does not hold): a cap of 12, or of anything
    # under 52, would refuse some of the 12 plays
    plain = [c["collector_number"] for c in CAT.cards if not c["ability"] and c["name"] not in hand]
    assert len(plain) >= 40
    s = scenario(p0=dict(hand=hand, ready=plain[:20], resting=plain[20:40]), phase="play")
    while legal(s, "play"):
        act(s, "play", legal(s, "play")[0])
    assert s.hand[0] == [] and len(s.resting[0]) + len(s.ready[0]) == 52  # the Leopard's Ambush: Ready Row


def test_ready_animals_may_challenge_and_defend():
    # a Resting Animal beside it does not take the Ready Tiger's place as a possible Defender
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], resting=["Sea otter"]))
    assert legal(s, "declare") == [cid("Lion")]
    challenge(s, "Lion", DEVELOPMENT)
    assert legal(s, "defend_ready") == [cid("Tiger")]
    act(s, "defend_ready", "Tiger")  # 105 days against 109: the Tiger wins and stays Ready
    assert s.discard[0] == ids(["Lion"]) and s.discard[1] == [] and cid("Tiger") in s.ready[1]


def test_resting_animals_may_defend_but_cannot_challenge():
    s = scenario(p0=dict(ready=["Tiger"], resting=["Lion"], reservoir=["Koala", "Emu"], hand=["Emu"]),
                 p1=dict(ready=["Sea otter"], resting=["Cheetah"]), phase="play")
    act(s, "end_play")  # the Lion is still Resting when the Declare step comes
    assert legal(s, "declare") == [cid("Tiger")]
    challenge(s, "Tiger", WEIGHT)
    # a Ready Animal beside it does not keep the Resting Cheetah from defending
    assert legal(s, "defend_resting") == [cid("Cheetah")]


def test_newly_played_animals_enter_resting_row_and_cannot_challenge_that_turn():
    s = scenario(p0=dict(hand=["Lion"], reservoir=["Koala"]), phase="play")
    act(s, "play", "Lion")
    assert s.resting[0] == ids(["Lion"])
    # nothing could be declared: the turn passed without a challenge
    assert s.player == 1 and s.discard == [[], []]
    # the same when the Play step is ended by choice, a card still in Hand: the Lion stays Resting
    s = scenario(p0=dict(hand=["Lion", "Tiger"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"]), phase="play")
    act(s, "play", "Lion")
    assert s.phase == "play"
    act(s, "end_play")
    assert s.resting[0] == ids(["Lion"]) and s.player == 1 and s.discard == [[], []]


def test_newly_played_animals_can_defend_immediately():
    # seat 0 also has a Ready Sea otter: the Tiger just played may defend all the same
    s = scenario(p0=dict(hand=["Tiger"], ready=["Sea otter"]), p1=dict(ready=["Lion"], reservoir=["Koala"]),
                 phase="play")
    act(s, "play", "Tiger")
    assert s.player == 1
    s.phase = "declare"  # seat 1 skips its own add/play steps for brevity
    s._mask_cache = None
    challenge(s, "Lion", DEVELOPMENT)
    assert s.current_player() == 0 and legal(s, "defend_resting") == [cid("Tiger")]
    act(s, "defend_resting", "Tiger")  # 105 days against 109: the Tiger stops the Lion
    assert s.discard[1] == ids(["Lion"]) and s.discard[0] == []


def test_at_start_of_turn_resting_animals_move_to_ready_row():
    s = scenario(p0=dict(resting=["Lion", "Tiger"]), player=1)
    end_turn_of(s, 1)
    assert sorted(s.ready[0]) == sorted(ids(["Lion", "Tiger"])) and s.resting[0] == []


def test_reservoir_cards_stay_face_down_upright_full_sideways_empty():
    # three cards, so two Full and one Empty: each view must tell the upright ones from the sideways one
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala", "Emu", "Walrus"]), p1=dict(ready=["Sea otter"]))
    lay = s.game.observation_layout
    challenge(s, "Lion", WEIGHT)
    assert s.full(0) == 2 and s.empty[0] == 1
    mine, theirs = lay.view(s.observation(0), "my_reservoir"), lay.view(s.observation(1), "opp_reservoir")
    assert list(mine[:3] * 7) == pytest.approx([3, 2, 1]) and list(theirs * 7) == pytest.approx([3, 2, 1])
    assert not lay.view(s.observation(1), "my_reservoir_known").any()  # face down: the opponent sees no card


def test_reservoir_contains_at_most_6_cards():
    s = scenario(p0=dict(hand=["Lion"], reservoir=["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca"]),
                 phase="add", empty=(4, 0))  # counting both Full and Empty cards
    assert legal(s, "add_to_reservoir") == [] and legal(s, "skip_reservoir") == [0]
    with pytest.raises(IllegalActionError):
        act(s, "add_to_reservoir", "Lion")
    s = scenario(p0=dict(hand=["Lion"], reservoir=["Koala", "Emu", "Walrus", "Springbok", "Sea otter"]),
                 phase="add", empty=(4, 0))  # five, four of them Empty: the sixth may come in
    act(s, "add_to_reservoir", "Lion")
    assert s.reservoir_size(0) == 6


def test_refresh_all_empty_reservoir_cards_to_full_at_start_of_turn():
    s = scenario(p0=dict(reservoir=["Koala", "Emu", "Walrus"]), player=1, empty=(3, 0))
    end_turn_of(s, 1)
    assert s.empty[0] == 0 and s.full(0) == 3


def test_after_drawing_and_before_playing_add_up_to_1_card_from_hand():
    s = scenario(p0=dict(deck=["Tiger", "Lion", "Cheetah"]), p1=dict(), player=1)
    end_turn_of(s, 1)  # seat 0: Hand 0 -> draws 3, then the Add to Reservoir step
    assert s.phase == "add" and sorted(legal(s, "add_to_reservoir")) == sorted(ids(["Tiger", "Lion", "Cheetah"]))
    assert legal(s, "play") == []  # playing comes after the addition
    act(s, "add_to_reservoir", "Cheetah")
    assert s.phase == "play" and legal(s, "add_to_reservoir") == []  # only one card per turn
    assert s.reservoir[0] == ids(["Cheetah"])


def test_reservoir_cards_stay_face_down_so_the_order_of_two_additions_makes_no_other_position():
    # face down, a Reservoir is a pile of cards: adding Koala then Emu is the position Emu then Koala reaches
    # (the same state, the same future Last Resort draws)
    states = []
    for order in (["Koala", "Emu"], ["Emu", "Koala"]):
        s = scenario(p0=dict(ready=["Red kangaroo"], hand=["Koala", "Emu"]), p1=dict(ready=["Tiger"]), phase="add")
        for card in order:
            act(s, "add_to_reservoir", card)
        states.append(s)
    assert states[0] == states[1] and states[0].to_dict() == states[1].to_dict()


def test_cannot_add_a_card_when_reservoir_already_has_six():
    s = scenario(p0=dict(hand=["Lion", "Tiger"], reservoir=["Koala", "Emu", "Walrus", "Springbok", "Orca"]),
                 phase="add")
    act(s, "add_to_reservoir", "Lion")
    assert s.reservoir_size(0) == 6 and s.phase == "play"
    act(s, "end_play")  # nothing Ready: seat 1's turn (it draws, so it has an Add decision)
    act(s, "skip_reservoir")
    act(s, "end_play")
    assert s.player == 0 and s.reservoir_size(0) == 6 and cid("Tiger") in s.hand[0]
    assert s.phase == "play" and legal(s, "add_to_reservoir") == []  # six already: the Add step offers nothing


def test_discarded_reservoir_card_may_be_replenished_by_a_later_normal_addition():
    full6 = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca"]
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(ready=["Tiger"], reservoir=full6, hand=["Giraffe"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)
    act(s, "pay_reservoir", "Koala")
    assert s.reservoir_size(1) == 5
    assert s.player == 1 and s.phase == "add"  # Lion lost; seat 1's turn begins
    act(s, "add_to_reservoir", "Giraffe")
    assert s.reservoir_size(1) == 6


def test_each_challenger_costs_1_full_reservoir_card_turned_empty_as_it_resolves():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu", "Walrus"]),
                 p1=dict(ready=["Sea otter", "Garden snail"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")  # no Ready Animal is left: the group locks itself
    assert s.challenger == cid("Lion") and s.empty[0] == 1  # only the resolving Challenger's card so far
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert s.challenger == cid("Tiger") and s.empty[0] == 2


# --------------------------------------------------------------------------- 5. turn sequence
def test_turn_sequence_ready_refresh_draw_add_play_declare_challenge_end():
    s = scenario(p0=dict(resting=["Lion"], reservoir=["Koala"], deck=["Tiger", "Emu"]),
                 p1=dict(ready=["Sea otter"]), player=1, empty=(1, 0))
    end_turn_of(s, 1)
    # 1. Ready, 2. Refresh, 3. Draw (Hand 0: 3 cards; Emu and Tiger were on top)
    assert s.ready[0] == ids(["Lion"]) and s.empty[0] == 0
    assert len(s.hand[0]) == 3 and {"Emu", "Tiger"} <= set(names(s.hand[0]))
    assert s.phase == "add"  # 4. Add to Reservoir
    act(s, "add_to_reservoir", "Emu")
    assert s.phase == "play"  # 5. Play Animals
    act(s, "play", "Tiger")
    act(s, "end_play")
    assert s.phase == "declare"  # 6. Declare Challengers
    act(s, "declare", "Lion")  # two Full cards, one Ready Animal: the group locks itself
    assert s.phase == "statistic"  # 7. Challenge Phase
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert s.player == 1 and s.turns == 2  # 8. End turn: pass to the other player


def test_draw_uses_the_hand_size_table():
    for hand_size, drawn in [(0, 3), (1, 2), (2, 1), (5, 1)]:
        hand = ["Lion", "Tiger", "Cheetah", "Giraffe", "Horse"][:hand_size]
        s = scenario(p0=dict(hand=hand), player=1)
        end_turn_of(s, 1)
        assert len(s.hand[0]) == hand_size + drawn, hand_size


def test_hand_size_table_is_a_rule_option():
    # every Hand size draws other than under the default [3, 2, 1]: the table [4, 2] drew 2 from a Hand of
    # one, as the default does, so the test passed with the option ignored (found by a mutation audit)
    for hand_size, drawn in [(0, 4), (1, 3), (5, 3)]:
        hand = ["Lion", "Tiger", "Cheetah", "Giraffe", "Horse"][:hand_size]
        s = scenario(p0=dict(hand=hand), player=1, hand_size_table=[4, 3])
        end_turn_of(s, 1)
        assert len(s.hand[0]) == hand_size + drawn, hand_size
    with pytest.raises(ConfigError, match="hand_size_table"):
        TravelEarthGame(hand_size_table=[])


def test_draw_only_what_remains_in_deck_and_never_reshuffle_discard_pile():
    s = scenario(p0=dict(deck=["Lion"], discard=["Tiger"]), player=1, filler_to="discard")
    end_turn_of(s, 1)
    assert s.hand[0] == ids(["Lion"]) and s.deck[0] == []  # Hand 0 asks for 3; 1 remained
    before = list(s.discard[0])
    act(s, "skip_reservoir")
    act(s, "end_play")  # seat 0's turn ends; seat 1 has nothing to decide; seat 0 again
    assert s.player == 0 and s.turns == 3
    assert s.deck[0] == [] and s.hand[0] == ids(["Lion"]) and s.discard[0] == before  # never reshuffled


def test_once_deck_is_empty_stop_drawing_and_continue_playing():
    s = scenario(p0=dict(hand=["Lion"]), player=1, filler_to="discard")
    end_turn_of(s, 1)
    assert s.hand[0] == ids(["Lion"]) and not s.is_terminal()
    assert s.phase == "add" and s.current_player() == 0


def test_there_is_no_maximum_hand_size():
    hand = ["Lion", "Tiger", "Cheetah", "Giraffe", "Horse", "Koala", "Emu", "Walrus", "Orca", "Blue whale",
            "Sea otter", "Leopard"]
    s = scenario(p0=dict(hand=hand, deck=["Garden snail"]), player=1)
    end_turn_of(s, 1)
    assert len(s.hand[0]) == 13


def test_there_is_no_end_of_turn_hand_refill():
    s = scenario(p0=dict(hand=["Lion"], reservoir=["Koala"] * 1), phase="play")
    act(s, "end_play")  # nothing to declare: the turn ends
    assert s.player == 1 and s.hand[0] == ids(["Lion"])


# --------------------------------------------------------------------------- 6. challenges
def test_one_challenge_phase_per_turn():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(ready=["Sea otter"]))
    act(s, "declare", "Lion")
    act(s, "lock_challengers")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    # a Ready Tiger and a Full card are left, yet the phase ended the turn: no second Challenge Phase
    assert s.player == 1 and cid("Tiger") in s.ready[0] and s.full(0) == 1


def test_declare_complete_group_first_then_it_is_locked():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(ready=["Sea otter"]))
    act(s, "declare", "Lion")
    act(s, "lock_challengers")
    assert s.phase == "statistic"
    with pytest.raises(IllegalActionError):
        act(s, "declare", "Tiger")  # cannot add another Challenger after the group is locked
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert s.player == 1 and cid("Tiger") in s.ready[0]  # Tiger never challenged


def test_you_cannot_add_another_challenger_after_seeing_earlier_results():
    s = scenario(p0=dict(ready=["Lion", "Tiger", "Cheetah"], reservoir=["Koala", "Emu", "Walrus"]),
                 p1=dict(ready=["Sea otter", "Garden snail"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "lock_challengers")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")  # the first result: the Lion wins
    assert s.challenger == cid("Tiger") and s.full(0) == 1  # a Full card is left and the Cheetah is Ready ...
    assert legal(s, "declare") == []
    with pytest.raises(IllegalActionError):
        act(s, "declare", "Cheetah")  # ... but the group is locked
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Garden snail")
    assert s.player == 1 and cid("Cheetah") in s.ready[0] and s.full(0) == 1  # the Cheetah never challenged


def test_only_ready_animals_can_be_declared_and_each_challenges_once():
    s = scenario(p0=dict(ready=["Lion"], resting=["Tiger"], reservoir=["Koala", "Emu", "Walrus"]),
                 p1=dict(ready=["Sea otter", "Garden snail"]))
    assert legal(s, "declare") == [cid("Lion")]
    act(s, "declare", "Lion")
    assert s.phase == "statistic"  # nothing else could be declared: the group locked itself
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert s.player == 1  # Lion challenged once; the phase is over


def test_each_declared_animal_may_challenge_once_during_that_phase():
    # A Tireless albatross stays Ready after it survives, and two Full cards remain: still one challenge.
    s = scenario(p0=dict(ready=["Grey-headed albatross"], reservoir=["Koala", "Emu", "Walrus"]),
                 p1=dict(ready=["Sea otter", "Garden snail"]))
    act(s, "declare", "Grey-headed albatross")
    assert s.phase == "statistic" and s.queue == []  # it cannot be declared a second time: the group locked
    act(s, "statistic", SPEED)  # 127 km/h against 9 km/h
    act(s, "defend_ready", "Sea otter")
    assert s.ready[0] == ids(["Grey-headed albatross"]) and s.full(0) == 2
    assert s.player == 1  # the phase ended without a second challenge


def test_you_must_have_1_full_reservoir_card_for_each_declared_challenger():
    s = scenario(p0=dict(ready=["Lion", "Tiger", "Cheetah"], reservoir=["Koala", "Emu"]),
                 p1=dict(ready=["Sea otter"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    assert s.phase == "statistic" and s.queue == ids(["Tiger"])  # with 2 Full cards, at most 2 Challengers
    s2 = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), empty=(1, 0))
    assert legal(s2, "declare") == []


def test_resolve_the_group_one_animal_at_a_time():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]),
                 p1=dict(ready=["Sea otter", "Garden snail"]))
    act(s, "declare", "Tiger")
    act(s, "declare", "Lion")
    assert s.challenger == cid("Tiger") and s.queue == ids(["Lion"])
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Garden snail")
    assert s.challenger == cid("Lion") and s.queue == []


def test_challenger_chooses_statistic_then_defender_chooses_animal_from_either_row():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], resting=["Cheetah"]))
    act(s, "declare", "Lion")
    assert s.current_player() == 0 and s.phase == "statistic"
    act(s, "statistic", WEIGHT)
    assert s.current_player() == 1 and s.phase == "defender"
    assert legal(s, "defend_ready") == [cid("Tiger")] and legal(s, "defend_resting") == [cid("Cheetah")]


def test_animals_in_hand_cannot_be_played_during_opponents_challenge():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], hand=["Blue whale"]))
    challenge(s, "Lion", WEIGHT)
    assert s.current_player() == 1
    assert legal(s, "play") == [] and legal(s, "add_to_reservoir") == []
    with pytest.raises(IllegalActionError):
        act(s, "play", "Blue whale")


def test_surviving_challenger_becomes_resting_after_its_challenge():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert s.resting[0] == ids(["Lion"]) and s.discard[1] == ids(["Tiger"])
    # the same when the defending player could change the statistic and accepts the loss instead
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "accept")
    assert s.resting[0] == ids(["Lion"]) and s.ready[0] == [] and s.discard[1] == ids(["Tiger"])


def test_ready_defender_discard_the_losing_animal():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
    challenge(s, "Lion", DEVELOPMENT)
    act(s, "defend_ready", "Tiger")
    assert s.discard[0] == ids(["Lion"]) and s.ready[1] == ids(["Tiger"])


def test_defending_does_not_make_ready_animal_rest_and_it_may_defend_again():
    s = scenario(p0=dict(ready=["Tiger", "Cheetah"], reservoir=["Koala", "Emu"]), p1=dict(ready=["Lion"]))
    act(s, "declare", "Tiger")
    act(s, "declare", "Cheetah")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Lion")
    assert s.ready[1] == ids(["Lion"])  # still Ready
    act(s, "statistic", LIFESPAN)
    act(s, "defend_ready", "Lion")  # defends again
    assert names(s.discard[0]) == ["Cheetah", "Tiger"] and s.ready[1] == ids(["Lion"])


def test_if_comparison_ties_use_another_eligible_unused_statistic():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
    challenge(s, "Lion", OFFSPRING)
    act(s, "defend_ready", "Tiger")
    assert s.phase == "statistic" and s.current_player() == 0  # the Challenger picks the next statistic
    assert OFFSPRING not in legal(s, "statistic") and len(legal(s, "statistic")) == 5
    act(s, "statistic", WEIGHT)
    assert s.discard[1] == ids(["Tiger"])
    # a second tie: neither tied statistic comes back
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Lion"]))
    challenge(s, "Lion", OFFSPRING)
    act(s, "defend_ready", "Lion")
    act(s, "statistic", WEIGHT)
    assert s.phase == "statistic" and legal(s, "statistic") == [SPEED, LENGTH, LIFESPAN, DEVELOPMENT]
    with pytest.raises(IllegalActionError):
        act(s, "statistic", OFFSPRING)
    # the fifth tie still leaves the sixth statistic to compare
    for stat in (SPEED, LENGTH, LIFESPAN):
        act(s, "statistic", stat)
    assert s.phase == "statistic" and legal(s, "statistic") == [DEVELOPMENT] and s.discard == [[], []]


def test_all_six_statistics_exhausted_in_normal_tie_discards_challenger_and_ends_turn():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(ready=["Lion"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", SPEED)
    act(s, "defend_ready", "Lion")
    for stat in (WEIGHT, LENGTH, LIFESPAN, OFFSPRING, DEVELOPMENT):
        assert s.phase == "statistic"
        act(s, "statistic", stat)
    assert s.discard[0] == ids(["Lion"]) and s.ready[1] == ids(["Lion"])
    assert s.player == 1  # the turn ended: the declared Tiger never resolved
    assert cid("Tiger") in s.ready[0] and s.empty[0] == 1


def test_all_six_statistics_must_tie_before_the_challenger_is_discarded_whatever_their_order():
    # "If all six statistics are exhausted in a normal tie": five tied statistics leave the sixth to compare,
    # whichever statistic is the one left (here Top Speed, the first)
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Lion"]))
    challenge(s, "Lion", DEVELOPMENT)
    act(s, "defend_ready", "Lion")
    for stat in (OFFSPRING, LIFESPAN, LENGTH, WEIGHT):
        act(s, "statistic", stat)
    assert s.phase == "statistic" and s.player == 0 and legal(s, "statistic") == [SPEED]
    assert s.discard[0] == [] and s.ready[1] == ids(["Lion"])
    act(s, "statistic", SPEED)
    assert s.discard[0] == ids(["Lion"]) and s.ready[1] == ids(["Lion"]) and s.player == 1


# --------------------------------------------------------------------------- 7. Resting defenders
def test_resting_animal_can_defend_including_one_just_played_from_hand():
    # seat 1 plays the Tiger from its Hand on its own turn; on seat 0's next turn it is still Resting
    # seat 1 also has a Ready Sea otter: the Resting Tiger may defend all the same
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(hand=["Tiger"], ready=["Sea otter"]),
                 player=1, phase="play")
    act(s, "play", "Tiger")  # Hand empty, nothing to declare: seat 1's turn ends
    assert s.player == 0 and s.hand[1] == [] and s.resting[1] == ids(["Tiger"]) and s.ready[1] == ids(["Sea otter"])
    act(s, "skip_reservoir")
    act(s, "end_play")
    challenge(s, "Lion", DEVELOPMENT)
    assert legal(s, "defend_resting") == ids(["Tiger"]) and legal(s, "defend_ready") == ids(["Sea otter"])
    act(s, "defend_resting", "Tiger")  # 105 days against 109: the Tiger wins
    assert s.discard[0] == ids(["Lion"]) and s.discard[1] == []
    assert sorted(s.ready[1]) == sorted(ids(["Tiger", "Sea otter"]))  # it survived; seat 1's turn readied it


def test_option_resting_defender_win_both_discarded_a_resting_defender_that_wins_goes_with_the_challenger():
    # RULES.md choice 6: section 8's "if it wins, both Animals are discarded" read as the Resting penalty itself
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(resting=["Tiger"]),
                 resting_defender_win="both_discarded")
    challenge(s, "Lion", DEVELOPMENT)
    act(s, "defend_resting", "Tiger")
    assert s.discard[0] == ids(["Lion"]) and s.discard[1] == ids(["Tiger"])
    assert s.ready[1] == [] and s.resting[1] == []


def test_option_resting_defender_win_both_discarded_spares_a_ready_defender_and_an_armoured_shell():
    ready = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]),
                     resting_defender_win="both_discarded")
    challenge(ready, "Lion", DEVELOPMENT)
    act(ready, "defend_ready", "Tiger")
    assert ready.discard[0] == ids(["Lion"]) and ready.discard[1] == []
    shell = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(resting=["Galápagos giant tortoise"]),
                     resting_defender_win="both_discarded")
    challenge(shell, "Lion", LIFESPAN)
    act(shell, "defend_resting", "Galápagos giant tortoise")  # Armoured Shell: defends as if Ready
    assert shell.discard[0] == ids(["Lion"]) and shell.discard[1] == []
    assert shell.ready[1] == ids(["Galápagos giant tortoise"])


def test_resting_defender_tie_does_not_proceed_to_another_statistic_and_does_not_discard_challenger():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(resting=["Tiger"]))
    challenge(s, "Lion", OFFSPRING)
    act(s, "defend_resting", "Tiger")
    assert s.player == 1 and s.discard[0] == []  # no further statistic; the Challenger survives
    assert s.discard[1] == ids(["Tiger"])  # the Resting penalty: its tie loses
    assert s.resting[0] == ids(["Lion"])
    # the same when the defender could change the statistic (a Reservoir card to pay) and accepts instead
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(resting=["Tiger"], reservoir=["Emu"]))
    challenge(s, "Lion", OFFSPRING)
    act(s, "defend_resting", "Tiger")
    assert legal(s, "change_statistic")
    act(s, "accept")
    assert s.discard[1] == ids(["Tiger"]) and s.discard[0] == [] and s.resting[0] == ids(["Lion"])


def test_resting_penalty_applies_even_after_defensive_statistic_change():
    # Black... Frigatebird (Threat Display) may change to a tying statistic; Resting, its tie still loses.
    s = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                 p1=dict(resting=["Magnificent frigatebird"], reservoir=["Emu"]))
    challenge(s, "African bush elephant", WEIGHT)
    act(s, "defend_resting", "Magnificent frigatebird")
    act(s, "change_statistic", OFFSPRING)  # 1 = 1: a tie
    assert names(s.discard[1]) == ["Emu", "Magnificent frigatebird"] and s.discard[0] == []


# --------------------------------------------------------------------------- 8. defensive change
def test_defensive_change_permanently_discards_1_full_or_empty_reservoir_card():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu", "Walrus"]),
                 empty=(0, 1))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert s.phase == "change"
    act(s, "change_statistic", DEVELOPMENT)
    assert s.phase == "pay" and sorted(legal(s, "pay_reservoir")) == sorted(ids(["Emu", "Walrus"]))
    act(s, "pay_reservoir", "Walrus")
    assert s.reservoir[1] == ids(["Emu"]) and s.discard[1] == ids(["Walrus"])  # it left the Reservoir
    assert s.empty[1] == 0  # seat 1's turn has begun and refreshed it (the Empty slot: the case below)
    assert s.discard[0] == ids(["Lion"]) and s.ready[1] == ids(["Tiger"])  # Tiger wins on Development
    # every card Empty (seat 1 spent them challenging on its own turn): an Empty card pays all the same. A
    # second Challenger keeps the turn going, so seat 1's Refresh has not yet turned the other card Full.
    s = scenario(p0=dict(ready=["Lion", "Cheetah"], reservoir=["Koala", "Emu"]),
                 p1=dict(ready=["Tiger", "Sea otter"], reservoir=["Emu", "Walrus"]), empty=(0, 2))
    act(s, "declare", "Lion")
    act(s, "declare", "Cheetah")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert legal(s, "change_statistic") == [DEVELOPMENT]
    act(s, "change_statistic", DEVELOPMENT)
    act(s, "pay_reservoir", "Emu")
    assert s.reservoir[1] == ids(["Walrus"]) and s.empty[1] == 1 and s.discard[1] == ids(["Emu"])
    assert s.discard[0] == ids(["Lion"]) and s.player == 0 and s.challenger == cid("Cheetah")
    # a single Full card pays at once, and it too leaves the Reservoir rather than turning Empty
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)
    assert s.reservoir[1] == [] and s.reservoir_size(1) == 0 and s.empty[1] == 0 and s.discard[1] == ids(["Emu"])


def test_defensive_change_only_to_eligible_unused_statistic_that_can_actually_win():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert legal(s, "change_statistic") == [DEVELOPMENT]
    # the defender sees which statistic was used, so which ones are still eligible
    used = s.game.observation_layout.view(s.observation(1), "used_statistics")
    assert np.flatnonzero(used).tolist() == [WEIGHT]
    with pytest.raises(IllegalActionError):
        act(s, "change_statistic", OFFSPRING)  # a tie is not a win
    # "unused" is every statistic compared in this challenge, not only the last: the Frigatebird (Threat
    # Display, which may change to any unused statistic) tied on Offspring, then lost on Weight
    s = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                 p1=dict(ready=["Magnificent frigatebird"], reservoir=["Emu"]))
    challenge(s, "African bush elephant", OFFSPRING)
    act(s, "defend_ready", "Magnificent frigatebird")
    act(s, "statistic", WEIGHT)
    assert s.phase == "change" and legal(s, "change_statistic") == [SPEED, LENGTH, LIFESPAN, DEVELOPMENT]


def test_no_eligible_statistic_can_win_accept_the_loss_without_spending_reservoir():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"], reservoir=["Emu"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Sea otter")  # Lion beats the Sea otter on all six
    assert s.discard[1] == ids(["Sea otter"]) and s.reservoir[1] == ids(["Emu"])


def test_accepting_the_loss_keeps_the_reservoir_card():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "accept")
    assert s.discard[1] == ids(["Tiger"]) and s.reservoir[1] == ids(["Emu"])


def test_tie_after_defensive_change_discards_both_animals_when_defender_is_ready():
    s = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                 p1=dict(ready=["Magnificent frigatebird"], reservoir=["Emu"]))
    challenge(s, "African bush elephant", WEIGHT)
    act(s, "defend_ready", "Magnificent frigatebird")
    act(s, "change_statistic", OFFSPRING)
    assert s.discard[0] == ids(["African bush elephant"])
    assert names(s.discard[1]) == ["Emu", "Magnificent frigatebird"]


def test_resting_defender_that_wins_after_defensive_change_discards_both_animals():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(resting=["Tiger"], reservoir=["Emu"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_resting", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)  # Tiger wins on Development ...
    assert s.discard[0] == ids(["Lion"]) and names(s.discard[1]) == ["Emu", "Tiger"]  # ... and both go


def test_resting_defender_that_loses_after_defensive_change_is_the_only_animal_discarded():
    s = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                 p1=dict(resting=["Magnificent frigatebird"], reservoir=["Emu"]))
    challenge(s, "African bush elephant", WEIGHT)
    act(s, "defend_resting", "Magnificent frigatebird")
    act(s, "change_statistic", LENGTH)  # Threat Display allows a losing statistic: 7.5 m against 1.015 m
    assert s.discard[0] == [] and names(s.discard[1]) == ["Emu", "Magnificent frigatebird"]
    assert s.resting[0] == ids(["African bush elephant"])


# --------------------------------------------------------------------------- 9. Last Resort Sacrifice
def test_last_resort_only_when_defender_has_zero_animals_anywhere_on_field():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(resting=["Sea otter"], reservoir=["Blue whale"]))
    challenge(s, "Lion", WEIGHT)
    assert s.phase == "defender" and s.reservoir[1] == ids(["Blue whale"])  # Resting Animals defend
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"], reservoir=["Blue whale"]))
    challenge(s, "Lion", WEIGHT)
    assert s.phase == "defender" and s.reservoir[1] == ids(["Blue whale"])  # so do Ready ones, Resting row empty
    assert not s.discard[1]  # nothing was revealed from the Reservoir


def test_last_resort_starts_for_a_later_challenger_once_an_earlier_one_has_emptied_the_field():
    # "only when the defending player has zero Animals anywhere on their field" is asked of each Challenger as it
    # resolves: the field held an Animal when the group was locked, and none once the Lion had beaten it
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]),
                 p1=dict(ready=["Sea otter"], reservoir=["Blue whale"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert s.ready[1] == s.resting[1] == [] and s.challenger == cid("Tiger")
    act(s, "statistic", WEIGHT)  # no Defender is asked for: the Blue whale is revealed and stops the Tiger
    assert names(s.discard[0]) == ["Tiger"] and s.reservoir[1] == ids(["Blue whale"])
    assert s.player == 1 and not s.is_terminal()


def test_last_resort_reveals_random_reservoir_cards_one_by_one():
    orders = set()
    for seed in range(30):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["Sea otter", "Blue whale"]))
        s.rng = new_rng(seed)
        challenge(s, "Lion", WEIGHT)
        # the whale (136,000 kg) stops the Lion; the Sea otter is spent only if revealed first
        assert s.discard[0] == ids(["Lion"]) and cid("Blue whale") in s.reservoir[1]
        orders.add(tuple(names(s.discard[1])))
    assert orders == {(), ("Sea otter",)}


def test_last_resort_may_reveal_player_2s_unseen_starting_card_before_the_known_ones():
    # "Reveal a random Reservoir card": the unseen starting card is one of them from the first reveal on. Here the
    # Lion stops the Tiger on Weight, the Sea otter does not: the otter survives whenever the Lion is drawn first
    first_reveals = set()
    for seed in range(16):
        s = scenario(p0=dict(ready=["Tiger"], reservoir=["Koala"]), p1=dict(reservoir=["Sea otter"], unseen=["Lion"]))
        s.rng = new_rng(seed)
        challenge(s, "Tiger", WEIGHT)
        assert s.discard[0] == ids(["Tiger"]) and cid("Lion") in s.reservoir[1] and not s.unseen[1]
        first_reveals.add("Lion" if cid("Sea otter") in s.reservoir[1] else "Sea otter")
    assert first_reveals == {"Lion", "Sea otter"}


def test_last_resort_failure_is_discarded_and_another_card_revealed():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["Sea otter", "Garden snail"]))
    challenge(s, "Lion", WEIGHT)
    assert names(s.discard[1]) == ["Garden snail", "Sea otter"] and s.is_terminal()


def test_last_resort_winner_discards_challenger_and_returns_face_down_shuffled_in():
    # The winner stops the Challenger, which is discarded, and goes back into the Reservoir; the cards
    # revealed before it are discarded and none after it is revealed. (That it goes back face down and is
    # shuffled in, the Challenger's view and the next reveals show in the test below.)
    reservoir = ["Blue whale", "Sea otter", "Garden snail"]  # only the whale outweighs the Lion
    before_the_whale = set()
    for seed in range(30):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=reservoir), empty=(0, 1))
        s.rng = new_rng(seed)
        challenge(s, "Lion", WEIGHT)
        assert s.discard[0] == ids(["Lion"]) and s.ready[0] == [] and s.resting[0] == []  # discarded, not Resting
        assert s.empty[0] == 1 and not s.is_terminal() and s.player == 1  # paid for; its turn is over
        failed = names(s.discard[1])
        assert "Blue whale" not in failed and cid("Blue whale") in s.reservoir[1]  # the winner went back
        assert names(s.reservoir[1]) == sorted(set(reservoir) - set(failed))  # no other card left it
        assert s.reservoir_size(1) == 3 - len(failed)
        before_the_whale.add(tuple(failed))
    # the whale came up first, second or third over the seeds, and stopped the reveals each time: when it came
    # up first or second, the cards after it were never revealed
    assert before_the_whale == {(), ("Sea otter",), ("Garden snail",), ("Garden snail", "Sea otter")}


def _lion_and_tiger_challenge_a_bare_reservoir(reservoir: list[str], seed: int, challenger: int = 0):
    """The challenger's Lion and Tiger declared on Weight against a defender with no field Animals and
    ``reservoir`` (its first card Full, its second Empty), the game's generator at ``seed``: the Lion's
    Last Resort is resolved, the Tiger waits."""
    attack, defend = dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), dict(reservoir=reservoir)
    p0, p1 = (attack, defend) if challenger == 0 else (defend, attack)
    s = scenario(p0=p0, p1=p1, player=challenger, empty=(0, 1) if challenger == 0 else (1, 0))
    s.rng = new_rng(seed)
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", WEIGHT)
    return s


def test_a_last_resort_winner_goes_back_as_it_lay_so_the_win_turns_no_empty_card_full():
    # RULES.md 11. Seat 1 has one Full and one Empty card, and either whale outweighs the Lion. The reveal
    # takes the Empty slot (RULES.md 10) and the winner goes back into it: still one Full, one Empty when
    # the group's next Challenger comes (seat 1's Refresh is a turn away). Before, it went back Full, so a
    # Last Resort win turned a card Full that only its owner's Refresh may.
    for seed in range(10):
        s = _lion_and_tiger_challenge_a_bare_reservoir(["Blue whale", "Sperm whale"], seed)
        assert s.discard[0] == ids(["Lion"]) and s.discard[1] == []
        assert s.player == 0 and s.challenger == cid("Tiger")  # the turn goes on
        assert s.reservoir_size(1) == 2 and s.full(1) == 1 and s.empty[1] == 1
    # a Full card that wins goes back Full: with no Empty card the counts stay as they were too
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(reservoir=["Blue whale"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", WEIGHT)
    assert s.challenger == cid("Tiger") and s.reservoir_size(1) == 1 and s.full(1) == 1 and s.empty[1] == 0


def test_return_the_winning_animal_face_down_to_the_reservoir_and_shuffle_it_back_in():
    # face down: the Challenger's view of the table afterwards is the same whichever card won; only the
    # record of the challenge says which card the reveal showed (public: "Reveal a random Reservoir card")
    views = []
    for winner in ("Blue whale", "Sperm whale"):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=[winner], hand=["Giraffe"]))
        challenge(s, "Lion", WEIGHT)
        assert s.reservoir[1] == ids([winner]) and s.discard[0] == ids(["Lion"]) and s.discard[1] == []
        text = s.render_text(player=0).splitlines()
        start = text.index("Challenges of turn 1, Player 1 (seat 0, you) challenging:")
        assert text[start + 1].startswith(f"  Lion TE-003 on Weight; no Animal defends, Last Resort: reveals {winner}")
        views.append((s.observation(0), text[:start] + text[start + 2:]))
    np.testing.assert_array_equal(views[0][0], views[1][0])
    assert views[0][1] == views[1][1] and "whale" not in "\n".join(views[0][1])
    # shuffled in: the next Last Resort reveals the returned whale first in some deals, second in others
    whale_first = set()
    for seed in range(40):
        s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]),
                     p1=dict(reservoir=["Blue whale", "Sea otter"]))
        s.rng = new_rng(seed)
        act(s, "declare", "Lion")
        act(s, "declare", "Tiger")
        act(s, "statistic", WEIGHT)  # the whale stops the Lion and goes back
        if cid("Sea otter") not in s.reservoir[1]:
            continue  # the otter was revealed first and discarded
        act(s, "statistic", WEIGHT)  # the whale stops the Tiger too
        assert s.discard[0] == ids(["Lion", "Tiger"]) and cid("Blue whale") in s.reservoir[1]
        whale_first.add(cid("Sea otter") in s.reservoir[1])
    assert whale_first == {True, False}


def test_reservoir_exhausted_without_stopping_challenger_and_no_field_animals_loses():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["Sea otter", "Koala"]))
    challenge(s, "Lion", WEIGHT)
    assert s.is_terminal() and s.winner == 0 and s.reservoir_size(1) == 0


def test_zero_reservoir_cards_by_itself_is_not_a_loss():
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Tiger"]))
    end_turn_of(s, 0)
    assert not s.is_terminal() and s.reservoir_size(0) == 0 and s.reservoir_size(1) == 0
    # not even once the last field Animal is gone: seat 1 plays on from its Hand
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"], hand=["Tiger"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert not s.is_terminal() and s.reservoir_size(1) == 0 and s.ready[1] == s.resting[1] == []
    assert s.player == 1 and s.phase == "add"
    act(s, "skip_reservoir")
    act(s, "play", "Tiger")
    assert not s.is_terminal() and s.resting[1] == ids(["Tiger"])


# --------------------------------------------------------------------------- stalemates and truncation
def test_stalemate_turns_without_any_card_moving_draw_the_game():
    s = scenario(p0=dict(ready=["Lion"], hand=["Emu"]), p1=dict(ready=["Tiger"], hand=["Koala"]),
                 filler_to="discard", stalemate_turns=6, phase="add")
    for _ in range(6):
        assert not s.is_terminal()
        act(s, "skip_reservoir")  # no Reservoir: nobody can ever challenge, and nobody plays
        act(s, "end_play")
    assert s.is_terminal() and s.drawn_game and list(s.returns()) == [0.0, 0.0]
    # by default (RULES.md) 20 such turns draw the game, and 19 do not
    s = scenario(p0=dict(ready=["Lion"], hand=["Emu"]), p1=dict(ready=["Tiger"], hand=["Koala"]),
                 filler_to="discard", phase="add")
    for turn in range(20):
        assert not s.is_terminal(), f"drawn after {turn} quiet turns"
        act(s, "skip_reservoir")
        act(s, "end_play")
    assert s.is_terminal() and s.drawn_game


def test_idle_players_turns_pass_at_once_and_a_stuck_game_is_drawn():
    s = scenario(p0=dict(ready=["Lion"], hand=["Emu"]), p1=dict(ready=["Tiger"]), filler_to="discard",
                 stalemate_turns=500, phase="add")
    act(s, "skip_reservoir")
    act(s, "end_play")
    assert s.player == 0 and s.turns == 2  # seat 1 had nothing to decide
    s2 = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Tiger"]), filler_to="discard", stalemate_turns=500)
    end_turn_of(s2, 0)  # nobody can decide anything ever again: 500 idle turns, no recursion
    assert s2.is_terminal() and s2.drawn_game and s2.turns == 500


def test_max_turns_truncation_ends_every_game():
    from tabletop_envs.travel_earth.env import env

    e = env(max_turns=4)
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter(10_000):
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert not e.agents and e.game_state.turn <= 4


def test_idle_turns_past_max_turns_end_in_the_stalemate_draw_not_a_truncation():
    # both seats are stuck from turn 390 (no Reservoir, nothing to draw or play): locking the empty group passes
    # every later turn inside one step, past max_turns 400, to the stalemate's draw 20 quiet turns on
    from tabletop_envs.travel_earth.env import env

    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Tiger"]), filler_to="discard")
    s.turns = 390
    e = env(decks=s.game.decks_spec, deck_format="casual", first_player=0)
    assert e.max_turns == 400
    e.reset(options={"state": s})
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    assert e.game_state.drawn_game and e.game_state.turn == 410
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert set(e.rewards.values()) == {0.0}


# --------------------------------------------------------------------------- readings of unclear rules (RULES.md)
def test_at_most_one_defensive_change_per_challenge_and_a_ready_defender_losing_after_it_is_discarded():
    s = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                 p1=dict(ready=["Magnificent frigatebird"], reservoir=["Emu", "Walrus"]))
    challenge(s, "African bush elephant", WEIGHT)
    act(s, "defend_ready", "Magnificent frigatebird")
    act(s, "change_statistic", LENGTH)  # Threat Display: a losing statistic is allowed
    act(s, "pay_reservoir", "Emu")
    assert s.phase != "change"  # no second change
    assert names(s.discard[1]) == ["Emu", "Magnificent frigatebird"] and s.discard[0] == []


def test_last_resort_compares_the_challengers_chosen_statistic():
    fast = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["Blue whale"]))
    challenge(fast, "Lion", SPEED)  # 80 km/h against 48 km/h: the whale fails
    assert fast.is_terminal() and fast.winner == 0
    heavy = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["Blue whale"]))
    challenge(heavy, "Lion", WEIGHT)
    assert not heavy.is_terminal() and heavy.discard[0] == ids(["Lion"])


def test_last_resort_tie_does_not_stop_the_challenger():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["Lion"]))
    challenge(s, "Lion", WEIGHT)
    assert s.is_terminal() and s.winner == 0 and s.discard[1] == ids(["Lion"])


def test_challenge_against_empty_field_and_empty_reservoir_wins_the_game():
    s = scenario(p0=dict(ready=["Garden snail"], reservoir=["Koala"]), p1=dict(hand=["Blue whale"]))
    challenge(s, "Garden snail", SPEED)
    assert s.is_terminal() and list(s.returns()) == [1.0, -1.0]


def test_unseen_starting_card_revealed_by_last_resort_becomes_known_to_its_owner():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(unseen=["Blue whale"]))
    lay = s.game.observation_layout
    assert not lay.view(s.observation(1), "my_reservoir_known").any()
    challenge(s, "Lion", WEIGHT)
    assert s.unseen[1] == [] and s.reservoir[1] == ids(["Blue whale"])
    assert lay.view(s.observation(1), "my_reservoir_known")[cid("Blue whale")] > 0


def test_last_resort_uses_tiny_of_the_revealed_card():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["House mouse"]))
    challenge(s, "Lion", WEIGHT)
    assert not s.is_terminal() and s.discard[0] == ids(["Lion"])


def test_player_2_unseen_starting_card_may_pay_for_a_defensive_change():
    # its pay action was only ever asserted illegal: a mask that never offered it failed the golden digests alone
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(ready=["Tiger"], reservoir=["Emu"], unseen=["Walrus"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)
    assert s.phase == "pay" and legal(s, "pay_unseen") == [0]
    act(s, "pay_unseen")
    assert s.unseen[1] == [] and s.reservoir[1] == ids(["Emu"]) and s.discard[1] == ids(["Walrus"])
    assert s.discard[0] == ids(["Lion"])
    # the unseen card alone is a Reservoir card too: the change is offered, and it pays
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], unseen=["Walrus"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)
    assert s.unseen[1] == [] and s.discard[1] == ids(["Walrus"]) and s.discard[0] == ids(["Lion"])


def test_player_2_unseen_card_counts_toward_the_six_card_reservoir_limit():
    s = scenario(p1=dict(unseen=["Koala"], reservoir=["Emu", "Walrus", "Springbok", "Sea otter", "Orca"],
                         hand=["Lion"]), player=1, phase="add")
    assert legal(s, "add_to_reservoir") == []


def test_reservoir_over_the_limit_after_blubber_store_leaves_keeps_its_cards_but_takes_no_addition():
    seven = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca", "Giraffe"]
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Horse"]),
                 p1=dict(ready=["Bowhead whale"], reservoir=seven, hand=["Tiger"]))
    challenge(s, "Lion", SPEED)  # 80 km/h against 19.3 km/h
    act(s, "defend_ready", "Bowhead whale")
    act(s, "accept")  # it could pay to change to Weight; it accepts the loss
    assert s.discard[1] == ids(["Bowhead whale"])
    assert s.player == 1 and s.reservoir_size(1) == 7 and legal(s, "add_to_reservoir") == []


def test_the_last_unused_statistic_and_a_sole_possible_defender_are_asked_though_each_is_a_single_move():
    # RULES.md 14: only steps with nothing to decide are taken; these two stay decisions in v0
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Lion"]))
    act(s, "declare", "Lion")
    act(s, "statistic", 0)
    assert (s.phase, s.current_player(), len(s.legal_actions())) == ("defender", 1, 1)
    act(s, "defend_ready", "Lion")
    for k in range(1, 5):  # a Lion against a Lion ties on every statistic
        act(s, "statistic", k)
    assert (s.phase, s.current_player(), len(s.legal_actions())) == ("statistic", 0, 1)


def test_declare_step_locks_itself_when_no_further_challenger_can_be_declared():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"]))
    act(s, "declare", "Tiger")  # one Full card: nobody else can join
    assert s.phase == "statistic" and s.challenger == cid("Tiger")


def test_add_up_to_1_card_to_the_reservoir_on_each_of_your_turns():
    # "4. Add to Reservoir" is a step of every turn: one turn's addition does not use up the next turn's.
    s = scenario(p0=dict(hand=["Lion", "Tiger"]), filler_to="discard", phase="add")
    act(s, "add_to_reservoir", "Lion")
    assert s.phase == "play" and legal(s, "add_to_reservoir") == []
    act(s, "end_play")  # nothing Ready: the turn ends; seat 1 has nothing at all to decide
    assert s.player == 0 and s.turns == 2 and s.phase == "add"
    assert legal(s, "add_to_reservoir") == [cid("Tiger")]
    act(s, "add_to_reservoir", "Tiger")
    assert sorted(s.reservoir[0]) == sorted(ids(["Lion", "Tiger"]))


def test_a_card_leaving_the_reservoir_takes_an_empty_slot_first():
    # RULES.md 10. Seat 1 holds one Full and one Empty card. Paying for the first change takes the Empty
    # one, so the Full card is still there for Ink Cloud against the second Challenger, in the same turn.
    _a_card_leaving_the_defenders_reservoir_takes_an_empty_slot_first(challenger=0)


def _a_card_leaving_the_defenders_reservoir_takes_an_empty_slot_first(challenger: int) -> None:
    c, d = challenger, 1 - challenger
    attack = dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"])
    defend = dict(ready=["Tiger", "Giant Pacific octopus"], reservoir=["Emu", "Walrus"])
    p0, p1 = (attack, defend) if c == 0 else (defend, attack)
    s = scenario(p0=p0, p1=p1, player=c, empty=(0, 1) if c == 0 else (1, 0))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)  # 105 days against 109: Tiger wins
    act(s, "pay_reservoir", "Walrus")
    assert s.reservoir_size(d) == 1 and s.full(d) == 1 and s.empty[d] == 0
    assert s.empty[c] == 2, "the two Challengers turned both their seat's cards Empty, and nothing more"
    assert s.player == c and s.challenger == cid("Tiger")  # the turn goes on: the test is not undone by a Refresh
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Giant Pacific octopus")
    act(s, "change_statistic", LENGTH)  # Ink Cloud turns the Full card Empty instead of discarding it
    assert s.discard[d] == ids(["Walrus"]) and s.reservoir[d] == ids(["Emu"])  # the Emu was not discarded
    assert names(s.discard[c]) == ["Lion", "Tiger"]


def test_a_card_added_to_the_reservoir_is_full_at_once_so_player_1_may_win_on_their_first_turn():
    # RULES.md 22. The text never says how an added card lies; it goes in upright (Full), so it pays for a
    # Challenger that same turn. With Ambush, Player 1's first turn can then meet Player 2's empty field, and
    # Last Resort has only the unseen starting card to reveal: if it fails, Player 2 has lost.
    s = scenario(p0=dict(hand=["Leopard", "Koala"]), p1=dict(unseen=["Garden snail"]), phase="add")
    assert s.turns == 0 and s.player == s.first == 0 and s.reservoir_size(0) == 0
    act(s, "add_to_reservoir", "Koala")
    assert s.reservoir_size(0) == 1 and s.full(0) == 1 and s.empty[0] == 0  # Full, not Empty
    act(s, "play", "Leopard")  # Ambush: the Ready Row; the Hand is empty, so the Declare step follows
    assert legal(s, "declare") == [cid("Leopard")]  # the card added this turn pays for it
    act(s, "declare", "Leopard")
    assert s.empty[0] == 1
    act(s, "statistic", SPEED)  # 57.9 km/h against 0.048 km/h
    assert s.is_terminal() and s.winner == 0 and s.turns == 0 and s.discard[1] == ids(["Garden snail"])


def test_stalemate_counts_only_consecutive_turns_without_any_card_moving():
    # RULES.md 13: a turn in which a card moves restarts the count.
    s = scenario(p0=dict(ready=["Lion"], hand=["Emu", "Koala"]), p1=dict(ready=["Tiger"]), filler_to="discard",
                 stalemate_turns=3, phase="add")
    act(s, "skip_reservoir")
    act(s, "end_play")  # turn 1 (seat 0) and turn 2 (seat 1, idle): nothing moved
    assert s.turns == 2 and s.quiet == 2 and not s.is_terminal()
    act(s, "add_to_reservoir", "Emu")  # turn 3: a card moves
    act(s, "end_play")
    act(s, "lock_challengers")  # seat 0 could challenge; it declares nobody
    assert s.turns == 4 and s.quiet == 1 and not s.is_terminal()  # turn 4 (seat 1, idle) was quiet again
    act(s, "skip_reservoir")
    act(s, "end_play")
    act(s, "lock_challengers")
    assert s.is_terminal() and s.drawn_game and s.turns == 6  # turns 4, 5 and 6: three in a row


_SEAT_0_TURNS = {  # seat 0's position and its turn: one in which only this kind of card moves, one without
    "draw": (dict(deck=["Emu"]), ["skip_reservoir", "end_play"], dict(hand=["Emu"]), ["skip_reservoir", "end_play"]),
    "play": (dict(hand=["Emu"]), ["skip_reservoir", ("play", "Emu")], dict(hand=["Emu"]),
             ["skip_reservoir", "end_play"]),
    "discard": (dict(ready=["Lion"], reservoir=["Koala"]),
                [("declare", "Lion"), ("statistic", WEIGHT), ("defend_ready", "Sea otter")],
                dict(ready=["Lion"], reservoir=["Koala"]), ["lock_challengers"]),
}


@pytest.mark.parametrize("kind", sorted(_SEAT_0_TURNS))
def test_stalemate_count_restarts_when_a_card_is_drawn_played_or_discarded(kind):
    # RULES.md 13: each card movement restarts the count (additions: the test above). A Homing return is not
    # a case of its own: a Last Resort that does not end the game always discards the Challenger too.
    moved, moves, still, passes = _SEAT_0_TURNS[kind]
    outcomes = []
    for seat_0, actions in ((moved, moves), (still, passes)):
        # seat 1 keeps a Hand card, so its next turn has an Add decision and does not pass at once
        s = scenario(p0=seat_0, p1=dict(ready=["Sea otter"], hand=["Koala"]), player=1, filler_to="discard",
                     stalemate_turns=2)
        end_turn_of(s, 1)  # a quiet turn
        for a in actions:
            act(s, *a) if isinstance(a, tuple) else act(s, a)
        assert s.turns == 2
        outcomes.append(s.drawn_game)
    assert outcomes == [False, True]  # the second quiet turn in a row draws the game; a moved card does not


def test_a_last_resort_win_stops_only_that_challenger_and_the_rest_of_the_group_still_resolves():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(reservoir=["Blue whale"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", WEIGHT)  # the Blue whale (136,000 kg) stops the Lion
    assert s.discard[0] == ids(["Lion"]) and s.reservoir[1] == ids(["Blue whale"])
    assert s.player == 0 and s.challenger == cid("Tiger") and s.phase == "statistic" and s.empty[0] == 2
    act(s, "statistic", SPEED)  # 64.4 km/h against 48: the whale fails, the Reservoir is exhausted
    assert s.is_terminal() and s.winner == 0 and s.discard[1] == ids(["Blue whale"])
    assert s.current_player() == TERMINAL and list(s.returns()) == [1.0, -1.0], "nobody moves after the win"


@pytest.mark.parametrize("kwargs, problem", [
    ({"deck_format": ["casual"]}, r"deck_format must be one of \['casual', 'championship'\], got \['casual'\]"),
    ({"deck_format": None}, r"deck_format must be one of \['casual', 'championship'\], got None"),
    ({"hand_size_table": 3}, r"hand_size_table must be a non-empty list .* got 3"),
    ({"hand_size_table": {"a": 1}}, r"hand_size_table must be a non-empty list .* got \{'a': 1\}"),
    ({"hand_size_table": [3, -1]}, r"hand_size_table must be a non-empty list .* got \[3, -1\]"),
    ({"stalemate_turns": 1}, r"stalemate_turns must be an int from 2 to 10000, got 1"),
    ({"stalemate_turns": "20"}, r"stalemate_turns must be an int from 2 to 10000, got '20'"),
    # idle turns pass inside one step until the stalemate: 10**12 of them hung the env
    ({"stalemate_turns": 10**12}, r"stalemate_turns must be an int from 2 to 10000, got 1000000000000 .*max_turns"),
    ({"first_player": 2}, r"first_player must be None \(coin flip\), 0 or 1; got 2"),
    # 1.0 == 1 passed, and the deal then indexed a list with it
    ({"first_player": 1.0}, r"first_player must be None \(coin flip\), 0 or 1; got 1.0"),
    ({"resting_defender_win": "never"}, r"resting_defender_win must be one of .* got 'never'"),
    ({"decks": "starter"}, r"decks must be None or a list of two decks"),
    ({"decks": ["starter"]}, r"decks must be None or a list of two decks"),
])
def test_an_option_value_of_the_wrong_type_is_a_config_error_naming_the_option_and_its_values(kwargs, problem):
    with pytest.raises(ConfigError, match=problem):
        TravelEarthGame(**kwargs)


def test_an_eligible_unused_statistic_is_any_of_the_six_not_yet_compared_in_this_challenge():
    # reading 3: "unused" is per challenge: the group's next Challenger may choose the statistic the first used
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]),
                 p1=dict(ready=["Sea otter", "Garden snail"]))
    act(s, "declare", "Tiger")
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Garden snail")
    assert s.challenger == cid("Lion") and legal(s, "statistic") == list(range(6))
    act(s, "statistic", WEIGHT)
    assert s.phase == "defender" and s.stat == WEIGHT


def test_a_defensive_change_needs_at_least_one_reservoir_card():
    # reading 7: with an empty Reservoir nothing can pay, so the losing Defender is discarded at once
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger", "Sea otter"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert s.phase != "change" and s.discard[1] == ids(["Tiger"]) and s.resting[0] == ids(["Lion"])


def test_a_ready_defender_that_wins_after_a_defensive_change_discards_only_the_challenger():
    # reading 8: Ready Defender, win after the change: the Challenger goes, the Defender stays Ready
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger", "Sea otter"], reservoir=["Emu"]))
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)  # Tiger wins on Development
    assert s.discard[0] == ids(["Lion"]) and s.discard[1] == ids(["Emu"])
    assert cid("Tiger") in s.ready[1] and s.resting[0] == []


def test_a_card_a_last_resort_reveal_discards_takes_an_empty_slot_first():
    # reading 10 for a Last Resort: seat 1 holds one Full and one Empty card. Where the Koala is revealed first
    # and lost, it took the Empty slot, so the whale that then wins is still Full for the group's next Challenger
    koala_first = 0
    for seed in range(10):
        s = _lion_and_tiger_challenge_a_bare_reservoir(["Koala", "Blue whale"], seed)
        assert s.discard[0] == ids(["Lion"]) and s.challenger == cid("Tiger")
        if s.discard[1] == ids(["Koala"]):
            koala_first += 1
            assert s.reservoir[1] == ids(["Blue whale"]) and s.full(1) == 1 and s.empty[1] == 0
        else:
            assert s.reservoir_size(1) == 2 and s.full(1) == 1 and s.empty[1] == 1
    assert 0 < koala_first < 10


def test_option_first_player_fixes_the_first_seat_and_none_flips_a_coin():
    for first in (0, 1):
        game = TravelEarthGame(first_player=first)
        assert {game.new_initial_state(seed).first for seed in range(10)} == {first}
    assert {TravelEarthGame().new_initial_state(seed).first for seed in range(40)} == {0, 1}


def test_draw_uses_the_hand_size_table_for_the_seat_1_player_by_their_own_hand():
    # test_draw_uses_the_hand_size_table draws for seat 0 only; seat 1 draws by its own Hand, whatever
    # seat 0 holds (a 5-card Hand would draw 1, an empty one 3)
    for own, other, drawn in [(0, 5, 3), (1, 0, 2), (2, 5, 1), (5, 0, 1)]:
        animals = ["Lion", "Tiger", "Cheetah", "Giraffe", "Horse"]
        s = scenario(p0=dict(hand=animals[:other]), p1=dict(hand=animals[:own]), player=0)
        end_turn_of(s, 0)
        assert len(s.hand[1]) == own + drawn and len(s.hand[0]) == other, (own, other)


def test_ability_blubber_store_holds_while_seat_1s_whale_is_a_declared_or_resolving_challenger():
    # the seat-1 side of test_ability_blubber_store_holds_while_the_whale_is_a_declared_or_resolving_challenger:
    # the Challengers are on the field of the player whose turn it is, and only theirs
    seven = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca", "Lion"]
    s = scenario(p0=dict(ready=["Sea otter"]), p1=dict(ready=["Tiger", "Bowhead whale", "Lion"], reservoir=seven),
                 player=1)
    act(s, "declare", "Tiger")
    act(s, "declare", "Bowhead whale")
    assert s.queue == ids(["Tiger", "Bowhead whale"])
    for seat in (0, 1):
        assert s.reservoir_capacity(1) == 7 and "Reservoir 7/7" in s.render_text(seat)
    assert s.reservoir_capacity(0) == 6, "the whale is player_1's: it raises no other Reservoir"
    act(s, "lock_challengers")  # the Tiger resolves, the whale waits its turn
    assert s.reservoir_capacity(1) == 7 and s.reservoir_capacity(0) == 6


def test_a_card_leaving_seat_0s_reservoir_takes_an_empty_slot_first_when_seat_1_challenges():
    # test_a_card_leaving_the_reservoir_takes_an_empty_slot_first with the seats swapped: the paying and the
    # Ink Cloud are the defending seat's (seat 0 here), whichever seat challenges
    _a_card_leaving_the_defenders_reservoir_takes_an_empty_slot_first(challenger=1)


def test_a_last_resort_winner_in_seat_0s_reservoir_goes_back_as_it_lay():
    # test_a_last_resort_winner_goes_back_as_it_lay_so_the_win_turns_no_empty_card_full with the seats swapped
    for seed in range(10):
        s = _lion_and_tiger_challenge_a_bare_reservoir(["Blue whale", "Sperm whale"], seed, challenger=1)
        assert s.discard[1] == ids(["Lion"]) and s.discard[0] == []
        assert s.player == 1 and s.challenger == cid("Tiger")
        assert s.reservoir_size(0) == 2 and s.full(0) == 1 and s.empty[0] == 1


def test_ability_homing_sends_the_card_back_to_its_owners_hand_in_either_seat():
    # test_ability_homing with seat 1 challenging: the pigeon goes back to seat 0's Hand
    for seed in range(5):
        s = scenario(p0=dict(reservoir=["Rock dove (pigeon)", "Sea otter"]), p1=dict(ready=["Lion"], reservoir=["Koala"]),
                     player=1)
        s.rng = new_rng(seed)
        act(s, "declare", "Lion")
        act(s, "statistic", WEIGHT)
        assert s.hand[0] == ids(["Rock dove (pigeon)"]) and s.hand[1] == []
        assert names(s.discard[0]) == ["Sea otter"] and s.is_terminal() and list(s.returns()) == [-1.0, 1.0]


def test_last_resort_only_when_seat_0_as_defender_has_zero_animals_anywhere_on_field():
    # test_last_resort_only_when_defender_has_zero_animals_anywhere_on_field with seat 1 challenging: seat 0's
    # Resting Animals defend, whatever seat 1's own rows hold
    s = scenario(p0=dict(resting=["Sea otter"], reservoir=["Blue whale"]), p1=dict(ready=["Lion"], reservoir=["Koala"]),
                 player=1)
    challenge(s, "Lion", WEIGHT)
    assert s.phase == "defender" and s.reservoir[0] == ids(["Blue whale"]) and not s.discard[0]
    s = scenario(p0=dict(reservoir=["Blue whale"]), p1=dict(ready=["Lion"], resting=["Tiger"], reservoir=["Koala"]),
                 player=1)
    challenge(s, "Lion", WEIGHT)  # seat 0 has no Animal: the whale is revealed and outweighs the Lion
    assert s.discard[1] == ids(["Lion"]) and s.reservoir[0] == ids(["Blue whale"])


def test_a_defensive_change_needs_at_least_one_reservoir_card_of_the_defending_seat_0():
    # test_a_defensive_change_needs_at_least_one_reservoir_card with seat 1 challenging: seat 1's own
    # Reservoir cannot pay for seat 0's change
    s = scenario(p0=dict(ready=["Tiger", "Sea otter"]), p1=dict(ready=["Lion"], reservoir=["Koala", "Emu"]), player=1)
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert s.phase != "change" and s.discard[0] == ids(["Tiger"]) and s.resting[1] == ids(["Lion"])


def test_player_2_unseen_starting_card_in_seat_0_may_pay_for_a_defensive_change():
    # test_player_2_unseen_starting_card_may_pay_for_a_defensive_change with seat 0 as Player 2
    s = scenario(p0=dict(ready=["Tiger"], reservoir=["Emu"], unseen=["Walrus"]),
                 p1=dict(ready=["Lion"], reservoir=["Koala"]), player=1, first=1)
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)
    assert s.phase == "pay" and legal(s, "pay_unseen") == [0]
    act(s, "pay_unseen")
    assert s.unseen[0] == [] and s.reservoir[0] == ids(["Emu"]) and s.discard[0] == ids(["Walrus"])
    assert s.discard[1] == ids(["Lion"])


def test_a_losing_defender_of_seat_0_goes_to_seat_0s_discard_pile():
    # whichever Animal loses is discarded, to its owner's Discard Pile: seat 1 challenging, seat 0's Tiger loses
    s = scenario(p0=dict(ready=["Tiger", "Sea otter"]), p1=dict(ready=["Lion"], reservoir=["Koala"]), player=1)
    challenge(s, "Lion", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert s.discard[0] == ids(["Tiger"]) and s.discard[1] == [] and s.ready[0] == ids(["Sea otter"])


def test_ability_stoop_of_a_seat_1_challenger_keeps_seat_0s_resting_animals_from_defending():
    # test_ability_stoop (test_abilities.py) with seat 1's falcon challenging seat 0
    s = scenario(p0=dict(ready=["Tiger"], resting=["Lion"]), p1=dict(ready=["Peregrine falcon"], reservoir=["Koala"]),
                 player=1)
    act(s, "declare", "Peregrine falcon")
    act(s, "statistic", SPEED)
    assert legal(s, "defend_resting") == [] and legal(s, "defend_ready") == [cid("Tiger")]


def test_lose_when_no_field_animals_and_last_resort_exhausts_reservoir_seat_1_winning():
    # test_lose_when_no_field_animals_and_last_resort_exhausts_reservoir with seat 1 challenging: the win is
    # the challenging seat's, not seat 0's
    s = scenario(p0=dict(reservoir=["Sea otter"]), p1=dict(ready=["Cheetah"], reservoir=["Koala"]), player=1)
    challenge(s, "Cheetah", SPEED)
    assert s.is_terminal() and list(s.returns()) == [-1.0, 1.0]
    assert names(s.discard[0]).count("Sea otter") == 1


def test_ability_early_riser_draws_one_more_card_for_its_owner_in_either_seat():
    # test_ability_early_riser (test_abilities.py) draws for seat 0 only: seat 1's roadrunner adds to seat 1's
    # draw, and seat 0's adds nothing to it
    s = scenario(p1=dict(ready=["Greater roadrunner"]))
    act(s, "lock_challengers")
    assert s.player == 1 and len(s.hand[1]) == 3 + 1
    other = scenario(p0=dict(ready=["Greater roadrunner"]))
    act(other, "lock_challengers")
    assert other.player == 1 and len(other.hand[1]) == 3


def test_ability_pouch_allows_seat_1_two_additions():
    # test_ability_pouch (test_abilities.py) with seat 1's kangaroo
    s = scenario(p1=dict(resting=["Red kangaroo"], hand=["Lion", "Tiger", "Emu"]), player=1, phase="add")
    act(s, "add_to_reservoir", "Lion")
    assert s.phase == "add"
    act(s, "add_to_reservoir", "Tiger")
    assert s.phase == "play" and s.reservoir_size(1) == 2
    other = scenario(p0=dict(resting=["Red kangaroo"]), p1=dict(hand=["Lion", "Tiger", "Emu"]), player=1, phase="add")
    act(other, "add_to_reservoir", "Lion")
    assert other.phase == "play" and other.reservoir_size(1) == 1


def test_ability_blubber_store_raises_seat_1s_reservoir_limit_to_7():
    # test_ability_blubber_store (test_abilities.py) with seat 1's whale; seat 0's whale raises only seat 0's
    six = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca"]
    s = scenario(p1=dict(ready=["Bowhead whale"], reservoir=six, hand=["Lion"]), player=1, phase="add")
    act(s, "add_to_reservoir", "Lion")
    assert s.reservoir_size(1) == 7
    other = scenario(p0=dict(ready=["Bowhead whale"]), p1=dict(reservoir=six, hand=["Lion"]), player=1, phase="add")
    assert legal(other, "add_to_reservoir") == []


def test_all_six_statistics_tied_ends_seat_1s_turn_and_its_unresolved_challenger_stays_in_seat_1s_ready_row():
    # test_all_six_statistics_exhausted_in_normal_tie_discards_challenger_and_ends_turn with seat 1 challenging
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), player=1)
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", SPEED)
    act(s, "defend_ready", "Lion")
    for stat in (WEIGHT, LENGTH, LIFESPAN, OFFSPRING, DEVELOPMENT):
        act(s, "statistic", stat)
    assert s.discard[1] == ids(["Lion"]) and s.player == 0
    assert s.ready[1] == ids(["Tiger"]) and s.ready[0] == ids(["Lion"])


def test_ability_ambush_puts_seat_1s_animal_in_seat_1s_ready_row():
    # test_ability_ambush (test_abilities.py) with seat 1 playing the Leopard
    s = scenario(p0=dict(ready=["Sea otter"]), p1=dict(hand=["Leopard"], reservoir=["Koala"]), player=1, phase="play")
    act(s, "play", "Leopard")
    assert s.ready[1] == ids(["Leopard"]) and s.resting[1] == [] and s.ready[0] == ids(["Sea otter"])
    assert legal(s, "declare") == [cid("Leopard")]


def test_seat_1s_reservoir_cards_stay_face_down_so_the_order_of_two_additions_makes_no_other_position():
    # test_reservoir_cards_stay_face_down_so_the_order_of_two_additions_makes_no_other_position with seat 1 adding
    states = []
    for order in (["Koala", "Emu"], ["Emu", "Koala"]):
        s = scenario(p0=dict(ready=["Tiger"]), p1=dict(ready=["Red kangaroo"], hand=["Koala", "Emu"]), player=1,
                     phase="add")
        for card in order:
            act(s, "add_to_reservoir", card)
        states.append(s)
    assert states[0] == states[1] and states[0].to_dict() == states[1].to_dict()
