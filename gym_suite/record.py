"""Offline datasets: seeded episodes of a policy recorded as a `Minari <https://minari.farama.org>`_ dataset.

Needs the ``minari`` extra (``pip install "gym-suite[minari]"``); ``gym-suite record ID`` calls :func:`record`::

    dataset = record("heartpole-v1", "heuristic", episodes=10)   # gym_suite/heartpole-v1/heuristic-v0
    dataset = minari.load_dataset("gym_suite/heartpole-v1/heuristic-v0")  # later, another process
    env = dataset.recover_environment()                                  # the same id and arguments

Episode ``i`` is reset with ``seed + i``. The dataset is written whole where Minari keeps local
datasets (``$MINARI_DATASETS_PATH``, or ``~/.minari/datasets``; nothing is downloaded or uploaded)
before it takes its id: with ``overwrite`` the old dataset is replaced only once the new one is
complete, and without it a dataset another run wrote meanwhile is kept (``FileExistsError``).
Ctrl-C stops the recording and leaves nothing behind.
"""

from __future__ import annotations

import os
import pickle
import secrets
import shutil
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from gym_suite import __version__
from gym_suite._registry import suite_id
from gym_suite.envs.checks import check_env_kwargs, shown, shown_path
from gym_suite.evaluate import BUILTIN_POLICIES, MAX_EPISODES, find_spec, play

__all__ = ["default_dataset_id", "load_policy", "record"]


def default_dataset_id(env_id: str, policy_name: str) -> str:
    """``gym_suite/<env_id>/<policy_name>-v0``: Minari's ``namespace/env_name/dataset_name-version`` form."""
    return f"gym_suite/{env_id}/{policy_name}-v0"


def load_policy(path: str | os.PathLike[str], env_id: str, algo: str = "ppo") -> Callable[[Any], Any]:
    """A trained policy from a file: a Stable-Baselines3 model (``.zip``; ``algo`` ``"ppo"`` or
    ``"dqn"``) or a pickled callable ``observation -> action``. Unpickling runs code from the file:
    load only files you trust. ``FileNotFoundError`` for a missing file, ``ValueError`` for one that
    does not unpickle here, ``TypeError`` for no callable."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"policy file not found: {shown_path(str(path))}")
    if path.suffix == ".zip":
        from gym_suite.training.sb3 import load_sb3_policy

        return load_sb3_policy(path, algo, env_id)
    try:
        with path.open("rb") as file:
            policy = pickle.load(file)
    except OSError:
        raise
    except Exception as exc:  # not a pickle, or one whose code does not import here
        hint = " (the module of the pickled code must be importable here)" if isinstance(exc, ImportError) else ""
        raise ValueError(
            f"policy file {shown_path(str(path))} does not unpickle: {type(exc).__name__}: {shown(str(exc))[1:-1]}{hint}"
        ) from exc
    if not callable(policy):
        raise TypeError(
            f"{shown_path(str(path))} holds a {type(policy).__name__}, not a callable policy observation -> action"
        )
    return policy  # type: ignore[no-any-return]


#: Minari stores the seeds as unsigned 64-bit integers: every episode's seed is below this.
SEED_LIMIT = 2**64


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_flag(name: str, value: object) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"record: {name} must be True or False, got {shown(value)}")
    return bool(value)


def _check_name(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"record: {name} must be None or a non-empty str, got {shown(value)}")
    if not value:
        raise ValueError(f"record: {name} must be None or a non-empty str, got ''")
    return value


def _check_dataset_id(dataset_id: str) -> None:
    from minari.dataset.minari_dataset import parse_dataset_id

    try:
        parse_dataset_id(dataset_id)
    except (TypeError, ValueError):  # TypeError: Minari's parser on an id without its version
        raise ValueError(
            f"record: dataset_id {shown(dataset_id)} is not a Minari dataset id: it must be of the form "
            "(namespace/)name-vN, such as 'gym_suite/heartpole-v1/heuristic-v0'"
        ) from None


#: The recorded keys of the infos, each with its dtype and shape (:func:`info_template`).
InfoTemplate = dict[str, tuple[np.dtype[Any], tuple[int, ...]]]


def consistent_info(info: dict[str, Any], template: InfoTemplate) -> dict[str, Any]:
    """``info`` as Minari records it (one array per key over reset and steps): exactly the keys of
    ``template``, each of its dtype and shape; a key ``info`` lacks (a reset's) reads NaN, 0 or False."""
    out: dict[str, Any] = {}
    for key, (dtype, shape) in template.items():
        try:
            array = None if info.get(key) is None else np.asarray(info[key], dtype=dtype)
        except (TypeError, ValueError, OverflowError):
            array = None
        if array is None or array.shape != shape:
            array = np.full(shape, np.nan if dtype.kind == "f" else 0, dtype=dtype)
        out[key] = array
    return out


def _consistent_infos_callback(template: InfoTemplate) -> type:
    """Minari's ``StepDataCallback`` recording :func:`consistent_info` of every info."""
    from minari import StepDataCallback

    class ConsistentInfos(StepDataCallback):  # type: ignore[misc]  # Minari has no type hints
        def __call__(self, env: Any, **kwargs: Any) -> Any:
            step_data = super().__call__(env, **kwargs)
            step_data["info"] = consistent_info(step_data["info"], template)
            return step_data

    return ConsistentInfos


def _numeric(value: object) -> tuple[np.dtype[Any], tuple[int, ...]] | None:
    """The dtype and shape of a numeric info value, or None."""
    if isinstance(value, (str, bytes)) or value is None:
        return None
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything numpy cannot read is not recorded
        return None
    if array.dtype.kind not in "biuf":
        return None
    dtype = np.dtype(np.float64) if array.dtype.kind == "f" else array.dtype
    return dtype, array.shape


def info_template(env_id: str, env_kwargs: dict[str, Any], seed: int) -> InfoTemplate:
    """The numeric keys of ``env_id``'s infos with their dtypes and shapes: the reset's (seeded
    ``seed``) and one random step's, on an env made for the purpose."""
    from gym_suite.evaluate import action_seed
    from gym_suite.quiet import make

    env = make(env_id, **env_kwargs)
    try:
        _, reset_info = env.reset(seed=seed)
        env.action_space.seed(action_seed(seed))
        step_info = env.step(env.action_space.sample())[4]
    finally:
        env.close()
    template: InfoTemplate = {}
    for key, value in [*reset_info.items(), *step_info.items()]:
        if isinstance(key, str) and (kind := _numeric(value)) is not None:
            template.setdefault(key, kind)
    return template


@contextmanager
def _staging(root: Path) -> Iterator[Path]:
    """A hidden directory (Minari lists none) in Minari's datasets directory, on its file system
    (directories move by renaming), removed with whatever is left in it."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f".gym-suite-record-{secrets.token_hex(8)}"  # named first: a Ctrl-C once made leaves none
    try:
        path.mkdir(mode=0o700)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def _lock(root: Path) -> Iterator[None]:
    """Minari's datasets directory held with ``flock`` while a dataset takes its place (POSIX; on
    Windows no lock, where ``os.rename`` refuses an existing dataset itself)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    descriptor = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)  # released when the descriptor closes
        yield
    finally:
        os.close(descriptor)


_PRESSED: list[int] = []  # the Ctrl-C presses since interrupts() took SIGINT


def _press(signum: int, frame: Any) -> None:
    _PRESSED.append(signum)
    while frame is not None:  # within an import, left to the next check: raised in a C extension's set-up
        if "importlib._bootstrap" in frame.f_code.co_filename:  # (jaxlib's), an exception crashes the process
            return
        frame = frame.f_back
    raise KeyboardInterrupt


def _check_pressed() -> None:
    if _PRESSED:
        raise KeyboardInterrupt


@contextmanager
def interrupts() -> Iterator[Callable[[], None]]:
    """Ctrl-C as ``KeyboardInterrupt``, and a check, called between steps, raising it again once
    pressed: a ``KeyboardInterrupt`` raised inside a garbage-collector callback (jax's) is dropped,
    unreported. Outside the main thread, under a caller's handler or nested (``gym-suite record``
    takes SIGINT from its start): no change."""
    import signal
    import sys
    import threading

    def unraisable(unraised: Any) -> None:
        if not (_PRESSED and isinstance(unraised.exc_value, KeyboardInterrupt)):
            before(unraised)

    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield _check_pressed
        return
    _PRESSED.clear()
    before, sys.unraisablehook = sys.unraisablehook, unraisable
    signal.signal(signal.SIGINT, _press)
    try:
        yield _check_pressed
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = before
        _PRESSED.clear()


def _exists_error(dataset_id: str) -> FileExistsError:
    return FileExistsError(
        f"the Minari dataset {dataset_id!r} exists already: pick another id, or overwrite it "
        f"(--overwrite; minari.delete_dataset({dataset_id!r}))"
    )


def _credits() -> dict[str, str | None]:
    """The default ``author``, ``author_email`` and ``code_permalink``: gym-suite's package metadata
    (its source's project URL, else its first; the author ``"gym-suite"`` where it names none)."""
    from email.utils import getaddresses
    from importlib.metadata import PackageNotFoundError, metadata

    try:
        meta = metadata("gym-suite")
    except PackageNotFoundError:  # a source tree that is not installed
        return {"author": "gym-suite", "author_email": None, "code_permalink": None}
    authors = getaddresses(meta.get_all("Author-email") or [])
    urls = [entry.partition(",")[::2] for entry in meta.get_all("Project-URL") or []]
    urls.sort(key=lambda label_url: label_url[0].strip().lower() not in ("source", "repository", "code"))
    return {
        "author": ", ".join(meta.get_all("Author") or [name for name, _ in authors if name]) or "gym-suite",
        "author_email": ", ".join(email for _, email in authors if email) or None,
        "code_permalink": urls[0][1].strip() if urls else None,
    }


@contextmanager
def _datasets_path(path: Path) -> Iterator[None]:
    """``MINARI_DATASETS_PATH`` set to ``path`` within the block."""
    before = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(path)
    try:
        yield
    finally:
        os.environ.pop("MINARI_DATASETS_PATH")
        if before is not None:
            os.environ["MINARI_DATASETS_PATH"] = before


def _move_into_place(staged: Path, final: Path, trash: Path) -> None:
    """Move the complete dataset ``staged`` to ``final``; an old one there goes to ``trash`` first (and back, should the move fail)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    moved = False
    try:
        if final.exists():
            os.replace(final, trash)
            moved = True
        os.rename(staged, final)  # never onto a dataset: a directory not empty
    except BaseException:  # Ctrl-C included: the old dataset goes back
        if moved and not final.exists():
            os.replace(trash, final)
        raise


def record(
    env_id: str,
    policy: str | Callable[[Any], Any] = "heuristic",
    episodes: int = 100,
    *,
    seed: int = 0,
    dataset_id: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
    policy_name: str | None = None,
    record_infos: bool = False,
    overwrite: bool = False,
    author: str | None = None,
    author_email: str | None = None,
    code_permalink: str | None = None,
    description: str | None = None,
) -> Any:
    """Record ``episodes`` seeded episodes of ``policy`` on ``env_id`` as a Minari dataset and return it.

    ``policy``: ``"random"``, ``"heuristic"`` or a callable ``observation -> action``
    (:func:`load_policy`). ``dataset_id`` defaults to :func:`default_dataset_id` of ``policy_name``
    (default: the policy's string, its ``name`` attribute or ``"trained"``). The dataset keeps
    ``env_kwargs`` for ``dataset.recover_environment()``; ``record_infos`` also stores the numeric
    infos (:func:`consistent_info`). An existing dataset of the id is an error unless ``overwrite``:
    then it is replaced once the new one is complete. ``author``, ``author_email`` and
    ``code_permalink`` default to gym-suite's package metadata, ``description`` to a sentence of
    the episodes, the policy and the seeds. ``episodes``: 1 to :data:`gym_suite.evaluate.MAX_EPISODES`,
    the seeds within ``0 .. 2**64 - 1``. Everything is checked before any episode runs:
    ``ValueError`` for a bad value, ``TypeError`` for a wrong kind, ``FileExistsError`` when the
    dataset exists.
    """
    import minari
    from minari import DataCollector
    from minari.storage.datasets_root_dir import get_dataset_path

    episodes, seed = _check_episodes_and_seed(episodes, seed)
    spec = find_spec(suite_id(env_id))
    dataset_id = _check_name("dataset_id", dataset_id)
    policy_name = _check_name("policy_name", policy_name)
    given = {"author": author, "author_email": author_email, "code_permalink": code_permalink}
    given = {key: value for key, value in {**given, "description": description}.items() if _check_name(key, value)}
    kwargs = check_env_kwargs("record: ", env_kwargs, allow_none=True) or {}
    record_infos = _check_flag("record_infos", record_infos)
    overwrite = _check_flag("overwrite", overwrite)
    name = policy_name or _policy_name(policy)
    dataset_id = dataset_id or default_dataset_id(spec.id, name)
    _check_dataset_id(dataset_id)
    final = get_dataset_path(dataset_id)
    if final.exists() and not overwrite:  # checked again under the lock, before the move
        raise _exists_error(dataset_id)
    metadata = {
        **_credits(),
        "description": (
            f"{episodes} episodes of the {name} policy on {spec.id}"
            + (f" with {kwargs}" if kwargs else "")
            + f", reset with seeds {seed} to {seed + episodes - 1} (gym-suite)"
        ),
        **given,
    }
    env, callback = _recorded_env(spec.id, kwargs, policy, record_infos, seed)
    with interrupts() as check, _staging(get_dataset_path()) as staging:
        with _datasets_path(staging):  # the collector's own temporary files go there too
            collector = DataCollector(env, record_infos=record_infos, **callback)
        try:
            for i in range(episodes):
                for _step in play(collector, policy, seed + i):
                    check()
            _write(collector, env, dataset_id, name, metadata, staging, overwrite, check)
        finally:
            collector.close()
    return minari.load_dataset(dataset_id)


def _check_episodes_and_seed(episodes: object, seed: object) -> tuple[int, int]:
    if isinstance(episodes, (bool, np.bool_)) or not isinstance(episodes, (int, np.integer)):
        raise TypeError(f"record: episodes must be a positive integer, got {shown(episodes)}")
    if not 1 <= episodes <= MAX_EPISODES:
        raise ValueError(
            f"record: episodes must be a positive integer, at most {MAX_EPISODES:,}, got {shown(episodes)}"
        )
    episodes = int(episodes)
    if not _is_int(seed):
        raise TypeError(f"record: seed must be a non-negative integer, got {shown(seed)}")
    if not 0 <= seed <= SEED_LIMIT - episodes:  # type: ignore[operator]  # an integer: checked above
        raise ValueError(
            f"record: seed must be an integer in 0 .. 2**64 - episodes (= 2**64 - {episodes:,}): the seeds "
            f"seed .. seed + episodes - 1 are stored as unsigned 64-bit integers; got {shown(seed)}"
        )
    return episodes, int(seed)  # type: ignore[call-overload]


def _policy_name(policy: object) -> str:
    if isinstance(policy, str):
        if policy not in BUILTIN_POLICIES:
            raise ValueError(f"unknown policy {shown(policy)}: use a callable or one of {list(BUILTIN_POLICIES)}")
        return policy
    if callable(policy):
        return str(getattr(policy, "name", "") or "trained")
    raise TypeError(f"policy must be a callable obs -> action or one of {list(BUILTIN_POLICIES)}, got {shown(policy)}")


def _recorded_env(
    env_id: str, kwargs: dict[str, Any], policy: object, record_infos: bool, seed: int
) -> tuple[Any, dict[str, Any]]:
    from gym_suite.quiet import make

    env = make(env_id, **kwargs)  # bad arguments raise here, before anything is written
    try:
        if policy == "heuristic" and not callable(getattr(env.unwrapped, "heuristic", None)):
            raise ValueError(f"{env_id} has no heuristic policy; use 'random' or a trained policy")
        if not record_infos:
            return env, {}
        return env, {"step_data_callback": _consistent_infos_callback(info_template(env_id, kwargs, seed))}
    except BaseException:
        env.close()
        raise


def _write(
    collector: Any,
    env: Any,
    dataset_id: str,
    name: str,
    metadata: dict[str, Any],
    staging: Path,
    overwrite: bool,
    check: Callable[[], None],
) -> None:
    """Write the dataset whole under ``staging``, then move it into place under the lock."""
    import minari
    from minari.namespace import create_namespace, list_local_namespaces
    from minari.storage.datasets_root_dir import get_dataset_path

    with _datasets_path(staging), warnings.catch_warnings():
        # Minari asks for an author, e-mail and code link: those the metadata lacks are left out
        warnings.filterwarnings("ignore", category=UserWarning, module=r"minari\.")
        needs = [f"gym-suite>={__version__}"]
        collector.create_dataset(dataset_id, eval_env=env.spec, algorithm_name=name, requirements=needs, **metadata)
    check()
    final = get_dataset_path(dataset_id)
    with _lock(get_dataset_path()):
        if final.exists() and not overwrite:  # written by another run since the first check
            raise _exists_error(dataset_id)
        namespace = minari.dataset.minari_dataset.parse_dataset_id(dataset_id)[0]
        if namespace is not None and namespace not in list_local_namespaces():
            create_namespace(namespace)
        _move_into_place(staging / dataset_id, final, staging / ".old")
