"""gym_suite.jax_wrappers and the JAX ecosystem's own code on the suite's JAX envs: (a) each wrapper
against an independent computation, (b) rejax and a PureJaxRL-shaped PPO loop, unchanged, through the
documented adapter."""

from __future__ import annotations

import copy
import functools
from typing import Any, NamedTuple

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


def test_gymnax_flatten_observation_wrapper_takes_example_v0_through_one_hot():
    from gymnax.wrappers.purerl import FlattenObservationWrapper

    env, params = gj.make("example-v0")
    with pytest.raises(AssertionError, match="Only Box"):  # gymnax's own message on the Discrete space
        FlattenObservationWrapper(env).observation_space(params)
    flat = FlattenObservationWrapper(OneHotObservation(env))
    assert flat.observation_space(params).shape == (11,)
    obs, state = flat.reset(KEY, params)
    obs, state, reward, terminated, truncated, info = flat.step(KEY, state, 1, params)
    assert obs.shape == (11,) and float(obs.sum()) == 1.0


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


# -- (b) rejax and a PureJaxRL-shaped loop, unchanged


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


# PureJaxRL's shape (purejaxrl/ppo.py and wrappers.py): wrappers that unpack five values from step,
# make_train(config) -> train(rng), a lax.scan of updates of env-step scans, GAE, shuffled minibatches.


class GymnaxWrapper:
    def __init__(self, env):
        self._env = env

    def __getattr__(self, name):
        return getattr(self._env, name)


class FlattenObservationWrapper(GymnaxWrapper):
    def observation_space(self, params):
        assert isinstance(self._env.observation_space(params), gymnax_spaces.Box), "Only Box spaces are supported."
        space = self._env.observation_space(params)
        return gymnax_spaces.Box(space.low, space.high, (int(np.prod(space.shape)),), space.dtype)

    def reset(self, key, params=None):
        obs, state = self._env.reset(key, params)
        return jnp.reshape(obs, (-1,)), state

    def step(self, key, state, action, params=None):
        obs, state, reward, done, info = self._env.step(key, state, action, params)
        return jnp.reshape(obs, (-1,)), state, reward, done, info


class LogEnvState(NamedTuple):
    env_state: Any
    episode_returns: jax.Array
    episode_lengths: jax.Array
    returned_episode_returns: jax.Array
    returned_episode_lengths: jax.Array
    timestep: jax.Array


class LogWrapper(GymnaxWrapper):
    def reset(self, key, params=None):
        obs, env_state = self._env.reset(key, params)
        return obs, LogEnvState(env_state, 0.0, 0, 0.0, 0, 0)

    def step(self, key, state, action, params=None):
        obs, env_state, reward, done, info = self._env.step(key, state.env_state, action, params)
        new_return = state.episode_returns + reward
        new_length = state.episode_lengths + 1
        state = LogEnvState(
            env_state=env_state,
            episode_returns=new_return * (1 - done),
            episode_lengths=new_length * (1 - done),
            returned_episode_returns=state.returned_episode_returns * (1 - done) + new_return * done,
            returned_episode_lengths=state.returned_episode_lengths * (1 - done) + new_length * done,
            timestep=state.timestep + 1,
        )
        info["returned_episode_returns"] = state.returned_episode_returns
        info["returned_episode_lengths"] = state.returned_episode_lengths
        info["timestep"] = state.timestep
        info["returned_episode"] = done
        return obs, state, reward, done, info


class Transition(NamedTuple):
    done: jax.Array
    action: jax.Array
    value: jax.Array
    reward: jax.Array
    log_prob: jax.Array
    obs: jax.Array
    info: Any


def make_train(config, env, env_params):
    """PureJaxRL's ``make_train``, one minibatch an epoch: the env-facing code as PureJaxRL's."""
    import flax.linen as nn
    import optax

    class ActorCritic(nn.Module):
        action_dim: int

        @nn.compact
        def __call__(self, x):
            hidden = nn.tanh(nn.Dense(64)(x))
            return nn.Dense(self.action_dim)(hidden), jnp.squeeze(nn.Dense(1)(hidden), axis=-1)

    num_updates = config["TOTAL_TIMESTEPS"] // config["NUM_STEPS"] // config["NUM_ENVS"]
    env = LogWrapper(FlattenObservationWrapper(env))

    def train(rng):
        network = ActorCritic(env.action_space(env_params).n)
        rng, _rng = jax.random.split(rng)
        network_params = network.init(_rng, jnp.zeros(env.observation_space(env_params).shape))
        tx = optax.chain(optax.clip_by_global_norm(config["MAX_GRAD_NORM"]), optax.adam(config["LR"], eps=1e-5))
        opt_state = tx.init(network_params)
        rng, _rng = jax.random.split(rng)
        obsv, env_state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(_rng, config["NUM_ENVS"]), env_params)

        def _update_step(runner_state, unused):
            def _env_step(runner_state, unused):
                network_params, opt_state, env_state, last_obs, rng = runner_state
                rng, _rng = jax.random.split(rng)
                logits, value = network.apply(network_params, last_obs)
                action = jax.random.categorical(_rng, logits)
                log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], axis=-1)[:, 0]
                rng, _rng = jax.random.split(rng)
                obsv, env_state, reward, done, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                    jax.random.split(_rng, config["NUM_ENVS"]), env_state, action, env_params
                )
                transition = Transition(done, action, value, reward, log_prob, last_obs, info)
                return (network_params, opt_state, env_state, obsv, rng), transition

            runner_state, traj_batch = jax.lax.scan(_env_step, runner_state, None, config["NUM_STEPS"])
            network_params, opt_state, env_state, last_obs, rng = runner_state
            _, last_val = network.apply(network_params, last_obs)

            def _get_advantages(gae_and_next_value, transition):
                gae, next_value = gae_and_next_value
                delta = transition.reward + config["GAMMA"] * next_value * (1 - transition.done) - transition.value
                gae = delta + config["GAMMA"] * config["GAE_LAMBDA"] * (1 - transition.done) * gae
                return (gae, transition.value), gae

            _, advantages = jax.lax.scan(
                _get_advantages, (jnp.zeros_like(last_val), last_val), traj_batch, reverse=True
            )
            targets = advantages + traj_batch.value

            def _loss_fn(params):
                logits, value = network.apply(params, traj_batch.obs)
                log_probs = jax.nn.log_softmax(logits)
                log_prob = jnp.take_along_axis(log_probs, traj_batch.action[..., None], axis=-1)[..., 0]
                ratio = jnp.exp(log_prob - traj_batch.log_prob)
                gae = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                clipped = jnp.clip(ratio, 1.0 - config["CLIP_EPS"], 1.0 + config["CLIP_EPS"])
                loss_actor = -jnp.minimum(ratio * gae, clipped * gae).mean()
                entropy = -(jnp.exp(log_probs) * log_probs).sum(-1).mean()
                value_loss = 0.5 * jnp.square(value - targets).mean()
                return loss_actor + config["VF_COEF"] * value_loss - config["ENT_COEF"] * entropy

            def _update_epoch(train_state, unused):
                network_params, opt_state = train_state
                updates, opt_state = tx.update(jax.grad(_loss_fn)(network_params), opt_state)
                return (optax.apply_updates(network_params, updates), opt_state), None

            (network_params, opt_state), _ = jax.lax.scan(
                _update_epoch, (network_params, opt_state), None, config["UPDATE_EPOCHS"]
            )
            return (network_params, opt_state, env_state, last_obs, rng), traj_batch.info

        rng, _rng = jax.random.split(rng)
        runner_state = (network_params, opt_state, env_state, obsv, _rng)
        runner_state, metric = jax.lax.scan(_update_step, runner_state, None, num_updates)
        return {"runner_state": runner_state, "metrics": metric}

    return train


def purejaxrl_returns(env_id: str, total_timesteps: int) -> np.ndarray:
    """The mean return of the episodes each update's rollout completed (PureJaxRL's metric)."""
    config = {
        "LR": 2.5e-4,
        "NUM_ENVS": 4,
        "NUM_STEPS": 128,
        "TOTAL_TIMESTEPS": total_timesteps,
        "UPDATE_EPOCHS": 4,
        "GAMMA": 0.99,
        "GAE_LAMBDA": 0.95,
        "CLIP_EPS": 0.2,
        "ENT_COEF": 0.01,
        "VF_COEF": 0.5,
        "MAX_GRAD_NORM": 0.5,
    }
    env, params = gj.make(env_id)
    params = params.replace(max_steps_in_episode=min(int(params.max_steps_in_episode), 200))
    out = jax.jit(make_train(config, for_five_value_agents(env), params))(jax.random.key(0))
    info = out["metrics"]
    ended = np.asarray(info["returned_episode"])
    returns = np.asarray(info["returned_episode_returns"])
    assert ended.any(), "episodes end within the budget"
    per_update = np.array([returns[i][ended[i]].mean() for i in range(len(ended)) if ended[i].any()])
    assert np.all(np.isfinite(per_update))
    return per_update


def test_a_purejaxrl_shaped_ppo_loop_runs_on_example_v0_through_the_adapter():
    returns = purejaxrl_returns("example-v0", 2048)
    assert len(returns) >= 1


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["push-v0", "heartpole-v0", "heartpole-v1"])
def test_a_purejaxrl_shaped_ppo_loop_runs_on_the_other_discrete_action_ids(env_id):
    purejaxrl_returns(env_id, 2048)


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
