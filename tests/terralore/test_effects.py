"""Every effect kind of the card vocabulary, through real play."""

from __future__ import annotations

from tabletop_envs.terralore.catalogue import CONTINUOUS_KINDS, REVEAL_KINDS

from .scenario import CAT, A, D, cid, end, end_turn, make_state, names, place

FODDER = ["Gloom Bat", "Pebble Mole", "Ember Imp", "Lantern Moth", "Sand Piper"]


def play_and_reveal(card, lane, hand_extra=(), **setup):
    """Player 0 places ``card`` (paying with fodder), player 1 passes; the turn is revealed."""
    cost = CAT.by_name[card].cost
    pay = [f for f in FODDER if f not in hand_extra][:cost]
    hands = setup.pop("hands", ((), ()))
    s = make_state(hands=([card, *pay, *hand_extra], list(hands[1])), **setup)
    place(s, card, lane, discards=pay)
    end_turn(s)
    return s


def test_every_effect_kind_appears_in_the_catalogue():
    used = {e.kind for c in CAT.cards for e in c.effects}
    assert used == set(REVEAL_KINDS) | set(CONTINUOUS_KINDS)
    assert any(c.slots > 1 for c in CAT.cards), "multi-slot creatures"


# ------------------------------------------------------------------ reveal effects
def test_destroy_strongest_enemy_here():
    s = play_and_reveal("Abyssal Leviathan", A, defending=([], ["Stone Tortoise", "Tidepool Crab"]))
    assert names(s.graveyard[1]) == ["Stone Tortoise"] and names(s.field[1][D]) == ["Tidepool Crab"]


def test_destroy_weakest_enemy_here():
    s = play_and_reveal("Fireball", A, defending=([], ["Stone Tortoise", "Tidepool Crab"]))
    assert names(s.graveyard[1]) == ["Tidepool Crab"]


def test_destroy_strongest_enemy_in_any_lane():
    s = play_and_reveal("Firestorm", A, attacking=([], ["Granite Colossus"]), defending=([], ["Stone Tortoise"]))
    assert names(s.graveyard[1]) == ["Granite Colossus"] and names(s.field[1][D]) == ["Stone Tortoise"]
    # and from the defending lane it reaches the enemy's defending lane, which is not "here"
    s = play_and_reveal("Firestorm", D, attacking=([], ["Stone Tortoise"]), defending=([], ["Granite Colossus"]))
    assert names(s.graveyard[1]) == ["Granite Colossus"] and names(s.field[1][A]) == ["Stone Tortoise"]


def test_destroy_own_weakest_here_is_a_drawback():
    s = play_and_reveal("Cranky Seagull", A, attacking=(["Tidepool Crab", "Stone Tortoise"], []))
    assert "Tidepool Crab" in names(s.graveyard[0])
    assert names(s.field[0][A]) == ["Stone Tortoise", "Cranky Seagull"]


def test_destroy_own_weakest_other_creature_here_never_destroys_the_card_itself():
    # "your weakest other creature here": alone in its lane, the Cranky Seagull destroys nothing, not
    # itself, and its other lane is not "here"
    s = play_and_reveal("Cranky Seagull", A, defending=(["Tidepool Crab"], []))
    assert names(s.field[0][A]) == ["Cranky Seagull"] and names(s.field[0][D]) == ["Tidepool Crab"]
    assert "Cranky Seagull" not in names(s.graveyard[0]) and s.castle[1] == 10 - 6


def test_exile_removes_the_target_from_the_game():
    s = play_and_reveal("Void Reaper", A, defending=([], ["Stone Tortoise", "Tidepool Crab"]))
    assert names(s.exile[1]) == ["Stone Tortoise"] and cid("Stone Tortoise") not in s.graveyard[1]


def test_weaken_lowers_points_this_turn_only():
    s = make_state(hands=(["Tremor", "Gloom Bat"], []), attacking=([], ["Stone Tortoise"]))
    place(s, "Tremor", D, discards=["Gloom Bat"])  # -2 to the strongest enemy here
    end_turn(s)
    assert s.castle[0] == 10 - 2, "Stone Tortoise attacked with 4 - 2 points"
    assert s.weakened == [{}, {}] and s.totals[1][A] == 4
    end_turn(s)
    assert s.castle[0] == 10 - 2 - 4


def test_two_weakenings_of_one_creature_add_up():
    # Tremor (-2) then Blinding Flash (-3), both on the strongest enemy here: the Granite Colossus (9)
    s = make_state(hands=(["Tremor", "Blinding Flash", "Gloom Bat", "Pebble Mole"], []),
                   attacking=([], ["Granite Colossus"]))
    place(s, "Tremor", D, discards=["Gloom Bat"])
    place(s, "Blinding Flash", D, discards=["Pebble Mole"])
    end_turn(s)
    assert s.castle[0] == 10 - (9 - 2 - 3)


def test_weaken_with_an_affinity_only_hits_that_affinity():
    s = play_and_reveal("Seagull Poison", D, attacking=([], ["Cranky Seagull", "Stone Tortoise"]))
    assert s.castle[0] == 10 - (4 + 6 - 4), "only the Wind creature (the seagull) is weakened"


def test_points_never_drop_below_zero():
    # the Sand Piper (1) gets -4: it counts 0, not -3, so its lane still deals the Hound's 4
    s = make_state(hands=(["Seagull Poison"], []), attacking=([], ["Sand Piper", "Cinder Hound"]))
    place(s, "Seagull Poison", D)
    end(s)
    end(s)
    assert s.castle[0] == 10 - 4
    assert s.totals[1][A] == 1 + 4, "the weakening is over after the counting"


def test_move_strongest_enemy_to_its_other_lane():
    s = play_and_reveal("Undertow", D, attacking=([], ["Stone Tortoise", "Tidepool Crab"]))
    assert names(s.field[1][D]) == ["Stone Tortoise"] and names(s.field[1][A]) == ["Tidepool Crab"]
    assert s.castle[0] == 10 - 1


def test_move_does_nothing_when_the_destination_lane_is_full():
    full = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = play_and_reveal("Undertow", D, hand_extra=(), attacking=([], ["Stone Tortoise"]),
                        defending=([], [n for n in full if n != "Pebble Mole"] + ["Gloom Bat"]))
    assert names(s.field[1][A]) == ["Stone Tortoise"]


def test_move_fills_the_destination_lane_up_to_its_fourth_slot():
    s = play_and_reveal("Undertow", D, attacking=([], ["Stone Tortoise"]),
                        defending=([], ["Tidepool Crab", "Ember Imp", "Sand Piper"]))
    assert names(s.field[1][D]) == ["Tidepool Crab", "Ember Imp", "Sand Piper", "Stone Tortoise"]
    assert s.field[1][A] == [] and s.castle[0] == 10, "the moved Tortoise no longer attacks"


def test_move_counts_the_moved_creatures_own_slots_against_the_free_slots_of_the_destination_lane():
    # RULES.md choice 18: the Clay Golem takes 2 slots; a lane of three one-slot creatures has 1 free: no move.
    # With two creatures there, it fits
    three = ["Tidepool Crab", "Ember Imp", "Sand Piper"]
    s = play_and_reveal("Undertow", D, attacking=([], ["Clay Golem"]), defending=([], three))
    assert names(s.field[1][A]) == ["Clay Golem"] and names(s.field[1][D]) == three
    s = play_and_reveal("Undertow", D, attacking=([], ["Clay Golem"]), defending=([], three[:2]))
    assert s.field[1][A] == [] and names(s.field[1][D]) == [*three[:2], "Clay Golem"]


def test_move_counts_a_creature_still_face_down_in_the_destination_lane_as_taking_its_slot():
    # player 0 reveals first (less castle HP): the Undertow turns before player 1's face-down Pebble Mole,
    # the fourth creature of their defending lane; moving the Tortoise there would make five
    s = make_state(hands=(["Undertow", "Gloom Bat"], ["Pebble Mole"]), castles=(5, 10),
                   attacking=([], ["Stone Tortoise"]), defending=([], ["Tidepool Crab", "Ember Imp", "Sand Piper"]))
    place(s, "Undertow", D, discards=["Gloom Bat"])
    end(s)
    place(s, "Pebble Mole", D)
    end(s)
    assert s.reveal_first == 0
    assert names(s.field[1][A]) == ["Stone Tortoise"]
    assert names(s.field[1][D]) == ["Tidepool Crab", "Ember Imp", "Sand Piper", "Pebble Mole"]
    s.check_invariants()


def test_a_weakened_creature_moved_to_its_other_lane_keeps_this_turns_weakening():
    # the Tremor takes 2 from player 1's Cinder Hound "this turn"; the Undertow then moves it to their
    # attacking lane, where it attacks with 4 - 2: a move is no new creature, and the turn is not over
    s = make_state(hands=(["Tremor", "Undertow", "Gloom Bat", "Pebble Mole"], []), defending=([], ["Cinder Hound"]))
    place(s, "Tremor", A, discards=["Gloom Bat"])
    place(s, "Undertow", A, discards=["Pebble Mole"])
    end_turn(s)
    assert names(s.field[1][A]) == ["Cinder Hound"] and s.field[1][D] == []
    assert s.castle[0] == 10 - (4 - 2)
    end_turn(s)  # the weakening has expired: the Hound attacks with its 4
    assert s.castle[0] == 10 - 2 - 4


def test_move_own_strongest_from_the_other_lane_into_here():
    s = play_and_reveal("Tailwind", A, defending=(["Tidepool Crab", "Stone Tortoise"], []))
    assert names(s.field[0][A]) == ["Stone Tortoise"] and names(s.field[0][D]) == ["Tidepool Crab"]
    assert s.castle[1] == 10 - 4


def test_a_revealed_creature_takes_its_slot_before_its_own_move_so_its_full_lane_takes_no_more():
    # "Each lane can hold a maximum of four creatures per player": the Tempest Roc turns face up as the fourth
    # creature of its lane, so its move of the Tortoise there would make five
    s = make_state(hands=(["Tempest Roc", "Gloom Bat", "Pebble Mole", "Lantern Moth", "Scorch"], []),
                   attacking=(["Tidepool Crab", "Ember Imp", "Sand Piper"], []), defending=(["Stone Tortoise"], []))
    place(s, "Tempest Roc", A, discards=["Gloom Bat", "Pebble Mole", "Lantern Moth", "Scorch"])
    end_turn(s)
    assert names(s.field[0][A]) == ["Tidepool Crab", "Ember Imp", "Sand Piper", "Tempest Roc"]
    assert names(s.field[0][D]) == ["Stone Tortoise"]
    s.check_invariants()


def test_heal_castle():
    s = play_and_reveal("Bedrock Ward", A, castles=(5, 10))
    assert s.castle[0] == 8


def test_damage_castle():
    s = play_and_reveal("Scorch", A)
    assert s.castle == [10, 9]
    s = play_and_reveal("Red Fox", D)  # a creature's reveal effect, from the defending lane too
    assert s.castle == [10, 9]


def test_draw_effect_draws_from_your_deck():
    s = make_state(hands=(["Dark Pact", "Gloom Bat"], []))
    deck = list(s.deck[0])
    place(s, "Dark Pact", A, discards=["Gloom Bat"])
    end(s)
    end(s)
    # its 3 cards, then the next turn's Draw Phase 2: the next Draw Phase alone would hide a short draw
    assert sorted(s.hand[0]) == sorted(deck[-5:]) and s.deck[0] == deck[:-5]
    assert len(s.hand[1]) == 2, "the opponent drew only their Draw Phase's 2"


def test_draw_effect_respects_the_hand_limit():
    hand = ["Dark Pact", "Gloom Bat", "Tidepool Crab", "Sturdy Turtle", "Harbor Seal", "Reef Eel", "Kelp Lurker"]
    s = make_state(hands=(hand, []))
    place(s, "Dark Pact", A, discards=["Gloom Bat"])  # 5 cards left, draws 3: 2 fit, 1 to the Graveyard
    top3 = s.deck[0][-3:]
    end(s)
    end(s)
    assert len(s.hand[0]) == 7 and top3[0] in s.graveyard[0]


def test_a_draw_effect_into_a_full_hand_takes_the_surplus_card_off_the_deck_to_the_graveyard_at_once():
    # RULES.md choice 14: the limit is checked at each draw, an effect's too. The card that does not fit is
    # drawn and goes to the Graveyard as the Dark Pact resolves (before the Pact itself); it does not stay on
    # the deck for the next Draw Phase, whose 2 cards then go to the Graveyard after it
    hand = ["Dark Pact", "Gloom Bat", "Tidepool Crab", "Sturdy Turtle", "Harbor Seal", "Reef Eel", "Kelp Lurker"]
    s = make_state(hands=(hand, []))
    place(s, "Dark Pact", A, discards=["Gloom Bat"])
    deck = list(s.deck[0])
    end(s)
    end(s)
    assert s.turn_number == 3 and len(s.hand[0]) == 7 and s.deck[0] == deck[:-5]
    assert s.graveyard[0] == [cid("Gloom Bat"), deck[-3], cid("Dark Pact"), deck[-4], deck[-5]]


def test_recover_returns_the_costliest_creature_from_the_graveyard():
    s = play_and_reveal("Resurrection", A, graveyards=(["Cinder Hound", "Granite Colossus", "Fireball"], []))
    assert cid("Granite Colossus") in s.hand[0] and cid("Granite Colossus") not in s.graveyard[0]


def test_recover_ties_between_equally_costly_cards_go_to_the_lowest_card_id():
    # Granite Colossus (id 17) and Void Reaper (id 58) both cost 4; listed highest id first
    s = play_and_reveal("Resurrection", A, graveyards=(["Void Reaper", "Granite Colossus"], []))
    assert cid("Granite Colossus") in s.hand[0] and cid("Void Reaper") in s.graveyard[0]


def test_recover_any_card_can_return_a_skill():
    s = play_and_reveal("Grave Rat", A, graveyards=(["Firestorm", "Tidepool Crab"], []))
    assert cid("Firestorm") in s.hand[0]


def test_recover_a_creature_passes_over_a_costlier_skill():
    s = play_and_reveal("Resurrection", A, graveyards=(["Firestorm", "Cinder Hound"], []))
    assert cid("Cinder Hound") in s.hand[0] and cid("Firestorm") in s.graveyard[0]


def test_recover_any_card_returns_the_costliest_card_even_a_creature():
    s = play_and_reveal("Grave Rat", A, graveyards=(["Firestorm", "Granite Colossus"], []))
    assert cid("Granite Colossus") in s.hand[0] and cid("Firestorm") in s.graveyard[0]


def test_recover_into_a_full_hand_leaves_the_card_in_the_graveyard():
    hand = ["Tidepool Crab", "Sturdy Turtle", "Harbor Seal", "Reef Eel", "Kelp Lurker"]
    s = make_state(hands=(["Grave Rat", "Gloom Bat", *hand], []), graveyards=(["Firestorm"], []))
    place(s, "Grave Rat", A, discards=["Gloom Bat"])
    for extra in ("Coral Warden", "Pebble Mole"):  # the hand is full again when the Rat is revealed
        s.hand[0].append(cid(extra))
        s.deck[0].remove(cid(extra))
    assert len(s.hand[0]) == 7
    end(s)
    end(s)
    assert cid("Firestorm") in s.graveyard[0] and cid("Firestorm") not in s.hand[0]


# ------------------------------------------------------------------ continuous lane effects
def test_lane_buff_raises_your_other_creatures_here():
    s = make_state(attacking=(["Rootbound Elder", "Tidepool Crab", "Stone Tortoise"], []))
    assert s.totals[0][A] == 3 + (1 + 1) + (4 + 1)


def test_lane_buff_with_an_affinity_only_raises_that_affinity():
    s = make_state(defending=(["Coral Warden", "Sturdy Turtle", "Pebble Mole"], []))
    assert s.totals[0][D] == 2 + (3 + 1) + 1


def test_lane_buff_stops_when_its_creature_leaves():
    s = make_state(hands=([], ["Fireball", "Gloom Bat"]), attacking=(["Rootbound Elder", "Stone Tortoise"], []),
                   defending=(["Sunlit Stag"], []))
    end(s)
    place(s, "Fireball", D, discards=["Gloom Bat"])  # weakest enemy here (their attacking lane)
    end(s)
    assert names(s.graveyard[0]) == ["Rootbound Elder"], "the Elder (3) was weaker than the buffed Tortoise (5)"
    assert names(s.field[0][A]) == ["Stone Tortoise"] and s.totals[0][A] == 4


def test_lane_debuff_lowers_enemy_creatures_here():
    s = make_state(attacking=([], ["Stone Tortoise", "Tidepool Crab"]), defending=(["Shade Wraith"], []))
    assert s.totals[1][A] == (4 - 1) + (1 - 1)
    end_turn(s)
    assert s.castle[0] == 10 - 0, "3 attack points against 3 defending points"


def test_lane_effects_of_several_creatures_add_up():
    # each card says what it gives: two buffs and two debuffs reaching one creature are +2 and -2, not the
    # largest of each. Player 0's Sturdy Turtle (Water, 3) gets +1 from the Rootbound Elder and +1 from the
    # Coral Warden (Water only), and -1 from each of player 1's Shade Wraith and Magma Salamander
    s = make_state(attacking=(["Rootbound Elder", "Coral Warden", "Sturdy Turtle", "Stone Tortoise"], []),
                   defending=([], ["Shade Wraith", "Magma Salamander"]))
    assert s.card_points(0, A, cid("Sturdy Turtle")) == 3 + 1 + 1 - 1 - 1
    # Elder 3 - 2, Warden 2 + 1 - 2, Turtle 3, Tortoise 4 + 1 - 2
    assert s.totals[0][A] == 1 + 1 + 3 + 3
    end_turn(s)
    assert s.castle == [10, 10 - (8 - 6)]


def test_synergy_counts_your_other_creatures_of_that_affinity():
    s = make_state(attacking=(["Kelp Lurker", "Sturdy Turtle"], []), defending=(["Tidepool Crab", "Pebble Mole"], []))
    assert s.card_points(0, A, cid("Kelp Lurker")) == 1 + 2  # two other Water creatures, any lane


def test_multi_slot_creature_occupies_several_lane_slots():
    s = make_state(hands=(["Fortified Shell", "Gloom Bat", "Lantern Moth", "Tidepool Crab"], []),
                   defending=(["Pebble Mole"], []))
    place(s, "Fortified Shell", D, discards=["Gloom Bat", "Lantern Moth"])
    assert s._used_slots(0, D) == 4 and s.decision() == "play"
    place(s, "Tidepool Crab", D)
    assert s.decision() == "destroy" and s.slots_to_free == 1


# ------------------------------------------------------------------ targeting
def test_only_face_up_creatures_can_be_targeted():
    # within a lane the defending side turns face up first (the reveal order), so a skill in the
    # attacking lane sees this turn's defenders ...
    for castles in ((10, 5), (5, 10)):
        s = make_state(hands=(["Fireball", "Gloom Bat"], ["Tidepool Crab"]), castles=castles)
        place(s, "Fireball", A, discards=["Gloom Bat"])
        end(s)
        place(s, "Tidepool Crab", D)
        end(s)
        assert names(s.graveyard[1]) == ["Tidepool Crab"]
    # ... while a skill in the defending lane resolves before this turn's attackers are face up
    for castles in ((10, 5), (5, 10)):
        s = make_state(hands=(["Fireball", "Gloom Bat"], ["Tidepool Crab"]), castles=castles)
        place(s, "Fireball", D, discards=["Gloom Bat"])
        end(s)
        place(s, "Tidepool Crab", A)
        end(s)
        assert names(s.field[1][A]) == ["Tidepool Crab"] and s.graveyard[1] == []
    # the same for a selector over both enemy lanes: player 0 reveals first (less castle HP), so the Firestorm
    # in their defending lane turns while player 1's Stone Tortoise is still face down: the Crab is the
    # strongest face-up enemy creature
    s = make_state(hands=(["Firestorm", "Gloom Bat", "Pebble Mole", "Sand Piper"], ["Stone Tortoise", "Red Fox", "Lantern Moth"]),
                   attacking=([], ["Tidepool Crab"]), castles=(5, 10))
    place(s, "Firestorm", D, discards=["Gloom Bat", "Pebble Mole", "Sand Piper"])
    end(s)
    place(s, "Stone Tortoise", D, discards=["Red Fox", "Lantern Moth"])
    end(s)
    assert names(s.graveyard[1]) == ["Red Fox", "Lantern Moth", "Tidepool Crab"]
    assert names(s.field[1][D]) == ["Stone Tortoise"]


def test_ties_between_targets_go_to_the_lowest_card_id():
    s = play_and_reveal("Fireball", A, defending=([], ["Pebble Mole", "Tidepool Crab"]))
    assert names(s.graveyard[1]) == ["Tidepool Crab"] and cid("Tidepool Crab") < cid("Pebble Mole")


def test_ties_between_strongest_targets_also_go_to_the_lowest_card_id():
    s = play_and_reveal("Abyssal Leviathan", A, defending=([], ["Sunlit Stag", "Stone Tortoise"]))
    assert CAT.by_name["Sunlit Stag"].points == CAT.by_name["Stone Tortoise"].points
    assert cid("Stone Tortoise") < cid("Sunlit Stag")
    assert names(s.graveyard[1]) == ["Stone Tortoise"] and names(s.field[1][D]) == ["Sunlit Stag"]


def test_strongest_and_weakest_targets_are_judged_by_the_points_they_count_now():
    # the Kelp Lurker (base 1) counts 1 + 3 with three other Water creatures on its field: the strongest
    # enemy here, above the Sturdy Turtle (3)
    s = play_and_reveal("Abyssal Leviathan", A, attacking=([], ["Tidepool Crab", "Reef Eel"]),
                        defending=([], ["Kelp Lurker", "Sturdy Turtle"]))
    assert names(s.graveyard[1]) == ["Kelp Lurker"] and names(s.field[1][D]) == ["Sturdy Turtle"]
    # the Rootbound Elder (3) lifts the Sturdy Turtle (base 3) to 4: the Elder is the weakest
    s = play_and_reveal("Fireball", A, defending=([], ["Sturdy Turtle", "Rootbound Elder"]))
    assert names(s.graveyard[1]) == ["Rootbound Elder"] and names(s.field[1][D]) == ["Sturdy Turtle"]


def test_effects_without_a_target_do_nothing():
    s = play_and_reveal("Firestorm", A)
    assert s.field == [[[], []], [[], []]] and names(s.graveyard[0])[-1] == "Firestorm"


def test_the_reveal_log_names_a_recover_or_draw_only_where_a_card_moved():
    # "Resurrection: recover" was logged (and shown as the last reveal) with no creature to bring back
    assert CAT.by_name["Resurrection"].cost == 2 and not CAT.by_name["Scorch"].kind == "creature"
    s = make_state(hands=(["Resurrection", "Scorch", "Kindle"], []))
    place(s, "Resurrection", A, ["Scorch", "Kindle"])
    end_turn(s)
    assert any("reveals Resurrection" in x for x in s.log) and not any("Resurrection: recover" in x for x in s.log)
    s = make_state(hands=(["Resurrection", "Scorch", "Kindle"], []), graveyards=(["Clay Golem"], []))
    place(s, "Resurrection", A, ["Scorch", "Kindle"])
    end_turn(s)
    assert "  Resurrection: recover" in s.log and "Clay Golem" in names(s.hand[0])
    s = make_state(hands=(["Kindle", "Scorch"], []), decks=([], ["Clay Golem", "Fireball"]))
    place(s, "Kindle", A, ["Scorch"])
    end_turn(s)
    assert any("reveals Kindle" in x for x in s.log) and not any("Kindle: draw" in x for x in s.log)
    s = make_state(hands=(["Kindle", "Scorch"], []))
    place(s, "Kindle", A, ["Scorch"])
    end_turn(s)
    assert "  Kindle: draw" in s.log
