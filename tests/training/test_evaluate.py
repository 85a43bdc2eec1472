"""Round-robin evaluation: seat rotation with paired seeds, Wilson intervals, Bradley–Terry Elo."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import three_seat_game
from extras import needs_matplotlib

from tabletop_envs import ConfigError
from training.evaluate import (
    PairResult,
    bradley_terry_elo,
    elo_png,
    main,
    markdown,
    play_pair,
    round_robin,
    seatings,
    wilson,
)


def test_wilson_interval_contains_the_rate_and_narrows_with_games():
    lo, hi = wilson(60, 100)
    assert lo < 0.6 < hi and hi - lo == pytest.approx(0.19, abs=0.01)
    lo2, hi2 = wilson(600, 1000)
    assert hi2 - lo2 < (hi - lo) / 3
    assert wilson(0, 50)[0] == 0.0 and wilson(50, 50)[1] == 1.0


def test_every_deal_is_played_from_every_seat_rotation():
    assert seatings(2) == [(0, 1), (1, 0)]
    rot = seatings(3)
    assert len(rot) == 6 and {a for a, _ in rot} == {0, 1, 2} and {b for _, b in rot} == {0, 1, 2}


def test_a_pair_against_itself_is_even(toy):
    res = play_pair(toy, "random", "random", 400, seed=1)
    assert res.games == 400 and res.wins + res.draws + res.losses == 400
    assert abs(res.wins - res.losses) < 80


def test_paired_seeds_cancel_the_deal_for_identical_deterministic_policies(toy, play_highest):
    res = play_pair(toy, play_highest, play_highest, 100)
    assert res.wins == res.losses  # each deal from both seats: any seat edge cancels exactly


def test_a_stronger_policy_wins_more(toy, play_highest):
    res = play_pair(toy, play_highest, "random", 400, seed=2)
    lo, _ = wilson(res.wins, res.games)
    assert lo > 0.5


def test_bradley_terry_recovers_order_and_anchors_random_at_zero():
    pairs = [PairResult("a", "random", 1000, 760, 0, 240), PairResult("b", "random", 1000, 500, 0, 500),
             PairResult("a", "b", 1000, 760, 0, 240)]
    elo = bradley_terry_elo(["random", "a", "b"], pairs)
    assert elo["random"] == 0
    assert elo["a"] == pytest.approx(200, abs=10)  # 76 % is +200 Elo
    assert elo["b"] == pytest.approx(0, abs=10)


def test_bradley_terry_stays_finite_for_a_clean_sweep():
    elo = bradley_terry_elo(["random", "a"], [PairResult("a", "random", 100, 100, 0, 0)])
    assert np.isfinite(elo["a"]) and elo["a"] > 600


def test_the_elo_table_names_its_zero_point():
    from training.evaluate import markdown

    pairs = [{"a": "a", "b": "b", "score": 0.5, **{k: {"rate": 0.5, "ci95": [0.4, 0.6]} for k in ("win", "draw", "loss")}}]
    report = {"env": "toy_v0", "num_players": 2, "games_per_pair": 2, "pairs": pairs}
    with_random = markdown({**report, "elo": {"random": 0.0, "a": 10.0}})
    without = markdown({**report, "elo": {"a": 5.0, "b": -5.0}})
    assert "random = 0" in with_random and "mean = 0" in without and "random = 0" not in without


def test_the_markdown_report_names_the_rule_options_it_was_played_under():
    # the header named the env and player count only, so a table played under opaque_wall=False read as
    # the default game's
    from training.evaluate import markdown, round_robin

    report = round_robin("terralore_v0", ["terralore_v0/random", "terralore_v0/heuristic"], games=2,
                         game_kwargs={"opaque_wall": False, "deck_out": "empty_deck"}, max_turns=30)
    header = markdown(report).splitlines()[0]
    assert header.endswith("paired seeds, rule options opaque_wall=False, deck_out='empty_deck', max_turns=30"), header
    default = round_robin("terralore_v0", ["terralore_v0/random", "terralore_v0/heuristic"], games=2)
    assert "rule options" not in markdown(default)


@needs_matplotlib
def test_cli_writes_json_markdown_and_png(toy, tmp_path):
    with pytest.raises(ValueError, match="distinct"):
        main(["--env", toy, "--policies", "random", "random", "--games", "10"])
    report = main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "20", "--out", str(tmp_path),
                   "--png"])
    assert json.loads((tmp_path / "elo.json").read_text(encoding="utf-8"))["pairs"][0]["games"] == 20
    assert "| policy | Elo" in (tmp_path / "elo.md").read_text(encoding="utf-8")
    assert (tmp_path / "elo.png").stat().st_size > 1000
    assert report["elo"]["random"] == 0
    # a rerun into the folder without --png left that picture beside a table it no longer drew
    main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "10", "--out", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elo.json", "elo.md"]


@needs_matplotlib
def test_a_rerun_into_the_same_out_folder_on_a_full_disk_keeps_the_earlier_results_whole(toy, tmp_path,
                                                                                       monkeypatch):
    # elo.json, elo.md and elo.png were written in place: a rerun that hit a full disk tore the earlier ones
    import errno

    from full_disk import text_writes_fill_the_disk
    from matplotlib.figure import Figure

    argv = ["--env", toy, "--policies", "random", "toy_v0/random", "--games", "20", "--out", str(tmp_path), "--png"]
    main(argv)
    earlier = {name: (tmp_path / name).read_bytes() for name in ("elo.json", "elo.md", "elo.png")}
    with monkeypatch.context() as patched:
        text_writes_fill_the_disk(patched, where=lambda path: path.name.startswith("elo.md"))
        with pytest.raises(OSError, match="No space left"):
            main(argv[:-1])
    real_savefig = Figure.savefig

    def half_a_picture(self, fname, *args, **kwargs):
        real_savefig(self, fname, *args, **kwargs)
        Path(fname).write_bytes(Path(fname).read_bytes()[:100])
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(Figure, "savefig", half_a_picture)
        with pytest.raises(OSError, match="No space left"):
            main(argv)
    assert {name: (tmp_path / name).read_bytes() for name in earlier} == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elo.json", "elo.md", "elo.png"]
    elo_png(json.loads(earlier["elo.json"]), str(tmp_path / "again.png"))  # a path as text, as it takes
    assert (tmp_path / "again.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_earth_with_three_players_is_rank_based_over_all_seat_rotations():
    pytest.importorskip("tabletop_envs.earth.bots")
    res = play_pair("earth_v0", "heuristic", "random", 6, seed=0, game_kwargs={"num_players": 3})
    assert res.games == 6  # one deal from all 6 (seat of A, seat of B) placements, random in the third seat
    assert res.wins >= 5  # the heuristic out-ranks random


SHIPPED_EARTH = str(Path(__file__).resolve().parents[2] / "models" / "earth" / "ppo.onnx")


@pytest.mark.parametrize("policy", ["earth_v0/ppo", "travel_earth_v0/ppo", "terralore_v0/random", SHIPPED_EARTH],
                         ids=["earth_v0/ppo", "travel_earth_v0/ppo", "terralore_v0/random", "models/earth/ppo.onnx"])
def test_a_policy_of_another_env_is_refused_whatever_its_kind(policy, capsys):
    # ids used to load unchecked: earth_v0/ppo played Terralore, travel_earth_v0/ppo died with an IndexError
    from tabletop_envs import ModelMismatchError
    from tabletop_envs.core.errors import run_cli

    env = "earth_v0" if policy.startswith("terralore") else "terralore_v0"
    argv = ["--env", env, "--policies", policy, "random", "--games", "2"]
    with pytest.raises(ModelMismatchError, match=f"not '?{env}"):
        main(argv)
    assert run_cli(main, argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_a_loaded_policy_of_another_env_is_refused(toy):
    from tabletop_envs import ModelMismatchError, load_policy

    shipped = load_policy("earth_v0/ppo")
    with pytest.raises(ModelMismatchError, match="not 'terralore_v0'"):
        play_pair("terralore_v0", shipped, "random", 2)


@pytest.mark.parametrize("games", ["0", "-5"])
def test_a_non_positive_number_of_games_is_refused(toy, games, capsys, tmp_path):
    from tabletop_envs.core.errors import run_cli

    argv = ["--env", toy, "--policies", "random", "toy_v0/random", "--games", games,
            "--out", str(tmp_path / "elo")]
    assert run_cli(main, argv) == 2
    assert capsys.readouterr().err == f"error: the number of games must be a positive integer, got {games}; " \
                                      "e.g. 200 (--games 200)\n"
    assert not (tmp_path / "elo").exists()  # refused before the --out folder is made
    with pytest.raises(ConfigError, match="positive integer"):
        play_pair(toy, "random", "random", int(games))


def test_a_round_robin_needs_two_policies(toy):
    with pytest.raises(ConfigError, match="at least two policies, got 1 .*--policies heuristic random"):
        main(["--env", toy, "--policies", "random", "--games", "2"])


def test_a_one_player_table_is_refused_instead_of_reported_as_all_draws():
    pytest.importorskip("tabletop_envs.earth.bots")
    with pytest.raises(ConfigError, match="earth_v0 with 1 player has one seat.*num_players >= 2"):
        main(["--env", "earth_v0", "--policies", "heuristic", "random", "--games", "2",
              "--env-kwargs", '{"num_players": 1}'])
    with pytest.raises(ConfigError, match="one seat"):
        play_pair("earth_v0", "heuristic", "random", 2, game_kwargs={"num_players": 1})


@pytest.mark.parametrize("text", ["[1]", '"x"', "3"])
def test_env_kwargs_that_are_no_json_object_are_refused(toy, text):
    with pytest.raises(ConfigError, match="--env-kwargs must be a JSON object"):
        main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2", "--env-kwargs", text])


@pytest.mark.parametrize("text", ["{bad", "{'num_players': 3}", '{"num_players": 2, "num_players": 3}',
                                  '{"num_players": 1' + "0" * 5000 + "}"],
                         ids=["not_json", "python_quotes", "key_twice", "huge_int"])
def test_env_kwargs_that_are_no_json_are_refused_naming_the_option(toy, text):
    with pytest.raises(ConfigError, match="--env-kwargs .* is not valid JSON"):
        main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2", "--env-kwargs", text])


@pytest.mark.parametrize("max_turns", [0, -1, "ten"])
def test_a_max_turns_the_env_refuses_is_refused_before_a_round_robin_of_draws(toy, max_turns, monkeypatch):
    import training.evaluate as evaluate

    monkeypatch.setattr(evaluate, "round_robin", lambda *a, **k: pytest.fail("played with a bad max_turns"))
    with pytest.raises(ConfigError, match=f"max_turns must be None .* got {max_turns!r}"):
        main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2",
              "--env-kwargs", json.dumps({"max_turns": max_turns})])


def test_a_path_is_named_by_its_path_so_two_runs_models_of_one_file_name_can_meet(tmp_path):
    # a Path was named by its file name alone: runs/a/ppo.onnx and runs/b/ppo.onnx were both 'ppo.onnx', and the
    # round robin refused them as one policy named twice, where the same paths as strings played
    import shutil

    from training.evaluate import round_robin

    paths = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        for suffix in (".onnx", ".npz", ".json"):
            shutil.copy(Path(__file__).resolve().parents[2] / "models" / "terralore" / f"ppo{suffix}", tmp_path / run)
        paths.append(tmp_path / run / "ppo.onnx")
    report = round_robin("terralore_v0", paths, 2, max_turns=4)
    assert report["policies"] == [str(p) for p in paths]
    assert round_robin("terralore_v0", [str(p) for p in paths], 2, max_turns=4)["policies"] == report["policies"]


@pytest.mark.parametrize("max_turns", [0, -1, 2.5])
def test_the_functions_refuse_a_max_turns_the_env_refuses_as_the_command_does(toy, max_turns):
    # only the command checked it: round_robin(max_turns=0) reported every pair as all draws and equal Elo
    from training.evaluate import round_robin

    with pytest.raises(ConfigError, match=f"max_turns must be None .* got {max_turns!r}"):
        round_robin(toy, ["random", "toy_v0/random"], 2, max_turns=max_turns)
    with pytest.raises(ConfigError, match=f"max_turns must be None .* got {max_turns!r}"):
        play_pair(toy, "random", "random", 2, max_turns=max_turns)


@pytest.mark.parametrize("kwargs, problem", [
    ({"illegal_action": "bogus"}, r"illegal_action must be one of \('raise', 'penalty', 'random_legal'\), got 'bogus'"),
    ({"render_mode": "bogus"}, r"render_mode must be None or one of \('ansi', 'rgb_array', 'human'\), got 'bogus'"),
])
def test_a_bad_value_of_an_env_kwarg_the_arena_does_not_use_is_still_refused_naming_it(kwargs, problem, monkeypatch):
    import training.evaluate as evaluate

    monkeypatch.setattr(evaluate, "round_robin", lambda *a, **k: pytest.fail("played with a bad env kwarg"))
    with pytest.raises(ConfigError, match=problem):
        main(["--env", "terralore_v0", "--policies", "random", "heuristic", "--games", "2",
              "--env-kwargs", json.dumps(kwargs)])


def test_an_unknown_rule_option_is_a_config_error():
    with pytest.raises(ConfigError, match="no option bogus"):
        main(["--env", "terralore_v0", "--policies", "random", "heuristic", "--games", "2",
              "--env-kwargs", '{"bogus": 1}'])


def test_out_on_a_file_is_refused_before_any_game(toy, tmp_path, monkeypatch):
    import training.evaluate as evaluate

    monkeypatch.setattr(evaluate, "round_robin", lambda *a, **k: pytest.fail("played before checking --out"))
    taken = tmp_path / "taken"
    taken.write_text("keep me", encoding="utf-8")
    for out, what in ((taken, "is a file"), (taken / "sub", "lies under the file")):
        with pytest.raises(ConfigError, match=f"--out .* {what}"):
            main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2", "--out", str(out)])
    assert taken.read_text(encoding="utf-8") == "keep me"
    if Path("/proc/self").is_dir():  # found when the games were played: "[Errno 2] No such file or directory"
        for out, what in (("/proc/elo", "the folder cannot be made"), ("/proc", "no file can be written in the folder")):
            with pytest.raises(ConfigError, match=f"--out '{out}': {what} .*; choose a folder you can write to"):
                main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2", "--out", out])


def test_play_pair_never_hands_policies_the_generator_that_dealt_the_hidden_cards():
    # deal 0 of a pair with seed 0 is dealt from seed 0: the policies' generator must be another stream
    from generator_spy import GeneratorSpy, same_stream

    spy = GeneratorSpy()
    play_pair("terralore_v0", spy, spy, 2, seed=0)
    assert not same_stream(spy.first_state, 0)


@pytest.mark.parametrize("seed", [0, 918_273_645_501])
def test_play_pair_hands_policies_a_generator_that_does_not_tell_the_secret_seed(seed):
    # the deals of a pair are seed * 1_000_003 + deal: a policy that read the seed off its generator (its
    # seed_seq.entropy) re-dealt them and knew the opponent's hand, however large the secret seed
    from generator_spy import GeneratorSpy, tells_the_seed

    spy = GeneratorSpy()
    play_pair("travel_earth_v0", spy, "random", 2, seed=seed)
    assert not tells_the_seed(spy, seed)


def test_play_pair_hands_the_one_listed_first_the_generator_of_place_0_and_the_other_that_of_place_1(toy):
    # training/README: each policy draws from a generator seeded from the seed and its place in the pair
    from tabletop_envs.core.policy import policy_rng

    class FirstState:
        """Plays the first legal action (drawing nothing) and keeps the state of the first generator it is handed."""

        def __init__(self, name):
            self.name, self.state = name, None

        def act(self, obs, mask, rng):
            if self.state is None:
                self.state = rng.bit_generator.state
            return int(np.flatnonzero(mask)[0])

    a, b = FirstState("a"), FirstState("b")
    play_pair(toy, a, b, 2, seed=5)
    # A drew from B's place's generator: a round robin's pair no longer replays play_match's games
    assert a.state == policy_rng(5, 0).bit_generator.state
    assert b.state == policy_rng(5, 1).bit_generator.state


@pytest.mark.parametrize("seed", [-1, -10_000, 1.5, True])
def test_a_seed_that_is_no_non_negative_integer_is_refused_in_one_line(toy, seed, capsys):
    # -10000 ended in numpy's "expected non-negative integer" traceback; -5 played on (its pair seeds were positive)
    from tabletop_envs.core.errors import run_cli

    with pytest.raises(ConfigError, match="seed must be a non-negative integer"):
        play_pair(toy, "random", "random", 2, seed=seed)
    if isinstance(seed, int) and not isinstance(seed, bool):
        assert run_cli(main, ["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2",
                              "--seed", str(seed)]) == 2
        assert capsys.readouterr().err.startswith("error: the seed must be a non-negative integer")


def test_a_report_of_a_larger_table_names_the_policy_in_the_other_seats(tmp_path):
    # the filler moves every pair's result, but neither elo.json nor elo.md said which policy it was
    pytest.importorskip("tabletop_envs.earth.bots")
    report = main(["--env", "earth_v0", "--env-kwargs", '{"num_players": 3}', "--policies", "heuristic", "random",
                   "--games", "6", "--filler", "heuristic", "--out", str(tmp_path)])
    assert report["filler"] == "heuristic" and report["game_kwargs"] == {"num_players": 3}
    assert json.loads((tmp_path / "elo.json").read_text(encoding="utf-8"))["filler"] == "heuristic"
    assert "other seats: heuristic" in (tmp_path / "elo.md").read_text(encoding="utf-8").splitlines()[0]


def test_a_random_policy_object_is_named_random_and_anchors_the_elo_at_zero(toy, play_highest):
    from tabletop_envs.core.policy import RandomPolicy
    from training.evaluate import round_robin

    report = round_robin(toy, [play_highest, RandomPolicy()], 20, seed=1)
    assert report["policies"][1] == "random"
    assert report["elo"]["random"] == 0.0 and report["elo"][report["policies"][0]] > 0


@pytest.mark.parametrize("k, n", [(0, 5), (0, 10), (1, 3), (3, 10), (5, 5), (19, 19), (60, 100), (999, 1000)])
def test_wilson_interval_is_the_wilson_score_interval_and_stays_within_0_and_1(k, n):
    # Wilson's bounds are the proportions q the score test at z = 1.96 just accepts:
    # (k/n - q)^2 = z^2 q (1 - q) / n, one root on each side of k/n (0 and 1 themselves at k = 0 and k = n)
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    for q in (lo, hi):
        assert (k / n - q) ** 2 == pytest.approx(1.96 ** 2 * q * (1 - q) / n, rel=1e-9, abs=1e-15)
    assert (lo < k / n) == (k > 0) and (hi > k / n) == (k < n)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_seat_rotations_put_a_and_b_on_every_ordered_pair_of_neighbouring_seats_once(n):
    rot = seatings(n)
    neighbours = {(k, (k + 1) % n) for k in range(n)}
    assert len(rot) == len(set(rot)) == 2 * n
    assert set(rot) == neighbours | {(b, a) for a, b in neighbours}


class Named:
    """A policy of a scripted arena, which never asks it for a move."""

    def __init__(self, name):
        self.name = name

    def act(self, obs, mask, rng):
        raise AssertionError


def test_play_pair_counts_wins_draws_and_losses_from_a_s_seat_over_paired_deals(toy, monkeypatch):
    # a scripted arena: which deal and which seats each game got, and A's result chosen per (deal, seat of A)
    import training.evaluate as evaluate

    a, b = Named("a"), Named("b")
    calls = []
    script = {(0, 0): 1, (0, 1): 1, (1, 0): 1, (1, 1): 0, (2, 0): -1, (2, 1): -1}  # A's result

    def scripted_game(game, seats, seed, max_turns, rng):
        calls.append((seed, seats.index(a), seats.index(b)))
        deal = sorted({s for s, _, _ in calls}).index(seed)
        returns = np.zeros(len(seats))
        returns[seats.index(a)] = script[deal, seats.index(a)]
        return returns, returns, 1  # (returns, standings, decisions)

    monkeypatch.setattr(evaluate, "play_game_standings", scripted_game)
    res = play_pair(toy, a, b, 5, seed=3)  # 5 games round up to 3 deals x 2 rotations
    assert res.games == len(calls) == 6
    seeds = [s for s, _, _ in calls]
    assert len(set(seeds)) == 3 and all(seeds.count(s) == 2 for s in seeds)  # each deal from both seats
    for s in set(seeds):
        assert sorted((sa, sb) for seed, sa, sb in calls if seed == s) == [(0, 1), (1, 0)]
    assert (res.wins, res.draws, res.losses) == (3, 1, 2)
    assert res.score == pytest.approx(3.5 / 6)
    rates = res.rates()
    assert rates["score"] == pytest.approx(3.5 / 6) and rates["games"] == 6
    assert [rates[k]["rate"] for k in ("win", "draw", "loss")] == pytest.approx([3 / 6, 1 / 6, 2 / 6])
    assert rates["loss"]["ci95"] == pytest.approx(list(wilson(2, 6)))


def test_play_pair_above_two_seats_ranks_a_against_b_whoever_out_ranks_the_fillers(monkeypatch):
    # rank-based: A beats B when A's standing is higher than B's, whichever seats they and the fillers take
    import training.evaluate as evaluate

    a, b = Named("a"), Named("b")
    for standing, expected in (({a: 0.0, b: 1.0}, (0, 0, 6)), ({a: 1.0, b: 0.0}, (6, 0, 0)),
                               ({a: 0.5, b: 0.5}, (0, 6, 0))):
        # the fillers (standing -1 or 2) sit beside A in every rotation, on either side of B
        for filler in (-1.0, 2.0):
            def scripted_game(game, seats, seed, max_turns, rng, standing=standing, filler=filler):
                return np.zeros(len(seats)), np.array([standing.get(p, filler) for p in seats]), 1

            monkeypatch.setattr(evaluate, "play_game_standings", scripted_game)
            res = play_pair("earth_v0", a, b, 6, seed=0, game_kwargs={"num_players": 3})
            assert (res.wins, res.draws, res.losses) == expected, (standing, filler)


def test_the_markdown_table_puts_each_pairs_rates_and_score_in_their_columns():
    from dataclasses import asdict

    pair = PairResult("a", "b", 100, 60, 10, 30)
    report = {"env": "toy_v0", "num_players": 2, "games_per_pair": 100, "pairs": [{**asdict(pair), **pair.rates()}],
              "elo": {"a": 70.0, "b": -70.0}}
    rows = markdown(report).splitlines()
    # Wilson intervals at z = 1.96 of 60, 10 and 30 of 100
    assert rows[4] == "| a | b | 60.0% [50.2, 69.1] | 10.0% [5.5, 17.4] | 30.0% [21.9, 39.6] | 0.650 |"


def test_evaluation_lines_give_the_win_rate_with_its_own_interval():
    from training.evaluate import evaluation_lines

    evaluation = {"vs_random": PairResult("m", "random", 100, 60, 10, 30).rates(), "protocol": "100+ games"}
    assert evaluation_lines(evaluation) == ["vs_random: win 60.0% [50.2, 69.1] over 100 games"]


def test_the_elo_of_a_round_robin_is_the_fit_of_all_its_pairs(toy, play_highest):
    report = round_robin(toy, [play_highest, "random", PlayLowest()], 20, seed=1)
    pairs = [PairResult(p["a"], p["b"], p["games"], p["wins"], p["draws"], p["losses"]) for p in report["pairs"]]
    assert len(pairs) == 3
    assert report["elo"] == pytest.approx(bradley_terry_elo(report["policies"], pairs))
    assert report["elo"] == pytest.approx(bradley_terry_elo(report["policies"][::-1], pairs[::-1]))


MIXED_TABLE = [PairResult("a", "random", 200, 150, 20, 30), PairResult("b", "random", 100, 55, 10, 35),
               PairResult("a", "b", 300, 160, 40, 100), PairResult("c", "a", 50, 50, 0, 0),
               PairResult("random", "c", 80, 5, 15, 60)]
# c > b > a > random, each sweeping the ones below: 2,000 MM iterations left "c" 52 Elo short of the fit
SWEEP_TABLE = [PairResult(x, y, 1000, 1000, 0, 0) for x, y in (("c", "b"), ("c", "a"), ("c", "random"), ("b", "a"),
                                                                ("b", "random"), ("a", "random"))]


@pytest.mark.parametrize("pairs", [MIXED_TABLE, SWEEP_TABLE], ids=["mixed", "sweeps"])
def test_bradley_terry_elo_is_the_maximum_likelihood_fit_with_one_virtual_draw_per_pair(pairs):
    # At the Bradley-Terry maximum-likelihood fit each policy's expected wins equal its wins (draws
    # half a win each way, plus one virtual draw per pair): sum_j n_ij s_i / (s_i + s_j) = W_i, with
    # strengths s = 10^(Elo / 400). Checked from the ratings alone, whatever the fit's iteration.
    names = ["random", "a", "b", "c"]
    idx = {n: i for i, n in enumerate(names)}
    wins = np.zeros((4, 4))
    for p in pairs:
        wins[idx[p.a], idx[p.b]] += p.wins + 0.5 * p.draws + 0.5
        wins[idx[p.b], idx[p.a]] += p.losses + 0.5 * p.draws + 0.5
    games = wins + wins.T
    for anchor in ("random", None):
        elo = bradley_terry_elo(names, pairs, anchor=anchor)
        s = 10 ** (np.array([elo[n] for n in names]) / 400)
        expected_wins = (games * s[:, None] / (s[:, None] + s[None, :])).sum(1)
        assert expected_wins == pytest.approx(wins.sum(1), rel=1e-6, abs=1e-6)
        assert (elo["random"] == 0) if anchor else (np.mean(list(elo.values())) == pytest.approx(0, abs=1e-9))


def test_round_robin_credits_each_pair_to_the_policy_that_won_it(toy, play_highest):
    from training.evaluate import round_robin

    report = round_robin(toy, [play_highest, "random"], 200, seed=4)
    (pair,) = report["pairs"]
    assert (pair["a"], pair["b"]) == ("highest", "random") and pair["win"]["rate"] > 0.5
    assert report["elo"]["random"] == 0 and report["elo"]["highest"] > 0
    assert report["filler"] is None  # two seats: no other seat to fill


def test_round_robin_of_two_objects_of_one_class_says_how_to_name_them(toy, play_highest):
    # "name each policy once" left the user of two agents of one class without a way to name them
    from training.evaluate import round_robin

    other = type(play_highest)()
    with pytest.raises(ConfigError, match=r"got \['highest', 'highest'\].*named by its name attribute, else its "
                                          r"class: give each object a name of its own, e\.g\. agent\.name = "):
        round_robin(toy, [play_highest, other], 2)
    other.name = "highest-v2"
    assert round_robin(toy, [play_highest, other], 2)["policies"] == ["highest", "highest-v2"]


class PlayLowest:
    """A toy-game policy worse than random: the lowest card in hand."""

    name = "lowest"

    def act(self, obs, mask, rng):
        return int(np.flatnonzero(mask)[0])


def pair_counts(report, a, b):
    (pair,) = [p for p in report["pairs"] if (p["a"], p["b"]) == (a, b)]
    return pair["games"], pair["wins"], pair["draws"], pair["losses"]


def test_every_pair_of_a_round_robin_plays_the_same_deals_whoever_else_takes_part(toy, play_highest):
    from tabletop_envs.core.policy import RandomPolicy
    from training.evaluate import round_robin

    alone = round_robin(toy, [play_highest, RandomPolicy()], 200, seed=4)
    among = round_robin(toy, [PlayLowest(), play_highest, RandomPolicy()], 200, seed=4)
    # the same games, not just the same rates: a random player's moves (its generator) are the same too
    assert pair_counts(alone, "highest", "random") == pair_counts(among, "highest", "random")
    direct = play_pair(toy, play_highest, RandomPolicy(), 200, 4)
    assert pair_counts(alone, "highest", "random") == (direct.games, direct.wins, direct.draws, direct.losses)
    assert pair_counts(alone, "highest", "random") != pair_counts(
        round_robin(toy, [play_highest, RandomPolicy()], 200, seed=5), "highest", "random")


def test_a_round_robin_replays_a_training_runs_final_evaluation_against_its_anchors(toy, play_highest):
    from tabletop_envs.core.policy import RandomPolicy
    from training.evaluate import anchor_evaluation, round_robin

    class Sampler(RandomPolicy):  # a policy that samples, so its generator matters as well as the deals
        name = "sampler"

    final = anchor_evaluation(toy, Sampler(), 200, seed=1000, anchors=("random", play_highest))
    report = round_robin(toy, [Sampler(), "random", play_highest], 200, seed=1000)
    assert [(p["a"], p["b"]) for p in report["pairs"][:2]] == [("sampler", "random"), ("sampler", "highest")]
    for pair, key in ((report["pairs"][0], "vs_random"), (report["pairs"][1], "vs_highest")):
        assert {k: pair[k] for k in ("win", "draw", "loss")} == {k: final[key][k] for k in ("win", "draw", "loss")}


def test_anchor_evaluation_reports_the_policy_s_rates_against_each_anchor(toy, play_highest):
    from training.evaluate import anchor_evaluation

    out = anchor_evaluation(toy, play_highest, 200, seed=5, anchors=("random",))
    rates = out["vs_random"]
    assert rates["games"] == 200 and rates["win"]["rate"] > rates["loss"]["rate"]
    assert rates["win"]["ci95"][0] > 0.5  # the stronger policy's wins, not the anchor's


def test_anchor_evaluation_refuses_two_model_anchors_of_one_stem_before_playing(toy, play_highest, tmp_path):
    from training.evaluate import anchor_evaluation

    anchors = [str(tmp_path / "a" / "ppo.onnx"), str(tmp_path / "b" / "ppo.onnx")]  # not even there: never loaded
    with pytest.raises(ConfigError, match="would both be reported as vs_ppo"):
        anchor_evaluation(toy, play_highest, 2, anchors=anchors)


def test_an_out_folder_under_the_home_folder_lands_there(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2", "--out", "~/results"])
    assert sorted(p.name for p in (tmp_path / "home" / "results").iterdir()) == ["elo.json", "elo.md"]
    assert not (tmp_path / "~").exists()


def test_png_without_an_out_folder_is_refused_before_any_game(toy, monkeypatch):
    from training import evaluate

    monkeypatch.setattr(evaluate, "round_robin", lambda *a, **k: pytest.fail("played before checking --png"))
    with pytest.raises(ConfigError, match="--png draws elo.png into the --out folder, and no --out was given; add "
                                          "one, e.g. --out results/"):
        main(["--env", toy, "--policies", "random", "toy_v0/random", "--games", "2", "--png"])


def test_split_env_kwargs_keeps_the_rule_options_and_takes_out_what_only_the_env_reads():
    from training.evaluate import split_env_kwargs

    env_kwargs = {"num_players": 3, "max_turns": 50, "render_mode": "ansi", "illegal_action": "penalty"}
    assert split_env_kwargs(env_kwargs, "earth_v0") == ({"num_players": 3}, 50)
    assert env_kwargs["max_turns"] == 50  # the recipe's own mapping is left as it was
    assert split_env_kwargs(None, "toy_v0") == ({}, None)


def test_the_elo_table_lists_the_strongest_policy_first():
    from training.evaluate import markdown

    report = {"env": "toy_v0", "num_players": 2, "games_per_pair": 2, "pairs": [],
              "elo": {"random": 0.0, "strong": 250.0, "weak": -40.0}}
    rows = [line.split("|")[1].strip() for line in markdown(report).splitlines()[-3:]]
    assert rows == ["strong", "random", "weak"]


def test_the_env_may_be_named_as_tabletop_envs_play_names_it(capsys):
    # `tabletop-envs play terralore` took the short name, `training.evaluate --env terralore` refused it
    report = main(["--env", "terralore", "--policies", "heuristic", "random", "--games", "4"])
    assert report["env"] == "terralore_v0"
    with pytest.raises(SystemExit):
        main(["--env", "chess", "--policies", "heuristic", "random", "--games", "4"])
    assert "unknown game 'chess'; choose one of: earth, terralore, travel_earth" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["missing_model.onnx", "old/ppo.npz", "ppo_old.json"])
def test_a_missing_model_file_is_named_as_given_not_looked_up_as_an_id(name):
    from training.evaluate import resolve

    with pytest.raises(FileNotFoundError, match=f"no model at {name}"):
        resolve(name, "terralore_v0")


def test_a_pairs_two_policies_draw_from_generators_of_their_own():
    # one shared stream would hand B the random numbers A draws, and let either choose the other's moves
    from generator_spy import DrawRecorder

    a, b = DrawRecorder("A"), DrawRecorder("B")
    play_pair("terralore_v0", a, b, games=2, seed=3)
    assert len(a.draws) > 10 and len(b.draws) > 10 and not set(a.draws) & set(b.draws)


def test_an_earth_vp_tie_is_decided_by_the_rules_tiebreakers_whatever_the_reward_option():
    # under reward="vp_margin" a VP tie's returns are both 0, and the evaluation counted it a draw (an audit)
    from earth_tie import VP_TIE_SEED, assert_the_first_deal_is_a_vp_tie

    assert_the_first_deal_is_a_vp_tie()
    kw = {"num_players": 2}
    margin = play_pair("earth_v0", "random", "random", 2, seed=VP_TIE_SEED, game_kwargs={**kw, "reward": "vp_margin"})
    rank = play_pair("earth_v0", "random", "random", 2, seed=VP_TIE_SEED, game_kwargs={**kw, "reward": "rank"})
    assert (margin.wins, margin.draws, margin.losses) == (rank.wins, rank.draws, rank.losses)
    # the deal's VP tie is decided: no draw (`< 2` passed with the tiebreakers gone, the tie then one draw)
    assert rank.draws == 0


def test_the_report_of_a_numpy_seed_is_plain_json_as_an_int_seeds_is():
    import json

    report = round_robin("terralore_v0", ["random", "terralore_v0/random"], 2, seed=np.int64(3))
    assert json.loads(json.dumps(report))["seed"] == 3
    assert report["pairs"] == round_robin("terralore_v0", ["random", "terralore_v0/random"], 2, seed=3)["pairs"]


def test_play_pair_plays_deal_d_of_the_seed_from_both_seats(monkeypatch):
    # the deals search_ceiling and the arena play for the same seed: deal_seed(seed, d), each from both seats
    import training.evaluate as ev
    from tabletop_envs.core.arena import deal_seed

    seen, real = [], ev.play_game_standings
    monkeypatch.setattr(ev, "play_game_standings",
                        lambda game, seats, seed, *rest: seen.append(seed) or real(game, seats, seed, *rest))
    play_pair("terralore_v0", "random", "random", 6, seed=3)
    assert seen == [deal_seed(3, d) for d in range(3) for _ in range(2)]


def test_a_round_robin_reports_the_games_played_per_pair_rounded_up_to_whole_rotations():
    report = round_robin("terralore_v0", ["random", "heuristic"], 3, seed=0)
    assert report["games_per_pair"] == report["pairs"][0]["games"] == 4
    assert "4 games per pair" in markdown(report)


def test_a_round_robins_filler_takes_the_other_seats():
    class Filler:
        name, calls = "counting", 0

        def act(self, observation, action_mask, rng):
            Filler.calls += 1
            return int(np.flatnonzero(action_mask)[0])

    report = round_robin("earth_v0", ["random", "earth_v0/random"], 6, seed=0, game_kwargs={"num_players": 3},
                         filler=Filler())
    assert report["filler"] == "counting" and Filler.calls > 0


def test_a_pair_of_no_games_has_undefined_rates_and_intervals_not_an_error():
    # the score of an empty pair is already NaN; its rates and intervals must be too, not a ZeroDivisionError
    assert all(np.isnan(bound) for bound in wilson(0, 0))
    rates = PairResult("a", "b", 0, 0, 0, 0).rates()
    assert np.isnan(rates["score"]) and rates["games"] == 0
    for key in ("win", "draw", "loss"):
        assert np.isnan(rates[key]["rate"]) and all(np.isnan(bound) for bound in rates[key]["ci95"])


def test_a_bradley_terry_fit_stopped_short_of_convergence_raises_instead_of_giving_its_ratings():
    # the MM updates used before returned whatever 2,000 iterations reached: 50 Elo short on clean sweeps
    pairs = MIXED_TABLE[:3]
    fit = bradley_terry_elo(["random", "a", "b"], pairs, iterations=100)
    assert fit["a"] == pytest.approx(205.4, abs=0.1)
    with pytest.raises(RuntimeError, match="did not converge in 2 Newton steps"):
        bradley_terry_elo(["random", "a", "b"], pairs, iterations=2)


def test_a_bradley_terry_fit_ends_where_rounding_lets_no_step_raise_the_likelihood():
    # here the last Newton step (a few millionths of an Elo) lowers the likelihood at every scale down to
    # 1e-6: that is the fit, not a failure to converge. Two policies' fit is 400 log10 of their win ratio
    fit = bradley_terry_elo(["a", "random"], [PairResult("a", "random", 100, 88, 11, 1)])
    assert fit == pytest.approx({"a": 400 * np.log10((88 + 5.5 + 0.5) / (1 + 5.5 + 0.5)), "random": 0}, abs=1e-4)


def test_play_pair_above_two_seats_puts_a_and_b_on_every_neighbouring_pair_of_seats_each_deal(monkeypatch):
    # the two-seat rotations at a table of three kept A and B off the third seat: each deal played 2 of its 6
    # placements, and the games still added up to the count asked for
    import training.evaluate as evaluate

    a, b = Named("a"), Named("b")
    placed = []

    def scripted_game(game, seats, seed, max_turns, rng):
        placed.append((seed, seats.index(a), seats.index(b)))
        return np.zeros(len(seats)), np.zeros(len(seats)), 1

    monkeypatch.setattr(evaluate, "play_game_standings", scripted_game)
    res = play_pair("earth_v0", a, b, 6, seed=0, game_kwargs={"num_players": 3})
    assert res.games == 6 and len({seed for seed, _, _ in placed}) == 1
    assert sorted((sa, sb) for _, sa, sb in placed) == sorted(seatings(3))


def test_play_pair_above_two_seats_hands_a_b_and_the_fillers_a_generator_each(monkeypatch):
    # found by a seat audit: fillers drawing from B's generator passed every two-seat check, where no seat is
    # left to fill; B's random moves then hung on the fillers' draws
    from generator_spy import DrawRecorder

    from tabletop_envs.core.policy import policy_rng

    three_seat_game.register(monkeypatch)
    a, b, filler = DrawRecorder("a"), DrawRecorder("b"), DrawRecorder("filler")
    res = play_pair("picks_v0", a, b, 6, seed=5, filler=filler)
    assert res.games == 6
    for place, policy in enumerate((a, b, filler)):
        assert len(policy.draws) == 6  # one pick in each game
        assert policy.draws == policy_rng(5, place).random(len(policy.draws)).tolist()
