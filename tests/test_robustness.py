"""What outside callers do to the environments: misuse, odd arguments, checkpoints, other CPUs
(``HYPOTHESIS_PROFILE=long`` runs many more examples)."""

from __future__ import annotations

import copy
import inspect
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from conftest import ALL_IDS, DOCUMENTED_ERRORS, MESSAGE_LIMIT, load_hypothesis_profile
from conftest import same as _same
from gymnasium import spaces
from hypothesis import given
from hypothesis import strategies as st

from gym_suite.envs.argument_values import argument_values
from gym_suite.evaluate import action_seed

load_hypothesis_profile()
ROOT = Path(__file__).resolve().parents[1]


def test_gym_adapter_random_actions_do_not_replay_the_start_draws(gym_np_bool8):
    gym = pytest.importorskip("gym")
    away = 0
    for seed in range(200):
        env = gym.make("gym_suite:example-v0")
        obs, _ = env.reset(seed=seed)
        goal = env.unwrapped.goal
        action = env.action_space.sample()
        away += (action == 1) != (obs < goal)  # the first random move goes away from the goal
    # independent actions go away about half the time; replaying the start's draw did so always
    assert 60 < away < 140, away
    env = gym.make("gym_suite:target-v0")
    equal = 0
    for seed in range(200):
        obs, _ = env.reset(seed=seed)
        equal += bool(np.allclose(env.action_space.sample(), obs[:2]))
    assert equal == 0


def test_action_seed_is_a_stream_of_its_own():
    assert action_seed(0) != 0 and action_seed(1) != action_seed(0)
    rng_env, rng_act = np.random.default_rng(5), np.random.default_rng(action_seed(5))
    assert not np.allclose(rng_env.random(8), rng_act.random(8))


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_rejected_reset_leaves_the_env_as_it_was(env_id):
    env = gymnasium.make(env_id)
    reference = gymnasium.make(env_id)
    for e in (env, reference):
        e.reset(seed=1)
        e.action_space.seed(2)
    actions = [env.action_space.sample() for _ in range(6)]
    first = env.step(actions[0])
    reference.step(actions[0])
    for bad in ({"seed": 999, "options": {"bogus": 1}}, {"seed": -3}, {"seed": 1.5}, {"options": ["x"]}):
        with pytest.raises(DOCUMENTED_ERRORS):
            env.reset(**bad)
    if first[2] or first[3]:  # the episode had ended: the next unseeded reset draws the same start
        assert _same(env.reset()[0], reference.reset()[0])
    for action in actions[1:]:
        a, b = env.step(action), reference.step(action)
        assert _same(a[:4], b[:4])
        if a[2] or a[3]:
            break


def test_heartpole_snapshot_replays_the_same_future():
    env = gymnasium.make("heartpole-v0").unwrapped
    env.reset(seed=0)
    for action in [1, 0, 2, 0, 1]:
        env.step(action)
    state, rng_state = env.state, copy.deepcopy(env.np_random.bit_generator.state)
    future = [env.step(a) for a in [0, 1, 3, 2, 0, 1]]
    env.state = state
    env.np_random.bit_generator.state = rng_state
    replay = [env.step(a) for a in [0, 1, 3, 2, 0, 1]]
    assert _same([f[:4] for f in future], [r[:4] for r in replay])


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_vector_seeds(env_id):
    envs = gymnasium.make_vec(env_id, num_envs=3)
    with pytest.raises(TypeError, match="seed"):
        envs.reset(seed=1.5)
    with pytest.raises(ValueError, match="3 seeds"):
        envs.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="seed"):
        envs.reset(seed=[1, -2, 3])
    a, _ = envs.reset(seed=[1, 2, 3])
    b, _ = envs.reset(seed=[1, 2, 3])
    assert _same(a, b)
    envs.reset(seed=[None, 2, None])  # Gymnasium's vector API allows None entries
    envs.step(envs.action_space.sample())


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_ragged_or_misshapen_action_batch_names_the_expected_shape(env_id):
    envs = gymnasium.make_vec(env_id, num_envs=3)
    envs.reset(seed=0)
    shape = (3,) + envs.single_action_space.shape
    ragged = [[1.0, 2.0], [3.0], [4.0, 5.0]] if shape == (3, 2) else [[1], 0, [1, 0]]
    for bad in (ragged, np.zeros((2,) + shape[1:], dtype=envs.action_space.dtype)):
        with pytest.raises(ValueError, match=re.escape(str(shape))):
            envs.step(bad)


def test_example_memory_does_not_grow_with_the_line():
    env = gymnasium.make("example-v0", lf_min=0, rt_max=10**12)
    obs, info = env.reset(seed=0)
    assert 0 <= obs < 10**12 and obs != env.unwrapped.goal
    assert sys.getsizeof(vars(env.unwrapped)) < 10_000
    # nothing as long as the line: the largest list is the shell's fixed block of uniforms
    limit = env.unwrapped.BLOCK_DRAWS
    assert all(not isinstance(v, (list, np.ndarray)) or len(v) <= limit for v in vars(env.unwrapped).values())


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"rt_max": 2**63}, "rt_max"),
        ({"rt_max": 10**12 + 1}, "rt_max"),
        ({"lf_min": 2**62, "rt_max": 2**62 + 10}, "lf_min"),
    ],
)
def test_example_refuses_lines_whose_arithmetic_would_overflow(kwargs, name):
    from gym_suite.envs import ExampleEnv, ExampleVectorEnv

    for cls in (ExampleEnv, ExampleVectorEnv):
        with pytest.raises(ValueError, match=name):
            cls(**kwargs)


def test_example_accepts_its_largest_line():
    from gym_suite.envs import ExampleVectorEnv

    envs = ExampleVectorEnv(64, lf_min=0, rt_max=10**12)
    obs, info = envs.reset(seed=0)
    assert obs.dtype == np.int64 and 0 <= obs.min() and obs.max() < 10**12
    np.testing.assert_array_equal(obs + info["dist"], envs.goal)
    obs, reward, *_ = envs.step(np.ones(64, dtype=np.int64))
    assert set(reward.tolist()) <= {-1.0, -2.0, 10.0}
    near = gymnasium.make("example-v0", lf_min=10**12 - 2, rt_max=10**12)  # one start: lf_min + 1
    assert near.reset(seed=0)[0] == 10**12 - 1


def test_step_limit_is_not_an_env_argument_and_the_error_says_where_it_goes():
    from gym_suite.envs import ExampleEnv

    with pytest.raises(TypeError, match="gymnasium.make"):
        ExampleEnv(max_episode_steps=5)


@pytest.mark.slow
def test_vector_and_scalar_agree_without_avx512():
    """np.exp and math.exp differ in the last bit where numpy uses AVX-512: the tolerant
    equivalence tests pass with it switched off too."""
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}
    probe = "from numpy._core._multiarray_umath import __cpu_features__ as f; print(f.get('AVX512F'))"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.returncode == 0
    tests = ["tests/test_conformance.py", "tests/test_heartpole.py"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "vector_of_one or agree", *tests],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout


def _invalid_actions():
    return st.one_of(
        st.integers(min_value=-(10**6), max_value=-1),
        st.integers(min_value=4, max_value=10**18),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=30),
        st.none(),
        st.lists(st.floats(), min_size=3, max_size=50),
        st.lists(st.integers(), max_size=0),
        st.booleans(),
        st.just([math.nan, 1.0]),
        st.just([1.0, math.inf]),
        st.just({"x": 1}),
    )


@given(st.sampled_from(ALL_IDS), _invalid_actions())
def test_invalid_actions_raise_documented_errors_and_leave_the_env_usable(env_id, action):
    env = gymnasium.make(env_id, disable_env_checker=True)
    env.reset(seed=0)
    space = env.action_space
    if isinstance(space, spaces.Box) and isinstance(action, list) and len(action) == 2:
        if all(isinstance(v, float) and math.isfinite(v) for v in action):
            return  # a finite point: valid (clipped to the field)
    if isinstance(space, spaces.Discrete) and isinstance(action, int) and not isinstance(action, bool):
        if 0 <= action < space.n:
            return
    with pytest.raises(DOCUMENTED_ERRORS) as err:
        env.step(action)
    assert len(str(err.value)) < MESSAGE_LIMIT and "action" in str(err.value)
    env.step(space.sample())  # still usable


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_every_odd_argument_value_is_refused_by_name_or_runs(env_id):
    """Every value of ``argument_values`` for each argument: an error naming an argument, or an env that runs."""
    creator = gymnasium.envs.registration.load_env_creator(gymnasium.spec(env_id).entry_point)
    names = [n for n in inspect.signature(creator).parameters if n not in ("env_config", "render_mode")]
    base = creator().params
    for name in names:
        for value in argument_values(getattr(base, name)):
            try:
                env = creator(**{name: value})
            except (*DOCUMENTED_ERRORS, FileNotFoundError) as err:
                assert len(str(err)) < MESSAGE_LIMIT
                assert any(n in str(err) for n in names), (name, value, str(err))
                continue
            env.reset(seed=0)
            env.step(env.action_space.sample())


def test_step_after_termination_raises_reset_needed():
    env = gymnasium.make("target-v0", target=(25, 25))
    env.reset(seed=0)
    _, _, terminated, _, _ = env.step(np.array([25.0, 25.0], dtype=np.float32))
    assert terminated
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        env.step(np.array([25.0, 25.0], dtype=np.float32))


@pytest.mark.parametrize("env_id", ["HeartPole-v0", "gym_suite:HeartPole-v0"])
def test_legacy_gym_names_the_suites_id_for_the_tutorials_id(env_id, gym_np_bool8):
    gym = pytest.importorskip("gym")
    with pytest.raises(gymnasium.error.Error) as expected:
        gymnasium.make("HeartPole-v0")
    with pytest.raises(gym.error.Error) as got:
        gym.make(env_id)
    assert str(got.value) == str(expected.value)
    assert "gym_suite:heartpole-v0" in str(got.value) and "CartPole" not in str(got.value)


def test_legacy_gym_registers_the_tutorials_id_in_a_fresh_process():
    """gym imported first (the plugin registers) or after gym_suite: the same message either way."""
    pytest.importorskip("gym")
    for code in ("import gym, gym_suite", "import gym_suite, gym", "import gym"):
        program = (
            "import warnings; warnings.simplefilter('ignore')\n"
            "import numpy as np; np.bool8 = np.bool_\n"
            f"{code}\n"
            "try:\n    gym.make('HeartPole-v0')\nexcept gym.error.Error as exc:\n    print(exc)\n"
        )
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
        assert "gym_suite:heartpole-v0" in done.stdout, (code, done.stdout, done.stderr)


_HUGE_INTEGERS = st.one_of(st.integers(2**63, 2**5000), st.integers(-(2**5000), -(2**63)))


@given(st.sampled_from(ALL_IDS), _HUGE_INTEGERS, st.booleans())
def test_huge_integer_arguments_are_value_errors_naming_the_argument(env_id, value, through_jax):
    """Past what a float holds: out of range, not an OverflowError, on numpy and through gym_suite.jax.make."""
    creator = gymnasium.envs.registration.load_env_creator(gymnasium.spec(env_id).entry_point)
    names = [n for n in inspect.signature(creator).parameters if n != "env_config"]
    if through_jax:
        gsj = pytest.importorskip("gym_suite.jax")
        creator = lambda **kwargs: gsj.make(env_id, **kwargs)  # noqa: E731
    for name in names:
        with pytest.raises(DOCUMENTED_ERRORS) as err:
            creator(**{name: value})
        assert len(str(err.value)) < MESSAGE_LIMIT
        assert name in str(err.value), (name, str(err.value))


@given(
    st.sampled_from(ALL_IDS),
    st.one_of(st.integers(2**24 + 1, 2**64), st.integers(2**64, 2**5000), st.sampled_from([np.int64(2**40)])),
    st.booleans(),
)
def test_num_envs_past_the_bound_is_a_value_error_not_a_memory_error(env_id, num_envs, through_jax):
    """Past ``MAX_NUM_ENVS`` (2**24), numpy and ``gym_suite_jax/``: a short ValueError naming num_envs."""
    from gym_suite.envs._shells import MAX_NUM_ENVS

    assert MAX_NUM_ENVS == 2**24
    name = env_id
    if through_jax:
        gsj = pytest.importorskip("gym_suite.jax")
        name = f"{gsj.NAMESPACE}/{env_id}"
    with pytest.raises(ValueError, match="num_envs") as err:
        gymnasium.make_vec(name, num_envs=num_envs)
    assert len(str(err.value)) < MESSAGE_LIMIT
