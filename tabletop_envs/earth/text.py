"""Card texts generated from card data (the data is the single source; texts cannot drift)."""

from __future__ import annotations

RES_WORDS = {"soil": "soil", "sprouts": "sprout(s)", "growth": "growth", "draw": "draw", "compost_deck":
             "compost from the deck", "compost_hand": "compost from hand (up to)", "compost_draw":
             "draw from your compost"}
COST_WORDS = {"soil": "soil", "sprouts": "sprout(s)", "growth": "growth", "hand_compost": "card(s) composted from hand",
              "compost_discard": "card(s) discarded from your compost"}
DIR_WORDS = {"row": "in this row", "col": "in this column", "adj": "on the 8 adjacent cards",
             "orth": "on the orthogonally adjacent cards", "diag": "on the diagonally adjacent cards",
             "all": "in your tableau"}
ACTION_COLOUR = {"plant": "Green", "compost": "Red", "water": "Blue", "grow": "Yellow"}


def plural(word: str) -> str:
    return word + ("es" if word.endswith(("sh", "s", "x")) else "s")


def filter_text(f: dict | None) -> str:
    if not f:
        return "card"
    if "type" in f:
        return f["type"].capitalize()
    if "habitat" in f:
        return f"{f['habitat'].capitalize()} card"
    if "color" in f:
        return f"card with a {f['color'].capitalize()} ability"
    if "kind" in f:
        return f["kind"].capitalize()
    return "card"


def gain_text(g: dict) -> str:
    n, res = g["n"], g["res"]
    if res in ("draw", "compost_deck", "compost_draw", "compost_hand"):
        base = f"{RES_WORDS[res]} {n}"
    else:
        base = f"+{n} {RES_WORDS[res]}"
    where = g.get("where")
    if where:
        if where.get("each"):
            base = f"up to {n} {RES_WORDS[res]} on each {filter_text(where.get('filter'))} {DIR_WORDS[where['dir']]}"
        else:
            base = f"up to {n} {RES_WORDS[res]} in total {DIR_WORDS[where['dir']]}"
            if where.get("filter"):
                base += f" ({filter_text(where['filter'])} only)"
    per = g.get("per")
    if per:
        if per["what"] == "planted":
            base += f" per {filter_text(per.get('filter'))} planted this turn"
        else:
            base += f" per {filter_text(per.get('filter'))} {DIR_WORDS[per.get('dir', 'all')]}"
    return base


def score_text(s: dict) -> str:
    p = s["pattern"]
    if p == "per_in_dir":
        return f"{s['vp']} VP per {filter_text(s.get('filter'))} {DIR_WORDS[s['dir']]}"
    if p == "longest_path":
        return (f"{s['vp']} VP per card on the longest orthogonal path of {s['habitat'].capitalize()} cards "
                "through this card")
    if p == "sets":
        return f"{s['vp']} VP per set of {'/'.join(e.capitalize() for e in s['elements'])}"
    if p == "per_resource":
        return f"{s['vp']} VP per {s['per']} {s['res']}"
    if p == "any_player":
        return f"{s['vp']} VP per {s['habitat'].capitalize()} habitat in any one player's area"
    raise ValueError(f"unknown scoring pattern {p!r}")


def ability_text(a: dict) -> str:
    colour = a["color"].capitalize()
    kind = a["kind"]
    if kind == "gain":
        body = ", ".join(gain_text(g) for g in a["gain"])
        if a.get("cost"):
            body = " and ".join(f"pay {n} {COST_WORDS[r]}" for r, n in a["cost"].items()) + ": " + body
        if a.get("if_action"):
            body += f", if you chose the {ACTION_COLOUR[a['if_action']]} action"
    elif kind == "copy":
        body = f"copy one {colour} ability in your tableau"
    elif kind == "alt_cost":
        body = f"this card's soil cost may be paid with {COST_WORDS[a['res']]} instead"
    elif kind == "all_types":
        body = "counts as every flora type"
    elif kind == "cost_reduction":
        body = f"{plural(filter_text(a['filter']))} cost {a['n']} less soil (not below 0)"
    elif kind == "forbid_action":
        body = f"you cannot choose the {ACTION_COLOUR[a['action']]} action as active player"
    elif kind == "on_event":
        body = "whenever you play an event: " + ", ".join(gain_text(g) for g in a["gain"])
    elif kind == "score":
        body = "end of game: " + score_text(a["score"])
    else:
        raise ValueError(f"unknown ability kind {kind!r}")
    return f"[{colour}] {body}."


MEASURE_WORDS = {
    "flora_growth_ge": "flora with at least {arg} growth", "flora_sprouts_ge": "flora with at least {arg} sprouts",
    "soil": "soil in reserve", "compost": "cards in compost", "hand": "cards in hand", "events": "events played",
    "habitat": "{Arg} habitats", "type": "{Args}", "color": "{Arg} abilities", "full_cols": "full columns",
    "full_rows": "full rows", "full_diagonals": "full diagonals", "vp_ge": "cards worth at least {arg} VP",
    "vp_le": "cards worth at most {arg} VP", "cost_ge": "cards costing at least {arg}",
    "cost_le": "cards costing at most {arg}", "sets_rbyte": "sets of Red/Blue/Yellow/Terrain/Event",
    "tag": "flora with {a_arg} word in the name", "sprout_spaces_eq": "flora with {arg} sprout spaces",
    "flora_full": "completely filled flora", "flora_bare": "flora with no growth and no sprouts",
    "vp_odd": "cards with odd VP", "vp_even": "cards with even VP", "terrain": "Terrain cards",
    "diag_path_type": "{Args} on your longest diagonal path", "lines_diff_color":
    "rows/columns of 4 cards with 4 different ability colours", "lines_same_color":
    "rows/columns of 4 cards sharing one ability colour", "lines_diff_type": "rows/columns of 4 different types",
    "lines_same_type": "rows/columns of 4 flora of one type", "lines_diff_sprouts":
    "rows/columns of 4 flora with 4 different sprout counts", "lines_diff_growth":
    "rows/columns of 4 flora with 4 different growth counts", "sprouts": "sprouts in your tableau",
    "growth": "growth in your tableau", "canopies": "filled canopies",
}


def measure_text(measure: str, arg) -> str:
    article = "an" if str(arg)[:1] in "aeiou" else "a"
    return MEASURE_WORDS[measure].format(arg=arg, Arg=str(arg).capitalize(), Args=plural(str(arg).capitalize()),
                                         a_arg=f"{article} {arg}")


def objective_text(o: dict, kind: str) -> str:
    what = measure_text(o["measure"], o["arg"])
    if kind == "fauna":
        return f"Have {o['n']}+ {what}."
    if o.get("table"):
        return "VP by count of " + what + ": " + ", ".join(f"{i}:{v}" for i, v in enumerate(o["table"]) if i) + "+."
    cap = f" (max {o['max']})" if o.get("max") else ""
    if o["per"] == 1:
        return f"{o['vp']} VP each for {what}{cap}."
    return f"{o['vp']} VP per {o['per']} {what}{cap}."


def _habitats(rec: dict) -> list[str]:
    return ["/".join(h.capitalize() for h in rec["habitats"])] if rec.get("habitats") else []


def card_line(rec: dict, cost: int | None = None) -> str:
    """One line with everything printed on an Earth card: name, type, cost, VP, sprout spaces, growth and
    canopy VP, habitats, then its ability text. ``cost``: the soil cost after reductions, shown beside the
    printed one where it differs."""
    kind = rec["kind"]
    facts = [rec["type"].capitalize() if kind == "flora" else kind.capitalize()]
    if kind != "event":
        facts.append(f"cost {rec['cost']}" + (f" ({cost} for you)" if cost is not None and cost != rec["cost"] else ""))
    facts.append(f"{rec['vp']} VP")
    if kind == "flora":
        facts += [f"{rec['sprouts']} sprout spaces",
                  f"growth {rec['growth']}" + (f" (canopy {rec['canopy']} VP)" if rec["growth"] else "")]
    facts += _habitats(rec)
    return f"{rec['name']} — {', '.join(facts)}: {rec['text'] or 'no ability.'}"


def side_line(rec: dict, what: str) -> str:
    """One line for an island, climate or ecosystem side, with what the side gives (as printed on it)."""
    if what == "ecosystem":
        return f"{rec['name']}: {rec['text']}"
    facts = [f"{rec['vp']} VP"] + _habitats(rec)
    if what == "island":
        facts.append(f"setup: draw {rec['draw']}, compost {rec['compost']} of them, take {rec['soil']} soil")
    return f"{rec['name']} — {', '.join(facts)}: {rec['text'] or 'no ability.'}"
