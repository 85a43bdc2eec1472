"""Record two shipped bots playing each game: an animated GIF per game and one still picture.

    python examples/record_bots.py                       # every game, GIFs in recordings/
    python examples/record_bots.py --games terralore --frames 30 --fps 3
    python examples/record_bots.py --still-dir docs/images   # also refresh the README pictures

Each frame is ``env.render()`` of an env built with ``render_mode="rgb_array"`` (the whole table, as
a spectator sees it), so the same frames work with any video wrapper. Needs Pillow
(``pip install 'tabletop-envs[render]'``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from PIL import Image

from tabletop_envs.core.play import default_opponent, resolve_env_name
from tabletop_envs.core.policy import load_policy
from tabletop_envs.core.registry import ENVS, available_envs
from tabletop_envs.core.render import save_gif


def record(env_name: str, seed: int, num_players: int | None, max_frames: int):
    """Play one bot-vs-bot game; returns the frames (at most ``max_frames``, spread over the game)
    and the policy ids per seat."""
    kwargs = {} if num_players is None else {"num_players": num_players}
    env = ENVS[env_name].load_module().env(render_mode="rgb_array", **kwargs)
    policy_id = default_opponent(env_name)
    policies = [load_policy(policy_id) for _ in range(env.game.num_players)]
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [env.render()]
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        player = env.agent_name_mapping[agent]
        state = env.state
        env.step(policies[player].act(state.observation(player), state.legal_action_mask(), rng))
        frames.append(env.render())
    if len(frames) > max_frames:  # spread the frames over the whole game, keeping the end
        keep = np.linspace(0, len(frames) - 1, max_frames).round().astype(int)
        frames = [frames[i] for i in keep]
    return frames, [policy_id] * env.game.num_players


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=None, help="games to record (default: all installed)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=3, help="players for games with several counts (Earth)")
    parser.add_argument("--frames", type=int, default=40, help="at most this many frames per GIF")
    parser.add_argument("--fps", type=float, default=2.0)
    parser.add_argument("--out", default="recordings", help="folder for the GIFs")
    parser.add_argument("--still-dir", default=None, help="also write <game>.png (a mid-game frame) here")
    args = parser.parse_args()
    games = [resolve_env_name(g) for g in args.games] if args.games else available_envs()
    for env_name in games:
        players = args.players if len(ENVS[env_name].player_counts) > 1 else None
        frames, seats = record(env_name, args.seed, players, args.frames)
        game = env_name.rsplit("_v", 1)[0]
        gif = save_gif(frames, Path(args.out) / f"{game}.gif", args.fps)
        print(f"{env_name}: {len(frames)} frames of {' vs '.join(seats)} -> {gif}")
        if args.still_dir:
            still = Path(args.still_dir) / f"{game}.png"
            still.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(frames[len(frames) * 2 // 3]).save(still, optimize=True)
            print(f"  still picture -> {still}")


if __name__ == "__main__":
    main()
