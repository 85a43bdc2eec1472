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
