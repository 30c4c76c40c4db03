"""``SuiteVecEnv``: with one row and a seed, what ``DummyVecEnv`` of ``Monitor`` gives, and so the same model; and
Stable-Baselines3's own VecEnv contract (its tests/test_vec_*.py) run on both, the ``adapter`` parameter."""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pandas as pd
import pytest
from gymnasium import spaces
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("stable_baselines3")

from stable_baselines3 import DQN, PPO  # noqa: E402
from stable_baselines3.common.evaluation import evaluate_policy  # noqa: E402
from stable_baselines3.common.monitor import Monitor  # noqa: E402
from stable_baselines3.common.vec_env import (  # noqa: E402
    DummyVecEnv,
    VecCheckNan,
    VecEnv,
    VecFrameStack,
    VecMonitor,
    VecNormalize,
    sync_envs_normalization,
)

import gym_suite  # noqa: E402
from gym_suite.training import recipes  # noqa: E402
from gym_suite.training.sb3 import SuiteVecEnv, make_sb3_env, train_sb3  # noqa: E402

ALL_IDS = [spec.id for spec in gym_suite.SPECS]
LIMIT = 30  # a short step limit: several episodes in a few hundred steps for every id
N_ENVS = 3
adapters = pytest.mark.parametrize("adapter", ["suite", "dummy"])


def close(a, b) -> bool:
    """Equal; floats within a relative 1e-12 (np.exp and math.exp may differ in the last bit)."""
    if isinstance(a, (dict, str)) or isinstance(b, (dict, str)):
        both = isinstance(a, dict) and isinstance(b, dict)
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a) if both else a == b
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    return bool(np.allclose(a, b, rtol=1e-12, atol=0.0) if "f" in a.dtype.kind + b.dtype.kind else np.array_equal(a, b))


def infos_close(a: dict, b: dict) -> bool:
    """Step infos equal; ``episode`` compared without its wall-clock time ``t``."""
    a, b = dict(a), dict(b)
    ea, eb = a.pop("episode", None), b.pop("episode", None)
    if ea is None or eb is None:
        return ea is eb and close(a, b)
    return ea["l"] == eb["l"] and abs(ea["r"] - eb["r"]) <= 1e-6 and {"r", "l", "t"} <= eb.keys() and close(a, b)


def dummy(env_id: str, n_envs: int, seed: int | None = None, **env_kwargs) -> DummyVecEnv:
    venv = DummyVecEnv([lambda: Monitor(gymnasium.make(env_id, **env_kwargs)) for _ in range(n_envs)])
    if seed is not None:
        venv.seed(seed)
    return venv


def make(adapter: str, env_id: str, n_envs: int = N_ENVS, **env_kwargs) -> VecEnv:
    """The adapter's VecEnv of ``env_id``: ``SuiteVecEnv`` or ``DummyVecEnv`` of ``Monitor``."""
    return (
        SuiteVecEnv(env_id, n_envs, env_kwargs=env_kwargs)
        if adapter == "suite"
        else dummy(env_id, n_envs, **env_kwargs)
    )


def random_actions(space: spaces.Space, n_envs: int, steps: int, seed: int) -> list[np.ndarray]:
    space.seed(seed)
    return [np.stack([np.asarray(space.sample()) for _ in range(n_envs)]) for _ in range(steps)]


def assert_same_run(ours: VecEnv, reference: VecEnv, actions: list) -> int:
    """Step both with ``actions``; everything Stable-Baselines3 reads must agree. Returns the episodes ended."""
    assert close(ours.reset(), reference.reset())
    assert all(close(a, b) for a, b in zip(ours.reset_infos, reference.reset_infos))
    ended = 0
    for step, action in enumerate(actions):
        obs, rewards, dones, infos = ours.step(action)
        ref_obs, ref_rewards, ref_dones, ref_infos = reference.step(action)
        assert close(obs, ref_obs), (step, obs, ref_obs)
        assert rewards.dtype == ref_rewards.dtype == np.float32, step
        assert close(rewards, ref_rewards), (step, rewards, ref_rewards)
        assert dones.dtype == ref_dones.dtype == np.bool_ and np.array_equal(dones, ref_dones), step
        assert len(infos) == len(ref_infos)
        for info, ref_info in zip(infos, ref_infos):
            assert infos_close(info, ref_info), (step, info, ref_info)
        assert all(close(a, b) for a, b in zip(ours.reset_infos, reference.reset_infos)), step
        ended += int(dones.sum())
    return ended


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_one_row_is_dummy_vec_env_of_monitor(env_id):
    """Everything Stable-Baselines3 reads, over several episodes; reset() without a seed carries the stream on."""
    ours = SuiteVecEnv(env_id, 1, seed=7, env_kwargs={"max_episode_steps": LIMIT})
    reference = dummy(env_id, 1, 7, max_episode_steps=LIMIT)
    assert assert_same_run(ours, reference, random_actions(ours.action_space, 1, 200, seed=1)) >= 3
    assert_same_run(ours, reference, random_actions(ours.action_space, 1, 40, seed=2))


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_one_row_with_the_training_transforms_is_make_sb3_env_dummy(env_id):
    """The recipe's PPO training env and transforms, applied to the batch, are the scalar wrappers'."""
    recipe = recipes.recipe_for(env_id)
    transforms = {
        "reward_scale": recipe.reward_scale.get("ppo", 1.0),
        "reward_offset": recipe.reward_offset.get("ppo", 0.0),
    }
    kwargs = recipes.training_env_kwargs(env_id, "ppo", {"max_episode_steps": LIMIT})
    ours = make_sb3_env(env_id, 1, 3, kwargs, vec_env="native", **transforms)
    reference = make_sb3_env(env_id, 1, 3, kwargs, vec_env="dummy", **transforms)
    assert ours.action_space == reference.action_space
    assert assert_same_run(ours, reference, random_actions(ours.action_space, 1, 120, seed=4)) >= 2


def test_training_transforms_change_what_they_should():
    """target-v0's agent acts in [-1, 1]; heartpole-v0's rewards are transformed, the episode info's return not."""
    boxed = SuiteVecEnv("target-v0", 2, seed=0, unit_box_actions=True)
    assert boxed.action_space == spaces.Box(-1.0, 1.0, (2,), np.float32)
    assert SuiteVecEnv("target-v0", 2, seed=0).action_space == gymnasium.make("target-v0").action_space
    boxed.reset()
    obs, _, _, infos = boxed.step(np.array([[-1.0, -1.0], [1.0, 1.0]], dtype=np.float32))
    workers = [info.get("terminal_observation", row)[:2] for info, row in zip(infos, obs)]
    np.testing.assert_allclose(workers, [[0.0, 0.0], [50.0, 50.0]])  # the corners of the field
    plain, scaled = (
        SuiteVecEnv("heartpole-v0", 1, seed=5, env_kwargs={"max_episode_steps": 20}, **kw)
        for kw in ({}, {"reward_scale": 10.0, "reward_offset": 1.0})
    )
    plain.reset(), scaled.reset()
    for _ in range(20):
        _, r_plain, done, info_plain = plain.step(np.array([1]))
        _, r_scaled, _, info_scaled = scaled.step(np.array([1]))
        np.testing.assert_allclose(r_scaled, (10.0 * (r_plain.astype(np.float64) + 1.0)).astype(np.float32), rtol=1e-6)
    assert done[0] and info_plain[0]["episode"]["r"] == info_scaled[0]["episode"]["r"]


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_vec_env_contract(env_id):
    """SB3's env checker for a batch: spaces, shapes and dtypes, observations in the space, no NaN, infos per row."""
    single = gymnasium.make(env_id)
    venv = SuiteVecEnv(env_id, 4, seed=0, env_kwargs={"max_episode_steps": LIMIT})
    assert isinstance(venv, VecEnv) and venv.num_envs == 4
    assert venv.observation_space == single.observation_space and venv.action_space == single.action_space
    checked = VecCheckNan(venv, raise_exception=True)

    def check_obs(obs):
        if isinstance(venv.observation_space, spaces.Dict):
            assert set(obs) == set(venv.observation_space.spaces)
            for key, sub in venv.observation_space.spaces.items():
                assert obs[key].shape == (4, *sub.shape) and obs[key].dtype == sub.dtype, key
            rows = [{k: v[i] for k, v in obs.items()} for i in range(4)]
        else:
            assert obs.shape == (4, *venv.observation_space.shape) and obs.dtype == venv.observation_space.dtype
            rows = list(obs)
        assert all(venv.observation_space.contains(row) for row in rows)

    check_obs(checked.reset())
    assert len(venv.reset_infos) == 4
    for action in random_actions(venv.action_space, 4, 80, seed=0):
        obs, rewards, dones, infos = checked.step(action)
        check_obs(obs)
        assert rewards.shape == (4,) and rewards.dtype == np.float32 and np.isfinite(rewards).all()
        assert dones.shape == (4,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == 4 and all(isinstance(i, dict) for i in infos)
        assert all(isinstance(i["TimeLimit.truncated"], bool) for i in infos)
        for i in np.flatnonzero(dones):
            assert venv.observation_space.contains(infos[i]["terminal_observation"])
            assert {"r", "l", "t"} <= infos[i]["episode"].keys()
    policy = "MultiInputPolicy" if isinstance(venv.observation_space, spaces.Dict) else "MlpPolicy"
    PPO(policy, venv, n_steps=16, batch_size=16, device="cpu")
    if isinstance(venv.action_space, spaces.Discrete):
        DQN(policy, venv, buffer_size=100, device="cpu")


def test_autoreset_is_immediate_with_the_terminal_observation():
    """A finished row starts afresh in the same step (no restart step): with a limit of 3 every episode is 3 long."""
    venv = SuiteVecEnv("heartpole-v0", 3, seed=0, env_kwargs={"max_episode_steps": 3})
    native = gymnasium.make_vec("heartpole-v0", num_envs=3, max_episode_steps=3)  # the same rows, next-step autoreset
    obs = venv.reset()
    native_obs, _ = native.reset(seed=0)
    np.testing.assert_array_equal(obs, native_obs)
    for step in range(1, 10):
        obs, rewards, dones, infos = venv.step(np.full(3, 1))
        native_obs, native_rewards, _, native_truncated, _ = native.step(np.full(3, 1))
        assert dones.all() == (step % 3 == 0), step
        assert (rewards != 0).all()  # every step is a real step of the rules, none a restart
        if step % 3 == 0:
            for i, info in enumerate(infos):
                assert info["TimeLimit.truncated"] is True
                assert info["episode"]["l"] == 3
                np.testing.assert_array_equal(info["terminal_observation"], native_obs[i])  # where the episode ended
                assert not np.array_equal(obs[i], native_obs[i])  # and a fresh start now
                assert obs[i][4] == 0.0  # time_elapsed of a fresh start
            native.step(np.full(3, 1))  # the native env's restart step, which the adapter skips
    assert venv.reset_infos == [{}, {}, {}]  # heartpole's reset info is empty, row by row


def test_seeding():
    def run(venv):
        obs = [venv.reset()]
        for action in random_actions(venv.action_space, 3, 30, seed=0):
            obs.append(venv.step(action)[0])
        return np.stack(obs)

    a, b, c = (SuiteVecEnv("target-v0", 3, seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(run(a), run(b))
    assert not np.array_equal(run(SuiteVecEnv("target-v0", 3, seed=1)), run(c))
    # seed() sets the seed of the next reset only, like VecEnv.seed; it returns it for every row
    assert a.seed(1) == [1, 1, 1]
    np.testing.assert_array_equal(run(a), run(SuiteVecEnv("target-v0", 3, seed=1)))
    first, second = a.reset(), a.reset()  # no seed: the stream goes on
    assert not np.array_equal(first, second)
    drawn = a.seed()  # None draws one
    assert len(set(drawn)) == 1 and drawn[0] is not None
    # the model's seed seeds the env through VecEnv.seed, as with DummyVecEnv
    one = PPO("MlpPolicy", SuiteVecEnv("target-v0", 2), seed=5, device="cpu")
    two = PPO("MlpPolicy", SuiteVecEnv("target-v0", 2), seed=5, device="cpu")
    np.testing.assert_array_equal(one.env.reset(), two.env.reset())


def test_get_attr_set_attr_env_method_and_wrappers():
    venv = SuiteVecEnv("example-v0", 3, seed=0)
    obs = venv.reset()
    single = gymnasium.make("example-v0").unwrapped
    assert venv.get_attr("render_mode") == [None] * 3
    assert venv.get_attr("observation_space") == [single.observation_space] * 3
    assert venv.get_attr("position") == obs.tolist()  # an array over the rows: each row its own
    assert venv.get_attr("position", indices=[2]) == [obs[2]]
    assert venv.get_attr("goal") == [single.goal] * 3  # shared
    assert venv.has_attr("goal") and not venv.has_attr("no_such_attribute")
    assert venv.env_method("heuristic", 8, indices=1) == [single.heuristic(8)]  # the scalar env's, per row
    venv.set_attr("position", 1, indices=[0])
    assert venv.get_attr("position")[0] == 1
    assert venv.env_is_wrapped(gymnasium.wrappers.RescaleAction) == [False] * 3
    unlimited = SuiteVecEnv("example-v0", 1, env_kwargs={"max_episode_steps": -1})
    assert unlimited.env_is_wrapped(gymnasium.wrappers.TimeLimit) == [False]


@pytest.mark.parametrize("mode", ["rgb_array", "ansi"])
def test_render(mode):
    venv = SuiteVecEnv("example-v0", 2, seed=0, env_kwargs={"render_mode": mode})
    venv.reset()
    assert venv.render_mode == mode
    rows = venv.env_method("render")
    assert len(rows) == 2
    if mode == "rgb_array":
        assert all(frame.ndim == 3 and frame.shape[2] == 3 for frame in rows)
        assert venv.render().shape[1] >= rows[0].shape[1]  # the frames tiled into one image
        assert len(venv.get_images()) == 2
    else:
        assert venv.render() == "".join(rows) and all("position" in line for line in rows)


def _stepped(call):
    """``call`` on a 2-row example-v0 adapter that has been reset."""
    venv = SuiteVecEnv("example-v0", 2, seed=0)
    venv.reset()
    return call(venv)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: SuiteVecEnv("example-v0", 0), ValueError, "n_envs must be >= 1"),
        (lambda: SuiteVecEnv("example-v0", 2.0), TypeError, "n_envs must be an integer"),
        (lambda: SuiteVecEnv(3, 2), TypeError, "env_id"),
        (lambda: SuiteVecEnv("example-v0", 2, env_kwargs=[("rt_max", 12)]), TypeError, "env_kwargs"),
        (lambda: SuiteVecEnv("example-v0", 2, env_kwargs={"no_such_argument": 1}), TypeError, "allowed arguments"),
        (lambda: SuiteVecEnv("example-v0", 2, seed=-1), ValueError, "seed"),
        (lambda: SuiteVecEnv("no-such-env-v0", 2), gymnasium.error.NameNotFound, ""),
        (lambda: SuiteVecEnv("CartPole-v1", 2), ValueError, "DummyVecEnv"),  # a vector env, not one of the suite's
        (lambda: SuiteVecEnv("example-v0", 2, reward_scale=0.0), ValueError, "reward_scale must not be 0"),
        (lambda: SuiteVecEnv("example-v0", 2, env_kwargs={"render_mode": "human"}), ValueError,
         "render_mode='human'.*vec_env='dummy'"),
        (lambda: make_sb3_env("example-v0", 2, 0, vec_env="subproc"), ValueError, "'native'.*'dummy'"),
        (lambda: train_sb3("example-v0", "ppo", steps=64, vec_env="subproc"), ValueError, "'native'.*'dummy'"),
        (lambda: _stepped(lambda v: v.step(np.array([0, 5]))), ValueError, "expected values in 0..1"),
        (lambda: _stepped(lambda v: v.step_wait()), RuntimeError, "step_async"),
        (lambda: _stepped(lambda v: v.env_method(3)), TypeError, "env_method: method_name must be a str, got 3"),
        (lambda: _stepped(lambda v: v.get_attr(3)), TypeError, "get_attr: attr_name must be a str, got 3"),
        (lambda: _stepped(lambda v: v.set_attr(3, 1)), TypeError, "set_attr: attr_name must be a str, got 3"),
        (lambda: _stepped(lambda v: v.get_attr("no_such_attribute")), AttributeError, "no_such_attribute"),
        (lambda: _stepped(lambda v: v.env_method("reset")), ValueError, "reset"),
        (lambda: _stepped(lambda v: v.env_method("no_such_method")), AttributeError, "no_such_method"),
        (lambda: _stepped(lambda v: v.set_attr("position", 1.5, indices=[0])), ValueError, "position"),  # 1.5 reads 1
        (lambda: _stepped(lambda v: v.set_attr("position", np.array([1, 2]))), ValueError, "position"),  # per row
        (lambda: _stepped(lambda v: v.set_attr("observation_space", spaces.Discrete(3))), ValueError, "observation_"),
    ],
)  # fmt: skip
def test_bad_arguments_say_what_is_allowed(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_refused_call_changes_nothing():
    venv = SuiteVecEnv("example-v0", 3, seed=0)
    venv.reset()
    before = venv.get_attr("position")
    for refused in (lambda: venv.set_attr("position", 1.5, indices=[0]), lambda: venv.step(None)):
        with pytest.raises((TypeError, ValueError), match="position|actions must be"):
            refused()
    assert venv.get_attr("position") == before
    venv.step(np.array([0, 1, 0]))  # and it still steps


def _ppo(env_id: str, venv, **settings):
    policy = "MultiInputPolicy" if isinstance(venv.observation_space, spaces.Dict) else "MlpPolicy"
    return PPO(policy, venv, seed=0, device="cpu", n_steps=64, batch_size=32, n_epochs=2, **settings)


@pytest.mark.slow  # trains agents (a few hundred steps)
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_ppo_trains_on_it(env_id):
    """A few hundred steps on 4 rows: the episodes reach the model's episode buffer."""
    model = _ppo(env_id, SuiteVecEnv(env_id, 4, env_kwargs={"max_episode_steps": LIMIT}))
    model.learn(total_timesteps=512)
    assert model.num_timesteps == 512
    assert len(model.ep_info_buffer) > 0 and all(e["l"] <= LIMIT for e in model.ep_info_buffer)


@pytest.mark.slow  # trains agents (a few hundred steps)
@pytest.mark.parametrize("env_id", ALL_IDS)
def test_ppo_on_one_row_learns_what_it_learns_on_dummy_vec_env(env_id):
    """From the same seeds, one row: the same rollouts, so the same network to the bit."""
    kwargs = {"max_episode_steps": LIMIT}
    models = []
    for venv in (SuiteVecEnv(env_id, 1, env_kwargs=kwargs), dummy(env_id, 1, 0, **kwargs)):
        model = _ppo(env_id, venv)
        model.learn(total_timesteps=256)
        models.append(model)
    ours, reference = (m.policy.state_dict() for m in models)
    assert ours.keys() == reference.keys()
    for key in ours:
        assert np.array_equal(ours[key].numpy(), reference[key].numpy()), key
    # and the parameters did move: the comparison is not of two untrained networks
    fresh = _ppo(env_id, SuiteVecEnv(env_id, 1, env_kwargs=kwargs)).policy.state_dict()
    assert any(not np.array_equal(fresh[k].numpy(), ours[k].numpy()) for k in ours)


@pytest.mark.slow  # trains agents (a few hundred steps)
def test_train_sb3_uses_the_native_vector_env_unless_told():
    native = train_sb3("example-v0", "ppo", steps=256, seed=0, n_envs=2)
    assert isinstance(native.get_env(), SuiteVecEnv) and native.get_env().num_envs == 2
    dummy_model = train_sb3("example-v0", "ppo", steps=256, seed=0, n_envs=2, vec_env="dummy")
    assert isinstance(dummy_model.get_env(), DummyVecEnv)
    dqn = train_sb3("example-v0", "dqn", steps=200, seed=0)
    assert isinstance(dqn.get_env(), SuiteVecEnv) and dqn.num_timesteps == 200


def test_the_module_prefix_is_taken():
    prefixed = SuiteVecEnv("gym_suite:example-v0", 2, seed=4)
    plain = SuiteVecEnv("example-v0", 2, seed=4)
    assert np.array_equal(prefixed.reset(), plain.reset())
    assert prefixed.get_attr("spec")[0].id == "example-v0"
    assert make_sb3_env("gym_suite:example-v0", 2, 0).num_envs == 2


_NOT_FINITE, _NOT_NUMBERS = (ValueError, "must be a finite number"), (TypeError, "must be a number")


@pytest.mark.parametrize("name", ["reward_scale", "reward_offset"])
@pytest.mark.parametrize(
    ("value", "refused"),
    [(float("nan"), _NOT_FINITE), (float("inf"), _NOT_FINITE), (-float("inf"), _NOT_FINITE)]
    + [(value, _NOT_NUMBERS) for value in ("x", None, True, [1.0], 1 + 2j)],
)
def test_reward_transforms_must_be_finite_numbers(name, value, refused):
    for make in (SuiteVecEnv, lambda env_id, n, **kw: make_sb3_env(env_id, n, 0, vec_env="dummy", **kw)):
        with pytest.raises(refused[0], match=f"{name} {refused[1]}"):
            make("example-v0", 2, **{name: value})


@pytest.mark.parametrize("indices", [[5], [0, 3], 3, -4])
def test_indices_out_of_range_raise_index_error_as_dummy_vec_env_does(indices):
    ours, reference = SuiteVecEnv("example-v0", 3), dummy("example-v0", 3, 0)
    for venv in (reference, ours):
        with pytest.raises(IndexError):
            venv.get_attr("goal", indices=indices)
        with pytest.raises(IndexError):
            venv.env_method("heuristic", 2, indices=indices)
        with pytest.raises(IndexError):
            venv.env_is_wrapped(Monitor, indices=indices)
    with pytest.raises(IndexError):
        ours.set_attr("position", 1, indices=indices)


def test_wrapper_attributes_through_env_method():
    ours, reference = SuiteVecEnv("example-v0", 3), dummy("example-v0", 3, 0)
    spec, ref_spec = ours.env_method("get_wrapper_attr", "spec"), reference.env_method("get_wrapper_attr", "spec")
    assert [s.id for s in spec] == [s.id for s in ref_spec] == ["example-v0"] * 3
    assert [s.max_episode_steps for s in spec] == [s.max_episode_steps for s in ref_spec] == [10] * 3
    assert gymnasium.make(spec[0]).spec.id == "example-v0"  # the spec of a row makes a row
    assert ours.env_method("get_wrapper_attr", "goal", indices=[1]) == ours.get_attr("goal", indices=[1])


@pytest.mark.parametrize("env_id", ["example-v0", "push-v0"])
def test_set_attr_state_takes_only_the_environments_state(env_id):
    venv = SuiteVecEnv(env_id, 3, seed=0)
    venv.reset()
    state = venv.get_attr("state")[0]  # one value, shared by the rows
    for garbage in ([1, 2], 0.5, None, tuple(state)):
        with pytest.raises(TypeError, match="state must be a"):
            venv.set_attr("state", garbage)
    with pytest.raises(ValueError, match=f"state.{state._fields[0]}"):
        venv.set_attr("state", state._replace(**{state._fields[0]: [1, 2]}))  # neither one value nor 3
    after = venv.get_attr("state")[0]
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(after, state))  # refused: nothing changed
    venv.set_attr("state", state._replace(**{state._fields[0]: 0}))  # one value for every row
    assert venv.get_attr(state._fields[0]) == [0, 0, 0]
    venv.step(np.zeros((3,), dtype=np.int64))  # and it still steps


_SETTABLE_VALUES = st.one_of(
    st.integers(-(2**31), 2**31), st.floats(allow_nan=False), st.text(max_size=5), st.none(), st.booleans(),
    st.lists(st.integers(0, 9), max_size=3),
)  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    env_id=st.sampled_from(ALL_IDS),
    name=st.sampled_from(
        "metadata spec render_mode position goal state target radius rt_max heuristic".split()
        + ["new_attribute", "np_random"]
    ),  # fmt: skip
    value=_SETTABLE_VALUES,
    rows=st.one_of(st.none(), st.lists(st.integers(-3, 2), min_size=1, max_size=3)),
)
def test_every_attribute_that_can_be_set_reads_back_the_same(env_id, name, value, rows):
    venv = _settable_venvs(env_id)
    try:
        before = venv.get_attr(name)
    except AttributeError:
        before = None
    try:
        venv.set_attr(name, value, indices=rows)
    except (ValueError, TypeError):  # refused: nothing changed
        if before is not None:
            assert all(close_or_same(a, b) for a, b in zip(venv.get_attr(name), before))
        return
    assert all(close_or_same(v, value) for v in venv.get_attr(name, indices=rows))


_VENVS: dict = {}


def _settable_venvs(env_id):
    if env_id not in _VENVS:
        _VENVS[env_id] = SuiteVecEnv(env_id, 3, seed=0)
        _VENVS[env_id].reset()
    return _VENVS[env_id]


def close_or_same(a, b) -> bool:
    """The same object, or the same value (a per-row array's element reads back in the array's dtype)."""
    if a is b or not isinstance(a, (np.ndarray, np.generic)) and not isinstance(b, (np.ndarray, np.generic)):
        return a is b or a == b
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


@pytest.mark.parametrize(
    ("env_id", "name", "value"),
    [
        ("heartpole-v0", "heart_attack_proclivity", 2.0),
        ("heartpole-v0", "heart_attack_proclivity", 0.25),  # in range: still the rules' own, fixed
        ("heartpole-v0", "heart_attack_proclivity", float("nan")),
        ("example-v0", "goal", 3),  # follows from the arguments
        ("target-v0", "radius", 0.5),
        ("example-v0", "params", None),
    ],
)
def test_set_attr_of_a_parameter_is_refused_naming_it(env_id, name, value):
    venv = SuiteVecEnv(env_id, 2, seed=0)
    before = venv.get_attr(name)
    with pytest.raises(ValueError, match=rf"set_attr: {name} is a parameter of the environment"):
        venv.set_attr(name, value)
    assert all(close_or_same(a, b) for a, b in zip(venv.get_attr(name), before))


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
