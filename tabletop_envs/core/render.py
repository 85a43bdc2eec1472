"""Pictures of the table: a small shared drawing toolkit (Pillow) and the ``"human"`` window.

A game supplies one function, ``draw_table(state, player=None) -> Canvas | PIL.Image``, in
``tabletop_envs/<game>/render.py`` or ``picture.py`` (or as ``draw_table`` on its ``raw_env`` class) and lists
``"rgb_array"`` / ``"human"`` in its metadata; :func:`render_env_image` does the rest. With
``player`` given the drawing must show only what that seat may see (``env.render_player``; default
``None``, the whole table, as a spectator's camera for videos). Pictures have a fixed size per game
so frames can be stitched into videos.

Pillow is the ``render`` extra (``pip install tabletop-envs[render]``); this module is imported only
when a picture is asked for.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .engine import check_seat
from .files import user_path
from .registry import import_if_written

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError as exc:  # pragma: no cover - depends on the install
    from .errors import TabletopError

    raise TabletopError("pictures of the table need Pillow: pip install 'tabletop-envs[render]'") from exc

# ---------------------------------------------------------------------------- look
BACKGROUND = (28, 92, 60)  # green baize
PANEL = (22, 70, 46)
PANEL_EDGE = (90, 150, 110)
TEXT = (240, 240, 232)
DARK_TEXT = (25, 25, 30)
MUTED = (170, 190, 175)
CARD = (246, 241, 226)
CARD_EDGE = (60, 50, 40)
CARD_BACK = (70, 60, 130)
HIGHLIGHT = (255, 205, 60)
CARD_W, CARD_H = 96, 128
BADGE, BADGE_TEXT = 20, 10  # height of a corner badge on a card, and its text size for a word

#: named colours for things games share (players, resources)
SEAT_COLORS = [(220, 80, 70), (70, 130, 220), (240, 190, 60), (150, 90, 200), (60, 180, 160)]

_FONT_FILES = {False: ("DejaVuSans.ttf",), True: ("DejaVuSans-Bold.ttf",)}
_FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF", "/Library/Fonts", "C:/Windows/Fonts")


@lru_cache(maxsize=64)
def font(size: int = 14, bold: bool = False):
    """DejaVu Sans (system or matplotlib's copy) so every machine draws the same; else Pillow's own."""
    dirs = list(_FONT_DIRS)
    spec = importlib.util.find_spec("matplotlib")
    if spec and spec.origin:
        dirs.append(os.path.join(os.path.dirname(spec.origin), "mpl-data", "fonts", "ttf"))
    for folder in dirs:
        for name in _FONT_FILES[bold]:
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=50_000)
def _text_width(text: str, size: int, bold: bool) -> int:
    return int(font(size, bold).getlength(text))


def color_for(key: str, lightness: int = 200) -> tuple[int, int, int]:
    """A stable pastel colour for a name (an affinity, a biome …), the same on every run."""
    # not for security: a FIPS-mode OpenSSL (common on government and bank machines) refuses md5 otherwise,
    # and every picture failed there
    digest = hashlib.md5(key.encode(), usedforsecurity=False).digest()
    low = lightness - 70
    return low + digest[0] % 90, low + digest[1] % 90, low + digest[2] % 90


def mix(color: Sequence[int], other: Sequence[int], t: float) -> tuple[int, ...]:
    """``color`` moved a share ``t`` of the way to ``other``, channel by channel (as many as they share)."""
    return tuple(int(a + (b - a) * t) for a, b in zip(color, other))


@dataclass
class CardFace:
    """What a drawn card shows: ``title`` (its name), ``lines`` (stats, one short line each), ``text``
    (rules text), ``footer`` (type or affinity), ``color`` (frame), and a short text in any of its four
    corners (``top_left``, ``top_right``, ``bottom_left``, ``bottom_right``: a number such as a cost, or
    a word such as an element). ``corner`` is the older name of ``top_right``."""

    title: str = ""
    lines: Sequence[str] = field(default_factory=tuple)
    corner: str = ""
    footer: str = ""
    text: str = ""  # rules text, wrapped small under the lines as far as it fits
    color: tuple[int, int, int] | None = None
    face_down: bool = False
    highlight: bool = False  # e.g. the card that just moved, or a selected one
    dim: bool = False  # e.g. exhausted / tapped / spent
    top_left: str = ""
    top_right: str = ""
    bottom_left: str = ""
    bottom_right: str = ""

    def __post_init__(self):
        if self.corner != "" and self.top_right != "" and str(self.corner) != str(self.top_right):
            raise ValueError(f"corner {self.corner!r} and top_right {self.top_right!r} name the same corner")

    def corners(self) -> tuple[str, str, str, str]:
        """The texts of the top-left, top-right, bottom-left and bottom-right corners ("" for none)."""
        top_right = self.top_right if self.top_right != "" else self.corner
        return str(self.top_left), str(top_right), str(self.bottom_left), str(self.bottom_right)


# ---------------------------------------------------------------------------- canvas
class Canvas:
    """A fixed-size picture with helpers for text, panels, cards, piles and counters."""

    def __init__(self, width: int, height: int, background: tuple[int, int, int] = BACKGROUND):
        self.width, self.height = width, height
        self.image = Image.new("RGB", (width, height), background)
        self.draw = ImageDraw.Draw(self.image)

    # -- text
    def text_width(self, text: str, size: int = 14, bold: bool = False) -> int:
        return _text_width(text, size, bold)

    def fit(self, text: str, max_width: int, size: int = 14, bold: bool = False) -> str:
        """``text`` cut with an ellipsis so it fits in ``max_width`` pixels."""
        if self.text_width(text, size, bold) <= max_width:
            return text
        while text and self.text_width(text + "…", size, bold) > max_width:
            text = text[:-1]
        return text + "…"

    def wrap(self, text: str, max_width: int, size: int = 14, bold: bool = False, max_lines: int = 2,
             first_width: int | None = None) -> list[str]:
        """Words in lines of at most ``max_width`` pixels (the first line ``first_width``, e.g. beside a
        corner badge); what does not fit in ``max_lines`` ends the last line with an ellipsis."""
        widths = lambda i: first_width if i == 0 and first_width is not None else max_width  # noqa: E731
        words, line = text.split(), ""
        lines: list[str] = []
        for word in words:
            candidate = f"{line} {word}".strip()
            if self.text_width(candidate, size, bold) <= widths(len(lines)) or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        if line:
            lines.append(line)
        if len(lines) > max_lines:
            lines = lines[:max_lines - 1] + [" ".join(lines[max_lines - 1:])]
        return [self.fit(one, widths(i), size, bold) for i, one in enumerate(lines)]

    def text(self, x: float, y: float, text: str, size: int = 14, color=TEXT, bold: bool = False,
             anchor: str = "la", max_width: int | None = None) -> int:
        """Draw one line; returns its width in pixels."""
        if max_width is not None:
            text = self.fit(text, max_width, size, bold)
        self.draw.text((x, y), text, fill=color, font=font(size, bold), anchor=anchor)
        return self.text_width(text, size, bold)

    def lines(self, x: float, y: float, lines: Sequence[str], size: int = 13, color=TEXT,
              max_width: int | None = None, spacing: int = 3) -> float:
        """Draw lines downwards; returns the y below the last one."""
        for line in lines:
            self.text(x, y, line, size, color, max_width=max_width)
            y += size + spacing
        return y

    # -- shapes
    def box(self, x0, y0, x1, y1, fill=PANEL, outline=PANEL_EDGE, radius: int = 8, width: int = 1) -> None:
        self.draw.rounded_rectangle((x0, y0, x1, y1), radius=radius, fill=fill, outline=outline, width=width)

    def panel(self, x, y, w, h, title: str = "", fill=PANEL, title_color=TEXT, outline=PANEL_EDGE,
              width: int = 1) -> tuple[float, float]:
        """A framed area with a title; returns the top-left of its inside."""
        self.box(x, y, x + w, y + h, fill=fill, outline=outline, width=width)
        if title:
            self.text(x + 10, y + 6, title, 15, title_color, bold=True, max_width=w - 20)
            return x + 8, y + 28
        return x + 8, y + 8

    def bar(self, x, y, w, h, fraction: float, color=HIGHLIGHT, label: str = "", back=(40, 40, 40)) -> None:
        """A horizontal gauge (life, progress), ``fraction`` clipped to 0…1."""
        fraction = min(max(float(fraction), 0.0), 1.0)
        self.draw.rounded_rectangle((x, y, x + w, y + h), radius=h // 2, fill=back)
        if fraction > 0:
            self.draw.rounded_rectangle((x, y, x + max(h, int(w * fraction)), y + h), radius=h // 2, fill=color)
        if label:
            self.text(x + w / 2, y + h / 2, label, max(10, h - 4), TEXT, bold=True, anchor="mm")

    def pill(self, x, y, label: str, value, color=(60, 60, 70), size: int = 13) -> int:
        """A rounded label ``label value`` (a resource counter); returns its width."""
        text = _pill_text(label, value)
        w = self.text_width(text, size, True) + 14
        self.draw.rounded_rectangle((x, y, x + w, y + size + 8), radius=(size + 8) // 2, fill=color)
        self.text(x + 7, y + 4, text, size, _readable_on(color), bold=True)
        return w

    def pills(self, x, y, items: Sequence[tuple[str, object]] | dict, max_width: int, colors=None,
              size: int = 13) -> float:
        """Counters in a row, wrapping; returns the y below them."""
        items = list(items.items()) if isinstance(items, dict) else list(items)
        cx, line_h = x, size + 12
        for i, (label, value) in enumerate(items):
            color = colors[i % len(colors)] if colors else (60, 60, 70)
            # as pill() draws it: an unlabelled pill measured with a leading space went to a new row where it fitted
            w = self.text_width(_pill_text(label, value), size, True) + 14
            if cx + w > x + max_width and cx > x:
                cx, y = x, y + line_h
            cx += self.pill(cx, y, label, value, color, size) + 6
        return y + line_h

    # -- cards
    def card(self, x, y, face: CardFace, w: int = CARD_W, h: int = CARD_H) -> None:
        """One card: name at the top, texts in its corners, stat lines, footer.

        Drawn once per look and size, then pasted: the same cards come back frame after frame."""
        tile = _card_tile(_face_key(face), int(w), int(h))
        self.image.paste(tile, (int(round(x)), int(round(y))), tile)

    def _draw_card(self, x, y, face: CardFace, w: int, h: int) -> None:
        if face.face_down:
            self.box(x, y, x + w, y + h, fill=CARD_BACK, outline=CARD_EDGE, radius=7, width=2)
            self.box(x + 6, y + 6, x + w - 6, y + h - 6, fill=mix(CARD_BACK, (255, 255, 255), 0.15),
                     outline=mix(CARD_BACK, (255, 255, 255), 0.4), radius=5)
            if face.title:
                self.text(x + w / 2, y + h / 2, face.title, 12, TEXT, bold=True, anchor="mm", max_width=w - 14)
            return
        frame: tuple[int, ...] = face.color or (150, 150, 150)
        body = mix(CARD, frame, 0.18)
        if face.dim:
            frame, body = mix(frame, (90, 90, 90), 0.6), mix(body, (120, 120, 120), 0.5)
        edge = HIGHLIGHT if face.highlight else CARD_EDGE
        self.box(x, y, x + w, y + h, fill=body, outline=edge, radius=7, width=3 if face.highlight else 2)
        top_left, top_right, bottom_left, bottom_right = face.corners()
        left_w, right_w = self._badge_widths(top_left, top_right, w)
        # the name starts beside a lone top-right badge (its second line passes under it) while that
        # leaves it a third of the card; a top-left badge would stand in that line, so then it starts below
        beside = not left_w and w - 10 - (right_w + 2) * (right_w > 0) >= w / 3
        first_width = w - 10 - (right_w + 2) * (right_w > 0) if beside else w - 10
        self._badge(x + 4, y + 4, top_left, left_w, frame)
        self._badge(x + w - 4 - right_w, y + 4, top_right, right_w, frame)
        title_size = 12 if w >= 80 else 10
        words = face.title.split()[:2]
        while title_size > 9 and any(self.text_width(word, title_size, True) > (first_width if i == 0 else w - 10)
                                     for i, word in enumerate(words)):
            title_size -= 1  # a long name gets a smaller font before it gets an ellipsis
        title_lines = self.wrap(face.title, w - 10, title_size, bold=True, max_lines=2, first_width=first_width)
        ty = y + 5 if beside or not (left_w or right_w) else y + 6 + BADGE
        for line in title_lines:
            self.text(x + 5, ty, line, title_size, DARK_TEXT, bold=True)
            ty += title_size + 2
        self.draw.line((x + 4, ty + 2, x + w - 4, ty + 2), fill=frame, width=3)
        many = len(face.lines) > 3  # a stat block: smaller, regular weight
        body_size = (10 if many else 11) if w >= 80 else 9
        ly = ty + 7
        bottom = y + h - max(18 if face.footer else 4, BADGE + 6 if bottom_left or bottom_right else 0)
        for line in face.lines:
            if ly + body_size > bottom:
                break
            self.text(x + 5, ly, line, body_size, DARK_TEXT, bold=not many, max_width=w - 10)
            ly += body_size + (2 if many else 3)
        if face.text and ly + 9 <= bottom:
            room = int((bottom - ly) // 11)
            for line in self.wrap(face.text, w - 10, 9, max_lines=max(room, 1)):
                self.text(x + 5, ly, line, 9, (60, 55, 50))
                ly += 11
        left_w, right_w = self._badge_widths(bottom_left, bottom_right, w)
        if face.footer:
            self.draw.rectangle((x + 2, y + h - 17, x + w - 2, y + h - 3), fill=frame)
            between = w - 8 - 2 * (max(left_w, right_w) + 2) * bool(left_w or right_w)  # stays centred
            self.text(x + w / 2, y + h - 10, face.footer, 10, _readable_on(frame), anchor="mm", max_width=between)
        self._badge(x + 4, y + h - 4 - BADGE, bottom_left, left_w, frame)
        self._badge(x + w - 4 - right_w, y + h - 4 - BADGE, bottom_right, right_w, frame)

    def _badge_widths(self, left: str, right: str, w: int) -> tuple[int, int]:
        """Widths of the badges of two corners on one edge (0 for none), shrunk so that together they fit."""
        def width(text: str) -> int:
            if not text:
                return 0
            return BADGE if len(text) <= 2 else self.text_width(text, BADGE_TEXT, True) + 8

        left_w, right_w = width(left), width(right)
        room = w - 8 - (4 if left_w and right_w else 0)
        if left_w + right_w > room:
            half = room // 2
            if left_w <= half:
                right_w = room - left_w
            elif right_w <= half:
                left_w = room - right_w
            else:
                left_w = right_w = half
        return left_w, right_w

    def _badge(self, x, y, text: str, w: int, frame) -> None:
        """A corner text on a badge ``w`` wide in the frame's colour: round for a number, else rounded;
        a word too long for it gets a smaller font before it gets an ellipsis."""
        if not text:
            return
        if w == BADGE:
            self.draw.ellipse((x, y, x + w, y + BADGE), fill=frame, outline=CARD_EDGE)
        else:
            self.draw.rounded_rectangle((x, y, x + w, y + BADGE), radius=BADGE // 2, fill=frame, outline=CARD_EDGE)
        if len(text) <= 2:
            self.text(x + w / 2, y + BADGE / 2, text, 11, _readable_on(frame), bold=True, anchor="mm")
            return
        size = next((s for s in (BADGE_TEXT, BADGE_TEXT - 1) if self.text_width(text, s, True) + 8 <= w), BADGE_TEXT - 2)
        self.text(x + w / 2, y + BADGE / 2, text, size, _readable_on(frame), bold=True, anchor="mm", max_width=w - 6)

    def card_row(self, x, y, faces: Sequence[CardFace], max_width: int, w: int = CARD_W, h: int = CARD_H,
                 gap: int = 6, empty: str = "") -> float:
        """Cards side by side; when they do not fit in ``max_width`` they overlap like a fanned hand.
        Returns the x right of the last card."""
        n = len(faces)
        if n == 0:
            if empty:
                self.box(x, y, x + w, y + h, fill=None, outline=MUTED, radius=7)
                self.text(x + w / 2, y + h / 2, empty, 11, MUTED, anchor="mm", max_width=w - 8)
                return x + w
            return x
        step: float = w + gap
        if n > 1 and (n - 1) * step + w > max_width:
            step = max(8, (max_width - w) / (n - 1))
        for i, face in enumerate(faces):
            self.card(x + i * step, y, face, w, h)
        return x + (n - 1) * step + w

    def pile(self, x, y, label: str, count: int, face_down: bool = True, top: CardFace | None = None,
             w: int = CARD_W, h: int = CARD_H) -> None:
        """A stack of cards (deck, discard, graveyard) with its size; ``top`` shows the top card."""
        layers = min(count, 4)
        for i in range(layers - 1, 0, -1):
            self.box(x + 3 * i, y - 3 * i, x + w + 3 * i, y + h - 3 * i,
                     fill=CARD_BACK if face_down else CARD, outline=CARD_EDGE, radius=7)
        if count == 0:
            self.box(x, y, x + w, y + h, fill=None, outline=MUTED, radius=7)
        elif top is not None:
            self.card(x, y, top, w, h)
        else:
            self.card(x, y, CardFace(face_down=face_down), w, h)
        self.text(x + w / 2, y + h + 4, f"{label}: {count}", 12, TEXT, bold=True, anchor="ma", max_width=w + 30)

    def array(self) -> np.ndarray:
        return to_array(self)


def _pill_text(label: str, value) -> str:
    return f"{label} {value}" if label else str(value)


def _face_key(face: CardFace) -> tuple:
    return (face.title, tuple(face.lines), str(face.corner), face.footer, face.text,
            tuple(face.color) if face.color else None, face.face_down, face.highlight, face.dim,
            *(str(t) for t in (face.top_left, face.top_right, face.bottom_left, face.bottom_right)))


# a tile is 20-55 kB: 4,096 of them could hold 90-220 MB for a long-lived viewer, where a whole game draws
# fewer than 200 different ones (Earth at 4 players: 486 in three games, 231 at 2 players)
@lru_cache(maxsize=1024)
def _card_tile(key: tuple, w: int, h: int):
    face = CardFace(*key)
    canvas = Canvas(w + 1, h + 1, (0, 0, 0))
    canvas.image = Image.new("RGBA", (w + 1, h + 1), (0, 0, 0, 0))
    canvas.draw = ImageDraw.Draw(canvas.image)
    canvas._draw_card(0, 0, face, w, h)
    return canvas.image


def _readable_on(color: Sequence[int]) -> tuple[int, int, int]:
    r, g, b = color[:3]
    return DARK_TEXT if 0.299 * r + 0.587 * g + 0.114 * b > 150 else TEXT


def to_array(picture) -> np.ndarray:
    """HxWx3 uint8 from a Canvas, a PIL image or an array."""
    if isinstance(picture, Canvas):
        picture = picture.image
    if isinstance(picture, Image.Image):
        return np.asarray(picture.convert("RGB"), dtype=np.uint8).copy()
    array = np.asarray(picture)
    if array.ndim != 3 or array.shape[2] != 3:
        raise ValueError(f"a table picture must be HxWx3, got shape {array.shape}")
    return array.astype(np.uint8, copy=False)


def text_picture(text: str, width: int = 900, height: int = 640, title: str = "") -> Canvas:
    """The readable text view as a picture: the fallback for a game without its own drawing."""
    canvas = Canvas(width, height, (20, 24, 28))
    y = 10
    if title:
        canvas.text(12, y, title, 16, HIGHLIGHT, bold=True)
        y += 26
    rows = text.splitlines()
    for i, line in enumerate(rows):
        # a row is 17 px: with room for this one only and lines after it, the "…" takes it (it was drawn
        # below the bottom edge, where no one saw it, and took the place of a last line that fitted)
        if y + 2 * 17 > height and i < len(rows) - 1:
            canvas.text(12, y, "…", 13, MUTED)
            break
        canvas.text(12, y, line.expandtabs(4), 13, TEXT, max_width=width - 24)
        y += 17
    return canvas


# ---------------------------------------------------------------------------- env hook
DrawFn = Callable[..., object]


#: modules of a game package searched for ``draw_table``, in order
DRAW_MODULES = ("render", "picture")


def find_draw_function(env) -> DrawFn | None:
    """``raw_env.draw_table`` if set, else ``draw_table`` in the game package's ``render`` or
    ``picture`` module."""
    draw = getattr(type(env), "draw_table", None)
    if draw is not None:
        return draw
    package = type(env.game).__module__.rpartition(".")[0]
    if not package:
        return None
    for module_name in DRAW_MODULES:
        module = import_if_written(f"{package}.{module_name}")
        if module is not None and hasattr(module, "draw_table"):
            return module.draw_table
    return None


def draw_state(env, player: int | None = None) -> np.ndarray:
    """The picture of ``env``'s current table from ``player``'s seat (None: the whole table)."""
    draw = find_draw_function(env)
    state = env.game_state
    # as the text view refuses it: a picture of seat 5 drew an IndexError, or (Earth) a frame of no seat
    player = check_seat(state.game, player, spectator=True)
    picture: object  # what to_array takes: a Canvas, a PIL image or an array
    if draw is None:
        picture = text_picture(state.render_text(player), title=env.metadata.get("name", ""))
    else:
        picture = draw(state, player)
    return to_array(picture)


def render_env_image(env):
    """What ``env.render()`` returns in ``"rgb_array"`` mode (an array) and ``"human"`` mode (None,
    after showing the picture in a window)."""
    array = draw_state(env, env.render_player)
    if env.render_mode != "human":
        return array
    open_window(env).show(array)
    return None


def open_window(env):
    """The window of a ``render_mode="human"`` env, opened if it is not yet. Called before a command prints
    anything, it refuses a machine without a display before any table is shown."""
    viewer = env.__dict__.get("_viewer")
    if viewer is None:
        viewer = env._viewer = make_viewer(env.metadata.get("name", "tabletop_envs"))
    return viewer


# ---------------------------------------------------------------------------- windows
def _no_display(why: str):
    from .errors import TabletopError

    return TabletopError(f"no display to open a window on ({why}): run where a display is, or take the pictures "
                         "with render_mode='rgb_array'; from the command line leave out --window "
                         "(tabletop-envs replay FILE --gif game.gif keeps them in a file)")


class PygameViewer:
    def __init__(self, title: str):
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        self.pygame = pygame
        self.title = title
        self.screen = None
        try:
            pygame.display.init()
            driver = pygame.display.get_driver()
        except pygame.error as exc:
            raise _no_display(str(exc)) from None
        if driver in ("offscreen", "dummy") and os.environ.get("SDL_VIDEODRIVER") != driver:
            # SDL falls back to a driver that draws nowhere, without a word: the window never appeared
            pygame.display.quit()
            raise _no_display(f"pygame fell back to its {driver!r} video driver; DISPLAY or WAYLAND_DISPLAY is not set")

    def show(self, array: np.ndarray) -> None:
        pygame = self.pygame
        h, w = array.shape[:2]
        # pygame has one window per process: another env's close() (a copy's, say) quits it under this one
        if self.screen is None or pygame.display.get_surface() is not self.screen or self.screen.get_size() != (w, h):
            pygame.display.init()  # does nothing while the display is up
            self.screen = pygame.display.set_mode((w, h))
            pygame.display.set_caption(self.title)
        pygame.surfarray.blit_array(self.screen, array.swapaxes(0, 1))
        pygame.display.flip()
        pygame.event.pump()  # keeps the window responsive between steps

    def close(self) -> None:
        if self.screen is not None:
            self.pygame.display.quit()
            self.screen = None


class MatplotlibViewer:
    def __init__(self, title: str):
        import matplotlib.pyplot as plt

        self.plt, self.title = plt, title
        self._open()

    def _open(self) -> None:
        self.figure = self.plt.figure(self.title)  # pyplot's window of that name: one per title, as pygame's one
        # another viewer's axes on it are taken over: each viewer (each human-mode env, each copy that drew) added
        # its own over them, every one kept its last picture while the window lived, and the window drew them
        # all (3 MB and a slower frame per Terralore env made in a loop and dropped without close())
        self.axes = self.figure.axes[0] if self.figure.axes else self.figure.add_axes((0, 0, 1, 1))
        self.axes.set_axis_off()

    def show(self, array: np.ndarray) -> None:
        if not self.plt.fignum_exists(self.figure.number):
            self._open()  # another env's close() (a copy's, say) closed the window this one shares: drawn on, no one saw it
        shown = self.axes.images
        current = shown[0].get_array() if len(shown) == 1 else None
        if current is not None and current.shape == array.shape:
            shown[0].set_data(array)
        else:  # the first picture, or one of another size
            self.axes.clear()
            self.axes.set_axis_off()
            self.axes.imshow(array)
        self.figure.canvas.draw_idle()
        self.plt.pause(0.001)

    def close(self) -> None:
        self.plt.close(self.figure)


def make_viewer(title: str):
    """A window for ``render_mode="human"``: pygame if installed, else matplotlib, else a clear error."""
    for viewer in (PygameViewer, MatplotlibViewer):
        try:
            return viewer(title)
        except ImportError:
            continue
    from .errors import TabletopError

    # the render extra's pygame-ce: a plain "pip install pygame" beside it breaks both (one module name)
    raise TabletopError("render_mode='human' needs a window library: pip install 'tabletop-envs[render]' (it "
                        "brings pygame-ce), or matplotlib; or use render_mode='rgb_array' and show the returned "
                        "array yourself")


def save_gif(frames: Sequence[np.ndarray], path: str | Path, fps: float = 2.0) -> Path:
    """Write frames (HxWx3 uint8, same size) as a looping GIF."""
    if not frames:
        raise ValueError("no frames to save")
    path = user_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images = [Image.fromarray(np.asarray(f, dtype=np.uint8)) for f in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0,
                   optimize=True)
    return path
