"""``heartpole-v0`` and ``heartpole-v1``: balance productivity against health, one half-hour of work per step.

The rules follow Vadim Liventsev's HeartPole tutorial, "Writing a custom Gymnasium environment"
(https://github.com/vadim0x60/heartpole, notebook ``HeartPole.ipynb``; PyPI package
``heartpole``). Every formula below is the tutorial's; the names of the constants say which.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from gymnasium import spaces

from gym_suite.envs._base import (
    ARRAY_OPS,
    SCALAR_OPS,
    SuiteEnv,
    SuiteVectorEnv,
    check_discrete_action,
    check_discrete_actions,
    check_number,
    sigmoid,
)

# --------------------------------------------------------------------------------------------
# The model (HeartPole tutorial). One step of the environment is one half-hour of work.
# --------------------------------------------------------------------------------------------

DO_NOTHING, DRINK_COFFEE, DRINK_BEER, SLEEP = 0, 1, 2, 3
ACTION_NAMES = ("do_nothing", "drink_coffee", "drink_beer", "sleep")  # the tutorial's function names
ACTION_NAME_ARRAY = np.array(ACTION_NAMES, dtype=object)
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

#: Uniform [0, 1) numbers drawn for every step, whatever the action: alertness change,
#: hypertension change, intoxication change, wake-up alertness, heart-attack draw. A fixed count
#: keeps the scalar env and each row of the vector env on the same random stream.
UNIFORMS_PER_STEP = 5
MAX_EPISODE_STEPS = 1000  # registered with the spec: gymnasium.make's TimeLimit


def _scalar_sigmoids(*xs):
    return [sigmoid(x, SCALAR_OPS) for x in xs]


#: Above this many bytes, the arguments of ``sigmoids`` are not stacked: glibc's malloc serves
#: blocks of 128 KiB and more with fresh pages (mmap), and the page faults on the stacked
#: temporaries cost more than the calls that stacking saves (N=4,096: 5.7 instead of 9.8
#: million env-steps/s).
STACK_BYTES = 64 * 1024


def _array_sigmoids(*xs):
    if len(xs) * xs[0].nbytes <= STACK_BYTES:  # small batches: one pass, fewer numpy calls
        return sigmoid(np.array(xs), ARRAY_OPS)
    return [sigmoid(x, ARRAY_OPS) for x in xs]  # the same values, element by element


def _scalar_only_where(mask, fn, x, *shared):
    return fn(x, *shared) if mask else 0.0


def _array_only_where(mask, fn, x, *shared):
    out = np.zeros(mask.shape)
    rows = np.flatnonzero(mask)
    if rows.size:
        out[rows] = fn(x[rows], *shared)
    return out


#: The ops of gym_suite.envs._base plus ``sigmoids(*xs)``, the sigmoid of several arguments at
#: once, and ``only_where(mask, fn, x, *shared)``: ``fn(x, *shared)`` where ``mask`` holds and 0
#: elsewhere, with ``fn`` evaluated only there (for arrays: on the rows of ``mask`` alone).
RULE_SCALAR_OPS = SimpleNamespace(**vars(SCALAR_OPS), sigmoids=_scalar_sigmoids, only_where=_scalar_only_where)
RULE_ARRAY_OPS = SimpleNamespace(**vars(ARRAY_OPS), sigmoids=_array_sigmoids, only_where=_array_only_where)


@dataclass(frozen=True)
class HeartPoleRules:
    """Where heartpole-v1's rules differ from heartpole-v0's: the switches of :func:`heartpole_rules`.

    ``reward``: ``"score"`` (v0: the change of ``work_done / time_elapsed``) or ``"work"`` (v1:
    the half-hour's productivity). ``hazard``: ``"end_of_step"`` (v0: one heart-attack chance a
    step, at its end) or ``"every_half_hour"`` (v1: one for every half-hour that passes, the 16
    of a night included, with hypertension decaying through the night; the step's probability is
    that of at least one). ``reset_hypertension_after_attack``: v0 sets hypertension to 0 after
    an attack, v1 leaves it. ``expected_cost``: the reward loses ``100 x`` the step's attack
    probability (v1) instead of 100 when the drawn attack strikes (v0; v1 with
    ``expected_cost=False``); the attack is drawn either way.
    """

    reward: str = "score"
    hazard: str = "end_of_step"
    reset_hypertension_after_attack: bool = True
    expected_cost: bool = False

    def __post_init__(self):
        if self.reward not in ("score", "work"):
            raise ValueError(f"reward must be 'score' or 'work', got {self.reward!r}")
        if self.hazard not in ("end_of_step", "every_half_hour"):
            raise ValueError(f"hazard must be 'end_of_step' or 'every_half_hour', got {self.hazard!r}")


V0_RULES = HeartPoleRules()
V1_RULES = HeartPoleRules(reward="work", hazard="every_half_hour", reset_hypertension_after_attack=False,
                          expected_cost=True)
V1_DRAWN_COST_RULES = HeartPoleRules(reward="work", hazard="every_half_hour", reset_hypertension_after_attack=False,
                                     expected_cost=False)


def night_attack_probability(hypertension, heart_attack_proclivity, k, ops):
    """The chance of at least one heart attack over the 16 half-hours of a night (v1's hazard).

    At the end of night half-hour ``h`` hypertension is ``hypertension * 0.97^h`` and the chance
    is ``proclivity * sigmoid(hypertension * 0.97^h - 6)``, as at the end of a half-hour of work.
    """
    survival = 1.0
    for risk in ops.sigmoids(*[hypertension * decay - k.HEART_ATTACK_HYPERTENSION for decay in k.NIGHT_DECAYS]):
        survival = survival * (1.0 - heart_attack_proclivity * risk)
    return 1.0 - survival


def heartpole_rules(state, action, uniforms, heart_attack_proclivity, k, ops, rules=V0_RULES):
    """One step (the action, a half-hour of work, the heart-attack draw) for floats or arrays.

    ``state`` holds the six quantities of ``STATE_NAMES``; ``uniforms`` the step's
    ``UNIFORMS_PER_STEP`` draws from U[0, 1) (floats, or arrays for a batch), each used only when
    the action needs it; ``k`` and ``ops`` are ``SCALAR_NUMBERS`` and ``RULE_SCALAR_OPS`` for
    floats, ``ARRAY_NUMBERS`` and ``RULE_ARRAY_OPS`` for arrays; ``rules`` is ``V0_RULES`` or
    ``V1_RULES`` (:class:`HeartPoleRules`). Returns ``(state, reward, heart_attack,
    productivity, heart_attack_probability)``.
    """
    alertness, hypertension, intoxication, time_since_slept, time_elapsed, work_done = state
    u_alertness, u_hypertension, u_intoxication, u_wake, u_heart = uniforms
    coffee = action == k.DRINK_COFFEE
    beer = action == k.DRINK_BEER
    sleep = action == k.SLEEP
    old_score = work_done / ops.maximum(time_elapsed, k.HALF_HOUR)  # work_done is 0 when time_elapsed is

    # The action, at the start of the step.
    alertness = alertness + u_alertness * (k.COFFEE_ALERTNESS * coffee - k.BEER_ALERTNESS * beer)
    hypertension = hypertension + (k.DRINK_HYPERTENSION * u_hypertension) * (coffee | beer)
    intoxication = intoxication + (k.BEER_INTOXICATION_LOW + k.BEER_INTOXICATION_RANGE * u_intoxication) * beer
    if rules.hazard == "every_half_hour":  # the night's 16 chances of a heart attack (sleepers only)
        night_attack = ops.only_where(sleep, night_attack_probability, hypertension, heart_attack_proclivity, k, ops)
    # Sleep in closed form: 16 half-hours pass, then wakeup overwrites alertness (so its decay
    # during the night does not matter) and time_since_slept.
    night_decay = ops.where(sleep, k.NIGHT_DECAY, k.NO_DECAY)
    hypertension = hypertension * night_decay
    intoxication = intoxication * night_decay
    time_elapsed = time_elapsed + k.HALF_HOURS_OF_SLEEP * sleep
    alertness = ops.where(sleep, k.WAKE_ALERTNESS_LOW + k.WAKE_ALERTNESS_RANGE * u_wake, alertness)
    time_since_slept = ops.where(sleep, k.JUST_WOKE, time_since_slept)

    # Work for a half-hour (the tutorial's work(): productivity, then half_hour_passed), and the
    # heart-attack risk at its end. 1 - sigmoid(alertness - 3) == sigmoid(3 - alertness).
    hypertension = hypertension * k.DECAY_RATE
    calm, sober, tiring, risk = ops.sigmoids(
        k.ANXIETY_ALERTNESS - alertness,
        (k.SOBER_LIMIT - intoxication) * k.SOBER_STEEPNESS,
        (time_since_slept - k.TIRING_ONSET) / k.TIRING_SCALE,
        hypertension - k.HEART_ATTACK_HYPERTENSION,
    )
    past_peak = intoxication - k.BALLMER_PEAK
    # the exponent is <= 0: the Ballmer peak never overflows
    ballmer = sober + k.BALLMER_PEAK_HEIGHT * ops.exp(past_peak * past_peak * k.BALLMER_PEAK_CURVATURE)
    productivity = alertness * calm * ballmer
    work_done = work_done + productivity
    alertness = alertness - tiring
    intoxication = intoxication * k.DECAY_RATE
    time_since_slept = time_since_slept + k.HALF_HOUR
    time_elapsed = time_elapsed + k.HALF_HOUR

    if rules.reward == "score":
        reward = work_done / time_elapsed - old_score
    else:
        reward = productivity
    heart_attack_probability = heart_attack_proclivity * risk
    if rules.hazard == "every_half_hour":  # at least one attack: in the night or after the work
        heart_attack_probability = heart_attack_probability + (1.0 - heart_attack_probability) * night_attack
    heart_attack = u_heart < heart_attack_probability
    if rules.expected_cost:
        reward = reward - k.HEART_ATTACK_PENALTY * heart_attack_probability
    else:
        reward = reward - k.HEART_ATTACK_PENALTY * heart_attack
    if rules.reset_hypertension_after_attack:
        hypertension = ops.where(heart_attack, k.AFTER_HEART_ATTACK, hypertension)
    state = (alertness, hypertension, intoxication, time_since_slept, time_elapsed, work_done)
    return state, reward, heart_attack, productivity, heart_attack_probability


#: The numbers :func:`heartpole_rules` reads by name (``k``): for Python floats, this module's
#: constants as they are ...
SCALAR_NUMBERS = sys.modules[__name__]
#: ... and for arrays, every numeric constant of the module as a 0-d array, which numpy combines
#: with an array about twice as fast as a Python float (at 64 rows), with identical results.
ARRAY_NUMBERS = SimpleNamespace(
    **{
        name: np.asarray(value)
        for name, value in list(globals().items())
        if name.isupper() and isinstance(value, (int, float)) and not isinstance(value, bool)
    },
    NIGHT_DECAYS=tuple(np.asarray(decay) for decay in NIGHT_DECAYS),
)


# --------------------------------------------------------------------------------------------
# The documented simple policy
# --------------------------------------------------------------------------------------------

#: Sleep once alertness falls below this (a fresh wake-up gives 0.7 .. 1.3). Tuned on 1,000
#: episodes among 0.2 .. 0.6 in steps of 0.05.
HEURISTIC_SLEEP_ALERTNESS = 0.4


def heuristic_actions(observation) -> np.ndarray:
    """Sleep when alertness drops below 0.4, otherwise keep working, without drinks.

    On heartpole-v0 every drink raises the blood pressure, and the heart attacks it makes
    likelier cost more (100 each) than the few units of score a coffee or a beer can add, so none
    pays. heartpole-v1 keeps the same rule, so that the versions compare; there a coffee while
    the blood pressure is low pays, and the rule is a weak baseline. Works on one observation
    (shape ``(6,)``) or a batch (``(N, 6)``); returns int64 actions.
    """
    alertness = np.asarray(observation, dtype=np.float64)[..., 0]
    return np.where(alertness < HEURISTIC_SLEEP_ALERTNESS, SLEEP, DO_NOTHING).astype(np.int64)


# --------------------------------------------------------------------------------------------
# The environments
# --------------------------------------------------------------------------------------------


class HeartPoleEnv(SuiteEnv):
    """
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
    productivity) far below zero; every sigmoid and exponential is evaluated in a form that
    cannot overflow.

    ## Rewards

    The change of the score ``work_done / time_elapsed`` over the step (the score is 0 before the
    first step), so an episode's return is its final score minus 100 per heart attack. After the
    work, a heart attack strikes with probability ``heart_attack_proclivity *
    sigmoid(hypertension - 6)``: the reward drops by 100 and hypertension is reset to 0.

    ## Starting State

    All six quantities are 0.

    ## Episode End

    Heart attacks do not end the episode, nothing terminates it.

    1. Truncation: 1000 steps, registered with the spec (``gymnasium.make`` adds ``TimeLimit``;
       ``gymnasium.make(..., max_episode_steps=N)`` changes it, ``-1`` removes it).

    ``info`` holds
    ``heart_attack`` (bool), ``heart_attack_probability`` (the chance it had this step: its
    expected cost is 100 times that), ``productivity`` (the half-hour's work) and ``action`` (the
    chosen action's name), in a fresh dict every step. ``heuristic`` sleeps when tired and otherwise
    keeps working without drinks (see :func:`heuristic_actions`).

    ## Arguments

    | Argument | Default | Meaning |
    |---|---|---|
    | `heart_attack_proclivity` | 0.5 | scales the heart-attack probability, in [0, 1] |
    | `render_mode` | None | `"ansi"` (the step's log), `"human"` (prints it) or `"rgb_array"` (a dashboard) |

    The state is ``env.state`` (the six quantities as floats) and ``env.np_random``: restoring
    both (and TimeLimit's step count) replays the same future.

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
    """


    #: The rules of this version (:class:`HeartPoleRules`) and the time_elapsed at which an
    #: episode is truncated (None: the step limit of the spec alone).
    rules = V0_RULES
    time_horizon: float | None = None

    def __init__(self, *, heart_attack_proclivity: float = DEFAULT_HEART_ATTACK_PROCLIVITY, render_mode: str | None = None):
        self._set_render_mode(render_mode)
        self.heart_attack_proclivity = check_number(
            type(self).__name__, "heart_attack_proclivity", heart_attack_proclivity, 0.0, 1.0
        )
        self.action_space = spaces.Discrete(len(ACTION_NAMES))
        inf = np.inf
        self.observation_space = spaces.Box(
            low=np.array([-inf, 0.0, 0.0, 0.0, 0.0, -inf], dtype=np.float32),
            high=np.full(len(STATE_NAMES), inf, dtype=np.float32),
            dtype=np.float32,
        )
        self.state = (0.0,) * len(STATE_NAMES)
        self.last_action = -1
        self.last_heart_attack = False

    def _start(self):
        self.state = (0.0,) * len(STATE_NAMES)
        self.last_action = -1
        self.last_heart_attack = False

    def _check_action(self, action):
        return check_discrete_action(action, 4)

    def _advance(self, action):
        uniforms = self.np_random.random(UNIFORMS_PER_STEP).tolist()
        self.state, reward, heart_attack, productivity, probability = heartpole_rules(
            self.state, action, uniforms, self.heart_attack_proclivity, SCALAR_NUMBERS, RULE_SCALAR_OPS, self.rules
        )
        self.last_action = action
        self.last_heart_attack = heart_attack
        info = {
            "heart_attack": heart_attack,
            "heart_attack_probability": probability,
            "productivity": productivity,
            "action": ACTION_NAMES[action],
        }
        truncated = self.time_horizon is not None and self.state[4] >= self.time_horizon
        return reward, False, truncated, info

    def _observe(self):
        return np.array(self.state, dtype=np.float32)

    def render(self):
        from gym_suite.envs.heartpole_render import ansi_log, rgb_dashboard

        if self.render_mode == "rgb_array":
            return rgb_dashboard(self.state, self.last_action, self.last_heart_attack)
        if self.render_mode in ("ansi", "human"):
            log = ansi_log(self.state, self.last_action, self.last_heart_attack)
            if self.render_mode == "ansi":
                return log
            print(log, end="")
        return None

    def heuristic(self, observation) -> int:
        """Sleep when alertness is below 0.4, otherwise keep working (:func:`heuristic_actions`)."""
        return int(heuristic_actions(observation))


class HeartPoleV1Env(HeartPoleEnv):
    """
    ## Description

    ``heartpole-v1``: the body of :class:`HeartPoleEnv` (the same actions, formulas and
    constants of Vadim Liventsev's HeartPole tutorial, https://github.com/vadim0x60/heartpole),
    in a task where the policy matters: two weeks of work, scored by the work done, with every
    half-hour's risk of a heart attack. Each step you may drink coffee (more alert, higher blood
    pressure), drink beer (less alert, higher blood pressure, tipsier: productivity doubles at
    the "Ballmer peak" of intoxication 0.135), sleep (16 half-hours) or do nothing, and then you
    work for a half-hour.

    A half-hour passing: alertness drops by ``sigmoid((time_since_slept - 40) / 10)``,
    hypertension and intoxication are multiplied by 0.97, time_since_slept and time_elapsed grow
    by 1. A half-hour of work produces ``productivity = alertness * (1 - sigmoid(alertness - 3))
    * ballmer(intoxication)``, with ``ballmer(x) = sigmoid((0.05 - x) * 50) + 2 * exp(-(x -
    0.135)^2 / (2 * 0.005^2))``. At the end of every half-hour that passes, asleep or awake, a
    heart attack strikes with probability ``heart_attack_proclivity * sigmoid(hypertension -
    6)`` (0.12 % a half-hour at rest, hypertension 0): attacks do not end the episode and leave
    hypertension as it is.

    ## Action Space

    `Discrete(4)`, applied at the start of the step:

    - 0 `do_nothing`
    - 1 `drink_coffee`: alertness += U(0, 1), hypertension += U(0, 0.3)
    - 2 `drink_beer`: alertness -= U(0, 0.5), hypertension += U(0, 0.3), intoxication += U(0.01, 0.03)
    - 3 `sleep`: 16 half-hours pass, then you wake up with alertness U(0.7, 1.3) and
      time_since_slept 0 (the step lasts 17 half-hours with its half-hour of work)

    ## Observation Space

    `Box(6,)` of `float32`, as in v0:

    | Num | Observation      | Min  | Max |
    |-----|------------------|------|-----|
    | 0   | alertness        | -Inf | Inf |
    | 1   | hypertension     | 0    | Inf |
    | 2   | intoxication     | 0    | Inf |
    | 3   | time_since_slept | 0    | Inf |
    | 4   | time_elapsed     | 0    | Inf |
    | 5   | work_done        | -Inf | Inf |

    Times are counted in half-hours; time_elapsed says how much of the two weeks is left, so the
    observation is the whole state. Alertness, and with it productivity, may fall below zero (an
    exhausted developer breaks things): never sleeping costs hundreds of thousands.

    ## Rewards

    The step's work, ``productivity``, less the expected cost of its heart attacks: ``100 x``
    the probability of at least one attack in the step's half-hours (one for a step awake, 17 for
    a sleep, with hypertension decaying by 0.97 each half-hour of the night). The return is the
    work done in the two weeks less 100 per expected attack. The attack is still drawn (one
    uniform against that probability) and reported in ``info``; ``expected_cost=False`` charges
    100 for a drawn attack instead: the same expected return, with about nine times the spread
    per episode (a standard deviation of about 90 instead of 10 for the heuristic).

    ## Starting State

    All six quantities are 0.

    ## Episode End

    Nothing terminates an episode.

    1. Truncation: when time_elapsed reaches 672 half-hours (two weeks), at the end of the step
       that reaches it (a sleep begun in the last 16 half-hours runs to its end: up to 688). The
       env returns ``truncated=True`` itself; the spec has no step limit (an episode is 40 to 672
       steps long).

    ``info`` holds ``heart_attack`` (bool: at least one in the step), ``heart_attack_probability``
    (its chance, whose 100-fold the reward subtracts), ``productivity`` (the half-hour's work) and
    ``action`` (the chosen action's name), in a fresh dict every step. ``heuristic`` is v0's rule
    (sleep when alertness < 0.4, no drinks; see :func:`heuristic_actions`), so the versions
    compare: on v1 a policy that drinks coffee while the blood pressure is low does far better.

    ## Arguments

    | Argument | Default | Meaning |
    |---|---|---|
    | `heart_attack_proclivity` | 0.5 | scales the heart-attack probability, in [0, 1] |
    | `expected_cost` | True | subtract 100 x the attack probability (False: 100 per drawn attack) |
    | `render_mode` | None | `"ansi"` (the step's log), `"human"` (prints it) or `"rgb_array"` (a dashboard) |

    ```python
    >>> import gymnasium as gym
    >>> env = gym.make("gym_suite:heartpole-v1")
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(3)  # sleep, then a half-hour of work
    >>> float(obs[4]), round(info["heart_attack_probability"], 4)  # 17 half-hours at rest
    (17.0, 0.0208)
    >>> envs = gym.make_vec("gym_suite:heartpole-v1", num_envs=8)  # numpy-native
    >>> envs.reset(seed=0)[0].shape
    (8, 6)

    ```

    ## Version History

    * v1: the reward is the half-hour's work (v0: the change of work_done / time_elapsed); the
      episode ends when time_elapsed reaches 672 half-hours (v0: after 1000 steps); every
      half-hour that passes carries its chance of a heart attack, the 16 of a night included
      (v0: one chance a step, at its end); an attack leaves hypertension as it is (v0: resets it
      to 0); the reward subtracts the attack's expected cost (v0: 100 per drawn attack). Why:
      on v0 the unavoidable attacks (about 1.2 an episode, 100 each) dwarf the whole
      productivity part of the return (about 3 at most), no drink ever pays, and the heuristic
      is optimal to within 0.001: no agent can do better than it. On v1 the work (hundreds a
      fortnight) and the attacks are on the same scale, coffee pays while the blood pressure is
      low, a drink still costs its attacks, and the return's spread per episode is about a
      tenth of v0's.
    * v0: first release, with the rules of ``heartpole`` 1.2 (see :class:`HeartPoleEnv`).
    """

    time_horizon = TWO_WEEKS

    def __init__(
        self,
        *,
        heart_attack_proclivity: float = DEFAULT_HEART_ATTACK_PROCLIVITY,
        expected_cost: bool = True,
        render_mode: str | None = None,
    ):
        super().__init__(heart_attack_proclivity=heart_attack_proclivity, render_mode=render_mode)
        if not isinstance(expected_cost, (bool, np.bool_)):
            raise TypeError(f"{type(self).__name__}: expected_cost must be True or False, got {expected_cost!r}")
        self.expected_cost = bool(expected_cost)
        self.rules = V1_RULES if self.expected_cost else V1_DRAWN_COST_RULES


class HeartPoleVectorEnv(SuiteVectorEnv):
    """``num_envs`` HeartPoles in numpy arrays, with the rules of :class:`HeartPoleEnv`.

    Every step draws five uniforms for each row that steps, in row order, so ``num_envs=1``
    follows the scalar env from the same seed. ``info`` holds the arrays ``heart_attack``,
    ``heart_attack_probability``, ``productivity`` and ``action`` (the action's name).
    """

    scalar_env = HeartPoleEnv

    def _setup(self):
        self.heart_attack_proclivity = self.single_env.heart_attack_proclivity
        self.rules = self.single_env.rules
        self.time_horizon = self.single_env.time_horizon
        self._proclivity = np.asarray(self.heart_attack_proclivity)
        n = self.num_envs
        self.state = tuple(np.zeros(n) for _ in STATE_NAMES)
        self.last_action = np.full(n, -1, dtype=np.int64)
        self.last_heart_attack = np.zeros(n, dtype=bool)
        self._uniforms = np.ones((n, UNIFORMS_PER_STEP))  # a reused buffer: see STACK_BYTES

    def _start(self, rows):
        for quantity in self.state:
            quantity[rows] = 0.0
        self.last_action[rows] = -1
        self.last_heart_attack[rows] = False

    def _check_actions(self, actions):
        return check_discrete_actions(actions, self.num_envs, 4)

    def _advance(self, actions, active):
        uniforms = self._uniforms
        if active.all():
            self.np_random.random(out=uniforms)
        else:  # rows that restart draw nothing (the scalar env's reset draws nothing either)
            uniforms[active] = self.np_random.random((int(active.sum()), UNIFORMS_PER_STEP))
        self.state, reward, heart_attack, productivity, probability = heartpole_rules(
            self.state, actions, uniforms.T, self._proclivity, ARRAY_NUMBERS, RULE_ARRAY_OPS, self.rules
        )
        self.last_action = actions.copy()
        self.last_heart_attack = heart_attack.copy()
        info = {
            "heart_attack": heart_attack,
            "heart_attack_probability": probability,
            "productivity": productivity,
            "action": ACTION_NAME_ARRAY[actions],
        }
        if self.time_horizon is None:
            truncated = np.zeros(self.num_envs, dtype=bool)
        else:
            truncated = self.state[4] >= self.time_horizon
        return reward, np.zeros(self.num_envs, dtype=bool), truncated, info

    def _observe(self):
        return np.array(self.state, dtype=np.float32).T  # (num_envs, 6), fresh memory

    def render(self):
        from gym_suite.envs.heartpole_render import ansi_log, rgb_dashboard

        rows = zip(zip(*(q.tolist() for q in self.state)), self.last_action.tolist(), self.last_heart_attack.tolist())
        if self.render_mode == "rgb_array":
            return tuple(rgb_dashboard(state, action, attack) for state, action, attack in rows)
        if self.render_mode == "ansi":
            return "".join(
                f"[{i}] " + ansi_log(state, action, attack).replace("\n", " | ", 1 + attack).rstrip("\n") + "\n"
                for i, (state, action, attack) in enumerate(rows)
            )
        return None


class HeartPoleV1VectorEnv(HeartPoleVectorEnv):
    """``num_envs`` copies of :class:`HeartPoleV1Env` (``heartpole-v1``) in numpy arrays.

    A row is truncated at the end of the step in which its time_elapsed reaches 672 half-hours
    and starts afresh on the next step (next-step autoreset); rows end at different steps.
    """

    scalar_env = HeartPoleV1Env
