"""The env face: documentation tables, observation contents and secrecy, stable action ids, text."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from saved_positions import refused_on_loading

from tabletop_envs.core import conformance
from tabletop_envs.core.errors import IllegalActionError
from tabletop_envs.travel_earth import env as env_module
from tabletop_envs.travel_earth.engine import TravelEarthGame

from .scenario import CAT, act, cid, ids, legal, scenario

SPEED, WEIGHT, OFFSPRING, DEVELOPMENT = 0, 1, 4, 5


def test_doc_tables_match_the_layouts():
    conformance.check_doc_page("travel_earth_v0")
    doc = env_module.__doc__
    for heading in ("## Actions", "## Observation", "## Action mask", "## Rewards", "## Version history"):
        assert heading in doc


def test_pettingzoo_make_and_shim():
    import pettingzoo

    import tabletop_envs
    from tabletop_envs import travel_earth_v0

    e = pettingzoo.make("aec", "tabletop_envs/travel_earth-v0")
    e.reset(seed=0)
    assert e.metadata["name"] == "travel_earth_v0" and travel_earth_v0.env().metadata["name"] == "travel_earth_v0"
    assert tabletop_envs.ENVS["travel_earth_v0"]


def test_observation_shows_what_the_issue_lists():
    s = scenario(p0=dict(hand=["Giraffe"], ready=["Lion"], reservoir=["Koala", "Emu"], discard=["Horse"]),
                 p1=dict(ready=["Tiger"], resting=["Cheetah"], reservoir=["Walrus"], unseen=["Springbok"],
                         discard=["Orca"], hand=["Blue whale"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_resting", "Cheetah")
    lay = s.game.observation_layout
    o0, o1 = s.observation(0), s.observation(1)

    def cards(obs, name):
        return {CAT.names[i] for i in np.flatnonzero(lay.view(obs, name))}

    assert cards(o0, "hand") == {"Giraffe"} and cards(o1, "hand") == {"Blue whale"}
    assert s.phase == "change"  # seat 1 may pay to change statistic
    assert cards(o0, "opp_ready") == {"Tiger"} and cards(o0, "opp_resting") == {"Cheetah"}
    assert cards(o1, "my_ready") == {"Tiger"} and cards(o1, "my_resting") == {"Cheetah"}
    assert cards(o0, "my_reservoir_known") == {"Koala", "Emu"}
    assert cards(o1, "my_reservoir_known") == {"Walrus"}  # its unseen Springbok is unseen to its owner too
    assert lay.view(o1, "my_reservoir")[3] == 1
    assert cards(o0, "my_discard") == {"Horse"} and cards(o0, "opp_discard") == {"Orca"}
    assert list(lay.view(o1, "opp_reservoir") * 7) == pytest.approx([2, 1, 1])
    assert list(lay.view(o0, "opp_reservoir") * 7) == pytest.approx([2, 2, 0])


def test_observation_shows_the_challenge_in_progress():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
    act(s, "declare", "Lion")
    act(s, "statistic", 4)  # Offspring: a tie
    act(s, "defend_ready", "Tiger")
    lay = s.game.observation_layout
    for seat in (0, 1):
        obs = s.observation(seat)
        assert np.flatnonzero(lay.view(obs, "challenger")).tolist() == [cid("Lion")]
        assert np.flatnonzero(lay.view(obs, "defender")).tolist() == [cid("Tiger")]
        assert lay.view(obs, "defender_row").tolist() == [1, 0]
        assert lay.view(obs, "statistic")[4] == 1 and lay.view(obs, "used_statistics").tolist() == [0, 0, 0, 0, 1, 0]
        assert lay.view(obs, "comparison").tolist() == [0, 1, 0]
        assert lay.view(obs, "phase")[3] == 1  # "statistic": the Challenger picks the next one
    assert lay.view(s.observation(0), "my_turn")[0] == 1 and lay.view(s.observation(1), "my_turn")[0] == 0


def test_resample_hidden_covers_hand_deck_order_and_face_down_reservoir():
    game = TravelEarthGame(first_player=0)
    s = game.new_initial_state(4)
    rng = np.random.default_rng(0)
    seen_unseen, seen_opp = set(), set()
    for _ in range(30):
        own = s.resample_hidden(1, rng)  # Player 2 cannot see its own starting card
        np.testing.assert_array_equal(own.observation(1), s.observation(1))
        seen_unseen.add(own.unseen[1][0])
        other = s.resample_hidden(0, rng)  # nor can the opponent
        np.testing.assert_array_equal(other.observation(0), s.observation(0))
        seen_opp.add((tuple(sorted(other.hand[1])), other.unseen[1][0]))
        assert other.hand[0] == s.hand[0] and own.hand[1] == s.hand[1]
    assert len(seen_unseen) > 1 and len(seen_opp) > 1


def test_resample_hidden_deals_the_opponents_deck_in_a_random_order_not_sorted():
    # a world dealing Player 2's hidden cards anew but laying their Deck out in card order would tell a search
    # which card they draw next (the highest id of the Deck)
    s = TravelEarthGame(first_player=0).new_initial_state(4)
    rng = np.random.default_rng(2)
    worlds = [s.resample_hidden(0, rng) for _ in range(20)]
    assert sum(world.deck[1] == sorted(world.deck[1]) for world in worlds) < 5


def test_resample_hidden_redeals_the_opponents_unseen_starting_reservoir_card():
    # Player 2's starting card lies face down, "without either player looking at it": Player 1's worlds deal it
    # anew (from Player 2's hidden cards), never keep the real one
    s = TravelEarthGame(first_player=0).new_initial_state(4)
    rng = np.random.default_rng(1)
    cards = set()
    for _ in range(30):
        world = s.resample_hidden(0, rng)
        np.testing.assert_array_equal(world.observation(0), s.observation(0))
        assert len(world.unseen[1]) == 1 and world.hand[1] != [] and len(world.hand[1]) == len(s.hand[1])
        cards.add(world.unseen[1][0])
    assert len(cards) > 1


def test_resample_hidden_redeals_the_opponents_face_down_reservoir_cards():
    # the leak tests compare observations across resampled worlds: a Reservoir left as dealt would
    # let an encoder that shows its cards pass them
    s = TravelEarthGame(first_player=0).new_initial_state(3)
    rng = np.random.default_rng(0)
    while not s.is_terminal() and len(s.reservoir[1]) < 3:
        legal = s.legal_actions()
        s.apply_action(legal[rng.integers(len(legal))])
    assert len(s.reservoir[1]) >= 3, "the opponent never filled a Reservoir of three"
    reservoirs = set()
    for _ in range(20):
        world = s.resample_hidden(0, rng)
        np.testing.assert_array_equal(world.observation(0), s.observation(0))
        assert len(world.reservoir[1]) == len(s.reservoir[1]) and world.empty[1] == s.empty[1]
        reservoirs.add(tuple(world.reservoir[1]))
    assert len(reservoirs) > 1


def test_resample_hidden_deals_the_opponents_hidden_cards_alike_likely_to_every_place_wherever_they_really_lie():
    # Seat 1 (Player 2) hides seven different cards: 2 in the Hand, 2 face down in the Reservoir, the unseen
    # starting card and a Deck of 2. Seat 0 sees only those sizes (reading 17) and seat 1's list (reading 21), so
    # every arrangement of the seven is alike likely: each card lies in the Hand in 2 of 7 worlds, in the
    # Reservoir in 2 of 7, and unseen, on top of the Deck or at its bottom in 1 of 7 each. Two positions
    # that differ only in where those cards really lie show seat 0 the same, and must give the same shares:
    # a world keeping the real Hand (share 1 for its cards), dealing the pile in its real order, or
    # shuffling each zone within itself would tell seat 0 where the cards lie. 2,000 worlds each: a share is
    # within 5 standard deviations (0.051 at 2 in 7, 0.039 at 1 in 7) of the exact one
    hidden = ["Tiger", "Giraffe", "Horse", "Hippopotamus", "Pronghorn", "Springbok", "Brown bear"]
    states = [scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                       p1=dict(hand=order[:2], reservoir=order[2:4], unseen=order[4:5], deck=order[5:]),
                       filler_to="discard")
              for order in (hidden, hidden[::-1])]
    assert states[0].hand[1] != states[1].hand[1] and states[0].game.decklists == states[1].game.decklists
    np.testing.assert_array_equal(states[0].observation(0), states[1].observation(0))
    exact = {"hand": 2 / 7, "reservoir": 2 / 7, "unseen": 1 / 7, "deck top": 1 / 7, "deck bottom": 1 / 7}
    n = 2000
    for s in states:
        rng = np.random.default_rng(0)
        places = {card: dict.fromkeys(exact, 0) for card in ids(hidden)}
        for _ in range(n):
            world = s.resample_hidden(0, rng)
            for place, cards in (("hand", world.hand[1]), ("reservoir", world.reservoir[1]), ("unseen", world.unseen[1]),
                                 ("deck top", world.deck[1][-1:]), ("deck bottom", world.deck[1][:1])):
                for card in cards:
                    places[card][place] += 1
        for card, counts in places.items():
            for place, share in exact.items():
                assert abs(counts[place] / n - share) < 5 * (share * (1 - share) / n) ** 0.5, (
                    CAT.names[card], place, counts[place] / n, share)


def test_no_leak_and_mask_equals_rules_for_the_casual_format():
    conformance.check_no_leak("travel_earth_v0", {"deck_format": "casual"}, num_states=20)
    conformance.check_mask_equals_rules("travel_earth_v0", {"deck_format": "casual"}, num_states=8)


def test_action_ids_are_stable_by_catalogue_card_not_hand_position():
    game = TravelEarthGame()
    lay = game.action_layout
    assert lay.label(lay.id("play", cid("Lion"))) == "play Lion TE-003"
    assert lay.label(lay.id("defend_resting", cid("TE-070"))) == "defend with Resting Cheetah TE-070"
    a = scenario(p0=dict(hand=["Lion", "Tiger"]), phase="play")
    b = scenario(p0=dict(hand=["Tiger", "Lion"]), phase="play")
    np.testing.assert_array_equal(a.legal_action_mask(), b.legal_action_mask())
    np.testing.assert_array_equal(a.observation(0), b.observation(0))


def test_illegal_action_error_names_the_action_and_the_legal_ones():
    s = scenario(p0=dict(hand=["Lion"]), phase="play")
    with pytest.raises(IllegalActionError, match=r"play Tiger TE-004.*while deciding 'play'.*play Lion TE-003"):
        act(s, "play", "Tiger")


def test_render_text_names_animals_with_numbers_rows_and_reservoir():
    s = scenario(p0=dict(hand=["Giraffe"], ready=["Lion"], resting=["Horse"], reservoir=["Koala"]),
                 p1=dict(ready=["Tiger"], unseen=["Emu"], hand=["Orca"]), first=0)
    text = s.render_text(player=0)
    assert "Ready Row:   Lion TE-003" in text and "Resting Row: Horse TE-010" in text
    assert "Reservoir 1/6 (1 Full, 0 Empty): Koala TE-020" in text
    assert "Giraffe TE-006" in text and "Orca" not in text and "Emu" not in text  # the opponent's secrets
    assert "(unseen card)" not in text
    assert "Orca TE-028" in s.render_text(player=1) and "Emu" not in s.render_text(player=1)
    assert "[unseen = Emu TE-049]" in s.render_text()  # the god's view names it
    e = env_module.env(render_mode="ansi")
    e.reset(seed=0)
    assert "Travel Earth TCG" in e.render()


def test_render_text_tells_each_seat_both_deck_and_hand_sizes():
    # the sizes are public (the observation has them): a seat reading the text sees the opponent's too
    s = scenario(p0=dict(hand=["Giraffe", "Lion"], deck=["Horse"]),
                 p1=dict(hand=["Orca"], deck=["Tiger", "Emu", "Koala"]), first=0, filler_to="discard")
    for seat in (0, 1, None):
        lines = s.render_text(player=seat).splitlines()
        assert any(x.startswith("Player 1 (seat 0") and "Deck 1, Hand 2" in x for x in lines)
        assert any(x.startswith("Player 2 (seat 1") and "Deck 3, Hand 1" in x for x in lines)


def test_render_text_calls_the_seat_that_went_first_player_1_whichever_seat_it_is():
    # the rules' "Player 1" is who went first: with seat 1 first, seat 0 is Player 2
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Tiger"]), player=1, first=1)
    for seat, you0, you1 in ((None, "", ""), (0, ", you", ""), (1, "", ", you")):
        lines = s.render_text(seat).splitlines()
        assert lines[0].startswith(f"Travel Earth TCG - turn 1: Player 1 (seat 1{you1})'s turn")
        assert any(x.startswith(f"Player 1 (seat 1{you1}): Deck ") for x in lines)
        assert any(x.startswith(f"Player 2 (seat 0{you0}): Deck ") for x in lines)


def test_render_text_names_each_animals_printed_ability_and_gives_its_text():
    # a human defending against a Lion on Weight must read that Tiny makes the mouse win it
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(ready=["House mouse", "Peregrine falcon"], hand=["Nile crocodile"]))
    act(s, "declare", "Lion")
    act(s, "statistic", 1)
    text = s.render_text(player=1)
    assert "House mouse TE-024 (Tiny) [" in text and "Peregrine falcon TE-038 (Stoop) [" in text
    assert "Nile crocodile TE-058 (Patient Hunter) [" in text  # my own hand too
    assert "unless an ability says otherwise" in text.splitlines()[1]
    legend = text.splitlines()[-3:]  # in the order the table shows them
    assert legend == ["  Patient Hunter: You may declare this Animal as a Challenger without a Full Reservoir card; "
                      "its challenge empties none.",
                      "  Tiny: In any comparison of Weight that involves this Animal, the lower Weight wins.",
                      "  Stoop: When this Animal challenges, the defending player must choose a Ready Animal as "
                      "the Defender if they have one."]
    assert "Patient Hunter" not in s.render_text(player=0)  # not the opponent's hand's
    assert "Reservoir 0/6 (0 Full, 0 Empty)\n" in text  # an empty Reservoir lists nothing after it


def test_render_text_gives_each_reservoirs_capacity_which_blubber_store_raises():
    # a full Reservoir refuses an addition: a human must see the limit, Blubber Store's extra card included
    s = scenario(p0=dict(ready=["Bowhead whale"], reservoir=["Koala"]), p1=dict(ready=["Lion"]))
    lines = s.render_text(player=1).splitlines()
    assert [x.split(" (")[0].strip() for x in lines if x.strip().startswith("Reservoir")] == \
        ["Reservoir 1/7", "Reservoir 0/6"]


class _FirstTurnAmbush:
    """Adds a card, plays an Ambush animal, challenges at once on Top Speed."""

    lay = TravelEarthGame().action_layout

    def act(self, observation, action_mask, rng):
        lay = self.lay
        ambush = {cid("Leopard"), cid("TE-070")}
        for segment, pick in (("add_to_reservoir", lambda c: c not in ambush), ("play", lambda c: c in ambush),
                              ("declare", lambda c: True)):
            for c in np.flatnonzero(action_mask[lay.range(segment).start: lay.range(segment).stop]):
                if pick(int(c)):
                    return lay.id(segment, int(c))
        if action_mask[lay.id("statistic", 0)]:
            return lay.id("statistic", 0)
        return int(np.flatnonzero(action_mask)[0])


def test_single_agent_reset_never_returns_a_game_the_learner_lost_before_acting():
    from tabletop_envs.core.single_agent import SingleAgentEnv

    fast = {"TE-005": 4, "TE-070": 4, "TE-038": 4, "TE-039": 4, "TE-011": 4}
    slow = {"TE-069": 4, "TE-021": 4, "TE-054": 4, "TE-055": 4, "TE-036": 4}
    single = SingleAgentEnv("travel_earth_v0", opponent=_FirstTurnAmbush(), learner_seat=1, deck_format="casual",
                            decks=[fast, slow], first_player=0)
    deals = []
    original = single.aec.reset
    single.aec.reset = lambda **kw: (deals.append(1), original(**kw))[1]
    for seed in range(10):
        single.reset(seed=seed)
        assert single.game_state.current_player() == single.learner_seat and not single.game_state.is_terminal()
        assert single.action_masks().sum() < single.game.num_actions  # a real decision
    assert len(deals) > 10  # some deals ended on Player 1's first turn and were replaced


def test_render_text_shows_the_compared_printed_values():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Tiger")
    # the Challenger's values too: it has left the Ready Row (found by a user audit)
    assert "Challenge: Lion TE-003 [80 175 1.835 28 3 109] on Weight (used: Weight) vs Ready Tiger TE-004: 175 " \
           "against 119.7 kg" in \
        s.render_text(player=1)


def test_render_text_records_the_defenders_choice_change_and_payment_once_the_challenge_is_over():
    """A human whose challenge the bot answered saw only the next position: the record says which
    Defender, the defensive change and the card that paid for it (face up in the Discard Pile by then)."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(ready=["Tiger"], reservoir=["Giraffe", "Horse"], hand=["Emu"]))
    for segment, index in [("declare", "Lion"), ("statistic", WEIGHT), ("defend_ready", "Tiger"),
                           ("change_statistic", DEVELOPMENT)]:
        act(s, segment, index)
    paying = s.render_text(player=0)
    assert "defensive change to Development Time: 109 against 105 days, the Defender wins\n" in paying
    assert "Giraffe" not in paying and "Horse" not in paying  # which face-down card pays is not told yet
    act(s, "pay_reservoir", "Giraffe")
    assert s.player == 1 and s.phase == "add"  # the challenge is over and the turn has passed
    record = ["Challenges of turn 1, Player 1 (seat 0{you}) challenging:",
              "  Lion TE-003 on Weight vs Ready Tiger TE-004: 175 against 119.7 kg, the Challenger wins; defensive "
              "change to Development Time: 109 against 105 days, the Defender wins (paid with Giraffe TE-006 from "
              "the Reservoir); Lion TE-003 discarded"]
    for seat, you in ((0, ", you"), (1, "")):
        lines = s.render_text(player=seat).splitlines()
        heading = record[0].format(you=you)
        assert lines[lines.index(heading):][:2] == [heading, record[1]], f"seat {seat}"


def _drawn_words(monkeypatch, state, seat) -> str:
    """Every text the picture of ``seat``'s view draws, joined by spaces (wrapped lines join up again)."""
    from tabletop_envs.core.render import Canvas
    from tabletop_envs.travel_earth.render import draw_table

    drawn = []
    text = Canvas.text
    monkeypatch.setattr(Canvas, "text", lambda canvas, x, y, words, *a, **k: (drawn.append(words),
                                                                              text(canvas, x, y, words, *a, **k))[1])
    draw_table(state, seat)
    monkeypatch.setattr(Canvas, "text", text)
    return " ".join(" ".join(drawn).split())


def test_the_pictures_challenge_strip_shows_the_last_challenge_between_challenges_and_the_one_before_during_one(
        monkeypatch):
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(ready=["Horse"]))
    for segment, index in [("declare", "Lion"), ("declare", "Tiger"), ("statistic", WEIGHT),
                           ("defend_ready", "Horse")]:  # the Horse outweighs the Lion
        act(s, segment, index)
    act(s, "statistic", WEIGHT)  # the Tiger's challenge: seat 1 is to choose its Defender
    words = _drawn_words(monkeypatch, s, 1)
    assert "the defending player chooses a Defender" in words
    assert "before: Lion TE-003 on Weight vs Ready Horse TE-010: 175 against 300 kg, the Defender wins; Lion " \
           "TE-003 discarded" in words
    act(s, "defend_ready", "Horse")
    assert s.challenger < 0 and s.player == 1  # both challenges over, the turn has passed
    words = _drawn_words(monkeypatch, s, 0)
    assert "No challenge in progress" not in words
    assert "Last challenge · turn 1, seat 0 challenging Tiger TE-004 on Weight vs Ready Horse TE-010: 119.7 " \
           "against 300 kg, the Defender wins; Tiger TE-004 discarded" in words


def test_render_text_records_each_last_resort_reveal_and_what_became_of_it():
    s = scenario(p0=dict(ready=["Bowhead whale"], reservoir=["Koala"]),
                 p1=dict(reservoir=["House mouse", "Lion"], hand=["Emu"]))
    act(s, "declare", "Bowhead whale")
    act(s, "statistic", WEIGHT)
    assert "  Bowhead whale TE-032 on Weight; no Animal defends, Last Resort: reveals Lion TE-003: 100000 against " \
           "175 kg, the Challenger wins, discarded; reveals House mouse TE-024: 100000 against 0.0205 kg, the " \
           "Defender wins, back face down into the Reservoir; Bowhead whale TE-032 discarded" \
           in s.render_text(player=0).splitlines()


def test_at_game_over_text_and_picture_show_how_the_last_challenge_ended_not_a_defender_to_choose(monkeypatch):
    s = scenario(p0=dict(ready=["Bowhead whale", "Lion"], reservoir=["Koala", "Emu"]), p1=dict(reservoir=["Tiger"]))
    act(s, "declare", "Bowhead whale")
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    assert s.winner == 0 and s.challenger == cid("Bowhead whale")  # Last Resort did not stop it
    last = ("  Bowhead whale TE-032 on Weight; no Animal defends, Last Resort: reveals Tiger TE-004: 100000 against "
            "119.7 kg, the Challenger wins, discarded; the Reservoir is exhausted: the Challenger was not stopped")
    for seat in (0, 1):
        lines = s.render_text(player=seat).splitlines()
        assert lines[-2:] == [last, "Game over: seat 0 wins"]
        assert not any(line.startswith(("Challenge:", "Declared, waiting")) for line in lines)
    words = _drawn_words(monkeypatch, s, 1)
    assert "Last challenge · turn 1, seat 0 challenging" in words
    assert "the Reservoir is exhausted: the Challenger was not stopped" in words
    assert "chooses a Defender" not in words and "waiting" not in words


def test_the_challenge_strip_drops_a_long_texts_first_words_until_its_end_fits_with_the_ellipsis_before_it():
    # words as wide as the strip: the "…" put before the last lines pushes each word a line down, so
    # dropping the lines above them leaves a line too many; the end, how the challenge finished, stays
    from tabletop_envs.core.render import Canvas
    from tabletop_envs.travel_earth.render import _tail

    canvas = Canvas(10, 10)
    k = 1
    while canvas.text_width("a" * (k + 1) + "0", 13) <= 400:
        k += 1
    words = [f"{'a' * k}{i}" for i in range(5)]
    assert _tail(canvas, " ".join(words), 400, 13, 2) == ["…", words[4]]
    assert _tail(canvas, " ".join(words), 400, 13, 3) == ["…", words[3], words[4]]


def test_the_challenge_record_keeps_this_and_the_previous_challenge_phase_and_only_grows_within_them():
    game = TravelEarthGame()
    phases = 0
    for seed in range(4):
        s = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            before = s.challenge_texts()
            s.apply_action(int(rng.choice(s.legal_actions())))
            log = s.challenge_texts()
            turns = sorted({turn for turn, _, _ in log})
            assert len(turns) <= 2 and [turn for turn, _, _ in log] == sorted(turn for turn, _, _ in log)
            for turn, seat, text in log:
                assert seat == (s.first if turn % 2 == 0 else 1 - s.first)  # whose turn it was
                assert text.split(" on ")[0] in {CAT.label(c) for c in game.decklists[seat]}
            kept = [entry for entry in before if entry[0] in turns]  # what survives of the record
            assert log[:len(kept) - 1] == kept[:-1] or not kept
            if kept:
                assert log[len(kept) - 1][2].startswith(kept[-1][2])  # the last one may have grown
            phases += bool(before) and before[-1][0] != log[-1][0]
    assert phases > 40


def test_a_state_saved_before_the_challenge_record_loads_and_records_from_its_next_challenge():
    game = TravelEarthGame()
    s = game.new_initial_state(3)
    rng = np.random.default_rng(3)
    while s.phase != "defender":
        s.apply_action(int(rng.choice(s.legal_actions())))
    old = json.loads(json.dumps(s.to_dict()))
    del old["state"]["recent_challenges"]  # as this version's predecessor wrote it
    loaded = game.state_from_dict(old)
    assert loaded.to_dict() == old and "Challenges of turn" not in loaded.render_text(player=0)
    while not loaded.is_terminal():  # the challenge under way goes unrecorded, the next ones are
        loaded.apply_action(int(rng.choice(loaded.legal_actions())))
        loaded.check_invariants()
    assert loaded.recent_challenges and type(loaded).recent_challenges == ()
    assert game.state_from_dict(json.loads(json.dumps(loaded.to_dict()))) == loaded


# ------------------------------------------------------------------ saved challenges the rules never reach
# Each edit below loaded before and then failed in play (a ValueError, a negative shift count, more Empty
# cards than the Reservoir holds), found by an audit that fuzzed single edits of saved states.
def tied_on_offspring():
    """Lion challenges the Ready Tiger on Offspring, a tie: the Challenger picks the next statistic."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], resting=["Cheetah"]))
    act(s, "declare", "Lion")
    act(s, "statistic", OFFSPRING)
    act(s, "defend_ready", "Tiger")
    assert s.phase == "statistic" and s.defender == cid("Tiger")
    return s


def paying_for_a_change():
    """The Ready Tiger loses to Lion on Weight; its owner changes to Development and must say which card pays."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu", "Walrus"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Tiger")
    act(s, "change_statistic", DEVELOPMENT)
    assert s.phase == "pay"
    return s


def test_a_saved_challenge_whose_defender_is_not_on_the_field_in_its_row_is_refused_in_every_phase():
    s = tied_on_offspring()
    # the row flipped: the next statistic's result removed the Tiger from the Resting Row (a ValueError)
    refused_on_loading(s, lambda st: st.update(defender_row=1), "the Defender must be on the field")
    refused_on_loading(s, lambda st: st.update(defender=cid("Cheetah")), "the Defender must be on the field")
    refused_on_loading(s, lambda st: st.update(defender_row=-1), "a Defender's row -1")
    # without its Defender, the next statistic asked for one again: "the Defender must be on the field"
    refused_on_loading(s, lambda st: st.update(defender=-1, defender_row=-1),
                       "before a Defender is chosen, in the statistic phase")
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    assert s.phase == "defender"
    refused_on_loading(s, lambda st: st.update(defender=cid("Tiger"), defender_row=0),
                       "a Defender chosen, in the defender phase")
    # asked for a Defender before any statistic: it loaded, and the Defender was compared on statistic -1
    # (Python's last, Development)
    refused_on_loading(s, lambda st: st.update(stat=-1, used=0), "no statistic chosen, in the defender phase")


def test_a_saved_challenge_whose_statistics_do_not_lead_to_its_phase_is_refused():
    s = tied_on_offspring()
    # a Challenger's win or loss ends the challenge: no next statistic is chosen after it
    refused_on_loading(s, lambda st: st.update(stat=WEIGHT, used=1 << WEIGHT),
                       "the next statistic chosen though the last one decided the challenge")
    refused_on_loading(s, lambda st: st.update(used=1 << SPEED), f"statistic {OFFSPRING} with the statistics used 1")
    s = paying_for_a_change()
    refused_on_loading(s, lambda st: st.update(stat=DEVELOPMENT, used=1 << DEVELOPMENT),
                       "the pay phase though the Defender did not lose the statistic compared")


def test_a_saved_defensive_change_statistic_is_refused_outside_its_payment_and_where_no_change_is_open():
    s = paying_for_a_change()
    # a negative statistic in the pay phase: "negative shift count" as it was paid for
    refused_on_loading(s, lambda st: st.update(change_stat=-1), "the statistic of a defensive change -1 in the pay phase")
    refused_on_loading(s, lambda st: st.update(change_stat=WEIGHT), f"paying for a change to statistic {WEIGHT}, not open")
    refused_on_loading(s, lambda st: st.update(changed=True), "a defensive change made, in a challenge still going on")
    s = tied_on_offspring()
    refused_on_loading(s, lambda st: st.update(change_stat=DEVELOPMENT),
                       f"the statistic of a defensive change {DEVELOPMENT} in the statistic phase")


def test_a_saved_reservoir_too_small_for_its_empty_cards_and_the_challengers_declared_is_refused():
    s = scenario(p0=dict(ready=["Lion", "Tiger", "Cheetah"], reservoir=["Koala", "Emu", "Walrus"]),
                 p1=dict(ready=["Sea otter"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    assert s.phase == "declare" and s.full(0) == 3
    # a Reservoir card declared as a Challenger: two to pay from two cards, then "3 Empty of 2 Reservoir cards"
    refused_on_loading(s, lambda st: st["queue"].append(st["reservoir"][0].pop()),
                       "seat 0: 0 Empty Reservoir cards and 3 declared Challengers to pay with 2 Reservoir cards")
    act(s, "lock_challengers")
    assert s.phase == "statistic" and s.empty[0] == 1 and s.queue == ids(["Tiger"])
    refused_on_loading(s, lambda st: st["empty"].__setitem__(0, 3),
                       "seat 0: 3 Empty Reservoir cards and 1 declared Challengers to pay with 3 Reservoir cards")
    # the Challenger resolving has turned its Full card Empty
    refused_on_loading(s, lambda st: st["empty"].__setitem__(0, 0), "the Challenger resolving without an Empty")


def test_a_game_drawn_by_stalemate_saves_and_loads_back_with_its_full_count_of_quiet_turns():
    s = scenario(p0=dict(ready=["Lion"], hand=["Emu"]), p1=dict(ready=["Tiger"], hand=["Koala"]),
                 filler_to="discard", stalemate_turns=2, phase="add")
    for _ in range(2):
        act(s, "skip_reservoir")
        act(s, "end_play")
    assert s.drawn_game and s.quiet == 2
    data = json.loads(json.dumps(s.to_dict()))
    assert s.game.state_from_dict(data) == s


def test_a_saved_unseen_reservoir_card_of_player_1_is_refused():
    # only Player 2 places "the top card of their Deck face down into their Reservoir, without either player
    # looking at it"
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Tiger"], unseen=["Koala"]))
    refused_on_loading(s, lambda st: st["unseen"][0].append(st["deck"][0].pop()), "only Player 2 has an unseen card")


def test_a_saved_reservoir_of_more_cards_than_blubber_store_allows_is_refused():
    # "Your Reservoir can contain at most 6 cards total"; Blubber Store: "your Reservoir can hold 7 cards"
    s = scenario(p0=dict(ready=["Lion", "Bowhead whale"], reservoir=["Koala"] * 4 + ["Emu"] * 3),
                 p1=dict(ready=["Tiger"]))
    assert s.reservoir_size(0) == 7
    refused_on_loading(s, lambda st: st["reservoir"][0].append(st["deck"][0].pop()), "seat 0: Reservoir holds 8 cards")


def test_a_saved_change_phase_after_a_ready_defenders_tie_is_refused():
    # a Ready Defender's tie moves on to another statistic: the defending player is never asked for a change
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert s.phase == "change"
    refused_on_loading(s, lambda st: st.update(stat=OFFSPRING, used=1 << OFFSPRING),
                       "the change phase though the Defender did not lose the statistic compared")


def test_a_saved_payment_question_with_a_single_reservoir_card_is_refused():
    # a single Reservoir card pays for the change at once: nobody is asked which card pays
    s = paying_for_a_change()
    refused_on_loading(s, lambda st: st["deck"][1].append(st["reservoir"][1].pop()),
                       "seat 1 asked which Reservoir card pays, though it pays at once")


def test_a_saved_reservoir_of_the_waiting_player_with_more_empty_cards_than_cards_is_refused():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]),
                 empty=(0, 1))
    refused_on_loading(s, lambda st: st["empty"].__setitem__(1, 2), "seat 1: 2 Empty of 1 Reservoir cards")


def test_a_saved_challenge_outside_the_challenge_phase_is_refused():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Emu"]), p1=dict(ready=["Sea otter"]))
    act(s, "declare", "Lion")
    assert s.phase == "declare"
    refused_on_loading(s, lambda st: st.update(challenger=st["ready"][0].pop()), "a challenge under way in the declare phase")
    refused_on_loading(s, lambda st: st.update(phase="play"), "declared Challengers in the play phase")


def test_rules_md_names_only_existing_tests():
    import re
    from pathlib import Path

    import tabletop_envs.travel_earth as pkg

    text = (Path(pkg.__file__).parent / "RULES.md").read_text(encoding="utf-8")
    defined = {m for f in Path(__file__).parent.glob("test_*.py")
               for m in re.findall(r"^def (test_\w+)", f.read_text(encoding="utf-8"), re.M)}
    named = set(re.findall(r"`(test_\w+)`", text))
    prefixes = set(re.findall(r"`(test_\w+)\*`", text))  # `test_last_resort_*`: at least one such test
    assert named and named <= defined, f"RULES.md names missing tests: {sorted(named - defined)}"
    assert all(any(d.startswith(p) for d in defined) for p in prefixes), sorted(prefixes)


def test_each_player_sees_the_challenge_and_both_sides_sizes_from_their_own_side():
    """What both players may see during a challenge: the declared group still waiting, who wins the
    statistic compared now, the statistic the defending player is paying to change to, both Hand and
    Deck sizes (yours, the opponent's) and who went first. Values differ between the seats, so a
    segment showing one seat's count twice, or the wrong side of a comparison, fails."""
    s = scenario(p0=dict(ready=["Lion", "Giraffe"], reservoir=["Koala", "Emu"]),
                 p1=dict(ready=["Tiger"], reservoir=["Giraffe", "Horse"], hand=["Blue whale", "Horse"]))
    lay = s.game.observation_layout

    def seg(seat, name, scale=1.0):
        return (lay.view(s.observation(seat), name) * scale).tolist()

    def cards(seat, name):
        return [CAT.names[i] for i in np.flatnonzero(lay.view(s.observation(seat), name))]

    assert (len(s.deck[0]), len(s.deck[1]), s.game.deck_sizes) == (16, 15, [20, 20])
    assert seg(0, "hand_sizes", 20) == pytest.approx([0, 2]) and seg(1, "hand_sizes", 20) == pytest.approx([2, 0])
    assert seg(0, "deck_sizes", 20) == pytest.approx([16, 15]) and seg(1, "deck_sizes", 20) == pytest.approx([15, 16])
    assert seg(0, "i_went_first") == [1] and seg(1, "i_went_first") == [0]
    act(s, "declare", "Lion")
    for seat in (0, 1):
        assert cards(seat, "declared") == ["Lion"] and "Lion" not in cards(seat, "my_ready" if seat == 0 else "opp_ready")
    act(s, "declare", "Giraffe")  # no Ready Animal left: the group locks, the Lion resolves first
    assert s.phase == "statistic"
    for seat in (0, 1):
        assert cards(seat, "declared") == ["Giraffe"] and cards(seat, "challenger") == ["Lion"]
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Tiger")
    assert s.phase == "change"  # the Lion wins on Weight; the Tiger would win on Development Time
    for seat in (0, 1):
        assert cards(seat, "declared") == ["Giraffe"]
        assert seg(seat, "comparison") == [1, 0, 0], "the Challenger wins the statistic compared now"
        assert not any(seg(seat, "change_target"))
    act(s, "change_statistic", 5)  # Development Time
    assert s.phase == "pay"
    for seat in (0, 1):
        assert seg(seat, "change_target") == [0, 0, 0, 0, 0, 1]


def test_each_player_sees_deck_and_hand_sizes_over_each_decks_own_size_when_the_decks_differ():
    """"Deck cards left / deck size" and "Hand cards / deck size", own then opponent's: each side over
    its own deck's size, so decks of 20 and 24 cards give different fractions for the same count."""
    big = ["Lion", "Tiger", "Giraffe", "Horse", "Cheetah", "Orca"] * 4  # 24 cards: no filler
    s = scenario(p0=dict(hand=["Lion", "Tiger"]), p1=dict(deck=big[2:], hand=big[:2]))
    assert s.game.deck_sizes == [20, 24]
    assert (len(s.deck[0]), len(s.hand[0]), len(s.deck[1]), len(s.hand[1])) == (18, 2, 22, 2)
    lay = s.game.observation_layout

    def seg(seat, name):
        return lay.view(s.observation(seat), name).tolist()

    assert seg(0, "deck_sizes") == pytest.approx([18 / 20, 22 / 24])
    assert seg(1, "deck_sizes") == pytest.approx([22 / 24, 18 / 20])
    assert seg(0, "hand_sizes") == pytest.approx([2 / 20, 2 / 24])
    assert seg(1, "hand_sizes") == pytest.approx([2 / 24, 2 / 20])


def test_observation_shows_a_challenge_between_the_first_catalogue_cards_on_the_first_statistic():
    # catalogue id 0 and statistic 0 are real values, not "none": both players see them
    first = CAT.names[0]
    s = scenario(p0=dict(ready=[first], reservoir=["Koala"]), p1=dict(ready=[first]))
    act(s, "declare", first)
    act(s, "statistic", 0)
    act(s, "defend_ready", first)
    assert s.phase == "statistic", "a tie: the Challenger picks the next statistic"
    lay = s.game.observation_layout
    for seat in (0, 1):
        obs = s.observation(seat)
        assert np.flatnonzero(lay.view(obs, "challenger")).tolist() == [0]
        assert np.flatnonzero(lay.view(obs, "defender")).tolist() == [0]
        assert lay.view(obs, "defender_row").tolist() == [1, 0]
        assert np.flatnonzero(lay.view(obs, "statistic")).tolist() == [0]
        assert lay.view(obs, "used_statistics").tolist() == [1, 0, 0, 0, 0, 0]
        assert lay.view(obs, "comparison").tolist() == [0, 1, 0]


def test_observation_turn_is_the_turns_played_over_the_turn_limit_capped_at_1():
    game = TravelEarthGame()
    s = game.new_initial_state(0)
    lay = game.observation_layout
    rng = np.random.default_rng(0)
    seen = set()
    while s.turns < 3:
        for seat in (0, 1):
            assert lay.view(s.observation(seat), "turn").tolist() == pytest.approx([s.turns / game.default_max_turns])
        seen.add(s.turns)
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert seen == {0, 1, 2}
    s.turns = game.default_max_turns + 1  # past the limit: a state built so, play ends the game there
    assert lay.view(s.observation(0), "turn").tolist() == [1]


def test_change_made_and_the_defender_wins_column_are_always_zero_when_observed_as_documented():
    # A defensive change and a Defender win each end the challenge before anyone decides again, so the
    # two columns can never be 1 in an observation; they stay for a stable v0 layout, documented so.
    game = TravelEarthGame()
    layout = game.observation_layout
    change = layout.segments["change_made"].start
    defender_wins = layout.segments["comparison"].start + 2
    rng = np.random.default_rng(3)
    seen_challenge = 0
    for seed in range(150):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            p = state.current_player()
            obs = state.observation(p)
            assert obs[change] == 0 and obs[defender_wins] == 0
            seen_challenge += obs[layout.segments["comparison"].start] > 0
            state.apply_action(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    assert seen_challenge > 0, "the comparison column is live: a Challenger win was observed"


CHALLENGE_SEGMENTS = ("challenger", "defender", "defender_row", "statistic", "used_statistics", "change_made",
                      "change_target", "comparison")


def test_no_challenge_column_is_set_before_a_challenger_resolves_and_none_but_the_challenger_before_a_statistic():
    """Outside a challenge every challenge segment is zero for both seats; once a Challenger resolves and
    before it chooses a statistic, only ``challenger`` shows it (no statistic, Defender, row or comparison)."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"]))
    lay = s.game.observation_layout
    for seat in (0, 1):
        obs = s.observation(seat)
        assert {name: lay.view(obs, name).tolist() for name in CHALLENGE_SEGMENTS if lay.view(obs, name).any()} == {}
        assert np.flatnonzero(lay.view(obs, "phase")).tolist() == [2]  # "declare"
    act(s, "declare", "Lion")  # the only Ready Animal: the group locks and the Lion resolves
    assert s.phase == "statistic" and s.challenger == cid("Lion")
    for seat in (0, 1):
        obs = s.observation(seat)
        shown = {name: np.flatnonzero(lay.view(obs, name)).tolist() for name in CHALLENGE_SEGMENTS
                 if lay.view(obs, name).any()}
        assert shown == {"challenger": [cid("Lion")]}


def test_a_resting_defender_shows_the_resting_column_of_defender_row_and_only_its_own_card():
    """"the Defender's row: Ready, Resting": a Resting Defender sets the second column, and the
    ``defender`` one-hot holds its card alone."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], resting=["Cheetah"], reservoir=["Giraffe"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_resting", "Cheetah")
    assert s.phase == "change"  # the Lion outweighs the Cheetah; a change to Top Speed would win
    lay = s.game.observation_layout
    for seat in (0, 1):
        obs = s.observation(seat)
        assert lay.view(obs, "defender_row").tolist() == [0, 1]
        assert np.flatnonzero(lay.view(obs, "defender")).tolist() == [cid("Cheetah")]
        assert lay.view(obs, "comparison").tolist() == [1, 0, 0]


def test_a_defensive_change_to_the_first_statistic_shows_it_as_the_change_target():
    """Statistic 0 (Top Speed) is a real change target, not "no change": while the defending player
    pays for it, both seats see ``change_target`` on it, and the compared statistic is still Weight."""
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(ready=["Cheetah"], reservoir=["Giraffe", "Horse"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Cheetah")
    assert s.phase == "change" and 0 in legal(s, "change_statistic")  # the Cheetah is faster
    act(s, "change_statistic", 0)
    assert s.phase == "pay"  # two Reservoir cards: seat 1 chooses which one pays
    lay = s.game.observation_layout
    for seat in (0, 1):
        obs = s.observation(seat)
        assert lay.view(obs, "change_target").tolist() == [1, 0, 0, 0, 0, 0]
        assert lay.view(obs, "statistic").tolist() == [0, 1, 0, 0, 0, 0]


def test_a_deep_copy_or_pickle_of_the_env_rebuilds_the_game_from_its_options_and_shares_the_catalogue():
    # the catalogue was copied with every deep copy (10 ms for a search that copies envs)
    import pickle

    e = env_module.env(decks=["starter", "deep_sea"], deck_format="casual", stalemate_turns=7)
    e.reset(seed=3)
    for other in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert other.game is not e.game and other.game.catalogue is e.game.catalogue
        assert other.game.config() == e.game.config() and other.game.decklists == e.game.decklists
        for _ in range(30):
            if not e.agents:
                break
            action = int(np.flatnonzero(e.infos[e.agent_selection]["action_mask"])[0])
            e.step(action)
            other.step(action)
            assert e.state_dict() == other.state_dict()
        e.reset(seed=3)


def test_envs_share_the_catalogues_outcome_tables_instead_of_each_holding_a_copy():
    # built per game, the nested lists were 570 kB of every env (a vec env of 64 held 36 MB of one table)
    import pickle
    import tracemalloc

    first = env_module.env()
    others = [env_module.env(decks=["starter", "deep_sea"], deck_format="casual"), copy.deepcopy(first),
              pickle.loads(pickle.dumps(first))]
    assert [(o.game.outcomes is first.game.outcomes, o.game.outcome_table is first.game.outcome_table)
            for o in others] == [(True, True)] * len(others)
    assert not first.game.outcome_table.flags.writeable  # shared: a write would change every game's rules
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        more = [env_module.env() for _ in range(5)]
        per_env = (tracemalloc.get_traced_memory()[0] - before) / len(more)
    finally:
        tracemalloc.stop()
    assert per_env < 300_000, f"{per_env:.0f} bytes per env"  # 120 kB here; 740 kB with a table each


def test_render_text_counts_the_cards_added_to_the_reservoir_this_turn():
    # the observation's reservoir_adds (at most 2 a turn): a human had to infer it from the legal moves
    rng = np.random.default_rng(0)
    seen = 0
    for seed in range(10):
        s = TravelEarthGame().new_initial_state(seed)
        for _ in range(200):
            if s.is_terminal():
                break
            for player in (0, 1, None):
                text = s.render_text(player)
                # on the Reservoir line of the seat whose turn it is, not on the other seat's
                assert text.count(" added this turn") == (s.adds > 0)
                assert (f", {s.adds} added this turn)" in text) == (s.adds > 0)
                lines = text.splitlines()
                for i in (i for i, line in enumerate(lines) if " added this turn" in line):
                    seat = next(line for line in reversed(lines[:i]) if line.startswith("Player "))
                    assert f"(seat {s.player}" in seat, (player, seat, lines[i])
            seen += s.adds > 0
            s.apply_action(int(rng.choice(s.legal_actions())))
    assert seen > 10


def test_a_stalemated_games_text_view_and_picture_name_the_turn_it_ended_in_and_whose_it_was(monkeypatch):
    """A stalemate is found once the last quiet turn has been counted: the views named the next turn
    (``turns + 1``), which never began, as the turn of the player whose turn had just ended. Six quiet
    turns, seat 0 first: the game ends in turn 6, seat 1's."""
    s = scenario(p0=dict(ready=["Lion"], hand=["Emu"]), p1=dict(ready=["Tiger"], hand=["Koala"]),
                 filler_to="discard", stalemate_turns=6, phase="add")
    for turn in range(6):
        assert s.render_text().startswith(f"Travel Earth TCG - turn {turn + 1}: Player {1 + turn % 2} (seat {turn % 2})'s")
        act(s, "skip_reservoir")
        act(s, "end_play")
    assert s.drawn_game and s.turns == 6 and s.player == 1
    for seat in (None, 0, 1):
        you = ", you" if seat == 1 else ""
        assert s.render_text(seat).splitlines()[0] == f"Travel Earth TCG - turn 6: Player 2 (seat 1{you})'s turn"
        words = _drawn_words(monkeypatch, s, seat)
        assert "Travel Earth TCG · turn 6 " in words and "turn 7" not in words
        assert "game over: drawn (stalemate)" in words


def test_render_text_names_who_decides_the_defenders_row_and_the_declared_challengers_still_waiting():
    """While the defending player chooses, the header says so (not "deciding" as if the turn's player
    did); a Resting Defender is named so (it defends with the Resting penalty); and the Challengers
    declared with the one resolving wait in their own line until their turn comes."""
    s = scenario(p0=dict(ready=["Lion", "Horse"], reservoir=["Koala", "Giraffe"]),
                 p1=dict(resting=["Tiger"], reservoir=["Emu"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Horse")  # both Full cards are spoken for: the group is locked, Lion resolves first
    assert s.render_text(0).splitlines()[0] == "Travel Earth TCG - turn 1: Player 1 (seat 0, you)'s turn, deciding: statistic"
    assert "Declared, waiting: Horse TE-010" in s.render_text(1).splitlines()
    act(s, "statistic", WEIGHT)
    for seat, you in ((0, ""), (1, ", you")):
        lines = s.render_text(seat).splitlines()
        assert lines[0] == f"Travel Earth TCG - turn 1: Player 1 (seat 0{', you' if seat == 0 else ''})'s turn; " \
                           f"Player 2 (seat 1{you}) decides: defender"
        assert "Declared, waiting: Horse TE-010" in lines
    act(s, "defend_resting", "Tiger")
    assert "on Weight (used: Weight) vs Resting Tiger TE-004: 175 against 119.7 kg" in s.render_text(0)


def test_render_text_records_that_a_tireless_challenger_survives_and_stays_ready_where_another_rests():
    """Tireless keeps a surviving Challenger Ready: the record says which, as the rows then show."""
    for card, fate in (("Grey-headed albatross", "stays Ready (Tireless)"), ("Tiger", "now Resting")):
        s = scenario(p0=dict(ready=[card], reservoir=["Koala", "Emu"]), p1=dict(ready=["Sea otter", "Walrus"]))
        act(s, "declare", card)
        act(s, "statistic", SPEED)
        act(s, "defend_ready", "Sea otter")
        label = CAT.label(cid(card))
        assert f"; Sea otter TE-036 discarded; {label} survives, {fate}" in s.render_text(0), card


def test_the_picture_draws_each_seats_counts_reservoir_rows_and_hand_on_its_own_side_and_the_challenge_as_it_stands(
        monkeypatch):
    """Seat 1 went first here, so "Player 1" is seat 1 and the viewing seat 0 is "Player 2", at the bottom.
    Every count differs between the seats; the strip reads the defending seat as the one deciding, the
    Resting Defender as Resting, the statistic's direction (Development Time: lower wins) and the result."""
    from tabletop_envs.core.render import Canvas
    from tabletop_envs.travel_earth.render import card_face, draw_table

    s = scenario(p0=dict(resting=["Springbok"], ready=["Walrus"], reservoir=["Koala"], unseen=["Canada goose"],
                         hand=["Orca", "Emu"], discard=["Horse"]),
                 p1=dict(ready=["Lion", "Tiger"], reservoir=["Sea otter", "Plains zebra"], hand=["Giraffe"]),
                 player=1, first=1)
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", DEVELOPMENT)
    act(s, "defend_resting", "Springbok")  # 109 against 168 days: the Challenger wins, seat 0 may change
    assert (s.phase, s.current_player()) == ("change", 0)
    drawn: dict = {"text": [], "row": [], "dim": [], "reservoir": []}
    real_text, real_row, real_box = Canvas.text, Canvas.card_row, Canvas.box

    def text(canvas, x, y, words, *a, **k):
        drawn["text"].append(words)
        return real_text(canvas, x, y, words, *a, **k)

    def card_row(canvas, x, y, faces, *a, **k):
        drawn["row"].append([face.title for face in faces])
        drawn["dim"].append([face.dim for face in faces])
        return real_row(canvas, x, y, faces, *a, **k)

    def box(canvas, x0, y0, x1, y1, *a, **k):  # a Reservoir card: upright (Full) or sideways (Empty)
        shape = {(16, 24): "Full", (24, 16): "Empty"}.get((x1 - x0, y1 - y0))
        if shape:
            drawn["reservoir"].append(shape)
        return real_box(canvas, x0, y0, x1, y1, *a, **k)

    for seat in (0, None):
        for key in drawn:
            drawn[key].clear()
        monkeypatch.setattr(Canvas, "text", text)
        monkeypatch.setattr(Canvas, "card_row", card_row)
        monkeypatch.setattr(Canvas, "box", box)
        draw_table(s, seat)
        monkeypatch.undo()
        words = drawn["text"]
        you = " (you)" if seat == 0 else ""
        assert "Player 1 (seat 1)'s turn · seat 0 decides: change" in words
        strips = [w for w in words if w.startswith(("Player ", "Deck ", "Hand ", "Discard Pile ", "Reservoir "))
                  and "'s turn" not in w]
        assert strips == ["Player 1 (seat 1)", "Deck 15", "Hand 1", "Discard Pile 0", "Reservoir 2/6: 1 Full, 1 Empty",
                          f"Player 2 (seat 0){you}", "Deck 13", "Hand 2", "Discard Pile 1",
                          "Reservoir 2/6: 2 Full, 0 Empty"], seat
        assert drawn["reservoir"] == ["Full", "Empty", "Full", "Full"], seat
        assert ("holds Koala, (unseen card)" if seat == 0 else "holds Koala, unseen: Canada goose") in words
        assert [w for w in words if "Row · " in w] == ["Ready Row · 0", "Resting Row · 0", "Ready Row · 1",
                                                       "Resting Row · 1"]
        assert drawn["row"] == [[], [], ["Walrus"], ["Springbok"], ["Orca", "Emu"]], seat  # by card id
        assert drawn["dim"] == [[], [], [False], [True], [False, False]], "a Resting Animal is drawn dimmed"
        assert ("Hand: Giraffe" in words) == (seat is None), "the opponent's Hand by name on the whole table only"
        challenge = words[words.index("Challenge"):words.index("Challenger wins") + 1]
        assert challenge == ["Challenge", "on Development Time (lower wins)", "used: Development Time",
                             "Challenger (seat 1)", "Lion", "Development Time: 109 d", "vs",
                             "Resting Defender (seat 0)", "Springbok", "Development Time: 168 d", "Challenger wins"]
    assert card_face(CAT, cid("Walrus")).lines == ["Speed 35 km/h", "Weight 1,012 kg", "Length 2.87 m", "Life 40 y", "Brood 1", "Devel. 331 d"]


def test_with_a_pouch_the_adding_player_sees_both_of_its_reservoir_additions_this_turn():
    """``reservoir_adds`` is the cards you added to your Reservoir this turn / 2: a Pouch allows two
    additions, so after the second one it reads 1; the waiting player's stays 0."""
    s = scenario(p0=dict(resting=["Red kangaroo"], hand=["Lion", "Tiger", "Emu"]), phase="add")
    lay = s.game.observation_layout
    act(s, "add_to_reservoir", "Lion")
    assert s.phase == "add" and lay.view(s.observation(0), "reservoir_adds").tolist() == [0.5]
    act(s, "add_to_reservoir", "Tiger")
    assert s.phase == "play" and lay.view(s.observation(0), "reservoir_adds").tolist() == [1.0]
    assert lay.view(s.observation(1), "reservoir_adds").tolist() == [0]


def test_observation_shows_seat_1_the_opponents_rows_discard_pile_and_reservoir_in_the_opp_segments():
    # the seat-1 side of test_observation_shows_what_the_issue_lists, which reads seat 0's opponent zones only
    s = scenario(p0=dict(ready=["Tiger"], resting=["Cheetah", "Giraffe"], reservoir=["Walrus", "Emu"], discard=["Orca"]),
                 p1=dict(ready=["Lion"], resting=["Horse"], reservoir=["Koala"], discard=["Blue whale"]),
                 empty=(1, 0))
    lay = s.game.observation_layout
    o1 = s.observation(1)

    def cards(obs, name):
        return {CAT.names[i] for i in np.flatnonzero(lay.view(obs, name))}

    assert cards(o1, "opp_ready") == {"Tiger"} and cards(o1, "opp_resting") == {"Cheetah", "Giraffe"}
    assert cards(o1, "my_ready") == {"Lion"} and cards(o1, "my_resting") == {"Horse"}
    assert cards(o1, "opp_discard") == {"Orca"} and cards(o1, "my_discard") == {"Blue whale"}
    assert list(lay.view(o1, "opp_reservoir") * 7) == pytest.approx([2, 1, 1])
    assert list(lay.view(o1, "my_reservoir")[:3] * 7) == pytest.approx([1, 1, 0])


def test_render_text_lists_player_1_before_player_2_whichever_seat_went_first():
    # the zones follow the rules' order of play: with seat 1 first, seat 1's block comes first in every view
    for first in (0, 1):
        s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Tiger"]), player=first, first=first)
        for seat in (None, 0, 1):
            lines = s.render_text(seat).splitlines()
            blocks = [i for i, x in enumerate(lines) if x.startswith(("Player 1 (seat", "Player 2 (seat")) and ": Deck " in x]
            assert [lines[i][:len("Player 1 (seat 0")] for i in blocks] == [f"Player 1 (seat {first}",
                                                                           f"Player 2 (seat {1 - first}"], (first, seat)


def test_the_picture_marks_the_viewing_seat_you_for_seat_1_as_for_seat_0(monkeypatch):
    # the picture tests view from seat 0 or the whole table: seat 1's own strip says "(you)", the opponent's not
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Tiger"]))
    for seat in (0, 1):
        words = _drawn_words(monkeypatch, s, seat)
        name = {0: "Player 1 (seat 0)", 1: "Player 2 (seat 1)"}
        assert f"{name[seat]} (you)" in words and f"{name[1 - seat]} (you)" not in words, seat
    assert "(you)" not in _drawn_words(monkeypatch, s, None)
