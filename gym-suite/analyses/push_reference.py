"""Reference behaviour of ``push-v0`` on its bundled log: accuracy and return of simple policies.

    python gym-suite/analyses/push_reference.py [--episodes 500] [--seed 0] [--ppo STEPS]

Every policy plays the same seeded episodes (windows of 100 notifications of one user), then
replays the whole log once (``episode_length=None``). Two of them peek at what no agent sees:

* ``per-app majority``: delivers the apps whose open rate over the whole log is at least 0.5
  (a lookup table computed from the log's labels, so it has seen the answers);
* ``Bayes-optimal``: delivers when the generator's true open probability ``p_open`` of the
  observed notification is at least 0.5 (read through ``env.unwrapped.current_row``). No
  policy can do better in expectation; its expected accuracy is the mean of
  ``max(p_open, 1 - p_open)``.

``--ppo STEPS`` also trains Stable-Baselines3's PPO for that many steps with push-v0's recipe
(``gym_suite.training``; needs the ``sb3`` extra) and evaluates it greedily on the same episodes.
Random actions come from the action space seeded with ``action_seed`` of the episode's seed.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs.push_env import DELIVER, HOLD
from gym_suite.envs.push_log import CATEGORICAL_FIELDS
from gym_suite.evaluate import play


def score(env, policy, episodes: int, seed: int):
    """Per-episode return and final accuracy of ``policy`` on seeds ``seed..``.

    ``policy`` is a built-in name or a function ``(env, observation) -> action`` (the peeking
    policies look at the env itself).
    """
    act = policy if isinstance(policy, str) else (lambda obs: policy(env, obs))
    returns, accuracies = [], []
    for i in range(episodes):
        total = 0.0
        for step in play(env, act, seed + i):
            total += step.reward
        returns.append(total)
        accuracies.append(step.info["accuracy"])
    return np.array(returns), np.array(accuracies)


def policies(log) -> dict:
    app = log.codes[CATEGORICAL_FIELDS.index("app")]
    app_open_rate = np.bincount(app, weights=log.labels, minlength=len(log.vocabularies["app"])) / np.maximum(
        np.bincount(app, minlength=len(log.vocabularies["app"])), 1
    )
    return {
        "random": "random",
        "always deliver": lambda env, obs: DELIVER,
        "always hold (majority)": lambda env, obs: HOLD,
        "heuristic (hand rule)": "heuristic",
        "per-app majority (peeks)": lambda env, obs: int(app_open_rate[obs["app"]] >= 0.5),
        "Bayes-optimal (peeks)": lambda env, obs: int(log.p_open[env.unwrapped.current_row] >= 0.5),
    }


def ppo_policy(steps: int, seed: int):
    from gym_suite.training.sb3 import SB3Policy, train_sb3

    start = time.perf_counter()
    model = train_sb3("push-v0", "ppo", steps, seed=seed)
    print(f"PPO: {steps} training steps in {time.perf_counter() - start:.0f} s")
    policy = SB3Policy(model, name="sb3-ppo")
    return lambda env, obs: policy(obs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ppo", type=int, default=0, metavar="STEPS", help="also train PPO for STEPS steps")
    args = parser.parse_args(argv)

    env = gymnasium.make("gym_suite:push-v0")
    whole = gymnasium.make("gym_suite:push-v0", episode_length=None)
    log = env.unwrapped.log
    opened = log.labels.mean()
    print(
        f"bundled log: {log.n_rows} notifications of {len(log.vocabularies['user_id'])} users, "
        f"{opened:.1%} opened; Bayes-optimal expected accuracy {np.maximum(log.p_open, 1 - log.p_open).mean():.4f}\n"
    )
    table = policies(log)
    if args.ppo:
        table["PPO (SB3, push-v0 recipe)"] = ppo_policy(args.ppo, args.seed)
    print(
        f"{args.episodes} episodes of 100 notifications (seeds {args.seed}..{args.seed + args.episodes - 1}), "
        "then one replay of the whole log:\n"
    )
    print(f"| {'policy':<26} | {'accuracy':>8} | {'return / episode':>16} | {'whole log':>9} |")
    print(f"|{'-' * 28}|{'-' * 10}|{'-' * 18}|{'-' * 11}|")
    for name, policy in table.items():
        returns, accuracies = score(env, policy, args.episodes, args.seed)
        _, whole_accuracy = score(whole, policy, 1, args.seed)
        print(
            f"| {name:<26} | {accuracies.mean():>8.4f} | {returns.mean():>7.2f} ± {returns.std():<6.2f} | "
            f"{whole_accuracy[0]:>9.4f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
