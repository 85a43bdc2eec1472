"""The conformance harness every registered env and player count runs (see tests/test_conformance.py).

Each check raises AssertionError with a message naming the env, the seed and the step, so a failure
can be replayed. The checks raise it themselves, not with ``assert``, which ``python -O`` strips. Checks take an ``env_name`` and ``game_kwargs`` and build what they need.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np

from .engine import TERMINAL, State, check_json_roundtrip
from .registry import get_spec

# Warnings api_test may raise that are expected, each with its reason. Anything else fails.
API_TEST_ALLOWED_WARNINGS: tuple[str, ...] = (
    # Both come from the PettingZoo classic convention we follow on purpose: the observation is a
    # Dict {"observation": Box, "action_mask": Box}, which api_test's generic checks expect to be a
    # bare Box/ndarray. The "observation" entry itself is checked against its Box by api_test.
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
)


def env_fn(env_name: str, **kwargs):
    module = get_spec(env_name).load_module()
    return lambda **extra: module.env(**{**kwargs, **extra})


def make_game(env_name: str, **game_kwargs):
    return get_spec(env_name).load_module().raw_env.game_class(**game_kwargs)


def random_playout(state, rng: np.random.Generator, max_steps: int = 100_000, visit=None):
    """Play uniformly random legal actions to the end; ``visit(state)`` is called at every decision."""
    steps = 0
    while not state.is_terminal():
        # asked before a move, not after it: a game ending on its max_steps-th decision was refused
        if steps >= max_steps:
            raise AssertionError(f"game did not end within {max_steps} decisions")
        if visit is not None:
            visit(state)
        mask = state.legal_action_mask()
        legal = np.flatnonzero(mask)
        if legal.size < 1:
            raise AssertionError(f"no legal action at step {steps} for player {state.current_player()}")
        state.apply_action(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps


def check_api(env_name: str, game_kwargs: dict, num_cycles: int = 300) -> None:
    from pettingzoo.test import api_test

    env = env_fn(env_name, **game_kwargs)()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    bad = [str(w.message) for w in caught if not str(w.message).startswith(API_TEST_ALLOWED_WARNINGS)]
    if bad:
        raise AssertionError(f"api_test warnings for {env_name} {game_kwargs}: {bad}")


def check_parallel(env_name: str, game_kwargs: dict, num_cycles: int = 200) -> None:
    """PettingZoo's turn-based AEC-to-parallel conversion passes ``parallel_api_test`` with warnings as
    errors, and its ``state()`` is the observations it hands out, seat by seat (MARL libraries that take
    parallel envs use both)."""
    from pettingzoo.test import parallel_api_test
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(turn_based_aec_to_parallel(env_fn(env_name, **game_kwargs)()), num_cycles=num_cycles)
    bad = [str(w.message) for w in caught if not str(w.message).startswith(API_TEST_ALLOWED_WARNINGS)]
    if bad:
        raise AssertionError(f"parallel_api_test warnings for {env_name} {game_kwargs}: {bad}")
    par = turn_based_aec_to_parallel(env_fn(env_name, **game_kwargs)())
    observations, _ = par.reset(seed=5)
    np.testing.assert_array_equal(par.state(), np.concatenate([observations[a]["observation"] for a in par.agents]))
    if not par.state_space.contains(par.state()):
        raise AssertionError(f"{env_name} {game_kwargs}: the parallel env's state() is outside its state_space")


def check_seed(env_name: str, game_kwargs: dict, num_cycles: int = 300) -> None:
    from pettingzoo.test import seed_test

    seed_test(env_fn(env_name, **game_kwargs), num_cycles=num_cycles)


def _told(info: dict) -> list:
    """An info dict in full (repr() shortens a long array with "...")."""
    return sorted((k, v.tobytes() if isinstance(v, np.ndarray) else repr(v)) for k, v in info.items())


def seeded_trace(env, seed: int | None, games: int = 3, steps: int = 150) -> list:
    """What every seat is told along ``games`` games, the first from ``env.reset(seed=seed)`` and the others
    from unseeded resets (which a seed fixes too), the moves drawn uniformly from the legal ones by a
    generator of the test's own: each observation, mask, reward, flag and info, up to ``steps`` a game."""
    rng = np.random.default_rng(0)
    trace = []
    for game in range(games):
        env.reset(seed=seed if game == 0 else None)
        for agent in env.agent_iter(steps):
            obs, reward, terminated, truncated, info = env.last()
            trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, terminated,
                          truncated, _told(info)))
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


def single_agent_trace(env, seed: int | None, games: int = 3, steps: int = 100) -> list:
    """:func:`seeded_trace` for a :class:`~tabletop_envs.core.single_agent.SingleAgentEnv`: the learner's seat,
    observations, masks, rewards, flags and infos along ``games`` episodes."""
    rng = np.random.default_rng(0)
    trace: list[tuple] = []
    for game in range(games):
        obs, info = env.reset(seed=seed if game == 0 else None)
        trace.append((obs.tobytes(), _told(info)))
        for _ in range(steps):
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            trace.append((obs.tobytes(), reward, terminated, truncated, _told(info)))
            if terminated or truncated:
                break
    return trace


def _global_generators() -> tuple:
    import random

    kind, key, pos, gauss, cached = np.random.get_state()
    return random.getstate(), kind, np.asarray(key).tobytes(), pos, gauss, cached


def check_seed_independence(env_name: str, game_kwargs: dict, seed: int = 7, opponent: str | None = None) -> None:
    """A seeded game is the same game whatever the process's global generators hold (``random``, NumPy's
    legacy ``np.random``), and playing it leaves them as they were: a user's own seeding neither changes
    our games nor is changed by them. The same env object replays the seed after other games, a second env
    plays it alike, and an unseeded reset deals a game other than the last (Gymnasium's semantics). The same
    for the single-agent face, its seats and opponents included: each drawn per seat and episode, as an
    opponent pool draws them, between the random policy and ``opponent`` (a policy id; None: random only)."""
    import random

    from .policy import RandomPolicy, load_policy
    from .single_agent import SingleAgentEnv

    kinds = [RandomPolicy(), load_policy(opponent or RandomPolicy())]

    def pool(rng: np.random.Generator):
        return kinds[int(rng.integers(2))]

    make = env_fn(env_name, **game_kwargs)
    chance = make_game(env_name, **game_kwargs).chance
    faces = {"the AEC env": (make, seeded_trace),
             "the single-agent env": (lambda: SingleAgentEnv(env_name, opponent=pool, **game_kwargs),
                                      single_agent_trace)}
    saved = random.getstate(), np.random.get_state()  # as they are: _global_generators() holds the key as bytes
    try:
        for face, (build, trace) in faces.items():
            env = build()
            random.seed(1)
            np.random.seed(1)
            before = _global_generators()
            first = trace(env, seed)
            if _global_generators() != before:
                raise AssertionError(f"{env_name} {game_kwargs}: a seeded game of {face} read or moved the global "
                                     "generators (random or np.random)")
            random.seed(2)
            np.random.seed(2)
            unseeded = [trace(env, None) for _ in range(2)]
            if trace(env, seed) != first or trace(build(), seed) != first:
                raise AssertionError(f"{env_name} {game_kwargs}: seed {seed} dealt {face} another game after other "
                                     "games, in another env, or under other global seeds")
            if not chance and face == "the AEC env":  # the single-agent face draws seats and opponents anyway
                if trace(env, seed + 1) != first or unseeded[0] != first:
                    raise AssertionError(f"{env_name} {game_kwargs}: a game declaring chance = False dealt {face} "
                                         "another game for another seed: it has chance (drop chance = False)")
                continue
            if unseeded[0] == unseeded[1] or first in unseeded:
                raise AssertionError(f"{env_name} {game_kwargs}: an unseeded reset of {face} dealt the game before "
                                     "it again (a game without chance declares chance = False on its Game)")
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])


def _ended(env) -> bool:
    return not env.agents or env.terminations[env.agent_selection] or env.truncations[env.agent_selection]


def _random_moves(env, rng, count: int) -> int:
    """Up to ``count`` random legal moves, fewer where the game ends first; returns how many."""
    for played in range(count):
        if _ended(env):
            return played
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    return count


def check_pickle(env_name: str, game_kwargs: dict, seed: int = 3, steps: int = 40) -> None:
    """A pickled env mid-game continues exactly like the original: pickled after ``steps // 2`` random
    moves, or halfway through a game that ends sooner (the same deal and moves again), then ``steps``
    more moves compared."""
    env = env_fn(env_name, **game_kwargs)()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    played = _random_moves(env, rng, steps // 2)
    if _ended(env):  # pickled at the end, the copy would be compared over no move at all
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        _random_moves(env, rng, played // 2)
    copy = pickle.loads(pickle.dumps(env))
    for _ in range(steps):
        if _ended(env):
            break
        obs_a = env.observe(env.agent_selection)
        obs_b = copy.observe(copy.agent_selection)
        if env.agent_selection != copy.agent_selection:
            raise AssertionError(f"{env_name}: the unpickled copy moves {copy.agent_selection}, the original {env.agent_selection}")
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        action = int(rng.choice(np.flatnonzero(obs_a["action_mask"])))
        env.step(action)
        copy.step(action)
    if env.game_state != copy.game_state:
        raise AssertionError(f"{env_name}: the unpickled copy's game state differs after the same moves (seed {seed})")


def check_global_state(env_name: str, game_kwargs: dict, seed: int = 4) -> None:
    """PettingZoo's ``state()`` is every seat's observation, seat by seat, inside ``state_space``, from
    the deal to the end; before the first reset it asks for one. PettingZoo's own state checks pass with
    warnings as errors (they step unmasked random actions, so on an env that plays a legal one instead)."""
    from pettingzoo.test.state_test import test_state, test_state_space

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sampling = env_fn(env_name, illegal_action="random_legal", **game_kwargs)()
        test_state_space(sampling)
        test_state(sampling, num_cycles=30, seed=seed)
    if caught:
        raise AssertionError(f"PettingZoo state_test warnings for {env_name} {game_kwargs}: {[str(w.message) for w in caught]}")
    env = env_fn(env_name, **game_kwargs)()
    try:
        env.state()
    except RuntimeError as error:
        if "reset()" not in str(error):
            raise AssertionError(f"state() before reset() raised without asking for a reset: {error}") from error
    else:
        raise AssertionError("state() before reset() returned instead of asking for a reset")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        state = env.state()
        if not (state.dtype == np.float32 and env.state_space.contains(state)):
            raise AssertionError(f"{env_name}: state() is not float32 inside state_space (seed {seed})")
        np.testing.assert_array_equal(
            state, np.concatenate([env.observe(a)["observation"] for a in env.possible_agents]))
        _, _, terminated, truncated, _ = env.last()
        mask = env.observe(agent)["action_mask"]
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(mask))))


def check_clone_and_dict(env_name: str, game_kwargs: dict, seeds=range(5)) -> None:
    """clone(), to_dict()/from_dict() through JSON text and same-seed replays round-trip exactly; the game
    and its env call themselves by the name they are registered under."""
    game = make_game(env_name, **game_kwargs)
    # a saved state names its game by Game.env_name, a replay by the env's metadata["name"], and both are
    # looked up in the registry by that name (make_game, Replay.make_env): a game whose classes say
    # another name (a version bumped in one place only) saved states and replays that load nowhere
    names = {"Game.env_name": game.env_name, 'raw_env.metadata["name"]': env_fn(env_name, **game_kwargs)().metadata.get("name")}
    wrong = [f"{where} is {name!r}" for where, name in names.items() if name != env_name]
    if wrong:
        raise AssertionError(f"{env_name}: {' and '.join(wrong)}, not the name it is registered under "
                             "(core/registry.py); saved states and replays name the game by these")
    for seed in seeds:
        state = game.new_initial_state(seed)
        rng = np.random.default_rng(seed)
        trail: list[int] = []
        while not state.is_terminal() and len(trail) < 400:
            if len(trail) % 7 == 0:
                twin = state.clone()
                if twin != state:
                    raise AssertionError(f"clone differs at step {len(trail)} (seed {seed})")
                back = check_json_roundtrip(state)
                if back != state:
                    raise AssertionError(f"to_dict/from_dict differs at step {len(trail)} (seed {seed})")
                np.testing.assert_array_equal(back.legal_action_mask(), state.legal_action_mask())
                for p in range(game.num_players):
                    np.testing.assert_array_equal(back.observation(p), state.observation(p))
                # the copy and the original go on identically (chance included)
                action = int(rng.choice(state.legal_actions()))
                twin.apply_action(action)
                back.apply_action(action)
                state.apply_action(action)
                if twin != state or back != state:
                    raise AssertionError(f"copies diverged after step {len(trail)} (seed {seed})")
            else:
                action = int(rng.choice(state.legal_actions()))
                state.apply_action(action)
            trail.append(action)
        replay = game.new_initial_state(seed)
        for a in trail:
            replay.apply_action(a)
        if replay != state:
            raise AssertionError(f"same seed and actions gave another state (seed {seed})")


def check_random_games(env_name: str, game_kwargs: dict, num_games: int = 200, seed: int = 0) -> dict:
    """Random-legal games: invariants at every decision, each pending decision one the game lists (``decisions``,
    where it lists any), termination (before the env faces' default
    ``max_turns`` would truncate them), an ended game that to_dict/from_dict bring back the same, zero-sum or
    bounded returns."""
    game = make_game(env_name, **game_kwargs)
    rng = np.random.default_rng(seed)
    lengths, turns = [], []
    for g in range(num_games):
        state = game.new_initial_state(int(rng.integers(2**31)))

        def visit(s, g=g):
            p = s.current_player()
            if not 0 <= p < game.num_players:
                raise AssertionError(f"game {g}: current player {p} out of range")
            # the engine ends the game by itself, but the env faces, the arena and training stop it undecided
            # (reward 0 for all) here: a default below the game's length made every game a draw, unseen
            if s.turn >= game.default_max_turns:
                raise AssertionError(f"game {g}: still going at turn {s.turn}, where the game's default_max_turns "
                                     f"({game.default_max_turns}) truncates it in the env faces, the arena and "
                                     "training; raise default_max_turns above the turns a game lasts")
            decision = s.decision()
            if game.decisions and decision not in game.decisions:
                raise AssertionError(f"game {g}: pending decision {decision!r} is not one of the game's decisions "
                                     f"{game.decisions}, by which a recipe names it (pretrain.decisions)")
            mask = s.legal_action_mask()
            if not (mask.dtype == np.int8 and mask.shape == (game.num_actions,)):
                raise AssertionError(f"game {g}: mask is {mask.dtype} {mask.shape}, not int8 ({game.num_actions},)")
            if not set(np.unique(mask)) <= {0, 1}:
                raise AssertionError(f"game {g}: mask holds values other than 0 and 1: {np.unique(mask)}")
            s.check_invariants()
            obs = s.observation(p)
            if not (obs.dtype == np.float32 and obs.shape == (game.observation_layout.size,)):
                raise AssertionError(f"game {g}: observation is {obs.dtype} {obs.shape}, not float32 ({game.observation_layout.size},)")
            lay = game.observation_layout
            if not (np.all(obs >= lay.low) and np.all(obs <= lay.high)):
                outside = [n for n, sl in lay.slices.items()
                           if np.any(obs[sl] < lay.low[sl]) or np.any(obs[sl] > lay.high[sl])]
                raise AssertionError(f"game {g}: observation outside its declared bounds at {outside}")

        steps = random_playout(state, rng, visit=visit)
        state.check_invariants()
        # the end is a state too (a replay or a saved game stops there); check_clone_and_dict's round trips stop
        # before it
        if check_json_roundtrip(state) != state:
            raise AssertionError(f"game {g}: the ended game comes back from to_dict/from_dict as another state")
        if state.current_player() != TERMINAL:
            raise AssertionError(f"game {g}: ended with current player {state.current_player()}, not TERMINAL")
        ret = np.asarray(state.returns(), float)
        if ret.shape != (game.num_players,):
            raise AssertionError(f"game {g}: returns have shape {ret.shape}, not ({game.num_players},)")
        if getattr(game, "zero_sum", game.num_players == 2):
            if abs(ret.sum()) >= 1e-9:
                raise AssertionError(f"game {g}: returns {ret} are not zero-sum")
        lengths.append(steps)
        turns.append(state.turn)
    return {"mean_decisions": float(np.mean(lengths)), "max_turn": int(max(turns))}


def check_max_turns(env_name: str, game_kwargs: dict, seeds=range(20)) -> None:
    """Through the AEC env every game ends (terminated or truncated) within max_turns."""
    env = env_fn(env_name, **game_kwargs)(max_turns=3)
    for seed in seeds:
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _agent in env.agent_iter(max_iter=100_000):
            obs, _, term, trunc, _ = env.last()
            # asked at each decision, not of the game's end: an env that ignored max_turns played every game to
            # its natural end, which is terminal, and passed
            if not (term or trunc) and env.game_state.turn >= 3:
                raise AssertionError(f"{env_name}: max_turns=3 let the game go on to a decision at turn "
                                     f"{env.game_state.turn} (seed {seed})")
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if env.agents:
            raise AssertionError(f"{env_name}: agents {env.agents} left after the game ended (seed {seed})")


def check_mask_equals_rules(env_name: str, game_kwargs: dict, num_states: int = 40, seed: int = 1) -> None:
    """On random states every action is tried: the engine accepts exactly the masked-in ones."""
    from .errors import IllegalActionError

    game = make_game(env_name, **game_kwargs)
    rng = np.random.default_rng(seed)
    tested = 0
    while tested < num_states:
        state = game.new_initial_state(int(rng.integers(2**31)))
        while not state.is_terminal() and tested < num_states:
            if rng.random() < 0.15:
                mask = state.legal_action_mask()
                for action in range(game.num_actions):
                    trial = state.clone()
                    try:
                        trial.apply_action(action)
                        accepted = True
                    except IllegalActionError:
                        accepted = False
                    if accepted != bool(mask[action]):
                        raise AssertionError(f"action {action} ({state.action_to_string(action)}) accepted={accepted} "
                                            f"but mask={mask[action]} during {state.decision()!r}")
                tested += 1
            action = int(rng.choice(state.legal_actions()))
            try:
                state.apply_action(action)
            except IllegalActionError as exc:
                raise AssertionError(f"masked-in action {action} was not accepted by the engine: {exc}") from exc


def check_no_leak(env_name: str, game_kwargs: dict, num_states: int = 60, resamples: int = 3, seed: int = 2) -> None:
    """A player's observation, and the text view of a game that has its own, is unchanged when everything
    they cannot see is re-dealt; so are the mover's mask, the names of its legal actions and the refusals of
    its illegal ones.

    Each re-dealt world must also have a generator of its own: future chance is hidden too, and a
    world keeping the real one would draw the real future (and its state would let the deal be re-run);
    and no cached action mask of the real state (a clone keeps the cache, which the re-deal can make wrong).
    Also asserts the resampling really changes hidden cards somewhere (the generator aside), so the
    check cannot pass vacuously; for a game declaring ``hidden_information = False``, that it never does.
    """
    game = make_game(env_name, **game_kwargs)
    rng = np.random.default_rng(seed)
    tested = changed = 0
    # the default text view is the whole state's repr, which claims to hide nothing
    own_text = game.state_type().render_text is not State.render_text
    while tested < num_states:
        state = game.new_initial_state(int(rng.integers(2**31)))
        while not state.is_terminal() and tested < num_states:
            if rng.random() < 0.2:
                for p in range(game.num_players):
                    obs = state.observation(p)
                    text = state.render_text(p) if own_text else None
                    for _ in range(resamples):
                        other = state.resample_hidden(p, rng)
                        kept = other.__dict__.get("_mask_cache")  # as resample_hidden left it
                        if kept is not None and not np.array_equal(kept, other._legal_action_mask()):
                            raise AssertionError(f"resample_hidden({p}) kept the real state's cached action mask during "
                                                 f"{state.decision()!r}, which the re-dealt world's rules do not give "
                                                 "(a playout from it plays cards it does not hold): set _mask_cache = "
                                                 "None on the copy")
                        np.testing.assert_array_equal(
                            other.observation(p), obs,
                            err_msg=f"player {p}'s observation changed when hidden information was resampled "
                                    f"during {state.decision()!r}: it leaks hidden information")
                        other.check_invariants()
                        if own_text and other.render_text(p) != text:
                            raise AssertionError(f"player {p}'s text view changed when hidden information was resampled during "
                                                f"{state.decision()!r}: it shows what the observation hides")
                        if p == state.current_player():
                            np.testing.assert_array_equal(other.legal_action_mask(), state.legal_action_mask())
                            _check_words_to_the_mover(state, other, p)
                        if other.rng.bit_generator.state == state.rng.bit_generator.state:
                            raise AssertionError(f"resample_hidden({p}) kept the real state's generator during {state.decision()!r}: "
                                                "every re-dealt world would draw the real future chance")
                        changed += _without_generator(other) != _without_generator(state)
                tested += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    if not game.hidden_information:
        if changed:
            raise AssertionError(f"{env_name}: a game declaring hidden_information = False re-dealt something in "
                                 f"{changed} worlds: it hides something (drop hidden_information = False)")
    elif changed == 0:
        raise AssertionError("resample_hidden never changed anything: the leak test would be vacuous (a game where "
                             "every player sees or can work out everything declares hidden_information = False on "
                             "its Game, or sets it on the instance where a rule option decides it)")


def check_seat_arguments(env_name: str, game_kwargs: dict, seed: int = 5) -> None:
    """``observation``, ``resample_hidden`` and ``render_text`` take a seat of the game (``render_text``
    also None, the whole table) and refuse anything else, as :func:`~tabletop_envs.core.engine.check_seat`
    does: Python would read -1 (``TERMINAL``) as the last seat's view. NumPy integers are seats too."""
    game = make_game(env_name, **game_kwargs)
    state = game.new_initial_state(seed)
    n = game.num_players
    calls = {"observation": state.observation, "render_text": state.render_text,
             "resample_hidden": lambda p: state.resample_hidden(p, np.random.default_rng(0))}
    for name, call in calls.items():
        for bad, error in ((n, ValueError), (TERMINAL, ValueError), (1.0, TypeError), ("1", TypeError),
                           (True, TypeError)):
            try:
                call(bad)
            except error:
                continue
            raise AssertionError(f"{env_name}: {name}({bad!r}) did not raise {error.__name__}; seats are 0 to {n - 1} "
                                 "(call core.engine.check_seat first)")
    for bad in (None, 0.0):
        for name in ("observation", "resample_hidden"):
            try:
                calls[name](bad)
            except TypeError:
                continue
            raise AssertionError(f"{env_name}: {name}({bad!r}) did not raise TypeError")
    if state.render_text(None) != state.render_text():
        raise AssertionError(f"{env_name}: render_text(None) is not the whole table")
    for p in range(n):
        np.testing.assert_array_equal(state.observation(np.int64(p)), state.observation(p))
        if state.render_text(np.int32(p)) != state.render_text(p):
            raise AssertionError(f"{env_name}: a NumPy seat renders another text view")
        if state.resample_hidden(np.int64(p), np.random.default_rng(3)) != \
                state.resample_hidden(p, np.random.default_rng(3)):
            raise AssertionError(f"{env_name}: a NumPy seat re-deals otherwise")


def _check_words_to_the_mover(state, other, p: int) -> None:
    """What the mover reads besides the observation says the same in a re-dealt world: the names of its legal
    actions (a menu, the play command's list) and the refusal of an illegal one (which lists the legal ones)."""
    legal = state.legal_actions()
    for action in legal:
        if other.action_to_string(action) != state.action_to_string(action):
            raise AssertionError(f"player {p}'s action {action} is named {state.action_to_string(action)!r}, and "
                                 f"{other.action_to_string(action)!r} in a world re-dealt from their view during "
                                 f"{state.decision()!r}: the name leaks hidden information")
    illegal = np.flatnonzero(~state.legal_action_mask().astype(bool))
    for action in [*illegal[:: max(1, len(illegal) // 3)][:3].tolist(), state.game.num_actions]:
        said, other_said = _refusal(state, action), _refusal(other, action)
        if said != other_said:
            raise AssertionError(f"the refusal of player {p}'s illegal action {action} during {state.decision()!r} "
                                 f"reads {said!r}, and {other_said!r} in a world re-dealt from their view: it leaks "
                                 "hidden information")


def _refusal(state, action: int) -> str:
    from .errors import IllegalActionError

    try:
        state.clone().apply_action(action)
    except IllegalActionError as exc:
        return str(exc)
    raise AssertionError(f"{state.game.env_name}: illegal action {action} was applied during {state.decision()!r}, not "
                         "refused with an IllegalActionError")


def _without_generator(state) -> dict:
    data = state.to_dict()
    data["state"].pop("rng")
    return data


def check_doc_page(env_name: str, game_kwargs: dict | None = None) -> None:
    """The env module's docstring (its documentation page) shows the layouts' tables and sizes: each table as
    generated, no row more (the whole run of ``|`` lines from its header, which the refresh replaces), and one
    ``state()`` row."""
    from .docs import (
        ACTION_HEADER,
        OBSERVATION_HEADER,
        doc_tables,
        mask_sizes,
        state_row,
        state_rows,
        table_span,
    )

    game = make_game(env_name, **(game_kwargs or {}))
    doc = get_spec(env_name).load_module().__doc__ or ""
    fix = f"regenerate it with `python -m tabletop_envs.core.docs {env_name}`"
    actions, observations = doc_tables(game)
    # the generated table found anywhere on the page passed one with stale rows after it (an action removed
    # since, still documented) or one that had lost its last rows
    for what, header, table in (("action", ACTION_HEADER, actions), ("observation", OBSERVATION_HEADER, observations)):
        span = table_span(doc, header)
        if span is None or doc[span[0]:span[1]] != table:
            raise AssertionError(f"{env_name}: the {what} table in env.py's docstring is out of date; {fix}")
    if f"Discrete({game.num_actions})" not in doc:
        raise AssertionError(f"{env_name}: the documented action count is wrong; {fix}")
    if f"({game.observation_layout.size},)" not in doc:
        raise AssertionError(f"{env_name}: the documented observation size is wrong; {fix}")
    # the mask's length sits beside the observation's in the summary row: it went stale unseen
    if any(size != game.num_actions for size in mask_sizes(doc)):
        raise AssertionError(f"{env_name}: the documented action_mask size is wrong ({mask_sizes(doc)}, the env has "
                             f"{game.num_actions} actions); {fix}")
    rows = state_rows(doc)
    if len(rows) > 1:
        raise AssertionError(f"{env_name}: env.py's docstring has {len(rows)} state() rows, where a page has one; "
                             f"remove the stale ones and {fix}")
    if rows != [state_row(env_name, game)]:
        raise AssertionError(f"{env_name}: the documented state() size is wrong or missing; {fix}")
