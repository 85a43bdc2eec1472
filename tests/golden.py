"""Golden playthroughs: one seeded game per env and table size, written out move by move.

Each file under ``tests/golden/`` records, for one seeded game through the AEC env, every decision
(who moved, the action's name, how many actions were legal, a short hash of the mover's observation),
every non-zero reward, the final table as the ``ansi`` view shows it and a hash of the final engine
state. Any change of rules, catalogue, encoder, bot or chance use changes a line, and the diff of the
file says where: the test fails at the first differing line. Two-player games are recorded twice,
with random legal moves and with the heuristic bot in every seat, so the bots are pinned too.

NumPy's ``Generator`` streams are not promised to stay the same across NumPy releases (NEP 19); every
deal here is drawn from one, so a NumPy release that changed them would change these files too (and
so would every seeded replay). If a change is intended, regenerate and say why in the commit::

    python tests/golden.py              # every env
    python tests/golden.py earth_v0     # one env's files
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from tabletop_envs.core.policy import load_policy, policy_rng
from tabletop_envs.core.registry import ENVS, available_envs, get_spec

FOLDER = Path(__file__).with_name("golden")
SEED = 2026
#: (env, table size, who plays every seat): random legal moves at every table size, the heuristic bot
#: at two players (its own player count for Terralore and Travel Earth)
CASES = [(name, n, who) for name in available_envs() for n in ENVS[name].player_counts
         for who in (("random", "heuristic") if n == 2 else ("random",))]


#: fields a state gained after the traces were recorded that only record public history for
#: ``resample_hidden`` (play unchanged): left out of the final state's hash, as replays' legacy digests leave
#: out ``_optional_fields`` (Earth's record of which draw pile each card was reshuffled into, and when)
RECORDS_SINCE = ("deck_epoch", "compost_marks")


def short_hash(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:10]


def file_name(name: str, n: int, who: str) -> str:
    return f"{name}_{n}p_{who}.txt"


def playthrough(name: str, n: int, who: str) -> list[str]:
    """The golden lines of one seeded game of ``name`` at ``n`` seats, every seat played by ``who``."""
    kwargs = {"num_players": n} if len(ENVS[name].player_counts) > 1 else {}
    env = get_spec(name).load_module().env(render_mode="ansi", **kwargs)
    env.reset(seed=SEED)
    game = env.unwrapped.game
    lines = [f"# {name} {json.dumps(kwargs)} seed {SEED}, every seat: {who}",
             f"# observation layout {game.observation_layout.hash()}, action layout {game.action_layout.hash()}"]
    policy = None if who == "random" else load_policy(f"{name}/{who}", env=name)
    rng = policy_rng(SEED)
    decisions = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if reward:
            lines.append(f"  reward {agent} {reward:+g}")
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        if policy is None:
            action = int(rng.choice(legal))
        else:
            action = int(policy.act(obs["observation"], mask, rng))
        decisions += 1
        lines.append(f"{decisions:5d} {agent} legal={legal.size} obs={short_hash(obs['observation'].tobytes())} "
                     f"{env.unwrapped.action_to_string(action)}")
        env.step(action)
    state = env.unwrapped.game_state
    saved = state.to_dict()
    for name in RECORDS_SINCE:
        saved["state"].pop(name, None)
    lines.append(f"# returns {json.dumps([float(r) for r in state.returns()])}, "
                 f"state {short_hash(json.dumps(saved, sort_keys=True).encode())}")
    lines += ["# " + line if line else "#" for line in str(env.render()).splitlines()]
    env.close()
    return lines


def write_all(envs: list[str] | None = None) -> None:
    """Write the playthroughs of ``envs`` (env names; all of them by default)."""
    unknown = sorted(set(envs or ()) - set(available_envs()))
    if unknown:
        raise SystemExit(f"unknown env {', '.join(unknown)}: choose from {', '.join(available_envs())}")
    FOLDER.mkdir(exist_ok=True)
    for name, n, who in CASES:
        if envs and name not in envs:
            continue
        path = FOLDER / file_name(name, n, who)
        path.write_text("\n".join(playthrough(name, n, who)) + "\n", encoding="utf-8")
        print("wrote", path, file=sys.stderr)


if __name__ == "__main__":
    write_all(sys.argv[1:])
