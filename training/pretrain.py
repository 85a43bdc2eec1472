"""Warm start: behaviour cloning of a teacher bot before self-play PPO.

PPO from scratch spends most of its budget rediscovering what the heuristic bot already knows; in
Earth (~450 decisions a game, 5,148 inputs) 500k steps buy under a thousand games and a policy that
still loses to the heuristic nine times in ten. Cloning the teacher first starts PPO near the
teacher's level, and self-play plus the heuristic in the pool then has to find only the
improvements.

1. :func:`collect` plays ``games`` games on the engine (no env plumbing): teacher against teacher,
   and a share ``vs_random_share`` teacher against random so that the states of a game being won
   are covered too. Every teacher decision is kept as (observation, mask, action, return), where
   the return is the seat's final return discounted by the seat's own remaining decisions, i.e.
   exactly what PPO's value head estimates for a learner in that seat. A game cut at ``max_turns`` has
   no result: its decisions teach the moves, not the value (PPO bootstraps a truncated episode from the
   value head, where the env's truncation reward of 0 would teach it that such states are even).
   The returns leave out ``selfplay.draw_reward``: a game the rules draw teaches its 0, where PPO's
   returns then hold the draw reward, so PPO's first updates move those values (Travel Earth's recipe,
   −0.5). Counting it here would change the warm start the shipped Travel Earth model reproduces from.
2. :func:`clone` fits the MaskablePPO policy to it: masked cross-entropy of the teacher's action
   plus ``vf_coef`` × MSE of the value head to the return, so PPO's first advantages are not noise
   from an untrained critic (which would undo the cloning in the first updates).

Observations are stored as float16 (every layout is small integers or fractions of a card count),
which halves the memory of Earth's wide vectors; ``python -m training.pretrain --config ...``
runs the warm start alone and reports the held-out agreement with the teacher.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tabletop_envs.core.errors import ConfigError, run_cli
from tabletop_envs.core.policy import RandomPolicy, policy_rng


@dataclass
class TeacherData:
    observations: np.ndarray  # float16 [n, obs]
    masks: np.ndarray  # bool [n, actions]
    actions: np.ndarray  # int64 [n]
    returns: np.ndarray  # float32 [n]
    value_known: np.ndarray  # bool [n]: False where the game was truncated (no result to learn)
    games: int
    seconds: float
    decisions: np.ndarray | None = None  # str [n]: the decision each row answers (State.decision())

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def collect(env_name: str, teacher, games: int, seed: int = 0, vs_random_share: float = 0.25,
            gamma: float = 0.99, game_kwargs: dict | None = None, max_turns: int | None = None,
            decision_teachers: dict | None = None) -> TeacherData:
    """Teacher decisions from ``games`` engine games (seat-rotated against random).

    ``decision_teachers`` ({decision name: policy}) makes another policy the teacher of those decisions: it
    plays them in the teacher's seats (drawing from the teacher's generator) and its moves are recorded."""
    from tabletop_envs.core.registry import make_game

    game = make_game(env_name, **(game_kwargs or {}))
    n = game.num_players
    limit = game.default_max_turns if max_turns is None else max_turns
    rng = np.random.default_rng(seed)  # the deals and who plays them, never handed to a policy
    # The policies' own generators: handed the deals' stream, a teacher could read the seed off it and re-deal
    # every game (the hidden cards of its recorded decisions), and the random player's moves followed the deals.
    teacher_rng, random_rng = policy_rng(seed, 0), policy_rng(seed, 1)
    random_policy = RandomPolicy()
    by_decision = decision_teachers or {}
    obs_rows, mask_rows, actions, seat_of, game_of, decision_of = [], [], [], [], [], []
    game_returns = []
    t0 = time.perf_counter()
    for g in range(games):
        policies = [teacher] * n
        if rng.random() < vs_random_share:
            # The random player takes every other seat, rotating which one the teacher holds.
            policies = [random_policy] * n
            policies[g % n] = teacher
        state = game.new_initial_state(int(rng.integers(2**31 - 1)))
        while not state.is_terminal() and state.turn < limit:
            seat = state.current_player()
            mask = state.legal_action_mask()
            obs = state.observation(seat)
            if policies[seat] is teacher:
                decision = state.decision()
                action = by_decision.get(decision, teacher).act(obs, mask, teacher_rng)
                obs_rows.append(obs.astype(np.float16))
                mask_rows.append(mask.astype(bool))
                actions.append(action)
                seat_of.append(seat)
                game_of.append(g)
                decision_of.append(decision)
            else:
                action = policies[seat].act(obs, mask, random_rng)
            state.apply_action(action)
        game_returns.append(np.asarray(state.returns(), np.float32) if state.is_terminal() else None)
    seats, game_ids = np.asarray(seat_of), np.asarray(game_of)
    returns = np.empty(len(actions), np.float32)
    # Walk backwards: the discount counts the seat's own later decisions, as PPO's steps do.
    remaining: dict[tuple[int, int], int] = {}
    for i in range(len(actions) - 1, -1, -1):
        key = (int(game_ids[i]), int(seats[i]))
        k = remaining.get(key, 0)
        final = game_returns[key[0]]
        returns[i] = 0.0 if final is None else final[key[1]] * gamma ** k
        remaining[key] = k + 1
    known = np.asarray([game_returns[g] is not None for g in game_ids.tolist()], bool)
    require_rows(obs_rows, f"the {games} teacher games of {env_name}", "decision of the teacher", "pretrain.games")
    return TeacherData(np.stack(obs_rows), np.stack(mask_rows), np.asarray(actions, np.int64), returns,
                       known, games, time.perf_counter() - t0, np.asarray(decision_of, str))


def require_rows(rows: list, games: str, what: str, setting: str) -> None:
    """A ConfigError naming the fix where ``games`` (e.g. "the 4 teacher games of toy_v0") gave no row of
    ``what``, instead of numpy's "need at least one array to stack" from the empty data."""
    if not rows:
        raise ConfigError(f"{games} held no {what}; raise {setting}")


def percent(share: float | None) -> str:
    """A share for the logs and the model card; "n/a" where nothing was measured (none held out)."""
    return "n/a" if share is None else f"{100 * share:.1f}%"


def holdout_split(n: int, holdout: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(held_out, train)`` indices of ``n`` samples in a random order; none held out of 20 or fewer."""
    order = rng.permutation(n)
    n_hold = int(round(holdout * n)) if n > 20 else 0
    return order[:n_hold], order[n_hold:]


def clone(policy, data: TeacherData, epochs: int = 5, batch_size: int = 512, learning_rate: float = 1e-3,
          vf_coef: float = 0.5, holdout: float = 0.05, seed: int = 0, log=print) -> dict:
    """Fit an sb3-contrib ``MaskableActorCriticPolicy`` to the teacher data; returns the fit's report."""
    import torch

    rng = np.random.default_rng(seed)
    hold, train = holdout_split(len(data), holdout, rng)
    device = policy.device
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)

    def batch(idx):
        obs = torch.as_tensor(data.observations[idx].astype(np.float32), device=device)
        return (obs, data.masks[idx], torch.as_tensor(data.actions[idx], device=device),
                torch.as_tensor(data.returns[idx], device=device), data.value_known[idx])

    def value_error(obs, ret, known, reduce):
        values = policy.predict_values(obs).flatten()
        if not known.all():  # only where a truncated game's rows are in the batch: the rest is bit-identical
            keep = torch.as_tensor(known, device=device)
            values, ret = values[keep], ret[keep]
        return reduce(values, ret) if len(ret) else None

    def evaluate(idx) -> tuple[np.ndarray, float | None]:
        """Per sample of ``idx``: whether the policy's likeliest move is the teacher's; the value head's MSE."""
        agree, sq = [], 0.0
        with torch.no_grad():
            for start in range(0, len(idx), 4096):
                obs, mask, act, ret, known = batch(idx[start:start + 4096])
                dist = policy.get_distribution(obs, action_masks=mask)
                agree.append((dist.distribution.probs.argmax(-1) == act).cpu().numpy())
                err = value_error(obs, ret, known, lambda v, r: float(((v - r) ** 2).sum()))
                sq += err or 0.0
        valued = int(data.value_known[idx].sum())
        return np.concatenate(agree) if agree else np.zeros(0, bool), sq / valued if valued else None

    report: dict[str, Any] = {"samples": len(data), "games": data.games, "collect_seconds": round(data.seconds, 1), "epochs": []}
    policy.set_training_mode(True)
    t0 = time.perf_counter()
    for epoch in range(epochs):
        rng.shuffle(train)
        nll_sum, n_sum = 0.0, 0
        for start in range(0, len(train), batch_size):
            obs, mask, act, ret, known = batch(train[start:start + batch_size])
            dist = policy.get_distribution(obs, action_masks=mask)
            nll = -dist.log_prob(act).mean()
            value_loss = value_error(obs, ret, known, torch.nn.functional.mse_loss)
            loss = nll if value_loss is None else nll + vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            nll_sum += nll.item() * len(act)
            n_sum += len(act)
        policy.set_training_mode(False)
        agreed, value_mse = evaluate(hold)
        # None where nothing was held out (20 samples or fewer) or no held-out game had a result: NaN is no
        # JSON, and pretrain.json is read back on a resume
        agreement = round(float(agreed.mean()), 4) if len(agreed) else None
        value_mse = None if value_mse is None else round(value_mse, 4)
        policy.set_training_mode(True)
        row = {"epoch": epoch + 1, "train_nll": round(nll_sum / max(n_sum, 1), 4),
               "holdout_agreement": agreement, "holdout_value_mse": value_mse}
        report["epochs"].append(row)
        mse = "n/a" if value_mse is None else f"{value_mse:.3f}"
        log(f"[pretrain] epoch {row['epoch']}/{epochs}: nll {row['train_nll']:.3f}, agreement with the teacher "
            f"{percent(agreement)} (held-out), value mse {mse}")
    policy.set_training_mode(False)
    report["fit_seconds"] = round(time.perf_counter() - t0, 1)
    report["holdout_agreement"] = report["epochs"][-1]["holdout_agreement"]
    if data.decisions is not None and len(hold):
        held = data.decisions[hold]
        report["holdout_agreement_by_decision"] = {
            str(d): {"samples": int((held == d).sum()), "agreement": round(float(agreed[held == d].mean()), 4)}
            for d in sorted(set(held.tolist()))}
        log("[pretrain] held-out agreement by decision: " + ", ".join(
            f"{d} {100 * r['agreement']:.1f}% of {r['samples']}"
            for d, r in report["holdout_agreement_by_decision"].items()))
    return report


def decision_teachers(cfg, game_config: dict | None = None) -> dict:
    """``pretrain.decisions`` resolved: {decision: (display name, policy)}. A decision the game does not have,
    or decisions without ``pretrain.teacher`` to play the rest, is a ConfigError naming the fix."""
    from tabletop_envs.core.registry import make_game

    from .evaluate import resolve_recipe_policy, split_env_kwargs

    pt = cfg.pretrain
    if not pt.decisions:
        return {}
    if not pt.teacher:
        raise ConfigError(f"pretrain.decisions {pt.decisions} names who teaches some decisions, but "
                          "pretrain.teacher is empty: set the policy that teaches the others, e.g. "
                          "--set pretrain.teacher=heuristic")
    game_kwargs = split_env_kwargs(cfg.env_kwargs, cfg.env)[0]
    names = type(make_game(cfg.env, **game_kwargs)).decisions
    if not names:
        raise ConfigError(f"pretrain.decisions: {cfg.env}'s game does not list its decisions (Game.decisions, "
                          "every name State.decision() returns), so none can be named: list them in the game class")
    unknown = [d for d in pt.decisions if d not in names]
    if unknown:
        raise ConfigError(f"pretrain.decisions: {cfg.env} has no decision {unknown[0]!r}; its decisions are "
                          f"{', '.join(names)}")
    return {d: resolve_recipe_policy(f"pretrain.decisions.{d}", spec, cfg.env,
                                     game_kwargs if game_config is None else game_config)
            for d, spec in pt.decisions.items()}


def warm_start(model, cfg, log=print) -> dict:
    """Collect from ``cfg.pretrain.teacher`` (and ``pretrain.decisions``) and clone into ``model.policy``; the
    report for the run files."""
    from .evaluate import resolve_recipe_policy, split_env_kwargs

    pt = cfg.pretrain
    game_kwargs, max_turns = split_env_kwargs(cfg.env_kwargs, cfg.env)
    name, teacher = resolve_recipe_policy("pretrain.teacher", pt.teacher, cfg.env, game_kwargs)
    others = decision_teachers(cfg)
    taught = "".join(f", {d} by {n}" for d, (n, _) in others.items())
    log(f"[pretrain] recording {pt.games} games of {name}{taught} ({100 * pt.vs_random_share:.0f}% against random)")
    data = collect(cfg.env, teacher, pt.games, seed=cfg.seed + 7, vs_random_share=pt.vs_random_share,
                   gamma=cfg.ppo.gamma, game_kwargs=game_kwargs, max_turns=max_turns,
                   decision_teachers={d: policy for d, (_, policy) in others.items()})
    log(f"[pretrain] {len(data)} teacher decisions in {data.seconds:.0f} s; fitting {pt.epochs} epochs")
    import torch

    from .train import update_thread_count

    threads = torch.get_num_threads()
    torch.set_num_threads(update_thread_count(cfg.ppo.update_threads))  # the fit is an update too
    try:
        report = clone(model.policy, data, epochs=pt.epochs, batch_size=pt.batch_size,
                       learning_rate=pt.learning_rate, vf_coef=pt.vf_coef, seed=cfg.seed, log=log)
    finally:
        torch.set_num_threads(threads)
    report["teacher"] = name
    if others:
        report["decision_teachers"] = {d: n for d, (n, _) in others.items()}
    return report


def main(argv: list[str] | None = None) -> dict:
    """Warm start only, then the anchor evaluation of the cloned policy (no PPO)."""
    import argparse
    import json

    from .config import check_device_present, load_config
    from .evaluate import (
        anchor_evaluation,
        check_games,
        check_two_seats,
        resolve_recipe_policy,
        split_env_kwargs,
    )
    from .export import numpy_policy
    from .pool import OpponentPool
    from .train import build_model, make_vec_env

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--config")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--games", type=int, default=200, help="evaluation games per anchor")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    check_games(args.games)  # before the warm start, not after it
    check_device_present(cfg.ppo.device)
    from tabletop_envs.core.registry import make_game

    # the recipe's env_kwargs are the game's options (and max_turns ...): checked as train checks them, so
    # that a misspelt one is not told the single-agent env's own keywords, which a recipe cannot set
    game = make_game(cfg.env, **split_env_kwargs(cfg.env_kwargs, cfg.env)[0])
    check_two_seats(cfg.env, game.num_players)  # the anchors, like --games, are checked before the warm start
    for anchor in dict.fromkeys(cfg.eval.opponents):
        resolve_recipe_policy("eval.opponents", anchor, cfg.env, game.config())
    if not cfg.pretrain.teacher:
        cfg.pretrain.teacher = "heuristic"
    decision_teachers(cfg)
    import torch

    torch.set_num_threads(cfg.ppo.torch_threads)
    pool = OpponentPool(cfg.env, 1.0, 0.0)
    venv = make_vec_env(cfg, pool)
    model = build_model(cfg, venv, cfg.run_dir())
    report = warm_start(model, cfg)
    game_kwargs, max_turns = split_env_kwargs(cfg.env_kwargs, cfg.env)
    learner = numpy_policy(model, deterministic=cfg.eval.deterministic)
    result = anchor_evaluation(cfg.env, learner, args.games, seed=cfg.seed + 1000, anchors=cfg.eval.opponents,
                               game_kwargs=game_kwargs, max_turns=max_turns,
                               act="argmax" if cfg.eval.deterministic else "sample")
    report["evaluation"] = {k: v["win"]["rate"] for k, v in result.items() if k.startswith("vs_")}
    print(json.dumps({k: v for k, v in report.items() if k != "epochs"}, indent=2))
    return report


def cli() -> None:
    """Console-script entry point: an error of the arguments or the recipe ends it in one line."""
    sys.exit(run_cli(main))


if __name__ == "__main__":
    cli()
