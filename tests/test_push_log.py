"""push-v0's logs: the bundled ones, fixed vocabularies, reading, checking, caching, the split of user logs."""

from __future__ import annotations

import bz2
import gc
import gzip
import importlib.util
import io
import lzma
import math
import os
import pickle
import subprocess
import sys
import weakref
import zipfile
from collections import Counter
from importlib import resources
from pathlib import Path

import gymnasium
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gym_suite  # noqa: F401  (registers the ids)
from gym_suite.envs import push_log
from gym_suite.envs.checks import ArgumentTypeError
from gym_suite.envs.push_log import (
    CATEGORICAL_FIELDS,
    OPEN_FIELDS,
    OTHER,
    VOCABULARIES,
    load_log,
    observation_space,
)

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "gym-suite" / "tools" / "make_notifications.py"


def bundled_bytes(split: str) -> bytes:
    return resources.files("gym_suite.envs").joinpath(f"data/notifications_{split}.csv").read_bytes()


@pytest.fixture(scope="module")
def train_frame() -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(bundled_bytes("train")), dtype={"user_id": str})


@pytest.fixture
def small(train_frame) -> pd.DataFrame:
    """The first 400 notifications of the training log."""
    return train_frame.head(400).copy()


def to_csv(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, index=False)
    return path


def source_kwargs(frame: pd.DataFrame, tmp_path: Path, source: str) -> dict:
    """The log given to the env as a CSV file or as a data frame."""
    return {"csv_path": to_csv(frame, tmp_path / "log.csv")} if source == "csv" else {"data": frame}


def app_code(log, row: int) -> int:
    return int(log.codes[CATEGORICAL_FIELDS.index("app"), row])


def test_generator_reproduces_both_bundled_logs_byte_for_byte(tmp_path):
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    command = [sys.executable, str(GENERATOR), "--train-out", str(train), "--test-out", str(test)]
    subprocess.run(command, check=True, capture_output=True)
    assert train.read_bytes() == bundled_bytes("train")
    assert test.read_bytes() == bundled_bytes("test")


def test_the_bundled_logs_read_like_real_ones_the_test_log_after_the_training_log(train_frame):
    test = pd.read_csv(io.BytesIO(bundled_bytes("test")), dtype={"user_id": str})
    for frame in (train_frame, test):
        assert tuple(frame.columns) == push_log.COLUMNS and len(frame) >= 5000 and frame["user_id"].nunique() >= 5
        stamps = pd.to_datetime(frame["timestamp"])
        assert stamps.is_monotonic_increasing and (stamps.max() - stamps.min()).days >= 28
        assert set(frame["action"]) == {"opened", "dismissed"} and set(frame["priority"]) <= set(range(-2, 3))
    train_stamps, test_stamps = pd.to_datetime(train_frame["timestamp"]), pd.to_datetime(test["timestamp"])
    assert train_stamps.max() < test_stamps.min()
    assert test_stamps.min() >= pd.Timestamp("2024-04-15") and test_stamps.max() < pd.Timestamp("2024-05-27")
    assert set(test["user_id"]) == set(train_frame["user_id"])
    assert 0.8 < len(test) / len(train_frame) < 1.2


def test_vocabularies_are_the_generators_values():
    spec = importlib.util.spec_from_file_location("make_notifications", GENERATOR)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    assert VOCABULARIES["app"] == tuple(a[0] for a in generator.APPS) + (OTHER,)
    assert VOCABULARIES["category"] == generator.CATEGORIES + (OTHER,)
    assert VOCABULARIES["location"] == generator.LOCATIONS + (OTHER,)
    assert VOCABULARIES["ringer_mode"] == push_log.RINGER_MODES + (OTHER,)
    assert set(generator.CATEGORY_LOGIT) == set(generator.CATEGORIES)


def observations(log) -> list[tuple]:
    return [tuple(k) for k in np.vstack([log.codes, log.numbers]).T.tolist()]


def lookup_table(log) -> tuple[dict, int]:
    """Observation -> majority label on ``log``, and the label of the majority overall."""
    votes: dict[tuple, Counter] = {}
    for key, label in zip(observations(log), log.labels.tolist()):
        votes.setdefault(key, Counter())[label] += 1
    fallback = int(log.labels.mean() > 0.5)
    table = {key: int(c[1] > c[0]) if c[1] != c[0] else fallback for key, c in votes.items()}
    return table, fallback


def lookup_accuracy(table: dict, fallback: int, log) -> float:
    predictions = np.array([table.get(key, fallback) for key in observations(log)])
    return float((predictions == log.labels).mean())


def test_a_memorising_table_fits_the_training_log_but_not_the_test_log():
    train, test = load_log(split="train"), load_log(split="test")
    table, fallback = lookup_table(train)
    bayes = float(np.maximum(test.p_open, 1 - test.p_open).mean())  # the best any policy can expect
    standard_error = math.sqrt(bayes * (1 - bayes) / test.n_rows)
    on_train, on_test = lookup_accuracy(table, fallback, train), lookup_accuracy(table, fallback, test)
    assert on_train > 0.97  # the training log can be memorised, far above what the features allow ...
    assert on_train > float(np.maximum(train.p_open, 1 - train.p_open).mean()) + 0.1
    assert on_test <= bayes + 2 * standard_error  # ... and that is worth nothing on the test log
    shared = set(table).intersection(observations(test))
    assert len(shared) < 0.05 * test.n_rows  # the test log's observations are new


def test_observation_spaces_of_every_log_are_equal(small, tmp_path):
    fewer = small[small["app"] != "com.whatsapp"].reset_index(drop=True)
    fewer.loc[0, "app"] = "org.example.new_app"  # an app outside the vocabulary
    fewer.loc[1, "category"] = "call"
    fewer.loc[2, "ringer_mode"] = "do_not_disturb"
    assert "com.whatsapp" not in set(fewer["app"])
    user = load_log(to_csv(fewer, tmp_path / "fewer.csv"))
    logs = [load_log(split="train"), load_log(split="test"), user]
    spaces = [observation_space(log.vocabularies) for log in logs]
    assert spaces[0] == spaces[1] == spaces[2] == observation_space()
    env = gymnasium.make("gym_suite:push-v0", csv_path=tmp_path / "fewer.csv", episode_length=None)
    assert env.observation_space == spaces[0]
    last = {field: len(VOCABULARIES[field]) - 1 for field in OPEN_FIELDS}
    assert all(VOCABULARIES[field][index] == OTHER for field, index in last.items())
    assert app_code(user, 0) == last["app"]
    assert user.codes[CATEGORICAL_FIELDS.index("category"), 1] == last["category"]
    assert user.codes[CATEGORICAL_FIELDS.index("ringer_mode"), 2] == last["ringer_mode"]
    known = VOCABULARIES["app"].index(fewer["app"].iloc[5])
    assert app_code(user, 5) == known < last["app"]


def test_own_vocabularies(small):
    log = load_log(data=small, vocabularies={"app": ["com.whatsapp", "com.Slack"], "location": ("home", OTHER)})
    assert log.vocabularies["app"] == ("com.whatsapp", "com.Slack", OTHER)
    assert log.vocabularies["location"] == ("home", OTHER)
    assert log.vocabularies["category"] == VOCABULARIES["category"]
    expected = [
        ("com.whatsapp", "com.Slack").index(a) if a in ("com.whatsapp", "com.Slack") else 2 for a in small["app"]
    ]
    assert log.codes[CATEGORICAL_FIELDS.index("app")].tolist() == expected
    assert observation_space(log.vocabularies)["app"].n == 3
    assert load_log(data=small, vocabularies=VOCABULARIES).vocabularies["app"] == VOCABULARIES["app"]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"vocabularies": {"user_id": ("a",)}}, ValueError, "only the vocabularies of"),
        ({"vocabularies": {"day_of_week": ("Lun", "Mar")}}, ValueError, "fixed by the schema"),
        ({"vocabularies": {"app": ("a", OTHER, "b")}}, ValueError, "last entry"),
        ({"vocabularies": {"app": ("a", "a")}}, ValueError, "more than once"),
        ({"vocabularies": {"app": ()}}, ValueError, "empty"),
        ({"vocabularies": {"app": "com.whatsapp"}}, TypeError, "tuple or list"),
        ({"vocabularies": {"app": ("a", 3)}}, TypeError, "strings"),
        ({"vocabularies": ["app"]}, TypeError, "mapping"),
        ({"vocabularies": {"day_of_week": 5}}, ValueError, r"vocabularies\['day_of_week'\] \(fixed by the schema\)"),
        ({"vocabularies": {"significant_contact": None}}, ValueError, r"vocabularies\['significant_contact'\] \(fixed by the schema\)"),
        ({"vocabularies": {"no_such_field": 5}}, ValueError, r"vocabularies\['no_such_field'\]: only the vocabularies of"),
        ({"vocabularies": {"app": 5}}, TypeError, r"vocabularies\['app'\] must be a tuple or list"),
        ({"vocabularies": {"app": None}}, TypeError, r"vocabularies\['app'\] must be a tuple or list"),
        ({"split": "valid"}, ValueError, r"split must be one of \['train', 'test'\]"),
        ({"split": 1}, TypeError, "split"),
        ({"test_fraction": 0.0}, ValueError, "strictly between 0 and 1"),
        ({"test_fraction": 1.0}, ValueError, "strictly between 0 and 1"),
        ({"test_fraction": float("nan")}, ValueError, "strictly between 0 and 1"),
        ({"test_fraction": "0.2"}, TypeError, "test_fraction"),
        ({"test_fraction": True}, TypeError, "test_fraction"),
        ({"split": "test"}, ValueError, "needs test_fraction"),
    ],
)  # fmt: skip
def test_bad_vocabularies_and_split_arguments_are_named(small, kwargs, error, match):
    with pytest.raises(error, match=match):
        load_log(data=small, **kwargs)


def test_test_fraction_cuts_the_whole_log_at_one_instant(train_frame):
    frame = train_frame.head(3000).copy()
    early_leaver = frame["user_id"].iloc[0]
    frame = frame[~((frame["user_id"] == early_leaver) & (frame.index > 1000))]  # stops logging early
    frame = frame.sample(frac=1.0, random_state=0)  # row order is not time order
    train = load_log(data=frame, test_fraction=0.3)
    test = load_log(data=frame, split="test", test_fraction=0.3)
    assert train.split == "train" and test.split == "test"
    assert train.n_rows + test.n_rows == len(frame)
    assert test.n_rows >= math.ceil(0.3 * len(frame)) and test.n_rows < 0.32 * len(frame)
    assert train.timestamps.max() < test.timestamps.min()  # one cut for all users
    stamps = pd.to_datetime(frame["timestamp"]).to_numpy()
    assert (stamps[test.source_rows] >= stamps[train.source_rows].max()).all()
    assert np.all(np.diff(train.source_rows) > 0) and np.all(np.diff(test.source_rows) > 0)  # the log's order
    labels = (frame["action"] == "opened").to_numpy()
    assert np.array_equal(test.labels, labels[test.source_rows])
    users = np.array(test.vocabularies["user_id"])[test.users]
    assert early_leaver not in set(users)  # only in the training part
    whole = load_log(data=frame)
    assert whole.split is None and whole.n_rows == len(frame)


def test_rows_at_the_cut_off_instant_all_go_to_the_test_part(small):
    frame = small.copy()
    frame["timestamp"] = np.where(np.arange(len(frame)) < 100, "2024-03-04T08:00:00", "2024-03-05T08:00:00")
    test = load_log(data=frame, split="test", test_fraction=0.1)
    assert test.n_rows == 300
    frame["timestamp"] = "2024-03-04T08:00:00"
    with pytest.raises(ValueError, match="train part.*empty"):
        load_log(data=frame, test_fraction=0.1)


def test_bundled_data_is_split_by_file_only():
    with pytest.raises(ValueError, match="already split"):
        load_log(test_fraction=0.2)
    assert load_log(split="test").source.endswith("notifications_test.csv")


def test_vocabularies_are_read_only(small):
    env = gymnasium.make("gym_suite:push-v0", data=small, episode_length=10).unwrapped
    for vocabularies in (env.vocabularies, VOCABULARIES, pickle.loads(pickle.dumps(env.vocabularies))):
        with pytest.raises(TypeError):
            vocabularies["app"] = ("x",)
        with pytest.raises(TypeError):
            del vocabularies["app"]
    with pytest.raises((TypeError, AttributeError)):
        env.vocabularies["app"].append("x")
    assert gymnasium.make("gym_suite:push-v0").unwrapped.vocabularies["app"] == VOCABULARIES["app"]


def dst_log(small: pd.DataFrame) -> pd.DataFrame:
    """``small`` with timestamps across the change to summer time in Central Europe."""
    frame = small.head(40).copy()
    instants = pd.date_range("2024-03-31T00:10:00", periods=40, freq="5min")  # UTC, 5 minutes apart
    change = pd.Timestamp("2024-03-31T01:00:00")  # clocks go from 02:00 +01:00 to 03:00 +02:00
    offsets = [1 if t < change else 2 for t in instants]
    frame["timestamp"] = [
        (t + pd.Timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M:%S") + f"+0{h}:00" for t, h in zip(instants, offsets)
    ]
    return frame


@pytest.mark.parametrize("source", ["csv", "frame"])
def test_mixed_utc_offsets(small, tmp_path, source):
    frame = dst_log(small)
    assert frame["timestamp"].str.endswith("+01:00").any() and frame["timestamp"].str.endswith("+02:00").any()
    env = gymnasium.make("gym_suite:push-v0", episode_length=None, **source_kwargs(frame, tmp_path, source))
    log = env.unwrapped.log
    assert log.utc
    expected = pd.to_datetime(frame["timestamp"], utc=True).dt.tz_localize(None).to_numpy(dtype="datetime64[s]")
    assert np.array_equal(log.timestamps, expected)
    assert np.all(np.diff(log.timestamps) > np.timedelta64(0, "s"))  # 5 minutes apart in real time
    obs, _ = env.reset(seed=0)
    assert obs["hour"][0] == np.float32(frame["hour"].iloc[0])  # the log's local hour, as written
    # ordering is by instant: 10:00+05:00 (05:00 UTC) comes before 08:00+00:00
    zones = small.head(4).copy()
    zones["timestamp"] = ["2024-03-04T10:00:00+05:00", "2024-03-04T08:00:00+00:00", "2024-03-04T01:00:00-06:00",
                          "2024-03-04T06:00:00Z"]  # fmt: skip
    test = load_log(data=zones, split="test", test_fraction=0.25)
    assert test.source_rows.tolist() == [1]
    assert str(test.timestamps[0]) == "2024-03-04T08:00:00"


@pytest.mark.parametrize("source", ["csv", "frame"])
def test_offset_and_naive_timestamps_mixed_name_the_first_bad_row(small, tmp_path, source):
    frame = dst_log(small)
    frame.loc[7, "timestamp"] = frame.loc[7, "timestamp"][:19]  # the offset dropped
    with pytest.raises(ValueError, match=r"'timestamp', row 7.*has no UTC offset.*row 0"):
        gymnasium.make("gym_suite:push-v0", **source_kwargs(frame, tmp_path, source))
    naive_first = small.head(20).copy()
    naive_first.loc[3, "timestamp"] = "2024-03-04T05:00:00+01:00"
    with pytest.raises(ValueError, match=r"'timestamp', row 3.*has a UTC offset"):
        load_log(data=naive_first)


def test_cache_keys_on_content_and_frees_unused_logs(small, tmp_path):
    # a file rewritten with the same size and modification time is read again
    path = to_csv(small, tmp_path / "log.csv")
    first = gymnasium.make("gym_suite:push-v0", csv_path=path, episode_length=10).unwrapped
    lines = path.read_bytes().split(b"\n")
    swapped = lines[0:1] + [lines[2], lines[1]] + lines[3:]
    stat = path.stat()
    path.write_bytes(b"\n".join(swapped))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    second = gymnasium.make("gym_suite:push-v0", csv_path=path, episode_length=10).unwrapped
    assert second.log is not first.log
    assert np.array_equal(second.log.codes[:, 0], first.log.codes[:, 1])
    assert np.array_equal(second.log.codes[:, 1], first.log.codes[:, 0])
    # the same bytes under another name share one copy
    copy = tmp_path / "copy.csv"
    copy.write_bytes(path.read_bytes())
    assert gymnasium.make("gym_suite:push-v0", csv_path=copy, episode_length=10).unwrapped.log is second.log
    # logs no environment uses are freed
    refs = []
    for k in range(6):
        frame = small.copy()
        frame["battery"] = (frame["battery"] + k) % 100  # six different files
        env = gymnasium.make("gym_suite:push-v0", csv_path=to_csv(frame, tmp_path / f"log{k}.csv"), episode_length=10)
        env.reset(seed=k)
        env.step(1)
        refs.append(weakref.ref(env.unwrapped.log))
        env.close()
        del env
    parts = [weakref.ref(load_log(path, split=split, test_fraction=0.5)) for split in ("train", "test")]
    digests = {first.log.digest, second.log.digest} | {ref().digest for ref in refs if ref() is not None}
    del first, second
    gc.collect()
    assert all(ref() is None for ref in refs + parts)
    assert not any(key[0] in digests for key in list(push_log._CACHE.keys()))


def test_envs_on_one_file_share_one_log(small, tmp_path):
    path = to_csv(small, tmp_path / "log.csv")
    a = gymnasium.make("gym_suite:push-v0", csv_path=path, episode_length=20).unwrapped
    b = gymnasium.make("gym_suite:push-v0", csv_path=str(path), episode_length=None).unwrapped
    vec = gymnasium.make_vec("gym_suite:push-v0", num_envs=3, csv_path=path, episode_length=20)
    assert a.log is b.log is vec.log and a.vocabularies is b.vocabularies
    tr = gymnasium.make("gym_suite:push-v0", csv_path=path, test_fraction=0.5, episode_length=10).unwrapped
    te = gymnasium.make("gym_suite:push-v0", csv_path=path, test_fraction=0.5, split="test", episode_length=10)
    again = gymnasium.make("gym_suite:push-v0", csv_path=path, test_fraction=0.5, episode_length=None)
    assert tr.log is again.unwrapped.log
    assert tr.log is not te.unwrapped.log and tr.log is not a.log


def test_parts_and_logs_pickle(small, tmp_path):
    path = to_csv(small, tmp_path / "log.csv")
    part = load_log(path, split="test", test_fraction=0.4)
    copy = pickle.loads(pickle.dumps(part))
    for name in ("codes", "numbers", "labels", "users", "timestamps", "p_open", "source_rows"):
        assert np.array_equal(getattr(copy, name), getattr(part, name))
        assert not getattr(copy, name).flags.writeable
    assert copy.vocabularies == part.vocabularies and copy.split == "test"
    bundled = load_log(split="test")
    assert pickle.loads(pickle.dumps(bundled)) is bundled


def gzip_bytes(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def zip_bytes(*files: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for i, data in enumerate(files):
            archive.writestr(f"log{i}.csv", data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "compress", [gzip_bytes, bz2.compress, lzma.compress, zip_bytes], ids=["gzip", "bz2", "xz", "zip"]
)
def test_compressed_logs_are_read_whatever_their_name(small, tmp_path, compress):
    plain = to_csv(small, tmp_path / "plain.csv")
    packed = tmp_path / "packed.csv"  # the name says CSV: the bytes say compressed
    packed.write_bytes(compress(plain.read_bytes()))
    a, b = load_log(plain), load_log(packed)
    for name in ("codes", "numbers", "labels", "users", "timestamps", "p_open"):
        assert np.array_equal(getattr(a, name), getattr(b, name))


def write_bytes(name: str, data):
    """A maker of the file ``name`` holding ``data`` (bytes, or bytes of the small log)."""

    def make(tmp_path: Path, small: pd.DataFrame) -> Path:
        path = tmp_path / name
        path.write_bytes(data(small) if callable(data) else data)
        return path

    return make


def csv_bytes(small: pd.DataFrame, **cells) -> bytes:
    frame = small.copy()
    for column, value in cells.items():
        frame.loc[3, column] = value
    return frame.to_csv(index=False).encode("latin-1" if cells else "utf-8")


def duplicate_header(small: pd.DataFrame) -> bytes:
    frame = small.copy()
    frame.insert(3, "app_again", frame["app"])
    return frame.to_csv(index=False).replace("app_again", "app").encode()


BAD_FILES = {
    "latin-1": (write_bytes("latin1.csv", lambda s: csv_bytes(s, app="com.café")), ValueError, r"latin1\.csv.*not UTF-8 .*0xe9"),
    "png": (write_bytes("picture.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ValueError, r"picture\.csv.*not UTF-8"),
    "nul bytes": (write_bytes("nul.csv", b"timestamp,user_id\x00\x00\n"), ValueError, r"nul\.csv.*binary"),
    "empty file": (write_bytes("empty.csv", b""), ValueError, r"empty\.csv.*empty"),
    "broken gzip": (write_bytes("cut.csv", lambda s: gzip_bytes(csv_bytes(s))[:200]), ValueError, r"cut\.csv.*gzip.*cannot be decompressed"),
    "duplicate header": (write_bytes("dup.csv", duplicate_header), ValueError, r"dup\.csv.*\['app'\] more than once"),
    "ragged rows": (write_bytes("ragged.csv", lambda s: csv_bytes(s) + b",".join([b"x"] * 20) + b"\n"), ValueError, r"ragged\.csv is not a well-formed CSV file.*Expected 16 fields"),
    "directory": (lambda tmp_path, small: tmp_path, ValueError, "is a directory"),
    "empty path": (lambda tmp_path, small: "", ValueError, "csv_path='' is empty"),
    "missing": (lambda tmp_path, small: tmp_path / "no_such.csv", FileNotFoundError, r"no_such\.csv.*no such file"),
    "under a file": (lambda t, s: write_bytes("f.csv", b"x")(t, s) / "log.csv", FileNotFoundError, r"f\.csv/log\.csv.*no such file"),
    "a number": (lambda tmp_path, small: 3, TypeError, "csv_path must be a path"),
    "zip of two files": (write_bytes("two.zip", lambda s: zip_bytes(csv_bytes(s), csv_bytes(s))), ValueError, r"two\.zip is a zip archive of 2 files"),
    **{f"NUL in {path!r}": (lambda t, s, path=path: path, ValueError, r"csv_path=.* holds a NUL character") for path in ("\x00", "log\x00.csv", "/tmp/\x00/log.csv")},
    "long path": (lambda t, s: str(t / ("d" * 100_000) / "my_log.csv"), OSError, r"csv_path=.*\.\.\..*my_log\.csv"),  # cut in the middle
}  # fmt: skip


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_raise_clear_errors(small, tmp_path, case):
    make, error, match = BAD_FILES[case]
    csv_path = make(tmp_path, small)
    gc.collect()
    cached = dict(push_log._CACHE)
    with pytest.raises(error, match=match) as info:
        gymnasium.make("gym_suite:push-v0", csv_path=csv_path)
    # not a subclass raised from deep inside (UnicodeDecodeError, ...); a TypeError is the suite's own
    # short one (gymnasium.make appends its keyword arguments to it)
    assert type(info.value) is (ArgumentTypeError if error is TypeError else error)
    assert len(str(info.value)) < 1000
    assert dict(push_log._CACHE) == cached  # nothing changed


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_names_it(small, tmp_path):
    path = to_csv(small, tmp_path / "secret.csv")
    path.chmod(0)
    try:
        with pytest.raises(PermissionError, match=r"secret\.csv.*permission denied"):
            load_log(path)
    finally:
        path.chmod(0o600)


@pytest.mark.parametrize(
    "columns, match",
    [
        (lambda f: pd.concat([f, f[["app"]]], axis=1).columns, r"data has the column\(s\) \['app'\] more than once"),
        (lambda f: pd.MultiIndex.from_tuples([(c, "x") for c in f.columns]), r"data has hierarchical \(MultiIndex\)"),
        (lambda f: pd.MultiIndex.from_tuples([(c,) for c in f.columns]), r"data has hierarchical \(MultiIndex\)"),
    ],
    ids=["repeated", "two levels", "one level"],
)
def test_a_frames_odd_columns_are_named(small, columns, match):
    frame = pd.concat([small, small[["app"]]], axis=1) if "more than once" in match else small.copy()
    frame.columns = columns(small)
    with pytest.raises(ValueError, match=match):
        gymnasium.make("gym_suite:push-v0", data=frame)


WHOLE_COLUMNS = {"a bool column": lambda n: np.ones(n, dtype=bool), "a complex column": lambda n: np.full(n, 1 + 0j)}


@pytest.mark.parametrize("column", ["priority", "num_updates", "text_length", "hour", "battery", "significant_contact"])
@pytest.mark.parametrize(
    "bad", [complex(1, 2), complex(1, 0), np.complex128(3 + 0j), True, np.bool_(False), *WHOLE_COLUMNS]
)
def test_numeric_columns_refuse_complex_numbers_and_bools(small, column, bad):
    if column == "significant_contact" and (isinstance(bad, (bool, np.bool_)) or bad == "a bool column"):
        return  # a yes/no field: a boolean is its value (test_significant_contact_takes_booleans)
    frame, row = small.astype({column: object}), 0 if isinstance(bad, str) else 7
    if isinstance(bad, str):
        frame[column] = WHOLE_COLUMNS[bad](len(small))
    else:
        frame.loc[frame.index[7], column] = bad
    with pytest.raises(ValueError, match=rf"column '{column}', row {row}: .* is not a (real )?number"):
        load_log(data=frame)


def test_complex_numbers_in_a_csv_are_refused(small, tmp_path):
    frame = small.astype({"battery": object})
    frame.loc[frame.index[3], "battery"] = "(0.5+1j)"
    with pytest.raises(ValueError, match=r"column 'battery', row 3 \(line 5 of the file\)"):
        load_log(csv_path=to_csv(frame, tmp_path / "complex.csv"))


@pytest.mark.parametrize("mixed", [False, True])
def test_significant_contact_takes_booleans(small, mixed):
    """A yes/no field: False and True are 0 and 1, a whole bool column or among the numbers."""
    frame = small.copy()
    flags = frame["significant_contact"].astype(bool)
    frame["significant_contact"] = flags.astype(object) if mixed else flags
    if mixed:  # the first half as numbers, the rest as booleans
        half = frame.index[: len(frame) // 2]
        frame.loc[half, "significant_contact"] = small.loc[half, "significant_contact"].astype(int)
    as_numbers, as_booleans = load_log(data=small), load_log(data=frame)
    assert flags.any() and not flags.all()
    np.testing.assert_array_equal(as_booleans.codes, as_numbers.codes)


@pytest.mark.parametrize(
    "name, value",
    [
        *(("test_fraction", bad) for bad in ("0.2", True, __import__("decimal").Decimal("0.2"), [0.2])),
        ("vocabularies", {"app": [3] * 10_000}),
        ("split", ["train"] * 10_000),
        ("csv_path", 3.5),
    ],
)
def test_a_bad_argument_beside_a_frame_keeps_the_message_short(small, name, value):
    with pytest.raises((TypeError, ValueError), match=name) as err:
        gymnasium.make("gym_suite:push-v0", data=small.head(50), **{name: value})
    assert len(str(err.value)) < 1000


_CHECKED_COLUMNS = [
    "timestamp", "priority", "num_updates", "significant_contact", "text_length", "day_of_week", "hour", "battery",
    "action",
]  # fmt: skip


@given(
    column=st.sampled_from(_CHECKED_COLUMNS),
    row=st.integers(0, 49),
    value=st.one_of(
        st.text(alphabet="xyz!?", min_size=1_000, max_size=20_000),
        st.lists(st.integers(10**6, 10**7), min_size=200, max_size=400).map(tuple),
    ),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_long_bad_cell_in_any_checked_column_gives_a_short_message(small, column, row, value):
    frame = small.head(50).copy()
    frame[column] = frame[column].astype(object)
    frame.at[frame.index[row], column] = value
    with pytest.raises(ValueError, match=rf"column '{column}', row {row}") as err:
        load_log(data=frame)
    assert len(str(err.value)) < 1000
