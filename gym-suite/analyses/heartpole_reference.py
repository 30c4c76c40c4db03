"""Reference behaviour of ``heartpole-v0``: returns and heart attacks of simple fixed policies.

    python gym-suite/analyses/heartpole_reference.py [--episodes 1000] [--seed 0]

Runs ``--episodes`` seeded episodes of 1,000 steps per policy (random actions, always coffee,
always nothing, always sleep, and the env's heuristic) on the native vector env, one
sub-environment per episode: the rules are the scalar env's, the vector env only runs them side
by side. Every policy sees the same seed, so the same random draws; random actions come from the
action space seeded with ``action_seed(seed)``, as everywhere in the suite. Prints, per policy, the mean
and standard deviation of the return and of the heart attacks per episode, and, under always
coffee, the median number of steps to the first heart attack (the tutorial saw 28 in one run).
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs.heartpole_env import DO_NOTHING, DRINK_COFFEE, SLEEP, heuristic_actions
from gym_suite.evaluate import action_seed

ENV_ID = "gym_suite:heartpole-v0"


def run_policy(policy: str, episodes: int, seed: int) -> dict:
    """Returns, heart attacks and first-attack steps of ``episodes`` whole episodes of ``policy``."""
    envs = gymnasium.make_vec(ENV_ID, num_envs=episodes)
    obs, _ = envs.reset(seed=seed)
    steps = envs.unwrapped.max_episode_steps
    envs.action_space.seed(action_seed(seed))
    fixed = {"always coffee": DRINK_COFFEE, "always nothing": DO_NOTHING, "always sleep": SLEEP}
    returns = np.zeros(episodes)
    attacks = np.zeros(episodes, dtype=np.int64)
    first_attack = np.zeros(episodes, dtype=np.int64)  # 0: none yet
    for step in range(1, steps + 1):
        if policy == "random":
            actions = envs.action_space.sample()
        elif policy == "heuristic":
            actions = heuristic_actions(obs)
        else:
            actions = np.full(episodes, fixed[policy])
        obs, reward, terminated, truncated, info = envs.step(actions)
        returns += reward
        attacks += info["heart_attack"]
        first_attack[(first_attack == 0) & info["heart_attack"]] = step
    assert truncated.all() and not terminated.any(), "one whole episode per sub-environment"
    envs.close()
    return {"returns": returns, "attacks": attacks, "first_attack": first_attack}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    start = time.perf_counter()
    policies = ("random", "always coffee", "always nothing", "always sleep", "heuristic")
    results = {policy: run_policy(policy, args.episodes, args.seed) for policy in policies}
    print(f"heartpole-v0: {args.episodes:,} episodes of 1,000 steps per policy, seed {args.seed}\n")
    print("| policy         |              return | heart attacks / episode |")
    print("|----------------|--------------------:|------------------------:|")
    for policy, r in results.items():
        ret, att = r["returns"], r["attacks"]
        print(f"| {policy:<14} | {ret.mean():9.2f} ± {ret.std():7.2f} | {att.mean():11.3f} ± {att.std():9.3f} |")
    first = results["always coffee"]["first_attack"]
    struck = first[first > 0]
    print(
        f"\nalways coffee: median steps to the first heart attack {np.median(struck):g} "
        f"(quartiles {np.percentile(struck, 25):g} .. {np.percentile(struck, 75):g}; "
        f"{len(struck):,} of {len(first):,} episodes had one)"
    )
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
