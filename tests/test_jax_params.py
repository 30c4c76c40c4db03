"""What outside callers do to the JAX envs: bad actions, seeds, options, keys, params, checkpoints;
and the data parameters in ``EnvParams``.

``gym_suite_jax/<id>`` answers every input as the numpy env does (the same error and message, before
anything changes); gymnax's ``step`` and ``reset`` refuse a wrong key, ``params`` or action when
traced, and ``checked=True`` reports an out-of-range value under ``jit`` through ``checkify``.
Vmapped over a batch of params, each row is the numpy rules' step with those values (float32 and
64-bit); bad values get the numpy env's message; the default params give exactly the env's own constants.
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
from gym_suite._registry import find, load  # noqa: E402
from gym_suite.envs.checks import check_action, check_actions  # noqa: E402
from gym_suite.envs.definition import SCALAR  # noqa: E402

load_hypothesis_profile()
IDS = [spec.id for spec in gym_suite.SPECS if spec.id in gj.jax_ids()]


@functools.cache  # one env of each kind per id for the module: making a JAX env compiles
def _numpy_env(env_id, vector=False):
    return gymnasium.make_vec(env_id, num_envs=3) if vector else gymnasium.make(env_id, disable_env_checker=True)


@functools.cache
def _jax_env(env_id, vector=False):
    env = (
        gymnasium.make_vec(f"{gj.NAMESPACE}/{env_id}", num_envs=3)
        if vector
        else gymnasium.make(f"{gj.NAMESPACE}/{env_id}")
    )
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
    return (env.unwrapped.state, np.asarray(jax.random.key_data(env.unwrapped.rng)))


def _same_leaves(a, b):
    """The same pytree leaves, NaNs equal."""
    a, b = jax.tree.leaves(a), jax.tree.leaves(b)
    return len(a) == len(b) and all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


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
        st.sampled_from([1, 1.0, True, [10.0, 20.0], 7]).map(jnp.array),
    )


@given(st.sampled_from(IDS), _actions())
def test_gymnasium_jax_env_checks_an_action_as_the_numpy_env_does(env_id, action):
    as_numpy = np.asarray(action) if isinstance(action, jax.Array) else action  # as the numpy env is given it
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
    assert _same_leaves(_snapshot(env), before)  # refused before anything changed


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
    envs = _jax_env(env_id, vector=True)
    before = _snapshot(envs)
    expected = _outcome(lambda: check_actions(actions, 3, _numpy_env(env_id, vector=True).single_action_space))
    if expected[0] == "ok":
        envs.step(actions)
        return
    with pytest.raises(expected[0]) as err:
        envs.step(jnp.asarray(actions) if isinstance(actions, np.ndarray) else actions)
    assert str(err.value) == expected[1] and len(expected[1]) < MESSAGE_LIMIT
    assert _same_leaves(_snapshot(envs), before)


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
        assert _same_leaves(_snapshot(env), before)
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
    envs = _jax_env(env_id, vector=True)
    expected = _outcome(lambda: _numpy_env(env_id, vector=True).reset(seed=seed))
    got = _outcome(lambda: envs.reset(seed=seed))
    assert got[0] == expected[0]  # any non-negative integer is a seed, 2**63 and beyond too
    if got[0] != "ok":
        assert got[1].replace("JaxVectorEnv", "") == expected[1].replace(
            type(_numpy_env(env_id, vector=True)).__name__, ""
        )


@pytest.mark.parametrize("env_id", IDS)
def test_vector_seed_lists_are_reproducible(env_id):
    envs = _jax_env(env_id, vector=True)
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
    error, match = (
        (TypeError, "max_episode_steps") if isinstance(limit, float) else (ValueError, "max_episode_steps must be >= 1")
    )
    for env_id in (jax_id, "heartpole-v0") if error is ValueError else (jax_id,):
        with pytest.raises(error, match=match):
            gymnasium.make_vec(env_id, num_envs=2, max_episode_steps=limit)


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
    envs = _jax_env("target-v1", vector=True)
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
            for _ in range(5000):  # target-v1: the heuristic catches; push-v1: deliveries spend the budget
                action = pursuit(np.asarray(obs)) if env_id == "target-v1" else 1 if env_id == "push-v1" else 0
                obs, _, terminated, truncated, _ = e.step(action)
                if terminated or truncated:
                    break
            assert terminated or truncated
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


# -- the data parameters in EnvParams


#: Values of each data parameter to batch over (all allowed by the numpy env's checks).
VALUES = {
    "heart_attack_proclivity": (0.0, 0.3, 0.9, 1.0),
    "target_speed": (0.0, 0.7, 1.5, 3.0),
}
#: A value the numpy env refuses, per data parameter.
BAD = {"heart_attack_proclivity": 1.5, "target_speed": -1.0}

DATA_IDS = [i for i in gj.jax_ids() if gj.make(i)[0].data_parameters]


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


def _random_actions(env, rng, n):
    space = env.gym_action_space
    if isinstance(space, gymnasium.spaces.Discrete):
        return rng.integers(0, int(space.n), size=n)
    return rng.uniform(-1.5, 1.5, size=(n, *space.shape)).astype(np.float32)


def _close(what, got, want, rtol, scale):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    same = (np.abs(got - want) <= rtol * scale) | (np.isnan(got) & np.isnan(want))
    assert np.all(same), f"{what}: {got} != {want}"


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
            actions = _random_actions(env, rng, n)
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
    action = jnp.asarray(_random_actions(env, np.random.default_rng(0), 1)[0])
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
    actions = jnp.asarray(_random_actions(env, rng, n))

    def run(q):
        start = jax.vmap(lambda u: env.initial_with_draws(u, q), axis_size=n)(u_start)
        return jax.vmap(lambda s, a, u: env.step_with_draws(s, a, u if env.definition.step_draws else (), q))(
            start, actions, u_step
        )

    default = jax.jit(run)(params)
    assert _same_leaves(default, jax.jit(lambda: run(None))())
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
    assert _same_leaves(state, env.initial_with_draws(env.draws(key, env.start_draws), changed))
    action = jnp.asarray(_random_actions(env, np.random.default_rng(0), 1)[0])
    next_state = func.transition(state, action, key, changed)
    want = env.step_with_draws(state, action, env.draws(key, env.definition.step_draws), changed)
    assert _same_leaves(next_state, want[1])
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


@pytest.mark.parametrize("env_id", gj.jax_ids())
def test_a_state_that_is_not_the_envs_is_refused_naming_state(env_id):
    """The observation in the state's place (arguments swapped), None, a dict, another id's state."""
    env, params, key, state = _started(env_id)
    other_id = "example-v0" if env_id != "example-v0" else "target-v1"
    other_env, other_params = gj.make(other_id)
    observation = env.reset(key, params)[0]
    action = env.action_space().sample(key)
    for bad in (observation, None, {}, other_env.reset(key, other_params)[1]):
        with pytest.raises(TypeError, match=rf"^{env_id}\.step: state must be what reset or step returns"):
            env.step(key, bad, action, params)
    assert env.step(key, state, action, params)[1].inner.__class__ is state.inner.__class__  # still steps


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
    assert got == want and len(str(got[1])) < MESSAGE_LIMIT, (name, value)


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
