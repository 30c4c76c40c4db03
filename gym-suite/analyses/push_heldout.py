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
  of 100 notifications, ``MultiInputPolicy``, the Box features standardised by
  ``VecNormalize``; the settings of the suite's push-v0 recipe), then scored greedily
  (``deterministic=True``) with the frozen observation statistics.

``return/100`` is the matching return of a 100-notification episode, ``100 * (2 * accuracy - 1)``,
the unit of the baselines table; ``±`` is one standard error of the accuracy,
``sqrt(a (1 - a) / n)``. Torch runs on one thread. Needs the ``sb3`` extra.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium
import numpy as np

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs.push_env import HOLD
from gym_suite.envs.push_log import CATEGORICAL_FIELDS, NUMERIC_FIELDS

SPLITS = ("train", "test")
# the suite's push-v0 settings (gym_suite.training.recipes): SB3 defaults of the suite, 4 PPO copies
PPO_SETTINGS = {
    "n_steps": 256,
    "batch_size": 64,
    "n_epochs": 10,
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "ent_coef": 0.0,
    "policy_kwargs": {"net_arch": [64, 64]},
}
DQN_SETTINGS = {
    "learning_rate": 1e-3,
    "buffer_size": 50_000,
    "learning_starts": 1_000,
    "batch_size": 64,
    "gamma": 0.99,
    "train_freq": 4,
    "gradient_steps": 1,
    "target_update_interval": 1_000,
    "exploration_fraction": 0.2,
    "exploration_final_eps": 0.02,
    "policy_kwargs": {"net_arch": [64, 64]},
}
PPO_COPIES = 4


def whole_log(split: str):
    """An env replaying the whole bundled log of ``split`` in one episode."""
    return gymnasium.make("gym_suite:push-v0", split=split, episode_length=None)


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


def make_training_env(n_envs: int, seed: int):
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    venv = make_vec_env(
        "gym_suite:push-v0",
        n_envs=n_envs,
        seed=seed,
        env_kwargs={"split": "train"},
    )
    return VecNormalize(venv, norm_obs=True, norm_reward=False, norm_obs_keys=list(NUMERIC_FIELDS), gamma=0.99)


def train(algo: str, steps: int, seed: int):
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.logger import Logger

    venv = make_training_env(PPO_COPIES if algo == "ppo" else 1, seed)
    cls, settings = (PPO, PPO_SETTINGS) if algo == "ppo" else (DQN, DQN_SETTINGS)
    model = cls("MultiInputPolicy", venv, seed=seed, device="cpu", verbose=0, **settings)
    model.set_logger(Logger(folder=None, output_formats=[]))
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    print(f"SB3 {algo.upper()}: {steps:,} training steps in {time.perf_counter() - start:.0f} s", flush=True)
    venv.training = False  # frozen statistics from here on
    return model, venv


def greedy(model, venv):
    def act(env, observation):
        batch = {k: np.asarray(v)[None] for k, v in observation.items()}
        action, _ = model.predict(venv.normalize_obs(batch), deterministic=True)
        return int(np.asarray(action).reshape(-1)[0])

    return act


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

    import torch

    torch.set_num_threads(1)
    for algo, steps in (("dqn", args.dqn_steps), ("ppo", args.ppo_steps)):
        if steps:
            model, venv = train(algo, steps, args.seed)
            act = greedy(model, venv)
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
