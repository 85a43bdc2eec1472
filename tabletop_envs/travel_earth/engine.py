"""Travel Earth TCG rules engine (see ``shared/rules/travel_earth_tcg.txt`` and ``RULES.md``).

Zones hold catalogue card ids (copies of one card are identical). The last card of ``deck`` is its
top. A Reservoir is a multiset of face-down cards whose owner knows them (``reservoir``), plus
Player 2's starting card that nobody has seen (``unseen``), and a count of Empty cards (``empty``):
which physical card is sideways never matters, because an owner refreshes all of them before they
can spend a Full one again.

Compound moves are sequences of small decisions (``phase``), each with its own mask:
add → play → declare → (statistic → defender → [change → pay]) per Challenger → next turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeGuard

import numpy as np

from tabletop_envs.core import TERMINAL, ActionLayout, Game, ObservationLayout, State, new_rng
from tabletop_envs.core.engine import check_num_players, check_seat, invariant
from tabletop_envs.core.errors import ConfigError, is_int

from .catalogue import FORMATS, NUM_STATS, build_deck, load_catalogue

DEFAULT_PRESET = {"championship": "expedition", "casual": "starter"}
#: Cards drawn at the Draw step, by cards in Hand (the last entry covers every larger Hand):
#: an empty Hand draws 3, one card draws 2, two or more draw 1 — back to the starting 3 at most.
DEFAULT_HAND_SIZE_TABLE = [3, 2, 1]
RESTING_DEFENDER_WIN = ("challenger_discarded", "both_discarded")
RESERVOIR_LIMIT = 6
MAX_STALEMATE_TURNS = 10_000
MAX_RESERVOIR = RESERVOIR_LIMIT + 1  # Blubber Store raises the limit by one
ALL_STATS = (1 << NUM_STATS) - 1
WEIGHT = 1

PHASES = ("add", "play", "declare", "statistic", "defender", "change", "pay")
READY, RESTING = 0, 1
# Decisions taken by the defending player; the others by the player whose turn it is.
DEFENDER_PHASES = frozenset(("defender", "change", "pay"))


def outcome_table(cat) -> np.ndarray:
    """``table[a, b, s]``: +1 when card a beats card b on statistic s, -1 when b beats a, 0 on a tie.

    Higher or lower wins per statistic as printed; Tiny makes the lower Weight win in any comparison
    it is part of."""
    diff = np.sign(cat.values[:, None, :] - cat.values[None, :, :]) * cat.stat_sign
    tiny = np.zeros(cat.size, bool)
    tiny[cat.ability_ids.get("tiny", [])] = True
    either = tiny[:, None] | tiny[None, :]
    diff[:, :, WEIGHT] = np.where(either, -np.sign(cat.values[:, None, WEIGHT] - cat.values[None, :, WEIGHT]),
                                  diff[:, :, WEIGHT])
    return diff.astype(np.int8)


@lru_cache(maxsize=4)  # as many as load_catalogue keeps
def outcome_tables(cat) -> tuple[np.ndarray, list]:
    """:func:`outcome_table` and the same as nested lists (the engine's lookups), read-only and shared by every
    game of ``cat``: built per game, the lists were 570 kB of every env, 75 % of its memory."""
    table = outcome_table(cat)
    table.flags.writeable = False
    return table, table.tolist()


class TravelEarthGame(Game):
    """Rule options (all JSON, all documented in RULES.md):

    deck_format: ``"championship"`` (exactly 60 cards, the default) or ``"casual"`` (20 or more).
    decks: ``None`` (the format's preset for both players), or two decks, one per seat, each a preset
        name, a list of ``"TE-001[/printing]"`` entries (one per card) or a dict of them to counts. Every
        deck is validated. A NumPy array is taken where a list is (here and in ``hand_size_table``).
    hand_size_table: cards drawn by cards in Hand at the Draw step (the text's table is missing).
    stalemate_turns: the game is drawn after this many consecutive turns in which no card moved.
    first_player: ``None`` = coin flip (the rule); 0 or 1 fixes the seat that goes first (for tests).
    resting_defender_win: what a Resting Defender's win without a defensive change discards:
        ``"challenger_discarded"`` (the default) or ``"both_discarded"`` (RULES.md choice 6).
    """

    env_name = "travel_earth_v0"
    decisions = PHASES
    player_counts = (2,)
    default_max_turns = 400

    @classmethod
    def trained_covers(cls, option: str, trained, here) -> bool:
        # None flips a coin each game: a model trained on it went first and second under the same rules
        return (option == "first_player" and trained is None) or super().trained_covers(option, trained, here)

    def __init__(self, deck_format: str = "championship",
                 decks: Sequence[str | Sequence[str] | Mapping[str, int] | np.ndarray] | np.ndarray | None = None,
                 hand_size_table: Sequence[int] | np.ndarray | None = None,
                 stalemate_turns: int = 20, first_player: int | None = None,
                 resting_defender_win: str = "challenger_discarded", num_players: int = 2):
        check_num_players(num_players, self.player_counts, "Travel Earth TCG is a two-player game")
        # a str first: a list would make the dict lookup a TypeError with a traceback, not this message
        if not isinstance(deck_format, str) or deck_format not in FORMATS:
            raise ConfigError(f"deck_format must be one of {sorted(FORMATS)}, got {deck_format!r}")
        table = DEFAULT_HAND_SIZE_TABLE if hand_size_table is None else hand_size_table
        table = list(table) if isinstance(table, (list, tuple)) or _vector(table) else []  # (a NumPy one as Terralore's decks)
        if not table or any(not is_int(n) or n < 0 for n in table):
            raise ConfigError(f"hand_size_table must be a non-empty list of cards to draw (ints >= 0) by Hand "
                              f"size, e.g. {DEFAULT_HAND_SIZE_TABLE}; got {hand_size_table!r}")
        # bounded: turns in which nobody can do anything pass inside one step, until the stalemate ends them
        if not is_int(stalemate_turns) or not 2 <= stalemate_turns <= MAX_STALEMATE_TURNS:
            raise ConfigError(f"stalemate_turns must be an int from 2 to {MAX_STALEMATE_TURNS}, got {stalemate_turns!r} "
                              f"(idle turns pass within one step until the stalemate draws the game; the env "
                              f"truncates at max_turns, {self.default_max_turns} by default, long before)")
        if first_player is not None and (not is_int(first_player) or first_player not in (0, 1)):
            raise ConfigError(f"first_player must be None (coin flip), 0 or 1; got {first_player!r}")
        if not isinstance(resting_defender_win, str) or resting_defender_win not in RESTING_DEFENDER_WIN:
            raise ConfigError(f"resting_defender_win must be one of {RESTING_DEFENDER_WIN}, got "
                              f"{resting_defender_win!r}")
        self.num_players = 2
        self.deck_format = deck_format
        self.hand_size_table = [int(n) for n in table]  # plain ints: config() goes into JSON
        self.stalemate_turns = int(stalemate_turns)
        self.first_player = None if first_player is None else int(first_player)
        self.resting_defender_win = resting_defender_win
        self.catalogue = cat = load_catalogue()
        if decks is None:
            decks = [DEFAULT_PRESET[deck_format]] * 2
        if isinstance(decks, np.ndarray):  # two decks as rows, or two names
            decks = decks.tolist()
        if not isinstance(decks, (list, tuple)) or len(decks) != 2:
            raise ConfigError("decks must be None or a list of two decks (one per seat)")
        self.decklists = [build_deck(d, deck_format, cat, where=f"seat {i} deck") for i, d in enumerate(decks)]
        # as JSON reads them back (config() goes into replays, saved states and sidecars) and copied: a tuple
        # deck made states unequal to the ones of the game rebuilt from that JSON, and a dict deck edited
        # after the game was built changed the options it reported
        self.decks_spec = [str(d) if isinstance(d, str) else {k: int(n) for k, n in d.items()} if isinstance(d, dict)
                           else d.tolist() if _vector(d) else list(d) for d in decks]
        self.deck_sizes = [len(d) for d in self.decklists]
        self._build_layouts()
        self._ability_sets()

    def config(self) -> dict:
        return {"deck_format": self.deck_format, "decks": self.decks_spec, "hand_size_table": self.hand_size_table,
                "stalemate_turns": self.stalemate_turns, "first_player": self.first_player,
                "resting_defender_win": self.resting_defender_win}

    def new_initial_state(self, seed: int | None = None) -> TravelEarthState:
        return TravelEarthState(self, seed)

    def __reduce__(self):
        # pickled and deep-copied by its options, with the catalogue shared (load_catalogue keeps one): a
        # deep copy of an env copied the whole catalogue, 10 ms where a game is built in 1.5
        return (_game_from_config, (self.config(),))

    # -------------------------------------------------------------------------- layouts
    def _ability_sets(self):
        cat = self.catalogue
        self.abil = {key: frozenset(ids) for key, ids in cat.ability_ids.items()}
        self.outcome_table, self.outcomes = outcome_tables(cat)

    def _build_layouts(self):
        cat = self.catalogue
        n = cat.size
        lab = cat.label
        stats = cat.stat_names
        self.action_layout = ActionLayout([
            ("add_to_reservoir", n, "Add to Reservoir: put this card from Hand face down into your Reservoir",
             [f"add {lab(i)} to Reservoir" for i in range(n)]),
            ("skip_reservoir", 1, "Add to Reservoir: add nothing (more) this turn", ["skip Reservoir"]),
            ("play", n, "Play Animals: put this card from Hand into your Resting Row (Ambush: Ready Row)", [f"play {lab(i)}" for i in range(n)]),
            ("end_play", 1, "Play Animals: stop playing", ["end playing"]),
            ("declare", n, "Declare Challengers: add a Ready Animal of this card to the Challenger group",
             [f"declare {lab(i)}" for i in range(n)]),
            ("lock_challengers", 1, "Declare Challengers: lock the group (may be empty) and start the Challenge "
             "Phase", ["lock Challenger group"]),
            ("statistic", NUM_STATS, "Challenger: choose the battle statistic (also the next one after a tie)",
             [f"challenge on {s}" for s in stats]),
            ("defend_ready", n, "Defending player: this card in the Ready Row defends",
             [f"defend with Ready {lab(i)}" for i in range(n)]),
            ("defend_resting", n, "Defending player: this card in the Resting Row defends",
             [f"defend with Resting {lab(i)}" for i in range(n)]),
            ("change_statistic", NUM_STATS, "Defending player: defensive statistic change to this statistic",
             [f"change to {s}" for s in stats]),
            ("accept", 1, "Defending player: accept the result (no defensive change)", ["accept"]),
            ("pay_reservoir", n, "Defending player: discard this known Reservoir card to pay for the change",
             [f"discard Reservoir {lab(i)}" for i in range(n)]),
            ("pay_unseen", 1, "Defending player: discard the unseen starting Reservoir card to pay for the change",
             ["discard the unseen Reservoir card"]),
        ])
        a = self.action_layout.start
        self.A_ADD, self.A_SKIP, self.A_PLAY, self.A_END_PLAY = a["add_to_reservoir"], a["skip_reservoir"], \
            a["play"], a["end_play"]
        self.A_DECLARE, self.A_LOCK, self.A_STAT = a["declare"], a["lock_challengers"], a["statistic"]
        self.A_DEF_READY, self.A_DEF_RESTING = a["defend_ready"], a["defend_resting"]
        self.A_CHANGE, self.A_ACCEPT, self.A_PAY, self.A_PAY_UNSEEN = a["change_statistic"], a["accept"], \
            a["pay_reservoir"], a["pay_unseen"]

        count = "copies / 4"
        zones = [
            ("hand", "own Hand"), ("my_ready", "own Ready Row (declared Challengers not included)"),
            ("my_resting", "own Resting Row"), ("opp_ready", "opponent's Ready Row (declared Challengers not "
                                                             "included)"),
            ("opp_resting", "opponent's Resting Row"),
            ("my_reservoir_known", "own Reservoir cards whose identity you know (never Player 2's unseen card)"),
            ("my_discard", "own Discard Pile"), ("opp_discard", "opponent's Discard Pile"),
            ("declared", "the active player's declared Challengers still waiting to resolve"),
        ]
        segs = [(name, n, 0, 1, f"{what}, by catalogue card: {count}") for name, what in zones]
        segs += [
            ("challenger", n, 0, 1, "the Challenger now resolving (one-hot by catalogue card)"),
            ("defender", n, 0, 1, "the chosen Defender (one-hot by catalogue card)"),
            ("defender_row", 2, 0, 1, "the Defender's row: Ready, Resting"),
            ("statistic", NUM_STATS, 0, 1, "statistic now compared (one-hot): " + ", ".join(stats)),
            ("used_statistics", NUM_STATS, 0, 1, "statistics already used in this challenge"),
            ("change_made", 1, 0, 1, "a defensive statistic change was made in this challenge (always 0 in v0: "
                                         "a change ends the challenge before anyone observes; kept for a stable layout)"),
            ("change_target", NUM_STATS, 0, 1, "statistic the defending player is paying to change to"),
            ("comparison", 3, 0, 1, "current statistic: Challenger wins, tie, Defender wins (the last always 0 in "
                                       "v0: a Defender win ends the challenge before anyone observes)"),
            ("phase", len(PHASES), 0, 1, "pending decision: " + ", ".join(PHASES)),
            ("my_turn", 1, 0, 1, "it is your turn (you are the challenging player)"),
            ("i_went_first", 1, 0, 1, "you are Player 1 (won the coin flip)"),
            ("my_reservoir", 4, 0, 1, "own Reservoir: cards / 7, Full / 7, Empty / 7, unseen cards"),
            ("opp_reservoir", 3, 0, 1, "opponent's Reservoir: cards / 7, Full / 7, Empty / 7"),
            ("deck_sizes", 2, 0, 1, "Deck cards left / deck size: own, opponent's"),
            ("hand_sizes", 2, 0, 1, "Hand cards / deck size: own, opponent's"),
            ("reservoir_adds", 1, 0, 1, "cards you added to your Reservoir this turn / 2"),
            ("turn", 1, 0, 1, f"turns played / {self.default_max_turns} (capped at 1)"),
        ]
        self.observation_layout = lay = ObservationLayout(segs)
        sl = lay.slices
        self.O = o = {name: sl[name].start for name in sl}
        # the zones' column adders, the phase columns and the fixed tail columns: looked up once, not
        # per observation
        self.zone_adds = lay.column_adders(*(name for name, _ in zones))
        self.phase_column = {phase: o["phase"] + i for i, phase in enumerate(PHASES)}
        t, u = o["my_reservoir"], o["opp_reservoir"]
        self.tail_columns = np.array([t, t + 1, t + 2, t + 3, u, u + 1, u + 2, o["deck_sizes"], o["deck_sizes"] + 1,
                                      o["hand_sizes"], o["hand_sizes"] + 1, o["turn"], o["change_made"],
                                      o["my_turn"], o["i_went_first"]])


class TravelEarthState(State):
    game: TravelEarthGame
    _transient = ("game", "_mask_cache")
    _optional_fields = ("recent_challenges",)
    #: what the challenges of this turn's Challenge Phase and of the one before did, one ``[turn, seat,
    #: Challenger, events]`` per Challenger (``challenge_texts`` words them), for the text view and the
    #: picture only: the observation never reads it. Every step of a challenge is public: the statistic,
    #: the Defender, a defensive change and the card paying for it (it lands face up in the Discard Pile),
    #: each Last Resort reveal. Two phases, not one: when a seat decides, the results since its last
    #: decision may span the end of the previous phase (its own Challenger's fate) and the current one.
    #: Events are ids, worded only when shown: the engine steps millions of times unwatched. A state
    #: saved before the record was kept loads with this empty default and records from its next challenge.
    recent_challenges: Sequence[list[Any]] = ()  # never changed in place: a loaded state may share the default

    def __init__(self, game: TravelEarthGame, seed: int | None):
        self.game = game
        self.rng = new_rng(seed)
        self._mask_cache = None
        g = game
        first = int(self.rng.integers(2)) if g.first_player is None else g.first_player
        self.first = first  # the seat of Player 1 (coin flip)
        self.deck = [self.rng.permutation(d).tolist() for d in g.decklists]
        self.hand: list[list[int]] = [[], []]
        self.ready: list[list[int]] = [[], []]
        self.resting: list[list[int]] = [[], []]
        self.reservoir: list[list[int]] = [[], []]
        self.unseen: list[list[int]] = [[], []]
        self.empty = [0, 0]
        self.discard: list[list[int]] = [[], []]
        for p in (0, 1):
            self._draw(p, 3)
        # Player 2's free starting card: top of the Deck, face down, seen by nobody (a deck holds 20 cards or more)
        second = 1 - first
        self.unseen[second].append(self.deck[second].pop())
        self.player = first
        self.turns = 0
        self.quiet = 0
        self.progress = False
        self.winner = -1
        self.drawn_game = False
        self.adds = 0
        self._clear_challenge()
        self.queue: list[int] = []
        self.recent_challenges = []
        self._begin_turn()  # never idle: Player 1 holds the 3 cards just drawn, so its Play step is asked

    # ------------------------------------------------------------------ protocol
    @property
    def turn(self) -> int:
        return self.turns

    def is_terminal(self) -> bool:
        return self.winner >= 0 or self.drawn_game

    def current_player(self) -> int:
        if self.winner >= 0 or self.drawn_game:
            return TERMINAL
        return 1 - self.player if self.phase in DEFENDER_PHASES else self.player

    def returns(self) -> np.ndarray:
        if self.winner < 0:
            return np.zeros(2)
        out = np.full(2, -1.0)
        out[self.winner] = 1.0
        return out

    def decision(self) -> str:
        return "" if self.is_terminal() else self.phase

    # ------------------------------------------------------------------ helpers
    def turn_shown(self) -> int:
        """The turn the views name, counted from 1: the one being played, or the one the game ended in. A
        stalemate is found after ``_end_turn`` counted the turn, so there ``turns`` is that last turn."""
        return self.turns if self.drawn_game else self.turns + 1

    def _clear_challenge(self):
        self.challenger = -1
        self.defender = -1
        self.defender_row = -1
        self.stat = -1
        self.used = 0
        self.changed = False
        self.change_stat = -1

    def _draw(self, p: int, n: int):
        deck = self.deck[p]
        for _ in range(min(n, len(deck))):  # draw only what remains; never reshuffle
            self.hand[p].append(deck.pop())
            self.progress = True

    def reservoir_size(self, p: int) -> int:
        return len(self.reservoir[p]) + len(self.unseen[p])

    def full(self, p: int) -> int:
        return self.reservoir_size(p) - self.empty[p]

    def _field_has(self, p: int, ability: str) -> bool:
        ids = self.game.abil.get(ability, ())
        # declared and resolving Challengers are still on their owner's field (RULES.md 15): a Blubber Store
        # whale that challenges keeps the Reservoir at 7 (the views read 7/6 while it did)
        group = (*self.queue, self.challenger) if p == self.player else ()
        return any(c in ids for c in self.ready[p]) or any(c in ids for c in self.resting[p]) \
            or any(c in ids for c in group)

    def reservoir_capacity(self, p: int) -> int:
        return MAX_RESERVOIR if self._field_has(p, "blubber_store") else RESERVOIR_LIMIT

    def adds_allowed(self, p: int) -> int:
        return 2 if self._field_has(p, "pouch") else 1

    def _has(self, card: int, ability: str) -> bool:
        return card in self.game.abil.get(ability, ())

    def outcome(self, challenger: int, defender: int, stat: int) -> int:
        """+1 when the Challenger's printed value wins, -1 when the Defender's does, 0 on a tie."""
        return self.game.outcomes[challenger][defender][stat]

    def _defends_as_ready(self) -> bool:
        return self.defender_row == READY or self._has(self.defender, "armoured_shell")

    def _versus(self, challenger: int, defender: int, stat: int) -> str:
        """The two printed values compared, as the text view shows them."""
        cat = self.game.catalogue
        a, b = cat.values[challenger, stat], cat.values[defender, stat]
        return f"{a:g} against {b:g} {cat.stat_units[stat]}"

    def _note(self, *event) -> None:
        """Add an event to the record of the challenge now resolving (see ``recent_challenges``)."""
        if self.recent_challenges:  # empty: a challenge begun in a state saved before the record was kept
            self.recent_challenges[-1][3].append(list(event))

    def challenge_texts(self) -> list[tuple[int, int, str]]:
        """``recent_challenges`` in words: ``(turn, seat, text)`` per Challenger, oldest first."""
        return [(turn, seat, self._challenge_text(challenger, events))
                for turn, seat, challenger, events in self.recent_challenges]

    def _challenge_text(self, challenger: int, events: list) -> str:
        cat = self.game.catalogue
        label = cat.label
        stat = defender = -1

        def compared(card: int, on: int) -> str:
            result = {1: "the Challenger wins", 0: "tie", -1: "the Defender wins"}[self.outcome(challenger, card, on)]
            return f": {self._versus(challenger, card, on)}, {result}"

        text = label(challenger)
        for kind, *args in events:
            if kind == "statistic":
                stat = args[0]
                text += f"; then on {cat.stat_names[stat]}{compared(defender, stat)}" if defender >= 0 else \
                    f" on {cat.stat_names[stat]}"
            elif kind == "defender":
                defender, row = args
                text += f" vs {'Ready' if row == READY else 'Resting'} {label(defender)}{compared(defender, stat)}"
            elif kind == "change":
                text += f"; defensive change to {cat.stat_names[args[0]]}{compared(defender, args[0])}"
            elif kind == "ink_cloud":
                text += " (Ink Cloud: a Full Reservoir card turns Empty)"
            elif kind == "paid":
                text += f" (paid with {label(args[0])} from the Reservoir)"
            elif kind == "accepted":
                text += "; no defensive change"
            elif kind == "discarded":
                text += f"; {label(args[0])} discarded"
            elif kind == "survives":
                text += f"; {label(challenger)} survives" + (
                    ", stays Ready (Tireless)" if self._has(challenger, "tireless") else ", now Resting")
            elif kind == "last_resort":
                text += "; no Animal defends, Last Resort:"
            elif kind == "reveals":
                card = args[0]
                fate = ("back face down into the Reservoir" if self.outcome(challenger, card, stat) < 0 else
                        "back to Hand (Homing);" if self._has(card, "homing") else "discarded;")
                text += f" reveals {label(card)}{compared(card, stat)}, {fate}"
            elif kind == "exhausted":
                text += " the Reservoir is exhausted: the Challenger was not stopped"
            elif kind == "tied_out":
                text += "; every statistic tied"
            elif kind == "turn_ends":
                text += "; the turn ends"
        return text

    def _take_from_reservoir(self, p: int) -> bool:
        """A card leaves the Reservoir: it takes an Empty slot first (see RULES.md). True if it did."""
        if self.empty[p] > 0:
            self.empty[p] -= 1
            return True
        return False

    def _to_discard(self, p: int, card: int):
        self.discard[p].append(card)
        self.progress = True

    # ------------------------------------------------------------------ turn sequence
    def _begin_turn(self):
        p = self.player
        # 1. Ready: Resting Animals move to the Ready Row.
        self.ready[p].extend(self.resting[p])
        self.resting[p] = []
        # 2. Refresh: Empty Reservoir cards turn Full.
        self.empty[p] = 0
        # 3. Draw, by the Hand-size table.
        table = self.game.hand_size_table
        n = table[min(len(self.hand[p]), len(table) - 1)]
        if self._field_has(p, "early_riser"):
            n += 1
        self._draw(p, n)
        self.adds = 0
        self.phase = "add"
        self._skip_idle_steps()

    def _can_add(self) -> bool:
        p = self.player
        return (bool(self.hand[p]) and self.adds < self.adds_allowed(p)
                and self.reservoir_size(p) < self.reservoir_capacity(p))

    def _declarable(self) -> list[int]:
        p = self.player
        free = self.game.abil.get("patient_hunter", ())
        costly = sum(1 for c in self.queue if c not in free)
        can_pay = self.full(p) - costly >= 1
        return [c for c in set(self.ready[p]) if can_pay or c in free]

    def _skip_idle_steps(self):
        """Skip the Add and Play steps when the player has nothing to decide in them."""
        if self.phase == "add" and not self._can_add():
            self.phase = "play"
        if self.phase == "play" and not self.hand[self.player]:
            self.phase = "declare"

    def _idle(self) -> bool:
        return self.phase == "declare" and not self._declarable()

    def _advance(self):
        self._skip_idle_steps()
        if self._idle():
            self._next_challenge()  # the group is complete: lock it

    def _end_turn(self):
        while True:
            p = self.player
            self.ready[p].extend(self.queue)  # Challengers left unresolved stay Ready
            self.queue = []
            self._clear_challenge()
            self.turns += 1
            self.quiet = 0 if self.progress else self.quiet + 1
            self.progress = False
            if self.quiet >= self.game.stalemate_turns:
                self.drawn_game = True
                return
            self.player = 1 - p
            self._begin_turn()
            if not self._idle():
                return
            # the new player has nothing at all to decide: their turn passes at once (a loop, not
            # recursion, so long idle stretches cannot exhaust the stack)

    # ------------------------------------------------------------------ challenges
    def _next_challenge(self):
        self._clear_challenge()
        if not self.queue:
            self._end_turn()
            return
        p = self.player
        card = self.queue.pop(0)  # the group resolves in the order it was declared
        self.challenger = card
        log = self.recent_challenges
        if log and log[-1][0] != self.turns:  # this phase's first Challenger: keep the previous phase only
            log = [entry for entry in log if entry[0] == log[-1][0]]
        self.recent_challenges = [*log, [self.turns, p, card, []]]
        if not self._has(card, "patient_hunter"):
            self.empty[p] += 1  # its Full Reservoir card turns Empty as it resolves
        self.phase = "statistic"

    def _choose_statistic(self, stat: int):
        self.stat = stat
        self.used |= 1 << stat
        d = 1 - self.player
        self._note("statistic", stat)
        if self.defender >= 0:
            self._compare()
        elif not self.ready[d] and not self.resting[d]:
            self._note("last_resort")
            self._last_resort()
        else:
            self.phase = "defender"

    def _compare(self):
        r = self.outcome(self.challenger, self.defender, self.stat)
        if r < 0:
            if self.game.resting_defender_win == "both_discarded" and not self._defends_as_ready():
                self._discard_defender()  # the Resting penalty read as in section 8, with or without a change
            self._discard_challenger()
            self._next_challenge()
        elif r == 0 and self._defends_as_ready():
            if self.used != ALL_STATS:
                self.phase = "statistic"  # a tie moves on; the Challenger picks the next statistic
            else:  # every statistic tied: the Challenger is discarded and the turn ends
                stampede = self._has(self.challenger, "stampede")
                self._note("tied_out")
                self._discard_challenger()
                if stampede:
                    self._next_challenge()
                else:
                    self._note("turn_ends")
                    self._end_turn()
        else:  # the Defender loses, or a Resting Defender ties (the Resting penalty)
            if self._change_options():
                self.phase = "change"
            else:
                self._discard_defender()
                self._survive()

    def _change_options(self) -> list[int]:
        d = 1 - self.player
        if self.changed or self.reservoir_size(d) == 0 or self._has(self.challenger, "fearless"):
            return []
        unused = [s for s in range(NUM_STATS) if not self.used >> s & 1]
        if self._has(self.defender, "threat_display"):
            return unused
        return [s for s in unused if self.outcome(self.challenger, self.defender, s) < 0]

    def _pay_options(self) -> tuple[list[int], bool]:
        d = 1 - self.player
        return sorted(set(self.reservoir[d])), bool(self.unseen[d])

    def _defensive_change(self, stat: int):
        d = 1 - self.player
        self.change_stat = stat
        self._note("change", stat)
        if self._has(self.defender, "ink_cloud") and self.full(d) > 0:
            self._note("ink_cloud")
            self.empty[d] += 1
            self._resolve_change()
            return
        # Whether the defending player is asked may depend only on what the Challenger can see: the
        # Reservoir's size is public, its cards are face down. A single card pays automatically; two or
        # more always ask, even when they are copies of one card (a single legal move) - skipping the
        # question then would tell the Challenger that the Reservoir holds no two different cards.
        if self.reservoir_size(d) == 1:
            known, _ = self._pay_options()
            self._pay(known[0] if known else -1)
        else:
            self.phase = "pay"

    def _pay(self, card: int):
        d = 1 - self.player
        if card < 0:
            card = self.unseen[d].pop()
        else:
            self.reservoir[d].remove(card)
        self._take_from_reservoir(d)
        self._to_discard(d, card)
        # public from here: the card lies face up in the Discard Pile (which one was Player 2's unseen
        # starting card is not said; nobody could tell it from the others)
        self._note("paid", card)
        self._resolve_change()

    def _resolve_change(self):
        self.stat = self.change_stat
        self.used |= 1 << self.stat
        self.changed = True
        self.change_stat = -1
        r = self.outcome(self.challenger, self.defender, self.stat)
        if self._defends_as_ready():
            if r <= 0:
                self._discard_challenger()
            if r >= 0:
                self._discard_defender()
        else:  # Resting precedence: it alone goes on a tie or loss; if it wins, both go
            self._discard_defender()
            if r < 0:
                self._discard_challenger()
        if self.challenger >= 0:
            self._survive()
        else:
            self._next_challenge()

    def _discard_challenger(self):
        self._note("discarded", self.challenger)
        self._to_discard(self.player, self.challenger)
        self.challenger = -1

    def _discard_defender(self):
        d = 1 - self.player
        row = self.ready[d] if self.defender_row == READY else self.resting[d]
        row.remove(self.defender)
        self._note("discarded", self.defender)
        self._to_discard(d, self.defender)

    def _survive(self):
        p = self.player
        self._note("survives")
        (self.ready[p] if self._has(self.challenger, "tireless") else self.resting[p]).append(self.challenger)
        self._next_challenge()

    def _last_resort(self):
        """The defending player has no Animals: random Reservoir cards defend until one wins."""
        d = 1 - self.player
        while self.reservoir_size(d):
            known = len(self.reservoir[d])
            i = int(self.rng.integers(known + len(self.unseen[d])))
            card = self.reservoir[d].pop(i) if i < known else self.unseen[d].pop()
            was_empty = self._take_from_reservoir(d)
            self._note("reveals", card)  # what became of it follows from the comparison and Homing
            if self.outcome(self.challenger, card, self.stat) < 0:
                self.reservoir[d].append(card)  # back face down, shuffled in: now known to its owner
                self.reservoir[d].sort()
                self.empty[d] += was_empty  # back as it lay (RULES.md 11): a win turns no Empty card Full
                self._discard_challenger()
                self._next_challenge()
                return
            if self._has(card, "homing"):
                self.hand[d].append(card)
                self.progress = True
            else:
                self._to_discard(d, card)
        self._note("exhausted")
        self.winner = self.player  # Reservoir exhausted without stopping the Challenger
        self.phase = "over"

    # ------------------------------------------------------------------ masks and moves
    def _legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, np.int8)
        if not self.is_terminal():
            mask[self._legal_ids()] = 1
        return mask

    def _legal_ids(self) -> list[int]:
        g = self.game
        phase = self.phase
        p = self.player
        d = 1 - p
        if phase == "add":
            ids = [g.A_ADD + c for c in self.hand[p]] if self._can_add() else []
            return ids + [g.A_SKIP]
        if phase == "play":
            return [g.A_PLAY + c for c in self.hand[p]] + [g.A_END_PLAY]
        if phase == "declare":
            return [g.A_DECLARE + c for c in self._declarable()] + [g.A_LOCK]
        if phase == "statistic":
            return [g.A_STAT + s for s in range(NUM_STATS) if not self.used >> s & 1]
        if phase == "defender":
            ids = [g.A_DEF_READY + c for c in self.ready[d]]
            if not (self._has(self.challenger, "stoop") and self.ready[d]):
                ids += [g.A_DEF_RESTING + c for c in self.resting[d]]
            return ids
        if phase == "change":
            return [g.A_CHANGE + s for s in self._change_options()] + [g.A_ACCEPT]
        known, unseen = self._pay_options()  # phase "pay"
        return [g.A_PAY + c for c in known] + ([g.A_PAY_UNSEEN] if unseen else [])

    def _apply_action(self, action: int) -> None:
        handler, index = self.game.action_layout.handlers(type(self))[action]
        handler(self, index)  # one small method per action segment

    def _do_add_to_reservoir(self, card: int):
        p = self.player
        self.hand[p].remove(card)
        self.reservoir[p].append(card)
        self.reservoir[p].sort()  # face down: the order carries no information
        self.adds += 1
        self.progress = True
        self._advance()

    def _do_skip_reservoir(self, _):
        self.phase = "play"
        self._advance()

    def _do_play(self, card: int):
        p = self.player
        self.hand[p].remove(card)
        (self.ready[p] if self._has(card, "ambush") else self.resting[p]).append(card)
        self.progress = True
        self._advance()

    def _do_end_play(self, _):
        self.phase = "declare"
        self._advance()

    def _do_declare(self, card: int):
        self.ready[self.player].remove(card)
        self.queue.append(card)
        self._advance()

    def _do_lock_challengers(self, _):
        self._next_challenge()

    def _do_statistic(self, stat: int):
        self._choose_statistic(stat)

    def _do_defend_ready(self, card: int):
        self._choose_defender(card, READY)

    def _do_defend_resting(self, card: int):
        self._choose_defender(card, RESTING)

    def _choose_defender(self, card: int, row: int):
        self.defender = card
        self.defender_row = row
        self._note("defender", card, row)
        self._compare()

    def _do_change_statistic(self, stat: int):
        self._defensive_change(stat)

    def _do_accept(self, _):
        self._note("accepted")
        self._discard_defender()
        self._survive()

    def _do_pay_reservoir(self, card: int):
        self._pay(card)

    def _do_pay_unseen(self, _):
        self._pay(-1)

    # ------------------------------------------------------------------ what a player sees
    def observation(self, player: int) -> np.ndarray:
        player = check_seat(self.game, player)
        g = self.game
        o = g.O
        me, opp = player, 1 - player
        hand, ready, resting, reservoir = self.hand, self.ready, self.resting, self.reservoir
        # Zone cards count copies / 4: a bincount of their columns (a deck may hold copies of a card).
        a = g.zone_adds
        idx = [*map(a[0], hand[me]), *map(a[1], ready[me]), *map(a[2], resting[me]), *map(a[3], ready[opp]),
               *map(a[4], resting[opp]), *map(a[5], reservoir[me]), *map(a[6], self.discard[me]),
               *map(a[7], self.discard[opp]), *map(a[8], self.queue)]
        vec = np.bincount(idx, minlength=g.observation_layout.size).astype(np.float32)
        vec *= 0.25
        ones = []
        if self.challenger >= 0:
            ones.append(o["challenger"] + self.challenger)
        if self.defender >= 0:
            ones += [o["defender"] + self.defender, o["defender_row"] + self.defender_row]
        if self.stat >= 0:
            ones.append(o["statistic"] + self.stat)
            if self.defender >= 0:
                ones.append(o["comparison"] + 1 - self.outcome(self.challenger, self.defender, self.stat))
        used = self.used
        if used:
            base = o["used_statistics"]
            ones += [base + s for s in range(NUM_STATS) if used >> s & 1]
        if self.change_stat >= 0:
            ones.append(o["change_target"] + self.change_stat)
        if not self.is_terminal():
            ones.append(g.phase_column[self.phase])
        if ones:
            vec.put(ones, 1.0)
        unseen, empty = self.unseen, self.empty
        size_me, size_opp = len(reservoir[me]) + len(unseen[me]), len(reservoir[opp]) + len(unseen[opp])
        dm, do = g.deck_sizes[me], g.deck_sizes[opp]
        vec.put(g.tail_columns, (
            size_me / 7, (size_me - empty[me]) / 7, empty[me] / 7, len(unseen[me]),
            size_opp / 7, (size_opp - empty[opp]) / 7, empty[opp] / 7,
            len(self.deck[me]) / dm, len(self.deck[opp]) / do, len(hand[me]) / dm, len(hand[opp]) / do,
            min(self.turns / g.default_max_turns, 1.0), self.changed, self.player == me, self.first == me))
        if self.player == me:
            vec[o["reservoir_adds"]] = self.adds / 2
        return vec

    def resample_hidden(self, player: int, rng: np.random.Generator) -> TravelEarthState:
        """Re-deal what ``player`` cannot see: their own Deck order and unseen Reservoir card, and the
        opponent's Hand, Deck and whole Reservoir (face down), keeping every zone's size, and the future
        chance (a generator of its own, drawn from ``rng``)."""
        player = check_seat(self.game, player)
        other = self.clone()
        me, opp = player, 1 - player
        pool = other.deck[me] + other.unseen[me]
        rng.shuffle(pool)
        k = len(other.unseen[me])
        other.unseen[me] = pool[:k]
        other.deck[me] = pool[k:]
        zones = [other.hand[opp], other.deck[opp], other.reservoir[opp], other.unseen[opp]]
        pool = [c for z in zones for c in z]
        rng.shuffle(pool)
        start = 0
        for z in zones:
            z[:] = pool[start: start + len(z)]
            start += len(z)
        other.reservoir[opp].sort()
        # future chance (Last Resort draws) is hidden too: a world keeping the real generator would
        # draw the real cards, and its state would let the deal be re-run
        other.rng = new_rng(int(rng.integers(2**63 - 1)))
        other._mask_cache = None
        return other

    def saved_bounds(self) -> dict:
        last, seat = len(self.game.catalogue.cards) - 1, (0, 1)
        return {"first": seat, "player": seat, "turns": (0, None), "quiet": (0, self.game.stalemate_turns),
                "winner": (-1, 1), "adds": (0, 2), "challenger": (-1, last), "defender": (-1, last),
                "defender_row": (-1, RESTING), "stat": (-1, NUM_STATS - 1), "used": (0, ALL_STATS),
                "change_stat": (-1, NUM_STATS - 1), "phase": frozenset(PHASES + ("over",))}

    def saved_lengths(self) -> dict[str, int]:
        return dict.fromkeys(("deck", "hand", "ready", "resting", "reservoir", "unseen", "empty", "discard"), 2)

    def check_invariants(self) -> None:
        g = self.game
        for p in (0, 1):
            zones = (self.deck[p] + self.hand[p] + self.ready[p] + self.resting[p] + self.reservoir[p]
                     + self.unseen[p] + self.discard[p])
            if p == self.player:
                zones = zones + self.queue + ([self.challenger] if self.challenger >= 0 else [])
            invariant(sorted(zones) == g.decklists[p], f"seat {p}: cards not conserved")
            size = self.reservoir_size(p)
            invariant(0 <= self.empty[p] <= size,
                      f"seat {p}: {self.empty[p]} Empty of {size} Reservoir cards")
            invariant(size <= MAX_RESERVOIR, f"seat {p}: Reservoir holds {size} cards")
            invariant(len(self.unseen[p]) <= (1 if p != self.first else 0),
                      "only Player 2 has an unseen card")
        if self.is_terminal():
            return
        invariant(self.phase in PHASES, f"no phase {self.phase!r}")
        self._check_challenge()

    def _check_challenge(self) -> None:
        """The challenge fields are what the phase's way in left: cleared before the Challenge Phase
        (``_clear_challenge``); a Challenger from its first statistic on; a Defender, on the field in its row,
        once chosen; a defensive change's statistic only while it is paid for (a change ends the challenge);
        and the Reservoir Empty cards of the Challengers resolved, plus one Full card for each declared one
        still waiting, within the Reservoir."""
        p, d, phase = self.player, 1 - self.player, self.phase
        challenge = phase in ("statistic", "defender", "change", "pay")
        invariant(not self.changed, "a defensive change made, in a challenge still going on")
        invariant((self.change_stat >= 0) == (phase == "pay"),
                  f"the statistic of a defensive change {self.change_stat} in the {phase} phase")
        costly = sum(1 for c in self.queue if not self._has(c, "patient_hunter"))
        invariant(costly + self.empty[p] <= self.reservoir_size(p),
                  f"seat {p}: {self.empty[p]} Empty Reservoir cards and {costly} declared Challengers to pay "
                  f"with {self.reservoir_size(p)} Reservoir cards")
        if not challenge:
            # (the active player's Empty cards, refreshed as the turn began, are left free here: rules tests set
            # some up to check that they count against the Reservoir's limit and the Challengers declared)
            invariant(phase == "declare" or not self.queue, f"declared Challengers in the {phase} phase")
            invariant((self.challenger, self.defender, self.defender_row, self.stat, self.used) == (-1, -1, -1, -1, 0),
                      f"a challenge under way in the {phase} phase")
            return
        invariant(self.challenger >= 0, "a challenge phase needs a Challenger")
        invariant(self._has(self.challenger, "patient_hunter") or self.empty[p] >= 1,
                  f"seat {p}: the Challenger resolving without an Empty Reservoir card")
        invariant((self.stat >= 0) == (self.used != 0) and (self.stat < 0 or self.used >> self.stat & 1),
                  f"statistic {self.stat} with the statistics used {self.used:b}")
        invariant(phase == "statistic" or self.stat >= 0, f"no statistic chosen, in the {phase} phase")
        if self.defender < 0:
            invariant(self.defender_row == -1, f"a Defender's row {self.defender_row} without a Defender")
            # a Defender is chosen after the first statistic; a tie keeps it for the next one
            invariant(phase in ("statistic", "defender"), f"the {phase} phase needs a Defender")
            invariant(self.used == (0 if phase == "statistic" else 1 << self.stat),
                      f"the statistics used {self.used:b} before a Defender is chosen, in the {phase} phase")
            return
        invariant(phase != "defender", "a Defender chosen, in the defender phase")
        invariant(self.defender_row in (READY, RESTING), f"a Defender's row {self.defender_row}")
        row = self.ready[d] if self.defender_row == READY else self.resting[d]
        invariant(self.defender in row, "the Defender must be on the field")
        invariant(self.stat >= 0, "a Defender chosen before a statistic")
        r = self.outcome(self.challenger, self.defender, self.stat)
        if phase == "statistic":  # a tie of a Defender defending as Ready moves on to another statistic
            invariant(r == 0 and self._defends_as_ready() and self.used != ALL_STATS,
                      "the next statistic chosen though the last one decided the challenge")
            return
        # the Defender loses, or a Resting one ties: the change (or its payment) is the defending player's
        invariant(r > 0 or (r == 0 and not self._defends_as_ready()),
                  f"the {phase} phase though the Defender did not lose the statistic compared")
        options = self._change_options()
        invariant(bool(options), f"the {phase} phase with no defensive change open")
        if phase == "pay":
            invariant(self.change_stat in options, f"paying for a change to statistic {self.change_stat}, not open")
            # one Reservoir card pays at once; Ink Cloud pays with a Full card if there is one
            invariant(self.reservoir_size(d) >= 2 and not (self._has(self.defender, "ink_cloud") and self.full(d) > 0),
                      f"seat {d} asked which Reservoir card pays, though it pays at once")

    # ------------------------------------------------------------------ text
    def render_text(self, player: int | None = None) -> str:
        player = check_seat(self.game, player, spectator=True)
        g = self.game
        cat = g.catalogue

        def names(cards):
            return ", ".join(cat.label(c) for c in sorted(cards)) or "-"

        shown_abilities: dict[str, None] = {}

        def with_ability(card):
            # named here, its text under the table: abilities overrule the comparisons' general rule
            if not cat.ability[card]:
                return cat.label(card)
            shown_abilities[cat.ability[card]] = None
            return f"{cat.label(card)} ({cat.abilities[cat.ability[card]]['name']})"

        def with_stats(cards):
            # the printed values, so a human can choose a statistic without a card list at hand
            return ", ".join(f"{with_ability(c)} [{' '.join(f'{v:g}' for v in cat.values[c])}]"
                             for c in sorted(cards)) or "-"

        def who(p):
            # "Player 1" is who went first (the rules' name), which need not be seat 0: "you" says which is yours
            return f"Player {1 if p == self.first else 2} (seat {p}{', you' if p == player else ''})"

        head = f"Travel Earth TCG - turn {self.turn_shown()}: {who(self.player)}'s turn"
        if not self.is_terminal():
            decider = self.current_player()
            head += f", deciding: {self.phase}" if decider == self.player else \
                f"; {who(decider)} decides: {self.phase}"
        lines = [head, "  [values: " + ", ".join(f"{n} {u}" for n, u in zip(cat.stat_names, cat.stat_units))
                 + "; Development Time: lower wins, the others: higher wins, unless an ability says otherwise]"]
        for p in (self.first, 1 - self.first):
            sees = player is None or player == p
            lines.append(f"{who(p)}: Deck {len(self.deck[p])}, Hand {len(self.hand[p])}"
                         + (f": {with_stats(self.hand[p])}" if sees else ""))
            lines.append(f"  Ready Row:   {with_stats(self.ready[p])}")
            lines.append(f"  Resting Row: {with_stats(self.resting[p])}")
            size = self.reservoir_size(p)
            content = ""
            if sees and size:
                known = [cat.label(c) for c in sorted(self.reservoir[p])]
                content = ": " + ", ".join(known + ["(unseen card)"] * len(self.unseen[p]))
                if player is None and self.unseen[p]:
                    content += f" [unseen = {cat.label(self.unseen[p][0])}]"
            # added this turn: public (the cards go face down in view), as the observation's reservoir_adds
            adds = f", {self.adds} added this turn" if p == self.player and self.adds and not self.is_terminal() else ""
            # its capacity too: Blubber Store raises it, and a full Reservoir refuses a card (the picture shows it)
            lines.append(f"  Reservoir {size}/{self.reservoir_capacity(p)} ({size - self.empty[p]} Full, {self.empty[p]} Empty{adds}){content}")
            lines.append(f"  Discard Pile: {names(self.discard[p])}")
        group = None
        for turn, seat, text in self.challenge_texts():
            if turn != group:
                group = turn
                lines.append(f"Challenges of turn {turn + 1}, {who(seat)} challenging:")
            lines.append(f"  {text}")
        # at the game's end the Challenger Last Resort failed to stop is still set and the rest of its group
        # still declared: the record above says how it ended; these lines would say the challenge goes on
        if self.challenger >= 0 and not self.is_terminal():
            stat = cat.stat_names[self.stat] if self.stat >= 0 else "?"
            used = [cat.stat_names[s] for s in range(NUM_STATS) if self.used >> s & 1]
            # with its values: it has left the Ready Row, and the defender chooses against them
            text = f"Challenge: {with_stats([self.challenger])} on {stat} (used: {', '.join(used) or '-'})"
            if self.defender >= 0:
                row = "Ready" if self.defender_row == READY else "Resting"
                text += f" vs {row} {with_ability(self.defender)}"
                if self.stat >= 0:
                    text += f": {self._versus(self.challenger, self.defender, self.stat)}"
            lines.append(text)
        if self.queue and not self.is_terminal():
            lines.append(f"Declared, waiting: {names(self.queue)}")
        for key in shown_abilities:
            lines.append(f"  {cat.abilities[key]['name']}: {cat.abilities[key]['text']}")
        if self.is_terminal():
            lines.append("Game over: " + ("drawn (stalemate)" if self.drawn_game else f"seat {self.winner} wins"))
        return "\n".join(lines)


TravelEarthGame.state_class = TravelEarthState


def _game_from_config(config: dict) -> TravelEarthGame:
    return TravelEarthGame(**config)


def _vector(value) -> TypeGuard[np.ndarray]:
    """A one-dimensional NumPy array, taken where a list is (a table, the two decks, a deck's entries)."""
    return isinstance(value, np.ndarray) and value.ndim == 1
