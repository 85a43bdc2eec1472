"""Pictures of the table: rgb_array shapes and dtypes, the human window, render_test, no hidden cards."""

from __future__ import annotations

import os

import numpy as np
import option_sets
import pytest
from extras import needs_matplotlib
from pettingzoo.test import render_test

from tabletop_envs.core.registry import ENVS, EnvSpec, available_envs
from tabletop_envs.core.render import Canvas, CardFace, draw_state, save_gif, text_picture, to_array

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture()
def toy_picture(monkeypatch):
    monkeypatch.setitem(ENVS, "toy_v0", EnvSpec("toy_v0", "toy_picture_game", "test/toy-v0", "test/Toy-v0", (2,),
                                                "", "toy"))
    import toy_picture_game

    return toy_picture_game


def random_steps(env, n, rng):
    for _ in range(n):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))


def test_rgb_array_is_a_fixed_size_uint8_picture_that_follows_the_game(toy_picture):
    env = toy_picture.env(render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    assert first.dtype == np.uint8 and first.shape == (320, 480, 3)
    random_steps(env, 3, np.random.default_rng(0))
    later = env.render()
    assert later.shape == first.shape and not np.array_equal(first, later)


def test_render_test_passes_for_every_mode_of_the_toy(toy_picture):
    render_test(toy_picture.env)


def test_human_mode_shows_a_window_and_returns_none(toy_picture):
    env = toy_picture.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert env._viewer.screen.get_size() == (480, 320)
    env.close()
    assert "_viewer" not in env.__dict__


def test_closing_a_human_mode_env_closes_its_pygame_window(toy_picture):
    # a window left up after close() stays on the screen, showing the last table, until the process ends
    import pygame

    env = toy_picture.env(render_mode="human")
    env.reset(seed=0)
    env.render()
    assert pygame.display.get_surface() is not None
    env.close()
    assert pygame.display.get_surface() is None


def test_a_human_mode_env_with_its_window_open_pickles_and_deep_copies_without_the_window(toy_picture):
    # the window (a pygame module and surface) made pickle and deepcopy raise "cannot pickle 'module' object"
    import copy
    import pickle

    env = toy_picture.env(render_mode="human")
    env.reset(seed=0)
    env.render()
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert "_viewer" not in twin.__dict__ and twin.game_state == env.game_state
        assert twin.render() is None and twin._viewer is not env._viewer  # a window of its own
        twin.close()
    assert env._viewer.screen is not None  # the original's window is left open
    env.close()


def test_a_human_mode_env_draws_on_after_another_env_or_its_copy_closes_its_window(toy_picture):
    # pygame has one window per process: closing a copy (or any other human-mode env) quit it, and the
    # env still open failed its next step with "pygame.error: Surface is not initialized"
    import copy

    env = toy_picture.env(render_mode="human")
    env.reset(seed=0)
    env.render()
    for other in (copy.deepcopy(env), toy_picture.env(render_mode="human")):
        other.reset(seed=1)
        other.render()
        other.close()
        random_steps(env, 1, np.random.default_rng(0))  # a human-mode step draws
        assert env.render() is None and env._viewer.screen.get_size() == (480, 320)
    env.close()


def test_a_game_without_its_own_drawing_gets_its_text_as_a_picture(monkeypatch):
    import toy_game

    class Plain(toy_game.raw_env):
        metadata = {**toy_game.raw_env.metadata, "render_modes": ["ansi", "rgb_array"]}

    env = Plain(render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert (picture != picture[0, 0]).any()  # the text was drawn


def test_a_players_picture_hides_the_other_hand(toy_picture):
    env = toy_picture.env(render_mode="rgb_array")
    env.reset(seed=0)
    mine = draw_state(env, 0)
    other = env.game_state.resample_hidden(0, np.random.default_rng(1))
    assert other.hands[1] != env.game_state.hands[1]
    env.game_state = other
    assert np.array_equal(draw_state(env, 0), mine)
    assert not np.array_equal(draw_state(env, None), mine)


def test_canvas_cards_rows_and_gif(tmp_path):
    canvas = Canvas(300, 200)
    canvas.card_row(5, 5, [CardFace("A very long card name indeed", ["ATK 3", "HP 4"], corner="2", footer="fire")] * 9,
                    max_width=290)
    canvas.pills(5, 150, {"gold": 3, "wood": 1}, 290)
    picture = canvas.array()
    assert picture.shape == (200, 300, 3) and picture.dtype == np.uint8
    assert to_array(text_picture("hello\nworld", 100, 60)).shape == (60, 100, 3)
    path = save_gif([picture, picture[::-1].copy()], tmp_path / "a.gif", fps=4)
    from PIL import Image

    with Image.open(path) as gif:
        assert gif.n_frames == 2 and gif.size == (300, 200)


def test_a_cards_corner_is_its_top_right_corner_text():
    def drawn(face):
        canvas = Canvas(100, 130)
        canvas.card(2, 2, face)
        return canvas.array()

    older = CardFace("Card", ["ATK 3"], corner="2", footer="fire")
    assert older.corners() == ("", "2", "", "")
    np.testing.assert_array_equal(drawn(older), drawn(CardFace("Card", ["ATK 3"], top_right="2", footer="fire")))
    with pytest.raises(ValueError, match="same corner"):
        CardFace("Card", corner="2", top_right="3")
    four = CardFace("Card", ["ATK 3"], footer="fire", top_left="1", top_right="water", bottom_left="rare",
                    bottom_right="12")
    assert four.corners() == ("1", "water", "rare", "12")
    assert not np.array_equal(drawn(four), drawn(CardFace("Card", ["ATK 3"], footer="fire")))


def _cases():
    # and each game with all its rule options off their defaults (the open table of opaque_wall=False shows
    # card backs and discards, advanced_draft more cards to choose from)
    return [(name, {"num_players": n} if len(ENVS[name].player_counts) > 1 else {})
            for name in available_envs() for n in ENVS[name].player_counts if n <= 3] + \
        list(option_sets.ALL_AT_ONCE.items())


@pytest.mark.parametrize(("env_name", "kwargs"), _cases())
def test_every_shipped_game_draws_its_table(env_name, kwargs):
    module = ENVS[env_name].load_module()
    assert {"ansi", "rgb_array", "human"} <= set(module.raw_env.metadata["render_modes"])
    env = module.env(render_mode="rgb_array", **kwargs)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    shapes = set()
    for _ in range(6):
        picture = env.render()
        assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
        shapes.add(picture.shape)
        random_steps(env, 7, rng)
    assert len(shapes) == 1, "frames of one game must have one size (videos)"


@pytest.fixture()
def no_dejavu(monkeypatch):
    """A machine with neither DejaVu among its fonts nor matplotlib: Windows or macOS with the render extra
    alone, where the pictures fall back on Pillow's own font (one of a chosen size since Pillow 10.1:
    10.0's ``load_default`` took no size, and its bitmap font no em dash)."""
    import importlib.util

    from tabletop_envs.core import render

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(render, "_FONT_DIRS", ())
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else find_spec(name, *a))
    render.font.cache_clear()
    render._text_width.cache_clear()
    yield
    render.font.cache_clear()
    render._text_width.cache_clear()


@pytest.mark.parametrize("env_name", available_envs())
def test_every_shipped_game_draws_its_table_without_dejavu_or_matplotlib(env_name, no_dejavu):
    env = ENVS[env_name].load_module().env(render_mode="rgb_array")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(3):
        assert env.render().dtype == np.uint8
        random_steps(env, 7, rng)
    assert to_array(text_picture("Earth — 3 players · Galápagos")).dtype == np.uint8


@pytest.mark.parametrize(("env_name", "kwargs"), _cases())
def test_render_test_passes_for_every_shipped_game(env_name, kwargs):
    module = ENVS[env_name].load_module()
    render_test(lambda **kw: module.env(**kwargs, **kw))


@pytest.mark.parametrize(("env_name", "kwargs"), _cases())
def test_a_players_picture_shows_nothing_they_cannot_see(env_name, kwargs):
    """Like the observation no-leak check: re-deal what a seat cannot see; its picture must not change
    (while the whole-table picture does change somewhere, so the check is not vacuous)."""
    module = ENVS[env_name].load_module()
    hidden_changed = 0
    for seed in range(2):
        env = module.env(render_mode="rgb_array", **kwargs)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(3):
            random_steps(env, 12, rng)
            if env.game_state.is_terminal():
                break
            state = env.game_state
            whole = draw_state(env, None)
            for player in range(env.game.num_players):
                mine = draw_state(env, player)
                env.game_state = state.resample_hidden(player, rng)
                assert np.array_equal(draw_state(env, player), mine), f"{env_name}: picture of seat {player} leaks"
                hidden_changed += not np.array_equal(draw_state(env, None), whole)
                env.game_state = state
    if env.game.num_players > 1 and env.game.hidden_information:  # solo: the whole table is the player's own view
        assert hidden_changed > 0, (f"{env_name}: re-dealing what a seat cannot see never changed the whole-table "
                                    "picture after 12, 24 and 36 random decisions of seeds 0 and 1 (the check would "
                                    "be vacuous): draw what is hidden in the god's view (player=None), or make sure "
                                    "the game still hides something at those points")


#: games each table is played for at most (heuristic and random moves in turn) to reach every kind of decision:
#: a Terralore game is short and a full lane (the replace-one destroy) rare, an Earth game hundreds of decisions
KIND_GAMES = {"terralore_v0": 150, "travel_earth_v0": 2, "earth_v0": 2}
#: decisions that may take more games than that to come up (Earth's Copy and its choices of how to pay a cost)
RARE_KINDS = {"earth_v0": {"copy", "pay_method", "pay_hand"}}


@pytest.mark.slow
@pytest.mark.parametrize(("env_name", "kwargs"),
                         [(name, {"num_players": n} if len(ENVS[name].player_counts) > 1 else {})
                          for name in available_envs() for n in ENVS[name].player_counts]
                         + list(option_sets.ALL_AT_ONCE.items()))
def test_every_seats_picture_and_text_show_nothing_they_cannot_see_at_every_kind_of_decision_and_the_end(env_name,
                                                                                                        kwargs):
    """The check above draws random positions early in a game at up to 3 seats. Here whole games are
    played, by the heuristic bot in every seat and by random moves, at every table size, and the first
    position of each kind of decision and the end are drawn for every seat, the one to move and those
    waiting, in two re-dealt worlds each: Terralore's replace-one destroy and its end, Travel Earth's
    Change, Pay and a Last Resort's end, Earth's setup and pendings at 4 and 5 seats come up here only."""
    from tabletop_envs.core.policy import load_policy

    env = ENVS[env_name].load_module().env(render_mode="rgb_array", **kwargs)
    env.reset(seed=0)
    game = env.unwrapped.game
    bot = load_policy(f"{env_name}/heuristic", env=env_name, game_config=game.config())
    rng = np.random.default_rng(5)
    # never asked: a mulligan with the option off, Earth's option of the other seats at a table of one
    never = {"mulligan"} if getattr(game, "mulligan", True) is False else \
        {"option"} if env_name == "earth_v0" and game.num_players == 1 else set()
    kinds = set(game.decisions) - RARE_KINDS.get(env_name, set()) - never | {"over"}
    checked, hidden_changed = set(), 0
    for g in range(KIND_GAMES[env_name]):
        # the first two games (the bot's, random moves) at each kind: the bot's may end with every hand empty;
        # later ones only at kinds not reached yet
        here = set() if g < 2 else checked
        state = game.new_initial_state(g)
        while True:
            kind = "over" if state.is_terminal() else state.decision()
            if kind not in here:
                here.add(kind)
                checked.add(kind)
                env.game_state = state
                whole = draw_state(env, None)
                for player in range(game.num_players):
                    mine, text = draw_state(env, player), state.render_text(player)
                    for world in range(2):
                        env.game_state = state.resample_hidden(player, rng)
                        assert np.array_equal(draw_state(env, player), mine), \
                            f"{env_name} game {g}: the picture of seat {player} leaks at {kind!r}"
                        assert env.game_state.render_text(player) == text, \
                            f"{env_name} game {g}: the text view of seat {player} leaks at {kind!r}"
                        if world == 0:
                            hidden_changed += not np.array_equal(draw_state(env, None), whole)
                    env.game_state = state
            if state.is_terminal():
                break
            mover, mask = state.current_player(), state.legal_action_mask()
            action = bot.act(state.observation(mover), mask, rng) if g % 2 == 0 else rng.choice(np.flatnonzero(mask))
            state.apply_action(int(action))
        if g >= 1 and checked >= kinds:
            break
    assert checked >= kinds, f"{env_name}: never reached {sorted(kinds - checked)}"
    assert hidden_changed > 0 or game.num_players == 1, f"{env_name}: re-dealing never changed the whole table"


def test_the_text_picture_of_a_game_without_its_own_drawing_shows_only_what_the_seat_may_see(monkeypatch):
    # found by mutation testing: a fallback drawing the whole table's text (the opponent's hand by name) for
    # any seat passed every other test, the shipped games all having a drawing of their own
    from tabletop_envs.core import render

    monkeypatch.setattr(render, "find_draw_function", lambda env: None)  # Terralore as a game without one
    env = ENVS["terralore_v0"].load_module().env(render_mode="rgb_array")
    env.reset(seed=0)
    state = env.game_state
    mine, whole = draw_state(env, 0), draw_state(env, None)
    env.game_state = state.resample_hidden(0, np.random.default_rng(1))
    assert np.array_equal(draw_state(env, 0), mine), "the text picture of seat 0 leaks"
    assert not np.array_equal(draw_state(env, None), whole), "the whole table's text names the re-dealt hand"


@pytest.mark.parametrize(("env_name", "kwargs"), _cases())
def test_drawing_a_picture_changes_neither_the_game_nor_its_random_numbers(env_name, kwargs):
    """A picture reads the position: every seat's and the whole table's, drawn mid-game, leave the state
    equal to a copy taken before, its generator included (what the next deal or shuffle draws)."""
    env = ENVS[env_name].load_module().env(render_mode="rgb_array", **kwargs)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(3):
        random_steps(env, 12, rng)
        before = env.game_state.clone()
        for player in (None, *range(env.game.num_players)):
            draw_state(env, player)
        assert env.game_state == before, f"{env_name}: drawing the table changed the game"


def test_gymnasium_face_renders_pictures_for_video_wrappers():
    import gymnasium

    import tabletop_envs  # noqa: F401  (registers the gymnasium ids)

    name = available_envs()[0]
    single = gymnasium.make(ENVS[name].gymnasium_id, render_mode="rgb_array", opponent=f"{name}/random")
    single.reset(seed=0)
    first = single.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    single.step(int(np.flatnonzero(single.unwrapped.action_masks())[0]))
    assert single.render().shape == first.shape
    single.close()


@pytest.fixture()
def windows(monkeypatch):
    """Human-mode windows that record which opened (``opened``: titles), what they are shown (``shown``: title
    and picture shape) and which of them closed (``closed``: titles), in place of pygame's or matplotlib's."""
    from types import SimpleNamespace

    from tabletop_envs.core import render

    seen = SimpleNamespace(shown=[], closed=[], opened=[])

    class Window:
        def __init__(self, title):
            self.title = title
            seen.opened.append(title)

        def show(self, array):
            seen.shown.append((self.title, array.shape))

        def close(self):
            seen.closed.append(self.title)

    monkeypatch.setattr(render, "make_viewer", Window)
    return seen


def test_gymnasium_face_in_human_mode_shows_every_reset_and_step_by_itself(windows):
    # Gymnasium: with render_mode="human" the env draws during reset and step; render() need not be called
    from tabletop_envs.core.single_agent import SingleAgentEnv

    shown = windows.shown
    env = SingleAgentEnv(available_envs()[0], render_mode="human")
    env.reset(seed=0)
    assert len(shown) == 1
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert len(shown) == 2
    env.close()


def test_aec_env_in_human_mode_draws_every_step_in_one_window_that_close_closes(windows):
    shown, closed = windows.shown, windows.closed
    name = available_envs()[0]
    env = ENVS[name].load_module().env(render_mode="human")
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert len(shown) == 3 and {title for title, _ in shown} == {name}
    assert windows.opened == [name], "one window for the whole game, not one per frame"
    env.close()
    assert closed == [name]
    env.close()  # a second close has no window left to close
    assert closed == [name]


def test_aec_env_in_human_mode_draws_the_step_that_ends_the_game_by_an_illegal_action_penalty(windows):
    # "one human redraw per step": the penalty's step returned before drawing, so the window kept the table
    # of before, a game still going
    shown = windows.shown
    for name in available_envs():
        shown.clear()
        env = ENVS[name].load_module().env(render_mode="human", illegal_action="penalty")
        env.reset(seed=0)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
        illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
        env.step(illegal)
        assert all(env.terminations.values()) and len(shown) == 2, name
        env.close()


@pytest.mark.parametrize("seat, error, message", [
    (5, ValueError, "seat 5 is not a seat of this 2-player"), (-1, ValueError, "-1 is TERMINAL"),
    ("1", TypeError, "a seat is an int from 0 to 1 or None"), (True, TypeError, "got True"),
])
def test_a_picture_for_a_render_player_that_is_no_seat_is_refused_as_the_text_view_refuses_it(seat, error, message):
    # the text view refused these; the pictures drew an IndexError, seat 1's view (True), or for Earth a frame
    # of no seat at all
    for name in available_envs():
        env = ENVS[name].load_module().env(render_mode="rgb_array")
        env.reset(seed=0)
        env.render_player = seat
        with pytest.raises(error, match=message):
            env.render()


@pytest.mark.parametrize("env_name", available_envs())
def test_gymnasium_face_draws_only_what_the_learner_may_see(env_name):
    """Frames can reach the agent (AddRenderObservation): re-dealing what the learner cannot see must
    not change them, while the render_view="table" frame does change somewhere (not vacuous)."""
    from tabletop_envs.core.single_agent import SingleAgentEnv

    table_changed = 0
    for view in ("learner", "table"):
        env = SingleAgentEnv(env_name, render_mode="rgb_array", render_view=view)
        for seed in range(3):
            env.reset(seed=seed)
            state, seat = env.game_state, env.learner_seat
            frame, text = env.render(), state.render_text(seat if view == "learner" else None)
            env.aec.game_state = env.game_state = state.resample_hidden(seat, np.random.default_rng(seed))
            if view == "learner":
                assert np.array_equal(env.render(), frame), f"{env_name}: the learner's picture leaks"
                assert env.game_state.render_text(seat) == text
            else:
                table_changed += not np.array_equal(env.render(), frame)
    assert table_changed > 0 or not env.game_state.game.hidden_information


def test_a_bad_render_view_is_a_clear_error():
    from tabletop_envs.core.single_agent import SingleAgentEnv

    with pytest.raises(ValueError, match="render_view must be one of"):
        SingleAgentEnv(available_envs()[0], render_view="god")


def test_ansi_render_follows_render_player():
    name = available_envs()[0]
    env = ENVS[name].load_module().env(render_mode="ansi")
    env.reset(seed=1)
    assert env.render() == env.game_state.render_text()
    env.unwrapped.render_player = 1
    assert env.render() == env.game_state.render_text(1) != env.game_state.render_text()


@needs_matplotlib
def test_human_mode_falls_back_to_matplotlib_then_to_a_clear_error(monkeypatch):
    import sys

    import matplotlib

    from tabletop_envs.core import render
    from tabletop_envs.core.errors import TabletopError

    matplotlib.use("Agg")
    monkeypatch.setitem(sys.modules, "pygame", None)  # "not installed"
    viewer = render.make_viewer("test")
    assert isinstance(viewer, render.MatplotlibViewer)
    viewer.close()
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(TabletopError, match=r"needs a window library: pip install 'tabletop-envs\[render\]' \(it brings pygame-ce\), or matplotlib"):
        render.make_viewer("test")


@pytest.fixture()
def pyplot_windows(monkeypatch):
    """pyplot (Agg) as the human-mode window library, pygame "not installed"; every window closed after."""
    import sys

    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    monkeypatch.setitem(sys.modules, "pygame", None)
    plt.close("all")
    yield plt
    plt.close("all")


@needs_matplotlib
def test_matplotlib_window_holds_one_picture_however_many_human_mode_envs_drew_on_it(pyplot_windows, toy_picture):
    # pyplot has one window per title: each env's viewer added axes over the others' and kept its last picture
    # there while the window lived, 3 MB per Terralore env made in a loop and dropped without close()
    import copy

    plt = pyplot_windows
    for seed in range(6):
        env = toy_picture.env(render_mode="human")
        env.reset(seed=seed)
        assert env.render() is None
        twin = copy.deepcopy(env)
        twin.render()  # a copy opens a viewer of its own
    figure = env._viewer.figure
    assert plt.get_fignums() == [figure.number]
    assert (len(figure.axes), len(figure.axes[0].images)) == (1, 1)
    np.testing.assert_array_equal(figure.axes[0].images[0].get_array(), draw_state(twin))
    env._viewer.show(np.zeros((10, 20, 3), np.uint8))  # a picture of another size replaces it
    assert figure.axes[0].images[0].get_array().shape == (10, 20, 3) and len(figure.axes[0].images) == 1


@needs_matplotlib
def test_a_matplotlib_window_closed_by_another_env_opens_again_at_the_next_picture(pyplot_windows, toy_picture):
    import copy

    plt = pyplot_windows
    env = toy_picture.env(render_mode="human")
    env.reset(seed=0)
    env.render()
    twin = copy.deepcopy(env)
    twin.render()
    twin.close()  # the window of that title goes with it
    assert plt.get_fignums() == []
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    env.render()
    assert len(plt.get_fignums()) == 1
    np.testing.assert_array_equal(plt.gcf().axes[0].images[0].get_array(), draw_state(env))


def test_record_bots_example_writes_a_gif_a_replay_and_a_still(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from PIL import Image

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, str(root / "examples" / "record_bots.py"), "--games", "terralore", "--frames",
                    "4", "--out", str(tmp_path), "--still-dir", str(tmp_path / "stills")],
                   check=True, capture_output=True, env=env)
    with Image.open(tmp_path / "terralore.gif") as gif:
        assert gif.n_frames >= 2
    with Image.open(tmp_path / "stills" / "terralore.png") as still:
        assert still.size == gif.size
    from tabletop_envs.core.replay import Replay

    assert Replay.load(tmp_path / "terralore.replay.json").replay().game_state.is_terminal()


# What drew docs/images: another Pillow (shapes) or FreeType and font file (text) draws other pixels
# everywhere, so there a picture cannot be compared and the test below skips (Pillow 10.1 at the dependency
# floors drew all three otherwise).
_DRAWN_WITH = {"Pillow": "13.0.0", "FreeType": "2.14.3"}
_TEXT_CANARY_SHA256 = "30b31f4a3c2b83793cff57a123645ce6a5763f698df7033bf23efd1617d24fc3"


def test_the_readme_pictures_are_what_record_bots_draws_now():
    # The Earth still showed a catalogue two changes old (found by a docs audit): nothing compared them.
    import hashlib
    import importlib.util
    from pathlib import Path

    import PIL
    from PIL import Image, ImageDraw, features

    from tabletop_envs.core.render import font

    here = {"Pillow": PIL.__version__, "FreeType": features.version("freetype2")}
    if here != _DRAWN_WITH:
        pytest.skip(f"docs/images were drawn with {_DRAWN_WITH}, this machine has {here}")
    canary = Image.new("RGB", (420, 44), (0, 0, 0))
    draw = ImageDraw.Draw(canary)
    draw.text((2, 2), "Terralore · Earth 0123456789 VP", fill=(255, 255, 255), font=font(14))
    draw.text((2, 22), "Travel Earth · soil 5 hand 11", fill=(255, 255, 255), font=font(14, bold=True))
    if hashlib.sha256(np.asarray(canary).tobytes()).hexdigest() != _TEXT_CANARY_SHA256:
        pytest.skip("this machine draws text with other fonts than the machine that drew docs/images")
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("record_bots", root / "examples" / "record_bots.py")
    record_bots = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record_bots)
    stale = []
    for env_name in available_envs():  # record_bots' defaults: seed 1, one try, 40 frames, Earth at 3 seats
        players = 3 if len(ENVS[env_name].player_counts) > 1 else None
        drawn = record_bots.busiest(record_bots.frames_of(record_bots.play(env_name, 1, players), 40))
        game = env_name.rsplit("_v", 1)[0]
        with Image.open(root / "docs" / "images" / f"{game}.png") as still:
            shown = np.asarray(still.convert("RGB"))
        if shown.shape != drawn.shape or not np.array_equal(shown, drawn):
            stale.append(game)
    assert not stale, (f"{', '.join(f'docs/images/{game}.png' for game in stale)}: not what the game draws now; "
                       "redraw with python examples/record_bots.py --still-dir docs/images")


@pytest.mark.parametrize("args, message", [
    (["--games", "chess"], "unknown game 'chess'; choose one of: earth, terralore, travel_earth"),
    # each was a traceback (found by a user audit): ZeroDivisionError, numpy's ValueError, max() of nothing
    (["--fps", "0"], "--fps must be from 0.01 to 100"),
    (["--frames", "-1"], "--frames must be at least 2"),
    (["--tries", "0"], "--tries must be at least 1"),
    (["--games", "earth", "--players", "9"], "--players 9: earth_v0 takes 1, 2, 3, 4, 5"),
    (["--seed", "-1"], "--seed must be a non-negative integer, got -1"),  # a ReplayError traceback
    (["--still-dir", __file__], "is a file: give a folder to write into"),  # FileExistsError
])
def test_record_bots_example_refuses_bad_arguments_naming_them(args, message, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(root / "examples" / "record_bots.py"), *args, "--out", str(tmp_path)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert message in done.stderr


def test_gymnasium_rgb_array_list_collects_one_picture_per_reset_and_step():
    # gymnasium.make reads the render modes from SingleAgentEnv.metadata to wrap the env in RenderCollection
    import gymnasium

    import tabletop_envs  # noqa: F401  (registers the gymnasium ids)

    name = available_envs()[0]
    single = gymnasium.make(ENVS[name].gymnasium_id, render_mode="rgb_array_list", opponent=f"{name}/random")
    single.reset(seed=0)
    single.step(int(np.flatnonzero(single.unwrapped.action_masks())[0]))
    frames = single.render()
    assert len(frames) == 2 and all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)
    single.close()


def test_a_window_on_a_video_driver_sdl_cannot_start_is_refused_naming_the_driver(monkeypatch):
    # SDL_VIDEODRIVER misspelt, or naming a driver this pygame was built without: pygame.error at its start
    pygame = pytest.importorskip("pygame")
    from tabletop_envs.core.errors import TabletopError
    from tabletop_envs.core.render import PygameViewer

    pygame.display.quit()  # a display an earlier test started keeps its driver: SDL reads the variable at its start
    monkeypatch.setenv("SDL_VIDEODRIVER", "x11_misspelt")
    with pytest.raises(TabletopError, match=r"no display to open a window on \(x11_misspelt not available\): run "
                                            "where a display is"):
        PygameViewer("test")


def test_a_window_where_no_display_is_is_refused_instead_of_drawing_nowhere(monkeypatch):
    # found by a user audit: SDL fell back to its offscreen driver and --window showed nothing, silently
    pytest.importorskip("pygame")
    from tabletop_envs.core import render
    from tabletop_envs.core.errors import TabletopError
    from tabletop_envs.core.render import PygameViewer

    for name in ("SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(TabletopError, match="no display to open a window on .*leave out --window"):
        PygameViewer("test")
    # nor handed on to matplotlib, whose window would draw nowhere as well: only a missing library falls back
    monkeypatch.setattr(render, "MatplotlibViewer", lambda title: pytest.fail("fell back to matplotlib"))
    with pytest.raises(TabletopError, match="no display to open a window on"):
        render.make_viewer("test")


@pytest.mark.parametrize("env_name", ["terralore_v0", "travel_earth_v0", "earth_v0"])
def test_pictures_draw_on_a_fips_mode_machine_where_md5_is_refused_for_security_use(env_name, monkeypatch):
    import hashlib

    from tabletop_envs.core import render

    md5 = hashlib.md5

    def fips_md5(data=b"", *, usedforsecurity=True):  # as OpenSSL in FIPS mode answers
        if usedforsecurity:
            raise ValueError("[digital envelope routines] unsupported")
        return md5(data, usedforsecurity=False)

    monkeypatch.setattr(hashlib, "md5", fips_md5)
    env = ENVS[env_name].load_module().env(render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().ndim == 3
    assert render.color_for("forest") == tuple(130 + b % 90 for b in md5(b"forest").digest()[:3])  # colours as before


# ---------------------------------------------------------------- gaps found by mutation testing core/render.py

@pytest.fixture()
def drawn_texts(monkeypatch):
    """Every ``Canvas.text`` call as ``(x, y, text, size)``, card tiles drawn afresh (not from the cache)."""
    from tabletop_envs.core import render

    calls = []
    real = render.Canvas.text

    def text(self, x, y, text, size=14, *args, **kwargs):
        calls.append((x, y, text, size))
        return real(self, x, y, text, size, *args, **kwargs)

    monkeypatch.setattr(render.Canvas, "text", text)
    render._card_tile.cache_clear()
    yield calls
    render._card_tile.cache_clear()


def test_fit_keeps_a_text_of_exactly_the_width_and_cuts_a_longer_one_to_within_it_with_an_ellipsis():
    canvas = Canvas(10, 10)
    name = "Abyssal Leviathan"
    full = canvas.text_width(name, 13)
    assert canvas.fit(name, full, 13) == name
    for width in range(20, full, 5):
        cut = canvas.fit(name, width, 13)
        assert cut.endswith("…") and canvas.text_width(cut, 13) <= width, (width, cut)
    assert canvas.text(0, 0, name, 13, max_width=40) <= 40  # the width drawn, once cut


def test_wrap_cuts_a_word_wider_than_a_line_on_its_first_line_and_ends_the_last_line_with_an_ellipsis():
    canvas = Canvas(10, 10)
    first = canvas.wrap("Supercalifragilistic card", 40, 12, max_lines=2)
    assert first[0].startswith("Sup") and first[0].endswith("…") and first[1] == "card"
    words = "one two three four five six seven"
    two_words = canvas.text_width("three four", 12) + 2
    lines = canvas.wrap(words, two_words, 12, max_lines=2)
    assert len(lines) == 2 and lines[0] == "one two" and lines[1].endswith("…")
    assert canvas.wrap("aaa bbb ccc", two_words, 12, max_lines=3, first_width=canvas.text_width("aaa", 12) + 2) == [
        "aaa", "bbb ccc"]


def test_a_bar_beyond_full_or_below_empty_stays_within_its_frame():
    canvas = Canvas(200, 20, (0, 0, 0))
    canvas.bar(0, 0, 100, 10, 2.0, color=(255, 0, 0), back=(40, 40, 40))
    canvas.bar(0, 10, 100, 10, -1.0, color=(255, 0, 0), back=(40, 40, 40))
    picture = canvas.array()
    assert tuple(picture[5, 50]) == (255, 0, 0) and tuple(picture[5, 150]) == (0, 0, 0)
    assert not (picture[10:] == (255, 0, 0)).all(axis=-1).any()


def test_pills_keep_their_colours_and_a_first_pill_wider_than_the_row_stays_on_the_first_line():
    canvas = Canvas(300, 100, (0, 0, 0))
    assert canvas.pills(5, 5, [("a very long resource name", 12)], 20) == 5 + 13 + 12  # one line
    canvas = Canvas(300, 100, (0, 0, 0))
    canvas.pills(5, 5, {"gold": 3}, 290, colors=[(200, 30, 30)])
    assert tuple(canvas.array()[15, 10]) == (200, 30, 30)


def test_pills_take_their_colours_in_turn_and_write_dark_on_a_light_one():
    canvas = Canvas(300, 100, (0, 0, 0))
    light, dark = (250, 240, 200), (30, 30, 90)
    canvas.pills(5, 5, [("a", 1), ("b", 2), ("c", 3)], 290, colors=[light, dark])
    picture = canvas.array()
    starts = [5]
    for label in "ab":
        starts.append(starts[-1] + canvas.text_width(f"{label} 1", 13, True) + 14 + 6)
    assert [tuple(picture[15, x + 3]) for x in starts] == [light, dark, light]
    # light text on the light pill would be unreadable: its letters are dark
    assert picture[9:22, starts[0] + 7:starts[1] - 13].sum(axis=2).min() < 300


def test_the_corner_and_top_right_naming_the_same_text_is_no_conflict():
    assert CardFace("Card", corner="3", top_right=3).corners() == ("", "3", "", "")


def test_pills_without_labels_that_fit_a_row_exactly_stay_on_one_row():
    # an unlabelled pill is drawn as its value alone: measured as " value", the last one of a full row wrapped
    canvas = Canvas(400, 100)
    widths = [canvas.pill(0, 0, "", value) for value in ("12", "34")]
    assert canvas.pills(0, 0, [("", "12"), ("", "34")], max_width=widths[0] + 6 + widths[1]) == 13 + 12


def test_a_card_row_overlaps_only_cards_that_do_not_fit_and_then_ends_at_the_rows_width():
    canvas = Canvas(400, 140)
    face = CardFace("Oak")
    assert canvas.card_row(0, 0, [face] * 3, max_width=310) == 3 * 96 + 2 * 6  # side by side, gaps kept
    assert canvas.card_row(0, 0, [face] * 9, max_width=290) == pytest.approx(290)  # fanned out, the last at the edge


def test_a_pile_shows_layers_for_several_cards_and_only_an_outline_when_empty():
    def pile(count):
        canvas = Canvas(140, 170, (0, 0, 0))
        canvas.pile(10, 20, "deck", count)
        return canvas.array()

    assert tuple(pile(1)[40, 96 + 10 + 5]) == (0, 0, 0) and tuple(pile(4)[40, 96 + 10 + 5]) != (0, 0, 0)
    assert tuple(pile(0)[60, 58]) == (0, 0, 0)  # inside the outline: no card back


def test_an_empty_card_row_with_a_placeholder_takes_one_cards_room_and_without_one_takes_none(drawn_texts):
    # an empty hand or lane still shows where its cards go, so the layout after it does not move
    canvas = Canvas(300, 140)
    assert canvas.card_row(10, 0, [], max_width=280) == 10 and drawn_texts == []
    assert canvas.card_row(10, 0, [], max_width=280, empty="no cards") == 10 + 96
    assert [text for _, _, text, _ in drawn_texts] == ["no cards"]


def test_a_pile_grows_by_one_layer_a_card_up_to_four_and_no_further():
    # a fixed most layers keeps a big deck inside the room a game's layout gives its pile
    def pile(count):
        canvas = Canvas(150, 170, (0, 0, 0))
        canvas.pile(10, 20, "deck", count)
        return canvas.array()[:20 + 128]  # above the count written under it

    fourth_layer = (40, 10 + 96 + 8)  # right of the third layer, inside the fourth
    assert tuple(pile(3)[fourth_layer]) == (0, 0, 0) and tuple(pile(4)[fourth_layer]) != (0, 0, 0)
    assert (pile(40) == pile(4)).all()


def test_a_pile_given_its_top_card_shows_that_card_on_top(drawn_texts):
    Canvas(140, 170).pile(10, 20, "discard", 3, face_down=False, top=CardFace("Oak"))
    assert "Oak" in [text for _, _, text, _ in drawn_texts]


def test_a_panel_without_a_title_has_its_inside_just_within_its_frame(drawn_texts):
    canvas = Canvas(200, 100)
    assert canvas.panel(10, 20, 100, 50) == (18, 28) and drawn_texts == []
    assert canvas.panel(10, 20, 100, 50, "Deck") == (18, 48)  # a title takes the top 20 pixels more


def test_a_picture_given_as_an_array_of_another_type_becomes_bytes():
    picture = to_array(np.full((2, 3, 3), 7.0))
    assert picture.dtype == np.uint8 and picture.shape == (2, 3, 3) and (picture == 7).all()


def test_text_on_a_colour_is_dark_on_light_and_light_on_dark():
    from tabletop_envs.core.render import DARK_TEXT, TEXT, _readable_on

    assert _readable_on((250, 240, 200)) == DARK_TEXT and _readable_on((30, 30, 60)) == TEXT


def test_a_picture_with_other_than_three_channels_is_refused():
    with pytest.raises(ValueError, match="must be HxWx3, got shape"):
        to_array(np.zeros((4, 4, 4), np.uint8))


@pytest.mark.parametrize("height", [120, 121, 125, 640])
def test_a_text_picture_too_long_for_its_height_ends_with_an_ellipsis_inside_it(drawn_texts, height):
    # found by mutation testing: the "…" was drawn below the picture's bottom edge (at the default 900×640 too)
    text_picture("\n".join(f"line {i}" for i in range(100)), 200, height)
    assert drawn_texts[-1][2] == "…" and all(y + 17 <= height for _, y, _, _ in drawn_texts)


def test_a_text_picture_that_fits_its_height_shows_every_line_and_no_ellipsis(drawn_texts):
    text_picture("\n".join(f"line {i}" for i in range(6)), 200, 10 + 6 * 17)
    assert [text for _, _, text, _ in drawn_texts] == [f"line {i}" for i in range(6)]


def test_a_text_picture_lines_up_tabbed_columns_with_spaces(drawn_texts):
    # a font draws a tab as a box or nothing: a tabbed table of the text view lost its columns
    text_picture("name\tcost\nOak\t3", 400, 200)
    assert [text for _, _, text, _ in drawn_texts] == ["name    cost", "Oak 3"]


def test_a_gif_loops_forever(tmp_path):
    # loop=0 is GIF's "forever"; any other count stops the game's animation after that many plays
    from PIL import Image

    path = save_gif([np.zeros((4, 4, 3), np.uint8), np.full((4, 4, 3), 255, np.uint8)], tmp_path / "g.gif")
    with Image.open(path) as gif:
        assert gif.info["loop"] == 0


def test_a_games_drawing_module_that_fails_to_import_a_library_is_an_error_not_a_silent_text_picture(tmp_path,
                                                                                                    monkeypatch):
    from tabletop_envs.core.render import find_draw_function

    package = tmp_path / "brokengame"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "engine.py").write_text("class Game:\n    pass\n", encoding="utf-8")
    (package / "render.py").write_text("import a_library_not_installed\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from brokengame.engine import Game

    class Env:
        game = Game()

    with pytest.raises(ModuleNotFoundError, match="a_library_not_installed"):
        find_draw_function(Env())


@pytest.mark.parametrize("modules, found", [({"picture.py": "def draw_table(state, player=None):\n    pass\n"}, True),
                                            ({}, False)], ids=["picture module only", "no drawing module"])
def test_a_games_drawing_is_looked_for_in_its_picture_module_where_it_has_no_render_module(tmp_path, monkeypatch,
                                                                                           modules, found):
    # a package without its own drawing gets its text as a picture (find_draw_function gives None)
    import importlib

    from tabletop_envs.core.render import find_draw_function

    package = tmp_path / f"plaingame{len(modules)}"
    package.mkdir()
    for name, text in {"__init__.py": "", "engine.py": "class Game:\n    pass\n", **modules}.items():
        (package / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    engine = importlib.import_module(f"{package.name}.engine")

    class Env:
        game = engine.Game()

    draw = find_draw_function(Env())
    assert (draw is importlib.import_module(f"{package.name}.picture").draw_table) if found else draw is None


def test_a_gif_plays_at_the_frame_rate_asked_and_is_written_into_a_new_folder(tmp_path):
    from PIL import Image

    frame = np.zeros((8, 8, 3), np.uint8)
    path = save_gif([frame, frame + 255], tmp_path / "new" / "folder" / "a.gif", fps=4)
    with Image.open(path) as gif:
        assert gif.info["duration"] == 250
    with pytest.raises(ValueError, match="no frames to save"):
        save_gif([], tmp_path / "b.gif")


def test_mix_moves_a_colour_the_given_share_towards_the_other():
    from tabletop_envs.core.render import mix

    assert mix((0, 0, 0), (100, 200, 40), 0.25) == (25, 50, 10)


def test_a_corner_number_gets_a_round_badge_and_two_long_corner_words_shrink_to_fit_the_card(drawn_texts):
    from tabletop_envs.core.render import BADGE

    canvas = Canvas(10, 10)
    assert canvas._badge_widths("12", "", 96) == (BADGE, 0)
    left, right = canvas._badge_widths("legendary", "shadowfire", 96)
    assert left + right <= 96 - 8 - 4
    canvas = Canvas(110, 140)
    canvas.card(2, 2, CardFace("Oak", top_left="12"))
    assert any(text == "12" and size == 11 for _, _, text, size in drawn_texts)


def test_a_corner_number_keeps_its_round_badge_beside_a_corner_word_too_long_for_the_card_which_takes_the_rest():
    from tabletop_envs.core.render import BADGE

    room = 96 - 8 - 4
    assert Canvas(10, 10)._badge_widths("3", "shadowfire legendary", 96) == (BADGE, room - BADGE)
    assert Canvas(10, 10)._badge_widths("shadowfire legendary", "3", 96) == (room - BADGE, BADGE)


def test_a_name_starts_below_a_top_left_badge_not_beside_it(drawn_texts):
    from tabletop_envs.core.render import BADGE

    Canvas(110, 140).card(0, 0, CardFace("Oak", top_left="3"))
    assert next(y for _, y, text, _ in drawn_texts if text == "Oak") >= BADGE


def test_a_name_starts_beside_a_wide_top_right_word_while_that_leaves_it_a_third_of_the_card(drawn_texts):
    from tabletop_envs.core.render import BADGE

    # "water" takes 40 px of a 96 px card: 44 px are left beside it, more than a third, so the name is not pushed down
    Canvas(110, 140).card(0, 0, CardFace("Oak", top_right="water"))
    assert next(y for _, y, text, _ in drawn_texts if text == "Oak") < BADGE


def test_a_long_name_gets_a_smaller_font_down_to_nine_points_before_it_gets_an_ellipsis(drawn_texts):
    # "Thunderstrike" is 87 px bold at 11 points, one more than the 86 a 96 px card has for it; at 10 it fits whole
    Canvas(110, 140).card(0, 0, CardFace("Thunderstrike"))
    assert [(text, size) for _, _, text, size in drawn_texts] == [("Thunderstrike", 10)]


def test_a_dim_a_highlighted_and_a_face_down_card_each_look_different_from_the_plain_card():
    def drawn(**look):
        canvas = Canvas(100, 130)
        canvas.card(2, 2, CardFace("Oak", ["ATK 3"], footer="wood", **look))
        return canvas.array()

    plain = drawn()
    for look in ({"dim": True}, {"highlight": True}, {"face_down": True}):
        assert not np.array_equal(drawn(**look), plain), look
    from tabletop_envs.core.render import HIGHLIGHT

    assert tuple(drawn(highlight=True)[66, 3]) == HIGHLIGHT  # its frame, halfway down the left edge


def test_a_face_down_card_shows_the_label_on_its_back_and_nothing_of_its_face(drawn_texts):
    # the back stands for a card the viewer may not see: its stats, footer and corners would name it
    Canvas(110, 140).card(0, 0, CardFace("face down", ["ATK 3"], footer="wood", text="Draw a card.",
                                         top_left="2", bottom_right="fire", face_down=True))
    assert [text for _, _, text, _ in drawn_texts] == ["face down"]


def test_a_cards_stat_lines_that_do_not_fit_are_left_off_inside_the_card(drawn_texts):
    Canvas(110, 140).card(0, 0, CardFace("Oak", [f"stat {i}" for i in range(30)], footer="wood"))
    assert all(y + size <= 128 for _, y, _, size in drawn_texts)


@needs_matplotlib
def test_a_matplotlib_window_given_a_picture_of_another_size_shows_it_whole(pyplot_windows):
    from tabletop_envs.core.render import MatplotlibViewer

    viewer = MatplotlibViewer("sizes")
    viewer.show(np.zeros((30, 40, 3), np.uint8))
    viewer.show(np.zeros((10, 20, 3), np.uint8))
    assert viewer.axes.images[0].get_extent() == [-0.5, 19.5, 9.5, -0.5]
    viewer.close()
