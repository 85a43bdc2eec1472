"""Measures over a player's area, fauna objectives, ecosystem objectives, terrain end-game scoring and the
final score (scoring steps 1-8). Pure functions of the state's fields and the catalogue."""

from __future__ import annotations

from itertools import permutations, product

from .catalogue import TYPES

# cells are row * 4 + col in the 4x4 tableau
ROWS = [[r * 4 + c for c in range(4)] for r in range(4)]
COLS = [[r * 4 + c for r in range(4)] for c in range(4)]
DIAGONALS = [[0, 5, 10, 15], [3, 6, 9, 12]]


def _neighbours(cell: int, steps) -> list[int]:
    r, c = divmod(cell, 4)
    return [(r + dr) * 4 + (c + dc) for dr, dc in steps if 0 <= r + dr < 4 and 0 <= c + dc < 4]


ORTH_STEPS = [(-1, 0), (1, 0), (0, -1), (0, 1)]
DIAG_STEPS = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
DIR_CELLS = {
    "row": [ROWS[c // 4] for c in range(16)],
    "col": [COLS[c % 4] for c in range(16)],
    "orth": [_neighbours(c, ORTH_STEPS) for c in range(16)],
    "diag": [_neighbours(c, DIAG_STEPS) for c in range(16)],
    "adj": [_neighbours(c, ORTH_STEPS + DIAG_STEPS) for c in range(16)],
    "all": [list(range(16)) for _ in range(16)],
}


def matches(cat, card: int, f: dict | None) -> bool:
    """Does Earth card ``card`` pass filter ``f`` (type / habitat / colour / kind)."""
    if not f:
        return True
    if "type" in f:
        return f["type"] in cat.types_of[card]
    if "habitat" in f:
        return f["habitat"] in cat.habitats_of[card]
    if "color" in f:
        return f["color"] in cat.colours_of[card]
    return cat.earth[card]["kind"] == f["kind"]


def max_sets(items: list[set], elements: list) -> int:
    """How many complete sets of ``elements`` can be formed, each element from a different item (a card
    counting as several elements, like a joker, still serves one). By Hall's theorem k sets exist iff
    every subset S of elements is covered by at least k*|S| items."""
    best: int | None = None
    n = len(elements)
    for mask in range(1, 1 << n):
        subset = {elements[i] for i in range(n) if mask >> i & 1}
        covered = sum(1 for it in items if it & subset)
        k = covered // len(subset)
        best = k if best is None else min(best, k)
    return best or 0


def tableau(s, p: int) -> list[int]:
    return [c for c in s.grid[p] if c >= 0]


def island_climate(s, p: int) -> list[dict]:
    """p's island and climate records (once chosen): cards of p's area outside the tableau."""
    cat = s.game.cat
    out = [cat.islands[s.island[p]]] if s.island[p] >= 0 else []
    return out + ([cat.climates[s.climate[p]]] if s.climate[p] >= 0 else [])


def area_habitats(s, p: int) -> list[set]:
    """Habitat sets of every card in p's area: tableau, island and climate (they count for objectives)."""
    cat = s.game.cat
    return [cat.habitats_of[c] for c in tableau(s, p)] + [set(card["habitats"]) for card in island_climate(s, p)]


def area_colours(s, p: int) -> list[str]:
    """Ability colours in p's area (one entry per ability), island and climate included."""
    cat = s.game.cat
    return [col for c in tableau(s, p) for col in cat.colours_of[c]] + \
        [a["color"] for card in island_climate(s, p) for a in card["abilities"]]


def _component(cells_ok: list[bool], steps_of: list[list[int]], cell: int) -> set[int]:
    """The cells with cells_ok connected to ``cell`` (itself included)."""
    seen, todo = {cell}, [cell]
    while todo:
        for nxt in steps_of[todo.pop()]:
            if cells_ok[nxt] and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


class _Longest(Exception):
    """A path as long as its connected component: none is longer, the search ends."""


def _longest_path(cells_ok: list[bool], steps_of: list[list[int]], start: int | None = None) -> int:
    """Longest simple path (no revisits) over cells with cells_ok, through ``start`` if given.

    The search enumerates simple paths (exponential in the cells: ~11 ms on a full 4 x 4 grid when it went
    through all of them), so it stops at a path that visits its whole connected component: no path is longer."""
    best = 0
    if start is not None:
        if not cells_ok[start]:
            return 0
        # a path through start = two arms from start; search all simple paths containing start by
        # enumerating paths that start anywhere in start's component and checking membership
        comp = _component(cells_ok, steps_of, start)
        bound = len(comp)

        def dfs2(cell, seen, has_start):
            nonlocal best
            if has_start and len(seen) > best:
                best = len(seen)
                if best == bound:
                    raise _Longest
            for nxt in steps_of[cell]:
                if cells_ok[nxt] and nxt not in seen:
                    seen.append(nxt)
                    dfs2(nxt, seen, has_start or nxt == start)
                    seen.pop()

        try:
            for c0 in range(16):
                if c0 in comp:
                    dfs2(c0, [c0], c0 == start)
        except _Longest:
            pass
        return best
    bound = 0
    sizes = {}
    for c0 in range(16):
        if cells_ok[c0] and c0 not in sizes:
            comp = _component(cells_ok, steps_of, c0)
            sizes.update(dict.fromkeys(comp, len(comp)))
            bound = max(bound, len(comp))

    def dfs(cell, seen, length):
        nonlocal best
        if length > best:
            best = length
            if best == bound:
                raise _Longest
        for nxt in steps_of[cell]:
            if cells_ok[nxt] and nxt not in seen:
                seen.add(nxt)
                dfs(nxt, seen, length + 1)
                seen.discard(nxt)

    try:
        for c0 in range(16):
            if cells_ok[c0]:
                dfs(c0, {c0}, 1)
    except _Longest:
        pass
    return best


def _all_different_types(cat, ids: list[int]) -> bool:
    sets = [cat.types_of[c] for c in ids]
    if any(not t for t in sets):
        return False
    return any(all(t in s_ for t, s_ in zip(perm, sets)) for perm in permutations(TYPES))


def measure(s, p: int, name: str, arg=None) -> int:
    """The count that a fauna or ecosystem objective looks at."""
    cat = s.game.cat
    grid = s.grid[p]
    if name == "soil":
        return s.soil[p]
    if name == "compost":
        return len(s.compost[p])
    if name == "hand":
        return len(s.hands[p])
    if name == "events":
        return len(s.events[p])
    if name == "sprouts":
        return sum(s.spr[p])
    if name == "growth":
        return sum(s.gro[p])
    if name == "habitat":
        return sum(arg in h for h in area_habitats(s, p))
    if name == "color":
        return area_colours(s, p).count(arg)
    if name == "full_rows":
        return sum(all(grid[i] >= 0 for i in line) for line in ROWS)
    if name == "full_cols":
        return sum(all(grid[i] >= 0 for i in line) for line in COLS)
    if name == "full_diagonals":
        return sum(all(grid[i] >= 0 for i in line) for line in DIAGONALS)
    if name == "sets_rbyte":
        items = [set(cat.colours_of[c]) | ({"terrain"} if cat.is_terrain[c] else set()) for c in tableau(s, p)]
        # island and climate "can also count for ecosystem/fauna objectives": their ability colours are elements
        items += [{a["color"] for a in card["abilities"]} for card in island_climate(s, p)]
        items += [{"event"} for _ in s.events[p]]
        return max_sets(items, ["red", "blue", "yellow", "terrain", "event"])
    if name.startswith("lines_"):
        return _count_lines(s, p, name)
    if name == "diag_path_type":
        ok = [c >= 0 and arg in cat.types_of[c] for c in grid]
        return _longest_path(ok, DIR_CELLS["diag"])
    cells = range(16)
    if name == "terrain":
        return sum(c >= 0 and bool(cat.is_terrain[c]) for c in grid)
    if name in ("vp_ge", "vp_le", "cost_ge", "cost_le", "vp_odd", "vp_even"):
        vals = [int(cat.vp[c]) if name.startswith("vp") else int(cat.cost[c]) for c in grid if c >= 0]
        if name.startswith("vp"):
            # island and climate are cards with a VP value too: they "can also count for ecosystem/fauna
            # objectives" (they have no soil cost, so the cost objectives stay tableau-only)
            vals += [int(card["vp"]) for card in island_climate(s, p)]
        if name.endswith("_ge"):
            return sum(v >= arg for v in vals)
        if name.endswith("_le"):
            return sum(v <= arg for v in vals)
        return sum(v % 2 == (1 if name == "vp_odd" else 0) for v in vals)
    if name == "type":
        return sum(c >= 0 and arg in cat.types_of[c] for c in grid)
    # flora-only measures
    flora = [i for i in cells if grid[i] >= 0 and cat.is_flora[grid[i]]]
    spr, gro = s.spr[p], s.gro[p]
    if name == "flora_growth_ge":
        return sum(gro[i] >= arg for i in flora)
    if name == "flora_sprouts_ge":
        return sum(spr[i] >= arg for i in flora)
    if name == "tag":
        return sum(arg in cat.earth[grid[i]]["tags"] for i in flora)
    if name == "sprout_spaces_eq":
        return sum(int(cat.sprout_spaces[grid[i]]) == arg for i in flora)
    if name == "flora_full":
        return sum(_is_full(cat, grid[i], spr[i], gro[i]) for i in flora)
    if name == "flora_bare":
        return sum(spr[i] == 0 and gro[i] == 0 for i in flora)
    if name == "canopies":
        return sum(gro[i] > 0 and gro[i] == int(cat.max_growth[grid[i]]) for i in flora)
    raise ValueError(f"unknown measure {name!r}")


def _is_full(cat, card: int, spr: int, gro: int) -> bool:
    cap_s, cap_g = int(cat.sprout_spaces[card]), int(cat.max_growth[card])
    return cap_s + cap_g > 0 and spr == cap_s and gro == cap_g


def _count_lines(s, p: int, name: str) -> int:
    """Qualifying rows or qualifying columns, whichever are more: every row crosses every column, and
    "once a card/component has been used to score an ecosystem card, it cannot be used again" on it."""
    return max(_count_lines_of(s, p, name, ROWS), _count_lines_of(s, p, name, COLS))


def _count_lines_of(s, p: int, name: str, lines) -> int:
    cat = s.game.cat
    grid = s.grid[p]
    n = 0
    for line in lines:
        ids = [grid[i] for i in line]
        if any(c < 0 for c in ids):
            continue
        if name == "lines_diff_color":
            # some choice of one ability colour per card gives 4 different colours
            n += any(len(set(pick)) == 4 for pick in product(*[cat.colours_of[c] for c in ids]))
        elif name == "lines_same_color":
            n += bool(set.intersection(*[set(cat.colours_of[c]) for c in ids]))
        elif name == "lines_diff_type":
            n += _all_different_types(cat, ids)
        elif name == "lines_same_type":
            n += all(cat.types_of[c] for c in ids) and bool(set.intersection(*[cat.types_of[c] for c in ids]))
        elif name in ("lines_diff_sprouts", "lines_diff_growth"):
            if all(cat.is_flora[c] for c in ids):
                vals = s.spr[p] if name == "lines_diff_sprouts" else s.gro[p]
                n += len({vals[i] for i in line}) == 4
        else:
            raise ValueError(f"unknown line measure {name!r}")
    return n


def fauna_met(s, p: int, side: int) -> bool:
    f = s.game.cat.fauna[side]
    return measure(s, p, f["measure"], f["arg"]) >= f["n"]


def ecosystem_vp(s, p: int, side: int) -> int:
    e = s.game.cat.ecosystems[side]
    count = measure(s, p, e["measure"], e["arg"])
    if e.get("table"):
        table = e["table"]
        return int(table[min(count, len(table) - 1)])
    vp = e["vp"] * (count // e["per"])
    return min(vp, e["max"]) if e.get("max") else vp


def terrain_vp(s, p: int, cell: int, score: dict) -> int:
    """End-game VP of one terrain's brown scoring pattern at ``cell``."""
    cat = s.game.cat
    grid = s.grid[p]
    pat = score["pattern"]
    if pat == "per_in_dir":
        return score["vp"] * sum(grid[i] >= 0 and matches(cat, grid[i], score["filter"])
                                 for i in DIR_CELLS[score["dir"]][cell])
    if pat == "longest_path":
        ok = [c >= 0 and score["habitat"] in cat.habitats_of[c] for c in grid]
        return score["vp"] * _longest_path(ok, DIR_CELLS["orth"], start=cell)
    if pat == "sets":
        return score["vp"] * max_sets([cat.types_of[c] for c in tableau(s, p)], score["elements"])
    if pat == "per_resource":
        return score["vp"] * (measure(s, p, score["res"]) // score["per"])
    if pat == "any_player":
        return score["vp"] * max(measure(s, q, "habitat", score["habitat"]) for q in range(s.n))
    raise ValueError(f"unknown scoring pattern {pat!r}")


def growth_vp(cat, card: int, gro: int) -> int:
    """1 VP per trunk, or the printed canopy VP once the canopy (last piece) is placed."""
    if gro > 0 and gro == int(cat.max_growth[card]):
        return int(cat.canopy[card])
    return gro


FAUNA_TIERS = (15, 11, 8, 6, 5)
BEGINNER_FAUNA_VP = 10
FIRST_COMPLETION_BONUS = 7


def score_breakdown(s, p: int, personal: bool = True) -> dict:
    """Scoring steps 1-8 of the rules, one entry per step (``personal=False``: without the personal
    ecosystem, i.e. what the other players can work out)."""
    cat, g = s.game.cat, s.game
    grid = s.grid[p]
    base = sum(int(cat.vp[c]) for c in grid if c >= 0)
    base += cat.islands[s.island[p]]["vp"] if s.island[p] >= 0 else 0
    base += cat.climates[s.climate[p]]["vp"] if s.climate[p] >= 0 else 0
    terrain = 0
    for i, c in enumerate(grid):
        if c >= 0:
            for a in cat.earth[c]["abilities"]:
                if a["kind"] == "score":
                    terrain += terrain_vp(s, p, i, a["score"])
    ecos = [e for e in s.public_eco] + ([s.eco[p]] if s.eco[p] >= 0 and personal else [])
    fauna = 0
    for claimed in s.leaves:
        if p in claimed:
            fauna += (BEGINNER_FAUNA_VP if g.fauna_side == "beginner"
                      else FAUNA_TIERS[min(claimed.index(p), len(FAUNA_TIERS) - 1)])
    return {
        "1_base": base,
        "2_events": sum(int(cat.vp[c]) for c in s.events[p]),
        "3_compost": len(s.compost[p]),
        "4_sprouts": sum(s.spr[p]),
        "5_growth": sum(growth_vp(cat, c, s.gro[p][i]) for i, c in enumerate(grid) if c >= 0),
        "6_terrain": terrain,
        "7_ecosystems": sum(ecosystem_vp(s, p, e) for e in ecos),
        "8_fauna": fauna + (FIRST_COMPLETION_BONUS if s.bonus == p else 0),
    }


def final_score(s, p: int) -> int:
    return sum(score_breakdown(s, p).values())


def tiebreak_key(s, p: int) -> tuple:
    """Score, then the five tiebreakers: soil, cards in hand, growth, sprouts, composted cards. Once the game
    is over, the score is the one scored then (as the returns read it), not scored again on every call."""
    score = s.scores[p] if s.scores is not None else final_score(s, p)
    return (score, s.soil[p], len(s.hands[p]), sum(s.gro[p]), sum(s.spr[p]), len(s.compost[p]))
