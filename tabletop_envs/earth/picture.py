"""The Earth table as a picture (``render_mode="rgb_array"`` / ``"human"``).

(``render.py`` in this folder is Earth's text view; the core looks for ``draw_table`` in ``render``
and then in ``picture``.)

At the top, the shared board: draw pile and discard, a key to the habitats' initials, the four fauna
objectives with the leaves claimed on them, the two public ecosystems. Below, one panel per player:
their 4×4 tableau (each card with its cost, VP, habitats, sprouts and growth), soil, hand, compost and
events, island and climate. With ``player`` given, other players' hands and personal ecosystems stay hidden, as do their
island and climate while the sides are being chosen, and their running score (which counts the
hidden ecosystem).
"""

from __future__ import annotations

from ..core.render import HIGHLIGHT, MUTED, SEAT_COLORS, TEXT, Canvas, CardFace
from .catalogue import ACTIONS, HABITATS
from .render import pending_decision, round_and_turn
from .scoring import BEGINNER_FAUNA_VP, FAUNA_TIERS, final_score

WIDTH = 1400
BOARD_H = 176
PANEL_W, PANEL_H = 454, 486
CELL_W, CELL_H, GAP = 68, 98, 4
#: frame colour of a card by the colour of its first ability (the action it answers to)
ABILITY_COLORS = {"green": (90, 170, 80), "red": (210, 80, 70), "blue": (70, 130, 210), "yellow": (225, 190, 60),
                  "multi": (170, 120, 200), "black": (70, 70, 70), "brown": (150, 105, 60)}
NO_ABILITY = (175, 175, 165)


def picture_size(num_players: int) -> tuple[int, int]:
    rows = 1 if num_players <= 3 else 2
    return WIDTH, 36 + BOARD_H + rows * (PANEL_H + 8) + 4


def cell_face(state, p: int, cell: int) -> CardFace:
    cat = state.game.cat
    card = state.grid[p][cell]
    rec = cat.earth[card]
    colours = cat.colours_of[card]
    # no corner: names need the width. Habitats score (longest paths, habitat counts), so each card shows
    # its own, by initial (the board has the key): a flora card's four lines then fill the card, so its cost
    # and VP share a line, which the bold lines of a card with three have no width for
    habitats = " ".join(h[0].upper() for h in rec["habitats"]) or "no habitat"
    if cat.is_flora[card]:
        lines = [f"{int(cat.cost[card])} soil · {int(cat.vp[card])} VP", habitats,
                 f"sprouts {state.spr[p][cell]}/{int(cat.sprout_spaces[card])}",
                 f"growth {state.gro[p][cell]}/{int(cat.max_growth[card])}"]
        footer = rec["type"]
    else:
        lines = [f"cost {int(cat.cost[card])} soil", f"{int(cat.vp[card])} VP", habitats]
        footer = rec["kind"]
    return CardFace(rec["name"], lines, footer=footer,
                    color=ABILITY_COLORS.get(colours[0], NO_ABILITY) if colours else NO_ABILITY)


def draw_table(state, player: int | None = None) -> Canvas:
    canvas = Canvas(*picture_size(state.n))
    _header(canvas, state, player)
    _board(canvas, state, 36)
    for q in range(state.n):
        row, col = divmod(q, 3)
        _panel(canvas, state, q, 8 + col * (PANEL_W + 11), 36 + BOARD_H + row * (PANEL_H + 8), player)
    return canvas


def _header(canvas: Canvas, state, player: int | None) -> None:
    canvas.box(0, 0, canvas.width, 30, fill=(15, 50, 32), outline=None, radius=0)
    round_number, turn_number = round_and_turn(state)
    canvas.text(10, 6, f"Earth · {state.n} player{'s' if state.n > 1 else ''} · round {round_number} · "
                       f"turn {turn_number}", 16, bold=True)
    if state.phase == "over":
        # the rules' winners: VP, then the five tiebreakers (as the returns rank the seats), not every seat tied on VP
        standings = list(state.standings())
        winners = [q for q in range(state.n) if standings[q] == max(standings)]
        broken = sum(score == max(state.scores) for score in state.scores) > len(winners)
        status = ("game over · scores " + " / ".join(map(str, state.scores))
                  + f" · best: {', '.join(f'P{q}' for q in winners)}" + (" (on the tiebreakers)" if broken else ""))
    else:
        action = f" · action: {ACTIONS[state.action]}" if state.action >= 0 else ""
        shown = pending_decision(state, player)
        status = (f"{state.phase} · active P{state.active}{action} · P{state.queue[0]['p']} "
                  + ("to decide" if shown is None else f"decides: {shown}")
                  + (" · LAST ROUND" if state.end_triggered else ""))
    canvas.text(canvas.width - 10, 7, status, 14, HIGHLIGHT if state.end_triggered else TEXT, anchor="ra",
                max_width=canvas.width - 420)


def _board(canvas: Canvas, state, y: int) -> None:
    cat = state.game.cat
    canvas.pile(14, y + 14, "deck", len(state.deck), w=62, h=84)
    canvas.pile(96, y + 14, "discard", len(state.discard), face_down=False, w=62, h=84)
    canvas.text(14, y + 118, "habitats on cards:", 11, MUTED, bold=True)
    canvas.lines(14, y + 134, [" · ".join(f"{h[0].upper()} {h}" for h in pair) for pair in (HABITATS[:2], HABITATS[2:])],
                 11, MUTED)
    tiers = [BEGINNER_FAUNA_VP] * 5 if state.game.fauna_side == "beginner" else list(FAUNA_TIERS)
    x = 176
    for f, side in enumerate(state.fauna):
        rec = cat.fauna[side]
        ix, iy = canvas.panel(x, y + 4, 228, BOARD_H - 12, rec["name"], fill=(40, 78, 60))
        iy = canvas.lines(ix, iy, canvas.wrap(rec["text"], 212, 12, max_lines=3), 12, TEXT)
        # leaves in claim order, each with its VP tier; five leaves need two rows in the panel
        leaves = [(f"P{q}", tiers[min(order, len(tiers) - 1)]) for order, q in enumerate(state.leaves[f])]
        canvas.pills(ix, iy + 6, leaves, 212, colors=[SEAT_COLORS[q % len(SEAT_COLORS)] for q in state.leaves[f]],
                     size=12)
        if not state.leaves[f]:
            canvas.text(ix, iy + 8, "open: " + "/".join(map(str, tiers)) + " VP", 11, MUTED)
        x += 236
    canvas.text(x, y + 6, "public ecosystems", 13, MUTED, bold=True)
    ey: float = y + 24
    for e in state.public_eco:
        rec = cat.ecosystems[e]
        canvas.text(x, ey, rec["name"], 13, HIGHLIGHT, bold=True, max_width=WIDTH - x - 10)
        ey = canvas.lines(x, ey + 17, canvas.wrap(rec["text"], WIDTH - x - 10, 11, max_lines=3), 11, TEXT)
        ey += 6


def _panel(canvas: Canvas, state, q: int, x: int, y: int, viewer: int | None) -> None:
    cat = state.game.cat
    sees = viewer is None or viewer == q
    color = SEAT_COLORS[q % len(SEAT_COLORS)]
    # "completed first" without its 7 VP, which the text view gives: no room here beside every other mark
    marks = ("  (you)" if viewer == q else "") + ("  · first player" if state.first == q else "") + \
        ("  · active" if state.active == q and state.phase == "play" else "") + \
        ("  · completed first" if state.bonus == q else "")
    canvas.panel(x, y, PANEL_W, PANEL_H, f"P{q}{marks}", title_color=color,
                 outline=HIGHLIGHT if state.phase == "play" and state.active == q else (90, 150, 110),
                 width=2 if state.phase == "play" and state.active == q else 1)
    gx, gy = x + 8, y + 30
    for cell in range(16):
        r, c = divmod(cell, 4)
        cx, cy = gx + c * (CELL_W + GAP), gy + r * (CELL_H + GAP)
        if state.grid[q][cell] >= 0:
            canvas.card(cx, cy, cell_face(state, q, cell), CELL_W, CELL_H)
        else:
            canvas.box(cx, cy, cx + CELL_W, cy + CELL_H, fill=None, outline=(70, 110, 85), radius=6)
    sx = gx + 4 * (CELL_W + GAP) + 6
    width = x + PANEL_W - sx - 6
    counts = [("soil", state.soil[q]), ("hand", len(state.hands[q])), ("compost", len(state.compost[q])),
              ("events", len(state.events[q])), ("sprouts", sum(state.spr[q])), ("growth", sum(state.gro[q]))]
    if state.phase == "over":
        counts.append(("score", state.scores[q]))
    elif sees and state.phase == "play":
        counts.append(("score now", final_score(state, q)))
    sy = canvas.pills(sx, gy, counts, width, size=12)
    if state.last_action[q] >= 0:
        canvas.text(sx, sy, f"last action: {ACTIONS[state.last_action[q]]}", 11, MUTED)
        sy += 16
    if state.island[q] >= 0 and (sees or state.phase != "setup"):
        sy = _named(canvas, sx, sy, "island", cat.islands[state.island[q]], width)
        if state.climate[q] >= 0:  # in setup the island side is chosen first
            sy = _named(canvas, sx, sy, "climate", cat.climates[state.climate[q]], width)
    if sees and state.eco[q] >= 0:
        sy = _named(canvas, sx, sy, "ecosystem", cat.ecosystems[state.eco[q]], width)
    if state.events[q]:
        canvas.text(sx, sy, "events: " + ", ".join(cat.names[c] for c in state.events[q]), 11, TEXT,
                    max_width=width)
    if sees:
        hand = ", ".join(cat.names[c] for c in sorted(state.hands[q])) or "-"
        if state.drawn[q]:
            hand += "  ·  drawn (keep 1): " + ", ".join(cat.names[c] for c in state.drawn[q])
        canvas.lines(x + 8, gy + 4 * (CELL_H + GAP) + 2, canvas.wrap("hand: " + hand, PANEL_W - 16, 11, max_lines=3),
                     11, TEXT)


def _named(canvas: Canvas, x: float, y: float, label: str, rec: dict, width: int) -> float:
    canvas.text(x, y, f"{label}: {rec['name']}", 12, HIGHLIGHT, bold=True, max_width=width)
    return canvas.lines(x, y + 16, canvas.wrap(rec.get("text", ""), width, 10, max_lines=3), 10, TEXT, spacing=2) + 4
