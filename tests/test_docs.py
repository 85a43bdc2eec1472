"""The documentation's code stays true: README.md's Python snippets run, its games table matches the
envs, every command line quoted in the READMEs, the RULES.md pages, docs/ and the recipes' comments
parses (its flags exist, its recipe and ``--set`` keys load, its env names and policy ids resolve), and
the measured numbers README.md quotes from a results file under benchmarks/results/ or a model's sidecar
are that file's, at the README's rounding and computed as its text says."""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import json
import re
import shlex
import statistics
from pathlib import Path

import numpy as np
import pytest
from extras import TRAIN_MODULES, TRAIN_REASON, missing

from tabletop_envs.core.registry import ENVS, get_spec, make_game

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [README, ROOT / "models" / "README.md", ROOT / "training" / "README.md",
        *sorted(ROOT.glob("tabletop_envs/*/README.md")), *sorted(ROOT.glob("tabletop_envs/*/RULES.md")),
        *sorted(ROOT.glob("docs/*.md"))]
RECIPES = sorted(ROOT.glob("configs/*.yaml"))
MODULES = sorted(path for folder in ("tabletop_envs", "training", "benchmarks") for path in (ROOT / folder).rglob("*.py"))
FENCE = re.compile(r"```([a-z]*)\n(.*?)```", re.S)


def python_blocks() -> list[str]:
    return [body for lang, body in FENCE.findall(README.read_text(encoding="utf-8")) if lang == "python"]


def test_readme_aec_loop_and_load_policy_snippets_run():
    aec, _single_agent, opponents, _own_agent = python_blocks()
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(aec, "README.md (AEC loop)", "exec"), namespace)
    assert "game over" in out.getvalue()  # the loop plays a whole game, then prints the ansi table
    namespace["env"].reset(seed=0)
    namespace["obs"] = namespace["env"].last()[0]  # the opponent snippet is asked at a decision point
    exec(compile(opponents, "README.md (load_policy)", "exec"), namespace)
    assert namespace["obs"]["action_mask"][namespace["action"]] == 1
    # the comment's other ids load too
    from tabletop_envs import load_policy

    for spec in ("terralore_v0/heuristic", "terralore_v0/random", "earth_v0/ppo", "earth_v0/ppo_4p"):
        load_policy(spec)


def test_readme_single_agent_snippet_builds_the_masked_learner(tmp_path, monkeypatch):
    import tempfile

    pytest.importorskip("sb3_contrib")
    # the snippet's learn() without a log folder makes SB3's SB3-<time> folder in the temp dir
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _aec, single_agent, _opponents, _own_agent = python_blocks()
    assert "learn(10_000)" in single_agent
    namespace: dict = {}
    exec(compile(single_agent.replace("learn(10_000)", "learn(0)"), "README.md (MaskablePPO)", "exec"), namespace)
    env = namespace["env"]
    env.reset(seed=0)
    mask = env.unwrapped.action_masks()  # "uses env.action_masks()"
    assert mask.shape == (env.action_space.n,) and mask.any()


def test_readme_own_agent_snippet_plays_a_round_robin_against_the_shipped_bots():
    *_, own_agent = python_blocks()
    namespace: dict = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(own_agent, "README.md (own agent)", "exec"), namespace)
    report = namespace["report"]
    assert report["policies"] == ["FirstLegalMove", "ppo", "heuristic"] and report["games_per_pair"] == 200
    assert "| FirstLegalMove | ppo |" in out.getvalue() and "Bradley–Terry" in out.getvalue()
    ppo_vs_heuristic = next(p for p in report["pairs"] if (p["a"], p["b"]) == ("ppo", "heuristic"))
    assert ppo_vs_heuristic["wins"] > ppo_vs_heuristic["losses"]  # the shipped model is the stronger bot


def test_training_evaluate_needs_no_torch_as_the_readme_says():
    import subprocess
    import sys

    code = "import sys, training.evaluate; assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT.parent)


def test_the_readme_masks_are_what_the_snippet_samples_from():
    # "mask also in info["action_mask"]": the snippet's comment
    from tabletop_envs import terralore_v0

    env = terralore_v0.env()
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    assert np.array_equal(obs["action_mask"], info["action_mask"])


def test_readme_games_table_matches_the_registry_and_the_layouts():
    rows = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"`\w+_v\d+`", cells[0]):
            rows[cells[0].strip("`")] = cells
    assert set(rows) == set(ENVS), (f"the README's games table has rows for {sorted(rows)}, the registry "
                                    f"{sorted(ENVS)}: one row per env, | `env` | players | [rules](link) | "
                                    "what a player sees | actions | observation size |")
    for name, (_, players, rules, _sees, actions, obs_size) in rows.items():
        counts = get_spec(name).player_counts
        expected = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        assert players == expected, name
        game = make_game(name)
        assert int(actions) == game.num_actions, name
        assert int(obs_size.split()[0].replace(",", "")) == game.observation_layout.size, name
        link = re.search(r"\(([^)]+)\)", rules).group(1)
        assert (ROOT / link).is_file(), link


@pytest.mark.parametrize("env_name, folder", [("terralore_v0", "terralore"), ("travel_earth_v0", "travel_earth"),
                                               ("earth_v0", "earth")])
def test_every_rule_option_of_a_game_is_documented_beside_it(env_name, folder):
    from tabletop_envs.core.registry import make_game

    docs = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tabletop_envs" / folder).glob("*.md"))
    # named as code: a table row, a default (`option` (default)) or a call (`env(option=...)`)
    missing = [k for k in make_game(env_name).config() if not re.search(rf"`[^`\n]*\b{k}\b[^`\n]*`", docs)]
    assert not missing, f"{folder}'s RULES.md/README.md never name {missing}"
    # every option has its row in the options table, the section up to the next heading or the file's end (a table
    # ending the file was not read: found by following docs/adding_a_game.md)
    tables = [re.search(r"^## Options\n(.*?)(?=^## |\Z)", p.read_text(encoding="utf-8"), re.M | re.S)
              for p in (ROOT / "tabletop_envs" / folder).glob("*.md")]
    tables = [t.group(1) for t in tables if t]
    assert len(tables) == 1, f"{folder} has {len(tables)} '## Options' sections (RULES.md has one)"
    rows = set(re.findall(r"^\| `(\w+)` \|", tables[0], re.M))
    assert set(make_game(env_name).config()) <= rows | {"num_players"}, set(make_game(env_name).config()) - rows


@pytest.mark.parametrize("env_name", list(ENVS))
def test_each_env_pages_arguments_name_every_option_the_env_takes_with_its_default(env_name):
    # the page's signature is what a user reads the options off: Terralore's and Travel Earth's lacked the
    # num_players their games take (and name among "its options" when one is misspelt)
    import inspect

    from tabletop_envs.core.aec import TabletopAECEnv

    page = get_spec(env_name).load_module().__doc__
    call = re.search(r"``(?:\w+\.)?env\((.+?)\)``", page[page.index("Arguments"):], re.S)
    assert call, f"{env_name}: no ``env(...)`` signature under the page's Arguments"
    documented = {k.arg: ast.literal_eval(k.value) for k in ast.parse(f"env({call.group(1)})", mode="eval").body.keywords}
    takes = {name: p.default for init in (type(make_game(env_name)).__init__, TabletopAECEnv.__init__)
             for name, p in inspect.signature(init).parameters.items() if p.default is not inspect.Parameter.empty}
    assert documented == takes, (f"{env_name}: the page documents {documented}, the env takes {takes}")


def test_readme_links_inside_the_repository_resolve():
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            if not target.startswith(("http://", "https://")):
                assert (doc.parent / target).exists(), f"{doc.relative_to(ROOT)}: broken link {target}"


def heading_anchors(markdown_text: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", FENCE.sub("", markdown_text), re.M):
        base = re.sub(r"[^\w\- ]", "", heading.replace("`", "").replace("*", "").lower()).replace(" ", "-")
        anchor, n = base, 0
        while anchor in anchors:
            n += 1
            anchor = f"{base}-{n}"
        anchors.add(anchor)
    return anchors


def test_links_to_a_heading_name_a_heading_of_that_page():
    # README's Measured numbers points into docs/measurements.md by heading; a renamed heading breaks it quietly
    assert ROOT / "docs" / "measurements.md" in DOCS
    # a repeated heading's anchor is numbered, as GitHub does: no page repeats one yet
    assert heading_anchors("# Setup\n## Setup\n### Set-up, *again*") == {"setup", "setup-1", "set-up-again"}
    checked = 0
    for doc in DOCS:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            page = doc if not target else doc.parent / target
            assert anchor in heading_anchors(page.read_text(encoding="utf-8")), f"{doc.relative_to(ROOT)}: no heading #{anchor} in {target}"
            checked += 1
    assert checked >= 10


# --------------------------------------------------------------------------- quoted command lines

def quoted_commands() -> list[tuple[str, list[str]]]:
    """(where, argv) of every `python -m <module> ...` and `tabletop-envs ...` command the docs quote: the Markdown
    pages, the recipes' comments and the docstrings of the package, training and benchmarks modules (the env pages
    that help() shows, the usage lines of each command's --help)."""
    found = []

    def add(where: str, line: str) -> None:
        for part in line.split("&&"):
            part = part.strip()
            # a usage synopsis (`--config configs/<game>.yaml [--resume]`) shows a command's shape, not a command
            synopsis = "..." in part or "[--" in part or re.search(r"<\w+>", part)
            if not synopsis and part.startswith(("python -m ", "tabletop-envs ")):
                found.append((where, shlex.split(part, comments=True)))

    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        name = str(doc.relative_to(ROOT))
        for lang, body in FENCE.findall(text):
            if lang in ("", "bash"):
                for line in body.replace("\\\n", " ").splitlines():
                    add(name, line)
        for span in re.findall(r"`([^`]+)`", FENCE.sub("", text)):
            add(name, " ".join(span.split()))  # a quoted command may wrap over lines
    for recipe in RECIPES:
        for line in recipe.read_text(encoding="utf-8").splitlines():
            match = re.match(r"#\s+(python -m .*)", line)
            if match:
                add(str(recipe.relative_to(ROOT)), match.group(1))
    for module in MODULES:
        # the module docstrings a user reads as documentation: each env's page (help(terralore_v0)) and the usage
        # lines the commands print with --help (their description); read from the source, nothing imported
        docstring = ast.get_docstring(ast.parse(module.read_text(encoding="utf-8")), clean=False) or ""
        name = str(module.relative_to(ROOT))
        for line in docstring.replace("\\\n", " ").splitlines():
            add(name, line)
        for _, span in re.findall(r"(``?)([^`]+)\1", FENCE.sub("", docstring)):  # reST's ``code`` and Markdown's `code`
            add(name, " ".join(span.split()))
    return found


COMMANDS = quoted_commands()
RUN_BY_MAIN = ("training.", "benchmarks.", "tabletop_envs.earth.report")


class Parsed(Exception):
    def __init__(self, args):
        self.args_ = args


def parse(module: str, argv: list[str]) -> argparse.Namespace:
    """The namespace ``python -m module argv`` parses into, without running the command."""
    original = argparse.ArgumentParser.parse_args

    def stop(self, args=None, namespace=None):
        abbreviated = [a for a in args or [] if a.startswith("--") and a.split("=")[0] not in self._option_string_actions]
        assert not abbreviated, f"python -m {module}: no option {abbreviated} (argparse would take a prefix)"
        raise Parsed(original(self, args, namespace))

    mod = importlib.import_module(module)
    argparse.ArgumentParser.parse_args = stop
    try:
        mod.main(argv)
    except Parsed as parsed:
        return parsed.args_
    except SystemExit as exc:
        raise AssertionError(f"python -m {module} {shlex.join(argv)}: argparse refused it") from exc
    finally:
        argparse.ArgumentParser.parse_args = original
    raise AssertionError(f"python -m {module} never parsed its arguments")


def test_the_docs_quote_commands_of_every_kind():
    modules = {argv[2] if argv[0] == "python" else argv[0] for _, argv in COMMANDS}
    assert {"training.train", "training.evaluate", "training.main_job", "benchmarks.bot_vs_random",
            "benchmarks.aec_throughput", "tabletop_envs.earth.report", "tabletop-envs"} <= modules


def test_the_docstrings_quoted_commands_are_checked_too():
    # the env pages and the commands' --help texts quote commands as well; a scan that found none checks none
    where = {w for w, _ in COMMANDS}
    assert {"tabletop_envs/travel_earth/env.py", "tabletop_envs/cli.py", "training/rllib_train.py",
            "training/main_job.py", "benchmarks/bot_vs_random.py"} <= where, sorted(where)


@pytest.mark.parametrize(("where", "argv"), COMMANDS, ids=[f"{w}:{' '.join(a)[:60]}" for w, a in COMMANDS])
def test_a_quoted_command_line_parses_and_names_what_exists(where, argv):
    if argv[0] == "tabletop-envs":
        from tabletop_envs.cli import build_parser

        args = build_parser().parse_args(argv[1:])
        for policy in getattr(args, "opponent", None) or []:
            check_policy(policy, None)
        return
    module, rest = argv[2], argv[3:]
    if module == "tabletop_envs.core.docs":  # no options: env names (running it rewrites the docstrings)
        assert rest and set(rest) <= set(ENVS), f"{where}: {rest}"
        return
    if module in ("pytest", "training.config") or not module.startswith(RUN_BY_MAIN):
        return
    if module in ("training.train", "training.pretrain", "training.main_job") and missing(*TRAIN_MODULES):
        pytest.skip(f"{module}: {TRAIN_REASON}")  # imports stable-baselines3 to parse its options
    args = parse(module, rest)
    if module in ("training.train", "training.pretrain", "training.main_job"):
        from training.config import load_config

        cfg = load_config(args.config, args.overrides)
        assert cfg.env in ENVS
    elif module == "training.rllib_train":
        from training.rllib_train import load_rllib_config

        if args.config:
            load_rllib_config(args.config, args.set)
    if module == "benchmarks.aec_throughput" and args.only:
        from benchmarks.aec_throughput import OURS, RAW_REFERENCES, REFERENCES

        assert set(args.only) <= {*REFERENCES, *RAW_REFERENCES, *OURS}, f"{where}: --only {args.only}"
    env = "earth_v0" if module == "tabletop_envs.earth.report" else getattr(args, "env", None)
    if env:
        assert env in ENVS, f"{where}: unknown env {env}"
        for policy in [*(getattr(args, "policies", None) or []), getattr(args, "policy", None)]:
            if isinstance(policy, str):
                check_policy(policy, env)
    if getattr(args, "env_kwargs", None):
        assert isinstance(json.loads(args.env_kwargs), dict)
    for path in (getattr(args, "config", None),):
        if path:
            assert (ROOT / path).is_file(), f"{where}: no file {path}"


def check_policy(spec: str, env: str | None) -> None:
    """A quoted policy loads (for that env), unless it is a model that an earlier command writes (runs/...)."""
    if spec.startswith("runs/") or (spec.endswith((".onnx", ".npz")) and not (ROOT / spec).exists()):
        return
    if env:
        from training.evaluate import resolve

        resolve(spec, env)  # a short name (ppo) is the env's; another game's policy is refused
    else:
        from tabletop_envs import load_policy

        load_policy(spec)


def test_a_refused_command_line_fails_the_check():
    with pytest.raises(AssertionError, match="no option \\[.--rounds.\\]"):
        parse("benchmarks.bot_vs_random", ["--env", "terralore_v0", "--rounds", "3"])
    with pytest.raises(AssertionError, match="argparse refused it"):
        parse("benchmarks.bot_vs_random", ["--env", "terralore_v0", "--games", "many"])


def test_an_option_the_docs_give_a_command_by_name_is_one_of_its_options():
    # README's note on pickles gave training.export an --export-checkpoint, which is training.rllib_train's
    said = []
    for doc in DOCS:
        text = " ".join(doc.read_text(encoding="utf-8").split())
        for module, *options in re.findall(r"`([a-z_]+(?:\.[a-z_]+)+)`'s `(--[a-z-]+)`(?: and `(--[a-z-]+)`)?", text):
            said += [(doc.relative_to(ROOT), module, option) for option in options if option]
    assert ("README.md", "training.export", "--model") in {(str(d), m, o) for d, m, o in said}
    for where, module, option in said:
        if module in ("training.train", "training.pretrain", "training.main_job") and missing(*TRAIN_MODULES):
            continue  # imports stable-baselines3 to build its options
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            importlib.import_module(module).main(["--help"])
        assert re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", out.getvalue()), \
            f"{where}: {module} has no option {option}"


def test_every_public_name_has_a_docstring_of_its_own():
    import tabletop_envs

    bare = []
    for name in tabletop_envs.__all__:
        obj = getattr(tabletop_envs, name)
        if not callable(obj) and not isinstance(obj, type(tabletop_envs)):
            continue  # data (the ENVS registry) is described where it is defined
        own = obj.__dict__.get("__doc__") if isinstance(obj, type) else obj.__doc__
        if not (own or "").strip():
            bare.append(name)  # help() would show nothing, or a base class's text (typing.Protocol's)
    assert not bare, f"public names without a docstring of their own: {bare}"


@pytest.mark.parametrize(("module", "option"), [("training.train", "--resume"), ("training.export", "--model"),
                                                ("training.rllib_train", "--resume")])
def test_every_option_that_unpickles_a_file_says_so_in_its_help(module, option):
    """SB3 model files, a checkpoint's pool.pkl and RLlib checkpoints run any code they hold when loaded:
    the option that loads one says so where it is used, as the README's note on files from someone else does."""
    if module == "training.train" and missing(*TRAIN_MODULES):
        pytest.skip(f"{module}: {TRAIN_REASON}")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        importlib.import_module(module).main(["--help"])
    text = " ".join(out.getvalue().split())
    help_text = text[text.index(f"{option} "):]
    assert re.match(rf"{option} .*?pickles?: loading (them|one) runs any code", help_text), help_text[:300]
    assert "pool.pkl` and RLlib checkpoints are pickles" in " ".join(README.read_text(encoding="utf-8").split())


# --------------------------------------------------------------------------- measured numbers

RESULTS = ROOT / "benchmarks" / "results"
PLAYERS = re.compile(r"earth_v0, (\d) players")


def results(name: str) -> dict:
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def readme_text() -> str:
    """README.md with its lines joined, so that a sentence wrapped over lines reads as one."""
    return " ".join(README.read_text(encoding="utf-8").split())


def readme_table(after: str) -> list[list[str]]:
    """The cells of the first Markdown table after the heading or text ``after``, its header row left out."""
    text = README.read_text(encoding="utf-8")
    rows = []
    for line in text[text.index(after):].splitlines():
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    return [row for row in rows[1:] if not set("".join(row)) <= set("-:")]


def quotes(quoted: str, value: float) -> bool:
    """A number as the README prints it (1,234, 12.3, **1.14**) is ``value`` rounded to its digits, either way on a half."""
    quoted = quoted.strip("*").replace(",", "")
    digits = len(quoted.split(".")[1]) if "." in quoted else 0
    return abs(float(quoted) - value) <= 0.5 * 10 ** -digits + 1e-9


def percent(rate: float) -> str:
    return f"{100 * rate:.1f}"


def test_the_number_check_reads_a_quoted_number_at_its_own_rounding():
    assert quotes("5,253", 5252.9) and quotes("**1.14**", 1.1449) and quotes("23", 22.5) and quotes("85", 84.5)
    assert not quotes("5,253", 5251.9) and not quotes("1.14", 1.146) and not quotes("6", 5.15)


def test_the_readmes_env_throughput_table_is_aec_throughput_json_at_its_rounding():
    """Every cell of the table, and how the text says it was computed: 7 interleaved rounds of 3 s, steps/s the
    median of the rounds, each ratio the median of the rounds' own ratios (not the ratio of the medians)."""
    data = results("aec_throughput.json")
    envs = data["results"]
    text = readme_text()
    assert f"--seconds {data['seconds']:g} --repeats {data['repeats']} --json benchmarks/results/aec_throughput.json" in text
    assert f"The envs run in {data['repeats']} interleaved rounds of one {data['seconds']:g} s window each" in text
    rows = readme_table("### Env throughput")
    columns = ["steps_per_s", "us_per_step", "decisions_per_s", "ratio_vs_texas_holdem", "ratio_vs_texas_holdem_raw",
               "ratio_vs_hanabi", "ratio_vs_hanabi_raw"]
    references = {"ratio_vs_texas_holdem": "texas_holdem-v4", "ratio_vs_texas_holdem_raw": "texas_holdem-v4 raw_env",
                  "ratio_vs_hanabi": "hanabi-v5", "ratio_vs_hanabi_raw": "hanabi-v5 raw_env"}
    seen = set()
    for label, *cells in rows:
        label = label.strip("*")
        name = PLAYERS.sub(r"earth_v0 (\1p)", label.removeprefix("PettingZoo ").replace(", raw_env", " raw_env"))
        row = envs[name]
        seen.add(name)
        assert len(cells) == len(columns), label
        for column, cell in zip(columns, cells):
            assert quotes(cell, row[column]), f"README's env-throughput table, {label}, {column}: {cell}, the file {row[column]}"
        assert row["steps_per_s"] == statistics.median(row["runs"]), name
        for column, reference in references.items():
            each_round = [ours / theirs for ours, theirs in zip(row["runs"], envs[reference]["runs"])]
            assert row[column] == pytest.approx(statistics.median(each_round)), (name, column)
    assert seen == set(envs)
    travel_earth = sorted(ours / theirs for ours, theirs in zip(envs["travel_earth_v0"]["runs"], envs["texas_holdem-v4"]["runs"]))
    low, high = re.search(r"Travel Earth's rounds ([\d.]+)–([\d.]+)×", text).groups()
    assert quotes(low, travel_earth[0]) and quotes(high, travel_earth[-1])
    assert quotes(re.search(r"At \w+ on a quiet machine \(load average ([\d.]+),", text)[1], data["machine"]["load_average"][0])


def test_the_readmes_training_throughput_table_is_training_throughput_json_at_its_rounding():
    data = results("training_throughput.json")
    runs = {row["env"]: row for row in data["training"]}
    rows = readme_table("### Training throughput and opponent latency")
    assert len(rows) == len(runs)
    for label, steps, ratio, zero_cost, env_us, env_cost in rows:
        name = PLAYERS.sub(r"earth_v0 (\1p)", label.split(" (")[0])
        row = runs[name]
        where = f"README's training-throughput table, {name}"
        assert quotes(steps, row["steps_per_s"]), f"{where}: {steps} steps/s, the file {row['steps_per_s']}"
        median, *each_round = re.findall(r"[\d.]+", ratio)
        assert quotes(median, row.get("vs_reference", 1.0)), f"{where}: ×{median}, the file {row.get('vs_reference')}"
        if each_round:
            assert each_round == [f"{r:.2f}" for r in row["vs_reference_each_round"]], where
            assert row["vs_reference"] == statistics.median(row["vs_reference_each_round"]), where
            assert row["steps_per_s"] == statistics.median(row["steps_per_s_each_round"]), where
            assert len(each_round) == row["repeats"], where
        floor, floor_ratio = re.fullmatch(r"([\d,]+) \(([\d.]+)\)", zero_cost).groups()
        assert quotes(floor, row["zero_cost_env_steps_per_s"]) and quotes(floor_ratio, row["zero_cost_vs_reference"]), where
        assert quotes(env_us, row["env_us_per_step"]), where
        if "env_cost_vs_reference" in row:
            times, way = re.fullmatch(r"([\d.]+)× (cheaper|dearer)", env_cost).groups()
            cost = row["env_cost_vs_reference"]
            assert way == ("cheaper" if cost >= 1 else "dearer") and quotes(times, cost if cost >= 1 else 1 / cost), where
    text = readme_text()
    repeats = runs["terralore_v0"]["repeats"]
    assert f"--steps 12288 --repeats {repeats} --json benchmarks/results/training_throughput.json" in text
    assert f"each of the {repeats} rounds interleaves" in text
    load = re.search(r"Measured at \w+ on a quiet machine \(load average ([\d.]+) at the start\)", text)[1]
    assert quotes(load, data["machine"]["load_average"][0])


def test_the_readmes_opponent_latency_is_the_training_throughput_runs():
    """"Same script, same run": the act medians and p99s, and the load times of that run, are the file's."""
    latency = {row["policy"]: row for row in results("training_throughput.json")["latency"]}
    policies = ["terralore_v0/ppo", "travel_earth_v0/ppo", "earth_v0/ppo", "earth_v0/ppo_4p"]
    text = readme_text()
    medians = re.search(r"answers `act` in ([\d.]+) µs \(Terralore\), ([\d.]+) µs \(Travel Earth\), ([\d.]+) µs "
                        r"\(Earth\) and ([\d.]+) µs \(Earth, the 4-player model", text).groups()
    p99 = re.search(r"\(p99 (\d+), (\d+), (\d+) and (\d+) µs\)", text).groups()
    for policy, median, tail in zip(policies, medians, p99):
        assert quotes(median, latency[policy]["act_median_us"]) and quotes(tail, latency[policy]["act_p99_us"]), policy
    low, high = re.search(r"([\d.]+)–([\d.]+) ms per model in that run", text).groups()
    loads = [latency[policy]["load_ms"] for policy in policies]
    assert quotes(low, min(loads)) and quotes(high, max(loads)), f"README: {low}–{high} ms, the file {loads}"


def test_the_ratios_the_readme_quotes_from_a_named_results_file_are_the_files():
    text = readme_text()
    games = ["terralore_v0", "travel_earth_v0", "earth_v0 (2p)"]
    raw = {row["env"]: row for row in results("training_throughput_raw_reference.json")["training"]}
    quoted = re.search(r"training_throughput_raw_reference\.json` at \w+ gave \*\*([\d.]+)× / ([\d.]+)× / ([\d.]+)×\*\* "
                       r"\(connect_four's env (\d+) µs per learner step", text).groups()
    for cell, value in zip(quoted, [*(raw[g]["vs_reference"] for g in games), raw["connect_four-v3 raw_env"]["env_us_per_step"]]):
        assert quotes(cell, value), f"README {cell}, training_throughput_raw_reference.json {value}"
    bound = {row["env"]: row for row in results("free_engine_bound.json")["rows"]}
    rounds = re.search(r"free_engine_bound --rounds (\d+) --json benchmarks/results/free_engine_bound\.json", text)[1]
    quoted = re.search(r"the learner reaches Terralore ([\d.]+)×, Travel Earth ([\d.]+)×, Earth ([\d.]+)×", text).groups()
    for game, cell in zip(games, quoted):
        each_round = bound[game]["vs_reference_each_round"]
        assert len(each_round) == int(rounds) and quotes(cell, statistics.median(each_round)), (game, cell, each_round)
        assert quotes(cell, bound[game]["vs_reference"]), f"README {cell}, free_engine_bound.json {bound[game]['vs_reference']}"
    ceiling = results("search_ceiling_terralore.json")
    quoted = re.search(r"--deals (\d+) --worlds (\d+) --json benchmarks/results/search_ceiling_terralore\.json` \(at \w+\) "
                       r"won \*\*([\d.]+) % \[([\d.]+)–([\d.]+)\]\*\* where the model alone won \*\*([\d.]+) % "
                       r"\[([\d.]+)–([\d.]+)\]\*\* on the same (\d+) games \(paired by game: (\d+) won by the search alone, "
                       r"(\d+) by the model alone, McNemar exact p = ([\d.]+)\)", text).groups()
    search, plain, paired = ceiling["search"]["win"], ceiling["plain"]["win"], ceiling["paired"]
    values = [ceiling["deals"], ceiling["worlds"], 100 * search["rate"], *(100 * x for x in search["ci95"]), 100 * plain["rate"],
              *(100 * x for x in plain["ci95"]), ceiling["games"], paired["games_only_search_won"],
              paired["games_only_plain_won"], paired["mcnemar_exact_p"]]
    for cell, value in zip(quoted, values, strict=True):
        assert quotes(cell, value), f"README {cell}, search_ceiling_terralore.json {value}"


def test_the_readmes_shipped_opponents_table_is_the_sidecars():
    """The table quotes each bot's sidecar: its final evaluation against random and the heuristic (rate, 95 %
    interval and games) and its wall time; models/README.md is generated from the same records."""
    from tabletop_envs.core.onnx_policy import model_path_for_id

    rows = readme_table("| opponent | reproduce |")
    assert len(rows) >= 4
    for policy_id, _reproduce, training, vs_random, vs_heuristic, _targets in rows:
        policy_id = re.match(r"`([^`]+)`", policy_id)[1]  # "`earth_v0/ppo` (2 players)"
        sidecar = json.loads(model_path_for_id(policy_id).with_suffix(".json").read_text(encoding="utf-8"))
        for anchor, cell in (("vs_random", vs_random), ("vs_heuristic", vs_heuristic)):
            record = sidecar["evaluation"][anchor]
            win = record["win"]
            assert cell.split(";")[0].strip("* ") == (f"{percent(win['rate'])} % [{percent(win['ci95'][0])}–"
                                                      f"{percent(win['ci95'][1])}] of {record['games']:,}"), (policy_id, anchor, cell)
        minutes = re.findall(r"([\d.]+) min", training)[-1]
        assert quotes(minutes, sidecar["training"]["wall_time_s"] / 60), (policy_id, minutes, sidecar["training"]["wall_time_s"])
    for pid, players, column in (("earth_v0/ppo", 2, 1), ("earth_v0/ppo_4p", 4, 2)):
        evaluation = json.loads(model_path_for_id(pid).with_suffix(".json").read_text(encoding="utf-8"))["evaluation"]
        row = next(r for r in readme_table("| table | `earth_v0/ppo`") if r[0] == f"{players} players")
        win = evaluation["vs_heuristic"]["win"]
        assert row[column] == (f"{percent(evaluation['vs_random']['win']['rate'])} % / {percent(win['rate'])} % "
                               f"[{percent(win['ci95'][0])}–{percent(win['ci95'][1])}] (its sidecar)"), (pid, row[column])


def test_the_results_files_that_record_no_cpu_or_package_versions_are_the_ones_the_readme_names():
    """The README says what every result JSON records (`machine`) and names the ones written before it did."""
    named = re.search(r"\(`machine`; ((?:`[\w.]+`(?: and |, )?)+), written before that was added", readme_text())
    lacking = {path.name for path in sorted(RESULTS.glob("*.json"))
               if not {"cpu", "packages", "load_average"} <= set(json.loads(path.read_text(encoding="utf-8"))["machine"])}
    assert named and set(re.findall(r"`([\w.]+)`", named[1])) == lacking, \
        f"results files without the CPU or package versions: {sorted(lacking)}; the README says every result JSON records them"
