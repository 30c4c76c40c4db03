"""push-v0: the notification replay, its bundled logs, user logs and the vector env (the logs: test_push_log.py)."""

# ruff: noqa: F811  (the fixtures imported from test_push_log are test arguments)
from __future__ import annotations

import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium
import numpy as np
import pandas as pd
import pytest
from gymnasium.wrappers import FlattenObservation
from test_push_log import bundled_bytes, small, to_csv, train_frame  # noqa: F401  (fixtures)

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs import PushEnv, PushVectorEnv, push_env
from gym_suite.envs.push_env import DELIVER, HOLD
from gym_suite.envs.push_log import (
    CATEGORICAL_FIELDS,
    NUMERIC_FIELDS,
    VOCABULARIES,
    observation_space,
)

ROOT = Path(__file__).resolve().parents[1]
INFO_KEYS = {"row", "truth", "accuracy", "ctr", "precision", "recall"}


def make(**kwargs):
    return gymnasium.make("gym_suite:push-v0", **kwargs)


def play(env, policy, seed):
    """``(rewards, infos, observations, rows)`` of one episode of ``policy(obs)``; rows: each step's observed row."""
    obs, info = env.reset(seed=seed)
    assert info == {}
    rewards, infos, observations, rows = [], [], [obs], []
    while True:
        rows.append(env.unwrapped.current_row)
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        rewards.append(reward)
        infos.append(info)
        observations.append(obs)
        assert not truncated
        if terminated:
            return rewards, infos, observations, rows


def always(action):
    return lambda obs: action


def test_bundled_log_is_learnable_but_noisy(train_frame):
    opened = (train_frame["action"] == "opened").to_numpy()
    p = train_frame["p_open"].to_numpy()
    majority = max(opened.mean(), 1 - opened.mean())
    bayes = np.maximum(p, 1 - p).mean()  # the Bayes-optimal policy's expected accuracy
    assert majority + 0.05 < bayes < 0.95
    assert ((p >= 0.5) == opened).mean() > majority + 0.05
    # the stated patterns: significant contacts' messages in the evening opened, promotions at night not
    hour = train_frame["hour"]
    evening = (hour >= 18) & (hour < 23)
    night = (hour >= 22) | (hour < 7)
    messages = (train_frame["category"] == "msg") & (train_frame["significant_contact"] == 1) & evening
    promotions = (train_frame["category"] == "promo") & night
    assert messages.sum() > 50 and promotions.sum() > 50
    assert opened[messages].mean() > 0.8 and opened[promotions].mean() < 0.1


def test_bundled_log_loads_from_a_zip_away_from_the_working_directory(tmp_path):
    archive = tmp_path / "suite.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in (ROOT / "gym_suite").rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path, path.relative_to(ROOT).as_posix())
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import gymnasium, gym_suite\n"
        "assert gym_suite.__file__.startswith(sys.argv[1]), gym_suite.__file__\n"
        "for split in ('train', 'test'):\n"
        "    env = gymnasium.make('gym_suite:push-v0', split=split)\n"
        "    env.reset(seed=0)\n"
        "    print(env.unwrapped.log.n_rows)\n"
    )
    command = [sys.executable, "-c", code, str(archive)]
    out = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=True)
    expected = [len(bundled_bytes(split).splitlines()) - 1 for split in ("train", "test")]
    assert [int(n) for n in out.stdout.split()] == expected


def test_every_row_of_a_window_is_scored_exactly_once():
    env = make()
    log = env.unwrapped.log
    for seed in range(5):
        rewards, infos, _, observed = play(env, always(DELIVER), seed)
        rows = [info["row"] for info in infos]
        assert len(rows) == 100 and rows == observed  # each scored row is the one observed before
        assert len(set(rows)) == 100
        assert len(set(log.users[rows].tolist())) == 1  # one user's notifications ...
        assert rows == sorted(rows)  # ... consecutive, in the log's order
        user_rows = np.flatnonzero(log.users == log.users[rows[0]])
        first = int(np.searchsorted(user_rows, rows[0]))
        assert rows == user_rows[first : first + 100].tolist()
        labels = log.labels[rows]
        assert rewards == (2.0 * labels - 1).tolist()  # deliver: +1 exactly when opened
        assert [info["truth"] for info in infos] == labels.tolist()


def test_each_observation_is_its_row_info_the_scored_one_and_the_terminal_one_repeats_the_last():
    env = make(episode_length=30)
    log = env.unwrapped.log
    _, infos, observations, rows = play(env, always(HOLD), seed=5)
    assert len(infos) == 30 and env.unwrapped.current_row == rows[-1]
    for obs, row in zip(observations, rows + rows[-1:]):  # the terminal observation: the last row again
        assert [obs[name] for name in CATEGORICAL_FIELDS] == log.codes[:, row].tolist()
        assert all(np.array_equal(obs[name], log.numbers[j, row : row + 1]) for j, name in enumerate(NUMERIC_FIELDS))
    for info, row in zip(infos, rows):
        assert set(info) == INFO_KEYS and info["row"] == row and info["truth"] == log.labels[row]


def test_running_metrics_match_a_recount():
    env = make()
    env.reset(seed=8)
    rng = np.random.default_rng(0)
    actions, truths = [], []
    for _ in range(100):
        action = int(rng.integers(2))
        _, _, terminated, _, info = env.step(action)
        actions.append(action)
        truths.append(info["truth"])
        a, t = np.array(actions), np.array(truths)
        delivered, opened = a == 1, t == 1
        assert info["accuracy"] == pytest.approx((a == t).mean())
        precision = (delivered & opened).sum() / delivered.sum() if delivered.any() else 0.0
        recall = (delivered & opened).sum() / opened.sum() if opened.any() else 0.0
        assert info["precision"] == info["ctr"] == pytest.approx(precision)
        assert info["recall"] == pytest.approx(recall)
    assert terminated


def test_whole_log_replays_every_row_in_order(small):
    env = make(data=small, episode_length=None)
    rewards, infos, _, _ = play(env, always(DELIVER), seed=0)
    assert [info["row"] for info in infos] == list(range(len(small)))
    opened = (small["action"] == "opened").to_numpy()
    assert sum(rewards) == opened.sum() - (~opened).sum()


def bad_value(column, row, value):
    def edit(frame):
        bad = frame.astype({column: object})
        bad.loc[row, column] = value
        return bad

    return edit


BAD_LOGS = [
    (bad_value("priority", 7, "high"), "priority.*row 7.*a number"),
    (bad_value("battery", 12, 140), "battery.*row 12.*within 0..100"),
    (bad_value("text_length", 3, 12.5), "text_length.*row 3.*an integer"),
    (bad_value("day_of_week", 9, "Monday"), "day_of_week.*row 9.*one of"),
    (bad_value("action", 4, "clicked"), "action.*row 4.*one of"),
    (bad_value("timestamp", 5, "yesterday"), "timestamp.*row 5.*timestamp"),
    *((bad_value(column, 17, np.nan), f"{column}.*row 17") for column in ("app", "hour", "user_id")),  # missing
    (lambda frame: frame.drop(columns=["ringer_mode"]), "missing column.*ringer_mode"),
    (lambda frame: frame.head(0), "empty"),
]  # fmt: skip


@pytest.mark.parametrize("source", ["csv", "frame"])
@pytest.mark.parametrize("edit, match", BAD_LOGS)
def test_a_bad_log_names_what_is_wrong(small, tmp_path, source, edit, match):
    bad = edit(small)
    kwargs = {"csv_path": to_csv(bad, tmp_path / "bad.csv")} if source == "csv" else {"data": bad}
    with pytest.raises(ValueError, match=match):
        make(**kwargs)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"episode_length": 0}, ValueError, "episode_length"),
        ({"data": "small", "episode_length": 500}, ValueError, "episode_length"),
        ({"data": "small", "csv_path": "x.csv"}, ValueError, "csv_path"),
        ({"data": "small as a dict"}, TypeError, "DataFrame"),
        ({"data": "small", "test_fraction": 1.5}, ValueError, "test_fraction"),
    ],
)
def test_bad_arguments(small, tmp_path, kwargs, error, match):
    data = {"small": small, "small as a dict": small.to_dict()}
    kwargs = {k: data.get(v, v) if k == "data" else tmp_path / v if k == "csv_path" else v for k, v in kwargs.items()}
    with pytest.raises(error, match=match):
        make(**kwargs)


def test_input_frame_and_file_are_left_unchanged(small, tmp_path):
    frame = small.sample(frac=1.0, random_state=0)  # a shuffled index too
    before = frame.copy(deep=True)
    env = make(data=frame, episode_length=10)
    env.reset(seed=0)
    env.step(DELIVER)
    pd.testing.assert_frame_equal(frame, before)
    path = to_csv(small, tmp_path / "log.csv")
    content, stat = path.read_bytes(), path.stat()
    env = make(csv_path=path, episode_length=10)
    env.reset(seed=0)
    env.step(DELIVER)
    assert path.read_bytes() == content and path.stat().st_mtime_ns == stat.st_mtime_ns


def test_user_log_round_trips_through_the_encoding(small, tmp_path):
    env = PushEnv(csv_path=to_csv(small, tmp_path / "log.csv"), episode_length=None)
    log = env.log
    assert log.vocabularies["app"] == VOCABULARIES["app"]  # fixed, not the log's
    assert set(small["app"]) < set(VOCABULARIES["app"])
    decoded = {name: np.array(log.vocabularies[name])[log.codes[j]] for j, name in enumerate(CATEGORICAL_FIELDS)}
    for name in ("app", "category", "location", "ringer_mode", "day_of_week"):
        assert (decoded[name] == small[name].to_numpy()).all()
    assert (decoded["significant_contact"] == small["significant_contact"].astype(bool).to_numpy()).all()
    for j, name in enumerate(NUMERIC_FIELDS):
        assert np.allclose(log.numbers[j], small[name].to_numpy(), atol=1e-5)
    assert (log.labels == (small["action"] == "opened").to_numpy()).all()
    assert np.allclose(log.p_open, small["p_open"])


def test_log_without_optional_columns_works(small):
    env = make(data=small.drop(columns=["p_open", "response_delay_s"]), episode_length=20)
    assert env.unwrapped.log.p_open is None and len(play(env, always(DELIVER), seed=0)[0]) == 20


def test_split_picks_the_bundled_training_or_test_log():
    train = make(episode_length=None).unwrapped
    test = make(split="test", episode_length=None).unwrapped
    assert (train.log.split, test.log.split) == ("train", "test")  # the row counts: the zip test above
    assert train.observation_space == test.observation_space == observation_space()
    assert gymnasium.make_vec("gym_suite:push-v0", num_envs=4, split="test").log is test.log


def test_test_fraction_splits_a_user_log_in_time(train_frame, tmp_path):
    frame = train_frame.head(2000)
    kwargs = {"csv_path": to_csv(frame, tmp_path / "log.csv"), "test_fraction": 0.25, "episode_length": None}
    env = make(split="test", **kwargs).unwrapped
    test = env.log
    assert test.n_rows >= 500 and test.n_rows + make(**kwargs).unwrapped.log.n_rows == len(frame)
    env.reset(seed=0)
    _, _, _, _, info = env.step(HOLD)  # info["row"] indexes the part; source_rows maps it to the file
    source = int(test.source_rows[info["row"]])
    assert info["truth"] == int(frame["action"].iloc[source] == "opened")
    assert frame["timestamp"].iloc[source] == str(test.timestamps[info["row"]])


@pytest.mark.parametrize("source", ["bundled", "bundled test", "frame", "part of a file"])
def test_pickle_mid_episode_continues_identically(small, tmp_path, source):
    part = {"split": "test", "test_fraction": 0.5, "episode_length": 15}
    kwargs = {"bundled": {}, "bundled test": {"split": "test"}, "frame": {"data": small, "episode_length": 30},
              "part of a file": {"csv_path": to_csv(small, tmp_path / "log.csv"), **part}}[source]  # fmt: skip
    env = make(**kwargs)
    env.reset(seed=4)
    for _ in range(5):
        env.step(DELIVER)
    blob = pickle.dumps(env)
    if source.startswith("bundled"):
        assert len(blob) < 50_000  # the bundled log is reloaded, not copied
        vector = gymnasium.make_vec("gym_suite:push-v0", num_envs=8, **kwargs)
        vector.reset(seed=0)
        assert len(pickle.dumps(vector)) < 20_000  # and its windows too
    copy = pickle.loads(blob)
    for action in [0, 1, 1, 0, 1, 0, 0]:
        a, b = env.step(action), copy.step(action)
        assert a[1:] == b[1:]
        assert all(np.array_equal(a[0][k], b[0][k]) for k in a[0])


def test_flatten_observation():
    env = FlattenObservation(make())
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and obs.ndim == 1
    inner = env.unwrapped.observation_space
    expected = sum(inner[name].n for name in CATEGORICAL_FIELDS) + len(NUMERIC_FIELDS)
    assert obs.shape == (expected,)
    obs, *_ = env.step(DELIVER)
    assert env.observation_space.contains(obs)


def test_render_modes():
    env = make(render_mode="ansi")
    env.reset(seed=0)
    log, row = env.unwrapped.log, env.unwrapped.current_row
    pending = env.render()
    assert log.vocabularies["app"][log.codes[0, row]] in pending
    env.step(DELIVER)
    assert env.render() != pending
    cards = make(render_mode="rgb_array")
    frames = []
    for actions in ([], [DELIVER], [HOLD]):
        cards.reset(seed=0)
        for action in actions:
            cards.step(action)
        frames.append(cards.render())
    pending, delivered, held = frames
    assert pending.shape == delivered.shape == (push_env.CARD_HEIGHT, push_env.CARD_WIDTH, 3)
    assert not np.array_equal(delivered, held) and not np.array_equal(pending, held)
    vector = gymnasium.make_vec("gym_suite:push-v0", num_envs=3, render_mode="ansi")
    vector.reset(seed=0)
    assert vector.render().count("\n") == 3  # one line per sub-environment


@pytest.mark.parametrize("length", [np.int64(2**63 - 1), 10**30, push_env.MAX_EPISODE_LENGTH + 1])
@pytest.mark.parametrize("maker", [PushEnv, PushVectorEnv, make])
def test_huge_episode_length_is_rejected_naming_the_argument(maker, length):
    with pytest.raises(ValueError, match="episode_length") as err:
        maker(episode_length=length)
    assert len(str(err.value)) < 200


def reference_heuristic(obs, vocabularies) -> int:
    """The hand rule of the manual, written out plainly."""
    category = vocabularies["category"][int(obs["category"])]
    if obs["significant_contact"]:
        return HOLD if category in ("promo", "recommendation", "status") else DELIVER
    if vocabularies["ringer_mode"][int(obs["ringer_mode"])] == "silent":
        return HOLD
    return DELIVER if category in ("msg", "event", "reminder") and obs["priority"][0] >= 1 else HOLD


def test_heuristic_on_one_observation_and_on_a_batch():
    vector = gymnasium.make_vec("gym_suite:push-v0", num_envs=256, split="test", episode_length=5)
    scalar = PushEnv(split="test")
    obs, _ = vector.reset(seed=3)
    for _ in range(3):
        actions = vector.heuristic(obs)
        assert actions.shape == (256,) and actions.dtype.kind == "i"
        rows = [{k: v[i] for k, v in obs.items()} for i in range(256)]
        singles = [scalar.heuristic(row) for row in rows]
        assert all(type(a) is int for a in singles)
        assert singles == actions.tolist() == [reference_heuristic(row, scalar.vocabularies) for row in rows]
        assert 0 < actions.sum() < 256
        obs, *_ = vector.step(actions)
