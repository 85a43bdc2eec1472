"""The main job, end to end in a few minutes: train a small Terralore agent, evaluate it, export it.

    python -m training.main_job                       # configs/main_job.yaml
    python -m training.main_job --set ppo.total_timesteps=20000 --games 100

1. trains MaskablePPO by self-play from the recipe (opponent pool, scheduled evaluation, TensorBoard);
2. exports it (``<run>/ppo.onnx`` + ``.npz`` + ``.json``, loadable with ``tabletop_envs.load_policy``);
3. plays a seat-rotated, seed-paired round robin of the new agent against the shipped opponents
   (random, the heuristic bot and the shipped PPO model where ``models/<game>/ppo.onnx`` exists);
4. prints a summary and writes ``main_job.md`` / ``main_job.json`` / ``elo.png`` in the run folder.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from tabletop_envs.core.errors import ConfigError, run_cli
from tabletop_envs.core.files import write_text_whole
from tabletop_envs.core.onnx_policy import model_path_for_id
from tabletop_envs.core.registry import make_game

from .config import load_config, shipped_recipes_dir
from .evaluate import check_games, check_two_seats, elo_png, markdown, round_robin, split_env_kwargs
from .train import sigterm_as_interrupt, tensorboard_dir, train

DEFAULT_CONFIG = shipped_recipes_dir() / "main_job.yaml"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--config", default=str(DEFAULT_CONFIG), help="training recipe (default: configs/main_job.yaml)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one recipe key, e.g. --set ppo.total_timesteps=20000")
    parser.add_argument("--games", type=int, default=200, help="games per pair in the round robin")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    cfg = load_config(args.config, args.overrides)
    check_games(args.games)  # the round robin's arguments are checked before the training, not after it
    if not cfg.output.export:
        raise ConfigError("the main job plays the exported agent in its round robin, so output.export must be true; "
                          "drop --set output.export=false (python -m training.train trains without exporting)")
    game_kwargs, max_turns = split_env_kwargs(cfg.env_kwargs, cfg.env)
    check_two_seats(cfg.env, make_game(cfg.env, **game_kwargs).num_players)
    cfg.eval.final_games = 0  # the round robin below is the final evaluation
    recorded = ["--config", args.config] * (args.config != str(DEFAULT_CONFIG))
    for override in args.overrides:
        recorded += ["--set", override]
    command = " ".join(["python -m training.main_job", *map(shlex.quote, recorded)])
    print(f"[1/3] training {cfg.env} for {cfg.ppo.total_timesteps} steps -> {cfg.run_dir()}", flush=True)
    with sigterm_as_interrupt():  # a SIGTERM stops the training as Ctrl-C does, and the job goes on with it
        summary = train(cfg, command=command)
    trained = summary["exported"]

    print(f"[2/3] round robin, {args.games} seat-rotated games per pair", flush=True)
    opponents = ["random", "heuristic"]
    if model_path_for_id(f"{cfg.env}/ppo") is not None:
        opponents.append("ppo")
    policies = [trained, *opponents]
    report = round_robin(cfg.env, policies, args.games, seed=cfg.seed + 99, game_kwargs=game_kwargs,
                         max_turns=max_turns)
    report["policies"] = ["new agent" if p == trained else p for p in report["policies"]]
    report["elo"] = {("new agent" if k == trained else k): v for k, v in report["elo"].items()}
    for pair in report["pairs"]:
        pair["a"] = "new agent" if pair["a"] == trained else pair["a"]

    run_dir = Path(summary["run_dir"])
    result = {"env": cfg.env, "steps": summary["steps"], "train_seconds": summary["train_seconds"],
              "total_seconds": round(time.perf_counter() - started, 1), "exported": trained,
              "learning_curve": summary.get("learning_curve"), "round_robin": report}
    write_text_whole(run_dir / "main_job.json", json.dumps(result, indent=2) + "\n")
    table = markdown(report)
    write_text_whole(run_dir / "main_job.md", table + "\n")
    elo_png(report, run_dir / "elo.png")

    print("[3/3] summary")
    print(f"trained {summary['steps']} steps in {summary['train_seconds']:.0f} s "
          f"({summary.get('steps_per_second') or 0:.0f} steps/s); total {result['total_seconds']:.0f} s")
    print(table)
    print(f"exported policy: {trained}  (tabletop_envs.load_policy({trained!r}))")
    # only what was written: with output.learning_curve or output.tensorboard off it named files never made
    made = [f"learning curve: {summary['learning_curve']}"] if summary.get("learning_curve") else []
    if cfg.output.tensorboard:
        made.append(f"TensorBoard: tensorboard --logdir {tensorboard_dir(cfg, run_dir)}")
    if made:
        print("; ".join(made))
    return result


def cli() -> None:
    """Console-script entry point: an error of the arguments or the recipe ends it in one line."""
    sys.exit(run_cli(main))


if __name__ == "__main__":
    cli()
