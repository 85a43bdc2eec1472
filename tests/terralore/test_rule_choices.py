"""The choices RULES.md makes where the rule text is silent: each option and each fixed choice."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.core.errors import ConfigError
from tabletop_envs.terralore.engine import TerraloreGame

from .scenario import CAT, A, D, act, cid, end, end_turn, ids, make_state, names, place


# ------------------------------------------------------------------ draw on turn 1 (option)
def test_no_draw_on_the_first_turn_by_default_later_revision():
    s = TerraloreGame(mulligan=False).new_initial_state(0)
    assert s.turn_number == 1 and [len(h) for h in s.hand] == [4, 4] and [len(d) for d in s.deck] == [16, 16]


def test_option_draw_on_first_turn_draws_2_in_turn_1():
    s = TerraloreGame(mulligan=False, draw_on_first_turn=True).new_initial_state(0)
    assert s.turn_number == 1 and [len(h) for h in s.hand] == [6, 6] and [len(d) for d in s.deck] == [14, 14]


# ------------------------------------------------------------------ mulligan (option)
def test_mulligan_shuffles_the_hand_back_and_draws_one_card_fewer():
    s = TerraloreGame().new_initial_state(4)
    assert s.decision() == "mulligan" and s.current_player() == 0
    act(s, "mulligan", 1)
    assert len(s.hand[0]) == 3 and len(s.deck[0]) == 17 and s.mulliganed == [True, False]
    assert s.current_player() == 1
    act(s, "mulligan", 0)
    assert len(s.hand[1]) == 4 and s.decision() == "play" and s.turn_number == 1
    # shuffled back into the whole deck: the new hand is not just three cards of the old one, and the old
    # cards may come back (they are not left at the bottom of the deck)
    fresh = shared = 0
    for seed in range(10):
        s = TerraloreGame().new_initial_state(seed)
        old = set(s.hand[0])
        act(s, "mulligan", 1)
        fresh += not set(s.hand[0]) <= old
        shared += bool(set(s.hand[0]) & old)
    assert fresh >= 5 and shared >= 2


def test_each_player_may_take_a_mulligan_whatever_the_other_did():
    s = TerraloreGame().new_initial_state(4)
    act(s, "mulligan", 1)
    act(s, "mulligan", 1)
    assert s.mulliganed == [True, True] and [len(h) for h in s.hand] == [3, 3] and s.decision() == "play"


def test_option_without_mulligan_the_game_starts_in_the_play_phase():
    s = TerraloreGame(mulligan=False).new_initial_state(4)
    assert s.decision() == "play" and s.turn_number == 1


# ------------------------------------------------------------------ defending lanes (option)
def test_defending_lanes_deal_no_damage_by_default():
    s = make_state(attacking=(["Tidepool Crab"], []), defending=([], ["Granite Colossus"]))
    end_turn(s)
    assert s.castle == [10, 10]
    s = make_state(attacking=([], ["Tidepool Crab"]), defending=(["Granite Colossus"], []))
    end_turn(s)
    assert s.castle == [10, 10]


def test_option_defenders_deal_damage_hits_the_attackers_castle_with_the_defending_excess():
    s = make_state(attacking=(["Tidepool Crab"], []), defending=([], ["Granite Colossus"]),
                   defenders_deal_damage=True)
    end_turn(s)
    assert s.castle == [10 - (9 - 1), 10]
    # the same for player 1 attacking into player 0's defending lane
    s = make_state(attacking=([], ["Tidepool Crab"]), defending=(["Granite Colossus"], []),
                   defenders_deal_damage=True)
    end_turn(s)
    assert s.castle == [10, 10 - (9 - 1)]


def test_option_defenders_deal_damage_an_empty_attacking_lane_counts_0_so_the_defenders_deal_their_full_points():
    # RULES.md choice 3: the option compares facing lanes both ways, an empty lane counting 0 on either side
    s = make_state(defending=([], ["Granite Colossus"]), defenders_deal_damage=True)
    end_turn(s)
    assert s.castle == [10 - 9, 10]
    s = make_state(defending=([], ["Granite Colossus"]))
    end_turn(s)
    assert s.castle == [10, 10], "without the option a defending lane deals nothing"


# ------------------------------------------------------------------ deck-out timing (option)
def test_deck_out_cannot_draw_loses_only_when_a_draw_phase_finds_too_few_cards():
    s = make_state(decks=(["Pebble Mole", "Ember Imp"], ["Gloom Bat", "Red Fox", "Scorch", "Sand Piper"]))
    end_turn(s)
    assert not s.is_terminal() and s.deck[0] == [], "an empty deck after drawing is not yet a loss"
    end_turn(s)
    assert list(s.returns()) == [-1, 1]


def test_of_two_decks_too_short_for_the_draw_phase_the_shorter_runs_out_first_and_loses():
    # "The opponent runs out of cards in their deck before you do": 1 card against 0 is not a tie
    s = make_state(decks=(["Pebble Mole", "Ember Imp", "Sand Piper"], ["Gloom Bat", "Red Fox"]))
    end_turn(s)
    assert not s.is_terminal() and [len(d) for d in s.deck] == [1, 0]
    end_turn(s)
    assert s.is_terminal() and s.end_reason == "deck-out" and list(s.returns()) == [1, -1]


def test_two_decks_equally_short_for_the_draw_phase_run_out_together_and_go_to_the_tiebreakers():
    s = make_state(decks=(["Pebble Mole", "Ember Imp", "Sand Piper"], ["Gloom Bat", "Red Fox", "Scorch"]),
                   attacking=(["Tidepool Crab"], []))
    end_turn(s)
    assert [len(d) for d in s.deck] == [1, 1]
    end_turn(s)
    assert s.is_terminal() and s.end_reason != "deck-out" and list(s.returns()) == [1, -1]


def test_option_deck_out_empty_deck_loses_as_soon_as_the_deck_is_empty():
    s = make_state(decks=(["Pebble Mole", "Ember Imp"], ["Gloom Bat", "Red Fox", "Scorch"]), deck_out="empty_deck")
    end_turn(s)
    assert s.is_terminal() and list(s.returns()) == [-1, 1]


def test_option_deck_out_empty_deck_of_two_decks_one_draw_phase_empties_the_shorter_runs_out_first_and_loses():
    # choice 4's one-card-at-a-time reading holds with empty_deck too: 1 card against 2 both empty in the
    # Draw Phase, but the 1-card deck ran out first (it went to the tiebreakers, found by a rules audit)
    s = make_state(decks=(["Pebble Mole", "Ember Imp", "Sand Piper"], ["Gloom Bat", "Red Fox", "Scorch", "Reef Eel"]),
                   deck_out="empty_deck")
    end_turn(s)
    assert not s.is_terminal() and [len(d) for d in s.deck] == [1, 2]
    end_turn(s)
    assert s.deck == [[], []] and s.is_terminal() and s.end_reason == "deck-out" and list(s.returns()) == [-1, 1]
    s = make_state(decks=(["Pebble Mole", "Ember Imp", "Sand Piper", "Reef Eel"], ["Gloom Bat", "Red Fox", "Scorch"]),
                   deck_out="empty_deck")
    end_turn(s)
    end_turn(s)  # the same with player 1 the shorter
    assert s.deck == [[], []] and s.is_terminal() and s.end_reason == "deck-out" and list(s.returns()) == [1, -1]
    s = make_state(decks=(["Pebble Mole", "Ember Imp", "Sand Piper"], ["Gloom Bat", "Red Fox", "Scorch"]),
                   attacking=(["Tidepool Crab"], []), deck_out="empty_deck")
    end_turn(s)
    end_turn(s)  # 1 against 1: they run out together, and the tiebreakers decide (the Crab's field points)
    assert s.is_terminal() and s.end_reason != "deck-out" and list(s.returns()) == [1, -1]


def test_option_deck_out_empty_deck_a_deck_emptied_by_a_card_effect_loses_at_the_end_of_that_turn():
    # the Kindle empties player 0's deck during the reveal; player 1 still holds 2 cards, which the next
    # Draw Phase would take: the loss is decided at the end of this turn, not as a double deck-out then
    s = make_state(hands=(["Kindle", "Gloom Bat"], []), decks=(["Pebble Mole"], ["Red Fox", "Scorch"]),
                   deck_out="empty_deck")
    place(s, "Kindle", A, discards=["Gloom Bat"])
    end_turn(s)
    assert s.is_terminal() and s.end_reason == "deck-out" and list(s.returns()) == [-1, 1]
    assert len(s.deck[1]) == 2


def test_option_deck_out_empty_deck_a_castle_destroyed_that_turn_wins_before_the_emptied_deck_loses():
    # the Kindle empties player 0's deck during the reveal, but the Tortoise brings player 1's castle to 0:
    # castles are checked before decks at the end of the turn, so player 0 wins
    s = make_state(hands=(["Kindle", "Gloom Bat"], []), attacking=(["Stone Tortoise"], []),
                   decks=(["Pebble Mole"], ["Red Fox", "Scorch"]), castles=(10, 4), deck_out="empty_deck")
    place(s, "Kindle", A, discards=["Gloom Bat"])
    end_turn(s)
    assert s.deck[0] == [] and s.castle[1] == 0
    assert s.is_terminal() and s.end_reason == "castle destroyed" and list(s.returns()) == [1, -1]


def test_option_deck_out_empty_deck_two_decks_emptied_by_card_effects_in_one_turn_run_out_together():
    # each Gull Scout draws a player's last card during the reveal: no order tells which deck ran out
    # first, so neither "runs out ... before you do" and the tiebreakers decide (castle HP 6 against 7)
    s = make_state(hands=(["Gull Scout", "Pebble Mole"], ["Gull Scout", "Gloom Bat"]),
                   decks=(["Ember Imp"], ["Lantern Moth"]), castles=(6, 7), deck_out="empty_deck")
    place(s, "Gull Scout", D, discards=["Pebble Mole"])
    end(s)
    place(s, "Gull Scout", D, discards=["Gloom Bat"])
    end(s)
    assert s.deck == [[], []] and s.castle == [6, 7]
    assert s.is_terminal() and s.end_reason == "both decks ran out; tiebreaker" and list(s.returns()) == [-1, 1]


def test_effect_draws_from_an_empty_deck_draw_nothing_and_do_not_lose():
    s = make_state(hands=(["Kindle", "Gloom Bat"], []), decks=(["Pebble Mole"], ["Red Fox", "Scorch", "Ember Imp"]))
    place(s, "Kindle", A, discards=["Gloom Bat"])  # draw 2 with one card in the deck
    end(s)
    end(s)
    assert names(s.hand[0]) == ["Pebble Mole"] and s.deck[0] == []
    assert s.is_terminal() and s.end_reason == "deck-out", "the loss comes at the next Draw Phase"


def test_invalid_rule_options_are_refused_with_a_clear_error():
    with pytest.raises(ConfigError, match="deck_out"):
        TerraloreGame(deck_out="never")
    with pytest.raises(ConfigError, match="two-player"):
        TerraloreGame(num_players=3)
    with pytest.raises(ConfigError, match="mulligan"):
        TerraloreGame(mulligan="yes")
    with pytest.raises(ConfigError, match="opaque_wall must be True or False"):
        TerraloreGame(opaque_wall="yes")


# ------------------------------------------------------------------ fixed choices
def test_lanes_are_compared_as_totals_not_creature_by_creature():
    s = make_state(attacking=(["Tidepool Crab", "Pebble Mole", "Ember Imp"], []), defending=([], ["Burrowing Badger"]))
    end_turn(s)
    assert s.castle[1] == 10 - (3 - 2)


@pytest.mark.parametrize("castles", [(9, 10), (10, 9)])  # player 0, then player 1 reveals first
def test_skills_are_placed_face_down_like_creatures_and_resolve_when_revealed(castles):
    s = make_state(hands=(["Fireball", "Gloom Bat"], ["Red Fox", "Pebble Mole"]),
                   attacking=([], ["Stone Tortoise"]), castles=castles)
    place(s, "Fireball", D, discards=["Gloom Bat"])
    end(s)
    assert names(s.face_down[0][D]) == ["Fireball"] and names(s.field[1][A]) == ["Stone Tortoise"], \
        "placed face down, the skill does nothing yet"
    place(s, "Red Fox", A, discards=["Pebble Mole"])
    end(s)
    assert s.reveal_first == (0 if castles[0] < castles[1] else 1)
    # in either reveal order the Fireball (player 0's defending lane) turns before player 1's attacking
    # lane: the weakest face-up enemy there is the Tortoise; the face-down Red Fox cannot be targeted
    assert names(s.graveyard[1]) == ["Pebble Mole", "Stone Tortoise"]
    assert names(s.field[1][A]) == ["Red Fox"]
    assert names(s.graveyard[0]) == ["Gloom Bat", "Fireball"], "the skill goes to the Graveyard once resolved"


def test_skills_occupy_no_creature_slot():
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=(["Rising Tide"], []), attacking=(four, []))
    place(s, "Rising Tide", A)
    assert s.decision() == "play", "no replace-one choice for a skill"


def test_placement_is_sequential_and_the_first_placer_alternates_each_turn():
    s = TerraloreGame(mulligan=False).new_initial_state(0)
    order = []
    for _ in range(4):
        order.append(s.current_player())
        end_turn(s)
    assert order == [0, 1, 0, 1]


def test_option_opaque_wall_false_the_second_placer_sees_only_face_down_counts_of_the_first():
    s = make_state(hands=(["Tidepool Crab"], []), opaque_wall=False)
    place(s, "Tidepool Crab", A)
    end(s)
    obs = s.observation(1)
    lay = s.game.observation_layout
    assert list(lay.view(obs, "opp_face_down_counts") * 20) == [1, 0]
    other = make_state(hands=(["Pebble Mole"], []), opaque_wall=False)
    place(other, "Pebble Mole", A)
    end(other)
    np.testing.assert_array_equal(obs, other.observation(1))


# ------------------------------------------------------------------ placement behind an opaque wall (option)
def _first_placer_moved(opaque_wall: bool, placed: bool):
    """Player 0 (first placer) either passes or, behind the wall, places Stone Tortoise in a full attacking
    lane: destroys the face-up Magma Salamander (whose lane debuff weakens player 1's defending Sturdy
    Turtle) and pays with Gloom Bat and Sand Piper, a card player 1 saw return to that hand. Then player 1
    places a card of their own."""
    s = make_state(hands=(["Stone Tortoise", "Gloom Bat", "Sand Piper", "Lantern Moth"], ["Tidepool Crab"]),
                   attacking=(["Magma Salamander", "Pebble Mole", "Ember Imp", "Coral Warden"], []),
                   defending=([], ["Sturdy Turtle"]), opaque_wall=opaque_wall)
    s.known_hand[0] = [cid("Sand Piper")]
    s._mark_play_start()
    if placed:
        place(s, "Stone Tortoise", A, discards=["Gloom Bat", "Sand Piper"], destroy=["Magma Salamander"])
    end(s)
    place(s, "Tidepool Crab", D)
    return s


def _picture(state, player):
    from tabletop_envs.terralore.render import draw_table

    return np.asarray(draw_table(state, player).image)


def test_option_opaque_wall_the_second_placer_sees_nothing_of_the_first_placers_placement():
    passed, placed = _first_placer_moved(True, False), _first_placer_moved(True, True)
    assert placed.face_down[0][A] == [cid("Stone Tortoise")] and placed.totals[1][D] == 3  # it really happened
    assert passed.totals[1][D] == 2
    np.testing.assert_array_equal(placed.observation(1), passed.observation(1))
    np.testing.assert_array_equal(placed.legal_action_mask(), passed.legal_action_mask())
    assert placed.render_text(1) == passed.render_text(1)
    np.testing.assert_array_equal(_picture(placed, 1), _picture(passed, 1))
    # player 1's own side is shown as it is now: their face-down card, and Sturdy Turtle still facing
    # the debuff player 1 saw when the Play Phase began
    lay = placed.game.observation_layout
    obs = placed.observation(1)
    assert np.flatnonzero(lay.view(obs, "own_face_down_defending")).tolist() == [cid("Tidepool Crab")]
    assert list(lay.view(obs, "opp_face_down_counts")) == [0, 0] and lay.view(obs, "opp_known_hand")[cid("Sand Piper")] == 1
    assert lay.view(obs, "lane_points")[1] * 10 == pytest.approx(2)
    assert "face down" not in placed.render_text(1).split("player_1 (you)")[0]
    # the whole table still shows the real position
    assert placed.render_text() != passed.render_text()


def test_without_opaque_wall_the_second_placer_sees_the_first_placers_card_backs_and_discards():
    passed, placed = _first_placer_moved(False, False), _first_placer_moved(False, True)
    lay = placed.game.observation_layout
    obs = placed.observation(1)
    assert list(lay.view(obs, "opp_face_down_counts") * 20) == [1, 0]
    assert set(np.flatnonzero(lay.view(obs, "opp_graveyard"))) == set(ids(["Gloom Bat", "Sand Piper", "Magma Salamander"]))
    assert not np.array_equal(obs, passed.observation(1))
    assert placed.render_text(1) != passed.render_text(1)
    assert not np.array_equal(_picture(placed, 1), _picture(passed, 1))
    # the picture draws the card back in the lane itself (above, the discards and the hand size differ too)
    from tabletop_envs.terralore.render import LANE_H, LANE_W

    lanes = []
    for placed in (False, True):
        s = make_state(hands=(["Tidepool Crab"], []), opaque_wall=False)
        if placed:
            place(s, "Tidepool Crab", A)
        end(s)
        lanes.append(_picture(s, 1)[166:166 + LANE_H, 10:10 + LANE_W])  # the opponent's attacking lane
    assert not np.array_equal(*lanes)


def test_option_opaque_wall_the_first_placer_sees_nothing_of_the_second_placers_placement():
    hands = (["Tidepool Crab"], ["Stone Tortoise", "Gloom Bat", "Pebble Mole", "Sand Piper"])
    views = []
    for moves in ([], [("Stone Tortoise", D, ["Gloom Bat", "Pebble Mole"])], [("Sand Piper", A, [])]):
        s = make_state(hands=hands, opaque_wall=True)
        place(s, "Tidepool Crab", A)
        end(s)
        for card, lane, discards in moves:
            place(s, card, lane, discards=discards)
        assert s.current_player() == 1
        views.append((s.observation(0), s.render_text(0)))
    for obs, text in views[1:]:
        np.testing.assert_array_equal(obs, views[0][0])
        assert text == views[0][1]


def test_option_opaque_wall_after_the_reveal_phase_the_placement_is_seen_as_usual():
    walled, open_table = _first_placer_moved(True, True), _first_placer_moved(False, True)
    end(walled)
    end(open_table)
    assert walled.turn_number == 3 and walled.decision() == "play"
    assert cid("Stone Tortoise") in walled.field[0][A] and walled.castle == open_table.castle
    lay = walled.game.observation_layout
    for p in (0, 1):
        np.testing.assert_array_equal(walled.observation(p), open_table.observation(p))
        assert walled.render_text(p) == open_table.render_text(p)
    obs = walled.observation(1)
    assert lay.view(obs, "opp_attacking")[cid("Stone Tortoise")] == 1
    assert set(np.flatnonzero(lay.view(obs, "opp_graveyard"))) == set(ids(["Gloom Bat", "Sand Piper", "Magma Salamander"]))
    assert "Stone Tortoise" in walled.render_text(1)


def test_replace_one_may_destroy_a_face_down_creature_placed_this_turn():
    three = ["Tidepool Crab", "Pebble Mole", "Ember Imp"]
    s = make_state(hands=(["Sand Piper", "Lantern Moth"], []), attacking=(three, []))
    place(s, "Sand Piper", A)
    place(s, "Lantern Moth", A, destroy=["Sand Piper"])
    assert names(s.graveyard[0]) == ["Sand Piper"] and names(s.face_down[0][A]) == ["Lantern Moth"]


def test_a_face_down_card_destroyed_by_replace_one_is_never_revealed_so_its_reveal_effect_never_happens():
    # the Red Fox ("Reveal: 1 damage to the enemy castle") left play before the Reveal Phase; the lane is the
    # defending one, which deals no damage, so any damage to player 1's castle could come from the Fox alone
    three = ["Tidepool Crab", "Pebble Mole", "Ember Imp"]
    s = make_state(hands=(["Red Fox", "Gloom Bat", "Lantern Moth"], []), defending=(three, []))
    place(s, "Red Fox", D, discards=["Gloom Bat"])
    place(s, "Lantern Moth", D, destroy=["Red Fox"])
    end_turn(s)
    assert names(s.field[0][D]) == [*three, "Lantern Moth"] and "Red Fox" in names(s.graveyard[0])
    assert s.castle == [10, 10]


def test_a_multi_slot_creature_destroys_until_it_fits():
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=(["Fortified Shell", "Gloom Bat", "Lantern Moth"], []), defending=(four, []))
    place(s, "Fortified Shell", D, discards=["Gloom Bat", "Lantern Moth"])
    assert s.slots_to_free == 3
    for name in ("Tidepool Crab", "Pebble Mole"):
        act(s, "destroy", cid(name))
        assert s.decision() == "destroy"
    act(s, "destroy", cid("Ember Imp"))
    assert s.decision() == "play" and s._used_slots(0, D) == 4


def test_destroying_a_multi_slot_creature_frees_all_of_its_slots():
    three = ["Clay Golem", "Tidepool Crab", "Pebble Mole"]  # 2 + 1 + 1 slots: the lane is full
    s = make_state(hands=(["Fortified Shell", "Gloom Bat", "Lantern Moth"], []), defending=(three, []))
    place(s, "Fortified Shell", D, discards=["Gloom Bat", "Lantern Moth"])
    assert s.slots_to_free == 3
    act(s, "destroy", cid("Clay Golem"))
    assert s.decision() == "destroy" and s.slots_to_free == 1
    act(s, "destroy", cid("Tidepool Crab"))
    assert s.decision() == "play" and s._used_slots(0, D) == 4
    assert names(s.field[0][D]) == ["Pebble Mole"] and names(s.graveyard[0])[-2:] == ["Clay Golem", "Tidepool Crab"]


def test_passing_a_turn_without_placing_is_allowed():
    s = make_state(hands=(["Tidepool Crab"], ["Pebble Mole"]))
    lay = s.game.action_layout
    assert s.legal_action_mask()[lay.id("end_play")]
    end_turn(s)
    assert s.turn_number == 3 and names(s.hand[0])[0] == "Tidepool Crab"


def test_castle_damage_from_reveal_effects_is_decided_after_counting():
    # Scorch brings the castle to 0 during the reveal, but the opponent's counting still happens
    s = make_state(hands=(["Scorch"], []), attacking=(["Tidepool Crab"], ["Stone Tortoise"]), castles=(3, 1))
    place(s, "Scorch", A)
    end_turn(s)
    assert s.castle == [0, 0] and s.end_reason.startswith("both castles fell")


def test_a_game_ending_after_counting_breaks_the_tie_with_full_points_as_this_turns_weakening_has_expired():
    # Tremor (-2) weakens player 1's Stone Tortoise for this turn's counting: 6 attack points against its 2
    # bring player 1's castle from 4 to 0, the Stag's 4 against the Crab's 1 bring player 0's from 3 to 0.
    # Field points: player 0 has 4 + 2 + 1 = 7, player 1 4 + 4 = 8 (6 while the weakening lasted)
    s = make_state(hands=(["Tremor", "Gloom Bat"], []), attacking=(["Cinder Hound", "Burrowing Badger"], ["Sunlit Stag"]),
                   defending=(["Tidepool Crab"], ["Stone Tortoise"]), castles=(3, 4))
    place(s, "Tremor", A, discards=["Gloom Bat"])
    end_turn(s)
    assert s.castle == [0, 0] and s.end_reason == "both castles fell; tiebreaker"
    assert list(s.returns()) == [-1, 1] and [s.field_points(0), s.field_points(1)] == [7, 8]


def test_the_tiebreakers_total_points_on_the_field_count_lane_debuffs_as_the_lanes_do():
    # both decks run out together at the next Draw Phase, castles level: the field points decide. Player 1's
    # Magma Salamander (-1 to enemy creatures in its lane) stands across from player 0's Turtle and Crab: printed,
    # player 0 leads 4 to 3; as they count, 2 to 3 (the reading "points on the field" are the points as they count)
    s = make_state(attacking=(["Sturdy Turtle", "Tidepool Crab"], []), defending=([], ["Magma Salamander"]),
                   decks=(["Pebble Mole"], ["Gloom Bat"]), castles=(5, 5))
    end_turn(s)
    assert s.is_terminal() and s.castle == [5, 5]
    assert [s.field_points(0), s.field_points(1)] == [2, 3] and list(s.returns()) == [-1, 1]


def test_here_is_the_lane_a_moved_creature_now_stands_in_not_the_lane_it_was_played_in():
    # player 0 reveals first (less castle HP): the Rootbound Elder (+1 to your other creatures here) turns
    # in the defending lane, then the Tailwind moves it, the strongest there, into the attacking lane
    s = make_state(hands=(["Rootbound Elder", "Tailwind", "Gloom Bat", "Pebble Mole", "Ember Imp"], []),
                   attacking=(["Stone Tortoise"], []), defending=(["Tidepool Crab"], []), castles=(9, 10))
    place(s, "Rootbound Elder", D, discards=["Gloom Bat", "Pebble Mole", "Ember Imp"])
    place(s, "Tailwind", A)
    end_turn(s)
    assert s.reveal_first == 0
    assert names(s.field[0][A]) == ["Stone Tortoise", "Rootbound Elder"] and names(s.field[0][D]) == ["Tidepool Crab"]
    assert s.totals[0] == [(4 + 1) + 3, 1], "the buff follows the Elder into its new lane"
    assert s.castle[1] == 10 - 8


def test_here_is_the_lane_a_moved_creature_now_stands_in_for_its_lane_debuff_too():
    # player 0 reveals first (less castle HP): the Shade Wraith (enemy creatures here get -1) turns in the
    # defending lane, facing player 1's attacking Stone Tortoise, then the Tailwind moves it into the attacking
    # lane, facing their defending Sturdy Turtle: the Turtle counts 3 - 1, the Tortoise its full 4
    s = make_state(hands=(["Shade Wraith", "Tailwind", "Gloom Bat", "Pebble Mole"], []),
                   attacking=([], ["Stone Tortoise"]), defending=([], ["Sturdy Turtle"]), castles=(9, 10))
    place(s, "Shade Wraith", D, discards=["Gloom Bat", "Pebble Mole"])
    place(s, "Tailwind", A)
    end_turn(s)
    assert s.reveal_first == 0 and names(s.field[0][A]) == ["Shade Wraith"] and s.field[0][D] == []
    assert s.totals[1] == [4, 3 - 1], "the debuff follows the Wraith into its new lane"
    assert s.castle == [9 - 4, 10 - (3 - 2)]


def test_healing_cannot_raise_a_castle_above_10():
    s = make_state(hands=(["Sanctuary", "Gloom Bat", "Pebble Mole"], []), castles=(8, 10))
    place(s, "Sanctuary", A, discards=["Gloom Bat", "Pebble Mole"])
    end_turn(s)
    assert s.castle[0] == 10


@pytest.mark.parametrize("heal_lane, castle", [(D, 1), (A, 2)])
def test_castle_hp_is_bounded_at_each_change_so_reveal_damage_below_0_is_lost_before_a_later_heal(heal_lane, castle):
    # player 0 (1 HP, the losing player) reveals its defending lane first and its attacking lane last;
    # player 1's Scorch and Red Fox deal 2 in between. Healed first: 1 + 2 - 2 = 1. Healed last: the
    # damage stops at 0 and the heal counts in full, 0 + 2 = 2
    s = make_state(hands=(["Rising Tide"], ["Scorch", "Red Fox", "Lantern Moth"]), castles=(1, 10))
    place(s, "Rising Tide", heal_lane)
    end(s)
    place(s, "Scorch", D)
    place(s, "Red Fox", D, discards=["Lantern Moth"])
    end(s)
    assert s.castle[0] == castle and not s.is_terminal()


def test_a_player_may_own_the_same_card_as_the_opponent():
    deck = CAT.names[:20]
    s = TerraloreGame(decks=(deck, deck), mulligan=False).new_initial_state(0)
    assert s.deck_list[0] == s.deck_list[1]
    s.check_invariants()


def test_random_decks_are_drawn_for_each_player_on_their_own_so_they_may_share_cards():
    # choices 16 and 17: each "random" deck is a uniformly random legal deck by itself, not one deck for both
    # players nor two decks split from one catalogue
    states = [TerraloreGame(mulligan=False).new_initial_state(seed) for seed in range(10)]
    assert all(s.deck_list[0] != s.deck_list[1] for s in states)
    assert all(set(s.deck_list[0]) & set(s.deck_list[1]) for s in states)
    for s in states:
        s.check_invariants()


def test_turn_counter_counts_completed_turns_for_max_turns():
    s = TerraloreGame().new_initial_state(0)
    assert s.decision() == "mulligan" and s.turn == 0, "before turn 1 no turn has been completed either"
    s = TerraloreGame(mulligan=False).new_initial_state(0)
    assert s.turn == 0
    end_turn(s)
    assert s.turn == 1 and s.turn_number == 2


def test_recovered_cards_are_public_to_the_opponent():
    s = make_state(hands=(["Resurrection", "Gloom Bat", "Pebble Mole"], []), graveyards=(["Cinder Hound"], []))
    place(s, "Resurrection", A, discards=["Gloom Bat", "Pebble Mole"])
    end_turn(s)
    lay = s.game.observation_layout
    assert lay.view(s.observation(1), "opp_known_hand")[cid("Cinder Hound")] == 1
    assert cid("Cinder Hound") in s.hand[0]


def test_a_known_card_placed_face_down_stays_known_until_it_is_seen_again():
    """"The placement remains hidden from the opponent": placing the known Cinder Hound or the unknown
    Coral Warden (same cost, same kind) face down with the same discards looks the same to player 1;
    the Reveal Phase shows which it was."""
    worlds = {}
    for placed in ("Cinder Hound", "Coral Warden"):
        # on an open table, where the discards show (behind the wall, the default, nothing does)
        s = make_state(hands=(["Cinder Hound", "Coral Warden", "Pebble Mole", "Sand Piper", "Gloom Bat"], []),
                       opaque_wall=False)
        s.known_hand[0] = [cid("Cinder Hound")]
        place(s, placed, A, discards=["Pebble Mole", "Sand Piper"])
        worlds[placed] = s
    known, hidden = worlds["Cinder Hound"], worlds["Coral Warden"]
    assert np.array_equal(known.observation(1), hidden.observation(1))
    assert known.render_text(1) == hidden.render_text(1)
    assert "known, in hand or face down: Cinder Hound" in known.render_text(1)
    known.check_invariants()
    for s in worlds.values():
        end_turn(s)
    assert known.known_hand[0] == [] and cid("Cinder Hound") in known.field[0][A]
    assert hidden.known_hand[0] == [cid("Cinder Hound")] and cid("Cinder Hound") in hidden.hand[0]


def test_the_picture_says_a_known_card_may_be_in_hand_or_face_down_as_the_text_view_does(monkeypatch):
    """The opponent's picture drew the known Cinder Hound in the hand row even where it had gone down face
    down, which the rules keep from them; it now says what the text view says (and still looks the same in
    both worlds)."""
    pytest.importorskip("PIL")
    from tabletop_envs.core.render import Canvas
    from tabletop_envs.terralore.render import draw_table

    said: list[str] = []
    original = Canvas.text
    monkeypatch.setattr(Canvas, "text", lambda self, x, y, text, *a, **kw: (said.append(text),
                                                                             original(self, x, y, text, *a, **kw))[1])
    pictures = []
    for placed in ("Cinder Hound", "Coral Warden"):
        s = make_state(hands=(["Cinder Hound", "Coral Warden", "Pebble Mole", "Sand Piper", "Gloom Bat"], []),
                       opaque_wall=False)
        s.known_hand[0] = [cid("Cinder Hound")]
        before = draw_table(s, 1).array()
        assert "known cards: in hand or face down" not in said  # nothing is face down yet
        place(s, placed, A, discards=["Pebble Mole", "Sand Piper"])
        said.clear()
        pictures.append(draw_table(s, 1).array())
        assert "known cards: in hand or face down" in said
        said.clear()
        draw_table(s, 0)  # the owner sees where the card is
        assert "known cards: in hand or face down" not in said
        assert not np.array_equal(before, pictures[-1])
    assert np.array_equal(*pictures)


def test_a_known_card_discarded_is_seen_and_no_longer_known():
    s = make_state(hands=(["Coral Warden", "Cinder Hound", "Sand Piper", "Gloom Bat"], []))
    s.known_hand[0] = [cid("Cinder Hound")]
    place(s, "Coral Warden", A, discards=["Cinder Hound", "Sand Piper"])
    assert s.known_hand[0] == [] and cid("Cinder Hound") in s.graveyard[0]


def test_a_known_card_placed_face_down_and_destroyed_to_free_its_lane_is_seen_and_no_longer_known():
    three = ["Tidepool Crab", "Pebble Mole", "Ember Imp"]
    s = make_state(hands=(["Cinder Hound", "Gloom Bat", "Sand Piper", "Lantern Moth"], []), attacking=(three, []))
    s.known_hand[0] = [cid("Cinder Hound")]
    place(s, "Cinder Hound", A, discards=["Gloom Bat", "Sand Piper"])
    place(s, "Lantern Moth", A, destroy=["Cinder Hound"])  # the fifth creature: the Hound goes, in view
    assert s.known_hand[0] == [] and cid("Cinder Hound") in s.graveyard[0]
    lay = s.game.observation_layout
    assert lay.view(s.observation(1), "opp_known_hand").sum() == 0
    s.check_invariants()


def test_the_losing_player_is_judged_as_the_reveal_phase_begins_after_the_placements_replace_one_destroys():
    # castles level; player 1 leads on field points (7 against 6) as the turn begins, then destroys their
    # Stone Tortoise (4) to free a slot for the Sturdy Turtle (still face down): 3 against 6 when the Reveal
    # Phase begins, so player 1 is now the losing player and reveals first
    def position():
        return make_state(hands=(["Gloom Bat"], ["Sturdy Turtle", "Lantern Moth"]),
                          attacking=(["Cinder Hound", "Burrowing Badger"],
                                     ["Stone Tortoise", "Tidepool Crab", "Pebble Mole", "Ember Imp"]))

    s = position()
    end_turn(s)
    assert s.reveal_first == 0, "without the destroy player 0 has fewer field points"
    s = position()
    end(s)
    place(s, "Sturdy Turtle", A, discards=["Lantern Moth"], destroy=["Stone Tortoise"])
    end(s)
    assert s.reveal_first == 1 and not s.log[0].startswith("die roll")


def test_a_creatures_points_add_up_every_modifier_before_the_floor_at_0_so_excess_weakening_cancels_a_later_buff():
    # player 0 reveals first (less castle HP): the Curse of Frailty (-2 to the weakest enemy here) turns in
    # their defending lane and weakens the Tidepool Crab (1), then player 1's Coral Warden (+1 to their other
    # Water creatures here) turns beside it: 1 + 1 - 2 = 0, not 0 + 1
    s = make_state(hands=(["Curse of Frailty"], ["Coral Warden", "Gloom Bat", "Pebble Mole"]), castles=(5, 10),
                   attacking=([], ["Tidepool Crab"]))
    place(s, "Curse of Frailty", D)
    end(s)
    place(s, "Coral Warden", A, discards=["Gloom Bat", "Pebble Mole"])
    end(s)
    assert s.reveal_first == 0 and s.castle[0] == 5 - 2, "only the Warden's 2 points attack"


def test_a_cards_effects_resolve_in_printed_order_each_choosing_its_target_when_it_resolves():
    # the Cyclone moves the strongest enemy creature here (the Stone Tortoise) to its owner's other lane,
    # then weakens the strongest enemy creature here: the Sturdy Turtle, the Tortoise having left
    s = make_state(hands=(["Cyclone", "Gloom Bat"], []), defending=([], ["Stone Tortoise", "Sturdy Turtle"]))
    place(s, "Cyclone", A, discards=["Gloom Bat"])
    end(s)
    end(s)
    assert names(s.field[1][A]) == ["Stone Tortoise"] and names(s.field[1][D]) == ["Sturdy Turtle"]
    assert s.castle[1] == 10 - (0 - 0) and s.castle[0] == 10 - 4
    assert "counting: attack [0, 4], defend [0, 2]" in s.log[-1], "the Turtle counted 3 - 1"
    # where the move finds no room, the weakening falls on the creature that stayed
    full = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Lantern Moth"]
    s = make_state(hands=(["Cyclone", "Gloom Bat"], []), attacking=([], full),
                   defending=([], ["Stone Tortoise", "Sturdy Turtle"]))
    place(s, "Cyclone", A, discards=["Gloom Bat"])
    end(s)
    end(s)
    assert names(s.field[1][D]) == ["Stone Tortoise", "Sturdy Turtle"]
    assert "defend [0, 6]" in s.log[-1], "the Tortoise counted 4 - 1, the Turtle 3"


def test_an_effect_that_finds_no_target_does_not_stop_the_effects_printed_after_it():
    # no card "fizzles": the Landslide finds no enemy creature here to destroy and still deals its 1 damage,
    # the Whirlpool finds none to exile and still draws
    s = make_state(hands=(["Landslide", "Whirlpool", "Gloom Bat", "Pebble Mole", "Ember Imp", "Sand Piper"], []),
                   decks=(["Lantern Moth", "Tidepool Crab", "Reef Eel", "Red Fox"], ["Scorch", "Kindle", "Tremor"]),
                   defending=([], ["Stone Tortoise"]))
    place(s, "Landslide", D, discards=["Gloom Bat", "Pebble Mole"])
    place(s, "Whirlpool", D, discards=["Ember Imp", "Sand Piper"])
    end(s)
    end(s)
    assert names(s.field[1][D]) == ["Stone Tortoise"] and s.castle[1] == 10 - 1
    assert names(s.graveyard[0])[-2:] == ["Landslide", "Whirlpool"]
    assert names(s.hand[0]) == ["Red Fox", "Reef Eel", "Tidepool Crab"], "the Whirlpool's draw, then turn 3's two"


def test_a_draw_printed_before_a_recover_can_fill_the_hand_and_leave_the_recovered_card_in_the_graveyard():
    # player 0 reveals first (less castle HP): the Dark Pact in their defending lane draws 3 (3 -> 6 cards in
    # hand), then the Updraft in their attacking lane draws 1, filling the hand to 7, and only then returns
    # the costliest card from the Graveyard: the Granite Colossus finds the hand full and stays there
    s = make_state(hands=(["Updraft", "Dark Pact", "Gloom Bat", "Pebble Mole", "Tidepool Crab", "Sturdy Turtle",
                           "Reef Eel"], []), graveyards=(["Granite Colossus"], []), castles=(9, 10))
    place(s, "Dark Pact", D, discards=["Pebble Mole"])
    place(s, "Updraft", A, discards=["Gloom Bat"])
    end(s)
    end(s)
    assert s.reveal_first == 0 and len(s.hand[0]) == 7
    assert cid("Granite Colossus") in s.graveyard[0] and s.known_hand[0] == []
    s.check_invariants()


def test_rules_md_names_only_existing_tests_and_every_rule_option():
    import inspect
    import re
    from pathlib import Path

    import tabletop_envs.terralore as pkg

    text = (Path(pkg.__file__).parent / "RULES.md").read_text(encoding="utf-8")
    here = Path(__file__).parent
    defined = {m for f in here.glob("test_*.py") for m in re.findall(r"^def (test_\w+)", f.read_text(encoding="utf-8"), re.M)}
    named = set(re.findall(r"`(test_\w+)`", text))
    assert named and named <= defined, f"RULES.md names missing tests: {sorted(named - defined)}"
    options = [p for p in inspect.signature(TerraloreGame).parameters if p != "num_players"]
    assert all(f"`{opt}`" in text for opt in options), "every rule option is documented in RULES.md"


def test_rules_md_choice_rows_name_the_file_of_every_test_outside_this_one():
    # "the test that pins it (test_rule_choices.py unless said otherwise)": each test defined elsewhere
    # is followed by its own file, as `test_x` (test_effects.py)
    import re
    from pathlib import Path

    import tabletop_envs.terralore as pkg

    here = Path(__file__).parent
    defined = {f.name: set(re.findall(r"^def (test_\w+)", f.read_text(encoding="utf-8"), re.M)) for f in here.glob("test_*.py")}
    rows = [line for line in (Path(pkg.__file__).parent / "RULES.md").read_text(encoding="utf-8").splitlines()
            if re.match(r"\| \d+ \|", line)]
    assert len(rows) >= 18
    for row in rows:
        cell = row.rstrip(" |").rsplit(" | ", 1)[-1]
        named = re.findall(r"`(test_\w+)`(?:\s*\((test_\w+\.py)\))?", cell)
        assert named
        wrong = [(name, file or Path(__file__).name) for name, file in named
                 if name not in defined[file or Path(__file__).name]]
        assert not wrong, f"RULES.md row {row.split('|')[1].strip()}: these tests are not in the file named: {wrong}"


# ------------------------------------------------------------------ found by mutation testing
def test_a_skill_goes_to_the_graveyard_only_after_its_reveal_effects_so_it_cannot_recover_itself():
    # Updraft (cost 1, skill): draw 1, then recover the costliest card of your Graveyard. Paid with a
    # cost-0 card, the Graveyard holds only that card when Updraft resolves.
    s = make_state(hands=(["Updraft", "Pebble Mole"], []))
    place(s, "Updraft", D, discards=["Pebble Mole"])
    end_turn(s)
    assert cid("Pebble Mole") in s.hand[0]
    assert names(s.graveyard[0]) == ["Updraft"]


def test_within_a_lane_cards_turn_in_placement_order():
    s = make_state(hands=(["Banish", "Fireball", "Gloom Bat", "Pebble Mole", "Ember Imp"], []),
                   attacking=([], ["Sturdy Turtle", "Tidepool Crab"]))
    place(s, "Banish", D, discards=["Pebble Mole", "Ember Imp"])  # first: exile the weakest, the Crab
    place(s, "Fireball", D, discards=["Gloom Bat"])  # then: destroy the weakest left, the Turtle
    end_turn(s)
    assert names(s.exile[1]) == ["Tidepool Crab"] and names(s.graveyard[1]) == ["Sturdy Turtle"]
    # a creature placed before a skill turns before it too
    s = make_state(hands=(["Sand Piper", "Fireball", "Gloom Bat"], []), attacking=([], ["Tidepool Crab"]))
    place(s, "Sand Piper", D)
    place(s, "Fireball", D, discards=["Gloom Bat"])
    end_turn(s)
    assert [line for line in s.log if line.startswith("player_0 reveals")] == [
        "player_0 reveals Sand Piper (defending)", "player_0 reveals Fireball (defending)"]


def test_the_die_roll_winner_takes_the_losing_players_place_in_the_clockwise_reveal_order():
    # choice 11: "the winner goes first" starts the text's clockwise order with the winner's defending lane; the
    # winner does not turn both of their lanes before the other player's
    winners = set()
    for seed in range(12):
        s = make_state(hands=(["Tidepool Crab", "Pebble Mole"], ["Ember Imp", "Sand Piper"]), turn_number=1,
                       seed=seed)
        place(s, "Tidepool Crab", A)
        place(s, "Pebble Mole", D)
        end(s)
        place(s, "Ember Imp", A)
        place(s, "Sand Piper", D)
        end(s)
        assert s.log[0].startswith("die roll:")
        w = s.reveal_first
        rolls = [int(x.split()[-1]) for x in s.log[0][len("die roll: "):].split(", ")]
        assert rolls[w] > rolls[1 - w], "the high roll reveals first"
        lanes = {(0, A): "Tidepool Crab", (0, D): "Pebble Mole", (1, A): "Ember Imp", (1, D): "Sand Piper"}
        order = [(w, D), (1 - w, A), (1 - w, D), (w, A)]
        assert [line for line in s.log if " reveals " in line] == [
            f"player_{p} reveals {lanes[p, lane]} ({'defending' if lane == D else 'attacking'})" for p, lane in order]
        winners.add(w)
    assert winners == {0, 1}


def test_a_skill_placed_face_down_takes_no_slot_from_a_creature_placed_after_it():
    three = ["Tidepool Crab", "Pebble Mole", "Ember Imp"]
    s = make_state(hands=(["Rising Tide", "Sand Piper"], []), attacking=(three, []))
    place(s, "Rising Tide", A)
    place(s, "Sand Piper", A)  # the fourth slot is still free: no replace-one choice
    assert s.decision() == "play" and sorted(names(s.field[0][A])) == sorted(three) and s.graveyard[0] == []


def test_the_die_roll_is_rerolled_on_equal_numbers():
    class Dice:  # the rolls the state's generator gives, pair by pair
        def __init__(self, *pairs):
            self.pairs = iter(pairs)

        def integers(self, low, high, size):
            return np.array(next(self.pairs))

    for pairs, first in ((([3, 3], [5, 2]), 0), (([4, 4], [1, 6]), 1)):
        s = make_state(hands=(["Tidepool Crab"], ["Pebble Mole"]), turn_number=1)
        s.rng = Dice(*pairs)
        end_turn(s)
        assert s.reveal_first == first and s.log[0] == "die roll: player_0 {}, player_1 {}".format(*pairs[1])
