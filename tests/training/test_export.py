"""Export parity (ONNX and numpy against torch) and the torch-free loader: refusal on mismatch, ids, legality."""

from __future__ import annotations

import json
import platform
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from extras import TRAIN_REASON, needs_onnx, needs_train

from tabletop_envs import ModelMismatchError, RuleOptionsWarning, TabletopError, load_policy
from tabletop_envs.core.onnx_policy import MLPPolicy, OnnxPolicy, load_model_policy


@pytest.fixture()
def toy_model(toy):
    pytest.importorskip("sb3_contrib", reason=TRAIN_REASON)
    import torch
    from sb3_contrib import MaskablePPO

    from tabletop_envs.core.single_agent import SingleAgentEnv

    model = MaskablePPO("MlpPolicy", SingleAgentEnv(toy), seed=3, device="cpu",
                        policy_kwargs={"net_arch": [24, 16], "activation_fn": torch.nn.ReLU})
    with torch.no_grad():  # move the weights away from the orthogonal init so the check is not trivial
        for p in model.policy.parameters():
            p.add_(torch.randn_like(p) * 0.3)
    return model


@pytest.fixture()
def exported(toy_model, tmp_path):
    from training.export import export_model

    path = export_model(toy_model, tmp_path / "toy" / "ppo", "toy_v0", training={"seed": 3},
                        evaluation={"vs_random": {"win": {"rate": 0.5}}})
    return path


def _real_observations(n_games=20):
    import toy_game

    game = toy_game.ToyGame()
    obs, masks = [], []
    rng = np.random.default_rng(0)
    for seed in range(n_games):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            player = state.current_player()
            obs.append(state.observation(player))
            masks.append(state.legal_action_mask().copy())
            state.apply_action(int(rng.choice(state.legal_actions())))
    return np.array(obs), np.array(masks)


def test_onnx_and_numpy_logits_match_torch_on_real_observations(toy_model, exported):
    import torch

    obs, masks = _real_observations()
    with torch.no_grad():
        dist = toy_model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
        torch_logits = toy_model.policy.action_net(toy_model.policy.mlp_extractor.forward_actor(
            toy_model.policy.extract_features(torch.as_tensor(obs)))).numpy()
        torch_actions = dist.get_actions(deterministic=True).numpy()
    onnx_policy = load_model_policy(exported, backend="onnxruntime")
    numpy_policy = load_model_policy(exported, backend="numpy")
    assert isinstance(onnx_policy, OnnxPolicy) and isinstance(numpy_policy, MLPPolicy)
    np.testing.assert_allclose(onnx_policy.logits(obs), torch_logits, atol=1e-5)
    np.testing.assert_allclose(numpy_policy.logits(obs), torch_logits, atol=1e-5)
    for policy in (onnx_policy, numpy_policy):
        actions = [policy.act(o, m, None) for o, m in zip(obs, masks)]
        np.testing.assert_array_equal(actions, torch_actions)  # same masked argmax as MaskablePPO


def test_a_numpy_snapshot_of_the_policy_keeps_its_weights_while_the_learner_trains_on(toy_model):
    import torch

    from training.export import numpy_policy

    snapshot = numpy_policy(toy_model)  # a frozen opponent of the pool, or a scheduled evaluation's player
    obs, _ = _real_observations(3)
    before = snapshot.logits(obs)
    with torch.no_grad():  # what an optimiser step does to the learner: its tensors change in place
        for p in toy_model.policy.parameters():
            p.add_(0.5)
    np.testing.assert_array_equal(snapshot.logits(obs), before)
    assert not np.allclose(numpy_policy(toy_model).logits(obs), before)


def test_cpu_info_reads_the_first_cores_block_of_proc_cpuinfo_tabs_and_all(monkeypatch):
    import io

    import training.export as export

    text = ("processor\t: 0\nmodel name\t: Fancy CPU @ 3.00GHz\nflags\t\t: fpu sse avx2\n\n"
            "processor\t: 1\nmodel name\t: Another CPU\n")
    monkeypatch.setattr(export, "open", lambda path, *a, **k: io.StringIO(text), raising=False)
    assert export.cpu_info() == {"model name": "Fancy CPU @ 3.00GHz"}
    assert export.cpu_info(("model name", "flags")) == {"model name": "Fancy CPU @ 3.00GHz", "flags": "fpu sse avx2"}

    def missing(path, *args, **kwargs):
        raise FileNotFoundError(path)  # not Linux: the model name from platform

    monkeypatch.setattr(export, "open", missing, raising=False)
    assert export.cpu_info()["model name"] == (export.platform.processor() or export.platform.machine())


def test_the_code_version_leaves_out_a_commit_and_training_packages_that_are_not_there(monkeypatch):
    import tabletop_envs
    import tabletop_envs.core.replay as replay
    from training.export import code_version

    monkeypatch.setattr(replay, "code_revision", lambda: "")  # an installed wheel: no checkout
    for package in ("stable_baselines3", "sb3_contrib", "torch"):  # an RLlib run's export: no [train] extra
        monkeypatch.setitem(sys.modules, package, None)
    assert code_version() == {"tabletop_envs": tabletop_envs.__version__, "python": platform.python_version()}
    monkeypatch.setattr(replay, "code_revision", lambda: "abc1234")
    assert code_version()["git"] == "abc1234"


def test_sidecar_records_env_layout_training_and_code_version(exported):
    import toy_game

    meta = json.loads(exported.with_suffix(".json").read_text(encoding="utf-8"))
    game = toy_game.ToyGame()
    assert meta["env_id"] == "toy_v0" and meta["env_version"] == 0
    assert meta["observation_layout_hash"] == game.observation_layout.hash()
    assert meta["num_actions"] == 11 and meta["network"] == {"kind": "mlp", "hidden": [24, 16], "activation": "relu"}
    assert meta["training"]["seed"] == 3 and meta["training"]["steps"] == 0
    assert meta["evaluation"]["vs_random"]["win"]["rate"] == 0.5
    assert "tabletop_envs" in meta["code_version"] and "sb3_contrib" in meta["code_version"]


def _edit_sidecar(path, **changes):
    side = path.with_suffix(".json")
    meta = json.loads(side.read_text(encoding="utf-8"))
    meta.update(changes)
    side.write_text(json.dumps(meta), encoding="utf-8")


@pytest.mark.parametrize("network, problem", [
    ({"kind": "mlp", "hidden": [64], "activation": "relu"}, r"hidden \[64\] but ppo.npz holds hidden layers \[24, 16\]"),
    ({"kind": "mlp", "hidden": [24, 16], "activation": "tanh"}, "activation 'tanh' but ppo.onnx applies 'relu'"),
])
def test_loader_refuses_a_sidecar_whose_network_is_not_the_weights_beside_it(exported, network, problem):
    _edit_sidecar(exported, network=network)
    for file in (exported, exported.with_suffix(".npz"), exported.with_suffix(".json")):
        with pytest.raises(ModelMismatchError, match=f"sidecar .*ppo.json: its network says {problem}; restore the "
                                                     "sidecar that came with these files, or re-export the model"):
            load_policy(str(file))


def test_loader_refuses_a_changed_observation_layout(exported):
    _edit_sidecar(exported, observation_layout_hash="0123456789abcdef")
    with pytest.raises(ModelMismatchError, match="observation-layout hash 0123456789abcdef != .*retrain"):
        load_policy(str(exported))


def test_a_model_loaded_with_check_false_is_not_refused_for_its_layouts_under_the_rule_options_given(exported):
    # check=False is the caller's word that the layouts fit (an env being edited): comparing them again
    # under the rule options given would refuse the model all the same
    _edit_sidecar(exported, observation_layout_hash="0123456789abcdef")
    rules = json.loads(exported.with_suffix(".json").read_text(encoding="utf-8"))["game_config"]
    with pytest.raises(ModelMismatchError, match="observation-layout hash 0123456789abcdef != "):
        load_policy(str(exported), game_config=rules)
    policy = load_policy(str(exported), check=False, game_config=rules)
    assert policy.metadata["observation_layout_hash"] == "0123456789abcdef"


def test_loader_refuses_a_changed_action_layout(exported):
    # the same number of actions with other meanings: the model would pick actions by ids that now mean others
    _edit_sidecar(exported, action_layout_hash="0123456789abcdef")
    with pytest.raises(ModelMismatchError, match="action-layout hash 0123456789abcdef != .*retrain"):
        load_policy(str(exported))


def test_loader_refuses_an_env_version_this_library_does_not_have(exported):
    _edit_sidecar(exported, env_id="toy_v1")
    with pytest.raises(ModelMismatchError, match="trained for env 'toy_v1'.*has \\['toy_v0'\\].*version changed"):
        load_policy(str(exported))


def test_loader_refuses_a_model_of_another_env(exported):
    with pytest.raises(ModelMismatchError, match="trained for 'toy_v0', not 'terralore_v0'"):
        load_model_policy(exported, env="terralore_v0")


def test_loader_refuses_a_different_action_count(exported):
    _edit_sidecar(exported, num_actions=12)
    with pytest.raises(ModelMismatchError, match="number of actions 12 != 11"):
        load_policy(str(exported))


def test_loader_refuses_a_model_without_sidecar(exported):
    exported.with_suffix(".json").unlink()
    with pytest.raises(ModelMismatchError, match="has no sidecar"):
        load_policy(str(exported))


def test_load_policy_by_path_from_any_of_the_three_files(exported):
    for suffix in (".onnx", ".npz", ".json"):
        policy = load_policy(str(exported.with_suffix(suffix)))
        assert isinstance(policy, MLPPolicy) and policy.metadata["env_id"] == "toy_v0"
    exported.with_suffix(".npz").unlink()  # without the weights file, onnxruntime runs the graph
    assert isinstance(load_policy(str(exported)), OnnxPolicy)


def test_load_policy_by_id_finds_the_shipped_model(exported, monkeypatch):
    monkeypatch.setenv("TABLETOP_MODELS_DIR", str(exported.parent.parent))
    policy = load_policy("toy_v0/ppo")
    assert isinstance(policy, MLPPolicy) and policy.name == "ppo"
    # (while a game's bots module is still missing, listing the known ids fails on that import instead)
    with pytest.raises((TabletopError, ModuleNotFoundError), match="no policy registered as 'toy_v0/ppo2'|bots"):
        load_policy("toy_v0/ppo2")


def test_loaded_policy_always_returns_a_legal_action(exported):
    rng = np.random.default_rng(0)
    policies = [load_policy(str(exported)), load_policy(str(exported), deterministic=False),
                load_policy(str(exported), backend="onnxruntime")]
    for _ in range(300):
        obs = rng.normal(size=32).astype(np.float32) * 3
        mask = (rng.random(11) < rng.random()).astype(np.int8)
        mask[rng.integers(11)] = 1
        for policy in policies:
            assert mask[policy.act(obs, mask, rng)] == 1
    with pytest.raises(ValueError, match="no legal action"):
        policies[0].act(obs, np.zeros(11, np.int8), rng)


def test_loader_needs_neither_torch_nor_sb3(exported):
    code = (f"import sys; sys.path.insert(0, {str(exported.parents[3])!r}); "
            "from tabletop_envs.core.onnx_policy import load_model_policy; import numpy as np; "
            f"p = load_model_policy({str(exported)!r}, check=False); "
            "p.act(np.zeros(32, np.float32), np.ones(11, np.int8), None); "
            "assert 'torch' not in sys.modules and 'stable_baselines3' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_pickled_onnx_policy_reopens_its_session(exported):
    import pickle

    policy = load_policy(str(exported), backend="onnxruntime")
    policy.act(np.zeros(32, np.float32), np.ones(11, np.int8), None)
    clone = pickle.loads(pickle.dumps(policy))
    np.testing.assert_allclose(clone.logits(np.ones(32, np.float32)), policy.logits(np.ones(32, np.float32)))


def test_a_pickled_onnx_policy_whose_file_was_replaced_since_its_load_is_refused_when_it_reopens(
        exported, toy_model, tmp_path):
    import pickle

    import torch

    from training.export import export_model

    policy = load_policy(str(exported), backend="onnxruntime")
    saved = pickle.dumps(policy)
    with torch.no_grad():  # another network of the same shape, exported elsewhere
        for p in toy_model.policy.parameters():
            p.add_(1.0)
    other = export_model(toy_model, tmp_path / "other" / "ppo", "toy_v0")
    exported.with_suffix(".onnx").write_bytes(other.with_suffix(".onnx").read_bytes())
    clone = pickle.loads(saved)
    with pytest.raises(ModelMismatchError, match="is not the file exported with the sidecar"):
        clone.act(np.zeros(32, np.float32), np.ones(11, np.int8), None)  # it played the other network


def test_the_sidecars_act_mode_is_the_loaders_default_and_can_be_overridden(toy_model, tmp_path):
    from training.export import export_model

    sampled = export_model(toy_model, tmp_path / "s" / "ppo", "toy_v0", deterministic=False)
    assert json.loads(sampled.with_suffix(".json").read_text(encoding="utf-8"))["act"] == "sample"
    assert load_policy(str(sampled)).deterministic is False
    assert load_policy(str(sampled), deterministic=True).deterministic is True
    argmax = export_model(toy_model, tmp_path / "a" / "ppo", "toy_v0")
    assert load_policy(str(argmax)).deterministic is True
    sidecar = argmax.with_suffix(".json")
    sidecar.write_text(sidecar.read_text(encoding="utf-8").replace('"act": "argmax"', '"act": "sampel"'), encoding="utf-8")
    with pytest.raises(ModelMismatchError, match="'act' must be 'argmax' or 'sample'.* got 'sampel'"):
        load_policy(str(argmax))  # it loaded, sampling, without a word


def test_a_sidecar_without_an_act_mode_loads_a_policy_that_plays_the_argmax(exported):
    # found by mutation testing: a default of "sample" for a sidecar without "act" (an older export) passed
    # the suite: such a model would have sampled without a word
    meta = json.loads(exported.with_suffix(".json").read_text(encoding="utf-8"))
    del meta["act"]
    exported.with_suffix(".json").write_text(json.dumps(meta), encoding="utf-8")
    assert load_policy(str(exported)).deterministic is True
    assert load_policy(str(exported), deterministic=False).deterministic is False


@pytest.mark.parametrize("backend", ["torch", "Numpy", ""])
def test_an_unknown_backend_is_refused_naming_the_three(exported, backend):
    # found by mutation testing: without the check, an unknown backend (a typo) loaded as "auto" without a word
    with pytest.raises(ValueError, match=f"backend must be 'auto', 'numpy' or 'onnxruntime', got {backend!r}"):
        load_policy(str(exported), backend=backend)


@needs_onnx
def test_the_npz_beside_a_network_that_is_no_mlp_is_not_played_as_one(exported):
    # found by mutation testing: loading the .npz whatever the sidecar's network kind passed the suite; only an
    # MLP runs as the numpy forward, any other graph through onnxruntime
    _edit_sidecar(exported, network={"kind": "transformer"})
    policy = load_policy(str(exported))
    assert isinstance(policy, OnnxPolicy) and policy.model_file == str(exported)
    with pytest.raises(TabletopError, match="backend='numpy' runs MLPs only; the sidecar says this network is "
                                           "'transformer'"):
        load_policy(str(exported), backend="numpy")


@needs_train
def test_linear_layers_walks_nested_containers_and_refuses_what_the_opponent_format_cannot_run():
    import torch

    from training.export import layer_weights, linear_layers

    first, second, head = torch.nn.Linear(5, 4), torch.nn.Linear(4, 3), torch.nn.Linear(3, 2)
    # a ModuleList has no forward: the walk alone (as RLlib's export asks, comparing the logits itself)
    net = torch.nn.Sequential(torch.nn.Sequential(first, torch.nn.Tanh()), torch.nn.ModuleList([second]),
                              torch.nn.Tanh(), torch.nn.Identity())
    linears, activation = linear_layers(net, head, check_chain=False)
    assert linears == [first, second, head] and activation == "tanh"
    assert [w.shape for w, _ in layer_weights(linears)] == [(5, 4), (4, 3), (3, 2)]
    with pytest.raises(TypeError, match="cannot run the policy MLP's parts.*check_chain=False"):
        linear_layers(net, head)
    assert linear_layers(torch.nn.Sequential(), head) == ([head], None)  # net_arch []: the head alone
    nested = torch.nn.Sequential(torch.nn.Sequential(first, torch.nn.Tanh()), torch.nn.Sequential(second),
                                 torch.nn.Tanh(), torch.nn.Identity())
    assert linear_layers(nested, head) == ([first, second, head], "tanh")

    class Encoder(torch.nn.Module):  # a module of its own that holds its layers, as RLlib's encoder does
        def __init__(self):
            super().__init__()
            self.mlp = torch.nn.Sequential(first, torch.nn.Tanh(), second, torch.nn.Tanh())

        def forward(self, x):
            return self.mlp(x)

    assert linear_layers(Encoder(), head) == ([first, second, head], "tanh")
    with pytest.raises(TypeError, match="cannot export layer LayerNorm"):
        linear_layers(torch.nn.Sequential(first, torch.nn.LayerNorm(4), second))
    with pytest.raises(TypeError, match="mixed activations"):
        linear_layers(torch.nn.Sequential(first, torch.nn.Tanh(), second, torch.nn.ReLU()))


@needs_train
def test_linear_layers_refuses_a_module_whose_forward_is_not_its_layers_in_order():
    import torch

    from training.export import linear_layers

    first, second, head = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)

    class Residual(torch.nn.Module):  # the same layers, plus a skip connection the export would drop
        def __init__(self):
            super().__init__()
            self.block = torch.nn.Sequential(first, torch.nn.Tanh())

        def forward(self, x):
            return x + self.block(x)

    with pytest.raises(TypeError, match="does not run its Linear layers and activations in order"):
        linear_layers(Residual(), head)
    with pytest.raises(TypeError, match="Linear, Linear, tanh, Linear in order"):  # no activation between
        linear_layers(torch.nn.Sequential(first, second, torch.nn.Tanh()), head)
    with pytest.raises(TypeError, match="tanh, Linear"):  # an activation first
        linear_layers(torch.nn.Sequential(torch.nn.Tanh(), first, torch.nn.Tanh()), head)
    # a branch that ends on its activation, as SB3's policy_net does, before the action head is added
    assert linear_layers(torch.nn.Sequential(first, torch.nn.Tanh())) == ([first], "tanh")


@needs_train
def test_a_policy_whose_mlp_is_not_a_plain_chain_is_refused_at_export_and_rolls_out_on_torchs_path():
    import torch
    from sb3_contrib import MaskablePPO

    from tabletop_envs.core.single_agent import SingleAgentEnv
    from training.export import mlp_weights
    from training.masked_policy import FastMaskablePolicy

    model = MaskablePPO(FastMaskablePolicy, SingleAgentEnv("terralore_v0"), n_steps=8, batch_size=8,
                        policy_kwargs={"net_arch": [16]}, device="cpu", seed=0)
    policy_net = model.policy.mlp_extractor.policy_net

    class Scaled(torch.nn.Module):  # its layers in order, then doubled: not what the export writes
        def __init__(self):
            super().__init__()
            self.inner = policy_net

        def forward(self, x):
            return 2 * self.inner(x)

    assert model.policy._numpy_plan() is not None
    model.policy.mlp_extractor.policy_net = Scaled()
    del model.policy._linears  # the plan is found once; this policy is built anew in practice
    with pytest.raises(TypeError, match="does not run its Linear layers"):
        mlp_weights(model)
    assert model.policy._numpy_plan() is None  # the rollout forward takes torch's path, not a wrong one


# ------------------------------------------------------------------------------------ the command line
@pytest.fixture()
def toy_run(toy_model, tmp_path):
    """A run folder as training.train leaves it: final_model.zip, a checkpoint and run.json."""
    run = tmp_path / "run"
    (run / "checkpoints" / "step_000000512").mkdir(parents=True)
    toy_model.save(run / "final_model.zip")
    toy_model.save(run / "checkpoints" / "step_000000512" / "model.zip")
    (run / "run.json").write_text(json.dumps({"env": "toy_v0", "game_config": {}, "env_kwargs": {}}), encoding="utf-8")
    return run


def _written(stem):
    return sorted(p.name for p in stem.parent.glob(stem.name + ".*")) if stem.parent.exists() else []


def test_export_cli_refuses_a_model_that_is_no_sb3_zip(toy_run, exported, tmp_path):
    from tabletop_envs import ConfigError
    from training.export import main

    out = tmp_path / "out" / "ppo"
    with pytest.raises(ConfigError, match=r"ppo.onnx is not a zip file \(it is already an exported policy"):
        main(["--model", str(exported), "--out", str(out)])
    # an .npz is a zip as well: it was said to be a model whose writing was cut off
    with pytest.raises(ConfigError, match=r"ppo.npz is an exported model's weights \(it is already an exported policy"):
        main(["--model", str(exported.with_suffix(".npz")), "--out", str(out)])
    with pytest.raises(ConfigError, match="is a folder"):
        main(["--model", str(toy_run), "--env", "toy_v0", "--out", str(out)])
    assert _written(out) == []


@pytest.mark.parametrize("env", [[], ["--env", "toy_v0"]])
def test_export_cli_reports_a_missing_model_as_missing(toy, tmp_path, env):
    # it said '--env is required ...' without --env, and 'model.zip.zip' was not found with it
    from training.export import main

    missing = tmp_path / "run" / "model.zip"
    with pytest.raises(FileNotFoundError, match=f"--model {missing} does not exist"):
        main(["--model", str(missing), "--out", str(tmp_path / "out"), *env])


def test_export_cli_refuses_an_env_other_than_the_runs(toy_run, tmp_path):
    # the run.json's game_config was passed to the other game's constructor: a TypeError
    from training.export import main

    out = tmp_path / "out" / "ppo"
    with pytest.raises(ModelMismatchError, match="the model's run .*run.json.* is for toy_v0, not terralore_v0"):
        main(["--model", str(toy_run / "final_model.zip"), "--env", "terralore_v0", "--out", str(out)])
    assert _written(out) == []


@pytest.mark.parametrize("text, problem", [
    ("{env: toy_v0}", "run.json is not valid JSON .*restore the run.json training.train wrote there, or move it"),
    ("[1, 2]", "run.json holds a list, not the object training.train writes"),  # an AttributeError traceback
])
def test_export_cli_names_a_malformed_run_json_and_the_way_out(toy_run, tmp_path, text, problem):
    from tabletop_envs import ConfigError
    from training.export import main

    (toy_run / "run.json").write_text(text, encoding="utf-8")
    out = tmp_path / "out" / "ppo"
    with pytest.raises(ConfigError, match=problem):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out)])
    assert _written(out) == []


@pytest.mark.parametrize("env_kwargs, problem", [
    ([1], r"env kwargs must be a mapping of option names to values, .*got \[1\]"),  # said once the files were written
    ({"max_turns": 0}, "max_turns"),
])
def test_export_cli_refuses_a_run_json_whose_env_kwargs_cannot_be_played_before_writing_anything(toy_run, tmp_path,
                                                                                                 env_kwargs, problem):
    from tabletop_envs import ConfigError
    from training.export import main

    (toy_run / "run.json").write_text(json.dumps({"env": "toy_v0", "game_config": {}, "env_kwargs": env_kwargs}),
                                      encoding="utf-8")
    out = tmp_path / "out" / "ppo"
    with pytest.raises(ConfigError, match=rf"run.json: {problem}.*; restore the run.json training.train wrote there"):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), "--eval-games", "2", "--anchors",
              "random"])
    assert _written(out) == []


@pytest.mark.parametrize("text, problem", [
    ('{"train_sec', r"summary\.json cannot be read \(Unterminated string"),  # the JSON error named no file
    ("[1]", r"summary\.json holds a list, not the object"),  # an AttributeError traceback
])
def test_export_cli_names_a_malformed_summary_json_and_the_way_out(toy_run, tmp_path, text, problem):
    from tabletop_envs import ConfigError
    from training.export import main

    (toy_run / "summary.json").write_text(text, encoding="utf-8")
    out = tmp_path / "out" / "ppo"
    with pytest.raises(ConfigError, match=problem + ".*move it away"):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out)])
    assert _written(out) == []


def test_export_cli_records_the_runs_wall_time_from_its_summary_json(toy_run, tmp_path):
    # the sidecar's training record: the seconds training.train took (summary.json's train_seconds), not its steps
    from training.export import main

    (toy_run / "summary.json").write_text(json.dumps({"steps": 512, "train_seconds": 12.5}), encoding="utf-8")
    out = tmp_path / "out" / "ppo"
    main(["--model", str(toy_run / "final_model.zip"), "--out", str(out)])
    training = json.loads(out.with_name("ppo.json").read_text(encoding="utf-8"))["training"]
    assert training["wall_time_s"] == 12.5


@pytest.mark.parametrize("trailing", ["/", ""])
def test_export_cli_refuses_a_folder_as_out_naming_a_path_in_it(toy_run, tmp_path, trailing):
    from tabletop_envs import ConfigError
    from training.export import main

    folder = tmp_path / "models"
    folder.mkdir()
    # "--out models/" wrote models.onnx, .npz and .json beside the folder, not in it
    with pytest.raises(ConfigError, match=r"--out .*models/? is a folder: give the model's path in it, without a "
                                          r"suffix, e.g. --out .*models/ppo"):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(folder) + trailing])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models", "run"] and not any(folder.iterdir())


def test_export_cli_refuses_an_out_ending_in_a_slash_for_a_folder_not_made_yet(toy_run, tmp_path):
    from tabletop_envs import ConfigError
    from training.export import main

    # "--out new/" is a folder as "--out models/" is, before it exists: it wrote new.onnx beside it
    with pytest.raises(ConfigError, match=r"--out .*new/ is a folder: give the model's path in it"):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(tmp_path / "new") + "/"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_export_cli_without_a_run_json_or_env_says_env_is_required(toy_model, tmp_path, capsys):
    from training.export import main

    model = tmp_path / "lone" / "model.zip"  # a model saved outside a run folder: no run.json names its env
    model.parent.mkdir()
    toy_model.save(model)
    out = tmp_path / "out" / "ppo"
    with pytest.raises(SystemExit) as exit_info:
        main(["--model", str(model), "--out", str(out)])
    assert exit_info.value.code == 2
    assert "--env is required when the model has no run.json" in capsys.readouterr().err
    assert _written(out) == []


def test_export_cli_records_the_rule_options_env_kwargs_gives_a_model_without_a_run_json(toy_model, tmp_path):
    # a MaskablePPO trained outside training.train has no run.json: its sidecar recorded the env's defaults, and
    # evaluating it under the options it learnt warned that it had never learnt them
    from tabletop_envs import ConfigError
    from training.export import main

    model = tmp_path / "lone" / "model.zip"
    model.parent.mkdir()
    toy_model.save(model)
    out = tmp_path / "out" / "ppo"
    main(["--model", str(model), "--env", "toy_v0", "--env-kwargs", '{"turns": 4}', "--out", str(out)])
    assert json.loads(out.with_name("ppo.json").read_text(encoding="utf-8"))["game_config"]["turns"] == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuleOptionsWarning)
        load_policy(out.with_name("ppo.onnx"), env="toy_v0", game_config={"turns": 4})
    with pytest.raises(ConfigError, match="--env-kwargs must be a JSON object"):
        main(["--model", str(model), "--env", "toy_v0", "--env-kwargs", "[1]", "--out", str(tmp_path / "x")])


def test_export_cli_takes_a_game_name_and_names_env_kwargs_in_a_refused_option(toy_model, tmp_path):
    # --env travel_earth was refused where training.evaluate takes it, and a rule option the game refused came
    # without the flag that gave it
    from tabletop_envs import ConfigError
    from training.export import main

    model = tmp_path / "lone" / "model.zip"
    model.parent.mkdir()
    toy_model.save(model)
    main(["--model", str(model), "--env", "toy", "--out", str(tmp_path / "a" / "ppo")])
    assert json.loads((tmp_path / "a" / "ppo.json").read_text(encoding="utf-8"))["env_id"] == "toy_v0"
    with pytest.raises(ConfigError, match=r"^--env-kwargs: .*no_such_option"):
        main(["--model", str(model), "--env", "toy_v0", "--env-kwargs", '{"no_such_option": 1}', "--out",
              str(tmp_path / "b" / "ppo")])
    assert not (tmp_path / "b" / "ppo.json").exists()


def test_export_cli_evaluates_under_the_max_turns_env_kwargs_gives_and_says_so(toy_model, tmp_path):
    # max_turns is the env's, not a rule option the sidecar records: --eval-games must still play under it
    from training.export import main

    model = tmp_path / "lone" / "model.zip"
    model.parent.mkdir()
    toy_model.save(model)
    out = tmp_path / "out" / "ppo"
    main(["--model", str(model), "--env", "toy_v0", "--env-kwargs", '{"max_turns": 1}', "--out", str(out),
          "--eval-games", "2", "--anchors", "random"])
    evaluation = json.loads(out.with_name("ppo.json").read_text(encoding="utf-8"))["evaluation"]
    assert evaluation["vs_random"]["draw"]["rate"] == 1.0  # every game cut off at its first turn
    # the sidecar's rates say under which turn limit they were played, or they read as the model's strength
    assert evaluation["protocol"].endswith(", masked argmax, max_turns 1"), evaluation["protocol"]


def test_export_cli_refuses_env_kwargs_beside_a_run_json_that_records_the_options(toy_run, tmp_path):
    from tabletop_envs import ConfigError
    from training.export import main

    out = tmp_path / "out" / "ppo"
    with pytest.raises(ConfigError, match=r"--env-kwargs: the model's run .*run\.json.* records the rule options"):
        main(["--model", str(toy_run / "final_model.zip"), "--env-kwargs", '{"turns": 4}', "--out", str(out)])
    assert _written(out) == []


def test_export_cli_refuses_an_out_under_a_file_before_exporting(toy_run, tmp_path):
    from tabletop_envs import ConfigError
    from training.export import main

    (tmp_path / "afile").write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match="afile is a file, so no folder can be made there"):  # a FileExistsError
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(tmp_path / "afile" / "ppo")])
    if Path("/proc/self").is_dir():  # "[Errno 2] No such file or directory: '/proc/models'" named no option
        with pytest.raises(ConfigError, match=r"--out '/proc/models': the folder cannot be made \(No such file"):
            main(["--model", str(toy_run / "final_model.zip"), "--out", "/proc/models/ppo"])


def test_export_cli_checks_the_anchors_before_writing(toy_run, tmp_path):
    from training.export import main

    out = tmp_path / "out" / "ppo"
    with pytest.raises(TabletopError, match="no policy registered as 'toy_v0/nosuch'"):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), "--eval-games", "2",
              "--anchors", "random", "nosuch"])
    assert _written(out) == []


def test_export_cli_prints_the_evaluation_it_writes_into_the_sidecar(toy_run, tmp_path, capsys):
    from training.export import main

    out = tmp_path / "out" / "ppo"
    main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), "--eval-games", "4", "--anchors", "random"])
    printed = capsys.readouterr().out
    rates = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["evaluation"]["vs_random"]
    assert f"vs_random: win {100 * rates['win']['rate']:.1f}%" in printed and f"over {rates['games']} games" in printed


def test_export_cli_evaluates_under_the_runs_rules_turn_limit_and_act_mode(toy_run, tmp_path):
    from training.export import main

    # a run of 8-turn games cut at 2 turns, whose recipe samples: every evaluation game is cut, so drawn
    (toy_run / "run.json").write_text(json.dumps({"env": "toy_v0", "game_config": {"turns": 8},
                                                  "env_kwargs": {"turns": 8, "max_turns": 2},
                                                  "config": {"eval": {"deterministic": False}}}), encoding="utf-8")
    out = tmp_path / "out" / "ppo"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuleOptionsWarning)  # the model plays the games under its own rules
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), "--eval-games", "4", "--anchors",
              "random"])
    meta = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["game_config"] == {"turns": 8} and meta["act"] == "sample"
    assert meta["evaluation"]["vs_random"]["draw"]["rate"] == 1.0
    assert meta["evaluation"]["protocol"].endswith("masked sample, max_turns 2")


def test_an_export_interrupted_in_its_evaluation_says_what_it_wrote_and_that_the_sidecar_has_no_evaluation(
        toy_run, tmp_path, capsys, monkeypatch):
    from training import evaluate
    from training.export import main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate, "anchor_evaluation", interrupted)
    out = tmp_path / "out" / "ppo"
    main(["--model", str(toy_run / "final_model.zip"), "--out", str(out)])
    capsys.readouterr()
    with pytest.raises(KeyboardInterrupt):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), "--eval-games", "4", "--anchors", "random"])
    printed = capsys.readouterr().out
    assert f"wrote {out.with_suffix('.onnx')}" in printed and "replaced the earlier ppo.onnx, ppo.npz, ppo.json" in printed
    assert "interrupted in the evaluation: ppo.onnx is exported, its sidecar without an evaluation" in printed
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["evaluation"] == {}


def test_export_cli_accepts_the_model_without_its_zip_suffix(toy_run, tmp_path):
    from training.export import main

    main(["--model", str(toy_run / "final_model"), "--out", str(tmp_path / "out" / "ppo")])
    assert _written(tmp_path / "out" / "ppo") == ["ppo.json", "ppo.npz", "ppo.onnx"]


def test_export_cli_keeps_the_dots_of_a_stem_and_leaves_the_model_of_the_shorter_stem_alone(toy_run, tmp_path,
                                                                                                capsys):
    from training.export import main

    out = tmp_path / "out"
    out.mkdir()
    earlier = {f"ppo{suffix}": f"the model ppo's {suffix}" for suffix in (".onnx", ".npz", ".json")}
    for name, text in earlier.items():
        (out / name).write_text(text, encoding="utf-8")
    main(["--model", str(toy_run / "final_model.zip"), "--out", str(out / "ppo.v2")])
    assert {name: (out / name).read_text(encoding="utf-8") for name in earlier} == earlier
    assert _written(out / "ppo.v2") == ["ppo.v2.json", "ppo.v2.npz", "ppo.v2.onnx"]
    meta = json.loads((out / "ppo.v2.json").read_text(encoding="utf-8"))
    assert meta["name"] == "toy_v0/ppo.v2" and meta["files"] == {"onnx": "ppo.v2.onnx", "weights": "ppo.v2.npz"}
    assert load_policy(str(out / "ppo.v2.onnx")).name == "toy_v0/ppo.v2"
    assert "replaced" not in capsys.readouterr().out


def test_export_cli_reads_an_out_ending_in_a_model_suffix_as_its_stem_and_says_what_it_replaces(toy_run, tmp_path,
                                                                                                 capsys):
    from training.export import main

    main(["--model", str(toy_run / "final_model.zip"), "--out", str(tmp_path / "out" / "ppo.onnx")])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["ppo.json", "ppo.npz", "ppo.onnx"]
    assert "replaced" not in capsys.readouterr().out
    main(["--model", str(toy_run / "final_model.zip"), "--out", str(tmp_path / "out" / "ppo")])
    assert "replaced the earlier ppo.onnx, ppo.npz, ppo.json" in capsys.readouterr().out


@pytest.mark.parametrize("deterministic, flag, act", [(False, [], "sample"), (True, [], "argmax"),
                                                       (None, [], "argmax"), (False, ["--act", "argmax"], "argmax"),
                                                       (True, ["--act", "sample"], "sample")])
def test_export_cli_ships_the_act_mode_of_the_runs_recipe_unless_act_is_given(toy_run, tmp_path, deterministic,
                                                                               flag, act):
    from training.export import main

    run_info = json.loads((toy_run / "run.json").read_text(encoding="utf-8"))
    if deterministic is not None:
        run_info["config"] = {"eval": {"deterministic": deterministic}}
    (toy_run / "run.json").write_text(json.dumps(run_info), encoding="utf-8")
    out = tmp_path / "out" / "ppo"
    main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), *flag])
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["act"] == act
    assert load_policy(str(out.with_suffix(".onnx"))).deterministic == (act == "argmax")


def test_export_cli_reads_a_model_and_writes_an_out_under_the_home_folder(toy_run, tmp_path, monkeypatch):
    from training.export import main

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    main(["--model", f"~/{toy_run.name}/final_model.zip", "--out", "~/models/ppo"])
    assert _written(tmp_path / "models" / "ppo") == ["ppo.json", "ppo.npz", "ppo.onnx"]
    assert not (tmp_path / "~").exists()


@needs_train
def test_export_of_a_checkpoint_finds_the_run_json_in_the_run_folder(tmp_path):
    # an Earth 4-player checkpoint was exported with game_config {} and num_players 2
    pytest.importorskip("tabletop_envs.earth")
    from sb3_contrib import MaskablePPO

    from tabletop_envs.core.single_agent import SingleAgentEnv
    from training.export import main

    run = tmp_path / "earth-4p"
    checkpoint = run / "checkpoints" / "step_000001024"
    checkpoint.mkdir(parents=True)
    MaskablePPO("MlpPolicy", SingleAgentEnv("earth_v0", num_players=4), device="cpu",
                policy_kwargs={"net_arch": [8]}).save(checkpoint / "model.zip")
    (run / "run.json").write_text(json.dumps({"env": "earth_v0", "game_config": {"num_players": 4},
                                              "env_kwargs": {"num_players": 4}, "config": {"seed": 7}}), encoding="utf-8")
    out = tmp_path / "out" / "ppo_4p"
    main(["--model", str(checkpoint / "model.zip"), "--out", str(out)])  # no --env: run.json says it
    meta = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["env_id"] == "earth_v0" and meta["game_config"]["num_players"] == 4 and meta["num_players"] == 4
    assert meta["training"]["config"] == {"seed": 7}


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
@pytest.mark.parametrize("width", [20, 40])
def test_a_model_refuses_an_observation_of_another_width_single_and_batched(exported, backend, width):
    policy = load_policy(str(exported), backend=backend)
    mask = np.ones(11, np.int8)
    with pytest.raises(ModelMismatchError, match=f"trained for toy_v0.*observations of 32 values, got {width}.*another env"):
        policy.act(np.ones(width, np.float32), mask, None)
    with pytest.raises(ModelMismatchError, match=f"observations of 32 values, got {width}"):
        policy.act_batch(np.ones((3, width), np.float32), np.ones((3, 11), np.int8), None)
    assert policy.act_batch(np.ones((3, 32), np.float32), np.ones((3, 11), np.int8), None).shape == (3,)


@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
@pytest.mark.parametrize("length", [10, 12])
def test_a_model_refuses_an_action_mask_of_another_length_single_and_batched(exported, backend, length):
    policy = load_policy(str(exported), backend=backend)
    obs = np.ones(32, np.float32)
    with pytest.raises(ModelMismatchError, match=f"has 11 actions, got an action mask of {length} entries"):
        policy.act(obs, np.ones(length, np.int8), None)
    with pytest.raises(ModelMismatchError, match=f"has 11 actions, got an action mask of {length} entries"):
        policy.act_batch(np.stack([obs] * 3), np.ones((3, length), np.int8), None)
    with pytest.raises(ValueError, match="one mask row per observation row"):
        policy.act_batch(np.stack([obs] * 3), np.ones((2, 11), np.int8), None)


def test_a_pickled_mlp_policy_still_checks_the_observation_width(exported):
    import pickle

    clone = pickle.loads(pickle.dumps(load_policy(str(exported), backend="numpy")))
    with pytest.raises(ModelMismatchError, match="observations of 32 values, got 31"):
        clone.act(np.ones(31, np.float32), np.ones(11, np.int8), None)


def test_an_mlp_policy_pickled_before_it_kept_its_width_still_checks_the_observation_width(exported):
    # a pickle of an older version has no _width (it was added for the hot path's check): unpickled without
    # rebuilding it, the first move failed on an AttributeError instead of naming the mismatch
    import pickle

    policy = load_policy(str(exported), backend="numpy")
    state = policy.__getstate__()
    del state["_width"]
    old = MLPPolicy.__new__(MLPPolicy)
    old.__setstate__(pickle.loads(pickle.dumps(state)))
    with pytest.raises(ModelMismatchError, match="observations of 32 values, got 31"):
        old.act(np.ones(31, np.float32), np.ones(11, np.int8), None)
    assert old.act(np.ones(32, np.float32), np.ones(11, np.int8), None) in range(11)


def _copy_model(exported, folder, stem):
    import shutil

    folder.mkdir(exist_ok=True)
    for suffix in (".onnx", ".npz", ".json"):
        shutil.copy(exported.with_suffix(suffix), (folder / stem).with_suffix(suffix))
    return (folder / stem).with_suffix(".onnx")


def test_a_renamed_copy_of_the_three_files_loads_from_any_of_them(exported, tmp_path):
    renamed = _copy_model(exported, tmp_path / "elsewhere", "m")  # its sidecar still names ppo.onnx / ppo.npz
    for suffix in (".onnx", ".npz", ".json"):
        assert isinstance(load_policy(str(renamed.with_suffix(suffix))), MLPPolicy)
        policy = load_policy(str(renamed.with_suffix(suffix)), backend="onnxruntime")
        assert isinstance(policy, OnnxPolicy) and policy.onnx_path == str(renamed)


def test_a_path_to_a_missing_graph_beside_its_sidecar_and_weights_loads_the_weights(exported):
    # found by mutation testing: refusing a path that is not there though its sidecar is passed the suite; the
    # loader takes any of the three files' paths, and the weights play without the graph
    exported.unlink()  # ppo.onnx
    policy = load_policy(str(exported))
    assert isinstance(policy, MLPPolicy) and policy.model_file == str(exported.with_suffix(".npz"))
    with pytest.raises(FileNotFoundError, match="found none of ppo.onnx"):
        load_policy(str(exported), backend="onnxruntime")


def test_a_sidecar_renamed_alone_finds_the_files_it_names(exported):
    renamed = exported.with_name("alias.json")
    exported.with_suffix(".json").rename(renamed)
    assert isinstance(load_policy(str(renamed)), MLPPolicy)
    assert load_policy(str(renamed), backend="onnxruntime").onnx_path == str(exported)


def test_the_files_of_the_stem_given_win_over_the_older_names_in_a_copied_sidecar(exported):
    copy = _copy_model(exported, exported.parent, "m")
    weights = dict(np.load(exported.with_suffix(".npz")))
    weights["b0"] = weights["b0"] + 1  # ppo.npz, the name m.json records: now another model
    np.savez(exported.with_suffix(".npz"), **weights)
    np.testing.assert_array_equal(load_policy(str(copy)).layers[0][1], np.load(copy.with_suffix(".npz"))["b0"])
    with pytest.raises(ModelMismatchError, match="ppo.npz is not the file exported with the sidecar ppo.json"):
        load_policy(str(exported))


def test_a_model_without_its_files_names_every_file_looked_for(exported):
    alone = exported.with_name("k.json")
    alone.write_text(exported.with_suffix(".json").read_text(encoding="utf-8"), encoding="utf-8")
    for suffix in (".onnx", ".npz"):
        exported.with_suffix(suffix).unlink()
    with pytest.raises(FileNotFoundError, match="found none of k.npz, ppo.npz, k.onnx, ppo.onnx in .*re-export"):
        load_policy(str(alone))
    with pytest.raises(TabletopError, match=r"needs the MLP weights \(k.npz or ppo.npz in "):
        load_policy(str(alone), backend="numpy")


def test_a_sidecar_without_its_files_record_looks_for_the_files_named_like_it(exported):
    # a hand-written or older sidecar: nothing recorded to look for besides k.*
    alone = exported.with_name("k.json")
    meta = json.loads(exported.with_suffix(".json").read_text(encoding="utf-8"))
    del meta["files"]
    alone.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(FileNotFoundError, match=r"found none of k\.npz, k\.onnx in "):
        load_policy(str(alone))
    for suffix in (".onnx", ".npz"):
        exported.with_suffix(suffix).rename(alone.with_suffix(suffix))
    assert _toy_move(load_policy(str(alone))) in range(11)


def test_a_sidecar_naming_a_file_outside_its_folder_is_refused(exported):
    _edit_sidecar(exported, files={"onnx": "../other.onnx", "weights": "ppo.npz"})
    with pytest.raises(ModelMismatchError, match="files.onnx must be the name of a file next to it"):
        load_policy(str(exported))


def _single_array(path):
    with open(path, "wb") as f:
        np.save(f, np.zeros(3))


def _misfit_layers(path):
    np.savez(path, W0=np.zeros((32, 4)), b0=np.zeros(4), W1=np.zeros((5, 11)), b1=np.zeros(11))


def _untokenizable_header(path):
    """W0.npy with a header NumPy's fallback for Python 2 headers cannot tokenize (an unclosed bracket)."""
    import struct
    import zipfile

    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (3,"
    header += b" " * (63 - len(header)) + b"\n"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("W0.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + bytes(12))
        z.writestr("b0.npy", b"")


def _extra_array(path):
    with np.load(path) as data:
        arrays = dict(data)
    np.savez(path, **arrays, Wx=np.zeros(1, np.float32))


def _short_bias(path):
    with np.load(path) as data:
        arrays = dict(data)
    np.savez(path, **{**arrays, "b0": arrays["b0"][:-1]})


def _zip_entries(offset: int, value: int, bits: bool = False):
    """Sets a field of every central-directory entry of the zip (its flags at 8, compression method at 10):
    features zipfile does not unpack, which came out of the loader as zipfile's own bare errors."""
    import struct

    def damage(path):
        data = bytearray(path.read_bytes())
        at = data.find(b"PK\x01\x02")
        while at != -1:
            old = struct.unpack_from("<H", data, at + offset)[0]
            struct.pack_into("<H", data, at + offset, old | value if bits else value)
            at = data.find(b"PK\x01\x02", at + 4)
        path.write_bytes(bytes(data))
    return damage


@pytest.mark.parametrize("damage, problem", [
    (lambda p: p.write_bytes(p.read_bytes()[:100]), "BadZipFile"),
    (lambda p: p.write_bytes(b""), "the file is empty, 0 bytes"),
    (_single_array, "a single array"),
    (lambda p: np.savez(p, W0=np.zeros((32, 11))), "b0"),
    (_misfit_layers, "layer 1 takes 5 inputs but layer 0 gives 4"),
    (_zip_entries(8, 0x20, bits=True), r"NotImplementedError: compressed patched data \(flag bit 5\)"),
    (_zip_entries(8, 0x01, bits=True), "RuntimeError: File 'W0.npy' is encrypted"),
    (_zip_entries(10, 99), "NotImplementedError: That compression method is not supported"),
    (_untokenizable_header, "TokenError"),
    # counted as a fourth layer, it was refused as "W3 is not a file in the archive"
    (_extra_array, r"it holds Wx beside the layers W0, b0, \.\.\. of an export"),
    (_short_bias, r"layer 0 has W of shape \(32, 24\) and b of shape \(23,\)"),
    (lambda p: np.savez(p, weights=np.zeros(3, np.float32)), r"it has no layers \(no W0\)"),
], ids=["truncated", "empty", "single_array", "no_bias", "misfit_layers", "patched_data", "encrypted",
        "unknown_compression", "untokenizable_header", "extra_array", "short_bias", "no_layer_arrays"])
def test_a_corrupt_weights_file_is_refused_at_load_naming_it_and_the_fix(exported, damage, problem):
    import gc
    import warnings

    npz = exported.with_suffix(".npz")
    damage(npz)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises(ModelMismatchError, match=f"{npz.name} is not a readable model file .*{problem}.*"
                                                     "re-export the model \\(python -m training.export .*or restore"):
            load_policy(str(exported))
        gc.collect()
    # np.load left the file it opened open when the zip in it was unreadable (the truncated file)
    # (this file's: gc.collect() also finalises what other tests of the worker left, such as a pipe)
    assert not [w for w in caught if issubclass(w.category, ResourceWarning) and npz.name in str(w.message)], \
        [str(w.message) for w in caught]


def test_the_weights_the_policies_of_one_file_share_cannot_be_changed_through_one_of_them(exported):
    # the policies loaded from one .npz share its arrays (one copy per file): an edit in place through one
    # (a fine-tuning step) would change the moves of every other
    first, second = (load_policy(str(exported), backend="numpy") for _ in range(2))
    assert first.layers[0][0] is second.layers[0][0]
    before = second.layers[0][0].copy()
    with pytest.raises(ValueError, match="read-only"):
        first.layers[0][0][0, 0] += 1
    np.testing.assert_array_equal(second.layers[0][0], before)


@pytest.mark.parametrize("grow, shape", [("inputs", "33->11"), ("actions", "32->12")])
def test_weights_of_another_shape_than_the_sidecar_says_are_refused_at_load_not_at_the_first_move(exported, grow,
                                                                                                   shape):
    # a sidecar without the digest record (an older export) and weights of another width: they loaded, and the
    # first move failed as "most likely a model of another env"
    side = exported.with_suffix(".json")
    meta = json.loads(side.read_text(encoding="utf-8"))
    del meta["sha256"]
    side.write_text(json.dumps(meta), encoding="utf-8")
    npz = exported.with_suffix(".npz")
    weights = dict(np.load(npz))
    last = len(weights) // 2 - 1
    if grow == "inputs":
        weights["W0"] = np.vstack([weights["W0"], np.zeros((1, weights["W0"].shape[1]), np.float32)])
    else:
        weights[f"W{last}"] = np.hstack([weights[f"W{last}"], np.zeros((weights[f"W{last}"].shape[0], 1), np.float32)])
        weights[f"b{last}"] = np.append(weights[f"b{last}"], np.float32(0))
    np.savez(npz, **weights)
    with pytest.raises(ModelMismatchError, match=f"ppo.npz has shape {shape} but its sidecar says 32->11; re-export"):
        load_policy(str(exported), backend="numpy")


def test_a_garbage_onnx_graph_without_weights_is_refused_at_load_not_at_the_first_move(exported):
    exported.with_suffix(".npz").unlink()
    exported.write_bytes(b"not a protobuf at all")
    with pytest.raises(ModelMismatchError, match="ppo.onnx is not a readable model file .*INVALID_PROTOBUF.*re-export"):
        load_policy(str(exported))
    exported.write_bytes(b"")
    with pytest.raises(ModelMismatchError, match="ppo.onnx is not a readable model file"):
        load_policy(str(exported), backend="onnxruntime")


@needs_onnx
def test_an_onnx_policy_of_a_path_with_no_file_names_the_missing_graph(tmp_path):
    # found by mutation testing: without the check, the bare error of the external-data scan came out instead
    with pytest.raises(FileNotFoundError, match=f"no ONNX graph at {re.escape(str(tmp_path / 'gone.onnx'))}$"):
        OnnxPolicy(tmp_path / "gone.onnx")


def test_an_onnx_graph_whose_widths_differ_from_its_sidecar_is_refused_at_load(exported):
    import onnx

    from training.export import onnx_graph

    onnx.save(onnx_graph([(np.zeros((31, 4)), np.zeros(4)), (np.zeros((4, 11)), np.zeros(11))], "tanh"),
              str(exported))
    with pytest.raises(ModelMismatchError, match="has observation_size 31 but its sidecar says 32"):
        load_policy(str(exported), backend="onnxruntime")
    direct = OnnxPolicy(exported)  # no sidecar sizes: the graph's widths
    assert (direct.observation_size, direct.num_actions) == (31, 11)


@needs_onnx
def test_an_onnx_graph_of_symbolic_widths_plays_observations_of_any_width(tmp_path):
    # a graph written by another tool ("n" for its width) has no width to check against
    pytest.importorskip("onnxruntime")
    import onnx
    from onnx import TensorProto, helper

    io = [helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", "n"]) for name in ("obs", "logits")]
    graph = helper.make_graph([helper.make_node("Identity", ["obs"], ["logits"])], "any_width", io[:1], io[1:])
    onnx.save(helper.make_model(graph), str(tmp_path / "any.onnx"))
    policy = OnnxPolicy(tmp_path / "any.onnx")
    assert policy.logits(np.arange(3, dtype=np.float32)).tolist() == [0, 1, 2]
    assert (policy.observation_size, policy.num_actions) == (None, None)


@pytest.mark.parametrize("game_config, problem", [
    ({"bogus": 1}, r"game_config of its sidecar \S*ppo\.json \(toy_v0 has no option bogus; its options are: turns"),
    ([1], r"game_config of its sidecar \S*ppo\.json must be a JSON object of toy_v0's options, got \[1\]"),
], ids=["unknown_key", "not_an_object"])
def test_a_sidecar_game_config_the_game_does_not_take_is_a_mismatch_naming_the_sidecar_and_the_key(
        exported, game_config, problem):
    _edit_sidecar(exported, game_config=game_config)
    with pytest.raises(ModelMismatchError, match=f"{problem}.*re-export the model"):
        load_policy(str(exported))


@pytest.mark.parametrize("error", [TypeError, ValueError])
def test_a_game_that_refuses_the_sidecars_game_config_with_its_own_error_is_a_mismatch_naming_the_sidecar(
        exported, monkeypatch, error):
    # found by mutation testing: only the library's own errors were tested; a game's TypeError or ValueError
    # for an option value came out bare
    import toy_game

    def refuse(cls, config):
        raise error("turns must be a whole number")

    monkeypatch.setattr(toy_game.ToyGame, "layout_config", classmethod(refuse))
    with pytest.raises(ModelMismatchError, match=r"toy_v0 cannot be built with the game_config of its sidecar "
                                                  r"\S*ppo\.json \(turns must be a whole number\)"):
        load_policy(str(exported))


@pytest.mark.parametrize("env_version", [1, "0a", True])
def test_a_sidecar_env_version_that_differs_from_its_env_ids_version_is_refused(exported, env_version):
    _edit_sidecar(exported, env_version=env_version)
    with pytest.raises(ModelMismatchError, match=f"says env_version {env_version!r} but env_id 'toy_v0' is version 0"
                                                 ".*re-export"):
        load_policy(str(exported))


def test_a_sidecar_without_env_version_still_loads_as_the_older_format(exported):
    side = exported.with_suffix(".json")
    meta = json.loads(side.read_text(encoding="utf-8"))
    del meta["env_version"]
    side.write_text(json.dumps(meta), encoding="utf-8")
    assert load_policy(str(exported)).metadata["env_id"] == "toy_v0"
    _edit_sidecar(exported, env_version="0")  # the version as text: the same version
    assert isinstance(load_policy(str(exported)), MLPPolicy)


def test_a_sidecar_env_id_that_is_no_name_is_refused(exported):
    _edit_sidecar(exported, env_id=0)
    with pytest.raises(ModelMismatchError, match="env_id of its sidecar .* must be an env name .*got 0"):
        load_policy(str(exported))


@needs_onnx
def test_the_sidecar_names_every_rule_option_defaults_included(tmp_path):
    # a sidecar naming only the options given read a later option's new default as the model's own rules:
    # an RLlib Terralore model trained with opaque_wall=True warned that it had been trained without it
    import warnings

    from tabletop_envs import load_policy
    from tabletop_envs.core.registry import make_game
    from training.export import export_policy

    game = make_game("terralore_v0")
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(game.observation_layout.size, 8)), np.zeros(8)),
               (rng.normal(size=(8, game.num_actions)), np.zeros(game.num_actions))]
    path = export_policy(weights, "tanh", tmp_path / "m", "terralore_v0", game_config={})
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["game_config"] == game.config()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_policy(str(path), env="terralore_v0", game_config={})


def test_a_graph_without_weights_loads_without_onnxruntime_and_its_first_move_says_to_install_it(
        exported, monkeypatch):
    import toy_game

    exported.with_suffix(".npz").unlink()  # only the graph is left: it needs onnxruntime
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime raises ImportError
    policy = load_policy(str(exported))
    assert isinstance(policy, OnnxPolicy)
    state = toy_game.ToyGame().new_initial_state(0)
    with pytest.raises(TabletopError, match="ppo.onnx runs through onnxruntime, which is not installed: pip install "
                                            "onnxruntime"):
        policy.act(state.observation(0), state.legal_action_mask(), np.random.default_rng(0))


def test_sidecar_names_the_env_family_and_version_apart(exported):
    meta = json.loads(exported.with_suffix(".json").read_text(encoding="utf-8"))
    assert (meta["env_id"], meta["env_family"], meta["env_version"]) == ("toy_v0", "toy", 0)


def test_update_sidecar_merges_into_a_section_instead_of_replacing_it(exported):
    from training.export import update_sidecar

    meta = update_sidecar(exported, evaluation={"vs_heuristic": {"win": {"rate": 0.25}}}, note="re-evaluated")
    on_disk = json.loads(exported.with_suffix(".json").read_text(encoding="utf-8"))
    assert on_disk == meta and on_disk["note"] == "re-evaluated"
    assert on_disk["evaluation"] == {"vs_random": {"win": {"rate": 0.5}}, "vs_heuristic": {"win": {"rate": 0.25}}}


@pytest.mark.parametrize(("key", "problem"), [
    ("evaluation", r"evaluation must be an object \(vs_<opponent>: results, protocol\), got \[\]"),
    ("notes", r"notes must be an object to merge \['vs_heuristic'\] into, got \[\]")])
def test_update_sidecar_refuses_in_one_line_a_section_that_is_no_object_to_merge_into(exported, key, problem):
    from training.export import update_sidecar

    # the merge met it as "TypeError: 'list' object is not a mapping", naming neither the file nor the key
    side = exported.with_suffix(".json")
    _edit_sidecar(exported, **{key: []})
    before = side.read_text(encoding="utf-8")
    with pytest.raises(ModelMismatchError, match=rf"^sidecar {re.escape(str(side))}: {problem}; restore it or "
                                                 "re-export the model$"):
        update_sidecar(exported, **{key: {"vs_heuristic": {"win": {"rate": 0.25}}}})
    assert side.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("n_obs, n_act", [(31, 11), (32, 12)])
def test_export_refuses_a_network_whose_widths_do_not_fit_the_env(toy, tmp_path, n_obs, n_act):
    from training.export import export_policy

    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(n_obs, 8)), rng.normal(size=8)), (rng.normal(size=(8, n_act)), rng.normal(size=n_act))]
    with pytest.raises(ModelMismatchError, match=f"network {n_obs}->{n_act} does not fit toy_v0 \\(32 observations, 11"):
        export_policy(weights, "tanh", tmp_path / "bad", "toy_v0")
    assert _written(tmp_path / "bad") == []


@needs_train
def test_a_policy_that_is_not_a_flat_mlp_is_refused_at_export(toy):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    from tabletop_envs.core.single_agent import SingleAgentEnv
    from training.export import mlp_weights

    class Doubling(BaseFeaturesExtractor):  # no weights, yet not a plain flatten: the export would drop it
        def __init__(self, space):
            super().__init__(space, int(np.prod(space.shape)))

        def forward(self, obs):
            return torch.flatten(obs, 1) * 2

    model = MaskablePPO("MlpPolicy", SingleAgentEnv(toy), seed=0, device="cpu",
                        policy_kwargs={"features_extractor_class": Doubling, "net_arch": [8]})
    with pytest.raises(TypeError, match="only MlpPolicy \\(FlattenExtractor\\) exports to a plain MLP, got Doubling"):
        mlp_weights(model)


@pytest.mark.parametrize("games", ["-1", "-5"])
def test_export_cli_refuses_a_negative_number_of_evaluation_games_before_writing(toy_run, tmp_path, games):
    from tabletop_envs import ConfigError
    from training.export import main

    out = tmp_path / "out" / "ppo"
    with pytest.raises(ConfigError, match=f"--eval-games must be 0 \\(no evaluation\\) or a positive number of games, "
                                          f"got {games}"):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), "--eval-games", games])
    assert _written(out) == []


@pytest.mark.parametrize("act", ["argmax", "sample"])
def test_export_cli_records_the_act_mode_it_is_given(toy_run, tmp_path, act, capsys):
    from training.export import main

    out = tmp_path / "out" / "ppo"
    main(["--model", str(toy_run / "final_model.zip"), "--out", str(out), "--act", act])
    assert f"act {act}, from --act)" in capsys.readouterr().out
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["act"] == act
    assert load_policy(str(out.with_suffix(".onnx")), env="toy_v0").deterministic == (act == "argmax")


def _toy_move(policy):
    import toy_game

    state = toy_game.ToyGame().new_initial_state(0)
    return policy.act(state.observation(0), state.legal_action_mask(), np.random.default_rng(0))


def test_the_sidecar_records_the_digest_of_each_file_it_was_exported_with(exported):
    import hashlib

    meta = json.loads(exported.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["sha256"] == {key: hashlib.sha256(exported.with_name(name).read_bytes()).hexdigest()
                              for key, name in meta["files"].items()}
    assert sorted(p.name for p in exported.parent.iterdir()) == ["ppo.json", "ppo.npz", "ppo.onnx"]  # no .part left


@pytest.mark.parametrize("backend, stale", [("auto", ".npz"), ("onnxruntime", ".onnx")])
def test_weights_of_another_export_beside_a_sidecar_are_refused_not_played(exported, tmp_path, backend, stale):
    # found by an export audit: a stale .npz of the same shape beside a newer .onnx and sidecar played
    # another network's moves, and the sidecar's evaluation described a model that was not playing
    from training.export import export_policy

    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    policy = load_policy(str(exported))
    other = [(w + 0.5, b) for w, b in policy.layers]
    export_policy(other, "tanh", tmp_path / "other" / "ppo", "toy_v0")
    (tmp_path / "other" / f"ppo{stale}").replace(exported.with_suffix(stale))
    with pytest.raises(ModelMismatchError, match=rf"ppo\{stale} is not the file exported with the sidecar ppo.json"
                                                 r".*Copy a model's .onnx, .npz and .json together"):
        load_policy(str(exported), backend=backend)


def test_a_sidecar_without_digests_from_an_older_export_still_loads(exported):
    side = exported.with_suffix(".json")
    meta = json.loads(side.read_text(encoding="utf-8"))
    del meta["sha256"]
    side.write_text(json.dumps(meta), encoding="utf-8")
    assert _toy_move(load_policy(str(exported))) in range(11)


# "" and []: found by mutation testing, an empty record of another type was let through as "no digests"
@pytest.mark.parametrize("record", ["abc", {"weights": 5}, "", []])
def test_a_sidecar_digest_record_of_another_shape_is_refused(exported, record):
    side = exported.with_suffix(".json")
    meta = json.loads(side.read_text(encoding="utf-8"))
    meta["sha256"] = record
    side.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelMismatchError, match="sha256 must map 'onnx' and 'weights' to hex digests"):
        load_policy(str(exported))


@pytest.mark.parametrize("changes, problem", [
    ({"training": []}, r"training must be an object \(steps, seed, command, ...\), got \[\]"),
    ({"training": {"steps": True}}, "training.steps must be a non-negative int, got True"),  # a bool is an int to Python
    ({"training": {"steps": "2.5M"}}, "training.steps must be a non-negative int, got '2.5M'"),
    ({"training": {"seed": -1}}, "training.seed must be a non-negative int, got -1"),
    ({"training": {"machine": "AMD EPYC"}}, "training.machine must be an object, got 'AMD EPYC'"),
    ({"training": {"distill": []}}, r"training.distill must be an object or null, got \[\]"),
    ({"evaluation": "97%"}, "evaluation must be an object .*got '97%'"),
    ({"evaluation": {"vs_random": 0.97}}, "evaluation.vs_random must be an object .*got 0.97"),
    ({"evaluation": {"vs_random": {"games": 2.5}}}, "evaluation.vs_random.games must be a non-negative int, got 2.5"),
    ({"evaluation": {"vs_random": {"win": "97%"}}}, "evaluation.vs_random.win must be an object .*got '97%'"),
    ({"evaluation": {"vs_random": {"win": {"rate": float("nan")}}}}, "evaluation.vs_random.win.rate must be a number "
                                                                     "from 0 to 1, got nan"),
    ({"evaluation": {"vs_random": {"draw": {"rate": True}}}}, "evaluation.vs_random.draw.rate .*got True"),
    ({"evaluation": {"vs_random": {"loss": {"rate": 97}}}}, "evaluation.vs_random.loss.rate .*got 97"),
    ({"evaluation": {"vs_random": {"win": {"ci95": [0.4]}}}}, r"evaluation.vs_random.win.ci95 must be two numbers "
                                                              r"from 0 to 1 .*got \[0.4\]"),
    # found by mutation testing: a key that is no anchor ended the check of the anchors after it
    ({"evaluation": {"protocol": {}, "vs_random": {"games": -1}}}, "evaluation.vs_random.games must be a "
                                                                   "non-negative int, got -1"),
    ({"name": ["ppo"]}, r"name must be a non-empty string .*got \['ppo'\]"),
    ({"name": ""}, "name must be a non-empty string .*got ''"),
], ids=lambda value: None if isinstance(value, str) else json.dumps(value)[:40])
def test_a_sidecar_record_of_the_wrong_type_is_refused_naming_the_key_and_the_fix(exported, changes, problem):
    # the loader plays without these records, but the model card and the evaluation tables print them: an edited
    # "training": [] ended python -m training.model_card in an AttributeError, and a list as name reached the tables
    _edit_sidecar(exported, **changes)
    with pytest.raises(ModelMismatchError, match=f"sidecar {re.escape(str(exported.with_suffix('.json')))}: {problem}; "
                                                 "restore it or re-export the model"):
        load_policy(str(exported))


def test_a_sidecar_of_another_format_is_refused_naming_both_formats_and_without_one_still_loads(exported):
    # a later format may record what the loader reads differently: read as this one's, it played without a word
    from tabletop_envs.core.onnx_policy import SIDECAR_FORMAT

    _edit_sidecar(exported, format="tabletop_envs.policy/2")
    with pytest.raises(ModelMismatchError, match=f"has format 'tabletop_envs.policy/2'; this library reads "
                                                 f"'{SIDECAR_FORMAT}': load it with the tabletop_envs that exported it "
                                                 r"\(version .*\), or re-export the model"):
        load_policy(str(exported))
    side = exported.with_suffix(".json")
    meta = json.loads(side.read_text(encoding="utf-8"))
    del meta["format"]  # a sidecar written by hand: read as this format, as before
    side.write_text(json.dumps(meta), encoding="utf-8")
    assert _toy_move(load_policy(str(exported))) in range(11)


@needs_onnx
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's own word on the overflowing matmul, before ours
@pytest.mark.parametrize("backend", ["numpy", "onnxruntime"])
def test_weights_that_overflow_on_the_envs_own_observation_are_named_not_the_observation(toy, tmp_path, backend):
    # finite weights near float32's limit load (only NaN and infinite ones are refused at load), and their first
    # move made NaN logits: the message blamed the observation, which the env itself had produced
    import toy_game

    from training.export import export_policy

    if backend == "onnxruntime":
        pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(0)
    weights = [(rng.normal(size=(32, 8)), np.zeros(8)), (np.full((8, 11), 3e38), np.zeros(11))]
    path = export_policy(weights, "tanh", tmp_path / "huge", "toy_v0")
    policy = load_policy(str(path), backend=backend)
    played = path.with_suffix(".npz" if backend == "numpy" else ".onnx")
    state = toy_game.ToyGame().new_initial_state(0)
    obs, mask = state.observation(0), state.legal_action_mask()
    with pytest.raises(ModelMismatchError, match=rf"{re.escape(str(played))} is not a readable model file \(its weights "
                                                 "overflow float32 to NaN or infinite logits on an observation that "
                                                 r"toy_v0 produces\).*re-export the model"):
        policy.act(obs, mask, None)
    with pytest.raises(ModelMismatchError, match="its weights overflow float32"):
        policy.act_batch(np.stack([obs, obs]), np.stack([mask, mask]), None)
    # values the env never produces are still the observation's fault
    with pytest.raises(ValueError, match="the observation holds values far outside what the env produces"):
        policy.act(np.full(32, 1e30, np.float32), mask, None)
    # one value out of range is enough (found by mutation testing: a range check of any value, not each, passed)
    partly = obs.astype(np.float32)
    partly[5] = 1e30
    with pytest.raises(ValueError, match="the observation holds values far outside what the env produces"):
        policy.act(partly, mask, None)
    with pytest.raises(ValueError, match="the observation holds values far outside what the env produces"):
        policy.act_batch(np.stack([obs, partly]), np.stack([mask, mask]), None)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's own word on the overflowing matmul, before ours
def test_weights_of_a_policy_built_in_python_that_overflow_on_the_envs_own_observation_are_named(toy):
    # a policy built from arrays has no file to blame: the weights were still at fault, and the message
    # blamed the observation the env had produced
    import toy_game

    from tabletop_envs.core.onnx_policy import MLPPolicy

    rng = np.random.default_rng(0)
    policy = MLPPolicy([(rng.normal(size=(32, 8)), np.zeros(8)), (np.full((8, 11), 3e38), np.zeros(11))],
                       name="hand-built")
    policy.metadata = {"env_id": "toy_v0"}
    state = toy_game.ToyGame().new_initial_state(0)
    obs, mask = state.observation(0), state.legal_action_mask()
    with pytest.raises(ValueError, match="policy 'hand-built': its weights overflow float32 to NaN or infinite "
                                         "logits on an observation that toy_v0 produces; check the weights"):
        policy.act(obs, mask, None)
    with pytest.raises(ValueError, match="the observation holds values far outside what the env produces"):
        policy.act(np.full(32, 1e30, np.float32), mask, None)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("metadata", [None, {"env_id": "chess_v0"}], ids=["no metadata", "a game not here"])
def test_nan_logits_of_a_policy_whose_env_is_not_known_here_blame_the_observation(toy, metadata):
    # with no game to build, the env's range of observations is unknown: the weights cannot be shown at fault
    import toy_game

    from tabletop_envs.core.onnx_policy import MLPPolicy

    rng = np.random.default_rng(0)
    policy = MLPPolicy([(rng.normal(size=(32, 8)), np.zeros(8)), (np.full((8, 11), 3e38), np.zeros(11))],
                       name="hand-built")
    if metadata is not None:
        policy.metadata = metadata
    state = toy_game.ToyGame().new_initial_state(0)
    with pytest.raises(ValueError, match="policy 'hand-built' got NaN or infinite logits: the observation holds "
                                         "values far outside what the env produces"):
        policy.act(state.observation(0), state.legal_action_mask(), None)


def test_a_sidecar_path_that_is_a_folder_is_refused_naming_it(exported):
    side = exported.with_suffix(".json")
    side.unlink()
    side.mkdir()
    with pytest.raises(ModelMismatchError, match=r"ppo.json cannot be read \(IsADirectoryError"):
        load_policy(str(exported))


def test_asking_for_onnxruntime_where_it_is_missing_is_refused_at_load_naming_the_install_and_auto(
        exported, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(TabletopError, match="backend='onnxruntime' needs onnxruntime: pip install onnxruntime, "
                                            "or load with backend='auto'"):
        load_policy(str(exported), backend="onnxruntime")
    assert isinstance(load_policy(str(exported)), MLPPolicy)  # the .npz beside it plays without it


def test_a_failed_export_leaves_the_earlier_model_whole(exported, monkeypatch):
    import training.export as export

    before = {p.name: p.read_bytes() for p in exported.parent.iterdir()}
    policy = load_policy(str(exported))

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(export, "_sidecar", broken)  # after the graph and weights are written
    with pytest.raises(OSError, match="disk full"):
        export.export_policy([(w + 1, b) for w, b in policy.layers], "tanh", exported.with_suffix(""), "toy_v0")
    assert {p.name: p.read_bytes() for p in exported.parent.iterdir()} == before


def test_export_cli_refuses_to_replace_a_model_of_another_game(toy_run, tmp_path):
    from tabletop_envs import ConfigError
    from training.export import main

    out = tmp_path / "earth"
    out.mkdir()
    files = {"ppo.json": json.dumps({"env_id": "earth_v0"}), "ppo.onnx": "graph", "ppo.npz": "weights"}
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="holds a model for earth_v0.*this toy_v0 model would replace it"):
        main(["--model", str(toy_run / "final_model.zip"), "--out", str(out / "ppo")])
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == files


def test_an_evaluation_that_fills_the_disk_while_updating_the_sidecar_leaves_the_model_loadable(exported,
                                                                                                 monkeypatch):
    # update_sidecar rewrote the sidecar in place: a full disk left half a JSON file, and the exported model
    # (its digests, its env) no longer loaded until it was exported again
    from full_disk import text_writes_fill_the_disk

    from tabletop_envs import load_policy
    from training.export import update_sidecar

    with monkeypatch.context() as patched, pytest.raises(OSError, match="No space left"):
        text_writes_fill_the_disk(patched)
        update_sidecar(exported, evaluation={"vs_heuristic": {"win": {"rate": 0.25}}})
    assert load_policy(str(exported)).metadata["evaluation"] == {"vs_random": {"win": {"rate": 0.5}}}
    assert sorted(p.name for p in exported.parent.iterdir()) == ["ppo.json", "ppo.npz", "ppo.onnx"]


def test_a_model_zip_whose_central_directory_is_damaged_is_refused_as_one_whose_writing_was_cut_off(tmp_path):
    # an end record that zipfile.is_zipfile accepts, pointing at no central directory: ZipFile raised BadZipFile
    import struct
    import zipfile

    from tabletop_envs import ConfigError
    from training.export import check_model_file

    model = tmp_path / "final_model.zip"
    model.write_bytes(b"x" * 100 + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, 46, 0, 0))
    assert zipfile.is_zipfile(model)
    with pytest.raises(ConfigError, match=r"not a whole SB3 model .*cut off .*checkpoints/step_<N>/model.zip"):
        check_model_file(model)


def test_a_model_zip_whose_writing_was_cut_off_is_refused_naming_a_checkpoint(toy_run, tmp_path):
    # the torch file stored inside made a torn final_model.zip pass as a zip, and SB3 failed on
    # "No data found in the saved file" (an AssertionError's traceback)
    import zipfile

    from tabletop_envs import ConfigError
    from training.export import main as export_main

    model = toy_run / "final_model.zip"
    whole = model.read_bytes()
    model.write_bytes(whole[:len(whole) // 2])
    assert zipfile.is_zipfile(model)
    with pytest.raises(ConfigError, match=r"not a whole SB3 model .*cut off .*checkpoints/step_<N>/model.zip"):
        export_main(["--model", str(model), "--out", str(tmp_path / "out" / "ppo")])
    assert not (tmp_path / "out").exists()
