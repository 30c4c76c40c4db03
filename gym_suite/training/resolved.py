"""What a training run depends on, resolved in one place: the settings a run's digest keys.

The driver of a sweep (``gym-suite/benchmarks/baselines.py``) resolves every run here, from the
recipes and the tuned settings it reads (:mod:`gym_suite.training.recipes`), and hands the result
to the run's Ray task; the task resolves it again on its node, from what it was handed, and
checks that the two agree (the same :func:`~gym_suite.training.recipes.settings_digest`).
"""

from __future__ import annotations

import json
from typing import Any

from gym_suite.training.recipes import (
    RLLIB_HIDDENS,
    TRAINED_AGENTS,
    TUNABLE_AGENTS,
    recipe_budget,
    recipe_for,
    recurrent_ppo_settings,
    rllib_ppo_settings,
    sb3_settings,
    stable_repr,
    training_env_kwargs,
)

__all__ = ["resolved_training"]


def resolved_training(env_id: str, agent: str, steps: int | None = None, vec_env: str = "native") -> dict[str, Any]:
    """Everything ``agent`` (``"sb3-ppo"``, ``"sb3-dqn"``, ``"rllib-ppo"``, ``"jax-ppo"``,
    ``"sb3-recurrent-ppo"``, ``"reward-model"``) trains ``env_id`` with, resolved now: the model's
    settings (defaults, the recipe, the tuned settings), the budget (``steps``, or the recipe's), the
    training env's arguments and wrappers, and the evaluation's env arguments. Plain JSON values,
    whose :func:`~gym_suite.training.recipes.settings_digest` keys the runs trained with them."""
    recipe = recipe_for(env_id)
    resolved: dict[str, Any] = {"env_id": env_id, "agent": agent, "eval_env_kwargs": recipe.eval_env_kwargs}
    if steps is None and agent in TRAINED_AGENTS:
        steps = recipe_budget(env_id, agent)
    if agent in ("sb3-ppo", "sb3-dqn"):
        algo = agent.split("-")[1]
        resolved.update(
            steps=steps,
            settings=sb3_settings(env_id, algo),
            n_envs=recipe.n_envs if algo == "ppo" else 1,
            vec_env=vec_env,
            vec_normalize=recipe.vec_normalize.get(algo),
            reward_scale=recipe.reward_scale.get(algo, 1.0),
            reward_offset=recipe.reward_offset.get(algo, 0.0),
            train_env_kwargs=training_env_kwargs(env_id, algo),
            truncation_is_terminal=recipe.truncation_is_terminal.get(algo, False),
        )
    elif agent == "sb3-recurrent-ppo":
        resolved.update(steps=steps, settings=recurrent_ppo_settings(env_id), n_envs=recipe.n_envs)
    elif agent == "rllib-ppo":
        resolved.update(steps=steps, settings=rllib_ppo_settings(env_id), hiddens=RLLIB_HIDDENS)
    elif agent == "jax-ppo":
        from gym_suite.training.jax import ppo_budget, ppo_settings

        settings = ppo_settings(env_id)
        # None here (no overrides; a tuned-recipes file, JSON, holds no function): left out, so that
        # the runs trained before train_ppo had the setting keep their digests
        if settings.pop("draw_params") is not None:
            raise ValueError(f"resolved_training: {env_id} jax-ppo draws its params; a baseline run trains on the id's")
        resolved.update(steps=ppo_budget(env_id) if steps is None else steps, settings=settings)
    elif agent == "reward-model":
        from gym_suite.training.reward_model import SETTINGS

        resolved.update(
            steps=steps,
            settings=dict(SETTINGS),
            train_env_kwargs=recipe.train_env_kwargs.get("reward-model", {}),
        )
    else:
        agents = [*TUNABLE_AGENTS, "sb3-recurrent-ppo", "reward-model"]
        raise ValueError(f"resolved_training: agent must be one of {agents}, got {repr(agent)[:80]}")
    return json.loads(json.dumps(resolved, default=stable_repr))
