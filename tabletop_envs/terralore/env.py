"""Terralore — ``terralore_v0``
=============================

Two players, each with a 20-card singleton deck of creatures and skills, place cards face down into
an attacking and a defending lane, reveal them in a fixed order and count: the points of your
attacking lane in excess of the opponent's defending lane are dealt to the opponent's 10-HP castle.
Rules: ``tabletop_envs/terralore/RULES.md`` (the rule text plus every choice where it is silent).

| | |
|---|---|
| import | ``from tabletop_envs import terralore_v0; env = terralore_v0.env()`` |
| agents | ``player_0``, ``player_1`` |
| actions | Discrete(203) |
| observation | Dict(``observation``: Box(889,) float32, ``action_mask``: Box(203,) int8) |
| state | ``env.state()``: Box(1778,) float32, both players' observations seat by seat (a god's view, for a centralised critic) |

Arguments
---------
``env(decks=("random", "random"), draw_on_first_turn=False, mulligan=True,
defenders_deal_damage=False, deck_out="cannot_draw", opaque_wall=True, num_players=2, render_mode=None,
max_turns=None, illegal_action="raise")``. ``num_players`` takes 2 only (it is there so that code written
for every env, Earth's table sizes included, can pass it). A deck is ``"random"`` (a random legal deck each game), a
preset name (``tidal_fortress``, ``ember_rush``, ``sky_and_sun``, ``grave_tide``, ``worst_deck_ever``)
or a list of 20 card names or ids. ``opaque_wall=True`` (the default) hides the whole placement until
the Reveal Phase; with ``opaque_wall=False`` the second placer sees the first placer's card backs,
discards and hand size (RULES.md choice 8). The rule options are described in RULES.md.

Actions
-------
Placing one card is a chain of small decisions, each with its own mask: ``play`` *card* → ``lane``
→ one ``discard`` per point of the card's cost → ``destroy``, one per creature, until the new creature
fits (only when a creature goes into a lane without enough of its four slots free: some creatures take
two or three; skills take none). Action ids are indexed by catalogue card id, never by hand position, so they keep
their meaning however the hand is ordered. ``env.action_to_string(a)`` names any action.

| ids | name | meaning |
|---|---|---|
| 0–1 | `mulligan` | Opening hand: keep it (0) or mulligan (1: shuffle it back, draw one card fewer) |
| 2–67 | `play` | Play Phase: place card *i* (catalogue id) from your hand face down |
| 68 | `end_play` | Play Phase: place nothing more this turn |
| 69–70 | `lane` | Put the chosen card in your attacking (0) or defending (1) lane |
| 71–136 | `discard` | Pay the cost: discard card *i* from your hand to your Graveyard |
| 137–202 | `destroy` | Lane full: destroy your creature *i* in that lane (to the Graveyard) to free its slots |

Observation
-----------
Only what the observing player may know: their own hand, lanes and face-down cards; of the opponent only face-up creatures, the number of face-down cards in each lane, cards
returned to their hand in view, and hand and deck sizes; both Graveyards and Exiles; castles; the
turn; the pending decision. During the Play Phase the opponent is shown as they stood when it began
(``opaque_wall``, the default; the text view and the picture likewise), so their face-down counts stay
0 until ``opaque_wall=False``. Card segments are indexed by
catalogue card id.

| indices | name | shape | range | meaning |
|---|---|---|---|---|
| 0–65 | `hand` | 66 | 0…1 | 1 where card *i* (catalogue id) is in your hand |
| 66–131 | `own_attacking` | 66 | 0…1 | 1 where card *i* (catalogue id) is your face-up creature in your attacking lane |
| 132–197 | `own_defending` | 66 | 0…1 | 1 where card *i* (catalogue id) is your face-up creature in your defending lane |
| 198–263 | `own_face_down_attacking` | 66 | 0…1 | 1 where card *i* (catalogue id) is your face-down card in your attacking lane |
| 264–329 | `own_face_down_defending` | 66 | 0…1 | 1 where card *i* (catalogue id) is your face-down card in your defending lane |
| 330–395 | `opp_attacking` | 66 | 0…1 | 1 where card *i* (catalogue id) is the opponent's face-up creature in their attacking lane (your defending lane) |
| 396–461 | `opp_defending` | 66 | 0…1 | 1 where card *i* (catalogue id) is the opponent's face-up creature in their defending lane (your attacking lane) |
| 462–527 | `opp_known_hand` | 66 | 0…1 | 1 where card *i* (catalogue id) was returned to the opponent's hand in view (from their Graveyard) and not seen since: in their hand, or one of their face-down cards |
| 528–593 | `own_graveyard` | 66 | 0…1 | 1 where card *i* (catalogue id) is in your Graveyard |
| 594–659 | `opp_graveyard` | 66 | 0…1 | 1 where card *i* (catalogue id) is in the opponent's Graveyard |
| 660–725 | `own_exile` | 66 | 0…1 | 1 where card *i* (catalogue id) is in your Exile |
| 726–791 | `opp_exile` | 66 | 0…1 | 1 where card *i* (catalogue id) is in the opponent's Exile |
| 792–857 | `pending_card` | 66 | 0…1 | 1 where card *i* (catalogue id) is the card you are placing now |
| 858–861 | `lane_points` | 4 | 0…10 | face-up points / 10: your attacking, your defending, opponent's attacking, opponent's defending lane |
| 862–863 | `castles` | 2 | 0…1 | castle HP / 10: yours, the opponent's |
| 864–865 | `hand_sizes` | 2 | 0…1 | hand size / 7: yours, the opponent's |
| 866–867 | `deck_sizes` | 2 | 0…1 | deck size / 20: yours, the opponent's |
| 868–869 | `opp_face_down_counts` | 2 | 0…1 | number of the opponent's face-down cards / 20: attacking, defending lane (0 with opaque_wall, the default) |
| 870 | `turn` | 1 | 0…1 | turn number / 25 |
| 871–872 | `phase` | 2 | 0…1 | one-hot phase: mulligan, play |
| 873–877 | `decision` | 5 | 0…1 | one-hot decision you must take now (all 0 when it is not your move): mulligan, play, lane, discard, destroy |
| 878–879 | `pending_lane` | 2 | 0…1 | one-hot lane of the card you are placing: attacking, defending |
| 880–881 | `payment` | 2 | 0…1 | cards still to discard / 6, lane slots still to free / 4 |
| 882–884 | `placement` | 3 | 0…1 | you place first this turn, you have finished placing, the opponent has finished |
| 885–886 | `mulliganed` | 2 | 0…1 | you took a mulligan, the opponent took a mulligan |
| 887–888 | `reveal_first` | 2 | 0…1 | one-hot who revealed first last Reveal Phase: you, the opponent |

What the observation leaves out
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A player knows a few things the v0 layout has no field for; each needs a new layout (a new env version
and retrained models), so they are listed here (counted by a one-off audit over seeded self-play of the
heuristic bot, 2026-12-03):

* **Your own deck list.** With ``"random"`` decks (the default) a real player knows the 20 cards they
  play; the observation shows the ones seen (hand, lanes, Graveyard, Exile), not which of the other
  catalogue cards make up the rest, so at a typical decision the ~14 cards left in your deck could be any
  of about 60. No memory recovers it. A preset or listed deck is the game's configuration, the same in
  every game a model plays under it.
* **The order of your own face-down cards in a lane**: they turn in placement order (RULES.md choice
  11), the observation holds them as a set. Reversing the order changed the turn's outcome in 5 of 362
  pairs tried; a policy with memory of its own placements can keep it.
* **Which cards in your hand the opponent knows** (recovered from your Graveyard in view): the mirror of
  ``opp_known_hand``, not marked for your own hand (found by an audit, 2026-12-05; counted by
  ``python -m benchmarks.observation_gaps``). In 200 games of the
  heuristic bot against itself 4.7 % of the decisions were taken holding such a card (in 49 games), 5.4 %
  in 200 of the shipped model against the heuristic. A policy with memory of its recoveries keeps it.
* **The rule options** (``deck_out``, ``draw_on_first_turn``, ...): a model learns one set, which its
  sidecar records; ``load_policy`` warns when it is played under others.

Action mask
-----------
``obs["action_mask"]`` (and ``info["action_mask"]``) marks the legal actions of the acting player;
the other player's mask is all zeros. The mask equals the rules: a card may be played only if the
hand holds enough other cards to pay its cost; ``end_play`` is legal whenever a card may be chosen
(once a card is chosen, its lane, payment and any destroys come first: RULES.md choice 9).

Rewards
-------
+1 for the winner, -1 for the loser, 0 each for a draw, at the end of the game only. A game reaching
``max_turns`` (default 50; decks run out long before) is truncated with reward 0.

Version history
---------------
* v0: first release (66 cards, 5 preset decks).
* v0 (hidden-information fix; observation and action layouts unchanged, observations changed): a card
  recovered from the Graveyard stays in the opponent's ``opp_known_hand`` when it is placed face down,
  until it is seen again (discarded, destroyed or revealed). Dropping it at placement told the opponent
  which face-down card it was.
* v0 (deck-out fix; layouts unchanged, game outcomes changed): when both decks are too short for a
  Draw Phase (``deck_out="cannot_draw"``), the shorter one runs out first and its owner loses; before,
  1 card against 0 went to the tiebreakers, so the extra card a mulligan leaves in the deck never
  counted.
* v0 (``resample_hidden`` fix; play unchanged): a re-dealt world gets a generator of its own, so it rolls
  its own round-1 die and mulligan shuffles; before, every world kept the real generator and knew the
  real reveal order (and its state let the deal be re-run).
* v0 (``resample_hidden`` fixes; play unchanged): with ``"random"`` decks the opponent's deck list is
  re-drawn too (their unseen cards are any catalogue cards they have not shown); before, every world
  held their real 20 cards, which told a searching player what they had. A card seen returning to the
  opponent's hand is re-dealt between hand and face down (every world kept it where it lay), and a
  lane being paid for keeps within four slots in every world.
* v0 (new rule option; play under the defaults unchanged): ``opaque_wall=True`` places cards "behind an
  opaque wall", as in the novel: until the Reveal Phase neither player sees anything of the other's
  placement this turn (card backs, discards, replace-one destroys, hand size), and ``resample_hidden``
  re-deals the opponent from the start of the Play Phase and plays their placement anew at random.
* v0 (hidden-information fix; layouts unchanged, observations changed): ``opaque_wall=True`` is the
  default, as the text says "the placement remains hidden from the opponent"; before, the second placer
  saw the first placer's card backs per lane, their paying discards and their hand size. The shipped
  model was retrained under it. A model trained before this change, whose sidecar does not name the
  option, was trained with ``opaque_wall=False``: pass that to play it under its own rules.
* v0 (``resample_hidden`` fix; play unchanged): where 20 random re-deals of the opponent's face-down cards
  all fail (4 in 62,678 in random play), a search deals them; before, such a world kept them where they
  lay, which told where each one was.
* v0 (``resample_hidden`` fix; play unchanged): with ``opaque_wall=False``, worlds for the other player
  re-deal the card being placed: while its lane is chosen the placer is still choosing a card, and a card
  being paid for is any card whose cost the discards seen so far leave unpaid, with its own payment and
  slots to free; before, every world kept the real card (in hand, then face down in its lane), though
  the open table shows card backs and discards, never the cards. The other player's text view and
  picture show the placer at the Play decision, not which step of a placement (as behind the wall).
* v0 (text view; play, observation and action layouts unchanged): the text view lists, under the table,
  the printed text of each card it names in a hand or a lane (a seat's own hand and face-down cards, the
  face-up cards, the opponent's cards known in hand), shows a multi-slot creature's slots beside it, and
  each lane's slots in use out of four (of the opponent's lanes, the face-up creatures' only); before, a
  human at the terminal never saw what a card does or when a lane was full.
* v0 (text view and picture; play, observation and action layouts unchanged): while the lane of the card
  being placed is chosen, the placing line tells its cost and, where a lane is full, the slots each lane
  would have to free; before, it said "0 discard(s), 0 slot(s) to free" until the lane was chosen. Once
  chosen, the line names the lane.
* v0 (``deck_out="empty_deck"`` fix; the default rules unchanged): of two decks that one Draw Phase
  empties, the shorter runs out first and its owner loses, as under the default; before, both lost
  together and the tiebreakers decided (RULES.md choice 4).
* v0 (catalogue and deck checks; the shipped cards and play unchanged): a card file's ``text`` field is
  refused as unknown (a card's text is written from its effects: one of its own loaded and was never shown
  or played); a deck given as a dict of counts or a set is refused (a dict's counts were dropped, and a
  set's order changes with the process's hash seed); names that read alike (case, spaces, zero-width
  characters) are one name.
* v0 (saved-state checks; play, observations and layouts unchanged): ``State.from_dict`` (and
  ``reset(options={"state": ...})``) refuses, with a StateError naming it, a saved position the rules never
  reach: a payment of more discards than the card's cost or the cards left in the hand, slots to free other
  than the lane's overflow, a card being paid for that is not the last one placed in its lane, a lane chosen
  for a card the rest of the hand cannot pay for, a ``play_start`` of another shape than the wall keeps (or
  one kept with ``opaque_wall=False``) or one the placement since could not have led from, a known card
  listed twice, face-down cards outside the Play Phase, known cards or a finished placement in the mulligan
  phase, and ``done_placing`` out of step with who places. Before, such an edited file loaded, then left a
  mask with no legal action, an observation outside its Box, an IndexError, or ``resample_hidden`` worlds
  that broke the invariants.
* v0 (picture; play, observations and layouts unchanged): where the opponent holds known cards and has
  cards face down, a seat's picture says beside their hand row "known cards: in hand or face down", as the
  text view does; before, it drew the known cards in the hand row only, though one may have gone down face
  down (which the rules keep from this seat; the picture was the same either way, so it leaked nothing).
* v0 (``resample_hidden`` fix; play unchanged): on an open table (``opaque_wall=False``) the opponent's
  face-down cards are dealt with every whole deal of the hidden zones alike likely, each deal counted. A
  card known to be in their hand lay face down in 1 world in 11 where 3 in 4 was right (the other cost-0
  cards it competed with alike mostly lie in the deck), and dealing place by place put a two-slot creature
  first in a lane 3 times too often. The random re-deals and the search behind them are gone.
"""

from __future__ import annotations

from typing import Any

from ..core.aec import TabletopAECEnv
from .engine import TerraloreGame


class raw_env(TabletopAECEnv):
    game_class = TerraloreGame
    game: TerraloreGame
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "terralore_v0", "is_parallelizable": False, "render_fps": 2}


def env(**kwargs: Any) -> raw_env:
    """The Terralore AEC env (keyword arguments: see the module documentation)."""
    return raw_env(**kwargs)
