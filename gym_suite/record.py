"""Offline datasets: seeded episodes of a policy recorded as a `Minari <https://minari.farama.org>`_ dataset.

Needs the ``minari`` extra (``pip install "gym-suite[minari]"``: Minari with its HDF5 storage).
The command ``gym-suite record ID --policy heuristic --episodes 100`` calls :func:`record`::

    import minari
    from gym_suite.record import record

    dataset = record("heartpole-v1", "heuristic", episodes=10)   # gym_suite/heartpole-v1/heuristic-v0
    dataset = minari.load_dataset("gym_suite/heartpole-v1/heuristic-v0")  # later, another process
    env = dataset.recover_environment()                                  # gymnasium.make of the same id and arguments
    for episode in dataset.iterate_episodes():
        episode.observations, episode.actions, episode.rewards, episode.terminations, episode.truncations

Episode ``i`` is reset with ``seed + i``, as :func:`gym_suite.evaluate.evaluate` does, so the
same command writes the same data. The dataset is written where Minari keeps local datasets:
``$MINARI_DATASETS_PATH``, or ``~/.minari/datasets``. Nothing is downloaded or uploaded (no
Minari hub): ``minari.load_dataset(name)`` reads it from there.
"""

from __future__ import annotations

import os
import pickle
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gym_suite import __version__
from gym_suite.evaluate import BUILTIN_POLICIES, find_spec, play

__all__ = ["default_dataset_id", "load_policy", "record"]


def default_dataset_id(env_id: str, policy_name: str) -> str:
    """``gym_suite/<env_id>/<policy_name>-v0``: Minari's ``namespace/env_name/dataset_name-version`` form."""
    return f"gym_suite/{env_id}/{policy_name}-v0"


def load_policy(path: str | os.PathLike[str], env_id: str, algo: str = "ppo") -> Callable[[Any], Any]:
    """A trained policy from a file: a Stable-Baselines3 model (``.zip``, saved by
    :func:`gym_suite.training.sb3.save_sb3`; ``algo`` is ``"ppo"`` or ``"dqn"``) or a pickled
    callable ``observation -> action`` (any other name: the policies of
    :func:`gym_suite.training.jax.train_ppo` and :func:`gym_suite.training.sb3.load_sb3_policy`
    pickle). Unpickling runs code from the file: load only files you trust.

    Raises ``FileNotFoundError`` for a missing file, ``TypeError`` when the file holds no callable.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"policy file not found: {str(path)!r}")
    if path.suffix == ".zip":
        from gym_suite.training.sb3 import load_sb3_policy

        return load_sb3_policy(path, algo, env_id)
    with path.open("rb") as file:
        policy = pickle.load(file)
    if not callable(policy):
        raise TypeError(f"{str(path)!r} holds a {type(policy).__name__}, not a callable policy observation -> action")
    return policy  # type: ignore[no-any-return]


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
) -> Any:
    """Record ``episodes`` seeded episodes of ``policy`` on ``env_id`` as a Minari dataset and return it.

    ``policy`` is ``"random"``, ``"heuristic"`` or a callable ``observation -> action`` (see
    :func:`load_policy` for one saved in a file). ``dataset_id`` defaults to
    :func:`default_dataset_id` with ``policy_name`` (the policy's string, or its ``name``
    attribute, or ``"trained"``). ``env_kwargs`` are the env's arguments: the dataset keeps
    them, so ``dataset.recover_environment()`` makes the same env. ``record_infos`` also stores
    each step's ``info`` (numeric values only). An existing dataset of the same id is an error
    unless ``overwrite``.

    Raises ``ValueError`` for a bad id, episode count, seed or policy name, ``TypeError`` for a
    policy that is neither, ``FileExistsError`` when the dataset exists; the check happens
    before any episode runs.
    """
    import minari
    from minari import DataCollector

    from gym_suite.quiet import make

    spec = find_spec(env_id)
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a positive integer, got {episodes!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(policy, str):
        if policy not in BUILTIN_POLICIES:
            raise ValueError(f"unknown policy {policy!r}: use a callable or one of {list(BUILTIN_POLICIES)}")
        name = policy
    elif callable(policy):
        name = policy_name or str(getattr(policy, "name", "") or "trained")
    else:
        raise TypeError(f"policy must be a callable obs -> action or one of {list(BUILTIN_POLICIES)}, got {policy!r}")
    name = policy_name or name
    dataset_id = dataset_id or default_dataset_id(spec.id, name)
    if dataset_id in minari.list_local_datasets():
        if not overwrite:
            raise FileExistsError(
                f"the Minari dataset {dataset_id!r} exists already: pick another id, or overwrite it "
                f"(--overwrite; minari.delete_dataset({dataset_id!r}))"
            )
        minari.delete_dataset(dataset_id)
    kwargs = dict(env_kwargs or {})
    env = make(spec.id, **kwargs)  # bad arguments raise here, before anything is written
    if isinstance(policy, str) and policy == "heuristic" and not callable(getattr(env.unwrapped, "heuristic", None)):
        env.close()
        raise ValueError(f"{spec.id} has no heuristic policy; use 'random' or a trained policy")
    collector = DataCollector(env, record_infos=record_infos)
    try:
        for i in range(episodes):
            for _step in play(collector, policy, seed + i):
                pass
        description = (
            f"{episodes} episodes of the {name} policy on {spec.id}"
            + (f" with {kwargs}" if kwargs else "")
            + f", reset with seeds {seed} to {seed + episodes - 1} (gym-suite)"
        )
        with warnings.catch_warnings():  # Minari asks for an author, e-mail and code link: none to give
            warnings.filterwarnings("ignore", category=UserWarning, module=r"minari\.")
            dataset = collector.create_dataset(
                dataset_id,
                eval_env=env.spec,
                algorithm_name=name,
                description=description,
                requirements=[f"gym-suite>={__version__}"],
            )
    finally:
        collector.close()
    return dataset
