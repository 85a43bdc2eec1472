"""What differs between the machines our users run on: ``python -OO`` and the locale's text encoding.

- Under ``python -O`` / ``-OO`` (asserts, then docstrings, stripped) the commands still answer ``--help``:
  their parsers took the module docstring's first paragraph, and ``None.split`` crashed before any help.
  (The saved-state invariants under ``-O``: tests/test_saved_states.py.) No library code checks with
  ``assert``, which ``-O`` strips: the conformance harness a new game runs would pass whatever it met.
- Every text file is read and written as UTF-8, whatever the locale says: ``open`` and ``read_text`` without
  ``encoding=`` take the locale's (cp1252 on a Windows machine), where our Markdown, YAML and catalogue
  texts are UTF-8.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: every module run as ``python -m`` with an argparse front (README, pyproject's console scripts, Earth's
#: catalogue generator); the other ``__main__`` modules take their arguments as names (the Travel Earth
#: catalogue builder a CSV file, the docs writer env names: ``--help`` is refused as one) or none
#: (``training.config`` prints the recipe keys)
COMMANDS = [
    "tabletop_envs.cli", "tabletop_envs.earth.report", "tabletop_envs.earth.data.generate",
    "training.train", "training.evaluate", "training.export", "training.main_job", "training.model_card",
    "training.pretrain", "training.rllib_train",
    "benchmarks.aec_throughput", "benchmarks.bot_vs_random", "benchmarks.free_engine_bound",
    "benchmarks.observation_gaps", "benchmarks.paired_losses", "benchmarks.rllib_throughput", "benchmarks.search_ceiling",
    "benchmarks.training_throughput", "benchmarks.travel_earth_stalls",
]

#: what the ``train`` extra installs that a command may import first
TRAIN_MODULES = ("torch", "stable_baselines3", "sb3_contrib", "yaml", "tensorboard", "onnx")

SCRIPT = textwrap.dedent("""
    import contextlib, io, runpy, sys
    assert sys.flags.optimize == 2 and not runpy.__doc__, "this check needs python -OO"
    for module in sys.argv[1:]:
        sys.argv = [module, "--help"]
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:
            code = f"{type(exc).__name__}: {exc}"
        else:
            code = "returned without printing help"
        print(module, code, "usage:" in out.getvalue(), sep="|", file=sys.__stdout__)
""")


def test_every_command_shows_its_help_under_python_OO():
    out = subprocess.run([sys.executable, "-OO", "-c", SCRIPT, *COMMANDS], capture_output=True, text=True,
                         cwd=ROOT, timeout=240)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split("|") for line in out.stdout.splitlines() if line.count("|") == 2]
    assert [r[0] for r in rows] == COMMANDS, out.stdout + out.stderr[-2000:]
    # without the train extra (CI's other-Python step) the training commands stop at their import, as
    # they do under plain python: that is the extra's absence, not -OO
    absent = [m for m in TRAIN_MODULES if importlib.util.find_spec(m) is None]
    broken = [r for r in rows if r[1:] != ["0", "True"]
              and not any(r[1] == f"ModuleNotFoundError: No module named '{m}'" for m in absent)]
    assert not broken, broken


def test_the_example_script_shows_its_help_under_python_OO():
    out = subprocess.run([sys.executable, "-OO", str(ROOT / "examples" / "record_bots.py"), "--help"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0 and "usage:" in out.stdout, out.stderr[-2000:]


def test_the_list_holds_every_command_with_an_argparse_front():
    found = set()
    for package in ("tabletop_envs", "training", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if '__name__ == "__main__"' in text and "argparse" in text:
                found.add(".".join(path.relative_to(ROOT).with_suffix("").parts))
    assert found == set(COMMANDS)


HELP_SCRIPT = textwrap.dedent("""
    import runpy, sys
    for module in sys.argv[1:]:
        sys.stdout.reconfigure(errors="strict")  # as each command's own process starts
        sys.argv = [module, "--help"]
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            code = exc.code
        except Exception as exc:
            code = f"{type(exc).__name__}: {exc}"
        sys.stdout.flush()
        print(module, code, sep="|", file=sys.stderr)
""")


def test_every_command_shows_its_help_in_a_code_page_without_its_dashes():
    """Redirected or piped, Windows output is in the ANSI code page; cp932 (Japanese) lacks the en dash
    and em dash of the help texts, and ``training.evaluate --help`` ended in UnicodeEncodeError."""
    env = {**os.environ, "PYTHONIOENCODING": "cp932"}
    out = subprocess.run([sys.executable, "-c", HELP_SCRIPT, *COMMANDS], capture_output=True, cwd=ROOT, env=env,
                         timeout=240)
    rows = [line.split("|") for line in out.stderr.decode("utf-8", "replace").splitlines() if line.count("|") == 1]
    assert [r[0] for r in rows] == COMMANDS, out.stderr.decode("utf-8", "replace")[-2000:]
    absent = [m for m in TRAIN_MODULES if importlib.util.find_spec(m) is None]
    broken = [r for r in rows if r[1] != "0"
              and not any(r[1] == f"ModuleNotFoundError: No module named '{m}'" for m in absent)]
    assert not broken, broken


def unencoded_text_calls(tree: ast.AST):
    """Calls that open a file as text with the locale's encoding."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if name in ("read_text", "write_text"):
            yield node
        elif name == "open":
            owner = getattr(f.value, "id", None) if isinstance(f, ast.Attribute) else None
            if owner in ("os", "Image"):
                continue  # os.open and PIL take bytes
            if isinstance(f, ast.Attribute) and "gate" in ast.unparse(f.value).lower():
                continue  # the win-rate gate's open() is our own method, no file
            if isinstance(f, ast.Attribute) and any(w in ast.unparse(f.value).lower() for w in ("zip", "archive")):
                continue  # ZipFile.open: a member's bytes, whatever its mode ("r" or "w")
            mode_at = 1 if owner is None or owner in ("io", "builtins") else 0  # open(file, mode); path.open(mode)
            modes = [a.value for a in node.args[mode_at:mode_at + 1] if isinstance(a, ast.Constant)]
            modes += [k.value.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
            if not any("b" in str(m) for m in modes):
                yield node


#: the code the scans below read: the library, the commands and what a user copies from
CODE = ("tabletop_envs", "training", "benchmarks", "examples")


def scan(finder, packages=CODE) -> list[str]:
    """``path:line`` of every node ``finder(tree)`` yields in the packages' Python files."""
    found = []
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [f"{path.relative_to(ROOT).as_posix()}:{n.lineno}" for n in finder(tree)]
    return found


def test_every_text_file_is_opened_as_utf8_not_in_the_locales_encoding():
    found = scan(unencoded_text_calls, (*CODE, "tests"))
    assert not found, f"add encoding='utf-8' at {found}"


def test_the_encoding_scan_finds_what_it_looks_for():
    tree = ast.parse("p.read_text()\nopen(f)\nopen(f, 'w')\np.open('a')\nq.write_text(s)\n"
                     "open(f, 'rb')\np.open('rb')\nos.open(f, 1)\nImage.open(f)\ngate.open()\n"
                     "open(f, encoding='utf-8')\np.read_text(encoding='utf-8')\np.open()\nWinRateGate(0.5, 10).open()\n"
                     "data.zip.open(name)\narchive.open('W0.npy', 'w')\n")
    assert [n.lineno for n in unencoded_text_calls(tree)] == [1, 2, 3, 4, 5, 13]


def assert_statements(tree: ast.AST):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Assert)]


def test_no_library_or_command_code_checks_with_assert_which_python_O_strips():
    found = scan(assert_statements)
    assert not found, f"raise an error with a message instead of assert at {found}"


def test_the_assert_scan_finds_what_it_looks_for():
    tree = ast.parse("assert x\nif not x:\n    raise AssertionError('x')\ndef f():\n    assert y, 'y'\n")
    assert [n.lineno for n in assert_statements(tree)] == [1, 5]


def load_average_reads(tree: ast.AST):
    """Calls of ``os.getloadavg``, which Windows lacks (an AttributeError, not the OSError of a Unix
    without one)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "getloadavg":
            yield node


def test_the_load_average_is_read_only_through_training_export_load_average():
    found = scan(load_average_reads)
    assert len(found) == 1 and found[0].startswith("training/export.py:"), \
        f"call training.export.load_average() (None on Windows) instead at {found}"


def relative_paths_formatted(tree: ast.AST):
    """A ``relative_to`` path put into an f-string as it is: on Windows it prints with backslashes, and
    a file written from it (models/README.md's ``models\\terralore\\ppo.json``) differs from the one
    made on Linux or macOS. ``.as_posix()`` writes it the same everywhere."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and isinstance(node.value, ast.Call) \
                and getattr(node.value.func, "attr", None) == "relative_to":
            yield node


def test_paths_in_generated_text_are_written_with_forward_slashes():
    found = scan(relative_paths_formatted)
    assert not found, f"write .relative_to(...).as_posix() at {found}"


def test_the_relative_path_scan_finds_what_it_looks_for():
    tree = ast.parse('f"{p.relative_to(r)}"\nf"{p.relative_to(r).as_posix()}"\nf"{p}"\nx = p.relative_to(r)\n'
                     'f"a {q.relative_to(r)!s}"\n')
    assert [n.lineno for n in relative_paths_formatted(tree)] == [1, 5]


def test_a_command_run_in_process_leaves_the_callers_stdout_as_it_found_it(monkeypatch):
    """The commands print what a code page lacks as '?'; run in a caller's process (cli.main, run_cli from
    a notebook or a script), they switched the caller's sys.stdout to errors='replace' for good, so its
    later prints lost characters without a word instead of raising."""
    import io

    from tabletop_envs import cli
    from tabletop_envs.core.errors import run_cli

    out = io.TextIOWrapper(io.BytesIO(), encoding="cp932", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    assert run_cli(lambda argv: print("Earth: 1–5 players"), []) == 0
    assert out.errors == "strict"
    assert cli.main(["list"]) == 0
    assert out.errors == "strict"
    out.flush()
    assert "Earth: 1?5 players" in out.buffer.getvalue().decode("cp932")  # lenient while the command ran


#: ``__main__`` blocks that need no code-page guard: they print one path, and are run by a developer in the repo
PLAIN_MAIN_BLOCKS = {"tabletop_envs/earth/data/generate.py"}


def unguarded_main_blocks(files, root: Path = ROOT):
    """``if __name__ == "__main__":`` blocks that reach neither ``run_cli`` nor ``lenient_stdout`` (directly, through
    a ``cli()`` of the module that does, or ``tabletop_envs.cli.main``, which holds the guard itself)."""
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded_functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                             and any(isinstance(n, ast.Name) and n.id in ("run_cli", "lenient_stdout")
                                     for n in ast.walk(node))}
        if path.as_posix().endswith("tabletop_envs/cli.py"):
            guarded_functions.add("main")
        for node in tree.body:
            if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
                names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
                if not names & ({"run_cli", "lenient_stdout"} | guarded_functions):
                    yield f"{path.relative_to(root).as_posix()}:{node.lineno}"


def test_every_command_prints_under_the_code_page_guard():
    """A benchmark run printed its table straight to stdout: under cp932 its 'µs/step' header ended the run in
    UnicodeEncodeError after the measurement, where the commands behind run_cli print '?'."""
    files = [p for folder in ("tabletop_envs", "training", "benchmarks") for p in sorted((ROOT / folder).rglob("*.py"))
             if p.relative_to(ROOT).as_posix() not in PLAIN_MAIN_BLOCKS]
    assert not list(unguarded_main_blocks(files))


def test_the_code_page_guard_scan_finds_what_it_looks_for(tmp_path):
    bare = tmp_path / "bare.py"
    bare.write_text('def main(argv=None):\n    print("µ")\n\n\nif __name__ == "__main__":\n    main()\n', encoding="utf-8")
    guarded = tmp_path / "guarded.py"
    guarded.write_text('from tabletop_envs.core.errors import run_cli\n\n\ndef main(argv=None):\n    print("µ")\n\n\n'
                       'def cli():\n    run_cli(main)\n\n\nif __name__ == "__main__":\n    cli()\n', encoding="utf-8")
    assert list(unguarded_main_blocks([bare, guarded], tmp_path)) == ["bare.py:5"]


@pytest.mark.parametrize("errors", ["strict", "surrogateescape"])
def test_a_command_prints_what_a_code_page_lacks_as_a_question_mark_under_either_default_error_handler(
        monkeypatch, errors):
    # Python opens stdout with errors="surrogateescape" under the C or POSIX locale: it failed as "strict" did
    import io

    from tabletop_envs.core.errors import run_cli

    out = io.TextIOWrapper(io.BytesIO(), encoding="cp932", errors=errors)
    monkeypatch.setattr(sys, "stdout", out)
    assert run_cli(lambda argv: print("Earth: 1–5 players"), []) == 0
    assert out.errors == errors
    out.flush()
    assert out.buffer.getvalue().decode("cp932").startswith("Earth: 1?5 players")


def test_a_command_leaves_a_utf8_output_strict_so_text_that_is_no_text_is_not_hidden(monkeypatch):
    # UTF-8 holds every character: only a lone surrogate fails there, and it is a fault to see, not a "?"
    import io

    from tabletop_envs.core.errors import run_cli

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    seen = []
    assert run_cli(lambda argv: seen.append(sys.stdout.errors), []) == 0
    assert seen == ["strict"]
