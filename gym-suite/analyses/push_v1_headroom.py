"""How much room push-v1 leaves above its tuned rule: the best a policy of the observation can do.

    python gym-suite/analyses/push_v1_headroom.py [--episodes 1000] [--grid 1000]

The generator's ``p_open`` is ``sigmoid(f + offset)``: ``f`` of what push-v1 observes
(:func:`feature_logit`), ``offset`` the person's, uniform on -0.5..0.5 (:func:`user_offsets`). The
**oracle** (the online DP on ``p_open``), the **features-only optimum** (the DP on
``E[p_open | observation]``, the offset integrated out on ``--grid`` points) and **honest** (its
thresholds from the training log) against the rule and random, paired on the baselines' days.
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
OFFSET_LOW, OFFSET_HIGH = -0.5, 0.5  # make_user: "bias": -0.5 + u()


def feature_logit(codes: np.ndarray, numbers: np.ndarray, vocabularies) -> np.ndarray:
    """``f``: the generator's log-odds of the open without the person's offset, from observed fields
    (``codes (n, 6)``, ``numbers (n, 5)`` as ``push_supervised.log_fields`` / ``observation_fields``)."""
    text = {f: np.asarray(vocabularies[f], dtype=object)[codes[:, j]] for j, f in enumerate(CATEGORICAL_FIELDS)}
    value = {f: numbers[:, j].astype(np.float64) for j, f in enumerate(NUMERIC_FIELDS)}
    effect = {app[0]: app[3] for app in generator.APPS}
    columns = {name: value[name] for name in ("priority", "num_updates", "text_length", "hour", "battery")}
    columns |= {name: text[name].astype(str) for name in ("category", "location", "ringer_mode")}
    columns["app_effect"] = np.array([effect[a] for a in text["app"]], dtype=np.float64)
    columns["significant_contact"] = text["significant_contact"].astype(int)
    columns["weekend"] = np.isin(text["day_of_week"].astype(str), ("Sat", "Sun"))
    return generator.open_logit(columns, 0.0)


def p_open_of(logit: np.ndarray) -> np.ndarray:
    """The generator's ``p_open`` of a log-odds: the sigmoid, rounded to 4 decimals, clipped."""
    p = np.round(generator.sigmoid(logit), generator.P_OPEN_DECIMALS)
    return np.clip(p, generator.P_OPEN_MIN, generator.P_OPEN_MAX)


def user_offsets(users: int = generator.DEFAULT_USERS, seed: int = generator.DEFAULT_SEED) -> dict[str, float]:
    """Each person's offset (``{user_id: offset}``), drawn again as the generator draws them."""
    uniforms = generator.Uniforms(seed)
    return {p["id"]: float(p["bias"]) for p in (generator.make_user(uniforms, i, users) for i in range(users))}


def expected_p_open(f: np.ndarray, points: int) -> np.ndarray:
    """``q = E[p_open]`` of each row over the offset's prior, on the midpoints of ``points`` cells."""
    grid = OFFSET_LOW + (OFFSET_HIGH - OFFSET_LOW) * (np.arange(points) + 0.5) / points
    return p_open_of(f[:, None] + grid[None, :]).mean(axis=1)


class Log:
    """One bundled log: its user-days, true ``p_open``, feature log-odds ``f``, offsets and ``q``."""

    def __init__(self, split: str, points: int = 1000):
        self.split, self.log = split, load_log(split=split)
        order, starts, lengths = user_days(self.log)
        self.days = [order[s : s + n] for s, n in zip(starts, lengths)]
        self.max_left = int(max(lengths))
        self.p = np.asarray(self.log.p_open, dtype=np.float64)
        self.codes, self.numbers = push_supervised.log_fields(self.log)
        self.f = feature_logit(self.codes, self.numbers, self.log.vocabularies)
        offsets = user_offsets()
        ids = np.asarray(self.log.vocabularies["user_id"])[np.asarray(self.log.users)]
        self.offset = np.array([offsets[u] for u in ids])
        self.q = expected_p_open(self.f, points)


def dp_threshold(values: np.ndarray, budget: int, max_left: int) -> np.ndarray:
    """``push_v1_optimum.thresholds``' ``T`` on the distribution of ``values``."""
    return push_v1_optimum.thresholds(values, budget, max_left)[1]


def dp_day_opens(score: np.ndarray, p: np.ndarray, days, budget: int, threshold: np.ndarray) -> np.ndarray:
    """Each day's expected opens of the policy that delivers when ``score >= threshold[b, n]`` (the
    budget and the notifications left), a delivery earning its true ``p``."""
    opens = np.zeros(len(days))
    for d, rows in enumerate(days):
        b, n = budget, len(rows)
        for k, row in enumerate(rows):
            if b and score[row] >= threshold[b, n - k]:
                opens[d] += p[row]
                b -= 1
    return opens


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
    """``observation -> action``: the features-only optimum from the observation alone (``q`` from its
    fields with the generator's ``open_logit``, the offset integrated out), the DP's thresholds on the
    training log's ``q``."""

    def __init__(self, budget: int = 2, points: int = 1000, train: Log | None = None):
        train = Log("train", points) if train is None else train
        self.vocabularies, self.points = train.log.vocabularies, points
        self.threshold = dp_threshold(train.q, budget, 2 * train.max_left)
        self.name = "push-v1-features-only"

    def act_batch(self, observations) -> np.ndarray:
        observations = list(observations)
        codes, numbers = push_supervised.observation_fields(observations)
        q = expected_p_open(feature_logit(codes, numbers, self.vocabularies), self.points)
        return push_v1_optimum.threshold_actions(q, observations, self.threshold)

    def __call__(self, observation) -> int:
        return int(self.act_batch([observation])[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=1000, help="the evaluation days paired (seeds 0 ..)")
    parser.add_argument("--grid", type=int, default=1000, help="points of the offset's grid")
    args = parser.parse_args(argv)
    if args.episodes < 2 or args.grid < 1:
        parser.error("--episodes must be 2 or more, --grid 1 or more")
    logs = {split: Log(split, args.grid) for split in ("train", "test")}
    if not all(np.array_equal(p_open_of(data.f + data.offset), data.p) for data in logs.values()):
        raise RuntimeError("a log's p_open is not the generator's from the observed fields")
    print("The generator's p_open from the observed fields and the person's offset: every row of both logs exact.")
    print("expected opens per user-day at budget 2 (every user-day once), normalized (x - random) / (oracle - random)")
    names = ("random", "rule", "features-only", "honest", "oracle")
    print(f"log    {'  '.join(f'{n:>13}' for n in names)}")
    scores = {}
    for split, data in logs.items():
        exact = push_v1_optimum.exact_table(split, 2)
        honest = dp_threshold(logs["train"].q, 2, max(logs["train"].max_left, data.max_left))
        scores[split] = s = {
            "rule": push_v1_rule.day_opens(push_v1_rule.log_params(split, 2)),
            "features-only": dp_day_opens(data.q, data.p, data.days, 2, dp_threshold(data.q, 2, data.max_left)),
            "honest": dp_day_opens(data.q, data.p, data.days, 2, honest),
            "oracle": dp_day_opens(data.p, data.p, data.days, 2, dp_threshold(data.p, 2, data.max_left)),
        }
        mean = {"random": exact["random"]} | {k: float(v.mean()) for k, v in s.items()}
        norm = {k: (v - mean["random"]) / (mean["oracle"] - mean["random"]) for k, v in mean.items()}
        print(f"{split:5}  {'  '.join(f'{mean[n]:6.3f} ({norm[n]:.3f})' for n in names)}")
    test, days = scores["test"], evaluation_days(args.episodes)
    print(f"\npaired on the baselines' {args.episodes} evaluation days (test log, seeds 0-{args.episodes - 1}):")
    for a, b in (("features-only", "rule"), ("honest", "rule"), ("oracle", "rule"), ("oracle", "features-only")):
        d = test[a][days] - test[b][days]
        error = d.std(ddof=1) / np.sqrt(len(d))
        print(
            f"  {a} - {b}: {d.mean():+.4f} ± {error:.4f} ({d.mean() / error:+.1f} SE; every day once {(test[a] - test[b]).mean():+.4f})"
        )

    policy = FeaturesOnlyPolicy(2, args.grid, logs["train"])
    played = gym_suite.evaluate(ENV_ID, policy, episodes=args.episodes, seed=0, env_kwargs={"split": "test"})
    worst = float(np.abs(played.returns - test["honest"][days]).max())
    print(
        f"\nFeaturesOnlyPolicy in the environment (training log's thresholds), {args.episodes} test episodes:"
        f" {played.mean:.4f}; largest |return - the day's exact value| {worst:.2e}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
