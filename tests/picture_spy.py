"""Records what a picture writes, for the tests that a seat's picture names (or never names) a card."""

from __future__ import annotations


def texts_written(monkeypatch) -> list[str]:
    """A list that gathers every text ``Canvas.text`` draws from now on in this test (clear it between
    pictures); the drawing itself goes on as before."""
    from tabletop_envs.core.render import Canvas

    written: list[str] = []
    real = Canvas.text

    def spy(canvas, x, y, text, *args, **kwargs):
        written.append(text)
        return real(canvas, x, y, text, *args, **kwargs)

    monkeypatch.setattr(Canvas, "text", spy)
    return written
