"""``push-v1``: decide *when* to deliver push notifications, under a daily budget, in a simulator.

## Description

push-v0 asks *whether* a person will open a notification, and scores each guess against the
logged reaction. gym-push's aim was to learn *when* to interrupt a person: here every
notification of a person's day arrives in turn, and the agent may deliver only a few of them
(``daily_budget``, 2 by default). Each one it delivers is opened with the probability the
bundled generator gives its context, and the agent earns that open. Timing matters: a
notification that is likely enough to be opened is worth delivering at 8:00 only if the rest of
the day is unlikely to bring a better one.

The notifications come from the same bundled logs as push-v0 (synthetic: 8 people, 336
user-days in each log): the training log by default, ``split="test"`` for the held-out test log
(the 6 weeks after), on which results are reported. The logs' ``p_open`` column (the
generator's true open probability, see ``gym-suite/tools/make_notifications.py``) drives the
simulation; it is never observed. A log of your own (``csv_path=`` or ``data=``, push-v0's
schema) needs that column.

## Action Space

`Discrete(2)`: 0 holds the notification back (it is never shown), 1 delivers it now (spending
one delivery of the day's budget).

## Observation Space

A `Dict`: push-v0's eleven keys (the notification's features and context: see
:class:`gym_suite.envs.push_env.PushEnv`; the same vocabularies, the same "other" index), plus

| Key | Space | Meaning |
|---|---|---|
| `budget_left` | `Box(0, daily_budget, (1,), float32)` | deliveries left today |
| `notifications_left` | `Box(0, 1000, (1,), float32)` | the day's notifications not yet decided, this one included |

The observation holds everything the rules use but the hidden open probabilities (the day's
count is known in advance, as a scheduler that batches a day's notifications knows it).

## Rewards

With ``expected_opens=True`` (the default) a delivered notification earns its open probability
``p_open`` (the expected open), and a held one 0: the return is the day's expected opens. The
open itself is still drawn (one uniform a step, against ``p_open``) and reported in ``info``;
``expected_opens=False`` rewards 1 per drawn open instead: the same expected return, with more
spread.

``env.heuristic(observation)`` keeps its budget for the day's best notifications: it gives a
notification points (:func:`rule_points`) and delivers when they reach
``4.5 - 11 * budget_left / notifications_left``, a bar that falls as the notifications left per
delivery run out (how its numbers were chosen: the notes below).

## Starting State

A user-day is the notifications of one user on one day, in time order: the log's rows are
sorted by user and timestamp (rows of one instant keep the log's order), and a new day starts
where the day of the week changes or 24 hours or more pass between two of the user's
consecutive notifications. An episode is one user-day, drawn uniformly (one uniform of
``env.np_random``) among the log's user-days; its first observation is the day's first
notification, with the whole budget left.

## Episode End

1. Termination: the budget is spent, or the day's last notification has been decided (nothing
   the agent does after either can change the return). The observation returned then is the
   last notification again, with what is left (0 budget or 0 notifications).
2. Truncation: none (a day ends by itself).

A ``step`` after termination raises ``gymnasium.error.ResetNeeded``. ``info`` after a step
describes the notification just decided: ``row`` (its index in the log), ``delivered`` (0 or
1), ``opened`` (1 if delivered and opened), and for the day so far ``opens`` and
``deliveries``. ``env.current_row`` is the log index of the observed notification, for analysis
(joining with the log), not for the policy. The state is ``env.unwrapped.state`` (a
:class:`PushV1State`); restoring it and ``env.unwrapped.np_random`` replays the same future.

The picture (``render_mode="rgb_array"``) is push-v0's card of the notification waiting for a
decision, the budget and the day's notifications left, and the last decision with its simulated
open; once the day is over, the last decided card and why the day ended. ``"ansi"``: the same in
words.

## Arguments

On JAX (``gym_suite.jax.make``) every argument stays static.

```python
>>> import gymnasium as gym
>>> env = gym.make("gym_suite:push-v1")
>>> obs, info = env.reset(seed=0)
>>> float(obs["budget_left"][0])
2.0
>>> obs, reward, terminated, truncated, info = env.step(1)  # deliver the first notification
>>> float(obs["budget_left"][0]), info["delivered"]
(1.0, 1)

```

## Version History

* v1: first release. What differs from push-v0: an episode is one user-day (v0: a window of 100
  notifications); a daily budget of deliveries (v0: none); a delivery is opened with the
  generator's probability, drawn anew (v0: the logged reaction replayed); the reward is the
  expected open of a delivery (v0: +1 for a right guess, -1 for a wrong one); the observation
  adds the budget and the notifications left. On v0 the task is a classification of each
  notification alone; v1 asks when to interrupt, a sequential decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

import numpy as np
from gymnasium import spaces

from gym_suite.envs._draw import LINE_HEIGHT, draw_text
from gym_suite.envs._shells import SuiteEnv, SuiteVectorEnv
from gym_suite.envs.checks import Argument, check_arguments
from gym_suite.envs.definition import Definition, Ops, state_maker
from gym_suite.envs.push_env import (
    ACTION_NAMES,
    BAND,
    CARD_HEIGHT,
    CARD_WIDTH,
    DELIVER,
    HOLD,
    LOG_ARGUMENTS,
    NO_ACTION,
    PUSH,
    LogParams,
    Push,
    card,
    describe,
    load_arguments_log,
)
from gym_suite.envs.push_log import CATEGORICAL_FIELDS, TRUTH, NotificationLog, _frozen, observation_space

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "DEFAULT_DAILY_BUDGET",
    "PUSH_V1",
    "PushV1",
    "PushV1Params",
    "PushV1State",
    "budget_rule",
    "rule_points",
    "user_days",
]

DEFAULT_DAILY_BUDGET = 2  # deliveries a user-day (why 2: docs/env-notes/push-v1.md)
MAX_DAILY_BUDGET = 50
#: A user-day holds at most this many notifications (the observation's bound; the bundled logs'
#: longest day has 46): a log with a longer day raises ``ValueError``.
MAX_DAY_NOTIFICATIONS = 1000
SECONDS_PER_DAY = 24 * 3600
NO_OPEN = -1  # info/state: nothing decided yet

# The heuristic's points and bar, set on the training log (docs/env-notes/push-v1.md).
RULE_CONTACT_POINTS = 2  # a significant contact sends it
RULE_SILENT_POINTS = 2  # taken away while the ringer is on silent
RULE_BAR = 4.5  # the bar is RULE_BAR - RULE_DROP * budget_left / notifications_left
RULE_DROP = 11.0

#: The constructor's arguments, in the order of the signature.
ARGUMENTS = (
    Argument("daily_budget", int, "deliveries allowed a user-day", low=1, high=MAX_DAILY_BUDGET),
    Argument("expected_opens", bool, "reward a delivery with its open probability (`False`: 1 per drawn open)"),
    *LOG_ARGUMENTS,
)


def user_days(log: NotificationLog) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """``(order, starts, lengths)`` of the log's user-days.

    ``order`` lists the log's rows sorted by user, then by time (rows of one instant in the order
    of the log); a user-day is ``order[s : s + n]`` for ``s, n`` in ``zip(starts, lengths)``: a
    new day starts where the user or the day of the week changes, or 24 hours or more pass,
    between two consecutive rows of ``order``. Sorted, a user's rows written out of time order
    (a week's Monday after the next week's) still fall on their own days.
    """
    order = np.lexsort((log.timestamps, log.users))  # stable: one instant's rows in the log's order
    users = log.users[order]
    weekday = log.codes[CATEGORICAL_FIELDS.index("day_of_week")][order]
    stamps = log.timestamps[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (
        (users[1:] != users[:-1])
        | (weekday[1:] != weekday[:-1])
        | (stamps[1:] - stamps[:-1] >= np.timedelta64(SECONDS_PER_DAY, "s"))
    )
    starts = np.flatnonzero(new)
    lengths = np.diff(np.append(starts, len(order)))
    return _frozen(order.astype(np.int64)), _frozen(starts.astype(np.int64)), _frozen(lengths.astype(np.int64))


@dataclass(frozen=True, eq=False)
class PushV1Params(LogParams):
    """The arguments of a push-v1 environment and what ``make_params`` derives from them.

    As :class:`~gym_suite.envs.push_env.LogParams` (push-v0's), with ``order``, ``day_starts``,
    ``day_lengths`` the user-days (see :func:`user_days`) and ``p_open`` the generator's open
    probabilities, read-only.
    """

    daily_budget: int = DEFAULT_DAILY_BUDGET
    expected_opens: bool = True
    # Filled by make_params:
    day_starts: Any = None
    day_lengths: Any = None
    p_open: Any = None

    _arguments: ClassVar[tuple[str, ...]] = ARGUMENTS

    @classmethod
    def _derive_own(cls, log: NotificationLog, arguments: dict[str, Any]) -> dict[str, Any]:
        order, starts, lengths = user_days(log)
        return {"order": order, "day_starts": starts, "day_lengths": lengths, "p_open": log.p_open}


DEFAULTS = PushV1Params()

#: push-v0's rules, for its observation of a row (it reads ``state.row``, ``codes`` and ``numbers``,
#: which push-v1's state and parameters have under the same names).
_V0: Any = PUSH


class PushV1State(NamedTuple):
    """Where the day is, what is left of it and of the budget, and the last decision."""

    position: Any  # where the day is in ``order``
    row: Any  # the observed row of the log: order[position]
    last: Any  # the day's last position
    left: Any  # the day's notifications not yet decided (the observed one included)
    budget: Any  # deliveries left
    opens: Any  # drawn opens so far
    deliveries: Any  # deliveries so far
    scored_row: Any  # the row the last step decided; -1 after a start
    last_action: Any  # the decision carried out (1 delivered, 0 held); -1 after a start
    opened: Any  # the last step's open (1 delivered and opened, else 0); -1 after a start


_new_state = state_maker(PushV1State)


class PushV1(Definition[PushV1State, PushV1Params]):
    """The rules of push-v1: a user-day of notifications, a budget of deliveries, simulated opens."""

    name = "push"
    State = PushV1State
    arguments = ARGUMENTS
    env_attributes = Push.env_attributes  # env.current_row and env.vocabularies, as push-v0's
    start_draws, step_draws = 1, 1  # the user-day; the open

    def make_params(self, base: PushV1Params, owner: str, **arguments: Any) -> PushV1Params:
        merged = check_arguments(ARGUMENTS, base, owner, arguments)
        log = load_arguments_log(merged, owner)
        if log.p_open is None:
            raise ValueError(
                f"{owner}: {log.source} has no {TRUTH!r} column; push-v1 simulates the opens from the true "
                "open probabilities, so its log needs them (push-v0 replays a log without them)"
            )
        params = PushV1Params._derive(log, merged)
        longest = int(params.day_lengths.max())
        if longest > MAX_DAY_NOTIFICATIONS:
            raise ValueError(
                f"{owner}: {log.source} has a user-day of {longest} notifications; push-v1 takes at most "
                f"{MAX_DAY_NOTIFICATIONS} a day (split the log's users, or use push-v0)"
            )
        return params

    def spaces(self, params: PushV1Params) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        fields = dict(observation_space(params.log.vocabularies).spaces)
        for key, high in (("budget_left", params.daily_budget), ("notifications_left", MAX_DAY_NOTIFICATIONS)):
            fields[key] = spaces.Box(np.float32(0), np.float32(high), shape=(1,), dtype=np.float32)
        return spaces.Dict(fields), spaces.Discrete(len(ACTION_NAMES))  # a Dict sorts its keys, as push-v0's

    def initial(self, u: Any, params: PushV1Params, ops: Ops) -> PushV1State:
        """A user-day drawn uniformly, the whole budget left."""
        (u_day,) = u
        count = len(params.day_starts)
        day = ops.minimum(ops.floor_int(u_day * count), count - 1)
        start, length = ops.take(params.day_starts, day), ops.take(params.day_lengths, day)
        row, last = ops.take(params.order, start), start + length - 1
        return PushV1State(start, row, last, length, params.daily_budget, 0, 0, NO_ACTION, NO_ACTION, NO_OPEN)

    def transition(self, state: PushV1State, action: Any, u: Any, params: PushV1Params, ops: Ops) -> PushV1State:
        """Deliver (or hold) the observed notification, draw its open, move to the next one. (Past
        the end, as a functional env may step, nothing more is delivered and the day stays over.)"""
        (u_open,) = u
        position, row, last, left, budget, opens, deliveries = state[:7]
        delivered = ops.minimum(action, budget)  # the action, or 0 once the budget is spent
        opened = delivered * (u_open < ops.take(params.p_open, row))
        position = ops.minimum(position + 1, last)
        return _new_state(
            (
                position,
                ops.take(params.order, position),
                last,
                ops.maximum(left - 1, 0),
                budget - delivered,
                opens + opened,
                deliveries + delivered,
                row,
                delivered,
                opened,
            )
        )

    def observation(self, state: PushV1State, params: PushV1Params, ops: Ops) -> dict[str, Any]:
        observation: dict[str, Any] = _V0.observation(state, params, ops)  # push-v0's features of the row
        observation["budget_left"] = ops.vector([state.budget], np.float32)
        observation["notifications_left"] = ops.vector([state.left], np.float32)
        return observation

    def reward(self, state: PushV1State, action: Any, next_state: PushV1State, params: PushV1Params, ops: Ops) -> Any:
        if params.expected_opens:
            return next_state.last_action * ops.take(params.p_open, next_state.scored_row)
        return next_state.opened * 1.0

    def terminal(self, state: PushV1State, params: PushV1Params, ops: Ops) -> Any:
        """The budget is spent or every notification of the day is decided."""
        return (state.budget <= 0) | (state.left <= 0)

    def info(
        self, state: PushV1State | None, action: Any, next_state: PushV1State, params: PushV1Params, ops: Ops
    ) -> dict[str, Any]:
        """The decided row, whether it was delivered and opened, the day's opens and deliveries."""
        if state is None:  # a start
            return {}
        return {
            "row": next_state.scored_row,
            "delivered": next_state.last_action,
            "opened": next_state.opened,
            "opens": next_state.opens,
            "deliveries": next_state.deliveries,
        }

    def heuristic(self, observation: Any, params: PushV1Params, ops: Ops) -> Any:
        """Deliver when the notification's points reach a bar that falls as the day runs out
        (:func:`rule_points`, :func:`budget_rule`), while budget remains."""
        return budget_rule(observation, params, ops)

    def render(self, state: PushV1State, params: PushV1Params, mode: str) -> Any:
        """The waiting notification, what is left of the budget and the day, the last decision and its
        simulated open; once the day is over, the last decided card and why the day ended."""
        over = bool(state.budget <= 0 or state.left <= 0)
        why = "budget spent" if state.budget <= 0 else "no notification left"
        last = f"last: {_last_text(state, params)}" if state.scored_row >= 0 else None
        if mode == "ansi":
            if over:
                lines = [f"    day over: {why}; {state.opens} opens of {state.deliveries} deliveries"]
            else:
                lines = [describe(params.log, state.row), f"    waiting: {_left_text(state, params)}"]
            return "\n".join(lines + ([f"    {last}"] if last else [])) + "\n"
        frame = np.full((FRAME_HEIGHT, FRAME_WIDTH, 3), 255, dtype=np.uint8)
        if over and last:
            shown_card = card(params.log, state.scored_row, state.last_action)
            strip = (225, 225, 225) if state.last_action == HOLD else ((46, 160, 67) if state.opened else (200, 50, 50))
            shown_card[-BAND:, CARD_WIDTH * 2 // 3 :] = strip  # the simulated open, not the logged reaction
        else:
            shown_card = card(params.log, state.row)
        frame[:CARD_HEIGHT, :CARD_WIDTH] = shown_card
        faint = (110, 110, 110)
        x = CARD_WIDTH + 6
        draw_text(frame, "category, app", x, 4, faint)
        for i, label in enumerate(CARD_BAR_LABELS):
            draw_text(frame, label, x, BAND + 5 + 12 * i, faint)
        draw_text(frame, "decision, open" if over else "waiting", x, CARD_HEIGHT - BAND + 4, faint)
        y = CARD_HEIGHT + 6
        if over:
            draw_text(frame, f"day over: {why}", 4, y, (200, 50, 50))
        else:
            draw_text(frame, _left_text(state, params), 4, y, (30, 30, 30))
        for k in range(params.daily_budget):  # one pip per delivery: green while left, dark once spent
            left_x = FRAME_WIDTH - 10 - 10 * (params.daily_budget - k)
            frame[y : y + 7, left_x : left_x + 7] = (46, 160, 67) if k < state.budget else (60, 60, 60)
        if last:
            draw_text(frame, last, 4, y + LINE_HEIGHT + 2, faint)
        return frame


def rule_points(observation: Any, params: PushV1Params, ops: Ops) -> Any:
    """The heuristic's points for the observed notification: ``RULE_CONTACT_POINTS`` if a
    significant contact sends it, 1 for a message, event or reminder, -1 for a promotion,
    recommendation or status update, its priority (-2 to 2), 1 if it was updated, and
    ``RULE_SILENT_POINTS`` taken away on silent. Whole numbers, from -5 to 6."""
    category = observation["category"]
    personal = ops.where(ops.take(params.personal, category), 1.0, 0.0)
    unwanted = ops.where(ops.take(params.unwanted, category), 1.0, 0.0)
    contact = ops.where(observation["significant_contact"], float(RULE_CONTACT_POINTS), 0.0)
    silent = ops.where(observation["ringer_mode"] == params.silent, float(RULE_SILENT_POINTS), 0.0)
    updated = ops.where(ops.column(observation["num_updates"], 0) > 0, 1.0, 0.0)
    return contact + personal - unwanted + ops.column(observation["priority"], 0) + updated - silent


def budget_rule(
    observation: Any, params: PushV1Params, ops: Ops, bar: float = RULE_BAR, drop: float = RULE_DROP
) -> Any:
    """Deliver (1) when budget remains and ``rule_points >= bar - drop * budget_left /
    notifications_left``, else hold (0): the bar is near ``bar`` early in the day, while many
    notifications are left for each delivery, and falls as they run out (to ``bar - drop`` when
    there are as many left as deliveries). The heuristic is this rule with ``RULE_BAR`` and
    ``RULE_DROP``; ``gym_suite.references.push_v1_rule`` chooses them.

    With ``bar`` a multiple of 1/2 and ``drop`` a whole number (as every setting the tuning tries),
    the decision is the same in float32 (numpy, JAX) and float64: a tie is exact, a near-tie at
    least ``1 / (2 * notifications_left)`` away."""
    budget = ops.column(observation["budget_left"], 0)
    left = ops.maximum(ops.column(observation["notifications_left"], 0), 1.0)  # 0 only once the day is over
    deliver = rule_points(observation, params, ops) >= bar - (drop * budget) / left
    return ops.where((budget > 0) & deliver, DELIVER, HOLD)


#: The labels of push-v0's card's bars, top to bottom (:func:`gym_suite.envs.push_env.card`).
CARD_BAR_LABELS = ("priority", "text length", "updates", "battery", "hour (dark: silent)")
#: push-v1's picture: the card, its labels beside it, the day's state under it (pixels).
FRAME_WIDTH, FRAME_HEIGHT = CARD_WIDTH + 124, CARD_HEIGHT + 2 * LINE_HEIGHT + 12


def _left_text(state: PushV1State, params: PushV1Params) -> str:
    return f"budget {state.budget} of {params.daily_budget}, {state.left} left today"


def _last_text(state: PushV1State, params: PushV1Params) -> str:
    if state.last_action == DELIVER:
        outcome = "opened" if state.opened else "not opened"
        return f"#{state.scored_row} delivered, {outcome} (p_open {params.p_open[state.scored_row]:.2f})"
    return f"#{state.scored_row} held"


PUSH_V1 = PushV1()


# --- the env classes (their registry rows: gym_suite/_registry.py) -----------------------------------


class PushV1Env(SuiteEnv):
    __doc__ = __doc__  # the manual: this module's docstring, its Arguments table from the declared arguments
    definition, base_params = PUSH_V1, DEFAULTS


class PushV1VectorEnv(SuiteVectorEnv):
    """``num_envs`` push-v1 environments in numpy arrays, next-step autoreset: :class:`PushV1Env`'s arguments,
    plus ``num_envs`` and ``max_episode_steps``."""

    scalar_env = PushV1Env
