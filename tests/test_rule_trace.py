"""Every sentence of each rule text is traced to the tests that check it (tests/rule_trace.py)."""

from __future__ import annotations

import re

import pytest
import rule_trace


@pytest.mark.parametrize("env_name", rule_trace.GAMES)
def test_every_row_of_the_rules_md_trace_table_names_a_test_that_exists(env_name):
    assert rule_trace.row_problems(env_name) == []


@pytest.mark.skipif(not rule_trace.RULES_DIR.is_dir(), reason="shared/rules/ is not beside this checkout")
@pytest.mark.parametrize("env_name", rule_trace.GAMES)
def test_every_sentence_of_the_rule_text_has_a_row_in_the_trace_table(env_name):
    assert rule_trace.coverage_problems(env_name, rule_trace.read_units(env_name)) == []


def test_the_trace_check_finds_a_sentence_without_a_row_and_a_row_without_a_test(tmp_path, monkeypatch):
    text = "<ul><li>Each player starts with 2 cards. A player loses at 0 HP.</li></ul><div>Setup</div>"
    units = rule_trace.rule_units(text, is_html=True)
    assert units == ["Each player starts with 2 cards.", "A player loses at 0 HP.", "Setup"]
    keys = [rule_trace.unit_key(u) for u in units]
    md = (f"{rule_trace.SECTION}\n\n| key | the text says (paraphrased) | tests |\n|---|---|---|\n"
          f"| `{keys[0]}` | two cards each | `test_rule_trace_self_check` |\n| `{keys[2]}` | a title | |\n")
    (tmp_path / "tabletop_envs" / "toy").mkdir(parents=True)
    (tmp_path / "tabletop_envs" / "toy" / "RULES.md").write_text(md, encoding="utf-8")
    monkeypatch.setattr(rule_trace, "ROOT", tmp_path)
    monkeypatch.setitem(rule_trace.GAMES, "toy_v0", ("toy.html", "toy"))
    monkeypatch.setattr(rule_trace, "defined_tests", lambda: set())
    assert set(rule_trace.trace_table(md)) == {keys[0], keys[2]}
    assert rule_trace.row_problems("toy_v0") == [f"row {keys[0]} names test_rule_trace_self_check, which no test file defines",
                                      f"row {keys[2]} names no test (and is not marked 'heading' or 'not a rule: …')"]
    assert rule_trace.coverage_problems("toy_v0", units) == [f"unit {keys[1]} has no row: 'A player loses at 0 HP.'"]
    # a key given two rows would trace its sentence to the second row's tests alone
    with pytest.raises(ValueError, match=f"key {keys[0]} has two rows"):
        rule_trace.trace_table(md + f"| `{keys[0]}` | two cards again | `test_other` |\n")


def test_the_trace_command_names_the_games_for_an_unknown_one(capsys):
    assert rule_trace.main(["chess"]) == 2
    assert "no game 'chess': choose one of terralore_v0, travel_earth_v0, earth_v0" in capsys.readouterr().err


def test_the_readme_counts_each_trace_tables_rows_as_they_are():
    # the counts are typed by hand in README.md's Development section; a table that grows leaves them behind
    readme = " ".join((rule_trace.ROOT / "README.md").read_text(encoding="utf-8").split())
    quoted = re.search(r"(\d+) for Terralore, (\d+) for Travel Earth, (\d+) for Earth\)", readme)
    assert quoted, "README.md no longer quotes the trace tables' sizes: update this test"
    assert [int(n) for n in quoted.groups()] == [len(rule_trace._rows(g)) for g in rule_trace.GAMES]
