"""Replays: a whole game as JSON (env version, game options, seed, actions) that reproduces every state.

A replay is stepped through the public AEC env, so it reproduces exactly what a player, a bot or a
training run saw. Chance lives in the seeded engine, so the seed and the action list are the whole
game; the digest of the final engine state proves that replaying gave back the same game. A replay
from another env version (``terralore_v0`` vs ``terralore_v1``) or with another action layout is
refused: its action ids may mean other moves there.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .aec import AEC_KWARGS, TabletopAECEnv, resolve_action
from .engine import State
from .errors import ConfigError, IllegalActionError, ReplayError, action_index, is_int
from .files import has_control, parse_json, read_json_text, user_path, write_text_whole

#: version of the replay file format itself (not of the envs)
REPLAY_FORMAT = 1
# (returns too: every replay has it, null where the game did not end, so a file without it was edited; it read as
# null, and the refusal blamed "the recorded returns None")
_REQUIRED = ("format", "env", "config", "seed", "actions", "max_turns", "action_layout_hash", "final_digest",
             "returns")


def state_digest(state: State) -> str:
    """sha256 of the engine state's canonical JSON: equal digests ⇔ equal states."""
    return _digest(state.to_dict())


def _digest(data: dict) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def library_version() -> str:
    from .. import __version__

    return __version__


@functools.cache  # one git run per process, not one per recorded game
def code_revision() -> str:
    """The git commit of this library's own checkout, with ``-dirty`` after it where tracked files differ
    from that commit, or "" (an installed wheel): the rules of an env change within one version and one
    library version (the version histories' fixes), so only the commit tells which revision recorded a
    replay or trained a model, and a bare commit would vouch for code it does not hold."""
    return git_revision(Path(__file__).resolve().parents[2])


def git_revision(root: Path) -> str:
    # only this library's own checkout: an installed wheel inside some other repository (a venv in a
    # project) would otherwise give that project's commit
    if not (root / ".git").exists():
        return ""
    try:
        sha = _git(root, "rev-parse", "--short", "HEAD")
        # untracked files aside: a checkout holds logs, runs and scratch files that change no code
        return f"{sha}-dirty" if sha and _git(root, "status", "--porcelain", "--untracked-files=no") else sha
    except (OSError, subprocess.SubprocessError):
        return ""


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=5).stdout.strip()


def _legacy_digest(state: State, recorded_config: dict) -> str:
    """The digest the revision that recorded a replay wrote for ``state``, where that revision predates a
    rule option (absent from ``recorded_config``; the game plays it as it played then) or a field a state
    may lack (``_optional_fields``, a public record such as Travel Earth's recent challenges): the same game,
    written without them."""
    data = state.to_dict()
    data["config"] = {k: v for k, v in data["config"].items() if k in recorded_config}
    for name in type(state)._optional_fields:
        data["state"].pop(name, None)
    return _digest(data)


@dataclass
class Replay:
    """One recorded game. ``seed`` is the env ``reset`` seed; ``config`` rebuilds the game (rule
    options, decks, player count); ``players`` names who sat in each seat (for people, not replay)."""

    env: str
    config: dict
    seed: int
    max_turns: int
    action_layout_hash: str
    actions: list[int] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    returns: list[float] | None = None
    final_digest: str = ""
    library_version: str = field(default_factory=library_version)
    created: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    format: int = REPLAY_FORMAT
    #: the git commit that recorded it ("" where unknown: an installed wheel, or a replay older than the field)
    revision: str = ""

    # ------------------------------------------------------------------ recording
    @classmethod
    def start(cls, env, seed: int, players: list[str] | None = None) -> Replay:
        """An empty replay for ``env`` about to be reset with ``seed``."""
        if not is_int(seed) or seed < 0:  # int() recorded 1.5 and True as seed 1, which the env refuses or reads apart
            raise ReplayError(f"a replay replays the seed its game was reset with, a non-negative int; got {seed!r} "
                              "(for a fresh deal, draw one first: seed = secrets.randbits(63))")
        replay = cls(env=env.metadata["name"], config=env.game.config(), seed=int(seed), max_turns=env.max_turns,
                     action_layout_hash=env.game.action_layout.hash(), players=list(players or []),
                     revision=code_revision())
        replay.check_players(env.game.num_players, edited=False)  # before the game: its file would be refused
        illegal = getattr(env, "illegal_action", "raise")
        if illegal != "raise":
            # an illegal move was recorded as it was chosen, not as it was played (a random legal one, or the
            # penalty's end), and the saved file was then refused as edited or as another game
            raise ReplayError(f"a replay records the moves as they are played, which an env built with "
                              f"illegal_action={illegal!r} does not do for an illegal one: record the game on an env "
                              "built with illegal_action='raise' (the default), where an illegal move raises")
        return replay

    def record(self, action: int) -> None:
        """Append the action id the env just played. Record games played under ``illegal_action="raise"`` (the
        default): under ``"random_legal"`` or ``"penalty"`` an illegal action is not the move that was played
        (or ends the game), and the replay would not play out."""
        index = action_index(action)
        if index is None:  # int() would record 2.5 as action 2, a move nobody chose
            raise ReplayError(f"an action id is an int (or a NumPy integer), got {action!r}")
        self.actions.append(index)

    def finish(self, env) -> None:
        """Seal the replay with the result and the digest of the final state."""
        state = env.game_state
        self.returns = state.returns().tolist() if state.is_terminal() else None
        self.final_digest = state_digest(state)

    # ------------------------------------------------------------------ files
    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    def save(self, path: str | Path) -> Path:
        path = user_path(path)  # "~/game.json" is the home folder's, as a shell would read it
        if not self.final_digest:
            raise ReplayError("replay not finished: call finish(env) before saving so it can be verified")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_whole(path, self.to_json())
        return path

    @classmethod
    def from_json(cls, text: str, source: str = "replay") -> Replay:
        try:
            data = parse_json(text)
        except ValueError as exc:
            raise ReplayError(f"{source} is not valid JSON ({exc}); pass a file written by 'tabletop-envs play'") from None
        if not isinstance(data, dict):
            raise ReplayError(f"{source} must hold a JSON object, got {type(data).__name__}")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise ReplayError(f"{source} lacks the fields {missing}; it is not a tabletop-envs replay")
        if not is_int(data["format"]):
            # "1", true or 1.0 for 1: an edit, not another library version (true and 1.0 equal 1 in Python,
            # and loaded as format 1)
            raise ReplayError(f"{source}: 'format' must be the number {REPLAY_FORMAT}, got {data['format']!r}; the "
                              "file was edited or is not a tabletop-envs replay")
        if data["format"] != REPLAY_FORMAT:
            raise ReplayError(f"{source} has replay format {data['format']!r}; this library reads format "
                              f"{REPLAY_FORMAT}. Use tabletop-envs {data.get('library_version', '?')} to replay it")
        if not isinstance(data["actions"], list) or not all(is_int(a) for a in data["actions"]):
            raise ReplayError(f"{source}: 'actions' must be a list of integer action ids")
        returns, players = data.get("returns"), data.get("players", [])
        # checked here, not when first used: that is after the whole game was shown, or a traceback
        for key, ok, what in (
                ("env", isinstance(data["env"], str), "an env name"),
                ("config", isinstance(data["config"], dict), "a mapping of rule options"),
                ("seed", is_int(data["seed"]) and data["seed"] >= 0, "a non-negative integer"),
                # (below 1: the env refused it, blaming the replay's rule options)
                ("max_turns", is_int(data["max_turns"]) and data["max_turns"] >= 1, "a positive integer"),
                ("action_layout_hash", isinstance(data["action_layout_hash"], str), "a string"),
                ("final_digest", isinstance(data["final_digest"], str), "a sha256 hex string"),
                ("returns", returns is None or (isinstance(returns, list) and all(
                    isinstance(r, (int, float)) and not isinstance(r, bool) for r in returns)),
                 "null or a list of numbers"),
                ("players", isinstance(players, list) and all(isinstance(p, str) for p in players),
                 "a list of names"),
                ("revision", isinstance(data.get("revision", ""), str), "a git commit (a string)"),
                # shown when it is watched and named in a refusal: a list or a number there was printed as it was
                ("library_version", isinstance(data.get("library_version", ""), str), "a version (a string)"),
                ("created", isinstance(data.get("created", ""), str), "a date (a string)")):
            if not ok:
                raise ReplayError(f"{source}: {key!r} must be {what}, got {data.get(key)!r}; the file was edited "
                                  "or is not a tabletop-envs replay")
        # printed as they are (the seats when it is watched, the revision in a refusal): a control character
        # there is a command to the terminal (a window title, a cleared screen) from whoever wrote the file
        shown = [(key, data.get(key)) for key in ("env", "action_layout_hash", "final_digest", "revision",
                                                  "library_version", "created")] + [("players", p) for p in players]
        for key, value in shown:  # (not "text": that is the file's)
            if isinstance(value, str) and has_control(value):
                raise ReplayError(f"{source}: {key!r} holds control characters ({value!r}); the file was edited or is "
                                  "not a tabletop-envs replay")
        # the game's config never holds these (Game.config()): make_env passes max_turns itself, so a copy
        # in the config raised TypeError there, and the others are the env's, not the rules'
        face = sorted(set(data["config"]) & set(AEC_KWARGS))
        if face:
            raise ReplayError(f"{source}: 'config' holds the env option(s) {face}, which are not rule options "
                              "(max_turns is a field of its own); the file was edited or is not a tabletop-envs replay")
        known = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        if isinstance(path, str) and not path.strip():  # Path("") is ".": it was refused as a folder
            raise ReplayError(f"no replay file named {path!r}: pass the replay's .json file, e.g. game.json")
        path = user_path(path)
        if path.is_dir():
            raise ReplayError(f"{str(path)!r} is a folder; pass the replay's .json file in it")
        if not path.exists():  # (a link to a device is there: it is refused as no regular file, below)
            raise ReplayError(f"no replay file at {str(path)!r}")
        try:
            text = read_json_text(path)
        except UnicodeDecodeError as exc:
            raise ReplayError(f"{path} is not UTF-8 text (byte {exc.start}: {exc.reason}); pass a file written by "
                              "'tabletop-envs play'") from None
        except ValueError as exc:
            raise ReplayError(f"{path} is not a replay: {exc}; pass a file written by 'tabletop-envs play'") from None
        return cls.from_json(text, source=str(path))

    # ------------------------------------------------------------------ playback
    def make_env(self, **env_kwargs: Any) -> TabletopAECEnv:
        """A fresh env of this replay's version and options, reset with its seed.

        ``env_kwargs`` may be ``render_mode`` and ``illegal_action`` only: the rule options and ``max_turns``
        are the recorded ones, and any other keyword is a ReplayError. Raises ReplayError when this library
        has another version of the env or another action layout.
        """
        from .registry import ENVS, env_family

        if self.env not in ENVS:
            others = [name for name in ENVS if env_family(name) == env_family(self.env)]
            if others:
                raise ReplayError(
                    f"this replay was recorded with {self.env} ({self._recorded_by()}) but this "
                    f"library provides {', '.join(others)}; action ids differ between env versions, so it "
                    f"cannot be replayed here. Install tabletop-envs=={self.library_version} to replay it.")
            raise ReplayError(f"replay of unknown env {self.env!r}; known envs: {sorted(ENVS)}")
        module = ENVS[self.env].load_module()
        # the game is the replay's own: a rule option or max_turns given here met its recorded twin as a
        # TypeError ("got multiple values"), or, for an option the replay leaves to its default, changed
        # the rules it is replayed under until the final digest disagreed
        own = sorted(set(env_kwargs) - {"render_mode", "illegal_action"})
        if own:
            raise ReplayError(f"make_env({', '.join(f'{k}=...' for k in own)}): a replay is replayed under the "
                              f"rule options and max_turns it was recorded with (config {self.config}, max_turns "
                              f"{self.max_turns}); make_env takes only render_mode and illegal_action")
        try:
            env = module.raw_env(max_turns=self.max_turns, **env_kwargs, **self.game_config())
        except ConfigError as exc:  # the env's own words alone blamed the reader's arguments, not the file
            raise ReplayError(f"this replay's rule options (its 'config') do not fit {self.env}, the game it names: "
                              f"{str(exc).rstrip('.')}; the file was edited, or holds another game's replay: replay "
                              "a file as 'tabletop-envs play' wrote it") from None
        self.check_players(env.game.num_players)
        if env.game.action_layout.hash() != self.action_layout_hash:
            raise ReplayError(
                f"this replay's action layout ({self.action_layout_hash}) differs from {self.env}'s in this "
                f"library ({env.game.action_layout.hash()}): the env changed without a version bump. "
                + self._where_to_replay())
        env.reset(seed=self.seed)
        return env

    def game_config(self) -> dict:
        """The rule options this replay's game was played under, the ones it predates included."""
        from .registry import played_config

        return played_config(self.env, self.config)

    def check_players(self, num_players: int, edited: bool = True) -> None:
        """Raise ReplayError unless ``players`` names every seat of the game, or none (an unnamed table): a name
        too few was shown as "?" when the replay was watched, and one too many was never shown."""
        if self.players and len(self.players) != num_players:
            raise ReplayError(f"'players' names {len(self.players)} seat{'s' * (len(self.players) != 1)} "
                              f"({self.players!r}), and this {self.env} game has {num_players}: list one name per "
                              "seat in seat order, or none ([])"
                              + ("; the file was edited or is not a tabletop-envs replay" if edited else ""))

    def check_env(self, env) -> None:
        """Raise ReplayError unless ``env`` plays this replay's game: its env, rule options and max_turns."""
        from .registry import make_game

        name = env.metadata.get("name")
        if name != self.env:
            raise ReplayError(f"this replay is of {self.env}, and the env given to replay it on is {name}")
        recorded = json.loads(json.dumps(make_game(self.env, **self.game_config()).config()))
        here = json.loads(json.dumps(env.game.config()))
        differ = [f"{k}={recorded.get(k, '(absent)')!r} recorded, {here.get(k, '(absent)')!r} in the env"
                  for k in sorted(set(recorded) | set(here)) if recorded.get(k, "(absent)") != here.get(k, "(absent)")]
        if env.max_turns != self.max_turns:
            differ.append(f"max_turns={self.max_turns} recorded, {env.max_turns} in the env")
        if differ:
            # else the actions play on under other rules, and only the final digest (if verified) tells,
            # blaming a rule change without a version bump or an edited file
            raise ReplayError(f"the env given to replay this game on has other rules: {'; '.join(differ)}. "
                              "Replay it on replay.make_env(), which builds the game it was recorded under")
        self.check_players(env.game.num_players)

    def steps(self, env=None, verify: bool = True) -> Iterator[tuple[int, int, int]]:
        """Replay the game on ``env`` (default: a fresh one; one given must be of this replay's rule options
        and max_turns, reset with its seed), yielding ``(index, player, action)`` before each action is
        applied; verifies the final state's digest after the last one (``verify=False``: not, for a replay
        not yet finished)."""
        if env is None:
            env = self.make_env()
        else:
            self.check_env(env)
        for index, action in enumerate(self.actions):
            if _over(env):
                # numbered from 1, as the viewer numbers the actions it shows
                extra = len(self.actions) - index
                raise ReplayError(f"replay has {extra} action{'s' if extra > 1 else ''} after the game ended "
                                  f"(from action #{index + 1} of {len(self.actions)}); " + self._edited())
            player = env.agent_name_mapping[env.agent_selection]
            try:  # before it is yielded: a watcher names the action it shows, and an id out of range has no name
                resolve_action(env.game_state, action, "raise", None)
            except IllegalActionError as exc:
                ending = self._edited("its seed, options or actions belong to another game")
                raise ReplayError(f"action #{index + 1} ({action}) is illegal in the replayed game: {exc.reason}. "
                                  + ending[0].upper() + ending[1:]) from None
            yield index, player, action
            env.step(action)
        if verify:
            self.verify(env)

    def verify(self, env) -> None:
        """Raise ReplayError unless ``env``'s engine state has the recorded final digest and returns."""
        digest = state_digest(env.game_state)
        if digest != self.final_digest and _legacy_digest(env.game_state, self.config) != self.final_digest:
            raise ReplayError(
                f"replayed final state differs from the recorded one (digest {digest[:12]} vs "
                f"{self.final_digest[:12]}): " + self._edited())
        # the digest covers the state, not the returns written next to it, which the replay shows
        state = env.game_state
        returns = state.returns().tolist() if state.is_terminal() else None
        if returns != self.returns:
            raise ReplayError(f"the recorded returns {self.returns} differ from the replayed game's {returns}: "
                              "the file was edited")

    def _recorded_by(self) -> str:
        return f"tabletop-envs {self.library_version}" + (f" at commit {self.revision}" if self.revision else "")

    def _where_to_replay(self) -> str:
        """Which library replays this file, for a message that refuses it here."""
        if self.library_version != library_version():
            return f"Replay it with tabletop-envs=={self.library_version}" + (
                f" (commit {self.revision})." if self.revision else ".")
        # the same version number: naming it sent the user to the library they already have
        if self.revision.endswith("-dirty"):
            commit = self.revision.removesuffix("-dirty")
            return (f"It was recorded from a checkout with uncommitted changes on top of commit {commit}: replay it "
                    f"there, with those changes (this is {code_revision() or 'an installed copy'}).")
        if self.revision:
            return (f"Replay it with the revision that recorded it: git checkout {self.revision} of tabletop-envs "
                    f"(this is {code_revision() or 'an installed copy'}).")
        return (f"The replay does not record the revision that made it (recorded {self.created or 'at an unknown date'} "
                f"by tabletop-envs {self.library_version}, as this is): replay it with a checkout of tabletop-envs "
                "from that date.")

    def _edited(self, also: str = "") -> str:
        """The ending of a message for a replay that played out otherwise here: edited, or (``also``), or
        recorded by another revision."""
        if self.revision and not self.revision.endswith("-dirty") and self.revision == code_revision():
            # recorded by this very commit, which plays its actions as it did then: naming it to check out
            # led back to the same error
            return (f"the file was edited{', or ' + also if also else ''}: this checkout is the revision that "
                    f"recorded it (commit {self.revision}), so no other one replays it; restore the file, or "
                    "record the game again")
        return "the file was edited, " + (f"or {also}, " if also else "") + "or " + self._other_revision()

    def _other_revision(self) -> str:
        """The ending of a message for a replay that played out otherwise here."""
        return (f"it was recorded ({self._recorded_by()}) before a fix of {self.env}'s rules: a fix that makes play "
                "follow the rule text keeps the env version (see the env's version history), and the same "
                "actions then make another game. " + self._where_to_replay())

    def replay(self, **env_kwargs: Any) -> TabletopAECEnv:
        """Replay the whole game silently and return the env at the final state (verified)."""
        env = self.make_env(**env_kwargs)
        for _ in self.steps(env):
            pass
        return env


def record_game(env, policies, seed: int, players: list[str] | None = None) -> Replay:
    """Play one game between ``policies`` on the AEC ``env`` reset with ``seed`` and return it as a finished
    replay (``replay.save(path)`` writes it). ``policies`` holds one policy per seat, or an id or path
    ``load_policy`` takes; ``players`` names the seats (default: the policies' names). Each policy sees what
    the arena shows it (its seat's observation and the mask) and draws from ``policy_rng(seed, seat)``. The
    deal is ``env.reset(seed=seed)``'s, not ``play_game``'s of the same seed."""
    from .policy import load_policy, policy_name, policy_rng, restart_policies
    from .single_agent import check_opponent_move

    num_players = env.game.num_players
    if isinstance(policies, (str, os.PathLike)) or hasattr(policies, "act") or len(policies) != num_players:
        raise ValueError(f"record_game takes one policy per seat ({num_players}), got {policies!r}")
    loaded = [load_policy(p, env=env.metadata["name"], game_config=env.game.config()) for p in policies]
    replay = Replay.start(env, seed, [policy_name(p) for p in policies] if players is None else players)
    env.reset(seed=seed)
    restart_policies(loaded)
    rngs = [policy_rng(seed, seat) for seat in range(num_players)]
    while not _over(env):
        seat = env.agent_name_mapping[env.agent_selection]
        state = env.game_state
        mask = state.legal_action_mask()
        # named after the policy at fault, as the arena does: the env's own error advised building it with
        # illegal_action='penalty' or 'random_legal', which Replay.start refuses
        action = check_opponent_move(loaded[seat].act(state.observation(seat), mask, rngs[seat]), mask,
                                     policies[seat], seat, state, role="policy")
        env.step(action)
        replay.record(action)
    replay.finish(env)
    return replay


def _over(env) -> bool:
    agent = env.agent_selection
    return env.terminations[agent] or env.truncations[agent]
