"""Every public function taking an id gives the same for every form of it: ``id``, ``gym_suite:id`` (the prefix
``gymnasium.make`` takes) and, where it depends on the environment alone or runs its JAX env, ``gym_suite_jax/id``."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALL_IDS

from gym_suite._registry import suite_id
from gym_suite.evaluate import evaluate
from gym_suite.training import recipes


def forms(env_id, jax=True):
    return [env_id, f"gym_suite:{env_id}"] + ([f"gym_suite_jax/{env_id}"] if jax else [])


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_the_normalizer_and_the_recipes_give_the_same_for_every_form(env_id):
    assert suite_id(f"gym_suite:{env_id}") == env_id
    assert suite_id(f"gym_suite_jax/{env_id}") == f"gym_suite_jax/{env_id}"  # the JAX env, unless asked
    for other in ("CartPole-v1", "gym_suite:nope-v0", "gymnasium:CartPole-v1", "", 5, None):
        assert suite_id(other, jax=True) == other
    agents, algos = recipes.TRAINED_AGENTS, ("ppo", "dqn")
    for form in forms(env_id):
        assert suite_id(form, jax=True) == env_id
        same_for = lambda fn, *args, form=form: fn(form, *args) == fn(env_id, *args)  # noqa: E731
        assert same_for(recipes.recipe_for) and same_for(recipes.rllib_ppo_settings)
        assert all(same_for(recipes.recipe_budget, agent) for agent in agents)
        assert all(same_for(recipes.sb3_settings, a) and same_for(recipes.training_env_kwargs, a) for a in algos)
        for agent in recipes.TUNABLE_AGENTS:
            assert same_for(recipes.tuned_settings, agent) and same_for(recipes.tuned_entry, agent)
    if env_id == "push-v1":  # its own recipe, not the default
        assert recipes.sb3_settings("gym_suite:push-v1", "ppo")["gamma"] == 1.0
        assert recipes.recipe_budget("gym_suite:push-v1", "sb3-ppo") == 300_000


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_jax_ppo_takes_every_form_with_the_same_settings_and_budget(env_id):
    training_jax = pytest.importorskip("gym_suite.training.jax")
    for form in forms(env_id):
        assert training_jax.ppo_budget(form) == training_jax.ppo_budget(env_id)
        assert training_jax.ppo_settings(form) == training_jax.ppo_settings(env_id)
        # accepted: the next check (of total_timesteps) is the one that fails
        with pytest.raises(ValueError, match="total_timesteps must be"):
            training_jax.train_ppo(form, total_timesteps=0, progress=False)
    with pytest.raises(TypeError, match="train_ppo: env_id must be one of"):
        training_jax.train_ppo(5, progress=False)


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_the_jax_env_is_the_same_for_every_form(env_id):
    gsj = pytest.importorskip("gym_suite.jax")
    env, params = gsj.make(env_id)
    for form in forms(env_id):
        other, other_params = gsj.make(form)
        assert type(other) is type(env) and other.name == env.name
        assert other_params == params


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_evaluate_is_the_same_for_every_form(env_id):
    results = [evaluate(form, "random", episodes=2, seed=3) for form in forms(env_id, jax=False)]
    for result in results:
        assert result.env_id == env_id
        np.testing.assert_allclose(result.returns, results[0].returns, rtol=1e-12)
        np.testing.assert_array_equal(result.lengths, results[0].lengths)


def test_train_sb3_on_a_prefixed_id_uses_the_ids_recipe():
    sb3 = pytest.importorskip("gym_suite.training.sb3")
    tiny = {"n_steps": 64, "batch_size": 64, "n_epochs": 1}
    for form in forms("push-v1", jax=False):
        model = sb3.train_sb3(form, steps=64, n_envs=1, overrides=tiny)
        assert model.gamma == 1.0  # push-v1's recipe (the default is 0.99)
        assert model.get_vec_normalize_env() is not None  # and its observation normalization


@pytest.mark.parametrize("env_id", ["push-v1", "heartpole-v1"])
def test_rllib_config_is_the_same_for_every_form(env_id):
    pytest.importorskip("ray.rllib")
    from gym_suite.training.rllib import rllib_config

    configs = [rllib_config(form) for form in forms(env_id, jax=False)]
    for config in configs:
        assert config.env == f"gym_suite:{env_id}"
        settings = (config.gamma, config.lr, config.train_batch_size_per_learner)
        assert settings == (configs[0].gamma, configs[0].lr, configs[0].train_batch_size_per_learner)
