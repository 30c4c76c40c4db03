"""The recipes take the tuned settings of a tuned-recipes file (gym-suite/analyses/tune_recipe.py writes it)."""

from __future__ import annotations

import json

import pytest

from gym_suite.training import recipes
from gym_suite.training.jax import ppo_settings


def write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")


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
    entries = {
        "sb3-ppo": {"settings": {"learning_rate": 1e-4, "ent_coef": 0.01}, "tuned": {"date": "2026-11-26"}},
        "jax-ppo": {"settings": {"num_epochs": 5}, "tuned": {"date": "2026-11-27"}},
        "rllib-ppo": {"settings": {"lr": 5e-5}},
    }
    write(tuned_file, {"push-v1": entries})
    sb3 = recipes.sb3_settings("push-v1", "ppo")
    assert sb3["learning_rate"] == 1e-4 and sb3["ent_coef"] == 0.01
    assert sb3["gamma"] == 1.0  # the recipe's own setting stays where the file says nothing
    assert recipes.recipe_for("push-v1").eval_env_kwargs == {"split": "test"}
    assert recipes.rllib_ppo_settings("push-v1")["lr"] == 5e-5
    jax = ppo_settings("push-v1")
    assert jax["num_epochs"] == 5 and jax["gamma"] == 1.0
    assert ppo_settings("push-v1", num_epochs=3)["num_epochs"] == 3  # the caller's overrides still win
    assert recipes.sb3_settings("push-v0", "ppo") == recipes.SB3_PPO_DEFAULTS  # other ids untouched
    assert recipes.tuned_entry("push-v1", "sb3-ppo") == {"push-v1": {"sb3-ppo": entries["sb3-ppo"]}}
    assert recipes.tuned_entry("push-v0", "sb3-ppo") == {}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[1, 2]", "expected an object of ids"),
        ('{"push-v1": {"dqn": {"settings": {}}}}', "must map agents among"),
        ('{"push-v1": {"sb3-ppo": {"learning_rate": 1e-4}}}', "must map agents among"),
        ("{", "not a readable JSON file"),
        ('{"example-v0": {"jax-ppo": {"settings": {"learning_rat": 1e-4}}}}', "learning_rat"),
    ],
    ids=["not-an-object", "unknown-agent", "no-settings", "not-json", "unknown-jax-setting"],
)
def test_a_malformed_file_is_a_value_error_naming_it(tuned_file, text, said):
    tuned_file.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=f"tuned recipes .*tuned.json.*{said}"):
        recipes.recipe_for("push-v1")
    with pytest.raises(ValueError, match=said):
        ppo_settings("example-v0")


@pytest.mark.parametrize(
    ("agent", "settings", "said"),
    [
        ("sb3-ppo", {"gamma": 2.0}, "gamma must be a number in"),
        ("sb3-ppo", {"n_steps": "64"}, "n_steps must be an integer"),
        ("sb3-ppo", {"n_steps": True}, "n_steps must be an integer"),
        ("sb3-ppo", {"learning_rate": float("nan")}, "learning_rate must be a number"),
        ("sb3-ppo", {"policy_kwargs": {"net_arch": [64, -1]}}, "policy_kwargs must be"),
        ("sb3-ppo", {"bogus": 1}, "unknown setting"),
        ("sb3-dqn", {"exploration_fraction": 1.5}, "exploration_fraction must be"),
        ("rllib-ppo", {"lambda_": -0.1}, "lambda_ must be"),
        ("jax-ppo", {"env_kwargs": {"split": "test"}}, "may not set \\['split'\\]"),
        ("jax-ppo", {"n_steps": 8}, "unknown setting"),
    ],
)
def test_every_setting_of_the_file_is_checked_by_name_naming_the_file(tuned_file, agent, settings, said):
    write(tuned_file, {"push-v0": {agent: {"settings": settings, "tuned": {}}}})
    with pytest.raises(ValueError, match=f"tuned recipes .*tuned.json.*push-v0 {agent}.*{said}"):
        recipes.read_tuned_recipes()


@pytest.mark.parametrize(("settings", "said"), [({"gamma": 2.0}, "gamma"), ({"num_envs": "8"}, "num_envs")])
def test_jax_settings_of_the_file_are_checked_by_value_before_training(tuned_file, settings, said):
    write(tuned_file, {"push-v0": {"jax-ppo": {"settings": settings, "tuned": {}}}})
    with pytest.raises((TypeError, ValueError), match=said):
        ppo_settings("push-v0")


def test_the_recipes_know_jax_ppos_settings_and_the_push_logs_arguments_by_name():
    from gym_suite.envs.push_env import LOG_ARGUMENTS
    from gym_suite.training.jax import SETTING_RULES

    assert set(recipes.JAX_PPO_SETTINGS) == set(SETTING_RULES)
    assert set(recipes.DATA_ARGUMENTS) == set(LOG_ARGUMENTS)


def test_a_deeply_nested_file_is_a_value_error_not_a_recursion_error(tuned_file):
    tuned_file.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ValueError, match="tuned recipes .*tuned.json.*nested"):
        recipes.read_tuned_recipes()
    write(tuned_file, {"push-v0": {"sb3-ppo": {"settings": {"policy_kwargs": {"a": {"b": {"c": [[[[1]]]] * 1}}}}}}})
    recipes.read_tuned_recipes()  # a few levels are fine
    nested: dict = {}
    for _ in range(40):
        nested = {"x": nested}
    write(tuned_file, {"push-v0": {"sb3-ppo": {"settings": {"policy_kwargs": nested}}}})
    with pytest.raises(ValueError, match="nested more than"):
        recipes.read_tuned_recipes()


def test_given_tuned_recipes_replace_the_file_and_the_variable(tuned_file):
    write(tuned_file, {"push-v1": {"sb3-ppo": {"settings": {"n_steps": 64}, "tuned": {}}}})
    given = {"push-v1": {"sb3-ppo": {"settings": {"n_steps": 128}, "tuned": {}}}}
    with recipes.given_tuned_recipes(given):
        assert recipes.sb3_settings("push-v1", "ppo")["n_steps"] == 128
        with recipes.given_tuned_recipes({}):  # none at all: the recipe's own
            assert recipes.sb3_settings("push-v1", "ppo")["n_steps"] == recipes.SB3_PPO_DEFAULTS["n_steps"]
        assert recipes.read_tuned_recipes(tuned_file)["push-v1"]["sb3-ppo"]["settings"] == {"n_steps": 64}
    assert recipes.sb3_settings("push-v1", "ppo")["n_steps"] == 64  # the file again after the block
    with pytest.raises(ValueError, match="the given tuned recipes"), recipes.given_tuned_recipes({"push-v1": 5}):
        pass


@pytest.mark.parametrize(
    ("address", "error", "said"),
    [
        (5, TypeError, "address must be a string"),
        ("nonsense", ValueError, "HOST:PORT"),
        ("127.0.0.1:1", ConnectionError, "no Ray cluster answers at '127.0.0.1:1'"),
    ],
)
def test_connect_ray_names_an_address_it_cannot_join(address, error, said):
    pytest.importorskip("ray")
    from gym_suite.training import connect_ray

    with pytest.raises(error, match=said):
        connect_ray(address, timeout=5)
