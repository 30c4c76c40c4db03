"""Data parameters in the JAX env's ``EnvParams``: vmapped over a batch of params, each row is the
numpy rules' step with those values (float32 and 64-bit); ``replace`` acts as the argument does; bad
values get the numpy env's message; the default params give exactly the env's own constants."""

from __future__ import annotations

import functools
import pickle

import gymnasium
import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")

import jax.numpy as jnp  # noqa: E402
from conftest import MESSAGE_LIMIT, load_hypothesis_profile  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import gym_suite  # noqa: E402, F401  (registers the ids)
import gym_suite.jax as gj  # noqa: E402
from gym_suite._registry import find, load  # noqa: E402
from gym_suite.envs.checks import check_action  # noqa: E402
from gym_suite.envs.definition import SCALAR  # noqa: E402

#: Values of each data parameter to batch over (all allowed by the numpy env's checks).
VALUES = {
    "heart_attack_proclivity": (0.0, 0.3, 0.9, 1.0),
    "target_speed": (0.0, 0.7, 1.5, 3.0),
}
#: A value the numpy env refuses, per data parameter.
BAD = {"heart_attack_proclivity": 1.5, "target_speed": -1.0}

DATA_IDS = [i for i in gj.jax_ids() if gj.make(i)[0].data_parameters]
load_hypothesis_profile()


@functools.cache  # one env an id: reset and step compile once
def _started(env_id):
    env, params = gj.make(env_id)
    key = jax.random.key(0)
    return env, params, key, env.reset(key, params)[1]


def test_the_ids_with_data_parameters():
    assert set(DATA_IDS) == {"heartpole-v0", "heartpole-v1", "target-v1"}
    for env_id in gj.jax_ids():
        env, params = gj.make(env_id)
        assert isinstance(params, gj.EnvParams)
        for name in env.data_parameters:  # a data parameter is an argument and a field of the params
            assert name in env.definition.arguments and hasattr(env.definition_params, name)
            assert getattr(params, name) == getattr(env.definition_params, name)


def _numpy_params(env_id, **arguments):
    """The parameters the numpy env makes of ``arguments`` (its constructor's route)."""
    spec = find(env_id)
    d = load(spec.definition)
    return d.make_params(load(spec.params), spec.class_name, **arguments)


def _batch(params, name, values):
    return jax.vmap(lambda v: params.replace(**{name: v}))(jnp.asarray(values))


def _row(tree, i):
    inner = tree.inner
    return type(inner)(*(np.asarray(q)[i].item() for q in inner))


def _actions(env, rng, n):
    space = env.gym_action_space
    if isinstance(space, gymnasium.spaces.Discrete):
        return rng.integers(0, int(space.n), size=n)
    return rng.uniform(-1.5, 1.5, size=(n, *space.shape)).astype(np.float32)


def _close(what, got, want, rtol, scale):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    same = (np.abs(got - want) <= rtol * scale) | (np.isnan(got) & np.isnan(want))
    assert np.all(same), f"{what}: {got} != {want}"


def _same_leaves(a, b):
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def _scale(*rows):
    values = [abs(float(q)) for r in rows for q in r if isinstance(q, float) and np.isfinite(q)]
    return 1.0 + max(values, default=0.0)


def _check_batched_steps(env_id, rtol, steps=12):
    env, params = gj.make(env_id)
    d = env.definition
    for name in env.data_parameters:
        values = VALUES[name]
        n = len(values)
        batch = _batch(params, name, values)
        assert type(batch) is type(params.replace(**{name: values[1]})) is type(params)
        want_params = [_numpy_params(env_id, **{name: v}) for v in values]  # the numpy env's route
        keys = jax.random.split(jax.random.key(3), n)
        reset = jax.jit(jax.vmap(env.reset))
        step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, 0, 0)))
        obs, state = reset(keys, batch)
        for i, p in enumerate(want_params):  # the start: reset_env draws from the key itself
            u = [float(x) for x in np.asarray(env.draws(keys[i], env.start_draws))]
            want = d.initial(u, p, SCALAR)
            for field, got_q, want_q in zip(want._fields, _row(state, i), want):
                _close(f"{env_id} {name}={values[i]} start {field}", got_q, want_q, rtol, _scale(want))
        rng = np.random.default_rng(0)
        for _ in range(steps):
            keys = jax.random.split(jax.random.fold_in(keys[0], 1), n)
            actions = _actions(env, rng, n)
            rows = [_row(state, i) for i in range(n)]
            obs, state, reward, terminated, truncated, info = step(keys, state, jnp.asarray(actions), batch)
            for i, p in enumerate(want_params):
                u = [float(x) for x in np.asarray(env.draws(jax.random.split(keys[i])[0], d.step_draws))]
                action = check_action(actions[i], env.gym_action_space)
                next_row = d.transition(rows[i], action, u, p, SCALAR)
                scale = _scale(rows[i], next_row)
                what = f"{env_id} {name}={values[i]}"
                _close(f"{what} reward", reward[i], d.reward(rows[i], action, next_row, p, SCALAR), rtol, scale)
                assert bool(terminated[i]) == bool(d.terminal(next_row, p, SCALAR)), what
                want_obs = np.asarray(d.observation(next_row, p, SCALAR), np.float32)
                _close(f"{what} observation", info["final_observation"][i], want_obs, rtol, scale)
    return env


@pytest.mark.parametrize("x64", [False, True], ids=["32-bit", "64-bit"])
@pytest.mark.parametrize("env_id", DATA_IDS)
def test_vmap_over_params_is_the_numpy_env_row_by_row(env_id, x64):
    with jax.enable_x64(x64):
        _check_batched_steps(env_id, 1e-12 if x64 else 1e-5, steps=6 if x64 else 12)


@pytest.mark.parametrize("env_id", DATA_IDS)
def test_a_bad_concrete_value_is_refused_with_the_numpy_envs_message(env_id):
    env, params = gj.make(env_id)
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    action = jnp.asarray(_actions(env, np.random.default_rng(0), 1)[0])
    for name in env.data_parameters:
        with pytest.raises(ValueError) as numpy_error:
            gymnasium.make(f"gym_suite:{env_id}", **{name: BAD[name]})
        for bad in (BAD[name], np.float32(BAD[name]), jnp.asarray(BAD[name])):
            with pytest.raises(ValueError, match=name) as jax_error:
                env.step(key, state, action, params.replace(**{name: bad}))
            assert str(jax_error.value).split(": ", 1)[1] == str(numpy_error.value).split(": ", 1)[1]
            assert str(jax_error.value).startswith(f"{env_id}.step: ")
        batch = jnp.asarray(VALUES[name][:2])  # a batch without vmap; traced, checked by shape and dtype
        for reset, value, error, match in [
            (env.reset, BAD[name], ValueError, name), (env.reset, "fast", TypeError, name),
            (env.reset, True, TypeError, name), (env.reset, batch, ValueError, "jax.vmap"),
            (jax.jit(env.reset), batch, ValueError, "jax.vmap"), (jax.jit(env.reset), jnp.asarray(True), TypeError, name),
        ]:  # fmt: skip
            with pytest.raises(error, match=match):
                reset(key, params.replace(**{name: value}))


@pytest.mark.parametrize("env_id", gj.jax_ids())
def test_default_params_give_exactly_the_envs_own_constants(env_id):
    """The default params, traced, give the bits of the rules on the env's own values (``None``)."""
    env, params = gj.make(env_id)
    n = 16
    rng = np.random.default_rng(1)
    u_start = jnp.asarray(rng.random((n, env.start_draws)), jnp.zeros(0).dtype) if env.start_draws else ()
    u_step = jnp.asarray(rng.random((n, env.definition.step_draws)), jnp.zeros(0).dtype)
    actions = jnp.asarray(_actions(env, rng, n))

    def run(q):
        start = jax.vmap(lambda u: env.initial_with_draws(u, q), axis_size=n)(u_start)
        return jax.vmap(lambda s, a, u: env.step_with_draws(s, a, u if env.definition.step_draws else (), q))(
            start, actions, u_step
        )

    default = jax.jit(run)(params)
    _same_leaves(default, jax.jit(lambda: run(None))())
    for name in env.data_parameters:  # another value changes the result
        other = VALUES[name][2] if VALUES[name][2] != getattr(params, name) else VALUES[name][1]
        changed = jax.jit(run)(params.replace(**{name: other}))
        assert any(not np.array_equal(a, b) for a, b in zip(jax.tree.leaves(changed), jax.tree.leaves(default)))


@pytest.mark.parametrize("env_id", DATA_IDS)
def test_params_pickle_and_bound_the_observation_space(env_id):
    env, params = gj.make(env_id)
    name = env.data_parameters[0]
    changed = params.replace(**{name: VALUES[name][1]})
    clone = pickle.loads(pickle.dumps(changed))
    assert clone == changed and type(clone) is type(changed)
    assert env.definition_params_of(changed, device=False) == _numpy_params(env_id, **{name: VALUES[name][1]})
    assert env.definition_params_of(params, device=False) is env.definition_params
    if env_id == "target-v1":  # the speed bounds the velocity
        assert float(env.observation_space(params.replace(target_speed=2.0)).high[-1]) == 2.0
        assert float(env.observation_space(params).high[-1]) == 1.5


@pytest.mark.parametrize("env_id", DATA_IDS)
def test_the_functional_env_takes_params(env_id):
    env, params = gj.make(env_id)
    name = env.data_parameters[0]
    changed = params.replace(**{name: VALUES[name][1]})
    func = gj.SuiteFuncEnv(env)
    assert func.default_params == params
    key = jax.random.key(2)
    state = func.initial(key, changed)
    _same_leaves(state, env.initial_with_draws(env.draws(key, env.start_draws), changed))
    action = jnp.asarray(_actions(env, np.random.default_rng(0), 1)[0])
    next_state = func.transition(state, action, key, changed)
    want = env.step_with_draws(state, action, env.draws(key, env.definition.step_draws), changed)
    _same_leaves(next_state, want[1])
    np.testing.assert_array_equal(np.asarray(func.reward(state, action, next_state, key, changed)), want[2])


def test_drawn_params_draws_each_episodes_speed_at_its_start():
    from gym_suite.envs.target_env import pursuit
    from gym_suite.jax_wrappers import DrawnParams

    base, params = gj.make("target-v1")
    env = DrawnParams(base, lambda k, p: p.replace(target_speed=jax.random.uniform(k, minval=0.5, maxval=2.0)))
    n = 8

    @jax.jit
    def run(key):
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, n), params)

        def step(carry, k):
            obs, state = carry
            obs, state, _, terminated, truncated, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(k, n), state, pursuit(obs), params
            )
            inner = state.env_state.inner
            speed = jnp.sqrt(inner.target_vx**2 + inner.target_vy**2)
            return (obs, state), (state.params.target_speed, speed, terminated | truncated)

        return jax.lax.scan(step, (obs, state), jax.random.split(key, 400))[1]

    drawn, speed, done = (np.asarray(x) for x in run(jax.random.key(0)))
    assert int(done.sum()) >= 20  # episodes ended, and the next ones drew again
    assert len(np.unique(drawn)) == n + int(done.sum())  # one speed an episode
    assert np.all((drawn >= 0.5) & (drawn <= 2.0))
    np.testing.assert_allclose(speed, drawn, rtol=1e-5)  # the target moves at its episode's speed
    with pytest.raises(TypeError, match="draw must be a function"):
        DrawnParams(base, 1.5)


def test_drawn_params_refuses_a_draw_of_other_params_when_traced():
    """What the draw returns is checked as it is traced: the params' class, each value's shape."""
    from gym_suite.jax_wrappers import DrawnParams

    base, params = gj.make("target-v1")
    key = jax.random.key(0)
    speed_only = DrawnParams(base, lambda k, p: jax.random.uniform(k, minval=0.5, maxval=2.0))
    with pytest.raises(TypeError, match=r"^DrawnParams: draw must return params of the class it is given \(EnvParams"):
        jax.jit(speed_only.reset)(key, params)
    three = DrawnParams(base, lambda k, p: p.replace(target_speed=jax.random.uniform(k, (3,), minval=0.5, maxval=2.0)))
    with pytest.raises(ValueError, match=r"target_speed has the shape of the given params' \(\).* shape \(3,\)"):
        jax.jit(three.reset)(key, params)
    kept = DrawnParams(base, lambda k, p: p.replace(max_steps_in_episode=50))  # another field, one value
    assert int(jax.jit(kept.reset)(key, params)[1].params.max_steps_in_episode) == 50


def _outcome(call):
    """What a call gave: ``None`` when it ran, else the error's class and message."""
    try:
        call()
    except (TypeError, ValueError) as err:
        assert len(str(err)) < MESSAGE_LIMIT
        return type(err), str(err)
    return None


@given(st.sampled_from(gj.jax_ids()), st.sampled_from(gj.jax_ids()), st.sampled_from(["reset", "step"]))
def test_params_of_another_id_are_refused_naming_both_ids(env_id, other_id, method):
    """example-v0's params on target-v1 ran with example-v0's step limit (or raised AttributeError)."""
    env, params, key, state = _started(env_id)
    other = gj.make(other_id)[1]
    if other_id == env_id:
        assert type(other) is type(params)
        return
    action = env.action_space().sample(key)
    call = (lambda: env.reset(key, other)) if method == "reset" else (lambda: env.step(key, state, action, other))
    with pytest.raises(
        TypeError, match=rf"^{env_id}\.{method}: params must be None or the EnvParams of .*'{env_id}'.* of {other_id}$"
    ):
        call()
    with pytest.raises(TypeError, match=rf"of gym_suite.jax.make\('{env_id}'\)"):
        env.definition_params_of(other, device=False)
    with pytest.raises(TypeError, match=rf"^{env_id}: params must be"):  # every route to the rules
        env.observation(state, other)
    with pytest.raises(TypeError, match="params must be None or the EnvParams"):
        env.reset(key, gj.EnvParams(max_steps_in_episode=5))  # gymnax's class, of no id


def _one_value(env, name):
    """A strategy of Python numbers for the field ``name`` (floats exact in float32)."""
    if name == "max_steps_in_episode":
        return st.integers(-(2**31), 2**31 - 1)
    return st.floats(width=32) | st.integers(-(2**24), 2**24)


@given(st.sampled_from(gj.jax_ids()), st.data())
def test_a_concrete_jax_value_is_checked_as_the_python_number(env_id, data):
    """params.replace(max_steps_in_episode=jnp.array(0)) ran, truncating every step; 0 was refused."""
    env, params, key, state = _started(env_id)
    name = data.draw(st.sampled_from(("max_steps_in_episode", *env.data_parameters)))
    value = data.draw(_one_value(env, name))
    array = jnp.asarray(value, dtype=jnp.int32 if isinstance(value, int) else jnp.float32)
    want = _outcome(lambda: env.check_params("reset", params.replace(**{name: value})))
    got = _outcome(lambda: env.check_params("reset", params.replace(**{name: array})))
    assert got == want, (name, value)


#: Values of no number's kind for a field of the params.
WRONG_KINDS = {
    "list": [0.5],
    "dict": {"a": 0.5},
    "tuple": (0.5,),
    "string": "0.5",
    "bytes": b"1",
    "object": object(),
    "typed key": jax.random.key(1),
    "raw key": jax.random.PRNGKey(1),
    "numpy strings": np.array(["1"]),
}


@given(
    st.sampled_from(gj.jax_ids()),
    st.data(),
    st.sampled_from(sorted(WRONG_KINDS)),
    st.sampled_from(["reset", "step"]),
)
def test_a_value_of_the_wrong_kind_is_refused_naming_the_field(env_id, data, kind, method):
    """target_speed=[0.5] (a dict, a PRNG key) gave "unhashable type: 'list'", naming nothing."""
    env, params, key, state = _started(env_id)
    name = data.draw(st.sampled_from(("max_steps_in_episode", *env.data_parameters)))
    bad = params.replace(**{name: WRONG_KINDS[kind]})
    action = env.action_space().sample(key)
    call = (lambda: env.reset(key, bad)) if method == "reset" else (lambda: env.step(key, state, action, bad))
    with pytest.raises((TypeError, ValueError), match=rf"^{env_id}\.{method}: (params\.)?{name} must be") as err:
        call()
    assert len(str(err.value)) < MESSAGE_LIMIT


def test_a_draw_of_the_wrong_arity_is_refused_when_wrapped():
    from gym_suite.jax_wrappers import DrawnParams

    base, params = gj.make("target-v1")
    for draw in (lambda key: key, lambda key, p, extra: p, lambda: None):
        with pytest.raises(
            TypeError, match=r"^DrawnParams: draw must be a function \(key, params\) -> params.* takes \("
        ):
            DrawnParams(base, draw)
    for draw in (lambda key, p, extra=1: p, lambda *args: args[1], functools.partial(lambda a, key, p: p, 1)):
        DrawnParams(base, draw)  # callable as draw(key, params)


@pytest.mark.parametrize(
    ("draw", "kind", "message"),
    [
        (lambda key: key, TypeError, r"^train_ppo: draw_params must be a function \(key, params\).* takes \(key\)"),
        (lambda key, p, q: p, TypeError, r"^train_ppo: draw_params must be a function .* takes \(key, p, q\)"),
        (
            lambda key, p: p.replace(max_steps_in_episode=jnp.array(0)),
            ValueError,
            r"^train_ppo: draw_params\(jax.random.PRNGKey\(0\), params\) drew params .*max_steps_in_episode.* got 0",
        ),
        (
            lambda key, p: p.replace(target_speed=jnp.where(jax.random.key_data(key)[-1] == 3, -1.0, 1.0)),
            ValueError,
            r"^train_ppo: draw_params\(jax.random.PRNGKey\(3\), params\) drew params .*target_speed.* got -1\.0",
        ),
    ],
)
def test_train_ppo_checks_a_drawn_value_by_name_on_the_keys_it_tries(draw, kind, message):
    pytest.importorskip("rejax")
    from gym_suite.training.jax import train_ppo

    with pytest.raises(kind, match=message) as err:
        train_ppo("target-v1", draw_params=draw, total_timesteps=512, num_envs=4, num_steps=64, progress=False)
    assert len(str(err.value)) < MESSAGE_LIMIT
