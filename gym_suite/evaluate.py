"""Seeded evaluation of a policy on a suite environment, in parallel with joblib."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium
import numpy as np
from joblib import Parallel, delayed

from gym_suite.envs._base import action_seed

BUILTIN_POLICIES = ("random", "heuristic")

#: Episodes per job. Fixed (never derived from ``n_jobs``) so that a policy with a batched
#: ``act_batch`` sees the same batches, and gives the same results, whatever ``n_jobs`` is.
CHUNK_EPISODES = 50


@dataclass
class EvalResult:
    """Per-episode returns and lengths of a seeded evaluation."""

    env_id: str
    policy: str
    seed: int
    returns: np.ndarray
    lengths: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.returns.mean())

    @property
    def std(self) -> float:
        return float(self.returns.std())

    @property
    def mean_length(self) -> float:
        return float(self.lengths.mean())

    def __str__(self) -> str:
        return (
            f"{self.env_id} {self.policy}: return {self.mean:.3f} ± {self.std:.3f} "
            f"over {len(self.returns)} episodes (mean length {self.mean_length:.1f}, seed {self.seed})"
        )


def _policy_name(policy) -> str:
    if isinstance(policy, str):
        return policy
    return getattr(policy, "name", None) or getattr(policy, "__name__", type(policy).__name__)


def _run_episodes(env_id, policy, seeds, env_kwargs):
    """Episodes one after the other: ``(returns, lengths)``."""
    env = gymnasium.make(env_id, **(env_kwargs or {}))
    returns, lengths = [], []
    try:
        for episode_seed in seeds:
            obs, _ = env.reset(seed=int(episode_seed))
            if policy == "random":
                env.action_space.seed(action_seed(int(episode_seed)))
                act = lambda _obs: env.action_space.sample()  # noqa: E731
            elif policy == "heuristic":
                act = env.unwrapped.heuristic
            else:
                act = policy
            total, steps, done = 0.0, 0, False
            while not done:
                obs, reward, terminated, truncated, _ = env.step(act(obs))
                total += float(reward)
                steps += 1
                done = terminated or truncated
            returns.append(total)
            lengths.append(steps)
    finally:
        env.close()
    return returns, lengths


def _run_episodes_batched(env_id, policy, seeds, env_kwargs):
    """The same episodes in lockstep, one ``policy.act_batch`` call per step for all that run."""
    envs = [gymnasium.make(env_id, **(env_kwargs or {})) for _ in seeds]
    try:
        observations = [env.reset(seed=int(s))[0] for env, s in zip(envs, seeds)]
        returns = [0.0] * len(envs)
        lengths = [0] * len(envs)
        running = list(range(len(envs)))
        while running:
            actions = policy.act_batch([observations[i] for i in running])
            still = []
            for i, action in zip(running, actions):
                observations[i], reward, terminated, truncated, _ = envs[i].step(action)
                returns[i] += float(reward)
                lengths[i] += 1
                if not (terminated or truncated):
                    still.append(i)
            running = still
    finally:
        for env in envs:
            env.close()
    return returns, lengths


def evaluate(
    env_id: str,
    policy: str | Callable = "random",
    episodes: int = 100,
    seed: int = 0,
    n_jobs: int = 1,
    env_kwargs: dict | None = None,
    progress: bool | None = None,
) -> EvalResult:
    """Run ``episodes`` seeded episodes of ``policy`` on ``env_id``.

    Episode ``i`` is reset with seed ``seed + i`` (and, for ``"random"``, the action space is
    seeded with a stream derived from that seed, ``gym_suite.envs._base.action_seed``), so the
    result does not depend on ``n_jobs``. ``policy`` is a callable
    ``observation -> action`` or a built-in name: ``"random"`` or ``"heuristic"`` (the
    environment's documented heuristic, its ``heuristic`` method).

    A callable that also has an ``act_batch(observations) -> actions`` method (a list of
    observations in, one action per observation out), as the trained agents of
    :mod:`gym_suite.baselines` do, runs the episodes of each job in lockstep with one call per
    step: one forward pass of a network for many episodes instead of one each.

    ``n_jobs`` processes run the episodes (joblib; ``-1`` uses every core); a callable policy
    must then pickle. A progress bar (tqdm, or rich) shows when ``progress`` is true, by default
    when standard error is a terminal.
    """
    if isinstance(policy, str):
        if policy not in BUILTIN_POLICIES:
            raise ValueError(f"unknown policy {policy!r}: use a callable or one of {list(BUILTIN_POLICIES)}")
    elif not callable(policy):
        raise TypeError(f"policy must be a callable obs -> action or one of {list(BUILTIN_POLICIES)}, got {policy!r}")
    if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) or episodes < 1:
        raise ValueError(f"episodes must be a positive integer, got {episodes!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a positive integer or negative (-1: every core), got {n_jobs!r}")
    gymnasium.spec(env_id)  # an unknown id fails here, with gymnasium's message
    seeds = np.arange(seed, seed + episodes)
    chunks = [seeds[i : i + CHUNK_EPISODES] for i in range(0, episodes, CHUNK_EPISODES)]
    run = _run_episodes_batched if callable(getattr(policy, "act_batch", None)) else _run_episodes
    if progress is None:
        progress = sys.stderr.isatty()
    bar = _progress_bar(episodes, f"{env_id} {_policy_name(policy)}") if progress else None
    returns, lengths = [], []
    workers = min(_n_workers(n_jobs), len(chunks))
    if workers == 1:
        results = (run(env_id, policy, chunk, env_kwargs) for chunk in chunks)
    else:
        results = Parallel(n_jobs=workers, return_as="generator")(
            delayed(run)(env_id, policy, chunk, env_kwargs) for chunk in chunks
        )
    try:
        for chunk_returns, chunk_lengths in results:
            returns.extend(chunk_returns)
            lengths.extend(chunk_lengths)
            if bar is not None:
                bar.update(len(chunk_returns))
    finally:
        if bar is not None:
            bar.close()
    return EvalResult(env_id, _policy_name(policy), int(seed), np.array(returns), np.array(lengths))


def _n_workers(n_jobs: int) -> int:
    """Processes for ``n_jobs`` in joblib's convention (``-1`` every core, ``-2`` all but one...)."""
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs


class _RichBar:
    """The two methods of a tqdm bar that :func:`evaluate` uses, drawn by rich."""

    def __init__(self, total: int, label: str):
        from rich.progress import Progress

        self._progress = Progress(transient=True)
        self._progress.start()
        self._task = self._progress.add_task(label, total=total)

    def update(self, n: int) -> None:
        self._progress.advance(self._task, n)

    def close(self) -> None:
        self._progress.stop()


def _progress_bar(total: int, label: str):
    try:
        from tqdm import tqdm
    except ImportError:
        try:
            return _RichBar(total, label)
        except ImportError:
            return None
    return tqdm(total=total, desc=label, unit="ep", leave=False)
