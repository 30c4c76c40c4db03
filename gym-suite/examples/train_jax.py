"""Train PPO compiled end to end on a gym-suite JAX environment, then score it on the numpy env.

    python gym-suite/examples/train_jax.py heartpole-v1
    python gym-suite/examples/train_jax.py example-v0 --seeds 4 --timesteps 20000 --episodes 200
    python gym-suite/examples/train_jax.py heartpole-v1 --set learning_rate=1e-4 num_envs=16

Needs the ``jax`` extra (``pip install "gym-suite[jax]"``); ``--seeds N`` trains N seeds in one
vmapped run, each scored on seeded episodes of the numpy env next to the random policy.
"""

from __future__ import annotations

import argparse
import sys
import time

import gym_suite
from gym_suite.cli import jobs_int, key_value, non_negative_int, positive_int
from gym_suite.quiet import no_version_notice


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("id", choices=gym_suite.ENV_IDS)
    add("--seeds", type=positive_int, default=1, help="seeds trained in one vmapped run")
    add("--seed", type=non_negative_int, default=0, help="the first seed")
    add("--timesteps", type=positive_int, default=None, help="env steps per seed (default: the recipe's budget)")
    add("--episodes", type=positive_int, default=1000, help="evaluation episodes per policy")
    add("--jobs", type=jobs_int, default=1, help="evaluation processes (-1: every core)")
    add("--set", nargs="*", type=key_value, default=[], metavar="KEY=VALUE",
        help="override a setting of the recipe (rejax PPO keywords, reward_scale, ...)")  # fmt: skip
    args = parser.parse_args(argv)

    from gym_suite.training.jax import ppo_settings, train_ppo
    from gym_suite.training.recipes import recipe_for

    overrides = dict(args.set)
    try:
        ppo_settings(args.id, **overrides)
    except (TypeError, ValueError) as exc:
        parser.error(f"--set: {exc}")
    with no_version_notice():
        start = time.perf_counter()
        result = train_ppo(args.id, seed=args.seed, num_seeds=args.seeds, total_timesteps=args.timesteps, **overrides)
        wall = time.perf_counter() - start
        env_kwargs = recipe_for(args.id).eval_env_kwargs or None
        where = f" (env_kwargs {env_kwargs})" if env_kwargs else ""
        print(
            f"{args.id}: {args.seeds} seed(s) x {result.timesteps:,} steps: {result.compile_seconds:.1f} s compiling "
            f"+ {result.train_seconds:.1f} s training ({wall:.1f} s with setting up)"
        )
        print(f"greedy return on the numpy env, {args.episodes} seeded episodes{where}:")
        random = gym_suite.evaluate(args.id, "random", episodes=args.episodes, env_kwargs=env_kwargs, n_jobs=args.jobs)
        print(f"  random    {random.mean:9.2f} ± {random.std:.2f}")
        for seed, policy in zip(result.seeds, result.policies):
            scored = gym_suite.evaluate(
                args.id, policy, episodes=args.episodes, env_kwargs=env_kwargs, n_jobs=args.jobs
            )
            gain, se = scored.paired_difference(random)
            print(f"  seed {seed:<4d} {scored.mean:9.2f} ± {scored.std:.2f}   (- random: {gain:+.2f} ± {se:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
