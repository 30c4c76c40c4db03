"""heartpole-v1's JAX PPO recipe re-checked on tuning episodes disjoint from the evaluation episodes.

    python gym-suite/analyses/heartpole_v1_tuning.py [--seeds 3] [--episodes 1000]

The baselines table reports every policy on evaluation episodes 0 .. 999 (episode ``i`` reset
with seed ``i``). A recipe chosen by its score on those same episodes is tuned on the test set,
so the choices of ``gym_suite.training.jax.PPO_RECIPES["heartpole-v1"]`` (a 32 x 32 network,
training rewards scaled by 0.01, no discounting with the two weeks' end terminal) are made here
again on *tuning* episodes seeded ``100,000 ..``, which no reported figure uses. Each variant
changes one setting of the recipe and trains ``--seeds`` training seeds (0, 1, ...; one vmapped
run, the recipe's budget); each seed's greedy policy plays the same tuning episodes (the env's
own rules on numpy rows, as ``heartpole_v1_reference.play``: episode ``i`` draws what
``reset(seed=100_000 + i)`` draws, whatever the policy does). Printed per variant: each seed's
mean return, their mean and its standard error over the seeds, and the mean over seeds of the
paired difference from the recipe's policy of the same training seed on the same episodes.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from gym_suite.references.heartpole_v1_reference import episode_uniforms, play

ENV_ID = "heartpole-v1"
TUNING_SEED = 100_000  # the tuning episodes' first seed; the evaluation episodes are 0 .. 999
#: One setting of the recipe changed per variant (``train_ppo`` overrides); "recipe" changes none.
VARIANTS: dict[str, dict] = {
    "recipe (32 x 32, rewards x 0.01, gamma 1)": {},
    "64 x 64 network": {"agent_kwargs": {"hidden_layer_sizes": (64, 64)}},
    "rewards x 0.1": {"reward_scale": 0.1},
    "gamma 0.999": {"gamma": 0.999},
    # fewer passes over each rollout (the updates are most of the training time)
    "5 epochs": {"num_epochs": 5},
    "4 epochs": {"num_epochs": 4},
    "3 epochs": {"num_epochs": 3},
}


def batch_policy(policy):
    """A ``JaxPPOPolicy`` as ``play``'s ``(observations, step, rows) -> actions``."""
    return lambda obs, step, rows: np.asarray(policy.act_batch(list(obs)), dtype=np.int64)


def main(argv=None) -> int:
    from gym_suite.training.jax import train_ppo

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="training seeds per variant (0, 1, ...)")
    parser.add_argument("--episodes", type=int, default=1000, help="tuning episodes, seeds 100,000 ..")
    parser.add_argument(
        "--variants",
        nargs="+",
        choices=list(VARIANTS),
        default=list(VARIANTS),
        metavar="NAME",
        help="the variants to train (default: all); the first is the one the others are paired with",
    )
    args = parser.parse_args(argv)
    seeds = np.arange(TUNING_SEED, TUNING_SEED + args.episodes)
    uniforms = episode_uniforms(seeds)
    base: list[np.ndarray] = []
    print(f"{ENV_ID}: JAX PPO variants, {args.seeds} training seeds each, greedy on {args.episodes} tuning episodes")
    print("| variant | per seed | mean ± s.e. over seeds | paired vs recipe (mean over seeds ± s.e.) | train (s) |")
    print("|---|---|---|---|---|")
    for name in args.variants:
        overrides = VARIANTS[name]
        start = time.perf_counter()
        result = train_ppo(ENV_ID, seed=0, num_seeds=args.seeds, progress=False, eval_episodes=0, **overrides)
        seconds = time.perf_counter() - start
        returns = [play(batch_policy(p), seeds, uniforms)["return"] for p in result.policies]
        means = np.array([r.mean() for r in returns])
        if not base:
            base = returns
        paired = np.array([(r - b).mean() for r, b in zip(returns, base)])
        se = means.std(ddof=1) / np.sqrt(len(means)) if len(means) > 1 else float("nan")
        paired_se = paired.std(ddof=1) / np.sqrt(len(paired)) if len(paired) > 1 else float("nan")
        print(
            f"| {name} | {', '.join(f'{m:.1f}' for m in means)} | {means.mean():.1f} ± {se:.1f} | "
            f"{paired.mean():+.1f} ± {paired_se:.1f} | {seconds:.0f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
