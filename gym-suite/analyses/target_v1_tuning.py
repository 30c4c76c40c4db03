"""JAX PPO settings for target-v1, scored on tuning episodes only (seeds 100,000 and up).

    python gym-suite/analyses/target_v1_tuning.py --config recipe --seeds 3 [--steps 2000000]

Trains ``--seeds`` training seeds (``--seed``, ``--seed + 1``, ...) of :func:`train_ppo` with the
named settings over the id's recipe (one vmapped run) and prints each seed's greedy mean return on
``--episodes`` tuning episodes seeded from 100,000 (none of the baselines table's 0 .. 999); with
``--heuristic`` also the env's heuristic on the same episodes.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

import gym_suite
from gym_suite.training.jax import train_ppo

ENV_ID = "target-v1"
TUNING_SEED = 100_000
# overrides of the recipe (gym_suite.training.jax.PPO_RECIPES): the previous one (8 copies, 16
# minibatches, no entropy bonus) and the variations tried from it; "recipe" is the chosen one
PREVIOUS: dict = {"num_envs": 8, "num_minibatches": 16, "ent_coef": 0.0}
CONFIGS: dict[str, dict] = {
    "previous": PREVIOUS,
    "gamma999": {**PREVIOUS, "gamma": 0.999},
    "envs32": {"num_envs": 32, "num_minibatches": 32, "ent_coef": 0.0},
    "envs64": {"num_envs": 64, "num_minibatches": 32, "ent_coef": 0.0},
    "recipe": {},
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), default="recipe")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--heuristic", action="store_true", help="also score the heuristic")
    args = parser.parse_args(argv)
    result = train_ppo(
        ENV_ID,
        seed=args.seed,
        num_seeds=args.seeds,
        total_timesteps=args.steps,
        eval_episodes=0,
        **CONFIGS[args.config],
    )
    returns = [
        float(np.mean(gym_suite.evaluate(ENV_ID, p, episodes=args.episodes, seed=TUNING_SEED).returns))
        for p in result.policies
    ]
    row = {
        "config": args.config,
        "seeds": result.seeds,
        "steps": result.timesteps,
        "returns": returns,
        "mean": float(np.mean(returns)),
        "train_seconds": round(result.seconds, 1),
    }
    if args.heuristic:
        h = gym_suite.evaluate(ENV_ID, "heuristic", episodes=args.episodes, seed=TUNING_SEED)
        row["heuristic"] = float(np.mean(h.returns))
    print(json.dumps(row))


if __name__ == "__main__":
    main()
