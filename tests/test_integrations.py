"""Third-party tooling a researcher brings instead of our training scripts (docs/integrations.md):
copies of a game in progress, Gymnasium's vector envs and wrappers, PettingZoo's wrappers and tests,
SuperSuit and Tianshou (each skipped unless installed)."""

from __future__ import annotations

import copy
import functools
import pickle
import warnings

import cloudpickle
import numpy as np
import pytest

from tabletop_envs.core import conformance
from tabletop_envs.core.registry import ENVS

CASES = [(name, {"num_players": n} if len(ENVS[name].player_counts) > 1 else {})
         for name in ENVS for n in ENVS[name].player_counts]
IDS = [f"{name}-{kw.get('num_players', 2)}p" for name, kw in CASES]
#: one case per game: the faces are generic, so the player counts add little here
GAMES = [("terralore_v0", {}), ("travel_earth_v0", {}), ("earth_v0", {"num_players": 3})]
GAME_IDS = [name for name, _ in GAMES]
COPIES = {"deepcopy": copy.deepcopy, "cloudpickle": lambda env: cloudpickle.loads(cloudpickle.dumps(env)),
          "pickle": lambda env: pickle.loads(pickle.dumps(env))}


def aec_trace(env, rng, steps):
    """What an AEC loop sees for ``steps`` moves; every fourth move is illegal (``random_legal`` replaces it)."""
    trace = []
    for i in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        obs, reward, terminated, truncated, info = env.last()
        mask = obs["action_mask"]
        action = int(np.flatnonzero(mask == 0)[0]) if i % 4 == 3 and not mask.all() else int(
            rng.choice(np.flatnonzero(mask)))
        trace.append((agent, obs["observation"].tobytes(), mask.tobytes(), reward, sorted(info)))
        env.step(action)
    return trace, env.game_state.to_dict()


@pytest.mark.parametrize("how", ["deepcopy", "cloudpickle"])
@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_a_copied_aec_env_continues_the_game_identically_and_shares_nothing(env_name, kwargs, how):
    # pickle is checked by the conformance harness; MCTS-style lookahead uses deepcopy, Ray and
    # multiprocessing cloudpickle. random_legal's own generator must travel with the copy too.
    env = conformance.env_fn(env_name, illegal_action="random_legal", **kwargs)()
    env.reset(seed=3)
    aec_trace(env, np.random.default_rng(0), 12)
    twin = COPIES[how](env)
    original = aec_trace(env, np.random.default_rng(1), 60)  # the original moves on first
    assert aec_trace(twin, np.random.default_rng(1), 60) == original
    # hidden information is re-dealt alike from the same generator
    for player in range(env.game.num_players):
        redeal = np.random.default_rng(player)
        assert (env.game_state.resample_hidden(player, redeal).to_dict()
                == twin.game_state.resample_hidden(player, np.random.default_rng(player)).to_dict())
    env.reset()
    twin.reset()  # the unseeded next deal comes from the copied seed generator
    np.testing.assert_array_equal(env.state(), twin.state())


def single_trace(env, rng, steps):
    trace = []
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        trace.append((obs.tobytes(), reward, terminated, truncated, info.get("returns")))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append((obs.tobytes(), info["learner_seat"]))
    return trace


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_a_copied_single_agent_env_continues_identically_against_a_trained_opponent(env_name, kwargs, how):
    from tabletop_envs.core import SingleAgentEnv

    opponent = f"{env_name}/ppo" if kwargs.get("num_players", 2) == 2 else f"{env_name}/ppo_4p"
    env = SingleAgentEnv(env_name, opponent=opponent, **kwargs)
    env.reset(seed=5)
    single_trace(env, np.random.default_rng(0), 10)
    twin = COPIES[how](env)
    original = single_trace(env, np.random.default_rng(1), 150)  # across an episode end: the opponents'
    assert single_trace(twin, np.random.default_rng(1), 150) == original  # generator and the deals too


def _make(gym_id, **kwargs):
    import gymnasium

    import tabletop_envs  # noqa: F401  (registers the ids in a spawned process)

    return gymnasium.make(gym_id, **kwargs)


def _vector_trace(envs) -> list:
    """What 40 steps of random legal moves give back (observations, rewards, episode ends), from a seeded reset."""
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    trace = []
    for _ in range(40):
        assert envs.observation_space.contains(obs)
        masks = np.stack(envs.call("action_masks"))
        obs, reward, terminated, truncated, _ = envs.step([rng.choice(np.flatnonzero(m)) for m in masks])  # all legal
        trace.append((obs.tobytes(), reward.tolist(), terminated.tolist(), truncated.tolist()))
    return trace


@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_gymnasium_async_vector_env_in_spawned_processes_plays_with_the_masks_it_hands_out(env_name, kwargs):
    import gymnasium

    fns = [functools.partial(_make, ENVS[env_name].gymnasium_id, **kwargs) for _ in range(2)]
    envs = gymnasium.vector.AsyncVectorEnv(fns, context="spawn")
    try:
        spawned = _vector_trace(envs)
    finally:
        envs.close()
    # the seeded episodes are the ones played in this process: the opponents' bots and deals travel whole
    assert spawned == _vector_trace(gymnasium.vector.SyncVectorEnv(fns))


@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_common_gymnasium_wrappers_run_whole_episodes_inside_their_spaces(env_name, kwargs):
    from gymnasium import wrappers

    gym_id = ENVS[env_name].gymnasium_id
    env = wrappers.RecordEpisodeStatistics(wrappers.NormalizeObservation(wrappers.FlattenObservation(
        wrappers.TimeLimit(_make(gym_id, **kwargs), max_episode_steps=30))))
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = []
    while len(episodes) < 2:
        assert env.observation_space.contains(obs)
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
        if terminated or truncated:
            episodes.append(info["episode"])
            obs, _ = env.reset()
    assert all(1 <= e["l"] <= 30 for e in episodes)
    env.close()
    env.close()  # twice is harmless


@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_gymnasium_samples_the_single_agent_mask_as_the_docs_say(env_name, kwargs):
    # Gymnasium's Discrete.sample(mask) takes int8 (PettingZoo's dtype, the AEC env's), the single-agent face
    # hands out bool (MaskablePPO's): env.action_space.sample(info["action_mask"]) failed, and the docs were silent
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "integrations.md").read_text(encoding="utf-8")
    idiom = 'env.action_space.sample(info["action_mask"].astype(np.int8))'
    assert idiom in " ".join(text.split())
    env = _make(ENVS[env_name].gymnasium_id, **kwargs)
    _, info = env.reset(seed=0)
    assert info["action_mask"].dtype == bool
    with pytest.raises(AssertionError, match="int8"):
        env.action_space.sample(info["action_mask"])
    env.action_space.seed(0)
    for _ in range(60):
        legal = env.unwrapped.action_masks()
        action = env.action_space.sample(info["action_mask"].astype(np.int8))  # the idiom
        assert legal[action]
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
    env.close()


@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_pettingzoo_wrappers_pass_api_test_and_terminate_illegal_ends_the_game(env_name, kwargs):
    from pettingzoo.test import api_test
    from pettingzoo.utils.wrappers import (
        AssertOutOfBoundsWrapper,
        OrderEnforcingWrapper,
        TerminateIllegalWrapper,
    )

    module = ENVS[env_name].load_module()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Dict observation's two allowed warnings (conformance.py)
        api_test(OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(
            module.env(**kwargs), illegal_reward=-1))), num_cycles=50)
    env = TerminateIllegalWrapper(module.env(**kwargs), illegal_reward=-1)
    env.reset(seed=0)
    mover = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0]))
    assert all(env.terminations.values()) and env.rewards[mover] == -1  # PettingZoo's rule: the others get 0
    # aec_to_parallel would refuse: a turn-based game converts with turn_based_aec_to_parallel
    assert module.env(**kwargs).metadata["is_parallelizable"] is False


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_pettingzoo_parallel_seed_test_passes_on_the_turn_based_parallel_env(env_name, kwargs):
    # parallel_seed_test samples unmasked actions, so the env plays a random legal move instead
    from pettingzoo.test import parallel_seed_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    module = ENVS[env_name].load_module()
    parallel_seed_test(lambda: turn_based_aec_to_parallel(module.env(illegal_action="random_legal", **kwargs)),
                       num_cycles=50)


@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_the_documented_acting_seat_test_of_the_parallel_face_gives_each_seat_exactly_its_own_decisions(
        env_name, kwargs):
    # README / docs/integrations.md: a policy sees only the steps where obs[agent]["action_mask"].any();
    # the advice before, infos[agent]["active_agent"], is missing after reset() (a KeyError on step one)
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    module = ENVS[env_name].load_module()
    rng = np.random.default_rng(0)
    parallel = turn_based_aec_to_parallel(module.env(**kwargs))
    obs, infos = parallel.reset(seed=5)
    assert all("active_agent" not in info for info in infos.values())
    seen = {a: [] for a in parallel.possible_agents}
    while parallel.agents:
        acting = [a for a in parallel.agents if obs[a]["action_mask"].any()]
        assert len(acting) == 1
        move = int(rng.choice(np.flatnonzero(obs[acting[0]]["action_mask"])))
        seen[acting[0]].append(move)
        obs, _, _, _, infos = parallel.step({a: move if a == acting[0] else 0 for a in parallel.agents})
    aec, replayed = module.env(**kwargs), {a: [] for a in seen}
    aec.reset(seed=5)
    moves = {a: iter(m) for a, m in seen.items()}
    for agent in aec.agent_iter():  # the same game through the AEC loop: each seat decided exactly these
        if aec.terminations[agent] or aec.truncations[agent]:
            aec.step(None)
            continue
        replayed[agent].append(next(moves[agent]))
        aec.step(replayed[agent][-1])
    assert replayed == seen


@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_supersuit_vec_env_of_the_parallel_env_finishes_games_with_masked_actions(env_name, kwargs):
    ss = pytest.importorskip("supersuit")
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    module = ENVS[env_name].load_module()
    par = turn_based_aec_to_parallel(module.env(max_turns=8, **kwargs))
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(par), 2, num_cpus=0, base_class="gymnasium")
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = obs["action_mask"]  # one row per seat of each env: only the acting seat's has legal moves
        assert (masks.reshape(2, -1, masks.shape[-1]).any(axis=2).sum(axis=1) == 1).all()
        obs, _, terminated, truncated, _ = envs.step(
            np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]))
        ended += int((terminated | truncated).any())
    envs.close()
    assert ended >= 2


def test_supersuit_sb3_vec_env_resets_unseeded_but_not_with_a_seed():
    # docs/integrations.md: SuperSuit's own limit (its SB3 face forwards seed() to a vec env that has none)
    ss = pytest.importorskip("supersuit")
    pytest.importorskip("stable_baselines3")
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    par = turn_based_aec_to_parallel(ENVS["terralore_v0"].load_module().env(max_turns=8))
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(par), 2, num_cpus=0, base_class="stable_baselines3")
    with pytest.raises(AttributeError, match="seed"):
        envs.reset(seed=0)
    obs = envs.reset()
    assert set(obs) == {"observation", "action_mask"} and obs["action_mask"].shape[0] == 4
    envs.close()


@pytest.mark.parametrize("wrapper", ["dtype_v0", "normalize_obs_v0", "flatten_v0", "frame_stack_v1"])
def test_supersuit_box_only_observation_wrappers_refuse_the_dict_observation(wrapper):
    # what docs/integrations.md says to do instead: transform obs["observation"] in your own code
    ss = pytest.importorskip("supersuit")

    args = {"dtype_v0": (np.float16,), "frame_stack_v1": (2,)}.get(wrapper, ())
    with pytest.raises((AssertionError, AttributeError)):
        getattr(ss, wrapper)(ENVS["terralore_v0"].load_module().env(), *args)


def test_supersuit_black_death_refuses_the_dict_observation():
    ss = pytest.importorskip("supersuit")
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    with pytest.raises(AssertionError, match="must be Box"):
        ss.black_death_v3(turn_based_aec_to_parallel(ENVS["terralore_v0"].load_module().env())).reset(seed=0)


@pytest.mark.parametrize(("env_name", "kwargs"), GAMES, ids=GAME_IDS)
def test_tianshou_pettingzoo_env_plays_whole_games_with_its_masks(env_name, kwargs):
    pytest.importorskip("tianshou")
    from tianshou.env import PettingZooEnv

    env = PettingZooEnv(ENVS[env_name].load_module().env(max_turns=8, **kwargs))
    rng = np.random.default_rng(0)
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        for _ in range(5000):
            obs, rewards, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
            if terminated or truncated:
                break
        assert terminated or truncated
        assert len(rewards) == env.env.num_agents
