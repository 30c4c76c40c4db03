"""gym_suite.jax_wrappers and the JAX ecosystem's own code on the suite's JAX envs: (a) each wrapper
against an independent computation, (b) rejax, unchanged, through the documented adapter."""

from __future__ import annotations

import copy
import functools
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")

import gymnasium  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from gymnasium import spaces  # noqa: E402
from gymnax.environments import spaces as gymnax_spaces  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import gym_suite.jax as gj  # noqa: E402
from gym_suite.jax_wrappers import FiveValueStep, OneHotObservation, RescaleAction, TransformReward  # noqa: E402

KEY = jax.random.key(0)


@functools.cache
def _made(env_id: str) -> tuple[Any, Any]:
    """``gym_suite.jax.make(env_id)``, once per id for the module (wrapping never changes it)."""
    return gj.make(env_id)


def for_five_value_agents(env: Any) -> Any:
    """The route docs/training/jax.md gives: one-hot a Discrete observation, the bounded Box
    action in [-1, 1], five values from step (outermost)."""
    if isinstance(env.observation_space(env.default_params), gymnax_spaces.Discrete):
        env = OneHotObservation(env)
    if isinstance(env.action_space(env.default_params), gymnax_spaces.Box):
        env = RescaleAction(env)
    return FiveValueStep(env)


# -- (a) the wrappers


def test_five_value_step_joins_terminated_and_truncated_and_keeps_them_in_info():
    env, params = gj.make("example-v0")
    params = params.replace(max_steps_in_episode=3)
    wrapped = FiveValueStep(env)
    obs, state = wrapped.reset(KEY, params)
    truncs = []
    for i in range(8):
        key = jax.random.fold_in(KEY, i)
        six = env.step(key, state, 1, params)
        five = wrapped.step(key, state, 1, params)
        assert len(six) == 6 and len(five) == 5
        np.testing.assert_array_equal(five[0], six[0])
        assert bool(five[3]) == bool(six[3] or six[4])
        assert bool(five[4]["terminated"]) == bool(six[3]) and bool(five[4]["truncated"]) == bool(six[4])
        truncs.append(bool(six[4]))
        state = five[1]
    assert any(truncs), "the step limit of 3 truncates within 8 steps"


def test_one_hot_observation_is_gymnasium_flatten_of_the_index_and_final_observation_too():
    env, params = gj.make("example-v0")
    wrapped = OneHotObservation(env)
    space = wrapped.observation_space(params)
    assert isinstance(space, gymnax_spaces.Box) and space.shape == (11,)
    obs, state = wrapped.reset(KEY, params)
    raw, _ = env.reset(KEY, params)
    np.testing.assert_array_equal(obs, spaces.flatten(spaces.Discrete(11), int(raw)))
    for i in range(20):
        key = jax.random.fold_in(KEY, i)
        obs, next_state, _, terminated, truncated, info = wrapped.step(key, state, 0, params)
        raw_obs, *_, raw_info = env.step(key, state, 0, params)
        np.testing.assert_array_equal(obs, spaces.flatten(spaces.Discrete(11), int(raw_obs)))
        np.testing.assert_array_equal(
            info["final_observation"], spaces.flatten(spaces.Discrete(11), int(raw_info["final_observation"]))
        )
        assert space.contains(obs)
        state = next_state


def test_rescale_action_maps_the_agents_box_to_the_envs_bounds_as_gymnasiums_rescale_action():
    env, params = gj.make("target-v0")
    wrapped = RescaleAction(env)
    space = wrapped.action_space(params)
    np.testing.assert_array_equal(space.low, [-1.0, -1.0])
    np.testing.assert_array_equal(space.high, [1.0, 1.0])
    numpy_env = gymnasium.wrappers.RescaleAction(gymnasium.make("target-v0"), np.float32(-1), np.float32(1))
    for action in ([-1.0, 1.0], [0.0, 0.5], [0.25, -0.75], [1.0, 1.0]):
        expected = numpy_env.action(np.asarray(action, np.float32))
        np.testing.assert_allclose(wrapped.env_action(jnp.asarray(action)), expected, rtol=1e-6)
    np.testing.assert_array_equal(wrapped.env_action(jnp.asarray([-3.0, 7.0])), [0.0, 50.0])  # clipped first
    obs, state = env.reset(KEY, params)
    a = wrapped.step(KEY, state, jnp.asarray([0.5, -0.5]), params)
    b = env.step(KEY, state, jnp.asarray([37.5, 12.5]), params)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
    other = RescaleAction(env, low=0.0, high=np.array([2.0, 4.0]))
    np.testing.assert_allclose(other.env_action(jnp.asarray([1.0, 1.0])), [25.0, 12.5])


def test_transform_reward():
    env, params = gj.make("heartpole-v1")
    obs, state = env.reset(KEY, params)
    raw = env.step(KEY, state, 1, params)[2]
    moved = TransformReward(env, scale=0.5, offset=2.0).step(KEY, state, 1, params)[2]
    assert float(moved) == pytest.approx((float(raw) + 2.0) * 0.5, rel=1e-6)


@pytest.mark.parametrize(
    ("make_wrapper", "error", "message"),
    [
        (lambda env: OneHotObservation(env), TypeError, "observation space must be Discrete, got Box"),
        (lambda env: RescaleAction(env), TypeError, "action space must be a Box, got Discrete"),
        (lambda env: FiveValueStep("heartpole-v1"), TypeError, r"env must be a gymnax Environment.*got str"),
        (lambda env: FiveValueStep(gymnasium.make("heartpole-v1")), TypeError, r"Gymnasium env.*gym_suite\.jax\.make"),
        (lambda env: FiveValueStep(gymnasium.make(f"{gj.NAMESPACE}/heartpole-v1")), TypeError, "gymnax Environment"),
        (lambda env: FiveValueStep(FiveValueStep(env)), ValueError, "FiveValueStep.*once"),
        (lambda env: FiveValueStep(TransformReward(FiveValueStep(env), 2.0)), ValueError, "FiveValueStep.*once"),
        (lambda env: TransformReward(env, scale="x"), TypeError, "scale must be a number"),
        (lambda env: TransformReward(env, offset=float("nan")), ValueError, "offset must be a finite number"),
    ],
)
def test_wrappers_refuse_what_they_cannot_wrap(make_wrapper, error, message):
    """A Gymnasium env and a second ``FiveValueStep`` are refused when wrapped, not at the first step."""
    with pytest.raises(error, match=message):
        make_wrapper(_made("heartpole-v1")[0])


@pytest.mark.parametrize(
    ("low", "high"),
    [(1.0, 1.0), (1.0, -1.0), (-np.inf, 1.0), ([0.0, 0.0, 0.0], 1.0), (-1e300, 1.0), (-(2**1100), 1.0)],
    ids=["equal", "reversed", "infinite", "shape", "past-float32", "past-float64"],
)
def test_rescale_action_refuses_a_bad_box(low, high):
    env, _ = gj.make("target-v0")
    with pytest.raises(ValueError, match="RescaleAction: (low|high)"):
        RescaleAction(env, low, high)


def _wrap_target(which, value):
    """target-v0 wrapped with one number of RescaleAction (low, high) or TransformReward (scale, offset)."""
    wrapper = RescaleAction if which in ("low", "high") else TransformReward
    return wrapper(_made("target-v0")[0], **{which: value})


NOT_NUMBERS = st.one_of(
    st.booleans(),
    st.sampled_from([np.bool_(True), None, {}, b"1", np.array(["1", "2"]), [True, False], np.array([1.0, 2.0]) > 0]),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False).map(str),
)


@settings(max_examples=60, deadline=None)
@given(bad=NOT_NUMBERS, which=st.sampled_from(["low", "high", "scale", "offset"]))
def test_wrapper_numbers_refuse_bools_strings_and_other_kinds(bad, which):
    """A bool, a string (``"2"`` too) or another kind is a TypeError naming the argument."""
    with pytest.raises(TypeError, match=which):
        _wrap_target(which, bad)


@pytest.mark.parametrize("which", ["low", "high", "scale", "offset"])
@pytest.mark.parametrize("huge", [2**1100, -(2**1100), [0, 2**1100]], ids=["2**1100", "-2**1100", "[0, 2**1100]"])
def test_wrapper_numbers_past_the_largest_float_are_a_value_error(which, huge):
    if isinstance(huge, list) and which in ("scale", "offset"):
        huge = huge[1]
    with pytest.raises(ValueError, match=which):
        _wrap_target(which, huge)


def test_wrapper_numbers_take_numpy_and_jax_numbers():
    target, _ = _made("target-v0")
    wrapped = RescaleAction(target, np.float32(-2), jnp.asarray(2.0))
    np.testing.assert_allclose(wrapped.env_action(jnp.asarray([2.0, -2.0])), [50.0, 0.0])
    assert TransformReward(target, np.int64(2), jnp.float32(0.5)).scale == 2.0


def test_five_value_step_wraps_gymnax_wrappers_of_a_six_value_env():
    from gymnax.wrappers.purerl import LogWrapper

    env, params = _made("heartpole-v1")
    logged = FiveValueStep(LogWrapper(env))
    obs, state = logged.reset(KEY, params)
    assert len(logged.step(KEY, state, 1, params)) == 5


def test_wrappers_deepcopy_and_hand_other_attributes_to_the_env():
    env, params = gj.make("example-v0")
    wrapped = FiveValueStep(TransformReward(OneHotObservation(env), 2.0))
    clone = copy.deepcopy(wrapped)
    assert clone.unwrapped is not env and type(clone.unwrapped) is type(env)
    assert clone.definition_params == env.definition_params  # the env's attribute, through three wrappers
    obs, state = clone.reset(KEY, params)
    assert obs.shape == (11,)
    assert wrapped.num_actions == 2 and wrapped.name == env.name
    with pytest.raises(AttributeError):
        wrapped.no_such_attribute  # noqa: B018


# -- (b) rejax, unchanged


def rejax_returns(algo_name: str, env_id: str, **settings: Any) -> np.ndarray:
    import rejax

    env, params = gj.make(env_id)
    params = params.replace(max_steps_in_episode=min(int(params.max_steps_in_episode), 200))
    algo = rejax.get_algo(algo_name).create(env=for_five_value_agents(env), env_params=params, **settings)
    _, (lengths, returns) = jax.jit(algo.train)(jax.random.key(0))
    returns = np.asarray(returns)
    assert returns.ndim == 2 and np.all(np.isfinite(returns))
    assert np.all(np.asarray(lengths) >= 1)
    return returns


PPO_SMOKE = {"total_timesteps": 1024, "eval_freq": 1024, "num_envs": 4, "num_steps": 64, "num_minibatches": 4}


def test_rejax_ppo_runs_on_example_v0_through_the_adapter():
    rejax_returns("ppo", "example-v0", **PPO_SMOKE, num_epochs=1, skip_initial_evaluation=True)


SMALL_BUFFER = {"total_timesteps": 1024, "eval_freq": 1024, "fill_buffer": 256, "batch_size": 32, "buffer_size": 1024}


@pytest.mark.slow
@pytest.mark.parametrize(
    "algo_name, env_id",
    [("ppo", i) for i in ("push-v0", "heartpole-v0", "heartpole-v1", "target-v0")]
    + [("dqn", "example-v0"), ("dqn", "heartpole-v1"), ("sac", "target-v0")],
)
def test_rejax_runs_on_the_other_ids(algo_name, env_id):
    settings = {**PPO_SMOKE, "num_epochs": 1, "skip_initial_evaluation": True} if algo_name == "ppo" else SMALL_BUFFER
    rejax_returns(algo_name, env_id, **settings)


@pytest.mark.slow
def test_rejax_ppo_learns_example_v0():
    returns = rejax_returns("ppo", "example-v0", total_timesteps=20_480, eval_freq=20_480, num_envs=4, num_steps=256)
    random_mean = float(returns[0].mean())  # the first evaluation: the untrained policy
    assert returns[-1].mean() > random_mean + 5.0  # example-v0: random -5.0, the optimum 8.5 (docs/baselines.md)


@pytest.mark.slow
def test_the_jax_pages_rejax_snippet_runs_as_written():
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "training" / "jax.md").read_text(encoding="utf-8")
    section = page[page.index("## Other JAX code") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/training/jax.md", "exec"), namespace)
    returns = np.asarray(namespace["returns"])
    assert np.all(np.isfinite(returns))
    assert isinstance(namespace["sac"].action_space, gymnax_spaces.Box)
