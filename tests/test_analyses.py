"""The reference policies (gym_suite.references) and the exact optima of gym-suite/analyses/optima.py."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from gym_suite.evaluate import evaluate
from gym_suite.references import heartpole_optimum, push_supervised
from gym_suite.references import heartpole_v1_reference as reference

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gym-suite" / "analyses"))
import optima  # noqa: E402  (the repository's script)

COARSE = 0.5  # a coarse grid: a solve of a few seconds


def _beats(a, b) -> bool:
    diff, se = a.paired_difference(b)
    return diff > 2 * se


@pytest.mark.parametrize("env_id", ["heartpole-v0", "heartpole-v1"])
def test_dp_models_are_probability_distributions(env_id):
    models = heartpole_optimum.build_models(heartpole_optimum.ENV_PARAMS[env_id], heartpole_optimum.Grid(COARSE))
    for action, model in models.items():
        rows = np.asarray(model.matrix.sum(axis=1)).ravel()
        np.testing.assert_allclose(rows, 1.0, atol=1e-9, err_msg=f"action {action}")
        assert model.matrix.min() >= 0.0


def test_dp_policy_beats_the_heuristic_on_heartpole_v1():
    policy = heartpole_optimum.optimal_policy("heartpole-v1", COARSE)
    dp = evaluate("heartpole-v1", policy, episodes=50, seed=0)
    heuristic = evaluate("heartpole-v1", "heuristic", episodes=50, seed=0)
    assert _beats(dp, heuristic), (dp.mean, heuristic.mean)
    # the coarse DP's own prediction is near what it plays (the grid costs a few units at 0.5)
    assert abs(policy.solution.value - dp.mean) < 0.05 * abs(dp.mean), (policy.solution.value, dp.mean)


def test_dp_policy_plays_a_v0_episode_from_its_start():
    policy = heartpole_optimum.optimal_policy("heartpole-v0", COARSE)
    assert not hasattr(policy, "act_batch")  # it counts its steps: one episode at a time
    assert (evaluate("heartpole-v0", policy, episodes=2, seed=0).lengths == 1000).all()


def test_example_optimum_is_what_the_heuristic_plays():
    assert optima.optimum("example-v0") == 8.5
    result = evaluate("example-v0", "heuristic", episodes=1000, seed=0)
    se = result.returns.std(ddof=1) / math.sqrt(len(result.returns))
    assert abs(result.mean - 8.5) < 2 * se, (result.mean, se)
    assert optima.example_optimum(lf_min=0, rt_max=4) == pytest.approx(np.mean([11 - 2, 11 - 1, 11 - 1]))


def test_target_heuristic_reaches_the_optimum_every_episode():
    assert (evaluate("target-v0", "heuristic", episodes=200, seed=0).returns == optima.optimum("target-v0")).all()


@pytest.mark.slow  # scikit-learn comes with the baselines extra, which the slow-test command installs
def test_supervised_push_policy_beats_random_and_bayes_beats_it():
    kwargs = {"episodes": 50, "seed": 0, "env_kwargs": {"split": "test"}}
    logistic = evaluate("push-v0", push_supervised.supervised_policy("logistic"), **kwargs)
    random = evaluate("push-v0", "random", **kwargs)
    bayes = evaluate("push-v0", push_supervised.bayes_policy("test"), **kwargs)
    assert _beats(logistic, random) and _beats(bayes, logistic)


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: heartpole_optimum.optimal_policy("example-v0"), "heartpole-v1"),
        (lambda: optima.optimum("heartpole-v1"), "example-v0"),
        (lambda: push_supervised.fit("forest"), "logistic"),
        (lambda: push_supervised.bayes_policy("validation"), "split"),
    ],
)
def test_what_is_not_known_is_a_value_error_naming_what_is(call, named):
    with pytest.raises(ValueError, match=named):
        call()


def test_time_aware_policy_plays_the_envs_episodes():
    reference.check_against_the_env(reference.time_aware_policy(*reference.BEST_TIME_AWARE), np.arange(3))


def test_best_known_policy_acts_on_one_observation_as_on_a_batch():
    rule = reference.time_aware_policy(*reference.BEST_TIME_AWARE)
    act = reference.best_known_policy()
    rng = np.random.default_rng(0)
    # alertness, hypertension, intoxication, time_since_slept, time_elapsed, work_done
    columns = [rng.uniform(-0.5, 2.5, 200), rng.uniform(0, 3, 200), np.zeros(200), rng.integers(0, 60, 200),
               rng.integers(0, 672, 200), rng.uniform(0, 400, 200)]  # fmt: skip
    batch = np.column_stack(columns).astype(np.float32)
    assert [act(obs) for obs in batch] == rule(batch).tolist()
    assert len(set(rule(batch).tolist())) == 3  # sleeps, drinks coffee and does nothing on these


def test_best_known_policy_beats_the_previous_one_on_evaluation_episodes():
    # searched on seeds 10,000 ..: scored here on evaluation seeds it never saw, paired
    seeds = np.arange(200)
    uniforms = reference.episode_uniforms(seeds)
    new = reference.play(reference.time_aware_policy(*reference.BEST_TIME_AWARE), seeds, uniforms)["return"]
    old = reference.play(reference.threshold_policy(*reference.BEST_THRESHOLDS), seeds, uniforms)["return"]
    diff = new - old
    assert diff.mean() > 5 * diff.std(ddof=1) / np.sqrt(len(diff)), (new.mean(), old.mean())
    optimum_v1 = 460.03  # the 0.07-grid DP policy on evaluation seeds 0-999 (heartpole_optimum.py): not beaten by much
    assert new.mean() < optimum_v1 + 5, new.mean()


def test_search_family_finds_a_better_policy_on_its_own_seeds():
    seeds = np.arange(reference.SEARCH_SEED, reference.SEARCH_SEED + 20)
    start = reference.TIME_AWARE_START
    family = (reference.time_aware_policy, reference.TIME_AWARE_RANGES, start, seeds)
    best, score, scored = reference.search_family(*family, candidates=3, rounds=1)
    start_score = reference.play(reference.time_aware_policy(*start), seeds)["return"].mean()
    assert score >= start_score and scored > 3
    assert isinstance(best[1], int) and isinstance(best[2], int)  # counts of half-hours stay integers
