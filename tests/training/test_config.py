"""The recipe schema: defaults, unknown and ill-typed keys, overrides, shipped recipes."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from extras import needs_train

from tabletop_envs import ConfigError
from training.config import TrainConfig, load_config, schema_markdown

CONFIGS = sorted(p for p in (Path(__file__).resolve().parents[2] / "configs").glob("*.yaml")
                 if not p.name.startswith("rllib_"))  # the RLlib recipes have their own schema


def test_empty_config_is_all_defaults():
    assert load_config(data={}) == TrainConfig()


def test_unknown_key_names_key_and_suggests_the_close_one(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("ppo:\n  n_step: 128\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"r.yaml: unknown key 'ppo.n_step'. Did you mean 'ppo.n_steps'"):
        load_config(path)


def test_unknown_top_level_section_is_an_error():
    with pytest.raises(ConfigError, match="unknown key 'optimizer'"):
        load_config(data={"optimizer": {}})


@pytest.mark.parametrize(("override", "message"), [
    ("ppo.n_steps=abc", "'ppo.n_steps' must be an integer, got 'abc'"),
    ("ppo.learning_rate=fast", "'ppo.learning_rate' must be a number"),
    ("ppo.net_arch=64", "'ppo.net_arch' must be a list of integers"),
    ("ppo.net_arch=[64, x]", r"'ppo.net_arch\[1\]' must be an integer"),
    ("vec.kind=threads", "'vec.kind' must be one of 'batched', 'dummy', 'subproc'"),
    ("output.tensorboard=1", "'output.tensorboard' must be true or false"),
    ("selfplay.play_latest_ratio=1.5", "'selfplay.play_latest_ratio' must be <= 1"),
    ("selfplay.window=0", "'selfplay.window' must be >= 1"),
    ("ppo=3", "'ppo' must be a mapping"),
    ("pretrain.teacher=", "'pretrain.teacher' must be a string, got nothing; for the empty string write"),
    # an item YAML reads as a bool is no string either, but offered no --set "eval.opponents[1]='...'": no
    # override sets one item of a list
    ("eval.opponents=[random, no]", r"'eval.opponents\[1\]' must be a string, got False \(bool\)$"),
])
def test_ill_typed_values_are_clear_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(overrides=[override])


def test_an_empty_string_is_written_as_two_quotes():
    assert load_config(overrides=["pretrain.teacher=''"]).pretrain.teacher == ""


@pytest.mark.parametrize(("override", "item", "fix"), [
    ("eval.opponents=[random, null]", r"eval.opponents\[1\]", "eval.opponents=[random]"),
    ("distill.opponents=[random, ~, heuristic]", r"distill.opponents\[1\]", "distill.opponents=[random, heuristic]"),
    ("pretrain.decisions={statistic: heuristic, move: }", r"pretrain.decisions\[move\]",
     "pretrain.decisions={statistic: heuristic}"),
])
def test_an_empty_item_of_a_list_or_mapping_of_strings_is_refused_with_an_override_that_loads(override, item, fix):
    # the fix a string key's own message gives, --set "eval.opponents[1]=''", is no override: 'unknown key'
    with pytest.raises(ConfigError, match=rf"'{item}' must be a string, got nothing \(an item left empty or written "
                                          r"null\); write it out, or leave it out") as refused:
        load_config(overrides=[override])
    suggested = re.findall(r'--set "([^"]*)"', str(refused.value))
    assert suggested == [fix]
    load_config(overrides=suggested)


_AS_MAPPING = r"\{.*\}: YAML reads a colon followed by a space or by the end as a mapping"
_AS_BOOL = r"(True|False): YAML 1.1 reads yes, no, on, off, true and false unquoted as true or false"


@pytest.mark.parametrize(("override", "reading", "quoted", "field"), [
    # "must be a string, got {'cuda': None} (dict)" left the reader to find out where the mapping came from
    ("ppo.device=cuda:", _AS_MAPPING, "output.dir='runs/a: b'", ("output", "dir", "runs/a: b")),
    ("output.dir=runs/a: b", _AS_MAPPING, "output.dir='runs/a: b'", ("output", "dir", "runs/a: b")),
    # "must be a string, got False (bool)" for output.name=no: YAML 1.1's booleans are more words than true and false
    ("output.name=no", _AS_BOOL, "output.name='no'", ("output", "name", "no")),
    ("pretrain.teacher=off", _AS_BOOL, "output.name='no'", ("output", "name", "no")),
    ("env=yes", _AS_BOOL, "output.name='no'", ("output", "name", "no")),
])
def test_a_string_yaml_reads_as_a_mapping_or_a_bool_is_refused_saying_so_and_how_to_quote_it(override, reading,
                                                                                              quoted, field):
    key = override.split("=")[0]
    with pytest.raises(ConfigError, match=rf"'{key}' must be a string, got {reading}; quote the string, e.g. --set "
                                          rf"\"{key}='\.\.\.'\""):
        load_config(overrides=[override])
    section, name, value = field
    assert getattr(getattr(load_config(overrides=[quoted]), section), name) == value


@pytest.mark.parametrize(("recipe", "override", "message"), [
    ("", "seed=010", r"^override seed: the value '010' is read by YAML 1.1 as 8 \(a leading 0 makes it octal\); "
                     "write the number you mean, or quote it for a string"),
    ("", "ppo.n_steps=1:30", r"^override ppo.n_steps: the value '1:30' is read by YAML 1.1 as 90 \(a colon makes it "
                             r"base 60\)"),
    ("seed: -0_10\n", None, r"r.yaml, line 1, column 7: .*the number -0_10 is read by YAML 1.1 as -8 \(a leading 0 "
                             r"makes it octal\); write the number you mean, or quote it for a string; fix the file"),
    ("", "ppo.learning_rate=-1:30.5", r"^override ppo.learning_rate: the value '-1:30.5' is read by YAML 1.1 as -90.5 "
                                      r"\(a colon makes it base 60\)"),
    ("ppo:\n  learning_rate: 1:30.5\n", None, r"r.yaml, line 2, column 18: .*the number 1:30.5 is read by YAML 1.1 as "
                                             r"90.5 \(a colon makes it base 60\); write the number you mean, or quote it "
                                             r"for a string; fix the file"),
], ids=["octal", "base_60", "recipe", "base_60_float", "recipe_base_60_float"])
def test_a_number_yaml_1_1_reads_as_octal_or_base_60_is_refused_naming_what_it_read(tmp_path, recipe, override,
                                                                                      message):
    # seed=010 trained seed 8, ppo.n_steps=1:30 a rollout of 90 and ppo.learning_rate=1:30.5 a rate of 90.5, unsaid
    path = tmp_path / "r.yaml"
    path.write_text(recipe, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(path, [override] if override else None)


def test_the_integers_yaml_reads_as_written_still_load():
    cfg = load_config(overrides=["seed=0", "ppo.total_timesteps=1_000", "ppo.n_steps=0x10", "ppo.batch_size=+16",
                                 "vec.n_envs=0b1"])
    assert (cfg.seed, cfg.ppo.total_timesteps, cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.vec.n_envs) == (0, 1000, 16,
                                                                                                       16, 1)


def test_override_without_equals_sign_explains_the_syntax():
    with pytest.raises(ConfigError, match="section.key=value"):
        load_config(overrides=["ppo.n_steps"])


def test_an_override_may_hold_spaces_around_its_key_and_an_equals_sign_in_its_value():
    assert load_config(overrides=[" ppo.n_steps = 256"]).ppo.n_steps == 256
    assert load_config(overrides=["output.dir=runs/lr=1e-4-{seed}"]).run_dir().as_posix() == "runs/lr=1e-4-0"


@pytest.mark.parametrize("override, comment", [("output.dir=runs/lr-3e-4 #2", "#2"),
                                               ("ppo.net_arch=[64, 64] # smaller", "# smaller"), ("output.name=#1", "#1")])
def test_an_override_holding_a_yaml_comment_is_refused_as_yaml_would_drop_it(override, comment):
    # output.dir=runs/lr-3e-4 #2 trained in runs/lr-3e-4, where the sweep's member without the #2 trains too
    key = override.split("=")[0]
    with pytest.raises(ConfigError, match=rf"override {re.escape(key)}: the value .* holds a YAML comment "
                                          rf"\('{re.escape(comment)}': .*quote the value to keep the #"):
        load_config(overrides=[override])
    assert load_config(overrides=["output.dir='runs/lr-3e-4 #2'"]).output.dir == "runs/lr-3e-4 #2"
    assert load_config(overrides=["output.dir=runs/lr#2"]).output.dir == "runs/lr#2"  # no comment there


def test_overrides_apply_after_the_file_and_parse_yaml_values(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("env: travel_earth_v0\nppo:\n  n_steps: 64\n  batch_size: 64\n", encoding="utf-8")
    cfg = load_config(path, ["ppo.n_steps=256.0", "ppo.net_arch=[32, 16]", "ppo.total_timesteps=2e5"])
    assert cfg.env == "travel_earth_v0"
    assert cfg.ppo.n_steps == 256 and cfg.ppo.batch_size == 64
    assert cfg.ppo.net_arch == [32, 16] and cfg.ppo.total_timesteps == 200_000
    # stored as ints, not the floats YAML read (256.0, and 2e5 through float()): range() and % take no float
    assert type(cfg.ppo.n_steps) is int and type(cfg.ppo.total_timesteps) is int


def test_anchor_shares_above_one_are_refused():
    with pytest.raises(ConfigError, match="random_weight \\+ selfplay.heuristic_weight = 1.2 > 1"):
        load_config(data={"selfplay": {"random_weight": 0.6, "heuristic_weight": 0.6}})
    with pytest.raises(ConfigError, match="= 1.005 > 1"):  # just over: refused here, not by the pool mid-run
        load_config(data={"selfplay": {"random_weight": 0.5, "heuristic_weight": 0.505}})
    assert load_config(data={"selfplay": {"random_weight": 0.5, "heuristic_weight": 0.5}}).selfplay.heuristic_weight == 0.5


def test_an_override_of_a_mapping_key_replaces_the_recipes_mapping_and_one_of_a_section_changes_only_its_keys():
    # the exploitability check of docs/measurements.md: the recipe's opponents used to stay beside the one set,
    # refused as 'shares = 2 > 1' (or, where they fitted, trained against as well)
    alone = {"selfplay": {"random_weight": 0.0, "heuristic_weight": 0.0, "opponents": {"terralore_v0/ppo": 1.0}}}
    cfg = load_config(data=alone, overrides=["selfplay.opponents={runs/a/ppo.onnx: 1.0}"])
    assert cfg.selfplay.opponents == {"runs/a/ppo.onnx": 1.0}
    assert load_config(data=alone).selfplay.opponents == {"terralore_v0/ppo": 1.0}
    recipe = {"env": "earth_v0", "env_kwargs": {"num_players": 2, "max_turns": 50}, "ppo": {"n_steps": 256, "n_epochs": 3}}
    assert load_config(data=recipe, overrides=["env_kwargs={num_players: 3}"]).env_kwargs == {"num_players": 3}
    assert load_config(data=recipe, overrides=["env_kwargs.num_players=3"]).env_kwargs == {"num_players": 3,
                                                                                           "max_turns": 50}
    ppo = load_config(data=recipe, overrides=["ppo={n_steps: 512}"]).ppo
    assert (ppo.n_steps, ppo.n_epochs) == (512, 3)


def test_an_override_of_one_entry_of_a_mapping_takes_a_model_path_with_dots_as_one_name():
    # the path split at its dots into {'runs/a/ppo': {'onnx': 0.3}}, refused as "'selfplay.opponents[runs/a/ppo]'
    # must be a number", which named neither the path given nor the way to write it
    cfg = load_config(overrides=["selfplay.opponents.runs/a/ppo.onnx=0.3", "selfplay.opponents.terralore_v0/ppo=0.1",
                                 "selfplay.opponents.runs/b/ppo.v2.onnx=0.2"])  # (a stem may hold dots: ppo.v2)
    assert cfg.selfplay.opponents == {"runs/a/ppo.onnx": 0.3, "terralore_v0/ppo": 0.1, "runs/b/ppo.v2.onnx": 0.2}
    assert load_config(overrides=["pretrain.decisions.a.b=heuristic"]).pretrain.decisions == {"a.b": "heuristic"}


@pytest.mark.parametrize("name", ["run", "summary", "History"])
def test_an_output_name_whose_sidecar_is_one_of_the_run_s_reports_is_refused(name):
    # output.name=summary exported summary.json and the summary then replaced it: a model no loader reads
    with pytest.raises(ConfigError, match=rf"output.name '{name}' would write the exported sidecar over the run's "
                                          rf"own {name.lower()}.json .*choose another name"):
        load_config(overrides=[f"output.name={name}"])


def test_fixed_opponents_are_a_mapping_of_anchors_to_shares_counted_with_the_anchor_shares():
    cfg = load_config(data={}, overrides=["selfplay.opponents={terralore_v0/ppo: 0.3, runs/a/ppo.onnx: 0.2}"])
    assert cfg.selfplay.opponents == {"terralore_v0/ppo": 0.3, "runs/a/ppo.onnx": 0.2}
    assert load_config(data={}).selfplay.opponents == {}
    with pytest.raises(ConfigError, match=r"'selfplay.opponents\[terralore_v0/ppo\]' must be a number, got 'lots'"):
        load_config(data={"selfplay": {"opponents": {"terralore_v0/ppo": "lots"}}})
    with pytest.raises(ConfigError, match=r"'selfplay.opponents\[terralore_v0/ppo\]' must be <= 1, got 1.5"):
        load_config(data={"selfplay": {"opponents": {"terralore_v0/ppo": 1.5}}})
    with pytest.raises(ConfigError, match="must be a mapping with string keys and number values, got"):
        load_config(data={"selfplay": {"opponents": ["terralore_v0/ppo"]}})
    with pytest.raises(ConfigError, match=r"random_weight \+ selfplay.heuristic_weight \+ the selfplay.opponents "
                                          r"shares = 1.1 > 1; they are shares of opponent seats"):
        load_config(data={"selfplay": {"random_weight": 0.5, "heuristic_weight": 0.2,
                                       "opponents": {"terralore_v0/ppo": 0.4}}})
    with pytest.raises(ConfigError, match=r"phases\[0\]: selfplay.random_weight .* = 1.2 > 1"):
        load_config(data={"ppo": {"total_timesteps": 1000}, "selfplay": {"random_weight": 0.7},
                          "phases": [{"at": 500, "set": {"selfplay.opponents": {"terralore_v0/ppo": 0.3}}}]})
    with pytest.raises(ConfigError, match=r"phases\[0\]: selfplay.opponents names 'random'"):
        load_config(data={"ppo": {"total_timesteps": 1000},
                          "phases": [{"at": 500, "set": {"selfplay.opponents": {"random": 0.3}}}]})


def test_batch_larger_than_rollout_is_refused():
    with pytest.raises(ConfigError, match="exceeds the rollout size"):
        load_config(data={"ppo": {"n_steps": 16, "batch_size": 64}, "vec": {"n_envs": 2}})


@pytest.mark.parametrize("n_envs, n_steps, batch_size", [(3, 171, 256), (1, 3, 2), (2, 64, 127)])
def test_a_rollout_leaving_a_one_sample_minibatch_is_refused_and_each_suggested_fix_loads(n_envs, n_steps,
                                                                                          batch_size):
    sizes = [f"vec.n_envs={n_envs}", f"ppo.n_steps={n_steps}", f"ppo.batch_size={batch_size}"]
    with pytest.raises(ConfigError, match="last minibatch of one sample") as refused:
        load_config(overrides=sizes)
    fixes = re.findall(r"--set (ppo\.\w+=\d+)", str(refused.value))
    assert len(fixes) == 2
    for fix in fixes:
        cfg = load_config(overrides=[*sizes, fix])
        assert cfg.ppo.n_steps * cfg.vec.n_envs % cfg.ppo.batch_size != 1


@pytest.mark.parametrize("opponents, reported", [("[runs/a/ppo.onnx, runs/b/ppo.onnx]", "reported as vs_ppo"),
                                                  ("[random, random]", "reported as vs_random"),
                                                  ("[terralore_v0/ppo, m/terralore_v0_ppo.onnx]",
                                                   "share the TensorBoard tag eval/win_rate_vs_terralore_v0_ppo")])
def test_anchors_that_would_be_reported_under_one_name_are_refused_when_the_recipe_loads(opponents, reported):
    with pytest.raises(ConfigError, match=f"eval.opponents: .* {reported}, so the first one's results would be "
                                          "lost; name each anchor once, and give a model file a stem of its own"):
        load_config(overrides=[f"eval.opponents={opponents}"])


def test_an_output_dir_under_the_home_folder_lands_there_not_in_a_folder_named_tilde(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert load_config(overrides=["output.dir=~/runs/{env}"]).run_dir() == tmp_path / "runs" / "terralore_v0"


def test_a_recipe_or_output_dir_starting_with_a_tilde_of_no_user_is_the_name_as_written(tmp_path, monkeypatch):
    # as a shell leaves ~name of no user as written; pathlib's expanduser() raised RuntimeError "Could not determine
    # home directory", a traceback naming no key, from --config ~runs.yaml or output.dir: ~runs/{env}
    monkeypatch.chdir(tmp_path)
    assert load_config(overrides=["output.dir=~nosuchuser/{env}"]).run_dir() == Path("~nosuchuser/terralore_v0")
    with pytest.raises(ConfigError, match="config file ~nosuchuser/t.yaml not found"):
        load_config("~nosuchuser/t.yaml")


def test_a_recipe_under_the_home_folder_is_read_from_there(tmp_path, monkeypatch):
    # --config ~/recipes/mine.yaml, as a shell expands it for the command line; a recipe path in Python too
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "recipes").mkdir()
    (tmp_path / "recipes" / "mine.yaml").write_text("seed: 7\n", encoding="utf-8")
    assert load_config("~/recipes/mine.yaml").seed == 7


def test_a_recipe_of_the_other_trainer_is_named_as_such_with_the_command_that_runs_it():
    from training.rllib_train import load_rllib_config

    with pytest.raises(ConfigError, match=r"rllib_terralore.yaml is an RLlib recipe .*: run it with python -m "
                                          r"training.rllib_train --config .*rllib_terralore.yaml"):
        load_config("rllib_terralore")
    with pytest.raises(ConfigError, match=r"terralore.yaml is a MaskablePPO recipe .*: run it with python -m "
                                          r"training.train --config .*terralore.yaml"):
        load_rllib_config("terralore")
    with pytest.raises(ConfigError, match="unknown key 'ppo.nsteps'. Did you mean 'ppo.n_steps'"):
        load_config("terralore", ["ppo.nsteps=3"])  # a typo in a recipe of this trainer stays a typo


def test_missing_file_and_bad_yaml_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [1, 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config(bad)


@pytest.mark.parametrize("make, problem", [
    (lambda p: p.mkdir(), "is a folder; pass a YAML file"),
    (lambda p: p.write_bytes(b"seed: \xff\n"), "is not UTF-8 text; pass a YAML file"),
])
def test_a_recipe_that_is_a_folder_or_not_utf8_text_is_a_config_error_naming_it(tmp_path, make, problem):
    recipe = tmp_path / "mine.yaml"
    make(recipe)
    with pytest.raises(ConfigError, match=rf"^config file .*mine.yaml {problem}, recipes live in configs/\*.yaml"):
        load_config(recipe)


def test_a_yaml_error_that_names_what_it_was_scanning_without_a_place_says_what(tmp_path):
    # PyYAML's "while scanning for the next token" comes with no line of its own: it was dropped
    recipe = tmp_path / "tick.yaml"
    recipe.write_text("seed: `7`\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"tick.yaml, line 1, column 7: not valid YAML: found character '`' "
                                          r"that cannot start any token \(while scanning for the next token\); "
                                          r"fix the file"):
        load_config(recipe)


@pytest.mark.parametrize("name", ["a" * 300, "configs/" + "a" * 300])
def test_a_recipe_name_too_long_for_a_file_is_a_config_error_naming_it(name):
    # resolve_recipe's exists() raised OSError "File name too long" (before Python 3.13) from load_config
    with pytest.raises(ConfigError, match=r"^config file .*a{300} cannot be read \(File name too long\); pass a "
                                          r"recipe, recipes live in configs/\*.yaml"):
        load_config(name)


def test_a_recipe_that_is_a_link_to_itself_is_a_config_error_naming_it(tmp_path):
    # read_text_at_most's OSError "Too many levels of symbolic links" ended training.train on a traceback
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    with pytest.raises(ConfigError, match=r"^config file .*loop.yaml cannot be read \(Too many levels of symbolic "
                                          r"links\); pass a recipe, recipes live in configs/\*.yaml"):
        load_config(loop)


@pytest.mark.parametrize("text, key, first, line", [
    ("ppo:\n  n_steps: 64\n  total_timesteps: 256\neval:\n  games: 2\nppo:\n  batch_size: 32\n", "ppo", 1, 6),
    ("ppo:\n  n_steps: 64\n  n_steps: 128\n", "n_steps", 2, 3),
])
def test_a_key_given_twice_in_a_recipe_is_an_error_naming_both_lines(tmp_path, text, key, first, line):
    # PyYAML kept the last: the first ppo section (its steps and rollout) was dropped without a word
    recipe = tmp_path / "dup.yaml"
    recipe.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"dup.yaml, line {line}, column \d+: not valid YAML: the key '{key}' is "
                                          rf"given twice \(first on line {first}\)"):
        load_config(recipe)


def test_a_key_given_twice_in_an_override_mapping_is_refused_as_in_a_recipe():
    # --set values were read by yaml.safe_load, which keeps the last: the 0.3 share below was dropped unsaid
    with pytest.raises(ConfigError, match=r"^override selfplay.opponents: the value '\{terralore_v0/ppo: 0.3, "
                                          r"terralore_v0/ppo: 0.05\}' gives the key 'terralore_v0/ppo' twice; keep one"):
        load_config(overrides=["selfplay.opponents={terralore_v0/ppo: 0.3, terralore_v0/ppo: 0.05}"])


def test_a_key_that_overrides_a_yaml_merge_is_not_a_key_given_twice():
    import yaml

    from training.config import _recipe_loader

    text = "base: &b {n_steps: 64, batch_size: 32}\nppo:\n  <<: *b\n  n_steps: 128\n"
    assert yaml.load(text, Loader=_recipe_loader())["ppo"] == {"n_steps": 128, "batch_size": 32}
    # nor are two merges: PyYAML applies both
    text = "a: &a {n_steps: 64}\nb: &b {batch_size: 32}\nppo:\n  <<: *a\n  <<: *b\n  n_epochs: 2\n"
    assert yaml.load(text, Loader=_recipe_loader())["ppo"] == {"n_steps": 64, "batch_size": 32, "n_epochs": 2}


def test_a_shipped_recipe_is_found_by_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no configs/ here: the README's commands run from another folder
    for name in ("terralore", "terralore.yaml", "configs/terralore.yaml"):
        assert load_config(name).env == "terralore_v0", name
    assert load_config("earth_4p").env_kwargs["num_players"] == 4


def test_a_recipe_file_of_ones_own_comes_before_the_shipped_one_of_that_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "terralore.yaml").write_text("env: travel_earth_v0\n", encoding="utf-8")
    assert load_config("terralore.yaml").env == "travel_earth_v0"


def test_a_missing_recipe_is_an_error_naming_the_shipped_ones_and_never_becomes_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for missing in ("terralor", "configs/nope.yaml", tmp_path / "mine" / "terralore.yaml"):
        with pytest.raises(ConfigError, match=r"not found; .*shipped: earth, earth_4p, main_job, .*terralore"):
            load_config(missing)


def test_every_key_is_documented_with_its_default():
    table = schema_markdown()
    for key in ("`ppo.n_steps`", "`selfplay.gate_win_rate`", "`vec.kind`", "`eval.final_games`", "`seed`"):
        assert key in table
    assert all(row.count("|") == 5 and row.split("|")[4].strip() for row in table.splitlines()[2:])


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_recipes_load(path):
    cfg = load_config(path)
    assert cfg.env.endswith("_v0")


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_every_policy_a_shipped_recipe_names_loads_for_its_env(path):
    # configs/travel_earth.yaml clones travel_earth_v0/ppo_statistic and trains against it and five more shipped
    # models: a recipe naming a model that is no longer shipped is refused only when someone runs it
    from tabletop_envs.core.registry import make_game
    from training.evaluate import resolve, split_env_kwargs

    cfg = load_config(path)
    game = make_game(cfg.env, **split_env_kwargs(cfg.env_kwargs, cfg.env)[0])
    game_config, state = game.config(), game.new_initial_state(0)
    seat = state.current_player()
    named = [*cfg.eval.opponents, *cfg.selfplay.opponents, *cfg.distill.opponents, cfg.eval.select_anchor,
             *[spec for phase in cfg.phases for spec in phase["set"].get("selfplay.opponents", {})]]
    if cfg.pretrain.teacher:
        named.append(cfg.pretrain.teacher)
    named.extend(cfg.pretrain.decisions.values())
    for spec in named:
        _, policy = resolve(spec, cfg.env, game_config)
        mask = state.legal_action_mask()
        assert mask[policy.act(state.observation(seat), mask, np.random.default_rng(0))], spec


def test_the_travel_earth_staller_recipe_is_the_exploiter_recipe_at_seed_1():
    # two standalone files (recipes have no inheritance): stage 4 is documented as stage 2 at another seed
    import dataclasses

    configs = CONFIGS[0].parent
    staller = dataclasses.asdict(load_config(configs / "travel_earth_staller.yaml"))
    exploiter = dataclasses.asdict(load_config(configs / "travel_earth_exploiter.yaml"))
    assert (staller.pop("seed"), exploiter.pop("seed")) == (1, 0)
    assert (staller["output"].pop("name"), exploiter["output"].pop("name")) == ("staller", "exploiter")
    assert (staller["output"].pop("dir"), exploiter["output"].pop("dir")) == ("runs/travel_earth_staller-s{seed}",
                                                                              "runs/travel_earth_exploiter-s{seed}")
    assert staller == exploiter


@pytest.mark.parametrize(("phases", "message"), [
    ([{"at": 500}], "exactly 'at'"),
    ([{"at": True, "set": {"ppo.ent_coef": 0.0}}], r"phases\[0\].at"),
    ([{"at": 500, "set": {"ppo.n_steps": 64}}], "'ppo.n_steps' cannot change during a run"),
    ([{"at": 500, "set": {"ppo.learning_rate": 1e-4}}, {"at": 400, "set": {"ppo.ent_coef": 0.0}}],
     r"phases\[1\].at must be a step after the previous phase's \(500\)"),
    ([{"at": 5000, "set": {"ppo.learning_rate": 1e-4}}], r"before ppo.total_timesteps \(1000\)"),
    ([{"at": 500, "set": {"ppo.learning_rate": "fast"}}], "'phases\\[0\\].set.ppo.learning_rate' must be a number"),
    ([{"at": 500, "set": {"ppo.learning_rate": -1e-4}}], r"'phases\[0\].set.ppo.learning_rate' must be >= 0"),
    ([{"at": 500, "set": {"selfplay.play_latest_ratio": 1.5}}],
     r"'phases\[0\].set.selfplay.play_latest_ratio' must be <= 1"),
    ([{"at": 500, "set": {"selfplay.gate_win_rate": -0.1}}], r"'phases\[0\].set.selfplay.gate_win_rate' must be >= 0"),
    ([{"at": 500, "set": {"selfplay.heuristic_weight": 0.95}}], r"phases\[0\]: selfplay.random_weight \+ "),
])
def test_bad_phases_are_clear_errors(phases, message):
    with pytest.raises(ConfigError, match=message):
        load_config(data={"ppo": {"total_timesteps": 1000}, "phases": phases})


@pytest.mark.parametrize(("override", "bad"), [("ppo.n_steps=[1,2", "'[1,2'"),
                                               ("pretrain.teacher='heur", "\"'heur\"")])
def test_malformed_yaml_in_an_override_names_the_key_and_the_text(override, bad):
    with pytest.raises(ConfigError) as info:
        load_config(overrides=[override])
    assert str(info.value).startswith(f"override {override.split('=')[0]}: the value {bad} is not valid YAML (")


def test_malformed_yaml_file_is_one_line_naming_the_file_and_the_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("env: terralore_v0\nppo:\n  n_steps: [1, 2\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(bad)
    message = str(info.value)
    assert message.startswith(f"{bad}, line 4, column 1: not valid YAML: expected ',' or ']'")
    assert "begun on line 3" in message and "\n" not in message and "<unicode string>" not in message


def _laughs(levels: int) -> str:
    lines = ["env: terralore_v0", "env_kwargs:", "  decks: &a0 [random, random]"]
    lines += [f"  z{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text, problem", [
    (_laughs(8), r"holds more than 100,000 values once its YAML aliases are expanded \(aliases that repeat"),
    ("env_kwargs: &a\n  decks: *a\n", "holds more than 100,000 values once"),
    ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "its lists or mappings nest too deeply to be read"),
    ("ppo:\n  n_steps: " + "1" * 5000 + "\n", r"line 2, column 12: .*the value '1111.*' \(5,000 characters\) cannot be "
                                          r"read \(Exceeds the limit"),
    ("output:\n  name: 2024-02-30\n", r"line 2, column 9: .*the value 2024-02-30 reads as a date but is none \(day is "
                                     r"out of range for month\); quote it for a string"),
], ids=["billion_laughs", "holds_itself", "deep", "huge_int", "bad_date"])
def test_a_hostile_recipe_is_one_config_error_naming_the_file_not_a_hang_or_a_traceback(tmp_path, text, problem):
    """A recipe from someone else: ten lines of aliases repeating aliases hung the key checks (a message
    built for each value showed it whole), deep nesting raised RecursionError, a huge number a ValueError."""
    recipe = tmp_path / "r.yaml"
    recipe.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"r\.yaml.*{problem}.*(fix the file|configs/)"):
        load_config(recipe)


@pytest.mark.parametrize(("override", "problem"), [
    # Python 3.10 words it "the limit (4300) for", 3.11 on "the limit (4300 digits) for"
    ("ppo.n_steps=1" + "0" * 5000, r"'1000.*' \(5,001 characters\) cannot be read \(Exceeds the limit \(4300"),
    ("output.name=2024-13-01", r"'2024-13-01' reads as a date but is none \(month must be in 1..12\); quote it for "
                               "a string"),
    ("env_kwargs.x=" + "[" * 100_000 + "]" * 100_000, r"'\[\[\[.*' \(200,000 characters\) nests its lists or "
                                                      "mappings too deeply to be read"),
], ids=["huge_int", "bad_date", "deep"])
def test_an_override_yaml_cannot_build_a_value_of_is_one_config_error_naming_the_key(override, problem):
    # tracebacks: int()'s digit limit and datetime raised ValueError, the nesting RecursionError (a recipe file's
    # are caught)
    with pytest.raises(ConfigError, match=rf"^override {override.split('=')[0]}: the value {problem}"):
        load_config(overrides=[override])


@pytest.mark.parametrize(("value", "problem"), [
    ("!!bool maybe", r"the value 'maybe' does not fit its tag !!bool; drop the tag"),
    ("!!int abc", r"the value 'abc' does not fit its tag !!int \(invalid literal for int\(\) with base 10: 'abc'\); "
                  "drop the tag"),
    ("!!int ''", r"the value '' does not fit its tag !!int; drop the tag"),
    ("!!int [1]", r"a list does not fit its tag !!int; drop the tag"),
    ("!!map [1, 2]", r"a list does not fit its tag !!map; drop the tag"),
    ("!!timestamp soon", r"the value 'soon' does not fit its tag !!timestamp; drop the tag"),
], ids=["bool", "int", "empty_int", "int_list", "map_list", "timestamp"])
def test_a_value_its_explicit_tag_cannot_hold_is_one_config_error_naming_the_tag_not_a_traceback(tmp_path, value,
                                                                                                 problem):
    """PyYAML's own constructors raised KeyError (``!!bool maybe``), AttributeError, IndexError or TypeError, each a
    traceback naming no file, and a ValueError (``!!int abc``) was called "a number too long to read"."""
    recipe = tmp_path / "r.yaml"
    recipe.write_text(f"env: terralore_v0\noutput:\n  name: {value}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"r\.yaml, line 3, column 9: not valid YAML: {problem}.*fix the file$"):
        load_config(recipe)
    tag = value.split()[0]
    with pytest.raises(ConfigError, match=rf"^override output\.name: the value {re.escape(repr(value))} does not fit "
                                          rf"its tag {tag}.*; drop the tag, or write a value that fits it$"):
        load_config(overrides=[f"output.name={value}"])


def test_a_recipe_far_larger_than_any_recipe_is_refused_before_yaml_reads_it(tmp_path):
    """PyYAML took 63 s and 1.2 GB over a 10 MB recipe before it was refused for its values."""
    recipe = tmp_path / "r.yaml"
    recipe.write_text("env: terralore_v0\nenv_kwargs:\n  decks: [" + ", ".join(["random"] * 40_000) + "]\n",
                      encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config file \S*r\.yaml cannot be read: it holds over 262,144 bytes, far "
                                          r"more than any recipe; pass a recipe"):
        load_config(recipe)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_recipe_that_is_a_named_pipe_is_refused_instead_of_waiting_for_a_writer(tmp_path):
    recipe = tmp_path / "r.yaml"
    os.mkfifo(recipe)
    with pytest.raises(ConfigError, match=r"config file \S*r\.yaml cannot be read: it is no regular file"):
        load_config(recipe)


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "nan", "inf"])
@pytest.mark.parametrize("key", ["ppo.learning_rate", "ppo.gamma", "selfplay.random_weight", "pretrain.vf_coef"])
def test_non_finite_floats_are_refused_for_every_float_key(key, value):
    with pytest.raises(ConfigError, match=f"'{key}' must be a finite number"):
        load_config(overrides=[f"{key}={value}"])


#: past the largest float (about 1.8e308), yet short of int()'s 4300-digit limit: YAML reads it as an int
HUGE = "1" + "0" * 400


@pytest.mark.parametrize(("recipe", "override", "key"), [
    (f"ppo:\n  learning_rate: {HUGE}\n", None, "ppo.learning_rate"),
    ("", f"ppo.learning_rate={HUGE}", "ppo.learning_rate"),
    ("", f"selfplay.opponents={{terralore_v0/ppo: {HUGE}}}", r"selfplay.opponents\[terralore_v0/ppo\]"),
], ids=["recipe", "override", "share"])
def test_a_number_too_large_for_a_float_is_a_config_error_naming_the_key(tmp_path, recipe, override, key):
    # float() of such an int raised OverflowError: a traceback instead of the message naming the key
    path = tmp_path / "r.yaml"
    path.write_text(recipe, encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"'{key}' must be a finite number, got an integer of 401 digits"):
        load_config(path, [override] if override else None)


@pytest.mark.parametrize(("override", "key"), [
    (f"selfplay.window={HUGE}", "selfplay.window"),  # deque(maxlen=...): OverflowError as the run started
    ("selfplay.gate_episodes=9223372036854775808", "selfplay.gate_episodes"),  # 2**63: the same
    (f"ppo.torch_threads={HUGE}", "ppo.torch_threads"),  # torch.set_num_threads: ValueError
    (f"ppo.total_timesteps={HUGE}", "ppo.total_timesteps"),  # SB3's progress: OverflowError
    ("ppo.n_steps=1e300", "ppo.n_steps"),  # a whole float is read as an int
    (f"ppo.net_arch=[{HUGE}]", r"ppo.net_arch\[0\]"),  # torch's C++ error, frames and all
], ids=["window", "gate-2**63", "threads", "timesteps", "float", "net_arch"])
def test_an_integer_past_64_bits_is_a_config_error_naming_the_key(override, key):
    with pytest.raises(ConfigError, match=rf"'{key}' must be a 64-bit integer, from -9223372036854775808 to "
                                          r"9223372036854775807 .*got an integer of \d+ digits; use a smaller number"):
        load_config(overrides=[override])


def test_the_largest_64_bit_integer_is_still_taken():
    assert load_config(overrides=["eval.every=9223372036854775807"]).eval.every == 2**63 - 1


def test_non_finite_floats_are_refused_in_phases_too():
    with pytest.raises(ConfigError, match="'phases\\[0\\].set.ppo.learning_rate' must be a finite number"):
        load_config(data={"ppo": {"total_timesteps": 1000},
                          "phases": [{"at": 500, "set": {"ppo.learning_rate": float("nan")}}]})


@pytest.mark.parametrize(("template", "message"), [
    ("runs/x-{bogus}", r"unknown placeholder \{bogus\}; the placeholders are \{env\}, \{seed\}, \{name\}"),
    ("runs/{0}", r"unknown placeholder \{0\}"),
    ("runs/x-{", r"not a valid folder template .*\{env\}, \{seed\}, \{name\}"),
    ("runs/{seed:q}", r"not a valid folder template \(Unknown format code 'q'"),  # a ValueError from run_dir()
    ("runs/{env:d}", r"not a valid folder template \(Unknown format code 'd'"),
])
def test_output_dir_with_an_unknown_placeholder_is_a_config_error(template, message):
    with pytest.raises(ConfigError, match=f"output.dir .*{message}"):
        load_config(overrides=[f"output.dir={template}"])


def test_output_dir_placeholders_and_literal_braces_still_work():
    cfg = load_config(overrides=["output.dir=runs/{{x}}-{env}-s{seed:02d}-{name}"])
    assert str(cfg.run_dir()) == "runs/{x}-terralore_v0-s00-ppo"


@pytest.mark.parametrize("device", ["gpu0", "cuda0", "cpu:x", "CUDA", "cuda:", "mps:"])
def test_an_unknown_device_is_refused_when_the_recipe_loads(device):
    # 'cuda:' with no index (quoted, or YAML reads a mapping): refused here, not by torch once the learner is built
    with pytest.raises(ConfigError, match=f"ppo.device '{device}' is not a torch device; use cpu, cuda"):
        load_config(overrides=[f"ppo.device='{device}'"])


def test_a_device_beyond_cpu_cuda_and_mps_is_refused_where_torch_is_not_installed(monkeypatch):
    # xpu is a torch device, but without torch (no [train] extra) nothing can tell that it is one
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch: ImportError
    with pytest.raises(ConfigError, match="ppo.device 'xpu' is not a torch device; use cpu, cuda"):
        load_config(overrides=["ppo.device=xpu"])
    assert load_config(overrides=["ppo.device=cuda:1"]).ppo.device == "cuda:1"


@needs_train
def test_a_run_may_use_the_gpu_the_machine_has_but_not_an_mps_device_it_lacks(monkeypatch):
    import torch

    from training.config import check_device_present

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    check_device_present("cuda:0")
    check_device_present("cuda")
    with pytest.raises(ConfigError, match=r"ppo.device 'mps', but torch sees no MPS device on this machine; train "
                                          r"on the CPU with --set ppo.device=cpu"):
        check_device_present("mps")


@needs_train
@pytest.mark.parametrize("device", ["meta", "xpu"])
def test_a_torch_device_this_machine_cannot_train_on_is_refused_before_the_run_folder_changes(device, tmp_path):
    # meta passed every check, set the earlier run aside, and failed in the learner's constructor
    from training.train import train

    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text("{}", encoding="utf-8")
    cfg = load_config(overrides=["env=terralore_v0", f"ppo.device={device}", f"output.dir={run}"])
    with pytest.raises(ConfigError, match=f"ppo.device '{device}' cannot train on this machine"):
        train(cfg)
    assert [p.name for p in run.iterdir()] == ["run.json"]


def test_a_seed_beyond_what_sb3_accepts_is_refused_when_the_recipe_loads():
    assert load_config(overrides=[f"seed={2**32 - 1}"]).seed == 2**32 - 1
    with pytest.raises(ConfigError, match="'seed' must be <= 4294967295, got 4294967296"):
        load_config(overrides=[f"seed={2**32}"])


@pytest.mark.parametrize("name", ["con", "NUL", "Aux", "prn", "com1", "LPT9", "com\u00b9", "LPT\u00b3"])
def test_an_output_name_that_windows_keeps_for_a_device_is_refused_on_every_system(name):
    # runs/<dir>/con.onnx is the console on Windows, not a file: a recipe is trained on any system
    with pytest.raises(ConfigError, match=f"output.name '{name}' is a device name on Windows"):
        load_config(overrides=[f"output.name={name}"])
    assert load_config(overrides=["output.name=console"]).output.name == "console"


def test_an_output_name_too_long_for_a_file_name_is_refused():
    # 300 letters loaded, and the run ended in OSError "File name too long" (after the training on Python 3.13)
    with pytest.raises(ConfigError, match=r"output.name 'aaa\w*'… is 300 bytes long; a file name holds 255 bytes.* keep "
                                          r"it to 150"):
        load_config(overrides=[f"output.name={'a' * 300}"])
    with pytest.raises(ConfigError, match="is 152 bytes long"):  # bytes, not letters: é is two
        load_config(overrides=[f"output.name={'é' * 76}"])
    assert load_config(overrides=[f"output.name={'a' * 150}"]).output.name == "a" * 150


@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1", "mps", "auto"])
def test_known_devices_are_accepted(device):
    assert load_config(overrides=[f"ppo.device={device}"]).ppo.device == device


@pytest.mark.parametrize("name", ["''", "a/b", "../x", "ppo.v2", "'my model'"])
def test_an_empty_or_path_like_output_name_is_refused(name):
    # output.name='' wrote runs/<dir>.onnx next to the run folder instead of inside it
    with pytest.raises(ConfigError, match="output.name .* must be a plain file stem"):
        load_config(overrides=[f"output.name={name}"])
    assert load_config(overrides=["output.name=ppo_4p-b"]).output.name == "ppo_4p-b"


@pytest.mark.parametrize(("key", "refused", "accepted"), [
    ("ppo.total_timesteps", 0, 1), ("ppo.n_steps", 1, 2), ("ppo.batch_size", 1, 2), ("ppo.n_epochs", 0, 1),
    ("ppo.gamma", 1.01, 1.0), ("ppo.gamma", -0.01, 0.0), ("ppo.gae_lambda", 1.01, 1.0),
    ("ppo.learning_rate", -1e-9, 0.0), ("ppo.torch_threads", 0, 1), ("vec.n_envs", 0, 1),
    ("selfplay.random_weight", 1.01, 1.0), ("selfplay.gate_win_rate", 1.01, 1.0), ("selfplay.gate_episodes", 0, 1),
    ("selfplay.snapshot_every", 0, 1), ("pretrain.vs_random_share", 1.01, 1.0), ("pretrain.games", 0, 1),
    ("eval.games", 1, 2), ("eval.final_games", -1, 0), ("eval.select_games", -1, 0), ("eval.every", 0, 1),
    ("output.verbose", 3, 2), ("output.verbose", -1, 0), ("output.checkpoint_every", 0, 1), ("seed", -1, 0),
    ("ppo.clip_range", -0.01, 0.0), ("ppo.ent_coef", -0.01, 0.0), ("ppo.vf_coef", -0.01, 0.0),
    ("ppo.max_grad_norm", -0.01, 0.0), ("ppo.update_threads", 0, 1), ("selfplay.heuristic_weight", 1.01, 1.0),
    ("selfplay.play_latest_ratio", -0.01, 0.0), ("selfplay.draw_reward", -1.01, -1.0),
    ("selfplay.draw_reward", 1.01, 1.0), ("pretrain.batch_size", 1, 2), ("pretrain.epochs", 0, 1),
    ("distill.rounds", 0, 1), ("distill.temperature", 0.0, 1e-6), ("distill.games", -1, 0), ("distill.worlds", 0, 1),
    ("distill.margin", -0.01, 0.0), ("distill.kl_coef", -0.01, 0.0), ("distill.workers", -1, 0),
    ("eval.select_every", 0, 1),
])
def test_each_documented_bound_refuses_the_value_past_it_and_accepts_the_value_on_it(key, refused, accepted):
    # so that the other checks pass: a batch of 2 fits the rollout, and with both anchor weights 0 either may be 1
    small_rollout = ["ppo.n_steps=2", "ppo.batch_size=2", "selfplay.random_weight=0", "selfplay.heuristic_weight=0"]
    with pytest.raises(ConfigError, match=f"'{key}' must be [<>]= "):
        load_config(overrides=[*small_rollout, f"{key}={refused}"])
    cfg = load_config(overrides=[*small_rollout, f"{key}={accepted}"])
    section, _, name = key.rpartition(".")
    assert getattr(getattr(cfg, section) if section else cfg, name) == accepted


def test_the_pool_and_the_schema_default_to_the_same_self_play_settings():
    import inspect

    from training.config import SelfPlayConfig
    from training.pool import OpponentPool

    defaults = inspect.signature(OpponentPool).parameters
    sp = SelfPlayConfig()
    for name in ("random_weight", "heuristic_weight", "window", "play_latest_ratio"):
        assert defaults[name].default == getattr(sp, name)
    assert (sp.window, sp.play_latest_ratio, sp.gate_win_rate) == (5, 0.5, 0.5)  # as training/README.md says


@pytest.mark.parametrize("key, value", [("ppo.learning_rate", 1e-4), ("ppo.ent_coef", 0.0),
                                        ("selfplay.random_weight", 0.0), ("selfplay.heuristic_weight", 0.1),
                                        ("selfplay.play_latest_ratio", 0.9), ("selfplay.gate_win_rate", 0.6),
                                        ("selfplay.opponents", {"terralore_v0/ppo": 0.3})])
def test_every_phase_key_can_change_in_a_phase(key, value):
    cfg = load_config(data={"ppo": {"total_timesteps": 1000}, "phases": [{"at": 500, "set": {key: value}}]})
    assert cfg.phases == [{"at": 500, "set": {key: value}}]


@pytest.mark.parametrize("phases", [
    [{"at": 500, "set": {"ppo.ent_coef": 0.0}, "until": 900}],  # a key besides at and set
    [{"at": 500, "set": {}}],  # nothing to change
    [{"at": 0, "set": {"ppo.ent_coef": 0.0}}],  # at the start: that is the recipe itself
    [{"at": 500, "set": {"ppo.ent_coef": 0.0}}, {"at": 500, "set": {"ppo.learning_rate": 1e-4}}],  # same step twice
    [{"at": 1000, "set": {"ppo.ent_coef": 0.0}}],  # at the end: never applied
])
def test_phases_that_would_never_apply_as_written_are_refused(phases):
    with pytest.raises(ConfigError, match=r"phases\[\d\]"):
        load_config(data={"ppo": {"total_timesteps": 1000}, "phases": phases})


def test_net_arch_needs_at_least_one_positive_layer_and_a_batch_may_fill_the_rollout():
    for arch in ("[]", "[64, 0]"):
        with pytest.raises(ConfigError, match="net_arch must be a non-empty list of positive sizes"):
            load_config(overrides=[f"ppo.net_arch={arch}"])
    cfg = load_config(overrides=["ppo.n_steps=64", "vec.n_envs=2", "ppo.batch_size=128"])
    assert cfg.ppo.batch_size == cfg.ppo.n_steps * cfg.vec.n_envs


@pytest.mark.parametrize("at", ["1e5", "1.0e+5", "100000.0", "100_000"])
def test_a_phase_step_is_written_as_any_integer_key_may_be(at):
    # YAML 1.1 reads 1e5 as a string and 1.0e+5 as a float; ppo.total_timesteps took both, and phases[].at refused
    # them as "must be a step after the previous phase's (0) ..., got '1e5'", as if the step were the problem
    cfg = load_config(overrides=["ppo.total_timesteps=2e5", f"phases=[{{at: {at}, set: {{ppo.ent_coef: 0.0}}}}]"])
    assert cfg.phases[0]["at"] == 100_000 and type(cfg.phases[0]["at"]) is int
    with pytest.raises(ConfigError, match=r"'phases\[0\].at' must be an integer, got 'soon'"):
        load_config(overrides=["ppo.total_timesteps=2e5", "phases=[{at: soon, set: {ppo.ent_coef: 0.0}}]"])


def test_phase_values_are_stored_as_their_keys_types():
    cfg = load_config(data={"ppo": {"total_timesteps": 1000},
                            "phases": [{"at": 500, "set": {"ppo.learning_rate": "1e-4", "selfplay.random_weight": 0}}]})
    changes = cfg.phases[0]["set"]
    assert changes == {"ppo.learning_rate": 1e-4, "selfplay.random_weight": 0.0}
    assert all(type(v) is float for v in changes.values())


def test_a_loaded_config_shares_no_mapping_with_the_dict_it_was_loaded_from():
    # the phases' check wrote its converted values ('1e-4' -> 1e-4) into the caller's own phases, and a config
    # whose env_kwargs were the caller's dict changed it too: a dict reused as a template changed under its user
    data = {"env": "earth_v0", "env_kwargs": {"num_players": 2}, "ppo": {"total_timesteps": 1000},
            "phases": [{"at": 500, "set": {"ppo.learning_rate": "1e-4"}}]}
    cfg = load_config(data=data)
    assert cfg.phases[0]["set"]["ppo.learning_rate"] == 1e-4
    cfg.env_kwargs["num_players"] = 3
    cfg.phases[0]["set"]["ppo.ent_coef"] = 0.0
    assert data == {"env": "earth_v0", "env_kwargs": {"num_players": 2}, "ppo": {"total_timesteps": 1000},
                    "phases": [{"at": 500, "set": {"ppo.learning_rate": "1e-4"}}]}


def test_an_empty_distill_opponents_list_loads_while_distillation_is_off():
    # only searched games need an opponent (test_distill: refused with distill.games above 0)
    assert load_config(overrides=["distill.opponents=[]"]).distill.opponents == []


def test_fresh_runs_within_one_second_set_the_earlier_files_aside_in_folders_of_their_own(tmp_path, monkeypatch):
    from training import config

    monkeypatch.setattr(config.time, "strftime", lambda fmt: "20250101-120000")
    run = tmp_path / "run"
    run.mkdir()
    aside = []
    for text in ("first", "second"):
        (run / "summary.json").write_text(text, encoding="utf-8")
        aside.append(config.set_aside_earlier_run(run, "ppo"))
    assert [p.name for p in aside] == ["before-20250101-120000", "before-20250101-120000-2"]
    assert [(p / "summary.json").read_text(encoding="utf-8") for p in aside] == ["first", "second"]
    assert not (run / "summary.json").exists()


def test_an_override_without_a_key_explains_the_syntax():
    with pytest.raises(ConfigError, match="override '=5' must look like section.key=value"):
        load_config(overrides=["=5"])


def test_a_recipe_file_and_a_dict_merge_section_by_section(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("env: travel_earth_v0\nppo:\n  n_steps: 64\n  batch_size: 64\n", encoding="utf-8")
    cfg = load_config(path, data={"ppo": {"n_epochs": 2}})
    assert (cfg.env, cfg.ppo.n_steps, cfg.ppo.batch_size, cfg.ppo.n_epochs) == ("travel_earth_v0", 64, 64, 2)


def test_an_empty_recipe_file_is_all_defaults(tmp_path):
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing set yet\n", encoding="utf-8")
    assert load_config(path) == TrainConfig()


@pytest.mark.parametrize(("override", "message"), [
    ("ppo.n_steps=2.5", "'ppo.n_steps' must be an integer, got 2.5"),
    ("ppo.n_steps=true", "'ppo.n_steps' must be an integer, got True"),
    ("ppo.gamma=false", "'ppo.gamma' must be a number, got False"),
    ("env=5", "'env' must be a string, got 5"),
    ("env_kwargs={1: 2}", "'env_kwargs' must be a mapping with string keys"),
])
def test_values_of_a_near_miss_type_are_refused_and_the_message_says_they_came_from_the_command_line(override,
                                                                                                     message):
    with pytest.raises(ConfigError, match=f"^<dict> \\+ --set: {message}"):
        load_config(overrides=[override])


def test_the_cli_applies_repeated_sets_in_order_and_records_a_command_the_shell_reads_back(tmp_path, monkeypatch):
    # run.json's command is how a run is made again: a folder with a space in it must come back as one argument
    import shlex

    from training import train as train_module

    seen = {}

    def train(cfg, resume=False, command=""):
        seen.update(cfg=cfg, command=command)
        return {}

    monkeypatch.setattr(train_module, "train", train)
    argv = ["--config", "terralore", "--set", "ppo.total_timesteps=1000", "--set", "ppo.total_timesteps=2000",
            "--set", f"output.dir={tmp_path / 'a run'}"]
    train_module.main(argv)
    assert seen["cfg"].ppo.total_timesteps == 2000  # the last --set of a key wins
    assert shlex.split(seen["command"]) == ["python", "-m", "training.train", *argv]


def test_the_defaults_the_docs_quote_are_the_schemas():
    # README.md: ppo.update_threads "(default 2", ppo.torch_threads "(default 1)", "distill.rounds rounds (default
    # one)", "vec.kind: batched, the default"; training/README.md: draw_reward "At 0, the default";
    # docs/measurements.md: "margin 0.05, KL 0.1: the defaults", "distill.worlds 32 and distill.confirm_worlds 64 are
    # the defaults"; distill.margin's own text: "0.05 is 1.6 of 32 worlds"
    cfg = TrainConfig()
    assert (cfg.ppo.update_threads, cfg.ppo.torch_threads, cfg.distill.rounds) == (2, 1, 1)
    assert (cfg.vec.kind, cfg.selfplay.draw_reward) == ("batched", 0.0)
    assert (cfg.distill.margin, cfg.distill.kl_coef, cfg.distill.worlds, cfg.distill.confirm_worlds) == (0.05, 0.1,
                                                                                                         32, 64)


def test_configs_never_share_a_list_default():
    first = TrainConfig()
    first.ppo.net_arch.append(7)
    first.eval.opponents.clear()
    first.phases.append({"at": 1})
    fresh = TrainConfig()
    assert (fresh.ppo.net_arch, fresh.eval.opponents, fresh.phases) == ([128, 128], ["random", "heuristic"], [])


def test_a_resumed_run_s_seed_depends_on_where_it_resumes():
    from training.config import resume_seed

    seeds = {resume_seed(0, step) for step in (0, 1000, 2000)} | {resume_seed(1, 1000)}
    assert len(seeds) == 4 and resume_seed(0, 1000) == resume_seed(0, 1000)


def test_an_output_dir_under_a_file_is_refused_with_the_config_not_once_the_run_has_begun(tmp_path):
    # training.train and training.rllib_train ended in NotADirectoryError after setting up the run
    (tmp_path / "afile").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"output.dir .*afile is a file, so no folder can be made there"):
        load_config(data={"output": {"dir": str(tmp_path / "afile" / "run")}})


@pytest.mark.parametrize("section", ["5", "[1, 2]", "''"])
def test_a_malformed_recipe_section_is_refused_with_an_override_inside_it_too(tmp_path, section):
    # refused alone, but --set ppo.total_timesteps=1 replaced it without a word and trained on the defaults
    path = tmp_path / "r.yaml"
    path.write_text(f"env: terralore_v0\nppo: {section}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="'ppo' must be a mapping of keys"):
        load_config(path)
    with pytest.raises(ConfigError, match=r"the recipe's 'ppo' must be a mapping of keys, got .*, so --set "
                                          r"ppo\.total_timesteps has no mapping to set a key in; fix ppo"):
        load_config(path, ["ppo.total_timesteps=1"])
    assert load_config(path, ["ppo={total_timesteps: 1}"]).ppo.total_timesteps == 1  # a whole section replaces


@pytest.mark.parametrize("override", ["eval.opponents=[random, '']", "eval.opponents=['  ']"])
def test_an_empty_anchor_name_is_refused_with_the_recipe_not_when_the_run_loads_its_anchors(override):
    # it passed the recipe check and stopped the run after its start, as "no policy registered as 'toy_v0/'"
    with pytest.raises(ConfigError, match=r"eval.opponents: '\s*' names no opponent; give a policy id"):
        load_config(overrides=[override])
