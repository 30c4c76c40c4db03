"""How much room push-v1 leaves above its tuned rule: the best a policy of the observation can do.

    python gym-suite/analyses/push_v1_headroom.py [--budgets 1,2,3,5] [--episodes 1000] [--grid 1000]

The bundled logs' open probability is the generator's (``gym-suite/tools/make_notifications.py``,
``open_logit``): ``p_open = sigmoid(f + offset)``, rounded to 4 decimals and kept in
0.0001..0.9999, where ``f`` is a function of the notification's features and context and
``offset`` the person's responsiveness, uniform on -0.5..0.5. Every input of ``f`` is in push-v1's
observation (the app gives its effect, the day of the week the weekend, the observed hour is the
generator's rounded down to 1/100 h, which the rule's whole-hour windows cannot tell apart; the
text length, battery and updates are observed exactly): :func:`feature_logit` recomputes ``f`` from
the log's observed fields with the generator's own ``open_logit``, and with each person's offset
(drawn again from the generator's seed, :func:`user_offsets`) it gives back every row's
``p_open`` exactly, on both logs. So the person's offset is all a policy of the observation
lacks.

The policies, each scored exactly as ``push_v1_optimum.py`` scores them (a delivery earns its
true ``p_open``, every user-day of the log weighs the same). Those marked DP decide by a
probability with the oracle's online dynamic program (``push_v1_optimum.thresholds``: deliver
when the probability reaches ``T(b, n)``, computed on the distribution of that same probability
over the played log, the notifications to come taken as independent draws):

* the **oracle** (DP on ``p_open``: the features *and the person's offset*; push-v1's
  ``optimum``, 1.0 normalized);
* the **features-only optimum** (DP on ``q = E[p_open | observation]``: the offset integrated out
  over the generator's population, uniform on -0.5..0.5, on a midpoint grid of ``--grid`` points,
  the rounding kept). The thresholds are computed on the distribution of ``q``, not of ``p_open``:
  what is to come is worth what a policy deciding by ``q`` will collect of it. ``honest`` beside
  it: the thresholds from the training log's ``q``, nothing read from the played log;
* **time-aware** features-only optimum and oracle: the same DP with the notifications to come
  drawn from the rows at or after the notification's quarter hour on the same kind of day
  (weekday or weekend; the features-only one's thresholds from the training log): the hour is
  observed, and what is left of the day is not the whole day's mix;
* **supervised** (``push_v1_optimum.supervised_policy``: logistic regression of the open on the
  training log's one-hot features, the DP's thresholds on its predictions) and **sup. terms**
  (the same, on the terms of the generator's ``open_logit`` instead, :func:`generator_terms`:
  what a learner of the training log reaches once its features have the generator's form);
* the **rule** (``env.heuristic``, ``push_v1_rule.day_opens``) and **random** (probability 1/2
  a step).

Neither DP is an exact optimum (the days are not independent draws), so the oracle is a
reference, not a bound: a policy of the observation may score above it, and does.

It prints the table (expected opens per user-day, normalized ``(x - random) / (oracle - random)``
with ``push_v1_optimum``'s random and oracle), the paired differences on the baselines'
evaluation days (``--episodes`` test days, those ``env.reset(seed=i)`` draws for ``i = 0 ..``,
the baselines' 1,000 by default; each day's exact value; the standard error of the mean
difference), then three answers: the headroom above the rule for a memoryless agent of the
observation; for an agent that knew the person (the oracle); and, at budget 2, for one that
infers the offset within the day from its first delivery: from the open or not (the Bayesian
posterior over the offset after that outcome, the second delivery decided by the DP on the
posterior's ``E[p_open]``), or from the first delivery's exact ``p_open`` (what the default
reward, the expected open, gives away: the offset exactly). push-v1's observation holds neither,
so a policy of the observation cannot use them; the figures bound what memory of the rewards
could add. Last it plays :class:`FeaturesOnlyPolicy` (``q`` from the observation alone) in the
environment on the same days and checks each return against its day's exact value.

Measured (test log, budget 2; about 10 s on one core): random 0.455, the rule 1.469 (0.964
normalized), supervised 1.471 (0.967), on the generator's terms 1.500 (0.994), the features-only
optimum 1.505 (0.999; honest 1.504), time-aware 1.508 (1.002), the oracle 1.506, time-aware 1.514
(1.008). On the 1,000 evaluation days the features-only optimum leads the rule by +0.034 ± 0.007
expected opens a day (5.0 standard errors; +0.037 over every test day once); knowing the person
adds +0.004 ± 0.006 (+0.010 ± 0.006 time-aware); inferring the offset from the first delivery's
open changes the day by -0.0005 ± 0.0002, from its exact ``p_open`` by +0.0006 ± 0.0011. The room
above the rule is in the form of the open probability (the generator's interactions, which the
rule's points and a logistic regression of one-hot features miss; on the generator's terms the
same 336 training days reach 0.994), not in the hidden person.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs.push_log import CATEGORICAL_FIELDS, NUMERIC_FIELDS, load_log
from gym_suite.envs.push_v1_env import user_days
from gym_suite.references import push_supervised, push_v1_optimum, push_v1_rule

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import make_notifications as generator  # noqa: E402  (the repository's generator of the logs)

ENV_ID = "push-v1"
SPLITS = ("train", "test")
OFFSET_LOW, OFFSET_HIGH = -0.5, 0.5  # make_user: "bias": -0.5 + u()
WEEKEND = ("Sat", "Sun")
TIME_STEP = 0.25  # hours: the bins of the time-aware DP


# --------------------------------------------------------------------------------------------
# The generator's open probability from the observed fields
# --------------------------------------------------------------------------------------------


def generator_columns(codes: np.ndarray, numbers: np.ndarray, vocabularies) -> dict:
    """``open_logit``'s input columns from observed fields (``codes (n, 6)``, ``numbers (n, 5)``
    as ``push_supervised.log_fields`` / ``observation_fields`` give them)."""
    text = {f: np.asarray(vocabularies[f], dtype=object)[codes[:, j]] for j, f in enumerate(CATEGORICAL_FIELDS)}
    value = {f: numbers[:, j].astype(np.float64) for j, f in enumerate(NUMERIC_FIELDS)}
    effect = {app[0]: app[3] for app in generator.APPS}
    return {
        "category": text["category"].astype(str),
        "app_effect": np.array([effect[a] for a in text["app"]], dtype=np.float64),
        "priority": value["priority"],
        "num_updates": value["num_updates"],
        "significant_contact": text["significant_contact"].astype(int),
        "text_length": value["text_length"],
        "hour": value["hour"],
        "weekend": np.isin(text["day_of_week"].astype(str), WEEKEND),
        "location": text["location"].astype(str),
        "ringer_mode": text["ringer_mode"].astype(str),
        "battery": value["battery"],
    }


def feature_logit(codes: np.ndarray, numbers: np.ndarray, vocabularies) -> np.ndarray:
    """``f``: the generator's log-odds of the open without the person's offset."""
    return generator.open_logit(generator_columns(codes, numbers, vocabularies), 0.0)


def p_open_of(logit: np.ndarray) -> np.ndarray:
    """The generator's ``p_open`` of a log-odds: the sigmoid, rounded to 4 decimals, clipped."""
    p = np.round(generator.sigmoid(logit), generator.P_OPEN_DECIMALS)
    return np.clip(p, generator.P_OPEN_MIN, generator.P_OPEN_MAX)


def user_offsets(users: int = generator.DEFAULT_USERS, seed: int = generator.DEFAULT_SEED) -> dict[str, float]:
    """Each person's offset (``{user_id: offset}``), drawn again as the generator draws them
    (the people come first from the seed's stream)."""
    uniforms = generator.Uniforms(seed)
    people = [generator.make_user(uniforms, i, users) for i in range(users)]
    return {person["id"]: float(person["bias"]) for person in people}


def offset_grid(points: int) -> np.ndarray:
    """The midpoints of ``points`` equal cells of the offset's range."""
    return OFFSET_LOW + (OFFSET_HIGH - OFFSET_LOW) * (np.arange(points) + 0.5) / points


def probability_table(f: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """``(len(f), len(grid))``: ``p_open`` of each row at each offset of the grid."""
    return p_open_of(f[:, None] + grid[None, :])


def posterior_mean(table: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """``E[p_open]`` of each row under ``weights`` over the grid (uniform: the generator's prior)."""
    if weights is None:
        return table.mean(axis=1)
    return table @ (weights / weights.sum())


def generator_terms(codes: np.ndarray, numbers: np.ndarray, vocabularies) -> np.ndarray:
    """The terms of ``open_logit`` as a design matrix of observed fields: the app (one-hot; it fixes
    the category), the priority, a significant contact, the interactions (a significant contact's
    message in the evening, a promotion at night, silent, vibrate, a distraction or an e-mail at
    work, a social app at the weekend), the updates counted, the text's doublings beyond 80
    characters, a low battery: what a learner would need to know to fit the generator's form."""
    t = generator_columns(codes, numbers, vocabularies)
    is_ = {c: t["category"] == c for c in generator.CATEGORIES}
    hour, significant, at_work = t["hour"], t["significant_contact"] == 1, t["location"] == "work"
    evening = (hour >= generator.EVENING_HOURS[0]) & (hour < generator.EVENING_HOURS[1])
    night = (hour >= generator.NIGHT_HOURS[0]) | (hour < generator.NIGHT_HOURS[1])
    terms = [
        t["priority"],
        significant,
        is_["msg"] & significant & evening,
        is_["promo"] & night,
        t["ringer_mode"] == "silent",
        t["ringer_mode"] == "vibrate",
        at_work & (is_["social"] | is_["promo"] | is_["recommendation"]),
        at_work & is_["email"],
        np.minimum(t["num_updates"], generator.COUNTED_UPDATES),
        np.maximum(np.log2(t["text_length"] / generator.SHORT_TEXT), 0.0),
        t["battery"] < generator.LOW_BATTERY_PERCENT,
        is_["social"] & t["weekend"],
    ]
    apps = np.eye(len(vocabularies["app"]))[codes[:, CATEGORICAL_FIELDS.index("app")]]
    return np.hstack([apps, np.column_stack(terms).astype(np.float64)])


def fit_terms(train: Log):
    """Logistic regression of the training log's opens on :func:`generator_terms` (scikit-learn,
    ``C=1``): ``predict(log) -> P(open)`` of each row."""
    from sklearn.linear_model import LogisticRegression

    def design(data: Log) -> np.ndarray:
        return generator_terms(data.codes, data.numbers, data.log.vocabularies)

    model = LogisticRegression(C=1.0, max_iter=5000).fit(design(train), np.asarray(train.log.labels))
    return lambda data: model.predict_proba(design(data))[:, 1]


class Log:
    """One bundled log: its user-days, true ``p_open``, feature log-odds ``f``, offsets and ``q``."""

    def __init__(self, split: str, points: int = 1000):
        self.split = split
        self.log = load_log(split=split)
        order, starts, lengths = user_days(self.log)
        self.days = [order[s : s + n] for s, n in zip(starts, lengths)]
        self.max_left = int(max(lengths))
        self.p = np.asarray(self.log.p_open, dtype=np.float64)
        self.codes, self.numbers = push_supervised.log_fields(self.log)
        self.f = feature_logit(self.codes, self.numbers, self.log.vocabularies)
        offsets = user_offsets()
        ids = np.asarray(self.log.vocabularies["user_id"])[np.asarray(self.log.users)]
        self.offset = np.array([offsets[u] for u in ids])
        self.grid = offset_grid(points)
        self.table = probability_table(self.f, self.grid)
        self.q = posterior_mean(self.table)


# --------------------------------------------------------------------------------------------
# Scoring: each user-day exactly
# --------------------------------------------------------------------------------------------


def dp_day_opens(
    score: np.ndarray, p: np.ndarray, days, budget: int, threshold: np.ndarray, key: np.ndarray | None = None
) -> np.ndarray:
    """Each day's expected opens of the policy that delivers when ``score >= T(b, n)`` (the
    notification's score against the DP's threshold of the budget and notifications left), a
    delivery earning its true ``p``. With ``key`` (one per row), ``threshold[key[row]]`` is the
    row's table (:func:`time_thresholds`)."""
    opens = np.zeros(len(days))
    for d, rows in enumerate(days):
        b, n = budget, len(rows)
        for k, row in enumerate(rows):
            if b == 0:
                break
            table = threshold if key is None else threshold[key[row]]
            if score[row] >= table[b, n - k]:
                opens[d] += p[row]
                b -= 1
    return opens


def dp_threshold(values: np.ndarray, budget: int, max_left: int) -> np.ndarray:
    """``push_v1_optimum.thresholds``' ``T`` on the distribution of ``values``."""
    return push_v1_optimum.thresholds(values, budget, max_left)[1]


def time_key(data: Log, step: float = TIME_STEP) -> np.ndarray:
    """Each row's table of :func:`time_thresholds`: weekend or not, and its hour's bin."""
    bins = int(round(24 / step))
    hour = data.numbers[:, NUMERIC_FIELDS.index("hour")].astype(np.float64)
    weekend = np.isin(np.asarray(data.log.vocabularies["day_of_week"])[data.codes[:, 3]], WEEKEND)
    return weekend * bins + np.minimum(np.floor(hour / step), bins - 1).astype(np.int64)


def time_thresholds(values: np.ndarray, key: np.ndarray, budget: int, max_left: int, step: float = TIME_STEP):
    """``(2 * bins, budget + 1, max_left + 1)``: the DP's thresholds with the notifications to come
    drawn from the rows of the same kind of day (weekday or weekend) at or after the hour's bin
    (rows keyed by :func:`time_key`): the time-aware DP, which the hour makes a policy of the
    observation."""
    bins = int(round(24 / step))
    tables = np.full((2 * bins, budget + 1, max_left + 1), 2.0)
    for weekend in (0, 1):
        for b in range(bins):
            later = values[(key >= weekend * bins + b) & (key < (weekend + 1) * bins)]
            if len(later):
                tables[weekend * bins + b] = dp_threshold(later, budget, max_left)
    return tables


def iid_value(score: np.ndarray, reward: np.ndarray, threshold: np.ndarray, budget: int, left: int) -> float:
    """The expected return, notifications drawn independently from the rows (each as likely), of
    delivering when ``score >= threshold[b, n]``, a delivery earning ``reward``: the recursion of
    ``thresholds``' ``V`` for a fixed policy."""
    value = np.zeros((budget + 1, left + 1))
    for n in range(1, left + 1):
        for b in range(1, budget + 1):
            deliver = score >= threshold[b, n]
            value[b, n] = np.where(deliver, reward + value[b - 1, n - 1], value[b, n - 1]).mean()
    return float(value[budget, left])


def per_day(logs: dict[str, Log], split: str, budget: int) -> dict[str, np.ndarray]:
    """Each user-day's expected opens of every policy of the table."""
    data = logs[split]
    random_, oracle = [], []
    oracle_t = dp_threshold(data.p, budget, data.max_left)
    for rows in data.days:
        values = push_v1_optimum.day_values(data.p[rows], budget, oracle_t)
        random_.append(values["random"])
        oracle.append(values["optimum"])
    rule = push_v1_rule.day_opens(push_v1_rule.log_params(split, budget))
    if len(rule) != len(data.days):
        raise RuntimeError("the rule's days are not the log's")
    features = dp_day_opens(data.q, data.p, data.days, budget, dp_threshold(data.q, budget, data.max_left))
    train = logs["train"]
    longest = max(train.max_left, data.max_left)
    honest = dp_day_opens(data.q, data.p, data.days, budget, dp_threshold(train.q, budget, longest))
    supervised = push_v1_optimum.supervised_policy(budget)
    predicted = supervised.model.probability(data.codes, data.numbers)
    terms = fit_terms(train)
    key, train_key = time_key(data), time_key(train)
    return {
        "random": np.array(random_),
        "time features": dp_day_opens(
            data.q, data.p, data.days, budget, time_thresholds(train.q, train_key, budget, longest), key
        ),
        "time oracle": dp_day_opens(
            data.p, data.p, data.days, budget, time_thresholds(data.p, key, budget, data.max_left), key
        ),
        "rule": rule,
        "supervised": dp_day_opens(predicted, data.p, data.days, budget, supervised.threshold),
        "terms": dp_day_opens(
            terms(data), data.p, data.days, budget, dp_threshold(terms(train), budget, 2 * train.max_left)
        ),
        "features": features,
        "honest": honest,
        "oracle": np.array(oracle),
    }


def within_day(data: Log, budget: int = 2) -> dict[str, np.ndarray]:
    """Each user-day's expected opens (budget 2) of the features-only optimum and of the same
    policy that, after its first delivery, decides the rest of the day with the offset inferred
    from that delivery: ``outcome`` from whether it was opened (the Bayesian posterior on the
    grid; the DP's threshold for the budget left on the posterior's ``E[p_open]`` over the log),
    ``exact`` from its true ``p_open`` (the offset then known: the DP on the person's own
    ``p_open``); ``shift``, the expected distance of the posterior's mean offset from the
    prior's (0) after the outcome."""
    threshold = dp_threshold(data.q, budget, data.max_left)
    by_user = {}
    plain, outcome, exact, shift = (np.zeros(len(data.days)) for _ in range(4))

    def rest(score, rows, b, values):
        t = dp_threshold(values, b, data.max_left)
        n = len(rows)
        got, left = 0.0, b
        for k, row in enumerate(rows):
            if left == 0:
                break
            if score[row] >= t[left, n - k]:
                got += data.p[row]
                left -= 1
        return got

    for d, rows in enumerate(data.days):
        n = len(rows)
        first = next((k for k, row in enumerate(rows) if data.q[row] >= threshold[budget, n - k]), None)
        if first is None:
            continue
        p_first, after = data.p[rows[first]], rows[first + 1 :]
        plain[d] = p_first + dp_day_opens(data.q, data.p, [after], budget - 1, threshold)[0]
        likelihood = data.table[rows[first]]
        opened = posterior_mean(data.table, likelihood)
        closed = posterior_mean(data.table, 1.0 - likelihood)
        shift[d] = p_first * abs(np.average(data.grid, weights=likelihood)) + (1 - p_first) * abs(
            np.average(data.grid, weights=1.0 - likelihood)
        )
        outcome[d] = (
            p_first
            + p_first * rest(opened, after, budget - 1, opened)
            + (1 - p_first) * rest(closed, after, budget - 1, closed)
        )
        offset = data.offset[rows[0]]
        if offset not in by_user:
            by_user[offset] = p_open_of(data.f + offset)
        exact[d] = p_first + rest(data.p, after, budget - 1, by_user[offset])
    return {"features": plain, "outcome": outcome, "exact": exact, "shift": shift}


# --------------------------------------------------------------------------------------------
# The baselines' evaluation days, and the policy in the environment
# --------------------------------------------------------------------------------------------


def evaluation_days(episodes: int, seed: int = 0, split: str = "test") -> np.ndarray:
    """The user-day (index in the log's order of days) that ``env.reset(seed=seed + i)`` plays."""
    from gym_suite.quiet import make

    env = make(ENV_ID, split=split)
    first_rows = push_v1_rule.day_of_row(env.unwrapped.params)
    days = []
    for i in range(episodes):
        env.reset(seed=seed + i)
        days.append(first_rows[int(env.unwrapped.current_row)])
    env.close()
    return np.array(days)


class FeaturesOnlyPolicy:
    """``observation -> action``: the features-only optimum, from the observation alone (``q``
    computed from its fields with the generator's ``open_logit``, the offset integrated out),
    the DP's thresholds on the training log's ``q``."""

    def __init__(self, budget: int = 2, points: int = 1000, train: Log | None = None):
        train = Log("train", points) if train is None else train
        self.vocabularies, self.grid = train.log.vocabularies, train.grid
        self.threshold = dp_threshold(train.q, budget, 2 * train.max_left)
        self.name = "push-v1-features-only"

    def probabilities(self, observations) -> np.ndarray:
        codes, numbers = push_supervised.observation_fields(list(observations))
        f = feature_logit(codes, numbers, self.vocabularies)
        return posterior_mean(probability_table(f, self.grid))

    def act_batch(self, observations) -> np.ndarray:
        observations = list(observations)
        q = self.probabilities(observations)
        budget = [int(round(float(np.asarray(o["budget_left"]).reshape(-1)[0]))) for o in observations]
        left = [int(round(float(np.asarray(o["notifications_left"]).reshape(-1)[0]))) for o in observations]
        return (q >= self.threshold[budget, left]).astype(np.int64)

    def __call__(self, observation) -> int:
        return int(self.act_batch([observation])[0])


def paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of ``a - b``."""
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", default="1,2,3,5", help="daily budgets of the table (2 is always scored)")
    parser.add_argument("--episodes", type=int, default=1000, help="the evaluation days paired (seeds 0 ..)")
    parser.add_argument("--grid", type=int, default=1000, help="points of the offset's grid")
    args = parser.parse_args(argv)
    budgets = sorted({int(b) for b in args.budgets.split(",")} | {2})
    if args.episodes < 2 or args.grid < 1 or min(budgets) < 1:
        parser.error("--episodes must be 2 or more, --grid and the budgets 1 or more")

    logs = {split: Log(split, args.grid) for split in SPLITS}
    for data in logs.values():
        rebuilt = p_open_of(data.f + data.offset)
        if not np.array_equal(rebuilt, data.p):
            raise RuntimeError(f"the {data.split} log's p_open is not the generator's from the observed fields")
    print("The generator's p_open from the observed fields and the person's offset: every row of both logs exact.")
    print("Hidden from push-v1's observation: the offset alone (uniform on -0.5..0.5 over people).\n")

    columns = (
        ("random", "random"),
        ("rule", "rule"),
        ("supervised", "supervised"),
        ("terms", "sup. terms"),
        ("features", "features-only"),
        ("honest", "(honest)"),
        ("time features", "time-aware"),
        ("oracle", "oracle"),
        ("time oracle", "time oracle"),
    )
    tables = {}
    print(
        "expected opens per user-day (every user-day of the log once), then normalized: (x - random) / (oracle - random)"
    )
    header = "  ".join(f"{label:>{max(len(label), 6)}}" for _, label in columns)
    print(f"log    budget  {header}")
    for split in SPLITS:
        for budget in budgets:
            values = per_day(logs, split, budget)
            tables[split, budget] = values
            m = {k: float(values[k].mean()) for k, _ in columns}
            opens = "  ".join(f"{m[k]:{max(len(label), 6)}.3f}" for k, label in columns)
            norm = "  ".join(
                f"{(m[k] - m['random']) / (m['oracle'] - m['random']):{max(len(label), 6)}.3f}" for k, label in columns
            )
            print(f"{split:5}  {budget:6d}  {opens}\n{'':13}  {norm}")

    test = tables["test", 2]
    days = evaluation_days(args.episodes)
    print(
        f"\npaired on the baselines' {args.episodes} evaluation days (test log, budget 2, seeds 0-{args.episodes - 1}):"
    )
    pairs = [
        ("features-only - rule", "features", "rule"),
        ("features-only (honest) - rule", "honest", "rule"),
        ("time-aware features-only - rule", "time features", "rule"),
        ("supervised - rule", "supervised", "rule"),
        ("features-only - supervised", "features", "supervised"),
        ("supervised on terms - rule", "terms", "rule"),
        ("oracle - rule", "oracle", "rule"),
        ("oracle - features-only", "oracle", "features"),
        ("time-aware: oracle - features", "time oracle", "time features"),
    ]
    result = {}
    for label, a, b in pairs:
        mean, error = paired(test[a][days], test[b][days])
        exact = float((test[a] - test[b]).mean())
        result[a, b] = (mean, error, exact)
        print(f"  {label:31} {mean:+.4f} ± {error:.4f}  ({mean / error:+.1f} SE; every test day once: {exact:+.4f})")

    inferred = within_day(logs["test"])
    if not np.allclose(inferred["features"], test["features"]):
        raise RuntimeError("the within-day replay of the features-only optimum differs from its table value")
    gain_outcome = paired(inferred["outcome"][days], inferred["features"][days])
    gain_exact = paired(inferred["exact"][days], inferred["features"][days])

    def said(a: str, b: str) -> str:
        mean, error, exact = result[a, b]
        return f"{exact:+.4f} a day ({mean:+.4f} ± {error:.4f} on the evaluation days, {mean / error:+.1f} SE)"

    def normalized(name: str) -> float:
        return float((test[name].mean() - test["random"].mean()) / (test["oracle"].mean() - test["random"].mean()))

    print("\nAnswers (test log, budget 2):")
    print(
        f"1. A memoryless agent of the observation, the DP on q = E[p_open | observation]: {said('features', 'rule')}"
        f" over the rule; the time-aware DP on q (its thresholds by weekday or weekend and the quarter hour, from the"
        f" training log): {said('time features', 'rule')}. Both are policies of the observation and reach the"
        f" oracle's score (normalized {normalized('features'):.3f} and {normalized('time features'):.3f}): the"
        " oracle is the value of the DP that takes the day's notifications as independent, not a bound."
    )
    print(
        f"2. An agent that knew the person (nothing else is hidden: the DP on p_open is the oracle):"
        f" {said('oracle', 'features')} over the features-only optimum with the iid DP,"
        f" {said('time oracle', 'time features')} with the time-aware DP."
    )
    print(
        f"3. Inferring the offset within the day from the first delivery, the second decided on it: from its open"
        f" or not {inferred['outcome'].mean() - inferred['features'].mean():+.4f} a day"
        f" ({gain_outcome[0]:+.4f} ± {gain_outcome[1]:.4f}); even from its exact p_open (the offset then known)"
        f" {inferred['exact'].mean() - inferred['features'].mean():+.4f} ({gain_exact[0]:+.4f} ± {gain_exact[1]:.4f})."
        f" One outcome moves the posterior mean of the offset by {inferred['shift'].mean():.3f} on average (the"
        f" prior's standard deviation is {(OFFSET_HIGH - OFFSET_LOW) / np.sqrt(12):.3f}); push-v1's observation"
        " holds neither the outcome nor the reward."
    )

    from gym_suite.evaluate import evaluate

    policy = FeaturesOnlyPolicy(2, args.grid, logs["train"])
    played = evaluate(ENV_ID, policy, episodes=args.episodes, seed=0, env_kwargs={"split": "test"})
    worst = float(np.abs(played.returns - test["honest"][days]).max())
    print(
        f"\nFeaturesOnlyPolicy in the environment (training log's thresholds), {args.episodes} test episodes:"
        f" {played.mean:.4f}; largest |return - the day's exact value| {worst:.2e}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
