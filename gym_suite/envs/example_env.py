# The file reads top to bottom: this manual, the constants, the parameters, the state, the rules
# (:class:`Example`), the pictures, then the definition the registry names (its classes are
# ``gym_suite.envs.ExampleEnv`` and ``ExampleVectorEnv``).
"""``example-v0``: the one-dimensional hot/cold walk.

## Description

The "hot and cold" walk of Ray RLlib's custom-environment tutorial
(https://github.com/DerwenAI/gym_example): an agent stands on a line of positions
``lf_min..rt_max`` and must find the goal in the middle by walking left or right. Each step
tells it whether it got warmer (closer) or colder.

## Action Space

`Discrete(2)`: 0 moves one position left, 1 moves one position right. A move into a wall
leaves the agent where it is.

## Observation Space

`Discrete(rt_max + 1)`: the agent's position (``lf_min..rt_max``; values below ``lf_min``
never occur).

## Rewards

+10 for landing on the goal, -1 for a step that gets closer to it, -2 for a step away from
it or into a wall.

## Starting State

The goal is fixed at ``(lf_min + rt_max - 1) // 2`` (5 by default). The agent starts
uniformly at random on ``range(lf_min, rt_max)`` without the goal (one uniform of
``env.np_random`` picks the position).

## Episode End

1. Termination: the agent lands on the goal.
2. Truncation: 10 steps, registered with the spec (``gymnasium.make`` adds ``TimeLimit``;
   ``gymnasium.make(..., max_episode_steps=N)`` changes it, ``-1`` removes it).

A ``step`` after termination raises ``gymnasium.error.ResetNeeded``.

``MAX_STEPS`` is 10, the registered step limit, under the tutorial's name (its baseline loops
``for i in range(env.MAX_STEPS)``): a class constant, which ``max_episode_steps=N`` does not
change (``env.spec.max_episode_steps`` gives the limit in force). Gymnasium's wrappers do not
forward attributes: read it as ``env.unwrapped.MAX_STEPS``, or ``env.MAX_STEPS`` through the
legacy ``gym.make``, whose wrappers do.

``info`` holds ``dist``, the goal minus the position, in a fresh dict after ``reset`` and
every step. ``heuristic`` moves toward the goal.

The state is ``env.unwrapped.state`` (an :class:`ExampleState`: the position and the last
reward) and ``env.unwrapped.np_random``: restoring both (and TimeLimit's step count) replays
the same future. ``env.unwrapped.goal`` is the goal.

## Arguments

| Argument | Default | Meaning |
|---|---|---|
| `lf_min` | 1 | leftmost position, an integer in 0..10^12 - 2 |
| `rt_max` | 10 | rightmost position, an integer in `lf_min + 2`..10^12 |
| `render_mode` | None | `"ansi"`, `"human"` (prints the text) or `"rgb_array"` |

```python
>>> import gymnasium as gym
>>> env = gym.make("gym_suite:example-v0", render_mode="ansi")
>>> obs, info = env.reset(seed=0)
>>> obs + info["dist"] == env.unwrapped.goal
True
>>> env.unwrapped.heuristic(obs) == (1 if obs < 5 else 0)
True

```

## Version History

* v0: first release. Unlike the tutorial's code, ``step`` returns a tuple with ``bool``
  flags, the reward is not repeated at the step limit and the goal pays once.
* v0, before any release: the rules became one definition for Python numbers, numpy and JAX;
  the start is drawn from one uniform (a seed gives other starts than before, with the same
  distribution); ``lf_min`` or ``rt_max`` above 10^12 raise ``ValueError`` at construction
  instead of overflowing; human mode prints each frame once; the vector env's text render
  shows each sub-environment's last reward, like the scalar env's.
* v0, unchanged rules: ``MAX_STEPS``, the tutorial's name for the step limit (10).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np
from gymnasium import spaces

from gym_suite._registry import SPECS
from gym_suite.envs.checks import check_int, shown
from gym_suite.envs.definition import Array, Definition, Ops, state_maker

if TYPE_CHECKING:
    import numpy.typing as npt

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------

MOVE_LEFT, MOVE_RIGHT = 0, 1
ACTION_NAMES = ("left", "right")
REWARD_GOAL = 10.0  # landing on the goal
REWARD_TOWARD = -1.0  # a step that gets closer to the goal
REWARD_AWAY = -2.0  # a step away from the goal, or into a wall
CELL_PIXELS = 24  # rgb_array: width and height of one position
DEFAULT_LF_MIN, DEFAULT_RT_MAX = 1, 10
#: The largest position accepted. Positions and their sums stay far inside int64, and a start
#: drawn as ``floor(u * n)`` from a float64 uniform ``u`` is uniform to a relative 1e-4 at most.
MAX_POSITION = 10**12
NO_REWARD = math.nan  # the last reward after a start (no step yet)


def goal_of(lf_min: int, rt_max: int) -> int:
    return (lf_min + rt_max - 1) // 2


# --------------------------------------------------------------------------------------------
# The parameters
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExampleParams:
    """The line of an example-v0 walk; ``goal`` and ``n_starts`` are derived by ``make_params``."""

    #: leftmost position
    lf_min: int = DEFAULT_LF_MIN
    #: rightmost position
    rt_max: int = DEFAULT_RT_MAX
    #: the goal, (lf_min + rt_max - 1) // 2
    goal: int = goal_of(DEFAULT_LF_MIN, DEFAULT_RT_MAX)
    #: the number of starting positions: every position but rt_max and the goal
    n_starts: int = DEFAULT_RT_MAX - DEFAULT_LF_MIN - 1


DEFAULTS = ExampleParams()


# --------------------------------------------------------------------------------------------
# The state
# --------------------------------------------------------------------------------------------


class ExampleState(NamedTuple):
    """The agent's position, and the last step's reward (NaN after a start) for the pictures."""

    position: Any
    last_reward: Any


#: ``ExampleState`` from a tuple of its two quantities (the step's fast constructor)
_new_state = state_maker(ExampleState)


# --------------------------------------------------------------------------------------------
# The rules
# --------------------------------------------------------------------------------------------


def start_position(draw: Array, lf_min: int, goal: int) -> Array:
    """The ``draw``-th position of ``lf_min..rt_max - 1`` without the goal (ints or arrays)."""
    return lf_min + draw + (draw >= goal - lf_min)


def walk_rules(
    position: Array, action: Array, goal: int, lf_min: int, rt_max: int, ops: Ops
) -> tuple[Array, Array, Array]:
    """One step of the walk, for ints or integer arrays: ``(new_position, reward, at_goal)``."""
    new_position = ops.minimum(ops.maximum(position + 2 * action - 1, lf_min), rt_max)
    toward = ops.abs(goal - new_position) < ops.abs(goal - position)  # False at a wall: no move
    at_goal = new_position == goal
    reward = REWARD_AWAY + (REWARD_TOWARD - REWARD_AWAY) * toward + (REWARD_GOAL - REWARD_TOWARD) * at_goal
    return new_position, reward, at_goal


class Example(Definition[ExampleState, ExampleParams]):
    """The rules of example-v0."""

    name = "example"
    State = ExampleState
    arguments = ("lf_min", "rt_max")
    #: The tutorial's name for the registered step limit, as an attribute of the envs: the registry
    #: row's, the one place the limit lives.
    env_attributes: ClassVar[Mapping[str, Any]] = {
        "MAX_STEPS": next(spec.max_episode_steps for spec in SPECS if spec.id == "example-v0")
    }
    #: One uniform per start picks the starting position; a step draws nothing.
    start_draws = 1

    def make_params(self, base: ExampleParams, owner: str, **arguments: Any) -> ExampleParams:
        lf_min = check_int(owner, "lf_min", arguments.get("lf_min", base.lf_min), 0)
        if lf_min > MAX_POSITION - 2:
            raise ValueError(
                f"{owner}: lf_min must be an integer in 0..{MAX_POSITION - 2} (10**12 - 2), got {shown(lf_min)}"
            )
        rt_max = check_int(owner, "rt_max", arguments.get("rt_max", base.rt_max), lf_min + 2)
        if rt_max > MAX_POSITION:
            raise ValueError(
                f"{owner}: rt_max must be an integer in lf_min + 2..{MAX_POSITION} (10**12), got {shown(rt_max)}"
            )
        return ExampleParams(lf_min, rt_max, goal_of(lf_min, rt_max), rt_max - lf_min - 1)

    def action_space(self, params: ExampleParams) -> spaces.Discrete[np.int64]:
        return spaces.Discrete(len(ACTION_NAMES))

    def observation_space(self, params: ExampleParams) -> spaces.Discrete[np.int64]:
        return spaces.Discrete(params.rt_max + 1)

    def initial(self, u: Any, params: ExampleParams, ops: Ops) -> ExampleState:
        # floor(u * n) for u in [0, 1); the minimum guards against a product rounded up to n
        draw = ops.minimum(ops.floor_int(u[0] * params.n_starts), params.n_starts - 1)
        return ExampleState(start_position(draw, params.lf_min, params.goal), NO_REWARD)

    def transition(self, state: ExampleState, action: Any, u: Any, params: ExampleParams, ops: Ops) -> ExampleState:
        position, reward, _ = walk_rules(state.position, action, params.goal, params.lf_min, params.rt_max, ops)
        return _new_state((position, reward))

    def observation(self, state: ExampleState, params: ExampleParams, ops: Ops) -> Any:
        return ops.copy(state.position)

    def reward(
        self, state: ExampleState, action: Any, next_state: ExampleState, params: ExampleParams, ops: Ops
    ) -> Any:
        return next_state.last_reward  # walk_rules' reward of the move from state to next_state

    def terminal(self, state: ExampleState, params: ExampleParams, ops: Ops) -> Any:
        return state.position == params.goal

    def state_info(self, state: ExampleState, params: ExampleParams, ops: Ops) -> dict[str, Any]:
        return {"dist": params.goal - state.position}

    def transition_info(
        self,
        state: ExampleState,
        action: Any,
        next_state: ExampleState,
        params: ExampleParams,
        ops: Ops,
    ) -> dict[str, Any]:
        return {"dist": params.goal - next_state.position}

    def heuristic(self, observation: Any, params: ExampleParams, ops: Ops) -> Any:
        """Move toward the goal."""
        return ops.where(observation < params.goal, MOVE_RIGHT, MOVE_LEFT)

    def render_ansi(self, state: ExampleState, params: ExampleParams) -> str:
        reward = None if math.isnan(state.last_reward) else state.last_reward
        return ansi_line(state.position, params.goal, params.lf_min, params.rt_max, reward) + "\n"

    def render_rgb(self, state: ExampleState, params: ExampleParams) -> npt.NDArray[np.uint8]:
        return rgb_frame(state.position, params.goal, params.lf_min, params.rt_max)


# --------------------------------------------------------------------------------------------
# Pictures
# --------------------------------------------------------------------------------------------


def ansi_line(position: int, goal: int, lf_min: int, rt_max: int, reward: float | None = None) -> str:
    cells = "".join("A" if p == position else "G" if p == goal else "." for p in range(lf_min, rt_max + 1))
    last = "" if reward is None else f"  reward {reward:+g}"
    return f"|{cells}|  position {position}  goal {goal}  dist {goal - position:+d}{last}"


def rgb_frame(position: int, goal: int, lf_min: int, rt_max: int) -> npt.NDArray[np.uint8]:
    n = rt_max - lf_min + 1
    frame = np.full((CELL_PIXELS, n * CELL_PIXELS, 3), 235, dtype=np.uint8)
    frame[:, ::CELL_PIXELS] = 160  # cell borders
    pad = CELL_PIXELS // 6
    for p, colour in ((goal, (40, 170, 60)), (position, (200, 40, 40))):
        x = (p - lf_min) * CELL_PIXELS
        frame[pad:-pad, x + pad : x + CELL_PIXELS - pad] = colour
    return frame


# --------------------------------------------------------------------------------------------
# The definition the registry names (its row: gym_suite/_registry.py)
# --------------------------------------------------------------------------------------------

EXAMPLE = Example()
