"""PPO in JAX (rejax, compiled end to end) against Stable-Baselines3 PPO, same id, same budget, one run.

::

    python gym-suite/benchmarks/train_jax_vs_sb3.py                          # heartpole-v1, the recipe's budget
    python gym-suite/benchmarks/train_jax_vs_sb3.py example-v0 --timesteps 20000 --jax-seeds 8
    python gym-suite/benchmarks/train_jax_vs_sb3.py heartpole-v1 --skip-sb3  # the JAX side alone

Trains, for one id and one budget of environment steps (default: the id's SB3 PPO budget in
``gym_suite.training.recipes``):

- Stable-Baselines3 PPO with the id's recipe on its native vector env (``train_sb3``: one torch
  thread, ``SuiteVecEnv``), seed ``--seed``;
- JAX PPO (``gym_suite.training.jax.train_ppo``, the call a user makes) with the same seed, and
  with ``--jax-seeds`` seeds in one vmapped run when that is more than 1;

then plays each greedy policy on ``--episodes`` seeded episodes of the numpy env
(``gym_suite.evaluate``; push-v0 on its held-out test log) and prints a table: wall time of
training (JAX: compile and run apart), the greedy return, and the ratio of SB3's wall time to
JAX's (compile included). The machine is shared and small: read the times as one measurement.
With small budgets the compile time dominates and JAX does not win; the table shows it.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

import gym_suite
from gym_suite._quiet import import_gym_quietly, no_version_notice
from gym_suite.cli import non_negative_int, positive_int

COMMAND = "python gym-suite/benchmarks/train_jax_vs_sb3.py"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("id", nargs="?", default="heartpole-v1", choices=gym_suite.ENV_IDS)
    parser.add_argument(
        "--timesteps", type=positive_int, default=None, help="env steps per run (default: the id's SB3 PPO budget)"
    )
    parser.add_argument("--seed", type=non_negative_int, default=0)
    parser.add_argument(
        "--jax-seeds", type=positive_int, default=1, help="also train this many JAX seeds in one vmapped run (1: not)"
    )
    parser.add_argument("--episodes", type=positive_int, default=1000, help="evaluation episodes per policy")
    parser.add_argument("--skip-sb3", action="store_true", help="train the JAX side only")
    args = parser.parse_args(argv)

    from gym_suite.training.jax import train_ppo
    from gym_suite.training.recipes import recipe_budget, recipe_for

    budget = args.timesteps or recipe_budget(args.id, "sb3-ppo")
    env_kwargs = recipe_for(args.id).eval_env_kwargs or None
    rows = []

    def score(policy) -> tuple[float, float]:
        result = gym_suite.evaluate(args.id, policy, episodes=args.episodes, env_kwargs=env_kwargs)
        return result.mean, result.std

    with no_version_notice():
        result = train_ppo(args.id, seed=args.seed, total_timesteps=budget)
        mean, std = score(result.policy)
        rows.append(("JAX PPO (rejax)", 1, result.timesteps, result.compile_seconds, result.train_seconds, mean, std))
        if args.jax_seeds > 1:
            many = train_ppo(args.id, seed=args.seed, num_seeds=args.jax_seeds, total_timesteps=budget)
            scores = [score(p)[0] for p in many.policies]
            rows.append(
                (
                    f"JAX PPO, {args.jax_seeds} seeds vmapped",
                    args.jax_seeds,
                    many.timesteps,
                    many.compile_seconds,
                    many.train_seconds,
                    min(scores),
                    max(scores),
                )
            )
        if not args.skip_sb3:
            import_gym_quietly()
            from gym_suite._progress import sb3_callback
            from gym_suite.training.sb3 import SB3Policy, train_sb3

            start = time.perf_counter()
            model = train_sb3(args.id, "ppo", steps=budget, seed=args.seed, callback=sb3_callback(f"SB3 PPO {args.id}"))
            seconds = time.perf_counter() - start
            mean, std = score(SB3Policy(model, name="sb3-ppo"))
            rows.append(("SB3 PPO (SuiteVecEnv)", 1, int(model.num_timesteps), 0.0, seconds, mean, std))

    where = f", scored with env_kwargs {env_kwargs}" if env_kwargs else ""
    print(
        f"\n{args.id}: budget {budget:,} env steps, seed {args.seed}; greedy return on {args.episodes} seeded "
        f"episodes of the numpy env{where}"
    )
    print(
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; command: "
        f"{COMMAND} {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip()
    )
    print()
    print("| agent | seeds | steps | compile (s) | train (s) | wall (s) | return | SB3 wall / this wall |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    sb3_wall = next((r[3] + r[4] for r in rows if r[0].startswith("SB3")), None)
    for name, seeds, steps, compile_s, train_s, a, b in rows:
        wall = compile_s + train_s
        returned = f"{a:.2f} ± {b:.2f}" if seeds == 1 else f"{a:.2f} to {b:.2f}"
        ratio = f"{sb3_wall / wall:.1f}x" if sb3_wall and not name.startswith("SB3") else ""
        print(f"| {name} | {seeds} | {steps:,} | {compile_s:.1f} | {train_s:.1f} | {wall:.1f} | {returned} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
