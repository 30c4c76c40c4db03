"""JAX PPO on target-v1 with the target's speed drawn per training episode, scored per speed.

    python gym-suite/analyses/target_v1_drawn_speeds.py [--seeds 1] [--steps 2000000] [--episodes 300]

Trains :func:`train_ppo`'s target-v1 recipe twice with the same training seeds (``--seed``,
``--seed + 1``, ...; one vmapped run each): with ``draw_params`` drawing every training episode's
``target_speed`` uniform in ``[--low, --high]`` (default 0.5 to 2), and on the env's own speed 1.5.
Then plays every policy greedily at each of ``--speeds`` on the numpy env made at that speed
(``env_kwargs={"target_speed": v}``), on ``--episodes`` tuning episodes seeded from 100,000 (none of
the baselines table's 0 .. 999), next to the random policy, the heuristic (pure pursuit) and the
optimum (the earliest intercept, :mod:`gym_suite.references.target_optimum`) on the same episodes.
Prints a table (mean return ± standard error, per speed) and, with ``--json``, writes the numbers.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import gym_suite
from gym_suite.training.jax import train_ppo

ENV_ID = "target-v1"
TUNING_SEED = 100_000


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1, help="training seeds (one vmapped run per training)")
    parser.add_argument("--seed", type=int, default=0, help="the first training seed")
    parser.add_argument("--steps", type=int, default=None, help="env steps per seed (default: the recipe's 2M)")
    parser.add_argument("--low", type=float, default=0.5, help="the drawn speeds' lower bound")
    parser.add_argument("--high", type=float, default=2.0, help="the drawn speeds' upper bound")
    parser.add_argument("--speeds", type=float, nargs="+", default=[0.5, 1.0, 1.5, 2.0], help="speeds scored")
    parser.add_argument("--episodes", type=int, default=300, help="tuning episodes a speed")
    parser.add_argument("--json", type=Path, default=None, help="write the numbers there")
    args = parser.parse_args(argv)

    import jax

    from gym_suite.references.target_optimum import OptimalPolicy

    low, high = args.low, args.high

    def draw(key, params):
        return params.replace(target_speed=jax.random.uniform(key, minval=low, maxval=high))

    common = {"seed": args.seed, "num_seeds": args.seeds, "total_timesteps": args.steps, "eval_episodes": 0}
    drawn = train_ppo(ENV_ID, draw_params=draw, **common)
    fixed = train_ppo(ENV_ID, **common)
    rows: dict[str, dict[str, list[float]]] = {}
    policies: dict[str, list] = {
        f"drawn [{low:g}, {high:g}]": drawn.policies,
        "fixed 1.5": fixed.policies,
        "heuristic": ["heuristic"],
        "random": ["random"],
        "optimum": [OptimalPolicy()],
    }
    for speed in args.speeds:
        for name, group in policies.items():
            scored = [
                gym_suite.evaluate(
                    ENV_ID, p, episodes=args.episodes, seed=TUNING_SEED, env_kwargs={"target_speed": speed}
                ).returns
                for p in group
            ]
            returns = np.asarray(scored, dtype=float)  # policies x episodes
            per_policy = returns.mean(axis=1)
            se = float(returns.std(ddof=1) / np.sqrt(returns.size))
            rows.setdefault(name, {})[f"{speed:g}"] = [float(per_policy.mean()), se, *map(float, per_policy)]
    speeds = [f"{s:g}" for s in args.speeds]
    print(
        f"{ENV_ID}: mean return ± standard error on {args.episodes} tuning episodes a speed (seeded from "
        f"{TUNING_SEED:,}); PPO training seeds {drawn.seeds}, {drawn.timesteps:,} steps; drawn: "
        f"{drawn.compile_seconds:.1f} s compiling, {drawn.train_seconds:.1f} s training; fixed: "
        f"{fixed.compile_seconds:.1f} s, {fixed.train_seconds:.1f} s"
    )
    print("| policy | " + " | ".join(f"speed {s}" for s in speeds) + " |")
    print("|---|" + "---:|" * len(speeds))
    for name, by_speed in rows.items():
        print(f"| {name} | " + " | ".join(f"{by_speed[s][0]:.1f} ± {by_speed[s][1]:.1f}" for s in speeds) + " |")
    if args.json:
        out = {
            "env_id": ENV_ID,
            "seeds": drawn.seeds,
            "steps": drawn.timesteps,
            "episodes": args.episodes,
            "episode_seed": TUNING_SEED,
            "drawn": [low, high],
            "seconds": {
                "drawn": [drawn.compile_seconds, drawn.train_seconds],
                "fixed": [fixed.compile_seconds, fixed.train_seconds],
            },
            "returns": rows,  # name -> speed -> [mean, standard error, per training seed...]
        }
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
