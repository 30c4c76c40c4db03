"""Behaviour of heartpole-v0: the rules against the tutorial's code, heart attacks, numerics, pictures."""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings

import gymnasium
import numpy as np
import pytest

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs import HeartPoleEnv, HeartPoleVectorEnv
from gym_suite.envs.definition import NUMPY, SCALAR
from gym_suite.envs.heartpole_env import HEARTPOLE, STATE_NAMES, V0, HeartPoleState, heuristic_actions

ENV_ID = "gym_suite:heartpole-v0"
NOTHING, COFFEE, BEER, SLEEP = 0, 1, 2, 3


def heartpole_step(state, action, u, proclivity=0.5, ops=SCALAR, params=V0):
    """``(state, reward, heart_attack, productivity, heart_attack_probability)`` of the rules' step."""
    params = dataclasses.replace(params, heart_attack_proclivity=float(np.asarray(proclivity)))
    full = HeartPoleState(*state, -1, False, 0.0, 0.0)
    nxt = HEARTPOLE.transition(full, action, u, params, ops)
    reward = HEARTPOLE.reward(full, action, nxt, params, ops)
    return tuple(nxt[:6]), reward, nxt.heart_attack, nxt.productivity, nxt.heart_attack_probability


def _sigmoid(x):
    return 1 / (1 + math.exp(-x))


def _half_hour_passed(s):
    s["alertness"] -= _sigmoid((s["time_since_slept"] - 40) / 10)
    s["hypertension"] = 0.97 * s["hypertension"]
    s["intoxication"] = 0.97 * s["intoxication"]
    s["time_since_slept"] += 1
    s["time_elapsed"] += 1


def tutorial_step(state, action, u, proclivity=0.5):
    """heartpole 1.2's step (the tutorial's code), its draws U(a, b) = a + (b - a) * u."""
    s = dict(zip(STATE_NAMES, state))
    old_score = 0 if s["time_elapsed"] == 0 else s["work_done"] / s["time_elapsed"]
    if action == COFFEE:
        s["alertness"] += u[0]
        s["hypertension"] += 0.3 * u[1]
    elif action == BEER:
        s["alertness"] -= 0.5 * u[0]
        s["hypertension"] += 0.3 * u[1]
        s["intoxication"] += 0.01 + 0.02 * u[2]
    elif action == SLEEP:
        for _ in range(16):
            _half_hour_passed(s)
        s["alertness"] = 0.7 + 0.6 * u[3]
        s["time_since_slept"] = 0
    a, x = s["alertness"], s["intoxication"]
    ballmer = _sigmoid((0.05 - x) * 50) + 2 * math.exp(-((x - 0.135) ** 2) / (2 * 0.005**2))
    productivity = a * (1 - _sigmoid(a - 3)) * ballmer
    s["work_done"] += productivity
    _half_hour_passed(s)
    reward = s["work_done"] / s["time_elapsed"] - old_score
    attack = u[4] < proclivity * _sigmoid(s["hypertension"] - 6)
    if attack:
        reward -= 100
        s["hypertension"] = 0
    return tuple(s[name] for name in STATE_NAMES), reward, attack, productivity


def _random_state(rng):
    return (rng.uniform(-3, 4), rng.uniform(0, 9), rng.choice([0.0, rng.uniform(0, 0.3), 0.135 + rng.uniform(-0.01, 0.01)]),
            float(rng.integers(0, 80)), float(rng.integers(1, 500)), rng.uniform(-50, 300))  # fmt: skip


@pytest.mark.parametrize("action", [NOTHING, COFFEE, BEER, SLEEP])
def test_every_action_matches_the_tutorial(action):
    """Sleep's closed form too: sixteen half-hours, then one of work; ``info``'s probability is the drawn chance."""
    rng = np.random.default_rng(2 + action if action != SLEEP else 1)
    attacks = 0
    for _ in range(300):
        state, u = _random_state(rng), rng.random(5).tolist()
        got = heartpole_step(state, action, u, 0.5, SCALAR)
        want = tutorial_step(state, action, u)
        assert got[2] == want[2] == (u[4] < got[4]) and 0.0 <= got[4] <= 0.5
        assert (*got[0], *got[1::2]) == pytest.approx((*want[0], want[1], want[3]), rel=1e-12, abs=1e-12)
        attacks += got[2]
        if action == SLEEP:
            assert got[0][3] == 1.0 and got[0][4] == state[4] + 17.0  # woke up, then worked a half-hour
    assert attacks > 0 or action == SLEEP  # the random states include high blood pressure


def test_scalar_episode_follows_the_tutorial_with_the_same_draws():
    env = gymnasium.make(ENV_ID)
    obs, _ = env.reset(seed=7)
    draws = copy.deepcopy(env.unwrapped.np_random)  # the stream the env will use, 5 per step
    state = (0.0,) * 6
    actions = np.random.default_rng(7).integers(0, 4, 600).tolist()
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        state, ref_reward, ref_attack, _ = tutorial_step(state, action, draws.random(5).tolist())
        assert reward == pytest.approx(ref_reward, rel=1e-9, abs=1e-9)
        assert info["heart_attack"] == ref_attack
        assert obs == pytest.approx(np.array(state, dtype=np.float32), rel=1e-6, abs=1e-6)


def test_array_rules_do_not_depend_on_the_batch_size():
    # big batches take another path through the sigmoids: the same values
    rng = np.random.default_rng(12)
    n = 3000
    state = tuple(np.array(column) for column in zip(*(_random_state(rng) for _ in range(n))))
    action, uniforms, proclivity = rng.integers(0, 4, n), rng.random((5, n)), np.asarray(0.5)
    big = heartpole_step(state, action, uniforms, proclivity, NUMPY)
    for start in range(0, n, 64):
        rows = slice(start, start + 64)
        small = heartpole_step(tuple(q[rows] for q in state), action[rows], uniforms[:, rows], proclivity, NUMPY)
        for got, want in zip((*small[0], *small[1:]), (*big[0], *big[1:])):
            np.testing.assert_array_equal(got, want[rows])


@pytest.mark.parametrize("action, proclivity", [(COFFEE, 0.5), (COFFEE, 0.0), (BEER, 0.5), (NOTHING, 0.5)])
def test_never_sleeping_stays_finite_and_coffee_brings_heart_attacks_unless_proclivity_is_zero(action, proclivity):
    env = gymnasium.make(ENV_ID, heart_attack_proclivity=proclivity)
    envs = gymnasium.make_vec(ENV_ID, num_envs=64, heart_attack_proclivity=proclivity)
    returns, attacks = np.zeros(64), np.zeros(64)
    with warnings.catch_warnings(), np.errstate(over="raise", divide="raise", invalid="raise"):
        warnings.simplefilter("error")  # (underflow of exp(-|x|) to 0 is the sigmoid's correct limit)
        obs, _ = env.reset(seed=3)
        envs.reset(seed=3)
        for _ in range(1000):
            obs, reward, _, _, info = env.step(action)
            v_obs, v_reward, _, truncated, v_info = envs.step(np.full(64, action))
            returns, attacks = returns + v_reward, attacks + v_info["heart_attack"]
            assert math.isfinite(reward) and np.isfinite(v_reward).all()
            assert obs in env.observation_space and v_obs in envs.observation_space
            assert proclivity or (info["heart_attack"] is False and reward > -50 and np.all(v_reward > -50))
    assert truncated.all()  # exactly one whole episode per sub-environment
    assert obs[0] < -300  # alertness went far below zero: the overflow-prone regime was reached
    assert np.isfinite(obs).all() and np.isfinite(v_obs).all()
    if action == COFFEE:  # 100 an attack
        assert (attacks.min() > 0 and np.all(returns < -50)) if proclivity else attacks.max() == 0


def test_info_reports_the_step():
    env = gymnasium.make(ENV_ID)
    env.reset(seed=0)
    for action, name in enumerate(["do_nothing", "drink_coffee", "drink_beer", "sleep"]):
        info = env.step(action)[4]
        assert info["action"] == name
        assert type(info["heart_attack"]) is bool and type(info["productivity"]) is float
    envs = gymnasium.make_vec(ENV_ID, num_envs=4)
    envs.reset(seed=0)
    info = envs.step(np.arange(4))[4]
    assert info["heart_attack"].dtype == bool and info["productivity"].dtype == np.float64
    obs, info = env.reset(seed=4)
    assert info == {} and not obs.any()  # all zeros at a start


def test_arguments():
    assert HeartPoleEnv().heart_attack_proclivity == 0.5
    assert HeartPoleEnv({"heart_attack_proclivity": 0.2}).heart_attack_proclivity == 0.2
    for bad, error in ((1.5, ValueError), (-0.1, ValueError), ("high", TypeError)):
        for make in (HeartPoleEnv, lambda **kw: HeartPoleVectorEnv(2, **kw)):
            with pytest.raises(error, match="heart_attack_proclivity"):
                make(heart_attack_proclivity=bad)


def _first_attack_step(env, seed):
    env.reset(seed=seed)
    for _ in range(1000):
        _, reward, _, _, info = env.step(COFFEE)
        if info["heart_attack"]:
            return reward, info
    raise AssertionError("no heart attack in 1000 cups of coffee")


def test_ansi_log_shows_the_step():
    env = gymnasium.make(ENV_ID, render_mode="ansi")
    env.reset(seed=0)
    env.step(BEER)
    text = env.render()
    assert "drink_beer" in text and "HEART ATTACK" not in text
    for name in STATE_NAMES:
        assert name in text
    reward, info = _first_attack_step(env, seed=0)
    assert reward < -50 and "HEART ATTACK" in env.render()
    env.step(NOTHING)
    assert "HEART ATTACK" not in env.render()  # the log is the last step's, nothing accumulates
    assert not hasattr(env.unwrapped, "log")
    env = gymnasium.make(ENV_ID, render_mode="rgb_array")  # the dashboard's red frame (the rest: test_render)
    env.reset(seed=0)
    env.step(COFFEE)
    assert tuple(env.render()[0, 0]) != (200, 0, 0)
    _first_attack_step(env, seed=1)
    assert tuple(env.render()[0, 0]) == (200, 0, 0)


def test_heuristic_sleeps_when_tired():
    env = HeartPoleEnv()
    assert env.heuristic(np.array([0.1, 0, 0, 5, 5, 0], dtype=np.float32)) == SLEEP  # tired
    assert type(env.heuristic(np.zeros(6, dtype=np.float32))) is int
    obs = np.array([[0.39, 0, 0, 5, 5, 0], [0.41, 9, 0, 5, 5, 0]], dtype=np.float32)
    assert heuristic_actions(obs).tolist() == [SLEEP, NOTHING]  # no drinks, whatever the blood pressure
