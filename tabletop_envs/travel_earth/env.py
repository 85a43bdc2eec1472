"""Travel Earth TCG as a PettingZoo AEC environment (``travel_earth_v0``).

```python
from tabletop_envs import travel_earth_v0
env = travel_earth_v0.env(deck_format="championship")   # or deck_format="casual"
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else int(obs["action_mask"].nonzero()[0][0])
    env.step(action)
```

Two players collect real animals (72 cards, 69 species) and battle them one statistic at a time:
Top Speed, Weight, Length, Max Lifespan and Offspring (higher wins) and Development Time
(gestation or incubation, lower wins). Every printed value is the sourced dataset's, its source
recorded in ``data/animals.json`` (the dataset's notes say which are estimates or maxima); Maximum Depth is printed for aquatic animals as information only.
The full rules and every reading of an unclear sentence are in ``RULES.md`` next to this file.

| | |
|---|---|
| agents | ``player_0``, ``player_1`` (a coin flip decides who is Player 1) |
| actions | Discrete(449) |
| observation | Box(0, 1, (838,), float32) + ``action_mask`` int8 (449,) |
| state | ``env.state()``: Box(1676,) float32, both players' observations seat by seat (a god's view, for a centralised critic) |
| import | ``from tabletop_envs import travel_earth_v0`` or ``pettingzoo.make("aec", "tabletop_envs/travel_earth-v0")`` |

## Arguments

``travel_earth_v0.env(deck_format="championship", decks=None, hand_size_table=None, stalemate_turns=20,
first_player=None, resting_defender_win="challenger_discarded", num_players=2, max_turns=None,
illegal_action="raise", render_mode=None)``

- ``deck_format``: ``"championship"`` (exactly 60 cards) or ``"casual"`` (20 or more cards).
- ``decks``: two decks, one per seat: a preset name (championship: ``expedition``, ``wild_mix``;
  casual: ``starter``, ``deep_sea``), a list of ``"TE-001"`` / ``"TE-001/alternate_art"`` entries (a
  printing the card has), one per card, or a dict of such entries to their counts (``{"TE-001": 2}``);
  ``None``: the format's first preset for both seats. Validated:
  at most 4 copies of one common name + collector number, all printings counted together.
- ``hand_size_table``: cards drawn at the Draw step by cards in Hand: entry *i* for a Hand of *i* cards,
  the last entry for larger Hands; ``None`` is ``[3, 2, 1]`` (3 cards with an empty Hand).
- ``stalemate_turns``: a game in which no card moves for this many consecutive turns is drawn.
- ``first_player``: ``None`` flips the coin; 0 or 1 fixes the first seat (tests, demos).
- ``resting_defender_win``: a Resting Defender that wins without a defensive change discards only the
  Challenger (``"challenger_discarded"``) or goes with it (``"both_discarded"``); RULES.md choice 6.
- ``num_players``: 2 only (there so that code written for every env, Earth's table sizes included, can pass it).
- ``max_turns``: truncation (reward 0) after this many turns; ``None`` is 400. Checked after each step: idle
  turns that pass inside one step and end in a stalemate past it end the game as a draw (RULES.md reading 13).

## Actions

A turn is a sequence of small decisions. Ids are stable: a card's id is its catalogue index (its
collector number order), never a Hand position; ``env.action_to_string(a)`` names any id.

| ids | name | meaning |
|---|---|---|
| 0–71 | `add_to_reservoir` | Add to Reservoir: put this card from Hand face down into your Reservoir |
| 72 | `skip_reservoir` | Add to Reservoir: add nothing (more) this turn |
| 73–144 | `play` | Play Animals: put this card from Hand into your Resting Row (Ambush: Ready Row) |
| 145 | `end_play` | Play Animals: stop playing |
| 146–217 | `declare` | Declare Challengers: add a Ready Animal of this card to the Challenger group |
| 218 | `lock_challengers` | Declare Challengers: lock the group (may be empty) and start the Challenge Phase |
| 219–224 | `statistic` | Challenger: choose the battle statistic (also the next one after a tie) |
| 225–296 | `defend_ready` | Defending player: this card in the Ready Row defends |
| 297–368 | `defend_resting` | Defending player: this card in the Resting Row defends |
| 369–374 | `change_statistic` | Defending player: defensive statistic change to this statistic |
| 375 | `accept` | Defending player: accept the result (no defensive change) |
| 376–447 | `pay_reservoir` | Defending player: discard this known Reservoir card to pay for the change |
| 448 | `pay_unseen` | Defending player: discard the unseen starting Reservoir card to pay for the change |

## Observation

A flat float32 vector from the observing player's side only. Player 2's starting Reservoir card
stays unseen by both players, its owner included, until it is revealed; the opponent's Hand, Deck and
Reservoir contents are never shown (their sizes and Full/Empty counts are).

| indices | name | shape | range | meaning |
|---|---|---|---|---|
| 0–71 | `hand` | 72 | 0…1 | own Hand, by catalogue card: copies / 4 |
| 72–143 | `my_ready` | 72 | 0…1 | own Ready Row (declared Challengers not included), by catalogue card: copies / 4 |
| 144–215 | `my_resting` | 72 | 0…1 | own Resting Row, by catalogue card: copies / 4 |
| 216–287 | `opp_ready` | 72 | 0…1 | opponent's Ready Row (declared Challengers not included), by catalogue card: copies / 4 |
| 288–359 | `opp_resting` | 72 | 0…1 | opponent's Resting Row, by catalogue card: copies / 4 |
| 360–431 | `my_reservoir_known` | 72 | 0…1 | own Reservoir cards whose identity you know (never Player 2's unseen card), by catalogue card: copies / 4 |
| 432–503 | `my_discard` | 72 | 0…1 | own Discard Pile, by catalogue card: copies / 4 |
| 504–575 | `opp_discard` | 72 | 0…1 | opponent's Discard Pile, by catalogue card: copies / 4 |
| 576–647 | `declared` | 72 | 0…1 | the active player's declared Challengers still waiting to resolve, by catalogue card: copies / 4 |
| 648–719 | `challenger` | 72 | 0…1 | the Challenger now resolving (one-hot by catalogue card) |
| 720–791 | `defender` | 72 | 0…1 | the chosen Defender (one-hot by catalogue card) |
| 792–793 | `defender_row` | 2 | 0…1 | the Defender's row: Ready, Resting |
| 794–799 | `statistic` | 6 | 0…1 | statistic now compared (one-hot): Top Speed, Weight, Length, Max Lifespan, Offspring, Development Time |
| 800–805 | `used_statistics` | 6 | 0…1 | statistics already used in this challenge |
| 806 | `change_made` | 1 | 0…1 | a defensive statistic change was made in this challenge (always 0 in v0: a change ends the challenge before anyone observes; kept for a stable layout) |
| 807–812 | `change_target` | 6 | 0…1 | statistic the defending player is paying to change to |
| 813–815 | `comparison` | 3 | 0…1 | current statistic: Challenger wins, tie, Defender wins (the last always 0 in v0: a Defender win ends the challenge before anyone observes) |
| 816–822 | `phase` | 7 | 0…1 | pending decision: add, play, declare, statistic, defender, change, pay |
| 823 | `my_turn` | 1 | 0…1 | it is your turn (you are the challenging player) |
| 824 | `i_went_first` | 1 | 0…1 | you are Player 1 (won the coin flip) |
| 825–828 | `my_reservoir` | 4 | 0…1 | own Reservoir: cards / 7, Full / 7, Empty / 7, unseen cards |
| 829–831 | `opp_reservoir` | 3 | 0…1 | opponent's Reservoir: cards / 7, Full / 7, Empty / 7 |
| 832–833 | `deck_sizes` | 2 | 0…1 | Deck cards left / deck size: own, opponent's |
| 834–835 | `hand_sizes` | 2 | 0…1 | Hand cards / deck size: own, opponent's |
| 836 | `reservoir_adds` | 1 | 0…1 | cards you added to your Reservoir this turn / 2 |
| 837 | `turn` | 1 | 0…1 | turns played / 400 (capped at 1) |

### What the observation leaves out

A player knows a few things the v0 layout has no field for; each needs a new layout (a new env version
and retrained models), so they are listed here (counted by a one-off audit over 300 seeded games of the
heuristic bot against itself, 2026-12-03):

- **An opponent's Reservoir card that won a Last Resort and was shuffled back** ("Return the winning
  Animal face down to the Reservoir and shuffle it back in"): both players saw it, but only its owner's
  observation keeps it (`my_reservoir_known`). 47 of the 158 Last Resorts ended so; 4.7 % of the later
  decisions were taken with it known, a few of them statistic choices against an empty field, where Last
  Resort draws from that Reservoir. A policy with memory can keep it; a memoryless one (every shipped
  model) cannot.
- **A Homing card returned to the opponent's Hand in view** (a failed Last Resort reveal): not marked,
  as Terralore's `opp_known_hand` marks such cards. Memory only; the heuristic plays it again at once
  (0 affected decisions), random play meets it at 2.5 % of decisions.
- **Which of your own cards the opponent has seen** (found by an audit, 2026-12-05): the mirror of the two
  entries above: your Last Resort winner shuffled back into your Reservoir is in `my_reservoir_known` with
  the cards only you know, and your Homing card back in your Hand is not marked. Memory only.
- **The order of the declared Challengers still waiting**: they resolve in declaration order (RULES.md
  reading 4) and `declared` counts copies. The defending player takes no decision while they are
  declared, so even memory cannot recover it; 24 % of the defender's decisions had two or more different
  Challengers waiting.
- **The stalemate count** (`stalemate_turns`): not encoded. When this was written only random play reached
  a stalemate (12 of 300 games), but trained models now reach it often: `travel_earth_v0/ppo` drew 43.5 % of
  200 games against itself (`python -m training.evaluate --env travel_earth_v0
  --policies ppo models/travel_earth/ppo.onnx --games 200 --seed 50000`; docs/measurements.md, "Travel Earth:
  draws cost the learner", has more, and a one-off count that found those draws to be stalemates, not
  400-turn cuts). Every player can count the turns without a card moving; a memoryless policy
  cannot, so it cannot see a stalemate coming. A trial v1 that adds the count (git branch
  `travel-earth-v1`, 2026-12-04) did not ship: its retrained bot was weaker (the v0 bot beat it 64.8 % to
  18.9 %), and a fresh learner still stalled it (79.2 % draws): in those stalls both Ready Rows are full
  and the bots decline every challenge, whether or not they see the count, and forcing the bot to press
  the attacks it has there does not break them, while the heuristic, handed the same positions, wins
  nearly all (docs/measurements.md, "Travel Earth: the stalemate count in the observation (tried, not
  shipped)").
- **Sizes with decks of different lengths**: Deck and Hand counts are divided by each player's own deck
  size (only casual decks can differ), so the counts cannot be read back as cards.
- **The rule options** (`resting_defender_win`, `hand_size_table`, ...): a model learns one set, which its
  sidecar records; `load_policy` warns when it is played under others.

## Action mask

``obs["action_mask"]`` (and ``info["action_mask"]``) marks the legal ids of the seat to move; the
other seat's mask is all zeros. Steps with nothing to decide (nothing to add, an empty Hand, no Animal
that can be declared, a single Reservoir card to pay with) are taken automatically by the engine, each on
public information only. Three decisions are asked even with a single legal move: the statistic when only
one is left unused in a challenge and the Defender when only one Animal can defend (both public; they stay
decisions in v0), and the defending player choosing which of two or more face-down Reservoir cards pays,
even when they are copies of one card (skipping it would tell the Challenger that they are).

## Rewards

+1 to the winner and -1 to the loser when a player's Reservoir is exhausted by Last Resort Sacrifice
without stopping a Challenger. A stalemate (``stalemate_turns``) ends the game as a draw (0 each);
``max_turns`` truncates with 0.

## Version history

- v0: first release (69 species + 3 variant cards, 14 printed abilities, hand-size table option).
- v0 (hidden-information fix; observation and action layouts unchanged, decision sequences changed): after a
  defensive change with two or more Reservoir cards, the defending player is always asked which card pays,
  even when they are copies of one card (a single legal move); only a single Reservoir card pays
  automatically. Skipping the question before told the Challenger that the face-down Reservoir held no two
  different cards.
- v0 (`resample_hidden` fix; play unchanged): a re-dealt world gets a generator of its own, so it draws its
  own Last Resort cards; before, every world kept the real generator and drew the real ones (and its state
  let the deal be re-run).
- v0 (new rule option; play under the defaults unchanged): ``resting_defender_win="both_discarded"`` reads
  section 8's "if it wins, both Animals are discarded" as the Resting penalty with or without a defensive
  change.
- v0 (text view; play, observation and picture unchanged): ``render_text`` names the printed ability of each
  Animal it shows and gives the ability's text under the table; before, a human playing from the terminal
  could not read that Tiny makes the lower Weight win.
- v0 (text view and picture; play, observation and action layouts unchanged): the state keeps a public
  record of the challenges of this Challenge Phase and the one before (``recent_challenges``, read by no
  observation): each Challenger's statistic, Defender and compared printed values, a defensive change and
  the card that paid for it, each Last Resort reveal and what was discarded. ``render_text`` lists it and
  the picture's challenge strip shows the last challenge; before, a human whose challenge the bot answered
  saw only "(the other players have moved)" and a changed table. A state saved without the record loads
  with an empty one.
- v0 (text view and picture; play and observation unchanged): at the game's end neither view asks for a
  Defender any more: the Challenger that Last Resort failed to stop is still set, so the picture's strip
  said "the defending player chooses a Defender" and the text showed the stale challenge and the waiting
  group; both now show how that last challenge ended.
- v0 (catalogue checks; the shipped cards and play unchanged): a catalogue file's abilities must be the ones
  the engine plays, word for word, each once, and each statistic's ``wins`` the rule's; before, an ability
  of another key loaded and printed a text the engine never applied, a second definition replaced a text,
  and ``"wins": "lower"`` for Weight changed the comparison while the text view said the higher wins. A
  file of fewer than 5 cards (no 20-card deck at 4 copies) is refused; an empty one met NumPy as a
  ValueError. ``build_catalogue`` refuses a CSV row the game could not print, by line and column, and
  checks the catalogue before it replaces ``animals.json``.
- v0 (saved-state checks; play, observations and layouts unchanged): ``State.from_dict`` (and
  ``reset(options={"state": ...})``) refuses, with a StateError naming it, a saved challenge the rules never
  reach: a Defender not on the field in its row, in any phase, or one set before it is chosen; statistics
  used that do not lead to the phase (a next statistic after a decided comparison, a change after the
  Defender won); a defensive change's statistic outside the pay phase or not open to the Defender, or a change
  marked made while the challenge goes on; more Empty Reservoir cards and declared Challengers to pay than
  the Reservoir holds, or a resolving Challenger without its Empty card; a challenge under way, or declared
  Challengers, before the Challenge Phase. Before, such an edited file loaded, then failed in play (a
  ValueError, "negative shift count", more Empty cards than Reservoir cards).
- v0 (text view and picture; play, observation and action layouts unchanged): a game drawn by stalemate names
  the turn it ended in; before, both views named the next turn, which never began, as the turn of the player
  whose turn had just ended (``turns`` already counts the last quiet turn). ``State.turn_shown()`` gives it.
- v0 (a rule reading; layouts unchanged, observations changed in the rest of a turn after a Last Resort win):
  the Animal that wins a Last Resort goes back into the Reservoir lying as it lay (RULES.md 11): the Empty
  slot its reveal took is Empty again. Before, it went back Full, so the defender's Empty count fell by one
  until their Refresh, which only the observations' Full and Empty counts showed: no Full card can be spent
  while the defending field is empty. In 1,000 random games (seeds 0-999) 310 of the 2,029 Last Resort wins
  went back into an Empty slot, in 1,000 games of the heuristic against itself 5 of 432; the shipped
  ``ppo``'s evaluation (six anchors, 1,000 games each, seed 1000) gives the same games as before.
- v0 (text view and picture; play and observation unchanged): a declared or resolving Challenger is on its
  owner's field for the abilities that hold "while this Animal is on your field" (RULES.md 15); the views
  read "Reservoir 7/6" while a Blubber Store whale challenged. Play never asked then: Reservoir additions,
  Pouch and Early Riser come before Challengers are declared.
"""
from typing import Any

from tabletop_envs.core import TabletopAECEnv

from .engine import TravelEarthGame


class raw_env(TabletopAECEnv):
    game_class = TravelEarthGame
    game: TravelEarthGame
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "travel_earth_v0", "is_parallelizable": False, "render_fps": 2}


def env(**kwargs: Any) -> raw_env:
    """The Travel Earth TCG AEC env (keyword arguments: see the module documentation)."""
    return raw_env(**kwargs)
