"""The heuristic bot: registered, legal, observation-only, clearly stronger than random play, and its
documented decision rules in positions built through the engine."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs import load_policy
from tabletop_envs.core.arena import play_match
from tabletop_envs.terralore.bots import TerraloreHeuristic
from tabletop_envs.terralore.engine import TerraloreGame

from .scenario import CAT, A, D, act, cid, end, make_state, place


def test_heuristic_is_registered_under_the_env_name():
    assert isinstance(load_policy("terralore_v0/heuristic"), TerraloreHeuristic)


def test_heuristic_plays_only_legal_actions_and_decides_from_the_observation_alone():
    game = TerraloreGame()
    bot = TerraloreHeuristic()
    rng = np.random.default_rng(0)
    for seed in range(20):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            p = state.current_player()
            mask = state.legal_action_mask()
            obs = state.observation(p)
            action = bot.act(obs, mask, np.random.default_rng(1))
            assert mask[action], f"illegal {state.action_to_string(action)}"
            # a re-dealt world that looks the same to p gets the same answer
            other = state.resample_hidden(p, rng)
            assert bot.act(other.observation(p), other.legal_action_mask(), np.random.default_rng(1)) == action
            state.apply_action(action)


def test_heuristic_beats_random_in_at_least_85_percent_of_100_seat_alternated_games():
    res = play_match("terralore_v0", ["terralore_v0/heuristic", "terralore_v0/random"], 100, seed=11)
    assert res.games == 100
    assert res.win_rate(0) >= 0.85, res.summary()


@pytest.mark.slow
def test_heuristic_beats_random_in_at_least_90_percent_of_1000_seat_alternated_games():
    res = play_match("terralore_v0", ["terralore_v0/heuristic", "terralore_v0/random"], 1000, seed=0)
    assert res.win_rate(0) >= 0.90, res.summary()


def test_heuristic_beats_random_with_every_preset_deck():
    from tabletop_envs.terralore.catalogue import default_presets

    for deck in default_presets():
        if deck == "worst_deck_ever":
            continue
        res = play_match("terralore_v0", ["terralore_v0/heuristic", "terralore_v0/random"], 20, seed=3,
                         game_kwargs={"decks": (deck, deck)})
        assert res.win_rate(0) >= 0.7, f"{deck}: {res.summary()}"


# ---------------------------------------------------------------- decision rules in built positions
# (module docstring of tabletop_envs/terralore/bots.py)


def _bot_move(state) -> str:
    seat = state.current_player()
    action = TerraloreHeuristic().act(state.observation(seat), state.legal_action_mask(), np.random.default_rng(0))
    return state.action_to_string(action)


def test_heuristic_frees_lane_space_by_destroying_the_weakest_creature():
    s = make_state(hands=(["Sturdy Turtle", "Stone Tortoise"], []),
                   attacking=(["Clay Golem", "Burrowing Badger", "Pebble Mole"], []))  # 2 + 1 + 1 slots: full
    act(s, "play", cid("Sturdy Turtle"))
    act(s, "lane", A)
    act(s, "discard", cid("Stone Tortoise"))
    assert s.decision_name == "destroy"
    assert _bot_move(s) == "destroy Pebble Mole"  # 1 point, against the Badger's 2 and the Golem's 5


def _paying_for(hand):
    """Player 0 holding ``hand``, its first card just placed in the attacking lane: the bot picks a card to pay with."""
    s = make_state(hands=(hand, []))
    act(s, "play", cid(hand[0]))
    act(s, "lane", A)
    assert s.decision_name == "discard"
    return s


def test_heuristic_pays_with_a_card_it_cannot_place_this_turn_before_one_it_can():
    # after paying one card, one card is left to pay with: the free Crab still fits the plan, the
    # Tortoise (cost 2) does not, so the Tortoise pays although it is worth more
    assert _bot_move(_paying_for(["Sturdy Turtle", "Tidepool Crab", "Stone Tortoise"])) == "discard Stone Tortoise"


def test_heuristic_plays_a_castle_damage_skill_for_its_damage_alone():
    s = make_state(hands=(["Scorch"], []))  # 1 damage to the castle, no lane changes
    assert _bot_move(s) == "play Scorch"


def test_heuristic_heals_its_castle_only_when_it_has_lost_hp():
    for hp, expected in ((10, "end placement"), (9, "play Rising Tide")):
        s = make_state(hands=(["Rising Tide"], []), castles=(hp, 10))
        assert _bot_move(s) == expected, hp


def test_heuristic_avoids_a_draw_effect_that_would_leave_its_deck_no_longer_than_the_opponents():
    spare = [n for n in CAT.names if n not in ("Kindle", "Granite Colossus")]
    # Kindle draws 2; the Colossus (cost 4) cannot be paid for, so Kindle is the only card to place.
    # From 6 cards against 4 it would leave 4 against 4: the tie is not worth the risk. The risk is priced
    # from 10 cards left on (10 against 9 would leave 8 against 9), not before (11 against 10)
    for mine, theirs, expected in ((6, 4, "end placement"), (7, 4, "play Kindle"), (10, 3, "play Kindle"),
                                   (10, 9, "end placement"), (11, 10, "play Kindle")):
        s = make_state(hands=(["Kindle", "Granite Colossus"], []), decks=(spare[:mine], spare[-theirs:]))
        assert _bot_move(s) == expected, (mine, theirs)


def test_heuristic_removes_the_strongest_enemy_in_either_lane_when_it_opens_its_attack():
    # Soul Harvest exiles the strongest enemy creature in any lane: here the wall in front of the Golem;
    # the other cards cost too much to place
    s = make_state(hands=(["Soul Harvest", "Granite Colossus", "Inferno Wyrm"], []),
                   attacking=(["Clay Golem"], []), defending=([], ["Fortified Shell"]))
    assert _bot_move(s) == "play Soul Harvest"


def test_heuristic_weakens_an_enemy_attacker_from_its_defending_lane_when_already_behind():
    # the opponent's Stone Tortoise attacks an empty defending lane (this turn already looks bad):
    # Tremor weakens the strongest enemy facing the lane it goes into, so it goes into defence
    s = make_state(hands=(["Tremor", "Granite Colossus"], []), attacking=([], ["Stone Tortoise"]))
    assert _bot_move(s) == "play Tremor"
    act(s, "play", cid("Tremor"))
    assert _bot_move(s) == "into defending lane"


def test_heuristic_defends_against_face_down_attackers_it_sees_with_the_wall_open():
    # the opponent placed first: two face-down cards in their attacking lane, guessed at 2 points each: the
    # 4 points the Golem would soak (damage taken weighs 1.3) outweigh its 5 in attack. Behind the opaque
    # wall (the default) the bot cannot see them and sends the Golem to attack
    for opaque_wall, expected in ((False, "into defending lane"), (True, "into attacking lane")):
        s = make_state(hands=(["Clay Golem", "Granite Colossus", "Inferno Wyrm"], ["Tidepool Crab", "Pebble Mole"]),
                       first_placer=1, opaque_wall=opaque_wall)
        place(s, "Tidepool Crab", A)
        place(s, "Pebble Mole", A)
        end(s)
        assert _bot_move(s) == "play Clay Golem"
        act(s, "play", cid("Clay Golem"))
        assert _bot_move(s) == expected, opaque_wall


def test_heuristic_sends_further_creatures_to_defend_once_its_attack_is_lethal_past_a_face_down_defender():
    # the Golem's 5 points against one face-down defender (guessed at 2) reach the opponent's 3 HP
    s = make_state(hands=(["Sturdy Turtle", "Granite Colossus"], ["Tidepool Crab"]), attacking=(["Clay Golem"], []),
                   castles=(10, 3), first_placer=1, opaque_wall=False)
    place(s, "Tidepool Crab", D)
    end(s)
    act(s, "play", cid("Sturdy Turtle"))
    assert _bot_move(s) == "into defending lane"


def test_heuristic_values_a_lane_effect_on_top_of_a_creatures_points():
    # both creatures add 3 points; only one of them can be paid for. The Salamander's lane debuff lasts,
    # so it is worth its higher cost
    s = make_state(hands=(["Sturdy Turtle", "Magma Salamander", "Granite Colossus"], []))
    assert _bot_move(s) == "play Magma Salamander"


def test_heuristic_attacks_with_the_creature_that_makes_its_attack_lethal():
    # each time the face-up attack falls one point short of the opponent's castle
    for defending, castle in ((["Pebble Mole"], 10), (["Granite Colossus", "Pebble Mole"], 1)):
        s = make_state(hands=(["Sturdy Turtle", "Inferno Wyrm"], []), attacking=(["Granite Colossus", "Tidepool Crab"], []),
                       defending=([], defending), castles=(10, castle))
        assert _bot_move(s) == "play Sturdy Turtle"
        act(s, "play", cid("Sturdy Turtle"))
        assert _bot_move(s) == "into attacking lane", defending


def test_heuristic_places_a_recovery_skill_for_the_card_it_gets_back():
    # Resurrection adds nothing to this turn's counting; it returns the Golem from the Graveyard to the
    # hand. The other cards cost more than the hand can pay
    s = make_state(hands=(["Resurrection", "Granite Colossus", "Inferno Wyrm"], []), graveyards=(["Clay Golem"], []))
    assert _bot_move(s) == "play Resurrection"


# ---------------------------------------------------------------- gaps left by mutation testing (s49 bot audit)


def test_heuristic_counts_a_face_down_defender_it_sees_when_judging_whether_its_attack_is_already_lethal():
    # the Golem's 5 points against one face-down defender (guessed at 2) leave 3 for a castle of 4: not lethal
    # yet, so the Turtle attacks (without the guess the attack would look lethal and the Turtle defend)
    s = make_state(hands=(["Sturdy Turtle", "Granite Colossus"], ["Tidepool Crab"]), attacking=(["Clay Golem"], []),
                   castles=(10, 4), first_placer=1, opaque_wall=False)
    place(s, "Tidepool Crab", D)
    end(s)
    act(s, "play", cid("Sturdy Turtle"))
    assert _bot_move(s) == "into attacking lane"


def test_heuristic_counts_an_any_lane_removal_alike_from_both_lanes_and_so_places_it_in_attack():
    # Soul Harvest exiles the strongest enemy creature in either lane, wherever the skill lies: the Elder
    # attacking its 3-HP castle goes from both lanes alike, and the tie goes to the attacking lane
    s = make_state(hands=(["Soul Harvest", "Rising Tide", "Aurora Seraph"], []), attacking=([], ["Rootbound Elder"]),
                   castles=(3, 8))
    assert _bot_move(s) == "play Soul Harvest"
    act(s, "play", cid("Soul Harvest"))
    assert _bot_move(s) == "into attacking lane"


def test_heuristic_attacks_into_a_mutual_kill_it_wins_on_the_tiebreaker_of_field_points():
    # both castles at 3: the Golem's 5 in attack fells theirs while their Petrel's 3 fells ours; both at 0, the
    # field points decide (5 against 3), so the Golem attacks rather than defend
    s = make_state(hands=(["Lantern Moth", "Clay Golem", "Blazing Phoenix"], []), attacking=([], ["Storm Petrel"]),
                   castles=(3, 3))
    assert _bot_move(s) == "play Clay Golem"
    act(s, "play", cid("Clay Golem"))
    assert _bot_move(s) == "into attacking lane"


def test_heuristic_counts_a_creatures_castle_damage_towards_lethal_and_then_sends_it_to_defend():
    # the Red Fox's 1 castle damage fells the opponent's 1-HP castle from either lane: the attack is lethal
    # either way, so the creature defends
    s = make_state(hands=(["Red Fox", "Void Reaper", "Firestorm"], []), attacking=([], ["Flame Dancer"]),
                   castles=(6, 1))
    assert _bot_move(s) == "play Red Fox"
    act(s, "play", cid("Red Fox"))
    assert _bot_move(s) == "into defending lane"


def test_heuristic_places_a_skill_in_attack_even_once_its_attack_is_lethal():
    # "further creatures defend": a skill adds no points to either lane, and Scorch goes to the attacking lane
    s = make_state(hands=(["Scorch"], []), attacking=(["Cranky Seagull"], ["Eclipse Lich"]), castles=(8, 1))
    assert _bot_move(s) == "play Scorch"
    act(s, "play", cid("Scorch"))
    assert _bot_move(s) == "into attacking lane"


def test_heuristic_counts_a_weakening_as_taking_off_no_more_than_its_amount():
    # Tremor takes 2 off the Phoenix's 5: 3 still fell a 2-HP castle, so Tremor is not worth placing
    s = make_state(hands=(["Coral Warden", "Tremor"], []), attacking=([], ["Blazing Phoenix"]), castles=(2, 8))
    assert _bot_move(s) == "end placement"


def test_heuristic_does_not_move_an_enemy_into_the_lane_where_it_would_fell_its_castle():
    # Cyclone would move the Roc from their defending lane into their attacking lane, where its 6 points
    # (5 once weakened) fell a 4-HP castle with nothing to defend it
    s = make_state(hands=(["Harbor Seal", "Cyclone"], []), defending=([], ["Tempest Roc"]), castles=(4, 8))
    assert _bot_move(s) == "end placement"


def test_heuristic_does_not_place_an_affinity_weakening_without_an_enemy_of_that_affinity():
    # Seagull Poison weakens the strongest wind creature only: the Shade Wraith (shadow) is out of its reach
    s = make_state(hands=(["Seagull Poison"], []), attacking=([], ["Shade Wraith"]), castles=(8, 4))
    assert _bot_move(s) == "end placement"


def test_heuristic_values_a_removal_of_the_weakest_enemy_by_the_weakest_not_the_strongest():
    # Fireball destroys the weakest enemy creature here: of the Phoenix (5) and the Ram (3) in their attacking
    # lane it takes the Ram, and the heuristic plays the Night Stalker first; valued as taking the Phoenix (an
    # audit's mutant), the Fireball looked the better play
    s = make_state(hands=(["Fireball", "Night Stalker"], []), attacking=([], ["Blazing Phoenix", "Boulder Ram"]),
                   castles=(10, 8))
    assert _bot_move(s) == "play Night Stalker"


def test_heuristic_defends_rather_than_attack_into_a_mutual_kill_that_equal_field_points_leave_a_draw():
    # both castles at 3: the Turtle's 3 in attack fells theirs while their Petrel's 3 fells ours; both at 0 with
    # 3 field points each is a draw (RULES.md, tiebreakers), so the Turtle defends and both castles stand
    s = make_state(hands=(["Sturdy Turtle", "Granite Colossus", "Inferno Wyrm"], []), attacking=([], ["Storm Petrel"]),
                   castles=(3, 3))
    assert _bot_move(s) == "play Sturdy Turtle"
    act(s, "play", cid("Sturdy Turtle"))
    assert _bot_move(s) == "into defending lane"


def test_heuristic_keeps_only_what_the_hand_can_still_pay_for_after_the_discards_it_owes():
    # the Turtle (cost 1) is placed; 3 cards are left and 1 of them pays, so 2 cards remain for the plan: the
    # Crab and the Bat (cost 0, a card each) fit, the Tortoise (cost 2, 3 cards) no longer does and pays
    s = make_state(hands=(["Sturdy Turtle", "Tidepool Crab", "Stone Tortoise", "Gloom Bat"], []))
    act(s, "play", cid("Sturdy Turtle"))
    act(s, "lane", A)
    assert s.decision_name == "discard"
    assert _bot_move(s) == "discard Stone Tortoise"


def test_heuristic_counts_the_own_creature_a_card_destroys_against_its_points():
    # the Seagull's 6 points cost it the weakest creature of its own lane (a Mole or a Bat here): worth 5, less
    # than the Lion's 5 points and the HP its heal restores. Their wall of 16 leaves neither any damage to add
    s = make_state(hands=(["Cranky Seagull", "Radiant Lion", "Granite Colossus", "Inferno Wyrm"], []),
                   attacking=(["Pebble Mole"], []), defending=(["Gloom Bat"], ["Fortified Shell", "Granite Colossus"]),
                   castles=(9, 10))
    assert _bot_move(s) == "play Radiant Lion"


# ---------------------------------------------------------------- gaps left by mutation testing (bot decision audit)


def test_heuristic_keeps_its_opening_hand():
    # a card fewer costs more than a better hand gains (bots.py)
    s = TerraloreGame(mulligan=True).new_initial_state(0)
    assert s.decision_name == "mulligan"
    assert _bot_move(s) == "keep opening hand"


def test_heuristic_values_a_lane_buff_on_top_of_a_creatures_points():
    # both creatures add 3 points and only one can be paid for: the Guardian's lane buff lasts, so it is worth
    # its higher cost (the Turtle comes first in the hand and would win a tie)
    s = make_state(hands=(["Sturdy Turtle", "Prism Guardian", "Granite Colossus"], []))
    assert _bot_move(s) == "play Prism Guardian"


def test_heuristic_values_a_lane_debuff_above_a_point_of_its_own():
    # behind their wall of 7 and with no enemy attack, neither creature changes this turn's counting: the
    # Wraith's 3 points and lane debuff (1.5) outweigh the Tortoise's 4 points
    s = make_state(hands=(["Stone Tortoise", "Shade Wraith", "Granite Colossus"], []), defending=([], ["Fortified Shell"]))
    assert _bot_move(s) == "play Shade Wraith"


def test_heuristic_counts_healing_only_up_to_its_castles_10_hp_when_judging_a_lethal_attack():
    # their 11 in attack fell a 9-HP castle: Sanctuary's 4 HP stop at 10 and do not save it, so it is worth only
    # the 1 HP it restores, less than Scorch's damage, and Scorch goes first
    s = make_state(hands=(["Sanctuary", "Scorch", "Granite Colossus", "Inferno Wyrm"], []),
                   attacking=([], ["Granite Colossus", "Burrowing Badger"]), castles=(9, 10))
    assert _bot_move(s) == "play Scorch"


def test_heuristic_places_the_card_worth_most_first():
    # the Golem (cost 2) and the Crab (free) both fit the hand of 4; the Golem goes first
    s = make_state(hands=(["Clay Golem", "Tidepool Crab", "Granite Colossus", "Inferno Wyrm"], []))
    assert _bot_move(s) == "play Clay Golem"


def test_heuristic_pays_with_the_card_worth_least():
    # placing the Golem leaves the Mole and the Colossus, both owed: the Mole pays first
    assert _bot_move(_paying_for(["Clay Golem", "Pebble Mole", "Granite Colossus"])) == "discard Pebble Mole"


def test_heuristic_counts_its_own_face_down_attacker_when_judging_whether_its_attack_is_already_lethal():
    # the Golem it placed this turn lies face down in attack: its 5 points fell the 5-HP castle, so the Turtle
    # defends
    s = make_state(hands=(["Clay Golem", "Sturdy Turtle", "Pebble Mole", "Gloom Bat", "Tidepool Crab"], []),
                   castles=(10, 5), first_placer=1)
    end(s)
    place(s, "Clay Golem", A, discards=("Pebble Mole", "Gloom Bat"))
    act(s, "play", cid("Sturdy Turtle"))
    assert _bot_move(s) == "into defending lane"


def test_heuristic_passes_up_a_creature_whose_draw_would_run_its_deck_out_first():
    # behind their wall of 7 the Scout adds nothing to this turn's counting; its draw from 5 cards against 4
    # (leaving 4 against 4) is priced above its 2 points (the test of Kindle above: a draw card worth nothing else)
    spare = [n for n in CAT.names if n not in ("Gull Scout", "Granite Colossus", "Fortified Shell")]
    s = make_state(hands=(["Gull Scout", "Granite Colossus"], []), defending=([], ["Fortified Shell"]),
                   decks=(spare[:5], spare[-4:]))
    assert _bot_move(s) == "end placement"
