"""Behaviour of target-v0: the hit test, clipping, starts, pictures and the native vector env."""

from __future__ import annotations

import math
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.error import DependencyNotInstalled

import gym_suite
from gym_suite.envs import TargetEnv, TargetVectorEnv
from gym_suite.envs.definition import SCALAR, draws_at_start
from gym_suite.envs.target_env import DEFAULTS, START_CANDIDATES, TARGET, TARGET_RGB, WORKER_RGB, draw_start

ENV_ID = "target-v0"


@pytest.mark.parametrize(
    "radius, target, legs",  # legs**2 sum to (2 radius)**2 exactly
    [(6, (25.0, 25.0), (-12.0, 0.0)), (2.5, (10.0, 40.0), (3.0, 4.0)), (6.5, (30.0, 20.0), (-5.0, -12.0))],
)
def test_hit_exactly_at_twice_the_radius_and_miss_just_beyond(radius, target, legs):
    env = TargetEnv(radius=radius, target=target)
    tx, ty = target
    contact = 2 * radius  # just beyond: 1e-12 relative
    for point, expect_hit in [
        ((tx + contact, ty), True),
        ((tx, ty - contact), True),
        ((tx + contact * (1 + 1e-12), ty), False),
        ((tx, ty - contact * (1 + 1e-12)), False),
        ((tx + legs[0], ty + legs[1]), True),
        ((tx + legs[0] * (1 + 1e-12), ty + legs[1] * (1 + 1e-12)), False),
        ((tx + 0.92 * contact, ty + 0.92 * contact), False),  # a circle test, not a rectangle test
    ]:
        env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step(list(point))
        assert terminated is expect_hit and truncated is False
        assert reward == (1.0 if expect_hit else -1.0)
        assert info["distance"] == pytest.approx(math.dist(point, target), abs=1e-12)
        assert (info["distance"] <= contact) is expect_hit
        np.testing.assert_allclose(obs, [*point, tx, ty], rtol=1e-6)


def test_clipping_to_the_field_is_reported():
    env = TargetEnv(target=(25.0, 25.0))
    env.reset(seed=0)
    for action, expected in [((-10.0, 80.0), (0.0, 50.0)), ((1e30, -1e-9), (50.0, 0.0)), ((-3, 2), (0.0, 2.0))]:
        obs, reward, terminated, _, info = env.step(action)
        assert info["clipped"] is True
        assert tuple(obs[:2]) == expected
        assert env.observation_space.contains(obs)
        assert info["distance"] == pytest.approx(math.dist(expected, (25, 25)))
    for action in [(0.0, 50.0), np.array([50.0, 0.0], dtype=np.float32), (3, 4)]:
        obs, _, _, _, info = env.step(action)
        assert info["clipped"] is False
        assert tuple(obs[:2]) == tuple(float(a) for a in action)


NON_NUMERIC = ["ab", [None, 1.0], np.array([True, False]), {"x": 1}]
NOT_FINITE = [np.array([np.nan, 1.0], dtype=np.float32), np.array([1.0, np.inf]), [-math.inf, 3.0]]
MISSHAPEN = [np.zeros(3, dtype=np.float32), np.zeros((1, 2), dtype=np.float32), [1.0], 5.0, [1.0, [2.0, 3.0]]]


@pytest.mark.parametrize(
    "action, error, message",
    [(a, ValueError, r"finite|shape \(2,\)") for a in NOT_FINITE + MISSHAPEN]
    + [(a, TypeError, r"expected a float array of shape \(2,\)") for a in NON_NUMERIC],
)
def test_bad_actions_are_refused_with_the_expected_shape(action, error, message):
    env = TargetEnv()
    env.reset(seed=0)
    with pytest.raises(error, match=message):
        env.step(action)


def test_vector_clipping_info_and_bad_actions():
    env = TargetVectorEnv(2, target=(25, 25))
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(np.array([[-5.0, 60.0], [30.0, 20.0]]))
    np.testing.assert_array_equal(info["clipped"], [True, False])
    np.testing.assert_array_equal(obs[:, :2], [[0.0, 50.0], [30.0, 20.0]])
    np.testing.assert_allclose(info["distance"], [math.dist((0, 50), (25, 25)), math.dist((30, 20), (25, 25))])
    assert terminated.tolist() == [False, True] and reward.tolist() == [-1.0, 1.0]
    env.reset(seed=0)
    with pytest.raises(ValueError, match="sub-environment 1"):
        env.step(np.array([[1.0, 1.0], [np.nan, 1.0]], dtype=np.float32))
    with pytest.raises(TypeError):
        env.step(np.array([["a", "b"]] * 2))


def test_target_argument_fixes_the_target():
    env = TargetEnv(target=(10, 40.5))
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        assert tuple(obs[2:]) == (10.0, 40.5)
    env = TargetEnv({"target": [6, 44], "size": 50})  # env_config, as RLlib passes it
    assert tuple(env.reset(seed=0)[0][2:]) == (6.0, 44.0)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"target": (5.9, 25)}, ValueError),
        ({"target": (25, 44.1)}, ValueError),
        ({"target": (25, math.nan)}, ValueError),
        ({"target": (1, 2, 3)}, TypeError),
        ({"target": "ab"}, TypeError),
        ({"target": 25}, TypeError),
        ({"radius": 0}, ValueError),
        ({"radius": -1}, ValueError),
        ({"radius": 10.0}, ValueError),  # more than half of the field would hit a central target
        ({"size": 20}, ValueError),  # with the default radius 6
        ({"size": 50.5}, TypeError),
        ({"pixels_per_unit": 0}, ValueError),
        ({"colour": "red"}, TypeError),
        # fields the float32 observation cannot hold: an integer side it cannot hold, rounding above the radius
        ({"size": 2**24 + 1, "radius": 10**6}, ValueError),
        ({"size": 10**6, "radius": 0.01}, ValueError),
        ({"size": 50, "radius": 1e-9}, ValueError),
        # a picture over 4096 pixels a side
        ({"pixels_per_unit": 10**6, "render_mode": "rgb_array"}, ValueError),
        ({"size": 600, "radius": 6, "pixels_per_unit": 7, "render_mode": "rgb_array"}, ValueError),
        # a target that is not a point
        *(({"target": t}, TypeError) for t in (np.array(25.0), np.array([[25.0, 25.0]]), np.zeros(3), {30.0, 20.0})),
    ],
)
def test_invalid_arguments_are_refused_naming_them(kwargs, error):
    named = "size" if "size" in kwargs else next(iter(kwargs))
    for make in (TargetEnv, lambda **kw: TargetVectorEnv(2, **kw), lambda **kw: gymnasium.make(ENV_ID, **kw)):
        with pytest.raises(error, match=named):
            make(**kwargs)


LARGEST_RADIUS = 50 / math.sqrt(8 * math.pi) * (1 - 1e-9)  # accepted: half of the field hits a central target


@pytest.mark.parametrize("radius, target", [(6, None), (9, None), (LARGEST_RADIUS, (25, 25))])  # 9: up to 41% hits
def test_worker_never_starts_on_the_target(radius, target):
    env = TargetVectorEnv(4096, radius=radius, target=target)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        assert np.hypot(obs[:, 0] - obs[:, 2], obs[:, 1] - obs[:, 3]).min() > 2 * radius
        assert env.observation_space.contains(obs) and not info["clipped"].any()
        assert obs[:, 2:].min() >= radius and obs[:, 2:].max() <= 50 - radius


def test_start_is_uniform_outside_the_hit_disc():
    n, radius, ring = 200_000, 6.0, 20.0
    start = draw_start(np.random.default_rng(0), n, 50.0, radius, (25.0, 25.0))
    distance = np.hypot(start[:, 0] - 25, start[:, 1] - 25)
    free_area = 50.0**2 - math.pi * (2 * radius) ** 2
    expected = math.pi * (ring**2 - (2 * radius) ** 2) / free_area
    share = np.mean(distance <= ring)
    assert abs(share - expected) < 5 * math.sqrt(expected * (1 - expected) / n)
    assert distance.min() > 2 * radius
    # the starts with 2 r < distance <= 20 are an area ratio, the four quadrants equally likely
    quadrant = (start[:, 0] > 25) * 2 + (start[:, 1] > 25)
    counts = np.bincount(quadrant, minlength=4)
    assert np.all(np.abs(counts / n - 0.25) < 5 * math.sqrt(0.25 * 0.75 / n))


def test_random_target_is_uniform_inside_the_margin():
    n = 100_000
    start = draw_start(np.random.default_rng(1), n, 50.0, 6.0)
    target = start[:, 2:]
    assert target.min() >= 6 and target.max() <= 44
    sd = 38 / math.sqrt(12)  # uniform on [6, 44]
    np.testing.assert_allclose(target.mean(axis=0), 25, atol=5 * sd / math.sqrt(n))
    np.testing.assert_allclose(target.std(axis=0), sd, rtol=0.01)


@pytest.mark.parametrize("kwargs", [{}, {"radius": 0.25}, {"size": 200, "radius": 1}])
def test_oracle_hits_in_one_step(kwargs):
    result = gym_suite.evaluate(ENV_ID, policy="heuristic", episodes=50, env_kwargs=kwargs)
    assert (result.returns == 1.0).all() and (result.lengths == 1).all()


def _colour_at(frame, x, y, pixels_per_unit):
    return tuple(int(c) for c in frame[int(y * pixels_per_unit), int(x * pixels_per_unit)])


def test_rgb_array_draws_blue_worker_and_red_target():
    env = gymnasium.make(ENV_ID, render_mode="rgb_array", target=(10, 12))
    env.reset(seed=0)
    env.step([40.0, 30.0])
    frame = env.render()
    assert frame.shape == (400, 400, 3) and frame.dtype == np.uint8
    inside = {(40, 30): WORKER_RGB, (45.5, 30): WORKER_RGB, (10, 12): TARGET_RGB, (10, 17.5): TARGET_RGB}  # y: down
    assert [_colour_at(frame, x, y, 8) for x, y in inside] == list(inside.values())
    assert not {_colour_at(frame, x, y, 8) for x, y in [(16.5, 12), (48, 2)]} & {WORKER_RGB, TARGET_RGB}
    disc_pixels = math.pi * (6 * 8) ** 2
    for colour in (WORKER_RGB, TARGET_RGB):
        count = np.all(frame == colour, axis=-1).sum()
        assert abs(count - disc_pixels) < 0.02 * disc_pixels


def test_rgb_array_size_follows_pixels_per_unit_and_overlap_is_visible():
    env = TargetEnv(render_mode="rgb_array", size=30, radius=3, pixels_per_unit=3, target=(15, 15))
    env.reset(seed=0)
    assert env.render().shape == (90, 90, 3)
    env.step([15, 15])
    centre = _colour_at(env.render(), 15, 15, 3)
    assert centre not in (WORKER_RGB, TARGET_RGB)  # blended: both discs are there
    assert centre[2] > centre[1] and centre[0] > centre[1]
    frames = TargetVectorEnv(3, render_mode="rgb_array", pixels_per_unit=2)
    ansi = TargetVectorEnv(3, render_mode="ansi")
    frames.reset(seed=0)
    ansi.reset(seed=0)
    assert [f.shape for f in frames.render()] == [(100, 100, 3)] * 3 and ansi.render().count("\n") == 3


def test_ansi_shows_coordinates_and_distance():
    env = gymnasium.make(ENV_ID, render_mode="ansi", target=(25, 25))
    env.reset(seed=0)
    env.step([30.5, 40.25])
    text = env.render()
    for part in ("30.500", "40.250", "25.000", f"{math.dist((30.5, 40.25), (25, 25)):.3f}", "miss", "-1"):
        assert part in text


def test_no_pygame_needed_until_human_render(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygame", None)  # `import pygame` now raises ImportError
    env = TargetEnv(render_mode="human")  # no window, no import in the constructor
    with pytest.raises(DependencyNotInstalled, match=r'pip install "gym-suite\[render\]"'):
        env.reset(seed=0)
    frame_env = TargetEnv(render_mode="rgb_array")  # the other modes need no pygame
    frame_env.reset(seed=0)
    assert frame_env.render().shape == (400, 400, 3)


def test_human_render_opens_a_pygame_window(monkeypatch):
    pygame = pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = TargetEnv(render_mode="human", target=(10, 10))
    env.reset(seed=0)
    env.step([40.0, 30.0])
    surface = pygame.display.get_surface()
    assert surface.get_size() == (400, 400)
    assert tuple(surface.get_at((40 * 8, 30 * 8)))[:3] == WORKER_RGB
    assert tuple(surface.get_at((10 * 8, 10 * 8)))[:3] == TARGET_RGB
    env.close()
    assert not pygame.display.get_init()


def test_at_the_size_bound_the_observed_target_always_hits():
    # size radius * 2**24 (the largest): float32 steps of 2**-4 above 2**19, 2**19 + 2**-5 rounds worst
    radius, size = 2.0**-4, 2**20
    worst = 2.0**19 + 2.0**-5
    for target in [(worst, worst), (worst + 2.0**-4, size - 1.5), (size - radius, size - radius)]:
        env = TargetEnv(size=size, radius=radius, target=target)
        obs, _ = env.reset(seed=0)
        assert np.abs(obs[2:4].astype(np.float64) - target).max() <= radius / 2
        _, reward, terminated, _, info = env.step(env.heuristic(obs))
        assert (reward, terminated) == (1.0, True) and info["distance"] < 2 * radius


def test_large_fields_get_a_4096_pixel_picture_by_default():
    assert TargetEnv(target=np.array([20.0, 30.0])).reset(seed=0)[0][2:].tolist() == [20.0, 30.0]  # an array target
    env = TargetEnv(render_mode="rgb_array", size=1000, radius=20, target=(500, 500))
    env.reset(seed=0)
    assert env.render().shape == (4096, 4096, 3)
    assert env.unwrapped.pixels_per_unit == pytest.approx(4.096)
    assert TargetEnv(size=512).pixels_per_unit == 8  # 4096 pixels: still the default 8
    assert TargetEnv(size=30, radius=3, pixels_per_unit=2.5, render_mode="rgb_array").reset(seed=0) is not None


def test_the_fallback_corner_is_the_farthest_from_the_target():
    for tx, ty, corner in [(10.0, 10.0, (50.0, 50.0)), (40.0, 10.0, (0.0, 50.0)), (44.0, 44.0, (0.0, 0.0))]:
        params = TARGET.make_params(DEFAULTS, "test", target=(tx, ty))
        u = [0.5, 0.5] + [tx / 50, ty / 50] * params.candidates  # every candidate on the target
        state = TARGET.initial(u, params, SCALAR)
        assert (state.worker_x, state.worker_y) == corner and state.distance > 2 * params.radius


@pytest.mark.parametrize("size", [1, 7, 50, 1000, 2**24])
def test_start_candidates_are_the_fewest_that_all_hit_with_probability_2_to_the_minus_48(size):
    """``q**k <= 2**-48 < q**(k-1)`` (``q``: the hit disc's share), 48 at the largest radius, 2 + 2k draws."""
    largest = size / math.sqrt(8 * math.pi)
    for radius in [largest, largest * 0.999, largest / 2, largest / 10, max(size / 2**24, largest / 1e5)]:
        params = TARGET.make_params(DEFAULTS, "test", size=size, radius=radius)
        k = params.candidates
        q = math.pi * (2 * radius) ** 2 / size**2
        assert 1 <= k <= START_CANDIDATES and q**k <= 2.0**-48 * (1 + 1e-9), (size, radius, k)
        assert k == 1 or q ** (k - 1) > 2.0**-48, (size, radius, k)
        assert draws_at_start(TARGET, params) == 2 + 2 * k
    assert TARGET.make_params(DEFAULTS, "test", size=size, radius=largest).candidates == START_CANDIDATES
    assert DEFAULTS.candidates == TARGET.make_params(DEFAULTS, "test").candidates == 20


def test_a_start_takes_its_candidates_draws_from_the_stream():
    """Successive resets (and the vector env's rows) are :func:`draw_start` on a generator of the same seed."""
    for kwargs in [{}, {"radius": 9.5}]:
        env = TargetEnv(**kwargs)
        env.reset(seed=5)
        size, radius = env.unwrapped.params.size, env.unwrapped.params.radius
        expected = draw_start(np.random.default_rng(5), 4, size, radius)
        got = [env.unwrapped.state[:4]]
        for _ in range(3):
            env.reset()
            got.append(env.unwrapped.state[:4])
        np.testing.assert_array_equal(np.array(got), expected)
        vector = TargetVectorEnv(4, **kwargs)
        vector.reset(seed=5)
        s = vector.state
        np.testing.assert_array_equal(np.stack([s.worker_x, s.worker_y, s.target_x, s.target_y], axis=1), expected)
