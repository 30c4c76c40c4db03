"""example-v1, the partly observed hot/cold walk: its belief optimum and its best memoryless policy."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

import gym_suite
from gym_suite.envs import check_definition
from gym_suite.envs.definition import NUMPY, SCALAR
from gym_suite.envs.example_env import (
    EXAMPLE_V1,
    OBS_START,
    OBSERVATION_NAMES,
    REWARD_GOAL,
    REWARD_STEP_V1,
    V1,
)
from gym_suite.references import example_v1_optimum as opt
from gym_suite.references import reference_policy, references

ENV_ID = "example-v1"
TUNING_SEED = 100_000  # never the table's evaluation episodes 0 .. 999


def test_the_registered_step_limit_is_the_optimums_horizon():
    assert gymnasium.spec(ENV_ID).max_episode_steps == opt.registered_horizon() == 24  # twice the line's length
    assert opt.solve().horizon == opt.registered_horizon()


def test_the_observation_hides_the_position_and_tells_the_move():
    env = gymnasium.make(f"gym_suite:{ENV_ID}")
    obs, info = env.reset(seed=3)
    assert obs == OBS_START and env.observation_space.n == len(OBSERVATION_NAMES)
    position = env.unwrapped.state.position
    for action in (0, 1, 1, 0):
        obs, reward, terminated, truncated, info = env.step(action)
        move, _ = divmod(int(obs) - 1, 2)
        assert move == action  # the move is shown, not where it led
        assert reward == (REWARD_GOAL if terminated else REWARD_STEP_V1)  # the reward tells nothing more
        position = env.unwrapped.state.position
        if terminated:
            break
    assert info["dist"] == V1.goal - position
    env.close()


@pytest.mark.parametrize("flip", [0.0, V1.flip_probability])
def test_noise_flips_the_stated_share_of_signals(flip):
    """Without noise the signal is the truth; with it, the stated share is heard the wrong way round."""
    env = gymnasium.make(f"gym_suite:{ENV_ID}", flip_probability=flip)
    flips = heard = 0
    for seed in range(TUNING_SEED, TUNING_SEED + 400):
        env.reset(seed=seed)
        for _ in range(6):
            before = env.unwrapped.state.position
            obs, _, terminated, truncated, _ = env.step(int(env.action_space.sample()))
            if terminated:
                break
            warmer = abs(V1.goal - env.unwrapped.state.position) < abs(V1.goal - before)
            flips += (int(obs) - 1) % 2 != int(warmer)
            heard += 1
    share, se = flips / heard, math.sqrt(flip * (1 - flip) / heard)
    assert abs(share - flip) <= 5 * se
    env.close()


@pytest.mark.parametrize("flip", [0.0, 0.5])
def test_check_definition_at_the_noise_bounds(flip):
    params = EXAMPLE_V1.make_params(V1, "test", flip_probability=flip)
    check_definition(EXAMPLE_V1, params)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"flip_probability": 0.6}, ValueError, r"flip_probability must be a finite number in \[0.0, 0.5\]"),
        ({"flip_probability": "0.1"}, TypeError, "flip_probability must be a number"),
        ({"rt_max": 2}, ValueError, "rt_max"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        gymnasium.make(f"gym_suite:{ENV_ID}", **kwargs)


def test_the_heuristic_is_memoryless_and_the_best_such_map():
    for observation in range(len(OBSERVATION_NAMES)):  # a function of the observation alone
        assert EXAMPLE_V1.heuristic(observation, V1, SCALAR) == opt.HEURISTIC_MAP[observation]
    batch = np.arange(len(OBSERVATION_NAMES))
    assert EXAMPLE_V1.heuristic(batch, V1, NUMPY).tolist() == list(opt.HEURISTIC_MAP)
    maps = opt.memoryless_values()
    assert len(maps) == 2 ** len(OBSERVATION_NAMES)
    assert maps[opt.HEURISTIC_MAP] == pytest.approx(max(maps.values()), abs=1e-12)


def test_memory_pays_only_with_noise():
    exact = opt.exact_values()
    assert exact["random"] < exact["heuristic"] < exact["optimum"]
    normalized = (exact["best memoryless"] - exact["random"]) / (exact["optimum"] - exact["random"])
    assert normalized <= 0.9  # the benchmark's criterion for memoryless agents
    noiseless = EXAMPLE_V1.make_params(V1, "test", flip_probability=0.0)
    clean = opt.exact_values(noiseless, 24)
    assert clean["heuristic"] == pytest.approx(clean["optimum"], abs=1e-9)  # nothing to remember


def test_the_optimum_plays_what_it_computes():
    """The belief DP's and the memoryless policies' exact values are their played means (4 standard errors)."""
    exact = opt.exact_values()
    episodes = 3000
    for policy, expected in (
        (opt.optimal_policy(), exact["optimum"]),
        ("heuristic", exact["heuristic"]),
        ("random", exact["random"]),
    ):
        played = gym_suite.evaluate(ENV_ID, policy, episodes=episodes, seed=TUNING_SEED)
        assert abs(played.mean - expected) < 4 * played.std / math.sqrt(episodes), policy


def test_the_optimum_is_a_reference_of_the_table():
    assert sorted(references(ENV_ID)) == ["optimum"]
    policy = reference_policy(ENV_ID, "optimum")
    assert isinstance(policy, opt.OptimalPolicy)
    with pytest.raises(ValueError, match="observation must be in 0..4"):
        policy(7)
    policy.reset()
    with pytest.raises(ValueError, match="first observation of an episode must be the start"):
        policy(2)


def test_evaluate_resets_a_policy_with_memory_before_each_episode():
    resets = []
    policy = type("Counting", (), {"reset": lambda self: resets.append(1), "__call__": lambda self, obs: 0})()
    gym_suite.evaluate(ENV_ID, policy, episodes=7, seed=0)
    assert len(resets) == 7


@pytest.mark.slow
def test_recurrent_ppo_learns_beyond_random():
    """16,384 steps of RecurrentPPO beat random, paired on the same tuning episodes."""
    pytest.importorskip("sb3_contrib")
    from gym_suite.training.sb3_recurrent import RecurrentPolicy, train_recurrent_ppo

    model = train_recurrent_ppo(ENV_ID, 16_384, seed=1)
    trained = gym_suite.evaluate(ENV_ID, RecurrentPolicy(model), episodes=300, seed=TUNING_SEED)
    random = gym_suite.evaluate(ENV_ID, "random", episodes=300, seed=TUNING_SEED)
    gain, se = trained.paired_difference(random)
    assert gain > 5 * se
