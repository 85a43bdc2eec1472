"""The fast masked distribution gives sb3-contrib's numbers, and training uses it."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="needs the [train] extra (torch, stable-baselines3, sb3-contrib)")

import torch  # noqa: E402
from sb3_contrib.common.maskable.distributions import MaskableCategorical  # noqa: E402
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402
from stable_baselines3.common.torch_layers import FlattenExtractor  # noqa: E402

from training.masked_policy import FastMaskableCategorical, FastMaskablePolicy  # noqa: E402


def _pair(logits, mask):
    stock, fast = MaskableCategorical(logits=logits), FastMaskableCategorical(logits=logits)
    stock.apply_masking(mask)
    fast.apply_masking(mask)
    return stock, fast


def _cases():
    gen = torch.Generator().manual_seed(0)
    for batch, actions, legal_share, scale in [(64, 730, 0.03, 3.0), (32, 203, 0.2, 1.0), (16, 7, 0.9, 1.0),
                                                (8, 50, 0.3, 60.0)]:  # scale 60: legal logits that underflow
        logits = torch.randn(batch, actions, generator=gen) * scale
        mask = torch.rand(batch, actions, generator=gen) < legal_share
        mask[:, 0] = True
        mask[0] = False
        mask[0, 3] = True  # a row with a single legal action
        yield logits, mask


def _recorded(env_id, n=6, seed=0):
    """Real observations with their masks, as a rollout sees them (random legal play)."""
    from tabletop_envs.core.single_agent import SingleAgentEnv

    env = SingleAgentEnv(env_id)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    o, _ = env.reset(seed=seed)
    while len(obs) < n:
        m = env.action_masks()
        obs.append(o)
        masks.append(m)
        o, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(m))))
        if term or trunc:
            o, _ = env.reset()
    return env, torch.as_tensor(np.array(obs)), np.array(masks)


def _terralore_batch(n=6, seed=0):
    """Real, sparse Terralore observations: what the numpy forward's sparse path sees."""
    return _recorded("terralore_v0", n, seed)


@pytest.mark.parametrize("case", list(range(4)))
def test_masked_log_probs_probabilities_entropy_and_gradients_match_sb3_contrib(case):
    logits, mask = list(_cases())[case]
    logits_s, logits_f = logits.clone().requires_grad_(), logits.clone().requires_grad_()
    stock, fast = _pair(logits_s, mask)[0], _pair(logits_f, mask)[1]
    actions = torch.stack([torch.multinomial(m.float(), 1)[0] for m in mask])  # legal actions, as PPO replays
    torch.testing.assert_close(fast.log_prob(actions), stock.log_prob(actions), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(fast.probs, stock.probs, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(fast.entropy(), stock.entropy(), atol=1e-5, rtol=1e-5)
    assert (fast.probs[~mask] == 0).all()
    assert (fast.logits[~mask] == -1e8).all()
    (stock.log_prob(actions).sum() + 0.01 * stock.entropy().sum()).backward()
    (fast.log_prob(actions).sum() + 0.01 * fast.entropy().sum()).backward()
    torch.testing.assert_close(logits_f.grad, logits_s.grad, atol=1e-5, rtol=1e-4)


def test_samples_and_the_mode_are_always_legal():
    for logits, mask in _cases():
        fast = FastMaskableCategorical(logits=logits)
        fast.apply_masking(mask)
        for _ in range(20):
            assert mask.gather(1, fast.sample()[:, None]).all()
        assert mask.gather(1, fast.probs.argmax(-1)[:, None]).all()  # what deterministic predict takes


def test_no_mask_and_a_row_without_legal_actions_behave_as_sb3_contrib():
    logits = torch.randn(4, 9)
    stock, fast = _pair(logits, None)
    torch.testing.assert_close(fast.probs, stock.probs)
    torch.testing.assert_close(fast.entropy(), stock.entropy())
    mask = torch.ones(4, 9, dtype=torch.bool)
    mask[2] = False  # sb3-contrib falls back to all actions alike
    stock, fast = _pair(logits, mask)
    torch.testing.assert_close(fast.probs, stock.probs)
    torch.testing.assert_close(fast.entropy(), stock.entropy())
    fast.apply_masking(None)  # removing the mask restores the unmasked distribution
    torch.testing.assert_close(fast.probs, torch.softmax(logits, -1))


def test_an_infinite_negative_logit_gives_sb3_contrib_s_distribution_not_nan():
    # -inf at an illegal action times its 0 mask entry was NaN: the whole row's distribution was NaN
    logits = torch.randn(3, 6, generator=torch.Generator().manual_seed(1))
    logits[0, 1] = logits[1, 2] = -float("inf")
    mask = torch.ones(3, 6, dtype=torch.bool)
    mask[0, 1] = False  # row 0: the -inf logit is illegal; row 1: it is legal
    stock, fast = _pair(logits, mask)
    actions = torch.tensor([0, 3, 5])
    assert torch.isfinite(fast.probs[0]).all() and torch.isfinite(fast.entropy()[0])
    torch.testing.assert_close(fast.probs, stock.probs)
    torch.testing.assert_close(fast.entropy(), stock.entropy(), equal_nan=True)  # row 1: NaN in both
    torch.testing.assert_close(fast.log_prob(actions), stock.log_prob(actions))


def test_float_masks_from_the_rollout_buffer_and_remasking_give_the_same_distribution():
    logits, mask = list(_cases())[1]
    stock = MaskableCategorical(logits=logits)
    stock.apply_masking(mask)
    fast = FastMaskableCategorical(logits=logits)
    fast.apply_masking(mask.float())  # MaskableRolloutBuffer hands the update float 0/1 masks
    torch.testing.assert_close(fast.probs, stock.probs, atol=1e-6, rtol=1e-5)
    assert fast.masks.dtype == torch.bool and torch.equal(fast.masks, mask)
    other = torch.ones_like(mask)
    fast.apply_masking(other.numpy().astype(np.int8))  # cached probabilities must not survive a new mask
    torch.testing.assert_close(fast.probs, torch.softmax(logits, -1), atol=1e-6, rtol=1e-5)
    fast.apply_masking(mask)
    illegal = (~mask).float().argmax(-1)  # the first illegal action of every row (row 0 has some)
    assert (fast.log_prob(illegal)[(~mask).any(-1)] == -1e8).all()  # as sb3-contrib, to float rounding
    assert (stock.log_prob(illegal)[(~mask).any(-1)] < -9.9e7).all()


def test_the_policy_evaluates_actions_as_the_stock_policy_with_the_same_weights(toy):
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    env, obs_t, masks_np = _recorded(toy, 40)
    kwargs = {"net_arch": [16], "lr_schedule": lambda _: 1e-3}
    stock = MaskableActorCriticPolicy(env.observation_space, env.action_space, **kwargs)
    fast = FastMaskablePolicy(env.observation_space, env.action_space, **kwargs)
    fast.load_state_dict(stock.state_dict())
    actions = torch.as_tensor([int(np.flatnonzero(m)[0]) for m in masks_np])
    with torch.no_grad():
        v_s, lp_s, ent_s = stock.evaluate_actions(obs_t, actions, action_masks=masks_np)
        v_f, lp_f, ent_f = fast.evaluate_actions(obs_t, actions, action_masks=masks_np)
    torch.testing.assert_close(v_f, v_s)
    torch.testing.assert_close(lp_f, lp_s, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ent_f, ent_s, atol=1e-5, rtol=1e-5)


def test_a_distribution_made_from_probabilities_gives_sb3_contrib_s_numbers():
    gen = torch.Generator().manual_seed(1)
    probs = torch.softmax(torch.randn(8, 6, generator=gen), -1)
    mask = torch.rand(8, 6, generator=gen) < 0.5
    mask[:, 2] = True
    stock, fast = MaskableCategorical(probs=probs, masks=mask), FastMaskableCategorical(probs=probs, masks=mask)
    actions = torch.full((8,), 2)
    torch.testing.assert_close(fast.logits, stock.logits)
    torch.testing.assert_close(fast.log_prob(actions), stock.log_prob(actions))
    torch.testing.assert_close(fast.entropy(), stock.entropy())


def test_the_policy_refuses_a_non_discrete_action_space():
    import gymnasium

    space = gymnasium.spaces.Box(0, 1, (3,), np.float32)
    with pytest.raises(TypeError, match="Discrete"):
        FastMaskablePolicy(space, gymnasium.spaces.MultiDiscrete([2, 3]), lambda _: 1e-3)


def test_the_policy_uses_fused_adam_and_its_step_equals_the_plain_adam_step():
    import gymnasium

    obs_space, act_space = gymnasium.spaces.Box(0, 1, (12,), np.float32), gymnasium.spaces.Discrete(5)
    fast = FastMaskablePolicy(obs_space, act_space, lambda _: 1e-2, net_arch=[8])
    plain = FastMaskablePolicy(obs_space, act_space, lambda _: 1e-2, net_arch=[8], optimizer_kwargs={"fused": False})
    assert fast.optimizer.param_groups[0]["fused"] and not plain.optimizer.param_groups[0]["fused"]
    plain.load_state_dict(fast.state_dict())
    start = [p.detach().clone() for p in fast.parameters()]
    obs = torch.rand(32, 12)
    actions = torch.randint(0, 5, (32,))
    for policy in (fast, plain):
        for _ in range(3):
            values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=np.ones((32, 5), bool))
            loss = -log_prob.mean() + values.pow(2).mean() - 0.01 * entropy.mean()
            policy.optimizer.zero_grad()
            loss.backward()
            policy.optimizer.step()
    for a, b in zip(fast.parameters(), plain.parameters()):
        torch.testing.assert_close(a, b, atol=1e-6, rtol=1e-5)
    assert all((a - b).abs().max() > 1e-4 for a, b in zip(fast.parameters(), start))  # the steps moved every weight


def test_the_policy_gives_another_optimiser_class_no_fused_option_and_steps_after_the_policy_is_gone():
    import gc

    import gymnasium

    # RMSprop takes no `fused`: passing it the fused Adam's keyword was a TypeError
    policy = FastMaskablePolicy(gymnasium.spaces.Box(0, 1, (4,), np.float32), gymnasium.spaces.Discrete(3),
                                lambda _: 1e-2, net_arch=[8], optimizer_class=torch.optim.RMSprop)
    optimizer = policy.optimizer
    assert type(optimizer) is torch.optim.RMSprop
    weight = policy.action_net.weight
    del policy
    gc.collect()
    # the optimiser outlives the policy (it holds only the weights): its step hook finds no policy to tell
    weight.grad = torch.ones_like(weight)
    before = weight.detach().clone()
    optimizer.step()
    assert (weight.detach() < before).all()


# ----------------------------------------------------------------- the rollout's numpy forward
def _torch_forward(policy, obs, masks, deterministic):
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    with torch.no_grad():
        return MaskableActorCriticPolicy.forward(policy, obs, deterministic=deterministic, action_masks=masks)


@pytest.mark.parametrize("arch", [{"net_arch": [32, 16]}, {"net_arch": [24], "activation_fn": torch.nn.ReLU},
                                  {"net_arch": [16], "share_features_extractor": False}, {"net_arch": []}])
@pytest.mark.parametrize("dense", [False, True])
def test_the_rollout_forward_runs_in_numpy_and_matches_torch(arch, dense):
    env, obs, masks = _terralore_batch()
    if dense:  # every column non-zero: the dense product instead of the sparse rows
        obs = torch.rand(obs.shape)
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, **arch)
    assert policy._numpy_plan() is not None
    torch.manual_seed(1)
    with torch.no_grad():
        greedy, values, log_prob = policy(obs, deterministic=True, action_masks=masks)
        sampled, _, sampled_log_prob = policy(obs, action_masks=masks)
    t_greedy, t_values, t_log_prob = _torch_forward(policy, obs, masks, deterministic=True)
    assert greedy.dtype == t_greedy.dtype == torch.int64 and values.shape == t_values.shape
    assert torch.equal(greedy, t_greedy)
    torch.testing.assert_close(values, t_values, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(log_prob, t_log_prob, atol=1e-5, rtol=1e-5)
    # what the update will compare the rollout's log-probabilities with
    _, replay_log_prob, _ = policy.evaluate_actions(obs, sampled, action_masks=masks)
    torch.testing.assert_close(sampled_log_prob, replay_log_prob.detach(), atol=1e-5, rtol=1e-5)
    assert masks[np.arange(len(masks)), sampled.numpy()].all()


def test_the_rollout_forward_without_masks_matches_torch():
    env, obs, _ = _terralore_batch()
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[32, 16])
    with torch.no_grad():
        got = policy(obs, deterministic=True)
    expected = _torch_forward(policy, obs, None, True)
    assert torch.equal(got[0], expected[0])
    for a, b in zip(got[1:], expected[1:]):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)


def test_branches_of_different_depths_take_torchs_path_in_the_rollout():
    env, obs, masks = _terralore_batch()
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3,
                                net_arch={"pi": [16, 8], "vf": [16]})
    assert policy._numpy_plan() is None  # the layers of a depth could not be one matrix
    with torch.no_grad():
        got = policy(obs, deterministic=True, action_masks=masks)
    for a, b in zip(got, _torch_forward(policy, obs, masks, True)):
        torch.testing.assert_close(a, b)


def test_branches_of_different_activations_take_torchs_path_in_the_rollout():
    env, obs, masks = _terralore_batch()
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    policy.mlp_extractor.value_net[1] = torch.nn.ReLU()  # the policy branch keeps its tanh
    assert policy._numpy_plan() is None  # the numpy forward runs one activation for both
    with torch.no_grad():
        got = policy(obs, deterministic=True, action_masks=masks)
    for a, b in zip(got, _torch_forward(policy, obs, masks, True)):
        torch.testing.assert_close(a, b)


def test_rollout_samples_follow_the_masked_probabilities_and_torchs_seed():
    env, obs, masks = _terralore_batch(n=1)
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    with torch.no_grad():  # sharpen the logits so the frequencies differ visibly between actions
        policy.action_net.weight.mul_(40)
    batch = obs.repeat(4000, 1)
    masks = np.repeat(masks, 4000, 0)
    torch.manual_seed(7)
    with torch.no_grad():
        actions = policy(batch, action_masks=masks)[0].numpy()
    torch.manual_seed(7)
    with torch.no_grad():
        assert np.array_equal(policy(batch, action_masks=masks)[0].numpy(), actions)  # seeded as torch is
    probs = policy.get_distribution(obs, action_masks=masks[:1]).distribution.probs[0].detach().numpy()
    counts = np.bincount(actions, minlength=probs.shape[0])
    assert counts[~masks[0]].sum() == 0
    assert probs.max() < 0.9 and (probs > 0.02).sum() >= 2  # a real choice between several actions
    # each action's count within 5 binomial standard deviations of its expectation
    assert np.all(np.abs(counts - 4000 * probs) <= 5 * np.sqrt(4000 * probs * (1 - probs)) + 1)


def test_the_numpy_forward_follows_optimiser_steps_in_place_updates_and_moved_weights():
    env, obs, masks = _terralore_batch()
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    other = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    with torch.no_grad():
        before = policy(obs, deterministic=True, action_masks=masks)[1]
    policy.load_state_dict(other.state_dict())  # in place: the cached views see it
    with torch.no_grad():
        after = policy(obs, deterministic=True, action_masks=masks)[1]
    torch.testing.assert_close(after, _torch_forward(other, obs, masks, True)[1], atol=1e-5, rtol=1e-5)
    assert not torch.allclose(before, after)
    policy.value_net.weight.data = policy.value_net.weight.data * 2  # a new storage: the copies are remade
    with torch.no_grad():
        moved = policy(obs, deterministic=True, action_masks=masks)[1]
    torch.testing.assert_close(moved, _torch_forward(policy, obs, masks, True)[1], atol=1e-5, rtol=1e-5)
    assert policy.optimizer.param_groups[0]["fused"]  # whose in-place step leaves torch's version counter alone
    for _ in range(3):
        values, _, _ = policy.evaluate_actions(obs, torch.as_tensor(masks.argmax(1)), action_masks=masks)
        policy.optimizer.zero_grad()
        (values - 5.0).pow(2).mean().backward()
        policy.optimizer.step()
        with torch.no_grad():
            stepped = policy(obs, deterministic=True, action_masks=masks)[1]
        torch.testing.assert_close(stepped, _torch_forward(policy, obs, masks, True)[1], atol=1e-5, rtol=1e-5)
    assert not torch.allclose(stepped, moved)


def test_gradients_a_row_without_legal_actions_and_other_extractors_take_torchs_path():
    env, obs, masks = _terralore_batch()
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    _, values, log_prob = policy(obs, action_masks=masks)  # gradients on: the torch graph
    assert values.grad_fn is not None and log_prob.grad_fn is not None
    masks = masks.copy()
    masks[2] = False
    torch.manual_seed(3)
    with torch.no_grad():
        got = policy(obs, deterministic=True, action_masks=masks)
    for a, b in zip(got, _torch_forward(policy, obs, masks, True)):
        torch.testing.assert_close(a, b)
    policy.mlp_extractor.policy_net.append(torch.nn.Dropout(0.0))
    del policy._linears  # the plan is built once; rebuild it for the changed network
    assert policy._numpy_plan() is None


class _Doubling(FlattenExtractor):
    """A flatten that also scales: no weights, yet not what the numpy forward computes."""

    def forward(self, observations):
        return super().forward(observations) * 2


@pytest.mark.parametrize("observations", ["images scaled by 255", "an extractor of its own"])
def test_observations_that_sb3_does_not_just_flatten_take_torchs_path_in_the_rollout_and_the_update(observations):
    from gymnasium import spaces

    if observations == "images scaled by 255":
        space, kwargs = spaces.Box(0, 255, (8, 8, 1), np.uint8), {}  # an image space: sb3 divides it by 255
    else:
        space, kwargs = spaces.Box(0, 255, (8, 8, 1), np.float32), {"features_extractor_class": _Doubling}
    policy = FastMaskablePolicy(space, spaces.Discrete(4), lambda _: 1e-3, net_arch=[8], **kwargs)
    assert policy._numpy_plan() is None
    rng = np.random.default_rng(0)
    obs = torch.as_tensor(rng.integers(0, 2, (6, 8, 8, 1)) * 255, dtype=torch.uint8)
    masks = np.ones((6, 4), bool)
    actions = torch.zeros(6, dtype=torch.long)
    expected = MaskableActorCriticPolicy.evaluate_actions(policy, obs.float(), actions, action_masks=masks)
    hinted = obs.float()
    hinted.active_columns = torch.as_tensor(np.flatnonzero(obs.reshape(6, -1).numpy().any(0))[:10])
    for a, b in zip(policy.evaluate_actions(hinted, actions, action_masks=masks), expected):
        torch.testing.assert_close(a, b)
    with torch.no_grad():
        got = policy(obs.float(), deterministic=True, action_masks=masks)
    for a, b in zip(got, _torch_forward(policy, obs.float(), masks, True)):
        torch.testing.assert_close(a, b)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_rollout_from_non_finite_logits_fails_loudly_as_sb3_contrib_s_does(bad):
    # a diverged update's NaN weights: the numpy inverse CDF drew action 0 (legal or not) with a NaN
    # log-probability, where sb3-contrib's sampling refuses them
    env, obs, masks = _terralore_batch()
    masks[:, 0] = False  # the action the inverse CDF fell back on
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    with torch.no_grad():
        policy.action_net.bias[1:].fill_(bad)  # action 0's logit stays finite
    for cls in (MaskableActorCriticPolicy, FastMaskablePolicy):
        with torch.no_grad(), pytest.raises((RuntimeError, ValueError), match="(?i)nan|inf"):
            cls.forward(policy, obs, action_masks=masks)


def test_training_switches_torch_threads_between_collecting_and_updating(toy, monkeypatch, restore_torch_threads):
    from sb3_contrib import MaskablePPO

    from tabletop_envs.core.single_agent import SingleAgentEnv
    from training.callbacks import UpdateThreads
    from training.train import quiet_logger

    torch.set_num_threads(1)
    model = MaskablePPO(FastMaskablePolicy, SingleAgentEnv(toy), n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [8]}, device="cpu")
    model.set_logger(quiet_logger())
    seen = {"collect": set(), "update": set()}
    train = model.train

    def spy_train():
        seen["update"].add(torch.get_num_threads())
        return train()

    monkeypatch.setattr(model, "train", spy_train)
    threads = UpdateThreads(collect=1, update=2)
    original_step = threads._on_step

    def on_step():
        seen["collect"].add(torch.get_num_threads())
        return original_step()

    threads._on_step = on_step
    model.learn(192, callback=threads)
    assert seen["collect"] == {1}
    assert seen["update"] == {min(2, os.cpu_count())}
    assert torch.get_num_threads() == 1  # restored when training ends


def test_the_rollout_buffer_gives_the_stock_buffers_minibatches_as_tensors_of_their_own():
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    from training.masked_policy import FastMaskableRolloutBuffer

    obs_space, act_space = spaces.Box(0, 1, (5,), np.float32), spaces.Discrete(4)
    rng = np.random.default_rng(0)
    buffers = [cls(8, obs_space, act_space, device="cpu", n_envs=2) for cls in (MaskableRolloutBuffer,
                                                                                 FastMaskableRolloutBuffer)]
    for _ in range(8):
        # values as the policy returns them; episodes start mid-rollout, where the advantages must restart
        step = (rng.random((2, 5), dtype=np.float32), rng.integers(4, size=(2, 1)), rng.random(2), rng.random(2) < 0.3,
                torch.rand(2, 1), torch.rand(2), rng.random((2, 4)) < 0.5)
        for buffer in buffers:
            buffer.add(*step[:6], action_masks=step[6])
    last_values = torch.rand(2)
    for buffer in buffers:
        buffer.compute_returns_and_advantage(last_values, np.array([True, False]))
    assert buffers[0].episode_starts.any()
    minibatches = []
    for buffer in buffers:
        np.random.seed(0)  # get() shuffles with numpy's global generator
        minibatches.append(list(buffer.get(6)))
    for stock, fast in zip(*minibatches):
        for a, b in zip(stock, fast):
            torch.testing.assert_close(b, a, rtol=0, atol=0)
    first = minibatches[1][0]
    first.observations.add_(1)  # each minibatch owns its data: the rollout is untouched
    np.random.seed(0)
    torch.testing.assert_close(next(buffers[1].get(6)).observations, minibatches[0][0].observations, rtol=0, atol=0)


@pytest.mark.parametrize("case", ["a discrete observation", "steps without masks"])
def test_the_rollout_buffer_stores_discrete_observations_and_steps_without_masks_as_the_stock_buffer(case):
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    from training.masked_policy import FastMaskableRolloutBuffer

    obs_space = spaces.Discrete(5) if case == "a discrete observation" else spaces.Box(0, 1, (5,), np.float32)
    rng = np.random.default_rng(0)
    buffers = [cls(4, obs_space, spaces.Discrete(4), device="cpu", n_envs=2) for cls in (MaskableRolloutBuffer,
                                                                                          FastMaskableRolloutBuffer)]
    for _ in range(4):
        obs = rng.integers(5, size=2) if case == "a discrete observation" else rng.random((2, 5), dtype=np.float32)
        masks = rng.random((2, 4)) < 0.5 if case == "a discrete observation" else None
        step = (obs, rng.integers(4, size=(2, 1)), rng.random(2), rng.random(2) < 0.3, torch.rand(2, 1), torch.rand(2))
        for buffer in buffers:
            buffer.add(*step, action_masks=masks)
    for a, b in zip(buffers[0].observations, buffers[1].observations):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(buffers[0].action_masks, buffers[1].action_masks)  # no masks: all legal
    assert buffers[1].full


# ----------------------------------------------------------------- the update's active columns
def _hinted(obs, columns):
    hinted = obs.clone()
    hinted.active_columns = torch.as_tensor(columns)
    return hinted


def _evaluate_with_gradients(policy, obs, actions, masks):
    policy.zero_grad()
    values, log_prob, entropy = policy.evaluate_actions(obs, actions, action_masks=masks)
    (values.sum() + log_prob.sum() + entropy.sum()).backward()
    grads = [p.grad.clone() for p in policy.parameters()]
    return [values.detach(), log_prob.detach(), entropy.detach()], grads


@pytest.mark.parametrize("arch", [{"net_arch": [32, 16]}, {"net_arch": [24], "activation_fn": torch.nn.ReLU},
                                  {"net_arch": [16], "share_features_extractor": False}, {"net_arch": []},
                                  # the activation is the value branch's: the policy branch has none
                                  {"net_arch": {"pi": [], "vf": [16]}, "activation_fn": torch.nn.ReLU}])
def test_the_update_reads_only_the_rollouts_active_columns_and_matches_the_dense_update(arch):
    env, obs, masks = _recorded("terralore_v0", n=32)
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, **arch)
    actions = torch.as_tensor([np.flatnonzero(m)[0] for m in masks])
    active = np.flatnonzero(obs.numpy().any(0))
    assert len(active) < 0.75 * obs.shape[1]  # sparse enough for the compact path
    dense_out, dense_grads = _evaluate_with_gradients(policy, obs, actions, masks)
    out, grads = _evaluate_with_gradients(policy, _hinted(obs, active), actions, masks)
    for a, b in zip(out + grads, dense_out + dense_grads):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    # the hint is really read: leaving out an active column changes the result
    wrong, _ = _evaluate_with_gradients(policy, _hinted(obs, active[1:]), actions, masks)
    assert not torch.allclose(wrong[0], dense_out[0]) or not torch.allclose(wrong[1], dense_out[1])


def test_with_most_columns_active_the_update_takes_the_dense_path():
    env, obs, masks = _terralore_batch(n=8)
    obs = torch.rand(obs.shape)  # every column active
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    actions = torch.as_tensor([np.flatnonzero(m)[0] for m in masks])
    dense_out, _ = _evaluate_with_gradients(policy, obs, actions, masks)
    # a hint that would drop columns is not used when it keeps more than COMPACT_SHARE of them
    kept = np.arange(int(0.9 * obs.shape[1]))
    out, _ = _evaluate_with_gradients(policy, _hinted(obs, kept), actions, masks)
    for a, b in zip(out, dense_out):
        torch.testing.assert_close(a, b, rtol=0, atol=0)


def test_the_rollout_buffer_hints_the_columns_active_anywhere_in_the_current_rollout():
    from gymnasium import spaces

    from training.masked_policy import FastMaskableRolloutBuffer

    obs_space, act_space = spaces.Box(0, 1, (2, 5), np.float32), spaces.Discrete(3)
    buffer = FastMaskableRolloutBuffer(4, obs_space, act_space, device="cpu", n_envs=2)
    for rollout, hot in enumerate([(0, 3), (1, 9)]):
        buffer.reset()
        for step in range(4):
            obs = np.zeros((2, 2, 5), np.float32)
            obs[step % 2].flat[hot[step // 2]] = 0.5  # each hot column in one sample only
            buffer.add(obs, np.zeros((2, 1)), np.zeros(2), np.zeros(2, bool), torch.zeros(2), torch.zeros(2),
                       action_masks=np.ones((2, 3), bool))
        buffer.compute_returns_and_advantage(torch.zeros(2), np.zeros(2, bool))
        minibatches = list(buffer.get(3))
        for minibatch in minibatches:
            assert minibatch.observations.active_columns.tolist() == list(hot), rollout


# ----------------------------------------------------------------- the update's legal actions
def _legal_hint(masks, drop_one=False):
    """What FastMaskableRolloutBuffer hints: each row's legal actions, padded to the widest row."""
    width = int(masks.sum(1).max())
    index, valid = np.zeros((len(masks), width), np.int64), np.zeros((len(masks), width), bool)
    for row, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        if drop_one and row == 1 and len(legal) > 1:
            legal = legal[1:]
        index[row, :len(legal)], valid[row, :len(legal)] = legal, True
    hinted = torch.as_tensor(masks.astype(np.float32))
    hinted.legal_actions = (torch.as_tensor(index), torch.as_tensor(valid))
    return hinted


@pytest.mark.parametrize("env_id", ["terralore_v0", "travel_earth_v0"])
@pytest.mark.parametrize("columns", [False, True])
def test_the_update_reads_only_each_samples_legal_actions_and_matches_the_full_update(env_id, columns):
    env, obs, masks = _recorded(env_id, n=40, seed=1)
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[32, 16])
    rng = np.random.default_rng(0)
    actions = torch.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks])
    actions[0] = int(np.flatnonzero(~masks[0])[0])  # an illegal action gets sb3-contrib's -1e8
    # the full update: the policy without hints (itself checked against sb3-contrib's above)
    full_out, full_grads = _evaluate_with_gradients(policy, obs, actions, torch.as_tensor(masks.astype(np.float32)))
    if columns:
        obs = _hinted(obs, np.flatnonzero(obs.numpy().any(0)))
    out, grads = _evaluate_with_gradients(policy, obs, actions, _legal_hint(masks))
    assert out[1][0] == -1e8
    for a, b in zip(out + grads, full_out + full_grads):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5)
    # the hint is really read: a row that leaves out one of its legal actions gets another entropy
    wrong, _ = _evaluate_with_gradients(policy, obs, actions, _legal_hint(masks, drop_one=True))
    assert not torch.allclose(wrong[2][1], out[2][1])
    torch.testing.assert_close(wrong[2][2:], out[2][2:])


def _filled_buffer(masks_per_step, n_envs=2, actions=3):
    from gymnasium import spaces

    from training.masked_policy import FastMaskableRolloutBuffer

    obs_space, act_space = spaces.Box(0, 1, (4,), np.float32), spaces.Discrete(actions)
    buffer = FastMaskableRolloutBuffer(len(masks_per_step), obs_space, act_space, device="cpu", n_envs=n_envs)
    for masks in masks_per_step:
        buffer.add(np.ones((n_envs, 4), np.float32), np.zeros((n_envs, 1)), np.zeros(n_envs), np.zeros(n_envs, bool),
                   torch.zeros(n_envs), torch.zeros(n_envs), action_masks=np.asarray(masks, bool))
    buffer.compute_returns_and_advantage(torch.zeros(n_envs), np.zeros(n_envs, bool))
    return buffer


def test_the_rollout_buffer_hints_each_samples_legal_actions_padded_to_the_rollouts_widest():
    rng = np.random.default_rng(0)
    buffer = None
    for rollout in range(2):
        masks = rng.random((4, 2, 10)) < 0.2
        masks[..., 7] = True  # every sample has a legal action
        buffer = _filled_buffer(masks, actions=10) if buffer is None else buffer
        if rollout:  # the same buffer, reset and filled again: the hint follows the new rollout
            buffer.reset()
            for step in masks:
                buffer.add(np.ones((2, 4), np.float32), np.zeros((2, 1)), np.zeros(2), np.zeros(2, bool),
                           torch.zeros(2), torch.zeros(2), action_masks=step)
            buffer.compute_returns_and_advantage(torch.zeros(2), np.zeros(2, bool))
        width = int(masks.sum(-1).max())
        for minibatch in buffer.get(3):
            index, valid = minibatch.action_masks.legal_actions
            assert index.shape == valid.shape == (len(minibatch.actions), width)
            for row, mask in enumerate(minibatch.action_masks.numpy()):
                assert index[row][valid[row]].tolist() == np.flatnonzero(mask).tolist(), rollout


@pytest.mark.parametrize("case", ["a sample without a legal action", "too many legal actions"])
def test_the_rollout_buffer_gives_no_legal_hint_where_it_would_not_help_or_not_hold(case):
    masks = np.zeros((4, 2, 10), bool)
    masks[..., 2] = True
    if case == "a sample without a legal action":
        masks[1, 0] = False
    else:
        masks[3, 1, :6] = True  # 6 of 10 legal: more than COMPACT_ACTION_SHARE
    for minibatch in _filled_buffer(masks, actions=10).get(4):
        assert not hasattr(minibatch.action_masks, "legal_actions")


def test_training_warns_when_the_update_threads_would_fight_a_busy_core():
    from training.train import busy_core_hint

    hint = busy_core_hint(2, cores=2, load=1.2)
    assert hint is not None and "ppo.update_threads=1" in hint and "1.2" in hint
    assert busy_core_hint(2, cores=2, load=0.1) is None, "an idle machine gets no warning"
    assert busy_core_hint(1, cores=2, load=1.5) is None, "one update thread leaves the busy core alone"
    assert busy_core_hint(2, cores=8, load=1.5) is None, "spare cores: the update does not fight the busy one"
    assert busy_core_hint(4, cores=2, load=1.5) is not None, "a setting above the cores is capped at them"


def test_log_prob_of_a_stack_of_samples_matches_sb3_contrib():
    # torch's Categorical.log_prob broadcasts a (samples, batch) value over the batch; the fast path
    # gathers per row and so answers only a value of the batch's own shape
    logits, mask = list(_cases())[1]
    stock, fast = _pair(logits, mask)
    values = torch.stack([torch.multinomial(mask.float(), 1)[:, 0] for _ in range(3)])  # legal actions
    assert values.shape == (3, logits.shape[0])
    torch.testing.assert_close(fast.log_prob(values), stock.log_prob(values), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("draw, end", [(0.0, "last"), (1.0 - 2.0 ** -53, "first")])
def test_the_rollout_s_inverse_cdf_stays_on_legal_actions_at_both_ends_of_the_draw(monkeypatch, draw, end):
    # torch.rand draws from [0, 1): at either end the sample must be a legal action, the first or the last
    import training.masked_policy as masked_policy

    env, obs, masks = _terralore_batch()
    masks[:, 0] = False  # action 0 illegal everywhere: where an empty prefix of the CDF would land
    policy = FastMaskablePolicy(env.observation_space, env.action_space, lambda _: 1e-3, net_arch=[16])
    monkeypatch.setattr(masked_policy.th, "rand", lambda n, dtype: torch.full((n,), draw, dtype=dtype))
    with torch.no_grad():
        actions = policy(obs, action_masks=masks)[0].numpy()
    legal = [np.flatnonzero(m) for m in masks]
    assert list(actions) == [row[-1] if end == "last" else row[0] for row in legal]


def test_the_rollout_buffer_hints_columns_active_only_in_its_first_or_its_last_sample():
    from gymnasium import spaces

    from training.masked_policy import FastMaskableRolloutBuffer

    obs_space, act_space = spaces.Box(0, 1, (6,), np.float32), spaces.Discrete(3)
    buffer = FastMaskableRolloutBuffer(3, obs_space, act_space, device="cpu", n_envs=2)
    for step in range(3):
        obs = np.zeros((2, 6), np.float32)
        if step == 0:
            obs[0, 1] = 1.0  # the rollout's first sample (env 0, step 0) only
        if step == 2:
            obs[1, 4] = 1.0  # its last sample (env 1, step 2) only
        buffer.add(obs, np.zeros((2, 1)), np.zeros(2), np.zeros(2, bool), torch.zeros(2), torch.zeros(2),
                   action_masks=np.ones((2, 3), bool))
    buffer.compute_returns_and_advantage(torch.zeros(2), np.zeros(2, bool))
    for minibatch in buffer.get(2):
        assert minibatch.observations.active_columns.tolist() == [1, 4]
