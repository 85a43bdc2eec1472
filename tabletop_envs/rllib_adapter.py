"""RLlib face: any tabletop env as a turn-based RLlib ``MultiAgentEnv`` (new API stack), plus the
action-masking PPO module that trains on it.

Needs the ``distributed`` extra (``pip install 'tabletop-envs[distributed]'``); ``import
tabletop_envs`` never imports this module or ray.

The adapter drives the generic :class:`~tabletop_envs.core.aec.TabletopAECEnv`, so it serves every
game in the registry with no per-game code:

- **Observations** are dicts ``{"observations": float32 vector, "action_mask": float32 0/1}`` — the
  keys RLlib's action-masking RLModule example (``ActionMaskingTorchRLModule``) expects; PettingZoo's
  ``"observation"`` key is renamed and the int8 mask becomes float32 (the module takes its log).
- **Turn-based:** a step returns an observation only for the seat that must decide next (the same seat
  again when a compound move continues). RLlib keeps the waiting seats' actions "hanging" and credits
  them every reward given meanwhile.
- **Rewards** of every seat are returned at every step, so the reward of a game lost on the
  opponent's move reaches the waiting seat. At game end (termination, truncation, or an illegal
  action under ``illegal_action="penalty"``) every seat gets a final observation, its reward and
  ``terminated``/``truncated``, so each seat's last transition closes with the final result
  (RLlib requires a last observation for truncated agents to bootstrap their value).
- **Final observations carry an all-ones mask**, as Pgx does: nothing is chosen there, but a
  batched forward pass on them must stay finite.
- **Infos** go with observations, as RLlib files them: under ``illegal_action="random_legal"`` a seat
  whose illegal action was replaced finds ``{"illegal_action": True}`` in the info of its next
  observation (the same step's when it decides again, else its next turn's or the final one); under
  ``"penalty"`` the offender's final info has it. Masks are in the observations, not repeated there.

``env_config`` keys: ``env`` (an env name from ``tabletop_envs.ENVS``, required), any keyword of
the AEC env (``max_turns``, ``illegal_action``, ``num_players`` and rule options), and ``draw_reward``
(default 0): added to every seat's final reward when the game ends drawn (two or more seats, every
standing equal: a stalemate, a tie, a ``max_turns`` truncation), so that training can make a draw cost
(``training.rllib_train``'s ``selfplay.draw_reward``); refused with one seat, which is never drawn. With a
draw reward, a ``max_turns`` cut ends as terminated (the draw reward is its outcome, not bootstrapped past);
without one it stays truncated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

try:
    import gymnasium as gym
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.models.base import ACTOR, ENCODER_OUT
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    try:  # a Ray whose RLlib lacks a name used here (another release) is installed: "not installed" misled
        import ray as _ray

        _found = f"ray {getattr(_ray, '__version__', '?')} is installed, but this adapter cannot import from it ({exc})"
    except ImportError:
        _found = "which is not installed"
    raise ImportError(
        f"tabletop_envs.rllib_adapter needs Ray RLlib 2.50-2.60, {_found}. Install the distributed "
        "extra: pip install 'tabletop-envs[distributed]' (CPU torch first: pip install torch==2.13.0)."
    ) from exc

from .core.aec import AEC_KWARGS, TabletopAECEnv
from .core.arena import check_draw_reward, is_draw
from .core.engine import check_seed_value
from .core.errors import ConfigError
from .core.registry import get_spec

OBS_KEY = "observations"
MASK_KEY = "action_mask"
DRAW_REWARD = "draw_reward"  # the env_config key of the reward a drawn game adds


def env_config_dict(env_config: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """RLlib's ``env_config`` as a dict; an env name alone stands for ``{"env": name}``: ``dict()`` of a name
    raised "dictionary update sequence element #0 has length 1", naming neither the argument nor its form."""
    if env_config is None:
        return {}
    if isinstance(env_config, str):
        return {"env": env_config}
    if not isinstance(env_config, Mapping):
        raise ConfigError(f"env_config must be a dict such as {{'env': 'terralore_v0', 'max_turns': 50}} (or an env "
                          f"name); got {env_config!r}")
    return dict(env_config)


def make_aec_env(env_config: Mapping[str, Any] | str) -> TabletopAECEnv:
    """The AEC env named by ``env_config["env"]``, built with the remaining keys."""
    kwargs = env_config_dict(env_config)
    env_name = kwargs.pop("env", None)
    if isinstance(env_name, TabletopAECEnv):
        if kwargs:
            raise ConfigError(f"env_config keys {sorted(kwargs)} given with a ready env instance; drop them")
        return env_name
    if not env_name:
        raise ConfigError("env_config needs 'env': an env name such as 'terralore_v0'")
    try:
        spec = get_spec(env_name)
    except KeyError as exc:
        raise ConfigError(str(exc)) from None
    raw_env = spec.load_module().raw_env
    # the env_config's own keys listed and matched too: a misspelt draw_reward was told the rule options only
    raw_env.game_class.check_option_names(kwargs, face="the env_config's", face_options=("env", DRAW_REWARD, *AEC_KWARGS),
                                          face_takes=True)
    return raw_env(**kwargs)


class TabletopMultiAgentEnv(MultiAgentEnv):
    """A tabletop AEC env as a turn-based RLlib ``MultiAgentEnv``; agent ids are the AEC seat names.

    Args:
        config: RLlib's ``env_config`` (an ``EnvContext`` is a dict): ``{"env": "terralore_v0", ...}``, or an env
            name alone.

    In an RLlib config of your own, pass ``disable_env_checking=True`` to ``.environment(...)``: RLlib's
    pre-check steps an unmasked random action, which this env refuses as illegal.
    """

    def __init__(self, config: Mapping[str, Any] | str | None = None):
        super().__init__()
        settings = env_config_dict(config)
        draw_reward = settings.pop(DRAW_REWARD, 0.0)
        self.aec = make_aec_env(settings)
        # RLlib seeds sub-env i of env runner w with seed + w + i, so runner 1's env 1 and runner 2's env 0
        # would deal the same games all run long: where RLlib says which env this is (an EnvContext),
        # reset mixes the two indices into the seed
        worker, vector = getattr(config, "worker_index", None), getattr(config, "vector_index", None)
        self._env_index: tuple[int, int] | None = None if worker is None or vector is None else (worker, vector)
        game = self.aec.game
        self.game = game
        self.draw_reward = check_draw_reward(draw_reward, game.num_players, game.env_name, DRAW_REWARD)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        # one space object per seat (equal, not shared): seeding one seat's space must not move another's
        self.observation_spaces: dict[str, gym.spaces.Space[Any]] = {a: gym.spaces.Dict({
            OBS_KEY: game.observation_layout.space(),
            MASK_KEY: gym.spaces.Box(0.0, 1.0, (game.num_actions,), np.float32),
        }) for a in self.possible_agents}
        self.action_spaces: dict[str, gym.spaces.Space[Any]] = {
            a: gym.spaces.Discrete(game.num_actions) for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self._all_ones = np.ones(game.num_actions, np.float32)
        #: seats whose illegal action was replaced, told with their next observation
        self._flagged: set[str] = set()
        self._over = False

    # ------------------------------------------------------------------ observations
    def _acting_obs(self, agent: str) -> dict[str, np.ndarray]:
        state = self.aec._require_reset()
        return {OBS_KEY: state.observation(self.aec.agent_name_mapping[agent]),
                MASK_KEY: state.legal_action_mask().astype(np.float32)}

    def _final_obs(self, agent: str) -> dict[str, np.ndarray]:
        return {OBS_KEY: self.aec._require_reset().observation(self.aec.agent_name_mapping[agent]),
                MASK_KEY: self._all_ones.copy()}

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None and self._env_index is not None:
            check_seed_value(seed)
            seed = int(np.random.SeedSequence([seed, *self._env_index]).generate_state(1, np.uint64)[0])
        self.aec.reset(seed=seed, options=options)
        self._over = False
        self._flagged = set()
        agent = self.aec.agent_selection
        return {agent: self._acting_obs(agent)}, {agent: {}}

    def _info(self, agent: str) -> dict:
        if agent in self._flagged:
            self._flagged.discard(agent)
            return {"illegal_action": True}
        return {}

    def step(self, action_dict: dict[str, Any]):
        aec = self.aec
        if aec.game_state is None:
            raise RuntimeError("reset() must be called before step()")
        if self._over:  # PettingZoo would say "when an agent is dead, the only valid action is None"
            raise RuntimeError("the episode is over (every agent is done): call reset() to start the next one")
        agent = aec.agent_selection
        if not isinstance(action_dict, Mapping):
            # a bare action, as a PettingZoo or Gymnasium env takes it: set() of it raised "'int' object is not
            # iterable", and of a string listed its letters as agents
            raise TypeError(f"step() takes a dict of the acting agent's action, {{{agent!r}: action}} (a "
                            f"MultiAgentEnv), got {action_dict!r}")
        if set(action_dict) != {agent}:
            raise ValueError(f"it is {agent}'s turn (turn-based env): step() takes {{{agent!r}: action}}, "
                             f"got actions for {sorted(action_dict)}")
        aec.step(action_dict[agent])  # not int(): 0.7 would be action 0; the env refuses or flags a non-id
        if aec.infos[agent].get("illegal_action"):
            self._flagged.add(agent)
        rewards = {a: float(aec.rewards[a]) for a in self.possible_agents}
        terminated = all(aec.terminations[a] for a in self.possible_agents)
        truncated = all(aec.truncations[a] for a in self.possible_agents) and not terminated
        if terminated or truncated:
            # agents stays every seat, as in RLlib's turn-based examples: emptied, RLlib's env check refused
            # the final observations of agents no longer in the env
            self._over = True
            if self.draw_reward and (truncated or (aec.game_state.is_terminal() and is_draw(aec.game_state.standings()))):
                rewards = {a: r + self.draw_reward for a, r in rewards.items()}
                # the draw reward is a cut game's outcome: ended as terminated, RLlib does not also bootstrap
                # a value past it (truncated, the last target was draw_reward + gamma * V)
                terminated, truncated = True, False
            obs = {a: self._final_obs(a) for a in self.possible_agents}
            infos = {a: self._info(a) for a in self.possible_agents}
            terminateds = {a: terminated for a in self.possible_agents}
            truncateds = {a: truncated for a in self.possible_agents}
            terminateds["__all__"] = terminated
            truncateds["__all__"] = truncated
            return obs, rewards, terminateds, truncateds, infos
        nxt = aec.agent_selection
        return {nxt: self._acting_obs(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: self._info(nxt)}

    def render(self):
        """The table as text from ``aec.render_player``'s view: None (the default) is the whole table, a god's
        view for people; set ``env.aec.render_player = seat`` for one seat's. RLlib never renders in sampling."""
        return self.aec.game_state.render_text(self.aec.render_player) if self.aec.game_state is not None else None

    def close(self):
        self.aec.close()


# ---------------------------------------------------------------------- the masking module
def _split_masked_obs(batch: dict) -> tuple[Any, dict]:
    """(mask, batch with the bare observation vector under Columns.OBS); the input is not mutated."""
    obs = batch[Columns.OBS]
    if isinstance(obs, dict):
        if MASK_KEY not in obs or OBS_KEY not in obs:
            raise ValueError(f"observation dict has keys {sorted(obs)}; this module needs {OBS_KEY!r} and "
                             f"{MASK_KEY!r} (wrap the env in TabletopMultiAgentEnv)")
        batch = dict(batch)
        batch[Columns.OBS] = obs[OBS_KEY]
        return obs[MASK_KEY], batch
    return batch[MASK_KEY], batch


def _mask_logits(out: dict, mask) -> dict:
    logits = out[Columns.ACTION_DIST_INPUTS]
    out[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(mask < 0.5, FLOAT_MIN)
    return out


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module with illegal actions' logits set to the float minimum.

    The networks are built for the bare observation vector; the mask is split off the observation
    dict before every forward pass (inference, exploration, training, value). Same contract as
    RLlib's ``ActionMaskingTorchRLModule`` example, without its in-place batch edits.
    """

    def __init__(self, *args, observation_space=None, **kwargs):
        if not (isinstance(observation_space, gym.spaces.Dict)
                and {OBS_KEY, MASK_KEY} <= set(observation_space.spaces)):
            raise ValueError(f"MaskedPPOTorchRLModule needs a Dict observation space with keys {OBS_KEY!r} and "
                             f"{MASK_KEY!r}; got {observation_space}. Use TabletopMultiAgentEnv.")
        self.observation_space_with_mask = observation_space
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self):
        super().setup()
        # Connectors see the env's space (with the mask); the networks were sized without it.
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch, **kwargs):
        mask, batch = _split_masked_obs(batch)
        return _mask_logits(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, batch = _split_masked_obs(batch)
        return _mask_logits(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            _, batch = _split_masked_obs(batch)
        return super().compute_values(batch, embeddings)

    def logits_torch(self, observations):
        """Unmasked policy logits for a ``[batch, obs_size]`` float tensor (what the ONNX export holds)."""
        encoder_outs = self.encoder({Columns.OBS: observations})
        return self.pi(encoder_outs[ENCODER_OUT][ACTOR])
