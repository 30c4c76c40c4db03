"""Notification logs for ``push-v0`` and ``push-v1``: the schema, the fixed vocabularies, reading,
checking, caching and splitting.

A log has one row per notification, its context and the person's reaction: the columns of
:data:`SCHEMA` (``p_open``, the true open probability, and ``response_delay_s`` optional; other
columns ignored). The categorical fields are indices into fixed vocabularies (:data:`VOCABULARIES`),
so the observation space is the same for every log: the open-ended fields :data:`OPEN_FIELDS` list
the bundled generator's values, then :data:`OTHER`, the index of every value outside them (a log
may pass its own: ``vocabularies={"app": ("com.a", "com.b")}``, :data:`OTHER` appended);
``day_of_week`` and ``significant_contact`` (0 or 1, or a boolean) are closed. ``log.vocabularies``
is read-only, shared by every environment on the log, and holds ``user_id`` too (never observed).

:func:`load_log` reads the bundled data (by ``split``), a CSV file (``csv_path``: UTF-8, plain or
compressed with gzip, bzip2, xz, zip or zstd, recognised from the bytes) or a pandas DataFrame
(``data``, encoded anew on every call), imports pandas only then, and caches logs weakly by the
SHA-256 of the file's bytes, the vocabularies and the split (the bundled logs with the default
vocabularies stay for the life of the process). A bad log raises at construction naming the file
(or ``data``), the column and the first bad row, in under 1,000 characters, leaving the cache as
it was.

Timestamps order the rows and split a log; they are never observed. Either every one has a UTC
offset (compared as instants, kept in UTC: ``log.utc``) or none has (taken as written).
``test_fraction=f`` (0 < f < 1) splits a user log in time: the test part is every row from the
timestamp of the row ``ceil(f * n)``-th from the end in time order on, one instant for all users;
the train part every row before. Both keep the log's row order (``log.source_rows`` maps their
rows to the log's). Without ``test_fraction`` ``split="train"`` replays all of a user log.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import hashlib
import io
import lzma
import math
import numbers
import os
import re
import threading
import weakref
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias, TypeVar

import numpy as np
from gymnasium import spaces

from gym_suite.envs.checks import ArgumentTypeError, shown, shown_path

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas  # no type hints of its own: Any to mypy

_K = TypeVar("_K")
_V = TypeVar("_V")
_ArrayT = TypeVar("_ArrayT", bound="np.ndarray[Any, Any]")
#: A categorical field's values in code order: strings (``significant_contact``'s: False, True).
Vocabulary: TypeAlias = "tuple[str | bool, ...]"
#: Rows of the log by position (``windows``' order and starts, ``source_rows``).
Rows: TypeAlias = "npt.NDArray[np.intp]"


class ReadOnlyMapping(Mapping[_K, _V]):
    """A mapping that cannot be changed (like ``types.MappingProxyType``, but it pickles)."""

    __slots__ = ("_data",)

    _data: dict[_K, _V]

    def __init__(self, data: Mapping[_K, _V] | Iterable[tuple[_K, _V]] = ()) -> None:
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key: _K) -> _V:
        return self._data[key]

    def __iter__(self) -> Iterator[_K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._data!r})"

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __reduce__(self) -> tuple[type[ReadOnlyMapping[_K, _V]], tuple[dict[_K, _V]]]:
        return type(self), (self._data,)


ACTION_VALUES = ("dismissed", "opened")  # the `action` column; the index is the label
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
RINGER_MODES = ("normal", "vibrate", "silent")  # android.media.AudioManager.RINGER_MODE_*
PRIORITY_MIN, PRIORITY_MAX = -2, 2  # android.app.Notification.PRIORITY_MIN .. PRIORITY_MAX
MAX_UPDATES = 1000  # the schema's cap on how often one notification was updated
MAX_TEXT_LENGTH = 5120  # androidx NotificationCompat.Builder.MAX_CHARSEQUENCE_LENGTH: longer text is cut
HOURS_PER_DAY = 24
BATTERY_FULL = 100  # percent

TIMESTAMP, USER, ACTION, TRUTH = "timestamp", "user_id", "action", "p_open"
CATEGORICAL_FIELDS = ("app", "category", "significant_contact", "day_of_week", "location", "ringer_mode")
NUMERIC_FIELDS = ("priority", "num_updates", "text_length", "hour", "battery")
#: Every column of the bundled logs, in their order (the last two optional), and how it is checked:
#: "time", "text", "open" (a vocabulary ending with OTHER), "closed" (a fixed vocabulary) or the
#: ``(low, high, integer)`` of a number.
SCHEMA: ReadOnlyMapping[str, Any] = ReadOnlyMapping({
    TIMESTAMP: "time", USER: "text", "app": "open", "category": "open", "priority": (PRIORITY_MIN, PRIORITY_MAX, True),
    "num_updates": (0, MAX_UPDATES, True), "significant_contact": (0, 1, True), "text_length": (0, MAX_TEXT_LENGTH, True),
    "day_of_week": "closed", "hour": (0, HOURS_PER_DAY, False), "location": "open", "ringer_mode": "open",
    "battery": (0, BATTERY_FULL, False), ACTION: "closed", "response_delay_s": None, TRUTH: (0, 1, False),
})  # fmt: skip
#: the observation's numeric fields and their Box bounds, which user logs must respect too
NUMERIC_BOUNDS = {name: SCHEMA[name][:2] for name in NUMERIC_FIELDS}
STRING_COLUMNS = tuple(name for name, kind in SCHEMA.items() if isinstance(kind, str))
COLUMNS = tuple(SCHEMA)
REQUIRED_COLUMNS = COLUMNS[:-2]

#: the index of every value a vocabulary does not list: the last entry of an open-ended vocabulary
OTHER = "<other>"
#: the apps of the bundled generator (gym-suite/tools/make_notifications.py), in its order
APPS = (
    "com.whatsapp", "org.telegram.messenger", "com.google.android.apps.messaging", "com.Slack", "com.google.android.gm",
    "com.microsoft.office.outlook", "com.instagram.android", "com.facebook.katana", "com.twitter.android",
    "com.linkedin.android", "com.amazon.mShop.android.shopping", "com.ebay.mobile", "com.king.candycrushsaga",
    "com.booking", "com.google.android.calendar", "com.todoist", "com.google.android.apps.fitness",
    "com.spotify.music", "bbc.mobile.news.ww", "com.android.vending",
)  # fmt: skip
#: Android Notification.CATEGORY_* values of the generator, in its order
CATEGORIES = ("msg", "email", "social", "promo", "event", "reminder", "recommendation", "status")
LOCATIONS = ("home", "work", "transit", "other")
#: the fields whose values outside the vocabulary are encoded as OTHER (and which a log may redefine)
OPEN_FIELDS = tuple(name for name, kind in SCHEMA.items() if kind == "open")
#: every categorical field's vocabulary; an open-ended one ends with OTHER
VOCABULARIES: ReadOnlyMapping[str, Vocabulary] = ReadOnlyMapping(
    {
        "app": APPS + (OTHER,),
        "category": CATEGORIES + (OTHER,),
        "significant_contact": (False, True),  # written 0 or 1
        "day_of_week": DAY_NAMES,
        "location": LOCATIONS + (OTHER,),
        "ringer_mode": RINGER_MODES + (OTHER,),
    }
)

SPLITS = ("train", "test")
BUNDLED_PACKAGE = "gym_suite.envs"
#: the bundled file of each split, in the package BUNDLED_PACKAGE
BUNDLED_FILES: ReadOnlyMapping[str, str] = ReadOnlyMapping(
    {
        "train": "data/notifications_train.csv",  # weeks 1-6
        "test": "data/notifications_test.csv",  # weeks 7-12 of the same users
    }
)
#: (package, resource) of the default log, the training one
BUNDLED_RESOURCE = (BUNDLED_PACKAGE, BUNDLED_FILES["train"])

# the first bytes of the compressed formats read_log recognises
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
)
# a UTC offset at the end of an ISO 8601 date and time (after the time, so "2024-03-04" has none)
_OFFSET = re.compile(r"[T ]\d{2}(?::?\d{2}){0,2}(?:[.,]\d+)?\s*(?:[Zz]|[+-]\d{2}(?::?\d{2})?)\s*$")


def _frozen(array: _ArrayT) -> _ArrayT:
    array.flags.writeable = False
    return array


class NotificationLog:
    """A notification log encoded to read-only arrays (row ``i`` is the log's notification ``i``).

    Field by field, so that a batch of rows is gathered in one ``np.take``: ``codes[j, i]`` is
    the index of row ``i``'s ``CATEGORICAL_FIELDS[j]`` in ``vocabularies``, ``numbers[j, i]``
    the value of its ``NUMERIC_FIELDS[j]``; ``labels`` is 1 where the person opened the
    notification; ``users`` indexes ``vocabularies["user_id"]``; ``timestamps`` are
    ``datetime64[s]`` (UTC when ``utc``); ``p_open`` is the true open probability when the log
    has that column, else ``None``. ``vocabularies`` is a read-only mapping of tuples.

    ``split`` is ``"train"`` or ``"test"`` for a part of a log (or a bundled file), ``None``
    for a whole user log; ``source_rows[i]`` is the row of the file (or DataFrame) that row
    ``i`` came from. ``digest`` is the SHA-256 of the file's bytes (``None`` for a DataFrame).
    """

    def __init__(
        self,
        source: str,
        codes: npt.NDArray[np.int64],
        numbers: npt.NDArray[np.float32],
        labels: npt.NDArray[np.int64],
        users: npt.NDArray[np.int64],
        timestamps: npt.NDArray[np.datetime64],
        p_open: npt.NDArray[np.float64] | None,
        vocabularies: Mapping[str, Sequence[str | bool]],
        digest: str | None = None,
        utc: bool = False,
        split: str | None = None,
        source_rows: Rows | None = None,
        bundled: bool = False,
    ) -> None:
        self.source = source
        self.codes, self.numbers, self.labels = _frozen(codes), _frozen(numbers), _frozen(labels)
        self.users, self.timestamps = _frozen(users), _frozen(timestamps)
        self.p_open = None if p_open is None else _frozen(p_open)
        self.vocabularies = ReadOnlyMapping({k: tuple(v) for k, v in vocabularies.items()})
        self.n_rows = len(labels)
        self.digest = digest
        self.utc = bool(utc)
        self.split = split
        self._source_rows = None if source_rows is None else _frozen(source_rows)
        self.bundled = bundled
        self._windows: dict[int | None, tuple[Rows, Rows]] = {}

    @property
    def source_rows(self) -> Rows:
        """The row of the file (or DataFrame) of each row: ``arange(n_rows)`` for a whole log."""
        return np.arange(self.n_rows) if self._source_rows is None else self._source_rows

    def __repr__(self) -> str:
        part = "" if self.split is None else f", split={self.split!r}"
        return f"NotificationLog({self.source!r}, {self.n_rows} rows{part})"

    def windows(self, length: int | None) -> tuple[Rows, Rows]:
        """``(order, starts)`` for episodes of ``length`` rows (``None``: the whole log).

        ``order`` lists the log's rows in replay order: grouped by user, each user's rows in
        the order of the log (for ``None``, simply the log's order). A window is
        ``order[s : s + length]`` for a start ``s`` of ``starts``: every position whose next
        ``length`` rows belong to one user.
        """
        if length not in self._windows:
            if length is None:
                order = np.arange(self.n_rows)
                starts = np.zeros(1, dtype=np.int64)
            else:
                order = np.argsort(self.users, kind="stable")
                grouped = self.users[order]
                segment_end = np.searchsorted(grouped, grouped, side="right")
                starts = np.flatnonzero(np.arange(self.n_rows) + length <= segment_end)
                if len(starts) == 0:
                    longest = int(np.bincount(self.users).max())
                    raise ValueError(
                        f"episode_length={length} is longer than every user's history in {self.source} "
                        f"(the longest has {longest} rows); use episode_length <= {longest} or None (the whole log)"
                    )
            self._windows[length] = (_frozen(order), _frozen(starts))
        return self._windows[length]

    def __reduce__(self) -> tuple[Callable[..., NotificationLog], tuple[Any, ...]]:
        if self.bundled:  # a bundled log: reload it (shared again) instead of copying the arrays
            custom = {k: self.vocabularies[k] for k in OPEN_FIELDS if self.vocabularies[k] != VOCABULARIES[k]}
            return _bundled_log, (self.split, custom or None, self.digest)
        state = {k: v for k, v in vars(self).items() if k not in ("_windows", "n_rows", "_source_rows")}
        state["source_rows"] = self._source_rows
        return _restore_log, (state,)


def _restore_log(state: dict[str, Any]) -> NotificationLog:
    return NotificationLog(**state)


def check_vocabularies(vocabularies: object = None, owner: str = "load_log") -> ReadOnlyMapping[str, Vocabulary]:
    """:data:`VOCABULARIES` with the open-ended fields of ``vocabularies`` replaced (read-only).

    Each given vocabulary is a sequence of distinct strings; :data:`OTHER` is appended unless
    it is already the last one.
    """
    if vocabularies is None:
        return VOCABULARIES
    if not isinstance(vocabularies, Mapping):
        raise ArgumentTypeError(
            f"{owner}: vocabularies must be a mapping of field name to values, e.g. "
            f"{{'app': ('com.whatsapp', 'com.Slack')}}, got {type(vocabularies).__name__}"
        )
    merged = dict(VOCABULARIES)
    for field, values in vocabularies.items():
        if field in OPEN_FIELDS:
            merged[field] = _check_vocabulary(field, values, owner)
        elif field not in VOCABULARIES or not isinstance(values, (tuple, list)) or tuple(values) != VOCABULARIES[field]:
            fixed = " (fixed by the schema)" if field in VOCABULARIES else ""
            raise ValueError(
                f"{owner}: vocabularies[{shown(field)}]{fixed}: only the vocabularies of {list(OPEN_FIELDS)} can be given"
            )  # a fixed vocabulary may be given as it is (VOCABULARIES passed back)
    return ReadOnlyMapping(merged)


def _check_vocabulary(field: str, values: object, owner: str) -> Vocabulary:
    """An open field's vocabulary: distinct strings, :data:`OTHER` appended (or already last)."""
    name = f"{owner}: vocabularies[{shown(field)}]"
    if isinstance(values, (str, bytes)) or not isinstance(values, (tuple, list)):
        raise ArgumentTypeError(f"{name} must be a tuple or list of strings, got {type(values).__name__}")
    values = tuple(values)
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise ArgumentTypeError(f"{name} must hold strings, got {shown(bad[0])}")
    if values and values[-1] == OTHER:
        values = values[:-1]
    if not values:
        raise ValueError(f"{name} is empty; give at least one value")
    if OTHER in values:
        raise ValueError(f"{name}: {OTHER!r} marks values outside the vocabulary; it can only be the last entry")
    repeated = sorted({v for v in values if values.count(v) > 1})
    if repeated:
        raise ValueError(f"{name} lists {shown(repeated)} more than once")
    return values + (OTHER,)


def check_split(split: object, test_fraction: object, owner: str = "load_log") -> tuple[str, float | None]:
    """``(split, test_fraction)`` checked: ``"train"`` or ``"test"``, and ``None`` or 0 < f < 1."""
    if not isinstance(split, str):
        raise ArgumentTypeError(f"{owner}: split must be one of {list(SPLITS)}, got {shown(split)}")
    if split not in SPLITS:
        raise ValueError(f"{owner}: split must be one of {list(SPLITS)}, got {shown(split)}")
    if test_fraction is None:
        return split, None
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, numbers.Real):
        raise ArgumentTypeError(
            f"{owner}: test_fraction must be None or a number between 0 and 1, got {shown(test_fraction)}"
        )
    try:
        fraction = float(test_fraction)
    except OverflowError:  # an integer past the largest float
        fraction = math.inf
    if not 0.0 < fraction < 1.0:  # NaN fails too
        raise ValueError(
            f"{owner}: test_fraction must be None or a number strictly between 0 and 1, got {shown(test_fraction)}"
        )
    return split, fraction


def observation_space(vocabularies: Mapping[str, Sequence[object]] | None = None) -> spaces.Dict:
    """The observation space of ``push-v0`` for these vocabularies (default: :data:`VOCABULARIES`).

    Categorical fields are ``Discrete(len(vocabulary))``; numeric ones
    ``Box(low, high, (1,), float32)`` with the schema's bounds (:data:`NUMERIC_BOUNDS`).
    """
    vocabularies = VOCABULARIES if vocabularies is None else vocabularies
    fields: dict[str, spaces.Space[Any]] = {
        name: spaces.Discrete(len(vocabularies[name])) for name in CATEGORICAL_FIELDS
    }
    for name in NUMERIC_FIELDS:
        low, high = NUMERIC_BOUNDS[name]
        fields[name] = spaces.Box(np.float32(low), np.float32(high), shape=(1,), dtype=np.float32)
    return spaces.Dict(fields)


#: encoded logs by (digest or bundled split, vocabularies, split, test_fraction); held weakly
_CACHE: weakref.WeakValueDictionary[tuple[Any, ...], NotificationLog] = weakref.WeakValueDictionary()
#: the bundled logs with the default vocabularies, kept once read
_BUNDLED: dict[str, NotificationLog] = {}
_LOCK = threading.RLock()


def _pandas() -> Any:  # the pandas module (it has no type hints of its own)
    import pandas  # only when a log is read: `import gym_suite` stays light

    return pandas


def _vocabulary_key(vocabularies: Mapping[str, Vocabulary]) -> tuple[Vocabulary, ...]:
    return tuple(vocabularies[name] for name in OPEN_FIELDS)


def load_log(
    csv_path: str | os.PathLike[str] | None = None,
    data: pandas.DataFrame | None = None,
    *,
    split: str = "train",
    test_fraction: float | None = None,
    vocabularies: Mapping[str, Sequence[str | bool]] | None = None,
    owner: str = "load_log",
) -> NotificationLog:
    """The encoded, checked log of ``csv_path`` (a CSV file) or ``data`` (a pandas DataFrame), or
    of the bundled data: ``split`` picks the bundled file, or with ``test_fraction`` the part of a
    user log; ``vocabularies`` replaces some open-ended ones (see the module's docstring).
    ``owner`` starts the messages of argument errors."""
    split, test_fraction = check_split(split, test_fraction, owner)
    vocabularies = check_vocabularies(vocabularies, owner)
    if data is not None and csv_path is not None:
        raise ValueError(f"{owner}: give csv_path or data, not both")
    if data is not None:
        pd = _pandas()
        if not isinstance(data, pd.DataFrame):
            raise ArgumentTypeError(f"{owner}: data must be a pandas DataFrame, got {type(data).__name__}")
        log = _encode(data, "data", False, vocabularies)
        return _part(log, split, test_fraction, owner)
    if csv_path is None:
        if test_fraction is not None:
            raise ValueError(
                f"{owner}: test_fraction={shown(test_fraction)} splits a log of your own; the bundled data is "
                "already split in two files (weeks 1-6 for split='train', weeks 7-12 for split='test'): "
                "leave test_fraction=None"
            )
        return _bundled_log(split, vocabularies)
    raw, name = _read_bytes(csv_path, owner)
    digest = hashlib.sha256(raw).hexdigest()
    vocabulary_key = _vocabulary_key(vocabularies)
    with _LOCK:
        key = (digest, vocabulary_key, split, test_fraction)
        log = _CACHE.get(key)  # type: ignore[assignment]
        if log is None:
            whole_key = (digest, vocabulary_key, None, None)
            whole = _CACHE.get(whole_key)
            if whole is None:
                whole = _encode(read_csv_bytes(raw, name), name, True, vocabularies, digest)
            log = _part(whole, split, test_fraction, owner)
            _CACHE[whole_key] = whole
            _CACHE[key] = log
        return log


def _bundled_log(
    split: str = "train", vocabularies: Mapping[str, Sequence[str | bool]] | None = None, digest: str | None = None
) -> NotificationLog:
    """The bundled log of ``split`` (kept once read with the default vocabularies)."""
    vocabularies = check_vocabularies(vocabularies, "push-v0")
    key = ("bundled", _vocabulary_key(vocabularies), split, None)
    with _LOCK:
        log = _CACHE.get(key)
        if log is None:
            name = BUNDLED_FILES[split]
            raw = resources.files(BUNDLED_PACKAGE).joinpath(name).read_bytes()  # works from a wheel or a zip
            source = f"the bundled {name.rsplit('/', 1)[-1]}"
            digest_read = hashlib.sha256(raw).hexdigest()
            log = _encode(read_csv_bytes(raw, source), source, True, vocabularies, digest_read, split, bundled=True)
            _CACHE[key] = log
            if key[1] == _vocabulary_key(VOCABULARIES):
                _BUNDLED[split] = log  # kept for the life of the process
    if digest is not None and digest != log.digest:
        raise ValueError(
            f"the bundled {BUNDLED_FILES[split]} differs from the one this environment was pickled with "
            "(gym_suite was reinstalled in between); it cannot continue the episode"
        )
    return log


def _read_bytes(csv_path: object, owner: str) -> tuple[bytes, str]:
    """The bytes of the file at ``csv_path`` and the name to report it by."""
    if not isinstance(csv_path, (str, os.PathLike)):
        raise ArgumentTypeError(f"{owner}: csv_path must be a path (str or os.PathLike) or None, got {shown(csv_path)}")
    path = os.fspath(csv_path)
    if not isinstance(path, str):
        raise ArgumentTypeError(
            f"{owner}: csv_path must be a text path (str or os.PathLike of str), got {shown(csv_path)}"
        )
    if "\x00" in path:
        raise ValueError(f"{owner}: csv_path={shown_path(path)} holds a NUL character; give the path of a CSV file")
    if not path.strip():
        raise ValueError(
            f"{owner}: csv_path={shown_path(path)} is empty; give the path of a CSV file, or None for the bundled log"
        )
    if os.path.isdir(path):
        raise ValueError(f"{owner}: csv_path={shown_path(path)} is a directory; give the path of a CSV file in it")
    try:
        with open(path, "rb") as fh:
            return fh.read(), path
    except FileNotFoundError:
        raise FileNotFoundError(f"{owner}: csv_path={shown_path(path)}: no such file") from None
    except NotADirectoryError:
        raise FileNotFoundError(
            f"{owner}: csv_path={shown_path(path)}: no such file (a part of the path is a file)"
        ) from None
    except PermissionError:
        raise PermissionError(f"{owner}: csv_path={shown_path(path)} cannot be read: permission denied") from None
    except OSError as exc:
        raise OSError(
            exc.errno, f"{owner}: csv_path={shown_path(path)} cannot be read: {exc.strerror or exc}"
        ) from None


def _decompress(raw: bytes, name: str) -> bytes:
    """``raw``, decompressed when its first bytes are those of gzip, bzip2, xz, zip or zstd."""
    kind = next((kind for magic, kind in _MAGIC if raw.startswith(magic)), None)
    if kind is None:
        return raw
    try:
        if kind == "gzip":
            return gzip.decompress(raw)
        if kind == "bzip2":
            return bz2.decompress(raw)
        if kind == "xz":
            return lzma.decompress(raw)
        if kind == "zip":
            with zipfile.ZipFile(io.BytesIO(raw)) as archive:
                members = [m for m in archive.infolist() if not m.is_dir()]
                if len(members) != 1:
                    raise ValueError(
                        f"{name} is a zip archive of {len(members)} files; it must hold exactly one CSV file"
                    )
                return archive.read(members[0])
        try:
            import zstandard
        except ImportError:
            raise ValueError(
                f"{name} is compressed with Zstandard, which needs the zstandard package; "
                "install it or decompress the file"
            ) from None
        data: bytes = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        return data
    except (ValueError, OSError, EOFError, lzma.LZMAError, zipfile.BadZipFile, RuntimeError) as exc:
        if isinstance(exc, ValueError) and str(exc).startswith(name):
            raise
        raise ValueError(f"{name} looks {kind}-compressed but cannot be decompressed: {exc}") from None


def read_csv_bytes(raw: bytes, name: str) -> pandas.DataFrame:
    """The DataFrame of a notification log's bytes (plain or compressed UTF-8 CSV).

    The string columns stay strings (``"007"`` is not 7); the others are checked when the log
    is encoded. ``name`` names the file in error messages.
    """
    pd = _pandas()
    data = _decompress(raw, name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start} cannot be decoded); "
            "save the log as UTF-8 (a Latin-1 or Windows-1252 file must be converted), or it is not a CSV file"
        ) from None
    if "\x00" in text:
        raise ValueError(f"{name} holds NUL bytes: it is a binary file, not a CSV file")
    header = next(csv.reader(io.StringIO(text)), [])
    repeated = sorted({c for c in header if c and header.count(c) > 1})
    if repeated:
        raise ValueError(
            f"{name}: the header names the column(s) {repeated} more than once; column names must be unique"
        )
    try:
        return pd.read_csv(io.StringIO(text), dtype=dict.fromkeys(STRING_COLUMNS, str))
    except pd.errors.EmptyDataError:
        raise ValueError(
            f"{name} is empty: a notification log needs a header with the columns {list(REQUIRED_COLUMNS)} "
            "and at least one row"
        ) from None
    except (pd.errors.ParserError, csv.Error) as exc:
        raise ValueError(f"{name} is not a well-formed CSV file: {exc}") from None


def _encode(
    frame: pandas.DataFrame,
    source: str,
    from_file: bool,
    vocabularies: Mapping[str, Vocabulary] = VOCABULARIES,
    digest: str | None = None,
    split: str | None = None,
    bundled: bool = False,
) -> NotificationLog:
    """Check ``frame`` against the schema and encode it (``frame`` is only read)."""
    pd = _pandas()

    def where(i: int) -> str:
        if from_file:
            return f"row {i} (line {i + 2} of the file)"
        label = frame.index[i]
        return f"row {i}" + ("" if label == i else f" (index {shown(label)})")

    def fail(name: str, i: int, value: object, expected: str) -> NoReturn:
        raise ValueError(f"{source}: column {name!r}, {where(i)}: {shown(value)} is not {expected}")

    def fail_first(name: str, bad: npt.NDArray[np.bool_], values: Any, expected: str) -> None:
        """:func:`fail` at the first row of ``bad``, if any (``values``: the column or its array)."""
        if bad.any():
            i = int(bad.argmax())
            fail(name, i, values.iloc[i] if isinstance(values, pd.Series) else values[i], expected)

    if isinstance(frame.columns, pd.MultiIndex):
        raise ValueError(
            f"{source} has hierarchical (MultiIndex) columns ({frame.columns.nlevels} level(s)); a notification log "
            f"needs one level of column names: flatten them first (frame.columns = [...])"
        )
    columns = list(frame.columns)
    repeated = sorted({str(c) for c in columns if columns.count(c) > 1})
    if repeated:
        raise ValueError(f"{source} has the column(s) {shown(repeated)} more than once; column names must be unique")
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{source}: missing column(s) {missing}; a notification log needs the columns "
            f"{list(REQUIRED_COLUMNS)} (optional: {TRUTH!r}, the true open probability)"
        )
    if len(frame) == 0:
        raise ValueError(f"{source} is empty: it has the header but no rows")
    checked = REQUIRED_COLUMNS + ((TRUTH,) if TRUTH in frame.columns else ())
    for name in checked:
        blank = frame[name].isna().to_numpy()
        if blank.any():
            first = where(int(blank.argmax()))
            raise ValueError(f"{source}: column {name!r}, {first}: the value is missing (the column is required)")

    def numeric(name: str, low: float, high: float, integer: bool, booleans: bool = False) -> npt.NDArray[np.float64]:
        """The column as floats; ``booleans``: True and False are 1 and 0 (a yes/no field)."""
        column = frame[name]
        kind = column.dtype.kind
        refused = "complex numbers are refused" if booleans else "booleans and complex numbers are refused"
        odd_kinds: tuple[type, ...] = (complex, np.complexfloating) + (() if booleans else (bool, np.bool_))
        if kind == "c" or (kind == "b" and not booleans):  # a whole column of bools or complex numbers
            fail(name, 0, column.iloc[0], f"a real number ({refused})")
        if kind == "O":  # a bool or complex number among the values: never silently 1 or its real part
            odd = column.map(lambda v: isinstance(v, odd_kinds)).to_numpy(dtype=bool)
            fail_first(name, odd, column, f"a real number ({refused})")
        if booleans and kind == "O":  # True and False among numbers: 1 and 0
            column = column.map(lambda v: int(v) if isinstance(v, (bool, np.bool_)) else v)
        parsed = pd.to_numeric(column, errors="coerce")
        if parsed.dtype.kind == "c":  # strings pandas reads as complex numbers
            fail(name, 0, column.iloc[0], f"a real number ({refused})")
        values: npt.NDArray[np.float64] = parsed.to_numpy(dtype=np.float64, na_value=np.nan)
        fail_first(name, ~np.isfinite(values), column, "a number")
        if integer:
            fail_first(name, values != np.floor(values), column, "an integer")
        fail_first(name, (values < low) | (values > high), column, f"within {low}..{high}")
        return values

    def text(name: str) -> npt.NDArray[np.object_]:
        return frame[name].astype(str).to_numpy(dtype=object)  # type: ignore[no-any-return]

    def closed(name: str, vocabulary: Sequence[str | bool]) -> npt.NDArray[np.int64]:
        values = text(name)
        codes: npt.NDArray[np.int64] = pd.Index(list(vocabulary)).get_indexer(values).astype(np.int64)  # -1: not in it
        fail_first(name, codes < 0, values, f"one of {list(vocabulary)}")
        return codes

    def open_ended(name: str, vocabulary: Sequence[str | bool]) -> npt.NDArray[np.int64]:
        codes: npt.NDArray[np.int64] = pd.Index(list(vocabulary[:-1])).get_indexer(text(name)).astype(np.int64)
        codes[codes < 0] = len(vocabulary) - 1  # OTHER
        return codes

    def column(name: str) -> npt.NDArray[Any]:
        """The column checked and encoded by its kind in :data:`SCHEMA`."""
        kind = SCHEMA[name]
        if kind == "open":
            return open_ended(name, vocabularies[name])
        if kind == "closed":
            return closed(name, ACTION_VALUES if name == ACTION else vocabularies[name])
        low, high, integer = kind
        return numeric(name, low, high, integer, booleans=name in CATEGORICAL_FIELDS)  # significant_contact: yes/no

    codes = np.array([column(name) for name in CATEGORICAL_FIELDS], dtype=np.int64)
    values = np.array([column(name) for name in NUMERIC_FIELDS], dtype=np.float32)
    user_codes, user_names = pd.factorize(text(USER), sort=True)
    labels = column(ACTION)
    stamps, utc = _timestamps(frame[TIMESTAMP], source, where, fail)
    p_open = column(TRUTH) if TRUTH in frame.columns else None
    users = user_codes.astype(np.int64)
    everything = {**vocabularies, USER: tuple(str(u) for u in user_names)}
    return NotificationLog(
        source, codes, values, labels, users, stamps, p_open, everything, digest, utc, split, None, bundled
    )


def _timestamps(
    column: pandas.Series, source: str, where: Callable[[int], str], fail: Callable[[str, int, object, str], NoReturn]
) -> tuple[npt.NDArray[np.datetime64], bool]:
    """``(datetime64[s] array, utc)``: UTC instants when every timestamp has an offset, else as written."""
    pd = _pandas()
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        return column.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy(dtype="datetime64[s]"), True
    if pd.api.types.is_datetime64_dtype(column.dtype):
        return column.to_numpy(dtype="datetime64[s]"), False
    strings = column.astype(str)
    offset = strings.str.contains(_OFFSET).to_numpy(dtype=bool)
    if offset.any() and not offset.all():
        i = int(np.flatnonzero(offset != offset[0])[0])
        kinds = ("has no UTC offset", "has one") if offset[0] else ("has a UTC offset", "has none")
        raise ValueError(
            f"{source}: column {TIMESTAMP!r}, {where(i)}: {shown(strings.iloc[i])} {kinds[0]} while row 0 "
            f"({shown(strings.iloc[0])}) {kinds[1]}; a time without an offset cannot be ordered among times with one: "
            "give every timestamp a UTC offset (e.g. +01:00) or none"
        )
    utc = bool(offset.all())
    stamps = pd.to_datetime(strings, format="ISO8601", errors="coerce", utc=utc)
    bad = stamps.isna().to_numpy()
    if bad.any():
        fail(TIMESTAMP, int(bad.argmax()), strings.iloc[int(bad.argmax())], "an ISO 8601 timestamp")
    if utc:
        stamps = stamps.dt.tz_localize(None)  # UTC instants, naive
    return stamps.to_numpy(dtype="datetime64[s]"), utc


def held_out_mask(timestamps: npt.NDArray[np.datetime64], test_fraction: float) -> npt.NDArray[np.bool_]:
    """True for the rows of the test part: every row at or after the cut-off instant.

    The cut-off is the timestamp of the row ``ceil(test_fraction * n)``-th from the end in time
    order, so at least that many rows are in the test part (more when others share its instant).
    """
    n = len(timestamps)
    ordered = np.sort(timestamps, kind="stable")
    cutoff: np.datetime64 = ordered[n - max(1, math.ceil(test_fraction * n))]
    return timestamps >= cutoff


def _part(log: NotificationLog, split: str, test_fraction: float | None, owner: str) -> NotificationLog:
    """The ``split`` part of ``log`` (all of it when ``test_fraction`` is None and split is "train")."""
    if test_fraction is None:
        if split == "test":
            raise ValueError(
                f"{owner}: split='test' of your own log needs test_fraction (e.g. 0.2: the last 20 % in time); "
                "without it the whole log is the training log (split='train')"
            )
        return log
    test = held_out_mask(log.timestamps, test_fraction)
    keep = test if split == "test" else ~test
    if not keep.any():
        raise ValueError(
            f"{owner}: {log.source}: the {split} part of test_fraction={shown(test_fraction)} is empty: all "
            f"{log.n_rows} rows fall at or after the cut-off instant {log.timestamps.max()} "
            "(the log needs rows at more than one time)"
        )
    rows = np.flatnonzero(keep)
    p_open = None if log.p_open is None else log.p_open[rows]
    arrays = (log.codes[:, rows], log.numbers[:, rows], log.labels[rows], log.users[rows], log.timestamps[rows], p_open)
    return NotificationLog(log.source, *arrays, log.vocabularies, log.digest, log.utc, split, rows)


__all__ = [
    "ACTION_VALUES", "APPS", "BUNDLED_FILES", "BUNDLED_RESOURCE", "CATEGORICAL_FIELDS", "CATEGORIES", "COLUMNS",
    "DAY_NAMES", "LOCATIONS", "NUMERIC_BOUNDS", "NUMERIC_FIELDS", "OPEN_FIELDS", "OTHER", "REQUIRED_COLUMNS",
    "RINGER_MODES", "SCHEMA", "SPLITS", "VOCABULARIES", "NotificationLog", "ReadOnlyMapping", "check_split",
    "check_vocabularies", "load_log", "observation_space", "held_out_mask", "read_csv_bytes",
]  # fmt: skip
