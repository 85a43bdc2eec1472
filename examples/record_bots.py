"""Record the shipped heuristic bots playing each game (Earth: 3 seats by default): an animated GIF per
game and, with ``--still-dir``, one still picture.

    python examples/record_bots.py                       # every game, GIFs in recordings/
    python examples/record_bots.py --games terralore --frames 30 --fps 3
    python examples/record_bots.py --still-dir docs/images   # also refresh the README pictures

The game is played once and saved as a replay (``recordings/<game>.replay.json``), then replayed
to draw the frames: each is ``env.render()`` of an env built with ``render_mode="rgb_array"`` (the
whole table, as a spectator sees it), the same frames any video wrapper would get. Needs Pillow
(``pip install 'tabletop-envs[render]'``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image

from tabletop_envs.core.play import default_opponent, resolve_env_name
from tabletop_envs.core.registry import ENVS, available_envs
from tabletop_envs.core.render import BACKGROUND, save_gif
from tabletop_envs.core.replay import Replay, record_game


def play(env_name: str, seed: int, num_players: int | None) -> Replay:
    """One game between copies of the game's heuristic bot (random where a game has none), as a replay."""
    kwargs = {} if num_players is None else {"num_players": num_players}
    env = ENVS[env_name].load_module().raw_env(**kwargs)
    return record_game(env, [default_opponent(env_name)] * env.game.num_players, seed)


def frames_of(replay: Replay, max_frames: int) -> list[np.ndarray]:
    """Pictures of at most ``max_frames`` positions spread over the game, first and last included.

    The game is replayed (and so verified) and only the kept positions are drawn: a long game costs
    its steps, not a picture per step."""
    total = len(replay.actions)
    keep = set(np.linspace(0, total, min(max_frames, total + 1)).round().astype(int).tolist())
    env = replay.make_env(render_mode="rgb_array")
    frames = []
    for index, _, _ in replay.steps(env):  # yields before action ``index``: the position after ``index`` actions
        if index in keep:
            frames.append(env.render())
    frames.append(env.render())
    return frames


def busiest(frames: list[np.ndarray]) -> np.ndarray:
    """The frame with the most drawn on it (cards on the table), from the middle of the game on."""
    middle = frames[len(frames) // 3:] or frames
    background = np.array(BACKGROUND, np.uint8)
    return max(middle, key=lambda f: int(np.count_nonzero((f != background).any(axis=2))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=None, help="games to record (default: all installed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tries", type=int, default=1, help="play this many games (seeds seed, seed+1, …), record the longest")
    parser.add_argument("--players", type=int, default=3, help="players for games with several counts (Earth)")
    parser.add_argument("--frames", type=int, default=40, help="at most this many frames per GIF")
    parser.add_argument("--fps", type=float, default=2.0)
    parser.add_argument("--out", default="recordings", help="folder for the GIFs")
    parser.add_argument("--still-dir", default=None, help="also write <game>.png (a mid-game frame) here")
    args = parser.parse_args()
    if args.tries < 1:
        parser.error(f"--tries must be at least 1, got {args.tries}")
    if args.frames < 2:  # the first and the last position
        parser.error(f"--frames must be at least 2, got {args.frames}")
    if not 0.01 <= args.fps <= 100:
        parser.error(f"--fps must be from 0.01 to 100, got {args.fps}")
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer, got {args.seed}")
    for flag, folder in (("--out", args.out), ("--still-dir", args.still_dir)):
        if folder is not None and Path(folder).exists() and not Path(folder).is_dir():
            parser.error(f"{flag} {folder!r} is a file: give a folder to write into")
    try:
        games = [resolve_env_name(g) for g in args.games] if args.games else available_envs()
    except ValueError as exc:  # an unknown game: its message names the known ones
        parser.error(str(exc))
    for env_name in games:
        players = args.players if len(ENVS[env_name].player_counts) > 1 else None
        if players is not None and players not in ENVS[env_name].player_counts:
            parser.error(f"--players {players}: {env_name} takes {', '.join(map(str, ENVS[env_name].player_counts))}")
        # the longest of a few games shows the most of the game
        replay = max((play(env_name, args.seed + k, players) for k in range(args.tries)), key=lambda r: len(r.actions))
        frames = frames_of(replay, args.frames)
        game = env_name.rsplit("_v", 1)[0]
        gif = save_gif(frames, Path(args.out) / f"{game}.gif", args.fps)
        saved = replay.save(Path(args.out) / f"{game}.replay.json")
        print(f"{env_name}: {len(replay.actions)} actions of {' vs '.join(replay.players)}, returns {replay.returns}")
        print(f"  {len(frames)} frames -> {gif}; replay -> {saved} (watch: tabletop-envs replay {saved})")
        if args.still_dir:
            still = Path(args.still_dir) / f"{game}.png"
            still.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(busiest(frames)).save(still, optimize=True)
            print(f"  still picture -> {still}")


if __name__ == "__main__":
    main()
