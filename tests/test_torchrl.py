"""TorchRL's ``GymEnv`` (Gymnasium backend) makes every id, plain or ``gym_suite:``-prefixed (dropping its
refused ``frameskip``), rolls it out and passes ``check_env_specs``."""

from __future__ import annotations

import pytest
from conftest import ALL_IDS

pytest.importorskip("torchrl")

from torchrl.envs import GymEnv  # noqa: E402
from torchrl.envs.libs.gym import set_gym_backend  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import gym_suite  # noqa: E402,F401  (registers the ids with Gymnasium)


@pytest.mark.parametrize("env_id", ALL_IDS)
@pytest.mark.parametrize("prefix", ["", "gym_suite:"])
def test_torchrl_gym_env_drops_its_frameskip_argument_rolls_out_and_checks_specs(env_id, prefix):
    with set_gym_backend("gymnasium"):
        env = GymEnv(prefix + env_id)
        rollout = env.rollout(20)
        assert 1 <= rollout.batch_size[0] <= 20
        check_env_specs(env)
        env.close()
