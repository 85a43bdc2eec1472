"""MaskablePPO's policy with a cheaper masked distribution: the same numbers, less time.

sb3-contrib masks by writing -1e8 into the illegal logits and renormalising with ``logsumexp`` and
``softmax``. On CPU, ``exp`` of a float32 that underflows takes a slow path: on this machine a
``logsumexp`` over 256 x 730 logits with 95 % of them masked costs ~3 ms instead of ~0.17 ms, and
it runs twice per distribution (normalise, then the probabilities for sampling and the entropy).
Our games mask most actions most of the time (Earth: 730 actions, a handful legal), so that slow
path was a visible share of every update.

:class:`FastMaskableCategorical` computes the same distribution without exponentiating the masked
entries: it shifts the logits by the largest legal one and multiplies by the 0/1 mask (in the
logits' dtype, as the rollout buffer stores it) before and after ``exp``. Multiplications cost a
fraction of ``masked_fill`` on hundreds of actions, backward included, and PPO's update needs only
the log-probabilities of the taken actions and the entropy, which come from the shifted logits and
their exponentials; the full normalised logits and probabilities are made only when asked for
(sampling, the mode). Legal log-probabilities, probabilities, entropy, gradients and sampling agree
with ``MaskableCategorical`` to float rounding (tests/training/test_masked_policy.py); masked
logits and the log-probability of a masked action are the same -1e8.

It also skips ``torch.distributions`` argument validation, a per-distribution Python cost about the
size of a small network's forward pass. A NaN in the logits still fails loudly: ``multinomial``
refuses NaN probabilities when the rollout samples (the numpy forward below hands non-finite logits
to torch's path for that). The policy's Adam is torch's fused implementation: the same update in one
kernel per step.

The rollout's forward pass (under ``no_grad``: one call per vectorised step, a batch of n_envs
observations) runs in numpy on copies of the torch weights made after each update
(:func:`~tabletop_envs.core.onnx_policy.sparse_linear` and :func:`mlp_continue`, the shipped
opponents' forward; the policy's and the value network's layers are one matrix per depth). torch's
per-operator overhead made that call ~0.6 ms for a network whose arithmetic takes a few µs, the
largest single cost of collecting a rollout. It samples from the same masked distribution with
torch's random generator, so a seeded run stays reproducible; the update (``evaluate_actions``,
with gradients) stays in torch.

:class:`FastMaskableRolloutBuffer` hands the update its minibatches without a second copy: sb3's
buffer indexes a minibatch out of the rollout (a copy) and then copies that into a tensor, which for
Earth's 256 x 5,148 observations is a visible share of each minibatch. With each minibatch it hints
the observation columns that are non-zero somewhere in the rollout (``active_columns``) and each
sample's legal actions (``legal_actions``), both computed once per rollout. The policy's update
then multiplies only those columns in its first layers, and normalises and takes the entropy over
only those actions. Both give the same numbers (a column of zeros adds 0 and gets a 0 gradient; an
illegal action has probability 0) for a fraction of the work: Earth has about 1,600 active columns
of 5,148, Travel Earth about 260 of 838, and a rollout's widest sample has about a dozen legal
actions of Travel Earth's 449 (Earth: up to about 80 of 730). Other policies ignore the hints.

Use ``MaskablePPO(FastMaskablePolicy, env, rollout_buffer_class=FastMaskableRolloutBuffer, ...)``
(:data:`ALGORITHM_KWARGS`); checkpoints saved with it load as usual.
"""

from __future__ import annotations

import math
import weakref
from functools import cached_property
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.distributions import MaskableCategorical, MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.preprocessing import is_image_space
from stable_baselines3.common.torch_layers import FlattenExtractor
from torch.distributions import Categorical, Distribution
from torch.distributions.utils import logits_to_probs, probs_to_logits

from tabletop_envs.core.onnx_policy import ACTIVATIONS, mlp_continue, sparse_linear

HUGE_NEG = -1e8  # what sb3-contrib writes into masked logits; kept so the logits match
TORCH_ACTIVATIONS = {"tanh": th.tanh, "relu": th.relu}
#: evaluate_actions reads only the active columns when they are at most this share of the observation
COMPACT_SHARE = 0.75
#: the rollout buffer hints each sample's legal actions when the most any sample has is at most this
#: share of the actions
COMPACT_ACTION_SHARE = 0.5


class FastMaskableCategorical(MaskableCategorical):
    def __init__(self, probs=None, logits=None, validate_args=None, masks=None):
        self._fast = None
        if logits is None:  # the masking shortcut below works on logits; probs take the stock path
            super().__init__(probs, logits, validate_args=False, masks=masks)
            return
        self._masks = None
        self._validate_args = False
        self._original_logits = logits  # unnormalised: apply_masking normalises whichever way it goes
        self.apply_masking(masks)

    def apply_masking(self, masks) -> None:
        original = self._original_logits
        self._fast = None
        for cached in ("probs", "logits"):
            self.__dict__.pop(cached, None)
        if masks is None:
            self.masks = None
            Categorical.__init__(self, logits=original, validate_args=False)
            return
        # 0/1 in the logits' dtype: every masking step below is a multiplication, which is several
        # times cheaper than masked_fill (backward included) on a batch of hundreds of actions.
        # The rollout buffer stores masks as float 0/1, which arrive as they are.
        m = th.as_tensor(masks, device=original.device).reshape(original.shape)
        if m.dtype != original.dtype:
            m = m.ne(0).to(original.dtype)
        with th.no_grad():  # the largest legal logit: the shift cancels out of the normalised logits
            top = (original - (1.0 - m) * 1e9).amax(-1, keepdim=True)
        # Illegal entries become 0: never exponentiated into an underflow (slow) or an overflow
        # (NaN gradients), and their gradient is exactly 0, as under sb3-contrib's masking.
        shifted = (original - top) * m
        exp = th.exp(shifted) * m
        total = exp.sum(-1)
        # A NaN or +inf logit anywhere, or -inf at an illegal action (times its 0 mask entry), makes
        # its row's total NaN; a row without a legal action has no top. Both take sb3-contrib's own
        # path, which masks such logits and stays finite. One sync for both checks.
        if not bool((top > -5e8).all() & th.isfinite(total).all()):
            self.logits = original  # it reads the shape from here, then normalises anew
            super().apply_masking(m.ne(0))
            return
        self.masks = m
        self._fast = (m, shifted, exp, total, th.log(total))
        self._param = shifted
        self._num_events = shifted.size(-1)
        Distribution.__init__(self, shifted.size()[:-1], validate_args=False)

    # The normalised logits and the probabilities are full-size tensors that PPO's update never
    # needs (log_prob and entropy below are computed without them); they are made when asked for.
    @cached_property
    def logits(self) -> th.Tensor:
        if self._fast is None:
            return probs_to_logits(self.probs)
        m, shifted, _, _, log_total = self._fast
        # exact log-probabilities (not log(probs) clamped at float eps); masked ones as sb3-contrib's
        return th.where(m > 0, shifted - log_total[..., None], HUGE_NEG)

    @cached_property
    def probs(self) -> th.Tensor:
        if self._fast is None:
            return logits_to_probs(self.logits)
        _, _, exp, total, _ = self._fast
        return exp / total[..., None]  # masked probabilities are exactly 0

    @property
    def masks(self):
        masks = self._masks
        if masks is not None and masks.dtype != th.bool:
            masks = self._masks = masks > 0
        return masks

    @masks.setter
    def masks(self, value) -> None:
        self._masks = value

    def log_prob(self, value: th.Tensor) -> th.Tensor:
        if self._fast is None or value.shape != self.batch_shape:
            return super().log_prob(value)
        m, shifted, _, _, log_total = self._fast
        index = value.long().unsqueeze(-1)
        log_prob = shifted.gather(-1, index).squeeze(-1) - log_total
        return th.where(m.gather(-1, index).squeeze(-1) > 0, log_prob, HUGE_NEG)

    def entropy(self) -> th.Tensor:
        if self._fast is None:  # unmasked, or masked the stock way
            return super().entropy()
        _, shifted, exp, total, log_total = self._fast
        # -sum p log p with p = exp / total and log p = shifted - log total
        return log_total - (exp * shifted).sum(-1) / total


def legal_log_prob_entropy(logits: th.Tensor, actions: th.Tensor, masks: th.Tensor, index: th.Tensor,
                           valid: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
    """The masked distribution's log-probabilities of ``actions`` and its entropy, from the legal
    logits only: ``index`` (batch x width) holds each row's legal actions, ``valid`` which of its
    entries are real (the rest pad the row). Every row needs a legal action. A taken action that
    ``masks`` (0/1, batch x actions) calls illegal gets sb3-contrib's -1e8, as in
    :meth:`FastMaskableCategorical.log_prob`."""
    legal_logits = th.where(valid, logits.gather(1, index), -math.inf)
    log_total = th.logsumexp(legal_logits, 1)
    probs = th.exp(legal_logits - log_total[:, None])  # padding: exp(-inf) = 0
    # -sum p log p = log total - sum p * logit; the padding's 0 * -inf would be NaN, so 0 * 0
    entropy = log_total - (probs * th.where(valid, legal_logits, 0.0)).sum(1)
    taken = actions.long().reshape(-1, 1)
    log_prob = logits.gather(1, taken).squeeze(1) - log_total
    return th.where(masks.gather(1, taken).squeeze(1) > 0, log_prob, HUGE_NEG), entropy


class FastMaskableCategoricalDistribution(MaskableCategoricalDistribution):
    def proba_distribution(self, action_logits: th.Tensor):
        self.distribution = FastMaskableCategorical(logits=action_logits.view(-1, self.action_dim))
        return self


class FastMaskablePolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` (MlpPolicy) with :class:`FastMaskableCategorical`; Discrete actions."""

    def __init__(self, observation_space, action_space, *args, **kwargs):
        if not isinstance(action_space, spaces.Discrete):
            raise TypeError(f"FastMaskablePolicy needs a Discrete action space, got {action_space}; "
                            "use sb3-contrib's MlpPolicy for other spaces")
        if kwargs.get("optimizer_class", th.optim.Adam) is th.optim.Adam:
            # one fused kernel per step instead of a dozen passes over every weight: the same Adam,
            # and the widest first layers (Earth: 5,148 x 128, twice) made the separate passes costly
            kwargs["optimizer_kwargs"] = {"fused": True, **(kwargs.get("optimizer_kwargs") or {})}
        super().__init__(observation_space, action_space, *args, **kwargs)
        self.action_dist = FastMaskableCategoricalDistribution(int(action_space.n))
        self.optimizer.register_step_post_hook(_call_weakly(self._weights_changed))

    def forward(self, obs: th.Tensor, deterministic: bool = False, action_masks=None):
        plan = None if th.is_grad_enabled() or obs.device.type != "cpu" else self._numpy_plan()
        if plan is None:
            return super().forward(obs, deterministic, action_masks)
        layers, num_actions, act = plan
        x = obs.numpy().astype(np.float32, copy=False).reshape(obs.shape[0], -1)
        # the policy's and the value network's layers side by side: one product per depth
        out = mlp_continue(sparse_linear(x, *layers[0]), layers[1:], act)
        logits = out[:, :num_actions]
        mask = None if action_masks is None else np.asarray(action_masks, bool).reshape(logits.shape)
        # without a mask the logits are shifted in place: nothing reads them from `out` afterwards
        shifted = logits if mask is None else np.where(mask, logits, -np.inf)
        top = shifted.max(1, keepdims=True)
        # a row without a legal action (-inf): sb3-contrib's own fallback; NaN or +inf logits (a diverged
        # update): torch's path, whose sampling refuses them, where the inverse CDF below took action 0
        if not np.isfinite(top).all():
            return super().forward(obs, deterministic, action_masks)
        shifted -= top
        cumulative = np.cumsum(np.exp(shifted), 1)  # exp(-inf) = 0: illegal actions add nothing
        total = cumulative[:, -1]
        if deterministic:
            actions = shifted.argmax(1)
        else:
            # inverse CDF with u in (0, 1]: the first index whose cumulative mass reaches u * total,
            # never an illegal one (it adds no mass) nor past the last legal one
            u = 1.0 - th.rand(x.shape[0], dtype=th.float64).numpy()
            actions = (cumulative < (u * total)[:, None]).sum(1)  # int64, as sb3 stores actions
        log_prob = shifted[np.arange(x.shape[0]), actions] - np.log(total)  # float32, as logits
        return th.from_numpy(actions), th.from_numpy(np.ascontiguousarray(out[:, num_actions:])), th.from_numpy(log_prob)

    def _mlp(self):
        """``(policy linears + action_net, value linears + value_net, activation name)`` of a plain
        MlpPolicy on a Box observation, or None for anything else (then sb3's own paths run)."""
        if not hasattr(self, "_linears"):
            self._linears = None
            extractors = [self.features_extractor] if self.share_features_extractor else \
                [self.pi_features_extractor, self.vf_features_extractor]
            # an image space is divided by 255 on its way in (sb3's preprocess_obs): torch's path only
            scaled = is_image_space(self.observation_space) and self.normalize_images
            if isinstance(self.observation_space, spaces.Box) and not scaled and \
                    all(type(e) is FlattenExtractor for e in extractors):
                from .export import linear_layers

                try:
                    pi, act = linear_layers(self.mlp_extractor.policy_net)
                    vf, vf_act = linear_layers(self.mlp_extractor.value_net)
                except TypeError:
                    return None
                if None in (act, vf_act) or act == vf_act:
                    self._linears = (pi + [self.action_net], vf + [self.value_net], act or vf_act or "tanh")
                    self._weights = [t for lin in self._linears[0] + self._linears[1] for t in (lin.weight, lin.bias)]
                    self._copies_key = None
        return self._linears

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor, action_masks=None):
        """sb3-contrib's ``evaluate_actions``, with two shortcuts that :class:`FastMaskableRolloutBuffer`
        hints on its minibatches.

        - ``active_columns`` (on the observations): the first layers read only those. An observation
          column that is 0 in every sample of the rollout adds exactly 0 to the first layers'
          products and gets exactly 0 gradient, so leaving it out changes nothing but float
          rounding. Our observations are wide and sparse (Earth: 5,148 columns, about 1,600 of them
          ever non-zero in a rollout), and the first layers' products, forward and backward, were
          the largest cost of the update.
        - ``legal_actions`` (on the masks): each sample's legal actions, padded to the rollout's
          largest count. The log-probabilities and the entropy are computed over those few logits
          instead of all of them (Travel Earth: at most about a dozen legal of 449). An illegal
          action has probability exactly 0, so it adds nothing to the normaliser or the entropy and
          gets no gradient from them: the same numbers, to float rounding.
        """
        columns = getattr(obs, "active_columns", None)
        legal = getattr(action_masks, "legal_actions", None)
        mlp = self._mlp() if columns is not None or legal is not None else None
        # with most columns active the gathers cost more than the products they save
        if columns is not None and len(columns) > COMPACT_SHARE * obs[0].numel():
            columns = None
        if mlp is None or (columns is None and legal is None):
            return super().evaluate_actions(obs, actions, action_masks=action_masks)
        pi, vf, act = mlp
        act = TORCH_ACTIVATIONS[act]
        x = obs.reshape(obs.shape[0], -1).float()
        if columns is not None:
            x = x.index_select(1, columns)
        latents = []
        for layers in (pi, vf):
            first = layers[0]
            weight = first.weight if columns is None else first.weight.index_select(1, columns)
            h = th.nn.functional.linear(x, weight, first.bias)
            for layer in layers[1:]:
                h = layer(act(h))
            latents.append(h)
        logits, values = latents
        if legal is None:
            distribution = self.action_dist.proba_distribution(action_logits=logits)
            if action_masks is not None:
                distribution.apply_masking(action_masks)
            return values, distribution.log_prob(actions), distribution.entropy()
        return values, *legal_log_prob_entropy(logits, actions, action_masks, *legal)

    def _numpy_plan(self):
        """The rollout's numpy forward, or None where it doesn't apply (then torch's runs).

        The policy's and the value network's layers of each depth are one matrix: the first layers
        side by side (both read the observation), the later ones block-diagonal, so the output holds
        the logits and then the value. At a rollout's few rows the wasted zero blocks cost less than
        a second chain of numpy calls. Each matrix is (in, out) in row order: the sparse first layer
        gathers whole rows (a few cache lines each) instead of a strided column of a transposed view
        (one line per element, all cold after the envs have stepped). The copies are made again
        when a weight's storage or version changes (``load_state_dict``, in-place edits) and when
        the policy's optimiser steps (a fused step leaves the version alone). Networks whose policy
        and value branches differ in depth take torch's path.
        """
        if self._mlp() is None or len(self._linears[0]) != len(self._linears[1]):
            return None
        key = [(t.data_ptr(), t._version) for t in self._weights]
        if key != self._copies_key:
            pi, vf, act = self._linears
            layers = []
            for depth, (p, v) in enumerate(zip(pi, vf)):
                wp, wv = p.weight.detach().numpy().T, v.weight.detach().numpy().T
                if depth == 0:
                    w = np.concatenate([wp, wv], 1)
                else:
                    w = np.zeros((wp.shape[0] + wv.shape[0], wp.shape[1] + wv.shape[1]), np.float32)
                    w[:wp.shape[0], :wp.shape[1]] = wp
                    w[wp.shape[0]:, wp.shape[1]:] = wv
                layers.append((np.ascontiguousarray(w), np.concatenate([p.bias.detach().numpy(), v.bias.detach().numpy()])))
            self._copies = (layers, pi[-1].out_features, ACTIVATIONS[act])
            self._copies_key = key
        return self._copies

    def _weights_changed(self, *_) -> None:
        self._copies_key = None


def _call_weakly(method):
    """A hook that calls ``method`` while its object lives (the optimiser must not keep the policy alive)."""
    ref = weakref.WeakMethod(method)

    def hook(*_):
        bound = ref()
        if bound is not None:
            bound()

    return hook


class FastMaskableRolloutBuffer(MaskableRolloutBuffer):
    """``MaskableRolloutBuffer`` whose minibatches are tensors over the indexed copies themselves."""

    # what active_columns and legal_actions computed, and the arrays they computed it from (None: not yet)
    _columns: th.Tensor
    _columns_of: np.ndarray | None
    _legal: tuple[np.ndarray, np.ndarray] | None
    _legal_of: np.ndarray | None

    def reset(self) -> None:
        super().reset()
        self._columns_of = self._legal_of = None

    # sb3-contrib declares add(*args, action_masks, **kwargs) and passes RolloutBuffer.add's arguments through;
    # MaskablePPO calls it with those six positionally, as this one takes them
    def add(self, obs, action, reward, episode_start, value, log_prob,  # type: ignore[override]
            action_masks=None) -> None:
        """``MaskableRolloutBuffer.add``, writing each input into the rollout directly: sb3 first copies
        every one of them (``np.array``, ``clone``), and the assignment copies again."""
        if isinstance(self.observation_space, spaces.Discrete) or log_prob.dim() == 0:
            return super().add(obs, action, reward, episode_start, value, log_prob, action_masks=action_masks)
        pos = self.pos
        if action_masks is not None:
            self.action_masks[pos] = action_masks.reshape((self.n_envs, self.mask_dims))
        self.observations[pos] = obs
        self.actions[pos] = action.reshape((self.n_envs, self.action_dim))
        self.rewards[pos] = reward
        self.episode_starts[pos] = episode_start
        self.values[pos] = value.detach().cpu().numpy().reshape(-1)
        self.log_probs[pos] = log_prob.detach().cpu().numpy()
        self.pos += 1
        if self.pos == self.buffer_size:
            self.full = True

    # its samples are another NamedTuple than RolloutBuffer's, as in sb3-contrib's own (which ignores this too)
    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:  # type: ignore[override]
        if self.device.type != "cpu":
            return super()._get_samples(batch_inds, env)
        data = (
            self.observations[batch_inds],  # fancy indexing: a fresh array, safe to share with torch
            self.actions[batch_inds],
            self.values[batch_inds].flatten(),
            self.log_probs[batch_inds].flatten(),
            self.advantages[batch_inds].flatten(),
            self.returns[batch_inds].flatten(),
            self.action_masks[batch_inds].reshape(-1, self.mask_dims),
        )
        samples = MaskableRolloutBufferSamples(*(th.from_numpy(np.ascontiguousarray(a)) for a in data))
        # hints that FastMaskablePolicy.evaluate_actions reads and any other policy ignores
        samples.observations.active_columns = self.active_columns()  # type: ignore[attr-defined]  # a hint set at runtime
        legal = self.legal_actions()
        if legal is not None:
            samples.action_masks.legal_actions = tuple(  # type: ignore[attr-defined]  # a hint set at runtime
                th.from_numpy(a[batch_inds]) for a in legal)
        return samples

    def active_columns(self) -> th.Tensor:
        """The flat observation columns that are non-zero somewhere in this rollout (computed once)."""
        if self._columns_of is not self.observations:  # the flattened rollout is a new array
            flat = self.observations.reshape(self.observations.shape[0], -1)
            self._columns = th.from_numpy(np.flatnonzero(flat.any(0)))
            self._columns_of = self.observations
        return self._columns

    def legal_actions(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Each sample's legal actions in ascending order, padded to the rollout's largest count
        (``index``, int64), and which entries are real (``valid``); computed once per rollout. None
        when that count exceeds ``COMPACT_ACTION_SHARE`` of the actions (nothing to save) or a sample
        has no legal action."""
        if self._legal_of is not self.action_masks:
            legal = self.action_masks.reshape(-1, self.mask_dims) > 0
            counts = legal.sum(1)
            width = int(counts.max()) if counts.size else 0
            self._legal = None
            if counts.size and counts.min() > 0 and width <= COMPACT_ACTION_SHARE * self.mask_dims:
                rows, actions = np.nonzero(legal)  # row by row, ascending within a row
                slot = np.arange(rows.shape[0]) - np.repeat(np.cumsum(counts) - counts, counts)
                index = np.zeros((legal.shape[0], width), np.int64)  # padding points at action 0, unused
                valid = np.zeros((legal.shape[0], width), bool)
                index[rows, slot] = actions
                valid[rows, slot] = True
                self._legal = (index, valid)
            self._legal_of = self.action_masks
        return self._legal


#: what training.train gives MaskablePPO besides the settings of a recipe
ALGORITHM_KWARGS: dict[str, Any] = {"policy": FastMaskablePolicy, "rollout_buffer_class": FastMaskableRolloutBuffer}
