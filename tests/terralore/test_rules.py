"""One test per sentence of the Terralore rule text (shared/rules/terralore.html), named after it."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.core.errors import DeckError, IllegalActionError
from tabletop_envs.terralore.catalogue import AFFINITIES, RARITIES, validate_deck
from tabletop_envs.terralore.engine import TerraloreGame

from .scenario import CAT, A, D, act, cid, end, end_turn, ids, make_state, names, place


def game(**kw):
    return TerraloreGame(**kw)


# ------------------------------------------------------------------ Deck Composition and Setup
def test_each_player_starts_with_a_20_card_deck():
    s = game(mulligan=False).new_initial_state(1)
    for p in (0, 1):
        assert len(s.deck_list[p]) == 20
        assert len(s.deck[p]) + len(s.hand[p]) == 20


def test_only_a_single_copy_of_each_card_in_a_deck():
    deck = ["Tidepool Crab"] * 2 + CAT.names[1:19]
    with pytest.raises(DeckError, match="more than once"):
        validate_deck(CAT, deck)
    with pytest.raises(DeckError, match="singleton"):
        game(decks=(deck, "random"))
    s = game().new_initial_state(5)
    assert all(len(set(d)) == 20 for d in s.deck_list)


def test_players_draw_4_cards_to_form_their_starting_hand():
    s = game().new_initial_state(2)
    assert [len(h) for h in s.hand] == [4, 4]
    assert [len(d) for d in s.deck] == [16, 16]


def test_players_draw_4_cards_to_form_their_starting_hand_off_a_shuffled_deck():
    # one deck list deals different opening hands from game to game (and to two players holding it)
    hands = {tuple(sorted(game(decks=("ember_rush", "ember_rush"), mulligan=False).new_initial_state(seed).hand[p]))
             for seed in range(6) for p in (0, 1)}
    assert len(hands) >= 6


def test_hand_limit_7_surplus_draws_go_to_graveyard():
    hand = ["Tidepool Crab", "Sturdy Turtle", "Harbor Seal", "Reef Eel", "Kelp Lurker", "Coral Warden"]
    deck = ["Pebble Mole", "Ember Imp", "Sand Piper", "Lantern Moth"]  # top = last
    s = make_state(hands=(hand, []), decks=(deck, ["Gloom Bat", "Red Fox", "Fireball", "Scorch"]))
    end_turn(s)  # turn 3 Draw Phase: draws Lantern Moth (7th card), then Sand Piper (surplus)
    assert len(s.hand[0]) == 7
    assert cid("Lantern Moth") in s.hand[0]
    assert names(s.graveyard[0]) == ["Sand Piper"]


def test_players_draw_2_cards_at_the_beginning_of_each_turn():
    s = game(mulligan=False).new_initial_state(3)
    assert s.turn_number == 1 and [len(h) for h in s.hand] == [4, 4]
    top = [list(d[-2:]) for d in s.deck]
    end_turn(s)
    assert s.turn_number == 2
    for p in (0, 1):
        assert len(s.hand[p]) == 6 and set(top[p]) <= set(s.hand[p])
    # every later turn too, not only the second: the two top cards leave each deck (a full hand sends the
    # surplus to the Graveyard)
    for turn in (3, 4, 5):
        top = [list(d[-2:]) for d in s.deck]
        sizes = [len(d) for d in s.deck]
        end_turn(s)
        assert s.turn_number == turn
        for p in (0, 1):
            assert len(s.deck[p]) == sizes[p] - 2 and set(top[p]) <= set(s.hand[p] + s.graveyard[p])


def test_to_play_a_card_discard_cards_equal_to_its_cost_to_the_graveyard():
    s = make_state(hands=(["Stone Tortoise", "Tidepool Crab", "Pebble Mole", "Gloom Bat"], []))
    place(s, "Stone Tortoise", A, discards=["Tidepool Crab", "Gloom Bat"])  # cost 2
    assert names(s.graveyard[0]) == ["Tidepool Crab", "Gloom Bat"]
    assert names(s.hand[0]) == ["Pebble Mole"]


def test_playing_a_card_asks_exactly_as_many_discards_as_its_cost_for_every_cost():
    # one creature and one skill of every cost in the catalogue: the discards stop at the cost, no sooner
    # and no later, and each goes to the Graveyard
    firsts = {}
    for c in CAT.cards:
        firsts.setdefault((c.is_creature, c.cost), c.name)
    assert {cost for _, cost in firsts} >= {0, 1, 2, 3, 4, 5}
    for (_, cost), card in sorted(firsts.items()):
        fillers = [n for n in CAT.names if n != card][: cost + 1]
        s = make_state(hands=([card, *fillers], []))
        act(s, "play", cid(card))
        act(s, "lane", A)
        paid = 0
        while s.decision() == "discard":
            act(s, "discard", cid(fillers[paid]))
            paid += 1
        assert paid == cost, f"{card} (cost {cost}) asked for {paid} discards"
        assert s.decision() == "play" and names(s.graveyard[0]) == fillers[:cost]
        assert names(s.hand[0]) == fillers[cost:]


def test_a_card_costing_1_requires_discarding_1_card():
    s = make_state(hands=(["Sturdy Turtle"], []))
    mask = s.legal_action_mask()
    assert not mask[s.game.action_layout.id("play", cid("Sturdy Turtle"))], "no card left to pay with"
    with pytest.raises(IllegalActionError, match="Sturdy Turtle"):
        act(s, "play", cid("Sturdy Turtle"))
    s = make_state(hands=(["Sturdy Turtle", "Gloom Bat"], []))
    act(s, "play", cid("Sturdy Turtle"))
    act(s, "lane", A)
    assert s.decision() == "discard" and s.discards_left == 1
    act(s, "discard", cid("Gloom Bat"))
    assert s.decision() == "play" and names(s.graveyard[0]) == ["Gloom Bat"]


def test_a_player_loses_if_their_deck_runs_out_of_cards_to_draw():
    s = make_state(decks=(["Pebble Mole"], ["Ember Imp", "Red Fox"]))
    end_turn(s)  # turn 3 needs two cards; player 0 has one
    assert s.is_terminal() and list(s.returns()) == [-1, 1]
    assert s.end_reason == "deck-out"
    # the game ends there: nobody draws any more, and nobody has anything left to decide
    assert names(s.deck[1]) == ["Ember Imp", "Red Fox"] and len(s.hand[0]) == 0
    assert not s.legal_action_mask().any() and s.decision() == ""


# ------------------------------------------------------------------ Types of Cards
def test_each_creature_has_a_cost_and_a_point_value():
    creatures = [c for c in CAT.cards if c.is_creature]
    assert creatures and all(c.cost >= 0 and c.points >= 0 for c in creatures)
    s = make_state(hands=(["Cinder Hound", "Gloom Bat", "Pebble Mole"], []))
    place(s, "Cinder Hound", A, discards=["Gloom Bat", "Pebble Mole"])
    end_turn(s)
    assert s.totals[0][A] == CAT.by_name["Cinder Hound"].points == 4


def test_creature_cards_are_played_in_either_the_attacking_or_defending_lane():
    # either player, in either lane: each creature stands in the lane its owner chose
    s = make_state(hands=(["Tidepool Crab", "Pebble Mole"], ["Ember Imp", "Sand Piper"]))
    place(s, "Tidepool Crab", A)
    place(s, "Pebble Mole", D)
    end(s)
    place(s, "Ember Imp", D)
    place(s, "Sand Piper", A)
    end(s)
    assert names(s.field[0][A]) == ["Tidepool Crab"] and names(s.field[0][D]) == ["Pebble Mole"]
    assert names(s.field[1][A]) == ["Sand Piper"] and names(s.field[1][D]) == ["Ember Imp"]


def _player_1_places(s, name: str, lane: int, discards=()) -> None:
    """Player 1 places one card this turn, after player 0, who places first, ends; the turn ends."""
    assert s.actor == 0
    end(s)
    place(s, name, lane, discards=discards)
    end_turn(s)


def test_creatures_remain_in_play_unless_removed_by_an_effect_or_to_free_space():
    # Nothing else removes it: turns passing, losing its lane's combat, an effect weakening it to 0 points
    s = make_state(hands=(["Sturdy Turtle", "Gloom Bat"], ["Blinding Flash", "Pebble Mole", "Fireball", "Ember Imp"]),
                   attacking=([], ["Stone Tortoise"]))
    place(s, "Sturdy Turtle", D, discards=["Gloom Bat"])
    for turn in range(3):
        end_turn(s)
        assert names(s.field[0][D]) == ["Sturdy Turtle"] and s.totals[0][D] == 3
        assert s.castle[0] == 10 - (turn + 1)  # the Stone Tortoise (4) outscores it every turn: it stays
    _player_1_places(s, "Blinding Flash", A, discards=["Pebble Mole"])  # the Turtle (3) gets -3 this turn
    assert "  Blinding Flash: weaken" in s.log and s.castle[0] == 10 - 3 - 4  # it counted 0 points
    assert names(s.field[0][D]) == ["Sturdy Turtle"] and "Sturdy Turtle" not in names(s.graveyard[0])
    end_turn(s)
    assert names(s.field[0][D]) == ["Sturdy Turtle"] and s.totals[0][D] == 3
    # removed by a card's effect: a Fireball destroys the weakest enemy creature here
    _player_1_places(s, "Fireball", A, discards=["Ember Imp"])
    assert s.field[0][D] == [] and "Sturdy Turtle" in names(s.graveyard[0])

    # removed to free space: a fifth creature in a full lane, its owner destroys the one they choose
    four = ["Tidepool Crab", "Sturdy Turtle", "Pebble Mole", "Ember Imp"]
    s = make_state(hands=(["Sand Piper"], []), defending=(four, []))
    place(s, "Sand Piper", D)
    assert s.decision() == "destroy"
    act(s, "destroy", cid("Sturdy Turtle"))
    end_turn(s)
    assert names(s.graveyard[0]) == ["Sturdy Turtle"]
    assert names(s.field[0][D]) == ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]


def test_skill_cards_do_not_contribute_to_point_totals():
    s = make_state(hands=(["Rising Tide", "Tailwind"], []), attacking=([], ["Ember Imp"]), castles=(8, 10))
    place(s, "Rising Tide", A)
    place(s, "Tailwind", D)  # no creature of player 0's to move: it only stands in the defending lane
    end_turn(s)
    assert s.totals[0] == [0, 0]
    assert names(s.graveyard[0]) == ["Tailwind", "Rising Tide"]  # in reveal order: the lower castle defends first
    assert s.castle[0] == 8 + 2 - 1  # healed by the skill, then hit by the Ember Imp, which Tailwind did not block
    assert s.castle[1] == 10, "the Rising Tide in the attacking lane counted no points against the empty defence"


def test_skills_may_target_creatures_castles_or_other_game_elements():
    kinds = {e.kind for c in CAT.cards if not c.is_creature for e in c.effects}
    assert {"destroy", "exile", "weaken", "move"} & kinds, "skills that target creatures"
    assert {"heal_castle", "damage_castle"} <= kinds, "skills that target castles"
    assert {"draw", "recover"} <= kinds, "skills that target other game elements (deck, Graveyard)"


def test_every_card_has_an_elemental_affinity_and_a_rarity_from_common_to_legendary():
    assert {c.affinity for c in CAT.cards} == set(AFFINITIES) and len(AFFINITIES) == 6
    assert {c.rarity for c in CAT.cards} == set(RARITIES)
    assert RARITIES == ("common", "uncommon", "rare", "epic", "legendary")


def test_cost_upper_left_points_bottom_right_affinity_upper_right_rarity_bottom_left():
    # the card picture: the points in their corner are those that count now on the field (Magma
    # Salamander, across the lane, takes 1 off Stone Tortoise's 4), the card's own points off the field
    from tabletop_envs.terralore.render import card_face

    s = make_state(hands=(["Stone Tortoise", "Fireball"], []), attacking=([], ["Magma Salamander"]),
                   defending=(["Stone Tortoise"], []))
    tortoise = CAT.by_name["Stone Tortoise"]
    assert (tortoise.cost, tortoise.points, s.card_points(0, D, tortoise.id)) == (2, 4, 3)
    on_field = card_face(s, tortoise.id, 0, D)
    assert on_field.corners() == ("2", "earth", "common", "3")
    assert on_field.lines == ["base 4 pts"], "the printed points, as they differ; the 3 shows once, in its corner"
    assert card_face(s, tortoise.id).corners() == ("2", "earth", "common", "4")
    fireball = CAT.by_name["Fireball"]
    assert card_face(s, fireball.id).corners() == (str(fireball.cost), "fire", "common", ""), "a skill has no points"


def test_cost_affinity_rarity_and_points_are_drawn_in_the_four_corners_and_not_on_a_face_down_card():
    import dataclasses

    from tabletop_envs.core.render import BADGE, TEXT, Canvas, CardFace
    from tabletop_envs.terralore.render import AFFINITY_COLORS, HAND_CARD, SMALL_CARD, card_face

    s = make_state(defending=(["Eclipse Lich"], []))
    lich = card_face(s, cid("Eclipse Lich"), 0, D)
    assert lich.corners() == ("5", "shadow", "legendary", "6")

    def drawn(face, w, h):
        canvas = Canvas(w, h)
        canvas.card(0, 0, face, w, h)
        return np.asarray(canvas.image)[..., :3]

    def has(crop, color):
        return bool(np.all(crop == color, axis=2).any())

    for w, h in (HAND_CARD, SMALL_CARD):
        picture = drawn(lich, w, h)
        bare = drawn(dataclasses.replace(lich, top_left="", top_right="", bottom_left="", bottom_right=""), w, h)
        edge = BADGE + 4
        corners = {"upper left": (slice(0, edge), slice(0, w // 2)), "upper right": (slice(0, edge), slice(w // 2, w)),
                   "bottom left": (slice(h - edge, h), slice(0, w // 2)),
                   "bottom right": (slice(h - edge, h), slice(w // 2, w))}
        assert not has(bare, TEXT), "light ink on this card comes only from its corner texts"
        for where, crop in corners.items():
            # a badge in the affinity's colour with light text on it (dark Shadow wants light text)
            assert has(picture[crop], AFFINITY_COLORS["shadow"]), f"{w}x{h}: no badge {where}"
            assert has(picture[crop], TEXT), f"{w}x{h}: no text {where}"
        # each text in its own corner, not merely a badge in every corner: drawn alone, a corner's text
        # lies in that quarter of the card (a wide word may reach past the middle, so its centre is judged)
        fields = {"upper left": "top_left", "upper right": "top_right", "bottom left": "bottom_left",
                  "bottom right": "bottom_right"}
        for where, field in fields.items():
            alone = dataclasses.replace(lich, **{f: getattr(lich, f) if f == field else "" for f in fields.values()})
            ys, xs = np.nonzero(np.all(drawn(alone, w, h) == TEXT, axis=2))
            assert len(xs), f"{w}x{h}: {field} is not drawn"
            assert ("upper" if ys.mean() < h / 2 else "bottom") == where.split()[0], f"{w}x{h}: {field} drawn low"
            assert ("left" if xs.mean() < w / 2 else "right") == where.split()[1], \
                f"{w}x{h}: {field} ({getattr(lich, field)}) drawn on the wrong side"
        # a back shows only its title, here the label the table puts on the opponent's face-down cards
        face_down = drawn(dataclasses.replace(lich, title="face down", face_down=True), w, h)
        np.testing.assert_array_equal(face_down, drawn(CardFace("face down", face_down=True), w, h))
        assert not has(face_down, AFFINITY_COLORS["shadow"])


# ------------------------------------------------------------------ The Board and Castle
def test_the_board_is_divided_into_two_lanes():
    s = make_state(hands=(["Tidepool Crab", "Pebble Mole"], []))
    act(s, "play", cid("Tidepool Crab"))
    lay = s.game.action_layout
    assert [lay.decode(a) for a in s.legal_actions()] == [("lane", A), ("lane", D)], "two lanes to choose from"
    act(s, "lane", D)
    place(s, "Pebble Mole", A)
    end_turn(s)
    assert names(s.field[0][A]) == ["Pebble Mole"] and names(s.field[0][D]) == ["Tidepool Crab"]


def test_the_defending_lane_is_on_a_players_left_and_the_attacking_lane_on_their_right():
    # in the table picture each viewer sits at the bottom: their defending lane on their left, their
    # attacking lane on their right; the opponent sits across, so their left (defending) is the viewer's
    # right, above the viewer's attacking lane: one lane is one side's attacking and the other's defending
    from tabletop_envs.terralore.render import AFFINITY_COLORS, WIDTH, draw_table

    water = AFFINITY_COLORS["water"]

    def where(viewer, owner, lane):
        """(side, top row) of the picture where a lone Tidepool Crab (Water) of ``owner`` in ``lane`` shows."""
        field = (["Tidepool Crab"], []) if owner == 0 else ([], ["Tidepool Crab"])
        s = make_state(**{"attacking" if lane == A else "defending": field})
        ys, xs = np.nonzero(np.all(np.asarray(draw_table(s, viewer).image)[..., :3] == water, axis=2))
        assert len(xs), "the card shows"
        assert xs.max() < WIDTH / 2 or xs.min() >= WIDTH / 2, "within one side"
        return ("left" if xs.max() < WIDTH / 2 else "right"), int(ys.min())

    empty = np.asarray(draw_table(make_state(), 0).image)[..., :3]
    assert not np.all(empty == water, axis=2).any()
    for me in (0, 1):
        them = 1 - me
        mine = {lane: where(me, me, lane) for lane in (A, D)}
        theirs = {lane: where(me, them, lane) for lane in (A, D)}
        assert mine[D][0] == "left" and mine[A][0] == "right"
        assert theirs[D][0] == "right" and theirs[A][0] == "left"
        assert theirs[A][1] < mine[D][1] and theirs[D][1] < mine[A][1], "the opponent's side is across the table"


def test_attacking_lane_is_the_opponents_defending_lane():
    # player 0's attackers face player 1's defenders only; player 1's attackers face player 0's defenders
    s = make_state(attacking=(["Stone Tortoise"], ["Ember Imp"]), defending=(["Tidepool Crab"], ["Sturdy Turtle"]))
    end_turn(s)
    assert s.castle == [10, 10 - (4 - 3)]  # 1 - 1 = 0 into player 0; 4 - 3 = 1 into player 1


def test_each_players_castle_starts_with_10_hp():
    assert game().new_initial_state(0).castle == [10, 10]


def test_reducing_the_opponents_castle_hp_to_0_wins():
    s = make_state(attacking=(["Stone Tortoise"], []), castles=(10, 4))
    end_turn(s)
    assert s.is_terminal() and list(s.returns()) == [1, -1] and s.castle[1] == 0


# ------------------------------------------------------------------ Game Phases
def test_terralore_is_played_in_four_phases_per_turn_draw_play_reveal_counting():
    s = make_state(hands=(["Fireball", "Gloom Bat"], []), attacking=([], ["Red Fox"]),
                   decks=(["Pebble Mole", "Ember Imp", "Sand Piper"], ["Lantern Moth", "Tidepool Crab", "Scorch"]))
    # Play Phase: the Fireball goes down face down and does nothing yet
    place(s, "Fireball", D, discards=["Gloom Bat"])
    assert names(s.face_down[0][D]) == ["Fireball"] and names(s.field[1][A]) == ["Red Fox"]
    end(s)
    end(s)
    # Reveal Phase, then Counting Phase: the Fireball destroyed the Red Fox (2) before the lanes were counted
    assert s.log[:2] == ["player_0 reveals Fireball (defending)", "  Fireball: destroy"]
    assert s.log[-1].startswith("counting:") and len(s.log) == 3
    assert names(s.graveyard[1]) == ["Red Fox"] and s.castle == [10, 10]
    # the next turn opens with its Draw Phase: 2 cards each before anyone places
    assert s.turn_number == 3 and s.decision() == "play"
    assert names(s.hand[0]) == ["Sand Piper", "Ember Imp"] and names(s.hand[1]) == ["Scorch", "Tidepool Crab"]


def test_draw_phase_both_players_draw_2_cards():
    s = make_state()
    sizes = [len(d) for d in s.deck]
    end_turn(s)
    assert [len(d) for d in s.deck] == [n - 2 for n in sizes]
    assert [len(h) for h in s.hand] == [2, 2]
    # hands of any size (within the limit) take the same two, each the top two cards of its own deck
    s = make_state(hands=(["Tidepool Crab"], ["Pebble Mole", "Ember Imp", "Sand Piper"]))
    top = [list(d[-2:]) for d in s.deck]
    end_turn(s)
    assert [len(h) for h in s.hand] == [1 + 2, 3 + 2]
    assert all(set(top[p]) <= set(s.hand[p]) for p in (0, 1))


def _player_1_sees_player_0_place_two(**options):
    """Player 1's observation before and after player 0 places two cards (one paid with two discards), and the
    state then."""
    s = make_state(hands=(["Tidepool Crab", "Stone Tortoise", "Gloom Bat", "Pebble Mole"], []), **options)
    before = s.observation(1)
    place(s, "Tidepool Crab", A)
    place(s, "Stone Tortoise", D, discards=["Gloom Bat", "Pebble Mole"])
    end(s)
    lay = s.game.observation_layout
    obs = s.observation(1)
    return lay, obs, [n for n, sl in lay.slices.items() if not np.array_equal(before[sl], obs[sl])], s


def test_play_phase_cards_are_placed_face_down_and_hidden_from_the_opponent():
    # "The placement remains hidden from the opponent": nothing of it shows until the Reveal Phase
    lay, obs, changed, _ = _player_1_sees_player_0_place_two()
    assert set(changed) <= {"placement", "decision"}  # only that it is now player 1's turn to place
    assert list(lay.view(obs, "opp_face_down_counts")) == [0, 0]
    # Face down: the placed cards lie in the face-down lanes, not among the face-up creatures, and count no
    # points, while the opponent places too; the Reveal Phase turns them face up
    s = make_state(hands=(["Tidepool Crab", "Stone Tortoise", "Gloom Bat", "Pebble Mole"], ["Ember Imp"]))
    crab, tortoise = cid("Tidepool Crab"), cid("Stone Tortoise")
    place(s, "Tidepool Crab", A)
    place(s, "Stone Tortoise", D, discards=["Gloom Bat", "Pebble Mole"])
    end(s)
    place(s, "Ember Imp", A)  # player 1 places while player 0's cards wait face down
    assert s.face_down[0] == [[crab], [tortoise]] and s.field[0] == [[], []] and s.totals[0] == [0, 0]
    own = s.observation(0)
    assert lay.view(own, "own_face_down_attacking")[crab] == 1 and lay.view(own, "own_face_down_defending")[tortoise] == 1
    assert not lay.view(own, "own_attacking").any() and not lay.view(own, "own_defending").any()
    text = s.render_text(0)
    assert "face down: Tidepool Crab" in text and "face down: Stone Tortoise" in text
    end(s)  # the Reveal Phase
    assert "player_0 reveals Tidepool Crab (attacking)" in s.log
    assert "player_0 reveals Stone Tortoise (defending)" in s.log
    assert s.face_down[0] == [[], []] and s.field[0] == [[crab], [tortoise]]
    seen = s.observation(1)  # now face up, in the opponent's view too
    assert lay.view(seen, "opp_attacking")[crab] == 1 and lay.view(seen, "opp_defending")[tortoise] == 1


def test_option_opaque_wall_false_the_placement_shows_as_card_backs_and_open_discards_never_the_cards():
    from tabletop_envs.terralore.render import draw_table

    lay, obs, changed, s = _player_1_sees_player_0_place_two(opaque_wall=False)
    assert lay.view(obs, "opp_attacking").sum() == 0 and lay.view(obs, "opp_defending").sum() == 0
    assert list(lay.view(obs, "opp_face_down_counts") * 20) == [1, 1]
    assert set(changed) <= {"opp_face_down_counts", "opp_graveyard", "hand_sizes", "placement", "decision"}
    # the discards are public (the Graveyard is open), the placed cards are not
    card_segments = [seg for seg, v in lay.segments.items() if seg.startswith("opp") and v.size == CAT.size]
    assert not any(lay.view(obs, seg)[cid("Stone Tortoise")] for seg in card_segments)
    # nor in the text view or the picture: with another card face down in its place (the Crab back in the
    # deck), player 1 is shown exactly the same table
    text = s.render_text(1)
    assert "1 face down" in text and "Tidepool Crab" not in text and "Stone Tortoise" not in text
    other = s.clone()
    swap = other.deck[0].pop()
    other.deck[0].append(cid("Tidepool Crab"))
    other.face_down[0][A] = [swap]
    assert other.render_text(1) == text
    np.testing.assert_array_equal(np.asarray(draw_table(other, 1).image), np.asarray(draw_table(s, 1).image))


def test_play_phase_both_players_place_their_cards_in_every_turn_whoever_places_first():
    s = TerraloreGame(decks=("ember_rush", "tidal_fortress"), mulligan=False).new_initial_state(0)
    placed = set()
    for turn, placers in enumerate([(0, 1), (1, 0), (0, 1), (1, 0)], start=1):
        assert s.turn_number == turn
        seen = []
        while s.turn_number == turn:
            p = s.current_player()
            seen.append(p)
            before = len(s.face_down[p][D])
            hand = s.hand[p]
            cheap = sorted((CAT.cost[c], c) for c in hand if CAT.is_creature[c] and CAT.cost[c] < len(hand))
            if cheap and p not in seen[:-1] and len(s.field[p][D]) < 3:  # each defends with their cheapest creature
                card = cheap[0][1]
                act(s, "play", card)
                act(s, "lane", D)
                for other in [c for c in hand if c != card][:CAT.cost[card]]:
                    act(s, "discard", other)
                assert len(s.face_down[p][D]) == before + 1 and s.current_player() == p
                placed.add((turn, p))
            end(s)
        assert tuple(seen) == placers, f"turn {turn}: placers {seen}"
    assert {p for _, p in placed} == {0, 1}, placed


def test_reveal_phase_all_cards_are_revealed():
    s = make_state(hands=(["Tidepool Crab", "Pebble Mole"], ["Ember Imp", "Rising Tide"]))
    place(s, "Tidepool Crab", A)
    place(s, "Pebble Mole", D)
    end(s)
    place(s, "Ember Imp", D)
    place(s, "Rising Tide", A)
    end(s)
    assert s.face_down == [[[], []], [[], []]]
    assert names(s.field[0][A] + s.field[0][D] + s.field[1][D]) == ["Tidepool Crab", "Pebble Mole", "Ember Imp"]
    assert "Rising Tide" in names(s.graveyard[1])


def assert_the_die_roll_winner_reveals_first(deal) -> None:
    """``deal(seed)`` is a state whose Reveal Phase opens with a die roll: over a dozen seeds the higher
    roll reveals first every time, and each player wins it sometimes."""
    firsts = set()
    for seed in range(12):
        s = deal(seed)
        placed = []
        for p in (0, 1):  # one card face down in each defending lane: the winner's is revealed first
            placed.append(s.hand[p].pop())
            s.face_down[p][D].append(placed[-1])
        end_turn(s)
        assert s.log[0].startswith("die roll:")
        rolls = [int(x.split()[-1]) for x in s.log[0][len("die roll: "):].split(", ")]
        winner = int(np.argmax(rolls))
        assert rolls[0] != rolls[1] and s.reveal_first == winner
        reveals = [line for line in s.log if " reveals " in line]
        assert reveals == [f"player_{p} reveals {CAT.names[placed[p]]} (defending)" for p in (winner, 1 - winner)]
        firsts.add(s.reveal_first)
    assert firsts == {0, 1}, "either player can win the die roll"


def test_in_round_1_players_roll_a_die_and_the_winner_reveals_first():
    assert_the_die_roll_winner_reveals_first(lambda seed: game(mulligan=False).new_initial_state(seed))


def test_perfectly_tied_players_roll_a_die_and_the_winner_reveals_first():
    # turn 4, equal castles, equal field points (1 each): a perfect tie, not round 1
    assert_the_die_roll_winner_reveals_first(lambda seed: make_state(
        hands=(["Ember Imp"], ["Sand Piper"]), attacking=(["Tidepool Crab"], ["Pebble Mole"]), castles=(7, 7),
        turn_number=4, seed=seed))


def test_otherwise_the_player_with_the_least_castle_hp_reveals_first():
    s = make_state(hands=(["Tidepool Crab"], ["Pebble Mole"]), castles=(9, 6), turn_number=3)
    place(s, "Tidepool Crab", D)
    end(s)
    place(s, "Pebble Mole", A)
    end(s)
    assert s.reveal_first == 1 and not any(line.startswith("die roll") for line in s.log)
    # the castles decide, not the field points: the lower castle reveals first though it leads on points
    s = make_state(hands=(["Tidepool Crab"], ["Pebble Mole"]), castles=(9, 6), turn_number=3,
                   defending=(["Ember Imp"], ["Stone Tortoise", "Sturdy Turtle"]))
    place(s, "Tidepool Crab", D)
    end(s)
    place(s, "Pebble Mole", D)
    end(s)
    assert s.reveal_first == 1 and not any(line.startswith("die roll") for line in s.log)
    assert [line for line in s.log if " reveals " in line][0] == "player_1 reveals Pebble Mole (defending)"


def test_reveal_order_starts_with_the_defending_lane_of_the_least_hp_player_in_either_seat():
    # player 0 has less castle HP (the other tests have player 1 losing): 0-defending, 1-attacking,
    # 1-defending, 0-attacking
    s = make_state(hands=(["Tidepool Crab", "Pebble Mole"], ["Ember Imp", "Sand Piper"]), castles=(4, 9),
                   attacking=([], ["Stone Tortoise"]))  # player 1 also leads on field points
    place(s, "Tidepool Crab", A)
    place(s, "Pebble Mole", D)
    end(s)
    place(s, "Ember Imp", A)
    place(s, "Sand Piper", D)
    end(s)
    assert s.reveal_first == 0 and not s.log[0].startswith("die roll")
    reveals = [line.split(" reveals ")[1].split(" (")[0] for line in s.log if " reveals " in line]
    assert reveals == ["Pebble Mole", "Ember Imp", "Sand Piper", "Tidepool Crab"]


def test_equal_castle_hp_the_player_with_fewer_field_points_is_the_losing_player():
    s = make_state(attacking=(["Sturdy Turtle"], ["Tidepool Crab"]), defending=(["Stone Tortoise"], []),
                   castles=(6, 6), turn_number=3)
    end_turn(s)
    assert s.reveal_first == 1 and not s.log[0].startswith("die roll")


def test_reveal_order_losing_defending_then_opponent_attacking_then_opponent_defending_then_losing_attacking():
    # player 1 has less castle HP: 1-defending, 0-attacking, 0-defending, 1-attacking
    s = make_state(hands=(["Tidepool Crab", "Pebble Mole"], ["Ember Imp", "Sand Piper"]), castles=(10, 5))
    place(s, "Tidepool Crab", A)
    place(s, "Pebble Mole", D)
    end(s)
    place(s, "Ember Imp", A)
    place(s, "Sand Piper", D)
    end(s)
    reveals = [line.split(" reveals ")[1].split(" (")[0] for line in s.log if " reveals " in line]
    assert reveals == ["Sand Piper", "Tidepool Crab", "Pebble Mole", "Ember Imp"]


def test_counting_points_in_the_attacking_lane_are_compared_with_the_opponents_defending_lane():
    s = make_state(attacking=(["Stone Tortoise", "Tidepool Crab"], []), defending=([], ["Cinder Hound"]))
    end_turn(s)
    assert s.castle[1] == 10 - (5 - 4)
    # the whole of each lane on both sides: every defender counts, not only the strongest
    s = make_state(attacking=(["Stone Tortoise", "Cinder Hound"], []),
                   defending=([], ["Tidepool Crab", "Sturdy Turtle", "Burrowing Badger"]))
    end_turn(s)
    assert s.castle == [10, 10 - ((4 + 4) - (1 + 3 + 2))]


def test_excess_points_from_the_attacking_lane_are_dealt_as_damage_to_the_opponents_castle():
    s = make_state(attacking=(["Stone Tortoise", "Sunlit Stag"], []), defending=([], ["Tidepool Crab"]))
    end_turn(s)
    assert s.castle == [10, 10 - 7]
    s = make_state(attacking=([], ["Stone Tortoise", "Sunlit Stag"]), defending=(["Tidepool Crab"], []))
    end_turn(s)
    assert s.castle == [10 - 7, 10], "either player's excess, in full"
    s = make_state(attacking=(["Tidepool Crab"], []), defending=([], ["Stone Tortoise"]))
    end_turn(s)
    assert s.castle == [10, 10], "an attack that does not exceed the defence deals nothing"


# ------------------------------------------------------------------ Lane and Board Mechanics
def test_each_lane_holds_at_most_four_creatures_per_player():
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=(["Lantern Moth"], []), attacking=(four, []))
    place(s, "Lantern Moth", A)
    assert s.decision() == "destroy"
    act(s, "destroy", cid("Ember Imp"))
    end_turn(s)
    assert len(s.field[0][A]) == 4 and s._used_slots(0, A) == 4


def test_the_four_creature_limit_is_per_player_the_opponents_creatures_in_the_lane_do_not_count():
    # player 0's attacking lane is player 1's defending lane: four of theirs and three of ours fit
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=(["Lantern Moth", "Gloom Bat"], []),
                   attacking=(["Red Fox", "Beacon Keeper", "Burrowing Badger"], []), defending=([], four))
    place(s, "Lantern Moth", A)
    assert s.decision() == "play", "a fourth own creature needs no replace-one"
    place(s, "Gloom Bat", A)
    assert s.decision() == "destroy", "a fifth own creature does"


def test_a_fifth_creature_requires_destroying_one_already_in_play_to_the_graveyard():
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=(["Lantern Moth"], []), attacking=(four, []))
    place(s, "Lantern Moth", A)
    lay = s.game.action_layout
    legal = {lay.decode(a)[1] for a in s.legal_actions()}
    assert legal == set(ids(four)), "only your own creatures in that lane may be destroyed"
    act(s, "destroy", cid("Sand Piper"))
    assert names(s.graveyard[0]) == ["Sand Piper"] and s.decision() == "play"
    end_turn(s)
    assert names(s.field[0][A]) == ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Lantern Moth"]


def test_a_costly_fifth_creature_is_paid_for_with_its_discards_before_the_creature_to_destroy_is_chosen():
    # placing a card: which card, its lane, one discard per point of cost, then (a full lane) the destroy
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=(["Stone Tortoise", "Gloom Bat", "Lantern Moth"], []), attacking=(four, []))
    act(s, "play", cid("Stone Tortoise"))
    act(s, "lane", A)
    assert s.decision() == "discard" and s.discards_left == 2 and s.slots_to_free == 1
    act(s, "discard", cid("Gloom Bat"))
    assert s.decision() == "discard"
    act(s, "discard", cid("Lantern Moth"))
    assert s.decision() == "destroy"
    act(s, "destroy", cid("Sand Piper"))
    assert s.decision() == "play" and names(s.graveyard[0]) == ["Gloom Bat", "Lantern Moth", "Sand Piper"]


def test_a_fifth_creature_must_destroy_one_of_the_creatures_not_a_skill_placed_face_down_in_that_lane():
    # "they must destroy one of the creatures already in play": a skill placed face down in the full lane
    # this turn is no creature, so it is no replace-one choice; it stays face down and resolves when revealed
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=(["Scorch", "Lantern Moth"], []), attacking=(four, []))
    place(s, "Scorch", A)  # a skill takes no slot: no replace-one yet
    assert s.decision() == "play"
    place(s, "Lantern Moth", A)
    assert s.decision() == "destroy"
    lay = s.game.action_layout
    legal = {lay.decode(a)[1] for a in s.legal_actions()}
    assert legal == set(ids(four)), "only creatures may be destroyed to free the lane, never the face-down skill"
    with pytest.raises(IllegalActionError):
        act(s, "destroy", cid("Scorch"))
    act(s, "destroy", cid("Pebble Mole"))
    end_turn(s)
    assert names(s.graveyard[0]) == ["Pebble Mole", "Scorch"]  # the Scorch went after its reveal
    assert s.castle[1] == 10 - 1 - 4  # its 1 damage, then the four attackers' 4 points against no defence
    assert names(s.field[0][A]) == ["Tidepool Crab", "Ember Imp", "Sand Piper", "Lantern Moth"]


def test_destroyed_cards_go_to_the_graveyard_unless_exiled_which_removes_them_permanently():
    s = make_state(hands=(["Fireball", "Gloom Bat", "Banish", "Pebble Mole", "Ember Imp"], []),
                   attacking=([], ["Sturdy Turtle", "Tidepool Crab"]))
    place(s, "Fireball", D, discards=["Gloom Bat"])  # destroy the weakest enemy here: Tidepool Crab
    place(s, "Banish", D, discards=["Pebble Mole", "Ember Imp"])  # exile the weakest: Sturdy Turtle
    end_turn(s)
    assert names(s.graveyard[1]) == ["Tidepool Crab"]
    assert names(s.exile[1]) == ["Sturdy Turtle"]
    for _ in range(2):
        end_turn(s)
    assert names(s.exile[1]) == ["Sturdy Turtle"], "exiled cards never come back"


def test_exiled_cards_are_permanently_removed_and_cannot_be_recovered_like_graveyard_cards():
    s = make_state(hands=(["Banish", "Pebble Mole", "Ember Imp"], ["Resurrection", "Scorch", "Rising Tide"]),
                   attacking=([], ["Cinder Hound"]), graveyards=([], ["Tidepool Crab"]))
    place(s, "Banish", D, discards=["Pebble Mole", "Ember Imp"])  # exile the weakest enemy here: the Hound
    end_turn(s)
    assert names(s.exile[1]) == ["Cinder Hound"]
    end(s)  # turn 3: player 0 places first and passes
    place(s, "Resurrection", A, discards=["Scorch", "Rising Tide"])  # the costliest creature of the Graveyard
    end(s)
    assert cid("Tidepool Crab") in s.hand[1], "the Graveyard's creature comes back"
    assert names(s.exile[1]) == ["Cinder Hound"] and cid("Cinder Hound") not in s.hand[1], \
        "the exiled Hound (cost 2) does not"


# ------------------------------------------------------------------ Victory Conditions and Tiebreakers
def test_reduce_your_opponents_castle_hp_to_0_to_win():
    s = make_state(attacking=([], ["Granite Colossus", "Cinder Hound"]), castles=(9, 10))
    end_turn(s)
    assert list(s.returns()) == [-1, 1] and s.end_reason == "castle destroyed"
    # the winner's own castle at 1 HP is still standing: a win by castle, not a tiebreaker between two fallen castles
    s = make_state(attacking=([], ["Granite Colossus", "Cinder Hound"]), castles=(9, 1))
    end_turn(s)
    assert s.castle == [0, 1] and list(s.returns()) == [-1, 1] and s.end_reason == "castle destroyed"
    s = make_state(attacking=(["Granite Colossus", "Cinder Hound"], []), castles=(1, 9))  # the same for player 0
    end_turn(s)
    assert s.castle == [1, 0] and list(s.returns()) == [1, -1] and s.end_reason == "castle destroyed"


def test_the_opponent_runs_out_of_cards_in_their_deck_before_you_do():
    s = make_state(decks=(["Pebble Mole", "Ember Imp", "Red Fox"], ["Gloom Bat"]))
    end_turn(s)
    assert list(s.returns()) == [1, -1]


def test_castles_tied_at_the_end_of_the_game_total_field_points_decide():
    s = make_state(attacking=(["Stone Tortoise"], ["Cinder Hound"]), defending=(["Tidepool Crab"], []),
                   castles=(3, 3))
    end_turn(s)  # both castles fall (4 - 1 = 3 and 4 - 0 = 4): castle HP tied at 0
    assert s.castle == [0, 0]
    assert list(s.returns()) == [1, -1], "player 0 has 5 field points against 4"
    s = make_state(decks=(["Pebble Mole"], ["Gloom Bat"]), attacking=(["Stone Tortoise"], ["Tidepool Crab"]),
                   defending=([], ["Stone Tortoise"]), castles=(6, 6))
    end_turn(s)  # both decks run out at once; castles 6 and 6; field points 4 against 5
    assert list(s.returns()) == [-1, 1]


def test_castles_not_tied_at_the_end_of_the_game_the_higher_castle_hp_wins_before_field_points():
    s = make_state(decks=(["Pebble Mole"], ["Gloom Bat"]), defending=([], ["Granite Colossus"]), castles=(8, 6))
    end_turn(s)  # both decks run out at once; castles 8 and 6; field points 0 against 9
    assert s.castle == [8, 6] and s.field_points(1) == 9
    assert list(s.returns()) == [1, -1] and "tiebreaker" in s.end_reason


def test_castles_and_total_field_points_tied_is_a_draw():
    s = make_state(attacking=(["Stone Tortoise"], ["Cinder Hound"]), castles=(4, 4))
    end_turn(s)
    assert s.castle == [0, 0] and list(s.returns()) == [0, 0]
    assert "draw" in s.end_reason
    # whatever ended the game: here both decks run out at once, castles 6 and 6, field points 1 and 1
    s = make_state(decks=(["Pebble Mole"], ["Gloom Bat"]), attacking=(["Tidepool Crab"], []),
                   defending=([], ["Ember Imp"]), castles=(6, 6))
    end_turn(s)
    assert s.castle == [6, 6] and s.field_points(0) == s.field_points(1) == 1
    assert s.is_terminal() and list(s.returns()) == [0, 0] and "draw" in s.end_reason


# ------------------------------------------------------------------ Glossary
def test_glossary_destroy_sends_a_card_from_the_field_to_the_graveyard():
    s = make_state(hands=(["Fireball", "Gloom Bat"], []), attacking=([], ["Red Fox"]))
    place(s, "Fireball", D, discards=["Gloom Bat"])
    end_turn(s)
    assert cid("Red Fox") in s.graveyard[1] and not s.field[1][A]


def test_glossary_discard_sends_a_card_from_your_hand_to_your_graveyard():
    s = make_state(hands=(["Sturdy Turtle", "Gloom Bat"], []))
    place(s, "Sturdy Turtle", D, discards=["Gloom Bat"])
    assert cid("Gloom Bat") not in s.hand[0] and cid("Gloom Bat") in s.graveyard[0]


def test_glossary_defending_lane_is_the_opponents_attacking_lane():
    # a skill in my defending lane hits "here": the opponent's attacking lane
    s = make_state(hands=(["Fireball", "Gloom Bat"], []), attacking=([], ["Red Fox"]), defending=([], ["Ember Imp"]))
    place(s, "Fireball", D, discards=["Gloom Bat"])
    end_turn(s)
    assert names(s.field[1][D]) == ["Ember Imp"] and not s.field[1][A]


def test_glossary_here_is_the_lane_in_which_the_card_was_played():
    s = make_state(hands=(["Fireball", "Gloom Bat"], []), attacking=([], ["Red Fox"]), defending=([], ["Ember Imp"]))
    place(s, "Fireball", A, discards=["Gloom Bat"])  # my attacking lane faces their defending lane
    end_turn(s)
    assert names(s.field[1][A]) == ["Red Fox"] and not s.field[1][D]
    # the same lane for every card text with "here", not only a skill's target: the Magma Salamander's
    # "-1 to enemy creatures here" from my defending lane, the Cranky Seagull's "destroy your weakest
    # creature here" in my attacking lane (the Lantern Moth, weaker, stands in the other lane)
    s = make_state(hands=(["Magma Salamander", "Cranky Seagull", "Gloom Bat", "Pebble Mole", "Ember Imp",
                           "Tidepool Crab", "Sand Piper"], []),
                   attacking=(["Burrowing Badger"], ["Red Fox"]), defending=(["Lantern Moth"], ["Sturdy Turtle"]))
    place(s, "Magma Salamander", D, discards=["Gloom Bat", "Pebble Mole"])
    place(s, "Cranky Seagull", A, discards=["Ember Imp", "Tidepool Crab", "Sand Piper"])
    end_turn(s)
    assert s.totals[1] == [2 - 1, 3], "the Red Fox in their attacking lane is lowered, the Sturdy Turtle not"
    assert names(s.field[0][A]) == ["Cranky Seagull"] and names(s.field[0][D]) == ["Lantern Moth", "Magma Salamander"]
    assert "Burrowing Badger" in names(s.graveyard[0])


def test_a_skill_that_draws_draws_from_its_owners_deck_for_the_second_seat_too():
    # the same Dark Pact as player_0's (test_draw_effect_draws_from_your_deck), placed by player_1: its cards
    # come off player_1's deck into player_1's hand, not seat 0's
    s = make_state(hands=([], ["Dark Pact", "Gloom Bat"]), first_placer=1)
    deck = [list(s.deck[0]), list(s.deck[1])]
    place(s, "Dark Pact", A, discards=["Gloom Bat"])
    end_turn(s)
    # its 3 cards, then the next turn's Draw Phase 2
    assert sorted(s.hand[1]) == sorted(deck[1][-5:]) and s.deck[1] == deck[1][:-5]
    assert s.hand[0] == deck[0][-2:][::-1] and s.deck[0] == deck[0][:-2], "player_0 drew only their Draw Phase's 2"


def test_a_skill_that_heals_or_damages_a_castle_aims_at_its_owners_or_the_opponents_castle_for_the_second_seat_too():
    # test_heal_castle and test_damage_castle (test_effects.py) with player_1 placing: the Bedrock Ward heals
    # player_1's castle, the Scorch burns player_0's
    s = make_state(hands=([], ["Bedrock Ward", "Gloom Bat"]), castles=(5, 5), first_placer=1)
    place(s, "Bedrock Ward", A, discards=["Gloom Bat"])
    end_turn(s)
    assert s.castle == [5, 8]
    s = make_state(hands=([], ["Scorch"]), first_placer=1)
    place(s, "Scorch", A)
    end_turn(s)
    assert s.castle == [9, 10]


def test_a_fifth_creature_of_player_1_destroys_one_of_player_1s_creatures_to_player_1s_graveyard():
    # the seat-1 side of test_a_fifth_creature_must_destroy_one_of_the_creatures_not_a_skill_placed_face_down_in_that_lane
    four = ["Tidepool Crab", "Pebble Mole", "Ember Imp", "Sand Piper"]
    s = make_state(hands=([], ["Lantern Moth"]), attacking=([], four), first_placer=1)
    place(s, "Lantern Moth", A)
    assert s.decision() == "destroy"
    act(s, "destroy", cid("Pebble Mole"))
    assert names(s.graveyard[1]) == ["Pebble Mole"] and s.graveyard[0] == []
    end_turn(s)
    assert sorted(names(s.field[1][A])) == sorted(["Tidepool Crab", "Ember Imp", "Sand Piper", "Lantern Moth"])
