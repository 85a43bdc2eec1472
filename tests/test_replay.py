"""Replays: JSON round trip reproduces every state; other env versions and edited files are refused."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import option_sets
import pytest

from tabletop_envs.cli import main
from tabletop_envs.core import replay as replay_module
from tabletop_envs.core.errors import ReplayError
from tabletop_envs.core.policy import load_policy, policy_rng
from tabletop_envs.core.registry import ENVS, EnvSpec, available_envs
from tabletop_envs.core.replay import Replay, code_revision, git_revision, state_digest


def record_random_game(env_name, seed, game_kwargs=None, max_steps=10_000):
    """Bot-vs-bot game recorded as a replay; returns the replay, the digests after each action and the env."""
    env = ENVS[env_name].load_module().raw_env(**(game_kwargs or {}))
    replay = Replay.start(env, seed, ["random"] * env.game.num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    digests = []
    for _ in range(max_steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        action = int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"])))
        env.step(action)
        replay.record(action)
        digests.append(state_digest(env.game_state))
    replay.finish(env)
    return replay, digests, env


def test_replay_round_trip_reproduces_every_state(toy, tmp_path):
    replay, digests, env = record_random_game("toy_v0", seed=4)
    loaded = Replay.load(replay.save(tmp_path / "g.json"))
    assert loaded == replay
    again = loaded.make_env()
    replayed = []
    for _ in loaded.steps(again):
        pass
    assert again.game_state == env.game_state
    # every intermediate state, not only the last one
    fresh = loaded.make_env()
    for action in loaded.actions:
        fresh.step(action)
        replayed.append(state_digest(fresh.game_state))
    assert replayed == digests


@pytest.mark.parametrize("env_name", ["toy_v0", "terralore_v0"])
def test_the_digest_of_a_state_is_the_same_after_a_clone_or_a_json_round_trip(toy, env_name):
    # equal digests <=> equal states: a state saved and loaded again (its fields in another order) is the same
    from tabletop_envs.core.engine import check_json_roundtrip

    _, digests, env = record_random_game(env_name, seed=2, max_steps=12)
    state = env.game_state
    assert state_digest(state) == digests[-1]
    assert state_digest(check_json_roundtrip(state)) == digests[-1]
    assert state_digest(state.clone()) == digests[-1]
    assert len(set(digests)) == len(digests)  # and every position differs from the ones before it


def test_replay_file_is_plain_json_with_version_seed_and_actions(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=9)
    data = json.loads(replay.save(tmp_path / "g.json").read_text(encoding="utf-8"))
    assert data["env"] == "toy_v0" and data["seed"] == 9 and data["config"] == {"turns": 6}
    assert data["library_version"] and data["format"] == 1 and len(data["final_digest"]) == 64
    assert data["returns"] is not None and len(data["actions"]) == 6


def test_replay_from_another_env_version_is_refused(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=1)
    replay.env = "toy_v1"  # recorded by a newer library than this one
    with pytest.raises(ReplayError, match=r"recorded with toy_v1 .* provides toy_v0.*Install tabletop-envs=="):
        Replay.load(replay.save(tmp_path / "v1.json")).replay()


def test_replay_of_an_env_this_library_has_no_version_of_is_refused_naming_the_known_envs(toy):
    replay, _, _ = record_random_game("toy_v0", seed=1)
    replay.env = "chess_v0"
    with pytest.raises(ReplayError, match=r"replay of unknown env 'chess_v0'; known envs: \[.*'toy_v0'"):
        replay.replay()


def test_steps_of_a_replay_on_another_games_env_are_refused_naming_both(toy):
    replay, _, _ = record_random_game("toy_v0", seed=1)
    steps = replay.steps(ENVS["terralore_v0"].load_module().raw_env())
    with pytest.raises(ReplayError, match="this replay is of toy_v0, and the env given to replay it on is "
                                          "terralore_v0"):
        next(steps)
    assert [action for _, _, action in replay.steps()] == replay.actions  # a fresh env of its own plays it


def test_replay_with_a_changed_action_layout_is_refused(toy):
    replay, _, _ = record_random_game("toy_v0", seed=1)
    replay.action_layout_hash = "0" * 16
    with pytest.raises(ReplayError, match="action layout .* differs"):
        replay.replay()


def test_edited_replay_is_refused(toy):
    replay, _, _ = record_random_game("toy_v0", seed=2)
    edited = Replay.from_json(replay.to_json())
    edited.final_digest = "f" * 64
    with pytest.raises(ReplayError, match="final state differs"):
        edited.replay()
    illegal = Replay.from_json(replay.to_json())
    illegal.actions[0] = 99
    with pytest.raises(ReplayError, match="action #1 \\(99\\) is illegal"):  # numbered as the viewer shows them
        illegal.replay()
    too_long = Replay.from_json(replay.to_json())
    too_long.actions.append(10)
    with pytest.raises(ReplayError, match=f"after the game ended \\(from action #{len(too_long.actions)} of "):
        too_long.replay()


def test_a_replay_whose_recorded_result_was_edited_is_refused(toy):
    # the final state is untouched, so the digest alone would vouch for returns it does not hold
    replay, _, env = record_random_game("toy_v0", seed=2)
    assert env.game_state.is_terminal()
    edited = Replay.from_json(replay.to_json())
    edited.returns = [-r for r in replay.returns]
    with pytest.raises(ReplayError, match="returns"):
        edited.replay()
    unfinished = Replay.from_json(replay.to_json())
    unfinished.returns = None
    with pytest.raises(ReplayError, match="returns"):
        unfinished.replay()


def test_an_unfinished_replay_is_not_saved_since_it_could_not_be_verified(toy, tmp_path):
    import toy_game

    env = toy_game.raw_env()
    replay = Replay.start(env, 3)
    env.reset(seed=3)
    action = env.game_state.legal_actions()[0]
    env.step(action)
    replay.record(action)
    with pytest.raises(ReplayError, match=r"replay not finished: call finish\(env\) before saving"):
        replay.save(tmp_path / "g.json")
    assert not (tmp_path / "g.json").exists()
    replay.finish(env)
    assert Replay.load(replay.save(tmp_path / "g.json")).actions == [action]


def test_a_replay_saved_over_an_earlier_one_on_a_full_disk_keeps_the_earlier_one(toy, tmp_path, monkeypatch):
    # written in place, the earlier replay was emptied first: a failed save under its name (playing the same seed
    # again offers the same default name) lost both games
    from full_disk import text_writes_fill_the_disk

    earlier, _, _ = record_random_game("toy_v0", seed=4)
    path = earlier.save(tmp_path / "g.json")
    later, _, _ = record_random_game("toy_v0", seed=5)
    with monkeypatch.context() as patched, pytest.raises(OSError, match="No space left"):
        text_writes_fill_the_disk(patched)
        later.save(path)
    assert Replay.load(path).seed == 4
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


def test_two_saves_of_one_name_at_once_each_write_a_whole_file_and_the_last_to_finish_stays(tmp_path):
    # the same seed played in two terminals (or a server's threads) offers the same default name: the saves
    # shared one fixed "<name>.part", the first moved the second's half-written text into place and the
    # second then failed on a FileNotFoundError
    from tabletop_envs.core.files import write_text_whole, written_beside

    path = tmp_path / "g.json"
    with written_beside(path) as (part,):
        part.write_text("first" * 1000, encoding="utf-8")
        write_text_whole(path, "second")  # the other save, begun and ended meanwhile
        assert path.read_text(encoding="utf-8") == "second"
    assert path.read_text(encoding="utf-8") == "first" * 1000
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_a_save_to_a_symbolic_link_writes_the_file_it_leads_to_and_keeps_the_link(tmp_path):
    # as open() and a shell's > do: the part moved onto the link replaced it with a plain file, and the file it
    # led to (a results folder shared between runs) kept its old text
    from tabletop_envs.core.files import write_text_whole, written_beside

    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "results.json").write_text("old", encoding="utf-8")
    link, chain, dangling = tmp_path / "results.json", tmp_path / "chain.json", tmp_path / "new.json"
    link.symlink_to(shared / "results.json")
    chain.symlink_to(link)
    dangling.symlink_to(shared / "new.json")
    write_text_whole(link, "first")
    assert link.is_symlink() and (shared / "results.json").read_text(encoding="utf-8") == "first"
    write_text_whole(chain, "second")
    assert chain.is_symlink() and link.is_symlink() and (shared / "results.json").read_text(encoding="utf-8") == "second"
    with written_beside(dangling, tmp_path / "plain.json", marker_last=True) as parts:
        for part in parts:
            part.write_text("third", encoding="utf-8")
    assert dangling.is_symlink() and (shared / "new.json").read_text(encoding="utf-8") == "third"
    assert (tmp_path / "plain.json").read_text(encoding="utf-8") == "third"
    assert sorted(p.name for p in shared.iterdir()) == ["new.json", "results.json"]  # no part left


def test_a_write_cut_off_between_its_moves_has_already_removed_the_marker_that_the_others_are_whole(tmp_path,
                                                                                                   monkeypatch):
    # a checkpoint's state.json marks its model and pool whole: cut off after the new model was moved in, an old
    # marker left in place would vouch for a new model beside an old pool
    from pathlib import Path

    from tabletop_envs.core.files import written_beside

    model, pool, marker = tmp_path / "model.zip", tmp_path / "pool.pkl", tmp_path / "state.json"
    for path in (model, pool, marker):
        path.write_text("old", encoding="utf-8")
    replace, moved = Path.replace, []

    def cut_off_at_the_second_move(self, target):
        moved.append(self)
        if len(moved) == 2:
            raise OSError("killed between the moves")
        return replace(self, target)

    monkeypatch.setattr(Path, "replace", cut_off_at_the_second_move)
    with pytest.raises(OSError, match="killed between the moves"), \
            written_beside(model, pool, marker, marker_last=True) as parts:
        for part in parts:
            part.write_text("new", encoding="utf-8")
    assert model.read_text(encoding="utf-8") == "new" and pool.read_text(encoding="utf-8") == "old"
    assert not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.zip", "pool.pkl"]  # no part left


@pytest.mark.skipif(os.name == "nt", reason="a killed write's part stays on Windows, where no process is asked after")
def test_a_part_a_killed_write_left_is_removed_by_the_next_write_of_its_name_once_untouched_for_minutes(tmp_path):
    # each write's part has a name of its own, so a write killed inside its block (the out-of-memory killer
    # in the middle of a checkpoint) left a torn copy beside the file that no later write replaced
    import signal
    import sys
    import time

    from tabletop_envs.core import files

    path = tmp_path / "model.zip"
    killed = subprocess.run([sys.executable, "-c", (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from tabletop_envs.core.files import written_beside\n"
        "with written_beside(Path(sys.argv[1])) as (part,):\n"
        "    part.write_bytes(b'torn' * 1000)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"), str(path)], capture_output=True)
    assert killed.returncode == -signal.SIGKILL
    (left,) = tmp_path.glob("model.zip.*.part")
    dead = int(re.fullmatch(rf"model\.zip\.{files._HOST}-(\d+)-\d+\.part", left.name).group(1))
    fresh = path.with_name(f"model.zip.{files._HOST}-{dead}-1.part")  # another dead write's, touched just now
    kept = [path.with_name(f"model.zip.{files._HOST}-{os.getpid()}-999.part"),  # a live process's: this one's
            path.with_name(f"model.zip.another_machine-{dead}-0.part"),  # one of another machine's
            path.with_name(f"pool.pkl.{files._HOST}-{dead}-0.part")]  # another file's
    old = time.time() - files.STALE_PART_SECONDS - 60
    for part in [left, *kept]:
        if not part.exists():
            part.write_bytes(b"torn")
        os.utime(part, (old, old))
    fresh.write_bytes(b"torn")
    kept.append(fresh)
    files.write_text_whole(path, "whole")
    assert path.read_text(encoding="utf-8") == "whole"
    assert not left.exists() and all(part.exists() for part in kept)


@pytest.mark.skipif(os.name == "nt", reason="a killed write's part stays on Windows, where no process is asked after")
def test_a_stale_part_of_another_users_process_is_kept_and_one_of_a_number_no_process_has_is_removed(tmp_path,
                                                                                                     monkeypatch):
    # os.kill(pid, 0) says PermissionError for a running process of another user (root's, a service's): its
    # write may be under way. A number beyond pid_t (OverflowError) is no process: its part is torn for good
    import time

    from tabletop_envs.core import files

    path = tmp_path / "model.zip"
    others, beyond = 4_000_001, 2**40
    other_users = path.with_name(f"model.zip.{files._HOST}-{others}-0.part")
    no_process = path.with_name(f"model.zip.{files._HOST}-{beyond}-0.part")
    old = time.time() - files.STALE_PART_SECONDS - 60
    for part in (other_users, no_process):
        part.write_bytes(b"torn")
        os.utime(part, (old, old))
    kill = os.kill

    def another_users(pid, signal):
        if pid == others:
            raise PermissionError(1, "Operation not permitted")
        return kill(pid, signal)

    monkeypatch.setattr(files.os, "kill", another_users)
    files.write_text_whole(path, "whole")
    assert other_users.exists() and not no_process.exists()


@pytest.mark.skipif(os.name == "nt", reason="a killed write's part stays on Windows, where no process is asked after")
def test_a_folder_named_as_a_dead_writes_part_is_left_alone_and_the_write_goes_on(tmp_path):
    # unlink() cannot remove it (IsADirectoryError): the clean-up of dead writes' parts must not end the write
    import time

    from tabletop_envs.core import files

    path = tmp_path / "model.zip"
    folder = path.with_name(f"model.zip.{files._HOST}-{2**40}-0.part")  # of a number no process has
    folder.mkdir()
    old = time.time() - files.STALE_PART_SECONDS - 60
    os.utime(folder, (old, old))
    files.write_text_whole(path, "whole")
    assert path.read_text(encoding="utf-8") == "whole" and folder.is_dir()


@pytest.mark.parametrize("seed", [None, 1.5, True, "3", -1])
def test_a_replay_is_started_only_with_the_seed_an_env_deals_from(toy, seed):
    # int() recorded 1.5 and True as seed 1 and "3" as 3: a replay of another deal than the game's
    env = ENVS["toy_v0"].load_module().raw_env()
    with pytest.raises(ReplayError, match=f"non-negative int; got {re.escape(repr(seed))}"):
        Replay.start(env, seed)
    assert Replay.start(env, np.int64(3)).seed == 3 and type(Replay.start(env, np.int64(3)).seed) is int


def test_a_replay_of_another_file_format_is_refused_naming_the_library_version_that_reads_it(toy):
    replay, _, _ = record_random_game("toy_v0", seed=1)
    data = json.loads(replay.to_json())
    data.update(format=2, library_version="9.9.9")
    with pytest.raises(ReplayError, match="replay format 2; this library reads format 1. Use tabletop-envs 9.9.9"):
        Replay.from_json(json.dumps(data))
    data["format"] = 1
    assert Replay.from_json(json.dumps(data)).actions == replay.actions


@pytest.mark.parametrize("value", [True, 1.0, False, "1", None])
def test_a_replay_format_that_is_no_integer_is_refused_as_an_edit_though_python_reads_true_and_1_0_as_1(toy, value):
    # true == 1 and 1.0 == 1 in Python: such a file loaded as format 1
    replay, _, _ = record_random_game("toy_v0", seed=1)
    data = json.loads(replay.to_json())
    data["format"] = value
    with pytest.raises(ReplayError, match=re.escape(f"'format' must be the number 1, got {value!r}; the file was edited")):
        Replay.from_json(json.dumps(data))


@pytest.mark.parametrize("field, value, problem", [
    ("max_turns", 0, "'max_turns' must be a positive integer, got 0"),
    ("max_turns", -3, "'max_turns' must be a positive integer, got -3"),
    ("max_turns", True, "'max_turns' must be a positive integer, got True"),
    ("library_version", ["0.2.0"], "'library_version' must be a version (a string), got ['0.2.0']"),
    ("created", 20240101, "'created' must be a date (a string), got 20240101"),
])
def test_a_replay_field_of_the_wrong_kind_is_refused_on_load_naming_the_field(toy, field, value, problem):
    # a turn limit below 1 was refused only by the env, as the replay's rule options ('config'), which it is
    # not; a version or date that is no text loaded and was printed as it was
    replay, _, _ = record_random_game("toy_v0", seed=1)
    data = json.loads(replay.to_json())
    data[field] = value
    with pytest.raises(ReplayError, match=re.escape(problem)):
        Replay.from_json(json.dumps(data))


@pytest.mark.parametrize("text, problem", [("{nope", "not valid JSON"), ("[1, 2]", "JSON object"),
                                           ('{"env": "toy_v0"}', "lacks the fields")])
def test_malformed_replay_files_are_refused(tmp_path, text, problem):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReplayError, match=problem):
        Replay.load(path)
    with pytest.raises(ReplayError, match="no replay file"):
        Replay.load(tmp_path / "missing.json")


def test_cli_replay_steps_through_and_verifies(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=6)
    path = replay.save(tmp_path / "g.json")
    out = []
    presses = []
    assert main(["replay", str(path)], ask=lambda p: presses.append(p) or "", say=out.append) == 0
    text = "\n".join(out)
    assert len(presses) == 6 and "action 6/6" in text and "Replay verified" in text
    out.clear()
    assert main(["replay", str(path), "--seat", "0", "--no-pause"], ask=None, say=out.append) == 0
    text = "\n".join(out)
    assert "(hidden from your seat)" in text and "player_0 (random): " in text


def test_cli_replay_that_plays_out_otherwise_is_refused_before_any_position_is_shown(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=6)
    replay.final_digest = "f" * 64  # every action legal: only the end of the game can tell
    path = replay.save(tmp_path / "g.json")
    out, presses = [], []
    assert main(["replay", str(path)], ask=lambda p: presses.append(p) or "", say=out.append) == 2
    assert "final state differs from the recorded one" in out[-1]
    assert not presses and not any("--- action" in line for line in out), out


def test_ctrl_c_while_watching_a_replay_stops_it_with_status_130(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=6)
    path = replay.save(tmp_path / "g.json")

    def ctrl_c(prompt):
        raise KeyboardInterrupt

    out = []
    assert main(["replay", str(path)], ask=ctrl_c, say=out.append) == 130
    assert out[-1] == "\ninterrupted" and not any("Replay verified" in line for line in out)


@pytest.mark.parametrize("bad", [10**9, -1])
def test_cli_replay_with_an_action_id_out_of_range_prints_the_reason(toy, tmp_path, bad):
    replay, _, _ = record_random_game("toy_v0", seed=6)
    replay.actions[1] = bad
    replay.revision = "abc1234"  # another commit than this checkout's, whose own replays say only "edited"
    out = []
    assert main(["replay", str(replay.save(tmp_path / "g.json")), "--no-pause"], say=out.append) == 2
    assert out[-1].startswith(f"error: action #2 ({bad}) is illegal in the replayed game")  # the viewer's action 2
    assert "illegal_action=" not in out[-1]  # advice to build an env with a penalty is no help to a replay
    assert "The file was edited, or its seed, options or actions belong to another game, or it was recorded" in out[-1]
    assert not any("action 2/" in line for line in out), "the bad action must not be shown as played"


def test_cli_replay_of_another_version_prints_the_reason(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=6)
    replay.env = "toy_v3"
    out = []
    assert main(["replay", str(replay.save(tmp_path / "g.json"))], say=out.append) == 2
    assert out[-1].startswith("error: this replay was recorded with toy_v3")


@pytest.mark.parametrize(("env_name", "kwargs"), [
    *[(name, {"num_players": 3} if len(ENVS[name].player_counts) > 1 else {}) for name in available_envs()],
    *option_sets.ALL_AT_ONCE.items()])
def test_replay_round_trip_for_every_shipped_game(env_name, kwargs, tmp_path):
    replay, digests, env = record_random_game(env_name, seed=5, game_kwargs=kwargs)
    loaded = Replay.load(replay.save(tmp_path / "g.json"))
    assert loaded.replay().game_state == env.game_state
    assert loaded.config == env.game.config()
    # the rule options travel with the replay, as JSON writes them (a tuple deck is a list there)
    assert {k: loaded.make_env().game.config()[k] for k in kwargs} == json.loads(json.dumps(kwargs))


@pytest.fixture()
def toy_picture(monkeypatch):
    """tests/toy_picture_game.py, the toy game with pictures, registered as env ``toy_v0``."""
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_picture_game", "test/toy-v0", "test/Toy-v0", (2,),
                                                "", "toy"))
    return "toy_v0"


def test_cli_replay_writes_a_gif_of_every_position(toy_picture, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=3)
    out = []
    gif = tmp_path / "g.gif"
    assert main(["replay", str(replay.save(tmp_path / "g.json")), "--no-pause", "--gif", str(gif), "--seat", "1"],
                say=out.append) == 0
    from PIL import Image

    with Image.open(gif) as picture:
        assert picture.n_frames == len(replay.actions) + 1 and picture.size == (480, 320)


def test_cli_replay_writes_the_gif_at_the_frame_rate_of_fps(toy_picture, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=3)
    gif = tmp_path / "g.gif"
    assert main(["replay", str(replay.save(tmp_path / "g.json")), "--no-pause", "--gif", str(gif), "--fps", "4"],
                say=[].append) == 0
    from PIL import Image

    with Image.open(gif) as picture:
        assert picture.info["duration"] == 250  # ms per frame: 4 frames a second, not the default 2


def test_cli_replay_in_a_window(toy_picture, monkeypatch, tmp_path):
    from tabletop_envs.core import render

    shown = []
    monkeypatch.setattr(render.PygameViewer, "show", lambda self, array: shown.append(array.shape))
    replay, _, _ = record_random_game("toy_v0", seed=3)
    out = []
    assert main(["replay", str(replay.save(tmp_path / "g.json")), "--no-pause", "--window"], say=out.append) == 0
    assert len(shown) >= len(replay.actions) + 1 and set(shown) == {(320, 480, 3)}
    assert "Replay verified" in out[-1]


@pytest.mark.parametrize("key, value", [("seed", "abc"), ("seed", -7), ("config", ["x"]), ("max_turns", None), ("env", 3),
                                        ("final_digest", None), ("action_layout_hash", 5), ("returns", "x"),
                                        ("returns", [1, "a"]), ("players", "x"), ("players", [1, 2]),
                                        ("actions", [True, 0]), ("revision", 5),
                                        # true and false equal 1 and 0, so a game's returns of [1, 0] verified
                                        ("returns", [True, False])])
def test_a_replay_field_of_the_wrong_type_is_refused_by_name(toy, key, value):
    replay, _, _ = record_random_game("toy_v0", seed=2)
    data = json.loads(replay.to_json())
    data[key] = value
    with pytest.raises(ReplayError, match=f"'{key}' must be"):
        Replay.from_json(json.dumps(data))


def test_a_replay_file_that_is_not_utf8_is_refused_naming_the_file(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=2)
    path = tmp_path / "g.json"
    path.write_bytes(b"\xff" + replay.to_json().encode())
    with pytest.raises(ReplayError, match=r"g\.json is not UTF-8 text"):
        Replay.load(path)


def test_a_replay_file_with_a_byte_order_mark_loads(toy, tmp_path):
    # Windows Notepad saves UTF-8 with a byte-order mark; it was refused with "decode using utf-8-sig"
    replay, _, _ = record_random_game("toy_v0", seed=2)
    path = tmp_path / "g.json"
    path.write_bytes(b"\xef\xbb\xbf" + replay.to_json().encode())
    assert Replay.load(path) == replay


def test_a_replay_holding_another_games_rule_options_is_refused_as_the_files_fault():
    # a Travel Earth replay relabelled earth_v0 got the env's own error, which blamed the reader's arguments
    replay, _, _ = record_random_game("travel_earth_v0", seed=2)
    data = json.loads(replay.to_json())
    data["env"] = "earth_v0"
    with pytest.raises(ReplayError, match=r"rule options \(its 'config'\) do not fit earth_v0.*no option deck_format"
                                          r".*the file was edited, or holds another game's replay"):
        Replay.from_json(json.dumps(data)).make_env()


@pytest.mark.parametrize("text, problem", [("[" * 100_000 + "]" * 100_000, "nest too deeply"),
                                           ('{"seed": ' + "1" * 5000 + "}", "an integer of more than")], ids=["deep", "huge-int"])
def test_a_replay_file_too_deep_or_with_a_huge_number_is_refused_naming_the_file(tmp_path, text, problem):
    """json.loads met these as RecursionError and a ValueError advising to raise Python's digit limit: a
    traceback (from tabletop-envs replay too) naming no file."""
    path = tmp_path / "g.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReplayError, match=rf"g\.json is not valid JSON \(.*{problem}.*tabletop-envs play"):
        Replay.load(path)


def test_a_replay_file_far_larger_than_any_replay_is_refused_before_it_is_read_whole(toy, tmp_path, monkeypatch):
    """A 120 MB replay took 27 s and 630 MB before its third action was found illegal; a link to /dev/zero
    was read for ever."""
    from tabletop_envs.core import files

    replay, _, _ = record_random_game("toy_v0", seed=2)
    path = tmp_path / "g.json"
    path.write_text(replay.to_json(), encoding="utf-8")
    monkeypatch.setattr(files, "MAX_JSON_BYTES", path.stat().st_size - 1)
    with pytest.raises(ReplayError, match=r"g\.json is not a replay: it holds over [\d,]+ bytes, far more than any "
                                          r"replay.*tabletop-envs play"):
        Replay.load(path)


def test_a_replay_file_of_exactly_the_most_bytes_a_json_file_may_hold_loads(toy, tmp_path, monkeypatch):
    # the limit is what a file may hold: one of that size is no larger than allowed
    from tabletop_envs.core import files

    replay, _, _ = record_random_game("toy_v0", seed=2)
    path = tmp_path / "g.json"
    path.write_text(replay.to_json(), encoding="utf-8")
    monkeypatch.setattr(files, "MAX_JSON_BYTES", path.stat().st_size)
    assert Replay.load(path) == replay


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_a_replay_path_linked_to_a_device_is_refused_as_no_regular_file_not_as_missing(tmp_path):
    # it was refused, with "no replay file at", which sent the user looking for a file that is there
    path = tmp_path / "g.json"
    path.symlink_to("/dev/zero")
    with pytest.raises(ReplayError, match=r"g\.json is not a replay: it is no regular file \(a pipe, a device"):
        Replay.load(path)
    with pytest.raises(ReplayError, match="no replay file at .*missing.json"):
        Replay.load(tmp_path / "missing.json")


@pytest.mark.parametrize("text, control", [("\x1b]0;title\x07\x1b[2J", "\x1b"), ("\x7f\x7f\x7f", "\x7f"),
                                           ("\x9b2J\x9b0;0H", "\x9b")], ids=["esc", "del", "c1"])
@pytest.mark.parametrize("key", ["players", "revision", "action_layout_hash", "library_version"])
def test_a_replay_whose_shown_text_holds_terminal_control_characters_is_refused(toy, tmp_path, key, text, control):
    """tabletop-envs replay printed the seats as the file wrote them: an escape sequence there set the
    terminal's title and cleared its screen, written by whoever made the file. DEL and the C1 characters
    (\\x9b, the one-character ESC [) are control characters too."""
    replay, _, _ = record_random_game("toy_v0", seed=2)
    data = json.loads(replay.to_json())
    data[key] = [text + "bot", "random"] if key == "players" else text + str(data[key])
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    said = []
    assert main(["replay", str(path), "--no-pause"], say=said.append) == 2
    assert control not in "".join(said)
    assert re.search(rf"error: \S*g\.json: '{key}' holds control characters \('{re.escape(repr(control)[1:-1])}.*edited",
                     said[-1])


def test_a_replay_whose_seats_carry_no_break_spaces_or_emoji_sequences_plays(toy, tmp_path):
    replay, _, _ = record_random_game("toy_v0", seed=2)
    data = json.loads(replay.to_json())
    data["players"] = ["Ana\u00a0B.", "\U0001F469\u200d\U0001F4BB bot"]
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    said = []
    assert main(["replay", str(path), "--no-pause"], say=said.append) == 0
    assert any("Ana\u00a0B." in line for line in said)


@pytest.mark.parametrize("players", [["random"], ["random", "random", "random"]])
def test_a_replay_naming_another_number_of_seats_than_its_game_has_is_refused_by_name(toy, tmp_path, players):
    # a seat without a name was shown as "?", and a name past the last seat was never shown: an edited file
    replay, _, _ = record_random_game("toy_v0", seed=2)
    data = json.loads(replay.to_json())
    data["players"] = players
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    said = []
    assert main(["replay", str(path), "--no-pause"], say=said.append) == 2
    assert said == [f"error: 'players' names {len(players)} seat{'s' * (len(players) > 1)} ({players!r}), and this "
                    "toy_v0 game has 2: list one name per seat in seat order, or none ([]); the file was edited or is "
                    "not a tabletop-envs replay"]
    with pytest.raises(ReplayError, match="'players' names"):
        Replay.load(path).steps(replay.make_env()).__next__()  # on an env of its own too, not only make_env's


def test_a_replay_naming_no_seat_plays_with_unnamed_seats(toy, tmp_path):
    # Replay.start(env, seed) records no names (docs/play.md): such a file is no edit
    replay, _, _ = record_random_game("toy_v0", seed=2)
    replay.players = []
    said = []
    assert main(["replay", str(replay.save(tmp_path / "g.json")), "--no-pause"], say=said.append) == 0
    assert "player_0 = ?, player_1 = ?" in said[0]


def test_a_replay_is_not_started_with_another_number_of_names_than_seats(toy):
    # refused before the game, not once its file is loaded: the game would be lost
    env = ENVS["toy_v0"].load_module().raw_env()
    with pytest.raises(ReplayError, match=r"'players' names 1 seat \(\['human'\]\), and this toy_v0 game has 2: "
                                          r"list one name per seat in seat order, or none \(\[\]\)$"):
        Replay.start(env, 0, ["human"])


@pytest.mark.parametrize("key, value", [("max_turns", 5), ("render_mode", "ansi"), ("illegal_action", "penalty")])
def test_a_replay_config_holding_an_env_option_is_refused_by_name(toy, key, value):
    """make_env passes max_turns itself: the config's copy raised TypeError (multiple values), and
    a render_mode or illegal_action there reached the env as a plain ValueError or changed how it plays."""
    replay, _, _ = record_random_game("toy_v0", seed=2)
    data = json.loads(replay.to_json())
    data["config"][key] = value
    with pytest.raises(ReplayError, match=rf"'config' holds the env option\(s\) \['{key}'\].*edited"):
        Replay.from_json(json.dumps(data)).replay()


def test_a_replay_recorded_before_an_option_existed_replays_under_the_rules_it_was_played_by(tmp_path):
    # opaque_wall joined terralore_v0 as the default; a replay from before it was played on the open table
    replay, _, env = record_random_game("terralore_v0", seed=3, game_kwargs={"opaque_wall": False})
    path = replay.save(tmp_path / "g.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["config"]["opaque_wall"]
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = Replay.load(path)
    assert loaded.make_env().game.opaque_wall is False
    assert loaded.replay().game_state == env.game_state  # the final state's digest verifies too


def test_cli_replay_of_a_folder_or_a_format_written_as_text_names_the_mistake(toy, tmp_path):
    out = []
    assert main(["replay", str(tmp_path), "--no-pause"], say=out.append) == 2
    assert out[-1] == f"error: {str(tmp_path)!r} is a folder; pass the replay's .json file in it"
    replay, _, _ = record_random_game("toy_v0", seed=2)
    data = json.loads(replay.to_json())
    data["format"] = str(data["format"])
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = []
    assert main(["replay", str(path), "--no-pause"], say=out.append) == 2
    assert "'format' must be the number 1, got '1'" in out[-1]


@pytest.mark.parametrize("name", ["", " "])
def test_cli_replay_of_an_empty_file_name_asks_for_a_file_not_about_the_current_folder(name):
    # Path("") is ".": the empty name was refused as "'.' is a folder"
    out = []
    assert main(["replay", name, "--no-pause"], say=out.append) == 2
    assert out[-1] == f"error: no replay file named {name!r}: pass the replay's .json file, e.g. game.json"


def test_a_replay_with_actions_after_its_game_reached_the_turn_limit_is_refused_naming_them(toy):
    # a truncated game is over as a finished one is: an action after it was stepped on a seat that is gone
    replay, _, env = record_random_game("toy_v0", seed=4, game_kwargs={"max_turns": 2})
    assert any(env.truncations.values()) and not any(env.terminations.values())
    replay.actions.append(replay.actions[-1])
    with pytest.raises(ReplayError, match=rf"replay has 1 action after the game ended \(from action "
                                          rf"#{len(replay.actions)} of {len(replay.actions)}\)"):
        replay.replay()


def test_a_replayed_earth_game_ends_with_the_vp_beside_the_returns(tmp_path):
    replay, _, _ = record_random_game("earth_v0", seed=24, game_kwargs={"num_players": 3})
    out = []
    assert main(["replay", str(replay.save(tmp_path / "g.json")), "--no-pause"], say=out.append) == 0
    returns = next(i for i, line in enumerate(out) if line.startswith("Returns: "))
    vp, *tiebreakers = out[returns + 1].splitlines()
    assert vp.startswith("VP: player_0: ") and vp.count("player_") == 3
    # this game has two seats level on VP: the tiebreakers that ordered them are named under the VP
    assert [line.split(":")[0] for line in tiebreakers] == ["Tied on VP; the tiebreakers (soil, cards in hand, growth, "
                                                             "sprouts, composted cards)"]


@pytest.mark.parametrize(("env_name", "recorded", "other", "named"), [
    ("terralore_v0", {"defenders_deal_damage": True}, {}, "defenders_deal_damage=True recorded, False in the env"),
    ("earth_v0", {"num_players": 3, "reward": "vp_margin", "max_rounds": 3}, {"num_players": 3, "max_rounds": 3},
     "reward='vp_margin' recorded, 'rank' in the env"),
    ("travel_earth_v0", {}, {"max_turns": 399}, "max_turns=400 recorded, 399 in the env"),
])
def test_a_replay_stepped_on_an_env_of_other_rule_options_is_refused_naming_them(env_name, recorded, other, named):
    # it played on under the env's rules and, at the end, blamed "the rules changed without a version bump,
    # or the file was edited"; unverified (a game still being recorded) it diverged without a word
    replay, _, _ = record_random_game(env_name, seed=3, game_kwargs=recorded)
    env = ENVS[env_name].load_module().raw_env(**other)
    env.reset(seed=3)
    for verify in (True, False):
        with pytest.raises(ReplayError, match=re.escape(named) + ".*replay.make_env()"):
            next(replay.steps(env, verify=verify))
    same = replay.make_env()
    for _ in replay.steps(same):
        pass
    assert state_digest(same.game_state) == replay.final_digest


@pytest.mark.parametrize("kwargs", [{"defenders_deal_damage": False}, {"opaque_wall": False}, {"max_turns": 5}])
def test_make_env_takes_the_replays_own_rules_and_refuses_others_by_name(kwargs):
    # a recorded option or max_turns given again was a bare TypeError ("got multiple values"); an option the
    # replay left at its default changed the rules it was replayed under
    replay, _, env = record_random_game("terralore_v0", seed=3, game_kwargs={"defenders_deal_damage": True})
    (key, _), = kwargs.items()
    with pytest.raises(ReplayError, match=rf"make_env\({key}=\.\.\.\): .*takes only render_mode and illegal_action"):
        replay.make_env(**kwargs)
    assert replay.make_env(render_mode="ansi", illegal_action="penalty").game.defenders_deal_damage is True


def test_a_replay_recorded_before_a_state_field_and_an_option_were_added_still_verifies(tmp_path):
    # a Travel Earth replay recorded before recent_challenges (a public record, play unchanged) and
    # resting_defender_win (its default plays as before) existed: the same game replays, but its digest was
    # written without them, and every such replay was refused as "the rules changed ... or the file was edited"
    replay, _, env = record_random_game("travel_earth_v0", seed=3)
    data = json.loads(replay.to_json())
    del data["config"]["resting_defender_win"]
    old = env.game_state.to_dict()
    del old["config"]["resting_defender_win"]
    del old["state"]["recent_challenges"]
    data["final_digest"] = hashlib.sha256(json.dumps(old, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert data["final_digest"] != replay.final_digest
    assert Replay.from_json(json.dumps(data)).replay().game_state == env.game_state


def test_a_replay_of_an_earlier_revision_of_the_same_version_names_the_revision_to_check_out(tmp_path):
    replay, _, _ = record_random_game("terralore_v0", seed=3)
    assert replay.revision == code_revision()
    replay.revision = "abc1234"
    replay.final_digest = "0" * 64
    with pytest.raises(ReplayError, match=r"recorded \(tabletop-envs [^ ]+ at commit abc1234\) before a fix of "
                       r"terralore_v0's rules.*git checkout abc1234") as info:
        replay.replay()
    assert "Replay it with tabletop-envs==" not in str(info.value)  # the library the user already has
    replay.revision = ""  # a replay written before the field: its date is all there is
    with pytest.raises(ReplayError, match=rf"does not record the revision.*recorded {re.escape(replay.created)}"):
        replay.replay()


@pytest.mark.parametrize("edit", ["digest", "extra action", "illegal action"])
def test_an_edited_replay_of_this_very_revision_does_not_send_the_user_to_check_it_out(monkeypatch, edit):
    # "git checkout <this commit>" changed nothing, and the same error came back
    monkeypatch.setattr(replay_module, "code_revision", lambda: "abc1234")
    replay, _, _ = record_random_game("terralore_v0", seed=3)
    replay.revision = "abc1234"
    if edit == "digest":
        replay.final_digest = "0" * 64
    elif edit == "extra action":
        replay.actions.append(0)
    else:
        replay.actions[0] = 10**6
    with pytest.raises(ReplayError, match=r"[Tt]he file was edited.*revision that recorded it \(commit abc1234\).*"
                                          r"restore the file, or record the game again") as info:
        replay.replay()
    assert "git checkout" not in str(info.value)


def test_a_checkout_with_uncommitted_changes_is_recorded_as_its_commit_dirty(tmp_path):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True,
                       capture_output=True)

    git("init", "-q")
    (tmp_path / "rules.py").write_text("A = 1\n", encoding="utf-8")
    git("add", "rules.py")
    git("commit", "-q", "-m", "rules")
    sha = git_revision(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{7,}", sha)
    (tmp_path / "scratch.log").write_text("a run's log\n", encoding="utf-8")  # untracked: no code changed
    assert git_revision(tmp_path) == sha
    (tmp_path / "rules.py").write_text("A = 2\n", encoding="utf-8")
    assert git_revision(tmp_path) == f"{sha}-dirty"
    assert git_revision(tmp_path / "no-checkout-here") == ""
    # a library installed in a folder of some project's checkout (its venv): the project's commit is not the
    # library's
    (tmp_path / "venv" / "site-packages").mkdir(parents=True)
    assert git_revision(tmp_path / "venv" / "site-packages") == ""


def test_a_checkout_where_git_cannot_run_records_no_revision(tmp_path, monkeypatch):
    # a checkout copied to a machine without git: the replay is recorded all the same, without a commit
    for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
                                  "-m", "rules"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    assert git_revision(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    assert git_revision(tmp_path) == ""


def test_a_replay_of_another_library_version_names_that_version_to_replay_it_with():
    replay, _, _ = record_random_game("terralore_v0", seed=3)
    replay.library_version, replay.revision = "0.0.1", "abc1234"
    replay.final_digest = "0" * 64
    with pytest.raises(ReplayError, match=r"Replay it with tabletop-envs==0\.0\.1 \(commit abc1234\)\.") as info:
        replay.replay()
    assert "git checkout" not in str(info.value)


@pytest.mark.parametrize("here", [None, "abc1234-dirty"], ids=["another checkout", "the same dirty revision"])
def test_a_replay_recorded_from_uncommitted_changes_says_so_instead_of_naming_a_commit_to_check_out(monkeypatch,
                                                                                                   here):
    # a "-dirty" revision names the commit, not the uncommitted changes on it: two checkouts of one dirty
    # revision may hold other rules, so not even this one is known to be the one that recorded the replay
    if here:
        monkeypatch.setattr(replay_module, "code_revision", lambda: here)
    replay, _, _ = record_random_game("terralore_v0", seed=3)
    replay.revision = "abc1234-dirty"
    replay.final_digest = "0" * 64
    with pytest.raises(ReplayError, match=r"uncommitted changes on top of commit abc1234: replay it there") as info:
        replay.replay()
    assert "git checkout abc1234-dirty" not in str(info.value)
    assert "this checkout is the revision that recorded it" not in str(info.value)


@pytest.mark.parametrize("bad", [2.5, "3", True, None])
def test_record_refuses_what_is_no_action_id_instead_of_recording_another_move(toy, bad):
    env = ENVS["toy_v0"].load_module().raw_env()
    replay = Replay.start(env, 3)
    replay.record(np.int64(4))
    with pytest.raises(ReplayError, match="an action id is an int"):
        replay.record(bad)
    assert replay.actions == [4] and type(replay.actions[0]) is int


def test_an_earth_replay_recorded_with_a_relative_data_dir_replays_from_another_folder(tmp_path, monkeypatch):
    # config() recorded data_dir as given: a replay (or sidecar, or saved state) of data_dir="data" read the
    # cards of whatever "data" folder the replaying process started in, or none at all
    from tabletop_envs.earth.catalogue import DATA

    monkeypatch.chdir(DATA.parent)
    replay, _, env = record_random_game("earth_v0", seed=1, game_kwargs={"data_dir": "data", "max_rounds": 1})
    assert replay.config["data_dir"] == str(DATA)
    saved = replay.save(tmp_path / "g.json")
    monkeypatch.chdir(tmp_path)
    assert Replay.load(saved).replay().game_state == env.game_state


@pytest.mark.parametrize("illegal_action", ["penalty", "random_legal"])
def test_a_replay_is_not_started_on_an_env_that_plays_another_move_than_an_illegal_one(illegal_action):
    # the illegal move was recorded as chosen, the file saved without a word, and its replay refused as an
    # edited file or another game's
    env = ENVS["terralore_v0"].load_module().raw_env(illegal_action=illegal_action)
    with pytest.raises(ReplayError, match=f"illegal_action='{illegal_action}'.*illegal_action='raise'"):
        Replay.start(env, 5)


def test_a_replay_file_without_returns_is_refused_naming_the_field(toy):
    # every replay has it (null where the game did not end); without it the file read as a game with no
    # result and was refused only after it was replayed, for "the recorded returns None"
    replay, _, _ = record_random_game("toy_v0", seed=1)
    data = json.loads(replay.to_json())
    del data["returns"]
    with pytest.raises(ReplayError, match=re.escape("lacks the fields ['returns']")):
        Replay.from_json(json.dumps(data))


class _Watched:
    """A shipped bot that keeps what it was shown and what it chose."""

    def __init__(self, policy_id):
        self.policy, self.seen, self.first_rng = load_policy(policy_id), [], None

    def act(self, observation, action_mask, rng):
        if self.first_rng is None:
            self.first_rng = rng.bit_generator.state
        action = self.policy.act(observation, action_mask, rng)
        self.seen.append((observation.copy(), np.asarray(action_mask, bool).copy(), int(action)))
        return action


@pytest.mark.parametrize("env_name, policies, kwargs", [
    ("terralore_v0", ["terralore_v0/ppo", "terralore_v0/heuristic"], {}),
    ("earth_v0", ["earth_v0/heuristic", "earth_v0/random", "earth_v0/ppo_4p", "earth_v0/heuristic"],
     {"num_players": 4}),
])
def test_record_game_records_a_bot_game_whose_seat_streams_replay_as_the_bots_saw_them(env_name, policies, kwargs,
                                                                                     tmp_path):
    from tabletop_envs.core.replay import record_game

    bots = [_Watched(p) for p in policies]
    env = ENVS[env_name].load_module().raw_env(**kwargs)
    replay = record_game(env, bots, seed=3, players=policies)
    assert replay.players == policies and replay.returns == env.game_state.returns().tolist()
    again = record_game(ENVS[env_name].load_module().raw_env(**kwargs), policies, seed=3)
    assert again.actions == replay.actions and again.players == policies
    # each seat's own generator, fresh: one shared (or the deal's) drew the seats' picks from one stream
    assert [bot.first_rng for bot in bots] == [policy_rng(3, seat).bit_generator.state for seat in range(len(bots))]
    loaded = Replay.load(replay.save(tmp_path / "g.json"))
    played = loaded.make_env()
    streams = {seat: [] for seat in range(len(policies))}
    # each seat's stream as the docs rebuild it: observed at its own decisions, before the action is applied
    for _, seat, action in loaded.steps(played):
        seen = played.observe(played.possible_agents[seat])
        streams[seat].append((seen["observation"], seen["action_mask"], action))
    for seat, bot in enumerate(bots):
        assert len(streams[seat]) == len(bot.seen) > 0
        for (observation, mask, action), (shown, shown_mask, chosen) in zip(streams[seat], bot.seen):
            assert mask.dtype == np.int8 and observation.dtype == np.float32
            assert np.array_equal(observation, shown) and np.array_equal(mask.astype(bool), shown_mask)
            assert action == chosen
    assert [played.rewards[a] for a in played.possible_agents] == replay.returns


def test_record_game_takes_one_policy_per_seat():
    from tabletop_envs.core.replay import record_game

    env = ENVS["terralore_v0"].load_module().raw_env()
    with pytest.raises(ValueError, match=r"one policy per seat \(2\)"):
        record_game(env, ["terralore_v0/random"], seed=0)
    # one id, path or policy for the table: an id was counted by its letters, a policy or a Path had no len()
    for one in ("terralore_v0/random", "ab", Path("runs/ppo.onnx"), load_policy("terralore_v0/random")):
        with pytest.raises(ValueError, match=r"one policy per seat \(2\)"):
            record_game(env, one, seed=0)


def test_a_replay_of_a_game_cut_at_max_turns_saves_no_returns_and_replays_truncated_with_rewards_zero():
    from tabletop_envs.core.replay import record_game

    env = ENVS["travel_earth_v0"].load_module().raw_env(max_turns=4)
    replay = record_game(env, ["travel_earth_v0/heuristic", "travel_earth_v0/random"], seed=3)
    data = json.loads(replay.to_json())
    assert data["returns"] is None
    data["dataset_split"] = "train"  # a field of the dataset's own, which a load ignores
    played = Replay.from_json(json.dumps(data)).replay()
    assert all(played.truncations.values()) and not any(played.terminations.values())
    assert set(played.rewards.values()) == {0.0}


class _Counts:
    """A policy with memory: its n-th move since restart() is the n-th legal one (wrapping)."""

    name = "counts"

    def __init__(self):
        self.moves, self.restarts = 0, 0

    def restart(self):
        self.moves, self.restarts = 0, self.restarts + 1

    def act(self, observation, action_mask, rng):
        legal = np.flatnonzero(action_mask)
        self.moves += 1
        return int(legal[self.moves % len(legal)])


def test_record_game_restarts_each_policy_before_its_game():
    from tabletop_envs.core.replay import record_game

    # the same object in both seats, restarted once per game: without it the second game played on from the
    # first's count of moves, and the same seed recorded another game
    counts = _Counts()
    first = record_game(ENVS["terralore_v0"].load_module().raw_env(), [counts, counts], seed=4)
    second = record_game(ENVS["terralore_v0"].load_module().raw_env(), [counts, counts], seed=4)
    assert counts.restarts == 2 and second.actions == first.actions


class _Illegal:
    name = "cheater"

    def act(self, observation, action_mask, rng):
        return int(np.flatnonzero(np.asarray(action_mask) == 0)[0])


def test_record_game_names_the_policy_and_seat_that_chose_an_illegal_move():
    from tabletop_envs.core.errors import IllegalActionError
    from tabletop_envs.core.replay import record_game

    # the env's own error advised building it with illegal_action='penalty' or 'random_legal', which
    # record_game refuses, and named no policy
    env = ENVS["terralore_v0"].load_module().raw_env()
    with pytest.raises(IllegalActionError, match=r"^the policy cheater \(seat 1\) chose an illegal action") as error:
        record_game(env, ["terralore_v0/random", _Illegal()], seed=1)
    assert "illegal_action=" not in str(error.value)
