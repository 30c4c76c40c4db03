"""Honest numbers for ``push-v0``: agents trained on the training log, scored on the held-out test log.

    python gym-suite/analyses/push_heldout.py [--ppo-steps 300000] [--dqn-steps 100000] [--seed 0]

The bundled data are two logs of the same 8 people from one seeded generator: the training
log (weeks 1-6, ``split="train"``) and the test log (weeks 7-12, ``split="test"``). Every
observation of the training log is distinct, so a model scored on the log it trained on can
score what it memorised; only the test log tells what it learnt. For each log this prints the
accuracy over the whole log (one greedy pass, ``episode_length=None``) of

* ``always hold``: the majority class;
* ``heuristic``: the environment's hand rule, ``env.unwrapped.heuristic``;
* ``Bayes-optimal policy``: delivers exactly when the generator's true open probability
  ``p_open`` is at least 0.5 (it peeks at what no agent sees), scored against the realised
  labels; and ``Bayes-optimal, expected``: the mean of ``max(p_open, 1 - p_open)``, its
  expected accuracy, the best any policy can expect;
* ``lookup table``: the majority label of each observation of the training log (the
  majority class for an observation it has not seen), i.e. pure memorisation;
* ``SB3 PPO`` and ``SB3 DQN``: Stable-Baselines3 trained on the training log only (episodes
  of 100 notifications, ``gym_suite.training.sb3.train_sb3`` with the suite's push-v0 recipe:
  ``MultiInputPolicy``, the Box features standardised by ``VecNormalize``), then scored
  greedily (``deterministic=True``) with the frozen observation statistics.

``return/100`` is the matching return of a 100-notification episode, ``100 * (2 * accuracy - 1)``,
the unit of the baselines table; ``±`` is one standard error of the accuracy,
``sqrt(a (1 - a) / n)``. Torch runs on one thread. Needs the ``sb3`` extra.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from gym_suite.envs.push_env import HOLD
from gym_suite.envs.push_log import CATEGORICAL_FIELDS, NUMERIC_FIELDS
from gym_suite.quiet import make

SPLITS = ("train", "test")
ENV_ID = "push-v0"


def whole_log(split: str):
    """An env replaying the whole bundled log of ``split`` in one episode."""
    return make(ENV_ID, split=split, episode_length=None)


def replay_accuracy(split: str, act) -> float:
    """Accuracy of ``act(env, observation) -> action`` over the whole log, stepped through the env."""
    env = whole_log(split)
    observation, _ = env.reset(seed=0)
    right = steps = 0
    while True:
        observation, reward, terminated, truncated, _ = env.step(act(env, observation))
        right += reward > 0
        steps += 1
        if terminated or truncated:
            break
    assert steps == env.unwrapped.log.n_rows
    return right / steps


def observation_keys(log) -> list[tuple]:
    return [tuple(row) for row in np.vstack([log.codes, log.numbers]).T.tolist()]


def lookup_table(log) -> tuple[dict, int]:
    """Observation -> majority label over ``log`` (ties and unseen observations: the majority class)."""
    fallback = int(log.labels.mean() > 0.5)
    counts: dict[tuple, list[int]] = {}
    for key, label in zip(observation_keys(log), log.labels.tolist()):
        counts.setdefault(key, [0, 0])[label] += 1
    return {k: (fallback if c[0] == c[1] else int(c[1] > c[0])) for k, c in counts.items()}, fallback


def train(algo: str, steps: int, seed: int):
    """``algo`` trained on the training log with the suite's push-v0 recipe; its greedy policy."""
    from gym_suite.training.sb3 import SB3Policy, train_sb3

    start = time.perf_counter()
    model = train_sb3(ENV_ID, algo, steps, seed=seed, env_kwargs={"split": "train"}, vec_env="dummy")
    print(f"SB3 {algo.upper()}: {steps:,} training steps in {time.perf_counter() - start:.0f} s", flush=True)
    policy = SB3Policy(model, name=f"sb3-{algo}")  # the frozen observation statistics
    return lambda env, observation: policy(observation)


def row(name: str, accuracies: dict, note: str = "") -> str:
    cells = []
    for split in SPLITS:
        a, n = accuracies[split]
        se = math.sqrt(a * (1 - a) / n)
        cells.append(f"{100 * a:.1f} ± {100 * se:.1f} % | {100 * (2 * a - 1):+.1f}")
    return f"| {name} | " + " | ".join(cells) + f" | {note} |"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ppo-steps", type=int, default=300_000, help="PPO training steps (0: skip PPO)")
    parser.add_argument("--dqn-steps", type=int, default=100_000, help="DQN training steps (0: skip DQN)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the agents' training")
    args = parser.parse_args(argv)
    if args.ppo_steps < 0 or args.dqn_steps < 0:
        parser.error("--ppo-steps and --dqn-steps must be >= 0")

    logs = {split: whole_log(split).unwrapped.log for split in SPLITS}
    n = {split: logs[split].n_rows for split in SPLITS}
    table, fallback = lookup_table(logs["train"])
    lines = [
        "| policy | train accuracy | train return/100 | test accuracy | test return/100 | note |",
        "|---|---|---|---|---|---|",
    ]

    def add(name, accuracy_of, note=""):
        lines.append(row(name, {s: (accuracy_of(s), n[s]) for s in SPLITS}, note))
        print(lines[-1], flush=True)

    add("always hold", lambda s: float((logs[s].labels == HOLD).mean()), "majority class")
    add("heuristic", lambda s: replay_accuracy(s, lambda env, obs: env.unwrapped.heuristic(obs)), "env.heuristic")
    add(
        "Bayes-optimal policy",
        lambda s: float(((logs[s].p_open >= 0.5) == logs[s].labels).mean()),
        "deliver iff p_open >= 0.5 (peeks)",
    )
    add(
        "Bayes-optimal, expected",
        lambda s: float(np.maximum(logs[s].p_open, 1 - logs[s].p_open).mean()),
        "mean max(p, 1-p): the ceiling",
    )
    add(
        "lookup table",
        lambda s: float(
            np.mean([table.get(k, fallback) == y for k, y in zip(observation_keys(logs[s]), logs[s].labels.tolist())])
        ),
        f"{len(table):,} observations memorised from the training log",
    )

    for algo, steps in (("dqn", args.dqn_steps), ("ppo", args.ppo_steps)):
        if steps:
            act = train(algo, steps, args.seed)
            add(
                f"SB3 {algo.upper()}",
                lambda s, act=act: replay_accuracy(s, act),
                f"{steps:,} steps on the training log, seed {args.seed}",
            )

    codes = ", ".join(f"{s}: {n[s]:,} notifications" for s in SPLITS)
    print(f"\nAccuracy over each whole log ({codes}); the fields observed: {CATEGORICAL_FIELDS + NUMERIC_FIELDS}\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
