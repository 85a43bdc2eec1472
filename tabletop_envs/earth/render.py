"""A readable text view of an Earth position, optionally from one player's seat."""

from __future__ import annotations

from .catalogue import ACTIONS
from .scoring import final_score, score_breakdown


def _cell(s, q: int, i: int) -> str:
    c = s.grid[q][i]
    if c < 0:
        return "·".center(26)
    cat = s.game.cat
    name = cat.names[c][:13]
    extra = ""
    if cat.is_flora[c]:
        extra = f" s{s.spr[q][i]}/{int(cat.sprout_spaces[c])} g{s.gro[q][i]}/{int(cat.max_growth[c])}"
    return f"{name}{extra}"[:26].ljust(26)


def render(s, player: int | None = None) -> str:
    cat = s.game.cat
    lines = [f"Earth — {s.n} players, phase {s.phase}, round {s.rounds + 1}, turn {s.turns + 1}, "
             f"first player P{s.first}, active P{s.active}"
             + (f", action {ACTIONS[s.action]}" if s.action >= 0 else "")
             + (" — LAST ROUND" if s.end_triggered else "")]
    lines.append(f"deck {len(s.deck)}  discard {len(s.discard)}")
    fauna = []
    for f, side in enumerate(s.fauna):
        rec = cat.fauna[side]
        fauna.append(f"  {rec['name']}: {rec['text']} leaves {[f'P{q}' for q in s.leaves[f]]}")
    lines.append("fauna:\n" + "\n".join(fauna))
    lines.append("public ecosystems: " + "; ".join(f"{cat.ecosystems[e]['name']} ({cat.ecosystems[e]['text']})"
                                                   for e in s.public_eco))
    for q in range(s.n):
        see_all = player is None or player == q
        head = f"P{q}{' (you)' if player == q else ''}: soil {s.soil[q]}, hand {len(s.hands[q])}, " \
               f"compost {len(s.compost[q])}, events {len(s.events[q])}"
        if s.phase == "over":
            steps = score_breakdown(s, q)
            head += f", score {s.scores[q]} (" + ", ".join(f"{k[2:]} {v}" for k, v in steps.items()) + ")"
        elif s.phase == "play" and see_all:
            head += f", score now {final_score(s, q)}"
        elif s.phase == "play":  # their personal ecosystem is hidden from this seat
            head += f", score now {sum(score_breakdown(s, q, personal=False).values())} + personal ecosystem"
        lines.append(head)
        if s.island[q] >= 0 and (see_all or s.phase != "setup"):
            isl = cat.islands[s.island[q]]
            # in setup the island side is chosen before the climate side (-1 until then)
            cli = f"{cat.climates[s.climate[q]]['name']} ({cat.climates[s.climate[q]]['text']})" \
                if s.climate[q] >= 0 else "not chosen yet"
            lines.append(f"  island {isl['name']} ({isl['text']})  climate {cli}")
        if see_all and s.eco[q] >= 0:
            lines.append(f"  ecosystem {cat.ecosystems[s.eco[q]]['name']}: {cat.ecosystems[s.eco[q]]['text']}")
        for r in range(4):
            lines.append("  | " + " | ".join(_cell(s, q, r * 4 + c) for c in range(4)) + " |")
        if see_all and s.hands[q]:
            lines.append("  hand: " + ", ".join(cat.names[c] for c in sorted(s.hands[q])))
        if see_all and s.drawn[q]:
            lines.append("  drawn (keep 1): " + ", ".join(cat.names[c] for c in s.drawn[q]))
        if s.events[q]:
            lines.append("  event stack: " + ", ".join(cat.names[c] for c in s.events[q]))
    if s.phase != "over":
        task = s.queue[0]
        shown = pending_decision(s, player)
        lines.append(f"pending: P{task['p']} " + ("to decide" if shown is None else f"decides {shown}")
                     + (f" ({task['left']} left)" if shown is not None and "left" in task else ""))
    return "\n".join(lines)


def pending_decision(s, player: int | None) -> str | None:
    """The pending decision's name as ``player`` may read it, or None: the observation shows which decision
    it is (and its count) to the decider only, so another seat reads who decides, not whether a planter is
    choosing its card or that card's cell."""
    task = s.queue[0]
    return task["t"] if player is None or player == task["p"] else None
