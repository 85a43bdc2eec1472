"""The conformance harness, run automatically for every registered env and player count."""

from __future__ import annotations

import option_sets
import pytest

from tabletop_envs.core import conformance
from tabletop_envs.core.registry import ENVS, available_envs

CASES = [(name, {"num_players": n} if len(ENVS[name].player_counts) > 1 else {})
         for name in available_envs() for n in ENVS[name].player_counts]
IDS = [f"{name}-{kw.get('num_players', 2)}p" for name, kw in CASES]


def test_every_registered_env_is_available():
    assert available_envs() == list(ENVS), "a registered env's module is missing"


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_pettingzoo_api_test_with_warnings_as_errors(env_name, kwargs):
    conformance.check_api(env_name, kwargs)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_pettingzoo_turn_based_parallel_conversion_passes_parallel_api_test(env_name, kwargs):
    conformance.check_parallel(env_name, kwargs)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_pettingzoo_seed_test(env_name, kwargs):
    conformance.check_seed(env_name, kwargs)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_seeded_play_ignores_and_keeps_the_global_generators_and_unseeded_resets_deal_anew(env_name, kwargs):
    conformance.check_seed_independence(env_name, kwargs, opponent=f"{env_name}/heuristic")


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_pickle_round_trip_mid_game(env_name, kwargs):
    conformance.check_pickle(env_name, kwargs)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_pettingzoo_state_is_every_seats_observation_in_state_space(env_name, kwargs):
    conformance.check_global_state(env_name, kwargs)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_clone_and_to_dict_round_trip(env_name, kwargs):
    conformance.check_clone_and_dict(env_name, kwargs, seeds=range(3))


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_the_views_of_a_seat_refuse_what_is_no_seat_of_the_game(env_name, kwargs):
    conformance.check_seat_arguments(env_name, kwargs)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_random_legal_games_keep_invariants(env_name, kwargs):
    conformance.check_random_games(env_name, kwargs, num_games=60)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_the_mask_in_info_is_read_only_at_every_decision_so_editing_it_cannot_change_the_rules(env_name, kwargs):
    # info["action_mask"] is the engine's cached mask (no copy per move); Earth cached the mask it built
    # while advancing to the next decision writeable, so info["action_mask"][:] = 1 made the engine
    # accept any action
    import numpy as np

    env = conformance.env_fn(env_name, **kwargs)()
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(60):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        mask = env.infos[agent]["action_mask"]
        assert not mask.flags.writeable, f"{env_name} {kwargs}: info['action_mask'] of {agent} is writeable"
        env.step(int(rng.choice(np.flatnonzero(mask))))


# Earth games are 300–1,300 decisions long (the card games ~100), so it gets fewer per player count.
FUZZ_GAMES = {"terralore_v0": 3000, "travel_earth_v0": 3000, "earth_v0": 300}


@pytest.mark.slow
@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_thousands_of_random_legal_games_keep_invariants(env_name, kwargs):
    conformance.check_random_games(env_name, kwargs, num_games=FUZZ_GAMES.get(env_name, 2000), seed=7)


OPTION_CASES = [(name, kw) for name in available_envs() for kw in option_sets.option_cases(name)]


@pytest.mark.parametrize("env_name", available_envs())
def test_every_rule_option_of_a_game_has_its_non_default_values_in_option_sets(env_name):
    """The option-space tests (pairs of options, replays and pictures under options) play what
    tests/option_sets.py lists: a game or an option missing there is never played off its default."""
    import inspect

    from tabletop_envs.core.registry import make_game

    game_class = type(make_game(env_name))
    options = {n for n in inspect.signature(game_class.__init__).parameters if n not in ("self", "num_players")}
    listed = {k for one in option_sets.NON_DEFAULT.get(env_name, []) for k in one}
    assert not options - listed, (f"{env_name}: rule options {sorted(options - listed)} have no non-default value in "
                                  f"NON_DEFAULT of tests/option_sets.py (and ALL_AT_ONCE there): add them")
    assert set(option_sets.ALL_AT_ONCE.get(env_name, {})) - {"num_players"} == options, \
        f"{env_name}: ALL_AT_ONCE in tests/option_sets.py sets every rule option {sorted(options)} off its default"


@pytest.mark.slow
@pytest.mark.parametrize(("env_name", "kwargs"), OPTION_CASES, ids=[option_sets.case_id(*c) for c in OPTION_CASES])
def test_every_non_default_rule_option_and_pair_of_them_keeps_the_checks_and_the_bots_play_it(env_name, kwargs):
    # the checks above play the defaults; a rule option changes the deal, the masks and the end of the game
    from tabletop_envs.core.arena import play_match

    earth = env_name == "earth_v0"  # games 10 times as long
    conformance.check_random_games(env_name, kwargs, num_games=2 if earth else 20)
    conformance.check_mask_equals_rules(env_name, kwargs, num_states=4 if earth else 10)
    conformance.check_no_leak(env_name, kwargs, num_states=4 if earth else 10)
    conformance.check_clone_and_dict(env_name, kwargs, seeds=range(1))
    n = kwargs.get("num_players", 2)
    if n > 1:  # play_match raises IllegalActionError on a move the rules refuse
        result = play_match(env_name, [f"{env_name}/heuristic"] + [f"{env_name}/random"] * (n - 1), n, seed=1,
                            game_kwargs=kwargs)
        assert result.games == n


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_max_turns_truncation_ends_every_game(env_name, kwargs):
    conformance.check_max_turns(env_name, kwargs)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_mask_equals_rules(env_name, kwargs):
    conformance.check_mask_equals_rules(env_name, kwargs, num_states=25)


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_observation_does_not_leak_hidden_information(env_name, kwargs):
    conformance.check_no_leak(env_name, kwargs, num_states=40)


@pytest.mark.parametrize("env_name", list(ENVS))
def test_documentation_page_shows_the_layouts(env_name):
    conformance.check_doc_page(env_name)


@pytest.mark.parametrize("env_name", list(ENVS))
def test_registered_with_pettingzoo_and_gymnasium(env_name):
    import gymnasium
    import pettingzoo

    import tabletop_envs

    spec = ENVS[env_name]
    env = pettingzoo.make("aec", spec.pettingzoo_id)
    env.reset(seed=0)
    assert env.metadata["name"] == env_name
    module = getattr(tabletop_envs, env_name)
    assert type(module.env()) is type(env)
    single = gymnasium.make(spec.gymnasium_id, opponent=f"{env_name}/random")
    obs, info = single.reset(seed=0)
    assert single.observation_space.contains(obs)
    assert single.unwrapped.action_masks().any()
    single.close()


@pytest.mark.parametrize("env_name", list(ENVS))
def test_gymnasium_make_vec_plays_whole_episodes_with_the_masks_it_hands_out(env_name):
    # CleanRL-style loops: gymnasium's own vector env, masks from call("action_masks"), autoreset
    import gymnasium
    import numpy as np

    import tabletop_envs  # noqa: F401  (registers the envs)

    envs = gymnasium.make_vec(ENVS[env_name].gymnasium_id, num_envs=2, vectorization_mode="sync",
                              opponent=f"{env_name}/random")
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    returns, steps = [], 0
    while len(returns) < 4 and steps < 20_000:
        masks = np.stack(envs.call("action_masks"))
        _, reward, terminated, truncated, _ = envs.step([rng.choice(np.flatnonzero(m)) for m in masks])
        returns += [r for r, done in zip(reward, terminated | truncated) if done]
        steps += 1
    envs.close()
    assert len(returns) >= 4 and set(returns) <= {-1.0, 0.0, 1.0}  # the default "raise": every action was legal


@pytest.mark.parametrize(("env_name", "kwargs"), CASES, ids=IDS)
def test_gymnasium_check_env_passes_on_the_single_agent_face_with_random_legal(env_name, kwargs):
    # check_env steps unmasked random actions: with the default illegal_action="raise" it stops on the
    # first illegal one (the README says so), with "random_legal" the whole check runs
    from gymnasium.utils.env_checker import check_env

    from tabletop_envs import IllegalActionError
    from tabletop_envs.core import SingleAgentEnv

    check_env(SingleAgentEnv(env_name, illegal_action="random_legal", **kwargs), skip_render_check=True)
    # it stops exactly where check_env first steps an action the mask refuses (a game whose masks allow
    # most actions may meet none: the check then runs through)
    env = SingleAgentEnv(env_name, **kwargs)
    illegal = []
    step = env.step
    env.step = lambda action: (illegal.append(not env.action_masks()[int(action)]), step(action))[1]
    try:
        check_env(env, skip_render_check=True)
    except IllegalActionError:
        assert illegal and illegal[-1] and not any(illegal[:-1])
    else:
        assert not any(illegal)


@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0"])
@pytest.mark.parametrize("value", ["2", 2.0, True])
def test_a_two_player_game_names_a_num_players_of_another_type_as_given(env_name, value):
    from tabletop_envs.core.errors import ConfigError
    from tabletop_envs.core.registry import make_game

    # "2" was reported as "got num_players=2", and 2.0 was accepted
    with pytest.raises(ConfigError, match=f"two-player game; got num_players={value!r}$"):
        make_game(env_name, num_players=value)


# Plays every env and player count from fixed seeds (random legal moves, then each game's heuristic
# against its shipped model) and prints one digest of every observation, mask, reward and result.
_DIGEST_SCRIPT = """
import hashlib
import numpy as np
from tabletop_envs.core.arena import play_match
from tabletop_envs.core.registry import ENVS, available_envs, get_spec
h = hashlib.sha1()
for name in available_envs():
    for n in ENVS[name].player_counts:
        kwargs = {"num_players": n} if len(ENVS[name].player_counts) > 1 else {}
        env = get_spec(name).load_module().env(**kwargs)
        env.reset(seed=n)
        rng = np.random.default_rng(n)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            h.update(obs["observation"].tobytes() + obs["action_mask"].tobytes() + np.float64(reward).tobytes())
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    model = "earth_v0/ppo" if name == "earth_v0" else name + "/ppo"
    result = play_match(name, [name + "/heuristic", model], 2, seed=5,
                        game_kwargs={"num_players": 2} if name == "earth_v0" else None)
    h.update(repr(result).encode())
print(h.hexdigest())
"""


def test_seeded_play_is_the_same_under_every_string_hash_seed():
    # Python salts str hashes per process: an engine, bot or policy that iterated a set of names
    # would deal, mask or choose differently from one process to the next under the same seed.
    import os
    import subprocess
    import sys

    digests = {subprocess.run([sys.executable, "-c", _DIGEST_SCRIPT], check=True, capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": str(salt)}).stdout.strip()
               for salt in (1, 2)}
    assert len(digests) == 1 and len(next(iter(digests))) == 40
