"""RLlib adapter, trainer and export (needs the ``distributed`` extra).

Deselected by default; run with ``python -m pytest tests/distributed -m distributed -q``. The adapter
tests step the env through RLlib's own ``MultiAgentEpisode`` bookkeeping; the training tests start
one local Ray (2 CPUs) for the module and run a few tiny PPO iterations.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402

from tabletop_envs.core.errors import ConfigError, IllegalActionError  # noqa: E402
from tabletop_envs.core.registry import available_envs  # noqa: E402
from tabletop_envs.rllib_adapter import MaskedPPOTorchRLModule, TabletopMultiAgentEnv  # noqa: E402

pytestmark = pytest.mark.distributed

GAMES = [name for name in ("terralore_v0", "travel_earth_v0", "earth_v0") if name in available_envs()]
CONFIGS = [("toy_v0", {})] + [(name, {}) for name in GAMES]
if "earth_v0" in GAMES:
    CONFIGS += [("earth_v0", {"num_players": 1}), ("earth_v0", {"num_players": 3})]


@pytest.fixture(autouse=True)
def _toy_registered(toy):
    """Every test here may name the toy game (tests/conftest.py's fixture)."""


def _ids(configs):
    return [f"{name}{'-' + str(kw['num_players']) + 'p' if kw else ''}" for name, kw in configs]


def play_random_episode(env: TabletopMultiAgentEnv, seed: int, check_step=None):
    """One random legal game through the adapter, recorded in RLlib's MultiAgentEpisode."""
    rng = np.random.default_rng(seed)
    episode = MultiAgentEpisode(observation_space=env.observation_space, action_space=env.action_space)
    obs, infos = env.reset(seed=seed)
    episode.add_env_reset(observations=obs, infos=infos)
    while True:
        (agent, ob), = obs.items()
        action = int(rng.choice(np.flatnonzero(ob["action_mask"])))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        episode.add_env_step(observations=obs, actions={agent: action}, rewards=rewards, infos=infos,
                             terminateds=terms, truncateds=truncs)
        if check_step is not None:
            check_step(obs, rewards, terms, truncs)
        if terms["__all__"] or truncs["__all__"]:
            return episode, rewards, terms, truncs


# ------------------------------------------------------------------------------------ adapter
@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=_ids(CONFIGS))
def test_observation_has_the_keys_rllibs_masking_module_expects(name, kwargs):
    env = TabletopMultiAgentEnv({"env": name, **kwargs})
    obs, _ = env.reset(seed=0)
    (agent, ob), = obs.items()
    assert set(ob) == {"observations", "action_mask"}
    assert env.observation_spaces[agent].contains(ob)
    aec_obs = env.aec.observe(agent)
    np.testing.assert_array_equal(ob["observations"], aec_obs["observation"])
    np.testing.assert_array_equal(ob["action_mask"], aec_obs["action_mask"].astype(np.float32))
    assert ob["action_mask"].dtype == np.float32 and ob["action_mask"].sum() >= 1


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=_ids(CONFIGS))
def test_only_the_seat_to_move_observes_until_the_game_ends(name, kwargs):
    env = TabletopMultiAgentEnv({"env": name, **kwargs})

    def check(obs, rewards, terms, truncs):
        assert set(rewards) == set(env.possible_agents)  # every seat's reward, every step
        if terms["__all__"] or truncs["__all__"]:
            assert set(obs) == set(env.possible_agents)
            for ob in obs.values():
                assert ob["action_mask"].all()  # nothing to decide; finite for a batched forward
        else:
            assert list(obs) == [env.aec.agent_selection]
            assert env.observation_spaces[env.aec.agent_selection].contains(obs[env.aec.agent_selection])

    for seed in range(3):
        play_random_episode(env, seed, check)


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=_ids(CONFIGS))
def test_final_result_reaches_every_seat_in_rllibs_episode(name, kwargs):
    env = TabletopMultiAgentEnv({"env": name, **kwargs})
    finished = 0
    for seed in range(6):
        episode, rewards, terms, _ = play_random_episode(env, seed)
        if not terms["__all__"]:
            continue
        finished += 1
        returns = env.aec.game_state.returns()
        for seat, agent in enumerate(env.possible_agents):
            agent_episode = episode.agent_episodes[agent]
            assert agent_episode.is_terminated
            # The whole return sits on the seat's last transition, whoever moved last.
            assert agent_episode.get_return() == pytest.approx(returns[seat])
            assert agent_episode.get_rewards()[-1] == pytest.approx(returns[seat])
        assert episode.get_return() == pytest.approx(sum(returns))
    assert finished > 0


def test_truncation_gives_every_seat_a_last_observation():
    env = TabletopMultiAgentEnv({"env": "toy_v0", "max_turns": 3})
    episode, rewards, terms, truncs = play_random_episode(env, 0)
    assert truncs["__all__"] and not terms["__all__"]
    assert all(truncs[a] for a in env.possible_agents) and rewards == {a: 0.0 for a in env.possible_agents}
    assert all(episode.agent_episodes[a].is_truncated for a in env.possible_agents)


@pytest.mark.parametrize("draw_reward", [-0.25, 0.5])
def test_draw_reward_is_added_to_every_seats_final_reward_of_a_drawn_game_only(draw_reward):
    # max_turns 30: about a third of Travel Earth's random games are cut short, drawn, the rest decided
    plain = TabletopMultiAgentEnv({"env": "travel_earth_v0", "max_turns": 30})
    costed = TabletopMultiAgentEnv({"env": "travel_earth_v0", "max_turns": 30, "draw_reward": draw_reward})
    drawn = decided = 0
    for seed in range(30):
        _, before, _, truncs = play_random_episode(plain, seed)
        _, after, _, _ = play_random_episode(costed, seed)  # the same seed: the same deal and moves
        standings = costed.aec.game_state.standings()
        is_drawn = truncs["__all__"] or standings[0] == standings[1]
        drawn, decided = drawn + is_drawn, decided + (not is_drawn)
        assert after == pytest.approx({a: r + (draw_reward if is_drawn else 0.0) for a, r in before.items()})
        assert not is_drawn or all(r == 0.0 for r in before.values())  # without the cost a draw pays 0
    assert drawn >= 3 and decided >= 3


def test_draw_reward_makes_a_max_turns_cut_the_episodes_outcome_not_a_time_limit():
    """With a draw reward a cut game ends terminated: the draw reward is its outcome, and RLlib must not also
    bootstrap a value past it (found by a self-play audit). Without one, the cut stays truncated."""
    plain = TabletopMultiAgentEnv({"env": "travel_earth_v0", "max_turns": 30})
    costed = TabletopMultiAgentEnv({"env": "travel_earth_v0", "max_turns": 30, "draw_reward": -0.25})
    cuts = 0
    for seed in range(30):
        episode, _, terms, truncs = play_random_episode(plain, seed)
        if not truncs["__all__"]:
            continue
        cuts += 1
        assert not terms["__all__"] and all(episode.agent_episodes[a].is_truncated for a in plain.possible_agents)
        episode, rewards, terms, truncs = play_random_episode(costed, seed)  # the same deal and moves
        assert terms["__all__"] and not truncs["__all__"] and rewards == {a: -0.25 for a in costed.possible_agents}
        assert all(episode.agent_episodes[a].is_terminated for a in costed.possible_agents)
    assert cuts >= 3


def test_a_terminal_tie_is_a_draw_and_a_penalty_end_is_not():
    # the toy game can end tied; under illegal_action="penalty" the offender loses, nothing is drawn
    env = TabletopMultiAgentEnv({"env": "toy_v0", "draw_reward": -0.5})
    ties = 0
    for seed in range(40):
        _, rewards, terms, _ = play_random_episode(env, seed)
        returns = env.aec.game_state.returns()
        tied = len(set(env.aec.game_state.standings().tolist())) == 1  # two seats: an equal standing is a tie
        ties += tied
        assert terms["__all__"]
        assert [rewards[a] for a in env.possible_agents] == pytest.approx(list(returns - 0.5 * tied))
    assert ties > 0
    penalty = TabletopMultiAgentEnv({"env": "toy_v0", "illegal_action": "penalty", "draw_reward": -0.5})
    obs, _ = penalty.reset(seed=0)
    (agent, ob), = obs.items()
    _, rewards, terms, _, _ = penalty.step({agent: int(np.flatnonzero(ob["action_mask"] == 0)[0])})
    assert terms["__all__"] and sorted(rewards.values()) == [-1.0, 1.0]


@pytest.mark.parametrize(("config", "message"), [
    ({"env": "earth_v0", "num_players": 1, "draw_reward": -0.5},
     r"draw_reward -0.5: earth_v0 with 1 player is never drawn .* set draw_reward=0"),
    ({"env": "toy_v0", "draw_reward": "half a loss"}, r"draw_reward must be a number .* got 'half a loss'"),
    ({"env": "toy_v0", "draw_reward": True}, r"draw_reward must be a number"),
    ({"env": "toy_v0", "draw_reward": None}, r"draw_reward must be a number .* got None"),  # not taken as 0
])
def test_a_draw_reward_that_means_nothing_is_refused(config, message):
    with pytest.raises(ConfigError, match=message):
        TabletopMultiAgentEnv(config)


def test_the_recipes_draw_reward_reaches_the_env_runners_envs():
    from training.rllib_train import build_algo_config, load_rllib_config

    cfg = load_rllib_config("configs/rllib_travel_earth.yaml", ["selfplay.draw_reward=-0.5"])
    assert build_algo_config(cfg).env_config["draw_reward"] == -0.5
    assert "draw_reward" not in build_algo_config(load_rllib_config("configs/rllib_travel_earth.yaml")).env_config


def test_acting_out_of_turn_or_for_other_seats_besides_the_one_to_move_is_refused():
    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    obs, _ = env.reset(seed=0)
    (agent, ob), = obs.items()
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=f"it is {agent}'s turn"):
        env.step({other: 0})
    # the mover's action with another seat's: refused, not played with the other dropped
    with pytest.raises(ValueError, match=rf"it is {agent}'s turn .*got actions for \['player_0', 'player_1'\]"):
        env.step({agent: int(np.flatnonzero(ob["action_mask"])[0]), other: 0})
    assert env.aec.game_state.turn == 0  # nothing was played


@pytest.mark.parametrize("bare", [0, np.int64(0), "player_0", [0]])
def test_a_bare_action_rather_than_a_dict_of_the_movers_action_is_refused_naming_the_form(bare):
    # as a PettingZoo or Gymnasium env takes it: set() of it raised "'int' object is not iterable"
    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    obs, _ = env.reset(seed=0)
    (agent, _ob), = obs.items()
    with pytest.raises(TypeError, match=rf"step\(\) takes a dict of the acting agent's action, \{{'{agent}': action\}}"):
        env.step(bare)
    assert env.aec.game_state.turn == 0


def test_illegal_action_raises_under_raise_policy():
    env = TabletopMultiAgentEnv({"env": "toy_v0", "illegal_action": "raise"})
    obs, _ = env.reset(seed=0)
    (agent, ob), = obs.items()
    illegal = int(np.flatnonzero(ob["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({agent: illegal})


def test_illegal_action_penalty_ends_game_zero_sum_for_both_seats():
    env = TabletopMultiAgentEnv({"env": "toy_v0", "illegal_action": "penalty"})
    obs, _ = env.reset(seed=0)
    (agent, ob), = obs.items()
    illegal = int(np.flatnonzero(ob["action_mask"] == 0)[0])
    obs, rewards, terms, _, _ = env.step({agent: illegal})
    assert terms["__all__"] and set(obs) == set(env.possible_agents)
    assert rewards[agent] == -1.0 and sum(rewards.values()) == 0.0


def test_under_penalty_the_offenders_final_info_says_its_action_was_illegal():
    env = TabletopMultiAgentEnv({"env": "toy_v0", "illegal_action": "penalty"})
    obs, _ = env.reset(seed=0)
    (agent, ob), = obs.items()
    other = next(a for a in env.possible_agents if a != agent)
    _, _, _, _, infos = env.step({agent: int(np.flatnonzero(ob["action_mask"] == 0)[0])})
    assert infos == {agent: {"illegal_action": True}, other: {}}


def test_under_random_legal_a_replaced_action_is_told_with_the_movers_next_observation_in_rllibs_episode():
    # infos go with observations in RLlib: the toy's seats alternate, so the mover hears it on its next turn
    env = TabletopMultiAgentEnv({"env": "toy_v0", "illegal_action": "random_legal"})
    episode = MultiAgentEpisode(observation_space=env.observation_space, action_space=env.action_space)
    obs, infos = env.reset(seed=4)
    episode.add_env_reset(observations=obs, infos=infos)
    (offender, ob), = obs.items()
    illegal = int(np.flatnonzero(ob["action_mask"] == 0)[0])
    rng = np.random.default_rng(0)
    told, turns = [], 0
    while True:
        (agent, ob), = obs.items()
        action = illegal if turns == 0 else int(rng.choice(np.flatnonzero(ob["action_mask"])))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        episode.add_env_step(observations=obs, actions={agent: action}, rewards=rewards, infos=infos,
                             terminateds=terms, truncateds=truncs)
        told += [(turns, a) for a, info in infos.items() if info.get("illegal_action")]
        turns += 1
        if terms["__all__"] or truncs["__all__"]:
            break
    assert told == [(1, offender)], "told once, with the offender's next observation, and nobody else"
    offender_infos = episode.get_infos(agent_ids=offender, return_list=False)[offender]
    assert [i for i, info in enumerate(offender_infos) if info.get("illegal_action")] == [1]


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=_ids(CONFIGS))
def test_legal_play_has_empty_infos(name, kwargs):
    env = TabletopMultiAgentEnv({"env": name, **kwargs, "illegal_action": "random_legal"})
    assert _infos_of_legal_play(env, seed=1) == []


def _infos_of_legal_play(env, seed: int) -> list:
    """Reset with seed and play random legal moves to the end: every non-empty info the env gave."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    seen = [infos]
    while True:
        (agent, ob), = obs.items()
        obs, _, terms, truncs, infos = env.step({agent: int(rng.choice(np.flatnonzero(ob["action_mask"])))})
        seen.append(infos)
        if terms["__all__"] or truncs["__all__"]:
            return [info for infos in seen for info in infos.values() if info != {}]


def test_a_replaced_action_of_an_episode_reset_before_its_end_is_not_told_in_the_next_one():
    # RLlib resets an env mid-episode (EnvRunner.sample(force_reset=True), a restored runner): the flag of the
    # old episode's replaced action must not land in the new episode's infos
    env = TabletopMultiAgentEnv({"env": "toy_v0", "illegal_action": "random_legal"})
    obs, _ = env.reset(seed=4)
    (agent, ob), = obs.items()
    obs, _, terms, truncs, _ = env.step({agent: int(np.flatnonzero(ob["action_mask"] == 0)[0])})
    assert not (terms["__all__"] or truncs["__all__"]) and agent not in obs  # the offender has not been told yet
    assert _infos_of_legal_play(env, seed=5) == []


def test_reset_from_a_saved_position_observes_the_seat_to_move_there():
    env = TabletopMultiAgentEnv({"env": "terralore_v0"})
    play_random_episode(env, seed=2)  # a finished game first: the reset below must start play again
    source = TabletopMultiAgentEnv({"env": "terralore_v0"})
    obs, _ = source.reset(seed=8)
    rng = np.random.default_rng(8)
    for _ in range(15):
        (agent, ob), = obs.items()
        obs, *_ = source.step({agent: int(rng.choice(np.flatnonzero(ob["action_mask"])))})
    obs_again, infos = env.reset(options={"state": source.aec.state_dict()})
    assert set(obs_again) == set(obs) and infos == {a: {} for a in obs}
    (agent, ob), = obs_again.items()
    np.testing.assert_array_equal(ob["observations"], obs[agent]["observations"])
    np.testing.assert_array_equal(ob["action_mask"], obs[agent]["action_mask"])


def test_unknown_env_name_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown env 'terralor_v0'"):
        TabletopMultiAgentEnv({"env": "terralor_v0"})


@pytest.mark.parametrize(("typo", "meant"), [("draw_rewards", "draw_reward"), ("illegal_actions", "illegal_action")])
def test_a_misspelt_env_config_key_is_refused_listing_the_adapters_keys_and_the_nearest(typo, meant):
    # a misspelt draw_reward was told the game's rule options only, with no hint of the key it meant
    with pytest.raises(ConfigError, match=rf"toy_v0 has no option {typo}; .*\(and the env_config's env, draw_reward, "
                                          rf"render_mode, max_turns, illegal_action\); did you mean '{meant}' for "
                                          rf"'{typo}'\?"):
        TabletopMultiAgentEnv({"env": "toy_v0", typo: -0.5})


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=_ids(CONFIGS))
def test_every_seat_observes_its_own_view_also_in_the_final_observations(name, kwargs):
    # the same vector the AEC env gives that seat: never another seat's (hidden) view
    env = TabletopMultiAgentEnv({"env": name, **kwargs})

    def check(obs, rewards, terms, truncs):
        for agent, ob in obs.items():
            np.testing.assert_array_equal(ob["observations"], env.aec.observe(agent)["observation"])
            assert env.observation_spaces[agent].contains(ob)

    for seed in range(2):
        play_random_episode(env, seed, check)


def test_agents_are_every_seat_throughout_and_a_finished_episode_refuses_another_step():
    # as in RLlib's turn-based examples: emptied at the end, RLlib's own env check (penalty mode) refused the
    # final observations of seats no longer among the agents (found by an RLlib audit)
    env = TabletopMultiAgentEnv({"env": "toy_v0", "max_turns": 4})
    assert env.agents == env.possible_agents

    def check(obs, rewards, terms, truncs):
        assert env.agents == env.possible_agents and set(env.possible_agents) <= set(obs) | {"__all__"} or \
            not (terms["__all__"] or truncs["__all__"])

    for seed in range(2):
        play_random_episode(env, seed, check)
        assert env.agents == env.possible_agents
        with pytest.raises(RuntimeError, match="the episode is over"):
            env.step({env.possible_agents[0]: 0})


def test_rllibs_own_env_check_passes_where_illegal_moves_are_penalised_or_replaced():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    for policy in ("penalty", "random_legal"):
        check_multiagent_environments(TabletopMultiAgentEnv({"env": "toy_v0", "illegal_action": policy}))


def test_a_non_integer_action_is_no_action_id_not_the_id_it_truncates_to():
    from tabletop_envs.core.errors import IllegalActionError

    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    legal = int(np.flatnonzero(obs[agent]["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step({agent: legal + 0.7})  # int() made it the legal action `legal`


def test_an_illegal_action_error_survives_copy_and_pickle_as_ray_ships_it():
    import copy
    import pickle

    from tabletop_envs.core.errors import IllegalActionError

    error = IllegalActionError(7, [1, 2], decision="play")
    for clone in (copy.copy(error), pickle.loads(pickle.dumps(error))):
        assert type(clone) is IllegalActionError and str(clone) == str(error)
        assert (clone.action, clone.legal, clone.reason) == (7, [1, 2], error.reason)


def test_the_same_seed_deals_the_same_game_and_another_seed_another():
    env = TabletopMultiAgentEnv({"env": GAMES[0] if GAMES else "toy_v0"})

    def first_observations(seed):
        obs, _ = env.reset(seed=seed)
        seen = [obs]
        for _ in range(3):
            obs, _, _, _, _ = env.step({agent: int(np.flatnonzero(ob["action_mask"])[0]) for agent, ob in obs.items()})
            seen.append(obs)
        return [(agent, ob["observations"].tobytes()) for o in seen for agent, ob in o.items()]

    assert first_observations(7) == first_observations(7) != first_observations(8)


def test_envs_that_rllib_seeds_alike_deal_their_own_games():
    # RLlib seeds sub-env i of env runner w with seed + w + i: runner 1's env 1 and runner 2's env 0 dealt
    # the same games all run long (32 of 40 deals shared by two runners of the Terralore recipe)
    from ray.rllib.env.env_context import EnvContext

    def deal(worker_index, vector_index, seed=102):
        env = TabletopMultiAgentEnv(EnvContext({"env": "terralore_v0"}, worker_index, vector_index))
        env.reset(seed=seed)
        return env.aec.state_dict()

    assert deal(1, 1) == deal(1, 1)  # still seeded
    assert deal(1, 1) != deal(2, 0) and deal(1, 1) != deal(1, 1, seed=103)
    # RLlib 2.60 gives every sub-env vector index 0 and folds the sub-env index into the seed: there the two
    # envs share seed and vector index, and only the runner index tells them apart
    assert deal(1, 0) != deal(2, 0)
    plain = TabletopMultiAgentEnv({"env": "terralore_v0"})  # no EnvContext: the seed as given, as the AEC env
    plain.reset(seed=102)
    aec = plain.aec.__class__()
    aec.reset(seed=102)
    assert plain.aec.state_dict() == aec.state_dict()


@pytest.mark.parametrize("seed", [-1, True, 2.5])
def test_a_seed_that_deals_nothing_is_refused_also_where_the_runner_index_is_mixed_in(seed):
    # as the AEC env refuses it; mixed into a SeedSequence first, it raised numpy's error or dealt from True
    from ray.rllib.env.env_context import EnvContext

    env = TabletopMultiAgentEnv(EnvContext({"env": "toy_v0"}, 1, 0))
    with pytest.raises(ConfigError, match=r"seed must be None \(a fresh random deal\) or a non-negative int"):
        env.reset(seed=seed)


def test_an_env_instance_can_stand_in_for_the_env_name():
    from tabletop_envs.core.registry import get_spec

    aec = get_spec("toy_v0").load_module().raw_env(max_turns=3)
    env = TabletopMultiAgentEnv({"env": aec})
    assert env.aec is aec
    _, _, terms, truncs = play_random_episode(env, 0)
    assert truncs["__all__"] and not terms["__all__"]  # the instance's own turn limit
    with pytest.raises(ConfigError, match=r"keys \['max_turns'\] given with a ready env instance"):
        TabletopMultiAgentEnv({"env": aec, "max_turns": 5})
    with pytest.raises(ConfigError, match="env_config needs 'env'"):
        TabletopMultiAgentEnv({})


def test_an_env_name_alone_stands_for_its_env_config_and_anything_else_is_refused_by_form():
    # dict() of a name raised "dictionary update sequence element #0 has length 1", and of an int "not iterable"
    env = TabletopMultiAgentEnv("toy_v0")
    assert env.game.env_name == "toy_v0"
    play_random_episode(env, 0)
    for config in (["toy_v0"], 5):
        with pytest.raises(ConfigError, match=r"^env_config must be a dict such as \{'env': 'terralore_v0', "):
            TabletopMultiAgentEnv(config)


def test_an_env_config_may_be_any_mapping_and_none_is_a_config_that_names_no_env():
    # RLlib hands a dict (an EnvContext), and a read-only mapping is a config too; no config at all names no env,
    # which is what the error says, not that None is no dict
    from types import MappingProxyType

    env = TabletopMultiAgentEnv(MappingProxyType({"env": "toy_v0", "max_turns": 3}))
    _, _, terms, truncs = play_random_episode(env, 0)
    assert truncs["__all__"] and not terms["__all__"]  # the mapping's turn limit
    for args in ((), (None,)):
        with pytest.raises(ConfigError, match="^env_config needs 'env'"):
            TabletopMultiAgentEnv(*args)


def test_make_aec_env_takes_an_env_name_alone_and_refuses_other_forms_as_the_multi_agent_env_does():
    from tabletop_envs.rllib_adapter import make_aec_env

    env = make_aec_env("toy_v0")
    assert env.game.env_name == "toy_v0"
    with pytest.raises(ConfigError, match=r"^env_config must be a dict such as "):
        make_aec_env(["toy_v0"])


def test_step_before_reset_says_to_reset():
    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    with pytest.raises(RuntimeError, match=r"reset\(\) must be called before step\(\)"):
        env.step({"player_0": 0})


def test_step_after_the_episode_is_over_says_to_reset():
    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    play_random_episode(env, 0)
    with pytest.raises(RuntimeError, match=r"the episode is over .*call reset\(\)"):
        env.step({"player_0": 0})
    obs, _ = env.reset(seed=1)  # and the next episode plays
    assert len(obs) == 1


def test_render_shows_the_table_as_it_stands_and_nothing_before_reset():
    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    assert env.render() is None
    obs, _ = env.reset(seed=0)
    assert env.render().startswith("turn 0 ")
    (agent, ob), = obs.items()
    env.step({agent: int(np.flatnonzero(ob["action_mask"])[0])})
    assert env.render().startswith("turn 1 ")


def test_closing_the_env_closes_the_aec_envs_window():
    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    closed = []

    class Viewer:
        def close(self):
            closed.append(True)

    env.aec._viewer = Viewer()
    env.close()
    assert closed == [True]


def _module(env, hiddens=(16,), activation="tanh", vf_share_layers=False):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    agent = env.possible_agents[0]
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=env.observation_spaces[agent],
                        action_space=env.action_spaces[agent],
                        model_config={"fcnet_hiddens": list(hiddens), "fcnet_activation": activation,
                                      "vf_share_layers": vf_share_layers})
    return spec.build()


@pytest.mark.parametrize(("activation", "vf_share_layers"), [("tanh", False), ("relu", False), ("tanh", True)])
def test_export_reproduces_module_logits_for_each_network_shape(activation, vf_share_layers, tmp_path):
    import torch

    from tabletop_envs import load_policy
    from training.rllib_train import export_module, load_rllib_config, module_mlp_weights

    name = GAMES[0] if GAMES else "toy_v0"
    env = TabletopMultiAgentEnv({"env": name})
    module = _module(env, (24, 12), activation, vf_share_layers)
    weights, got_activation = module_mlp_weights(module)
    assert got_activation == activation and [w.shape[1] for w, _ in weights] == [24, 12, env.game.num_actions]
    cfg = load_rllib_config(data={"env": name, "output": {"dir": str(tmp_path)}})
    path = export_module(module, tmp_path / "m", cfg, steps=123, iterations=1)
    probe = _batch(env, range(6))["obs"]["observations"]
    with torch.no_grad():
        expected = module.logits_torch(probe).numpy()
    for backend in ("numpy", "onnxruntime"):
        policy = load_policy(str(path), backend=backend)
        np.testing.assert_allclose(policy.logits(probe.numpy()), expected, rtol=1e-4, atol=1e-4)
    assert json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["network"]["activation"] == activation


def test_export_refuses_a_layer_the_opponent_format_cannot_express():
    from training.rllib_train import module_mlp_weights

    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    module = _module(env)
    import torch

    module.pi.net.mlp.insert(0, torch.nn.LayerNorm(16))
    with pytest.raises(TypeError, match="cannot export layer LayerNorm"):
        module_mlp_weights(module)


def test_the_exports_sidecar_records_the_recipes_seed_and_self_play_mode(tmp_path):
    from training.rllib_train import export_module, load_rllib_config

    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "seed": 5, "selfplay": {"mode": "frozen"},
                                  "output": {"dir": str(tmp_path)}})
    path = export_module(_module(env), tmp_path / "m", cfg, steps=300, iterations=2, command="python -m x")
    training = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["training"]
    assert training == {"algorithm": "rllib-ppo", "framework": f"ray[rllib]=={ray.__version__}", "steps": 300,
                        "iterations": 2, "seed": 5, "selfplay": "frozen", "command": "python -m x"}


def test_an_export_whose_mlp_would_play_otherwise_than_the_module_writes_nothing(tmp_path, monkeypatch):
    # the layer-by-layer extraction is checked against the module's own logits before anything is written
    from training.rllib_train import export_module, load_rllib_config

    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    module = _module(env)
    original = module.logits_torch
    monkeypatch.setattr(module, "logits_torch", lambda observations: original(observations) + 1.0)
    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path)}})
    with pytest.raises(RuntimeError, match=r"exported MLP logits differ from the RLlib module's by up to 1"):
        export_module(module, tmp_path / "m", cfg, steps=1, iterations=1)
    assert not list(tmp_path.glob("m.*"))


def _batch(env, seeds):
    import torch

    obs = [env.reset(seed=s)[0] for s in seeds]
    obs = [next(iter(o.values())) for o in obs]
    return {"obs": {k: torch.from_numpy(np.stack([o[k] for o in obs])) for k in ("observations", "action_mask")}}


def test_masked_module_never_samples_an_illegal_action():
    import torch
    from ray.rllib.core.columns import Columns

    env = TabletopMultiAgentEnv({"env": GAMES[0] if GAMES else "toy_v0"})
    module = _module(env)
    batch = _batch(env, range(16))
    mask = batch["obs"]["action_mask"].clone()
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        given = dict(batch, obs=dict(batch["obs"]))
        logits = forward(given)[Columns.ACTION_DIST_INPUTS]
        assert set(given["obs"]) == {"observations", "action_mask"}  # the caller's batch is left alone
        probs = torch.softmax(logits.detach(), -1)
        assert float(probs[mask == 0].max()) == 0.0
        assert bool((logits.argmax(-1) == logits.masked_fill(mask == 0, -1e30).argmax(-1)).all())
    values = module.compute_values(dict(batch, obs=dict(batch["obs"])))
    assert values.shape == (16,) and torch.isfinite(values).all()


def test_masked_module_refuses_an_observation_without_its_mask_and_takes_the_mask_as_a_column():
    import torch
    from ray.rllib.core.columns import Columns

    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    module = _module(env)
    batch = _batch(env, range(4))
    with pytest.raises(ValueError, match="needs 'observations' and 'action_mask'"):
        module.forward_inference({"obs": {"observations": batch["obs"]["observations"]}})
    masked = module.forward_inference(dict(batch, obs=dict(batch["obs"])))[Columns.ACTION_DIST_INPUTS]
    # the mask may also come as a column of its own, next to the bare vector
    flat = module.forward_inference({"obs": batch["obs"]["observations"], "action_mask": batch["obs"]["action_mask"]})
    torch.testing.assert_close(flat[Columns.ACTION_DIST_INPUTS], masked)


@pytest.mark.parametrize("space", ["box", "dict_without_mask"])
def test_masked_module_refuses_an_observation_space_without_the_mask_in_one_line(space):
    # a Dict without the mask was built, to fail only in its first forward pass
    import gymnasium as gym
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env = TabletopMultiAgentEnv({"env": "toy_v0"})
    agent = env.possible_agents[0]
    bare = env.observation_spaces[agent]["observations"]
    given = bare if space == "box" else gym.spaces.Dict({"observations": bare})
    spec = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=given,
                        action_space=env.action_spaces[agent], model_config={"fcnet_hiddens": [8]})
    with pytest.raises(ValueError, match=r"needs a Dict observation space with keys 'observations' and "
                                         r"'action_mask'.*Use TabletopMultiAgentEnv"):
        spec.build()


def test_rllib_example_masking_module_accepts_our_observations():
    """RLlib's own ActionMaskingTorchRLModule example runs on the adapter's observations as-is."""
    example = pytest.importorskip("ray.rllib.examples.rl_modules.classes.action_masking_rlm")
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env = TabletopMultiAgentEnv({"env": GAMES[0] if GAMES else "toy_v0"})
    agent = env.possible_agents[0]
    module = RLModuleSpec(module_class=example.ActionMaskingTorchRLModule,
                          observation_space=env.observation_spaces[agent], action_space=env.action_spaces[agent],
                          model_config={"fcnet_hiddens": [16]}).build()
    batch = _batch(env, range(8))
    mask = batch["obs"]["action_mask"].clone()
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    assert float(torch.softmax(logits, -1)[mask == 0].max()) == 0.0


# ------------------------------------------------------------------------------------ config
def test_rllib_config_unknown_key_names_it_and_suggests_the_fix(tmp_path):
    from training.rllib_train import load_rllib_config

    path = tmp_path / "bad.yaml"
    path.write_text("env: terralore_v0\nenv_runners:\n  num_env_runner: 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown key 'env_runners.num_env_runner'.*'env_runners.num_env_runners'"):
        load_rllib_config(path)


def test_rllib_config_rejects_ill_typed_values_and_bad_env():
    from training.rllib_train import load_rllib_config

    with pytest.raises(ConfigError, match="'iterations' must be an integer"):
        load_rllib_config(data={"iterations": "many"})
    with pytest.raises(ConfigError, match="not a registered env"):
        load_rllib_config(data={"env": "chess_v0"})
    with pytest.raises(ConfigError, match="minibatch_size"):
        load_rllib_config(data={"ppo": {"minibatch_size": 4096, "train_batch_size_per_learner": 512}})


@pytest.mark.parametrize("game", ["terralore", "travel_earth", "earth"])
def test_shipped_rllib_configs_load(game):
    from pathlib import Path

    from training.rllib_train import load_rllib_config

    path = Path(__file__).resolve().parents[2] / "configs" / f"rllib_{game}.yaml"
    cfg = load_rllib_config(path)
    assert cfg.env == f"{game}_v0" and cfg.ray.num_cpus == 2


# ------------------------------------------------------------------------------------ training on Ray
@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": _pythonpath()}})
    yield
    ray.shutdown()


def _pythonpath():
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return os.pathsep.join([str(root), str(root / "tests")])


TINY = {"ppo": {"train_batch_size_per_learner": 256, "minibatch_size": 128, "num_epochs": 1},
        "model": {"fcnet_hiddens": [32]}, "illegal_action": "raise"}


@pytest.fixture(scope="module")
def terralore_run(local_ray, tmp_path_factory):
    """3 tiny self-play iterations on Terralore, sampled by a remote env runner (envs raise on illegal actions)."""
    if "terralore_v0" not in GAMES:
        pytest.skip("Terralore is not in this checkout")
    from training.rllib_train import load_rllib_config, train

    run_dir = tmp_path_factory.mktemp("terralore") / "run"
    cfg = load_rllib_config(data={**TINY, "env": "terralore_v0", "iterations": 3,
                                  "env_runners": {"num_env_runners": 1, "num_envs_per_env_runner": 4},
                                  "output": {"dir": str(run_dir), "checkpoint_every": 2}})
    return cfg, run_dir, train(cfg, log=lambda *_: None)


def test_terralore_selfplay_on_local_ray_completes_with_masks_respected(terralore_run):
    _, run_dir, summary = terralore_run
    # The remote runner's envs use illegal_action="raise": one sampled illegal action would have failed the run.
    assert [h["iteration"] for h in summary["history"]] == [1, 2, 3]
    assert summary["env_steps"] >= 3 * 256
    assert all(h["episodes"] > 0 for h in summary["history"][1:])
    assert (run_dir / "checkpoint_00002").is_dir() and (run_dir / "checkpoint_00003").is_dir()
    assert len((run_dir / "progress.jsonl").read_text(encoding="utf-8").splitlines()) == 3


def test_terralore_export_loads_with_load_policy_and_plays_legal_games(terralore_run):
    from tabletop_envs import load_policy
    from tabletop_envs.core.registry import get_spec

    _, run_dir, summary = terralore_run
    meta = json.loads((run_dir / "rllib_ppo.json").read_text(encoding="utf-8"))
    game = get_spec("terralore_v0").load_module().raw_env().game
    assert meta["env_id"] == "terralore_v0" and meta["env_version"] == 0
    assert meta["observation_layout_hash"] == game.observation_layout.hash()
    assert meta["num_actions"] == game.num_actions
    assert meta["training"]["steps"] == summary["env_steps"] and meta["training"]["seed"] == 0
    assert meta["training"]["command"].startswith("python -m training.rllib_train  # config {'env': 'terralore_v0'")
    policy = load_policy(summary["model"])
    _plays_legal_games(policy, "terralore_v0", games=4)
    onnx_policy = load_policy(summary["model"], backend="onnxruntime")
    obs = game.new_initial_state(3).observation(0)
    np.testing.assert_allclose(onnx_policy.logits(obs), policy.logits(obs), rtol=1e-4, atol=1e-4)


def test_checkpoint_exports_the_same_policy_without_the_algorithm(terralore_run, tmp_path):
    from tabletop_envs import load_policy
    from training.rllib_train import export_checkpoint

    cfg, run_dir, summary = terralore_run
    path = export_checkpoint(cfg, run_dir / "checkpoint_00003", tmp_path / "again")
    final, again = load_policy(summary["model"]), load_policy(str(path))
    obs = np.stack([_first_obs("terralore_v0", seed) for seed in range(5)])
    np.testing.assert_allclose(again.logits(obs), final.logits(obs), rtol=1e-5, atol=1e-5)
    assert again.metadata["training"]["steps"] == summary["env_steps"]
    assert again.metadata["training"]["iterations"] == 3


def test_checkpoint_export_refuses_a_recipe_whose_game_differs_from_the_run(terralore_run, tmp_path):
    # Earth's layout is the same at every table size, so exporting a 3-player run with the 2-player
    # recipe used to write a sidecar saying num_players 2 without any error.
    from dataclasses import replace

    from training.rllib_train import export_checkpoint

    cfg, run_dir, _ = terralore_run
    other = replace(cfg, env_kwargs={"decks": ["tidal_fortress", "ember_rush"]})
    with pytest.raises(ConfigError, match=r"was trained with game_config \{\}.*decks"):
        export_checkpoint(other, run_dir / "checkpoint_00003", tmp_path / "mislabelled")
    assert not (tmp_path / "mislabelled.json").exists()


def test_eval_deterministic_false_ships_an_export_that_samples_as_the_sb3_recipes_key_does(terralore_run, tmp_path):
    # RLlib exports always said "act": "argmax"; the SB3 recipe's eval.deterministic chooses
    from tabletop_envs import load_policy
    from training.config import TrainConfig
    from training.rllib_train import RLlibTrainConfig, export_checkpoint, load_rllib_config

    cfg, run_dir, summary = terralore_run
    assert TrainConfig().eval.deterministic is RLlibTrainConfig().eval.deterministic is True  # one name, one default
    sampling = load_rllib_config(data={**TINY, "env": "terralore_v0", "eval": {"deterministic": False},
                                       "output": {"dir": str(run_dir)}})
    path = export_checkpoint(sampling, run_dir / "checkpoint_00003", tmp_path / "sampling")
    assert json.loads((tmp_path / "sampling.json").read_text(encoding="utf-8"))["act"] == "sample"
    assert load_policy(str(path)).deterministic is False
    assert json.loads((run_dir / "rllib_ppo.json").read_text(encoding="utf-8"))["act"] == "argmax"
    assert load_policy(summary["model"]).deterministic is True


def test_resume_continues_from_a_checkpoint(terralore_run, tmp_path):
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    cfg = replace(cfg, iterations=4, output=replace(cfg.output, dir=str(tmp_path / "resumed"), export=False))
    summary = train(cfg, log=lambda *_: None, resume=run_dir / "checkpoint_00003")
    assert [h["iteration"] for h in summary["history"]] == [4]
    assert (tmp_path / "resumed" / "checkpoint_00004").is_dir()


def test_resuming_a_checkpoint_at_or_past_the_recipes_iterations_is_refused_and_changes_nothing(terralore_run, tmp_path):
    # it printed "resumed ... at iteration 3", trained nothing, rewrote run.json and exited 0
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    cfg = replace(cfg, iterations=3, output=replace(cfg.output, dir=str(tmp_path / "resumed")))
    with pytest.raises(ConfigError, match="is at iteration 3 and the recipe trains to iterations=3: nothing left "
                                          "to train; raise the total, e.g. --set iterations=13"):
        train(cfg, log=lambda *_: None, resume=run_dir / "checkpoint_00003")
    assert not (tmp_path / "resumed").exists()


def test_a_fresh_run_sets_an_earlier_runs_checkpoints_and_progress_aside(tmp_path):
    # a fresh run appended its iterations to the earlier run's progress.jsonl beside its checkpoints
    from training.config import set_aside_earlier_run

    run = tmp_path / "run"
    (run / "checkpoint_00004").mkdir(parents=True)
    (run / "checkpoint_00004" / "rllib_checkpoint.json").write_text("{}", encoding="utf-8")
    (run / "progress.jsonl").write_text('{"iteration": 4}\n', encoding="utf-8")
    (run / "run.json").write_text("{}", encoding="utf-8")
    (run / "notes.txt").write_text("mine", encoding="utf-8")
    target = set_aside_earlier_run(run, "ppo", files=("run.json", "progress.jsonl"), globs=("checkpoint_*",))
    assert sorted(p.name for p in target.iterdir()) == ["checkpoint_00004", "progress.jsonl", "run.json"]
    assert sorted(p.name for p in run.iterdir()) == [target.name, "notes.txt"]


def test_a_run_launched_into_a_folder_another_run_is_writing_to_is_refused_before_ray_starts(tmp_path):
    # as training.train's: the same command launched twice set the running one's files aside
    from processes import run_folder_held_elsewhere

    from training.rllib_train import load_rllib_config, train

    run = tmp_path / "run"
    run.mkdir()
    (run / "progress.jsonl").write_text('{"iteration": 4}\n', encoding="utf-8")
    cfg = load_rllib_config(data={"env": "terralore_v0", "output": {"dir": str(run)}})
    started = ray.is_initialized()  # by an earlier test of the session, or not
    with run_folder_held_elsewhere(run) as first:
        with pytest.raises(ConfigError, match=rf"another run \(pid {first.pid}\) is writing to .*run; wait for it"):
            train(cfg, log=lambda *_: None)
    assert sorted(p.name for p in run.iterdir()) == ["progress.jsonl", "run.lock"]
    assert ray.is_initialized() == started  # refused before Ray was started


def test_a_resumed_run_samples_from_a_seed_of_its_own_not_the_first_parts(terralore_run, tmp_path):
    # the env runners deal from the seed they are built with: the recipe's would deal the first
    # iterations' games again
    from dataclasses import replace

    from training.config import resume_seed
    from training.rllib_train import checkpoint_iteration, train

    cfg, run_dir, _ = terralore_run
    assert checkpoint_iteration(run_dir / "checkpoint_00003") == 3
    cfg = replace(cfg, iterations=4, output=replace(cfg.output, dir=str(tmp_path / "resumed"), export=False))
    said = []
    summary = train(cfg, log=said.append, resume=run_dir / "checkpoint_00003")
    assert summary["sampling_seed"] == resume_seed(cfg.seed, 3) != cfg.seed
    assert any(f"sampling seed {resume_seed(cfg.seed, 3)}" in line for line in said)
    with pytest.raises(ConfigError, match="not an RLlib algorithm checkpoint"):
        checkpoint_iteration(tmp_path)


def test_resume_refuses_a_recipe_whose_game_differs_from_the_run(terralore_run, tmp_path):
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    other = replace(cfg, env_kwargs={"decks": ["tidal_fortress", "ember_rush"]},
                    output=replace(cfg.output, dir=str(tmp_path / "other")))
    with pytest.raises(ConfigError, match=r"was trained with game_config \{\}.*decks"):
        train(other, log=lambda *_: None, resume=run_dir / "checkpoint_00003")
    assert not (tmp_path / "other").exists()


def _files(folder):
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def test_resuming_a_checkpoint_of_another_game_or_network_without_run_json_is_refused_and_changes_nothing(
        terralore_run, tmp_path):
    # without a run.json beside the checkpoint nothing was checked: another network failed in torch's
    # state-dict loading after Ray had started and run.json was written into the folder, and a game of the
    # same layout (another deck choice) resumed as if it were the recipe's
    import shutil
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    foreign = tmp_path / "foreign"
    shutil.copytree(run_dir / "checkpoint_00003", foreign / "checkpoint_00003")
    before = _files(foreign)
    here = replace(cfg, iterations=5, output=replace(cfg.output, dir=str(foreign)))  # resumed into its own folder
    other_game = replace(here, env_kwargs={"decks": ["tidal_fortress", "ember_rush"]})
    with pytest.raises(ConfigError, match=r"was trained with game_config \{\} of terralore_v0 \(its own env config; "
                                          r"there is no run.json beside it\).*pass the --config and --set options"):
        train(other_game, log=lambda *_: None, resume=foreign / "checkpoint_00003")
    if "earth_v0" in GAMES:
        with pytest.raises(ConfigError, match=r"of terralore_v0 \(its own env config.*the recipe gives earth_v0"):
            train(replace(here, env="earth_v0"), log=lambda *_: None, resume=foreign / "checkpoint_00003")
    wider = replace(here, model=replace(cfg.model, fcnet_hiddens=[64]))
    with pytest.raises(ConfigError, match=r"holds a network with fcnet_hiddens=\[32\], but the recipe builds "
                                          r"fcnet_hiddens=\[64\]; resume with --set model.fcnet_hiddens=\[32\]"):
        train(wider, log=lambda *_: None, resume=foreign / "checkpoint_00003")
    assert _files(foreign) == before


def test_resume_refuses_a_checkpoint_whose_network_was_sized_for_another_game(tmp_path):
    # the game check passes where run.json names the recipe's game, but its layout may have changed since (another
    # version): refused in one line, not by torch's state-dict loading after Ray has started
    from training.rllib_train import check_checkpoint_network, load_rllib_config

    checkpoint = _module_checkpoint(tmp_path / "checkpoint_00001", 7, 3, {"fcnet_hiddens": [32]})
    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path / "out")}})
    with pytest.raises(ConfigError, match=r"holds a network of 7 observations and 3 actions, but toy_v0 has \d+ and "
                                          r"\d+: it was trained on another game or layout version"):
        check_checkpoint_network(cfg, checkpoint)


def _module_checkpoint(checkpoint, observations, actions, model_config):
    """A checkpoint folder holding only what check_checkpoint_network reads: the constructor arguments of its
    module 'main' (RLlib's class_and_ctor_args.pkl), a network of ``model_config`` (tanh, no sharing unless said)."""
    import pickle

    import gymnasium as gym

    module_dir = checkpoint / "learner_group" / "learner" / "rl_module" / "main"
    module_dir.mkdir(parents=True)
    kwargs = {"observation_space": gym.spaces.Dict({"observations": gym.spaces.Box(0.0, 1.0, (observations,)),
                                                    "action_mask": gym.spaces.Box(0.0, 1.0, (actions,))}),
              "action_space": gym.spaces.Discrete(actions),
              "model_config": {"fcnet_activation": "tanh", "vf_share_layers": False, **model_config}}
    with open(module_dir / "class_and_ctor_args.pkl", "wb") as f:
        pickle.dump({"class": object, "ctor_args_and_kwargs": ((), kwargs)}, f)
    return checkpoint


def test_resume_refuses_a_checkpoint_whose_network_differs_only_in_its_activation_or_layer_sharing(tmp_path):
    # the weights of a tanh network load into a relu one of the same shapes without an error: resumed, the
    # run would go on training another network than the checkpoint's
    from training.rllib_train import check_checkpoint_network, load_rllib_config

    game = TabletopMultiAgentEnv({"env": "toy_v0"}).game
    sizes = (game.observation_layout.size, game.num_actions)
    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path / "out")}})
    check_checkpoint_network(cfg, _module_checkpoint(tmp_path / "same", *sizes, {"fcnet_hiddens": [32]}))
    relu = _module_checkpoint(tmp_path / "relu", *sizes, {"fcnet_hiddens": [32], "fcnet_activation": "relu"})
    with pytest.raises(ConfigError, match=r"holds a network with fcnet_activation=relu, but the recipe builds "
                                          r"fcnet_activation=tanh; resume with --set model.fcnet_activation=relu "):
        check_checkpoint_network(cfg, relu)
    shared = _module_checkpoint(tmp_path / "shared", *sizes, {"fcnet_hiddens": [32], "vf_share_layers": True})
    with pytest.raises(ConfigError, match=r"with vf_share_layers=true, .* --set model.vf_share_layers=true "):
        check_checkpoint_network(cfg, shared)


def test_resume_refuses_a_checkpoint_whose_module_main_is_no_network_of_this_trainer(tmp_path):
    # a module built for a plain observation vector (not this trainer's dict of vector and mask) failed as a
    # TypeError traceback
    import pickle

    import gymnasium as gym

    from training.rllib_train import check_checkpoint_network, load_rllib_config

    checkpoint = _module_checkpoint(tmp_path / "checkpoint_00001", 7, 3, {"fcnet_hiddens": [32]})
    (state,) = checkpoint.rglob("class_and_ctor_args.pkl")
    with open(state, "rb") as f:
        saved = pickle.load(f)
    saved["ctor_args_and_kwargs"][1]["observation_space"] = gym.spaces.Box(0.0, 1.0, (7,))
    state.write_bytes(pickle.dumps(saved))
    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path / "out")}})
    with pytest.raises(ConfigError, match=r"checkpoint_00001: module 'main' is not a network of this trainer; pass a "
                                          r"checkpoint_<iteration> folder of a training.rllib_train run"):
        check_checkpoint_network(cfg, checkpoint)


def test_frozen_selfplay_resumed_from_a_shared_run_starts_its_opponent_from_the_resumed_main(terralore_run, tmp_path):
    # the shared run's checkpoint holds no 'frozen', so it stayed as built, untrained, until its first refresh
    import pickle
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    frozen = replace(cfg, iterations=4, selfplay=replace(cfg.selfplay, mode="frozen", frozen_update_every=5),
                     output=replace(cfg.output, dir=str(tmp_path / "frozen"), export=False))
    said = []
    train(frozen, log=said.append, resume=run_dir / "checkpoint_00003")  # iteration 4: no refresh (every 5)

    def module_state(checkpoint, module_id):
        path = checkpoint / "learner_group" / "learner" / "rl_module" / module_id / "module_state.pkl"
        with open(path, "rb") as f:
            return pickle.load(f)

    resumed_main = module_state(run_dir / "checkpoint_00003", "main")
    frozen_then = module_state(tmp_path / "frozen" / "checkpoint_00004", "frozen")
    assert resumed_main.keys() == frozen_then.keys()
    for key, value in resumed_main.items():
        np.testing.assert_array_equal(np.asarray(frozen_then[key]), np.asarray(value), err_msg=key)
    assert any("'frozen' starts as a copy of the resumed 'main'" in line for line in said)


def _first_obs(env_name, seed):
    obs, _ = TabletopMultiAgentEnv({"env": env_name}).reset(seed=seed)
    return next(iter(obs.values()))["observations"]


def _plays_legal_games(policy, env_name, games):
    """Full games through the AEC env (illegal_action='raise') with the policy in every seat."""
    from tabletop_envs.core.registry import get_spec

    env = get_spec(env_name).load_module().env(illegal_action="raise")
    rng = np.random.default_rng(0)
    for g in range(games):
        env.reset(seed=g)
        moves = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = policy.act(obs["observation"], obs["action_mask"], rng)
            assert obs["action_mask"][action] == 1
            env.step(action)
            moves += 1
        assert moves > 0


def test_exported_module_matches_rllib_logits_and_frozen_copy_tracks_main(local_ray, tmp_path):
    """Frozen-mode self-play in the driver process on the toy game; the export reproduces the module."""
    import torch

    from training.rllib_train import (
        build_algo_config,
        copy_main_to_frozen,
        load_rllib_config,
        module_mlp_weights,
        trained_module,
    )

    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "selfplay": {"mode": "frozen"},
                                  "env_runners": {"num_env_runners": 0}, "output": {"dir": str(tmp_path)}})
    algo = build_algo_config(cfg).build_algo()
    try:
        copy_main_to_frozen(algo)
        algo.train()
        learner_modules = algo.learner_group._learner.module
        main, frozen = learner_modules["main"], learner_modules["frozen"]
        differs = any(not torch.equal(a, b) for a, b in zip(main.parameters(), frozen.parameters()))
        assert differs  # 'main' trained, 'frozen' did not
        copy_main_to_frozen(algo)
        runner_modules = algo.env_runner.module
        for a, b in zip(main.pi.parameters(), runner_modules["frozen"].pi.parameters()):
            assert torch.equal(a, b)
        from tabletop_envs.core.onnx_policy import MLPPolicy

        exported = trained_module(algo, "main")
        for a, b in zip(main.pi.parameters(), exported.pi.parameters()):
            assert torch.equal(a, b)  # the export holds the learner's latest weights
        env = TabletopMultiAgentEnv({"env": "toy_v0"})
        weights, activation = module_mlp_weights(exported)
        probe = _batch(env, range(8))["obs"]["observations"]
        with torch.no_grad():
            expected = main.logits_torch(probe).numpy()  # the learner's full module
        np.testing.assert_allclose(MLPPolicy(weights, activation).logits(probe.numpy()), expected, atol=1e-5)
    finally:
        algo.stop()


def test_throughput_benchmark_prints_and_writes_its_report(tmp_path, capsys):
    # The documented benchmark command crashed on its last line (KeyError 'load_before') after timing
    # everything, so the JSON the docs quote was never written.
    from benchmarks.rllib_throughput import main

    out = tmp_path / "r.json"
    report = main(["--env", "toy_v0", "--only", "adapter", "--seconds", "0.05", "--repeats", "1", "--json", str(out)])
    assert json.loads(out.read_text(encoding="utf-8"))["results"]["adapter, random"]["steps_per_s"] > 0
    assert "load average before/after" in capsys.readouterr().out and report["machine"]["load_average"]


def test_throughput_benchmarks_rllib_rows_count_the_env_steps_sampled_in_the_driver_on_a_runner_and_in_training(
        local_ray, monkeypatch):
    # its Ray here is this module's (the benchmark starts one of its own), which it shuts down at its end
    import training.rllib_train as rt
    from benchmarks.rllib_throughput import main

    if "terralore_v0" not in GAMES:
        pytest.skip("Terralore is not in this checkout")  # a remote runner cannot build the tests' toy game
    started, stopped = [], []
    monkeypatch.setattr(rt, "start_ray", lambda cfg, address: started.append(cfg.env_runners.num_env_runners))
    monkeypatch.setattr(ray, "shutdown", lambda: stopped.append(True))
    report = main(["--env", "terralore_v0", "--only", "rllib", "--seconds", "0.05", "--repeats", "1",
                   "--rllib-envs", "2", "--rllib-batch", "256", "--hiddens", "8"])
    results = report["results"]
    assert sorted(results) == ["rllib sample (1 runner, 2 envs)", "rllib sample (driver, 2 envs)",
                               "rllib train (1 runner, 2 envs)"]
    assert all(row["steps_per_s"] > 0 and len(row["runs"]) == 1 for row in results.values()), results
    assert report["rllib_settings"] == {"train_batch_size_per_learner": 256, "hiddens": [8], "ray": ray.__version__,
                                        "num_epochs": 4, "minibatch_size": 256}
    assert started == [0] and stopped == [True]


def test_where_illegal_actions_must_stop_the_run_a_failed_env_runner_is_not_restarted(tmp_path):
    # RLlib restarts failed env runners by default: the IllegalActionError stayed in a runner's log and the
    # run went on sampling nothing (found by an RLlib audit)
    from training.rllib_train import build_algo_config, load_rllib_config

    for policy, restarted in (("raise", False), ("penalty", True), ("random_legal", True)):
        cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "illegal_action": policy,
                                      "output": {"dir": str(tmp_path)}})
        assert build_algo_config(cfg).restart_failed_env_runners is restarted, policy


def test_the_algorithm_config_carries_every_recipe_key(tmp_path):
    # built, not run: a key dropped or swapped on its way to RLlib trains with RLlib's default without a word
    from training.rllib_train import build_algo_config, load_rllib_config

    cfg = load_rllib_config(data={
        "env": "toy_v0", "illegal_action": "penalty", "seed": 7, "env_kwargs": {"max_turns": 40},
        "env_runners": {"num_env_runners": 2, "num_envs_per_env_runner": 3, "num_cpus_per_env_runner": 0.5,
                        "rollout_fragment_length": 50, "sample_timeout_s": 30.0},
        "learners": {"num_learners": 1, "num_cpus_per_learner": 2.0, "num_gpus_per_learner": 0.0},
        "ppo": {"train_batch_size_per_learner": 600, "minibatch_size": 100, "num_epochs": 3, "lr": 1e-3,
                "gamma": 0.9, "lambda_": 0.8, "clip_param": 0.3, "entropy_coeff": 0.02, "vf_loss_coeff": 0.7,
                "vf_clip_param": 5.0, "grad_clip": 0.9},
        "model": {"fcnet_hiddens": [24, 12], "fcnet_activation": "relu", "vf_share_layers": True},
        "output": {"dir": str(tmp_path)}})
    config = build_algo_config(cfg)
    assert config.env_config == {"env": "toy_v0", "max_turns": 40, "illegal_action": "penalty"}
    assert (config.num_env_runners, config.num_envs_per_env_runner, config.num_cpus_per_env_runner,
            config.rollout_fragment_length, config.sample_timeout_s) == (2, 3, 0.5, 50, 30.0)
    assert (config.num_learners, config.num_cpus_per_learner, config.num_gpus_per_learner) == (1, 2.0, 0.0)
    assert (config.train_batch_size_per_learner, config.minibatch_size, config.num_epochs, config.lr, config.gamma,
            config.lambda_, config.clip_param, config.entropy_coeff, config.vf_loss_coeff, config.vf_clip_param,
            config.grad_clip) == (600, 100, 3, 1e-3, 0.9, 0.8, 0.3, 0.02, 0.7, 5.0, 0.9)
    model = config.rl_module_spec.rl_module_specs["main"].model_config
    assert (model.fcnet_hiddens, model.fcnet_activation, model.vf_share_layers) == ([24, 12], "relu", True)
    assert config.policies_to_train == ["main"]
    assert config.seed == 7 and build_algo_config(cfg, seed=123).seed == 123  # a resumed run's sampling seed
    assert build_algo_config(load_rllib_config(data={"env": "toy_v0", "output": {"dir": str(tmp_path)}})
                             ).rollout_fragment_length == "auto"  # 0 in the recipe


def test_frozen_self_play_gives_main_one_seat_per_episode_and_every_seat_over_episodes(tmp_path):
    import types

    from training.rllib_train import build_algo_config, load_rllib_config

    if "earth_v0" not in GAMES:
        pytest.skip("a three-seat game is needed")
    recipe = {"env": "earth_v0", "env_kwargs": {"num_players": 3}, "output": {"dir": str(tmp_path)}}
    config = build_algo_config(load_rllib_config(data={**recipe, "selfplay": {"mode": "frozen"}}))
    assert config.policies_to_train == ["main"]
    seats_of_main = []
    for i in range(60):
        episode = types.SimpleNamespace(id_=f"episode-{i}")
        modules = [config.policy_mapping_fn(f"player_{seat}", episode) for seat in range(3)]
        assert sorted(modules) == ["frozen", "frozen", "main"], modules
        assert config.policy_mapping_fn("player_0", episode) == modules[0]  # stable within the episode
        seats_of_main.append(modules.index("main"))
    assert set(seats_of_main) == {0, 1, 2}
    shared = build_algo_config(load_rllib_config(data=recipe))
    assert {shared.policy_mapping_fn(f"player_{seat}", episode) for seat in range(3)} == {"main"}


def test_frozen_self_play_refreshes_its_opponent_every_frozen_update_every_iterations(tmp_path, monkeypatch):
    # the copy after each training step is RLlib's on_train_result callback of the built config
    import types

    import training.rllib_train as rt

    copies = []
    monkeypatch.setattr(rt, "copy_main_to_frozen", lambda algorithm: copies.append(algorithm.iteration))
    recipe = {**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path)}}
    frozen = rt.build_algo_config(rt.load_rllib_config(data={
        **recipe, "selfplay": {"mode": "frozen", "frozen_update_every": 3}}))
    for iteration in range(1, 8):
        frozen.callbacks_on_train_result(algorithm=types.SimpleNamespace(iteration=iteration), result={})
    assert copies == [3, 6]
    assert rt.build_algo_config(rt.load_rllib_config(data=recipe)).callbacks_on_train_result is None  # shared


class _FakeAlgo:
    """An algorithm whose iterations sample 100 more env steps each, unless ``failure`` says otherwise: "empty"
    (no env runner reports: no steps at all), "stalled" (iteration 2 samples nothing new), "stalled_first" (the
    first iteration after a restore samples nothing new), "died" (an env runner actor dies in iteration 2)."""

    def __init__(self, calls, failure=None):
        self.iteration, self.calls, self.failure = 0, calls, failure

    def restore_from_path(self, path):
        # as RLlib's: the iteration and the lifetime counts (100 steps per iteration here) come back with it
        from training.rllib_train import checkpoint_iteration

        self.iteration = self.restored = checkpoint_iteration(path)

    def train(self):
        self.iteration += 1
        if self.failure == "empty":
            return {"training_iteration": self.iteration, "env_runners": {}}
        if self.iteration == 2 and self.failure == "died":
            raise ray.exceptions.RayActorError()
        stalled = (self.iteration == 2 and self.failure == "stalled") or (
            self.failure == "stalled_first" and self.iteration == getattr(self, "restored", 0) + 1)
        lifetime = 100 * (self.iteration - 1 if stalled else self.iteration)
        return {"training_iteration": self.iteration, "env_runners": {"num_env_steps_sampled_lifetime": lifetime}}

    def save_to_path(self, path):
        return path

    def stop(self):
        self.calls.append("stop")


def _fake_training(monkeypatch, calls, failure=None):
    """training.rllib_train with a _FakeAlgo for the algorithm, and no Ray started: the loop around it runs
    in a moment. ``calls`` records copy_main_to_frozen (with the iteration) and the algorithm's stop."""
    import training.rllib_train as rt

    class Config:
        def build_algo(self):
            return _FakeAlgo(calls, failure)

    monkeypatch.setattr(rt, "build_algo_config", lambda cfg, seed=None: Config())
    monkeypatch.setattr(rt, "start_ray", lambda cfg, address: None)
    monkeypatch.setattr(rt, "copy_main_to_frozen", lambda algo: calls.append(("copy", algo.iteration)))
    return rt


@pytest.mark.parametrize(("failure", "message"), [
    ("empty", r"iteration 1 sampled no env steps: an env runner failed"),
    ("stalled", r"iteration 2 sampled no env steps: an env runner failed"),
    ("died", r"iteration 2: an env runner died \(RayActorError\); its own error"),
])
def test_an_iteration_that_samples_nothing_new_or_loses_a_runner_stops_the_run_and_the_algorithm_before_any_export(
        tmp_path, monkeypatch, failure, message):
    # a lifetime count that stays where it was is an iteration of nothing too; and the algorithm (its env
    # runner actors) is stopped on the way out
    from tabletop_envs.core.errors import TabletopError

    calls = []
    rt = _fake_training(monkeypatch, calls, failure)
    cfg = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "iterations": 3,
                                     "output": {"dir": str(tmp_path / "run")}})
    with pytest.raises(TabletopError, match=message):
        rt.train(cfg, log=lambda line: None)
    assert calls == ["stop"]
    assert not list((tmp_path / "run").glob("*.onnx"))


def test_a_fresh_frozen_run_starts_its_opponent_as_a_copy_of_main(tmp_path, monkeypatch):
    # left as built, 'frozen' was an untrained opponent until its first refresh (selfplay.frozen_update_every)
    calls = []
    rt = _fake_training(monkeypatch, calls)
    for mode, copied in (("frozen", [("copy", 0)]), ("shared", [])):
        calls.clear()
        cfg = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "iterations": 1, "selfplay": {"mode": mode},
                                         "output": {"dir": str(tmp_path / mode), "export": False}})
        rt.train(cfg, log=lambda line: None)
        assert calls == [*copied, "stop"], mode


@pytest.mark.parametrize("changes, message", [
    ({"env_runners": {"num_env_runners": 3}}, "the recipe's actors need 3 CPUs (3 env runners x 1) but the local Ray "
                                              "gets ray.num_cpus=2"),
    ({"env_runners": {"num_env_runners": 2}, "learners": {"num_learners": 1}},
     "need 3 CPUs (2 env runners x 1 + 1 learner x 1)"),
])
def test_a_local_ray_too_small_for_the_recipes_actors_is_refused_instead_of_waiting_for_ever(tmp_path, changes,
                                                                                             message):
    from training.rllib_train import load_rllib_config

    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", **changes, "output": {"dir": str(tmp_path)}})
    import re

    with pytest.raises(ConfigError, match=re.escape(message)):
        cfg.check_local_resources()


def test_a_run_on_a_local_ray_too_small_for_its_actors_is_refused_before_ray_starts_or_files_move(
        tmp_path, monkeypatch):
    # train() checks it before an earlier run's files are set aside; a cluster's size is its own
    calls, started = [], []
    rt = _fake_training(monkeypatch, calls)
    monkeypatch.setattr(rt, "start_ray", lambda cfg, address: started.append(address))
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as from the command line (no Ray of a test)
    monkeypatch.setattr(ray, "shutdown", lambda: None)  # (leaves the Ray of this module's tests running)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    run = tmp_path / "run"
    run.mkdir()
    (run / "progress.jsonl").write_text('{"iteration": 1}\n', encoding="utf-8")
    cfg = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "iterations": 1, "env_runners": {"num_env_runners": 3},
                                     "output": {"dir": str(run), "export": False}})
    with pytest.raises(ConfigError, match=r"the recipe's actors need 3 CPUs .* ray.num_cpus=2"):
        rt.train(cfg, log=lambda line: None)
    assert started == [] and calls == [] and sorted(p.name for p in run.iterdir()) == ["progress.jsonl"]
    rt.train(cfg, "10.1.2.3:6379", log=lambda line: None)
    assert started == ["10.1.2.3:6379"]


def test_a_seed_that_numpy_would_refuse_once_rllib_adds_the_runner_index_is_refused(tmp_path):
    from training.rllib_train import load_rllib_config

    with pytest.raises(ConfigError, match="seed 4294967295 is too large.*at most 4294967294"):
        load_rllib_config(data={**TINY, "env": "toy_v0", "seed": 2**32 - 1, "output": {"dir": str(tmp_path)}})


def test_the_end_of_run_evaluation_lands_in_the_sidecar_and_keeps_the_recipes_turn_limit(tmp_path, monkeypatch):
    # the sidecar's evaluation stayed empty, and the games ignored env_kwargs.max_turns (found by an RLlib audit)
    import training.evaluate as evaluate
    import training.rllib_train as rt
    from training.export import export_policy

    seen = {}

    original = evaluate.play_pair

    def spy(*args, **kwargs):
        import inspect

        seen["max_turns"] = inspect.signature(original).bind(*args, **kwargs).arguments.get("max_turns")
        return original(*args, **kwargs)

    monkeypatch.setattr(evaluate, "play_pair", spy)
    cfg = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "env_kwargs": {"max_turns": 3},
                                     "eval": {"opponents": ["random"]}, "output": {"dir": str(tmp_path), "eval_games": 20}})
    rng = np.random.default_rng(0)
    game = TabletopMultiAgentEnv({"env": "toy_v0"}).game
    weights = [(rng.normal(size=(game.observation_layout.size, 8)), rng.normal(size=8)),
               (rng.normal(size=(8, game.num_actions)), rng.normal(size=game.num_actions))]
    path = export_policy(weights, "tanh", tmp_path / "m", "toy_v0")
    result = rt.evaluate_export(cfg, path, 20)
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    vs_random = meta["evaluation"]["vs_random"]
    assert vs_random == result["vs_random"] and vs_random["games"] == 20 and "max_turns 3" in result["protocol"]
    assert vs_random["draw"]["rate"] > vs_random["loss"]["rate"]  # 3 turns: most games are cut, drawn
    assert seen["max_turns"] == 3
    # played out, the games are won and lost (all 20 above were drawn): each count lands in its own rate
    played_out = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "eval": {"opponents": ["random"]},
                                            "output": {"dir": str(tmp_path), "eval_games": 20}})
    result = rt.evaluate_export(played_out, path, 20)
    vs_random = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["evaluation"]["vs_random"]
    assert vs_random == result["vs_random"] and vs_random["win"]["rate"] != vs_random["loss"]["rate"]


def test_the_end_of_run_evaluation_at_a_table_of_three_seats_random_in_both_other_seats(tmp_path):
    # Earth's recipe takes num_players 1-5: the policy plays one seat, random every other
    import training.rllib_train as rt
    from training.export import export_policy

    if "earth_v0" not in GAMES:
        pytest.skip("a three-seat game is needed")
    cfg = rt.load_rllib_config(data={**TINY, "env": "earth_v0", "env_kwargs": {"num_players": 3, "max_turns": 30},
                                     "eval": {"opponents": ["random"]},
                                     "output": {"dir": str(tmp_path), "eval_games": 3}})  # (games cut short)
    game = TabletopMultiAgentEnv({"env": "earth_v0", "num_players": 3}).game
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(game.observation_layout.size, game.num_actions)), rng.normal(size=game.num_actions))]
    path = export_policy(weights, "tanh", tmp_path / "m", "earth_v0", {"num_players": 3})
    result = rt.evaluate_export(cfg, path, 3)["vs_random"]
    # rounded up to a whole set of seatings, every seat of the pair taken by each of the two (3 x 2)
    assert result["games"] == 6 and sum(result[k]["rate"] for k in ("win", "draw", "loss")) == pytest.approx(1)


def test_an_rllib_output_dir_under_a_file_is_refused_with_the_config(tmp_path):
    from training.rllib_train import load_rllib_config

    (tmp_path / "afile").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"afile is a file, so no folder can be made there"):
        load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path / "afile" / "run")}})


def test_resuming_with_the_defaults_written_out_is_the_same_game(tmp_path):
    # env_kwargs {} and the same defaults written out were refused as two games (found by an RLlib audit)
    from training.rllib_train import _same_game, load_rllib_config

    cfg = load_rllib_config(data={**TINY, "env": "terralore_v0", "env_kwargs": {"opaque_wall": True},
                                  "output": {"dir": str(tmp_path)}})
    assert _same_game(("terralore_v0", {}), cfg)
    assert not _same_game(("terralore_v0", {"opaque_wall": False}), cfg)
    assert not _same_game(("travel_earth_v0", {}), cfg)
    assert not _same_game(("terralore_v0", {"no_such_option": 1}), cfg)


def test_resuming_another_folders_checkpoint_sets_the_run_that_output_dir_holds_aside(terralore_run, tmp_path):
    # run A set aside by a fresh run B, then A's checkpoint resumed: B's export, run.json and progress were
    # overwritten without a word, and B's checkpoints sat beside a run.json describing A
    import shutil
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    out = tmp_path / "out"
    earlier = out / "before-20260101-000000"
    shutil.copytree(run_dir / "checkpoint_00003", earlier / "checkpoint_00003")
    shutil.copy(run_dir / "run.json", earlier / "run.json")
    (out / "checkpoint_00001").mkdir()
    (out / "checkpoint_00001" / "rllib_checkpoint.json").write_text("{}", encoding="utf-8")
    for name, text in (("run.json", '{"run": "B"}'), ("progress.jsonl", '{"iteration": 1}\n'),
                       ("rllib_ppo.npz", "B's export"), ("rllib_ppo.json", '{"B": 1}')):
        (out / name).write_text(text, encoding="utf-8")
    resumed = replace(cfg, iterations=4, output=replace(cfg.output, dir=str(out), export=False))
    said = []
    train(resumed, log=said.append, resume=earlier / "checkpoint_00003")
    (aside,) = [p for p in out.glob("before-*") if p != earlier]
    assert (aside / "run.json").read_text(encoding="utf-8") == '{"run": "B"}'
    assert (aside / "rllib_ppo.npz").read_text(encoding="utf-8") == "B's export"
    assert (aside / "checkpoint_00001").is_dir() and not (out / "checkpoint_00001").exists()
    assert [json.loads(line)["iteration"] for line in (out / "progress.jsonl").read_text(encoding="utf-8").splitlines()] == [4]
    assert json.loads((out / "run.json").read_text(encoding="utf-8"))["env"] == "terralore_v0"
    assert (out / "checkpoint_00004").is_dir()


def test_resuming_an_earlier_checkpoint_of_a_folder_that_holds_later_ones_is_refused_and_changes_nothing(
        terralore_run, tmp_path):
    # the resumed run wrote its checkpoint_00003 over the one there, and a second row for iteration 3
    import shutil
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    folder = tmp_path / "run"
    shutil.copytree(run_dir, folder, ignore=shutil.ignore_patterns("run.lock"))
    before = _files(folder)
    here = replace(cfg, iterations=5, output=replace(cfg.output, dir=str(folder)))
    with pytest.raises(ConfigError, match=r"holds checkpoint_00003, saved after checkpoint_00002 \(iteration 2\): "
                                          r"resuming from it would overwrite them; resume from the latest"):
        train(here, log=lambda *_: None, resume=folder / "checkpoint_00002")
    assert _files(folder) == before


@pytest.mark.parametrize("damage, message", [
    ("module", r"checkpoint_00003.*module_state.pkl cannot be read \(UnpicklingError: pickle data was truncated\); it "
               r"is damaged or incomplete"),
    ("run_list", r"run.json, beside the checkpoint, is no run record"),
    ("run_text", r"run.json, beside the checkpoint, cannot be read \(Expecting property name"),
])
def test_a_damaged_checkpoint_or_run_record_is_named_before_anything_is_written(terralore_run, tmp_path, damage,
                                                                                message):
    # a truncated state file met --resume after Ray had started (and --export-checkpoint) as an
    # UnpicklingError traceback; a run.json of the wrong shape as an AttributeError
    import shutil
    from dataclasses import replace

    from training.rllib_train import export_checkpoint, train

    cfg, run_dir, _ = terralore_run
    folder = tmp_path / "run"
    shutil.copytree(run_dir / "checkpoint_00003", folder / "checkpoint_00003")
    shutil.copy(run_dir / "run.json", folder / "run.json")
    if damage == "module":
        (state,) = (folder / "checkpoint_00003").rglob("main/module_state.pkl")
        state.write_bytes(state.read_bytes()[:40])
    else:
        (folder / "run.json").write_text("[1, 2]" if damage == "run_list" else "{bad", encoding="utf-8")
    before = _files(folder)
    here = replace(cfg, iterations=5, output=replace(cfg.output, dir=str(tmp_path / "out")))
    with pytest.raises(ConfigError, match=message):
        train(here, log=lambda *_: None, resume=folder / "checkpoint_00003")
    with pytest.raises(ConfigError, match=message):
        export_checkpoint(cfg, folder / "checkpoint_00003", tmp_path / "export")
    assert _files(folder) == before and not (tmp_path / "out").exists() and not list(tmp_path.glob("export*"))


@pytest.mark.parametrize("environment, address, joins", [
    ({}, None, "local"), ({"RAY_ADDRESS": "10.1.2.3:6379"}, None, "10.1.2.3:6379"),
    ({"RAY_ADDRESS": "local"}, None, "local"), ({"RAY_ADDRESS": "10.1.2.3:6379"}, "auto", "auto"),
])
def test_a_run_starts_a_local_ray_of_its_own_unless_an_address_or_ray_address_names_a_cluster(
        tmp_path, monkeypatch, environment, address, joins):
    # ray.init() without an address joined the cluster a `ray start` had left on the machine
    # (/tmp/ray/ray_current_cluster) and refused num_cpus there: a ValueError traceback
    from training.rllib_train import load_rllib_config, start_ray

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    calls = []
    monkeypatch.setattr(ray, "init", lambda **kw: calls.append(kw))
    monkeypatch.setattr("training.rllib_train.check_reachable", lambda address: None)  # no cluster at 10.1.2.3
    start_ray(load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path)}}), address)
    (kw,) = calls
    assert kw["address"] == joins
    assert ("num_cpus" in kw) == (joins == "local")


def test_a_cluster_that_cannot_be_joined_is_an_error_naming_its_address_and_how_to_start_one_or_run_locally(
        tmp_path, monkeypatch):
    # `--address auto` with no `ray start` on the machine ended in Ray's ConnectionError traceback
    from tabletop_envs.core.errors import TabletopError
    from training.rllib_train import load_rllib_config, start_ray

    def init(**kw):
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "init", init)
    with pytest.raises(TabletopError, match=r"cannot join the Ray cluster at 'auto' \(Could not find any running Ray "
                                            r"instance.\): start it first \(ray start --head .*--address local"):
        start_ray(load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path)}}), "auto")


def test_the_command_lines_address_comes_first_then_the_recipes_then_ray_address(tmp_path, monkeypatch):
    # as --address's help and ray.address's meaning say; the recipe's "local" is local whatever RAY_ADDRESS says
    from training.rllib_train import load_rllib_config, ray_address

    monkeypatch.setenv("RAY_ADDRESS", "10.1.2.3:6379")
    recipe = {**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path)}}
    cluster = load_rllib_config(data={**recipe, "ray": {"address": "head:6379"}})
    assert (ray_address(cluster, None), ray_address(cluster, "auto"), ray_address(cluster, "local")) == (
        "head:6379", "auto", "")
    assert ray_address(load_rllib_config(data={**recipe, "ray": {"address": "local"}}), None) == ""
    assert ray_address(load_rllib_config(data=recipe), None) == "10.1.2.3:6379"


def test_a_local_ray_gets_the_recipes_cpus_and_dashboard_and_this_checkout_on_its_workers_path(tmp_path, monkeypatch):
    # the env runners import tabletop_envs and training from the checkout the script runs from
    import os

    from training.rllib_train import REPO_ROOT, load_rllib_config, start_ray

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    calls = []
    monkeypatch.setattr(ray, "init", lambda **kw: calls.append(kw))
    start_ray(load_rllib_config(data={**TINY, "env": "toy_v0", "ray": {"num_cpus": 3, "include_dashboard": True},
                                      "output": {"dir": str(tmp_path)}}), None)
    (kw,) = calls
    assert (kw["num_cpus"], kw["include_dashboard"]) == (3, True)
    assert kw["runtime_env"]["env_vars"]["PYTHONPATH"].split(os.pathsep) == [str(REPO_ROOT), "/elsewhere"]


def test_the_local_ray_a_run_started_is_shut_down_at_its_end_also_on_error(tmp_path, monkeypatch):
    import contextlib

    from tabletop_envs.core.errors import TabletopError

    calls = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as from the command line (no Ray of a test)
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    for failure in (None, "died"):
        calls.clear()
        rt = _fake_training(monkeypatch, calls, failure)
        cfg = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "iterations": 3,
                                         "output": {"dir": str(tmp_path / str(failure)), "export": False}})
        with pytest.raises(TabletopError) if failure else contextlib.nullcontext():
            rt.train(cfg, log=lambda line: None)
        assert calls == ["stop", "shutdown"], failure  # the algorithm's actors first, then their Ray


def test_a_run_whose_algorithm_cannot_be_built_reports_the_builds_own_error_and_still_shuts_its_ray_down(
        tmp_path, monkeypatch):
    # there is no algorithm to stop then: stopping one anyway would replace the build's error with an AttributeError
    calls = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as from the command line (no Ray of a test)
    monkeypatch.setattr(ray, "shutdown", lambda: calls.append("shutdown"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    rt = _fake_training(monkeypatch, calls)

    class Unbuildable:
        def build_algo(self):
            raise RuntimeError("no env runner could be placed")

    monkeypatch.setattr(rt, "build_algo_config", lambda cfg, seed=None: Unbuildable())
    cfg = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "iterations": 1, "output": {"dir": str(tmp_path)}})
    with pytest.raises(RuntimeError, match="no env runner could be placed"):
        rt.train(cfg, log=lambda line: None)
    assert calls == ["shutdown"]


def test_a_run_resumed_in_place_moves_the_progress_rows_after_its_checkpoint_aside(terralore_run, tmp_path):
    # a run that stopped after iteration 3 with its last checkpoint at 2: the resumed run wrote a second row for
    # iteration 3 into progress.jsonl
    import shutil
    from dataclasses import replace

    from training.rllib_train import train

    cfg, run_dir, _ = terralore_run
    folder = tmp_path / "run"
    shutil.copytree(run_dir, folder, ignore=shutil.ignore_patterns("run.lock", "checkpoint_00003"))
    first = (folder / "progress.jsonl").read_text(encoding="utf-8").splitlines()
    said = []
    train(replace(cfg, iterations=3, output=replace(cfg.output, dir=str(folder), export=False)), log=said.append,
          resume=folder / "checkpoint_00002")
    rows = [json.loads(line) for line in (folder / "progress.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2, 3] and rows[:2] == [json.loads(line) for line in first[:2]]
    assert (folder / "progress.after-2.jsonl").read_text(encoding="utf-8").splitlines() == first[2:]
    assert any("moved to progress.after-2.jsonl" in line for line in said)


def test_a_run_resumed_in_place_after_a_crash_cut_its_last_progress_row_short_writes_rows_that_can_be_read(
        terralore_run, tmp_path, monkeypatch):
    # found by a coverage audit: the resumed run's first row ended the cut-short line, where no reader finds it
    import shutil
    from dataclasses import replace

    cfg, run_dir, _ = terralore_run
    folder = tmp_path / "run"
    shutil.copytree(run_dir, folder, ignore=shutil.ignore_patterns("run.lock"))
    rows = "".join(json.dumps({"iteration": i, "env_steps_sampled": 100 * i}) + "\n" for i in (1, 2, 3))
    (folder / "progress.jsonl").write_text(rows + '{"iteration": 4, "env_st', encoding="utf-8")  # the fake's counts
    rt = _fake_training(monkeypatch, [])
    rt.train(replace(cfg, iterations=5, output=replace(cfg.output, dir=str(folder), export=False)),
             log=lambda line: None, resume=folder / "checkpoint_00003")
    assert [rt._steps_at(folder, i) for i in (3, 4, 5)] == [300, 400, 500]


@pytest.mark.parametrize("flag", ["--export-checkpoint", "--resume"])
def test_a_checkpoint_given_on_the_command_line_may_start_with_the_home_folder(tmp_path, monkeypatch, flag):
    # as --config and output.dir: "~/runs/x/checkpoint_00002" named a folder "~" in the working directory
    import training.rllib_train as rt

    monkeypatch.setenv("HOME", str(tmp_path))
    seen = []
    monkeypatch.setattr(rt, "export_checkpoint", lambda cfg, checkpoint, **kw: seen.append(checkpoint) or tmp_path / "m")
    monkeypatch.setattr(rt, "train", lambda cfg, address, resume=None, command=None: seen.append(resume) or {})
    rt.main(["--config", "configs/rllib_terralore.yaml", "--set", f"output.dir={tmp_path / 'out'}",
             flag, "~/run/checkpoint_00002"])
    assert seen == [tmp_path / "run" / "checkpoint_00002"]


def test_an_exported_checkpoints_printed_act_is_the_recipes_eval_deterministic(tmp_path, monkeypatch, capsys):
    # the line --export-checkpoint prints says how the export plays, as its sidecar's act does
    import training.rllib_train as rt

    monkeypatch.setattr(rt, "export_checkpoint", lambda cfg, checkpoint, **kw: tmp_path / "m.onnx")
    for deterministic, act in (("true", "argmax"), ("false", "sample")):
        rt.main(["--config", "configs/rllib_terralore.yaml", "--set", f"output.dir={tmp_path / 'out'}",
                 "--set", f"eval.deterministic={deterministic}", "--export-checkpoint", str(tmp_path / "c")])
        assert f"act {act}, from eval.deterministic" in capsys.readouterr().out


def test_a_resumed_run_whose_first_iteration_samples_nothing_new_stops_too(terralore_run, tmp_path, monkeypatch):
    # RLlib restores the lifetime step count with the checkpoint, so the first iteration of a resumed run
    # reported the checkpoint's count when it sampled nothing: with no row of its own before it, that passed
    # as sampled, and the run went on, and exported, trained on nothing
    import shutil
    from dataclasses import replace

    from tabletop_envs.core.errors import TabletopError

    cfg, run_dir, _ = terralore_run
    folder = tmp_path / "run"
    shutil.copytree(run_dir, folder, ignore=shutil.ignore_patterns("run.lock"))
    (folder / "progress.jsonl").write_text("".join(json.dumps({"iteration": i, "env_steps_sampled": 100 * i}) + "\n"
                                                   for i in (1, 2, 3)), encoding="utf-8")  # the fake's counts
    resumed = replace(cfg, iterations=5, output=replace(cfg.output, dir=str(folder), export=False))
    calls = []
    rt = _fake_training(monkeypatch, calls, "stalled_first")
    with pytest.raises(TabletopError, match=r"iteration 4 sampled no env steps: an env runner failed"):
        rt.train(resumed, log=lambda line: None, resume=folder / "checkpoint_00003")
    assert calls == ["stop"] and not (folder / "checkpoint_00004").exists()
    rt = _fake_training(monkeypatch, calls)  # one that samples: resumed as before
    summary = rt.train(resumed, log=lambda line: None, resume=folder / "checkpoint_00003")
    assert [h["env_steps_sampled"] for h in summary["history"]] == [400, 500]


def test_a_run_plays_its_eval_games_with_the_policy_it_exported_and_reports_them(tmp_path, monkeypatch):
    # output.eval_games play the export of the run's last 'main', after its last iteration
    from pathlib import Path

    calls, exported, said = [], [], []
    rt = _fake_training(monkeypatch, calls)
    monkeypatch.setattr(rt, "trained_module", lambda algo, module_id="main": module_id)

    def export(module, out_stem, cfg, steps, iterations, command=None):
        exported.append((module, steps, iterations))
        return Path(f"{out_stem}.onnx")

    monkeypatch.setattr(rt, "export_module", export)
    monkeypatch.setattr(rt, "evaluate_export", lambda cfg, path, games: {"model": path, "games": games})
    for export_it in (True, False):
        cfg = rt.load_rllib_config(data={**TINY, "env": "toy_v0", "iterations": 2, "eval": {"opponents": ["random"]},
                                         "output": {"dir": str(tmp_path / str(export_it)), "eval_games": 20,
                                                    "export": export_it}})
        summary = rt.train(cfg, log=said.append)
        if export_it:
            assert exported == [("main", 200, 2)]
            assert summary["evaluation"] == {"model": (tmp_path / "True" / "rllib_ppo.onnx").resolve(), "games": 20}
        else:
            assert "evaluation" not in summary and len(exported) == 1
            assert "output.export=false, so the output.eval_games=20 games against random (played" in said[-1]


def test_the_command_line_passes_its_address_and_its_own_arguments_as_the_sidecars_command(tmp_path, monkeypatch):
    # main(argv) from Python records argv, not the arguments of the program that called it (pytest's here)
    import shlex

    import training.rllib_train as rt

    seen = {}
    monkeypatch.setattr(rt, "train", lambda cfg, address, resume=None, command=None:
                        seen.update(address=address, command=command) or {})
    monkeypatch.setattr(rt, "export_checkpoint", lambda cfg, checkpoint, command=None:
                        seen.update(export=command) or tmp_path / "m.onnx")
    recipe = ["--config", "configs/rllib_terralore.yaml", "--set", f"output.dir={tmp_path / 'out'}"]
    rt.main([*recipe, "--address", "auto"])
    assert seen == {"address": "auto",
                    "command": "python -m training.rllib_train " + shlex.join([*recipe, "--address", "auto"])}
    rt.main([*recipe, "--export-checkpoint", str(tmp_path / "c")])
    assert seen["export"] == "python -m training.rllib_train " + shlex.join(
        [*recipe, "--export-checkpoint", str(tmp_path / "c")])


def test_exporting_a_folder_without_module_main_says_which_folder_is_missing_and_writes_nothing(tmp_path):
    from training.rllib_train import export_checkpoint, load_rllib_config

    cfg = load_rllib_config(data={**TINY, "env": "toy_v0", "output": {"dir": str(tmp_path / "out")}})
    (tmp_path / "checkpoint_00001").mkdir()
    with pytest.raises(FileNotFoundError, match=r"checkpoint_00001 is not an RLlib checkpoint of this trainer: "
                                                r".*learner_group/learner/rl_module/main is missing"):
        export_checkpoint(cfg, tmp_path / "checkpoint_00001", tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint_00001"]


def test_a_checkpoint_exported_without_an_out_stem_lands_beside_it_not_over_the_runs_own_export(terralore_run,
                                                                                                 tmp_path):
    # --export-checkpoint gives no out_stem: its export must not replace the run's final one in the folder
    import shutil

    from training.rllib_train import export_checkpoint

    cfg, run_dir, _ = terralore_run
    folder = tmp_path / "run"
    shutil.copytree(run_dir, folder, ignore=shutil.ignore_patterns("run.lock"))
    final = {p.name: p.read_bytes() for p in folder.glob("rllib_ppo.*")}
    path = export_checkpoint(cfg, folder / "checkpoint_00002")
    assert path.parent == folder and "checkpoint_00002" in path.name
    assert json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["training"]["iterations"] == 2
    assert {p.name: p.read_bytes() for p in folder.glob("rllib_ppo.*")} == final


def _toy_run(run_dir, iterations: int = 50, eval_opponents=("random",), **output):
    """The stop tests' recipe: the toy game, sampled in the driver (the remote runners do not know it)."""
    from training.rllib_train import load_rllib_config

    return load_rllib_config(data={**TINY, "env": "toy_v0", "iterations": iterations,
                                   "eval": {"opponents": list(eval_opponents)},
                                   "env_runners": {"num_env_runners": 0, "num_envs_per_env_runner": 2},
                                   "output": {"dir": str(run_dir), **output}})


def _signalled_at_iteration(monkeypatch, sig, at: int, then: str = "finishes") -> None:
    """Algorithm.train sends ``sig`` to this process during iteration ``at`` (as a scheduler or a Ctrl-C would
    while the driver waits on its env runners), then finishes it, or fails or samples nothing as env runners that
    the signal ended would make it (the toy game samples in the driver: the remote runners do not know it)."""
    import signal

    from ray.rllib.algorithms.algorithm import Algorithm

    real = Algorithm.train

    def train(self):
        if self.iteration + 1 == at:
            signal.raise_signal(sig)
            if then == "fails":
                raise ray.exceptions.RayActorError()
            if then == "samples nothing":  # the runners' sampling timed out
                return {"training_iteration": at, "env_runners": {}}
        return real(self)

    monkeypatch.setattr(Algorithm, "train", train)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_stop_signal_ends_the_rllib_run_after_its_iteration_with_a_checkpoint_and_an_export(
        local_ray, tmp_path, monkeypatch, sig):
    # Ctrl-C ended the run on the spot, and Ray's SIGTERM handler exited the driver (status 15): every iteration since
    # the last checkpoint (10 by default) was lost, and nothing was exported
    import signal

    from tabletop_envs import load_policy
    from training.rllib_train import train

    run_dir = tmp_path / "run"
    cfg = _toy_run(run_dir, checkpoint_every=10, eval_games=2)
    _signalled_at_iteration(monkeypatch, getattr(signal, sig), at=2)
    said: list[str] = []
    summary = train(cfg, log=said.append)
    assert summary["interrupted"] is True and [h["iteration"] for h in summary["history"]] == [1, 2]
    assert summary["checkpoint"] == str(run_dir / "checkpoint_00002") and (run_dir / "checkpoint_00002").is_dir()
    assert (f"stopped after iteration 2 of 50: {run_dir / 'checkpoint_00002'} saved, exporting; "
            f"--resume {run_dir / 'checkpoint_00002'} continues the run") in said, said
    assert load_policy(summary["model"]).metadata["training"]["iterations"] == 2
    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # Ray's own handler, put back


@pytest.mark.parametrize("then", ["fails", "samples nothing"])
def test_a_stop_signal_that_also_ends_the_env_runners_names_the_last_checkpoint_to_resume_from(
        local_ray, tmp_path, monkeypatch, then):
    import signal

    from training.rllib_train import train

    run_dir = tmp_path / "run"
    cfg = _toy_run(run_dir, checkpoint_every=1, eval_games=0)
    _signalled_at_iteration(monkeypatch, signal.SIGTERM, at=2, then=then)
    said: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        train(cfg, log=said.append)
    assert said[-1].startswith("stopped during iteration 2: the env runners ended with the signal") and said[-1].endswith(
        f", so it was not saved; --resume {run_dir / 'checkpoint_00001'} continues the run from there"), said[-1]
    # the iteration's own error is named (its text is Ray's, which changes between releases)
    assert (" (RayActorError: " in said[-1]) == (then == "fails"), said[-1]
    assert sorted(p.name for p in run_dir.glob("checkpoint_*")) == ["checkpoint_00001"]


@pytest.mark.skipif(not hasattr(__import__("os"), "killpg"), reason="POSIX process groups")
def test_a_batch_schedulers_sigterm_to_every_process_of_the_job_stops_the_rllib_command_with_an_export(tmp_path):
    # the whole command as a scheduler ends it at its time limit: SIGTERM to the driver and every Ray process
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    run_dir = tmp_path / "run"
    sets = ["env=terralore_v0", "iterations=1000", "output.checkpoint_every=100", "output.eval_games=2",
            "ppo.train_batch_size_per_learner=256", "ppo.minibatch_size=128", "ppo.num_epochs=1",
            "model.fcnet_hiddens=[32]", "env_runners.num_envs_per_env_runner=4", f"output.dir={run_dir}"]
    proc = subprocess.Popen([sys.executable, "-m", "training.rllib_train", "--config", "configs/rllib_terralore.yaml",
                             *(a for s in sets for a in ("--set", s))], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True,
                            cwd=Path(__file__).resolve().parents[2])
    out: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            if line.startswith("iter    2 "):
                os.killpg(proc.pid, signal.SIGTERM)
                break
        out.append(proc.communicate(timeout=240)[0])
    finally:
        with __import__("contextlib").suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    text = "".join(out)
    assert proc.returncode == 130, text
    last = sorted(run_dir.glob("checkpoint_*"))[-1]
    assert last.name >= "checkpoint_00002" and f"--resume {last} continues the run" in text, text
    assert json.loads((run_dir / "rllib_ppo.json").read_text(encoding="utf-8"))["training"]["iterations"] == int(
        last.name.split("_")[1])


def test_a_second_stop_signal_while_the_checkpoint_is_written_aborts_once_it_is_whole(local_ray, tmp_path, monkeypatch):
    # a second Ctrl-C aborts at once, but not in the middle of the checkpoint that --resume would need
    import signal

    from ray.rllib.algorithms.algorithm import Algorithm

    from training.rllib_train import check_checkpoint_loads, checkpoint_iteration, train

    run_dir = tmp_path / "run"
    cfg = _toy_run(run_dir, checkpoint_every=10, eval_games=0)
    _signalled_at_iteration(monkeypatch, signal.SIGINT, at=2)
    save = Algorithm.save_to_path

    def save_interrupted(self, *args, **kwargs):
        signal.raise_signal(signal.SIGINT)
        return save(self, *args, **kwargs)

    monkeypatch.setattr(Algorithm, "save_to_path", save_interrupted)
    with pytest.raises(KeyboardInterrupt):
        train(cfg, log=lambda *_: None)
    assert checkpoint_iteration(run_dir / "checkpoint_00002") == 2
    check_checkpoint_loads(run_dir / "checkpoint_00002")
    assert not (run_dir / "rllib_ppo.onnx").exists()


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGHUP"), reason="POSIX signals")
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_after_the_last_iteration_ends_the_rllib_command_with_the_interrupts_status(tmp_path, sig):
    # outside the iterations (Ray starting, the export, the evaluation) Ray's SIGTERM handler exited with status 15
    # and not a word, and a SIGHUP killed the driver, leaving Ray's agent processes running; training.train ends 130
    import subprocess
    import sys
    from pathlib import Path

    from processes import stop_signals_at_their_defaults

    run_dir = tmp_path / "run"
    sets = ["env=terralore_v0", "iterations=1", "output.eval_games=2", "ppo.train_batch_size_per_learner=128",
            "ppo.minibatch_size=64", "ppo.num_epochs=1", "model.fcnet_hiddens=[16]", f"output.dir={run_dir}"]
    script = ("import signal, sys\n"
              "import training.rllib_train as r\n"
              "def evaluated(*args):\n"  # the signal comes while the exported policy is evaluated
              f"    signal.raise_signal(signal.{sig})\n"
              "r.evaluate_export = evaluated\n"
              "sys.argv[0] = 'training.rllib_train'\n"
              "r.cli()\n")
    done = subprocess.run([sys.executable, "-c", script, "--config", "configs/rllib_terralore.yaml",
                           *(a for s in sets for a in ("--set", s))], capture_output=True, text=True, timeout=240,
                          cwd=Path(__file__).resolve().parents[2], preexec_fn=stop_signals_at_their_defaults)
    assert done.returncode == 130, done.stderr
    assert done.stderr.rstrip().splitlines()[-1] == "interrupted" and "Traceback" not in done.stderr, done.stderr
    assert (run_dir / "rllib_ppo.onnx").is_file() and (run_dir / "checkpoint_00001").is_dir()


def test_a_stop_signal_that_lands_as_an_iteration_is_checked_stops_after_the_next_one_with_its_checkpoint(
        local_ray, tmp_path, monkeypatch):
    # the signal landed right after the run read that none had come, before this iteration's checkpoint: the run
    # then stopped without one, on a NameError where none had been saved yet, or naming an older one
    import signal

    from ray.rllib.algorithms.algorithm import Algorithm

    import training.rllib_train as rllib_train

    class SignalAfterTheRead(rllib_train.StopRequest):
        armed = False

        @property
        def signum(self):
            value = self._signum
            if SignalAfterTheRead.armed:
                SignalAfterTheRead.armed = False
                signal.raise_signal(signal.SIGTERM)
            return value

        @signum.setter
        def signum(self, value):
            self._signum = value

    real = Algorithm.train

    def train(self):
        result = real(self)
        SignalAfterTheRead.armed = self.iteration == 2
        return result

    monkeypatch.setattr(rllib_train, "StopRequest", SignalAfterTheRead)
    monkeypatch.setattr(Algorithm, "train", train)
    run_dir = tmp_path / "run"
    cfg = _toy_run(run_dir, checkpoint_every=10, eval_games=0, export=False)
    said: list[str] = []
    summary = rllib_train.train(cfg, log=said.append)
    assert summary["interrupted"] is True and [h["iteration"] for h in summary["history"]] == [1, 2, 3]
    assert summary["checkpoint"] == str(run_dir / "checkpoint_00003")
    # without output.export the line promised an export all the same
    assert (f"stopped after iteration 3 of 50: {run_dir / 'checkpoint_00003'} saved; "
            f"--resume {run_dir / 'checkpoint_00003'} continues the run") in said, said
    assert rllib_train.checkpoint_iteration(run_dir / "checkpoint_00003") == 3


def test_a_stop_signal_in_the_last_iteration_ends_the_rllib_run_as_finished(local_ray, tmp_path, monkeypatch):
    # nothing is left to resume: the run is not 'interrupted', and the command ends with 0, not 130
    import signal

    from training.rllib_train import train

    run_dir = tmp_path / "run"
    cfg = _toy_run(run_dir, iterations=2, checkpoint_every=10, eval_games=0)
    _signalled_at_iteration(monkeypatch, signal.SIGTERM, at=2)
    summary = train(cfg, log=lambda *_: None)
    assert summary["interrupted"] is False and summary["checkpoint"] == str(run_dir / "checkpoint_00002")
