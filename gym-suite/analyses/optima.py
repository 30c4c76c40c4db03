"""The optimal expected returns of ``example-v0`` and ``target-v0``, derived, and checked by play.

    python gym-suite/analyses/optima.py [--episodes 1000] [--seed 0]

``example-v0``: from distance ``d`` the best is ``d`` steps straight to the goal, ``11 - d``; the
eight starts are equally likely at mean distance 2.5, so the optimum is 8.5 (:func:`optimum`:
backward induction with the env's own rules, for any ``lf_min`` / ``rt_max``). ``target-v0``: only
a hit on the first step pays +1, which moving to the observed target always is. The other ids have
no exact optimum here (:func:`optimum` raises ``ValueError``).
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs.example_env import DEFAULTS, EXAMPLE, MOVE_LEFT, MOVE_RIGHT, start_position, walk_rules
from gym_suite.envs.target_env import REWARD_HIT

EXACT_IDS = ("example-v0", "target-v0")


class _Ops:  # the scalar ops walk_rules needs
    minimum, maximum, abs = staticmethod(min), staticmethod(max), staticmethod(abs)


def example_optimum(lf_min: int = 1, rt_max: int = 10, steps: int | None = None) -> float:
    """The optimal expected return of example-v0 with these arguments, by backward induction."""
    import gymnasium

    params = EXAMPLE.make_params(DEFAULTS, "example-v0", lf_min=lf_min, rt_max=rt_max)
    if steps is None:
        steps = gymnasium.spec("example-v0").max_episode_steps
    positions = range(params.lf_min, params.rt_max + 1)
    value = dict.fromkeys(positions, 0.0)  # after the last step
    for _ in range(steps):
        new = {}
        for p in positions:
            if p == params.goal:
                new[p] = 0.0  # terminal
                continue
            best = -math.inf
            for action in (MOVE_LEFT, MOVE_RIGHT):
                q, reward, at_goal = walk_rules(p, action, params.goal, params.lf_min, params.rt_max, _Ops)
                best = max(best, reward + (0.0 if at_goal else value[q]))
            new[p] = best
        value = new
    starts = [start_position(d, params.lf_min, params.goal) for d in range(params.n_starts)]
    return float(np.mean([value[s] for s in starts]))


def optimum(env_id: str) -> float:
    """The optimal expected return of ``env_id`` (``example-v0`` or ``target-v0``, default arguments)."""
    if env_id == "example-v0":
        return example_optimum()
    if env_id == "target-v0":
        return float(REWARD_HIT)
    raise ValueError(
        f"optimum: no exact optimum for {env_id!r}; known for {list(EXACT_IDS)} "
        "(heartpole: heartpole_optimum.optimal_policy; push-v0: push_supervised.bayes_policy)"
    )


def main(argv=None) -> int:
    from gym_suite.evaluate import evaluate

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for env_id in EXACT_IDS:
        result = evaluate(env_id, "heuristic", episodes=args.episodes, seed=args.seed)
        se = result.returns.std(ddof=1) / math.sqrt(len(result.returns))
        print(
            f"{env_id}: optimum {optimum(env_id):.4f}; heuristic {result.mean:.4f} ± {se:.4f} (s.e.) "
            f"over {args.episodes} episodes, seeds {args.seed}..; min {result.returns.min():g}, "
            f"max {result.returns.max():g}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
