"""Differential test of play: an independent referee, written from the rule text's actions and "Activating
Abilities", RULES.md's readings and each card's printed text (``text.ability_text``), predicts at every decision
of a game what may be chosen (the legal actions, anytime events and conversion included) and what the choice
and the automatic steps after it do (soil, hand, drawn cards, compost, events, tableau, sprouts and growth on
each cell, the draw pile), and compares with the engine.

The referee reads the state's zones and the catalogue's card records, and of the engine's queue only what the
pending decision shows its decider (its name, seat, the piece kind of a placement, the colour of an
activation): nothing of ``engine.py``'s resolution code, so a bug there shows as a disagreement."""

from __future__ import annotations

import pytest

from tabletop_envs.core.policy import load_policy, policy_rng
from tabletop_envs.earth.catalogue import ACTIONS

from .scenario import CAT, game

NUM_PLANTABLE = 179 + 66
COLOUR_OF = {"plant": "green", "compost": "red", "water": "blue", "grow": "yellow"}
SLOTS_IC = [32, 33, 34, 35]
ORDERS = [SLOTS_IC + list(range(32)), list(range(32)) + SLOTS_IC]  # island+climate before or after the tableau


def _steps(cell, deltas):
    r, c = divmod(cell, 4)
    return [(r + dr) * 4 + c + dc for dr, dc in deltas if 0 <= r + dr < 4 and 0 <= c + dc < 4]


ORTH = [_steps(c, ((-1, 0), (1, 0), (0, -1), (0, 1))) for c in range(16)]
DIAG = [_steps(c, ((-1, -1), (-1, 1), (1, -1), (1, 1))) for c in range(16)]
WHERE = {"row": lambda c: [c // 4 * 4 + i for i in range(4)], "col": lambda c: [c % 4 + 4 * i for i in range(4)],
         "orth": lambda c: ORTH[c], "diag": lambda c: DIAG[c], "adj": lambda c: ORTH[c] + DIAG[c],
         "all": lambda c: list(range(16))}


def s_res(s):
    """The piece kind of a pending placement (the decider's text view names it): tells apart two placements of
    one ability ("+1 sprout(s), +1 growth"), the first skipped when no flora has room for it."""
    return s.queue[0].get("res")


def s_colour(s):
    """The colour of a pending activation (the action's colour, or black right after a planting)."""
    return s.queue[0].get("colour")


class Divergence(Exception):
    """The engine offered or did something other than the referee predicts."""


def card(c):
    return CAT.earth[c]


def fits(rec, f):
    """A printed filter: "Tree", "Cold card", "card with a Red ability", "Terrain"."""
    if not f:
        return True
    (k, v), = f.items()
    if k == "type":
        return rec.get("type") in (v, "joker")
    if k == "habitat":
        return v in rec.get("habitats", [])
    if k == "color":
        return any(a["color"] == v for a in rec["abilities"])
    if k == "kind":
        return rec.get("kind") == v
    raise ValueError(f)


class View:
    """The counters the referee predicts, seeded from the engine's state before each step."""

    def __init__(self, s):
        self.n = s.n
        self.soil = list(s.soil)
        self.hand = [list(h) for h in s.hands]
        self.drawn = [list(d) for d in s.drawn]
        self.compost = [len(c) for c in s.compost]
        self.events = [list(e) for e in s.events]
        self.grid = [list(g) for g in s.grid]
        self.spr = [list(x) for x in s.spr]
        self.gro = [list(x) for x in s.gro]
        self.pile = len(s.deck) + len(s.discard)  # cards left to draw (the discard is reshuffled when needed)
        self.island = list(s.island)
        self.climate = list(s.climate)

    def counters(self):
        key = lambda c: -1 if c is None else c  # noqa: E731 (a card drawn unseen is None)
        return (self.soil, [sorted(h, key=key) for h in self.hand], [sorted(d, key=key) for d in self.drawn],
                self.compost, [sorted(e) for e in self.events], self.grid, self.spr, self.gro, self.pile)

    @staticmethod
    def of(s):
        v = View(s)
        return v.counters()

    def take(self, k):
        k = min(k, self.pile)
        self.pile -= k
        return k


class Referee:
    """The referee's own queue of what the turn still holds (``q``: decisions and automatic steps, front first),
    built from the rule text's numbered steps when the action is chosen and from each printed text when an
    ability is activated, an event played or a card planted."""

    def __init__(self, s):
        self.s = s
        self.n = s.n
        self.q: list[dict] = []
        self.turn_active = None
        self.action = None
        self.planted = [[] for _ in range(self.n)]
        self.watering_rows = False
        self.steps = 0
        self.seen: set = set()  # what the game exercised: (decision, segment), gain resources, event costs

    # ------------------------------------------------------------ abilities
    def ability(self, v, p, slot):
        if slot >= 32:
            rec = CAT.islands[v.island[p]] if slot < 34 else CAT.climates[v.climate[p]]
            k = slot % 2
        else:
            c = v.grid[p][slot // 2]
            if c < 0:
                return None
            rec, k = card(c), slot % 2
        return rec["abilities"][k] if k < len(rec["abilities"]) else None

    def area_recs(self, v, p):
        return [card(c) for c in v.grid[p] if c >= 0] + [CAT.islands[v.island[p]], CAT.climates[v.climate[p]]]

    def matches(self, a_colour, colour):
        if a_colour == colour:
            return True
        # "Multicolored abilities that match the current action are also activated" (not green: RULES.md)
        return a_colour == "multi" and colour in ("red", "blue", "yellow")

    def payable(self, v, p, cost, extra_hand=0):
        for r, n in (cost or {}).items():
            have = {"soil": v.soil[p], "sprouts": sum(v.spr[p]), "growth": sum(v.gro[p]),
                    "hand_compost": len(v.hand[p]) - extra_hand, "compost_discard": v.compost[p]}[r]
            if have < n:
                return False
        return True

    def gain_usable(self, v, p, a):
        # "if you chose the Red action": only the active player chose one; the others take its other row
        if a.get("if_action") and not (p == self.turn_active and self.action == a["if_action"]):
            return False
        return self.payable(v, p, a.get("cost"))

    def copy_targets(self, v, p, cell, colour):
        out = []
        for slot in range(32):
            if slot // 2 == cell:
                continue  # never the other ability of its own card
            a = self.ability(v, p, slot)
            if a and a["kind"] == "gain" and self.matches(a["color"], colour) and self.gain_usable(v, p, a):
                out.append(slot)
        return out

    def slot_usable(self, v, p, slot, colour, only):
        if only is not None and slot // 2 != only:
            return False
        a = self.ability(v, p, slot)
        if a is None or not self.matches(a["color"], colour):
            return False
        if a["kind"] == "gain":
            return self.gain_usable(v, p, a)
        if a["kind"] == "copy":
            return slot < 32 and bool(self.copy_targets(v, p, slot // 2, colour))
        return False

    def activation_legal(self, v, item):
        p, chosen = item["p"], item["chosen"]
        out = []
        for x in range(36):
            if x in chosen or not self.slot_usable(v, p, x, item["colour"], item["only"]):
                continue
            seq = chosen + [x]
            if any(all(o.index(a) < o.index(b) for a, b in zip(seq, seq[1:])) for o in ORDERS):
                out.append(x)
        return out

    def count_per(self, v, p, per, cell):
        if per["what"] == "planted":
            return sum(fits(card(c), per.get("filter")) for c in self.planted[p])
        cells = WHERE[per["dir"]](cell)
        return sum(v.grid[p][i] >= 0 and fits(card(v.grid[p][i]), per.get("filter")) for i in cells)

    def resolve_items(self, v, p, a, cell):
        """The printed text of a gain ability, step by step: its cost, then each gain in printed order."""
        items = []
        for r, n in (a.get("cost") or {}).items():
            if r == "soil":
                items.append({"k": "auto", "p": p, "res": "pay_soil", "n": n})
            elif r in ("sprouts", "growth"):
                items.append({"k": "pay", "p": p, "res": r, "left": n})
            elif r == "hand_compost":
                items.append({"k": "pay_hand", "p": p, "left": n})
            else:
                items.append({"k": "auto", "p": p, "res": "compost_discard", "n": n})
        for g in a["gain"]:
            n = g["n"]
            if g.get("per"):
                n *= self.count_per(v, p, g["per"], cell)
            if n <= 0:
                continue
            if g["res"] in ("sprouts", "growth"):
                w = g.get("where")
                if w:
                    # "on each Tree in this row": every Tree there, this card too when it is one (RULES.md)
                    cells = [i for i in WHERE[w["dir"]](cell) if v.grid[p][i] >= 0
                             and fits(card(v.grid[p][i]), w.get("filter"))]
                    if w.get("each"):
                        items.append({"k": "place", "p": p, "res": g["res"], "left": n * len(cells), "cells": cells,
                                      "cap": n, "placed": {}})
                    else:
                        items.append({"k": "place", "p": p, "res": g["res"], "left": n, "cells": cells, "cap": None,
                                      "placed": {}})
                else:
                    items.append({"k": "place", "p": p, "res": g["res"], "left": n, "cells": None, "cap": None,
                                  "placed": {}})
            elif g["res"] == "compost_hand":
                items.append({"k": "compost_hand", "p": p, "left": n})
            else:
                items.append({"k": "auto", "p": p, "res": g["res"], "n": n})
        return items

    # ------------------------------------------------------------ legal choices of a decision item
    def room(self, v, p, i, res):
        c = v.grid[p][i]
        if c < 0 or card(c)["kind"] != "flora":
            return 0
        return card(c)[res] - (v.spr if res == "sprouts" else v.gro)[p][i]

    def place_cells(self, v, it):
        cells = it["cells"] if it["cells"] is not None else range(16)
        out = []
        for i in cells:
            if self.room(v, it["p"], i, it["res"]) <= 0:
                continue
            if it["cap"] is not None and it["placed"].get(i, 0) >= it["cap"]:
                continue
            out.append(i)
        return out if it["left"] > 0 else []

    def reduced_cost(self, v, p, c):
        red = 0
        for rec in self.area_recs(v, p):
            for a in rec["abilities"]:
                if a["kind"] == "cost_reduction" and fits(card(c), a["filter"]):
                    red += a["n"]
        return max(0, card(c)["cost"] - red)

    def alt_res(self, c):
        return next((a["res"] for a in card(c)["abilities"] if a["kind"] == "alt_cost"), None)

    def can_pay_card(self, v, p, c):
        cost = self.reduced_cost(v, p, c)
        ways = []
        if v.soil[p] >= cost:
            ways.append("soil")
        r = self.alt_res(c)
        if r and self.payable(v, p, {r: cost}, extra_hand=1 if r == "hand_compost" else 0):
            ways.append(r)
        return ways

    def plant_cells(self, v, p):
        g = v.grid[p]
        if all(c < 0 for c in g):
            return list(range(16))
        return [i for i in range(16) if g[i] < 0 and any(g[j] >= 0 for j in ORTH[i] + DIAG[i])]

    def legal(self, v, it):
        """(segment, sorted indices) the item offers besides pass and the anytime options."""
        k, p = it["k"], it["p"]
        if k == "action":
            forb = {a["action"] for c in v.grid[p] if c >= 0 for a in card(c)["abilities"]
                    if a["kind"] == "forbid_action"}
            ok = [i for i, a in enumerate(ACTIONS) if a not in forb]
            return "action", ok or [0, 1, 2, 3]
        if k == "plant":
            if not self.plant_cells(v, p):
                return "plant", []
            return "plant", sorted({c for c in v.hand[p] if c < NUM_PLANTABLE and self.can_pay_card(v, p, c)})
        if k == "plant_cell":
            return "cell", self.plant_cells(v, p)
        if k == "keep":
            return "card", sorted(set(v.drawn[p]))
        if k == "option":
            return "option", [0, 1]
        if k == "pay_method":
            return "option", [0, 1]
        if k == "place":
            return "cell", sorted(self.place_cells(v, it))
        if k == "pay":
            arr = v.spr if it["res"] == "sprouts" else v.gro
            return "cell", [i for i in range(16) if arr[p][i] > 0]
        if k in ("pay_hand", "compost_hand"):
            return "card", sorted(set(v.hand[p]))
        if k == "activate":
            return "activate", self.activation_legal(v, it)
        if k == "copy":
            return "activate", self.copy_targets(v, p, it["cell"], it["colour"])
        if k == "window":
            return "window", []
        raise ValueError(k)

    def may_pass(self, it):
        return it["k"] in ("plant", "place", "compost_hand", "activate", "window")

    def droppable(self, v, it):
        """A decision the engine may skip: one with no real choice ("up to" placements with no room are lost, a
        planting with nothing payable, an activation with nothing usable). Whether a seat with no choice is
        still asked depends on public information only (RULES.md), so the referee accepts both; a window is
        only ever an anytime point."""
        if it["k"] == "window":
            return True
        if it["k"] in ("option", "pay_method", "action", "plant_cell", "pay", "pay_hand"):
            return False
        return not self.legal(v, it)[1]

    # ------------------------------------------------------------ automatic steps
    def run_auto(self, v, it):
        p, r, n = it["p"], it["res"], it["n"]
        if r == "soil":
            v.soil[p] += n
        elif r == "pay_soil":
            v.soil[p] -= n
        elif r == "draw":
            k = v.take(n)
            v.hand[p] += [None] * k
        elif r == "draw_keep":
            k = v.take(n)
            v.drawn[p] += [None] * k
        elif r == "compost_deck":
            v.compost[p] += v.take(n)
        elif r == "compost_discard":
            v.compost[p] -= n
            v.pile += n  # to the discard pile
        else:
            raise ValueError(r)

    # ------------------------------------------------------------ turn structure
    def start_turn(self, p):
        self.turn_active = p
        self.action = None
        self.planted = [[] for _ in range(self.n)]
        self.q = [{"k": "action", "p": p}]

    def others(self):
        a = self.turn_active
        return [(a + i) % self.n for i in range(1, self.n)]

    def everyone(self):
        a = self.turn_active
        return [(a + i) % self.n for i in range(self.n)]

    def action_items(self, v, name):
        """The action's numbered steps: the active player's row, the other players' row clockwise, then every
        player's activation of the action's colour and the end-of-turn windows, clockwise from the active player.
        "May gain / may draw" are always taken (RULES.md), the draw of 4 after planting even with nothing planted."""
        a = self.turn_active
        colour = COLOUR_OF[name]
        items = []
        if name == "plant":
            items.append({"k": "plant", "p": a, "left": 2})
            items.append({"k": "auto", "p": a, "res": "draw_keep", "n": 4})
            items.append({"k": "keep", "p": a})
            items += [{"k": "plant", "p": q, "left": 1} for q in self.others()]
            items += [{"k": "auto", "p": q, "res": "draw", "n": 1} for q in self.others()]
        elif name == "compost":
            items.append({"k": "auto", "p": a, "res": "soil", "n": 5})
            items.append({"k": "auto", "p": a, "res": "compost_deck", "n": 2})
            items += [{"k": "option", "p": q} for q in self.others()]
        elif name == "water":
            items.append({"k": "place", "p": a, "res": "sprouts", "left": 6, "cells": None, "cap": None,
                          "placed": {}, "anytime": True})
            items.append({"k": "auto", "p": a, "res": "soil", "n": 2})
            items += [{"k": "option", "p": q} for q in self.others()]
        else:
            items.append({"k": "auto", "p": a, "res": "draw", "n": 4})
            items.append({"k": "place", "p": a, "res": "growth", "left": 2, "cells": None, "cap": None,
                          "placed": {}, "anytime": True})
            items += [{"k": "option", "p": q} for q in self.others()]
        items.append({"k": "rows_done"})
        items += [{"k": "activate", "p": q, "colour": colour, "only": None, "chosen": []} for q in self.everyone()]
        items += [{"k": "window", "p": q} for q in self.everyone()]
        items.append({"k": "turn_over"})
        return items

    # ------------------------------------------------------------ anytime
    def event_cost(self, c):
        a = card(c)["abilities"]
        return a[0].get("cost") if a else None

    def legal_events(self, v, p):
        return sorted({c - NUM_PLANTABLE for c in v.hand[p] if c is not None and c >= NUM_PLANTABLE
                       and self.payable(v, p, self.event_cost(c))})

    def event_items(self, v, p, c):
        items = []
        for a in card(c)["abilities"]:
            if a["kind"] == "gain":
                items += self.resolve_items(v, p, a, None)
        for rec in self.area_recs(v, p):
            for a in rec["abilities"]:
                if a["kind"] == "on_event":
                    items += [{"k": "auto", "p": p, "res": g["res"], "n": g["n"]} for g in a["gain"]]
        return items

    # ------------------------------------------------------------ one step
    def apply_choice(self, v, it, seg, i):
        """What the chosen index of the front decision does; returns the items it puts in front."""
        k, p = it["k"], it["p"]
        if k == "action":
            name = ACTIONS[i]
            self.action = name
            self.q.pop(0)
            if name == "water":
                self.watering_rows = True
            return self.action_items(v, name)
        if k == "plant":
            if seg == "pass":
                self.q.pop(0)
                return []
            return [{"k": "plant_cell", "p": p, "card": i, "left": it["left"]}]
        if k == "plant_cell":
            self.q.pop(0)
            plant = self.q.pop(0)  # the plant item it came from
            c = it["card"]
            cost = self.reduced_cost(v, p, c)
            ways = self.can_pay_card(v, p, c)
            v.hand[p].remove(c)
            v.grid[p][i] = c
            self.planted[p].append(c)
            items = []
            if cost > 0:
                if ways == ["soil"]:
                    items.append({"k": "auto", "p": p, "res": "pay_soil", "n": cost})
                elif "soil" not in ways:
                    items += self.alt_items(p, ways[0], cost)
                else:
                    items.append({"k": "pay_method", "p": p, "res": ways[1], "left": cost})
            if any(a["color"] == "black" and a["kind"] == "gain" for a in card(c)["abilities"]):
                items.append({"k": "activate", "p": p, "colour": "black", "only": i, "chosen": []})
            if plant["left"] > 1:
                items.append({"k": "plant", "p": p, "left": plant["left"] - 1})
            return items
        if k == "pay_method":
            self.q.pop(0)
            if i == 0:
                return [{"k": "auto", "p": p, "res": "pay_soil", "n": it["left"]}]
            return self.alt_items(p, it["res"], it["left"])
        if k == "keep":
            self.q.pop(0)
            v.hand[p].append(i)
            v.pile += len(v.drawn[p]) - 1
            v.drawn[p] = []
            return []
        if k == "option":
            self.q.pop(0)
            act = self.action
            if act == "compost":
                return [{"k": "auto", "p": p, "res": "soil" if i == 0 else "compost_deck", "n": 2}]
            if act == "water":
                if i == 1:
                    return [{"k": "auto", "p": p, "res": "soil", "n": 2}]
                return [{"k": "place", "p": p, "res": "sprouts", "left": 2, "cells": None, "cap": None, "placed": {}}]
            if i == 0:
                return [{"k": "auto", "p": p, "res": "draw", "n": 2}]
            return [{"k": "place", "p": p, "res": "growth", "left": 2, "cells": None, "cap": None, "placed": {}}]
        if k == "place":
            if seg == "pass":
                self.q.pop(0)
                return []
            (v.spr if it["res"] == "sprouts" else v.gro)[p][i] += 1
            it["placed"][i] = it["placed"].get(i, 0) + 1
            it["left"] -= 1
            if it["left"] == 0:
                self.q.pop(0)
            return []
        if k == "pay":
            (v.spr if it["res"] == "sprouts" else v.gro)[p][i] -= 1
            it["left"] -= 1
            if it["left"] == 0:
                self.q.pop(0)
            return []
        if k in ("pay_hand", "compost_hand"):
            if seg == "pass":
                self.q.pop(0)
                return []
            v.hand[p].remove(i)
            v.compost[p] += 1
            it["left"] -= 1
            if it["left"] == 0:
                self.q.pop(0)
            return []
        if k == "activate":
            if seg == "pass":
                self.q.pop(0)
                return []
            it["chosen"].append(i)
            a = self.ability(v, p, i)
            cell = i // 2 if i < 32 else None
            if a["kind"] == "copy":
                return [{"k": "copy", "p": p, "cell": cell, "colour": it["colour"]}]
            return self.resolve_items(v, p, a, cell)
        if k == "copy":
            self.q.pop(0)
            return self.resolve_items(v, p, self.ability(v, p, i), it["cell"])
        if k == "window":
            if seg == "pass":
                self.q.pop(0)
            return []
        raise ValueError(k)

    def alt_items(self, p, res, n):
        if res == "hand_compost":
            return [{"k": "pay_hand", "p": p, "left": n}]
        return [{"k": "pay", "p": p, "res": res, "left": n}]

    @staticmethod
    def fill(v, s):
        """Name the cards drawn unseen (None) by the ones the engine's hand holds beyond the known ones."""
        for q in range(v.n):
            if None in v.hand[q]:
                extra = list(s.hands[q])
                for c in v.hand[q]:
                    if c is not None and c in extra:
                        extra.remove(c)
                if len(extra) == v.hand[q].count(None):
                    v.hand[q] = [c for c in v.hand[q] if c is not None] + extra

    def advance(self, v, t, p, fill=None):
        """Run automatic items and drop skippable decisions until the front is the engine's decision (t, p)."""
        while True:
            if fill is not None:
                self.fill(v, fill)
            if not self.q:
                if t == "action":
                    self.start_turn(p)
                    continue
                raise Divergence(f"referee has nothing left but the engine asks {t} of seat {p}")
            it = self.q[0]
            if it["k"] == "auto":
                self.q.pop(0)
                self.run_auto(v, it)
                continue
            if it["k"] == "rows_done":
                self.q.pop(0)
                self.watering_rows = False
                continue
            if it["k"] == "turn_over":
                self.q.pop(0)
                if t != "action":
                    raise Divergence(f"turn over but the engine asks {t} of {p}")
                if p != (self.turn_active + 1) % self.n:
                    raise Divergence(f"next active {p}, expected {(self.turn_active + 1) % self.n}")
                continue
            if it["k"] == t and it["p"] == p and (t != "place" or it["res"] == s_res(self.s)) \
                    and (t != "activate" or it["colour"] == s_colour(self.s)):
                return it
            if self.droppable(v, it):
                self.q.pop(0)
                continue
            raise Divergence(f"referee expects {it['k']} of seat {it['p']} ({self.legal(v, it)}), engine asks {t} "
                             f"of seat {p}")

    def mask_check(self, s, v, it):
        lay = s.game.action_layout
        legal = s.legal_actions()
        got = {}
        for a in legal:
            seg, i = lay.decode(a)
            got.setdefault(seg, []).append(i)
        seg, ok = self.legal(v, it)
        want = {seg: ok} if ok else {}
        if self.may_pass(it):
            want["pass"] = [0]
        p = it["p"]
        anytime = it["k"] in ("action", "plant", "option", "activate", "window") or it.get("anytime")
        if anytime:
            ev = self.legal_events(v, p)
            if ev:
                want["event"] = ev
            # "You cannot convert sprouts to soil during this action" (Watering: both rows), nor mid-ability
            conv = sum(v.spr[p]) >= 3 and not self.watering_rows and not (it["k"] == "place" and self.action == "water")
            if conv:
                want["convert"] = [0]
        if it["k"] == "window":
            want.setdefault("pass", [0])
        got = {k: sorted(x) for k, x in got.items()}
        if got != want:
            raise Divergence(f"mask of {it['k']} for seat {p}: referee {want} engine {got}")

    def step(self, s, a):
        """Check the mask of the pending decision, apply ``a`` to the engine, and compare what it did."""
        t, p = s.decision(), s.current_player()
        v = View(s)
        it = self.advance(v, t, p)
        self.mask_check(s, v, it)
        seg, i = s.game.action_layout.decode(a)
        if seg == "event":
            c = NUM_PLANTABLE + i
            v.hand[p].remove(c)
            v.events[p].append(c)
            front = self.event_items(v, p, c)
            self.seen.add(("event", bool(self.event_cost(c))))
        elif seg == "convert":
            front = [{"k": "pay", "p": p, "res": "sprouts", "left": 3}, {"k": "auto", "p": p, "res": "soil", "n": 2}]
            self.seen.add(("convert",))
        else:
            front = self.apply_choice(v, it, seg, i)
            self.seen.add((it["k"], seg))
            if it["k"] in ("activate", "copy") and seg == "activate":
                ab = self.ability(v, p, i)
                self.seen |= {(it["colour"], ab["kind"])} | {("gain", g["res"], str(sorted(g.get("where") or {})),
                                                               str((g.get("per") or {}).get("what")))
                                                              for g in ab.get("gain", [])}
        self.q[:0] = front
        s.apply_action(a)
        self.steps += 1
        if s.is_terminal():
            # the rest of the turn: automatic items run, decisions must be ones with no real choice
            while self.q:
                it = self.q.pop(0)
                if it["k"] == "auto":
                    self.run_auto(v, it)
                elif it["k"] not in ("rows_done", "turn_over") and not self.droppable(v, it):
                    raise Divergence(f"game over with {it} pending")
        else:
            self.advance(v, s.decision(), s.current_player(), fill=s)
        self.compare(v, s)

    def compare(self, v, s):
        mine, eng = v.counters(), View.of(s)
        names = ("soil", "hand", "drawn", "compost", "events", "grid", "sprouts", "growth", "pile")
        for name, m, e in zip(names, mine, eng):
            if name in ("hand", "drawn"):
                # the referee knows a card's identity only when it was chosen; drawn cards are None
                for q in range(self.n):
                    known = sorted(c for c in m[q] if c is not None)
                    if len(m[q]) != len(e[q]) or any(known.count(c) > e[q].count(c) for c in known):
                        raise Divergence(f"{name} of seat {q}: referee {m[q]} engine {e[q]}")
            elif m != e:
                raise Divergence(f"{name}: referee {m} engine {e}")


def play_and_referee(n, seed, **kw):
    g = game(n, **kw)
    bots = [load_policy(f"earth_v0/{name}", env="earth_v0", game_config=g.config()) for name in ("random", "heuristic")]
    s = g.new_initial_state(seed)
    rng = policy_rng(seed)
    ref = None
    while not s.is_terminal():
        p = s.current_player()
        a = bots[(seed + p) % 2].act(s.observation(p), s.legal_action_mask(), rng)
        if s.phase == "setup":
            s.apply_action(a)
            continue
        ref = ref or Referee(s)
        where = f"{n} seats, seed {seed}, {kw}, step {ref.steps}, seat {p} at {s.decision()}: {s.action_to_string(a)}"
        try:
            ref.step(s, a)
        except Divergence as e:
            raise AssertionError(f"{where}, turn of seat {ref.turn_active} ({ref.action}): {e}") from None
    return ref


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_every_decision_offers_and_does_what_the_rule_text_and_the_printed_card_texts_say(n):
    for seed in range(2):
        play_and_referee(n, seed)


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_every_decision_offers_and_does_what_the_printed_texts_say_in_200_games_with_the_rule_options(n):
    options = [{}, {"fauna_side": "beginner"}, {"advanced_draft": True}, {"max_rounds": 6}]
    seen = set()
    for seed in range(40):
        seen |= play_and_referee(n, 100 + seed, **options[seed % 4]).seen
    # the games reach the whole vocabulary the referee checks, so a pass means something for each part of it
    wanted = {("plant", "plant"), ("plant_cell", "cell"), ("keep", "card"), ("place", "cell"),
              ("pay", "cell"), ("pay_hand", "card"), ("compost_hand", "card"), ("event", True), ("event", False),
              ("convert",), ("black", "gain"), ("gain", "soil", "[]", "tableau"), ("gain", "soil", "[]", "planted"),
              ("gain", "growth", "['dir', 'each', 'filter']", "None"), ("gain", "compost_deck", "[]", "None"),
              ("gain", "draw", "[]", "None"), ("gain", "sprouts", "['dir', 'each', 'filter']", "None")}
    if n > 1:
        wanted |= {("copy", "activate"), ("pay_method", "option"), ("option", "option")}
    assert wanted <= seen, wanted - seen
