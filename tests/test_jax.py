"""The JAX backend (gym_suite.jax) on every definition id: (a) the same draws give the same step on
numpy and JAX; (b) jit and vmap; (d) no JAX on ``import gym_suite``; (e) Gymnasium's route
``gym_suite_jax/<id>``."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")

import gymnasium  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from gymnasium import spaces  # noqa: E402

import gym_suite  # noqa: E402
import gym_suite.jax as gj  # noqa: E402
from gym_suite.envs.checks import check_actions  # noqa: E402
from gym_suite.envs.definition import NUMPY, draws_at_start  # noqa: E402

IDS = list(gj.jax_ids())


def _classes(env_id):
    spec = next(s for s in gym_suite.SPECS if s.id == env_id)
    load = gymnasium.envs.registration.load_env_creator
    return load(spec.entry_point), load(spec.vector_entry_point)


def test_every_id_runs_on_jax():
    assert IDS == [spec.id for spec in gym_suite.SPECS]


# (a) Equivalence on the same draws


def _reached_states(env_id, seed, num_envs=64, snapshots=6, every=25):
    """Batched numpy states reached by random actions from a seed, and the vector env."""
    _, vector_cls = _classes(env_id)
    vec = vector_cls(num_envs=num_envs)
    vec.reset(seed=seed)
    vec.action_space.seed(gym_suite.action_seed(seed))  # not the env's seed: its stream would repeat the starts' draws
    states = []
    for k in range(snapshots * every):
        vec.step(vec.action_space.sample())
        if k % every == every - 1:
            states.append(vec.state)
    return vec, states


def _float32_inputs(tree):
    """Float values rounded to float32 (and back to float64): what the float32 JAX env starts from."""
    as32 = [np.asarray(q, np.float32).astype(np.float64) if np.asarray(q).dtype.kind == "f" else q for q in tree]
    return type(tree)(*map(np.asarray, as32))


def _close(name, got, want, rtol, scale):
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind in "fc" or got.dtype.kind in "fc":
        tolerance = rtol * (np.abs(want.astype(np.float64)) + scale)
        error = np.abs(got.astype(np.float64) - want.astype(np.float64))
        same = (got == want) | (np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64)))
        bad = ~((error <= tolerance) | same)
        assert not bad.any(), f"{name}: {got[bad][:5]} != {want[bad][:5]} (rtol {rtol})"
    else:
        np.testing.assert_array_equal(got.astype(want.dtype), want, err_msg=name)


def _numpy_step(d, params, state, actions, u):
    next_state = d.transition(state, actions, tuple(u.T), params, NUMPY)
    n = u.shape[0]
    out = {
        "reward": np.broadcast_to(d.reward(state, actions, next_state, params, NUMPY), (n,)),
        "terminated": np.broadcast_to(d.terminal(next_state, params, NUMPY), (n,)),
        "truncated": np.broadcast_to(d.truncation(next_state, params, NUMPY), (n,)),
        "observation": d.observation(next_state, params, NUMPY),
        "info": d.info(state, actions, next_state, params, NUMPY),
    }
    return next_state, out


def _observation_rows(space, observation, n):
    """A batch of observations, one flat float64 row each (a Dict as gymnasium.spaces.flatten lays it out)."""
    if isinstance(space, spaces.Dict):
        rows = [{key: np.asarray(value)[i] for key, value in observation.items()} for i in range(n)]
        return np.stack([spaces.flatten(space, row) for row in rows]).astype(np.float64)
    return np.asarray(observation, np.float64).reshape(n, -1)


def _row_scale(n, *states):
    """Per row: 1 + the largest magnitude of the float quantities (the tolerance's absolute part)."""
    floats = [np.abs(np.asarray(q, np.float64)) for s in states for q in s if np.asarray(q).dtype.kind == "f"]
    floats = [np.where(np.isfinite(f), f, 0.0) for f in floats]
    return 1.0 + np.max(np.stack([np.zeros(n)] + [np.broadcast_to(f, (n,)) for f in floats]), axis=0)


def _check_jax_step(env_id, env, d, params, state, raw_actions, actions, u, rtol):
    """The jitted, vmapped JAX step on (state, raw_actions, u) against the numpy rules."""
    n = u.shape[0]
    want_state, want = _numpy_step(d, params, state, actions, u)
    scale = _row_scale(n, state, want_state)
    jax_state = gj.EnvState(time=jnp.zeros(n, jnp.int32), inner=type(state)(*(jnp.asarray(q) for q in state)))
    step = jax.jit(jax.vmap(env.step_with_draws))
    obs, got_state, reward, terminated, truncated, info = step(jax_state, jnp.asarray(raw_actions), jnp.asarray(u))
    for name, got_q, want_q in zip(state._fields, got_state.inner, want_state):
        _close(f"{env_id} state.{name}", got_q, np.broadcast_to(want_q, (n,)), rtol, scale)
    for name, got_q in (("reward", reward), ("terminated", terminated), ("truncated", truncated)):
        _close(f"{env_id} {name}", got_q, want[name], rtol, scale)
    want_obs = _observation_rows(d.spaces(params)[0], want["observation"], n)
    _close(f"{env_id} observation", np.asarray(obs, np.float64).reshape(n, -1), want_obs, rtol, scale[:, None])
    for key, values in want["info"].items():
        values = np.broadcast_to(values, (n,))
        if values.dtype.kind in "biuf":
            _close(f"{env_id} info[{key!r}]", info[key], values, rtol, scale)
        else:  # a name (heartpole's action): JAX gives a number, or leaves the key out
            assert key not in info or np.asarray(info[key]).dtype.kind in "biu", key
    assert set(info) <= set(want["info"])


@pytest.mark.parametrize("x64", [False, True], ids=["32-bit", "64-bit"])
@pytest.mark.parametrize("env_id", IDS)
def test_same_draws_same_step_on_numpy_and_jax(env_id, x64):
    """The jitted JAX step on states reached by random play against the numpy rules: to 1e-5 in
    float32 (on float32-rounded inputs), to 1e-12 in 64-bit mode (the Python-float rules against
    numpy: tests/test_conformance.py)."""
    with jax.enable_x64(x64):
        env, _ = gj.make(env_id)
        d, params = env.definition, env.definition_params
        rng = np.random.default_rng(1)
        for seed in (3,) if x64 else (0, 1):
            vec, states = _reached_states(env_id, seed)
            for state in states:
                raw_actions = vec.action_space.sample()
                actions = check_actions(raw_actions, vec.num_envs, vec.single_action_space)
                u = rng.random((vec.num_envs, d.step_draws))
                if not x64:
                    u, state = u.astype(np.float32).astype(np.float64), _float32_inputs(state)
                _check_jax_step(env_id, env, d, params, state, raw_actions, actions, u, 1e-12 if x64 else 1e-5)
        _, start = jax.vmap(env.reset_env, in_axes=(0, None))(
            jax.random.split(jax.random.key(0), 4), env.default_params
        )
        floats = [np.asarray(q).dtype for q in start.inner if np.asarray(q).dtype.kind == "f"]
        assert all(f == (np.float64 if x64 else np.float32) for f in floats)


@pytest.mark.parametrize("env_id", IDS)
def test_start_on_the_same_draws(env_id):
    env, _ = gj.make(env_id)
    d, params = env.definition, env.definition_params
    draws = draws_at_start(d, env.definition_params)
    u = np.random.default_rng(4).random((32, draws))
    want = d.initial(tuple(u.T), params, NUMPY)
    got = jax.jit(jax.vmap(env.initial_with_draws, axis_size=32))(jnp.asarray(u) if draws else ())
    for name, got_q, want_q in zip(want._fields, got.inner, want):
        _close(f"{env_id} start {name}", got_q, np.broadcast_to(want_q, (32,)), 1e-5, 1.0)


# (b) jit and vmap


@pytest.mark.parametrize("env_id", IDS)
def test_make_runs_under_jit_and_vmap(env_id):
    env, params = gj.make(env_id)
    assert isinstance(env, gj.environment.Environment)
    assert env.name == env_id
    params = params.replace(max_steps_in_episode=30)
    num_envs, steps = 64, 100
    action_space, observation_space = env.action_space(params), env.observation_space(params)

    @jax.jit
    def rollout(key):
        key, reset_key = jax.random.split(key)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(reset_key, num_envs), params)

        def one_step(carry, key):
            obs, state = carry
            action_key, step_key = jax.random.split(key)
            actions = jax.vmap(action_space.sample)(jax.random.split(action_key, num_envs))
            obs, state, reward, terminated, truncated, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(step_key, num_envs), state, actions, params
            )
            return (obs, state), (obs, reward, terminated | truncated, state.time)

        return jax.lax.scan(one_step, (obs, state), jax.random.split(key, steps))

    (obs, state), (all_obs, reward, done, time) = rollout(jax.random.key(0))
    assert all_obs.shape == (steps, num_envs, *observation_space.shape)
    assert reward.shape == done.shape == (steps, num_envs)
    assert bool(jnp.all(jnp.isfinite(reward)))
    assert bool(jax.vmap(jax.vmap(observation_space.contains))(all_obs).all())
    assert int(time.max()) <= 30  # the step limit of params
    assert bool((done.sum(axis=0) >= steps // 30).all())  # every env was reset at least at the limit
    assert env.num_actions >= 1


def test_keyword_arguments_are_checked_as_the_numpy_env_checks_them():
    env, _ = gj.make("gym_suite:heartpole-v0", heart_attack_proclivity=0.25, expected_cost=True)
    assert env.definition_params.heart_attack_proclivity == 0.25 and env.definition_params.expected_cost
    with pytest.raises(ValueError, match="heart_attack_proclivity"):
        gj.make("heartpole-v0", heart_attack_proclivity=2.0)
    with pytest.raises(ValueError, match="heartpole-v0"):
        gj.make("HeartPole-v0")


def test_the_rules_own_truncation_ends_the_gymnax_episode():
    """heartpole-v1 ends at two weeks (672 half-hours) without a step limit: sleeping always, 40 steps."""
    env, params = gj.make("heartpole-v1")
    assert params.max_steps_in_episode == gj.NO_LIMIT
    obs, state = env.reset(jax.random.key(0), params)
    for k in range(40):
        obs, state, reward, terminated, truncated, info = env.step(jax.random.key(k), state, 3, params)
        assert bool(truncated) == (k == 39) and not bool(terminated)
    assert float(info["final_observation"][4]) == 680.0 and float(obs[4]) == 0.0  # reset in the same call


# (d) A plain install never imports JAX


def test_import_gym_suite_does_not_import_jax():
    code = (
        "import sys, importlib, gymnasium, gym_suite\n"
        "for spec in gym_suite.SPECS:\n"
        "    for entry in (spec.entry_point, spec.vector_entry_point):\n"
        "        importlib.import_module(entry.split(':')[0])\n"
        "    gymnasium.make(spec.id).reset(seed=0)\n"
        "loaded = sorted(m for m in ('jax', 'jaxlib', 'gymnax', 'flax') if m in sys.modules)\n"
        "assert not loaded, loaded\n"
        # Gymnasium's module:id form imports gym_suite.jax on demand
        "env = gymnasium.make('gym_suite.jax:gym_suite_jax/heartpole-v1')\n"
        "assert 'jax' in sys.modules and env.reset(seed=0)[0].shape == (6,)\n"
    )
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


# (e) Gymnasium's route


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_make_make_vec_check_env_and_jax_to_numpy(env_id):
    """``gym_suite_jax/<id>`` keeps the numpy env's spaces and step limit, passes Gymnasium's
    ``check_env`` (as itself and through ``JaxToNumpy``); its vector env steps with next-step autoreset."""
    from gymnasium.utils.env_checker import check_env
    from gymnasium.wrappers import JaxToNumpy

    jax_id = f"{gj.NAMESPACE}/{env_id}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's advice (unbounded boxes, raw-unit actions, v0 ids)
        env = gymnasium.make(jax_id)
        check_env(env.unwrapped, skip_render_check=True)
        numpy_env = JaxToNumpy(gymnasium.make(jax_id))
        check_env(numpy_env, skip_render_check=True)
        vec = gymnasium.make_vec(jax_id, num_envs=8)
    assert env.spec.max_episode_steps == gymnasium.spec(env_id).max_episode_steps
    own = _classes(env_id)[0]()
    assert env.observation_space == own.observation_space and env.action_space == own.action_space
    obs, _ = numpy_env.reset(seed=0)
    obs, reward, terminated, truncated, _ = numpy_env.step(numpy_env.action_space.sample())
    assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
    assert numpy_env.observation_space.contains(obs) and not isinstance(obs, jax.Array)
    obs, info = vec.reset(seed=0)
    vec.action_space.seed(0)
    assert vec.num_envs == 8 and vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    for _ in range(5):
        obs, reward, terminated, truncated, info = vec.step(vec.action_space.sample())
        assert reward.shape == terminated.shape == truncated.shape == (8,)
        assert vec.observation_space.contains(jax.tree.map(np.asarray, obs))
    for e in (env, numpy_env, vec):
        e.close()


def test_gymnasium_route_reports_the_rules_truncation_and_the_step_limit():
    env = gymnasium.make(f"{gj.NAMESPACE}/heartpole-v1")
    env.reset(seed=0)
    flags = [env.step(3)[3] for _ in range(40)]
    assert flags == [False] * 39 + [True]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vec = gymnasium.make_vec(f"{gj.NAMESPACE}/heartpole-v0", num_envs=3, max_episode_steps=4)
    vec.reset(seed=0)
    out = [vec.step(np.zeros(3, dtype=np.int64)) for _ in range(6)]
    assert [bool(o[3].all()) for o in out] == [False, False, False, True, False, False]
    assert [float(np.asarray(o[0])[0, 4]) for o in out] == [1.0, 2.0, 3.0, 4.0, 0.0, 1.0]  # next-step autoreset
    assert float(np.asarray(out[4][1]).sum()) == 0.0  # the restart step's reward is 0


def test_rendering_stays_numpy():
    env = gymnasium.make(f"{gj.NAMESPACE}/heartpole-v1", render_mode="rgb_array")
    env.reset(seed=0)
    env.step(1)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3
    gymnax_env, params = gj.make("heartpole-v1")
    _, state = gymnax_env.reset(jax.random.key(0), params)
    assert gymnax_env.render_rgb(state).shape == frame.shape
    assert isinstance(gymnax_env.render_ansi(state), str)


def test_64_bit_params_after_the_same_log_ran_in_32_bits():
    """JAX caches the device copies of the logs' read-only arrays: a 64-bit env after a 32-bit one holds float64."""
    import pickle

    env, params = gj.make("push-v1")
    clone, clone_params = pickle.loads(pickle.dumps((env, params)))
    key = jax.random.key(7)
    _, state = clone.reset(key, clone_params)
    clone.step(key, state, 1, clone_params)  # the log's p_open used in 32 bits
    assert isinstance(clone._params.p_open, jax.Array)  # the clone holds device arrays, as a new env does
    with jax.enable_x64(True):
        env64, _ = gj.make("push-v1")
        assert env64._params.p_open.dtype == jnp.float64
        np.testing.assert_array_equal(np.asarray(env64._params.p_open), env64.definition_params.p_open)


@pytest.mark.parametrize("x64", [False, True], ids=["32-bit", "64-bit"])
def test_observations_and_actions_have_the_dtypes_of_their_spaces(x64):
    """The gymnax spaces' dtypes are the observations' in either mode."""
    with jax.enable_x64(x64):
        for env_id in IDS:
            env, params = gj.make(env_id)
            obs, state = env.reset(jax.random.key(0), params)
            space = env.observation_space(params)
            assert obs.dtype == space.dtype and obs.shape == tuple(space.shape), env_id
            assert bool(space.contains(obs)), env_id
            action = env.action_space(params).sample(jax.random.key(1))
            obs, *_ = env.step(jax.random.key(2), state, action, params)
            assert obs.dtype == space.dtype, env_id
