"""Search distillation: after PPO, teach the policy the moves a rollout search over it finds.

A rollout search over a trained policy (``training.search``) plays better than the policy: on the
same Terralore deals against random, 96.5 % where the model alone won 94.7 %
(``benchmarks.search_ceiling``). The search needs the game state, so it cannot ship; what it knows
can. Each of ``rounds`` rounds of expert iteration (the next one searches over the policy this one
fitted, on deals of its own):

1. :func:`collect` plays ``games`` games of the policy against each opponent, seat-rotated. At every
   decision of the policy with more than one legal action the search scores each action over
   ``worlds`` re-dealt worlds; where it would teach a move other than the policy's, ``confirm_worlds``
   more worlds are played first. The game goes on with the search's move, so the states are those of
   the better play the policy is taught.
2. :func:`fit` fine-tunes the policy network (its hidden layers and action head; the value network is
   untouched) by masked cross-entropy toward the search's move where it beats the policy's own by
   more than ``margin`` (wins less losses per world; a near-tie is noise at a few dozen worlds) and toward the policy's own move elsewhere, plus ``kl_coef`` × the
   KL divergence from the policy before the fit, which keeps what the labels do not speak to (the
   order of the other actions, sampling play) near where it was. With ``target="scores"`` the
   cross-entropy is toward the policy before the fit reweighted by exp(score / ``temperature``) over
   the legal actions instead: every decision speaks, a tie teaches nothing and a clear gap moves the
   choice (on Terralore as much gain against random as the moves' labels, without their loss against
   the heuristic; docs/measurements.md).

Collection is the cost (Terralore, 32 worlds: about 1 s a game on one core, more with
confirmations) and runs on ``workers`` processes; its results do not depend on their number.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tabletop_envs.core.arena import deal_seed
from tabletop_envs.core.errors import STOP_SIGNALS, ConfigError, TabletopError
from tabletop_envs.core.files import write_text_whole
from tabletop_envs.core.policy import policy_rng

from .pretrain import holdout_split, percent, require_rows
from .search import best_action, search_scores, world_scores

CHUNKS = 64  # per opponent
#: the most processes a pool may hold on Windows: one of more waits on more handles than
#: WaitForMultipleObjects takes (a multiprocessing Pool hangs, python/cpython#94243; concurrent.futures
#: refuses more with a ValueError)
WINDOWS_MAX_WORKERS = 61


@dataclass
class SearchData:
    observations: np.ndarray  # float16 [n, obs]
    masks: np.ndarray  # bool [n, actions]
    own: np.ndarray  # int64 [n]: the policy's move
    scores: np.ndarray  # float32 [n, actions]: wins less losses per world played; NaN where illegal
    worlds: np.ndarray  # int32 [n]: the worlds played at each decision (more where the search was confirmed)
    results: np.ndarray  # int8 [games]: the searched games' outcomes for the policy's seat
    seconds: float

    def __len__(self) -> int:
        return int(self.own.shape[0])

    def labels(self, margin: float) -> tuple[np.ndarray, np.ndarray]:
        """``(labels, relabelled)``: the move taught at each decision and whether it is the search's."""
        n = len(self)
        own_score = self.scores[np.arange(n), self.own]
        best = np.nanargmax(self.scores, axis=1)
        relabelled = self.scores[np.arange(n), best] - own_score > margin
        return np.where(relabelled, best, self.own), relabelled


#: a search's parts every job shares (the policy, the opponents, the settings), set in a worker process as it
#: starts: the jobs themselves stay small (see ``map_in_processes``)
_shared: tuple | None = None


def _share(shared: tuple) -> None:
    global _shared
    _shared = shared


def _games_in_worker(job: tuple) -> tuple:
    if _shared is None:
        raise RuntimeError("a distillation worker started without the search's policy and opponents (its "
                           "pool's initializer is _share)")
    return _games(job, _shared)


def _games(job: tuple, shared: tuple) -> tuple:
    """The searched games of the deals in ``job``, ``(opponent index, deals)``; a plain function, for the
    worker processes."""
    env_name, game_kwargs, max_turns, policy, opponents, worlds, confirm_worlds, margin, seed = shared
    k, deals = job
    opponent = opponents[k]
    from tabletop_envs.core.registry import make_game

    game = make_game(env_name, **game_kwargs)
    limit = game.default_max_turns if max_turns is None else max_turns
    obs_rows, masks, own_moves, score_rows, world_counts, results = [], [], [], [], [], []
    for deal in deals:
        dealt = deal_seed(seed, deal)
        for seat in (0, 1):
            # of (deal, seat): never the deal's own stream, nor a generator that tells its seed
            own_rng, opp_rng = policy_rng(dealt, seat, 0), policy_rng(dealt, seat, 1)
            state = game.new_initial_state(dealt)
            while not state.is_terminal() and state.turn < limit:
                player = state.current_player()
                if player != seat:
                    state.apply_action(opponent.act(state.observation(player), state.legal_action_mask(), opp_rng))
                    continue
                own, legal, scores = search_scores(state, seat, policy, opponent, worlds, limit, own_rng)
                if len(legal) > 1:
                    played = worlds
                    if confirm_worlds and best_action(own, legal, scores, margin * worlds) != own:
                        # the search would teach a move: more worlds, so that fewer of those are noise
                        scores = scores + world_scores(state, seat, legal, policy, opponent, confirm_worlds, limit,
                                                       own_rng)
                        played += confirm_worlds
                    mask = state.legal_action_mask()
                    row = np.full(mask.shape[0], np.nan, np.float32)
                    row[legal] = scores / played
                    world_counts.append(played)
                    obs_rows.append(state.observation(seat).astype(np.float16))
                    masks.append(mask.astype(bool))
                    own_moves.append(own)
                    score_rows.append(row)
                state.apply_action(best_action(own, legal, scores))
            returns = state.returns() if state.is_terminal() else [0.0, 0.0]
            results.append(int(np.sign(returns[seat] - returns[1 - seat])))
    return obs_rows, masks, own_moves, score_rows, world_counts, results


def collect(env_name: str, policy, opponents: list, games: int, worlds: int, seed: int = 0,
            game_kwargs: dict | None = None, max_turns: int | None = None, workers: int = 0,
            confirm_worlds: int = 0, margin: float = 0.05) -> SearchData:
    """Searched decisions from ``games`` games (rounded up to whole deals, each from both seats), deal d
    against ``opponents[d % len(opponents)]``; ``workers`` processes (0: one per core). Where the
    search's move beats the policy's by more than ``margin`` per world, ``confirm_worlds`` more worlds
    are played."""
    game_kwargs = game_kwargs or {}
    deals = -(-games // 2)
    workers = workers or os.cpu_count() or 1
    shared = (env_name, game_kwargs, max_turns, policy, list(opponents), worlds, confirm_worlds, margin, seed)
    jobs = []
    for k in range(len(opponents)):
        mine = range(k, deals, len(opponents))  # deal d against opponent d mod len(opponents)
        # the same chunks on any number of workers (the fit reads the rows in their order), enough for 16
        chunks = max(1, min(len(mine), CHUNKS))
        jobs += [(k, mine[c::chunks]) for c in range(chunks) if len(mine[c::chunks])]  # a range: a few bytes
    cap = WINDOWS_MAX_WORKERS if sys.platform == "win32" else len(jobs)
    workers = max(1, min(workers, len(jobs), cap))  # a 64-core Windows machine hung at workers 0
    t0 = time.perf_counter()
    parts = [_games(job, shared) for job in jobs] if workers == 1 else \
        map_in_processes(_games_in_worker, jobs, workers, initializer=_share, initargs=(shared,))
    rows = [[x for part in parts for x in part[k]] for k in range(6)]
    require_rows(rows[0], f"the {games} searched games of {env_name}", "decision with more than one legal action",
                 "distill.games")
    return SearchData(np.stack(rows[0]), np.stack(rows[1]), np.asarray(rows[2], np.int64), np.stack(rows[3]),
                      np.asarray(rows[4], np.int32), np.asarray(rows[5], np.int8), time.perf_counter() - t0)


def map_in_processes(fn, jobs: list, workers: int, initializer=None, initargs: tuple = ()) -> list:
    """``[fn(job) for job in jobs]`` on ``workers`` spawned processes (spawn, not fork: the trainer's
    torch threads must not be copied into them mid-state); ``initializer(*initargs)`` runs in each as it starts.

    A concurrent.futures pool, not multiprocessing's: a worker that dies (the out-of-memory killer
    ends the biggest process) left a multiprocessing Pool waiting forever for its chunk, where this
    one raises. On an interrupt the workers are killed, not waited for: each holds a chunk of minutes.

    Keep each job small, and hand what every job needs (a policy's weights) to ``initargs``: a job larger
    than a pipe holds keeps the pool's feeder thread sending it to a worker, and a pool whose worker died
    waits for that thread, which waits for a worker still alive to read on. Before Python 3.11.5 that hung
    the trainer for ever on Ctrl-C too (CPython gh-94777).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=initializer,
                                   initargs=initargs)
    finished = broken = False
    try:
        with interrupts_left_to_the_parent():  # the processes start as the jobs are handed out
            results = executor.map(fn, jobs)
        parts = list(results)
        finished = True
        return parts
    except BrokenProcessPool:
        broken = True
        raise TabletopError(
            "a distillation worker process died before finishing its games (killed: often the system's "
            "out-of-memory killer; or it crashed). The rounds finished so far are kept: --resume continues, "
            "with fewer distill.workers if memory ran out") from None
    finally:
        # the pool's processes, read before shutdown forgets them (concurrent.futures has no public kill
        # before Python 3.14's kill_workers)
        processes = list((getattr(executor, "_processes", None) or {}).values())
        manager = getattr(executor, "_executor_manager_thread", None)
        if broken:
            # killed before the shutdown: on Python 3.12 and later a pool broken by a worker that died waits,
            # holding a lock that shutdown takes, for its other workers to end, which never see the SIGTERM it
            # sends them (interrupts_left_to_the_parent): the trainer hung for ever
            _kill(processes)
        # after it otherwise: the shutdown drops the futures an interrupt cancelled, which the pool, finding its
        # workers killed, would fail (Python 3.11 raised InvalidStateError in its thread)
        executor.shutdown(wait=finished, cancel_futures=True)
        if not finished:
            _kill(processes)
            # The pool's manager thread, finding its workers dead, closes its wake-up pipe; Python before
            # 3.12 writes to that pipe at exit without a lock, and a process stopped by Ctrl-C ended on an
            # "OSError: Bad file descriptor" traceback after its own message when the two met (CPython
            # gh-125451). Waited for here, the thread has closed the pipe before exit comes.
            if manager is not None:
                manager.join(timeout=30)


def _kill(processes: list) -> None:
    for process in processes:
        process.kill()
    for process in processes:
        process.join()


@contextlib.contextmanager
def interrupts_left_to_the_parent():
    """Processes spawned in the block never see SIGINT, SIGTERM and SIGHUP: they start with them blocked (a
    signal mask is inherited across fork and exec, as CPython's own resource tracker starts), and stay so. A
    terminal's Ctrl-C reaches the whole process group: each worker, some still importing, printed a
    KeyboardInterrupt traceback over the trainer's own message; a batch scheduler's SIGTERM (or `timeout`'s)
    reaches it too, and killed the workers first, so the trainer reported a worker killed by the
    out-of-memory killer instead of stopping as asked. Now the trainer alone stops, and kills them
    (``map_in_processes``).

    Blocked, not ignored, and the trainer's own stop deferred to the block's end: the block lasts while each
    worker is handed its start-up data (seconds on a busy machine), and the trainer ignoring the signals
    then lost a SIGTERM sent to it alone (the run went on); stopping mid-way through a worker's start left
    that worker out of the pool's list, alive after the trainer, holding its output open. On Windows, where
    nothing is inherited this way, the block changes nothing."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    from .train import interrupts_deferred

    with interrupts_deferred():
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def fit(policy, data: SearchData, margin: float = 0.05, epochs: int = 20, batch_size: int = 256,
        learning_rate: float = 3e-4, kl_coef: float = 0.1, holdout: float = 0.1, seed: int = 0,
        target: str = "move", temperature: float = 0.05, log=print) -> dict:
    """Fine-tune an sb3-contrib ``MaskableActorCriticPolicy``'s policy network toward the search: its move
    beyond ``margin`` (``target="move"``), or the policy before the fit reweighted by
    exp(score / ``temperature``) over the legal actions (``target="scores"``)."""
    import torch

    if target not in ("move", "scores"):
        raise ConfigError(f"distill target {target!r} is neither 'move' nor 'scores'")
    device = policy.device
    obs = torch.as_tensor(data.observations.astype(np.float32), device=device)
    masks = data.masks

    def log_probs(idx):
        return policy.get_distribution(obs[idx], action_masks=masks[idx]).distribution.logits

    policy.set_training_mode(False)
    with torch.no_grad():
        before = torch.cat([log_probs(np.arange(s, min(s + 4096, len(data))))
                            for s in range(0, len(data), 4096)])
    soft = None
    if target == "scores":
        # every decision speaks, in proportion to what the search measured: a tie leaves the policy's own
        # preferences as they were (its argmax is not noise to be replaced), a clear gap moves the mass
        scores = torch.as_tensor(np.nan_to_num(data.scores, nan=0.0), device=device)
        legal_all = torch.as_tensor(masks, device=device)
        soft = torch.softmax((before + scores / temperature).masked_fill(~legal_all, -torch.inf), -1)
        labels = soft.argmax(-1).cpu().numpy()
        relabelled = labels != before.argmax(-1).cpu().numpy()
    else:
        labels, relabelled = data.labels(margin)
    target_moves = torch.as_tensor(labels, device=device)
    rng = np.random.default_rng(seed)
    hold, train = holdout_split(len(data), holdout, rng)

    def agreement(idx) -> tuple[float | None, float | None]:
        """Share of ``idx`` where the policy's argmax is the label: all of them, and the relabelled ones."""
        if len(idx) == 0:
            return None, None  # (None, not NaN: the report is JSON)
        with torch.no_grad():
            hit = (log_probs(idx).argmax(-1) == target_moves[idx]).cpu().numpy()
        moved = relabelled[idx]
        return round(float(hit.mean()), 4), round(float(hit[moved].mean()), 4) if moved.any() else None

    params = [p for name, p in policy.named_parameters() if not name.startswith(("value_net", "mlp_extractor.value"))]
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    report: dict[str, Any] = {
        "samples": len(data), "target": target, "relabelled": round(float(relabelled.mean()), 4),
        **({"temperature": temperature} if soft is not None else {"margin": margin}),
        "games": int(data.results.shape[0]), "search_win_rate": round(float((data.results > 0).mean()), 4),
        "collect_seconds": round(data.seconds, 1), "holdout_before": agreement(hold), "epochs": []}
    t0 = time.perf_counter()
    for epoch in range(epochs):
        rng.shuffle(train)
        loss_sum = 0.0
        for start in range(0, len(train), batch_size):
            idx = train[start:start + batch_size]
            lp = log_probs(idx)
            ref = before[idx]
            legal = torch.as_tensor(masks[idx], device=device)
            if soft is None:
                cross_entropy = torch.nn.functional.nll_loss(lp, target_moves[idx])
            else:
                cross_entropy = -(soft[idx] * lp.masked_fill(~legal, 0.0)).sum(-1).mean()
            kl = (ref.exp() * (ref - lp)).masked_fill(~legal, 0.0).sum(-1).mean()
            loss = cross_entropy + kl_coef * kl
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 0.5)
            optimizer.step()
            loss_sum += loss.item() * len(idx)
        everything, moved = agreement(hold)
        mean_loss = loss_sum / max(len(train), 1)
        report["epochs"].append({"epoch": epoch + 1, "loss": round(mean_loss, 4),
                                 "holdout_agreement": everything, "holdout_relabelled": moved})
        log(f"[distill] epoch {epoch + 1}/{epochs}: loss {mean_loss:.3f}, held-out agreement with the labels "
            f"{percent(everything)} (where the search moved: {percent(moved)})")
    report["fit_seconds"] = round(time.perf_counter() - t0, 1)
    report["holdout_after"] = agreement(hold)
    return report


def distill(model, cfg, run_dir=None, log=print) -> dict:
    """``cfg.distill`` on the model (in place), ``cfg.distill.rounds`` rounds; the report for the run files:
    the last round's, with the earlier ones under ``earlier_rounds``.

    With ``run_dir``, each round's model and report are kept in ``<run_dir>/distill/`` and a round found
    there with the same settings over the same policy is read back instead of searched again (half an
    hour a round for Terralore): a run stopped in its second round resumes into it, and a run whose
    recipe gains a round searches only that one.
    """
    dc = cfg.distill
    settings = {"seed": cfg.seed, "deterministic": cfg.eval.deterministic, "env_kwargs": cfg.env_kwargs,
                **{k: v for k, v in dataclasses.asdict(dc).items() if k not in ("rounds", "workers")}}
    settings = json.loads(json.dumps(settings))  # as a kept report reads back (tuples as lists)
    folder = Path(run_dir) / "distill" if run_dir is not None else None
    reports = []
    for round_number in range(1, dc.rounds + 1):
        base = policy_digest(model)
        kept = _kept_round(folder, round_number, settings, base)
        if kept is not None and folder is not None:  # (a round is kept only in a folder)
            model.set_parameters(str(folder / f"round{round_number}.zip"), exact_match=True, device=model.device)
            log(f"[distill] round {round_number} of {dc.rounds}: read back from {folder} (same settings, same policy)")
            reports.append({**kept, "read_back": True})  # searched by an earlier part of the run: its time is that part's
            continue
        if dc.rounds > 1:
            log(f"[distill] round {round_number} of {dc.rounds}")
        report = _round(model, cfg, round_number, log)
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            # the report names a finished round, so it goes first and comes back last: a report of other
            # settings kept beside the model saved over its own, by a run stopped in between, paired the two
            # for a later run under those settings
            (folder / f"round{round_number}.json").unlink(missing_ok=True)
            model.save(folder / f"round{round_number}.zip")
            write_text_whole(folder / f"round{round_number}.json",
                             json.dumps({**report, "settings": settings, "base": base}, indent=2) + "\n")
        reports.append(report)
    last = dict(reports[-1])
    if len(reports) > 1:
        last["earlier_rounds"] = [{k: v for k, v in r.items() if k != "epochs"} for r in reports[:-1]]
    return last


def distill_rounds(report: dict | None) -> list[dict]:
    """Every round of a :func:`distill` report (none for None), the first first."""
    return [] if report is None else [*report.get("earlier_rounds", []), report]


def round_seconds(report: dict) -> float | None:
    """A round's search and fit seconds, None where its report lacks them."""
    collect, fit = report.get("collect_seconds"), report.get("fit_seconds")
    return None if collect is None or fit is None else collect + fit


def policy_digest(model) -> str:
    """A digest of the policy's parameters: which model a kept round started from."""
    digest = hashlib.sha256()
    for name, tensor in model.policy.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def _kept_round(folder, round_number: int, settings: dict, base: str) -> dict | None:
    """The report of a round kept in ``folder`` with these settings over the policy ``base``, or None."""
    if folder is None:
        return None
    path = folder / f"round{round_number}.json"
    if not path.exists() or not (folder / f"round{round_number}.zip").exists():
        return None
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None  # a report cut short: search the round again
    if kept.get("settings") != settings or kept.get("base") != base:
        return None  # another recipe or another policy: its data would not be this run's
    return {k: v for k, v in kept.items() if k not in ("settings", "base")}


def _round(model, cfg, round_number: int, log) -> dict:
    """One round of search and fine-tuning on the model; its report."""
    import torch

    from .evaluate import resolve, split_env_kwargs
    from .export import numpy_policy
    from .train import update_thread_count

    dc = cfg.distill
    game_kwargs, max_turns = split_env_kwargs(cfg.env_kwargs, cfg.env)
    names, opponents = zip(*(resolve(o, cfg.env, game_kwargs) for o in dc.opponents))
    policy = numpy_policy(model, deterministic=cfg.eval.deterministic)
    log(f"[distill] searching {dc.games} games against {', '.join(names)} ({dc.worlds} worlds a decision)")
    data = collect(cfg.env, policy, list(opponents), dc.games, dc.worlds,
                   seed=cfg.seed + 3000 + 1000 * (round_number - 1), game_kwargs=game_kwargs, max_turns=max_turns,
                   workers=dc.workers, confirm_worlds=dc.confirm_worlds, margin=dc.margin)
    log(f"[distill] {len(data)} searched decisions in {data.seconds:.0f} s; the search won "
        f"{100 * (data.results > 0).mean():.1f}% of its {data.results.shape[0]} games")
    threads = torch.get_num_threads()
    torch.set_num_threads(update_thread_count(cfg.ppo.update_threads))
    try:
        report = fit(model.policy, data, margin=dc.margin, epochs=dc.epochs, batch_size=dc.batch_size,
                     learning_rate=dc.learning_rate, kl_coef=dc.kl_coef, seed=cfg.seed, target=dc.target,
                     temperature=dc.temperature, log=log)
    finally:
        torch.set_num_threads(threads)
    report.update(opponents=list(names), worlds=dc.worlds, confirm_worlds=dc.confirm_worlds,
                  confirmed=int((data.worlds > dc.worlds).sum()), round=round_number)
    return report
