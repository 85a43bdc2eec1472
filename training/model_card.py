"""Write ``models/README.md`` from the shipped models' sidecars, so the numbers there are the measured ones.

    python -m training.model_card            # reads models/*/*.json, writes models/README.md
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tabletop_envs.core.errors import ConfigError, TabletopError, run_cli
from tabletop_envs.core.onnx_policy import check_sidecar

from .config import user_path
from .distill import distill_rounds
from .pretrain import percent

MODELS = Path(__file__).resolve().parents[1] / "models"
TARGETS = {"vs_random": 0.95, "vs_heuristic": 0.60}


def _rate(evaluation: dict, key: str) -> str:
    """A result row: "?" for a piece the sidecar lacks (a hand-written or older one), as the other rows do; the
    loader's checks pass a sidecar without them, and the card ended in a KeyError on it."""
    r = evaluation.get(key)
    if not r:
        return "not measured"
    win, draw = r.get("win", {}), r.get("draw", {})
    lo, hi = win.get("ci95", (None, None))
    rate = win.get("rate")
    mark = " (below target)" if rate is not None and rate < TARGETS.get(key, 0) else ""
    return f"{_percent(rate)} [{_percent(lo, '')}, {_percent(hi, '')}] of {r.get('games', '?')}, draws " \
           f"{_percent(draw.get('rate'))}{mark}"


def _percent(share, sign: str = "%") -> str:
    """A share as a percentage, or "?" where the sidecar has none, as :func:`_count` says it (pretrain's
    ``percent`` says "n/a" for a share nothing was held out to measure)."""
    return "?" if share is None else f"{100 * share:.1f}{sign}"


def _reproduce(tr: dict) -> str:
    """The run's command, or each part's in turn where it was stopped and resumed: the last part's alone
    trains from the step the part before it reached (found by a reproduction audit of the Earth model)."""
    parts = tr.get("parts")
    if not (isinstance(parts, list) and len(parts) > 1 and all(isinstance(part, dict) for part in parts)):
        return f"`{tr.get('command', '?')}`"
    return "; then ".join(f"({i}) up to step {_count(_last_step(part))}: `{part.get('command', '?')}`"
                          for i, part in enumerate(parts, 1))


def _last_step(part: dict):
    steps = part.get("steps")
    return steps[-1] if isinstance(steps, list) and steps else None


def _warm_start(pretrain: dict | None) -> str:
    if not pretrain:
        return "none (PPO from a random initialisation)"
    others = pretrain.get("decision_teachers") or {}
    taught = "".join(f", the {decision} decisions by `{name}`" for decision, name in others.items())
    by_decision = pretrain.get("holdout_agreement_by_decision") or {}
    agreed = "".join(f", {100 * by_decision[d]['agreement']:.1f}% on the {d} decisions" for d in others if d in by_decision)
    return (f"cloned `{pretrain['teacher']}`{taught} from {pretrain['games']:,} recorded games ({pretrain['samples']:,} "
            f"decisions, {pretrain['collect_seconds'] + pretrain['fit_seconds']:.0f} s), "
            f"{percent(pretrain['holdout_agreement'])} held-out agreement with it{agreed}, then PPO")


def _count(value) -> str:
    """A whole number with thousands separators, or "?" where a sidecar has none (``export_policy(...,
    training=None)`` writes no training record: its card failed on the format)."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "?"


def _minutes(seconds) -> str:
    return f"{seconds / 60:.1f}" if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else "?"


def _machine(machine: dict) -> str:
    """The training machine in words: its cores and, where the sidecar has it, its processor (a seeded
    run's weights depend on it)."""
    cores = f"a {machine.get('cpus', '?')}-core machine"
    return f"{cores} ({machine['cpu']})" if machine.get("cpu") else cores


def _distilled(distill: dict | None) -> list[str]:
    if not distill:
        return []
    rounds = distill_rounds(distill)
    return [_distill_row(r, f"search distillation, round {i} of {len(rounds)}" if len(rounds) > 1
                         else "search distillation") for i, r in enumerate(rounds, 1)]


def _distill_row(distill: dict, title: str) -> str:
    taught = ("a move other than the policy's own, by its probabilities reweighted by exp(score / "
              f"{distill['temperature']})" if distill.get("target") == "scores" else "the search's move")
    return (f"| {title} | {distill['games']:,} games against {', '.join(distill['opponents'])} searched over "
            f"{distill['worlds']} worlds a decision ({distill.get('confirmed', 0):,} confirmed over "
            f"{distill.get('confirm_worlds', 0)} more), the search winning {100 * distill['search_win_rate']:.1f}%; "
            f"{100 * distill['relabelled']:.1f}% of {distill['samples']:,} decisions taught {taught} "
            f"({distill['collect_seconds'] + distill['fit_seconds']:.0f} s) |")


def card(models_dir: Path = MODELS) -> str:
    lines = ["# Shipped opponents", "",
             "Trained by self-play MaskablePPO (`training/train.py`), exported by `training/export.py`: an ONNX",
             "graph of the policy logits, the same MLP's weights as `.npz` (the loader runs them in numpy) and a",
             "JSON sidecar with the env id, layout hashes, training command, wall time and the measured results.",
             "Load one with `tabletop_envs.load_policy(\"<env>/ppo\")` or by path; a model whose env id, version",
             "or observation layout does not match the env is refused (`ModelMismatchError`). The env row's",
             "options are the rules it was trained under; used under others it plays with a `RuleOptionsWarning`",
             "naming them (the player count and Earth's `reward` aside, any deck for a Terralore model trained",
             "on `\"random\"` decks, a fixed `first_player` for a Travel Earth model trained on the coin flip, and",
             "an Earth `data_dir` holding the cards the model learnt).", "",
             "Win rates: seat-rotated games with paired seeds (every deal played from both seats), the model",
             "acting as its evaluation row says (masked argmax or masked sampling, the loader's default too),",
             "95 % Wilson intervals. Targets: >= 95 % against random, >= 60 % against the heuristic bot.",
             "With more than two players the model and the anchor sit side by side (every deal on every ordered",
             "pair of neighbouring seats), random players fill the others, and the model wins a game when it",
             "ranks above the anchor.",
             "This file is generated by `python -m training.model_card` from the sidecars.", ""]
    found = 0
    for side in sorted(models_dir.glob("*/*.json")):
        try:
            meta = json.loads(side.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise TabletopError(f"{side} is not valid JSON ({exc}); re-export the model or remove the file") from None
        if not isinstance(meta, dict) or "env_id" not in meta:
            continue
        check_sidecar(meta, side)  # the loader's checks: an edited sidecar fails here in one line, not in a KeyError
        found += 1
        tr, ev = meta.get("training", {}), meta.get("evaluation", {})
        cfg = tr.get("config", {})
        lines += [f"## `{meta['env_id']}/{side.stem}` — `{side.relative_to(models_dir.parent).as_posix()}`", "",
                  "| | |", "|---|---|",
                  f"| env | `{meta['env_id']}` {json.dumps(meta.get('game_config', {}))}, "
                  f"{meta.get('num_players', '?')} players, {meta['observation_size']} observations, "
                  f"{meta['num_actions']} actions, layout hash `{meta['observation_layout_hash']}` |",
                  f"| network | MLP {meta['network'].get('hidden')} {meta['network'].get('activation')} |",
                  f"| training | {_count(tr.get('steps'))} learner steps, seed {tr.get('seed', '?')}, "
                  f"{_minutes(tr.get('wall_time_s'))} min wall time on {_machine(tr.get('machine', {}))} "
                  f"(load average at the end, its own work included: {tr.get('machine', {}).get('load_average_at_end', '?')})"
                  + (f", in {len(tr['parts'])} parts (stopped and resumed; each one's command, steps and seconds "
                     "are in the sidecar's training.parts)" if isinstance(tr.get("parts"), list) and len(tr["parts"]) > 1
                     else "")
                  + (", stopped early by the operator" if tr.get("stopped_early") else "")
                  + (f"; {tr['note']}" if tr.get("note") else "") + " |",
                  f"| reproduce | {_reproduce(tr)} |",
                  f"| warm start | {_warm_start(tr.get('pretrain'))} |",
                  *_distilled(tr.get("distill")),
                  f"| vs random | {_rate(ev, 'vs_random')} |",
                  f"| vs heuristic | {_rate(ev, 'vs_heuristic')} |",
                  f"| evaluation | {ev.get('protocol', '')} |",
                  f"| self-play | anchors random {cfg.get('selfplay', {}).get('random_weight')}, heuristic "
                  f"{cfg.get('selfplay', {}).get('heuristic_weight')}"
                  + "".join(f", {spec} {share}" for spec, share in cfg.get('selfplay', {}).get('opponents', {}).items())
                  + "; snapshots every "
                  f"{cfg.get('selfplay', {}).get('snapshot_every')} steps, window "
                  f"{cfg.get('selfplay', {}).get('window')}, gate {cfg.get('selfplay', {}).get('gate_win_rate')} |",
                  f"| code | {json.dumps(meta.get('code_version', {}))} |", ""]
    if not found:
        raise ConfigError(f"no exported models under {models_dir}: the card is made from <game>/<name>.json "
                          "sidecars (python -m training.export writes them); pass the folder holding them, e.g. "
                          "--models models")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--models", default=str(MODELS),
                        help="folder of <game>/<name>.json sidecars; README.md is written there (default: models/)")
    args = parser.parse_args(argv)
    models = user_path(args.models)
    if not models.exists():
        raise FileNotFoundError(f"--models {models} does not exist; pass the folder of exported models "
                                "(<game>/<name>.json sidecars), e.g. --models models")
    if not models.is_dir():
        raise ConfigError(f"--models {models} is a file; pass the folder of exported models, e.g. --models models")
    text = card(models)  # before writing: a folder without models leaves its README.md as it was
    (models / "README.md").write_text(text, encoding="utf-8")
    print(text)


def cli() -> None:
    """Command-line entry point: a missing or empty models folder ends it in one line."""
    sys.exit(run_cli(main))


if __name__ == "__main__":
    cli()
