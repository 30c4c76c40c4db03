"""The optimum of ``push-v1``: the online dynamic program over (budget left, notifications left).

    python -m gym_suite.references.push_v1_optimum [--budgets 1,2,3,5] [--episodes 1000]

push-v1 plays one user-day of notifications; the agent may deliver ``daily_budget`` of them, and
a delivered one earns its open probability ``p_open`` (a hidden column of the log). The
**online optimum** knows the ``p_open`` of the notification at hand, how many are to come and
their distribution (the log's ``p_open`` values, as independent draws). With ``V(b, n)`` the
expected opens of ``b`` deliveries among ``n`` notifications still to decide,

    V(0, n) = V(b, 0) = 0,    V(b, n) = E_p[ max(p + V(b - 1, n - 1), V(b, n - 1)) ],

it delivers when ``p >= T(b, n) = V(b, n - 1) - V(b - 1, n - 1)`` (:func:`thresholds`). The
*hindsight* bound is the day's ``b`` largest ``p_open``, which no policy deciding in order gets.

The script prints, per budget and log, the exact expected opens per user-day of random delivery,
the heuristic (``push_v1_rule.py``), the optimum and the hindsight bound, and the heuristic's
normalized score; then it plays the policies in the environment on the test log, as the
baselines table does. ``supervised_policy`` reads the features alone: a logistic regression of
the open on the training log (``push_supervised.py``'s features) with the optimum's thresholds.
"""

from __future__ import annotations

import functools

import numpy as np

from gym_suite.envs.push_log import load_log
from gym_suite.envs.push_v1_env import DEFAULT_DAILY_BUDGET, MAX_DAILY_BUDGET, user_days
from gym_suite.references import BatchPolicy, listed, paired_text, push_supervised, push_v1_rule, script_parser

ENV_ID = "push-v1"
EVAL_KWARGS = {"split": "test"}  # push-v1's recipe: scored on the held-out test log


def thresholds(p_values: np.ndarray, budget: int, max_left: int) -> tuple[np.ndarray, np.ndarray]:
    """``(V, T)``, arrays ``(budget + 1, max_left + 1)``: ``V[b, n]`` the expected opens of the online
    optimum with ``b`` deliveries left among ``n`` notifications (each ``p`` an independent draw of
    ``p_values``), ``T[b, n]`` the threshold at which it delivers the one at hand (``T[0, n]``: 2,
    never)."""
    p = np.sort(np.asarray(p_values, dtype=np.float64))
    value = np.zeros((budget + 1, max_left + 1))
    threshold = np.full((budget + 1, max_left + 1), 2.0)
    for n in range(1, max_left + 1):
        for b in range(1, budget + 1):
            threshold[b, n] = value[b, n - 1] - value[b - 1, n - 1]
            value[b, n] = np.maximum(p + value[b - 1, n - 1], value[b, n - 1]).mean()
    return value, threshold


def _log_days(split: str) -> tuple[object, list[np.ndarray]]:
    log = load_log(split=split)
    order, starts, lengths = user_days(log)
    return log, [order[s : s + n] for s, n in zip(starts, lengths)]


def day_values(p: np.ndarray, budget: int, threshold: np.ndarray) -> dict[str, float]:
    """The expected opens of one day (``p`` in order) for random delivery, the online optimum and
    the hindsight bound."""
    alive = np.zeros(budget + 1)  # probability of each budget left, random policy
    alive[budget] = 1.0
    random = 0.0
    for q in p:
        random += 0.5 * q * alive[1:].sum()
        spent = 0.5 * alive[1:]
        alive[1:] -= spent
        alive[:-1] += spent
    optimum, b, n = 0.0, budget, len(p)
    for k, q in enumerate(p):
        if b == 0:
            break
        if q >= threshold[b, n - k]:
            optimum += q
            b -= 1
    hindsight = float(np.sort(p)[::-1][:budget].sum())
    return {"random": random, "optimum": optimum, "hindsight": hindsight}


def exact_table(split: str, budget: int) -> dict[str, float]:
    """Mean expected opens per user-day of ``split`` (every day weighs the same)."""
    log, days = _log_days(split)
    p = np.asarray(log.p_open)
    _, threshold = thresholds(p, budget, max(len(d) for d in days))
    values = [day_values(p[d], budget, threshold) for d in days]
    table = {k: float(np.mean([v[k] for v in values])) for k in values[0]}
    heuristic = push_v1_rule.day_opens(push_v1_rule.log_params(split, budget)).mean()  # every day, exactly
    return {"random": table["random"], "heuristic": float(heuristic)} | {k: table[k] for k in ("optimum", "hindsight")}


class OptimalPolicy(BatchPolicy):
    """The online optimum as ``observation -> action``: the ``p_open`` of the observed notification
    is looked up in the log by its features (every observation of a bundled log is distinct; it
    peeks at the hidden column, as no agent can), the threshold by the budget and notifications
    left in the observation."""

    def __init__(self, split: str = "test", budget: int = DEFAULT_DAILY_BUDGET):
        keys, p_open = push_supervised.log_p_open(split)
        self.table = dict(zip(keys, p_open))
        _, days = _log_days(split)
        _, self.threshold = thresholds(np.asarray(p_open), budget, max(len(d) for d in days))
        self.split, self.budget, self.name = split, budget, f"push-v1-optimum-{split}"

    def probabilities(self, observations) -> np.ndarray:
        return np.array(push_supervised.looked_up(self.table, observations, self.split))

    def act_batch(self, observations) -> np.ndarray:
        observations = list(observations)
        return threshold_actions(self.probabilities(observations), observations, self.threshold)


def threshold_actions(p: np.ndarray, observations: list, threshold: np.ndarray) -> np.ndarray:
    """Deliver (1) where ``p`` reaches ``threshold[budget_left, notifications_left]`` of each
    observation (both capped to the table), else hold (0)."""
    budget = np.array([int(round(float(np.asarray(o["budget_left"]).reshape(-1)[0]))) for o in observations])
    left = np.array([int(round(float(np.asarray(o["notifications_left"]).reshape(-1)[0]))) for o in observations])
    budget = np.minimum(budget, threshold.shape[0] - 1)
    left = np.minimum(left, threshold.shape[1] - 1)
    return (p >= threshold[budget, left]).astype(np.int64)


class SupervisedPolicy(BatchPolicy):
    """Logistic regression's P(open) from the features (fit on the training log), with the online
    optimum's thresholds computed on the distribution of its predictions over the training log."""

    def __init__(self, budget: int = DEFAULT_DAILY_BUDGET):
        self.model = push_supervised.supervised_policy("logistic")
        log = load_log(split="train")
        predicted = self.model.probability(*push_supervised.log_fields(log))
        _, days = _log_days("train")
        _, self.threshold = thresholds(predicted, budget, 2 * max(len(d) for d in days))
        self.budget, self.name = budget, "push-v1-supervised"

    def act_batch(self, observations) -> np.ndarray:
        observations = list(observations)
        p = self.model.probability(*push_supervised.observation_fields(observations))
        return threshold_actions(p, observations, self.threshold)


@functools.cache
def optimal_policy(split: str = "test", budget: int = DEFAULT_DAILY_BUDGET) -> OptimalPolicy:
    """The online optimum on the bundled log ``split`` (built once per process)."""
    return OptimalPolicy(split, budget)


@functools.cache
def supervised_policy(budget: int = DEFAULT_DAILY_BUDGET) -> SupervisedPolicy:
    """Logistic regression with the optimum's thresholds (fit once per process)."""
    return SupervisedPolicy(budget)


def main(argv: list[str] | None = None) -> int:
    from gym_suite.cli import _checked_int, episodes_int
    from gym_suite.evaluate import evaluate

    daily_budget = _checked_int(
        lambda n: 1 <= n <= MAX_DAILY_BUDGET, f"a budget must be 1..{MAX_DAILY_BUDGET}, got {{value}}"
    )
    args = script_parser(
        __doc__, budgets=("1,2,3,5", None, listed(daily_budget)), episodes=(1000, None, episodes_int)
    ).parse_args(argv)
    print("expected opens per user-day, every user-day of the log once")
    print("log    budget  random  heuristic  optimum  hindsight  heuristic normalized")
    for split in ("train", "test"):
        for budget in args.budgets:
            t = exact_table(split, budget)
            normalized = (t["heuristic"] - t["random"]) / (t["optimum"] - t["random"])
            print(
                f"{split:5}  {budget:6d}  {t['random']:6.3f}  {t['heuristic']:9.3f}  {t['optimum']:7.3f}  "
                f"{t['hindsight']:9.3f}  {normalized:.3f}"
            )
    print(f"\npush-v1 (budget {DEFAULT_DAILY_BUDGET}) in the environment, test log, {args.episodes} episodes, seed 0:")
    run = functools.partial(evaluate, ENV_ID, episodes=args.episodes, seed=0, env_kwargs=EVAL_KWARGS)
    heuristic = run("heuristic")
    for name, policy in (
        ("random", "random"),
        ("heuristic", "heuristic"),
        ("supervised", supervised_policy()),
        ("optimum", optimal_policy("test")),
    ):
        result = run(policy)
        print(f"  {name:10} {result.mean:.4f} ± {result.std:.4f}   vs heuristic {paired_text(result, heuristic)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
