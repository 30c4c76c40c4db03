"""Supervised baselines of ``push-v0``: classifiers fit on the training log, played on the test log.

    python -m gym_suite.references.push_supervised [--episodes 1000] [--seed 0] [--kinds logistic,boosting]

The reward is +1 when the action matches the person's reaction and -1 otherwise, so "deliver iff
P(open | observation) > 0.5" maximises the expected return: a classifier of "opened" fit to the
training log is the natural supervised policy. Two are fit (scikit-learn, seeded), on what the
env observes only (:func:`features`, for the training rows and the observations alike):

* ``logistic``: logistic regression on the one-hot categorical fields, the hour one-hot, and the
  numeric fields standardised (the text length as its log);
* ``boosting``: ``HistGradientBoostingClassifier`` on the raw fields (categorical as categories).

Each is scored as any agent, on the test log (``env_kwargs={"split": "test"}``), beside the
heuristic, random actions and the Bayes-optimal policy (:func:`bayes_policy`: deliver when the
generator's hidden ``p_open`` of the observed notification, looked up in the log, is at least
0.5). Printed: the mean return ± std, the accuracy ``(return / 100 + 1) / 2``, the paired
differences against the heuristic and the Bayes-optimal policy (mean ± standard error) and the
accuracy over the whole test log.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from gym_suite.envs.push_log import CATEGORICAL_FIELDS, NUMERIC_FIELDS, load_log
from gym_suite.references import BatchPolicy, listed, paired_text, script_parser

ENV_ID = "push-v0"
EVAL_KWARGS = {"split": "test"}  # push-v0's recipe: scored on the held-out test log
KINDS = ("logistic", "boosting")
THRESHOLD = 0.5  # deliver iff P(open) > 0.5: the rewards are +1 / -1, symmetric
_HOUR = NUMERIC_FIELDS.index("hour")


def log_fields(log) -> tuple[np.ndarray, np.ndarray]:
    """``(codes (n, 6) int, numbers (n, 5) float32)`` of a log's rows, as the env observes them."""
    return np.asarray(log.codes).T.astype(np.int64), np.asarray(log.numbers).T.astype(np.float32)


def observation_fields(observations) -> tuple[np.ndarray, np.ndarray]:
    """The same arrays from a list of observation dicts (or one dict)."""
    if isinstance(observations, dict):
        observations = [observations]
    codes = np.array([[int(o[f]) for f in CATEGORICAL_FIELDS] for o in observations], dtype=np.int64)
    numbers = np.array(
        [[float(np.asarray(o[f]).reshape(-1)[0]) for f in NUMERIC_FIELDS] for o in observations], dtype=np.float32
    )
    return codes, numbers


def features(codes: np.ndarray, numbers: np.ndarray, sizes: dict, kind: str) -> np.ndarray:
    """The design matrix of ``kind`` from the observed fields (``sizes``: each vocabulary's length)."""
    if kind == "boosting":
        return np.hstack([codes.astype(np.float64), numbers.astype(np.float64)])
    blocks = [np.eye(sizes[f])[codes[:, j]] for j, f in enumerate(CATEGORICAL_FIELDS)]
    hour = np.clip(np.floor(numbers[:, _HOUR]).astype(np.int64), 0, 23)
    blocks.append(np.eye(24)[hour])
    numeric = numbers.astype(np.float64).copy()
    numeric[:, NUMERIC_FIELDS.index("text_length")] = np.log1p(numeric[:, NUMERIC_FIELDS.index("text_length")])
    blocks.append(np.delete(numeric, _HOUR, axis=1))
    return np.hstack(blocks)


class SupervisedPolicy(BatchPolicy):
    """``observation -> action``: deliver (1) iff the classifier's P(open) > 0.5; ``act_batch`` too."""

    def __init__(self, model, sizes: dict, kind: str):
        self.model, self.sizes, self.kind = model, sizes, kind
        self.name = f"supervised-{kind}"

    def probability(self, codes, numbers) -> np.ndarray:
        return self.model.predict_proba(features(codes, numbers, self.sizes, self.kind))[:, 1]

    def act_batch(self, observations) -> np.ndarray:
        return (self.probability(*observation_fields(list(observations))) > THRESHOLD).astype(np.int64)


def fit(kind: str = "logistic", split: str = "train", seed: int = 0) -> SupervisedPolicy:
    """The classifier ``kind`` fit to the bundled log ``split`` (labels: opened), as a policy."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    log = load_log(split=split)
    sizes = {f: len(log.vocabularies[f]) for f in CATEGORICAL_FIELDS}
    codes, numbers = log_fields(log)
    x, y = features(codes, numbers, sizes, kind), np.asarray(log.labels)
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=2000))
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        categorical = np.arange(x.shape[1]) < len(CATEGORICAL_FIELDS)
        model = HistGradientBoostingClassifier(
            categorical_features=categorical, max_iter=200, learning_rate=0.05, random_state=seed
        )
    model.fit(x, y)
    return SupervisedPolicy(model, sizes, kind)


_FITTED: dict = {}


def supervised_policy(kind: str = "logistic", seed: int = 0) -> SupervisedPolicy:
    """The ``kind`` classifier (``"logistic"`` or ``"boosting"``) fit on the training log, as a policy
    ``observation -> action`` (fit once per process)."""
    if (kind, seed) not in _FITTED:
        _FITTED[kind, seed] = fit(kind, "train", seed)
    return _FITTED[kind, seed]


def observation_keys(codes, numbers) -> list[tuple]:
    """One hashable key per notification: its categorical codes and numbers (as ``log_fields`` and
    ``observation_fields`` give them), by which a log's hidden ``p_open`` is found."""
    return [tuple(c) + tuple(n) for c, n in zip(codes.tolist(), numbers.tolist())]


def log_p_open(split: str) -> tuple[list[tuple], list[float]]:
    """The keys (:func:`observation_keys`) and the hidden ``p_open`` of the bundled log ``split``'s rows."""
    log = load_log(split=split)
    if log.p_open is None:
        raise ValueError(f"the {split} log has no p_open column")
    return observation_keys(*log_fields(log)), np.asarray(log.p_open).tolist()


def looked_up(table: dict, observations, split: str) -> list:
    """``table``'s value of each observation's key, or ``ValueError`` naming one the log has not."""
    keys = observation_keys(*observation_fields(list(observations)))
    missing = [k for k in keys if k not in table]
    if missing:
        raise ValueError(f"an observation that is not in the {split} log: {missing[0]}")
    return [table[k] for k in keys]


class BayesPolicy(BatchPolicy):
    """Deliver iff the generator's ``p_open`` of the observed notification is >= 0.5 (it peeks:
    the log's hidden column, found by the observation; duplicates, if any, average their p_open)."""

    def __init__(self, split: str = "test"):
        sums: dict = {}
        for key, p in zip(*log_p_open(split)):
            total, count = sums.get(key, (0.0, 0))
            sums[key] = (total + p, count + 1)
        self.table = {k: int(total / count >= 0.5) for k, (total, count) in sums.items()}
        self.split = split
        self.name = f"bayes-{split}"

    def act_batch(self, observations) -> np.ndarray:
        return np.array(looked_up(self.table, observations, self.split), dtype=np.int64)


def bayes_policy(split: str = "test") -> BayesPolicy:
    """The Bayes-optimal policy on the bundled log ``split`` as an ``observation -> action``."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    return BayesPolicy(split)


def whole_log_accuracy(policy, split: str = "test") -> float:
    """The accuracy of ``policy`` over every row of the log ``split`` (decisions in one batch)."""
    log = load_log(split=split)
    codes, numbers = log_fields(log)
    if isinstance(policy, BayesPolicy):
        actions = np.array([policy.table[k] for k in observation_keys(codes, numbers)])
    else:
        actions = (policy.probability(codes, numbers) > THRESHOLD).astype(np.int64)
    return float((actions == np.asarray(log.labels)).mean())


def main(argv=None) -> int:
    from gym_suite.cli import _checked_int, episodes_int
    from gym_suite.evaluate import evaluate

    seed = _checked_int(lambda n: 0 <= n < 2**32, "must be an integer in 0..2**32 - 1 (scikit-learn's), got {value}")
    args = script_parser(
        __doc__,
        episodes=(1000, None, episodes_int),
        seed=(0, None, seed),
        kinds=(",".join(KINDS), None, listed(choices=KINDS)),
    ).parse_args(argv)

    def run(policy):
        start = time.perf_counter()
        result = evaluate(ENV_ID, policy, episodes=args.episodes, seed=args.seed, env_kwargs=EVAL_KWARGS)
        return result, time.perf_counter() - start

    (heuristic, _), bayes_p = run("heuristic"), bayes_policy("test")
    bayes, _ = run(bayes_p)
    rows = [("random", run("random")[0], None), ("heuristic", heuristic, None)]
    for kind in args.kinds:
        start = time.perf_counter()
        policy = supervised_policy(kind, args.seed)
        fit_seconds = time.perf_counter() - start
        result, seconds = run(policy)
        rows.append((f"{kind} (fit {fit_seconds:.1f} s, played {seconds:.0f} s)", result, policy))
    rows.append(("Bayes-optimal (peeks at p_open)", bayes, bayes_p))
    print(f"push-v0, test log, {args.episodes} episodes of 100 notifications, seeds {args.seed}..")
    print("| policy | return (mean ± std) | accuracy | − heuristic | − Bayes | whole test log |")
    print("|---|---|---|---|---|---|")
    for name, result, policy in rows:
        d_h, d_b = paired_text(result, heuristic, 2), paired_text(result, bayes, 2)
        whole = f"{whole_log_accuracy(policy):.2%}" if policy is not None else ""
        accuracy = (result.mean / 100 + 1) / 2
        print(f"| {name} | {result.mean:.2f} ± {result.std:.2f} | {accuracy:.2%} | {d_h} | {d_b} | {whole} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
