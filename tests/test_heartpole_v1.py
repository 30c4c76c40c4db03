"""heartpole-v1: each repair of v0 (horizon, every half-hour's hazard, attack cost), and v0 as it was."""

from __future__ import annotations

import dataclasses
import math

import gymnasium
import numpy as np
import pytest
from test_heartpole import _random_state, _sigmoid, heartpole_step

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs import HeartPoleEnv, HeartPoleV1Env, HeartPoleV1VectorEnv, HeartPoleVectorEnv
from gym_suite.envs.definition import NUMPY, SCALAR
from gym_suite.envs.heartpole_env import V0, V1, heuristic_actions

ENV_ID = "gym_suite:heartpole-v1"
NOTHING, COFFEE, BEER, SLEEP = 0, 1, 2, 3
HORIZON = 672.0
ALERTNESS, HYPERTENSION, TIME_ELAPSED = 0, 1, 4


def _sleep_attack_probability(hypertension, proclivity=0.5):
    """1 - prod over the 17 half-hours of a sleep step of (1 - p_h), hypertension x 0.97 each."""
    survival = 1.0
    for half_hour in range(1, 18):
        survival *= 1 - proclivity * _sigmoid(hypertension * 0.97**half_hour - 6)
    return 1 - survival


def test_a_sleep_steps_attack_probability_covers_its_17_half_hours():
    rng = np.random.default_rng(1)
    states = [_random_state(rng) for _ in range(300)]
    for state in states:
        u = rng.random(5).tolist()
        _, reward, attack, productivity, p = heartpole_step(state, SLEEP, u, 0.5, SCALAR, V1)
        want = _sleep_attack_probability(state[HYPERTENSION])
        assert p == pytest.approx(want, rel=1e-12, abs=1e-15)
        assert attack == (u[4] < p)
        assert reward == pytest.approx(productivity - 100 * want, rel=1e-12, abs=1e-12)
        # an awake step has the one chance of its half-hour of work
        _, _, _, _, p_awake = heartpole_step(state, NOTHING, u, 0.5, SCALAR, V1)
        assert p_awake == pytest.approx(0.5 * _sigmoid(state[HYPERTENSION] * 0.97 - 6), rel=1e-12)
    # the array rules give the same probabilities (only the sleeping rows pay for the night)
    columns = tuple(np.array(q) for q in zip(*states))
    actions = rng.integers(0, 4, len(states))
    uniforms = rng.random((5, len(states)))
    _, _, _, _, p = heartpole_step(columns, actions, uniforms, np.asarray(0.5), NUMPY, V1)
    sleeping = actions == SLEEP
    want = [_sleep_attack_probability(h) for h in columns[HYPERTENSION][sleeping]]
    np.testing.assert_allclose(p[sleeping], want, rtol=1e-12)
    awake = (columns[HYPERTENSION] + 0.3 * uniforms[1] * ((actions == COFFEE) | (actions == BEER))) * 0.97
    np.testing.assert_allclose(p[~sleeping], 0.5 / (1 + np.exp(6 - awake[~sleeping])), rtol=1e-12)
    # the env: a night at rest carries 17 times (nearly) the risk of a half-hour of work
    env = gymnasium.make(ENV_ID)
    env.reset(seed=0)
    info = env.step(SLEEP)[4]
    assert info["heart_attack_probability"] == pytest.approx(1 - (1 - 0.5 * _sigmoid(-6)) ** 17, rel=1e-12)
    assert info["heart_attack_probability"] > 16 * 0.5 * _sigmoid(-6)


POLICIES = {
    "always sleep": lambda rng, obs: SLEEP,
    "never sleep": lambda rng, obs: NOTHING,
    "always coffee": lambda rng, obs: COFFEE,
    "random": lambda rng, obs: int(rng.integers(4)),
    "heuristic": lambda rng, obs: int(heuristic_actions(obs)),
}


@pytest.mark.parametrize("policy", list(POLICIES))
def test_the_episode_ends_when_two_weeks_have_passed(policy):
    env = gymnasium.make(ENV_ID)
    assert env.spec.max_episode_steps is None  # no step limit: the env ends the episode itself
    rng = np.random.default_rng(4)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        steps = 0
        while True:
            before = float(obs[TIME_ELAPSED])
            obs, _, terminated, truncated, _ = env.step(POLICIES[policy](rng, obs))
            steps += 1
            assert not terminated
            assert truncated == (obs[TIME_ELAPSED] >= HORIZON)
            if truncated:
                break
            assert steps < 1000
        assert before < HORIZON <= obs[TIME_ELAPSED] <= before + 17  # the step that crossed it, to its end
    if policy == "always sleep":
        assert steps == 40  # 39 sleeps reach 663, the 40th ends at 680
    if policy == "never sleep":
        assert steps == 672


def test_vector_rows_end_at_two_weeks_and_restart():
    n = 64
    envs = gymnasium.make_vec(ENV_ID, num_envs=n)
    assert isinstance(envs, HeartPoleV1VectorEnv) and envs.max_episode_steps is None
    obs, _ = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    kind = np.arange(n) % 4  # always sleep, never sleep, random, heuristic
    ended = np.zeros(n, dtype=int)
    for _ in range(1500):
        actions = np.select(
            [kind == 0, kind == 1, kind == 2], [SLEEP, NOTHING, rng.integers(0, 4, n)], heuristic_actions(obs)
        )
        before = obs[:, TIME_ELAPSED].copy()
        restarting = before >= HORIZON
        obs, reward, terminated, truncated, _ = envs.step(actions)
        assert not terminated.any()
        np.testing.assert_array_equal(truncated, ~restarting & (obs[:, TIME_ELAPSED] >= HORIZON))
        assert not obs[restarting].any() and not reward[restarting].any()  # next-step autoreset
        ended += truncated
    assert (ended >= 2).all()  # every policy ended at least two episodes


def test_hypertension_is_not_reset_by_a_heart_attack():
    rng = np.random.default_rng(6)
    for _ in range(200):
        state = _random_state(rng)
        u = rng.random(5).tolist()
        u[4] = 0.0  # the attack strikes
        action = int(rng.integers(0, 4))
        new, _, attack, _, _ = heartpole_step(state, action, u, 0.5, SCALAR, V1)
        old, _, old_attack, _, _ = heartpole_step(state, action, u, 0.5, SCALAR, V0)
        drink = 0.3 * u[1] if action in (COFFEE, BEER) else 0.0
        decay = 0.97 ** (17 if action == SLEEP else 1)
        assert attack and old_attack
        assert new[HYPERTENSION] == pytest.approx((state[HYPERTENSION] + drink) * decay, rel=1e-12)
        assert old[HYPERTENSION] == 0.0  # v0: "painful, but cleansing"
    # in the env: coffee after coffee, hypertension keeps its level through every attack
    env = gymnasium.make(ENV_ID)
    obs, _ = env.reset(seed=6)
    attacks = 0
    for _ in range(300):
        before = float(obs[HYPERTENSION])
        obs, _, _, _, info = env.step(COFFEE)
        assert obs[HYPERTENSION] >= 0.97 * before * (1 - 1e-6)
        attacks += info["heart_attack"]
    assert attacks >= 3


def test_the_reward_is_the_work_less_the_attacks_cost():
    env = gymnasium.make(ENV_ID)
    drawn = gymnasium.make(ENV_ID, expected_cost=False)
    rng = np.random.default_rng(8)
    for seed in range(3):
        env.reset(seed=seed)
        drawn.reset(seed=seed)
        for _ in range(int(HORIZON)):
            action = int(rng.integers(4))
            obs, reward, _, truncated, info = env.step(action)
            obs_d, reward_d, _, truncated_d, info_d = drawn.step(action)
            np.testing.assert_array_equal(obs, obs_d)  # the cost charged changes nothing else
            assert info_d["heart_attack"] == info["heart_attack"] and truncated_d == truncated
            assert reward == pytest.approx(info["productivity"] - 100 * info["heart_attack_probability"], abs=1e-12)
            assert reward_d == pytest.approx(info["productivity"] - 100 * info["heart_attack"], abs=1e-12)
            if truncated:
                break
        assert truncated


def test_v0_is_unchanged():
    rng = np.random.default_rng(10)
    for _ in range(300):
        state, u, action = _random_state(rng), rng.random(5).tolist(), int(rng.integers(4))
        default = heartpole_step(state, action, u, 0.5, SCALAR)
        assert default == heartpole_step(state, action, u, 0.5, SCALAR, V0)
    assert HeartPoleEnv.base_params is V0 and math.isinf(V0.time_horizon)
    assert gymnasium.spec("heartpole-v0").max_episode_steps == 1000
    # a seeded episode and batch give the returns they gave before v1 existed
    env = HeartPoleEnv()
    env.reset(seed=2024)
    rng = np.random.default_rng(2024)
    total, attacks = 0.0, 0
    for action in rng.choice(4, size=1000, p=[0.4, 0.3, 0.1, 0.2]).tolist():
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        attacks += info["heart_attack"]
        assert not terminated and not truncated
    # (the same to a few units in the last place: the sigmoid is now (1 + tanh(x / 2)) / 2)
    assert total == pytest.approx(-99.80774204220552, rel=1e-9) and attacks == 1
    np.testing.assert_allclose(
        obs, [1.2265211343765259, 0.20635490119457245, 0.0003703627735376358, 3.0, 4520.0, 869.0059814453125], rtol=1e-6
    )
    envs = HeartPoleVectorEnv(64)
    envs.reset(seed=7)
    totals = np.zeros(64)
    for _ in range(1000):
        totals += envs.step(rng.integers(0, 4, 64))[1]
    assert float(totals.sum()) == pytest.approx(-15292.421409295608, rel=1e-9)


def test_v1_arguments_and_rules():
    drawn_cost = dataclasses.replace(V1, expected_cost=False)
    assert HeartPoleV1Env().params == V1
    assert HeartPoleV1Env(expected_cost=False).params == drawn_cost
    assert HeartPoleV1VectorEnv(2, expected_cost=False).params == drawn_cost
    with pytest.raises(TypeError, match="expected_cost"):
        HeartPoleV1Env(expected_cost="yes")
    with pytest.raises(TypeError, match="allowed arguments"):
        HeartPoleEnv(time_horizon=10.0)  # a parameter of the version, not an argument
    assert HeartPoleEnv(expected_cost=True).params.expected_cost  # v0 can train on the expected cost
    assert HeartPoleV1Env().heuristic(np.array([0.3, 0, 0, 5, 5, 0], dtype=np.float32)) == SLEEP
