"""What outside callers do to particular environments: the legacy gym's adapter, checkpoints, lines at the bounds,
other CPUs (what every id promises against misuse: ``tests/test_conformance.py``)."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from conftest import same as _same

from gym_suite.envs import ExampleEnv, ExampleVectorEnv
from gym_suite.evaluate import action_seed

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
    assert 60 < away < 140, away  # about half the time; replaying the start's draw went away always
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


def test_example_runs_its_largest_line_in_memory_that_does_not_grow_with_it():
    env = gymnasium.make("example-v0", lf_min=0, rt_max=10**12)
    obs, info = env.reset(seed=0)
    assert 0 <= obs < 10**12 and obs != env.unwrapped.goal
    assert sys.getsizeof(vars(env.unwrapped)) < 10_000
    # nothing as long as the line: the largest list is the shell's fixed block of uniforms
    limit = env.unwrapped.BLOCK_DRAWS
    assert all(not isinstance(v, (list, np.ndarray)) or len(v) <= limit for v in vars(env.unwrapped).values())
    envs = ExampleVectorEnv(64, lf_min=0, rt_max=10**12)
    obs, info = envs.reset(seed=0)
    assert obs.dtype == np.int64 and 0 <= obs.min() and obs.max() < 10**12
    np.testing.assert_array_equal(obs + info["dist"], envs.goal)
    obs, reward, *_ = envs.step(np.ones(64, dtype=np.int64))
    assert set(reward.tolist()) <= {-1.0, -2.0, 10.0}
    near = gymnasium.make("example-v0", lf_min=10**12 - 2, rt_max=10**12)  # one start: lf_min + 1
    assert near.reset(seed=0)[0] == 10**12 - 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match", "vector_too"),
    [
        ({"rt_max": 2**63}, ValueError, "rt_max", True),  # lines whose arithmetic would overflow
        ({"rt_max": 10**12 + 1}, ValueError, "rt_max", True),
        ({"lf_min": 2**62, "rt_max": 2**62 + 10}, ValueError, "lf_min", True),
        ({"max_episode_steps": 5}, TypeError, "gymnasium.make", False),  # not an env argument: it says where it goes
    ],
)
def test_example_refuses_by_name(kwargs, error, match, vector_too):
    for cls in (ExampleEnv, ExampleVectorEnv)[: 1 + vector_too]:
        with pytest.raises(error, match=match):
            cls(**kwargs)


@pytest.mark.slow
def test_vector_and_scalar_agree_without_avx512():
    """np.exp and math.exp differ in the last bit where numpy uses AVX-512: the agreement tests pass without it too."""
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}
    probe = "from numpy._core._multiarray_umath import __cpu_features__ as f; print(f.get('AVX512F'))"
    subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
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


@pytest.mark.parametrize("env_id", ["HeartPole-v0", "gym_suite:HeartPole-v0"])
def test_legacy_gym_names_the_suites_id_for_the_tutorials_id(env_id, gym_np_bool8):
    gym = pytest.importorskip("gym")
    with pytest.raises(gymnasium.error.Error) as expected:
        gymnasium.make("HeartPole-v0")
    with pytest.raises(gym.error.Error) as got:
        gym.make(env_id)
    assert str(got.value) == str(expected.value)
    assert "gym_suite:heartpole-v0" in str(got.value) and "CartPole" not in str(got.value)
