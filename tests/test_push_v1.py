"""push-v1: a user-day of notifications, a daily budget of deliveries, opens drawn with the generator's
probabilities; its online optimum (gym_suite/references/push_v1_optimum.py)."""

# ruff: noqa: F811  (the fixture imported from test_push_log is a test argument)
from __future__ import annotations

import itertools
from pathlib import Path

import gymnasium
import numpy as np
import pandas as pd
import pytest
from gymnasium.error import ResetNeeded
from test_push import play
from test_push_log import train_frame  # noqa: F401  (a fixture)

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs import PushV1Env, PushV1VectorEnv, check_definition
from gym_suite.envs.definition import NUMPY, SCALAR
from gym_suite.envs.push_env import PUSH
from gym_suite.envs.push_v1_env import (
    PUSH_V1,
    RULE_BAR,
    RULE_DROP,
    PushV1State,
    budget_rule,
    rule_points,
    user_days,
)
from gym_suite.evaluate import evaluate
from gym_suite.references import push_v1_optimum, push_v1_rule
from gym_suite.training.recipes import recipe_for

ROOT = Path(__file__).resolve().parents[1]

ENV_ID = "gym_suite:push-v1"


@pytest.mark.parametrize("budget", [1, 2, 3])
def test_budget_is_respected_and_spending_it_ends_the_day(budget):
    env = gymnasium.make(ENV_ID, daily_budget=budget)
    for seed in range(20):
        rewards, infos, observations, _ = play(env, lambda obs: 1, seed)
        days_left = int(observations[0]["notifications_left"][0])
        assert len(rewards) == min(budget, days_left)  # always deliver: the budget ends the day
        assert [i["deliveries"] for i in infos] == list(range(1, len(rewards) + 1))
        assert [float(o["budget_left"][0]) for o in observations] == [budget - k for k in range(len(rewards) + 1)]
        with pytest.raises(ResetNeeded):
            env.step(1)
    for seed in range(20):  # a random policy never delivers more than the budget
        rng = np.random.default_rng(seed)
        _, infos, observations, _ = play(env, lambda obs, rng=rng: int(rng.integers(2)), seed)
        assert infos[-1]["deliveries"] <= budget
        assert sum(i["delivered"] for i in infos) == infos[-1]["deliveries"]
        assert float(observations[-1]["budget_left"][0]) == budget - infos[-1]["deliveries"]


def test_holding_everything_plays_the_whole_user_day_for_nothing():
    env = PushV1Env()
    rewards, infos, observations, _ = play(env, lambda obs: 0, seed=3)
    order, starts, lengths = user_days(env.params.log)
    rows = [i["row"] for i in infos]
    start = int(np.flatnonzero(order == rows[0])[0])
    assert start in set(starts.tolist())
    assert rows == order[start : start + len(rows)].tolist()  # one user's day, in order, each row once
    assert len(rows) == lengths[starts.tolist().index(start)]
    assert rewards == [0.0] * len(rows) and observations[-1]["notifications_left"][0] == 0
    users, days = env.params.log.users[rows], env.params.log.codes[3][rows]  # day_of_week
    assert len(set(users.tolist())) == 1 and len(set(days.tolist())) == 1


def test_user_days_of_the_bundled_logs():
    for split in ("train", "test"):
        env = PushV1Env(split=split)
        _, starts, lengths = user_days(env.params.log)
        assert len(starts) == 336 and lengths.sum() == env.params.log.n_rows  # 8 people x 42 days
        assert 13 <= lengths.min() and lengths.max() <= 46


def test_opens_are_drawn_with_the_generators_probability():
    """400 days of deliveries: the drawn opens are the sum of their p_open within 5 standard errors."""
    env = gymnasium.make(ENV_ID, daily_budget=50, expected_opens=False)
    log = env.unwrapped.params.log
    p, opened = [], []
    for seed in range(400):
        rewards, infos, _, _ = play(env, lambda obs: 1, seed)
        p += [float(log.p_open[i["row"]]) for i in infos]
        opened += [i["opened"] for i in infos]
        assert rewards == [float(i["opened"]) for i in infos]
    p, opened = np.array(p), np.array(opened)
    error = np.sqrt((p * (1 - p)).sum())
    assert abs(opened.sum() - p.sum()) < 5 * error, (opened.sum(), p.sum(), error)
    low, high = p < 0.2, p > 0.8  # the draw follows each notification's own probability
    assert opened[low].mean() < 0.2 < 0.8 < opened[high].mean()
    expected = gymnasium.make(ENV_ID, daily_budget=50)
    rewards, infos, _, _ = play(expected, lambda obs: 1, 7)
    assert rewards == pytest.approx([log.p_open[i["row"]] for i in infos])


def test_expected_and_drawn_rewards_have_the_same_mean():
    drawn = evaluate("push-v1", "heuristic", episodes=400, seed=0, env_kwargs={"expected_opens": False})
    expected = evaluate("push-v1", "heuristic", episodes=400, seed=0)
    difference, error = drawn.paired_difference(expected)
    assert abs(difference) < 5 * error
    assert expected.std < drawn.std


def reference_points(obs, vocabularies) -> int:
    """The heuristic's points, written out from the manual."""
    category, ringer = vocabularies["category"][obs["category"]], vocabularies["ringer_mode"][obs["ringer_mode"]]
    points = 2 * bool(obs["significant_contact"]) + int(obs["priority"][0]) + (obs["num_updates"][0] > 0)
    points += (category in ("msg", "event", "reminder")) - (category in ("promo", "recommendation", "status"))
    return points - 2 * (ringer == "silent")


def test_heuristic_delivers_when_the_points_reach_a_bar_that_falls_as_the_day_runs_out():
    env = PushV1Env()
    vocabularies = env.params.log.vocabularies
    seen = set()
    for seed in range(200):
        obs, _ = env.reset(seed=seed)
        points = reference_points(obs, vocabularies)
        assert rule_points(obs, env.params, SCALAR) == points
        seen.add(points)
        budget, left = float(obs["budget_left"][0]), float(obs["notifications_left"][0])
        assert env.heuristic(obs) == int(points >= RULE_BAR - RULE_DROP * budget / left)
        assert env.heuristic(obs) == budget_rule(obs, env.params, SCALAR, RULE_BAR, RULE_DROP)
        late = {**obs, "notifications_left": np.array([budget], dtype=np.float32)}  # as many left as deliveries
        assert env.heuristic(late) >= env.heuristic(obs)  # the bar only falls
        assert env.heuristic({**obs, "budget_left": np.zeros(1, np.float32)}) == 0
        assert env.heuristic({**late, "budget_left": np.zeros(1, np.float32)}) == 0
        over = {**obs, "notifications_left": np.zeros(1, np.float32)}  # the day's last observation: no division by 0
        assert env.heuristic(over) in (0, 1)
    assert len(seen) >= 8  # the points grade the notifications, not a yes or no
    # a notification of 3 points: held with 2 deliveries for 30 notifications, delivered for 4
    obs["significant_contact"], obs["priority"], obs["num_updates"] = 1, np.float32([1.0]), np.float32([0.0])
    obs["category"], obs["ringer_mode"] = (
        vocabularies["category"].index("social"),
        vocabularies["ringer_mode"].index("normal"),
    )
    assert rule_points(obs, env.params, SCALAR) == 3
    obs["budget_left"] = np.float32([2.0])
    assert [env.heuristic({**obs, "notifications_left": np.float32([n])}) for n in (30, 4)] == [0, 1]


def test_heuristic_is_the_same_on_floats_numpy_and_jax():
    """2,000 observations (every budget and count left, 0 included): the same decisions on every backend."""
    params = PushV1Env(split="test").params
    rng = np.random.default_rng(0)
    n = 2000
    rows = rng.integers(params.log.n_rows, size=n)
    left, budget = rng.integers(0, 47, n), rng.integers(0, 3, n)
    states = PushV1State(rows, rows, rows, left, budget, 0, 0, -1, -1, -1)
    batch = PUSH_V1.observation(states, params, NUMPY)
    vector = PushV1VectorEnv(num_envs=2, split="test")
    actions = np.asarray(vector.heuristic(batch))
    assert actions.tolist() == np.asarray(PUSH_V1.heuristic(batch, params, NUMPY)).tolist()
    env = PushV1Env(split="test")
    states = [
        PushV1State(int(r), int(r), int(r), int(k), int(b), 0, 0, -1, -1, -1) for r, k, b in zip(rows, left, budget)
    ]
    singles = [env.heuristic(PUSH_V1.observation(state, params, SCALAR)) for state in states]
    assert singles == actions.tolist()
    assert 0.05 < actions.mean() < 0.5 and actions[budget == 0].sum() == 0
    jax = pytest.importorskip("jax")
    from gym_suite.envs.definition import jax_ops

    ops = jax_ops()
    jitted = jax.jit(lambda o: PUSH_V1.heuristic(o, params, ops))
    assert np.asarray(jitted({k: jax.numpy.asarray(v) for k, v in batch.items()})).tolist() == singles


@pytest.mark.parametrize("definition", [PUSH, PUSH_V1], ids=["push-v0", "push-v1"])
def test_the_rules_pass_check_definition(definition):
    """Every hook on every backend on the same draws, and odd argument values refused by name."""
    check_definition(definition)


def brute_force_online_value(p_values, budget, left):
    """The best online policy's expected opens by expectimax over every history (not the DP's recursion)."""

    def value(history, b):
        if b == 0 or len(history) == left:
            return 0.0
        outcomes = []
        for p in p_values:
            seen = history + (p,)
            outcomes.append(max(p + value(seen, b - 1), value(seen, b)))
        return float(np.mean(outcomes))

    return value((), budget)


def test_dynamic_program_equals_a_brute_force_on_a_tiny_day():
    p_values = np.array([0.1, 0.35, 0.6, 0.9])
    value, threshold = push_v1_optimum.thresholds(p_values, 3, 5)
    for budget, left in itertools.product(range(4), range(6)):
        assert value[budget, left] == pytest.approx(brute_force_online_value(tuple(p_values), budget, left), abs=1e-12)
    assert np.all(np.diff(threshold[1:, 1:], axis=1) >= -1e-12)  # the bar rises with the notifications left
    # and beats every fixed threshold on the same tiny days (enumerated: 4**5 sequences)
    for bar in (0.0, 0.35, 0.6, 0.9):
        total = 0.0
        for sequence in itertools.product(p_values, repeat=5):
            chosen = [q for q in sequence if q >= bar][:2]
            total += sum(chosen)
        assert total / 4**5 <= value[2, 5] + 1e-12


def test_optimum_policy_in_the_env_matches_the_exact_value_and_beats_the_heuristic():
    kwargs = {"split": "test"}
    optimum = evaluate("push-v1", push_v1_optimum.optimal_policy("test"), episodes=300, seed=0, env_kwargs=kwargs)
    heuristic = evaluate("push-v1", "heuristic", episodes=300, seed=0, env_kwargs=kwargs)
    difference, error = optimum.paired_difference(heuristic)
    assert difference > 2 * error  # +0.052 ± 0.016 (the tuned rule is close: +0.038 ± 0.008 on 1,000 days)
    exact = push_v1_optimum.exact_table("test", 2)["optimum"]
    assert abs(optimum.mean - exact) < 4 * optimum.std / np.sqrt(300)


def test_evaluation_uses_the_held_out_test_log():
    assert recipe_for("push-v1").eval_env_kwargs == {"split": "test"}
    trained_on = PushV1Env()
    scored_on = PushV1Env(**recipe_for("push-v1").eval_env_kwargs)
    assert trained_on.params.log.split == "train" and scored_on.params.log.split == "test"
    assert trained_on.params.log.timestamps.max() < scored_on.params.log.timestamps.min()
    # the optimum reads the test log's probabilities: an observation of the training log is not in it
    obs, _ = trained_on.reset(seed=0)
    with pytest.raises(ValueError, match="not in the test log"):
        push_v1_optimum.optimal_policy("test")(obs)


def test_a_log_of_ones_own_needs_p_open(train_frame):
    frame = train_frame.head(300)
    with pytest.raises(ValueError, match="p_open"):
        PushV1Env(data=frame.drop(columns="p_open"))
    env = PushV1Env(data=frame, daily_budget=1)  # a log of your own with p_open plays
    rewards, _, _, _ = play(env, lambda obs: 1, 0)
    assert len(rewards) == 1


def test_a_users_rows_out_of_time_order_are_still_split_by_day(train_frame):
    """A user's two Mondays a week apart, the later one written first: two user-days, each in time order."""
    frame = train_frame
    stamps = pd.to_datetime(frame["timestamp"])
    one = frame[frame["user_id"] == "u04"]
    first = one[stamps[one.index].dt.date == pd.Timestamp("2024-03-04").date()]
    second = one[stamps[one.index].dt.date == pd.Timestamp("2024-03-11").date()]
    assert set(first["day_of_week"]) == set(second["day_of_week"]) == {"Mon"}
    log = pd.concat([second, first], ignore_index=True)  # the later Monday first
    env = PushV1Env(data=log)
    order, starts, lengths = user_days(env.params.log)
    assert lengths.tolist() == [len(first), len(second)]
    days = [order[s : s + n].tolist() for s, n in zip(starts, lengths)]
    assert days == [list(range(len(second), len(log))), list(range(len(second)))]  # each day, in time order
    stamps = env.params.log.timestamps
    assert all((np.diff(stamps[day]) >= np.timedelta64(0)).all() for day in days)
    for seed in range(10):  # an episode is one of the two days, whole and in time order
        _, infos, _, _ = play(env, lambda obs: 0, seed)
        assert [i["row"] for i in infos] in days


def test_user_days_are_the_same_whatever_the_order_of_the_rows(train_frame):
    """Shuffling a log's rows leaves its user-days as they are."""
    frame = train_frame.head(2000)
    shuffled_positions = np.random.default_rng(0).permutation(len(frame))
    shuffled = frame.iloc[shuffled_positions].reset_index(drop=True)

    def days(data, rows):
        order, starts, lengths = user_days(PushV1Env(data=data).params.log)
        return sorted(tuple(rows[order[s : s + n]].tolist()) for s, n in zip(starts, lengths))

    assert days(frame, np.arange(len(frame))) == days(shuffled, shuffled_positions)


def test_the_picture_shows_the_notification_waiting_for_a_decision():
    """The card and text show the waiting notification, the last decision apart, and why the day ended."""
    from gym_suite.envs._draw import text_mask
    from gym_suite.envs.push_env import CARD_HEIGHT, CARD_WIDTH, card

    env = gymnasium.make(ENV_ID, render_mode="rgb_array", daily_budget=1)
    text = gymnasium.make(ENV_ID, render_mode="ansi", daily_budget=1)
    env.reset(seed=3)
    text.reset(seed=3)
    log = env.unwrapped.params.log
    for action in (0, 1):  # hold, then deliver: the budget of 1 is spent
        decided = env.unwrapped.current_row
        _, _, terminated, _, info = env.step(action)
        text.step(action)
        assert info["row"] == decided
        frame, words = env.render(), text.render()
        if not terminated:
            waiting = env.unwrapped.current_row
            assert waiting != decided
            assert np.array_equal(frame[:CARD_HEIGHT, :CARD_WIDTH], card(log, waiting))  # the waiting one
            assert words.startswith(f"#{waiting} ") and f"last: #{decided} held" in words
        else:
            assert "day over: budget spent" in words and f"last: #{decided} delivered" in words
            assert np.array_equal(
                frame[:CARD_HEIGHT, : CARD_WIDTH * 2 // 3], card(log, decided, 1)[:, : CARD_WIDTH * 2 // 3]
            )
        region = frame[:CARD_HEIGHT, CARD_WIDTH:]
        assert (region.sum(axis=2) < 500).sum() >= text_mask("priority").sum()  # the labels beside the card


def test_rule_tuning_plays_each_day_exactly_and_chooses_the_best_setting():
    """On a tiny grid, each day's exact value is the scalar env's return, and the choice the grid's best."""
    params = push_v1_rule.log_params("train")
    env = PushV1Env()
    days = [0, 5, 17, 100, 335]
    bars, drops = (3.5, 4.5, 6.0), (0.0, 11.0)
    for bar, drop in itertools.product(bars, drops):
        exact = push_v1_rule.day_opens(params, bar, drop, days)
        for day, value in zip(days, exact):
            env.reset(seed=0)
            state = PUSH_V1.initial(((day + 0.5) / len(params.day_starts),), params, SCALAR)
            env.state = state  # the day's start
            obs, total, terminated = PUSH_V1.observation(state, params, SCALAR), 0.0, False
            while not terminated:
                obs, reward, terminated, _, _ = env.step(int(budget_rule(obs, params, SCALAR, bar, drop)))
                total += reward
            assert total == pytest.approx(value, abs=1e-9)
    values = push_v1_rule.grid_values(params, bars, drops, days)
    assert values.shape == (3, 2) and len(set(values.ravel().round(9))) > 2  # the settings differ
    bar, drop, best = push_v1_rule.choose(params, bars, drops, days)
    assert best == values.max() and values[bars.index(bar), drops.index(drop)] == best
    for bad in ((4.2, 11.0), (4.5, 10.5), (float("nan"), 11.0), (4.5, -1.0)):
        with pytest.raises(ValueError, match="push_v1_rule"):
            push_v1_rule.day_opens(params, *bad, days)
    with pytest.raises(ValueError, match="user-days"):
        push_v1_rule.day_opens(params, 4.5, 11.0, [336])


def test_the_heuristics_bar_is_the_best_of_the_grid_on_the_training_log():
    """RULE_BAR and RULE_DROP are what ``python -m gym_suite.references.push_v1_rule`` chooses."""
    train = push_v1_rule.log_params("train")
    assert push_v1_rule.choose(train)[:2] == (RULE_BAR, RULE_DROP)
    assert len(push_v1_rule.GRID_BARS) * len(push_v1_rule.GRID_DROPS) == 100
    exact = push_v1_rule.day_opens(train)
    assert push_v1_rule.env_check(60) < 1e-9  # the environment's returns are the days' exact values
    assert exact.mean() == pytest.approx(push_v1_optimum.exact_table("train", 2)["heuristic"])


def test_rule_tuning_command(capsys):
    assert push_v1_rule.main(["--bars", "4,4.5", "--drops", "11", "--episodes", "5"]) == 0
    out = capsys.readouterr().out
    assert "chosen: bar 4.5, drop 11" in out and "the heuristic's RULE_BAR and RULE_DROP" in out
    assert "held-out test log" in out and "largest |return - the day's exact value| 0.00e+00" in out
    with pytest.raises(SystemExit):
        push_v1_rule.main(["--bars", "4.3"])
    assert "multiple of 0.5" in capsys.readouterr().err


def _headroom():
    """``gym-suite/analyses/push_v1_headroom.py`` (a repository script), imported by its path."""
    import importlib.util

    path = ROOT / "gym-suite" / "analyses" / "push_v1_headroom.py"
    spec = importlib.util.spec_from_file_location("push_v1_headroom", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_features_only_optimum_structural_truths():
    """p_open from the fields and offset; q = E[p_open | obs] within the persons' range; the DP best on iid draws."""
    headroom = _headroom()
    for split in ("train", "test"):
        data = headroom.Log(split, points=200)
        np.testing.assert_array_equal(headroom.p_open_of(data.f + data.offset), data.p)
        low, high = headroom.p_open_of(data.f - 0.5), headroom.p_open_of(data.f + 0.5)
        assert np.all((low <= data.q + 1e-12) & (data.q <= high + 1e-12))
        assert np.all(np.diff(data.q[np.argsort(data.f, kind="stable")]) >= -1e-12)  # q rises with f
        left = data.max_left
        for budget in (1, 2, 3):
            value_p, threshold_p = push_v1_optimum.thresholds(data.p, budget, left)
            value_q, threshold_q = push_v1_optimum.thresholds(data.q, budget, left)
            assert headroom.iid_value(data.q, data.q, threshold_q, budget, left) == pytest.approx(
                value_q[budget, left], abs=1e-12
            )
            assert headroom.iid_value(data.q, data.p, threshold_q, budget, left) <= value_p[budget, left] + 1e-12
            assert headroom.iid_value(data.p, data.q, threshold_p, budget, left) <= value_q[budget, left] + 1e-12
        # the oracle replayed by the script's scorer is push_v1_optimum's
        oracle = headroom.dp_day_opens(data.p, data.p, data.days, 2, push_v1_optimum.thresholds(data.p, 2, left)[1])
        assert oracle.mean() == pytest.approx(push_v1_optimum.exact_table(split, 2)["optimum"], abs=1e-12)


def test_features_only_policy_sees_only_the_observation():
    """FeaturesOnlyPolicy in the env takes the script's decisions: each return is its day's exact value."""
    headroom = _headroom()
    train, test = headroom.Log("train", points=200), headroom.Log("test", points=200)
    policy = headroom.FeaturesOnlyPolicy(2, points=200, train=train)
    exact = headroom.dp_day_opens(test.q, test.p, test.days, 2, policy.threshold)
    days = headroom.evaluation_days(20)
    played = evaluate("push-v1", policy, episodes=20, seed=0, env_kwargs={"split": "test"})
    np.testing.assert_allclose(played.returns, exact[days], atol=1e-6)


def test_the_pages_figures_of_the_features_only_optimum_are_computed():
    """The docs' features-only optimum scores (budget 2, every user-day once) are what the script computes."""
    headroom = _headroom()
    score = {}
    for split in ("train", "test"):
        data = headroom.Log(split)
        threshold = headroom.dp_threshold(data.q, 2, data.max_left)
        score[split] = headroom.dp_day_opens(data.q, data.p, data.days, 2, threshold).mean()
    notes = " ".join((ROOT / "docs" / "env-notes" / "push-v1.md").read_text(encoding="utf-8").split())
    assert f"scores {score['test']:.3f} on the test log" in notes
    note = (ROOT / "docs" / "baselines.md").read_text(encoding="utf-8")
    assert f"scores {score['test']:.3f} there" in note
    assert f"scores {score['train']:.3f} on the training log" in note


@pytest.mark.slow  # scikit-learn comes with the baselines extra, which the slow-test command installs
def test_the_reward_model_learns_from_the_deliveries_rewards_alone():
    """Exploration spreads each day's deliveries; the learner keeps delivered rewards only; its policy acts."""
    pytest.importorskip("sklearn")
    from gym_suite.training.reward_model import explore, train_reward_model

    seen, delivered, rewards = explore("push-v1", 600, seed=3)
    assert len(seen) == 600 and len(delivered) == len(rewards) > 0
    assert np.all((rewards > 0) & (rewards < 1))  # expected opens: the delivered notifications' p_open
    # at most the budget a day: 2 deliveries a day begun (within a day the notifications left fall by 1)
    left = [float(o["notifications_left"][0]) for o in seen]
    begun = 1 + sum(now != before - 1 for before, now in zip(left, left[1:]))
    assert 1 < begun < len(seen)
    assert len(rewards) <= 2 * begun
    policy = train_reward_model("push-v1", 3000, seed=0)
    actions = policy.act_batch(seen[:50])
    assert actions.shape == (50,) and set(actions.tolist()) <= {0, 1}
    assert policy(seen[0]) in (0, 1)
    result = evaluate("push-v1", policy, episodes=10, seed=0, env_kwargs={"split": "test"})
    assert np.all(result.returns >= 0)
    for args, kwargs, error, match in [
        (("push-v1", 1), {"seed": 0}, ValueError, "too few steps"),
        (("heartpole-v1", 100), {}, ValueError, "env_id must be one of"),
        (("push-v1", 0), {}, ValueError, "steps must be"),
        (("push-v1", 100), {"seed": -1}, ValueError, "seed must be"),
        (("push-v1", 100.0), {}, TypeError, "steps must be an integer"),
        ((None, 100), {}, TypeError, "env_id must be one of"),
        (("push-v1", 100), {"env_kwargs": {"expected_opens": False}}, ValueError, "expected_opens must stay True"),
    ]:
        with pytest.raises(error, match=match):
            train_reward_model(*args, **kwargs)


@pytest.mark.slow
def test_the_reward_model_beats_the_heuristic_on_the_test_log():
    """100k explored training steps; on 1,000 test days above the heuristic by 3 paired SEs, far above random."""
    pytest.importorskip("sklearn")
    from gym_suite.training.reward_model import train_reward_model

    kwargs = {"split": "test"}
    heuristic = evaluate("push-v1", "heuristic", episodes=1000, seed=0, env_kwargs=kwargs)
    random = evaluate("push-v1", "random", episodes=1000, seed=0, env_kwargs=kwargs)
    learned = evaluate(
        "push-v1", train_reward_model("push-v1", 100_000, seed=7), episodes=1000, seed=0, env_kwargs=kwargs
    )
    difference, error = learned.paired_difference(heuristic)
    assert difference > 3 * error, (learned.mean, heuristic.mean, difference, error)
    assert learned.mean > random.mean + 0.8
