"""push-v1's heuristic: a budget-aware hand rule, and the choice of its bar on the training log.

    python -m gym_suite.references.push_v1_rule [--bars 2,2.5,...,6.5] [--drops 6,7,...,15] [--episodes 300]

The heuristic (:func:`gym_suite.envs.push_v1_env.budget_rule`) gives the observed notification
points by hand and delivers it when they reach ``bar - drop * budget_left / notifications_left``,
a bar that falls as the day runs out. ``bar`` and ``drop`` are chosen here on the **training log
only**: every setting of the grid is scored by its exact expected opens over every user-day
(budget 2; the rule is deterministic and a delivery earns its ``p_open``, so all days play at
once on numpy, :func:`day_opens`), and the best is the heuristic's (``RULE_BAR``, ``RULE_DROP``;
on a tie, the first in the grid's order). The script prints the grid, the choice, then the chosen
rule on the held-out test log, and last checks in the environment that each training-log
episode's return is its day's exact value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from gym_suite.envs.definition import NUMPY
from gym_suite.envs.push_v1_env import (
    DEFAULT_DAILY_BUDGET,
    DEFAULTS,
    PUSH_V1,
    RULE_BAR,
    RULE_DROP,
    PushV1Params,
    budget_rule,
)
from gym_suite.references import listed, script_parser

ENV_ID = "push-v1"
OWNER = "push_v1_rule"
#: The grid the heuristic's bar was chosen from: 10 bars by 10 drops (bars multiples of 1/2,
#: drops whole numbers, so that every backend takes the same decisions).
GRID_BARS = tuple(2.0 + 0.5 * k for k in range(10))  # 2.0 .. 6.5
GRID_DROPS = tuple(float(d) for d in range(6, 16))  # 6 .. 15


def log_params(split: str = "train", budget: int = DEFAULT_DAILY_BUDGET) -> PushV1Params:
    """push-v1's parameters for the bundled log ``split`` with ``daily_budget=budget``."""
    return PUSH_V1.make_params(DEFAULTS, OWNER, split=split, daily_budget=budget)


def check_setting(bar: float, drop: float) -> tuple[float, float]:
    """``(bar, drop)`` as floats, or ``ValueError``: the bar a finite multiple of 1/2, the drop a
    whole number of 0 or more (what makes the rule's decisions the same on every backend)."""
    for name, value, step in (("bar", bar, 0.5), ("drop", drop, 1.0)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{OWNER}: {name} must be a number, got {value!r}")
        if not math.isfinite(value) or float(value) / step != round(float(value) / step):
            raise ValueError(f"{OWNER}: {name} must be a finite multiple of {step:g}, got {value!r}")
    if drop < 0:
        raise ValueError(f"{OWNER}: drop must be 0 or more (the bar falls as the day runs out), got {drop!r}")
    return float(bar), float(drop)


def day_opens(
    params: PushV1Params, bar: float = RULE_BAR, drop: float = RULE_DROP, days: Sequence[int] | None = None
) -> np.ndarray:
    """The exact expected opens of :func:`budget_rule` with ``bar`` and ``drop`` on each user-day
    of ``params`` (``days``: their indices, all by default), in order: every day played at once by
    push-v1's rules on numpy, each delivery earning its ``p_open``."""
    bar, drop = check_setting(bar, drop)
    count = len(params.day_starts)
    days = np.arange(count) if days is None else np.asarray(days, dtype=np.int64)
    if days.ndim != 1 or len(days) == 0 or days.min() < 0 or days.max() >= count:
        raise ValueError(f"{OWNER}: days must be indices of user-days, 0..{count - 1}, got {days!r}")
    state = PUSH_V1.initial(((days + 0.5) / count,), params, NUMPY)  # the day each uniform draws
    opens = np.zeros(len(days))
    no_open = np.ones(len(days))  # the open's uniform: never below p_open (the return does not use it)
    for _ in range(int(params.day_lengths[days].max())):
        alive = ~np.asarray(PUSH_V1.terminal(state, params, NUMPY))
        if not alive.any():
            break
        observation = PUSH_V1.observation(state, params, NUMPY)
        action = np.where(alive, budget_rule(observation, params, NUMPY, bar, drop), 0)
        following = PUSH_V1.transition(state, action, (no_open,), params, NUMPY)
        opens += np.where(alive, following.last_action * params.p_open[following.scored_row], 0.0)
        state = following
    return opens


def grid_values(
    params: PushV1Params,
    bars: Sequence[float] = GRID_BARS,
    drops: Sequence[float] = GRID_DROPS,
    days: Sequence[int] | None = None,
) -> np.ndarray:
    """``(len(bars), len(drops))``: the mean expected opens per user-day of each setting."""
    if len(bars) == 0 or len(drops) == 0:
        raise ValueError(f"{OWNER}: the grid needs at least one bar and one drop")
    return np.array([[day_opens(params, bar, drop, days).mean() for drop in drops] for bar in bars])


def choose(
    params: PushV1Params,
    bars: Sequence[float] = GRID_BARS,
    drops: Sequence[float] = GRID_DROPS,
    days: Sequence[int] | None = None,
) -> tuple[float, float, float]:
    """``(bar, drop, value)``: the setting of the grid with the most expected opens per user-day
    (the first in the grid's order on a tie)."""
    return best_setting(grid_values(params, bars, drops, days), bars, drops)


def best_setting(values: np.ndarray, bars: Sequence[float], drops: Sequence[float]) -> tuple[float, float, float]:
    """``(bar, drop, value)`` of the largest of :func:`grid_values`' ``values`` (the first on a tie)."""
    i, j = np.unravel_index(int(np.argmax(values)), values.shape)
    return float(bars[i]), float(drops[j]), float(values[i, j])


def day_of_row(params: PushV1Params) -> dict[int, int]:
    """The user-day each day's first row starts (``{row: day}``)."""
    return {int(params.order[s]): d for d, s in enumerate(params.day_starts)}


def env_check(episodes: int, seed: int = 0, split: str = "train") -> float:
    """The largest difference, over ``episodes`` episodes of ``env.heuristic`` (seeds ``seed``,
    ``seed + 1``, ...), between an episode's return and its day's exact value (:func:`day_opens`)."""
    from gym_suite.evaluate import play
    from gym_suite.quiet import make

    env = make(ENV_ID, split=split)
    params = env.unwrapped.params
    exact, starts = day_opens(params), day_of_row(params)
    worst = 0.0
    for episode in range(episodes):
        obs, _ = env.reset(seed=seed + episode)
        day = starts[int(env.unwrapped.current_row)]
        worst = max(worst, abs(sum(step.reward for step in play(env, "heuristic", observation=obs)) - exact[day]))
    env.close()
    return worst


def _bar(text: str) -> float:
    from gym_suite.cli import _real

    return check_setting(_real(text), 0.0)[0]


def _drop(text: str) -> float:
    from gym_suite.cli import _real

    return check_setting(0.0, _real(text))[1]


def main(argv: list[str] | None = None) -> int:
    from gym_suite.cli import non_negative_int

    args = script_parser(
        __doc__,
        bars=(list(GRID_BARS), "the grid's bars (multiples of 0.5)", listed(_bar)),
        drops=(list(GRID_DROPS), "the grid's drops (whole numbers)", listed(_drop)),
        episodes=(300, "episodes of the check in the environment (0: no check)", non_negative_int),
    ).parse_args(argv)
    train = log_params("train")
    values = grid_values(train, args.bars, args.drops)
    bar, drop, best = best_setting(values, args.bars, args.drops)
    print(
        f"training log: expected opens per user-day (budget {DEFAULT_DAILY_BUDGET}, all {len(train.day_starts)} days)"
    )
    print("bar \\ drop " + "".join(f"{d:7g}" for d in args.drops))
    for b, row in zip(args.bars, values):
        print(f"{b:10g} " + "".join(f"{v:7.3f}" for v in row))
    print(f"\nchosen: bar {bar:g}, drop {drop:g}: {best:.4f} on the training log")
    if (bar, drop) == (RULE_BAR, RULE_DROP):
        print("  (the heuristic's RULE_BAR and RULE_DROP)")
    else:
        print(f"  note: the heuristic uses bar {RULE_BAR:g}, drop {RULE_DROP:g}")

    test = day_opens(log_params("test"), bar, drop)
    print(
        f"the chosen rule on the held-out test log: {test.mean():.4f} (normalized, beside random and the "
        "optimum: python -m gym_suite.references.push_v1_optimum)"
    )
    if args.episodes:
        worst = env_check(args.episodes)
        print(
            f"in the environment, {args.episodes} training-log episodes of env.heuristic (seeds 0-{args.episodes - 1}):"
            f" largest |return - the day's exact value| {worst:.2e}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
