"""Write the synthetic notification logs bundled with ``push-v0``: a training and a test log.

No public log of push notifications and people's reactions to them may be redistributed, so
``push-v0`` ships logs drawn from the generative model below. One stream of random numbers
makes 12 weeks of the same 8 people: weeks 1-6 are the training log
(``gym_suite/envs/data/notifications_train.csv``, 9,710 notifications), weeks 7-12 the test
log (``gym_suite/envs/data/notifications_test.csv``), on which results are reported. The
output depends only on the arguments: running the script again rewrites the same files byte
for byte, and the training log is exactly what a 6-week run writes (the stream makes the
people first, then the days in order, so the later weeks do not change the earlier ones)::

    python gym-suite/tools/make_notifications.py                  # the two bundled logs
    python gym-suite/tools/make_notifications.py --out /tmp/six_weeks.csv --weeks 6
    python gym-suite/tools/make_notifications.py --rows 100000 --out /tmp/big.csv

The generative model
--------------------
Every random number is a uniform of ``numpy.random.Generator(PCG64(seed))``, turned into other
distributions by inverse transforms (so the stream does not depend on numpy's algorithms). For
each person and each day from Monday 2024-03-04:

1. **Who and what.** Installed apps, app preferences (Dirichlet(1)), a daily volume, a
   responsiveness offset (uniform on -0.5..0.5), a battery drain, whether they commute
   (:func:`make_user`); each notification's app by preference times :data:`WEEKEND_VOLUME`.
2. **When.** The hour from the category's :data:`HOURLY_PROFILE`, the second uniformly.
3. **Features.** Priority, updates (:data:`UPDATES_MEAN`), significant contact
   (:data:`SIGNIFICANT_SHARE`), log-normal text length (:func:`make_day`).
4. **Context.** Location (:func:`location_probabilities`), ringer mode
   (:func:`ringer_probabilities`), battery charged overnight and drained by day.
5. **The reaction.** ``p_open = sigmoid(open_logit)`` (:func:`open_logit`), rounded to 4
   decimals; ``opened`` when a uniform falls below it; a log-normal response delay.

The ``p_open`` column is this ground truth (the Bayes-optimal policy delivers when
``p_open >= 0.5``); ``push-v0`` never observes it. Rows are sorted by timestamp, then user.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import sys
from pathlib import Path

import numpy as np

from gym_suite.envs.push_log import ACTION_VALUES, COLUMNS, DAY_NAMES, RINGER_MODES

DEFAULT_SEED = 20240304
DEFAULT_USERS = 8
DEFAULT_WEEKS = 6  # of a single log (--out)
TRAIN_WEEKS, TEST_WEEKS = 6, 6  # the bundled logs: weeks 1-6 and 7-12
FIRST_DAY = dt.date(2024, 3, 4)  # a Monday
SECONDS_PER_HOUR = 3600
HOURS_PER_DAY = 24
SECONDS_PER_WEEK = 7 * HOURS_PER_DAY * SECONDS_PER_HOUR
DATA = Path(__file__).resolve().parents[2] / "gym_suite" / "envs" / "data"
TRAIN_OUT, TEST_OUT = DATA / "notifications_train.csv", DATA / "notifications_test.csv"

# (package, category, default priority, open-logit effect of the app, median text length in characters)
APPS = (
    ("com.whatsapp", "msg", 1, 0.3, 60),
    ("org.telegram.messenger", "msg", 1, 0.1, 70),
    ("com.google.android.apps.messaging", "msg", 1, 0.2, 50),
    ("com.Slack", "msg", 0, -0.1, 90),
    ("com.google.android.gm", "email", 0, 0.0, 180),
    ("com.microsoft.office.outlook", "email", 0, -0.1, 200),
    ("com.instagram.android", "social", 0, 0.2, 70),
    ("com.facebook.katana", "social", 0, -0.2, 90),
    ("com.twitter.android", "social", -1, -0.1, 120),
    ("com.linkedin.android", "social", -1, -0.3, 110),
    ("com.amazon.mShop.android.shopping", "promo", -1, 0.2, 110),
    ("com.ebay.mobile", "promo", -1, 0.0, 100),
    ("com.king.candycrushsaga", "promo", -1, -0.3, 80),
    ("com.booking", "promo", -1, -0.1, 120),
    ("com.google.android.calendar", "event", 1, 0.2, 40),
    ("com.todoist", "reminder", 0, 0.0, 40),
    ("com.google.android.apps.fitness", "reminder", -1, -0.2, 50),
    ("com.spotify.music", "recommendation", -1, 0.1, 70),
    ("bbc.mobile.news.ww", "recommendation", 0, 0.0, 140),
    ("com.android.vending", "status", -2, 0.0, 50),
)
ALWAYS_INSTALLED = ("com.whatsapp", "com.google.android.calendar")
INSTALL_PROBABILITY = 0.7
CATEGORIES = ("msg", "email", "social", "promo", "event", "reminder", "recommendation", "status")
LOCATIONS = ("home", "work", "transit", "other")

# the per-category numbers below are in the order of CATEGORIES
# relative volume of each category at the weekend (weekdays: 1)
WEEKEND_VOLUME = dict(zip(CATEGORIES, (1.2, 0.3, 1.4, 1.2, 0.6, 0.8, 1.2, 1.0)))

# relative volume per hour of the day, 0..23: five profiles, then each category's
_PEOPLE = (1, 0.5, 0.3, 0.2, 0.2, 0.3, 1, 3, 5, 5, 5, 6, 7, 6, 5, 5, 6, 7, 8, 9, 9, 8, 6, 3)
_OFFICE = (0.3, 0.2, 0.1, 0.1, 0.1, 0.2, 0.5, 2, 6, 9, 9, 8, 6, 8, 9, 8, 7, 5, 3, 2, 1.5, 1, 0.8, 0.5)
_MARKETING = (3, 3, 2, 2, 2, 1, 1, 2, 3, 3, 3, 4, 5, 4, 3, 3, 4, 5, 6, 7, 7, 6, 5, 4)
_DAYTIME = (0.1, 0, 0, 0, 0, 0, 0.5, 4, 6, 5, 4, 4, 4, 4, 4, 4, 4, 5, 5, 4, 3, 2, 1, 0.3)
_NIGHTLY = (2, 4, 6, 6, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
HOURLY_PROFILE = dict(
    zip(CATEGORIES, (_PEOPLE, _OFFICE, _PEOPLE, _MARKETING, _DAYTIME, _DAYTIME, _MARKETING, _NIGHTLY))
)

# mean number of updates of a notification
UPDATES_MEAN = dict(zip(CATEGORIES, (1.2, 0.1, 0.5, 0.05, 0.2, 0.3, 0.05, 2.0)))
MAX_GENERATED_UPDATES = 20
SIGNIFICANT_SHARE = {"msg": 0.4, "email": 0.15, "social": 0.1, "event": 0.2}
PRIORITY_SHIFT_PROBABILITY = 0.15
TEXT_SIGMA = 0.6
MAX_GENERATED_TEXT = 2000

# open-probability model (logit scale)
BASE_LOGIT = -0.3
CATEGORY_LOGIT = dict(zip(CATEGORIES, (0.1, -0.8, -0.7, -1.0, 0.5, 0.2, -0.8, -1.8)))
PER_PRIORITY = 0.45
SIGNIFICANT = 1.0
SIGNIFICANT_MESSAGE_IN_EVENING = 2.0
EVENING_HOURS = (18, 23)
PROMO_AT_NIGHT = -2.0
NIGHT_HOURS = (22, 7)  # from 22:00 to 7:00
SILENT = -1.6
VIBRATE = -0.3
DISTRACTION_AT_WORK = -0.7  # social, promotion, recommendation while at work
EMAIL_AT_WORK = 1.4
PER_UPDATE = 0.3
COUNTED_UPDATES = 3
PER_TEXT_DOUBLING = -0.25
SHORT_TEXT = 80
LOW_BATTERY = -1.2
LOW_BATTERY_PERCENT = 15
SOCIAL_AT_WEEKEND = 1.2
P_OPEN_DECIMALS = 4
P_OPEN_MIN, P_OPEN_MAX = 0.0001, 0.9999

# battery (percent)
WAKE_HOUR, BED_HOUR = 7, 23
CHARGE_PER_HOUR = 35.0
BATTERY_NOISE = 3.0

# response delay (seconds): log-normal median and sigma
OPEN_DELAY_MEDIAN, DISMISS_DELAY_MEDIAN, DELAY_SIGMA = 40.0, 15.0, 1.0
DELAY_FACTOR = {"normal": 1.0, "vibrate": 3.0, "silent": 20.0}
DELAY_AT_WORK = 2.0


class Uniforms:
    """Every random number of the generator: uniforms on [0, 1) from one PCG64 stream."""

    def __init__(self, seed: int):
        self.rng = np.random.Generator(np.random.PCG64(seed))

    def __call__(self, size=None):
        return self.rng.random(size)

    def normal(self, size):
        """Standard normals by Box-Muller."""
        u1, u2 = 1.0 - self(size), self(size)  # u1 in (0, 1]
        return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)

    def choice(self, probabilities: np.ndarray) -> np.ndarray:
        """One index per row of ``probabilities`` (rows sum to 1), by the inverse CDF."""
        cdf = np.cumsum(probabilities, axis=-1)
        u = self(probabilities.shape[:-1]) * cdf[..., -1]
        return np.minimum((u[..., None] >= cdf).sum(axis=-1), probabilities.shape[-1] - 1)


def location_probabilities(hour: np.ndarray, weekend: np.ndarray, commutes: bool) -> np.ndarray:
    """P(home, work, transit, other) per notification."""
    p = np.empty(hour.shape + (len(LOCATIONS),))
    p[:] = (0.75, 0.0, 0.05, 0.2)  # evenings and free time
    night = (hour < WAKE_HOUR) | (hour >= BED_HOUR)
    p[night] = (0.97, 0.0, 0.0, 0.03)
    if commutes:
        weekday = ~weekend
        p[weekday & (hour >= 7.5) & (hour < 9)] = (0.3, 0.05, 0.6, 0.05)
        p[weekday & (hour >= 9) & (hour < 17.5)] = (0.02, 0.85, 0.03, 0.1)
        p[weekday & (hour >= 17.5) & (hour < 19)] = (0.2, 0.1, 0.5, 0.2)
    else:
        p[~night & ~weekend] = (0.8, 0.0, 0.05, 0.15)
    p[weekend & (hour >= 9) & (hour < BED_HOUR)] = (0.5, 0.0, 0.1, 0.4)
    return p


def ringer_probabilities(hour: np.ndarray, location: np.ndarray) -> np.ndarray:
    """P(normal, vibrate, silent) per notification (order of RINGER_MODES)."""
    p = np.empty(hour.shape + (len(RINGER_MODES),))
    p[:] = (0.65, 0.25, 0.1)
    p[location == LOCATIONS.index("work")] = (0.15, 0.6, 0.25)
    p[(hour < WAKE_HOUR) | (hour >= BED_HOUR)] = (0.15, 0.3, 0.55)
    return p


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def open_logit(t: dict, user_bias: float) -> np.ndarray:
    """The log-odds that the person opens each notification of the columns ``t``."""
    category = t["category"]
    is_ = {c: category == c for c in CATEGORIES}
    hour, weekend = t["hour"], t["weekend"]
    significant = t["significant_contact"] == 1
    evening = (hour >= EVENING_HOURS[0]) & (hour < EVENING_HOURS[1])
    night = (hour >= NIGHT_HOURS[0]) | (hour < NIGHT_HOURS[1])
    at_work = t["location"] == "work"
    logit = (
        BASE_LOGIT
        + user_bias
        + np.vectorize(CATEGORY_LOGIT.get, otypes=[float])(category)
        + t["app_effect"]
        + PER_PRIORITY * t["priority"]
        + SIGNIFICANT * significant
        + SIGNIFICANT_MESSAGE_IN_EVENING * (is_["msg"] & significant & evening)
        + PROMO_AT_NIGHT * (is_["promo"] & night)
        + SILENT * (t["ringer_mode"] == "silent")
        + VIBRATE * (t["ringer_mode"] == "vibrate")
        + DISTRACTION_AT_WORK * (at_work & (is_["social"] | is_["promo"] | is_["recommendation"]))
        + EMAIL_AT_WORK * (at_work & is_["email"])
        + PER_UPDATE * np.minimum(t["num_updates"], COUNTED_UPDATES)
        + PER_TEXT_DOUBLING * np.maximum(np.log2(t["text_length"] / SHORT_TEXT), 0.0)
        + LOW_BATTERY * (t["battery"] < LOW_BATTERY_PERCENT)
        + SOCIAL_AT_WEEKEND * (is_["social"] & weekend)
    )
    return logit


def make_user(u: Uniforms, index: int, users: int) -> dict:
    installed = u(len(APPS)) < INSTALL_PROBABILITY
    installed |= np.isin([a[0] for a in APPS], ALWAYS_INSTALLED)
    weights = -np.log(1.0 - u(len(APPS))) * installed  # Dirichlet(1) over the installed apps
    return {
        "id": f"u{index + 1:02d}",
        "app_weights": weights / weights.sum(),
        "volume": 18.0 + 22.0 * u(),
        "bias": -0.5 + u(),
        "drain": 3.5 + 3.0 * u(),
        "commutes": index < users - 1,
    }


def make_day(u: Uniforms, user: dict, day: dt.date) -> dict:
    """The notifications of one person on one day, as columns (unsorted)."""
    weekend = day.weekday() >= 5
    count = int(user["volume"] * (0.7 + 0.6 * u()))
    categories = np.array([a[1] for a in APPS])
    weights = user["app_weights"] * (np.vectorize(WEEKEND_VOLUME.get)(categories) if weekend else 1.0)
    app = u.choice(np.broadcast_to(weights / weights.sum(), (count, len(APPS))))
    category = categories[app]
    profile = np.array([HOURLY_PROFILE[c] for c in CATEGORIES], dtype=float)
    profile /= profile.sum(axis=1, keepdims=True)
    hour_index = u.choice(profile[[CATEGORIES.index(c) for c in category]])
    second_of_day = hour_index * SECONDS_PER_HOUR + np.floor(u(count) * SECONDS_PER_HOUR).astype(np.int64)
    hour = second_of_day / SECONDS_PER_HOUR
    weekend_rows = np.full(count, weekend)

    shift = u(count)
    default_priority = np.array([a[2] for a in APPS])[app]
    priority = np.clip(
        default_priority - (shift < PRIORITY_SHIFT_PROBABILITY) + (shift >= 1 - PRIORITY_SHIFT_PROBABILITY), -2, 2
    )
    updates_mean = np.vectorize(UPDATES_MEAN.get, otypes=[float])(category)
    num_updates = np.minimum(np.floor(-updates_mean * np.log(1.0 - u(count))), MAX_GENERATED_UPDATES).astype(int)
    significant_share = np.vectorize(lambda c: SIGNIFICANT_SHARE.get(c, 0.0), otypes=[float])(category)
    significant = (u(count) < significant_share).astype(int)
    median_text = np.array([a[4] for a in APPS], dtype=float)[app]
    text_length = np.floor(median_text * np.exp(TEXT_SIGMA * u.normal(count)))
    text_length = np.clip(text_length, 1, MAX_GENERATED_TEXT).astype(int)

    location_index = u.choice(location_probabilities(hour, weekend_rows, user["commutes"]))
    location = np.array(LOCATIONS)[location_index]
    ringer = np.array(RINGER_MODES)[u.choice(ringer_probabilities(hour, location_index))]
    morning_charge = 92.0 + 8.0 * u()
    awake = (hour >= WAKE_HOUR) & (hour < BED_HOUR)
    at_bedtime = morning_charge - user["drain"] * (BED_HOUR - WAKE_HOUR)
    since_bed = np.where(hour >= BED_HOUR, hour - BED_HOUR, hour + HOURS_PER_DAY - BED_HOUR)
    level = np.where(
        awake,
        morning_charge - user["drain"] * (hour - WAKE_HOUR) - BATTERY_NOISE * u(count),
        np.minimum(max(at_bedtime, 1.0) + CHARGE_PER_HOUR * since_bed, 100.0),
    )
    battery = np.clip(np.floor(level), 1, 100).astype(int)

    columns = {
        "second_of_day": second_of_day,
        "app": np.array([a[0] for a in APPS])[app],
        "app_effect": np.array([a[3] for a in APPS])[app],
        "category": category,
        "priority": priority,
        "num_updates": num_updates,
        "significant_contact": significant,
        "text_length": text_length,
        "hour": hour,
        "weekend": weekend_rows,
        "location": location,
        "ringer_mode": ringer,
        "battery": battery,
    }
    p_open = np.clip(np.round(sigmoid(open_logit(columns, user["bias"])), P_OPEN_DECIMALS), P_OPEN_MIN, P_OPEN_MAX)
    opened = u(count) < p_open
    median_delay = np.where(opened, OPEN_DELAY_MEDIAN, DISMISS_DELAY_MEDIAN)
    median_delay = median_delay * np.vectorize(DELAY_FACTOR.get, otypes=[float])(ringer)
    median_delay = median_delay * np.where(location == "work", DELAY_AT_WORK, 1.0)
    delay = np.maximum(np.floor(median_delay * np.exp(DELAY_SIGMA * u.normal(count))), 1).astype(int)
    columns.update(p_open=p_open, opened=opened, response_delay_s=delay)
    return columns


def records(users: int, weeks: int, seed: int) -> list[tuple[int, str, str]]:
    """``(second since the first day, user, CSV line)`` of every notification, sorted by time then user."""
    u = Uniforms(seed)
    people = [make_user(u, i, users) for i in range(users)]
    rows = []
    for day_index in range(7 * weeks):
        day = FIRST_DAY + dt.timedelta(days=day_index)
        day_name = DAY_NAMES[day.weekday()]
        for person in people:
            t = make_day(u, person, day)
            for i in range(len(t["app"])):
                second = int(t["second_of_day"][i])
                hundredths = second // 36  # the hour with 2 decimals, rounded down (never 24.00)
                counts = ",".join(
                    str(int(t[k][i])) for k in ("priority", "num_updates", "significant_contact", "text_length")
                )
                line = (
                    f"{day.isoformat()}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d},{person['id']},"
                    f"{t['app'][i]},{t['category'][i]},{counts},{day_name},{hundredths // 100}.{hundredths % 100:02d},"
                    f"{t['location'][i]},{t['ringer_mode'][i]},{int(t['battery'][i])},{ACTION_VALUES[int(t['opened'][i])]},"
                    f"{int(t['response_delay_s'][i])},{float(t['p_open'][i]):.{P_OPEN_DECIMALS}f}"
                )
                rows.append((day_index * HOURS_PER_DAY * SECONDS_PER_HOUR + second, person["id"], line))
    rows.sort(key=lambda r: (r[0], r[1]))
    return rows


def generate(users: int = DEFAULT_USERS, weeks: int = DEFAULT_WEEKS, seed: int = DEFAULT_SEED) -> list[str]:
    """The log as CSV lines (header first), sorted by timestamp then user."""
    return [",".join(COLUMNS)] + [line for _, _, line in records(users, weeks, seed)]


def generate_split(
    users: int = DEFAULT_USERS, train_weeks: int = TRAIN_WEEKS, test_weeks: int = TEST_WEEKS, seed: int = DEFAULT_SEED
) -> tuple[list[str], list[str]]:
    """The training log (the first ``train_weeks`` weeks) and the test log (the ``test_weeks``
    weeks after them) of one run, as CSV lines (header first). The training log equals
    ``generate(users, train_weeks, seed)``."""
    header = ",".join(COLUMNS)
    train, test = [header], [header]
    cut = train_weeks * SECONDS_PER_WEEK
    for second, _, line in records(users, train_weeks + test_weeks, seed):
        (train if second < cut else test).append(line)
    return train, test


def generate_rows(rows: int, users: int = DEFAULT_USERS, seed: int = DEFAULT_SEED) -> list[str]:
    """The first ``rows`` notifications (by time) of a log long enough to hold them."""
    weeks = 1
    while True:
        lines = generate(users, weeks, seed)
        if len(lines) - 1 >= rows:
            return lines[: rows + 1]
        weeks = max(weeks + 1, math.ceil(weeks * 1.2 * rows / max(len(lines) - 1, 1)))


def write(lines: list[str], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(lines) + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--out", type=Path, default=None,
        help="write one log of --weeks weeks (or --rows rows) here instead of the bundled training and test logs")  # fmt: skip
    add("--train-out", type=Path, default=TRAIN_OUT, help="the training log (default: the bundled one)")
    add("--test-out", type=Path, default=TEST_OUT, help="the test log (default: the bundled one)")
    add("--users", type=int, default=DEFAULT_USERS)
    add("--weeks", type=int, default=DEFAULT_WEEKS, help="weeks of the log of --out")
    add("--train-weeks", type=int, default=TRAIN_WEEKS)
    add("--test-weeks", type=int, default=TEST_WEEKS)
    add("--rows", type=int, default=None, help="with --out: exactly this many rows, the first by time")
    add("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    counts = (args.users, args.weeks, args.train_weeks, args.test_weeks)
    if min(counts) < 1 or (args.rows is not None and args.rows < 1):
        parser.error("--users, --weeks, --train-weeks, --test-weeks and --rows must be positive")
    if args.rows is not None and args.out is None:
        parser.error("--rows needs --out (the bundled logs are whole weeks)")
    if args.out is not None:
        rows = args.rows is not None
        lines = generate_rows(args.rows, args.users, args.seed) if rows else generate(args.users, args.weeks, args.seed)
        write(lines, args.out)
        print(f"wrote {len(lines) - 1} notifications of {args.users} users to {args.out}")
        return 0
    train, test = generate_split(args.users, args.train_weeks, args.test_weeks, args.seed)
    write(train, args.train_out)
    write(test, args.test_out)
    weeks, last = args.train_weeks, args.train_weeks + args.test_weeks
    print(f"wrote {len(train) - 1} notifications of {args.users} users (weeks 1-{weeks}) to {args.train_out}")
    print(f"wrote {len(test) - 1} notifications (weeks {weeks + 1}-{last}) to {args.test_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
