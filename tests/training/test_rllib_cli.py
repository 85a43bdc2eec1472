"""The RLlib trainer's recipe and command line, checked without ray installed (the training itself is
tested in tests/distributed)."""

from __future__ import annotations

import pytest

from tabletop_envs import ConfigError
from training.rllib_train import load_rllib_config


@pytest.mark.parametrize("name", ["''", "a/b", "ppo.v2"])
def test_rllib_output_name_must_be_a_plain_file_stem(name):
    with pytest.raises(ConfigError, match="output.name .* must be a plain file stem"):
        load_rllib_config(overrides=[f"output.name={name}"])


def test_rllib_output_dir_knows_only_env_and_seed():
    with pytest.raises(ConfigError, match=r"unknown placeholder \{name\}; the placeholders are \{env\}, \{seed\}"):
        load_rllib_config(overrides=["output.dir=runs/{name}"])
    assert str(load_rllib_config(overrides=["output.dir=runs/{env}-{seed}"]).run_dir()) == "runs/terralore_v0-0"
