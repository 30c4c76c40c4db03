"""Reference figures of target-v0: random actions against the hit probability, and the oracle.

    python gym-suite/analyses/target_reference.py [--episodes 1000] [--seed 0] [--jobs -1]

Prints the mean episode length and return of uniformly random actions over seeded episodes
(``gym_suite.evaluate``: episode ``i`` reset with seed ``seed + i``, its actions drawn from the
action space seeded with ``action_seed(seed + i)``), next to what the hit probability, worked out
by Monte Carlo integration, predicts; then the same for the "move to the observed target"
oracle, the env's heuristic. Its speed is in the suite's bench:
``python gym-suite/benchmarks/bench.py --ids target-v0``.
"""

from __future__ import annotations

import argparse
import math

import gymnasium
import numpy as np

import gym_suite
from gym_suite.cli import jobs_int, non_negative_int, positive_int
from gym_suite.envs.target_env import DISC_RADIUS, FIELD_SIZE

ENV_ID = "target-v0"


def hit_probability(samples: int = 4_000_000, seed: int = 12345):
    """P(a uniform point of the field hits a uniform target), by Monte Carlo: (p, standard error)."""
    rng = np.random.default_rng(seed)
    size, radius = float(FIELD_SIZE), float(DISC_RADIUS)
    target = rng.uniform(radius, size - radius, size=(samples, 2))
    point = rng.uniform(0.0, size, size=(samples, 2))
    hits = np.hypot(*(point - target).T) <= 2 * radius
    p = hits.mean()
    return p, math.sqrt(p * (1 - p) / samples)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=positive_int, default=1000)
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument("--jobs", type=jobs_int, default=-1, help="parallel processes (-1: every core)")
    args = parser.parse_args(argv)

    print(f"gymnasium {gymnasium.__version__}, numpy {np.__version__}, gym_suite {gym_suite.__version__}")
    print(f"\n== {ENV_ID}: policies over {args.episodes} seeded episodes (seed {args.seed}) ==")
    random = gym_suite.evaluate(ENV_ID, "random", episodes=args.episodes, seed=args.seed, n_jobs=args.jobs)
    se = random.lengths.std() / math.sqrt(len(random.lengths))
    print(
        f"random actions:          mean length {random.mean_length:6.3f} ± {se:.3f}  "
        f"mean return {random.mean:7.3f}  (max length {random.lengths.max()})"
    )
    p, p_se = hit_probability()
    print(
        f"  expected (Monte Carlo): hit probability per step {p:.4f} ± {p_se:.4f} -> "
        f"mean length 1/p = {1 / p:.3f}, mean return 2 - 1/p = {2 - 1 / p:.3f}"
    )
    oracle = gym_suite.evaluate(ENV_ID, "heuristic", episodes=args.episodes, seed=args.seed, n_jobs=args.jobs)
    print(f"oracle (heuristic):      mean length {oracle.mean_length:6.3f}  mean return {oracle.mean:7.3f}")


if __name__ == "__main__":
    main()
