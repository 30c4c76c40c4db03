"""push-v1 learned from its rewards: a model of the reward, fit on explored days, planned with the optimum's program.

:func:`train_reward_model` learns from the environment alone (push-v1's reward is a delivery's
expected open):

1. **Explore** ``steps`` steps of the id, delivering each notification with probability
   ``budget_left / notifications_left``; keep every observation, and each delivery's reward.
2. **Model the reward**: gradient-boosted trees (``HistGradientBoostingRegressor``,
   :data:`SETTINGS`, ``random_state=seed``) fit to the log-odds of the rewards from the
   deliveries' fields (as :mod:`gym_suite.references.push_supervised`'s boosting reads them).
3. **Plan**: the optimum's dynamic program over (budget left, notifications left)
   (:func:`gym_suite.references.push_v1_optimum.thresholds`) on the model's predictions over every
   explored notification.

The result is a :class:`RewardModelPolicy`. Needs scikit-learn (the ``baselines`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: ``HistGradientBoostingRegressor``'s settings (scikit-learn's defaults but these two).
SETTINGS: dict[str, Any] = {"max_iter": 500, "learning_rate": 0.05}
#: The ids it learns.
SUPPORTED = ("push-v1",)
#: push-v1's open probabilities lie in 0.0001 .. 0.9999 (the generator's clip): the rewards' log-odds are finite.
P_MIN, P_MAX = 1e-4, 1 - 1e-4

__all__ = ["SETTINGS", "SUPPORTED", "RewardModelPolicy", "explore", "train_reward_model"]


def explore(
    env_id: str, steps: int, seed: int, env_kwargs: dict[str, Any] | None = None
) -> tuple[list, list, np.ndarray]:
    """``steps`` steps of ``env_id`` delivering uniformly over each day: every observation, and the
    observations and rewards of the deliveries."""
    from gym_suite.quiet import make

    env = make(env_id, **(env_kwargs or {}))
    rng = np.random.default_rng(seed)
    seen: list = []
    delivered: list = []
    rewards: list[float] = []
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        seen.append(obs)
        action = int(rng.random() < float(obs["budget_left"][0]) / float(obs["notifications_left"][0]))
        next_obs, reward, terminated, truncated, _ = env.step(action)
        if action:
            delivered.append(obs)
            rewards.append(float(reward))
        obs = env.reset()[0] if terminated or truncated else next_obs
    env.close()
    return seen, delivered, np.asarray(rewards, dtype=np.float64)


class RewardModelPolicy:
    """``observation -> action``: the predicted reward against the optimum's threshold for the
    budget and the notifications left (``threshold[budget_left, notifications_left]``)."""

    name = "reward model"

    def __init__(self, model: Any, sizes: dict[str, int], threshold: np.ndarray) -> None:
        self.model, self.sizes, self.threshold = model, sizes, threshold

    def predict(self, observations: Any) -> np.ndarray:
        """The predicted reward (open probability) of each observation's notification."""
        from gym_suite.references import push_supervised

        codes, numbers = push_supervised.observation_fields(list(observations))
        logit = self.model.predict(push_supervised.features(codes, numbers, self.sizes, "boosting"))
        return np.asarray(1.0 / (1.0 + np.exp(-logit)))

    def act_batch(self, observations: Any) -> np.ndarray:
        from gym_suite.references.push_v1_optimum import threshold_actions

        observations = list(observations)
        return threshold_actions(self.predict(observations), observations, self.threshold)

    def __call__(self, observation: Any) -> int:
        return int(self.act_batch([observation])[0])


def train_reward_model(
    env_id: str, steps: int, seed: int = 0, env_kwargs: dict[str, Any] | None = None
) -> RewardModelPolicy:
    """Explore ``steps`` steps of ``env_id`` (one of :data:`SUPPORTED`, made with ``env_kwargs``),
    model the reward, plan (the module's description). ``steps`` and ``seed`` are checked by
    :func:`~gym_suite.training.check_training_arguments`; ``ValueError`` for another id,
    ``env_kwargs`` with ``expected_opens=False``, or an exploration that delivered fewer than 2
    notifications."""
    from gym_suite._registry import suite_id
    from gym_suite.envs.checks import check_env_kwargs, shown
    from gym_suite.training import check_training_arguments

    if not isinstance(env_id, str):
        raise TypeError(f"train_reward_model: env_id must be one of {list(SUPPORTED)}, got {shown(env_id)}")
    env_id = suite_id(env_id)
    if env_id not in SUPPORTED:
        raise ValueError(f"train_reward_model: env_id must be one of {list(SUPPORTED)}, got {shown(env_id)}")
    steps, seed, _, _ = check_training_arguments("train_reward_model", steps, seed, budget=False)
    env_kwargs = check_env_kwargs("train_reward_model: ", env_kwargs, allow_none=True)
    if not (env_kwargs or {}).get("expected_opens", True):
        raise ValueError(
            "train_reward_model: env_kwargs expected_opens must stay True: the model learns the open probability "
            "from the rewards, which are then the expected opens (drawn opens, 0 or 1, would be another model)"
        )
    try:
        from sklearn.ensemble import HistGradientBoostingRegressor
    except ImportError:
        raise ImportError("train_reward_model needs scikit-learn: pip install 'gym-suite[baselines]'") from None

    from gym_suite.envs.push_log import CATEGORICAL_FIELDS
    from gym_suite.references import push_supervised
    from gym_suite.references.push_v1_optimum import thresholds

    seen, delivered, rewards = explore(env_id, steps, seed, env_kwargs)
    if len(rewards) < 2:
        raise ValueError(
            f"train_reward_model: {steps} steps delivered {len(rewards)} notification(s): too few steps to learn from"
        )
    from gym_suite.quiet import make

    probe = make(env_id, **(env_kwargs or {}))
    sizes = {f: int(probe.observation_space[f].n) for f in CATEGORICAL_FIELDS}
    budget = int(probe.unwrapped.params.daily_budget)
    probe.close()
    codes, numbers = push_supervised.observation_fields(delivered)
    x = push_supervised.features(codes, numbers, sizes, "boosting")
    p = np.clip(rewards, P_MIN, P_MAX)
    model = HistGradientBoostingRegressor(
        categorical_features=np.arange(x.shape[1]) < len(CATEGORICAL_FIELDS), random_state=seed, **SETTINGS
    )
    model.fit(x, np.log(p / (1 - p)))
    policy = RewardModelPolicy(model, sizes, np.zeros((0, 0)))
    longest = int(max(float(o["notifications_left"][0]) for o in seen))
    _, policy.threshold = thresholds(policy.predict(seen), budget, 2 * longest)
    return policy
