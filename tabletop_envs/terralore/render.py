"""The Terralore table as a picture (``render_mode="rgb_array"`` / ``"human"``).

Seen from the viewing seat (the bottom; seat 0 for the whole-table view): each player's defending
lane is on their left, so my defending lane faces the opponent's attacking lane on the left and my
attacking lane faces their defending lane on the right. Castles are HP gauges. With ``player`` given,
the opponent's hand and face-down cards are backs, except hand cards they saw enter it (and with the
``opaque_wall`` option, the opponent stands as they did when the Play Phase began).
"""

from __future__ import annotations

from ..core.render import MUTED, SEAT_COLORS, TEXT, Canvas, CardFace
from .engine import ATTACK, CASTLE_HP, DEFEND, LANE_NAMES

WIDTH, HEIGHT = 1200, 772
AFFINITY_COLORS = {"water": (80, 140, 220), "earth": (150, 110, 70), "fire": (225, 90, 60),
                   "wind": (120, 200, 150), "light": (235, 205, 90), "shadow": (125, 85, 160)}
LANE_W, LANE_H = 585, 168
HAND_CARD = (96, 128)
SMALL_CARD = (96, 96)  # as wide as the others, so that a rarity fits beside the points


def card_face(state, card: int, owner: int | None = None, lane: int | None = None, **extra) -> CardFace:
    """A card as the rule text describes it: cost upper left, affinity upper right, rarity bottom left,
    and bottom right the points as they count now when on the field (a creature's own when not)."""
    c = state.cat[card]
    lines, points = [], ""
    if c.is_creature:
        now = c.points if lane is None else state.card_points(owner, lane, card)
        points = str(now)
        if now != c.points:
            lines.append(f"base {c.points} pts")  # the corner shows what counts; this says it was changed
        if c.slots > 1:
            lines.append(f"{c.slots} slots")
    else:
        lines.append("skill")
    return CardFace(c.name, lines, top_left=str(c.cost), top_right=c.affinity, bottom_left=c.rarity,
                    bottom_right=points,
                    text=" ".join(e for e in [c.text] if e and c.slots <= 1) or _effects_only(c),
                    color=AFFINITY_COLORS.get(c.affinity), **extra)


def _effects_only(c) -> str:
    prefix = f"Occupies {c.slots} lane slots."
    return c.text[len(prefix):].strip() if c.text.startswith(prefix) else c.text


def draw_table(state, player: int | None = None) -> Canvas:
    state = state.seen_by(player)  # the opaque wall hides the opponent's placement from the picture too
    canvas = Canvas(WIDTH, HEIGHT)
    me = 0 if player is None else player
    them = 1 - me
    _header(canvas, state, player)
    # opponent on top: their strip, their hand, then their lanes (attacking on my left)
    _strip(canvas, state, them, 36, player)
    _hand(canvas, state, them, 64, player, SMALL_CARD)
    _lane(canvas, state, them, ATTACK, 10, 166, player)
    _lane(canvas, state, them, DEFEND, 605, 166, player)
    _lane(canvas, state, me, DEFEND, 10, 342, player)
    _lane(canvas, state, me, ATTACK, 605, 342, player)
    _strip(canvas, state, me, 518, player)
    _hand(canvas, state, me, 548, player, HAND_CARD)
    _footer(canvas, state, player)
    return canvas


def _header(canvas: Canvas, state, player: int | None) -> None:
    if state.phase == "over":
        status = f"game over: {state.end_reason}  (returns {state.result[0]:+d} / {state.result[1]:+d})"
    else:
        status = f"{state.phase} phase · player_{state.actor} decides: {state.decision_seen_by(player)}"
    canvas.box(0, 0, WIDTH, 30, fill=(15, 50, 32), outline=None, radius=0)
    canvas.text(10, 6, f"Terralore · turn {state.turn_number}", 16, bold=True)
    canvas.text(WIDTH - 10, 7, status, 14, anchor="ra", max_width=WIDTH - 260)


def _strip(canvas: Canvas, state, p: int, y: int, viewer: int | None) -> None:
    you = " (you)" if viewer == p else ""
    canvas.text(10, y + 4, f"player_{p}{you}", 15, SEAT_COLORS[p], bold=True)
    canvas.bar(140, y + 3, 260, 18, state.castle[p] / CASTLE_HP, (200, 70, 60) if state.castle[p] <= 3 else
               (90, 180, 90), label=f"castle {state.castle[p]}/{CASTLE_HP}")
    counts = {"hand": len(state.hand[p]), "deck": len(state.deck[p]), "graveyard": len(state.graveyard[p]),
              "exile": len(state.exile[p]), "field pts": state.field_points(p)}
    canvas.pills(420, y + 1, counts, 770)


def _hand(canvas: Canvas, state, p: int, y: int, viewer: int | None, size) -> None:
    w, h = size
    if viewer is None or viewer == p:
        faces = [card_face(state, c) for c in state.hand[p]]
    else:  # the cards they saw enter this hand, then backs for the rest (no order is shown); a known
        # card may have gone down face down this turn, so the row never shows more than the hand holds
        size = len(state.hand[p])
        known = [card_face(state, c) for c in state.known_hand[p][:size]]
        faces = known + [CardFace(face_down=True)] * (size - len(known))
    right = canvas.card_row(10, y, faces, WIDTH - 20, w, h, empty="empty hand")
    if viewer is not None and viewer != p and state.known_hand[p] and any(state.face_down[p]):
        # as the text view says it: which card went down is hidden, so a known card may be one of them
        canvas.text(right + 12, y + h / 2, "known cards: in hand or face down", 12, MUTED, anchor="lm",
                    max_width=int(WIDTH - right - 22))


def _lane(canvas: Canvas, state, p: int, lane: int, x: int, y: int, viewer: int | None) -> None:
    title = f"player_{p} {LANE_NAMES[lane]} lane · {state.lane_total(p, lane)} pts"
    ix, iy = canvas.panel(x, y, LANE_W, LANE_H, title, fill=(30, 80, 54) if lane == ATTACK else (24, 66, 70),
                          title_color=SEAT_COLORS[p])
    faces = [card_face(state, c, p, lane) for c in state.field[p][lane]]
    for c in state.face_down[p][lane]:
        if viewer is None or viewer == p:
            face = card_face(state, c, dim=True)
            face.lines = ["face down", *face.lines]  # the footer's room is the rarity's and the points'
            faces.append(face)
        else:
            faces.append(CardFace("face down", face_down=True))
    canvas.card_row(ix + 2, iy, faces, LANE_W - 20, 96, 128, empty="empty")


def _footer(canvas: Canvas, state, viewer: int | None) -> None:
    y = 686
    lines = []
    if state.pending_card >= 0 and (viewer is None or viewer == state.actor):
        lines.append(state.placing_line())
    if state.log:
        lines += canvas.wrap("last reveal: " + "; ".join(state.log), WIDTH - 20, 13, max_lines=4 - len(lines))
    canvas.lines(10, y, lines, 13, TEXT, max_width=WIDTH - 20)
