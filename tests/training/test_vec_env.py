"""SelfPlayVecEnv: the same episodes as DummyVecEnv, with the opponents' moves batched across envs."""

from __future__ import annotations

import numpy as np
import pytest
from extras import needs_train
from generator_spy import seed_sequence

from tabletop_envs.core.onnx_policy import MLPPolicy, choose_legal, choose_legal_batch
from tabletop_envs.core.policy import RandomPolicy, act_batch


def _mlp(env_name: str, deterministic: bool, seed: int = 0, **game_kwargs) -> MLPPolicy:
    from tabletop_envs.core.registry import make_game

    game = make_game(env_name, **game_kwargs)
    rng = np.random.default_rng(seed)
    sizes = [game.observation_layout.size, 32, game.num_actions]
    weights = [(rng.normal(0, 1, (a, b)).astype(np.float32), rng.normal(0, 0.1, b).astype(np.float32))
                for a, b in zip(sizes, sizes[1:])]
    return MLPPolicy(weights, "tanh", deterministic=deterministic, name="mlp")


class CountingPolicy:
    """Wraps a policy and records the size of every batch it is asked for."""

    def __init__(self, inner):
        self.inner, self.batches, self.single = inner, [], 0

    def act(self, obs, mask, rng):
        self.single += 1
        return self.inner.act(obs, mask, rng)

    def act_batch(self, obs, masks, rng):
        self.batches.append(len(obs))
        return self.inner.act_batch(obs, masks, rng)


def _vec(cls, env_name, opponent, n=4, **env_kwargs):
    """``n`` envs against ``opponent``; a tuple of opponents: env i plays ``opponent[i % len(opponent)]``."""
    from training.train import SelfPlayEnv

    opponents = opponent if isinstance(opponent, tuple) else (opponent,)
    seated = [opponents[i % len(opponents)] for i in range(n)]
    venv = cls([lambda o=o: SelfPlayEnv(env_name, opponent=o, **env_kwargs) for o in seated])
    venv.seed(3)
    return venv


def _play(venv, steps, seed=0):
    """Random legal learner actions; every step's outputs, terminal observations included."""
    rng = np.random.default_rng(seed)
    trace = [venv.reset().copy()]
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        trace.append((obs.copy(), rewards.copy(), dones.copy(),
                      [(i.get("returns"), i["TimeLimit.truncated"], i.get("terminal_observation")) for i in infos]))
    return trace


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@needs_train
@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0"])
def test_selfplay_vec_env_plays_the_same_episodes_as_dummy_vec_env(env_name):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.vec_env import SelfPlayVecEnv

    opponent = _mlp(env_name, deterministic=True)  # no draws, so both drivers must agree exactly
    dummy = _play(_vec(DummyVecEnv, env_name, opponent), 300)
    batched = _play(_vec(SelfPlayVecEnv, env_name, opponent), 300)
    assert sum(step[2].sum() for step in batched[1:]) >= 4  # episodes ended and were re-dealt
    assert _same(dummy, batched)


@needs_train
def test_selfplay_vec_env_answers_envs_waiting_on_one_policy_in_one_batch():
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.vec_env import BATCH_MIN, SelfPlayVecEnv

    alone = CountingPolicy(_mlp("terralore_v0", deterministic=True))
    _play(_vec(DummyVecEnv, "terralore_v0", alone, n=8), 200)
    together = CountingPolicy(_mlp("terralore_v0", deterministic=True))
    _play(_vec(SelfPlayVecEnv, "terralore_v0", together, n=8), 200)
    assert alone.batches == [] and max(together.batches) > 1
    assert min(together.batches) >= BATCH_MIN  # fewer waiting envs move one by one, as they cost less
    # the same games, so the same opponent decisions, fewer calls
    assert sum(together.batches) + together.single == alone.single
    assert len(together.batches) + together.single < alone.single
    exactly = CountingPolicy(_mlp("terralore_v0", deterministic=True))  # BATCH_MIN waiting envs: one batch
    _play(_vec(SelfPlayVecEnv, "terralore_v0", exactly, n=BATCH_MIN), 100)
    assert BATCH_MIN in exactly.batches


@needs_train
def test_envs_waiting_on_different_opponents_are_each_answered_by_their_own():
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.vec_env import BATCH_MIN, SelfPlayVecEnv

    # two deterministic opponents, each facing enough envs for batches: a batch answered by the wrong one
    # (as if grouped under one policy) plays other games than the envs alone do
    first, second = (CountingPolicy(_mlp("terralore_v0", deterministic=True, seed=s)) for s in (0, 1))
    n = 2 * BATCH_MIN
    alone = (_mlp("terralore_v0", deterministic=True, seed=0), _mlp("terralore_v0", deterministic=True, seed=1))
    dummy = _play(_vec(DummyVecEnv, "terralore_v0", alone, n=n), 100)
    batched = _play(_vec(SelfPlayVecEnv, "terralore_v0", (first, second), n=n), 100)
    assert first.batches and second.batches  # each was asked in batches of its own envs
    assert _same(dummy, batched)


class OffTheBoard:
    """An opponent whose moves are no actions of the game, asked row by row or in a batch."""

    name = "off_the_board"

    def __init__(self):
        self.asked = []

    def act(self, obs, mask, rng):
        self.asked.append(1)
        return 10**6

    def act_batch(self, obs, masks, rng):
        self.asked.append(len(masks))
        return np.full(len(masks), 10**6)


@needs_train
@pytest.mark.parametrize("n", [1, 4])
def test_an_opponents_illegal_move_names_the_opponent_alone_or_in_a_batch(n):
    # in a batch (3 or more envs waiting on one policy) the message told the caller to fix its own move.
    # The learner at seat 0, which moves first: a random seat had an opponent move alone in some env's reset,
    # and no batch was ever asked
    from training.vec_env import SelfPlayVecEnv

    opponent = OffTheBoard()
    venv = _vec(SelfPlayVecEnv, "terralore_v0", opponent, n=n, learner_seat=0)
    with pytest.raises(Exception, match=r"the opponent off_the_board \(seat \d\) chose an illegal action"):
        _play(venv, 50)
    assert opponent.asked == [n]  # alone, or all four envs in one batch


@needs_train
def test_selfplay_vec_env_reports_truncation_for_sb3_bootstrapping():
    from training.vec_env import SelfPlayVecEnv

    venv = _vec(SelfPlayVecEnv, "terralore_v0", RandomPolicy(), n=2, max_turns=2)
    trace = _play(venv, 60)
    ended = [(returns, truncated, terminal) for _, _, dones, infos in trace[1:]
             for done, (returns, truncated, terminal) in zip(dones, infos) if done]
    # two turns can also bring a castle down: such a game ends terminated, with its result
    assert any(truncated for _, truncated, _ in ended)
    assert all(terminal is not None and (returns == [0.0, 0.0] or not truncated) for returns, truncated, terminal in ended)


@needs_train
def test_selfplay_vec_env_replaces_deals_that_end_before_the_learner_decides():
    # the name pytest imports it by (tests/ is on sys.path, conftest.py): "tests.travel_earth..." needed the
    # checkout's root on sys.path too (python -m pytest, not pytest) and loaded a second copy of the module
    from travel_earth.test_env import _FirstTurnAmbush

    from training.vec_env import SelfPlayVecEnv

    fast = {"TE-005": 4, "TE-070": 4, "TE-038": 4, "TE-039": 4, "TE-011": 4}
    slow = {"TE-069": 4, "TE-021": 4, "TE-054": 4, "TE-055": 4, "TE-036": 4}
    from training.train import SelfPlayEnv

    def make():
        return SelfPlayEnv("travel_earth_v0", opponent=_FirstTurnAmbush(), learner_seat=1, deck_format="casual",
                           decks=[fast, slow], first_player=0)

    venv = SelfPlayVecEnv([make, make])
    venv.seed(0)
    deals = []
    for env in venv.envs:
        original = env.deal
        env.deal = lambda original=original: (deals.append(1), original())[1]
    venv.reset()
    rng, episodes = np.random.default_rng(0), 0
    for _ in range(80):
        masks = np.stack(venv.env_method("action_masks"))
        _, _, dones, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        episodes += int(dones.sum())
        for env in venv.envs:  # every observation handed back is one the learner must decide on
            assert not env.over and env.game_state.current_player() == env.learner_seat
    assert len(deals) > episodes + len(venv.envs)  # some deals ended on Player 1's first turn: replaced


def test_choose_legal_batch_argmax_matches_one_row_at_a_time():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(64, 30)).astype(np.float32)
    masks = rng.random((64, 30)) < 0.2
    masks[np.arange(64), rng.integers(30, size=64)] = True
    batch = choose_legal_batch(logits, masks, None, deterministic=True)
    assert batch.tolist() == [choose_legal(lg, m, None, True) for lg, m in zip(logits, masks)]


def test_choose_legal_batch_samples_legal_actions_by_their_masked_softmax():
    rng = np.random.default_rng(1)
    logits = np.array([[0.0, 1.0, 2.0, 50.0, -1.0]], np.float32).repeat(20000, 0)
    masks = np.array([[True, True, True, False, False]]).repeat(20000, 0)
    picks = choose_legal_batch(logits, masks, rng, deterministic=False)
    assert masks[0, picks].all()
    expected = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    np.testing.assert_allclose(np.bincount(picks, minlength=3)[:3] / len(picks), expected, atol=0.015)


def test_sampling_follows_the_masked_softmax_even_with_logits_too_large_for_exp():
    # exp(300) overflows float32: the draw must shift the logits by their maximum first
    logits = np.array([[0.0, 300.0, 0.0, 0.0]], np.float32).repeat(200, 0)
    masks = np.array([[True, True, True, False]]).repeat(200, 0)
    rng = np.random.default_rng(2)
    assert choose_legal_batch(logits, masks, rng, deterministic=False).tolist() == [1] * 200
    assert {choose_legal(logits[0], masks[0], rng, False) for _ in range(50)} == {1}


def test_choose_legal_batch_shifts_each_row_by_its_own_maximum():
    # found by mutation testing: shifting every row by the batch's maximum passed the suite; a row whose logits lie
    # far below another row's then had all its weights underflow to 0 and always played its last legal action
    logits = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 1000.0, 0.0, 0.0]], np.float32).repeat(200, 0)
    masks = np.array([[True, True, True, False], [True, True, True, False]]).repeat(200, 0)
    picks = choose_legal_batch(logits, masks, np.random.default_rng(3), deterministic=False)
    low, high = picks[:200], picks[200:]
    assert set(low.tolist()) == {0, 1, 2}  # uniform over its three legal actions
    assert high.tolist() == [1] * 200


class _TopOfTheRow:
    """A generator whose every draw is at the very top of [0, 1): what float rounding can give."""

    def random(self, size=None):
        return np.ones(size) if size is not None else 1.0


def test_choose_legal_batch_a_draw_at_the_very_top_of_a_row_picks_its_last_legal_action():
    masks = np.array([[1, 1, 0, 0], [0, 1, 1, 1], [1, 0, 1, 0]], bool)
    picks = choose_legal_batch(np.zeros((3, 4), np.float32), masks, _TopOfTheRow(), deterministic=False)
    assert picks.tolist() == [1, 3, 2]


@pytest.mark.parametrize("width", [5, 40])  # the few-actions path and the numpy path
def test_sampling_without_a_generator_draws_from_a_fresh_one_and_stays_legal(width):
    mask = np.zeros(width, bool)
    mask[1::2] = True
    logits = np.zeros(width, np.float32)
    picks = {choose_legal(logits, mask, None, deterministic=False) for _ in range(200)}
    assert picks <= set(np.flatnonzero(mask).tolist()) and len(picks) > 1
    batch = choose_legal_batch(np.tile(logits, (200, 1)), np.tile(mask, (200, 1)), None, deterministic=False)
    assert set(batch.tolist()) <= set(np.flatnonzero(mask).tolist()) and len(set(batch.tolist())) > 1


def test_choose_legal_batch_refuses_a_row_without_legal_actions():
    with pytest.raises(ValueError, match="no legal action"):
        choose_legal_batch(np.zeros((2, 3)), np.array([[1, 0, 0], [0, 0, 0]], bool), None, True)


def test_act_batch_asks_a_policy_without_act_batch_row_by_row():
    masks = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], np.int8)
    actions = act_batch(RandomPolicy(), np.zeros((3, 4), np.float32), masks, np.random.default_rng(0))
    assert actions.tolist() == [1, 0, 2]


@pytest.mark.parametrize("rows", [0, 3])
def test_act_batch_answers_int64_action_ids_asked_row_by_row_as_a_batched_model_does(rows):
    # np.array of the answers alone is float64 for an empty batch (no index), and int32 where NumPy 1's
    # default int is (Windows)
    actions = act_batch(RandomPolicy(), np.zeros((rows, 4), np.float32), np.ones((rows, 3), np.int8),
                        np.random.default_rng(0))
    model = MLPPolicy([(np.zeros((4, 3)), np.zeros(3))])
    batched = model.act_batch(np.zeros((rows, 4), np.float32), np.ones((rows, 3), np.int8), np.random.default_rng(0))
    assert actions.dtype == batched.dtype == np.int64 and actions.shape == batched.shape == (rows,)


class _LegalCounter:
    """Plays the first legal action and records how many were legal each time it was asked."""

    def __init__(self):
        self.seen = []

    def act(self, obs, mask, rng):
        self.seen.append(int(np.count_nonzero(mask)))
        return int(np.flatnonzero(mask)[0])


@needs_train
@pytest.mark.parametrize("driver", ["single", "batched"])
def test_opponents_are_not_asked_about_forced_moves(driver):
    from training.train import SelfPlayEnv
    from training.vec_env import SelfPlayVecEnv

    opponent = _LegalCounter()
    venv = SelfPlayVecEnv([lambda: SelfPlayEnv("terralore_v0", opponent=opponent) for _ in range(2)])
    venv.seed(0)
    opponent_moves = []
    for env in venv.envs:
        original = env.play
        env.play = lambda action, env=env, original=original: (
            opponent_moves.append(1) if env.game_state.current_player() != env.learner_seat else None, original(action))[1]
    if driver == "single":
        venv.batched = False  # each env steps itself (SingleAgentEnv.step)
    _play(venv, 300)
    assert opponent.seen and min(opponent.seen) >= 2
    assert len(opponent_moves) > len(opponent.seen) + 20  # forced moves were played without asking


@needs_train
def test_selfplay_vec_env_reports_each_new_deal_s_learner_seat_as_dummy_vec_env_does():
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.vec_env import SelfPlayVecEnv

    opponent = _mlp("terralore_v0", deterministic=True)
    seats = []
    for cls in (DummyVecEnv, SelfPlayVecEnv):
        venv, rng, seen = _vec(cls, "terralore_v0", opponent), np.random.default_rng(0), []
        venv.reset()
        for _ in range(300):
            masks = np.stack(venv.env_method("action_masks"))
            _, _, dones, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            seen += [(i, venv.reset_infos[i]["learner_seat"]) for i in np.flatnonzero(dones)]
            for i in np.flatnonzero(dones):
                assert venv.reset_infos[i]["learner_seat"] == venv.envs[i].learner_seat
        seats.append(seen)
    assert len(seats[0]) >= 4 and seats[0] == seats[1]


@needs_train
@pytest.mark.parametrize("terminated, truncated", [(True, False), (False, True), (True, True)])
def test_an_env_that_is_no_single_agent_env_is_stepped_and_reset_one_by_one(terminated, truncated):
    import gymnasium as gym

    from training.vec_env import SelfPlayVecEnv

    class EndsOnItsSecondStep(gym.Env):
        observation_space = gym.spaces.Box(0, 10, (1,), np.float32)
        action_space = gym.spaces.Discrete(2)

        episodes = 0

        def reset(self, *, seed=None, options=None):
            self.t, self.episodes = 0, self.episodes + 1
            return np.zeros(1, np.float32), {"episode": self.episodes}

        def step(self, action):
            self.t += 1
            end = self.t == 2
            return np.full(1, self.t, np.float32), float(self.t), end and terminated, end and truncated, {}

    venv = SelfPlayVecEnv([EndsOnItsSecondStep])
    assert not venv.batched
    venv.reset()
    assert venv.reset_infos[0] == {"episode": 1}
    obs, rewards, dones, infos = venv.step(np.array([0]))
    assert obs[0, 0] == 1 and rewards[0] == 1 and not dones[0] and not infos[0]["TimeLimit.truncated"]
    obs, rewards, dones, infos = venv.step(np.array([0]))
    assert dones[0] and rewards[0] == 2 and infos[0]["terminal_observation"][0] == 2
    # SB3 bootstraps the value of a time-limit end only: not when the episode terminated too
    assert infos[0]["TimeLimit.truncated"] == (truncated and not terminated)
    # the next episode's first observation, and its reset's info (not the first episode's, still there)
    assert obs[0, 0] == 0 and venv.reset_infos[0] == {"episode": 2}


@needs_train
def test_an_env_with_a_dict_observation_space_is_stepped_as_dummyvecenv_steps_it():
    # the one-by-one path wrote every observation to buf_obs[None], which only a space that is no Dict or
    # Tuple has: a Dict space raised KeyError: None at the first step
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.vec_env import SelfPlayVecEnv

    class CountsInADict(gym.Env):
        observation_space = gym.spaces.Dict({"t": gym.spaces.Box(0, 10, (1,), np.float32)})
        action_space = gym.spaces.Discrete(2)

        def reset(self, *, seed=None, options=None):
            self.t = 0
            return {"t": np.zeros(1, np.float32)}, {}

        def step(self, action):
            self.t += 1
            return {"t": np.full(1, self.t, np.float32)}, 0.0, self.t == 2, False, {}

    runs = []
    for cls in (DummyVecEnv, SelfPlayVecEnv):
        venv = cls([CountsInADict, CountsInADict])
        venv.reset()
        runs.append([venv.step(np.array([0, 1]))[0]["t"].ravel().tolist() for _ in range(3)])
    assert runs[0] == runs[1] == [[1, 1], [0, 0], [1, 1]]  # the second step ended the episodes: reset to 0


@needs_train
@pytest.mark.parametrize("driver", ["single", "batched"])
def test_the_observations_a_step_returned_are_not_changed_by_the_next_step(driver):
    # SB3 adds the observation it acted on to the rollout buffer after the next step: an array the next step
    # wrote over would be stored as the observation of the action taken before it
    from training.vec_env import SelfPlayVecEnv

    venv = _vec(SelfPlayVecEnv, "terralore_v0", RandomPolicy(), n=2)
    if driver == "single":
        venv.batched = False  # each env steps itself (SingleAgentEnv.step)
    venv.reset()
    rng, returned, kept = np.random.default_rng(0), [], []
    for _ in range(20):
        masks = np.stack(venv.env_method("action_masks"))
        obs = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))[0]
        returned.append(obs)
        kept.append(obs.copy())
    assert all(np.array_equal(a, b) for a, b in zip(returned, kept))
    assert not all(np.array_equal(kept[0], k) for k in kept[1:])  # the observations did change


class ForfeitsWhenTold:
    """Plays its first legal action, or once ``forfeit`` is set an illegal one (a penalty ends the deal)."""

    def __init__(self):
        self.forfeit, self.forfeited = False, 0

    def act(self, obs, mask, rng):
        if self.forfeit:
            self.forfeited += 1
            return int(np.flatnonzero(mask == 0)[0])
        return int(np.flatnonzero(mask)[0])


@needs_train
def test_a_step_gives_up_after_max_redeals_new_deals_that_all_end_before_the_learner_decides(toy):
    # as SingleAgentEnv.reset gives up: the step must not hand back a finished deal for the learner to move in
    from tabletop_envs.core.single_agent import MAX_REDEALS, REDEALS_EXHAUSTED
    from training.train import SelfPlayEnv
    from training.vec_env import SelfPlayVecEnv

    opponent = ForfeitsWhenTold()
    venv = SelfPlayVecEnv([lambda: SelfPlayEnv(toy, opponent=opponent, learner_seat=1, illegal_action="penalty")])
    venv.seed(0)
    venv.reset()
    opponent.forfeit = True
    (mask,) = venv.env_method("action_masks")
    with pytest.raises(RuntimeError, match=REDEALS_EXHAUSTED):
        venv.step(np.array([np.flatnonzero(mask)[0]]))
    # the episode in progress, ended by the opponent's forfeit, then MAX_REDEALS new deals that ended the same way
    assert opponent.forfeited == 1 + MAX_REDEALS


@needs_train
def test_action_masks_of_some_envs_are_those_envs_masks():
    from training.vec_env import SelfPlayVecEnv

    venv = _vec(SelfPlayVecEnv, "terralore_v0", RandomPolicy(), n=3)
    venv.reset()
    every = venv.env_method("action_masks")
    assert len(every) == 3
    (second,) = venv.env_method("action_masks", indices=[1])
    assert np.array_equal(second, every[1])


class DrawRecorder:
    """A sampling opponent that records the first number it draws from the generator it is handed."""

    def __init__(self):
        self.draws = []

    def act(self, obs, mask, rng):
        self.draws.append(rng.random())
        return int(rng.choice(np.flatnonzero(mask)))


@needs_train
@pytest.mark.parametrize("n", [1, 2, 8])  # fewer envs than BATCH_MIN wait on the opponent, then more
def test_sampling_opponents_draw_from_the_vec_env_s_own_seeded_generator(n):
    from training.vec_env import SelfPlayVecEnv

    def run(seed):
        opponent = DrawRecorder()
        venv = _vec(SelfPlayVecEnv, "terralore_v0", opponent, n=n)
        venv.seed(seed)
        _play(venv, 60)
        return opponent.draws

    for seed in (0, 3):  # a fresh number for every move: with one env, seed 0's first one came twice (the
        # opponents' generator in that env's reset and the vec env's were one stream)
        draws = run(seed)
        assert len(draws) > 20 and len(set(draws)) == len(draws)
    first = run(3)
    assert run(3) == first and run(4) != first  # reproducible from the seed, and the seed matters


@needs_train
def test_seeding_without_a_seed_gives_the_envs_the_seeds_sb3_draws_and_play_goes_on():
    from training.vec_env import SelfPlayVecEnv

    venv = _vec(SelfPlayVecEnv, "terralore_v0", DrawRecorder(), n=2)
    first, second = venv.seed(None)  # VecEnv.seed: a drawn seed for env 0, the next one for env 1
    assert isinstance(first, int) and second == first + 1
    assert len(_play(venv, 10)) == 11


class GeneratorReader:
    """An opponent that reads what seeded every generator it is handed, as a policy written to cheat could."""

    def __init__(self):
        self.seen = []

    def act(self, obs, mask, rng):
        self.seen.append((np.atleast_1d(np.asarray(seed_sequence(rng).entropy, dtype=object)).tolist(),
                          rng.bit_generator.state["state"]["inc"]))
        return int(rng.choice(np.flatnonzero(mask)))


@needs_train
@pytest.mark.parametrize("seed", [3, 918_273_645_501])
def test_sampling_opponents_get_a_generator_that_does_not_tell_the_seed_of_the_learners_deals(seed):
    # env i deals from seed + i: an opponent that read [seed, num_envs] off its generator re-ran every deal
    # and knew the learner's hand and deck order
    from training.vec_env import SelfPlayVecEnv

    n = 4
    opponent = GeneratorReader()
    venv = _vec(SelfPlayVecEnv, "terralore_v0", opponent, n=n)
    venv.seed(seed)
    _play(venv, 30)
    assert len(opponent.seen) > 30
    dealt_from = [seed + i for i in range(n)]
    usual = [np.random.PCG64(s).state["state"]["inc"] for s in
             [seed, *dealt_from, *(np.random.SeedSequence([seed, k]) for k in range(n + 2))]]
    for entropy, stream in opponent.seen:
        assert not set(entropy) & {seed, *dealt_from}, f"an opponent read {entropy} off its generator"
        assert stream not in usual, "an opponent was handed a generator of a stream derived from the seed"


@needs_train
def test_a_list_mixing_a_wrapped_env_with_plain_ones_is_stepped_one_by_one_as_dummyvecenv_would():
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.train import SelfPlayEnv
    from training.vec_env import SelfPlayVecEnv

    fns = [lambda: Monitor(SelfPlayEnv("terralore_v0", opponent=RandomPolicy())),
           lambda: SelfPlayEnv("terralore_v0", opponent=RandomPolicy())]
    runs = []
    for cls in (DummyVecEnv, SelfPlayVecEnv):
        venv = cls(fns)
        assert getattr(venv, "batched", False) is False
        venv.seed(3)
        obs, rng, rewards = [venv.reset()], np.random.default_rng(0), []
        for _ in range(30):
            masks = np.stack(venv.env_method("action_masks"))
            o, r, _, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            obs.append(o)
            rewards.append(r)
        runs.append((np.stack(obs), np.stack(rewards)))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


@needs_train
@pytest.mark.parametrize("num_players", [3, 4])
def test_at_a_larger_table_each_opponent_seat_is_moved_by_its_own_policy_from_its_own_view(num_players):
    # found by a seat audit: a batch shown the view of the seat across from the learner, and a table whose
    # seats were all moved by its first opponent, passed every two-seat check (one opponent seat, across)
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.vec_env import BATCH_MIN, SelfPlayVecEnv

    kwargs = {"num_players": num_players, "max_rounds": 3}  # short games: many end and are dealt anew
    alone = [_mlp("earth_v0", deterministic=True, seed=s, num_players=num_players) for s in range(num_players - 1)]
    dummy = _play(_vec(DummyVecEnv, "earth_v0", alone, n=2 * BATCH_MIN, **kwargs), 200)
    each = [CountingPolicy(_mlp("earth_v0", deterministic=True, seed=s, num_players=num_players))
            for s in range(num_players - 1)]  # a different opponent in each other seat of every table
    batched = _play(_vec(SelfPlayVecEnv, "earth_v0", each, n=2 * BATCH_MIN, **kwargs), 200)
    assert all(policy.batches for policy in each)  # each was asked in batches
    assert sum(step[2].sum() for step in batched[1:]) >= 4  # episodes ended and were re-dealt
    assert _same(dummy, batched)
