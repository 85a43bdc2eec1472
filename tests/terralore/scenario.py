"""Build exact Terralore positions and drive them with named actions (shared by the Terralore tests)."""

from __future__ import annotations

from tabletop_envs.terralore.catalogue import DECK_SIZE, default_catalogue
from tabletop_envs.terralore.engine import ATTACK, DEFEND, PLAY, TerraloreGame

CAT = default_catalogue()
A, D = ATTACK, DEFEND


def cid(name: str) -> int:
    return CAT.by_name[name].id


def ids(names) -> list[int]:
    return [cid(n) for n in names]


def make_state(hands=((), ()), attacking=((), ()), defending=((), ()), decks=None, graveyards=((), ()),
               castles=(10, 10), turn_number=2, first_placer=0, seed=0, **game_kwargs):
    """A Play Phase position with these cards (by name). Each deck is the given list (top = last) or,
    when ``decks`` is None, the unused catalogue cards topping each player's cards up to 20."""
    game = TerraloreGame(mulligan=game_kwargs.pop("mulligan", False), **game_kwargs)
    s = game.new_initial_state(seed)
    for p in (0, 1):
        s.hand[p] = ids(hands[p])
        s.field[p] = [ids(attacking[p]), ids(defending[p])]
        s.face_down[p] = [[], []]
        s.graveyard[p] = ids(graveyards[p])
        s.exile[p] = []
        s.known_hand[p] = []
        used = s.hand[p] + s.field[p][0] + s.field[p][1] + s.graveyard[p]
        if decks is not None:
            s.deck[p] = ids(decks[p])
        else:
            s.deck[p] = [c for c in range(CAT.size) if c not in used][: DECK_SIZE - len(used)]
        s.deck_list[p] = sorted(used + s.deck[p])
    s.castle = list(castles)
    s.turn_number = turn_number
    s.first_placer = s.actor = first_placer
    s.done_placing = [False, False]
    s.phase = PLAY
    s.decision_name = PLAY
    s.reveal_first = -1
    s.log = []
    s._refresh_totals()
    s._mark_play_start()  # the position above is where this Play Phase begins (opaque wall)
    s._mask_cache = None
    return s


def act(state, segment: str, index: int = 0) -> None:
    state.apply_action(state.game.action_layout.id(segment, index))


def place(state, name: str, lane: int, discards=(), destroy=()) -> None:
    """The current player places ``name`` face down in ``lane``, paying with ``discards``."""
    act(state, "play", cid(name))
    act(state, "lane", lane)
    for d in discards:
        act(state, "discard", cid(d))
    for d in destroy:
        act(state, "destroy", cid(d))


def end(state) -> None:
    act(state, "end_play")


def end_turn(state) -> None:
    """Both players stop placing (the turn is revealed and counted)."""
    t = state.turn_number
    while state.turn_number == t and not state.is_terminal():
        end(state)


def names(card_ids) -> list[str]:
    return [CAT.names[c] for c in card_ids]
