"""push-v1 learned from its rewards: a model of the reward, fit on explored days, planned with the optimum's program.

    python gym-suite/analyses/push_v1_reward_model.py [--seed 0] [--seeds 5] [--steps 100000] [--episodes 1000]

push-v1's heuristic (0.964 normalized on the held-out test log) is level with what PPO learns in
300k steps, yet a policy of the observation can reach the oracle's score (``push_v1_headroom.py``):
the room is in the form of the open probability. This learner finds it from the environment alone,
as an agent would, in three steps per training seed:

1. **Explore** ``--steps`` steps of push-v1 on the training log (``gym.make("gym_suite:push-v1")``,
   reset with the seed, then on): at each notification deliver with probability ``budget_left /
   notifications_left``, so each day's deliveries fall uniformly over its notifications. Keep every
   observation, and for each delivery its reward. The reward of a delivery is its expected open
   (``expected_opens=True``, the default): the learner sees the open probability of what it
   delivered, and of nothing else.
2. **Model the reward**: gradient-boosted trees (scikit-learn's ``HistGradientBoostingRegressor``,
   the categorical fields as categories, ``random_state`` the seed) fit to the log-odds of the
   rewards from the delivered notifications' fields (push-v0's, as ``push_supervised``'s boosting).
3. **Plan**: the optimum's dynamic program over (budget left, notifications left)
   (``push_v1_optimum.thresholds``) on the distribution of the model's predictions over every
   explored notification; deliver when the predicted reward reaches the threshold.

The policy is then played on the baselines' evaluation days (the test log, episodes seeded 0 ..
``--episodes - 1``, as the table) and paired with the heuristic on the same days. Nothing is tuned
on the test log: the model's settings are scikit-learn's defaults but the iterations (500) and the
learning rate (0.05), fixed in one first trial and not varied since, and the exploration is the
uniform one above.
Prints each seed's return and normalized score, its paired difference with the heuristic, and the
mean over seeds with its standard error (the seeds' spread). Needs the ``baselines`` extra
(scikit-learn).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import gym_suite
from gym_suite.cli import non_negative_int, positive_int
from gym_suite.references import push_supervised, push_v1_optimum

ENV_ID = "push-v1"
EVAL_KWARGS = push_v1_optimum.EVAL_KWARGS  # the table's: the held-out test log
P_MIN, P_MAX = 1e-4, 1 - 1e-4  # the generator's open probabilities lie in 0.0001 .. 0.9999


def explore(steps: int, seed: int) -> tuple[list, np.ndarray, np.ndarray]:
    """``steps`` steps of push-v1 (training log) delivering uniformly over each day: every
    observation, and the observations and rewards of the deliveries."""
    import gymnasium

    env = gymnasium.make(f"gym_suite:{ENV_ID}")
    rng = np.random.default_rng(seed)
    seen, delivered, rewards = [], [], []
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        seen.append(obs)
        budget = float(obs["budget_left"][0])
        left = float(obs["notifications_left"][0])
        action = int(rng.random() < budget / left)
        next_obs, reward, terminated, truncated, _ = env.step(action)
        if action:
            delivered.append(obs)
            rewards.append(reward)
        obs = env.reset()[0] if terminated or truncated else next_obs
    env.close()
    return seen, np.asarray(delivered, dtype=object), np.asarray(rewards, dtype=np.float64)


class RewardModelPolicy:
    """``observation -> action``: the predicted reward against the optimum's threshold for the
    budget and the notifications left; ``act_batch`` for many."""

    def __init__(self, model, sizes: dict, threshold: np.ndarray):
        self.model, self.sizes, self.threshold = model, sizes, threshold
        self.name = "push-v1-reward-model"

    def predict(self, observations) -> np.ndarray:
        codes, numbers = push_supervised.observation_fields(list(observations))
        logit = self.model.predict(push_supervised.features(codes, numbers, self.sizes, "boosting"))
        return 1.0 / (1.0 + np.exp(-logit))

    def act_batch(self, observations) -> np.ndarray:
        observations = list(observations)
        return push_v1_optimum._threshold_actions(self.predict(observations), observations, self.threshold)

    def __call__(self, observation) -> int:
        return int(self.act_batch([observation])[0])


def learn(steps: int, seed: int, budget: int = 2) -> RewardModelPolicy:
    """Explore, model the reward, plan (the module's description)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from gym_suite.envs.push_log import CATEGORICAL_FIELDS, load_log

    seen, delivered, rewards = explore(steps, seed)
    if len(rewards) < 2:
        raise ValueError(f"--steps {steps}: too few steps to deliver anything to learn from")
    log = load_log(split="train")
    sizes = {f: len(log.vocabularies[f]) for f in CATEGORICAL_FIELDS}
    codes, numbers = push_supervised.observation_fields(list(delivered))
    x = push_supervised.features(codes, numbers, sizes, "boosting")
    p = np.clip(rewards, P_MIN, P_MAX)
    model = HistGradientBoostingRegressor(
        categorical_features=np.arange(x.shape[1]) < len(CATEGORICAL_FIELDS),
        max_iter=500,
        learning_rate=0.05,
        random_state=seed,
    )
    model.fit(x, np.log(p / (1 - p)))
    policy = RewardModelPolicy(model, sizes, np.zeros(0))
    longest = int(max(float(o["notifications_left"][0]) for o in seen))
    _, policy.threshold = push_v1_optimum.thresholds(policy.predict(seen), budget, 2 * longest)
    return policy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=non_negative_int, default=0, help="the first training seed (default 0)")
    parser.add_argument("--seeds", type=positive_int, default=5, help="training seeds: --seed, --seed + 1, ... (5)")
    parser.add_argument("--steps", type=positive_int, default=100_000, help="exploration steps a seed (100,000)")
    parser.add_argument("--episodes", type=positive_int, default=1000, help="evaluation days, seeds 0 .. N-1 (1000)")
    args = parser.parse_args(argv)
    table = push_v1_optimum.exact_table("test", 2)
    random, oracle = table["random"], table["optimum"]
    heuristic = gym_suite.evaluate(ENV_ID, "heuristic", episodes=args.episodes, seed=0, env_kwargs=EVAL_KWARGS)
    print(
        f"{ENV_ID}: reward model learned from {args.steps:,} explored steps a seed (training log), planned with the "
        f"optimum's thresholds; {args.episodes:,} evaluation days of the test log (seeds 0-{args.episodes - 1})"
    )
    print(f"heuristic {heuristic.mean:.4f} (normalized {(heuristic.mean - random) / (oracle - random):.3f})")
    print("| seed | return | normalized | minus heuristic (paired) | learn (s) |")
    print("|---:|---:|---:|---:|---:|")
    means, differences = [], []
    for seed in range(args.seed, args.seed + args.seeds):
        start = time.perf_counter()
        policy = learn(args.steps, seed)
        seconds = time.perf_counter() - start
        result = gym_suite.evaluate(ENV_ID, policy, episodes=args.episodes, seed=0, env_kwargs=EVAL_KWARGS)
        difference, error = result.paired_difference(heuristic)
        means.append(result.mean)
        differences.append(difference)
        print(
            f"| {seed} | {result.mean:.4f} | {(result.mean - random) / (oracle - random):.3f} | "
            f"{difference:+.4f} ± {error:.4f} | {seconds:.1f} |",
            flush=True,
        )
    if len(means) > 1:
        m, d = np.asarray(means), np.asarray(differences)
        se = d.std(ddof=1) / np.sqrt(len(d))
        print(
            f"mean over {len(m)} seeds: {m.mean():.4f} (normalized {(m.mean() - random) / (oracle - random):.3f}); "
            f"minus heuristic {d.mean():+.4f}, standard error over the seeds {se:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
