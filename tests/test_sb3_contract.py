"""Stable-Baselines3's own VecEnv contract (its tests/test_vec_*.py), run on ``SuiteVecEnv`` and on ``DummyVecEnv``."""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pandas as pd
import pytest
from gymnasium import spaces

pytest.importorskip("stable_baselines3")

from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.evaluation import evaluate_policy  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import (  # noqa: E402
    DummyVecEnv,
    VecEnv,
    VecFrameStack,
    VecMonitor,
    VecNormalize,
    sync_envs_normalization,
)

import gym_suite  # noqa: E402, F401  (registers the ids)
from gym_suite.training.sb3 import SuiteVecEnv  # noqa: E402

N_ENVS = 3
adapters = pytest.mark.parametrize("adapter", ["suite", "dummy"])


def make(adapter: str, env_id: str, n_envs: int = N_ENVS, **env_kwargs) -> VecEnv:
    """The adapter's VecEnv of ``env_id``: ``SuiteVecEnv`` or ``DummyVecEnv`` of ``Monitor``."""
    if adapter == "suite":
        return SuiteVecEnv(env_id, n_envs, env_kwargs=env_kwargs)
    return DummyVecEnv([lambda: Monitor(gymnasium.make(env_id, **env_kwargs)) for _ in range(n_envs)])


def sample_actions(venv: VecEnv) -> np.ndarray:
    return np.stack([np.asarray(venv.action_space.sample()) for _ in range(venv.num_envs)])


def allclose(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(np.allclose(a[k], b[k]) for k in a)
    return bool(np.allclose(a, b))


def wrapped(venv: VecEnv, wrapper) -> VecEnv:
    return {VecFrameStack: lambda: VecFrameStack(venv, n_stack=2), VecNormalize: lambda: VecNormalize(venv)}.get(
        wrapper, lambda: venv
    )()


def check_render_and_a_new_attribute(venv: VecEnv) -> None:
    venv.seed(0)
    venv.reset()
    assert np.array_equal(venv.render(mode="rgb_array"), venv.render())
    with pytest.warns(UserWarning):
        venv.render(mode="something_else")
    assert not venv.has_attr("dummy")
    venv.set_attr("dummy", 12)  # for every row
    assert venv.get_attr("dummy") == [12] * N_ENVS


@adapters
def test_custom_calls(adapter):
    """Attributes, methods and wrapper attributes of the rows (SB3's test_vecenv_custom_calls)."""
    venv = make(adapter, "example-v0", render_mode="rgb_array")
    check_render_and_a_new_attribute(venv)
    venv.env_method("set_wrapper_attr", "dummy2", 2)
    assert venv.get_attr("dummy2") == [2] * N_ENVS
    single = gymnasium.make("example-v0").unwrapped  # the rows' methods, on every row and on some
    assert venv.env_method("heuristic", 2) == [single.heuristic(2)] * N_ENVS
    assert venv.env_method("heuristic", observation=8, indices=[0, 2]) == [single.heuristic(8)] * 2
    venv.set_attr("dummy1", 42, indices=None)
    assert venv.get_attr("dummy1") == [42] * N_ENVS
    for indices, value, expected in (([0, 1], 3, [3, 3, None]), ([0, -1], 1, [1, None, 1])):
        venv.reset()  # an attribute each row holds on its own: set for some rows only
        start = venv.get_attr("position")
        assert venv.env_method("set_wrapper_attr", "position", value, indices=indices) == [True, True]
        assert venv.get_attr("position") == [start[i] if e is None else e for i, e in enumerate(expected)]
        assert venv.get_attr("position", indices=[0, -1]) == [value, start[2] if expected[2] is None else value]
    venv.set_attr("position", 2, indices=1)
    assert venv.get_attr("position", indices=1) == [2]
    venv.set_options({"hello": 1})  # options the env does not take are refused at reset, and forgotten after it
    with pytest.raises(ValueError, match="hello"):
        venv.reset()
    venv.set_options(None)
    venv.reset()
    venv.close()


@adapters
@pytest.mark.parametrize("wrapper", [VecNormalize, VecFrameStack])
def test_custom_calls_through_wrappers(adapter, wrapper):
    venv = wrapped(make(adapter, "target-v0", render_mode="rgb_array"), wrapper)
    check_render_and_a_new_attribute(venv)
    assert venv.env_method("set_wrapper_attr", "note", 0.25) == [True] * N_ENVS
    assert venv.get_attr("note") == [0.25] * N_ENVS
    assert venv.env_method("get_wrapper_attr", "note", indices=[0, -1]) == [0.25, 0.25]
    if adapter == "suite":  # a parameter is fixed when the env is made (the rules would ignore a new value)
        with pytest.raises(ValueError, match="radius is a parameter"):
            venv.env_method("set_wrapper_attr", "radius", 0.25)
    with pytest.raises(IndexError):
        venv.get_attr("radius", indices=[N_ENVS])
    venv.close()


@adapters
@pytest.mark.parametrize("wrapper", [None, VecNormalize, VecFrameStack])
def test_terminal_observation(adapter, wrapper):
    """'terminal_observation' is in the info exactly when a row is done (SB3's test_vecenv_terminal_obs)."""
    limit = 4
    venv = wrapped(make(adapter, "target-v0", max_episode_steps=limit, radius=0.05), wrapper)
    venv.seed(1)
    venv.reset()
    lengths = np.zeros(N_ENVS, dtype=int)
    ended = 0
    for _ in range(6 * limit):
        obs, rewards, dones, infos = venv.step(sample_actions(venv))
        lengths += 1
        assert len(obs) == len(rewards) == len(dones) == len(infos) == N_ENVS
        for i, (done, info) in enumerate(zip(dones, infos)):
            assert ("terminal_observation" in info) == done
            assert done == (lengths[i] == limit or (done and not info["TimeLimit.truncated"]))
            if done:
                assert info["episode"]["l"] == lengths[i] <= limit
                assert info["TimeLimit.truncated"] == (lengths[i] == limit and info["TimeLimit.truncated"])
                assert np.asarray(info["terminal_observation"]).shape == venv.observation_space.shape
                lengths[i] = 0
                ended += 1
    assert ended >= N_ENVS
    venv.close()


@adapters
def test_is_wrapped_and_metadata(adapter):
    venv, reference = make(adapter, "target-v0"), make("dummy", "target-v0")
    assert venv.env_is_wrapped(Monitor) == [True] * N_ENVS
    assert VecFrameStack(venv, n_stack=2).env_is_wrapped(Monitor) == [True] * N_ENVS
    assert venv.env_is_wrapped(gymnasium.wrappers.TimeLimit) == [True] * N_ENVS  # target-v0's step limit
    assert venv.get_attr("metadata") == reference.get_attr("metadata") and venv.metadata == reference.metadata
    assert "human" in venv.get_attr("metadata")[0]["render_modes"]
    assert venv.get_attr("spec")[0].id == "target-v0"


@adapters
def test_deterministic_and_seeding(adapter):
    """The same seed gives the same start, through VecNormalize too; ``seed()`` alone rows of their own."""
    venv = make(adapter, "target-v0")
    for seeded in (venv, VecNormalize(venv)):
        seeded.seed(3)
        obs = venv.reset()
        seeded.seed(3)
        assert np.allclose(venv.reset(), obs)
    one, two = make(adapter, "target-v0"), make(adapter, "target-v0")
    one.seed(0)
    two.seed(0)
    assert np.allclose(one.reset(), two.reset())
    actions = sample_actions(one)
    assert np.allclose(one.step(actions)[0], two.step(actions)[0])
    venv.seed()
    for obs in (venv.reset(), venv.step(sample_actions(venv))[0]):
        assert not np.allclose(obs[0], obs[1]) and not np.allclose(obs[1], obs[2])


@adapters
def test_render_rgb_array(adapter):
    """rgb_array frames tiled into one image, through VecFrameStack and VecNormalize (SB3's test_render)."""
    venv = make(adapter, "target-v0", n_envs=2, render_mode="rgb_array")
    venv.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = venv.render()
        assert np.array_equal(venv.render("rgb_array"), frame)
    assert frame.ndim == 3 and frame.shape[2] == 3
    with pytest.warns(UserWarning):
        venv.render(mode="blah")
    for _ in range(3):
        venv.step(sample_actions(venv))
        assert venv.render().shape == frame.shape
    stacked = VecFrameStack(venv, 2)
    assert stacked.render().shape == frame.shape and stacked.render_mode == "rgb_array"
    assert VecNormalize(stacked).render_mode == "rgb_array"


@adapters
def test_vec_monitor(adapter, tmp_path):
    """VecMonitor warns the rows are monitored already; its episodes are the rewards' sums, in its file."""
    venv = make(adapter, "target-v0", n_envs=1, max_episode_steps=20)
    venv.seed(0)
    path = tmp_path / "run.monitor.csv"
    with pytest.warns(UserWarning, match="Monitor"):
        monitor = VecMonitor(venv, str(path))
    with pytest.warns(UserWarning, match="Monitor"):
        VecMonitor(VecNormalize(venv))
    monitor.reset()
    length, total, episodes = 0, 0.0, 0
    for _ in range(300):
        _, rewards, dones, infos = monitor.step(sample_actions(monitor))
        length, total = length + 1, total + float(rewards[0])
        if dones[0]:
            assert infos[0]["episode"]["r"] == pytest.approx(total) and infos[0]["episode"]["l"] == length
            length, total, episodes = 0, 0.0, episodes + 1
    monitor.close()
    with open(path) as handle:
        assert set(json.loads(handle.readline()[1:])) == {"t_start", "env_id"}
        lines = pd.read_csv(handle)
    assert set(lines.columns) == {"r", "l", "t"} and len(lines) == episodes > 0


@adapters
def test_evaluate_policy_sees_the_monitor(adapter, recwarn):
    venv = make(adapter, "example-v0", n_envs=2)
    model = PPO("MlpPolicy", venv, n_steps=16, batch_size=16, device="cpu", seed=0)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    assert np.isfinite(evaluate_policy(model, venv, n_eval_episodes=4)[0])
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)], [str(w.message) for w in recwarn]


@adapters
def test_vec_normalize_clips_saves_and_loads(adapter, tmp_path):
    venv = make(adapter, "target-v0", n_envs=1, max_episode_steps=50)
    normalized = VecNormalize(venv, norm_obs=True, norm_reward=True, clip_obs=0.5, clip_reward=5.0)
    assert venv.render_mode is None and normalized.render_mode is None
    normalized.reset()
    done = [False]
    while not done[0]:
        obs, rewards, done, _ = normalized.step(sample_actions(normalized))
        assert np.max(np.abs(obs)) <= 0.5 and np.max(np.abs(rewards)) <= 5.0
    normalized.save(tmp_path / "vec_normalize")
    loaded = VecNormalize.load(tmp_path / "vec_normalize", venv=venv)
    assert np.allclose(loaded.obs_rms.mean, normalized.obs_rms.mean)
    assert np.allclose(loaded.obs_rms.var, normalized.obs_rms.var)
    assert np.allclose(loaded.ret_rms.var, normalized.ret_rms.var) and loaded.render_mode is None


@adapters
def test_vec_normalize_original_values_and_sync(adapter):
    """get_original_obs / get_original_reward and sync_envs_normalization (SB3's test_get_original)."""
    env = VecNormalize(make(adapter, "target-v0", n_envs=1), clip_obs=100.0, clip_reward=100.0)
    env.seed(0)
    env.action_space.seed(0)
    env.reset()
    for _ in range(100):
        obs, rewards, _, _ = env.step(sample_actions(env))
    assert np.allclose(env.get_original_reward(), env.unnormalize_reward(rewards))
    np.testing.assert_allclose(env.normalize_obs(env.get_original_obs()), obs, rtol=1e-5, atol=1e-6)
    obs = env.reset()
    original = env.get_original_obs()
    assert allclose(original, env.unnormalize_obs(obs))
    evaluation = VecNormalize(make(adapter, "target-v0", n_envs=1), training=False, clip_obs=100.0, clip_reward=100.0)
    assert not allclose(obs, evaluation.normalize_obs(original))
    sync_envs_normalization(env, evaluation)
    assert allclose(obs, evaluation.normalize_obs(original))


@adapters
def test_vec_normalize_of_dict_observations_needs_the_box_keys(adapter):
    """push-v0's Dict observation mixes Discrete and Box keys (SB3's test_non_dict_obs_keys)."""
    venv = make(adapter, "push-v0", n_envs=2)
    with pytest.raises(ValueError, match="explicitly pass the observation keys"):
        VecNormalize(venv)
    boxes = [k for k, s in venv.observation_space.spaces.items() if isinstance(s, spaces.Box)]
    normalized = VecNormalize(venv, norm_obs_keys=boxes)
    normalized.reset()
    assert set(normalized.step(sample_actions(normalized))[0]) == set(venv.observation_space.spaces)
    VecNormalize(venv, norm_obs=False).reset()


def test_where_the_adapters_differ_by_design():
    """DummyVecEnv sets a new attribute on one row, each row its options; the native batch shares them."""
    dummy = make("dummy", "example-v0")
    for i in range(N_ENVS):
        dummy.set_attr("dummy1", i, indices=i)
    assert dummy.get_attr("dummy1") == [0, 1, 2]
    suite = make("suite", "example-v0")
    with pytest.raises(ValueError, match="every row"):
        suite.set_attr("dummy1", 0, indices=0)
    assert not suite.has_attr("dummy1")  # the refused call changed nothing
    suite.set_attr("dummy1", 7)
    assert suite.get_attr("dummy1") == [7] * N_ENVS
    suite.set_options([{}, {"a": 1}, {}])
    with pytest.raises(ValueError, match="same options"):
        suite.reset()
