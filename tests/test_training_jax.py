"""PPO compiled end to end on the JAX environments (gym_suite.training.jax): a short training beats
the random policy on the numpy env, and bad settings fail before anything compiles."""

from __future__ import annotations

import pickle

import gymnasium
import numpy as np
import pytest

import gym_suite
from gym_suite.training.jax import PPO_DEFAULTS, _make_adapters, _schedule, ppo_budget, ppo_settings, train_ppo

EPISODES = 300


@pytest.fixture(scope="module")
def example_run():
    pytest.importorskip("rejax")
    return train_ppo("example-v0", seed=0, num_seeds=2, total_timesteps=20_000, progress=False)


def test_short_training_beats_random_on_the_numpy_env(example_run):
    random = gym_suite.evaluate("example-v0", "random", episodes=EPISODES)
    assert len(example_run.policies) == 2
    for policy in example_run.policies:
        trained = gym_suite.evaluate("example-v0", policy, episodes=EPISODES)
        gain, se = trained.paired_difference(random)
        assert gain > 3 * se and gain > 5.0, (trained.mean, random.mean)


def test_the_curve_has_one_row_per_seed_and_starts_at_step_0(example_run):
    result = example_run
    assert result.timesteps == 20_480  # rounded up to whole updates of 4 x 256 steps
    assert result.returns.shape == (2, len(result.steps))
    assert result.steps[0] == 0 and result.steps[-1] == result.timesteps
    assert np.all(np.isfinite(result.returns))
    assert result.returns[:, -1].mean() > result.returns[:, 0].mean()
    assert result.seeds == [0, 1] and result.compile_seconds > 0 and result.train_seconds > 0


def test_a_policy_acts_on_numpy_observations_and_pickles(example_run):
    env = gymnasium.make("example-v0")
    obs, _ = env.reset(seed=3)
    policy = example_run.policy
    action = policy(obs)
    assert env.action_space.contains(action)
    again = pickle.loads(pickle.dumps(policy))
    assert again(obs) == action
    assert policy.act_batch([obs, obs]) == [action, action]


def test_settings_start_from_the_recipe_and_take_overrides():
    settings = ppo_settings("heartpole-v1", learning_rate=1e-4, agent_kwargs={"activation": "relu"})
    assert settings["num_envs"] == 8 and settings["gamma"] == 1.0 and settings["reward_scale"] == 0.01
    assert settings["learning_rate"] == 1e-4
    # the recipe's network size stays under an override of the activation alone
    assert settings["agent_kwargs"] == {"hidden_layer_sizes": (32, 32), "activation": "relu"}
    assert ppo_settings("example-v0")["reward_scale"] == 1.0 and ppo_budget("heartpole-v1") == 1_200_000
    assert PPO_DEFAULTS["agent_kwargs"]["activation"] == "tanh"  # the defaults are left as they were
    assert "expected_penalty" not in ppo_settings("heartpole-v0")  # the env's expected_cost=True instead


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"learning_rat": 1e-3}, "unknown setting"),
        ({"num_envs": 0}, "num_envs must be a positive integer"),
        ({"num_envs": 3, "num_steps": 5, "num_minibatches": 2}, "multiple of num_minibatches"),
        ({"reward_scale": float("nan")}, "reward_scale must be a finite number"),
        ({"agent_kwargs": {"activation": "softsign"}}, "activation must be one of"),
        ({"eval_episodes": -1}, "eval_episodes must be a non-negative integer"),
        ({"expected_penalty": None}, "expected_cost"),
    ],
)
def test_bad_settings_raise_value_error_naming_them(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ppo_settings("example-v0", **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"env_id": "nope-v0"}, "env_id must be one of"),
        ({"env_id": "example-v0", "seed": -1}, "seed must be"),
        ({"env_id": "example-v0", "num_seeds": 0}, "num_seeds must be"),
        ({"env_id": "example-v0", "total_timesteps": 0}, "total_timesteps must be"),
        ({"env_id": "example-v0", "gamma_": 0.9}, "unknown setting"),
    ],
)
def test_train_ppo_checks_its_arguments_before_compiling(kwargs, message):
    env_id = kwargs.pop("env_id")
    with pytest.raises(ValueError, match=message):
        train_ppo(env_id, progress=False, **kwargs)


def test_the_schedule_rounds_the_budget_up_to_whole_updates_as_little_as_it_can():
    eval_freq, evaluations = _schedule(1_500_000, 4096, 20)
    assert eval_freq % 4096 == 0
    assert 1_500_000 <= eval_freq * evaluations < 1_500_000 + 2 * 4096
    assert _schedule(20_000, 1024, 20) == (1024, 20)


def test_heartpole_v0_trains_on_the_envs_expected_cost_and_is_scored_on_its_own_rewards():
    pytest.importorskip("rejax")
    train_env, _, eval_env, _ = _make_adapters("heartpole-v0", ppo_settings("heartpole-v0"))
    assert train_env.env.definition_params.expected_cost  # the recipe's training env argument
    assert not eval_env.env.definition_params.expected_cost  # the env's own rewards: drawn attacks
    settings = ppo_settings("heartpole-v0", env_kwargs={"expected_cost": False})
    assert not _make_adapters("heartpole-v0", settings)[0].env.definition_params.expected_cost


def test_checkpoints_are_the_policies_at_each_evaluation_and_the_curve_has_its_times():
    pytest.importorskip("rejax")
    result = train_ppo(
        "example-v0", num_seeds=2, total_timesteps=4096, eval_points=2, keep_checkpoints=True, progress=False
    )
    assert len(result.checkpoints) == len(result.steps) == 3 and all(len(c) == 2 for c in result.checkpoints)
    env = gymnasium.make("example-v0")
    observations = [env.reset(seed=s)[0] for s in range(11)] + list(range(11))
    for last, final in zip(result.checkpoints[-1], result.policies):
        assert last.act_batch(observations) == final.act_batch(observations)  # the last checkpoint is the end
    assert np.all(np.diff(result.curve_seconds) > 0) and result.curve_seconds[-1] <= result.train_seconds
    quiet = train_ppo("example-v0", total_timesteps=2048, eval_points=2, eval_episodes=0, progress=False)
    assert np.all(np.isnan(quiet.returns)) and quiet.checkpoints is None


def test_the_jax_vs_sb3_benchmark_reports_the_ratios_and_draws_the_curves(tmp_path):
    """The report and the picture of gym-suite/benchmarks/train_jax_vs_sb3.py from a saved run."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "gym-suite" / "benchmarks" / "train_jax_vs_sb3.py"
    spec = importlib.util.spec_from_file_location("train_jax_vs_sb3", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def points(seconds, means):
        return [{"steps": 1000 * i, "seconds": s, "mean": m} for i, (s, m) in enumerate(zip(seconds, means))]

    out = {
        "id": "heartpole-v1",
        "budget": 2000,
        "target": 450.0,
        "seeds": [0, 1],
        "episodes": 1000,
        "curve_episodes": 100,
        "sb3_overrides": {"gamma": 1.0},
        "sb3_truncation_is_terminal": True,
        "load_start": "1.00/1.00/1.00",
        "load_after_training": "1.00/1.00/1.00",
        "load_end": "1.00/1.00/1.00",
        "wall_seconds": 60.0,
        "date": "2026-01-01T00:00:00+0000",
        "machine": "x86_64 (2 cores)",
        "jax": [
            {
                "seed": s,
                "steps": 2000,
                "compile": 10.0,
                "train": 10.0,
                "wall": 20.0,
                "final": (451.0, 10.0),
                "points": points([10.0, 14.0, 20.0], [-50.0, 452.0, 451.0]),
            }
            for s in (0, 1)
        ],
        "sb3": [
            {
                "seed": s,
                "steps": 2000,
                "wall": 200.0,
                "final": (450.5, 11.0),
                "points": points([0.0, 100.0, 200.0], [-50.0, 300.0, 450.5]),
            }
            for s in (0, 1)
        ],
        "jax_vmapped": {
            "seeds": list(range(8)),
            "steps": 2000,
            "compile": 12.0,
            "train": 68.0,
            "wall": 80.0,
            "load": "1.00/1.00/1.00",
            "finals": [449.0, 455.0],
        },
    }
    text = bench.report(out)
    assert "SB3 / JAX = 10.0x" in text  # the whole budget: 200 s against 20 s
    assert "JAX 14.0 s (2/2 seeds), SB3 200.0 s (2/2 seeds): SB3 / JAX = 14.3x" in text  # to the target
    assert "8 JAX seeds in one vmapped run: 80.0 s" in text
    png = tmp_path / "curve.png"
    bench.plot(out, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
