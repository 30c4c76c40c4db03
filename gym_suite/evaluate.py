"""Seeded episodes of a policy on an environment: the one episode loop, and evaluation over many.

:func:`play` runs one episode and yields its steps, :func:`run_episode` sums one up, and
:func:`evaluate` runs many seeded episodes (in parallel with joblib when asked). A policy is a
callable ``observation -> action`` or a built-in name: ``"random"`` (the action space seeded with
``action_seed`` of the episode's seed) or ``"heuristic"`` (the environment's
documented heuristic, ``env.unwrapped.heuristic``).
"""

from __future__ import annotations

import contextlib
import importlib
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import gymnasium
import numpy as np

from gym_suite._registry import suite_id
from gym_suite.envs.checks import check_env_kwargs, shown
from gym_suite.quiet import make  # the suite's ids from their specs: no version notice

if TYPE_CHECKING:
    from gymnasium.envs.registration import EnvSpec

BUILTIN_POLICIES = ("random", "heuristic")

#: Episodes per job. Fixed (never derived from ``n_jobs``) so that a policy with a batched
#: ``act_batch`` sees the same batches, and gives the same results, whatever ``n_jobs`` is.
CHUNK_EPISODES = 50


def action_seed(seed: int) -> int:
    """The seed of a random policy's action space in the episode reset with ``seed``, everywhere
    in the suite: not ``seed`` itself, or the actions would draw the start's numbers again."""
    return int(np.random.SeedSequence([int(seed), 0xAC7]).generate_state(1)[0])


@dataclass
class Step:
    """One ``env.step``: the action taken and what the environment answered."""

    action: Any
    observation: Any
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any]

    @property
    def done(self) -> bool:
        return bool(self.terminated or self.truncated)


def policy_function(
    env: gymnasium.Env[Any, Any], policy: str | Callable[[Any], Any], seed: int | None = None
) -> Callable[[Any], Any]:
    """``policy`` as a callable ``observation -> action`` for the episode of ``env`` reset with ``seed``.

    ``"random"`` seeds ``env.action_space`` with ``action_seed(seed)`` (unless ``seed`` is None)
    and samples it; ``"heuristic"`` is ``env.unwrapped.heuristic``; a callable is itself, its
    ``reset()`` called first where it has one (a policy with memory forgets the last episode).
    """
    _check_policy(policy)
    if not isinstance(policy, str):
        reset = getattr(policy, "reset", None)
        if callable(reset):
            reset()
        return policy
    if policy == "random":
        if seed is not None:
            env.action_space.seed(action_seed(int(seed)))
        return lambda _observation: env.action_space.sample()
    if policy == "heuristic":
        heuristic: Callable[[Any], Any] | None = getattr(env.unwrapped, "heuristic", None)
        if not callable(heuristic):
            name = env.spec.id if env.spec is not None else type(env.unwrapped).__name__
            raise ValueError(
                f"{name} has no heuristic policy (its environment has no `heuristic` method); "
                "use 'random' or pass a callable observation -> action"
            )
        return heuristic
    raise ValueError(f"policy={policy!r}: use 'random', 'heuristic' or a callable observation -> action")


def play(
    env: gymnasium.Env[Any, Any], policy: str | Callable[[Any], Any], seed: int | None = None, observation: Any = None
) -> Iterator[Step]:
    """Play one episode of ``policy`` on ``env``, yielding every :class:`Step` until it ends.

    The environment is reset with ``seed`` first, unless ``observation`` is given: then the
    caller has just reset it (to draw the first frame, say) and this is the observation it got.
    Stop iterating to cut the episode short.
    """
    act = policy_function(env, policy, seed)
    if observation is None:
        observation, _ = env.reset(seed=seed)
    while True:
        action = act(observation)
        observation, reward, terminated, truncated, info = env.step(action)
        step = Step(action, observation, float(reward), bool(terminated), bool(truncated), info)
        yield step
        if step.done:
            return


def run_episode(
    env: gymnasium.Env[Any, Any], policy: str | Callable[[Any], Any], seed: int | None = None
) -> tuple[float, int]:
    """Play one episode (:func:`play`) and return ``(return, length)``."""
    total, length = 0.0, 0
    for step in play(env, policy, seed):
        total += step.reward
        length += 1
    return total, length


def _plus_minus(stream: IO[str] | None = None) -> str:
    """The plus-minus sign, or "+/-" where ``stream`` (standard output by default) cannot encode it."""
    encoding = getattr(stream if stream is not None else sys.stdout, "encoding", None) or "ascii"
    try:
        "±".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return "+/-"
    return "±"


@dataclass
class EvalResult:
    """Per-episode returns and lengths of a seeded evaluation (episode ``i`` reset with ``seed + i``)
    and the environment arguments it played with (``None``: not known)."""

    env_id: str
    policy: str
    seed: int
    returns: np.ndarray
    lengths: np.ndarray
    env_kwargs: dict[str, Any] | None = None

    @property
    def mean(self) -> float:
        return float(self.returns.mean())

    @property
    def std(self) -> float:
        return float(self.returns.std())

    @property
    def mean_length(self) -> float:
        return float(self.lengths.mean())

    def paired_difference(self, other: EvalResult) -> tuple[float, float]:
        """Mean and standard error of ``self``'s return minus ``other``'s, episode by episode.

        Both must have played the same seeded episodes (same id, seed and number), so that
        the randomness they share (the same starts, the same draws where the env's random
        stream lines up) cancels out of the difference.
        """
        if (self.env_id, self.seed, len(self.returns)) != (other.env_id, other.seed, len(other.returns)):
            raise ValueError(
                f"not the same episodes: {self.env_id} seed {self.seed} x {len(self.returns)} against "
                f"{other.env_id} seed {other.seed} x {len(other.returns)}"
            )
        d = np.asarray(self.returns, dtype=np.float64) - np.asarray(other.returns, dtype=np.float64)
        se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0
        return float(d.mean()), se

    def describe(self, plus_minus: str = "±") -> str:
        return (
            f"{self.env_id} {self.policy}: return {self.mean:.3f} {plus_minus} {self.std:.3f} "
            f"over {len(self.returns)} episodes (mean length {self.mean_length:.1f}, seed {self.seed})"
        )

    def __str__(self) -> str:
        return self.describe(_plus_minus())


def _policy_name(policy: object) -> str:
    if isinstance(policy, str):
        return policy
    return str(getattr(policy, "name", None) or getattr(policy, "__name__", type(policy).__name__))


def _run_episodes(
    env_id: str, policy: str | Callable[[Any], Any], seeds: Sequence[int], env_kwargs: dict[str, Any] | None
) -> tuple[list[float], list[int]]:
    """Episodes one after the other: ``(returns, lengths)``."""
    with contextlib.closing(make(env_id, **(env_kwargs or {}))) as env:
        played = [run_episode(env, policy, int(s)) for s in seeds]
    return [r for r, _ in played], [n for _, n in played]


def _run_episodes_batched(
    env_id: str, policy: Any, seeds: Sequence[int], env_kwargs: dict[str, Any] | None
) -> tuple[list[float], list[int]]:
    """The same episodes in lockstep, one ``policy.act_batch`` call per step for all that run."""
    with contextlib.ExitStack() as stack:
        envs = [stack.enter_context(contextlib.closing(make(env_id, **(env_kwargs or {})))) for _ in seeds]
        policy_function(envs[0], policy)  # its reset(), if any: the batch's episodes start afresh
        observations = [env.reset(seed=int(s))[0] for env, s in zip(envs, seeds)]
        returns, lengths, running = [0.0] * len(envs), [0] * len(envs), list(range(len(envs)))
        while running:
            actions = policy.act_batch([observations[i] for i in running])
            _check_actions(policy, actions, len(running))
            still: list[int] = []
            for i, action in zip(running, actions):
                observations[i], reward, terminated, truncated, _ = envs[i].step(action)
                returns[i] += float(reward)
                lengths[i] += 1
                if not (terminated or truncated):
                    still.append(i)
            running = still
    return returns, lengths


def _check_heuristic(env_id: str, env_kwargs: dict[str, Any] | None) -> None:
    """Fail before any episode (and in this process, not a worker's) when the env has no heuristic."""
    with contextlib.closing(make(env_id, **(env_kwargs or {}))) as env:
        policy_function(env, "heuristic")


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


#: The most episodes one :func:`evaluate` call runs: its returns and lengths (16 bytes an
#: episode) stay in memory, and a count past this is a mistake rather than a plan.
MAX_EPISODES = 10**8


def find_spec(env_id: str) -> EnvSpec:
    """The registered spec of ``env_id``, the ``module:`` prefix ``gymnasium.make`` takes allowed
    (the module imported first); an unknown id raises gymnasium's error, with its suggestions."""
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a registered id (a str), got {type(env_id).__name__}")
    env_id = suite_id(env_id)  # "gym_suite:<id>": the suite's id, without importing anything
    module, sep, name = env_id.rpartition(":")
    if sep:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            raise gymnasium.error.Error(
                f"{env_id}: the module {module!r} before the ':' cannot be imported ({exc})"
            ) from None
        env_id = name
    return gymnasium.spec(env_id)


def evaluate(
    env_id: str,
    policy: str | Callable[[Any], Any] = "random",
    episodes: int = 100,
    seed: int = 0,
    n_jobs: int = 1,
    env_kwargs: Mapping[str, Any] | None = None,
    progress: bool | None = None,
) -> EvalResult:
    """Run ``episodes`` (at most :data:`MAX_EPISODES`) seeded episodes of ``policy`` on ``env_id``.

    ``env_id`` is a registered id, ``module:`` prefix allowed (the result's ``env_id`` is without
    it). Episode ``i`` is reset with ``seed + i`` (``"random"`` also seeds the action space with
    ``action_seed(seed + i)``), whatever ``n_jobs`` is. ``policy`` is ``"random"``, ``"heuristic"``
    (the env's ``heuristic`` method; ``ValueError`` without one) or a callable ``observation ->
    action``, its ``reset()``, if any, called before each episode; one with
    ``act_batch(observations) -> actions`` (:mod:`gym_suite.training`'s agents) plays each job's
    episodes in lockstep, one call a step, its ``reset()`` called before each such batch
    (:data:`CHUNK_EPISODES` episodes, started together).

    ``n_jobs`` processes (joblib; ``-1``: every core; a callable must then pickle). ``progress``
    (None: when standard error is a terminal) shows a tqdm bar on a terminal, elsewhere a line
    every few seconds.
    """
    _check_arguments(policy, episodes, seed, n_jobs, progress)
    kwargs = check_env_kwargs("", env_kwargs, allow_none=True)
    spec_id = find_spec(env_id).id  # an unknown id fails here, with gymnasium's message
    if isinstance(policy, str) and policy == "heuristic":
        _check_heuristic(env_id, kwargs)
    episodes, seed = int(episodes), int(seed)
    seeds = range(seed, seed + episodes)  # exact Python ints: seeds past 2**63 stay distinct
    chunks = [seeds[i : i + CHUNK_EPISODES] for i in range(0, episodes, CHUNK_EPISODES)]
    run = _run_episodes_batched if callable(getattr(policy, "act_batch", None)) else _run_episodes
    workers = min(_n_workers(n_jobs), len(chunks))
    if workers == 1:
        results = (run(env_id, policy, chunk, kwargs) for chunk in chunks)
    else:
        from joblib import Parallel, delayed  # only for parallel runs: `import gym_suite` stays light

        results = Parallel(n_jobs=workers, return_as="generator")(
            delayed(run)(env_id, policy, chunk, kwargs) for chunk in chunks
        )
    returns, lengths, bar = [], [], None
    if sys.stderr.isatty() if progress is None else progress:
        from gym_suite.progress import Progress  # a tqdm bar on a terminal, a log line every few seconds elsewhere

        bar = Progress(episodes, f"{spec_id} {_policy_name(policy)}", unit="episode")
    with bar if bar is not None else contextlib.nullcontext():
        for chunk_returns, chunk_lengths in results:
            returns.extend(chunk_returns)
            lengths.extend(chunk_lengths)
            if bar is not None:
                bar.update(len(chunk_returns))
    return EvalResult(spec_id, _policy_name(policy), seed, np.array(returns), np.array(lengths), dict(kwargs or {}))


def _check_policy(policy: object) -> None:
    if isinstance(policy, str):
        if policy not in BUILTIN_POLICIES:
            raise ValueError(f"unknown policy {policy!r}: use a callable or one of {list(BUILTIN_POLICIES)}")
    elif not callable(policy):
        raise TypeError(f"policy must be a callable obs -> action or one of {list(BUILTIN_POLICIES)}, got {policy!r}")


def _check_arguments(policy: object, episodes: object, seed: object, n_jobs: object, progress: object) -> None:
    """:func:`evaluate`'s arguments but the id and the env's, checked before anything runs."""
    _check_policy(policy)
    if not _is_int(episodes) or not 1 <= episodes <= MAX_EPISODES:  # type: ignore[operator]
        raise ValueError(f"episodes must be a positive integer, at most {MAX_EPISODES:,}, got {shown(episodes)}")
    if not _is_int(seed) or seed < 0:  # type: ignore[operator]
        raise ValueError(f"seed must be a non-negative integer, got {shown(seed)}")
    _check_run(n_jobs, progress)


def _check_run(n_jobs: object, progress: object) -> None:
    """:func:`evaluate`'s ``n_jobs`` and ``progress`` (:func:`gym_suite.score` takes them too)."""
    if not _is_int(n_jobs) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a positive integer or negative (-1: every core), got {shown(n_jobs)}")
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress must be None, True or False, got {shown(progress)}")


def _check_actions(policy: object, actions: Any, n: int) -> None:
    """``act_batch``'s answer for ``n`` observations: a sequence of ``n`` actions."""
    if (
        isinstance(actions, (str, bytes, Mapping))
        or not hasattr(actions, "__len__")
        or getattr(actions, "ndim", 1) == 0
    ):
        raise TypeError(
            f"{_policy_name(policy)}.act_batch returned {shown(actions)} for {n} observations: "
            "it must return a list (or array) of actions, one per observation"
        )
    if len(actions) != n:
        raise ValueError(
            f"{_policy_name(policy)}.act_batch returned {len(actions)} actions for {n} "
            f"observations: expected {n}, one per observation"
        )


def _n_workers(n_jobs: int) -> int:
    """Processes for ``n_jobs`` in joblib's convention (``-1`` every core, ``-2`` all but one...)."""
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return n_jobs
