"""push-v1 learned from its rewards: a model of the reward, fit on explored days, planned with the optimum's program.

    python gym-suite/analyses/push_v1_reward_model.py [--seed 0] [--seeds 5] [--steps 100000] [--episodes 1000]

push-v1's heuristic (0.964 normalized on the held-out test log) is level with what PPO learns in
300k steps, yet a policy of the observation can reach the oracle's score (``push_v1_headroom.py``):
the room is in the form of the open probability. ``gym_suite.training.reward_model`` finds it
from the environment alone, as an agent would: it explores ``--steps`` steps of the training log
(each day's deliveries spread uniformly), fits gradient-boosted trees to the log-odds of the
rewards of what it delivered (a delivery's reward is its expected open), and plans with the
optimum's program on its predictions (the module's description has the details).

Each training seed's policy is played on the baselines' evaluation days (the test log, episodes
seeded 0 .. ``--episodes - 1``, as the table) and paired with the heuristic on the same days.
Nothing is tuned on the test log: the model's settings are scikit-learn's defaults but the
iterations (500) and the learning rate (0.05), fixed in one first trial and not varied since, and
the exploration is the uniform one.
Prints each seed's return and normalized score, its paired difference with the heuristic, and the
mean over seeds with its standard error (the seeds' spread). Needs the ``baselines`` extra
(scikit-learn).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import gym_suite
from gym_suite.cli import non_negative_int, positive_int
from gym_suite.references import push_v1_optimum
from gym_suite.training.reward_model import train_reward_model

ENV_ID = "push-v1"
EVAL_KWARGS = push_v1_optimum.EVAL_KWARGS  # the table's: the held-out test log


def learn(steps: int, seed: int):
    """The package's learner (``gym_suite.training.reward_model.train_reward_model``)."""
    return train_reward_model(ENV_ID, steps, seed=seed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first training seed (default 0)")
    parser.add_argument("--seeds", type=positive_int, default=5, help="training seeds: --seed, --seed + 1, ... (5)")
    parser.add_argument("--steps", type=positive_int, default=100_000, help="exploration steps a seed (100,000)")
    parser.add_argument("--episodes", type=positive_int, default=1000, help="evaluation days, seeds 0 .. N-1 (1000)")
    args = parser.parse_args(argv)
    table = push_v1_optimum.exact_table("test", 2)
    random, oracle = table["random"], table["optimum"]
    heuristic = gym_suite.evaluate(ENV_ID, "heuristic", episodes=args.episodes, seed=0, env_kwargs=EVAL_KWARGS)
    print(
        f"{ENV_ID}: reward model learned from {args.steps:,} explored steps a seed (training log), planned with the "
        f"optimum's thresholds; {args.episodes:,} evaluation days of the test log (seeds 0-{args.episodes - 1})"
    )
    print(f"heuristic {heuristic.mean:.4f} (normalized {(heuristic.mean - random) / (oracle - random):.3f})")
    print("| seed | return | normalized | minus heuristic (paired) | learn (s) |")
    print("|---:|---:|---:|---:|---:|")
    means, differences = [], []
    for seed in range(args.seed, args.seed + args.seeds):
        start = time.perf_counter()
        policy = learn(args.steps, seed)
        seconds = time.perf_counter() - start
        result = gym_suite.evaluate(ENV_ID, policy, episodes=args.episodes, seed=0, env_kwargs=EVAL_KWARGS)
        difference, error = result.paired_difference(heuristic)
        means.append(result.mean)
        differences.append(difference)
        print(
            f"| {seed} | {result.mean:.4f} | {(result.mean - random) / (oracle - random):.3f} | "
            f"{difference:+.4f} ± {error:.4f} | {seconds:.1f} |",
            flush=True,
        )
    if len(means) > 1:
        m, d = np.asarray(means), np.asarray(differences)
        se = d.std(ddof=1) / np.sqrt(len(d))
        print(
            f"mean over {len(m)} seeds: {m.mean():.4f} (normalized {(m.mean() - random) / (oracle - random):.3f}); "
            f"minus heuristic {d.mean():+.4f}, standard error over the seeds {se:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
