"""``target-v0``: move a worker point onto a target point in a square field."""

from __future__ import annotations

import math
import os

import numpy as np
from gymnasium import spaces
from gymnasium.error import DependencyNotInstalled

from gym_suite.envs._base import (
    ARRAY_OPS,
    SCALAR_OPS,
    SuiteEnv,
    SuiteVectorEnv,
    as_batch,
    check_int,
    check_number,
    shown,
)

FIELD_SIZE = 50  # side of the square field, in field units
DISC_RADIUS = 6  # radius of the worker's and of the target's disc, in field units
REWARD_HIT = 1.0  # the worker's disc touches the target's
REWARD_MISS = -1.0  # any other step
MAX_EPISODE_STEPS = 1000  # registered with the spec: gymnasium.make's TimeLimit
PIXELS_PER_UNIT = 8  # rgb_array/human: 50 units -> 400 x 400 pixels
# At most this share of the field may lie within a hit of the target, so that a random start
# that misses it is found in a few draws (see draw_start).
MAX_HIT_SHARE_OF_FIELD = 0.5

BACKGROUND_RGB = (245, 245, 245)
WORKER_RGB = (40, 90, 230)  # blue
TARGET_RGB = (220, 40, 40)  # red
OVERLAP_RGB = tuple((w + t) // 2 for w, t in zip(WORKER_RGB, TARGET_RGB))  # purple
INSTALL_RENDER_EXTRA = 'pip install "gym-suite[render]"'


# --------------------------------------------------------------------------------------------
# The rules (one copy, for Python floats and for numpy arrays)
# --------------------------------------------------------------------------------------------


def centre_distance(ax, ay, bx, by, ops):
    """Euclidean distance between the points ``(ax, ay)`` and ``(bx, by)``."""
    dx = ax - bx
    dy = ay - by
    return ops.sqrt(dx * dx + dy * dy)


def discs_touch(distance, radius):
    """Two discs of radius ``radius`` overlap or touch iff their centres are at most
    ``2 * radius`` apart (the sum of the radii)."""
    return distance <= 2.0 * radius


def target_rules(action_x, action_y, target_x, target_y, size, radius, ops):
    """One step, for floats or arrays: ``(worker_x, worker_y, clipped, distance, hit, reward)``.

    The worker jumps to the action's point, clipped to the field ``[0, size]`` on each axis (as
    Gymnasium's continuous-control envs clip: ``Pendulum-v1`` with ``np.clip``,
    ``MountainCarContinuous-v0`` with ``min(max(...))``).
    """
    worker_x = ops.minimum(ops.maximum(action_x, 0.0), size)
    worker_y = ops.minimum(ops.maximum(action_y, 0.0), size)
    clipped = (worker_x != action_x) | (worker_y != action_y)
    distance = centre_distance(worker_x, worker_y, target_x, target_y, ops)
    hit = discs_touch(distance, radius)
    reward = REWARD_MISS + (REWARD_HIT - REWARD_MISS) * hit
    return worker_x, worker_y, clipped, distance, hit, reward


def draw_start(rng: np.random.Generator, n: int, size: float, radius: float, target=None) -> np.ndarray:
    """``n`` starting states, an ``(n, 4)`` float64 array of rows ``(worker x, worker y, target x, target y)``.

    The target is uniform on ``[radius, size - radius]**2`` (``target=None``) or ``target``. The
    worker is uniform on the points of the field ``[0, size]**2`` that do not hit the target:
    the rows whose worker hits are redrawn, only those, until none does. At most
    ``MAX_HIT_SHARE_OF_FIELD`` (half) of the field hits any target (the constructor enforces it),
    so a row needs more than ``k`` draws with probability at most ``2**-k``.
    """
    uniforms = rng.random((n, 4))  # on [0, 1): worker x, worker y, target x, target y
    start = np.empty((n, 4))
    start[:, :2] = size * uniforms[:, :2]
    if target is None:
        start[:, 2:] = radius + (size - 2.0 * radius) * uniforms[:, 2:]
    else:
        start[:, 2:] = target
    bad = _start_hits(start, radius)
    while bad.any():  # ends with probability 1, after at most 2 draws per row on average
        rows = np.flatnonzero(bad)
        start[rows, :2] = size * rng.random((rows.size, 2))
        bad[rows] = _start_hits(start[rows], radius)
    return start


def _start_hits(start: np.ndarray, radius: float) -> np.ndarray:
    distance = centre_distance(start[:, 0], start[:, 1], start[:, 2], start[:, 3], ARRAY_OPS)
    return discs_touch(distance, radius)


# --------------------------------------------------------------------------------------------
# Input checks
# --------------------------------------------------------------------------------------------


def _action_kind_error(action):
    return TypeError(
        f"invalid action {shown(action)} of type {type(action).__name__}: expected a point (x, y), "
        "a float array of shape (2,) or a sequence of 2 numbers"
    )


def check_point_action(action) -> tuple[float, float]:
    """The action as two Python floats, or ``ValueError`` (shape, NaN, inf) / ``TypeError`` (kind)."""
    if action.__class__ is np.ndarray and action.shape == (2,) and action.dtype.kind == "f":  # fast path
        x, y = action.tolist()
    else:
        try:
            arr = np.asarray(action)
        except (ValueError, TypeError):  # a ragged sequence
            raise ValueError(f"invalid action {shown(action)}: expected shape (2,), a point (x, y)") from None
        if arr.dtype.kind not in "fiu":
            raise _action_kind_error(action)
        if arr.shape != (2,):
            raise ValueError(f"invalid action of shape {arr.shape}: expected shape (2,), a point (x, y); got {shown(action)}")
        x, y = arr.astype(np.float64).tolist()
    if math.isfinite(x) and math.isfinite(y):
        return x, y
    raise ValueError(f"invalid action {shown(action)}: both coordinates must be finite (no NaN or infinity)")


def check_point_actions(actions, num_envs: int) -> np.ndarray:
    """A batch of ``num_envs`` points as a fresh float64 array of shape ``(num_envs, 2)``."""
    arr = as_batch(actions, num_envs, (2,), "fiu", "a float array of points (x, y)").astype(np.float64)
    finite = np.isfinite(arr).all(axis=1)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise ValueError(
            f"invalid action {arr[bad].tolist()} for sub-environment {bad}: "
            "both coordinates must be finite (no NaN or infinity)"
        )
    return arr


def check_geometry(owner: str, size, radius, target, pixels_per_unit):
    """Validated ``(size, radius, target, pixels_per_unit)`` (size as float, target a tuple or None)."""
    size = float(check_int(owner, "size", size, 1))
    radius = check_number(owner, "radius", radius, 0.0)
    if radius == 0.0:
        raise ValueError(f"{owner}: radius must be > 0, got {radius!r}")
    largest = size * math.sqrt(MAX_HIT_SHARE_OF_FIELD / (4.0 * math.pi))  # pi * (2 r)**2 <= share * size**2
    # size / sqrt(8 * pi) itself, computed another way, may come out an ulp above `largest`
    if radius > largest * (1.0 + 1e-12):
        raise ValueError(
            f"{owner}: radius={radius!r} is too large for size={size:g}: the starts that miss the target "
            f"must cover at least half of the field, which needs radius <= size / sqrt(8 * pi) = {largest!r}"
        )
    if target is not None:
        if not isinstance(target, (tuple, list, np.ndarray)) or len(target) != 2:
            raise TypeError(f"{owner}: target must be None or a point (x, y) as a tuple, list or array, got {shown(target)}")
        target = tuple(check_number(owner, f"target[{i}]", v, radius, size - radius) for i, v in enumerate(target))
    pixels_per_unit = check_int(owner, "pixels_per_unit", pixels_per_unit, 1)
    return size, radius, target, pixels_per_unit


# --------------------------------------------------------------------------------------------
# Pictures
# --------------------------------------------------------------------------------------------


def pixel_grid(size: float, pixels_per_unit: int):
    """Field coordinates of the pixel centres: a ``(1, W)`` row of x and a ``(H, 1)`` column of y."""
    n = int(size) * pixels_per_unit
    centres = (np.arange(n) + 0.5) / pixels_per_unit
    return centres[None, :], centres[:, None]


def rgb_frame(worker_x, worker_y, target_x, target_y, radius, grid) -> np.ndarray:
    """An ``H x W x 3`` uint8 picture: x to the right, y downward (screen coordinates)."""
    xs, ys = grid
    frame = np.empty((ys.shape[0], xs.shape[1], 3), dtype=np.uint8)
    frame[:] = BACKGROUND_RGB
    r2 = radius * radius
    in_worker = (xs - worker_x) ** 2 + (ys - worker_y) ** 2 <= r2
    in_target = (xs - target_x) ** 2 + (ys - target_y) ** 2 <= r2
    frame[in_target] = TARGET_RGB
    frame[in_worker] = WORKER_RGB
    frame[in_worker & in_target] = OVERLAP_RGB
    return frame


def ansi_line(worker_x, worker_y, target_x, target_y, radius, reward=None) -> str:
    distance = centre_distance(worker_x, worker_y, target_x, target_y, SCALAR_OPS)
    state = "hit" if discs_touch(distance, radius) else "miss"
    last = "" if reward is None else f"  reward {reward:+g}"
    return (
        f"worker ({worker_x:.3f}, {worker_y:.3f})  target ({target_x:.3f}, {target_y:.3f})  "
        f"distance {distance:.3f} ({state}){last}"
    )


# --------------------------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------------------------


class TargetEnv(SuiteEnv):
    """
    ## Description

    A pointing (or calibration) task from a Gymnasium + Ray + pygame custom-environment
    tutorial: a blue worker disc and a red target disc lie in a ``size x size`` field, and each
    action places the worker somewhere in the field. The episode ends when the worker's disc
    touches the target's. Unlike the tutorial, the worker sees itself as well as the target,
    the hit is a circle test rather than a test of shifted rectangles, and the worker never
    starts on the target, so the task is learnable (and solved in one step by looking).

    ## Action Space

    `Box(0, size, (2,), float32)`: the point ``(x, y)`` the worker moves to. A finite point
    outside the field is clipped to it, coordinate by coordinate, and ``info["clipped"]`` is
    then ``True``. A NaN or infinite coordinate, or an action that is not of shape ``(2,)``,
    raises ``ValueError``; a non-numeric one ``TypeError``. Numpy arrays and sequences of two
    numbers are accepted.

    ## Observation Space

    `Box(0, size, (4,), float32)`:

    | Num | Observation | Min | Max |
    |-----|-------------|-----|-----|
    | 0 | worker x | 0 | size |
    | 1 | worker y | 0 | size |
    | 2 | target x | radius | size - radius |
    | 3 | target y | radius | size - radius |

    Positions are kept in float64 and observed rounded to float32.

    ## Rewards

    +1 for a hit (the centres are at most ``2 * radius`` apart, i.e. the discs touch), -1 for a
    miss.

    ## Starting State

    The target is uniform on ``[radius, size - radius]**2`` (inside the field), unless the
    ``target`` argument fixes it. The worker is uniform on the points of the field
    ``[0, size]**2`` farther than ``2 * radius`` from the target (drawn uniformly, redrawn while
    it would hit). ``radius <= size / sqrt(8 * pi)`` is required so that those points are at
    least half of the field.

    ## Episode End

    1. Termination: a hit.
    2. Truncation: 1000 steps, registered with the spec (``gymnasium.make`` adds ``TimeLimit``;
       ``gymnasium.make(..., max_episode_steps=N)`` changes it, ``-1`` removes it).

    A ``step`` after termination raises ``gymnasium.error.ResetNeeded``.

    ``info`` holds ``distance``, the distance between the centres, and ``clipped``, whether
    the action was clipped to the field (``False`` after ``reset``), in a fresh dict after
    ``reset`` and every step.

    ## Arguments

    | Argument | Default | Meaning |
    |---|---|---|
    | `size` | 50 | side of the square field (an integer) |
    | `radius` | 6 | radius of both discs, at most `size / sqrt(8 * pi)` |
    | `target` | None | a fixed target `(x, y)` in `[radius, size - radius]`, or None for a random one |
    | `pixels_per_unit` | 8 | pixels per field unit of `rgb_array`/`human` pictures (400 x 400 by default) |
    | `render_mode` | None | `"ansi"` (coordinates and distance), `"human"` (a pygame window, needs `gym-suite[render]`) or `"rgb_array"` |

    Pictures use screen coordinates: x grows to the right, y downward.

    ```python
    >>> import gymnasium as gym
    >>> env = gym.make("gym_suite:target-v0", target=(25, 25))
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(obs[2:])
    >>> reward, terminated
    (1.0, True)

    ```

    ## Version History

    * v0: first release.
    """


    def __init__(
        self,
        *,
        size: int = FIELD_SIZE,
        radius: float = DISC_RADIUS,
        target: tuple[float, float] | None = None,
        pixels_per_unit: int = PIXELS_PER_UNIT,
        render_mode: str | None = None,
    ):
        self._set_render_mode(render_mode)
        self.size, self.radius, self.target, self.pixels_per_unit = check_geometry(
            type(self).__name__, size, radius, target, pixels_per_unit
        )
        self.action_space = spaces.Box(0.0, self.size, shape=(2,), dtype=np.float32)
        self.observation_space = spaces.Box(0.0, self.size, shape=(4,), dtype=np.float32)
        self.worker_x = self.worker_y = 0.0
        self.target_x, self.target_y = self.target or (self.size / 2, self.size / 2)
        self.last_reward = None
        self._grid = None  # pixel centres, made on the first picture
        self._window = None
        self._clock = None

    def _start(self):
        start = draw_start(self.np_random, 1, self.size, self.radius, self.target)
        self.worker_x, self.worker_y, self.target_x, self.target_y = start[0].tolist()
        self.last_reward = None

    def _check_action(self, action):
        return check_point_action(action)

    def _advance(self, action):
        x, y = action
        self.worker_x, self.worker_y, clipped, distance, hit, reward = target_rules(
            x, y, self.target_x, self.target_y, self.size, self.radius, SCALAR_OPS
        )
        self.last_reward = reward
        return reward, hit, False, {"distance": distance, "clipped": clipped}

    def _observe(self) -> np.ndarray:
        return np.array((self.worker_x, self.worker_y, self.target_x, self.target_y), dtype=np.float32)

    def _start_info(self):
        distance = centre_distance(self.worker_x, self.worker_y, self.target_x, self.target_y, SCALAR_OPS)
        return {"distance": distance, "clipped": False}

    def render(self):
        if self.render_mode == "ansi":
            return ansi_line(self.worker_x, self.worker_y, self.target_x, self.target_y, self.radius, self.last_reward) + "\n"
        if self.render_mode not in ("rgb_array", "human"):
            return None
        if self._grid is None:
            self._grid = pixel_grid(self.size, self.pixels_per_unit)
        frame = rgb_frame(self.worker_x, self.worker_y, self.target_x, self.target_y, self.radius, self._grid)
        if self.render_mode == "rgb_array":
            return frame
        self._show(frame)
        return None

    def _show(self, frame: np.ndarray) -> None:
        try:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            import pygame
        except ImportError as exc:
            raise DependencyNotInstalled(
                f"pygame is not installed; render_mode='human' needs it: {INSTALL_RENDER_EXTRA}"
            ) from exc
        if self._window is None:
            pygame.display.init()
            pygame.display.set_caption("gym-suite target-v0")
            self._window = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
            self._clock = pygame.time.Clock()
        pygame.surfarray.blit_array(self._window, frame.swapaxes(0, 1))  # pygame indexes (x, y)
        pygame.event.pump()
        pygame.display.flip()
        self._clock.tick(self.metadata["render_fps"])

    def close(self):
        if self._window is not None:
            import pygame

            pygame.display.quit()
            self._window = None
            self._clock = None

    def heuristic(self, observation) -> np.ndarray:
        """Move to the observed target: a hit in one step."""
        return np.array(observation[2:4], dtype=np.float32)


class TargetVectorEnv(SuiteVectorEnv):
    """``num_envs`` target fields in numpy arrays, with the rules of :class:`TargetEnv`.

    Actions are a float array of shape ``(num_envs, 2)``; ``info`` holds the arrays
    ``distance`` and ``clipped``. A row that starts afresh (next-step autoreset) reports the
    distance of its new start and ``clipped`` ``False``, as after ``reset``.
    """

    scalar_env = TargetEnv

    def _setup(self):
        single = self.single_env
        self.size, self.radius, self.target, self.pixels_per_unit = (
            single.size, single.radius, single.target, single.pixels_per_unit
        )
        self.state = np.zeros((self.num_envs, 4), dtype=np.float64)  # worker x, worker y, target x, target y
        self._grid = None

    def _start(self, rows):
        self.state[rows] = draw_start(self.np_random, int(rows.sum()), self.size, self.radius, self.target)

    def _check_actions(self, actions):
        return check_point_actions(actions, self.num_envs)

    def _advance(self, actions, active):
        state = self.state
        state[:, 0], state[:, 1], clipped, distance, hit, reward = target_rules(
            actions[:, 0], actions[:, 1], state[:, 2], state[:, 3], self.size, self.radius, ARRAY_OPS
        )
        return reward, hit, np.zeros(self.num_envs, dtype=bool), {"distance": distance, "clipped": clipped}

    def _observe(self):
        return self.state.astype(np.float32)

    def _start_info(self):
        return {"distance": centre_distance(*self.state.T, ARRAY_OPS), "clipped": np.zeros(self.num_envs, dtype=bool)}

    def render(self):
        if self.render_mode == "rgb_array":
            if self._grid is None:
                self._grid = pixel_grid(self.size, self.pixels_per_unit)
            return tuple(rgb_frame(*row, self.radius, self._grid) for row in self.state.tolist())
        if self.render_mode == "ansi":
            return "".join(ansi_line(*row, self.radius) + "\n" for row in self.state.tolist())
        return None
