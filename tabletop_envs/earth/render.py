"""A readable text view of an Earth position, optionally from one player's seat."""

from __future__ import annotations

from .catalogue import ACTIONS
from .engine import CLIMATE_SLOT, ISLAND_SLOT
from .scoring import FIRST_COMPLETION_BONUS, final_score, score_breakdown
from .text import ability_text, card_line, side_line

SIDES = ("island", "climate", "ecosystem")


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


def round_and_turn(s) -> tuple[int, int]:
    """The round and turn being played, counted from 1; once the game is over, the last ones played (``rounds``
    and ``turns`` count those completed, so ``+ 1`` would name a round that never began)."""
    return (s.rounds, s.turns) if s.phase == "over" else (s.rounds + 1, s.turns + 1)


def render(s, player: int | None = None) -> str:
    cat = s.game.cat
    round_number, turn_number = round_and_turn(s)
    lines = [f"Earth — {s.n} player{'s' if s.n > 1 else ''}, phase {s.phase}, round {round_number}, turn {turn_number}, "
             f"first player player_{s.first}, active player_{s.active}"
             + (f", action {ACTIONS[s.action]}" if s.action >= 0 else "")
             + (" — LAST ROUND" if s.end_triggered else "")]
    if s.bonus >= 0:  # public: the leaf on the fauna board's bonus space
        lines.append(f"player_{s.bonus} completed their tableau first: the {FIRST_COMPLETION_BONUS} VP bonus")
    lines.append(f"deck {len(s.deck)}  discard {len(s.discard)}")
    fauna = []
    for f, side in enumerate(s.fauna):
        rec = cat.fauna[side]
        fauna.append(f"  {rec['name']}: {rec['text']} leaves: {', '.join(f'player_{q}' for q in s.leaves[f]) or 'none yet'}")
    lines.append("fauna:\n" + "\n".join(fauna))
    lines.append("public ecosystems: " + "; ".join(f"{cat.ecosystems[e]['name']} ({cat.ecosystems[e]['text']})"
                                                   for e in s.public_eco))
    for q in range(s.n):
        see_all = player is None or player == q
        head = f"player_{q}{' (you)' if player == q else ''}: soil {s.soil[q]}, hand {len(s.hands[q])}, " \
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
        if see_all and s.phase == "setup":
            lines += _offers(s, q, player)
        # the moves name cells "r<row>c<col>": the grid is labelled so, and its cards (names cut to fit) are
        # spelled out below it with what is printed on them
        lines.append("       " + "   ".join(f"c{c}".center(26) for c in range(4)).rstrip())
        for r in range(4):
            lines.append(f"  r{r} | " + " | ".join(_cell(s, q, r * 4 + c) for c in range(4)) + " |")
        lines += [f"    r{i // 4}c{i % 4} {card_line(cat.earth[c])}" for i, c in enumerate(s.grid[q]) if c >= 0]
        if player == q:
            lines += _own_cards(s, q)
        elif see_all:  # a god's view names every hand; each in full would swamp the table
            if s.hands[q]:
                lines.append("  hand: " + ", ".join(cat.names[c] for c in sorted(s.hands[q])))
            if s.drawn[q]:
                lines.append("  drawn (keep 1): " + ", ".join(cat.names[c] for c in s.drawn[q]))
        if s.events[q]:
            lines.append("  event stack: " + ", ".join(cat.names[c] for c in s.events[q]))
    if s.phase != "over":
        task = s.queue[0]
        shown = pending_decision(s, player)
        if shown is not None:
            lines += _decision_help(s, task)
        lines.append(f"pending: player_{task['p']} " + ("to decide" if shown is None else f"decides {shown}")
                     + (f" ({task['left']} left)" if shown is not None and "left" in task else ""))
    return "\n".join(lines)


def _offers(s, q: int, player: int | None) -> list[str]:
    """The sides q was dealt and has not chosen yet (their own: the observation's offers)."""
    cat = s.game.cat
    out = []
    for what in SIDES:
        if getattr(s, "eco" if what == "ecosystem" else what)[q] >= 0:
            continue
        records = {"island": cat.islands, "climate": cat.climates, "ecosystem": cat.ecosystems}[what]
        out.append(f"  {'your' if player == q else 'their'} {what} sides to choose from:")
        out += [f"    {side_line(records[2 * c + k], what)}" for c in s.offers[what][q] for k in (0, 1)]
    return out


def _own_cards(s, q: int) -> list[str]:
    """The player's own hand and draw, each card with what is printed on it and the soil it costs them."""
    cat = s.game.cat
    out = []
    if s.hands[q]:
        reductions = s.cost_reductions(q)
        out.append("  hand:")
        out += [f"    {card_line(cat.earth[c], s.effective_cost(q, c, reductions))}" for c in sorted(s.hands[q])]
    if s.drawn[q]:
        out.append("  drawn (keep 1):")
        out += [f"    {card_line(cat.earth[c])}" for c in s.drawn[q]]
    return out


def _decision_help(s, task: dict) -> list[str]:
    """What the decider's moves act on, which their labels do not say (a cell, an ability slot)."""
    cat = s.game.cat
    t, p = task["t"], task["p"]
    if t == "plant_cell":
        return [f"planting {card_line(cat.earth[task['card']])}"]
    if t == "place":
        return [f"placing up to {task['left']} {task['res']}: one cell per piece"]
    if t == "pay":
        return [f"paying {task['left']} {task['res']}: one cell per piece taken off"]
    if t in ("activate", "copy"):
        layout = s.game.action_layout
        slots = [a for a in s.legal_actions() if layout.decode(a)[0] == "activate"]
        if not slots:
            return []
        out = [f"abilities to {t} ({task['colour'].capitalize()}):"]
        for a in slots:
            slot = layout.decode(a)[1]
            owner = cat.names[s.grid[p][slot // 2]] if slot < ISLAND_SLOT else \
                (cat.islands[s.island[p]] if slot < CLIMATE_SLOT else cat.climates[s.climate[p]])["name"]
            out.append(f"  {layout.label(a).removeprefix('activate ')} ({owner}): {ability_text(s.abilities_of(p, slot))}")
        return out
    return []


def pending_decision(s, player: int | None) -> str | None:
    """The pending decision's name as ``player`` may read it, or None: the observation shows which decision
    it is (and its count) to the decider only, so another seat reads who decides, not whether a planter is
    choosing its card or that card's cell."""
    task = s.queue[0]
    return task["t"] if player is None or player == task["p"] else None
