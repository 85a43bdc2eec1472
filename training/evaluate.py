"""Round-robin evaluation of policies: seat-rotated, seed-paired games, 95 % CIs and a Bradley–Terry Elo table.

    python -m training.evaluate --env terralore_v0 --policies random heuristic ppo --games 1000

Policies are names under the env (``random``, ``heuristic``, ``ppo`` -> ``terralore_v0/ppo``), policy
ids, or model paths. Every pair plays ``--games`` games; each deal (seed) is played from every seat
rotation, so luck of the deal and the first-player advantage cancel within the pair. Every pair plays
the same deals, so a pair's result does not depend on the other policies of the round robin, two
policies' rates against a third are measured on the same deals, and ``--policies M random heuristic
--games 1000 --seed 1000`` replays the games of a training run's final evaluation of M
(``eval.final_games: 1000``, seed 1000) against each anchor.

More than two seats (Earth with 3–5 players): A and B sit at two seats, the others are filled by
``--filler`` (default random); the rotations put A and B on every seat in both orders. The result
of a game for the pair is rank-based: A beats B when A's standing is higher (``State.standings``: for Earth
the rank reward, VP then the rule text's tiebreakers, whatever ``reward`` shapes the returns).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.aec import AEC_KWARGS, check_illegal_action, check_max_turns, check_render_mode
from tabletop_envs.core.arena import check_games, check_seed, deal_seed, play_game_standings
from tabletop_envs.core.errors import ConfigError, TabletopError, run_cli
from tabletop_envs.core.files import parse_json, path_is, write_text_whole, written_beside
from tabletop_envs.core.policy import load_policy, policy_name, policy_rng
from tabletop_envs.core.registry import get_spec, make_game

from .config import make_output_folder, user_path


def split_env_kwargs(env_kwargs: dict | None, env_name: str) -> tuple[dict, int | None]:
    """(game kwargs, max_turns) from the env kwargs of a recipe for ``env_name``.

    The arena never renders and its policies play masked moves, so ``render_mode`` and ``illegal_action``
    are left out; a bad value of either is still refused as the env would refuse it, rather than read as
    if it were fine."""
    if env_kwargs is not None and not isinstance(env_kwargs, dict):
        raise ConfigError(f"env kwargs must be a mapping of option names to values, e.g. {{\"num_players\": 3}}; "
                          f"got {env_kwargs!r}")
    kwargs = dict(env_kwargs or {})
    max_turns = kwargs.pop("max_turns", None)
    check_max_turns(max_turns)  # as the env checks it: max_turns 0 would make every game a draw
    check_illegal_action(kwargs.get("illegal_action", "raise"))
    if kwargs.get("render_mode") is not None:
        check_render_mode(kwargs["render_mode"], get_spec(env_name).load_module().raw_env.metadata["render_modes"])
    for key in AEC_KWARGS:
        kwargs.pop(key, None)
    return kwargs, max_turns


def parse_env_kwargs(text: str) -> dict | None:
    """The JSON object of an ``--env-kwargs`` argument."""
    try:
        env_kwargs = parse_json(text)  # a key given twice is refused, not read with its last value
    except ValueError as exc:
        raise ConfigError(f"--env-kwargs {text!r} is not valid JSON ({exc}); write a JSON object with "
                          "double-quoted keys, e.g. '{\"num_players\": 3}'") from None
    if env_kwargs is not None and not isinstance(env_kwargs, dict):
        raise ConfigError(f"--env-kwargs must be a JSON object of rule options, e.g. '{{\"num_players\": 3}}'; "
                          f"got {text}")
    return env_kwargs


def resolve(spec, env_name: str, game_config: dict | None = None):
    """(display name, Policy) from a short name, an id, a path or a policy object. ``game_config``: the
    rule options it will play under (a model trained under others is warned about)."""
    if not isinstance(spec, str):  # a loaded policy: checked against the env when it says what it was made for
        return policy_name(spec), load_policy(spec, env=env_name, game_config=game_config)
    if "/" in spec or spec.endswith((".onnx", ".json", ".npz")) or path_is(spec, Path.is_file):
        full = spec
    else:
        full = f"{env_name}/{spec}"
    # every kind (short name, id, shipped id, path) is checked against the env: another game's policy is refused
    return spec, load_policy(full, env=env_name, game_config=game_config)


def resolve_recipe_policy(key: str, spec: str, env_name: str, game_config: dict | None = None):
    """:func:`resolve` of a policy that the recipe key ``key`` names, its refusal naming that key: the
    loader's error named the policy alone, and a recipe may name one policy under several keys (an anchor,
    the teacher, a distillation opponent), so a user was not told which to fix."""
    try:
        return resolve(spec, env_name, game_config)
    except (TabletopError, OSError, ValueError) as exc:
        raise ConfigError(f"{key}: {spec!r} cannot play {env_name} ({exc}); fix the name or path in {key}, or "
                          f"name another policy there") from exc


@dataclass
class PairResult:
    a: str
    b: str
    games: int
    wins: int  # A beat B
    draws: int
    losses: int

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else float("nan")

    def rates(self) -> dict:
        """A's result against B: ``games``, ``score`` (wins plus half the draws, per game) and for each of
        ``win``, ``draw`` and ``loss`` its ``rate`` and 95 % Wilson interval ``ci95`` ([lo, hi])."""
        out: dict[str, Any] = {"games": self.games, "score": self.score}
        for key, count in (("win", self.wins), ("draw", self.draws), ("loss", self.losses)):
            lo, hi = wilson(count, self.games)
            out[key] = {"rate": count / self.games if self.games else float("nan"), "ci95": [lo, hi]}
        return out


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion k/n."""
    if n == 0:
        return float("nan"), float("nan")
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def seatings(num_players: int) -> list[tuple[int, int]]:
    """(seat of A, seat of B) for each rotation of one deal."""
    if num_players == 2:
        return [(0, 1), (1, 0)]
    forward = [(k, (k + 1) % num_players) for k in range(num_players)]
    return forward + [(b, a) for a, b in forward]


def play_pair(env_name: str, a, b, games: int, seed: int = 0, game_kwargs: dict | None = None,
              max_turns: int | None = None, filler="random") -> PairResult:
    """``games`` games of A against B (rounded up to whole sets of seat rotations), paired seeds."""
    check_games(games)
    check_seed(seed)
    check_max_turns(max_turns)  # as the env and the --env-kwargs check it: 0 made every game a draw
    game = make_game(env_name, **(game_kwargs or {}))
    n = game.num_players
    check_two_seats(env_name, n)
    name_a, pol_a = resolve(a, env_name, game.config())
    name_b, pol_b = resolve(b, env_name, game.config())
    _, pol_f = resolve(filler, env_name, game.config())
    rotations = seatings(n)
    deals = math.ceil(games / len(rotations))
    # a generator of its own for A, for B and for the fillers: never a deal's own stream (deal 0 is dealt
    # from seed 0), and none that one of them could draw ahead from to choose another's random moves
    rng_a, rng_b, rng_f = (policy_rng(seed, k) for k in range(3))
    wins = draws = losses = 0
    for deal in range(deals):
        dealt = deal_seed(seed, deal)
        for seat_a, seat_b in rotations:
            seats, rngs = [pol_f] * n, [rng_f] * n
            seats[seat_a], seats[seat_b] = pol_a, pol_b
            rngs[seat_a], rngs[seat_b] = rng_a, rng_b
            # the standings, not the returns: Earth's reward="vp_margin" returns call a VP tie a draw where
            # the rules' tiebreakers name a winner
            _, standings, _ = play_game_standings(game, seats, dealt, max_turns, rngs)
            ra, rb = standings[seat_a], standings[seat_b]
            wins += ra > rb
            draws += ra == rb
            losses += ra < rb
    return PairResult(name_a, name_b, deals * len(rotations), int(wins), int(draws), int(losses))


def env_name_arg(text: str) -> str:
    """An ``--env`` argument: ``terralore`` as ``tabletop-envs play`` takes it, or ``terralore_v0``."""
    import argparse

    from tabletop_envs.core.play import resolve_env_name

    try:
        return resolve_env_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def check_two_seats(env_name: str, num_players: int) -> None:
    """A pair of policies needs two seats: with one, both would sit on the same seat and always 'draw'."""
    if num_players < 2:
        # training.train and training.main_job meet this too, and have no --env-kwargs: a recipe's is --set
        raise ConfigError(f"{env_name} with {num_players} player has one seat, so two policies cannot play each "
                          "other; evaluate with num_players >= 2: --env-kwargs '{\"num_players\": 2}' (training."
                          "evaluate, benchmarks), or --set env_kwargs.num_players=2 (training.train, training.main_job)")


def bradley_terry_elo(names: list[str], pairs: list[PairResult], anchor: str | None = "random",
                      iterations: int = 100) -> dict[str, float]:
    """Elo ratings from a Bradley–Terry maximum-likelihood fit; draws count half a win each way.

    One virtual draw per played pair keeps ratings finite when a policy wins every game. The
    ``anchor`` policy (random, if present) is rated 0; otherwise the mean rating is 0. Newton steps on
    the log-strengths (the likelihood is concave there) with step halving, until a step moves no rating
    by 1e-9 Elo, or rounding lets no step raise the likelihood (a few millionths of an Elo from the
    optimum): the MM updates used before stopped after 2,000 iterations, 50 Elo short of the fit on a
    table of clean sweeps. Raises if ``iterations`` steps do not converge.
    """
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    w = np.zeros((k, k))
    for p in pairs:
        i, j = idx[p.a], idx[p.b]
        w[i, j] += p.wins + 0.5 * p.draws + 0.5
        w[j, i] += p.losses + 0.5 * p.draws + 0.5
    games, won = w + w.T, w.sum(axis=1)

    def log_likelihood(theta):
        diff = theta[:, None] - theta[None, :]
        return float((w * -np.logaddexp(0.0, -diff)).sum())

    theta = np.zeros(k)  # natural log of each strength, mean 0
    like = log_likelihood(theta)
    for _ in range(iterations):
        p_win = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = won - (games * p_win).sum(axis=1)
        info = games * p_win * p_win.T  # minus the Hessian: a graph Laplacian, singular along the mean
        info = np.diag(info.sum(axis=1)) - info
        step = np.linalg.lstsq(info, grad, rcond=None)[0]
        step -= step.mean()
        scale = 1.0
        while scale > 1e-6:
            trial = theta + scale * step
            trial_like = log_likelihood(trial)
            if trial_like >= like:
                break
            scale /= 2
        theta, like = trial, trial_like
        if np.abs(scale * step).max() * 400 / np.log(10) < 1e-9:
            break
    else:
        raise RuntimeError(f"the Bradley–Terry fit did not converge in {iterations} Newton steps")
    elo = 400 * theta / np.log(10)
    elo -= elo[idx[anchor]] if anchor in idx else elo.mean()
    return {n: float(elo[idx[n]]) for n in names}


def round_robin(env_name: str, policies: list, games: int, seed: int = 0, game_kwargs: dict | None = None,
                max_turns: int | None = None, filler="random") -> dict:
    """Every pair of ``policies`` (names, ids, model paths or policy objects) over ``games`` seat-rotated games with
    paired seeds; returns the report ``training.evaluate`` writes: each pair's win/draw/loss rates with
    95 % Wilson intervals under ``"pairs"`` and a Bradley–Terry Elo table under ``"elo"``. Above two
    players, ``filler`` takes the seats the pair leaves (rank-based results)."""
    if len(policies) < 2:
        raise ConfigError(f"a round robin needs at least two policies, got {len(policies)} ({', '.join(map(str, policies))}"
                          "); add an opponent, e.g. --policies heuristic random")
    check_games(games)
    check_seed(seed)
    check_max_turns(max_turns)
    game = make_game(env_name, **(game_kwargs or {}))
    n_players = game.num_players
    check_two_seats(env_name, n_players)
    named = [resolve(p, env_name, game.config()) for p in policies]
    names = [n for n, _ in named]
    if len(set(names)) != len(names):
        # two objects of one class were both named after it, and nothing said how to tell them apart
        raise ConfigError(f"policy names must be distinct, got {names}: name each policy once (a policy object is "
                          "named by its name attribute, else its class: give each object a name of its own, e.g. "
                          "agent.name = 'mine-v2')")
    pairs = []
    for (na, pa), (nb, pb) in itertools.combinations(named, 2):
        # the same deals for every pair, as anchor_evaluation plays them; A, listed first, draws from A's generator
        res = play_pair(env_name, pa, pb, games, seed, game_kwargs, max_turns, filler)
        res.a, res.b = na, nb
        pairs.append(res)
    elo = bradley_terry_elo(names, pairs)
    # the filler sits in every game of a larger table and moves every result: the report says which
    filler_name = policy_name(filler) if n_players > 2 else None
    return {"env": env_name, "num_players": n_players, "games_per_pair": pairs[0].games if pairs else 0,
            "seed": int(seed), "game_kwargs": dict(game_kwargs or {}), "max_turns": max_turns, "filler": filler_name,
            "policies": names, "elo": elo,
            "pairs": [{**asdict(p), **p.rates()} for p in pairs]}


MODEL_SUFFIXES = (".onnx", ".npz", ".json")


def anchor_key(anchor) -> str:
    """The name of an anchor's rates in an :func:`anchor_evaluation` (eval lines, history.json, the
    sidecar): ``vs_`` and a model file's stem (``runs/a/ppo.onnx`` -> ``vs_ppo``), else the anchor as
    given (``random`` -> ``vs_random``, ``terralore_v0/ppo`` -> ``vs_terralore_v0/ppo``); a policy object
    by its name, as a round robin names it (its repr held a memory address)."""
    if not isinstance(anchor, (str, os.PathLike)):
        return f"vs_{policy_name(anchor)}"
    text = str(anchor)
    return f"vs_{Path(text).stem if text.endswith(MODEL_SUFFIXES) else text}"


def tensorboard_tag(key: str) -> str:
    """``key`` as one TensorBoard tag: a ``/`` would nest an id's parts (``vs_terralore_v0/ppo``) as groups."""
    return re.sub(r"[^\w.-]", "_", key)


def anchor_keys(anchors, where: str = "the anchors") -> list[str]:
    """The :func:`anchor_key` of each anchor; two anchors under one name (or one TensorBoard tag) are a
    ConfigError, since the second one's rates would silently replace the first one's."""
    keys: list[str] = []
    seen: dict[str, Any] = {}  # by TensorBoard tag: the anchor (an id, a path or a policy) first given under it
    for anchor in anchors:
        if isinstance(anchor, str) and not anchor.strip():  # else found only when the run loads its anchors
            raise ConfigError(f"{where}: {anchor!r} names no opponent; give a policy id (random, heuristic, "
                              "<env>/ppo) or a model file's path, or leave the item out")
        key = anchor_key(anchor)
        earlier = seen.get(tensorboard_tag(key))
        if earlier is not None:
            clash = (f"would both be reported as {key}" if anchor_key(earlier) == key else
                     f"({anchor_key(earlier)}, {key}) would share the TensorBoard tag "
                     f"eval/win_rate_{tensorboard_tag(key)}")
            raise ConfigError(f"{where}: {str(earlier)!r} and {str(anchor)!r} {clash}, so the first one's results "
                              f"would be lost; name each anchor once, and give a model "
                              f"file a stem of its own (e.g. export it again with --out <dir>/<new name>, or copy "
                              f"its .onnx, .npz and .json under a new name)")
        seen[tensorboard_tag(key)] = anchor
        keys.append(key)
    return keys


def anchor_evaluation(env_name: str, policy, games: int, seed: int = 12345, anchors=("random", "heuristic"),
                      game_kwargs: dict | None = None, max_turns: int | None = None, act: str = "argmax") -> dict:
    """``{"vs_random": {...}, "vs_heuristic": {...}, "protocol": "..."}``: rates with 95 % CIs of ``policy``
    against each anchor (keyed by :func:`anchor_key`, each as :meth:`PairResult.rates` gives them), and a line
    saying how the games were played."""
    out: dict[str, Any] = {}
    for anchor, key in zip(anchors, anchor_keys(anchors)):
        res = play_pair(env_name, policy, anchor, games, seed, game_kwargs, max_turns)
        out[key] = res.rates()
    out["protocol"] = (f"{games}+ games per anchor, every deal played from every seat rotation (paired seeds), "
                       f"seed {seed}, masked {act}")
    if max_turns is not None:  # the rates of games cut earlier or later are other numbers (more or fewer draws)
        out["protocol"] += f", max_turns {max_turns}"
    return out


def evaluation_lines(evaluation: dict) -> list[str]:
    """One line per anchor of an :func:`anchor_evaluation`: win rate, its 95 % CI and the games."""
    lines = []
    for key, rates in evaluation.items():
        if key.startswith("vs_"):
            lo, hi = rates["win"]["ci95"]
            lines.append(f"{key}: win {100 * rates['win']['rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] "
                         f"over {rates['games']} games")
    return lines


def markdown(report: dict) -> str:
    """A :func:`round_robin` report as the Markdown table ``elo.md`` holds: the pairs, then the Elo."""
    others = f", other seats: {report['filler']}" if report.get("filler") else ""
    # the table is what gets pasted elsewhere: without the rule options it read as the default game's
    options = {k: v for k, v in (report.get("game_kwargs") or {}).items() if k != "num_players"}
    if report.get("max_turns") is not None:
        options["max_turns"] = report["max_turns"]
    rules = f", rule options {', '.join(f'{k}={v!r}' for k, v in options.items())}" if options else ""
    lines = [f"### {report['env']} ({report['num_players']} players): round robin, "
             f"{report['games_per_pair']} games per pair, seat-rotated, paired seeds{others}{rules}", "",
             "| A | B | A wins | draws | A losses | A score |", "|---|---|---|---|---|---|"]

    def cell(r):
        return f"{100 * r['rate']:.1f}% [{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}]"

    for p in report["pairs"]:
        lines.append(f"| {p['a']} | {p['b']} | {cell(p['win'])} | {cell(p['draw'])} | {cell(p['loss'])} | "
                     f"{p['score']:.3f} |")
    zero = "random = 0" if "random" in report["elo"] else "mean = 0"  # bradley_terry_elo's anchoring
    lines += ["", f"| policy | Elo (Bradley–Terry, {zero}) |", "|---|---:|"]
    for name, rating in sorted(report["elo"].items(), key=lambda kv: -kv[1]):
        lines.append(f"| {name} | {rating:.0f} |")
    return "\n".join(lines)


def elo_png(report: dict, path: str | Path) -> None:
    """Draw a :func:`round_robin` report's Elo table as a bar chart at ``path`` (needs matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = sorted(report["elo"].items(), key=lambda kv: kv[1])
    fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * len(items)))
    ax.barh([k for k, _ in items], [v for _, v in items], color="tab:blue")
    ax.set_xlabel("Elo (Bradley–Terry)")
    ax.set_title(f"{report['env']}: {report['games_per_pair']} games per pair")
    fig.tight_layout()
    save_figure_whole(fig, path)
    plt.close(fig)


def save_figure_whole(fig, path: str | Path) -> None:
    """A matplotlib figure as a PNG beside ``path`` first, then moved into place, as the run's other files
    (its format named: the part's suffix names none)."""
    with written_beside(Path(path)) as (part,):
        fig.savefig(part, dpi=100, format="png")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--env", required=True, type=env_name_arg,
                        help="env name, e.g. terralore_v0 (or the game's name, terralore: its newest version)")
    parser.add_argument("--policies", nargs="+", required=True, help="names (random, heuristic, ppo), ids or paths")
    parser.add_argument("--games", type=int, default=200, help="games per pair (rounded up to whole rotations)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env-kwargs", default="{}", help='JSON game kwargs, e.g. \'{"num_players": 3}\'')
    parser.add_argument("--filler", default="random", help="policy in the extra seats of games with > 2 players")
    parser.add_argument("--out", help="folder for elo.json, elo.md (and elo.png with --png); those of an earlier "
                                      "evaluation there are replaced")
    parser.add_argument("--png", action="store_true", help="also draw the Elo table as <out>/elo.png (needs --out)")
    args = parser.parse_args(argv)
    check_games(args.games)
    if args.png and not args.out:
        raise ConfigError("--png draws elo.png into the --out folder, and no --out was given; add one, e.g. "
                          "--out results/")
    game_kwargs, max_turns = split_env_kwargs(parse_env_kwargs(args.env_kwargs), args.env)
    out = user_path(args.out) if args.out else None
    if out:
        check_out_folder(out)  # before the games, not after them
        make_output_folder(out, "--out")
    report = round_robin(args.env, args.policies, args.games, args.seed, game_kwargs, max_turns, args.filler)
    text = markdown(report)
    print(text)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        # beside their places first, as a run's files: a rerun into the same folder on a full disk tore both
        write_text_whole(out / "elo.json", json.dumps(report, indent=2) + "\n")
        write_text_whole(out / "elo.md", text + "\n")
        if args.png:
            elo_png(report, out / "elo.png")
        elif (out / "elo.png").is_file():  # an earlier run's picture beside this run's table contradicted it
            (out / "elo.png").unlink()
            print(f"removed {out}/elo.png, an earlier evaluation's picture (--png draws this one's)")
        print(f"wrote {out}/elo.json, elo.md" + (", elo.png" if args.png else ""))
    return report


def check_out_folder(out: Path) -> None:
    """``out`` is, or can become, a folder: no file sits on it or on any folder above it."""
    for path in (out, *out.parents):
        if path.exists():
            if not path.is_dir():
                what = "is a file" if path == out else f"lies under the file {path}"
                raise ConfigError(f"--out {out} {what}; --out names a folder for elo.json and elo.md: "
                                  "pick a folder (new or existing)")
            return


def cli() -> None:
    """Console-script entry point: an error of the arguments or the recipe ends it in one line."""
    sys.exit(run_cli(main))


if __name__ == "__main__":
    cli()
