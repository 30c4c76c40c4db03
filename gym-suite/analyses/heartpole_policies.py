"""How close is heartpole-v0's heuristic to the best policy? Hand policies paired against it.

    python gym-suite/analyses/heartpole_policies.py [--episodes 1000] [--seed 0]

Every policy plays the same ``--episodes`` 1,000-step episodes in the native vector env, reset
with the same seed: row ``i`` draws the same uniforms whatever the policy does, so a heart attack
that does not depend on the policy strikes every policy alike, and the episode-by-episode
difference from the heuristic (sleep when alertness < 0.4) measures the policies themselves.
Printed: the mean return and the paired difference, mean ± standard error.
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs.heartpole_env import DO_NOTHING, SLEEP

MAX_EPISODE_STEPS = gymnasium.spec("heartpole-v0").max_episode_steps  # the registry's step limit
ALERTNESS, TIME_ELAPSED, WORK_DONE = 0, 4, 5


def play(policy, episodes: int, seed: int) -> np.ndarray:
    """Returns of ``policy(observations, step) -> actions`` over ``episodes`` parallel episodes."""
    env = gymnasium.make_vec("heartpole-v0", num_envs=episodes, vectorization_mode="vector_entry_point")
    obs, _ = env.reset(seed=seed)
    returns = np.zeros(episodes)
    for step in range(MAX_EPISODE_STEPS):
        obs, reward, _, _, _ = env.step(policy(obs, step))
        returns += reward
    env.close()
    return returns


def sleep_below(threshold: float, awake_for_last: int = 0):
    """Sleep when alertness < ``threshold``, except in the last ``awake_for_last`` steps."""

    def policy(obs, step):
        tired = obs[:, ALERTNESS] < threshold
        return np.where(tired & (step < MAX_EPISODE_STEPS - awake_for_last), SLEEP, DO_NOTHING)

    return policy


def sleep_when_work_is_below_score(factor: float):
    """Sleep when alertness (a proxy of the next half-hour's work) < ``factor`` x the score so far."""

    def policy(obs, step):
        score = obs[:, WORK_DONE] / np.maximum(obs[:, TIME_ELAPSED], 1.0)
        return np.where(obs[:, ALERTNESS] < factor * score, SLEEP, DO_NOTHING)

    return policy


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    policies = {"heuristic (sleep below 0.4)": sleep_below(0.4)}
    policies |= {f"sleep below {t}": sleep_below(t) for t in (0.3, 0.35, 0.38, 0.42, 0.45, 0.5, 0.6)}
    policies |= {f"sleep below 0.4, not in the last {k} steps": sleep_below(0.4, k) for k in (5, 10, 20, 40)}
    policies |= {f"sleep when alertness < {f} x score": sleep_when_work_is_below_score(f) for f in (0.8, 1.0, 1.2)}
    policies["always sleep"] = lambda obs, step: np.full(len(obs), SLEEP)
    base = None
    print(f"{'policy':45s} {'return':>10s}   paired difference from the heuristic")
    for name, policy in policies.items():
        returns = play(policy, args.episodes, args.seed)
        if base is None:
            base = returns
        diff = returns - base
        print(f"{name:45s} {returns.mean():10.4f}   {diff.mean():+.5f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.5f}")


if __name__ == "__main__":
    main()
