# The tests' tiny environment, written as docs/contributing.md tells a contributor to write one:
# this manual, the constants, the parameters, the state, the rules (with the heuristic and the
# pictures), the env classes, then its registry row, as another package registers its own.
"""``gym_suite_test/coin-v0``: guess the next flip of a fair coin.

## Description

Each step the agent guesses the next flip of a fair coin, heads or tails, and is paid for a
right guess; the episode ends after ``flips`` heads. The heuristic always guesses heads.

```python
>>> import gymnasium as gym
>>> env = gym.make("coin_env:gym_suite_test/coin-v0", flips=2)
>>> obs, info = env.reset(seed=3)
>>> obs == 0, info
(True, {'heads': 0})
>>> env.unwrapped.heuristic(obs)
1

```

## Action Space

`Discrete(2)`: 1 guesses heads, 0 tails.

## Observation Space

`Discrete(flips + 1)`: the heads so far.

## Rewards

+1 for a right guess, -1 for a wrong one.

## Starting State

No heads and no flip yet. The start takes one uniform of ``env.np_random`` and does not use it.

## Episode End

1. Termination: the ``flips``-th heads.
2. Truncation: 20 steps, the registered step limit.

``info`` holds ``heads`` after ``reset`` and ``flip`` (1 heads, 0 tails) after a step.

## Arguments

No argument is data (``data_parameters`` is empty).

## Version History

* v0: first release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

import gym_suite
from gym_suite.envs._shells import SuiteEnv, SuiteVectorEnv
from gym_suite.envs.checks import Argument
from gym_suite.envs.definition import Definition, Ops, state_maker

HEADS, TAILS, NO_FLIP = 1, 0, -1
REWARD_RIGHT, REWARD_WRONG = 1.0, -1.0  # a right guess, a wrong one
MAX_FLIPS = 1000  # the most heads an episode may take (every argument is bounded)


@dataclass(frozen=True)
class CoinParams:
    #: the heads that end the episode
    flips: int = 3


V0 = CoinParams()


class CoinState(NamedTuple):
    heads: Any
    last: Any  # the last flip: HEADS, TAILS or NO_FLIP


_new_state = state_maker(CoinState)


class Coin(Definition[CoinState, CoinParams]):
    """The rules of coin-v0."""

    name = "coin"
    State = CoinState
    arguments = (Argument("flips", int, "heads that end the episode", low=1, high=MAX_FLIPS),)
    start_draws = 1
    step_draws = 1

    def spaces(self, params: CoinParams) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        observation: spaces.Discrete[np.int64] = spaces.Discrete(params.flips + 1)
        return observation, spaces.Discrete(2)

    def initial(self, u: Any, params: CoinParams, ops: Ops) -> CoinState:
        zero = ops.floor_int(0.0 * u[0])  # an integer zero of the backend's kind
        return CoinState(zero, zero + NO_FLIP)

    def transition(self, state: CoinState, action: Any, u: Any, params: CoinParams, ops: Ops) -> CoinState:
        flip = ops.where(u[0] < 0.5, HEADS, TAILS)
        return _new_state((state.heads + flip, flip))

    def observation(self, state: CoinState, params: CoinParams, ops: Ops) -> Any:
        return ops.copy(state.heads)

    def reward(self, state: CoinState, action: Any, next_state: CoinState, params: CoinParams, ops: Ops) -> Any:
        return ops.where(action == next_state.last, REWARD_RIGHT, REWARD_WRONG)

    def terminal(self, state: CoinState, params: CoinParams, ops: Ops) -> Any:
        return state.heads >= params.flips

    def info(
        self, state: CoinState | None, action: Any, next_state: CoinState, params: CoinParams, ops: Ops
    ) -> dict[str, Any]:
        if state is None:  # a start
            return {"heads": ops.copy(next_state.heads)}
        return {"flip": ops.copy(next_state.last)}

    def heuristic(self, observation: Any, params: CoinParams, ops: Ops) -> Any:
        """Guess heads."""
        return HEADS

    def render(self, state: CoinState, params: CoinParams, mode: str) -> Any:
        if mode == "ansi":
            return f"heads {state.heads}, last {state.last}\n"
        frame = np.zeros((1, params.flips, 3), dtype=np.uint8)  # a strip: one white cell per head
        frame[0, : state.heads] = 255
        return frame


COIN = Coin()


class CoinEnv(SuiteEnv):
    __doc__ = __doc__  # the manual: this module's docstring
    definition, base_params = COIN, V0


class CoinVectorEnv(SuiteVectorEnv):
    """``num_envs`` coin-v0 environments in numpy arrays, next-step autoreset."""

    scalar_env = CoinEnv


# The row, registered when the module is imported (a package's __init__.py).
COIN_ID = "gym_suite_test/coin-v0"
gym_suite.register(
    COIN_ID,
    definition=f"{__name__}:COIN",
    params=f"{__name__}:V0",
    max_episode_steps=20,
    summary="Guess the next flip of a fair coin.",
)
