"""The check of the games' saved-position tests: an edited state is refused on loading, naming what it breaks."""

from __future__ import annotations

import copy
import json

import pytest

from tabletop_envs import StateError


def refused_on_loading(state, edit, *fragments):
    """``edit`` applied to ``state``'s saved fields makes ``from_dict`` refuse them with a StateError holding each
    of ``fragments`` (the unedited fields load back equal)."""
    data = json.loads(json.dumps(state.to_dict()))
    assert state.game.state_from_dict(copy.deepcopy(data)) == state  # unedited, it loads back
    edit(data["state"])
    with pytest.raises(StateError) as info:
        state.game.state_from_dict(data)
    message = str(info.value)
    assert "edited or corrupted" in message and all(f in message for f in fragments), message
