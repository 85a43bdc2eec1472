"""Human-vs-bot terminal play, driven by scripted input (tests/toy_game.py and every shipped game)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tabletop_envs.cli import main
from tabletop_envs.core.play import choose_move, play_match, resolve_env_name, watch_replay
from tabletop_envs.core.registry import ENVS, EnvSpec, available_envs
from tabletop_envs.core.replay import Replay


class Script:
    """Feeds lines like a person at the keyboard; EOF when they run out."""

    def __init__(self, lines):
        self.lines = list(lines)
        self.prompts = []

    def __call__(self, prompt):
        self.prompts.append(prompt)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)


# "9" * 5000: int() refuses over 4,300 digits, and its ValueError ended the game
BAD_INPUTS = ["", "banana", "0", "99", "-3", "9" * 5000, "h", "t"]


def test_full_game_against_a_bot_with_bad_inputs_then_saved_replay(toy, tmp_path):
    # Toy: 6 turns, the human (seat 0) decides 3 times. Every decision first gets all the bad inputs.
    script = Script(BAD_INPUTS + ["1"] + BAD_INPUTS + ["1"] + BAD_INPUTS + ["1"] + ["y", str(tmp_path / "r.json")])
    out = []
    code = main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=out.append)
    text = "\n".join(out)
    assert code == 0
    assert text.count("Please type a move number") == 3  # the empty line
    assert text.count("No legal move is called 'banana'") == 3
    assert text.count("99 is not one of the moves") == 3 and text.count("0 is not one of the moves") == 3
    assert text.count("999999999… is not one of the moves: type a number from 1 to") == 3
    assert "Type the number of a move" in text  # help
    assert "game over" in text and "Scores (returns): player_0:" in text
    saved = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert saved["env"] == "toy_v0" and saved["seed"] == 3 and len(saved["actions"]) == 6
    assert Replay.load(tmp_path / "r.json").replay().game_state.is_terminal()
    assert script.lines == []


def test_the_seed_is_shown_only_once_the_game_is_over(toy):
    # the seed fixes the deal: shown before the end, it would let the human rebuild hidden cards
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "4321"], ask=Script(["1"] * 3 + ["n"]),
         say=out.append)
    over = next(i for i, line in enumerate(out) if "game over" in line)
    assert not any("4321" in line for line in out[:over])
    assert any("--seed 4321" in line for line in out[over:])


@pytest.mark.parametrize("seed", [1.5, True, "3", -5])
def test_a_seed_that_is_no_non_negative_int_is_refused_before_the_game_starts(toy, seed):
    # int(seed) came first: 1.5 and True were played as seed 1 and "3" as 3, silently other deals than asked
    from tabletop_envs.core.errors import ConfigError

    script = Script(["1"] * 3 + ["n"])
    with pytest.raises(ConfigError, match=f"seed must be None .* or a non-negative int, got {seed!r}"):
        play_match("toy_v0", ["toy_v0/random"], seed=seed, ask=script, say=lambda *_: None)
    assert script.prompts == []


@pytest.mark.parametrize("answers", [["1"] * 3, ["t", "table", "1", "q"]], ids=["moves", "table shown again"])
def test_the_human_sees_only_their_own_view(toy, monkeypatch, answers):
    # "t" redraws the table mid-decision: drawn for no seat, it would show the opponent's hand and the deck
    import toy_game

    seen = []
    original = toy_game.ToyState.render_text

    def spy(self, player=None):
        seen.append(player)
        return original(self, player)

    monkeypatch.setattr(toy_game.ToyState, "render_text", spy)
    script = Script(answers)
    play_match("toy_v0", ["toy_v0/random"], human_seat=1, seed=5, ask=script, say=lambda s: None)
    assert script.lines == [] and len(seen) >= 3 and set(seen) == {1}


def test_moves_are_listed_by_readable_name_and_picked_by_name(toy):
    import numpy as np

    class PlaysACard:  # never draws, so the 4-card deck lasts for the human's three draws
        def act(self, obs, mask, rng):
            return int(np.flatnonzero(mask[:-1])[0])

    out = []
    result = play_match("toy_v0", [PlaysACard()], seed=0, ask=Script(["draw", "draw", "draw"]), say=out.append)
    first = next(i for i, line in enumerate(out) if line.startswith("\nYour move"))
    assert "draw" in out[first] and "play " in out[first]
    draw = ENVS["toy_v0"].load_module().ToyGame().action_layout.id("draw")
    assert [result.replay.actions[i] for i in (0, 2, 4)] == [draw] * 3


def test_a_bot_with_memory_is_restarted_before_the_game(toy):
    from generator_spy import Remembers

    bot = Remembers()
    bot.moves = 99  # what an earlier game left
    play_match("toy_v0", [bot], seed=0, ask=Script(["1"] * 9), say=lambda s: None)
    assert bot.restarts == 1 and bot.moves < 99


def test_choose_move_reports_ambiguous_and_unknown_names():
    legal, names = [3, 5, 10], ["play 3", "play 5", "draw"]
    assert choose_move("2", legal, names) == (5, "")
    assert choose_move("DRAW", legal, names) == (10, "")
    action, message = choose_move("play", legal, names)
    assert action is None and "matches several moves" in message and "1. play 3" in message
    assert choose_move("fly", legal, names)[1].startswith("No legal move is called 'fly'")


def test_a_line_that_looks_like_a_number_but_is_none_gets_a_message_and_the_game_goes_on(toy):
    # "--1" and "²" pass str.isdigit() after the sign is stripped, but int() refuses them
    out = []
    code = main(["play", "toy", "--seed", "1", "--opponent", "toy_v0/random"],
                ask=Script(["--1", "²", "1", "1", "1", "n"]), say=out.append)
    text = "\n".join(out)
    assert code == 0 and "game over" in text and "Scores (returns)" in text
    assert "No legal move is called '--1'" in text and "No legal move is called '²'" in text


def test_a_solo_game_ends_with_the_score_not_a_win():
    # solo Earth has no opponent to beat: the return is the final VP (earth/RULES.md, "Solo play")
    from tabletop_envs.core.play import PlayResult, announce_result

    env = ENVS["earth_v0"].load_module().raw_env(num_players=1)
    env.reset(seed=0)
    replay = Replay.start(env, 0, ["human"])
    out = []
    announce_result(PlayResult(replay, [3.0], 0, True, "terminated"), env, out.append)
    text = "\n".join(out)
    assert "You win" not in text and "Draw" not in text and "Your score: 3" in text


def test_an_earth_game_ends_with_every_players_vp_as_well_as_the_rank_returns():
    # Earth's returns rank the table (+1 … -1); the VP that decided them are named on their own line
    import numpy as np

    from tabletop_envs.core.play import PlayResult, announce_result
    from tabletop_envs.earth.scoring import final_score

    env = ENVS["earth_v0"].load_module().raw_env(num_players=3)
    env.reset(seed=4)
    replay, rng = Replay.start(env, 0, ["human", "random", "random"]), np.random.default_rng(4)
    while not all(env.terminations.values()):
        env.step(int(rng.choice(env.observe(env.agent_selection)["action_mask"].nonzero()[0])))
    returns = [float(env._cumulative_rewards[a]) for a in env.possible_agents]
    out = []
    announce_result(PlayResult(replay, returns, 0, True, "terminated"), env, out.append)
    vp = [final_score(env.game_state, p) for p in range(3)]
    assert out[-2] == f"VP: player_0: {vp[0]}, player_1: {vp[1]}, player_2: {vp[2]}"
    assert "Scores (returns)" in out[-3] and returns.index(max(returns)) == vp.index(max(vp))


@pytest.mark.parametrize(("returns", "seat", "verdict"), [
    ([1.0, 0.0, -1.0], 1, "You finished 2nd of 3."), ([1.0, 0.0, -1.0], 0, "You finished 1st of 3."),
    ([1.0, -1.0, -1.0], 2, "You finished 2nd of 3 (tied)."), ([-1.0, 1.0], 0, "You lose."),
    ([0.0, 0.0], 1, "Draw."), ([1.0, -1.0], 0, "You win!"),
    # the last place of three reads "3rd", not "3th"; of four, "4th"
    ([1.0, 0.0, -1.0], 2, "You finished 3rd of 3."), ([3.0, 2.0, 1.0, 0.0], 3, "You finished 4th of 4.")])
def test_a_middle_place_at_a_table_of_three_or_more_is_announced_as_a_place_not_a_loss(returns, seat, verdict):
    from tabletop_envs.core.play import PlayResult, announce_result

    env = ENVS["earth_v0"].load_module().raw_env(num_players=len(returns))
    env.reset(seed=0)
    out = []
    announce_result(PlayResult(Replay.start(env, 0, ["bot"] * len(returns)), returns, seat, True, "terminated"), env,
                    out.append)
    assert f"{verdict}  Scores (returns)" in "\n".join(out)


def test_end_of_input_ends_the_game_cleanly(toy):
    out = []
    code = main(["play", "toy_v0", "--seed", "1", "--opponent", "toy_v0/random"], ask=Script(["1"]), say=out.append)
    text = "\n".join(out)
    assert code == 0 and "Input closed" in text and "Game stopped before the end" in text


def test_ctrl_c_during_the_game_stops_it_like_quit_and_the_replay_is_still_saved(toy, tmp_path):
    class CtrlC(Script):
        def __call__(self, prompt):
            if self.lines and self.lines[0] == "^C":
                self.lines.pop(0)
                raise KeyboardInterrupt
            return super().__call__(prompt)

    path = tmp_path / "c.json"
    out = []
    code = main(["play", "toy", "--seed", "2", "--opponent", "toy_v0/random", "--save", str(path)],
                ask=CtrlC(["1", "^C"]), say=out.append)
    text = "\n".join(out)
    assert code == 0 and "Game stopped before the end" in text
    assert "Interrupted: the game was stopped." in text and "Input closed" not in text
    replay = Replay.load(path)
    assert len(replay.actions) == 2 and replay.returns is None
    replay.replay()


def test_ctrl_c_while_a_bot_moves_keeps_the_moves_made_so_far(toy, tmp_path):
    class Interrupted:
        def act(self, obs, mask, rng):
            raise KeyboardInterrupt

    result = play_match("toy_v0", [Interrupted()], seed=2, ask=Script(["1"]), say=lambda s: None)
    assert result.reason == "interrupted" and result.replay.actions != []
    result.replay.replay()  # the sealed replay matches the moves it holds


def test_quit_still_offers_the_replay(toy, tmp_path):
    path = tmp_path / "q.json"
    out = []
    main(["play", "toy", "--seed", "2", "--opponent", "toy_v0/random"], ask=Script(["q", "y", str(path)]),
         say=out.append)
    replay = Replay.load(path)
    assert replay.actions == [] and replay.returns is None
    replay.replay()  # a stopped game still replays and verifies


def test_bad_command_line_values_are_clear_errors(toy):
    out = []
    assert main(["play", "toy", "--seat", "5", "--opponent", "toy_v0/random"], ask=Script([]), say=out.append) == 2
    assert "--seat must be between 0 and 1" in out[-1]
    assert main(["play", "chess"], ask=Script([]), say=out.append) == 2
    assert "unknown game 'chess'" in out[-1]


def test_one_opponent_not_in_a_list_is_refused_saying_so_as_the_arena_does(toy):
    # its letters were counted: "toy_v0 with 2 players needs 1 opponent, got 13"
    with pytest.raises(TypeError, match=r"opponents must be a list .*got 'toy_v0/random': e\.g\. \['toy_v0/random'\]"):
        play_match("toy_v0", "toy_v0/random", seed=0, ask=Script([]), say=lambda s: None)


@pytest.mark.parametrize("seat", [True, "1", 1.0])
def test_a_seat_that_is_no_int_is_refused_as_learner_seat_is(toy, seat):
    # True sat the human at seat 1 without a word, and "1" failed on a comparison inside
    with pytest.raises(ValueError, match=f"--seat must be between 0 and 1 for 2 players, got {seat!r}"):
        play_match("toy_v0", ["toy_v0/random"], human_seat=seat, seed=0, ask=Script([]), say=lambda s: None)
    replay = play_match("toy_v0", ["toy_v0/random"], seed=0, ask=Script(["q"]), say=lambda s: None).replay
    with pytest.raises(ValueError, match=f"--seat must be between 0 and 1, got {seat!r}"):
        watch_replay(replay, seat=seat, ask=None, say=lambda s: None)


def test_a_wrong_number_of_opponents_says_how_many_the_table_takes():
    out = []
    args = ["play", "earth", "--players", "1", "--opponent", "earth_v0/random"]
    assert main(args, ask=Script([]), say=out.append) == 2
    assert "earth_v0 with 1 player needs no opponent (a solo game), got 1" in out[-1]
    args = ["play", "earth", "--players", "3"] + ["--opponent", "earth_v0/random"] * 3
    assert main(args, ask=Script([]), say=out.append) == 2
    assert "earth_v0 with 3 players needs 2 opponents, got 3" in out[-1]


@pytest.mark.skipif(available_envs() != list(ENVS), reason="listing the known policies imports every game's bots")
def test_unknown_opponent_is_a_clear_error(toy):
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/nobody"], ask=Script([]), say=out.append) == 2
    assert "no policy registered as 'toy_v0/nobody'" in out[-1]


def test_game_names_resolve_with_or_without_version():
    for name in ENVS:
        base = name.rsplit("_v", 1)[0]
        assert resolve_env_name(base) == name == resolve_env_name(name)
        assert resolve_env_name(base.replace("_", "-").upper()) == name


@pytest.mark.parametrize("env_name", available_envs())
def test_full_game_of_every_shipped_game_against_its_bot(env_name, tmp_path):
    """A human who always types the first move (and one bad line each time) finishes a real game."""

    count = {"n": 0}

    def ask(prompt):
        count["n"] += 1
        if prompt.startswith("Save"):
            return "y"
        if prompt.startswith("File name"):
            return str(tmp_path / "game.json")
        return "nonsense!" if count["n"] % 2 else "1"

    out = []
    kwargs = ["--players", "3"] if len(ENVS[env_name].player_counts) > 1 else []
    code = main(["play", env_name, "--seed", "11", *kwargs], ask=ask, say=out.append)
    text = "\n".join(out)
    assert code == 0, text[-2000:]
    assert "game over" in text and ("Scores (returns)" in text or "turn limit" in text)
    assert "No legal move is called 'nonsense!'" in text
    replay = Replay.load(tmp_path / "game.json")
    assert replay.env == env_name and replay.replay() is not None


def test_window_shows_only_the_humans_view(monkeypatch):
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_picture_game", "test/toy-v0", "test/Toy-v0", (2,),
                                                "", "toy"))
    import toy_picture_game

    from tabletop_envs.core import render

    views, shown = [], []
    monkeypatch.setattr(toy_picture_game.raw_env, "draw_table",
                        staticmethod(lambda state, player=None: views.append(player) or toy_picture_game.draw_toy(
                            state, player)))
    monkeypatch.setattr(render.PygameViewer, "show", lambda self, array: shown.append(array.shape))
    result = play_match("toy_v0", ["toy_v0/random"], human_seat=1, seed=2, ask=Script(["1"] * 3), say=lambda s: None,
                        window=True)
    assert result.finished and set(views) == {1}
    # drawn before each of the human's 3 decisions and at the end, not after every move (a count of hidden moves)
    assert len(shown) == 3 + 1 and set(shown) == {(320, 480, 3)}


def test_list_names_every_game_with_its_player_counts_and_each_opponent_once(toy, monkeypatch):
    # a registered game whose module is missing is listed as not installed, and offers no opponents
    monkeypatch.setitem(ENVS, "ghost_v0", EnvSpec("ghost_v0", "ghost_game", "test/ghost-v0", "test/Ghost-v0", (3, 4),
                                                  "", "ghost"))
    out = []
    assert main(["list"], say=out.append) == 0
    *games, opponents_line = out
    rows = {line.split()[0]: line.split()[1:] for line in games}
    assert list(rows) == list(ENVS)
    assert rows["toy_v0"] == ["players", "2", "ready"]
    assert rows["ghost_v0"] == ["players", "3,", "4", "not", "installed"]
    assert opponents_line.startswith("opponents: ")
    opponents = opponents_line.removeprefix("opponents: ").split(", ")
    assert len(opponents) == len(set(opponents))  # the toy game has no heuristic: its random bot is not listed twice
    assert "toy_v0/random" in opponents and not any(o.startswith("ghost_v0/") for o in opponents)
    for name in available_envs():
        if name != "toy_v0":
            assert f"{name}/random" in opponents and f"{name}/heuristic" in opponents
    # a game whose name holds "random" keeps its heuristic in the list: the filter dropped any id with that word
    import tabletop_envs.core.play as play_module

    monkeypatch.setitem(ENVS, "randomwalk_v0", EnvSpec("randomwalk_v0", "toy_game", "test/rw-v0", "test/Rw-v0", (2,),
                                                       "", "randomwalk"))
    monkeypatch.setattr(play_module, "default_opponent", lambda name: f"{name}/heuristic")
    out = []
    assert main(["list"], say=out.append) == 0
    assert "randomwalk_v0/heuristic" in out[-1].removeprefix("opponents: ").split(", ")


def test_a_game_whose_bots_module_is_not_written_yet_is_played_against_its_random_bot(toy, monkeypatch):
    # its registry line names the module its heuristic will be registered in; until then play needs an opponent
    import dataclasses

    from tabletop_envs.core.play import default_opponent

    monkeypatch.setitem(ENVS, "toy_v0", dataclasses.replace(ENVS["toy_v0"], policies_module="toy_game_bots"))
    assert default_opponent("toy_v0") == "toy_v0/random"


def test_a_game_whose_bots_need_a_library_not_installed_names_it_instead_of_playing_its_random_bot(
        toy, monkeypatch, tmp_path):
    # `tabletop-envs play` without --opponent played the random bot without a word, while --opponent
    # <game>/heuristic named the missing library
    import dataclasses

    from tabletop_envs.core.play import default_opponent

    (tmp_path / "toy_game_bots.py").write_text("import no_such_library_the_bots_need  # noqa: F401\n",
                                               encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(ENVS, "toy_v0", dataclasses.replace(ENVS["toy_v0"], policies_module="toy_game_bots"))
    with pytest.raises(ModuleNotFoundError, match="no_such_library_the_bots_need"):
        default_opponent("toy_v0")


@pytest.mark.parametrize("solo", [["--players", "1"], ["--option", "num_players=1"]])
def test_a_solo_game_from_the_command_line_needs_no_opponent_and_ends_with_the_score(tmp_path, solo):
    # --option num_players=1 was given a default opponent, then refused it (found by a user audit)
    if "earth_v0" not in available_envs():
        pytest.skip("Earth is not in this checkout")
    path = tmp_path / "solo.json"
    out = []
    code = main(["play", "earth", *solo, "--seed", "3", "--save", str(path)],
                ask=lambda prompt: "1", say=out.append)
    text = "\n".join(out)
    assert code == 0, text[-2000:]
    assert "game over" in text and "Your score: " in text and "You win" not in text
    replay = Replay.load(path)
    assert replay.players == ["human"] and replay.config["num_players"] == 1
    assert replay.replay().game_state.is_terminal()


@pytest.mark.parametrize(("flags", "message"), [
    (["--players", "2", "--option", "num_players=4"], "--players 2 and --option num_players=4 disagree"),
    (["--max-turns", "5", "--option", "max_turns=6"], "--max-turns 5 and --option max_turns=6 disagree"),
    (["--players", "1", "--option", "num_players=true"], "--players 1 and --option num_players=True disagree")])
def test_a_flag_and_an_option_that_set_the_same_thing_differently_are_refused_naming_both(flags, message):
    # the flag won without a word: a game of another player count than one of the two asked for
    if "earth_v0" not in available_envs():
        pytest.skip("Earth is not in this checkout")
    out = []
    assert main(["play", "earth", *flags, "--seed", "3"], ask=Script([]), say=out.append) == 2
    assert out == [f"error: {message}; give only one of them"]


def test_a_flag_and_an_option_that_agree_play_the_game_they_both_ask_for():
    if "earth_v0" not in available_envs():
        pytest.skip("Earth is not in this checkout")
    out = []
    args = ["play", "earth", "--players", "3", "--option", "num_players=3", "--max-turns", "4", "--option",
            "max_turns=4", "--opponent", "earth_v0/random", "--seed", "3"]
    assert main(args, ask=Script(["q", "n"]), say=out.append) == 0
    assert "player_2 = earth_v0/random" in out[0] and "player_3" not in out[0]


def test_console_script_module_runs():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "tabletop_envs.cli", "list"], capture_output=True, text=True,
                         check=True, cwd=root).stdout
    assert "terralore_v0" in out and "opponents:" in out
    assert "earth_v0/ppo_4p" in out  # the trained opponents are listed by id too
    # python -m tabletop_envs is the same command; its errors go to stderr, as the training commands' do
    bad = subprocess.run([sys.executable, "-m", "tabletop_envs", "replay", str(root / "no-such-replay.json")],
                         capture_output=True, text=True, cwd=root)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.startswith("error: ") and "no-such-replay" in bad.stderr


def test_a_reader_that_stops_reading_ends_the_command_quietly():
    # tabletop-envs list | head -1 printed "error: [Errno 32] Broken pipe"
    import subprocess
    import sys
    from pathlib import Path

    with subprocess.Popen([sys.executable, "-m", "tabletop_envs", "list"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[1]) as proc:
        proc.stdout.close()  # before the command has written anything: every write meets a closed pipe
        assert proc.wait(timeout=60) == 0 and proc.stderr.read() == ""


@pytest.mark.parametrize("fps", ["0", "-2", "abc", "1000", "0.001"])
def test_a_gif_frame_rate_outside_what_a_gif_can_play_is_refused_before_the_replay(fps, capsys):
    # 0 divided by zero and -2 or 0.001 overflowed, after the whole replay had been watched
    with pytest.raises(SystemExit) as info:
        main(["replay", "any.json", "--gif", "g.gif", "--fps", fps], ask=Script([]), say=print)
    assert info.value.code == 2 and "frames per second must be a number from 0.01 to 100" in capsys.readouterr().err


def _text_cases():
    cases = []
    for name in available_envs():
        for n in ENVS[name].player_counts:
            if n == 1 or n > 3:
                continue
            cases.append(pytest.param(name, {"num_players": n} if len(ENVS[name].player_counts) > 1 else {},
                                      id=f"{name}-{n}p"))
    return cases


@pytest.mark.parametrize(("env_name", "kwargs"), _text_cases())
def test_the_humans_text_view_shows_nothing_they_cannot_see(env_name, kwargs):
    """What the terminal shows a seat (render_text(seat)) is unchanged when everything that seat cannot
    see is re-dealt, like the observation no-leak check."""
    import numpy as np

    module = ENVS[env_name].load_module()
    checked = 0
    for seed in range(3):
        env = module.raw_env(**kwargs)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for step in range(300):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            if step % 7 == 0:
                state = env.game_state
                for player in range(env.game.num_players):
                    text = state.render_text(player)
                    assert state.resample_hidden(player, rng).render_text(player) == text, (
                        f"{env_name} seed {seed} step {step}: the text view of seat {player} leaks")
                    checked += 1
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert checked >= 6


def test_turn_limit_ends_the_game_without_a_winner_and_the_replay_still_verifies(toy, tmp_path):
    out = []
    path = tmp_path / "t.json"
    main(["play", "toy", "--seed", "4", "--max-turns", "2", "--opponent", "toy_v0/random", "--save", str(path)],
         ask=Script(["1"]), say=out.append)
    text = "\n".join(out)
    assert "turn limit (2 turns)" in text and "Replay saved" in text
    replay = Replay.load(path)
    assert replay.returns is None and replay.max_turns == 2 and len(replay.actions) == 2
    assert replay.replay().truncations["player_0"]


def test_opponents_of_another_game_and_missing_models_are_clear_errors(toy, tmp_path):
    out = []
    assert main(["play", "toy", "--opponent", "earth_v0/random"], ask=Script([]), say=out.append) == 2
    assert "plays earth_v0, not toy_v0" in out[-1]
    assert main(["play", "toy", "--opponent", str(tmp_path / "gone.onnx")], ask=Script([]), say=out.append) == 2
    assert out[-1].startswith("error: ") and "gone" in out[-1]


def test_bots_never_draw_from_the_generator_that_dealt_the_hidden_cards():
    """The env deals from ``seed`` (its reset draws the deal's seed from ``default_rng(seed)``); a bot
    handed that same stream could recompute the deal and see the human's hand."""
    from generator_spy import GeneratorSpy, same_stream

    spy = GeneratorSpy()
    play_match("terralore_v0", [spy], human_seat=1, seed=5, ask=Script(["q"]), say=lambda s: None)
    assert spy.first_state is not None, "player_0 decides first in Terralore (the mulligan)"
    assert not same_stream(spy.first_state, 5)
    from generator_spy import tells_the_seed

    assert not tells_the_seed(spy, 5), "a bot could read the seed of the human's deal off its generator"


class UnmaskedBot:
    """A bot with a bug: it plays an action its mask forbids, and remembers the names of the moves it had."""

    name = "unmasked"

    def __init__(self):
        from tabletop_envs.core.registry import make_game

        self.layout = make_game("travel_earth_v0").action_layout
        self.legal_names = []

    def act(self, obs, mask, rng):
        import numpy as np

        self.legal_names = [self.layout.label(int(a)) for a in np.flatnonzero(mask)]
        return int(np.flatnonzero(mask == 0)[5])


def test_a_bots_illegal_move_is_reported_to_the_human_without_the_moves_that_name_its_hand(monkeypatch):
    # the message of an illegal move lists the legal ones and names the chosen one: for a bot's move these are
    # cards of the bot's hand, and the play command prints the message to the human at the table
    from tabletop_envs.core import policy as policy_module

    bot = UnmaskedBot()
    monkeypatch.setitem(policy_module._POLICIES, "travel_earth_v0/unmasked", lambda **kw: bot)
    out = []
    code = main(["play", "travel_earth", "--opponent", "travel_earth_v0/unmasked", "--seat", "1", "--seed", "3",
                 "--option", "first_player=0"], ask=Script([]), say=out.append)
    assert code == 2 and bot.legal_names
    error = out[-1]
    assert error.startswith("error: the opponent travel_earth_v0/unmasked (seat 0) chose a move that is not legal")
    cards = {name.split(" ", 1)[1].rsplit(" to Reservoir", 1)[0] for name in bot.legal_names if name.startswith("add ")}
    assert cards and not any(card in line for line in out for card in cards)
    assert "Legal actions" not in error


def test_an_option_value_takes_json_and_the_python_spellings_the_errors_use():
    from tabletop_envs.cli import _option

    assert _option("defenders_deal_damage=true") == ("defenders_deal_damage", True)
    # the env's error says "must be True or False": typing what it says works
    assert _option("defenders_deal_damage=True") == ("defenders_deal_damage", True)
    assert _option("mulligan=False") == ("mulligan", False)
    assert _option("first_player=None") == ("first_player", None)
    assert _option("deck_out=cannot_draw") == ("deck_out", "cannot_draw")  # a bare word is a string
    assert _option('decks=["random", "random"]') == ("decks", ["random", "random"])


def test_a_game_started_with_a_python_spelled_option_plays_under_it(tmp_path):
    out = []
    args = ["play", "terralore", "--seed", "1", "--opponent", "terralore_v0/random", "--option",
            "defenders_deal_damage=True", "--save", str(tmp_path / "r.json")]
    assert main(args, ask=Script(["q"]), say=out.append) == 0
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["config"]["defenders_deal_damage"] is True


def test_a_replay_that_cannot_be_saved_asks_for_another_file_instead_of_losing_the_game(toy, tmp_path):
    # found by a user audit: a folder given as the file name ended the program and the game was gone
    script = Script(["1"] * 3 + ["y", str(tmp_path), str(tmp_path / "kept.json")])
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=out.append) == 0
    text = "\n".join(out)
    assert f"Could not save the replay to {str(tmp_path)!r}" in text
    assert "Another file name" in script.prompts[-1]
    assert Replay.load(tmp_path / "kept.json").replay().game_state.is_terminal()
    script = Script(["1"] * 3 + ["y", str(tmp_path), ""])
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=out.append) == 0
    assert out[-1] == "The replay was not saved."


def test_the_command_offered_to_watch_a_saved_replay_works_pasted_for_a_name_with_a_space(toy, tmp_path):
    import shlex

    path = tmp_path / "my game's replay.json"
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["1"] * 3 + ["y", str(path)]),
         say=out.append)
    command = out[-1].split("Watch it with: ", 1)[1]
    assert shlex.split(command) == ["tabletop-envs", "replay", str(path)]


@pytest.mark.parametrize("flag, name, problem", [
    ("--save", "", "--save needs a file name, e.g. --save game.json"),
    ("--save", ".", "is a folder: give a file name"),
    ("--save", "no/such/folder/r.json", "there is no folder"),
    ("--save", "/proc/r.json", "no file can be written in '/proc' (No such file or directory); give a file name in a "
                               "folder you can write to"),
])
def test_a_save_path_that_cannot_be_written_is_refused_before_the_game(toy, tmp_path, monkeypatch, flag, name, problem):
    if name.startswith("/proc/") and not Path("/proc/self").is_dir():
        pytest.skip("a folder that takes no file: Linux's /proc")
    monkeypatch.chdir(tmp_path)
    script, out = Script(["1"] * 3), []
    assert main(["play", "toy", "--opponent", "toy_v0/random", flag, name], ask=script, say=out.append) == 2
    assert problem in out[-1] and script.prompts == []  # no move was asked for


class UndecodableLine(Script):
    """A terminal whose reader cannot decode a line (a Latin-1 byte in a UTF-8 terminal) at the given prompts."""

    def __init__(self, lines, bad_at):
        super().__init__(lines)
        self.bad_at = set(bad_at)

    def __call__(self, prompt):
        if len(self.prompts) in self.bad_at:
            self.prompts.append(prompt)
            raise UnicodeDecodeError("utf-8", b"\xe9", 0, 1, "invalid continuation byte")
        return super().__call__(prompt)


def test_a_line_that_is_not_text_is_asked_again_at_every_prompt_and_the_game_is_saved(toy, tmp_path):
    # one stray byte ended the game with "error: 'utf-8' codec can't decode byte 0xe9" and lost the replay
    path = tmp_path / "r.json"
    script = UndecodableLine(["1", "1", "1", "y", str(path)], bad_at=[0, 2, 4, 6, 8])  # each move, "Save?", the name
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=out.append) == 0
    assert sum("not text in this terminal's encoding" in line for line in out) == 5
    assert Replay.load(path).actions  # the game was played to the end and saved


def test_a_replay_saved_under_a_home_folder_name_is_written_in_the_home_folder(toy, tmp_path, monkeypatch):
    # "~/x.json" passed the check as the home folder's, then was written to a folder named "~" here
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    monkeypatch.chdir(tmp_path)
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3", "--save", "~/x.json"],
                ask=Script(["1"] * 3), say=out.append) == 0
    assert (tmp_path / "home" / "x.json").is_file() and not (tmp_path / "~").exists()
    assert Replay.load("~/x.json").actions


def test_a_file_name_starting_with_a_tilde_of_no_user_is_the_name_as_written(toy, tmp_path, monkeypatch):
    # a shell leaves ~game.json (no user "game.json") as written; pathlib's expanduser() raised RuntimeError
    # "Could not determine home directory" from --save, --gif and replay, a traceback before the game began
    monkeypatch.chdir(tmp_path)
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3", "--save", "~game.json"],
                ask=Script(["1"] * 3), say=[].append) == 0
    assert Replay.load("~game.json").actions and (tmp_path / "~game.json").is_file()
    out = []
    assert main(["replay", "~nosuchuser/x.json", "--no-pause"], say=out.append) == 2
    assert out == ["error: no replay file at '~nosuchuser/x.json'"]
    out = []
    assert main(["replay", "~game.json", "--no-pause", "--gif", "~nosuchuser/x.gif"], say=out.append) == 2
    assert out == ["error: --gif '~nosuchuser/x.gif': there is no folder '~nosuchuser' to write it in"]


def test_the_interactive_save_never_replaces_an_earlier_replay_without_asking(toy, tmp_path, monkeypatch):
    # the default name holds only the game and seed: a second game of that seed replaced the first silently
    monkeypatch.chdir(tmp_path)
    first = tmp_path / "replay-toy_v0-seed3.json"
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["1"] * 3 + ["y", ""]),
         say=[].append)
    kept = first.read_text(encoding="utf-8")
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["q", "y", ""]), say=out.append)
    assert first.read_text(encoding="utf-8") == kept and (tmp_path / "replay-toy_v0-seed3-2.json").is_file()
    script = Script(["q", "y", first.name, "n", "mine.json"])  # a name typed that exists: asked, then another
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=[].append)
    assert script.prompts[-2] == f"{first.name} exists. Replace it? [y/N] "
    assert first.read_text(encoding="utf-8") == kept and (tmp_path / "mine.json").is_file()
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["q", "y", first.name, "y"]),
         say=[].append)
    assert first.read_text(encoding="utf-8") != kept  # replaced, as asked


def test_a_game_the_player_stops_is_announced_as_stopped_not_over(toy):
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["q", "n"]), say=out.append)
    assert any("game stopped" in line for line in out) and not any("game over" in line for line in out)
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["1"] * 3 + ["n"]), say=out.append)
    assert any("game over" in line for line in out)


def test_illegal_action_is_refused_as_a_rule_option_since_play_checks_every_move(toy):
    # the replay it saves refuses an env that plays another move than an illegal one: the message named
    # Replay.start's env, which a player never built
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--option", "illegal_action=penalty"],
                ask=Script([]), say=out.append) == 2
    assert "illegal_action='penalty': in play every move is checked before it is made" in out[-1]


def test_play_match_refuses_an_illegal_action_env_option_since_play_checks_every_move(toy):
    # the replay it records refused such an env with a message about Replay.start, which a player never called
    with pytest.raises(ValueError, match=r"^env_kwargs illegal_action='penalty': in play every move is checked"):
        play_match("toy_v0", ["toy_v0/random"], seed=0, ask=Script([]), say=lambda s: None,
                   env_kwargs={"illegal_action": "penalty"})
    # the default, named, is no other game
    result = play_match("toy_v0", ["toy_v0/random"], seed=0, ask=Script(["q"]), say=lambda s: None,
                        env_kwargs={"illegal_action": "raise"})
    assert result.reason == "quit"


def test_render_mode_is_refused_as_a_rule_option_since_it_draws_the_bots_decisions_too(toy):
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--option", "render_mode=human"],
                ask=Script([]), say=out.append) == 2
    assert "--option render_mode is no rule option" in out[-1] and "--window" in out[-1]


@pytest.mark.parametrize("name, problem", [("", "--gif needs a file name, e.g. --gif game.gif"),
                                           ("out.txt", "must end in .gif"), (".", "is a folder"),
                                           ("no/such/g.gif", "there is no folder"),
                                           ("/proc/g.gif", "no file can be written in '/proc' (No such file")])
def test_a_gif_path_that_cannot_be_written_is_refused_before_the_replay_is_shown(toy, tmp_path, monkeypatch, name,
                                                                                problem):
    if name.startswith("/proc/") and not Path("/proc/self").is_dir():
        pytest.skip("a folder that takes no file: Linux's /proc")
    monkeypatch.chdir(tmp_path)
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3", "--save", "g.json"], ask=Script(["1"] * 3),
         say=[].append)
    out = []
    assert main(["replay", "g.json", "--no-pause", "--gif", name], say=out.append) == 2
    assert problem in out[-1] and not any("--- action" in line for line in out)


def test_a_move_with_no_alternative_is_played_without_asking(tmp_path):
    # found by a user audit: a 3-player Earth game asked 37 times to confirm "1. pass"
    if "earth_v0" not in available_envs():
        pytest.skip("Earth is not in this checkout")
    script, out = Script(["1"] * 2000), []
    path = tmp_path / "g.json"
    assert main(["play", "earth", "--opponent", "earth_v0/random", "--seed", "5", "--save", str(path)],
                ask=script, say=out.append) == 0
    replay = Replay.load(path)
    env = replay.make_env()
    choices = forced = 0
    for _, player, _ in replay.steps(env):
        if player == 0:
            legal = len(env.game_state.legal_actions())
            choices += legal > 1
            forced += legal == 1
    assert forced > 0 and script.prompts.count("> ") == choices
    assert sum(line.startswith("Your only move") for line in out) == forced


def test_a_warning_while_playing_reads_as_a_line_for_a_person(toy, monkeypatch):
    import warnings

    import tabletop_envs.core.play as play

    real = play.play_match

    def warning_first(*args, **kwargs):
        warnings.warn("this model never learnt these rules", UserWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(play, "play_match", warning_first)
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["1"] * 3 + ["n"]), say=out.append)
    assert "warning: this model never learnt these rules" in out and not any("UserWarning" in line for line in out)


def test_a_two_player_game_says_the_opponent_has_moved_not_the_other_players(toy):
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3", "--seat", "1"], ask=Script(["1"] * 3 + ["n"]),
         say=out.append)
    assert "(your opponent has moved)" in out and "(the other players have moved)" not in out


def _earth_vp_tie(reward):
    # a 2-player Earth game level on VP that a tiebreaker decides (tests/earth/test_env.py finds it too)
    from earth_tie import VP_TIE_SEED

    from tabletop_envs.core.arena import deal_seed
    from tabletop_envs.core.policy import RandomPolicy, policy_rng

    env = ENVS["earth_v0"].load_module().raw_env(num_players=2, reward=reward)
    env.reset(seed=0)
    state = env.game.new_initial_state(deal_seed(VP_TIE_SEED, 0))
    rngs = [policy_rng(VP_TIE_SEED, 0), policy_rng(VP_TIE_SEED, 1)]
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(RandomPolicy().act(state.observation(seat), state.legal_action_mask(), rngs[seat]))
    env.game_state = state
    assert state.scores[0] == state.scores[1] and list(state.standings()) == [-1.0, 1.0]
    return env, state


def test_an_earth_vp_tie_decided_by_the_tiebreakers_is_announced_as_a_win_and_a_loss_under_any_reward():
    # reward="vp_margin" returns are level (0, 0) on a VP tie; the rules' tiebreakers still name a winner,
    # and the verdict said "Draw." to both seats
    from tabletop_envs.core.play import PlayResult, announce_result

    env, state = _earth_vp_tie("vp_margin")
    for seat, verdict in ((0, "You lose."), (1, "You win!")):
        out = []
        announce_result(PlayResult(Replay.start(env, 0, ["human", "bot"]), [float(r) for r in state.returns()],
                                   seat, True, "terminated"), env, out.append)
        assert f"{verdict}  Scores (returns): player_0: +0, player_1: +0" in "\n".join(out)


def test_an_earth_vp_tie_shows_the_tiebreakers_that_decided_it():
    # the end of the game named only the VP: a human who lost on equal VP could not see why
    from tabletop_envs.earth.scoring import tiebreak_key

    _, state = _earth_vp_tie("rank")
    points = state.final_points()
    assert points.startswith(f"VP: player_0: {state.scores[0]}, player_1: {state.scores[1]}\nTied on VP")
    for p in (0, 1):
        assert f"player_{p}: " + "/".join(map(str, tiebreak_key(state, p)[1:])) in points


@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0"])
def test_a_replay_watched_into_a_file_in_a_code_page_without_its_characters_plays_to_the_end(env_name, tmp_path):
    """Windows writes redirected output in its ANSI code page: cp932 (Japanese) has no em dash (Terralore's
    table) and no "á" (Travel Earth's Galápagos tortoise), and the replay stopped half-way with
    "error: 'cp932' codec can't encode character"."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import numpy as np

    env = ENVS[env_name].load_module().raw_env()
    env.reset(seed=7)
    replay, rng = Replay.start(env, 7, ["random", "random"]), np.random.default_rng(7)
    for agent in env.agent_iter():
        if env.terminations[agent] or env.truncations[agent]:
            break
        action = int(rng.choice(np.flatnonzero(env.game_state.legal_action_mask())))
        env.step(action)
        replay.record(action)
    replay.finish(env)
    path = replay.save(tmp_path / "game.json")
    root = Path(__file__).resolve().parents[1]
    for argv in (["replay", str(path), "--no-pause"], ["play", "--help"]):
        out = subprocess.run([sys.executable, "-m", "tabletop_envs.cli", *argv], capture_output=True, cwd=root,
                             env={**os.environ, "PYTHONIOENCODING": "cp932"}, timeout=120)
        assert out.returncode == 0, out.stderr.decode("utf-8", "replace")[-2000:]
    assert "?" in out.stdout.decode("cp932")  # "Earth: 1–5" with the en dash cp932 lacks


def test_the_play_commands_help_names_every_registered_game(toy):
    # it listed "terralore, travel_earth or earth" whatever the registry held: a game added there was missing
    from tabletop_envs.cli import build_parser

    play = build_parser()._subparsers._group_actions[0].choices["play"]
    game = next(action for action in play._actions if action.dest == "game")
    assert game.help.startswith("one of earth, terralore, toy, travel_earth (")


# ---------------------------------------------------------------- gaps found by mutation testing play.py and cli.py

def test_a_move_name_typed_in_full_wins_over_the_longer_names_that_contain_it_and_a_part_matches_in_any_case():
    legal, names = [4, 7, 9], ["play Oak", "play Oak Sapling", "draw"]
    assert choose_move("play oak", legal, names) == (4, "")  # not "matches several moves": it names one exactly
    assert choose_move("SAPL", legal, names) == (7, "")
    assert choose_move("  Dra ", legal, names) == (9, "")


def test_the_number_one_past_the_last_move_is_refused_with_the_range_instead_of_failing():
    legal, names = [3, 5, 10], ["play 3", "play 5", "draw"]
    assert choose_move("3", legal, names) == (10, "")
    assert choose_move("4", legal, names) == (None, "4 is not one of the moves: type a number from 1 to 3.")


def test_an_ambiguous_part_of_a_name_lists_the_first_eight_matches_then_an_ellipsis():
    names = [f"play {card}" for card in "abcdefghij"]
    action, message = choose_move("play", list(range(10)), names)
    assert action is None
    assert "1. play a" in message and "8. play h" in message and "9. play i" not in message
    assert message.endswith(" …); be more precise.")
    assert choose_move("play", [0, 1], names[:2])[1] == "'play' matches several moves (1. play a, 2. play b); be more precise."


def test_the_moves_are_numbered_from_one_with_the_numbers_right_aligned():
    from tabletop_envs.core.play import format_moves

    names = [f"play {card}" for card in "abcdefghij"]
    lines = format_moves(list(range(10)), names).splitlines()
    assert lines[0] == "   1. play a" and lines[9] == "  10. play j"


def test_quit_exit_help_and_question_mark_are_understood_and_t_shows_the_moves_again(toy):
    out = []
    script = Script(["?", "help", "t", "1", "exit"])
    result = play_match("toy_v0", ["toy_v0/random"], seed=3, ask=script, say=out.append)
    from tabletop_envs.core.play import HELP

    assert out.count(HELP) == 2 and result.reason == "quit" and len(result.replay.actions) == 2
    listed = next(line for line in out if line.startswith("\nYour move"))
    moves = listed.split(":\n", 1)[1]
    assert out.count(moves) == 1  # listed again after t, on its own under the table
    chosen = result.replay.actions[0]
    assert f"You: {ENVS['toy_v0'].load_module().ToyGame().action_layout.label(chosen)}" in out
    assert play_match("toy_v0", ["toy_v0/random"], seed=3, ask=Script(["quit"]), say=out.append).reason == "quit"


def test_one_opponent_given_as_a_path_or_a_policy_object_not_in_a_list_is_refused(toy, tmp_path):
    from tabletop_envs.core.policy import RandomPolicy

    for opponent in (tmp_path / "bot.onnx", RandomPolicy()):
        with pytest.raises(TypeError, match="opponents must be a list"):
            play_match("toy_v0", opponent, seed=0, ask=Script([]), say=lambda s: None)


def test_a_seat_equal_to_the_number_of_players_is_refused_in_play_and_in_replay(toy):
    with pytest.raises(ValueError, match="--seat must be between 0 and 1 for 2 players, got 2"):
        play_match("toy_v0", ["toy_v0/random"], human_seat=2, seed=0, ask=Script([]), say=lambda s: None)
    replay = play_match("toy_v0", ["toy_v0/random"], seed=0, ask=Script(["q"]), say=lambda s: None).replay
    with pytest.raises(ValueError, match="--seat must be between 0 and 1, got 2"):
        watch_replay(replay, seat=2, ask=None, say=lambda s: None)


def test_a_negative_seat_is_refused_in_replay_before_any_position_is_shown(toy, tmp_path):
    replay = play_match("toy_v0", ["toy_v0/random"], seed=0, ask=Script(["q"]), say=lambda s: None).replay
    path, out = replay.save(tmp_path / "g.json"), []
    assert main(["replay", str(path), "--seat", "-1", "--no-pause"], say=out.append) == 2
    assert "--seat must be between 0 and 1, got -1" in out[-1] and not any("--- action" in line for line in out)


def test_too_many_opponents_for_two_players_says_one_opponent_in_the_singular(toy):
    with pytest.raises(ValueError, match=r"toy_v0 with 2 players needs 1 opponent, got 2$"):
        play_match("toy_v0", ["toy_v0/random"] * 2, seed=0, ask=Script([]), say=lambda s: None)


def test_the_seats_name_a_policy_object_by_its_name_and_a_model_path_by_its_path(toy):
    from tabletop_envs.core.policy import RandomPolicy

    class Named(RandomPolicy):
        name = "my bot"

    out = []
    result = play_match("toy_v0", [Named()], seed=0, ask=Script(["q"]), say=out.append)
    assert result.replay.players == ["human", "my bot"]
    assert out[0] == "toy_v0. Seats: player_0 = human, player_1 = my bot"


def test_a_game_without_a_seed_gets_a_fresh_one_that_the_replay_keeps(toy):
    seeds = {play_match("toy_v0", ["toy_v0/random"], ask=Script(["q"]), say=lambda s: None).replay.seed
             for _ in range(3)}
    assert len(seeds) == 3 and all(0 <= seed < 2**63 for seed in seeds)


def test_each_bot_at_the_table_draws_from_a_generator_of_its_own():
    # two random bots handed one stream would make the same choices wherever their masks agree
    if "earth_v0" not in available_envs():
        pytest.skip("Earth is not in this checkout")
    from tabletop_envs.core.policy import RandomPolicy

    first_states = {}

    class Spy(RandomPolicy):
        def __init__(self, seat):
            super().__init__()
            self.seat = seat

        def act(self, obs, mask, rng):
            first_states.setdefault(self.seat, rng.bit_generator.state["state"]["state"])
            return super().act(obs, mask, rng)

    play_match("earth_v0", [Spy(1), Spy(2)], seed=4, ask=Script(["q"]), say=lambda s: None,
               env_kwargs={"num_players": 3})
    assert set(first_states) == {1, 2} and first_states[1] != first_states[2]


def test_the_opponent_has_moved_is_said_once_per_return_to_the_human_not_before_each_of_their_decisions(tmp_path):
    # a Terralore placement is several decisions of the human in a row: no bot moved between them
    path = tmp_path / "g.json"
    out = []
    assert main(["play", "terralore", "--seed", "7", "--save", str(path)], ask=Script(["1"] * 200),
                say=out.append) == 0
    replay = Replay.load(path)
    players = [player for _, player, _ in replay.steps(replay.make_env())]
    returns = sum(player == 0 and i > 0 and players[i - 1] != 0 for i, player in enumerate(players))
    assert any(a == b == 0 for a, b in zip(players, players[1:])), "the human decides twice in a row"
    assert out.count("(your opponent has moved)") == returns


def test_a_game_that_reaches_the_turn_limit_counts_as_finished_and_one_turn_is_said_in_the_singular(toy):
    from tabletop_envs.core.play import announce_result

    result = play_match("toy_v0", ["toy_v0/random"], seed=4, ask=Script(["1"]), say=lambda s: None,
                        env_kwargs={"max_turns": 1})
    assert result.reason == "truncated" and result.finished and result.returns is None
    out = []
    announce_result(result, result.replay.replay(), out.append)
    assert "The game reached the turn limit (1 turn) and ends without a winner." in out


def test_yes_in_full_saves_the_replay(toy, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["q", "Yes", ""]), say=[].append)
    assert Replay.load(tmp_path / "replay-toy_v0-seed3.json").actions == []


def test_a_typed_home_folder_name_of_an_existing_replay_is_asked_about_before_it_is_replaced(toy, tmp_path,
                                                                                           monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    kept = tmp_path / "mine.json"
    kept.write_text("{}", encoding="utf-8")
    script = Script(["q", "y", "~/mine.json", "n", ""])
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=out.append)
    assert "~/mine.json exists. Replace it? [y/N] " in script.prompts and kept.read_text(encoding="utf-8") == "{}"
    assert out[-1] == "The replay was not saved."  # no other name given


@pytest.mark.parametrize("output", ["window", "gif frames"])
def test_a_replay_watched_from_a_seat_in_a_window_draws_only_that_seats_view(toy, monkeypatch, output):
    # a GIF's frames become a file that can be handed to that seat's player: no other seat's cards in them either
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_picture_game", "test/toy-v0", "test/Toy-v0", (2,),
                                                "", "toy"))
    import toy_picture_game

    from tabletop_envs.core import render

    views = []
    monkeypatch.setattr(toy_picture_game.raw_env, "draw_table",
                        staticmethod(lambda state, player=None: views.append(player) or toy_picture_game.draw_toy(
                            state, player)))
    monkeypatch.setattr(render.PygameViewer, "__init__", lambda self, title: setattr(self, "screen", None))
    monkeypatch.setattr(render.PygameViewer, "show", lambda self, array: None)
    replay = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None).replay
    frames: list = []
    watch_replay(replay, seat=1, ask=None, say=lambda s: None, window=output == "window",
                 frames=frames if output == "gif frames" else None)
    assert views and set(views) == {1}
    assert len(frames) == (len(replay.actions) + 1 if output == "gif frames" else 0)


@pytest.mark.parametrize("fault", ["a seat off the table", "moves that do not reproduce the recorded game"])
def test_a_replay_that_cannot_be_watched_leaves_no_window_open(toy, monkeypatch, fault):
    # found by an audit: a bad --seat was refused after the window opened, and a replay that failed to
    # verify raised past the close, both leaving the window behind
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_picture_game", "test/toy-v0", "test/Toy-v0", (2,),
                                                "", "toy"))
    from tabletop_envs.core import render

    windows = []
    monkeypatch.setattr(render.PygameViewer, "__init__", lambda self, title: windows.append(self) or setattr(
        self, "screen", "open"))
    monkeypatch.setattr(render.PygameViewer, "show", lambda self, array: None)
    monkeypatch.setattr(render.PygameViewer, "close", lambda self: setattr(self, "screen", None))
    replay = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None).replay
    seat = 2 if fault == "a seat off the table" else 1
    if fault != "a seat off the table":
        replay.final_digest = "0" * 64
    with pytest.raises(Exception, match="--seat must be between 0 and 1, got 2" if seat == 2 else "digest"):
        watch_replay(replay, seat=seat, ask=None, say=lambda s: None, window=True)
    assert [w.screen for w in windows] == ([] if seat == 2 else [None])


@pytest.mark.parametrize("command", ["play", "replay"])
def test_window_without_a_display_is_refused_before_any_table_or_move_is_printed(command, monkeypatch, tmp_path):
    # found by an audit: replay --window printed the first table, play --window the seats and the bots' moves,
    # before the error; now the error is all that is said
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_picture_game", "test/toy-v0", "test/Toy-v0", (2,),
                                                "", "toy"))
    from tabletop_envs.core import render

    def no_display(self, title):
        raise render._no_display("test: no DISPLAY")

    monkeypatch.setattr(render.PygameViewer, "__init__", no_display)
    replay = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None).replay
    args = ["replay", str(replay.save(tmp_path / "g.json")), "--no-pause"] if command == "replay" else \
        ["play", "toy_v0", "--opponent", "toy_v0/random", "--seat", "1", "--seed", "2"]
    out: list[str] = []
    assert main(args + ["--window"], ask=Script([]), say=out.append) == 2
    assert len(out) == 1 and out[0].startswith("error: no display to open a window on (test: no DISPLAY)"), out


def test_q_at_a_replays_pause_stops_it_and_closing_the_input_plays_the_rest_without_pausing(toy):
    replay = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None).replay
    out = []
    watch_replay(replay, ask=Script(["", "q"]), say=out.append)
    assert out[-1] == "Stopped." and sum(line.startswith("\n--- action") for line in out) == 2
    out = []
    watch_replay(replay, ask=Script([" Quit "]), say=out.append)  # spelled out, in any case, as at the table
    assert out[-1] == "Stopped." and sum(line.startswith("\n--- action") for line in out) == 1
    out, script = [], Script([""])
    watch_replay(replay, ask=script, say=out.append)
    assert len(script.prompts) == 2  # the second press closed the input: no more pauses
    assert sum(line.startswith("\n--- action") for line in out) == 6
    assert out[-1] == "Replay verified: the final state matches the recorded one."


def test_a_replay_watched_from_a_seat_and_the_end_of_a_game_show_that_seats_view_of_the_last_table():
    # the final table of a replay watched with --seat, and the table a human sees as the game stops, are
    # that seat's view: the whole table named the bot's hand
    from tabletop_envs.core.play import announce_result

    result = play_match("terralore_v0", ["terralore_v0/random"], human_seat=1, seed=5, ask=Script(["q"]),
                        say=lambda s: None)
    env = result.replay.replay()
    own, whole = env.game_state.render_text(1), env.game_state.render_text()
    hidden = whole.split("player_0: castle")[1].split("  hand: ")[1].splitlines()[0]
    assert own != whole and hidden and hidden not in own
    out = []
    watch_replay(result.replay, seat=1, ask=None, say=out.append)
    assert out[-2] == f"\n--- end: final table ---\n{own}"
    out = []
    announce_result(result, env, out.append)
    assert out[1] == own and not any(hidden in line for line in out)


def test_a_replay_of_one_action_says_one_action_in_the_singular(toy):
    result = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1", "q"]), say=lambda s: None)
    assert len(result.replay.actions) == 2
    out = []
    watch_replay(result.replay, ask=None, say=out.append)
    assert "(seed 2, 2 actions," in out[0]
    one = Replay.start(result.replay.make_env(), 2, ["human", "random"])
    env = one.make_env()
    env.reset(seed=2)
    env.step(result.replay.actions[0])
    one.record(result.replay.actions[0])
    one.finish(env)
    out = []
    watch_replay(one, ask=None, say=out.append)
    assert "(seed 2, 1 action, recorded with" in out[0]


def test_an_option_with_no_name_before_the_equals_sign_is_refused():
    import argparse

    from tabletop_envs.cli import _option

    with pytest.raises(argparse.ArgumentTypeError, match="game options look like KEY=VALUE, got '=1'"):
        _option("=1")


@pytest.mark.parametrize(("text", "problem"), [
    ('earth_objectives={"a": 1, "a": 2}', r'game option earth_objectives: an object gives the key "a" twice'),
    ("first_player=1" + "0" * 5000, "game option first_player: it holds an integer of more than 4300 digits"),
    ("decks=" + "[" * 100_000 + "]" * 100_000, "game option decks: its arrays or objects nest too deeply"),
], ids=["key_twice", "huge_int", "deep"])
def test_an_option_value_json_cannot_hold_is_refused_naming_the_option_not_read_or_a_traceback(text, problem):
    # json.loads kept the second of the two keys, and raised ValueError or RecursionError for the others: a traceback
    import argparse

    from tabletop_envs.cli import _option

    with pytest.raises(argparse.ArgumentTypeError, match=f"^{problem}"):
        _option(text)


def test_a_replays_gif_plays_by_default_at_the_frame_rate_every_env_gives_its_videos():
    # README: metadata["render_fps"] is the frame rate a video or GIF gets; --fps only changes it
    from tabletop_envs.cli import build_parser

    default = build_parser().parse_args(["replay", "game.json"]).fps
    for spec in ENVS.values():
        assert default == spec.load_module().raw_env.metadata["render_fps"], spec.env_name


@pytest.mark.parametrize("fps", ["0.01", "100"])
def test_the_gif_frame_rates_at_both_ends_of_the_range_are_taken(fps):
    from tabletop_envs.cli import _frames_per_second

    assert _frames_per_second(fps) == float(fps)


@pytest.mark.parametrize("answers", [["q"], ["q", "y"], ["q", "y", "kept.json"], ["q", "y", "kept.json", "n"],
                                     ["q", "y", "folder"]])  # the last: a name that cannot be written
def test_closing_the_input_at_a_save_question_says_on_a_line_of_its_own_that_the_replay_was_not_saved(
        toy, tmp_path, monkeypatch, answers):
    # found by a user audit: Ctrl-D at "Save the replay?", or at the file name after answering y, ended the
    # command on the prompt's line without a word, as if the replay had been saved
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.json").write_text("{}", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    out = []
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(answers),
                say=out.append) == 0
    assert out[-1] == "\nThe replay was not saved."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "kept.json"]
    assert (tmp_path / "kept.json").read_text(encoding="utf-8") == "{}"


def test_a_gif_name_ending_in_capital_gif_is_taken_and_a_folder_that_is_a_file_is_refused_before_the_replay(toy,
                                                                                                        tmp_path):
    from tabletop_envs.cli import _check_output_file

    _check_output_file(str(tmp_path / "game.GIF"), "--gif", ".gif")
    (tmp_path / "notes.txt").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="there is no folder .*notes.txt.* to write it in"):
        _check_output_file(str(tmp_path / "notes.txt" / "game.gif"), "--gif", ".gif")


def test_a_game_name_with_spaces_around_it_resolves_to_the_newest_registered_version(toy, monkeypatch):
    assert resolve_env_name("  Toy ") == "toy_v0"
    monkeypatch.setitem(ENVS, "toy_v1", EnvSpec("toy_v1", "toy_game", "test/toy-v1", "test/Toy-v1", (2,), "", "toy"))
    assert resolve_env_name("toy") == "toy_v1" and resolve_env_name("toy_v0") == "toy_v0"


def test_a_version_suffix_that_is_no_number_ranks_below_every_numbered_version(toy, monkeypatch):
    # at 0 it tied with toy_v0, and whichever was registered first was taken for the newest
    from tabletop_envs.core import registry
    from tabletop_envs.core.registry import env_version

    assert env_version("toy_vnext") == env_version("toy") == -1 < env_version("toy_v0")
    unnumbered = EnvSpec("toy_vnext", "toy_game", "test/toy-vnext", "test/Toy-vnext", (2,), "", "toy")
    monkeypatch.setattr(registry, "ENVS", {"toy_vnext": unnumbered, **registry.ENVS})
    assert resolve_env_name("toy") == "toy_v0"


def test_the_newest_version_of_a_game_is_found_by_number_not_by_text(toy, monkeypatch):
    # sorted as text, toy_v10 came before toy_v2 and "toy" played the older version
    for v in (2, 10):
        monkeypatch.setitem(ENVS, f"toy_v{v}", EnvSpec(f"toy_v{v}", "toy_game", f"test/toy-v{v}", f"test/Toy-v{v}",
                                                       (2,), "", "toy"))
    assert resolve_env_name("toy") == "toy_v10"


def test_a_replay_piped_into_a_reader_that_stops_after_one_line_ends_quietly(toy, tmp_path):
    # the reader goes away mid-replay: what is still buffered for it must not come back as an error at exit
    import subprocess
    import sys
    from pathlib import Path

    if "earth_v0" not in available_envs():
        pytest.skip("Earth is not in this checkout")
    path = tmp_path / "g.json"
    main(["play", "earth", "--players", "2", "--seed", "3", "--max-turns", "6", "--save", str(path)],
         ask=Script(["1"] * 200), say=[].append)
    assert len(Replay.load(path).actions) > 40  # a whole table per action: more than a pipe holds
    with subprocess.Popen([sys.executable, "-m", "tabletop_envs", "replay", str(path), "--no-pause"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=Path(__file__).resolve().parents[1]) as proc:
        assert proc.stdout.readline().startswith("Replay of earth_v0")
        proc.stdout.close()
        assert proc.wait(timeout=60) == 0 and proc.stderr.read() == ""


def test_a_key_error_from_inside_a_command_is_reported_as_a_line_without_its_quotes(toy, monkeypatch):
    from tabletop_envs.core import replay as replay_module

    def broken(path):
        raise KeyError("the replay names no field 'seed'")

    monkeypatch.setattr(replay_module.Replay, "load", staticmethod(broken))
    out = []
    assert main(["replay", "g.json"], say=out.append) == 2
    assert out[-1] == "error: the replay names no field 'seed'"


def test_an_input_closed_under_the_prompt_is_an_error_not_a_question_asked_forever(toy):
    # only a line that cannot be decoded is asked again: input() on a closed stdin raises ValueError every time
    asked = []

    def closed(prompt):
        asked.append(prompt)
        if len(asked) > 3:
            raise RuntimeError("asked again after the input closed")
        raise ValueError("I/O operation on closed file.")

    with pytest.raises(ValueError, match="closed file"):
        play_match("toy_v0", ["toy_v0/random"], seed=3, ask=closed, say=lambda s: None)


def test_a_save_answer_that_is_neither_yes_nor_no_is_asked_again_not_taken_as_no(toy, tmp_path, monkeypatch):
    # "ye" or "save" at "Save the replay? [y/N]" was a silent no, and the game's replay was lost
    monkeypatch.chdir(tmp_path)
    out = []
    script = Script(["q", "save", "ye", "y", ""])
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=out.append)
    assert script.prompts[1:4] == ["Save the replay? [y/N] "] * 3
    assert "Please answer y or n (not 'save')." in out and (tmp_path / "replay-toy_v0-seed3.json").is_file()
    out = []
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=Script(["q", "N"]), say=out.append)
    assert not (tmp_path / "replay-toy_v0-seed3-2.json").exists() and not any("Please answer" in s for s in out)


def test_a_game_whose_replay_name_is_too_long_for_a_file_is_still_saved_under_another(toy, tmp_path, monkeypatch):
    # --seed of 400 digits: its default replay name is too long for a file, and Path.exists() raised OSError (before
    # Python 3.13) once the game was over, ending the command before the replay was offered: the game was lost. A
    # file name typed that long did the same at the "Replace it?" check.
    monkeypatch.chdir(tmp_path)
    seed = "1" + "0" * 400
    out: list[str] = []
    script = Script(["q", "y", "", "a" * 300 + ".json", "game.json"])
    assert main(["play", "toy", "--opponent", "toy_v0/random", "--seed", seed], ask=script, say=out.append) == 0
    assert sum("Could not save the replay to" in line and "too long" in line for line in out) == 2, out
    saved = Replay.load(tmp_path / "game.json")
    assert saved.seed == int(seed)


def test_an_empty_answer_to_the_save_question_is_the_default_no_asked_once(toy, tmp_path, monkeypatch):
    # [y/N]: Enter alone takes the capital N, as the prompt promises, without a "Please answer" round
    monkeypatch.chdir(tmp_path)
    out = []
    script = Script(["q", ""])
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=out.append)
    assert script.lines == [] and script.prompts.count("Save the replay? [y/N] ") == 1
    assert not any("Please answer" in s for s in out) and list(tmp_path.iterdir()) == []


def test_a_replay_watched_from_a_seat_names_that_seats_moves_and_hides_every_other_seats(toy):
    # the other seat's moves can be cards of its hand: named, they would show a seat what it never saw
    replay = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None).replay
    label = ENVS["toy_v0"].load_module().ToyGame().action_layout.label
    for seat in (0, 1):
        out = []
        watch_replay(replay, seat=seat, ask=None, say=out.append)
        shown = [line for line in out if line.startswith("player_")]
        assert len(shown) == len(replay.actions) == 6
        for line, action, player in zip(shown, replay.actions, [0, 1] * 3):
            move = label(action) if player == seat else "(hidden from your seat)"
            assert line.endswith(f": {move}") and line.startswith(f"player_{player} ")


def test_the_replay_command_offered_on_windows_quotes_a_name_with_a_space_in_double_quotes(monkeypatch):
    # cmd and PowerShell do not read single quotes: 'my game.json' reached the command as two arguments
    from tabletop_envs.core import play

    with monkeypatch.context() as windows:  # undone before the assert: pytest's report makes paths of os.name's kind
        windows.setattr(play.os, "name", "nt")
        quoted = [play.shell_word(name) for name in ("my game.json", "game.json")]
    assert quoted == ['"my game.json"', "game.json"]


def test_exactly_eight_matching_names_are_all_listed_without_an_ellipsis():
    # the ellipsis says that more moves match than are listed: with eight, every one is listed
    names = [f"play {card}" for card in "abcdefgh"]
    action, message = choose_move("play", list(range(8)), names)
    assert action is None and "8. play h" in message and message.endswith("8. play h); be more precise.")


def test_a_game_without_a_seed_gets_one_of_63_bits_that_a_bot_cannot_find_by_trying_seeds(toy):
    # a bot that checks guessed seeds against its generator finds a small one, and with it every hidden card
    seeds = [play_match("toy_v0", ["toy_v0/random"], ask=Script(["q"]), say=lambda s: None).replay.seed
             for _ in range(3)]
    assert max(seeds) >= 2**40  # all three below it: a chance of 2**-69 with 63 bits


def test_ctrl_c_inside_a_move_seals_the_replay_on_the_moves_it_recorded(toy, monkeypatch):
    # the interrupt lands after the engine applied the bot's move and before the move was recorded: the replay
    # sealed on that table would hold a final state its recorded moves do not reach, and fail to verify
    import toy_game

    applied = []
    apply = toy_game.ToyState._apply_action

    def interrupted(self, action):
        apply(self, action)
        applied.append(action)
        if len(applied) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(toy_game.ToyState, "_apply_action", interrupted)
    result = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None)
    assert result.reason == "interrupted" and len(result.replay.actions) == 1
    assert result.replay.replay().game_state.turn == 1  # verified: the digest is of the one recorded move


@pytest.mark.parametrize("answers", [["1"] * 3, ["q"]])
def test_the_window_of_a_game_is_closed_when_the_game_ends_or_is_stopped(monkeypatch, answers):
    spec = EnvSpec("toy_v0", "toy_picture_game", "test/toy-v0", "test/Toy-v0", (2,), "", "toy")
    monkeypatch.setitem(ENVS, "toy_v0", spec)
    from tabletop_envs.core import render

    events = []

    class Viewer:
        def show(self, array):
            events.append("show")

        def close(self):
            events.append("close")

    monkeypatch.setattr(render, "make_viewer", lambda title: Viewer())
    play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(answers), say=lambda s: None, window=True)
    assert events[-1] == "close" and events.count("close") == 1 and "show" in events


def test_a_replay_that_does_not_verify_is_refused_before_any_of_its_tables_is_shown(toy):
    # the tables of a whole game of other moves, then the error, would show positions that never were
    from tabletop_envs.core.errors import ReplayError

    replay = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None).replay
    replay.final_digest = "0" * len(replay.final_digest)
    out = []
    with pytest.raises(ReplayError):
        watch_replay(replay, ask=None, say=out.append)
    assert out == []


def test_a_watched_replay_names_each_seat_by_the_player_recorded_in_it(toy):
    replay = play_match("toy_v0", ["toy_v0/random"], seed=2, ask=Script(["1"] * 3), say=lambda s: None).replay
    out = []
    watch_replay(replay, ask=None, say=out.append)
    assert out[0].endswith("Seats: player_0 = human, player_1 = toy_v0/random")
    assert [line.split(":")[0] for line in out if line.startswith("player_")] == [
        "player_0 (human)", "player_1 (toy_v0/random)"] * 3


def test_the_end_of_a_watched_earth_replay_names_every_players_vp_as_well_as_the_returns():
    # Earth's returns rank the table (+1 … -1): the VP that decided them are named, as at the end of a game
    result = play_match("earth_v0", ["earth_v0/random"], seed=3, ask=Script(["1"] * 400), say=lambda s: None)
    assert result.reason == "terminated"
    env = result.replay.replay()
    out = []
    watch_replay(result.replay, ask=None, say=out.append)
    points = env.game_state.final_points()
    assert out[-3].startswith("Returns: ") and out[-2] == points and points.startswith("VP: player_0: ")


def test_too_few_opponents_at_a_table_of_three_or_more_says_how_many_it_takes():
    # one opponent fills every other seat; two at a table of four left the last seat to no one
    out = []
    args = ["play", "earth", "--players", "4"] + ["--opponent", "earth_v0/random"] * 2
    assert main(args, ask=Script([]), say=out.append) == 2
    assert "earth_v0 with 4 players needs 3 opponents, got 2" in out[-1]


def test_another_name_typed_after_declining_a_replacement_is_asked_about_too_when_it_exists(toy, tmp_path,
                                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("first.json", "second.json"):
        (tmp_path / name).write_text("{}", encoding="utf-8")
    script = Script(["q", "y", "first.json", "n", "second.json", "n", "third.json"])
    main(["play", "toy", "--opponent", "toy_v0/random", "--seed", "3"], ask=script, say=[].append)
    assert "second.json exists. Replace it? [y/N] " in script.prompts
    kept = [(tmp_path / name).read_text(encoding="utf-8") for name in ("first.json", "second.json")]
    assert kept == ["{}", "{}"]
    assert Replay.load(tmp_path / "third.json").seed == 3


class Signalled(Script):
    """A player whose terminal sends ``sig`` (a SIGTERM, or the SIGHUP of a terminal that closed) at the question where
    the line is ``"<signal>"``: raised in this process only where the command handles it (else it would end pytest)."""

    def __init__(self, lines, sig):
        super().__init__(lines)
        self.sig = sig

    def __call__(self, prompt):
        if self.lines and self.lines[0] == "<signal>":
            self.lines.pop(0)
            raise_handled(self.sig)
        return super().__call__(prompt)


def raise_handled(sig) -> None:
    import signal

    assert signal.getsignal(sig) not in (signal.SIG_DFL, signal.SIG_IGN), "the game does not handle it"
    signal.raise_signal(sig)


def stop_signal(name: str):
    import signal

    if not hasattr(signal, name):
        pytest.skip(f"no {name} here")
    return getattr(signal, name)


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_sigterm_or_a_terminal_that_closes_stops_the_game_as_ctrl_c_does_and_save_still_saves_it(
        toy, tmp_path, name):
    # either ended the command on the spot: a game played with --save lost its replay, where Ctrl-C kept it
    import signal

    sig = stop_signal(name)
    before = signal.getsignal(sig)
    path = tmp_path / "s.json"
    out = []
    code = main(["play", "toy", "--seed", "2", "--opponent", "toy_v0/random", "--save", str(path)],
                ask=Signalled(["1", "<signal>"], sig), say=out.append)
    text = "\n".join(out)
    assert code == 0 and f"{name}: the game was stopped." in text and "Game stopped before the end" in text
    replay = Replay.load(path)
    assert len(replay.actions) == 2 and replay.returns is None
    replay.replay()
    assert signal.getsignal(sig) == before  # put back


def test_after_a_sigterm_no_question_waits_and_the_replay_is_not_saved_unasked(toy, tmp_path, monkeypatch):
    # a question after a SIGTERM (a shutdown) waited for an answer no one would give
    sig = stop_signal("SIGTERM")
    monkeypatch.chdir(tmp_path)
    script = Signalled(["1", "<signal>", "y", "kept.json"], sig)
    out = []
    code = main(["play", "toy", "--seed", "2", "--opponent", "toy_v0/random"], ask=script, say=out.append)
    assert code == 0 and not any("Save the replay" in p for p in script.prompts)
    assert out[-1] == "The replay was not saved (SIGTERM: no one is asked now; --save FILE saves a game without asking)."
    assert list(tmp_path.iterdir()) == []


def test_a_terminal_that_closes_at_the_end_of_the_input_still_saves_the_game(toy, tmp_path, monkeypatch):
    # a terminal that closes ends the input first, and its SIGHUP (two, from the shell and the kernel) came while the
    # stopped game was announced: it ended the command there, before --save saved the game
    import tabletop_envs.core.play as play

    sig = stop_signal("SIGHUP")
    announce = play.announce_result

    def hung_up(*args, **kwargs):
        raise_handled(sig)
        raise_handled(sig)
        return announce(*args, **kwargs)

    monkeypatch.setattr(play, "announce_result", hung_up)
    path = tmp_path / "h.json"
    out = []
    code = main(["play", "toy", "--seed", "2", "--opponent", "toy_v0/random", "--save", str(path)],
                ask=Script(["1"]), say=out.append)
    assert code == 0 and "\nInput closed: the game was stopped." in out
    assert len(Replay.load(path).actions) == 2


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGHUP"), reason="POSIX signals")
def test_an_ssh_session_that_drops_during_a_game_keeps_its_replay_end_to_end(tmp_path):
    # the command itself: its input ends, its output's reader is gone, and SIGHUP comes twice
    import os
    import select
    import signal
    import subprocess
    import sys
    import time

    from processes import stop_signals_at_their_defaults

    path = tmp_path / "ssh.json"
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_envs", "play", "terralore", "--seed", "1",
                             "--save", str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1],
                            preexec_fn=stop_signals_at_their_defaults)
    try:
        said, prompts, deadline = b"", 0, time.monotonic() + 60
        while prompts < 2 and time.monotonic() < deadline:  # two moves made, the third asked for
            if select.select([proc.stdout], [], [], 1)[0]:
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                said += chunk
                if said.rstrip().endswith(b">"):
                    prompts += 1
                    said = b""
                    if prompts < 2:
                        proc.stdin.write(b"1\n")
                        proc.stdin.flush()
        assert prompts == 2, said
        proc.stdout.close()  # the terminal is gone
        proc.stdin.close()
        proc.send_signal(signal.SIGHUP)
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    assert len(Replay.load(path).actions) >= 1


def test_a_sigterm_during_a_bots_move_stops_the_game_at_the_next_question_without_waiting(toy, tmp_path, monkeypatch):
    # the signal comes between two questions: the next one must not wait for an answer no one will give
    import tabletop_envs.core.play as play

    sig = stop_signal("SIGTERM")
    bot_move = play._bot_move

    def signalled_bot_move(*args, **kwargs):
        raise_handled(sig)
        return bot_move(*args, **kwargs)

    monkeypatch.setattr(play, "_bot_move", signalled_bot_move)
    path = tmp_path / "b.json"
    script, out = Script(["1", "1", "1"]), []
    code = main(["play", "toy", "--seed", "2", "--opponent", "toy_v0/random", "--save", str(path)],
                ask=script, say=out.append)
    assert code == 0 and len(script.prompts) == 1 and "\nSIGTERM: the game was stopped." in out
    assert len(Replay.load(path).actions) == 2


def test_a_sigterm_that_comes_as_a_question_is_put_stops_it_without_waiting():
    # the signal lands right after the question read that none had come: the question then waited for an answer
    from tabletop_envs.cli import StopAtQuestions
    from tabletop_envs.core.errors import StopSignal, stop_signals_as_interrupt

    sig = stop_signal("SIGTERM")

    class SignalAfterTheRead(StopAtQuestions):
        armed = False

        @property
        def signum(self):
            value = self._signum
            if self.armed:
                self.armed = False
                raise_handled(sig)
            return value

        @signum.setter
        def signum(self, value):
            self._signum = value

    answered = []
    stop = SignalAfterTheRead(lambda prompt: answered.append(prompt) or "1")
    with stop_signals_as_interrupt(stop.signalled):
        stop.armed = True
        with pytest.raises(StopSignal):
            stop("Your move: ")
    assert answered == [] and stop.signum == sig
