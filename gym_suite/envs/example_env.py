"""``example-v0``: the one-dimensional hot/cold walk."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from gym_suite.envs._base import (
    ARRAY_OPS,
    SCALAR_OPS,
    SuiteEnv,
    SuiteVectorEnv,
    check_discrete_action,
    check_discrete_actions,
    check_int,
)

MOVE_LEFT, MOVE_RIGHT = 0, 1
ACTION_NAMES = ("left", "right")
REWARD_GOAL = 10.0  # landing on the goal
REWARD_TOWARD = -1.0  # a step that gets closer to the goal
REWARD_AWAY = -2.0  # a step away from the goal, or into a wall
MAX_EPISODE_STEPS = 10  # registered with the spec: gymnasium.make's TimeLimit
CELL_PIXELS = 24  # rgb_array: width and height of one position


def goal_of(lf_min: int, rt_max: int) -> int:
    return (lf_min + rt_max - 1) // 2


def start_position(draw, lf_min, goal):
    """The ``draw``-th position of ``lf_min..rt_max - 1`` without the goal (ints or arrays)."""
    return lf_min + draw + (draw >= goal - lf_min)


def walk_rules(position, action, goal, lf_min, rt_max, ops):
    """One step of the walk, for ints or integer arrays: ``(new_position, reward, at_goal)``."""
    new_position = ops.minimum(ops.maximum(position + 2 * action - 1, lf_min), rt_max)
    toward = ops.abs(goal - new_position) < ops.abs(goal - position)  # False at a wall: no move
    at_goal = new_position == goal
    reward = REWARD_AWAY + (REWARD_TOWARD - REWARD_AWAY) * toward + (REWARD_GOAL - REWARD_TOWARD) * at_goal
    return new_position, reward, at_goal


def ansi_line(position, goal, lf_min, rt_max, reward=None) -> str:
    cells = "".join(
        "A" if p == position else "G" if p == goal else "." for p in range(lf_min, rt_max + 1)
    )
    last = "" if reward is None else f"  reward {reward:+g}"
    return f"|{cells}|  position {position}  goal {goal}  dist {goal - position:+d}{last}"


def rgb_frame(position, goal, lf_min, rt_max) -> np.ndarray:
    n = rt_max - lf_min + 1
    frame = np.full((CELL_PIXELS, n * CELL_PIXELS, 3), 235, dtype=np.uint8)
    frame[:, ::CELL_PIXELS] = 160  # cell borders
    pad = CELL_PIXELS // 6
    for p, colour in ((goal, (40, 170, 60)), (position, (200, 40, 40))):
        x = (p - lf_min) * CELL_PIXELS
        frame[pad:-pad, x + pad : x + CELL_PIXELS - pad] = colour
    return frame


class ExampleEnv(SuiteEnv):
    """
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
    uniformly at random on ``range(lf_min, rt_max)`` without the goal.

    ## Episode End

    1. Termination: the agent lands on the goal.
    2. Truncation: 10 steps, registered with the spec (``gymnasium.make`` adds ``TimeLimit``;
       ``gymnasium.make(..., max_episode_steps=N)`` changes it, ``-1`` removes it).

    A ``step`` after termination raises ``gymnasium.error.ResetNeeded``.

    ``info`` holds ``dist``, the goal minus the position, in a fresh dict after ``reset`` and
    every step.

    ## Arguments

    | Argument | Default | Meaning |
    |---|---|---|
    | `lf_min` | 1 | leftmost position |
    | `rt_max` | 10 | rightmost position (at least `lf_min + 2`) |
    | `render_mode` | None | `"ansi"`, `"human"` or `"rgb_array"` |

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
    """

    def __init__(self, *, lf_min: int = 1, rt_max: int = 10, render_mode: str | None = None):
        owner = type(self).__name__
        self._set_render_mode(render_mode)
        self.lf_min = check_int(owner, "lf_min", lf_min, 0)
        self.rt_max = check_int(owner, "rt_max", rt_max, self.lf_min + 2)
        self.goal = goal_of(self.lf_min, self.rt_max)
        self.n_starts = self.rt_max - self.lf_min - 1  # every position but rt_max and the goal
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Discrete(self.rt_max + 1)
        self.position = self.lf_min
        self.last_reward = None

    def _start(self):
        self.position = int(start_position(int(self.np_random.integers(self.n_starts)), self.lf_min, self.goal))
        self.last_reward = None

    def _check_action(self, action):
        return check_discrete_action(action, 2)

    def _advance(self, action):
        self.position, reward, at_goal = walk_rules(
            self.position, action, self.goal, self.lf_min, self.rt_max, SCALAR_OPS
        )
        self.last_reward = reward = float(reward)
        return reward, at_goal, False, {"dist": self.goal - self.position}

    def _observe(self):
        return self.position

    def _start_info(self):
        return {"dist": self.goal - self.position}

    def render(self):
        if self.render_mode == "rgb_array":
            return rgb_frame(self.position, self.goal, self.lf_min, self.rt_max)
        line = ansi_line(self.position, self.goal, self.lf_min, self.rt_max, self.last_reward)
        if self.render_mode == "human":
            print(line)
            return None
        if self.render_mode == "ansi":
            return line + "\n"
        return None

    def heuristic(self, observation) -> int:
        """Move toward the goal."""
        return MOVE_RIGHT if observation < self.goal else MOVE_LEFT


class ExampleVectorEnv(SuiteVectorEnv):
    """``num_envs`` hot/cold walks in numpy arrays, with the rules of :class:`ExampleEnv`."""

    scalar_env = ExampleEnv

    def _setup(self):
        single = self.single_env
        self.lf_min, self.rt_max, self.goal, self.n_starts = single.lf_min, single.rt_max, single.goal, single.n_starts
        self.position = np.zeros(self.num_envs, dtype=np.int64)

    def _start(self, rows):
        draws = self.np_random.integers(self.n_starts, size=int(rows.sum()))
        self.position[rows] = start_position(draws, self.lf_min, self.goal)

    def _check_actions(self, actions):
        return check_discrete_actions(actions, self.num_envs, 2)

    def _advance(self, actions, active):
        self.position, reward, at_goal = walk_rules(
            self.position, actions, self.goal, self.lf_min, self.rt_max, ARRAY_OPS
        )
        return reward.astype(np.float64), at_goal, np.zeros(self.num_envs, dtype=bool), {"dist": self.goal - self.position}

    def _observe(self):
        return self.position.copy()

    def _start_info(self):
        return {"dist": self.goal - self.position}

    def render(self):
        if self.render_mode == "rgb_array":
            return tuple(rgb_frame(p, self.goal, self.lf_min, self.rt_max) for p in self.position.tolist())
        if self.render_mode == "ansi":
            return "".join(ansi_line(p, self.goal, self.lf_min, self.rt_max) + "\n" for p in self.position.tolist())
        return None
