"""What Travel Earth's stalemates are: a bot against a staller, the same deals replayed with the bot's seat
pressing or handed to the heuristic.

    python -m benchmarks.travel_earth_stalls --staller runs/exploit-te-v2/exploiter.onnx --deals 200

Plays ``--deals`` games of ``--bot`` (default ``travel_earth_v0/ppo``) against ``--staller`` (a learner that
stalls it, e.g. the exploitability check's, docs/measurements.md), from ``game.new_initial_state(seed + g //
2)`` with seats alternating and each policy on ``policy_rng(seed + g, i)``, once per mode:

- ``bot``: the bot alone. Also counts, in the 20 quiet turns before each stalemate, the declare decisions
  each side could take and took, and whether the bot's final position held a *sure Challenger*: a Ready
  Animal that beats every Animal the other side could defend with on some statistic (before any defensive
  change);
- ``press after N``: the bot, except that once N turns in a row passed without a card moving it declares a
  sure Challenger at its declare step and chooses that statistic; counts what each press cost;
- ``heuristic after N``: the heuristic takes the bot's seat once N such turns passed;
- ``heuristic once both Decks are spent``: the same from the first decision with both Decks empty;
- ``heuristic decides PHASES after N`` (``--heuristic-decides PHASES@N``, e.g. ``statistic@0`` or
  ``declare,statistic@5``): the heuristic makes only the bot's decisions of those phases (engine phase names:
  add, play, declare, statistic, defender, change, pay), once N quiet turns passed (0: from the start).

A mode's games differ from ``bot``'s only from the moment it acts differently. Prints a table; ``--json``
writes it.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tabletop_envs.travel_earth.engine import TravelEarthState

ENV = "travel_earth_v0"


def play_modes(bot: str, staller: str, deals: int, seed: int, press_after: list[int],
               hand_over_after: list[int],
               heuristic_decides: Sequence[tuple[tuple[str, ...], int]] = ()) -> dict[str, Counter]:
    from tabletop_envs import load_policy
    from tabletop_envs.core.policy import policy_rng
    from tabletop_envs.travel_earth.engine import TravelEarthGame

    game = TravelEarthGame()  # travel_earth_v0 under its default rules, as the shipped bots were trained
    layout = game.action_layout
    declare, statistic = layout.range("declare"), layout.range("statistic")
    heuristic = load_policy(f"{ENV}/heuristic", env=ENV)
    policies = [load_policy(staller, env=ENV), load_policy(bot, env=ENV)]  # index 1 is the bot
    modes: dict[str, tuple[str, int, frozenset | None]] = {"bot": ("bot", 0, None)}
    modes.update({f"press after {n}": ("press", n, None) for n in press_after})
    modes.update({f"heuristic after {n}": ("hand over", n, None) for n in hand_over_after})
    modes["heuristic once both Decks are spent"] = ("hand over", -1, None)
    modes.update({f"heuristic decides {', '.join(phases)} " + (f"after {n}" if n else "from the start"):
                  ("hand over", n, frozenset(phases)) for phases, n in heuristic_decides})
    results: dict[str, Counter] = {}
    for label, (kind, n, phases) in modes.items():
        out = results[label] = Counter()
        for g in range(deals):
            s = game.new_initial_state(seed + g // 2)
            seat_of = [g % 2, 1 - g % 2]  # seat_of[i]: the seat policy i plays
            rngs = [policy_rng(seed + g, i) for i in range(2)]
            handed, before = False, None
            pressed: dict[int, int] = {}  # a pressed Challenger -> the statistic it beats every Defender on
            declares: list[tuple[int, int, bool]] = []
            while not s.is_terminal() and s.turns < game.default_max_turns:
                p = s.current_player()
                i = seat_of.index(p)
                mask = s.legal_action_mask()
                action = None
                if kind == "hand over":  # looked at every decision: a quiet stretch may end on the staller's turn
                    handed = handed or (s.quiet >= n if n >= 0 else not (s.deck[0] or s.deck[1]))
                if i == 1 and kind == "press" and s.quiet >= n and p == s.player:
                    if s.phase == "declare" and not s.queue and not pressed:
                        for card in sorted(c for c in set(s.ready[p]) if mask[declare.start + c]):
                            stat = sure_statistic(s, card, p)
                            if stat is not None:
                                pressed[card], action = stat, declare.start + card
                                break
                    elif s.phase == "statistic" and s.challenger in pressed and mask[statistic.start + pressed[s.challenger]]:
                        action = statistic.start + pressed.pop(s.challenger)
                        before = _material(s, p)
                if action is None:
                    policy = heuristic if (i == 1 and handed and (phases is None or s.phase in phases)) else policies[i]
                    action = policy.act(s.observation(p), mask, rngs[i])
                if kind == "bot" and s.phase == "declare":
                    declares.append((s.turns, i, declare.start <= action < declare.stop))
                s.apply_action(action)
                if s.phase == "add":
                    pressed.clear()
                if before is not None:  # a pressed Challenger's statistic: follow the challenge to its end
                    while not s.is_terminal() and s.phase in ("defender", "change", "pay"):
                        q = s.current_player()
                        j = seat_of.index(q)
                        s.apply_action(policies[j].act(s.observation(q), s.legal_action_mask(), rngs[j]))
                    after = _material(s, p)
                    out["presses"] += 1
                    out["press: Challenger discarded"] += after[0] > before[0]
                    out["press: a Reservoir card paid"] += after[1] < before[1]
                    out["press: a defending Animal discarded"] += after[2] < before[2]
                    before = None
            stalemate = s.is_terminal() and s.drawn_game
            out["stalemates" if stalemate else "bot wins" if s.winner == seat_of[1] else
                "staller wins" if s.winner == seat_of[0] else "cut at max_turns"] += 1
            if stalemate and kind == "bot":
                for turn, i, declared in declares:
                    if turn >= s.turns - game.stalemate_turns:
                        out[f"final stretch: {'bot' if i else 'staller'} {'declared' if declared else 'locked'}"] += 1
                out["final position: the bot had a sure Challenger"] += any(
                    sure_statistic(s, card, seat_of[1]) is not None for card in set(s.ready[seat_of[1]]))
    return results


def phases_spec(spec: str) -> tuple[tuple[str, ...], int]:
    """``"declare,statistic@5"`` -> ``(("declare", "statistic"), 5)``; a ConfigError naming the fix otherwise."""
    from tabletop_envs.core.errors import ConfigError
    from tabletop_envs.travel_earth.engine import PHASES

    head, at, quiet = spec.rpartition("@")
    phases = head.split(",")
    if not at or not quiet.isdigit() or not all(phases):
        raise ConfigError(f"--heuristic-decides takes PHASES@N, e.g. statistic@0 or declare,statistic@5; got {spec!r}")
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        raise ConfigError(f"--heuristic-decides {spec!r}: no phase {', '.join(map(repr, unknown))}; the phases are "
                          f"{', '.join(PHASES)}")
    return tuple(phases), int(quiet)


def sure_statistic(s: TravelEarthState, card: int, seat: int) -> int | None:
    """A statistic on which ``card`` beats every Animal the other seat could defend with, or None."""
    defenders = list(s.ready[1 - seat]) + list(s.resting[1 - seat])
    return next((stat for stat in range(6) if all(s.outcome(card, d, stat) == 1 for d in defenders)), None)


def _material(s: TravelEarthState, seat: int) -> tuple[int, int, int]:
    """(own discards, the other seat's Reservoir size, the other seat's Animals on the field)."""
    other = 1 - seat
    return len(s.discard[seat]), s.reservoir_size(other), len(s.ready[other]) + len(s.resting[other])


def main(argv=None) -> dict:
    from benchmarks import check_json_path, machine_facts, model_digests, write_json
    from tabletop_envs.core.arena import check_seed
    from tabletop_envs.core.errors import ConfigError

    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--staller", required=True, help="policy id or model path of the learner that stalls the bot")
    parser.add_argument("--bot", default=f"{ENV}/ppo", help=f"policy id or model path (default: {ENV}/ppo)")
    parser.add_argument("--deals", type=int, default=200,
                        help="games per mode: each deal is played from both seats, so 200 games are 100 deals")
    parser.add_argument("--seed", type=int, default=60000)
    parser.add_argument("--press-after", type=int, nargs="*", default=[5], help="quiet turns before the bot presses")
    parser.add_argument("--hand-over-after", type=int, nargs="*", default=[5, 12],
                        help="quiet turns before the heuristic takes the bot's seat")
    parser.add_argument("--heuristic-decides", nargs="*", default=[], metavar="PHASES@N",
                        help="modes where the heuristic makes only these phases' decisions of the bot once N quiet "
                             "turns passed, e.g. statistic@0 declare,statistic@5")
    parser.add_argument("--json", type=Path, help="write the counts here")
    args = parser.parse_args(argv)
    check_json_path(args.json)
    if args.deals < 1:
        raise ConfigError(f"--deals must be a positive integer, got {args.deals}; e.g. --deals 200")
    check_seed(args.seed)
    if any(n < 1 for n in [*args.press_after, *args.hand_over_after]):
        raise ConfigError("--press-after and --hand-over-after take counts of quiet turns, 1 or more; e.g. "
                          "--hand-over-after 5 12")
    decides = [phases_spec(spec) for spec in args.heuristic_decides]
    results = play_modes(args.bot, args.staller, args.deals, args.seed, args.press_after, args.hand_over_after,
                         decides)
    deals = (args.deals + 1) // 2  # (an odd count plays its last deal from one seat)
    print(f"{args.bot} against {args.staller}, {args.deals} games ({deals} deals, each from both seats) from seed "
          f"{args.seed}:")
    print("| mode | bot wins | stalemates | staller wins |\n|---|---:|---:|---:|")
    for label, out in results.items():
        print(f"| {label} | {out['bot wins']} | {out['stalemates']} | {out['staller wins']} |")
    for label, out in results.items():
        extra = {k: v for k, v in sorted(out.items()) if k not in ("bot wins", "stalemates", "staller wins")}
        if extra:
            print(f"{label}: {extra}")
    # "deals" is the option as given (games: the name is kept so earlier results read alike)
    report = {"bot": args.bot, "staller": args.staller, "deals": args.deals, "games": args.deals, "seed": args.seed,
              "modes": {label: dict(out) for label, out in results.items()}, "machine": machine_facts(),
              "models": model_digests(ENV, {}, args.bot, args.staller)}
    if args.json:
        write_json(args.json, report)
    return report


if __name__ == "__main__":
    from tabletop_envs.core.errors import run_cli

    sys.exit(run_cli(main))
