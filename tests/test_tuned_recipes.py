"""The recipes take the tuned settings of a tuned-recipes file (gym-suite/analyses/tune_recipe.py writes it)."""

from __future__ import annotations

import json

import pytest

from gym_suite.training import recipes
from gym_suite.training.jax import ppo_settings


def write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def tuned_file(tmp_path, monkeypatch):
    path = tmp_path / "tuned.json"
    monkeypatch.setenv(recipes.TUNED_RECIPES_VARIABLE, str(path))
    return path


def test_no_file_changes_nothing(tuned_file):
    assert not tuned_file.exists()
    assert recipes.tuned_recipes_path() == tuned_file
    assert recipes.recipe_for("push-v1") is recipes.RECIPES["push-v1"]
    assert recipes.sb3_settings("example-v0", "ppo") == recipes.SB3_PPO_DEFAULTS


def test_tuned_settings_go_over_the_recipes_own(tuned_file):
    write(
        tuned_file,
        {
            "push-v1": {
                "sb3-ppo": {"settings": {"learning_rate": 1e-4, "ent_coef": 0.01}, "tuned": {"date": "2026-11-26"}},
                "jax-ppo": {"settings": {"num_epochs": 5}, "tuned": {"date": "2026-11-27"}},
                "rllib-ppo": {"settings": {"lr": 5e-5}},
            }
        },
    )
    sb3 = recipes.sb3_settings("push-v1", "ppo")
    assert sb3["learning_rate"] == 1e-4 and sb3["ent_coef"] == 0.01
    assert sb3["gamma"] == 1.0  # the recipe's own setting stays where the file says nothing
    assert recipes.recipe_for("push-v1").eval_env_kwargs == {"split": "test"}
    assert recipes.rllib_ppo_settings("push-v1")["lr"] == 5e-5
    jax = ppo_settings("push-v1")
    assert jax["num_epochs"] == 5 and jax["gamma"] == 1.0
    assert ppo_settings("push-v1", num_epochs=3)["num_epochs"] == 3  # the caller's overrides still win
    assert recipes.sb3_settings("push-v0", "ppo") == recipes.SB3_PPO_DEFAULTS  # other ids untouched
    assert recipes.tuned_since("push-v1", "sb3-ppo") == "2026-11-26"
    assert recipes.tuned_since("push-v1", "rllib-ppo") is None and recipes.tuned_since("push-v0", "sb3-ppo") is None


@pytest.mark.parametrize(
    "data",
    [[1, 2], {"push-v1": {"dqn": {"settings": {}}}}, {"push-v1": {"sb3-ppo": {"learning_rate": 1e-4}}}],
    ids=["not-an-object", "unknown-agent", "no-settings"],
)
def test_a_malformed_file_is_a_value_error_naming_it(tuned_file, data):
    write(tuned_file, data)
    with pytest.raises(ValueError, match="tuned recipes .*tuned.json"):
        recipes.recipe_for("push-v1")


def test_a_file_that_is_not_json_is_a_value_error(tuned_file):
    tuned_file.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="not a readable JSON file"):
        recipes.read_tuned_recipes()


def test_an_unknown_jax_setting_is_a_type_error(tuned_file):
    write(tuned_file, {"example-v0": {"jax-ppo": {"settings": {"learning_rat": 1e-4}}}})
    with pytest.raises(TypeError, match="learning_rat.*tuned recipes"):
        ppo_settings("example-v0")
