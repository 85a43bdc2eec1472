"""The benchmark scripts' command lines (the README quotes them)."""

from __future__ import annotations

import pytest


def test_aec_throughput_refuses_an_unknown_only_name_instead_of_timing_the_baseline_alone(capsys, monkeypatch):
    import benchmarks.aec_throughput as bench

    monkeypatch.setattr(bench, "measure", lambda *a, **k: pytest.fail("timed envs for a mistyped --only"))
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--only", "earth", "--seconds", "0.01", "--repeats", "1"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--only: unknown name(s) ['earth']" in err and "'earth_v0 (2p)'" in err
