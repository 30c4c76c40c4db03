"""``heartpole-v0`` and ``heartpole-v1``: balance productivity against health, one half-hour of work per step.

## Description

HeartPole, "CartPole for healthcare", from Vadim Liventsev's tutorial "Writing a custom
Gymnasium environment" (https://github.com/vadim0x60/heartpole, PyPI ``heartpole``). You are
a developer with an important project: maximise the work you get done without a heart
attack. Each step is one half-hour: you may drink coffee (more alert, higher blood
pressure), drink beer (less alert, higher blood pressure, tipsier: productivity doubles at
the "Ballmer peak" of intoxication 0.135), sleep or do nothing, and then you work for a
half-hour.

A half-hour passing: alertness drops by ``sigmoid((time_since_slept - 40) / 10)``,
hypertension and intoxication are multiplied by 0.97, time_since_slept and time_elapsed grow
by 1. A half-hour of work adds ``productivity = alertness * (1 - sigmoid(alertness - 3)) *
ballmer(intoxication)`` to work_done, with ``ballmer(x) = sigmoid((0.05 - x) * 50) +
2 * exp(-(x - 0.135)^2 / (2 * 0.005^2))``.

## Action Space

`Discrete(4)`, applied at the start of the step:

- 0 `do_nothing`
- 1 `drink_coffee`: alertness += U(0, 1), hypertension += U(0, 0.3)
- 2 `drink_beer`: alertness -= U(0, 0.5), hypertension += U(0, 0.3), intoxication += U(0.01, 0.03)
- 3 `sleep`: 16 half-hours pass, then you wake up with alertness U(0.7, 1.3) and
  time_since_slept 0

## Observation Space

`Box(6,)` of `float32`:

| Num | Observation      | Min  | Max |
|-----|------------------|------|-----|
| 0   | alertness        | -Inf | Inf |
| 1   | hypertension     | 0    | Inf |
| 2   | intoxication     | 0    | Inf |
| 3   | time_since_slept | 0    | Inf |
| 4   | time_elapsed     | 0    | Inf |
| 5   | work_done        | -Inf | Inf |

Times are counted in half-hours. An agent that never sleeps drives alertness (and its
productivity) far below zero.

## Rewards

The change of the score ``work_done / time_elapsed`` over the step (the score is 0 before the
first step), so an episode's return is its final score minus 100 per heart attack. After the
work, a heart attack strikes with probability ``heart_attack_proclivity *
sigmoid(hypertension - 6)``: the reward drops by 100 and hypertension is reset to 0.

## Starting State

All six quantities are 0.

## Episode End

1. Termination: none (a heart attack does not end the episode).
2. Truncation: 1000 steps, registered with the spec (``gymnasium.make`` adds ``TimeLimit``;
   ``gymnasium.make(..., max_episode_steps=N)`` changes it, ``-1`` removes it).

``info`` holds ``heart_attack`` (bool), ``heart_attack_probability`` (the chance it had this
step), ``productivity`` (the half-hour's work) and ``action`` (the chosen action's name), in a
fresh dict every step. ``heuristic`` sleeps when tired and otherwise keeps working without
drinks (see :meth:`HeartPole.heuristic`).

## Arguments

On JAX (``gym_suite.jax.make``) ``heart_attack_proclivity`` is data in ``params``
(``params.replace(heart_attack_proclivity=0.3)``, ``jax.vmap`` over a batch of params);
``expected_cost`` chooses the reward's rule, so it stays static (an argument of ``make``).

The state is ``env.unwrapped.state`` (a :class:`HeartPoleState`: the six quantities and the
last step's record) and ``env.unwrapped.np_random``: restoring both (and TimeLimit's step count)
replays the same future.

```python
>>> import gymnasium as gym
>>> env = gym.make("gym_suite:heartpole-v0", render_mode="ansi")
>>> obs, info = env.reset(seed=0)
>>> obs.tolist()
[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
>>> obs, reward, terminated, truncated, info = env.step(3)  # sleep, then a half-hour of work
>>> info["action"], float(obs[4])
('sleep', 17.0)
>>> envs = gym.make_vec("gym_suite:heartpole-v0", num_envs=8)  # numpy-native
>>> envs.reset(seed=0)[0].shape
(8, 6)

```

## Version History

* v0: first release, with the rules of ``heartpole`` 1.2. Unlike that release, ``reset``
  starts from all zeros instead of waking up with alertness U(0.7, 1.3); randomness comes
  from the seeded ``np_random`` instead of numpy's global generator; episodes are truncated
  after 1000 steps; ``info`` reports the step; the log is the last step's, not a string that
  grows with every step until ``render`` prints it.
* v1 (``heartpole-v1``, :class:`HeartPoleV1Env`): the same body over two weeks, rewarding the
  work done and charging every half-hour's heart-attack risk at its expected cost.
* v0, before any release: the rules became one definition for Python floats, numpy and JAX;
  the sigmoid is computed as ``(1 + tanh(x / 2)) / 2`` (equal to within a few units in the
  last place); ``expected_cost`` became an argument of v0 too (default ``False``: unchanged).
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from gymnasium import spaces

from gym_suite.envs._draw import GLYPH_HEIGHT, LINE_HEIGHT, draw_text, draw_text_centred, draw_text_right
from gym_suite.envs._shells import SuiteEnv, SuiteVectorEnv
from gym_suite.envs.checks import Argument
from gym_suite.envs.definition import NUMPY, Definition, FloatArray, Ops, state_maker

if TYPE_CHECKING:
    import numpy.typing as npt

V1_MANUAL = """
## Description

``heartpole-v1``: the body of heartpole-v0 (the same actions, formulas and constants of Vadim
Liventsev's HeartPole tutorial, https://github.com/vadim0x60/heartpole; see
:class:`HeartPoleEnv` for them) in a task where the policy matters: two weeks of work, scored
by the work done, with every half-hour's risk of a heart attack.

## Action Space

v0's: `Discrete(4)`, 0 `do_nothing`, 1 `drink_coffee`, 2 `drink_beer`, 3 `sleep`.

## Observation Space

v0's: `Box(6,)` of `float32`, the six quantities. time_elapsed tells the time left, so the
observation is the whole state.

## Rewards

The step's work, ``productivity``, less the expected cost of its heart attacks: ``100 x`` the
probability of at least one attack in the step's half-hours. The return is the work done in the
two weeks less 100 per expected attack. The attack is still drawn (one uniform against that
probability) and reported in ``info``; ``expected_cost=False`` charges 100 for a drawn attack
instead: the same expected return, with a far larger spread.

At the end of every half-hour that passes, asleep or awake, a heart attack strikes with
probability ``heart_attack_proclivity * sigmoid(hypertension - 6)``: a sleep step carries the 16
chances of its night (hypertension decaying by 0.97 each half-hour) and the one of its half-hour
of work. An attack leaves hypertension as it is (v0 resets it to 0).

## Starting State

All six quantities are 0, as in v0.

## Episode End

1. Termination: none.
2. Truncation: when time_elapsed reaches 672 half-hours (two weeks), at the end of the step that
   reaches it (a sleep begun in the last 16 half-hours runs to its end: up to 688). The env
   returns ``truncated=True`` itself; the spec has no step limit (an episode is 40 to 672 steps
   long).

``info`` and the heuristic (v0's rule, so the versions compare) are v0's.

## Arguments

On JAX ``heart_attack_proclivity`` is data in ``params``; ``expected_cost`` stays static, as in v0.

```python
>>> import gymnasium as gym
>>> env = gym.make("gym_suite:heartpole-v1")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(3)  # sleep, then a half-hour of work
>>> float(obs[4]), round(info["heart_attack_probability"], 4)  # 17 half-hours at rest
(17.0, 0.0208)

```

## Version History

* v1: the reward is the half-hour's work (v0: the change of work_done / time_elapsed); the
  episode ends when time_elapsed reaches 672 half-hours (v0: after 1000 steps); every
  half-hour that passes carries its chance of a heart attack, the 16 of a night included
  (v0: one chance a step, at its end); an attack leaves hypertension as it is (v0: resets it
  to 0); the reward subtracts the attack's expected cost (v0: 100 per drawn attack).
* v0: first release, with the rules of ``heartpole`` 1.2 (see :class:`HeartPoleEnv`).
"""

# -- The constants of the model (HeartPole tutorial); every formula below is the tutorial's

DO_NOTHING, DRINK_COFFEE, DRINK_BEER, SLEEP = 0, 1, 2, 3
ACTION_NAMES = ("do_nothing", "drink_coffee", "drink_beer", "sleep")  # the tutorial's function names
STATE_NAMES = ("alertness", "hypertension", "intoxication", "time_since_slept", "time_elapsed", "work_done")

COFFEE_ALERTNESS = 1.0  # drink_coffee: alertness += U(0, 1)
DRINK_HYPERTENSION = 0.3  # drink_coffee and drink_beer: hypertension += U(0, 0.3)
BEER_ALERTNESS = 0.5  # drink_beer: alertness -= U(0, 0.5)
# drink_beer: intoxication += U(0.01, 0.03), blood alcohol per drink (the tutorial's source:
# https://attorneydwi.com/b-a-c-per-drink/)
BEER_INTOXICATION_LOW, BEER_INTOXICATION_HIGH = 0.01, 0.03
BEER_INTOXICATION_RANGE = BEER_INTOXICATION_HIGH - BEER_INTOXICATION_LOW
WAKE_ALERTNESS_LOW, WAKE_ALERTNESS_HIGH = 0.7, 1.3  # wakeup: alertness = U(0.7, 1.3)
WAKE_ALERTNESS_RANGE = WAKE_ALERTNESS_HIGH - WAKE_ALERTNESS_LOW
HALF_HOURS_OF_SLEEP = 16.0  # sleep: "16 half-hours of healthy sleep", then wakeup
HALF_HOUR = 1.0  # the unit of time_since_slept and time_elapsed
JUST_WOKE = 0.0  # wakeup: time_since_slept = 0

DECAY_RATE = 0.97  # half_hour_passed: hypertension and intoxication shrink by 3 % per half-hour
NIGHT_DECAY = DECAY_RATE**HALF_HOURS_OF_SLEEP  # the same over a whole sleep
NO_DECAY = 1.0
TIRING_ONSET = 40.0  # alertness_decay: sigmoid((time_since_slept - 40) / 10) per half-hour
TIRING_SCALE = 10.0
ANXIETY_ALERTNESS = 3.0  # crippling_anxiety: productivity *= 1 - sigmoid(alertness - 3)
SOBER_LIMIT = 0.05  # ballmer_function: sigmoid((0.05 - intoxication) * 50) ...
SOBER_STEEPNESS = 50.0
BALLMER_PEAK = 0.135  # ... + 2 * gaussian(intoxication, 0.135, 0.005): the Ballmer peak
BALLMER_PEAK_WIDTH = 0.005
BALLMER_PEAK_HEIGHT = 2.0
BALLMER_PEAK_CURVATURE = -0.5 / BALLMER_PEAK_WIDTH**2  # gaussian = exp(curvature * (x - peak)^2)
HEART_ATTACK_HYPERTENSION = 6.0  # heart_attack_risk: proclivity * sigmoid(hypertension - 6)
HEART_ATTACK_PENALTY = 100.0  # reward -= 100 on a heart attack ...
AFTER_HEART_ATTACK = 0.0  # ... and hypertension = 0: "painful, but cleansing" (v0 only)
DEFAULT_HEART_ATTACK_PROCLIVITY = 0.5
#: The hypertension factor at the end of each half-hour of a night, 1 .. 16 (v1's hazard).
NIGHT_DECAYS = tuple(DECAY_RATE ** (h + 1) for h in range(int(HALF_HOURS_OF_SLEEP)))
TWO_WEEKS = 672.0  # heartpole-v1 ends when time_elapsed reaches two weeks of half-hours
NO_HORIZON = math.inf

#: Sleep once alertness falls below this (a fresh wake-up gives 0.7 .. 1.3).
HEURISTIC_SLEEP_ALERTNESS = 0.4


@dataclass(frozen=True)
class HeartPoleParams:
    """What a HeartPole is made of; ``V0`` and ``V1`` are the registered sets."""

    #: scales the heart-attack probability, in [0, 1] (an argument of both versions)
    heart_attack_proclivity: float = DEFAULT_HEART_ATTACK_PROCLIVITY
    #: the reward subtracts 100 x the step's attack probability (True) or 100 per drawn attack
    expected_cost: bool = False
    #: the reward is the half-hour's work (v1) instead of the change of work_done / time_elapsed
    reward_work: bool = False
    #: every half-hour of a night carries its heart-attack chance (v1), not only the step's end
    night_hazard: bool = False
    #: an attack resets hypertension to 0 (v0's "painful, but cleansing")
    attack_resets_hypertension: bool = True
    #: the episode is truncated when time_elapsed reaches this many half-hours (v1: two weeks)
    time_horizon: float = NO_HORIZON


V0 = HeartPoleParams()
V1 = HeartPoleParams(
    expected_cost=True, reward_work=True, night_hazard=True, attack_resets_hypertension=False, time_horizon=TWO_WEEKS
)


class HeartPoleState(NamedTuple):
    """The six observed quantities, then the record of the last step (for reward, info, pictures)."""

    alertness: Any
    hypertension: Any
    intoxication: Any
    time_since_slept: Any
    time_elapsed: Any
    work_done: Any
    last_action: Any  # -1 after a start
    heart_attack: Any
    heart_attack_probability: Any
    productivity: Any


_new_state = state_maker(HeartPoleState)


# -- Beyond Ops: each takes ``ops`` first and its fastest way on each backend, the same values

#: Up to this many bytes :func:`sigmoids` stacks its arguments (fewer numpy calls, more page faults).
STACK_BYTES = 64 * 1024


def sigmoids(ops: Ops, *xs: Any, tanh: Callable[[float], float] = math.tanh) -> Any:
    """``0.5 + 0.5 * tanh(0.5 * x)`` of each ``x`` (never overflowing): ``a, b = sigmoids(ops, x, y)``."""
    name = ops.name
    if name == "scalar":
        if len(xs) == 4:  # the rules' four written out: faster than a comprehension
            a, b, c, d = xs
            return [
                0.5 + 0.5 * tanh(0.5 * a),
                0.5 + 0.5 * tanh(0.5 * b),
                0.5 + 0.5 * tanh(0.5 * c),
                0.5 + 0.5 * tanh(0.5 * d),
            ]
        return [0.5 + 0.5 * tanh(0.5 * x) for x in xs]
    if name == "numpy":
        if len(xs) * np.asarray(xs[0]).nbytes <= STACK_BYTES:  # small batches: one pass
            return _numpy_sigmoid(np.array(xs))
        return [_numpy_sigmoid(x) for x in xs]
    import jax.numpy as jnp

    return [0.5 + 0.5 * jnp.tanh(0.5 * x) for x in xs]


def _numpy_sigmoid(x: FloatArray) -> FloatArray:
    s = np.multiply(x, 0.5)  # 0.5 + 0.5 * tanh(0.5 * x), in place
    if s.__class__ is not np.ndarray:  # a number
        return 0.5 + 0.5 * np.tanh(s)
    np.tanh(s, out=s)
    np.multiply(s, 0.5, out=s)
    return np.add(s, 0.5, out=s)


@functools.cache
def _one_hots(n: int) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(i == j) for j in range(n)) for i in range(n))


#: a dict's lookup is faster than the cache's call
_ONE_HOTS = {n: _one_hots(n) for n in range(1, 17)}


@functools.cache
def _arange_column(n: int, ndim: int) -> npt.NDArray[np.int64]:
    column = np.arange(n).reshape((n,) + (1,) * ndim)
    column.flags.writeable = False
    return column


def one_hot(ops: Ops, index: Any, n: int) -> Any:
    """``n`` floats, 1.0 at ``index`` and 0.0 elsewhere (``(n, rows)`` on arrays): exact arithmetic, cheaper than flags."""
    name = ops.name
    if name == "scalar":
        table = _ONE_HOTS.get(n)
        return (table if table is not None else _one_hots(n))[index]
    if name == "numpy":
        rows: npt.NDArray[np.bool_] = index == _arange_column(n, np.ndim(index))  # (n, *index.shape)
        return rows.astype(np.float64)
    import jax.numpy as jnp  # JAX's own constants (a numpy one may not match its int type)

    column = jnp.arange(n).reshape((n,) + (1,) * jnp.ndim(index))
    return (jnp.asarray(index) == column).astype(jnp.result_type(float))


@functools.cache
def _constant_column(constants: tuple[float, ...], ndim: int) -> FloatArray:
    column = np.array(constants, dtype=np.float64).reshape((len(constants),) + (1,) * ndim)
    column.flags.writeable = False
    return column


def product(ops: Ops, fn: Callable[..., Any], constants: tuple[float, ...], *args: Any) -> Any:
    """The product of ``fn(c, *args)`` over ``constants`` in their order (on arrays ``fn`` runs once, on a column)."""
    name = ops.name
    if name == "scalar":
        return math.prod(map(fn, constants, *map(itertools.repeat, args)))
    if name == "numpy":
        column = _constant_column(constants, np.ndim(args[0]) if args else 0)
        return np.multiply.reduce(fn(column, *args), axis=0)
    import jax.numpy as jnp

    ndim = jnp.ndim(args[0]) if args else 0
    values = fn(jnp.asarray(constants).reshape((len(constants),) + (1,) * ndim), *args)
    return functools.reduce(operator.mul, [values[k] for k in range(len(constants))])


def only_where(ops: Ops, mask: Any, fn: Callable[..., Any], x: Any, *shared: Any) -> Any:
    """``fn(x, *shared)`` where ``mask`` holds, 0.0 elsewhere (on numpy ``fn`` runs on the masked rows alone)."""
    name = ops.name
    if name == "scalar":
        return fn(x, *shared) if mask else 0.0
    if name == "numpy":
        out = np.zeros(np.shape(mask))
        rows = np.flatnonzero(mask)
        if rows.size:
            out[rows] = fn(x[rows], *shared)
        return out
    return ops.where(mask, fn(x, *shared), 0.0)


@functools.cache
def _object_table(names: tuple[Any, ...]) -> npt.NDArray[np.object_]:
    table = np.empty(len(names), dtype=object)
    table[:] = names
    table.flags.writeable = False
    return table


def lookup(ops: Ops, names: tuple[Any, ...], index: Any) -> Any:
    """``names[index]`` (an object array on numpy); under JAX, whose arrays hold no strings, ``index``."""
    name = ops.name
    if name == "scalar":
        return names[index]
    if name == "numpy":
        return _object_table(names).take(index)
    return index


# -- The rules


def night_attack_probability(hypertension: Any, heart_attack_proclivity: float, ops: Ops) -> Any:
    """The chance of at least one heart attack in the 16 half-hours of a night (v1's hazard)."""
    return 1.0 - product(ops, no_attack_after, NIGHT_DECAYS, hypertension, heart_attack_proclivity, ops)


def no_attack_after(decay: Any, hypertension: Any, heart_attack_proclivity: float, ops: Ops) -> Any:
    """``1 - proclivity * sigmoid(hypertension * decay - 6)``, no overflow for hypertension >= 0."""
    return 1.0 - heart_attack_proclivity / (1.0 + ops.exp(HEART_ATTACK_HYPERTENSION - hypertension * decay))


class HeartPole(Definition[HeartPoleState, HeartPoleParams]):
    """The rules of heartpole-v0 and heartpole-v1 (the parameters choose the version)."""

    name = "heartpole"
    State = HeartPoleState
    arguments = (
        Argument("heart_attack_proclivity", float, "scales the heart-attack probability", low=0.0, high=1.0),
        Argument(
            "expected_cost",
            bool,
            "subtract 100 x the step's attack probability instead of 100 per drawn attack (the same expected "
            "return, less spread: for training)",
        ),
    )
    data_parameters = ("heart_attack_proclivity",)
    #: Every step, whatever the action: alertness, hypertension, intoxication, wake-up, heart attack.
    step_draws = 5

    def spaces(self, params: HeartPoleParams) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        inf = np.inf
        observation_space = spaces.Box(
            low=np.array([-inf, 0.0, 0.0, 0.0, 0.0, -inf], dtype=np.float32),
            high=np.full(len(STATE_NAMES), inf, dtype=np.float32),
            dtype=np.float32,
        )
        return observation_space, spaces.Discrete(len(ACTION_NAMES))

    def initial(self, u: Any, params: HeartPoleParams, ops: Ops) -> HeartPoleState:
        return HeartPoleState(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1, False, 0.0, 0.0)

    def transition(
        self, state: HeartPoleState, action: Any, u: Any, params: HeartPoleParams, ops: Ops
    ) -> HeartPoleState:
        """The action, a half-hour of work, the heart-attack draw."""
        alertness, hypertension, intoxication, time_since_slept, time_elapsed, work_done, _, _, _, _ = state
        u_alertness, u_hypertension, u_intoxication, u_wake, u_heart = u
        _, coffee, beer, sleep = one_hot(ops, action, len(ACTION_NAMES))
        asleep = action == SLEEP
        proclivity = params.heart_attack_proclivity

        # The action, at the start of the step.
        alertness = alertness + u_alertness * (COFFEE_ALERTNESS * coffee - BEER_ALERTNESS * beer)
        hypertension = hypertension + (DRINK_HYPERTENSION * u_hypertension) * (coffee + beer)
        intoxication = intoxication + (BEER_INTOXICATION_LOW + BEER_INTOXICATION_RANGE * u_intoxication) * beer
        if params.night_hazard:  # the night's 16 chances of a heart attack (sleepers only)
            night_attack = only_where(ops, asleep, night_attack_probability, hypertension, proclivity, ops)
        # Sleep in closed form: 16 half-hours pass, then wakeup overwrites alertness and
        # time_since_slept (selections by arithmetic where it is exact).
        night_decay = NO_DECAY + (NIGHT_DECAY - NO_DECAY) * sleep
        hypertension = hypertension * night_decay
        intoxication = intoxication * night_decay
        time_elapsed = time_elapsed + HALF_HOURS_OF_SLEEP * sleep
        alertness = ops.where(asleep, WAKE_ALERTNESS_LOW + WAKE_ALERTNESS_RANGE * u_wake, alertness)
        time_since_slept = JUST_WOKE + time_since_slept * (1.0 - sleep)

        # Work for a half-hour, then the heart-attack risk. 1 - sigmoid(a - 3) == sigmoid(3 - a).
        hypertension = hypertension * DECAY_RATE
        calm, sober, tiring, risk = sigmoids(
            ops,
            ANXIETY_ALERTNESS - alertness,
            (SOBER_LIMIT - intoxication) * SOBER_STEEPNESS,
            (time_since_slept - TIRING_ONSET) / TIRING_SCALE,
            hypertension - HEART_ATTACK_HYPERTENSION,
        )
        past_peak = intoxication - BALLMER_PEAK
        ballmer = sober + BALLMER_PEAK_HEIGHT * ops.exp(past_peak * past_peak * BALLMER_PEAK_CURVATURE)
        productivity = alertness * calm * ballmer
        work_done = work_done + productivity
        alertness = alertness - tiring
        intoxication = intoxication * DECAY_RATE
        time_since_slept = time_since_slept + HALF_HOUR
        time_elapsed = time_elapsed + HALF_HOUR

        probability = proclivity * risk
        if params.night_hazard:  # at least one attack: in the night or after the work
            probability = probability + (1.0 - probability) * night_attack
        heart_attack = u_heart < probability
        if params.attack_resets_hypertension:  # to AFTER_HEART_ATTACK, 0
            hypertension = hypertension * (u_heart >= probability)
        quantities = (alertness, hypertension, intoxication, time_since_slept, time_elapsed, work_done)
        return _new_state((*quantities, action, heart_attack, probability, productivity))

    def observation(self, state: HeartPoleState, params: HeartPoleParams, ops: Ops) -> Any:
        return ops.vector(state[:6], np.float32)

    def reward(
        self, state: HeartPoleState, action: Any, next_state: HeartPoleState, params: HeartPoleParams, ops: Ops
    ) -> Any:
        if params.reward_work:
            reward = next_state.productivity
        else:  # the change of the score (0 / 1 before the first step)
            started = state.time_elapsed
            reward = next_state.work_done / next_state.time_elapsed - state.work_done / (started + (started == 0.0))
        if params.expected_cost:
            return reward - HEART_ATTACK_PENALTY * next_state.heart_attack_probability
        return reward - HEART_ATTACK_PENALTY * next_state.heart_attack

    def truncation(self, state: HeartPoleState, params: HeartPoleParams, ops: Ops) -> Any:
        return state.time_elapsed >= params.time_horizon

    def info(
        self, state: HeartPoleState | None, action: Any, next_state: HeartPoleState, params: HeartPoleParams, ops: Ops
    ) -> dict[str, Any]:
        if state is None:  # a start
            return {}
        return {
            "heart_attack": next_state.heart_attack,
            "heart_attack_probability": next_state.heart_attack_probability,
            "productivity": next_state.productivity,
            "action": lookup(ops, ACTION_NAMES, action),
        }

    def heuristic(self, observation: Any, params: HeartPoleParams, ops: Ops) -> Any:
        """Sleep when alertness drops below 0.4, otherwise keep working, without drinks."""
        alertness = ops.column(observation, 0)
        return ops.where(alertness < HEURISTIC_SLEEP_ALERTNESS, SLEEP, DO_NOTHING)

    def render(self, state: HeartPoleState, params: HeartPoleParams, mode: str) -> Any:
        if mode == "ansi":
            return ansi_log(state[:6], state.last_action, state.heart_attack)
        return rgb_dashboard(state[:6], state.last_action, state.heart_attack)


def heuristic_actions(observation: Any) -> npt.NDArray[np.int64]:
    """The heuristic for one observation (shape ``(6,)``) or a batch (``(N, 6)``): int64 actions."""
    return np.asarray(HEARTPOLE.heuristic(np.asarray(observation, dtype=np.float64), V0, NUMPY), dtype=np.int64)


# -- Pictures: the step's log (ansi) and a dashboard (rgb_array)

#: A bar is filled to v / (|v| + scale) (signed ones from the middle), full with an arrow past DASHBOARD_RANGE scales.
DASHBOARD_SCALES = (1.0, HEART_ATTACK_HYPERTENSION, BALLMER_PEAK, TIRING_ONSET, 48.0, 100.0)
DASHBOARD_SIGNED = (True, False, False, False, False, True)
DASHBOARD_COLOURS = ((230, 180, 30), (200, 40, 40), (150, 60, 190), (60, 110, 200), (110, 110, 110), (40, 160, 70))
ACTION_COLOURS = ((150, 150, 150), (120, 70, 30), (220, 170, 40), (40, 40, 120))
ACTION_LABELS = ("nothing", "coffee", "beer", "sleep")
FRAME_WIDTH, MARGIN = 256, 8
LABEL_HEIGHT = GLYPH_HEIGHT + 2  # a quantity's name and value, above its bar
BAR_HEIGHT, BAR_GAP = 10, 5
ROW_HEIGHT = LABEL_HEIGHT + BAR_HEIGHT + BAR_GAP
SLOT_HEIGHT = 12
TEXT_RGB, ZERO_RGB, ATTACK_RGB = (40, 40, 40), (60, 60, 60), (200, 0, 0)
DASHBOARD_RANGE, OVERFLOW_RGB, OVERFLOW_WIDTH = 10.0, (0, 0, 0), 6


def ansi_log(state: Sequence[float], last_action: int, heart_attack: bool) -> str:
    """The step's log: the chosen action, ``HEART ATTACK`` when one happened, the state."""
    chosen = "none (reset)" if last_action < 0 else ACTION_NAMES[last_action]
    quantities = "  ".join(f"{name} {value:.4g}" for name, value in zip(STATE_NAMES, state))
    return f"Chosen action: {chosen}\n" + ("HEART ATTACK\n" if heart_attack else "") + quantities + "\n"


def value_text(value: float) -> str:
    value = float(value)
    size = abs(value)
    if not np.isfinite(value) or size >= 1e7:
        return f"{value:.3g}"
    if size < 10:
        return f"{value:.3f}"
    if size < 1000:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def rgb_dashboard(state: Sequence[float], last_action: int, heart_attack: bool) -> npt.NDArray[np.uint8]:
    """A labelled bar per quantity, the four actions (the chosen one lit), a red frame on a heart attack."""
    rows = len(STATE_NAMES)
    height = MARGIN + rows * ROW_HEIGHT + SLOT_HEIGHT + 2 + 2 * LINE_HEIGHT + MARGIN
    frame = np.full((height, FRAME_WIDTH, 3), 245, dtype=np.uint8)
    length = FRAME_WIDTH - 2 * MARGIN
    right = MARGIN + length
    for row, (name, value, scale, signed, colour) in enumerate(
        zip(STATE_NAMES, state, DASHBOARD_SCALES, DASHBOARD_SIGNED, DASHBOARD_COLOURS)
    ):
        label = MARGIN + row * ROW_HEIGHT
        draw_text(frame, name, MARGIN, label, TEXT_RGB)
        draw_text_right(frame, value_text(value), right, label, TEXT_RGB)
        top = label + LABEL_HEIGHT
        frame[top : top + BAR_HEIGHT, MARGIN:right] = 215  # the bar's track
        over = abs(float(value)) > DASHBOARD_RANGE * scale  # NaN draws an empty bar
        fill = float(np.sign(value)) if over else float(np.nan_to_num(value / (abs(value) + scale)))
        if signed:
            middle = MARGIN + length // 2
            end = middle + int(round(fill * (length // 2)))
            frame[top : top + BAR_HEIGHT, min(middle, end) : max(middle, end) + 1] = colour
            frame[top : top + BAR_HEIGHT, middle] = ZERO_RGB  # zero
        else:
            frame[top : top + BAR_HEIGHT, MARGIN : MARGIN + int(round(fill * length))] = colour
        for dy in range(BAR_HEIGHT if over else 0):  # an arrow at the bar's end, pointing out of it
            reach = OVERFLOW_WIDTH * (BAR_HEIGHT - abs(2 * dy - BAR_HEIGHT + 1)) // BAR_HEIGHT + 1
            columns = slice(MARGIN, MARGIN + reach) if fill < 0 else slice(right - reach, right)
            frame[top + dy, columns] = OVERFLOW_RGB
    top = MARGIN + rows * ROW_HEIGHT
    slot = length // len(ACTION_NAMES)
    for action, (colour, action_label) in enumerate(zip(ACTION_COLOURS, ACTION_LABELS)):
        left = MARGIN + action * slot
        lit = action == last_action
        frame[top : top + SLOT_HEIGHT, left + 2 : left + slot - 2] = colour if lit else 225
        draw_text_centred(frame, action_label, left + slot // 2, top + SLOT_HEIGHT + 2, TEXT_RGB)
    if heart_attack:
        draw_text_centred(frame, "HEART ATTACK", FRAME_WIDTH // 2, top + SLOT_HEIGHT + 2 + LINE_HEIGHT, ATTACK_RGB)
        frame[:4], frame[-4:], frame[:, :4], frame[:, -4:] = 200, 200, 200, 200
        frame[:4, :, 1:] = frame[-4:, :, 1:] = frame[:, :4, 1:] = frame[:, -4:, 1:] = 0
    return frame


# -- The definition the registry names (gym_suite/_registry.py), and the env classes

HEARTPOLE = HeartPole()


class HeartPoleEnv(SuiteEnv):
    __doc__ = __doc__  # the manual; its Arguments table is written from the declared arguments
    definition, base_params = HEARTPOLE, V0


class HeartPoleVectorEnv(SuiteVectorEnv):
    """``num_envs`` :class:`HeartPoleEnv` in numpy arrays, next-step autoreset; also ``max_episode_steps``."""

    scalar_env = HeartPoleEnv


class HeartPoleV1Env(SuiteEnv):
    __doc__ = V1_MANUAL
    definition, base_params = HEARTPOLE, V1


class HeartPoleV1VectorEnv(SuiteVectorEnv):
    """``num_envs`` :class:`HeartPoleV1Env` in numpy arrays, next-step autoreset; also ``max_episode_steps``."""

    scalar_env = HeartPoleV1Env
