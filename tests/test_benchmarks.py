"""The benchmark scripts' command lines (the README quotes them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_aec_throughput_refuses_an_unknown_only_name_instead_of_timing_the_baseline_alone(capsys, monkeypatch):
    import benchmarks.aec_throughput as bench

    monkeypatch.setattr(bench, "measure", lambda *a, **k: pytest.fail("timed envs for a mistyped --only"))
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--only", "earth", "--seconds", "0.01", "--repeats", "1"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--only: unknown name(s) ['earth']" in err and "'earth_v0 (2p)'" in err


def test_play_match_refuses_another_games_policy_by_name_before_any_game():
    from tabletop_envs import ModelMismatchError
    from tabletop_envs.core.arena import play_match

    for policy in ("earth_v0/heuristic", "earth_v0/ppo"):
        with pytest.raises(ModelMismatchError, match="plays earth_v0, not terralore_v0"):
            play_match("terralore_v0", [policy, "terralore_v0/random"], 2)


def _fail_if_the_benchmark_starts(bench, monkeypatch) -> None:
    """A refusal the script stopped making would otherwise run the whole benchmark, until pytest-timeout's 300 s
    (an audit's mutants of search_ceiling and training_throughput did). The scripts read machine_facts, from their
    module or (imported in main) from the package, once the command line is checked; search_ceiling only after its
    search, whose first deal's seed comes once its refusals are made."""

    def started(*args, **kwargs):
        pytest.fail("the benchmark started instead of refusing its command line")

    for name in ("machine_facts", "deal_seed"):
        monkeypatch.setattr(bench, name, started, raising=False)
    monkeypatch.setattr("benchmarks.machine_facts", started)


@pytest.mark.parametrize("module, argv, message", [
    ("bot_vs_random", ["--env", "terralore_v0", "--games", "0"], "the number of games must be a positive integer"),
    ("bot_vs_random", ["--env", "chess_v0", "--games", "2"], "unknown env 'chess_v0'"),
    ("bot_vs_random", ["--env", "terralore_v0", "--policy", "earth_v0/heuristic", "--games", "2"],
     "plays earth_v0, not terralore_v0"),
    # a one-seat table used to report 100 % wins: the lone policy had the unique best return every game
    ("bot_vs_random", ["--env", "earth_v0", "--players", "1", "--games", "2"], "earth_v0 with 1 player has one seat"),
    ("bot_vs_random", ["--env", "terralore_v0", "--games", "2", "--seed", "-1"], "seed must be a non-negative"),
    ("paired_losses", ["--env", "terralore_v0", "--policy", "terralore_v0/ppo", "--deals", "2", "--seed", "-1"],
     "seed must be a non-negative"),
    ("paired_losses", ["--env", "terralore_v0", "--policy", "terralore_v0/ppo", "--deals", "0"],
     "--deals must be a positive integer"),
    ("paired_losses", ["--env", "terralore_v0", "--policy", "earth_v0/ppo", "--deals", "2"],
     "plays earth_v0, not terralore_v0"),
    ("search_ceiling", ["--env", "terralore_v0", "--policy", "terralore_v0/ppo", "--worlds", "0"],
     "--worlds must be a positive integer"),
    ("search_ceiling", ["--env", "earth_v0", "--policy", "heuristic", "--env-kwargs", '{"num_players": 3}'],
     "two-player games; earth_v0 has 3 seats"),
    ("travel_earth_stalls", ["--staller", "travel_earth_v0/random", "--deals", "0"], "--deals must be a positive"),
    ("travel_earth_stalls", ["--staller", "travel_earth_v0/random", "--hand-over-after", "0"],
     "counts of quiet turns, 1 or more"),
    ("travel_earth_stalls", ["--staller", "terralore_v0/ppo", "--deals", "2"], "plays terralore_v0, not travel_earth_v0"),
    ("travel_earth_stalls", ["--staller", "travel_earth_v0/random", "--heuristic-decides", "statistic"],
     "takes PHASES@N, e.g. statistic@0"),
    ("travel_earth_stalls", ["--staller", "travel_earth_v0/random", "--heuristic-decides", "challenge@0"],
     "no phase 'challenge'; the phases are add, play, declare, statistic"),
])
def test_strength_scripts_end_a_bad_command_line_in_one_line(module, argv, message, capsys, monkeypatch):
    import importlib

    from tabletop_envs.core.errors import run_cli

    bench = importlib.import_module(f"benchmarks.{module}")
    _fail_if_the_benchmark_starts(bench, monkeypatch)
    main = bench.main
    assert run_cli(main, argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


@pytest.mark.parametrize("wins", [0, 5])
def test_bot_vs_random_keeps_its_interval_inside_0_and_1_for_a_clean_sweep(wins, monkeypatch, capsys):
    # its own copy of the Wilson formula gave [-2.8e-17, ...] and [..., 1.0000000000000002] ("-0.0" printed)
    import numpy as np

    import benchmarks.bot_vs_random as bench
    import tabletop_envs.core.arena as arena

    res = arena.MatchResult(["a", "b"], 5, np.array([wins, 5 - wins]), np.zeros(2, int), np.array([5 - wins, wins]),
                            np.zeros(2), [10] * 5)
    monkeypatch.setattr(arena, "play_match", lambda *a, **k: res)
    out = bench.main(["--env", "terralore_v0", "--games", "5"])
    lo, hi = out["ci95"]
    assert 0.0 <= lo <= out["win_rate"] <= hi <= 1.0
    assert "-0.0" not in capsys.readouterr().out


def test_bot_vs_random_reports_the_first_policys_own_draws_losses_and_mean_return(monkeypatch):
    import numpy as np

    import benchmarks.bot_vs_random as bench
    import tabletop_envs.core.arena as arena

    res = arena.MatchResult(["a", "b"], 10, np.array([6, 1]), np.array([1, 1]), np.array([3, 8]),
                            np.array([5.0, -5.0]), [10] * 10)
    monkeypatch.setattr(arena, "play_match", lambda *a, **k: res)
    out = bench.main(["--env", "terralore_v0", "--games", "10"])
    assert (out["wins"], out["draws"], out["losses"]) == (6, 1, 3)
    assert out["win_rate"] == 0.6 and out["mean_return"] == 0.5


def test_bot_vs_random_at_a_larger_table_reports_the_policys_own_draws_mean_length_and_rate_of_games_played(
        monkeypatch):
    # three seats: the opponents' entries differ from the policy's (they share draws the policy lost); games
    # are rounded up to whole rotations (3 asked, 6 played) and vary in length
    import numpy as np

    import benchmarks.bot_vs_random as bench
    import tabletop_envs.core.arena as arena

    res = arena.MatchResult(["a", "b", "c"], 6, np.array([3, 1, 0]), np.array([1, 2, 2]), np.array([2, 3, 4]),
                            np.zeros(3), [10, 20, 30, 40, 50, 90])
    monkeypatch.setattr(arena, "play_match", lambda *a, **k: res)
    out = bench.main(["--env", "earth_v0", "--players", "3", "--games", "3"])
    assert (out["games"], out["wins"], out["draws"], out["losses"]) == (6, 3, 1, 2)
    assert out["win_rate"] == 0.5 and out["mean_decisions"] == 40.0


def spy_on_play_match(monkeypatch) -> dict:
    """What benchmarks.bot_vs_random hands the arena's play_match, which still plays the games."""
    import tabletop_envs.core.arena as arena

    seen = {}
    real = arena.play_match

    def spy(env_name, policies, games, seed=0, game_kwargs=None, max_turns=None):
        seen.update(policies=policies, seed=seed, game_kwargs=game_kwargs, max_turns=max_turns)
        return real(env_name, policies, games, seed, game_kwargs, max_turns)

    monkeypatch.setattr(arena, "play_match", spy)
    return seen


def test_bot_vs_random_plays_under_the_rule_options_and_turn_limit_of_env_kwargs(monkeypatch):
    import benchmarks.bot_vs_random as bench

    seen = spy_on_play_match(monkeypatch)
    out = bench.main(["--env", "earth_v0", "--players", "3", "--games", "3",
                      "--env-kwargs", '{"fauna_side": "beginner", "max_turns": 5}'])
    assert (seen["game_kwargs"], seen["max_turns"]) == ({"fauna_side": "beginner", "num_players": 3}, 5)
    assert out["players"] == 3 and out["env_kwargs"] == {"fauna_side": "beginner", "max_turns": 5, "num_players": 3}
    from tabletop_envs.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"fauna_side must be 'normal' or 'beginner', got 'x'"):
        bench.main(["--env", "earth_v0", "--games", "2", "--env-kwargs", '{"fauna_side": "x"}'])


def test_bot_vs_random_plays_the_envs_heuristic_against_its_random_bot_by_default_from_the_seed_given(monkeypatch):
    import benchmarks.bot_vs_random as bench

    seen = spy_on_play_match(monkeypatch)
    out = bench.main(["--env", "terralore_v0", "--games", "2", "--seed", "17"])
    assert (seen["policies"], seen["seed"]) == (["terralore_v0/heuristic", "terralore_v0/random"], 17)
    assert (out["policy"], out["opponent"]) == ("terralore_v0/heuristic", "terralore_v0/random")


def test_aec_throughput_seeds_once_per_window_not_every_game():
    # A seeded reset costs PettingZoo's RLCard envs a whole rlcard.make (texas_holdem spent about half
    # its time reseeding its 5-step games) and ours a generator: reseeding every game timed seeding.
    import numpy as np

    from benchmarks.aec_throughput import run_window

    class TwoStepGame:
        def __init__(self):
            self.seeds = []

        def reset(self, seed=None):
            self.seeds.append(seed)
            self.agents, self.t = ["a"], 0

        def last(self):
            return {"action_mask": np.ones(2, np.int8)}, 0.0, False, False, {}

        def step(self, action):
            self.t += 1
            if self.t == 2:
                self.agents = []

    env = TwoStepGame()
    _, games, _, _ = run_window(env, 0.01, np.random.default_rng(0), seed=7)
    assert games > 1 and env.seeds[0] == 7 and env.seeds[1:] == [None] * games


def test_training_throughput_times_no_process_first_learn(monkeypatch):
    # a process's first learn ran 1-9 % slower; as the first timed run (a reference run) it lowered the
    # first game's ratio's denominator in round one (all of it in a one-round run)
    import benchmarks.training_throughput as tt

    calls = []

    def fake_measure(env_fns, steps, settings, seed=0, policy="fast", vec="batched"):
        calls.append(steps)
        speed = 1000.0 if len(calls) == 1 else 2000.0  # the first learn of the process is slow
        return {"steps": steps, "seconds": steps / speed, "steps_per_s": speed, "us_per_step": None}

    monkeypatch.setattr(tt, "measure", fake_measure)
    rows = tt.training_throughput(4096, 2, [], repeats=1)
    assert rows[0]["steps_per_s"] == 2000.0 and rows[0]["zero_cost_vs_reference"] == 1.0
    assert calls[0] < 4096  # the untimed warm-up is short


def test_act_latency_times_the_model_inside_games_not_back_to_back_on_recordings(monkeypatch):
    # back to back on recorded observations the weights stay in the caches: act measured 7-14 % faster
    import tabletop_envs
    from benchmarks.training_throughput import act_latency
    from tabletop_envs.core.policy import RandomPolicy

    seen = []

    class Spy(RandomPolicy):
        def act(self, obs, mask, rng):
            seen.append(mask.flags.writeable)  # the game's own (read-only, cached) mask, not a copy
            return super().act(obs, mask, rng)

    monkeypatch.setattr(tabletop_envs, "load_policy", lambda pid: Spy())
    out = act_latency("spy", "terralore_v0", {}, calls=50)
    assert out["calls"] >= 50 and len(seen) == out["calls"] and not any(seen)


def test_search_ceiling_a_rollout_search_over_random_play_beats_random_play_on_the_same_deals():
    from benchmarks.search_ceiling import search_ceiling
    from tabletop_envs import load_policy

    rand = load_policy("terralore_v0/random", env="terralore_v0")
    out = search_ceiling("terralore_v0", rand, rand, deals=6, worlds=4)
    assert out["plain"]["games"] == out["search"]["games"] == 12
    # random against random wins about half; a search that reads ahead over the same play wins most
    assert out["search"]["win"]["rate"] >= out["plain"]["win"]["rate"] + 0.25
    paired = out["paired"]  # the same 12 games seen in pairs: the search's own wins, the policy's own
    assert paired["games_only_search_won"] - paired["games_only_plain_won"] == round(
        12 * (out["search"]["win"]["rate"] - out["plain"]["win"]["rate"]))


def test_search_ceilings_paired_test_is_mcnemars_exact_binomial():
    from benchmarks.search_ceiling import paired_wins

    # 10 games only the search won, 2 only the policy: p = 2 * P(X <= 2), X ~ Bin(12, 1/2) = 2 * 79 / 4096
    plain, search = [1] * 2 + [-1] * 10 + [1] * 5, [-1] * 2 + [1] * 10 + [1] * 5
    assert paired_wins(plain, search) == {"games_only_plain_won": 2, "games_only_search_won": 10,
                                          "mcnemar_exact_p": 2 * 79 / 4096}
    assert paired_wins([1, 0], [1, 0])["mcnemar_exact_p"] == 1.0
    assert paired_wins([0] * 3, [1] * 3)["mcnemar_exact_p"] == 0.25


def test_search_ceiling_prints_and_writes_each_side_with_the_digest_of_the_model_it_searched_over(
        tmp_path, monkeypatch, capsys):
    import benchmarks.search_ceiling as sc
    from training.evaluate import PairResult

    def ceiling(env_name, policy, opponent, deals, worlds, seed, game_kwargs, max_turns):
        assert (deals, worlds, seed, game_kwargs, max_turns) == (5, 3, 7, {}, 40)
        return {"env": env_name, "plain": PairResult("plain", "opponent", 10, 4, 2, 4).rates(),
                "search": PairResult("search", "opponent", 10, 8, 0, 2).rates(),
                "paired": sc.paired_wins([1, -1, -1, -1, 1], [1, 1, 1, 1, -1])}

    monkeypatch.setattr(sc, "search_ceiling", ceiling)
    shipped = json.loads((Path(__file__).parents[1] / "models/terralore/ppo.json").read_text(encoding="utf-8"))["sha256"]
    path = tmp_path / "ceiling.json"
    out = sc.main(["--env", "terralore_v0", "--policy", "terralore_v0/ppo", "--deals", "5", "--worlds", "3",
                   "--seed", "7", "--env-kwargs", '{"max_turns": 40}', "--json", str(path)])
    assert (out["policy"], out["opponent"], out["env_kwargs"]) == ("terralore_v0/ppo", "terralore_v0/random", {})
    assert out["models"] == {"terralore_v0/ppo": shipped}  # the random opponent has no file
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("terralore_v0/ppo vs terralore_v0/random: win 40.0% [95% CI ")
    assert lines[0].endswith("draw 20.0% of 10")
    assert lines[1].startswith("search over it (3 worlds) vs terralore_v0/random: win 80.0% [95% CI ")
    assert lines[2] == "paired: 3 games won by the search alone, 1 by the policy alone (McNemar exact p = 0.625)"
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(out))


def test_search_ceiling_hands_neither_policy_a_generator_that_tells_the_deals_seed():
    # SeedSequence([deal_seed, seat]).spawn kept the deal's seed as the generators' entropy
    from generator_spy import GeneratorSpy, tells_the_seed

    from benchmarks.search_ceiling import search_ceiling

    policy, opponent = GeneratorSpy(), GeneratorSpy()
    search_ceiling("terralore_v0", policy, opponent, deals=1, worlds=0, seed=918_273_645_501)
    deal_seed = 918_273_645_501 * 1_000_003
    assert policy.first_state is not None and opponent.first_state is not None
    assert not tells_the_seed(policy, deal_seed) and not tells_the_seed(opponent, deal_seed)


def test_rllib_throughputs_sb3_rows_count_the_decisions_played(monkeypatch):
    # the counter wrapped the AEC env's step, which SingleAgentEnv stopped calling: the SB3 rows read 0
    pytest.importorskip("sb3_contrib")
    from benchmarks import rllib_throughput
    from tabletop_envs.core.single_agent import SingleAgentEnv

    played = []
    original = SingleAgentEnv.play
    monkeypatch.setattr(SingleAgentEnv, "play", lambda self, action: played.append(1) or original(self, action))
    out = rllib_throughput.sb3("terralore_v0", {}, [16], n_envs=2, n_steps=32, seconds=0.2, repeats=1)
    assert out["collect"]["steps_per_s"] > 0 and out["learn"]["steps_per_s"] > 0 and played


def test_rllib_throughputs_sb3_rows_are_named_by_their_env_count_and_are_timed_without_ray(monkeypatch):
    # each --sb3-envs size gives a collect and a learn row of its own; SB3 alone does not look for Ray
    pytest.importorskip("torch")
    import training.rllib_train
    from benchmarks import rllib_throughput

    timed = []

    def sb3(env_name, env_kwargs, hiddens, n_envs, n_steps, seconds, repeats):
        timed.append((env_name, hiddens, n_envs, n_steps, seconds, repeats))
        return {"collect": {"steps_per_s": 10.0 * n_envs, "runs": [1.0]},
                "learn": {"steps_per_s": n_envs, "runs": [2.0]}}

    monkeypatch.setattr(rllib_throughput, "sb3", sb3)
    monkeypatch.setattr(training.rllib_train, "require_ray", lambda: pytest.fail("Ray was looked for"))
    report = rllib_throughput.main(["--env", "travel_earth_v0", "--only", "sb3", "--sb3-envs", "2", "5",
                                    "--sb3-steps", "64", "--hiddens", "8", "--seconds", "0.5", "--repeats", "3"])
    assert timed == [("travel_earth_v0", [8], 2, 64, 0.5, 3), ("travel_earth_v0", [8], 5, 64, 0.5, 3)]
    collect, learn = {"steps_per_s": 10.0, "runs": [1.0]}, {"steps_per_s": 1, "runs": [2.0]}
    assert report["results"] == {
        "sb3 collect (2 envs)": {**collect, "steps_per_s": 20.0}, "sb3 learn (2 envs)": {**learn, "steps_per_s": 2},
        "sb3 collect (5 envs)": {**collect, "steps_per_s": 50.0}, "sb3 learn (5 envs)": {**learn, "steps_per_s": 5}}
    assert report["sb3_settings"] == {"n_steps": 64, "hiddens": [8], "batch_size": 256, "n_epochs": 4}


def test_aec_throughput_times_in_rounds_and_takes_the_median_of_each_rounds_ratio(monkeypatch):
    # a slow spell hits one round of every env alike: the per-round ratio cancels it, a ratio of the
    # two medians (windows of one env run back to back, then the next env's) does not
    import benchmarks.aec_throughput as bench

    order, rates = [], {"texas_holdem-v4": [100, 50, 100], "texas_holdem-v4 raw_env": [200, 100, 200],
                        "terralore_v0": [250, 125, 150]}

    def window(env, seconds, rng, seed):
        if seed == 0:  # the warm-up window
            return 1.0, 0, 10, 10
        order.append(env)
        rate = rates[env][sum(e == env for e in order) - 1]
        return rate, 1, 10, 8 if env.startswith("texas") else 10

    monkeypatch.setattr(bench, "run_window", window)
    out = bench.measure({name: (lambda n=name: n) for name in rates}, 1.0, 3)
    assert order == list(rates) * 3  # round by round, not env by env
    assert out["terralore_v0"]["steps_per_s"] == 150 and out["terralore_v0"]["ratio_vs_texas_holdem"] == 2.5
    assert out["terralore_v0"]["ratio_vs_texas_holdem_raw"] == 1.25 and "ratio_vs_hanabi" not in out["terralore_v0"]
    assert out["texas_holdem-v4"]["decisions_per_s"] == 100 * 0.8


def test_training_throughputs_raw_reference_is_connect_four_without_the_wrapper_chain_and_plays_the_same():
    # --reference raw: the reference without PettingZoo's default wrappers, which our envs do without too
    import numpy as np

    from benchmarks.training_throughput import REFERENCES

    for kind, (label, cls) in REFERENCES.items():
        env = cls()
        assert (type(env.aec).__name__ == "raw_env") == (kind == "raw") and label.endswith("raw_env") == (kind == "raw")
        obs, _ = env.reset(seed=3)
        rewards, done, rng = [], False, np.random.default_rng(0)
        while not done:
            _, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated
            rewards.append(reward)
        assert rewards[-1] in (-1.0, 0.0, 1.0) and not any(rewards[:-1])


def test_machine_facts_on_a_platform_without_a_load_average(monkeypatch):
    """Windows has no os.getloadavg (AttributeError): every benchmark began by reading it."""
    import os

    from benchmarks import machine_facts

    monkeypatch.delattr(os, "getloadavg")
    assert machine_facts()["load_average"] is None


def test_machine_facts_record_a_package_that_is_not_installed_as_none(monkeypatch):
    from importlib import metadata

    from benchmarks import machine_facts

    monkeypatch.setattr("benchmarks.PACKAGES", ("numpy", "tabletop_envs_no_such_package"))
    assert machine_facts()["packages"] == {"numpy": metadata.version("numpy"), "tabletop_envs_no_such_package": None}


def test_the_throughput_benchmarks_time_any_registered_game_and_refuse_an_unknown_name(toy, capsys, monkeypatch):
    # they knew the three shipped games by name: a fourth registered game was an "unknown name" to
    # aec_throughput --only and a KeyError deep inside training_throughput after connect_four's runs
    import benchmarks.aec_throughput as aec
    import benchmarks.training_throughput as tt

    timed = {}
    monkeypatch.setattr(aec, "measure", lambda factories, *a: timed.update(factories) or {})
    aec.main(["--only", "toy_v0", "--seconds", "0.01", "--repeats", "1"])
    assert set(timed) == {"toy_v0", aec.BASELINE, aec.RAW_BASELINE}
    assert timed["toy_v0"]().metadata["name"] == "toy_v0"
    trained = []
    row = {"env": "toy_v0", "opponent": "snapshot", "settings": {}, "steps_per_s": 1.0, "zero_cost_env_steps_per_s": 1.0,
           "env_us_per_step": 1.0}
    monkeypatch.setattr(tt, "training_throughput", lambda steps, n_envs, games, *a: trained.extend(games) or [row])
    monkeypatch.setattr(tt, "_print_pieces", lambda rows: None)
    tt.main(["--games", "toy_v0", "--policies"])
    assert trained == ["toy_v0"] and tt.game_kwargs("toy_v0") == {}
    with pytest.raises(SystemExit) as exit_info:
        tt.main(["--games", "toy", "--policies"])
    assert exit_info.value.code == 2
    assert "--games: unknown name(s) ['toy']" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["training_throughput", "free_engine_bound"])
def test_the_throughput_benchmarks_refuse_games_given_with_no_name(module, capsys, monkeypatch):
    # "--games" with nothing after it timed connect_four alone (free_engine_bound: nothing) and wrote that as a result
    import importlib

    bench = importlib.import_module(f"benchmarks.{module}")
    _fail_if_the_benchmark_starts(bench, monkeypatch)
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--games", "--steps", "512"])
    assert exit_info.value.code == 2
    assert "--games names no game; name one or more of ['terralore_v0'" in capsys.readouterr().err


def test_the_free_engine_bound_runs_any_registered_game_and_refuses_an_unknown_name(toy, capsys, monkeypatch):
    # docs/adding_a_game.md: the benchmarks time any registered game named with --games; this one looked the
    # name up in training_throughput.GAMES (KeyError: 'toy_v0') after printing its table's header
    import benchmarks.free_engine_bound as fb
    import benchmarks.training_throughput as tt

    class Built(Exception):
        pass

    def snapshot(env_name, kwargs, net_arch):
        raise Built(env_name, kwargs)

    monkeypatch.setattr(tt, "snapshot_opponent", snapshot)
    with pytest.raises(Built) as built:
        fb.free_engine_bound("toy_v0", rounds=1)
    assert built.value.args == ("toy_v0", {})
    with pytest.raises(SystemExit) as exit_info:
        fb.main(["--games", "toy"])
    assert exit_info.value.code == 2
    assert "--games: unknown name(s) ['toy']" in capsys.readouterr().err


def test_a_rerun_whose_json_hits_a_full_disk_keeps_the_committed_result_whole(tmp_path, monkeypatch):
    # --json wrote in place: a rerun on a full disk tore the committed result it was to replace
    from full_disk import text_writes_fill_the_disk

    from benchmarks import write_json

    path = tmp_path / "results" / "aec_throughput.json"
    write_json(path, {"ratio": 1.0})
    with monkeypatch.context() as patched:
        text_writes_fill_the_disk(patched)
        with pytest.raises(OSError, match="No space left"):
            write_json(path, {"ratio": 2.0, "padding": "x" * 100})
    assert json.loads(path.read_text(encoding="utf-8")) == {"ratio": 1.0}
    assert [p.name for p in path.parent.iterdir()] == ["aec_throughput.json"]


def test_travel_earth_stalls_modes_change_the_bots_seat_only_from_where_they_act():
    from benchmarks.travel_earth_stalls import play_modes

    # triggers no game reaches (20 quiet turns end it): every mode replays the bot's games move for move; the
    # heuristic as the bot hands over to itself once the Decks are spent, on the same generator
    same = play_modes("travel_earth_v0/heuristic", "travel_earth_v0/random", 6, 0, [21], [21])
    outcomes = {label: tuple(out[k] for k in ("bot wins", "stalemates", "staller wins")) for label, out in same.items()}
    assert len(set(outcomes.values())) == 1 and sum(outcomes["bot"]) == 6, outcomes
    assert "presses" not in same["press after 21"]


def test_travel_earth_stalls_press_follows_each_pressed_challenge_to_its_end():
    from benchmarks.travel_earth_stalls import play_modes

    # the shipped staller holds ppo_base to stalemates (its sidecar: 76.6 % of 1,000 games)
    modes = play_modes("travel_earth_v0/ppo_base", "travel_earth_v0/staller", 12, 0, [5], [5])
    assert modes["bot"]["stalemates"] > 0 and modes["bot"]["final stretch: bot locked"] > 0, modes["bot"]
    out = modes["press after 5"]
    assert out["presses"] > 0, out
    # every challenge moves a card: the Challenger, a defending Animal or a Reservoir card paid for a change
    moved = ("press: Challenger discarded", "press: a defending Animal discarded", "press: a Reservoir card paid")
    assert sum(out[k] for k in moved) >= out["presses"], out
    assert out["bot wins"] + out["stalemates"] + out["staller wins"] + out["cut at max_turns"] == 12


def test_travel_earth_stalls_heuristic_decides_only_the_phases_named():
    from benchmarks.travel_earth_stalls import play_modes
    from tabletop_envs.travel_earth.engine import PHASES

    def outcome(out):
        return tuple(out[k] for k in ("bot wins", "stalemates", "staller wins", "cut at max_turns"))

    modes = play_modes("travel_earth_v0/ppo_base", "travel_earth_v0/staller", 12, 0, [], [5],
                       [(PHASES, 5), (("statistic",), 0), (tuple(p for p in PHASES if p != "statistic"), 0)])
    # every phase named is the whole hand-over, move for move
    assert modes[f"heuristic decides {', '.join(PHASES)} after 5"] == modes["heuristic after 5"]
    # one phase: games of their own, neither the bot's nor the heuristic's throughout
    statistic = modes["heuristic decides statistic from the start"]
    others = modes[f"heuristic decides {', '.join(p for p in PHASES if p != 'statistic')} from the start"]
    assert sum(outcome(statistic)) == sum(outcome(others)) == 12
    assert len({outcome(statistic), outcome(others), outcome(modes["bot"])}) == 3, modes


def test_travel_earth_stalls_prints_and_writes_each_modes_counts_with_the_digests_of_both_models(
        tmp_path, monkeypatch, capsys):
    from collections import Counter

    import benchmarks.travel_earth_stalls as stalls

    seen = []
    results = {"bot": Counter({"bot wins": 1, "stalemates": 2}),
               "heuristic decides declare, statistic after 5": Counter({"staller wins": 3, "presses": 4})}
    monkeypatch.setattr(stalls, "play_modes", lambda *a: seen.append(a) or results)
    path = tmp_path / "stalls.json"
    report = stalls.main(["--staller", "travel_earth_v0/staller", "--deals", "3", "--seed", "5",
                          "--heuristic-decides", "declare,statistic@5", "--json", str(path)])
    assert seen[0][-1] == [(("declare", "statistic"), 5)]
    models = Path(__file__).parents[1] / "models/travel_earth"
    assert report["models"] == {f"travel_earth_v0/{name}": json.loads((models / f"{name}.json").read_text(
        encoding="utf-8"))["sha256"] for name in ("ppo", "staller")}
    assert report["modes"] == {label: dict(out) for label, out in results.items()}
    assert report["deals"] == report["games"] == 3  # games, not deals: the option as given
    assert capsys.readouterr().out.splitlines() == [
        "travel_earth_v0/ppo against travel_earth_v0/staller, 3 games (2 deals, each from both seats) from seed 5:",
        "| mode | bot wins | stalemates | staller wins |", "|---|---:|---:|---:|",
        "| bot | 1 | 2 | 0 |", "| heuristic decides declare, statistic after 5 | 0 | 0 | 3 |",
        "heuristic decides declare, statistic after 5: {'presses': 4}"]
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(report))


def test_travel_earth_stalls_sure_statistic_beats_every_possible_defender():
    from travel_earth.scenario import cid, scenario

    from benchmarks.travel_earth_stalls import sure_statistic

    SPEED, WEIGHT = 0, 1
    # a Lion against a Koala and an Emu, both slower and lighter: Top Speed, the first statistic
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Koala"], resting=["Emu"]))
    assert sure_statistic(s, cid("Lion"), 0) == SPEED
    # a Resting Defender counts too: a Cheetah outruns the Lion, so Weight is the first sure statistic
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Koala"], resting=["Cheetah"]))
    assert sure_statistic(s, cid("Lion"), 0) == WEIGHT
    # a Cheetah and a Blue whale between them answer every statistic of the Lion
    s = scenario(p0=dict(ready=["Lion"]), p1=dict(ready=["Cheetah", "Blue whale"]))
    assert [s.outcome(cid("Lion"), cid("Cheetah"), st) for st in range(6)] == [-1, 1, 1, 1, 0, -1]
    assert [s.outcome(cid("Lion"), cid("Blue whale"), st) for st in range(6)] == [1, -1, -1, -1, 1, 1]
    assert sure_statistic(s, cid("Lion"), 0) is None


@pytest.mark.parametrize("module, argv", [
    ("aec_throughput", ["--only", "texas_holdem-v4", "--seconds", "0.01", "--repeats", "1"]),
    ("bot_vs_random", ["--env", "terralore_v0", "--games", "2"]),
    ("free_engine_bound", ["--rounds", "1", "--steps", "64", "--games", "terralore_v0"]),
    ("search_ceiling", ["--env", "terralore_v0", "--policy", "terralore_v0/random", "--deals", "1", "--worlds", "1"]),
    ("training_throughput", ["--steps", "64", "--games", "terralore_v0", "--policies"]),
    ("travel_earth_stalls", ["--staller", "travel_earth_v0/random", "--deals", "2"]),
])
@pytest.mark.parametrize("where", ["folder", "under_a_file", "unmakeable", "unwritable"])
def test_a_json_path_that_cannot_be_written_is_refused_before_the_benchmark_runs(module, argv, where, tmp_path,
                                                                                 monkeypatch, capsys):
    # it was checked only when written, after the whole run: a folder or a path under a file ended minutes of
    # timing in an IsADirectoryError or FileExistsError traceback that lost the results; a folder that cannot
    # be made or written in (under Linux's /proc) in "error: [Errno 2] No such file or directory: '/proc/x'"
    import importlib

    from tabletop_envs.core.errors import run_cli

    if where in ("unmakeable", "unwritable") and not Path("/proc/self").is_dir():
        pytest.skip("a folder no one can make or write in: Linux's /proc")
    (tmp_path / "afile").write_text("", encoding="utf-8")
    path = {"folder": tmp_path, "under_a_file": tmp_path / "afile" / "r.json",
            "unmakeable": Path("/proc/results/r.json"), "unwritable": Path("/proc/r.json")}[where]
    bench = importlib.import_module(f"benchmarks.{module}")

    def ran():
        pytest.fail("the benchmark ran before --json was checked")

    # each script reads machine_facts at its start, from its module or (imported in main) from the package
    monkeypatch.setattr(bench, "machine_facts", ran, raising=False)
    monkeypatch.setattr("benchmarks.machine_facts", ran)
    assert run_cli(bench.main, [*argv, "--json", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --json ") and "Traceback" not in err
    assert {"folder": "is a folder: give a file name in it", "under_a_file": "afile is a file",
            "unmakeable": "'/proc/results': the folder cannot be made (No such file or directory); choose a folder "
                          "you can write to",
            "unwritable": "'/proc': no file can be written in the folder"}[where] in err


@pytest.mark.parametrize("module, argv, flag", [
    ("aec_throughput", ["--repeats", "0"], "--repeats"),  # a StatisticsError traceback
    ("aec_throughput", ["--seconds", "-1"], "--seconds"),  # timed 200-step windows and reported them
    ("training_throughput", ["--repeats", "0"], "--repeats"),  # an IndexError after the warm-up
    ("training_throughput", ["--steps", "0"], "--steps"),  # a ZeroDivisionError
    ("training_throughput", ["--n-envs", "0"], "--n-envs"),
    ("free_engine_bound", ["--rounds", "0"], "--rounds"),
    ("rllib_throughput", ["--only", "sb3", "--repeats", "0"], "--repeats"),
    ("rllib_throughput", ["--only", "sb3", "--sb3-envs", "0"], "--sb3-envs"),
    ("bot_vs_random", ["--env", "earth_v0", "--players", "0"], "--players"),  # played 2 seats: 0 read as not given
    # both printed a report of no games (-1 in its rows) and exited 0
    ("observation_gaps", ["--earth-games", "3", "-1"], "--earth-games"),
    ("observation_gaps", ["--terralore-games", "0"], "--terralore-games"),
])
def test_a_count_below_1_is_refused_on_the_command_line(module, argv, flag, capsys):
    import importlib

    with pytest.raises(SystemExit) as exit_info:
        importlib.import_module(f"benchmarks.{module}").main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: must be" in err and "Traceback" not in err


@pytest.mark.parametrize("seconds", ["inf", "nan"])
def test_a_timed_window_that_would_never_end_is_refused_on_the_command_line(seconds, monkeypatch, capsys):
    import benchmarks.aec_throughput as bench

    monkeypatch.setattr(bench, "measure", lambda *a: pytest.fail("a window of endless length was timed"))
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--seconds", seconds])
    assert exit_info.value.code == 2
    assert "argument --seconds: must be a number above 0" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--repeats", "two"], "argument --repeats: must be a whole number of at least 1, got 'two'"),
    (["--seconds", "ten"], "argument --seconds: must be a number above 0, got 'ten'"),
])
def test_a_count_or_length_that_is_no_number_is_refused_naming_what_it_must_be(argv, message, monkeypatch, capsys):
    # argparse's own "invalid positive_int value" named a function of the script, not what the flag takes
    import benchmarks.aec_throughput as bench

    monkeypatch.setattr(bench, "measure", lambda *a: pytest.fail("timed with a flag it could not read"))
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    # a game named twice paired its second run's ratio with the reference runs around its first place
    (["--games", "terralore_v0", "terralore_v0"], "['terralore_v0'] given more than once"),
    # --compare-policies always trains on the wrapped reference in the default vec env
    (["--compare-policies", "--reference", "raw"], "it takes no --reference raw"),
    (["--compare-policies", "--vec", "dummy", "--skip-training"], "it takes no --vec dummy, --skip-training"),
    (["--compare-policies", "--policy", "stock"], "it takes no --policy stock"),  # it trains both classes
])
def test_training_throughput_refuses_what_its_runs_would_ignore_or_pair_wrongly(argv, message, capsys, monkeypatch):
    import benchmarks.training_throughput as tt

    _fail_if_the_benchmark_starts(tt, monkeypatch)
    with pytest.raises(SystemExit) as exit_info:
        tt.main(argv)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("policy, message", [
    ("terralore_v0/ppp", "no policy registered as 'terralore_v0/ppp'. Did you mean 'terralore_v0/ppo'"),
    ("runs/nowhere/ppo.onnx", "no model at runs/nowhere/ppo.onnx"),
])
def test_training_throughput_refuses_a_policy_it_cannot_load_before_the_training_runs(policy, message, capsys,
                                                                                      monkeypatch):
    # the latency rows come last: a mistyped id ended minutes of training runs in an error, their table unwritten
    import benchmarks.training_throughput as tt
    from tabletop_envs.core.errors import run_cli

    _fail_if_the_benchmark_starts(tt, monkeypatch)
    monkeypatch.setattr(tt, "training_throughput", lambda *a, **k: pytest.fail("trained before checking --policies"))
    assert run_cli(tt.main, ["--games", "terralore_v0", "--policies", "terralore_v0/heuristic", policy]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_training_throughputs_reference_speed_is_the_median_of_an_even_count_of_runs(monkeypatch):
    # sorted(runs)[len // 2] took the upper of the two middle runs: 4 reference runs gave the third fastest
    import numpy as np

    import benchmarks.training_throughput as tt

    speeds = iter([1000.0, 100.0, 400.0, 200.0, 300.0, 300.0, 300.0, 300.0])  # warm-up, then R G1 R G2 R ...

    def fake_measure(env_fns, steps, settings, seed=0, policy="fast", vec="batched"):
        speed = next(speeds, 300.0)
        return {"steps": steps, "seconds": steps / speed, "steps_per_s": speed, "us_per_step": None}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "record_observations", lambda env, count: (np.zeros((1, 2), np.float32), np.ones((1, 2), bool)))
    monkeypatch.setattr(tt, "snapshot_opponent", lambda *a: None)
    monkeypatch.setattr(tt, "_WithOpponent", lambda *a: None)
    monkeypatch.setattr(tt, "_ZeroCost", lambda *a: None)
    rows = tt.training_throughput(64, 1, ["terralore_v0", "travel_earth_v0", "earth_v0 (2p)"], repeats=1)
    assert rows[0]["steps_per_s"] == 250.0  # the reference's 4 runs: 100, 200, 300, 300 (the games' 400, 300, 300)


def test_rllib_throughput_without_ray_says_so_before_timing_the_sb3_rows(monkeypatch):
    # it timed the SB3 rows first, then met "import ray" as a ModuleNotFoundError traceback and printed nothing
    import importlib.util

    import benchmarks.rllib_throughput as rt
    from tabletop_envs.core.errors import TabletopError

    if importlib.util.find_spec("ray") is not None:
        pytest.skip("Ray is installed here")
    monkeypatch.setattr(rt, "sb3", lambda *a: pytest.fail("the SB3 rows were timed before Ray was looked for"))
    with pytest.raises(TabletopError, match="needs Ray RLlib, which is not installed"):
        rt.main(["--only", "sb3", "rllib", "--seconds", "0.1", "--repeats", "1"])
    # the adapter row is RLlib's too
    with pytest.raises(TabletopError, match="needs Ray RLlib, which is not installed"):
        rt.main(["--only", "adapter", "--seconds", "0.1", "--repeats", "1"])


# Scripted speeds whose median, mean, max, inverse and first-reference-only ratios all differ pin the
# ratio arithmetic (an audit's mutants survived every test above: the numbers printed come from here).
def _scripted_training(monkeypatch, speeds):
    import numpy as np

    import benchmarks.training_throughput as tt

    calls, it = [], iter(speeds)

    def fake_measure(env_fns, steps, settings, seed=0, policy="fast", vec="batched"):
        calls.append({"n": len(env_fns), "policy": policy, "vec": vec, "settings": settings, "seed": seed})
        speed = next(it)
        return {"steps": steps, "seconds": steps / speed, "steps_per_s": speed, "us_per_step": None}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "record_observations",
                        lambda env, count: (np.zeros((1, 2), np.float32), np.ones((1, 2), bool)))
    monkeypatch.setattr(tt, "snapshot_opponent", lambda *a: None)
    return tt, calls


def test_training_throughputs_ratio_is_the_game_over_the_reference_runs_around_it_median_of_the_rounds(monkeypatch):
    # each round: reference, game, reference, then the zero-cost floors of the reference and the game;
    # the rounds' ratios are 150/200, 240/200 and 300/100 (the reference runs around each game: 100 and 300,
    # 200 and 200, 100 and 100)
    speeds = [1.0,  # the untimed warm-up
              100, 150, 300, 400, 600,
              200, 240, 200, 400, 600,
              100, 300, 100, 400, 600]
    tt, calls = _scripted_training(monkeypatch, speeds)
    reference, game = tt.training_throughput(64, 3, ["terralore_v0"], repeats=3)
    assert game["vs_reference_each_round"] == [0.75, 1.2, 3.0]
    assert game["vs_reference"] == 1.2  # the median (mean 1.65, max 3.0, inverted 0.83, first reference only 1.5)
    assert game["steps_per_s"] == 240
    ref_us = 1e6 / reference["steps_per_s"] - 1e6 / 400
    env_us = 1e6 / 240 - 1e6 / 600
    assert game["env_cost_vs_reference"] == round(round(ref_us, 1) / round(env_us, 1), 2)
    # reference, game and floors: one policy class, one vec env, the same settings and number of envs
    assert {(c["n"], c["policy"], c["vec"], c["seed"]) for c in calls} == {(3, "fast", "batched", 0)}
    assert all(c["settings"] == tt.SETTINGS for c in calls)


def test_training_throughput_builds_every_timed_maskableppo_with_the_same_settings(monkeypatch):
    sb3_contrib = pytest.importorskip("sb3_contrib")

    import benchmarks.training_throughput as tt

    seen = []
    real = sb3_contrib.MaskablePPO

    class Spy(real):
        def __init__(self, *args, env=None, **kwargs):
            if env is None:  # snapshot_opponent's model (env passed by position): not a timed run
                return super().__init__(*args, **kwargs)
            seen.append((type(env.envs[0]).__name__, env.num_envs, type(env).__name__,
                         repr(sorted(kwargs.items()))))
            super().__init__(*args, env=env, **kwargs)

    monkeypatch.setattr(sb3_contrib, "MaskablePPO", Spy)
    monkeypatch.setitem(tt.SETTINGS, "n_steps", 16)
    monkeypatch.setitem(tt.SETTINGS, "batch_size", 16)
    tt.training_throughput(16, 1, ["terralore_v0"], repeats=1)
    assert len(seen) == 6 and len({s[0] for s in seen}) >= 3  # warm-up, reference, game, reference, 2 floors
    assert len({s[1:] for s in seen}) == 1, seen


def test_act_latencys_median_is_the_median_of_the_timed_calls(monkeypatch):
    import benchmarks.training_throughput as tt
    import tabletop_envs
    from tabletop_envs.core.policy import RandomPolicy

    delays = iter([1, 2, 3, 5, 9] * 1000)  # µs per call: median 3, mean 4, min 1
    clock = {"t": 0.0}

    class Timed(RandomPolicy):
        def act(self, obs, mask, rng):
            clock["t"] += next(delays) * 1e-6
            return super().act(obs, mask, rng)

    monkeypatch.setattr(tabletop_envs, "load_policy", lambda pid: Timed())
    monkeypatch.setattr(tt.time, "perf_counter", lambda: clock["t"])
    out = tt.act_latency("timed", "terralore_v0", {}, calls=50)
    assert out["act_median_us"] == 3.0 and out["act_p99_us"] >= 8.9


def test_the_free_engine_bounds_ratio_is_its_run_over_the_reference_runs_around_it_median_of_the_rounds(monkeypatch):
    import numpy as np

    import benchmarks.free_engine_bound as fb
    import benchmarks.training_throughput as tt

    speeds = iter([1.0, 100, 150, 300, 200, 240, 200, 100, 300, 100])
    monkeypatch.setattr(tt, "measure", lambda *a, **k: {"steps_per_s": next(speeds)})
    monkeypatch.setattr(tt, "snapshot_opponent", lambda *a: None)
    monkeypatch.setattr(tt, "record_observations",
                        lambda env, count: (np.zeros((4, 2), np.float32), np.ones((4, 2), bool)))
    monkeypatch.setattr(fb, "opponent_moves_per_learner_step", lambda *a: 0.5)
    row = fb.free_engine_bound("terralore_v0", rounds=3, steps=64)
    assert row["vs_reference_each_round"] == [0.75, 1.2, 3.0] and row["vs_reference"] == 1.2


def test_the_free_engine_bound_pays_the_games_rate_of_opponent_moves_per_learner_step():
    import numpy as np

    import benchmarks.free_engine_bound as fb

    class Count:
        n = 0

        def act(self, obs, mask, rng):
            Count.n += 1
            return 0

    env = fb.ZeroCostWithOpponent(np.zeros((4, 2), np.float32), 2, np.ones((4, 2), bool), Count(), 0.75)
    env.reset(seed=0)
    for _ in range(100):
        env.step(0)
    assert Count.n == 75


def test_paired_losses_plays_the_deals_seed_seed_plus_1_and_so_on_each_from_both_seats(monkeypatch):
    # --seed's help: "the deals are seed, seed+1, ..."
    import numpy as np

    import benchmarks.paired_losses as pl

    played = []
    monkeypatch.setattr(pl, "play_game", lambda game, policies, deal, rng=None: played.append(deal) or (np.zeros(2), 1))
    pl.paired_losses("terralore_v0", object(), object(), deals=3, seed=7)
    assert played == [7, 7, 8, 8, 9, 9]


def test_paired_losses_swaps_the_seats_on_every_deal_and_computes_the_independence_product(monkeypatch):
    import numpy as np

    import benchmarks.paired_losses as pl

    a, b = object(), object()

    # deal i: A loses from seat 0 iff i % 2 == 0, from seat 1 iff i % 4 == 0; deal 1 mod 4 is a draw
    # from either seat (a draw is no loss)
    def fake_play_game(game, policies, deal, rng=None):
        seat = policies.index(a)
        lose = deal % 2 == 0 if seat == 0 else deal % 4 == 0
        if deal % 4 == 1:
            return np.zeros(2), 10
        return (np.array([-1.0, 1.0]) if lose == (seat == 0) else np.array([1.0, -1.0])), 10

    monkeypatch.setattr(pl, "play_game", fake_play_game)
    out = pl.paired_losses("terralore_v0", a, b, deals=8)
    assert out["loss_rate_seat_0"] == 0.5 and out["loss_rate_seat_1"] == 0.25
    assert out["both_seats_lost"] == 0.25 and out["if_independent"] == 0.125
    from training.evaluate import wilson

    low, high = out["both_seats_lost_ci95"]
    assert (low, high) == wilson(2, 8) and low < 0.25 < high
    # hopeless deals could explain at most 2 x high of the 0.75 lost per deal pair
    assert out["deal_share_of_losses_at_most"] == min(1.0, 2 * high / 0.75)


def test_a_result_records_the_commit_and_the_digest_of_each_model_it_measured(tmp_path):
    # "travel_earth_v0/ppo" named another model after a retraining: only the digest tells which one it was
    import benchmarks.bot_vs_random as bvr
    import tabletop_envs
    from benchmarks.training_throughput import act_latency
    from tabletop_envs.core.replay import code_revision

    shipped = json.loads((Path(__file__).parents[1] / "models/terralore/ppo.json").read_text(encoding="utf-8"))["sha256"]
    bvr.main(["--env", "terralore_v0", "--policy", "terralore_v0/ppo", "--games", "2", "--json",
              str(tmp_path / "r.json")])
    saved = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert saved["models"] == {"terralore_v0/ppo": shipped}  # the random opponent has no file
    assert saved["machine"]["git"] == code_revision() and saved["machine"]["tabletop_envs"] == tabletop_envs.__version__
    assert act_latency("terralore_v0/ppo", "terralore_v0", {}, calls=5)["sha256"] == shipped


def test_observation_gaps_plays_the_earth_game_counts_heuristic_first_then_model(monkeypatch, capsys):
    import benchmarks.observation_gaps as og

    earth = []
    monkeypatch.setattr(og, "earth_resource", lambda games, policies: earth.append(games) or {})
    monkeypatch.setattr(og, "terralore_known", lambda games, policies, rotate: {"games": games})
    report = og.main(["--earth-games", "3", "7", "--terralore-games", "5"])
    assert earth == [3, 7] and report["terralore, model vs heuristic"] == {"games": 5}


def test_observation_gaps_counts_the_earth_placements_whose_resource_the_observation_does_not_show():
    # the env page's "leaves out" entry: while earth_v0's layout has no field for it, every placement is alike
    from benchmarks.observation_gaps import earth_resource, terralore_known
    from tabletop_envs import load_policy

    heuristic = load_policy("earth_v0/heuristic", env="earth_v0", game_config={"num_players": 2})
    counts = earth_resource(1, [heuristic, heuristic])
    assert counts["place"] > 0 and counts["place, observation alike"] == counts["place"]
    assert counts["place, observation and mask alike"] <= counts["place"]
    random = load_policy("terralore_v0/random", env="terralore_v0")
    known = terralore_known(3, [random, random], rotate=True)
    assert known["games"] == 3 and known["decisions"] > 0 and known["games with one"] <= 3


def test_the_zero_cost_floors_are_each_rows_own_over_the_mean_of_the_rounds_reference_runs(monkeypatch):
    # the floors run after the round's games, so each is set against all of the round's reference runs: here
    # 100, 200 and 600 (mean 300, median 200, first 100); one game gave a mean and median of two runs alike
    speeds = [1.0,  # the untimed warm-up
              100, 150, 200, 90, 600,  # R G1 R G2 R
              1000, 700, 400]  # the zero-cost floors of the reference, G1 and G2
    tt, _ = _scripted_training(monkeypatch, speeds)
    games = ["terralore_v0", "travel_earth_v0"]
    reference, terralore, travel = tt.training_throughput(64, 1, games, repeats=1)
    assert [row["zero_cost_env_steps_per_s"] for row in (reference, terralore, travel)] == [1000, 700, 400]
    assert [row["zero_cost_vs_reference"] for row in (reference, terralore, travel)] == [3.33, 2.33, 1.33]
    assert (terralore["vs_reference"], travel["vs_reference"]) == (1.0, 0.23)  # 150 / 150, 90 / 400


def test_no_env_cost_ratio_against_a_reference_whose_own_env_cost_came_out_at_or_below_zero(monkeypatch):
    # connect_four's run faster than its zero-cost floor (noise on a short run): a ratio to its negative cost
    # would print as a negative "env cost x ref"
    tt, _ = _scripted_training(monkeypatch, [1.0, 200, 100, 200, 150, 500])  # warm-up, R G R, floors R G
    reference, game = tt.training_throughput(64, 1, ["terralore_v0"], repeats=1)
    assert reference["env_us_per_step"] < 0 < game["env_us_per_step"]
    assert game["env_cost_vs_reference"] is None


def test_each_piece_of_a_learner_step_is_its_median_over_the_rounds_not_the_mean(monkeypatch):
    import numpy as np

    import benchmarks.training_throughput as tt

    runs = []

    def fake_measure(env_fns, steps, settings, seed=0, policy="fast", vec="batched"):
        runs.append(1)
        round_index = max(0, len(runs) - 2) // 5  # after the warm-up, 5 runs a round: R G R, two floors
        env_us = (10.0, 20.0, 60.0)[round_index]  # median 20, mean 30
        return {"steps": steps, "seconds": 1.0, "steps_per_s": 100.0, "us_per_step": {"env": env_us}}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "record_observations",
                        lambda env, count: (np.zeros((1, 2), np.float32), np.ones((1, 2), bool)))
    monkeypatch.setattr(tt, "snapshot_opponent", lambda *a: None)
    rows = tt.training_throughput(64, 1, ["terralore_v0"], repeats=3)
    assert all(row["us_per_step"] == row["zero_cost_us_per_step"] == {"env": 20.0} for row in rows)


def test_the_untimed_warm_up_runs_the_policy_class_and_vec_env_of_the_timed_runs(monkeypatch):
    # a warm-up of another policy class or vec env left the first timed reference run a first learn of its own
    tt, calls = _scripted_training(monkeypatch, [1.0] + [100.0] * 5)
    tt.training_throughput(64, 2, ["terralore_v0"], repeats=1, policy="stock", vec="dummy")
    assert len(calls) == 6 and {(c["policy"], c["vec"]) for c in calls} == {("stock", "dummy")}


def test_the_policy_comparison_times_no_process_first_learn(monkeypatch):
    # as in training_throughput: the process's first learn ran slower and would have been the first timed run
    import benchmarks.training_throughput as tt

    calls = []

    def fake_measure(fns, steps, settings, seed=0, policy="fast", vec="batched"):
        first = policy not in calls  # each policy class's first learn is slow
        calls.append(policy)
        speed = 1.0 if first else (200.0 if policy == "fast" else 100.0)
        return {"steps": steps, "seconds": steps / speed, "steps_per_s": speed}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "snapshot_opponent", lambda *a: None)
    rows = tt.policy_comparison(64, 2, ["terralore_v0"], repeats=1)
    assert len(calls) == 6 and all(r["speedup"] == 2.0 and r["fast_steps_per_s"] == 200.0 for r in rows)


def test_act_latency_times_the_model_from_every_seat(monkeypatch):
    # the model sat in seat 0 of every game: a seat's own cost (the first move of a deal) would be all of it
    import benchmarks.training_throughput as tt
    import tabletop_envs
    import tabletop_envs.core.arena as arena
    from tabletop_envs.core.policy import RandomPolicy

    seats, real = set(), arena.play_game

    def spy(game, policies, seed, *rest, **kwargs):
        seats.update(i for i, p in enumerate(policies) if type(p).__name__ == "Timed")
        return real(game, policies, seed, *rest, **kwargs)

    monkeypatch.setattr(arena, "play_game", spy)
    monkeypatch.setattr(tabletop_envs, "load_policy", lambda pid: RandomPolicy())
    tt.act_latency("random", "terralore_v0", {}, calls=200)
    assert seats == {0, 1}


def test_act_latency_gives_load_time_in_ms_and_the_99th_percentile_of_the_act_calls(monkeypatch):
    import numpy as np

    import benchmarks.training_throughput as tt
    import tabletop_envs
    from tabletop_envs.core.policy import RandomPolicy

    clock, timed = {"t": 0.0}, []

    class Timed(RandomPolicy):
        def act(self, obs, mask, rng):
            timed.append((len(timed) % 100 + 1) * 1e-6)  # 1, 2, ..., 100 µs in turn: p99 99.01, p90 90.1
            clock["t"] += timed[-1]
            return super().act(obs, mask, rng)

    def load(pid):
        clock["t"] += 0.25  # loading takes 250 ms
        return Timed()

    monkeypatch.setattr(tabletop_envs, "load_policy", load)
    monkeypatch.setattr(tt.time, "perf_counter", lambda: clock["t"])
    out = tt.act_latency("timed", "terralore_v0", {}, calls=400)
    assert out["load_ms"] == 250.0
    assert out["act_p99_us"] == round(float(np.percentile(timed, 99)) * 1e6, 1) > 98


def test_act_latency_refuses_a_policy_that_chooses_an_illegal_action(monkeypatch):
    import numpy as np

    import tabletop_envs
    from benchmarks.training_throughput import act_latency
    from tabletop_envs.core.policy import RandomPolicy

    class Illegal(RandomPolicy):
        def act(self, obs, mask, rng):
            return int(np.flatnonzero(~np.asarray(mask, bool))[0])

    monkeypatch.setattr(tabletop_envs, "load_policy", lambda pid: Illegal())
    with pytest.raises(RuntimeError, match="illegal chose illegal action .*: the latency of a wrong answer means"):
        act_latency("illegal", "terralore_v0", {}, calls=5)


def test_training_throughput_prints_each_runs_pieces_and_those_of_its_zero_cost_env(capsys):
    from benchmarks.training_throughput import _print_pieces

    names = ("env", "masks", "forward", "buffer", "other collection", "update", "rest", "total")
    pieces = dict(zip(names, (40.4, 5, 30, 6, 9, 50, 2, 142.4)))
    _print_pieces([{"env": "terralore_v0", "us_per_step": pieces, "zero_cost_us_per_step": {**pieces, "env": 1.2}},
                   {"env": "connect_four-v3", "us_per_step": None, "zero_cost_us_per_step": None}])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("µs per learner step, by piece (env: the envs' step")
    assert lines[2:] == ["| run | " + " | ".join(names) + " |", "|---|" + "---:|" * 8,
                         "| terralore_v0 | 40 | 5 | 30 | 6 | 9 | 50 | 2 | 142 |",
                         "| terralore_v0, zero-cost env | 1 | 5 | 30 | 6 | 9 | 50 | 2 | 142 |"]
    _print_pieces([{"env": "connect_four-v3"}])  # runs without pieces: no table at all
    assert capsys.readouterr().out == ""


def test_training_throughputs_policy_comparison_prints_a_row_per_game(monkeypatch, capsys):
    import benchmarks.training_throughput as tt

    row = {"env": "terralore_v0", "stock_steps_per_s": 1234.4, "fast_steps_per_s": 2345.6, "speedup": 1.9}
    monkeypatch.setattr(tt, "policy_comparison", lambda *a: [row])
    tt.main(["--games", "terralore_v0", "--policies", "--compare-policies"])
    assert "| terralore_v0 | 1,234 | 2,346 | 1.90 |" in capsys.readouterr().out.splitlines()


def test_training_throughputs_command_line_hands_on_the_reference_policy_vec_and_counts(monkeypatch):
    # an option read but not handed on ran the defaults under a table that named the options given
    import benchmarks.training_throughput as tt

    seen = {}
    row = {"env": "connect_four-v3", "opponent": "random", "settings": "s", "steps_per_s": 1.0,
           "zero_cost_env_steps_per_s": 1.0, "env_us_per_step": 1.0}
    monkeypatch.setattr(tt, "training_throughput", lambda *a: seen.setdefault("training", a) and [row])
    monkeypatch.setattr(tt, "policy_comparison", lambda *a: seen.setdefault("comparison", a) and [])
    monkeypatch.setattr(tt, "_print_pieces", lambda rows: None)
    tt.main(["--steps", "64", "--n-envs", "2", "--repeats", "3", "--games", "terralore_v0", "--policies",
             "--reference", "raw", "--policy", "stock", "--vec", "dummy"])
    assert seen["training"] == (64, 2, ["terralore_v0"], 3, "stock", "dummy", "raw")
    tt.main(["--steps", "64", "--n-envs", "2", "--repeats", "5", "--games", "terralore_v0", "--policies",
             "--compare-policies"])
    assert seen["comparison"] == (64, 2, ["terralore_v0"], 5)


def test_the_free_engine_bounds_rate_is_opponent_moves_per_learner_step_truncated_games_reset():
    # the rate paid per step of the zero-cost env: every opponent call of real play over the learner's steps,
    # a game cut at its turn limit reset as one that ended
    import numpy as np

    from benchmarks.free_engine_bound import opponent_moves_per_learner_step

    class Opponent:
        def act(self, observation, mask, rng):
            return 0

    class TwoRepliesAGame:  # each learner step is answered by two opponent moves; games are cut after 3 steps
        def __init__(self, opponent):
            self.opponent, self.t = opponent, None

        def reset(self, seed=None):
            self.t = 0
            return None, {}

        def action_masks(self):
            return np.ones(2, bool)

        def step(self, action):
            assert self.t is not None and self.t < 3, "stepped a finished game"
            self.t += 1
            self.opponent.act(None, None, None)
            self.opponent.act(None, None, None)
            return None, 0.0, False, self.t == 3, {}

    opponent = Opponent()
    assert opponent_moves_per_learner_step(lambda: TwoRepliesAGame(opponent), opponent, steps=30) == 2.0


def test_an_aec_window_times_steps_not_its_seeded_reset_and_counts_dead_steps_as_steps_only(monkeypatch):
    # the reference table counts step(None) calls as steps; "decisions" leave them out
    import numpy as np

    import benchmarks.aec_throughput as bench

    clock = {"t": 0.0}

    class ThreeMovesTwoDeadSteps:  # a game: 3 moves, then each of 2 agents leaves with a dead step
        def reset(self, seed=None):
            if seed is not None:
                clock["t"] += 1.0  # a seeded reset is expensive (PettingZoo's RLCard envs: rlcard.make)
            self.agents, self.moves = ["a", "b"], 0

        def last(self):
            done = self.moves == 3
            return {"action_mask": np.ones(2, np.int8)}, 0.0, done, False, {}

        def step(self, action):
            clock["t"] += 0.001
            if action is None:
                self.agents.pop()
            else:
                self.moves += 1

    monkeypatch.setattr(bench.time, "perf_counter", lambda: clock["t"])
    window = bench.run_window(ThreeMovesTwoDeadSteps(), 0.1, np.random.default_rng(0), seed=1)
    rate, games, steps, decisions = window
    assert (games, steps, decisions) == (40, 200, 120)  # one block of 200 steps, 0.2 s
    assert rate == pytest.approx(1000.0)


def test_aec_throughput_warms_every_env_up_untimed_before_the_first_round(monkeypatch):
    import benchmarks.aec_throughput as bench

    windows = []

    def window(env, seconds, rng, seed):
        windows.append((env, seed))
        return 1.0 if seed == 0 else 100.0, 1, 10, 10

    monkeypatch.setattr(bench, "run_window", window)
    out = bench.measure({name: (lambda n=name: n) for name in ("texas_holdem-v4", "terralore_v0")}, 1.0, 2)
    assert [seed for _, seed in windows] == [0, 0, 1000, 1000, 2000, 2000]
    assert out["terralore_v0"]["runs"] == [100.0, 100.0]


def test_aec_throughput_reports_a_reference_it_cannot_build_as_an_error_and_times_and_writes_the_rest(
        tmp_path, monkeypatch, capsys):
    import benchmarks.aec_throughput as bench

    make = bench.make_reference

    def make_reference(pz_id):  # as where hanabi's optional package is missing
        if pz_id == "classic/hanabi-v5":
            raise ModuleNotFoundError("No module named 'hanabi_learning_environment'")
        return make(pz_id)

    monkeypatch.setattr(bench, "make_reference", make_reference)
    path = tmp_path / "aec.json"
    report = bench.main(["--only", "hanabi-v5", "terralore_v0", "--seconds", "0.01", "--repeats", "1",
                         "--json", str(path)])
    error = "ModuleNotFoundError: No module named 'hanabi_learning_environment'"
    assert report["results"]["hanabi-v5"] == {"error": error}
    assert report["results"]["terralore_v0"]["steps_per_s"] > 0
    assert "ratio_vs_hanabi" not in report["results"]["terralore_v0"]
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["hanabi-v5"] == ["hanabi-v5", "error", *error[:60].split()]
    assert rows["terralore_v0"][1] == f"{report['results']['terralore_v0']['steps_per_s']:,.0f}"
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(report))


def test_aec_throughput_times_every_env_it_knows_without_only(monkeypatch):
    import benchmarks.aec_throughput as bench

    timed = {}
    monkeypatch.setattr(bench, "measure", lambda factories, *a: timed.update(factories) or {})
    bench.main(["--seconds", "0.01", "--repeats", "1"])
    assert list(timed) == [*bench.REFERENCES, *bench.RAW_REFERENCES, *bench.OURS]


def test_aec_throughputs_ratio_pairs_each_window_with_the_baselines_window_of_the_same_round(monkeypatch):
    # a slow first round (50 and 50) cancels within its own pair: 1.0; sorting each env's windows before
    # dividing (0.75) or dividing the medians (0.67) does not
    import benchmarks.aec_throughput as bench

    order, rates = [], {"texas_holdem-v4": [50, 200, 150], "terralore_v0": [50, 100, 150]}

    def window(env, seconds, rng, seed):
        if seed == 0:
            return 1.0, 0, 10, 10
        order.append(env)
        return rates[env][sum(e == env for e in order) - 1], 1, 10, 10

    monkeypatch.setattr(bench, "run_window", window)
    out = bench.measure({name: (lambda n=name: n) for name in rates}, 1.0, 3)
    assert out["terralore_v0"]["ratio_vs_texas_holdem"] == 1.0


def test_every_zero_cost_floor_replays_the_observations_and_masks_recorded_from_its_own_env(monkeypatch):
    # the learner's cost depends on the masks too (the update reads only the legal actions): the reference's
    # floor with every action legal set a dearer floor than the reference's own masks do
    import numpy as np

    import benchmarks.training_throughput as tt

    recorded, floors = {}, []

    def record(env_fn, count):
        name = getattr(env_fn, "env_name", "connect_four-v3")
        width = 7 if name == "connect_four-v3" else 203
        recorded[name] = (np.zeros((2, 3), np.float32), np.eye(2, width, dtype=bool))
        return recorded[name]

    def fake_measure(env_fns, steps, settings, seed=0, policy="fast", vec="batched"):
        floors.extend(fn for fn in env_fns if isinstance(fn, tt._ZeroCost))
        return {"steps": steps, "seconds": 1.0, "steps_per_s": 100.0, "us_per_step": None}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "record_observations", record)
    monkeypatch.setattr(tt, "snapshot_opponent", lambda *a: None)
    tt.training_throughput(64, 2, ["terralore_v0"], repeats=1)
    assert len(floors) == 4  # two envs each, for the reference and the game
    for floor, name in zip(floors, ["connect_four-v3"] * 2 + ["terralore_v0"] * 2):
        bank, masks = recorded[name]
        assert floor.observations is bank and floor.masks is masks and floor.num_actions == masks.shape[1]


def test_the_free_engine_bounds_run_pays_the_measured_rate_of_the_snapshot_opponents_moves(monkeypatch):
    import numpy as np

    import benchmarks.free_engine_bound as fb
    import benchmarks.training_throughput as tt

    snapshot, timed = object(), []

    def fake_measure(env_fns, steps, settings, seed=0, policy="fast", vec="batched"):
        timed.append(env_fns)
        return {"steps_per_s": 100.0}

    monkeypatch.setattr(tt, "measure", fake_measure)
    monkeypatch.setattr(tt, "snapshot_opponent", lambda *a: snapshot)
    monkeypatch.setattr(tt, "record_observations",
                        lambda env, count: (np.zeros((4, 2), np.float32), np.ones((4, 2), bool)))
    monkeypatch.setattr(fb, "opponent_moves_per_learner_step", lambda env_fn, opponent: 0.375)
    fb.free_engine_bound("terralore_v0", rounds=1, steps=64)
    free = [fn() for fn in timed[2]]  # warm-up, reference, the free engine's run, reference
    assert len(free) == 4 and all(env.rate == 0.375 and env.opponent is snapshot for env in free)


def test_the_free_engine_bounds_command_line_runs_the_rounds_and_steps_given(monkeypatch):
    import benchmarks.free_engine_bound as fb

    seen = []
    row = {"env": "terralore_v0", "opponent_moves_per_learner_step": 1.0, "vs_reference": 1.0,
           "vs_reference_each_round": [1.0]}
    monkeypatch.setattr(fb, "free_engine_bound", lambda *a, **k: seen.append((a, k)) or row)
    fb.main(["--rounds", "2", "--steps", "640", "--games", "terralore_v0"])
    assert seen == [(("terralore_v0", 2, 640), {})]


def test_the_free_engine_bound_writes_its_rows_and_the_machines_facts_to_json(tmp_path, monkeypatch):
    import benchmarks.free_engine_bound as fb

    row = {"env": "terralore_v0", "opponent_moves_per_learner_step": 1.0, "vs_reference": 1.0,
           "vs_reference_each_round": [1.0]}
    monkeypatch.setattr(fb, "free_engine_bound", lambda *a, **k: row)
    path = tmp_path / "free.json"
    result = fb.main(["--rounds", "1", "--games", "terralore_v0", "--json", str(path)])
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(result))
    assert result["rows"] == [row] and "cpu" in result["machine"]


def test_aec_throughputs_raw_references_are_pettingzoos_raw_envs_and_each_ratio_divides_by_its_own_reference(
        monkeypatch):
    # the raw_env rows are the references without PettingZoo's default wrapper chain (about half their speed)
    import benchmarks.aec_throughput as bench

    assert type(bench.make_raw_reference("classic/connect_four-v3")).__name__ == "raw_env"
    assert type(bench.make_reference("classic/connect_four-v3")).__name__ != "raw_env"
    rates = {"texas_holdem-v4": 100, "texas_holdem-v4 raw_env": 200, "hanabi-v5": 50,
             "hanabi-v5 raw_env": 400, "earth_v0 (2p)": 800}
    monkeypatch.setattr(bench, "run_window", lambda env, seconds, rng, seed: (rates[env], 1, 10, 10))
    out = bench.measure({name: (lambda n=name: n) for name in rates}, 1.0, 1)["earth_v0 (2p)"]
    assert {key: out[key] for key in bench.RATIOS} == {"ratio_vs_texas_holdem": 8.0,
                                                       "ratio_vs_texas_holdem_raw": 4.0,
                                                       "ratio_vs_hanabi": 16.0, "ratio_vs_hanabi_raw": 2.0}


def test_the_env_pages_observation_gap_counts_are_what_observation_gaps_counts():
    # the Earth page kept the model's counts from before the Growing events fix re-rolled its games (dad01d3)
    import re

    import benchmarks.observation_gaps as og
    from tabletop_envs import earth_v0, load_policy, terralore_v0

    def page(module) -> str:  # the env's documentation page, its lines joined
        return " ".join((module.__doc__ or "").split())

    def number(text: str) -> int:
        return int(text.replace(",", ""))

    earth = re.search(r"In 30 two-player games of the heuristic bot against itself, (\d+) % of the decisions were "
                      r"placements and in ([\d,]+) of those ([\d,]+) \(\d+ %\) observation and mask were the same for "
                      r"sprouts and growth; in 10 games of the shipped model against the heuristic, ([\d,]+) of "
                      r"([\d,]+) placements and ([\d,]+) of ([\d,]+) payments", page(earth_v0))
    assert earth, "the Earth page's sentence on pending sprouts or growth changed: update this test's pattern"
    bots = [load_policy(f"earth_v0/{p}", env="earth_v0", game_config={"num_players": 2}) for p in ("heuristic", "ppo")]
    alone = og.earth_resource(30, [bots[0], bots[0]])
    model = og.earth_resource(10, [bots[1], bots[0]])
    assert round(100 * alone["place"] / alone["decisions"]) == number(earth[1])
    assert (alone["place, observation and mask alike"], alone["place"]) == (number(earth[2]), number(earth[3]))
    assert (model["place, observation and mask alike"], model["place"], model["pay, observation and mask alike"],
            model["pay"]) == tuple(number(earth[i]) for i in range(4, 8))

    terra = re.search(r"In 200 games of the heuristic bot against itself ([\d.]+) % of the decisions were taken "
                      r"holding such a card \(in (\d+) games\), ([\d.]+) % in 200 of the shipped model against the "
                      r"heuristic", page(terralore_v0))
    assert terra, "the Terralore page's sentence on known cards changed: update this test's pattern"
    bots = [load_policy(f"terralore_v0/{p}", env="terralore_v0") for p in ("heuristic", "ppo")]
    alone = og.terralore_known(200, [bots[0], bots[0]], False)
    model = og.terralore_known(200, [bots[1], bots[0]], True)
    holding = "holding a card the opponent knows"
    assert f"{100 * alone[holding] / alone['decisions']:.1f}" == terra[1] and alone["games with one"] == int(terra[2])
    assert f"{100 * model[holding] / model['decisions']:.1f}" == terra[3]
