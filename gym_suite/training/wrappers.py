"""Wrappers of the training environments only: evaluation always scores the env's own rewards."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import RescaleAction

from gym_suite.envs.checks import check_number
from gym_suite.training.recipes import DEPRECATED_PENALTY, ExpectedPenalty


def check_reward_transform(owner: str, reward_scale, reward_offset) -> tuple[float, float]:
    """``(reward_scale, reward_offset)`` as floats: finite numbers, the scale not 0 (it would erase
    every reward)."""
    reward_scale = check_number(owner, "reward_scale", reward_scale)
    reward_offset = check_number(owner, "reward_offset", reward_offset)
    if reward_scale == 0.0:
        raise ValueError(f"{owner}: reward_scale must not be 0 (every reward would be 0); 1.0 leaves them as they are")
    return reward_scale, reward_offset


def acts_in_unit_box(space: spaces.Space) -> bool:
    """Whether agents act in ``[-1, 1]`` for this action space (a bounded float ``Box`` that is not already it).

    Gaussian policies start around 0 with unit spread: they explore a bounded ``Box`` only when
    it is ``[-1, 1]`` (Stable-Baselines3's advice, and what RLlib's ``normalize_actions`` does).
    """
    return (
        isinstance(space, spaces.Box)
        and np.issubdtype(space.dtype, np.floating)
        and space.is_bounded("both")
        and not (np.all(space.low == -1.0) and np.all(space.high == 1.0))
    )


def from_unit_box(actions: np.ndarray, space: spaces.Box) -> np.ndarray:
    """Actions in ``[-1, 1]`` mapped back to the bounds of ``space`` (clipped: rounding must not step out)."""
    low, high = space.low, space.high
    actions = low + (np.clip(actions, -1.0, 1.0) + 1.0) * 0.5 * (high - low)
    return np.clip(actions, low, high)


def stack_observations(observations: list, space: spaces.Space):
    """A batch of single observations as one array (a dict of arrays for a ``Dict`` space)."""
    if isinstance(space, spaces.Dict):
        return {key: np.stack([np.asarray(o[key]) for o in observations]) for key in space.spaces}
    return np.stack([np.asarray(o) for o in observations])


def env_actions(actions: np.ndarray, action_space: spaces.Space) -> list:
    """One action per row, as the env takes it: Python ints for ``Discrete``, arrays for ``Box``."""
    if isinstance(action_space, spaces.Discrete):
        return [int(a) for a in np.asarray(actions).reshape(-1).tolist()]
    return [np.asarray(a, dtype=action_space.dtype) for a in actions]


class ScaleReward(gymnasium.RewardWrapper):
    """Multiply every reward by a constant, after adding ``offset`` to it."""

    def __init__(self, env, scale: float, offset: float = 0.0):
        super().__init__(env)
        self.scale, self.offset = check_reward_transform("ScaleReward", scale, offset)

    def reward(self, reward):
        return self.scale * (float(reward) + self.offset)


def penalized_reward(reward, info, penalty: ExpectedPenalty):
    """Deprecated (see :class:`~gym_suite.training.recipes.ExpectedPenalty`): ``reward`` with the
    penalty's draw replaced by its expected cost, for one step or a batch (numpy arrays)."""
    event = np.asarray(info[penalty.event], dtype=np.float64)
    probability = np.asarray(info[penalty.probability], dtype=np.float64)
    return reward + penalty.size * event - penalty.size * probability


class ExpectedPenaltyReward(gymnasium.Wrapper):
    """Deprecated (the env's own ``expected_cost=True`` instead): the reward with a random penalty's
    draw replaced by its expected cost (:class:`ExpectedPenalty`)."""

    def __init__(self, env, penalty: ExpectedPenalty):
        warnings.warn(DEPRECATED_PENALTY, DeprecationWarning, stacklevel=2)
        super().__init__(env)
        self.penalty = penalty

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return obs, float(penalized_reward(float(reward), info, self.penalty)), terminated, truncated, info


def training_wrappers(
    env, reward_scale: float = 1.0, expected_penalty: ExpectedPenalty | None = None, reward_offset: float = 0.0
):
    """``env`` as an agent trains on it: actions in ``[-1, 1]``, shifted and scaled rewards.

    ``expected_penalty`` is deprecated: make the env with its expected-cost argument instead
    (:func:`gym_suite.training.recipes.training_env_kwargs` gives a recipe's).
    """
    reward_scale, reward_offset = check_reward_transform("training_wrappers", reward_scale, reward_offset)
    if expected_penalty is not None:
        with warnings.catch_warnings():  # ExpectedPenalty warned when it was made
            warnings.simplefilter("ignore", DeprecationWarning)
            env = ExpectedPenaltyReward(env, expected_penalty)
    if acts_in_unit_box(env.action_space):
        unit = np.ones(env.action_space.shape, dtype=env.action_space.dtype)
        env = RescaleAction(env, -unit, unit)
    if reward_scale != 1.0 or reward_offset != 0.0:
        env = ScaleReward(env, reward_scale, reward_offset)
    return env
