"""The envs this library ships: one entry per game and version.

Imported by ``tabletop_envs/__init__.py`` to register every env with PettingZoo's and Gymnasium's
registries; game modules are imported lazily so ``import tabletop_envs`` stays light.
"""

from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .errors import UnknownEnvError

if TYPE_CHECKING:
    from .engine import Game


@dataclass(frozen=True)
class EnvSpec:
    env_name: str  # "terralore_v0"
    module: str  # module exposing env(), raw_env, Game
    pettingzoo_id: str  # "tabletop_envs/terralore-v0"
    gymnasium_id: str  # "tabletop_envs/Terralore-v0"
    player_counts: tuple[int, ...]
    policies_module: str  # registers "<env_name>/heuristic" etc. on import
    models_dir: str  # folder under models/ with shipped trained policies

    def load_module(self) -> ModuleType:
        return importlib.import_module(self.module)


ENVS: dict[str, EnvSpec] = {
    "terralore_v0": EnvSpec("terralore_v0", "tabletop_envs.terralore.env", "tabletop_envs/terralore-v0",
                            "tabletop_envs/Terralore-v0", (2,), "tabletop_envs.terralore.bots", "terralore"),
    "travel_earth_v0": EnvSpec("travel_earth_v0", "tabletop_envs.travel_earth.env", "tabletop_envs/travel_earth-v0",
                               "tabletop_envs/TravelEarth-v0", (2,), "tabletop_envs.travel_earth.bots",
                               "travel_earth"),
    "earth_v0": EnvSpec("earth_v0", "tabletop_envs.earth.env", "tabletop_envs/earth-v0", "tabletop_envs/Earth-v0",
                        (1, 2, 3, 4, 5), "tabletop_envs.earth.bots", "earth"),
}


def env_family(env_name: str) -> str:
    """The game of an env name, its version suffix dropped: ``"terralore_v0"`` → ``"terralore"``."""
    return env_name.rsplit("_v", 1)[0]


def env_version(env_name: str) -> int:
    """The number of an env name's ``_vN`` suffix (-1 without one): versions compare as numbers, so that
    ``_v10`` is newer than ``_v2``."""
    number = env_name.rsplit("_v", 1)[1] if "_v" in env_name else ""
    return int(number) if number.isdigit() else -1


def import_if_written(name: str) -> ModuleType | None:
    """The module ``name``, or None where no such module is written; a library it imports that is missing
    still raises, naming that library (a game's optional module is not written yet, its dependency is)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def available_envs() -> list[str]:
    """Env names whose module imports (all of them in a complete checkout)."""
    out = []
    for name, spec in ENVS.items():
        try:
            spec.load_module()
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith(spec.module.rsplit(".", 1)[0]):
                continue
            raise
        out.append(name)
    return out


def get_spec(env_name: str) -> EnvSpec:
    try:
        return ENVS[env_name]
    except (KeyError, TypeError):
        raise UnknownEnvError(f"unknown env {env_name!r}; known: {sorted(ENVS)}{env_hint(env_name)}") from None


def env_hint(env_name) -> str:
    """``"; did you mean 'terralore_v0'?"`` for a near miss (a typo, another version, the game's name alone,
    or the Gymnasium / PettingZoo id ``tabletop_envs/Terralore-v0``), else ``""``: the option names and
    recipe keys say as much of theirs."""
    key = str(env_name).rpartition("/")[2].lower().replace("-", "_")
    close = [key] if key in ENVS else difflib.get_close_matches(key, list(ENVS), n=1)
    return f"; did you mean {close[0]!r}?" if close and close[0] != env_name else ""


def make_game(env_name: str, **game_kwargs: Any) -> Game:
    return get_spec(env_name).load_module().raw_env.game_class.build(**game_kwargs)


def played_config(env_name: str, recorded: dict) -> dict:
    """The rule options a game recorded under ``recorded`` (a replay's, a sidecar's, a run's) was played
    by: an option added since took the value that plays as the game played then, not its default."""
    return {**get_spec(env_name).load_module().raw_env.game_class.options_before_they_existed, **recorded}


def shipped_folder(packaged: Path, top_level: str) -> Path:
    """Where shipped data lies: ``packaged`` inside an installed wheel (pyproject maps the checkout's
    top-level folders there), else the checkout's ``top_level`` folder."""
    return packaged if packaged.is_dir() else Path(__file__).resolve().parents[2] / top_level
