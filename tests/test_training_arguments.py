"""``train_sb3`` checks every argument, by name, before it makes an env or trains a step."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("stable_baselines3")

from gym_suite.training.sb3 import train_sb3  # noqa: E402


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"steps": 0}, ValueError, "train_sb3: steps must be >= 1, got 0"),
        ({"steps": "64"}, TypeError, "train_sb3: steps must be an integer, got '64'"),
        ({"steps": True}, TypeError, "train_sb3: steps must be an integer"),
        ({"truncation_is_terminal": "yes"}, TypeError, "train_sb3: truncation_is_terminal must be True or False"),
        ({"progress_bar": "no"}, TypeError, "train_sb3: progress_bar must be True or False"),
        ({"algo": 5}, TypeError, "algo must be 'ppo' or 'dqn', got 5"),
        ({"algo": "sac"}, ValueError, "unknown algorithm 'sac'"),
        ({"overrides": [1]}, TypeError, "train_sb3: overrides must be None or a dict of PPO's settings"),
        ({"overrides": {"n_epoch": 3}}, TypeError, r"unknown setting\(s\) \['n_epoch'\] in overrides; PPO's settings"),
        ({"overrides": {"seed": 3}}, TypeError, "train_sb3's own arguments"),
        ({"seed": -1}, ValueError, "train_sb3: seed must be >= 0"),
        ({"seed": 2**32}, ValueError, r"train_sb3: seed must be an integer in 0..2\*\*32 - 1"),
        ({"env_kwargs": [("rt_max", 5)]}, TypeError, "train_sb3: env_kwargs must be None or a dict"),
        ({"n_envs": 0}, ValueError, "train_sb3: n_envs must be >= 1"),
        ({"vec_env": 5}, TypeError, "vec_env must be 'native' or 'dummy'"),
        ({"callback": 5}, TypeError, "train_sb3: callback must be None"),
        ({"callback": [lambda _locals, _globals: True, 5]}, TypeError, "train_sb3: callback must be None"),
        ({"env_id": 5}, TypeError, "train_sb3: env_id must be a registered id"),
    ],
)
def test_bad_arguments_raise_before_training(arguments, error, message):
    calls = []  # the callback notes that training began: it must not, for bad arguments
    started = lambda _locals, _globals: calls.append(1) or True  # noqa: E731
    with pytest.raises(error, match=message):
        train_sb3(**{"env_id": "example-v0", "steps": 64, "callback": started, **arguments})
    assert not calls


def test_numpy_integers_are_integers():
    model = train_sb3(
        "example-v0",
        np.str_("PPO"),
        steps=np.int64(64),
        seed=np.uint32(3),
        n_envs=np.int8(1),
        overrides={"n_steps": 64, "batch_size": 64, "n_epochs": 1},
        progress_bar=np.bool_(False),
    )
    assert model.num_timesteps == 64


_WRONG = st.one_of(st.text(max_size=3), st.floats(), st.lists(st.integers(), max_size=2), st.just(object()))


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["steps", "seed", "n_envs", "verbose", "progress_bar", "truncation_is_terminal"]),
    value=_WRONG,
)
def test_any_value_of_the_wrong_kind_is_refused_by_name(name, value):
    with pytest.raises((TypeError, ValueError), match=f"train_sb3: {name} must be") as info:
        train_sb3("example-v0", **{name: value})
    assert len(str(info.value)) < 1000
