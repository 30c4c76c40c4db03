"""target-v1: the bounce, the length clip, the capture, the optimum, the heuristic, long actions."""

from __future__ import annotations

import importlib.util
import math
import sys

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gym_suite.envs import TargetV1Env
from gym_suite.envs.definition import NUMPY, SCALAR, draws_at_start
from gym_suite.envs.target_env import TARGET_V1, V1, TargetV1State, bounce, clip_to_unit
from gym_suite.evaluate import evaluate
from gym_suite.references import target_optimum

ENV_ID = "target-v1"
LOW, HIGH = V1.radius, V1.side - V1.radius  # the walls of the target's centre


@pytest.mark.parametrize("ops", [SCALAR, NUMPY], ids=["scalar", "numpy"])
def test_bounce_mirrors_in_the_wall_and_turns_the_velocity(ops):
    assert bounce(10.0, 1.5, LOW, HIGH, ops) == (11.5, 1.5)  # no wall
    assert bounce(HIGH - 0.5, 1.5, LOW, HIGH, ops) == (HIGH - 1.0, -1.5)  # 1.0 past the wall, mirrored
    assert bounce(LOW + 0.25, -1.5, LOW, HIGH, ops) == (LOW + 1.25, 1.5)
    assert bounce(HIGH - 1.5, 1.5, LOW, HIGH, ops) == (HIGH, 1.5)  # on the wall: not yet turned
    assert bounce(HIGH, 1.5, LOW, HIGH, ops) == (HIGH - 1.5, -1.5)  # then turned
    # in a corner both components turn
    state = TargetV1State(10.0, 10.0, HIGH - 0.5, LOW + 0.5, 1.0, -1.0, 0.0, 0.0)
    nxt = TARGET_V1.transition(state, (0.0, 0.0), (), V1, ops)
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
    u = np.random.default_rng(0).random((draws_at_start(TARGET_V1, V1), 20_000))
    start = TARGET_V1.initial(list(u), V1, NUMPY)
    angle = np.arctan2(start.target_vy, start.target_vx)
    counts, _ = np.histogram(angle, bins=8, range=(-math.pi, math.pi))
    assert (np.abs(counts - 2500) < 5 * math.sqrt(2500)).all()  # 5 standard deviations per bin
    assert (start.distance > 2 * V1.radius).all()


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
    assert info["clipped"] == True  # noqa: E712  (a numpy bool is fine)
    assert math.hypot(s.worker_x - 10.0, s.worker_y - 10.0) == pytest.approx(1.0, rel=1e-12)
    assert s.worker_x - 10.0 == pytest.approx(s.worker_y - 10.0, rel=1e-12)  # the direction kept
    _, _, _, _, info = env.step([0.3, -0.4])
    assert not info["clipped"]
    assert (env.unwrapped.state.worker_x, env.unwrapped.state.worker_y) == pytest.approx(
        (s.worker_x + 0.3, s.worker_y - 0.4)
    )
    env = _env_at((0.5, 49.8), (40.0, 10.0))  # the worker stays in the field
    env.step([-1.0, 0.0])
    env.step([0.0, 1.0])
    assert (env.unwrapped.state.worker_x, env.unwrapped.state.worker_y) == (0.0, 50.0)


def test_a_float32_unit_vector_is_not_reported_as_clipped():
    env = _env_at((10.0, 10.0), (40.0, 40.0))
    rng = np.random.default_rng(0)
    for _ in range(200):
        v = rng.normal(size=2)
        action = (v / np.hypot(*v)).astype(np.float32)
        _, _, _, _, info = env.step(action)
        assert not info["clipped"], action


@pytest.mark.parametrize("move, caught, distance", [(0.5, True, 3.0), (0.4, False, pytest.approx(3.1))])
def test_capture_when_the_discs_touch_after_the_step(move, caught, distance):
    env = _env_at((16.5, 20.0), (19.0, 20.0), (1.0, 0.0))  # the target moves to (20, 20)
    _, reward, terminated, truncated, info = env.step([move, 0.0])
    assert (reward, terminated, truncated, info["distance"]) == (-1.0, caught, False, distance)


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


def test_the_optimum_attains_the_bound_no_policy_beats_it_and_the_heuristic_is_well_below_it():
    bound = _bounds(range(EPISODES))
    limit = gymnasium.spec(ENV_ID).max_episode_steps
    result = evaluate(ENV_ID, target_optimum.OptimalPolicy(), episodes=EPISODES, seed=0)
    np.testing.assert_array_equal(result.returns, -np.minimum(bound, limit))
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


#: Action components from tiny to the largest float64, either sign.
COMPONENT = st.one_of(
    st.just(0.0),
    st.floats(min_value=1e-300, max_value=sys.float_info.max).flatmap(lambda m: st.sampled_from([m, -m])),
    st.floats(min_value=-2.0, max_value=2.0),
)
LONG = st.floats(min_value=1e19, max_value=sys.float_info.max).flatmap(lambda m: st.sampled_from([m, -m]))


def expected_velocity(x: float, y: float, dtype=np.float64) -> tuple[float, float]:
    """The velocity of action ``(x, y)`` rounded to ``dtype`` (an infinity: its sign alone), scaled to length <= 1."""
    with np.errstate(over="ignore"):
        x, y = (float(np.asarray(v, np.float64).astype(dtype)) for v in (x, y))
    if math.isinf(x) or math.isinf(y):
        x, y = (math.copysign(1.0, v) if math.isinf(v) else 0.0 for v in (x, y))
    largest = max(abs(x), abs(y), 1.0)  # hypot itself overflows past the largest float
    x1, y1 = x / largest, y / largest
    length = math.hypot(x1, y1)
    return (x1 / length, y1 / length) if length * largest > 1.0 else (x, y)


NEEDS_JAX = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs the jax extra")


@pytest.mark.parametrize("backend", ["scalar", "numpy", pytest.param("jax", marks=NEEDS_JAX)])
@settings(max_examples=200, deadline=None)
@given(x=COMPONENT, y=COMPONENT)
def test_clip_to_unit_scales_any_finite_action_to_at_most_length_one(backend, x, y):
    if backend == "scalar":
        vx, vy = clip_to_unit(SCALAR, x, y)
        dtype, rel = np.float64, 1e-15
    elif backend == "numpy":
        vx, vy = (v[0].item() for v in clip_to_unit(NUMPY, np.array([x, 0.25]), np.array([y, -0.5])))  # a batch of 2
        dtype, rel = np.float64, 1e-15
    else:
        import jax.numpy as jnp

        from gym_suite.envs.definition import jax_ops

        ops = jax_ops()
        with np.errstate(over="ignore"):
            vx, vy = (float(v) for v in clip_to_unit(ops, jnp.float32(x), jnp.float32(y)))
        dtype, rel = np.float32, 1e-6  # XLA flushes subnormals (below 1.2e-38) to 0
    tiny = 1e-300 if dtype == np.float64 else 2e-38
    ex, ey = expected_velocity(x, y, dtype)
    assert math.isfinite(vx) and math.isfinite(vy)
    assert vx == pytest.approx(ex, rel=rel, abs=tiny) and vy == pytest.approx(ey, rel=rel, abs=tiny)
    assert math.hypot(vx, vy) <= 1.0 + 4 * rel


def test_clip_to_unit_keeps_the_bits_of_an_action_within_the_box():
    """Within the Box the clip is ``x * (1 / sqrt(x * x + y * y))`` to the bit, as before overflow was handled."""
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(-1, 1, 1000), rng.uniform(-1, 1, 1000)
    squared = xs * xs + ys * ys
    scale = np.where(squared > 1.0, 1.0 / np.sqrt(np.maximum(squared, 1.0)), 1.0)
    vx, vy = clip_to_unit(NUMPY, xs, ys)
    assert np.array_equal(vx, xs * scale) and np.array_equal(vy, ys * scale)
    assert [clip_to_unit(SCALAR, x, y) for x, y in zip(xs.tolist(), ys.tolist())] == list(
        zip((xs * scale).tolist(), (ys * scale).tolist())
    )


def _shell(backend: str, env_id: str):
    """A fresh env and ``step(action) -> (worker before, worker after or None at an end, reward, obs)``, dtype."""
    if backend in ("numpy", "numpy-vector"):
        env = gymnasium.make(env_id) if backend == "numpy" else gymnasium.make_vec(env_id, num_envs=1)
        dtype = np.float64
    else:
        pytest.importorskip("jax")
        import gym_suite.jax as gj

        name = f"{gj.NAMESPACE}/{env_id}"
        env = gymnasium.make(name) if backend == "jax" else gymnasium.make_vec(name, num_envs=1)
        dtype = np.float32
    if backend == "gymnax":  # gym_suite.jax.make's env, its step jitted
        import jax

        genv, params = gj.make(env_id)
        jstep = jax.jit(genv.step)
        keys = iter(jax.random.split(jax.random.key(0), 10_000))
        state = [genv.reset(next(keys), params)]

        def gymnax_step(action):
            before, current = state[0]
            with np.errstate(over="ignore"):  # what jit does to a float64 action in 32-bit mode, without the warning
                action = np.asarray(action, np.float64).astype(np.float32)
            out, new, reward, terminated, truncated, _ = jstep(next(keys), current, action, params)
            state[0] = (out, new)  # after an end, gymnax's autoreset: out is the next episode's start
            after = np.asarray(out, np.float64)
            ended = bool(terminated or truncated)
            return np.asarray(before, np.float64)[:2], None if ended else after[:2], float(reward), after

        return gymnax_step, np.float32
    vector = backend.endswith("vector")
    obs = [np.asarray(env.reset(seed=0)[0], np.float64).reshape(-1)]

    def step(action):
        a = np.asarray([action] if vector else action)
        out, reward, terminated, truncated, _ = env.step(a)
        before, after = obs[0][:2], np.asarray(out, np.float64).reshape(-1)
        ended = bool(np.any(terminated) or np.any(truncated))
        obs[0] = np.asarray(env.reset()[0], np.float64).reshape(-1) if ended else after
        return before, None if ended and vector else after[:2], float(np.asarray(reward).reshape(-1)[0]), after

    return step, dtype


_SHELLS: dict = {}


@pytest.mark.parametrize("env_id", ["target-v0", ENV_ID])
@pytest.mark.parametrize("backend", ["numpy", "numpy-vector", "jax", "jax-vector", "gymnax"])
@settings(max_examples=15, deadline=None)
@given(x=st.one_of(COMPONENT, LONG), y=st.one_of(COMPONENT, LONG))
def test_long_actions_move_the_worker_as_far_as_allowed_on_every_backend(backend, env_id, x, y):
    """v1 moves by the action scaled to length <= 1, v0 jumps to its point, clipped to the field; no NaN."""
    if (backend, env_id) not in _SHELLS:
        _SHELLS[backend, env_id] = _shell(backend, env_id)
    step, dtype = _SHELLS[backend, env_id]
    before, after, reward, observation = step([x, y])
    assert np.isfinite(observation).all() and math.isfinite(reward), (x, y, observation, reward)
    size = 50.0
    if env_id == ENV_ID:
        vx, vy = expected_velocity(x, y, dtype)
        expected = np.clip(before + [vx, vy], 0.0, size)
        assert reward == -1.0
    else:
        with np.errstate(over="ignore"):
            point = np.asarray([x, y], np.float64).astype(dtype).astype(np.float64)
        expected = np.clip(point, 0.0, size)
        assert reward in (-1.0, 1.0)
    if after is not None:  # None: the episode ended, the observation is the next one's
        np.testing.assert_allclose(after, expected, rtol=0, atol=3e-5)
