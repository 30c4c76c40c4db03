"""What outside callers do to the JAX envs: bad actions, seeds, options, keys, params, checkpoints.

``gym_suite_jax/<id>`` answers every input as the numpy env does (the same error and message, before
anything changes); gymnax's ``step`` and ``reset`` refuse a wrong key, ``params`` or action when
traced, and ``checked=True`` reports an out-of-range value under ``jit`` through ``checkify``.
"""

from __future__ import annotations

import copy
import functools
import math
import pickle

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")

import gymnasium  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from conftest import MESSAGE_LIMIT, load_hypothesis_profile  # noqa: E402
from gymnasium import spaces  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from jax.experimental import checkify  # noqa: E402

import gym_suite  # noqa: E402
import gym_suite.jax as gj  # noqa: E402
from gym_suite.envs.checks import check_action, check_actions  # noqa: E402

load_hypothesis_profile()
IDS = [spec.id for spec in gym_suite.SPECS if spec.id in gj.jax_ids()]


@functools.cache  # one env of each kind per id for the module: making a JAX env compiles
def _numpy_env(env_id):
    return gymnasium.make(env_id, disable_env_checker=True)


@functools.cache
def _jax_env(env_id):
    env = gymnasium.make(f"{gj.NAMESPACE}/{env_id}")
    env.reset(seed=0)
    return env


@functools.cache
def _numpy_vec(env_id):
    return gymnasium.make_vec(env_id, num_envs=3)


@functools.cache
def _jax_vec(env_id):
    env = gymnasium.make_vec(f"{gj.NAMESPACE}/{env_id}", num_envs=3)
    env.reset(seed=0)
    return env


@functools.cache
def _gymnax(env_id, checked=False):
    return gj.make(env_id, checked=checked)


def _outcome(call):
    """``("ok", None)`` or ``(error type, message)`` of a call."""
    try:
        call()
    except Exception as err:  # noqa: BLE001  (the outcome is what is compared)
        return type(err), str(err)
    return "ok", None


def _snapshot(env):
    """What a rejected call must leave as it was: the state and the key."""
    env = env.unwrapped
    return (jax.tree.leaves(env.state), np.asarray(jax.random.key_data(env.rng)))


def _same_leaves(a, b):
    """The same pytree leaves, NaNs equal."""
    a, b = jax.tree.leaves(a), jax.tree.leaves(b)
    return len(a) == len(b) and all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


def _same_snapshot(a, b):
    return _same_leaves(a[0], b[0]) and np.array_equal(a[1], b[1])


def _numpy_check(env_id, action):
    """The numpy env's own check of one action, as its ``step`` calls it (without stepping)."""
    env = _numpy_env(env_id).unwrapped
    return check_action(action, env.action_space)


# -- item 1: actions at the Gymnasium edge


def _actions():
    return st.one_of(
        st.integers(min_value=-(10**6), max_value=10**6),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=30),
        st.none(),
        st.booleans(),
        st.lists(st.floats(), min_size=0, max_size=5),
        st.lists(st.integers(-3, 60), min_size=1, max_size=3),
        st.just([math.nan, 25.0]),
        st.just([25.0, math.inf]),
        st.just([10.0, 20.0]),
        st.just({"x": 1}),
        st.sampled_from([np.int64(1), np.int64(-1), np.float32(1.0), np.array(1), np.array([1.0, 2.0])]),
        st.sampled_from(["jax-int", "jax-float", "jax-bool", "jax-pair", "jax-big"]),
    )


_JAX_ACTIONS = {
    "jax-int": lambda: jnp.array(1),
    "jax-float": lambda: jnp.array(1.0),
    "jax-bool": lambda: jnp.array(True),
    "jax-pair": lambda: jnp.array([10.0, 20.0]),
    "jax-big": lambda: jnp.array(7),
}


def _action(value):
    """A drawn action, and the same value as the numpy env is given it (a JAX array read back)."""
    if isinstance(value, str) and value in _JAX_ACTIONS:
        action = _JAX_ACTIONS[value]()
        return action, np.asarray(action)
    return value, value


@given(st.sampled_from(IDS), _actions())
def test_gymnasium_jax_env_checks_an_action_as_the_numpy_env_does(env_id, drawn):
    action, as_numpy = _action(drawn)
    env = _jax_env(env_id)
    before = _snapshot(env)
    expected = _outcome(lambda: _numpy_check(env_id, as_numpy))
    got = _outcome(lambda: env.unwrapped._env.check_action(action, full=True))
    assert got == expected
    if expected[0] == "ok":
        *_, terminated, truncated, _ = env.step(action)
        if terminated or truncated:  # the next step would raise ResetNeeded
            env.reset(seed=0)
        return
    with pytest.raises(expected[0]) as err:
        env.step(action)
    assert str(err.value) == expected[1] and len(expected[1]) < MESSAGE_LIMIT and "action" in expected[1]
    assert _same_snapshot(_snapshot(env), before)  # refused before anything changed


@given(
    st.sampled_from(IDS),
    st.one_of(
        st.lists(st.integers(-3, 60), min_size=0, max_size=5),
        st.lists(st.lists(st.floats(), min_size=2, max_size=2), min_size=3, max_size=3),
        st.lists(st.floats(), min_size=3, max_size=3),
        st.just([[1.0, 2.0], [3.0], [4.0, 5.0]]),
        st.just("abc"),
        st.none(),
        st.sampled_from([np.array([0, 1, 7]), np.array([0, 1, 1], dtype=np.uint8), np.array([True, False, True])]),
    ),
)
def test_gymnasium_jax_vector_env_checks_actions_as_the_numpy_vector_env_does(env_id, actions):
    envs = _jax_vec(env_id)
    before = _snapshot(envs)
    expected = _outcome(lambda: check_actions(actions, 3, _numpy_vec(env_id).single_action_space))
    if expected[0] == "ok":
        envs.step(actions)
        return
    with pytest.raises(expected[0]) as err:
        envs.step(jnp.asarray(actions) if isinstance(actions, np.ndarray) else actions)
    assert str(err.value) == expected[1] and len(expected[1]) < MESSAGE_LIMIT
    assert _same_snapshot(_snapshot(envs), before)


# -- item 3: seeds and options


def _seeds():
    return st.one_of(
        st.none(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.sampled_from([np.int64(5), np.uint64(2**63), np.int32(-1), np.bool_(True), True, False, 2**63 - 1, 2**63]),
        st.floats(allow_nan=True),
        st.text(max_size=5),
    )


def _options():
    return st.one_of(
        st.none(),
        st.just({}),
        st.dictionaries(st.text(max_size=5), st.integers(), min_size=1, max_size=2),
        st.just(["x"]),
        st.just("x"),
    )


@given(st.sampled_from(IDS), _seeds(), _options())
def test_gymnasium_jax_reset_follows_the_numpy_env(env_id, seed, options):
    env = _jax_env(env_id)
    before = _snapshot(env)
    expected = _outcome(lambda: _numpy_env(env_id).reset(seed=seed, options=options))
    got = _outcome(lambda: env.reset(seed=seed, options=options))
    assert got[0] == expected[0]  # any non-negative integer is a seed, 2**63 and beyond too
    if got[0] != "ok":
        assert got[1].replace("JaxEnv", "") == expected[1].replace(type(_numpy_env(env_id).unwrapped).__name__, "")
        assert _same_snapshot(_snapshot(env), before)
        env.reset(seed=0)  # still usable


@given(
    st.sampled_from(IDS),
    st.one_of(
        _seeds(),
        st.lists(st.one_of(st.none(), st.integers(-5, 2**64)), min_size=0, max_size=4),
        st.sampled_from([np.array([1, 2, 3]), np.array([[1, 2, 3]]), (1, 2, 3)]),
    ),
)
def test_gymnasium_jax_vector_reset_follows_the_numpy_vector_env(env_id, seed):
    envs = _jax_vec(env_id)
    expected = _outcome(lambda: _numpy_vec(env_id).reset(seed=seed))
    got = _outcome(lambda: envs.reset(seed=seed))
    assert got[0] == expected[0]  # any non-negative integer is a seed, 2**63 and beyond too
    if got[0] != "ok":
        assert got[1].replace("JaxVectorEnv", "") == expected[1].replace(type(_numpy_vec(env_id)).__name__, "")


@pytest.mark.parametrize("env_id", IDS)
def test_vector_seed_lists_are_reproducible(env_id):
    envs = _jax_vec(env_id)
    assert _same_leaves(envs.reset(seed=[1, 2, 3])[0], envs.reset(seed=[1, 2, 3])[0])
    envs.reset(seed=np.array([1, 2, 4]))
    envs.reset(seed=[None, 2, None])
    envs.step(envs.action_space.sample())
    env = _jax_env(env_id)
    assert _same_leaves(env.reset(seed=np.int64(5))[0], env.reset(seed=5)[0])


# -- items 4 and 5: the constructors


@pytest.mark.parametrize("limit", [0, -3, np.int64(0), 2.5, -1])
def test_make_vec_step_limit_is_checked_as_the_numpy_vector_env(limit):
    jax_id = f"{gj.NAMESPACE}/heartpole-v0"
    if limit == -1:  # Gymnasium's "no limit"
        assert gymnasium.make_vec(jax_id, num_envs=2, max_episode_steps=-1).unwrapped.time_limit == 0
        return
    error = TypeError if isinstance(limit, float) else ValueError
    with pytest.raises(error, match="max_episode_steps") as got:
        gymnasium.make_vec(jax_id, num_envs=2, max_episode_steps=limit)
    if error is ValueError:
        with pytest.raises(ValueError) as want:
            gymnasium.make_vec("heartpole-v0", num_envs=2, max_episode_steps=limit)
        assert "max_episode_steps must be >= 1" in str(got.value) and "max_episode_steps must be >= 1" in str(
            want.value
        )


@pytest.mark.parametrize("env_config", ["x", 3, [("lf_min", 1)]])
def test_env_config_must_be_a_dict(env_config):
    for make in (gymnasium.make, functools.partial(gymnasium.make_vec, num_envs=2)):
        with pytest.raises(TypeError, match="env_config") as err:
            make(f"{gj.NAMESPACE}/example-v0", env_config=env_config)
        assert len(str(err.value)) < MESSAGE_LIMIT
    with pytest.raises(TypeError, match="env_config"):
        gj.make("example-v0", env_config=env_config)


def test_env_config_is_merged_with_keywords():
    env = gymnasium.make(f"{gj.NAMESPACE}/example-v0", env_config={"lf_min": 2, "rt_max": 30}, rt_max=20)
    assert env.unwrapped._env.definition_params.rt_max == 20
    assert env.unwrapped._env.definition_params.lf_min == 2


# -- item 2: integers and 64-bit mode


def test_integers_beyond_int32_need_64_bit_mode_and_are_int64_there():
    with pytest.raises(ValueError, match="lf_min.*64-bit"):
        gj.make("example-v0", lf_min=2**31 - 6, rt_max=2**31 - 1)
    with pytest.raises(ValueError, match="rt_max.*64-bit"):
        gj.make("example-v0", lf_min=0, rt_max=2**30)
    with pytest.raises(ValueError, match="rt_max"):
        gymnasium.make(f"{gj.NAMESPACE}/example-v0", rt_max=2**31 + 10)
    key = jax.random.key(0)
    with jax.enable_x64(True):
        env, params = gj.make("example-v0", rt_max=10**10)
        starts = {int(env.reset(k, params)[0]) for k in jax.random.split(key, 16)}
        assert len(starts) >= 15 and all(1 <= s < 10**10 for s in starts)
        obs, state = env.reset(key, params)
        assert obs.dtype == jnp.int64 and state.time.dtype == jnp.int64
        obs, state, *_ = jax.jit(env.step)(key, state, 1, params)
        assert obs.dtype == jnp.int64


# -- items 1, 6, 8: gymnax step and reset


def _started(env_id, checked=False, seed=0):
    """A gymnax env, its params, a key and the state its reset gives."""
    env, params = _gymnax(env_id, checked)
    key = jax.random.key(seed)
    return env, params, key, env.reset(key, params)[1]


def _valid_action(env):
    return env.action_space().sample(jax.random.key(1))


@pytest.mark.parametrize("env_id", IDS)
def test_gymnax_step_checks_an_action(env_id):
    """A JAX action by dtype and shape when traced (a Discrete one out of range acts as the nearest
    valid one under jit); a Python or numpy action in full, with the numpy env's message."""
    env, params, key, state = _started(env_id, False, 3)
    step = jax.jit(env.step)
    space = env.gym_action_space
    if isinstance(space, spaces.Discrete):
        n = int(space.n)
        wrong_dtype, wrong_shape, bad = (jnp.array(1.0), jnp.array(True)), (jnp.array([0, 1]), jnp.zeros((1,), int)), n
        for value, nearest in ((-5, 0), (n, n - 1), (2**30, n - 1)):
            assert _same_leaves(
                step(key, state, jnp.array(value), params), step(key, state, jnp.array(nearest), params)
            )
    else:
        wrong_dtype, wrong_shape, bad = (jnp.array([True, False]),), (jnp.zeros(3), jnp.zeros((1, 2))), [math.nan, 1.0]
    for action in wrong_dtype:
        with pytest.raises(TypeError, match=f"invalid action of dtype {action.dtype}"):
            step(key, state, action, params)
    for action in wrong_shape:
        with pytest.raises(ValueError, match=rf"invalid action of shape \({action.shape[0]},"):
            step(key, state, action, params)
    with pytest.raises(ValueError) as got:
        env.step(key, state, bad, params)
    with pytest.raises(ValueError) as want:
        _numpy_check(env_id, bad)
    assert str(got.value) == str(want.value)


#: One id per kind of action space runs in the quick tests; the others (compiling more) are slow.
QUICK = ("example-v0", "target-v0")


@pytest.mark.parametrize("env_id", [i if i in QUICK else pytest.param(i, marks=pytest.mark.slow) for i in IDS])
def test_checked_mode_reports_an_out_of_range_action_under_jit_with_the_numpy_message(env_id):
    env, params = _gymnax(env_id, checked=True)
    keys = jax.random.split(jax.random.key(0), 3)
    _, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
    space = env.gym_action_space
    if isinstance(space, spaces.Discrete):
        bad_value, good = int(space.n), _valid_action(env)
        actions = jnp.array([0, bad_value, 0])
    else:
        bad_value, good = [math.nan, 25.0], _valid_action(env)
        actions = jnp.array([[1.0, 2.0], bad_value, [3.0, 4.0]], dtype=jnp.float32)
    step = jax.jit(checkify.checkify(jax.vmap(env.step, in_axes=(0, 0, 0, None))))
    error, _ = step(keys, state, actions, params)
    with pytest.raises(ValueError) as got:
        error.throw()
    with pytest.raises(ValueError) as want:
        _numpy_check(env_id, bad_value)
    expected = str(want.value).replace("nan, 25.0", "nan 25.")  # JAX prints an array without commas
    assert str(got.value).startswith(expected)
    error, _ = step(keys, state, jnp.stack([good] * 3), params)
    error.throw()  # valid actions: no error
    # called directly (gymnax's own jit inside), the checked env raises
    one_state = jax.tree.map(lambda q: q[0], state)
    with pytest.raises(ValueError, match="invalid action"):
        env.step(keys[0], one_state, jnp.asarray(actions[1]), params)


def test_checked_mode_reports_a_step_limit_below_one_under_jit_and_checked_is_a_bool():
    env, params, key, state = _started("example-v0", checked=True)
    step = jax.jit(checkify.checkify(env.step))
    error, _ = step(key, state, jnp.array(1), params.replace(max_steps_in_episode=jnp.array(0)))
    with pytest.raises(ValueError, match="max_steps_in_episode must be a positive integer"):
        error.throw()
    with pytest.raises(TypeError, match="checked"):
        gj.make("example-v0", checked="yes")


@pytest.mark.parametrize(
    "limit, error, traced",  # traced: the error is the same under jit (a dtype or shape, not a value)
    [
        (math.nan, TypeError, True),
        (math.inf, TypeError, True),
        (1.5, TypeError, True),
        (True, TypeError, True),
        (None, TypeError, True),
        ("10", TypeError, False),
        (np.array([5, 6]), TypeError, False),
        (jnp.array([5, 6]), ValueError, True),
        (jnp.array(5.0), TypeError, True),
        (0, ValueError, False),
        (-1, ValueError, False),
        (2**31, ValueError, False),
        (jnp.array(0), ValueError, False),
        (jnp.array(-3), ValueError, False),
        (np.int32(0), ValueError, False),
    ],
)
def test_gymnax_params_step_limit_is_checked(limit, error, traced):
    env, params, key, state = _started("example-v0")
    bad = params.replace(max_steps_in_episode=limit)
    message = r"^example-v0\.(step|reset): params\.max_steps_in_episode must be an integer in 1\.\.\d+ "
    with pytest.raises(error, match=message):
        env.step(key, state, 1, bad)
    if traced:
        with pytest.raises(error, match=message):
            jax.jit(env.step)(key, state, 1, bad)
    with pytest.raises(error, match=message):
        env.reset(key, bad)
    env.reset(key, params.replace(max_steps_in_episode=jnp.array(5)))  # a good one runs


def test_gymnax_params_must_be_env_params_and_a_traced_step_limit_truncates():
    env, params, key, state = _started("example-v0")
    with pytest.raises(TypeError, match="params"):
        env.reset(key, {"max_steps_in_episode": 5})
    *_, truncated, _ = jax.jit(env.step)(key, state, 0, params.replace(max_steps_in_episode=jnp.array(1)))
    assert bool(truncated)


@pytest.mark.parametrize("env_id", QUICK)
@pytest.mark.parametrize(
    "key, error",
    [
        (None, TypeError),
        (0, TypeError),
        ("key", TypeError),
        (np.zeros(2, dtype=np.float32), TypeError),
        ("batch", ValueError),
        ("raw batch", ValueError),
    ],
)
def test_gymnax_reset_and_step_refuse_a_bad_key(env_id, key, error):
    env, params, good, state = _started(env_id)
    traced = not (isinstance(key, str) and key == "key")  # a string is no JAX type: jit refuses it itself
    if isinstance(key, str) and key == "batch":
        key = jax.random.split(good, 2)
    elif isinstance(key, str) and key == "raw batch":
        key = jax.random.split(jax.random.PRNGKey(0), 2)
    with pytest.raises(error, match="key"):
        env.reset(key, params)
    if traced:
        with pytest.raises(error, match="key must be"):
            jax.jit(env.reset)(key, params)
    with pytest.raises(error, match="key"):
        env.step(key, state, _valid_action(env), params)
    env.reset(jax.random.PRNGKey(0), params)  # a raw key is a key


# -- item 7: pickling


@pytest.mark.parametrize(
    "env_id, checked",
    [(i, False) for i in IDS]
    + [(i, True) if i in QUICK else pytest.param(i, True, marks=pytest.mark.slow) for i in IDS],
)
def test_gymnax_env_pickles_and_steps_the_same(env_id, checked):
    env, params, key, state = _started(env_id, checked, 7)
    clone, clone_params = pickle.loads(pickle.dumps((env, params)))
    assert clone.checked == checked and clone_params == params
    _, clone_state = clone.reset(key, clone_params)
    for k in jax.random.split(key, 3):
        action = _valid_action(env)
        a = env.step(k, state, action, params)
        b = clone.step(k, clone_state, action, clone_params)
        assert _same_leaves(a, b)
        state, clone_state = a[1], b[1]


@pytest.mark.parametrize("env_id", IDS)
def test_gymnasium_jax_envs_deepcopy_and_pickle_mid_episode_as_the_numpy_envs(env_id):
    """A copy and an unpickled env go on as the env itself, without touching it; so the vector env."""
    env = gymnasium.make(f"{gj.NAMESPACE}/{env_id}")
    env.reset(seed=1)
    env.action_space.seed(3)
    actions = [env.action_space.sample() for _ in range(12)]
    assert not any(env.step(actions[0])[2:4])
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    for action in actions[1:]:
        want = env.step(action)
        for clone in copies:
            assert type(clone.unwrapped) is gj.JaxEnv and _same_leaves(clone.step(action), want)
        if any(want[2:4]):  # the next episode from the key each one holds
            start = env.reset()
            assert all(_same_leaves(clone.reset(), start) for clone in copies)
    vec = gymnasium.make_vec(f"{gj.NAMESPACE}/{env_id}", num_envs=3)
    vec.reset(seed=3)
    vec.action_space.seed(3)
    batches = [vec.action_space.sample() for _ in range(3)]
    vec.step(batches[0])
    copies = [copy.deepcopy(vec), pickle.loads(pickle.dumps(vec))]
    for batch in batches[1:]:
        want = vec.step(batch)
        for clone in copies:
            assert _same_leaves(clone.step(batch), want)


# -- seeds of any size, the end of an episode


@pytest.mark.parametrize("seed", [2**63, 2**64 + 1, np.uint64(2**63), 10**30])
def test_any_non_negative_integer_is_a_seed_as_for_train_ppo(seed):
    """A seed past 2**63 is a seed: ``train_ppo``'s key (``seed_keys``), the same seed the same start, and
    seeds that differ only above 32 bits start differently."""
    from gym_suite._seeds import seed_keys
    from gym_suite.training.jax import _seed_keys

    assert _seed_keys is seed_keys  # one function, not a copy
    env = _jax_env("target-v1")
    a, _ = env.reset(seed=seed)
    assert np.array_equal(np.asarray(env.unwrapped.rng), np.asarray(jax.random.split(seed_keys(int(seed), 1)[0])[1]))
    b, _ = env.reset(seed=int(seed))
    assert np.array_equal(a, b)
    envs = _jax_vec("target-v1")
    c, _ = envs.reset(seed=seed)
    d, _ = envs.reset(seed=[seed, 2**64 + 7, None])
    assert np.isfinite(np.asarray(c)).all() and np.isfinite(np.asarray(d)).all()
    small, _ = env.reset(seed=5)
    large, _ = env.reset(seed=2**40 + 5)
    assert not np.array_equal(small, large)


@pytest.mark.parametrize("env_id", ["push-v1", "target-v1", "heartpole-v1"])
def test_step_after_the_end_raises_reset_needed_as_the_numpy_env(env_id):
    """After termination or the rules' truncation, and before the first reset, as the numpy env."""
    from gym_suite.envs.target_env import pursuit

    env = gymnasium.make(f"{gj.NAMESPACE}/{env_id}", max_episode_steps=-1).unwrapped
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        env.step(env.action_space.sample())
    numpy_env = gymnasium.make(env_id, max_episode_steps=-1).unwrapped
    for seed in range(2):
        for e in (env, numpy_env):
            obs, _ = e.reset(seed=seed)
            steps = 0
            while True:  # target-v1: the heuristic catches; push-v1: deliveries spend the budget
                action = pursuit(np.asarray(obs)) if env_id == "target-v1" else 1 if env_id == "push-v1" else 0
                obs, _, terminated, truncated, _ = e.step(action)
                steps += 1
                if terminated or truncated:
                    break
                assert steps < 5000
            state = e.state
            with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
                e.step(action)
            assert e.state is state  # nothing changed
    env.reset(seed=0)
    env.step(env.action_space.sample())  # usable again


@pytest.mark.parametrize("value", [10**1000, -(10**1000), np.int64(2**40)], ids=["10**1000", "-10**1000", "int64"])
def test_int32_parameter_message_stays_short(value):
    """A parameter beyond 32-bit JAX's integers is named with its value cut short."""
    import dataclasses

    @dataclasses.dataclass(frozen=True)
    class Params:
        count: int

    with pytest.raises(ValueError, match="count holds") as err:
        gj._check_int32("MyEnv", Params(value))
    assert len(str(err.value)) < 400, len(str(err.value))
