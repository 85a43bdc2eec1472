"""Writing a user's files so that a failure part-way leaves the earlier file, not a torn one."""

from __future__ import annotations

from pathlib import Path


def write_text_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) beside it first, then move it into place: a full disk or an
    interrupt part-way leaves whatever was at ``path`` as it was. Written in place, a saved replay or a
    model's sidecar was emptied first, so a failed save of a replay under the name of an earlier one lost
    both, and a failed sidecar update left a model that no longer loads."""
    part = path.with_name(path.name + ".part")
    try:
        part.write_text(text, encoding="utf-8")
        part.replace(path)
    finally:
        part.unlink(missing_ok=True)
