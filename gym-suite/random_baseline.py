"""Random-action baseline of a gym-suite environment over seeded episodes.

    python gym-suite/random_baseline.py example-v0 --episodes 10000 --jobs -1

Episode ``i`` is reset with seed ``seed + i`` and its actions drawn from the action space seeded
the same way, so the figures are reproducible and do not depend on ``--jobs``.
"""

import argparse

import gym_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", default=["example-v0"], help="environment ids (default example-v0)")
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=-1, help="parallel processes (-1: every core)")
    args = parser.parse_args()
    for env_id in args.ids or gym_suite.ENV_IDS:
        result = gym_suite.evaluate(env_id, "random", episodes=args.episodes, seed=args.seed, n_jobs=args.jobs)
        print(f"{env_id}: random return {result.mean:.3f} ± {result.std:.3f} (std), "
              f"mean length {result.mean_length:.2f}, {args.episodes} episodes, seeds {args.seed}..{args.seed + args.episodes - 1}")


if __name__ == "__main__":
    main()
