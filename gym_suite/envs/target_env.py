"""``target-v0``: move a worker point onto a target point in a square field.

## Description

A pointing task from a Gymnasium + Ray + pygame custom-environment tutorial: a blue worker disc
and a red target disc lie in a ``size x size`` field; each action places the worker somewhere in
it, and the episode ends when the discs touch. Unlike the tutorial, the worker sees itself too,
the hit is a circle test and the worker never starts on the target (solved in one step by looking).

## Action Space

`Box(0, size, (2,), float32)`: the point ``(x, y)`` the worker moves to (an array or two numbers).
A finite point outside the field is clipped to it on each axis (``info["clipped"]`` is then
``True``). A NaN or infinite coordinate or a shape other than ``(2,)`` raises ``ValueError``, a
non-numeric action ``TypeError``.

## Observation Space

`Box(0, size, (4,), float32)`:

| Num | Observation | Min | Max |
|-----|-------------|-----|-----|
| 0 | worker x | 0 | size |
| 1 | worker y | 0 | size |
| 2 | target x | radius | size - radius |
| 3 | target y | radius | size - radius |

Positions are kept in float64 and observed rounded to float32; ``size <= 2**24`` and ``size <=
radius * 2**24`` make moving to the observed target ``obs[2:4]`` always a hit.

## Rewards

+1 for a hit (the centres at most ``2 * radius`` apart), -1 for a miss.

## Starting State

The target is uniform on ``[radius, size - radius]**2`` unless the ``target`` argument fixes it.
The worker is uniform on the points of ``[0, size]**2`` farther than ``2 * radius`` from it: the
first of ``k`` uniform candidates that misses (``k`` = 20 by default: all hit with probability at
most ``2**-48``, and then the worker starts at the corner farthest from the target). A start takes
``2 + 2 * k`` uniforms of ``env.np_random`` (the target's two even when it is fixed); a step none.

## Episode End

1. Termination: a hit.
2. Truncation: 1000 steps, registered with the spec (``gymnasium.make`` adds ``TimeLimit``;
   ``gymnasium.make(..., max_episode_steps=N)`` changes it, ``-1`` removes it).

A ``step`` after termination raises ``gymnasium.error.ResetNeeded``.

``info`` holds ``distance`` between the centres and ``clipped`` (``False`` after ``reset``).
``heuristic`` moves to the observed target. The state is ``env.unwrapped.state`` (a
:class:`TargetState`) and ``env.unwrapped.np_random``: restoring both (and TimeLimit's step
count) replays the same future.

## Arguments

On JAX (``gym_suite.jax.make``) every argument stays static. Pictures use screen coordinates:
x grows to the right, y downward.

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
* v1 (``target-v1``, :class:`TargetV1Env`): a moving target to intercept, a steered worker.
* v0, before any release: one definition for Python numbers, numpy and JAX; the worker's start
  from a fixed number of candidates instead of redrawing (other starts for a seed, the same
  distribution but for the corner); fields float32 cannot hold, a ``target`` that is not a point
  and pictures over 4096 pixels a side refused at construction; ``pixels_per_unit`` any positive
  number, its default adapted to large fields.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from gymnasium import spaces

from gym_suite.envs._shells import SuiteEnv, SuiteVectorEnv
from gym_suite.envs.checks import Argument, ArgumentTypeError, check_arguments, check_number, shown
from gym_suite.envs.definition import NUMPY, SCALAR, Array, Definition, Ops, draws_at_start, state_maker

V1_MANUAL = """
## Description

``target-v1``: the blue worker must *intercept* the red target, as target-v0's tutorial says, and
here the target moves. It runs at constant speed (1.5 units a step) in a random start direction
and bounces off the walls; the worker steers, at most 1 unit a step. Chasing the target's current
position (pure pursuit, the heuristic) loses to it; a policy has to aim where the target will be.
The best possible play is computable (see Rewards). Unlike target-v0 (:class:`TargetEnv`) the
discs are small (radius 1.5: caught at 3 units between centres) and the episode pays -1 a step.

## Action Space

`Box(-1, 1, (2,), float32)`: the worker's velocity as a fraction of its top speed (1 unit a step).
An action longer than 1, however long (``(1e300, 0)`` moves 1 along x), is scaled down to length 1,
its direction kept, and ``info["clipped"]`` is then ``True`` (not within float32 rounding of 1).
The worker's centre stays in ``[0, size]**2`` (clipped on each axis). Bad actions raise as in
target-v0.

## Observation Space

`Box(6,)` of `float32`; the observation is the whole state, so the task is Markov:

| Num | Observation | Min | Max |
|-----|-------------|-----|-----|
| 0 | worker x | 0 | size |
| 1 | worker y | 0 | size |
| 2 | target x | 0 | size (in fact radius .. size - radius) |
| 3 | target y | 0 | size (in fact radius .. size - radius) |
| 4 | target velocity x | -target_speed | target_speed |
| 5 | target velocity y | -target_speed | target_speed |

The state is kept in float64 and observed rounded to float32.

## Rewards

-1 a step, the catching step included. The target's path is fixed at the start, so the best
return is computable (:mod:`gym_suite.references.target_optimum` and its ``OptimalPolicy``).

## Starting State

target-v0's start (``k = 8`` candidates by default), then the target's direction, uniform on the
circle: the first of 22 uniform points of ``[-1, 1]**2`` in the unit disc (else +x), scaled to
``target_speed``. A start takes ``2 + 2 * k + 44`` uniforms of ``env.np_random``; a step none.

## Episode End

1. Termination: the discs touch (the centres are at most ``2 * radius`` apart) after a step.
2. Truncation: 300 steps, registered with the spec (``gymnasium.make`` adds ``TimeLimit``;
   ``gymnasium.make(..., max_episode_steps=N)`` changes it, ``-1`` removes it).

A ``step`` after termination raises ``gymnasium.error.ResetNeeded``.

The target moves by its velocity; a coordinate that would cross a wall of ``[radius, size -
radius]`` is mirrored in it and that component turns around (in a corner both turn).

``info`` holds ``distance`` and ``clipped`` (the action was longer than 1). ``heuristic`` is pure
pursuit. The state is ``env.unwrapped.state`` (a :class:`TargetV1State`), replayed as target-v0's.

## Arguments

On JAX ``target_speed`` is data in ``params`` (``params.replace(target_speed=2.0)``, ``jax.vmap``
over params); ``size`` and ``radius`` shape the spaces and the start, so they stay static.

```python
>>> import gymnasium as gym
>>> env = gym.make("gym_suite:target-v1")
>>> obs, info = env.reset(seed=0)
>>> obs.shape, env.action_space
((6,), Box(-1.0, 1.0, (2,), float32))
>>> obs, reward, terminated, truncated, info = env.step(env.unwrapped.heuristic(obs))
>>> reward, terminated
(-1.0, False)

```

## Version History

* v1: a moving target and a steered worker (target-v0: a fixed target, the worker jumps to the
  action's point).
"""

if TYPE_CHECKING:
    import numpy.typing as npt

    #: ``pixel_grid``'s pixel centres: a ``(1, W)`` row of x and a ``(H, 1)`` column of y.
    Grid = tuple[npt.NDArray[np.floating[Any]], npt.NDArray[np.floating[Any]]]

FIELD_SIZE = 50  # side of the square field, in field units
DISC_RADIUS = 6  # radius of both discs, in field units
REWARD_HIT = 1.0
REWARD_MISS = -1.0
PIXELS_PER_UNIT = 8  # by default: 50 units -> 400 x 400 pixels
MAX_PICTURE_PIXELS = 4096  # the largest side of a picture
#: At most this share of the field lies within a hit of the target (a candidate start misses with
#: probability at least 1/2).
MAX_HIT_SHARE_OF_FIELD = 0.5
#: All the candidate starts of a reset hit the target with probability at most 2**-START_MISS_BITS.
START_MISS_BITS = 48
START_CANDIDATES = 48  # the most candidate starts a reset takes (each hits with probability 1/2)
#: float32's 24-bit significand: the largest side, and the largest size / radius (the observed
#: target is then within radius of the true one).
FLOAT32_SPAN = 2**24
MAX_FIELD_SIZE = FLOAT32_SPAN
NO_REWARD = math.nan  # the last reward after a start

BACKGROUND_RGB = (245, 245, 245)
WORKER_RGB = (40, 90, 230)  # blue
TARGET_RGB = (220, 40, 40)  # red
OVERLAP_RGB = tuple((w + t) // 2 for w, t in zip(WORKER_RGB, TARGET_RGB))  # purple


def start_candidates(size: float, radius: float) -> int:
    """Candidate starts per reset: the fewest ``k`` with ``q**k <= 2**-48``, ``q = pi * (2 *
    radius)**2 / size**2`` bounding the chance that a uniform point hits."""
    share = math.pi * (2.0 * radius) ** 2 / (float(size) * float(size))
    return max(1, min(START_CANDIDATES, math.ceil(START_MISS_BITS / -math.log2(share))))


@dataclass(frozen=True)
class TargetParams:
    """The field of a target-v0 environment (the arguments); ``make_params`` derives ``side``, the
    size as a float the rules compute with, and ``candidates``, :func:`start_candidates`."""

    size: int = FIELD_SIZE
    radius: float = float(DISC_RADIUS)
    target: tuple[float, float] | None = None
    pixels_per_unit: float | None = None
    side: float = float(FIELD_SIZE)
    candidates: int = start_candidates(FIELD_SIZE, DISC_RADIUS)


DEFAULTS = TargetParams()


class TargetState(NamedTuple):
    """The two centres, their distance, and the last step's reward (NaN after a start)."""

    worker_x: Any
    worker_y: Any
    target_x: Any
    target_y: Any
    distance: Any
    last_reward: Any


_new_state = state_maker(TargetState)


# -- Beyond Ops: the same values on every backend, each backend's fastest way


def first(ops: Ops, test: Callable[..., Any], candidates: Sequence[Any], default: Sequence[Any]) -> tuple[Any, ...]:
    """The first of the ``candidates`` (one sequence per quantity, arrays ``(candidates, ...)``)
    that passes the elementwise ``test(*quantities)``, else ``default`` (a value per quantity)."""
    name = ops.name
    if name == "scalar":
        for values in zip(*candidates):
            if test(*values):
                return values
        return tuple(default)
    if name == "numpy":
        return numpy_first(test, candidates, default)
    import jax.numpy as jnp  # JAX's own constants (a numpy one may not match its int type)

    return first_of_all(jnp, test, candidates, default)


def first_of_all(
    xp: ModuleType, test: Callable[..., Any], candidates: Sequence[Any], default: Sequence[Any]
) -> tuple[Any, ...]:
    """:func:`first` on the arrays of ``xp`` (``jax.numpy``, or numpy), every candidate tested at once."""
    columns = [xp.asarray(c) for c in candidates]
    passes = test(*columns)
    index = xp.arange(passes.shape[0]).reshape((-1,) + (1,) * (passes.ndim - 1))
    chosen = passes.argmax(axis=0) == index
    found = passes.any(axis=0)
    # (c * chosen).sum() is c's chosen value exactly: the other terms are +0.0
    return tuple(xp.where(found, (c * chosen).sum(axis=0), d) for c, d in zip(columns, default))


#: Over FIRST_BLOCK_ROWS rows numpy tests FIRST_BLOCK candidates, then the rest; below, one at a time.
FIRST_BLOCK, FIRST_BLOCK_ROWS = 4, 256


def numpy_first(test: Callable[..., Any], candidates: Sequence[Any], default: Sequence[Any]) -> tuple[Any, ...]:
    """:func:`first_of_all`'s choice on numpy, without testing candidates no row needs."""
    columns = [np.asarray(c) for c in candidates]
    total = columns[0].shape[0]
    if total == 0:  # no candidates: the default
        return tuple(np.array(d, dtype=np.float64) for d in default)
    rows = max(c[0].size for c in columns)
    if rows > FIRST_BLOCK_ROWS:
        blocks = [(0, min(FIRST_BLOCK, total)), (FIRST_BLOCK, total)]
    else:
        blocks = [(k, k + 1) for k in range(total)]
    chosen: list[Any] = []
    found: Any = None
    for start, stop in blocks:
        if start >= stop:
            break
        if stop - start == 1:  # one candidate
            values = [c[start] for c in columns]
            hit: Any = np.asarray(test(*values))
        else:
            block = [c[start:stop] for c in columns]
            passes = np.asarray(test(*block))
            hit = passes.any(axis=0)
            first = passes.argmax(axis=0) == np.arange(stop - start).reshape((-1,) + (1,) * (passes.ndim - 1))
            values = [(b * first).sum(axis=0) for b in block]
        if found is None:
            chosen = [np.where(hit, v, d) for v, d in zip(values, default)]  # fresh arrays
            found = np.array(hit, dtype=bool)
        else:
            new = hit & ~found
            for out, v in zip(chosen, values):
                np.copyto(out, v, where=new)
            found |= new
        if found.all():
            break
    return tuple(chosen)


def clip_to_unit(ops: Ops, x: Any, y: Any, sqrt: Callable[[float], float] = math.sqrt) -> tuple[Any, Any]:
    """``(x, y)`` scaled down to length 1 where longer, ``x * (1 / sqrt(x * x + y * y))``, the same
    bits on every backend; where the square overflows, first divided by its largest component
    (``(1e300, 0)`` and ``(inf, 5)`` give ``(1, 0)``)."""
    if ops.name == "scalar":
        squared = x * x + y * y
        if squared <= 1.0:
            return x, y
        if squared == math.inf:  # a square overflowed: divide by the largest component first
            largest = abs(x) if abs(x) > abs(y) else abs(y)
            x = math.copysign(1.0, x) if abs(x) == largest else x / largest  # inf / inf would be NaN
            y = math.copysign(1.0, y) if abs(y) == largest else y / largest
            squared = x * x + y * y
        scale = 1.0 / sqrt(squared)
        return x * scale, y * scale
    with np.errstate(over="ignore"):
        squared = x * x + y * y
    # numpy divides only when a square overflowed; JAX, which cannot ask, every time
    if ops.name != "numpy" or np.max(squared, initial=0.0) == math.inf:
        ax, ay = ops.abs(x), ops.abs(y)
        largest = ops.where(squared == math.inf, ops.maximum(ax, ay), 1.0)  # at least 1: never 0 nor NaN
        with np.errstate(invalid="ignore"):  # inf / inf, replaced by the sign
            x, y = (
                ops.where(ax == largest, ops.where(x < 0.0, -1.0, 1.0), x / largest),
                ops.where(ay == largest, ops.where(y < 0.0, -1.0, 1.0), y / largest),
            )
        squared = x * x + y * y
    scale = ops.where(squared > 1.0, 1.0 / ops.sqrt(ops.maximum(squared, 1.0)), 1.0)
    return x * scale, y * scale


# -- The rules


def centre_distance(ax: Array, ay: Array, bx: Array, by: Array, ops: Ops) -> Array:
    dx = ax - bx
    dy = ay - by
    return ops.sqrt(dx * dx + dy * dy)


def discs_touch(distance: Array, radius: float) -> Array:
    return distance <= 2.0 * radius


class _Field(Definition[Any, Any]):
    """What target-v0 and target-v1 share: the hit that ends an episode, the step's reward, the pictures."""

    name = "target"
    human = "rgb"  # human mode: the picture in a pygame window

    def reward(self, state: Any, action: Any, next_state: Any, params: Any, ops: Ops) -> Any:
        return next_state.last_reward

    def terminal(self, state: Any, params: Any, ops: Ops) -> Any:
        return discs_touch(state.distance, params.radius)

    def render(self, state: Any, params: Any, mode: str) -> Any:
        centres = state.worker_x, state.worker_y, state.target_x, state.target_y
        if mode != "ansi":
            return rgb_frame(*centres, params.radius, pixel_grid(params.size, params.pixels_per_unit))
        reward = None if math.isnan(state.last_reward) else state.last_reward
        line = ansi_line(*centres, params.radius, reward)
        if isinstance(state, TargetV1State):
            line += f"  target velocity ({state.target_vx:.3f}, {state.target_vy:.3f})"
        return line + "\n"


class Target(_Field):
    """The rules of target-v0."""

    State = TargetState
    arguments = (
        Argument("size", int, "the side of the square field", low=1, high=MAX_FIELD_SIZE),
        Argument(
            "radius",
            float,
            "the radius of both discs",
            low=0.0,
            allowed="a number in (0, size / sqrt(8 * pi)], at least size / 2^24",
        ),
        Argument(
            "target",
            meaning="a fixed target, or `None` for a random one",
            allowed="a point `(x, y)` in [radius, size - radius]^2, or `None`",
        ),
        Argument(
            "pixels_per_unit",
            float,
            "pixels per field unit of the pictures; `None`: 8, or a picture of 4096 pixels a side for a large field",
            low=0.0,
            none=True,
            allowed="a number with 1 <= size * pixels_per_unit <= 4096, or `None`",
        ),
    )
    #: Target x and y, then x and y of each candidate start of the worker.
    start_draws = staticmethod(lambda params: 2 + 2 * params.candidates)

    def make_params(self, base: TargetParams, owner: str, **arguments: Any) -> TargetParams:
        given = check_arguments(self.arguments, base, owner, arguments)
        size, radius, target, pixels_per_unit = (
            given[name] for name in ("size", "radius", "target", "pixels_per_unit")
        )
        if radius == 0.0:
            raise ValueError(f"{owner}: radius must be > 0, got {radius!r}")
        largest = size * math.sqrt(MAX_HIT_SHARE_OF_FIELD / (4.0 * math.pi))  # pi * (2 r)**2 <= share * size**2
        # size / sqrt(8 * pi) itself, computed another way, may come out an ulp above `largest`
        if radius > largest * (1.0 + 1e-12):
            raise ValueError(
                f"{owner}: radius={radius!r} is too large for size={size}: the starts that miss the target "
                f"must cover at least half of the field, which needs radius <= size / sqrt(8 * pi) = {largest!r}"
            )
        if size > radius * FLOAT32_SPAN:
            raise ValueError(
                f"{owner}: size={size} is too large for radius={radius!r}: the float32 observation rounds a "
                f"position by up to size * 2**-24, which must not exceed the radius; size must be at most "
                f"radius * 2**24 = {radius * FLOAT32_SPAN!r}"
            )
        if target is not None:
            if isinstance(target, np.ndarray):
                if target.shape != (2,):
                    raise ArgumentTypeError(
                        f"{owner}: target must be None or a point (x, y): an array of shape (2,), got an array "
                        f"of shape {target.shape}"
                    )
                target = target.tolist()
            if not isinstance(target, (tuple, list)) or len(target) != 2:
                raise ArgumentTypeError(
                    f"{owner}: target must be None or a point (x, y) as a tuple, list or array, got {shown(target)}"
                )
            target = tuple(check_number(owner, f"target[{i}]", v, radius, size - radius) for i, v in enumerate(target))
        if pixels_per_unit is None:
            pixels_per_unit = (
                PIXELS_PER_UNIT if size * PIXELS_PER_UNIT <= MAX_PICTURE_PIXELS else MAX_PICTURE_PIXELS / size
            )
        else:
            if not 1 <= size * pixels_per_unit <= MAX_PICTURE_PIXELS:
                raise ValueError(
                    f"{owner}: pixels_per_unit={pixels_per_unit!r} makes a picture of {size * pixels_per_unit:g} "
                    f"pixels a side for size={size}; size * pixels_per_unit must be in 1..{MAX_PICTURE_PIXELS}, so "
                    f"pixels_per_unit at most {MAX_PICTURE_PIXELS / size:g} (or None for the default)"
                )
            if pixels_per_unit == int(pixels_per_unit):
                pixels_per_unit = int(pixels_per_unit)
        return TargetParams(size, radius, target, pixels_per_unit, float(size), start_candidates(size, radius))

    def spaces(self, params: TargetParams) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        observation_space = spaces.Box(0.0, params.side, shape=(4,), dtype=np.float32)
        return observation_space, spaces.Box(0.0, params.side, shape=(2,), dtype=np.float32)

    def initial(self, u: Any, params: TargetParams, ops: Ops) -> TargetState:
        """The target, then the first of ``params.candidates`` uniform points that misses it; if
        none does, the corner farthest from the target (at least ``size / sqrt(2)`` away: a miss)."""
        side, radius = params.side, params.radius
        if params.target is None:
            span = side - 2.0 * radius
            target_x = radius + span * u[0]
            target_y = radius + span * u[1]
        else:
            target_x, target_y = params.target

        def misses(ux: Any, uy: Any) -> Any:
            return centre_distance(side * ux, side * uy, target_x, target_y, ops) > 2.0 * radius

        half = 0.5 * side
        corner = (ops.where(target_x <= half, 1.0, 0.0), ops.where(target_y <= half, 1.0, 0.0))
        ux, uy = first(ops, misses, (u[2::2], u[3::2]), corner)
        worker_x, worker_y = side * ux, side * uy
        distance = centre_distance(worker_x, worker_y, target_x, target_y, ops)
        return _new_state((worker_x, worker_y, target_x, target_y, distance, NO_REWARD))

    def transition(self, state: TargetState, action: Any, u: Any, params: TargetParams, ops: Ops) -> TargetState:
        """The worker jumps to the action's point, clipped to the field on each axis."""
        action_x, action_y = action
        side, target_x, target_y = params.side, state.target_x, state.target_y
        worker_x = ops.minimum(ops.maximum(action_x, 0.0), side)
        worker_y = ops.minimum(ops.maximum(action_y, 0.0), side)
        distance = centre_distance(worker_x, worker_y, target_x, target_y, ops)
        reward = REWARD_MISS + (REWARD_HIT - REWARD_MISS) * discs_touch(distance, params.radius)
        return _new_state((worker_x, worker_y, target_x, target_y, distance, reward))

    def observation(self, state: TargetState, params: TargetParams, ops: Ops) -> Any:
        return ops.vector(state[:4], np.float32)

    def info(
        self, state: TargetState | None, action: Any, next_state: TargetState, params: TargetParams, ops: Ops
    ) -> dict[str, Any]:
        if state is None:  # a start
            return {"distance": next_state.distance, "clipped": False}
        action_x, action_y = action
        clipped = (next_state.worker_x != action_x) | (next_state.worker_y != action_y)
        return {"distance": next_state.distance, "clipped": clipped}

    def heuristic(self, observation: Any, params: TargetParams, ops: Ops) -> Any:
        """Move to the observed target: a hit in one step (the size bound makes sure of it)."""
        return ops.vector((ops.column(observation, 2), ops.column(observation, 3)), np.float32)


def draw_start(
    rng: np.random.Generator, n: int, size: float, radius: float, target: Sequence[float] | None = None
) -> npt.NDArray[np.float64]:
    """``n`` starts as the envs draw them, rows ``(worker x, worker y, target x, target y)`` (arguments unchecked)."""
    point = None if target is None else (float(target[0]), float(target[1]))
    params = TargetParams(int(size), float(radius), point, None, float(size), start_candidates(size, radius))
    out = np.empty((n, 4))
    chunk = 8192  # rows of uniforms at a time
    for i in range(0, n, chunk):
        rows = min(chunk, n - i)
        start = TARGET.initial(rng.random((rows, draws_at_start(TARGET, params))).T, params, NUMPY)
        out[i : i + rows] = np.stack(np.broadcast_arrays(*start[:4]), axis=1)
    return out


# -- target-v1: the target moves and the worker steers (its manual: V1_MANUAL)

V1_FIELD_SIZE = 50
V1_DISC_RADIUS = 1.5  # caught at 3 units between centres
WORKER_SPEED = 1.0  # the worker's top speed, in field units a step
TARGET_SPEED = 1.5
REWARD_STEP = -1.0  # every step, the touching step included
#: The target's start direction: the first of these uniform points of [-1, 1]**2 in the unit disc
#: (all miss with probability below 2**-48).
DIRECTION_CANDIDATES = 22
#: info["clipped"]: a squared length beyond float32's rounding of a unit vector.
LONG_ACTION = 1.0 + 2.0**-20
FALLBACK_DIRECTION = (1.0, 0.0)  # when every direction candidate misses


@dataclass(frozen=True)
class TargetV1Params:
    """The field and speed of a target-v1 environment; ``side`` and ``candidates`` as in :class:`TargetParams`."""

    size: int = V1_FIELD_SIZE
    radius: float = V1_DISC_RADIUS
    target_speed: float = TARGET_SPEED
    pixels_per_unit: float | None = None
    side: float = float(V1_FIELD_SIZE)
    candidates: int = start_candidates(V1_FIELD_SIZE, V1_DISC_RADIUS)


V1 = TargetV1Params()


class TargetV1State(NamedTuple):
    """The two centres, the target's velocity, their distance, and the last step's reward (NaN after a start)."""

    worker_x: Any
    worker_y: Any
    target_x: Any
    target_y: Any
    target_vx: Any
    target_vy: Any
    distance: Any
    last_reward: Any


_new_v1_state = state_maker(TargetV1State)


def bounce(position: Array, velocity: Array, low: float, high: float, ops: Ops) -> tuple[Array, Array]:
    """One step along an axis between walls: a point that would cross one is mirrored in it and
    turns around (``|velocity| <= high - low``, as ``make_params`` requires)."""
    moved = position + velocity
    above = moved > high
    below = moved < low
    reflected = ops.where(above, 2.0 * high - moved, ops.where(below, 2.0 * low - moved, moved))
    return reflected, ops.where(above | below, -velocity, velocity)


def pursuit(observation: Any) -> Any:
    """Pure pursuit: a unit vector towards the target's current position (observations ``(6,)`` or ``(N, 6)``)."""
    delta = observation[..., 2:4] - observation[..., 0:2]
    length = (delta * delta).sum(axis=-1, keepdims=True) ** 0.5
    return delta / (length + (length == 0))


SPEED_ARGUMENT = Argument(
    "target_speed",
    float,
    "the target's speed in field units a step (the worker's top speed is 1)",
    low=0.0,
    allowed="a number in [0, size - 2 * radius]",
)


class TargetV1(_Field):
    """The rules of target-v1: a target bouncing off the walls at constant speed, a steered worker."""

    State = TargetV1State
    arguments = (*Target.arguments[:2], SPEED_ARGUMENT, Target.arguments[3])
    data_parameters = ("target_speed",)
    #: v0's start, then the direction's candidates.
    start_draws = staticmethod(lambda params: 2 + 2 * params.candidates + 2 * DIRECTION_CANDIDATES)
    render_fps = 10

    def make_params(self, base: TargetV1Params, owner: str, **arguments: Any) -> TargetV1Params:
        field = {name: arguments[name] for name in ("size", "radius", "pixels_per_unit") if name in arguments}
        v0 = TARGET.make_params(self._v0_params(base), owner, **field)
        speed = SPEED_ARGUMENT.check(owner, arguments.get("target_speed", base.target_speed))
        span = v0.side - 2.0 * v0.radius
        if speed > span:
            raise ValueError(
                f"{owner}: target_speed={speed!r} is too fast for size={v0.size} and radius={v0.radius!r}: the "
                f"target may cross its span size - 2 * radius = {span!r} at most once a step, so target_speed "
                f"must be in [0, {span!r}]"
            )
        return TargetV1Params(v0.size, v0.radius, speed, v0.pixels_per_unit, v0.side, v0.candidates)

    def spaces(self, params: TargetV1Params) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        speed = params.target_speed
        low = np.array([0.0, 0.0, 0.0, 0.0, -speed, -speed], dtype=np.float32)
        high = np.array([params.side] * 4 + [speed, speed], dtype=np.float32)
        observation_space = spaces.Box(low, high, dtype=np.float32)
        return observation_space, spaces.Box(-1.0, 1.0, shape=(2,), dtype=np.float32)

    def _v0_params(self, params: TargetV1Params) -> TargetParams:
        return TargetParams(params.size, params.radius, None, params.pixels_per_unit, params.side, params.candidates)

    def initial(self, u: Any, params: TargetV1Params, ops: Ops) -> TargetV1State:
        """v0's start, then the target's direction: the first of ``DIRECTION_CANDIDATES`` uniform
        points of ``[-1, 1]**2`` inside the unit disc (not its centre), scaled to ``target_speed``."""
        v0_draws = 2 + 2 * params.candidates
        start = TARGET.initial(u[:v0_draws], self._v0_params(params), ops)

        def in_disc(ux: Any, uy: Any) -> Any:
            x, y = 2.0 * ux - 1.0, 2.0 * uy - 1.0
            squared = x * x + y * y
            return (squared <= 1.0) & (squared > 0.0)

        fallback = (0.5 + 0.5 * FALLBACK_DIRECTION[0], 0.5 + 0.5 * FALLBACK_DIRECTION[1])
        ux, uy = first(ops, in_disc, (u[v0_draws::2], u[v0_draws + 1 :: 2]), fallback)
        x, y = 2.0 * ux - 1.0, 2.0 * uy - 1.0
        scale = params.target_speed / ops.sqrt(x * x + y * y)
        return _new_v1_state((*start[:4], x * scale, y * scale, start.distance, NO_REWARD))

    def transition(self, state: TargetV1State, action: Any, u: Any, params: TargetV1Params, ops: Ops) -> TargetV1State:
        """The worker moves by the (length-clipped) action times its top speed, kept in the field;
        the target moves on, bouncing off the walls of ``[radius, size - radius]``."""
        vx, vy = clip_to_unit(ops, action[0], action[1])
        side, radius = params.side, params.radius
        worker_x = ops.minimum(ops.maximum(state.worker_x + WORKER_SPEED * vx, 0.0), side)
        worker_y = ops.minimum(ops.maximum(state.worker_y + WORKER_SPEED * vy, 0.0), side)
        target_x, target_vx = bounce(state.target_x, state.target_vx, radius, side - radius, ops)
        target_y, target_vy = bounce(state.target_y, state.target_vy, radius, side - radius, ops)
        distance = centre_distance(worker_x, worker_y, target_x, target_y, ops)
        return _new_v1_state(
            (worker_x, worker_y, target_x, target_y, target_vx, target_vy, distance, REWARD_STEP + 0.0 * distance)
        )

    def observation(self, state: TargetV1State, params: TargetV1Params, ops: Ops) -> Any:
        return ops.vector(state[:6], np.float32)

    def info(
        self, state: TargetV1State | None, action: Any, next_state: TargetV1State, params: TargetV1Params, ops: Ops
    ) -> dict[str, Any]:
        if state is None:  # a start
            return {"distance": next_state.distance, "clipped": False}
        # each component at most 2 before it is squared: no overflow
        action_x, action_y = ops.minimum(ops.abs(action[0]), 2.0), ops.minimum(ops.abs(action[1]), 2.0)
        return {"distance": next_state.distance, "clipped": action_x * action_x + action_y * action_y > LONG_ACTION}

    def heuristic(self, observation: Any, params: TargetV1Params, ops: Ops) -> Any:
        """Pure pursuit at full speed: head straight for the target's current position."""
        return pursuit(observation)


# -- Pictures


@functools.lru_cache(maxsize=8)
def pixel_grid(size: float, pixels_per_unit: float) -> Grid:
    """Field coordinates of the pixel centres, read-only (shared by the pictures of one field)."""
    n = max(1, round(size * pixels_per_unit))
    centres = (np.arange(n) + 0.5) / pixels_per_unit
    centres.flags.writeable = False
    return centres[None, :], centres[:, None]


def rgb_frame(
    worker_x: float, worker_y: float, target_x: float, target_y: float, radius: float, grid: Grid
) -> npt.NDArray[np.uint8]:
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


def ansi_line(
    worker_x: float, worker_y: float, target_x: float, target_y: float, radius: float, reward: float | None = None
) -> str:
    distance = centre_distance(worker_x, worker_y, target_x, target_y, SCALAR)
    state = "hit" if discs_touch(distance, radius) else "miss"
    last = "" if reward is None else f"  reward {reward:+g}"
    return (
        f"worker ({worker_x:.3f}, {worker_y:.3f})  target ({target_x:.3f}, {target_y:.3f})  "
        f"distance {distance:.3f} ({state}){last}"
    )


# -- The definitions the registry names (gym_suite/_registry.py), and the env classes

TARGET = Target()
TARGET_V1 = TargetV1()


class TargetEnv(SuiteEnv):
    __doc__ = __doc__  # the manual; its Arguments table is written from the declared arguments
    definition, base_params = TARGET, DEFAULTS


class TargetVectorEnv(SuiteVectorEnv):
    """``num_envs`` :class:`TargetEnv` in numpy arrays, next-step autoreset; also ``max_episode_steps``."""

    scalar_env = TargetEnv


class TargetV1Env(SuiteEnv):
    __doc__ = V1_MANUAL
    definition, base_params = TARGET_V1, V1


class TargetV1VectorEnv(SuiteVectorEnv):
    """``num_envs`` :class:`TargetV1Env` in numpy arrays, next-step autoreset; also ``max_episode_steps``."""

    scalar_env = TargetV1Env
