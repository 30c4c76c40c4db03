"""Seeded evaluation of a policy on a suite environment, in parallel with joblib."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

import gymnasium
import numpy as np
from joblib import Parallel, delayed

BUILTIN_POLICIES = ("random", "heuristic")


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
    return getattr(policy, "__name__", type(policy).__name__)


def _run_episodes(env_id, policy, seeds, env_kwargs):
    env = gymnasium.make(env_id, **(env_kwargs or {}))
    returns, lengths = [], []
    try:
        for episode_seed in seeds:
            obs, _ = env.reset(seed=int(episode_seed))
            if policy == "random":
                env.action_space.seed(int(episode_seed))
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
    seeded the same way), so the result does not depend on ``n_jobs``. ``policy`` is a callable
    ``observation -> action`` or a built-in name: ``"random"`` or ``"heuristic"`` (the
    environment's documented heuristic, its ``heuristic`` method). ``n_jobs=-1`` uses every
    core. A progress bar (tqdm, when installed) shows when ``progress`` is true, by default
    when standard error is a terminal.
    """
    if isinstance(policy, str) and policy not in BUILTIN_POLICIES:
        raise ValueError(f"unknown policy {policy!r}: use a callable or one of {list(BUILTIN_POLICIES)}")
    if not callable(policy) and not isinstance(policy, str):
        raise TypeError(f"policy must be a callable obs -> action or one of {list(BUILTIN_POLICIES)}, got {policy!r}")
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise ValueError(f"episodes must be a positive integer, got {episodes!r}")
    gymnasium.spec(env_id)  # an unknown id fails here, with gymnasium's message
    seeds = np.arange(seed, seed + episodes)
    chunks = np.array_split(seeds, min(episodes, max(1, 4 * _n_workers(n_jobs))))
    if progress is None:
        progress = sys.stderr.isatty()
    bar = _progress_bar(episodes, f"{env_id} {_policy_name(policy)}") if progress else None
    returns, lengths = [], []
    if n_jobs == 1:
        results = (_run_episodes(env_id, policy, chunk, env_kwargs) for chunk in chunks)
    else:
        results = Parallel(n_jobs=n_jobs, return_as="generator")(
            delayed(_run_episodes)(env_id, policy, chunk, env_kwargs) for chunk in chunks
        )
    for chunk_returns, chunk_lengths in results:
        returns.extend(chunk_returns)
        lengths.extend(chunk_lengths)
        if bar is not None:
            bar.update(len(chunk_returns))
    if bar is not None:
        bar.close()
    return EvalResult(env_id, _policy_name(policy), seed, np.array(returns), np.array(lengths))


def _n_workers(n_jobs: int) -> int:
    import os

    return os.cpu_count() or 1 if n_jobs < 0 else max(1, n_jobs)


def _progress_bar(total: int, label: str):
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=label, unit="ep", leave=False)
