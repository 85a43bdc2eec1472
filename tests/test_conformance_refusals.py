"""Each check of the conformance harness refuses a game or env broken in the way it guards against.

A check that passes every shipped game proves nothing by itself: a check weakened to pass anything passes them
too. So each one is fed here a toy game (tests/toy_game.py, tests/pile_game.py) broken in one place, and must
refuse it, naming the fault.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.core import conformance
from tabletop_envs.core.aec import TabletopAECEnv


def test_random_games_check_names_a_decision_with_no_legal_action(toy, monkeypatch):
    import toy_game

    mask = toy_game.ToyState._legal_action_mask
    monkeypatch.setattr(toy_game.ToyState, "_legal_action_mask",
                        lambda self: mask(self) * 0 if self.turn_no == 3 else mask(self))
    # without the check the playout fails inside NumPy (rng.integers(0)), naming neither step nor seat
    with pytest.raises(AssertionError, match="no legal action at step 3 for player 1"):
        conformance.check_random_games(toy, {}, num_games=1)


class _EndlessState:
    """A game that never ends: every decision has a legal move and none ends it."""

    def __init__(self, limit: int):
        self.moves, self.limit = 0, limit

    def is_terminal(self):
        return False

    def current_player(self):
        return 0

    def legal_action_mask(self):
        return np.ones(2, np.int8)

    def apply_action(self, action):
        self.moves += 1
        if self.moves > self.limit:  # a playout without its limit would run forever: fail instead of hanging
            raise RuntimeError("the playout went on past its limit")


def test_random_playout_stops_a_game_that_never_ends_at_its_limit():
    with pytest.raises(AssertionError, match="game did not end within 20 decisions"):
        conformance.random_playout(_EndlessState(limit=1000), np.random.default_rng(0), max_steps=20)


def _all_zero_observations(monkeypatch):
    import toy_game

    monkeypatch.setattr(toy_game.ToyState, "observation", lambda self, p: self.game.observation_layout.new())


def test_api_check_refuses_an_env_on_a_pettingzoo_warning_it_does_not_allow(toy, monkeypatch):
    _all_zero_observations(monkeypatch)
    with pytest.raises(AssertionError, match=r"api_test warnings for toy_v0 \{\}: .*all zeros"):
        conformance.check_api(toy, {})


def test_parallel_check_refuses_an_env_that_warns_while_it_plays(toy, monkeypatch):
    import warnings

    original = TabletopAECEnv.step

    def warning_step(self, action):
        warnings.warn("a step that warns", UserWarning, stacklevel=2)
        original(self, action)

    monkeypatch.setattr(TabletopAECEnv, "step", warning_step)
    with pytest.raises(AssertionError, match=r"parallel_api_test warnings for toy_v0 \{\}: \['a step that warns'"):
        conformance.check_parallel(toy, {})


def test_parallel_check_refuses_a_state_outside_the_state_space(toy, monkeypatch):
    original = TabletopAECEnv.__init__

    def narrow(self, *args, **kwargs):
        from gymnasium import spaces

        original(self, *args, **kwargs)
        # a bound the observations cross (cards played lie at 1): PettingZoo's own test does not look
        self.state_space = spaces.Box(0.0, 0.5, self.state_space.shape, np.float32)

    monkeypatch.setattr(TabletopAECEnv, "__init__", narrow)
    with pytest.raises(AssertionError, match="the parallel env's state\\(\\) is outside its state_space"):
        conformance.check_parallel(toy, {})


def test_seed_independence_check_refuses_a_game_that_deals_from_the_global_generator(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.__init__

    def dealt_from_global(self, game, seed):
        original(self, game, seed)
        np.random.random()  # reads and moves the user's np.random, even though the deal ignores the draw

    monkeypatch.setattr(toy_game.ToyState, "__init__", dealt_from_global)
    with pytest.raises(AssertionError, match="read or moved the global generators"):
        conformance.check_seed_independence(toy, {})


def test_seed_independence_check_refuses_a_seed_that_deals_another_game_in_a_second_env(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyGame.__init__
    made = []

    def numbered(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)
        self.number = len(made)

    def dealt_by_game_number(self, seed=None):
        return toy_game.ToyState(self, None if seed is None else seed + self.number)

    monkeypatch.setattr(toy_game.ToyGame, "__init__", numbered)
    monkeypatch.setattr(toy_game.ToyGame, "new_initial_state", dealt_by_game_number)
    with pytest.raises(AssertionError, match="seed 7 dealt the AEC env another game after other games, in another env"):
        conformance.check_seed_independence(toy, {})


def test_seed_independence_check_refuses_a_game_without_chance_whose_unseeded_reset_deals_another_game(
        pile, monkeypatch):
    # a seeded reset always deals the same pile, but an unseeded one another: it has chance after all
    original = TabletopAECEnv.reset

    def unseeded_differs(self, seed=None, options=None):
        original(self, seed, options)
        if seed is None:
            self.game_state.pile -= 1
            self.game_state._mask_cache = None
            self._after_move(self.game_state)

    monkeypatch.setattr(TabletopAECEnv, "reset", unseeded_differs)
    with pytest.raises(AssertionError, match="a game declaring chance = False dealt the AEC env another game"):
        conformance.check_seed_independence(pile, {})


def test_seed_independence_check_refuses_unseeded_resets_that_all_deal_one_game(toy, monkeypatch):
    # each unseeded reset deals the game of seed 0: never the seeded game before, yet always the same one
    original = TabletopAECEnv.reset

    def unseeded_is_seed_0(self, seed=None, options=None):
        original(self, 0 if seed is None else seed, options)

    monkeypatch.setattr(TabletopAECEnv, "reset", unseeded_is_seed_0)
    with pytest.raises(AssertionError, match="an unseeded reset of the AEC env dealt the game before it again"):
        conformance.check_seed_independence(toy, {})


def _unpickled_as(monkeypatch, change):
    """Every env unpickled is changed by ``change(env)`` (an env whose pickling loses something)."""
    def __setstate__(self, state):
        self.__dict__.update(state)
        change(self)

    monkeypatch.setattr(TabletopAECEnv, "__setstate__", __setstate__, raising=False)


def test_pickle_check_refuses_a_copy_that_moves_another_agent(toy, monkeypatch):
    def other_agent(env):
        env.agent_selection = next(a for a in env.agents if a != env.agent_selection)

    _unpickled_as(monkeypatch, other_agent)
    with pytest.raises(AssertionError, match="the unpickled copy moves player_\\d, the original player_\\d"):
        conformance.check_pickle(toy, {}, steps=6)  # pickled after 3 of its 6 turns


def test_pickle_check_pickles_a_game_shorter_than_its_steps_halfway_not_at_its_end(toy, monkeypatch):
    # the toy game ends after 6 turns, before the default 20 moves: pickled at its end, the copy was
    # compared over no move, and one that moves another agent passed
    def other_agent(env):
        env.agent_selection = next(a for a in env.agents if a != env.agent_selection)

    _unpickled_as(monkeypatch, other_agent)
    with pytest.raises(AssertionError, match="the unpickled copy moves player_\\d, the original player_\\d"):
        conformance.check_pickle(toy, {})


def test_pickle_check_refuses_a_copy_that_loses_the_cards_played_so_far(toy, monkeypatch):
    # lost only mid-game (at the deal nothing has been played): the check must pickle a game under way
    def forget_played(env):
        env.game_state.played = [[], []]

    _unpickled_as(monkeypatch, forget_played)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        conformance.check_pickle(toy, {}, steps=6)  # pickled after 3 of its 6 turns


def test_pickle_check_refuses_a_copy_whose_hidden_state_differs(toy, monkeypatch):
    # nothing either seat sees: only the final comparison of the game states finds it
    from tabletop_envs.core import new_rng

    def other_generator(env):
        env.game_state.rng = new_rng(12345)

    _unpickled_as(monkeypatch, other_generator)
    with pytest.raises(AssertionError, match="the unpickled copy's game state differs after the same moves"):
        conformance.check_pickle(toy, {}, steps=6)  # pickled after 3 of its 6 turns


def test_global_state_check_refuses_a_state_before_reset_that_returns(toy, monkeypatch):
    original = TabletopAECEnv.state

    def zeros_before_reset(self):
        if self.game_state is None:
            return np.zeros(self.state_space.shape, np.float32)
        return original(self)

    monkeypatch.setattr(TabletopAECEnv, "state", zeros_before_reset)
    with pytest.raises(AssertionError, match="state\\(\\) before reset\\(\\) returned instead of asking for a reset"):
        conformance.check_global_state(toy, {})


def test_global_state_check_refuses_a_state_before_reset_whose_error_does_not_ask_for_a_reset(toy, monkeypatch):
    original = TabletopAECEnv.state

    def unhelpful_before_reset(self):
        if self.game_state is None:
            raise RuntimeError("no game")
        return original(self)

    monkeypatch.setattr(TabletopAECEnv, "state", unhelpful_before_reset)
    with pytest.raises(AssertionError, match="state\\(\\) before reset\\(\\) raised without asking for a reset: no game"):
        conformance.check_global_state(toy, {})


def test_global_state_check_refuses_a_state_that_is_not_float32(toy, monkeypatch):
    # float16 fits the float32 state_space (Box.contains casts it) and PettingZoo's state test says nothing
    original = TabletopAECEnv.state
    monkeypatch.setattr(TabletopAECEnv, "state", lambda self: original(self).astype(np.float16))
    with pytest.raises(AssertionError, match="state\\(\\) is not float32 inside state_space"):
        conformance.check_global_state(toy, {})


def test_clone_check_refuses_a_clone_that_differs(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.clone

    def reordering_clone(self):
        twin = original(self)
        twin.deck = twin.deck[::-1]
        return twin

    monkeypatch.setattr(toy_game.ToyState, "clone", reordering_clone)
    with pytest.raises(AssertionError, match=r"clone differs at step 0 \(seed 0\)"):
        conformance.check_clone_and_dict(toy, {}, seeds=range(1))


def _restored_as(monkeypatch, restore, transient=()):
    """``restore(state)`` runs on each state from_dict() builds; ``transient`` are attributes to_dict() leaves out."""
    import toy_game

    monkeypatch.setattr(toy_game.ToyState, "_restore_transient", restore)
    monkeypatch.setattr(toy_game.ToyState, "_transient", (*toy_game.ToyState._transient, *transient))


def test_clone_check_refuses_a_state_that_from_dict_restores_otherwise(toy, monkeypatch):
    from tabletop_envs.core import new_rng

    _restored_as(monkeypatch, lambda state: setattr(state, "rng", new_rng(12345)))
    with pytest.raises(AssertionError, match=r"to_dict/from_dict differs at step 0 \(seed 0\)"):
        conformance.check_clone_and_dict(toy, {}, seeds=range(1))


def test_clone_check_refuses_a_restored_state_whose_mask_differs(toy, monkeypatch):
    # the mask is cached outside to_dict(): a restored state equal to the original can still offer other moves
    def everything_legal(state):
        state._mask_cache = np.ones(state.game.num_actions, np.int8)

    _restored_as(monkeypatch, everything_legal)
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        conformance.check_clone_and_dict(toy, {}, seeds=range(1))


def test_clone_check_refuses_a_restored_state_whose_observation_differs(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.observation

    def observation(self, player):
        obs = original(self, player)
        if getattr(self, "_restored", False):
            obs[-1] = 0.5
        return obs

    monkeypatch.setattr(toy_game.ToyState, "observation", observation)
    _restored_as(monkeypatch, lambda state: setattr(state, "_restored", True), transient=("_restored",))
    with pytest.raises(AssertionError, match="Arrays are not equal"):
        conformance.check_clone_and_dict(toy, {}, seeds=range(1))


def test_clone_check_refuses_a_restored_state_that_plays_on_otherwise(toy, monkeypatch):
    # equal, same mask and views, until its first move: only the comparison after a move finds it
    import toy_game

    original = toy_game.ToyState._apply_action

    def apply(self, action):
        original(self, action)
        if getattr(self, "_restored", False):
            self.turn_no += 1

    monkeypatch.setattr(toy_game.ToyState, "_apply_action", apply)
    _restored_as(monkeypatch, lambda state: setattr(state, "_restored", True), transient=("_restored",))
    with pytest.raises(AssertionError, match=r"copies diverged after step 0 \(seed 0\)"):
        conformance.check_clone_and_dict(toy, {}, seeds=range(1))


def test_clone_check_refuses_a_game_whose_seed_deals_another_state_the_second_time(toy, monkeypatch):
    # the same cards each time (the moves replay), but another generator: a deal that is no function of its seed
    import toy_game

    from tabletop_envs.core import new_rng

    original = toy_game.ToyGame.new_initial_state
    deals = []

    def counted_deal(self, seed=None):
        state = original(self, seed)
        deals.append(seed)
        state.rng = new_rng(len(deals))
        return state

    monkeypatch.setattr(toy_game.ToyGame, "new_initial_state", counted_deal)
    with pytest.raises(AssertionError, match=r"same seed and actions gave another state \(seed 0\)"):
        conformance.check_clone_and_dict(toy, {}, seeds=range(1))


def test_clone_check_compares_copies_past_the_first_steps(pile, monkeypatch):
    # a clone that goes wrong late in a game only: the copies are checked every few steps, not at the deal only
    import pile_game

    original = pile_game.PileState.clone

    def late_forgetful_clone(self):
        twin = original(self)
        if self.turn_no >= 7:
            twin.player = 1 - twin.player
        return twin

    monkeypatch.setattr(pile_game.PileState, "clone", late_forgetful_clone)
    with pytest.raises(AssertionError, match=r"clone differs at step 7"):
        conformance.check_clone_and_dict(pile, {})


def test_random_games_check_refuses_a_decision_the_game_does_not_list(pile, monkeypatch):
    import pile_game

    monkeypatch.setattr(pile_game.PileState, "decision", lambda self: "grab")
    with pytest.raises(AssertionError, match=r"game 0: pending decision 'grab' is not one of the game's decisions "
                                             r"\('take',\)"):
        conformance.check_random_games(pile, {}, num_games=1)


def test_random_games_check_checks_the_invariants_at_every_decision(toy, monkeypatch):
    # broken mid-game only: the invariants at the end hold
    import toy_game

    from tabletop_envs.core.engine import invariant

    original = toy_game.ToyState.check_invariants

    def broken_at_turn_3(self):
        invariant(self.turn_no != 3, "broken at turn 3")
        original(self)

    monkeypatch.setattr(toy_game.ToyState, "check_invariants", broken_at_turn_3)
    with pytest.raises(AssertionError, match="broken at turn 3"):
        conformance.check_random_games(toy, {}, num_games=1)


def test_random_games_check_refuses_an_observation_that_is_not_float32(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.observation
    monkeypatch.setattr(toy_game.ToyState, "observation", lambda self, p: original(self, p).astype(np.float64))
    with pytest.raises(AssertionError, match=r"game 0: observation is float64 \(32,\), not float32 \(32,\)"):
        conformance.check_random_games(toy, {}, num_games=1)


def test_random_games_check_refuses_returns_that_are_not_one_per_player(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.returns
    monkeypatch.setattr(toy_game.ToyState, "returns", lambda self: np.append(original(self), 0.0))
    with pytest.raises(AssertionError, match=r"game 0: returns have shape \(3,\), not \(2,\)"):
        conformance.check_random_games(toy, {}, num_games=1)


def test_max_turns_check_refuses_an_env_that_truncates_after_max_turns(toy, monkeypatch):
    original = TabletopAECEnv.__init__

    def late(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.max_turns += 2  # truncates at turn 5 of the toy's 6

    monkeypatch.setattr(TabletopAECEnv, "__init__", late)
    with pytest.raises(AssertionError, match=r"max_turns=3 let the game go on to a decision at turn 3"):
        conformance.check_max_turns(toy, {})


@pytest.mark.parametrize("env_name", ["toy", "terralore_v0"])
def test_max_turns_check_refuses_an_env_that_ignores_max_turns(toy, monkeypatch, env_name):
    # every game then plays to its natural end, which is terminal: checked only at the end, the env passed
    original = TabletopAECEnv.__init__

    def ignoring(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.max_turns = 10**9

    monkeypatch.setattr(TabletopAECEnv, "__init__", ignoring)
    with pytest.raises(AssertionError, match=r"max_turns=3 let the game go on to a decision at turn 3"):
        conformance.check_max_turns(toy if env_name == "toy" else env_name, {}, seeds=range(3))


def test_seed_independence_check_refuses_unseeded_resets_that_come_back_to_the_seeded_game(toy, monkeypatch):
    # the unseeded resets deal the games after the last seed, six in turn: two runs of them differ, but the
    # second is the seeded run again
    original = TabletopAECEnv.reset

    def cycling(self, seed=None, options=None):
        if seed is not None:
            self._last_seed, self._unseeded = seed, 0
        else:
            self._unseeded += 1
        original(self, self._last_seed + self._unseeded % 6, options)

    monkeypatch.setattr(TabletopAECEnv, "reset", cycling)
    with pytest.raises(AssertionError, match="an unseeded reset of the AEC env dealt the game before it again"):
        conformance.check_seed_independence(toy, {})


def test_max_turns_check_refuses_an_env_that_keeps_its_agents_after_the_game(toy, monkeypatch):
    monkeypatch.setattr(TabletopAECEnv, "_was_dead_step", lambda self, action: None)
    with pytest.raises(AssertionError, match=r"toy_v0: agents \['player_0', 'player_1'\] left after the game ended"):
        conformance.check_max_turns(toy, {}, seeds=range(1))


def test_mask_check_refuses_a_masked_in_move_the_engine_refuses_along_the_game(toy, monkeypatch):
    # every action is tried on clones; a game that plays otherwise than its clones is caught by the moves of
    # the game itself
    import toy_game

    from tabletop_envs.core import IllegalActionError

    clone, apply = toy_game.ToyState.clone, toy_game.ToyState._apply_action

    def marked_clone(self):
        twin = clone(self)
        twin.__dict__["_twin"] = True
        return twin

    def refuses_to_draw_unless_a_clone(self, action):
        if action == toy_game.N_CARDS and not self.__dict__.get("_twin"):
            raise IllegalActionError(action, self.legal_actions())
        apply(self, action)

    monkeypatch.setattr(toy_game.ToyState, "clone", marked_clone)
    monkeypatch.setattr(toy_game.ToyState, "_apply_action", refuses_to_draw_unless_a_clone)
    with pytest.raises(AssertionError, match="masked-in action 10 was not accepted by the engine"):
        conformance.check_mask_equals_rules(toy, {})


def _patched_view(monkeypatch, method, wrap):
    import toy_game

    monkeypatch.setattr(toy_game.ToyState, method, wrap(getattr(toy_game.ToyState, method)))


def test_seat_check_refuses_an_observation_that_reads_none_as_the_first_seat(toy, monkeypatch):
    _patched_view(monkeypatch, "observation", lambda original: lambda self, p: original(self, 0 if p is None else p))
    with pytest.raises(AssertionError, match=r"toy_v0: observation\(None\) did not raise TypeError"):
        conformance.check_seat_arguments(toy, {})


def test_seat_check_refuses_a_text_view_of_none_that_is_not_the_whole_table(toy, monkeypatch):
    def wrap(original):
        def render_text(self, player="table"):
            return original(self, None) if player == "table" else original(self, player) + (
                " (as seat None)" if player is None else "")
        return render_text

    _patched_view(monkeypatch, "render_text", wrap)
    with pytest.raises(AssertionError, match=r"toy_v0: render_text\(None\) is not the whole table"):
        conformance.check_seat_arguments(toy, {})


def test_seat_check_refuses_views_that_differ_for_a_numpy_seat(toy, monkeypatch):
    def observation(original):
        def view(self, p):
            obs = original(self, p)
            if isinstance(p, np.integer):
                obs[-1] = 0.5
            return obs
        return view

    def render_text(original):
        return lambda self, p=None: original(self, p) + (" (numpy)" if isinstance(p, np.integer) else "")

    def resample_hidden(original):
        def redeal(self, p, rng):
            if isinstance(p, np.integer):
                rng.random()  # another world than the int seat's
            return original(self, p, rng)
        return redeal

    for method, wrap, message in (("observation", observation, "Arrays are not equal"),
                                  ("render_text", render_text, "a NumPy seat renders another text view"),
                                  ("resample_hidden", resample_hidden, "a NumPy seat re-deals otherwise")):
        with monkeypatch.context() as patch:
            _patched_view(patch, method, wrap)
            with pytest.raises(AssertionError, match=message):
                conformance.check_seat_arguments(toy, {})


def test_random_playout_lets_a_game_end_on_its_last_allowed_decision(pile):
    # a limit of N decisions allows N: the pile game taken one stone at a time ends on its 15th
    import pile_game

    state = conformance.make_game(pile).new_initial_state(0)
    state._legal_action_mask = lambda: np.array([1, 0, 0], np.int8)
    assert conformance.random_playout(state, np.random.default_rng(0), max_steps=pile_game.STONES) == pile_game.STONES
    state = conformance.make_game(pile).new_initial_state(0)
    state._legal_action_mask = lambda: np.array([1, 0, 0], np.int8)
    with pytest.raises(AssertionError, match=f"game did not end within {pile_game.STONES - 1} decisions"):
        conformance.random_playout(state, np.random.default_rng(0), max_steps=pile_game.STONES - 1)


def test_random_games_check_refuses_an_observation_above_its_upper_bound(toy, monkeypatch):
    import toy_game

    original = toy_game.ToyState.observation

    def turn_past_one(self, p):
        obs = original(self, p)
        obs[self.game.observation_layout.slices["turn"]] = 2.0  # declared 0…1
        return obs

    monkeypatch.setattr(toy_game.ToyState, "observation", turn_past_one)
    with pytest.raises(AssertionError, match=r"game 0: observation outside its declared bounds at \['turn'\]"):
        conformance.check_random_games(toy, {}, num_games=1)


def test_seed_check_refuses_an_env_whose_second_instance_deals_another_game_for_the_same_seed(toy, monkeypatch):
    # PettingZoo's seed_test is the whole of this check: two envs reset with seed 42 must play alike
    original = TabletopAECEnv.reset
    resets = []

    def seed_shifted_per_reset(self, seed=None, options=None):
        resets.append(seed)
        original(self, None if seed is None else seed + len(resets), options)

    monkeypatch.setattr(TabletopAECEnv, "reset", seed_shifted_per_reset)
    with pytest.raises(AssertionError, match="Incorrect"):
        conformance.check_seed(toy, {})


def test_seed_independence_check_compares_long_info_arrays_in_full(pile, monkeypatch):
    # repr() shows a long array as its ends around "...": a difference in the middle would read as none
    original = TabletopAECEnv.reset

    def seed_in_the_middle_of_a_long_info(self, seed=None, options=None):
        original(self, seed, options)
        told = np.zeros(5000)
        told[2500] = -1 if seed is None else seed
        for agent in self.agents:
            self.infos[agent]["told"] = told

    monkeypatch.setattr(TabletopAECEnv, "reset", seed_in_the_middle_of_a_long_info)
    with pytest.raises(AssertionError, match="a game declaring chance = False dealt the AEC env another game for "
                                             "another seed"):
        conformance.check_seed_independence(pile, {})


def test_seed_independence_check_compares_the_observed_action_masks(toy, monkeypatch):
    # the mask in info is rebuilt each move and stays right: only the mask handed out in the observation is
    # stale here, offering a finished seat a move in every other game an env plays
    original_reset, original_observe = TabletopAECEnv.reset, TabletopAECEnv.observe

    def counted_reset(self, seed=None, options=None):
        self._games = getattr(self, "_games", 0) + 1
        original_reset(self, seed, options)

    def observe(self, agent):
        seen = original_observe(self, agent)
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            seen["action_mask"][0] = self._games % 2
        return seen

    monkeypatch.setattr(TabletopAECEnv, "reset", counted_reset)
    monkeypatch.setattr(TabletopAECEnv, "observe", observe)
    with pytest.raises(AssertionError, match="seed 7 dealt the AEC env another game after other games"):
        conformance.check_seed_independence(toy, {})


def test_leak_check_refuses_a_refusal_that_names_who_holds_an_illegal_card(toy, monkeypatch):
    # the names of legal actions (own cards, draw) hide nothing: only an illegal card's name, which the refusal
    # of an in-range illegal action reads, tells where the card is
    import toy_game

    original = toy_game.ToyState.action_to_string

    def named(self, action):
        held = action in self.hands[1 - self.player]
        return original(self, action) + (" (the other seat holds it)" if held else "")

    monkeypatch.setattr(toy_game.ToyState, "action_to_string", named)
    with pytest.raises(AssertionError, match=r"the refusal of player \d's illegal action \d+ during .* leaks hidden "
                                             "information"):
        conformance.check_no_leak(toy, {})


def test_seat_check_refuses_a_view_that_takes_true_as_a_seat(toy, monkeypatch):
    # True is an int to Python (True == 1) and a seat to nobody: check_seat refuses it
    _patched_view(monkeypatch, "observation",
                  lambda original: lambda self, p: original(self, int(p) if isinstance(p, bool) else p))
    with pytest.raises(AssertionError, match=r"toy_v0: observation\(True\) did not raise TypeError"):
        conformance.check_seat_arguments(toy, {})


def test_doc_page_check_refuses_a_page_whose_action_count_is_wrong(monkeypatch):
    from tabletop_envs.core.registry import ENVS

    module = ENVS["terralore_v0"].load_module()
    n = conformance.make_game("terralore_v0").num_actions
    assert f"Discrete({n})" in module.__doc__
    monkeypatch.setattr(module, "__doc__", module.__doc__.replace(f"Discrete({n})", f"Discrete({n + 1})"))
    with pytest.raises(AssertionError, match="terralore_v0: the documented action count is wrong"):
        conformance.check_doc_page("terralore_v0")


def test_doc_page_check_refuses_a_wrong_action_mask_size_after_a_right_one(monkeypatch):
    # every length the page states is checked, not only the summary row's
    from tabletop_envs.core.registry import ENVS

    module = ENVS["terralore_v0"].load_module()
    n = conformance.make_game("terralore_v0").num_actions
    monkeypatch.setattr(module, "__doc__", module.__doc__ + f"\n\nThe mask is an ``action_mask`` int8 ({n - 1},).\n")
    with pytest.raises(AssertionError, match=rf"documented action_mask size is wrong \(\[{n}, {n - 1}\]"):
        conformance.check_doc_page("terralore_v0")
