""""More specific card text overrides a general rule": one test per printed ability.

Each test shows the general rule's outcome changing because of the card's text.
"""

from __future__ import annotations

import sys

from tabletop_envs.core.engine import new_rng

from .scenario import CAT, act, cid, ids, legal, names, scenario

SPEED, WEIGHT, LENGTH, LIFESPAN, OFFSPRING, DEVELOPMENT = range(6)


def test_more_specific_card_text_overrides_a_general_rule_at_least_10_distinct_texts():
    texts = {a["text"] for a in CAT.abilities.values()}
    assert len(texts) == len(CAT.abilities) >= 10
    printed = {c["ability"] for c in CAT.cards if c["ability"]}
    assert printed == set(CAT.abilities), "every ability is printed on at least one card"
    tests = {n for n in dir(sys.modules[__name__]) if n.startswith("test_ability_")}
    assert {f"test_ability_{key}" for key in CAT.abilities} <= tests, "each ability has its own test"


def test_ability_ambush():
    for card in ("Leopard", "TE-070"):  # the Cheetah promo TE-070 prints Ambush too
        s = scenario(p0=dict(hand=[card], reservoir=["Koala"]), p1=dict(ready=["Sea otter"]), phase="play")
        act(s, "play", cid(card))
        assert s.ready[0] == [cid(card)] and s.resting[0] == []  # instead of the Resting Row
        assert legal(s, "declare") == [cid(card)]  # it may challenge this very turn


def test_ability_armoured_shell():
    # Lion and the Galápagos giant tortoise both weigh 175 kg.
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(resting=["Galápagos giant tortoise"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_resting", "Galápagos giant tortoise")
    assert s.phase == "statistic" and s.discard[1] == []  # the tie moves on instead of the Resting penalty
    act(s, "statistic", SPEED)
    assert s.discard[1] == ids(["Galápagos giant tortoise"])


def test_ability_patient_hunter():
    s = scenario(p0=dict(ready=["Nile crocodile", "Lion"]), p1=dict(ready=["Sea otter"]))
    assert legal(s, "declare") == [cid("Nile crocodile")]  # no Full Reservoir card needed; the Lion needs one
    act(s, "declare", "Nile crocodile")
    assert s.phase == "statistic" and s.empty[0] == 0 and s.reservoir_size(0) == 0


def test_ability_stoop():
    s = scenario(p0=dict(ready=["Peregrine falcon"], reservoir=["Koala"]), p1=dict(ready=["Tiger"], resting=["Lion"]))
    act(s, "declare", "Peregrine falcon")
    act(s, "statistic", SPEED)
    assert legal(s, "defend_resting") == [] and legal(s, "defend_ready") == [cid("Tiger")]
    s = scenario(p0=dict(ready=["Peregrine falcon"], reservoir=["Koala"]), p1=dict(resting=["Lion"]))
    act(s, "declare", "Peregrine falcon")
    act(s, "statistic", SPEED)
    assert legal(s, "defend_resting") == [cid("Lion")]  # no Ready Animal: a Resting one may defend


def test_ability_fearless():
    for card, plain, stat in (("Honey badger", "Spotted hyena", LIFESPAN), ("TE-072", "TE-028", WEIGHT)):
        outcomes = {}
        for challenger in (card, plain):
            s = scenario(p0=dict(ready=[challenger], reservoir=["Koala"]), p1=dict(ready=["Tiger"], reservoir=["Emu"]))
            act(s, "declare", cid(challenger))
            act(s, "statistic", stat)
            act(s, "defend_ready", "Tiger")
            outcomes[challenger] = s.phase
            if challenger == card:
                assert s.discard[1] == ids(["Tiger"]) and s.reservoir[1] == ids(["Emu"])
        assert outcomes[plain] == "change" and outcomes[card] != "change"  # Fearless denies the change


def test_ability_threat_display():
    s = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                 p1=dict(ready=["Magnificent frigatebird"], reservoir=["Emu"]))
    act(s, "declare", "African bush elephant")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Magnificent frigatebird")
    # frigatebird wins only Top Speed and Development Time, yet every unused statistic is offered
    assert legal(s, "change_statistic") == [SPEED, LENGTH, LIFESPAN, OFFSPRING, DEVELOPMENT]
    s2 = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                  p1=dict(ready=["Golden eagle"], reservoir=["Emu"]))
    act(s2, "declare", "African bush elephant")
    act(s2, "statistic", WEIGHT)
    act(s2, "defend_ready", "Golden eagle")
    assert legal(s2, "change_statistic") == [SPEED, OFFSPRING, DEVELOPMENT]  # the general rule: winners only


def test_threat_display_offers_only_statistics_not_yet_compared_in_this_challenge():
    s = scenario(p0=dict(ready=["African bush elephant"], reservoir=["Koala"]),
                 p1=dict(ready=["Magnificent frigatebird"], reservoir=["Emu", "Walrus"]))
    act(s, "declare", "African bush elephant")
    act(s, "statistic", OFFSPRING)  # 1 vs 1: a tie, the challenge moves on
    act(s, "defend_ready", "Magnificent frigatebird")
    assert s.phase == "statistic"
    act(s, "statistic", WEIGHT)  # the elephant wins
    assert s.phase == "change"
    # the tied Offspring was already compared: offering it again reopened a used statistic
    assert legal(s, "change_statistic") == [SPEED, LENGTH, LIFESPAN, DEVELOPMENT]


def test_ability_tireless():
    for card in ("Grey-headed albatross", "TE-071"):
        # two Full Reservoir cards and two Defenders: a second challenge could be paid for and met
        s = scenario(p0=dict(ready=[card], reservoir=["Koala", "Emu"]), p1=dict(ready=["Sea otter", "Walrus"]))
        act(s, "declare", cid(card))  # nothing else can join: the group locks itself
        act(s, "statistic", SPEED)
        act(s, "defend_ready", "Sea otter")
        assert s.ready[0] == [cid(card)] and s.resting[0] == []  # stays Ready instead of Resting
        assert s.full(0) == 1 and s.ready[1] == ids(["Walrus"])  # it could pay for and meet another challenge
        # and still challenged only once: the turn passed at once, it was not offered again
        assert s.player == 1 and s.turns == 1 and s.empty[0] == 1 and s.discard[1] == ids(["Sea otter"])


def test_ability_ink_cloud():
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Springbok"]),
                 p1=dict(ready=["Giant Pacific octopus"], reservoir=["Emu", "Walrus"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Giant Pacific octopus")
    act(s, "change_statistic", LENGTH)  # 4.3 m arm span against 1.835 m
    assert s.reservoir_size(1) == 2 and s.empty[1] == 1  # a Full card turned Empty, none discarded
    assert s.discard[1] == [] and s.discard[0] == ids(["Lion"]) and s.challenger == cid("Tiger")


def test_ability_stampede():
    s = scenario(p0=dict(ready=["Blue wildebeest", "Lion"], reservoir=["Koala", "Emu"]),
                 p1=dict(ready=["Blue wildebeest", "Sea otter"]))
    act(s, "declare", "Blue wildebeest")
    act(s, "declare", "Lion")
    act(s, "statistic", SPEED)
    act(s, "defend_ready", "Blue wildebeest")
    for stat in (WEIGHT, LENGTH, LIFESPAN, OFFSPRING, DEVELOPMENT):
        act(s, "statistic", stat)
    assert s.discard[0] == ids(["Blue wildebeest"])
    assert s.player == 0 and s.challenger == cid("Lion") and s.phase == "statistic"  # the turn goes on


def test_ability_homing():
    for seed in range(5):
        s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(reservoir=["Rock dove (pigeon)", "Sea otter"]))
        s.rng = new_rng(seed)
        act(s, "declare", "Lion")
        act(s, "statistic", WEIGHT)
        assert s.hand[1] == ids(["Rock dove (pigeon)"])  # back to Hand, not the Discard Pile
        assert names(s.discard[1]) == ["Sea otter"] and s.is_terminal()


def test_ability_blubber_store():
    six = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca"]
    s = scenario(p0=dict(ready=["Bowhead whale"], reservoir=six, hand=["Lion"]), phase="add")
    act(s, "add_to_reservoir", "Lion")
    assert s.reservoir_size(0) == 7
    plain = scenario(p0=dict(ready=["Blue whale"], reservoir=six, hand=["Lion"]), phase="add")
    assert legal(plain, "add_to_reservoir") == []


def test_ability_pouch():
    s = scenario(p0=dict(resting=["Red kangaroo"], hand=["Lion", "Tiger", "Emu"]), phase="add")
    act(s, "add_to_reservoir", "Lion")
    assert s.phase == "add"  # a second addition is allowed
    act(s, "add_to_reservoir", "Tiger")
    assert s.phase == "play" and s.reservoir_size(0) == 2


def test_ability_tiny():
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["House mouse"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "House mouse")
    assert s.discard[0] == ids(["Lion"])  # 0.0205 kg beats 175 kg: the lower Weight wins
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["Anna's hummingbird"]))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Anna's hummingbird")
    assert s.discard[1] == ids(["Anna's hummingbird"])  # without Tiny, the higher Weight wins
    s = scenario(p0=dict(ready=["House mouse"], reservoir=["Koala"]), p1=dict(ready=["Lion"]))
    act(s, "declare", "House mouse")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Lion")
    assert s.discard[1] == ids(["Lion"])  # a Tiny Challenger wins with the lower Weight too


def test_ability_early_riser():
    s = scenario(p0=dict(ready=["Greater roadrunner"]), player=1)
    act(s, "lock_challengers")
    assert len(s.hand[0]) == 3 + 1
    plain = scenario(p0=dict(ready=["Koala"]), player=1)
    act(plain, "lock_challengers")
    assert len(plain.hand[0]) == 3


def test_abilities_are_printed_in_the_catalogue_with_the_rule_they_override():
    for key, ability in CAT.abilities.items():
        assert ability["text"] and ability["overrides"], key
    leopard = CAT.cards[cid("Leopard")]
    assert leopard["ability"] == "ambush" and "Ready Row" in CAT.abilities["ambush"]["text"]


def test_ability_ink_cloud_without_a_full_card_discards_a_reservoir_card_as_usual():
    # "... instead of discarding a card (if you have a Full one)": with only Empty cards the general rule pays.
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(ready=["Giant Pacific octopus"], reservoir=["Emu", "Walrus"]), empty=(0, 2))
    act(s, "declare", "Lion")
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Giant Pacific octopus")
    act(s, "change_statistic", LENGTH)
    assert s.phase == "pay"
    act(s, "pay_reservoir", "Walrus")
    assert s.discard[1] == ids(["Walrus"]) and s.reservoir[1] == ids(["Emu"])
    assert s.discard[0] == ids(["Lion"]) and s.ready[1] == ids(["Giant Pacific octopus"])


def test_ability_patient_hunter_empties_no_card_even_when_full_cards_are_there():
    # "its challenge empties none": it neither needs nor spends a Full card, so the Lion can join with the one
    # Full card, and the crocodile's challenge leaves it Full.
    s = scenario(p0=dict(ready=["Lion", "Nile crocodile"], reservoir=["Koala"]), p1=dict(ready=["Sea otter", "Koala"]))
    act(s, "declare", "Nile crocodile")
    assert cid("Lion") in legal(s, "declare")
    act(s, "declare", "Lion")
    assert s.challenger == cid("Nile crocodile") and s.empty[0] == 0
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Koala")  # 94.2 kg against 9.3 kg
    assert s.challenger == cid("Lion") and s.empty[0] == 1  # only the Lion's card turned Empty
    act(s, "statistic", WEIGHT)
    act(s, "defend_ready", "Sea otter")
    assert s.player == 1 and s.empty[0] == 1 and s.full(0) == 0


def test_ability_blubber_store_works_from_the_resting_row():
    # "While this Animal is on your field": the Resting Row is part of the field.
    six = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca"]
    s = scenario(p0=dict(resting=["Bowhead whale"], reservoir=six, hand=["Lion"]), phase="add")
    act(s, "add_to_reservoir", "Lion")
    assert s.reservoir_size(0) == 7


def test_ability_blubber_store_holds_while_the_whale_is_a_declared_or_resolving_challenger():
    # RULES.md 15: a Challenger is still on its owner's field. The views read "Reservoir 7/6" while the whale
    # challenged (found by an audit); play never checked the limit then (additions come before declaring).
    seven = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca", "Lion"]
    s = scenario(p0=dict(ready=["Bowhead whale", "Tiger"], reservoir=seven), p1=dict(ready=["Sea otter"]))
    assert s.reservoir_capacity(0) == 7 and "Reservoir 7/7" in s.render_text(0)
    act(s, "declare", "Bowhead whale")
    act(s, "declare", "Tiger")
    assert s.queue == ids(["Tiger"]) and s.challenger == cid("Bowhead whale")  # resolving, the Tiger declared
    for seat in (0, 1):
        assert s.reservoir_capacity(0) == 7 and "Reservoir 7/7" in s.render_text(seat)
    assert s.reservoir_capacity(1) == 6  # the opponent's Reservoir is not the whale's


def test_ability_blubber_store_holds_while_the_whale_is_declared_and_waits_behind_another_challenger():
    # RULES.md 15: only the resolving slot was read, so a whale declared and still queued read "Reservoir 7/6"
    seven = ["Koala", "Emu", "Walrus", "Springbok", "Sea otter", "Orca", "Lion"]
    s = scenario(p0=dict(ready=["Tiger", "Bowhead whale", "Lion"], reservoir=seven),
                 p1=dict(ready=["Sea otter"]))
    act(s, "declare", "Tiger")
    act(s, "declare", "Bowhead whale")
    assert s.phase == "declare" and s.queue == ids(["Tiger", "Bowhead whale"]) and s.challenger == -1
    for seat in (0, 1):
        assert s.reservoir_capacity(0) == 7 and "Reservoir 7/7" in s.render_text(seat)
    act(s, "lock_challengers")  # the Tiger resolves first, the whale waits its turn
    assert s.queue == ids(["Bowhead whale"]) and s.challenger == cid("Tiger")
    for seat in (0, 1):
        assert s.reservoir_capacity(0) == 7 and "Reservoir 7/7" in s.render_text(seat)


def test_ability_armoured_shell_after_a_defensive_change_a_win_discards_only_the_challenger():
    # "no Resting penalty applies to it": after a change it wins like a Ready Defender (a plain Resting
    # Defender that wins after a change is discarded with the Challenger).
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]),
                 p1=dict(resting=["Galápagos giant tortoise"], reservoir=["Emu"]))
    act(s, "declare", "Lion")
    act(s, "statistic", SPEED)  # 80 km/h against 0.32 km/h
    act(s, "defend_resting", "Galápagos giant tortoise")
    act(s, "change_statistic", LIFESPAN)  # 177 years against 28
    assert s.discard[0] == ids(["Lion"]) and s.discard[1] == ids(["Emu"])
    assert s.ready[1] == ids(["Galápagos giant tortoise"])  # it survived; seat 1's turn readied it


def test_ability_stoop_a_resting_armoured_shell_is_not_a_ready_animal():
    # RULES.md 23. Armoured Shell changes how a Resting Animal defends, not the row it is in: against Stoop the
    # Ready Sea otter must defend, although the Resting tortoise would win on Offspring (10 against 3).
    s = scenario(p0=dict(ready=["Peregrine falcon"], reservoir=["Koala"]),
                 p1=dict(ready=["Sea otter"], resting=["Galápagos giant tortoise"]))
    act(s, "declare", "Peregrine falcon")
    act(s, "statistic", OFFSPRING)
    assert legal(s, "defend_ready") == [cid("Sea otter")] and legal(s, "defend_resting") == []
    s = scenario(p0=dict(ready=["Peregrine falcon"], reservoir=["Koala"]), p1=dict(resting=["Galápagos giant tortoise"]))
    act(s, "declare", "Peregrine falcon")
    act(s, "statistic", OFFSPRING)
    assert legal(s, "defend_resting") == [cid("Galápagos giant tortoise")]  # no Ready Animal: the shell defends
    act(s, "defend_resting", "Galápagos giant tortoise")
    assert s.discard[0] == ids(["Peregrine falcon"]) and s.discard[1] == []
    assert s.ready[1] == ids(["Galápagos giant tortoise"])  # it survived; seat 1's turn readied it


def test_ability_stoop_a_resting_armoured_shell_that_defends_keeps_its_ability_after_a_defensive_change():
    # RULES.md 23: with no Ready Animal the shell defends against Stoop "and keeps its ability". Beaten on Top
    # Speed, it changes to Max Lifespan (177 years against 25) and wins as if Ready: only the falcon goes
    s = scenario(p0=dict(ready=["Peregrine falcon"], reservoir=["Koala"]),
                 p1=dict(resting=["Galápagos giant tortoise"], reservoir=["Emu"]))
    act(s, "declare", "Peregrine falcon")
    act(s, "statistic", SPEED)
    act(s, "defend_resting", "Galápagos giant tortoise")
    act(s, "change_statistic", LIFESPAN)
    assert s.discard[0] == ids(["Peregrine falcon"]) and s.discard[1] == ids(["Emu"])
    assert s.ready[1] == ids(["Galápagos giant tortoise"])  # it survived; seat 1's turn readied it


def test_early_riser_and_pouch_copies_do_not_stack():
    # RULES.md 16: "draw 1 more card than the Hand-size table gives" and "up to 2 cards" are totals.
    s = scenario(p0=dict(ready=["Greater roadrunner", "Greater roadrunner"]), player=1)
    act(s, "lock_challengers")
    assert len(s.hand[0]) == 3 + 1
    s = scenario(p0=dict(resting=["Red kangaroo", "Red kangaroo"], hand=["Lion", "Tiger", "Emu"]), phase="add")
    act(s, "add_to_reservoir", "Lion")
    act(s, "add_to_reservoir", "Tiger")
    assert s.phase == "play" and legal(s, "add_to_reservoir") == [] and s.reservoir_size(0) == 2


def test_ability_fearless_denies_the_change_to_a_threat_display_or_ink_cloud_defender():
    # Threat Display and Ink Cloud say how a change is made; Fearless says none is made against this Challenger.
    # Each plain Challenger (same statistic, same Defender) shows the change the defender would otherwise get.
    for card, plain, defender, stat in (("Honey badger", "Spotted hyena", "Magnificent frigatebird", WEIGHT),
                                        ("TE-072", "TE-028", "Giant Pacific octopus", WEIGHT)):
        for challenger in (card, plain):
            s = scenario(p0=dict(ready=[challenger, "Lion"], reservoir=["Koala", "Emu"]),
                         p1=dict(ready=[defender, "Sea otter"], reservoir=["Walrus", "Springbok"]))
            act(s, "declare", cid(challenger))
            act(s, "declare", "Lion")
            act(s, "statistic", stat)
            act(s, "defend_ready", defender)
            if challenger == plain:
                assert s.phase == "change" and legal(s, "change_statistic")
                continue
            assert s.discard[1] == ids([defender]) and s.challenger == cid("Lion")
            assert s.reservoir_size(1) == 2 and s.full(1) == 2  # nothing paid, nothing turned Empty


def test_ability_ink_cloud_of_a_resting_defender_that_wins_its_change_goes_with_the_challenger():
    # Ink Cloud changes how the change is paid, not the Resting precedence: a Resting Defender that wins after a
    # change is discarded with the Challenger, while its Full card only turns Empty.
    s = scenario(p0=dict(ready=["Lion", "Tiger"], reservoir=["Koala", "Springbok"]),
                 p1=dict(resting=["Giant Pacific octopus"], reservoir=["Emu", "Walrus"]))
    act(s, "declare", "Lion")
    act(s, "declare", "Tiger")
    act(s, "statistic", SPEED)  # 80 km/h against 24.1
    act(s, "defend_resting", "Giant Pacific octopus")
    act(s, "change_statistic", LENGTH)  # 4.3 m arm span against 1.835 m
    assert s.discard[0] == ids(["Lion"]) and s.discard[1] == ids(["Giant Pacific octopus"])
    assert s.resting[1] == [] and s.reservoir_size(1) == 2 and s.empty[1] == 1
    assert s.player == 0 and s.challenger == cid("Tiger") and s.phase == "statistic"


def test_ability_tiny_decides_which_defensive_change_can_actually_win():
    # "Use a defensive change only when the new statistic can actually win", with Weight read as Tiny prints it:
    # the mouse may change to Weight against a heavier Challenger, and nobody may change to Weight against it.
    s = scenario(p0=dict(ready=["Lion"], reservoir=["Koala"]), p1=dict(ready=["House mouse"], reservoir=["Emu"]))
    act(s, "declare", "Lion")
    act(s, "statistic", SPEED)  # 80 km/h against 13
    act(s, "defend_ready", "House mouse")
    assert legal(s, "change_statistic") == [WEIGHT, OFFSPRING, DEVELOPMENT]
    act(s, "change_statistic", WEIGHT)  # 0.0205 kg against 175 kg: the lighter wins
    assert s.discard[0] == ids(["Lion"]) and s.discard[1] == ids(["Emu"])
    s = scenario(p0=dict(ready=["House mouse"], reservoir=["Koala"]), p1=dict(ready=["Sea otter"], reservoir=["Emu"]))
    act(s, "declare", "House mouse")
    act(s, "statistic", OFFSPRING)  # 7 young against 1
    act(s, "defend_ready", "Sea otter")
    assert legal(s, "change_statistic") == [LENGTH, LIFESPAN]  # the otter's 25.85 kg loses to the mouse's 0.0205
