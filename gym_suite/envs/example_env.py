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
change. Read it as ``env.unwrapped.MAX_STEPS`` (Gymnasium's wrappers do not forward attributes),
or ``env.MAX_STEPS`` through the legacy ``gym.make``.

``info`` holds ``dist``, the goal minus the position, in a fresh dict after ``reset`` and
every step. ``heuristic`` moves toward the goal. The state is ``env.unwrapped.state`` (an
:class:`ExampleState`: the position and the last reward) and ``env.unwrapped.np_random``:
restoring both (and TimeLimit's step count) replays the same future. ``env.unwrapped.goal`` is
the goal.

## Arguments

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
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np
from gymnasium import spaces

from gym_suite._registry import SPECS
from gym_suite.envs._shells import SuiteEnv, SuiteVectorEnv
from gym_suite.envs.checks import Argument
from gym_suite.envs.definition import Array, Definition, Ops, state_maker

V1_MANUAL = """
## Description

``example-v1``: example-v0's hot/cold walk, partly observed, so that memory matters. The agent
stands on the line ``lf_min..rt_max`` (1..12) and must find the goal in the middle (6), but it no
longer sees where it is: after each move it hears only whether the move made it warmer (closer to
the goal) or colder, and it hears that the wrong way round with probability ``flip_probability``
(0.35). A policy that acts on what it heard last (the heuristic: warmer, go on; colder, turn back)
is sent the wrong way by every flipped signal; one that weighs everything it has heard is not.

The Bayes-optimal policy and its value are computed by dynamic programming over the agent's
beliefs (:mod:`gym_suite.references.example_v1_optimum`); the best *memoryless* policy is the
heuristic's rule.

## Action Space

`Discrete(2)`: 0 moves one position left, 1 moves one position right. A move into a wall
leaves the agent where it is.

## Observation Space

`Discrete(5)`: what the agent heard: 0 nothing yet (the start), then ``1 + 2 * move + warmer``:
1 left and colder, 2 left and warmer, 3 right and colder, 4 right and warmer. The move is the
action just taken (the agent knows what it did); warmer means the move brought it closer to the
goal (a move into a wall is colder), heard the wrong way round with probability
``flip_probability``, a fresh draw each step. The position is not observed.

## Rewards

-1 a step, +10 for the step that lands on the goal. Unlike v0 (-1 closer, -2 farther), the
reward does not depend on the direction: the observation is all the agent learns.

## Starting State

The goal is fixed at ``(lf_min + rt_max - 1) // 2`` (6 by default). The agent starts uniformly
at random on ``range(lf_min, rt_max)`` without the goal (one uniform of ``env.np_random``), and
observes 0.

## Episode End

1. Termination: the agent lands on the goal.
2. Truncation: 24 steps (twice the line), registered with the spec (``gymnasium.make`` adds
   ``TimeLimit``; the optimum plans for this limit).

``info`` holds ``dist``, the goal minus the position, for diagnostics and pictures: it is the
hidden state, and no policy of the baselines reads it. The state is ``env.unwrapped.state`` (an
:class:`ExampleV1State`: the position, the last reward and the observation); ``heuristic`` acts on
the observation alone. The picture shows the position and, under it, what was heard (orange warmer,
blue colder).

## Arguments

```python
>>> import gymnasium as gym
>>> env = gym.make("gym_suite:example-v1")
>>> obs, info = env.reset(seed=0)
>>> int(obs)  # nothing heard yet
0
>>> obs, reward, terminated, truncated, info = env.step(1)  # right
>>> int(obs) in (3, 4), reward  # right and colder, or right and warmer; -1 unless on the goal
(True, -1.0)

```

## Version History

* v1: the position hidden, a warmer/colder signal of each move heard, flipped with probability
  0.35; -1 a step whatever the direction, +10 on the goal; a line of 12 positions, 24 steps.
* v0: see example-v0.
"""

if TYPE_CHECKING:
    import numpy.typing as npt

MOVE_LEFT, MOVE_RIGHT = 0, 1
ACTION_NAMES = ("left", "right")
REWARD_GOAL = 10.0
REWARD_TOWARD = -1.0  # a step that gets closer to the goal
REWARD_AWAY = -2.0  # a step away from the goal, or into a wall
REWARD_STEP_V1 = -1.0  # example-v1: every step that does not land on the goal
CELL_PIXELS = 24  # rgb_array: width and height of one position
DEFAULT_LF_MIN, DEFAULT_RT_MAX = 1, 10
V1_LF_MIN, V1_RT_MAX = 1, 12  # the goal at 6
V1_FLIP_PROBABILITY = 0.35
#: The largest position: sums stay inside int64, ``floor(u * n)`` is uniform to a relative 1e-4.
MAX_POSITION = 10**12
NO_REWARD = math.nan  # the last reward after a start
#: example-v1's observations: nothing heard yet, then ``1 + 2 * move + heard_warmer``
OBS_START = 0
OBS_LEFT_COLDER, OBS_LEFT_WARMER, OBS_RIGHT_COLDER, OBS_RIGHT_WARMER = 1, 2, 3, 4
OBSERVATION_NAMES = ("start", "left, colder", "left, warmer", "right, colder", "right, warmer")
HEARD_STRIP_PIXELS = 8  # rgb_array: the strip that shows what was heard
HEARD_COLOURS = ((160, 160, 160), (60, 90, 200), (240, 150, 40))  # nothing yet, colder (blue), warmer (orange)


def goal_of(lf_min: int, rt_max: int) -> int:
    return (lf_min + rt_max - 1) // 2


@dataclass(frozen=True)
class ExampleParams:
    """The line of an example-v0 walk; ``goal`` (``(lf_min + rt_max - 1) // 2``) and ``n_starts``
    (every position but rt_max and the goal) are derived by ``make_params``."""

    lf_min: int = DEFAULT_LF_MIN
    rt_max: int = DEFAULT_RT_MAX
    goal: int = goal_of(DEFAULT_LF_MIN, DEFAULT_RT_MAX)
    n_starts: int = DEFAULT_RT_MAX - DEFAULT_LF_MIN - 1


@dataclass(frozen=True)
class ExampleV1Params:
    """example-v1's line and the chance that a step's signal is heard the wrong way round; ``goal``
    and ``n_starts`` as in :class:`ExampleParams`."""

    lf_min: int = V1_LF_MIN
    rt_max: int = V1_RT_MAX
    flip_probability: float = V1_FLIP_PROBABILITY
    goal: int = goal_of(V1_LF_MIN, V1_RT_MAX)
    n_starts: int = V1_RT_MAX - V1_LF_MIN - 1


DEFAULTS = ExampleParams()
V1 = ExampleV1Params()


class ExampleState(NamedTuple):
    """The agent's position, and the last step's reward (NaN after a start) for the pictures."""

    position: Any
    last_reward: Any


class ExampleV1State(NamedTuple):
    """The agent's position (hidden from it), the last step's reward (NaN after a start) and
    what it heard (the observation: ``OBS_START`` after a start)."""

    position: Any
    last_reward: Any
    heard: Any


_new_state = state_maker(ExampleState)
_new_v1_state = state_maker(ExampleV1State)


# -- The rules


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


class _Walk(Definition[Any, Any]):
    """What example-v0 and example-v1 share: the line, the start, the goal's end, ``info``."""

    name = "example"
    arguments: ClassVar[tuple[Argument, ...]] = (
        Argument("lf_min", int, "the leftmost position", low=0, high=MAX_POSITION - 2),
        Argument("rt_max", int, "the rightmost position", low="lf_min + 2", high=MAX_POSITION),
    )
    start_draws = 1  # the starting position

    def make_params(self, base: Any, owner: str, **arguments: Any) -> Any:
        line = super().make_params(base, owner, **arguments)
        return replace(line, goal=goal_of(line.lf_min, line.rt_max), n_starts=line.rt_max - line.lf_min - 1)

    def _start(self, u: Any, params: Any, ops: Ops) -> Any:
        # floor(u * n); the minimum guards against a product rounded up to n
        draw = ops.minimum(ops.floor_int(u[0] * params.n_starts), params.n_starts - 1)
        return start_position(draw, params.lf_min, params.goal)

    def reward(self, state: Any, action: Any, next_state: Any, params: Any, ops: Ops) -> Any:
        return next_state.last_reward

    def terminal(self, state: Any, params: Any, ops: Ops) -> Any:
        return state.position == params.goal

    def info(self, state: Any, action: Any, next_state: Any, params: Any, ops: Ops) -> dict[str, Any]:
        return {"dist": params.goal - next_state.position}

    def _text(self, state: Any, params: Any) -> str:
        reward = None if math.isnan(state.last_reward) else state.last_reward
        return ansi_line(state.position, params.goal, params.lf_min, params.rt_max, reward)


class Example(_Walk):
    """The rules of example-v0."""

    State = ExampleState
    #: The tutorial's name for the registered step limit (the registry row's), an attribute of the envs.
    env_attributes: ClassVar[Mapping[str, Any]] = {
        "MAX_STEPS": next(spec.max_episode_steps for spec in SPECS if spec.id == "example-v0")
    }

    def spaces(self, params: ExampleParams) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        return spaces.Discrete(params.rt_max + 1), spaces.Discrete(len(ACTION_NAMES))

    def initial(self, u: Any, params: ExampleParams, ops: Ops) -> ExampleState:
        return ExampleState(self._start(u, params, ops), NO_REWARD)

    def transition(self, state: ExampleState, action: Any, u: Any, params: ExampleParams, ops: Ops) -> ExampleState:
        position, reward, _ = walk_rules(state.position, action, params.goal, params.lf_min, params.rt_max, ops)
        return _new_state((position, reward))

    def observation(self, state: ExampleState, params: ExampleParams, ops: Ops) -> Any:
        return ops.copy(state.position)

    def heuristic(self, observation: Any, params: ExampleParams, ops: Ops) -> Any:
        """Move toward the goal."""
        return ops.where(observation < params.goal, MOVE_RIGHT, MOVE_LEFT)

    def render(self, state: ExampleState, params: ExampleParams, mode: str) -> Any:
        if mode == "ansi":
            return self._text(state, params) + "\n"
        return rgb_frame(state.position, params.goal, params.lf_min, params.rt_max)


class ExampleV1(_Walk):
    """The rules of example-v1: example-v0's walk, the position hidden, a noisy warmer/colder heard."""

    State = ExampleV1State
    arguments = (
        *_Walk.arguments,
        Argument(
            "flip_probability",
            float,
            "the chance that a move's warmer/colder is heard the wrong way round",
            low=0.0,
            high=0.5,
        ),
    )
    step_draws = 1  # whether the signal flips

    def spaces(self, params: ExampleV1Params) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        return spaces.Discrete(len(OBSERVATION_NAMES)), spaces.Discrete(len(ACTION_NAMES))

    def initial(self, u: Any, params: ExampleV1Params, ops: Ops) -> ExampleV1State:
        position = self._start(u, params, ops)
        return ExampleV1State(position, NO_REWARD, position * 0 + OBS_START)

    def transition(
        self, state: ExampleV1State, action: Any, u: Any, params: ExampleV1Params, ops: Ops
    ) -> ExampleV1State:
        position, _, at_goal = walk_rules(state.position, action, params.goal, params.lf_min, params.rt_max, ops)
        warmer = ops.abs(params.goal - position) < ops.abs(params.goal - state.position)  # False at a wall
        flipped = u[0] < params.flip_probability
        heard = 1 + 2 * action + ops.where(warmer != flipped, 1, 0)
        reward = ops.where(at_goal, REWARD_GOAL, REWARD_STEP_V1)
        return _new_v1_state((position, reward, heard))

    def observation(self, state: ExampleV1State, params: ExampleV1Params, ops: Ops) -> Any:
        return ops.copy(state.heard)

    def heuristic(self, observation: Any, params: ExampleV1Params, ops: Ops) -> Any:
        """Warmer: go on; colder: turn back; at the start, left. Memoryless: the current observation only."""
        go_right = (observation == OBS_LEFT_COLDER) | (observation == OBS_RIGHT_WARMER)
        return ops.where(go_right, MOVE_RIGHT, MOVE_LEFT)

    def render(self, state: ExampleV1State, params: ExampleV1Params, mode: str) -> Any:
        """The line, and under the picture a strip of what was heard: orange warmer, blue colder."""
        heard = int(state.heard)
        if mode == "ansi":
            return f"{self._text(state, params)}  heard {OBSERVATION_NAMES[heard]}\n"
        frame = rgb_frame(state.position, params.goal, params.lf_min, params.rt_max)
        strip = np.empty((HEARD_STRIP_PIXELS, frame.shape[1], 3), dtype=np.uint8)
        strip[:] = HEARD_COLOURS[0 if heard == OBS_START else 1 + (heard - 1) % 2]
        return np.concatenate([frame, strip], axis=0)


# -- Pictures


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


# -- The definitions the registry names (gym_suite/_registry.py), and the env classes

EXAMPLE = Example()
EXAMPLE_V1 = ExampleV1()


class ExampleEnv(SuiteEnv):
    __doc__ = __doc__  # the manual; its Arguments table is written from the declared arguments
    definition, base_params = EXAMPLE, DEFAULTS


class ExampleVectorEnv(SuiteVectorEnv):
    """``num_envs`` :class:`ExampleEnv` in numpy arrays, next-step autoreset; also ``max_episode_steps``."""

    scalar_env = ExampleEnv


class ExampleV1Env(SuiteEnv):
    __doc__ = V1_MANUAL
    definition, base_params = EXAMPLE_V1, V1


class ExampleV1VectorEnv(SuiteVectorEnv):
    """``num_envs`` :class:`ExampleV1Env` in numpy arrays, next-step autoreset; also ``max_episode_steps``."""

    scalar_env = ExampleV1Env
