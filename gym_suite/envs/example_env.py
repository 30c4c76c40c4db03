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
MAX_EPISODE_STEPS = 10
CELL_PIXELS = 24  # rgb_array: width and height of one position


def goal_of(lf_min: int, rt_max: int) -> int:
    return (lf_min + rt_max - 1) // 2


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
    2. Truncation: 10 steps (``max_episode_steps``, registered with the spec).

    A ``step`` after the episode ended raises ``gymnasium.error.ResetNeeded``.

    ``info`` holds ``dist``, the goal minus the position, in a fresh dict every step.

    ## Arguments

    | Argument | Default | Meaning |
    |---|---|---|
    | `lf_min` | 1 | leftmost position |
    | `rt_max` | 10 | rightmost position (at least `lf_min + 2`) |
    | `render_mode` | None | `"ansi"`, `"human"` or `"rgb_array"` |
    | `max_episode_steps` | 10 | the env's own step limit (``None`` for none) |

    ```python
    >>> import gymnasium as gym
    >>> env = gym.make("gym_suite:example-v0", render_mode="ansi")
    >>> obs, info = env.reset(seed=0)

    ```

    ## Version History

    * v0: first release. Unlike the tutorial's code, ``step`` returns a tuple with ``bool``
      flags, the reward is not repeated at the step limit and the goal pays once.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    ARGUMENTS = {"render_mode": None, "max_episode_steps": MAX_EPISODE_STEPS, "lf_min": 1, "rt_max": 10}

    def __init__(self, env_config=None, **kwargs):
        cfg = self._configure(env_config, kwargs)
        owner = type(self).__name__
        self.lf_min = check_int(owner, "lf_min", cfg.lf_min, 0)
        self.rt_max = check_int(owner, "rt_max", cfg.rt_max, self.lf_min + 2)
        self.goal = goal_of(self.lf_min, self.rt_max)
        self.starts = [p for p in range(self.lf_min, self.rt_max) if p != self.goal]
        self.action_space = spaces.Discrete(2)
        self.observation_space = spaces.Discrete(self.rt_max + 1)
        self.position = self.starts[0]
        self.last_reward = None

    def reset(self, *, seed=None, options=None):
        self._start_reset(seed, options)
        self.position = self.starts[int(self.np_random.integers(len(self.starts)))]
        self.last_reward = None
        if self.render_mode == "human":
            self.render()
        return self.position, {"dist": self.goal - self.position}

    def step(self, action):
        self._start_step()
        action = check_discrete_action(action, 2)
        self.position, reward, at_goal = walk_rules(
            self.position, action, self.goal, self.lf_min, self.rt_max, SCALAR_OPS
        )
        self.last_reward = reward = float(reward)
        truncated = self._end_step(at_goal)
        if self.render_mode == "human":
            self.render()
        return self.position, reward, at_goal, truncated, {"dist": self.goal - self.position}

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

    metadata = {**SuiteVectorEnv.metadata, "render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    scalar_env = ExampleEnv

    def __init__(self, num_envs: int = 1, env_config=None, **kwargs):
        cfg = self._configure(num_envs, env_config, kwargs)
        single = ExampleEnv(lf_min=cfg.lf_min, rt_max=cfg.rt_max)  # validates the arguments
        self.lf_min, self.rt_max, self.goal = single.lf_min, single.rt_max, single.goal
        self._starts = np.array(single.starts, dtype=np.int64)
        self.single_action_space = single.action_space
        self.single_observation_space = single.observation_space
        self._batch_spaces()
        self.position = np.zeros(self.num_envs, dtype=np.int64)

    def _reset_rows(self, rows):
        self.position[rows] = self._starts[self.np_random.integers(len(self._starts), size=int(rows.sum()))]

    def _check_actions(self, actions):
        return check_discrete_actions(actions, self.num_envs, 2)

    def _advance(self, actions):
        self.position, reward, at_goal = walk_rules(
            self.position, actions, self.goal, self.lf_min, self.rt_max, ARRAY_OPS
        )
        return reward.astype(np.float64), at_goal, {"dist": self.goal - self.position}

    def _observe(self):
        return self.position.copy()

    def render(self):
        if self.render_mode == "rgb_array":
            return tuple(rgb_frame(p, self.goal, self.lf_min, self.rt_max) for p in self.position.tolist())
        if self.render_mode == "ansi":
            return "".join(ansi_line(p, self.goal, self.lf_min, self.rt_max) + "\n" for p in self.position.tolist())
        return None
