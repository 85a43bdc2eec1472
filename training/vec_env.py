"""In-process vectorised self-play whose opponents move in batches.

``DummyVecEnv`` steps its envs one after the other, so every opponent move is one forward pass of
a one-row batch, and it deep-copies every info dict. ``SelfPlayVecEnv`` gives SB3 the same
interface over :class:`~tabletop_envs.core.single_agent.SingleAgentEnv` instances, but plays each
env's pieces (learner move, opponent moves, outcome, new deal) in rounds across all envs: in each
round, the envs waiting on the same opponent policy (a pool snapshot) are answered with one batched
forward pass (:func:`~tabletop_envs.core.policy.act_batch`) when there are at least ``BATCH_MIN``
of them, else one by one. Episodes are the ones the envs would
play alone; with a sampling opponent the draws come from this vec env's own generator (seeded by
``seed`` through :func:`~tabletop_envs.core.policy.policy_rng`), so a seeded run is reproducible but not
draw-for-draw the same as under DummyVecEnv.

Any other env (no ``opponent_to_move``) is stepped one by one, as DummyVecEnv would, minus the
deep copy of infos its envs return fresh.
"""

from __future__ import annotations

from typing import cast

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from tabletop_envs.core.engine import State
from tabletop_envs.core.policy import act_batch, policy_rng
from tabletop_envs.core.single_agent import MAX_REDEALS, REDEALS_EXHAUSTED, SingleAgentEnv

#: the fewest envs waiting on one policy that get one batched forward pass: stacking the
#: observations and masks and masking a batch cost more than one or two single-observation moves
#: (a one-off timing on recorded Terralore and Travel Earth decisions: two rows took 1.4-1.9x the
#: time of two single moves, three about the same, four less)
BATCH_MIN = 3


class SelfPlayVecEnv(DummyVecEnv):
    """DummyVecEnv whose SingleAgentEnv opponents move in batched forward passes across envs."""

    def __init__(self, env_fns):
        super().__init__(env_fns)
        self.batched = all(isinstance(env, SingleAgentEnv) for env in self.envs)
        self._rng = np.random.default_rng()

    def seed(self, seed: int | None = None):
        if seed is not None:
            # the opponents hold this generator: seeded with [seed, num_envs], it told them the seed that env
            # i deals from (seed + i), and so the learner's every hidden card. Nor env i's own opponents'
            # generator (SingleAgentEnv: policy_rng(seed + i, 1)), which moves them in its reset: (seed, num_envs)
            # is that of env 0 with one env only, whose first draws came twice (kept for more envs: seeded runs
            # replay as before)
            self._rng = policy_rng(seed, self.num_envs) if self.num_envs > 1 else policy_rng(seed, 1, 1)
        return super().seed(seed)

    # ------------------------------------------------------------------ stepping
    def step_wait(self):
        if not self.batched:
            return self._step_one_by_one()
        envs, actions = self.envs, self.actions
        for i, env in enumerate(envs):
            env.begin_step(actions[i])
        self._play_opponents(range(self.num_envs))
        infos, obs_buf, new_deals = [], self.buf_obs[None], []
        for i, env in enumerate(envs):
            obs, reward, terminated, truncated, info = env.outcome()
            done = terminated or truncated
            self.buf_rews[i], self.buf_dones[i] = reward, done
            info["TimeLimit.truncated"] = truncated and not terminated
            if done:
                info["terminal_observation"] = obs
                env.deal()
                new_deals.append(i)
            else:
                obs_buf[i] = obs
            infos.append(info)
        self._finish_deals(new_deals)
        return obs_buf.copy(), self.buf_rews.copy(), self.buf_dones.copy(), infos

    def _step_one_by_one(self):
        infos = []
        for i, env in enumerate(self.envs):
            obs, self.buf_rews[i], terminated, truncated, info = env.step(self.actions[i])
            self.buf_dones[i] = terminated or truncated
            info["TimeLimit.truncated"] = truncated and not terminated
            if self.buf_dones[i]:
                info["terminal_observation"] = obs
                obs, self.reset_infos[i] = env.reset()
            # as DummyVecEnv saves it: buf_obs is keyed by None only for a space that is no Dict or Tuple (one
            # that is raised KeyError: None)
            self._save_obs(i, obs)
            infos.append(info)
        return self._obs_from_buf(), self.buf_rews.copy(), self.buf_dones.copy(), infos

    def _play_opponents(self, indices) -> None:
        """Move every listed env's opponents until its learner decides or its game is over."""
        envs, rng = self.envs, self._rng
        pending = list(indices)
        while pending:
            groups: dict[int, tuple] = {}
            forced = []
            for i in pending:
                turn = envs[i].opponent_to_move()
                if turn is None:
                    continue
                if envs[i].play_if_forced():
                    forced.append(i)
                else:
                    groups.setdefault(id(turn[0]), (turn[0], []))[1].append((i, turn[1]))
            pending = forced
            for policy, seats in groups.values():
                if len(seats) < BATCH_MIN:
                    for i, player in seats:
                        envs[i].play_opponent(policy, player, rng)
                else:
                    states = [envs[i].game_state for i, _ in seats]
                    observations = np.stack([s.observation(p) for s, (_, p) in zip(states, seats)])
                    masks = np.stack([s.legal_action_mask() for s in states])
                    for (i, _), action in zip(seats, act_batch(policy, observations, masks, rng)):
                        envs[i].play(action)
                pending.extend(i for i, _ in seats)

    def _finish_deals(self, indices: list[int]) -> None:
        """Play the new deals up to their learners' first decisions; replace deals that end before it
        (as SingleAgentEnv.reset does)."""
        obs_buf = self.buf_obs[None]  # type: ignore[index]  # SB3 keys a non-dict space's buffer by None, typed as str
        for _ in range(MAX_REDEALS):
            if not indices:
                return
            self._play_opponents(indices)
            again = []
            for i in indices:
                env = cast(SingleAgentEnv, self.envs[i])  # batched: every env is one
                if env.over:
                    env.deal()
                    again.append(i)
                else:
                    obs_buf[i] = cast(State, env.game_state).observation(env.learner_seat)  # (deal() set it)
                    self.reset_infos[i] = {"learner_seat": env.learner_seat}
            indices = again
        raise RuntimeError(REDEALS_EXHAUSTED)

    # ------------------------------------------------------------------ the masks MaskablePPO asks for every step
    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if self.batched and method_name == "action_masks" and indices is None and not method_args and not method_kwargs:
            return [env.action_masks() for env in cast("list[SingleAgentEnv]", self.envs)]
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)
