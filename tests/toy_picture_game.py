"""The toy game of toy_game.py with a table picture, to test the drawing hook and the image modes."""

from __future__ import annotations

import toy_game
from toy_game import ToyGame, ToyState  # noqa: F401  (re-exported for the registry entry)

from tabletop_envs.core.render import Canvas, CardFace


def draw_toy(state, player=None):
    canvas = Canvas(480, 320)
    canvas.text(10, 8, f"toy · turn {state.turn_no}", 16, bold=True)
    for seat in range(2):
        y = 40 + seat * 140
        hidden = player is not None and player != seat
        hand = [CardFace(face_down=True) if hidden else CardFace(f"card {c}", corner=str(c), lines=[f"value {c}"])
                for c in state.hands[seat]]
        canvas.card_row(10, y, hand, 220, w=60, h=80)
        canvas.card_row(250, y, [CardFace(str(c), corner=str(c)) for c in state.played[seat]], 220, w=40, h=60)
    canvas.pile(400, 250, "deck", len(state.deck), w=30, h=40)
    return canvas


class raw_env(toy_game.raw_env):
    metadata = {**toy_game.raw_env.metadata, "render_modes": ["ansi", "rgb_array", "human"]}
    draw_table = staticmethod(draw_toy)


def env(**kwargs):
    return raw_env(**kwargs)
