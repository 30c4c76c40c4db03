"""``push-v0``: deliver or hold back push notifications, replayed from a log of real reactions.

## Description

An agent sits between the apps of a phone and its owner. For each incoming notification it
decides to deliver it (predicting that the person opens it) or to hold it back (predicting
a dismissal). The environment replays a log of notifications with their context and the
person's real reaction, so agents can be trained and compared offline.

By default it replays the bundled training log ``gym_suite/envs/data/notifications_train.csv``
(synthetic: 8 people over 6 weeks, made by ``gym-suite/tools/make_notifications.py``, whose
docstring states the generative model); ``split="test"`` replays the held-out test log of the
6 weeks after. **Train on the training log and report results on the test log**: an agent
scored on the log it trained on can memorise it. The logs' ``p_open`` column, the generator's
true open probability, is never observed.

Bring your own log with ``csv_path=`` (a CSV file, UTF-8, plain or compressed with gzip,
bzip2, xz or zip) or ``data=`` (a pandas DataFrame) with the columns of the bundled logs
(``push_log.REQUIRED_COLUMNS``, their values in the table of ``docs/env-notes/push-v0.md``;
others are ignored, the input is never modified). A bad log raises ``ValueError`` at construction, naming the file,
the column and the first bad row (a missing file: ``FileNotFoundError``). Rows are replayed in the
order of the log; the timestamp is never observed. With ``test_fraction=f`` the last fraction
``f`` of the log in time is the test part, the rest the training part (``gym_suite.envs.push_log``
has the details). Environments on files of the same content share one read-only copy of the log.

## Action Space

`Discrete(2)`: 0 holds the notification back (predicts a dismissal), 1 delivers it
(predicts it is opened).

## Observation Space

A `Dict` of the notification's features and context, the same for every log. Categorical
fields are `Discrete` indices into the fixed vocabularies ``env.vocabularies[field]``
(``gym_suite.envs.push_log.VOCABULARIES``); numeric ones are `Box(low, high, (1,), float32)`:

| Key | Space | Meaning |
|---|---|---|
| `app` | `Discrete(21)` | app package name: the 20 apps of the bundled logs, then "other" (20) |
| `category` | `Discrete(9)` | Android notification category: `msg`, `email`, `social`, `promo`, `event`, `reminder`, `recommendation`, `status`, then "other" (8) |
| `significant_contact` | `Discrete(2)` | sent by a significant contact |
| `day_of_week` | `Discrete(7)` | Monday = 0 |
| `location` | `Discrete(5)` | `home`, `work`, `transit`, `other` (a place), then "other" (4) |
| `ringer_mode` | `Discrete(4)` | `normal`, `vibrate`, `silent`, then "other" (3) |
| `priority` | `Box(-2, 2)` | Android priority |
| `num_updates` | `Box(0, 1000)` | times the notification was updated |
| `text_length` | `Box(0, 5120)` | characters of text |
| `hour` | `Box(0, 24)` | local time of day, hours |
| `battery` | `Box(0, 100)` | battery level, percent |

A value of a log outside the vocabulary of `app`, `category`, `location` or `ringer_mode` is
observed as its **last index**, "other" (``push_log.OTHER``), so an agent trained on one log
runs on any other. ``vocabularies={"app": (...)}`` replaces some of these four vocabularies
(``"<other>"`` is appended), which changes the space. It works with
``gymnasium.wrappers.FlattenObservation`` and Stable-Baselines3's ``MultiInputPolicy``.

## Rewards

+1 when the action matches what the person did with the observed notification (deliver and
opened, or hold and dismissed), -1 otherwise. The action taken after observing row ``k`` is
scored against row ``k``, and every row of the episode is scored exactly once.

``env.heuristic(observation)`` (``envs.heuristic(observations)`` for a batch) is a hand rule:
deliver what a significant contact sends unless it is a promotion, recommendation or status
update; else hold everything on silent; else deliver messages, events and reminders of
priority 1 or more, and hold the rest.

## Starting State

With ``episode_length=L`` (100 by default) an episode is a window of ``L`` consecutive
notifications of one user (in the order of the log), its start drawn uniformly (one uniform
of ``env.np_random``) among every start whose window fits in one user's history (users with
fewer than ``L`` notifications are never picked; if no user has ``L`` the constructor raises
``ValueError``). With ``episode_length=None`` the episode replays the whole log in order. The
first observation is the window's first notification.

## Episode End

1. Termination: the window's last notification has been scored. The observation returned
   then is that last notification again.
2. Truncation: none registered (windows end by themselves);
   ``gymnasium.make(..., max_episode_steps=N)`` adds Gymnasium's ``TimeLimit``.

A ``step`` after termination raises ``gymnasium.error.ResetNeeded``.

``info`` after a step describes the notification just scored, never the one observed next:
``row`` (its index in the replayed log, 0-based; ``env.log.source_rows[row]`` is its row in the
file), ``truth`` (1 opened, 0 dismissed), and for the episode so far ``accuracy``, ``ctr``
(opened among delivered), ``precision`` (the same number in an offline replay) and ``recall``
(delivered among opened); a ratio is 0.0 while its denominator is 0. ``reset`` returns an empty
info. ``env.current_row`` is the log index of the observed notification, for analysis, not for
the policy. The state is ``env.unwrapped.state`` (a :class:`PushState`) and
``env.unwrapped.np_random``: restoring both replays the same future.

## Arguments

On JAX (``gym_suite.jax.make``) every argument stays static.

```python
>>> import gymnasium as gym
>>> env = gym.make("gym_suite:push-v0", render_mode="ansi")
>>> obs, info = env.reset(seed=0)
>>> sorted(obs)[:3]
['app', 'battery', 'category']

```

## Version History

* v0: first release. Unlike the notification replay it is modelled on, the action after
  observing row ``k`` is scored against row ``k`` (not ``k - 1``), every row of an episode
  is scored once, and the log is checked when the environment is built.
* v0, before any release: fixed vocabularies with an "other" index, a training and a held-out
  test log (``split``, ``test_fraction``), logs cached by content; one definition for Python
  numbers, numpy and JAX, the window's start drawn from one uniform (other windows for a seed
  than before, the same distribution); ``episode_length`` above 10^9 raises ``ValueError``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, TypeVar

import numpy as np
from gymnasium import spaces

from gym_suite.envs._shells import SuiteEnv, SuiteVectorEnv
from gym_suite.envs.checks import Argument, check_arguments
from gym_suite.envs.definition import SCALAR, Array, Definition, Ops, state_maker
from gym_suite.envs.push_log import (
    ACTION_VALUES,
    BATTERY_FULL,
    CATEGORICAL_FIELDS,
    HOURS_PER_DAY,
    MAX_TEXT_LENGTH,
    NUMERIC_FIELDS,
    PRIORITY_MAX,
    PRIORITY_MIN,
    USER,
    NotificationLog,
    _frozen,
    load_log,
    observation_space,
)

if TYPE_CHECKING:
    import numpy.typing as npt

HOLD, DELIVER = 0, 1
ACTION_NAMES = ("hold", "deliver")
REWARD_RIGHT = 1.0  # the decision matches what the person did
REWARD_WRONG = -1.0
DEFAULT_EPISODE_LENGTH = 100
#: The longest ``episode_length`` accepted (a larger one would overflow the arrays of positions
#: before the log could reject it).
MAX_EPISODE_LENGTH = 10**9
NO_ACTION = -1  # the last action and the scored row before the first step

# the hand rule's categories (Android Notification.CATEGORY_* values)
PERSONAL_CATEGORIES = ("msg", "event", "reminder")
UNWANTED_CATEGORIES = ("promo", "recommendation", "status")
HEURISTIC_MIN_PRIORITY = 1  # deliver personal notifications from this priority up
NO_SILENT = -1  # the ringer code of "silent" when the vocabulary has none (never observed)

#: The arguments that name the log, the last of both push envs' signatures (in this order).
LOG_ARGUMENTS = (
    Argument("csv_path", meaning="a notification log to play instead of the bundled one", allowed="a path, or `None`"),
    Argument("data", meaning="a log as a table, instead of a file", allowed="a pandas DataFrame, or `None`"),
    Argument("split", meaning="the bundled log, or the part of your log, to play", allowed='`"train"` or `"test"`'),
    Argument(
        "test_fraction",
        meaning="with your own log: the last fraction of it in time is the test part; `None`: no test part",
        allowed="a number in (0, 1), or `None`",
    ),
    Argument(
        "vocabularies",
        meaning="vocabularies of some of `app`, `category`, `location`, `ringer_mode` replacing the fixed ones "
        "(changes the observation space)",
        allowed="a dict of lists of strings, or `None`",
    ),
)
#: The constructor's arguments, in the order of the signature.
ARGUMENTS = (
    Argument(
        "episode_length",
        int,
        "notifications per episode; `None` for the whole log",
        low=1,
        high=MAX_EPISODE_LENGTH,
        none=True,
    ),
    *LOG_ARGUMENTS,
)

_ParamsT = TypeVar("_ParamsT", bound="LogParams")


@dataclass(frozen=True, eq=False, kw_only=True)
class LogParams:
    """What the parameters of push-v0 and push-v1 share: the arguments that name the log
    (:data:`LOG_ARGUMENTS`; push-v1's log needs a ``p_open`` column), the log, and what
    ``make_params`` derives from any log.

    The arrays are the log's, read-only: ``order`` (the log's rows in the env's order), ``codes``
    / ``numbers`` (the encoded log: ``codes[j, row]`` is ``CATEGORICAL_FIELDS[j]``,
    ``numbers[j, row]`` ``NUMERIC_FIELDS[j]``), and for the hand rule ``personal`` / ``unwanted``
    (by category code) and ``silent`` (the ringer code of silent). A pickle holds the arguments
    and the log (which pickles by its content key); the arrays are derived again when it is loaded.
    """

    csv_path: str | os.PathLike[str] | None = None
    data: Any = None
    split: str = "train"
    test_fraction: float | None = None
    vocabularies: Mapping[str, Sequence[str]] | None = None
    # Filled by make_params (the registry's defaults, DEFAULTS, have none):
    log: NotificationLog = None  # type: ignore[assignment]
    order: Any = None
    codes: Any = None
    numbers: Any = None
    personal: Any = None
    unwanted: Any = None
    silent: int = NO_SILENT

    #: The env's constructor arguments (what a pickle holds), in the order of the signature.
    _arguments: ClassVar[tuple[str, ...]] = LOG_ARGUMENTS

    def __reduce__(self) -> tuple[Callable[[NotificationLog, dict[str, Any]], LogParams], tuple[Any, ...]]:
        return type(self)._derive, (self.log, {name: getattr(self, name) for name in self._arguments})

    @classmethod
    def _derive(cls: type[_ParamsT], log: NotificationLog, arguments: dict[str, Any]) -> _ParamsT:
        """The parameters of ``arguments`` (checked) on ``log``."""
        category, ringer = log.vocabularies["category"], log.vocabularies["ringer_mode"]
        return cls(
            **arguments,
            log=log,
            codes=log.codes,
            numbers=log.numbers,
            personal=_frozen(np.array([c in PERSONAL_CATEGORIES for c in category], dtype=bool)),
            unwanted=_frozen(np.array([c in UNWANTED_CATEGORIES for c in category], dtype=bool)),
            silent=ringer.index("silent") if "silent" in ringer else NO_SILENT,
            **cls._derive_own(log, arguments),
        )

    @classmethod
    def _derive_own(cls, log: NotificationLog, arguments: dict[str, Any]) -> dict[str, Any]:
        """The fields an env's parameters derive beyond these (``order`` among them)."""
        return {}


def load_arguments_log(arguments: Mapping[str, Any], owner: str) -> NotificationLog:
    """The log that the checked ``arguments`` (``LOG_ARGUMENTS`` among them) name."""
    return load_log(**{name: arguments[name] for name in LOG_ARGUMENTS}, owner=owner)


@dataclass(frozen=True, eq=False)
class PushParams(LogParams):
    """The arguments of a push-v0 environment and what ``make_params`` derives from them.

    As :class:`LogParams`, with ``order`` the log's rows in replay order, ``starts`` the positions
    in ``order`` where a window may start and ``labels`` the log's (1 opened, 0 dismissed).
    """

    episode_length: int | None = DEFAULT_EPISODE_LENGTH
    # Filled by make_params:
    starts: Any = None
    labels: Any = None
    window_length: int = 0

    _arguments: ClassVar[tuple[str, ...]] = ARGUMENTS

    @classmethod
    def _derive_own(cls, log: NotificationLog, arguments: dict[str, Any]) -> dict[str, Any]:
        episode_length = arguments["episode_length"]
        order, starts = log.windows(episode_length)
        window_length = log.n_rows if episode_length is None else episode_length
        return {"order": order, "starts": starts, "labels": log.labels, "window_length": window_length}


DEFAULTS = PushParams()


class PushState(NamedTuple):
    """Where the replay is, the episode's confusion counts, and the last decision (for pictures)."""

    position: Any  # where the replay is in ``order``
    row: Any  # the observed row of the log: order[position]
    last: Any  # the window's last position
    tp: Any  # delivered and opened
    fp: Any  # delivered and dismissed
    fn: Any  # held and opened
    tn: Any  # held and dismissed
    scored_row: Any  # the log row the last step scored; -1 after a start
    last_action: Any  # -1 after a start
    truth: Any  # the scored row's label (1 opened, 0 dismissed); -1 after a start


_new_state = state_maker(PushState)


def take_columns(ops: Ops, table: Any, index: Any, keepdims: bool = False) -> Any:
    """Column ``index`` of a 2-D numeric table ``(fields, rows)`` of the parameters: one value
    per field, fresh. Python numbers on one environment; arrays over the batch's rows otherwise.
    ``keepdims=True`` keeps a last axis of length 1 (each value an array of shape ``(1,)`` for
    one environment, ``(N, 1)`` for a batch)."""
    if ops.name == "scalar":
        return table[:, index : index + 1].copy() if keepdims else table[:, index].tolist()
    if ops.name == "numpy":
        columns = table.take(index, axis=1)  # fresh: (fields, N); a fast path of table[:, index]
        return columns[..., None] if keepdims else columns
    values = [ops.take(field, index) for field in table]
    return [v[..., None] for v in values] if keepdims else values


def scores(tp: Array, fp: Array, fn: Array, tn: Array, ops: Ops) -> tuple[Array, Array, Array]:
    """``(accuracy, precision, recall)`` so far; 0.0 where the denominator is still 0.

    Precision is also the click-through rate: opened among delivered.
    """
    return (
        (tp + tn) / ops.maximum(tp + fp + fn + tn, 1),
        tp / ops.maximum(tp + fp, 1),
        tp / ops.maximum(tp + fn, 1),
    )


class Push(Definition[PushState, PushParams]):
    """The rules of push-v0: score each decision against the observed row's label, move on."""

    name = "push"
    State = PushState
    arguments = ARGUMENTS
    #: ``env.current_row`` (a copy, an array for a vector env) and ``env.vocabularies`` (the
    #: log's, read-only); the envs of push-v1 have them too.
    env_attributes: ClassVar[Mapping[str, Any]] = {
        "current_row": property(lambda env: np.array(row) if isinstance(row := env.state.row, np.ndarray) else row),
        "vocabularies": property(lambda env: env.params.log.vocabularies),
    }
    start_draws = 1  # the window's start; a step draws nothing

    def make_params(self, base: PushParams, owner: str, **arguments: Any) -> PushParams:
        merged = check_arguments(ARGUMENTS, base, owner, arguments)
        return PushParams._derive(load_arguments_log(merged, owner), merged)

    def spaces(self, params: PushParams) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        return observation_space(params.log.vocabularies), spaces.Discrete(len(ACTION_NAMES))

    def initial(self, u: Any, params: PushParams, ops: Ops) -> PushState:
        """A window drawn uniformly among the allowed starts."""
        (u_start,) = u
        count = len(params.starts)
        start = ops.take(params.starts, ops.minimum(ops.floor_int(u_start * count), count - 1))
        last = start + (params.window_length - 1)
        return PushState(start, ops.take(params.order, start), last, 0, 0, 0, 0, NO_ACTION, NO_ACTION, NO_ACTION)

    def transition(self, state: PushState, action: Any, u: Any, params: PushParams, ops: Ops) -> PushState:
        """Score ``action`` against the label of the observed row and move to the next row (the
        window's last row stays observed once it is scored)."""
        position, row, last, tp, fp, fn, tn, _, _, _ = state
        truth = ops.take(params.labels, row)
        held, dismissed = 1 - action, 1 - truth
        position = ops.minimum(position + 1, last)
        return _new_state(
            (
                position,
                ops.take(params.order, position),
                last,
                tp + action * truth,
                fp + action * dismissed,
                fn + held * truth,
                tn + held * dismissed,
                row,
                action,
                truth,
            )
        )

    def observation(self, state: PushState, params: PushParams, ops: Ops) -> dict[str, Any]:
        # one env: Python ints and fresh (1,) float32 arrays; a batch: fresh (N,) and (N, 1) arrays
        observation = dict(zip(CATEGORICAL_FIELDS, take_columns(ops, params.codes, state.row)))
        observation.update(zip(NUMERIC_FIELDS, take_columns(ops, params.numbers, state.row, keepdims=True)))
        return observation

    def reward(self, state: PushState, action: Any, next_state: PushState, params: PushParams, ops: Ops) -> Any:
        return REWARD_WRONG + (REWARD_RIGHT - REWARD_WRONG) * (action == next_state.truth)

    def terminal(self, state: PushState, params: PushParams, ops: Ops) -> Any:
        """Every row of the window has been scored (a window's rows are distinct, so only then is
        the scored row the observed one)."""
        return state.scored_row == state.row

    def info(
        self, state: PushState | None, action: Any, next_state: PushState, params: PushParams, ops: Ops
    ) -> dict[str, Any]:
        """The scored row, its label (1 opened) and the episode's scores so far."""
        if state is None:  # a start
            return {}
        accuracy, precision, recall = scores(next_state.tp, next_state.fp, next_state.fn, next_state.tn, ops)
        return {
            "row": next_state.scored_row,
            "truth": next_state.truth,
            "accuracy": accuracy,
            "ctr": precision,
            "precision": precision,
            "recall": recall,
        }

    def heuristic(self, observation: Any, params: PushParams, ops: Ops) -> Any:
        """The manual's hand rule, from the features (it never looks at the log's labels)."""
        category = observation["category"]
        priority = ops.column(observation["priority"], 0)
        unwanted = ops.take(params.unwanted, category)
        personal = ops.take(params.personal, category) & (priority >= HEURISTIC_MIN_PRIORITY)
        silent = observation["ringer_mode"] == params.silent
        return ops.where(
            observation["significant_contact"],
            ops.where(unwanted, HOLD, DELIVER),
            ops.where(silent, HOLD, ops.where(personal, DELIVER, HOLD)),
        )

    def render(self, state: PushState, params: PushParams, mode: str) -> Any:
        scored = state.scored_row >= 0
        if mode != "ansi":
            return card(params.log, state.scored_row, state.last_action) if scored else card(params.log, state.row)
        verdict = "    decision pending"
        if scored:
            accuracy = scores(state.tp, state.fp, state.fn, state.tn, SCALAR)[0]
            truth = int(params.labels[state.scored_row])
            verdict = (
                f"    decision {ACTION_NAMES[state.last_action]}, truth {ACTION_VALUES[truth]}: "
                f"reward {REWARD_RIGHT if state.last_action == truth else REWARD_WRONG:+.0f}, "
                f"accuracy {accuracy:.3f} after {state.tp + state.fp + state.fn + state.tn}"
            )
        return f"{describe(params.log, state.scored_row if scored else state.row)}\n{verdict}\n"


# --- pictures ---------------------------------------------------------------------------------------

CARD_HEIGHT, CARD_WIDTH = 96, 192  # rgb_array: pixels
BAND = 16  # height of the category band and of the decision strip
CATEGORY_COLOURS = np.array(
    [(66, 133, 244), (219, 68, 55), (244, 180, 0), (15, 157, 88), (171, 71, 188)]
    + [(0, 172, 193), (255, 112, 67), (158, 157, 36), (92, 107, 192), (240, 98, 146)],
    dtype=np.uint8,
)
DELIVER_COLOUR, HOLD_COLOUR, PENDING_COLOUR = (46, 160, 67), (120, 120, 120), (225, 225, 225)
OPENED_COLOUR, DISMISSED_COLOUR = (46, 160, 67), (200, 50, 50)


def describe(log: NotificationLog, row: int) -> str:
    """Two lines of text: the notification of ``row`` and its context."""
    v = log.vocabularies
    app, category, significant, day, location, ringer = log.codes[:, row].tolist()
    priority, updates, length, hour, battery = log.numbers[:, row].tolist()
    contact = "  significant contact" if significant else ""
    return (
        f"#{row} {str(log.timestamps[row]).replace('T', ' ')}{' UTC' if log.utc else ''}  {v[USER][log.users[row]]}  "
        f"{v['app'][app]} [{v['category'][category]}] priority {priority:+.0f}, {updates:.0f} updates, "
        f"{length:.0f} chars{contact}\n"
        f"    {v['day_of_week'][day]} {hour:05.2f}h "
        f"at {v['location'][location]}, ringer {v['ringer_mode'][ringer]}, battery {battery:.0f}%"
    )


def card(log: NotificationLog, row: int, action: int | None = None) -> npt.NDArray[np.uint8]:
    """The notification of ``row`` as a card, with the decision (and the truth) when given."""
    app, category, significant, _, _, ringer = log.codes[:, row].tolist()
    priority, updates, length, hour, battery = log.numbers[:, row].tolist()
    frame = np.full((CARD_HEIGHT, CARD_WIDTH, 3), 250, dtype=np.uint8)
    frame[:BAND] = CATEGORY_COLOURS[category % len(CATEGORY_COLOURS)]
    frame[2 : BAND - 2, 2 : BAND - 2] = CATEGORY_COLOURS[(app + 3) % len(CATEGORY_COLOURS)]  # the app's icon
    if significant:
        frame[3 : BAND - 3, -BAND + 3 : -3] = (255, 215, 0)  # a gold star: significant contact
    inner = CARD_WIDTH - 16
    bars = (
        ((priority - PRIORITY_MIN) / (PRIORITY_MAX - PRIORITY_MIN), (90, 90, 200)),
        (min(math.log1p(length) / math.log1p(MAX_TEXT_LENGTH), 1.0), (140, 140, 140)),
        (min(updates / 10.0, 1.0), (0, 150, 136)),
        (battery / BATTERY_FULL, (46, 160, 67) if battery >= 15 else (200, 50, 50)),
    )
    for i, (fraction, colour) in enumerate(bars):
        top = BAND + 6 + 12 * i
        frame[top : top + 6, 8 : CARD_WIDTH - 8] = 225
        frame[top : top + 6, 8 : 8 + int(round(fraction * inner))] = colour
    top = BAND + 6 + 12 * len(bars)  # the day, with the hour marked; dark when the ringer is silent
    shade = (60, 60, 60) if log.vocabularies["ringer_mode"][ringer] == "silent" else (200, 200, 120)
    frame[top : top + 6, 8 : CARD_WIDTH - 8] = shade
    x = 8 + int(hour / HOURS_PER_DAY * (inner - 4))
    frame[top - 2 : top + 8, x : x + 4] = (220, 60, 60)
    decision = PENDING_COLOUR if action is None else (DELIVER_COLOUR if action == DELIVER else HOLD_COLOUR)
    frame[-BAND:, : CARD_WIDTH * 2 // 3] = decision
    if action is not None:
        frame[-BAND:, CARD_WIDTH * 2 // 3 :] = OPENED_COLOUR if log.labels[row] else DISMISSED_COLOUR
    return frame


PUSH = Push()


# --- the env classes (their registry rows: gym_suite/_registry.py) -----------------------------------


class PushEnv(SuiteEnv):
    __doc__ = __doc__  # the manual: this module's docstring, its Arguments table from the declared arguments
    definition, base_params = PUSH, DEFAULTS


class PushVectorEnv(SuiteVectorEnv):
    """``num_envs`` push-v0 environments in numpy arrays, next-step autoreset: :class:`PushEnv`'s arguments,
    plus ``num_envs`` and ``max_episode_steps``."""

    scalar_env = PushEnv
