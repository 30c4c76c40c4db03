"""``push-v0``: deliver or hold back push notifications, replayed from a log of real reactions."""

from __future__ import annotations

import hashlib
import io
import math
import os
from importlib import resources

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

HOLD, DELIVER = 0, 1
ACTION_NAMES = ("hold", "deliver")
ACTION_VALUES = ("dismissed", "opened")  # the log's `action` column; the index is the label
REWARD_RIGHT = 1.0  # the decision matches what the person did
REWARD_WRONG = -1.0
DEFAULT_EPISODE_LENGTH = 100

# --- the schema of a notification log -------------------------------------------------------
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
RINGER_MODES = ("normal", "vibrate", "silent")  # android.media.AudioManager.RINGER_MODE_*
PRIORITY_MIN, PRIORITY_MAX = -2, 2  # android.app.Notification.PRIORITY_MIN .. PRIORITY_MAX
MAX_UPDATES = 1000  # the schema's cap on how often one notification was updated
MAX_TEXT_LENGTH = 5120  # androidx NotificationCompat.Builder.MAX_CHARSEQUENCE_LENGTH: longer text is cut
HOURS_PER_DAY = 24
BATTERY_FULL = 100  # percent

TIMESTAMP, USER, ACTION, TRUTH = "timestamp", "user_id", "action", "p_open"
CATEGORICAL_FIELDS = ("app", "category", "significant_contact", "day_of_week", "location", "ringer_mode")
NUMERIC_FIELDS = ("priority", "num_updates", "text_length", "hour", "battery")
#: the observation's numeric fields and their Box bounds, which user logs must respect too
NUMERIC_BOUNDS = {
    "priority": (PRIORITY_MIN, PRIORITY_MAX),
    "num_updates": (0, MAX_UPDATES),
    "text_length": (0, MAX_TEXT_LENGTH),
    "hour": (0, HOURS_PER_DAY),
    "battery": (0, BATTERY_FULL),
}
INTEGER_FIELDS = ("priority", "num_updates", "text_length", "significant_contact")
#: categorical fields with a fixed vocabulary; the others take theirs from the log (sorted)
FIXED_VOCABULARIES = {
    "significant_contact": (False, True),  # written 0 or 1
    "day_of_week": DAY_NAMES,
    "ringer_mode": RINGER_MODES,
}
STRING_COLUMNS = (TIMESTAMP, USER, "app", "category", "day_of_week", "location", "ringer_mode", ACTION)
#: every column of the bundled log, in its order; the last two are optional
COLUMNS = (
    TIMESTAMP, USER, "app", "category", "priority", "num_updates", "significant_contact", "text_length",
    "day_of_week", "hour", "location", "ringer_mode", "battery", ACTION, "response_delay_s", TRUTH,
)
REQUIRED_COLUMNS = COLUMNS[:-2]

# heuristic(): the hand rule's categories (Android Notification.CATEGORY_* values)
PERSONAL_CATEGORIES = ("msg", "event", "reminder")
UNWANTED_CATEGORIES = ("promo", "recommendation", "status")
HEURISTIC_MIN_PRIORITY = 1  # deliver personal notifications from this priority up

BUNDLED_RESOURCE = ("gym_suite.envs", "data/notifications.csv")


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
# The log: read once, encoded to read-only numpy arrays, shared
# --------------------------------------------------------------------------------------------


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


class NotificationLog:
    """A notification log encoded to read-only arrays (row ``i`` is the log's notification ``i``).

    Field by field, so that a batch of rows is gathered in one ``np.take``: ``codes[j, i]`` is
    the index of row ``i``'s ``CATEGORICAL_FIELDS[j]`` in ``vocabularies``, ``numbers[j, i]``
    the value of its ``NUMERIC_FIELDS[j]``; ``labels`` is 1 where the person
    opened the notification; ``users`` indexes ``vocabularies["user_id"]``; ``p_open`` is the
    generator's open probability when the log has that column, else ``None``.
    """

    def __init__(self, source, codes, numbers, labels, users, timestamps, p_open, vocabularies, digest=None):
        self.source = source
        self.codes, self.numbers, self.labels = _frozen(codes), _frozen(numbers), _frozen(labels)
        self.users, self.timestamps = _frozen(users), _frozen(timestamps)
        self.p_open = None if p_open is None else _frozen(p_open)
        self.vocabularies = vocabularies
        self.n_rows = len(labels)
        self.digest = digest  # sha256 of the bundled file's bytes; None for other logs
        self._windows = {}

    def windows(self, length: int | None) -> tuple[np.ndarray, np.ndarray]:
        """``(order, starts)`` for episodes of ``length`` rows (``None``: the whole log).

        ``order`` lists the log's rows in replay order: grouped by user, each user's rows in
        the order of the log (for ``None``, simply the log's order). A window is
        ``order[s : s + length]`` for a start ``s`` of ``starts``: every position whose next
        ``length`` rows belong to one user.
        """
        if length not in self._windows:
            if length is None:
                order = np.arange(self.n_rows)
                starts = np.zeros(1, dtype=np.int64)
            else:
                order = np.argsort(self.users, kind="stable")
                grouped = self.users[order]
                segment_end = np.searchsorted(grouped, grouped, side="right")
                starts = np.flatnonzero(np.arange(self.n_rows) + length <= segment_end)
                if len(starts) == 0:
                    longest = int(np.bincount(self.users).max())
                    raise ValueError(
                        f"episode_length={length} is longer than every user's history in {self.source} "
                        f"(the longest has {longest} rows); use episode_length <= {longest} or None (the whole log)"
                    )
            self._windows[length] = (_frozen(order), _frozen(starts))
        return self._windows[length]

    def __reduce__(self):
        if self.digest is not None:  # the bundled log: reload it (shared again) instead of copying
            return _bundled_log, (self.digest,)
        state = {k: v for k, v in vars(self).items() if k not in ("_windows", "n_rows")}
        return _restore_log, (state,)


def _restore_log(state: dict) -> NotificationLog:
    return NotificationLog(**state)


_CACHE: dict[tuple, NotificationLog] = {}


def _pandas():
    import pandas  # only when a log is read: `import gym_suite` stays light

    return pandas


def _bundled_log(digest: str | None = None) -> NotificationLog:
    log = _CACHE.get(BUNDLED_RESOURCE)
    if log is None:
        package, name = BUNDLED_RESOURCE
        raw = resources.files(package).joinpath(name).read_bytes()  # works from a wheel or a zip
        frame = _read_csv(io.BytesIO(raw), "the bundled notifications.csv")
        log = _encode(frame, "the bundled notifications.csv", True, hashlib.sha256(raw).hexdigest())
        _CACHE[BUNDLED_RESOURCE] = log
    if digest is not None and digest != log.digest:
        raise ValueError(
            "the bundled notifications.csv differs from the one this environment was pickled with "
            "(gym_suite was reinstalled in between); it cannot continue the episode"
        )
    return log


def load_log(csv_path=None, data=None, owner: str = "PushEnv") -> NotificationLog:
    """The encoded log: ``data`` (a DataFrame, encoded on every call), ``csv_path`` (cached by
    resolved path, modification time and size) or the bundled log (cached)."""
    if data is not None and csv_path is not None:
        raise ValueError(f"{owner}: give csv_path or data, not both")
    if data is not None:
        pd = _pandas()
        if not isinstance(data, pd.DataFrame):
            raise TypeError(f"{owner}: data must be a pandas DataFrame, got {type(data).__name__}")
        return _encode(data, "data", False)
    if csv_path is None:
        return _bundled_log()
    if not isinstance(csv_path, (str, os.PathLike)):
        raise TypeError(f"{owner}: csv_path must be a path (str or os.PathLike), got {csv_path!r}")
    resolved = os.path.realpath(os.fspath(csv_path))
    try:
        stat = os.stat(resolved)
    except OSError as exc:
        raise ValueError(f"{owner}: csv_path={os.fspath(csv_path)!r} cannot be read: {exc.strerror}") from None
    key = (resolved, stat.st_mtime_ns, stat.st_size)
    log = _CACHE.get(key)
    if log is None:
        for old in [k for k in _CACHE if k[0] == resolved]:  # an earlier version of the file
            del _CACHE[old]
        log = _CACHE[key] = _encode(_read_csv(resolved, resolved), resolved, True)
    return log


def _read_csv(source, name: str):
    pd = _pandas()
    try:  # the string columns stay strings ("007" is not 7); the others are checked by _encode
        return pd.read_csv(source, dtype=dict.fromkeys(STRING_COLUMNS, str))
    except pd.errors.EmptyDataError:
        raise ValueError(
            f"{name} is empty: a notification log needs a header with the columns {list(REQUIRED_COLUMNS)} "
            "and at least one row"
        ) from None


def _encode(frame, source: str, from_file: bool, digest: str | None = None) -> NotificationLog:
    """Check ``frame`` against the schema and encode it (``frame`` is only read)."""
    pd = _pandas()

    def where(i: int) -> str:
        if from_file:
            return f"row {i} (line {i + 2} of the file)"
        label = frame.index[i]
        return f"row {i}" + ("" if label == i else f" (index {label!r})")

    def fail(name: str, i: int, value, expected: str):
        raise ValueError(f"{source}: column {name!r}, {where(i)}: {value!r} is not {expected}")

    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{source}: missing column(s) {missing}; a notification log needs the columns "
            f"{list(REQUIRED_COLUMNS)} (optional: {TRUTH!r}, the true open probability)"
        )
    if len(frame) == 0:
        raise ValueError(f"{source} is empty: it has the header but no rows")
    checked = REQUIRED_COLUMNS + ((TRUTH,) if TRUTH in frame.columns else ())
    for name in checked:
        blank = frame[name].isna().to_numpy()
        if blank.any():
            first = where(int(blank.argmax()))
            raise ValueError(f"{source}: column {name!r}, {first}: the value is missing (the column is required)")

    def numbers(name: str, low, high, integer: bool) -> np.ndarray:
        column = frame[name]
        values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            fail(name, int(bad.argmax()), column.iloc[int(bad.argmax())], "a number")
        if integer:
            bad = values != np.floor(values)
            if bad.any():
                fail(name, int(bad.argmax()), column.iloc[int(bad.argmax())], "an integer")
        bad = (values < low) | (values > high)
        if bad.any():
            fail(name, int(bad.argmax()), column.iloc[int(bad.argmax())], f"within {low}..{high}")
        return values

    def categories(name: str, vocabulary=None) -> tuple[np.ndarray, tuple]:
        values = frame[name].astype(str).to_numpy()
        if vocabulary is None:
            codes, uniques = pd.factorize(values, sort=True)
            return codes.astype(np.int64), tuple(str(v) for v in uniques)
        codes = pd.Index(list(vocabulary)).get_indexer(values).astype(np.int64)  # -1: not in it
        bad = codes < 0
        if bad.any():
            fail(name, int(bad.argmax()), values[int(bad.argmax())], f"one of {list(vocabulary)}")
        return codes, tuple(vocabulary)

    vocabularies = {}
    codes = np.empty((len(CATEGORICAL_FIELDS), len(frame)), dtype=np.int64)
    for j, name in enumerate(CATEGORICAL_FIELDS):
        if name == "significant_contact":
            codes[j] = numbers(name, 0, 1, True)
            vocabularies[name] = FIXED_VOCABULARIES[name]
        else:
            codes[j], vocabularies[name] = categories(name, FIXED_VOCABULARIES.get(name))
    numeric = np.empty((len(NUMERIC_FIELDS), len(frame)), dtype=np.float32)
    for j, name in enumerate(NUMERIC_FIELDS):
        numeric[j] = numbers(name, *NUMERIC_BOUNDS[name], name in INTEGER_FIELDS)
    users, vocabularies[USER] = categories(USER)
    labels, _ = categories(ACTION, ACTION_VALUES)
    stamps = pd.to_datetime(frame[TIMESTAMP], format="ISO8601", errors="coerce")
    bad = stamps.isna().to_numpy()
    if bad.any():
        fail(TIMESTAMP, int(bad.argmax()), frame[TIMESTAMP].iloc[int(bad.argmax())], "an ISO 8601 timestamp")
    if stamps.dt.tz is not None:
        stamps = stamps.dt.tz_localize(None)  # keep the local wall-clock time
    p_open = numbers(TRUTH, 0, 1, False) if TRUTH in frame.columns else None
    return NotificationLog(
        source, codes, numeric, labels, users, stamps.to_numpy(dtype="datetime64[s]"), p_open, vocabularies, digest
    )


def observation_space_of(log: NotificationLog) -> spaces.Dict:
    fields = {name: spaces.Discrete(len(log.vocabularies[name])) for name in CATEGORICAL_FIELDS}
    for name in NUMERIC_FIELDS:
        low, high = NUMERIC_BOUNDS[name]
        fields[name] = spaces.Box(np.float32(low), np.float32(high), shape=(1,), dtype=np.float32)
    return spaces.Dict(fields)


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
        f"#{row} {str(log.timestamps[row]).replace('T', ' ')}  {v[USER][log.users[row]]}  "
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
    shade = (60, 60, 60) if ringer == RINGER_MODES.index("silent") else (200, 200, 120)
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


_LOG_SHORTCUTS = ("_order", "_starts", "_codes", "_numbers", "_labels")


class PushEnv(SuiteEnv):
    """
    ## Description

    An agent sits between the apps of a phone and its owner. For each incoming notification it
    decides to deliver it (predicting that the person opens it) or to hold it back (predicting
    a dismissal). The environment replays a log of notifications with their context and the
    person's real reaction, so agents can be trained and compared offline.

    By default it replays the bundled log ``gym_suite/envs/data/notifications.csv``: 8 people
    over 6 weeks (9,710 notifications), synthetic because no real notification log may be
    redistributed. ``gym-suite/make_notifications.py`` generates it, seeded and byte for byte
    reproducible; its docstring states the generative model (messages from significant contacts
    in the evening get opened, promotions at night get dismissed, ...). The log's ``p_open``
    column is the generator's true open probability: never observed, it gives the Bayes-optimal
    policy (deliver when ``p_open >= 0.5``).

    Bring your own log with ``csv_path=`` (a CSV file) or ``data=`` (a pandas DataFrame). It
    needs these columns (others are ignored; the input is never modified):

    | Column | Values |
    |---|---|
    | `timestamp` | ISO 8601 date and time |
    | `user_id` | any text |
    | `app`, `category`, `location` | any text (vocabulary: the sorted values of the log) |
    | `priority` | integer -2..2 (Android `Notification.PRIORITY_*`) |
    | `num_updates` | integer 0..1000 |
    | `significant_contact` | 0 or 1 |
    | `text_length` | integer 0..5120 (Android cuts notification text at 5120 characters) |
    | `day_of_week` | `Mon`, `Tue`, `Wed`, `Thu`, `Fri`, `Sat`, `Sun` |
    | `hour` | time of day in hours, 0..24 |
    | `ringer_mode` | `normal`, `vibrate`, `silent` |
    | `battery` | percent, 0..100 |
    | `action` | `opened` or `dismissed` |
    | `p_open` | optional: the true open probability, 0..1 |

    A missing column, an empty file, a value of the wrong kind or out of range, or an empty cell
    raises ``ValueError`` at construction, naming the column and the first bad row. Rows are
    replayed in the order of the log (sort it by time). pandas reads a file once per process:
    every environment on the same file (same path, modification time and size) shares one
    read-only copy of the encoded arrays, and ``step`` only indexes them, so its cost does not
    grow with the log. A DataFrame is encoded anew for each environment.

    ## Action Space

    `Discrete(2)`: 0 holds the notification back (predicts a dismissal), 1 delivers it
    (predicts it is opened).

    ## Observation Space

    A `Dict` of the notification's features and context. Categorical fields are `Discrete`
    indices into ``env.vocabularies[field]``; numeric ones are `Box(low, high, (1,), float32)`:

    | Key | Space | Meaning |
    |---|---|---|
    | `app` | `Discrete(#apps)` | app package name |
    | `category` | `Discrete(#categories)` | Android notification category (`msg`, `email`, `promo`, ...) |
    | `significant_contact` | `Discrete(2)` | sent by a significant contact |
    | `day_of_week` | `Discrete(7)` | Monday = 0 |
    | `location` | `Discrete(#locations)` | `home`, `work`, `transit`, `other` in the bundled log |
    | `ringer_mode` | `Discrete(3)` | `normal`, `vibrate`, `silent` |
    | `priority` | `Box(-2, 2)` | Android priority |
    | `num_updates` | `Box(0, 1000)` | times the notification was updated |
    | `text_length` | `Box(0, 5120)` | characters of text |
    | `hour` | `Box(0, 24)` | time of day, hours |
    | `battery` | `Box(0, 100)` | battery level, percent |

    The Box bounds are the schema's limits, the same for every log. ``env.vocabularies`` also
    holds ``user_id`` (never observed). It works with ``gymnasium.wrappers.FlattenObservation``
    and Stable-Baselines3's ``MultiInputPolicy``.

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
    ``row`` (its index in the log, 0-based), ``truth`` (1 opened, 0 dismissed), and for the
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
    """

    def __init__(
        self,
        *,
        episode_length: int | None = DEFAULT_EPISODE_LENGTH,
        csv_path: str | os.PathLike | None = None,
        data=None,
        render_mode: str | None = None,
    ):
        owner = type(self).__name__
        self._set_render_mode(render_mode)
        self.episode_length = check_int(owner, "episode_length", episode_length, 1, allow_none=True)
        self.log = load_log(csv_path, data, owner)
        self._bind_log()
        self.window_length = self.log.n_rows if self.episode_length is None else self.episode_length
        self.vocabularies = self.log.vocabularies
        self.action_space = spaces.Discrete(2)
        self.observation_space = observation_space_of(self.log)
        category = self.vocabularies["category"]
        self._personal = {i for i, c in enumerate(category) if c in PERSONAL_CATEGORIES}
        self._unwanted = {i for i, c in enumerate(category) if c in UNWANTED_CATEGORIES}
        self._silent = RINGER_MODES.index("silent")
        self._position = self._last = self._row = 0
        self._tp = self._fp = self._fn = self._tn = 0
        self._scored_row = self._last_action = None

    def _bind_log(self):
        """Shortcuts to the log's arrays for ``step`` (left out of pickles: the log carries them)."""
        self._order, self._starts = self.log.windows(self.episode_length)
        self._codes, self._numbers, self._labels = self.log.codes, self.log.numbers, self.log.labels

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
