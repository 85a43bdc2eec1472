"""A disk that fills part-way through a write, for the tests of what a failed write leaves behind."""

from __future__ import annotations

import errno
from pathlib import Path


def text_writes_fill_the_disk(patched, where=lambda path: True) -> None:
    """Through ``patched`` (a ``monkeypatch.context()``), ``Path.write_text`` to the paths ``where`` picks
    writes half its text and raises ENOSPC, as a disk that fills part-way does; other paths are written."""
    real_write_text = Path.write_text

    def half_then_full(self, text, *args, **kwargs):
        if not where(self):
            return real_write_text(self, text, *args, **kwargs)
        real_write_text(self, text[:len(text) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    patched.setattr(Path, "write_text", half_then_full)
