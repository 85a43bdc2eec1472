"""tabletop_envs.earth.report: the random-play table of Earth's README."""

from __future__ import annotations

import pytest

from tabletop_envs.core.errors import run_cli
from tabletop_envs.earth.report import main


def test_the_report_summarises_its_games():
    out = main(["--players", "2", "--games", "2"])
    assert out[2]["games"] == 2 and out[2]["final_vp"]["min"] <= out[2]["final_vp"]["mean"]


@pytest.mark.parametrize("argv, message", [
    # --games 0 ended in numpy's "zero-size array to reduction operation" traceback
    (["--games", "0"], "the number of games must be a positive integer"),
    (["--games", "1", "--policy", "terralore_v0/heuristic"], "terralore_v0"),
    # another game's random policy played Earth and was reported under its own id
    (["--games", "1", "--policy", "terralore_v0/random"], "plays terralore_v0, not earth_v0"),
    (["--games", "1", "--players", "6"], "1-5 players"),
])
def test_a_bad_command_line_ends_in_one_line(argv, message, capsys):
    assert run_cli(main, argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_the_command_line_ends_a_bad_policy_in_one_line_not_a_traceback():
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "tabletop_envs.earth.report", "--games", "1", "--policy",
                          "terralore_v0/heuristic"], capture_output=True, text=True)
    assert run.returncode == 2 and "Traceback" not in run.stderr and run.stderr.startswith("error: ")


def test_the_report_counts_every_seats_final_vp_and_each_games_turns_rounds_and_decisions():
    """The summary of 3 seeded 3-player games equals the same games played here, seat by seat: the final VP of
    every seat (not one per game), the turns and rounds the state counts, and one decision per action."""
    import numpy as np

    from tabletop_envs.core.policy import policy_rng
    from tabletop_envs.earth.engine import EarthGame
    from tabletop_envs.earth.report import summary

    scores, turns, rounds, decisions = [], [], [], []
    game = EarthGame(num_players=3)
    for seed in (7, 8, 9):
        s, rng, n = game.new_initial_state(seed), policy_rng(seed), 0
        while not s.is_terminal():
            mask = s.legal_action_mask()
            legal = np.flatnonzero(mask)
            s.apply_action(int(legal[rng.integers(legal.size)]))  # as the random policy draws
            n += 1
        scores += s.scores
        turns.append(s.turns)
        rounds.append(s.rounds)
        decisions.append(n)

    def stats(x):
        return {"mean": round(float(np.mean(x)), 1), "std": round(float(np.std(x)), 1), "min": min(x), "max": max(x)}

    out = summary(3, 3, seed=7)
    assert len(scores) == 9 and len(set(scores)) > 1 and len(set(decisions)) > 1
    assert {key: out[key] for key in ("players", "games", "final_vp", "turns", "rounds", "decisions")} == {
        "players": 3, "games": 3, "final_vp": stats(scores), "turns": stats(turns), "rounds": stats(rounds),
        "decisions": stats(decisions)}


def test_the_command_line_reports_each_player_count_asked_for_on_a_json_line_of_its_own(capsys):
    # the README's tables come from one command for 1-5 players; --seed picks the games, 0 by default
    import json

    from tabletop_envs.earth.report import summary

    def without_timing(stats):
        return {key: value for key, value in stats.items() if key != "engine_us_per_decision"}

    out = main(["--players", "1", "2", "--games", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert [without_timing(json.loads(line)) for line in lines] == [without_timing(out[n]) for n in (1, 2)]
    assert without_timing(out[1]) == without_timing(summary(1, 1)) and out[1]["players"] == 1
    assert without_timing(out[2]) == without_timing(summary(2, 1, seed=0))
    seeded = main(["--players", "1", "--games", "1", "--seed", "5"])
    assert without_timing(seeded[1]) == without_timing(summary(1, 1, seed=5)) != without_timing(out[1])
    capsys.readouterr()
    assert list(main(["--players", "2", "1", "2", "--games", "1"])) == [2, 1]
    assert len(capsys.readouterr().out.splitlines()) == 2  # each table size once, in the order named


def test_the_engine_time_is_given_per_decision_in_microseconds(monkeypatch):
    from tabletop_envs.earth import report

    clock = iter([10.0, 12.0])  # the games took 2 seconds
    monkeypatch.setattr(report.time, "perf_counter", lambda: next(clock))
    out = report.summary(2, 2, seed=3)
    decisions = out["decisions"]["mean"] * 2
    assert out["engine_us_per_decision"] == round(2.0 / decisions * 1e6, 1)
