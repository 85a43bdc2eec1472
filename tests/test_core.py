"""The shared core on its own, through a toy game (tests/toy_game.py)."""

from __future__ import annotations

import copy
import json
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import three_seat_game
from generator_spy import GeneratorSpy, same_stream, tells_the_seed
from threads import run_in_threads

from tabletop_envs.core import IllegalActionError, RandomPolicy, SingleAgentEnv, conformance
from tabletop_envs.core.errors import ConfigError
from tabletop_envs.core.layout import ActionLayout, ObservationLayout
from tabletop_envs.core.registry import ENVS, EnvSpec, get_spec, make_game

#: every check of the conformance harness that takes an env name and its options
HARNESS_CHECKS = ["check_api", "check_parallel", "check_seed", "check_pickle", "check_clone_and_dict", "check_global_state",
                  "check_random_games", "check_max_turns", "check_mask_equals_rules", "check_no_leak",
                  "check_seat_arguments", "check_seed_independence"]


@pytest.mark.parametrize("check", HARNESS_CHECKS)
def test_conformance_harness_passes_on_toy(toy, check):
    getattr(conformance, check)(toy, {})


@pytest.mark.parametrize("check", HARNESS_CHECKS)
def test_conformance_harness_passes_on_a_game_without_hidden_information_or_chance(pile, check):
    # the leak check required a re-deal to change something, and the seeding check unseeded resets to deal
    # another game: neither can happen in such a game, so none could join (the game declares both)
    getattr(conformance, check)(pile, {})


def test_conformance_harness_refuses_a_game_that_declares_no_hidden_information_or_chance_but_has_them(
        toy, monkeypatch):
    import toy_game

    monkeypatch.setattr(toy_game.ToyGame, "hidden_information", False)
    with pytest.raises(AssertionError, match=r"toy_v0: a game declaring hidden_information = False re-dealt "
                                             r"something in \d+ worlds: it hides something"):
        conformance.check_no_leak(toy, {})
    monkeypatch.setattr(toy_game.ToyGame, "chance", False)
    with pytest.raises(AssertionError, match="a game declaring chance = False dealt the AEC env another game for "
                                             "another seed: it has chance"):
        conformance.check_seed_independence(toy, {})


def test_conformance_harness_names_the_declarations_where_a_game_has_no_hidden_information_or_chance(
        pile, monkeypatch):
    import pile_game

    monkeypatch.setattr(pile_game.PileGame, "hidden_information", True)
    with pytest.raises(AssertionError, match="the leak test would be vacuous .*declares hidden_information = False"):
        conformance.check_no_leak(pile, {})
    monkeypatch.setattr(pile_game.PileGame, "chance", True)
    with pytest.raises(AssertionError, match="dealt the game before it again .*declares chance = False"):
        conformance.check_seed_independence(pile, {})


def test_the_seed_independence_check_leaves_the_callers_global_generators_as_they_were(toy):
    # it seeds them to vary them and puts them back after: it put NumPy's back from a copy holding the key
    # as bytes, which set_state took silently as another state, so the check moved the generator it guards
    import random

    random.seed(11)
    np.random.seed(11)
    expected = random.random(), np.random.random()
    random.seed(11)
    np.random.seed(11)
    conformance.check_seed_independence(toy, {})
    assert (random.random(), np.random.random()) == expected


def test_conformance_harness_refuses_a_game_whose_default_max_turns_truncates_games_the_rules_would_finish(
        toy, monkeypatch):
    # every env game of such a game ended truncated, reward 0 for all (a 200-game match: 200 draws), and
    # every check passed
    import toy_game

    monkeypatch.setattr(toy_game.ToyGame, "default_max_turns", 5)  # the toy game lasts 6 turns
    with pytest.raises(AssertionError, match=r"game 0: still going at turn 5, where the game's default_max_turns \(5\)"):
        conformance.check_random_games(toy, {}, num_games=3)
    monkeypatch.setattr(toy_game.ToyGame, "default_max_turns", 6)  # the last move is at turn 5: it ends
    conformance.check_random_games(toy, {}, num_games=3)


def test_conformance_harness_refuses_a_game_that_calls_itself_by_another_name_than_its_registered_one(
        toy, monkeypatch):
    # a version bumped in the registry only: every check passed, and the saved states named a game
    # (toy_v0's Game.env_name) that make_game, which their StateError advises, does not know
    import toy_game

    monkeypatch.setitem(ENVS, "toy_v1", EnvSpec("toy_v1", "toy_game", "test/toy-v1", "test/Toy-v1", (2,), "", "toy"))
    with pytest.raises(AssertionError, match=r"toy_v1: Game.env_name is 'toy_v0' and raw_env.metadata\[\"name\"\] "
                                             r"is 'toy_v0', not the name it is registered under"):
        conformance.check_clone_and_dict("toy_v1", {}, seeds=range(1))
    monkeypatch.setattr(toy_game.raw_env, "metadata", {**toy_game.raw_env.metadata, "name": "toy"})
    with pytest.raises(AssertionError, match=r"toy_v0: raw_env.metadata\[\"name\"\] is 'toy', not"):
        conformance.check_clone_and_dict(toy, {}, seeds=range(1))


def test_leak_check_catches_a_leaking_observation(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.observation

    def leaky(self, player):
        obs = original(self, player)
        obs[-1] = self.hands[1 - player][0] / 10 if self.hands[1 - player] else 0  # peeks at the opponent
        return obs

    monkeypatch.setattr(toy_game.ToyState, "observation", leaky)
    with pytest.raises(AssertionError, match="leaks hidden information"):
        conformance.check_no_leak(toy, {})


def test_leak_check_catches_an_action_name_that_tells_the_mover_a_hidden_card(toy, monkeypatch):
    """The observation can hide a card that a menu of move names (the play command's list) still shows."""
    import toy_game

    def peeking_name(self, action):
        return f"play {action} (they hold {sorted(self.hands[1 - self.player])})"

    monkeypatch.setattr(toy_game.ToyState, "action_to_string", peeking_name)
    with pytest.raises(AssertionError, match=r"player \d's action \d+ is named 'play .*in a world re-dealt from their "
                                             r"view .*: the name leaks hidden information"):
        conformance.check_no_leak(toy, {})


def test_leak_check_catches_a_refusal_of_an_illegal_move_that_tells_a_hidden_card(toy, monkeypatch):
    """A mover may try any action id; the refusal names the legal ones and must say nothing more."""
    import toy_game

    from tabletop_envs.core.errors import IllegalActionError

    original = toy_game.ToyState.apply_action

    def telling_refusal(self, action):
        if not self.legal_action_mask()[action] if 0 <= action < len(self.legal_action_mask()) else True:
            raise IllegalActionError(action, self.legal_actions(), self._describe_safe,
                                     f"{self.decision()}; the deck's top card is {self.deck[-1] if self.deck else None}")
        original(self, action)

    monkeypatch.setattr(toy_game.ToyState, "apply_action", telling_refusal)
    with pytest.raises(AssertionError, match=r"the refusal of player \d's illegal action \d+ .* reads .*, and .* in a "
                                             r"world re-dealt from their view: it leaks hidden information"):
        conformance.check_no_leak(toy, {})


def test_leak_check_fails_a_game_that_applies_an_illegal_action_instead_of_refusing_it(toy, monkeypatch):
    import toy_game

    monkeypatch.setattr(toy_game.ToyState, "apply_action", lambda self, action: None)
    with pytest.raises(AssertionError, match=r"toy_v0: illegal action \d+ was applied during .*, not refused with an "
                                             "IllegalActionError"):
        conformance.check_no_leak(toy, {})


@pytest.mark.parametrize("check", ["check_global_state", "check_parallel"])
def test_global_state_check_catches_a_state_that_is_only_the_movers_view(toy, monkeypatch, check):
    # the parallel env's state() too: it must be the seats' observations side by side, as the AEC env's is
    from tabletop_envs.core.aec import TabletopAECEnv

    def movers_view_twice(self):
        self._require_reset()
        seat = max(self.game_state.current_player(), 0)
        return np.tile(self.game_state.observation(seat), self.game.num_players)

    monkeypatch.setattr(TabletopAECEnv, "state", movers_view_twice)
    with pytest.raises(AssertionError, match="not equal"):
        getattr(conformance, check)(toy, {})


def test_mask_check_tries_every_action_id_up_to_the_last(toy, monkeypatch):
    # the toy's last action id is "draw": an engine that offers it but refuses it must be caught there
    import toy_game

    original = toy_game.ToyState._apply_action

    def refuses_to_draw(self, action):
        if action == toy_game.N_CARDS:
            raise IllegalActionError(action, self.legal_actions())
        original(self, action)

    monkeypatch.setattr(toy_game.ToyState, "_apply_action", refuses_to_draw)
    with pytest.raises(AssertionError, match=r"action 10 \(draw\) accepted=False but mask=1"):
        conformance.check_mask_equals_rules(toy, {})


def test_global_state_check_fails_on_a_warning_of_pettingzoos_own_state_test(toy, monkeypatch):
    from gymnasium import spaces

    from tabletop_envs.core.aec import TabletopAECEnv

    original = TabletopAECEnv.__init__

    def unbounded(self, *args, **kwargs):  # a state space without an upper bound: PettingZoo warns, nothing fails
        original(self, *args, **kwargs)
        self.state_space = spaces.Box(self.state_space.low, np.inf, self.state_space.shape, np.float32)

    monkeypatch.setattr(TabletopAECEnv, "__init__", unbounded)
    with pytest.raises(AssertionError, match="PettingZoo state_test warnings for toy_v0 .*infinity"):
        conformance.check_global_state(toy, {})


def test_the_engine_state_is_game_state_and_state_is_pettingzoos_global_state(toy):
    env = conformance.env_fn(toy)()
    env.reset(seed=1)
    assert env.game_state.current_player() == 0
    np.testing.assert_array_equal(env.state()[: env.game.observation_layout.size], env.game_state.observation(0))


def _leak_check_refuses(toy, monkeypatch, method, wrap, match):
    """The leak check run with ``ToyState.<method>`` replaced by ``wrap(the original)``, refusing with ``match``."""
    import toy_game

    monkeypatch.setattr(toy_game.ToyState, method, wrap(getattr(toy_game.ToyState, method)))
    with pytest.raises(AssertionError, match=match):
        conformance.check_no_leak(toy, {})


def test_leak_check_catches_a_resample_that_keeps_the_real_generator(toy, monkeypatch):
    def keeps_the_generator(original):
        def resample_hidden(self, player, rng):
            other = original(self, player, rng)
            other.rng = copy.deepcopy(self.rng)  # every world would draw the real future chance
            return other
        return resample_hidden

    _leak_check_refuses(toy, monkeypatch, "resample_hidden", keeps_the_generator, "kept the real state's generator")


def test_leak_check_catches_a_resample_that_keeps_the_real_states_cached_mask(toy, monkeypatch):
    # found by following docs/adding_a_game.md: clone() copies the cache, a world re-dealt for the seat not to
    # move then offered the real hand's cards, and only a playout from it failed (a card not in the hand)
    def keeps_the_mask(original):
        def resample_hidden(self, player, rng):
            mask = self.legal_action_mask()
            other = original(self, player, rng)
            other._mask_cache = mask
            return other
        return resample_hidden

    _leak_check_refuses(toy, monkeypatch, "resample_hidden", keeps_the_mask,
                        "kept the real state's cached action mask")


def test_leak_check_catches_a_leak_in_the_view_of_a_seat_after_the_first(toy, monkeypatch):
    # every seat's view is re-dealt, not only seat 0's: a leak into the second seat's view alone is caught
    def leaky_for_seat_1(original):
        def observation(self, player):
            obs = original(self, player)
            if player == 1:
                obs[-1] = self.hands[0][0] / 10 if self.hands[0] else 0  # peeks at seat 0's hand
            return obs
        return observation

    _leak_check_refuses(toy, monkeypatch, "observation", leaky_for_seat_1,
                        "player 1's observation changed .*: it leaks hidden information")


def test_leak_check_catches_a_mask_that_tells_the_mover_a_hidden_card(toy, monkeypatch):
    # a game whose refusals name no legal action: only the mask comparison sees the mask telling the mover
    # whether the opponent holds card 9
    import toy_game

    original = toy_game.ToyState._legal_action_mask

    def peeking_mask(self):
        mask = original(self).copy()
        mask[toy_game.N_CARDS] = bool(self.deck) and 9 not in self.hands[1 - self.player]
        return mask

    def plain_refusal(self, action):
        if not (0 <= action < self.game.num_actions and self.legal_action_mask()[action]):
            raise IllegalActionError(action, [0])
        self.apply_legal_action(action)

    monkeypatch.setattr(toy_game.ToyState, "_legal_action_mask", peeking_mask)
    monkeypatch.setattr(toy_game.ToyState, "apply_action", plain_refusal)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        conformance.check_no_leak(toy, {})


def test_leak_check_redeals_each_seats_view_as_many_times_as_asked(toy, monkeypatch):
    # a leak that shows in one world of several is found only if every world is looked at
    import toy_game

    original = toy_game.ToyState.resample_hidden
    calls = []

    def counted(self, player, rng):
        calls.append(player)
        return original(self, player, rng)

    monkeypatch.setattr(toy_game.ToyState, "resample_hidden", counted)
    conformance.check_no_leak(toy, {}, num_states=5, resamples=4)
    assert len(calls) == 5 * 2 * 4
    assert calls.count(0) == calls.count(1) == 5 * 4


def test_leak_check_catches_a_refusal_of_an_action_id_past_the_last_that_tells_a_hidden_card(toy, monkeypatch):
    # a mover may try any id, one past the last included: its refusal must say nothing hidden either
    def telling_refusal(original):
        def apply_action(self, action):
            if action >= self.game.num_actions:
                top = self.deck[-1] if self.deck else None
                raise IllegalActionError(action, self.legal_actions(), self._describe_safe,
                                         f"{self.decision()}; the deck's top card is {top}")
            original(self, action)
        return apply_action

    _leak_check_refuses(toy, monkeypatch, "apply_action", telling_refusal,
                        r"the refusal of player \d's illegal action 11 .* it leaks hidden information")


def test_leak_check_checks_the_invariants_of_each_redealt_world(toy, monkeypatch):
    # the opponent dealt the same card three times: the observation, the mask and the text agree, the world
    # is no game state (a playout from it plays a card twice)
    import toy_game

    original = toy_game.ToyState.resample_hidden

    def duplicating(self, player, rng):
        other = original(self, player, rng)
        hand = other.hands[1 - player]
        other.hands[1 - player] = hand[:1] * len(hand)
        return other

    monkeypatch.setattr(toy_game.ToyState, "resample_hidden", duplicating)
    with pytest.raises(AssertionError, match="the cards are not conserved"):
        conformance.check_no_leak(toy, {})


def test_leak_check_catches_a_text_view_that_shows_a_hidden_card(toy, monkeypatch):
    def telling_text(original):
        def render_text(self, player=None):
            text = original(self, player)
            return text if player is None else f"{text} opponent holds {sorted(self.hands[1 - player])}"
        return render_text

    _leak_check_refuses(toy, monkeypatch, "render_text", telling_text,
                        r"player \d's text view changed .*: it shows what the observation hides")


def test_leak_check_refuses_a_game_without_hidden_information_that_redeals_a_single_world(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.resample_hidden
    calls = []

    def redeals_once(self, player, rng):
        calls.append(player)
        other = original(self, player, rng)
        if len(calls) > 1:  # every later world keeps every card where it is
            other.hands, other.deck = copy.deepcopy(self.hands), list(self.deck)
        return other

    monkeypatch.setattr(toy_game.ToyGame, "hidden_information", False)
    monkeypatch.setattr(toy_game.ToyState, "resample_hidden", redeals_once)
    with pytest.raises(AssertionError, match="re-dealt something in 1 worlds: it hides something"):
        conformance.check_no_leak(toy, {})


@pytest.mark.parametrize("broken, message", [
    ("seat_past_the_last", r"game 0: current player 2 out of range"),
    ("bool_mask", r"game 0: mask is bool \(11,\), not int8 \(11,\)"),
    ("mask_of_twos", r"game 0: mask holds values other than 0 and 1"),
    ("observation_below_its_low", r"game 0: observation outside its declared bounds at \['turn'\]"),
    ("cards_lost_at_the_end", r"the cards are not conserved"),
    ("both_lose", r"game 0: returns \[-1. -1.\] are not zero-sum"),
    ("over_but_a_player_to_move", r"game 0: ended with current player \d, not TERMINAL"),
])
def test_random_games_check_refuses_a_broken_game(toy, monkeypatch, broken, message):
    import toy_game

    state = toy_game.ToyState
    current_player, mask, observation = state.current_player, state._legal_action_mask, state.observation
    apply, returns = state._apply_action, state.returns
    patches = {
        "seat_past_the_last": ("current_player", lambda self: 2 if self.turn_no == 3 else current_player(self)),
        "bool_mask": ("_legal_action_mask", lambda self: mask(self).astype(bool)),
        "mask_of_twos": ("_legal_action_mask", lambda self: mask(self) * 2),
        "observation_below_its_low": ("observation", lambda self, p: np.concatenate([observation(self, p)[:-1], [-0.5]])
                                      .astype(np.float32)),
        "cards_lost_at_the_end": ("_apply_action", lambda self, a: (apply(self, a), self.is_terminal() and self.deck.clear())),
        "both_lose": ("returns", lambda self: np.full(2, -1.0) if self.is_terminal() else returns(self)),
        "over_but_a_player_to_move": ("current_player", lambda self: self.player),
    }
    monkeypatch.setattr(state, *patches[broken])
    with pytest.raises(AssertionError, match=message):
        conformance.check_random_games(toy, {}, num_games=3)


def test_mask_check_catches_a_wrong_mask(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState._legal_action_mask

    def loose(self):
        mask = original(self).copy()
        mask[toy_game.N_CARDS] = 1  # claims "draw" is legal even with an empty deck
        return mask

    monkeypatch.setattr(toy_game.ToyState, "_legal_action_mask", loose)
    monkeypatch.setattr(toy_game.ToyState, "_apply_action", _strict_apply(toy_game))
    with pytest.raises(AssertionError, match="accepted"):
        conformance.check_mask_equals_rules(toy, {}, num_states=200)


def _strict_apply(toy_game):
    original = toy_game.ToyState._apply_action

    def apply(self, action):
        if action == toy_game.N_CARDS and not self.deck:
            raise IllegalActionError(action, [])
        original(self, action)

    return apply


def test_illegal_action_raise_names_action_and_legal_ones(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    hand = env.game_state.hands[0]
    bad = next(i for i in range(10) if i not in hand)
    with pytest.raises(IllegalActionError, match=f"illegal action {bad} \\(play {bad}\\).*Legal actions: .*draw"):
        env.step(bad)
    assert env.agent_selection == "player_0" and env.game_state.turn == 0  # nothing was lost


@pytest.mark.parametrize("kind", ["float", "str", "bool"])
def test_an_action_that_is_no_int_is_named_as_such_not_as_the_action_int_makes_of_it(toy, kind):
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    good = env.game_state.hands[0][0]  # a legal action: int(good + 0.5) and int(str(good)) are this one
    action = {"float": good + 0.5, "str": str(good), "bool": True}[kind]
    with pytest.raises(IllegalActionError, match="not an action id") as info:
        env.step(action)
    assert f"illegal action {action!r} (not an action id" in str(info.value)
    if kind != "bool":
        assert f"illegal action {good} (play {good})" not in str(info.value)
    assert env.agent_selection == "player_0" and env.game_state.turn == 0  # nothing was lost


def test_illegal_action_penalty_is_zero_sum(toy):
    import toy_game

    env = toy_game.env(illegal_action="penalty")
    env.reset(seed=0)
    bad = next(i for i in range(10) if i not in env.game_state.hands[0])
    env.step(bad)
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    assert all(env.terminations.values())


def test_illegal_action_random_legal_plays_a_legal_move(toy):
    import toy_game

    env = toy_game.env(illegal_action="random_legal")
    env.reset(seed=0)
    bad = next(i for i in range(10) if i not in env.game_state.hands[0])
    env.step(bad)
    assert env.game_state.turn == 1 and env.agent_selection == "player_1"
    assert env.infos["player_0"].get("illegal_action") is True


def test_illegal_action_random_legal_flag_stays_in_the_agents_info_until_it_steps_again(toy):
    # an AEC loop reads info from last() at the agent's next turn: the other seat's move rebuilt the
    # mover's info and dropped the flag (found by an API audit)
    import toy_game

    env = toy_game.env(illegal_action="random_legal")
    env.reset(seed=0)
    bad = next(i for i in range(10) if i not in env.game_state.hands[0])
    env.step(bad)
    assert env.agent_selection == "player_1" and env.infos["player_1"].get("illegal_action") is None
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # the other seat moves, legally
    assert env.agent_selection == "player_0"
    observation, _, _, _, info = env.last()
    assert info["illegal_action"] is True and np.array_equal(info["action_mask"], observation["action_mask"])
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))  # a legal move clears it
    assert "illegal_action" not in env.infos["player_0"]


def test_a_reset_clears_the_random_legal_flag_the_last_game_left_in_an_agents_info(toy):
    # found by mutation testing: a reset() that kept the set of replaced movers passed the suite; the next
    # game's first last() then said the mover's move had been replaced before it had moved at all
    import toy_game

    env = toy_game.env(illegal_action="random_legal")
    env.reset(seed=0)
    bad = next(i for i in range(10) if i not in env.game_state.hands[0])
    env.step(bad)
    assert env.infos["player_0"]["illegal_action"] is True
    env.reset(seed=1)
    assert env.agent_selection == "player_0"
    assert not any("illegal_action" in info for info in env.infos.values())
    assert "illegal_action" not in env.last()[4]


@pytest.mark.parametrize("face", ["aec", "single_agent"])
@pytest.mark.parametrize("kind", [float, np.float32])
def test_random_legal_flags_an_action_that_is_no_action_id_even_where_the_pick_equals_it(toy, kind, face):
    # found by mutation testing: comparing the pick with the action itself (3 == 3.0) instead of its action
    # id passed the suite, and a replaced 3.0 went unflagged whenever the random pick was 3 (the AEC twin of
    # the single-agent env's penalty flag for a non-integer action); then the same in the single-agent env
    import toy_game

    if face == "aec":
        env = toy_game.env(illegal_action="random_legal")
        env.reset(seed=0)
    else:
        env = SingleAgentEnv(toy_game.raw_env(illegal_action="random_legal"), opponent=RandomPolicy(), learner_seat=0)
        env.reset(seed=0)
    legal = np.flatnonzero(env.game_state.legal_action_mask())
    pick = int(copy.deepcopy(env.unwrapped._illegal_rng).choice(legal))  # the draw the replacement will make
    result = env.step(kind(pick))
    info = env.infos["player_0"] if face == "aec" else result[4]
    assert env.game_state.turn == (1 if face == "aec" else 2)  # (the single-agent env's opponent moved too)
    assert info["illegal_action"] is True


def test_random_legal_picks_come_from_a_stream_of_their_own_not_the_deals(toy, monkeypatch):
    # the deal's generator is seeded with the game seed; a pick drawn from the same numbers would
    # carry information about how the hidden cards were dealt
    import toy_game

    seeds = []
    original = toy_game.ToyGame.new_initial_state
    monkeypatch.setattr(toy_game.ToyGame, "new_initial_state",
                        lambda self, seed: seeds.append(seed) or original(self, seed))
    env = toy_game.env(illegal_action="random_legal")
    env.reset(seed=0)
    picks = env.unwrapped._illegal_rng.random(8)
    assert not np.array_equal(picks, np.random.default_rng(seeds[-1]).random(8))
    assert np.array_equal(picks, np.random.default_rng([seeds[-1], 1]).random(8))


def test_switching_to_random_legal_after_reset_is_a_clear_error_until_the_next_reset(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    env.unwrapped.illegal_action = "random_legal"
    bad = next(i for i in range(10) if i not in env.unwrapped.game_state.hands[0])
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(bad)
    env.reset(seed=0)
    env.step(bad)
    assert env.unwrapped.infos["player_0"].get("illegal_action") is True


@pytest.mark.parametrize("seed", [-5, 1.5, "7", True])
def test_a_seed_that_is_no_non_negative_int_is_a_clear_error_and_keeps_the_game(toy, seed):
    import toy_game

    env = toy_game.env()
    env.reset(seed=3)
    before = env.state_dict()
    with pytest.raises(ConfigError, match=f"seed must be None .* or a non-negative int, got {seed!r}"):
        env.reset(seed=seed)
    assert env.state_dict() == before  # the game in progress is untouched
    env.reset(seed=np.int64(3))  # a NumPy integer is a seed like any int
    assert env.state_dict() == before


@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0", "earth_v0"])
@pytest.mark.parametrize("seed", [-5, 1.5, "7", True])
def test_an_engine_deal_with_a_seed_that_is_no_non_negative_int_is_a_clear_error(env_name, seed):
    from tabletop_envs.core.registry import make_game

    game = make_game(env_name)
    with pytest.raises(ConfigError, match=f"seed must be None .* or a non-negative int, got {seed!r}"):
        game.new_initial_state(seed)
    assert game.new_initial_state(np.int64(3)).to_dict() == game.new_initial_state(3).to_dict()


def test_the_cli_names_a_negative_seed_instead_of_numpys_complaint(toy):
    from tabletop_envs.cli import main

    out = []
    assert main(["play", "toy", "--seed", "-5", "--opponent", "toy_v0/random"], ask=lambda _: "", say=out.append) == 2
    assert "seed must be None" in out[-1] and "got -5" in out[-1]


def test_last_after_every_agent_has_left_says_to_reset(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    with pytest.raises(RuntimeError, match="game is over .* call env.reset"):
        env.last()
    env.reset(seed=0)
    assert env.last()[0]["action_mask"].any()


@pytest.mark.parametrize("action", [99, 11, -1])
def test_an_action_id_outside_0_to_the_last_is_refused_by_the_env_and_the_engine(toy, action):
    # found by mutation testing: without the lower bound, -1 read the mask from its end, and the toy game's last
    # action (draw, legal while the deck lasts) was played in the env or the engine for it
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    assert env.game_state.legal_action_mask()[-1]  # the bit -1 would read
    before = env.state_dict()
    with pytest.raises(IllegalActionError):
        env.step(action)
    with pytest.raises(IllegalActionError):
        env.game_state.apply_action(action)
    assert env.state_dict() == before


def test_step_before_reset_is_a_clear_error(toy):
    import toy_game

    with pytest.raises(RuntimeError, match="reset"):
        toy_game.env().step(0)
    # the global state too, and the message names the method called (it named only step/observe/last)
    with pytest.raises(RuntimeError, match=r"before .*state\(\).*call env\.reset"):
        toy_game.env().state()


def test_agent_iter_and_the_agents_before_reset_are_clear_errors(toy):
    # the commonest AEC slip: `for agent in env.agent_iter()` with no reset gave Python's bare
    # "'raw_env' object has no attribute 'agents'", which reads like a bug of the library
    import toy_game

    env = toy_game.env()
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before agent_iter\(\)"):
        env.agent_iter()
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
        with pytest.raises(AttributeError, match=f"{name} is set by reset\\(\\): call env.reset"):
            getattr(env, name)
    assert not hasattr(env, "agents")  # still an AttributeError, for code that asks with hasattr
    with pytest.raises(AttributeError, match="has no attribute 'nonsense'"):
        _ = env.nonsense
    env.reset(seed=0)
    assert list(env.agent_iter(1)) == [env.agent_selection] and env.agents == env.possible_agents


def test_non_acting_seat_mask_is_all_zero_and_mirrored_in_info(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=1)
    assert env.observe("player_1")["action_mask"].sum() == 0
    assert env.infos["player_1"]["action_mask"].sum() == 0
    np.testing.assert_array_equal(env.observe("player_0")["action_mask"], env.infos["player_0"]["action_mask"])
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    assert env.observe("player_0")["action_mask"].sum() == 0
    assert env.infos["player_0"]["action_mask"].sum() == 0
    assert env.infos["player_1"]["action_mask"].sum() >= 1


def test_single_agent_env_loss_from_opponents_last_move_reaches_learner(toy):
    """The learner moves on turns 0,2,4 as seat 0; the opponent's final move on turn 5 decides."""
    import toy_game

    class PlayHighest:
        def act(self, obs, mask, rng):
            legal = np.flatnonzero(mask[:10])
            return int(legal.max()) if legal.size else 10

    class PlayLowest:
        def act(self, obs, mask, rng):
            legal = np.flatnonzero(mask[:10])
            return int(legal.min()) if legal.size else 10

    wins = losses = 0
    for seed in range(30):
        env = SingleAgentEnv(toy_game.raw_env(), opponent=PlayHighest(), learner_seat=0)
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            action = PlayLowest().act(obs, env.action_masks().astype(np.int8), None)
            obs, reward, term, trunc, info = env.step(action)
            total += reward
            done = term or trunc
        assert total == info["returns"][0]
        wins += total > 0
        losses += total < 0
    assert losses > 0  # the losses arrive although the learner never makes the last move
    assert env.aec.game_state.turn == 6


def test_single_agent_env_gives_the_learner_its_own_seats_result_from_either_seat(toy):
    # the loss test above seats the learner at 0 only: a final reward read from seat 0's return passed it
    import toy_game

    results = {0: set(), 1: set()}
    for seed in range(40):
        env = SingleAgentEnv(toy_game.raw_env(), opponent=RandomPolicy())
        obs, info = env.reset(seed=seed)
        seat, total, done = info["learner_seat"], 0.0, False
        while not done:
            obs, reward, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            total += reward
            done = term or trunc
        assert total == info["returns"][seat] == -info["returns"][1 - seat] and info["learner_seat"] == seat
        results[seat].add(total)
    assert {1.0, -1.0} <= results[0] and {1.0, -1.0} <= results[1]  # each seat won and lost


def test_aec_reset_after_a_finished_game_starts_every_seat_at_a_cumulative_reward_of_zero(toy):
    # found by mutation testing: a reset() that carried _cumulative_rewards over passed the suite; a loop that
    # resets as soon as the game ends, without stepping the dead agents out, read the last game's +1/-1 at
    # its next game's first last()
    import toy_game

    env = toy_game.env()
    env.reset(seed=3)
    while not all(env.terminations.values()):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    finished = dict(env._cumulative_rewards)
    assert sorted(finished.values()) == [-1.0, 1.0]  # a decided game: both seats hold a non-zero total
    env.reset(seed=4)
    assert env._cumulative_rewards == {a: 0.0 for a in env.possible_agents}
    assert env.rewards == {a: 0.0 for a in env.possible_agents}  # PettingZoo's rewards of the last step too
    _, reward, term, trunc, _ = env.last()
    assert (reward, term, trunc) == (0.0, False, False)


@pytest.mark.parametrize("legal_count", [5, 20])  # both of choose_legal's sampling paths (<= 16 legal, > 16)
def test_sampling_from_a_model_picks_only_legal_actions_in_proportion_to_their_masked_softmax(legal_count):
    # found by mutation testing: a sampling path that returned the position in the legal list instead of its
    # action id was caught only incidentally (<= 16 legal) or not on frequencies (> 16)
    from tabletop_envs.core.onnx_policy import choose_legal

    num_actions = 2 * legal_count + 3
    mask = np.zeros(num_actions, np.int8)
    legal = np.arange(1, 2 * legal_count, 2)  # odd ids: the position in the legal list is never the id
    mask[legal] = 1
    logits = np.linspace(-1.0, 1.0, num_actions).astype(np.float32)
    logits[legal[-1]] = 3.0  # one clear favourite among the legal actions
    logits[0] = 50.0  # an illegal action that would win any unmasked draw
    rng = np.random.default_rng(0)
    picks = np.array([choose_legal(logits, mask, rng, deterministic=False) for _ in range(4000)])
    assert mask[picks].all()
    expected = np.exp(logits[legal] - logits[legal].max())
    expected /= expected.sum()
    observed = np.array([(picks == a).mean() for a in legal])
    np.testing.assert_allclose(observed, expected, atol=0.03)
    assert choose_legal(logits, mask, rng, deterministic=True) == legal[-1]


class _EdgeDraws:
    """A generator whose draws sit at an end of [0, 1]: 0.0, or 1.0, where rounding of the weights' sums ends."""

    def __init__(self, value: float):
        self.value = value

    def random(self, size=None):
        return self.value if size is None else np.full(size, self.value)


@pytest.mark.parametrize("legal_count", [5, 20])  # both of choose_legal's sampling paths (<= 16 legal, > 16)
@pytest.mark.parametrize("draw", [0.0, 1.0])
def test_a_draw_at_either_end_picks_a_legal_action_of_positive_weight(legal_count, draw):
    # found by mutation testing: the draw's boundary cases (a threshold of exactly 0, the end of the cumulative
    # weights) were left to rounding no test reached; the action whose logit underflows to weight 0 is never meant
    from tabletop_envs.core.onnx_policy import choose_legal, choose_legal_batch

    mask = np.zeros(legal_count + 2, np.int8)
    mask[:legal_count] = 1  # the last two actions are illegal
    logits = np.zeros(legal_count + 2, np.float32)
    logits[0] = -1000.0  # weight exp(-1000) == 0.0
    expected = 1 if draw == 0.0 else legal_count - 1
    assert choose_legal(logits, mask, _EdgeDraws(draw), deterministic=False) == expected
    batch = choose_legal_batch(np.stack([logits] * 2), np.stack([mask] * 2), _EdgeDraws(draw), deterministic=False)
    assert batch.tolist() == [expected] * 2


def test_a_sampling_model_plays_a_forced_move_without_drawing_from_its_generator():
    from tabletop_envs.core.onnx_policy import MLPPolicy

    model = MLPPolicy([(np.ones((4, 6)), np.zeros(6))], deterministic=False, name="sampler")
    mask = np.zeros(6, np.int8)
    mask[3] = 1
    rng = np.random.default_rng(0)
    before = copy.deepcopy(rng.bit_generator.state)
    assert model.act(np.ones(4, np.float32), mask, rng) == 3
    # a forced move spent a draw: every later sampled move (and a recorded evaluation) played other games
    assert rng.bit_generator.state == before


def test_a_sampling_model_draws_its_moves_from_the_generator_single_and_batched():
    # found by mutation testing: act() and act_batch() that always took the argmax, whatever the policy's
    # deterministic, passed the suite (the draws were only tested on choose_legal itself)
    from tabletop_envs.core.onnx_policy import MLPPolicy

    bias = np.array([0.0, 0.3, 0.2, 0.1, 9.0], np.float32)  # action 4, the argmax, is illegal
    weights = [(np.zeros((3, 5), np.float32), bias)]
    mask = np.array([1, 1, 1, 1, 0], np.int8)
    obs = np.ones(3, np.float32)
    sampler = MLPPolicy(weights, deterministic=False)
    single = [sampler.act(obs, mask, np.random.default_rng(seed)) for seed in range(200)]
    batched = sampler.act_batch(np.ones((200, 3), np.float32), np.tile(mask, (200, 1)), np.random.default_rng(0))
    for picks in (np.array(single), batched):
        assert set(picks.tolist()) == {0, 1, 2, 3}  # every legal action drawn, never the illegal one
    # the same seed draws the same moves
    assert single == [sampler.act(obs, mask, np.random.default_rng(seed)) for seed in range(200)]
    again = sampler.act_batch(np.ones((200, 3), np.float32), np.tile(mask, (200, 1)), np.random.default_rng(0))
    assert batched.tolist() == again.tolist()
    argmax = MLPPolicy(weights, deterministic=True)
    assert argmax.act(obs, mask, np.random.default_rng(0)) == 1
    assert argmax.act_batch(np.ones((4, 3), np.float32), np.tile(mask, (4, 1)), None).tolist() == [1] * 4


def test_an_mlp_policy_computes_float32_logits_whatever_the_dtype_of_its_weights_or_observation():
    # found by mutation testing: dropping either float32 cast (weights at construction, the observation in
    # logits) passed the suite; the numpy forward then ran in float64, not as the exported float32 graph does
    from tabletop_envs.core.onnx_policy import MLPPolicy

    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(6, 4)), rng.normal(size=4)), (rng.normal(size=(4, 3)), rng.normal(size=3))]
    policy = MLPPolicy(weights)  # float64 weights
    assert all(w.dtype == b.dtype == np.float32 for w, b in policy.layers)
    for observation in ([1, 0, 2, 0, 0, 3], np.arange(12).reshape(2, 6)):  # ints: a list and an int64 batch
        logits = policy.logits(observation)
        assert logits.dtype == np.float32
        expected = np.asarray(observation, np.float32) @ policy.layers[0][0] + policy.layers[0][1]
        expected = np.tanh(expected) @ policy.layers[1][0] + policy.layers[1][1]
        np.testing.assert_allclose(logits, expected, rtol=1e-5, atol=1e-5)


def test_an_mlp_policy_refuses_an_unknown_activation_and_a_scalar_observation_with_a_value_error():
    # found by mutation testing: without these checks, a KeyError naming the activation, and an IndexError
    # of the width check, came out instead
    from tabletop_envs.core.onnx_policy import MLPPolicy

    with pytest.raises(ValueError, match=r"activation must be one of \['relu', 'tanh'\], got 'sigmoid'"):
        MLPPolicy([(np.ones((3, 2)), np.zeros(2))], activation="sigmoid")
    policy = MLPPolicy([(np.ones((3, 2)), np.zeros(2))])
    with pytest.raises(ValueError, match="takes an observation vector of 3 values .*got a scalar"):
        policy.logits(np.float32(1.0))


def test_a_pickled_relu_mlp_policy_keeps_its_activation():
    # found by mutation testing: __setstate__ rebuilding tanh whatever the activation passed the suite
    from tabletop_envs.core.onnx_policy import MLPPolicy

    weights = [(np.array([[1.0, -1.0]], np.float32), np.zeros(2, np.float32)),
               (np.eye(2, dtype=np.float32), np.zeros(2, np.float32))]
    policy = MLPPolicy(weights, activation="relu")
    copy_ = pickle.loads(pickle.dumps(policy))
    assert copy_.activation == "relu"
    np.testing.assert_array_equal(copy_.logits(np.array([2.0], np.float32)), [2.0, 0.0])  # tanh: [0.96, -0.96]
    np.testing.assert_array_equal(copy_.logits(np.array([2.0], np.float32)), policy.logits(np.array([2.0], np.float32)))


def test_single_agent_env_randomises_seat_and_masks_are_bool(toy):
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(), opponent=RandomPolicy())
    seats = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        seats.add(info["learner_seat"])
        assert env.action_masks().dtype == bool and env.action_masks().any()
    assert seats == {0, 1}


def test_json_state_is_plain_json(toy):
    import toy_game

    state = toy_game.ToyGame().new_initial_state(5)
    text = json.dumps(state.to_dict())
    assert json.loads(text)["env"] == "toy_v0"


def test_env_pickles_before_reset(toy):
    import toy_game

    env = pickle.loads(pickle.dumps(toy_game.env()))
    env.reset(seed=0)
    assert env.agent_selection == "player_0"


def test_layouts_tables_and_hash():
    obs = ObservationLayout([("a", 3, 0, 1, "first"), ("b", (2, 2), -1, 5, "second")])
    assert obs.size == 7 and obs.slices["b"] == slice(3, 7)
    assert "| 3–6 | `b` | 2×2 | -1…5 | second |" in obs.table_markdown()
    other = ObservationLayout([("a", 3, 0, 1, "first"), ("b", (2, 2), -1, 6, "second")])
    assert obs.hash() != other.hash()
    act = ActionLayout([("pass", 1, "pass", ["pass"]), ("play", 4, "play card", None)])
    assert act.num_actions == 5 and act.decode(3) == ("play", 2) and act.label(3) == "play[2]"
    with pytest.raises(IndexError):
        act.decode(5)
    with pytest.raises(ValueError, match="duplicate"):
        ActionLayout([("x", 1, "", None), ("x", 1, "", None)])


def test_an_action_segment_labelled_by_a_function_names_each_action_by_its_index():
    act = ActionLayout([("pass", 1, "pass", None), ("take", 3, "take stones", lambda i: f"take {i + 1}")])
    assert [act.label(a) for a in range(4)] == ["pass[0]", "take 1", "take 2", "take 3"]


def test_an_observation_layout_view_is_the_segment_in_its_shape_and_writes_through_to_the_vector():
    # documented "a view, writable": a caller filling a segment through it fills the observation itself
    obs = ObservationLayout([("a", 3, 0, 1, "first"), ("b", (2, 2), -1, 5, "second")])
    vec = obs.new()
    b = obs.view(vec, "b")
    assert b.shape == (2, 2)
    b[1, 0] = 4
    assert vec.tolist() == [0, 0, 0, 0, 0, 4, 0]


def test_an_observation_layout_refuses_a_segment_named_twice():
    with pytest.raises(ValueError, match="duplicate observation segment 'a'"):
        ObservationLayout([("a", 1, 0, 1, ""), ("a", 2, 0, 1, "")])


def test_an_action_index_outside_its_segment_and_a_negative_action_id_are_refused():
    # Python's indexing would have read -1 as the last action, and play[3] as the first id of the next segment
    act = ActionLayout([("play", 3, "play a card", None), ("pass", 1, "pass", None)])
    assert act.id("play", 2) == 2 and act.id("pass") == 3
    for index in (3, -1):
        with pytest.raises(IndexError, match=f"action segment 'play' has 3 entries, got index {index}"):
            act.id("play", index)
    for call in (act.decode, act.label):
        for action in (-1, -4, 4):
            with pytest.raises(IndexError, match=rf"action {action} outside 0\.\.3"):
                call(action)


def test_an_action_segment_whose_label_count_is_not_its_size_is_refused():
    with pytest.raises(ValueError, match="segment 'x': 2 labels for 3 actions"):
        ActionLayout([("x", 3, "", ["a", "b"])])
    with pytest.raises(ValueError, match="segment 'x': 4 labels for 3 actions"):
        ActionLayout([("x", 3, "", ("a", "b", "c", "d"))])


def test_layout_hashes_change_when_entries_move_between_segments():
    """Same names, bounds and total size, but one column (or action id) moved from one segment to the
    next: a model trained on one reads the other's columns (picks the other's actions) wrongly, so the
    hashes a saved model is checked against must differ."""
    one = ObservationLayout([("a", 3, 0, 1, "first"), ("b", 4, 0, 1, "second")])
    two = ObservationLayout([("a", 4, 0, 1, "first"), ("b", 3, 0, 1, "second")])
    assert one.size == two.size and one.hash() != two.hash()
    assert one.hash() == ObservationLayout([("a", 3, 0, 1, "other words"), ("b", 4, 0, 1, "")]).hash()
    acts = ActionLayout([("play", 3, "play", None), ("pass", 1, "pass", None)])
    moved = ActionLayout([("play", 2, "play", None), ("pass", 2, "pass", None)])
    assert acts.num_actions == moved.num_actions and acts.hash() != moved.hash()


def test_column_adders_give_each_cards_column_in_its_segment():
    obs = ObservationLayout([("a", 3, 0, 1, "first"), ("b", 4, 0, 1, "second")])
    add_a, add_b = obs.column_adders("a", "b")
    assert list(map(add_b, [0, 3])) == [3, 6] and add_a(2) == 2
    with pytest.raises(KeyError):
        obs.column_adders("c")


def test_action_handlers_map_every_id_to_its_segment_method_and_index():
    act = ActionLayout([("pass", 1, "pass", ["pass"]), ("play", 4, "play card", None)])

    class Owner:
        def _do_pass(self, index):
            return ("pass", index)

        def _do_play(self, index):
            return ("play", index)

    class Child(Owner):  # an override in a subclass is what its table dispatches to
        def _do_play(self, index):
            return ("child play", index)

    owner, child = Owner(), Child()
    assert [method(owner, i) for method, i in act.handlers(Owner)] == \
        [("pass", 0)] + [("play", i) for i in range(4)]
    assert [method(child, i) for method, i in act.handlers(Child)][1:] == [("child play", i) for i in range(4)]
    assert act.handlers(Owner) is act.handlers(Owner)  # built once per class


def test_import_does_not_import_torch():
    import subprocess
    import sys

    code = "import sys, tabletop_envs; assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_package_version_is_the_one_pyproject_installs():
    from pathlib import Path

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: no tomllib yet; tomli is pytest's own dependency there
        import tomli as tomllib

    import tabletop_envs

    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert tabletop_envs.__version__ == pyproject["project"]["version"]


def test_arena_rotates_seats_and_pairs_deals(toy):
    from tabletop_envs.core.arena import play_match

    class PlayHighest:
        def act(self, obs, mask, rng):
            legal = np.flatnonzero(mask[:10])
            return int(legal.max()) if legal.size else 10

    res = play_match(toy, [PlayHighest(), RandomPolicy()], 200, seed=3)
    assert res.games == 200 and res.wins.sum() + res.draws[0] == 200
    assert res.wins[0] == res.losses[1] and res.wins[1] == res.losses[0]
    assert res.win_rate(0) > 0.6  # playing high cards beats random play
    mirror = play_match(toy, [RandomPolicy(), RandomPolicy()], 400, seed=3)
    assert abs(mirror.win_rate(0) - mirror.win_rate(1)) < 0.15  # seat rotation: no built-in edge


def test_arena_plays_every_deal_from_every_seat_even_for_an_odd_number_of_games(toy):
    # 3 games used to play the second deal from one seat only: that deal's luck no longer cancelled
    from tabletop_envs.core.arena import play_match

    class PlayHighest:
        def act(self, obs, mask, rng):
            legal = np.flatnonzero(mask[:10])
            return int(legal.max()) if legal.size else 10

    for games in (1, 3, 7):
        res = play_match(toy, [PlayHighest(), PlayHighest()], games, seed=1)
        assert res.games == games + 1  # rounded up to whole deals, as training.evaluate.play_pair does
        assert res.wins[0] == res.wins[1] and res.losses[0] == res.losses[1]


def test_arena_summary_reports_each_policys_wins_draws_and_losses_of_the_match(toy):
    from tabletop_envs.core.arena import play_match

    class PlayHighest:
        def act(self, obs, mask, rng):
            legal = np.flatnonzero(mask[:10])
            return int(legal.max()) if legal.size else 10

    res = play_match(toy, [PlayHighest(), "toy_v0/random"], 20, seed=2)
    lines = res.summary().splitlines()
    assert [line.split(":")[0] for line in lines] == ["PlayHighest", "toy_v0/random"]
    for i, line in enumerate(lines):
        assert line.endswith(f"{res.wins[i]}W {res.draws[i]}D {res.losses[i]}L of 20 ({100 * res.win_rate(i):.1f}% wins)")
        assert res.wins[i] + res.draws[i] + res.losses[i] == 20
    assert res.wins[0] > res.wins[1]  # the summary tells the stronger policy apart


def test_match_result_win_rate_is_each_policys_own_wins_per_game():
    from tabletop_envs.core.arena import MatchResult

    res = MatchResult(["a", "b"], 8, np.array([5, 2]), np.array([1, 1]), np.array([2, 5]), np.zeros(2))
    assert (res.win_rate(0), res.win_rate(1)) == (5 / 8, 2 / 8)
    assert res.summary().splitlines()[1] == "b: 2W 1D 5L of 8 (25.0% wins)"


def test_match_result_summary_tells_two_policies_of_one_name_apart_by_their_place_in_the_list():
    from tabletop_envs.core.arena import MatchResult, play_match

    res = MatchResult(["a", "a", "b"], 8, np.array([5, 2, 1]), np.array([1, 1, 1]), np.array([2, 5, 6]), np.zeros(3))
    assert res.summary().splitlines() == ["a (policies[0]): 5W 1D 2L of 8 (62.5% wins)",
                                          "a (policies[1]): 2W 1D 5L of 8 (25.0% wins)", "b: 1W 1D 6L of 8 (12.5% wins)"]
    mirror = play_match("terralore_v0", ["terralore_v0/heuristic"] * 2, 4, seed=3)
    assert [line.split(":")[0] for line in mirror.summary().splitlines()] == ["terralore_v0/heuristic (policies[0])",
                                                                              "terralore_v0/heuristic (policies[1])"]


def test_play_match_hands_each_policy_the_generator_of_its_place_whichever_seat_it_takes(toy):
    # a generator of its own per policy (README: one no other policy of the match draws from): seat-indexed
    # generators passed policy 0's stream to policy 1 whenever the rotation swapped them
    from generator_spy import DrawRecorder

    from tabletop_envs.core.arena import play_match
    from tabletop_envs.core.policy import policy_rng

    a, b = DrawRecorder("a"), DrawRecorder("b")
    play_match(toy, [a, b], 4, seed=7)
    for place, policy in enumerate((a, b)):
        assert len(policy.draws) > 4
        assert policy.draws == policy_rng(7, place).random(len(policy.draws)).tolist()


def test_deals_of_nearby_seeds_are_distinct():
    # seed * 1_000_003 + deal: a match or evaluation at the next seed plays fresh deals, not this one's shifted
    # by one (docs/measurements.md's "independent checks on fresh deals" rest on it)
    from tabletop_envs.core.arena import deal_seed

    seeds = [deal_seed(seed, deal) for seed in range(5) for deal in range(2000)]
    assert len(set(seeds)) == len(seeds)
    assert deal_seed(1, 0) == 1_000_003 and deal_seed(0, 1) == 1


class _Picks:
    def __init__(self, pick):
        self.pick = pick

    def act(self, obs, mask, rng):
        return self.pick


def test_arena_counts_a_shared_best_return_at_three_seats_as_a_draw_for_those_sharing_it(monkeypatch):
    from tabletop_envs.core.arena import play_match

    three_seat_game.register(monkeypatch)
    res = play_match("picks_v0", [_Picks(2), _Picks(0), _Picks(2)], 6, seed=0)
    assert res.games == 6
    assert res.wins.tolist() == [0, 0, 0]
    assert res.draws.tolist() == [6, 0, 6] and res.losses.tolist() == [0, 6, 0]
    assert res.total_return.tolist() == [12.0, 0.0, 12.0]
    alone = play_match("picks_v0", [_Picks(1), _Picks(2), _Picks(0)], 3, seed=0)
    assert (alone.wins.tolist(), alone.draws.tolist(), alone.losses.tolist()) == ([0, 3, 0], [0, 0, 0], [3, 0, 3])


class _Answers:
    """A policy that answers the first legal action in another form (``kind``)."""

    def __init__(self, kind):
        self.kind = kind
        self.name = f"answers-{kind.__name__}"

    def act(self, obs, mask, rng):
        return self.kind(int(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("kind", [float, str, lambda a: a + 0.7, lambda a: None, lambda a: 10**6],
                         ids=["float", "str", "fraction", "none", "out_of_range"])
def test_the_arena_takes_a_policy_move_as_the_env_faces_do_and_names_the_policy_at_fault(kind):
    # apply_action's int() played 0.0, "0" and 0.7 as action 0 (SingleAgentEnv refuses them), None was a bare
    # TypeError from int(), and an illegal move told the caller to build an env with illegal_action=...
    from tabletop_envs.core.arena import play_game, play_match

    runs = (lambda: play_game(make_game("terralore_v0"), [_Answers(kind), RandomPolicy()], 3),
            lambda: play_match("terralore_v0", [RandomPolicy(), _Answers(kind)], 2, seed=3))
    for run in runs:
        with pytest.raises(IllegalActionError, match=r"^the policy answers-\S+ \(seat [01]\) chose an illegal action .*"
                                                      r"Its act\(observation, action_mask, rng\) must return"):
            run()
    env = SingleAgentEnv("terralore_v0", opponent=_Answers(kind), learner_seat=1)
    with pytest.raises(IllegalActionError, match="the opponent answers-"):  # what the env face says of it
        env.reset(seed=3)


class _Raises:
    name = "crashes"

    def act(self, obs, mask, rng):
        raise RuntimeError("my agent's own bug")


@pytest.mark.skipif(not hasattr(Exception, "add_note"), reason="exception notes are Python 3.11+")
def test_a_policy_that_raises_keeps_its_error_with_a_note_naming_it_its_seat_and_the_deal():
    # a round robin's traceback ended in the agent's own code and told neither whose it was nor which deal to replay
    from tabletop_envs.core.arena import deal_seed, play_match

    with pytest.raises(RuntimeError, match="my agent's own bug") as raised:
        play_match("terralore_v0", [RandomPolicy(), _Raises()], 2, seed=3)
    dealt = deal_seed(3, 0)
    assert raised.value.__notes__ == [f"raised by the policy crashes (seat 1) while deciding 'mulligan' in the game "
                                      f"dealt from seed {dealt} (game.new_initial_state({dealt}) replays the deal)"]


@pytest.mark.parametrize(("kwargs", "problem"), [
    ({"num_games": 0}, "the number of games must be a positive integer, got 0"),
    ({"num_games": -3}, "the number of games must be a positive integer, got -3"),
    ({"num_games": 1.5}, "the number of games must be a positive integer, got 1.5"),
    ({"seed": None}, "the seed must be a non-negative integer, got None"),
    ({"seed": -1}, "the seed must be a non-negative integer, got -1;"),
    ({"seed": np.random.default_rng(0)}, "the seed must be a non-negative integer, got Generator"),
    ({"max_turns": 0}, "max_turns must be None .* or a positive int, got 0"),
    ({"max_turns": -1}, "max_turns must be None .* or a positive int, got -1"),
])
def test_play_match_refuses_what_training_evaluate_refuses(kwargs, problem):
    # 0 or -3 games played none and reported NaN rates, max_turns=0 made every game a draw, a None or Generator
    # seed was a TypeError from int() deep inside, and -1 was named as its first deal's seed, -1000003
    from tabletop_envs.core.arena import play_match

    args = {"num_games": 2, **kwargs}
    with pytest.raises(ConfigError, match=problem):
        play_match("terralore_v0", ["terralore_v0/random"] * 2, **args)


def test_play_game_says_what_it_takes_instead_of_failing_inside():
    from tabletop_envs.core.arena import play_game

    game = make_game("terralore_v0")
    with pytest.raises(TypeError, match=r"policies\[1\] is 'terralore_v0/random', not a policy .* load_policy"):
        play_game(game, [RandomPolicy(), "terralore_v0/random"], 0)  # was: 'str' object has no attribute 'act'
    with pytest.raises(ValueError, match="2-seat game takes one policy per seat, got 1"):
        play_game(game, [RandomPolicy()], 0)  # was: an IndexError at seat 1's first move
    with pytest.raises(ValueError, match=r"one generator, or one per seat \(2\), got 1"):
        play_game(game, [RandomPolicy()] * 2, 0, rng=[np.random.default_rng(0)])
    with pytest.raises(ConfigError, match="the seed must be a non-negative integer, got None"):
        play_game(game, [RandomPolicy()] * 2, None)
    with pytest.raises(ConfigError, match="max_turns"):
        play_game(game, [RandomPolicy()] * 2, 0, max_turns=0)
    with pytest.raises(TypeError, match="policies must be a list with one policy per seat"):
        from tabletop_envs.core.arena import play_match

        play_match("terralore_v0", "terralore_v0/random", 2)  # was: no policy registered as 't'


@pytest.mark.parametrize("value", [True, float("nan"), float("inf"), "-0.5"])
def test_a_draw_reward_that_is_no_finite_number_is_refused_by_its_key(value):
    # True read as a reward of 1, and NaN made every drawn game's reward NaN
    from tabletop_envs.core.arena import check_draw_reward

    with pytest.raises(ConfigError, match=r"selfplay\.draw_reward must be a number .*got"):
        check_draw_reward(value, 2, "terralore_v0")


def test_a_solo_game_takes_no_draw_reward_but_the_default_of_none():
    # 0, the default, is no mistake at a table of one: refusing it refused every solo training run
    from tabletop_envs.core.arena import check_draw_reward

    assert check_draw_reward(0, 1, "earth_v0") == 0.0 and check_draw_reward(np.float32(-0.5), 2, "earth_v0") == -0.5
    with pytest.raises(ConfigError, match="earth_v0 with 1 player is never drawn"):
        check_draw_reward(-0.5, 1, "earth_v0")


def test_play_game_refuses_more_policies_or_generators_than_seats():
    # one too many was played without a word: the caller's seating was not the one it meant
    from tabletop_envs.core.arena import play_game

    game = make_game("terralore_v0")
    with pytest.raises(ValueError, match="2-seat game takes one policy per seat, got 3"):
        play_game(game, [RandomPolicy()] * 3, 0)
    with pytest.raises(ValueError, match=r"one generator, or one per seat \(2\), got 3"):
        play_game(game, [RandomPolicy()] * 2, 0, rng=[np.random.default_rng(k) for k in range(3)])


def test_play_match_refuses_a_bad_max_turns_before_it_loads_any_policy():
    # refused after the models were loaded (slow for a large one), and behind any error loading them gave
    from tabletop_envs.core.arena import play_match

    with pytest.raises(ConfigError, match="max_turns must be None"):
        play_match("terralore_v0", ["terralore_v0/nobody", "terralore_v0/random"], 2, max_turns=0)


def test_a_gymnasium_id_of_a_short_game_name_is_hinted_with_its_registered_name(monkeypatch):
    # the id's hyphens read as underscores: "go-v12" alone is too far from "go_v0" for difflib to name it
    monkeypatch.setitem(ENVS, "go_v0", EnvSpec("go_v0", "toy_game", "test/go-v0", "test/Go-v0", (2,), "", "go"))
    with pytest.raises(KeyError, match=r"unknown env 'tabletop_envs/Go-v12'.*; did you mean 'go_v0'\?"):
        get_spec("tabletop_envs/Go-v12")


def test_every_registered_env_lists_the_player_counts_its_game_accepts():
    # 'tabletop-envs list' and the command line read the registry's copy; the game refuses by its own
    for spec in ENVS.values():
        assert spec.player_counts == spec.load_module().raw_env.game_class.player_counts, spec.env_name


def test_play_match_names_a_path_and_a_loaded_model_as_training_evaluate_does():
    # they were named by class: 'PosixPath' and 'MLPPolicy' in the summary, where a round robin says which model
    from pathlib import Path

    from tabletop_envs import load_policy
    from tabletop_envs.core.arena import play_match
    from training.evaluate import round_robin

    model = Path(__file__).resolve().parents[1] / "models" / "terralore" / "ppo.onnx"
    policies = [model, load_policy("terralore_v0/ppo")]
    names = play_match("terralore_v0", policies, 2, max_turns=4).names
    assert names == [str(model), "terralore_v0/ppo"]
    assert names == round_robin("terralore_v0", policies, 2, max_turns=4)["policies"]


def test_the_arena_plays_numpy_and_python_ints_alike():
    from tabletop_envs.core.arena import play_game

    class NumpyFirst:
        def act(self, obs, mask, rng):
            return np.flatnonzero(mask)[np.int64(0)]

    class First:
        def act(self, obs, mask, rng):
            return int(np.flatnonzero(mask)[0])

    game = make_game("terralore_v0")
    returns, steps = play_game(game, [NumpyFirst(), NumpyFirst()], 5)
    expected = play_game(game, [First(), First()], 5)
    assert returns.tolist() == expected[0].tolist() and steps == expected[1]


def test_arena_hands_each_seat_its_own_observation(toy):
    """In the toy game a seat's hand is exactly its legal plays: every policy call must see the hand
    of the seat that moves, never another seat's."""
    import toy_game

    from tabletop_envs.core.arena import play_game

    calls = []

    class Recorder:
        def act(self, obs, mask, rng):
            calls.append((obs.copy(), mask.copy()))
            return int(np.flatnonzero(mask)[0])

    game = toy_game.ToyGame()
    hand = game.observation_layout.slices["hand"]
    for seed in range(3):
        play_game(game, [Recorder(), Recorder()], seed)
    assert len(calls) == 3 * game.turns
    for obs, mask in calls:
        np.testing.assert_array_equal(obs[hand], mask[:10])


@pytest.mark.parametrize("learner_seat", [0, 1])
def test_single_agent_env_shows_the_learner_and_each_opponent_only_its_own_seats_view(toy, learner_seat):
    """The self-play reduction's twin of the arena's test above: the toy game's hand is exactly the legal plays, so every
    view the learner gets (reset, each step) must hold the learner's hand, and each opponent's act() call the
    hand of the seat it moves. Found by mutation testing: an opponent handed the learner's observation, and a
    reset returning seat 0's, passed the suite."""
    import toy_game

    calls = []

    class Recorder:
        def act(self, obs, mask, rng):
            calls.append((obs.copy(), np.array(mask)))
            return int(np.flatnonzero(mask)[-1])

    hand = toy_game.ToyGame().observation_layout.slices["hand"]
    env = SingleAgentEnv(toy_game.raw_env(), opponent=Recorder(), learner_seat=learner_seat)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        over = False
        while not over:
            np.testing.assert_array_equal(obs, env.game_state.observation(learner_seat))
            np.testing.assert_array_equal(obs[hand], info["action_mask"][:10])
            obs, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            over = terminated or truncated
        np.testing.assert_array_equal(obs, env.game_state.observation(learner_seat))  # the final view too
    assert len(calls) >= 3 * 3
    for obs, mask in calls:
        np.testing.assert_array_equal(obs[hand], mask[:10])


def test_policies_never_draw_from_the_generator_that_dealt_the_hidden_cards():
    """A policy is handed a generator to break ties or sample its moves. Were it the deal's own stream
    (the engine's ``new_rng(seed)``), a policy could re-run the deal from it and know every hidden
    card, and a random policy's moves would follow the shuffles."""
    from tabletop_envs.core.arena import play_game

    game = make_game("terralore_v0")
    for seed in (0, 5):
        spy = GeneratorSpy()
        play_game(game, [spy, spy], seed)
        assert not same_stream(spy.first_state, seed), f"play_game(seed={seed}) gave policies the deal's generator"
        assert not tells_the_seed(spy, seed), f"play_game(seed={seed}) gave policies a generator that tells the seed"


def test_a_match_never_hands_policies_the_generator_that_dealt_one_of_its_deals():
    from tabletop_envs.core.arena import play_match

    spy = GeneratorSpy()
    play_match("terralore_v0", [spy, spy], 2, seed=0)  # the first deal of a match with seed 0 is dealt from 0
    assert not same_stream(spy.first_state, 0), "play_match(seed=0) gave policies the first deal's generator"
    assert not tells_the_seed(spy, 0), "play_match(seed=0) gave policies a generator that tells the seed"


@pytest.mark.parametrize("seed", [np.uint64(2**64 - 1), np.int64(2**62), np.int32(7)])
def test_a_numpy_integer_seed_deals_a_match_and_an_evaluation_as_the_same_int_does(seed):
    # deal_seed multiplied in the NumPy type: np.uint64(2**64 - 1) wrapped around and dealt other games than
    # 2**64 - 1 (silently), np.int64(2**62) became a negative deal seed, refused as if the user had given it
    import warnings

    from tabletop_envs.core.arena import deal_seed, play_match
    from training.evaluate import play_pair

    assert all(type(deal_seed(seed, d)) is int and deal_seed(seed, d) == deal_seed(int(seed), d) for d in (0, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's overflow warning was all that told of the wrap-around
        match = play_match("travel_earth_v0", ["travel_earth_v0/random"] * 2, 2, seed=seed)
        pair = play_pair("travel_earth_v0", "random", "random", 2, seed=seed)
    assert match.lengths == play_match("travel_earth_v0", ["travel_earth_v0/random"] * 2, 2, seed=int(seed)).lengths
    assert pair == play_pair("travel_earth_v0", "random", "random", 2, seed=int(seed))


@pytest.mark.parametrize("seed", [0, 918_273_645_501])
def test_the_single_agent_envs_opponents_get_a_generator_that_does_not_tell_the_seed_of_the_learners_deals(seed):
    # the env's deals follow from its reset seed: an opponent that read [seed, 1] off its generator
    # re-ran them and knew the learner's hand
    spy = GeneratorSpy()
    env = SingleAgentEnv("travel_earth_v0", opponent=spy, learner_seat=1)
    env.reset(seed=seed)
    assert spy.first_state is not None, "player_0 is the opponent and moves before the learner"
    assert not tells_the_seed(spy, seed)


def test_the_single_agent_envs_opponents_share_one_generator_as_the_readme_says(monkeypatch):
    # the README's "no other policy of the match draws from" is the arena's; a reader benchmarking against the
    # Gymnasium env found its opponents sharing one, which the README now says
    from generator_spy import DrawRecorder

    from tabletop_envs.core.policy import policy_rng

    three_seat_game.register(monkeypatch)
    spies = [DrawRecorder("a"), DrawRecorder("b")]
    env = SingleAgentEnv("picks_v0", opponent=spies, learner_seat=0)
    _, info = env.reset(seed=7)
    for _ in range(3):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            break
    draws = [d for pair in zip(spies[0].draws, spies[1].draws) for d in pair]
    assert len(spies[0].draws) == len(spies[1].draws) > 0
    assert draws == policy_rng(7, 1).random(len(draws)).tolist()  # turns alternate: b's draws follow a's


def test_a_policy_with_memory_is_restarted_before_each_game_so_a_seeded_match_replays():
    # act() was all a policy was ever asked: an agent that counts its moves (an RNN's state, a reused search
    # tree) carried one game's into the next, and the same seed gave other results (found by an audit)
    from generator_spy import Remembers

    from tabletop_envs.core.arena import play_match

    agent = Remembers()
    first = play_match("terralore_v0", [agent, "terralore_v0/random"], 4, seed=3)
    assert agent.restarts == 4  # once before each game
    again = play_match("terralore_v0", [agent, "terralore_v0/random"], 4, seed=3)
    assert (first.wins.tolist(), first.lengths) == (again.wins.tolist(), again.lengths)


def test_one_object_at_every_seat_is_restarted_once_a_game(toy):
    from generator_spy import Remembers

    from tabletop_envs.core.arena import play_match

    agent = Remembers()
    play_match(toy, [agent, agent], 6, seed=1)
    assert agent.restarts == 6


def test_the_single_agent_envs_opponent_is_restarted_at_each_deal():
    from generator_spy import Remembers

    agent = Remembers()
    env = SingleAgentEnv("terralore_v0", opponent=agent)
    for episode in range(1, 4):
        _, info = env.reset(seed=episode)
        assert agent.restarts == episode
        first = agent.moves
        while True:
            _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            if terminated or truncated:
                break
        assert agent.moves > first  # it played the deal it was restarted for


def test_doc_page_check_catches_a_page_without_the_layout_tables(toy):
    with pytest.raises(AssertionError, match="action table in env.py's docstring is out of date"):
        conformance.check_doc_page(toy)


@pytest.mark.parametrize("env_name", list(ENVS))
def test_doc_page_check_catches_a_page_whose_state_size_is_wrong(env_name, monkeypatch):
    from tabletop_envs.core.docs import state_row

    module = ENVS[env_name].load_module()
    row = state_row(env_name, make_game(env_name))
    assert row in module.__doc__
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace(row, row.replace("Box(", "Box(1")))
    with pytest.raises(AssertionError, match=r"documented state\(\) size is wrong"):
        conformance.check_doc_page(env_name)


@pytest.mark.parametrize("env_name", list(ENVS))
def test_doc_page_check_catches_a_stale_row_after_a_table_and_a_second_state_row(env_name, monkeypatch):
    # it only looked for the generated table somewhere on the page: an action removed since, still documented
    # in a row after the table, passed, and so did a stale state() row beside the current one
    from tabletop_envs.core.docs import doc_tables, state_row

    module = ENVS[env_name].load_module()
    page, game = module.__doc__, make_game(env_name)
    conformance.check_doc_page(env_name)  # the page as shipped
    for what, table in zip(("action", "observation"), doc_tables(game)):
        end = page.index(table) + len(table)
        monkeypatch.setattr(module, "__doc__", page[:end] + "\n| 9999 | `gone` | removed since |" + page[end:])
        with pytest.raises(AssertionError, match=f"the {what} table in env.py's docstring is out of date"):
            conformance.check_doc_page(env_name)
    row = state_row(env_name, game)
    monkeypatch.setattr(module, "__doc__", page.replace(row, "| state | ``env.state()``: Box(1,) float32 |\n" + row))
    with pytest.raises(AssertionError, match=r"docstring has 2 state\(\) rows, where a page has one"):
        conformance.check_doc_page(env_name)


@pytest.mark.parametrize("env_name", list(ENVS))
def test_an_action_applied_to_an_ended_game_says_the_game_is_over(env_name):
    """It said "Legal actions: ." and told the caller to pick an action whose mask bit is 1; Travel Earth's
    named its decision 'game over' where the others name none."""
    state = make_game(env_name).new_initial_state(3)
    rng = np.random.default_rng(3)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.decision() == ""
    with pytest.raises(IllegalActionError, match=r"^illegal action 0 \(.*\): the game is over, no action is legal\. "
                                                 r"Start a new game"):
        state.apply_action(0)
    with pytest.raises(IllegalActionError, match=r"illegal action 2\.5 \(not an action id.*the game is over"):
        state.apply_action(2.5)


@pytest.mark.parametrize("env_name", list(ENVS))
def test_doc_page_check_catches_a_page_whose_action_mask_size_is_wrong(env_name, monkeypatch):
    # the summary row's mask length (Box(203,) int8, int8 (449,)) was neither rewritten nor checked
    from tabletop_envs.core.docs import mask_sizes

    module = ENVS[env_name].load_module()
    n = make_game(env_name).num_actions
    assert mask_sizes(module.__doc__) == [n]
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace(f"{n},)", f"{n - 1},)"))
    with pytest.raises(AssertionError, match=rf"documented action_mask size is wrong \(\[{n - 1}\], the env has {n}"):
        conformance.check_doc_page(env_name)


@pytest.mark.parametrize("env_name", list(ENVS))
def test_doc_page_check_catches_a_page_whose_observation_size_is_wrong(env_name, monkeypatch):
    # the summary row's observation length was checked by nothing else: the state() row is sized apart from it
    module = ENVS[env_name].load_module()
    size = make_game(env_name).observation_layout.size
    assert f"({size},)" in module.__doc__
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace(f"({size},)", f"({size + 1},)"))
    with pytest.raises(AssertionError, match="documented observation size is wrong"):
        conformance.check_doc_page(env_name)


def test_single_agent_env_names_its_actions_like_the_aec_env(toy):
    env = SingleAgentEnv(toy, opponent=RandomPolicy())
    with pytest.raises(RuntimeError, match="reset"):
        env.action_to_string(0)
    env.reset(seed=2)
    legal = np.flatnonzero(env.action_masks())
    assert [env.action_to_string(int(a)) for a in legal] == [
        env.game_state.action_to_string(int(a)) for a in legal]
    with pytest.raises(TypeError, match="action id"):
        env.action_to_string(1.5)


def _first_illegal(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


def test_single_agent_env_penalty_ends_the_game_with_penalty_returns(toy):
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(illegal_action="penalty"), opponent=RandomPolicy(), learner_seat=0)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(_first_illegal(env.action_masks()))
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["returns"] == [-1.0, 1.0] and info["illegal_action"] is True
    # the rules' standings of an unfinished game are all zeros: who beat whom is the penalty's (README)
    assert info["standings"] == [-1.0, 1.0]
    # the learner is still the engine's mover, but the episode is over: nothing to decide, all True
    assert env.game_state.current_player() == 0
    assert env.action_masks().all() and info["action_mask"].all()


@pytest.mark.parametrize("action", [0.0, True, "0", float("nan"), np.float32(0), np.array([0.0])])
def test_single_agent_env_penalty_for_an_action_that_is_no_action_id_says_illegal_action(toy, action):
    """2.0, True or "0" is no action id: the penalty ends the game, and the info says why, as for an id whose
    mask bit is 0 (the check compared None, the penalty, with None, the action's id, and found them equal)."""
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(illegal_action="penalty"), opponent=RandomPolicy(), learner_seat=0)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(action)
    assert (reward, terminated) == (-1.0, True) and info["illegal_action"] is True


def test_single_agent_env_random_legal_plays_a_legal_action_and_says_so(toy):
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(illegal_action="random_legal"), opponent=RandomPolicy(), learner_seat=0)
    env.reset(seed=0)
    turn = env.game_state.turn
    _, _, _, _, info = env.step(_first_illegal(env.action_masks()))
    assert info["illegal_action"] is True and env.game_state.turn > turn
    _, _, _, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert "illegal_action" not in info


@pytest.mark.parametrize("learner_seat", [0, 1])
def test_single_agent_env_raise_names_the_legal_actions_and_tells_the_learner_to_fix_its_own_move(toy, learner_seat):
    # found by mutation testing: checked as an opponent's move, the learner's illegal move was blamed on "the
    # opponent None (seat 0)", told to fix its act() instead of the caller's action
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(), opponent=RandomPolicy(), learner_seat=learner_seat)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="Legal actions.*Pick an action whose bit in the action mask is 1") as err:
        env.step(_first_illegal(env.action_masks()))
    assert "opponent" not in str(err.value)


def test_single_agent_env_refuses_to_step_before_reset_or_after_the_end(toy):
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(illegal_action="penalty"), opponent=RandomPolicy(), learner_seat=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    env.step(_first_illegal(env.action_masks()))
    with pytest.raises(RuntimeError, match="episode is over"):
        env.step(0)


class OffTheBoard:
    """An opponent whose move is no action of the game."""

    name = "off_the_board"

    def act(self, observation, action_mask, rng):
        return 10**6


def test_single_agent_env_names_an_opponent_whose_move_is_illegal_and_asks_for_a_reset(toy):
    # the message blamed the caller ("Pick an action whose bit ..."), and the learner's next step was then
    # played in the opponent's seat (found by an input audit)
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(), opponent=OffTheBoard(), learner_seat=1)
    with pytest.raises(IllegalActionError, match=r"the opponent off_the_board \(seat 0\) chose an illegal action "
                                                 r"1000000\. .*Its act\(observation, action_mask, rng\) must return"):
        env.reset(seed=0)  # seat 0 moves first
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before step"):
        env.step(0)
    env = SingleAgentEnv(toy_game.raw_env(), opponent=OffTheBoard(), learner_seat=0)
    obs, info = env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="the opponent off_the_board"):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    # nothing for the learner to decide: not seat 1's mask, which in the toy game is seat 1's hand
    assert env.action_masks().all()
    with pytest.raises(RuntimeError, match="seat 1 is to move, not the learner's seat 0: its opponent failed"):
        env.step(int(np.flatnonzero(info["action_mask"])[0]))


class PlaysAMaskedOutAction:
    """An opponent whose move is an action id of the game, but not a legal one."""

    name = "masked_out"

    def act(self, observation, action_mask, rng):
        return int(np.flatnonzero(np.asarray(action_mask) == 0)[0])


def test_single_agent_env_names_an_opponent_whose_move_is_an_action_id_its_mask_forbids(toy):
    # found by mutation testing: an opponent check that looked only at the range of the id passed the suite
    # (the opponent above plays past the last id); a masked-out id then raised the learner's message, which
    # told the caller to fix its own move
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(), opponent=PlaysAMaskedOutAction(), learner_seat=1)
    with pytest.raises(IllegalActionError, match=r"the opponent masked_out \(seat 0\) chose an illegal action"):
        env.reset(seed=0)


def test_single_agent_env_random_legal_replacements_follow_the_reset_seed(toy):
    # found by mutation testing: a learner's replacement drawn from an unseeded generator passed the suite;
    # two runs of the same seeds must play the same games, illegal moves and all
    import toy_game

    def games():
        env = SingleAgentEnv(toy_game.raw_env(illegal_action="random_legal"), opponent=RandomPolicy(),
                             learner_seat=0)
        played = []
        for seed in range(4):
            env.reset(seed=seed)
            done = False
            while not done:
                _, _, terminated, truncated, info = env.step(_first_illegal(env.action_masks()))
                assert info["illegal_action"] is True
                done = terminated or truncated
            played.append(json.dumps(env.game_state.to_dict(), sort_keys=True))
        return played

    assert games() == games()


def test_a_seeded_reset_draws_the_same_opponents_from_the_pool(toy):
    # the class doc: the pool's generator follows from the reset seed, so that seeded training draws the same
    # opponents (found by mutation testing: a pool generator left unseeded passed the suite)
    import toy_game

    pool = [RandomPolicy() for _ in range(8)]

    def draws():
        env = SingleAgentEnv(toy_game.raw_env(), opponent=lambda rng: pool[int(rng.integers(len(pool)))])
        drawn = []
        env.reset(seed=3)
        drawn.append([id(p) for p in pool].index(id(env.episode_opponents[0])))
        for _ in range(5):  # and the episodes after it, reset without a seed
            env.reset()
            drawn.append([id(p) for p in pool].index(id(env.episode_opponents[0])))
        return drawn

    assert draws() == draws()


def test_single_agent_env_pieces_ask_for_a_reset_before_the_first_deal(toy):
    """The step's pieces the vectorised driver calls (training.vec_env) gave a bare "'NoneType' object has no
    attribute" before the first reset, as step() no longer does."""
    import toy_game

    from tabletop_envs.core.policy import RandomPolicy

    env = SingleAgentEnv(toy_game.raw_env())
    calls = {"opponent_to_move": (), "play": (0,), "play_if_forced": (), "outcome": (),
             "play_opponent": (RandomPolicy(), 1, np.random.default_rng(0))}
    for method, args in calls.items():
        with pytest.raises(RuntimeError, match=rf"reset\(\) must be called before {method}\(\)"):
            getattr(env, method)(*args)
    env.reset(seed=0)
    assert env.opponent_to_move() is None  # the learner decides: the pieces work once dealt


def test_single_agent_env_refuses_an_opponent_callable_that_returns_no_policy_and_what_is_no_env(toy):
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(), opponent=lambda rng: "notapolicy")
    with pytest.raises(TypeError, match="returned 'notapolicy', not a policy: it must return an object with act"):
        env.reset(seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)  # it played on from the half-dealt game
    with pytest.raises(ConfigError, match="env must be an env name .* got 3"):
        SingleAgentEnv(3)


@pytest.mark.parametrize("seed, accepted", [(True, False), (-1, False), (1.0, False), (np.int64(3), True), (3, True)])
def test_single_agent_env_takes_the_seeds_the_aec_env_takes(toy, seed, accepted):
    import toy_game

    env, aec = SingleAgentEnv(toy_game.raw_env(), opponent=RandomPolicy()), toy_game.raw_env()
    if accepted:
        env.reset(seed=seed)
        aec.reset(seed=seed)
        return
    for reset in (env.reset, aec.reset):
        with pytest.raises(ConfigError, match="seed must be None .* or a non-negative int"):
            reset(seed=seed)


def test_single_agent_env_action_masks_and_render_before_reset_are_clear_errors(toy):
    # both raised AttributeError: 'NoneType' object has no attribute ... (e.g. envs.call("action_masks")
    # on a vector env not yet reset)
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(), opponent=RandomPolicy(), render_mode="ansi")
    with pytest.raises(RuntimeError, match=r"before action_masks\(\).*call env\.reset"):
        env.action_masks()
    with pytest.raises(RuntimeError, match=r"before render\(\).*call env\.reset"):
        env.render()


def test_single_agent_env_truncates_at_max_turns_with_reward_zero(toy):
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(max_turns=2), opponent=RandomPolicy(), learner_seat=0)
    env.reset(seed=0)
    done, reward = False, None
    while not done:
        _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    assert (terminated, truncated, reward) == (False, True, 0.0)
    assert info["returns"] == [0.0, 0.0] and env.game_state.turn == 2
    # the next episode is not truncated from its deal: found by mutation testing, a deal that kept the flag
    # passed the suite, and every reset after a truncated episode redealt MAX_REDEALS times and gave up
    _, info = env.reset(seed=1)
    assert not env.over and env.game_state.turn == 0 and info["action_mask"].any()


def test_single_agent_env_final_observation_is_the_learners_view_when_truncated_on_its_own_move(toy):
    """max_turns=1: the learner's first move truncates the game with the opponent to move next; the
    last observation (what a learner bootstraps its value from) is still the learner's own view."""
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(max_turns=1), opponent=RandomPolicy(), learner_seat=0)
    env.reset(seed=0)
    obs, reward, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert (terminated, truncated, reward) == (False, True, 0.0)
    assert env.game_state.current_player() == 1
    np.testing.assert_array_equal(obs, env.game_state.observation(0))
    assert not np.array_equal(obs, env.game_state.observation(1))


def test_aec_env_rewards_the_winner_with_plus_one_and_the_loser_with_minus_one(toy):
    import toy_game

    env = toy_game.env()
    winners = set()
    for seed in range(10):
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            total[agent] += reward
            # each seat plays its highest card (or draws): the higher total of played cards wins
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        a, b = (sum(played) for played in env.game_state.played)
        assert total == {"player_0": float(np.sign(a - b)), "player_1": float(np.sign(b - a))}, f"seed {seed}"
        winners.add(int(np.sign(a - b)))
    assert winners >= {-1, 1}, "both seats won a game"


def test_run_cli_ends_a_user_error_in_one_line_with_status_2(capsys):
    from tabletop_envs.core.errors import ConfigError, run_cli

    def bad_recipe(argv):
        raise ConfigError("unknown key 'ppo.total_steps'")

    def unknown_env(argv):
        make_game("nope_v0")

    assert run_cli(bad_recipe) == 2
    assert capsys.readouterr().err == "error: unknown key 'ppo.total_steps'\n"
    assert run_cli(unknown_env) == 2
    assert capsys.readouterr().err.startswith("error: unknown env 'nope_v0'")  # no KeyError quotes around it
    with pytest.raises(KeyError, match="unknown env 'nope_v0'"):  # still a KeyError for callers
        make_game("nope_v0")
    assert run_cli(lambda argv: None) == 0

    def bug(argv):
        return {}["a lookup bug keeps its traceback"]

    with pytest.raises(KeyError):
        run_cli(bug)


def test_run_cli_ends_a_full_disk_in_one_line_and_keeps_the_traceback_of_other_os_errors(capsys):
    # a training run that filled the disk ended on a traceback through torch and SB3
    import errno

    from tabletop_envs.core.errors import run_cli

    def full(argv):
        raise OSError(errno.ENOSPC, "No space left on device")  # as a write to an open file raises it

    def read_only(argv):
        raise OSError(errno.EROFS, "Read-only file system", "runs/t/run.json")

    def bug(argv):
        raise OSError(errno.EBADF, "Bad file descriptor")

    assert run_cli(full) == 2
    assert capsys.readouterr().err == ("error: No space left on device; make room on the disk, or choose another "
                                       "folder, and run the command again\n")
    assert run_cli(read_only) == 2
    assert capsys.readouterr().err == ("error: Read-only file system: runs/t/run.json; choose a folder you can write "
                                       "to, and run the command again\n")
    with pytest.raises(OSError, match="Bad file descriptor"):
        run_cli(bug)


def test_run_cli_ends_a_file_name_too_long_in_one_line_naming_the_fix(capsys):
    # an output.dir, opponent or teacher of 300 letters ended a training command on a traceback
    import errno

    from tabletop_envs.core.errors import run_cli

    def too_long(argv):
        raise OSError(errno.ENAMETOOLONG, "File name too long", "a" * 300)

    assert run_cli(too_long) == 2
    assert capsys.readouterr().err == (f"error: File name too long: {'a' * 300}; give a shorter file or folder name "
                                       "(a name holds at most 255 bytes), and run the command again\n")


def test_run_cli_ends_an_interrupt_in_one_line_with_status_130(capsys):
    from tabletop_envs.core.errors import run_cli

    def stopped(argv):
        raise KeyboardInterrupt

    assert run_cli(stopped) == 130
    assert capsys.readouterr().err == "interrupted\n"


def test_a_command_whose_output_reader_goes_away_goes_on_to_its_end(tmp_path, monkeypatch):
    # `python -m training.train | tee log`, and the tee killed or ended by the same Ctrl-C: the next
    # line printed was a BrokenPipeError that ended the run with nothing saved since its last checkpoint
    import io
    import os
    import sys

    from tabletop_envs.core.errors import run_cli

    streams = []
    for name in ("stdout", "stderr"):
        read, write = os.pipe()
        os.close(read)  # the reader has gone
        streams.append(io.TextIOWrapper(open(write, "wb"), line_buffering=True))
        monkeypatch.setattr(sys, name, streams[-1])

    def run(argv):
        print("[eval] step 512: win rate 0.61", flush=True)
        print("a warning", file=sys.stderr)
        (tmp_path / "summary.json").write_text("{}", encoding="utf-8")
        print("a summary longer than a pipe's buffer " * 10_000)  # left to the flush at exit
        raise KeyboardInterrupt

    assert run_cli(run) == 130
    assert (tmp_path / "summary.json").read_text(encoding="utf-8") == "{}"
    sys.stdout.flush()  # the one at exit: no "Exception ignored ... BrokenPipeError"
    monkeypatch.undo()
    for stream in streams:  # (python -X dev: an unclosed file's ResourceWarning)
        stream.close()


def test_the_masks_handed_out_are_read_only_so_editing_one_cannot_change_the_rules(toy):
    # info["action_mask"] is the engine's cached mask (no copy per move): written to, it would change
    # which moves the engine accepts
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    waiting = next(a for a in env.agents if a != env.agent_selection)
    for mask in (env.infos[env.agent_selection]["action_mask"], env.infos[waiting]["action_mask"],
                 env.unwrapped.game_state.legal_action_mask()):
        with pytest.raises(ValueError, match="read-only"):
            mask[0] = 1 - mask[0]
    observed = env.observe(env.agent_selection)["action_mask"]
    observed[:] = 0  # observe() hands out a copy of its own
    assert env.unwrapped.game_state.legal_action_mask().any()
    observed = env.observe(waiting)["action_mask"]
    observed[:] = 1  # the waiting seat's too, not the one all-zero mask every waiting seat's info holds
    assert not env.observe(waiting)["action_mask"].any() and not env.infos[waiting]["action_mask"].any()


def test_after_truncation_or_a_penalty_no_observation_offers_a_legal_move(toy):
    import toy_game

    env = toy_game.env(max_turns=1)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert all(env.truncations.values())
    for agent in env.agents:
        assert not env.observe(agent)["action_mask"].any() and not env.infos[agent]["action_mask"].any()
    while env.agents:  # nor once they have left the table (the mover of the engine's state included)
        env.step(None)
        assert not any(env.observe(a)["action_mask"].any() for a in env.possible_agents)
    env = toy_game.env(illegal_action="penalty")
    env.reset(seed=0)
    env.step(99)
    assert all(env.terminations.values())
    assert not any(env.observe(a)["action_mask"].any() for a in env.agents)
    while env.agents:
        env.step(None)
        assert not any(env.observe(a)["action_mask"].any() for a in env.possible_agents)


def test_a_penalty_alone_at_the_table_costs_the_mover_one_point():
    from tabletop_envs import earth_v0

    env = earth_v0.env(num_players=1, illegal_action="penalty")
    env.reset(seed=0)
    env.step(10_000)
    assert env.rewards == {"player_0": -1.0} and env.terminations["player_0"]


def test_stepping_after_every_agent_left_and_last_before_reset_are_clear_errors(toy):
    import toy_game

    env = toy_game.env()
    with pytest.raises(RuntimeError, match="reset"):
        env.last()
    env.reset(seed=0)
    while env.agents:
        env.step(None if env.terminations[env.agent_selection] else
                 int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)


@pytest.mark.parametrize("seat", [2, -1, 1.0, True])
def test_a_learner_seat_outside_the_table_is_a_clear_error(toy, seat):
    import toy_game

    with pytest.raises(ValueError, match="learner_seat must be None"):
        SingleAgentEnv(toy_game.raw_env(), learner_seat=seat)


@pytest.mark.parametrize("env_name, kwargs, problem", [
    ("terralore_v0", {"foo": 1}, "has no option foo; its options are: decks, "),
    ("terralore_v0", {"mulligan": "no"}, "mulligan must be True or False"),
    ("terralore_v0", {"opaque_wall": "no"}, "opaque_wall must be True or False"),
    ("earth_v0", {"advanced_draft": "no"}, "advanced_draft must be True or False"),
    ("earth_v0", {"num_players": 3.0}, "Earth is for 1-5 players"),
    ("travel_earth_v0", {"first_player": True}, "first_player must be None"),
    ("travel_earth_v0", {"resting_defender_win": "both"}, "resting_defender_win must be one of"),
    ("terralore_v0", {"max_turns": -5}, "max_turns must be None"),
    ("terralore_v0", {"max_turns": 2.7}, "max_turns must be None"),
    ("terralore_v0", {"max_turns": 0}, "max_turns must be None"),
    ("terralore_v0", {"illegal_action": "ignore"}, "illegal_action must be one of"),
    ("terralore_v0", {"illegal_action": ["raise"]}, "illegal_action must be one of"),
    ("travel_earth_v0", {"render_mode": "video"}, "render_mode must be None or one of"),
])
def test_a_bad_rule_option_is_a_config_error_that_names_it(env_name, kwargs, problem):
    from tabletop_envs.core.aec import AEC_KWARGS
    from tabletop_envs.core.errors import ConfigError

    with pytest.raises(ConfigError, match=problem):
        ENVS[env_name].load_module().env(**kwargs)
    if not set(kwargs) & set(AEC_KWARGS):  # the env's own options: the game never sees them
        with pytest.raises(ConfigError, match=problem):
            make_game(env_name, **kwargs)


@pytest.mark.parametrize("env_name, kwargs, problem", [
    ("terralore_v0", {"deck_out": np.array("empty_deck")}, r"deck_out must be one of \('cannot_draw', 'empty_deck'\)"),
    ("terralore_v0", {"deck_out": np.array(["empty_deck", "x"])}, "deck_out must be one of"),
    ("earth_v0", {"reward": np.array("rank")}, r"reward must be one of \('rank', 'vp_margin'\)"),
    ("earth_v0", {"fauna_side": np.array(["normal", "x"])}, "fauna_side must be 'normal' or 'beginner'"),
    ("terralore_v0", {"render_mode": np.array("ansi")}, "render_mode must be None or one of"),
    ("terralore_v0", {"render_view": np.array("table")}, "render_view must be one of"),
])
def test_a_numpy_array_for_an_option_that_names_a_choice_is_refused_by_name(env_name, kwargs, problem):
    # a 0-d array equal to a choice passed `in` and was kept: state_dict(), a replay's save and a sidecar then
    # failed on "Object of type ndarray is not JSON serializable"; a longer one raised "ambiguous truth value"
    from tabletop_envs.core.errors import ConfigError

    if "render_view" not in kwargs:
        with pytest.raises(ConfigError, match=f"^{problem}.*, got array\\("):
            ENVS[env_name].load_module().env(**kwargs)
    with pytest.raises(ConfigError, match=f"^{problem}.*, got array\\("):
        SingleAgentEnv(env_name, **kwargs)


def test_a_zero_dimensional_array_of_decks_is_a_deck_error_not_a_len_type_error():
    from tabletop_envs.core.errors import DeckError

    with pytest.raises(DeckError, match=r"^decks must be a pair \(one deck per player\), .*; got array\(2\)"):
        ENVS["terralore_v0"].load_module().env(decks=np.array(2))


@pytest.mark.parametrize("decks", [("random",), [], np.array(["random"])])
def test_decks_of_fewer_than_two_are_a_deck_error_asking_for_a_pair(decks):
    from tabletop_envs.core.errors import DeckError

    with pytest.raises(DeckError, match=r"^decks must be a pair \(one deck per player\), "):
        ENVS["terralore_v0"].load_module().env(decks=decks)


@pytest.mark.parametrize("make, problem", [
    # the single-agent env's own keywords were missing from the list, so "opponet" was told only the rules
    (lambda: SingleAgentEnv("terralore_v0", opponet="terralore_v0/heuristic"),
     r"no option opponet; .*\(and this env's opponent, learner_seat, render_view, render_mode, max_turns, "
     r"illegal_action\); did you mean 'opponent' for 'opponet'\?$"),
    (lambda: SingleAgentEnv("earth_v0", learner_set=1),
     r"no option learner_set; .*did you mean 'learner_seat' for 'learner_set'\?$"),
    (lambda: ENVS["terralore_v0"].load_module().env(opaque_wal=False),
     r"no option opaque_wal; .*\(and the env's render_mode, max_turns, illegal_action\); did you mean 'opaque_wall'"),
    (lambda: make_game("earth_v0", num_player=3), r"no option num_player; .*did you mean 'num_players'"),
    (lambda: make_game("terralore_v0", max_turns=5),
     r"no option max_turns; its options are: .*\(and the env's render_mode, max_turns, illegal_action\)$"),
])
def test_a_misspelt_keyword_is_refused_naming_the_nearest_keyword_of_the_face_it_was_given_to(make, problem):
    with pytest.raises(ConfigError, match=problem):
        make()


def test_a_deck_given_as_numpy_ids_is_the_same_deck_as_a_list():
    ids = np.arange(20)
    assert make_game("terralore_v0", decks=(ids, "random")).decks == make_game("terralore_v0",
                                                                                 decks=(ids.tolist(), "random")).decks


def test_an_envs_opponent_draws_are_not_the_next_envs_deal_draws(toy):
    # vec envs are seeded seed, seed + 1, ...: an opponent stream seeded seed + 1 would replay the
    # numbers the next env deals with
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env())
    env.reset(seed=5)
    assert not np.array_equal(env._opp_rng.random(8), np.random.default_rng(6).random(8))


@pytest.mark.parametrize("action", [2.5, "3", True, np.array([0.0])])
def test_an_action_that_is_no_integer_is_illegal_not_rounded(toy, action):
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(action)


@pytest.mark.parametrize("env_name,kwargs", [("terralore_v0", {}), ("travel_earth_v0", {}),
                                             ("earth_v0", {"num_players": 1}), ("earth_v0", {"num_players": 4})])
def test_engine_apply_action_refuses_what_is_no_action_id_and_takes_numpy_integers(env_name, kwargs):
    # State.apply_action took int(action): 0.7 or "0" played action 0, where the env faces and the arena refuse them
    state = make_game(env_name, **kwargs).new_initial_state(0)
    legal = state.legal_actions()[0]
    before = state.to_dict()
    for action in (legal + 0.7, str(legal), np.array([float(legal)])) + ((True,) if legal == 1 else ()):
        with pytest.raises(IllegalActionError, match="not an action id"):
            state.apply_action(action)
        assert state.to_dict() == before
    for kind in (np.int64, lambda a: np.array([a]), lambda a: np.array(a, np.int32)):
        twin = state.clone()
        twin.apply_action(kind(legal))
        done = state.clone()
        done.apply_action(legal)
        assert twin == done


@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0", "earth_v0"])
def test_a_clone_shares_its_game_and_copies_only_the_position(env_name):
    # found by mutation testing: State.clone() deep-copying the game (its rules and card catalogue) along with the
    # position passed the suite, and copied the card catalogue at every clone (search bots clone at each node)
    game = make_game(env_name)
    state = game.new_initial_state(0)
    twin = state.clone()
    assert twin.game is game and twin == state
    twin.apply_action(twin.legal_actions()[0])
    assert twin != state and state == game.new_initial_state(0)


def test_integer_actions_from_numpy_are_accepted(toy):
    import toy_game

    for kind in (np.int64, lambda a: np.array([a]), lambda a: np.array(a, np.int32)):
        env = toy_game.env()
        env.reset(seed=0)
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(kind(legal))
        assert env.unwrapped.game_state.turn == 1


SHAPES = {"terralore_v0": (889, 203), "travel_earth_v0": (838, 449), "earth_v0": (5148, 730)}


@pytest.mark.parametrize("env_name", sorted(SHAPES))
def test_a_heuristic_bot_refuses_another_games_observation_instead_of_picking_an_action(env_name):
    from tabletop_envs import ModelMismatchError, load_policy

    bot = load_policy(f"{env_name}/heuristic")
    rng = np.random.default_rng(0)
    for other, (n_obs, n_actions) in SHAPES.items():
        if other != env_name:
            with pytest.raises(ModelMismatchError, match=f"reads {env_name}'s observations .* another env"):
                bot.act(np.zeros(n_obs, np.float32), np.ones(n_actions, np.int8), rng)


@pytest.mark.parametrize("env_name", sorted(SHAPES))
def test_a_heuristic_bot_refuses_another_games_action_mask_beside_its_own_observation(env_name):
    # found by mutation testing: a check of the observation's width alone passed the suite; the bot then read
    # legal actions out of a mask whose ids mean another game's moves
    from tabletop_envs import ModelMismatchError, load_policy

    bot = load_policy(f"{env_name}/heuristic")
    n_obs, _ = SHAPES[env_name]
    for other, (_, n_actions) in SHAPES.items():
        if other != env_name:
            with pytest.raises(ModelMismatchError, match=rf"action masks .*got shapes \({n_obs},\) and "
                                                         rf"\({n_actions},\): most likely another env's"):
                bot.act(np.zeros(n_obs, np.float32), np.ones(n_actions, np.int8), np.random.default_rng(0))


@pytest.mark.parametrize("policy_id", [f"{name}/{kind}" for name in sorted(SHAPES) for kind in ("heuristic", "random")])
def test_every_game_policy_refuses_a_mask_without_a_legal_action_by_name(policy_id):
    from tabletop_envs import load_policy

    n_obs, n_actions = SHAPES[policy_id.partition("/")[0]]
    with pytest.raises(ValueError, match="the action mask has no legal action"):
        load_policy(policy_id).act(np.zeros(n_obs, np.float32), np.zeros(n_actions, np.int8), np.random.default_rng(0))


def test_load_policy_refuses_loading_options_for_a_policy_that_is_loaded_already():
    # returned unchanged, load_policy(model, deterministic=False) kept playing argmax without a word
    from tabletop_envs import load_policy

    model = load_policy("terralore_v0/ppo")
    with pytest.raises(TypeError, match=r"load_policy options \['deterministic'\] apply when .* 'terralore_v0/ppo' is "
                                        r"loaded already\. Load it from its id or path"):
        load_policy(model, deterministic=False)
    assert model.deterministic  # untouched
    assert load_policy(model, env="terralore_v0") is model  # without options it is handed back, as before


def test_load_policy_for_an_unknown_env_names_the_known_envs():
    from tabletop_envs import UnknownEnvError, load_policy

    with pytest.raises(UnknownEnvError, match="unknown env 'chess_v0'; known: .*terralore_v0"):
        load_policy("terralore_v0/ppo", env="chess_v0")


def test_load_policy_of_what_is_neither_an_id_a_path_nor_a_policy_is_refused_naming_its_type():
    from tabletop_envs import load_policy

    with pytest.raises(TypeError, match="expected a policy id, a model path or an object with act\\(\\); got int"):
        load_policy(3)


def test_a_random_policy_id_of_an_unknown_env_is_refused_naming_the_known_envs():
    # "<env>/random" builds without a registry lookup: an env name misspelt there played a random policy
    from tabletop_envs import TabletopError, load_policy

    with pytest.raises(TabletopError, match=r"unknown env 'terralor_v0' in policy id 'terralor_v0/random'; known: "
                                            r"\['earth_v0', 'terralore_v0', 'travel_earth_v0'\]"):
        load_policy("terralor_v0/random")


@pytest.mark.parametrize("meta, warning", [
    ({"env_id": "terralore_v0", "game_config": {"opaque_wall": False}}, "trained with opaque_wall=False; this env "
                                                                         "has opaque_wall=True"),
    ({"env_id": "chess_v0", "game_config": {}}, None),  # a game not here: nothing to compare
], ids=["other rule options", "a game not here"])
def test_a_policy_with_a_models_metadata_that_takes_no_attributes_is_checked_at_each_load(meta, warning):
    # a frozen dataclass cannot keep the mark of the rules it was checked against: it loads all the same
    import dataclasses
    import warnings

    from tabletop_envs import load_policy
    from tabletop_envs.core.errors import RuleOptionsWarning

    @dataclasses.dataclass(frozen=True)
    class Frozen(RandomPolicy):
        metadata: dict

    policy = Frozen(meta)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert load_policy(policy, game_config={"opaque_wall": True}) is policy
        named = [str(w.message) for w in caught if issubclass(w.category, RuleOptionsWarning)]
        assert len(named) == (warning is not None) and all(warning in m for m in named), named


def test_the_doc_page_command_names_an_unknown_env_in_one_line_and_rewrites_nothing(capsys, monkeypatch):
    from tabletop_envs.core import docs
    from tabletop_envs.core.errors import run_cli

    monkeypatch.setattr(docs, "refresh", lambda name: pytest.fail(f"rewrote {name}'s page"))
    assert run_cli(docs.main, ["terralore_v0", "terralor_v0"]) == 2
    assert capsys.readouterr().err.strip() == ("error: unknown env 'terralor_v0'; known: "
                                               "['earth_v0', 'terralore_v0', 'travel_earth_v0']; did you mean "
                                               "'terralore_v0'?")


#: the documentation page of a new game before its first `python -m tabletop_envs.core.docs`: what it must hold
NEW_PAGE = '''"""Toy -- ``toy_v0``

| | |
|---|---|
| actions | Discrete(0) |
| observation | Dict(``observation``: Box(0,) float32, ``action_mask``: Box(0,) int8) |

Actions
-------

| ids | name | meaning |

Observation
-----------

| indices | name |
"""

from toy_game import ToyGame, env, raw_env  # noqa: F401
'''


def _new_page(toy, monkeypatch, tmp_path):
    """``NEW_PAGE``'s file, registered as toy_v0's env module."""
    import sys

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setitem(sys.modules, "toy_page", None)  # gone again after the test, whoever imported it
    del sys.modules["toy_page"]
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(ENVS, toy, EnvSpec(toy, "toy_page", "test/toy-v0", "test/Toy-v0", (2,), "", "toy"))
    return tmp_path / "toy_page.py"


def test_the_doc_page_command_names_the_rows_and_header_lines_a_page_lacks_in_one_line_and_writes_nothing(
        toy, monkeypatch, tmp_path, capsys):
    # a fourth game's page without the tables failed with "ValueError: substring not found", and one without
    # the summary rows was reported "refreshed" while check_doc_page kept saying to regenerate it
    from tabletop_envs.core import docs
    from tabletop_envs.core.errors import run_cli

    page = _new_page(toy, monkeypatch, tmp_path)
    for lines, says in (({"| ids | name | meaning |"}, "has no '| ids | name | meaning |' line"),
                        ({"| actions | Discrete(0) |"}, "| actions | Discrete(11) |"),
                        ({"| observation | Dict(``observation``: Box(0,) float32, ``action_mask``: Box(0,) int8) |"},
                         "| observation | Dict(``observation``: Box(32,) float32")):
        text = "".join(line for line in NEW_PAGE.splitlines(keepends=True) if line.strip() not in lines)
        page.write_text(text, encoding="utf-8")
        assert run_cli(docs.main, [toy]) == 2
        assert says in capsys.readouterr().err
        assert page.read_text(encoding="utf-8") == text  # nothing half-written


def test_the_doc_page_command_fills_a_page_whose_docstring_ends_with_a_table_and_keeps_the_closing_quotes(
        toy, monkeypatch, tmp_path):
    # a table ran to the next blank line, which after a docstring's last table is the one after its closing
    # quotes: the rewritten env module no longer parsed (SyntaxError: unterminated triple-quoted string)
    import sys

    from tabletop_envs.core import docs

    page = _new_page(toy, monkeypatch, tmp_path)
    page.write_text(NEW_PAGE, encoding="utf-8")
    docs.main([toy])
    assert "``action_mask``: Box(11,) int8" in page.read_text(encoding="utf-8")  # the mask's length rewritten too
    assert page.read_text(encoding="utf-8").endswith('| `turn` | 1 | 0…1 | turn / turns |\n"""\n\n'
                                                     'from toy_game import ToyGame, env, raw_env  # noqa: F401\n')
    del sys.modules["toy_page"]  # the page as rewritten
    conformance.check_doc_page(toy)


def test_the_doc_page_command_rewrites_the_sizes_of_a_summary_row_written_as_travel_earths(toy, monkeypatch,
                                                                                          tmp_path):
    # Travel Earth's page writes its sizes "Box(0, 1, (838,), float32) + ``action_mask`` int8 (449,)"
    import sys

    from tabletop_envs.core import docs

    page = _new_page(toy, monkeypatch, tmp_path)
    row = "| observation | Dict(``observation``: Box(0,) float32, ``action_mask``: Box(0,) int8) |"
    assert row in NEW_PAGE
    travel_earths = "| observation | Box(0, 1, ({}), float32) + ``action_mask`` int8 ({}) |"
    page.write_text(NEW_PAGE.replace(row, travel_earths.format("0,", "0,")), encoding="utf-8")
    docs.main([toy])
    assert travel_earths.format("32,", "11,") in page.read_text(encoding="utf-8")
    del sys.modules["toy_page"]  # the page as rewritten
    conformance.check_doc_page(toy)


def test_the_doc_page_command_replaces_an_outdated_table_whole_and_keeps_one_state_row(toy, monkeypatch, tmp_path):
    # a table is every "|" line from its header: stale rows after the rows it has today must go, and the
    # state() row is rewritten where it is, not written a second time
    import itertools
    import sys

    from tabletop_envs.core import docs

    page = _new_page(toy, monkeypatch, tmp_path)
    outdated = (NEW_PAGE.replace("| ids | name | meaning |\n", "| ids | name | meaning |\n|---|---|---|\n"
                                 "| 0–10 | `play` | play a card |\n| 11–20 | `gone` | removed since |\n")
                .replace("| indices | name |\n", "| indices | name | shape | range | meaning |\n|---|---|---|---|---|\n"
                         "| 0–63 | `old` | 64 | 0…1 | removed since |\n| 64 | `older` | 1 | 0…1 | removed too |\n")
                .replace("int8) |\n", "int8) |\n| state | ``env.state()``: Box(0,) float32, stale |\n"))
    assert outdated.count("removed") == 3 and outdated.count("| state |") == 1
    page.write_text(outdated, encoding="utf-8")
    docs.main([toy])
    text = page.read_text(encoding="utf-8")
    for header, table in zip((docs.ACTION_HEADER, docs.OBSERVATION_HEADER), docs.doc_tables(make_game(toy))):
        lines = text[text.index(header):].splitlines()
        assert "\n".join(itertools.takewhile(lambda line: line.startswith("|"), lines)) == table
    assert text.count("| state |") == 1 and docs.state_row(toy, make_game(toy)) in text
    assert "removed" not in text
    del sys.modules["toy_page"]  # the page as rewritten
    conformance.check_doc_page(toy)


@pytest.mark.parametrize(("name", "meant"), [("terralore_v1", "terralore_v0"), ("terralor_v0", "terralore_v0"),
                                             ("earth", "earth_v0"), ("tabletop_envs/TravelEarth-v0", "travel_earth_v0"),
                                             ("tabletop_envs/terralore-v0", "terralore_v0")])
def test_an_unknown_env_name_suggests_the_near_one_as_an_unknown_option_name_does(name, meant):
    from tabletop_envs import UnknownEnvError
    from tabletop_envs.core.arena import play_match
    from training.evaluate import round_robin

    for call in (lambda: make_game(name), lambda: SingleAgentEnv(name),
                 lambda: play_match(name, ["random", "random"], 2), lambda: round_robin(name, ["random", "random"], 2)):
        with pytest.raises(UnknownEnvError, match=f"unknown env {name!r}; known: .*; did you mean {meant!r}\\?$"):
            call()
    with pytest.raises(UnknownEnvError, match=r"unknown env 'chess_v0'; known: \[[^]]*\]$"):  # nothing near: no guess
        make_game("chess_v0")


@pytest.mark.parametrize("name", [["terralore_v0"], {"env": "terralore_v0"}], ids=["list", "dict"])
def test_an_env_name_that_is_no_string_is_an_unknown_env_not_a_type_error(name):
    # an unhashable name (a list or an object read from a config file) met the registry's dict as
    # "TypeError: unhashable type"
    from tabletop_envs import UnknownEnvError

    with pytest.raises(UnknownEnvError, match=rf"unknown env {re.escape(repr(name))}; known: \[.*terralore_v0"):
        get_spec(name)
    with pytest.raises(UnknownEnvError):
        make_game(name)


@pytest.mark.parametrize(("policy", "env", "meant"), [
    ("terralore_v0/heuristc", None, "'terralore_v0/heuristic'"),
    ("earth_v0/ppo4p", None, "'earth_v0/ppo_4p'"),
    ("terralore_v1/ppo", None, "'terralore_v0/ppo'"),  # another version
    ("heuristic", "travel_earth_v0", "'travel_earth_v0/heuristic'"),  # training.evaluate's short name
    ("random", "earth_v0", "'earth_v0/random'"),
    ("heuristic", None, "'earth_v0/heuristic' or 'terralore_v0/heuristic' or 'travel_earth_v0/heuristic'"),
])
def test_an_unknown_policy_id_suggests_the_id_it_most_likely_meant(policy, env, meant):
    # the message listed every id, and a typo or a short name taken from training.evaluate had to be found in it
    from tabletop_envs import TabletopError, load_policy

    with pytest.raises(TabletopError, match=rf"^no policy registered as {policy!r}\. Did you mean {meant}\? Known ids: "):
        load_policy(policy, env=env)
    if env is not None:  # the env faces and the command line say the same
        with pytest.raises(TabletopError, match=rf"Did you mean {meant}\?"):
            SingleAgentEnv(env, opponent=policy)
    with pytest.raises(TabletopError, match=r"no policy registered as 'zzz'\. Known ids"):  # nothing near: no guess
        load_policy("zzz")


@pytest.mark.parametrize("spec", ["mybot.py", "agents/mybot.py", "agents/MyBot.PY", "mybot:Agent", "pkg.agents:Agent",
                                  "terralore_v0/mybot:Agent"])
def test_a_python_file_or_object_path_given_as_a_policy_says_a_python_policy_plays_from_python(tmp_path, spec):
    # a .py file was read as a model and refused for want of a sidecar, with "re-export it"; module:attr was an
    # unknown id whose nearest match was a shipped model (.PY: a Windows file name, read as a model too)
    from tabletop_envs import TabletopError, load_policy
    from training.evaluate import resolve

    source = tmp_path / spec
    if spec.lower().endswith(".py"):
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("class Agent: ...\n", encoding="utf-8")
        spec = str(source)
    with pytest.raises(TabletopError, match=r"a policy written in Python plays from Python, as the object itself, "
                                            r"e\.g\. training\.evaluate\.round_robin"):
        load_policy(spec)
    with pytest.raises(TabletopError, match="a policy written in Python plays from Python"):
        resolve(spec, "terralore_v0")  # training.evaluate's --policies


@pytest.mark.parametrize("spec, meant", [("earth_v0/ppo:4p", "earth_v0/ppo_4p"), ("terralore_v0/ppo:v2", "terralore_v0/ppo"),
                                         ("terralore_v0/heuristic:2", "terralore_v0/heuristic")])
def test_an_id_mistyped_with_a_colon_is_told_the_id_it_meant_not_that_python_plays_from_python(spec, meant):
    # earth_v0/ppo:4p read as module:attr: "a Python object is not loaded by name", and the nearest id went unsaid
    from tabletop_envs import TabletopError, load_policy

    with pytest.raises(TabletopError, match=rf"no policy registered as '{re.escape(spec)}'\. Did you mean "
                                            rf"'{re.escape(meant)}'\?") as refused:
        load_policy(spec)
    assert "plays from Python" not in str(refused.value)


@pytest.mark.parametrize("name", [None, "", 7])
def test_a_policy_object_whose_name_is_no_text_is_named_by_its_class(name):
    # a name of None or 7 became a null or an int key of the round robin's Elo table
    from tabletop_envs.core.policy import policy_name

    class Mine(RandomPolicy):
        pass

    agent = Mine()
    agent.name = name
    assert policy_name(agent) == "Mine"


def test_a_policy_id_too_long_for_a_file_name_is_an_unknown_id_not_an_os_error():
    # before Python 3.13 Path.is_file() raises "File name too long" for it, which load_policy and evaluate passed on
    from tabletop_envs import TabletopError, load_policy
    from training.evaluate import resolve

    long_id = "terralore_v0/" + "h" * 5000
    with pytest.raises(TabletopError, match=r"^no policy registered as 'terralore_v0/h{5000}'"):
        load_policy(long_id)
    with pytest.raises(TabletopError, match=r"^no policy registered as 'terralore_v0/h{5000}'"):
        resolve("h" * 5000, "terralore_v0")


def test_an_empty_policy_id_is_an_unknown_id_not_the_working_folder():
    # Path("") is ".", a folder: an empty id is named as no policy, not as a folder to find a model in
    from tabletop_envs import TabletopError, load_policy

    with pytest.raises(TabletopError, match=r"^no policy registered as ''\. "):
        load_policy("")


def test_a_model_path_too_long_for_a_file_name_is_no_model_there_not_an_os_error():
    # a name ending in .onnx, .npz or .json goes to the model loader, whose exists() (before Python 3.13) raised
    # OSError "File name too long" from load_policy and an opponent instead of "no model at"
    from tabletop_envs import load_policy

    for path in ("h" * 300 + ".onnx", "runs/" + "h" * 5000 + ".npz", "h" * 300 + ".json"):
        with pytest.raises(FileNotFoundError, match=r"^no model at .*h{300}"):
            load_policy(path, env="terralore_v0")
    with pytest.raises(FileNotFoundError, match=r"^no model at h{300}\.onnx"):
        SingleAgentEnv("terralore_v0", opponent="h" * 300 + ".onnx")


@pytest.mark.parametrize("policy", ["terralore_v0/ppo", "terralore_v0/heuristic"])
@pytest.mark.parametrize("game_config", ["decks", 5, [("mulligan", True)], {1: 2}])
def test_a_game_config_that_is_no_dict_of_options_by_name_is_refused_saying_what_it_takes(policy, game_config):
    # a model's check ended on AttributeError "'str' object has no attribute 'items'" (or "keywords must be
    # strings"), and a bot took it without a word
    from tabletop_envs import load_policy

    with pytest.raises(TypeError, match=r"^game_config must be None or a dict of rule options by name, as "
                                        r"env.game.config\(\) gives; got "):
        load_policy(policy, game_config=game_config)


def test_action_to_string_names_an_action_id_and_refuses_what_is_no_action_id(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=0)
    assert env.action_to_string(np.int64(2)) == env.action_to_string(2)
    for action in (2.5, "2", True):
        with pytest.raises(TypeError, match="takes an action id"):
            env.action_to_string(action)


@pytest.mark.parametrize("env_name,kwargs", [("terralore_v0", {}), ("travel_earth_v0", {}), ("earth_v0", {"num_players": 2})])
def test_engine_action_to_string_refuses_what_is_no_action_id(env_name, kwargs):
    # the layout's decode took int(action): the engine named 2.5 or "2" as action 2, where the env face refuses them
    game = make_game(env_name, **kwargs)
    state = game.new_initial_state(0)
    assert state.action_to_string(np.int64(2)) == state.action_to_string(np.array([2])) == state.action_to_string(2)
    for action in (2.5, "2", True):
        with pytest.raises(TypeError, match="an action id is an int"):
            state.action_to_string(action)
        with pytest.raises(TypeError, match="an action id is an int"):
            game.action_layout.decode(action)
    with pytest.raises(IndexError, match="outside"):
        state.action_to_string(game.num_actions)


@pytest.mark.parametrize("kwargs", [{"max_turns": 3}, {"illegal_action": "penalty"}, {"turns": 2},
                                    {"render_mode": "rgb_array"}])
def test_env_kwargs_given_with_a_ready_aec_env_are_refused_not_dropped(toy, kwargs):
    import toy_game

    key = next(iter(kwargs))
    with pytest.raises(ConfigError, match=f"{key}.*ready env"):
        SingleAgentEnv(toy_game.raw_env(), **kwargs)
    # what the instance was built with is what it plays
    env = SingleAgentEnv(toy_game.raw_env(max_turns=3, illegal_action="penalty", render_mode="ansi"),
                         render_mode="ansi")
    assert (env.max_turns, env.illegal_action) == (3, "penalty")


def test_num_steps_counts_every_seats_decision_and_restarts_at_reset(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=4)
    moves = 0
    while not all(env.terminations.values()):
        assert env.num_steps == moves == env.game_state.turn
        env.step(env.game_state.legal_actions()[0])
        moves += 1
    assert env.num_steps == 6  # the toy game's six turns, both seats counted
    while env.agents:  # dead steps are the agents leaving, no decisions
        env.step(None)
    assert env.num_steps == 6
    env.reset(seed=4)
    assert env.num_steps == 0


def test_after_the_last_move_every_seat_sees_an_all_zero_mask_in_info_and_observe(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=2)
    while not all(env.terminations.values()):
        env.step(env.game_state.legal_actions()[-1])
    for agent in env.possible_agents:
        assert not env.infos[agent]["action_mask"].any(), agent
        assert not env.observe(agent)["action_mask"].any(), agent
    _, _, terminated, _, info = env.last()
    assert terminated and not info["action_mask"].any()


@pytest.mark.parametrize("later_seat", [False, True])
@pytest.mark.parametrize("num_players", [2, 3])
def test_penalty_mode_gives_the_offender_minus_one_and_every_other_seat_its_share_through_last(num_players,
                                                                                              later_seat):
    # later_seat: found by mutation testing, a penalty charged to seat 0 whoever moved passed while seat 0 offended
    from tabletop_envs import earth_v0

    env = earth_v0.env(num_players=num_players, illegal_action="penalty")
    env.reset(seed=1)
    while later_seat and env.agent_selection == "player_0":
        env.step(env.game_state.legal_actions()[0])
    offender = env.agent_selection
    assert (offender != "player_0") == later_seat
    bad = int(np.flatnonzero(env.game_state.legal_action_mask() == 0)[0])
    env.step(bad)
    seen = {}
    while env.agents:  # what each seat is told by last() as it leaves the table
        agent = env.agent_selection
        _, reward, terminated, truncated, info = env.last()
        assert terminated and not truncated and info["illegal_action"] is True
        seen[agent] = reward
        env.step(None)
    share = 1.0 / (num_players - 1)
    assert seen == {a: (-1.0 if a == offender else share) for a in env.possible_agents}
    assert sum(seen.values()) == pytest.approx(0.0)


def test_state_dict_is_the_engine_state_as_json_and_rebuilds_the_same_position(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=3)
    for _ in range(3):
        env.step(env.game_state.legal_actions()[0])
    data = json.loads(json.dumps(env.state_dict()))
    rebuilt = env.game.state_from_dict(data)
    assert rebuilt == env.game_state
    assert rebuilt.observation(0).tolist() == env.game_state.observation(0).tolist()
    assert rebuilt.turn == 3


@pytest.mark.parametrize("broken, fragment", [
    ("no_legal_action", "the action mask has shape (11,) and 0 legal actions"),
    ("seat_1_observation", "seat 1 has no view"),
    ("seat_1_text", "seat 1 has no text"),
])
def test_a_saved_state_an_env_cannot_play_from_is_refused_when_it_loads(toy, monkeypatch, broken, fragment):
    # the last check of a load: whose turn, a mask with a legal move, every seat's observation and text view
    import toy_game

    from tabletop_envs import StateError

    env = toy_game.env()
    env.reset(seed=3)
    env.step(env.game_state.legal_actions()[0])
    data = env.state_dict()
    state = toy_game.ToyState

    def failing_for_seat_1(original, what):
        def method(self, player=None):
            if player == 1:
                raise ValueError(f"seat 1 has no {what}")
            return original(self, player)
        return method

    patches = {"no_legal_action": ("_legal_action_mask", lambda self: np.zeros(self.game.num_actions, np.int8)),
               "seat_1_observation": ("observation", failing_for_seat_1(state.observation, "view")),
               "seat_1_text": ("render_text", failing_for_seat_1(state.render_text, "text"))}
    assert env.game.state_from_dict(data) == env.game_state  # (which also learns the fields' kinds by play)
    monkeypatch.setattr(state, *patches[broken])
    with pytest.raises(StateError, match="cannot be played from") as info:
        env.game.state_from_dict(data)
    assert fragment in str(info.value) and "edited or corrupted" in str(info.value), str(info.value)


@pytest.mark.parametrize("broken, fragment", [
    ("seat", "current_player() is 2, not a seat from 0 to 1"),
    ("turn", "the turn is 1.0, not an int"),
])
def test_a_saved_state_whose_seat_to_move_or_turn_is_none_an_env_takes_is_refused_when_it_loads(toy, monkeypatch,
                                                                                               broken, fragment):
    # the toy game declares no ranges, so an edited seat passes the range check; a game's turn computed as a
    # float fails the env's max_turns count
    import toy_game

    from tabletop_envs import StateError

    env = toy_game.env()
    env.reset(seed=3)
    env.step(env.game_state.legal_actions()[0])
    data = env.state_dict()
    if broken == "seat":
        data["state"]["player"] = 2
    else:
        monkeypatch.setattr(toy_game.ToyState, "turn", property(lambda self: self.turn_no / 1))
    with pytest.raises(StateError, match="cannot be played from") as info:
        env.game.state_from_dict(data)
    assert fragment in str(info.value), str(info.value)


def test_a_state_field_json_cannot_hold_is_refused_when_the_state_is_saved(toy):
    # passed over, the field was saved as null without a word
    import toy_game

    state = toy_game.ToyGame().new_initial_state(seed=3)
    state.seen = {1, 2}
    with pytest.raises(TypeError, match="state field of type set is not JSON-safe; store lists/dicts/ints"):
        state.to_dict()


def test_single_agent_step_info_hands_out_the_learners_mask_of_its_next_decision(toy):
    import toy_game

    env = SingleAgentEnv(toy_game.raw_env(), opponent=RandomPolicy(), learner_seat=1)
    _, info = env.reset(seed=3)
    terminated = False
    while not terminated:
        legal = env.game_state.legal_action_mask().astype(bool)
        assert env.game_state.current_player() == 1
        np.testing.assert_array_equal(info["action_mask"], legal)
        _, _, terminated, _, info = env.step(int(np.flatnonzero(legal)[0]))
    assert info["action_mask"].dtype == bool and info["action_mask"].all()  # nothing to decide: all True


def test_a_policy_id_registers_once_unless_overwritten_and_loads_the_latest_factory(monkeypatch):
    from tabletop_envs.core import policy as policy_module
    from tabletop_envs.core.policy import load_policy, register_policy

    monkeypatch.setattr(policy_module, "_POLICIES", {})
    first, second = RandomPolicy(), RandomPolicy()
    register_policy("toy_v0/fixed", lambda: first)
    assert load_policy("toy_v0/fixed") is first
    with pytest.raises(ValueError, match="already registered"):
        register_policy("toy_v0/fixed", lambda: second)
    assert load_policy("toy_v0/fixed") is first
    register_policy("toy_v0/fixed", lambda: second, overwrite=True)
    assert load_policy("toy_v0/fixed") is second
    with pytest.raises(ValueError, match="must look like"):
        register_policy("fixed", lambda: first)


def test_a_model_path_that_does_not_exist_is_named_as_a_missing_model_not_an_unknown_id(tmp_path):
    from tabletop_envs.core.policy import load_policy

    missing = tmp_path / "terralore" / "ppo.onnx"
    with pytest.raises(FileNotFoundError, match="no model at .*ppo.onnx"):
        load_policy(missing)
    with pytest.raises(FileNotFoundError, match="no model at .*ppo.onnx"):
        load_policy(str(missing), env="terralore_v0")


@pytest.mark.parametrize("spec, hint", [
    # Path() collapsed the scheme's "//" in the hint ("expected https:/example.org/ppo.onnx"); without a suffix
    # the URL was looked up as a policy id
    ("https://example.org/models/ppo.onnx", "it is a URL, and models load from files on this machine"),
    ("hf://someone/terralore-ppo", "it is a URL, and models load from files on this machine"),
    ("terralore_v0/ppo.onnx", "'terralore_v0/ppo' is the id of a shipped model: pass that id, without the suffix"),
    ("earth_v0/ppo_4p.npz", "'earth_v0/ppo_4p' is the id of a shipped model"),
])
def test_a_url_or_a_shipped_id_with_a_suffix_is_told_how_to_load_the_model(spec, hint, tmp_path, monkeypatch):
    from tabletop_envs.core.policy import load_policy

    monkeypatch.chdir(tmp_path)  # where no folder terralore_v0/ holds a file of that name
    with pytest.raises(FileNotFoundError, match=rf"no model at {re.escape(spec)}: {re.escape(hint)}"):
        load_policy(spec)


def test_numpy_scalars_in_a_state_are_stored_as_their_python_values_and_load_back(toy, monkeypatch):
    import toy_game

    from tabletop_envs.core.engine import check_json_roundtrip

    # fields a fresh toy state lacks load back only when its class names them
    monkeypatch.setattr(toy_game.ToyState, "_optional_fields", ("bonus", "ratio", "flags"))
    state = toy_game.ToyGame().new_initial_state(0)
    state.bonus, state.ratio, state.flags = np.int64(7), np.float32(0.5), np.array([1, 0], np.int8)
    data = state.to_dict()["state"]
    assert (data["bonus"], data["ratio"], data["flags"]) == (7, 0.5, [1, 0])
    assert type(data["bonus"]) is int and type(data["ratio"]) is float
    back = check_json_roundtrip(state)
    assert (back.bonus, back.ratio, back.flags) == (7, 0.5, [1, 0]) and back == state


def test_infos_hold_exactly_the_agents_and_only_the_mover_has_a_nonzero_mask(toy):
    import toy_game

    env = toy_game.env()
    env.reset(seed=6)
    while not all(env.terminations.values()):
        assert set(env.infos) == set(env.possible_agents)
        for agent, info in env.infos.items():
            if agent == env.agent_selection:
                np.testing.assert_array_equal(info["action_mask"], env.game_state.legal_action_mask())
            else:
                assert not info["action_mask"].any(), agent
        env.step(env.game_state.legal_actions()[0])
    assert set(env.infos) == set(env.possible_agents)


def test_available_envs_skips_a_game_whose_package_is_missing_but_not_a_game_missing_a_dependency(
        monkeypatch, tmp_path):
    from tabletop_envs.core.registry import available_envs

    shipped = available_envs()
    monkeypatch.setitem(ENVS, "gone_v0", EnvSpec("gone_v0", "tabletop_envs.gone.env", "test/gone-v0", "test/Gone-v0",
                                                 (2,), "", "gone"))
    assert available_envs() == shipped  # a game left out of this install: not listed
    (tmp_path / "needs_a_dependency.py").write_text("import no_such_dependency_of_a_game  # noqa: F401\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(ENVS, "broken_v0", EnvSpec("broken_v0", "needs_a_dependency", "test/broken-v0",
                                                   "test/Broken-v0", (2,), "", "broken"))
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_of_a_game"):
        available_envs()  # a broken install is reported, not hidden


def test_a_game_registered_by_its_registry_line_alone_is_a_pettingzoo_style_attribute_of_the_package(
        toy, monkeypatch, tmp_path):
    # the README's "one line in core/registry.py": `from tabletop_envs import <env>` failed on a
    # ModuleNotFoundError for the tabletop_envs/<env>.py file the three shipped games have beside them
    import toy_game

    import tabletop_envs

    assert tabletop_envs.toy_v0 is toy_game
    from tabletop_envs import toy_v0

    assert toy_v0.env().metadata["name"] == "toy_v0"
    assert tabletop_envs.terralore_v0.__name__ == "tabletop_envs.terralore_v0"  # a shipped entry point stays
    # an env module that fails to import for a reason of its own still says why
    (tmp_path / "needs_a_dependency.py").write_text("import no_such_dependency_of_a_game  # noqa: F401\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(ENVS, "broken_v0", EnvSpec("broken_v0", "needs_a_dependency", "test/broken-v0",
                                                   "test/Broken-v0", (2,), "", "broken"))
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_of_a_game"):
        from tabletop_envs import broken_v0  # noqa: F401


def test_a_games_own_entry_point_that_fails_to_import_a_library_says_so_instead_of_being_passed_over(
        toy, monkeypatch, tmp_path):
    # a tabletop_envs/<env>.py beside its registry line, as the shipped games have: its own missing library is
    # the error, not a reason to hand out the registry's module in its place (toy_game here, which imports)
    import tabletop_envs

    (tmp_path / "toy_v0.py").write_text("import no_such_library_of_this_entry_point  # noqa: F401\n", encoding="utf-8")
    monkeypatch.setattr(tabletop_envs, "__path__", [*tabletop_envs.__path__, str(tmp_path)])
    with pytest.raises(ModuleNotFoundError, match="no_such_library_of_this_entry_point"):
        from tabletop_envs import toy_v0  # noqa: F401


def test_a_star_import_brings_every_game_of_the_registry(toy, monkeypatch):
    # __all__ named the three shipped games, so `from tabletop_envs import *` left out a fourth registered game
    import importlib

    import tabletop_envs

    monkeypatch.setattr(tabletop_envs, "__all__", tabletop_envs.__all__)  # restored after: toy leaves the registry
    importlib.reload(tabletop_envs)  # as a process whose core/registry.py lists the game imports the package
    names: dict = {}
    exec("from tabletop_envs import *", names)
    assert {"toy_v0", "terralore_v0", "travel_earth_v0", "earth_v0"} <= set(names)


def test_the_package_names_only_what_its_all_lists():
    # a helper imported into tabletop_envs/__init__ for its own use (import_if_written) showed up in dir() and
    # in editors' completion as if it were the library's API
    import __future__

    import types

    import tabletop_envs

    own = {name for name, value in vars(tabletop_envs).items()  # not its subpackages or the __future__ import
           if not name.startswith("_") and not isinstance(value, types.ModuleType)
           and value is not __future__.annotations}
    assert own == set(tabletop_envs.__all__) - set(tabletop_envs.ENVS)


def _model_trained_on(game, name: str):
    """A zero-weight MLP whose sidecar facts say it was trained on ``game`` under its options."""
    from tabletop_envs.core.onnx_policy import MLPPolicy

    lay = game.observation_layout
    model = MLPPolicy([(np.zeros((lay.size, game.num_actions)), np.zeros(game.num_actions))], name=name)
    model.metadata = {"env_id": game.env_name, "game_config": game.config(), "observation_layout_hash": lay.hash(),
                      "observation_size": lay.size, "num_actions": game.num_actions,
                      "action_layout_hash": game.action_layout.hash()}
    return model


def test_a_model_is_refused_at_load_where_the_envs_rule_options_give_the_game_other_layouts(toy, monkeypatch):
    # a game may size its layouts by a rule option (Game.layout_config): a model trained under one value was
    # only warned about ("It plays (the observation layout is the same)") and failed at its first move as
    # "most likely a model of another env"
    import warnings

    import toy_game

    from tabletop_envs import ModelMismatchError, load_policy
    from tabletop_envs.core.arena import play_match

    class TurnTrackToy(toy_game.ToyGame):
        def __init__(self, turns: int = 6):
            super().__init__(turns)
            segments = [(s.name, s.shape, s.low, s.high, s.description)
                        for s in self.observation_layout.segments.values()]
            self.observation_layout = ObservationLayout([*segments, ("turn_track", turns, 0, 1, "one per turn")])

    monkeypatch.setattr(toy_game.raw_env, "game_class", TurnTrackToy)
    model = _model_trained_on(make_game(toy, turns=6), "toy model")
    with pytest.raises(ModelMismatchError, match=r"turns=6 in training, 4 here\) give the game other layouts .*"
                                                 r"observation size 38 != 36"):
        load_policy(model, env=toy, game_config={"turns": 4})
    with pytest.raises(ModelMismatchError, match="other layouts"):  # before the first game, not at its first move
        play_match(toy, [model, "toy_v0/random"], 2, game_kwargs={"turns": 4})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_policy(model, env=toy, game_config={"turns": 6}) is model  # its own rules: nothing to say
    # options the caller leaves at their defaults are named with the value the env plays them at
    four = make_game(toy, turns=4)
    short = _model_trained_on(four, "short")
    with pytest.raises(ModelMismatchError, match=r"\(turns=4 in training, 6 here\) give the game other layouts"):
        load_policy(short, env=toy, game_config={})


def test_a_model_refused_for_its_layouts_under_other_rule_options_is_told_only_the_options_that_differ(
        toy, monkeypatch):
    # found by mutation testing: a refusal that listed every option, the ones at the model's own values too,
    # passed the suite (the toy game had a single option)
    import toy_game

    from tabletop_envs import ModelMismatchError, load_policy

    class TwoOptionToy(toy_game.ToyGame):
        def __init__(self, turns: int = 6, colour: str = "red"):
            super().__init__(turns)
            self.colour = colour
            segments = [(s.name, s.shape, s.low, s.high, s.description)
                        for s in self.observation_layout.segments.values()]
            self.observation_layout = ObservationLayout([*segments, ("turn_track", turns, 0, 1, "one per turn")])

        def config(self):
            return {"turns": self.turns, "colour": self.colour}

    monkeypatch.setattr(toy_game.raw_env, "game_class", TwoOptionToy)
    model = _model_trained_on(make_game(toy, turns=6, colour="blue"), "toy model")
    with pytest.raises(ModelMismatchError, match=r"its rule options \(turns=6 in training, 4 here\) give the game "
                                                 "other layouts"):
        load_policy(model, env=toy, game_config={"turns": 4, "colour": "blue"})


def test_the_layout_facts_a_model_is_checked_against_follow_the_game_class_registered_now(toy, monkeypatch):
    # cached by env id and options alone, the facts of the first class built under an id judged every later
    # one: after the test above, 49 export tests of the toy game were refused as "observation size 32 != 38"
    import toy_game

    from tabletop_envs.core.onnx_policy import _layout_facts

    before = _layout_facts(toy, {"turns": 6})

    class WiderToy(toy_game.ToyGame):
        def __init__(self, turns: int = 6):
            super().__init__(turns)
            segments = [(s.name, s.shape, s.low, s.high, s.description)
                        for s in self.observation_layout.segments.values()]
            self.observation_layout = ObservationLayout([*segments, ("extra", 2, 0, 1, "two more")])

    monkeypatch.setattr(toy_game.raw_env, "game_class", WiderToy)
    assert _layout_facts(toy, {"turns": 6})[1] == before[1] + 2
    monkeypatch.undo()
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_game", "test/toy-v0", "test/Toy-v0", (2,), "", "toy"))
    assert _layout_facts(toy, {"turns": 6}) == before


def test_a_truncated_game_selects_the_seat_that_was_to_move_and_every_seat_leaves_with_reward_zero(toy):
    import toy_game

    env = toy_game.env(max_turns=3)
    env.reset(seed=1)
    for _ in range(3):
        env.step(env.game_state.legal_actions()[0])
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.agent_selection == "player_1" == f"player_{env.game_state.current_player()}"
    left = []
    while env.agents:
        _, reward, terminated, truncated, _ = env.last()
        assert (reward, terminated, truncated) == (0.0, False, True)
        left.append(env.agent_selection)
        env.step(None)
    assert sorted(left) == ["player_0", "player_1"]


def test_a_game_whose_last_move_reaches_max_turns_ends_terminated_with_its_result_not_truncated(toy):
    # found by mutation testing: checking max_turns before the end of the game passed the suite in both env
    # faces; the last move of a game finished by the rules on the max_turns-th turn lost its result
    import toy_game

    env = toy_game.env(max_turns=6)  # the toy game's six turns: its last move is also the max_turns-th
    env.reset(seed=2)
    while not (all(env.terminations.values()) or all(env.truncations.values())):
        env.step(env.game_state.legal_actions()[-1])
    assert env.game_state.turn == 6 and env.game_state.is_terminal()
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert sorted(env.rewards.values()) == [-1.0, 1.0]
    single = SingleAgentEnv(toy_game.raw_env(max_turns=6), opponent=RandomPolicy(), learner_seat=0)
    results = set()
    for seed in range(10):
        single.reset(seed=seed)
        done = False
        while not done:
            _, reward, terminated, truncated, info = single.step(int(np.flatnonzero(single.action_masks())[-1]))
            done = terminated or truncated
        assert (terminated, truncated) == (True, False) and single.game_state.turn == 6
        assert reward == info["returns"][0]
        results.add(reward)
    assert results & {1.0, -1.0}  # decided games among them, whose result reached the learner


class _SeatRecorder:
    """Plays the first legal action and records its tag each time it is asked."""

    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def act(self, obs, mask, rng):
        self.log.append(self.tag)
        return int(np.flatnonzero(mask)[0])


class _CountsForcedAsks(RandomPolicy):
    """A random opponent that counts how often it is asked, and how often with a single legal action."""

    def __init__(self):
        self.asked = self.forced = 0

    def act(self, obs, mask, rng):
        self.asked += 1
        self.forced += int(np.count_nonzero(mask) == 1)
        return super().act(obs, mask, rng)


def test_an_opponent_with_a_single_legal_move_is_not_asked_the_env_plays_it():
    spy = _CountsForcedAsks()
    env = SingleAgentEnv("terralore_v0", opponent=spy)
    rng = np.random.default_rng(0)
    for seed in range(20):
        env.reset(seed=seed)
        while not env.over:
            env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert spy.asked > 0
    assert spy.forced == 0  # the opponent was asked for a move the env must play itself


def test_a_list_of_opponents_seats_one_policy_per_other_seat_in_seat_order():
    from tabletop_envs import earth_v0

    log = []
    first, second = _SeatRecorder(log, "first"), _SeatRecorder(log, "second")
    env = SingleAgentEnv(earth_v0.raw_env(num_players=3), opponent=[first, second], learner_seat=1)
    env.reset(seed=0)
    assert env.episode_opponents == [first, second]
    assert env.seat_policies == [first, None, second]
    for _ in range(5):
        if env.over:
            break
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert {"first", "second"} <= set(log)
    with pytest.raises(ValueError, match="1 opponents given for 2 other seats"):
        SingleAgentEnv(earth_v0.raw_env(num_players=3), opponent=[first])


def test_a_callable_opponent_is_a_pool_drawn_anew_for_every_seat_of_every_episode(toy):
    import toy_game

    drawn = []

    def pool(rng):
        policy = RandomPolicy()
        drawn.append(policy)
        return policy

    env = SingleAgentEnv(toy_game.raw_env(), opponent=pool)
    env.reset(seed=0)
    assert env.episode_opponents == drawn[-1:] and len(drawn) == 1
    env.reset(seed=1)
    assert env.episode_opponents == drawn[-1:] and len(drawn) == 2 and drawn[0] is not drawn[1]
    with pytest.raises(TypeError, match="opponent must be a policy, id, list or callable"):
        SingleAgentEnv(toy_game.raw_env(), opponent=3)
    from tabletop_envs import earth_v0  # at four seats: one draw for each of the three opponent seats

    drawn.clear()
    env = SingleAgentEnv(earth_v0.raw_env(num_players=4), opponent=pool)
    env.reset(seed=0)
    assert len(drawn) == 3 and len({id(p) for p in env.episode_opponents}) == 3


def test_reset_gives_up_after_max_redeals_deals_that_all_end_before_the_learner_decides(toy):
    import toy_game

    from tabletop_envs.core.single_agent import MAX_REDEALS, REDEALS_EXHAUSTED

    class Forfeits:  # seat 0 moves first and plays an illegal action: the penalty ends every deal at once
        calls = 0

        def act(self, obs, mask, rng):
            Forfeits.calls += 1
            return _first_illegal(mask)

    env = SingleAgentEnv(toy_game.raw_env(illegal_action="penalty"), opponent=Forfeits(), learner_seat=1)
    with pytest.raises(RuntimeError, match=REDEALS_EXHAUSTED):
        env.reset(seed=0)
    assert Forfeits.calls == MAX_REDEALS


def test_reset_that_max_turns_cuts_off_before_the_learner_moves_names_max_turns(toy):
    # the message blamed the opponents alone, where the limit was the cause (found by an audit)
    import toy_game

    with pytest.raises(RuntimeError, match="deals in a row ended before the learner's first decision; .*max_turns"):
        SingleAgentEnv(toy_game.raw_env(max_turns=1), learner_seat=1).reset(seed=0)


def test_single_agent_text_render_shows_the_learners_view_or_with_render_view_table_the_whole_table():
    learner = SingleAgentEnv("terralore_v0", render_mode="ansi", learner_seat=1)
    learner.reset(seed=0)
    table = SingleAgentEnv("terralore_v0", render_mode="ansi", render_view="table", learner_seat=1)
    table.reset(seed=0)
    assert learner.render() == learner.game_state.render_text(1)
    assert table.render() == table.game_state.render_text(None)
    assert learner.render() != table.render()  # the table shows the hand the learner may not see


def test_a_name_the_package_does_not_have_is_an_attribute_error_as_for_any_module():
    # hasattr() and getattr() with a default rely on it: an env name misspelt read as present
    import tabletop_envs

    name = "chess_v0"
    with pytest.raises(AttributeError, match="module 'tabletop_envs' has no attribute 'chess_v0'"):
        getattr(tabletop_envs, name)
    assert not hasattr(tabletop_envs, name)


def test_render_without_a_render_mode_warns_and_returns_none_in_the_aec_and_the_single_agent_env():
    # Gymnasium's convention: no render_mode, no frame, and a warning naming the fix
    from tabletop_envs import terralore_v0

    aec = terralore_v0.env()
    aec.reset(seed=0)
    single = SingleAgentEnv("terralore_v0")
    single.reset(seed=0)
    for env in (aec, single):
        with pytest.warns(UserWarning, match="render_mode='ansi'"):
            assert env.render() is None


def test_single_agent_env_with_a_ready_env_takes_its_render_mode_and_refuses_an_unknown_one():
    from tabletop_envs import terralore_v0

    single = SingleAgentEnv(terralore_v0.raw_env(render_mode="ansi"), learner_seat=0)
    single.reset(seed=0)
    assert single.render_mode == "ansi" and single.render() == single.game_state.render_text(0)
    for env in ("terralore_v0", terralore_v0.raw_env()):
        with pytest.raises(ConfigError, match="render_mode must be None or one of"):
            SingleAgentEnv(env, render_mode="text")


def test_single_agent_env_with_a_ready_env_refuses_a_numpy_array_render_mode_by_name():
    # the ready env checks no render_mode of the single-agent env's: an array equal to "ansi" was taken as the
    # mode, and one of two names ended on NumPy's "truth value of an array ... is ambiguous"
    from tabletop_envs import terralore_v0

    for mode in (np.array("ansi"), np.array(["ansi", "ansi"])):
        with pytest.raises(ConfigError, match=r"^render_mode must be None or one of \('ansi', .*got array\("):
            SingleAgentEnv(terralore_v0.raw_env(), render_mode=mode)


def test_an_envs_repr_names_the_options_that_differ_from_the_defaults_and_rebuilds_the_same_env():
    from tabletop_envs import earth_v0, terralore_v0

    assert repr(terralore_v0.raw_env()) == "terralore_v0.raw_env()"
    env = terralore_v0.env(opaque_wall=False, max_turns=12, illegal_action="penalty", render_mode="ansi")
    assert repr(env) == ("terralore_v0.raw_env(opaque_wall=False, max_turns=12, illegal_action='penalty', "
                         "render_mode='ansi')")
    assert str(env) == "terralore_v0"  # PettingZoo's own str stays
    for built in (env, earth_v0.raw_env(num_players=3)):
        twin = eval(repr(built), {"terralore_v0": terralore_v0, "earth_v0": earth_v0})
        assert (twin.game_kwargs, twin.max_turns, twin.illegal_action, twin.render_mode) == (
            built.game_kwargs, built.max_turns, built.illegal_action, built.render_mode)


def test_a_counted_deal_draws_every_deal_that_fits_alike_likely_or_in_proportion_to_its_weight():
    # step 0 may take card 0, 1 or 2, step 1 card 0 or 1 (not the card step 0 took). Of the 4 deals, card 2 is
    # first in 2: dealt step by step, each card alike likely, it was first in 1 of 3. A weight counts each deal
    # that many times, and a third step that no card fits is said to be no deal
    from tabletop_envs.core.engine import counted_deal

    fitting = [(0, 1, 2), (0, 1), ()]

    def options(done):
        return [(card, 1) for card in fitting[len(done)] if card not in done]

    rng, n = np.random.default_rng(0), 4000
    deals = [tuple(counted_deal(2, options, rng, "the test cards")) for _ in range(n)]
    assert set(deals) == {(0, 1), (1, 0), (2, 0), (2, 1)}
    assert abs(sum(first == 2 for first, _ in deals) / n - 2 / 4) < 5 * (1 / 4 / n) ** 0.5
    weighted = [tuple(counted_deal(2, options, rng, "the test cards", weight=lambda done: 1 + 5 * (done[0] == 0)))
                for _ in range(n)]
    assert abs(weighted.count((0, 1)) / n - 6 / 9) < 5 * (6 / 9 * 3 / 9 / n) ** 0.5
    # (card, n): a candidate standing for n alike cards counts n times
    doubled = [counted_deal(1, lambda done: [("a", 3), ("b", 1)], rng, "the test cards")[0] for _ in range(n)]
    assert abs(doubled.count("a") / n - 3 / 4) < 5 * (3 / 16 / n) ** 0.5
    with pytest.raises(AssertionError, match="no deal of the test cards fits"):
        counted_deal(3, options, rng, "the test cards")


def test_a_counted_deal_counts_the_alike_cards_a_later_step_stands_for():
    # after "a" the second step may take any of 3 alike cards, after "b" only 1: 3 of the 4 deals begin with "a".
    # Counting a later step's candidates once each, whatever number of cards they stand for, made it 1 in 2
    from tabletop_envs.core.engine import counted_deal

    def options(done):
        if not done:
            return [("a", 1), ("b", 1)]
        return [("x", 3)] if done == ["a"] else [("y", 1)]

    rng, n = np.random.default_rng(0), 4000
    firsts = [counted_deal(2, options, rng, "the test cards")[0] for _ in range(n)]
    assert abs(firsts.count("a") / n - 3 / 4) < 5 * (3 / 16 / n) ** 0.5


def test_a_counted_deal_counts_apart_picks_of_different_lengths_that_one_key_sums_up_alike():
    # picks may repeat a card and the later steps depend on the set of cards picked only, so frozenset sums them
    # up; ["a"] and ["a", "a"] share that key at different steps. After "a" the second step takes "a", "c" or
    # "d", each in 1 of 3 deals: the 3 ways to complete ["a"] counted for ["a", "a"] made it 3 in 5
    from tabletop_envs.core.engine import counted_deal

    def options(done):
        if not done:
            return [("a", 1), ("b", 1)]
        return [("a", 1), ("c", 1), ("d", 1)] if done == ["a"] else [("c", 1)]

    rng, n = np.random.default_rng(0), 4000
    deals = [tuple(counted_deal(2, options, rng, "the test cards", key=frozenset)) for _ in range(n)]
    assert set(deals) == {("a", "a"), ("a", "c"), ("a", "d"), ("b", "c")}
    assert abs(deals.count(("a", "a")) / n - 1 / 4) < 5 * (3 / 16 / n) ** 0.5


def test_a_counted_deal_gives_each_candidate_the_draws_of_its_half_open_share_and_the_last_one_past_rounding():
    # a draw r in [0, 1) picks the candidate whose share [before, before + count) of r * total holds it: r = 1/2
    # of two alike candidates is the second's. Counts past 2**53 are floats: the largest draw of 1000 cards of 1
    # and one card standing for 2**60 is left at 768 after every share (each 1 lost to rounding); it lies in
    # the last share, so the last candidate that fits takes it (not the first, nor one that stands for none)
    from tabletop_envs.core.engine import counted_deal

    class Draw:  # the one call counted_deal makes of its generator, with a chosen value
        def __init__(self, value):
            self.value = value

        def random(self):
            return self.value

    assert counted_deal(1, lambda done: [("a", 1), ("b", 1)], Draw(0.5), "the test cards") == ["b"]
    assert counted_deal(1, lambda done: [("a", 1), ("b", 1)], Draw(0.0), "the test cards") == ["a"]
    many = [(i, 1) for i in range(1000)] + [("big", 2**60), ("none", 0)]
    assert counted_deal(1, lambda done: many, Draw(float(np.nextafter(1.0, 0.0))), "the test cards") == ["big"]


# ------------------------------------------------------------------ API edge cases (an RL researcher's audit)
def test_observing_an_agent_that_is_not_at_the_table_names_the_agents_that_are(toy):
    import toy_game

    from tabletop_envs import TabletopError

    env = toy_game.env()
    env.reset(seed=0)
    for agent in ("player_7", 0, ["player_0"]):  # (a list: unhashable, a TypeError unless caught)
        with pytest.raises(KeyError, match=re.escape(f"no agent {agent!r} at this table; its agents are player_0, "
                                                     "player_1")):
            env.observe(agent)
        with pytest.raises(TabletopError):
            env.observation_space(agent)
        with pytest.raises(TabletopError):
            env.action_space(agent)
    assert env.observe("player_1")["observation"].shape == env.observation_space("player_1")["observation"].shape


def _mid_game_views(env_name, moves=12):
    from tabletop_envs.core.registry import get_spec

    env = get_spec(env_name).load_module().env()
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(moves):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    obs = env.observe(env.agent_selection)
    return obs["observation"], obs["action_mask"]


@pytest.mark.parametrize("policy_id", [f"{name}/{kind}" for name in sorted(SHAPES) for kind in ("heuristic", "random", "ppo")])
def test_every_game_policy_plays_the_same_move_from_lists_as_from_arrays(policy_id):
    from tabletop_envs import load_policy

    observation, mask = _mid_game_views(policy_id.partition("/")[0])
    policy = load_policy(policy_id)
    assert (policy.act(observation.tolist(), mask.tolist(), np.random.default_rng(5))
            == policy.act(observation, mask, np.random.default_rng(5)))


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_a_model_asked_to_act_on_a_batch_says_to_use_act_batch(backend):
    from tabletop_envs.core.onnx_policy import load_model_policy, model_path_for_id

    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    policy = load_model_policy(model_path_for_id("terralore_v0/ppo"), backend=backend)
    observation, mask = _mid_game_views("terralore_v0")
    with pytest.raises(ValueError, match=r"act\(\) takes one observation \(a 1-D vector\), got shape \(1, 889\); for a batch of rows use act_batch"):
        policy.act(observation[None], mask, np.random.default_rng(0))
    assert policy.act_batch(observation[None], mask[None], np.random.default_rng(0))[0] == policy.act(
        observation, mask, np.random.default_rng(0))


def _copy_shipped_model(folder, policy_id="terralore_v0/ppo"):
    import shutil

    from tabletop_envs.core.onnx_policy import model_path_for_id

    folder.mkdir(parents=True, exist_ok=True)
    source = model_path_for_id(policy_id)
    for suffix in (".onnx", ".npz", ".json"):
        if source.with_suffix(suffix).exists():
            shutil.copy(source.with_suffix(suffix), folder)
    return folder


def test_a_model_file_in_a_models_folder_without_its_sidecar_is_named_by_no_policy_id(tmp_path, monkeypatch):
    # TABLETOP_MODELS_DIR/terralore/mine.onnx with no mine.json beside it: "terralore_v0/mine" names no model, and
    # load_policy says no policy is registered as it; with the sidecar beside it, the id names the file
    import shutil

    from tabletop_envs import TabletopError
    from tabletop_envs.core.onnx_policy import model_path_for_id
    from tabletop_envs.core.policy import load_policy

    source = model_path_for_id("terralore_v0/ppo")
    (tmp_path / "terralore").mkdir()
    model = tmp_path / "terralore" / f"mine{source.suffix}"
    shutil.copy(source, model)
    monkeypatch.setenv("TABLETOP_MODELS_DIR", str(tmp_path))
    assert model_path_for_id("terralore_v0/mine") is None
    with pytest.raises(TabletopError, match=r"^no policy registered as 'terralore_v0/mine'"):
        load_policy("terralore_v0/mine")
    shutil.copy(source.with_suffix(".json"), tmp_path / "terralore" / "mine.json")
    assert model_path_for_id("terralore_v0/mine") == model


def test_a_model_path_starting_with_a_tilde_is_read_from_the_home_folder(tmp_path, monkeypatch):
    from pathlib import Path

    from tabletop_envs.core.policy import load_policy

    _copy_shipped_model(tmp_path / "models")
    monkeypatch.setenv("HOME", str(tmp_path))
    for path in ("~/models/ppo.onnx", Path("~/models/ppo.npz")):
        assert load_policy(path, env="terralore_v0").metadata["env_id"] == "terralore_v0"
    env = SingleAgentEnv("terralore_v0", opponent="~/models/ppo.onnx")
    assert env.opponent.metadata["env_id"] == "terralore_v0"


def test_a_model_path_starting_with_a_tilde_of_no_user_is_no_model_there(tmp_path, monkeypatch):
    # a shell leaves ~name of no user as written; pathlib's expanduser() raised RuntimeError "Could not determine
    # home directory" from load_policy, an opponent and evaluate's --policies, naming neither the path nor a fix
    from tabletop_envs import TabletopError, load_policy

    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="no model at ~nosuchuser/m.onnx"):
        load_policy("~nosuchuser/m.onnx")
    with pytest.raises(FileNotFoundError, match="no model at ~nosuchuser/m.onnx"):
        SingleAgentEnv("terralore_v0", opponent="~nosuchuser/m.onnx")
    with pytest.raises(TabletopError, match="no policy registered as '~nosuchuser'"):
        load_policy("~nosuchuser")


def test_an_opponent_given_as_bytes_is_refused_as_itself_not_as_its_first_byte():
    # bytes are a Sequence: each byte was loaded as an opponent, refused as "got int"
    with pytest.raises(TypeError, match=r"^opponent must be a policy, id, list or callable\(rng\)->policy, got "
                                        r"b'terralore_v0/heuristic'$"):
        SingleAgentEnv("terralore_v0", opponent=b"terralore_v0/heuristic")


def test_an_opponent_given_as_a_bytearray_is_refused_as_itself_too():
    # a bytearray is a (mutable) Sequence as bytes are: each byte was loaded as an opponent, refused as "got int"
    with pytest.raises(TypeError, match=r"^opponent must be a policy, id, list or callable\(rng\)->policy, got "
                                        r"bytearray\(b'terralore_v0/heuristic'\)$"):
        SingleAgentEnv("terralore_v0", opponent=bytearray(b"terralore_v0/heuristic"))


def test_a_model_path_of_any_path_type_loads_as_a_path(tmp_path):
    """SingleAgentEnv hands any PurePath opponent to load_policy, which took only str and Path: a
    PurePosixPath (or another os.PathLike) was refused as 'not a policy'."""
    import os
    from pathlib import PurePosixPath

    from tabletop_envs.core.policy import load_policy

    folder = _copy_shipped_model(tmp_path / "models")

    class Fspath(os.PathLike):
        def __fspath__(self):
            return str(folder / "ppo.onnx")

    for path in (PurePosixPath(folder / "ppo.npz"), Fspath()):
        assert load_policy(path, env="terralore_v0").metadata["env_id"] == "terralore_v0"
    env = SingleAgentEnv("terralore_v0", opponent=PurePosixPath(folder / "ppo.onnx"))
    assert env.opponent.metadata["env_id"] == "terralore_v0"
    # set_opponent took PurePath only: another os.PathLike was refused as no policy, id, list or callable
    env.set_opponent(Fspath())
    assert env.opponent.metadata["env_id"] == "terralore_v0"
    env = SingleAgentEnv("terralore_v0", opponent=[Fspath()])
    assert env.opponent[0].metadata["env_id"] == "terralore_v0"


def test_loading_many_model_files_or_one_rewritten_in_place_keeps_a_bounded_number_of_them_in_memory(
        tmp_path, monkeypatch):
    """Loading each checkpoint of a run in turn kept every file's weights for the life of the process
    (3 MB an Earth model; 60 of them took the process from 40 to 218 MB), and a model re-exported in
    place kept each earlier version, whose file is gone."""
    import os

    from tabletop_envs.core import onnx_policy
    from tabletop_envs.core.policy import load_policy

    caches = (onnx_policy._WEIGHTS, onnx_policy._DIGESTS, onnx_policy._GRAPH_ACTIVATIONS)
    saved = [dict(cache) for cache in caches]  # put back below: the shipped models stay cached for other tests
    monkeypatch.setattr(onnx_policy, "FILE_CACHE_SIZE", 3)
    try:
        for i in range(5):
            load_policy(_copy_shipped_model(tmp_path / f"ckpt{i}") / "ppo.onnx", env="terralore_v0")
        assert [len(cache) for cache in caches] == [3, 3, 3]
        assert not any("ckpt0" in key[0] for key in onnx_policy._WEIGHTS)  # the least recently used went first
        model = tmp_path / "ckpt4" / "ppo.onnx"
        for version in range(1, 4):  # the same path exported again: a new modification time each time
            for suffix in (".onnx", ".npz"):
                os.utime(model.with_suffix(suffix), ns=(version * 10**9, version * 10**9))
            policy = load_policy(model, env="terralore_v0")
        assert sum(str(model.parent) in key[0] for key in onnx_policy._WEIGHTS) == 1
        assert policy.act(*_mid_game_views("terralore_v0"), np.random.default_rng(0)) == load_policy(
            "terralore_v0/ppo").act(*_mid_game_views("terralore_v0"), np.random.default_rng(0))
    finally:
        for cache, before in zip(caches, saved):
            cache.clear()
            cache.update(before)


def test_a_model_opponent_under_ever_new_deck_lists_keeps_a_bounded_number_of_rule_option_sets_in_memory(
        monkeypatch):
    """A deck-building loop (an env with a model opponent and new deck lists each time) kept the layout facts
    and the filled-in options of every deck pair for the life of the process, 1.9 kB each."""
    from tabletop_envs.core import onnx_policy
    from tabletop_envs.core.policy import load_policy
    from tabletop_envs.terralore.catalogue import default_catalogue, random_deck

    caches = (onnx_policy._LAYOUTS, onnx_policy._CONFIGS)
    saved = [dict(cache) for cache in caches]
    monkeypatch.setattr(onnx_policy, "CONFIG_CACHE_SIZE", 4)
    rng = np.random.default_rng(0)
    opponent = load_policy("terralore_v0/ppo")
    try:
        for seed in range(10):
            decks = [random_deck(default_catalogue(), rng) for _ in range(2)]
            env = SingleAgentEnv("terralore_v0", opponent=opponent, decks=decks)
            env.reset(seed=seed)
        assert [len(cache) for cache in caches] == [4, 4]
        assert any(json.loads(key[1]).get("decks") == decks for key in onnx_policy._CONFIGS)  # the latest is kept
    finally:
        for cache, before in zip(caches, saved):
            cache.clear()
            cache.update(before)


def test_the_per_file_model_caches_hold_up_under_threads_loading_at_once(monkeypatch):
    """A server that loads bots in several threads: the per-file caches were plain dicts whose eviction
    iterated them, and a thread inserting meanwhile raised 'dictionary changed size during iteration'
    (or a KeyError) in load_policy. Eight threads on one cache, switching every few bytecodes: the old
    code failed in 6-7 of them every time."""

    from tabletop_envs.core import onnx_policy

    monkeypatch.setattr(onnx_policy, "FILE_CACHE_SIZE", 16)
    cache, errors = {}, []

    def load(k):
        try:
            for i in range(20_000):
                key = (f"bot{(i * 7 + k) % 40}.onnx", i % 3, 0)  # (path, mtime, size): 40 files, rewritten
                if onnx_policy.recall(cache, key) is None:
                    onnx_policy._remember(cache, key, i)
        except Exception as exc:  # noqa: BLE001 - the test reports whatever a thread met
            errors.append(repr(exc))

    run_in_threads(load, [(k,) for k in range(8)], switch_interval=1e-6)
    assert not errors, errors[:3]
    assert len(cache) == 16 and len({key[0] for key in cache}) == 16  # bounded, one version of each file


def test_a_recalled_cache_entry_is_evicted_after_the_entries_kept_before_it():
    # least recently used out first, not first in first out: a model played every game stays loaded
    from tabletop_envs.core.cache import keep, recall

    cache = {}
    keep(cache, "a", 1, 2)
    keep(cache, "b", 2, 2)
    assert recall(cache, "a") == 1 and recall(cache, "z") is None
    keep(cache, "c", 3, 2)
    assert cache == {"a": 1, "c": 3}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_process_forked_while_another_thread_holds_the_cache_lock_can_load_models():
    """A fork copies the cache lock as it is: forked while another thread of the parent held it, the child
    waited forever at its first model load for a thread that does not exist there."""
    import threading
    import time
    import warnings

    from tabletop_envs.core import cache

    held = threading.Event()

    def hold():
        with cache.LOCK:
            held.set()
            time.sleep(0.3)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    with warnings.catch_warnings():  # 3.12+: "This process is multi-threaded, use of fork() may lead to deadlocks"
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: exit 0 once the cache answers
        try:
            cache.keep({}, "model", 1, 1)
        except BaseException:  # noqa: BLE001 - whatever it is, the child must not go on running pytest
            os._exit(1)
        os._exit(0)
    thread.join()
    deadline = time.monotonic() + 10
    while not (done := os.waitpid(pid, os.WNOHANG))[0]:
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung on the cache lock")
        time.sleep(0.02)
    assert os.waitstatus_to_exitcode(done[1]) == 0


def _shared_policies():
    """The shipped Terralore model on both backends, drawing its moves (so a generator mix-up shows), and the
    heuristic bot."""
    from tabletop_envs.core.policy import load_policy

    pytest.importorskip("onnxruntime")
    return [load_policy("terralore_v0/ppo", backend=b, deterministic=False) for b in ("numpy", "onnxruntime")] + [
        load_policy("terralore_v0/heuristic")]


def _seeded_results(policies, seeds=range(3)) -> list:
    """(returns, decisions) of a seeded game per seed and policy, the policy in both seats."""
    from tabletop_envs.core.arena import play_game
    from tabletop_envs.core.registry import make_game

    game = make_game("terralore_v0")
    return [(returns.tolist(), decisions) for returns, decisions in
            (play_game(game, [p, p], seed) for p in policies for seed in seeds)]


def test_one_policy_shared_by_threads_plays_each_seeded_game_as_it_does_alone():
    """A server that answers several tables with one loaded bot: each game's moves come from its own
    generator, so the threads may interleave anyhow and every game is the one played alone."""

    from tabletop_envs.core.arena import play_game
    from tabletop_envs.core.registry import make_game

    game = make_game("terralore_v0")
    for policy in _shared_policies():
        alone, together = {}, {}
        for seed in range(6):
            alone[seed] = play_game(game, [policy, policy], seed)

        def play(seed, policy=policy, together=together):
            together[seed] = play_game(game, [policy, policy], seed)

        run_in_threads(play, [(seed,) for seed in range(6)])
        assert {s: (r.tolist(), n) for s, (r, n) in together.items()} == \
               {s: (r.tolist(), n) for s, (r, n) in alone.items()}, policy


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_policies_loaded_and_used_before_a_fork_play_the_same_seeded_games_in_the_child():
    """A server forks its workers after loading its bots (gunicorn's preload, multiprocessing's fork on
    Linux): the child plays the same games, with the parent's weights but an onnxruntime session of its
    own. onnxruntime is not fork-safe: played with the parent's session, a child forked while another
    thread of the parent was inside that session's run hung in its first move (about one fork in 100)."""
    import warnings

    policies = _shared_policies()
    parent = _seeded_results(policies)
    inherited = policies[1]._session
    read, write = os.pipe()
    with warnings.catch_warnings():  # 3.12+ warns of fork where onnxruntime or BLAS started threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        try:
            results = _seeded_results(policies)
            os.write(write, json.dumps([results, policies[1]._session is inherited]).encode())
        except BaseException:  # noqa: BLE001 - whatever it is, the child must not go on running pytest
            os._exit(1)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        child, played_the_parents_session = json.loads(fh.read() or "[null, null]")
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert [tuple(x) for x in child] == parent
    assert played_the_parents_session is False
    assert policies[1]._session is inherited  # the parent keeps its own


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_loaded_policies_sent_to_a_spawned_process_play_the_same_seeded_games(method):
    """Spawn is the default start method on macOS and Windows (forkserver on Linux from Python 3.14): a
    policy reaches the worker pickled, the onnxruntime one reopening its file there."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from tabletop_envs.core.arena import play_game
    from tabletop_envs.core.registry import make_game

    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} here")
    policies = _shared_policies()
    game = make_game("terralore_v0")
    jobs = [(p, seed) for p in policies for seed in range(3)]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(method)) as pool:
        played = list(pool.map(play_game, [game] * len(jobs), [[p, p] for p, _ in jobs], [s for _, s in jobs]))
    assert [(r.tolist(), n) for r, n in played] == _seeded_results(policies)


def test_load_policy_given_a_folder_names_the_models_in_it(tmp_path):
    from tabletop_envs import TabletopError
    from tabletop_envs.core.policy import load_policy

    folder = _copy_shipped_model(tmp_path / "run")
    (folder / "notes.json").write_text("{}", encoding="utf-8")  # a sidecar of no model: not named
    for env in (None, "terralore_v0"):  # with env, as the env faces and the arena load, not "plays , not ..."
        with pytest.raises(TabletopError, match=r"run is a folder, not a model: pass one of its models \(ppo.onnx\)"):
            load_policy(folder, env=env)
        with pytest.raises(TabletopError, match="no policy registered as '.*run/ppo'"):
            load_policy(folder / "ppo", env=env)  # no suffix and no such file: not another env's id
    with pytest.raises(TabletopError, match=r"empty is a folder, not a model; it holds no model"):
        load_policy(str((tmp_path / "empty").mkdir() or tmp_path / "empty"))


def test_a_policy_class_given_instead_of_an_instance_is_refused_at_load_saying_to_make_one():
    from tabletop_envs.core.policy import load_policy

    with pytest.raises(TypeError, match=r"got the class RandomPolicy, not a policy: pass an instance, RandomPolicy\(\)"):
        load_policy(RandomPolicy)
    with pytest.raises(TypeError, match="got the class RandomPolicy"):  # at construction, not at its first move
        SingleAgentEnv("terralore_v0", opponent=RandomPolicy)
    with pytest.raises(TypeError, match="got the class RandomPolicy"):
        SingleAgentEnv("terralore_v0", opponent=[RandomPolicy])


@pytest.mark.parametrize("env_name", sorted(SHAPES))
def test_a_heuristic_bot_asked_to_act_on_a_batch_says_it_takes_one_observation_not_another_envs(env_name):
    from tabletop_envs import load_policy

    observation, mask = _mid_game_views(env_name)
    n_obs, n_actions = SHAPES[env_name]
    with pytest.raises(ValueError, match=rf"act\(\) takes one observation and its mask \(1-D, {n_obs} and {n_actions} "
                                         rf"values\), got shapes \(1, {n_obs}\) and \(1, {n_actions}\): ask it row by row"):
        load_policy(f"{env_name}/heuristic").act(observation[None], mask[None], np.random.default_rng(0))


@pytest.mark.parametrize("kwargs, problem", [
    ({"render_view": "god"}, "render_view must be one of"),
    ({"learner_seat": 2}, "learner_seat must be None"),
    ({"opponent": ["terralore_v0/random"] * 2}, "2 opponents given for 1 other seats: give one per other seat"),
    ({"render_mode": "video"}, "render_mode must be None or one of"),
])
def test_a_bad_single_agent_env_argument_is_a_config_error_like_a_bad_render_mode(kwargs, problem):
    from tabletop_envs import TabletopError

    with pytest.raises(ConfigError, match=problem) as refused:
        SingleAgentEnv("terralore_v0", **kwargs)
    assert isinstance(refused.value, (TabletopError, ValueError))  # the command lines' one-line error, still a ValueError


class _RecordsItsGenerator:
    """Plays randomly and keeps every generator it is handed, to tell whether two policies share one."""

    def __init__(self):
        self.generators = []

    def act(self, obs, mask, rng):
        self.generators.append(rng)
        return RandomPolicy().act(obs, mask, rng)


def _shared(a, b) -> bool:
    return bool({id(g) for g in a.generators} & {id(g) for g in b.generators})


def test_no_two_policies_of_a_match_draw_from_one_generator():
    # sharing one, a policy that drew ahead from it before returning its move chose its opponent's next
    # random numbers: 119 wins of 200 against random instead of 84, whatever the secret seed
    from tabletop_envs.core.arena import play_game, play_match
    from training.evaluate import play_pair

    for run in (lambda a, b: play_match("terralore_v0", [a, b], 2, seed=7),
                lambda a, b: play_pair("terralore_v0", a, b, 2, seed=7),
                lambda a, b: play_game(make_game("terralore_v0"), [a, b], 7)):
        a, b = _RecordsItsGenerator(), _RecordsItsGenerator()
        run(a, b)
        assert a.generators and b.generators and not _shared(a, b)
    a, b, c = (_RecordsItsGenerator() for _ in range(3))  # a 3-seat pair: the filler draws apart too
    play_pair("earth_v0", a, b, 6, seed=7, game_kwargs={"num_players": 3}, filler=c, max_turns=3)
    assert not _shared(a, b) and not _shared(a, c) and not _shared(b, c)


@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0", "earth_v0"])
def test_each_seat_has_its_own_space_objects_so_seeding_one_does_not_move_another(env_name):
    # they were one shared object: seeding player_1's action space re-seeded player_0's samples
    env = ENVS[env_name].load_module().raw_env()
    a, b = env.possible_agents[:2]
    assert env.observation_space(a) == env.observation_space(b) and env.action_space(a) == env.action_space(b)
    env.action_space(a).seed(0)
    expected = [env.action_space(a).sample() for _ in range(5)]
    env.action_space(a).seed(0)
    env.action_space(b).seed(1)
    assert [env.action_space(a).sample() for _ in range(5)] == expected
    env.observation_space(a).seed(0)
    first = env.observation_space(a).sample()["observation"]
    env.observation_space(a).seed(0)
    env.observation_space(b).seed(1)
    assert np.array_equal(env.observation_space(a).sample()["observation"], first)


def test_a_refused_action_leaves_the_rewards_as_they_were(toy):
    # the rewards were cleared before the action was checked; every reward is terminal today, so set one
    import toy_game

    from tabletop_envs.core.errors import IllegalActionError

    env = toy_game.raw_env()
    env.reset(seed=0)
    agent = env.agent_selection
    env._cumulative_rewards[agent], env.rewards[agent] = 0.5, 0.25
    with pytest.raises(IllegalActionError):
        env.step(99)
    assert (env._cumulative_rewards[agent], env.rewards[agent]) == (0.5, 0.25)


class _IllegalMover:
    """Always plays the first action its mask rules out."""

    def act(self, observation, action_mask, rng):
        return int(np.flatnonzero(np.asarray(action_mask) == 0)[0])


@pytest.mark.parametrize("mode", ["penalty", "random_legal"])
def test_an_out_of_range_action_id_falls_under_the_illegal_action_rule_not_an_index_error(mode):
    from tabletop_envs import terralore_v0

    env = terralore_v0.env(illegal_action=mode)
    env.reset(seed=0)
    mover, n = env.agent_selection, env.game.num_actions
    env.step(n)  # one past the last action id
    assert env.infos[mover].get("illegal_action") is True or env._cumulative_rewards[mover] == -1
    if mode == "penalty":
        assert all(env.terminations.values()) and env.rewards[mover] == -1


def test_random_legal_replaces_an_illegal_action_by_a_uniform_draw_not_the_first_legal_one():
    from tabletop_envs import terralore_v0

    ranks = []
    for seed in range(60):
        env = terralore_v0.env(illegal_action="random_legal")
        env.reset(seed=seed)
        state = env.game_state
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        outcomes = []  # the position after each legal move, to tell which one replaced the illegal one
        for action in legal:
            after = state.clone()
            after.apply_action(action)
            outcomes.append(after)
        env.step(int(np.flatnonzero(state.legal_action_mask() == 0)[0]))
        ranks.append(next(i for i, after in enumerate(outcomes) if after == env.game_state))
    # the opening decision has two legal moves: each is played about half the time (seeded, so fixed)
    assert len(ranks) == 60 and set(ranks) == {0, 1} and 15 < ranks.count(0) < 45


@pytest.mark.parametrize("mode", ["penalty", "random_legal"])
def test_an_opponents_illegal_move_in_the_single_agent_env_counts_against_the_opponent_not_the_learner(mode):
    env = SingleAgentEnv("terralore_v0", opponent=_IllegalMover(), learner_seat=0, illegal_action=mode)
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))  # a legal move
    assert "illegal_action" not in info  # the flag marks the learner's own replaced moves only
    if mode == "penalty":
        assert terminated and reward == 1.0 and info["returns"] == [1.0, -1.0]


def test_the_arena_truncates_at_max_turns_exactly_as_the_env_does():
    # arena.py promises the env's results; at '>' instead of '>=' it played a turn past the limit
    from tabletop_envs import terralore_v0
    from tabletop_envs.core.arena import play_game

    class FirstLegal:
        def act(self, observation, action_mask, rng):
            return int(np.flatnonzero(action_mask)[0])

    for seed in range(5):
        env = terralore_v0.env(max_turns=2)
        returns, decisions = play_game(env.game, [FirstLegal()] * 2, seed, max_turns=2)
        env.reset(options={"state": env.game.new_initial_state(seed)})
        moved, seen = 0, {}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                seen[agent] = reward
                env.step(None)
                continue
            env.step(FirstLegal().act(None, obs["action_mask"], None))
            moved += 1
        assert (decisions, returns.tolist()) == (moved, [seen["player_0"], seen["player_1"]])


def test_the_opponent_pools_generator_tells_nothing_of_the_learners_deals():
    # seeded np.random.default_rng(seed) it would be np_random's twin: its first draw is the deal's seed
    drawn, deals = [], []

    def pool(rng):
        drawn.append(int(rng.integers(2**31 - 1)))
        return RandomPolicy()

    env = SingleAgentEnv("terralore_v0", opponent=pool, learner_seat=0)
    reset = env.aec.reset
    env.aec.reset = lambda seed=None, options=None: (deals.append(seed), reset(seed=seed, options=options))[1]
    for seed in range(5):
        env.reset(seed=seed)
    assert len(drawn) == len(deals) >= 5 and not set(drawn) & set(deals)


def test_play_match_refuses_a_one_seat_table_where_every_game_would_count_as_a_win():
    from tabletop_envs.core.arena import play_match

    with pytest.raises(ConfigError, match="has no one to beat.*play_game"):
        play_match("earth_v0", ["earth_v0/random"], 2, game_kwargs={"num_players": 1})


def test_play_match_refuses_a_policy_count_other_than_the_seats_naming_both():
    from tabletop_envs.core.arena import play_match

    with pytest.raises(ValueError, match="earth_v0 with these kwargs has 3 seats; got 2 policies"):
        play_match("earth_v0", ["earth_v0/random"] * 2, 2, game_kwargs={"num_players": 3})


@pytest.mark.parametrize("policy_id", ["terralore_v0/random", "terralore_v0/heuristic", "earth_v0/heuristic",
                                       "travel_earth_v0/heuristic"])
def test_a_loading_option_a_registered_policy_does_not_take_is_refused_naming_the_id(policy_id):
    from tabletop_envs import load_policy

    # the class's own TypeError named a class the user never wrote ("RandomPolicy() takes no arguments")
    with pytest.raises(TypeError, match=f"policy '{policy_id}' takes no option deterministic; its options: "):
        load_policy(policy_id, deterministic=False)


@pytest.mark.parametrize("policy", ["terralore_v0/ppo", Path(__file__).resolve().parents[1] / "models" / "terralore"
                                    / "ppo.onnx"], ids=["id", "path"])
def test_a_loading_option_a_model_does_not_take_is_refused_naming_load_policy_and_its_options(policy):
    from tabletop_envs import load_policy

    # Python's own TypeError named load_model_policy(), a function the user never called
    with pytest.raises(TypeError, match=rf"^load_policy\({re.escape(repr(str(policy)))}\) takes no option determinstic, "
                                        r"foo; a model's options: deterministic, backend, check \(beside env and "
                                        r"game_config\)$"):
        load_policy(policy, foo=1, determinstic=False)


@pytest.mark.parametrize("value", ["false", 2, "yes"])
def test_a_model_loaded_with_a_deterministic_flag_that_is_no_bool_is_refused(value):
    from tabletop_envs import load_policy

    # "false" is truthy: the model played argmax without a word
    with pytest.raises(TypeError, match=rf"deterministic must be True \(argmax\), False \(sample\) or None .* got "
                                        rf"'?{value}'?$"):
        load_policy("terralore_v0/ppo", deterministic=value)
    assert load_policy("terralore_v0/ppo", deterministic=False).deterministic is False


def test_a_match_result_made_with_names_alone_counts_from_zero_for_each():
    # its counts defaulted to None: summary() raised "'NoneType' object is not subscriptable", and a user
    # adding up their own games into one could not start from an empty result
    from tabletop_envs.core.arena import MatchResult

    empty = MatchResult(["a", "b"])
    assert empty.summary() == "a: 0W 0D 0L of 0 (nan% wins)\nb: 0W 0D 0L of 0 (nan% wins)"
    empty.games += 1
    empty.wins[1] += 1
    empty.losses[0] += 1
    empty.total_return += np.array([-1.0, 1.0])
    assert empty.win_rate(1) == 1.0 and empty.win_rate(0) == 0.0
    assert empty.summary().splitlines()[1] == "b: 1W 0D 0L of 1 (100.0% wins)"


@pytest.mark.parametrize(("standings", "drawn"), [([0.0, 0.0], True), ([1.0, -1.0], False), ([0.5, 0.5, 0.5], True),
                                                  ([2.0, 2.0, 1.0], False), ([133.0], False)])
def test_a_game_is_drawn_when_two_or_more_seats_all_stand_equal(standings, drawn):
    from tabletop_envs.core.arena import is_draw

    assert is_draw(standings) is drawn


def test_load_policy_of_another_envs_id_names_it_a_policy_not_an_opponent():
    from tabletop_envs.core.errors import ModelMismatchError
    from tabletop_envs.core.policy import load_policy

    # load_policy serves the policy under test (benchmarks, evaluate) as much as opponents
    with pytest.raises(ModelMismatchError, match=r"^policy 'earth_v0/random' plays earth_v0, not terralore_v0; "
                                                 r"pick one of terralore_v0's policies"):
        load_policy("earth_v0/random", env="terralore_v0")


def _repeat_first_key(path, key: str) -> None:
    """``path``'s first ``"key": v`` written as ``"key": 0, "key": v``: a reader that keeps the last value
    reads the file as it was, so only a check for repeated keys can tell."""
    text = path.read_text(encoding="utf-8")
    assert f'"{key}": ' in text
    path.write_text(text.replace(f'"{key}": ', f'"{key}": 0, "{key}": ', 1), encoding="utf-8")


def _terralore_cards(tmp_path):
    import shutil

    from tabletop_envs.terralore.catalogue import HERE, load_catalogue

    path = tmp_path / "cards.json"
    shutil.copy(HERE / "cards.json", path)
    return path, "points", lambda: load_catalogue(path)


def _travel_earth_cards(tmp_path):
    import shutil

    from tabletop_envs.travel_earth.catalogue import ANIMALS_FILE, Catalogue

    path = tmp_path / "animals.json"
    shutil.copy(ANIMALS_FILE, path)
    return path, "collector_number", lambda: Catalogue(path)


def _earth_cards(tmp_path):
    import shutil

    from tabletop_envs.earth.catalogue import DATA, Catalogue

    for f in DATA.glob("*.json"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path / "fauna.json", "name", lambda: Catalogue(tmp_path)


def _replay(tmp_path):
    from tabletop_envs import terralore_v0
    from tabletop_envs.core.replay import Replay

    env = terralore_v0.env()
    env.reset(seed=3)
    replay = Replay.start(env, seed=3)
    replay.finish(env)
    path = replay.save(tmp_path / "g.json")
    return path, "seed", lambda: Replay.load(path)


def _sidecar(tmp_path):
    from tabletop_envs import load_policy

    _copy_shipped_model(tmp_path)  # ppo.onnx, .npz and .json
    return tmp_path / "ppo.json", "observation_size", lambda: load_policy(str(tmp_path / "ppo.onnx"))


@pytest.mark.parametrize("loader", [_terralore_cards, _travel_earth_cards, _earth_cards, _replay, _sidecar],
                         ids=["terralore_cards", "travel_earth_cards", "earth_cards", "replay", "model_sidecar"])
def test_a_json_file_that_gives_a_key_twice_is_refused_naming_the_key_not_read_with_one_of_them(tmp_path, loader):
    """json.loads keeps a repeated key's last value without a word: a card with "points" written twice played
    with the second, whichever the author meant. Every reader of a file from someone else refuses it."""
    from tabletop_envs.core.errors import TabletopError

    path, key, load = loader(tmp_path)
    load()  # the copy as shipped reads
    _repeat_first_key(path, key)
    with pytest.raises(TabletopError, match=rf"{re.escape(path.name)}.*an object gives the key \"{key}\" twice "
                                            r"\(\{\".*\}\); which one a JSON reader keeps is not defined: delete the "
                                            "one you do not mean"):
        load()


def test_a_game_without_state_class_is_told_how_to_set_it():
    from tabletop_envs.core.engine import Game

    class NoStateGame(Game):
        pass

    with pytest.raises(NotImplementedError, match=r"NoStateGame\.state_class is not set: write "
                                                  r"`NoStateGame\.state_class = "):
        NoStateGame().state_from_dict({})


@pytest.mark.parametrize("policy", ["path", "object"])
def test_play_match_refuses_one_policy_path_or_object_not_in_a_list_saying_so(toy, tmp_path, policy):
    # a Path or a policy object was iterated: "'PosixPath' object is not iterable" said nothing of the fix
    from tabletop_envs.core.arena import play_match
    from tabletop_envs.core.policy import RandomPolicy

    given = tmp_path / "model.pt" if policy == "path" else RandomPolicy()
    with pytest.raises(TypeError, match=r"policies must be a list with one policy per seat"):
        play_match("toy_v0", given, 2)


def test_an_observation_layouts_description_gives_each_segments_start_and_stop_as_its_slice_does():
    obs = ObservationLayout([("a", 3, 0, 1, "first"), ("b", (2, 2), -1, 5, "second")])
    described = obs.describe()
    assert [(d["name"], d["start"], d["stop"], d["shape"]) for d in described] == [("a", 0, 3, [3]),
                                                                                   ("b", 3, 7, [2, 2])]
    assert all(slice(d["start"], d["stop"]) == obs.slices[d["name"]] for d in described)


def test_an_action_segments_range_holds_every_id_of_the_segment_and_no_other():
    act = ActionLayout([("pass", 1, "pass", None), ("play", 4, "play card", None), ("draw", 2, "draw", None)])
    assert [list(act.range(name)) for name in ("pass", "play", "draw")] == [[0], [1, 2, 3, 4], [5, 6]]


@pytest.mark.parametrize("index", [2.5, True, "2", None])
def test_an_action_segments_id_refuses_an_index_that_is_no_int(index):
    # 2.5 gave action id 3.5, True the segment's second action
    act = ActionLayout([("pass", 1, "pass", None), ("play", 4, "play card", None)])
    with pytest.raises(TypeError, match=f"action segment 'play': an index is an int, got {type(index).__name__}"):
        act.id("play", index)
    assert act.id("play", np.int64(2)) == 3 and type(act.id("play", np.int64(2))) is int


def test_an_illegal_action_lists_the_first_twenty_legal_actions_and_counts_the_rest():
    # a mask of hundreds of legal actions made a message of hundreds of ids
    error = IllegalActionError(99, list(range(30)))
    assert "Legal actions: " + ", ".join(map(str, range(20))) + " … and 10 more. Pick" in str(error)
    assert error.legal == list(range(30))
    assert "… and" not in str(IllegalActionError(99, list(range(20))))


def test_an_unknown_agent_reads_as_its_message_without_the_quotes_of_a_key_error(toy):
    import toy_game

    from tabletop_envs.core.errors import UnknownAgentError, cli_message

    env = toy_game.env()
    env.reset(seed=0)
    with pytest.raises(UnknownAgentError) as info:
        env.observe("player_7")
    message = str(info.value)
    assert message.startswith("no agent 'player_7' at this table") and message == cli_message(info.value)


def test_play_game_hands_every_seat_the_one_generator_it_is_given(toy):
    # trusted policies may share one generator: a match of such policies draws from the caller's, not another
    from tabletop_envs.core.arena import play_game

    seen = []

    class Recorder(RandomPolicy):
        def act(self, obs, mask, rng):
            seen.append(rng)
            return super().act(obs, mask, rng)

    shared = np.random.default_rng(7)
    play_game(make_game("toy_v0"), [Recorder(), Recorder()], seed=1, rng=shared)
    assert len(seen) == 6 and all(rng is shared for rng in seen)


def test_a_match_keeps_the_number_of_decisions_of_each_of_its_games(toy):
    # the bot benchmark's mean game length is read from them
    from tabletop_envs.core.arena import play_match

    res = play_match(toy, [RandomPolicy(), RandomPolicy()], 4, seed=1)
    assert res.lengths == [6] * 4  # the toy game is 6 turns of one decision each


@pytest.mark.parametrize("clone", [copy.copy, copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))],
                         ids=["copy", "deepcopy", "pickle"])
def test_an_illegal_action_error_survives_a_copy_and_a_pickle_with_its_message_and_fields(clone):
    # Ray copies and ships errors: rebuilt by __init__ from its message alone, it became a TypeError
    error = IllegalActionError(7, [1, 2], describe=lambda a: f"play {a}", decision="play")
    twin = clone(error)
    assert type(twin) is IllegalActionError and str(twin) == str(error)
    assert (twin.action, twin.legal, twin.reason) == (7, [1, 2], error.reason)


def test_run_cli_ends_malformed_json_and_a_folder_without_permission_in_one_line(capsys):
    # a JSON text given on the command line that does not parse, and a folder the user may not write to, are
    # the user's to fix: a traceback named neither
    import errno

    from tabletop_envs.core.errors import run_cli

    def malformed(argv):
        json.loads('{"lr": 3e-4,}')

    def forbidden(argv):
        raise PermissionError(errno.EACCES, "Permission denied", "runs/t")

    with pytest.raises(json.JSONDecodeError) as parsed:  # its wording differs between Python versions
        malformed([])
    assert run_cli(malformed) == 2
    err = capsys.readouterr().err
    assert err == f"error: {parsed.value}\n"
    assert run_cli(forbidden) == 2
    assert capsys.readouterr().err == ("error: Permission denied: runs/t; check its permissions, or choose "
                                       "another folder, and run the command again\n")


def test_a_command_gives_the_caller_back_its_own_output_streams(capsys):
    # run in a caller's process (a notebook, a script): its sys.stdout stayed the command's wrapper for good
    import sys

    from tabletop_envs.core.errors import run_cli

    before = sys.stdout, sys.stderr
    assert run_cli(lambda argv: print("a line")) == 0
    assert (sys.stdout, sys.stderr) == before and capsys.readouterr().out == "a line\n"


def test_a_command_run_without_a_stdout_prints_nowhere_and_leaves_it_none(monkeypatch):
    # Python sets sys.stdout to None when it starts with no output (`tabletop-envs list >&-`, pythonw), where
    # print() writes nothing: a stream wrapped around None failed at the first line
    import sys

    from tabletop_envs.core.errors import run_cli

    monkeypatch.setattr(sys, "stdout", None)
    assert run_cli(lambda argv: print("a line")) == 0
    assert sys.stdout is None


def test_an_output_that_fails_for_another_reason_than_a_reader_gone_still_fails_the_command(monkeypatch):
    # a full disk under `> log.txt` is no reader gone: its lines lost without a word, the run went on blind
    import errno
    import sys

    from tabletop_envs.core.errors import run_cli

    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    assert run_cli(lambda argv: print("a line")) == 2  # ended in one line, not lost


def test_a_flush_that_fails_for_another_reason_than_a_reader_gone_still_fails_the_command(monkeypatch):
    # a full disk met by the flush alone: taken for a reader gone, the line was dropped without a word
    import errno
    import sys

    from tabletop_envs.core.errors import run_cli

    class FullOnce:
        failed = False

        def write(self, text):
            return len(text)

        def flush(self):
            if not self.failed:
                self.failed = True
                raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sys, "stdout", FullOnce())
    assert run_cli(lambda argv: print("a line", flush=True)) == 2


@pytest.mark.parametrize("encoding, fails", [("no-such-codec", 0), ("cp1252", 2)],
                         ids=["a codec Python does not know", "closed before it is put back"])
def test_an_output_whose_error_handler_cannot_be_changed_or_put_back_leaves_the_command_to_run(monkeypatch,
                                                                                             encoding, fails):
    # printing then fails, or not, as it would have without lenient_stdout: it adds no error of its own
    import sys

    from tabletop_envs.core.errors import lenient_stdout

    class Output:
        errors = "strict"
        calls = []

        def reconfigure(self, errors):
            self.calls.append(errors)
            if len(self.calls) == fails:
                raise ValueError("I/O operation on closed file")

    Output.encoding = encoding
    monkeypatch.setattr(sys, "stdout", Output())
    with lenient_stdout():
        ran = True
    assert ran and Output.calls == ([] if fails == 0 else ["replace", "strict"])


def test_a_buffered_line_whose_reader_went_away_before_the_flush_goes_nowhere(monkeypatch):
    # the write fits the buffer and only the flush meets the closed pipe: flushed again at exit, the
    # same text raised "Exception ignored ... BrokenPipeError"
    import io
    import os
    import sys

    from tabletop_envs.core.errors import run_cli

    read, write = os.pipe()
    os.close(read)
    stream = io.TextIOWrapper(open(write, "wb"))  # no line buffering: the line waits in the buffer
    monkeypatch.setattr(sys, "stdout", stream)

    def run(argv):
        sys.stdout.write("a short line\n")
        sys.stdout.flush()

    assert run_cli(run) == 0
    stream.flush()  # the one at exit: nothing left to write to the pipe
    monkeypatch.undo()
    stream.close()


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_at_every_table_size_only_the_seat_to_move_finds_a_mask_in_its_info(num_players):
    # found by a seat audit: clearing the mask of the seat before the mover's in seat order, not of the seat
    # that moved last, passed at two seats, where the two are the same; Earth's turns do not go round in order
    from tabletop_envs import earth_v0

    env = earth_v0.env(num_players=num_players)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    movers = set()
    while not any(env.terminations.values()):
        mover = env.agent_selection
        movers.add(mover)
        for agent in env.possible_agents:
            expected = env.game_state.legal_action_mask() if agent == mover else np.zeros(env.game.num_actions)
            np.testing.assert_array_equal(env.infos[agent]["action_mask"], expected, err_msg=agent)
        env.step(int(rng.choice(env.game_state.legal_actions())))
    assert movers == set(env.possible_agents)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_at_every_table_size_each_seats_reward_at_the_end_is_its_own_return(num_players):
    # found by a seat audit: rewards handed to the first two seats only passed every two-seat check
    from tabletop_envs import earth_v0

    later_seats_scored = False
    for seed in range(4):
        env = earth_v0.env(num_players=num_players)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        told = {}
        while env.agents:  # what each seat is told by last() as it leaves the table
            agent = env.agent_selection
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                told[agent] = reward
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        returns = env.game_state.returns()
        assert told == {f"player_{seat}": float(returns[seat]) for seat in range(num_players)}
        later_seats_scored |= bool(np.any(returns[2:] != 0))
    assert later_seats_scored  # a seat past the second won or lost something, so its reward was checked


def test_the_learner_is_drawn_into_every_seat_of_a_larger_table():
    # found by a seat audit: a seat drawn from the first two alone passed every two-seat check
    from tabletop_envs import earth_v0

    env = SingleAgentEnv(earth_v0.raw_env(num_players=4))
    seats = {env.reset(seed=seed)[1]["learner_seat"] for seed in range(40)}
    assert seats == {0, 1, 2, 3}


@pytest.mark.parametrize("num_players", [3, 5])
def test_a_learner_seat_past_the_second_can_be_fixed_at_a_larger_table(num_players):
    from tabletop_envs import earth_v0

    last = num_players - 1
    env = SingleAgentEnv(earth_v0.raw_env(num_players=num_players), learner_seat=last)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        assert info["learner_seat"] == env.learner_seat == last
        assert env.game_state.current_player() == last  # the learner decides from that seat


class _SeatsSeen:
    """Picks 2, and records the seat each observation it is shown belongs to (three_seat_game's one-hot)."""

    def __init__(self):
        self.seen = []

    def act(self, obs, mask, rng):
        self.seen.append(int(np.argmax(obs)))
        return 2


@pytest.mark.parametrize("learner_seat", [0, 1, 2])
def test_each_opponent_at_a_larger_table_is_shown_its_own_seats_view(monkeypatch, learner_seat):
    # found by a seat audit: every opponent shown the view of the seat after the learner's passed at two seats
    three_seat_game.register(monkeypatch)
    spy = _SeatsSeen()
    env = SingleAgentEnv(three_seat_game.raw_env(), opponent=spy, learner_seat=learner_seat)
    env.reset(seed=0)
    env.step(1)
    assert env.over
    assert spy.seen == [seat for seat in range(3) if seat != learner_seat]


@pytest.mark.parametrize("learner_seat", [0, 1, 2])
def test_the_learners_reward_at_a_larger_table_is_its_own_seats_return(monkeypatch, learner_seat):
    # found by a seat audit: minus the other seat's return is the learner's own in a two-seat zero-sum game only
    three_seat_game.register(monkeypatch)
    env = SingleAgentEnv(three_seat_game.raw_env(), opponent=_Picks(2), learner_seat=learner_seat)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(1)
    assert terminated and info["returns"] == [1.0 if seat == learner_seat else 2.0 for seat in range(3)]
    assert reward == 1.0


def test_play_match_at_three_seats_seats_every_policy_in_every_seat_of_every_deal(monkeypatch):
    # found by a seat audit: a rotation that only swapped the first two seats, and deals changed every two
    # games, passed at two seats
    from tabletop_envs.core import arena

    three_seat_game.register(monkeypatch)
    played, original = [], arena.play_game_standings

    def spy(game, policies, seed, *args):
        played.append((seed, [p.pick for p in policies]))
        return original(game, policies, seed, *args)

    monkeypatch.setattr(arena, "play_game_standings", spy)
    res = arena.play_match("picks_v0", [_Picks(0), _Picks(1), _Picks(2)], 6, seed=0)
    assert res.games == len(played) == 6
    deals = sorted({seed for seed, _ in played})
    assert len(deals) == 2
    for deal in deals:
        seatings = [picks for seed, picks in played if seed == deal]
        for pick in range(3):  # each policy (named by its pick) sat in every seat of this deal once
            assert sorted(seating.index(pick) for seating in seatings) == [0, 1, 2]


def test_play_match_at_three_seats_hands_each_policy_the_generator_of_its_place_whichever_seat_it_takes(
        monkeypatch):
    # found by a seat audit: the first and third policies drawing from one generator passed at two seats
    from generator_spy import DrawRecorder

    from tabletop_envs.core.arena import play_match
    from tabletop_envs.core.policy import policy_rng

    three_seat_game.register(monkeypatch)
    policies = [DrawRecorder(name) for name in "abc"]
    play_match("picks_v0", policies, 6, seed=7)
    for place, policy in enumerate(policies):
        assert len(policy.draws) == 6  # one pick in each game
        assert policy.draws == policy_rng(7, place).random(len(policy.draws)).tolist()


@pytest.mark.parametrize("learner_seat", [0, 1, 2])
def test_the_illegal_move_penalty_at_a_larger_table_gives_the_learner_minus_one_and_the_others_a_half_each(
        learner_seat):
    # found by a seat audit: the penalty of a two-seat table passed every two-seat check
    from tabletop_envs import earth_v0

    env = SingleAgentEnv(earth_v0.raw_env(num_players=3, illegal_action="penalty"), learner_seat=learner_seat)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    assert terminated and reward == -1.0
    assert info["returns"] == info["standings"] == [-1.0 if seat == learner_seat else 0.5 for seat in range(3)]


def test_a_truncated_episode_at_a_larger_table_reports_zero_returns_for_every_seat():
    # found by a seat audit: the all-zero returns of a two-seat table passed every two-seat check
    from tabletop_envs import earth_v0

    env = SingleAgentEnv(earth_v0.raw_env(num_players=4, max_turns=3), learner_seat=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    truncated = False
    while not truncated:
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        assert not terminated
    assert info["returns"] == info["standings"] == [0.0] * 4


def test_an_illegal_move_at_a_larger_table_names_the_opponent_of_the_seat_that_played_it(monkeypatch):
    # found by a seat audit: naming the first opponent whichever seat moved passed at two seats, where it is
    # the only one
    three_seat_game.register(monkeypatch)
    env = SingleAgentEnv(three_seat_game.raw_env(), opponent=[_Picks(0), OffTheBoard()], learner_seat=0)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=r"the opponent off_the_board \(seat 2\) chose an illegal action"):
        env.step(1)  # seat 1 picks, then seat 2 plays past the last action id
