"""Behaviour of target-v1: the bounce, the action's length clip, the capture, the optimum and the
heuristic against it, and one long episode on Python floats, numpy and JAX."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

import gym_suite
from gym_suite.envs import TargetV1Env
from gym_suite.envs.definition import NUMPY, SCALAR
from gym_suite.envs.target_env import TARGET_V1, V1, TargetV1State, bounce
from gym_suite.evaluate import evaluate
from gym_suite.references import target_optimum

ENV_ID = "target-v1"
LOW, HIGH = V1.radius, V1.side - V1.radius  # the walls of the target's centre


def test_registered_with_the_spec_row():
    row = next(s for s in gym_suite.SPECS if s.id == ENV_ID)
    assert gymnasium.spec(ENV_ID).max_episode_steps == row.max_episode_steps == 300
    env = gymnasium.make(ENV_ID)
    assert env.action_space == gymnasium.spaces.Box(-1, 1, (2,), np.float32)
    assert env.observation_space.shape == (6,) and env.observation_space.dtype == np.float32
    assert env.unwrapped.target_speed == 1.5 and env.unwrapped.radius == 1.5 and env.unwrapped.size == 50


# --------------------------------------------------------------------------------------------
# The bounce
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ops", [SCALAR, NUMPY], ids=["scalar", "numpy"])
def test_bounce_mirrors_in_the_wall_and_turns_the_velocity(ops):
    assert bounce(10.0, 1.5, LOW, HIGH, ops) == (11.5, 1.5)  # no wall
    assert bounce(HIGH - 0.5, 1.5, LOW, HIGH, ops) == (HIGH - 1.0, -1.5)  # 1.0 past the wall, mirrored
    assert bounce(LOW + 0.25, -1.5, LOW, HIGH, ops) == (LOW + 1.25, 1.5)
    assert bounce(HIGH - 1.5, 1.5, LOW, HIGH, ops) == (HIGH, 1.5)  # on the wall: not yet turned
    assert bounce(HIGH, 1.5, LOW, HIGH, ops) == (HIGH - 1.5, -1.5)  # then turned


def test_bounce_in_a_corner_turns_both_components():
    state = TargetV1State(10.0, 10.0, HIGH - 0.5, LOW + 0.5, 1.0, -1.0, 0.0, 0.0)
    nxt = TARGET_V1.transition(state, (0.0, 0.0), (), V1, SCALAR)
    assert (nxt.target_x, nxt.target_y, nxt.target_vx, nxt.target_vy) == (HIGH - 0.5, LOW + 0.5, -1.0, 1.0)


def test_the_target_stays_in_the_field_at_constant_speed():
    envs = gymnasium.make_vec(ENV_ID, num_envs=64, vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    zero = np.zeros((64, 2), np.float32)
    for _ in range(400):  # about a dozen crossings of the field each: many bounces, some near corners
        envs.step(zero)
        s = envs.unwrapped.state
        x, y = np.asarray(s.target_x), np.asarray(s.target_y)
        assert ((x >= LOW) & (x <= HIGH) & (y >= LOW) & (y <= HIGH)).all()
        speed = np.hypot(np.asarray(s.target_vx), np.asarray(s.target_vy))
        np.testing.assert_allclose(speed, V1.target_speed, rtol=1e-12)
    envs.close()


def test_start_direction_is_uniform_on_the_circle():
    u = np.random.default_rng(0).random((TARGET_V1.draws_at_start(V1), 20_000))
    start = TARGET_V1.initial(list(u), V1, NUMPY)
    angle = np.arctan2(start.target_vy, start.target_vx)
    counts, _ = np.histogram(angle, bins=8, range=(-math.pi, math.pi))
    assert (np.abs(counts - 2500) < 5 * math.sqrt(2500)).all()  # 5 standard deviations per bin
    assert (start.distance > 2 * V1.radius).all()


# --------------------------------------------------------------------------------------------
# The action
# --------------------------------------------------------------------------------------------


def _env_at(worker, target, velocity=(0.0, 0.0)):
    env = gymnasium.make(ENV_ID)
    env.reset(seed=0)
    distance = math.dist(worker, target)
    env.unwrapped.state = TargetV1State(*worker, *target, *velocity, distance, math.nan)
    return env


def test_an_action_longer_than_one_is_scaled_to_length_one():
    env = _env_at((10.0, 10.0), (40.0, 40.0))
    _, _, _, _, info = env.step(np.array([1.0, 1.0], np.float32))
    s = env.unwrapped.state
    assert info["clipped"] is True or info["clipped"] == True  # noqa: E712  (a numpy bool is fine)
    assert math.hypot(s.worker_x - 10.0, s.worker_y - 10.0) == pytest.approx(1.0, rel=1e-12)
    assert s.worker_x - 10.0 == pytest.approx(s.worker_y - 10.0, rel=1e-12)  # the direction kept
    _, _, _, _, info = env.step([0.3, -0.4])
    assert not info["clipped"]
    assert (env.unwrapped.state.worker_x, env.unwrapped.state.worker_y) == pytest.approx(
        (s.worker_x + 0.3, s.worker_y - 0.4)
    )


def test_a_float32_unit_vector_is_not_reported_as_clipped():
    env = _env_at((10.0, 10.0), (40.0, 40.0))
    rng = np.random.default_rng(0)
    for _ in range(200):
        v = rng.normal(size=2)
        action = (v / np.hypot(*v)).astype(np.float32)
        _, _, _, _, info = env.step(action)
        assert not info["clipped"], action


def test_the_worker_stays_in_the_field():
    env = _env_at((0.5, 49.8), (40.0, 10.0))
    env.step([-1.0, 0.0])
    env.step([0.0, 1.0])
    s = env.unwrapped.state
    assert (s.worker_x, s.worker_y) == (0.0, 50.0)


@pytest.mark.parametrize(
    "action, error",
    [
        ([math.nan, 0.0], ValueError),
        ([0.0, math.inf], ValueError),
        ([0.5, 0.5, 0.5], ValueError),
        (np.zeros((1, 2)), ValueError),
        ("up", TypeError),
    ],
)
def test_bad_actions_raise_and_leave_the_env_as_it_was(action, error):
    env = gymnasium.make(ENV_ID)
    env.reset(seed=1)
    before = env.unwrapped.state
    with pytest.raises(error, match="action"):
        env.step(action)
    assert env.unwrapped.state == before


# --------------------------------------------------------------------------------------------
# The capture
# --------------------------------------------------------------------------------------------


def test_capture_when_the_discs_touch_after_the_step():
    # the target moves to (20, 20); the worker steps from (16.5, 20) to (17, 20): 3.0 apart, touching
    env = _env_at((16.5, 20.0), (19.0, 20.0), (1.0, 0.0))
    _, reward, terminated, truncated, info = env.step([0.5, 0.0])
    assert (reward, terminated, truncated, info["distance"]) == (-1.0, True, False, 3.0)
    env = _env_at((16.5, 20.0), (19.0, 20.0), (1.0, 0.0))
    _, reward, terminated, _, info = env.step([0.4, 0.0])  # 3.1 apart: not yet
    assert reward == -1.0 and not terminated and info["distance"] == pytest.approx(3.1)


def test_return_is_minus_the_length():
    result = evaluate(ENV_ID, "heuristic", episodes=20, seed=0)
    assert (result.returns == -result.lengths).all()


# --------------------------------------------------------------------------------------------
# The optimum and the heuristic
# --------------------------------------------------------------------------------------------

EPISODES = 60


def _bounds(seeds) -> np.ndarray:
    """The earliest-intercept bound of each episode, from the env's float64 start state."""
    out = []
    for seed in seeds:
        env = TargetV1Env()
        env.reset(seed=int(seed))
        state = np.array(list(env.state[:6]), dtype=np.float64)
        out.append(int(target_optimum.earliest_intercept(state[None, :])[0][0]))
    return np.array(out)


def test_the_optimal_policy_attains_the_bound_in_every_episode():
    bound = _bounds(range(EPISODES))
    limit = gymnasium.spec(ENV_ID).max_episode_steps
    result = evaluate(ENV_ID, target_optimum.OptimalPolicy(), episodes=EPISODES, seed=0)
    np.testing.assert_array_equal(result.returns, -np.minimum(bound, limit))


def test_no_policy_beats_the_bound_and_the_heuristic_is_well_below_it():
    bound = _bounds(range(EPISODES))
    for policy in ("heuristic", "random", target_optimum.LeadPolicy()):
        result = evaluate(ENV_ID, policy, episodes=EPISODES, seed=0)
        assert (result.lengths >= np.minimum(bound, 300)).all()
    heuristic = evaluate(ENV_ID, "heuristic", episodes=EPISODES, seed=0)
    gap = heuristic.lengths - bound
    assert gap.mean() > 10 and gap.mean() > 3 * gap.std(ddof=1) / math.sqrt(EPISODES)  # clearly longer, paired


def test_the_heuristic_heads_straight_for_the_target_at_full_speed():
    obs = np.array([[10, 10, 13, 14, 1, 0], [5, 5, 5, 2, 0, 1]], np.float32)
    action = TargetV1Env().heuristic(obs[0])
    np.testing.assert_allclose(action, [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(gymnasium.make_vec(ENV_ID, 2).unwrapped.heuristic(obs), [[0.6, 0.8], [0, -1]], atol=1e-7)


# --------------------------------------------------------------------------------------------
# One long episode on every backend
# --------------------------------------------------------------------------------------------


def test_a_long_episode_is_the_same_on_floats_numpy_and_jax():
    """600 steps (the rules run on past a capture) with random actions, many longer than 1, and a
    fast target (many bounces, corners included): the same states on the three backends, bit for
    bit on floats and numpy, and JAX in 64-bit mode to 1e-12."""
    params = TARGET_V1.make_params(V1, ENV_ID, target_speed=7.3)
    rng = np.random.default_rng(5)
    u = rng.random(TARGET_V1.draws_at_start(params))
    actions = rng.uniform(-1.0, 1.0, (600, 2)).astype(np.float32).astype(np.float64) * 1.3
    scalar = TARGET_V1.initial(list(u), params, SCALAR)
    vector = TARGET_V1.initial([np.array([x]) for x in u], params, NUMPY)
    scalar_states, vector_states = [scalar], [vector]
    for a in actions:
        scalar = TARGET_V1.transition(scalar, (float(a[0]), float(a[1])), (), params, SCALAR)
        vector = TARGET_V1.transition(vector, (a[:1], a[1:]), (), params, NUMPY)
        scalar_states.append(scalar)
        vector_states.append(vector)
    for s, v in zip(scalar_states, vector_states):
        row = [np.asarray(q).reshape(-1)[0] for q in v]  # (a quantity the rules left a number is one too)
        np.testing.assert_array_equal(np.array(s, dtype=np.float64), np.array(row, dtype=np.float64))  # exact
    jax = pytest.importorskip("jax")
    import gym_suite.jax as gj

    with jax.enable_x64(True):
        env, _ = gj.make(ENV_ID, target_speed=7.3)
        state = env.initial_with_draws(jax.numpy.asarray(u))
        got = [state]
        for a in actions:
            _, state, *_ = env.step_with_draws(state, jax.numpy.asarray(a), ())
            got.append(state)
        for s, g in zip(scalar_states, got):
            np.testing.assert_allclose(
                np.array(list(g.inner)[:7], dtype=np.float64), np.array(s[:7]), rtol=1e-12, atol=1e-12
            )
