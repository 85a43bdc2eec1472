"""Earth — ``earth_v0``
=====================

Earth for 1 to 5 players: grow a 4×4 tableau of flora and terrain on your island, choosing each
turn one of four actions (Planting, Composting, Watering, Growing) that every player takes part in,
then activating the matching abilities. Full game: island/climate/ecosystem side choice, the
simultaneous setup compost, the active row and the other row, ability activation order, events and
sprout conversion at any time, fauna objectives with tiers, the first-completion bonus, scoring steps
1–8 and the five tiebreakers. Rules: ``tabletop_envs/earth/RULES.md`` (the rule text plus every
choice where it is silent).

| | |
|---|---|
| import | ``from tabletop_envs import earth_v0; env = earth_v0.env(num_players=2)`` |
| agents | ``player_0`` … ``player_{n-1}`` |
| actions | Discrete(730) |
| observation | Dict(``observation``: Box(5148,) float32, ``action_mask``: Box(730,) int8) |
| state | ``env.state()``: Box(n × 5148,) float32, every player's observations seat by seat (a god's view, for a centralised critic) |

Arguments
---------
``env(num_players=2, reward="rank", advanced_draft=False, fauna_side="normal", max_rounds=100,
data_dir=None, render_mode=None, max_turns=None, illegal_action="raise")``.
``reward``: ``"rank"`` (winner +1 … last −1, linear in rank, tied players share the mean — zero-sum)
or ``"vp_margin"`` (own VP minus the mean VP of the others, in raw VP, unscaled: tens of points —
zero-sum); solo play returns the final VP (unscaled too, about 80–250). ``advanced_draft`` deals 2 islands, 2 climates and 2 ecosystems to choose from. ``fauna_side``
``"beginner"`` gives every achiever 10 VP. ``max_rounds`` ends any game after that many rounds (a safety
for a game that can no longer finish; random games end long before): it is scored normally and is a
termination with the usual rewards, not a truncation. ``max_turns`` counts player turns (a round is one
turn per player); its default, 1000 or ``max_rounds`` × players where that is more, is never reached
before ``max_rounds`` ends the game.

Actions
-------
Every compound move is a chain of small decisions, each with its own mask; ids are indexed by
catalogue id (cards, sides, events) or by cell / ability slot, never by hand position.
Planting: ``plant`` *card* → ``cell`` (→ ``option``: pay soil or the card's alternative, for the
few cards that have one, when both can pay). Sprouts and growth: one ``cell`` per piece (``pass``
stops an "up to"). Paying sprouts or growth: one ``cell`` per piece removed; paying or composting cards
from hand: one ``card`` per card. Activation: the player picks the next ability to activate
(``activate`` slot) — tableau slots only in reading order, island then climate either all before or
all after the tableau — or ``pass`` to end. **Anytime**: at every ``action``, ``plant``, ``option``,
``activate`` decision, at the active player's placement in the Watering row (events only) and in the
Growing row, and in an end-of-turn ``window`` offered to each player (clockwise from the active player) who
has at least 3 sprouts or any card in hand, ``event`` *e* plays an event and ``convert`` starts a 3 sprouts → 2 soil conversion (not
during the Watering action itself, never in the middle of an ability). Whether a seat is asked depends
only on what the other players can see, never on what its hand holds: the window, a ``plant`` decision
or the active player's placement in the Watering and Growing rows may offer only ``pass``.
``env.action_to_string(a)`` names any action.

| ids | name | meaning |
|---|---|---|
| 0–19 | `side_island` | setup: choose this island side (of a card you were dealt) |
| 20–39 | `side_climate` | setup: choose this climate side |
| 40–103 | `side_ecosystem` | setup: choose this personal ecosystem side |
| 104–107 | `action` | active player: choose Planting / Composting / Watering / Growing |
| 108–352 | `plant` | plant this flora/terrain card from hand (by catalogue id) |
| 353–368 | `cell` | tableau cell row*4+col: where to plant / place / remove a sprout or growth |
| 369–651 | `card` | pick this card (keep from the draw, compost from hand, pay with it) |
| 652–687 | `activate` | activate this ability: tableau cell*2+k, 32-33 island, 34-35 climate |
| 688–725 | `event` | anytime: play this event from hand to your event stack |
| 726 | `convert` | anytime: convert 3 sprouts in your tableau to 2 soil |
| 727–728 | `option` | binary choice: other players' row (Composting: 2 soil / compost 2; Watering: 2 sprouts / 2 soil; Growing: draw 2 / 2 growth) or paying a cost with soil / the card's alternative |
| 729 | `pass` | stop / decline / end activation / end window |

Observation
-----------
Only what the observing player may know: their own hand, draw choice, personal ecosystem and the
cards they composted from hand; for every seat (relative to the observer: seat 0 is you; seats
beyond the player count are zeros) the tableau with sprouts and growth, soil,
hand/compost/event counts, event stacks, island and climate (others' hidden during setup), the last
action marker; the fauna board with leaves, the public ecosystems, the turn's action and the
pending decision. Other players' hands, personal ecosystems, compost contents and the deck order
stay hidden (tested by resampling them).

| indices | name | shape | range | meaning |
|---|---|---|---|---|
| 0–2 | `phase` | 3 | 0…1 | one-hot: setup, play, over |
| 3–17 | `decision` | 15 | 0…1 | my pending decision one-hot ('side', 'setup_compost', 'action', 'plant', 'plant_cell', 'keep', 'option', 'place', 'pay', 'pay_hand', 'compost_hand', 'activate', 'copy', 'window', 'pay_method') (zeros if not mine) |
| 18–22 | `decider` | 5 | 0…1 | seat (relative to me) whose decision is pending |
| 23–27 | `active` | 5 | 0…1 | active player, relative seat |
| 28–32 | `first` | 5 | 0…1 | first player token, relative seat |
| 33–37 | `seats_in_game` | 5 | 0…1 | 1 for relative seats that exist |
| 38–41 | `action` | 4 | 0…1 | the action chosen this turn |
| 42–48 | `activation_colour` | 7 | 0…1 | colour being activated in my pending activation |
| 49 | `pending_count` | 1 | 0…1 | pieces / cards left in my pending decision / 12 (clipped) |
| 50–332 | `pending_card` | 283 | 0…1 | the card I am planting (my plant_cell decision) |
| 333 | `round` | 1 | 0…1 | rounds played / 100 (clipped) |
| 334 | `end_triggered` | 1 | 0…1 | someone completed 16 cards: this is the last round |
| 335–336 | `deck` | 2 | 0…1 | draw pile and discard sizes / 283 |
| 337–619 | `hand` | 283 | 0…1 | my hand (multi-hot by catalogue id) |
| 620–902 | `drawn` | 283 | 0…1 | cards I drew and must choose from (draw 4 keep 1) |
| 903–1185 | `my_known_compost` | 283 | 0…1 | cards I composted from my hand (still in my compost) |
| 1186–1249 | `my_ecosystem` | 64 | 0…1 | my personal ecosystem side (or the sides I may choose in setup) |
| 1250–1289 | `my_offers` | 40 | 0…1 | island and climate cards dealt to me, both sides (all setup; my choices show in `island`, `climate`) |
| 1290–1353 | `public_ecosystems` | 64 | 0…1 | the 2 public ecosystem sides |
| 1354–1537 | `fauna` | 4×46 | 0…1 | fauna side on each of the 4 fauna spaces |
| 1538–1557 | `fauna_leaves` | 4×5 | 0…1 | leaf of relative seat s on fauna space f, value (6 - order)/5 |
| 1558–1562 | `bonus` | 5 | 0…1 | relative seat holding the first-completion 7 VP leaf |
| 1563–1592 | `resources` | 5×6 | 0…1 | per seat: soil/40, hand/30, compost/30, events/10 (each clipped at 1), cards/16, is the active player |
| 1593–1612 | `last_action` | 5×4 | 0…1 | per seat: leaf marker of the action chosen last |
| 1613–1712 | `island` | 5×20 | 0…1 | per seat: island side (others' hidden during setup) |
| 1713–1812 | `climate` | 5×20 | 0…1 | per seat: climate side (others' hidden during setup) |
| 1813–2002 | `event_stack` | 5×38 | 0…1 | per seat: events played (public) |
| 2003–3227 | `tableau_cards` | 5×245 | 0…1 | per seat: cards in the tableau (multi-hot) |
| 3228–5147 | `cells` | 5×16×24 | 0…1 | per seat and cell: static card features (occupied, cost, VP, growth max, canopy, sprout spaces, terrain, 4 types, 4 habitats, 7 colours) then sprouts/6 and growth/8 |

What the observation leaves out
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A player knows a few things the v0 layout has no field for, or no room for; each needs a new layout (a
new env version and retrained models), so they are listed here (counted by a one-off audit over seeded
games, 2026-12-03: 100 two-player games of the heuristic bot against itself, 20 of the shipped model):

* **Counts above the clips**: soil above 40, hand above 30, compost above 30 and events above 10 read as
  40, 30, 30 and 10, though compost scores 1 VP a card and soil and hand size break ties. In the model's
  games some seat held more than 30 cards in hand at 10 % of decisions and more than 30 in compost at
  0.9 %; the heuristic's passed 30 compost at 0.5 %.
* **Pending fauna claims**: an objective met earlier in the turn is claimed at its end even if unmet by
  then (RULES.md "Fauna timing"); the observation shows only the present counts. 8 of 44,255 heuristic
  decisions and 19 of 9,997 of the model's were taken with such a claim pending and unmet. Memory
  recovers it.
* **Other seats' island and climate sides during the setup compost choice**: every side is chosen by
  then, but they are shown from the first turn (the text view likewise). Hand and soil counts already
  tell the island's draw; one decision per seat a game.
* **The discard pile's cards** (public; only its size is encoded): they matter once it is reshuffled into
  the deck, which no heuristic or model game reached.
* **Whether a pending place or pay decision is for sprouts or growth**, and whether a placement is the
  action's own (water: sprouts, grow: growth) or an ability's (found by an audit, 2026-12-05). Only the
  mask can tell them, when the open cells differ (counted by ``python -m benchmarks.observation_gaps``). In 30
  two-player games of the heuristic bot against itself, 30 % of the decisions were placements and in 667 of
  those 4,000 (17 %) observation and mask were the same for sprouts and growth; in 10 games of the shipped
  model against the heuristic, 169 of 1,344 placements and 9 of 261 payments (168 of 1,332 and 8 of 264
  before the Watering events fix, which offers events at the Watering row's placement and re-rolled those
  games; 175 of 1,406 and 16 of 265 before the Growing events fix, dad01d3). The text view names the
  resource.
* **Memory-only details**: which cards were planted this turn (eight island sides count them), and
  which card a pending pay or copy decision belongs to (a copied directional ability acts from the
  copying card's cell).
* **The rule options** (``fauna_side``, ``max_rounds``, ...): a model learns one set, which its sidecar
  records; ``load_policy`` warns when it is played under others.

Action mask
-----------
``obs["action_mask"]`` (and ``info["action_mask"]``) marks the legal actions of the acting player;
every other seat's mask is all zeros. The mask equals the rules (tested by trying every action).

Rewards
-------
At the end of the game only: rank-based (default) or VP-margin, zero-sum for 2–5 players; the final
VP in solo play. ``max_turns`` (default 1000 player turns, or ``max_rounds`` × players where that is more) truncates with reward 0.

Version history
---------------
* v0: first release (283 Earth cards, 20 island, 20 climate, 46 fauna, 64 ecosystem sides).
* v0, fix (same observation and action layouts, so no version bump; decision sequences changed):
  who is asked no longer reveals a hidden hand. The end-of-turn window went only to players holding
  a playable event (or 3 sprouts) and the "plant 1" / "plant up to 2" decisions only to players
  holding an affordable card, so the others learned about that hand from whose turn it was. Now
  every player with a card in hand gets the window, and is asked to plant when they have a legal
  cell, even if only ``pass`` is legal. Random games take about 15 % (2 players) to 18 %
  (4 players) more decisions, most of them pass-only windows; solo play is unchanged.
* v0, scoring fixes (layouts unchanged; scores changed): island and climate cards count for the
  card-VP and colour-set objectives as the text says ("these cards can also count for ecosystem/fauna
  objectives"), and a rows/columns ecosystem scores qualifying rows or qualifying columns, never both
  (a row and a column share a card, which may score an ecosystem card only once).
* v0, fauna timing fix (layouts unchanged; outcomes changed): an objective fulfilled at any moment of a
  turn is claimed at its end ("at the end of a turn in which a player fulfills an objective"), even when
  a later step of the turn spent the count below it again; before, only the state at the end of the turn
  counted. Which objectives are met but not yet claimed this turn is not in the observation: it follows
  from the counts seen earlier in the turn.
* v0, ``resample_hidden`` fix (play unchanged): during setup, other players' island and climate cards
  (and sides, once chosen) are re-dealt from the cards not offered to the player; before, every world
  kept the real ones, which the observation hides until setup ends. An island whose setup draw is done
  keeps its draw and compost numbers, which the hand counts show.
* v0, mask fix (play unchanged): ``info["action_mask"]`` is read-only at every decision. At the
  decisions reached by advancing the turn it was the engine's own cached mask, so writing into it
  changed which actions the engine accepted.
* v0, ``resample_hidden`` fix (play unchanged): where 20 random re-deals of the others' islands and
  climates all fail to fit the draw and compost numbers the player has seen, a search deals them; before,
  such a world kept the real offers and sides.
* v0, ``resample_hidden`` fix (play unchanged): while a player chooses the cell for the card they plant,
  worlds for another player put them back at choosing which card to plant, the card re-dealt with their
  hand; before, every such world kept the card in their hand and named it in the pending decision, which
  the observation shows to the planter only. The text view and picture name the pending decision (and its
  count) to the decider only, as the observation does; the other players read who decides.
* v0, ``resample_hidden`` fix (play unchanged): once the discard (public) is reshuffled into a new draw
  pile, a world re-deals its cards only among that pile and the hidden places drawn to from it since (a
  state gains ``deck_epoch`` at the first reshuffle); before, it swapped them with the cards the other
  players held and had composted, which the discard everyone saw could not have held.
  Each other seat's hand and face-down compost are dealt again as one lot, so a world does not tell which
  pile a card composted face down came from (``compost_marks``: each seat's compost size at each reshuffle).
* v0, ``resample_hidden`` fix (play unchanged): ``compost_marks`` keeps, for each reshuffle, each seat's
  smallest compost size since it, not its size at the reshuffle. A compost shrinks (a blue "discard from your
  compost" cost, an ability drawing from it), and a card composted from hand after that lay below the old
  mark, so worlds took it for one composted before the reshuffle: they never put a card of the new pile
  there, leaving out the real world, and where the seat held too few cards of the earlier piles the re-deal
  raised ``ValueError``. A saved state whose marks are not so (one saved before the fix, where a compost
  shrank after a reshuffle) is refused with a ``StateError``; its replay rebuilds it.
* v0 (text view; play, observation and action layout unchanged): the text view gave names only, so a
  human chose blind. In setup it now lists the sides a player was dealt and has not chosen yet (VP,
  habitats, an island's setup draw/compost/soil, the ability or objective text), to that player only; in
  play their own hand and draw card by card (type, cost and their cost after reductions, VP, sprout spaces,
  growth and canopy VP, habitats, ability text; events too); under every tableau a line per card keyed by
  its cell (``r2c0``, as the moves name cells) with its full name and text, the grid labelled by row and
  column; and for the decider the abilities it may activate or copy as their moves name them, with their
  texts, the card it is planting, and what it places or pays. A god's view still names the hands only.
* v0 (picture; play, observation and action layout unchanged): a fauna's leaves wrap onto a second row;
  in one row, the fifth leaf of a 5-player game was drawn past the panel's edge.
* v0, conversion fix (layouts unchanged; decision sequences changed where it applies): an activation
  (or a planting) is asked when converting sprouts, which is legal there, would give the soil an
  ability's (or a card's) cost needs; before, a player whose abilities their soil could not pay for yet
  was skipped, so one who reached 3 sprouts in the Watering rows with no soil could not convert and
  activate ("you can convert them any other time"). Random play never met the case (0 new decisions in
  100 two-player games); the shipped Earth model against the heuristic met it about once in five games.
* v0, events fix (layouts unchanged; decision sequences changed where it applies): an activation is asked
  when an event the player might play now (judged, with more than one seat, on a card in hand, public
  counts and the catalogue's events, as the window is) would gain a resource that an ability still
  reachable in it cannot pay for yet; before, a player whose abilities were all unpayable was skipped, so
  one who could pay an event only after the action rows (Aurora, 2 growth, after placing the Growing
  row's growth) got it only in the end-of-turn window, too late for the ability it would have paid ("events
  can be played at any time ... between the activation of 2 abilities"). Of the 100 random games of
  ``python -m tabletop_envs.earth.report --players 2 4 --games 100`` 31 two-player and 67 four-player games meet it (115
  and 386 new decisions); in the protocol games against the heuristic 52 of 300 (the 2-player model) and
  119 of 304 (the 4-player model, at four players).
* v0, custom catalogues (layouts unchanged; play with the shipped cards unchanged): a card with two black
  abilities (none shipped; a ``data_dir`` catalogue may hold one) may use each once, in reading order, when
  it is played; before, the decision ended with the first one used and the second was lost.
* v0, custom catalogues (shipped cards unchanged): a ``data_dir`` event whose abilities are not one black
  ``gain`` ability is refused on load (``CatalogueError``); before, another kind loaded and raised
  ``KeyError: 'gain'`` when the event was played, and an event's second ability was never gained.
* v0, custom catalogues (shipped cards unchanged): an ability that never takes effect where a ``data_dir``
  catalogue puts it is refused on load: ``all_types`` on a card whose type is not ``"joker"``, a brown
  ``gain``, and on an island or climate a black ``gain``, a ``score``, a ``copy`` or an ``alt_cost``;
  before, each loaded and did nothing while the card's text promised it.
* v0, custom catalogues (shipped cards unchanged): a key that an ability's kind, a ``per``, a ``where`` or a
  scoring pattern does not read is refused on load; before, it loaded and was ignored (a ``copy`` with a
  ``cost`` copied for free, a misspelt ``filter`` in a ``per`` or ``where`` counted or reached every card).
* v0, Planting fix (layouts unchanged; decision sequences and observations changed at 3-5 players): in the
  Planting rows every other player plants (step 3) before any of them draws (step 4), as the rule text
  numbers them; before, each other seat drew before the next one planted, so a black ability's draw in a
  later seat's planting took other cards (and, with the pile running out, fewer). Two players are
  unchanged (one other seat); of 100 random games (one generator per deal, seeded by it) 23 at three
  players, 25 at four and 53 at five play differently.
* v0, solo planting fix (layouts unchanged; decision sequences changed where it applies): in solo play a
  planting is also asked where an event in hand, played now, would gain what a card in hand needs to be
  paid for (soil or its alternative cost); before, only the cards and sprout conversion counted, so a card
  that only such an event paid for could not be planted that turn. With more than one seat, the same
  judged on the catalogue (public) adds nothing with the shipped cards, some of which cost 0. Random play
  meets it now and then: 5 of the 300 solo games of ``python -m tabletop_envs.earth.report --players 1
  --games 300`` play differently.
* v0, second solo planting fix (layouts unchanged; decision sequences changed where it applies): in solo play the
  second planting is also asked where the hand holds a playable event that draws cards and a cell is free; the
  first card's black "draw" may just have brought it, and no decision comes between that draw and the second
  planting, so a card the event would draw could never be planted that turn (found by a rules audit). With
  more than one seat a player with a card in hand is asked anyway. 3 of 300 random solo games (one generator
  per deal, seeded by it) play differently.
* v0, Watering events fix (layouts unchanged; decision sequences changed): events may be played at the active
  player's sprout placement in the Watering row (step 1), as at the Growing row's growth placement, and the
  placement is asked where no flora has room when an event paying sprouts might free some (judged on public
  counts with more than one seat, on the hand in solo play). Before, a player whose flora filled up lost the
  rest of the six sprouts, though an event paid with the sprouts just placed (Drought, 2 sprouts) would have
  made room ("events ... can be played at any time"; found by a rules audit). Conversion stays refused there
  ("You cannot convert sprouts to soil during this action"). Random play meets it often, since any event in
  hand is now legal there: of 100 random games (one generator per deal, seeded by it) 84 at two players and 88
  at four play differently. The heuristic bot never plays an event at the placement, so its games keep their
  moves (more actions are legal at some placements). A saved state whose placement marked ``anytime`` has
  another placement queued behind it (the sprouts of Sandstorm played at the Watering row's placement, marked
  by an edit) is refused on load: only the row's own placement, queued last, is marked; it loaded and offered
  events in the middle of the event's ability.
* v0, ``resample_hidden`` fix (play unchanged): during setup, a re-dealt island keeps its compost number only
  as far as the compost counts show it: all of it once its seat has composted, more than composted while the
  seat composts, nothing before the seat's turn (every seat draws before any composts), and the seat's
  pending setup compost follows the new island. Before, every world kept the real compost number of each
  island whose draw was done, which a seat yet to compost had not shown (islands drawing 9, 11 or 12 differ
  in it).
* v0, ``resample_hidden`` fix (play unchanged): during setup, the others' islands that fit the draw and
  compost numbers the player has seen are dealt with every fitting deal alike likely. Dealt seat by seat,
  each side alike likely among those still fitting, a seat earlier in the order took a card a later seat
  could use too often (1 in 4 worlds for 1 in 7 in a 5-player setup), and a search stood behind the
  random deals; the count of the ways to deal the later seats now weights each pick.
* v0, catalogue (layouts and the cards' data unchanged but for one name; objectives, so scores and play,
  changed): 37 fauna sides and 30 ecosystem rules used the real game's thresholds and rates one to one, which
  the facts we build from ask us not to do. Each such fauna side now asks one step more or less (3 full rows
  instead of 2, 7 Red abilities instead of 6, ...), the step that keeps how often players reach it nearer; each
  such ecosystem rule has another rate of about the same average VP (5 VP per 3 habitats instead of 3 per 2, a
  Trees table of 2/5/9/13/18/24/29 for 1-7 cards instead of 0/4/8/13/23/28/30). The flora "Yellow Morel", a real
  card's name, is "Red Morel". ``tabletop_envs/earth/data/generate.py`` says how the numbers were chosen.
* v0, custom catalogues (layouts unchanged; play with the shipped cards unchanged, as no shipped card or
  fauna side meets these): a fauna objective counting canopies, or lines of 4 different sprout or growth
  counts, is claimed when met at any moment of the turn, as the others are (both counts fall within a turn:
  paying a growth, placing a sprout); an island's, climate's or event's placement "on each Tree in your
  tableau" keeps its filter and "each" (both were dropped, so any card took the pieces, 1 in all); an event
  costing cards composted from hand needs another card in hand (it paid with itself, for free). A
  ``data_dir`` catalogue is refused on load where it meant another game than it played: sides not listed as
  card c = records 2c and 2c+1 (both sides of one fauna card could lie on the board), a direction other
  than "all" on an island's, climate's or event's ability (it counted the whole tableau), an event's
  ``if_action`` (never tested), a second ``alt_cost`` (ignored), a field a card's kind never reads (an
  event's ``cost``, a terrain's pieces, a canopy without growth), an island composting more cards than it
  draws, ``true`` as a number, and a blank name or two names differing only by case or spaces.
* v0, saved states (play, observations and layouts unchanged): ``from_dict`` and
  ``reset(options={"state": ...})`` refuse with a ``StateError`` naming the field an Earth state whose queued
  tasks are not ones the game queues (an unknown task, a key it lacks or never has, a seat 0.5, 7 or -2, a
  count of -2, a resource, cell or colour it never names), whose queue is in an order play never leaves (an
  automatic step in front, setup's tasks after setup, the turn's steps out of place or stage, drawn cards
  without their keep decision), whose pending planting is of a card the seat does not hold or cannot pay
  for, whose offers and sides are not a deal (a card dealt twice or short, a public ecosystem dealt, a side
  chosen of a card the seat was not dealt: an island or climate during setup, an ecosystem throughout; a side
  chosen while its choice is queued, or none after setup; a fauna or public ecosystem card twice) or whose
  reshuffle records disagree (``deck_epoch`` numbering more reshuffles than ``compost_marks`` records, a draw
  pile card of an earlier pile). Each loaded before, then failed in play or in ``resample_hidden`` with a
  Python error, a mask with no legal action or an observation outside its space.
* v0 (text view and picture; play, observation and action layouts unchanged): once the game is over the
  header names the last round and turn played; before, it named the next ones, which never began (a solo
  game of 43 turns ended "round 44, turn 44"). The text view says "1 player", not "1 players".
* v0 (picture; play, observation and action layouts unchanged): a finished game's header names as best the
  seats the rules rank first (VP, then the five tiebreakers, as the returns do), with "(on the tiebreakers)"
  where they broke a tie on VP; before, it named every seat tied on VP.
* v0, Growing events fix (layouts unchanged; decision sequences changed where it applies): the active player's
  growth placement in the Growing row (step 2) offers events and conversion, as ``action``, ``plant``,
  ``option`` and ``activate`` decisions do, and is asked where no flora has room when an event played now
  might free some (one that pays growth: with more than one seat judged on a card in hand, the growth held and
  the catalogue's events, as the window is; in solo play on the hand). Before, an event drawn by step 1's draw
  of 4 could be played only after the row, and a player whose flora were full of growth lost step 2's growth
  though an event paying growth (Aurora, Heatwave, ...) would have made room for it ("events ... can be
  played at any time"). In the 100 random games of ``python -m tabletop_envs.earth.report --players 2 4
  --games 100``, 124 new decisions at two players (46 games with one) and 136 at four (54 games), and 125
  and 131 events played at the placement.
"""

from __future__ import annotations

from typing import Any

from ..core.aec import TabletopAECEnv
from .engine import EarthGame


class raw_env(TabletopAECEnv):
    game_class = EarthGame
    game: EarthGame
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "earth_v0", "is_parallelizable": False, "render_fps": 2}


def env(**kwargs: Any) -> raw_env:
    """The Earth AEC env (keyword arguments: see the module documentation)."""
    return raw_env(**kwargs)
