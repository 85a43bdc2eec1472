"""The Travel Earth TCG table as a picture (``render_mode="rgb_array"`` / ``"human"``).

Each side shows its Ready Row and Resting Row (Animal cards with their six printed statistics), its
Reservoir (face-down cards: upright = Full, sideways = Empty), Deck, Hand and Discard Pile; the
challenge being resolved sits in the middle with the compared values, and how the challenge before it
ended (between challenges: how the last one went, step by step). The viewing seat is at the
bottom (seat 0 for the whole-table view). With ``player`` given, the opponent's Hand and Reservoir
are backs, and nobody's unseen starting Reservoir card is shown.
"""

from __future__ import annotations

from ..core.render import (
    CARD_BACK,
    CARD_EDGE,
    HIGHLIGHT,
    MUTED,
    SEAT_COLORS,
    TEXT,
    Canvas,
    CardFace,
    color_for,
)
from .engine import READY

WIDTH, HEIGHT = 1200, 722
CARD_W, CARD_H = 100, 132
GROUP_COLORS = {"land mammal": (190, 140, 80), "bird": (110, 170, 220), "marine mammal": (60, 120, 200),
                "reptile": (110, 170, 90), "fish": (80, 190, 200), "amphibian": (150, 200, 90),
                "mollusc/crustacean": (220, 120, 110)}
#: short name and unit of each statistic, by catalogue key, so six fit on a card
STAT_SHORT = {"top_speed": ("Speed", "km/h"), "weight": ("Weight", "kg"), "length": ("Length", "m"),
              "lifespan": ("Life", "y"), "offspring": ("Brood", ""), "development": ("Devel.", "d")}


def _value(v: float) -> str:
    if abs(v) >= 10_000:
        return f"{v / 1000:.3g}k"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def _stat_label(cat, stat: int) -> tuple[str, str]:
    key = cat.statistics[stat]["key"]
    return STAT_SHORT.get(key, (cat.stat_names[stat], cat.stat_units[stat]))


def card_face(cat, card: int, **extra) -> CardFace:
    info = cat.cards[card]
    lines = []
    for s in range(len(cat.stat_names)):
        name, unit = _stat_label(cat, s)
        lines.append(f"{name} {_value(cat.values[card][s])} {unit}".rstrip())
    ability = info.get("ability")
    footer = cat.abilities[ability]["name"] if ability else info["group"]
    return CardFace(info["name"], lines, corner="", footer=footer,
                    color=GROUP_COLORS.get(info["group"], color_for(info["group"])), **extra)


def draw_table(state, player: int | None = None) -> Canvas:
    canvas = Canvas(WIDTH, HEIGHT)
    cat = state.game.catalogue
    me = 0 if player is None else player
    them = 1 - me
    _header(canvas, state)
    _strip(canvas, state, them, 36, player)
    if player is None:  # the whole table: the opponent's Hand too, by name
        names = ", ".join(cat.names[c] for c in sorted(state.hand[them])) or "-"
        canvas.text(10, 62, f"Hand: {names}", 12, MUTED, max_width=WIDTH - 20)
    _rows(canvas, state, them, 80, cat)
    _challenge(canvas, state, 250, cat)
    _rows(canvas, state, me, 344, cat)
    _strip(canvas, state, me, 514, player)
    _hand(canvas, state, me, 546, player, cat)
    return canvas


def _seat_name(state, p: int) -> str:
    return f"Player {1 if p == state.first else 2} (seat {p})"


def _header(canvas: Canvas, state) -> None:
    canvas.box(0, 0, WIDTH, 30, fill=(15, 50, 32), outline=None, radius=0)
    canvas.text(10, 6, f"Travel Earth TCG · turn {state.turn_shown()}", 16, bold=True)
    if state.is_terminal():
        status = "game over: " + ("drawn (stalemate)" if state.drawn_game else
                                  f"{_seat_name(state, state.winner)} wins")
    else:
        status = f"{_seat_name(state, state.player)}'s turn · seat {state.current_player()} decides: {state.phase}"
    canvas.text(WIDTH - 10, 7, status, 14, anchor="ra", max_width=WIDTH - 280)


def _strip(canvas: Canvas, state, p: int, y: int, viewer: int | None) -> None:
    you = " (you)" if viewer == p else ""
    w = canvas.text(10, y + 4, _seat_name(state, p) + you, 15, SEAT_COLORS[p], bold=True)
    x = 20 + w
    counts = {"Deck": len(state.deck[p]), "Hand": len(state.hand[p]), "Discard Pile": len(state.discard[p])}
    for label, value in counts.items():
        x += canvas.pill(x, y + 2, label, value) + 6
    x += 10
    size, empty = state.reservoir_size(p), state.empty[p]
    canvas.text(x, y + 4, f"Reservoir {size}/{state.reservoir_capacity(p)}: {size - empty} Full, {empty} Empty",
                13, TEXT, bold=True)
    x += canvas.text_width(f"Reservoir {size}/{state.reservoir_capacity(p)}: {size - empty} Full, {empty} Empty",
                           13, True) + 10
    for i in range(size):  # upright = Full, sideways = Empty (which card is sideways never matters)
        if i < size - empty:
            canvas.box(x, y, x + 16, y + 24, fill=CARD_BACK, outline=CARD_EDGE, radius=3)
            x += 20
        else:
            canvas.box(x, y + 6, x + 24, y + 22, fill=CARD_BACK, outline=MUTED, radius=3)
            x += 28
    if viewer is None or viewer == p:
        known = [cat_label(state, c) for c in sorted(state.reservoir[p])]
        unseen = ["unseen: " + cat_label(state, c) if viewer is None else "(unseen card)" for c in state.unseen[p]]
        if known or unseen:
            canvas.text(x + 8, y + 5, "holds " + ", ".join(known + unseen), 11, MUTED, max_width=WIDTH - x - 16)


def cat_label(state, card: int) -> str:
    return state.game.catalogue.names[card]


def _rows(canvas: Canvas, state, p: int, y: int, cat) -> None:
    height = CARD_H + 34
    for row, x, cards in (("Ready Row", 10, state.ready[p]), ("Resting Row", 605, state.resting[p])):
        ix, iy = canvas.panel(x, y, 585, height, f"{row} · {len(cards)}", title_color=SEAT_COLORS[p],
                              fill=(30, 80, 54) if row == "Ready Row" else (24, 66, 70))
        faces = [card_face(cat, c, dim=row == "Resting Row") for c in sorted(cards)]
        canvas.card_row(ix + 2, iy, faces, 565, CARD_W, CARD_H, empty="no Animals")


def _challenge(canvas: Canvas, state, y: int, cat) -> None:
    canvas.box(10, y, WIDTH - 10, y + 86, fill=(18, 56, 38), outline=(90, 150, 110))
    log = state.challenge_texts()
    # at the game's end the Challenger Last Resort failed to stop is still set: say how that challenge
    # ended, not that a Defender is being chosen (nor that the rest of the group waits)
    if state.challenger < 0 or state.is_terminal():
        waiting = ", ".join(cat.names[c] for c in sorted(state.queue))
        if not log:
            text = f"Declared Challengers waiting: {waiting}" if waiting else "No challenge in progress."
            canvas.text(WIDTH / 2, y + 43, text, 15, MUTED, anchor="mm", max_width=WIDTH - 40)
            return
        turn, seat, text = log[-1]
        canvas.text(22, y + 8, f"Last challenge · turn {turn + 1}, seat {seat} challenging", 15, HIGHLIGHT, bold=True)
        waiting = "" if state.is_terminal() else waiting
        room = 2 if waiting else 3
        canvas.lines(22, y + 30, _tail(canvas, text, WIDTH - 44, 13, room), 13, TEXT, max_width=WIDTH - 44)
        if waiting:
            canvas.text(22, y + 70, f"waiting: {waiting}", 11, MUTED, max_width=WIDTH - 44)
        return
    attacker = state.player
    canvas.text(22, y + 8, "Challenge", 15, HIGHLIGHT, bold=True)
    stat = state.stat
    if stat >= 0:
        wins = "higher" if cat.stat_sign[stat] > 0 else "lower"
        canvas.text(22, y + 30, f"on {cat.stat_names[stat]} ({wins} wins)", 14, TEXT, bold=True)
    used = [cat.stat_names[s] for s in range(len(cat.stat_names)) if state.used >> s & 1]
    canvas.text(22, y + 52, "used: " + (", ".join(used) or "-"), 12, MUTED, max_width=300)
    _fighter(canvas, 340, y + 10, cat, state.challenger, stat, f"Challenger (seat {attacker})", SEAT_COLORS[attacker])
    canvas.text(660, y + 43, "vs", 22, HIGHLIGHT, bold=True, anchor="mm")
    if state.defender >= 0:
        row = "Ready" if state.defender_row == READY else "Resting"
        _fighter(canvas, 700, y + 10, cat, state.defender, stat, f"{row} Defender (seat {1 - attacker})",
                 SEAT_COLORS[1 - attacker])
        # (a Defender is chosen against a statistic: stat >= 0 here, the state's invariants say so)
        result = {1: "Challenger wins", 0: "tie", -1: "Defender wins"}[state.outcome(state.challenger,
                                                                                     state.defender, stat)]
        canvas.text(WIDTH - 24, y + 43, result, 15, HIGHLIGHT, bold=True, anchor="rm")
    else:
        canvas.text(700, y + 43, "the defending player chooses a Defender …", 14, MUTED, anchor="lm")
    if state.queue:
        canvas.text(22, y + 70, "waiting: " + ", ".join(cat.names[c] for c in sorted(state.queue)), 11, MUTED,
                    max_width=300)
    if len(log) > 1:  # the challenge before this one, whose result came after the last decision
        x = 340 + canvas.text(340, y + 70, "before: ", 11, MUTED)
        canvas.text(x, y + 70, _tail(canvas, log[-2][2], WIDTH - 20 - x, 11, 1)[0], 11, MUTED, max_width=WIDTH - 20 - x)


def _tail(canvas: Canvas, text: str, width: int, size: int, room: int) -> list[str]:
    """``text`` wrapped in ``room`` lines; a longer one loses its beginning, not its end, which says how
    the challenge finished (a long Last Resort fills the strip)."""
    words = text.split()
    lines = canvas.wrap(text, width, size, max_lines=len(words))
    start = sum(len(line.split()) for line in lines[:-room]) if len(lines) > room else 0
    while start:
        lines = canvas.wrap("… " + " ".join(words[start:]), width, size, max_lines=len(words))
        if len(lines) <= room:
            break
        start += 1
    return lines


def _fighter(canvas: Canvas, x: int, y: int, cat, card: int, stat: int, role: str, color) -> None:
    canvas.text(x, y, role, 12, color, bold=True)
    canvas.text(x, y + 18, cat.names[card], 16, TEXT, bold=True, max_width=280)
    if stat >= 0:
        unit = _stat_label(cat, stat)[1]
        canvas.text(x, y + 42, f"{cat.stat_names[stat]}: {_value(cat.values[card][stat])} {unit}", 15, HIGHLIGHT,
                    bold=True)


def _hand(canvas: Canvas, state, p: int, y: int, viewer: int | None, cat) -> None:
    canvas.text(10, y, "Hand", 13, MUTED, bold=True)
    faces = [card_face(cat, c) for c in sorted(state.hand[p])]
    canvas.card_row(10, y + 18, faces, WIDTH - 20, CARD_W, CARD_H, empty="empty Hand")
