"""``push-v0``: deliver or hold back push notifications, replayed from a log of real reactions."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence

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
from gym_suite.envs.push_log import (  # noqa: F401  (the schema, re-exported for existing imports)
    ACTION_VALUES,
    BATTERY_FULL,
    BUNDLED_RESOURCE,
    CATEGORICAL_FIELDS,
    COLUMNS,
    DAY_NAMES,
    HOURS_PER_DAY,
    MAX_TEXT_LENGTH,
    NUMERIC_FIELDS,
    OTHER,
    PRIORITY_MAX,
    PRIORITY_MIN,
    RINGER_MODES,
    USER,
    VOCABULARIES,
    NotificationLog,
    load_log,
    observation_space,
)

HOLD, DELIVER = 0, 1
ACTION_NAMES = ("hold", "deliver")
REWARD_RIGHT = 1.0  # the decision matches what the person did
REWARD_WRONG = -1.0
DEFAULT_EPISODE_LENGTH = 100

# heuristic(): the hand rule's categories (Android Notification.CATEGORY_* values)
PERSONAL_CATEGORIES = ("msg", "event", "reminder")
UNWANTED_CATEGORIES = ("promo", "recommendation", "status")
HEURISTIC_MIN_PRIORITY = 1  # deliver personal notifications from this priority up


# --------------------------------------------------------------------------------------------
# The rules (once, for Python numbers and numpy arrays)
# --------------------------------------------------------------------------------------------


def replay_rules(position, last, action, truth, tp, fp, fn, tn, ops):
    """Score ``action`` against ``truth``, the label of the observed row, and move on.

    ``position`` indexes the observed row within the replay order and ``last`` is the window's
    final position. Returns ``(position, reward, terminated, tp, fp, fn, tn)``: the next
    position (the last one stays observed once the window is done), +1/-1, whether that was the
    window's last row, and the confusion counts with this decision added.
    """
    right = action == truth
    reward = REWARD_WRONG + (REWARD_RIGHT - REWARD_WRONG) * right
    terminated = position >= last
    position = ops.minimum(position + 1, last)
    held = 1 - action
    return (
        position,
        reward,
        terminated,
        tp + action * truth,
        fp + action * (1 - truth),
        fn + held * truth,
        tn + held * (1 - truth),
    )


def scores(tp, fp, fn, tn, ops):
    """``(accuracy, precision, recall)`` so far; 0.0 where the denominator is still 0.

    Precision is also the click-through rate: opened among delivered.
    """
    return (
        (tp + tn) / ops.maximum(tp + fp + fn + tn, 1),
        tp / ops.maximum(tp + fp, 1),
        tp / ops.maximum(tp + fn, 1),
    )


def step_info(row, truth, tp, fp, fn, tn, ops) -> dict:
    """The ``info`` of a step: the scored row, its label and the episode's scores so far."""
    accuracy, precision, recall = scores(tp, fp, fn, tn, ops)
    return {
        "row": row, "truth": truth, "accuracy": accuracy, "ctr": precision, "precision": precision, "recall": recall,
    }


def draw_starts(rng, starts: np.ndarray, count: int) -> np.ndarray:
    """``count`` window starts, uniform over every allowed start (one draw each)."""
    return starts[rng.integers(len(starts), size=count)]


# --------------------------------------------------------------------------------------------
# Pictures
# --------------------------------------------------------------------------------------------

CARD_HEIGHT, CARD_WIDTH = 96, 192  # rgb_array: pixels
BAND = 16  # height of the category band and of the decision strip
CATEGORY_COLOURS = np.array(
    [(66, 133, 244), (219, 68, 55), (244, 180, 0), (15, 157, 88), (171, 71, 188), (0, 172, 193),
     (255, 112, 67), (158, 157, 36), (92, 107, 192), (240, 98, 146)], dtype=np.uint8,
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


def card(log: NotificationLog, row: int, action=None) -> np.ndarray:
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


# --------------------------------------------------------------------------------------------
# The environments
# --------------------------------------------------------------------------------------------


def _observe_row(codes: np.ndarray, numbers: np.ndarray, row: int) -> dict:
    observation = dict(zip(CATEGORICAL_FIELDS, codes[:, row].tolist()))
    observation.update(zip(NUMERIC_FIELDS, numbers[:, row : row + 1].copy()))  # fresh (1,) arrays
    return observation


def _observe_rows(codes: np.ndarray, numbers: np.ndarray, rows: np.ndarray) -> dict:
    observation = dict(zip(CATEGORICAL_FIELDS, np.take(codes, rows, axis=1)))  # fresh arrays
    observation.update(zip(NUMERIC_FIELDS, np.take(numbers, rows, axis=1)[:, :, None]))
    return observation


_LOG_SHORTCUTS = ("_order", "_starts", "_codes", "_numbers", "_labels", "vocabularies")


class PushEnv(SuiteEnv):
    """
    ## Description

    An agent sits between the apps of a phone and its owner. For each incoming notification it
    decides to deliver it (predicting that the person opens it) or to hold it back (predicting
    a dismissal). The environment replays a log of notifications with their context and the
    person's real reaction, so agents can be trained and compared offline.

    By default it replays the bundled training log ``gym_suite/envs/data/notifications_train.csv``:
    8 people over 6 weeks (9,710 notifications), synthetic because no real notification log may
    be redistributed. ``split="test"`` replays the test log
    ``gym_suite/envs/data/notifications_test.csv``: the same people in the 6 weeks after
    (9,732 notifications). **Train on the training log and report results on the test log**:
    its 9,710 observations are all distinct (the hour and the text length alone single out 97 %
    of its rows), so an agent scored on the log it trained on can memorise it and beat what the
    features allow (a lookup table scores 100 % there, and the majority class on the test log). ``gym-suite/tools/make_notifications.py`` generates both from
    one seeded stream, byte for byte reproducible; its docstring states the generative model
    (messages from significant contacts in the evening get opened, promotions at night get
    dismissed, ...). The logs' ``p_open`` column is the generator's true open probability:
    never observed, it gives the Bayes-optimal policy (deliver when ``p_open >= 0.5``), whose
    expected accuracy is 79.4 % on the training log and 79.6 % on the test log.

    Bring your own log with ``csv_path=`` (a CSV file, UTF-8, plain or compressed with gzip,
    bzip2, xz or zip) or ``data=`` (a pandas DataFrame). It needs these columns (others are
    ignored; the input is never modified):

    | Column | Values |
    |---|---|
    | `timestamp` | ISO 8601 date and time, every one with a UTC offset or none |
    | `user_id` | any text |
    | `app`, `category`, `location` | any text (values outside the vocabularies are "other": see below) |
    | `priority` | integer -2..2 (Android `Notification.PRIORITY_*`) |
    | `num_updates` | integer 0..1000 |
    | `significant_contact` | 0 or 1 |
    | `text_length` | integer 0..5120 (Android cuts notification text at 5120 characters) |
    | `day_of_week` | `Mon`, `Tue`, `Wed`, `Thu`, `Fri`, `Sat`, `Sun` |
    | `hour` | local time of day on the phone, in hours, 0..24 |
    | `ringer_mode` | `normal`, `vibrate`, `silent` (others are "other") |
    | `battery` | percent, 0..100 |
    | `action` | `opened` or `dismissed` |
    | `p_open` | optional: the true open probability, 0..1 |

    A missing or repeated column, an empty file, a value of the wrong kind or out of range, or
    an empty cell raises ``ValueError`` at construction, naming the column and the first bad
    row; so does a file that is not UTF-8 CSV, naming the file. A missing file raises
    ``FileNotFoundError``. Rows are replayed in the order of the log (sort it by time). The
    timestamp is never observed: it splits the log in time (``test_fraction``) and is shown by
    ``render``; timestamps with UTC offsets (which may differ between rows, as across a
    daylight saving change) are compared and shown in UTC, and the observed time of day is
    always the log's ``hour`` column. With ``test_fraction=f`` the last fraction ``f`` of the
    whole log in time (every row from one cut-off instant on, for all users) is the test part
    and the rows before it the training part; ``split`` picks the one to replay (the
    ``gym_suite.envs.push_log`` docstring has the details).

    pandas reads a file once per process while environments use it: every environment on a
    file with the same content (its SHA-256) shares one read-only copy of the encoded arrays,
    and ``step`` only indexes them, so its cost does not grow with the log. A log that no
    environment uses any more is freed; a file rewritten in place is read again. A DataFrame is
    encoded anew for each environment.

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

    The vocabularies of `app`, `category`, `location` and `ringer_mode` end with ``"<other>"``
    (``push_log.OTHER``): a value of a log outside the vocabulary is observed as that **last
    index**, ``len(env.vocabularies[field]) - 1``. So an agent trained on one log runs on any
    other. A log that needs other values (its own apps) passes ``vocabularies={"app": (...)}``
    for some of these four fields, which changes the space accordingly (``"<other>"`` is
    appended). ``env.vocabularies`` is read-only, shared by the environments on a log, and also
    holds ``user_id`` (never observed). The Box bounds are the schema's limits. It works with
    ``gymnasium.wrappers.FlattenObservation`` and Stable-Baselines3's ``MultiInputPolicy``.

    ## Rewards

    +1 when the action matches what the person did with the observed notification (deliver and
    opened, or hold and dismissed), -1 otherwise. The action taken after observing row ``k`` is
    scored against row ``k``, and every row of the episode is scored exactly once.

    ``env.heuristic(observation)`` is a hand rule from the features, for comparison: deliver
    what a significant contact sends unless it is a promotion, recommendation or status update;
    else hold everything on silent; else deliver messages, events and reminders of priority 1
    or more, and hold the rest.

    ## Starting State

    With ``episode_length=L`` (100 by default) an episode is a window of ``L`` consecutive
    notifications of one user (in the order of the log), its start drawn uniformly with
    ``self.np_random`` among every start whose window fits in one user's history (so a user
    with more notifications is picked more often; users with fewer than ``L`` notifications
    are never picked, and if no user has ``L`` the constructor raises ``ValueError``). With
    ``episode_length=None`` the episode replays the whole log in order, from its first row.
    The first observation is the window's first notification.

    ## Episode End

    1. Termination: the window's last notification has been scored. The observation returned
       then is that last notification again.
    2. Truncation: none registered (windows end by themselves);
       ``gymnasium.make(..., max_episode_steps=N)`` adds Gymnasium's ``TimeLimit``.

    A ``step`` after termination raises ``gymnasium.error.ResetNeeded``.

    ``info`` after a step describes the notification just scored, never the one observed next:
    ``row`` (its index in the replayed log, 0-based: in a part cut by ``test_fraction``,
    ``env.log.source_rows[row]`` is its row in the file), ``truth`` (1 opened, 0 dismissed), and for the
    episode so far ``accuracy``, ``ctr`` (opened among delivered), ``precision`` (the same
    number in an offline replay) and ``recall`` (delivered among opened); a ratio is 0.0 while
    its denominator is 0. ``reset`` returns an empty info. ``env.current_row`` is the log index
    of the observed notification, for analysis (joining with the log), not for the policy.

    ## Arguments

    | Argument | Default | Meaning |
    |---|---|---|
    | `episode_length` | 100 | notifications per episode; `None` for the whole log |
    | `csv_path` | None | a notification log to replay instead of the bundled one |
    | `data` | None | a pandas DataFrame with the same columns, instead of a file |
    | `split` | `"train"` | `"train"` or `"test"`: the bundled log, or the part of your log, to replay |
    | `test_fraction` | None | with your own log: the last fraction of it in time (0 < f < 1) is the test part; None: no test part (all of it is `"train"`) |
    | `vocabularies` | None | vocabularies of some of `app`, `category`, `location`, `ringer_mode` replacing the fixed ones (changes the observation space) |
    | `render_mode` | None | `"ansi"`, `"human"` (text) or `"rgb_array"` (a card, 96x192) |

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
    * v0, before any release: the observation space became fixed (vocabularies declared by the
      environment, with an "other" index, instead of the values found in the log; `app` is
      `Discrete(21)`, `category` `Discrete(9)`, `location` `Discrete(5)`, `ringer_mode`
      `Discrete(4)`), the bundled data became a training log (the former log, unchanged) and a
      held-out test log (``split``), user logs can be split in time (``test_fraction``), and logs
      are cached by content.
    """

    def __init__(
        self,
        *,
        episode_length: int | None = DEFAULT_EPISODE_LENGTH,
        csv_path: str | os.PathLike | None = None,
        data=None,
        split: str = "train",
        test_fraction: float | None = None,
        vocabularies: Mapping[str, Sequence[str]] | None = None,
        render_mode: str | None = None,
    ):
        owner = type(self).__name__
        self._set_render_mode(render_mode)
        self.episode_length = check_int(owner, "episode_length", episode_length, 1, allow_none=True)
        self.log = load_log(
            csv_path, data, split=split, test_fraction=test_fraction, vocabularies=vocabularies, owner=owner
        )
        self._bind_log()
        self.window_length = self.log.n_rows if self.episode_length is None else self.episode_length
        self.action_space = spaces.Discrete(2)
        self.observation_space = observation_space(self.vocabularies)
        category = self.vocabularies["category"]
        self._personal = {i for i, c in enumerate(category) if c in PERSONAL_CATEGORIES}
        self._unwanted = {i for i, c in enumerate(category) if c in UNWANTED_CATEGORIES}
        ringer = self.vocabularies["ringer_mode"]
        self._silent = ringer.index("silent") if "silent" in ringer else None
        self._position = self._last = self._row = 0
        self._tp = self._fp = self._fn = self._tn = 0
        self._scored_row = self._last_action = None

    def _bind_log(self):
        """Shortcuts to the log's arrays for ``step`` (left out of pickles: the log carries them)."""
        self._order, self._starts = self.log.windows(self.episode_length)
        self._codes, self._numbers, self._labels = self.log.codes, self.log.numbers, self.log.labels
        self.vocabularies = self.log.vocabularies  # read-only, the log's

    def __getstate__(self):
        return {k: v for k, v in vars(self).items() if k not in _LOG_SHORTCUTS}

    def __setstate__(self, state):
        vars(self).update(state)
        self._bind_log()

    @property
    def current_row(self) -> int:
        """Index in the log of the notification being observed."""
        return self._row

    def _start(self):
        start = int(draw_starts(self.np_random, self._starts, 1)[0])
        self._position, self._last = start, start + self.window_length - 1
        self._row = int(self._order[start])
        self._tp = self._fp = self._fn = self._tn = 0
        self._scored_row = self._last_action = None

    def _check_action(self, action):
        return check_discrete_action(action, 2)

    def _advance(self, action):
        row = self._row
        truth = int(self._labels[row])
        position, reward, terminated, tp, fp, fn, tn = replay_rules(
            self._position, self._last, action, truth, self._tp, self._fp, self._fn, self._tn, SCALAR_OPS
        )
        self._position, self._tp, self._fp, self._fn, self._tn = position, tp, fp, fn, tn
        self._row = int(self._order[position])
        self._scored_row, self._last_action = row, action
        return reward, terminated, False, step_info(row, truth, tp, fp, fn, tn, SCALAR_OPS)

    def _observe(self):
        return _observe_row(self._codes, self._numbers, self._row)

    def render(self):
        scored = self._scored_row is not None
        row = self._scored_row if scored else self._row
        if self.render_mode == "rgb_array":
            return card(self.log, row, self._last_action)
        if self.render_mode not in ("ansi", "human"):
            return None
        if scored:
            accuracy = scores(self._tp, self._fp, self._fn, self._tn, SCALAR_OPS)[0]
            right = self._last_action == self.log.labels[row]
            verdict = (
                f"    decision {ACTION_NAMES[self._last_action]}, truth {ACTION_VALUES[self.log.labels[row]]}: "
                f"reward {REWARD_RIGHT if right else REWARD_WRONG:+.0f}, accuracy {accuracy:.3f} "
                f"after {self._tp + self._fp + self._fn + self._tn}"
            )
        else:
            verdict = "    decision pending"
        text = f"{describe(self.log, row)}\n{verdict}\n"
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def heuristic(self, observation) -> int:
        """A hand rule from the features (it never looks at the log's labels).

        Deliver what a significant contact sends, unless it is a promotion, a recommendation or
        a status update; otherwise hold everything back while the phone is on silent, and
        deliver only messages, events and reminders of priority 1 or more.
        """
        category = int(observation["category"])
        if observation["significant_contact"]:
            return HOLD if category in self._unwanted else DELIVER
        if observation["ringer_mode"] == self._silent:
            return HOLD
        personal = category in self._personal and observation["priority"][0] >= HEURISTIC_MIN_PRIORITY
        return DELIVER if personal else HOLD


class PushVectorEnv(SuiteVectorEnv):
    """``num_envs`` replays in numpy arrays over one shared log, with the rules of :class:`PushEnv`.

    Each sub-environment is a cursor into the same read-only arrays. ``info`` holds the keys of
    the scalar env as arrays, each with its ``_key`` mask.
    """

    scalar_env = PushEnv

    def _setup(self):
        single = self.single_env
        self.log, self.vocabularies = single.log, single.vocabularies
        self.episode_length, self.window_length = single.episode_length, single.window_length
        n = self.num_envs
        self.position = np.zeros(n, dtype=np.int64)
        self.last = np.zeros(n, dtype=np.int64)
        self.tp, self.fp, self.fn, self.tn = (np.zeros(n, dtype=np.int64) for _ in range(4))

    def _start(self, rows):
        starts = draw_starts(self.np_random, self.log.windows(self.episode_length)[1], int(rows.sum()))
        self.position[rows] = starts
        self.last[rows] = starts + self.window_length - 1
        for tally in (self.tp, self.fp, self.fn, self.tn):
            tally[rows] = 0

    def _check_actions(self, actions):
        return check_discrete_actions(actions, self.num_envs, 2)

    def _advance(self, actions, active):
        rows = self._rows()
        truth = self.log.labels[rows]
        self.position, reward, terminated, self.tp, self.fp, self.fn, self.tn = replay_rules(
            self.position, self.last, actions, truth, self.tp, self.fp, self.fn, self.tn, ARRAY_OPS
        )
        info = step_info(rows, truth, self.tp, self.fp, self.fn, self.tn, ARRAY_OPS)
        return reward, terminated, np.zeros(self.num_envs, dtype=bool), info

    def _rows(self) -> np.ndarray:
        """The log index of each sub-environment's observed notification."""
        return self.log.windows(self.episode_length)[0][self.position]

    def _observe(self):
        return _observe_rows(self.log.codes, self.log.numbers, self._rows())

    def render(self):
        rows = self._rows().tolist()
        if self.render_mode == "rgb_array":
            return tuple(card(self.log, row) for row in rows)
        if self.render_mode == "ansi":
            return "".join(describe(self.log, row) + "\n" for row in rows)
        return None
